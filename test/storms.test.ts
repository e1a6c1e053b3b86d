// Storms: 10 000 open/cancel cycles of in-flight requests and 10 000 open/close cycles of long-lived streams per
// transport — stdio (notifications/cancelled, both eras; 2026 listens), 2025 HTTP sessions (cancel on the session;
// GET streams the client drops) and 2026 HTTP (the client dropping the exchange) — after which every table
// the core exposes is back to its starting size, no timer or socket is left and the heap grew less than a bound.
//
// Cycles are pipelined in batches; each batch waits for explicit signals (handler starts and aborts, answers,
// acknowledgements, the server-side close of each exchange), never for time. The HTTP core's open-stream count has
// no accessor: it is observed through the limit it feeds (maxStreams = one batch, so one leaked count refuses the next
// batch with 503), and a session's GET streams through its busy state (a stream left attached keeps it busy).

import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import {
  Agent,
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type Server as NodeServer,
} from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServer, type Server } from '../core.ts';
import { sessionsOf } from '../http/http-core.ts';
import type { Session } from '../http/sessions.ts';
import { type HttpServer, MemoryEventStore, serveHttp } from '../http.ts';
import { type StdioServer, serveStdio } from '../stdio.ts';
import { type Frame, MemoryLogger } from './harness.ts';
import { type Id, MODERN, modern, notification, request, SUBSCRIPTION_ID } from './wire.ts';

const CYCLES = 10_000;
const WARM_UP = 500; // cycles run before the baseline, so lazily built state (JIT, pools) is not counted as growth
const T = { timeout: 120_000 }; // a safety net against hangs only; no assertion depends on time
/**
 * Heap growth allowed over 10 000 cycles. What one cycle leaves behind when a table keeps its entry (the request
 * with its params, context, AbortController and closures; a stream with its writer and connection) is over
 * 1.5 KiB, so a one-entry-per-cycle leak passes 15 MiB (checked: keeping each cancelled request adds 16-20 MiB);
 * settled runs measure up to about 1.2 MiB, and it does not scale with the cycles (80 000 cycles: under 2 MiB).
 */
const HEAP_BOUND = 4 * 1024 * 1024;

const LATEST = '2025-11-25';
const CLIENT_INFO = { name: 'storm-client', version: '1.0.0' };
const INFO = { name: 'storm-test', version: '1.0.0' };

// ---------------------------------------------------------------------------------------------------------------
// Counting what is alive: the core's timers (unref'd ones too, which getActiveResourcesInfo does not list), active
// handles and requests by type, and the heap after a full GC

setFlagsFromString('--expose-gc');
// V8 drops the bytecode of functions unused for a few GCs (megabytes here): that would hide growth behind a baseline
// still holding an earlier test's bytecode.
setFlagsFromString('--no-flush-bytecode');
const gc = runInNewContext('gc') as () => void;

const ROOT = new URL('..', import.meta.url).href;
const TIMER_CALL = /^\s+at (?:setTimeout|setInterval) \(node:timers:/;

/** Whether a timer was armed by mcp-core's own code: the caller of setTimeout/setInterval is a source module. */
function armedByCore(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 16;
  const lines = new Error().stack!.split('\n');
  Error.stackTraceLimit = limit;
  const call = lines.findIndex((line) => TIMER_CALL.test(line));
  const caller = call === -1 ? undefined : lines[call + 1];
  if (caller === undefined) return false;
  return caller.includes(ROOT) && !caller.includes(`${ROOT}test/`);
}

/** Live timers armed by the core (node's own, e.g. socket timeouts and the Date header cache, are not counted). */
const coreTimers = new Set<number>();
createHook({
  init(asyncId, type) {
    if (type === 'Timeout' && armedByCore()) coreTimers.add(asyncId);
  },
  destroy(asyncId) {
    coreTimers.delete(asyncId);
  },
}).enable();

interface Snapshot {
  heap: number;
  timers: number;
  resources: Record<string, number>;
}

/** Destroy hooks and socket closes are delivered in later turns of the event loop: a few turns let them land. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 4; turn++) await new Promise((resolve) => setImmediate(resolve));
}

async function snapshot(): Promise<Snapshot> {
  await settle();
  gc();
  gc();
  const resources: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) {
    // Sockets, servers and ref'd timers; not the runner's own pipe writes to its parent, which come and go.
    if (/TCP|Timeout|Immediate/.test(type)) resources[type] = (resources[type] ?? 0) + 1;
  }
  return { heap: process.memoryUsage().heapUsed, timers: coreTimers.size, resources };
}

function assertSettled(t: TestContext, label: string, before: Snapshot, after: Snapshot): void {
  const growth = after.heap - before.heap;
  t.diagnostic(
    `${label}: heap ${(before.heap / 2 ** 20).toFixed(1)} MiB -> ${(after.heap / 2 ** 20).toFixed(1)} MiB ` +
      `(delta ${(growth / 1024).toFixed(0)} KiB), core timers ${before.timers} -> ${after.timers}`,
  );
  assert.equal(after.timers, before.timers, `${label}: live timers of the core (unref'd included)`);
  assert.deepEqual(after.resources, before.resources, `${label}: active handles and requests by type`);
  assert.ok(growth < HEAP_BOUND, `${label}: heap grew ${growth} bytes over ${CYCLES} cycles (bound ${HEAP_BOUND})`);
}

/** A count that can be awaited: until(n) resolves once it reached n. */
class Counter {
  value = 0;
  #waiters: { target: number; resolve(): void }[] = [];

  add(amount = 1): void {
    this.value += amount;
    if (this.#waiters.length === 0) return;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.value < waiter.target) return true;
      waiter.resolve();
      return false;
    });
  }

  until(target: number): Promise<void> {
    if (this.value >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The server: a tool that runs until it is aborted, a tool that announces a list change

interface StormServer {
  server: Server;
  started: Counter;
  aborted: Counter;
  logger: MemoryLogger;
}

function stormServer(): StormServer {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  const started = new Counter();
  const aborted = new Counter();
  server.tool(
    'slow',
    { description: 'Runs until it is aborted, then answers (an answer the core must drop)' },
    (_args, ctx) =>
      new Promise((resolve) => {
        started.add();
        const onAbort = (): void => {
          aborted.add();
          resolve({ content: [{ type: 'text', text: 'late' }] });
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
      }),
  );
  server.tool('touch', { description: 'Announces a tool list change' }, () => {
    server.notifyListChanged('tools');
    return { content: [{ type: 'text', text: 'touched' }] };
  });
  return { server, started, aborted, logger };
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => from + index);
}

// ---------------------------------------------------------------------------------------------------------------
// stdio: a lean NDJSON peer over in-memory streams (frames queue in wire order; take(n) awaits the next n)

class StdioPeer {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly stdio: StdioServer;
  #queue: Frame[] = [];
  #text = '';
  #waiter: { count: number; resolve(frames: Frame[]): void } | undefined;

  constructor(server: Server) {
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => this.#receive(chunk));
    this.stdio = serveStdio(server, { input: this.input, output: this.output });
  }

  #receive(chunk: string): void {
    this.#text += chunk;
    let newline: number;
    while ((newline = this.#text.indexOf('\n')) !== -1) {
      this.#queue.push(JSON.parse(this.#text.slice(0, newline)));
      this.#text = this.#text.slice(newline + 1);
    }
    const waiter = this.#waiter;
    if (waiter !== undefined && this.#queue.length >= waiter.count) {
      this.#waiter = undefined;
      waiter.resolve(this.#queue.splice(0, waiter.count));
    }
  }

  /** Writes frames in one chunk, in order. */
  send(frames: Frame[]): void {
    this.input.write(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(''));
  }

  /** The next `count` frames in wire order. */
  take(count: number): Promise<Frame[]> {
    if (this.#queue.length >= count) return Promise.resolve(this.#queue.splice(0, count));
    return new Promise((resolve) => (this.#waiter = { count, resolve }));
  }

  async end(): Promise<Frame[]> {
    this.input.end();
    await this.stdio.closed;
    return this.#queue;
  }
}

type StdioEra = 'legacy' | 'modern';

function stdioCall(era: StdioEra, id: Id, name: string): Frame {
  return era === 'legacy'
    ? request(id, 'tools/call', { name, arguments: {} })
    : modern('tools/call', { name, arguments: {} }, id);
}

/** A request whose answer proves that every frame before it was handled (a connection handles frames in order). */
function stdioMarker(era: StdioEra, id: Id): Frame {
  return era === 'legacy' ? request(id, 'ping') : modern('tools/list', {}, id);
}

function cancelled(requestId: Id): Frame {
  return notification('notifications/cancelled', { requestId, reason: 'storm' });
}

/** Asserts that the frames are exactly the answers to `ids`, in order, each a result. */
function assertAnswers(frames: Frame[], ids: Id[]): void {
  assert.deepEqual(
    frames.map((frame) => frame.id),
    ids,
    `expected only the answers to ${ids.join(', ')}; got ${JSON.stringify(frames).slice(0, 500)}`,
  );
  for (const frame of frames) assert.ok('result' in frame && !('method' in frame), JSON.stringify(frame));
}

async function stdioPeer(server: Server, era: StdioEra): Promise<StdioPeer> {
  const peer = new StdioPeer(server);
  if (era === 'legacy') {
    peer.send([request('init', 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT_INFO })]);
    assertAnswers(await peer.take(1), ['init']);
    peer.send([notification('notifications/initialized')]);
  }
  return peer;
}

for (const era of ['legacy', 'modern'] as const) {
  test(
    `stdio (${era === 'legacy' ? '2025' : '2026'}): ${CYCLES} slow tool calls cancelled in flight leave no request, timer or heap behind, and are never answered`,
    T,
    async (t) => {
      const { server, started, aborted, logger } = stormServer();
      const peer = await stdioPeer(server, era);
      const { connection } = peer.stdio;
      const BATCH = 500;
      let nextId = 1;
      let markers = 0;
      let peak = 0;

      const cycle = async (count: number): Promise<void> => {
        const ids = range(nextId, count);
        nextId += count;
        const target = started.value + count;
        peer.send(ids.map((id) => stdioCall(era, id, 'slow')));
        await started.until(target); // every handler runs: the cancels meet requests in flight
        assert.equal(connection.inFlightCount, count, 'the in-flight table holds the batch');
        peak = Math.max(peak, connection.inFlightCount);
        const marker = `m${++markers}`;
        peer.send([...ids.map(cancelled), stdioMarker(era, marker)]);
        // The very next frame answers the marker: no cancelled request was answered, late or not.
        assertAnswers(await peer.take(1), [marker]);
        assert.equal(aborted.value, started.value, 'every handler saw its abort');
        assert.equal(connection.inFlightCount, 0, 'the in-flight table is empty after the cancels');
      };

      for (let done = 0; done < WARM_UP; done += BATCH) await cycle(Math.min(BATCH, WARM_UP - done));
      const before = await snapshot();
      const startedBefore = started.value;
      const connections = server.metrics().connections;
      for (let done = 0; done < CYCLES; done += BATCH) await cycle(BATCH);
      // Handlers resolve late answers after their abort; a last marker proves none of them went out.
      peer.send([stdioMarker(era, 'last')]);
      assertAnswers(await peer.take(1), ['last']);
      const after = await snapshot();

      assert.equal(started.value - startedBefore, CYCLES);
      assert.equal(aborted.value, started.value);
      assert.equal(connection.inFlightCount, 0);
      assert.equal(connection.listenCount, 0);
      assert.equal(server.metrics().connections, connections);
      assert.deepEqual(logger.errors, []);
      t.diagnostic(`${CYCLES} cycles in batches of ${BATCH}; in-flight peak ${peak}`);
      assertSettled(t, `stdio ${era} cancel`, before, after);

      assert.deepEqual(await peer.end(), [], 'nothing was written after the last marker');
      assert.equal(server.metrics().connections, 0, 'the connection left the change hub at end of input');
    },
  );
}

test(
  `stdio (2026): ${CYCLES} subscriptions/listen streams ended by notifications/cancelled are released and receive no later event`,
  T,
  async (t) => {
    const { server, logger } = stormServer();
    const peer = await stdioPeer(server, 'modern');
    const { connection } = peer.stdio;
    const BATCH = 500;
    let nextId = 1;
    let markers = 0;

    const cycle = async (count: number): Promise<void> => {
      const ids = range(nextId, count);
      nextId += count;
      peer.send(ids.map((id) => modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, id)));
      const acks = await peer.take(count);
      assert.deepEqual(
        acks,
        ids.map((id) => ({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications: { toolsListChanged: true } },
        })),
      );
      assert.equal(connection.listenCount, count, 'the listen table holds the batch');
      assert.equal(connection.inFlightCount, count, 'each open listen is a request in flight');
      // After the cancels, a tool list change: a released stream must not get it; then a marker closes the batch.
      const touch = `touch${++markers}`;
      const marker = `m${markers}`;
      peer.send([...ids.map(cancelled), stdioCall('modern', touch, 'touch'), stdioMarker('modern', marker)]);
      // The two answers (in either order: the tool call settles in a later microtask) and nothing else.
      const answers = await peer.take(2);
      assertAnswers(
        answers.sort((a, b) => (a.id === touch ? -1 : b.id === touch ? 1 : 0)),
        [touch, marker],
      );
      assert.equal(connection.listenCount, 0, 'the listen table is empty after the cancels');
      assert.equal(connection.inFlightCount, 0);
    };

    for (let done = 0; done < WARM_UP; done += BATCH) await cycle(Math.min(BATCH, WARM_UP - done));
    const before = await snapshot();
    for (let done = 0; done < CYCLES; done += BATCH) await cycle(BATCH);
    const after = await snapshot();

    assert.equal(connection.listenCount, 0);
    assert.equal(connection.inFlightCount, 0);
    assert.equal(server.metrics().connections, 1);
    assert.deepEqual(logger.errors, []);
    t.diagnostic(`${CYCLES} listen cycles in batches of ${BATCH}`);
    assertSettled(t, 'stdio listen', before, after);
    assert.deepEqual(await peer.end(), []);
    assert.equal(server.metrics().connections, 0);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// HTTP: a keep-alive client that counts its sockets, and a watch on the server's sockets and exchanges

interface Exchange {
  request: ClientRequest;
  response: Promise<IncomingMessage>;
}
interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

class HttpClient {
  readonly agent: Agent;
  readonly #url: URL;
  readonly #sockets = new WeakSet<Socket>();
  #opened = 0;
  readonly #closed = new Counter();

  constructor(url: string, maxSockets: number) {
    this.#url = new URL(url);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  /** Starts one exchange; `response` rejects when the exchange fails (or is dropped: drop() handles that). */
  start(method: string, headers: Record<string, string>, body?: Frame): Exchange {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest({
      host: this.#url.hostname,
      port: this.#url.port,
      path: this.#url.pathname,
      method,
      agent: this.agent,
      headers: text === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(text)) },
    });
    req.on('socket', (socket) => {
      if (this.#sockets.has(socket)) return;
      this.#sockets.add(socket);
      this.#opened++;
      socket.once('close', () => this.#closed.add());
    });
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    req.end(text);
    return { request: req, response };
  }

  /** The whole answer of an exchange. */
  async answer(exchange: Exchange): Promise<Answer> {
    const response = await exchange.response;
    return new Promise((resolve, reject) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      response.once('error', reject);
    });
  }

  post(headers: Record<string, string>, body: Frame): Promise<Answer> {
    return this.answer(this.start('POST', headers, body));
  }

  /** The client goes away: the exchange's socket is destroyed, whether an answer has begun or not. */
  static drop(exchange: Exchange): void {
    exchange.response.then(
      (response) => response.on('error', () => {}),
      () => {},
    );
    exchange.request.destroy();
  }

  /** Destroys every socket and resolves when all have closed. */
  async close(): Promise<void> {
    this.agent.destroy();
    await this.#closed.until(this.#opened);
  }
}

/** The first SSE event's JSON-RPC message on a streamed answer (asserted to be a 200 event stream); the stream stays open. */
async function firstEvent(exchange: Exchange): Promise<Frame> {
  const response = await exchange.response;
  assert.equal(response.statusCode, 200, 'a stream opens (503 would mean a leaked stream count)');
  assert.equal(response.headers['content-type'], 'text/event-stream');
  response.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string): void => {
      text += chunk;
      let cut: number;
      while ((cut = text.indexOf('\n\n')) !== -1) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6));
        if (data.length === 0) continue; // a comment
        response.off('data', onData);
        response.off('end', onEnd);
        resolve(JSON.parse(data.join('\n')));
        return;
      }
    };
    const onEnd = (): void => reject(new Error('the stream ended before its first event'));
    response.on('data', onData);
    response.once('end', onEnd);
  });
}

/** The node server's view: open sockets, and the server-side close of every exchange (after the core's own listeners ran). */
class ServerWatch {
  #opened = 0;
  readonly #socketsClosed = new Counter();
  readonly exchangesClosed = new Counter();

  constructor(httpServer: NodeServer) {
    httpServer.on('connection', (socket: Socket) => {
      this.#opened++;
      socket.once('close', () => this.#socketsClosed.add());
    });
    // Prepended: this 'close' listener runs first in the emit, and an await on the counter resumes only after the
    // emit, so after the core's listeners on the same response.
    httpServer.prependListener('request', (_request, response) => {
      response.once('close', () => this.exchangesClosed.add());
    });
  }

  /** Resolves when every socket the server accepted has closed. */
  socketsClosed(): Promise<void> {
    return this.#socketsClosed.until(this.#opened);
  }
}

interface HttpStorm extends StormServer {
  http: HttpServer;
  sessions: ReadonlyMap<string, Session>;
  events: MemoryEventStore;
  watch: ServerWatch;
}

async function httpStorm(t: TestContext, maxStreams: number, events = new MemoryEventStore()): Promise<HttpStorm> {
  const storm = stormServer();
  // keepAliveMs stays at its default: each SSE stream arms a keep-alive interval that its end must clear.
  const http = await serveHttp(storm.server, { port: 0, eventStore: events, maxStreams });
  const sessions = sessionsOf(http.handler)!; // the handler's own session table
  let closed = false;
  t.after(async () => {
    if (!closed) await http.close();
  });
  const close = http.close;
  return {
    ...storm,
    sessions,
    events,
    watch: new ServerWatch(http.httpServer),
    http: {
      ...http,
      close: async () => {
        closed = true;
        await close();
      },
    },
  };
}

const BOTH = 'application/json, text/event-stream';

function legacyHeaders(sessionId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: BOTH,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': LATEST,
  };
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: BOTH,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

async function openSession(client: HttpClient): Promise<string> {
  const init = await client.post(
    { 'content-type': 'application/json', accept: BOTH },
    request(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT_INFO }),
  );
  assert.equal(init.status, 200, init.body);
  const sessionId = init.headers['mcp-session-id'];
  assert.equal(typeof sessionId, 'string');
  const initialized = await client.post(legacyHeaders(sessionId as string), notification('notifications/initialized'));
  assert.equal(initialized.status, 202);
  return sessionId as string;
}

async function endSessions(client: HttpClient, ids: string[]): Promise<void> {
  const answers = await Promise.all(ids.map((id) => client.answer(client.start('DELETE', legacyHeaders(id)))));
  for (const answer of answers) assert.equal(answer.status, 200);
}

/** What the handler's session table and its sessions hold. */
function sessionTables(store: ReadonlyMap<string, Session>) {
  let inFlight = 0;
  let busy = 0;
  for (const session of store.values()) {
    inFlight += session.connection.inFlightCount;
    if (session.busy) busy++;
  }
  return { sessions: store.size, inFlight, busy };
}

/** Runs WARM_UP cycles, takes the baseline, runs CYCLES more with a fresh client, and compares once it is gone. */
async function stormPhases(
  t: TestContext,
  label: string,
  storm: HttpStorm,
  batch: number,
  run: (client: HttpClient, cycles: number) => Promise<void>,
): Promise<void> {
  const warm = new HttpClient(storm.http.url, 2 * batch + 8);
  await run(warm, WARM_UP);
  await warm.close();
  await storm.watch.socketsClosed();
  const before = await snapshot();
  const client = new HttpClient(storm.http.url, 2 * batch + 8);
  await run(client, CYCLES);
  await client.close();
  await storm.watch.socketsClosed();
  const after = await snapshot();
  assertSettled(t, label, before, after);
}

test(
  `HTTP (2025 session): ${CYCLES} slow tool calls cancelled on the session answer 202 and leave no request, exchange, timer or heap behind`,
  T,
  async (t) => {
    const storm = await httpStorm(t, 10_000);
    const { server, started, aborted, sessions } = storm;
    const BATCH = 100;
    const SESSIONS = 8;
    const setup = new HttpClient(storm.http.url, SESSIONS);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) ids.push(await openSession(setup));
    await setup.close();
    assert.deepEqual(sessionTables(sessions), { sessions: SESSIONS, inFlight: 0, busy: 0 });
    let nextId = 1;

    await stormPhases(t, 'HTTP 2025 cancel', storm, BATCH, async (client, cycles) => {
      for (let done = 0; done < cycles; done += BATCH) {
        const count = Math.min(BATCH, cycles - done);
        const requestIds = range(nextId, count);
        nextId += count;
        const target = started.value + count;
        const calls = requestIds.map((id, i) =>
          client.start(
            'POST',
            legacyHeaders(ids[i % SESSIONS]!),
            request(id, 'tools/call', { name: 'slow', arguments: {} }),
          ),
        );
        await started.until(target);
        assert.equal(sessionTables(sessions).inFlight, count, 'the sessions hold the batch in flight');
        const cancels = await Promise.all(
          requestIds.map((id, i) => client.post(legacyHeaders(ids[i % SESSIONS]!), cancelled(id))),
        );
        for (const answer of cancels) assert.equal(answer.status, 202);
        // Each cancelled POST ends with 202 and no body: nothing was written for its request, before or after.
        for (const answer of await Promise.all(calls.map((call) => client.answer(call)))) {
          assert.equal(answer.status, 202, answer.body);
          assert.equal(answer.body, '');
        }
        assert.equal(aborted.value, started.value, 'every handler saw its abort');
        assert.deepEqual(sessionTables(sessions), { sessions: SESSIONS, inFlight: 0, busy: 0 });
      }
    });

    assert.equal(started.value, WARM_UP + CYCLES);
    assert.equal(aborted.value, started.value);
    assert.equal(server.metrics().connections, SESSIONS);
    assert.equal(storm.events.size, 0, 'no event was stored for a request that never streamed');
    const teardown = new HttpClient(storm.http.url, SESSIONS);
    await endSessions(teardown, ids);
    await teardown.close();
    assert.equal(storm.http.handler.sessionCount, 0, 'the session table is back to empty');
    assert.equal(server.metrics().connections, 0, 'no session connection is left on the change hub');
    assert.deepEqual(storm.logger.errors, []);
    await storm.http.close();
  },
);

test(
  `HTTP (2026): ${CYCLES} slow tool calls whose client drops the exchange are aborted and release their connection`,
  T,
  async (t) => {
    const storm = await httpStorm(t, 10_000);
    const { server, started, aborted } = storm;
    const BATCH = 100;
    let nextId = 1;

    await stormPhases(t, 'HTTP 2026 abort', storm, BATCH, async (client, cycles) => {
      for (let done = 0; done < cycles; done += BATCH) {
        const count = Math.min(BATCH, cycles - done);
        const requestIds = range(nextId, count);
        nextId += count;
        const target = started.value + count;
        const calls = requestIds.map((id) =>
          client.start(
            'POST',
            modernHeaders('tools/call', 'slow'),
            modern('tools/call', { name: 'slow', arguments: {} }, id),
          ),
        );
        await started.until(target);
        assert.equal(server.metrics().connections, count, 'one connection per running request');
        const closed = storm.watch.exchangesClosed.value + count;
        for (const call of calls) HttpClient.drop(call);
        await storm.watch.exchangesClosed.until(closed);
        assert.equal(aborted.value, target, 'each handler was aborted when its exchange closed');
        assert.equal(server.metrics().connections, 0, 'every request connection was closed with its exchange');
      }
    });

    assert.equal(started.value, WARM_UP + CYCLES);
    assert.equal(aborted.value, started.value);
    assert.equal(server.metrics().connections, 0);
    assert.equal(storm.http.handler.sessionCount, 0);
    assert.deepEqual(storm.logger.errors, []);
    await storm.http.close();
  },
);

test(
  `HTTP (2026): ${CYCLES} subscriptions/listen streams closed by the client release their connection and stream count`,
  T,
  async (t) => {
    const BATCH = 100;
    const storm = await httpStorm(t, BATCH); // a leaked open-stream count would refuse the next batch with 503
    const { server } = storm;
    await settle();
    const timers = coreTimers.size; // this server's session reaper
    let nextId = 1;

    await stormPhases(t, 'HTTP 2026 listen', storm, BATCH, async (client, cycles) => {
      for (let done = 0; done < cycles; done += BATCH) {
        const count = Math.min(BATCH, cycles - done);
        const ids = range(nextId, count);
        nextId += count;
        const listens = ids.map((id) =>
          client.start(
            'POST',
            modernHeaders('subscriptions/listen'),
            modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, id),
          ),
        );
        const acks = await Promise.all(listens.map(firstEvent));
        assert.deepEqual(
          acks,
          ids.map((id) => ({
            jsonrpc: '2.0',
            method: 'notifications/subscriptions/acknowledged',
            params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications: { toolsListChanged: true } },
          })),
        );
        assert.equal(server.metrics().connections, count, 'one connection per open listen');
        assert.equal(coreTimers.size, timers + count, 'each open stream arms its keep-alive timer');
        const closed = storm.watch.exchangesClosed.value + count;
        for (const listen of listens) HttpClient.drop(listen);
        await storm.watch.exchangesClosed.until(closed);
        assert.equal(server.metrics().connections, 0, 'every listen connection was closed with its stream');
      }
    });

    assert.equal(server.metrics().connections, 0);
    assert.deepEqual(storm.logger.errors, []);
    await storm.http.close();
  },
);

test(
  `HTTP (2025 session): ${CYCLES} GET streams opened and dropped free their session's places and stream count`,
  T,
  async (t) => {
    const SESSIONS = 100; // one GET per session per batch
    // Each GET stores its priming event: a store bounded below the warm-up's GETs per session holds the same
    // number before and after, so the heap measures the streams alone.
    const PRIMINGS_KEPT = 4;
    // A leaked open-stream count would refuse the next batch with 503.
    const storm = await httpStorm(t, SESSIONS, new MemoryEventStore({ maxEventsPerSession: PRIMINGS_KEPT }));
    const { server, sessions } = storm;
    const setup = new HttpClient(storm.http.url, 16);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) ids.push(await openSession(setup));
    await setup.close();
    await settle();
    const timers = coreTimers.size; // this server's session reaper

    await stormPhases(t, 'HTTP 2025 GET', storm, SESSIONS, async (client, cycles) => {
      for (let done = 0; done < cycles; done += SESSIONS) {
        const count = Math.min(SESSIONS, cycles - done);
        const gets = ids
          .slice(0, count)
          .map((id) =>
            client.start('GET', { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LATEST }),
          );
        for (const response of await Promise.all(gets.map((get) => get.response))) {
          // 503 would mean a leaked open-stream count.
          assert.equal(response.statusCode, 200);
          assert.equal(response.headers['content-type'], 'text/event-stream');
        }
        assert.equal(sessionTables(sessions).busy, count, 'each session holds its open stream');
        assert.equal(coreTimers.size, timers + count, 'each open stream arms its keep-alive timer');
        const closed = storm.watch.exchangesClosed.value + count;
        for (const get of gets) HttpClient.drop(get);
        await storm.watch.exchangesClosed.until(closed);
        assert.deepEqual(sessionTables(sessions), { sessions: SESSIONS, inFlight: 0, busy: 0 });
      }
    });

    assert.equal(server.metrics().connections, SESSIONS);
    assert.equal(storm.events.size, SESSIONS * PRIMINGS_KEPT, 'GET streams that carried nothing stored only primings');
    const teardown = new HttpClient(storm.http.url, 16);
    await endSessions(teardown, ids);
    await teardown.close();
    assert.equal(storm.http.handler.sessionCount, 0);
    assert.equal(server.metrics().connections, 0);
    assert.deepEqual(storm.logger.errors, []);
    await storm.http.close();
  },
);
