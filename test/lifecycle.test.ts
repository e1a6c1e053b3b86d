// The 2025 (initialize-handshake) lifecycle at the wire: version negotiation, malformed handshakes, capabilities as
// advertised, instructions and serverInfo per version, the pre-initialize gate (MCP 2025-11-25, Basic > Lifecycle >
// Initialization), serving before notifications/initialized and the idempotent repeat, logging/setLevel, tasks/*,
// and 2025-03-26 batches.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Context, createServer, type ServerOptions } from '../core.ts';
import { LOGGING_LEVELS } from '../types.ts';
import { deferred, ENVELOPE_FREE_CLIENT, type Frame, MemoryLogger, untilResponse, WireClient } from './harness.ts';
import { fail, ok } from './wire.ts';

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
const NOT_INITIALIZED = { code: -32600, message: 'Invalid Request: server not initialized; send initialize first' };

function initParams(
  protocolVersion: unknown = '2025-11-25',
  capabilities: unknown = {},
  clientInfo: unknown = ENVELOPE_FREE_CLIENT,
) {
  return { protocolVersion, capabilities, clientInfo };
}

function methodNotFound(id: string | number, method: string): Frame {
  return fail(id, { code: -32601, message: 'Method not found', data: method });
}

/** A server with one tool of each feature kind, so every capability is advertised. */
function fullServer(options: ServerOptions = {}) {
  const server = createServer({ name: 'full', version: '1.2.3' }, { logger: new MemoryLogger(), ...options });
  server.tool('echo', { title: 'Echo', inputSchema: { type: 'object' } }, (args) => ({
    content: [{ type: 'text', text: JSON.stringify(args) }],
  }));
  server.resource('mem://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
  server.prompt('p', { complete: { x: () => ['one'] }, arguments: [{ name: 'x' }] }, () => ({ messages: [] }));
  return server;
}

/** A tool that reports what its context sees: version, client capabilities and client info. */
function contextProbe(server: ReturnType<typeof createServer>) {
  server.tool('whoami', {}, (_args, ctx: Context) => ({
    content: [],
    structuredContent: {
      protocolVersion: ctx.protocolVersion,
      clientCapabilities: ctx.clientCapabilities,
      clientInfo: ctx.clientInfo ?? null,
    },
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Negotiation

for (const version of LEGACY) {
  test(`initialize with ${version} echoes ${version}`, async () => {
    const client = new WireClient(fullServer());
    const response = await client.request('initialize', initParams(version), 1);
    assert.equal(response.id, 1);
    assert.equal(response.result.protocolVersion, version);
    assert.deepEqual(await client.end(), []);
  });
}

for (const version of ['2026-07-28', '1999-01-01', '2024-10-07', '1.0.0', '', '2025-11-25 ']) {
  test(`initialize with unknown version ${JSON.stringify(version)} is counter-offered 2025-11-25`, async () => {
    const server = fullServer();
    contextProbe(server);
    const client = new WireClient(server);
    const response = await client.request('initialize', initParams(version), 1);
    assert.equal(response.result.protocolVersion, '2025-11-25');
    // The counter-offer governs the connection, not the requested string.
    const probe = await client.request('tools/call', { name: 'whoami' });
    assert.equal(probe.result.structuredContent.protocolVersion, '2025-11-25');
    assert.deepEqual(await client.end(), []);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Malformed handshakes

const MALFORMED: [string, unknown][] = [
  ['no params at all', undefined],
  ['protocolVersion missing', { capabilities: {}, clientInfo: ENVELOPE_FREE_CLIENT }],
  ['protocolVersion a number', initParams(20251125)],
  ['protocolVersion null', initParams(null)],
  ['protocolVersion an array', initParams(['2025-11-25'])],
  ['capabilities missing', { protocolVersion: '2025-11-25', clientInfo: ENVELOPE_FREE_CLIENT }],
  ['capabilities null', initParams('2025-11-25', null)],
  ['capabilities an array', initParams('2025-11-25', [])],
  ['capabilities a string', initParams('2025-11-25', 'all')],
  ['clientInfo missing', { protocolVersion: '2025-11-25', capabilities: {} }],
  ['clientInfo null', initParams('2025-11-25', {}, null)],
  ['clientInfo without name', initParams('2025-11-25', {}, { version: '1' })],
  ['clientInfo without version', initParams('2025-11-25', {}, { name: 'c' })],
  ['clientInfo.name a number', initParams('2025-11-25', {}, { name: 1, version: '1' })],
  ['clientInfo an array', initParams('2025-11-25', {}, [])],
  ['snake_case names', { protocol_version: '2025-11-25', capabilities: {}, client_info: ENVELOPE_FREE_CLIENT }],
];

for (const [label, params] of MALFORMED) {
  test(`initialize with ${label} is -32602 and leaves the connection uninitialized`, async () => {
    const server = fullServer();
    contextProbe(server);
    const client = new WireClient(server);
    const refused = await client.request('initialize', params as object | undefined, 1);
    assert.equal(refused.error.code, -32602);
    assert.match(refused.error.message, /^Invalid params: /);
    assert.equal('result' in refused, false);
    // Still gated: nothing of the refused handshake was committed.
    assert.deepEqual(await client.request('tools/list', undefined, 2), fail(2, NOT_INITIALIZED));
    // A later valid initialize works, and only its own parameters count.
    const accepted = await client.request(
      'initialize',
      initParams('2025-06-18', { sampling: {} }, { name: 'second', version: '2' }),
      3,
    );
    assert.equal(accepted.result.protocolVersion, '2025-06-18');
    const probe = await client.request('tools/call', { name: 'whoami' }, 4);
    assert.deepEqual(probe.result.structuredContent, {
      protocolVersion: '2025-06-18',
      clientCapabilities: { sampling: {} },
      clientInfo: { name: 'second', version: '2' },
    });
    assert.deepEqual(await client.end(), []);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Capabilities: what is advertised is exactly what is served

test('a server with every feature advertises all of them with the exact 2025-11-25 initialize result', async () => {
  const server = fullServer();
  const client = new WireClient(server);
  assert.deepEqual(
    await client.request('initialize', initParams('2025-11-25'), 1),
    ok(1, {
      protocolVersion: '2025-11-25',
      capabilities: {
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
      },
      serverInfo: { name: 'full', version: '1.2.3' },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a server with only tools advertises only tools and logging, and refuses every other feature with -32601', async () => {
  const server = createServer({ name: 's', version: '1' });
  server.tool('t', {}, () => ({ content: [] }));
  const client = new WireClient(server);
  const init = await client.initialize();
  assert.deepEqual(init.capabilities, { logging: {}, tools: { listChanged: true } });
  const refused: [string, object][] = [
    ['prompts/list', {}],
    ['prompts/get', { name: 'p' }],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'mem://a' }],
    ['resources/subscribe', { uri: 'mem://a' }],
    ['resources/unsubscribe', { uri: 'mem://a' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }],
  ];
  for (const [method, params] of refused) {
    assert.deepEqual(await client.request(method, params, method), methodNotFound(method, method));
  }
  assert.deepEqual((await client.request('tools/list', {}, 'ok')).result, {
    tools: [{ name: 't', inputSchema: { type: 'object', properties: {} } }],
  });
  assert.deepEqual(await client.end(), []);
});

test('a server with nothing registered advertises only logging; tools/list is -32601', async () => {
  const client = new WireClient(createServer({ name: 's', version: '1' }));
  assert.deepEqual((await client.initialize()).capabilities, { logging: {} });
  assert.deepEqual(await client.request('tools/list', {}, 1), methodNotFound(1, 'tools/list'));
  assert.deepEqual(await client.request('ping', undefined, 2), ok(2, {}));
  assert.deepEqual(await client.end(), []);
});

test('logging: false advertises no logging, refuses logging/setLevel with -32601 and drops ctx.log', async () => {
  const server = createServer({ name: 's', version: '1' }, { logging: false });
  server.tool('log', {}, (_args, ctx) => {
    ctx.log('emergency', 'must not be sent');
    return { content: [] };
  });
  const client = new WireClient(server);
  assert.deepEqual((await client.initialize()).capabilities, { tools: { listChanged: true } });
  assert.deepEqual(
    await client.request('logging/setLevel', { level: 'debug' }, 1),
    methodNotFound(1, 'logging/setLevel'),
  );
  client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'log' } });
  assert.deepEqual(await untilResponse(client, 2), [ok(2, { content: [] })]);
  assert.deepEqual(await client.end(), []);
});

test('completions is advertised only when a completer is registered, and completion/complete is -32601 otherwise', async () => {
  const server = createServer({ name: 's', version: '1' });
  server.prompt('p', { arguments: [{ name: 'x' }] }, () => ({ messages: [] }));
  server.resourceTemplate('mem://{id}', { name: 't' }, () => undefined);
  const client = new WireClient(server);
  const init = await client.initialize();
  assert.deepEqual(init.capabilities, {
    logging: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
  });
  const params = { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } };
  assert.deepEqual(await client.request('completion/complete', params, 1), methodNotFound(1, 'completion/complete'));
  assert.deepEqual(await client.end(), []);
});

test('a completer on a resource template alone advertises completions', async () => {
  const server = createServer({ name: 's', version: '1' });
  server.resourceTemplate('mem://{id}', { name: 't', complete: { id: () => ['1'] } }, () => undefined);
  const client = new WireClient(server);
  assert.deepEqual((await client.initialize()).capabilities, {
    logging: {},
    completions: {},
    resources: { subscribe: true, listChanged: true },
  });
  assert.deepEqual(await client.end(), []);
});

for (const version of LEGACY) {
  test(`completions capability under ${version} appears only from 2025-03-26`, async () => {
    const client = new WireClient(fullServer());
    const init = await client.initialize(version);
    assert.equal('completions' in init.capabilities, version >= '2025-03-26');
    assert.deepEqual(
      Object.keys(init.capabilities).sort(),
      [...(version >= '2025-03-26' ? ['completions'] : []), 'logging', 'prompts', 'resources', 'tools'].sort(),
    );
    assert.deepEqual(await client.end(), []);
  });
}

test('a server with only a resource template advertises resources with subscribe and listChanged', async () => {
  const server = createServer({ name: 's', version: '1' });
  server.resourceTemplate('mem://{id}', { name: 't' }, () => undefined);
  const client = new WireClient(server);
  assert.deepEqual((await client.initialize()).capabilities, {
    logging: {},
    resources: { subscribe: true, listChanged: true },
  });
  assert.deepEqual((await client.request('resources/list', {}, 1)).result, { resources: [] });
  assert.deepEqual((await client.request('resources/subscribe', { uri: 'mem://1' }, 2)).result, {});
  assert.deepEqual(await client.end(), []);
});

test('capabilities are fixed at initialize: a feature registered later stays -32601 on that connection', async () => {
  const server = createServer({ name: 's', version: '1' });
  server.tool('t', {}, () => ({ content: [] }));
  const early = new WireClient(server);
  await early.initialize();
  server.prompt('late', {}, () => ({ messages: [] }));
  assert.deepEqual(await early.request('prompts/list', {}, 1), methodNotFound(1, 'prompts/list'));
  // A connection that initializes afterwards sees and may use the new feature.
  const late = new WireClient(server);
  assert.deepEqual((await late.initialize()).capabilities.prompts, { listChanged: true });
  assert.deepEqual((await late.request('prompts/list', {}, 1)).result, { prompts: [{ name: 'late' }] });
  assert.deepEqual(await early.end(), []);
  assert.deepEqual(await late.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// instructions and serverInfo

test('instructions are sent when configured and absent otherwise', async () => {
  const withInstructions = new WireClient(
    createServer({ name: 's', version: '1' }, { instructions: 'Use the tools wisely.' }),
  );
  assert.equal((await withInstructions.initialize()).instructions, 'Use the tools wisely.');
  const without = new WireClient(createServer({ name: 's', version: '1' }));
  assert.equal('instructions' in (await without.initialize()), false);
  assert.deepEqual(await withInstructions.end(), []);
  assert.deepEqual(await without.end(), []);
});

const FULL_INFO = {
  name: 'srv',
  version: '9.9.9',
  title: 'Server Title',
  description: 'A described server',
  websiteUrl: 'https://example.com',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
};

const EXPECTED_INFO: Record<(typeof LEGACY)[number], object> = {
  '2024-11-05': { name: 'srv', version: '9.9.9' },
  '2025-03-26': { name: 'srv', version: '9.9.9' },
  '2025-06-18': { name: 'srv', version: '9.9.9', title: 'Server Title' },
  '2025-11-25': FULL_INFO,
};

for (const version of LEGACY) {
  test(`serverInfo under ${version} carries only the fields that version defines`, async () => {
    const client = new WireClient(createServer(FULL_INFO));
    assert.deepEqual((await client.initialize(version)).serverInfo, EXPECTED_INFO[version]);
    assert.deepEqual(await client.end(), []);
  });
}

test('the initialize result of a legacy connection carries no modern fields', async () => {
  const client = new WireClient(fullServer({ instructions: 'x' }));
  const init = await client.initialize();
  assert.deepEqual(Object.keys(init).sort(), ['capabilities', 'instructions', 'protocolVersion', 'serverInfo']);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// The gate before initialize

test('before initialize only ping is served; legacy methods get -32600, unknown ones and server/discover -32601', async () => {
  const client = new WireClient(fullServer());
  assert.deepEqual(await client.request('ping', undefined, 0), ok(0, {}));
  assert.deepEqual(await client.request('ping', { _meta: { progressToken: 1 } }, ''), ok('', {}));
  const gated = [
    'tools/list',
    'tools/call',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'resources/subscribe',
    'resources/unsubscribe',
    'prompts/list',
    'prompts/get',
    'completion/complete',
    'logging/setLevel',
  ];
  for (const method of gated) {
    assert.deepEqual(await client.request(method, {}, method), fail(method, NOT_INITIALIZED), method);
  }
  for (const method of [
    'server/discover',
    'x/unknown',
    'tasks/get',
    'tasks/list',
    'constructor',
    '__proto__',
    'toString',
  ]) {
    assert.deepEqual(await client.request(method, {}, method), methodNotFound(method, method), method);
  }
  // The gate is still closed and then opens normally.
  assert.equal((await client.initialize()).protocolVersion, '2025-11-25');
  assert.equal((await client.request('tools/list', {}, 'after')).result.tools.length, 1);
  assert.deepEqual(await client.end(), []);
});

test('notifications before initialize are dropped silently, and a pre-initialize cancel never acts', async () => {
  const server = fullServer();
  const client = new WireClient(server);
  client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
  client.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } });
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  client.send({ jsonrpc: '2.0', method: 'x/whatever', params: {} });
  client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  assert.deepEqual(await client.next(), ok(1, {}));
  assert.deepEqual(await client.next(), ok(2, {}));
  // A cancel seen before initialize is not remembered for a later request with that id.
  await client.request('initialize', initParams(), 3);
  assert.deepEqual(
    await client.request('tools/call', { name: 'echo', arguments: { a: 1 } }, 7),
    ok(7, {
      content: [{ type: 'text', text: '{"a":1}' }],
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('requests are served right after the initialize result, without notifications/initialized', async () => {
  const client = new WireClient(fullServer());
  // Pipelined in one write: initialize and two requests, and never notifications/initialized.
  client.input.write(
    [
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams('2025-06-18') }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'prompts/list' }),
      '',
    ].join('\n'),
  );
  assert.equal((await client.next()).result.protocolVersion, '2025-06-18');
  assert.deepEqual(
    await client.next(),
    ok(2, { tools: [{ name: 'echo', title: 'Echo', inputSchema: { type: 'object' } }] }),
  );
  assert.deepEqual(await client.next(), ok(3, { prompts: [{ name: 'p', arguments: [{ name: 'x' }] }] }));
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Repeated initialize

test('a repeated initialize answers the first result under the new id and changes nothing', async () => {
  const server = createServer({ name: 's', version: '1', title: 'Title' }, { instructions: 'first' });
  server.tool('echo', { title: 'Echo' }, () => ({ content: [] }));
  server.resource('mem://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
  contextProbe(server);
  server.tool('sample', {}, async (_args, ctx) => {
    const result = await ctx.sample({ messages: [], maxTokens: 1 });
    return { content: [{ type: 'text', text: String(result.model) }] };
  });
  server.tool('log', {}, (_args, ctx) => {
    ctx.log('info', 'info-line');
    ctx.log('error', 'error-line');
    return { content: [] };
  });
  const client = new WireClient(server);
  // The tunnel client's opening: discover (not served on a legacy-only core), initialize, initialize.
  assert.deepEqual(await client.request('server/discover', {}, 'd'), methodNotFound('d', 'server/discover'));
  const first = await client.request(
    'initialize',
    initParams('2025-06-18', { sampling: {} }, { name: 'one', version: '1' }),
    1,
  );
  assert.equal(first.result.protocolVersion, '2025-06-18');
  assert.deepEqual(await client.request('logging/setLevel', { level: 'error' }, 'lvl'), ok('lvl', {}));
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://a' }, 'sub'), ok('sub', {}));

  // Meanwhile the server gained a feature: a re-run would now advertise prompts.
  server.prompt('late', {}, () => ({ messages: [] }));
  assert.equal('prompts' in first.result.capabilities, false);

  const repeats = [
    initParams('2024-11-05', {}, { name: 'two', version: '2' }),
    initParams('2025-11-25', { elicitation: {} }, { name: 'three', version: '3' }),
    initParams('9999-01-01'),
    {}, // even an ill-formed repeat gets the first result: nothing is re-run
  ];
  for (const [index, params] of repeats.entries()) {
    assert.deepEqual(await client.request('initialize', params, index), ok(index, first.result));
  }

  // Negotiated version, client capabilities, client info, log level and subscriptions are those of the first.
  const probe = await client.request('tools/call', { name: 'whoami' }, 'probe');
  assert.deepEqual(probe.result.structuredContent, {
    protocolVersion: '2025-06-18',
    clientCapabilities: { sampling: {} },
    clientInfo: { name: 'one', version: '1' },
  });
  assert.equal((await client.request('tools/list', {}, 'tl')).result.tools[0].title, 'Echo');
  client.send({ jsonrpc: '2.0', id: 'log', method: 'tools/call', params: { name: 'log' } });
  assert.deepEqual(await untilResponse(client, 'log'), [
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error-line' } },
    ok('log', { content: [] }),
  ]);
  server.notifyResourceUpdated('mem://a');
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { uri: 'mem://a' },
  });
  client.send({ jsonrpc: '2.0', id: 'sample', method: 'tools/call', params: { name: 'sample' } });
  const outbound = await client.waitFor((frame) => frame.method === 'sampling/createMessage');
  client.send({
    jsonrpc: '2.0',
    id: outbound.id,
    result: { role: 'assistant', content: { type: 'text', text: '' }, model: 'm' },
  });
  assert.deepEqual(await client.response('sample'), ok('sample', { content: [{ type: 'text', text: 'm' }] }));
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// logging/setLevel

function loggingServer() {
  const server = createServer({ name: 's', version: '1' });
  server.tool('log_all', {}, (_args, ctx) => {
    for (const level of LOGGING_LEVELS) ctx.log(level, `at ${level}`);
    ctx.log('emergency', { structured: true }, 'named-logger');
    return { content: [] };
  });
  return server;
}

function logFrame(level: string, data: unknown = `at ${level}`, logger?: string): Frame {
  const params: Record<string, unknown> = { level, data };
  if (logger !== undefined) params.logger = logger;
  return { jsonrpc: '2.0', method: 'notifications/message', params };
}

async function logCall(client: WireClient, id: string): Promise<Frame[]> {
  client.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'log_all' } });
  return untilResponse(client, id);
}

test('log messages pass the RFC 5424 threshold: info by default, then whatever logging/setLevel sets', async () => {
  const client = new WireClient(loggingServer());
  await client.initialize();
  const tail = [logFrame('emergency', { structured: true }, 'named-logger')];
  const from = (level: string) => LOGGING_LEVELS.slice(LOGGING_LEVELS.indexOf(level as never)).map((l) => logFrame(l));
  assert.deepEqual(await logCall(client, 'default'), [...from('info'), ...tail, ok('default', { content: [] })]);
  for (const level of ['error', 'debug', 'emergency', 'warning', 'notice']) {
    assert.deepEqual(await client.request('logging/setLevel', { level }, `set-${level}`), ok(`set-${level}`, {}));
    assert.deepEqual(await logCall(client, level), [...from(level), ...tail, ok(level, { content: [] })], level);
  }
  assert.deepEqual(await client.end(), []);
});

test('an invalid log level is -32602 and leaves the threshold unchanged', async () => {
  const client = new WireClient(loggingServer());
  await client.initialize();
  assert.deepEqual(await client.request('logging/setLevel', { level: 'critical' }, 0), ok(0, {}));
  for (const [index, params] of [
    { level: 'verbose' },
    { level: 'INFO' },
    { level: 3 },
    { level: null },
    {},
    { level: 'toString' },
  ].entries()) {
    const response = await client.request('logging/setLevel', params, index + 1);
    assert.equal(response.error.code, -32602, JSON.stringify(params));
  }
  const critical = LOGGING_LEVELS.slice(LOGGING_LEVELS.indexOf('critical')).map((l) => logFrame(l));
  assert.deepEqual(await logCall(client, 'x'), [
    ...critical,
    logFrame('emergency', { structured: true }, 'named-logger'),
    ok('x', { content: [] }),
  ]);
  assert.deepEqual(await client.end(), []);
});

test('the log threshold belongs to its connection', async () => {
  const server = loggingServer();
  const verbose = new WireClient(server);
  const quiet = new WireClient(server);
  await verbose.initialize();
  await quiet.initialize();
  await verbose.request('logging/setLevel', { level: 'debug' });
  await quiet.request('logging/setLevel', { level: 'alert' });
  assert.equal((await logCall(verbose, 'v')).length, 8 + 1 + 1);
  assert.deepEqual(await logCall(quiet, 'q'), [
    logFrame('alert'),
    logFrame('emergency'),
    logFrame('emergency', { structured: true }, 'named-logger'),
    ok('q', { content: [] }),
  ]);
  assert.deepEqual(await verbose.end(), []);
  assert.deepEqual(await quiet.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// tasks/* and other unserved methods

test('tasks/* requests are -32601 (no tasks capability is advertised)', async () => {
  const client = new WireClient(fullServer());
  const init = await client.initialize('2025-11-25');
  assert.equal('tasks' in init.capabilities, false);
  for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']) {
    assert.deepEqual(await client.request(method, { taskId: 'x' }, method), methodNotFound(method, method));
  }
  for (const method of [
    'server/discover',
    'subscriptions/listen',
    'notifications/initialized',
    'x/unknown',
    'hasOwnProperty',
  ]) {
    assert.deepEqual(await client.request(method, {}, method), methodNotFound(method, method));
  }
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Batches (MCP 2025-03-26, Basic > Overview > Messages > Batching)

function batchServer() {
  const calls: string[] = [];
  const server = fullServer();
  server.tool(
    'record',
    { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } },
    (args: { tag?: string }) => {
      calls.push(args.tag ?? '');
      return { content: [] };
    },
  );
  return { server, calls };
}

function sortById(frames: Frame[]): Frame[] {
  return [...frames].sort((a, b) => JSON.stringify(a.id).localeCompare(JSON.stringify(b.id)));
}

test('under 2025-03-26 a batch is answered with one array holding a response per request', async () => {
  const { server, calls } = batchServer();
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'record', arguments: { tag: 'a' } } },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '2.0', id: 'x', method: 'x/unknown' },
  ]);
  const reply = await client.next();
  assert.ok(Array.isArray(reply));
  assert.deepEqual(
    sortById(reply),
    sortById([
      ok(1, {}),
      ok(2, { content: [] }),
      fail(null, { code: -32600, message: 'Invalid Request: id must be a string or an integer' }),
      methodNotFound('x', 'x/unknown'),
    ]),
  );
  assert.deepEqual(calls, ['a']);
  assert.deepEqual(await client.end(), []);
});

test('a batch of notifications only writes nothing', async () => {
  const client = new WireClient(fullServer());
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
  ]);
  assert.deepEqual(await client.request('ping', undefined, 1), ok(1, {}));
  assert.deepEqual(await client.end(), []);
});

test('a request cancelled inside its batch is left out of the batch answer', async () => {
  const server = fullServer();
  const started = deferred();
  let aborted = false;
  server.tool(
    'hang',
    {},
    (_args, ctx) =>
      new Promise((_resolve, reject) => {
        started.resolve();
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('aborted'));
        });
      }),
  );
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hang' } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
  ]);
  await started.promise;
  assert.deepEqual(await client.next(), [ok(2, {})]);
  assert.equal(aborted, true);
  assert.deepEqual(await client.end(), []);
});

test('a batch waits for its slowest request and then answers everything at once', async () => {
  const server = fullServer();
  const gate = deferred();
  server.tool('slow', {}, async () => {
    await gate.promise;
    return { content: [{ type: 'text', text: 'slow done' }] };
  });
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow' } },
    { jsonrpc: '2.0', id: 'fast', method: 'ping' },
  ]);
  // The fast answer must not escape the batch: a single ping after it is answered first.
  assert.deepEqual(await client.request('ping', undefined, 'probe'), ok('probe', {}));
  assert.deepEqual(client.unread(), []);
  gate.resolve();
  assert.deepEqual(
    sortById(await client.next()),
    sortById([ok('fast', {}), ok('slow', { content: [{ type: 'text', text: 'slow done' }] })]),
  );
  assert.deepEqual(await client.end(), []);
});

test('a batch answer holds what each handler answered, whatever becomes of its object before the batch is written', async () => {
  // The batch keeps its answers as objects until the slowest is in (legacy.ts, withoutResultType: a copy either way).
  const server = fullServer();
  const gate = deferred();
  const shared = { contents: [{ uri: 'r://shared', text: 'as answered' }] };
  server.resource('r://shared', { name: 'shared' }, () => shared);
  server.tool('slow', {}, async () => {
    await gate.promise;
    shared.contents = [{ uri: 'r://shared', text: 'changed later' }];
    return { content: [] };
  });
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', id: 'read', method: 'resources/read', params: { uri: 'r://shared' } },
    { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'slow' } },
  ]);
  assert.deepEqual(await client.request('ping', undefined, 'probe'), ok('probe', {}));
  gate.resolve();
  assert.deepEqual(
    sortById(await client.next()),
    sortById([ok('read', { contents: [{ uri: 'r://shared', text: 'as answered' }] }), ok('slow', { content: [] })]),
  );
  assert.deepEqual(await client.end(), []);
});

test('a batch containing initialize is refused whole with -32600 and no element runs', async () => {
  const { server, calls } = batchServer();
  const client = new WireClient(server);
  await client.initialize('2025-03-26');
  client.send([
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'record', arguments: { tag: 'never' } } },
    { jsonrpc: '2.0', id: 2, method: 'initialize', params: initParams('2025-03-26') },
  ]);
  assert.deepEqual(
    await client.next(),
    fail(null, { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' }),
  );
  assert.deepEqual(await client.request('ping', undefined, 3), ok(3, {}));
  assert.deepEqual(calls, []);
  assert.deepEqual(await client.end(), []);
});

const BATCH_REFUSED = fail(null, {
  code: -32600,
  message: 'Invalid Request: batches are accepted only under protocol 2025-03-26',
});

for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
  test(`under ${version} a batch is refused with a single -32600 and no element runs`, async () => {
    const { server, calls } = batchServer();
    const client = new WireClient(server);
    await client.initialize(version);
    client.send([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'record', arguments: { tag: 'never' } } },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    assert.deepEqual(await client.next(), BATCH_REFUSED);
    assert.deepEqual(await client.request('ping', undefined, 3), ok(3, {}));
    assert.deepEqual(calls, []);
    assert.deepEqual(await client.end(), []);
  });
}

test('a batch before initialize is refused, even one holding initialize', async () => {
  const client = new WireClient(fullServer());
  client.send([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams('2025-03-26') }]);
  assert.deepEqual(await client.next(), BATCH_REFUSED);
  assert.deepEqual(await client.request('tools/list', undefined, 2), fail(2, NOT_INITIALIZED));
  assert.deepEqual(await client.end(), []);
});

test('an empty batch is -32600 under every version', async () => {
  for (const version of LEGACY) {
    const client = new WireClient(fullServer());
    await client.initialize(version);
    client.send('[]');
    assert.deepEqual(
      await client.next(),
      fail(null, { code: -32600, message: 'Invalid Request: an empty batch is not a request' }),
      version,
    );
    assert.deepEqual(await client.end(), []);
  }
});
