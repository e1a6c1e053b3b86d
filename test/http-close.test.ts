// serveHttp().close() at the wire, over real loopback sockets: it stops accepting at once, refuses what still arrives
// on open sockets (503, a JSON-RPC error, Connection: close; nothing is served, no session minted), ends listens and
// GET streams at once, lets a request already running finish and answer within the drain window (both eras), and
// settles even when a client never reads its answer. Every wait is on an explicit signal; close() settling is
// asserted by awaiting it, with the test timeout as the failure mode.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { createServer } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { deferred, type Frame } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { envelope, modern } from './wire.ts';

const T = { timeout: 15_000 }; // a safety net against hangs only; no assertion depends on time

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } };
const SHUTTING_DOWN = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32603, message: 'Service Unavailable: the server is shutting down' },
};

/** A server whose `hold` tool signals that it started and answers once the test releases it; `record` counts its runs. */
function holdingServer() {
  const started = deferred();
  const release = deferred();
  const server = createServer({ name: 's', version: '1' });
  let recorded = 0;
  server.tool('hold', {}, async () => {
    started.resolve();
    await release.promise;
    return { content: [{ type: 'text', text: 'held answer' }] };
  });
  server.tool('record', {}, () => {
    recorded++;
    return { content: [{ type: 'text', text: 'recorded' }] };
  });
  return { server, started, release, recorded: () => recorded };
}

/** A 2025 session: initialize and notifications/initialized; returns its id. */
async function openSession(url: string): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS }),
  });
  const id = init.headers.get('mcp-session-id')!;
  await init.text();
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': id },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return id;
}

/** Sockets connected to the server, each accepted by it (its 'connection' event), none of which has sent a byte yet. */
async function openSockets(http: HttpServer, count: number): Promise<Socket[]> {
  const { port } = new URL(http.url);
  const accepted = new Promise<void>((resolve) => {
    let left = count;
    const onConnection = (): void => {
      if (--left > 0) return;
      http.httpServer.off('connection', onConnection);
      resolve();
    };
    http.httpServer.on('connection', onConnection);
  });
  const sockets = Array.from({ length: count }, () => connect(Number(port), '127.0.0.1'));
  await accepted;
  return sockets;
}

interface SocketAnswer {
  status: number;
  headers: Record<string, string>;
  json: Frame;
}

/** Sends one POST on an open socket and reads the answer up to the socket's close (the answer closes it). */
async function postOn(socket: Socket, headers: Record<string, string>, frame: Frame): Promise<SocketAnswer> {
  const body = JSON.stringify(frame);
  const lines = Object.entries({ host: 'localhost', ...headers, 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const closed = once(socket, 'close');
  socket.write(`POST /mcp HTTP/1.1\r\n${lines}\r\n${body}`);
  await closed;
  const cut = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, cut).split('\r\n');
  const answerHeaders: Record<string, string> = {};
  for (const line of headerLines)
    answerHeaders[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { status: Number(statusLine!.split(' ')[1]), headers: answerHeaders, json: JSON.parse(text.slice(cut + 4)) };
}

function assertRefused(answer: SocketAnswer, what: string): void {
  assert.equal(answer.status, 503, what);
  assert.equal(answer.headers.connection, 'close', what);
  assert.equal(answer.headers['mcp-session-id'], undefined, `${what}: no session id`);
  assert.deepEqual(answer.json, SHUTTING_DOWN, what);
}

function modernCall(name: string, id: string): { headers: Record<string, string>; frame: Frame } {
  const frame = modern('tools/call', { name }, id);
  return { headers: modernHeaders(frame), frame };
}

test('close() lets running requests of both eras finish and answer, then resolves', T, async () => {
  const release = deferred();
  const started: string[] = [];
  const server = createServer({ name: 's', version: '1' });
  server.tool('finish_late', {}, async (_args, ctx) => {
    started.push(ctx.era);
    await release.promise;
    return { content: [{ type: 'text', text: `finished ${ctx.era}` }] };
  });
  const http = await serveHttp(server, { port: 0 });
  const session = await openSession(http.url);
  const legacy = fetch(http.url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'finish_late' } }),
  });
  const modernAnswer = fetch(http.url, {
    method: 'POST',
    headers: {
      ...HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'finish_late',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'finish_late', _meta: envelope() },
    }),
  });
  while (started.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const closed = http.close();
  release.resolve();
  const [legacyAnswer, modernResult] = (await Promise.all([(await legacy).json(), (await modernAnswer).json()])) as [
    { result: { content: { text: string }[] } },
    { result: { content: { text: string }[] } },
  ];
  assert.equal(legacyAnswer.result.content[0]!.text, 'finished legacy');
  assert.equal(modernResult.result.content[0]!.text, 'finished modern');
  await closed;
  assert.equal(http.handler.sessionCount, 0);
});

test(
  'close() refuses what arrives during the drain on sockets still open (a 2026 call, a listen, an initialize, a 2025 session call): 503 with a JSON-RPC error and Connection: close, nothing served, no session minted; the running request still answers',
  T,
  async () => {
    const { server, started, release, recorded } = holdingServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    const session = await openSession(http.url);
    const hold = modernCall('hold', 'held');
    const running = raw(http.url, { headers: hold.headers, body: JSON.stringify(hold.frame) });
    await started.promise;
    const [callSocket, listenSocket, initSocket, sessionSocket] = await openSockets(http, 4);
    const closed = http.close();
    const call = modernCall('record', 'late');
    assertRefused(await postOn(callSocket!, call.headers, call.frame), 'a 2026 call');
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'late-listen');
    assertRefused(await postOn(listenSocket!, modernHeaders(listen), listen), 'a listen');
    assertRefused(
      await postOn(initSocket!, HEADERS, { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }),
      'an initialize',
    );
    const sessionCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'record' } };
    assertRefused(
      await postOn(sessionSocket!, { ...HEADERS, 'mcp-session-id': session }, sessionCall),
      'a 2025 session call',
    );
    assert.equal(recorded(), 0, 'no refused request reached a handler');
    assert.equal(http.handler.sessionCount, 0, 'the idle session was ended at once, and none was minted');
    release.resolve();
    const answer = await running;
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.result.content[0].text, 'held answer');
    await closed;
    assert.equal(http.handler.sessionCount, 0);
    assert.equal(server.metrics().connections, 0);
  },
);

test(
  'close() during an initialize hook mints no session: a hook that finishes in the window is answered 503, one that never does is cut with 503; close() waits for neither beyond the window',
  T,
  async () => {
    for (const finishes of [true, false]) {
      const hookStarted = deferred();
      const hookRelease = deferred();
      const server = createServer(
        { name: 's', version: '1' },
        {
          onInitialize: async () => {
            hookStarted.resolve();
            if (finishes) await hookRelease.promise;
            else await new Promise(() => {}); // a hook that never settles
          },
        },
      );
      const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
      // A JSON-only client: the initialize is answered once the hook settles, so no session id went out yet.
      const initialize = raw(http.url, {
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }),
      });
      await hookStarted.promise;
      const closed = http.close(finishes ? 2000 : 50);
      if (finishes) hookRelease.resolve();
      const answer = await initialize;
      assert.equal(answer.status, 503, answer.text);
      assert.deepEqual(answer.json, { ...SHUTTING_DOWN, id: 1 });
      assert.equal(answer.headers['mcp-session-id'], undefined, 'no session id was handed out');
      await closed;
      assert.equal(
        http.handler.sessionCount,
        0,
        `no session outlives close() (the hook ${finishes ? 'finished' : 'never did'})`,
      );
      assert.equal(server.metrics().connections, 0);
    }
  },
);

test(
  'close() ends a 2025 GET stream and a listen at once, while a running request keeps its window and answers',
  T,
  async () => {
    const { server, started, release } = holdingServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    const session = await openSession(http.url);
    const get = await fetch(http.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    const getStream = new SseReader(get);
    const listenFrame = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L');
    const listen = new SseReader(
      await fetch(http.url, { method: 'POST', headers: modernHeaders(listenFrame), body: JSON.stringify(listenFrame) }),
    );
    assert.equal((await listen.message()).method, 'notifications/subscriptions/acknowledged');
    const running = fetch(http.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hold' } }),
    });
    await started.promise;
    const closed = http.close();
    await getStream.ended();
    const final = await listen.message();
    assert.equal(final.id, 'L');
    assert.equal(final.result.resultType, 'complete');
    await listen.ended();
    release.resolve(); // only now: both streams ended while the request still ran
    const answer = await running;
    assert.equal(answer.status, 200);
    assert.match(await answer.text(), /held answer/);
    await closed;
  },
);

test(
  'close() settles with clients that never leave: one that never finishes sending its request, one that never reads its answer; their sockets are dropped',
  T,
  async () => {
    const started = deferred();
    const release = deferred();
    const server = createServer({ name: 's', version: '1' });
    // Far more than the socket buffers of a client that reads nothing hold: the answer can never be fully written.
    server.tool('huge', {}, async () => {
      started.resolve();
      await release.promise;
      return { content: [{ type: 'text', text: 'x'.repeat(16 * 1024 * 1024) }] };
    });
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    const [unfinished, unread] = await openSockets(http, 2);
    const request = (frame: Frame, sent: number) => {
      const body = JSON.stringify(frame);
      const lines = Object.entries({
        host: 'localhost',
        ...modernHeaders(frame),
        'content-length': String(Buffer.byteLength(body)),
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      return `POST /mcp HTTP/1.1\r\n${lines}\r\n${body.slice(0, sent)}`;
    };
    for (const socket of [unfinished!, unread!]) socket.on('error', () => {}); // the server drops them
    const headersIn = once(http.httpServer, 'request');
    unfinished!.write(request(modern('tools/list', {}, 'u'), 10)); // the headers and 10 bytes of the body, never the rest
    await headersIn;
    unread!.pause(); // never reads
    unread!.write(request(modern('tools/call', { name: 'huge' }, 'h'), Infinity));
    await started.promise;
    const closed = http.close();
    release.resolve();
    await closed;
    const connections = await new Promise<number>((resolve, reject) =>
      http.httpServer.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
    assert.equal(connections, 0);
    assert.equal(server.metrics().connections, 0);
    unfinished!.destroy();
    unread!.destroy();
  },
);
