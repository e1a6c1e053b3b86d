// The Web-standard fetch handler (fetch.ts) on Node's own Request/Response/ReadableStream: the handler is called
// directly with `new Request(...)` objects (no sockets), plus one run served through a node:http bridge. Covers
// modern JSON and SSE answers read from `response.body`, listen streams, the consumer cancelling a stream and the
// request's signal aborting as cancellation, stateless 2025 by default (sessions opt-in), the limits and security
// checks, the headers of every response, ctx.http, CORS and close().
//
// Determinism: every wait is on an explicit signal (a deferred resolved inside a handler, the next SSE event read
// from a body, a source's cancel callback); nothing sleeps and nothing asserts on time.

import assert from 'node:assert/strict';
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { type Context, createServer, type Server } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from '../fetch.ts';
import type { AuthInfo } from '../types.ts';
import {
  firstChunkAtOnce,
  getStreamBound,
  heldStore,
  type Opened,
  pollingPost,
  resumedTwiceWhileStoring,
  type SessionClient,
  stepsTool,
  twoGetStreams,
} from './get-streams.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { encodeHeaderValue } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const MODERN = '2026-07-28';
const LATEST = '2025-11-25';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SUB = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const EVERYTHING_INFO = { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' };
const INFO = { name: 'fetch-test', version: '1.0.0' };
const URL_ = 'http://localhost/mcp';
const BOTH = 'application/json, text/event-stream';

type Id = string | number;
type Headers_ = Record<string, string>;

// ---------------------------------------------------------------------------------------------------------------
// Frames and requests

function modern(method: string, params: Record<string, unknown>, id: Id, meta: Record<string, unknown> = {}): Frame {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: MODERN, [CAPS]: {}, ...meta } } };
}

function call(name: string, args: Record<string, unknown>, id: Id, meta: Record<string, unknown> = {}): Frame {
  return modern('tools/call', { name, arguments: args }, id, meta);
}

function legacy(id: Id | undefined, method: string, params?: Record<string, unknown>): Frame {
  const frame: Frame = { jsonrpc: '2.0', method };
  if (id !== undefined) frame.id = id;
  if (params !== undefined) frame.params = params;
  return frame;
}

/** The headers a correct modern client sends for `frame`. */
function modernHeaders(frame: Frame): Headers_ {
  const headers: Headers_ = {
    'content-type': 'application/json',
    accept: BOTH,
    'mcp-protocol-version': MODERN,
    'mcp-method': frame.method,
  };
  const params = frame.params ?? {};
  if (frame.method === 'tools/call' || frame.method === 'prompts/get')
    headers['mcp-name'] = encodeHeaderValue(params.name);
  if (frame.method === 'resources/read') headers['mcp-name'] = encodeHeaderValue(params.uri);
  return headers;
}

/** A POST Request of `frame` (modern headers when it is enveloped, else JSON ones); `headers` add or override. */
function post(frame: Frame, headers: Headers_ = {}, init: RequestInit & { url?: string } = {}): Request {
  const enveloped = typeof frame === 'object' && frame.params?._meta?.[PV] !== undefined;
  const base = enveloped ? modernHeaders(frame) : { 'content-type': 'application/json', accept: BOTH };
  const { url = URL_, ...rest } = init;
  return new Request(url, {
    method: 'POST',
    headers: { ...base, ...headers },
    body: typeof frame === 'string' ? frame : JSON.stringify(frame),
    ...rest,
  });
}

function stamped(result: Record<string, unknown>, info: object = EVERYTHING_INFO): Record<string, unknown> {
  return { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: info } };
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A handler whose close() runs after the test (idempotent). */
function handlerFor(
  t: TestContext,
  server: Server = createEverythingServer(),
  options: FetchHandlerOptions = {},
): FetchHandler {
  const handle = createFetchHandler(server, { keepAliveMs: 0, ...options });
  t.after(() => handle.close());
  return handle;
}

function customServer(register: (server: Server) => void): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  register(server);
  return { server, logger };
}

async function assertJson(response: Response, status: number, frame: Frame): Promise<void> {
  const body = await response.text();
  assert.equal(response.status, status, `status (body: ${body})`);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.equal(response.headers.get('mcp-session-id'), null);
  assert.deepEqual(JSON.parse(body), frame);
}

async function assertError(response: Response, status: number, id: Id | null, code: number): Promise<void> {
  const body = await response.text();
  assert.equal(response.status, status, `status (body: ${body})`);
  assert.equal(response.headers.get('content-type'), 'application/json');
  const frame = JSON.parse(body);
  assert.equal(frame.id, id);
  assert.equal(frame.error.code, code);
  assert.ok(typeof frame.error.message === 'string' && frame.error.message.length > 0);
}

function assertSseHeaders(response: Response): void {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  assert.equal(response.headers.get('cache-control'), 'no-cache, no-transform');
  assert.equal(response.headers.get('x-accel-buffering'), 'no');
  assert.equal(response.headers.get('connection'), null, 'a fetch handler leaves hop-by-hop headers to the runtime');
}

/** A server whose tools wait for the test: `slow` (JSON phase) and `slow_progress` (streams first). */
function slowServer() {
  const started = deferred();
  const aborted = deferred();
  const release = deferred();
  const { server, logger } = customServer((s) => {
    const wait = async (ctx: Context) => {
      if (ctx.signal.aborted) aborted.resolve();
      else ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
      started.resolve();
      await aborted.promise;
      ctx.progress(2, 2, 'after the disconnect'); // the core must drop it
      await release.promise;
      return text('late answer'); // ignores its cancellation: the core must not write this
    };
    s.tool('slow', {}, (_args, ctx) => wait(ctx));
    s.tool('quick', {}, () => text('quick'));
    s.tool('slow_progress', {}, (_args, ctx) => {
      ctx.progress(1, 2, 'half way');
      return wait(ctx);
    });
  });
  return { server, logger, started, aborted, release };
}

const DISCOVER = modern('server/discover', {}, 'd1');

// ---------------------------------------------------------------------------------------------------------------
// Modern requests

test(
  'server/discover through the fetch handler is a JSON Response stamped with serverInfo, without a session id',
  T,
  async (t) => {
    const handle = handlerFor(t);
    const response = await handle(post(DISCOVER));
    const body = (await response.clone().json()) as Frame;
    await assertJson(response, 200, body);
    assert.equal(body.id, 'd1');
    assert.equal(body.result.resultType, 'complete');
    assert.deepEqual(body.result.supportedVersions, [MODERN]);
    assert.deepEqual(body.result._meta[SERVER_INFO], EVERYTHING_INFO);
    assert.equal(handle.sessionCount, 0);
  },
);

test('tools/call answers JSON; an unknown tool is in-band at 200, an unknown method 404 -32601', T, async (t) => {
  const handle = handlerFor(t);
  await assertJson(await handle(post(call('test_simple_text', {}, 1))), 200, {
    jsonrpc: '2.0',
    id: 1,
    result: stamped(text('This is a simple text response for testing.')),
  });
  const unknown = await handle(post(call('no_such_tool', {}, 2)));
  const frame = (await unknown.clone().json()) as Frame;
  await assertJson(unknown, 200, frame);
  assert.equal(frame.error.code, -32602);
  await assertError(await handle(post(modern('tools/explode', {}, 3))), 404, 3, -32601);
});

test(
  'a handler that reports progress answers SSE read from response.body: progress events, the result, then the end',
  T,
  async (t) => {
    const handle = handlerFor(t);
    const response = await handle(post(call('test_tool_with_progress', {}, 7, { progressToken: 'p1' })));
    assertSseHeaders(response);
    assert.equal(response.headers.get('mcp-session-id'), null);
    const events = await new SseReader(response.body!).rest();
    assert.ok(events.every((event) => event.event === 'message' && event.id === undefined));
    assert.deepEqual(
      events.map((event) => event.message),
      [
        ...[0, 50, 100].map((progress) => ({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'p1', progress, total: 100, message: `Completed step ${progress} of 100` },
        })),
        { jsonrpc: '2.0', id: 7, result: stamped(text('Progress completed')) },
      ],
    );
    // A client that accepts only JSON gets the answer alone.
    const quiet = await handle(
      post(call('test_tool_with_progress', {}, 8, { progressToken: 'p2' }), { accept: 'application/json' }),
    );
    await assertJson(quiet, 200, { jsonrpc: '2.0', id: 8, result: stamped(text('Progress completed')) });
  },
);

test(
  'a listen streams its ack and tagged list-changed events; cancelling response.body releases its connection',
  T,
  async (t) => {
    const server = createEverythingServer();
    const handle = handlerFor(t, server);
    const response = await handle(
      post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L1')),
    );
    assertSseHeaders(response);
    const reader = new SseReader(response.body!);
    assert.deepEqual((await reader.next())?.message, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUB]: 'L1' }, notifications: { toolsListChanged: true } },
    });
    await assertJson(await handle(post(call('test_trigger_tool_change', {}, 'trig'))), 200, {
      jsonrpc: '2.0',
      id: 'trig',
      result: stamped(text('Mutation triggered')),
    });
    assert.deepEqual((await reader.next())?.message, {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUB]: 'L1' } },
    });
    assert.equal(server.metrics().connections, 1);
    await reader.cancel(); // the consumer goes away
    assert.equal(server.metrics().connections, 0, 'the listen connection is closed with its stream');
    // The stream budget was given back: with maxStreams 1 a second listen still opens.
    const capped = handlerFor(t, server, { maxStreams: 1 });
    const first = await capped(
      post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'C1')),
    );
    const firstReader = new SseReader(first.body!);
    assert.equal((await firstReader.next())?.message.method, 'notifications/subscriptions/acknowledged');
    await assertError(
      await capped(post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'C2'))),
      503,
      'C2',
      -32603,
    );
    await firstReader.cancel();
    const again = await capped(
      post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'C3')),
    );
    const againReader = new SseReader(again.body!);
    assert.equal((await againReader.next())?.message.params._meta[SUB], 'C3');
    await againReader.cancel();
  },
);

test(
  'cancelling an SSE response body aborts the running handler; its later output is dropped; the server stays healthy',
  T,
  async (t) => {
    const { server, logger, started, aborted, release } = slowServer();
    const handle = handlerFor(t, server);
    const response = await handle(post(call('slow_progress', {}, 's1', { progressToken: 'tok' })));
    assertSseHeaders(response);
    const reader = new SseReader(response.body!);
    assert.deepEqual((await reader.next())?.message, {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 1, total: 2, message: 'half way' },
    });
    await started.promise;
    assert.equal(server.metrics().connections, 1);
    await reader.cancel();
    await aborted.promise; // the handler's AbortSignal fired
    assert.equal(server.metrics().connections, 0);
    release.resolve();
    await assertJson(await handle(post(call('quick', {}, 's2'))), 200, {
      jsonrpc: '2.0',
      id: 's2',
      result: stamped(text('quick'), INFO),
    });
    assert.deepEqual(logger.errors, []);
  },
);

test("an aborted request signal aborts a JSON-phase handler and still settles the handler's promise", T, async (t) => {
  const { server, logger, started, aborted, release } = slowServer();
  const handle = handlerFor(t, server);
  const controller = new AbortController();
  const pending = handle(post(call('slow', {}, 'a1'), {}, { signal: controller.signal }));
  await started.promise;
  controller.abort();
  await aborted.promise;
  const response = await pending; // nobody reads it, but the runtime is never left waiting
  assert.equal(response.status, 400);
  assert.equal(await response.text(), '');
  assert.equal(server.metrics().connections, 0);
  release.resolve();
  assert.deepEqual(logger.errors, []);
});

test('an aborted request signal ends an open SSE response and aborts its handler', T, async (t) => {
  const { server, started, aborted, release } = slowServer();
  const handle = handlerFor(t, server);
  const controller = new AbortController();
  const response = await handle(
    post(call('slow_progress', {}, 'a2', { progressToken: 'tok' }), {}, { signal: controller.signal }),
  );
  assertSseHeaders(response);
  const reader = new SseReader(response.body!);
  assert.equal((await reader.next())?.message.params.progress, 1);
  await started.promise;
  controller.abort();
  await aborted.promise;
  assert.equal(await reader.next(), undefined, 'the stream ends; the late progress is never queued');
  assert.equal(server.metrics().connections, 0);
  release.resolve();
});

test('a request whose signal is already aborted is answered at once and never served', T, async (t) => {
  let calls = 0;
  const { server } = customServer((s) =>
    s.tool('record', {}, () => {
      calls++;
      return text('ran');
    }),
  );
  const handle = handlerFor(t, server);
  for (const frame of [call('record', {}, 1), legacy(2, 'tools/call', { name: 'record', arguments: {} })]) {
    const response = await handle(post(frame, {}, { signal: AbortSignal.abort() }));
    assert.equal(response.status, 400);
    assert.equal(await response.text(), '');
  }
  assert.equal(calls, 0);
  assert.equal(server.metrics().connections, 0);
});

test('a request body that fails while it is read gets 400 with id null', T, async (t) => {
  const handle = handlerFor(t);
  const broken = new ReadableStream<Uint8Array>({
    pull() {
      throw new Error('the peer reset the stream');
    },
  });
  const request = new Request(URL_, {
    method: 'POST',
    headers: modernHeaders(DISCOVER),
    body: broken,
    duplex: 'half',
  } as RequestInit);
  await assertError(await handle(request), 400, null, -32600);
});

test(
  'an open SSE stream carries keep-alive comments when keepAliveMs is set; a negative keepAliveMs is refused',
  T,
  async (t) => {
    const handle = handlerFor(t, createEverythingServer(), { keepAliveMs: 1 });
    const response = await handle(
      post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'K')),
    );
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The keep-alive timer is unref'd (a served request's socket keeps a process alive); with no socket here, this
    // handle keeps the event loop running while we wait for the comment. It asserts nothing about time.
    const alive = setInterval(() => {}, 1000);
    let seen = '';
    try {
      while (!seen.includes('\n\n:\n\n')) {
        // after the ack, a comment-only block
        const chunk = await reader.read();
        assert.equal(chunk.done, false, `the stream ended early: ${seen}`);
        seen += decoder.decode(chunk.value, { stream: true });
      }
    } finally {
      clearInterval(alive);
    }
    assert.match(seen, /^event: message\ndata: [^\n]*acknowledged[^\n]*\n\n(:\n\n)+$/);
    await reader.cancel();
    assert.throws(() => createFetchHandler(createEverythingServer(), { keepAliveMs: -1 }), RangeError);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The 2025 era: stateless by default, sessions on request

test(
  '2025 requests are stateless by default: served without initialize at the header version, never a session id',
  T,
  async (t) => {
    const { server } = customServer((s) => s.tool('version', {}, (_args, ctx) => text(ctx.protocolVersion)));
    const handle = handlerFor(t, server);
    const initialize = await handle(
      post(legacy(1, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO })),
    );
    const initialized = (await initialize.clone().json()) as Frame;
    await assertJson(initialize, 200, initialized);
    assert.equal(initialized.result.protocolVersion, LATEST);
    const at = (id: Id, headers: Headers_) =>
      handle(post(legacy(id, 'tools/call', { name: 'version', arguments: {} }), headers));
    await assertJson(await at(2, { 'mcp-protocol-version': '2025-06-18' }), 200, {
      jsonrpc: '2.0',
      id: 2,
      result: text('2025-06-18'),
    });
    await assertJson(await at(3, {}), 200, { jsonrpc: '2.0', id: 3, result: text('2025-03-26') });
    const accepted = await handle(post(legacy(undefined, 'notifications/initialized')));
    assert.equal(accepted.status, 202);
    assert.equal(await accepted.text(), '');
    for (const method of ['GET', 'DELETE']) {
      const refused = await handle(
        new Request(URL_, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'x'.repeat(22) } }),
      );
      assert.equal(refused.headers.get('allow'), 'POST');
      await assertError(refused, 405, null, -32600);
    }
    assert.equal(handle.sessionCount, 0);
  },
);

test(
  'sessions: true keeps 2025 sessions: Mcp-Session-Id on initialize, later POSTs and a GET stream use it, DELETE ends it',
  T,
  async (t) => {
    const server = createEverythingServer();
    const handle = handlerFor(t, server, { sessions: true });
    const initialize = await handle(
      post(legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO })),
    );
    assert.equal(initialize.status, 200);
    const sessionId = initialize.headers.get('mcp-session-id');
    assert.ok(sessionId !== null);
    // The demo has an initialize hook, so the answer is streamed early (one event, after the priming event).
    assertSseHeaders(initialize);
    const answers = await new SseReader(initialize.body!).rest();
    assert.deepEqual(
      answers.map((event) => event.message.result.protocolVersion),
      [LATEST],
    );
    const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
    assert.equal((await handle(post(legacy(undefined, 'notifications/initialized'), session))).status, 202);
    const listed = await handle(post(legacy(1, 'tools/list'), session));
    assert.equal(listed.headers.get('mcp-session-id'), sessionId);
    assert.ok(((await listed.json()) as Frame).result.tools.length > 0);
    const get = await handle(new Request(URL_, { headers: { accept: 'text/event-stream', ...session } }));
    assertSseHeaders(get);
    assert.equal(get.headers.get('mcp-session-id'), sessionId);
    const reader = new SseReader(get.body!);
    server.notifyListChanged('tools');
    const event = await reader.next();
    assert.deepEqual(event?.message, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    assert.ok(event?.id !== undefined, 'GET stream events are stored for resumption');
    assert.equal(handle.sessionCount, 1);
    const deleted = await handle(new Request(URL_, { method: 'DELETE', headers: session }));
    assert.equal(deleted.status, 200);
    assert.equal(await reader.next(), undefined, 'ending the session ends its GET stream');
    assert.equal(handle.sessionCount, 0);
    await assertError(await handle(post(legacy(2, 'tools/list'), session)), 404, null, -32600);
  },
);

test(
  'sessions: true resumes streams as the node adapter does: the standalone stream replays what it got with no client attached; a resumed POST stream carries its later events and its answer, no broadcast',
  T,
  async (t) => {
    const second = deferred();
    const answer = deferred();
    const { server } = customServer((s) =>
      s.tool('steps', {}, async (_args, ctx) => {
        ctx.progress(1, 3);
        await second.promise;
        ctx.progress(2, 3);
        await answer.promise;
        return text('all steps');
      }),
    );
    const handle = handlerFor(t, server, { sessions: true });
    const initialize = await handle(
      post(legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO })),
    );
    const session = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': LATEST };
    await initialize.body?.cancel();
    assert.equal((await handle(post(legacy(undefined, 'notifications/initialized'), session))).status, 202);
    const get = async (extra: Headers_ = {}) =>
      new SseReader(
        await handle(new Request(URL_, { headers: { accept: 'text/event-stream', ...session, ...extra } })),
      );
    const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };

    const first = await get();
    server.notifyListChanged('tools');
    await first.next();
    server.notifyListChanged('tools');
    const e2 = (await first.next())!;
    await first.cancel();
    for (let i = 0; i < 3; i++) server.notifyListChanged('tools');
    const standalone = await get({ 'last-event-id': e2.id! });
    const missed = [(await standalone.next())!, (await standalone.next())!, (await standalone.next())!];
    assert.deepEqual(
      missed.map((event) => event.message),
      [changed, changed, changed],
    );
    assert.equal(new Set([e2.id, ...missed.map((event) => event.id)]).size, 4);

    const call = new SseReader(
      (
        await handle(
          post(legacy(3, 'tools/call', { name: 'steps', arguments: {}, _meta: { progressToken: 's3' } }), session),
        )
      ).body!,
    );
    const started = (await call.next())!;
    assert.deepEqual(started.message.params, { progressToken: 's3', progress: 1, total: 3 });
    await call.cancel();
    const resumed = await get({ 'last-event-id': started.id! });
    server.notifyListChanged('tools');
    assert.deepEqual(await standalone.message(), changed);
    second.resolve();
    assert.deepEqual((await resumed.message()).params, { progressToken: 's3', progress: 2, total: 3 });
    answer.resolve();
    assert.deepEqual(await resumed.message(), { jsonrpc: '2.0', id: 3, result: text('all steps') });
    await resumed.ended();
    await standalone.cancel();
  },
);

/** A 2025-11-25 session on `handle` (initialized), as the shared wire scenarios (test/get-streams.ts) drive it. */
async function sessionClient(handle: FetchHandler): Promise<SessionClient> {
  const initialize = await handle(
    post(legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO })),
  );
  const session = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': LATEST };
  await initialize.body?.cancel();
  assert.equal((await handle(post(legacy(undefined, 'notifications/initialized'), session))).status, 202);
  /** The client leaves by aborting its request's signal, as a runtime does when the connection drops. */
  const opened = async (request: (signal: AbortSignal) => Request): Promise<Opened> => {
    const controller = new AbortController();
    const response = await handle(request(controller.signal));
    return { response, leave: async () => controller.abort() };
  };
  return {
    get: (lastEventId) =>
      opened(
        (signal) =>
          new Request(URL_, {
            headers: {
              accept: 'text/event-stream',
              ...session,
              ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
            },
            signal,
          }),
      ),
    post: (frame) => opened((signal) => post(frame, session, { signal })),
  };
}

test(
  'two resumptions of one GET stream while its store is still writing: the earlier is ended, the later alone gets the replay and what follows',
  T,
  async (t) => {
    const server = createEverythingServer();
    const held = heldStore();
    await resumedTwiceWhileStoring(
      await sessionClient(handlerFor(t, server, { sessions: true, eventStore: held.store })),
      server,
      held,
    );
  },
);

test(
  'a fresh GET and a GET resumed with an empty replay answer with a first body chunk at once, before any message',
  T,
  async (t) => {
    await firstChunkAtOnce(await sessionClient(handlerFor(t, createEverythingServer(), { sessions: true })));
  },
);

test(
  'a second GET of a session is answered with its own stream; a message related to no request reaches exactly one: the newest attached',
  T,
  async (t) => {
    const server = createEverythingServer();
    await twoGetStreams(await sessionClient(handlerFor(t, server, { sessions: true })), server);
  },
);

test(
  'a looping client holds at most MAX_GET_STREAMS GET streams: the oldest ends, and its resumption loses nothing',
  T,
  async (t) => {
    const server = createEverythingServer();
    await getStreamBound(await sessionClient(handlerFor(t, server, { sessions: true })), server);
  },
);

test(
  'endStreamAfterPriming: true ends a POST stream after its priming event; the request runs on and a GET with Last-Event-ID gets its progress and answer',
  T,
  async (t) => {
    const { server } = customServer(() => {});
    const { release } = stepsTool(server);
    const handle = handlerFor(t, server, { sessions: true, endStreamAfterPriming: true });
    await pollingPost(await sessionClient(handle), release);
  },
);

test(
  'an endStreamAfterPriming function that throws is logged and taken for false: the POST is answered as usual',
  T,
  async (t) => {
    const { server, logger } = customServer((s) => s.tool('quick', {}, () => text('quick')));
    const endStreamAfterPriming = (): boolean => {
      throw new Error('a bug in the predicate');
    };
    const client = await sessionClient(handlerFor(t, server, { sessions: true, endStreamAfterPriming }));
    const { response } = await client.post(legacy(5, 'tools/call', { name: 'quick', arguments: {} }));
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { jsonrpc: '2.0', id: 5, result: text('quick') });
    assert.deepEqual(
      logger.errors.map((entry) => entry.message),
      ['endStreamAfterPriming threw; the stream stays open'],
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Limits and security

test('a declared Content-Length past maxBodyBytes gets 413 before the body is read', T, async (t) => {
  let calls = 0;
  const { server } = customServer((s) =>
    s.tool('record', {}, () => {
      calls++;
      return text('ran');
    }),
  );
  const handle = handlerFor(t, server, { maxBodyBytes: 64 });
  const frame = call('record', {}, 1);
  const response = await handle(post(frame, { 'content-length': '65' }));
  await assertError(response, 413, null, -32600);
  assert.equal(calls, 0);
});

test(
  'a streamed body past maxBodyBytes gets 413 while it arrives: its source is cancelled, never read to the end',
  T,
  async (t) => {
    const handle = handlerFor(t, createEverythingServer(), { maxBodyBytes: 1024 });
    const cancelled = deferred<void>();
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 100;
        controller.enqueue(new TextEncoder().encode(' '.repeat(100)));
      },
      cancel() {
        cancelled.resolve();
      },
    });
    const request = new Request(URL_, {
      method: 'POST',
      headers: modernHeaders(DISCOVER),
      body: endless,
      duplex: 'half',
    } as RequestInit);
    await assertError(await handle(request), 413, null, -32600);
    await cancelled.promise;
    assert.ok(pulled > 1024 && pulled < 1024 * 4, `read ${pulled} bytes of an endless body`);
    // Exactly at the limit is fine.
    const exact = JSON.stringify(DISCOVER);
    const fits = createFetchHandler(createEverythingServer(), { maxBodyBytes: Buffer.byteLength(exact) });
    assert.equal((await fits(post(exact, modernHeaders(DISCOVER)))).status, 200);
    fits.close();
  },
);

test(
  "refusals: 415 Content-Type, 421 Host (the URL's or a header), 403 Origin, 404 path, 405 method, 400 unparseable body",
  T,
  async (t) => {
    const handle = handlerFor(t, createEverythingServer(), { path: '/mcp' });
    await assertError(await handle(post(DISCOVER, { 'content-type': 'text/plain' })), 415, null, -32600);
    await assertError(await handle(post(DISCOVER, {}, { url: 'http://evil.example.com/mcp' })), 421, null, -32600);
    await assertError(await handle(post(DISCOVER, { host: 'evil.example.com' })), 421, null, -32600);
    await assertError(await handle(post(DISCOVER, { origin: 'http://evil.example.com' })), 403, null, -32600);
    assert.equal((await handle(post(DISCOVER, { origin: 'http://localhost:5173' }))).status, 200);
    await assertError(await handle(post(DISCOVER, {}, { url: 'http://localhost/other' })), 404, null, -32600);
    const put = await handle(new Request(URL_, { method: 'PUT', headers: modernHeaders(DISCOVER), body: '{}' }));
    assert.equal(put.headers.get('allow'), 'POST');
    await assertError(put, 405, null, -32600);
    await assertError(await handle(post('{"jsonrpc":', modernHeaders(DISCOVER))), 400, null, -32700);
    // A URL with a query string still names the path.
    assert.equal((await handle(post(DISCOVER, {}, { url: 'http://127.0.0.1:8080/mcp?x=1' }))).status, 200);
  },
);

test(
  'every response carries the right headers: JSON answers, 202, SSE, refusals; none leaks a session id',
  T,
  async (t) => {
    const handle = handlerFor(t);
    const cases: { name: string; request: Request; status: number; type: string | null }[] = [
      { name: 'JSON answer', request: post(DISCOVER), status: 200, type: 'application/json' },
      { name: 'in-band error', request: post(call('no_such_tool', {}, 2)), status: 200, type: 'application/json' },
      {
        name: 'notification',
        request: post({
          jsonrpc: '2.0',
          method: 'notifications/initialized',
          params: { _meta: { [PV]: MODERN, [CAPS]: {} } },
        }),
        status: 202,
        type: null,
      },
      {
        name: 'SSE',
        request: post(call('test_tool_with_progress', {}, 3, { progressToken: 'p' })),
        status: 200,
        type: 'text/event-stream',
      },
      {
        name: 'header mismatch',
        request: post(DISCOVER, { 'mcp-method': 'tools/list' }),
        status: 400,
        type: 'application/json',
      },
      {
        name: 'not acceptable',
        request: post(DISCOVER, { accept: 'text/html' }),
        status: 406,
        type: 'application/json',
      },
      { name: 'stateless 2025', request: post(legacy(4, 'ping')), status: 200, type: 'application/json' },
    ];
    for (const { name, request, status, type } of cases) {
      const response = await handle(request);
      assert.equal(response.status, status, name);
      assert.equal(response.headers.get('content-type'), type, name);
      assert.equal(response.headers.get('mcp-session-id'), null, name);
      assert.equal(response.headers.get('access-control-allow-origin'), null, `${name}: no CORS unless configured`);
      const body = await response.text();
      if (type === null) assert.equal(body, '', name);
      else if (type === 'application/json') assert.doesNotThrow(() => JSON.parse(body), name);
      else assert.match(body, /^event: message\ndata: /, name);
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// What handlers see, CORS, close()

function whoamiServer() {
  return customServer((s) =>
    s.tool('whoami', {}, (_args, ctx) => ({
      content: [],
      structuredContent: { http: ctx.http === undefined ? null : { ...ctx.http } },
    })),
  );
}

test(
  'handlers see the request headers and the remote address passed to the handler as ctx.http, in both eras',
  T,
  async (t) => {
    const { server } = whoamiServer();
    const handle = handlerFor(t, server);
    const modernCall = call('whoami', {}, 1);
    const response = await handle(post(modernCall, { 'x-tenant': 'acme' }), { remoteAddress: '203.0.113.7' });
    const seen = ((await response.json()) as Frame).result.structuredContent.http;
    assert.equal(seen.remoteAddress, '203.0.113.7');
    assert.equal(seen.headers['x-tenant'], 'acme');
    assert.equal(seen.headers['mcp-method'], 'tools/call');
    assert.equal(seen.headers.host, 'localhost', "the URL's host stands in for a Host header");
    const stateless = await handle(
      post(legacy(2, 'tools/call', { name: 'whoami', arguments: {} }), {
        'x-tenant': 'globex',
        'mcp-protocol-version': LATEST,
      }),
    );
    const legacySeen = ((await stateless.json()) as Frame).result.structuredContent.http;
    assert.deepEqual(Object.keys(legacySeen), ['headers'], 'no remoteAddress when the runtime gave none');
    assert.equal(legacySeen.headers['x-tenant'], 'globex');
    // stdio has no HTTP request.
    const client = new WireClient(server);
    await client.initialize();
    const overStdio = await client.request('tools/call', { name: 'whoami', arguments: {} });
    assert.deepEqual(overStdio.result.structuredContent, { http: null });
    await client.end();
  },
);

test(
  'CORS through the fetch handler: preflight 204 with the allowed headers, Allow-Origin and Expose-Headers on answers',
  T,
  async (t) => {
    const handle = handlerFor(t, createEverythingServer(), {
      cors: { origins: ['https://app.example.com'], maxAgeSeconds: 60 },
    });
    const preflight = await handle(
      new Request(URL_, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, mcp-method, mcp-param-region',
        },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(await preflight.text(), '');
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, DELETE, OPTIONS');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /(^|, )mcp-param-region$/);
    assert.equal(preflight.headers.get('access-control-max-age'), '60');
    const answer = await handle(post(DISCOVER, { origin: 'https://app.example.com' }));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(answer.headers.get('access-control-expose-headers'), 'Mcp-Session-Id');
    const stream = await handle(
      post(call('test_tool_with_progress', {}, 5, { progressToken: 'p' }), { origin: 'https://app.example.com' }),
    );
    assertSseHeaders(stream);
    assert.equal(stream.headers.get('access-control-allow-origin'), 'https://app.example.com');
    await stream.body!.cancel();
    await assertError(await handle(post(DISCOVER, { origin: 'https://other.example.com' })), 403, null, -32600);
  },
);

test(
  'close() ends an open listen with its final result and answers a running request 503 with its id',
  T,
  async (t) => {
    const { server, started, release } = slowServer();
    const handle = handlerFor(t, server);
    const listening = await handle(
      post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L')),
    );
    const reader = new SseReader(listening.body!);
    assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
    const running = handle(post(call('slow', {}, 'r')));
    await started.promise;
    handle.close();
    const final = await reader.next();
    assert.equal(final?.message.id, 'L');
    assert.ok('result' in final!.message, JSON.stringify(final?.message));
    assert.equal(await reader.next(), undefined);
    await assertError(await running, 503, 'r', -32603);
    assert.equal(server.metrics().connections, 0);
    release.resolve();
  },
);

const SHUTTING_DOWN = { code: -32603, message: 'Service Unavailable: the server is shutting down' };

/** A server whose `held` tool signals that it started and answers once released; `quick` answers at once. */
function heldServer() {
  const release = deferred();
  const started = deferred();
  const { server } = customServer((s) => {
    s.tool('quick', {}, () => text('quick'));
    s.tool('held', {}, async () => {
      started.resolve();
      await release.promise;
      return text('late');
    });
  });
  return { server, started, release };
}

test(
  'close() refuses what arrives during the drain: a call, a listen and an initialize get 503 -32603 and mint nothing; the running request still answers',
  T,
  async (t) => {
    const { server, started, release } = heldServer();
    const handle = handlerFor(t, server, { sessions: true });
    const running = handle(post(call('held', {}, 'r')));
    await started.promise;
    const closed = handle.close(60_000);
    const refusal = { jsonrpc: '2.0', id: null, error: SHUTTING_DOWN };
    await assertJson(await handle(post(call('quick', {}, 'q'))), 503, refusal);
    await assertJson(
      await handle(post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L'))),
      503,
      refusal,
    );
    await assertJson(
      await handle(post(legacy(1, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO }))),
      503,
      refusal,
    );
    assert.equal(handle.sessionCount, 0);
    release.resolve();
    await assertJson(await running, 200, { jsonrpc: '2.0', id: 'r', result: stamped(text('late'), INFO) });
    await closed;
    assert.equal(server.metrics().connections, 0);
  },
);

test(
  "a stateless 2025 request's connection ends with its answer, and close() gives a running one the drain window: cut, it is answered 503",
  T,
  async (t) => {
    const { server, started, release } = heldServer();
    const handle = handlerFor(t, server);
    for (const id of [1, 2, 3])
      await assertJson(await handle(post(legacy(id, 'tools/call', { name: 'quick', arguments: {} }))), 200, {
        jsonrpc: '2.0',
        id,
        result: text('quick'),
      });
    assert.equal(server.metrics().connections, 0, 'no connection outlives its answer');
    const running = handle(post(legacy(4, 'tools/call', { name: 'held', arguments: {} })));
    await started.promise;
    await handle.close(0);
    release.resolve();
    await assertJson(await running, 503, { jsonrpc: '2.0', id: 4, error: SHUTTING_DOWN });
    assert.equal(server.metrics().connections, 0);
  },
);

test(
  'close() also refuses a request admitted just before it began: a body still arriving, a token still being verified, a shared session still loading',
  T,
  async (t) => {
    const refusal = { jsonrpc: '2.0', id: null, error: SHUTTING_DOWN };
    // A body that arrives only once close() began.
    const bodyHandle = handlerFor(t, heldServer().server);
    let finishBody!: () => void;
    const frame = JSON.stringify(call('quick', {}, 'b'));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(frame.slice(0, 10)));
        finishBody = () => {
          controller.enqueue(new TextEncoder().encode(frame.slice(10)));
          controller.close();
        };
      },
    });
    const arriving = bodyHandle(post(call('quick', {}, 'b'), {}, { body, duplex: 'half' } as RequestInit));
    const bodyClosed = bodyHandle.close();
    finishBody();
    await assertJson(await arriving, 503, refusal);
    await bodyClosed;
    // A token verified only once close() began, for a POST and for a GET.
    const verified: ((info: AuthInfo) => void)[] = [];
    const verifying = deferred();
    const authHandle = handlerFor(t, heldServer().server, {
      sessions: true,
      auth: {
        resourceMetadata: { resource: 'http://localhost/mcp', authorization_servers: ['https://auth.example.com'] },
        verifyToken: () =>
          new Promise((resolve) => {
            verified.push(resolve);
            if (verified.length === 2) verifying.resolve();
          }),
      },
    });
    const bearer = { authorization: 'Bearer t' };
    const authedPost = authHandle(post(call('quick', {}, 'a'), bearer));
    const authedGet = authHandle(
      new Request(URL_, { headers: { ...bearer, accept: 'text/event-stream', 'mcp-session-id': 's'.repeat(22) } }),
    );
    await verifying.promise;
    const authClosed = authHandle.close();
    for (const resolve of verified) resolve({ subject: 'alice', scopes: [] });
    await assertJson(await authedPost, 503, refusal);
    await assertJson(await authedGet, 503, refusal);
    await authClosed;
    // A shared session record loaded only once close() began.
    const loading = deferred<undefined>();
    const loadCalled = deferred();
    const sharedHandle = handlerFor(t, heldServer().server, {
      sessions: true,
      sharedSessions: {
        save: () => {},
        load: () => {
          loadCalled.resolve();
          return loading.promise;
        },
        remove: () => {},
      },
    });
    const restoring = sharedHandle(
      post(legacy(1, 'tools/call', { name: 'quick', arguments: {} }), { 'mcp-session-id': 's'.repeat(22) }),
    );
    await loadCalled.promise;
    const sharedClosed = sharedHandle.close();
    loading.resolve(undefined);
    await assertJson(await restoring, 503, refusal);
    await sharedClosed;
    assert.equal(sharedHandle.sessionCount, 0);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Served through node:http

/** Serves a fetch handler on node:http: the request body as a web stream, the client's going away as its signal. */
function bridge(handle: FetchHandler) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const controller = new AbortController();
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (let i = 0; i < incoming.rawHeaders.length; i += 2)
      headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
    const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
    const request = new Request(`http://${incoming.headers.host}${incoming.url}`, {
      method: incoming.method,
      headers,
      body: hasBody ? (Readable.toWeb(incoming) as ReadableStream<Uint8Array>) : undefined,
      duplex: 'half',
      signal: controller.signal,
    } as RequestInit);
    const response = await handle(request, { remoteAddress: incoming.socket.remoteAddress });
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null) {
      outgoing.end();
      return;
    }
    outgoing.flushHeaders();
    const reader = response.body.getReader();
    outgoing.once('close', () => void reader.cancel().catch(() => {}));
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) outgoing.write(chunk.value);
    } catch {
      // cancelled: the client is gone
    }
    outgoing.end();
  };
}

test(
  'served through a node:http bridge: JSON, an SSE stream, and a client disconnect that aborts the handler',
  T,
  async (t) => {
    const { server, started, aborted, release } = slowServer();
    const slow = createFetchHandler(server, { keepAliveMs: 0 });
    const demo = createFetchHandler(createEverythingServer(), { keepAliveMs: 0 });
    const node = createNodeServer((incoming, outgoing) => {
      void bridge(incoming.url === '/slow' ? slow : demo)(incoming, outgoing);
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    t.after(
      () =>
        new Promise<void>((resolve) => {
          slow.close();
          demo.close();
          node.closeAllConnections();
          node.close(() => resolve());
        }),
    );
    const base = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
    const send = (frame: Frame, path = '/mcp', signal?: AbortSignal) =>
      fetch(base + path, { method: 'POST', headers: modernHeaders(frame), body: JSON.stringify(frame), signal });
    const discovered = await send(DISCOVER);
    assert.equal(discovered.status, 200);
    assert.equal(((await discovered.json()) as Frame).result.resultType, 'complete');
    const streamed = await send(call('test_tool_with_progress', {}, 2, { progressToken: 'p' }));
    assert.equal(streamed.headers.get('content-type'), 'text/event-stream');
    const events = await new SseReader(streamed.body!).rest();
    assert.deepEqual(
      events.map((event) => event.message.method ?? event.message.id),
      ['notifications/progress', 'notifications/progress', 'notifications/progress', 2],
    );
    const controller = new AbortController();
    const pending = send(call('slow', {}, 3), '/slow', controller.signal);
    await started.promise;
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await aborted.promise; // the socket closed → the request's signal → the handler's signal
    release.resolve();
  },
);
