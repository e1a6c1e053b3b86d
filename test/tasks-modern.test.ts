// The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks, docs/tasks.md) at the wire, on stdio and on real
// HTTP: discovery, which calls become tasks, tasks/get|update|cancel and their refusals, outcomes, input requests
// inside a task, input rounds before one, cancellation, notifications/tasks on listen, owners, Mcp-Name, ctx.task.
// Each test builds its own server; handlers wait on deferreds the test resolves, and the test waits on stored
// transitions (TaskRunner.onStatus), never on time.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  type Context,
  createServer,
  elicitInput,
  inputRequired,
  MissingCapabilityError,
  ProtocolError,
  type Server,
  type ServerOptions,
  urlElicitationRequired,
} from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import {
  createTasksExtension,
  isTerminal,
  MemoryTaskStore,
  type TaskChange,
  type TaskMessage,
  type TaskNotice,
  type TaskRecord,
  type TaskStore,
  type TasksExtension,
} from '../tasks/tasks-extension.ts';
import type { AuthInfo } from '../types.ts';
import { deferred, type Frame, MemoryLogger, untilResponse, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_CAPABILITIES, fail, type Id, LOG_LEVEL, modern, ok, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const TASKS = 'io.modelcontextprotocol/tasks';
const INFO = { name: 'tasks-modern-test', version: '1.0.0' };
const META = { [SERVER_INFO]: INFO };
/** Client capabilities: none, the extension, the extension and elicitation. */
const PLAIN = {};
const DECLARES = { extensions: { [TASKS]: {} } };
const DECLARES_ELICIT = { extensions: { [TASKS]: {} }, elicitation: {} };
/** 128 random bits as base64url, unpadded. */
const TASK_ID = /^[A-Za-z0-9_-]{22}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TTL_MS = 3_600_000; // MemoryTaskStore's default cap
const RETENTION_MS = 60_000; // MemoryTaskStore's default retention of a terminal record no TTL was asked for

/** The TTL a task shows: the cap, and once terminal its retention past the terminal update (docs/tasks.md). */
function shownTtl(status: string, createdAt: string, lastUpdatedAt: string): number {
  if (!['completed', 'failed', 'cancelled'].includes(status)) return TTL_MS;
  return Math.min(TTL_MS, Date.parse(lastUpdatedAt) - Date.parse(createdAt) + RETENTION_MS);
}
const POLL_MS = 1000;
const MISSING_EXTENSION = {
  code: -32021,
  message: 'Missing required client capability',
  data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
};
const FORM = { mode: 'form', message: 'Proceed?', requestedSchema: { type: 'object', properties: {} } };

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A complete 2026-07-28 result: the fields, resultType and the serverInfo stamp. */
function complete(id: Id, fields: Record<string, unknown> = {}): Frame {
  return ok(id, { ...fields, resultType: 'complete', _meta: META });
}

function unknownTask(taskId: string): object {
  return {
    code: -32602,
    message: `Invalid params: params.taskId: no task "${taskId}" (never created, expired, or not this caller's)`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Two transports behind one interface: a request answers its frame (and its HTTP status), a listen its events

interface Reply {
  /** The HTTP status; undefined on stdio. */
  status: number | undefined;
  frame: Frame;
}

interface Listening {
  ack: Frame;
  /** The stream's next notification. */
  next(): Promise<Frame>;
  close(): Promise<void>;
}

interface Wire {
  readonly kind: 'stdio' | 'http';
  request(
    id: Id,
    method: string,
    params: object,
    caps: object,
    headers?: Record<string, string | undefined>,
  ): Promise<Reply>;
  listen(id: Id, notifications: object, caps: object): Promise<Listening>;
  /** Every frame of one exchange, in order, its response last; `meta` adds envelope keys (logLevel, progressToken). */
  exchange(id: Id, method: string, params: object, caps: object, meta: object): Promise<Frame[]>;
  /** Sends notifications/cancelled for a request (stdio only: 2026-07-28 HTTP cancels by disconnecting). */
  cancel(id: Id): void;
  /** A wire speaking for another caller (stdio: another connection; HTTP: another bearer token). */
  peer(): Wire;
  close(): Promise<void>;
}

function frameOf(id: Id, method: string, params: object, caps: object, meta: object = {}): Frame {
  return modern(method, params, id, { [CLIENT_CAPABILITIES]: caps, ...meta });
}

function stdioWire(server: Server): Wire {
  const clients: WireClient[] = [];
  const make = (): Wire => {
    const client = new WireClient(server);
    clients.push(client);
    const cancel = (id: Id): void =>
      client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    return {
      kind: 'stdio',
      async request(id, method, params, caps) {
        client.send(frameOf(id, method, params, caps));
        return { status: undefined, frame: await client.response(id) };
      },
      async listen(id, notifications, caps) {
        const ofStream = (frame: Frame) => !('id' in frame) && frame.params?._meta?.[SUBSCRIPTION_ID] === id;
        client.send(frameOf(id, 'subscriptions/listen', { notifications }, caps));
        const ack = await client.waitFor(ofStream);
        return { ack, next: () => client.waitFor(ofStream), close: async () => cancel(id) };
      },
      async exchange(id, method, params, caps, meta) {
        client.send(frameOf(id, method, params, caps, meta));
        return untilResponse(client, id);
      },
      cancel,
      peer: make,
      close: async () => {
        for (const each of clients.splice(0)) assert.deepEqual(await each.end(), [], 'no frame left unread');
      },
    };
  };
  return make();
}

/** Bearer tokens of the HTTP servers started with auth: two principals. */
const TOKENS: Record<string, AuthInfo> = {
  alice: { subject: 'alice', issuer: 'https://as.example.com', scopes: [] },
  bob: { subject: 'bob', issuer: 'https://as.example.com', scopes: [] },
};

async function httpWire(server: Server, withAuth: boolean): Promise<Wire> {
  const http: HttpServer = await serveHttp(server, {
    port: 0,
    keepAliveMs: 0,
    auth: withAuth
      ? {
          resourceMetadata: {
            resource: 'https://mcp.example.com/mcp',
            authorization_servers: ['https://as.example.com'],
          },
          verifyToken: async (token) => TOKENS[token],
        }
      : undefined,
  });
  const readers: SseReader[] = [];
  const make = (token: string | undefined): Wire => {
    const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    return {
      kind: 'http',
      async request(id, method, params, caps, headers = {}) {
        const frame = frameOf(id, method, params, caps);
        // A correct client mirrors params.taskId of tasks/* in Mcp-Name.
        const taskId = (params as { taskId?: unknown }).taskId;
        const name: Record<string, string> =
          method.startsWith('tasks/') && typeof taskId === 'string' ? { 'mcp-name': taskId } : {};
        const merged: Record<string, string | undefined> = { ...modernHeaders(frame), ...name, ...auth, ...headers };
        const clean: Record<string, string> = {};
        for (const [key, value] of Object.entries(merged)) if (value !== undefined) clean[key] = value;
        const response = await raw(http.url, { headers: clean, body: JSON.stringify(frame) });
        assert.equal(response.headers['content-type'], 'application/json', response.text);
        return { status: response.status, frame: response.json };
      },
      async listen(id, notifications, caps) {
        const frame = frameOf(id, 'subscriptions/listen', { notifications }, caps);
        const response = await fetch(http.url, {
          method: 'POST',
          headers: { ...modernHeaders(frame), ...auth },
          body: JSON.stringify(frame),
        });
        const reader = new SseReader(response);
        readers.push(reader);
        const ack = await reader.message();
        return { ack, next: () => reader.message(), close: () => reader.cancel() };
      },
      async exchange(id, method, params, caps, meta) {
        const frame = frameOf(id, method, params, caps, meta);
        const response = await fetch(http.url, {
          method: 'POST',
          headers: { ...modernHeaders(frame), ...auth },
          body: JSON.stringify(frame),
        });
        assert.equal(response.status, 200);
        if (response.headers.get('content-type') === 'application/json') return [await response.json()];
        return (await new SseReader(response).rest()).map((event) => event.message);
      },
      cancel() {
        assert.fail('2026-07-28 HTTP has no cancel notification');
      },
      peer: () => {
        assert.ok(withAuth, 'another HTTP caller needs a server started with auth');
        return make('bob');
      },
      close: async () => {
        for (const reader of readers.splice(0)) await reader.cancel();
        await http.close();
      },
    };
  };
  return make(withAuth ? 'alice' : undefined);
}

interface Setup {
  server: Server;
  tasks: TasksExtension;
  logger: MemoryLogger;
  wire: Wire;
}

/** A server with the extension installed and the tools `register` adds, served on `kind`; closed after the test. */
async function open(
  t: TestContext,
  kind: Wire['kind'],
  register: (server: Server) => void,
  options: { auth?: boolean; server?: ServerOptions; store?: TaskStore; install?: boolean } = {},
): Promise<Setup> {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger, ...options.server });
  const tasks = createTasksExtension({ store: options.store });
  if (options.install !== false) server.use(tasks);
  register(server);
  const wire = kind === 'stdio' ? stdioWire(server) : await httpWire(server, options.auth === true);
  t.after(async () => {
    await wire.close();
    await server.close();
    await options.store?.close(); // a store given to the extension is the caller's to close
  });
  return { server, tasks, logger, wire };
}

/** Registers `body` once per transport. */
function both(name: string, body: (t: TestContext, kind: Wire['kind']) => Promise<void>): void {
  for (const kind of ['stdio', 'http'] as const) test(`${name} (${kind})`, T, (t) => body(t, kind));
}

function assertStatus(reply: Reply, status: number): void {
  if (reply.status !== undefined) assert.equal(reply.status, status, JSON.stringify(reply.frame));
}

/**
 * Resolves with the task's record once it satisfies `done` (already, or at a later stored transition). Call it
 * before the action that makes the transition.
 */
function reached(tasks: TasksExtension, taskId: string, done: (record: TaskRecord) => boolean): Promise<TaskRecord> {
  return new Promise((resolve, reject) => {
    const off = tasks.runner.onStatus((record) => {
      if (record.taskId !== taskId || !done(record)) return;
      off();
      resolve(record);
    });
    tasks.store.get(taskId).then((record) => {
      if (record === undefined || !done(record)) return;
      off();
      resolve(record);
    }, reject);
  });
}

function status(tasks: TasksExtension, taskId: string, wanted: TaskRecord['status']): Promise<TaskRecord> {
  return reached(tasks, taskId, (record) => record.status === wanted);
}

/** Waits for `gate`, or rejects once the handler's signal aborts. */
function until<T>(gate: Promise<T>, ctx: Context): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    gate.then(resolve, reject).finally(() => ctx.signal.removeEventListener('abort', onAbort));
  });
}

/** Calls `tool` as a declaring client and returns the created task's id (asserting the call made one). */
async function startTask(
  wire: Wire,
  id: Id,
  tool: string,
  caps: object = DECLARES,
  extra: object = {},
): Promise<string> {
  const reply = await wire.request(id, 'tools/call', { name: tool, arguments: {}, ...extra }, caps);
  assertStatus(reply, 200);
  assert.equal(reply.frame.result?.resultType, 'task', JSON.stringify(reply.frame));
  return reply.frame.result.taskId;
}

/** The task's `tasks/get` result. */
async function get(wire: Wire, id: Id, taskId: string, caps: object = DECLARES): Promise<Record<string, any>> {
  const reply = await wire.request(id, 'tasks/get', { taskId }, caps);
  assertStatus(reply, 200);
  assert.equal(reply.frame.id, id);
  assert.ok('result' in reply.frame, JSON.stringify(reply.frame));
  return reply.frame.result;
}

/** What `tasks/get` answers for `record`: the task fields, then `extra` (result, error, inputRequests). */
function detailed(record: TaskRecord, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  Object.assign(task, {
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: shownTtl(record.status, record.createdAt, record.lastUpdatedAt),
    pollIntervalMs: POLL_MS,
  });
  return { ...task, ...extra };
}

/** The task methods with the params each needs besides taskId. */
const TASK_METHODS = [
  ['tasks/get', {}],
  ['tasks/update', { inputResponses: {} }],
  ['tasks/cancel', {}],
] as const;

// ---------------------------------------------------------------------------------------------------------------
// Discovery (2026-07-28 Extensions > Tasks)

both(
  'server/discover lists the extension under capabilities.extensions with empty settings, never capabilities.tasks',
  async (t, kind) => {
    const { wire } = await open(t, kind, () => {});
    const reply = await wire.request('d', 'server/discover', {}, PLAIN);
    assertStatus(reply, 200);
    const { capabilities } = reply.frame.result;
    assert.deepEqual(capabilities.extensions, { [TASKS]: {} });
    assert.equal(Object.hasOwn(capabilities, 'tasks'), false);
  },
);

both('without the extension installed, tasks/* are -32601 and discover lists no extensions', async (t, kind) => {
  const { wire } = await open(t, kind, () => {}, { install: false });
  const discover = await wire.request('d', 'server/discover', {}, DECLARES);
  assert.equal(Object.hasOwn(discover.frame.result.capabilities, 'extensions'), false);
  for (const [method, params] of TASK_METHODS) {
    const reply = await wire.request(method, method, { taskId: 'x', ...params }, DECLARES);
    assertStatus(reply, 404);
    assert.deepEqual(reply.frame, fail(method, { code: -32601, message: 'Method not found', data: method }));
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Which calls become tasks

both(
  'a declaring call of an optional tool that waits answers a task with exactly the task fields, durable at once; released, tasks/get inlines the result',
  async (t, kind) => {
    const gate = deferred();
    const { server, tasks, wire } = await open(t, kind, (s) =>
      s.tool('slow', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return text('done');
      }),
    );
    const reply = await wire.request('c', 'tools/call', { name: 'slow', arguments: {} }, DECLARES);
    assertStatus(reply, 200);
    const created = reply.frame.result;
    assert.match(created.taskId, TASK_ID);
    assert.match(created.createdAt, ISO);
    assert.deepEqual(reply.frame, {
      jsonrpc: '2.0',
      id: 'c',
      result: {
        resultType: 'task',
        taskId: created.taskId,
        status: 'working',
        createdAt: created.createdAt,
        lastUpdatedAt: created.createdAt,
        ttlMs: TTL_MS,
        pollIntervalMs: POLL_MS,
        _meta: META,
      },
    });
    // The call's own exchange is over (HTTP: its connection released) while the task runs on.
    assert.equal(server.metrics().connections, kind === 'http' ? 0 : 1);
    assert.equal(tasks.runner.active, 1);
    // Durable before the answer: the very next request finds it (on HTTP, another exchange).
    const taskId: string = created.taskId;
    const working = await tasks.store.get(taskId);
    assert.ok(working !== undefined);
    assert.deepEqual(await get(wire, 'g1', taskId), { ...detailed(working), resultType: 'complete', _meta: META });
    assert.equal((await get(wire, 'g1b', taskId)).status, 'working');

    const completed = status(tasks, taskId, 'completed');
    gate.resolve();
    const record = await completed;
    assert.ok(record.lastUpdatedAt > created.lastUpdatedAt);
    assert.deepEqual(await wire.request('g2', 'tasks/get', { taskId }, DECLARES), {
      status: kind === 'http' ? 200 : undefined,
      frame: complete('g2', detailed(record, { result: text('done') })),
    });
    assert.equal(tasks.runner.active, 0);
  },
);

both(
  'a declaring call whose handler returns at once is answered in the request, and no task is stored',
  async (t, kind) => {
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('quick', { taskSupport: 'optional' }, () => text('at once')),
    );
    const reply = await wire.request('q', 'tools/call', { name: 'quick', arguments: {} }, DECLARES);
    assertStatus(reply, 200);
    assert.deepEqual(reply.frame, complete('q', text('at once')));
    assert.equal((tasks.store as { size?: number }).size, 0);
    assert.equal(tasks.runner.active, 0);
  },
);

both(
  'a required tool called without the extension declared is -32021 naming it, and its handler never runs',
  async (t, kind) => {
    let runs = 0;
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('must', { taskSupport: 'required' }, () => {
        runs++;
        return text('ran');
      }),
    );
    // Not declaring: nothing, the 2025 capability, no entry for the id, an entry that is not an object.
    for (const [label, caps] of [
      ['none', PLAIN],
      ['legacy tasks', { tasks: { requests: { tools: { call: {} } } } }],
      ['other extensions', { extensions: { 'example.com/other': {} } }],
      ['not an object', { extensions: { [TASKS]: true } }],
    ] as const) {
      const reply = await wire.request(label, 'tools/call', { name: 'must', arguments: {} }, caps);
      assertStatus(reply, 400);
      assert.deepEqual(reply.frame, fail(label, MISSING_EXTENSION), label);
    }
    assert.equal(runs, 0);
    assert.equal(tasks.runner.active, 0);
  },
);

both('an optional tool called without the extension declared runs inline even when it waits', async (t, kind) => {
  const started = deferred();
  const gate = deferred();
  const { tasks, wire } = await open(t, kind, (server) =>
    server.tool('slow', { taskSupport: 'optional' }, async (_args, ctx) => {
      started.resolve();
      await until(gate.promise, ctx);
      return text('inline');
    }),
  );
  const pending = wire.request('i', 'tools/call', { name: 'slow', arguments: {} }, PLAIN);
  await started.promise;
  assert.equal(tasks.runner.active, 0, 'no task was prepared');
  gate.resolve();
  const reply = await pending;
  assertStatus(reply, 200);
  assert.deepEqual(reply.frame, complete('i', text('inline')));
  assert.equal((tasks.store as { size?: number }).size, 0);
});

// ---------------------------------------------------------------------------------------------------------------
// tasks/get, tasks/update, tasks/cancel: the gate, the id, the methods 2026-07-28 does not have

both(
  'tasks/get, tasks/update and tasks/cancel from a non-declaring client are -32021 before the id is looked up',
  async (t, kind) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return text('done');
      }),
    );
    // Declared on an earlier request of the same wire: each request is judged by its own capabilities.
    const taskId = await startTask(wire, 'c', 'job');
    for (const [method, params] of TASK_METHODS) {
      for (const id of ['no-such-task', taskId]) {
        const label = `${method} ${id === taskId ? 'existing' : 'unknown'}`;
        const reply = await wire.request(label, method, { taskId: id, ...params }, PLAIN);
        assertStatus(reply, 400);
        assert.deepEqual(reply.frame, fail(label, MISSING_EXTENSION), label);
      }
    }
    assert.equal((await tasks.store.get(taskId))?.status, 'working', 'the refused cancel did nothing');
    gate.resolve();
  },
);

both(
  'an unknown task id from a declaring client is -32602 on tasks/get, tasks/update and tasks/cancel',
  async (t, kind) => {
    const { wire } = await open(t, kind, () => {});
    for (const [method, params] of TASK_METHODS) {
      const reply = await wire.request(method, method, { taskId: 'no-such-task', ...params }, DECLARES);
      assertStatus(reply, 200);
      assert.deepEqual(reply.frame, fail(method, unknownTask('no-such-task')), method);
    }
  },
);

both('a taskId that is not a string is -32602 naming params.taskId', async (t, kind) => {
  const { wire } = await open(t, kind, () => {});
  const error = { code: -32602, message: 'Invalid params: params.taskId must be a string' };
  for (const [method, params] of TASK_METHODS) {
    for (const [label, taskId] of [
      ['number', 42],
      ['absent', undefined],
      ['null', null],
    ] as const) {
      const id = `${method} ${label}`;
      const reply = await wire.request(id, method, { taskId, ...params }, DECLARES);
      assertStatus(reply, 200);
      assert.deepEqual(reply.frame, fail(id, error), id);
    }
  }
});

both('tasks/result and tasks/list are -32601 on 2026-07-28', async (t, kind) => {
  const { wire } = await open(t, kind, () => {});
  for (const method of ['tasks/result', 'tasks/list']) {
    const reply = await wire.request(method, method, { taskId: 'x' }, DECLARES);
    assertStatus(reply, 404);
    assert.deepEqual(reply.frame, fail(method, { code: -32601, message: 'Method not found', data: method }));
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Outcomes

/** A server whose one tool waits for the gate, then settles as `settle` does; the task's final record. */
async function outcome(
  t: TestContext,
  kind: Wire['kind'],
  settle: () => unknown,
  options: ServerOptions = {},
): Promise<{ record: TaskRecord; got: Record<string, any>; logger: MemoryLogger }> {
  const gate = deferred();
  const { tasks, wire, logger } = await open(
    t,
    kind,
    (server) =>
      server.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return settle() as never;
      }),
    { server: options },
  );
  const taskId = await startTask(wire, 'c', 'job');
  const settled = reached(tasks, taskId, (record) => record.status !== 'working');
  gate.resolve();
  const record = await settled;
  return { record, got: await get(wire, 'g', taskId), logger };
}

both('an isError tool result completes the task with result.isError true', async (t, kind) => {
  const { record, got, logger } = await outcome(t, kind, () => ({ ...text('no such file'), isError: true }));
  assert.equal(record.status, 'completed');
  assert.deepEqual(got, {
    ...detailed(record, { result: { ...text('no such file'), isError: true } }),
    resultType: 'complete',
    _meta: META,
  });
  assert.deepEqual(logger.errors, []);
});

both(
  'a ProtocolError thrown inside the task fails it with exactly that error inlined and no result',
  async (t, kind) => {
    const { record, got } = await outcome(t, kind, () => {
      throw new ProtocolError(-32042, 'Quota exhausted', { limit: 3 });
    });
    assert.equal(record.status, 'failed');
    assert.equal(got.statusMessage, 'Quota exhausted');
    assert.equal(Object.hasOwn(got, 'result'), false);
    assert.deepEqual(got, {
      ...detailed(record, { error: { code: -32042, message: 'Quota exhausted', data: { limit: 3 } } }),
      resultType: 'complete',
      _meta: META,
    });
  },
);

both(
  'another throw inside the task is the tool failure result (completed, isError), its detail only logged',
  async (t, kind) => {
    const { record, got, logger } = await outcome(t, kind, () => {
      throw new Error('disk on fire at /secret/path');
    });
    // As in the request (a tool's throw is its execution failure), the generic text and nothing of the detail.
    assert.equal(record.status, 'completed');
    assert.deepEqual(got, {
      ...detailed(record, { result: { ...text('Tool execution failed'), isError: true } }),
      resultType: 'complete',
      _meta: META,
    });
    assert.doesNotMatch(JSON.stringify(got), /secret/);
    assert.deepEqual(
      logger.errors.map((entry) => [entry.message, (entry.error as Error).message]),
      [["tool 'job' failed", 'disk on fire at /secret/path']],
    );
  },
);

both(
  'with rethrow, another throw inside the task fails it -32603 Internal error, its detail only logged',
  async (t, kind) => {
    const { record, got, logger } = await outcome(
      t,
      kind,
      () => {
        throw new Error('disk on fire at /secret/path');
      },
      { rethrow: true },
    );
    assert.equal(record.status, 'failed');
    assert.deepEqual(got, {
      ...detailed(record, { error: { code: -32603, message: 'Internal error' } }),
      resultType: 'complete',
      _meta: META,
    });
    assert.doesNotMatch(JSON.stringify(got), /secret/);
    assert.deepEqual(
      logger.errors.map((entry) => [entry.message, (entry.error as Error).message]),
      [[`task ${record.taskId} failed`, 'disk on fire at /secret/path']],
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Input inside the task (tasks/update)

both(
  'ctx.elicit inside the task parks it input_required under input-1; an unknown key is ignored; answering it completes with the answer',
  async (t, kind) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        const answer = await ctx.elicit(FORM);
        return text(`answered ${JSON.stringify(answer)}`);
      }),
    );
    const taskId = await startTask(wire, 'c', 'ask', DECLARES_ELICIT);
    const parked = status(tasks, taskId, 'input_required');
    gate.resolve();
    const record = await parked;
    const asking = {
      ...detailed(record, { inputRequests: { 'input-1': { method: 'elicitation/create', params: FORM } } }),
      resultType: 'complete',
      _meta: META,
    };
    assert.deepEqual(await get(wire, 'g1', taskId), asking);

    // A key that is not outstanding is ignored without being looked at, even a value that is no answer at all.
    const ignored = await wire.request('u1', 'tasks/update', { taskId, inputResponses: { ignored: true } }, DECLARES);
    assertStatus(ignored, 200);
    assert.deepEqual(ignored.frame, complete('u1'));
    assert.deepEqual(await get(wire, 'g2', taskId), asking, 'still parked, unchanged');

    const done = status(tasks, taskId, 'completed');
    const answer = { action: 'accept', content: { go: true } };
    const update = await wire.request(
      'u2',
      'tasks/update',
      { taskId, inputResponses: { 'input-1': answer } },
      DECLARES,
    );
    assertStatus(update, 200);
    assert.deepEqual(update.frame, complete('u2'));
    const final = await done;
    assert.deepEqual(await get(wire, 'g3', taskId), {
      ...detailed(final, { result: text(`answered ${JSON.stringify(answer)}`) }),
      resultType: 'complete',
      _meta: META,
    });
  },
);

both(
  'inputRequired with two keys inside the task lists both; answering one leaves the other; the re-run sees its own keys',
  async (t, kind) => {
    const gate = deferred();
    const seen: unknown[] = [];
    const first = { ...FORM, message: 'First?' };
    const second = { ...FORM, message: 'Second?' };
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('pair', { taskSupport: 'optional' }, async (_args, ctx) => {
        seen.push(ctx.inputResponses);
        if (ctx.inputResponses === undefined) {
          await until(gate.promise, ctx);
          return inputRequired({ first: elicitInput(first), second: elicitInput(second) });
        }
        return text(`got ${JSON.stringify(ctx.inputResponses)}`);
      }),
    );
    const taskId = await startTask(wire, 'c', 'pair', DECLARES_ELICIT);
    const listed = reached(tasks, taskId, (record) => Object.keys(record.inputRequests ?? {}).length === 2);
    gate.resolve();
    const asking = await listed;
    assert.deepEqual(await get(wire, 'g1', taskId), {
      ...detailed(asking, {
        inputRequests: {
          'input-1': { method: 'elicitation/create', params: first },
          'input-2': { method: 'elicitation/create', params: second },
        },
      }),
      resultType: 'complete',
      _meta: META,
    });

    const one = { action: 'accept', content: { n: 1 } };
    assert.deepEqual(
      (await wire.request('u1', 'tasks/update', { taskId, inputResponses: { 'input-1': one } }, DECLARES)).frame,
      complete('u1'),
    );
    // The ack follows the stored transition: the next tasks/get shows only the other key.
    const left = await get(wire, 'g2', taskId);
    assert.equal(left.status, 'input_required');
    assert.deepEqual(left.inputRequests, { 'input-2': { method: 'elicitation/create', params: second } });

    const done = status(tasks, taskId, 'completed');
    const two = { action: 'accept', content: { n: 2 } };
    assert.deepEqual(
      (await wire.request('u2', 'tasks/update', { taskId, inputResponses: { 'input-2': two } }, DECLARES)).frame,
      complete('u2'),
    );
    const final = await done;
    const responses = { first: one, second: two };
    assert.equal(seen.length, 2);
    assert.equal(seen[0], undefined);
    assert.deepEqual({ ...(seen[1] as object) }, responses, "keyed by the handler's own keys");
    assert.deepEqual(await get(wire, 'g3', taskId), {
      ...detailed(final, { result: text(`got ${JSON.stringify(responses)}`) }),
      resultType: 'complete',
      _meta: META,
    });
  },
);

/** A MemoryTaskStore whose updates wait while `hold` is set, telling `updating` when one is waiting. */
class HeldStore extends MemoryTaskStore {
  hold: Promise<void> | undefined;
  readonly updating = deferred();

  override async update(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    if (this.hold !== undefined) {
      this.updating.resolve();
      await this.hold;
    }
    return super.update(taskId, change);
  }
}

both('the tasks/update ack comes only once the transition it causes is stored', async (t, kind) => {
  const gate = deferred();
  const store = new HeldStore();
  const { tasks, wire } = await open(
    t,
    kind,
    (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return text(JSON.stringify(await ctx.elicit(FORM)));
      }),
    { store },
  );
  const taskId = await startTask(wire, 'c', 'ask', DECLARES_ELICIT);
  const parked = status(tasks, taskId, 'input_required');
  gate.resolve();
  await parked;
  const hold = deferred();
  store.hold = hold.promise;
  let acked = false;
  const answer = { action: 'accept', content: {} };
  const update = wire.request('u', 'tasks/update', { taskId, inputResponses: { 'input-1': answer } }, DECLARES);
  void update.then(() => {
    acked = true;
  });
  const done = status(tasks, taskId, 'completed');
  try {
    await store.updating.promise;
    // The write is held: a tasks/get sent now is answered first, from the record as it was.
    const during = await get(wire, 'g1', taskId);
    assert.equal(during.status, 'input_required');
    assert.equal(acked, false, 'no ack while its transition is not stored');
  } finally {
    store.hold = undefined;
    hold.resolve();
  }
  assert.deepEqual((await update).frame, complete('u'));
  const record = await done;
  assert.deepEqual(await get(wire, 'g2', taskId), {
    ...detailed(record, { result: text(JSON.stringify(answer)) }),
    resultType: 'complete',
    _meta: META,
  });
});

both(
  'an answer to an outstanding key that is not an object is -32602 naming the key, and the task stays parked',
  async (t, kind) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return text(JSON.stringify(await ctx.elicit(FORM)));
      }),
    );
    const taskId = await startTask(wire, 'c', 'ask', DECLARES_ELICIT);
    const parked = status(tasks, taskId, 'input_required');
    gate.resolve();
    const record = await parked;
    for (const [id, value] of [
      ['text', 'yes'],
      ['null', null],
      ['array', [{ action: 'accept' }]],
    ] as const) {
      const reply = await wire.request(id, 'tasks/update', { taskId, inputResponses: { 'input-1': value } }, DECLARES);
      assertStatus(reply, 200);
      assert.deepEqual(
        reply.frame,
        fail(id, { code: -32602, message: 'Invalid params: params.inputResponses["input-1"] must be an object' }),
        id,
      );
    }
    const notObject = await wire.request('whole', 'tasks/update', { taskId, inputResponses: 'yes' }, DECLARES);
    assert.deepEqual(
      notObject.frame,
      fail('whole', { code: -32602, message: 'Invalid params: params.inputResponses must be an object' }),
    );
    assert.deepEqual(await tasks.store.get(taskId), record, 'nothing was answered');
  },
);

both(
  'ctx.elicit inside a task whose request did not declare elicitation rejects; uncaught, the task completes as the tool failure',
  async (t, kind) => {
    const gate = deferred();
    const rejected = deferred<unknown>();
    const { tasks, wire, logger } = await open(t, kind, (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        try {
          return text(JSON.stringify(await ctx.elicit(FORM)));
        } catch (error) {
          rejected.resolve(error);
          throw error;
        }
      }),
    );
    const taskId = await startTask(wire, 'c', 'ask', DECLARES);
    const settled = reached(tasks, taskId, (record) => record.status !== 'working');
    gate.resolve();
    const record = await settled;
    assert.equal(record.status, 'completed', 'never input_required');
    const error = await rejected.promise;
    assert.ok(error instanceof MissingCapabilityError);
    assert.equal(error.capability, 'elicitation');
    assert.deepEqual(await get(wire, 'g', taskId), {
      ...detailed(record, { result: { ...text('Tool execution failed'), isError: true } }),
      resultType: 'complete',
      _meta: META,
    });
    assert.deepEqual(
      logger.errors.map((entry) => entry.error),
      [error],
    );
  },
);

both(
  'inputRequired inside a task whose request did not declare elicitation fails it -32021 naming elicitation',
  async (t, kind) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return inputRequired({ confirm: elicitInput(FORM) });
      }),
    );
    const taskId = await startTask(wire, 'c', 'ask', DECLARES);
    const settled = reached(tasks, taskId, (record) => record.status !== 'working');
    gate.resolve();
    const record = await settled;
    const error = {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { elicitation: {} } },
    };
    assert.deepEqual(await get(wire, 'g', taskId), {
      ...detailed(record, { error }),
      resultType: 'complete',
      _meta: META,
    });
    assert.equal(record.status, 'failed');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Input rounds before the task (MRTR in the request)

both(
  'a required tool asking for input at once answers input_required with no task; the retry with the answer becomes a task whose result reflects it',
  async (t, kind) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('named', { taskSupport: 'required' }, async (_args, ctx) => {
        const name = (ctx.inputResponses?.user?.content as { name?: string } | undefined)?.name;
        if (name === undefined) return inputRequired({ user: elicitInput(FORM) }, { round: 1 });
        await until(gate.promise, ctx);
        return text(`Hello ${name}, state ${JSON.stringify(ctx.requestState)}`);
      }),
    );
    const first = await wire.request('r1', 'tools/call', { name: 'named', arguments: {} }, DECLARES_ELICIT);
    assertStatus(first, 200);
    const { requestState } = first.frame.result;
    assert.equal(typeof requestState, 'string');
    assert.deepEqual(first.frame, {
      jsonrpc: '2.0',
      id: 'r1',
      result: {
        resultType: 'input_required',
        inputRequests: { user: { method: 'elicitation/create', params: FORM } },
        requestState,
        _meta: META,
      },
    });
    assert.equal((tasks.store as { size?: number }).size, 0, 'no task for an input round');
    assert.equal(tasks.runner.active, 0);

    const second = await wire.request(
      'r2',
      'tools/call',
      {
        name: 'named',
        arguments: {},
        inputResponses: { user: { action: 'accept', content: { name: 'Ada' } } },
        requestState,
      },
      DECLARES_ELICIT,
    );
    assertStatus(second, 200);
    const taskId: string = second.frame.result.taskId;
    assert.match(taskId, TASK_ID);
    const created = await tasks.store.get(taskId);
    assert.ok(created !== undefined);
    // The task shape carries no requestState (nor inputRequests): those belong to the input round.
    assert.deepEqual(second.frame, ok('r2', { resultType: 'task', ...detailed(created), _meta: META }));
    const done = status(tasks, taskId, 'completed');
    gate.resolve();
    const record = await done;
    assert.deepEqual(await get(wire, 'g', taskId), {
      ...detailed(record, { result: text('Hello Ada, state {"round":1}') }),
      resultType: 'complete',
      _meta: META,
    });
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Cancellation

both(
  'tasks/cancel of a running task acks, the next tasks/get says cancelled, and the handler sees its signal abort',
  async (t, kind) => {
    let aborted = false;
    const observed = deferred<unknown>();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('forever', { taskSupport: 'optional' }, async (_args, ctx) => {
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener(
            'abort',
            () => {
              aborted = true;
              resolve();
            },
            { once: true },
          );
        });
        observed.resolve(ctx.signal.reason); // the handler goes on past the abort, and answers late
        return text('late');
      }),
    );
    const taskId = await startTask(wire, 'c', 'forever');
    const cancel = await wire.request('x', 'tasks/cancel', { taskId }, DECLARES);
    assertStatus(cancel, 200);
    assert.deepEqual(cancel.frame, complete('x'));
    assert.equal(aborted, true, 'aborted before the ack');
    assert.equal(tasks.runner.active, 0);
    const got = await get(wire, 'g', taskId);
    const record = await tasks.store.get(taskId);
    assert.ok(record !== undefined);
    assert.equal(record.status, 'cancelled');
    assert.deepEqual(got, { ...detailed(record), resultType: 'complete', _meta: META });
    await observed.promise;
    assert.deepEqual(await get(wire, 'g2', taskId), got, 'the late answer changes nothing');
  },
);

both('tasks/cancel of a terminal task acks the same and leaves it as it was', async (t, kind) => {
  const gate = deferred();
  const { tasks, wire } = await open(t, kind, (server) =>
    server.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
      await until(gate.promise, ctx);
      return text('finished');
    }),
  );
  const taskId = await startTask(wire, 'c', 'job');
  const done = status(tasks, taskId, 'completed');
  gate.resolve();
  const record = await done;
  const cancel = await wire.request('x', 'tasks/cancel', { taskId }, DECLARES);
  assertStatus(cancel, 200);
  assert.deepEqual(cancel.frame, complete('x'));
  assert.deepEqual(await get(wire, 'g', taskId), {
    ...detailed(record, { result: text('finished') }),
    resultType: 'complete',
    _meta: META,
  });
});

// ---------------------------------------------------------------------------------------------------------------
// notifications/tasks on subscriptions/listen

both(
  'a listen with taskIds gets each transition of the task as notifications/tasks with the detailed task',
  async (t, kind) => {
    const gates = [deferred(), deferred()];
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('steps', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gates[0]!.promise, ctx);
        await ctx.task!.setStatusMessage('halfway');
        const answer = await ctx.elicit(FORM);
        await until(gates[1]!.promise, ctx);
        return text(`with ${JSON.stringify(answer)}`);
      }),
    );
    const taskId = await startTask(wire, 'c', 'steps', DECLARES_ELICIT);
    const listen = await wire.listen('L', { taskIds: [taskId] }, DECLARES);
    assert.deepEqual(listen.ack, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 'L' }, notifications: { taskIds: [taskId] } },
    });
    const event = (record: TaskRecord, extra: Record<string, unknown> = {}): Frame => ({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { ...detailed(record, extra), _meta: { [SUBSCRIPTION_ID]: 'L' } },
    });
    const transitions: TaskRecord[] = [];
    tasks.runner.onStatus((record) => transitions.push(record));

    gates[0]!.resolve();
    const messaged = await listen.next();
    assert.deepEqual(messaged, event(transitions[0]!));
    assert.equal(messaged.params.status, 'working');
    assert.equal(messaged.params.statusMessage, 'halfway');
    const parked = await listen.next();
    assert.deepEqual(
      parked,
      event(transitions[1]!, { inputRequests: { 'input-1': { method: 'elicitation/create', params: FORM } } }),
    );
    assert.equal(parked.params.status, 'input_required');

    const answer = { action: 'accept', content: {} };
    await wire.request('u', 'tasks/update', { taskId, inputResponses: { 'input-1': answer } }, DECLARES);
    const resumed = await listen.next();
    assert.deepEqual(resumed, event(transitions[2]!));
    assert.equal(resumed.params.status, 'working');
    gates[1]!.resolve();
    const finished = await listen.next();
    assert.deepEqual(finished, event(transitions[3]!, { result: text(`with ${JSON.stringify(answer)}`) }));
    assert.equal(finished.params.status, 'completed');
    assert.equal(transitions.length, 4);
    await listen.close();
  },
);

both('asking taskIds in a listen without declaring the extension is -32021', async (t, kind) => {
  const { wire } = await open(t, kind, () => {});
  const reply = await wire.request('L', 'subscriptions/listen', { notifications: { taskIds: ['any'] } }, PLAIN);
  assertStatus(reply, 400);
  assert.deepEqual(reply.frame, fail('L', MISSING_EXTENSION));
});

both(
  "another caller's task is unknown to it, and its transitions never reach that caller's listen",
  async (t, kind) => {
    const gates = { mine: deferred(), theirs: deferred() };
    const { tasks, wire } = await open(
      t,
      kind,
      (server) =>
        server.tool('job', { taskSupport: 'optional', inputSchema: { type: 'object' } }, async (args, ctx) => {
          await until(gates[(args as { who: 'mine' | 'theirs' }).who].promise, ctx);
          return text(`done ${(args as { who: string }).who}`);
        }),
      { auth: true },
    );
    const other = wire.peer();
    const mine = await startTask(wire, 'c1', 'job', DECLARES, { arguments: { who: 'mine' } });
    const theirs = await startTask(other, 'c2', 'job', DECLARES, { arguments: { who: 'theirs' } });
    for (const [method, params] of TASK_METHODS) {
      const reply = await other.request(method, method, { taskId: mine, ...params }, DECLARES);
      assertStatus(reply, 200);
      assert.deepEqual(reply.frame, fail(method, unknownTask(mine)), `${method}: as an unknown task`);
    }
    const myListen = await wire.listen('L1', { taskIds: [mine] }, DECLARES);
    const theirListen = await other.listen('L2', { taskIds: [mine, theirs] }, DECLARES);
    assert.deepEqual(theirListen.ack.params.notifications, { taskIds: [mine, theirs] });

    const myDone = status(tasks, mine, 'completed');
    gates.mine.resolve();
    await myDone;
    const mineEvent = await myListen.next();
    assert.equal(mineEvent.params.taskId, mine);
    assert.equal(mineEvent.params.status, 'completed');
    // Published after mine: if mine had been delivered to the other caller, it would come first.
    gates.theirs.resolve();
    const theirEvent = await theirListen.next();
    assert.equal(theirEvent.params.taskId, theirs);
    assert.equal(theirEvent.params.status, 'completed');
    assert.deepEqual(theirEvent.params.result, text('done theirs'));
    assert.equal((await get(wire, 'g', mine)).status, 'completed', 'the other caller cancelled nothing');
    await myListen.close();
    await theirListen.close();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// HTTP: Mcp-Name mirrors params.taskId (2026-07-28 Streamable HTTP, Request Metadata)

test(
  'on HTTP, Mcp-Name must equal params.taskId on tasks/get, tasks/update and tasks/cancel (400 -32020)',
  T,
  async (t) => {
    const gate = deferred();
    const { tasks, wire } = await open(t, 'http', (server) =>
      server.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        return text('done');
      }),
    );
    const taskId = await startTask(wire, 'c', 'job');
    for (const [method, params] of TASK_METHODS) {
      const wrong = await wire.request('w', method, { taskId, ...params }, DECLARES, { 'mcp-name': 'another-task' });
      assert.equal(wrong.status, 400);
      assert.deepEqual(
        wrong.frame,
        fail('w', {
          code: -32020,
          message: `Header mismatch: Mcp-Name header value 'another-task' does not match body value '${taskId}'`,
        }),
        method,
      );
      const missing = await wire.request('m', method, { taskId, ...params }, DECLARES, { 'mcp-name': undefined });
      assert.equal(missing.status, 400);
      assert.deepEqual(
        missing.frame,
        fail('m', { code: -32020, message: 'Header mismatch: Mcp-Name header is required' }),
      );
    }
    assert.equal((await tasks.store.get(taskId))?.status, 'working', 'no refused request reached the task');
    const right = await wire.request('r', 'tasks/get', { taskId }, DECLARES, { 'mcp-name': taskId });
    assert.equal(right.status, 200);
    assert.equal(right.frame.result.taskId, taskId);
    gate.resolve();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The handler's view: ctx.task

both(
  'ctx.task inside a task carries the created id and its status message shows in tasks/get; an inline call has none',
  async (t, kind) => {
    const gate = deferred();
    const messaged = deferred();
    const seen: (string | undefined)[] = [];
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('who', { taskSupport: 'optional' }, async (_args, ctx) => {
        seen.push(ctx.task?.taskId);
        if (ctx.task === undefined) return text('inline');
        await until(gate.promise, ctx);
        await ctx.task.setStatusMessage('crunching');
        messaged.resolve();
        return new Promise<never>(() => {}); // runs until the server closes
      }),
    );
    const taskId = await startTask(wire, 'c', 'who');
    assert.deepEqual(seen, [taskId]);
    gate.resolve();
    await messaged.promise;
    const got = await get(wire, 'g', taskId);
    assert.equal(got.status, 'working');
    assert.equal(got.statusMessage, 'crunching');
    assert.ok(got.lastUpdatedAt > got.createdAt);

    const inline = await wire.request('i', 'tools/call', { name: 'who', arguments: {} }, PLAIN);
    assert.deepEqual(inline.frame, complete('i', text('inline')));
    assert.deepEqual(seen, [taskId, undefined]);
    assert.equal(tasks.runner.active, 1);
  },
);

both(
  "log and progress from a task's handler go with its tools/call until the task is answered, then nowhere",
  async (t, kind) => {
    const gate = deferred();
    const after = deferred();
    const finish = deferred();
    const { tasks, wire, logger } = await open(t, kind, (server) =>
      server.tool('chatty', { taskSupport: 'optional' }, async (_args, ctx) => {
        ctx.log('info', 'before');
        ctx.progress(1, 2, 'before');
        await until(gate.promise, ctx);
        ctx.log('info', 'after');
        ctx.progress(2, 2, 'after');
        after.resolve();
        await until(finish.promise, ctx);
        return text('quiet');
      }),
    );
    const frames = await wire.exchange('c', 'tools/call', { name: 'chatty', arguments: {} }, DECLARES, {
      [LOG_LEVEL]: 'debug',
      progressToken: 'pt',
    });
    assert.equal(frames.length, 3, JSON.stringify(frames));
    assert.deepEqual(frames.slice(0, 2), [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'pt', progress: 1, total: 2, message: 'before' },
      },
    ]);
    const taskId: string = frames[2].result.taskId;
    assert.equal(frames[2].result.resultType, 'task');
    gate.resolve();
    await after.promise;
    // Anything the handler wrote would come before this probe's answer (stdio) or nowhere (HTTP: the POST is over).
    const probe = await wire.exchange('p', 'server/discover', {}, PLAIN, {});
    assert.deepEqual(
      probe.map((frame) => frame.id),
      ['p'],
    );
    const done = status(tasks, taskId, 'completed');
    finish.resolve();
    await done;
    assert.deepEqual(logger.errors, []);
  },
);

test('on stdio, notifications/cancelled for the tools/call that made a task does not cancel the task', T, async (t) => {
  const gate = deferred();
  const { tasks, wire } = await open(t, 'stdio', (server) =>
    server.tool('job', { taskSupport: 'optional' }, async (_args, ctx) => {
      await until(gate.promise, ctx);
      return text('done');
    }),
  );
  const taskId = await startTask(wire, 'c', 'job');
  wire.cancel('c');
  // Frames are served in order: this tasks/get comes after the cancel notification.
  assert.equal((await get(wire, 'g1', taskId)).status, 'working');
  const done = status(tasks, taskId, 'completed');
  gate.resolve();
  const record = await done;
  assert.deepEqual(await get(wire, 'g2', taskId), {
    ...detailed(record, { result: text('done') }),
    resultType: 'complete',
    _meta: META,
  });
});

both(
  "tasks/cancel of a task waiting for input drops its input requests and rejects the handler's elicit",
  async (t, kind) => {
    const gate = deferred();
    const rejected = deferred<unknown>();
    const { tasks, wire } = await open(t, kind, (server) =>
      server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
        await until(gate.promise, ctx);
        try {
          return text(JSON.stringify(await ctx.elicit(FORM)));
        } catch (error) {
          rejected.resolve(error);
          throw error;
        }
      }),
    );
    const taskId = await startTask(wire, 'c', 'ask', DECLARES_ELICIT);
    const parked = status(tasks, taskId, 'input_required');
    gate.resolve();
    await parked;
    assert.deepEqual((await wire.request('x', 'tasks/cancel', { taskId }, DECLARES)).frame, complete('x'));
    await rejected.promise;
    const record = await tasks.store.get(taskId);
    assert.ok(record !== undefined);
    assert.equal(record.status, 'cancelled');
    assert.deepEqual(await get(wire, 'g', taskId), { ...detailed(record), resultType: 'complete', _meta: META });
    // The key is no longer outstanding: an answer to it is ignored.
    const late = await wire.request(
      'u',
      'tasks/update',
      { taskId, inputResponses: { 'input-1': { action: 'accept', content: {} } } },
      DECLARES,
    );
    assert.deepEqual(late.frame, complete('u'));
    assert.equal((await tasks.store.get(taskId))?.status, 'cancelled');
  },
);

test('a task whose handler keeps asking for input ends completed with a tool failure after 8 rounds', T, async (t) => {
  const server = createServer(INFO, { logger: new MemoryLogger() });
  const tasks = createTasksExtension();
  server.use(tasks);
  let runs = 0;
  server.tool('endless', { taskSupport: 'optional' }, async () => {
    runs++;
    await new Promise((resolve) => setTimeout(resolve, 0)); // it waits: the call becomes a task
    return inputRequired({ again: elicitInput(FORM) });
  });
  t.after(() => server.close());
  // Every stored transition, in order, heard from before the call (none can slip past).
  const transitions: TaskRecord[] = [];
  const waiting: ((record: TaskRecord) => void)[] = [];
  tasks.runner.onStatus((record) => (waiting.shift() ?? ((r) => transitions.push(r)))(record));
  const next = (): Promise<TaskRecord> =>
    transitions.length > 0 ? Promise.resolve(transitions.shift()!) : new Promise((resolve) => waiting.push(resolve));
  const client = new WireClient(server);
  client.send(frameOf(1, 'tools/call', { name: 'endless', arguments: {} }, DECLARES_ELICIT));
  const taskId = (await client.response(1)).result.taskId as string;
  for (let round = 1; round <= 8; round++) {
    const parked = await next();
    assert.equal(parked.status, 'input_required');
    const [key] = Object.keys(parked.inputRequests ?? {});
    const id = 10 + round;
    client.send(frameOf(id, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept' } } }, DECLARES));
    assert.deepEqual(await client.response(id), complete(id));
    assert.equal((await next()).status, 'working');
  }
  const done = await next();
  assert.equal(done.status, 'completed');
  assert.equal(runs, 9, 'the first run and eight re-runs');
  assert.deepEqual(done.result, {
    content: [{ type: 'text', text: 'The task needed more than 8 rounds of client input' }],
    isError: true,
  });
  assert.deepEqual(await client.end(), []);
});

test(
  'a task whose handler needs a URL elicitation first parks it as an input request (never -32042 on 2026-07-28), then completes',
  T,
  async (t) => {
    const server = createServer(INFO, { logger: new MemoryLogger() });
    const tasks = createTasksExtension();
    server.use(tasks);
    const link = { elicitationId: 'link-1', url: 'https://example.com/connect', message: 'Connect' };
    server.tool('connect', { taskSupport: 'optional' }, async (_args, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 0)); // it waits: the call becomes a task
      if (ctx.inputResponses?.['link-1']?.action !== 'accept') throw urlElicitationRequired([link]);
      return text('connected');
    });
    t.after(() => server.close());
    const client = new WireClient(server);
    const caps = { extensions: { [TASKS]: {} }, elicitation: { url: {} } };
    client.send(frameOf(1, 'tools/call', { name: 'connect', arguments: {} }, caps));
    const taskId = (await client.response(1)).result.taskId as string;
    const parked = await status(tasks, taskId, 'input_required');
    const [key] = Object.keys(parked.inputRequests ?? {});
    assert.deepEqual(parked.inputRequests, {
      [key!]: { method: 'elicitation/create', params: { mode: 'url', message: link.message, url: link.url } },
    });
    client.send(frameOf(2, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept' } } }, DECLARES));
    assert.deepEqual(await client.response(2), complete(2));
    assert.deepEqual((await status(tasks, taskId, 'completed')).result, text('connected'));
    assert.deepEqual(await client.end(), []);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// A store shared by processes (TaskStore.send and receive; the Redis store is proven in test/scale-out-redis.test.ts)

/**
 * One MemoryTaskStore behind two servers, as a shared store would be: `send` hands a message to every `receive`
 * listener (an extension whose runner does not run the task ignores it), and `notify` stands for a store telling
 * the process running a task that its record ended elsewhere.
 */
class RelayingStore extends MemoryTaskStore {
  readonly sent: [string, TaskMessage][] = [];
  readonly #listeners = new Set<(taskId: string, notice: TaskNotice) => void>();
  failGets = false;

  async send(taskId: string, message: TaskMessage): Promise<void> {
    this.sent.push([taskId, message]);
    this.notify(taskId, message);
  }

  receive(listener: (taskId: string, notice: TaskNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  notify(taskId: string, notice: TaskNotice): void {
    for (const listener of this.#listeners) listener(taskId, notice);
  }

  override async get(taskId: string): Promise<TaskRecord | undefined> {
    if (this.failGets) throw new Error('the store is unreachable');
    return super.get(taskId);
  }
}

/** Two HTTP servers (sessionless callers: one owner) over one RelayingStore, each with the `ask` tool. */
async function twoOverOneStore(t: TestContext, gate: Promise<void>, aborted: (taskId: string) => void) {
  const store = new RelayingStore();
  const register = (server: Server): void =>
    void server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted(ctx.task!.taskId), { once: true });
      await until(gate, ctx);
      return text(`answered ${JSON.stringify(await ctx.elicit(FORM))}`);
    });
  return { store, a: await open(t, 'http', register, { store }), b: await open(t, 'http', register, { store }) };
}

test('tasks/update on a server that does not run the task hands the answer over by TaskStore.send', T, async (t) => {
  const { store, a, b } = await twoOverOneStore(t, Promise.resolve(), () => {});
  const taskId = await startTask(a.wire, 'c', 'ask', DECLARES_ELICIT);
  await status(a.tasks, taskId, 'input_required');
  const done = status(a.tasks, taskId, 'completed');
  const answer = { action: 'accept', content: {} };
  const update = await b.wire.request(
    'u',
    'tasks/update',
    { taskId, inputResponses: { 'input-1': answer, 'not-outstanding': 5 } },
    DECLARES_ELICIT,
  );
  assert.deepEqual(update.frame, complete('u'));
  assert.deepEqual(JSON.parse(JSON.stringify(store.sent)), [
    [taskId, { type: 'responses', responses: { 'input-1': answer } }],
  ]);
  assert.deepEqual((await done).result, text(`answered ${JSON.stringify(answer)}`));
  // Nothing outstanding any more: a second update sends nothing.
  await b.wire.request('u2', 'tasks/update', { taskId, inputResponses: { 'input-1': answer } }, DECLARES_ELICIT);
  assert.equal(store.sent.length, 1);
});

test('a refusal handed over by the store fails the waiting handler as a refusal given here would', T, async (t) => {
  const { store, a } = await twoOverOneStore(t, Promise.resolve(), () => {});
  const taskId = await startTask(a.wire, 'c', 'ask', DECLARES_ELICIT);
  await status(a.tasks, taskId, 'input_required');
  const ended = reached(a.tasks, taskId, (record) => isTerminal(record.status));
  store.notify(taskId, { type: 'refused', key: 'input-1', error: { code: -32600, message: 'no', data: 1 } });
  // As a refusal on this server's own stream would: the tool fails, its detail logged, not sent.
  assert.deepEqual((await ended).result, { content: [{ type: 'text', text: 'Tool execution failed' }], isError: true });
  assert.equal(a.logger.errors[0]!.message, "tool 'ask' failed");
  const refusal = a.logger.errors[0]!.error as { name: string; code: number; data: unknown };
  assert.deepEqual([refusal.name, refusal.code, refusal.data], ['OutboundRequestError', -32600, 1]);
});

test('a record that ended elsewhere ends the handler here, even when the store cannot be read', T, async (t) => {
  const stops: string[] = [];
  const stopped = deferred<void>();
  const { store, a, b } = await twoOverOneStore(t, new Promise(() => {}), (taskId) => {
    stops.push(taskId);
    if (stops.length === 2) stopped.resolve();
  });
  const first = await startTask(a.wire, 'c1', 'ask', DECLARES_ELICIT);
  const second = await startTask(a.wire, 'c2', 'ask', DECLARES_ELICIT);
  // Cancelled through the other server: it stores cancelled; the store tells the process running it.
  await b.tasks.runner.cancel(first);
  assert.equal((await a.tasks.store.get(first))!.status, 'cancelled');
  assert.equal(a.tasks.runner.runs(first), true, 'still running until the store says so');
  store.notify(first, { type: 'ended' });
  store.failGets = true;
  store.notify(second, { type: 'ended' });
  await stopped.promise;
  assert.deepEqual(stops.sort(), [first, second].sort());
  assert.equal(a.tasks.runner.runs(first) || a.tasks.runner.runs(second), false);
  store.failGets = false;
  assert.equal((await a.tasks.store.get(second))!.status, 'working', 'nothing was written here');
});
