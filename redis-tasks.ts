// Task records on Redis (the add-on `mcp-core/redis`, made by createRedisEngine): a TaskStore every process of a
// deployment shares, with creates that are durable before they resolve, an owner lease per running task (a task whose
// process stopped reads `failed`, never `working` forever), and messages and ends that reach the process running a
// task. It owns the `<prefix>task…` keys and gives each a TTL; it never runs a handler, and the core never imports it.

import { randomBytes, toBase64Url } from './bytes.ts';
import { ErrorCode, INTERNAL_ERROR, isPlainObject, ProtocolError } from './jsonrpc.ts';
import { positive, type RedisCommands } from './redis-link.ts';
import { decodeCursor, encodeCursor } from './registry.ts';
import {
  isTerminal,
  MAX_TIMER_MS,
  type NewTask,
  RECORD_BYTES,
  recordTooLarge,
  TASK_BOUNDS,
  TASK_TRANSITIONS,
  type TaskChange,
  type TaskMessage,
  type TaskNotice,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  taskLimit,
  variableText,
} from './task-store.ts';

/** The task options of createRedisEngine(). */
export interface RedisTaskOptions {
  /**
   * Task records held at once across the deployment, expired ones excluded (default 10 000); past it a create first
   * evicts a terminal record, else rejects.
   */
  maxTasks?: number;
  /** Task records one owner holds at once across the deployment (default 100; the anonymous owner is one owner). */
  maxTasksPerOwner?: number;
  /** Bytes of task records across the deployment (each its JSON body's UTF-8 bytes, plus its owner and 256; default 256 MiB). */
  maxTaskBytes?: number;
  /** Bytes of one owner's task records (default 8 MiB); a record past what it leaves fails its task. */
  maxTaskBytesPerOwner?: number;
  /** How long a terminal task record stays when no TTL was asked for (default 60 000 ms). */
  taskRetentionMs?: number;
  /** The longest TTL in ms (default 3 600 000, one hour); longer requests are clamped to it, absent ones get it. */
  maxTaskTtlMs?: number;
  /**
   * How long a running task's owner lease lasts without renewal (default 10 000 ms; renewed every third of it): a
   * process that stops for longer loses its running tasks, which then read `failed`.
   */
  taskLeaseMs?: number;
}

// Keys: the record is a hash under `<prefix>task:<id>` (owner, status, creation and update times in ms, TTL, polling
// interval, `body`: the variable part as JSON, opaque to the scripts, and `req` when a TTL was asked for), expiring at
// its creation plus its TTL. The lease `<prefix>task-lease:<id>` names the process that runs the task;
// `<prefix>task-inbox:<id>` queues the messages for it. `<prefix>tasks` holds every record's id by its expiry time
// (the cap); `<prefix>tasks-done` the terminal ones by creation time (evicted oldest first); `<prefix>tasks-of:<owner>`
// an owner's ids by creation sequence (`<prefix>tasks:seq`), for tasks/list and the owner's own evictions;
// `<prefix>tasks-acct` what each record weighs (`<id>` → `<bytes> <owner>`) and the sums: `#bytes`, and per owner
// `n:<owner>` records and `b:<owner>` bytes. A process hears about its tasks on `<prefix>task-owner:<process>`, each
// message a task id: read its inbox and status.

/** Queued messages per task (TaskStore.send); one more rejects. */
const MAX_QUEUED = 64;
/** Ids renewed per script: the lease renewal's batch. */
const RENEW_BATCH = 500;
/** The cursor letter of task pages (registry.ts cursors). */
const CURSOR_TAG = 'k';

/** What a record whose process stopped holds: `failed`, with the generic internal error. */
const LOST_BODY = JSON.stringify({ statusMessage: 'The process running the task stopped', error: INTERNAL_ERROR });

/**
 * What every script starts with: the transitions (TASK_TRANSITIONS, the one definition), Redis's clock, and `read`,
 * which returns a record's fields (owner, status, createdMs, updatedMs, ttlMs, poll, body) after failing a live one
 * whose lease lapsed.
 */
const PRELUDE = `
local ALLOWED = cjson.decode('${JSON.stringify(TASK_TRANSITIONS)}')
local function int(x) return string.format('%d', x) end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live(status) return ALLOWED[status] ~= nil and #ALLOWED[status] > 0 end
local function allowed(from, to)
  for _, status in ipairs(ALLOWED[from] or {}) do if status == to then return true end end
  return false
end
local function extend(key, at, now)
  local left = redis.call('PTTL', key)
  if left < at - now then redis.call('PEXPIREAT', key, int(at)) end
end
local function read(key, lease, lost)
  local r = redis.call('HMGET', key, 'owner', 'status', 'createdMs', 'updatedMs', 'ttlMs', 'poll', 'body')
  if not r[1] then return nil end
  if live(r[2]) and redis.call('EXISTS', lease) == 0 then
    local at = int(math.max(now_ms(), tonumber(r[4]) + 1))
    redis.call('HSET', key, 'status', 'failed', 'updatedMs', at, 'body', lost)
    r[2] = 'failed' r[4] = at r[7] = lost
  end
  return r
end
`;

/**
 * What the scripts that add or drop weight start with (after PRELUDE), over the key prefix P and the bounds L
 * (`tasks`, `perOwner`, `bytes`, `bytesPerOwner`): `forget` takes a record's weight off the sums, `evict` removes a
 * record and everything of it, `prune` evicts the records whose expiry time `now` has reached, `over` names the
 * first bound `count` more records and `bytes` more bytes of `owner` would pass, and `room` evicts terminal records
 * until none is passed (the owner's own first, in creation order, while its share is what is full; then anyone's,
 * oldest first), returning the bound still passed, if any. A record whose whole weight (`size`) is larger than a
 * bound by itself evicts nothing: no eviction could make it fit.
 */
const ACCOUNTS = `
local RECORD_BYTES = ${RECORD_BYTES}
local function forget(P, id)
  local acct = P .. 'tasks-acct'
  local entry = redis.call('HGET', acct, id)
  if not entry then return end
  local space = string.find(entry, ' ', 1, true)
  local bytes = tonumber(string.sub(entry, 1, space - 1))
  local owner = string.sub(entry, space + 1)
  redis.call('HDEL', acct, id)
  redis.call('HINCRBY', acct, '#bytes', -bytes)
  redis.call('HINCRBY', acct, 'b:' .. owner, -bytes)
  if redis.call('HINCRBY', acct, 'n:' .. owner, -1) <= 0 then redis.call('HDEL', acct, 'n:' .. owner, 'b:' .. owner) end
end
local function evict(P, id)
  local owner = redis.call('HGET', P .. 'task:' .. id, 'owner')
  redis.call('DEL', P .. 'task:' .. id, P .. 'task-lease:' .. id, P .. 'task-inbox:' .. id)
  redis.call('ZREM', P .. 'tasks', id)
  redis.call('ZREM', P .. 'tasks-done', id)
  if owner then redis.call('ZREM', P .. 'tasks-of:' .. owner, id) end
  forget(P, id)
end
-- A record at its expiry time may not have expired yet in Redis's own view of the time: it goes with its weight.
local function prune(P, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. 'tasks', '-inf', now)) do evict(P, id) end
end
local function used(P, field) return tonumber(redis.call('HGET', P .. 'tasks-acct', field) or '0') end
local function over(P, L, owner, count, bytes)
  if used(P, 'n:' .. owner) + count > L.perOwner then return 'maxTasksPerOwner' end
  if used(P, 'b:' .. owner) + bytes > L.bytesPerOwner then return 'maxTaskBytesPerOwner' end
  if redis.call('ZCARD', P .. 'tasks') + count > L.tasks then return 'maxTasks' end
  if used(P, '#bytes') + bytes > L.bytes then return 'maxTaskBytes' end
  return nil
end
local function own(full) return full ~= nil and string.sub(full, -8) == 'PerOwner' end
local function room(P, L, owner, count, bytes, size)
  local full = over(P, L, owner, count, bytes)
  if not full or size > L.bytesPerOwner or size > L.bytes then return full end
  if own(full) then
    for _, id in ipairs(redis.call('ZRANGE', P .. 'tasks-of:' .. owner, 0, -1)) do
      local status = redis.call('HGET', P .. 'task:' .. id, 'status')
      if status and not live(status) then
        evict(P, id)
        full = over(P, L, owner, count, bytes)
        if not own(full) then break end
      end
    end
  end
  while full and not own(full) do
    local id = redis.call('ZRANGE', P .. 'tasks-done', 0, 0)[1]
    if not id then break end
    evict(P, id)
    full = over(P, L, owner, count, bytes)
  end
  return full
end
local function weigh(P, id, owner, bytes, delta, expires, now)
  local acct = P .. 'tasks-acct'
  redis.call('HSET', acct, id, int(bytes) .. ' ' .. owner)
  redis.call('HINCRBY', acct, '#bytes', delta)
  redis.call('HINCRBY', acct, 'b:' .. owner, delta)
  extend(acct, expires, now)
end
`;

/**
 * Creates a record `working`, with this process's lease: KEYS the record, the lease, the cap set, the sequence, the
 * owner's index; ARGV the id, owner, TTL, polling interval, process id, lease TTL, the bounds (cjson: ACCOUNTS), longest
 * TTL, the key prefix, '1' when the TTL was asked for. The expired records are forgotten first, and terminal ones
 * evicted while a bound would be passed (ACCOUNTS `room`); the oldest PRUNED ids of the owner's index whose records
 * are gone leave it (tasks/list prunes the rest). Returns the creation time in ms, the name of the bound passed, or
 * -2 when the id exists.
 */
const CREATE_TASK = `${PRELUDE}${ACCOUNTS}
local PRUNED = 16
local now = now_ms()
local P = ARGV[9]
prune(P, now)
if redis.call('EXISTS', KEYS[1]) == 1 then return -2 end
local bytes = RECORD_BYTES + #ARGV[2] + 2
local full = room(P, cjson.decode(ARGV[7]), ARGV[2], 1, bytes, bytes)
if full then return full end
local expires = now + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'status', 'working', 'createdMs', int(now), 'updatedMs', int(now),
  'ttlMs', ARGV[3], 'poll', ARGV[4], 'body', '{}', 'req', ARGV[10])
redis.call('PEXPIREAT', KEYS[1], int(expires))
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6])
redis.call('ZADD', KEYS[3], int(expires), ARGV[1])
extend(KEYS[3], expires, now)
redis.call('HINCRBY', P .. 'tasks-acct', 'n:' .. ARGV[2], 1)
weigh(P, ARGV[1], ARGV[2], bytes, bytes, expires, now)
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, PRUNED - 1)) do
  if redis.call('EXISTS', P .. 'task:' .. id) == 0 then redis.call('ZREM', KEYS[5], id) end
end
redis.call('ZADD', KEYS[5], redis.call('INCR', KEYS[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[4], ARGV[8])
extend(KEYS[5], expires, now)
return now`;

/** Reads a record (failing it when its lease lapsed): KEYS the record, the lease; ARGV the lost body. */
const GET_TASK = `${PRELUDE}
return read(KEYS[1], KEYS[2], ARGV[1]) or false`;

/**
 * One transition, unless TASK_TRANSITIONS forbids it: KEYS the record, the lease, the cap set, the inbox; ARGV the
 * status, the body, the new TTL or '', this process, the channel prefix, the id, the lost body, the key prefix, the
 * bounds (cjson: ACCOUNTS), the retention, then the bodies of the failure that replaces a change past
 * maxTaskBytesPerOwner and past maxTaskBytes. A body that passes a byte bound even once terminal records are evicted
 * is stored as that failure; a record that becomes terminal without an asked-for TTL lives the retention more; a
 * terminal status drops the lease and tells the process that held it (when another). Returns the record's fields.
 */
const UPDATE_TASK = `${PRELUDE}${ACCOUNTS}
local P = ARGV[8]
prune(P, now_ms()) -- first: the record written is never one whose weight was just forgotten
local r = read(KEYS[1], KEYS[2], ARGV[7])
if not r or not allowed(r[2], ARGV[1]) then return false end
local now = now_ms()
local status, body = ARGV[1], ARGV[2]
local entry = redis.call('HGET', P .. 'tasks-acct', ARGV[6]) or '0 '
local old = tonumber(string.sub(entry, 1, string.find(entry, ' ', 1, true) - 1))
local bytes = RECORD_BYTES + #r[1] + #body
local full = room(P, cjson.decode(ARGV[9]), r[1], 0, bytes - old, bytes)
if full then
  status = 'failed'
  if full == 'maxTaskBytes' then body = ARGV[12] else body = ARGV[11] end
  bytes = RECORD_BYTES + #r[1] + #body
end
local at = int(math.max(now, tonumber(r[4]) + 1))
local ttl = r[5]
if ARGV[3] ~= '' then
  ttl = ARGV[3]
  redis.call('HSET', KEYS[1], 'req', '1')
end
if not live(status) and redis.call('HGET', KEYS[1], 'req') ~= '1' then
  ttl = int(math.min(tonumber(ttl), tonumber(at) - tonumber(r[3]) + tonumber(ARGV[10])))
end
redis.call('HSET', KEYS[1], 'status', status, 'updatedMs', at, 'ttlMs', ttl, 'body', body)
local expires = tonumber(r[3]) + tonumber(ttl)
if ttl ~= r[5] then
  redis.call('ZADD', KEYS[3], int(expires), ARGV[6])
  extend(KEYS[3], expires, now)
  extend(P .. 'tasks-of:' .. r[1], expires, now)
  if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('PEXPIREAT', KEYS[4], int(expires)) end
  redis.call('PEXPIREAT', KEYS[1], int(expires))
end
weigh(P, ARGV[6], r[1], bytes, bytes - old, expires, now)
if not live(status) then
  redis.call('ZADD', P .. 'tasks-done', r[3], ARGV[6])
  extend(P .. 'tasks-done', expires, now)
  local holder = redis.call('GET', KEYS[2])
  redis.call('DEL', KEYS[2])
  if holder and holder ~= ARGV[4] then redis.call('PUBLISH', ARGV[5] .. holder, ARGV[6]) end
end
r[2] = status r[4] = at r[5] = ttl r[7] = body
return r`;

/**
 * One page of an owner's records after a sequence number: KEYS the owner's index; ARGV the sequence, the page size,
 * the key prefix, the lost body. Ids whose record is gone leave the index. Returns up to one more than a page, each
 * the record's fields, then its id and sequence number.
 */
const LIST_TASKS = `${PRELUDE}
local out = {}
local after = '(' .. ARGV[1]
local want = tonumber(ARGV[2]) + 1
while #out < want do
  local batch = redis.call('ZRANGEBYSCORE', KEYS[1], after, '+inf', 'WITHSCORES', 'LIMIT', 0, want)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local id = batch[i]
    after = '(' .. batch[i + 1]
    local r = read(ARGV[3] .. 'task:' .. id, ARGV[3] .. 'task-lease:' .. id, ARGV[4])
    if r then
      r[8] = id r[9] = batch[i + 1]
      out[#out + 1] = r
      if #out == want then break end
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return out`;

/**
 * Removes a record and its weight (ACCOUNTS `evict`): KEYS the record, the lease; ARGV the id, the key prefix, the
 * channel prefix, this process. Tells the process that held the lease (when another). Returns 1, or 0 if none.
 */
const DELETE_TASK = `${PRELUDE}${ACCOUNTS}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local holder = redis.call('GET', KEYS[2])
evict(ARGV[2], ARGV[1])
if holder and holder ~= ARGV[4] then redis.call('PUBLISH', ARGV[3] .. holder, ARGV[1]) end
return 1`;

/**
 * Queues a message for the process that runs a task and tells it: KEYS the lease, the inbox, the record; ARGV the
 * message, the queue's bound, the channel prefix, the id, the lost body. A live task whose lease lapsed is failed
 * (as a read would): nobody is left to answer. Returns 1, 0 when no process runs the task, -1 when full.
 */
const SEND_TASK = `${PRELUDE}
local r = read(KEYS[3], KEYS[1], ARGV[5])
local holder = redis.call('GET', KEYS[1])
local left = redis.call('PTTL', KEYS[3])
if not r or not live(r[2]) or not holder or left <= 0 then return 0 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], left)
redis.call('PUBLISH', ARGV[3] .. holder, ARGV[4])
return 1`;

/**
 * Reads a task's queued messages: KEYS the inbox, the record. Returns its status ('' when gone) and the messages;
 * they leave the queue once delivered (LTRIM), so a reply lost on the way leaves them for the next drain.
 */
const DRAIN_TASK = `
return { redis.call('HGET', KEYS[2], 'status') or '', redis.call('LRANGE', KEYS[1], 0, -1) }`;

/**
 * Renews this process's leases: ARGV the key prefix, this process, the lease TTL, the lost body, then the ids. A
 * lease that lapsed is not taken back: its task reads failed from then on, wherever it is read (a message sent
 * meanwhile found no process to reach). Returns per id `held`, `mail` (held, with messages queued) or `ended`
 * (terminal, gone, lapsed, or held by another process).
 */
const RENEW_LEASES = `${PRELUDE}
local out = {}
for i = 5, #ARGV do
  local id = ARGV[i]
  local lease = ARGV[1] .. 'task-lease:' .. id
  local r = read(ARGV[1] .. 'task:' .. id, lease, ARGV[4])
  local state = 'ended'
  if r and live(r[2]) then
    if redis.call('GET', lease) == ARGV[2] then
      redis.call('SET', lease, ARGV[2], 'PX', ARGV[3])
      state = 'held'
      if redis.call('EXISTS', ARGV[1] .. 'task-inbox:' .. id) == 1 then state = 'mail' end
    end
  end
  out[#out + 1] = state
end
return out`;

/** The fields a script returns for a record, in order (see PRELUDE's `read`). */
type Fields = [
  owner: string,
  status: string,
  createdMs: string,
  updatedMs: string,
  ttl: string,
  poll: string,
  body: string,
];

/** A record from a script's fields; a status or body that is not a task's is a corrupt entry (thrown). */
function toRecord(taskId: string, fields: unknown[]): TaskRecord {
  const [owner, status, createdMs, updatedMs, ttlMs, poll, body] = fields.map(String) as Fields;
  const variable = JSON.parse(body) as Partial<TaskRecord>;
  if (!Object.hasOwn(TASK_TRANSITIONS, status) || typeof variable !== 'object' || variable === null)
    throw new TypeError(`redis: the record of task ${taskId} is not a task record`);
  return {
    taskId,
    status: status as TaskStatus,
    ...variable,
    createdAt: new Date(Number(createdMs)).toISOString(),
    lastUpdatedAt: new Date(Number(updatedMs)).toISOString(),
    ttlMs: Number(ttlMs),
    pollIntervalMs: Number(poll),
    owner,
  };
}

/** A queued message, or undefined when the text is not one (TaskMessage's two shapes). */
function parseMessage(text: string): TaskMessage | undefined {
  let message: { type?: unknown; responses?: unknown; key?: unknown; error?: { code?: unknown; message?: unknown } };
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null) return undefined;
  if (message.type === 'responses' && isPlainObject(message.responses)) return message as TaskMessage;
  const { key, error } = message;
  if (message.type !== 'refused' || typeof key !== 'string' || !isPlainObject(error)) return undefined;
  return typeof error.code === 'number' && typeof error.message === 'string' ? (message as TaskMessage) : undefined;
}

/** A TaskStore on Redis (see the module comment); createRedisEngine() makes it as `taskStore`. */
export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisCommands;
  /** The bounds as the scripts read them (ACCOUNTS), and by name for the refusals. */
  readonly #bounds: { tasks: number; perOwner: number; bytes: number; bytesPerOwner: number };
  readonly #boundsText: string;
  readonly #maxTtlMs: number;
  readonly #retentionMs: number;
  readonly #leaseMs: number;
  /** This process among the runners of tasks: it hears about its tasks on `<prefix>task-owner:<id>`. */
  readonly #processId = toBase64Url(randomBytes(12));
  /** The tasks this process holds a lease on (created here, not yet ended). */
  readonly #leased = new Set<string>();
  readonly #listeners = new Set<(taskId: string, notice: TaskNotice) => void>();
  /** Renews the leases while there are any. */
  #renewal: ReturnType<typeof setInterval> | undefined;
  /** Per task: the drain under way, and whether another was asked for meanwhile (drains of a task never overlap). */
  readonly #draining = new Map<string, { again: boolean }>();
  /** Subscribed to this process's channel (on the first create). */
  #channel: Promise<void> | undefined;
  #closed = false;

  /** Checks the options (a RangeError names a bad one). */
  constructor(redis: RedisCommands, options: RedisTaskOptions) {
    this.#redis = redis;
    this.#bounds = {
      tasks: positive('maxTasks', options.maxTasks, 10_000),
      perOwner: positive('maxTasksPerOwner', options.maxTasksPerOwner, TASK_BOUNDS.maxTasksPerOwner),
      bytes: positive('maxTaskBytes', options.maxTaskBytes, 256 * 1024 * 1024),
      bytesPerOwner: positive('maxTaskBytesPerOwner', options.maxTaskBytesPerOwner, TASK_BOUNDS.maxBytesPerOwner),
    };
    this.#boundsText = JSON.stringify(this.#bounds);
    this.#maxTtlMs = positive('maxTaskTtlMs', options.maxTaskTtlMs, 3_600_000, MAX_TIMER_MS);
    this.#retentionMs = positive('taskRetentionMs', options.taskRetentionMs, TASK_BOUNDS.retentionMs, MAX_TIMER_MS);
    this.#leaseMs = positive('taskLeaseMs', options.taskLeaseMs, 10_000, MAX_TIMER_MS);
  }

  /** The key of a task's record, lease or inbox. */
  #key(kind: 'task' | 'task-lease' | 'task-inbox', taskId: string): string {
    return `${this.#redis.prefix}${kind}:${taskId}`;
  }

  /** The key of an owner's index of tasks (tasks/list). */
  #ownerIndex(owner: string): string {
    return `${this.#redis.prefix}tasks-of:${owner}`;
  }

  /** See TaskStore.create: resolves once Redis holds the record and this process's lease on it. */
  async create(task: NewTask): Promise<TaskRecord> {
    if (this.#closed) throw new Error('the task store is closed');
    await this.#subscribe();
    const { prefix } = this.#redis;
    const ttlMs = Math.min(task.ttlMs ?? this.#maxTtlMs, this.#maxTtlMs);
    const answer = await this.#redis.script(
      CREATE_TASK,
      [
        this.#key('task', task.taskId),
        this.#key('task-lease', task.taskId),
        `${prefix}tasks`,
        `${prefix}tasks:seq`,
        this.#ownerIndex(task.owner),
      ],
      [
        task.taskId,
        task.owner,
        String(ttlMs),
        String(task.pollIntervalMs),
        this.#processId,
        String(this.#leaseMs),
        this.#boundsText,
        String(this.#maxTtlMs),
        prefix,
        task.ttlMs === undefined ? '0' : '1',
      ],
    );
    // A bound's name: the create would pass it even once terminal records were evicted.
    if (typeof answer === 'string' && answer.startsWith('max')) throw taskLimit(answer, this.#limit(answer));
    const created = Number(answer);
    if (created === -2) throw new Error(`task ${task.taskId} already exists`);
    if (!this.#closed) this.#lease(task.taskId); // closed meanwhile: the lease lapses, as close() says
    const at = new Date(created).toISOString();
    return {
      taskId: task.taskId,
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs,
      pollIntervalMs: task.pollIntervalMs,
      owner: task.owner,
    };
  }

  /** The value of a bound by its option's name (ACCOUNTS `over`). */
  #limit(option: string): number {
    const { tasks, perOwner, bytes, bytesPerOwner } = this.#bounds;
    if (option === 'maxTasks') return tasks;
    if (option === 'maxTasksPerOwner') return perOwner;
    return option === 'maxTaskBytes' ? bytes : bytesPerOwner;
  }

  /** See TaskStore.get; a live record whose process stopped (its lease lapsed) is stored `failed` and read so. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const fields = await this.#redis.script(
      GET_TASK,
      [this.#key('task', taskId), this.#key('task-lease', taskId)],
      [LOST_BODY],
    );
    return Array.isArray(fields) ? toRecord(taskId, fields) : undefined;
  }

  /**
   * See TaskStore.update: one script, so the transition check, the bounds and the write are atomic across processes.
   * A body past a byte bound, even once terminal records are evicted, is stored as the task's failure
   * (recordTooLarge); a record that becomes terminal without an asked-for TTL lives `taskRetentionMs` more.
   */
  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const { ttlMs, status } = change;
    const { bytes, bytesPerOwner } = this.#bounds;
    const failure = (option: string, limit: number): string => variableText(recordTooLarge(change, option, limit));
    // A write that failed ends the task here (TaskRunner drops it): its lease is let go, so it reads failed.
    const fields = await this.#redis
      .script(
        UPDATE_TASK,
        [
          this.#key('task', taskId),
          this.#key('task-lease', taskId),
          `${this.#redis.prefix}tasks`,
          this.#key('task-inbox', taskId),
        ],
        [
          status,
          variableText(change),
          ttlMs === undefined ? '' : String(Math.min(ttlMs, this.#maxTtlMs)),
          this.#processId,
          `${this.#redis.prefix}task-owner:`,
          taskId,
          LOST_BODY,
          this.#redis.prefix,
          this.#boundsText,
          String(this.#retentionMs),
          failure('maxTaskBytesPerOwner', bytesPerOwner),
          failure('maxTaskBytes', bytes),
        ],
      )
      .catch((error: unknown) => {
        this.#unlease(taskId);
        throw error;
      });
    if (!Array.isArray(fields)) return undefined;
    const record = toRecord(taskId, fields);
    // Another runner of this process may run it (two servers, one store): it hears the end as another process would.
    if (isTerminal(record.status)) this.#ended(taskId);
    return record;
  }

  /** See TaskStore.list: a cursor on the owner's creation sequence, so a record that expires shifts nothing. */
  async list(owner: string, cursor: unknown, pageSize: number): Promise<TaskPage> {
    const after = decodeCursor(cursor, Number.MAX_SAFE_INTEGER, CURSOR_TAG);
    const rows = (await this.#redis.script(
      LIST_TASKS,
      [this.#ownerIndex(owner)],
      [String(after), String(pageSize), this.#redis.prefix, LOST_BODY],
    )) as unknown[][];
    const page = rows.slice(0, pageSize);
    return {
      tasks: page.map((row) => toRecord(String(row[7]), row)),
      nextCursor: rows.length > pageSize ? encodeCursor(Number(page.at(-1)![8]), CURSOR_TAG) : undefined,
    };
  }

  /** See TaskStore.delete; the process running the task hears that it ended. */
  async delete(taskId: string): Promise<boolean> {
    const deleted = await this.#redis.script(
      DELETE_TASK,
      [this.#key('task', taskId), this.#key('task-lease', taskId)],
      [taskId, this.#redis.prefix, `${this.#redis.prefix}task-owner:`, this.#processId],
    );
    this.#unlease(taskId);
    return Number(deleted) === 1;
  }

  /** See TaskStore.send: queued under the task, then the process holding its lease is told. */
  async send(taskId: string, message: TaskMessage): Promise<void> {
    const queued = await this.#redis.script(
      SEND_TASK,
      [this.#key('task-lease', taskId), this.#key('task-inbox', taskId), this.#key('task', taskId)],
      [JSON.stringify(message), String(MAX_QUEUED), `${this.#redis.prefix}task-owner:`, taskId, LOST_BODY],
    );
    if (Number(queued) === -1)
      throw new ProtocolError(ErrorCode.InternalError, 'Internal error: too many undelivered messages for the task', {
        maxQueued: MAX_QUEUED,
      });
  }

  /** See TaskStore.receive. */
  receive(listener: (taskId: string, notice: TaskNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Stops renewing this process's leases and drops its listeners; later creates reject. Tasks still running here
   * read `failed` once their leases lapse (TaskRunner.close cancels them first). The records stay in Redis.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#renewal);
    this.#renewal = undefined;
    this.#leased.clear();
    this.#listeners.clear();
  }

  /** Subscribes to this process's channel once; a subscription that failed is tried again by the next create. */
  #subscribe(): Promise<void> {
    this.#channel ??= this.#redis.link
      .subscribe(
        `${this.#redis.prefix}task-owner:${this.#processId}`,
        (taskId) => this.#drain(taskId),
        // Told nothing while disconnected: every lease is looked at now.
        () => void this.#renew(),
      )
      .catch((error: unknown) => {
        this.#channel = undefined;
        throw error;
      });
    return this.#channel;
  }

  /** Holds the lease of a task created here, renewing it while any is held. */
  #lease(taskId: string): void {
    this.#leased.add(taskId);
    if (this.#renewal !== undefined) return;
    this.#renewal = setInterval(() => void this.#renew(), Math.ceil(this.#leaseMs / 3));
    this.#renewal.unref(); // leases never keep a process alive
  }

  /** The task ended (or was never to be renewed again here): its lease is no longer renewed. */
  #unlease(taskId: string): void {
    this.#leased.delete(taskId);
    if (this.#leased.size > 0) return;
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  /**
   * Renews every lease held here, in batches; a task that ended elsewhere is told, one with messages is drained. A
   * failure (Redis unreachable) is left to the next renewal: leases that lapse meanwhile fail their tasks.
   */
  async #renew(): Promise<void> {
    const ids = [...this.#leased];
    for (let start = 0; start < ids.length; start += RENEW_BATCH) {
      const batch = ids.slice(start, start + RENEW_BATCH);
      let states: unknown;
      try {
        states = await this.#redis.script(
          RENEW_LEASES,
          [],
          [this.#redis.prefix, this.#processId, String(this.#leaseMs), LOST_BODY, ...batch],
        );
      } catch {
        return;
      }
      (states as unknown[]).forEach((state, index) => {
        const taskId = batch[index]!;
        if (state === 'ended') this.#ended(taskId);
        else if (state === 'mail') this.#drain(taskId);
      });
    }
  }

  /** Drains a task's queue (#drainOnce), after the drain under way if there is one, so that none overlap. */
  #drain(taskId: string): void {
    const under = this.#draining.get(taskId);
    if (under !== undefined) {
      under.again = true;
      return;
    }
    const drain = { again: true };
    this.#draining.set(taskId, drain);
    void (async () => {
      while (drain.again) {
        drain.again = false;
        await this.#drainOnce(taskId);
      }
      this.#draining.delete(taskId);
    })();
  }

  /** Takes a task's queued messages for the listeners, and tells them when its record ended. */
  async #drainOnce(taskId: string): Promise<void> {
    if (!this.#leased.has(taskId)) return; // not this process's task (any more)
    let status: string;
    let messages: unknown[];
    try {
      [status, messages] = (await this.#redis.script(
        DRAIN_TASK,
        [this.#key('task-inbox', taskId), this.#key('task', taskId)],
        [],
      )) as [string, unknown[]];
    } catch {
      return; // the messages stay queued: the next renewal finds them
    }
    for (const text of messages) {
      const message = parseMessage(String(text));
      if (message !== undefined) this.#tell(taskId, message); // anything else is not this store's: send() queues here
    }
    // Delivered: they leave the queue. A second drain meanwhile delivers them again, which changes nothing (an
    // answered input key is no longer outstanding, and keys are never reused).
    if (messages.length > 0)
      await this.#redis.send(['LTRIM', this.#key('task-inbox', taskId), String(messages.length), '-1']).catch(() => {}); // left queued: delivered again by the next drain, to the same effect
    if (!Object.hasOwn(TASK_TRANSITIONS, status) || isTerminal(status as TaskStatus)) this.#ended(taskId);
  }

  /** The task's record ended or went away elsewhere: its lease is dropped and the listeners told. */
  #ended(taskId: string): void {
    if (!this.#leased.has(taskId)) return;
    this.#unlease(taskId);
    this.#tell(taskId, { type: 'ended' });
  }

  /**
   * Hands a notice to every listener. One that throws (the tasks extension's handles its own failures) does not keep
   * it from the others, nor fail a renewal or a drain.
   */
  #tell(taskId: string, notice: TaskNotice): void {
    for (const listener of this.#listeners) {
      try {
        listener(taskId, notice);
      } catch {
        // its own failure, reported by it (TasksExtension logs through the server's logger)
      }
    }
  }
}
