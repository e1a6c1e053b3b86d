// What operators read from a running server (docs/http-deployment.md, Metrics and tracing): the `mcp-core:request`
// TracingChannel of node:diagnostics_channel, whose exact events a subscriber checks for a tools/call on stdio, on
// node:http in both eras and on the fetch handler, with the outcomes result, error, cancelled and abandoned, and a
// method the server does not serve under one label; and the
// metrics snapshots of the server and of the HTTP handlers, which move as connections, requests, listens, sessions,
// SSE streams and tasks open and close, return to zero, and count error answers by code. Every wait is on an
// explicit signal: a frame, an SSE event, a trace event, a handler's deferred, or the server-side close of an
// exchange.

import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { type TestContext, test } from 'node:test';
import { createServer, ProtocolError, REQUEST_TRACING_CHANNEL, type RequestTrace, type Server } from '../core.ts';
import { createFetchHandler } from '../fetch.ts';
import { serveHttp } from '../http.ts';
import { createTasksExtension } from '../tasks/tasks-extension.ts';
import { deferred, type Frame, WireClient } from './harness.ts';
import { modernHeaders, watchExchanges } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { modern, notification, ok, request } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time
const LATEST = '2025-11-25';
const CLIENT = { name: 'operators-test', version: '1.0.0' };
const BOTH = 'application/json, text/event-stream';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;

type EventName = (typeof EVENTS)[number];
/** One published event: its name and a copy of the context object's fields at that moment. */
type Recorded = { event: EventName } & Partial<RequestTrace>;

/**
 * Subscribes to the request TracingChannel for the rest of the test, recording each event with a copy of its
 * context (the same object moves through a request's events); `until` resolves at the first matching event.
 */
function subscribe(t: TestContext) {
  const channel = tracingChannel(REQUEST_TRACING_CHANNEL);
  const recorded: Recorded[] = [];
  const waiters: { match(event: Recorded): boolean; resolve(): void }[] = [];
  const handlers = Object.fromEntries(
    EVENTS.map((event) => [
      event,
      (context: object) => {
        const copy = { event, ...context } as Recorded;
        recorded.push(copy);
        for (const waiter of waiters.filter((w) => w.match(copy))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      },
    ]),
  ) as Record<EventName, (context: object) => void>;
  channel.subscribe(handlers);
  let subscribed = true;
  const unsubscribe = (): void => {
    if (subscribed) channel.unsubscribe(handlers);
    subscribed = false;
  };
  t.after(unsubscribe);
  return {
    recorded,
    unsubscribe,
    /** The events of the request `method` with id `id`. */
    of: (method: string, id: string | number): Recorded[] =>
      recorded.filter((event) => event.method === method && event.requestId === id),
    until(match: (event: Recorded) => boolean): Promise<void> {
      if (recorded.some(match)) return Promise.resolve();
      const { promise, resolve } = deferred();
      waiters.push({ match, resolve });
      return promise;
    },
  };
}

/** The four events of a request answered with `result`: start and end before, asyncStart and asyncEnd after. */
function answered(base: Partial<RequestTrace>, result: unknown): Recorded[] {
  const end = { ...base, outcome: 'result' as const, result };
  return [
    { event: 'start', ...base },
    { event: 'end', ...base },
    { event: 'asyncStart', ...end },
    { event: 'asyncEnd', ...end },
  ];
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A server with `echo`, a `hold` tool that waits for the test (each call's `started` and `release`), and a prompt. */
function fixture() {
  const server = createServer({ name: 'operators', version: '1.0.0' });
  const holds: { started: ReturnType<typeof deferred<void>>; release: ReturnType<typeof deferred<void>> }[] = [];
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { says: { type: 'string' } } } },
    ({ says }: { says?: string }) => text(`echo: ${says ?? ''}`),
  );
  const hold = () => {
    const entry = { started: deferred<void>(), release: deferred<void>() };
    holds.push(entry);
    return entry;
  };
  let next = hold();
  server.tool('hold', { taskSupport: 'optional' }, async (_args, ctx) => {
    const entry = next;
    next = hold();
    ctx.progress(1, 2);
    entry.started.resolve();
    await entry.release.promise;
    return text('released');
  });
  server.tool('refuse', {}, () => {
    throw new ProtocolError(-32042, 'refused on purpose');
  });
  return {
    server,
    /** The `n`-th call of `hold` (0-based), made or to be made. */
    hold(n: number) {
      while (holds.length <= n) hold();
      return holds[n]!;
    },
  };
}

function initialize(id: string | number, protocolVersion = LATEST): Frame {
  return request(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: CLIENT });
}

function call(id: string | number, name: string, args: Record<string, unknown> = {}, meta?: object): Frame {
  const params: Record<string, unknown> = { name, arguments: args };
  if (meta !== undefined) params._meta = meta;
  return request(id, 'tools/call', params);
}

/** A served 2025 session over node:http: its POST helper and id. */
async function httpSession(url: string) {
  const post = (frame: Frame, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH, ...headers },
      body: JSON.stringify(frame),
    });
  const init = await post(initialize(1));
  assert.equal(init.status, 200);
  await init.json();
  const sessionId = init.headers.get('mcp-session-id')!;
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
  assert.equal((await post(notification('notifications/initialized'), headers)).status, 202);
  return { sessionId, post: (frame: Frame) => post(frame, headers), headers };
}

function postModern(url: string, frame: Frame, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: modernHeaders(frame, extra), body: JSON.stringify(frame) });
}

// ---------------------------------------------------------------------------------------------------------------
// Tracing

test(
  'stdio: a tools/call publishes start, end, asyncStart, asyncEnd with method, id, era, transport, trace keys and its result',
  T,
  async (t) => {
    const { server } = fixture();
    const traces = subscribe(t);
    const client = new WireClient(server);
    await client.initialize();
    const frame = await client.request(
      'tools/call',
      { name: 'echo', arguments: { says: 'hi' }, _meta: { traceparent: TRACEPARENT } },
      2,
    );
    assert.deepEqual(frame, ok(2, text('echo: hi')));
    await client.end();
    assert.deepEqual(
      traces.of('tools/call', 2),
      answered(
        { method: 'tools/call', requestId: 2, transport: 'stdio', era: 'legacy', trace: { traceparent: TRACEPARENT } },
        text('echo: hi'),
      ),
    );
    // The initialize decided the era while it ran: undefined at its start, legacy from its end on.
    assert.deepEqual(
      traces.recorded.filter((event) => event.method === 'initialize').map(({ event, era }) => [event, era]),
      [
        ['start', undefined],
        ['end', 'legacy'],
        ['asyncStart', 'legacy'],
        ['asyncEnd', 'legacy'],
      ],
    );
  },
);

test(
  "stdio: a method the server does not serve is traced as 'other', so labels by method stay bounded; core and extension methods by name",
  T,
  async (t) => {
    const { server } = fixture();
    server.use({
      id: 'com.example/traced',
      settings: {},
      legacyMethods: { 'traced/echo': { serve: () => ({ echoed: true }) } },
      legacyCapabilities: () => ({}),
    });
    const traces = subscribe(t);
    const client = new WireClient(server);
    await client.initialize();
    const unserved = await client.request('made/up-7f3a9c', {}, 2);
    assert.equal(unserved.error.code, -32601);
    assert.deepEqual(await client.request('traced/echo', {}, 3), ok(3, { echoed: true }));
    assert.deepEqual(await client.request('ping', {}, 4), ok(4, {}));
    await client.end();
    assert.deepEqual(
      traces.recorded.filter((event) => event.event === 'asyncEnd').map(({ method, requestId }) => [method, requestId]),
      [
        ['initialize', 1000],
        ['other', 2],
        ['traced/echo', 3],
        ['ping', 4],
      ],
    );
    assert.deepEqual(
      traces.of('other', 2).map(({ event, outcome, errorCode }) => [event, outcome, errorCode]),
      [
        ['start', undefined, undefined],
        ['end', undefined, undefined],
        ['error', 'error', -32601],
        ['asyncStart', 'error', -32601],
        ['asyncEnd', 'error', -32601],
      ],
    );
    assert.equal(
      traces.recorded.some((event) => event.method === 'made/up-7f3a9c'),
      false,
    );
  },
);

test(
  'stdio: the handler runs inside the start channel stores, so an AsyncLocalStorage bound to it follows the request',
  T,
  async (t) => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const storage = new AsyncLocalStorage<string>();
    const channel = tracingChannel(REQUEST_TRACING_CHANNEL);
    channel.start.bindStore(storage, (context) => `span of ${(context as RequestTrace).method}`);
    t.after(() => channel.start.unbindStore(storage));
    const server = createServer({ name: 'operators', version: '1.0.0' });
    server.tool('span', {}, async () => {
      await Promise.resolve();
      return text(storage.getStore() ?? 'no span');
    });
    const client = new WireClient(server);
    await client.initialize();
    assert.deepEqual(
      await client.request('tools/call', { name: 'span', arguments: {} }, 2),
      ok(2, text('span of tools/call')),
    );
    await client.end();
  },
);

test(
  'stdio: an error answer adds the error event (code and what was thrown) before asyncStart; an unknown tool is -32602',
  T,
  async (t) => {
    const { server } = fixture();
    const traces = subscribe(t);
    const client = new WireClient(server);
    await client.initialize();
    const refused = await client.request('tools/call', { name: 'refuse', arguments: {} }, 2);
    assert.deepEqual(refused.error, { code: -32042, message: 'refused on purpose' });
    const unknown = await client.request('tools/call', { name: 'nope', arguments: {} }, 3);
    assert.equal(unknown.error.code, -32602);
    await client.end();
    const events = traces.of('tools/call', 2);
    assert.deepEqual(
      events.map(({ event, outcome, errorCode }) => [event, outcome, errorCode]),
      [
        ['start', undefined, undefined],
        ['end', undefined, undefined],
        ['error', 'error', -32042],
        ['asyncStart', 'error', -32042],
        ['asyncEnd', 'error', -32042],
      ],
    );
    assert.ok(events[2]!.error instanceof ProtocolError);
    assert.equal((events[2]!.error as ProtocolError).message, 'refused on purpose');
    assert.equal(events[2]!.result, undefined);
    assert.deepEqual(
      traces.of('tools/call', 3).map(({ event, errorCode }) => [event, errorCode]),
      [
        ['start', undefined],
        ['end', undefined],
        ['error', -32602],
        ['asyncStart', -32602],
        ['asyncEnd', -32602],
      ],
    );
  },
);

test(
  'stdio: a cancelled call ends with outcome cancelled and no error event; one cut by the connection closing, abandoned',
  T,
  async (t) => {
    const fx = fixture();
    const traces = subscribe(t);
    const client = new WireClient(fx.server);
    await client.initialize();
    client.send(call(2, 'hold'));
    await fx.hold(0).started.promise;
    client.send(notification('notifications/cancelled', { requestId: 2 }));
    await traces.until((event) => event.requestId === 2 && event.event === 'asyncEnd');
    const base = { method: 'tools/call', requestId: 2, transport: 'stdio', era: 'legacy' as const, trace: undefined };
    assert.deepEqual(traces.of('tools/call', 2), [
      { event: 'start', ...base },
      { event: 'end', ...base },
      { event: 'asyncStart', ...base, outcome: 'cancelled' },
      { event: 'asyncEnd', ...base, outcome: 'cancelled' },
    ]);
    fx.hold(0).release.resolve();
    await client.end();

    // A transport of its own, named in its ConnectionOptions: the connection closes under a running request.
    const connection = fx.server.transport.connect({ transport: 'custom', send: () => {} });
    connection.receive(initialize(1));
    connection.receive(call(7, 'hold'));
    await fx.hold(1).started.promise;
    connection.close();
    const custom = {
      method: 'tools/call',
      requestId: 7,
      transport: 'custom',
      era: 'legacy' as const,
      trace: undefined,
    };
    assert.deepEqual(traces.of('tools/call', 7), [
      { event: 'start', ...custom },
      { event: 'end', ...custom },
      { event: 'asyncStart', ...custom, outcome: 'abandoned' },
      { event: 'asyncEnd', ...custom, outcome: 'abandoned' },
    ]);
    fx.hold(1).release.resolve();
  },
);

test(
  'node:http: a 2025 session tools/call and a 2026-07-28 tools/call publish their events with transport http',
  T,
  async (t) => {
    const { server } = fixture();
    const traces = subscribe(t);
    const http = await serveHttp(server, { port: 0 });
    t.after(() => http.close());
    const session = await httpSession(http.url);
    const legacy = await session.post(call(2, 'echo', { says: 'legacy' }));
    assert.deepEqual(await legacy.json(), ok(2, text('echo: legacy')));
    const frame = modern('tools/call', { name: 'echo', arguments: { says: 'modern' } }, 3, {
      traceparent: TRACEPARENT,
    });
    const answer = await postModern(http.url, frame);
    const body = (await answer.json()) as Frame;
    assert.equal(body.result.content[0].text, 'echo: modern');
    assert.deepEqual(
      traces.of('tools/call', 2),
      answered(
        { method: 'tools/call', requestId: 2, transport: 'http', era: 'legacy', trace: undefined },
        text('echo: legacy'),
      ),
    );
    assert.deepEqual(
      traces.of('tools/call', 3),
      answered(
        { method: 'tools/call', requestId: 3, transport: 'http', era: 'modern', trace: { traceparent: TRACEPARENT } },
        body.result,
      ),
    );
  },
);

test(
  'fetch handler: a 2026-07-28 tools/call and a stateless 2025 one publish their events; a closed response is abandoned; its metrics() follow',
  T,
  async (t) => {
    const fx = fixture();
    const traces = subscribe(t);
    const handle = createFetchHandler(fx.server);
    t.after(() => handle.close());
    const url = 'http://127.0.0.1/mcp';
    const frame = modern('tools/call', { name: 'echo', arguments: { says: 'fetch' } }, 'm1');
    const answer = await handle(
      new Request(url, { method: 'POST', headers: modernHeaders(frame), body: JSON.stringify(frame) }),
    );
    const body = (await answer.json()) as Frame;
    assert.equal(body.result.content[0].text, 'echo: fetch');
    assert.deepEqual(
      traces.of('tools/call', 'm1'),
      answered(
        { method: 'tools/call', requestId: 'm1', transport: 'http', era: 'modern', trace: undefined },
        body.result,
      ),
    );
    const stateless = await handle(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': LATEST },
        body: JSON.stringify(call('s1', 'echo', { says: 'stateless' })),
      }),
    );
    assert.deepEqual(await stateless.json(), ok('s1', text('echo: stateless')));
    assert.deepEqual(
      traces.of('tools/call', 's1'),
      answered(
        { method: 'tools/call', requestId: 's1', transport: 'http', era: 'legacy', trace: undefined },
        text('echo: stateless'),
      ),
    );
    // Closing the response is this era's cancellation: the connection closes, the request is abandoned.
    const held = modern('tools/call', { name: 'hold', arguments: {} }, 'm2', { progressToken: 'p' });
    const streamed = await handle(
      new Request(url, { method: 'POST', headers: modernHeaders(held), body: JSON.stringify(held) }),
    );
    const reader = new SseReader(streamed);
    assert.equal((await reader.message()).method, 'notifications/progress');
    assert.deepEqual(
      { ...handle.metrics(), errors: undefined },
      {
        connections: 1,
        inFlight: 1,
        listenStreams: 0,
        sessions: 0,
        evictedSessions: 0,
        sseStreams: 1,
        httpErrors: {},
        errors: undefined,
      },
    );
    await reader.cancel();
    await traces.until((event) => event.requestId === 'm2' && event.event === 'asyncEnd');
    const gone = modern('no/such', {}, 'm3');
    const refused = await handle(
      new Request(url, { method: 'POST', headers: modernHeaders(gone), body: JSON.stringify(gone) }),
    );
    assert.equal(refused.status, 404);
    await refused.body?.cancel();
    assert.deepEqual(
      { ...handle.metrics(), errors: undefined },
      {
        connections: 0,
        inFlight: 0,
        listenStreams: 0,
        sessions: 0,
        evictedSessions: 0,
        sseStreams: 0,
        httpErrors: { '404': 1 },
        errors: undefined,
      },
    );
    assert.deepEqual(
      traces.of('tools/call', 'm2').map(({ event, outcome }) => [event, outcome]),
      [
        ['start', undefined],
        ['end', undefined],
        ['asyncStart', 'abandoned'],
        ['asyncEnd', 'abandoned'],
      ],
    );
    fx.hold(0).release.resolve();
  },
);

test(
  'a request that started while nobody subscribed publishes nothing, even to a subscriber that arrives before its answer; none after unsubscribing',
  T,
  async (t) => {
    const fx = fixture();
    const channel = tracingChannel(REQUEST_TRACING_CHANNEL);
    assert.equal(channel.hasSubscribers, false);
    const client = new WireClient(fx.server);
    await client.initialize();
    client.send(call(2, 'hold'));
    await fx.hold(0).started.promise;
    const traces = subscribe(t);
    fx.hold(0).release.resolve();
    assert.deepEqual(await client.response(2), ok(2, text('released')));
    assert.deepEqual(traces.recorded, []);
    traces.unsubscribe();
    assert.equal(channel.hasSubscribers, false);
    assert.deepEqual(await client.request('tools/call', { name: 'echo', arguments: {} }, 3), ok(3, text('echo: ')));
    assert.deepEqual(traces.recorded, []);
    await client.end();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Metrics

const ZERO = { connections: 0, inFlight: 0, listenStreams: 0 };

/** The snapshot's gauges (what goes back to zero), without the error counts. */
function gauges(server: Server) {
  const { connections, inFlight, listenStreams } = server.metrics();
  return { connections, inFlight, listenStreams };
}

test(
  'server.metrics(): connections and in-flight requests on stdio move as they open and end, and return to zero',
  T,
  async () => {
    const fx = fixture();
    assert.deepEqual(fx.server.metrics(), { ...ZERO, errors: {} });
    const client = new WireClient(fx.server);
    await client.initialize();
    assert.deepEqual(gauges(fx.server), { ...ZERO, connections: 1 });
    client.send(call(2, 'hold'));
    client.send(call(3, 'hold'));
    await fx.hold(0).started.promise;
    await fx.hold(1).started.promise;
    assert.deepEqual(gauges(fx.server), { ...ZERO, connections: 1, inFlight: 2 });
    fx.hold(0).release.resolve();
    await client.response(2);
    assert.deepEqual(gauges(fx.server), { ...ZERO, connections: 1, inFlight: 1 });
    client.send(notification('notifications/cancelled', { requestId: 3 }));
    assert.deepEqual((await client.request('ping', undefined, 4)).result, {}); // after the cancel, in order
    assert.deepEqual(gauges(fx.server), { ...ZERO, connections: 1 });
    await client.end();
    assert.deepEqual(gauges(fx.server), ZERO);
  },
);

test(
  'server.metrics(): listen streams open and close on stdio (a cancel) and over HTTP (the client leaving)',
  T,
  async (t) => {
    const { server } = fixture();
    const client = new WireClient(server);
    client.send(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'l1'));
    await client.next(); // the acknowledgement
    assert.deepEqual(gauges(server), { connections: 1, inFlight: 1, listenStreams: 1 });
    client.send(notification('notifications/cancelled', { requestId: 'l1' }));
    assert.equal(
      (await client.request('server/discover', { _meta: modern('x').params._meta }, 'd')).result.resultType,
      'complete',
    );
    assert.deepEqual(gauges(server), { connections: 1, inFlight: 0, listenStreams: 0 });
    await client.end();

    const http = await serveHttp(server, { port: 0 });
    t.after(() => http.close());
    const exchanges = watchExchanges(http.httpServer);
    const frame = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'l2');
    const response = await postModern(http.url, frame, { 'x-test': 'listen' });
    const reader = new SseReader(response);
    await reader.message();
    assert.deepEqual(gauges(server), { connections: 1, inFlight: 1, listenStreams: 1 });
    assert.equal(http.handler.metrics().sseStreams, 1);
    await reader.cancel();
    await exchanges.closed('listen');
    assert.deepEqual(gauges(server), ZERO);
    assert.equal(http.handler.metrics().sseStreams, 0);
  },
);

test(
  'handler.metrics(): sessions and SSE streams (a GET stream, a POST stream) move with the session, and DELETE returns them to zero',
  T,
  async (t) => {
    const fx = fixture();
    const http = await serveHttp(fx.server, { port: 0 });
    t.after(() => http.close());
    const zero = { ...ZERO, sessions: 0, evictedSessions: 0, sseStreams: 0, errors: {}, httpErrors: {} };
    assert.deepEqual(http.handler.metrics(), zero);
    const session = await httpSession(http.url);
    assert.deepEqual(http.handler.metrics(), { ...zero, connections: 1, sessions: 1 });
    const get = await fetch(http.url, { headers: { ...session.headers, accept: 'text/event-stream' } });
    assert.equal(get.status, 200);
    assert.deepEqual(http.handler.metrics(), { ...zero, connections: 1, sessions: 1, sseStreams: 1 });
    const posted = await session.post(call(2, 'hold', {}, { progressToken: 'p' }));
    const stream = new SseReader(posted);
    await fx.hold(0).started.promise;
    assert.equal((await stream.message()).method, 'notifications/progress');
    assert.deepEqual(http.handler.metrics(), { ...zero, connections: 1, inFlight: 1, sessions: 1, sseStreams: 2 });
    fx.hold(0).release.resolve();
    assert.deepEqual(await stream.message(), ok(2, text('released')));
    assert.equal(await stream.next(), undefined); // the POST stream ended with its answer
    assert.deepEqual(http.handler.metrics(), { ...zero, connections: 1, sessions: 1, sseStreams: 1 });
    const deleted = await fetch(http.url, { method: 'DELETE', headers: session.headers });
    assert.equal(deleted.status, 200);
    assert.deepEqual(http.handler.metrics(), zero);
    await get.body?.cancel();
  },
);

test(
  'metrics errors: every error answer counts under its code on stdio and over HTTP; a refusal of the HTTP layer does not',
  T,
  async (t) => {
    const { server } = fixture();
    const client = new WireClient(server);
    client.send('{not json');
    assert.equal((await client.next()).error.code, -32700);
    assert.equal((await client.request('tools/list', undefined, 1)).error.code, -32600); // before initialize
    await client.initialize();
    assert.equal((await client.request('no/such', undefined, 3)).error.code, -32601);
    assert.equal((await client.request('tools/call', { name: 'nope', arguments: {} }, 4)).error.code, -32602);
    assert.equal((await client.request('tools/call', { name: 'refuse', arguments: {} }, 5)).error.code, -32042);
    assert.deepEqual(await client.request('tools/call', { name: 'echo', arguments: {} }, 6), ok(6, text('echo: '))); // not counted
    await client.end();
    assert.deepEqual(server.metrics().errors, { '-32700': 1, '-32600': 1, '-32601': 1, '-32602': 1, '-32042': 1 });

    const http = await serveHttp(server, { port: 0 });
    t.after(() => http.close());
    const session = await httpSession(http.url);
    assert.equal(((await (await session.post(request(7, 'no/such'))).json()) as Frame).error.code, -32601);
    // Refused by the HTTP layer before any connection serves it (404 -32601): not an answer of the server's.
    const removed = await postModern(http.url, modern('no/such', {}, 8));
    assert.equal(removed.status, 404);
    const modernUnknown = await postModern(http.url, modern('tools/call', { name: 'nope', arguments: {} }, 9));
    assert.equal(((await modernUnknown.json()) as Frame).error.code, -32602);
    assert.deepEqual(http.handler.metrics().errors, {
      '-32700': 1,
      '-32600': 1,
      '-32601': 2,
      '-32602': 2,
      '-32042': 1,
    });
    // The HTTP statuses of 400 and more, the HTTP layer's refusals included: the 404 above, an unknown session (404)
    // and a header that disagrees with the negotiated version (400); the JSON-RPC errors answered 200 are not in it.
    const unknownSession = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-session-id': 'nope' },
      body: JSON.stringify(request(10, 'ping')),
    });
    assert.equal(unknownSession.status, 404);
    await unknownSession.body?.cancel();
    const mismatch = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: BOTH,
        ...session.headers,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(request(11, 'ping')),
    });
    assert.equal(mismatch.status, 400);
    await mismatch.body?.cancel();
    const { errors, httpErrors } = http.handler.metrics();
    assert.deepEqual(httpErrors, { '404': 2, '400': 1 });
    assert.equal(errors['-32600'], 1); // neither refusal reached a connection
  },
);

test(
  'metrics errors: a batch answer counts each error it holds; distinct codes past 64 fold into other',
  T,
  async () => {
    const server = createServer({ name: 'operators', version: '1.0.0' });
    let code = -33000;
    server.tool('odd', {}, () => {
      throw new ProtocolError(code--, 'odd');
    });
    const client = new WireClient(server);
    await client.initialize('2025-03-26');
    client.send([request(1, 'no/such'), request(2, 'ping'), request(3, 'no/such')]);
    const answers = await client.next();
    assert.deepEqual(
      answers.map((answer: Frame) => answer.error?.code),
      [-32601, undefined, -32601],
    );
    assert.deepEqual(server.metrics().errors, { '-32601': 2 });
    for (let id = 10; id < 80; id++) await client.request('tools/call', { name: 'odd', arguments: {} }, id);
    await client.end();
    const errors = server.metrics().errors;
    assert.equal(Object.keys(errors).length, 65); // 64 codes kept apart, then 'other'
    assert.equal(errors['-32601'], 2);
    assert.equal(errors['-33000'], 1);
    assert.equal(errors.other, 70 - 63);
  },
);

test(
  'metrics: the tasks extension reports liveTasks, storedTasks and storedTaskBytes as a 2025-11-25 task runs, ends, and the server closes',
  T,
  async () => {
    const fx = fixture();
    /** The metrics with storedTaskBytes checked against what the store holds and left out. */
    const metrics = (held: number) => {
      const { storedTaskBytes, ...rest } = fx.server.metrics();
      if (held === 0) assert.equal(storedTaskBytes, 0);
      else assert.ok(Number(storedTaskBytes) > 256 * held, `${storedTaskBytes} bytes for ${held} records`);
      return rest;
    };
    fx.server.use(createTasksExtension());
    assert.deepEqual(metrics(0), { ...ZERO, errors: {}, liveTasks: 0, storedTasks: 0 });
    const client = new WireClient(fx.server);
    await client.initialize(LATEST);
    const created = await client.request('tools/call', { name: 'hold', arguments: {}, task: { ttl: 60_000 } }, 2);
    const { taskId } = created.result.task;
    await fx.hold(0).started.promise;
    assert.deepEqual(metrics(1), { ...ZERO, connections: 1, errors: {}, liveTasks: 1, storedTasks: 1 });
    fx.hold(0).release.resolve();
    const result = await client.request('tasks/result', { taskId }, 3);
    assert.deepEqual(result.result.content, text('released').content);
    assert.deepEqual(metrics(1), { ...ZERO, connections: 1, errors: {}, liveTasks: 0, storedTasks: 1 });
    await client.end();
    await fx.server.close();
    assert.deepEqual(metrics(0), { ...ZERO, errors: {}, liveTasks: 0, storedTasks: 0 });
  },
);
