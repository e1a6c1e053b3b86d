// The era router on stdio (docs/eras.md, How a stdio connection picks its era): the envelope claim and its
// validation as pure functions, the router's held-notification replay against fake lifecycles, then whole
// conversations at the wire — removed methods as the first frame, probes, pipelined openers, the refusals of each
// pinned era, notifications and batches around the decision, and client responses on a modern connection.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { type Context, createServer, type ServerOptions } from '../core.ts';
import type { Dispatcher } from '../dispatcher.ts';
import { EraRouter, type LegacySide, type Lifecycle } from '../era.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { type JsonRpcNotification, ProtocolError, type RequestId } from '../jsonrpc.ts';
import { LegacyLifecycle } from '../legacy.ts';
import { hasClaim, readEnvelope } from '../modern.ts';
import type { InboundRequest } from '../request.ts';
import { MODERN_VERSIONS } from '../types.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import {
  CLIENT_CAPABILITIES,
  CLIENT_INFO,
  envelope,
  fail,
  LOG_LEVEL,
  MODERN,
  modern,
  notification,
  ok,
  PROTOCOL_VERSION,
  request,
  SERVER_INFO,
  SUBSCRIPTION_ID,
} from './wire.ts';

// ---------------------------------------------------------------------------------------------------------------
// Wire vocabulary

const INFO = { name: 'era-test', version: '1.0.0' };
const STAMP = { [SERVER_INFO]: INFO };
const EMPTY_SCHEMA = { type: 'object', properties: {} };

// The refusal texts, copied rather than imported so that drift in the code fails here.
const LEGACY_REFUSAL = {
  code: -32600,
  message:
    'Invalid Request: this connection serves the legacy initialize-handshake protocol (the request that decided ' +
    'its era carried no 2026-07-28 _meta envelope); requests carrying the 2026-07-28 envelope are not accepted on it',
};
const HANDSHAKE_REFUSAL_MESSAGE =
  'Unsupported protocol version: this connection serves protocol 2026-07-28 with a ' +
  'per-request _meta envelope (an earlier request on it carried the envelope); the initialize handshake is not accepted on it';
const MISSING_ENVELOPE = {
  code: -32602,
  message:
    "Invalid params: params._meta must carry 'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities'",
};
const BATCH_WITH_CLAIM = {
  code: -32600,
  message: 'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
};
const BATCH_VERSION_REFUSAL = {
  code: -32600,
  message: 'Invalid Request: batches are accepted only under protocol 2025-03-26',
};
const NOT_INITIALIZED = { code: -32600, message: 'Invalid Request: server not initialized; send initialize first' };
const MISSING_CAPABILITIES = {
  code: -32602,
  message: 'Invalid params: params._meta is missing required key(s): io.modelcontextprotocol/clientCapabilities',
};
const VERSION_NOT_STRING = {
  code: -32602,
  message: "Invalid params: params._meta['io.modelcontextprotocol/protocolVersion'] must be a string",
};
const BAD_CLIENT_INFO = {
  code: -32602,
  message: "Invalid params: params._meta['io.modelcontextprotocol/clientInfo'] must be {name: string, version: string}",
};
const BAD_LOG_LEVEL = {
  code: -32602,
  message:
    "Invalid params: params._meta['io.modelcontextprotocol/logLevel'] must be one of debug, info, notice, warning, error, critical, alert, emergency",
};
const CAPABILITIES_NOT_OBJECT = {
  code: -32602,
  message: "Invalid params: params._meta['io.modelcontextprotocol/clientCapabilities'] must be an object",
};

const REMOVED = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'] as const;

type Params = Record<string, unknown>;

/** A request without a claim. */
function bare(method: string, params?: Params, id: RequestId = 1): Frame {
  return request(id, method, params);
}

function initialize(id: RequestId = 1, protocolVersion: unknown = '2025-11-25'): Frame {
  return bare('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, id);
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A complete modern result: the handler's fields, resultType and the serverInfo stamp. */
function complete(result: Params, cacheable = false): Params {
  const stamped: Params = { ...result, resultType: 'complete', _meta: STAMP };
  return cacheable ? { ...stamped, ttlMs: 0, cacheScope: 'private' } : stamped;
}

function removedMethod(id: RequestId, method: string): Frame {
  return fail(id, {
    code: -32601,
    message: `Method not found: '${method}' is not part of protocol 2026-07-28`,
    data: method,
  });
}

function unsupportedVersion(id: RequestId, requested: string, message = 'Unsupported protocol version'): Frame {
  return fail(id, { code: -32022, message, data: { supported: ['2026-07-28'], requested } });
}

function handshakeRefusal(id: RequestId, requested: string): Frame {
  return unsupportedVersion(id, requested, HANDSHAKE_REFUSAL_MESSAGE);
}

/** Writes several frames as one chunk of input, so they reach the server in a single read. */
function sendChunk(client: WireClient, ...frames: Frame[]): void {
  client.send(frames.map((frame) => JSON.stringify(frame)).join('\n'));
}

/** The next `count` frames in wire order. */
async function nextFrames(client: WireClient, count: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) frames.push(await client.next());
  return frames;
}

// ---------------------------------------------------------------------------------------------------------------
// A small server with every feature the router can reach: tools (echo, slow, progress, log) and two resources.

const CAPABILITIES = { logging: {}, resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } };
const INITIALIZE_RESULT = { protocolVersion: '2025-11-25', capabilities: CAPABILITIES, serverInfo: INFO };
const DISCOVER_RESULT = complete({ supportedVersions: ['2026-07-28'], capabilities: CAPABILITIES }, true);
const TOOLS = [
  { name: 'echo', description: 'Echoes its arguments', inputSchema: EMPTY_SCHEMA },
  { name: 'slow', description: 'Waits for the test to release it', inputSchema: EMPTY_SCHEMA },
  { name: 'progress', description: 'Reports progress 1 and 2 of 2', inputSchema: EMPTY_SCHEMA },
  { name: 'log', description: 'Logs at debug and info', inputSchema: EMPTY_SCHEMA },
];
const MODERN_TOOLS_LIST = complete({ tools: TOOLS }, true);

function fixture(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger, ...options });
  const calls: string[] = [];
  const slow = { started: deferred(), release: deferred(), aborted: deferred<unknown>() };
  server.tool('echo', { description: 'Echoes its arguments' }, (args) => {
    calls.push('echo');
    return text(JSON.stringify(args));
  });
  server.tool('slow', { description: 'Waits for the test to release it' }, async (_args, ctx: Context) => {
    calls.push('slow');
    const aborted = new Promise<never>((_resolve, reject) => {
      ctx.signal.addEventListener(
        'abort',
        () => {
          slow.aborted.resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        },
        { once: true },
      );
    });
    slow.started.resolve();
    await Promise.race([slow.release.promise, aborted]);
    return text('released');
  });
  server.tool('progress', { description: 'Reports progress 1 and 2 of 2' }, (_args, ctx: Context) => {
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return text('done');
  });
  server.tool('log', { description: 'Logs at debug and info' }, (_args, ctx: Context) => {
    ctx.log('debug', 'debug line');
    ctx.log('info', 'info line');
    return text('logged');
  });
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
  server.resource('test://b', { name: 'b' }, (uri) => ({ contents: [{ uri, text: 'b' }] }));
  return { server, logger, calls, slow };
}

function connect(options: ServerOptions = {}) {
  const parts = fixture(options);
  return { ...parts, client: new WireClient(parts.server) };
}

/** Asserts that the connection is still undecided by completing a normal 2025 handshake on it. */
async function assertHandshakeStillAvailable(client: WireClient, id: RequestId): Promise<void> {
  assert.equal(client.stdio.connection.era, 'undecided');
  client.send(initialize(id));
  assert.deepEqual(await client.response(id), ok(id, INITIALIZE_RESULT));
  assert.equal(client.stdio.connection.era, 'legacy');
}

// ---------------------------------------------------------------------------------------------------------------
// hasClaim: key presence of params._meta['io.modelcontextprotocol/protocolVersion'], nothing else

test('hasClaim is true exactly when params._meta has the protocolVersion key, whatever its value', () => {
  for (const value of [MODERN, '2025-11-25', '', null, 0, 42, {}, []]) {
    assert.equal(hasClaim({ _meta: { [PROTOCOL_VERSION]: value } }), true, JSON.stringify(value));
  }
  assert.equal(hasClaim({ name: 'x', _meta: { [PROTOCOL_VERSION]: MODERN } }), true);
});

test('hasClaim is false without the protocolVersion key: no params, no _meta, or _meta with only other keys', () => {
  assert.equal(hasClaim(undefined), false);
  assert.equal(hasClaim({}), false);
  assert.equal(hasClaim({ _meta: {} }), false);
  assert.equal(hasClaim({ _meta: { progressToken: 0 } }), false);
  assert.equal(hasClaim({ _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }), false);
  assert.equal(hasClaim({ _meta: { [CLIENT_CAPABILITIES]: {}, [CLIENT_INFO]: INFO, [LOG_LEVEL]: 'debug' } }), false);
  assert.equal(hasClaim({ [PROTOCOL_VERSION]: MODERN }), false, 'the key counts only inside _meta');
  assert.equal(hasClaim({ protocolVersion: MODERN, _meta: { protocolVersion: MODERN } }), false, 'unprefixed key');
});

test('hasClaim is false when _meta is not a plain object or only inherits the key', () => {
  for (const meta of [null, 'x', 1, true, [PROTOCOL_VERSION]]) {
    assert.equal(hasClaim({ _meta: meta }), false, JSON.stringify(meta));
  }
  assert.equal(hasClaim({ _meta: Object.create({ [PROTOCOL_VERSION]: MODERN }) }), false);
});

// ---------------------------------------------------------------------------------------------------------------
// readEnvelope: the spec's validation order, each failure naming its key

function envelopeError(meta: Params): object {
  try {
    readEnvelope({ _meta: meta });
  } catch (error) {
    assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${String(error)}`);
    return error.toJSON();
  }
  assert.fail(`envelope ${JSON.stringify(meta)} was accepted`);
}

test('readEnvelope accepts the minimal envelope and reports absent optional keys as undefined', () => {
  assert.deepEqual(readEnvelope({ _meta: envelope() }), {
    protocolVersion: MODERN,
    clientCapabilities: {},
    clientInfo: undefined,
    logLevel: undefined,
  });
});

test('readEnvelope returns clientInfo, logLevel and capabilities and tolerates progressToken and trace keys', () => {
  const capabilities = { elicitation: { form: {} }, sampling: {}, experimental: { x: {} } };
  const envelope = readEnvelope({
    name: 'tool',
    _meta: {
      [PROTOCOL_VERSION]: MODERN,
      [CLIENT_CAPABILITIES]: capabilities,
      [CLIENT_INFO]: { name: 'c', version: '1', title: 'C' },
      [LOG_LEVEL]: 'warning',
      progressToken: 0,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'a=b',
      baggage: 'k=v',
    },
  });
  assert.deepEqual(envelope, {
    protocolVersion: MODERN,
    clientCapabilities: capabilities,
    clientInfo: { name: 'c', version: '1', title: 'C' },
    logLevel: 'warning',
  });
});

test('readEnvelope accepts every logging level', () => {
  for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']) {
    assert.equal(readEnvelope({ _meta: envelope({ [LOG_LEVEL]: level }) }).logLevel, level);
  }
});

test('readEnvelope: a claimed version that is not a string is -32602 naming protocolVersion', () => {
  for (const version of [null, 20260728, {}, [MODERN], true]) {
    assert.deepEqual(
      envelopeError(envelope({ [PROTOCOL_VERSION]: version })),
      VERSION_NOT_STRING,
      JSON.stringify(version),
    );
  }
});

test('readEnvelope: a claimed version that is not served is -32022 with supported and the requested string', () => {
  for (const version of ['2025-11-25', '2024-10-07', '2099-01-01', 'v999.0.0', '2026-07-28 ']) {
    assert.deepEqual(envelopeError(envelope({ [PROTOCOL_VERSION]: version })), {
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28'], requested: version },
    });
  }
});

test('readEnvelope: an empty claimed version is reported as requested "" (an empty string is present, not absent)', () => {
  assert.deepEqual(envelopeError(envelope({ [PROTOCOL_VERSION]: '' })), {
    code: -32022,
    message: 'Unsupported protocol version',
    data: { supported: ['2026-07-28'], requested: '' },
  });
});

test('readEnvelope checks the version before the capabilities (spec order: type, then version, then keys)', () => {
  assert.deepEqual(envelopeError({ [PROTOCOL_VERSION]: 7 }), VERSION_NOT_STRING);
  assert.deepEqual(envelopeError({ [PROTOCOL_VERSION]: '2025-11-25' }), {
    code: -32022,
    message: 'Unsupported protocol version',
    data: { supported: ['2026-07-28'], requested: '2025-11-25' },
  });
});

test('readEnvelope: missing clientCapabilities is -32602 naming the missing key', () => {
  assert.deepEqual(envelopeError({ [PROTOCOL_VERSION]: MODERN }), MISSING_CAPABILITIES);
  assert.deepEqual(
    envelopeError({ [PROTOCOL_VERSION]: MODERN, [CLIENT_INFO]: INFO, [LOG_LEVEL]: 'info' }),
    MISSING_CAPABILITIES,
  );
});

test('readEnvelope: clientCapabilities that is not an object is -32602 naming it', () => {
  for (const capabilities of [null, [], 'all', 0, true]) {
    assert.deepEqual(
      envelopeError(envelope({ [CLIENT_CAPABILITIES]: capabilities })),
      CAPABILITIES_NOT_OBJECT,
      JSON.stringify(capabilities),
    );
  }
});

test('readEnvelope: a present clientInfo that is not {name, version} strings is -32602 naming it', () => {
  for (const clientInfo of [
    null,
    'c',
    [],
    {},
    { name: 'c' },
    { version: '1' },
    { name: 'c', version: 1 },
    { name: 1, version: '1' },
  ]) {
    assert.deepEqual(
      envelopeError(envelope({ [CLIENT_INFO]: clientInfo })),
      BAD_CLIENT_INFO,
      JSON.stringify(clientInfo),
    );
  }
});

test('readEnvelope: an unknown logLevel is -32602 naming it', () => {
  for (const level of ['verbose', 'INFO', '', null, 3]) {
    assert.deepEqual(envelopeError(envelope({ [LOG_LEVEL]: level })), BAD_LOG_LEVEL, JSON.stringify(level));
  }
});

// ---------------------------------------------------------------------------------------------------------------
// EraRouter against fake lifecycles: what reaches which side, in which order

function fakeRouter() {
  const seen: string[] = [];
  const cancels: RequestId[] = [];
  const logger = new MemoryLogger();
  const legacy: LegacySide = {
    onRequest: (request) => void seen.push(`legacy request ${request.method}`),
    onNotification: (message) => void seen.push(`legacy notification ${message.method}`),
    checkBatch: () => undefined,
  };
  const modernSide: Lifecycle = { onRequest: (request) => void seen.push(`modern request ${request.method}`) };
  const dispatcher = { cancel: (id: RequestId) => void cancels.push(id) } as unknown as Dispatcher;
  const router = new EraRouter(() => legacy, modernSide, dispatcher, logger);
  const request = (method: string, params: Params = {}, id: RequestId = 1) =>
    router.onRequest({ id, method, params } as unknown as InboundRequest);
  const notify = (method: string, params?: Params) =>
    router.onNotification(notification(method, params) as JsonRpcNotification);
  return { router, seen, cancels, logger, request, notify };
}

test('router: notifications held before a legacy opener reach the legacy side in arrival order, before the opener', () => {
  // Held notifications are replayed at the decision, ahead of the request that decided: the legacy gate therefore
  // sees them before initialize and drops them (test/lifecycle.test.ts, 'notifications before initialize are dropped
  // silently, and a pre-initialize cancel never acts').
  const { router, seen, request, notify } = fakeRouter();
  notify('notifications/initialized');
  notify('notifications/roots/list_changed');
  notify('notifications/progress', { progressToken: 1, progress: 1 });
  assert.deepEqual(seen, []);
  assert.equal(router.state, 'undecided');
  request('initialize');
  assert.equal(router.state, 'legacy');
  assert.deepEqual(seen, [
    'legacy notification notifications/initialized',
    'legacy notification notifications/roots/list_changed',
    'legacy notification notifications/progress',
    'legacy request initialize',
  ]);
});

test('router: at most 8 notifications are held before the decision; each one beyond is dropped with a warning', () => {
  const { seen, logger, request, notify } = fakeRouter();
  for (let i = 0; i < 11; i++) notify(`notifications/n${i}`);
  assert.deepEqual(
    logger.warnings,
    [8, 9, 10].map((i) => `dropped 'notifications/n${i}': too many notifications before the first request`),
  );
  request('tools/list');
  assert.deepEqual(seen, [
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `legacy notification notifications/n${i}`),
    'legacy request tools/list',
  ]);
});

test('router: held notifications never reach the legacy side when a modern request decides', () => {
  const { router, seen, request, notify } = fakeRouter();
  notify('notifications/initialized');
  request('tools/list', { _meta: envelope() });
  assert.equal(router.state, 'modern');
  assert.deepEqual(seen, ['modern request tools/list']);
});

test('router: a cancel before the decision acts at once on the dispatcher and is never held for replay', () => {
  const { seen, cancels, logger, request, notify } = fakeRouter();
  for (let i = 0; i < 20; i++) notify('notifications/cancelled', { requestId: i });
  notify('notifications/cancelled', { requestId: 1.5 });
  notify('notifications/cancelled', { requestId: null });
  notify('notifications/cancelled');
  assert.deepEqual(
    cancels,
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.deepEqual(logger.warnings, [], 'cancels do not fill the hold');
  request('initialize');
  assert.deepEqual(seen, ['legacy request initialize']);
});

test('router: probes and enveloped removed methods leave the router undecided; held notifications wait for the deciding request', () => {
  const { router, seen, request, notify } = fakeRouter();
  notify('notifications/initialized');
  request('server/discover', { _meta: envelope() });
  assert.throws(
    () => request('ping', { _meta: envelope() }),
    (error: unknown) => error instanceof ProtocolError && error.code === -32601,
  );
  assert.equal(router.state, 'undecided');
  assert.deepEqual(seen, ['modern request server/discover']);
  request('initialize');
  assert.deepEqual(seen, [
    'modern request server/discover',
    'legacy notification notifications/initialized',
    'legacy request initialize',
  ]);
});

// ---------------------------------------------------------------------------------------------------------------
// Removed methods carrying an envelope (MCP 2026-07-28, Key Changes > Major changes; docs/eras.md, How a stdio
// connection picks its era)

const REMOVED_PARAMS: Record<(typeof REMOVED)[number], Params> = {
  // A full legacy handshake body: the envelope still makes it a modern request.
  initialize: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  ping: {},
  'logging/setLevel': { level: 'debug' },
  'resources/subscribe': { uri: 'test://a' },
  'resources/unsubscribe': { uri: 'test://a' },
};

for (const method of REMOVED) {
  test(`enveloped ${method} as the very first frame is -32601 and leaves the connection undecided for a normal handshake`, async () => {
    const { server, client, logger } = connect();
    client.send(modern(method, REMOVED_PARAMS[method], 1));
    assert.deepEqual(await client.response(1), removedMethod(1, method));
    assert.equal(client.stdio.connection.era, 'undecided');
    await assertHandshakeStillAvailable(client, 2);
    server.notifyResourceUpdated('test://a'); // silent: the refused request subscribed to nothing
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(logger.warnings, []);
  });
}

test('enveloped initialize with a full handshake body never runs the handshake: the gate still refuses tools/list', async () => {
  const { client } = connect();
  client.send(modern('initialize', REMOVED_PARAMS.initialize, 1));
  assert.deepEqual(await client.response(1), removedMethod(1, 'initialize'));
  // Nothing was initialized: a bare request now meets the pre-initialize gate (and pins legacy).
  client.send(bare('tools/list', {}, 2));
  assert.deepEqual(await client.response(2), fail(2, NOT_INITIALIZED));
  client.send(initialize(3));
  assert.deepEqual(await client.response(3), ok(3, INITIALIZE_RESULT));
  assert.deepEqual(await client.end(), []);
});

test('enveloped resources/subscribe as the first frame creates no subscription: no updated notification after the handshake', async () => {
  const { server, client } = connect();
  client.send(modern('resources/subscribe', { uri: 'test://a' }, 1));
  assert.deepEqual(await client.response(1), removedMethod(1, 'resources/subscribe'));
  await assertHandshakeStillAvailable(client, 2);
  client.send(notification('notifications/initialized'));
  // A real subscription to test://b shows what an update would look like; test://a must stay silent.
  client.send(bare('resources/subscribe', { uri: 'test://b' }, 3));
  assert.deepEqual(await client.response(3), ok(3, {}));
  server.notifyResourceUpdated('test://a');
  server.notifyResourceUpdated('test://b');
  assert.deepEqual(await client.end(), [notification('notifications/resources/updated', { uri: 'test://b' })]);
});

test('enveloped logging/setLevel as the first frame does not change the log threshold (debug stays filtered)', async () => {
  const { client } = connect();
  client.send(modern('logging/setLevel', { level: 'debug' }, 1));
  assert.deepEqual(await client.response(1), removedMethod(1, 'logging/setLevel'));
  await assertHandshakeStillAvailable(client, 2);
  client.send(bare('tools/call', { name: 'log' }, 3));
  assert.deepEqual(await nextFrames(client, 2), [
    notification('notifications/message', { level: 'info', data: 'info line' }),
    ok(3, text('logged')),
  ]);
  assert.deepEqual(await client.end(), []);
});

const BROKEN_ENVELOPES: { what: string; meta: Params; error: object }[] = [
  { what: 'missing clientCapabilities', meta: { [CLIENT_CAPABILITIES]: undefined }, error: MISSING_CAPABILITIES },
  { what: 'a version that is not a string', meta: { [PROTOCOL_VERSION]: 20260728 }, error: VERSION_NOT_STRING },
  {
    what: 'clientCapabilities that is not an object',
    meta: { [CLIENT_CAPABILITIES]: [] },
    error: CAPABILITIES_NOT_OBJECT,
  },
  { what: 'a malformed clientInfo', meta: { [CLIENT_INFO]: { name: 'c' } }, error: BAD_CLIENT_INFO },
  { what: 'an unknown logLevel', meta: { [LOG_LEVEL]: 'loud' }, error: BAD_LOG_LEVEL },
];

for (const method of REMOVED) {
  test(`${method} with a broken envelope as the first frame is -32602 (never a legacy fallback) and leaves the connection undecided`, async () => {
    const { server, client } = connect();
    let id = 1;
    for (const { what, meta, error } of BROKEN_ENVELOPES) {
      client.send(modern(method, REMOVED_PARAMS[method], id, meta));
      assert.deepEqual(await client.response(id), fail(id, error), what);
      assert.equal(client.stdio.connection.era, 'undecided', what);
      id++;
    }
    await assertHandshakeStillAvailable(client, id);
    server.notifyResourceUpdated('test://a'); // silent: no refused request subscribed
    assert.deepEqual(await client.end(), []);
  });
}

test('removed methods claiming an unsupported version are -32022 and leave the connection undecided', async () => {
  const { client } = connect();
  let id = 1;
  for (const method of REMOVED) {
    client.send(modern(method, REMOVED_PARAMS[method], id, { [PROTOCOL_VERSION]: '2025-11-25' }));
    assert.deepEqual(await client.response(id), unsupportedVersion(id, '2025-11-25'), method);
    id++;
  }
  await assertHandshakeStillAvailable(client, id);
  assert.deepEqual(await client.end(), []);
});

test('enveloped removed methods on a modern connection are -32601 too and keep it modern', async () => {
  const { client } = connect();
  client.send(modern('tools/list', {}, 1));
  assert.deepEqual(await client.response(1), ok(1, MODERN_TOOLS_LIST));
  let id = 2;
  for (const method of REMOVED) {
    client.send(modern(method, REMOVED_PARAMS[method], id));
    assert.deepEqual(await client.response(id), removedMethod(id, method));
    id++;
  }
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Probes: an enveloped server/discover never pins

test('a discover probe is answered without pinning, and the initialize after it gets the normal handshake', async () => {
  const { client } = connect();
  client.send(modern('server/discover', {}, 0));
  assert.deepEqual(await client.response(0), ok(0, DISCOVER_RESULT));
  assert.equal(client.stdio.connection.era, 'undecided');
  client.send(initialize(1));
  assert.deepEqual(await client.response(1), ok(1, INITIALIZE_RESULT));
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('a discover probe and initialize pipelined in one chunk: DiscoverResult, then the InitializeResult', async () => {
  const { client } = connect();
  sendChunk(client, modern('server/discover', {}, 0), initialize(1));
  assert.deepEqual(await nextFrames(client, 2), [ok(0, DISCOVER_RESULT), ok(1, INITIALIZE_RESULT)]);
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('repeated probes keep the window open: discover, discover, initialize all succeed', async () => {
  const { client } = connect();
  sendChunk(client, modern('server/discover', {}, 0), modern('server/discover', {}, 1), initialize(2));
  assert.deepEqual(await nextFrames(client, 3), [
    ok(0, DISCOVER_RESULT),
    ok(1, DISCOVER_RESULT),
    ok(2, INITIALIZE_RESULT),
  ]);
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('any number of probes keeps the window open', async () => {
  const { client } = connect();
  sendChunk(client, ...Array.from({ length: 20 }, (_, i) => modern('server/discover', {}, `p${i}`)));
  const answers = await nextFrames(client, 20);
  assert.deepEqual(
    answers,
    Array.from({ length: 20 }, (_, i) => ok(`p${i}`, DISCOVER_RESULT)),
  );
  await assertHandshakeStillAvailable(client, 'init');
  assert.deepEqual(await client.end(), []);
});

test('a probe refused for an unsupported version (-32022, data.requested) does not pin', async () => {
  const { client } = connect();
  client.send(modern('server/discover', {}, 0, { [PROTOCOL_VERSION]: '2099-01-01' }));
  assert.deepEqual(await client.response(0), unsupportedVersion(0, '2099-01-01'));
  await assertHandshakeStillAvailable(client, 1);
  assert.deepEqual(await client.end(), []);
});

test('probes refused for a malformed envelope (-32602) do not pin', async () => {
  const { client } = connect();
  let id = 0;
  for (const { what, meta, error } of BROKEN_ENVELOPES) {
    client.send(modern('server/discover', {}, id, meta));
    assert.deepEqual(await client.response(id), fail(id, error), what);
    assert.equal(client.stdio.connection.era, 'undecided', what);
    id++;
  }
  await assertHandshakeStillAvailable(client, id);
  assert.deepEqual(await client.end(), []);
});

test('failing and succeeding probes pipelined before initialize: each answered in order, then the handshake', async () => {
  const { client } = connect();
  sendChunk(
    client,
    modern('server/discover', {}, 0, { [PROTOCOL_VERSION]: '1999-01-01' }),
    modern('server/discover', {}, 1, { [CLIENT_CAPABILITIES]: undefined }),
    modern('server/discover', {}, 2),
    initialize(3),
  );
  assert.deepEqual(await nextFrames(client, 4), [
    unsupportedVersion(0, '1999-01-01'),
    fail(1, MISSING_CAPABILITIES),
    ok(2, DISCOVER_RESULT),
    ok(3, INITIALIZE_RESULT),
  ]);
  assert.deepEqual(await client.end(), []);
});

test('discover, initialize, initialize (the tunnel client): both initialize ids get the same first result', async () => {
  const { client } = connect();
  sendChunk(
    client,
    modern('server/discover', {}, 'd'),
    initialize(1),
    bare(
      'initialize',
      { protocolVersion: '2024-11-05', capabilities: { sampling: {} }, clientInfo: { name: 'other', version: '2' } },
      0,
    ),
  );
  assert.deepEqual(await nextFrames(client, 3), [
    ok('d', DISCOVER_RESULT),
    ok(1, INITIALIZE_RESULT),
    ok(0, INITIALIZE_RESULT),
  ]);
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('an enveloped request after a probe is the one that decides: the connection turns modern', async () => {
  const { client } = connect();
  sendChunk(client, modern('server/discover', {}, 0), modern('tools/list', {}, 1), initialize(2));
  assert.deepEqual(await nextFrames(client, 3), [
    ok(0, DISCOVER_RESULT),
    ok(1, MODERN_TOOLS_LIST),
    handshakeRefusal(2, '2025-11-25'),
  ]);
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
});

test('a discover on a modern connection is served and keeps it modern', async () => {
  const { client } = connect();
  sendChunk(client, modern('tools/list', {}, 1), modern('server/discover', {}, 2), initialize(3));
  assert.deepEqual(await nextFrames(client, 3), [
    ok(1, MODERN_TOOLS_LIST),
    ok(2, DISCOVER_RESULT),
    handshakeRefusal(3, '2025-11-25'),
  ]);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Notifications around the decision

test('50 leading notifications, then an enveloped request: the request decides modern; 8 were held, 42 logged', async () => {
  const { client, logger } = connect();
  const leading = Array.from({ length: 50 }, (_, i) => notification(`notifications/test/${i}`));
  sendChunk(client, ...leading, modern('tools/list', {}, 1));
  assert.deepEqual(await client.response(1), ok(1, MODERN_TOOLS_LIST));
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(
    logger.warnings,
    Array.from(
      { length: 42 },
      (_, i) => `dropped 'notifications/test/${i + 8}': too many notifications before the first request`,
    ),
  );
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, [ok(1, MODERN_TOOLS_LIST)], 'notifications are never answered');
});

test('50 leading notifications, then a bare initialize: the handshake decides legacy; 42 logged', async () => {
  const { client, logger } = connect();
  sendChunk(client, ...Array.from({ length: 50 }, () => notification('notifications/initialized')), initialize(1));
  assert.deepEqual(await client.response(1), ok(1, INITIALIZE_RESULT));
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.equal(logger.warnings.length, 42);
  assert.deepEqual(await client.end(), []);
});

test('notifications never decide the era, not even one carrying a valid envelope', async () => {
  const { client } = connect();
  sendChunk(
    client,
    notification('notifications/initialized', { _meta: envelope() }),
    notification('notifications/roots/list_changed'),
    modern('server/discover', {}, 0),
  );
  assert.deepEqual(await client.response(0), ok(0, DISCOVER_RESULT));
  assert.equal(client.stdio.connection.era, 'undecided');
  await assertHandshakeStillAvailable(client, 1);
  assert.deepEqual(await client.end(), []);
});

test('a cancel that arrives before any request acts at once (on nothing) and never cancels a later opener reusing the id', async () => {
  const { client, slow } = connect();
  client.send(notification('notifications/cancelled', { requestId: 1, reason: 'early' }));
  client.send(modern('tools/call', { name: 'slow' }, 1));
  await slow.started.promise;
  assert.equal(client.stdio.connection.era, 'modern');
  slow.release.resolve();
  assert.deepEqual(await client.response(1), ok(1, complete(text('released'))));
  assert.deepEqual(await client.end(), []);
});

test('a cancel before the handshake never reaches a legacy request that later reuses the id', async () => {
  const { client, slow } = connect();
  sendChunk(
    client,
    notification('notifications/cancelled', { requestId: 5 }),
    initialize(1),
    notification('notifications/initialized'),
  );
  assert.deepEqual(await client.response(1), ok(1, INITIALIZE_RESULT));
  client.send(bare('tools/call', { name: 'slow' }, 5));
  await slow.started.promise;
  slow.release.resolve();
  assert.deepEqual(await client.response(5), ok(5, text('released')));
  assert.deepEqual(await client.end(), []);
});

test('a client response before any request is discarded: nothing is written and it decides nothing', async () => {
  const { client } = connect();
  sendChunk(
    client,
    { jsonrpc: '2.0', id: 0, result: {} },
    { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found' } },
    modern('server/discover', {}, 'probe'),
  );
  assert.deepEqual(await client.response('probe'), ok('probe', DISCOVER_RESULT));
  assert.equal(client.stdio.connection.era, 'undecided');
  await assertHandshakeStillAvailable(client, 1);
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, [ok('probe', DISCOVER_RESULT), ok(1, INITIALIZE_RESULT)]);
});

test('a client response before any request is logged', async () => {
  const { client, logger } = connect();
  sendChunk(client, { jsonrpc: '2.0', id: 7, result: {} }, modern('server/discover', {}, 'probe'));
  assert.deepEqual(await client.response('probe'), ok('probe', DISCOVER_RESULT));
  assert.deepEqual(logger.warnings, ['discarded a response (id 7) that arrived before the first request']);
  assert.deepEqual(await client.end(), []);
});

test('EOF before any request: the server exits cleanly and writes nothing, held notifications included', async () => {
  const { client, logger } = connect();
  sendChunk(client, ...Array.from({ length: 3 }, () => notification('notifications/initialized')));
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, []);
  assert.equal(client.stdio.connection.era, 'undecided');
  assert.deepEqual(logger.warnings, []);
  assert.deepEqual(logger.errors, []);
});

// ---------------------------------------------------------------------------------------------------------------
// Pipelined openers: strictly wire order, decided on arrival, whatever the outcome

test('pipelined enveloped tools/list then bare initialize: modern, then -32022 naming supported and requested', async () => {
  const { client } = connect();
  sendChunk(client, modern('tools/list', {}, 1), initialize(2));
  assert.deepEqual(await nextFrames(client, 2), [ok(1, MODERN_TOOLS_LIST), handshakeRefusal(2, '2025-11-25')]);
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
});

test('pipelined bare initialize then enveloped tools/list: legacy, then the exact legacy refusal', async () => {
  const { client } = connect();
  sendChunk(client, initialize(1), modern('tools/list', {}, 2));
  assert.deepEqual(await nextFrames(client, 2), [ok(1, INITIALIZE_RESULT), fail(2, LEGACY_REFUSAL)]);
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('openers split across many small writes are still classified in wire order', async () => {
  const { client } = connect();
  const wire = `${JSON.stringify(modern('tools/list', {}, 1))}\n${JSON.stringify(initialize(2))}\n`;
  for (let i = 0; i < wire.length; i += 7) client.input.write(wire.slice(i, i + 7));
  assert.deepEqual(await nextFrames(client, 2), [ok(1, MODERN_TOOLS_LIST), handshakeRefusal(2, '2025-11-25')]);
  assert.deepEqual(await client.end(), []);
});

test('the era is decided when a slow modern opener arrives: initialize behind it is refused while it still runs', async () => {
  const { client, slow } = connect();
  sendChunk(client, modern('tools/call', { name: 'slow' }, 1), initialize(2));
  assert.deepEqual(await client.next(), handshakeRefusal(2, '2025-11-25'));
  await slow.started.promise;
  assert.equal(client.stdio.connection.era, 'modern');
  slow.release.resolve();
  assert.deepEqual(await client.next(), ok(1, complete(text('released'))));
  assert.deepEqual(await client.end(), []);
});

test('a listen that never completes still pins modern: ack, then initialize is -32022, final result at EOF', async () => {
  const { client } = connect();
  client.send(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'l1'));
  assert.deepEqual(
    await client.next(),
    notification('notifications/subscriptions/acknowledged', {
      _meta: { [SUBSCRIPTION_ID]: 'l1' },
      notifications: { toolsListChanged: true },
    }),
  );
  client.send(initialize(2));
  assert.deepEqual(await client.response(2), handshakeRefusal(2, '2025-11-25'));
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), [
    ok('l1', { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'l1', ...STAMP } }),
  ]);
});

const FAILED_MODERN_OPENERS: { what: string; frame: Frame; answer: Frame }[] = [
  {
    what: 'an unknown method (-32601)',
    frame: modern('tools/frobnicate', {}, 1),
    answer: fail(1, { code: -32601, message: 'Method not found', data: 'tools/frobnicate' }),
  },
  {
    what: 'a malformed envelope (-32602)',
    frame: modern('tools/list', {}, 1, { [CLIENT_CAPABILITIES]: undefined }),
    answer: fail(1, MISSING_CAPABILITIES),
  },
  {
    what: 'a version that is not a string (-32602)',
    frame: modern('tools/list', {}, 1, { [PROTOCOL_VERSION]: null }),
    answer: fail(1, VERSION_NOT_STRING),
  },
  {
    what: 'an unsupported version (-32022)',
    frame: modern('tools/list', {}, 1, { [PROTOCOL_VERSION]: '2025-11-25' }),
    answer: unsupportedVersion(1, '2025-11-25'),
  },
  {
    what: 'an unknown tool (-32602)',
    frame: modern('tools/call', { name: 'nope' }, 1),
    answer: fail(1, { code: -32602, message: "Invalid params: unknown tool 'nope'" }),
  },
];

for (const { what, frame, answer } of FAILED_MODERN_OPENERS) {
  test(`a failed modern opener still pins modern: ${what}, then initialize is -32022`, async () => {
    const { client } = connect();
    sendChunk(client, frame, initialize(2));
    // By id, not wire order: a tools/call answer is asynchronous and may follow the synchronous refusal.
    assert.deepEqual(await client.response(1), answer);
    assert.deepEqual(await client.response(2), handshakeRefusal(2, '2025-11-25'));
    assert.equal(client.stdio.connection.era, 'modern');
    assert.deepEqual(await client.end(), []);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Legacy-pinned connections: the refusal states the rule, whatever the opener and the probes before it were

const LEGACY_OPENERS: { what: string; frame: Frame; answer: Frame }[] = [
  { what: 'initialize', frame: initialize(1), answer: ok(1, INITIALIZE_RESULT) },
  { what: 'ping', frame: bare('ping', undefined, 1), answer: ok(1, {}) },
  { what: 'a bare tools/list', frame: bare('tools/list', {}, 1), answer: fail(1, NOT_INITIALIZED) },
  {
    what: 'a bare server/discover',
    frame: bare('server/discover', {}, 1),
    answer: fail(1, { code: -32601, message: 'Method not found', data: 'server/discover' }),
  },
  {
    what: 'a malformed initialize',
    frame: bare('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 1),
    answer: fail(1, {
      code: -32602,
      message: 'Invalid params: params.clientInfo must be {name: string, version: string}',
    }),
  },
  {
    what: 'initialize whose _meta carries only a progressToken (not a claim)',
    frame: bare('initialize', { ...REMOVED_PARAMS.initialize, _meta: { progressToken: 0 } }, 1),
    answer: ok(1, INITIALIZE_RESULT),
  },
];

/** What may come before the opener and decides nothing: the refusal must stay true after each. */
const PROBES: { what: string; frames: { frame: Frame; answer: Frame }[] }[] = [
  { what: '', frames: [] },
  {
    what: 'an enveloped server/discover probe, then ',
    frames: [{ frame: modern('server/discover', {}, 'p0'), answer: ok('p0', DISCOVER_RESULT) }],
  },
  {
    what: 'an enveloped initialize refused -32601, then ',
    frames: [
      { frame: modern('initialize', REMOVED_PARAMS.initialize, 'p0'), answer: removedMethod('p0', 'initialize') },
    ],
  },
  {
    what: 'a probe and every enveloped removed method, then ',
    frames: [
      { frame: modern('server/discover', {}, 'p0'), answer: ok('p0', DISCOVER_RESULT) },
      ...REMOVED.map((method, i) => ({
        frame: modern(method, REMOVED_PARAMS[method], `p${i + 1}`),
        answer: removedMethod(`p${i + 1}`, method),
      })),
    ],
  },
];

for (const probes of PROBES)
  for (const { what, frame, answer } of LEGACY_OPENERS) {
    test(`after ${probes.what}${what} as the opener, enveloped requests get the exact legacy refusal`, async () => {
      const { server, client } = connect();
      for (const probe of probes.frames) {
        client.send(probe.frame);
        assert.deepEqual(await client.response(probe.frame.id), probe.answer);
      }
      assert.equal(client.stdio.connection.era, 'undecided');
      client.send(frame);
      assert.deepEqual(await client.response(1), answer);
      assert.equal(client.stdio.connection.era, 'legacy');
      sendChunk(
        client,
        modern('tools/list', {}, 2),
        modern('server/discover', {}, 3),
        modern('ping', {}, 4),
        modern('resources/subscribe', { uri: 'test://a' }, 5),
        modern('tools/list', {}, 6, { [CLIENT_CAPABILITIES]: undefined }),
      );
      assert.deepEqual(
        await nextFrames(client, 5),
        [2, 3, 4, 5, 6].map((id) => fail(id, LEGACY_REFUSAL)),
      );
      assert.equal(client.stdio.connection.era, 'legacy');
      // Once initialized (by the opener, or now), an update of test://a would reach a subscription a refusal made.
      if (client.stdio.connection.handshake === undefined) {
        client.send(initialize(7));
        assert.deepEqual(await client.response(7), ok(7, INITIALIZE_RESULT));
      }
      server.notifyResourceUpdated('test://a');
      assert.deepEqual(await client.end(), []);
    });
  }

// ---------------------------------------------------------------------------------------------------------------
// Modern-pinned connections: requests without a claim

test('on a modern connection a request without a claim is -32602 naming both envelope keys', async () => {
  const { client, calls } = connect();
  client.send(modern('tools/list', {}, 1));
  assert.deepEqual(await client.response(1), ok(1, MODERN_TOOLS_LIST));
  sendChunk(
    client,
    bare('tools/list', undefined, 2),
    bare('tools/list', {}, 3),
    bare('tools/call', { name: 'echo', _meta: { progressToken: 1 } }, 4),
    bare('tools/call', { name: 'echo', _meta: { [CLIENT_CAPABILITIES]: {} } }, 5),
    bare('ping', undefined, 6),
    bare('server/discover', {}, 7),
    bare('resources/subscribe', { uri: 'test://a' }, 8),
  );
  assert.deepEqual(
    await nextFrames(client, 7),
    [2, 3, 4, 5, 6, 7, 8].map((id) => fail(id, MISSING_ENVELOPE)),
  );
  assert.deepEqual(calls, [], 'no handler ran');
  assert.deepEqual(await client.end(), []);
});

test('on a modern connection a bare initialize is -32022 with requested = params.protocolVersion when a string, else "unknown"', async () => {
  const { client } = connect();
  client.send(modern('tools/list', {}, 1));
  assert.deepEqual(await client.response(1), ok(1, MODERN_TOOLS_LIST));
  sendChunk(
    client,
    initialize(2, '2025-11-25'),
    initialize(3, '2024-11-05'),
    initialize(4, ''),
    initialize(5, 42),
    initialize(6, null),
    bare('initialize', {}, 7),
    bare('initialize', undefined, 8),
    bare('initialize', { ...REMOVED_PARAMS.initialize, _meta: { progressToken: 3 } }, 9),
  );
  assert.deepEqual(await nextFrames(client, 8), [
    handshakeRefusal(2, '2025-11-25'),
    handshakeRefusal(3, '2024-11-05'),
    handshakeRefusal(4, ''),
    handshakeRefusal(5, 'unknown'),
    handshakeRefusal(6, 'unknown'),
    handshakeRefusal(7, 'unknown'),
    handshakeRefusal(8, 'unknown'),
    handshakeRefusal(9, '2025-11-25'),
  ]);
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
});

test('a modern connection serves each request under its own envelope, remembering nothing from earlier ones', async () => {
  const { client } = connect();
  client.send(modern('tools/call', { name: 'log' }, 1, { [LOG_LEVEL]: 'debug' }));
  assert.deepEqual(await nextFrames(client, 3), [
    notification('notifications/message', { level: 'debug', data: 'debug line' }),
    notification('notifications/message', { level: 'info', data: 'info line' }),
    ok(1, complete(text('logged'))),
  ]);
  // The earlier logLevel is not a connection setting: a request without one gets no log messages.
  client.send(modern('tools/call', { name: 'log' }, 2));
  assert.deepEqual(await client.next(), ok(2, complete(text('logged'))));
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Falsy values are present values

test('id 0 and progressToken 0 on a modern tools/call opener: progress carries token 0, the answer id 0', async () => {
  const { client } = connect();
  client.send(modern('tools/call', { name: 'progress' }, 0, { progressToken: 0 }));
  assert.deepEqual(await nextFrames(client, 3), [
    notification('notifications/progress', { progressToken: 0, progress: 1, total: 2 }),
    notification('notifications/progress', { progressToken: 0, progress: 2, total: 2 }),
    ok(0, complete(text('done'))),
  ]);
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
});

test('id "" and progressToken "" on a modern tools/call are answered and reported as such', async () => {
  const { client } = connect();
  client.send(modern('tools/call', { name: 'progress' }, '', { progressToken: '' }));
  assert.deepEqual(await nextFrames(client, 3), [
    notification('notifications/progress', { progressToken: '', progress: 1, total: 2 }),
    notification('notifications/progress', { progressToken: '', progress: 2, total: 2 }),
    ok('', complete(text('done'))),
  ]);
  assert.deepEqual(await client.end(), []);
});

test('a bare initialize with id 0 as the opener decides legacy and is answered with id 0', async () => {
  const { client } = connect();
  client.send(initialize(0));
  assert.deepEqual(await client.response(0), ok(0, INITIALIZE_RESULT));
  assert.equal(client.stdio.connection.era, 'legacy');
  assert.deepEqual(await client.end(), []);
});

test('a configured ttlMs of 0 with public scope is written as 0, not dropped', async () => {
  const { client } = connect({ cache: { ttlMs: 0, scope: 'public' } });
  client.send(modern('server/discover', {}, 0));
  assert.deepEqual(await client.response(0), ok(0, { ...DISCOVER_RESULT, cacheScope: 'public' }));
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Notifications on a modern connection carry no envelope

test('notifications on a modern connection are processed at the only served modern version (a second one needs a decision)', () => {
  // Notifications carry no envelope; the router acts on them at the latest served modern version. This pins the
  // premise: adding a modern version must come with a decision (and a test) on which version that is.
  assert.deepEqual(MODERN_VERSIONS, ['2026-07-28']);
});

test('notifications/cancelled without an envelope cancels an in-flight modern test_sleep: nothing more for its id', async () => {
  const client = new WireClient(createEverythingServer(), { drainWindowMs: 100 });
  client.send(modern('tools/call', { name: 'test_sleep', arguments: { ms: 60_000 } }, 1, { progressToken: 'sleep' }));
  client.send(notification('notifications/cancelled', { requestId: 1, reason: 'user pressed stop' }));
  client.send(modern('tools/list', {}, 2));
  const list = await client.response(2);
  assert.equal(list.result.resultType, 'complete');
  assert.equal(client.stdio.connection.inFlightCount, 0, 'the cancel took test_sleep out of the in-flight table');
  assert.equal(client.stdio.connection.era, 'modern');
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(
    client.frames.filter((frame) => frame.id === 1 || frame.params?.progressToken === 'sleep'),
    [],
  );
});

test('notifications/cancelled on a modern connection aborts the handler at once and writes nothing for it', async () => {
  const { client, slow, calls } = connect();
  client.send(modern('tools/call', { name: 'slow' }, 'call-1', { progressToken: 'p' }));
  await slow.started.promise;
  client.send(notification('notifications/cancelled', { requestId: 'call-1', reason: 'stop' }));
  const reason = await slow.aborted.promise;
  assert.equal((reason as Error).message, 'Request ended: the client cancelled the request');
  assert.equal(client.stdio.connection.inFlightCount, 0);
  client.send(modern('tools/call', { name: 'echo' }, 'call-1'));
  assert.deepEqual(await client.response('call-1'), ok('call-1', complete(text('{}'))), 'the id is free again');
  assert.deepEqual(calls, ['slow', 'echo']);
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, [ok('call-1', complete(text('{}')))]);
});

test('other notifications on a modern connection are ignored: no output, no effect on a running request', async () => {
  const { client, slow } = connect();
  client.send(modern('tools/call', { name: 'slow' }, 1));
  await slow.started.promise;
  sendChunk(
    client,
    notification('notifications/initialized'),
    notification('notifications/progress', { progressToken: 1, progress: 1 }),
    notification('notifications/roots/list_changed'),
    notification('notifications/message', { level: 'error', data: 'x' }),
    notification('notifications/elicitation/complete', { elicitationId: 'e' }),
    notification('notifications/unknown'),
    notification('notifications/cancelled', { requestId: '1' }),
    notification('notifications/cancelled', { requestId: 1.5 }),
    notification('notifications/cancelled', { requestId: null }),
    notification('notifications/cancelled', {}),
    modern('server/discover', {}, 2),
  );
  assert.deepEqual(await client.response(2), ok(2, DISCOVER_RESULT));
  assert.equal(client.stdio.connection.inFlightCount, 1, 'the slow request still runs');
  slow.release.resolve();
  assert.deepEqual(await client.response(1), ok(1, complete(text('released'))));
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, [ok(2, DISCOVER_RESULT), ok(1, complete(text('released')))]);
});

test("a logLevel in a notification's _meta never opens logging, on a modern or an undecided connection", async () => {
  const { client } = connect();
  // Undecided: an enveloped notification with a logLevel is held, and decides nothing.
  client.send(notification('notifications/initialized', { _meta: envelope({ [LOG_LEVEL]: 'debug' }) }));
  client.send(modern('tools/call', { name: 'log' }, 1));
  assert.deepEqual(await client.next(), ok(1, complete(text('logged'))));
  // Modern: the same notification again, then a request without logLevel, then one with it.
  client.send(
    notification('notifications/message', { _meta: envelope({ [LOG_LEVEL]: 'debug' }), level: 'debug', data: 'x' }),
  );
  client.send(modern('tools/call', { name: 'log' }, 2));
  assert.deepEqual(await client.next(), ok(2, complete(text('logged'))));
  client.send(modern('tools/call', { name: 'log' }, 3, { [LOG_LEVEL]: 'info' }));
  assert.deepEqual(await nextFrames(client, 2), [
    notification('notifications/message', { level: 'info', data: 'info line' }),
    ok(3, complete(text('logged'))),
  ]);
  assert.deepEqual(await client.end(), []);
});

test('a client response frame on a modern connection is discarded silently', async () => {
  const { client, logger } = connect();
  client.send(modern('tools/list', {}, 1));
  assert.deepEqual(await client.response(1), ok(1, MODERN_TOOLS_LIST));
  sendChunk(
    client,
    { jsonrpc: '2.0', id: 0, result: {} },
    { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } },
    { jsonrpc: '2.0', id: 'elicit-1', result: { action: 'accept', content: {} } },
    { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    modern('server/discover', {}, 3),
  );
  assert.deepEqual(await client.response(3), ok(3, DISCOVER_RESULT));
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(client.frames, [ok(1, MODERN_TOOLS_LIST), ok(3, DISCOVER_RESULT)]);
  assert.deepEqual(logger.warnings, []);
  assert.deepEqual(logger.errors, []);
});

// ---------------------------------------------------------------------------------------------------------------
// Batches and the modern claim

test('a 2025-03-26 batch containing an enveloped request is one -32600 and no element is processed', async () => {
  const { client, calls } = connect();
  assert.equal((await client.initialize('2025-03-26')).protocolVersion, '2025-03-26');
  client.send([
    bare('tools/call', { name: 'echo' }, 1),
    notification('notifications/cancelled', { requestId: 99 }),
    modern('tools/list', {}, 2),
  ]);
  assert.deepEqual(await client.next(), fail(null, BATCH_WITH_CLAIM));
  assert.deepEqual(calls, []);
  // The same batch without the claim is served, so the refusal above was about the claim alone.
  client.send([bare('tools/call', { name: 'echo' }, 1), bare('ping', undefined, 2)]);
  const answer = await client.next();
  assert.ok(Array.isArray(answer));
  assert.deepEqual(
    answer.sort((a: Frame, b: Frame) => a.id - b.id),
    [ok(1, text('{}')), ok(2, {})],
  );
  assert.deepEqual(calls, ['echo']);
  assert.deepEqual(await client.end(), []);
});

test('a 2025-03-26 batch with a claim on a notification only is refused the same way', async () => {
  const { client, calls } = connect();
  await client.initialize('2025-03-26');
  client.send([
    bare('tools/call', { name: 'echo' }, 1),
    notification('notifications/progress', { _meta: envelope(), progressToken: 1, progress: 1 }),
  ]);
  assert.deepEqual(await client.next(), fail(null, BATCH_WITH_CLAIM));
  assert.deepEqual(calls, []);
  assert.deepEqual(await client.end(), []);
});

test('a batch with a claim as the first line is refused and decides nothing', async () => {
  const { client } = connect();
  client.send([modern('tools/list', {}, 1), modern('server/discover', {}, 2)]);
  assert.deepEqual(await client.next(), fail(null, BATCH_WITH_CLAIM));
  assert.equal(client.stdio.connection.era, 'undecided');
  await assertHandshakeStillAvailable(client, 3);
  assert.deepEqual(await client.end(), []);
});

test('a 2026-07-28 connection never builds the 2025 lifecycle; a 2025 one builds it on its first request', async (t) => {
  // A built 2025 lifecycle hears every server change (Connection.onChange); one never built hears none.
  const heard = t.mock.method(LegacyLifecycle.prototype, 'onChange');
  const { server, client } = connect();
  assert.equal((await client.request('tools/list', { _meta: envelope() })).result.resultType, 'complete');
  client.send([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }]); // refused without the 2025 side
  assert.deepEqual(await client.next(), fail(null, BATCH_VERSION_REFUSAL));
  server.notifyListChanged('tools');
  assert.equal(heard.mock.callCount(), 0);
  const legacy = new WireClient(server);
  await legacy.initialize();
  server.notifyListChanged('tools');
  assert.equal(heard.mock.callCount(), 1);
  assert.deepEqual(await client.end(), []);
  await legacy.end();
});

test('an envelope given as connection-wide extras is ignored: each request of the connection has its own read', async () => {
  const { server } = fixture();
  const sent: Frame[] = [];
  const read = server.transport.readEnvelope({ _meta: envelope() });
  const connection = server.transport.connect({
    send: (frame) => void sent.push(frame as Frame),
    extras: { envelope: read },
  });
  connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } });
  connection.receive({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/list',
    params: { _meta: envelope({ [PROTOCOL_VERSION]: '1999-01-01' }) },
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal((sent[0] as { result: { resultType: string } }).result.resultType, 'complete');
  assert.equal((sent[1] as { error: { code: number } }).error.code, -32022);
  connection.close();
});

test('readEnvelope refuses params without a _meta object with the missing-envelope -32602, naming both keys', () => {
  const { server } = fixture();
  for (const params of [{}, { _meta: null }, { _meta: [] }]) {
    assert.throws(
      () => server.transport.readEnvelope(params),
      (error: unknown) =>
        error instanceof ProtocolError && error.code === -32602 && error.message === MISSING_ENVELOPE.message,
    );
  }
});

test('a connection opened with assumeInitialized is a 2025 one: it serves a 2025-03-26 batch and refuses an enveloped request', async () => {
  const { server } = fixture();
  const sent: unknown[] = [];
  const connection = server.transport.connect({
    send: (frame) => void sent.push(frame),
    assumeInitialized: '2025-03-26',
  });
  assert.equal(connection.era, 'legacy');
  connection.receive([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  connection.receive(modern('tools/list', {}, 2));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(sent, [[ok(1, {})], fail(2, LEGACY_REFUSAL)]);
  connection.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Documentation states the current rule

test('no entry point documents the stale "first successful request locks the era" rule', () => {
  const root = new URL('../', import.meta.url);
  const files = [
    ...readdirSync(root).filter((name) => name.endsWith('.ts') || name === 'README.md'),
    ...readdirSync(new URL('examples/', root), { recursive: true })
      .map((name) => `examples/${name}`)
      .filter((file) => statSync(new URL(file, root)).isFile()),
  ];
  const stale =
    /first[^.]{0,60}\b(succeed|succeeds|successful)\b|\block(s|ed)? (the )?(connection|era)\b|locked version|opened with the initialize handshake/i;
  for (const file of files) {
    const content = readFileSync(new URL(file, root), 'utf8');
    assert.doesNotMatch(content, stale, file);
  }
});

test('the README states the era rule the router implements: the first non-probe request decides, on arrival, whatever its outcome', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.match(readme, /first request that is not a probe decides/);
  assert.match(readme, /whatever its outcome/);
  assert.doesNotMatch(
    readme,
    /The 2026-07-28 era and Streamable HTTP are next/,
    'the status line predates the modern era',
  );
});
