// Mounting the node:http handler inside other frameworks, over real loopback sockets: a body an express-style
// middleware already parsed (object, array, string, Buffer; the fastify-style third argument), the HTTP request's
// headers and remote address in the handler context (per POST, also inside one 2025 session), and the CORS option
// (preflight, allowed headers, Allow-Origin and Expose-Headers on every answer, the Origin and Host checks).
// The middleware is a few hand-written lines: no express dependency.
//
// Determinism: every wait is on an explicit signal (a deferred resolved inside a handler, or a response); nothing
// sleeps and nothing asserts on time.

import assert from 'node:assert/strict';
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestContext, test } from 'node:test';
import { type Context, createServer, type Server } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { createHttpHandler, type HttpOptions, serveHttp } from '../http.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { type RawResponse, raw } from './raw-http.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const MODERN = '2026-07-28';
const LATEST = '2025-11-25';
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = { name: 'http-interop-test', version: '1.0.0' };
const BOTH = 'application/json, text/event-stream';
const APP = 'https://app.example.com';

type Id = string | number;
type Headers = Record<string, string>;

function modern(method: string, params: Record<string, unknown>, id: Id, meta: Record<string, unknown> = {}): Frame {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: MODERN, [CAPS]: {}, ...meta } } };
}

function legacy(id: Id | undefined, method: string, params?: Record<string, unknown>): Frame {
  const frame: Frame = { jsonrpc: '2.0', method };
  if (id !== undefined) frame.id = id;
  if (params !== undefined) frame.params = params;
  return frame;
}

function headersFor(frame: Frame, extra: Headers = {}): Headers {
  const headers: Headers = { 'content-type': 'application/json', accept: BOTH };
  if (!Array.isArray(frame) && frame.params?._meta?.[PV] !== undefined) {
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = frame.method;
    if (frame.method === 'tools/call') headers['mcp-name'] = frame.params.name;
  }
  return { ...headers, ...extra };
}

function post(url: string, frame: Frame, extra: Headers = {}): Promise<RawResponse> {
  return raw(url, {
    headers: headersFor(frame, extra),
    body: typeof frame === 'string' ? frame : JSON.stringify(frame),
  });
}

/** The one SSE event's data of a (short, complete) SSE body. */
function sseData(text: string): Frame[] {
  return text.split('\n\n').flatMap((block) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n');
    return data === '' ? [] : [JSON.parse(data)];
  });
}

// ---------------------------------------------------------------------------------------------------------------
// A tiny express-like app: middleware run in order, each calling next()

type Request = IncomingMessage & { body?: unknown };
type Middleware = (request: Request, response: ServerResponse, next: () => void) => void;

/** Reads the whole body and hands it to `parse` (express.json()/text()/raw() in a few lines). */
function bodyParser(parse: (bytes: Buffer) => unknown): Middleware {
  return (request, _response, next) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST') request.body = parse(Buffer.concat(chunks));
      next();
    });
  };
}

const jsonParser = bodyParser((bytes) => JSON.parse(bytes.toString('utf8')));
const textParser = bodyParser((bytes) => bytes.toString('utf8'));
const rawParser = bodyParser((bytes) => bytes);

async function mount(t: TestContext, stack: Middleware[], last: Middleware): Promise<string> {
  const node = createNodeServer((request, response) => {
    const chain = [...stack, last];
    const run = (index: number): void => chain[index]!(request, response, () => run(index + 1));
    run(0);
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        node.closeAllConnections();
        node.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`;
}

/** Mounts the MCP handler express-style (it gets `next` as its third argument) behind `stack`. */
async function mountHandler(
  t: TestContext,
  server: Server,
  stack: Middleware[],
  options: HttpOptions = {},
): Promise<string> {
  const handler = createHttpHandler(server, { keepAliveMs: 0, ...options });
  t.after(() => handler.close());
  return mount(t, stack, (request, response, next) => handler(request, response, next));
}

function quietServer(register: (server: Server) => void = () => {}): Server {
  const server = createServer(INFO, { logger: new MemoryLogger() });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { say: { type: 'string' } } } },
    (args: { say?: string }) => ({ content: [{ type: 'text', text: args.say ?? '' }] }),
  );
  register(server);
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies a framework already parsed

test('a body parsed by express.json()-style middleware serves modern requests and a 2025 session', T, async (t) => {
  const url = await mountHandler(t, quietServer(), [jsonParser]);
  const called = await post(url, modern('tools/call', { name: 'echo', arguments: { say: 'hi' } }, 1));
  assert.equal(called.status, 200, called.text);
  assert.deepEqual(called.json.result.content, [{ type: 'text', text: 'hi' }]);

  const initialize = await post(
    url,
    legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO }),
  );
  assert.equal(initialize.status, 200, initialize.text);
  assert.equal(initialize.json.result.protocolVersion, LATEST);
  const sessionId = initialize.headers['mcp-session-id'] as string;
  assert.ok(sessionId !== undefined);
  const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST };
  assert.equal((await post(url, legacy(undefined, 'notifications/initialized'), session)).status, 202);
  const echoed = await post(url, legacy(2, 'tools/call', { name: 'echo', arguments: { say: 'again' } }), session);
  assert.deepEqual(echoed.json, { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'again' }] } });
});

test('a parsed JSON array is served as a batch (stateless 2025-03-26)', T, async (t) => {
  const url = await mountHandler(t, quietServer(), [jsonParser], { sessions: false });
  const response = await post(url, [legacy(1, 'ping'), legacy(2, 'ping')], { 'mcp-protocol-version': '2025-03-26' });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(response.json, [
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', id: 2, result: {} },
  ]);
});

test(
  'the parsed body is what is served, not the request stream (which the middleware already consumed)',
  T,
  async (t) => {
    const rewrite: Middleware = (request, _response, next) => {
      request.body = legacy('parsed', 'ping'); // the stream said id 'raw'
      next();
    };
    const url = await mountHandler(t, quietServer(), [jsonParser, rewrite], { sessions: false });
    const response = await post(url, legacy('raw', 'ping'));
    assert.deepEqual(response.json, { jsonrpc: '2.0', id: 'parsed', result: {} });
  },
);

test(
  'a string or Buffer body is held to maxBodyBytes (413) and parsed by the handler (400 -32700 when not JSON)',
  T,
  async (t) => {
    const frame = modern('tools/call', { name: 'echo', arguments: { say: 'x' } }, 1);
    const size = Buffer.byteLength(JSON.stringify(frame));
    for (const [name, parser] of [
      ['text', textParser],
      ['raw', rawParser],
    ] as const) {
      const url = await mountHandler(t, quietServer(), [parser], { maxBodyBytes: size });
      const fits = await post(url, frame);
      assert.equal(fits.status, 200, `${name}: ${fits.text}`);
      assert.deepEqual(fits.json.result.content, [{ type: 'text', text: 'x' }], name);
      const over = modern('tools/call', { name: 'echo', arguments: { say: 'xy' } }, 2);
      const refused = await post(url, over);
      assert.equal(refused.status, 413, name);
      assert.deepEqual(
        refused.json,
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Payload Too Large' } },
        name,
      );
      const garbage = await post(url, '{"jsonrpc":', headersFor(frame));
      assert.equal(garbage.status, 400, name);
      assert.equal(garbage.json.error.code, -32700, name);
    }
    // Multi-byte text is counted in bytes, not characters.
    const wide = modern('tools/call', { name: 'echo', arguments: { say: 'é' } }, 3);
    const url = await mountHandler(t, quietServer(), [textParser], { maxBodyBytes: JSON.stringify(wide).length });
    assert.equal((await post(url, wide)).status, 413);
  },
);

test(
  'a body passed as the third argument (fastify style) wins over request.body; a function there is next()',
  T,
  async (t) => {
    const handler = createHttpHandler(quietServer(), { keepAliveMs: 0, sessions: false });
    t.after(() => handler.close());
    let nextCalled = false;
    const url = await mount(t, [jsonParser], (request, response) => {
      if (request.headers['x-style'] === 'fastify') handler(request, response, legacy('third', 'ping'));
      else handler(request, response, () => (nextCalled = true));
    });
    assert.deepEqual((await post(url, legacy('stream', 'ping'), { 'x-style': 'fastify' })).json, {
      jsonrpc: '2.0',
      id: 'third',
      result: {},
    });
    assert.deepEqual((await post(url, legacy('stream', 'ping'), { 'x-style': 'express' })).json, {
      jsonrpc: '2.0',
      id: 'stream',
      result: {},
    });
    assert.equal(nextCalled, false);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The HTTP request in the handler context

function whoamiServer() {
  const inFlight = deferred();
  const release = deferred();
  const server = quietServer((s) => {
    const seen = (ctx: Context) => ({
      content: [
        {
          type: 'text' as const,
          text: JSON.stringify({
            tag: ctx.http?.headers['x-tag'] ?? null,
            remoteAddress: ctx.http?.remoteAddress ?? null,
          }),
        },
      ],
    });
    s.tool('whoami', {}, (_args, ctx) => seen(ctx));
    s.tool('whoami_later', {}, async (_args, ctx) => {
      inFlight.resolve();
      await release.promise;
      return seen(ctx);
    });
  });
  return { server, inFlight, release };
}

function seenBy(response: RawResponse): { tag: string | null; remoteAddress: string | null } {
  return JSON.parse(response.json.result.content[0].text);
}

test(
  'handlers see the HTTP request headers and remote address in ctx.http: modern, stateless 2025, and stdio (none)',
  T,
  async (t) => {
    const { server } = whoamiServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, sessions: false });
    t.after(() => http.close());
    const modernCall = await post(http.url, modern('tools/call', { name: 'whoami', arguments: {} }, 1), {
      'x-tag': 'modern',
    });
    assert.deepEqual(seenBy(modernCall), { tag: 'modern', remoteAddress: '127.0.0.1' });
    const legacyCall = await post(http.url, legacy(2, 'tools/call', { name: 'whoami', arguments: {} }), {
      'x-tag': 'stateless',
    });
    assert.deepEqual(seenBy(legacyCall), { tag: 'stateless', remoteAddress: '127.0.0.1' });
    const client = new WireClient(server);
    await client.initialize();
    const overStdio = await client.request('tools/call', { name: 'whoami', arguments: {} });
    assert.deepEqual(JSON.parse(overStdio.result.content[0].text), { tag: null, remoteAddress: null });
    await client.end();
  },
);

test(
  'inside one 2025 session each request sees the POST that carried it, even while another is in flight',
  T,
  async (t) => {
    const { server, inFlight, release } = whoamiServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    t.after(() => http.close());
    const initialize = await post(
      http.url,
      legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO }),
      { 'x-tag': 'init' },
    );
    const session = {
      'mcp-session-id': initialize.headers['mcp-session-id'] as string,
      'mcp-protocol-version': LATEST,
    };
    await post(http.url, legacy(undefined, 'notifications/initialized'), session);
    const first = post(http.url, legacy(1, 'tools/call', { name: 'whoami_later', arguments: {} }), {
      ...session,
      'x-tag': 'first',
    });
    await inFlight.promise;
    const second = await post(http.url, legacy(2, 'tools/call', { name: 'whoami', arguments: {} }), {
      ...session,
      'x-tag': 'second',
    });
    assert.equal(seenBy(second).tag, 'second');
    release.resolve();
    assert.equal(seenBy(await first).tag, 'first', 'a later POST does not change what an earlier request sees');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// CORS

const PREFLIGHT = { origin: APP, 'access-control-request-method': 'POST' };

async function serveCors(t: TestContext, cors: HttpOptions['cors'], server: Server = createEverythingServer()) {
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, cors });
  t.after(() => http.close());
  return http;
}

function assertCors(response: RawResponse, origin: string, what: string): void {
  assert.equal(response.headers['access-control-allow-origin'], origin, what);
  assert.equal(response.headers['access-control-expose-headers'], 'Mcp-Session-Id', what);
  assert.equal(response.headers.vary, 'Origin', what);
}

test(
  'a CORS preflight gets 204 allowing the methods, the MCP request headers, the Mcp-Param-* it asks for, and a max age',
  T,
  async (t) => {
    const http = await serveCors(t, { origins: [APP], maxAgeSeconds: 300 });
    const response = await raw(http.url, {
      method: 'OPTIONS',
      headers: {
        ...PREFLIGHT,
        'access-control-request-headers': 'content-type, Mcp-Param-Region, mcp-param-region, x-evil, mcp-method',
      },
    });
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    assertCors(response, APP, 'preflight');
    assert.equal(response.headers['access-control-allow-methods'], 'GET, POST, DELETE, OPTIONS');
    assert.equal(
      response.headers['access-control-allow-headers'],
      'content-type, accept, authorization, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id, mcp-param-region',
    );
    assert.equal(response.headers['access-control-max-age'], '300');
    // Without maxAgeSeconds: ten minutes.
    const defaults = await serveCors(t, { origins: [APP] });
    assert.equal(
      (await raw(defaults.url, { method: 'OPTIONS', headers: PREFLIGHT })).headers['access-control-max-age'],
      '600',
    );
  },
);

test(
  'a preflight from an origin CORS does not list is refused 403; without the cors option OPTIONS is 405',
  T,
  async (t) => {
    const http = await serveCors(t, { origins: [APP] });
    const foreign = await raw(http.url, {
      method: 'OPTIONS',
      headers: { ...PREFLIGHT, origin: 'https://evil.example.com' },
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    // A localhost origin passes the Origin check but is not a CORS origin: 204 without any Access-Control-* grant.
    const local = await raw(http.url, {
      method: 'OPTIONS',
      headers: { ...PREFLIGHT, origin: 'http://localhost:5173' },
    });
    assert.equal(local.status, 204);
    assert.equal(local.headers['access-control-allow-origin'], undefined);
    assert.equal(local.headers['access-control-allow-headers'], undefined);
    const plain = await serveHttp(createEverythingServer(), { port: 0, keepAliveMs: 0 });
    t.after(() => plain.close());
    const refused = await raw(plain.url, {
      method: 'OPTIONS',
      headers: { ...PREFLIGHT, origin: 'http://localhost:5173' },
    });
    assert.equal(refused.status, 405);
    assert.equal(
      (await raw(plain.url, { method: 'OPTIONS', headers: PREFLIGHT })).status,
      403,
      'and the Origin check is unchanged',
    );
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
  },
);

test(
  'answers to a CORS origin carry Allow-Origin and expose Mcp-Session-Id: JSON, SSE, a session, refusals',
  T,
  async (t) => {
    const server = quietServer((s) =>
      s.tool('progressing', {}, (_args, ctx) => {
        ctx.progress(1, 1);
        return { content: [] };
      }),
    );
    const http = await serveCors(t, { origins: [APP] }, server);
    const discover = await post(http.url, modern('server/discover', {}, 1), { origin: APP });
    assert.equal(discover.status, 200, 'a CORS origin passes the Origin check');
    assertCors(discover, APP, 'JSON');
    const streamed = await post(
      http.url,
      modern('tools/call', { name: 'progressing', arguments: {} }, 2, { progressToken: 'p' }),
      { origin: APP },
    );
    assert.equal(streamed.headers['content-type'], 'text/event-stream');
    assertCors(streamed, APP, 'SSE');
    assert.equal(sseData(streamed.text).at(-1).id, 2);
    const initialize = await post(
      http.url,
      legacy(0, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: INFO }),
      { origin: APP },
    );
    assert.ok(initialize.headers['mcp-session-id'] !== undefined);
    assertCors(initialize, APP, 'initialize');
    const accepted = await post(http.url, legacy(undefined, 'notifications/initialized'), {
      origin: APP,
      'mcp-session-id': initialize.headers['mcp-session-id'] as string,
    });
    assert.equal(accepted.status, 202);
    assertCors(accepted, APP, '202');
    const unsupported = await post(http.url, modern('server/discover', {}, 3), {
      origin: APP,
      'content-type': 'text/plain',
    });
    assert.equal(unsupported.status, 415);
    assertCors(unsupported, APP, '415: a browser can read why');
    // The Host check still applies to CORS origins (DNS rebinding).
    const rebound = await post(http.url, modern('server/discover', {}, 4), { origin: APP, host: 'evil.example.com' });
    assert.equal(rebound.status, 421);
    // Other origins: no grant; a foreign one is refused, a localhost one served without CORS headers.
    assert.equal(
      (await post(http.url, modern('server/discover', {}, 5), { origin: 'https://evil.example.com' })).status,
      403,
    );
    const local = await post(http.url, modern('server/discover', {}, 6), { origin: 'http://localhost:5173' });
    assert.equal(local.status, 200);
    assert.equal(local.headers['access-control-allow-origin'], undefined);
  },
);

test('cors origins "*" grant any origin its own origin back', T, async (t) => {
  const http = await serveCors(t, { origins: '*' });
  for (const origin of ['https://one.example.com', 'http://two.example.org:8080']) {
    const preflight = await raw(http.url, { method: 'OPTIONS', headers: { ...PREFLIGHT, origin } });
    assert.equal(preflight.status, 204);
    assertCors(preflight, origin, 'preflight');
    const answer = await post(http.url, modern('server/discover', {}, 1), { origin });
    assert.equal(answer.status, 200);
    assertCors(answer, origin, 'answer');
  }
});
