// The 2026-07-28 (modern) era on stdio, at the wire: the request envelope and its validation, the result stamp
// (resultType, serverInfo, caching fields), server/discover, resources/read not found, per-request logging and
// progress, the refused back channel, era-restricted registration, input_required round trips against the demo
// fixtures (the tools of the conformance suite's 2026-07-28 scenarios), and the legacy shim that serves the same
// input-required handlers on a 2025 connection with real server→client requests.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Context,
  createServer,
  elicitInput,
  inputRequired,
  type LoggingLevel,
  listRootsInput,
  OutboundRequestError,
  type ServerOptions,
  sampleInput,
} from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import {
  DEMO_SKILL_FILES,
  DEMO_TASK_TOOLS,
  deferred,
  type Frame,
  MemoryLogger,
  untilResponse,
  WireClient,
} from './harness.ts';
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  EVERYTHING_INFO,
  envelope,
  fail,
  type Id,
  LOG_LEVEL,
  MODERN,
  modern as modernRequest,
  ok,
  PROTOCOL_VERSION,
  SERVER_INFO,
} from './wire.ts';

const S_INFO = { name: 's', version: '1' };
const NO_ARGS = { type: 'object', properties: {} };
const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

interface Call {
  caps?: object;
  meta?: object;
}

function modernFrame(id: Id, method: string, params: object = {}, call: Call = {}): Frame {
  return modernRequest(
    method,
    params,
    id,
    call.caps === undefined ? call.meta : { [CLIENT_CAPABILITIES]: call.caps, ...call.meta },
  );
}

/** Sends one enveloped request and resolves with its response frame. */
function modern(client: WireClient, id: Id, method: string, params: object = {}, call: Call = {}): Promise<Frame> {
  client.send(modernFrame(id, method, params, call));
  return client.response(id);
}

function text(value: string) {
  return { type: 'text' as const, text: value };
}

/** A complete modern result frame: the handler's fields, resultType and the serverInfo stamp beside its own _meta. */
function complete(id: Id, result: Record<string, any>, info: object = EVERYTHING_INFO): Frame {
  return ok(id, { ...result, resultType: 'complete', _meta: { ...result._meta, [SERVER_INFO]: info } });
}

/** A complete result of a cacheable method: also ttlMs and cacheScope. */
function cached(
  id: Id,
  result: Record<string, any>,
  info: object = EVERYTHING_INFO,
  ttlMs = 0,
  cacheScope = 'private',
): Frame {
  const frame = complete(id, result, info);
  frame.result.ttlMs = ttlMs;
  frame.result.cacheScope = cacheScope;
  return frame;
}

function asking(
  id: Id,
  inputRequests: object | undefined,
  requestState?: string,
  info: object = EVERYTHING_INFO,
): Frame {
  const result: Record<string, unknown> = { resultType: 'input_required' };
  if (inputRequests !== undefined) result.inputRequests = inputRequests;
  if (requestState !== undefined) result.requestState = requestState;
  result._meta = { [SERVER_INFO]: info };
  return ok(id, result);
}

let quietCounter = 0;

/** Proves nothing else was written: a discover probe's answer is the very next frame and nothing waits behind it. */
async function assertQuiet(client: WireClient, label?: string): Promise<void> {
  const id = `quiet-${quietCounter++}`;
  client.send(modernFrame(id, 'server/discover'));
  const frame = await client.next();
  assert.equal(frame.id, id, label);
  assert.equal(frame.result.resultType, 'complete', label);
  assert.deepEqual(client.unread(), [], label);
}

/** The legacy counterpart: a ping's answer is the next frame. */
async function assertQuietLegacy(client: WireClient, label?: string): Promise<void> {
  const id = `quiet-${quietCounter++}`;
  client.send({ jsonrpc: '2.0', id, method: 'ping' });
  assert.deepEqual(await client.next(), ok(id, {}), label);
  assert.deepEqual(client.unread(), [], label);
}

function quietServer(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  return { server: createServer(S_INFO, { logger, ...options }), logger };
}

/** Plain copies, so null-prototype maps compare with ordinary object literals. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** A tool that reports what its context saw. */
function whoami(server: ReturnType<typeof createServer>): void {
  server.tool('whoami', { inputSchema: NO_ARGS }, (_args, ctx: Context) => ({
    content: [text('who')],
    structuredContent: {
      era: ctx.era,
      protocolVersion: ctx.protocolVersion,
      clientCapabilities: ctx.clientCapabilities,
      clientInfo: ctx.clientInfo ?? null,
    },
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Envelope validation (MCP 2026-07-28, Basic > Overview > General fields > `_meta`, per-request protocol fields)

const MISSING_CAPS = {
  code: -32602,
  message: `Invalid params: params._meta is missing required key(s): ${CLIENT_CAPABILITIES}`,
};

test('an envelope without clientCapabilities is -32602 naming the missing key', async () => {
  const client = new WireClient(createEverythingServer());
  for (const [id, method, params] of [
    ['d', 'server/discover', {}],
    ['c', 'tools/call', { name: 'test_simple_text' }],
    ['l', 'tools/list', {}],
  ] as const) {
    const response = await client.request(method, { ...params, _meta: { [PROTOCOL_VERSION]: MODERN } }, id);
    assert.deepEqual(response, fail(id, MISSING_CAPS), method);
  }
  // The same server still serves a complete envelope on the same connection.
  assert.deepEqual(
    await modern(client, 'ok', 'tools/call', { name: 'test_simple_text' }),
    complete('ok', { content: [text('This is a simple text response for testing.')] }),
  );
  assert.deepEqual(await client.end(), []);
});

for (const version of [20260728, null, true, ['2026-07-28'], { v: '2026-07-28' }]) {
  test(`an envelope whose protocolVersion is ${JSON.stringify(version)} is -32602 naming it`, async () => {
    const client = new WireClient(createEverythingServer());
    const response = await client.request(
      'tools/call',
      { name: 'test_simple_text', _meta: envelope({ [PROTOCOL_VERSION]: version }) },
      1,
    );
    assert.deepEqual(
      response,
      fail(1, { code: -32602, message: `Invalid params: params._meta['${PROTOCOL_VERSION}'] must be a string` }),
    );
    assert.deepEqual(await client.end(), []);
  });
}

for (const version of ['2025-11-25', '2025-06-18', 'v999.0.0', '', '2026-07-28 ', '2026-07-29']) {
  test(`an envelope claiming unsupported version ${JSON.stringify(version)} is -32022 with supported and requested`, async () => {
    const client = new WireClient(createEverythingServer());
    const error = {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: version },
    };
    const call = await client.request(
      'tools/call',
      { name: 'test_simple_text', _meta: envelope({ [PROTOCOL_VERSION]: version }) },
      1,
    );
    assert.deepEqual(call, fail(1, error));
    // The version check comes before the capabilities check (spec order: step 3 before step 4).
    const bare = await client.request('server/discover', { _meta: { [PROTOCOL_VERSION]: version } }, 2);
    assert.deepEqual(bare, fail(2, error));
    assert.deepEqual(await client.end(), []);
  });
}

for (const caps of [null, [], 'all', 42, true]) {
  test(`clientCapabilities ${JSON.stringify(caps)} (not an object) is -32602 naming the key`, async () => {
    const client = new WireClient(createEverythingServer());
    const response = await client.request(
      'tools/call',
      { name: 'test_simple_text', _meta: envelope({ [CLIENT_CAPABILITIES]: caps }) },
      1,
    );
    assert.deepEqual(
      response,
      fail(1, { code: -32602, message: `Invalid params: params._meta['${CLIENT_CAPABILITIES}'] must be an object` }),
    );
    assert.deepEqual(await client.end(), []);
  });
}

for (const info of [
  null,
  'client',
  [],
  { name: 'c' },
  { version: '1' },
  { name: 1, version: '1' },
  { name: 'c', version: 1 },
]) {
  test(`clientInfo ${JSON.stringify(info)} is -32602 naming io.modelcontextprotocol/clientInfo`, async () => {
    const client = new WireClient(createEverythingServer());
    const response = await modern(
      client,
      1,
      'tools/call',
      { name: 'test_simple_text' },
      { meta: { [CLIENT_INFO]: info } },
    );
    assert.deepEqual(
      response,
      fail(1, {
        code: -32602,
        message: `Invalid params: params._meta['${CLIENT_INFO}'] must be {name: string, version: string}`,
      }),
    );
    assert.deepEqual(await client.end(), []);
  });
}

test('clientInfo is optional; when given it reaches the handler, and only for that request', async () => {
  const { server } = quietServer();
  whoami(server);
  const client = new WireClient(server);
  const info = { name: 'ExampleClient', version: '1.0.0', title: 'Example' };
  assert.deepEqual(
    await modern(client, 1, 'tools/call', { name: 'whoami' }),
    complete(
      1,
      {
        content: [text('who')],
        structuredContent: { era: 'modern', protocolVersion: MODERN, clientCapabilities: {}, clientInfo: null },
      },
      S_INFO,
    ),
  );
  assert.deepEqual(
    await modern(client, 2, 'tools/call', { name: 'whoami' }, { meta: { [CLIENT_INFO]: info } }),
    complete(
      2,
      {
        content: [text('who')],
        structuredContent: { era: 'modern', protocolVersion: MODERN, clientCapabilities: {}, clientInfo: info },
      },
      S_INFO,
    ),
  );
  const again = await modern(client, 3, 'tools/call', { name: 'whoami' });
  assert.equal(again.result.structuredContent.clientInfo, null);
  assert.deepEqual(await client.end(), []);
});

for (const level of ['verbose', 'INFO', 'warn', '', 3, null]) {
  test(`logLevel ${JSON.stringify(level)} is -32602 naming io.modelcontextprotocol/logLevel`, async () => {
    const client = new WireClient(createEverythingServer());
    const response = await modern(
      client,
      1,
      'tools/call',
      { name: 'test_logging_tool' },
      { meta: { [LOG_LEVEL]: level } },
    );
    assert.deepEqual(
      response,
      fail(1, {
        code: -32602,
        message: `Invalid params: params._meta['${LOG_LEVEL}'] must be one of ${LEVELS.join(', ')}`,
      }),
    );
    assert.deepEqual(await client.end(), []);
  });
}

test('capabilities are read from each request alone: test_missing_capability succeeds, then fails -32021', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_missing_capability' };
  assert.deepEqual(
    await modern(client, 1, 'tools/call', call, { caps: { sampling: {} } }),
    complete(1, { content: [text('Success')] }),
  );
  const missing = fail(2, {
    code: -32021,
    message: 'Missing required client capability',
    data: { requiredCapabilities: { sampling: {} } },
  });
  assert.deepEqual(await modern(client, 2, 'tools/call', call), missing);
  assert.deepEqual(await modern(client, 3, 'tools/call', call, { caps: { elicitation: {} } }), { ...missing, id: 3 });
  assert.deepEqual(
    await modern(client, 4, 'tools/call', call, { caps: { sampling: {} } }),
    complete(4, { content: [text('Success')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('the handler sees exactly the capabilities of its own request', async () => {
  const { server } = quietServer();
  whoami(server);
  const client = new WireClient(server);
  const first = await modern(
    client,
    1,
    'tools/call',
    { name: 'whoami' },
    { caps: { sampling: {}, elicitation: { form: {} } } },
  );
  assert.deepEqual(first.result.structuredContent.clientCapabilities, { sampling: {}, elicitation: { form: {} } });
  const second = await modern(client, 2, 'tools/call', { name: 'whoami' }, { caps: { roots: {} } });
  assert.deepEqual(second.result.structuredContent.clientCapabilities, { roots: {} });
  const third = await modern(client, 3, 'tools/call', { name: 'whoami' });
  assert.deepEqual(third.result.structuredContent.clientCapabilities, {});
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// resultType and the serverInfo stamp, caching fields (MCP 2026-07-28, Basic > Overview > Messages > Result Responses
// and General fields > `_meta`; Server > Utilities > Caching)

test('every modern result of the demo server is stamped; ttlMs/cacheScope only on the six cacheable methods', async () => {
  const client = new WireClient(createEverythingServer());
  const cacheableMethods: [string, object][] = [
    ['server/discover', {}],
    ['tools/list', {}],
    ['prompts/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'test://static-text' }],
  ];
  for (const [method, params] of cacheableMethods) {
    const { result } = await modern(client, method, method, params);
    assert.equal(result.resultType, 'complete', method);
    assert.deepEqual(result._meta, { [SERVER_INFO]: EVERYTHING_INFO }, method);
    assert.equal(result.ttlMs, 0, method);
    assert.equal(result.cacheScope, 'private', method);
    assert.equal('serverInfo' in result, false, method);
  }
  assert.deepEqual(
    await modern(client, 'read', 'resources/read', { uri: 'test://template/123/data' }),
    cached('read', {
      contents: [
        {
          uri: 'test://template/123/data',
          mimeType: 'application/json',
          text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
        },
      ],
    }),
  );
  assert.deepEqual(
    await modern(client, 'text', 'tools/call', { name: 'test_simple_text' }),
    complete('text', { content: [text('This is a simple text response for testing.')] }),
  );
  assert.deepEqual(
    await modern(client, 'iserror', 'tools/call', { name: 'test_error_handling' }),
    complete('iserror', { content: [text('This tool intentionally returns an error for testing')], isError: true }),
  );
  assert.deepEqual(
    await modern(client, 'invalid', 'tools/call', { name: 'test_sleep', arguments: { ms: 'x' } }),
    complete('invalid', {
      content: [text("Invalid arguments for tool 'test_sleep': arguments.ms must be integer")],
      isError: true,
    }),
  );
  assert.deepEqual(
    await modern(client, 'prompt', 'prompts/get', { name: 'test_simple_prompt' }),
    complete('prompt', { messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }] }),
  );
  assert.deepEqual(
    await modern(client, 'complete', 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    }),
    complete('complete', { completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } }),
  );
  assert.deepEqual(await client.end(), []);
});

test('errors carry no stamp and no resultType', async () => {
  const client = new WireClient(createEverythingServer());
  assert.deepEqual(
    await modern(client, 1, 'tools/call', { name: 'no_such_tool' }),
    fail(1, { code: -32602, message: "Invalid params: unknown tool 'no_such_tool'" }),
  );
  assert.deepEqual(
    await modern(client, 2, 'no/such/method'),
    fail(2, { code: -32601, message: 'Method not found', data: 'no/such/method' }),
  );
  assert.deepEqual(await client.end(), []);
});

test("the stamp keeps the handler's own _meta keys and never mutates the handler's objects", async () => {
  const { server } = quietServer();
  const toolResult = deepFreeze({ content: [text('t')], _meta: { 'example.com/trace': 't1' } });
  const resourceResult = deepFreeze({ contents: [{ uri: 'r://a', text: 'a' }], _meta: { 'example.com/etag': 'e1' } });
  const promptResult = deepFreeze({
    messages: [{ role: 'user' as const, content: text('p') }],
    _meta: { 'example.com/p': 1 },
  });
  const snapshots = [structuredClone(toolResult), structuredClone(resourceResult), structuredClone(promptResult)];
  server.tool('meta_tool', { inputSchema: NO_ARGS }, () => toolResult);
  server.resource('r://a', { name: 'a' }, () => resourceResult);
  server.prompt('meta_prompt', {}, () => promptResult);
  const client = new WireClient(server);
  for (const round of [1, 2]) {
    assert.deepEqual(
      await modern(client, `t${round}`, 'tools/call', { name: 'meta_tool' }),
      complete(`t${round}`, { content: [text('t')], _meta: { 'example.com/trace': 't1' } }, S_INFO),
    );
    assert.deepEqual(
      await modern(client, `r${round}`, 'resources/read', { uri: 'r://a' }),
      cached(`r${round}`, { contents: [{ uri: 'r://a', text: 'a' }], _meta: { 'example.com/etag': 'e1' } }, S_INFO),
    );
    assert.deepEqual(
      await modern(client, `p${round}`, 'prompts/get', { name: 'meta_prompt' }),
      complete(
        `p${round}`,
        { messages: [{ role: 'user', content: text('p') }], _meta: { 'example.com/p': 1 } },
        S_INFO,
      ),
    );
  }
  assert.deepEqual([toolResult, resourceResult, promptResult], snapshots);
  // A legacy connection of the same server sees the handler's _meta alone.
  const legacy = new WireClient(server);
  await legacy.initialize();
  assert.deepEqual(await legacy.request('tools/call', { name: 'meta_tool' }, 1), ok(1, toolResult));
  assert.deepEqual(await legacy.request('resources/read', { uri: 'r://a' }, 2), ok(2, resourceResult));
  assert.deepEqual(await legacy.request('prompts/get', { name: 'meta_prompt' }, 3), ok(3, promptResult));
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('a handler result with resultType null (or omitted) is stamped "complete"', async () => {
  const { server } = quietServer();
  server.resource(
    'r://null',
    { name: 'null' },
    () => ({ contents: [{ uri: 'r://null', text: 'n' }], resultType: null }) as never,
  );
  const client = new WireClient(server);
  assert.deepEqual(
    await modern(client, 1, 'resources/read', { uri: 'r://null' }),
    cached(1, { contents: [{ uri: 'r://null', text: 'n' }] }, S_INFO),
  );
  assert.deepEqual(await client.end(), []);
});

test('the cache option sets ttlMs and cacheScope on every cacheable result and on nothing else', async () => {
  const { server } = quietServer({ cache: { ttlMs: 60_000, scope: 'public' } });
  server.tool('t', { inputSchema: NO_ARGS }, () => ({ content: [text('t')] }));
  server.resource('r://a', { name: 'a' }, () => ({ contents: [{ uri: 'r://a', text: 'a' }] }));
  server.resource('r://ask', { name: 'ask' }, (_uri, ctx) =>
    ctx.inputResponses === undefined
      ? inputRequired({ roots: listRootsInput() })
      : { contents: [{ uri: 'r://ask', text: 'answered' }] },
  );
  server.resourceTemplate('r://t/{x}', { name: 'tpl' }, (uri) => ({ contents: [{ uri, text: 'x' }] }));
  server.prompt('p', { complete: { a: () => ['one'] }, arguments: [{ name: 'a' }] }, () => ({ messages: [] }));
  const client = new WireClient(server);
  const stampedCached = (id: Id, result: object) => cached(id, result, S_INFO, 60_000, 'public');
  assert.deepEqual(
    await modern(client, 1, 'tools/list'),
    stampedCached(1, { tools: [{ name: 't', inputSchema: NO_ARGS }] }),
  );
  assert.deepEqual(
    await modern(client, 2, 'prompts/list'),
    stampedCached(2, { prompts: [{ name: 'p', arguments: [{ name: 'a' }] }] }),
  );
  assert.deepEqual(
    await modern(client, 3, 'resources/list'),
    stampedCached(3, {
      resources: [
        { uri: 'r://a', name: 'a' },
        { uri: 'r://ask', name: 'ask' },
      ],
    }),
  );
  assert.deepEqual(
    await modern(client, 4, 'resources/templates/list'),
    stampedCached(4, { resourceTemplates: [{ uriTemplate: 'r://t/{x}', name: 'tpl' }] }),
  );
  assert.deepEqual(
    await modern(client, 5, 'resources/read', { uri: 'r://a' }),
    stampedCached(5, { contents: [{ uri: 'r://a', text: 'a' }] }),
  );
  assert.deepEqual(
    await modern(client, 6, 'resources/read', { uri: 'r://t/9' }),
    stampedCached(6, { contents: [{ uri: 'r://t/9', text: 'x' }] }),
  );
  const discover = await modern(client, 7, 'server/discover');
  assert.equal(discover.result.ttlMs, 60_000);
  assert.equal(discover.result.cacheScope, 'public');
  // Never on tools/call, prompts/get, completion/complete or input_required results; a retry's result is immediately
  // stale and private (both fields are required on a complete read, yet it must not be cached).
  assert.deepEqual(await modern(client, 8, 'tools/call', { name: 't' }), complete(8, { content: [text('t')] }, S_INFO));
  assert.deepEqual(await modern(client, 9, 'prompts/get', { name: 'p' }), complete(9, { messages: [] }, S_INFO));
  assert.deepEqual(
    await modern(client, 10, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: '' },
    }),
    complete(10, { completion: { values: ['one'], total: 1, hasMore: false } }, S_INFO),
  );
  assert.deepEqual(
    await modern(client, 11, 'resources/read', { uri: 'r://ask' }, { caps: { roots: {} } }),
    asking(11, { roots: { method: 'roots/list', params: {} } }, undefined, S_INFO),
  );
  assert.deepEqual(
    await modern(
      client,
      12,
      'resources/read',
      { uri: 'r://ask', inputResponses: { roots: { roots: [] } } },
      { caps: { roots: {} } },
    ),
    cached(12, { contents: [{ uri: 'r://ask', text: 'answered' }] }, S_INFO, 0, 'private'),
  );
  assert.deepEqual(await client.end(), []);
});

test('the cache option defaults: ttlMs 0 and scope private, each independently', async () => {
  for (const [options, ttlMs, scope] of [
    [{}, 0, 'private'],
    [{ cache: {} }, 0, 'private'],
    [{ cache: { ttlMs: 5 } }, 5, 'private'],
    [{ cache: { scope: 'public' } }, 0, 'public'],
  ] as const) {
    const { server } = quietServer(options as ServerOptions);
    server.tool('t', { inputSchema: NO_ARGS }, () => ({ content: [] }));
    const client = new WireClient(server);
    assert.deepEqual(
      await modern(client, 1, 'tools/list'),
      cached(1, { tools: [{ name: 't', inputSchema: NO_ARGS }] }, S_INFO, ttlMs, scope),
      JSON.stringify(options),
    );
    assert.deepEqual(await client.end(), []);
  }
});

test('a resources/read retry carrying only requestState is not cacheable either: immediately stale and private', async () => {
  const { server } = quietServer();
  server.resource('r://state', { name: 'state' }, (_uri, ctx) =>
    ctx.requestState === undefined
      ? inputRequired({}, { s: 1 })
      : { contents: [{ uri: 'r://state', text: JSON.stringify(ctx.requestState) }] },
  );
  const client = new WireClient(server);
  const first = await modern(client, 1, 'resources/read', { uri: 'r://state' });
  assert.equal(typeof first.result.requestState, 'string');
  assert.deepEqual(first, asking(1, undefined, first.result.requestState, S_INFO));
  assert.deepEqual(
    await modern(client, 2, 'resources/read', { uri: 'r://state', requestState: first.result.requestState }),
    cached(2, { contents: [{ uri: 'r://state', text: '{"s":1}' }] }, S_INFO, 0, 'private'),
  );
  assert.deepEqual(await client.end(), []);
});

test('legacy results on another connection of the same server never carry resultType, caching fields or the stamp', async () => {
  const server = createEverythingServer();
  const modernClient = new WireClient(server);
  assert.equal((await modern(modernClient, 'm1', 'tools/list')).result.resultType, 'complete');
  const legacy = new WireClient(server);
  const init = await legacy.initialize();
  assert.equal('resultType' in init, false);
  assert.deepEqual(init.serverInfo, EVERYTHING_INFO);
  const calls: [string, object | undefined][] = [
    ['tools/list', undefined],
    ['prompts/list', undefined],
    ['resources/list', undefined],
    ['resources/templates/list', undefined],
    ['resources/read', { uri: 'test://static-text' }],
    ['tools/call', { name: 'test_simple_text' }],
    ['tools/call', { name: 'test_error_handling' }],
    ['tools/call', { name: 'test_sleep', arguments: { ms: 'x' } }],
    ['prompts/get', { name: 'test_simple_prompt' }],
    [
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'p' } },
    ],
    ['ping', undefined],
  ];
  for (const [index, [method, params]] of calls.entries()) {
    // Interleave modern traffic on the other connection, so a leak of its state would show.
    await modern(modernClient, `m-${index}`, 'server/discover');
    const { result } = await legacy.request(method, params, index);
    for (const key of ['resultType', 'ttlMs', 'cacheScope', 'serverInfo', '_meta']) {
      assert.equal(key in result, false, `${method}: ${key}`);
    }
  }
  assert.deepEqual(
    await legacy.request('tools/call', { name: 'test_simple_text' }, 'x'),
    ok('x', { content: [text('This is a simple text response for testing.')] }),
  );
  assert.deepEqual(
    await legacy.request('resources/read', { uri: 'test://static-text' }, 'y'),
    ok('y', {
      contents: [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  );
  assert.deepEqual(await modernClient.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('a legacy handler result claiming resultType "complete" or null loses the field', async () => {
  const { server } = quietServer();
  server.resource(
    'r://c',
    { name: 'c' },
    () => ({ contents: [{ uri: 'r://c', text: 'c' }], resultType: 'complete' }) as never,
  );
  server.prompt('p', {}, () => ({ messages: [], resultType: null }) as never);
  const legacy = new WireClient(server);
  await legacy.initialize();
  assert.deepEqual(
    await legacy.request('resources/read', { uri: 'r://c' }, 1),
    ok(1, { contents: [{ uri: 'r://c', text: 'c' }] }),
  );
  assert.deepEqual(await legacy.request('prompts/get', { name: 'p' }, 2), ok(2, { messages: [] }));
  assert.deepEqual(await legacy.end(), []);
});

test('a handler result is sent as its own fields in both eras, whatever its prototype adds', async () => {
  // A toJSON on the prototype would rewrite the frame if the object went to JSON as it is: both eras send a copy's
  // fields, the 2025 one too when it has no 2026-07-28 field to drop (legacy.ts, withoutResultType).
  const { server } = quietServer();
  const withToJson = Object.create({ toJSON: () => ({ hijacked: true }) });
  server.prompt('p', {}, () => Object.assign(Object.create(withToJson), { messages: [] }));
  const legacy = new WireClient(server);
  await legacy.initialize();
  assert.deepEqual(await legacy.request('prompts/get', { name: 'p' }, 1), ok(1, { messages: [] }));
  const modernClient = new WireClient(server);
  assert.deepEqual(await modern(modernClient, 2, 'prompts/get', { name: 'p' }), complete(2, { messages: [] }, S_INFO));
  assert.deepEqual(await legacy.end(), []);
  assert.deepEqual(await modernClient.end(), []);
});

test('a legacy handler result claiming another resultType is -32603', async () => {
  const { server, logger } = quietServer();
  server.resource(
    'r://x',
    { name: 'x' },
    () => ({ contents: [{ uri: 'r://x', text: 'a' }], resultType: 'input_required' }) as never,
  );
  server.prompt('p', {}, () => ({ messages: [], resultType: 'task' }) as never);
  const legacy = new WireClient(server);
  await legacy.initialize();
  assert.deepEqual(
    await legacy.request('resources/read', { uri: 'r://x' }, 1),
    fail(1, { code: -32603, message: 'Internal error' }),
  );
  assert.deepEqual(
    await legacy.request('prompts/get', { name: 'p' }, 2),
    fail(2, { code: -32603, message: 'Internal error' }),
  );
  assert.equal(logger.errors.length, 2);
  assert.deepEqual(await legacy.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// server/discover (MCP 2026-07-28, Server > Discovery)

test('server/discover on the demo server: supported versions, capabilities, instructions, serverInfo only in _meta', async () => {
  const client = new WireClient(createEverythingServer());
  assert.deepEqual(
    await modern(client, 'discover-1', 'server/discover', {}, { meta: { [CLIENT_INFO]: { name: 'c', version: '1' } } }),
    cached('discover-1', {
      supportedVersions: ['2026-07-28'],
      capabilities: {
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
        extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } },
      },
      instructions: 'The mcp-core demo server: the MCP conformance fixture surface plus diagnostics.',
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a server with only a legacy-only tool advertises no tools in discover, and modern tools/* is -32601', async () => {
  const { server } = quietServer();
  server.tool('old', { era: 'legacy', inputSchema: NO_ARGS }, () => ({ content: [text('old')] }));
  const client = new WireClient(server);
  // No instructions configured: no instructions field.
  assert.deepEqual(
    await modern(client, 1, 'server/discover'),
    cached(1, { supportedVersions: ['2026-07-28'], capabilities: { logging: {} } }, S_INFO),
  );
  assert.deepEqual(
    await modern(client, 2, 'tools/list'),
    fail(2, { code: -32601, message: 'Method not found', data: 'tools/list' }),
  );
  assert.deepEqual(
    await modern(client, 3, 'tools/call', { name: 'old' }),
    fail(3, { code: -32601, message: 'Method not found', data: 'tools/call' }),
  );
  for (const method of ['prompts/list', 'resources/list', 'resources/templates/list', 'completion/complete']) {
    assert.deepEqual(
      await modern(client, method, method),
      fail(method, { code: -32601, message: 'Method not found', data: method }),
    );
  }
  // The legacy era of the same server serves it.
  const legacy = new WireClient(server);
  assert.deepEqual((await legacy.initialize()).capabilities, { logging: {}, tools: { listChanged: true } });
  assert.deepEqual(
    await legacy.request('tools/list', undefined, 1),
    ok(1, { tools: [{ name: 'old', inputSchema: NO_ARGS }] }),
  );
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('discover without logging configured advertises no logging capability', async () => {
  const { server } = quietServer({ logging: false, instructions: 'Use it well.' });
  server.prompt('p', {}, () => ({ messages: [] }));
  const client = new WireClient(server);
  assert.deepEqual(
    await modern(client, 1, 'server/discover'),
    cached(
      1,
      {
        supportedVersions: ['2026-07-28'],
        capabilities: { prompts: { listChanged: true } },
        instructions: 'Use it well.',
      },
      S_INFO,
    ),
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// resources/read not found (MCP 2026-07-28, Server > Resources > Error Handling)

test('resources/read of an unknown resource is -32602 "Resource not found" with data.uri, never -32002', async () => {
  const server = createEverythingServer();
  const client = new WireClient(server);
  const uri = 'test://nonexistent-resource-for-conformance-testing';
  assert.deepEqual(
    await modern(client, 1, 'resources/read', { uri }),
    fail(1, { code: -32602, message: 'Resource not found', data: { uri } }),
  );
  // A template that matches the shape but not the scheme, and an empty URI, are just as unknown.
  for (const [id, other] of [
    [2, 'test://template/'],
    [3, ''],
  ] as const) {
    assert.deepEqual(
      await modern(client, id, 'resources/read', { uri: other }),
      fail(id, { code: -32602, message: 'Resource not found', data: { uri: other } }),
    );
  }
  // The legacy era keeps -32002.
  const legacy = new WireClient(server);
  await legacy.initialize();
  assert.deepEqual(
    await legacy.request('resources/read', { uri }, 1),
    fail(1, { code: -32002, message: 'Resource not found', data: { uri } }),
  );
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('a template handler that finds nothing is -32602 not found in the modern era', async () => {
  const { server } = quietServer();
  server.resourceTemplate('r://item/{id}', { name: 'item' }, (uri, variables) =>
    variables.id === '1' ? { contents: [{ uri, text: 'one' }] } : undefined,
  );
  const client = new WireClient(server);
  assert.deepEqual(
    await modern(client, 1, 'resources/read', { uri: 'r://item/1' }),
    cached(1, { contents: [{ uri: 'r://item/1', text: 'one' }] }, S_INFO),
  );
  assert.deepEqual(
    await modern(client, 2, 'resources/read', { uri: 'r://item/2' }),
    fail(2, { code: -32602, message: 'Resource not found', data: { uri: 'r://item/2' } }),
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Logging, progress and the refused back channel (MCP 2026-07-28, Server > Utilities > Logging; Basic > Patterns >
// Progress; Basic > Patterns > Overview)

function logMessage(level: LoggingLevel, data: unknown, logger?: string): Frame {
  const params: Record<string, unknown> = { level, data };
  if (logger !== undefined) params.logger = logger;
  return { jsonrpc: '2.0', method: 'notifications/message', params };
}

test('test_logging_tool sends notifications/message only when the envelope sets logLevel, at or above it', async () => {
  const client = new WireClient(createEverythingServer());
  const result = (id: Id) => complete(id, { content: [text('Logging evaluated')] });
  const call = { name: 'test_logging_tool' };
  client.send(modernFrame('none', 'tools/call', call));
  assert.deepEqual(await untilResponse(client, 'none'), [result('none')]);
  for (const level of ['debug', 'info'] as const) {
    client.send(modernFrame(level, 'tools/call', call, { meta: { [LOG_LEVEL]: level } }));
    assert.deepEqual(
      await untilResponse(client, level),
      [logMessage('info', 'Logging tool evaluated'), result(level)],
      level,
    );
  }
  for (const level of ['notice', 'warning', 'emergency'] as const) {
    client.send(modernFrame(level, 'tools/call', call, { meta: { [LOG_LEVEL]: level } }));
    assert.deepEqual(await untilResponse(client, level), [result(level)], level);
  }
  // The level of one request never carries over to the next.
  client.send(modernFrame('after', 'tools/call', call));
  assert.deepEqual(await untilResponse(client, 'after'), [result('after')]);
  assert.deepEqual(await client.end(), []);
});

function levelsServer(options: ServerOptions = {}) {
  const { server } = quietServer(options);
  server.tool('log_levels', { inputSchema: NO_ARGS }, (_args, ctx) => {
    for (const level of LEVELS) ctx.log(level, { at: level }, 'lg');
    ctx.log('info', 'no logger name');
    return { content: [text('logged')] };
  });
  return server;
}

for (const threshold of LEVELS) {
  test(`a tool logging at every level with logLevel ${threshold} sends exactly the levels at or above it, in order`, async () => {
    const client = new WireClient(levelsServer());
    client.send(modernFrame(1, 'tools/call', { name: 'log_levels' }, { meta: { [LOG_LEVEL]: threshold } }));
    const expected = LEVELS.slice(LEVELS.indexOf(threshold)).map((level) => logMessage(level, { at: level }, 'lg'));
    if (LEVELS.indexOf(threshold) <= LEVELS.indexOf('info')) expected.push(logMessage('info', 'no logger name'));
    assert.deepEqual(await untilResponse(client, 1), [...expected, complete(1, { content: [text('logged')] }, S_INFO)]);
    assert.deepEqual(await client.end(), []);
  });
}

test('with the logging option off, a logLevel in the envelope opens nothing', async () => {
  const client = new WireClient(levelsServer({ logging: false }));
  client.send(modernFrame(1, 'tools/call', { name: 'log_levels' }, { meta: { [LOG_LEVEL]: 'debug' } }));
  assert.deepEqual(await untilResponse(client, 1), [complete(1, { content: [text('logged')] }, S_INFO)]);
  assert.deepEqual(await client.end(), []);
});

test('progress goes out only with a progressToken, on the request, before its response', async () => {
  const client = new WireClient(createEverythingServer());
  const done = (id: Id) => complete(id, { content: [text('Progress completed')] });
  client.send(modernFrame('plain', 'tools/call', { name: 'test_tool_with_progress' }));
  assert.deepEqual(await untilResponse(client, 'plain'), [done('plain')]);
  for (const token of ['progress-test-1', 7]) {
    client.send(
      modernFrame(`t-${token}`, 'tools/call', { name: 'test_tool_with_progress' }, { meta: { progressToken: token } }),
    );
    const progress = (value: number) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: value, total: 100, message: `Completed step ${value} of 100` },
    });
    assert.deepEqual(await untilResponse(client, `t-${token}`), [
      progress(0),
      progress(50),
      progress(100),
      done(`t-${token}`),
    ]);
  }
  assert.deepEqual(await client.end(), []);
});

test('a context kept past the response sends neither log messages nor progress', async () => {
  const { server } = quietServer();
  let kept: Context | undefined;
  server.tool('keeper', { inputSchema: NO_ARGS }, (_args, ctx) => {
    kept = ctx;
    ctx.log('error', 'during');
    ctx.progress(1, 10);
    return { content: [text('kept')] };
  });
  const client = new WireClient(server);
  client.send(
    modernFrame(1, 'tools/call', { name: 'keeper' }, { meta: { [LOG_LEVEL]: 'debug', progressToken: 'tok' } }),
  );
  assert.deepEqual(await untilResponse(client, 1), [
    logMessage('error', 'during'),
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 10 } },
    complete(1, { content: [text('kept')] }, S_INFO),
  ]);
  kept!.log('emergency', 'after the response');
  kept!.progress(5, 10, 'after the response');
  await assertQuiet(client);
  assert.deepEqual(await client.end(), []);
});

test('a handler that logs and reports progress while in flight delivers them before the response, not after', async () => {
  const { server } = quietServer();
  const release = deferred();
  const started = deferred<Context>();
  server.tool('slow', { inputSchema: NO_ARGS }, async (_args, ctx) => {
    started.resolve(ctx);
    await release.promise;
    return { content: [text('slow')] };
  });
  const client = new WireClient(server);
  client.send(modernFrame('s', 'tools/call', { name: 'slow' }, { meta: { [LOG_LEVEL]: 'info', progressToken: 'p' } }));
  const ctx = await started.promise;
  ctx.log('info', 'in flight');
  ctx.progress(3);
  assert.deepEqual(await client.next(), logMessage('info', 'in flight'));
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'p', progress: 3 },
  });
  release.resolve();
  assert.deepEqual(await client.next(), complete('s', { content: [text('slow')] }, S_INFO));
  ctx.log('info', 'late');
  ctx.progress(4);
  await assertQuiet(client);
  assert.deepEqual(await client.end(), []);
});

const NO_BACK_CHANNEL = /this transport context has no back-channel for server-initiated requests/;

test('ctx.elicit/sample/listRoots/ping reject at once inside a modern handler, and no request frame is written', async () => {
  const { server } = quietServer();
  const outcomes: unknown[] = [];
  server.tool('back_channel', { inputSchema: NO_ARGS }, async (_args, ctx) => {
    const attempts: (() => Promise<unknown>)[] = [
      () => ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }),
      () => ctx.sample({ messages: [], maxTokens: 1 }),
      () => ctx.listRoots(),
      () => ctx.ping(),
    ];
    for (const attempt of attempts) {
      const settled = attempt().then(
        () => 'resolved',
        (error: unknown) => error,
      );
      // Settled before the event loop turns: no timer, no waiting for a client.
      outcomes.push(
        await Promise.race([settled, new Promise((resolve) => setImmediate(() => resolve('still pending')))]),
      );
    }
    return { content: [text('tried')] };
  });
  const client = new WireClient(server);
  client.send(
    modernFrame(1, 'tools/call', { name: 'back_channel' }, { caps: { elicitation: {}, sampling: {}, roots: {} } }),
  );
  assert.deepEqual(await untilResponse(client, 1), [complete(1, { content: [text('tried')] }, S_INFO)]);
  assert.equal(outcomes.length, 4);
  for (const [index, method] of ['elicitation/create', 'sampling/createMessage', 'roots/list', 'ping'].entries()) {
    const outcome = outcomes[index];
    assert.ok(outcome instanceof OutboundRequestError, `${method}: ${String(outcome)}`);
    assert.match(outcome.message, NO_BACK_CHANNEL);
    assert.equal(outcome.code, -32600, 'the one documented no-back-channel code (docs/eras.md, Error codes)');
    assert.ok(outcome.message.includes(`'${method}'`), outcome.message);
  }
  assert.deepEqual(client.unansweredServerRequests(), []);
  assert.deepEqual(await client.end(), []);
});

test('a modern tool that lets the refused back channel throw is an in-band tool failure, still without a request frame', async () => {
  const { server, logger } = quietServer();
  server.tool('elicit_uncaught', { inputSchema: NO_ARGS }, async (_args, ctx) => {
    await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
    return { content: [text('unreachable')] };
  });
  const client = new WireClient(server);
  client.send(modernFrame(1, 'tools/call', { name: 'elicit_uncaught' }, { caps: { elicitation: {} } }));
  assert.deepEqual(await untilResponse(client, 1), [
    complete(1, { content: [text('Tool execution failed')], isError: true }, S_INFO),
  ]);
  assert.equal(logger.errors.length, 1);
  assert.match(String((logger.errors[0]!.error as Error).message), NO_BACK_CHANNEL);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Era-restricted registration

const SHARED_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'test_tool_with_progress',
  'test_tool_with_logging',
  'json_schema_2020_12_tool',
];
const DIAGNOSTICS = ['test_sleep', 'test_throw', 'test_publish'];
const LEGACY_ONLY_TOOLS = [
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_reconnection',
];
const MODERN_ONLY_TOOLS = [
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  'test_header_param',
];
const SHARED_PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
];

test('each era of the demo server lists only its own tools and prompts', async () => {
  const server = createEverythingServer();
  const modernClient = new WireClient(server);
  const legacy = new WireClient(server);
  await legacy.initialize('2025-11-25', { elicitation: {}, sampling: {} });
  const names = (items: { name: string }[]) => items.map((item) => item.name);
  assert.deepEqual(names((await modern(modernClient, 1, 'tools/list')).result.tools), [
    ...SHARED_TOOLS,
    ...DIAGNOSTICS,
    ...MODERN_ONLY_TOOLS,
    ...DEMO_TASK_TOOLS,
  ]);
  assert.deepEqual(names((await legacy.request('tools/list', undefined, 1)).result.tools), [
    ...SHARED_TOOLS,
    ...LEGACY_ONLY_TOOLS,
    ...DIAGNOSTICS,
    ...DEMO_TASK_TOOLS,
  ]);
  assert.deepEqual(names((await modern(modernClient, 2, 'prompts/list')).result.prompts), [
    ...SHARED_PROMPTS,
    'test_input_required_result_prompt',
  ]);
  assert.deepEqual(names((await legacy.request('prompts/list', undefined, 2)).result.prompts), SHARED_PROMPTS);
  const uris = (items: { uri: string }[]) => items.map((item) => item.uri);
  const resources = ['test://static-text', 'test://static-binary', 'test://watched-resource', ...DEMO_SKILL_FILES];
  assert.deepEqual(uris((await modern(modernClient, 3, 'resources/list')).result.resources), resources);
  assert.deepEqual(uris((await legacy.request('resources/list', undefined, 3)).result.resources), resources);
  assert.deepEqual(await modernClient.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test("calling the other era's tool or prompt on the demo server is -32602, exactly like an unknown name", async () => {
  const server = createEverythingServer();
  const modernClient = new WireClient(server);
  const legacy = new WireClient(server);
  await legacy.initialize('2025-11-25', { elicitation: {}, sampling: {}, roots: {} });
  const unknownTool = (id: Id, name: string) =>
    fail(id, { code: -32602, message: `Invalid params: unknown tool '${name}'` });
  const unknownPrompt = (id: Id, name: string) =>
    fail(id, { code: -32602, message: `Invalid params: unknown prompt '${name}'` });
  for (const name of ['test_input_required_result_elicitation', 'test_missing_capability', 'no_such_tool']) {
    assert.deepEqual(await legacy.request('tools/call', { name }, name), unknownTool(name, name));
  }
  for (const name of ['test_input_required_result_prompt', 'no_such_prompt']) {
    assert.deepEqual(await legacy.request('prompts/get', { name }, name), unknownPrompt(name, name));
  }
  const caps = { caps: { sampling: {}, elicitation: {}, roots: {} } };
  for (const [name, args] of [
    ['test_sampling', { prompt: 'hi' }],
    ['test_elicitation', { message: 'hi' }],
    ['no_such_tool', {}],
  ] as const) {
    assert.deepEqual(
      await modern(modernClient, name, 'tools/call', { name, arguments: args }, caps),
      unknownTool(name, name),
    );
  }
  // Nothing was sent to either client on behalf of those calls.
  await assertQuiet(modernClient);
  await assertQuietLegacy(legacy);
  assert.deepEqual(await modernClient.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('era-restricted resources, templates, prompts and completions are invisible to the other era', async () => {
  const { server } = quietServer();
  server.tool('both', { inputSchema: NO_ARGS }, () => ({ content: [text('both')] }));
  server.tool('old', { era: 'legacy', inputSchema: NO_ARGS }, () => ({ content: [text('old')] }));
  server.tool('new', { era: 'modern', inputSchema: NO_ARGS }, () => ({ content: [text('new')] }));
  const read = (uri: string) => ({ contents: [{ uri, text: uri }] });
  server.resource('r://both', { name: 'both' }, read);
  server.resource('r://old', { name: 'old', era: 'legacy' }, read);
  server.resource('r://new', { name: 'new', era: 'modern' }, read);
  server.resourceTemplate('t://old/{x}', { name: 'old-t', era: 'legacy', complete: { x: () => ['o'] } }, read);
  server.resourceTemplate('t://new/{x}', { name: 'new-t', era: 'modern', complete: { x: () => ['n'] } }, read);
  const prompt = (name: string) => () => ({ messages: [{ role: 'user' as const, content: text(name) }] });
  server.prompt('p-old', { era: 'legacy', arguments: [{ name: 'a' }], complete: { a: () => ['x'] } }, prompt('p-old'));
  server.prompt('p-new', { era: 'modern', arguments: [{ name: 'a' }], complete: { a: () => ['y'] } }, prompt('p-new'));
  const modernClient = new WireClient(server);
  const legacy = new WireClient(server);
  await legacy.initialize();

  assert.deepEqual(
    (await modern(modernClient, 1, 'tools/list')).result.tools.map((t: Frame) => t.name),
    ['both', 'new'],
  );
  assert.deepEqual(
    (await legacy.request('tools/list', undefined, 1)).result.tools.map((t: Frame) => t.name),
    ['both', 'old'],
  );
  assert.deepEqual((await modern(modernClient, 2, 'resources/list')).result.resources, [
    { uri: 'r://both', name: 'both' },
    { uri: 'r://new', name: 'new' },
  ]);
  assert.deepEqual((await legacy.request('resources/list', undefined, 2)).result.resources, [
    { uri: 'r://both', name: 'both' },
    { uri: 'r://old', name: 'old' },
  ]);
  assert.deepEqual((await modern(modernClient, 3, 'resources/templates/list')).result.resourceTemplates, [
    { uriTemplate: 't://new/{x}', name: 'new-t' },
  ]);
  assert.deepEqual((await legacy.request('resources/templates/list', undefined, 3)).result.resourceTemplates, [
    { uriTemplate: 't://old/{x}', name: 'old-t' },
  ]);
  assert.deepEqual((await modern(modernClient, 4, 'prompts/list')).result.prompts, [
    { name: 'p-new', arguments: [{ name: 'a' }] },
  ]);
  assert.deepEqual((await legacy.request('prompts/list', undefined, 4)).result.prompts, [
    { name: 'p-old', arguments: [{ name: 'a' }] },
  ]);

  // Each era's own items work ...
  assert.deepEqual(
    await modern(modernClient, 5, 'tools/call', { name: 'new' }),
    complete(5, { content: [text('new')] }, S_INFO),
  );
  assert.deepEqual(await legacy.request('tools/call', { name: 'old' }, 5), ok(5, { content: [text('old')] }));
  assert.deepEqual(
    await modern(modernClient, 6, 'resources/read', { uri: 't://new/1' }),
    cached(6, read('t://new/1'), S_INFO),
  );
  assert.deepEqual(await legacy.request('resources/read', { uri: 't://old/1' }, 6), ok(6, read('t://old/1')));
  // ... and the other era's are unknown.
  assert.deepEqual(
    await modern(modernClient, 7, 'tools/call', { name: 'old' }),
    fail(7, { code: -32602, message: "Invalid params: unknown tool 'old'" }),
  );
  assert.deepEqual(
    await legacy.request('tools/call', { name: 'new' }, 7),
    fail(7, { code: -32602, message: "Invalid params: unknown tool 'new'" }),
  );
  for (const [id, uri] of [
    [8, 'r://old'],
    [9, 't://old/1'],
  ] as const) {
    assert.deepEqual(
      await modern(modernClient, id, 'resources/read', { uri }),
      fail(id, { code: -32602, message: 'Resource not found', data: { uri } }),
    );
  }
  for (const [id, uri] of [
    [8, 'r://new'],
    [9, 't://new/1'],
  ] as const) {
    assert.deepEqual(
      await legacy.request('resources/read', { uri }, id),
      fail(id, { code: -32002, message: 'Resource not found', data: { uri } }),
    );
  }
  assert.deepEqual(
    await modern(modernClient, 10, 'prompts/get', { name: 'p-old' }),
    fail(10, { code: -32602, message: "Invalid params: unknown prompt 'p-old'" }),
  );
  assert.deepEqual(
    await legacy.request('prompts/get', { name: 'p-new' }, 10),
    fail(10, { code: -32602, message: "Invalid params: unknown prompt 'p-new'" }),
  );
  const completePrompt = (name: string) => ({ ref: { type: 'ref/prompt', name }, argument: { name: 'a', value: '' } });
  const completeTemplate = (uri: string) => ({
    ref: { type: 'ref/resource', uri },
    argument: { name: 'x', value: '' },
  });
  assert.deepEqual(
    await modern(modernClient, 11, 'completion/complete', completePrompt('p-new')),
    complete(11, { completion: { values: ['y'], total: 1, hasMore: false } }, S_INFO),
  );
  assert.deepEqual(
    await modern(modernClient, 12, 'completion/complete', completePrompt('p-old')),
    fail(12, { code: -32602, message: "Invalid params: unknown prompt 'p-old'" }),
  );
  assert.deepEqual(
    await modern(modernClient, 13, 'completion/complete', completeTemplate('t://old/{x}')),
    fail(13, { code: -32602, message: "Invalid params: unknown resource template 't://old/{x}'" }),
  );
  assert.deepEqual(
    await legacy.request('completion/complete', completePrompt('p-new'), 12),
    fail(12, { code: -32602, message: "Invalid params: unknown prompt 'p-new'" }),
  );
  assert.deepEqual(
    await legacy.request('completion/complete', completeTemplate('t://new/{x}'), 13),
    fail(13, { code: -32602, message: "Invalid params: unknown resource template 't://new/{x}'" }),
  );
  assert.deepEqual(await modernClient.end(), []);
  assert.deepEqual(await legacy.end(), []);
});

test('the modern lists are identical across connections, capabilities and clients', async () => {
  const server = createEverythingServer();
  const a = new WireClient(server);
  const b = new WireClient(server);
  const legacy = new WireClient(server);
  await legacy.initialize('2025-11-25', { sampling: {} });
  for (const method of [
    'tools/list',
    'prompts/list',
    'resources/list',
    'resources/templates/list',
    'server/discover',
  ]) {
    const first = await modern(a, method, method);
    await legacy.request(method === 'server/discover' ? 'ping' : method, undefined, method);
    await modern(a, `${method}-trigger`, 'tools/call', { name: 'test_trigger_tool_change' });
    const second = await modern(
      b,
      method,
      method,
      {},
      {
        caps: { sampling: {}, elicitation: {}, roots: {} },
        meta: { [CLIENT_INFO]: { name: 'other', version: '9' }, [LOG_LEVEL]: 'debug' },
      },
    );
    assert.deepEqual(second, first, method);
  }
  assert.deepEqual(await a.end(), []);
  assert.deepEqual(await b.end(), []);
  // The legacy connection got one broadcast list_changed per trigger; nothing else.
  assert.deepEqual(
    await legacy.end(),
    Array.from({ length: 5 }, () => ({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })),
  );
});

// ---------------------------------------------------------------------------------------------------------------
// input_required on the modern wire with the demo fixtures (MCP 2026-07-28, Basic > Patterns > Multi Round-Trip
// Requests)

const ELICIT = { elicitation: {} };
const ALL_INPUT_CAPS = { elicitation: {}, sampling: {}, roots: {} };

function askFor(message: string, field: string) {
  return {
    method: 'elicitation/create',
    params: {
      message,
      requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] },
    },
  };
}

const USER_NAME = askFor('What is your name?', 'name');
const CONFIRM = {
  method: 'elicitation/create',
  params: {
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  },
};
const ALICE = { action: 'accept', content: { name: 'Alice' } };
const VERIFICATION_FAILED = { code: -32602, message: 'Invalid params: requestState failed verification' };

test('test_input_required_result_elicitation: round 1 is exactly input_required, a retry with a new id completes', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_elicitation' };
  assert.deepEqual(await modern(client, 1, 'tools/call', call, { caps: ELICIT }), asking(1, { user_name: USER_NAME }));
  assert.deepEqual(
    await modern(client, 2, 'tools/call', { ...call, inputResponses: { user_name: ALICE } }, { caps: ELICIT }),
    complete(2, { content: [text('Hello, Alice!')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_elicitation: a missing or wrong key asks again, extra keys are ignored', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_elicitation' };
  for (const [id, inputResponses] of [
    ['empty', {}],
    ['wrong-key', { username: ALICE }],
    ['declined', { user_name: { action: 'decline' } }],
  ] as const) {
    assert.deepEqual(
      await modern(client, id, 'tools/call', { ...call, inputResponses }, { caps: ELICIT }),
      asking(id, { user_name: USER_NAME }),
      id,
    );
  }
  assert.deepEqual(
    await modern(
      client,
      'extra',
      'tools/call',
      { ...call, inputResponses: { user_name: ALICE, extra: { anything: 1 }, more: {} } },
      { caps: ELICIT },
    ),
    complete('extra', { content: [text('Hello, Alice!')] }),
  );
  assert.deepEqual(await client.end(), []);
});

for (const [label, inputResponses, message] of [
  ['user_name: 12345', { user_name: 12345 }, 'Invalid params: params.inputResponses.user_name must be an object'],
  ['user_name: null', { user_name: null }, 'Invalid params: params.inputResponses.user_name must be an object'],
  ['user_name: an array', { user_name: [ALICE] }, 'Invalid params: params.inputResponses.user_name must be an object'],
  ['inputResponses: a string', 'Alice', 'Invalid params: params.inputResponses must be an object'],
  ['inputResponses: an array', [ALICE], 'Invalid params: params.inputResponses must be an object'],
  ['inputResponses: null', null, 'Invalid params: params.inputResponses must be an object'],
] as const) {
  test(`a structurally invalid retry (${label}) is -32602, never a complete result`, async () => {
    const client = new WireClient(createEverythingServer());
    const call = { name: 'test_input_required_result_elicitation', inputResponses };
    assert.deepEqual(await modern(client, 1, 'tools/call', call, { caps: ELICIT }), fail(1, { code: -32602, message }));
    assert.deepEqual(await client.end(), []);
  });
}

test('test_input_required_result_sampling asks one sampling/createMessage and completes with the sampled text', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_sampling' };
  assert.deepEqual(
    await modern(client, 1, 'tools/call', call, { caps: { sampling: {} } }),
    asking(1, {
      capital_question: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: text('What is the capital of France?') }], maxTokens: 100 },
      },
    }),
  );
  const sampled = { role: 'assistant', content: text('Paris'), model: 'test-model', stopReason: 'endTurn' };
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { ...call, inputResponses: { capital_question: sampled } },
      { caps: { sampling: {} } },
    ),
    complete(2, { content: [text('Sampled: Paris')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_list_roots asks roots/list and completes with the root count', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_list_roots' };
  assert.deepEqual(
    await modern(client, 1, 'tools/call', call, { caps: { roots: {} } }),
    asking(1, { client_roots: { method: 'roots/list', params: {} } }),
  );
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { ...call, inputResponses: { client_roots: { roots: [{ uri: 'file:///project', name: 'project' }] } } },
      { caps: { roots: {} } },
    ),
    complete(2, { content: [text('Found 1 root(s)')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_request_state round-trips its state verbatim to "state-ok"', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_request_state' };
  const first = await modern(client, 1, 'tools/call', call, { caps: ELICIT });
  const state = first.result.requestState;
  assert.equal(typeof state, 'string');
  assert.deepEqual(first, asking(1, { confirm: CONFIRM }, state));
  const confirm = { action: 'accept', content: { ok: true } };
  // Responses without the state, or the state without responses, are asked again (with a fresh state).
  const noState = await modern(client, 2, 'tools/call', { ...call, inputResponses: { confirm } }, { caps: ELICIT });
  assert.deepEqual(noState, asking(2, { confirm: CONFIRM }, noState.result.requestState));
  const noResponses = await modern(client, 3, 'tools/call', { ...call, requestState: state }, { caps: ELICIT });
  assert.deepEqual(noResponses, asking(3, { confirm: CONFIRM }, noResponses.result.requestState));
  const final = await modern(
    client,
    4,
    'tools/call',
    { ...call, inputResponses: { confirm }, requestState: state },
    { caps: ELICIT },
  );
  assert.deepEqual(final, complete(4, { content: [text('Confirmed with state-ok (action=accept)')] }));
  assert.ok(final.result.content[0].text.includes('state-ok'));
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_multiple_inputs asks three inputs with a state and completes with all three', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_multiple_inputs' };
  const first = await modern(client, 1, 'tools/call', call, { caps: ALL_INPUT_CAPS });
  assert.equal(typeof first.result.requestState, 'string');
  assert.deepEqual(
    first,
    asking(
      1,
      {
        user_name: USER_NAME,
        greeting: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: text('Generate a greeting') }], maxTokens: 50 },
        },
        client_roots: { method: 'roots/list', params: {} },
      },
      first.result.requestState,
    ),
  );
  const inputResponses = {
    user_name: ALICE,
    greeting: { role: 'assistant', content: text('Hi there'), model: 'm' },
    client_roots: { roots: [] },
  };
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { ...call, inputResponses, requestState: first.result.requestState },
      { caps: ALL_INPUT_CAPS },
    ),
    complete(2, { content: [text('Received 3 inputs: Alice, Hi there')] }),
  );
  // Without the roots capability the request cannot be produced: -32021 naming only what is missing.
  assert.deepEqual(
    await modern(client, 3, 'tools/call', call, { caps: { elicitation: {}, sampling: {} } }),
    fail(3, {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { roots: {} } },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_multi_round: three rounds, and state 2 differs from state 1', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_multi_round' };
  const round1 = await modern(client, 1, 'tools/call', call, { caps: ELICIT });
  const state1 = round1.result.requestState;
  assert.equal(typeof state1, 'string');
  assert.deepEqual(round1, asking(1, { step1: askFor('Step 1: What is your name?', 'name') }, state1));
  const round2 = await modern(
    client,
    2,
    'tools/call',
    { ...call, inputResponses: { step1: ALICE }, requestState: state1 },
    { caps: ELICIT },
  );
  const state2 = round2.result.requestState;
  assert.equal(typeof state2, 'string');
  assert.notEqual(state2, state1);
  assert.deepEqual(round2, asking(2, { step2: askFor('Step 2: What is your favorite color?', 'color') }, state2));
  assert.deepEqual(
    await modern(
      client,
      3,
      'tools/call',
      { ...call, inputResponses: { step2: { action: 'accept', content: { color: 'blue' } } }, requestState: state2 },
      { caps: ELICIT },
    ),
    complete(3, { content: [text('Alice likes blue')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_tampered_state: "-TAMPERED" appended is -32602 requestState failed verification', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_tampered_state' };
  const first = await modern(client, 1, 'tools/call', call, { caps: ELICIT });
  const state = first.result.requestState;
  assert.equal(typeof state, 'string');
  assert.deepEqual(first, asking(1, { confirm: CONFIRM }, state));
  const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { ...call, inputResponses, requestState: `${state}-TAMPERED` },
      { caps: ELICIT },
    ),
    fail(2, VERIFICATION_FAILED),
  );
  for (const [id, forged] of [
    [3, state.slice(0, -1)],
    [4, ''],
    [5, 42],
    [6, { state }],
    [7, `x${state}`],
  ] as const) {
    assert.deepEqual(
      await modern(client, id, 'tools/call', { ...call, inputResponses, requestState: forged }, { caps: ELICIT }),
      fail(id, VERIFICATION_FAILED),
      String(id),
    );
  }
  // The untouched state still verifies.
  assert.deepEqual(
    await modern(client, 8, 'tools/call', { ...call, inputResponses, requestState: state }, { caps: ELICIT }),
    complete(8, { content: [text('State verified')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a requestState replayed on another tool, other arguments or another method is refused', async () => {
  const client = new WireClient(createEverythingServer());
  const first = await modern(
    client,
    1,
    'tools/call',
    { name: 'test_input_required_result_request_state' },
    { caps: ELICIT },
  );
  const requestState = first.result.requestState;
  const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { name: 'test_input_required_result_tampered_state', inputResponses, requestState },
      { caps: ELICIT },
    ),
    fail(2, VERIFICATION_FAILED),
  );
  assert.deepEqual(
    await modern(
      client,
      3,
      'tools/call',
      { name: 'test_input_required_result_request_state', arguments: { extra: 1 }, inputResponses, requestState },
      { caps: ELICIT },
    ),
    fail(3, VERIFICATION_FAILED),
  );
  assert.deepEqual(
    await modern(
      client,
      4,
      'prompts/get',
      { name: 'test_input_required_result_prompt', inputResponses, requestState },
      { caps: ELICIT },
    ),
    fail(4, VERIFICATION_FAILED),
  );
  // A different envelope (capabilities, clientInfo) is not part of the binding: the original call still verifies.
  assert.deepEqual(
    await modern(
      client,
      5,
      'tools/call',
      { name: 'test_input_required_result_request_state', inputResponses, requestState },
      {
        caps: { elicitation: {}, sampling: {} },
        meta: { [CLIENT_INFO]: { name: 'c', version: '1' } },
      },
    ),
    complete(5, { content: [text('Confirmed with state-ok (action=accept)')] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a state sealed by one server instance is refused by another (per-server secret)', async () => {
  const a = new WireClient(createEverythingServer());
  const b = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_tampered_state' };
  const { result } = await modern(a, 1, 'tools/call', call, { caps: ELICIT });
  const inputResponses = { confirm: { action: 'accept', content: { ok: true } } };
  assert.deepEqual(
    await modern(b, 1, 'tools/call', { ...call, inputResponses, requestState: result.requestState }, { caps: ELICIT }),
    fail(1, VERIFICATION_FAILED),
  );
  assert.deepEqual(await a.end(), []);
  assert.deepEqual(await b.end(), []);
});

test('test_input_required_result_capabilities with only sampling asks only sampling/createMessage', async () => {
  const client = new WireClient(createEverythingServer());
  const call = { name: 'test_input_required_result_capabilities' };
  const summary = {
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: text('Summarize') }], maxTokens: 50 },
  };
  assert.deepEqual(await modern(client, 1, 'tools/call', call, { caps: { sampling: {} } }), asking(1, { summary }));
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { ...call, inputResponses: { summary: { role: 'assistant', content: text('short'), model: 'm' } } },
      { caps: { sampling: {} } },
    ),
    complete(2, { content: [text('Completed with 1 input(s)')] }),
  );
  assert.deepEqual(
    await modern(client, 3, 'tools/call', call, { caps: { sampling: {}, elicitation: {} } }),
    asking(3, { summary, confirm: askFor('Please confirm', 'ok') }),
  );
  assert.deepEqual(await client.end(), []);
});

test('test_input_required_result_prompt: prompts/get asks for context, then completes', async () => {
  const client = new WireClient(createEverythingServer());
  const get = { name: 'test_input_required_result_prompt' };
  assert.deepEqual(
    await modern(client, 1, 'prompts/get', get, { caps: ELICIT }),
    asking(1, {
      user_context: askFor('What context should the prompt use?', 'context'),
    }),
  );
  assert.deepEqual(
    await modern(
      client,
      2,
      'prompts/get',
      { ...get, inputResponses: { user_context: { action: 'accept', content: { context: 'formal' } } } },
      { caps: ELICIT },
    ),
    complete(2, { messages: [{ role: 'user', content: text('Prompt with context: formal') }] }),
  );
  assert.deepEqual(
    await modern(client, 3, 'prompts/get', get),
    fail(3, {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { elicitation: {} } },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('an input request for a capability the request did not declare is -32021 naming only the missing ones', async () => {
  const { server } = quietServer();
  server.tool('ask_elicitation', { inputSchema: NO_ARGS }, () =>
    inputRequired({ q: elicitInput({ message: 'Name?', requestedSchema: NO_ARGS }) }),
  );
  server.tool('ask_all', { inputSchema: NO_ARGS }, () =>
    inputRequired(
      {
        q: elicitInput({ message: 'Name?', requestedSchema: NO_ARGS }),
        s: sampleInput({ messages: [], maxTokens: 1 }),
        r: listRootsInput(),
      },
      { any: 'state' },
    ),
  );
  const client = new WireClient(server);
  const missing = (id: Id, requiredCapabilities: object) =>
    fail(id, { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities } });
  assert.deepEqual(
    await modern(client, 1, 'tools/call', { name: 'ask_elicitation' }, { caps: {} }),
    missing(1, { elicitation: {} }),
  );
  // A capability declared as something other than an object is not declared.
  assert.deepEqual(
    await modern(client, 2, 'tools/call', { name: 'ask_elicitation' }, { caps: { elicitation: true } }),
    missing(2, { elicitation: {} }),
  );
  assert.deepEqual(
    await modern(client, 3, 'tools/call', { name: 'ask_all' }, { caps: { sampling: {} } }),
    missing(3, { elicitation: {}, roots: {} }),
  );
  assert.deepEqual(
    await modern(client, 4, 'tools/call', { name: 'ask_elicitation' }, { caps: ELICIT }),
    asking(
      4,
      { q: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: NO_ARGS } } },
      undefined,
      S_INFO,
    ),
  );
  assert.deepEqual(await client.end(), []);
});

test('an input-required answer with only a state has no inputRequests, and the retry gets the state back', async () => {
  const { server } = quietServer();
  const seen: unknown[] = [];
  server.tool(
    'state_only',
    { inputSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
    (_args, ctx) => {
      seen.push(plain(ctx.requestState));
      return ctx.requestState === undefined ? inputRequired({}, { k: [1, 'two'] }) : { content: [text('resumed')] };
    },
  );
  const client = new WireClient(server);
  const first = await modern(client, 1, 'tools/call', { name: 'state_only', arguments: { n: 1 } });
  assert.equal(typeof first.result.requestState, 'string');
  assert.deepEqual(first, asking(1, undefined, first.result.requestState, S_INFO));
  assert.deepEqual(
    await modern(client, 2, 'tools/call', {
      name: 'state_only',
      arguments: { n: 1 },
      requestState: first.result.requestState,
    }),
    complete(2, { content: [text('resumed')] }, S_INFO),
  );
  assert.deepEqual(seen, [undefined, { k: [1, 'two'] }]);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// The legacy shim: the same input-required handlers on a 2025 connection

const NAME_PARAMS = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

/** A server whose tool `ask_name` (no era restriction) asks for a name through inputRequired and records each run. */
function shimServer(options: ServerOptions = {}) {
  const { server, logger } = quietServer(options);
  const runs: { era: string; inputResponses: unknown; requestState: unknown }[] = [];
  server.tool('ask_name', { inputSchema: NO_ARGS }, (_args, ctx) => {
    runs.push({ era: ctx.era, inputResponses: plain(ctx.inputResponses), requestState: plain(ctx.requestState) });
    const answer = ctx.inputResponses?.user_name;
    if (answer === undefined) return inputRequired({ user_name: elicitInput(NAME_PARAMS) }, { n: 1 });
    const name = (answer.content as { name?: unknown } | undefined)?.name;
    return { content: [text(`Hello ${String(name)}, state ${JSON.stringify(ctx.requestState)}`)] };
  });
  return { server, logger, runs };
}

test('legacy shim: a 2025 client with elicitation gets a real elicitation/create, and the tool completes with the answer', async () => {
  const { server, runs } = shimServer();
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name' } });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: NAME_PARAMS });
  client.send({ jsonrpc: '2.0', id: 0, result: ALICE });
  assert.deepEqual(await client.next(), ok('call', { content: [text('Hello Alice, state {"n":1}')] }));
  assert.deepEqual(runs, [
    { era: 'legacy', inputResponses: undefined, requestState: undefined },
    { era: 'legacy', inputResponses: { user_name: ALICE }, requestState: { n: 1 } },
  ]);
  assert.deepEqual(client.unansweredServerRequests(), []);
  await assertQuietLegacy(client);
  assert.deepEqual(await client.end(), []);
});

test('the same unchanged handler serves the modern era through input_required and a sealed state', async () => {
  const { server, runs } = shimServer();
  const client = new WireClient(server);
  const first = await modern(client, 1, 'tools/call', { name: 'ask_name' }, { caps: ELICIT });
  assert.deepEqual(
    first,
    asking(1, { user_name: { method: 'elicitation/create', params: NAME_PARAMS } }, first.result.requestState, S_INFO),
  );
  assert.doesNotMatch(first.result.requestState, /"n"/);
  assert.deepEqual(
    await modern(
      client,
      2,
      'tools/call',
      { name: 'ask_name', inputResponses: { user_name: ALICE }, requestState: first.result.requestState },
      { caps: ELICIT },
    ),
    complete(2, { content: [text('Hello Alice, state {"n":1}')] }, S_INFO),
  );
  assert.deepEqual(
    runs.map((run) => run.era),
    ['modern', 'modern'],
  );
  assert.deepEqual(runs[1]!.requestState, { n: 1 });
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: all inputs of one round are sent together, before any answer', async () => {
  const { server } = quietServer();
  const rounds: unknown[] = [];
  server.tool('ask_three', { inputSchema: NO_ARGS }, (_args, ctx) => {
    rounds.push(plain(ctx.inputResponses));
    if (ctx.inputResponses === undefined) {
      return inputRequired({
        user_name: elicitInput(NAME_PARAMS),
        greeting: sampleInput({ messages: [{ role: 'user', content: text('Generate a greeting') }], maxTokens: 50 }),
        client_roots: listRootsInput(),
      });
    }
    return { content: [text(`got ${Object.keys(ctx.inputResponses).join(',')}`)] };
  });
  const client = new WireClient(server);
  await client.initialize('2025-11-25', ALL_INPUT_CAPS);
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_three' } });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: NAME_PARAMS });
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    id: 1,
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: text('Generate a greeting') }], maxTokens: 50 },
  });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 2, method: 'roots/list' });
  // Answers in reverse order still land under their own keys.
  const greeting = { role: 'assistant', content: text('Hi'), model: 'm' };
  client.send({ jsonrpc: '2.0', id: 2, result: { roots: [] } });
  client.send({ jsonrpc: '2.0', id: 1, result: greeting });
  client.send({ jsonrpc: '2.0', id: 0, result: ALICE });
  assert.deepEqual(await client.next(), ok('call', { content: [text('got user_name,greeting,client_roots')] }));
  assert.deepEqual(rounds, [undefined, { user_name: ALICE, greeting, client_roots: { roots: [] } }]);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: a client without the capability gets an isError tool result and no request frame', async () => {
  const { server, logger, runs } = shimServer();
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { sampling: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name' } });
  assert.deepEqual(
    await client.next(),
    ok('call', { content: [text('The client could not provide the requested input')], isError: true }),
  );
  assert.equal(runs.length, 1);
  assert.equal(logger.errors.length, 1);
  await assertQuietLegacy(client);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: a round the client can answer only in part sends nothing at all', async () => {
  const { server, logger } = quietServer();
  server.tool('ask_two', { inputSchema: NO_ARGS }, (_args, ctx) =>
    ctx.inputResponses !== undefined
      ? { content: [text('unreachable')] }
      : inputRequired({ name: elicitInput(NAME_PARAMS), summary: sampleInput({ messages: [], maxTokens: 1 }) }),
  );
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_two' } });
  // No elicitation/create that would only be withdrawn again: the isError result is the very next frame.
  assert.deepEqual(
    await client.next(),
    ok('call', { content: [text('The client could not provide the requested input')], isError: true }),
  );
  assert.equal(logger.errors.length, 1);
  await assertQuietLegacy(client);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: elicitation on a 2025-03-26 connection (no elicitation in that version) is an isError result', async () => {
  const { server } = shimServer();
  const client = new WireClient(server);
  await client.initialize('2025-03-26', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name' } });
  assert.deepEqual(
    await client.next(),
    ok('call', { content: [text('The client could not provide the requested input')], isError: true }),
  );
  await assertQuietLegacy(client);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: a client that answers with an error gets an isError tool result', async () => {
  const { server, runs } = shimServer();
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name' } });
  assert.equal((await client.next()).method, 'elicitation/create');
  client.send({ jsonrpc: '2.0', id: 0, error: { code: -1, message: 'User rejected' } });
  assert.deepEqual(
    await client.next(),
    ok('call', { content: [text('The client could not provide the requested input')], isError: true }),
  );
  assert.equal(runs.length, 1);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: a handler that keeps asking stops after 8 rounds with an isError result', async () => {
  const { server, logger } = quietServer();
  const states: unknown[] = [];
  server.tool('insatiable', { inputSchema: NO_ARGS }, (_args, ctx) => {
    states.push(plain(ctx.requestState));
    const round = (ctx.requestState as { round?: number } | undefined)?.round ?? 0;
    return inputRequired(
      { q: elicitInput({ message: `Round ${round}`, requestedSchema: NO_ARGS }) },
      { round: round + 1 },
    );
  });
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'insatiable' } });
  for (let round = 0; round < 8; round++) {
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: round,
      method: 'elicitation/create',
      params: { message: `Round ${round}`, requestedSchema: NO_ARGS },
    });
    client.send({ jsonrpc: '2.0', id: round, result: { action: 'accept', content: {} } });
  }
  assert.deepEqual(
    await client.next(),
    ok('call', { content: [text('The request needed more than 8 rounds of client input')], isError: true }),
  );
  assert.deepEqual(states, [undefined, ...Array.from({ length: 8 }, (_, i) => ({ round: i + 1 }))]);
  assert.equal(logger.errors.length, 1);
  await assertQuietLegacy(client);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: cancelling the tools/call while waiting cancels the outbound request and answers nothing', async () => {
  const { server, runs } = shimServer();
  const client = new WireClient(server);
  await client.initialize('2025-11-25', { elicitation: {} });
  client.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name' } });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: NAME_PARAMS });
  client.send({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: 'call', reason: 'user gave up' },
  });
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: 0, reason: 'cancelled' },
  });
  await assertQuietLegacy(client, 'no response for the cancelled call');
  // A late answer to the withdrawn request is ignored: the handler does not run again.
  client.send({ jsonrpc: '2.0', id: 0, result: ALICE });
  await assertQuietLegacy(client, 'nothing after the late answer');
  assert.equal(runs.length, 1);
  assert.equal(client.stdio.connection.inFlightCount, 0);
  assert.deepEqual(client.unansweredServerRequests(), []);
  assert.equal(client.frames.filter((frame) => frame.id === 'call').length, 0);
  assert.deepEqual(await client.end(), []);
});

test('legacy shim: prompts/get and resources/read use real requests too, and a missing capability is -32603', async () => {
  const { server, logger } = quietServer();
  server.prompt('ask_prompt', {}, (_args, ctx) => {
    const context = (ctx.inputResponses?.user_context?.content as { context?: string } | undefined)?.context;
    if (context === undefined) return inputRequired({ user_context: elicitInput(NAME_PARAMS) });
    return { messages: [{ role: 'user', content: text(`context ${context}`) }] };
  });
  server.resource('r://roots', { name: 'roots' }, (uri, ctx) => {
    const roots = ctx.inputResponses?.r?.roots;
    if (roots === undefined) return inputRequired({ r: listRootsInput() });
    return { contents: [{ uri, text: JSON.stringify(roots) }] };
  });
  const capable = new WireClient(server);
  await capable.initialize('2025-11-25', { elicitation: {}, roots: {} });
  capable.send({ jsonrpc: '2.0', id: 'p', method: 'prompts/get', params: { name: 'ask_prompt' } });
  assert.deepEqual(await capable.next(), { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: NAME_PARAMS });
  capable.send({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { context: 'formal' } } });
  assert.deepEqual(await capable.next(), ok('p', { messages: [{ role: 'user', content: text('context formal') }] }));
  capable.send({ jsonrpc: '2.0', id: 'r', method: 'resources/read', params: { uri: 'r://roots' } });
  assert.deepEqual(await capable.next(), { jsonrpc: '2.0', id: 1, method: 'roots/list' });
  capable.send({ jsonrpc: '2.0', id: 1, result: { roots: [{ uri: 'file:///a' }] } });
  assert.deepEqual(await capable.next(), ok('r', { contents: [{ uri: 'r://roots', text: '[{"uri":"file:///a"}]' }] }));

  const incapable = new WireClient(server);
  await incapable.initialize('2025-11-25', {});
  assert.deepEqual(
    await incapable.request('prompts/get', { name: 'ask_prompt' }, 'p'),
    fail('p', { code: -32603, message: 'Internal error' }),
  );
  assert.deepEqual(
    await incapable.request('resources/read', { uri: 'r://roots' }, 'r'),
    fail('r', { code: -32603, message: 'Internal error' }),
  );
  assert.equal(logger.errors.length, 2);
  await assertQuietLegacy(incapable);
  assert.deepEqual(await capable.end(), []);
  assert.deepEqual(await incapable.end(), []);
});
