// Where task records live (MCP 2025-11-25 Basic > Utilities > Tasks; the 2026-07-28 tasks extension): the TaskStore
// interface over plain JSON records (and the messages a shared store carries to the process running a task), the
// status transitions every store enforces, the bounded MemoryTaskStore. Runs no handler, owns no protocol method or
// wire shape (docs/tasks.md); the core never imports it; terminal records never change.

import { ErrorCode, type JsonRpcErrorObject, ProtocolError } from '../jsonrpc.ts';
import { decodeCursor, encodeCursor } from '../registry.ts';

/** A task's status, the same five in both eras. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** One task as stored: plain JSON, so any store can hold it. */
export interface TaskRecord {
  /** Unguessable and header-safe: 128 random bits as base64url. */
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601, fixed at creation. */
  createdAt: string;
  /** ISO 8601, strictly later on every update. */
  lastUpdatedAt: string;
  /** How long the record lives from `createdAt`, in ms, after the store's cap. */
  ttlMs: number;
  /** The polling interval suggested to the client, in ms. */
  pollIntervalMs: number;
  /** The handler's result, when `completed`. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, when `failed`. */
  error?: JsonRpcErrorObject;
  /** The outstanding input requests by key, when `input_required`. */
  inputRequests?: Record<string, unknown>;
  /** The principal the task belongs to (the auth subject, else the session or connection). */
  owner: string;
}

/** What a creator gives the store; the store sets the status (`working`), the timestamps and the clamped TTL. */
export interface NewTask {
  taskId: string;
  owner: string;
  /** The requested TTL in ms, a positive integer; absent means the store's cap. */
  ttlMs?: number;
  pollIntervalMs: number;
}

/**
 * The variable part of a record an update replaces: a field absent here is absent afterwards; `ttlMs`, when given,
 * replaces the TTL (clamped by the store, still counted from `createdAt`) and is otherwise kept.
 */
export interface TaskChange {
  ttlMs?: number;
  status: TaskStatus;
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: JsonRpcErrorObject;
  inputRequests?: Record<string, unknown>;
}

/** One page of an owner's tasks, in creation order. */
export interface TaskPage {
  tasks: TaskRecord[];
  nextCursor: string | undefined;
}

/**
 * Where task records live. Every method is async so that a shared store (Redis, a database) can implement it; a
 * record crosses this interface only as plain JSON, never as a live object the caller may mutate.
 */
export interface TaskStore {
  /**
   * Stores a new `working` record and resolves with it once it is durably stored, so that an immediate `get` (from
   * any process sharing the store) finds it. Rejects `-32603` "Task limit reached" when the store is full.
   */
  create(task: NewTask): Promise<TaskRecord>;
  /** The record, or undefined when there is none (never created, expired or deleted). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * One transition: replaces the record's variable part with `change` and moves `lastUpdatedAt` strictly later,
   * atomically, unless `canTransition` forbids it (a terminal record never changes). Resolves with the new record,
   * or undefined when there is no such record or the transition was refused.
   */
  update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined>;
  /**
   * One page of `owner`'s records in creation order (the 2025-11-25 `tasks/list`), at most `pageSize`; `cursor` is
   * undefined or a `nextCursor` this store returned, anything else rejects `-32602`.
   */
  list(owner: string, cursor: unknown, pageSize: number): Promise<TaskPage>;
  /** Removes the record; resolves with whether there was one. */
  delete(taskId: string): Promise<boolean>;
  /** Releases what the store holds in this process (MemoryTaskStore: every record and timer). */
  close(): Promise<void>;
  /**
   * A shared store's way to the process that runs a task (a store kept in one process has none: the runner is
   * here). Hands `message` to that process's `receive` listeners; resolves once the store holds it for them (they
   * get it even when a notification is lost), or at once when no process runs the task. Rejects `-32603` when the
   * task's queue of undelivered messages is full.
   */
  send?(taskId: string, message: TaskMessage): Promise<void>;
  /**
   * Calls `listener` with what reaches the tasks this process runs: each message `send` handed over elsewhere, and
   * `ended` when the task's record became terminal or went away through another process. Returns its removal.
   */
  receive?(listener: (taskId: string, notice: TaskNotice) => void): () => void;
}

/** What a process hands to the one that runs a task (TaskStore.send). */
export type TaskMessage =
  /** Answers to outstanding input requests, by key (the 2026-07-28 `tasks/update`, a 2025 `tasks/result` stream). */
  | { type: 'responses'; responses: Record<string, unknown> }
  /** The client could not answer the input request under `key` (its JSON-RPC error). */
  | { type: 'refused'; key: string; error: JsonRpcErrorObject };

/** What reaches the process that runs a task (TaskStore.receive). */
export type TaskNotice = TaskMessage | { type: 'ended' };

/** The statuses each status may move to: a terminal status moves nowhere, a live one anywhere (itself included). */
export const TASK_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  working: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Whether a record in status `from` may be updated to status `to` (TASK_TRANSITIONS). */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/** Whether a status is terminal (TASK_TRANSITIONS: it moves nowhere). */
export function isTerminal(status: TaskStatus): boolean {
  return TASK_TRANSITIONS[status].length === 0;
}

/** The longest TTL a MemoryTaskStore accepts as its cap: the longest delay setTimeout keeps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The cursor letter of task pages (registry.ts cursors). */
const CURSOR_TAG = 'k';

/** MemoryTaskStore's bounds. */
export interface MemoryTaskStoreOptions {
  /** Records held at once, expired ones excluded (default 1000); past it a create first evicts a terminal record. */
  maxTasks?: number;
  /** Records one owner holds at once (default 100; the anonymous owner `''` is one owner). */
  maxTasksPerOwner?: number;
  /** Bytes of records held at once (RECORD_BYTES; default 32 MiB). */
  maxBytes?: number;
  /** Bytes of one owner's records (default 8 MiB); a record past what it leaves fails its task (recordTooLarge). */
  maxBytesPerOwner?: number;
  /** The longest TTL in ms (default 3 600 000, one hour); longer requests are clamped to it, absent ones get it. */
  maxTtlMs?: number;
  /**
   * How long a terminal record stays when no TTL was asked for (default 60 000 ms); one whose creator or handler
   * asked for a TTL keeps it.
   */
  retentionMs?: number;
}

/** MemoryTaskStoreOptions' defaults; the Redis engine's task options share the per-owner ones and the retention. */
export const TASK_BOUNDS = {
  maxTasksPerOwner: 100,
  maxBytes: 32 * 1024 * 1024,
  maxBytesPerOwner: 8 * 1024 * 1024,
  retentionMs: 60_000,
} as const;

/**
 * What a record weighs: its variable part's JSON text (TaskChange without `ttlMs`, measured once per write, as the
 * text a shared store keeps), plus its owner and this allowance for the fixed fields (id, times, numbers, names).
 */
export const RECORD_BYTES = 256;

/** The JSON text of a change's variable part (what a record holds beside its fixed fields). */
export function variableText(change: TaskChange): string {
  const { ttlMs: _ttl, status: _status, ...variable } = change;
  return JSON.stringify(variable);
}

/**
 * The `failed` change that replaces one whose record would pass `option` (`limit` bytes): -32603 saying what was too
 * large, with the bound in its data.
 */
export function recordTooLarge(change: TaskChange, option: string, limit: number): TaskChange {
  const what =
    change.result !== undefined
      ? 'result'
      : change.error !== undefined
        ? 'error'
        : change.inputRequests !== undefined
          ? 'input requests'
          : 'status message';
  const error = new ProtocolError(
    ErrorCode.InternalError,
    `Internal error: the task's ${what} exceeded ${limit} bytes of task records (${option})`,
    { [option]: limit },
  );
  return { status: 'failed', statusMessage: error.message, error: error.toJSON() };
}

/** The -32603 refusal of a create past `option`. */
export function taskLimit(option: string, limit: number): ProtocolError {
  return new ProtocolError(ErrorCode.InternalError, 'Task limit reached', { [option]: limit });
}

/** A positive integer option, at most `max`, or a RangeError naming it. */
function bound(name: string, value: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${value}`);
  return value;
}

/** One record of a MemoryTaskStore, with its expiry timer, its weight and whether a TTL was asked for. */
interface Entry {
  record: TaskRecord;
  timer: ReturnType<typeof setTimeout>;
  bytes: number;
  /** A TTL was asked for (at creation, or by the handler): a terminal record keeps it rather than the retention. */
  requested: boolean;
}

/** What one owner holds in a MemoryTaskStore. */
interface Usage {
  count: number;
  bytes: number;
}

/**
 * The default TaskStore, in this process's memory and bounded: in records and in bytes (RECORD_BYTES), store-wide
 * and per owner, none living past `maxTtlMs`, a terminal one only `retentionMs` unless a TTL was asked for. A create
 * or a write past a bound first evicts terminal records, oldest first (the owner's own first when its share is what
 * is full); then a create is refused `-32603` "Task limit reached", and a write fails its task (recordTooLarge).
 * Each record has its own expiry timer, unref'd (it never keeps a process alive) and cleared when the record goes;
 * `close()` clears them all. Records are copied in and out, so no caller shares a stored object.
 */
export class MemoryTaskStore implements TaskStore {
  readonly #maxTasks: number;
  readonly #maxTasksPerOwner: number;
  readonly #maxBytes: number;
  readonly #maxBytesPerOwner: number;
  readonly #maxTtlMs: number;
  readonly #retentionMs: number;
  readonly #entries = new Map<string, Entry>();
  readonly #owners = new Map<string, Usage>();
  #bytes = 0;
  #closed = false;

  constructor(options: MemoryTaskStoreOptions = {}) {
    const max = Number.MAX_SAFE_INTEGER;
    this.#maxTasks = bound('maxTasks', options.maxTasks ?? 1000, max);
    this.#maxTasksPerOwner = bound('maxTasksPerOwner', options.maxTasksPerOwner ?? TASK_BOUNDS.maxTasksPerOwner, max);
    this.#maxBytes = bound('maxBytes', options.maxBytes ?? TASK_BOUNDS.maxBytes, max);
    this.#maxBytesPerOwner = bound('maxBytesPerOwner', options.maxBytesPerOwner ?? TASK_BOUNDS.maxBytesPerOwner, max);
    this.#maxTtlMs = bound('maxTtlMs', options.maxTtlMs ?? 3_600_000, MAX_TIMER_MS);
    this.#retentionMs = bound('retentionMs', options.retentionMs ?? TASK_BOUNDS.retentionMs, MAX_TIMER_MS);
  }

  /** How many records the store holds. */
  get size(): number {
    return this.#entries.size;
  }

  /** How many bytes of records the store holds (RECORD_BYTES). */
  get bytes(): number {
    return this.#bytes;
  }

  /** See TaskStore.create; after `close()` it rejects. */
  async create(task: NewTask): Promise<TaskRecord> {
    if (this.#closed) throw new Error('the task store is closed');
    if (this.#entries.has(task.taskId)) throw new Error(`task ${task.taskId} already exists`);
    const bytes = RECORD_BYTES + task.owner.length + 2; // the variable part is `{}`
    const full = this.#makeRoom(task.owner, 1, bytes, bytes);
    if (full !== undefined) throw taskLimit(full, this.#limit(full));
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: task.taskId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: Math.min(task.ttlMs ?? this.#maxTtlMs, this.#maxTtlMs),
      pollIntervalMs: task.pollIntervalMs,
      owner: task.owner,
    };
    const timer = this.#expiry(task.taskId, record.ttlMs);
    this.#entries.set(task.taskId, { record, timer, bytes, requested: task.ttlMs !== undefined });
    this.#account(task.owner, 1, bytes);
    return structuredClone(record);
  }

  /** The unref'd timer that removes the record `ms` from now. */
  #expiry(taskId: string, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.#remove(taskId, this.#entries.get(taskId)!), ms);
    (timer as { unref?: () => void }).unref?.(); // node and Bun: a number elsewhere, which holds nothing
    return timer;
  }

  /** See TaskStore.get. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(taskId);
    return entry === undefined ? undefined : structuredClone(entry.record);
  }

  /**
   * See TaskStore.update; `lastUpdatedAt` is now, or 1 ms past the previous value when the clock has not moved. A
   * change whose record would pass a byte bound, even once terminal records are evicted, is stored as the task's
   * failure instead (recordTooLarge). A record that becomes terminal without a requested TTL lives `retentionMs` more.
   */
  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(taskId);
    if (entry === undefined || !canTransition(entry.record.status, change.status)) return undefined;
    const { taskId: id, createdAt, pollIntervalMs, owner } = entry.record;
    let text = variableText(change);
    let bytes = RECORD_BYTES + owner.length + text.length;
    const full = this.#makeRoom(owner, 0, bytes - entry.bytes, bytes); // the record itself is live: never evicted
    if (full !== undefined) {
      change = { ...recordTooLarge(change, full, this.#limit(full)), ttlMs: change.ttlMs };
      text = variableText(change);
      bytes = RECORD_BYTES + owner.length + text.length;
    }
    const { ttlMs: requestedTtl, status } = change;
    const at = Math.max(Date.now(), Date.parse(entry.record.lastUpdatedAt) + 1);
    const created = Date.parse(createdAt);
    let ttlMs = entry.record.ttlMs;
    if (requestedTtl !== undefined) {
      ttlMs = Math.min(requestedTtl, this.#maxTtlMs);
      entry.requested = true;
    }
    if (isTerminal(status) && !entry.requested) ttlMs = Math.min(ttlMs, at - created + this.#retentionMs);
    if (ttlMs !== entry.record.ttlMs) {
      clearTimeout(entry.timer);
      entry.timer = this.#expiry(taskId, Math.max(created + ttlMs - Date.now(), 0));
    }
    this.#account(owner, 0, bytes - entry.bytes);
    entry.bytes = bytes;
    entry.record = {
      taskId: id,
      status,
      ...(JSON.parse(text) as Partial<TaskRecord>), // the copy kept: the text just measured
      createdAt,
      lastUpdatedAt: new Date(at).toISOString(),
      ttlMs,
      pollIntervalMs,
      owner,
    };
    return structuredClone(entry.record);
  }

  /** The value of a bound by its option's name. */
  #limit(option: string): number {
    if (option === 'maxTasks') return this.#maxTasks;
    if (option === 'maxTasksPerOwner') return this.#maxTasksPerOwner;
    return option === 'maxBytes' ? this.#maxBytes : this.#maxBytesPerOwner;
  }

  /** The first bound `count` more records and `bytes` more bytes of `owner` would pass, or undefined. */
  #over(owner: string, count: number, bytes: number): string | undefined {
    const usage = this.#owners.get(owner) ?? { count: 0, bytes: 0 };
    if (usage.count + count > this.#maxTasksPerOwner) return 'maxTasksPerOwner';
    if (usage.bytes + bytes > this.#maxBytesPerOwner) return 'maxBytesPerOwner';
    if (this.#entries.size + count > this.#maxTasks) return 'maxTasks';
    return this.#bytes + bytes > this.#maxBytes ? 'maxBytes' : undefined;
  }

  /**
   * Evicts terminal records until `count` more records and `bytes` more bytes of `owner` pass no bound: oldest first,
   * the owner's own while its share is what is full. Returns the bound still passed, or undefined. A record whose
   * whole weight (`size`) is larger than a bound by itself evicts nothing: no eviction could make it fit.
   */
  #makeRoom(owner: string, count: number, bytes: number, size: number): string | undefined {
    let full = this.#over(owner, count, bytes);
    if (full === undefined || size > this.#maxBytesPerOwner || size > this.#maxBytes) return full;
    // Two passes: the first may skip others' records while the owner's share is full, which the second reaches.
    for (let pass = 0; pass < 2 && full !== undefined; pass++)
      for (const [taskId, entry] of this.#entries) {
        const own = entry.record.owner === owner;
        if (!isTerminal(entry.record.status) || (full.endsWith('PerOwner') && !own)) continue;
        this.#remove(taskId, entry);
        full = this.#over(owner, count, bytes);
        if (full === undefined) break;
      }
    return full;
  }

  /** Adds to an owner's usage and the store's bytes; an owner holding nothing is forgotten. */
  #account(owner: string, count: number, bytes: number): void {
    let usage = this.#owners.get(owner);
    if (usage === undefined) this.#owners.set(owner, (usage = { count: 0, bytes: 0 }));
    usage.count += count;
    usage.bytes += bytes;
    this.#bytes += bytes;
    if (usage.count === 0) this.#owners.delete(owner);
  }

  /** Removes a record (expiry, delete, eviction): its timer cleared, its weight given back. */
  #remove(taskId: string, entry: Entry): void {
    clearTimeout(entry.timer);
    this.#entries.delete(taskId);
    this.#account(entry.record.owner, -1, -entry.bytes);
  }

  /**
   * See TaskStore.list: an offset cursor over the owner's records, so a record that expires between two pages shifts
   * the later ones by one (a record may be skipped, never repeated).
   */
  async list(owner: string, cursor: unknown, pageSize: number): Promise<TaskPage> {
    const owned = [...this.#entries.values()].filter((entry) => entry.record.owner === owner);
    // Bounded by the cap, not by today's count: a cursor issued before records expired stays valid.
    const start = decodeCursor(cursor, this.#maxTasks, CURSOR_TAG);
    const end = Math.min(start + pageSize, owned.length);
    return {
      tasks: owned.slice(start, end).map((entry) => structuredClone(entry.record)),
      nextCursor: end < owned.length ? encodeCursor(end, CURSOR_TAG) : undefined,
    };
  }

  /** See TaskStore.delete; the record's timer is cleared. */
  async delete(taskId: string): Promise<boolean> {
    const entry = this.#entries.get(taskId);
    if (entry === undefined) return false;
    this.#remove(taskId, entry);
    return true;
  }

  /** Clears every timer and record; later creates reject. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#entries.values()) clearTimeout(entry.timer);
    this.#entries.clear();
    this.#owners.clear();
    this.#bytes = 0;
  }
}
