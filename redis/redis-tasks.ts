// Task records on Redis (createRedisEngine): a TaskStore a deployment's processes share, creates durable before they
// resolve, an owner lease per running task (a task whose process stopped reads `failed`, never `working` forever), and
// messages and ends that reach the process running a task, over redis-task-scripts.ts. Owns the `<prefix>task…` keys,
// each with a TTL; never runs a handler.

import { ErrorCode, isPlainObject, ProtocolError, randomBytes, toBase64Url } from '../jsonrpc.ts';
import { decodeCursor, encodeCursor } from '../registry.ts';
import {
  isTerminal,
  MAX_TIMER_MS,
  type NewTask,
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
} from '../tasks/task-store.ts';
import { positive, type RedisCommands } from './redis-link.ts';
import {
  CREATE_TASK,
  DELETE_TASK,
  DRAIN_TASK,
  GET_TASK,
  LIST_TASKS,
  LOST_BODY,
  RENEW_LEASES,
  SEND_TASK,
  UPDATE_TASK,
} from './redis-task-scripts.ts';

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
        LOST_BODY,
        String(this.#retentionMs),
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

  /**
   * See TaskStore.get; a live record whose process stopped (its lease lapsed) is stored `failed` and read so, a
   * finished record from then on (kept `taskRetentionMs` unless a TTL was asked for, evicted as any terminal one).
   */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const fields = await this.#redis.script(
      GET_TASK,
      [],
      [this.#redis.prefix, taskId, LOST_BODY, String(this.#retentionMs)],
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
        [this.#key('task', taskId), this.#key('task-lease', taskId)],
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
      [String(after), String(pageSize), this.#redis.prefix, LOST_BODY, String(this.#retentionMs)],
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
      [
        JSON.stringify(message),
        String(MAX_QUEUED),
        `${this.#redis.prefix}task-owner:`,
        taskId,
        LOST_BODY,
        this.#redis.prefix,
        String(this.#retentionMs),
      ],
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
          [this.#redis.prefix, this.#processId, String(this.#leaseMs), LOST_BODY, String(this.#retentionMs), ...batch],
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
