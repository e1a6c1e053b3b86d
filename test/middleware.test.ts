// Request middleware (server.intercept, docs/api.md, Middleware) at the wire, in both eras, on stdio and over
// Streamable HTTP (a 2025 session, a 2026-07-28 POST): the chain's order, a middleware's own answer, replacing what
// next() resolves with, errors (a ProtocolError exactly, anything else -32603 without its message, logged, the
// connection serving on), next() twice, the refusals that never reach the chain, requests held behind a slow
// onInitialize, input rounds (one pass around the 2025 rounds, one pass per 2026-07-28 round trip), cancellation
// seen as ctx.signal, the carrying POST's ctx.http and ctx.auth, task-augmented calls, extension methods, batches
// and listen streams.
//
// Every wait is on an explicit signal (a frame, a deferred a handler or middleware resolves, the server's reader
// having consumed a chunk); nothing sleeps and nothing asserts on time.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  type Context,
  createServer,
  elicitInput,
  inputRequired,
  type Middleware,
  ProtocolError,
  type RequestCall,
  type Server,
  type ServerOptions,
  urlElicitationRequired,
} from '../core.ts';
import { type HttpOptions, serveHttp } from '../http.ts';
import { createTasksExtension } from '../tasks/tasks-extension.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import {
  CLIENT_CAPABILITIES,
  fail,
  type Id,
  MODERN,
  modern,
  notification,
  ok,
  PROTOCOL_VERSION,
  request,
  SERVER_INFO,
  SUBSCRIPTION_ID,
} from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const INFO = { name: 'middleware-test', version: '1.0.0' };
const CLIENT = { name: 'middleware-client', version: '1.0.0' };
const LATEST = '2025-11-25';
const INTERNAL = { code: -32603, message: 'Internal error' };
const NOT_INITIALIZED = { code: -32600, message: 'Invalid Request: server not initialized; send initialize first' };
const TASKS = 'io.modelcontextprotocol/tasks';
const NAME_FORM = {
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};
const MISSING_CAPS = {
  code: -32602,
  message: `Invalid params: params._meta is missing required key(s): ${CLIENT_CAPABILITIES}`,
};
const ACCEPT_ADA = { action: 'accept', content: { name: 'Ada' } };

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

// ---------------------------------------------------------------------------------------------------------------
// Four wires: stdio and HTTP, in both eras

const KINDS = ['stdio 2025-11-25', 'stdio 2026-07-28', 'HTTP 2025-11-25 session', 'HTTP 2026-07-28 POST'] as const;
type Kind = (typeof KINDS)[number];

interface Wire {
  readonly modern: boolean;
  /** Sends one request (with the 2026-07-28 envelope, declaring `caps`, on that era) and resolves with its answer. */
  request(id: Id, method: string, params?: Record<string, unknown>, caps?: object): Promise<Frame>;
}

/** Opens `kind` on `server` (a 2025 wire initialized declaring `caps`); closed when the test ends. */
async function open(t: TestContext, kind: Kind, server: Server, caps: object = {}): Promise<Wire> {
  const isModern = kind.includes(MODERN);
  if (kind.startsWith('stdio')) {
    const client = new WireClient(server);
    t.after(() => client.end());
    if (!isModern) await client.initialize(LATEST, caps);
    return {
      modern: isModern,
      request(id, method, params = {}, requestCaps = {}) {
        client.send(
          isModern ? modern(method, params, id, { [CLIENT_CAPABILITIES]: requestCaps }) : request(id, method, params),
        );
        return client.response(id);
      },
    };
  }
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
  t.after(() => http.close());
  if (isModern) {
    return {
      modern: true,
      async request(id, method, params = {}, requestCaps = {}) {
        const frame = modern(method, params, id, { [CLIENT_CAPABILITIES]: requestCaps });
        // tasks/* route by taskId (the extension's routeBy): Mcp-Name mirrors it.
        const name: Record<string, string> = typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {};
        const response = await raw(http.url, { headers: modernHeaders(frame, name), body: JSON.stringify(frame) });
        return response.json;
      },
    };
  }
  const session = await openSession(http.url, caps);
  return { modern: false, request: (id, method, params = {}) => session.request(request(id, method, params)) };
}

/** A 2025 HTTP session: initialize, then notifications/initialized; its requests are POSTs answered as JSON. */
async function openSession(url: string, caps: object = {}, extra: Record<string, string> = {}) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  const init = request(0, 'initialize', { protocolVersion: LATEST, capabilities: caps, clientInfo: CLIENT });
  const first = await fetch(url, { method: 'POST', headers: base, body: JSON.stringify(init) });
  assert.equal(first.status, 200);
  const sessionId = first.headers.get('mcp-session-id');
  assert.ok(sessionId !== null);
  await first.json();
  const headers = { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
  const post = (frame: Frame, more: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...headers, ...more }, body: JSON.stringify(frame) });
  const initialized = await post(notification('notifications/initialized'));
  assert.equal(initialized.status, 202);
  return {
    post,
    async request(frame: Frame, more: Record<string, string> = {}): Promise<Frame> {
      const response = await post(frame, more);
      assert.equal(response.headers.get('content-type'), 'application/json');
      return response.json();
    },
  };
}

/** The answer `result` gets on `wire`: on 2026-07-28, stamped (resultType and serverInfo; no caching fields). */
function answered(wire: { modern: boolean }, id: Id, result: Record<string, unknown>): Frame {
  if (!wire.modern) return ok(id, result);
  return ok(id, { ...result, resultType: 'complete', _meta: { ...(result._meta as object), [SERVER_INFO]: INFO } });
}

/** A server whose `echo` tool logs its run into `log` and keeps its context in `contexts`. */
function echoServer(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger, ...options });
  const log: string[] = [];
  const contexts: Context[] = [];
  server.tool('echo', { inputSchema: { type: 'object' } }, (args, ctx) => {
    log.push('handler');
    contexts.push(ctx);
    return text(JSON.stringify(args));
  });
  return { server, logger, log, contexts };
}

/** A middleware that logs `name:before <method>` and `name:after`, around next(). */
function around(log: string[], name: string): Middleware {
  return async (call, next) => {
    log.push(`${name}:before ${call.method}`);
    const result = await next();
    log.push(`${name}:after`);
    return result;
  };
}

const ECHO = { name: 'echo', arguments: { x: 1 } };

// ---------------------------------------------------------------------------------------------------------------
// The chain, on every wire

for (const kind of KINDS) {
  test(
    `${kind}: middleware run in registration order, the first outermost, its code after next() after the handler; initialize is not seen`,
    T,
    async (t) => {
      const { server, log, contexts } = echoServer();
      const calls: RequestCall[] = [];
      const first: Middleware = (call, next) => {
        calls.push(call);
        return around(log, 'a')(call, next);
      };
      assert.equal(server.intercept(first, around(log, 'b')).intercept(around(log, 'c')), server);
      const wire = await open(t, kind, server);
      assert.deepEqual(log, [], 'initialize and notifications/initialized pass no middleware');
      assert.deepEqual(await wire.request(1, 'tools/call', ECHO), answered(wire, 1, text('{"x":1}')));
      assert.deepEqual(log, [
        'a:before tools/call',
        'b:before tools/call',
        'c:before tools/call',
        'handler',
        'c:after',
        'b:after',
        'a:after',
      ]);
      // What a middleware sees: the method, the params as sent, and the very context the handler got.
      const [call] = calls;
      assert.equal(call!.method, 'tools/call');
      assert.deepEqual({ ...call!.params, _meta: undefined }, { ...ECHO, _meta: undefined });
      assert.equal(call!.ctx, contexts[0]);
      assert.equal(call!.ctx.era, wire.modern ? 'modern' : 'legacy');
      assert.equal(call!.ctx.protocolVersion, wire.modern ? MODERN : LATEST);
      assert.equal(call!.ctx.requestId, 1);
      assert.equal(call!.ctx.http === undefined, kind.startsWith('stdio'));
    },
  );

  test(
    `${kind}: a middleware's answer is the request's and the handler never runs; on 2026-07-28 it is stamped like a handler's`,
    T,
    async (t) => {
      const { server, log } = echoServer();
      server.intercept(around(log, 'outer'), (call) => {
        log.push(`answered ${call.method}`);
        return text('from middleware');
      });
      const wire = await open(t, kind, server);
      assert.deepEqual(await wire.request(1, 'tools/call', ECHO), answered(wire, 1, text('from middleware')));
      assert.deepEqual(log, ['outer:before tools/call', 'answered tools/call', 'outer:after']);
    },
  );

  test(
    `${kind}: a middleware reads what next() resolves with (on 2026-07-28 before stamping) and replaces it`,
    T,
    async (t) => {
      const { server, log } = echoServer();
      const seen: unknown[] = [];
      server.intercept(async (_call, next) => {
        const result = (await next()) as { content: { text: string }[] };
        seen.push(result);
        return text(`${result.content[0]!.text} (checked)`);
      });
      const wire = await open(t, kind, server);
      assert.deepEqual(await wire.request(1, 'tools/call', ECHO), answered(wire, 1, text('{"x":1} (checked)')));
      assert.deepEqual(seen, [text('{"x":1}')], 'no resultType, no serverInfo stamp');
      assert.deepEqual(log, ['handler']);
    },
  );

  test(
    `${kind}: a thrown ProtocolError is the answer exactly; any other throw is -32603 without its message, logged, and the next request is served`,
    T,
    async (t) => {
      const { server, log, logger } = echoServer();
      const secret = new Error('secret detail: db password');
      const late = new Error('failed after the handler');
      server.intercept(async (call, next) => {
        const mode = (call.params.arguments as { mode?: string } | undefined)?.mode;
        if (mode === 'refuse') throw new ProtocolError(-32000, 'Rate limited', { retryAfterMs: 1000 });
        if (mode === 'crash') throw secret;
        const result = await next();
        if (mode === 'late') throw late;
        return result;
      });
      const wire = await open(t, kind, server);
      assert.deepEqual(
        await wire.request(1, 'tools/call', { name: 'echo', arguments: { mode: 'refuse' } }),
        fail(1, { code: -32000, message: 'Rate limited', data: { retryAfterMs: 1000 } }),
      );
      assert.deepEqual(logger.errors, [], 'a ProtocolError is an answer, not a failure');
      assert.deepEqual(
        await wire.request(2, 'tools/call', { name: 'echo', arguments: { mode: 'crash' } }),
        fail(2, INTERNAL),
      );
      assert.deepEqual(log, [], 'the handler ran for neither');
      // Thrown after next(): the handler ran, and its result is not sent (nor is this a tool error on 2025).
      assert.deepEqual(
        await wire.request(3, 'tools/call', { name: 'echo', arguments: { mode: 'late' } }),
        fail(3, INTERNAL),
      );
      assert.deepEqual(log, ['handler']);
      assert.deepEqual(
        logger.errors.map(({ message, error }) => [message, error]),
        [
          ["handler for 'tools/call' failed", secret],
          ["handler for 'tools/call' failed", late],
        ],
      );
      assert.deepEqual(await wire.request(4, 'tools/call', ECHO), answered(wire, 4, text('{"x":1}')));
    },
  );

  test(
    `${kind}: next() called twice rejects, the request fails -32603 (logged) and the handler ran once`,
    T,
    async (t) => {
      const { server, log, logger } = echoServer();
      const second = deferred<unknown>();
      server.intercept(async (_call, next) => {
        await next();
        try {
          return await next();
        } catch (error) {
          second.resolve(error);
          throw error;
        }
      });
      const wire = await open(t, kind, server);
      assert.deepEqual(await wire.request(1, 'tools/call', ECHO), fail(1, INTERNAL));
      assert.deepEqual(log, ['handler']);
      const error = await second.promise;
      assert.ok(error instanceof Error);
      assert.equal(error.message, 'middleware 0 called next() twice');
      assert.deepEqual(logger.errors, [{ message: "handler for 'tools/call' failed", error }]);
    },
  );

  test(
    `${kind}: an extension's method passes the chain (tasks/get), and a task-augmented tools/call resolves next() with its task`,
    T,
    async (t) => {
      const server = createServer(INFO, { logger: new MemoryLogger() });
      const tasks = createTasksExtension();
      server.use(tasks);
      t.after(() => server.close());
      const release = deferred();
      server.tool('job', { taskSupport: wire2025(kind) ? 'optional' : 'required' }, async () => {
        await release.promise;
        return text('done');
      });
      const log: string[] = [];
      const resolved: unknown[] = [];
      server.intercept(async (call, next) => {
        log.push(call.method);
        const result = await next();
        resolved.push(result);
        return result;
      });
      const declares = { extensions: { [TASKS]: {} } };
      const wire = await open(t, kind, server, declares);
      const created = await wire.request(
        1,
        'tools/call',
        wire.modern ? { name: 'job', arguments: {} } : { name: 'job', arguments: {}, task: { ttl: 60_000 } },
        declares,
      );
      const taskId: string = wire.modern ? created.result.taskId : created.result.task.taskId;
      assert.equal(typeof taskId, 'string', JSON.stringify(created));
      // What next() resolved with is the task answer itself (on 2026-07-28, before the serverInfo stamp).
      const { _meta, ...unstamped } = created.result;
      assert.deepEqual(resolved, [wire.modern ? unstamped : created.result]);
      const got = await wire.request(2, 'tasks/get', { taskId }, declares);
      assert.equal(got.result.taskId, taskId, JSON.stringify(got));
      assert.deepEqual(log, ['tools/call', 'tasks/get']);
      release.resolve();
    },
  );
}

/** Whether `kind` speaks 2025. */
function wire2025(kind: Kind): boolean {
  return !kind.includes(MODERN);
}

test(
  'intercept refuses a middleware that is not a function, naming its position, and adds none of that call',
  T,
  async (t) => {
    const { server } = echoServer();
    const log: string[] = [];
    assert.throws(() => server.intercept(around(log, 'a'), 'log' as unknown as Middleware), {
      name: 'TypeError',
      message: 'intercept: middleware 1 must be a function',
    });
    assert.throws(() => server.intercept(undefined as unknown as Middleware), {
      name: 'TypeError',
      message: 'intercept: middleware 0 must be a function',
    });
    const wire = await open(t, 'stdio 2026-07-28', server);
    assert.deepEqual(await wire.request(1, 'tools/call', ECHO), answered(wire, 1, text('{"x":1}')));
    assert.deepEqual(log, [], 'the valid middleware of the refused call was not added');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// What the chain never sees

/** A server with `echo` and a `hold` tool that waits for `release`; every request the chain sees is logged. */
function holdingServer(options: ServerOptions = {}) {
  const made = echoServer(options);
  const started = deferred();
  const release = deferred();
  made.server.tool('hold', {}, async () => {
    started.resolve();
    await release.promise;
    return text('held');
  });
  made.server.intercept((call, next) => {
    made.log.push(`chain ${call.method} ${String(call.ctx.requestId)}`);
    return next();
  });
  return { ...made, started, release };
}

test(
  '2025: requests refused before the chain (not initialized, unknown method, capability not advertised, duplicate id, maxInFlight) never reach a middleware',
  T,
  async () => {
    const { server, log, started, release } = holdingServer({ maxInFlight: 2 });
    const client = new WireClient(server);
    assert.deepEqual(await client.request('tools/list', {}, 'early'), fail('early', NOT_INITIALIZED));
    await client.initialize();
    assert.deepEqual(
      await client.request('nope/nothing', {}, 'unknown'),
      fail('unknown', { code: -32601, message: 'Method not found', data: 'nope/nothing' }),
    );
    assert.deepEqual(
      await client.request('prompts/list', {}, 'prompts'),
      fail('prompts', { code: -32601, message: 'Method not found', data: 'prompts/list' }),
    );
    client.send(request('h', 'tools/call', { name: 'hold' }));
    await started.promise;
    assert.deepEqual(
      await client.request('tools/call', ECHO, 'h'),
      fail('h', { code: -32600, message: 'Invalid Request: request id "h" is already in flight' }),
    );
    client.send(request('h2', 'tools/call', { name: 'hold' }));
    assert.deepEqual(
      await client.request('ping', undefined, 'over'),
      fail('over', { code: -32603, message: 'Internal error: too many requests in flight (limit 2)' }),
    );
    release.resolve();
    assert.deepEqual(await client.response('h'), ok('h', text('held')));
    assert.deepEqual(await client.response('h2'), ok('h2', text('held')));
    assert.deepEqual(log, ['chain tools/call h', 'chain tools/call h2']);
    assert.deepEqual(await client.end(), []);
  },
);

test(
  '2026-07-28: requests refused before the chain (bad envelope, unsupported version, unknown or removed method, -32021, tampered requestState) never reach a middleware',
  T,
  async () => {
    const { server, log } = holdingServer();
    server.use(createTasksExtension());
    server.tool('ask', {}, (_args, ctx) =>
      ctx.inputResponses === undefined ? inputRequired({ name: elicitInput(NAME_FORM) }, { round: 1 }) : text('asked'),
    );
    const client = new WireClient(server);
    const send = (id: Id, method: string, params: object = {}, caps: object = {}) => {
      client.send(modern(method, params, id, { [CLIENT_CAPABILITIES]: caps }));
      return client.response(id);
    };
    const noCaps = await client.request('tools/call', { ...ECHO, _meta: { [PROTOCOL_VERSION]: MODERN } }, 'bare');
    assert.deepEqual(noCaps, fail('bare', MISSING_CAPS));
    assert.deepEqual(
      await send('unknown', 'nope/nothing'),
      fail('unknown', { code: -32601, message: 'Method not found', data: 'nope/nothing' }),
    );
    const removed = await send('removed', 'resources/subscribe', { uri: 'mem://a' });
    assert.equal(removed.error.code, -32601, JSON.stringify(removed));
    client.send(modern('tools/call', ECHO, 'version', { [PROTOCOL_VERSION]: '2026-07-29' }));
    assert.equal((await client.response('version')).error.code, -32022);
    const gated = await send('gated', 'tasks/get', { taskId: 'x' });
    assert.equal(gated.error.code, -32021, JSON.stringify(gated));
    const first = await send('round1', 'tools/call', { name: 'ask' }, { elicitation: {} });
    const { requestState } = first.result;
    assert.equal(typeof requestState, 'string', JSON.stringify(first));
    const tampered = await send(
      'tampered',
      'tools/call',
      { name: 'ask', inputResponses: { name: ACCEPT_ADA }, requestState: `${requestState}-TAMPERED` },
      { elicitation: {} },
    );
    assert.deepEqual(
      tampered,
      fail('tampered', { code: -32602, message: 'Invalid params: requestState failed verification' }),
    );
    assert.deepEqual(log, ['chain tools/call round1']);
    assert.deepEqual(await client.end(), []);
  },
);

/** Writes the frames as one chunk and resolves once the server's reader has handled all of it. */
async function deliver(client: WireClient, ...frames: Frame[]): Promise<void> {
  const text = frames.map((frame) => `${JSON.stringify(frame)}\n`).join('');
  const expected = Buffer.byteLength(text);
  let seen = 0;
  const consumed = new Promise<void>((resolve) => {
    // Registered after the server's own 'data' listener, so it runs once the server has handled the chunk.
    const onData = (chunk: Buffer | string): void => {
      seen += Buffer.byteLength(chunk);
      if (seen < expected) return;
      client.input.off('data', onData);
      resolve();
    };
    client.input.on('data', onData);
  });
  client.input.write(text);
  await consumed;
}

test('requests held behind a slow onInitialize pass the chain once each, on replay, in arrival order', T, async () => {
  const hookStarted = deferred();
  const hookRelease = deferred();
  const { server, log } = echoServer({
    onInitialize: async () => {
      log.push('hook:start');
      hookStarted.resolve();
      await hookRelease.promise;
      log.push('hook:end');
    },
  });
  server.intercept((call, next) => {
    log.push(`chain ${call.method} ${String(call.ctx.requestId)}`);
    return next();
  });
  const client = new WireClient(server);
  await deliver(
    client,
    request(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT }),
    notification('notifications/initialized'),
    request(1, 'tools/call', ECHO),
    request(2, 'ping'),
    request(3, 'tools/list'),
  );
  await hookStarted.promise;
  assert.deepEqual(log, ['hook:start'], 'nothing held passed the chain while the hook ran');
  hookRelease.resolve();
  assert.equal((await client.response(0)).result.protocolVersion, LATEST);
  assert.deepEqual(await client.response(1), ok(1, text('{"x":1}')));
  assert.deepEqual(await client.response(2), ok(2, {}));
  assert.equal((await client.response(3)).result.tools[0].name, 'echo');
  assert.deepEqual(log, [
    'hook:start',
    'hook:end',
    'chain tools/call 1',
    'handler',
    'chain ping 2',
    'chain tools/list 3',
  ]);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Input rounds: 2025 inside one next(), 2026-07-28 one pass per round trip

/** A server whose `ask` tool wants a name (inputRequired), and a middleware logging each pass and what it resolved. */
function askingServer() {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  const log: string[] = [];
  server.tool('ask', {}, (_args, ctx) => {
    const name = (ctx.inputResponses?.name?.content as { name?: string } | undefined)?.name;
    log.push(`handler ${name ?? 'no answer yet'}`);
    return name === undefined ? inputRequired({ name: elicitInput(NAME_FORM) }, { round: 1 }) : text(`Hello ${name}`);
  });
  server.intercept(async (call, next) => {
    log.push(`before ${call.method}`);
    const result = (await next()) as Record<string, unknown>;
    log.push(`after: ${'inputRequests' in result ? 'input required' : 'complete'}`);
    return result;
  });
  return { server, log, logger };
}

test(
  'stdio 2025-11-25: a tool asking for input passes the chain once; the round (elicitation/create) happens inside next()',
  T,
  async () => {
    const { server, log } = askingServer();
    const client = new WireClient(server);
    await client.initialize(LATEST, { elicitation: {} });
    client.send(request(1, 'tools/call', { name: 'ask' }));
    const asked = await client.waitFor((frame) => frame.method === 'elicitation/create');
    assert.deepEqual(log, ['before tools/call', 'handler no answer yet'], 'the middleware waits inside next()');
    client.send({ jsonrpc: '2.0', id: asked.id, result: ACCEPT_ADA });
    assert.deepEqual(await client.response(1), ok(1, text('Hello Ada')));
    assert.deepEqual(log, ['before tools/call', 'handler no answer yet', 'handler Ada', 'after: complete']);
    assert.deepEqual(await client.end(), []);
  },
);

for (const kind of ['stdio 2026-07-28', 'HTTP 2026-07-28 POST'] as const) {
  test(`${kind}: each input_required round trip is a request of its own and passes the chain`, T, async (t) => {
    const { server, log } = askingServer();
    const wire = await open(t, kind, server);
    const caps = { elicitation: {} };
    const first = await wire.request(1, 'tools/call', { name: 'ask' }, caps);
    assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
    const { requestState } = first.result;
    const retry = { name: 'ask', inputResponses: { name: ACCEPT_ADA }, requestState };
    assert.deepEqual(await wire.request(2, 'tools/call', retry, caps), answered(wire, 2, text('Hello Ada')));
    assert.deepEqual(log, [
      'before tools/call',
      'handler no answer yet',
      'after: input required',
      'before tools/call',
      'handler Ada',
      'after: complete',
    ]);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Cancellation: not a middleware event, but the signal of the call's context

for (const kind of ['stdio 2025-11-25', 'stdio 2026-07-28'] as const) {
  test(
    `${kind}: notifications/cancelled aborts call.ctx.signal (the client cancelled) and nothing is written for the request`,
    T,
    async (t) => {
      const { server, log } = echoServer();
      const started = deferred();
      const aborted = deferred<unknown>();
      const finished = deferred();
      server.tool('hold', {}, async (_args, ctx) => {
        started.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return text('too late');
      });
      server.intercept(async (call, next) => {
        call.ctx.signal.addEventListener('abort', () => aborted.resolve(call.ctx.signal.reason), { once: true });
        try {
          return { ...((await next()) as object), rewritten: true };
        } finally {
          log.push('after');
          finished.resolve();
        }
      });
      const client = new WireClient(server);
      t.after(() => client.end());
      const isModern = kind.includes(MODERN);
      if (!isModern) await client.initialize();
      client.send(isModern ? modern('tools/call', { name: 'hold' }, 5) : request(5, 'tools/call', { name: 'hold' }));
      await started.promise;
      client.send(notification('notifications/cancelled', { requestId: 5, reason: 'user' }));
      const reason = (await aborted.promise) as DOMException;
      assert.equal(reason.name, 'AbortError');
      assert.equal(reason.message, 'Request ended: the client cancelled the request');
      await finished.promise;
      assert.deepEqual(log, ['after'], 'the middleware ran to its end');
      // Nothing for request 5: the probe's answer is the very next frame.
      client.send(isModern ? modern('server/discover', {}, 'probe') : request('probe', 'ping'));
      assert.equal((await client.next()).id, 'probe');
      assert.deepEqual(client.unread(), []);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP: the carrying POST's ctx.http and ctx.auth

const METADATA = {
  resource: 'https://mcp.example.com/mcp',
  authorization_servers: ['https://as.example.com'],
};
const TOKENS: Record<string, { subject: string; scopes: string[] }> = {
  alice: { subject: 'alice', scopes: ['mcp:tools'] },
  bob: { subject: 'bob', scopes: ['mcp:tools'] },
};
const AUTH: HttpOptions['auth'] = { resourceMetadata: METADATA, verifyToken: async (token) => TOKENS[token] };

/** A server whose middleware records, per request, its probe header, subject and caller, and whether the handler
 * got the very same context. */
function probingServer() {
  const { server, contexts } = echoServer();
  const seen: { probe: unknown; subject: unknown; caller: string; call: RequestCall }[] = [];
  server.intercept((call, next) => {
    seen.push({
      probe: call.ctx.http?.headers['x-probe'],
      subject: call.ctx.auth?.subject,
      caller: call.ctx.caller,
      call,
    });
    return next();
  });
  return { server, seen, contexts };
}

test(
  'HTTP 2025-11-25 session: a middleware sees ctx.http and ctx.auth of the POST that carried each request',
  T,
  async (t) => {
    const { server, seen, contexts } = probingServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
    t.after(() => http.close());
    const session = await openSession(http.url, {}, { authorization: 'Bearer alice', 'x-probe': 'initialize' });
    assert.deepEqual(
      await session.request(request(1, 'tools/call', ECHO), { 'x-probe': 'first' }),
      ok(1, text('{"x":1}')),
    );
    assert.deepEqual(
      await session.request(request(2, 'tools/call', ECHO), { 'x-probe': 'second' }),
      ok(2, text('{"x":1}')),
    );
    assert.deepEqual(
      seen.map(({ probe, subject }) => [probe, subject]),
      [
        ['first', 'alice'],
        ['second', 'alice'],
      ],
    );
    assert.equal(seen[0]!.call.ctx, contexts[0]);
    assert.equal(seen[1]!.call.ctx, contexts[1]);
    // It speaks for the verified identity (issuer, subject, client), as the handler does.
    assert.deepEqual(
      seen.map(({ caller }) => caller),
      ['[null,"alice",null]', '[null,"alice",null]'],
    );
  },
);

test(
  'HTTP 2026-07-28 POST: a middleware sees ctx.http and ctx.auth of the POST that carried the request',
  T,
  async (t) => {
    const { server, seen, contexts } = probingServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
    t.after(() => http.close());
    for (const [id, token] of [
      [1, 'alice'],
      [2, 'bob'],
    ] as const) {
      const frame = modern('tools/call', ECHO, id);
      const headers = modernHeaders(frame, { authorization: `Bearer ${token}`, 'x-probe': `${token}'s` });
      const response = await raw(http.url, { headers, body: JSON.stringify(frame) });
      assert.deepEqual(response.json, answered({ modern: true }, id, text('{"x":1}')));
    }
    assert.deepEqual(
      seen.map(({ probe, subject }) => [probe, subject]),
      [
        ["alice's", 'alice'],
        ["bob's", 'bob'],
      ],
    );
    assert.equal(seen[0]!.call.ctx, contexts[0]);
    assert.deepEqual(
      seen.map(({ caller }) => caller),
      ['[null,"alice",null]', '[null,"bob",null]'],
      'each speaks for its own verified identity',
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Batches and listen streams

test('stdio 2025-03-26: each element of a batch passes the chain on its own', T, async () => {
  const { server, log } = echoServer();
  server.intercept((call, next) => {
    log.push(`chain ${call.method} ${String(call.ctx.requestId)}`);
    return next();
  });
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([request(1, 'tools/call', ECHO), request(2, 'ping')]);
  const answers: Frame[] = await client.next();
  assert.deepEqual(
    [...answers].sort((a, b) => a.id - b.id),
    [ok(1, text('{"x":1}')), ok(2, {})],
  );
  assert.deepEqual(log.sort(), ['chain ping 2', 'chain tools/call 1', 'handler']);
  assert.deepEqual(await client.end(), []);
});

test("stdio 2026-07-28: subscriptions/listen holds next() open for the stream's life", T, async () => {
  const { server, log } = echoServer();
  server.intercept(around(log, 'mw'));
  const client = new WireClient(server);
  client.send(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'sub'));
  await client.notification('notifications/subscriptions/acknowledged');
  server.notifyListChanged('tools');
  await client.notification('notifications/tools/list_changed');
  assert.deepEqual(log, ['mw:before subscriptions/listen'], 'the stream is still open: next() has not resolved');
  const rest = await client.end(); // end of input: the stream ends with its final result
  assert.equal(rest.length, 1);
  assert.equal(rest[0].id, 'sub');
  assert.equal(rest[0].result.resultType, 'complete');
  assert.deepEqual(log, ['mw:before subscriptions/listen', 'mw:after']);
});

// A middleware that forgets to return what next() resolved with (`await next();`, a habit from other frameworks) or
// answers something that is not a result object is the server's bug: it must fail as a handler's bug does (-32603,
// logged), never write a response with neither result nor error (2025) nor spread a string into a result (2026-07-28).
for (const kind of ['stdio 2025-11-25', 'stdio 2026-07-28'] as const) {
  test(
    `${kind}: a middleware answering no result object (undefined, null, a string, an array) fails the request -32603, logged`,
    T,
    async (t) => {
      const { server, log, logger } = echoServer();
      const answers: unknown[] = [undefined, null, 'done', [1]];
      server.intercept(async (call, next) => {
        await next();
        return answers[Number(call.ctx.requestId)];
      });
      const wire = await open(t, kind, server);
      for (const id of answers.keys())
        assert.deepEqual(await wire.request(id, 'tools/call', ECHO), fail(id, INTERNAL), `answer ${id}`);
      assert.equal(log.length, answers.length);
      assert.equal(logger.errors.length, answers.length);
    },
  );
}

// The chain answers at once when the handler does and every middleware returns next()'s own promise; a synchronous
// middleware that returns nothing at all, before or without calling next(), still fails as a bug, not as that answer.
for (const kind of ['stdio 2025-11-25', 'stdio 2026-07-28'] as const) {
  test(
    `${kind}: a synchronous middleware returning undefined fails the request -32603, logged, called next() or not`,
    T,
    async (t) => {
      const { server, logger } = echoServer();
      server.intercept((call, next) => {
        if (call.ctx.requestId === 1) void next();
        return undefined;
      });
      const wire = await open(t, kind, server);
      for (const id of [0, 1])
        assert.deepEqual(await wire.request(id, 'tools/call', ECHO), fail(id, INTERNAL), `id ${id}`);
      assert.deepEqual(
        logger.errors.map(({ message }) => message),
        [
          "middleware answered 'tools/call' with undefined, not a result object",
          "middleware answered 'tools/call' with undefined, not a result object",
        ],
      );
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The request's end, the chain's answer, and the chain a request runs

/** Sends `method` with `params` as request `id` on a stdio client of `era` (2026-07-28: the envelope declares `caps`). */
function send(client: WireClient, isModern: boolean, id: Id, method: string, params = {}, caps = {}): void {
  client.send(isModern ? modern(method, params, id, { [CLIENT_CAPABILITIES]: caps }) : request(id, method, params));
}

/**
 * A middleware that, for the request `id`, signals `entered`, notes its signal aborting in `aborted`, waits for `gate`,
 * then calls next() (signalling `called`) and settles `settled` with what next() rejected with, or 'resolved'; other
 * requests pass straight through.
 */
function heldAt(id: Id) {
  const entered = deferred();
  const aborted = deferred();
  const gate = deferred();
  const called = deferred();
  const settled = deferred<unknown>();
  const middleware: Middleware = async (call, next) => {
    if (call.ctx.requestId !== id) return next();
    call.ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
    entered.resolve();
    await gate.promise;
    const rest = next();
    called.resolve();
    try {
      const result = await rest;
      settled.resolve('resolved');
      return result;
    } catch (error) {
      settled.resolve(error);
      throw error;
    }
  };
  return { middleware, entered, aborted, gate, called, settled };
}

for (const kind of ['stdio 2025-11-25', 'stdio 2026-07-28'] as const) {
  test(
    `${kind}: next() called after the client cancelled the request rejects with the signal's reason, the handler never runs and nothing is written`,
    T,
    async (t) => {
      const { server, log } = echoServer();
      const held = heldAt(5);
      server.intercept(held.middleware);
      const client = new WireClient(server);
      t.after(() => client.end());
      const isModern = kind.includes(MODERN);
      if (!isModern) await client.initialize();
      send(client, isModern, 5, 'tools/call', ECHO);
      await held.entered.promise;
      client.send(notification('notifications/cancelled', { requestId: 5, reason: 'user' }));
      await held.aborted.promise;
      held.gate.resolve(); // only now does the middleware call next()
      const reason = (await held.settled.promise) as DOMException;
      assert.equal(reason.name, 'AbortError', String(reason));
      assert.equal(reason.message, 'Request ended: the client cancelled the request');
      assert.deepEqual(log, [], 'the handler never ran');
      // Nothing for request 5: the probe's answer is the very next frame.
      send(client, isModern, 'probe', isModern ? 'server/discover' : 'ping');
      assert.equal((await client.next()).id, 'probe');
      assert.deepEqual(client.unread(), []);
    },
  );
}

test(
  'stdio 2026-07-28: a subscriptions/listen whose middleware calls next() after the client cancelled it takes no listen slot (maxListens 1)',
  T,
  async (t) => {
    const { server } = echoServer({ maxListens: 1 });
    const held = heldAt('first');
    server.intercept(held.middleware);
    const client = new WireClient(server);
    t.after(() => client.end());
    const listen = { notifications: { toolsListChanged: true } };
    client.send(modern('subscriptions/listen', listen, 'first'));
    await held.entered.promise;
    client.send(notification('notifications/cancelled', { requestId: 'first' }));
    await held.aborted.promise;
    held.gate.resolve();
    await held.called.promise;
    // The one slot is free: the second listen is acknowledged (the very next frame).
    client.send(modern('subscriptions/listen', listen, 'second'));
    const ack = await client.next();
    assert.deepEqual(
      [ack.method, ack.params?._meta],
      ['notifications/subscriptions/acknowledged', { [SUBSCRIPTION_ID]: 'second' }],
      JSON.stringify(ack),
    );
    assert.equal(((await held.settled.promise) as DOMException).name, 'AbortError');
  },
);

// A middleware's answer is checked as a result: an InputRequired is one only where the method takes input, on
// 2026-07-28 (tools/call, prompts/get, resources/read); in 2025 input rounds happen inside next(), so a middleware's
// own InputRequired is the server's bug, as it is for a 2026-07-28 method without input (tools/list).
const ASK_NAME = () => inputRequired({ name: elicitInput(NAME_FORM) });

/** The methods whose InputRequired answer `logger` logged as not a result object, in order. */
function refusedInputs(logger: MemoryLogger): string[] {
  return logger.errors.map(({ message }) => {
    const [, method] =
      /^middleware answered '(.+)' with \{"inputRequests":.*, not a result object$/.exec(message) ?? [];
    return method ?? message;
  });
}

test(
  'stdio 2025-11-25: an InputRequired a middleware answers fails the request -32603, logged, for any method',
  T,
  async (t) => {
    const { server, log, logger } = echoServer();
    server.intercept(ASK_NAME);
    const wire = await open(t, 'stdio 2025-11-25', server, { elicitation: {} });
    assert.deepEqual(await wire.request(1, 'tools/call', ECHO), fail(1, INTERNAL));
    assert.deepEqual(await wire.request(2, 'tools/list'), fail(2, INTERNAL));
    assert.deepEqual(log, [], 'the handler never ran');
    assert.deepEqual(refusedInputs(logger), ['tools/call', 'tools/list']);
  },
);

test(
  "stdio 2026-07-28: an InputRequired a middleware answers is stamped input_required for tools/call as a handler's is, and fails tools/list -32603, logged",
  T,
  async (t) => {
    const { server, logger } = echoServer();
    server.tool('ask', {}, ASK_NAME);
    server.intercept((call, next) => (call.params.name === 'ask' ? next() : ASK_NAME()));
    const wire = await open(t, 'stdio 2026-07-28', server);
    const caps = { elicitation: {} };
    const fromHandler = await wire.request(1, 'tools/call', { name: 'ask' }, caps);
    assert.equal(fromHandler.result.resultType, 'input_required', JSON.stringify(fromHandler));
    assert.deepEqual(await wire.request(2, 'tools/call', ECHO, caps), { ...fromHandler, id: 2 });
    assert.deepEqual(logger.errors, []);
    assert.deepEqual(await wire.request(3, 'tools/list', {}, caps), fail(3, INTERNAL));
    assert.deepEqual(refusedInputs(logger), ['tools/list']);
  },
);

const LINK = { elicitationId: 'link-1', url: 'https://example.com/connect', message: 'Connect your account' };

test(
  'stdio 2026-07-28: a URL elicitation a middleware throws around tools/call answers input_required, as when the handler throws it',
  T,
  async (t) => {
    const { server, log, logger } = echoServer();
    server.tool('link', {}, () => {
      throw urlElicitationRequired([LINK]);
    });
    server.intercept((call, next) => {
      if (call.params.name === 'link') return next();
      throw urlElicitationRequired([LINK]);
    });
    const wire = await open(t, 'stdio 2026-07-28', server);
    const caps = { elicitation: { url: {} } };
    const fromHandler = await wire.request(1, 'tools/call', { name: 'link' }, caps);
    assert.deepEqual(
      fromHandler,
      ok(1, {
        resultType: 'input_required',
        inputRequests: {
          'link-1': { method: 'elicitation/create', params: { mode: 'url', message: LINK.message, url: LINK.url } },
        },
        _meta: { [SERVER_INFO]: INFO },
      }),
    );
    assert.deepEqual(await wire.request(2, 'tools/call', ECHO, caps), { ...fromHandler, id: 2 });
    assert.deepEqual([log, logger.errors], [[], []]);
  },
);

test(
  'stdio 2025-11-25: a URL elicitation a middleware throws is -32603, logged (the handler throws it to answer -32042)',
  T,
  async (t) => {
    const { server, log, logger } = echoServer();
    const thrown = urlElicitationRequired([LINK]);
    server.intercept(() => {
      throw thrown;
    });
    const wire = await open(t, 'stdio 2025-11-25', server, { elicitation: { url: {} } });
    assert.deepEqual(await wire.request(1, 'tools/call', ECHO), fail(1, INTERNAL));
    assert.deepEqual(log, []);
    assert.deepEqual(logger.errors, [{ message: "handler for 'tools/call' failed", error: thrown }]);
  },
);

for (const kind of ['stdio 2025-11-25', 'stdio 2026-07-28'] as const) {
  test(
    `${kind}: a middleware that leaves next() unawaited and answers itself while the handler rejects causes no unhandled rejection`,
    T,
    async (t) => {
      const { server } = echoServer();
      const unhandled: unknown[] = [];
      const spy = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', spy);
      t.after(() => process.off('unhandledRejection', spy));
      server.intercept((_call, next) => {
        next(); // the handler's -32602 is left unread
        return text('answered by the middleware');
      });
      const wire = await open(t, kind, server);
      const answer = await wire.request(1, 'tools/call', { name: 'missing', arguments: {} });
      assert.deepEqual(answer, answered(wire, 1, text('answered by the middleware')));
      // Two turns of the event loop: any unhandled rejection of this request has been reported by then.
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    },
  );

  test(
    `${kind}: intercept() while a request is inside the chain leaves that request's chain as it was; later requests run the new middleware`,
    T,
    async (t) => {
      const { server, log } = echoServer();
      const entered = deferred();
      const gate = deferred();
      server.intercept(async (call, next) => {
        log.push(`m1 ${String(call.ctx.requestId)}`);
        if (call.ctx.requestId === 1) {
          entered.resolve();
          await gate.promise;
        }
        return next();
      });
      const wire = await open(t, kind, server);
      const first = wire.request(1, 'tools/call', ECHO);
      await entered.promise;
      server.intercept((call, next) => {
        log.push(`m2 ${String(call.ctx.requestId)}`);
        return next();
      });
      gate.resolve();
      assert.deepEqual(await first, answered(wire, 1, text('{"x":1}')));
      assert.deepEqual(await wire.request(2, 'tools/call', ECHO), answered(wire, 2, text('{"x":1}')));
      assert.deepEqual(log, ['m1 1', 'handler', 'm1 2', 'm2 2', 'handler']);
    },
  );
}
