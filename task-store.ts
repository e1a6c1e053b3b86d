// Where task records live (MCP 2025-11-25 Basic > Utilities > Tasks; the 2026-07-28 tasks extension): the TaskStore
// interface over plain JSON records (and the messages a shared store carries to the process running a task), the
// status transitions every store enforces, the bounded MemoryTaskStore. Runs no handler, owns no protocol method or
// wire shape (docs/tasks.md); the core never imports it; terminal records never change.

import { ErrorCode, type JsonRpcErrorObject, ProtocolError } from './jsonrpc.ts';
import { decodeCursor, encodeCursor } from './registry.ts';

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
  /** Records held at once, expired ones excluded (default 1000); a create past it rejects. */
  maxTasks?: number;
  /** The longest TTL in ms (default 3 600 000, one hour); longer requests are clamped to it, absent ones get it. */
  maxTtlMs?: number;
}

/** A positive integer option, at most `max`, or a RangeError naming it. */
function bound(name: string, value: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max}, got ${value}`);
  return value;
}

/**
 * The default TaskStore, in this process's memory and bounded: at most `maxTasks` records, none living past
 * `maxTtlMs`. Each record has its own expiry timer, unref'd (it never keeps a process alive) and cleared when the
 * record goes; `close()` clears them all. Records are copied in and out, so no caller shares a stored object.
 */
export class MemoryTaskStore implements TaskStore {
  readonly #maxTasks: number;
  readonly #maxTtlMs: number;
  readonly #entries = new Map<string, { record: TaskRecord; timer: ReturnType<typeof setTimeout> }>();
  #closed = false;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#maxTasks = bound('maxTasks', options.maxTasks ?? 1000, Number.MAX_SAFE_INTEGER);
    this.#maxTtlMs = bound('maxTtlMs', options.maxTtlMs ?? 3_600_000, MAX_TIMER_MS);
  }

  /** How many records the store holds. */
  get size(): number {
    return this.#entries.size;
  }

  /** See TaskStore.create; after `close()` it rejects. */
  async create(task: NewTask): Promise<TaskRecord> {
    if (this.#closed) throw new Error('the task store is closed');
    if (this.#entries.size >= this.#maxTasks)
      throw new ProtocolError(ErrorCode.InternalError, 'Task limit reached', { maxTasks: this.#maxTasks });
    if (this.#entries.has(task.taskId)) throw new Error(`task ${task.taskId} already exists`);
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
    this.#entries.set(task.taskId, { record, timer: this.#expiry(task.taskId, record.ttlMs) });
    return structuredClone(record);
  }

  /** The unref'd timer that removes the record `ms` from now. */
  #expiry(taskId: string, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.#entries.delete(taskId), ms);
    (timer as { unref?: () => void }).unref?.(); // node and Bun: a number elsewhere, which holds nothing
    return timer;
  }

  /** See TaskStore.get. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(taskId);
    return entry === undefined ? undefined : structuredClone(entry.record);
  }

  /** See TaskStore.update; `lastUpdatedAt` is now, or 1 ms past the previous value when the clock has not moved. */
  async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(taskId);
    if (entry === undefined || !canTransition(entry.record.status, change.status)) return undefined;
    const { taskId: id, createdAt, pollIntervalMs, owner } = entry.record;
    const { ttlMs: requestedTtl, ...variable } = change;
    const at = Math.max(Date.now(), Date.parse(entry.record.lastUpdatedAt) + 1);
    let ttlMs = entry.record.ttlMs;
    if (requestedTtl !== undefined) {
      ttlMs = Math.min(requestedTtl, this.#maxTtlMs);
      clearTimeout(entry.timer);
      entry.timer = this.#expiry(taskId, Math.max(Date.parse(createdAt) + ttlMs - Date.now(), 0));
    }
    entry.record = {
      taskId: id,
      ...structuredClone(variable),
      createdAt,
      lastUpdatedAt: new Date(at).toISOString(),
      ttlMs,
      pollIntervalMs,
      owner,
    };
    return structuredClone(entry.record);
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
    clearTimeout(entry.timer);
    return this.#entries.delete(taskId);
  }

  /** Clears every timer and record; later creates reject. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#entries.values()) clearTimeout(entry.timer);
    this.#entries.clear();
  }
}
