// Tasks (MCP 2025-11-25, Basic > Utilities > Tasks; the 2026-07-28 extension io.modelcontextprotocol/tasks): the
// TaskRunner, which runs a task's handler in-process under an AbortController through the task state machine and
// writes every transition through a TaskStore (task-store.ts). Owns no protocol method and no wire shape
// (docs/tasks.md); the core never imports it; it never writes a terminal record twice.

import { ErrorCode, INTERNAL_ERROR, ProtocolError, randomBytes, toBase64Url } from '../jsonrpc.ts';
import type { Logger } from '../types.ts';
import { isTerminal, MAX_TIMER_MS, type TaskChange, type TaskRecord, type TaskStore } from './task-store.ts';

/** What a task's handler sees. */
export interface TaskContext {
  readonly taskId: string;
  /** Aborted when the task is cancelled, expires, or its runner closes. */
  readonly signal: AbortSignal;
  /** Sets the task's status message (a same-status transition; `lastUpdatedAt` moves). */
  setStatusMessage(message: string): Promise<void>;
  /** Sets how long the record lives from its creation (TaskChange.ttlMs); the task's deadline here moves with it. */
  setTtl(ttlMs: number): Promise<void>;
  /**
   * Asks the client for input: the task shows `input_required` with `request` outstanding under a key minted here
   * (unique for the task's life), beside any other outstanding ones, until `TaskRunner.respond` answers that key (or
   * `TaskRunner.refuse` fails it); then resolves with the answer, as given there (the caller validates it). Rejects
   * once the signal aborts.
   */
  input(request: Record<string, unknown>): Promise<unknown>;
}

/** A task's work: resolves with the result (a tool's `CallToolResult`, `isError` or not) or throws. */
export type TaskHandler = (ctx: TaskContext) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** How TaskRunner.prepare and start create a task. */
export interface TaskStartOptions {
  /** The principal the task belongs to. */
  owner: string;
  /** The requested TTL in ms, a positive integer (the store may clamp it); absent means the store's cap. */
  ttlMs?: number;
  /**
   * Hears this task's stored transitions (as `onStatus` listeners do), until the task's record is terminal or the
   * task has left this runner and its writes are done (expiry, close).
   */
  onStatus?: (record: TaskRecord) => void;
}

/** A task whose handler may start before its record exists (TaskRunner.prepare): committed or discarded, once. */
export interface PreparedTask {
  readonly context: TaskContext;
  /**
   * Creates the record (resolving once the store holds it durably), then follows `work()` to its outcome in the
   * background; the transitions the handler made meanwhile are written after the creation, in order. Rejects as the
   * store's create does (the task is then released: its handler aborted), and without creating anything when the
   * task already ended (the runner closed, or it was cancelled). A task cancelled or closed while the create was
   * pending is recorded `cancelled` once created, and `work` is never called.
   */
  commit(work: () => Promise<Record<string, unknown>>): Promise<TaskRecord>;
  /** Drops the task before its record exists: its handler is aborted, its inputs rejected, nothing is written. */
  discard(): void;
}

/** The polling interval every task suggests, in ms. */
export const POLL_INTERVAL_MS = 1000;

/** One task this runner is running. */
interface Running {
  readonly controller: AbortController;
  /** Armed once the record exists, for its TTL (TaskRecord.ttlMs). */
  deadline: ReturnType<typeof setTimeout> | undefined;
  /** Always a live status: a task leaves the runner as it reaches a terminal one. */
  status: 'working' | 'input_required';
  statusMessage: string | undefined;
  /** Outstanding input requests by key, with the handler's waiting promise. */
  readonly inputs: Map<
    string,
    { request: Record<string, unknown>; resolve: (answer: unknown) => void; reject: (reason: unknown) => void }
  >;
  /** How many input keys were minted: `input-<n>`, never reused within the task. */
  keys: number;
  /** Until the record exists: lets the writes queued behind its creation go (with the record, or none). */
  created: ((record: TaskRecord | undefined) => void) | undefined;
  /** Set once commit() asked the store to create the record. */
  committing: boolean;
  readonly owner: string;
}

/** The change `close()` writes for a task it cut short. */
const SHUT_DOWN: TaskChange = { status: 'cancelled', statusMessage: 'The server shut down' };
/** What a task whose handler failed unexpectedly, or whose outcome the store could not hold, is recorded as. */
const INTERNAL_FAILURE: TaskChange = { status: 'failed', statusMessage: INTERNAL_ERROR.message, error: INTERNAL_ERROR };
/** What a task refused because its runner closed answers (a wire error, not a handler failure to log). */
const SHUTTING_DOWN = new ProtocolError(ErrorCode.InternalError, 'Internal error: the server is shutting down');
/** What the commit of a task cancelled before its record existed answers. */
const CANCELLED_BEFORE_CREATED = new ProtocolError(
  ErrorCode.InternalError,
  'Internal error: the task was cancelled before it was created',
);

/**
 * Runs task handlers in this process, each under its own AbortController, and writes every transition through the
 * TaskStore in order (one write chain per task). The state machine: a task is prepared (its handler may start, its
 * record does not exist yet), then committed (the record is created `working`) or discarded (never stored); it
 * moves between `working` and `input_required` while the handler asks for input and is answered; it ends
 * `completed`, `failed` or `cancelled`, and a terminal record never changes (the store refuses it). A handler's
 * outcome maps as:
 *
 * | outcome | record |
 * |---|---|
 * | resolves with a result (a tool result with `isError: true` included) | `completed` with `result` |
 * | throws a ProtocolError | `failed` with that error as `error`, its message as `statusMessage` |
 * | throws anything else | `failed` with `-32603` "Internal error"; the detail goes to the logger only |
 * | is cancelled before it settles | `cancelled`; the handler is aborted and its late outcome dropped |
 * | outlives the record's TTL | the record expires; the handler is aborted, nothing more is written |
 *
 * `isError: true` is `completed` as the 2026-07-28 extension has it; the 2025-11-25 wiring reports such a record as
 * `failed` on its wire (docs/tasks.md). Listeners see every stored transition. Every timer, controller, pending
 * input and per-task listener is released when its task leaves this runner (outcome, cancel, expiry, discard,
 * `close()`).
 */
export class TaskRunner {
  readonly #store: TaskStore;
  readonly #logger: Logger;
  readonly #running = new Map<string, Running>();
  /** How many of the running tasks each owner has (runsFor). */
  readonly #owners = new Map<string, number>();
  /** The tail of each task's write chain, removed when the chain drains. */
  readonly #writes = new Map<string, Promise<TaskRecord | undefined>>();
  readonly #listeners = new Set<(record: TaskRecord) => void>();
  /** Per-task listeners (TaskStartOptions.onStatus). */
  readonly #watchers = new Map<string, (record: TaskRecord) => void>();
  #closed = false;

  constructor(store: TaskStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** How many handlers this runner is running (prepared ones included; cancelled, expired or finished excluded). */
  get active(): number {
    return this.#running.size;
  }

  /** Whether this runner runs a task of `owner` (prepared, committed, not yet ended). */
  runsFor(owner: string): boolean {
    return this.#owners.has(owner);
  }

  /**
   * Mints the task's id and its context, so that a handler can start before the record exists (see PreparedTask).
   * Throws when the runner is closed; a `ttlMs` that is not a positive integer throws a RangeError (the wiring
   * answers the wire's own field first).
   */
  prepare(options: TaskStartOptions): PreparedTask {
    if (this.#closed) throw SHUTTING_DOWN;
    if (options.ttlMs !== undefined && (!Number.isSafeInteger(options.ttlMs) || options.ttlMs < 1))
      throw new RangeError(`ttlMs must be a positive integer, got ${options.ttlMs}`);
    const taskId = toBase64Url(randomBytes(16));
    let created!: (record: TaskRecord | undefined) => void;
    const creation = new Promise<TaskRecord | undefined>((resolve) => (created = resolve));
    const entry: Running = {
      controller: new AbortController(),
      deadline: undefined,
      status: 'working',
      statusMessage: undefined,
      inputs: new Map(),
      keys: 0,
      created,
      committing: false,
      owner: options.owner,
    };
    this.#running.set(taskId, entry);
    this.#owners.set(options.owner, (this.#owners.get(options.owner) ?? 0) + 1);
    this.#writes.set(taskId, creation); // the head of the task's write chain
    if (options.onStatus !== undefined) this.#watchers.set(taskId, options.onStatus);
    let settled = false;
    return {
      context: this.#context(taskId, entry),
      commit: async (work) => {
        if (settled) throw new Error(`task ${taskId} was already committed or discarded`);
        settled = true;
        if (this.#running.get(taskId) !== entry) {
          this.#open(taskId, entry, undefined);
          throw this.#closed ? SHUTTING_DOWN : CANCELLED_BEFORE_CREATED;
        }
        entry.committing = true;
        let record: TaskRecord;
        try {
          record = await this.#store.create({
            taskId,
            owner: options.owner,
            ttlMs: options.ttlMs,
            pollIntervalMs: POLL_INTERVAL_MS,
          });
        } catch (error) {
          this.#release(taskId);
          this.#open(taskId, entry, undefined);
          throw error;
        }
        this.#open(taskId, entry, record);
        if (this.#running.get(taskId) !== entry)
          return (await this.#write(taskId, SHUT_DOWN)) ?? (await this.#store.get(taskId)) ?? record;
        this.#arm(taskId, entry, record.ttlMs);
        void this.#follow(taskId, entry, work);
        return record;
      },
      discard: () => {
        if (settled) return;
        settled = true;
        this.#release(taskId);
        this.#open(taskId, entry, undefined);
      },
    };
  }

  /**
   * Creates the task (resolving once the store holds it durably), then runs `handler` in the background; rejects
   * as the store's create does, or when the runner is closed (PreparedTask.commit).
   */
  start(handler: TaskHandler, options: TaskStartOptions): Promise<TaskRecord> {
    let task: PreparedTask;
    try {
      task = this.prepare(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return task.commit(async () => handler(task.context));
  }

  /**
   * Cancels the task: aborts its handler if this runner runs it, and records `cancelled` unless the record is
   * already terminal. Resolves, after that write, with the record as it then is (`cancelled`, or the terminal status
   * it already had), or undefined for an unknown task.
   */
  async cancel(taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.#running.get(taskId);
    if (entry?.created !== undefined && !entry.committing) {
      // Prepared, never committed: there is no record to write; its commit will create nothing.
      this.#release(taskId);
      this.#open(taskId, entry, undefined);
      return undefined;
    }
    // Queued before the release, so that the task's own listener (TaskStartOptions.onStatus) still hears it.
    const written = this.#write(taskId, { status: 'cancelled' });
    this.#release(taskId);
    return (await written) ?? this.#store.get(taskId);
  }

  /**
   * Answers outstanding input requests of a task this runner runs: each key of `responses` that is outstanding is
   * taken and its value handed to the waiting handler; other keys are ignored without being looked at. The task
   * returns to `working` when none is left outstanding. Resolves once that transition is stored.
   */
  async respond(taskId: string, responses: Record<string, unknown>): Promise<void> {
    const entry = this.#running.get(taskId);
    if (entry === undefined) return;
    const answered = Object.keys(responses).filter((key) => entry.inputs.has(key));
    if (answered.length === 0) return;
    for (const key of answered) {
      const input = entry.inputs.get(key)!;
      entry.inputs.delete(key);
      input.resolve(responses[key]); // the handler resumes on a later turn, behind the write queued below
    }
    await this.#transition(taskId, entry, entry.inputs.size > 0 ? 'input_required' : 'working');
  }

  /**
   * Fails one outstanding input request of a task this runner runs (the client could not answer it): the handler's
   * `input()` rejects with `reason`. An unknown key is ignored. Resolves once the transition is stored.
   */
  async refuse(taskId: string, key: string, reason: unknown): Promise<void> {
    const entry = this.#running.get(taskId);
    const input = entry?.inputs.get(key);
    if (entry === undefined || input === undefined) return;
    entry.inputs.delete(key);
    input.reject(reason);
    await this.#transition(taskId, entry, entry.inputs.size > 0 ? 'input_required' : 'working');
  }

  /** Cancels every task of `owner` this runner runs (as `cancel` does); resolves once each is stored. */
  async cancelOwned(owner: string): Promise<void> {
    const owned = [...this.#running].filter(([, entry]) => entry.owner === owner).map(([taskId]) => taskId);
    const settled = await Promise.allSettled(owned.map((taskId) => this.cancel(taskId)));
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason; // every cancel was tried; the first failure is reported
  }

  /** Whether this runner runs the task (prepared, committed, not yet ended). */
  runs(taskId: string): boolean {
    return this.#running.has(taskId);
  }

  /**
   * The task's record became terminal, or went away, through another process (TaskStore.receive): the handler this
   * runner runs for it is aborted and its late outcome dropped, and the task's own listener
   * (TaskStartOptions.onStatus) hears the terminal record. Writes nothing; a task whose record does not exist yet is
   * left alone (its creation is still to come).
   */
  ended(taskId: string, record: TaskRecord | undefined): void {
    const entry = this.#running.get(taskId);
    if (entry === undefined || entry.created !== undefined) return;
    const watcher = this.#watchers.get(taskId);
    this.#release(taskId);
    if (watcher === undefined || record === undefined || !isTerminal(record.status)) return;
    this.#watchers.delete(taskId);
    this.#tell(watcher, record);
  }

  /** The outstanding input requests of a task this runner runs, by key (empty for any other task). */
  outstanding(taskId: string): ReadonlySet<string> {
    return new Set(this.#running.get(taskId)?.inputs.keys());
  }

  /** Calls `listener` with each stored transition (never with the creation); returns its removal. */
  onStatus(listener: (record: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Aborts every running handler and records each of those tasks `cancelled` (prepared ones are dropped), drops the
   * listeners, and resolves once every write has settled. The store stays open: its owner closes it.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#running];
    // Queued before the releases, so that each task's own listener (TaskStartOptions.onStatus) still hears it.
    for (const [taskId, entry] of entries) if (entry.created === undefined) void this.#write(taskId, SHUT_DOWN);
    for (const [taskId] of entries) this.#release(taskId);
    // Prepared and never committed: nothing will be created. A create in flight is waited for below, and its commit
    // records the task cancelled.
    for (const [taskId, entry] of entries)
      if (entry.created !== undefined && !entry.committing) this.#open(taskId, entry, undefined);
    // Until no write is left: a commit whose create resolves meanwhile queues the task's cancellation.
    while (this.#writes.size > 0) await Promise.all(this.#writes.values());
    this.#listeners.clear();
    this.#watchers.clear();
  }

  /** The context a task's handler gets. */
  #context(taskId: string, entry: Running): TaskContext {
    return {
      taskId,
      signal: entry.controller.signal,
      setStatusMessage: async (message) => {
        if (this.#running.get(taskId) !== entry) return;
        entry.statusMessage = message;
        await this.#transition(taskId, entry, entry.status);
      },
      setTtl: async (ttlMs) => {
        if (!Number.isSafeInteger(ttlMs) || ttlMs < 1)
          throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
        if (this.#running.get(taskId) !== entry) return;
        const record = await this.#transition(taskId, entry, entry.status, ttlMs);
        if (record !== undefined && this.#running.get(taskId) === entry) {
          const left = Date.parse(record.createdAt) + record.ttlMs - Date.now();
          this.#arm(taskId, entry, Math.max(left, 0));
        }
      },
      input: (request) => {
        if (this.#running.get(taskId) !== entry) return Promise.reject(entry.controller.signal.reason);
        const key = `input-${++entry.keys}`;
        const answer = new Promise<unknown>((resolve, reject) => entry.inputs.set(key, { request, resolve, reject }));
        void this.#transition(taskId, entry, 'input_required');
        return answer;
      },
    };
  }

  /** The record exists (or never will): the writes queued behind its creation go. */
  #open(taskId: string, entry: Running, record: TaskRecord | undefined): void {
    entry.created?.(record);
    entry.created = undefined;
    const head = this.#writes.get(taskId);
    // Nothing queued behind the creation: the chain is empty again.
    void head?.then(() => {
      if (this.#writes.get(taskId) === head) this.#drained(taskId);
    });
  }

  /** (Re)arms the task's deadline: `ms` from now it leaves this runner (the store expires the record itself). */
  #arm(taskId: string, entry: Running, ms: number): void {
    clearTimeout(entry.deadline);
    // A store may grant more than setTimeout keeps (it would fire at once).
    entry.deadline = setTimeout(() => this.#release(taskId), Math.min(ms, MAX_TIMER_MS));
    (entry.deadline as { unref?: () => void }).unref?.();
  }

  /** Follows the handler's work and writes its outcome, unless the task left this runner first. */
  async #follow(taskId: string, entry: Running, work: () => Promise<Record<string, unknown>>): Promise<void> {
    let change: TaskChange;
    try {
      change = { status: 'completed', result: await work() };
    } catch (error) {
      change = this.#failure(taskId, entry, error);
    }
    if (this.#running.get(taskId) !== entry) return; // cancelled, expired or closed: the outcome is dropped
    // Queued before the release, so that the task's own listener (TaskStartOptions.onStatus) still hears the outcome.
    const written = this.#write(taskId, change);
    this.#release(taskId);
    await written;
  }

  /** The `failed` change a thrown value makes (the table in the class comment). */
  #failure(taskId: string, entry: Running, error: unknown): TaskChange {
    if (error instanceof ProtocolError)
      return { status: 'failed', statusMessage: error.message, error: error.toJSON() };
    if (this.#running.get(taskId) === entry) this.#logger.error(`task ${taskId} failed`, error);
    return INTERNAL_FAILURE;
  }

  /** Moves a running task to `status`, carrying its status message and outstanding input requests (and a new TTL). */
  #transition(
    taskId: string,
    entry: Running,
    status: 'working' | 'input_required',
    ttlMs?: number,
  ): Promise<TaskRecord | undefined> {
    entry.status = status;
    const change: TaskChange = { status };
    if (ttlMs !== undefined) change.ttlMs = ttlMs;
    if (entry.statusMessage !== undefined) change.statusMessage = entry.statusMessage;
    if (status === 'input_required')
      change.inputRequests = Object.fromEntries([...entry.inputs].map(([key, input]) => [key, input.request]));
    return this.#write(taskId, change);
  }

  /**
   * Queues `change` on the task's write chain. A stored transition goes to the listeners; a refused one (the record
   * is gone or terminal, e.g. cancelled from elsewhere), a failed write, or a terminal record (the store may store a
   * change as the task's failure) ends the task here. A write the store could not take (a result JSON cannot carry, a
   * store outage) is followed by one of the task's failure, so that the record never stays live with no runner.
   */
  #write(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    const previous = this.#writes.get(taskId) ?? Promise.resolve(undefined);
    const next = previous.then(async () => {
      let record: TaskRecord | undefined;
      try {
        record = await this.#store.update(taskId, change);
      } catch (error) {
        this.#logger.error(`task ${taskId}: the store refused a write`, error);
        if (change.status !== 'cancelled' && change !== INTERNAL_FAILURE)
          record = await this.#store.update(taskId, INTERNAL_FAILURE).catch(() => undefined);
      }
      // A live change the store stored as a failure (its record would pass a bound) ends the task here too.
      if (record === undefined || isTerminal(record.status)) this.#release(taskId);
      if (record !== undefined) this.#emit(record);
      if (this.#writes.get(taskId) === next) this.#drained(taskId);
      return record;
    });
    this.#writes.set(taskId, next);
    return next;
  }

  /** The task's write chain is empty: its per-task listener goes too once the task has left this runner. */
  #drained(taskId: string): void {
    this.#writes.delete(taskId);
    if (!this.#running.has(taskId)) this.#watchers.delete(taskId);
  }

  /** Tells every listener of a stored transition; a throwing listener is logged and the others still called. */
  #emit(record: TaskRecord): void {
    const watcher = this.#watchers.get(record.taskId);
    if (watcher !== undefined && isTerminal(record.status)) this.#watchers.delete(record.taskId);
    for (const listener of watcher === undefined ? this.#listeners : [watcher, ...this.#listeners])
      this.#tell(listener, record);
  }

  /** Calls one listener with a record; one that throws is logged. */
  #tell(listener: (record: TaskRecord) => void, record: TaskRecord): void {
    try {
      listener(record);
    } catch (error) {
      this.#logger.error(`a task status listener failed for task ${record.taskId}`, error);
    }
  }

  /** Takes the task out of this runner: its deadline cleared, its handler aborted, its pending inputs rejected. */
  #release(taskId: string): void {
    const entry = this.#running.get(taskId);
    if (entry === undefined) return;
    this.#running.delete(taskId);
    const owned = this.#owners.get(entry.owner)! - 1;
    if (owned === 0) this.#owners.delete(entry.owner);
    else this.#owners.set(entry.owner, owned);
    if (!this.#writes.has(taskId)) this.#watchers.delete(taskId);
    clearTimeout(entry.deadline);
    entry.controller.abort();
    for (const input of entry.inputs.values()) input.reject(entry.controller.signal.reason);
    entry.inputs.clear();
  }
}
