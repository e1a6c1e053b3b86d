// The recipes of docs/api.md (Recipes: middleware and visibility), as examples/recipes.ts holds them (docs-blocks.test.ts
// keeps the docs' fragments in step with that file), driven at the wire: over HTTP with bearer tokens where principals
// or scopes matter, over stdio elsewhere, in both eras. Clocks and timers are the tests' own: nothing sleeps.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  createServer,
  elicitInput,
  inputRequired,
  ProtocolError,
  type Server,
  ToolError,
  type Viewer,
} from '../core.ts';
import {
  type AuditRecord,
  addPurgeTool,
  auditLog,
  cached,
  RATE_LIMITED,
  rateLimit,
  type StartTimer,
  toolTimeouts,
  useRecipes,
} from '../examples/recipes.ts';
import { createFetchHandler } from '../fetch.ts';
import { serveHttp } from '../http.ts';
import type { AuthInfo } from '../types.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders } from './raw-http.ts';
import { CLIENT_CAPABILITIES, fail, modern, ok, SERVER_INFO } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only

const ISSUER = 'https://as.example.com';
const TOKENS: Record<string, AuthInfo> = {
  alice: { subject: 'alice', issuer: ISSUER, scopes: ['mcp:tools'] },
  bob: { subject: 'bob', issuer: ISSUER, scopes: ['mcp:tools'] },
  carol: { subject: 'carol', issuer: ISSUER, scopes: ['mcp:tools'] },
  root: { subject: 'root', issuer: ISSUER, scopes: ['mcp:tools', 'admin'] },
};
const LEGACY = '2025-11-25';
/** The envelope of a 2026-07-28 client that takes form elicitations. */
const ELICITING = { [CLIENT_CAPABILITIES]: { elicitation: {} } };

/** Serves `server` over HTTP on a loopback port with bearer tokens verified against TOKENS; closed when `t` ends. */
async function serveWithTokens(t: TestContext, server: Server): Promise<string> {
  const http = await serveHttp(server, {
    port: 0,
    auth: {
      resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: [ISSUER] },
      verifyToken: (token) => TOKENS[token],
    },
  });
  t.after(() => http.close());
  return http.url;
}

/** The one JSON-RPC frame of an HTTP answer, JSON or a one-event stream. */
async function frameOf(response: Response): Promise<Frame> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
  return JSON.parse(
    text
      .split('\n')
      .find((line) => line.startsWith('data: '))!
      .slice('data: '.length),
  );
}

/** POSTs a 2026-07-28 request as `token`, with the headers a correct client sends: the HTTP status and the frame. */
async function postModern(url: string, token: string, frame: Frame): Promise<{ status: number; frame: Frame }> {
  const headers = modernHeaders(frame, { authorization: `Bearer ${token}` });
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(frame) });
  return { status: response.status, frame: await frameOf(response) };
}

/** A 2025 session opened as `token` over HTTP: `send(method, params)` answers with its frame. */
async function legacySession(url: string, token: string) {
  let id = 0;
  let session: string | null = null;
  const post = async (body: Frame) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        ...(session === null ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY }),
      },
      body: JSON.stringify(body),
    });
    session ??= response.headers.get('mcp-session-id');
    return response.status === 202 ? undefined : frameOf(response);
  };
  const clientInfo = { name: 'recipes', version: '1.0.0' };
  await post({
    jsonrpc: '2.0',
    id: id++,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo },
  });
  assert.equal(await post({ jsonrpc: '2.0', method: 'notifications/initialized' }), undefined);
  return (method: string, params?: object): Promise<Frame> =>
    post({ jsonrpc: '2.0', id: id++, method, ...(params === undefined ? {} : { params }) });
}

/** A tools/call frame of 2026-07-28. */
const call = (name: string, args: object = {}, id = 1) => modern('tools/call', { name, arguments: args }, id);
/** What an `isError` tool result with this text looks like on 2026-07-28 (stamped) and on 2025. */
const toolError = (text: string) => ({ content: [{ type: 'text', text }], isError: true });
const stamped = (result: object) => ({ ...result, resultType: 'complete', _meta: { [SERVER_INFO]: INFO } });
const INFO = { name: 'recipes-test', version: '1.0.0' };

/** A server with `echo`, which counts its runs. */
function echoServer() {
  const server = createServer(INFO, { logger: new MemoryLogger() });
  const runs = { echo: 0 };
  server.tool('echo', { inputSchema: { type: 'object' } }, () => {
    runs.echo += 1;
    return { content: [{ type: 'text', text: 'echo' }] };
  });
  return { server, runs };
}

// ---------------------------------------------------------------------------------------------------------------
// Rate limit per client

test(
  'recipe, rate limit per client: the 4th call in a window is refused, another principal is served',
  T,
  async (t) => {
    const { server, runs } = echoServer();
    let clock = 1_000_000;
    server.intercept(rateLimit({ limit: 3, windowMs: 60_000, maxClients: 16, now: () => clock }));
    const url = await serveWithTokens(t, server);
    const echoed = { status: 200, frame: ok(1, stamped({ content: [{ type: 'text', text: 'echo' }] })) };
    for (let i = 0; i < 3; i++) assert.deepEqual(await postModern(url, 'alice', call('echo')), echoed);
    // The 4th: a result the model reads, the handler not run.
    assert.deepEqual(await postModern(url, 'alice', call('echo')), {
      status: 200,
      frame: ok(1, stamped(toolError('rate limited, retry in 60 s'))),
    });
    assert.equal(runs.echo, 3);
    assert.deepEqual(await postModern(url, 'bob', call('echo')), echoed);
    // Any other method: the author's error, a code the core never emits.
    clock += 45_000;
    assert.deepEqual(await postModern(url, 'alice', modern('tools/list', {}, 2)), {
      status: 200,
      frame: fail(2, { code: RATE_LIMITED, message: 'rate limited, retry in 15 s', data: { retryAfterMs: 15_000 } }),
    });
    // The key is the principal: alice's 2025 session shares her window (its initialize is never counted).
    const session = await legacySession(url, 'alice');
    assert.deepEqual(await session('tools/call', { name: 'echo', arguments: {} }), {
      jsonrpc: '2.0',
      id: 1,
      result: toolError('rate limited, retry in 15 s'),
    });
    clock += 15_000; // the window ends
    assert.deepEqual(
      await session('tools/call', { name: 'echo', arguments: {} }),
      ok(2, { content: [{ type: 'text', text: 'echo' }] }),
    );
    assert.deepEqual(await postModern(url, 'alice', call('echo')), echoed);
    assert.equal(runs.echo, 6);
  },
);

test(
  'recipe, rate limit per client: a full table drops the window that started first, whose client starts afresh',
  T,
  async (t) => {
    const { server, runs } = echoServer();
    let clock = 0;
    server.intercept(rateLimit({ limit: 1, windowMs: 1000, maxClients: 2, now: () => clock }));
    const url = await serveWithTokens(t, server);
    const served = async (token: string) => (await postModern(url, token, call('echo'))).frame.result.isError !== true;
    assert.equal(await served('alice'), true);
    clock += 1;
    assert.equal(await served('bob'), true);
    assert.equal(await served('alice'), false);
    clock += 1;
    assert.equal(await served('carol'), true); // the table is full: alice's window, the oldest, goes
    assert.equal(await served('bob'), false); // bob's is kept
    assert.equal(await served('alice'), true); // alice starts afresh (and bob's window, now the oldest, goes)
    clock += 1000; // every window has ended: they are dropped before anyone is evicted
    assert.equal(await served('carol'), true);
    assert.equal(await served('alice'), true);
    assert.equal(await served('carol'), false);
    assert.equal(runs.echo, 6);
  },
);

test(
  'recipe, rate limit per client: without a token each HTTP peer has a window of its own, not one shared by all',
  T,
  async (t) => {
    const { server, runs } = echoServer();
    server.intercept(rateLimit({ limit: 1, windowMs: 60_000, maxClients: 16, now: () => 0 }));
    // The fetch adapter takes the peer's address from the runtime: two clients, neither with a token.
    const handle = createFetchHandler(server);
    t.after(() => handle.close());
    const served = async (remoteAddress?: string) => {
      const frame = call('echo');
      const request = new Request('http://localhost/mcp', {
        method: 'POST',
        headers: modernHeaders(frame),
        body: JSON.stringify(frame),
      });
      const answer = await frameOf(await handle(request, remoteAddress === undefined ? {} : { remoteAddress }));
      return answer.result.isError !== true;
    };
    assert.equal(await served('192.0.2.1'), true);
    assert.equal(await served('192.0.2.1'), false);
    assert.equal(await served('192.0.2.2'), true); // another peer: its own window
    assert.equal(await served('192.0.2.2'), false);
    // A runtime that gives no address: the caller, '' for every such request, so one window for them all.
    assert.equal(await served(), true);
    assert.equal(await served(), false);
    assert.equal(runs.echo, 3);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Audit log

test('recipe, audit log: one record per served request with method, caller, outcome and duration', T, async () => {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  server.tool('hello', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'hello' }] }));
  server.tool('fail', { inputSchema: { type: 'object' } }, () => {
    throw new ToolError('no such city');
  });
  server.tool('ask', { inputSchema: { type: 'object' } }, () =>
    inputRequired({ sure: elicitInput({ message: 'Sure?', requestedSchema: { type: 'object' } }) }),
  );
  server.resource('r://boom', { name: 'boom' }, () => {
    throw new Error('disk on fire');
  });
  server.resource('r://denied', { name: 'denied' }, () => {
    throw new ProtocolError(-32050, 'denied');
  });
  const records: AuditRecord[] = [];
  let clock = 0;
  server.intercept(
    auditLog(
      (record) => records.push(record),
      () => (clock += 5),
    ),
  );

  const client = new WireClient(server);
  await client.initialize();
  await client.request('tools/call', { name: 'hello' });
  const caller = records[0]!.caller; // the stdio connection speaks for itself
  assert.match(caller, /^connection:/);
  await client.request('tools/list');
  assert.equal((await client.request('tools/call', { name: 'fail' })).result.isError, true);
  assert.equal((await client.request('tools/call', { name: 'nowhere' })).error.code, -32602);
  assert.equal((await client.request('resources/read', { uri: 'r://boom' })).error.code, -32603);
  assert.equal((await client.request('resources/read', { uri: 'r://denied' })).error.code, -32050);
  // Refused before the chain: never recorded.
  assert.equal((await client.request('no/such/method')).error.code, -32601);
  assert.equal((await client.request('prompts/list')).error.code, -32601); // no prompts: not advertised
  await client.end();

  const modernClient = new WireClient(server);
  modernClient.send(modern('tools/call', { name: 'ask' }, 1, ELICITING));
  assert.equal((await modernClient.response(1)).result.resultType, 'input_required');
  modernClient.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }); // no envelope: refused before the chain
  assert.equal((await modernClient.response(2)).error.code, -32602);
  await modernClient.end();

  const at = (method: string, outcome: AuditRecord['outcome'], who = caller) => ({
    method,
    caller: who,
    outcome,
    ms: 5,
  });
  assert.equal(records.length, 7);
  assert.deepEqual(records.slice(0, 6), [
    at('tools/call', 'result'),
    at('tools/list', 'result'),
    at('tools/call', 'isError'),
    at('tools/call', -32602),
    at('resources/read', -32603),
    at('resources/read', -32050),
  ]);
  assert.deepEqual({ ...records[6], caller: undefined }, { ...at('tools/call', 'input_required'), caller: undefined });
  assert.notEqual(records[6]!.caller, caller, 'another connection, another caller');
  assert.equal(logger.errors.length, 1); // the unexpected throw, logged by the core as ever
});

// ---------------------------------------------------------------------------------------------------------------
// Response cache

/** A server whose read-only `forecast` gives a number (its run count: a cached answer repeats it), cached by the recipe. */
function forecastServer(options: { maxEntries?: number; maxBytes?: number; now?: () => number } = {}) {
  const server = createServer(INFO, { logger: new MemoryLogger() });
  const runs = { forecast: 0, ask: 0, other: 0 };
  const cache = {
    maxEntries: options.maxEntries ?? 100,
    maxBytes: options.maxBytes ?? 1 << 20,
    ttlMs: 60_000,
    now: options.now,
  };
  server.tool(
    'forecast',
    {
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { city: { type: 'string' }, pad: { type: 'string' } } },
      outputSchema: { type: 'number' },
    },
    cached(({ city, pad }: { city?: string; pad?: string }) => {
      runs.forecast += 1;
      if (city === 'Atlantis') throw new ToolError('no such city');
      return { content: [{ type: 'text', text: `${city}${pad ?? ''}` }], structuredContent: runs.forecast };
    }, cache),
  );
  // Asks for a unit, unless told to take the default (and not given one all the same).
  const askSchema = { type: 'object', properties: { usual: { type: 'boolean' } } } as const;
  server.tool(
    'ask',
    { annotations: { readOnlyHint: true }, inputSchema: askSchema },
    cached(async ({ usual }: { usual?: boolean }, ctx) => {
      runs.ask += 1;
      if (usual === true && ctx.inputResponses === undefined) return { content: [{ type: 'text', text: 'C' }] };
      if (ctx.inputResponses?.unit === undefined)
        return inputRequired({ unit: elicitInput({ message: 'Unit?', requestedSchema: { type: 'object' } }) });
      return { content: [{ type: 'text', text: JSON.stringify(ctx.inputResponses.unit) }] };
    }, cache),
  );
  server.tool('other', { inputSchema: { type: 'object' } }, () => {
    runs.other += 1;
    return { content: [{ type: 'text', text: 'not cached' }] };
  });
  return { server, runs };
}

test(
  'recipe, response cache for a read-only tool: a repeat call skips the handler, in either era; another principal misses',
  T,
  async (t) => {
    let clock = 0;
    const { server, runs } = forecastServer({ now: () => clock });
    const url = await serveWithTokens(t, server);
    const oslo = (value: number) => stamped({ content: [{ type: 'text', text: 'Oslo' }], structuredContent: value });
    assert.deepEqual((await postModern(url, 'alice', call('forecast', { city: 'Oslo' }))).frame, ok(1, oslo(1)));
    assert.deepEqual((await postModern(url, 'alice', call('forecast', { city: 'Oslo' }, 2))).frame, ok(2, oslo(1)));
    assert.equal(runs.forecast, 1);
    await postModern(url, 'alice', call('forecast', { city: 'Rome' })); // other arguments
    assert.deepEqual((await postModern(url, 'bob', call('forecast', { city: 'Oslo' }))).frame, ok(1, oslo(3)));
    assert.equal(runs.forecast, 3);
    // The same principal at 2025-11-25: the handler's own answer is held, so the same entry serves it, shaped for that
    // version afterwards ({result} around a non-object value).
    const session = await legacySession(url, 'alice');
    const legacyOslo = { content: [{ type: 'text', text: 'Oslo' }], structuredContent: { result: 1 } };
    assert.deepEqual(await session('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } }), ok(1, legacyOslo));
    assert.equal(runs.forecast, 3);
    // An isError result is never held.
    for (const id of [2, 3]) {
      const answer = await session('tools/call', { name: 'forecast', arguments: { city: 'Atlantis' } });
      assert.deepEqual(answer, ok(id, toolError('no such city')));
    }
    assert.equal(runs.forecast, 5);
    // A handler not wrapped is never cached.
    await postModern(url, 'alice', call('other'));
    await postModern(url, 'alice', call('other'));
    assert.equal(runs.other, 2);
    clock += 60_000; // expired
    assert.deepEqual((await postModern(url, 'alice', call('forecast', { city: 'Oslo' }))).frame, ok(1, oslo(6)));
    assert.deepEqual((await postModern(url, 'alice', call('forecast', { city: 'Oslo' }))).frame, ok(1, oslo(6)));
  },
);

test(
  'recipe, response cache: never an input_required nor an answer reached with client input, in either era',
  T,
  async () => {
    const { server, runs } = forecastServer();
    // 2026-07-28: the input_required and the retry's complete result are both served afresh every time; a retry
    // carrying input is never answered from what the same call without input left.
    const modernClient = new WireClient(server);
    const texts: string[] = [];
    const unit = (value: string) => ({ inputResponses: { unit: { action: 'accept', content: { unit: value } } } });
    for (const [id, params] of [
      [1, {}],
      [2, {}],
      [3, unit('C')],
      [4, unit('F')],
      [5, {}],
      [6, { arguments: { usual: true } }],
      [7, { arguments: { usual: true } }],
      [8, { arguments: { usual: true }, ...unit('K') }],
    ] as const) {
      modernClient.send(modern('tools/call', { name: 'ask', arguments: {}, ...params }, id, ELICITING));
      const { result } = await modernClient.response(id);
      texts.push(result.resultType === 'complete' ? result.content[0].text : result.resultType);
    }
    await modernClient.end();
    const accepted = (value: string) => `{"action":"accept","content":{"unit":"${value}"}}`;
    assert.deepEqual(texts, [
      'input_required',
      'input_required',
      accepted('C'),
      accepted('F'),
      'input_required',
      'C',
      'C',
      accepted('K'),
    ]);
    assert.equal(runs.ask, 7); // the 7th call was the one answered from the cache
    // 2025: the input rounds happen inside the call, whose answer is for that input only.
    const client = new WireClient(server);
    await client.initialize(LEGACY, { elicitation: {} });
    for (const [id, unit] of [
      [1, 'C'],
      [2, 'K'],
    ] as const) {
      client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {} } });
      const asked = await client.waitFor((frame) => frame.method === 'elicitation/create');
      client.send(ok(asked.id, { action: 'accept', content: { unit } }));
      const answer = await client.response(id);
      assert.equal(answer.result.content[0].text, `{"action":"accept","content":{"unit":"${unit}"}}`);
    }
    await client.end();
    assert.equal(runs.ask, 11);
  },
);

test(
  'recipe, response cache: a tool hidden from a caller is never answered to it from the cache (2026-07-28 HTTP, no token)',
  T,
  async (t) => {
    // Without a token nothing in the cache key tells these two apart (and every sessionless request has the caller
    // ''): only the tool's visibility, which reads a header, does.
    const server = createServer(INFO, { logger: new MemoryLogger() });
    let runs = 0;
    const finance = (viewer: Viewer) => viewer.http?.headers['x-team'] === 'finance';
    const ledger = () => {
      runs += 1;
      return { content: [{ type: 'text' as const, text: 'balance: 42' }] };
    };
    const cache = { maxEntries: 10, maxBytes: 1 << 16, ttlMs: 60_000 };
    server.tool(
      'ledger',
      { annotations: { readOnlyHint: true }, inputSchema: { type: 'object' }, visible: finance },
      cached(ledger, cache),
    );
    const http = await serveHttp(server, { port: 0 });
    t.after(() => http.close());
    const post = async (team: string | undefined, frame: Frame) => {
      const headers = modernHeaders(frame, team === undefined ? {} : { 'x-team': team });
      const response = await fetch(http.url, { method: 'POST', headers, body: JSON.stringify(frame) });
      return { status: response.status, frame: await frameOf(response) };
    };
    const balance = { status: 200, frame: ok(1, stamped({ content: [{ type: 'text', text: 'balance: 42' }] })) };
    assert.deepEqual(await post('finance', call('ledger')), balance);
    assert.deepEqual(await post('finance', call('ledger')), balance); // from the cache
    assert.equal(runs, 1);
    // A guest sees no ledger, and its call is answered as a call of a tool that does not exist.
    assert.deepEqual((await post('guest', modern('tools/list'))).frame.result.tools, []);
    const missing = await post('guest', call('nosuch'));
    const error = { ...missing.frame.error, message: "Invalid params: unknown tool 'ledger'" };
    const unknown = { ...missing, frame: { ...missing.frame, error } };
    assert.deepEqual(await post('guest', call('ledger')), unknown);
    assert.deepEqual(await post(undefined, call('ledger')), unknown); // no team header at all
    assert.equal(runs, 1);
  },
);

/** A 2025 stdio client of `server`: `forecast(city, pad?)` answers the number a call gave (its run, or a cached one). */
async function forecaster(server: Server) {
  const client = new WireClient(server);
  await client.initialize();
  const forecast = async (city: string, pad?: string) =>
    (await client.request('tools/call', { name: 'forecast', arguments: { city, pad } })).result.structuredContent
      .result;
  return { client, forecast };
}

test('recipe, response cache: bounded by entries, the least recently used going first', T, async () => {
  const { server, runs } = forecastServer({ maxEntries: 2 });
  const { client, forecast } = await forecaster(server);
  assert.equal(await forecast('A'), 1);
  assert.equal(await forecast('B'), 2);
  assert.equal(await forecast('A'), 1); // A is now the most recently used
  assert.equal(await forecast('C'), 3); // B goes
  assert.equal(await forecast('A'), 1);
  assert.equal(await forecast('B'), 4);
  assert.equal(runs.forecast, 4);
  await client.end();
});

test('recipe, response cache: bounded by bytes, a result past the bound never held', T, async () => {
  // A small entry takes 81 bytes (its key and its JSON), one padded with 380 characters 850, with 500 1090.
  const { server, runs } = forecastServer({ maxBytes: 1000 });
  const { client, forecast } = await forecaster(server);
  for (const city of ['A', 'B', 'C']) await forecast(city);
  assert.equal(await forecast('A'), 1);
  const huge = 'x'.repeat(500);
  assert.equal(await forecast('D', huge), 4);
  assert.equal(await forecast('D', huge), 5);
  assert.equal(await forecast('A'), 1); // and it pushed nothing out
  const large = 'x'.repeat(380);
  assert.equal(await forecast('E', large), 6);
  assert.equal(await forecast('E', large), 6);
  assert.equal(await forecast('C'), 7); // the small ones went to make room, least recently used first
  assert.equal(runs.forecast, 7);
  await client.end();
});

// ---------------------------------------------------------------------------------------------------------------
// Per-tool timeout

/** A timer the test fires by hand, recording what the recipe started and cancelled. */
function manualTimers() {
  const timers: { ms: number; fire(): void; cancelled: boolean }[] = [];
  const start: StartTimer = (fire, ms) => {
    const timer = { ms, fire, cancelled: false };
    timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  return { timers, start };
}

for (const era of ['legacy', 'modern'] as const) {
  test(
    `recipe, per-tool timeout: a slow tool answers an isError timeout result at the deadline and its signal aborts (${era})`,
    T,
    async () => {
      const server = createServer(INFO, { logger: new MemoryLogger() });
      const started = deferred();
      const aborted = deferred<string>();
      server.tool('slow', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
        started.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        aborted.resolve((ctx.signal.reason as Error).message);
        return { content: [{ type: 'text', text: 'too late' }] };
      });
      server.tool('fast', { inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'done' }] }));
      server.tool('untimed', { inputSchema: { type: 'object' } }, () => ({
        content: [{ type: 'text', text: 'free' }],
      }));
      const { timers, start } = manualTimers();
      server.intercept(toolTimeouts({ slow: 5000, fast: 5000 }, start));
      const client = new WireClient(server);
      if (era === 'legacy') await client.initialize();
      const callFrame = (id: number, name: string) =>
        era === 'modern'
          ? call(name, {}, id)
          : { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
      const result = (value: object) => (era === 'modern' ? stamped(value) : value);

      client.send(callFrame(1, 'slow'));
      await started.promise;
      assert.deepEqual(
        timers.map(({ ms, cancelled }) => ({ ms, cancelled })),
        [{ ms: 5000, cancelled: false }],
      );
      timers[0]!.fire();
      assert.deepEqual(await client.response(1), ok(1, result(toolError("tool 'slow' timed out after 5000 ms"))));
      assert.equal(await aborted.promise, 'Request ended: the request was answered');
      assert.equal(timers[0]!.cancelled, true);

      // A tool done in time releases its timer; a tool without a limit starts none.
      client.send(callFrame(2, 'fast'));
      assert.deepEqual(await client.response(2), ok(2, result({ content: [{ type: 'text', text: 'done' }] })));
      client.send(callFrame(3, 'untimed'));
      assert.deepEqual(await client.response(3), ok(3, result({ content: [{ type: 'text', text: 'free' }] })));
      assert.deepEqual(
        timers.map(({ cancelled }) => cancelled),
        [true, true],
      );
      assert.deepEqual(await client.end(), []); // the slow handler's late answer was dropped
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// All four together

test(
  'recipe, all four together: the audit log records what the rate limit, the cache and the timeout answer',
  T,
  async () => {
    const server = createServer(INFO, { logger: new MemoryLogger() });
    let runs = 0;
    const waiting = deferred();
    server.tool(
      'forecast',
      {
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      cached(
        async ({ city }: { city?: string }, ctx) => {
          runs += 1;
          // Nowhere never answers: only the timeout does, which aborts the signal this waits on.
          if (city === 'Nowhere') {
            waiting.resolve();
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          }
          return { content: [{ type: 'text', text: `${city}: 21` }] };
        },
        { maxEntries: 1000, maxBytes: 8 * 1024 * 1024, ttlMs: 60_000, now: () => 0 },
      ),
    );
    const records: AuditRecord[] = [];
    const { timers, start } = manualTimers();
    useRecipes(
      server,
      (record) => records.push(record),
      () => 0,
      start,
    );
    const client = new WireClient(server);
    await client.initialize();
    const forecast = async (city: string) =>
      (await client.request('tools/call', { name: 'forecast', arguments: { city } })).result;
    for (let i = 0; i < 59; i++)
      assert.deepEqual(await forecast('Oslo'), { content: [{ type: 'text', text: 'Oslo: 21' }] });
    assert.equal(runs, 1); // one run, 58 hits
    // The cache is in the handler, inside the timeout: a hit's timer is cancelled as soon as it answers.
    assert.deepEqual(new Set(timers.map(({ cancelled }) => cancelled)), new Set([true]));
    assert.equal(timers.length, 59);
    client.send({
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'forecast', arguments: { city: 'Nowhere' } },
    });
    await waiting.promise; // its timer started before the handler did
    timers[59]!.fire();
    assert.equal((await client.response('slow')).result.content[0].text, "tool 'forecast' timed out after 10000 ms");
    assert.deepEqual(await forecast('Oslo'), toolError('rate limited, retry in 60 s')); // the 61st request
    await client.end();
    assert.equal(records.length, 61);
    assert.deepEqual(
      records.slice(-3).map(({ outcome }) => outcome),
      ['result', 'isError', 'isError'],
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Per-caller tool list

test(
  'recipe, per-caller tool list: auth scopes decide what tools/list shows and what tools/call runs',
  T,
  async (t) => {
    const { server } = echoServer();
    let purged = 0;
    addPurgeTool(server, () => (purged += 10));
    const url = await serveWithTokens(t, server);
    const names = (frame: Frame) => frame.result.tools.map((tool: { name: string }) => tool.name);
    const purgedText = (n: number) => ({ content: [{ type: 'text', text: `purged ${n} entries` }] });

    // 2026-07-28
    assert.deepEqual(names((await postModern(url, 'alice', modern('tools/list'))).frame), ['echo']);
    assert.deepEqual(names((await postModern(url, 'root', modern('tools/list'))).frame), ['echo', 'purge']);
    const hidden = await postModern(url, 'alice', call('purge'));
    const missing = await postModern(url, 'alice', call('nosuch'));
    assert.deepEqual(hidden, {
      ...missing,
      frame: { ...missing.frame, error: { ...missing.frame.error, message: "Invalid params: unknown tool 'purge'" } },
    });
    assert.equal(missing.frame.error.message, "Invalid params: unknown tool 'nosuch'");
    assert.deepEqual((await postModern(url, 'root', call('purge'))).frame, ok(1, stamped(purgedText(10))));

    // 2025, a session each
    const alice = await legacySession(url, 'alice');
    const root = await legacySession(url, 'root');
    assert.deepEqual(names(await alice('tools/list')), ['echo']);
    assert.deepEqual(names(await root('tools/list')), ['echo', 'purge']);
    assert.deepEqual(
      await alice('tools/call', { name: 'purge', arguments: {} }),
      fail(2, { code: -32602, message: "Invalid params: unknown tool 'purge'" }),
    );
    assert.deepEqual(await root('tools/call', { name: 'purge', arguments: {} }), ok(2, purgedText(20)));
    assert.equal(purged, 20);
  },
);
