// The 2025-11-25 tasks utility of the tasks extension at the wire (MCP 2025-11-25, Basic > Utilities > Tasks), on
// the stdio wire and on real 2025 HTTP sessions: the capability, params.task and the CreateTaskResult, tasks/get,
// the blocking tasks/result with input delivered as related server→client requests, tasks/list, tasks/cancel,
// notifications/tasks/status, progress after the answer, and owners. Every wait is on a frame or a deferred.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type Context, createServer, elicitInput, inputRequired, ProtocolError, type Server } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { createTasksExtension, MemoryTaskStore, type TasksExtension } from '../tasks/tasks-extension.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { SseReader } from './sse-reader.ts';
import { fail, type Id, notification, ok, request } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time

const CLIENT = { name: 'tasks-legacy-test', version: '1.0.0' };
const LATEST = '2025-11-25';
const BEFORE = '2025-06-18';
const RELATED = 'io.modelcontextprotocol/related-task';
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
/** The client capabilities every client here declares (the `ask` tool elicits). */
const CLIENT_CAPS = { elicitation: {} };
/** The MemoryTaskStore's default TTL cap (docs/tasks.md). */
const TTL_CAP = 3_600_000;
/** MemoryTaskStore's default retention of a terminal record no TTL was asked for. */
const RETENTION_MS = 60_000;

/** The TTL `task` shows in `status`: once terminal without an asked-for TTL, its retention past `lastUpdatedAt`. */
function shownTtl(task: Frame, status: string, lastUpdatedAt: string): number {
  if (task.ttl !== TTL_CAP || !['completed', 'failed', 'cancelled'].includes(status)) return task.ttl;
  return Math.min(TTL_CAP, Date.parse(lastUpdatedAt) - Date.parse(task.createdAt) + RETENTION_MS);
}
const POLL_INTERVAL = 1000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TASK_ID = /^[A-Za-z0-9_-]{22}$/;
const ELICIT_PARAMS = {
  mode: 'form',
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

type Deferred<V> = ReturnType<typeof deferred<V>>;

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** The -32602 answer for an unknown task, which is also the answer for another caller's task. */
function unknownTask(taskId: string) {
  return {
    code: -32602,
    message: `Invalid params: params.taskId: no task "${taskId}" (never created, expired, or not this caller's)`,
  };
}

function terminalCancel(status: string) {
  return { code: -32602, message: `Invalid params: Cannot cancel task: already in terminal status '${status}'` };
}

// ---------------------------------------------------------------------------------------------------------------
// The server under test

/** What a test controls of one call of the `hold` or `report` tool, by the call's `key` argument. */
interface Hold {
  /** Resolved with the handler's context when it starts. */
  started: Deferred<Context>;
  /** What the handler answers (resolve) or throws (reject). */
  release: Deferred<Record<string, unknown>>;
  /** `report` reports its progress once this resolves. */
  step: Deferred<void>;
  /** Resolved with the signal's reason when the handler's signal aborts. */
  aborted: Deferred<unknown>;
}

const KEYED = { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] };

/** A server with the tasks extension and its tools, served on stdio clients and HTTP endpoints the test opens. */
class Fixture {
  readonly logger = new MemoryLogger();
  readonly server: Server;
  readonly tasks: TasksExtension;
  readonly #holds = new Map<string, Hold>();
  readonly #clients: WireClient[] = [];
  readonly #endpoints: HttpServer[] = [];
  readonly #sessions: Session[] = [];

  constructor(pageSize?: number) {
    this.server = createServer({ name: 'tasks-legacy', version: '1.0.0' }, { logger: this.logger, pageSize });
    this.tasks = createTasksExtension();
    this.server.use(this.tasks);
    const server = this.server;
    server.tool('plain', { description: 'Never a task' }, () => text('plain done'));
    server.tool('required_job', { taskSupport: 'required' }, () => text('required done'));
    server.tool('hold', { taskSupport: 'optional', inputSchema: KEYED }, async ({ key }: { key: string }, ctx) => {
      const hold = this.hold(key);
      ctx.signal.addEventListener('abort', () => hold.aborted.resolve(ctx.signal.reason), { once: true });
      hold.started.resolve(ctx);
      return hold.release.promise;
    });
    server.tool('report', { taskSupport: 'optional', inputSchema: KEYED }, async ({ key }: { key: string }, ctx) => {
      const hold = this.hold(key);
      hold.started.resolve(ctx);
      await hold.step.promise;
      ctx.progress(1, 2, 'halfway');
      return hold.release.promise;
    });
    server.tool('ask', { taskSupport: 'optional' }, async (_args, ctx) => {
      try {
        const answer = await ctx.elicit(ELICIT_PARAMS);
        return text(`Hello, ${(answer.content as { name: string }).name}`);
      } catch (error) {
        const { name, code, message } = error as { name: string; code?: number; message: string };
        return text(`refused: ${JSON.stringify({ name, code, message })}`);
      }
    });
  }

  /** The controls of the call with `key` (made on first use, by the test or the handler). */
  hold(key: string): Hold {
    let hold = this.#holds.get(key);
    if (hold === undefined) {
      hold = { started: deferred(), release: deferred(), step: deferred(), aborted: deferred() };
      this.#holds.set(key, hold);
    }
    return hold;
  }

  /** A stdio-like client of the server, not yet initialized. */
  client(): WireClient {
    const client = new WireClient(this.server);
    this.#clients.push(client);
    return client;
  }

  /** A stdio-like client of the server, initialized at `version`. */
  async stdio(version = LATEST): Promise<WireClient> {
    const client = this.client();
    await client.initialize(version, CLIENT_CAPS);
    return client;
  }

  /** A 2025 HTTP endpoint of the server on 127.0.0.1. */
  async endpoint(): Promise<string> {
    const http = await serveHttp(this.server, { port: 0 });
    this.#endpoints.push(http);
    return http.url;
  }

  /** A new initialized session of `url`. */
  async session(url: string, version = LATEST): Promise<Session> {
    const session = await Session.open(url, version);
    this.#sessions.push(session);
    return session;
  }

  /** Closes what the test opened: streams, clients, endpoints, then the server (its extension with it). */
  async close(): Promise<void> {
    for (const session of this.#sessions) await session.close();
    for (const client of this.#clients) await client.end();
    for (const http of this.#endpoints) await http.close();
    await this.server.close();
  }
}

function fixture(t: TestContext, pageSize?: number): Fixture {
  const made = new Fixture(pageSize);
  t.after(() => made.close());
  return made;
}

// ---------------------------------------------------------------------------------------------------------------
// A 2025 HTTP session

const BOTH = 'application/json, text/event-stream';

class Session {
  readonly url: string;
  readonly id: string;
  readonly version: string;
  /** The result of its initialize. */
  readonly initializeResult: Frame;
  readonly #readers: SseReader[] = [];

  private constructor(url: string, id: string, initializeResult: Frame) {
    this.url = url;
    this.id = id;
    this.version = initializeResult.protocolVersion;
    this.initializeResult = initializeResult;
  }

  /** initialize (answered as JSON, with the session id), then notifications/initialized (202). */
  static async open(url: string, version: string): Promise<Session> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH },
      body: JSON.stringify(
        request(0, 'initialize', { protocolVersion: version, capabilities: CLIENT_CAPS, clientInfo: CLIENT }),
      ),
    });
    const id = response.headers.get('mcp-session-id');
    assert.ok(id !== null);
    const body = await json(response);
    assert.equal(body.result.protocolVersion, version);
    const session = new Session(url, id, body.result);
    const initialized = await session.post(notification('notifications/initialized'));
    assert.equal(initialized.status, 202);
    return session;
  }

  post(frame: Frame): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: BOTH,
        'mcp-session-id': this.id,
        'mcp-protocol-version': this.version,
      },
      body: JSON.stringify(frame),
    });
  }

  /** A request answered with one JSON body: that body. */
  async request(id: Id, method: string, params?: Record<string, unknown>): Promise<Frame> {
    return json(await this.post(request(id, method, params)));
  }

  /** A request whose answer streams (SSE): its reader. */
  async stream(frame: Frame): Promise<SseReader> {
    return this.#track(new SseReader(await this.post(frame)));
  }

  /** The session's GET stream. */
  async get(): Promise<SseReader> {
    const response = await fetch(this.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': this.id, 'mcp-protocol-version': this.version },
    });
    return this.#track(new SseReader(response));
  }

  #track(reader: SseReader): SseReader {
    this.#readers.push(reader);
    return reader;
  }

  /** Leaves every stream this session opened. */
  async close(): Promise<void> {
    for (const reader of this.#readers) await reader.cancel().catch(() => {});
  }
}

/** A 200 `application/json` answer's body. */
async function json(response: Response): Promise<Frame> {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  return response.json();
}

// ---------------------------------------------------------------------------------------------------------------
// Frames

function callTool(name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { name, arguments: args, ...extra };
}

/** Asserts `frame` is exactly a CreateTaskResult answering `id` (a fresh `working` task, `ttl`); returns the task. */
function createdTask(frame: Frame, id: Id, ttl: number): Frame {
  assert.deepEqual(Object.keys(frame), ['jsonrpc', 'id', 'result'], JSON.stringify(frame));
  assert.equal(frame.id, id);
  assert.deepEqual(Object.keys(frame.result), ['task']); // no resultType on 2025-11-25
  const task = frame.result.task;
  assert.match(task.taskId, TASK_ID);
  assert.match(task.createdAt, ISO);
  assert.deepEqual(Object.keys(task), ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttl', 'pollInterval']);
  assert.deepEqual(task, {
    taskId: task.taskId,
    status: 'working',
    createdAt: task.createdAt,
    lastUpdatedAt: task.createdAt,
    ttl,
    pollInterval: POLL_INTERVAL,
  });
  return task;
}

/**
 * Asserts `frame` is exactly notifications/tasks/status for `task` in `status` (with `extra` fields), updated after
 * `after`; returns its lastUpdatedAt.
 */
function assertStatus(frame: Frame, task: Frame, status: string, after: string, extra: object = {}): string {
  assert.deepEqual(Object.keys(frame), ['jsonrpc', 'method', 'params'], JSON.stringify(frame));
  assert.equal(frame.method, 'notifications/tasks/status');
  const { lastUpdatedAt } = frame.params;
  assert.match(lastUpdatedAt, ISO);
  assert.ok(lastUpdatedAt > after, `${lastUpdatedAt} is not after ${after}`);
  assert.deepEqual(frame.params, {
    ...task,
    status,
    ...extra,
    lastUpdatedAt,
    ttl: shownTtl(task, status, lastUpdatedAt),
  });
  return lastUpdatedAt;
}

/** A stdio client's next notifications/tasks/status frame for `taskId`. */
function statusOf(client: WireClient, taskId: string): Promise<Frame> {
  return client.waitFor((frame) => frame.method === 'notifications/tasks/status' && frame.params?.taskId === taskId);
}

/** Creates a `hold` task with `key` on a stdio client; resolves with the task once its handler runs. */
async function holdTask(fx: Fixture, client: WireClient, key: string, ttl?: number): Promise<Frame> {
  const task = ttl === undefined ? {} : { ttl };
  const created = createdTask(
    await client.request('tools/call', callTool('hold', { key }, { task }), key),
    key,
    ttl ?? TTL_CAP,
  );
  await fx.hold(key).started.promise;
  return created;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. The capability and the listed tools

test(
  'initialize at 2025-11-25 advertises capabilities.tasks (list, cancel, tools/call); at 2025-06-18 no tasks',
  T,
  async (t) => {
    const fx = fixture(t);
    const base = { logging: {}, tools: { listChanged: true } };
    assert.deepEqual((await fx.client().initialize(LATEST, CLIENT_CAPS)).capabilities, {
      ...base,
      tasks: TASKS_CAPABILITY,
    });
    assert.deepEqual((await fx.client().initialize(BEFORE, CLIENT_CAPS)).capabilities, base);
    const url = await fx.endpoint();
    const session = await fx.session(url, LATEST);
    const oldSession = await fx.session(url, BEFORE);
    assert.deepEqual(session.initializeResult.capabilities, { ...base, tasks: TASKS_CAPABILITY });
    assert.deepEqual(oldSession.initializeResult.capabilities, base);
  },
);

test('tools/list at 2025-11-25 shows execution.taskSupport on task tools only; at 2025-06-18 never', T, async (t) => {
  const fx = fixture(t);
  const latest = await fx.stdio(LATEST);
  const before = await fx.stdio(BEFORE);
  const schema = { type: 'object', properties: {} };
  const plain = { name: 'plain', description: 'Never a task', inputSchema: schema };
  const listed = [
    plain,
    { name: 'required_job', inputSchema: schema },
    { name: 'hold', inputSchema: KEYED },
    { name: 'report', inputSchema: KEYED },
    { name: 'ask', inputSchema: schema },
  ];
  assert.deepEqual(
    await latest.request('tools/list', {}, 1),
    ok(1, {
      tools: listed.map((tool) =>
        tool === plain
          ? tool
          : { ...tool, execution: { taskSupport: tool.name === 'required_job' ? 'required' : 'optional' } },
      ),
    }),
  );
  assert.deepEqual(await before.request('tools/list', {}, 2), ok(2, { tools: listed }));
  const url = await fx.endpoint();
  const session = await fx.session(url, BEFORE);
  assert.deepEqual(await session.request(3, 'tools/list', {}), ok(3, { tools: listed }));
});

// ---------------------------------------------------------------------------------------------------------------
// 2. params.task, the CreateTaskResult and tasks/get

test(
  'tools/call with params.task {ttl} answers {task} (working, ttl, pollInterval) and tasks/get the same flat task',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a', 60_000);
    assert.deepEqual(await client.request('tasks/get', { taskId: task.taskId }, 2), ok(2, task));
    // The handler runs inside the task: its context has the task handle.
    assert.equal((await fx.hold('a').started.promise).task?.taskId, task.taskId);

    const url = await fx.endpoint();
    const session = await fx.session(url);
    const created = createdTask(
      await session.request(3, 'tools/call', callTool('hold', { key: 'b' }, { task: { ttl: 60_000 } })),
      3,
      60_000,
    );
    assert.deepEqual(await session.request(4, 'tasks/get', { taskId: created.taskId }), ok(4, created));
    assert.deepEqual(
      await session.request(5, 'tasks/get', {}),
      fail(5, { code: -32602, message: 'Invalid params: params.taskId must be a string' }),
    );
  },
);

test(
  'a params.task.ttl above the store cap is reported clamped to it, and an absent ttl gets the cap',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const clamped = await client.request(
      'tools/call',
      callTool('hold', { key: 'a' }, { task: { ttl: TTL_CAP * 2 } }),
      1,
    );
    const task = createdTask(clamped, 1, TTL_CAP);
    assert.equal((await client.request('tasks/get', { taskId: task.taskId }, 2)).result.ttl, TTL_CAP);
    createdTask(await client.request('tools/call', callTool('hold', { key: 'b' }, { task: {} }), 3), 3, TTL_CAP);
  },
);

test(
  'params.task refusals: ttl 0 or "x" or a non-object task -32602, task on a tool without taskSupport -32601, a required tool without task -32601',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const url = await fx.endpoint();
    const session = await fx.session(url);
    const badTtl = { code: -32602, message: 'Invalid params: params.task.ttl must be a positive integer (ms)' };
    const cases: [Record<string, unknown>, object][] = [
      [callTool('hold', { key: 'x' }, { task: { ttl: 0 } }), badTtl],
      [callTool('hold', { key: 'x' }, { task: { ttl: 'x' } }), badTtl],
      [callTool('hold', { key: 'x' }, { task: { ttl: 1.5 } }), badTtl],
      [
        callTool('hold', { key: 'x' }, { task: 'soon' }),
        { code: -32602, message: 'Invalid params: params.task must be an object' },
      ],
      [
        callTool('plain', {}, { task: {} }),
        { code: -32601, message: "Method not found: tool 'plain' does not run as a task" },
      ],
      [
        callTool('required_job'),
        { code: -32601, message: "Method not found: tool 'required_job' runs only as a task (params.task)" },
      ],
    ];
    let id = 1;
    for (const [params, error] of cases) {
      assert.deepEqual(await client.request('tools/call', params, id), fail(id, error), JSON.stringify(params));
      id++;
      assert.deepEqual(await session.request(id, 'tools/call', params), fail(id, error), JSON.stringify(params));
      id++;
    }
    // Nothing was created, no handler ran.
    assert.equal(fx.tasks.runner.active, 0);
    assert.deepEqual(await client.request('tasks/list', {}, 'l'), ok('l', { tasks: [] }));
    assert.deepEqual(await session.request('l', 'tasks/list', {}), ok('l', { tasks: [] }));
  },
);

test(
  'at 2025-06-18 params.task is ignored: every tool runs inline and answers its result, no task is made',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio(BEFORE);
    assert.deepEqual(
      await client.request('tools/call', callTool('required_job', {}, { task: { ttl: 1000 } }), 1),
      ok(1, text('required done')),
    );
    assert.deepEqual(
      await client.request('tools/call', callTool('plain', {}, { task: {} }), 2),
      ok(2, text('plain done')),
    );
    assert.deepEqual(await client.request('tools/call', callTool('required_job'), 3), ok(3, text('required done')));
    const held = client.request('tools/call', callTool('hold', { key: 'a' }, { task: {} }), 4);
    const ctx = await fx.hold('a').started.promise;
    assert.equal(ctx.task, undefined);
    fx.hold('a').release.resolve(text('inline'));
    assert.deepEqual(await held, ok(4, text('inline')));
    assert.ok(fx.tasks.store instanceof MemoryTaskStore);
    assert.equal(fx.tasks.store.size, 0);
    // The tasks methods do not exist at this version.
    assert.equal((await client.request('tasks/list', {}, 5)).error.code, -32601);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 3. tasks/result

test(
  'tasks/result blocks until the task completes, then answers exactly the tool result with related-task _meta',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a');
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    // A ping sent after it is answered while the tasks/result still waits.
    assert.deepEqual(await client.request('ping', undefined, 'p'), ok('p', {}));
    assert.equal(
      client.unread().some((frame) => frame.id === 'r'),
      false,
    );
    fx.hold('a').release.resolve({ ...text('done'), structuredContent: { n: 1 }, _meta: { 'example.com/own': true } });
    assert.deepEqual(
      await client.response('r'),
      ok('r', {
        ...text('done'),
        structuredContent: { n: 1 },
        _meta: { 'example.com/own': true, [RELATED]: { taskId: task.taskId } },
      }),
    );
    // Terminal: a later tasks/result answers the same at once.
    assert.deepEqual(
      await client.request('tasks/result', { taskId: task.taskId }, 'r2'),
      ok('r2', {
        ...text('done'),
        structuredContent: { n: 1 },
        _meta: { 'example.com/own': true, [RELATED]: { taskId: task.taskId } },
      }),
    );
    assert.equal((await client.request('tasks/get', { taskId: task.taskId }, 'g')).result.status, 'completed');
  },
);

test(
  'tasks/result of a task whose handler threw a ProtocolError answers exactly that JSON-RPC error; tasks/get says failed',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a');
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    fx.hold('a').release.reject(new ProtocolError(-32042, 'The job broke', { step: 3 }));
    assert.deepEqual(
      await client.response('r'),
      fail('r', { code: -32042, message: 'The job broke', data: { step: 3 } }),
    );
    const got = await client.request('tasks/get', { taskId: task.taskId }, 'g');
    assert.deepEqual(
      got,
      ok('g', {
        ...task,
        status: 'failed',
        statusMessage: 'The job broke',
        lastUpdatedAt: got.result.lastUpdatedAt,
        ttl: shownTtl(task, 'failed', got.result.lastUpdatedAt),
      }),
    );
    assert.deepEqual(fx.logger.errors, []);
  },
);

test(
  'an isError tool result: tasks/result answers that result, while tasks/get reports the task failed',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a');
    fx.hold('a').release.resolve({ ...text('no luck'), isError: true });
    assert.deepEqual(
      await client.request('tasks/result', { taskId: task.taskId }, 'r'),
      ok('r', { ...text('no luck'), isError: true, _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    const got = await client.request('tasks/get', { taskId: task.taskId }, 'g');
    const { lastUpdatedAt } = got.result;
    assert.deepEqual(
      got,
      ok('g', { ...task, status: 'failed', lastUpdatedAt, ttl: shownTtl(task, 'failed', lastUpdatedAt) }),
    );
    assert.deepEqual(
      await client.request('tasks/cancel', { taskId: task.taskId }, 'c'),
      fail('c', terminalCancel('failed')),
    );
  },
);

test(
  'tasks/result of a cancelled task is -32602, for one waiting when the cancel comes and one asked after',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a');
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    assert.deepEqual(await client.request('ping', undefined, 'p'), ok('p', {}));
    const cancelled = await client.request('tasks/cancel', { taskId: task.taskId }, 'c');
    assert.equal(cancelled.result.status, 'cancelled');
    const noResult = { code: -32602, message: `Invalid params: Task '${task.taskId}' was cancelled: it has no result` };
    assert.deepEqual(await client.response('r'), fail('r', noResult));
    assert.deepEqual(await client.request('tasks/result', { taskId: task.taskId }, 'r2'), fail('r2', noResult));
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 4. Input through tasks/result

test(
  'stdio: ctx.elicit in a task shows input_required; tasks/result carries the elicitation with related-task _meta; the answer resumes the handler and the result follows',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = createdTask(await client.request('tools/call', callTool('ask', {}, { task: {} }), 1), 1, TTL_CAP);
    const waiting = assertStatus(await statusOf(client, task.taskId), task, 'input_required', task.createdAt);
    assert.deepEqual(
      await client.request('tasks/get', { taskId: task.taskId }, 2),
      ok(2, { ...task, status: 'input_required', lastUpdatedAt: waiting }),
    );
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    const ask = await client.waitFor((frame) => frame.method === 'elicitation/create');
    assert.deepEqual(
      ask,
      request(ask.id, 'elicitation/create', { ...ELICIT_PARAMS, _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    client.send(ok(ask.id, { action: 'accept', content: { name: 'Ada' } }));
    assert.deepEqual(
      await client.response('r'),
      ok('r', { ...text('Hello, Ada'), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
  },
);

test(
  "stdio: a client's error answer to the delivered elicitation rejects the handler's ctx.elicit, and tasks/result answers what the tool made of it",
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = createdTask(await client.request('tools/call', callTool('ask', {}, { task: {} }), 1), 1, TTL_CAP);
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    const ask = await client.waitFor((frame) => frame.method === 'elicitation/create');
    client.send(fail(ask.id, { code: -32000, message: 'The user looked away' }));
    const seen = { name: 'OutboundRequestError', code: -32000, message: 'The user looked away' };
    assert.deepEqual(
      await client.response('r'),
      ok('r', { ...text(`refused: ${JSON.stringify(seen)}`), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    assert.equal((await client.request('tasks/get', { taskId: task.taskId }, 'g')).result.status, 'completed');
  },
);

test(
  "HTTP: the elicitation arrives on the tasks/result POST's SSE stream, the answer POST gets 202, and the result ends that stream",
  T,
  async (t) => {
    const fx = fixture(t);
    const session = await fx.session(await fx.endpoint());
    const task = createdTask(await session.request(1, 'tools/call', callTool('ask', {}, { task: {} })), 1, TTL_CAP);
    const stream = await session.stream(request('r', 'tasks/result', { taskId: task.taskId }));
    const ask = await stream.message();
    assert.deepEqual(
      ask,
      request(ask.id, 'elicitation/create', { ...ELICIT_PARAMS, _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    const answered = await session.post(ok(ask.id, { action: 'accept', content: { name: 'Ada' } }));
    assert.equal(answered.status, 202);
    assert.deepEqual(
      await stream.message(),
      ok('r', { ...text('Hello, Ada'), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    await stream.ended();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 5. tasks/list

test(
  "tasks/list pages only the caller's tasks (nextCursor past pageSize); another connection or session sees none; a bad cursor is -32602",
  T,
  async (t) => {
    const fx = fixture(t, 2);
    const client = await fx.stdio();
    const other = await fx.stdio();
    const mine = [await holdTask(fx, client, 'a'), await holdTask(fx, client, 'b'), await holdTask(fx, client, 'c')];
    await holdTask(fx, other, 'd');
    const first = await client.request('tasks/list', {}, 1);
    assert.equal(typeof first.result.nextCursor, 'string');
    assert.deepEqual(first, ok(1, { tasks: [mine[0], mine[1]], nextCursor: first.result.nextCursor }));
    assert.deepEqual(
      await client.request('tasks/list', { cursor: first.result.nextCursor }, 2),
      ok(2, { tasks: [mine[2]] }),
    );
    assert.equal((await other.request('tasks/list', {}, 3)).result.tasks.length, 1);
    const third = await fx.stdio();
    assert.deepEqual(await third.request('tasks/list', {}, 4), ok(4, { tasks: [] }));
    const badCursor = { code: -32602, message: 'Invalid params: params.cursor is not a cursor this server issued' };
    assert.deepEqual(await client.request('tasks/list', { cursor: 'bogus' }, 5), fail(5, badCursor));
    assert.deepEqual(await client.request('tasks/list', { cursor: 7 }, 6), fail(6, badCursor));

    const url = await fx.endpoint();
    const session = await fx.session(url);
    const created = [];
    for (const [id, key] of [
      [7, 'h1'],
      [8, 'h2'],
      [9, 'h3'],
    ] as const)
      created.push(
        createdTask(await session.request(id, 'tools/call', callTool('hold', { key }, { task: {} })), id, TTL_CAP),
      );
    const page = await session.request(10, 'tasks/list', {});
    assert.deepEqual(page, ok(10, { tasks: created.slice(0, 2), nextCursor: page.result.nextCursor }));
    assert.deepEqual(
      await session.request(11, 'tasks/list', { cursor: page.result.nextCursor }),
      ok(11, { tasks: [created[2]] }),
    );
    const stranger = await fx.session(url);
    assert.deepEqual(await stranger.request(12, 'tasks/list', {}), ok(12, { tasks: [] }));
    assert.deepEqual(await stranger.request(13, 'tasks/list', { cursor: 'bogus' }), fail(13, badCursor));
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 6. tasks/cancel

test(
  'tasks/cancel answers the task cancelled and the handler sees its abort; a second cancel is -32602 already cancelled; a completed one -32602 completed',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const task = await holdTask(fx, client, 'a');
    const cancelled = await client.request('tasks/cancel', { taskId: task.taskId }, 1);
    const { lastUpdatedAt } = cancelled.result;
    const ttl = shownTtl(task, 'cancelled', lastUpdatedAt);
    assert.deepEqual(cancelled, ok(1, { ...task, status: 'cancelled', lastUpdatedAt, ttl }));
    assert.ok(cancelled.result.lastUpdatedAt > task.lastUpdatedAt);
    await fx.hold('a').aborted.promise;
    assert.deepEqual(await client.request('tasks/get', { taskId: task.taskId }, 2), ok(2, cancelled.result));
    assert.deepEqual(
      await client.request('tasks/cancel', { taskId: task.taskId }, 3),
      fail(3, terminalCancel('cancelled')),
    );
    // A late outcome of the cancelled handler changes nothing.
    fx.hold('a').release.resolve(text('too late'));
    assert.deepEqual(await client.request('tasks/get', { taskId: task.taskId }, 4), ok(4, cancelled.result));

    const done = await holdTask(fx, client, 'b');
    fx.hold('b').release.resolve(text('done'));
    await client.request('tasks/result', { taskId: done.taskId }, 5);
    assert.deepEqual(
      await client.request('tasks/cancel', { taskId: done.taskId }, 6),
      fail(6, terminalCancel('completed')),
    );
    assert.deepEqual(await client.request('tasks/cancel', { taskId: 'nope' }, 7), fail(7, unknownTask('nope')));

    const session = await fx.session(await fx.endpoint());
    const remote = createdTask(
      await session.request(8, 'tools/call', callTool('hold', { key: 'c' }, { task: {} })),
      8,
      TTL_CAP,
    );
    const remoteCancelled = await session.request(9, 'tasks/cancel', { taskId: remote.taskId });
    const at = remoteCancelled.result.lastUpdatedAt;
    assert.deepEqual(
      remoteCancelled,
      ok(9, { ...remote, status: 'cancelled', lastUpdatedAt: at, ttl: shownTtl(remote, 'cancelled', at) }),
    );
    await fx.hold('c').aborted.promise;
    assert.deepEqual(
      await session.request(10, 'tasks/cancel', { taskId: remote.taskId }),
      fail(10, terminalCancel('cancelled')),
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 7. notifications/tasks/status

test(
  'stdio: notifications/tasks/status reports each transition (input_required, working, completed; cancelled) on the creating connection only',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const other = await fx.stdio();
    const task = createdTask(await client.request('tools/call', callTool('ask', {}, { task: {} }), 1), 1, TTL_CAP);
    let at = assertStatus(await statusOf(client, task.taskId), task, 'input_required', task.createdAt);
    client.send(request('r', 'tasks/result', { taskId: task.taskId }));
    const ask = await client.waitFor((frame) => frame.method === 'elicitation/create');
    client.send(ok(ask.id, { action: 'accept', content: { name: 'Ada' } }));
    at = assertStatus(await statusOf(client, task.taskId), task, 'working', at);
    assertStatus(await statusOf(client, task.taskId), task, 'completed', at);
    await client.response('r');

    const held = await holdTask(fx, client, 'a');
    await client.request('tasks/cancel', { taskId: held.taskId }, 2);
    assertStatus(await statusOf(client, held.taskId), held, 'cancelled', held.createdAt);

    // The other connection heard nothing.
    assert.deepEqual(await other.request('ping', undefined, 'p'), ok('p', {}));
    assert.deepEqual(other.unread(), []);
  },
);

test(
  "HTTP: notifications/tasks/status go on the session's GET stream, related to no request (the tools/call answers plain JSON)",
  T,
  async (t) => {
    const fx = fixture(t);
    const url = await fx.endpoint();
    const session = await fx.session(url);
    const other = await fx.session(url);
    const events = await session.get();
    const otherEvents = await other.get();
    const task = createdTask(await session.request(1, 'tools/call', callTool('ask', {}, { task: {} })), 1, TTL_CAP);
    let at = assertStatus(await events.message(), task, 'input_required', task.createdAt);
    const stream = await session.stream(request('r', 'tasks/result', { taskId: task.taskId }));
    const ask = await stream.message();
    assert.equal((await session.post(ok(ask.id, { action: 'accept', content: { name: 'Ada' } }))).status, 202);
    at = assertStatus(await events.message(), task, 'working', at);
    assertStatus(await events.message(), task, 'completed', at);
    assert.deepEqual(
      await stream.message(),
      ok('r', { ...text('Hello, Ada'), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    await stream.ended(); // the tasks/result stream carried no status notification

    const held = createdTask(
      await session.request(2, 'tools/call', callTool('hold', { key: 'a' }, { task: {} })),
      2,
      TTL_CAP,
    );
    await session.request(3, 'tasks/cancel', { taskId: held.taskId });
    assertStatus(await events.message(), held, 'cancelled', held.createdAt);

    // The other session's GET stream got nothing: the first message it sees is one sent to it after all the above.
    fx.server.tool('late', {}, () => text('late')); // tools/list_changed goes to every session
    assert.deepEqual(await otherEvents.message(), notification('notifications/tools/list_changed'));
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 8. Progress inside a task

test(
  'progress a task reports after its CreateTaskResult was answered arrives as notifications/progress on the connection',
  T,
  async (t) => {
    const fx = fixture(t);
    const client = await fx.stdio();
    const progressed = { progressToken: 'p1', progress: 1, total: 2, message: 'halfway' };
    const task = createdTask(
      await client.request(
        'tools/call',
        callTool('report', { key: 'a' }, { task: {}, _meta: { progressToken: 'p1' } }),
        1,
      ),
      1,
      TTL_CAP,
    );
    await fx.hold('a').started.promise;
    fx.hold('a').step.resolve();
    // Past the call's answer the notification belongs to the task: it carries the related-task _meta.
    assert.deepEqual(
      await client.notification('notifications/progress'),
      notification('notifications/progress', { ...progressed, _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
    fx.hold('a').release.resolve(text('reported'));
    assert.deepEqual(
      await client.request('tasks/result', { taskId: task.taskId }, 2),
      ok(2, { ...text('reported'), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );

    const session = await fx.session(await fx.endpoint());
    const events = await session.get();
    const second = createdTask(
      await session.request(
        3,
        'tools/call',
        callTool('report', { key: 'b' }, { task: {}, _meta: { progressToken: 'p2' } }),
      ),
      3,
      TTL_CAP,
    );
    await fx.hold('b').started.promise;
    fx.hold('b').step.resolve();
    assert.deepEqual(
      await events.message(),
      notification('notifications/progress', {
        ...progressed,
        progressToken: 'p2',
        _meta: { [RELATED]: { taskId: second.taskId } },
      }),
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 9. Owners

test(
  "another connection's tasks/get, tasks/result and tasks/cancel of a task answer -32602 exactly as for an unknown task",
  T,
  async (t) => {
    const fx = fixture(t);
    const owner = await fx.stdio();
    const stranger = await fx.stdio();
    const task = await holdTask(fx, owner, 'a');
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.deepEqual(
        await stranger.request(method, { taskId: task.taskId }, method),
        fail(method, unknownTask(task.taskId)),
      );
      assert.deepEqual(
        await stranger.request(method, { taskId: 'unknown' }, `${method}?`),
        fail(`${method}?`, unknownTask('unknown')),
      );
    }
    // The task went on untouched for its owner.
    assert.deepEqual(await owner.request('tasks/get', { taskId: task.taskId }, 1), ok(1, task));
    fx.hold('a').release.resolve(text('mine'));
    assert.deepEqual(
      await owner.request('tasks/result', { taskId: task.taskId }, 2),
      ok(2, { ...text('mine'), _meta: { [RELATED]: { taskId: task.taskId } } }),
    );
  },
);

test(
  "another HTTP session's tasks/get, tasks/result and tasks/cancel of a task answer -32602 exactly as for an unknown task",
  T,
  async (t) => {
    const fx = fixture(t);
    const url = await fx.endpoint();
    const owner = await fx.session(url);
    const stranger = await fx.session(url);
    const task = createdTask(
      await owner.request(1, 'tools/call', callTool('hold', { key: 'a' }, { task: {} })),
      1,
      TTL_CAP,
    );
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      assert.deepEqual(
        await stranger.request(method, method, { taskId: task.taskId }),
        fail(method, unknownTask(task.taskId)),
      );
      assert.deepEqual(
        await stranger.request(`${method}?`, method, { taskId: 'unknown' }),
        fail(`${method}?`, unknownTask('unknown')),
      );
    }
    assert.deepEqual(await owner.request(2, 'tasks/get', { taskId: task.taskId }), ok(2, task));
    fx.hold('a').release.resolve(text('mine'));
    const result = await owner.post(request(3, 'tasks/result', { taskId: task.taskId }));
    assert.deepEqual(await answerOf(result), ok(3, { ...text('mine'), _meta: { [RELATED]: { taskId: task.taskId } } }));
  },
);

/** The one message a POST answered with, as JSON or as the single event of its SSE stream. */
async function answerOf(response: Response): Promise<Frame> {
  if (response.headers.get('content-type') === 'application/json') return json(response);
  const events = await new SseReader(response).rest();
  assert.equal(events.length, 1);
  return events[0]!.message;
}

test('an input round the 2025 client declared no capability for ends the task as a tool failure, reported failed', async (t) => {
  const server = createServer({ name: 'tasks-legacy-test', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.use(createTasksExtension());
  server.tool('asks', { taskSupport: 'optional' }, () =>
    inputRequired({ name: elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }) }),
  );
  t.after(() => server.close());
  const client = new WireClient(server);
  await client.initialize('2025-11-25'); // no elicitation capability
  const created = await client.request('tools/call', { name: 'asks', arguments: {}, task: {} }, 1);
  const { taskId } = created.result.task;
  const result = await client.request('tasks/result', { taskId }, 2);
  assert.deepEqual(result.result, {
    content: [{ type: 'text', text: 'The client could not provide the requested input' }],
    isError: true,
    _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
  });
  assert.equal((await client.request('tasks/get', { taskId }, 3)).result.status, 'failed');
  await client.end();
});
