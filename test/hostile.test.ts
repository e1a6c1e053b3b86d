// Hostile input at the wire, over real loopback sockets and the stdio transport: slow-loris clients, oversized
// bodies and lines, guessed or borrowed session ids, Host/Origin spoofing, forged requestState, URI-template and
// cursor injection, and prototype-pollution keys. Each attack must get a precise refusal (or be served as ordinary
// data), leave no resources behind, and never take the connection, the server or Object.prototype with it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer, elicitInput, inputRequired, type Server, type ServerOptions } from '../core.ts';
import { type HttpServer, type ServeHttpOptions, serveHttp } from '../http.ts';
import type { AuthInfo, Era } from '../types.ts';
import { type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, type RawResponse, raw } from './raw-http.ts';
import { CLIENT_CAPABILITIES, LOG_LEVEL, MODERN, modern, SERVER_INFO } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time

const INFO = { name: 'hostile-test', version: '1.0.0' };
const ELICIT = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
const VERIFICATION_FAILED = { code: -32602, message: 'Invalid params: requestState failed verification' };
const BAD_CURSOR = { code: -32602, message: 'Invalid params: params.cursor is not a cursor this server issued' };
const OVERSIZED_LINE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: 'Parse error: frame exceeds the limit' },
};
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } };

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function quietServer(options: ServerOptions = {}): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  return { server: createServer(INFO, { logger, ...options }), logger };
}

async function serve(t: TestContext, server: Server, options: ServeHttpOptions = {}): Promise<HttpServer> {
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  let closed = false;
  t.after(() => (closed ? undefined : http.close()));
  return Object.assign(Object.create(http) as HttpServer, {
    close: async () => {
      closed = true;
      await http.close();
    },
  });
}

function postModern(url: string, frame: Frame, extra: Record<string, string> = {}): Promise<RawResponse> {
  return raw(url, { headers: modernHeaders(frame, extra), body: JSON.stringify(frame) });
}

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** A 2025 session: initialize, then notifications/initialized; returns its id. */
async function openSession(url: string, extra: Record<string, string> = {}): Promise<string> {
  const init = await raw(url, {
    headers: { ...LEGACY_HEADERS, ...extra },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS }),
  });
  assert.equal(init.status, 200, init.text);
  const id = init.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  const initialized = await raw(url, {
    headers: { ...LEGACY_HEADERS, ...extra, 'mcp-session-id': id as string },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return id as string;
}

function sessionPost(
  url: string,
  sessionId: string,
  frame: Frame,
  extra: Record<string, string> = {},
): Promise<RawResponse> {
  return raw(url, {
    headers: { ...LEGACY_HEADERS, 'mcp-session-id': sessionId, ...extra },
    body: JSON.stringify(frame),
  });
}

/** The names and values Object.prototype owns now: compared before and after an attack. */
function prototypeSnapshot(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

function assertNotPolluted(before: string[]): void {
  assert.deepEqual(prototypeSnapshot(), before, 'Object.prototype gained no property');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).sampling, undefined);
  assert.equal(({} as Record<string, unknown>).progressToken, undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

/** Waits, by polling a condition (there is no event for it), until the node server holds no socket. */
async function noConnections(server: NodeServer): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    const count = await new Promise<number>((resolve, reject) =>
      server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
    if (count === 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail('the server still holds sockets');
}

// ---------------------------------------------------------------------------------------------------------------
// Slow-loris: serveHttp's header and request timeouts

/** A raw client that writes `text` one byte at a time (every 2 ms) from `from` on, until the server closes it. */
function trickle(
  url: string,
  text: string,
  from = 0,
): { socket: Socket; received: () => string; sent: () => number; closed: Promise<unknown> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => {}); // a reset by the server is the expected end
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  let at = 0;
  if (from > 0) {
    socket.write(text.slice(0, from));
    at = from;
  }
  const timer = setInterval(() => {
    if (at < text.length && !socket.destroyed) socket.write(text[at++]!);
  }, 2);
  const closed = once(socket, 'close').finally(() => clearInterval(timer));
  return { socket, received: () => received, sent: () => at, closed };
}

const REQUEST_TIMEOUT_408 = /^HTTP\/1\.1 408 Request Timeout\r\n/;

/** When node's connection check cuts at the latest: the bound plus one `connectionsCheckingInterval` (a createServer option). */
function latestCut(server: NodeServer): { headers: number; request: number } {
  const interval = (server as NodeServer & { connectionsCheckingInterval: number }).connectionsCheckingInterval;
  return { headers: server.headersTimeout + interval, request: server.requestTimeout + interval };
}

test("slow-loris: serveHttp's node server cuts headers within 5 % of 10 s and whole requests within 5 % of 30 s by default, and of headersTimeoutMs / requestTimeoutMs when given (within 10 ms for bounds under 200 ms)", async (t) => {
  const shipped = await serve(t, quietServer().server);
  assert.deepEqual([shipped.httpServer.headersTimeout, shipped.httpServer.requestTimeout], [10_000, 30_000]);
  const cut = latestCut(shipped.httpServer);
  assert.ok(
    cut.headers <= 10_500 && cut.request <= 31_500,
    `headers cut by ${cut.headers} ms, requests by ${cut.request} ms`,
  );
  await shipped.close();
  const tuned = await serve(t, quietServer().server, { headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
  assert.deepEqual([tuned.httpServer.headersTimeout, tuned.httpServer.requestTimeout], [2000, 5000]);
  const tunedCut = latestCut(tuned.httpServer);
  assert.ok(
    tunedCut.headers <= 2100 && tunedCut.request <= 5250,
    `headers cut by ${tunedCut.headers} ms, requests by ${tunedCut.request} ms`,
  );
  await tuned.close();
  // Under 200 ms, 1/20 of the bound would be finer than the 10 ms floor: a 1 ms bound is checked every 10 ms, not 1 ms.
  const tiny = await serve(t, quietServer().server, { headersTimeoutMs: 1, requestTimeoutMs: 1 });
  assert.deepEqual(latestCut(tiny.httpServer), { headers: 11, request: 11 });
  await tiny.close();
  for (const [options, message] of [
    [{ headersTimeoutMs: 0 }, 'headersTimeoutMs must be a positive integer of milliseconds, got 0'],
    [{ requestTimeoutMs: 1.5 }, 'requestTimeoutMs must be a positive integer of milliseconds, got 1.5'],
    [
      { headersTimeoutMs: 5000, requestTimeoutMs: 4000 },
      'requestTimeoutMs (4000) must be at least headersTimeoutMs (5000)',
    ],
  ] as const) {
    await assert.rejects(serveHttp(quietServer().server, { port: 0, ...options }), new RangeError(message));
  }
});

// A cut near its bound: node's default check every 30 s would let these clients run past the test's timeout.
const NEAR = { timeout: 10_000 };

test(
  'slow-loris: headers trickled byte by byte, or never sent, are cut with 408 near headersTimeoutMs; nothing is held and the server serves on',
  NEAR,
  async (t) => {
    const { server } = quietServer();
    const http = await serve(t, server, { headersTimeoutMs: 100, requestTimeoutMs: 400 });
    let requests = 0;
    http.httpServer.on('request', () => requests++);
    const head = `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Pad: ${'a'.repeat(20_000)}`;
    const loris = trickle(http.url, head);
    await loris.closed;
    assert.match(loris.received(), REQUEST_TIMEOUT_408);
    assert.ok(loris.sent() < head.length, 'the server closed the socket while the headers were still arriving');
    // A connection that never sends a byte is bounded the same way.
    const silent = trickle(http.url, '');
    await silent.closed;
    assert.match(silent.received(), REQUEST_TIMEOUT_408);
    assert.equal(requests, 0, 'the handler never saw either request');
    await noConnections(http.httpServer);
    assert.equal(server.metrics().connections, 0);
    const discover = modern('server/discover', {}, 'after');
    const answer = await postModern(http.url, discover);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.id, 'after');
    await http.close();
  },
);

test(
  'slow-loris: a body trickled slowly is cut with 408 near requestTimeoutMs before any MCP handler runs; sessions and sockets are released',
  NEAR,
  async (t) => {
    const { server } = quietServer();
    let calls = 0;
    server.tool('record', {}, () => {
      calls++;
      return text('ran');
    });
    const http = await serve(t, server, { headersTimeoutMs: 100, requestTimeoutMs: 300 });
    const session = await openSession(http.url);
    const bodyOf = (frame: Frame) => JSON.stringify(frame).replace(/}$/, `,"pad":"${'p'.repeat(20_000)}"}`);
    const requests = [
      {
        headers: modernHeaders(modern('tools/call', { name: 'record' }, 1)),
        body: bodyOf(modern('tools/call', { name: 'record' }, 1)),
      },
      {
        headers: { ...LEGACY_HEADERS, 'mcp-session-id': session },
        body: bodyOf({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'record' } }),
      },
    ];
    for (const { headers, body } of requests) {
      const lines = Object.entries({ host: 'localhost', ...headers, 'content-length': String(Buffer.byteLength(body)) })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const head = `POST /mcp HTTP/1.1\r\n${lines}\r\n`;
      const loris = trickle(http.url, head + body, head.length + 10); // headers and a little body at once, then a trickle
      await loris.closed;
      assert.match(loris.received(), REQUEST_TIMEOUT_408);
      assert.ok(
        loris.sent() < head.length + body.length,
        'the server closed the socket while the body was still arriving',
      );
    }
    assert.equal(calls, 0);
    await noConnections(http.httpServer);
    assert.equal(http.handler.sessionCount, 1, 'the session neither ended nor multiplied');
    // The session and the endpoint still serve (short requests arrive well within the 300 ms).
    const ping = await sessionPost(http.url, session, { jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 3, result: {} });
    const call = await postModern(http.url, modern('tools/call', { name: 'record' }, 4));
    assert.equal(call.json.result.content[0].text, 'ran');
    assert.equal(server.metrics().connections, 1, "only the session's connection is left");
    await http.close();
    assert.equal(server.metrics().connections, 0);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Oversized bodies (HTTP) and lines (stdio)

test(
  'oversized HTTP body: a 2025 session POST past maxBodyBytes gets 413 and its socket is closed unread; the limit counts bytes; session and server serve on',
  T,
  async (t) => {
    const { server } = quietServer();
    server.tool(
      'echo',
      { inputSchema: { type: 'object', properties: { s: { type: 'string' } } } },
      (args: { s?: string }) => text(String(args.s?.length)),
    );
    const http = await serve(t, server, { maxBodyBytes: 1024 });
    const session = await openSession(http.url);
    const frame = (s: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { s } } });
    // '€' is 3 bytes: 400 of them fit in 1024 characters but not in 1024 bytes.
    const overBytes = frame('€'.repeat(400));
    assert.ok(overBytes.length < 1024 && Buffer.byteLength(overBytes) > 1024);
    const refused = await raw(http.url, { headers: { ...LEGACY_HEADERS, 'mcp-session-id': session }, body: overBytes });
    assert.equal(refused.status, 413);
    assert.deepEqual(refused.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Payload Too Large' } });
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.headers['mcp-session-id'], undefined);
    // Exactly 1024 bytes of multi-byte text is read and served.
    const base = Buffer.byteLength(frame(''));
    const exact = frame('€'.repeat(Math.floor((1024 - base) / 3)) + 'x'.repeat((1024 - base) % 3));
    assert.equal(Buffer.byteLength(exact), 1024);
    const served = await raw(http.url, { headers: { ...LEGACY_HEADERS, 'mcp-session-id': session }, body: exact });
    assert.equal(served.status, 200, served.text);
    assert.equal(served.json.id, 5);

    // A client that keeps sending after its declared 10 000 bytes were refused: the server answers and hangs up.
    const socket = connect(Number(new URL(http.url).port), '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = once(socket, 'close');
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
        `Mcp-Session-Id: ${session}\r\nContent-Length: 10000\r\n\r\n{"jsonrpc":"2.0","id":6,"method":"ping","pad":"`,
    );
    socket.write('z'.repeat(4000));
    await closed;
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.ok(
      received.endsWith('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Payload Too Large"}}'),
      received,
    );
    await noConnections(http.httpServer);
    assert.equal(http.handler.sessionCount, 1);
    assert.deepEqual((await sessionPost(http.url, session, { jsonrpc: '2.0', id: 7, method: 'ping' })).json, {
      jsonrpc: '2.0',
      id: 7,
      result: {},
    });
    await http.close();
  },
);

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test(
  'oversized HTTP body on a node:http without destroySoon (as under Bun, whose responses keep their socket after finish): 413, the socket closes, and the server serves on',
  T,
  async (t) => {
    // serveHttp in a child process whose sockets lack the undocumented destroySoon and whose responses keep their socket.
    const script = `import net from 'node:net';
import { createServer } from ${JSON.stringify(new URL('../core.ts', import.meta.url).href)};
import { serveHttp } from ${JSON.stringify(new URL('../http.ts', import.meta.url).href)};
delete net.Socket.prototype.destroySoon;
const served = await serveHttp(createServer({ name: 'bun-like', version: '1' }), { port: 0, maxBodyBytes: 1024 });
served.httpServer.prependListener('request', (request, response) => {
  const socket = response.socket;
  Object.defineProperty(response, 'socket', { get: () => socket, set() {}, configurable: true });
});
process.stdout.write(served.url + '\\n');
process.stdin.resume().on('end', () => void served.close());`;
    const child = spawn(
      process.execPath,
      ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(child, 'exit');
    let stdout = '';
    child.stdout.setEncoding('utf8');
    while (!stdout.includes('\n')) stdout += (await once(child.stdout, 'data'))[0];
    const url = stdout.trim();
    const refused = await raw(url, {
      headers: LEGACY_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', pad: 'p'.repeat(2048) }),
    });
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.connection, 'close');
    const discover = modern('server/discover', {}, 'after');
    const answer = await postModern(url, discover);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.id, 'after');
    assert.equal(child.exitCode, null, `the server lives on (stderr: ${stderr})`);
    child.stdin.end();
    assert.deepEqual((await exited)[0], 0);
    assert.equal(stderr, '');
  },
);

test('oversized stdio line: refused with -32700 "frame exceeds the limit" while a request runs, which still answers; later frames and a last oversized line at EOF are handled', async () => {
  const { server } = quietServer();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  server.tool('wait', {}, async () => {
    await released;
    return text('done');
  });
  const client = new WireClient(server, { maxLineBytes: 512 });
  await client.initialize();
  client.send({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait' } });
  const huge = JSON.stringify({ jsonrpc: '2.0', id: 'huge', method: 'ping', params: { pad: '漢'.repeat(10_000) } });
  for (let at = 0; at < huge.length; at += 997) client.input.write(huge.slice(at, at + 997));
  client.input.write('\n');
  assert.deepEqual(await client.next(), OVERSIZED_LINE);
  assert.deepEqual(await client.request('ping', undefined, 'p1'), { jsonrpc: '2.0', id: 'p1', result: {} });
  release();
  assert.deepEqual(await client.response('w'), { jsonrpc: '2.0', id: 'w', result: text('done') });
  // A last line without its newline, over the cap, is refused once at EOF; nothing of it is served.
  client.input.write(huge);
  assert.deepEqual(await client.end(), [OVERSIZED_LINE]);
  assert.equal(
    client.frames.some((frame) => frame.id === 'huge'),
    false,
  );
  assert.equal(server.metrics().connections, 0);
});

// ---------------------------------------------------------------------------------------------------------------
// Session ids: guessed, truncated, borrowed

test(
  "session id guessing: random, truncated, extended, case-flipped, joined, ended and another server's ids get 404 Session not found on POST, GET and DELETE",
  T,
  async (t) => {
    const { server } = quietServer();
    const http = await serve(t, server);
    const other = await serve(t, quietServer().server);
    const session = await openSession(http.url);
    const ended = await openSession(http.url);
    assert.equal((await raw(http.url, { method: 'DELETE', headers: { 'mcp-session-id': ended } })).status, 200);
    const foreign = await openSession(other.url);
    const flipped = [...session].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    assert.notEqual(flipped, session, 'the id has letters to flip');
    const guesses = [
      randomBytes(16).toString('base64url'),
      session.slice(0, -1),
      session.slice(0, 8),
      `${session}A`,
      flipped,
      `${session}, ${session}`,
      `${session.slice(0, 11)}${ended.slice(11)}`,
      ended,
      foreign,
      'A'.repeat(4096),
      '../../session',
      '0',
    ];
    for (const guess of guesses) {
      const post = await sessionPost(http.url, guess, { jsonrpc: '2.0', id: 1, method: 'ping' });
      assert.equal(post.status, 404, guess);
      assert.deepEqual(post.json, SESSION_NOT_FOUND);
      assert.equal(post.headers['mcp-session-id'], undefined);
      const get = await raw(http.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': guess },
      });
      assert.deepEqual([get.status, get.json], [404, SESSION_NOT_FOUND], guess);
      const del = await raw(http.url, { method: 'DELETE', headers: { 'mcp-session-id': guess } });
      assert.deepEqual([del.status, del.json], [404, SESSION_NOT_FOUND], guess);
    }
    assert.equal(http.handler.sessionCount, 1);
    assert.deepEqual((await sessionPost(http.url, session, { jsonrpc: '2.0', id: 2, method: 'ping' })).json, {
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    assert.deepEqual((await sessionPost(other.url, foreign, { jsonrpc: '2.0', id: 3, method: 'ping' })).json, {
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    await http.close();
    await other.close();
  },
);

test(
  'session id guessing with auth: a valid session id presented by another principal (other issuer, client or subject, or one that only concatenates the same) is refused 404 on POST, GET with Last-Event-ID and DELETE',
  T,
  async (t) => {
    const ISSUER = 'https://as.example.com';
    const tokens: Record<string, AuthInfo> = {
      owner: { issuer: ISSUER, subject: 'x:y', clientId: 'c', scopes: [] },
      otherIssuer: { issuer: 'https://evil.example.com', subject: 'x:y', clientId: 'c', scopes: [] },
      concatenated: { issuer: `${ISSUER}:x`, subject: 'y', clientId: 'c', scopes: [] },
      noClient: { issuer: ISSUER, subject: 'x:y', scopes: [] },
      noIssuer: { subject: 'x:y', clientId: 'c', scopes: [] },
      otherSubject: { issuer: ISSUER, subject: 'x:z', clientId: 'c', scopes: [] },
    };
    const { server } = quietServer();
    let seenBy: string[] = [];
    server.tool('tick', {}, (_args, ctx) => {
      seenBy.push(ctx.auth!.subject);
      ctx.progress(1, 1);
      return text('ticked');
    });
    const http = await serve(t, server, {
      auth: {
        resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: [ISSUER] },
        verifyToken: (token) => tokens[token],
      },
    });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const session = await openSession(http.url, bearer('owner'));
    // A streamed answer (progress precedes it) opens with a priming event whose id a client may resume from.
    const streamed = await raw(http.url, {
      headers: {
        ...LEGACY_HEADERS,
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        ...bearer('owner'),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'tick', _meta: { progressToken: 'p' } },
      }),
    });
    const eventId = /^id: (\S+)$/m.exec(streamed.text)?.[1];
    assert.ok(eventId !== undefined, streamed.text);
    seenBy = [];
    for (const token of Object.keys(tokens).filter((name) => name !== 'owner')) {
      const post = await sessionPost(
        http.url,
        session,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tick' } },
        bearer(token),
      );
      assert.deepEqual([post.status, post.json], [404, SESSION_NOT_FOUND], token);
      const get = await raw(http.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': eventId, ...bearer(token) },
      });
      assert.deepEqual([get.status, get.json], [404, SESSION_NOT_FOUND], token);
      const del = await raw(http.url, { method: 'DELETE', headers: { 'mcp-session-id': session, ...bearer(token) } });
      assert.deepEqual([del.status, del.json], [404, SESSION_NOT_FOUND], token);
    }
    // Without a token the refusal is the 401 challenge, before any session is looked up.
    assert.equal((await sessionPost(http.url, session, { jsonrpc: '2.0', id: 3, method: 'ping' })).status, 401);
    assert.deepEqual(seenBy, [], 'no foreign request ran');
    const mine = await sessionPost(
      http.url,
      session,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'tick' } },
      bearer('owner'),
    );
    assert.deepEqual(mine.json, { jsonrpc: '2.0', id: 4, result: text('ticked') });
    assert.equal(http.handler.sessionCount, 1);
    await http.close();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Host and Origin spoofing (DNS rebinding)

test(
  'Host spoofing: foreign names, trailing dots, userinfo, IPv6 and IPv4 aliases get 421; case and ports of allowed names pass',
  T,
  async (t) => {
    const http = await serve(t, quietServer().server);
    const discover = modern('server/discover', {}, 'h');
    const refused = [
      'evil.example.com',
      'localhost.',
      'LOCALHOST.',
      'localhost.evil.example.com',
      'localhost@evil.example.com',
      'evil.example.com@localhost',
      '127.0.0.1.nip.io',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0.0.0.0',
      '[::ffff:127.0.0.1]',
      '[0:0:0:0:0:0:0:1]',
      '[::1',
      '::1',
      '[::]',
      'xn--localhost',
    ];
    for (const host of refused) {
      const response = await postModern(http.url, discover, { host });
      assert.equal(response.status, 421, `Host ${JSON.stringify(host)}: ${response.text}`);
      assert.deepEqual(response.json, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Misdirected Request: Host header is not allowed' },
      });
    }
    const { port } = http.httpServer.address() as AddressInfo;
    for (const host of ['LOCALHOST', 'LocalHost:1', `127.0.0.1:${port}`, '127.0.0.1:65535', '[::1]:80', '[::1]']) {
      assert.equal((await postModern(http.url, discover, { host })).status, 200, host);
    }
    await http.close();
  },
);

test(
  'a second Host header is refused 400 (RFC 9112 §3.2), whatever the two values, before anything is served; one Host still passes',
  T,
  async (t) => {
    const { server } = quietServer();
    const http = await serve(t, server);
    let requests = 0;
    server.tool('record', {}, () => {
      requests++;
      return text('ran');
    });
    const frame = modern('tools/call', { name: 'record' }, 'h');
    const body = JSON.stringify(frame);
    const lines = Object.entries({
      ...modernHeaders(frame),
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const send = async (hosts: string[]) => {
      const text = `POST /mcp HTTP/1.1\r\n${hosts.map((host) => `Host: ${host}\r\n`).join('')}${lines}\r\n${body}`;
      const client = trickle(http.url, text, text.length);
      await client.closed;
      const received = client.received();
      return {
        status: Number(received.split(' ')[1]),
        json: JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)),
      };
    };
    for (const hosts of [
      ['localhost', 'localhost'],
      ['localhost', 'evil.example.com'],
      ['evil.example.com', 'localhost'],
      ['localhost', '127.0.0.1', 'localhost'],
    ]) {
      const answer = await send(hosts);
      assert.equal(answer.status, 400, hosts.join(' + '));
      assert.deepEqual(answer.json, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Bad Request: more than one Host header' },
      });
    }
    assert.equal(requests, 0);
    const single = await send(['localhost']);
    assert.equal(single.status, 200);
    assert.equal(single.json.result.content[0].text, 'ran');
    await http.close();
  },
);

test(
  'Origin spoofing: null in any case, foreign hosts behind userinfo or fragments, trailing dots, other schemes and bad ports get 403; a foreign Origin cannot DELETE or GET a session',
  T,
  async (t) => {
    const { server } = quietServer();
    const http = await serve(t, server, { cors: { origins: ['https://app.example.com'] } });
    const discover = modern('server/discover', {}, 'o');
    const refused = [
      'null',
      'Null',
      'NULL',
      'http://evil.example.com',
      'http://localhost@evil.example.com',
      'http://evil.example.com#@localhost',
      'http://localhost.',
      'http://localhost.evil.example.com',
      'http://[::ffff:127.0.0.1]',
      'http://localhost:99999',
      'http://localhost:80:80',
      'ws://localhost',
      'file://localhost',
      'chrome-extension://localhost',
      'localhost',
      '//localhost',
      // The CORS list is matched exactly, as browsers serialize origins.
      'https://APP.example.com',
      'https://app.example.com/',
      'https://app.example.com:443',
      'http://app.example.com',
    ];
    for (const origin of refused) {
      const response = await postModern(http.url, discover, { origin });
      assert.equal(response.status, 403, `Origin ${JSON.stringify(origin)}: ${response.text}`);
      assert.deepEqual(response.json, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Forbidden: Origin is not allowed' },
      });
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    }
    for (const origin of [
      'HTTP://LOCALHOST',
      'http://LocalHost:5173',
      'http://[0:0:0:0:0:0:0:1]:3000',
      'https://[::1]',
      'https://app.example.com',
    ]) {
      assert.equal((await postModern(http.url, discover, { origin })).status, 200, origin);
    }
    // A rebinding page cannot end or listen to a session whose id it learned.
    const session = await openSession(http.url);
    for (const origin of ['http://evil.example.com', 'null']) {
      const del = await raw(http.url, { method: 'DELETE', headers: { origin, 'mcp-session-id': session } });
      assert.equal(del.status, 403, origin);
      const get = await raw(http.url, {
        method: 'GET',
        headers: { origin, accept: 'text/event-stream', 'mcp-session-id': session },
      });
      assert.equal(get.status, 403, origin);
      const post = await sessionPost(http.url, session, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin });
      assert.equal(post.status, 403, origin);
    }
    assert.equal(http.handler.sessionCount, 1);
    assert.deepEqual((await sessionPost(http.url, session, { jsonrpc: '2.0', id: 2, method: 'ping' })).json, {
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    await http.close();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Forged requestState (2026-07-28 input_required, second round)

/** Tools, resources and a prompt that ask for confirmation first, then answer with the state they get back. */
function inputServer(options: ServerOptions = {}) {
  const { server, logger } = quietServer(options);
  const retries: string[] = [];
  const ask = { confirm: elicitInput({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }) };
  const schema = { type: 'object', properties: { n: { type: 'number' } } };
  for (const name of ['ask', 'ask_other']) {
    server.tool(name, { inputSchema: schema }, (args: { n?: number }, ctx) => {
      if (ctx.requestState === undefined)
        return inputRequired(ask, { name, n: args.n ?? null, who: ctx.auth?.subject ?? null });
      retries.push(name);
      return text(`${JSON.stringify(ctx.requestState)} for ${ctx.auth?.subject ?? 'anyone'}`);
    });
  }
  for (const uri of ['test://vault/a', 'test://vault/b']) {
    server.resource(uri, { name: uri }, (read, ctx) => {
      if (ctx.requestState === undefined) return inputRequired(ask, { uri: read });
      retries.push(read);
      return { contents: [{ uri: read, text: JSON.stringify(ctx.requestState) }] };
    });
  }
  server.prompt('p', {}, (_args, ctx) => {
    if (ctx.requestState === undefined) return inputRequired(ask, { prompt: 'p' });
    retries.push('p');
    return { messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(ctx.requestState) } }] };
  });
  return { server, logger, retries };
}

const CONFIRMED = { confirm: { action: 'accept', content: {} } };
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `state` with the base64url character at `index` replaced by another one; `sameBits` keeps its high 4 bits. */
function flip(state: string, index: number, sameBits = false): string {
  const value = B64URL.indexOf(state[index]!);
  assert.ok(value >= 0);
  const next = B64URL[sameBits ? value ^ 1 : (value + 17) % 64]!;
  return state.slice(0, index) + next + state.slice(index + 1);
}

test("tampered requestState: flipped bytes in payload or MAC, a re-spelled MAC, spliced halves, another tool's, resource's, prompt's or arguments' state are refused -32602 before the handler runs", async () => {
  const { server, retries } = inputServer();
  const client = new WireClient(server);
  let id = 0;
  const round = async (method: string, params: Record<string, unknown>) =>
    await client.request(method, { ...params, _meta: { ...modern(method).params._meta, ...ELICIT } }, ++id);
  const stateOf = async (method: string, params: Record<string, unknown>): Promise<string> => {
    const first = await round(method, params);
    assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
    return first.result.requestState;
  };
  const ask1 = await stateOf('tools/call', { name: 'ask', arguments: { n: 1 } });
  const ask1Again = await stateOf('tools/call', { name: 'ask', arguments: { n: 1 } });
  const other = await stateOf('tools/call', { name: 'ask_other', arguments: { n: 1 } });
  const vaultA = await stateOf('resources/read', { uri: 'test://vault/a' });
  const prompt = await stateOf('prompts/get', { name: 'p' });
  const [payload, mac] = ask1.split('.') as [string, string];
  assert.equal(mac.length, 43, 'a base64url HMAC-SHA-256');
  const forgeries: [string, string, Record<string, unknown>][] = [
    ['payload byte flipped', flip(ask1, Math.floor(payload.length / 2)), { name: 'ask', arguments: { n: 1 } }],
    ['first payload byte flipped', flip(ask1, 0), { name: 'ask', arguments: { n: 1 } }],
    ['MAC byte flipped', flip(ask1, payload.length + 1 + 10), { name: 'ask', arguments: { n: 1 } }],
    ['MAC re-spelled (same bytes)', flip(ask1, ask1.length - 1, true), { name: 'ask', arguments: { n: 1 } }],
    ["payload with another seal's MAC", `${payload}.${ask1Again.split('.')[1]}`, { name: 'ask', arguments: { n: 1 } }],
    ["another tool's state", other, { name: 'ask', arguments: { n: 1 } }],
    ['state for other arguments', ask1, { name: 'ask', arguments: { n: 2 } }],
    ['state with arguments dropped', ask1, { name: 'ask' }],
    ["a tool's state on a resource", ask1, { uri: 'test://vault/a' }],
    ["another resource's state", vaultA, { uri: 'test://vault/b' }],
    ["a prompt's state on a tool", prompt, { name: 'ask', arguments: { n: 1 } }],
  ];
  for (const [label, requestState, params] of forgeries) {
    const method = 'uri' in params ? 'resources/read' : 'tools/call';
    const answer = await round(method, { ...params, inputResponses: CONFIRMED, requestState });
    assert.deepEqual(answer, { jsonrpc: '2.0', id, error: VERIFICATION_FAILED }, label);
  }
  assert.deepEqual(retries, [], 'no handler ran on a forged state');
  // The genuine states still verify.
  const genuine = await round('tools/call', {
    name: 'ask',
    arguments: { n: 1 },
    inputResponses: CONFIRMED,
    requestState: ask1,
  });
  assert.equal(genuine.result.content[0].text, '{"n":1,"name":"ask","who":null} for anyone');
  const read = await round('resources/read', {
    uri: 'test://vault/a',
    inputResponses: CONFIRMED,
    requestState: vaultA,
  });
  assert.deepEqual(read.result.contents, [{ uri: 'test://vault/a', text: '{"uri":"test://vault/a"}' }]);
  assert.deepEqual(retries, ['ask', 'test://vault/a']);
  assert.deepEqual(await client.end(), []);
});

test('tampered requestState: an expired state is refused -32602 at the wire', async () => {
  const { server, retries } = inputServer({ requestState: { ttlMs: 1 } });
  const client = new WireClient(server);
  const meta = { ...modern('tools/call').params._meta, ...ELICIT };
  const first = await client.request('tools/call', { name: 'ask', _meta: meta }, 1);
  const answeredAt = Date.now();
  // Bounded poll on the clock (the subject here): the seal's 1 ms lifetime has passed once Date.now() moved on by 2.
  for (let i = 0; Date.now() <= answeredAt + 1; i++) {
    assert.ok(i < 1_000_000, 'the clock does not advance');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const retry = await client.request(
    'tools/call',
    { name: 'ask', _meta: meta, inputResponses: CONFIRMED, requestState: first.result.requestState },
    2,
  );
  assert.deepEqual(retry, { jsonrpc: '2.0', id: 2, error: VERIFICATION_FAILED });
  assert.deepEqual(retries, []);
  assert.deepEqual(await client.end(), []);
});

test('tampered requestState: a state sealed for one principal is refused for another', T, async (t) => {
  const { server, retries } = inputServer();
  const tokens: Record<string, AuthInfo> = {
    alice: { subject: 'alice', issuer: 'https://as.example.com', scopes: [] },
    bob: { subject: 'bob', issuer: 'https://as.example.com', scopes: [] },
  };
  const http = await serve(t, server, {
    auth: {
      resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] },
      verifyToken: (token) => tokens[token],
    },
  });
  const call = (id: number, extra: Record<string, unknown> = {}) =>
    modern('tools/call', { name: 'ask', arguments: { n: 7 }, ...extra }, id, ELICIT);
  const first = await postModern(http.url, call(1), { authorization: 'Bearer alice' });
  assert.equal(first.json.result.resultType, 'input_required', first.text);
  const requestState = first.json.result.requestState;
  const stolen = await postModern(http.url, call(2, { inputResponses: CONFIRMED, requestState }), {
    authorization: 'Bearer bob',
  });
  assert.deepEqual(stolen.json, { jsonrpc: '2.0', id: 2, error: VERIFICATION_FAILED }, stolen.text);
  assert.deepEqual(retries, []);
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// URI template injection (resources/read)

function templateServer() {
  const { server, logger } = quietServer();
  const seen: Record<string, unknown>[] = [];
  server.resource('file:///docs/readme', { name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'readme' }] }));
  server.resourceTemplate('file:///docs/{name}', { name: 'doc' }, (uri, variables) => {
    seen.push({ ...variables });
    return { contents: [{ uri, text: `doc ${JSON.stringify(variables.name)}` }] };
  });
  server.resourceTemplate('test://a.b/{x}', { name: 'dotted' }, (uri, variables) => {
    seen.push({ ...variables });
    return { contents: [{ uri, text: 'dotted' }] };
  });
  server.resourceTemplate('test://q/{a}-{b}{?c}', { name: 'multi' }, (uri, variables) => {
    seen.push({ ...variables });
    return { contents: [{ uri, text: 'multi' }] };
  });
  return { server, logger, seen };
}

const NOT_MATCHING = [
  'file:///docs/../etc/passwd', // a simple variable never spans a "/"
  'file:///docs/a/../../etc/passwd',
  'file:///docs/%zz', // malformed escapes
  'file:///docs/%',
  'file:///docs/%C0%AE%C0%AE', // overlong UTF-8 for ".."
  'file:///docs(.*)', // regex metacharacters in the URI are only characters
  'file:///docs/.*/x',
  'file:///docs/',
  'test://aXb/1', // the "." of the template is a literal dot
  'test://a.b/',
  `file:///docs/${'a'.repeat(20_000)}`, // past the 16 KiB match cap
  `test://q/${'-'.repeat(16_000)}!`,
  'FILE:///DOCS/README',
];

test('URI template injection: traversal, malformed escapes, regex metacharacters and huge URIs match nothing and are Resource not found naming the uri (-32602 in 2026-07-28, -32002 in 2025)', async () => {
  const { server, seen } = templateServer();
  const modernClient = new WireClient(server);
  const legacyClient = new WireClient(server);
  await legacyClient.initialize();
  for (const [index, uri] of NOT_MATCHING.entries()) {
    const answer = await modernClient.request(
      'resources/read',
      { uri, _meta: modern('resources/read').params._meta },
      index,
    );
    assert.deepEqual(
      answer,
      { jsonrpc: '2.0', id: index, error: { code: -32602, message: 'Resource not found', data: { uri } } },
      uri.slice(0, 80),
    );
    const legacy = await legacyClient.request('resources/read', { uri }, index);
    assert.deepEqual(
      legacy,
      { jsonrpc: '2.0', id: index, error: { code: -32002, message: 'Resource not found', data: { uri } } },
      uri.slice(0, 80),
    );
  }
  for (const [index, uri] of [
    undefined,
    42,
    null,
    ['file:///docs/readme'],
    { toString: 'file:///docs/readme' },
  ].entries()) {
    const legacy = await legacyClient.request('resources/read', uri === undefined ? {} : { uri }, `bad${index}`);
    assert.deepEqual(legacy, {
      jsonrpc: '2.0',
      id: `bad${index}`,
      error: { code: -32602, message: 'Invalid params: params.uri must be a string' },
    });
  }
  assert.deepEqual(seen, [], 'no template handler ran');
  assert.deepEqual(await modernClient.end(), []);
  assert.deepEqual(await legacyClient.end(), []);
});

test('URI template injection: a matched variable is percent-decoded exactly once and handed over as data (braces, dots, encoded slashes)', async () => {
  const { server, seen } = templateServer();
  const client = new WireClient(server);
  await client.initialize();
  const cases: [string, Record<string, unknown>][] = [
    ['file:///docs/%2e%2e', { name: '..' }],
    ['file:///docs/..%2Fetc%2Fpasswd', { name: '../etc/passwd' }], // handlers must check what they open
    ['file:///docs/%252e%252e', { name: '%2e%2e' }], // decoded once, never twice
    ['file:///docs/{name}', { name: '{name}' }], // braces in a URI are characters, never an expression
    ['file:///docs/.*', { name: '.*' }],
    ['file:///docs/$1', { name: '$1' }],
    ['test://a.b/x', { x: 'x' }],
    ['test://q/1-2?c=%7Bx%7D', { a: '1', b: '2', c: '{x}' }],
  ];
  for (const [index, [uri, variables]] of cases.entries()) {
    const answer = await client.request('resources/read', { uri }, index);
    assert.equal(answer.result?.contents?.[0]?.uri, uri, JSON.stringify(answer));
    assert.deepEqual(seen.at(-1), variables, uri);
  }
  assert.equal(seen.length, cases.length);
  assert.deepEqual((await client.request('resources/read', { uri: 'file:///docs/readme' }, 'fixed')).result.contents, [
    { uri: 'file:///docs/readme', text: 'readme' },
  ]);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Pagination cursor injection

function pagedServer() {
  const { server } = quietServer({ pageSize: 2 });
  for (const name of ['a', 'b', 'c']) {
    server.tool(name, {}, () => text(name));
    server.prompt(name, {}, () => ({ messages: [] }));
  }
  return server;
}

test('pagination cursor injection in 2026-07-28: non-base64, negative, huge, megabyte-long and non-string cursors are -32602 on every list', async () => {
  const client = new WireClient(pagedServer());
  const meta = modern('tools/list').params._meta;
  const first = await client.request('tools/list', { _meta: meta }, 'first');
  const issued: string = first.result.nextCursor;
  const b64url = (value: string) => Buffer.from(value).toString('base64url');
  const invalid: unknown[] = [
    '!!!',
    '====',
    'bz I',
    '\u0000',
    '🙂',
    b64url('o-1'),
    b64url('o-0'),
    b64url('o+1'),
    b64url('o1e9'),
    b64url('o99999999999'),
    b64url('o4'),
    b64url('o1; DROP TABLE'),
    b64url('{"offset":1}'),
    `${issued}${'A'.repeat(1024 * 1024)}`,
    -1,
    1e308,
    true,
    [issued],
    { cursor: issued },
  ];
  for (const method of ['tools/list', 'prompts/list']) {
    for (const [index, cursor] of invalid.entries()) {
      const answer = await client.request(method, { cursor, _meta: meta }, index);
      assert.deepEqual(
        answer,
        { jsonrpc: '2.0', id: index, error: BAD_CURSOR },
        `${method} ${JSON.stringify(cursor).slice(0, 40)}`,
      );
    }
  }
  const next = await client.request('tools/list', { cursor: issued, _meta: meta }, 'next');
  assert.deepEqual(
    next.result.tools.map((tool: { name: string }) => tool.name),
    ['c'],
  );
  assert.deepEqual(await client.end(), []);
});

test('pagination cursor injection: a cursor issued for one list is refused on another list', async () => {
  const client = new WireClient(pagedServer());
  await client.initialize();
  const tools = await client.request('tools/list', {}, 1);
  const cursor = tools.result.nextCursor;
  assert.equal(typeof cursor, 'string');
  assert.deepEqual(await client.request('prompts/list', { cursor }, 2), { jsonrpc: '2.0', id: 2, error: BAD_CURSOR });
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Prototype-pollution keys

// A schema as a client or a config file would give it: JSON text, so "__proto__" is an ordinary own key.
const PROTO_SCHEMA = JSON.parse(`{
  "type": "object",
  "properties": {
    "__proto__": {"type": "object", "properties": {"polluted": {"const": true}}, "required": ["polluted"]},
    "constructor": {"type": "object", "properties": {"prototype": {"type": "object"}}},
    "prototype": {"type": "object"}
  },
  "required": ["__proto__", "constructor", "prototype"],
  "additionalProperties": false
}`);
const PROTO_OUTPUT = JSON.parse(
  '{"type": "object", "properties": {"__proto__": {"type": "object"}}, "required": ["__proto__"]}',
);
const PROTO_ARGS =
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}';
const HOSTILE_KEYS =
  '"__proto__":{"polluted":true,"sampling":{},"progressToken":"smuggled"},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}';

function protoServer() {
  const { server, logger } = quietServer();
  const calls: { ownKeys: string[]; plainPrototype: boolean; inherited: unknown; sample: string }[] = [];
  server.tool(
    'proto',
    { inputSchema: PROTO_SCHEMA, outputSchema: PROTO_OUTPUT },
    async (args: Record<string, unknown>, ctx) => {
      ctx.progress(1, 1); // the only progress token offered was under "__proto__": nothing may be sent
      let sample = 'not tried';
      if (ctx.era === 'legacy')
        sample = await ctx.sample({ messages: [], maxTokens: 1 }).then(
          () => 'sent',
          (error: Error) => error.name,
        );
      calls.push({
        ownKeys: Object.keys(args).sort(),
        plainPrototype: Object.getPrototypeOf(args) === Object.prototype,
        inherited: (args as { polluted?: unknown }).polluted,
        sample,
      });
      return { content: [{ type: 'text', text: 'proto ok' }], structuredContent: args };
    },
  );
  server.tool('ask', {}, () =>
    inputRequired({ confirm: elicitInput({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }) }),
  );
  server.prompt('echo', {}, (args) => ({
    messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(Object.entries(args)) } }],
  }));
  return { server, logger, calls };
}

test('prototype-pollution keys in params, arguments, capabilities and _meta (2025 over stdio) pollute nothing, smuggle no capability or progress token, and are served as ordinary keys', async () => {
  const before = prototypeSnapshot();
  const { server, calls } = protoServer();
  const client = new WireClient(server);
  client.send(
    `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{${HOSTILE_KEYS},"protocolVersion":"2025-11-25",` +
      `"capabilities":{${HOSTILE_KEYS}},"clientInfo":{"name":"c","version":"1"}}}`,
  );
  assert.equal((await client.response(1)).result.protocolVersion, '2025-11-25');
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  client.send(
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{${HOSTILE_KEYS},"name":"proto","arguments":${PROTO_ARGS},` +
      `"_meta":{${HOSTILE_KEYS}}}}`,
  );
  const answer = await client.response(2);
  assert.deepEqual(
    answer,
    JSON.parse(
      `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"proto ok"}],"structuredContent":${PROTO_ARGS}}}`,
    ),
  );
  assert.deepEqual(calls, [
    {
      ownKeys: ['__proto__', 'constructor', 'prototype'],
      plainPrototype: true,
      inherited: undefined,
      sample: 'MissingCapabilityError',
    },
  ]);
  // Validation treats them as the ordinary properties they are.
  const invalid: [string, string][] = [
    ['{"constructor":{},"prototype":{}}', 'arguments.__proto__ is required'],
    ['{"__proto__":5,"constructor":{},"prototype":{}}', 'arguments.__proto__ must be object'],
    [
      '{"__proto__":{"polluted":false},"constructor":{},"prototype":{}}',
      'arguments.__proto__.polluted must be equal to the constant',
    ],
    [
      '{"__proto__":{"polluted":true},"constructor":{"prototype":1},"prototype":{}}',
      'arguments.constructor.prototype must be object',
    ],
    [
      `{"__proto__":{"polluted":true},"constructor":{},"prototype":{},"toString":1}`,
      'arguments.toString must not have additional property',
    ],
  ];
  for (const [index, [args, problem]] of invalid.entries()) {
    client.send(
      `{"jsonrpc":"2.0","id":"v${index}","method":"tools/call","params":{"name":"proto","arguments":${args}}}`,
    );
    assert.deepEqual(
      await client.response(`v${index}`),
      {
        jsonrpc: '2.0',
        id: `v${index}`,
        result: {
          content: [{ type: 'text', text: `Invalid arguments for tool 'proto': ${problem}` }],
          isError: true,
        },
      },
      args,
    );
  }
  client.send(
    '{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"echo","arguments":{"__proto__":"a","constructor":"b"}}}',
  );
  assert.deepEqual(
    (await client.response(3)).result.messages[0].content.text,
    '[["__proto__","a"],["constructor","b"]]',
  );
  assert.equal(calls.length, 1);
  assert.deepEqual(await client.end(), [], 'no progress notification was sent for the smuggled token');
  assertNotPolluted(before);
});

test(
  'prototype-pollution keys in 2026-07-28 requests (stdio and HTTP): an envelope or capability under "__proto__" counts for nothing; the tool is served',
  T,
  async (t) => {
    const before = prototypeSnapshot();
    const { server, calls } = protoServer();
    const client = new WireClient(server);
    const envelope = `"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{${HOSTILE_KEYS}}`;
    const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${HOSTILE_KEYS},"name":"proto","arguments":${PROTO_ARGS},"_meta":{${HOSTILE_KEYS},${envelope}}}}`;
    client.send(call);
    const answer = await client.response(1);
    assert.deepEqual(answer.result.structuredContent, JSON.parse(PROTO_ARGS));
    assert.equal(answer.result.resultType, 'complete');
    assert.deepEqual(answer.result._meta, { [SERVER_INFO]: INFO });
    // A capability given only under "__proto__" is not declared: the elicitation is refused -32021.
    client.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","_meta":{${envelope}}}}`);
    assert.deepEqual(await client.response(2), {
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32021,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { elicitation: {} } },
      },
    });
    // An envelope hidden under "__proto__" is no envelope on this modern connection.
    client.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"__proto__":{${envelope}}}}}`);
    const hidden = await client.response(3);
    assert.equal(hidden.error?.code, -32602, JSON.stringify(hidden));
    assert.match(hidden.error.message, /params\._meta must carry/);
    assert.deepEqual(await client.end(), []);

    const http = await serve(t, server);
    const response = await raw(http.url, {
      headers: modernHeaders({ method: 'tools/call', params: { name: 'proto' } }),
      body: call,
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json.result.structuredContent, JSON.parse(PROTO_ARGS));
    assert.equal(calls.length, 2);
    assert.ok(
      calls.every(
        (c) => c.plainPrototype && c.inherited === undefined && c.ownKeys.join() === '__proto__,constructor,prototype',
      ),
    );
    await http.close();
    assertNotPolluted(before);
  },
);

// Names Object.prototype owns, sent wherever a client names something: each must be as unknown as any other name.
const PROTOTYPE_NAMES = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
];
const CONFIRM = elicitInput({ message: 'Sure?', requestedSchema: { type: 'object', properties: {} } });
const LEVELS = 'debug, info, notice, warning, error, critical, alert, emergency';

/** One request naming something, and its exact answer (`status`: over 2026-07-28 HTTP, when not 200). */
interface NameCase {
  what: string;
  method: string;
  params: Record<string, unknown>;
  meta?: object;
  answer: Frame;
  status?: number;
}

/** A 2026-07-28 result as the wire carries it: resultType and the serverInfo stamp, caching hints when cacheable. */
function stamped(era: Era, result: Record<string, unknown>, cacheable = false): Frame {
  if (era === 'legacy') return { result };
  const modernResult: Record<string, unknown> = { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: INFO } };
  return { result: cacheable ? { ...modernResult, ttlMs: 0, cacheScope: 'private' } : modernResult };
}

function invalid(message: string): Frame {
  return { error: { code: -32602, message: `Invalid params: ${message}` } };
}

function completion(era: Era, values: string[]): Frame {
  return stamped(era, { completion: { values, total: values.length, hasMore: false } });
}

/** A prompt result whose one message is `value` as JSON text. */
function promptOf(value: unknown) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: JSON.stringify(value) } }] };
}

/** A resource result: `uri` with `value` as JSON text. */
function contentsOf(uri: string, value: unknown) {
  return { contents: [{ uri, text: JSON.stringify(value) }] };
}

function echoed(era: Era, value: unknown): Frame {
  return stamped(era, promptOf(value));
}

/** A tool asking for input, a prompt and a resource template (each with a completer); handlers echo what they got. */
function namesServer() {
  const { server, logger } = quietServer();
  server.tool('ask', {}, (_args, ctx) =>
    ctx.inputResponses?.confirm !== undefined ? text('confirmed') : inputRequired({ confirm: CONFIRM }),
  );
  server.prompt(
    'p',
    { arguments: [{ name: 'a', required: true }], complete: { a: (_value, context) => [JSON.stringify(context)] } },
    promptOf,
  );
  server.resourceTemplate('demo://{id}', { name: 'demo', complete: { id: () => ['one'] } }, contentsOf);
  return { server, logger };
}

/** Every place a request names something, with `name` there, and the answer an unknown name gets. */
function unknownNameCases(name: string, era: Era): NameCase[] {
  const promptRef = { type: 'ref/prompt', name: 'p' };
  const templateRef = { type: 'ref/resource', uri: 'demo://{id}' };
  const cases: NameCase[] = [
    {
      what: 'completion argument (prompt)',
      method: 'completion/complete',
      params: { ref: promptRef, argument: { name, value: '' } },
      answer: completion(era, []),
    },
    {
      what: 'completion argument (template)',
      method: 'completion/complete',
      params: { ref: templateRef, argument: { name, value: '' } },
      answer: completion(era, []),
    },
    {
      what: 'completion context argument',
      method: 'completion/complete',
      params: { ref: promptRef, argument: { name: 'a', value: '' }, context: { arguments: { [name]: 'v' } } },
      answer: completion(era, [JSON.stringify({ [name]: 'v' })]),
    },
    {
      what: 'completion ref name',
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name }, argument: { name: 'a', value: '' } },
      answer: invalid(`unknown prompt '${name}'`),
    },
    {
      what: 'completion ref uri',
      method: 'completion/complete',
      params: { ref: { type: 'ref/resource', uri: name }, argument: { name: 'id', value: '' } },
      answer: invalid(`unknown resource template '${name}'`),
    },
    { what: 'prompt name', method: 'prompts/get', params: { name }, answer: invalid(`unknown prompt '${name}'`) },
    {
      what: 'prompt argument alone',
      method: 'prompts/get',
      params: { name: 'p', arguments: { [name]: 'v' } },
      answer: invalid("missing required argument 'a' for prompt 'p'"),
    },
    {
      what: 'prompt argument',
      method: 'prompts/get',
      params: { name: 'p', arguments: { a: 'x', [name]: 'v' } },
      answer: echoed(era, { a: 'x', [name]: 'v' }),
    },
    { what: 'tool name', method: 'tools/call', params: { name }, answer: invalid(`unknown tool '${name}'`) },
    {
      what: 'resource uri',
      method: 'resources/read',
      params: { uri: name },
      answer: {
        error: { code: era === 'legacy' ? -32002 : -32602, message: 'Resource not found', data: { uri: name } },
      },
    },
    {
      what: 'template variable',
      method: 'resources/read',
      params: { uri: `demo://${name}` },
      answer: stamped(era, contentsOf(`demo://${name}`, { id: name }), true),
    },
    {
      what: 'method',
      method: name,
      params: {},
      answer: { error: { code: -32601, message: 'Method not found', data: name } },
      status: 404,
    },
  ];
  if (era === 'legacy') {
    cases.push({
      what: 'log level',
      method: 'logging/setLevel',
      params: { level: name },
      answer: invalid(`params.level must be one of ${LEVELS}`),
    });
  } else {
    cases.push(
      {
        what: 'log level',
        method: 'tools/list',
        params: {},
        meta: { [LOG_LEVEL]: name },
        status: 400,
        answer: invalid(`params._meta['${LOG_LEVEL}'] must be one of ${LEVELS}`),
      },
      {
        // Were the copy of inputResponses a plain object, this value under "__proto__" would become its prototype.
        what: 'inputResponses key',
        method: 'tools/call',
        params: { name: 'ask', inputResponses: { [name]: { action: 'accept', confirm: { action: 'accept' } } } },
        answer: {
          result: { resultType: 'input_required', inputRequests: { confirm: CONFIRM }, _meta: { [SERVER_INFO]: INFO } },
        },
      },
      {
        what: 'inputResponses key, not an object',
        method: 'tools/call',
        params: { name: 'ask', inputResponses: { [name]: 5 } },
        answer: invalid(`params.inputResponses.${name} must be an object`),
      },
    );
  }
  return cases;
}

/** The request of a case, as a 2025 client (after initialize) or a 2026-07-28 client (with the envelope) sends it. */
function nameRequest(era: Era, id: string, { method, params, meta }: NameCase): Frame {
  return era === 'legacy' ? { jsonrpc: '2.0', id, method, params } : modern(method, params, id, { ...ELICIT, ...meta });
}

test('names Object.prototype owns (constructor, toString, __proto__, …) are unknown names everywhere a request names something (both eras over stdio): the unknown-name answer, nothing logged', async () => {
  const before = prototypeSnapshot();
  for (const era of ['legacy', 'modern'] as const) {
    const { server, logger } = namesServer();
    const client = new WireClient(server);
    if (era === 'legacy') await client.initialize();
    for (const name of PROTOTYPE_NAMES) {
      for (const nameCase of unknownNameCases(name, era)) {
        const id = `${nameCase.what}: ${name}`;
        client.send(nameRequest(era, id, nameCase));
        assert.deepEqual(await client.response(id), { jsonrpc: '2.0', id, ...nameCase.answer }, `${era} ${id}`);
      }
    }
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(logger.errors, [], `${era}: no unexpected failure was logged`);
    assert.deepEqual(logger.warnings, []);
  }
  assertNotPolluted(before);
});

test(
  'names Object.prototype owns are unknown names on 2026-07-28 HTTP too (Mcp-Method and Mcp-Name carry them): the same answers, 404 for the method',
  T,
  async (t) => {
    const before = prototypeSnapshot();
    const { server, logger } = namesServer();
    const http = await serve(t, server);
    for (const name of PROTOTYPE_NAMES) {
      for (const nameCase of unknownNameCases(name, 'modern')) {
        const id = `${nameCase.what}: ${name}`;
        const response = await postModern(http.url, nameRequest('modern', id, nameCase));
        assert.deepEqual(
          { status: response.status, body: response.json },
          {
            status: nameCase.status ?? 200,
            body: { jsonrpc: '2.0', id, ...nameCase.answer },
          },
          id,
        );
      }
    }
    await http.close();
    assert.deepEqual(logger.errors, [], 'no unexpected failure was logged');
    assert.deepEqual(logger.warnings, []);
    assertNotPolluted(before);
  },
);

test('items an author names after Object.prototype members (a tool "constructor", a prompt "__proto__", completers and template variables "toString") are served as ordinary names; other such names stay unknown', async () => {
  const { server, logger } = quietServer();
  // Own properties, "__proto__" included: Object.fromEntries and computed keys define them, where a plain
  // `__proto__:` in an object literal would set the prototype instead.
  const complete = Object.fromEntries(['constructor', '__proto__', 'toString'].map((name) => [name, () => [name]]));
  server.tool('constructor', {}, () => text('the constructor tool'));
  server.prompt(
    '__proto__',
    { arguments: [{ name: 'toString', required: true }, { name: 'constructor' }], complete },
    (args) => promptOf({ toString: args.toString, constructor: args.constructor ?? null }),
  );
  const template = 'demo://{__proto__}/{constructor}{?toString}';
  server.resourceTemplate(template, { name: 'demo', complete }, (uri, variables) =>
    contentsOf(uri, {
      ['__proto__']: variables.__proto__,
      constructor: variables.constructor,
      toString: variables.toString ?? null,
    }),
  );
  server.resource('constructor:x', { name: 'x' }, (uri) => ({ contents: [{ uri, text: 'x' }] }));
  for (const era of ['legacy', 'modern'] as const) {
    const client = new WireClient(server);
    if (era === 'legacy') await client.initialize();
    const cases: NameCase[] = [
      {
        what: 'tool',
        method: 'tools/call',
        params: { name: 'constructor' },
        answer: stamped(era, text('the constructor tool')),
      },
      {
        what: 'prompt',
        method: 'prompts/get',
        params: { name: '__proto__', arguments: { toString: 'x' } },
        answer: echoed(era, { toString: 'x', constructor: null }),
      },
      {
        what: 'missing required argument',
        method: 'prompts/get',
        params: { name: '__proto__', arguments: { constructor: 'y' } },
        answer: invalid("missing required argument 'toString' for prompt '__proto__'"),
      },
      {
        what: 'template variables',
        method: 'resources/read',
        params: { uri: 'demo://a/b' },
        answer: stamped(era, contentsOf('demo://a/b', { ['__proto__']: 'a', constructor: 'b', toString: null }), true),
      },
      {
        what: 'template query variable',
        method: 'resources/read',
        params: { uri: 'demo://a/b?toString=c' },
        answer: stamped(
          era,
          contentsOf('demo://a/b?toString=c', { ['__proto__']: 'a', constructor: 'b', toString: 'c' }),
          true,
        ),
      },
      {
        what: 'resource',
        method: 'resources/read',
        params: { uri: 'constructor:x' },
        answer: stamped(era, { contents: [{ uri: 'constructor:x', text: 'x' }] }, true),
      },
    ];
    for (const [kind, ref] of [
      ['prompt', { type: 'ref/prompt', name: '__proto__' }],
      ['template', { type: 'ref/resource', uri: template }],
    ] as const) {
      for (const name of PROTOTYPE_NAMES) {
        const values = Object.hasOwn(complete, name) ? [name] : [];
        cases.push({
          what: `${kind} completer ${name}`,
          method: 'completion/complete',
          params: { ref, argument: { name, value: '' } },
          answer: completion(era, values),
        });
      }
    }
    for (const nameCase of cases) {
      client.send(nameRequest(era, nameCase.what, nameCase));
      assert.deepEqual(
        await client.response(nameCase.what),
        { jsonrpc: '2.0', id: nameCase.what, ...nameCase.answer },
        `${era} ${nameCase.what}`,
      );
    }
    assert.deepEqual(await client.end(), []);
  }
  assert.deepEqual(logger.errors, []);
});

test('a client key echoed in an error is cut at 128 characters: a prompt argument named by a megabyte key', async () => {
  const server = createServer(INFO);
  server.prompt('p', { arguments: [{ name: 'a' }] }, () => ({ messages: [] }));
  const client = new WireClient(server);
  await client.initialize('2025-11-25');
  const key = 'k'.repeat(1 << 20);
  const answer = await client.request('prompts/get', { name: 'p', arguments: { [key]: 1 } }, 1);
  assert.deepEqual(answer.error, {
    code: -32602,
    message: `Invalid params: params.arguments[${JSON.stringify(`${'k'.repeat(128)}…`)}] must be a string`,
  });
  assert.deepEqual(await client.end(), []);
});
