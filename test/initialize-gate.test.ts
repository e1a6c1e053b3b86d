// The initialize gate and the initialize hook (MCP 2025-11-25, Basic > Lifecycle > Initialization), on stdio and
// over Streamable HTTP. While ServerOptions.onInitialize runs, every later frame of the connection (requests,
// notifications, cancels, a repeated initialize) is held and replayed in arrival order when the hook finishes; a
// held cancel withdraws its held request; only the hook's end releases the gate (never the initialize POST's HTTP
// lifecycle); a throwing hook refuses the handshake, the held frames then meet the not-initialized gate, and an
// HTTP session minted early is removed again.
//
// Every wait is on an explicit signal: a deferred that releases the hook, the server's reader having consumed the
// bytes of a frame (stdio: our 'data' listener runs after the server's; HTTP: the request body was read in full and
// the core handled it), an SSE event read from a fetch body. No sleeps; nothing depends on time.
//
// Notifications have no effect a test can see on the wire, so when a notification is *applied* (handled by the
// legacy lifecycle once the handshake committed) is observed through a spy on LegacyLifecycle.onNotification, into
// the same log the test tools write when they run: the log is the server-side order of effects.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { createServer, type InitializeParams, ProtocolError, type Server } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { type HttpServer, type ServeHttpOptions, serveHttp } from '../http.ts';
import type { JsonRpcNotification, RequestId } from '../jsonrpc.ts';
import { LegacyLifecycle } from '../legacy.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { SseReader } from './sse-reader.ts';
import { type Id, notification, request } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time

const LATEST = '2025-11-25';
const CLIENT = { name: 'gate-test', version: '1.0.0' };
const BOTH = 'application/json, text/event-stream';
const NOT_INITIALIZED = 'Invalid Request: server not initialized; send initialize first';
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
const DELAY_KEY = 'fixture/initializeDelayMs';
const BATCHES = '2025-03-26'; // the one version that has JSON-RPC batches

// ---------------------------------------------------------------------------------------------------------------
// Frames

function initialize(id: Id, extra: Record<string, unknown> = {}): Frame {
  return request(id, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT, ...extra });
}

function cancel(requestId: Id): Frame {
  return notification('notifications/cancelled', { requestId, reason: 'test' });
}

function record(id: Id, label: string): Frame {
  return request(id, 'tools/call', { name: 'record', arguments: { label } });
}

function recorded(id: Id, label: string): Frame {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: label }] } };
}

function notInitialized(id: Id): Frame {
  return { jsonrpc: '2.0', id, error: { code: -32600, message: NOT_INITIALIZED } };
}

function pong(id: Id): Frame {
  return { jsonrpc: '2.0', id, result: {} };
}

/** A batch's answers by id: the array holds them in the order they completed. */
function byId(answers: Frame[]): Frame[] {
  return [...answers].sort((a, b) => a.id - b.id);
}

const NO_BATCHES = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Invalid Request: batches are accepted only under protocol 2025-03-26' },
};

const INITIALIZED = notification('notifications/initialized');
const ROOTS_CHANGED = notification('notifications/roots/list_changed');

// ---------------------------------------------------------------------------------------------------------------
// A server whose initialize hook waits until the test releases (or fails) it, with a tool that records when it runs

interface HookCall {
  params: InitializeParams;
  ctx: { signal: AbortSignal; requestId: RequestId; protocolVersion: string };
  signalAbortedInHook: boolean;
  /** Resolve: the hook returns. Reject: the hook throws that error. */
  release: ReturnType<typeof deferred<void>>;
}

class Gate {
  readonly server: Server;
  readonly logger = new MemoryLogger();
  /** Server-side order of effects: the hook's end, tool runs, applied notifications (see spyNotifications). */
  readonly log: string[] = [];
  readonly calls: HookCall[] = [];
  readonly #waiting: { n: number; resolve(call: HookCall): void }[] = [];

  constructor(options: { hook?: boolean; maxInFlight?: number } = {}) {
    this.server = createServer(
      { name: 'gate', version: '1.0.0' },
      {
        logger: this.logger,
        maxInFlight: options.maxInFlight,
        onInitialize:
          options.hook === false
            ? undefined
            : async (params, ctx) => {
                const call: HookCall = { params, ctx, signalAbortedInHook: ctx.signal.aborted, release: deferred() };
                this.calls.push(call);
                for (const waiter of this.#waiting.filter((w) => w.n === this.calls.length - 1)) waiter.resolve(call);
                await call.release.promise;
                this.log.push('hook:end');
              },
      },
    );
    this.server.tool(
      'record',
      {
        inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
      },
      (args: { label: string }) => {
        this.log.push(`tool:${args.label}`); // synchronously, as the held request is replayed
        return { content: [{ type: 'text', text: args.label }] };
      },
    );
  }

  /** The n-th call of the hook (0-based), once it has started. */
  call(n = 0): Promise<HookCall> {
    const call = this.calls[n];
    if (call !== undefined) return Promise.resolve(call);
    return new Promise((resolve) => this.#waiting.push({ n, resolve }));
  }
}

/** Logs each notification the legacy lifecycle applies (on an initialized connection), in order, into `log`. */
function spyNotifications(t: TestContext, log: string[]): void {
  const original = LegacyLifecycle.prototype.onNotification;
  t.mock.method(
    LegacyLifecycle.prototype,
    'onNotification',
    function (this: LegacyLifecycle, message: JsonRpcNotification) {
      if (this.initialized) {
        const id = message.method === 'notifications/cancelled' ? `(${JSON.stringify(message.params?.requestId)})` : '';
        log.push(`note:${message.method}${id}`);
      }
      return original.call(this, message);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// stdio

/** The next `count` frames in wire order. */
async function nextFrames(client: WireClient, count: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) frames.push(await client.next());
  return frames;
}

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

// ---------------------------------------------------------------------------------------------------------------
// HTTP

/** One POST: its response, and the moment the server has read its body and handed it to the core. */
interface Posted {
  tag: string;
  response: Promise<Response>;
  received: Promise<void>;
  /** Whether the response (headers) has arrived yet. */
  readonly settled: boolean;
}

class Endpoint {
  readonly http: HttpServer;
  readonly #received = new Map<string, () => void>();
  readonly #closed = new Map<string, Promise<unknown>>();
  #nextTag = 0;

  constructor(http: HttpServer) {
    this.http = http;
    // Added after the MCP handler, so on 'end' the handler's own body reader has already resolved.
    http.httpServer.on('request', (req, res) => {
      const tag = req.headers['x-test'];
      if (typeof tag !== 'string') return;
      this.#closed.set(tag, once(res, 'close'));
      const received = this.#received.get(tag);
      // The core handles a body in the microtask after it was read; setImmediate runs after all of those.
      if (received !== undefined) req.once('end', () => setImmediate(received));
    });
  }

  get sessionCount(): number {
    return this.http.handler.sessionCount;
  }

  fetch(method: string, headers: Record<string, string>, body?: string, signal?: AbortSignal): Posted {
    const tag = `t${this.#nextTag++}`;
    const received = deferred();
    this.#received.set(tag, received.resolve);
    const posted = {
      tag,
      settled: false,
      received: received.promise,
      response: fetch(this.http.url, { method, headers: { ...headers, 'x-test': tag }, body, signal }),
    };
    posted.response.then(
      () => (posted.settled = true),
      () => (posted.settled = true),
    );
    return posted;
  }

  /** Resolves once the server has seen the exchange `posted` close (answered, or dropped by the client). */
  async closedOnServer(posted: Posted): Promise<void> {
    await posted.received;
    await this.#closed.get(posted.tag);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function serve(t: TestContext, server: Server, options: ServeHttpOptions = {}): Promise<Endpoint> {
  const http = await serveHttp(server, { port: 0, ...options });
  t.after(() => http.close());
  return new Endpoint(http);
}

/** A 2025 client over HTTP that pipelines: it never waits for an answer before sending the next frame. */
class HttpClient {
  readonly endpoint: Endpoint;
  sessionId: string | undefined;

  constructor(endpoint: Endpoint) {
    this.endpoint = endpoint;
  }

  post(body: unknown, extra: Record<string, string> = {}, signal?: AbortSignal): Posted {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: BOTH };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return this.endpoint.fetch('POST', { ...headers, ...extra }, JSON.stringify(body), signal);
  }

  /** Posts a frame and waits until the server has taken it in (not for its answer). */
  async pipeline(body: unknown, extra?: Record<string, string>): Promise<Posted> {
    const posted = this.post(body, extra);
    await posted.received;
    return posted;
  }

  /** initialize answered over SSE at once (the server has a hook): keeps the session id, returns the stream. */
  async initializeEarly(frame: Frame, signal?: AbortSignal): Promise<{ posted: Posted; stream: SseReader }> {
    const posted = this.post(frame, {}, signal);
    const response = await posted.response;
    const sessionId = response.headers.get('mcp-session-id');
    assert.ok(sessionId !== null, 'the SSE headers carry the session id');
    this.sessionId = sessionId;
    return { posted, stream: new SseReader(response) };
  }
}

/** A session whose initialize (`frame`) streamed early and whose hook is now running: the test releases it. */
async function behindHook(t: TestContext, gate: Gate, frame: Frame = initialize(1)) {
  const endpoint = await serve(t, gate.server);
  const client = new HttpClient(endpoint);
  const { stream } = await client.initializeEarly(frame);
  const call = await gate.call();
  return { endpoint, client, stream, call };
}

/** A 200 `application/json` answer's body. */
async function json(posted: Posted | Promise<Response>): Promise<Frame> {
  const response = await ('response' in posted ? posted.response : posted);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  return response.json();
}

/** A 202 with an empty body: no JSON-RPC answer. */
async function accepted(posted: Posted): Promise<void> {
  const response = await posted.response;
  assert.equal(response.status, 202);
  assert.equal(await response.text(), '');
}

/** A request POST that ended with its session: no JSON-RPC answer (202 empty, or the session's 404). */
async function unanswered(posted: Posted): Promise<void> {
  const response = await posted.response;
  const text = await response.text();
  if (response.status === 404) assert.deepEqual(JSON.parse(text), SESSION_NOT_FOUND);
  else assert.deepEqual([response.status, text], [202, '']);
}

// ---------------------------------------------------------------------------------------------------------------
// The hook's arguments

test(
  'stdio: the hook receives the client’s params and a ctx with signal, requestId and the negotiated version',
  T,
  async () => {
    const gate = new Gate();
    const client = new WireClient(gate.server);
    const capabilities = { roots: { listChanged: true }, sampling: {} };
    const _meta = { 'example/trace': 'abc' };
    await deliver(
      client,
      request('init-1', 'initialize', { protocolVersion: '2030-01-01', capabilities, clientInfo: CLIENT, _meta }),
    );
    const call = await gate.call();
    assert.deepEqual(call.params, { protocolVersion: '2030-01-01', capabilities, clientInfo: CLIENT, _meta });
    assert.equal(call.ctx.requestId, 'init-1');
    assert.equal(call.ctx.protocolVersion, LATEST); // negotiated: the client asked for a version the server lacks
    assert.ok(call.ctx.signal instanceof AbortSignal);
    assert.equal(call.signalAbortedInHook, false);
    call.release.resolve();
    const response = await client.response('init-1');
    assert.equal(response.result.protocolVersion, LATEST);
    assert.equal(gate.calls.length, 1);
    assert.deepEqual(await client.end(), []);
  },
);

test(
  'HTTP: the hook receives the client’s params and a ctx with signal, requestId and the negotiated version',
  T,
  async (t) => {
    const gate = new Gate();
    const endpoint = await serve(t, gate.server);
    const client = new HttpClient(endpoint);
    const capabilities = { elicitation: {} };
    const { stream } = await client.initializeEarly(
      request(7, 'initialize', { protocolVersion: '2025-06-18', capabilities, clientInfo: CLIENT, _meta: { k: 1 } }),
    );
    const call = await gate.call();
    assert.deepEqual(call.params, { protocolVersion: '2025-06-18', capabilities, clientInfo: CLIENT, _meta: { k: 1 } });
    assert.equal(call.ctx.requestId, 7);
    assert.equal(call.ctx.protocolVersion, '2025-06-18');
    assert.equal(call.signalAbortedInHook, false);
    call.release.resolve();
    const answer = await stream.message();
    assert.equal(answer.id, 7);
    assert.equal(answer.result.protocolVersion, '2025-06-18');
    await stream.ended();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Frames pipelined behind a slow initialize

test(
  'stdio: requests, notifications and a cancel pipelined behind a slow initialize are applied after it, in arrival order',
  T,
  async (t) => {
    const gate = new Gate();
    spyNotifications(t, gate.log);
    const client = new WireClient(gate.server);
    await deliver(
      client,
      initialize(1),
      INITIALIZED,
      record(2, 'a'),
      ROOTS_CHANGED,
      record(3, 'withdrawn'),
      cancel(3),
      record(4, 'b'),
      request(5, 'ping'),
    );
    const call = await gate.call();
    // Nothing was served while the hook runs — not even ping, which an uninitialized connection answers.
    assert.equal(client.frames.length, 0);
    assert.deepEqual(gate.log, []);
    call.release.resolve();
    const first = await client.next();
    assert.equal(first.id, 1, 'the initialize answer is the first frame written');
    assert.equal(first.result.protocolVersion, LATEST);
    assert.deepEqual(await client.response(2), recorded(2, 'a'));
    assert.deepEqual(await client.response(4), recorded(4, 'b'));
    assert.deepEqual(await client.response(5), { jsonrpc: '2.0', id: 5, result: {} });
    assert.equal(client.stdio.connection.inFlightCount, 0, 'the withdrawn request left the in-flight table');
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(
      client.frames.filter((frame) => frame.id === 3),
      [],
      'the withdrawn request is never answered',
    );
    assert.deepEqual(gate.log, [
      'hook:end',
      'note:notifications/initialized',
      'tool:a',
      'note:notifications/roots/list_changed',
      'note:notifications/cancelled(3)',
      'tool:b', // the request the held cancel named never ran
    ]);
  },
);

test(
  'HTTP: the SSE initialize carries the session id at once; POSTs pipelined behind the hook run after it, in arrival order',
  T,
  async (t) => {
    const gate = new Gate();
    spyNotifications(t, gate.log);
    const endpoint = await serve(t, gate.server);
    const client = new HttpClient(endpoint);
    const { stream } = await client.initializeEarly(initialize(1));
    assert.equal(endpoint.sessionCount, 1);
    const call = await gate.call();
    const initialized = await client.pipeline(INITIALIZED);
    const a = await client.pipeline(record(2, 'a'));
    const roots = await client.pipeline(ROOTS_CHANGED);
    const withdrawn = await client.pipeline(record(3, 'withdrawn'));
    const cancelled = await client.pipeline(cancel(3));
    const b = await client.pipeline(record(4, 'b'));
    const ping = await client.pipeline(request(5, 'ping'));
    // Notifications are accepted at once (202) but held; no request was answered while the hook runs.
    await accepted(initialized);
    await accepted(roots);
    await accepted(cancelled);
    assert.deepEqual(
      [a, withdrawn, b, ping].map((posted) => posted.settled),
      [false, false, false, false],
    );
    assert.deepEqual(gate.log, []);
    call.release.resolve();
    const answer = await stream.message();
    assert.equal(answer.id, 1);
    assert.equal(answer.result.protocolVersion, LATEST);
    await stream.ended();
    assert.deepEqual(await json(a), recorded(2, 'a'));
    assert.deepEqual(await json(b), recorded(4, 'b'));
    assert.deepEqual(await json(ping), { jsonrpc: '2.0', id: 5, result: {} });
    // The withdrawn request's POST gets no answer: it had not streamed, so 202 with an empty body (a cancelled request
    // gets no response: MCP 2025-11-25, Basic > Utilities > Cancellation > Behavior Requirements).
    await accepted(withdrawn);
    assert.deepEqual(gate.log, [
      'hook:end',
      'note:notifications/initialized',
      'tool:a',
      'note:notifications/roots/list_changed',
      'note:notifications/cancelled(3)',
      'tool:b',
    ]);
    assert.equal(endpoint.sessionCount, 1);
    assert.deepEqual(
      await json(client.post(request(6, 'tools/list'))).then((frame) =>
        frame.result.tools.map((tool: Frame) => tool.name),
      ),
      ['record'],
    );
  },
);

test(
  'HTTP: a POST pipelined behind the hook with MCP-Protocol-Version is held too (nothing is negotiated yet)',
  T,
  async (t) => {
    const gate = new Gate();
    const { client, stream, call } = await behindHook(t, gate);
    const list = await client.pipeline(request(2, 'tools/list'), { 'mcp-protocol-version': LATEST });
    assert.equal(list.settled, false);
    call.release.resolve();
    assert.equal((await stream.message()).id, 1);
    await stream.ended();
    const frame = await json(list);
    assert.deepEqual(
      frame.result.tools.map((tool: Frame) => tool.name),
      ['record'],
    );
    // Once negotiated, a differing header is refused as before.
    const response = await client.post(request(3, 'ping'), { 'mcp-protocol-version': '2025-06-18' }).response;
    assert.equal(response.status, 400);
    await response.body?.cancel();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Only the hook's end releases the gate

test('stdio: a cancel naming the initialize itself is held, aborts nothing and releases nothing', T, async (t) => {
  const gate = new Gate();
  spyNotifications(t, gate.log);
  const client = new WireClient(gate.server);
  await deliver(client, initialize(1), cancel(1), request(2, 'tools/list'));
  const call = await gate.call();
  assert.equal(call.ctx.signal.aborted, false);
  assert.equal(client.frames.length, 0);
  call.release.resolve();
  assert.equal((await client.next()).id, 1);
  const list = await client.response(2);
  assert.deepEqual(
    list.result.tools.map((tool: Frame) => tool.name),
    ['record'],
  );
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(gate.log, ['hook:end', 'note:notifications/cancelled(1)']);
});

test(
  'HTTP: aborting the initialize POST mid-hook does not release the gate; a pipelined tools/list waits, then succeeds',
  T,
  async (t) => {
    const gate = new Gate();
    const endpoint = await serve(t, gate.server);
    const client = new HttpClient(endpoint);
    const controller = new AbortController();
    const { posted: init } = await client.initializeEarly(initialize(1), controller.signal);
    const call = await gate.call();
    const before = await client.pipeline(request(2, 'tools/list'));
    await accepted(await client.pipeline(cancel(1))); // initialize must not be cancelled: held, then finds nothing
    controller.abort();
    await endpoint.closedOnServer(init);
    // The initialize exchange is gone on both sides, yet the hook runs on (a disconnect is not a cancellation)…
    assert.equal(call.ctx.signal.aborted, false);
    // …and the gate still holds what was pipelined before and after the drop.
    const after = await client.pipeline(request(3, 'tools/list'));
    const notified = await client.pipeline(INITIALIZED);
    await accepted(notified);
    assert.equal(before.settled, false);
    assert.equal(after.settled, false);
    assert.equal(endpoint.sessionCount, 1);
    call.release.resolve();
    for (const [posted, id] of [
      [before, 2],
      [after, 3],
    ] as const) {
      const frame = await json(posted);
      assert.equal(frame.id, id);
      assert.deepEqual(
        frame.result.tools.map((tool: Frame) => tool.name),
        ['record'],
      );
    }
    // The handshake committed although nobody read its answer: the session is alive and initialized.
    assert.equal(endpoint.sessionCount, 1);
    assert.deepEqual(await json(client.post(request(4, 'ping'))), { jsonrpc: '2.0', id: 4, result: {} });
  },
);

test('stdio: closing the connection mid-hook aborts the hook’s signal; nothing held is ever answered', T, async () => {
  const gate = new Gate();
  const client = new WireClient(gate.server, { drainWindowMs: 0 });
  await deliver(client, initialize(1, { protocolVersion: BATCHES }), request(2, 'ping'), [request(3, 'ping')]);
  const call = await gate.call();
  const aborted = new Promise<void>((resolve) =>
    call.ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  assert.deepEqual(await client.end(), []);
  await aborted;
  assert.equal(call.ctx.signal.aborted, true);
  call.release.resolve(); // the hook ends after the connection closed: still nothing is written
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(client.frames.length, 0);
});

test(
  'HTTP: DELETE mid-hook ends the session: the hook’s signal fires, the initialize stream ends with no answer',
  T,
  async (t) => {
    const gate = new Gate();
    const { endpoint, client, stream, call } = await behindHook(t, gate);
    const held = await client.pipeline(request(2, 'ping'));
    const deleted = await endpoint.fetch('DELETE', { 'mcp-session-id': client.sessionId! }).response;
    assert.equal(deleted.status, 200);
    assert.equal(call.ctx.signal.aborted, true);
    await stream.ended();
    await unanswered(held);
    assert.equal(endpoint.sessionCount, 0);
    call.release.resolve();
    const again = await client.post(request(3, 'ping')).response;
    assert.equal(again.status, 404);
    assert.deepEqual(await again.json(), SESSION_NOT_FOUND);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// A repeated initialize behind the gate

test('stdio: a repeated initialize held behind the gate gets the first result, and the hook runs once', T, async () => {
  const gate = new Gate();
  const client = new WireClient(gate.server);
  await deliver(
    client,
    initialize(1),
    initialize(2, {
      protocolVersion: '2025-03-26',
      capabilities: { sampling: {} },
      clientInfo: { name: 'other', version: '9' },
    }),
  );
  const call = await gate.call();
  call.release.resolve();
  const first = await client.response(1);
  const second = await client.response(2);
  assert.equal(first.result.protocolVersion, LATEST);
  assert.deepEqual(second, { jsonrpc: '2.0', id: 2, result: first.result });
  assert.equal(gate.calls.length, 1);
  assert.deepEqual(await client.end(), []);
});

test(
  'HTTP: a repeated initialize held behind the gate (same session) gets the first result, and the hook runs once',
  T,
  async (t) => {
    const gate = new Gate();
    const { endpoint, client, stream, call } = await behindHook(t, gate);
    const repeat = await client.pipeline(initialize(2, { protocolVersion: '2025-03-26' }));
    assert.equal(repeat.settled, false);
    call.release.resolve();
    const first = await stream.message();
    await stream.ended();
    assert.deepEqual(await json(repeat), { jsonrpc: '2.0', id: 2, result: first.result });
    assert.equal(gate.calls.length, 1);
    assert.equal(endpoint.sessionCount, 1);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// A hook that throws refuses the handshake

test(
  'stdio: a hook throwing a ProtocolError refuses initialize with it as is; held requests then meet the not-initialized gate',
  T,
  async (t) => {
    const gate = new Gate();
    spyNotifications(t, gate.log);
    const client = new WireClient(gate.server);
    await deliver(
      client,
      initialize(1),
      INITIALIZED,
      record(2, 'never'),
      request(3, 'ping'),
      record(4, 'withdrawn'),
      cancel(4),
      request(5, 'tools/list'),
    );
    const call = await gate.call();
    call.release.reject(new ProtocolError(-32001, 'Unauthorized: token expired', { realm: 'test' }));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Unauthorized: token expired', data: { realm: 'test' } },
    });
    assert.deepEqual(await client.response(2), notInitialized(2));
    assert.deepEqual(await client.response(3), { jsonrpc: '2.0', id: 3, result: {} }); // ping needs no handshake
    assert.deepEqual(await client.response(5), notInitialized(5));
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(
      client.frames.filter((frame) => frame.id === 4),
      [],
      'the cancelled request is never answered',
    );
    assert.deepEqual(gate.log, [], 'no tool ran and no notification was applied on the refused connection');
    assert.deepEqual(gate.logger.errors, []);
  },
);

test(
  'stdio: a hook throwing a plain Error refuses initialize with -32603 Internal error; the detail goes only to the logger',
  T,
  async () => {
    const gate = new Gate();
    const client = new WireClient(gate.server);
    await deliver(client, initialize(1), request(2, 'tools/list'));
    const call = await gate.call();
    const failure = new Error('warm-up failed: db at 10.0.0.7 refused');
    call.release.reject(failure);
    const refused = await client.next();
    assert.deepEqual(refused, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(await client.response(2), notInitialized(2));
    assert.deepEqual(gate.logger.errors, [{ message: "handler for 'initialize' failed", error: failure }]);
    // The connection stays usable: a new initialize runs the hook again and can succeed.
    await deliver(client, initialize(3));
    (await gate.call(1)).release.resolve();
    assert.equal((await client.response(3)).result.protocolVersion, LATEST);
    assert.deepEqual(await client.end(), []);
    assert.ok(!JSON.stringify(client.frames).includes('10.0.0.7'));
  },
);

test(
  'HTTP: a hook throwing a ProtocolError refuses initialize on its stream; held requests get not-initialized; the session is removed',
  T,
  async (t) => {
    const gate = new Gate();
    spyNotifications(t, gate.log);
    const { endpoint, client, stream, call } = await behindHook(t, gate);
    const sessionId = client.sessionId!;
    await accepted(await client.pipeline(INITIALIZED));
    const never = await client.pipeline(record(2, 'never'));
    const ping = await client.pipeline(request(3, 'ping'));
    const withdrawn = await client.pipeline(record(4, 'withdrawn'));
    await accepted(await client.pipeline(cancel(4)));
    call.release.reject(new ProtocolError(-32001, 'Unauthorized: token expired'));
    assert.deepEqual(await stream.message(), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Unauthorized: token expired' },
    });
    await stream.ended();
    assert.deepEqual(await json(never), notInitialized(2));
    assert.deepEqual(await json(ping), { jsonrpc: '2.0', id: 3, result: {} });
    await accepted(withdrawn);
    assert.deepEqual(gate.log, []);
    // The refused handshake leaves no session: its id is unknown from now on.
    assert.equal(endpoint.sessionCount, 0);
    const again = await client.post(request(5, 'ping')).response;
    assert.equal(again.status, 404);
    assert.deepEqual(await again.json(), SESSION_NOT_FOUND);
    const deleted = await endpoint.fetch('DELETE', { 'mcp-session-id': sessionId }).response;
    assert.equal(deleted.status, 404);
    await deleted.body?.cancel();
  },
);

test(
  'HTTP: a hook throwing a plain Error refuses initialize with -32603 Internal error, detail only in the logger; the session is removed',
  T,
  async (t) => {
    const gate = new Gate();
    const { endpoint, client, stream, call } = await behindHook(t, gate);
    const list = await client.pipeline(request(2, 'tools/list'));
    const failure = new Error('warm-up failed: db at 10.0.0.7 refused');
    call.release.reject(failure);
    const refused = await stream.message();
    assert.deepEqual(refused, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    await stream.ended();
    assert.deepEqual(await json(list), notInitialized(2));
    assert.deepEqual(gate.logger.errors, [{ message: "handler for 'initialize' failed", error: failure }]);
    assert.equal(endpoint.sessionCount, 0);
    const again = await client.post(request(3, 'tools/list')).response;
    assert.equal(again.status, 404);
    assert.deepEqual(await again.json(), SESSION_NOT_FOUND);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 2025-03-26 batches behind the gate: held like requests

test(
  'stdio: a 2025-03-26 batch pipelined behind a slow initialize is held and served in its turn, answered as one array',
  T,
  async (t) => {
    const gate = new Gate();
    spyNotifications(t, gate.log);
    const client = new WireClient(gate.server);
    await deliver(
      client,
      initialize(1, { protocolVersion: BATCHES }),
      INITIALIZED,
      record(2, 'a'),
      [record(3, 'b'), record(4, 'withdrawn'), ROOTS_CHANGED, record(5, 'c'), request(6, 'ping')],
      cancel(4),
      record(7, 'd'),
    );
    const call = await gate.call();
    assert.equal(client.frames.length, 0, 'nothing is answered while the hook runs, the batch included');
    call.release.resolve();
    const first = await client.next();
    assert.equal(first.id, 1, 'the initialize answer is the first frame written');
    assert.equal(first.result.protocolVersion, BATCHES);
    // By id: the answers are asynchronous (tool calls), so only the order the log shows is fixed.
    assert.deepEqual(await client.response(2), recorded(2, 'a'));
    assert.deepEqual(byId(await client.waitFor(Array.isArray)), [recorded(3, 'b'), recorded(5, 'c'), pong(6)]);
    assert.deepEqual(await client.response(7), recorded(7, 'd'));
    assert.deepEqual(await client.end(), []);
    assert.equal(client.frames.length, 4);
    assert.deepEqual(gate.log, [
      'hook:end',
      'note:notifications/initialized',
      'tool:a',
      'tool:b', // the batch's request the held cancel named never ran
      'note:notifications/roots/list_changed',
      'tool:c',
      'note:notifications/cancelled(4)',
      'tool:d',
    ]);
  },
);

test(
  'stdio: what is held behind the hook is bounded by maxInFlight: a batch past it is refused -32603 at once, notifications past it are dropped with one warning; what was held is served',
  T,
  async (t) => {
    const gate = new Gate({ maxInFlight: 4 });
    spyNotifications(t, gate.log);
    const client = new WireClient(gate.server);
    await deliver(
      client,
      initialize(1, { protocolVersion: BATCHES }),
      INITIALIZED,
      [record(2, 'a'), record(3, 'b')],
      [record(4, 'refused'), request(5, 'ping')],
      ROOTS_CHANGED,
      ROOTS_CHANGED,
      notification('notifications/whatever'),
    );
    const call = await gate.call();
    // Held so far: initialized, a batch of two, one list_changed (4 of 4); the second batch would pass the bound.
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error: too many requests in flight (limit 4)' },
    });
    assert.deepEqual(gate.logger.warnings, [
      "dropped 'notifications/roots/list_changed' and later notifications: too many frames held behind the initialize hook (limit 4)",
    ]);
    call.release.resolve();
    assert.equal((await client.response(1)).result.protocolVersion, BATCHES);
    assert.deepEqual(byId(await client.waitFor(Array.isArray)), [recorded(2, 'a'), recorded(3, 'b')]);
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(gate.log, [
      'hook:end',
      'note:notifications/initialized',
      'tool:a',
      'tool:b',
      'note:notifications/roots/list_changed',
    ]);
  },
);

test(
  'stdio: a batch held behind a hook that throws is answered like the held requests: its requests meet the not-initialized gate',
  T,
  async () => {
    const gate = new Gate();
    const client = new WireClient(gate.server);
    await deliver(
      client,
      initialize(1, { protocolVersion: BATCHES }),
      record(2, 'never'),
      [record(3, 'never'), request(4, 'ping')],
      record(5, 'never'),
    );
    const call = await gate.call();
    call.release.reject(new ProtocolError(-32001, 'Unauthorized: token expired'));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Unauthorized: token expired' },
    });
    assert.deepEqual(await client.response(2), notInitialized(2));
    assert.deepEqual(byId(await client.waitFor(Array.isArray)), [notInitialized(3), pong(4)]);
    assert.deepEqual(await client.response(5), notInitialized(5));
    assert.deepEqual(await client.end(), []);
    assert.equal(client.frames.length, 4);
    assert.deepEqual(gate.log, []);
  },
);

test(
  'stdio: a batch behind a slow initialize of a version without batches is refused in its turn, after the initialize answer',
  T,
  async () => {
    const gate = new Gate();
    const client = new WireClient(gate.server);
    await deliver(client, initialize(1), [request(2, 'ping')], request(3, 'ping'));
    const call = await gate.call();
    assert.equal(client.frames.length, 0);
    call.release.resolve();
    const [first, ...rest] = await nextFrames(client, 3);
    assert.equal(first.result.protocolVersion, LATEST);
    assert.deepEqual(rest, [NO_BATCHES, pong(3)]);
    assert.deepEqual(await client.end(), []);
  },
);

test(
  'stdio: after a refused handshake, a batch held behind a replayed initialize waits for that one’s hook',
  T,
  async () => {
    const gate = new Gate();
    const client = new WireClient(gate.server);
    await deliver(client, initialize(1, { protocolVersion: BATCHES }), initialize(2, { protocolVersion: BATCHES }), [
      record(3, 'b'),
    ]);
    (await gate.call(0)).release.reject(new ProtocolError(-32001, 'Unauthorized: token expired'));
    assert.equal((await client.next()).id, 1);
    const second = await gate.call(1); // the replayed initialize opened a new gate, and the batch waits behind it
    assert.deepEqual(gate.log, []); // the log records only hooks that returned
    assert.equal(client.frames.length, 1);
    second.release.resolve();
    assert.equal((await client.response(2)).result.protocolVersion, BATCHES);
    assert.deepEqual(await client.waitFor(Array.isArray), [recorded(3, 'b')]);
    assert.deepEqual(gate.log, ['hook:end', 'tool:b']);
    assert.deepEqual(await client.end(), []);
  },
);

test(
  'HTTP: a 2025-03-26 batch POSTed behind the hook is held and answered with one array after it, in arrival order',
  T,
  async (t) => {
    const gate = new Gate();
    const { client, stream, call } = await behindHook(t, gate, initialize(1, { protocolVersion: BATCHES }));
    const a = await client.pipeline(record(2, 'a'));
    const batch = await client.pipeline([record(3, 'b'), request(4, 'ping')]);
    const d = await client.pipeline(record(5, 'c'));
    assert.deepEqual(
      [a, batch, d].map((posted) => posted.settled),
      [false, false, false],
    );
    call.release.resolve();
    assert.equal((await stream.message()).result.protocolVersion, BATCHES);
    await stream.ended();
    assert.deepEqual(byId(await json(batch)), [recorded(3, 'b'), pong(4)]);
    assert.deepEqual(await json(a), recorded(2, 'a'));
    assert.deepEqual(await json(d), recorded(5, 'c'));
    assert.deepEqual(gate.log, ['hook:end', 'tool:a', 'tool:b', 'tool:c']);
  },
);

test(
  'HTTP: a batch held behind a hook that throws gets its requests’ not-initialized answers in one array',
  T,
  async (t) => {
    const gate = new Gate();
    const { endpoint, client, stream, call } = await behindHook(t, gate, initialize(1, { protocolVersion: BATCHES }));
    const batch = await client.pipeline([record(2, 'never'), request(3, 'ping')]);
    call.release.reject(new ProtocolError(-32001, 'Unauthorized: token expired'));
    assert.deepEqual(await stream.message(), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32001, message: 'Unauthorized: token expired' },
    });
    await stream.ended();
    assert.deepEqual(byId(await json(batch)), [notInitialized(2), pong(3)]);
    assert.deepEqual(gate.log, []);
    assert.equal(endpoint.sessionCount, 0);
  },
);

test(
  'HTTP: a batch behind the hook of a handshake at a version without batches is refused at once with 400',
  T,
  async (t) => {
    const gate = new Gate();
    const { client, stream, call } = await behindHook(t, gate);
    const refused = await client.post([request(2, 'ping')]).response; // answered while the hook still runs
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), NO_BATCHES);
    call.release.resolve();
    assert.equal((await stream.message()).result.protocolVersion, LATEST);
    await stream.ended();
  },
);

test(
  'HTTP: a batch that would pass maxInFlight behind the hook is refused at once with 503 -32603 on its own POST; what was held is served',
  T,
  async (t) => {
    const gate = new Gate({ maxInFlight: 3 });
    const { client, stream, call } = await behindHook(t, gate, initialize(1, { protocolVersion: BATCHES }));
    const held = await client.pipeline([record(2, 'a'), request(3, 'ping')]);
    const refused = await client.post([record(4, 'refused'), request(5, 'ping')]).response; // answered while the hook runs
    assert.equal(refused.status, 503);
    assert.deepEqual(await refused.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal error: too many requests in flight (limit 3)' },
    });
    assert.equal(held.settled, false);
    call.release.resolve();
    assert.equal((await stream.message()).result.protocolVersion, BATCHES);
    await stream.ended();
    assert.deepEqual(byId(await json(held)), [recorded(2, 'a'), pong(3)]);
    assert.deepEqual(gate.log, ['hook:end', 'tool:a']);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// When the initialize answer may stream early

test('HTTP without a hook: initialize is answered as plain application/json with the session id', T, async (t) => {
  const gate = new Gate({ hook: false });
  const endpoint = await serve(t, gate.server);
  const client = new HttpClient(endpoint);
  const response = await client.post(initialize(1)).response;
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.match(response.headers.get('mcp-session-id') ?? '', /^[\x21-\x7E]{16,}$/);
  const body: Frame = await response.json();
  assert.equal(body.id, 1);
  assert.equal(body.result.protocolVersion, LATEST);
  assert.equal(endpoint.sessionCount, 1);
});

test(
  "HTTP with a hook but responseMode 'json', or a client that does not accept SSE: JSON after the hook, no session before it",
  T,
  async (t) => {
    for (const [options, accept] of [
      [{ responseMode: 'json' }, BOTH],
      [{}, 'application/json'],
    ] as const) {
      const gate = new Gate();
      const endpoint = await serve(t, gate.server, options);
      const client = new HttpClient(endpoint);
      const init = client.post(initialize(1), { accept });
      const call = await gate.call();
      await init.received;
      assert.equal(init.settled, false);
      assert.equal(endpoint.sessionCount, 0, 'no session id exists before the handshake commits');
      call.release.resolve();
      const response = await init.response;
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.ok(response.headers.get('mcp-session-id') !== null);
      assert.equal((await json(Promise.resolve(response))).result.protocolVersion, LATEST);
      assert.equal(endpoint.sessionCount, 1);
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The demo server's fixture/initializeDelayMs

test(
  'demo, stdio: fixture/initializeDelayMs holds the handshake and everything behind it; no other request reads the key',
  T,
  async () => {
    // A: the hook waits 60 s (the demo's cap). Everything pipelined behind it is held.
    const a = new WireClient(createEverythingServer(), { drainWindowMs: 0 });
    await deliver(a, initialize(1, { _meta: { [DELAY_KEY]: 60_000 } }), request(2, 'ping'), request(3, 'tools/list'));
    // B: the key anywhere else (as a string on initialize, on other requests) delays nothing: B's whole conversation
    // completes while A is still waiting. Were the key read there, B would wait 60 s and the test time out.
    const b = new WireClient(createEverythingServer());
    const meta = { [DELAY_KEY]: 60_000 };
    const init = await b.request(
      'initialize',
      { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT, _meta: { [DELAY_KEY]: '60000' } },
      1,
    );
    assert.equal(init.result.protocolVersion, LATEST);
    b.send(INITIALIZED);
    assert.deepEqual(await b.request('ping', { _meta: meta }, 2), { jsonrpc: '2.0', id: 2, result: {} });
    const call = await b.request('tools/call', { name: 'test_simple_text', arguments: {}, _meta: meta }, 3);
    assert.equal(call.result.isError ?? false, false);
    assert.ok(Array.isArray((await b.request('tools/list', { _meta: meta }, 4)).result.tools));
    assert.deepEqual(await b.end(), []);
    assert.deepEqual(a.frames, [], 'A has no answer yet, not even to ping');
    // Closing A aborts the hook (its signal fires when the connection closes); nothing is ever answered.
    assert.deepEqual(await a.end(), []);
    assert.deepEqual(a.frames, []);
  },
);

test(
  'demo, stdio: after a small fixture/initializeDelayMs the pipelined frames are served in order behind the answer',
  T,
  async () => {
    const client = new WireClient(createEverythingServer());
    await deliver(
      client,
      initialize(1, { _meta: { [DELAY_KEY]: 5 } }),
      INITIALIZED,
      request(2, 'tools/list'),
      request(3, 'ping'),
    );
    const first = await client.next();
    assert.equal(first.id, 1, 'the initialize answer comes first');
    assert.equal(first.result.serverInfo.name, 'mcp-core-everything');
    const list = await client.response(2);
    assert.ok(
      list.result.tools.some((tool: Frame) => tool.name === 'test_simple_text'),
      'served as initialized, not -32600',
    );
    assert.deepEqual(await client.response(3), { jsonrpc: '2.0', id: 3, result: {} });
    assert.deepEqual(await client.end(), []);
  },
);

test(
  'demo, HTTP: fixture/initializeDelayMs streams the initialize headers at once and holds pipelined POSTs until the answer',
  T,
  async (t) => {
    const endpoint = await serve(t, createEverythingServer());
    const a = new HttpClient(endpoint);
    const { stream } = await a.initializeEarly(initialize(1, { _meta: { [DELAY_KEY]: 60_000 } }));
    const held = await a.pipeline(request(2, 'tools/list'));
    // Another session, with the key on its other requests, is served in full meanwhile.
    const b = new HttpClient(endpoint);
    const { stream: bStream } = await b.initializeEarly(initialize(1, { _meta: { [DELAY_KEY]: '60000' } })); // a string is no delay
    assert.equal((await bStream.message()).result.protocolVersion, LATEST);
    await bStream.ended();
    const called = await json(
      b.post(request(2, 'tools/call', { name: 'test_simple_text', arguments: {}, _meta: { [DELAY_KEY]: 60_000 } })),
    );
    assert.equal(called.id, 2);
    assert.equal(held.settled, false, 'A’s pipelined request is still held');
    // Ending A's session aborts its hook: the initialize stream ends with no answer, the held request is never served.
    const deleted = await endpoint.fetch('DELETE', { 'mcp-session-id': a.sessionId! }).response;
    assert.equal(deleted.status, 200);
    await stream.ended();
    await unanswered(held);
    assert.equal(endpoint.sessionCount, 1);

    // A small delay: the pipelined request is served after the answer, as initialized.
    const c = new HttpClient(endpoint);
    const { stream: cStream } = await c.initializeEarly(initialize(1, { _meta: { [DELAY_KEY]: 5 } }));
    const list = await c.pipeline(request(2, 'tools/list'));
    assert.equal((await cStream.message()).result.serverInfo.name, 'mcp-core-everything');
    await cStream.ended();
    assert.ok((await json(list)).result.tools.some((tool: Frame) => tool.name === 'test_simple_text'));
  },
);

test('demo: only the initialize hook of examples/everything.ts mentions fixture/initializeDelayMs', T, () => {
  const root = join(import.meta.dirname, '..');
  const hits: string[] = [];
  const scan = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', 'coverage', 'test', '.git'].includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) scan(path);
      else if (/\.(ts|js|mjs)$/.test(entry.name)) {
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, index) => {
            if (line.includes(DELAY_KEY) && !line.trim().startsWith('//'))
              hits.push(`${path.slice(root.length + 1)}:${index + 1}`);
          });
      }
    }
  };
  scan(root);
  assert.equal(hits.length, 1, hits.join(', '));
  assert.match(hits[0]!, /^examples\/everything\.ts:/);
  const source = readFileSync(join(root, 'examples/everything.ts'), 'utf8');
  const hook = source.slice(source.indexOf('onInitialize:'), source.indexOf('onInitialize:') + 400);
  assert.ok(hook.includes(DELAY_KEY), 'the read is inside the initialize hook');
});
