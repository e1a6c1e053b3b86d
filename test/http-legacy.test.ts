// 2025-era Streamable HTTP at the wire, over real loopback sockets (MCP 2025-11-25, Basic > Transports > Streamable
// HTTP): sessions minted only on a successful initialize, the idempotent repeat, the header rules, DELETE and idle
// reaping, the session cap and how a full table makes room (> Session Management; docs/http-deployment.md, Limits
// and timeouts); JSON or SSE answers, server→client requests on the POST stream,
// JSON mode without a back-channel (docs/eras.md, Error codes); GET streams (several per session, each message on
// one, the per-session bound, a first chunk at once: test/get-streams.ts), SSE polling (endStreamAfterPriming) and
// Last-Event-ID replay of one stream only (> Resumability and Redelivery); cancellation (docs/http-deployment.md,
// Cancellation) and disconnect-is-not-cancel (> Sending Messages to the Server); 2025-03-26 batches (MCP
// 2025-03-26, Basic > Overview > Messages > Batching); isolation from modern listen streams; stateless mode.
// Every wait is on an explicit signal (an SSE event read from the fetch body, a deferred resolved in a handler, the
// server-side close of an exchange); the only bounded polling is for the idle reaper, whose clock is the subject.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type TestContext, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { type Context, createServer, OutboundRequestError, type Server } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { sessionsOf } from '../http/http-core.ts';
import {
  type EventStore,
  type HttpServer,
  MemoryEventStore,
  type ServeHttpOptions,
  type SessionRecord,
  type SharedSessionStore,
  serveHttp,
} from '../http.ts';
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
import { deferred, type Frame, MemoryLogger } from './harness.ts';
import { raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { type Id, MODERN, modern, notification, request, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time

const LATEST = '2025-11-25';
const CLIENT = { name: 'http-legacy-test', version: '1.0.0' };
const BOTH = 'application/json, text/event-stream';
const JSON_HEADERS = { 'content-type': 'application/json', accept: BOTH };
const VISIBLE_ASCII_ID = /^[\x21-\x7E]{16,}$/;

const SESSION_REQUIRED = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Bad Request: Mcp-Session-Id header is required' },
};
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
const NO_BACK_CHANNEL =
  "Cannot send 'sampling/createMessage': this transport context has no back-channel for server-initiated requests";

// ---------------------------------------------------------------------------------------------------------------
// Frames

function initializeRequest(
  id: Id,
  protocolVersion = LATEST,
  capabilities: object = {},
  clientInfo: object = CLIENT,
): Frame {
  return request(id, 'initialize', { protocolVersion, capabilities, clientInfo });
}

function cancel(requestId: Id): Frame {
  return notification('notifications/cancelled', { requestId });
}

function callTool(id: Id, name: string, args: Record<string, unknown> = {}, progressToken?: Id): Frame {
  const params: Record<string, unknown> = { name, arguments: args };
  if (progressToken !== undefined) params._meta = { progressToken };
  return request(id, 'tools/call', params);
}

function textResult(id: Id, text: string, isError?: boolean): Frame {
  const result: Record<string, unknown> = { content: [{ type: 'text', text }] };
  if (isError !== undefined) result.isError = isError;
  return { jsonrpc: '2.0', id, result };
}

function listChanged(list: 'tools' | 'prompts' | 'resources'): Frame {
  return { jsonrpc: '2.0', method: `notifications/${list}/list_changed` };
}

function progress(token: Id, value: number, total: number, message?: string): Frame {
  const params: Record<string, unknown> = { progressToken: token, progress: value, total };
  if (message !== undefined) params.message = message;
  return { jsonrpc: '2.0', method: 'notifications/progress', params };
}

// ---------------------------------------------------------------------------------------------------------------
// The endpoint and a 2025 client

class Endpoint {
  readonly http: HttpServer;
  /** Server-side close of each tagged exchange (tag: the request's `x-test` header). */
  readonly #closed = new Map<string, Promise<unknown>>();

  constructor(http: HttpServer) {
    this.http = http;
    http.httpServer.on('request', (req, res) => {
      const tag = req.headers['x-test'];
      if (typeof tag === 'string') this.#closed.set(tag, once(res, 'close'));
    });
  }

  get sessionCount(): number {
    return this.http.handler.sessionCount;
  }

  fetch(method: string, headers: Record<string, string>, body?: string, signal?: AbortSignal): Promise<Response> {
    return fetch(this.http.url, { method, headers, body, signal });
  }

  /** Resolves once the server has seen the exchange tagged `tag` close (answered, or dropped by the client). */
  async closedOnServer(tag: string): Promise<void> {
    const closed = this.#closed.get(tag);
    assert.ok(closed !== undefined, `no exchange tagged ${tag} reached the server`);
    await closed;
    await new Promise((resolve) => setImmediate(resolve)); // after the core's own 'close' listeners
  }
}

async function serve(
  t: TestContext,
  server: Server = createEverythingServer(),
  options: ServeHttpOptions = {},
): Promise<Endpoint> {
  const http = await serveHttp(server, { port: 0, ...options });
  t.after(() => http.close());
  return new Endpoint(http);
}

class Legacy {
  readonly endpoint: Endpoint;
  sessionId: string | undefined;
  version: string | undefined;
  #nextId = 1;

  constructor(endpoint: Endpoint) {
    this.endpoint = endpoint;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    // MCP-Protocol-Version exists from 2025-06-18 on; a 2025-03-26 client does not send it.
    if (this.version !== undefined && this.version !== '2025-03-26') headers['mcp-protocol-version'] = this.version;
    return { ...headers, ...extra };
  }

  post(body: unknown, extra?: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    return this.endpoint.fetch(
      'POST',
      this.headers(extra),
      typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    );
  }

  /** initialize, then notifications/initialized (→ 202); keeps the session id and the negotiated version. */
  async initialize(capabilities: object = {}, protocolVersion = LATEST): Promise<Frame> {
    const response = await this.post(initializeRequest(0, protocolVersion, capabilities));
    assert.equal(response.status, 200);
    const sessionId = response.headers.get('mcp-session-id');
    assert.ok(sessionId !== null);
    // JSON, or (a server with an initialize hook) one SSE event; the stream then ends.
    const body =
      response.headers.get('content-type') === 'application/json'
        ? await response.json()
        : (await new SseReader(response).rest()).map((event) => event.message).at(-1);
    assert.ok('result' in body, JSON.stringify(body));
    this.sessionId = sessionId;
    this.version = body.result.protocolVersion;
    await expectAccepted(await this.post(notification('notifications/initialized')));
    return body.result;
  }

  /** A request answered with one JSON body. */
  async request(method: string, params?: Record<string, unknown>, id: Id = this.#nextId++): Promise<Frame> {
    return json(await this.post(request(id, method, params)));
  }

  /** A request whose answer streams: its SSE reader. */
  async stream(frame: Frame, extra?: Record<string, string>): Promise<SseReader> {
    const response = await this.post(frame, extra);
    assert.equal(response.headers.get('mcp-session-id'), this.sessionId);
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    return new SseReader(response);
  }

  get(extra: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return this.endpoint.fetch('GET', { ...headers, ...extra }, undefined, signal);
  }

  /**
   * A stream this client can leave: the session's GET (resuming after `lastEventId` when given), or with `frame` that
   * request's POST stream. Tagged `tag` (x-test), so `leave()` aborts it and waits until the server saw it close.
   */
  async open(
    tag: string,
    options: { lastEventId?: string; frame?: Frame } = {},
  ): Promise<{ reader: SseReader; leave(): Promise<void> }> {
    const { response, leave } = await this.opened(tag, options);
    return { reader: new SseReader(response), leave };
  }

  /** As `open`, with the Response as it came. */
  async opened(tag: string, options: { lastEventId?: string; frame?: Frame } = {}): Promise<Opened> {
    const controller = new AbortController();
    const extra: Record<string, string> = { 'x-test': tag };
    if (options.lastEventId !== undefined) extra['last-event-id'] = options.lastEventId;
    const response =
      options.frame === undefined
        ? await this.get(extra, controller.signal)
        : await this.post(options.frame, extra, controller.signal);
    const leave = async (): Promise<void> => {
      controller.abort();
      await this.endpoint.closedOnServer(tag);
    };
    return { response, leave };
  }

  /** This client as the shared wire scenarios (test/get-streams.ts) drive it. */
  sessionClient(): SessionClient {
    let next = 0;
    return {
      get: (lastEventId) => this.opened(`scenario-${next++}`, { lastEventId }),
      post: (frame) => this.opened(`scenario-${next++}`, { frame }),
    };
  }

  delete(): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return this.endpoint.fetch('DELETE', headers);
  }
}

/** A 200 `application/json` answer's body. */
async function json(response: Response): Promise<Frame> {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  return response.json();
}

/** A 202 with an empty body. */
async function expectAccepted(response: Response): Promise<void> {
  assert.equal(response.status, 202);
  assert.equal(await response.text(), '');
}

/** A refusal: the status, the exact JSON-RPC body, and never a session id. */
async function expectRefusal(response: Response, status: number, body: Frame): Promise<void> {
  assert.equal(response.status, status);
  assert.equal(response.headers.get('mcp-session-id'), null);
  assert.deepEqual(await response.json(), body);
}

function badRequest(message: string): Frame {
  return { jsonrpc: '2.0', id: null, error: { code: -32600, message } };
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions

/** A server without an initialize hook: its initialize is always answered with one JSON body. */
function plainServer(): Server {
  const server = createServer({ name: 'plain', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('echo', { inputSchema: { type: 'object' } }, (args) => ({
    content: [{ type: 'text', text: JSON.stringify(args) }],
  }));
  return server;
}

test(
  'initialize mints a visible-ASCII Mcp-Session-Id on its successful application/json InitializeResult',
  T,
  async (t) => {
    const endpoint = await serve(t, plainServer());
    const response = await endpoint.fetch(
      'POST',
      { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
      JSON.stringify(initializeRequest(1)),
    );
    const sessionId = response.headers.get('mcp-session-id');
    assert.ok(sessionId !== null);
    assert.match(sessionId, VISIBLE_ASCII_ID);
    const body = await json(response); // even when the client lists SSE first
    assert.deepEqual(Object.keys(body), ['jsonrpc', 'id', 'result']);
    assert.equal(body.id, 1);
    assert.equal(body.result.protocolVersion, LATEST);
    assert.equal(body.result.serverInfo.name, 'plain');
    assert.equal(endpoint.sessionCount, 1);

    const second = await endpoint.fetch('POST', JSON_HEADERS, JSON.stringify(initializeRequest(1)));
    const other = second.headers.get('mcp-session-id');
    assert.ok(other !== null);
    assert.match(other, VISIBLE_ASCII_ID);
    assert.notEqual(other, sessionId);
    await json(second);
    assert.equal(endpoint.sessionCount, 2);
  },
);

test('a refused initialize never creates or registers a session and carries no Mcp-Session-Id', T, async (t) => {
  const endpoint = await serve(t, plainServer());
  const client = new Legacy(endpoint);

  // Malformed params: the JSON-RPC error is answered at 200, and nothing is left behind.
  const malformed = await client.post(
    request(1, 'initialize', { protocolVersion: 42, capabilities: {}, clientInfo: CLIENT }),
  );
  assert.equal(malformed.headers.get('mcp-session-id'), null);
  const body = await json(malformed);
  assert.equal(body.id, 1);
  assert.equal(body.error.code, -32602);
  assert.equal(endpoint.sessionCount, 0);

  // An Accept that admits neither JSON nor SSE: 406, no session.
  const html = await client.post(initializeRequest(2), { accept: 'text/html' });
  assert.equal(html.status, 406);
  assert.equal(html.headers.get('mcp-session-id'), null);
  const refusal = (await html.json()) as Frame;
  assert.equal(refusal.error.code, -32600);
  assert.equal(endpoint.sessionCount, 0);

  // A request without a session id: 400, no session.
  await expectRefusal(await client.post(request(3, 'tools/list')), 400, SESSION_REQUIRED);
  assert.equal(endpoint.sessionCount, 0);

  // The same server does mint one for a valid initialize.
  await client.initialize();
  assert.equal(endpoint.sessionCount, 1);
});

/** A malformed initialize POSTed to the demo server (which has an initialize hook) accepting JSON and SSE. */
async function malformedInitializeToHookServer(
  endpoint: Endpoint,
): Promise<{ sessionId: string | null; messages: Frame[] }> {
  const response = await endpoint.fetch(
    'POST',
    JSON_HEADERS,
    JSON.stringify(request(1, 'initialize', { protocolVersion: 42, capabilities: {}, clientInfo: CLIENT })),
  );
  assert.equal(response.status, 200);
  const sessionId = response.headers.get('mcp-session-id');
  const messages =
    response.headers.get('content-type') === 'application/json'
      ? [await response.json()]
      : (await new SseReader(response).rest()).map((event) => event.message);
  return { sessionId, messages };
}

test(
  'with an initialize hook too, a malformed initialize carries no Mcp-Session-Id and registers nothing',
  T,
  async (t) => {
    const endpoint = await serve(t); // the demo server: its initialize hook may stream the handshake early
    const { sessionId, messages } = await malformedInitializeToHookServer(endpoint);
    assert.equal(sessionId, null);
    assert.equal(messages.length, 1);
    assert.equal(messages[0].id, 1);
    assert.equal(messages[0].error.code, -32602);
    assert.equal(endpoint.sessionCount, 0);
  },
);

test('after initialize, a request or notification without Mcp-Session-Id → 400 -32600', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const anonymous = new Legacy(endpoint);
  anonymous.version = LATEST;
  await expectRefusal(await anonymous.post(request(1, 'tools/list')), 400, SESSION_REQUIRED);
  await expectRefusal(await anonymous.post(notification('notifications/initialized')), 400, SESSION_REQUIRED);
  await expectRefusal(await anonymous.post({ jsonrpc: '2.0', id: 0, result: {} }), 400, SESSION_REQUIRED);
  assert.equal(endpoint.sessionCount, 1);
});

test('an unknown Mcp-Session-Id → 404 with the exact Session not found body', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const stranger = new Legacy(endpoint);
  stranger.sessionId = `${client.sessionId}x`;
  stranger.version = LATEST;
  await expectRefusal(await stranger.post(request(1, 'tools/list')), 404, SESSION_NOT_FOUND);
  await expectRefusal(await stranger.post(notification('notifications/initialized')), 404, SESSION_NOT_FOUND);
  // initialize carrying an unknown id does not start a session either: the client must drop the id.
  await expectRefusal(await stranger.post(initializeRequest(2)), 404, SESSION_NOT_FOUND);
  assert.equal(endpoint.sessionCount, 1);
  // The real session is untouched.
  assert.deepEqual(await client.request('ping', undefined, 3), { jsonrpc: '2.0', id: 3, result: {} });
});

test(
  'initialize repeated with the session id answers the first InitializeResult under the new id and changes nothing',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    const first = await client.initialize({}, LATEST);
    // Another version, other capabilities, another clientInfo: none of it is taken.
    const repeat = await client.post(
      initializeRequest('again', '2025-03-26', { sampling: {} }, { name: 'other', version: '9' }),
      { 'mcp-protocol-version': LATEST },
    );
    assert.equal(repeat.headers.get('mcp-session-id'), client.sessionId);
    assert.deepEqual(await json(repeat), { jsonrpc: '2.0', id: 'again', result: first });
    assert.equal(endpoint.sessionCount, 1);
    // The session still has the first capabilities (no sampling): the tool's request fails at once.
    const sampled = await client.post(callTool(5, 'test_sampling', { prompt: 'hi' }));
    const body = await json(sampled);
    assert.equal(body.result.isError, true);
    assert.match(body.result.content[0].text, /did not declare the 'sampling' capability/);
  },
);

test(
  'MCP-Protocol-Version differing from the negotiated version, or unknown, → 400; the session goes on',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize({}, LATEST);
    await expectRefusal(
      await client.post(request(1, 'tools/list'), { 'mcp-protocol-version': '2025-06-18' }),
      400,
      badRequest('Bad Request: MCP-Protocol-Version header does not match the negotiated version'),
    );
    await expectRefusal(await client.post(request(2, 'tools/list'), { 'mcp-protocol-version': '2099-01-01' }), 400, {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: 'Bad Request: unsupported MCP-Protocol-Version header' },
    });
    // Absent: the session's negotiated version is used.
    const headers = client.headers();
    delete headers['mcp-protocol-version'];
    const plain = await endpoint.fetch('POST', headers, JSON.stringify(request(3, 'ping')));
    assert.deepEqual(await json(plain), { jsonrpc: '2.0', id: 3, result: {} });
    assert.deepEqual(await client.request('ping', undefined, 4), { jsonrpc: '2.0', id: 4, result: {} });
  },
);

test('DELETE ends the session and its GET stream: 200, then the id → 404 on POST, GET and DELETE', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const other = new Legacy(endpoint);
  await other.initialize();
  const get = new SseReader(await client.get());
  assert.equal(endpoint.sessionCount, 2);

  const deleted = await client.delete();
  assert.equal(deleted.status, 200);
  assert.equal(await deleted.text(), '');
  await get.ended();
  assert.equal(endpoint.sessionCount, 1);

  await expectRefusal(await client.post(request(1, 'tools/list')), 404, SESSION_NOT_FOUND);
  await expectRefusal(await client.get(), 404, SESSION_NOT_FOUND);
  await expectRefusal(await client.delete(), 404, SESSION_NOT_FOUND);
  // The other session is untouched.
  assert.deepEqual(await other.request('ping', undefined, 2), { jsonrpc: '2.0', id: 2, result: {} });
});

test('DELETE without a session id → 400, with an unknown one → 404', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  await expectRefusal(await endpoint.fetch('DELETE', {}), 400, SESSION_REQUIRED);
  await expectRefusal(
    await endpoint.fetch('DELETE', { 'mcp-session-id': 'no-such-session-0123456789' }),
    404,
    SESSION_NOT_FOUND,
  );
  assert.equal(endpoint.sessionCount, 1);
});

/** Waits (bounded) until `condition` holds; for the idle reaper only, whose own clock is what is tested. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 25) {
    assert.ok(waited < 15_000, `timed out waiting until ${what}`);
    await delay(25);
  }
}

test('idle sessions are reaped (then 404); a session with an open GET stream is not', T, async (t) => {
  const endpoint = await serve(t, createEverythingServer(), { sessionIdleMs: 20 });
  const streaming = new Legacy(endpoint);
  await streaming.initialize();
  const controller = new AbortController();
  const get = await streaming.get({ 'x-test': 'held-open' }, controller.signal);
  assert.equal(get.status, 200);
  const idle = new Legacy(endpoint);
  await idle.initialize();
  assert.equal(endpoint.sessionCount, 2);

  // One reaper pass considers every session: when the idle one goes, the streaming one was kept.
  await eventually(() => endpoint.sessionCount === 1, 'the idle session is reaped');
  await expectRefusal(await idle.post(request(1, 'ping')), 404, SESSION_NOT_FOUND);
  assert.deepEqual(await streaming.request('ping', undefined, 2), { jsonrpc: '2.0', id: 2, result: {} });

  // Once its stream is gone it is idle too.
  controller.abort();
  await endpoint.closedOnServer('held-open');
  await eventually(() => endpoint.sessionCount === 0, 'the formerly streaming session is reaped');
  await expectRefusal(await streaming.post(request(3, 'ping')), 404, SESSION_NOT_FOUND);
});

const TOO_MANY_SESSIONS = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Service Unavailable: too many sessions' },
};

/** A session whose client sent its initialize and nothing more (no notifications/initialized): its client. */
async function handshakeOnly(endpoint: Endpoint): Promise<Legacy> {
  const client = new Legacy(endpoint);
  const response = await client.post(initializeRequest(0));
  assert.equal(response.status, 200);
  client.sessionId = response.headers.get('mcp-session-id')!;
  client.version = ((await response.json()) as Frame).result.protocolVersion;
  return client;
}

/** A ping answered on the client's session (200), or the 404 of a session that is gone. */
async function pingStatus(client: Legacy): Promise<number> {
  const response = await client.post(request(99, 'ping'));
  if (response.status === 404) assert.deepEqual(await response.json(), SESSION_NOT_FOUND);
  else assert.deepEqual(await json(response), { jsonrpc: '2.0', id: 99, result: {} });
  return response.status;
}

test(
  'a full session table makes room for a new initialize: handshake-only sessions go first, oldest first, then the least recently named; the ended client gets 404',
  T,
  async (t) => {
    const endpoint = await serve(t, plainServer(), { maxSessions: 5 });
    const legitimate = new Legacy(endpoint);
    await legitimate.initialize();
    const flood = [];
    for (let i = 0; i < 4; i++) flood.push(await handshakeOnly(endpoint));
    assert.equal(endpoint.sessionCount, 5);

    // The oldest handshake-only session ends, not the established one named longest ago.
    const newcomer = new Legacy(endpoint);
    await newcomer.initialize();
    assert.equal(endpoint.sessionCount, 5);
    assert.equal(await pingStatus(flood[0]!), 404);
    assert.equal(await pingStatus(legitimate), 200);
    assert.equal(await pingStatus(flood[1]!), 200); // named now: past its handshake
    assert.equal(endpoint.http.handler.metrics().evictedSessions, 1);

    const second = new Legacy(endpoint);
    await second.initialize();
    assert.equal(await pingStatus(flood[2]!), 404);
    assert.equal(endpoint.http.handler.metrics().evictedSessions, 2);

    // No handshake-only session left: the one named longest ago ends.
    for (const client of [flood[3]!, legitimate, flood[1]!, newcomer, second])
      assert.equal(await pingStatus(client), 200);
    const third = new Legacy(endpoint);
    await third.initialize();
    assert.equal(await pingStatus(flood[3]!), 404);
    for (const client of [legitimate, flood[1]!, newcomer, second, third]) assert.equal(await pingStatus(client), 200);
    assert.equal(endpoint.sessionCount, 5);
    assert.equal(endpoint.http.handler.metrics().evictedSessions, 3);
  },
);

test(
  'a full session table never ends a busy session: all busy → the initialize is refused 503 without a session id; one turned idle makes room',
  T,
  async (t) => {
    const release = deferred();
    const { server, started } = waitingServer(release.promise);
    const endpoint = await serve(t, server, { maxSessions: 2 });
    const streaming = new Legacy(endpoint);
    await streaming.initialize();
    const held = await streaming.open('held'); // a GET stream: busy, and the session named longest ago
    const calling = await handshakeOnly(endpoint);
    const call = await calling.stream(callTool(1, 'wait', {}, 'w1')); // a request in flight: busy
    await started;

    const refused = new Legacy(endpoint);
    await expectRefusal(await refused.post(initializeRequest(0)), 503, TOO_MANY_SESSIONS);
    await expectRefusal(await refused.post(initializeRequest(0)), 503, TOO_MANY_SESSIONS); // each look goes round
    assert.equal(endpoint.sessionCount, 2);
    assert.equal(endpoint.http.handler.metrics().evictedSessions, 0);

    release.resolve();
    assert.deepEqual((await call.rest()).at(-1)?.message, textResult(1, 'released'));
    await refused.initialize(); // the caller is idle now
    assert.equal(await pingStatus(calling), 404);
    assert.equal(await pingStatus(streaming), 200);
    assert.equal(endpoint.http.handler.metrics().evictedSessions, 1);
    await held.leave();
  },
);

test(
  "a full table with a shared store ends only its local copy: the record stays, and that session's next request restores it",
  T,
  async (t) => {
    const records = new Map<string, SessionRecord>();
    const sharedSessions: SharedSessionStore = {
      save: (id, record) => void records.set(id, record),
      load: (id) => records.get(id),
      remove: (id) => void records.delete(id),
    };
    const minting = await serve(t, plainServer(), { sharedSessions });
    const serving = await serve(t, plainServer(), { sharedSessions, maxSessions: 1 });
    const first = new Legacy(minting);
    await first.initialize();
    const second = new Legacy(minting);
    await second.initialize();
    const onServing = (client: Legacy): Legacy =>
      Object.assign(new Legacy(serving), { sessionId: client.sessionId, version: client.version });
    assert.equal(await pingStatus(onServing(first)), 200); // restored on `serving`
    assert.equal(await pingStatus(onServing(second)), 200); // restored there too: first's copy ends
    assert.equal(serving.sessionCount, 1);
    assert.equal(serving.http.handler.metrics().evictedSessions, 1);
    assert.equal(records.size, 2);
    assert.equal(await pingStatus(onServing(first)), 200); // restored again, second's copy ending
    assert.equal(serving.http.handler.metrics().evictedSessions, 2);

    // A copy that is busy stays, and so the restore is refused 503.
    const held = await onServing(first).open('held-shared');
    await expectRefusal(await onServing(second).post(request(1, 'ping')), 503, TOO_MANY_SESSIONS);
    await held.leave();
  },
);

test('a POST with two MCP-Protocol-Version headers is refused 400 -32020 before anything is served', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const headers = { ...client.headers(), 'mcp-protocol-version': ['2025-11-25', '2025-06-18'] };
  const refused = await raw(endpoint.http.url, { headers, body: JSON.stringify(callTool(1, 'test_simple_text')) });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.json, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32020, message: 'Header mismatch: MCP-Protocol-Version header is duplicated' },
  });
  assert.deepEqual(
    await json(await client.post(callTool(2, 'test_simple_text'))),
    textResult(2, 'This is a simple text response for testing.'),
  );
});

test('maxStreams also caps GET streams: a GET past it is 503 and its session goes on', T, async (t) => {
  const endpoint = await serve(t, createEverythingServer(), { maxStreams: 1 });
  const holder = new Legacy(endpoint);
  await holder.initialize();
  const held = await holder.open('held');
  const other = new Legacy(endpoint);
  await other.initialize();
  const refused = await other.get();
  assert.equal(refused.status, 503);
  assert.deepEqual(await refused.json(), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32603, message: 'Too many open streams' },
  });
  assert.deepEqual(
    await json(await other.post(callTool(1, 'test_simple_text'))),
    textResult(1, 'This is a simple text response for testing.'),
  );
  await held.leave();
});

// ---------------------------------------------------------------------------------------------------------------
// Responses

test('a request with nothing before its answer is answered as application/json, with the session id', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const response = await client.post(callTool(1, 'test_simple_text'));
  assert.equal(response.headers.get('mcp-session-id'), client.sessionId);
  assert.deepEqual(await json(response), textResult(1, 'This is a simple text response for testing.'));
});

test(
  'progress before the answer turns the POST into SSE: the progress events, the result, then the end',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize();
    const stream = await client.stream(callTool(7, 'test_tool_with_progress', {}, 'p7'));
    const events = await stream.rest();
    assert.deepEqual(
      events.map((event) => event.message),
      [
        progress('p7', 0, 100, 'Completed step 0 of 100'),
        progress('p7', 50, 100, 'Completed step 50 of 100'),
        progress('p7', 100, 100, 'Completed step 100 of 100'),
        textResult(7, 'Progress completed'),
      ],
    );
    // Resumable stream: a 2025-11-25 stream opens with one priming event; every event has an id, all distinct.
    assert.equal(stream.priming.length, 1);
    const ids = [...stream.priming, ...events.map((event) => event.id)];
    assert.ok(
      ids.every((id) => typeof id === 'string' && id.length > 0),
      JSON.stringify(ids),
    );
    assert.equal(new Set(ids).size, ids.length);

    // A 2025-03-26 session gets the same events, without a priming event.
    const old = new Legacy(endpoint);
    await old.initialize({}, '2025-03-26');
    const oldStream = await old.stream(callTool(8, 'test_tool_with_progress', {}, 'p8'));
    assert.deepEqual(
      (await oldStream.rest()).map((event) => event.message),
      [
        progress('p8', 0, 100, 'Completed step 0 of 100'),
        progress('p8', 50, 100, 'Completed step 50 of 100'),
        progress('p8', 100, 100, 'Completed step 100 of 100'),
        textResult(8, 'Progress completed'),
      ],
    );
    assert.deepEqual(oldStream.priming, []);
  },
);

test(
  'sampling rides the POST stream: the client answers by POST (→ 202) and the tool result ends the stream',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize({ sampling: {} });
    const stream = await client.stream(callTool('s1', 'test_sampling', { prompt: 'What is 2+2?' }));
    const ask = await stream.message();
    assert.equal(typeof ask.id, 'number');
    assert.deepEqual(
      ask,
      request(ask.id, 'sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }],
        maxTokens: 100,
      }),
    );
    const answer = await client.post({
      jsonrpc: '2.0',
      id: ask.id,
      result: { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model' },
    });
    await expectAccepted(answer);
    assert.deepEqual(await stream.message(), textResult('s1', 'LLM response: 4'));
    await stream.ended();
  },
);

test(
  'client notifications and responses (even one answering nothing) are accepted with 202 and an empty body',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize(); // its notifications/initialized got 202
    await expectAccepted(await client.post(notification('notifications/roots/list_changed')));
    await expectAccepted(await client.post({ jsonrpc: '2.0', id: 999, result: {} }));
    await expectAccepted(await client.post({ jsonrpc: '2.0', id: 998, error: { code: -1, message: 'no' } }));
    assert.deepEqual(await client.request('ping', undefined, 1), { jsonrpc: '2.0', id: 1, result: {} });
  },
);

test("responseMode 'json': related notifications are dropped and the answer is one JSON body", T, async (t) => {
  const endpoint = await serve(t, createEverythingServer(), { responseMode: 'json' });
  const client = new Legacy(endpoint);
  await client.initialize();
  const response = await client.post(callTool(3, 'test_tool_with_progress', {}, 'p3'));
  assert.deepEqual(await json(response), textResult(3, 'Progress completed'));
});

/** A server whose tool reports how a sampling request failed. */
function samplingProbeServer(): Server {
  const server = createServer({ name: 'probe', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('probe_sample', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
    try {
      await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 1 });
      return { content: [{ type: 'text', text: 'sent' }] };
    } catch (error) {
      const { name, message, code } = error as { name: string; message: string; code?: number };
      return {
        content: [
          { type: 'text', text: JSON.stringify({ name, code, message, protocolVersion: ctx.protocolVersion }) },
        ],
      };
    }
  });
  return server;
}

test(
  "responseMode 'json': ctx.sample fails fast with the -32600 no-back-channel error, and the tool answers",
  T,
  async (t) => {
    const demo = await serve(t, createEverythingServer(), { responseMode: 'json' });
    const client = new Legacy(demo);
    await client.initialize({ sampling: {} });
    assert.deepEqual(
      await json(await client.post(callTool(1, 'test_sampling', { prompt: 'hi' }))),
      textResult(1, `Request failed: ${NO_BACK_CHANNEL}`, true),
    );

    const probe = await serve(t, samplingProbeServer(), { responseMode: 'json' });
    const prober = new Legacy(probe);
    await prober.initialize({ sampling: {} });
    const body = await json(await prober.post(callTool(2, 'probe_sample')));
    assert.deepEqual(JSON.parse(body.result.content[0].text), {
      name: 'OutboundRequestError',
      code: -32600,
      message: NO_BACK_CHANNEL,
      protocolVersion: LATEST,
    });
  },
);

test(
  'no back channel: the handler sees OutboundRequestError code -32600; let escape, the wire carries an isError tool result or -32603 (docs/api.md, docs/eras.md)',
  T,
  async (t) => {
    const logger = new MemoryLogger();
    const server = createServer({ name: 'escaping', version: '1.0.0' }, { logger });
    const ask = (ctx: Context) =>
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 1 });
    server.tool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
      await ask(ctx);
      return { content: [] };
    });
    server.prompt('ask', {}, async (_args, ctx: Context) => {
      await ask(ctx);
      return { messages: [] };
    });
    const endpoint = await serve(t, server, { responseMode: 'json' });
    const client = new Legacy(endpoint);
    await client.initialize({ sampling: {} });

    const tool = await client.post(callTool(1, 'ask'));
    assert.equal(tool.status, 200);
    assert.equal(
      await tool.text(),
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Tool execution failed"}],"isError":true}}',
    );
    const prompt = await client.post(request(2, 'prompts/get', { name: 'ask' }));
    assert.equal(prompt.status, 200);
    assert.equal(await prompt.text(), '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}');

    assert.deepEqual(
      logger.errors.map((entry) => entry.message),
      ["tool 'ask' failed", "handler for 'prompts/get' failed"],
    );
    for (const { error } of logger.errors) {
      assert.ok(error instanceof OutboundRequestError);
      assert.deepEqual(
        { name: error.name, code: error.code, message: error.message, data: error.data },
        { name: 'OutboundRequestError', code: -32600, message: NO_BACK_CHANNEL, data: undefined },
      );
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// GET streams

test('GET needs Accept: text/event-stream (406), a session id (400) and a live session (404)', T, async (t) => {
  const endpoint = await serve(t);
  const client = new Legacy(endpoint);
  await client.initialize();
  const notAcceptable = await client.get({ accept: 'application/json' });
  assert.equal(notAcceptable.status, 406);
  assert.equal(((await notAcceptable.json()) as Frame).error.code, -32600);
  await expectRefusal(await endpoint.fetch('GET', { accept: 'text/event-stream' }), 400, SESSION_REQUIRED);
  await expectRefusal(
    await endpoint.fetch('GET', { accept: 'text/event-stream', 'mcp-session-id': 'no-such-session-0123456789' }),
    404,
    SESSION_NOT_FOUND,
  );
});

test('the GET stream carries unrelated notifications with event ids', T, async (t) => {
  const server = createEverythingServer();
  const endpoint = await serve(t, server);
  const client = new Legacy(endpoint);
  await client.initialize();
  const response = await client.get();
  assert.equal(response.headers.get('mcp-session-id'), client.sessionId);
  const stream = new SseReader(response);

  server.notifyListChanged('tools');
  const first = await stream.next();
  assert.deepEqual(first?.message, listChanged('tools'));
  // A change published by a tool call of this session is unrelated to that call: it rides the GET stream.
  assert.deepEqual(
    await client.request('tools/call', { name: 'test_publish', arguments: { event: 'prompts' } }, 1),
    textResult(1, 'Published 1 prompts event(s)'),
  );
  const second = await stream.next();
  assert.deepEqual(second?.message, listChanged('prompts'));
  assert.ok(typeof first?.id === 'string' && first.id !== '');
  assert.ok(typeof second?.id === 'string' && second.id !== '');
  assert.notEqual(first.id, second.id);
});

test(
  'a fresh GET and a GET resumed with an empty replay answer with a first chunk at once, before any message',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize();
    await firstChunkAtOnce(client.sessionClient());
  },
);

test(
  'a second GET of a session is answered with its own stream; a message related to no request reaches exactly one: the newest attached',
  T,
  async (t) => {
    const server = createEverythingServer();
    const client = new Legacy(await serve(t, server));
    await client.initialize();
    await twoGetStreams(client.sessionClient(), server);
  },
);

test(
  'two resumptions of one GET stream while its store is still writing: the earlier is ended, the later alone gets the replay and what follows',
  T,
  async (t) => {
    const server = createEverythingServer();
    const held = heldStore();
    const client = new Legacy(await serve(t, server, { eventStore: held.store }));
    await client.initialize();
    await resumedTwiceWhileStoring(client.sessionClient(), server, held);
  },
);

test(
  'a looping client holds at most MAX_GET_STREAMS GET streams: the oldest ends, and its resumption loses nothing',
  T,
  async (t) => {
    const server = createEverythingServer();
    const client = new Legacy(await serve(t, server));
    await client.initialize();
    await getStreamBound(client.sessionClient(), server);
  },
);

test(
  'endStreamAfterPriming ends a POST stream after its priming event; the request runs on and a GET with Last-Event-ID gets its progress and answer',
  T,
  async (t) => {
    const server = createServer({ name: 'steps', version: '1.0.0' }, { logger: new MemoryLogger() });
    const { release } = stepsTool(server);
    const client = new Legacy(
      await serve(t, server, { endStreamAfterPriming: (request) => request.method === 'tools/call' }),
    );
    await client.initialize();
    await pollingPost(client.sessionClient(), release);
    // A request the predicate does not admit is answered on its POST as before.
    assert.deepEqual((await client.request('tools/list', {}, 8)).id, 8);
  },
);

test(
  'Last-Event-ID replays only that stream’s events after the id, never another stream’s or session’s',
  T,
  async (t) => {
    const server = createEverythingServer();
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const { reader: get, leave: leaveGet } = await client.open('first-get');

    server.notifyListChanged('tools');
    const e1 = (await get.next())!;
    // A POST stream of the same session stores its events in between.
    const post = await client.stream(callTool(9, 'test_tool_with_progress', {}, 'p9'));
    const postEvents = await post.rest();
    assert.equal(postEvents.length, 4);
    server.notifyListChanged('prompts');
    const e2 = (await get.next())!;
    server.notifyListChanged('resources');
    const e3 = (await get.next())!;
    assert.deepEqual(
      [e1, e2, e3].map((event) => event.message),
      [listChanged('tools'), listChanged('prompts'), listChanged('resources')],
    );

    await leaveGet();

    // Resuming the POST stream from its second event replays that stream's last two (its result included), nothing
    // of the GET stream.
    const postReplay = await client.open('post-resume', { lastEventId: postEvents[1]!.id! });
    assert.deepEqual([await postReplay.reader.next(), await postReplay.reader.next()], postEvents.slice(2));
    await postReplay.leave();

    const resumed = await client.get({ 'last-event-id': e1.id! });
    assert.equal(resumed.headers.get('mcp-session-id'), client.sessionId);
    const replay = new SseReader(resumed);
    assert.deepEqual([await replay.next(), await replay.next()], [e2, e3]);
    // Then it goes on live, with fresh ids.
    server.notifyListChanged('tools');
    const e4 = (await replay.next())!;
    assert.deepEqual(e4.message, listChanged('tools'));
    const seen = new Set([e1, e2, e3, ...postEvents].map((event) => event.id));
    assert.ok(e4.id !== undefined && !seen.has(e4.id));

    // Another session presenting this session's event id gets a fresh stream, with nothing replayed.
    const other = new Legacy(endpoint);
    await other.initialize();
    const foreign = new SseReader(await other.get({ 'last-event-id': e1.id! }));
    server.notifyListChanged('tools');
    assert.deepEqual(await foreign.message(), listChanged('tools'));
  },
);

test(
  'a GET resumed with Last-Event-ID replays the changes published while no client was attached, then each live change arrives once',
  T,
  async (t) => {
    const server = createEverythingServer();
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const first = await client.open('standalone');
    server.notifyListChanged('tools');
    const e1 = (await first.reader.next())!;
    server.notifyListChanged('tools');
    const e2 = (await first.reader.next())!;
    assert.deepEqual([e1.message, e2.message], [listChanged('tools'), listChanged('tools')]);
    await first.leave();

    // Published with no client attached: stored on the standalone stream (2025-11-25 transports, Streamable HTTP,
    // "Resumability and Redelivery": what would have been sent after the last event id, on that stream).
    for (let i = 0; i < 3; i++) server.notifyListChanged('tools');
    const resumed = await client.get({ 'last-event-id': e2.id! });
    assert.equal(resumed.headers.get('mcp-session-id'), client.sessionId);
    const replay = new SseReader(resumed);
    const missed = [(await replay.next())!, (await replay.next())!, (await replay.next())!];
    assert.deepEqual(
      missed.map((event) => event.message),
      [listChanged('tools'), listChanged('tools'), listChanged('tools')],
    );
    const ids = [e1, e2, ...missed].map((event) => event.id);
    assert.ok(
      ids.every((id) => typeof id === 'string' && id !== ''),
      JSON.stringify(ids),
    );
    assert.equal(new Set(ids).size, 5);

    // It is the standalone stream again: the next change arrives once, and nothing else before the one after it.
    server.notifyListChanged('tools');
    const live = (await replay.next())!;
    assert.deepEqual(live.message, listChanged('tools'));
    assert.ok(!ids.includes(live.id));
    server.notifyListChanged('prompts');
    assert.deepEqual(await replay.message(), listChanged('prompts'));
  },
);

/** A server whose tool `steps` reports progress 1, then 2 once `second` settles, then answers once `answer` settles. */
function stepsServer(second: Promise<void>, answer: Promise<void>): Server {
  const server = createServer({ name: 'steps', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('steps', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
    ctx.progress(1, 3);
    await second;
    ctx.progress(2, 3);
    await answer;
    return { content: [{ type: 'text', text: 'all steps' }] };
  });
  return server;
}

test(
  'a POST stream dropped after its first event and resumed at once by GET + Last-Event-ID carries its later progress and its answer, never a broadcast',
  T,
  async (t) => {
    const second = deferred();
    const answer = deferred();
    const server = stepsServer(second.promise, answer.promise);
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const post = await client.open('post', { frame: callTool(3, 'steps', {}, 's3') });
    const first = (await post.reader.next())!;
    assert.deepEqual(first.message, progress('s3', 1, 3));
    await post.leave();

    // No standalone stream is open: the resumed one must not become it, nor carry a broadcast published meanwhile.
    const resumed = new SseReader(await client.get({ 'last-event-id': first.id! }));
    server.notifyListChanged('tools');
    const standalone = new SseReader(await client.get());
    server.notifyListChanged('tools');
    const broadcast = (await standalone.next())!;
    assert.deepEqual(broadcast.message, listChanged('tools'));
    second.resolve();
    const later = (await resumed.next())!;
    assert.deepEqual(later.message, progress('s3', 2, 3));
    answer.resolve();
    const last = (await resumed.next())!;
    assert.deepEqual(last.message, textResult(3, 'all steps'));
    await resumed.ended();
    assert.equal(new Set([first.id, later.id, last.id, broadcast.id]).size, 4);
    // The broadcasts go to the standalone stream only; it goes on.
    server.notifyListChanged('tools');
    assert.deepEqual(await standalone.message(), listChanged('tools'));
  },
);

test(
  "broadcasts stored while no GET is attached, more than the store holds per session, never evict a dropped POST stream's events: its resumption carries its later progress and its answer",
  T,
  async (t) => {
    const second = deferred();
    const answer = deferred();
    const server = stepsServer(second.promise, answer.promise);
    const endpoint = await serve(t, server, { eventStore: new MemoryEventStore({ maxEventsPerSession: 8 }) });
    const client = new Legacy(endpoint);
    await client.initialize();
    const get = await client.open('standalone');
    server.notifyListChanged('tools');
    assert.deepEqual(await get.reader.message(), listChanged('tools'));
    await get.leave();
    const post = await client.open('post', { frame: callTool(3, 'steps', {}, 's3') });
    const first = (await post.reader.next())!;
    assert.deepEqual(first.message, progress('s3', 1, 3));
    await post.leave();

    // Stored on the standalone stream, no client attached: more than the session's bound.
    for (let i = 0; i < 20; i++) server.notifyListChanged('tools');
    const resumed = new SseReader(await client.get({ 'last-event-id': first.id! }));
    // A broadcast now is the standalone stream's: were the GET that stream (the POST's id evicted), it would come first.
    server.notifyListChanged('tools');
    second.resolve();
    assert.deepEqual((await resumed.next())!.message, progress('s3', 2, 3));
    answer.resolve();
    assert.deepEqual(
      (await resumed.rest()).map((event) => event.message),
      [textResult(3, 'all steps')],
    );
  },
);

test(
  'a GET resuming an answered POST stream from its answer ends right after its empty replay and holds nothing of the session; a withdrawn one stays open carrying nothing',
  T,
  async (t) => {
    const answered = stepsServer(Promise.resolve(), Promise.resolve());
    const endpoint = await serve(t, answered);
    const client = new Legacy(endpoint);
    await client.initialize();
    const session = [...sessionsOf(endpoint.http.handler)!.values()][0]!;
    const events = await (await client.stream(callTool(3, 'steps', {}, 's3'))).rest();
    assert.deepEqual(events.at(-1)?.message, textResult(3, 'all steps'));
    const resumed = await client.get({ 'last-event-id': events.at(-1)!.id! });
    assert.equal(resumed.status, 200);
    // The replay is queued on the stream as its response starts and runs before the next I/O: by the time the
    // client has the headers, the stream is over.
    assert.equal(session.busy, false, "a finished stream's resumption holds the session");
    assert.deepEqual(await new SseReader(resumed).rest(), []);

    // A withdrawn request's stream (no answer ever) is the exception: clients resume it, and would only retry.
    const release = deferred();
    const { server, started } = waitingServer(release.promise);
    const other = await serve(t, server);
    const otherSessions = sessionsOf(other.http.handler)!;
    const canceller = new Legacy(other);
    await canceller.initialize();
    const call = await canceller.stream(callTool(4, 'wait', {}, 'w4'));
    await started;
    const progressed = (await call.next())!;
    await expectAccepted(await canceller.post(cancel(4)));
    assert.deepEqual(await call.rest(), []);
    const held = new SseReader(await canceller.get({ 'last-event-id': progressed.id! }));
    assert.equal([...otherSessions.values()][0]!.busy, true, "the withdrawn stream's resumption stays open");
    assert.equal((await canceller.delete()).status, 200);
    assert.deepEqual(await held.rest(), []);
    release.resolve();
  },
);

test(
  'a session remembers its last 100 withdrawn streams: resuming an older one ends after its replay, the newest stays open',
  T,
  async (t) => {
    const server = createServer({ name: 'withdrawn', version: '1.0.0' }, { logger: new MemoryLogger() });
    server.tool('wait', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
      ctx.progress(1, 2);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return { content: [] };
    });
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const session = [...sessionsOf(endpoint.http.handler)!.values()][0]!;
    const lastIds: string[] = [];
    for (let id = 1; id <= 101; id++) {
      const call = await client.stream(callTool(id, 'wait', {}, `w${id}`));
      lastIds.push((await call.next())!.id!);
      await expectAccepted(await client.post(cancel(id)));
      assert.deepEqual(await call.rest(), []);
    }
    const oldest = await client.get({ 'last-event-id': lastIds[0]! });
    assert.equal(session.busy, false, 'the oldest is forgotten: over, it ends after its replay');
    assert.deepEqual(await new SseReader(oldest).rest(), []);
    const newest = new SseReader(await client.get({ 'last-event-id': lastIds[100]! }));
    assert.equal(session.busy, true, 'the newest stays open');
    assert.equal((await client.delete()).status, 200);
    assert.deepEqual(await newest.rest(), []);
  },
);

test(
  'a GET resuming a POST stream whose POST is still open is refused 409; once the POST is gone it replays, then carries the rest',
  T,
  async (t) => {
    const second = deferred();
    const answer = deferred();
    const endpoint = await serve(t, stepsServer(second.promise, answer.promise));
    const client = new Legacy(endpoint);
    await client.initialize();
    const controller = new AbortController();
    const post = new SseReader(
      await client.post(callTool(4, 'steps', {}, 's4'), { 'x-test': 'post' }, controller.signal),
    );
    const first = (await post.next())!;
    await expectRefusal(
      await client.get({ 'last-event-id': first.id! }),
      409,
      badRequest('Conflict: the stream of that Last-Event-ID is still open'),
    );
    second.resolve();
    const later = (await post.next())!;
    assert.deepEqual(later.message, progress('s4', 2, 3));
    controller.abort();
    await endpoint.closedOnServer('post');
    const resumed = new SseReader(await client.get({ 'last-event-id': first.id! }));
    assert.deepEqual(await resumed.next(), later);
    answer.resolve();
    assert.deepEqual(
      (await resumed.rest()).map((event) => event.message),
      [textResult(4, 'all steps')],
    );
  },
);

/** A MemoryEventStore that counts replay reads and can hold one (its result read when called) until `release`. */
class HeldStore implements EventStore {
  readonly #inner = new MemoryEventStore();
  calls = 0;
  #held: { reading: () => void; release: Promise<void> } | undefined;
  readonly #failing = new Set<number>();
  #appended: (() => void) | undefined;

  /** Holds the next replay read: resolves once it is under way; `release` lets it answer what it read then. */
  hold(release: Promise<void>): Promise<void> {
    return new Promise((reading) => {
      this.#held = { reading, release };
    });
  }

  /** The replay read numbered `call` (counting from 1) fails. */
  failCall(call: number): void {
    this.#failing.add(call);
  }

  /** Resolves once the next event is stored. */
  nextAppend(): Promise<void> {
    return new Promise((resolve) => {
      this.#appended = resolve;
    });
  }

  append(sessionId: string, streamId: string, data: string): string {
    const id = this.#inner.append(sessionId, streamId, data);
    this.#appended?.();
    this.#appended = undefined;
    return id;
  }

  async replayAfter(sessionId: string, lastEventId: string) {
    const call = ++this.calls;
    const replay = this.#inner.replayAfter(sessionId, lastEventId);
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) {
      held.reading();
      await held.release;
    }
    if (this.#failing.delete(call)) throw new Error('store down');
    return replay;
  }

  dropSession(sessionId: string): void {
    this.#inner.dropSession(sessionId);
  }
}

/** An initialized 2025 session on a server whose event store is a HeldStore, logging into a MemoryLogger. */
async function sessionOnHeldStore(t: TestContext) {
  const store = new HeldStore();
  const logger = new MemoryLogger();
  const server = createServer({ name: 'held', version: '1.0.0' }, { logger });
  server.tool('noop', { inputSchema: { type: 'object' } }, () => ({ content: [] })); // so tools/list_changed is advertised
  const endpoint = await serve(t, server, { eventStore: store });
  const client = new Legacy(endpoint);
  await client.initialize();
  return { store, logger, server, client };
}

test(
  'an event store failing to replay answers the resuming GET 503, logged; the client resumes again and gets what it missed',
  T,
  async (t) => {
    const { store, logger, server, client } = await sessionOnHeldStore(t);
    const first = await client.open('standalone');
    server.notifyListChanged('tools');
    const e1 = (await first.reader.next())!;
    await first.leave();
    server.notifyListChanged('tools');

    store.failCall(1);
    await expectRefusal(await client.get({ 'last-event-id': e1.id! }), 503, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error: the event store is unavailable' },
    });
    assert.deepEqual(
      logger.errors.map((entry) => [entry.message, (entry.error as Error).message]),
      [['event store replay failed', 'store down']],
    );
    const again = new SseReader(await client.get({ 'last-event-id': e1.id! }));
    const missed = (await again.next())!;
    assert.deepEqual(missed.message, listChanged('tools'));
    assert.notEqual(missed.id, e1.id);
  },
);

test(
  'a resumption reads the event store once; what the stream stores while that read is under way follows the replay, once',
  T,
  async (t) => {
    const { store, logger, server, client } = await sessionOnHeldStore(t);
    const open = (tag: string, lastEventId?: string) => client.open(tag, { lastEventId });

    const first = await open('first');
    server.notifyListChanged('tools');
    const e1 = (await first.reader.next())!;
    await first.leave();
    server.notifyListChanged('tools');

    // One resumption, one read: its replay is what the stream is resumed with.
    const second = await open('second', e1.id);
    const m1 = (await second.reader.next())!;
    assert.deepEqual(m1.message, listChanged('tools'));
    assert.equal(store.calls, 1);
    await second.leave();

    // A broadcast stored while the read is under way is not in what it read: it is read once more, after it.
    const release = deferred();
    const reading = store.hold(release.promise);
    const third = open('third', m1.id);
    await reading;
    const appended = store.nextAppend();
    server.notifyListChanged('tools');
    await appended;
    release.resolve();
    const { reader, leave } = await third;
    const m2 = (await reader.next())!;
    assert.deepEqual(m2.message, listChanged('tools'));
    assert.equal(store.calls, 3);
    server.notifyListChanged('tools');
    const live = (await reader.next())!;
    assert.deepEqual(live.message, listChanged('tools'));
    assert.equal(new Set([e1.id, m1.id, m2.id, live.id]).size, 4);
    await leave();

    // That second read failing ends the GET, logged; the client resumes again and gets what it missed.
    const failing = deferred();
    const held = store.hold(failing.promise);
    store.failCall(store.calls + 2);
    const fourth = open('fourth', live.id);
    await held;
    const stored = store.nextAppend();
    server.notifyListChanged('tools');
    await stored;
    failing.resolve();
    await (await fourth).reader.ended();
    assert.deepEqual(
      logger.errors.map((entry) => [entry.message, (entry.error as Error).message]),
      [['event store replay failed', 'store down']],
    );
    const fifth = await open('fifth', live.id);
    const m3 = (await fifth.reader.next())!;
    assert.deepEqual(m3.message, listChanged('tools'));
    assert.ok(![e1.id, m1.id, m2.id, live.id].includes(m3.id));
    assert.equal(store.calls, 6);
  },
);

/**
 * A server whose tool `ask` reports progress (when the call carries a token: its POST then streams), waits for
 * `go`, then samples; `outcome` tells how the sampling went.
 */
function askingServer(go: Promise<void>): { server: Server; outcome: Promise<Frame>; started: Promise<void> } {
  const outcome = deferred<Frame>();
  const started = deferred();
  const server = createServer({ name: 'asking', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
    ctx.progress(1, 2);
    started.resolve();
    await go;
    try {
      const answer = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 1,
      });
      outcome.resolve({ answer });
    } catch (error) {
      const { name, message, code } = error as { name: string; message: string; code?: number };
      outcome.resolve({ name, code, message });
    }
    return { content: [{ type: 'text', text: 'asked' }] };
  });
  return { server, outcome: outcome.promise, started: started.promise };
}

test(
  'eventStore false: a POST whose client is gone, streaming or not yet, is no back channel: ctx.sample fails at once with the -32600 no-back-channel error',
  T,
  async (t) => {
    for (const streamed of [true, false]) {
      const go = deferred();
      const { server, outcome, started } = askingServer(go.promise);
      // The default requestTimeoutMs (60 s) is past the test's timeout: a request waiting for a back channel fails the test.
      const endpoint = await serve(t, server, { eventStore: false });
      const client = new Legacy(endpoint);
      await client.initialize({ sampling: {} });
      const controller = new AbortController();
      const pending = client.post(
        callTool(5, 'ask', {}, streamed ? 'a5' : undefined),
        { 'x-test': 'post' },
        controller.signal,
      );
      if (streamed) assert.deepEqual(await new SseReader(await pending).message(), progress('a5', 1, 2));
      await started;
      controller.abort();
      await pending.catch(() => undefined);
      await endpoint.closedOnServer('post');
      go.resolve();
      assert.deepEqual(
        await outcome,
        { name: 'OutboundRequestError', code: -32600, message: NO_BACK_CHANNEL },
        `streamed: ${streamed}`,
      );
    }
  },
);

test(
  "with an event store, a sampling request made after the POST's client left waits on its stream: the client resumes it, answers, and gets the tool's answer there",
  T,
  async (t) => {
    const go = deferred();
    const { server, outcome } = askingServer(go.promise);
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize({ sampling: {} });
    const post = await client.open('post', { frame: callTool(6, 'ask', {}, 'a6') });
    const first = (await post.reader.next())!;
    assert.deepEqual(first.message, progress('a6', 1, 2));
    await post.leave();
    go.resolve();
    const resumed = new SseReader(await client.get({ 'last-event-id': first.id! }));
    const ask = await resumed.message();
    assert.equal(ask.method, 'sampling/createMessage');
    const answer = { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'test-model' };
    await expectAccepted(await client.post({ jsonrpc: '2.0', id: ask.id, result: answer }));
    assert.deepEqual(await outcome, { answer });
    assert.deepEqual(await resumed.message(), textResult(6, 'asked'));
    await resumed.ended();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Cancellation and disconnects

/** A server with one tool that reports progress, then waits for `release` (or its abort) and says how it ended. */
function waitingServer(release: Promise<void>): { server: Server; started: Promise<void>; ended: Promise<string> } {
  const started = deferred();
  const ended = deferred<string>();
  const server = createServer({ name: 'waiting', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('wait', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
    ctx.progress(1, 2);
    started.resolve();
    const aborted = new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([release, aborted]);
    ended.resolve(ctx.signal.aborted ? 'aborted' : 'completed');
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return { server, started: started.promise, ended: ended.promise };
}

test('notifications/cancelled ends an SSE-mode POST stream with no response event', T, async (t) => {
  const release = deferred();
  const { server, ended } = waitingServer(release.promise);
  const endpoint = await serve(t, server);
  const client = new Legacy(endpoint);
  await client.initialize();
  const stream = await client.stream(callTool(4, 'wait', {}, 'w4'));
  assert.deepEqual(await stream.message(), progress('w4', 1, 2));
  await expectAccepted(await client.post(cancel(4)));
  await stream.ended();
  assert.equal(await ended, 'aborted');
  release.resolve();
  // The session goes on, and the id is free again.
  assert.deepEqual(await client.request('ping', undefined, 4), { jsonrpc: '2.0', id: 4, result: {} });
});

test('notifications/cancelled of a request that has not streamed yet completes its POST with 202', T, async (t) => {
  const release = deferred();
  const { server, started, ended } = waitingServer(release.promise);
  const endpoint = await serve(t, server);
  const client = new Legacy(endpoint);
  await client.initialize();
  // No progress token: nothing precedes the answer, so no stream was opened.
  const pending = client.post(callTool(5, 'wait'));
  await started;
  await expectAccepted(await client.post(cancel(5)));
  await expectAccepted(await pending);
  assert.equal(await ended, 'aborted');
  release.resolve();
});

test("responseMode 'json': a cancelled request's POST completes with 202 and an empty body", T, async (t) => {
  const release = deferred();
  const { server, started, ended } = waitingServer(release.promise);
  const endpoint = await serve(t, server, { responseMode: 'json' });
  const client = new Legacy(endpoint);
  await client.initialize();
  const pending = client.post(callTool(6, 'wait', {}, 'w6')); // its progress is dropped in JSON mode
  await started;
  await expectAccepted(await client.post(cancel(6)));
  await expectAccepted(await pending);
  assert.equal(await ended, 'aborted');
  release.resolve();
  assert.deepEqual(await client.request('ping', undefined, 6), { jsonrpc: '2.0', id: 6, result: {} });
});

test(
  'a client disconnecting from a legacy POST does not cancel it: the handler runs on and completes',
  T,
  async (t) => {
    const release = deferred();
    const { server, started, ended } = waitingServer(release.promise);
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const controller = new AbortController();
    const pending = client.post(callTool(8, 'wait'), { 'x-test': 'dropped' }, controller.signal);
    await started;
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await endpoint.closedOnServer('dropped');
    release.resolve();
    assert.equal(await ended, 'completed');
    // The session is alive, and once the handler finished, id 8 is free again.
    assert.deepEqual(await client.request('ping', undefined, 8), { jsonrpc: '2.0', id: 8, result: {} });
  },
);

/** A server whose tool `hold` reports progress, then runs until its request is aborted; per request id, signals. */
function holdingServer(): { server: Server; call(id: Id): { started: Promise<void>; aborted: Promise<void> } } {
  type Signal = ReturnType<typeof deferred<void>>;
  const calls = new Map<Id, { started: Signal; aborted: Signal }>();
  const entry = (id: Id) => {
    let call = calls.get(id);
    if (call === undefined) calls.set(id, (call = { started: deferred<void>(), aborted: deferred<void>() }));
    return call;
  };
  const server = createServer({ name: 'holding', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool('hold', { inputSchema: { type: 'object' } }, async (_args, ctx: Context) => {
    const call = entry(ctx.requestId);
    ctx.progress(1, 2);
    call.started.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    call.aborted.resolve();
    return { content: [{ type: 'text', text: 'too late' }] };
  });
  return { server, call: (id) => ({ started: entry(id).started.promise, aborted: entry(id).aborted.promise }) };
}

test(
  'DELETE aborts the session’s running handlers: a streamed POST ends with no response event, an unstreamed one → 404',
  T,
  async (t) => {
    const { server, call } = holdingServer();
    const endpoint = await serve(t, server);
    const client = new Legacy(endpoint);
    await client.initialize();
    const stream = await client.stream(callTool(1, 'hold', {}, 'h1'));
    assert.deepEqual(await stream.message(), progress('h1', 1, 2));
    const pending = client.post(callTool(2, 'hold'));
    await call(2).started;
    assert.equal((await client.delete()).status, 200);
    await Promise.all([call(1).aborted, call(2).aborted]);
    await stream.ended();
    await expectRefusal(await pending, 404, SESSION_NOT_FOUND);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Batches (MCP 2025-03-26, Basic > Overview > Messages > Batching)

test(
  '2025-03-26 session: a batch of two requests and a notification → one JSON array of the two responses',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const client = new Legacy(endpoint);
    await client.initialize({}, '2025-03-26');
    assert.equal(client.version, '2025-03-26');
    const response = await client.post([
      request(1, 'ping'),
      notification('notifications/roots/list_changed'),
      callTool(2, 'test_simple_text'),
    ]);
    const body = await json(response);
    assert.ok(Array.isArray(body));
    const byId = new Map(body.map((frame: Frame) => [frame.id, frame]));
    assert.equal(body.length, 2);
    assert.deepEqual(byId.get(1), { jsonrpc: '2.0', id: 1, result: {} });
    assert.deepEqual(byId.get(2), textResult(2, 'This is a simple text response for testing.'));
  },
);

test(
  'batches are refused with 400: on a 2025-11-25 session, empty, longer than maxBatchLength, with an enveloped element, or holding initialize',
  T,
  async (t) => {
    const endpoint = await serve(t);
    const modernSession = new Legacy(endpoint);
    await modernSession.initialize({}, LATEST);
    const batch = [request(1, 'ping'), request(2, 'ping')];
    await expectRefusal(
      await modernSession.post(batch),
      400,
      badRequest('Invalid Request: batches are accepted only under protocol 2025-03-26'),
    );

    const old = new Legacy(endpoint);
    await old.initialize({}, '2025-03-26');
    await expectRefusal(await old.post([]), 400, badRequest('Invalid Request: an empty batch is not a request'));
    await expectRefusal(
      await old.post(Array.from({ length: 101 }, (_, i) => request(i + 10, 'ping'))),
      400,
      badRequest('Invalid Request: a batch may hold at most 100 elements'),
    );
    const enveloped = modern('tools/list', {}, 3);
    await expectRefusal(
      await old.post([request(2, 'ping'), enveloped]),
      400,
      badRequest(
        'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
      ),
    );
    await expectRefusal(
      await old.post([request(4, 'ping'), initializeRequest(5, '2025-03-26')]),
      400,
      badRequest('Invalid Request: initialize must not be part of a batch'),
    );
    // Nothing of a refused batch ran: the ids are free, the session works.
    assert.deepEqual(await old.request('ping', undefined, 2), { jsonrpc: '2.0', id: 2, result: {} });
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Isolation: a 2025 session's teardown touches only its own resources

test('DELETE of a legacy session leaves a modern listen stream open and delivering', T, async (t) => {
  const server = createEverythingServer();
  const endpoint = await serve(t, server);
  const listenResponse = await endpoint.fetch(
    'POST',
    {
      ...JSON_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    JSON.stringify(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L1')),
  );
  assert.equal(listenResponse.headers.get('mcp-session-id'), null);
  const listen = new SseReader(listenResponse);
  assert.deepEqual(await listen.message(), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' }, notifications: { toolsListChanged: true } },
  });

  const legacy = new Legacy(endpoint);
  await legacy.initialize();
  const get = new SseReader(await legacy.get());
  assert.equal((await legacy.delete()).status, 200);
  await get.ended(); // the session's own stream ends

  server.notifyListChanged('tools');
  assert.deepEqual(await listen.message(), {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' } },
  });
  server.notifyListChanged('tools');
  assert.deepEqual(await listen.message(), {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' } },
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Stateless mode (sessions: false)

/** A server whose tool echoes the version it is served at. */
function versionServer(): Server {
  const server = samplingProbeServer();
  server.tool('probe_version', { inputSchema: { type: 'object' } }, (_args, ctx: Context) => ({
    content: [{ type: 'text', text: ctx.protocolVersion }],
  }));
  return server;
}

test(
  'stateless: no session id is minted; requests are served without initialize at the header’s version',
  T,
  async (t) => {
    const endpoint = await serve(t, versionServer(), { sessions: false });
    const initialize = await endpoint.fetch('POST', JSON_HEADERS, JSON.stringify(initializeRequest(1)));
    assert.equal(initialize.headers.get('mcp-session-id'), null);
    assert.equal((await json(initialize)).result.protocolVersion, LATEST);
    assert.equal(endpoint.sessionCount, 0);

    const at = async (headers: Record<string, string>, id: number): Promise<Frame> => {
      const response = await endpoint.fetch(
        'POST',
        { ...JSON_HEADERS, ...headers },
        JSON.stringify(callTool(id, 'probe_version')),
      );
      assert.equal(response.headers.get('mcp-session-id'), null);
      return json(response);
    };
    assert.deepEqual(await at({ 'mcp-protocol-version': '2025-06-18' }, 2), textResult(2, '2025-06-18'));
    assert.deepEqual(await at({}, 3), textResult(3, '2025-03-26'));
    // An Mcp-Session-Id is ignored, never echoed.
    assert.deepEqual(await at({ 'mcp-session-id': 'whatever-0123456789abcdef' }, 4), textResult(4, '2025-03-26'));
    await expectAccepted(
      await endpoint.fetch('POST', JSON_HEADERS, JSON.stringify(notification('notifications/initialized'))),
    );
    assert.equal(endpoint.sessionCount, 0);
  },
);

test('stateless: ctx.sample fails fast in the handler and the tool answers', T, async (t) => {
  const endpoint = await serve(t, samplingProbeServer(), { sessions: false });
  const body = await json(
    await endpoint.fetch(
      'POST',
      { ...JSON_HEADERS, 'mcp-protocol-version': LATEST },
      JSON.stringify(callTool(1, 'probe_sample')),
    ),
  );
  const failure = JSON.parse(body.result.content[0].text);
  assert.match(failure.message, /^Cannot send 'sampling\/createMessage': /);
  assert.equal(failure.protocolVersion, LATEST);
});

test('stateless: ctx.sample fails with the documented -32600 no-back-channel error', T, async (t) => {
  const endpoint = await serve(t, samplingProbeServer(), { sessions: false });
  const body = await json(
    await endpoint.fetch(
      'POST',
      { ...JSON_HEADERS, 'mcp-protocol-version': LATEST },
      JSON.stringify(callTool(1, 'probe_sample')),
    ),
  );
  assert.deepEqual(JSON.parse(body.result.content[0].text), {
    name: 'OutboundRequestError',
    code: -32600,
    message: NO_BACK_CHANNEL,
    protocolVersion: LATEST,
  });
});

test('stateless: GET and DELETE → 405 with Allow: POST', T, async (t) => {
  const endpoint = await serve(t, createEverythingServer(), { sessions: false });
  for (const method of ['GET', 'DELETE']) {
    const response = await endpoint.fetch(method, {
      accept: 'text/event-stream',
      'mcp-session-id': 'whatever-0123456789abcdef',
    });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal(response.headers.get('mcp-session-id'), null);
    assert.equal(((await response.json()) as Frame).error.code, -32600);
  }
});
