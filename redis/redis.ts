// Redis as the shared engine of a deployment (the add-on `mcp-core/redis`): 2025 session records with a sliding TTL,
// the resumability event store on Redis Streams and the change bus on pub/sub, all over the user's own Redis client
// (a RedisLink: two functions), plus the task store of redis-tasks.ts. It owns the session, event and change keys and
// gives each one a TTL; it never opens a socket, never speaks RESP itself, and the core never imports it.

import type { ChangeBus, ChangeEvent, JsonRpcMessage } from '../core.ts';
import type { GetStreamHolder, SessionRecord, SharedSessionStore } from '../http/shared-sessions.ts';
import { type EventStore, newStreamId } from '../http/sse.ts';
import type { TaskStore } from '../tasks/task-store.ts';
import { positive, RedisCommands, type RedisLink } from './redis-link.ts';
import { type RedisTaskOptions, RedisTaskStore } from './redis-tasks.ts';

export type { RedisLink } from './redis-link.ts';
export type { RedisTaskOptions } from './redis-tasks.ts';

/** Options of createRedisEngine(). */
export interface RedisEngineOptions extends RedisTaskOptions {
  /** Prepended to every key and channel (default `mcp:`): deployments sharing one Redis use different prefixes. */
  prefix?: string;
  /**
   * How long a 2025 session outlives its last request (default 30 minutes): its record's TTL, renewed by every
   * request of the session (a sliding TTL), and the TTL of its stored events, renewed by every event.
   */
  sessionTtlMs?: number;
  /**
   * Events kept per 2025 session, over all its SSE streams (default 1000), as the in-memory store keeps them: one
   * more drops the oldest event of the session's stream holding the most, so a chatty GET stream evicts its own
   * events, never a smaller POST stream's answer.
   */
  maxEventsPerSession?: number;
  /**
   * How long a command may take (default 2000 ms, at most 2^31 - 1: a timer's bound). One that takes longer rejects,
   * so a Redis outage answers 503 within this bound even when the client queues commands while it reconnects.
   */
  commandTimeoutMs?: number;
}

/** What createRedisEngine() returns: the seams of the core and of the HTTP handler, backed by one Redis. */
export interface RedisEngine {
  /** For `serveHttp`/`createHttpHandler`/`createFetchHandler`'s `sharedSessions`. */
  readonly sessions: SharedSessionStore;
  /** For the HTTP handler's `eventStore`. */
  readonly eventStore: EventStore;
  /** For createServer()'s `changeBus`. */
  readonly changeBus: ChangeBus;
  /** For createTasksExtension()'s `store` (mcp-core/tasks); the caller closes it after the server. */
  readonly taskStore: TaskStore;
}

/**
 * The shared engine over `link`. Every key it writes has a TTL: a session's record and events expire once the
 * session has been idle for `sessionTtlMs`, even when no process is left to remove them.
 */
export function createRedisEngine(link: RedisLink, options: RedisEngineOptions = {}): RedisEngine {
  const redis = new RedisCommands(link, options.prefix, options.commandTimeoutMs);
  const sessionTtlMs = String(positive('sessionTtlMs', options.sessionTtlMs, 30 * 60_000));
  return {
    sessions: new RedisSessionStore(redis, sessionTtlMs),
    eventStore: new RedisEventStore(
      redis,
      sessionTtlMs,
      positive('maxEventsPerSession', options.maxEventsPerSession, 1000),
    ),
    changeBus: new RedisChangeBus(redis),
    taskStore: new RedisTaskStore(redis, options),
  };
}

// 2025 sessions. A record is one JSON string under `<prefix>session:<id>`, its TTL renewed by every load (GETEX,
// Redis 6.2). Each save and removal is also published on `<prefix>sessions` (in the same script, so in store order),
// so every process applies a new state to its copy of the session, or ends the copy, at once. The processes holding a
// copy are the set `<prefix>session-copies:<id>` (each save and load adds its process, with the record's TTL); a
// client's message that one process cannot act on goes to the one process it belongs to, on that process's own
// channel `<prefix>session-inbox:<process>`.

/**
 * Stores the record, records this process's copy and announces it: KEYS the record, the copies; ARGV: its JSON, the
 * TTL, the channel, the message, 'existing' (a state change: only onto a record that exists) or not, the process.
 */
const SAVE_SESSION = `
if ARGV[5] == 'existing' and redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[6] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`;

/** Deletes the record (its GET stream, its copies) and announces the end: KEYS those; ARGV: the channel, the message. */
const REMOVE_SESSION = "redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) redis.call('PUBLISH', ARGV[1], ARGV[2]) return 1";

/**
 * Records a session's GET stream and announces it, for a session that still has its record: KEYS the record, its
 * GET stream; ARGV: the holder's JSON, the TTL, the channel, the message. Returns 1, or 0 when the session is gone.
 */
const HOLD_GET_STREAM = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`;

/**
 * Reads a record, its GET stream and its copies, renewing their TTLs and recording this process's copy: KEYS the
 * record, its GET stream, its copies; ARGV the TTL, the process ('' records none).
 */
const LOAD_SESSION = `
local record = redis.call('GETEX', KEYS[1], 'PX', ARGV[1])
if not record then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('SADD', KEYS[3], ARGV[2]) end
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return { record, redis.call('GET', KEYS[2]) or '', redis.call('SMEMBERS', KEYS[3]) }`;

/** A record as stored: an object with a string protocolVersion; anything else is a corrupt entry (thrown). */
function parseRecord(id: string, text: string): SessionRecord {
  const record = JSON.parse(text) as unknown;
  if (typeof record !== 'object' || record === null || typeof (record as SessionRecord).protocolVersion !== 'string')
    throw new TypeError(`redis: the record of session ${id} is not a session record`);
  return record as SessionRecord;
}

/** A message of the sessions channels: an object naming a session; undefined for anything else (not this add-on's). */
function parseMessage<T>(text: string): (T & { id: string }) | undefined {
  let message: (T & { id?: unknown }) | null;
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return undefined; // only the scripts and relay() above publish here
  }
  return typeof message?.id === 'string' ? (message as T & { id: string }) : undefined;
}

class RedisSessionStore implements SharedSessionStore {
  readonly #redis: RedisCommands;
  readonly #ttlMs: string;
  readonly #channel: string;

  constructor(redis: RedisCommands, ttlMs: string) {
    this.#redis = redis;
    this.#ttlMs = ttlMs;
    this.#channel = `${redis.prefix}sessions`;
  }

  #key(id: string): string {
    return `${this.#redis.prefix}session:${id}`;
  }

  /** The key of a session's GET stream and its holder (kept apart from the record: neither overwrites the other). */
  #getKey(id: string): string {
    return `${this.#redis.prefix}session-get:${id}`;
  }

  /** The key of the set of processes holding a copy of a session. */
  #copiesKey(id: string): string {
    return `${this.#redis.prefix}session-copies:${id}`;
  }

  /**
   * A new session's record, or (a record with a state) a later one of an existing session, which
   * never brings back a session DELETE removed meanwhile: that rejects.
   */
  async save(id: string, record: SessionRecord, process = ''): Promise<void> {
    const text = JSON.stringify(record);
    const message = JSON.stringify({ id, record });
    const later = record.logLevel !== undefined || record.subscriptions !== undefined;
    const when = later ? 'existing' : 'always';
    const saved = await this.#redis.script(
      SAVE_SESSION,
      [this.#key(id), this.#copiesKey(id)],
      [text, this.#ttlMs, this.#channel, message, when, process],
    );
    if (Number(saved) !== 1) throw new Error(`redis: session ${id} ended before its state was saved`);
  }

  async load(id: string, process = ''): Promise<SessionRecord | undefined> {
    const loaded = await this.#redis.script(
      LOAD_SESSION,
      [this.#key(id), this.#getKey(id), this.#copiesKey(id)],
      [this.#ttlMs, process],
    );
    if (!Array.isArray(loaded)) return undefined;
    const record = parseRecord(id, String(loaded[0]));
    const held = String(loaded[1]);
    if (held !== '') record.getStream = JSON.parse(held) as GetStreamHolder; // checked where it is used
    const copies = (loaded[2] as unknown[]).map(String);
    if (copies.length > 0) record.copies = copies;
    return record;
  }

  async remove(id: string): Promise<void> {
    await this.#redis.script(
      REMOVE_SESSION,
      [this.#key(id), this.#getKey(id), this.#copiesKey(id)],
      [this.#channel, JSON.stringify({ id })],
    );
  }

  /** A session's GET stream and its holder, onto a session that still exists (else nothing is stored). */
  async holdGetStream(id: string, holder: GetStreamHolder): Promise<void> {
    const text = JSON.stringify(holder);
    await this.#redis.script(
      HOLD_GET_STREAM,
      [this.#key(id), this.#getKey(id)],
      [text, this.#ttlMs, this.#channel, JSON.stringify({ id, getStream: holder })],
    );
  }

  /** The client message for `process`'s copy of the session, on that process's own channel only. */
  async relay(id: string, message: JsonRpcMessage, process: string): Promise<void> {
    await this.#redis.send([
      'PUBLISH',
      `${this.#redis.prefix}session-inbox:${process}`,
      JSON.stringify({ id, message }),
    ]);
  }

  /** The sessions channel, and (given `process`) this process's own channel, where its relayed messages come. */
  async watch(
    changed: (id: string, record: SessionRecord | undefined) => void,
    relayed: (id: string, message: JsonRpcMessage) => void,
    held: (id: string, holder: GetStreamHolder) => void,
    process?: string,
  ): Promise<void> {
    // What was announced while this process was disconnected, its copies learn with their next request's load.
    const announcements = this.#redis.link.subscribe(
      this.#channel,
      (text) => {
        const announced = parseMessage<{ record?: SessionRecord; getStream?: GetStreamHolder }>(text);
        if (announced === undefined) return;
        if (announced.getStream !== undefined) held(announced.id, announced.getStream);
        else changed(announced.id, announced.record);
      },
      () => {},
    );
    // A message relayed while this process was disconnected is lost: a response times out, a cancel is ignored.
    const inbox =
      process === undefined
        ? undefined
        : this.#redis.link.subscribe(
            `${this.#redis.prefix}session-inbox:${process}`,
            (text) => {
              const delivered = parseMessage<{ message?: JsonRpcMessage }>(text);
              if (delivered?.message !== undefined) relayed(delivered.id, delivered.message);
            },
            () => {},
          );
    await Promise.all([announcements, inbox]);
  }
}

// The event store. A stream's events are a Redis Stream under `<prefix>events:<session>:<stream>`, whose entry ids
// are minted by Redis; an event id is `<stream>_<entry id>`, so it names its stream and, looked up under the session's
// own key, never reaches another session's events. A session's events are bounded over all its streams, as
// MemoryEventStore bounds them: `<prefix>events-of:<session>` counts each stream's events (a sorted set, so the
// largest is found at once; a score is the count plus a fraction that is larger for an older stream, so of streams
// holding as many events the oldest comes first), `<prefix>events-count:<session>` holds their total and how many
// streams the session made, and past the bound the largest stream loses its oldest event. `<prefix>events-until:<session>` holds when each stream's key expires: a stream's TTL is
// renewed by its own appends (the session's TTL), and a POST stream's answer shortens it to ANSWERED_STREAM_TTL_MS, so
// the streams of answered POSTs go soon, and each append first takes the streams whose time passed out of the count.

/**
 * How long a POST stream is kept once its answer is stored (at most the session's TTL): time for a client that lost
 * its connection to resume it (after the `retry:` it was advised) and get the answer.
 */
export const ANSWERED_STREAM_TTL_MS = 60_000;

/**
 * Appends one event, keeps the session within its bound and hands the event to the processes following the stream:
 * KEYS the stream, the session's count per stream, its expiry per stream, its total, the stream's followers (process
 * ids); ARGV: the bound, the data, the session's TTL, the stream id, the channel prefix of the followers' inboxes, the
 * session id, the key prefix of the session's streams, and the stream's TTL from this event on. Returns the entry id.
 */
const APPEND_EVENT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function forget(stream, count)
  redis.call('DEL', ARGV[7] .. stream)
  redis.call('ZREM', KEYS[2], stream)
  redis.call('ZREM', KEYS[3], stream)
  redis.call('HINCRBY', KEYS[4], 'total', -count)
end
for _, stream in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  forget(stream, math.floor(tonumber(redis.call('ZSCORE', KEYS[2], stream) or '0')))
end
local id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
if redis.call('ZSCORE', KEYS[2], ARGV[4]) then
  redis.call('ZINCRBY', KEYS[2], 1, ARGV[4])
else
  local made = redis.call('HINCRBY', KEYS[4], 'streams', 1) % 2147483648
  redis.call('ZADD', KEYS[2], string.format('%.17g', 1.5 - made / 4294967296), ARGV[4])
end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[8]), ARGV[4])
local total = redis.call('HINCRBY', KEYS[4], 'total', 1)
while total > tonumber(ARGV[1]) do
  local largest = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if #largest == 0 then redis.call('HSET', KEYS[4], 'total', 0) break end -- a count without streams: never loop on it
  local stream, count = largest[1], math.floor(tonumber(largest[2]))
  local held = redis.call('XLEN', ARGV[7] .. stream)
  if held <= 1 then
    forget(stream, count)
  else
    redis.call('XTRIM', ARGV[7] .. stream, 'MAXLEN', held - 1)
    redis.call('ZINCRBY', KEYS[2], held - 1 - count, stream)
    redis.call('HINCRBY', KEYS[4], 'total', held - 1 - count)
  end
  total = tonumber(redis.call('HGET', KEYS[4], 'total'))
end
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
local followers = redis.call('SMEMBERS', KEYS[5])
if #followers > 0 then
  redis.call('PEXPIRE', KEYS[5], ARGV[8])
  local message = cjson.encode({ s = ARGV[6], t = ARGV[4], i = id, d = ARGV[2] })
  for _, follower in ipairs(followers) do redis.call('PUBLISH', ARGV[5] .. follower, message) end
end
return id`;

/** Registers a follower of a stream: KEYS[1] its followers; ARGV: the process id, the TTL. */
const FOLLOW_STREAM = "redis.call('SADD', KEYS[1], ARGV[1]) redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1";

/** Whether entry id `a` comes after `b` (both `<ms>-<seq>`, compared as numbers). */
function entryAfter(a: string, b: string): boolean {
  const [aMs, aSeq] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bMs, bSeq] = b.split('-').map(BigInt) as [bigint, bigint];
  return aMs > bMs || (aMs === bMs && aSeq > bSeq);
}

/** One follower in this process: where its events go, and the entry id of the last one it got. */
interface Follower {
  streamId: string;
  deliver: (event: { id: string; data: string }) => void;
  last: string;
  /** While the events stored before it registered are read: what its inbox brought meanwhile, in order. */
  early: { entryId: string; data: string }[] | undefined;
}

/** Deletes a session's streams: KEYS its count per stream, expiry per stream and total; ARGV[1] its streams' key prefix. */
const DROP_SESSION_EVENTS = `
for _, stream in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('DEL', ARGV[1] .. stream) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1`;

const STREAM_ID = /^[A-Za-z0-9-]+$/;
const ENTRY_ID = /^[0-9]{1,20}-[0-9]{1,20}$/;

type Replay = Exclude<Awaited<ReturnType<EventStore['replayAfter']>>, undefined>;

class RedisEventStore implements EventStore {
  readonly #redis: RedisCommands;
  readonly #ttlMs: string;
  /** A stream's TTL once its answer is stored. */
  readonly #answeredTtlMs: string;
  readonly #maxEvents: string;
  readonly #maxEventsCount: number;
  /** This process among the followers of streams: its inbox is `<prefix>inbox:<id>`. */
  readonly #processId = newStreamId();
  /** This process's followers, by `<session>:<stream>`. */
  readonly #followers = new Map<string, Set<Follower>>();
  /** Subscribed to this process's inbox (on the first follow). */
  #inbox: Promise<void> | undefined;

  constructor(redis: RedisCommands, ttlMs: string, maxEvents: number) {
    this.#redis = redis;
    this.#ttlMs = ttlMs;
    this.#answeredTtlMs = String(Math.min(ANSWERED_STREAM_TTL_MS, Number(ttlMs)));
    this.#maxEventsCount = maxEvents;
    this.#maxEvents = String(maxEvents);
  }

  #streamKey(sessionId: string, streamId: string): string {
    return `${this.#redis.prefix}events:${sessionId}:${streamId}`;
  }

  #followersKey(sessionId: string, streamId: string): string {
    return `${this.#redis.prefix}followers:${sessionId}:${streamId}`;
  }

  /** The keys of a session's bound: its count per stream, expiry per stream, and total. */
  #sessionKeys(sessionId: string): string[] {
    const { prefix } = this.#redis;
    return [
      `${prefix}events-of:${sessionId}`,
      `${prefix}events-until:${sessionId}`,
      `${prefix}events-count:${sessionId}`,
    ];
  }

  /** EventStore.append; `last` (a POST stream's answer) shortens the stream's TTL to ANSWERED_STREAM_TTL_MS. */
  async append(sessionId: string, streamId: string, data: string, last = false): Promise<string> {
    if (!STREAM_ID.test(streamId)) throw new TypeError(`invalid stream id ${JSON.stringify(streamId)}`);
    const { prefix } = this.#redis;
    const entry = await this.#redis.script(
      APPEND_EVENT,
      [this.#streamKey(sessionId, streamId), ...this.#sessionKeys(sessionId), this.#followersKey(sessionId, streamId)],
      [
        this.#maxEvents,
        data,
        this.#ttlMs,
        streamId,
        `${prefix}inbox:`,
        sessionId,
        this.#streamKey(sessionId, ''),
        last ? this.#answeredTtlMs : this.#ttlMs,
      ],
    );
    return `${streamId}_${String(entry)}`;
  }

  /**
   * EventStore.follow: this process registers as a follower of the stream (a set with the session's TTL), then reads
   * what was stored after `afterId` meanwhile; each later event comes through its inbox. Events are handed on once
   * each, in entry order, whichever way they came.
   */
  follow(
    sessionId: string,
    streamId: string,
    afterId: string,
    deliver: (event: { id: string; data: string }) => void,
  ): { ready: Promise<void>; stop(): void } {
    const key = `${sessionId}:${streamId}`;
    const follower: Follower = { streamId, deliver, last: afterId.slice(afterId.lastIndexOf('_') + 1), early: [] };
    let followers = this.#followers.get(key);
    if (followers === undefined) this.#followers.set(key, (followers = new Set()));
    followers.add(follower);
    let stopped = false;
    const stop = (): void => {
      stopped = true;
      if (!followers.delete(follower) || followers.size > 0) return;
      this.#followers.delete(key);
      // Best effort: a registration left behind only costs a publish to nobody until its TTL.
      this.#redis.send(['SREM', this.#followersKey(sessionId, streamId), this.#processId]).catch(() => {});
    };
    const ready = (async () => {
      // A subscription that failed is tried again by the next follow, not cached as failed.
      this.#inbox ??= this.#redis.link
        .subscribe(
          `${this.#redis.prefix}inbox:${this.#processId}`,
          (message) => this.#received(message),
          // What the inbox brought while disconnected is lost: every follower reads it from the stream instead.
          () => this.#catchUpAll(),
        )
        .catch((error: unknown) => {
          this.#inbox = undefined;
          throw error;
        });
      await this.#inbox;
      if (stopped) return; // its client left meanwhile: nothing to register
      await this.#redis.script(
        FOLLOW_STREAM,
        [this.#followersKey(sessionId, streamId)],
        [this.#processId, this.#ttlMs],
      );
      if (stopped) {
        // Stopped while registering: the registration stop() could not remove yet goes now.
        if (!this.#followers.has(key))
          await this.#redis.send(['SREM', this.#followersKey(sessionId, streamId), this.#processId]);
        return;
      }
      await this.#catchUp(sessionId, follower);
    })();
    return { ready, stop };
  }

  /**
   * Hands a follower what its stream stored after the last event it got, then what its inbox brought meanwhile
   * (held in `early` until then), each once, in entry order.
   */
  async #catchUp(sessionId: string, follower: Follower): Promise<void> {
    follower.early ??= [];
    let stored: Replay | undefined;
    try {
      stored = await this.replayAfter(sessionId, `${follower.streamId}_${follower.last}`);
    } finally {
      const early = follower.early;
      follower.early = undefined;
      for (const event of stored?.events ?? [])
        this.#hand(follower, event.id.slice(follower.streamId.length + 1), event.data);
      for (const event of early) this.#hand(follower, event.entryId, event.data);
    }
  }

  /** The inbox was subscribed again after a reconnect: every follower catches up from its stream (failures: next time). */
  #catchUpAll(): void {
    for (const [key, followers] of this.#followers) {
      const sessionId = key.slice(0, key.lastIndexOf(':'));
      for (const follower of followers)
        if (follower.early === undefined) this.#catchUp(sessionId, follower).catch(() => {});
    }
  }

  /** An event from this process's inbox, for the followers of its stream. */
  #received(message: string): void {
    let event: { s?: unknown; t?: unknown; i?: unknown; d?: unknown };
    try {
      event = JSON.parse(message) as typeof event;
    } catch {
      return; // not this add-on's: only APPEND_EVENT publishes to inboxes
    }
    const { s, t, i, d } = event;
    if (typeof s !== 'string' || typeof t !== 'string' || typeof i !== 'string' || typeof d !== 'string') return;
    for (const follower of this.#followers.get(`${s}:${t}`) ?? []) {
      if (follower.early !== undefined) follower.early.push({ entryId: i, data: d });
      else this.#hand(follower, i, d);
    }
  }

  /** Hands an event on to one follower unless it already got it (or a later one); a priming event carries nothing. */
  #hand(follower: Follower, entryId: string, data: string): void {
    if (!ENTRY_ID.test(entryId) || (ENTRY_ID.test(follower.last) && !entryAfter(entryId, follower.last))) return;
    follower.last = entryId;
    if (data !== '') follower.deliver({ id: `${follower.streamId}_${entryId}`, data });
  }

  async replayAfter(sessionId: string, lastEventId: string): Promise<Replay | undefined> {
    const cut = lastEventId.lastIndexOf('_');
    const streamId = lastEventId.slice(0, cut);
    const entryId = lastEventId.slice(cut + 1);
    // Client input: checked before it reaches a command (XRANGE would take `-`, `+` or a bare time as a range).
    if (cut <= 0 || !STREAM_ID.test(streamId) || !ENTRY_ID.test(entryId)) return undefined;
    const entries = await this.#redis.send([
      'XRANGE',
      this.#streamKey(sessionId, streamId),
      entryId,
      '+',
      'COUNT',
      String(this.#maxEventsCount + 1),
    ]);
    // The exact event must still be held: an unknown id, a trimmed one or another session's finds no first entry.
    if (!Array.isArray(entries) || entries.length === 0 || String(entries[0][0]) !== entryId) return undefined;
    const events: Replay['events'] = [];
    for (const [id, fields] of entries.slice(1) as [unknown, unknown[]][]) {
      const data = String(fields[1]);
      if (data !== '') events.push({ id: `${streamId}_${String(id)}`, data }); // a priming event carries no message
    }
    return { streamId, events };
  }

  async dropSession(sessionId: string): Promise<void> {
    await this.#redis.script(DROP_SESSION_EVENTS, this.#sessionKeys(sessionId), [this.#streamKey(sessionId, '')]);
  }
}

// The change bus: every change is published on `<prefix>changes` and every process subscribes to it. Pub/sub
// delivers at most once, so after a reconnect the bus delivers one list_changed of each kind: clients refetch the
// lists (over-delivery is harmless), and a resource update published while disconnected is lost.

/** What a reconnected process announces to its own clients: each list may have changed meanwhile. */
const RESYNC: readonly ChangeEvent[] = [{ type: 'tools' }, { type: 'prompts' }, { type: 'resources' }];

/** A message's event; one that is not JSON is handed on as its text, which the server refuses and logs. */
function parseEvent(message: string): ChangeEvent {
  try {
    return JSON.parse(message) as ChangeEvent;
  } catch {
    return message as unknown as ChangeEvent;
  }
}

class RedisChangeBus implements ChangeBus {
  readonly #redis: RedisCommands;

  constructor(redis: RedisCommands) {
    this.#redis = redis;
  }

  async publish(event: ChangeEvent): Promise<void> {
    await this.#redis.send(['PUBLISH', `${this.#redis.prefix}changes`, JSON.stringify(event)]);
  }

  subscribe(deliver: (event: ChangeEvent) => void): Promise<void> {
    return this.#redis.link.subscribe(
      `${this.#redis.prefix}changes`,
      (message) => deliver(parseEvent(message)),
      () => {
        for (const event of RESYNC) deliver(event);
      },
    );
  }
}
