// The tasks extension (`mcp-core/tasks`): tasks on the wire of both eras, over the TaskStore and TaskRunner of
// tasks.ts — the 2026-07-28 extension io.modelcontextprotocol/tasks (Extensions > Tasks) and the 2025-11-25 utility
// (Basic > Utilities > Tasks): which tool calls become tasks, the methods, the wire shapes, owners and notifications.
// An add-on the core never imports; every task is bound to its caller, and another caller's task is unknown.

import { OutboundRequestError, type ToolSchema } from '../core.ts';
import { since, toolFailureResult } from '../features.ts';
import {
  type InputRequest,
  InputRequired,
  MAX_INPUT_ROUNDS,
  readInputResponses,
  requiredCapabilities,
  urlElicitationAsInput,
} from '../input.ts';
import {
  describeValue,
  ErrorCode,
  invalidParams,
  isPlainObject,
  type JsonRpcErrorObject,
  ProtocolError,
} from '../jsonrpc.ts';
import { declaresExtension, missingCapability, missingExtension } from '../modern.ts';
import type {
  DetachedContext,
  Extension,
  ExtensionContext,
  ExtensionHost,
  ExtensionMethod,
  ToolCall,
  ToolDefinition,
} from '../types.ts';
import {
  isTerminal,
  MemoryTaskStore,
  type TaskMessage,
  type TaskNotice,
  type TaskRecord,
  type TaskStore,
} from './task-store.ts';
import { type TaskContext, TaskRunner } from './tasks.ts';

export {
  canTransition,
  isTerminal,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type NewTask,
  type TaskChange,
  type TaskMessage,
  type TaskNotice,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from './task-store.ts';
export { type PreparedTask, type TaskContext, type TaskHandler, TaskRunner, type TaskStartOptions } from './tasks.ts';

// The field this extension reads on a tool, declared here rather than in the core (which names no extension): any
// program that imports this module sees it on ToolDefinition.
declare module '../types.ts' {
  interface ToolDefinition<In extends ToolSchema = ToolSchema, Out extends ToolSchema = ToolSchema> {
    /**
     * Whether the tool may run as a task (docs/tasks.md) once the tasks extension is installed: 'optional' runs it as
     * a task when the client can take one, 'required' only as a task (a call that cannot be one is refused). Absent:
     * never a task. Checked at registration, update and `use()` (TasksExtension.checkTool).
     */
    taskSupport?: 'optional' | 'required';
  }
}

/** The extension's identifier (2026-07-28 Extensions > Tasks). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The 2025-11-25 `_meta` key that ties a message to its task. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The first (and only) 2025 version with tasks. */
const LEGACY_TASKS_SINCE = '2025-11-25';

type Shaped = Record<string, unknown>;

/** Options of createTasksExtension(). */
export interface TasksExtensionOptions {
  /**
   * Where task records live (default: a MemoryTaskStore with its default bounds, closed with the extension). A store
   * given here is the caller's to close.
   */
  store?: TaskStore;
}

/** Creates the tasks extension; install it with `server.use()` and close it with `server.close()`. */
export function createTasksExtension(options: TasksExtensionOptions = {}): TasksExtension {
  return new TasksExtension(options);
}

/**
 * A task on the wire of `era` (no `owner`, ever): 2026-07-28 names its durations `ttlMs` and `pollIntervalMs`;
 * 2025-11-25 names them `ttl` and `pollInterval` and reports a tool result with `isError: true` as `failed`.
 */
function wireTask(record: TaskRecord, era: 'legacy' | 'modern'): Shaped {
  const legacy = era === 'legacy';
  const task: Shaped = { taskId: record.taskId, status: legacy ? legacyStatus(record) : record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = record.createdAt;
  task.lastUpdatedAt = record.lastUpdatedAt;
  task[legacy ? 'ttl' : 'ttlMs'] = record.ttlMs;
  task[legacy ? 'pollInterval' : 'pollIntervalMs'] = record.pollIntervalMs;
  return task;
}

/** The task fields both creation and `tasks/get` carry on 2026-07-28. */
function modernTask(record: TaskRecord): Shaped {
  return wireTask(record, 'modern');
}

/** `tasks/get` and `notifications/tasks` on 2026-07-28: the task, with its result, error or input requests inlined. */
function detailedTask(record: TaskRecord): Shaped {
  const task = modernTask(record);
  if (record.status === 'completed' && record.result !== undefined) task.result = record.result;
  if (record.status === 'failed' && record.error !== undefined) task.error = record.error;
  if (record.status === 'input_required' && record.inputRequests !== undefined)
    task.inputRequests = record.inputRequests;
  return task;
}

/** A record's status on the 2025-11-25 wire, where a tool result with `isError: true` is `failed`. */
function legacyStatus(record: TaskRecord): TaskRecord['status'] {
  return record.status === 'completed' && record.result?.isError === true ? 'failed' : record.status;
}

/** A task on the 2025-11-25 wire. */
function legacyTask(record: TaskRecord): Shaped {
  return wireTask(record, 'legacy');
}

/** `params.taskId`, a string, or -32602 naming it. */
function readTaskId(params: Shaped): string {
  if (typeof params.taskId !== 'string') throw invalidParams('params.taskId must be a string');
  return params.taskId;
}

/** The -32602 answer for a task that does not exist, expired, or is another caller's: the same for all three. */
function unknownTask(taskId: string): ProtocolError {
  return invalidParams(
    `params.taskId: no task ${describeValue(taskId)} (never created, expired, or not this caller's)`,
  );
}

/**
 * Starts `run` and tells what its promise settled with if it settled before the event loop's next turn (a handler
 * that did not wait on I/O or a timer); undefined otherwise. The turn's timer is armed before `run` starts, so a
 * handler's own zero-delay timer already counts as waiting.
 */
function settledAtOnce<T>(run: () => Promise<T>): {
  promise: Promise<T>;
  outcome: Promise<{ value: T } | { error: unknown } | undefined>;
} {
  let timer!: ReturnType<typeof setTimeout>;
  const turn = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 0)));
  const promise = run();
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const outcome = Promise.race([settled, turn]).finally(() => clearTimeout(timer));
  return { promise, outcome };
}

/**
 * The tasks extension. A tool registered with `taskSupport` runs as a task when its call can be one:
 *
 * - **2026-07-28** (server-directed): when this request's client capabilities declare the extension. The handler
 *   starts at once; what it settles with before it first waits on I/O or a timer (an `inputRequired(…)` round, an
 *   immediate result, an error) is answered in the request itself, so input rounds resolve before a task exists;
 *   once it waits, the task is created and the call answers `resultType: "task"`. A `required` tool called without
 *   the extension is refused -32021 before its handler runs.
 * - **2025-11-25** (client-directed): when the call carries `params.task`; the task is created first and the call
 *   answers `{task}`. `params.task` on a tool without task support, or a `required` tool called without it, is
 *   -32601. Earlier 2025 versions have no tasks: every tool runs in its request.
 *
 * Inside a task the handler keeps its context (`ctx.task` is set): `ctx.elicit`/`sample`/`listRoots` and
 * `inputRequired(…)` rounds become the task's input requests (answered by `tasks/update`, or on 2025-11-25
 * delivered as real requests on the `tasks/result` stream); progress and log go with the request while it runs,
 * then on 2025-11-25 on the connection (with the related-task `_meta`), on 2026-07-28 nowhere. See docs/tasks.md.
 */
export class TasksExtension implements Extension {
  readonly id = TASKS_EXTENSION;
  readonly settings: Record<string, unknown> = {};
  readonly listenKey = 'taskIds';
  readonly modernMethods: Readonly<Record<string, ExtensionMethod>>;
  readonly legacyMethods: Readonly<Record<string, ExtensionMethod>>;
  readonly store: TaskStore;
  readonly #ownsStore: boolean;
  #host: ExtensionHost | undefined;
  #runner: TaskRunner | undefined;
  /** Stops hearing what a shared store hands this process (TaskStore.receive). */
  #stopReceiving: (() => void) | undefined;
  /** Per task, the input keys a 2025 `tasks/result` stream is delivering now (each is sent once at a time). */
  readonly #delivering = new Map<string, Set<string>>();

  constructor(options: TasksExtensionOptions = {}) {
    this.#ownsStore = options.store === undefined;
    this.store = options.store ?? new MemoryTaskStore();
    const task = (serve: (taskId: string, params: Shaped, ctx: ExtensionContext) => unknown): ExtensionMethod => ({
      routeBy: 'taskId',
      serve: (params, ctx) => serve(readTaskId(params), params, ctx),
    });
    this.modernMethods = {
      'tasks/get': task(async (taskId, _params, ctx) => detailedTask(await this.#owned(taskId, ctx))),
      'tasks/update': task((taskId, params, ctx) => this.#update(taskId, params, ctx)),
      'tasks/cancel': task(async (taskId, _params, ctx) => {
        await this.#owned(taskId, ctx);
        await this.runner.cancel(taskId);
        return {};
      }),
    };
    this.legacyMethods = {
      'tasks/get': task(async (taskId, _params, ctx) => legacyTask(await this.#owned(taskId, ctx))),
      'tasks/result': task((taskId, _params, ctx) => this.#result(taskId, ctx)),
      'tasks/list': { serve: (params, ctx) => this.#list(params, ctx) },
      'tasks/cancel': task((taskId, _params, ctx) => this.#cancelLegacy(taskId, ctx)),
    };
  }

  /** The runner (after `server.use()`). */
  get runner(): TaskRunner {
    if (this.#runner === undefined) throw new Error('the tasks extension is not installed: call server.use() first');
    return this.#runner;
  }

  /** Extension.attach: the runner, logging through the server's logger, and the listen notifications. */
  attach(host: ExtensionHost): void {
    if (this.#host !== undefined) throw new Error('the tasks extension is already installed on a server');
    this.#host = host;
    this.#runner = new TaskRunner(this.store, host.logger);
    this.#runner.onStatus((record) =>
      host.publish({
        type: 'keyed',
        key: this.listenKey,
        id: record.taskId,
        audience: record.owner === '' ? undefined : record.owner,
        method: 'notifications/tasks',
        params: detailedTask(record),
      }),
    );
    this.#stopReceiving = this.store.receive?.((taskId, notice) => this.#received(taskId, notice));
  }

  /** 2025-11-25 advertises `tasks` (list, cancel, tools/call); earlier versions have no tasks. */
  legacyCapabilities(version: string): Record<string, unknown> | undefined {
    if (!since(version, LEGACY_TASKS_SINCE)) return undefined;
    return { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  }

  /** A listed tool's `execution.taskSupport` (2025-11-25 Tool). */
  listedTool(tool: ToolDefinition, version: string): Record<string, unknown> | undefined {
    if (tool.taskSupport === undefined || !since(version, LEGACY_TASKS_SINCE)) return undefined;
    return { execution: { taskSupport: tool.taskSupport } };
  }

  /** Extension.checkTool: a tool's `taskSupport`, when given, is 'optional' or 'required'. */
  checkTool(name: string, definition: ToolDefinition): void {
    const { taskSupport } = definition;
    if (taskSupport !== undefined && taskSupport !== 'optional' && taskSupport !== 'required')
      throw new TypeError(
        `tool '${name}': taskSupport must be 'optional' or 'required', got ${JSON.stringify(taskSupport)}`,
      );
  }

  /** Extension.callTool: a task when the call can be one (the class comment), else the core's own call. */
  callTool(call: ToolCall): Promise<unknown> | undefined {
    const { tool, params, ctx } = call;
    const { taskSupport } = tool.definition;
    if (ctx.era === 'modern') {
      if (taskSupport === undefined) return undefined; // params.task is a 2025 field: ignored here
      if (declaresExtension(ctx.clientCapabilities, TASKS_EXTENSION)) return this.#modernCall(call);
      if (taskSupport === 'required') return Promise.reject(missingExtension(TASKS_EXTENSION));
      return undefined;
    }
    if (this.legacyCapabilities(ctx.protocolVersion) === undefined) return undefined;
    const { task } = params;
    if (task === undefined) {
      if (taskSupport !== 'required') return undefined;
      return Promise.reject(
        new ProtocolError(
          ErrorCode.MethodNotFound,
          `Method not found: tool '${tool.name}' runs only as a task (params.task)`,
        ),
      );
    }
    if (taskSupport === undefined)
      return Promise.reject(
        new ProtocolError(ErrorCode.MethodNotFound, `Method not found: tool '${tool.name}' does not run as a task`),
      );
    if (!isPlainObject(task)) return Promise.reject(invalidParams('params.task must be an object'));
    const { ttl } = task;
    if (ttl !== undefined && (!Number.isSafeInteger(ttl) || (ttl as number) < 1))
      return Promise.reject(invalidParams('params.task.ttl must be a positive integer (ms)'));
    return this.#legacyCall(call, ttl as number | undefined);
  }

  /** Extension.holdsWorkOf: a task of `caller` runs here (its 2025 session is then never reaped or evicted). */
  holdsWorkOf(caller: string): boolean {
    return this.#runner?.runsFor(caller) === true;
  }

  /**
   * Extension.callerEnded: the tasks of a closed stdio connection, or of a 2025 HTTP session that ended for good, are
   * cancelled (nobody could reach them again); tasks of an auth principal are the principal's, not the session's.
   */
  callerEnded(caller: string): void {
    this.#cancelOwned(caller).catch((error: unknown) => {
      this.#host?.logger.error('cancelling the tasks of a closed connection failed', error);
    });
  }

  /**
   * Cancels the live tasks of `caller`: those this process runs and, with a store that reaches the processes running
   * tasks (TaskStore.send), every live one of its records, which the store ends where it runs (a shared session's
   * tasks may run in a process that no longer holds a copy of it).
   */
  async #cancelOwned(caller: string): Promise<void> {
    await this.runner.cancelOwned(caller);
    if (this.store.send === undefined) return; // a store kept here: every task of the caller ran here
    let cursor: string | undefined;
    do {
      const page = await this.store.list(caller, cursor, this.#host!.pageSize);
      const live = page.tasks.filter((record) => !isTerminal(record.status));
      await Promise.all(live.map((record) => this.runner.cancel(record.taskId)));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  }

  /**
   * Extension.metrics: `liveTasks`, the task handlers this process runs now (prepared ones included), and with the
   * in-memory store `storedTasks`, the records it holds (terminal ones until they expire; at most its `maxTasks`),
   * and `storedTaskBytes`, what they weigh (RECORD_BYTES; at most its `maxBytes`).
   */
  metrics(): Record<string, number> {
    const liveTasks = this.#runner?.active ?? 0;
    const store = this.store;
    return store instanceof MemoryTaskStore
      ? { liveTasks, storedTasks: store.size, storedTaskBytes: store.bytes }
      : { liveTasks };
  }

  /** Extension.close: cancels the running tasks, then closes the store when it is the extension's own. */
  async close(): Promise<void> {
    this.#stopReceiving?.();
    await this.#runner?.close();
    if (this.#ownsStore) await this.store.close();
  }

  /**
   * What a shared store hands this process for a task it may run: answers and refusals go to the waiting handler
   * (as if given here), and a record that ended elsewhere (cancelled through another process, say) ends the handler.
   */
  #received(taskId: string, notice: TaskNotice): void {
    const runner = this.runner;
    const failed = (error: unknown): void =>
      this.#host?.logger.error(`task ${taskId}: a delivered message failed`, error);
    if (notice.type === 'responses') runner.respond(taskId, notice.responses).catch(failed);
    else if (notice.type === 'refused') {
      const { code, message, data } = notice.error;
      runner.refuse(taskId, notice.key, new OutboundRequestError(message, code, data)).catch(failed);
    } else
      this.store.get(taskId).then(
        (record) => runner.ended(taskId, record),
        // Ended all the same: the record's terminal status is known to the store; only its copy is missing here.
        () => runner.ended(taskId, undefined),
      );
  }

  /** A 2026-07-28 call from a declaring client: answered in the request unless the handler waits (class comment). */
  async #modernCall(call: ToolCall): Promise<unknown> {
    const prepared = this.runner.prepare({ owner: call.ctx.caller });
    const ctx = this.#detach(call, prepared.context);
    // Until the task exists, the request's own end (a cancel, a closed response) ends the handler.
    const discard = (): void => prepared.discard();
    call.ctx.signal.addEventListener('abort', discard, { once: true });
    const { promise: first, outcome } = settledAtOnce(() => call.run(ctx));
    const atOnce = await outcome;
    call.ctx.signal.removeEventListener('abort', discard);
    if (atOnce !== undefined) {
      prepared.discard();
      if ('error' in atOnce) throw atOnce.error;
      return atOnce.value;
    }
    const record = await prepared.commit(() => this.#rounds(call, ctx, first, prepared.context));
    // A client that went away while the record was created never learns its id: nobody could reach the task.
    if (call.ctx.signal.aborted) await this.runner.cancel(record.taskId);
    return { resultType: 'task', ...modernTask(record) };
  }

  /** A 2025-11-25 call with `params.task`: the task first, then the handler in it. */
  async #legacyCall(call: ToolCall, ttlMs: number | undefined): Promise<unknown> {
    const record = await this.runner.start(
      (task) => {
        const ctx = this.#detach(call, task, { [RELATED_TASK]: { taskId: task.taskId } });
        return this.#rounds(call, ctx, call.run(ctx), task);
      },
      {
        owner: call.ctx.caller,
        ttlMs,
        onStatus: (record) => call.notify('notifications/tasks/status', legacyTask(record)),
      },
    );
    // A client that went away while the record was created never learns its id: nobody could reach the task.
    if (call.ctx.signal.aborted) await this.runner.cancel(record.taskId);
    return { task: legacyTask(record) };
  }

  /** The handler's context inside the task: its input goes to the task; `meta` on its notifications. */
  #detach(call: ToolCall, task: TaskContext, meta?: Shaped): DetachedContext {
    return call.detach({
      signal: task.signal,
      input: (request) => task.input(request as unknown as Shaped) as Promise<Shaped>,
      task,
      meta,
    });
  }

  /**
   * Follows the handler inside its task: each `inputRequired(…)` it answers becomes the task's input requests, and
   * the handler runs again with the answers, at most MAX_INPUT_ROUNDS times; resolves with the final tool result.
   * A round the client's capabilities cannot answer fails the task as the request would have failed: -32021 on
   * 2026-07-28, a tool failure on 2025-11-25 (as the 2025 shim answers it).
   */
  async #rounds(
    call: ToolCall,
    ctx: DetachedContext,
    first: Promise<Shaped | InputRequired>,
    task: TaskContext,
  ): Promise<Shaped> {
    // A URL elicitation the handler needs first is one more input request of the task.
    let answer = await first.catch(urlElicitationAsInput);
    for (let round = 0; answer instanceof InputRequired; round++) {
      if (round === MAX_INPUT_ROUNDS)
        return toolFailureResult(
          `The task needed more than ${MAX_INPUT_ROUNDS} rounds of client input`,
          ctx.protocolVersion,
        );
      const requests: Record<string, InputRequest> = answer.inputRequests;
      const missing = requiredCapabilities(requests, ctx.clientCapabilities);
      if (missing !== undefined) {
        if (ctx.era === 'modern') throw missingCapability(missing);
        return toolFailureResult('The client could not provide the requested input', ctx.protocolVersion);
      }
      const keys = Object.keys(requests);
      const answers = await Promise.all(keys.map((key) => task.input(requests[key] as unknown as Shaped)));
      const responses: Record<string, Record<string, unknown>> = Object.create(null);
      keys.forEach((key, index) => {
        responses[key] = answers[index] as Record<string, unknown>;
      });
      ctx.inputResponses = responses;
      ctx.requestState = answer.state;
      answer = await call.run(ctx).catch(urlElicitationAsInput);
    }
    return answer;
  }

  /** The caller's task, or the unknown-task refusal (another caller's task is unknown too). */
  async #owned(taskId: string, ctx: ExtensionContext): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (record === undefined || record.owner !== ctx.caller) throw unknownTask(taskId);
    return record;
  }

  /**
   * 2026-07-28 `tasks/update`: answers outstanding input requests. Keys that are not outstanding are ignored without
   * being looked at; each answer to an outstanding key must be an object (-32602 naming it).
   */
  async #update(taskId: string, params: Shaped, ctx: ExtensionContext): Promise<Shaped> {
    const given = params.inputResponses;
    if (!isPlainObject(given)) throw invalidParams('params.inputResponses must be an object');
    const record = await this.#owned(taskId, ctx);
    // A task another process runs (a shared store) has its outstanding requests in its record.
    const here = this.runner.runs(taskId);
    const outstanding = here ? this.runner.outstanding(taskId) : new Set(Object.keys(record.inputRequests ?? {}));
    const answered = Object.fromEntries(Object.entries(given).filter(([key]) => outstanding.has(key)));
    const responses = readInputResponses(answered) ?? {};
    if (here || this.store.send === undefined) await this.runner.respond(taskId, responses);
    else if (Object.keys(responses).length > 0) await this.store.send(taskId, { type: 'responses', responses });
    return {};
  }

  /** 2025-11-25 `tasks/list`: the caller's tasks, paged. */
  async #list(params: Shaped, ctx: ExtensionContext): Promise<Shaped> {
    // A caller that is nobody in particular (sessionless HTTP) lists nothing: ids are its only protection.
    if (ctx.caller === '') return { tasks: [] };
    const page = await this.store.list(ctx.caller, params.cursor, this.#host!.pageSize);
    const result: Shaped = { tasks: page.tasks.map(legacyTask) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  }

  /** 2025-11-25 `tasks/cancel`: the task as `cancelled`, stored before the answer; a terminal one is -32602. */
  async #cancelLegacy(taskId: string, ctx: ExtensionContext): Promise<Shaped> {
    const record = await this.#owned(taskId, ctx);
    if (isTerminal(record.status)) throw terminalCancel(record);
    const after = await this.runner.cancel(taskId);
    if (after === undefined) throw unknownTask(taskId);
    if (after.status !== 'cancelled') throw terminalCancel(after); // it finished first
    return legacyTask(after);
  }

  /**
   * 2025-11-25 `tasks/result`: blocks until the task is terminal, delivering its outstanding input requests as
   * server→client requests on this stream meanwhile (each with the related-task `_meta`); then answers exactly the
   * tool's result (with the related-task `_meta`) or its error.
   */
  async #result(taskId: string, ctx: ExtensionContext): Promise<Shaped> {
    let record = await this.#owned(taskId, ctx);
    /** Keys of a task another process runs that this stream has answered (input keys are never reused). */
    const answered = new Set<string>();
    for (;;) {
      // Subscribed before the record is read again, so that no transition falls between the two.
      const change = this.#nextChange(taskId, record.pollIntervalMs, ctx.signal);
      try {
        const current = await this.store.get(taskId);
        if (current === undefined) throw unknownTask(taskId);
        record = current;
        if (isTerminal(record.status)) return outcome(record);
        // What this process runs, or (a shared store) what the record shows of a task another process runs, whose
        // answers the store hands over; with a store kept in this process, no other handler could hear them.
        const here = this.runner.runs(taskId);
        const outstanding = here ? this.runner.outstanding(taskId) : undefined;
        for (const [key, request] of Object.entries(record.inputRequests ?? {}))
          if (outstanding?.has(key) ?? (this.store.send !== undefined && !answered.has(key)))
            this.#deliver(taskId, key, request as InputRequest, ctx, here ? undefined : answered);
        await change.promise;
      } finally {
        change.release();
      }
      if (ctx.signal.aborted) throw ctx.signal.reason;
    }
  }

  /** Resolves at the task's next stored transition here, after `pollMs` (another process may run it), or on abort. */
  #nextChange(taskId: string, pollMs: number, signal: AbortSignal): { promise: Promise<void>; release(): void } {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      const off = this.runner.onStatus((record) => {
        if (record.taskId === taskId) resolve();
      });
      const onAbort = (): void => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      release = () => {
        clearTimeout(timer);
        off();
        signal.removeEventListener('abort', onAbort);
      };
    });
    return { promise, release };
  }

  /**
   * Sends one outstanding input request on a `tasks/result` stream, unless another stream is already sending it.
   * The answer goes to the handler here, or (`answered` given: another process runs the task) through the store,
   * and the key joins `answered`.
   */
  #deliver(taskId: string, key: string, request: InputRequest, ctx: ExtensionContext, answered?: Set<string>): void {
    let keys = this.#delivering.get(taskId);
    if (keys?.has(key) === true) return;
    if (keys === undefined) this.#delivering.set(taskId, (keys = new Set()));
    keys.add(key);
    const params: Shaped = { ...request.params };
    params._meta = { ...(request.params?._meta as Shaped | undefined), [RELATED_TASK]: { taskId } };
    ctx
      .sendInput({ method: request.method, params })
      .then(
        (answer) =>
          answered === undefined
            ? this.runner.respond(taskId, { [key]: answer })
            : this.#handOver(taskId, key, { type: 'responses', responses: { [key]: answer } }, answered),
        // A stream that went away leaves the request outstanding for the next tasks/result; a client's refusal is
        // the handler's.
        (error: unknown) => {
          if (ctx.signal.aborted) return undefined;
          if (answered === undefined) return this.runner.refuse(taskId, key, error);
          return this.#handOver(taskId, key, { type: 'refused', key, error: refusal(error) }, answered);
        },
      )
      .finally(() => {
        keys.delete(key);
        if (keys.size === 0 && this.#delivering.get(taskId) === keys) this.#delivering.delete(taskId);
      });
  }

  /**
   * Hands a client's answer to the process that runs the task (TaskStore.send); once the store holds it, the key is
   * answered for this stream. A store that fails is logged and the key stays outstanding (it is asked again).
   */
  async #handOver(taskId: string, key: string, message: TaskMessage, answered: Set<string>): Promise<void> {
    try {
      await this.store.send!(taskId, message);
      answered.add(key);
    } catch (error) {
      this.#host?.logger.error(`task ${taskId}: handing the answer to ${key} over failed`, error);
    }
  }
}

/** A client's refusal of an input request as the JSON-RPC error a store hands over (TaskMessage `refused`). */
function refusal(error: unknown): JsonRpcErrorObject {
  if (error instanceof OutboundRequestError)
    return { code: error.code ?? ErrorCode.InternalError, message: error.message, data: error.data };
  return { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) };
}

/** The -32602 answer to a 2025-11-25 `tasks/cancel` of a terminal task. */
function terminalCancel(record: TaskRecord): ProtocolError {
  return invalidParams(`Cannot cancel task: already in terminal status '${legacyStatus(record)}'`);
}

/** What a 2025-11-25 `tasks/result` answers for a terminal task. */
function outcome(record: TaskRecord): Shaped {
  const related = { [RELATED_TASK]: { taskId: record.taskId } };
  if (record.status === 'completed') {
    const result = record.result ?? {};
    return { ...result, _meta: { ...(result._meta as Shaped | undefined), ...related } };
  }
  if (record.status === 'failed' && record.error !== undefined) {
    const { code, message, data } = record.error;
    throw new ProtocolError(code, message, data);
  }
  throw invalidParams(`Task '${record.taskId}' was cancelled: it has no result`);
}
