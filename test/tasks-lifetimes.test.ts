// What a task holds, and that it lets go, at the wire in both eras (MCP 2025-11-25, Basic > Utilities > Tasks; the
// 2026-07-28 extension io.modelcontextprotocol/tasks; docs/tasks.md) on stdio and loopback HTTP: cancel, expiry, a
// 1000-task storm, server.close() and callers' isolation. Each test owns its server, store and transport and closes
// them; waits are on explicit signals, the only (bounded) polling is for timers' effects; no assertion reads time.

import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { type TestContext, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { type Context, createServer, type Server } from '../core.ts';
import { type HttpOptions, type HttpServer, type SessionRecord, type SharedSessionStore, serveHttp } from '../http.ts';
import {
  createTasksExtension,
  isTerminal,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type TaskRecord,
  type TasksExtension,
} from '../tasks/tasks-extension.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { CLIENT_CAPABILITIES, type Id, modern, notification, request, SERVER_INFO } from './wire.ts';

const INFO = { name: 'tasks-lifetimes-test', version: '1.0.0' };
const TASKS = 'io.modelcontextprotocol/tasks';
const LEGACY = '2025-11-25';
/** A safety net against hangs only (a cancel that does not abort hangs the test on the handler's abort). */
const SHORT = { timeout: 5_000 };
const STORM = { timeout: 60_000 };

// ---------------------------------------------------------------------------------------------------------------
// The four wires: each era on stdio and on HTTP

type Era = 'modern' | 'legacy';
interface Kind {
  era: Era;
  transport: 'stdio' | 'http';
}
const KINDS: Kind[] = [
  { era: 'modern', transport: 'stdio' },
  { era: 'modern', transport: 'http' },
  { era: 'legacy', transport: 'stdio' },
  { era: 'legacy', transport: 'http' },
];

function label(kind: Kind): string {
  const era = kind.era === 'modern' ? '2026-07-28' : '2025-11-25';
  const wire = kind.transport === 'stdio' ? 'stdio' : kind.era === 'modern' ? 'sessionless HTTP' : 'HTTP session';
  return `${era}, ${wire}`;
}

/** One request of `era`: 2026-07-28 with the envelope declaring the tasks extension, 2025 a plain JSON-RPC request. */
function frameOf(era: Era, id: Id, method: string, params: Record<string, unknown>): Frame {
  return era === 'modern'
    ? modern(method, params, id, { [CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} } } })
    : request(id, method, params);
}

/** One caller: sends a request of its rig's era and resolves with the response frame. */
interface Caller {
  call(method: string, params?: Record<string, unknown>): Promise<Frame>;
  /** The client goes away: on stdio its connection ends (as on EOF), over HTTP it DELETEs its 2025 session. */
  end?(): Promise<unknown>;
  /** Its 2025 HTTP session's id. */
  session?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The server: its own store, and handlers that report their start and the abort of their signal

/** A set of task ids that can be awaited: until one is in it, or until it holds n. */
class Seen {
  readonly ids = new Set<string>();
  #waiters: { done(): boolean; resolve(): void }[] = [];

  add(id: string): void {
    this.ids.add(id);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.done()) return true;
      waiter.resolve();
      return false;
    });
  }

  of(id: string): Promise<void> {
    return this.#until(() => this.ids.has(id));
  }

  count(n: number): Promise<void> {
    return this.#until(() => this.ids.size >= n);
  }

  #until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ done, resolve }));
  }
}

interface Built {
  server: Server;
  tasks: TasksExtension;
  store: MemoryTaskStore;
  logger: MemoryLogger;
  /** Tasks whose handler started. */
  started: Seen;
  /** Tasks whose handler saw its signal abort. */
  aborted: Seen;
  /** Tasks whose record became terminal. */
  finished: Seen;
  /** Each started task's signal. */
  signals: Map<string, AbortSignal>;
  /** Lets every `hold` handler go on. */
  release(): void;
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/**
 * A server with the tasks extension over a store the test owns, and three task tools: `sleep` waits 60 s on the
 * task's signal; `hold` waits for `release()`, then sets its TTL to 1 ms (it expires) and waits 60 s on the signal;
 * `echo` answers its `text` after a timer's turn (so that 2026-07-28 makes it a task too).
 */
function build(options: MemoryTaskStoreOptions = {}): Built {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  const store = new MemoryTaskStore(options);
  const tasks = createTasksExtension({ store });
  server.use(tasks);
  const started = new Seen();
  const aborted = new Seen();
  const signals = new Map<string, AbortSignal>();
  const gate = deferred();
  const watched = async (ctx: Context, wait: () => Promise<unknown>) => {
    const id = ctx.task!.taskId;
    signals.set(id, ctx.signal);
    started.add(id);
    try {
      await wait();
    } catch (error) {
      if (ctx.signal.aborted) aborted.add(id);
      throw error;
    }
    return text('done');
  };
  const sleep = (ctx: Context) => delay(60_000, undefined, { signal: ctx.signal });
  server.tool('sleep', { description: 'Sleeps 60 s unless aborted', taskSupport: 'optional' }, (_args, ctx) =>
    watched(ctx, () => sleep(ctx)),
  );
  server.tool('hold', { description: 'Waits for the test, expires, sleeps', taskSupport: 'optional' }, (_args, ctx) =>
    watched(ctx, async () => {
      await gate.promise;
      await ctx.task!.setTtl(1);
      await sleep(ctx);
    }),
  );
  server.tool(
    'echo',
    { taskSupport: 'optional', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    async ({ text: value }: { text?: string }) => {
      await delay(1);
      return text(value ?? '');
    },
  );
  const finished = new Seen();
  tasks.runner.onStatus((record) => {
    if (isTerminal(record.status)) finished.add(record.taskId);
  });
  return { server, tasks, store, logger, started, aborted, finished, signals, release: () => gate.resolve() };
}

// ---------------------------------------------------------------------------------------------------------------
// Rigs: a built server on one wire, and callers on it

interface Rig {
  kind: Kind;
  built: Built;
  http: HttpServer | undefined;
  /**
   * A new caller: on stdio a new connection, over HTTP a new 2025 session, or 2026-07-28 sessionless POSTs (with
   * `token`, a bearer token's principal).
   */
  caller(token?: string): Promise<Caller>;
  /** Ends every stdio connection, or closes the HTTP server. */
  closeTransport(): Promise<void>;
}

/** Bearer tokens of the auth rigs: two principals. */
const AUTH: NonNullable<HttpOptions['auth']> = {
  resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] },
  verifyToken: (token) =>
    token === 'alice' || token === 'bob'
      ? { subject: token, issuer: 'https://as.example.com', scopes: ['mcp:tools'] }
      : undefined,
};

async function rig(t: TestContext, kind: Kind, built: Built, http: HttpOptions = {}): Promise<Rig> {
  const clients: WireClient[] = [];
  const server =
    kind.transport === 'http' ? await serveHttp(built.server, { port: 0, responseMode: 'json', ...http }) : undefined;
  let transportClosed = false;
  const closeTransport = async (): Promise<void> => {
    if (transportClosed) return;
    transportClosed = true;
    if (server !== undefined) await server.close();
    await Promise.all(clients.map((client) => client.end()));
  };
  t.after(async () => {
    // Whatever a failed test left open (each test closes its own on success).
    await built.server.close();
    await built.store.close();
    await closeTransport();
  });
  const caller = async (token?: string): Promise<Caller> => {
    let next = 1;
    if (server === undefined) {
      const client = new WireClient(built.server);
      clients.push(client);
      if (kind.era === 'legacy') await client.initialize(LEGACY);
      return {
        call: (method, params = {}) => {
          const id = next++;
          client.send(frameOf(kind.era, id, method, params));
          return client.response(id);
        },
        end: () => client.end(),
      };
    }
    const bearer: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const exchange = async (frame: Frame, headers: Record<string, string>): Promise<Frame> => {
      const response = await raw(server.url, { headers: { ...headers, ...bearer }, body: JSON.stringify(frame) });
      if (!('id' in frame)) {
        assert.equal(response.status, 202, response.text);
        return undefined;
      }
      assert.equal(response.headers['content-type'], 'application/json', `${response.status} ${response.text}`);
      return response.json;
    };
    if (kind.era === 'modern') {
      return {
        call: (method, params = {}) => {
          const frame = frameOf('modern', next++, method, params);
          // 2026-07-28 Streamable HTTP: tasks/* mirror params.taskId in Mcp-Name.
          const name: Record<string, string> = method.startsWith('tasks/') ? { 'mcp-name': String(params.taskId) } : {};
          return exchange(frame, modernHeaders(frame, name));
        },
      };
    }
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await raw(server.url, {
      headers: { ...base, ...bearer },
      body: JSON.stringify(
        request(0, 'initialize', {
          protocolVersion: LEGACY,
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      ),
    });
    assert.equal(init.status, 200, init.text);
    const session = init.headers['mcp-session-id'];
    assert.equal(typeof session, 'string');
    const headers = { ...base, 'mcp-session-id': session as string, 'mcp-protocol-version': LEGACY };
    await exchange(notification('notifications/initialized'), headers);
    return {
      session: session as string,
      call: (method, params = {}) => exchange(request(next++, method, params), headers),
      end: async () => {
        const deleted = await raw(server.url, { method: 'DELETE', headers: { ...headers, ...bearer } });
        assert.equal(deleted.status, 200, deleted.text);
      },
    };
  };
  return { kind, built, http: server, caller, closeTransport };
}

// ---------------------------------------------------------------------------------------------------------------
// Task operations in each era's shapes

/**
 * Calls `tool` as a task (2025: params.task, with `ttl` when given) and returns its id, checking the creation
 * answer; `created` hears the task it describes.
 */
async function startTask(
  era: Era,
  caller: Caller,
  tool: string,
  ttl?: number,
  created?: (task: Frame) => void,
  args: Record<string, unknown> = {},
): Promise<string> {
  const params: Record<string, unknown> = { name: tool, arguments: args };
  if (era === 'legacy') params.task = ttl === undefined ? {} : { ttl };
  const frame = await caller.call('tools/call', params);
  const task = era === 'legacy' ? frame.result?.task : frame.result;
  assert.equal(task?.status, 'working', JSON.stringify(frame));
  if (era === 'modern') assert.equal(task.resultType, 'task');
  assert.equal(typeof task.taskId, 'string');
  created?.(task);
  return task.taskId;
}

/** The status `tasks/get` reports for the task (asserting a result came back). */
async function statusOf(caller: Caller, taskId: string): Promise<string> {
  const frame = await caller.call('tasks/get', { taskId });
  assert.ok('result' in frame, JSON.stringify(frame));
  assert.equal(frame.result.taskId, taskId);
  return frame.result.status;
}

/** The answer to a request about a task that does not exist, expired, or is not this caller's: all the same. */
function unknownTask(id: Id, taskId: string): Frame {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params: params.taskId: no task "${taskId}" (never created, expired, or not this caller's)`,
    },
  };
}

/** The modern acknowledgement (tasks/update, tasks/cancel): complete, stamped with serverInfo. */
const ACK = { resultType: 'complete', _meta: { [SERVER_INFO]: INFO } };

// ---------------------------------------------------------------------------------------------------------------
// Timers: those node lists (ref'd ones) and every Timeout armed meanwhile (unref'd ones too)

function refTimeouts(): number {
  return process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;
}

/** Destroy hooks and socket closes land in later turns of the event loop. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Set while the polling below arms its own timer, which the timer watch does not count. */
let polling = false;

/** Polls `condition` each few ms for what a timer does; fails naming `what` (as it then is) after `boundMs`. */
async function until(what: string | (() => string), condition: () => boolean, boundMs = 3_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline)
      assert.fail(`still waiting after ${boundMs} ms: ${typeof what === 'string' ? what : what()}`);
    polling = true;
    const pause = delay(5);
    polling = false;
    await pause;
  }
}

/**
 * Watches the timers of one scenario: `refBaseline` is node's count of ref'd timers when it began, and `live` holds
 * every Timeout armed since (by the core, node or the test; not the polling's own), unref'd included, until it fires
 * or is cleared.
 * `drained()` waits (bounded: node's Date-header cache timer lives up to a second) until none is left and the ref'd
 * count is back to the baseline, then stops watching.
 */
async function watchTimers(t: TestContext) {
  await settle();
  const refBaseline = refTimeouts();
  const live = new Set<number>();
  const hook = createHook({
    init: (id, type) => {
      if (type === 'Timeout' && !polling) live.add(id);
    },
    destroy: (id) => live.delete(id),
  }).enable();
  t.after(() => hook.disable());
  return {
    refBaseline,
    live,
    drained: async () => {
      await settle();
      await until(
        () => `timers armed during the scenario: ${live.size} live; ref'd ${refTimeouts()} (baseline ${refBaseline})`,
        () => live.size === 0 && refTimeouts() === refBaseline,
      );
      hook.disable();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Cancel

for (const kind of KINDS) {
  test(
    `a cancel of a running 60 s task aborts its handler before the cancel is answered, and the task then reads cancelled (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build();
      const timers = await watchTimers(t);
      const wire = await rig(t, kind, built);
      const caller = await wire.caller();
      const taskId = await startTask(kind.era, caller, 'sleep');
      await built.started.of(taskId);
      assert.equal(built.tasks.runner.active, 1);
      assert.equal(refTimeouts(), timers.refBaseline + 1, "the handler's 60 s timer runs");

      const cancel = await caller.call('tasks/cancel', { taskId });
      if (kind.era === 'modern') {
        assert.deepEqual(cancel.result, ACK);
      } else {
        // 2025-11-25: the answer is the task, cancelled (stored before the answer).
        assert.equal(cancel.result.taskId, taskId);
        assert.equal(cancel.result.status, 'cancelled');
        assert.deepEqual(Object.keys(cancel.result).sort(), [
          'createdAt',
          'lastUpdatedAt',
          'pollInterval',
          'status',
          'taskId',
          'ttl',
        ]);
      }
      // The handler saw its signal abort before the answer came (no wait here: it already happened).
      assert.ok(built.aborted.ids.has(taskId), 'the handler observed the abort');
      assert.equal(built.tasks.runner.active, 0);
      assert.equal(await statusOf(caller, taskId), 'cancelled');
      assert.equal((await built.store.get(taskId))?.status, 'cancelled');

      await built.server.close();
      await built.store.close();
      await wire.closeTransport();
      await timers.drained();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Expiry

for (const kind of KINDS) {
  test(
    `a task past its TTL leaves the store and the runner, its handler is aborted, and tasks/get answers -32602 (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build({ maxTtlMs: 50 });
      const timers = await watchTimers(t);
      const wire = await rig(t, kind, built);
      const caller = await wire.caller();
      // 2025-11-25 asks for a longer TTL, 2026-07-28 gets the cap: the store's cap (50 ms) either way.
      let granted: unknown;
      const taskId = await startTask(kind.era, caller, 'sleep', 60_000, (task) => {
        granted = kind.era === 'modern' ? task.ttlMs : task.ttl;
      });
      assert.equal(granted, 50);
      await built.started.of(taskId);

      await until(
        'the store and the runner to let the task go',
        () => built.store.size === 0 && built.tasks.runner.active === 0,
      );
      await built.aborted.of(taskId); // the expiry aborted the handler (it would otherwise sleep 60 s)
      assert.deepEqual(await caller.call('tasks/get', { taskId }), unknownTask(2, taskId));
      assert.deepEqual(await caller.call('tasks/cancel', { taskId }), unknownTask(3, taskId));

      await built.server.close();
      await built.store.close();
      await wire.closeTransport();
      await timers.drained();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 3. A storm of 1000 tasks

/** Runs `count` jobs with at most `width` at once, in order of start. */
async function pool<T>(count: number, width: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      results[index] = await job(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
  return results;
}

for (const kind of KINDS) {
  test(
    `1000 tasks fill a store capped at 1000, the 1001st is answered -32603 'Task limit reached', and once they expire no record, runner entry or timer is left (${label(kind)})`,
    STORM,
    async (t) => {
      const built = build({ maxTasks: 1000, maxTasksPerOwner: 2000 }); // one caller: the store's cap, not its share
      const timers = await watchTimers(t);
      const wire = await rig(t, kind, built);
      const caller = await wire.caller();
      const ids = await pool(1000, kind.transport === 'http' ? 32 : 1000, () => startTask(kind.era, caller, 'hold'));
      assert.equal(new Set(ids).size, 1000);
      await built.started.count(1000);
      assert.equal(built.store.size, 1000);
      assert.equal(built.tasks.runner.active, 1000);

      const refused = await caller.call(
        'tools/call',
        kind.era === 'legacy' ? { name: 'hold', arguments: {}, task: {} } : { name: 'hold', arguments: {} },
      );
      assert.deepEqual(refused.error, { code: -32603, message: 'Task limit reached', data: { maxTasks: 1000 } });
      assert.equal(built.store.size, 1000);
      assert.equal(built.tasks.runner.active, 1000, 'the refused task left the runner');
      // 2026-07-28 started the 1001st handler before its record: the refusal aborted it. 2025-11-25 never started it.
      const extra = kind.era === 'modern' ? 1 : 0;
      assert.equal(built.started.ids.size, 1000 + extra);
      const created = new Set(ids);
      const unstored = [...built.started.ids].filter((id) => !created.has(id));
      assert.deepEqual(
        unstored.map((id) => built.signals.get(id)!.aborted),
        kind.era === 'modern' ? [true] : [],
      );
      assert.ok(ids.every((id) => !built.signals.get(id)!.aborted));

      // Each handler now sets its TTL to 1 ms: every record expires and every handler is aborted.
      built.release();
      await built.aborted.count(1000 + extra);
      await until('every record to expire', () => built.store.size === 0 && built.tasks.runner.active === 0);
      assert.deepEqual(await caller.call('tasks/get', { taskId: ids[0] }), unknownTask(1002, ids[0]!));
      await settle();
      assert.equal(refTimeouts(), timers.refBaseline, "ref'd timers before anything closes");

      await built.server.close();
      await built.store.close();
      await wire.closeTransport();
      await timers.drained();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 4. server.close() with tasks running

for (const kind of KINDS) {
  test(
    `server.close() aborts every running task and records it cancelled 'The server shut down'; the transport then closes with no timer left (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build();
      const timers = await watchTimers(t);
      const wire = await rig(t, kind, built);
      const callers = [await wire.caller(), await wire.caller()];
      const ids = [
        await startTask(kind.era, callers[0]!, 'sleep'),
        await startTask(kind.era, callers[1]!, 'sleep'),
        await startTask(kind.era, callers[0]!, 'sleep'),
      ];
      await built.started.count(3);
      assert.equal(built.tasks.runner.active, 3);
      assert.equal(refTimeouts(), timers.refBaseline + 3);

      await built.server.close();
      assert.deepEqual([...built.aborted.ids].sort(), [...ids].sort(), 'every handler observed the abort');
      assert.equal(built.tasks.runner.active, 0);
      for (const taskId of ids) {
        const record = await built.store.get(taskId);
        assert.equal(record?.status, 'cancelled');
        assert.equal(record?.statusMessage, 'The server shut down');
      }
      // The wire still reads the store the test owns (the extension never closes a store it was given).
      const read = await callers[1]!.call('tasks/get', { taskId: ids[1] });
      assert.equal(read.result.status, 'cancelled');
      assert.equal(read.result.statusMessage, 'The server shut down');

      await built.store.close();
      assert.equal(built.store.size, 0);
      await wire.closeTransport();
      await timers.drained();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Another caller's task is an unknown task

/**
 * `b` asks about `a`'s running task with every tasks method of the era and gets exactly the unknown-task answer
 * (the same as for an id never created, asked alongside); the task is untouched and `a` still reads it.
 */
async function refusedToOthers(built: Built, era: Era, a: Caller, b: Caller): Promise<void> {
  const taskId = await startTask(era, a, 'sleep');
  await built.started.of(taskId);
  const methods =
    era === 'modern'
      ? { 'tasks/get': {}, 'tasks/update': { inputResponses: {} }, 'tasks/cancel': {} }
      : { 'tasks/get': {}, 'tasks/result': {}, 'tasks/cancel': {} };
  for (const [method, params] of Object.entries(methods)) {
    const other = await b.call(method, { taskId, ...params });
    assert.deepEqual(other, unknownTask(other.id, taskId), `${method} of another caller's task`);
    const never = await b.call(method, { taskId: 'never-created', ...params });
    assert.deepEqual(never, unknownTask(never.id, 'never-created'), `${method} of an unknown task`);
  }
  if (era === 'legacy') {
    assert.deepEqual((await b.call('tasks/list')).result, { tasks: [] });
    assert.deepEqual(
      (await a.call('tasks/list')).result.tasks.map((task: Frame) => task.taskId),
      [taskId],
    );
  }
  assert.equal(await statusOf(a, taskId), 'working');
  assert.equal(built.aborted.ids.size, 0, "another caller's cancel reached nothing");
  assert.equal(built.tasks.runner.active, 1);
  assert.equal(built.store.size, 1);
  // The owner can cancel it.
  await a.call('tasks/cancel', { taskId });
  assert.ok(built.aborted.ids.has(taskId));
  assert.equal(await statusOf(a, taskId), 'cancelled');
}

for (const kind of KINDS) {
  if (kind.transport === 'http' && kind.era === 'modern') continue; // sessionless: below, with and without auth
  const who = kind.transport === 'stdio' ? 'another stdio connection' : 'another 2025 session';
  test(
    `${who} is answered -32602 for a task exactly as for an unknown id, and cannot cancel or list it (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build();
      const wire = await rig(t, kind, built);
      await refusedToOthers(built, kind.era, await wire.caller(), await wire.caller());
      await built.server.close();
      await built.store.close();
      await wire.closeTransport();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

test(
  'with auth, another bearer principal is answered -32602 for a task exactly as for an unknown id on sessionless 2026-07-28 HTTP; the owner reads it',
  SHORT,
  async (t) => {
    const built = build();
    const wire = await rig(t, { era: 'modern', transport: 'http' }, built, { auth: AUTH });
    await refusedToOthers(built, 'modern', await wire.caller('alice'), await wire.caller('bob'));
    await built.server.close();
    await built.store.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

test(
  'without auth, sessionless 2026-07-28 HTTP task ids are unguessable bearer handles: any caller holding one reads and cancels the task',
  SHORT,
  async (t) => {
    const built = build();
    const wire = await rig(t, { era: 'modern', transport: 'http' }, built);
    const [a, b] = [await wire.caller(), await wire.caller()];
    const taskId = await startTask('modern', a, 'sleep');
    await built.started.of(taskId);
    assert.match(taskId, /^[A-Za-z0-9_-]{22}$/, '128 random bits as base64url');
    assert.equal(await statusOf(b, taskId), 'working');
    assert.deepEqual((await b.call('tasks/cancel', { taskId })).result, ACK);
    assert.ok(built.aborted.ids.has(taskId));
    assert.equal(await statusOf(a, taskId), 'cancelled');
    await built.server.close();
    await built.store.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

for (const era of ['modern', 'legacy'] as const) {
  test(
    `${label({ era, transport: 'stdio' })}: a connection that ends cancels the tasks bound to it; another connection's run on`,
    SHORT,
    async (t) => {
      const built = build();
      const stdio = await rig(t, { era, transport: 'stdio' }, built);
      const leaving = await stdio.caller();
      const staying = await stdio.caller();
      const gone = await startTask(era, leaving, 'sleep');
      const kept = await startTask(era, staying, 'sleep');
      await Promise.all([built.started.of(gone), built.started.of(kept)]);
      // The first connection's client goes away (stdio EOF; here its in-memory connection ends).
      const cancelled = new Promise<void>((resolve) => {
        const off = built.tasks.runner.onStatus((record) => {
          if (record.taskId === gone && record.status === 'cancelled') {
            off();
            resolve();
          }
        });
      });
      await leaving.end!();
      await cancelled;
      await built.aborted.of(gone);
      assert.equal((await built.store.get(gone))?.status, 'cancelled');
      assert.equal(built.signals.get(kept)?.aborted, false, 'a task of a connection still open runs on');
      assert.equal(await statusOf(staying, kept), 'working');
      await built.server.close();
      await stdio.closeTransport();
    },
  );
}

test(
  'a closed connection whose tasks the store cannot cancel is logged, never an unhandled rejection',
  SHORT,
  async (t) => {
    const logger = new MemoryLogger();
    const server = createServer(INFO, { logger });
    const inner = new MemoryTaskStore();
    let broken = false;
    // A store that fails every read and write once broken (a shared store gone down).
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (broken && (key === 'update' || key === 'get')) return Promise.reject(new Error('store down'));
          return value.apply(target, args);
        };
      },
    });
    const tasks = createTasksExtension({ store });
    server.use(tasks);
    const started = deferred();
    server.tool('sleep', { taskSupport: 'optional' }, async (_args, ctx) => {
      started.resolve();
      await delay(60_000, undefined, { signal: ctx.signal });
      return text('done');
    });
    t.after(async () => {
      await server.close();
      await inner.close();
    });
    const client = new WireClient(server);
    client.send(frameOf('modern', 1, 'tools/call', { name: 'sleep', arguments: {} }));
    assert.equal((await client.response(1)).result.resultType, 'task');
    await started.promise;
    broken = true;
    const logged = new Promise<void>((resolve) => {
      const original = logger.error.bind(logger);
      logger.error = (message: string, error?: unknown) => {
        original(message, error);
        if (message === 'cancelling the tasks of a closed connection failed') resolve();
      };
    });
    await client.end();
    await logged; // an unhandled rejection would fail the test run instead
    assert.equal(tasks.runner.active, 0, 'the handler was still released');
  },
);

for (const era of ['modern', 'legacy'] as const) {
  test(
    `${label({ era, transport: 'stdio' })}: a call cancelled while its task is being created has its task cancelled`,
    SHORT,
    async (t) => {
      const server = createServer(INFO, { logger: new MemoryLogger() });
      const inner = new MemoryTaskStore();
      const creating = deferred();
      const proceed = deferred();
      const store = new Proxy(inner, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== 'create' || typeof value !== 'function')
            return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            creating.resolve();
            await proceed.promise;
            return value.apply(target, args);
          };
        },
      });
      const tasks = createTasksExtension({ store });
      server.use(tasks);
      server.tool('sleep', { taskSupport: 'optional' }, async (_args, ctx) => {
        await delay(60_000, undefined, { signal: ctx.signal });
        return text('done');
      });
      t.after(async () => {
        await server.close();
        await inner.close();
      });
      const client = new WireClient(server);
      if (era === 'legacy') await client.initialize(LEGACY);
      const params = era === 'legacy' ? { name: 'sleep', arguments: {}, task: {} } : { name: 'sleep', arguments: {} };
      client.send(frameOf(era, 1, 'tools/call', params));
      await creating.promise;
      const cancelled = new Promise<TaskRecord>((resolve) => {
        const off = tasks.runner.onStatus((record) => {
          if (record.status === 'cancelled') {
            off();
            resolve(record);
          }
        });
      });
      client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
      proceed.resolve();
      const record = await cancelled;
      assert.equal((await inner.get(record.taskId))?.status, 'cancelled');
      assert.equal(tasks.runner.active, 0);
      await client.end();
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 6. The end of a 2025 HTTP session

/** Resolves once the runner stored each of `ids` cancelled (subscribed before whatever cancels them). */
function cancelledAll(built: Built, ids: string[]): Promise<void> {
  const left = new Set(ids);
  return new Promise((resolve) => {
    const off = built.tasks.runner.onStatus((record) => {
      if (record.status === 'cancelled') left.delete(record.taskId);
      if (left.size > 0) return;
      off();
      resolve();
    });
  });
}

/** `ids` were cancelled with their session: each handler aborted, each record cancelled (both asserted). */
async function endedWithSession(built: Built, ids: string[], cancelled: Promise<void>): Promise<void> {
  await cancelled;
  await Promise.all(ids.map((id) => built.aborted.of(id)));
  for (const id of ids) assert.equal((await built.store.get(id))?.status, 'cancelled', id);
}

const SESSION_HTTP: Kind = { era: 'legacy', transport: 'http' };

test(
  "a 2025 HTTP session that is DELETEd cancels the tasks it owns (handlers aborted, records cancelled); another session's task runs on",
  SHORT,
  async (t) => {
    const built = build();
    const wire = await rig(t, SESSION_HTTP, built);
    const [leaving, staying] = [await wire.caller(), await wire.caller()];
    const gone = [await startTask('legacy', leaving, 'sleep'), await startTask('legacy', leaving, 'sleep')];
    const kept = await startTask('legacy', staying, 'sleep');
    await built.started.count(3);
    const cancelled = cancelledAll(built, gone);
    await leaving.end!();
    await endedWithSession(built, gone, cancelled);
    assert.equal(built.signals.get(kept)?.aborted, false, "another session's task runs on");
    assert.equal(await statusOf(staying, kept), 'working');
    assert.equal(built.tasks.runner.active, 1);
    await built.server.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

test('a 2025 HTTP session is not reaped idle while its task runs; once the task ends, it is', SHORT, async (t) => {
  const built = build();
  const wire = await rig(t, SESSION_HTTP, built, { sessionIdleMs: 20 });
  const working = await wire.caller();
  await wire.caller(); // a session with nothing running: the control the reaper ends
  const taskId = await startTask('legacy', working, 'sleep');
  await built.started.of(taskId);
  // The reaper's own clock (at least a second) is the subject: polled, bounded.
  await until('the idle session to be reaped', () => wire.http!.handler.sessionCount === 1);
  assert.equal(built.signals.get(taskId)?.aborted, false, 'the task runs on');
  assert.equal(await statusOf(working, taskId), 'working', 'its session still answers');
  const cancelled = cancelledAll(built, [taskId]);
  await working.call('tasks/cancel', { taskId });
  await cancelled;
  await until('the session, idle now, to be reaped', () => wire.http!.handler.sessionCount === 0);
  await built.server.close();
  await wire.closeTransport();
  assert.deepEqual(built.logger.errors, []);
});

test(
  'a full table (maxSessions) never ends a session whose task runs: the newcomer is refused 503; once the task ends, the idle session makes room',
  SHORT,
  async (t) => {
    const built = build();
    const wire = await rig(t, SESSION_HTTP, built, { maxSessions: 1 });
    const first = await wire.caller();
    const taskId = await startTask('legacy', first, 'sleep');
    await built.started.of(taskId);
    const initialize = () =>
      raw(wire.http!.url, {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(
          request(0, 'initialize', {
            protocolVersion: LEGACY,
            capabilities: {},
            clientInfo: { name: 'c', version: '1' },
          }),
        ),
      });
    const refused = await initialize();
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers['mcp-session-id'], undefined);
    assert.equal(await statusOf(first, taskId), 'working', 'the working session and its task are untouched');
    const cancelled = cancelledAll(built, [taskId]);
    await first.call('tasks/cancel', { taskId });
    await cancelled;
    const admitted = await initialize();
    assert.equal(admitted.status, 200, admitted.text);
    assert.equal(wire.http!.handler.metrics().evictedSessions, 1);
    await built.server.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

test("the HTTP handler's close() cancels the tasks of its 2025 sessions", SHORT, async (t) => {
  const built = build();
  const wire = await rig(t, SESSION_HTTP, built);
  const ids = [
    await startTask('legacy', await wire.caller(), 'sleep'),
    await startTask('legacy', await wire.caller(), 'sleep'),
  ];
  await built.started.count(2);
  const cancelled = cancelledAll(built, ids);
  await wire.http!.close();
  await endedWithSession(built, ids, cancelled);
  assert.equal(built.tasks.runner.active, 0);
  await built.server.close();
  await wire.closeTransport();
  assert.deepEqual(built.logger.errors, []);
});

test(
  'a task of an auth principal survives the DELETE of the 2025 session that created it: another session of the principal reads it',
  SHORT,
  async (t) => {
    const built = build();
    const wire = await rig(t, SESSION_HTTP, built, { auth: AUTH });
    const first = await wire.caller('alice');
    const taskId = await startTask('legacy', first, 'sleep');
    await built.started.of(taskId);
    await first.end!();
    const second = await wire.caller('alice');
    assert.equal(await statusOf(second, taskId), 'working');
    assert.equal(built.signals.get(taskId)?.aborted, false);
    assert.equal(built.tasks.runner.active, 1);
    await built.server.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

/** A shared session store in memory: records as JSON, each save and removal told to every watching process. */
class SharedMemory implements SharedSessionStore {
  readonly #records = new Map<string, string>();
  readonly #watchers: ((id: string, record: SessionRecord | undefined) => void)[] = [];

  save(id: string, record: SessionRecord): void {
    const text = JSON.stringify(record);
    this.#records.set(id, text);
    for (const changed of this.#watchers) changed(id, JSON.parse(text));
  }

  load(id: string): SessionRecord | undefined {
    const text = this.#records.get(id);
    return text === undefined ? undefined : JSON.parse(text);
  }

  remove(id: string): void {
    this.#records.delete(id);
    for (const changed of this.#watchers) changed(id, undefined);
  }

  watch(changed: (id: string, record: SessionRecord | undefined) => void): void {
    this.#watchers.push(changed);
  }
}

test(
  "shared 2025 sessions: a process dropping its copy (its close()) leaves the session's task running there; DELETE through another process ends the task a third process runs",
  SHORT,
  async (t) => {
    const sharedSessions = new SharedMemory();
    const [a, b, c] = [build(), build(), build()];
    const [wa, wb, wc] = [
      await rig(t, SESSION_HTTP, a, { sharedSessions }),
      await rig(t, SESSION_HTTP, b, { sharedSessions }),
      await rig(t, SESSION_HTTP, c, { sharedSessions }),
    ];
    const caller = await wa.caller(); // the session, created through a
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const via = async (wire: Rig, session: string, frame: Frame): Promise<Frame> => {
      const reply = await raw(wire.http!.url, {
        headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': LEGACY },
        body: JSON.stringify(frame),
      });
      assert.equal(reply.status, 200, reply.text);
      return reply.json;
    };
    const session = caller.session!;
    const onB = (await via(wb, session, request(1, 'tools/call', { name: 'sleep', arguments: {}, task: {} }))).result
      .task.taskId;
    const onC = (await via(wc, session, request(2, 'tools/call', { name: 'sleep', arguments: {}, task: {} }))).result
      .task.taskId;
    await Promise.all([b.started.of(onB), c.started.of(onC)]);

    await wb.closeTransport(); // b drops its copy: the session goes on elsewhere
    assert.equal(b.signals.get(onB)?.aborted, false, 'a dropped copy ends no task');
    assert.equal((await b.store.get(onB))?.status, 'working');

    const cancelled = cancelledAll(c, [onC]);
    await caller.end!(); // DELETE through a: c hears the record removed
    await endedWithSession(c, [onC], cancelled);
    assert.equal(b.signals.get(onB)?.aborted, false);
    for (const built of [a, b, c]) {
      await built.server.close();
      assert.deepEqual(built.logger.errors, []);
    }
    await Promise.all([wa.closeTransport(), wc.closeTransport()]);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 7. Bounds: bytes, shares, retention

/** Calls `echo` with `value` as a task and waits for its record to be terminal; returns its id. */
async function echoed(built: Built, era: Era, caller: Caller, value: string, ttl?: number): Promise<string> {
  const taskId = await startTask(era, caller, 'echo', ttl, undefined, { text: value });
  await built.finished.of(taskId);
  return taskId;
}

/** The -32603 error of a task whose result passed `option`. */
function tooLarge(option: string, limit: number) {
  return {
    code: -32603,
    message: `Internal error: the task's result exceeded ${limit} bytes of task records (${option})`,
    data: { [option]: limit },
  };
}

for (const kind of KINDS) {
  test(
    `a task result past its owner's byte bound fails the task -32603 naming the bound; results that fit evict the owner's oldest finished records, so the store stays within its bounds (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build({ maxBytesPerOwner: 65_536 });
      const wire = await rig(t, kind, built);
      const caller = await wire.caller();
      const big = await echoed(built, kind.era, caller, 'x'.repeat(100_000));
      const failed = tooLarge('maxBytesPerOwner', 65_536);
      if (kind.era === 'modern') {
        const got = await caller.call('tasks/get', { taskId: big });
        assert.equal(got.result.status, 'failed');
        assert.deepEqual(got.result.error, failed);
      } else {
        assert.equal(await statusOf(caller, big), 'failed');
        assert.deepEqual((await caller.call('tasks/result', { taskId: big })).error, failed);
      }
      assert.ok(built.store.bytes < 1024, `the failed record is small: ${built.store.bytes}`);
      // Each result weighs about 20 KB: the owner's 64 KiB hold three.
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push(await echoed(built, kind.era, caller, String(i).repeat(20_000)));
        assert.ok(built.store.bytes <= 65_536, `${built.store.bytes} bytes held`);
      }
      for (const taskId of [big, ...ids.slice(0, 5)])
        assert.equal((await caller.call('tasks/get', { taskId })).error?.code, -32602, 'evicted, oldest first');
      for (const taskId of ids.slice(5)) assert.equal(await statusOf(caller, taskId), 'completed');
      await built.server.close();
      await wire.closeTransport();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

for (const kind of KINDS) {
  test(
    `one caller cannot take the task store: past its share (maxTasksPerOwner) of running tasks it is refused -32603 while others still create; its own finished records make room first (${label(kind)})`,
    SHORT,
    async (t) => {
      const built = build({ maxTasksPerOwner: 5 });
      const wire = await rig(t, kind, built);
      const greedy = await wire.caller();
      // Sessionless 2026-07-28 callers are all nobody in particular: the other caller is a 2025 session.
      const other =
        kind.transport === 'http' && kind.era === 'modern'
          ? await (await rig(t, SESSION_HTTP, built)).caller()
          : await wire.caller();
      const otherEra = kind.transport === 'http' ? 'legacy' : kind.era;
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await startTask(kind.era, greedy, 'sleep'));
      const refused = await greedy.call(
        'tools/call',
        kind.era === 'legacy' ? { name: 'sleep', arguments: {}, task: {} } : { name: 'sleep', arguments: {} },
      );
      assert.deepEqual(refused.error, { code: -32603, message: 'Task limit reached', data: { maxTasksPerOwner: 5 } });
      const others = await startTask(otherEra, other, 'sleep');
      assert.equal(await statusOf(other, others), 'working');
      // A finished record of its own is evicted (oldest first) before the greedy caller is refused.
      await greedy.call('tasks/cancel', { taskId: ids[1] });
      await greedy.call('tasks/cancel', { taskId: ids[3] });
      await startTask(kind.era, greedy, 'sleep');
      assert.equal(
        (await greedy.call('tasks/get', { taskId: ids[1] })).error?.code,
        -32602,
        'the oldest finished one went',
      );
      assert.equal(await statusOf(greedy, ids[3]), 'cancelled');
      assert.equal(await statusOf(greedy, ids[0]), 'working', 'a running task is never evicted');
      await built.server.close();
      await wire.closeTransport();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}

test(
  'with the default bounds, a 2025 session that finishes 150 tasks in a row keeps its 100 newest and another session still creates tasks',
  STORM,
  async (t) => {
    const built = build();
    const wire = await rig(t, SESSION_HTTP, built);
    const [greedy, other] = [await wire.caller(), await wire.caller()];
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push(await echoed(built, 'legacy', greedy, 'done'));
    assert.equal(built.store.size, 100);
    assert.equal((await greedy.call('tasks/get', { taskId: ids[49] })).error?.code, -32602);
    assert.equal(await statusOf(greedy, ids[50]), 'completed');
    const taskId = await startTask('legacy', other, 'sleep');
    assert.equal(await statusOf(other, taskId), 'working');
    await built.server.close();
    await wire.closeTransport();
    assert.deepEqual(built.logger.errors, []);
  },
);

test('a full store evicts the oldest finished record of any owner before it refuses a create', SHORT, async (t) => {
  const built = build({ maxTasks: 3 });
  const wire = await rig(t, { era: 'legacy', transport: 'stdio' }, built);
  const [a, b] = [await wire.caller(), await wire.caller()];
  const done = [await echoed(built, 'legacy', a, '1'), await echoed(built, 'legacy', a, '2')];
  const running = await startTask('legacy', a, 'sleep');
  const taskId = await startTask('legacy', b, 'sleep');
  assert.equal((await a.call('tasks/get', { taskId: done[0] })).error?.code, -32602);
  assert.equal(await statusOf(a, done[1]), 'completed');
  assert.equal(await statusOf(b, taskId), 'working');
  await startTask('legacy', b, 'sleep'); // evicts done[1]
  const refused = await b.call('tools/call', { name: 'sleep', arguments: {}, task: {} });
  assert.deepEqual(refused.error, { code: -32603, message: 'Task limit reached', data: { maxTasks: 3 } });
  assert.equal(await statusOf(a, running), 'working');
  await built.server.close();
  await wire.closeTransport();
  assert.deepEqual(built.logger.errors, []);
});

for (const era of ['modern', 'legacy'] as const) {
  test(
    `a finished task no TTL was asked for is kept only the store's retention, its TTL saying so; one whose TTL was asked for keeps it (${label({ era, transport: 'stdio' })})`,
    SHORT,
    async (t) => {
      const built = build({ retentionMs: 40 });
      const wire = await rig(t, { era, transport: 'stdio' }, built);
      const caller = await wire.caller();
      const asked = era === 'legacy' ? await echoed(built, era, caller, 'kept', 60_000) : undefined;
      const brief = await echoed(built, era, caller, 'brief');
      const record = (await built.store.get(brief))!;
      assert.equal(record.ttlMs, Date.parse(record.lastUpdatedAt) - Date.parse(record.createdAt) + 40);
      const got = await caller.call('tasks/get', { taskId: brief });
      assert.equal(got.result[era === 'legacy' ? 'ttl' : 'ttlMs'], record.ttlMs);
      await until('the finished record to go', () => built.store.size === (asked === undefined ? 0 : 1));
      assert.equal((await caller.call('tasks/get', { taskId: brief })).error?.code, -32602);
      if (asked !== undefined) {
        const kept = await caller.call('tasks/get', { taskId: asked });
        assert.equal(kept.result.status, 'completed');
        assert.equal(kept.result.ttl, 60_000);
      }
      await built.server.close();
      await wire.closeTransport();
      assert.deepEqual(built.logger.errors, []);
    },
  );
}
