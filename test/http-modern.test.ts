// Modern (2026-07-28) Streamable HTTP at the wire, over real loopback sockets: DNS-rebinding protection (also in a
// mounted handler), limits and the validation ladder (MCP 2026-07-28, Basic > Transports > Streamable HTTP > Server
// Validation), body-primary era classification (docs/eras.md: over HTTP each POST is classified by its own body),
// mirrored routing headers, status mapping, JSON vs SSE responses, client disconnect as cancellation,
// subscriptions/listen over SSE, and both eras on one endpoint.
//
// Determinism: every wait is on an explicit signal (a deferred resolved inside a handler, a server-side 'close'
// of the exchange's response, or the next SSE event read from the body stream); nothing sleeps and nothing
// asserts on time.

import assert from 'node:assert/strict';
import { createServer as createNodeServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { createServer, type Server, type ServerOptions } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { createHttpHandler, type HttpOptions, type HttpServer, serveHttp } from '../http.ts';
import { MODERN_REMOVED } from '../modern.ts';
import { deferred, type Frame, MemoryLogger } from './harness.ts';
import { encodeHeaderValue, type RawResponse, raw, watchExchanges } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import {
  CLIENT_CAPABILITIES,
  EVERYTHING_INFO,
  envelope,
  type Id,
  LOG_LEVEL,
  MODERN,
  modern,
  PROTOCOL_VERSION,
  SERVER_INFO,
  SUBSCRIPTION_ID,
} from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const INFO = { name: 'http-modern-test', version: '1.0.0' };

type Headers = Record<string, string | string[]>;

// ---------------------------------------------------------------------------------------------------------------
// Frames and headers

/** The headers a well-behaved modern client sends for `frame` (Mcp-Name where the method needs it). */
function modernHeaders(frame: Frame, extra: Headers = {}): Headers {
  const headers: Headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
  };
  if (typeof frame.method === 'string' && 'id' in frame) headers['mcp-method'] = frame.method;
  const params = frame.params ?? {};
  if ((frame.method === 'tools/call' || frame.method === 'prompts/get') && typeof params.name === 'string') {
    headers['mcp-name'] = encodeHeaderValue(params.name);
  }
  if (frame.method === 'resources/read' && typeof params.uri === 'string')
    headers['mcp-name'] = encodeHeaderValue(params.uri);
  return { ...headers, ...extra };
}

function call(name: string, args: Record<string, unknown>, id: Id, meta: Record<string, unknown> = {}): Frame {
  return modern('tools/call', { name, arguments: args }, id, meta);
}

function stamped(result: Record<string, unknown>, info: object = EVERYTHING_INFO): Record<string, unknown> {
  return { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: info } };
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function errorFrame(id: Id | null, code: number, message: string, data?: unknown): Frame {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: each test starts its own and closes it

async function serve(
  t: TestContext,
  server: Server = createEverythingServer(),
  options: HttpOptions & { port?: number } = {},
): Promise<HttpServer> {
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  let closed = false;
  t.after(async () => {
    if (!closed) await http.close();
  });
  return Object.assign(Object.create(http) as HttpServer, {
    close: async () => {
      closed = true;
      await http.close();
    },
  });
}

/** A server with the demo surface plus whatever `register` adds; its logger is captured (nothing to stderr). */
function customServer(
  register: (server: Server) => void,
  options: ServerOptions = {},
): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger, ...options });
  register(server);
  return { server, logger };
}

// ---------------------------------------------------------------------------------------------------------------
// Clients

/** POSTs one modern frame with the headers a correct client sends (overridable; `undefined` removes one). */
function post(
  http: HttpServer,
  frame: Frame,
  headers: Record<string, string | string[] | undefined> = {},
): Promise<RawResponse> {
  const merged: Record<string, string | string[] | undefined> = { ...modernHeaders(frame), ...headers };
  const clean: Headers = {};
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) clean[name] = value;
  return raw(http.url, { headers: clean, body: typeof frame === 'string' ? frame : JSON.stringify(frame) });
}

function assertAnswer(response: RawResponse, status: number, frame: Frame): void {
  assert.equal(response.status, status, `status (body: ${response.text})`);
  assert.equal(response.headers['content-type'], 'application/json');
  assert.equal(response.headers['mcp-session-id'], undefined, 'a modern response never carries a session id');
  assert.deepEqual(response.json, frame);
}

/** An error answer: status, id, code (and data when given); the message is checked to be non-empty text. */
function assertError(response: RawResponse, status: number, id: Id | null, code: number, data?: unknown): void {
  assert.equal(response.status, status, `status (body: ${response.text})`);
  assert.equal(response.headers['content-type'], 'application/json');
  assert.equal(response.headers['mcp-session-id'], undefined);
  const { error, ...rest } = response.json as { error: { code: number; message: string; data?: unknown } };
  assert.deepEqual(rest, { jsonrpc: '2.0', id });
  assert.equal(error.code, code, `code (message: ${error.message})`);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  if (data !== undefined) assert.deepEqual(error.data, data);
}

/** A modern POST through fetch (for streams and aborts). */
function fetchModern(http: HttpServer, frame: Frame, headers: Headers = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(http.url, {
    method: 'POST',
    headers: modernHeaders(frame, headers),
    body: JSON.stringify(frame),
    signal,
  });
}

function assertSseHeaders(response: Response): void {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  assert.equal(response.headers.get('x-accel-buffering'), 'no');
  assert.match(response.headers.get('cache-control') ?? '', /no-cache/);
  assert.equal(response.headers.get('mcp-session-id'), null);
}

const DISCOVER = modern('server/discover', {}, 'd1');

// ---------------------------------------------------------------------------------------------------------------
// Security: Host and Origin (DNS rebinding), checked first

test(
  'a Host that is not a localhost form gets 421 with a JSON-RPC error and id null, before anything runs',
  T,
  async (t) => {
    let calls = 0;
    const { server } = customServer((s) =>
      s.tool('record', {}, () => {
        calls++;
        return text('ran');
      }),
    );
    const http = await serve(t, server);
    for (const host of [
      'evil.example.com',
      'evil.example.com:80',
      'localhost.evil.example.com',
      '127.0.0.2',
      '[::2]:3000',
      '0.0.0.0',
    ]) {
      const response = await post(http, call('record', {}, 1), { host });
      assertError(response, 421, null, -32600);
    }
    assert.equal(calls, 0);
    assertError(
      await raw(http.url, { method: 'GET', headers: { host: 'evil.example.com', accept: 'text/event-stream' } }),
      421,
      null,
      -32600,
    );
    await http.close();
  },
);

test('a present foreign Origin gets 403 with id null; an absent Origin is fine', T, async (t) => {
  const http = await serve(t);
  for (const origin of [
    'http://evil.example.com',
    'https://localhost.evil.example.com',
    'null',
    'file://',
    'not a url',
    'ftp://localhost',
  ]) {
    assertError(await post(http, DISCOVER, { origin }), 403, null, -32600);
  }
  assert.equal((await post(http, DISCOVER)).status, 200);
  for (const origin of [
    'http://localhost',
    'http://localhost:5173',
    'https://127.0.0.1',
    'http://127.0.0.1:8080',
    'http://[::1]:3000',
  ]) {
    assert.equal((await post(http, DISCOVER, { origin })).status, 200, origin);
  }
  await http.close();
});

test('localhost, 127.0.0.1 and [::1] Host forms are accepted with or without a port, in any case', T, async (t) => {
  const http = await serve(t);
  const { port } = http.httpServer.address() as AddressInfo;
  for (const host of [
    'localhost',
    `localhost:${port}`,
    'LocalHost:1',
    '127.0.0.1',
    `127.0.0.1:${port}`,
    '[::1]',
    `[::1]:${port}`,
  ]) {
    const response = await post(http, DISCOVER, { host });
    assert.equal(response.status, 200, `${host}: ${response.text}`);
    assert.equal(response.json.id, 'd1');
  }
  await http.close();
});

test('allowedHosts and allowedOrigins replace the localhost defaults', T, async (t) => {
  const http = await serve(t, createEverythingServer(), {
    allowedHosts: ['mcp.example.com'],
    allowedOrigins: ['https://app.example.com'],
  });
  assert.equal((await post(http, DISCOVER, { host: 'mcp.example.com' })).status, 200);
  assert.equal((await post(http, DISCOVER, { host: 'mcp.example.com:443' })).status, 200);
  assertError(await post(http, DISCOVER, { host: 'localhost' }), 421, null, -32600);
  assertError(await post(http, DISCOVER, { host: 'other.example.com' }), 421, null, -32600);
  assert.equal(
    (await post(http, DISCOVER, { host: 'mcp.example.com', origin: 'https://app.example.com' })).status,
    200,
  );
  assert.equal(
    (await post(http, DISCOVER, { host: 'mcp.example.com', origin: 'https://mcp.example.com:8443' })).status,
    200,
  );
  assertError(
    await post(http, DISCOVER, { host: 'mcp.example.com', origin: 'https://other.example.com' }),
    403,
    null,
    -32600,
  );
  assertError(
    await post(http, DISCOVER, { host: 'mcp.example.com', origin: 'https://app.example.com:444' }),
    403,
    null,
    -32600,
  );
  assertError(await post(http, DISCOVER, { host: 'mcp.example.com', origin: 'http://localhost' }), 403, null, -32600);
  await http.close();
});

test('a handler mounted in our own node:http server checks Host and Origin too, on any path', T, async (t) => {
  const handler = createHttpHandler(createEverythingServer(), { keepAliveMs: 0 });
  const node = createNodeServer((request, response) => {
    if (request.url === '/health') {
      response.end('ok');
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const closeNode = () =>
    new Promise<void>((resolve) => {
      handler.close();
      node.close(() => resolve());
      node.closeIdleConnections();
    });
  let closed = false;
  t.after(async () => {
    if (!closed) await closeNode();
  });
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/somewhere/mcp`;
  const send = (headers: Headers) =>
    raw(url, { headers: { ...modernHeaders(DISCOVER), ...headers }, body: JSON.stringify(DISCOVER) });
  assertError(await send({ host: 'evil.example.com' }), 421, null, -32600);
  assertError(await send({ origin: 'http://evil.example.com' }), 403, null, -32600);
  const ok = await send({ origin: 'http://localhost:9999' });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.json.result.resultType, 'complete');
  assert.equal((await raw(url.replace('/somewhere/mcp', '/health'), { method: 'GET' })).text, 'ok');
  closed = true;
  await closeNode();
});

test(
  'a 2026-07-28 POST reads its envelope once: the transport reads it and the lifecycle takes it as read',
  T,
  async (t) => {
    const handler = createHttpHandler(createEverythingServer(), { keepAliveMs: 0 });
    let reads = 0;
    const node = createNodeServer((request, response) => {
      // A body a framework already parsed, whose _meta counts the reads of its client capabilities.
      const meta = new Proxy(envelope(), {
        get(target, key) {
          if (key === CLIENT_CAPABILITIES) reads += 1;
          return Reflect.get(target, key);
        },
      });
      const parsed = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'test_simple_text', arguments: {}, _meta: meta },
      };
      handler(request, response, parsed);
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    t.after(
      () =>
        new Promise<void>((resolve) => {
          handler.close();
          node.close(() => resolve());
          node.closeIdleConnections();
        }),
    );
    const frame = call('test_simple_text', {}, 1);
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`;
    const response = await raw(url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
    const answer = stamped(text('This is a simple text response for testing.'));
    assertAnswer(response, 200, { jsonrpc: '2.0', id: 1, result: answer });
    assert.equal(reads, 1);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Limits and the ladder's transport rungs

test('a Content-Type other than application/json gets 415; parameters are allowed', T, async (t) => {
  const http = await serve(t);
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonl', 'text/event-stream']) {
    assertError(await post(http, DISCOVER, { 'content-type': type }), 415, null, -32600);
  }
  assertError(await post(http, DISCOVER, { 'content-type': undefined }), 415, null, -32600);
  assert.equal((await post(http, DISCOVER, { 'content-type': 'application/json; charset=utf-8' })).status, 200);
  assert.equal((await post(http, DISCOVER, { 'content-type': 'Application/JSON' })).status, 200);
  await http.close();
});

/** Starts a POST whose body we write by hand; resolves with the response as soon as the server answers. */
function manualPost(http: HttpServer, headers: Headers) {
  const target = new URL(http.url);
  const request = httpRequest({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers,
    agent: false,
  });
  request.on('error', () => {}); // the server may close the socket while we still write; the answer is what counts
  const answer = new Promise<RawResponse>((resolve, reject) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          text: body,
          json: body === '' ? undefined : JSON.parse(body),
        });
      });
      response.on('error', reject);
    });
  });
  return { request, answer };
}

test(
  'a streamed (chunked) body past maxBodyBytes gets 413 while it is still arriving, whatever it claims',
  T,
  async (t) => {
    const http = await serve(t, createEverythingServer(), { maxBodyBytes: 1024 });
    const { request, answer } = manualPost(http, { ...modernHeaders(DISCOVER), 'transfer-encoding': 'chunked' });
    request.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(600)}`);
    request.write('x'.repeat(600)); // past 1024 bytes; the body never ends
    const response = await answer;
    assertError(response, 413, null, -32600);
    assert.equal(response.headers.connection, 'close');
    request.destroy();
    // The server is still healthy, and a body exactly at the limit is read.
    const padded = JSON.stringify({ ...DISCOVER, pad: '' });
    const exact = JSON.stringify({ ...DISCOVER, pad: 'y'.repeat(1024 - padded.length) });
    assert.equal(Buffer.byteLength(exact), 1024);
    assert.equal((await raw(http.url, { headers: modernHeaders(DISCOVER), body: exact })).status, 200);
    await http.close();
  },
);

test('a declared Content-Length past maxBodyBytes gets 413 before the body is sent', T, async (t) => {
  const http = await serve(t, createEverythingServer(), { maxBodyBytes: 1024 });
  const { request, answer } = manualPost(http, { ...modernHeaders(DISCOVER), 'content-length': '4096' });
  request.flushHeaders(); // headers only; not one byte of body
  const response = await answer;
  assertError(response, 413, null, -32600);
  request.destroy();
  assert.equal((await post(http, DISCOVER)).status, 200);
  await http.close();
});

test('a body that is not JSON gets 400 -32700 with id null', T, async (t) => {
  const http = await serve(t);
  for (const body of ['{"jsonrpc":"2.0","id":1,', '', 'nope', '{"id":1}}']) {
    assertAnswer(await post(http, body as unknown as Frame), 400, errorFrame(null, -32700, 'Parse error'));
  }
  await http.close();
});

test('an invalid JSON-RPC object gets 400 -32600, echoing the id when it is usable', T, async (t) => {
  const http = await serve(t);
  const cases: [Frame, Id | null][] = [
    [{ jsonrpc: '1.0', id: 7, method: 'tools/list', params: { _meta: envelope() } }, 7],
    [{ jsonrpc: '2.0', id: 'x', method: '', params: { _meta: envelope() } }, 'x'],
    [{ jsonrpc: '2.0', id: 8, method: 'tools/list', params: [1] }, 8],
    [{ jsonrpc: '2.0', id: 9 }, 9],
    [{ jsonrpc: '2.0', id: { bad: true }, method: 'tools/list', params: { _meta: envelope() } }, null],
    [{ jsonrpc: '2.0', id: 1.5, method: 'tools/list' }, null],
    ['"a string"', null],
    ['42', null],
  ];
  for (const [frame, id] of cases) {
    const body = typeof frame === 'string' ? frame : JSON.stringify(frame);
    const response = await raw(http.url, { headers: modernHeaders({ method: 'tools/list', id: 0 }), body });
    assertError(response, 400, id, -32600);
  }
  await http.close();
});

test('a method other than GET, POST and DELETE gets 405 with Allow: GET, POST, DELETE', T, async (t) => {
  const http = await serve(t);
  for (const method of ['PUT', 'PATCH', 'OPTIONS']) {
    const response = await raw(http.url, {
      method,
      headers: modernHeaders(DISCOVER, { 'mcp-protocol-version': '2025-11-25' }),
      body: '{}',
    });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.allow, 'GET, POST, DELETE');
  }
  await http.close();
});

test('GET and DELETE with a modern MCP-Protocol-Version get 405 with Allow: POST', T, async (t) => {
  const http = await serve(t);
  for (const method of ['GET', 'DELETE']) {
    const response = await raw(http.url, {
      method,
      headers: { 'mcp-protocol-version': MODERN, accept: 'text/event-stream', 'mcp-session-id': 'anything' },
    });
    assert.equal(response.status, 405, `${method}: ${response.text}`);
    assert.equal(response.headers.allow, 'POST');
    assert.equal(response.headers['mcp-session-id'], undefined);
  }
  await http.close();
});

test('with sessions:false every GET and DELETE gets 405 with Allow: POST', T, async (t) => {
  const http = await serve(t, createEverythingServer(), { sessions: false });
  for (const [method, headers] of [
    ['GET', { accept: 'text/event-stream' }],
    ['GET', { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'abc' }],
    ['DELETE', { 'mcp-session-id': 'abc' }],
    ['DELETE', {}],
    ['PUT', {}],
  ] as [string, Headers][]) {
    const response = await raw(http.url, { method, headers });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.allow, 'POST');
  }
  assert.equal((await post(http, DISCOVER)).status, 200);
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Era classification: the body decides, the header cross-checks

test(
  'an enveloped request without MCP-Protocol-Version gets 400 -32020 echoing its id, and is not served as legacy',
  T,
  async (t) => {
    let calls = 0;
    const { server } = customServer((s) =>
      s.tool('record', {}, () => {
        calls++;
        return text('ran');
      }),
    );
    const http = await serve(t, server);
    assertError(await post(http, modern('tools/list', {}, 1), { 'mcp-protocol-version': undefined }), 400, 1, -32020);
    assertError(await post(http, call('record', {}, 'c'), { 'mcp-protocol-version': undefined }), 400, 'c', -32020);
    assert.equal(calls, 0);
    assert.equal(http.handler.sessionCount, 0);
    await http.close();
  },
);

test('an MCP-Protocol-Version that disagrees with the claim gets 400 -32020', T, async (t) => {
  const http = await serve(t);
  for (const header of ['2025-11-25', '2025-03-26', 'v999.0.0', '2026-07-27']) {
    assertError(await post(http, modern('tools/list', {}, 2), { 'mcp-protocol-version': header }), 400, 2, -32020);
  }
  // header 2026-07-28, body claims v999.0.0: the header rung answers first
  assertError(await post(http, modern('tools/list', {}, 3, { [PROTOCOL_VERSION]: 'v999.0.0' })), 400, 3, -32020);
  await http.close();
});

test(
  'a claim of an unserved version with a matching header gets 400 -32022 with supported and requested',
  T,
  async (t) => {
    const http = await serve(t);
    const response = await post(http, modern('tools/list', {}, 4, { [PROTOCOL_VERSION]: 'v999.0.0' }), {
      'mcp-protocol-version': 'v999.0.0',
    });
    assertError(response, 400, 4, -32022, { supported: [MODERN], requested: 'v999.0.0' });
    await http.close();
  },
);

test('a modern header on a request without an envelope gets 400 -32602 naming both envelope keys', T, async (t) => {
  const http = await serve(t);
  for (const frame of [
    { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} },
    { jsonrpc: '2.0', id: 5, method: 'tools/list' },
    { jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: { progressToken: 1 } } },
  ]) {
    const response = await post(http, frame);
    assertError(response, 400, 5, -32602);
    assert.match(response.json.error.message, new RegExp(PROTOCOL_VERSION.replace('.', '\\.')));
    assert.match(response.json.error.message, new RegExp(CLIENT_CAPABILITIES.replace('.', '\\.')));
  }
  await http.close();
});

test('an enveloped request with a broken envelope gets 400 -32602 and never falls back to legacy', T, async (t) => {
  const http = await serve(t);
  const frame = { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION]: MODERN } } };
  assertError(await post(http, frame), 400, 6, -32602);
  assertError(await post(http, modern('tools/list', {}, 7, { [CLIENT_CAPABILITIES]: 'none' })), 400, 7, -32602);
  assertError(await post(http, modern('tools/list', {}, 8, { [LOG_LEVEL]: 'loud' })), 400, 8, -32602);
  assert.equal(http.handler.sessionCount, 0);
  await http.close();
});

test('a modern header on a notification without an envelope gets 202 and an empty body', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(response.status, 202);
  assert.equal(response.text, '');
  assert.equal(response.headers['mcp-session-id'], undefined);
  await http.close();
});

test('an unknown MCP-Protocol-Version on a request without a claim gets 400 -32600', T, async (t) => {
  const http = await serve(t);
  const response = await post(
    http,
    { jsonrpc: '2.0', id: 9, method: 'tools/list' },
    { 'mcp-protocol-version': '9999-01-01' },
  );
  assertAnswer(response, 400, errorFrame(9, -32600, 'Bad Request: unsupported MCP-Protocol-Version header'));
  await http.close();
});

test('an enveloped initialize gets 404 -32601 and never creates a session', T, async (t) => {
  const http = await serve(t);
  const frame = modern(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    1,
  );
  const response = await post(http, frame);
  assertError(response, 404, 1, -32601);
  assert.equal(http.handler.sessionCount, 0);
  // Without the header too: still refused as modern (-32020), never the legacy handshake.
  assertError(await post(http, frame, { 'mcp-protocol-version': undefined }), 400, 1, -32020);
  assert.equal(http.handler.sessionCount, 0);
  await http.close();
});

test('each method removed in 2026-07-28 gets 404 -32601 echoing the id when enveloped', T, async (t) => {
  const http = await serve(t);
  assert.deepEqual([...MODERN_REMOVED].sort(), [
    'initialize',
    'logging/setLevel',
    'ping',
    'resources/subscribe',
    'resources/unsubscribe',
  ]);
  const params: Record<string, Record<string, unknown>> = {
    initialize: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    'logging/setLevel': { level: 'debug' },
    'resources/subscribe': { uri: 'test://watched-resource' },
    'resources/unsubscribe': { uri: 'test://watched-resource' },
  };
  for (const [index, method] of [...MODERN_REMOVED].entries()) {
    const id = `removed-${index}`;
    const response = await post(http, modern(method, params[method] ?? {}, id));
    assertError(response, 404, id, -32601);
    assert.match(response.json.error.message, new RegExp(`'${method}'`));
  }
  assert.equal(http.handler.sessionCount, 0);
  await http.close();
});

test('an unknown method gets 404 -32601 echoing the id', T, async (t) => {
  const http = await serve(t);
  assertError(await post(http, modern('tools/explode', {}, 'u1')), 404, 'u1', -32601);
  assertError(await post(http, modern('tasks/list', {}, 'u2')), 404, 'u2', -32601);
  await http.close();
});

test('a client response POSTed with a modern header gets 400 -32600', T, async (t) => {
  const http = await serve(t);
  assertError(await post(http, { jsonrpc: '2.0', id: 1, result: {} }), 400, null, -32600);
  assertError(await post(http, { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }), 400, null, -32600);
  assert.equal(http.handler.sessionCount, 0);
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Required routing headers

test('Mcp-Method missing or different from the body method gets 400 -32020', T, async (t) => {
  const http = await serve(t);
  const frame = modern('tools/list', {}, 'm');
  assertError(await post(http, frame, { 'mcp-method': undefined }), 400, 'm', -32020);
  assertError(await post(http, frame, { 'mcp-method': 'prompts/list' }), 400, 'm', -32020);
  assertError(await post(http, frame, { 'mcp-method': 'Tools/List' }), 400, 'm', -32020);
  assertError(await post(http, frame, { 'mcp-method': ['tools/list', 'tools/list'] }), 400, 'm', -32020); // duplicated
  assert.equal((await post(http, frame, { 'mcp-method': ' tools/list ' })).status, 200); // surrounding whitespace is tolerated
  await http.close();
});

test(
  'Mcp-Name for tools/call, prompts/get and resources/read: missing or mismatched gets 400 -32020; sentinels decode',
  T,
  async (t) => {
    const http = await serve(t);
    const sentinel = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
    const cases: [Frame, string][] = [
      [call('test_simple_text', {}, 'n1'), 'test_simple_text'],
      [modern('prompts/get', { name: 'test_simple_prompt' }, 'n2'), 'test_simple_prompt'],
      [modern('resources/read', { uri: 'test://static-text' }, 'n3'), 'test://static-text'],
    ];
    for (const [frame, name] of cases) {
      assertError(await post(http, frame, { 'mcp-name': undefined }), 400, frame.id, -32020);
      assertError(await post(http, frame, { 'mcp-name': `${name}x` }), 400, frame.id, -32020);
      assertError(await post(http, frame, { 'mcp-name': name.toUpperCase() }), 400, frame.id, -32020);
      assertError(await post(http, frame, { 'mcp-name': sentinel(`${name}x`) }), 400, frame.id, -32020);
      assertError(await post(http, frame, { 'mcp-name': '=?base64?not*base64?=' }), 400, frame.id, -32020);
      const plain = await post(http, frame, { 'mcp-name': name });
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.json.result.resultType, 'complete');
      const encoded = await post(http, frame, { 'mcp-name': sentinel(name) });
      assert.equal(encoded.status, 200, encoded.text);
      assert.deepEqual(encoded.json, plain.json);
    }
    await http.close();
  },
);

test('Mcp-Param-* headers for x-mcp-header arguments: present, missing, mismatched, undeclared', T, async (t) => {
  const seen: unknown[] = [];
  const { server } = customServer((s) =>
    s.tool(
      'execute_sql',
      {
        inputSchema: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            limit: { type: 'integer', 'x-mcp-header': 'Limit' },
            dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
            query: { type: 'string' },
          },
          required: ['query'],
        },
      },
      (args) => {
        seen.push(args);
        return text('ok');
      },
    ),
  );
  const http = await serve(t, server);
  const sql = (args: Record<string, unknown>, id: Id) => call('execute_sql', { query: 'SELECT 1', ...args }, id);
  const ok = async (frame: Frame, headers: Headers) => {
    const response = await post(http, frame, headers);
    assertAnswer(response, 200, { jsonrpc: '2.0', id: frame.id, result: stamped(text('ok'), INFO) });
  };
  await ok(sql({ region: 'us-west1' }, 1), { 'mcp-param-region': 'us-west1' });
  await ok(sql({ region: 'Hello, 世界' }, 2), { 'mcp-param-region': encodeHeaderValue('Hello, 世界') });
  assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
  await ok(sql({ region: ' padded ' }, 3), { 'mcp-param-region': '=?base64?IHBhZGRlZCA=?=' });
  await ok(sql({ limit: 42, dryRun: false }, 4), { 'mcp-param-limit': '42.0', 'mcp-param-dry-run': 'false' });
  await ok(sql({}, 5), { 'mcp-param-other': 'ignored' }); // undeclared: ignored
  await ok(sql({ region: 'eu' }, 6), { 'mcp-param-region': 'eu', 'mcp-param-query': 'anything' }); // query declares no header
  assert.equal(seen.length, 6);

  const refused: [Frame, Headers][] = [
    [sql({ region: 'us-west1' }, 'r1'), {}], // missing while the body holds the value
    [sql({ region: 'us-west1' }, 'r2'), { 'mcp-param-region': 'us-east1' }], // mismatched
    [sql({ region: 'us-west1' }, 'r3'), { 'mcp-param-region': 'US-WEST1' }], // values are case-sensitive
    [sql({ region: 'Hello, 世界' }, 'r4'), { 'mcp-param-region': '=?base64?SGVsbG8=?=' }], // decodes to something else
    [sql({}, 'r5'), { 'mcp-param-region': 'us-west1' }], // present while the argument is absent
    [sql({ region: null }, 'r6'), { 'mcp-param-region': 'null' }], // present while the argument is null
    [sql({ limit: 42 }, 'r7'), { 'mcp-param-limit': '43' }],
    [sql({ dryRun: true }, 'r8'), { 'mcp-param-dry-run': 'yes' }],
  ];
  for (const [frame, headers] of refused) {
    assertError(await post(http, frame, headers), 400, frame.id, -32020);
  }
  assert.equal(seen.length, 6, 'no refused call reached the handler');
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Status mapping

test('a missing client capability gets 400 -32021 with data.requiredCapabilities', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, call('test_missing_capability', {}, 'cap'));
  assertAnswer(
    response,
    400,
    errorFrame('cap', -32021, response.json.error.message, { requiredCapabilities: { sampling: {} } }),
  );
  const granted = await post(
    http,
    call('test_missing_capability', {}, 'cap2', { [CLIENT_CAPABILITIES]: { sampling: {} } }),
  );
  assertAnswer(granted, 200, { jsonrpc: '2.0', id: 'cap2', result: stamped(text('Success')) });
  await http.close();
});

test('an unknown tool is answered in-band at 200 with -32602', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, call('no_such_tool', {}, 'ut'));
  assertError(response, 200, 'ut', -32602);
  await http.close();
});

test('an unknown resource is answered in-band at 200 with -32602 and data.uri', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, modern('resources/read', { uri: 'test://missing' }, 'rr'));
  assertError(response, 200, 'rr', -32602, { uri: 'test://missing' });
  await http.close();
});

test(
  'handler failures are in-band at 200: isError for a tool, -32603 for a resource; no exception text leaks',
  T,
  async (t) => {
    const { server, logger } = customServer((s) => {
      s.tool('explode', {}, () => {
        throw new Error('secret tool detail');
      });
      s.resource('test://explode', { name: 'explode' }, () => {
        throw new Error('secret resource detail');
      });
    });
    const http = await serve(t, server);
    const tool = await post(http, call('explode', {}, 'h1'));
    assert.equal(tool.status, 200);
    assert.equal(tool.json.id, 'h1');
    assert.equal(tool.json.result.isError, true);
    assert.equal(tool.json.result.resultType, 'complete');
    const resource = await post(http, modern('resources/read', { uri: 'test://explode' }, 'h2'));
    assertError(resource, 200, 'h2', -32603);
    assert.doesNotMatch(tool.text + resource.text, /secret/);
    assert.equal(logger.errors.length, 2);
    await http.close();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Responses: JSON, or SSE when something precedes the answer

test('a plain request is answered with application/json carrying resultType and the serverInfo stamp', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, call('test_simple_text', {}, 'p'), { 'mcp-session-id': 'ignored-session' });
  assertAnswer(response, 200, {
    jsonrpc: '2.0',
    id: 'p',
    result: stamped(text('This is a simple text response for testing.')),
  });
  const discover = await post(http, DISCOVER);
  assert.equal(discover.status, 200);
  assert.equal(discover.json.result.resultType, 'complete');
  assert.deepEqual(discover.json.result.supportedVersions, [MODERN]);
  assert.deepEqual(discover.json.result._meta[SERVER_INFO], EVERYTHING_INFO);
  await http.close();
});

test(
  'a request whose handler reports progress streams SSE: progress events, then the result last, then the end',
  T,
  async (t) => {
    const http = await serve(t);
    const frame = call('test_tool_with_progress', {}, 7, { progressToken: 'p1' });
    const response = await fetchModern(http, frame);
    assertSseHeaders(response);
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
    // Without a progressToken nothing precedes the answer: plain JSON.
    const quiet = await post(http, call('test_tool_with_progress', {}, 8));
    assertAnswer(quiet, 200, { jsonrpc: '2.0', id: 8, result: stamped(text('Progress completed')) });
    await http.close();
  },
);

test('a request that cannot take SSE still gets its JSON answer; related notifications are dropped', T, async (t) => {
  const http = await serve(t);
  const response = await post(http, call('test_tool_with_progress', {}, 9, { progressToken: 'p' }), {
    accept: 'application/json',
  });
  assertAnswer(response, 200, { jsonrpc: '2.0', id: 9, result: stamped(text('Progress completed')) });
  assertError(await post(http, DISCOVER, { accept: 'text/html' }), 406, 'd1', -32600);
  assert.equal((await post(http, DISCOVER, { accept: '*/*' })).status, 200);
  await http.close();
});

test('a request accepting only text/event-stream gets even a plain answer as a one-event stream', T, async (t) => {
  const http = await serve(t);
  const response = await fetchModern(http, call('test_simple_text', {}, 'sse-only'), { accept: 'text/event-stream' });
  assertSseHeaders(response);
  assert.deepEqual(
    (await new SseReader(response.body!).rest()).map((event) => event.message),
    [{ jsonrpc: '2.0', id: 'sse-only', result: stamped(text('This is a simple text response for testing.')) }],
  );
  // Mapped error statuses are kept (a JSON error body at 404 / 400).
  const unknown = await fetchModern(http, modern('tools/explode', {}, 'x'), { accept: 'text/event-stream' });
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as Frame).error.code, -32601);
  await http.close();
});

test('log messages are sent only under the request logLevel, and switch the answer to SSE', T, async (t) => {
  const http = await serve(t);
  const silent = await post(http, call('test_logging_tool', {}, 'l1'));
  assertAnswer(silent, 200, { jsonrpc: '2.0', id: 'l1', result: stamped(text('Logging evaluated')) });
  const above = await post(http, call('test_logging_tool', {}, 'l2', { [LOG_LEVEL]: 'error' }));
  assertAnswer(above, 200, { jsonrpc: '2.0', id: 'l2', result: stamped(text('Logging evaluated')) });
  const response = await fetchModern(http, call('test_logging_tool', {}, 'l3', { [LOG_LEVEL]: 'info' }));
  assertSseHeaders(response);
  assert.deepEqual(
    (await new SseReader(response.body!).rest()).map((event) => event.message),
    [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'Logging tool evaluated' } },
      { jsonrpc: '2.0', id: 'l3', result: stamped(text('Logging evaluated')) },
    ],
  );
  await http.close();
});

test('a modern notification POST gets 202 with an empty body and no session id', T, async (t) => {
  const http = await serve(t);
  for (const frame of [
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: envelope() } },
  ]) {
    const response = await post(http, frame);
    assert.equal(response.status, 202);
    assert.equal(response.text, '');
    assert.equal(response.headers['mcp-session-id'], undefined);
  }
  // A broken claim on a notification is refused with id null.
  const broken = {
    jsonrpc: '2.0',
    method: 'notifications/initialized',
    params: { _meta: { [PROTOCOL_VERSION]: MODERN } },
  };
  assertError(await post(http, broken), 400, null, -32602);
  const unserved = {
    jsonrpc: '2.0',
    method: 'notifications/initialized',
    params: { _meta: envelope({ [PROTOCOL_VERSION]: 'v999.0.0' }) },
  };
  assertError(await post(http, unserved, { 'mcp-protocol-version': 'v999.0.0' }), 400, null, -32022);
  assertError(await post(http, unserved), 400, null, -32020);
  assert.equal(http.handler.sessionCount, 0);
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Client disconnect is cancellation

function slowServer() {
  const started = deferred();
  const aborted = deferred();
  const release = deferred();
  const { server, logger } = customServer((s) => {
    s.tool('slow', {}, async (_args, ctx) => {
      if (ctx.signal.aborted) aborted.resolve();
      else ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
      started.resolve();
      await aborted.promise;
      await release.promise;
      return text('late answer'); // ignores its cancellation: the core must not write this
    });
    s.tool('slow_progress', {}, async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(), { once: true });
      ctx.progress(1, 2, 'half way');
      started.resolve();
      await aborted.promise;
      ctx.progress(2, 2, 'after the disconnect');
      await release.promise;
      return text('late answer');
    });
  });
  return { server, logger, started, aborted, release };
}

test(
  'a client disconnect during a JSON-phase request aborts the handler; nothing is written after; the server stays healthy',
  T,
  async (t) => {
    const { server, started, aborted, release } = slowServer();
    const http = await serve(t, server);
    const exchanges = watchExchanges(http.httpServer);
    const controller = new AbortController();
    const pending = fetchModern(http, call('slow', {}, 's1'), { 'x-test': 's1' }, controller.signal);
    await started.promise;
    assert.equal(server.metrics().connections, 1);
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await aborted.promise; // the handler's AbortSignal fired
    await exchanges.closed('s1');
    assert.equal(server.metrics().connections, 0, 'the request connection is closed with the exchange');
    release.resolve(); // the handler now returns its late answer
    const next = await post(http, call('test_simple_text', {}, 's2'));
    assert.equal(next.status, 200);
    assert.equal(next.json.id, 's2');
    assert.deepEqual(exchanges.lateWrites, []);
    assert.equal(server.metrics().connections, 0);
    await http.close();
  },
);

test('a client disconnect during an SSE response aborts the handler; nothing is written after', T, async (t) => {
  const { server, started, aborted, release } = slowServer();
  const http = await serve(t, server);
  const exchanges = watchExchanges(http.httpServer);
  const response = await fetchModern(http, call('slow_progress', {}, 's3', { progressToken: 'tok' }), {
    'x-test': 's3',
  });
  assertSseHeaders(response);
  const reader = new SseReader(response.body!);
  assert.deepEqual((await reader.next())?.message, {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'tok', progress: 1, total: 2, message: 'half way' },
  });
  await started.promise;
  await reader.cancel(); // the client goes away
  await aborted.promise;
  await exchanges.closed('s3');
  release.resolve();
  const next = await post(http, call('test_simple_text', {}, 's4'));
  assert.equal(next.status, 200);
  assert.deepEqual(exchanges.lateWrites, []);
  assert.equal(server.metrics().connections, 0);
  await http.close();
});

// ---------------------------------------------------------------------------------------------------------------
// subscriptions/listen over SSE

function listen(id: Id, notifications: Record<string, unknown>): Frame {
  return modern('subscriptions/listen', { notifications }, id);
}

test('a listen streams over SSE: the ack first, then tagged events triggered by other POSTs', T, async (t) => {
  const http = await serve(t);
  const response = await fetchModern(http, listen('L1', { toolsListChanged: true, promptsListChanged: true }));
  assertSseHeaders(response);
  const reader = new SseReader(response.body!);
  const ack = await reader.next();
  assert.equal(ack?.event, 'message');
  assert.deepEqual(ack?.message, {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' }, notifications: { toolsListChanged: true, promptsListChanged: true } },
  });
  const trigger = await post(http, call('test_trigger_tool_change', {}, 'trig'));
  assertAnswer(trigger, 200, { jsonrpc: '2.0', id: 'trig', result: stamped(text('Mutation triggered')) });
  assert.deepEqual((await reader.next())?.message, {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' } },
  });
  await post(http, call('test_trigger_prompt_change', {}, 'trig2'));
  assert.deepEqual((await reader.next())?.message, {
    jsonrpc: '2.0',
    method: 'notifications/prompts/list_changed',
    params: { _meta: { [SUBSCRIPTION_ID]: 'L1' } },
  });
  await reader.cancel();
  await http.close();
});

test("an open listen's request holds none of the body reader's listeners", T, async (t) => {
  // A stream keeps its request for its life: the listeners come off when it opens (http.ts, readBody), where a JSON
  // answer releases the request with them.
  const http = await serve(t);
  const requests: IncomingMessage[] = [];
  http.httpServer.on('request', (request: IncomingMessage) => requests.push(request));
  const response = await fetchModern(http, listen('L9', { toolsListChanged: true }));
  assertSseHeaders(response);
  const reader = new SseReader(response.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual(
    ['data', 'end', 'error'].map((event) => requests[0]!.listenerCount(event)),
    [0, 0, 0],
  );
  await reader.cancel();
  await http.close();
});

test('a listen whose Accept does not admit text/event-stream gets 406', T, async (t) => {
  const http = await serve(t);
  assertError(
    await post(http, listen('L2', { toolsListChanged: true }), { accept: 'application/json' }),
    406,
    'L2',
    -32600,
  );
  const wildcard = await fetchModern(http, listen('L3', { toolsListChanged: true }), { accept: 'text/*' });
  assertSseHeaders(wildcard);
  const reader = new SseReader(wildcard.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
  await reader.cancel();
  await http.close();
});

test('closing a listen response releases its stream; a later trigger still succeeds', T, async (t) => {
  const server = createEverythingServer();
  const http = await serve(t, server);
  const exchanges = watchExchanges(http.httpServer);
  const response = await fetchModern(http, listen('L4', { toolsListChanged: true }), { 'x-test': 'L4' });
  const reader = new SseReader(response.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
  assert.equal(server.metrics().connections, 1);
  await reader.cancel();
  await exchanges.closed('L4');
  assert.equal(server.metrics().connections, 0, 'the listen connection is released with its response');
  const trigger = await post(http, call('test_trigger_tool_change', {}, 'after'));
  assertAnswer(trigger, 200, { jsonrpc: '2.0', id: 'after', result: stamped(text('Mutation triggered')) });
  assert.deepEqual(exchanges.lateWrites, []);
  await http.close();
});

test('maxStreams caps open listens (503 echoing the id); closing one makes room', T, async (t) => {
  const http = await serve(t, createEverythingServer(), { maxStreams: 1 });
  const exchanges = watchExchanges(http.httpServer);
  const first = await fetchModern(http, listen('S1', { toolsListChanged: true }), { 'x-test': 'S1' });
  const reader = new SseReader(first.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
  assertError(await post(http, listen('S2', { toolsListChanged: true })), 503, 'S2', -32603);
  // Plain requests are not streams and are not capped.
  assert.equal((await post(http, call('test_simple_text', {}, 'plain'))).status, 200);
  await reader.cancel();
  await exchanges.closed('S1');
  const again = await fetchModern(http, listen('S3', { toolsListChanged: true }));
  const againReader = new SseReader(again.body!);
  assert.equal((await againReader.next())?.message.params._meta[SUBSCRIPTION_ID], 'S3');
  await againReader.cancel();
  await http.close();
});

test('closing the HTTP server ends an open listen stream with its final result', T, async (t) => {
  const http = await serve(t);
  const response = await fetchModern(http, listen('L5', { toolsListChanged: true }));
  const reader = new SseReader(response.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/subscriptions/acknowledged');
  const closing = http.close();
  const rest = await reader.rest();
  assert.deepEqual(
    rest.map((event) => event.message),
    [
      {
        jsonrpc: '2.0',
        id: 'L5',
        result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'L5', [SERVER_INFO]: EVERYTHING_INFO } },
      },
    ],
  );
  await closing;
});

test('closing the HTTP server aborts a running request and answers it 503 -32603 with its id', T, async (t) => {
  const { server, started, aborted, release } = slowServer();
  const http = await serve(t, server);
  const pending = post(http, call('slow', {}, 'c1'));
  await started.promise;
  const closing = http.close();
  await aborted.promise;
  assertError(await pending, 503, 'c1', -32603);
  release.resolve();
  await closing;
  assert.equal(server.metrics().connections, 0);
});

test('closing the HTTP server ends a running SSE response without a final event', T, async (t) => {
  const { server, started, aborted, release } = slowServer();
  const http = await serve(t, server);
  const response = await fetchModern(http, call('slow_progress', {}, 'c2', { progressToken: 'tok' }));
  const reader = new SseReader(response.body!);
  assert.equal((await reader.next())?.message.method, 'notifications/progress');
  await started.promise;
  const closing = http.close();
  await aborted.promise;
  release.resolve();
  assert.deepEqual(await reader.rest(), []);
  await closing;
  assert.equal(server.metrics().connections, 0);
});

// ---------------------------------------------------------------------------------------------------------------
// Both eras on one endpoint

test('a legacy initialize and session work beside modern requests on the same endpoint', T, async (t) => {
  const http = await serve(t);
  const legacyHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await raw(http.url, {
    headers: legacyHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
    }),
  });
  assert.equal(init.status, 200, init.text);
  const sessionId = init.headers['mcp-session-id'];
  assert.equal(typeof sessionId, 'string');
  const initFrame =
    init.headers['content-type'] === 'text/event-stream'
      ? JSON.parse(
          init.text
            .split('\n')
            .find((line) => line.startsWith('data: {'))!
            .slice(6),
        )
      : init.json;
  assert.equal(initFrame.result.protocolVersion, '2025-11-25');
  assert.equal(http.handler.sessionCount, 1);

  const modernList = await post(http, modern('tools/list', {}, 'm1'));
  assert.equal(modernList.status, 200);
  assert.equal(modernList.json.result.resultType, 'complete');
  assert.equal(modernList.headers['mcp-session-id'], undefined);

  const sessionHeaders = {
    ...legacyHeaders,
    'mcp-session-id': sessionId as string,
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = await raw(http.url, {
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  const legacyList = await raw(http.url, {
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.equal(legacyList.status, 200, legacyList.text);
  const legacyFrame =
    legacyList.headers['content-type'] === 'text/event-stream'
      ? JSON.parse(
          legacyList.text
            .split('\n')
            .find((line) => line.startsWith('data: {'))!
            .slice(6),
        )
      : legacyList.json;
  assert.equal(legacyFrame.id, 2);
  assert.equal(legacyFrame.result.resultType, undefined, 'a legacy result carries no modern stamp');
  assert.ok(Array.isArray(legacyFrame.result.tools));
  // The modern-only tools are not offered to the legacy session, and legacy-only ones not to modern clients.
  const legacyNames = new Set(legacyFrame.result.tools.map((tool: { name: string }) => tool.name));
  const modernNames = new Set(modernList.json.result.tools.map((tool: { name: string }) => tool.name));
  assert.equal(legacyNames.has('test_missing_capability'), false);
  assert.equal(modernNames.has('test_missing_capability'), true);
  assert.equal(http.handler.sessionCount, 1);
  await http.close();
});
