// Scale-out hooks in one process: two serveHttp servers (two createServer instances, as two processes of a
// deployment) sharing an in-memory SharedSessionStore and ChangeBus. A 2025 session made on one is restored on the
// other with its recorded handshake and owner, DELETE anywhere ends it everywhere, store failures answer 503 or
// 404 and are logged, and changes cross servers only through the bus. Every wait is on a frame or a response.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type ChangeBus, type ChangeEvent, createServer, type Server } from '../core.ts';
import { type HttpOptions, type HttpServer, type SessionRecord, type SharedSessionStore, serveHttp } from '../http.ts';
import type { AuthInfo } from '../types.ts';
import { deferred, type Frame, MemoryLogger } from './harness.ts';
import { SseReader } from './sse-reader.ts';
import { type Id, MODERN, modern, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const VERSION = '2025-06-18';
const CAPABILITIES = { roots: { listChanged: true }, elicitation: {} };
const CLIENT_INFO = { name: 'scale-out-client', version: '2.1.0', title: 'Scale-out client' };
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
const STORE_UNAVAILABLE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32603, message: 'Internal error: the session store is unavailable' },
};

/** Records as a real store keeps them: serialized (no shared objects between servers); failures on demand. */
class MemoryStore implements SharedSessionStore {
  readonly records = new Map<string, string>();
  readonly saves: string[] = [];
  failSave: 'throw' | 'reject' | undefined;
  failLoad = false;
  failRemove = false;
  /** When set, remove() waits for it (and says so through `removing`). */
  holdRemove: Promise<void> | undefined;
  readonly removing = deferred();

  save(id: string, record: SessionRecord): Promise<void> | void {
    this.saves.push(id);
    if (this.failSave === 'throw') throw new Error('store down (save)');
    if (this.failSave === 'reject') return Promise.reject(new Error('store down (save)'));
    this.records.set(id, JSON.stringify(record));
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    if (this.failLoad) throw new Error('store down (load)');
    const text = this.records.get(id);
    return text === undefined ? undefined : JSON.parse(text);
  }

  async remove(id: string): Promise<void> {
    this.removing.resolve();
    await this.holdRemove;
    if (this.failRemove) throw new Error('store down (remove)');
    this.records.delete(id);
  }

  record(id: string): unknown {
    return JSON.parse(this.records.get(id)!);
  }
}

/** Every subscriber gets every event (its own included), as JSON copies, in publish order. */
class MemoryBus implements ChangeBus {
  readonly published: ChangeEvent[] = [];
  readonly #subscribers: ((event: ChangeEvent) => void)[] = [];
  /** While true, publish() only records: the test delivers by hand. */
  hold = false;

  publish(event: ChangeEvent): void {
    this.published.push(event);
    if (!this.hold) this.deliver(event);
  }

  subscribe(deliver: (event: ChangeEvent) => void): void {
    this.#subscribers.push(deliver);
  }

  deliver(event: ChangeEvent): void {
    for (const subscriber of this.#subscribers) subscriber(JSON.parse(JSON.stringify(event)));
  }
}

const TOKENS: Record<string, AuthInfo> = {
  alice: { subject: 'alice', issuer: 'https://as.example.com', clientId: 'c1', scopes: [] },
  bob: { subject: 'bob', issuer: 'https://as.example.com', clientId: 'c1', scopes: [] },
};
const AUTH: HttpOptions['auth'] = {
  resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] },
  verifyToken: (token) => TOKENS[token],
};

interface Node {
  server: Server;
  http: HttpServer;
  logger: MemoryLogger;
  url: string;
}

/** One "process": a server whose `handshake` tool shows what its handler sees, and a `touch` tool that announces changes. */
async function node(t: TestContext, name: string, bus: ChangeBus | undefined, options: HttpOptions): Promise<Node> {
  const logger = new MemoryLogger();
  const server = createServer({ name, version: '1.0.0' }, { logger, changeBus: bus });
  server.tool('handshake', { inputSchema: { type: 'object' } }, (_args, ctx) => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          server: name,
          protocolVersion: ctx.protocolVersion,
          clientCapabilities: ctx.clientCapabilities,
          clientInfo: ctx.clientInfo,
          subject: ctx.auth?.subject ?? null,
        }),
      },
    ],
  }));
  server.tool(
    'touch',
    { inputSchema: { type: 'object', properties: { uri: { type: 'string' } } } },
    ({ uri }: { uri: string }) => {
      server.notifyResourceUpdated(uri);
      server.notifyListChanged('tools');
      return { content: [{ type: 'text', text: `touched ${uri} on ${name}` }] };
    },
  );
  server.resource('mem://x', { name: 'x' }, (uri) => ({ contents: [{ uri, text: 'x' }] }));
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  t.after(() => http.close());
  return { server, http, logger, url: http.url };
}

/** Two servers sharing `store` (unless undefined) and `bus` (unless undefined). */
async function pair(
  t: TestContext,
  { store = new MemoryStore(), bus, auth }: { store?: MemoryStore; bus?: ChangeBus; auth?: HttpOptions['auth'] } = {},
) {
  const options: HttpOptions = { sharedSessions: store, ...(auth === undefined ? {} : { auth }) };
  return { store, a: await node(t, 'A', bus, options), b: await node(t, 'B', bus, options) };
}

// ---------------------------------------------------------------------------------------------------------------
// 2025 exchanges

function headers(
  session?: string,
  token?: string,
  accept = 'application/json, text/event-stream',
): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept,
    'mcp-protocol-version': VERSION,
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

function initializeFrame(): Frame {
  return {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: CAPABILITIES, clientInfo: CLIENT_INFO },
  };
}

/** A session initialized (and notifications/initialized sent) on `url`: its id. */
async function initialize(url: string, token?: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headers(undefined, token),
    body: JSON.stringify(initializeFrame()),
  });
  assert.equal(response.status, 200);
  assert.equal(((await response.json()) as Frame).result.protocolVersion, VERSION);
  const session = response.headers.get('mcp-session-id');
  assert.ok(session !== null);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: headers(session, token),
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  assert.equal(initialized.status, 202);
  return session;
}

async function post(
  url: string,
  session: string,
  frame: Frame,
  token?: string,
  version = VERSION,
): Promise<{ status: number; body: Frame }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers(session, token), 'mcp-protocol-version': version },
    body: JSON.stringify(frame),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** What the `handshake` tool saw, called in `session` on `url`. */
async function handshakeSeen(url: string, session: string, id: Id, token?: string): Promise<Frame> {
  const { status, body } = await post(
    url,
    session,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'handshake', arguments: {} } },
    token,
  );
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.id, id);
  return JSON.parse(body.result.content[0].text);
}

function seenBy(server: string, subject: string | null = null): Frame {
  return { server, protocolVersion: VERSION, clientCapabilities: CAPABILITIES, clientInfo: CLIENT_INFO, subject };
}

async function getStream(url: string, session: string): Promise<SseReader> {
  const response = await fetch(url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION },
  });
  return new SseReader(response);
}

async function remove(url: string, session: string, token?: string): Promise<number> {
  const response = await fetch(url, { method: 'DELETE', headers: headers(session, token) });
  await response.body?.cancel();
  return response.status;
}

// 2026-07-28 exchanges

async function modernCall(url: string, name: string, args: Record<string, unknown>, id: Id): Promise<Frame> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify(modern('tools/call', { name, arguments: args }, id)),
  });
  assert.equal(response.status, 200);
  return response.json();
}

async function listen(url: string, id: Id, notifications: Record<string, unknown>): Promise<SseReader> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(modern('subscriptions/listen', { notifications }, id)),
  });
  const reader = new SseReader(response);
  assert.equal((await reader.message()).method, 'notifications/subscriptions/acknowledged');
  return reader;
}

const updated = (uri: string, tag?: Id) => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: tag === undefined ? { uri } : { _meta: { [SUBSCRIPTION_ID]: tag }, uri },
});
const toolsChanged = (tag?: Id) =>
  tag === undefined
    ? { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }
    : { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: tag } } };

// ---------------------------------------------------------------------------------------------------------------
// Shared sessions

test(
  'a session initialized on A is served by B with the handshake A recorded (version, capabilities, clientInfo)',
  T,
  async (t) => {
    const { store, a, b } = await pair(t);
    const session = await initialize(a.url);
    assert.deepEqual(store.saves, [session]);
    assert.deepEqual(store.record(session), {
      protocolVersion: VERSION,
      clientCapabilities: CAPABILITIES,
      clientInfo: CLIENT_INFO,
    });
    assert.equal(b.http.handler.sessionCount, 0);
    assert.deepEqual(await handshakeSeen(b.url, session, 1), seenBy('B'));
    assert.equal(b.http.handler.sessionCount, 1, 'B holds a copy now');
    assert.deepEqual(await handshakeSeen(a.url, session, 2), seenBy('A'));
    assert.deepEqual(await handshakeSeen(b.url, session, 3), seenBy('B'));
    // The restored copy checks the header against the recorded version, and answers with the session id.
    const wrong = await post(b.url, session, { jsonrpc: '2.0', id: 4, method: 'ping' }, undefined, '2025-11-25');
    assert.deepEqual(wrong, {
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Bad Request: MCP-Protocol-Version header does not match the negotiated version',
        },
      },
    });
    const ping = await fetch(b.url, {
      method: 'POST',
      headers: headers(session),
      body: '{"jsonrpc":"2.0","id":5,"method":"ping"}',
    });
    assert.equal(ping.headers.get('mcp-session-id'), session);
    assert.deepEqual(await ping.json(), { jsonrpc: '2.0', id: 5, result: {} });
    // A repeated initialize on the restored copy gets the answer of the recorded handshake, as on A.
    const repeat = await post(b.url, session, initializeFrame());
    assert.equal(repeat.status, 200);
    assert.equal(repeat.body.result.protocolVersion, VERSION);
    assert.equal(store.saves.length, 1, 'only a new session is saved');
    assert.deepEqual([a.logger.errors, b.logger.errors], [[], []]);
  },
);

test('DELETE on B removes the record; A then forgets its copy (its GET stream ends) and answers 404', T, async (t) => {
  const { store, a, b } = await pair(t);
  const session = await initialize(a.url);
  assert.deepEqual(await handshakeSeen(b.url, session, 1), seenBy('B'));
  const stream = await getStream(a.url, session);
  assert.equal(await remove(b.url, session), 200);
  assert.equal(store.records.has(session), false);
  assert.equal(b.http.handler.sessionCount, 0);
  assert.equal(a.http.handler.sessionCount, 1, 'A learns of it with its next exchange for the session');
  assert.deepEqual(await post(a.url, session, { jsonrpc: '2.0', id: 2, method: 'ping' }), {
    status: 404,
    body: SESSION_NOT_FOUND,
  });
  assert.equal(a.http.handler.sessionCount, 0);
  await stream.ended();
  assert.deepEqual(await post(b.url, session, { jsonrpc: '2.0', id: 3, method: 'ping' }), {
    status: 404,
    body: SESSION_NOT_FOUND,
  });
  assert.equal(await remove(a.url, session), 404);
  assert.deepEqual(
    [a.http.handler.sessionCount, b.http.handler.sessionCount],
    [0, 0],
    'an unknown id leaves no copy behind',
  );
});

test('DELETE is answered only once the record is removed', T, async (t) => {
  const { store, a, b } = await pair(t);
  const session = await initialize(a.url);
  const release = deferred();
  store.holdRemove = release.promise;
  let answered = false;
  const deleting = remove(b.url, session).then((status) => {
    answered = true;
    return status;
  });
  await store.removing.promise;
  // A full exchange with B: had the DELETE been answered without waiting for the store, its answer is here by now.
  assert.equal(
    (await modernCall(b.url, 'touch', { uri: 'mem://x' }, 'flush')).result.content[0].text,
    'touched mem://x on B',
  );
  assert.equal(answered, false, 'DELETE was answered while the record still existed');
  release.resolve();
  assert.equal(await deleting, 200);
  assert.deepEqual(await post(a.url, session, { jsonrpc: '2.0', id: 2, method: 'ping' }), {
    status: 404,
    body: SESSION_NOT_FOUND,
  });
});

test(
  'a DELETE whose record cannot be removed answers 503 -32603 and is logged; the record stays, so another process still serves it',
  T,
  async (t) => {
    const { store, a, b } = await pair(t);
    const session = await initialize(a.url);
    store.failRemove = true;
    assert.equal(await remove(b.url, session), 503);
    assert.deepEqual(
      b.logger.errors.map((e) => [e.message, (e.error as Error).message]),
      [[`could not remove session ${session} from the shared store`, 'store down (remove)']],
    );
    assert.ok(store.records.has(session));
    store.failRemove = false;
    assert.deepEqual(await handshakeSeen(a.url, session, 2), seenBy('A'));
  },
);

for (const failure of ['throw', 'reject'] as const) {
  test(
    `a save that fails (${failure}) answers initialize 503 -32603 without a session id, ends the session and logs`,
    T,
    async (t) => {
      const { store, a, b } = await pair(t);
      store.failSave = failure;
      const response = await fetch(a.url, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify(initializeFrame()),
      });
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('mcp-session-id'), null);
      assert.deepEqual(await response.json(), STORE_UNAVAILABLE);
      assert.equal(a.http.handler.sessionCount, 0, 'nothing registered');
      assert.equal(store.records.size, 0);
      const [id] = store.saves;
      assert.ok(id !== undefined);
      assert.deepEqual(
        a.logger.errors.map((e) => [e.message, (e.error as Error).message]),
        [[`could not save session ${id} to the shared store`, 'store down (save)']],
      );
      // The id that was never handed out serves nothing, here or elsewhere.
      store.failSave = undefined;
      assert.deepEqual(await post(a.url, id, { jsonrpc: '2.0', id: 1, method: 'ping' }), {
        status: 404,
        body: SESSION_NOT_FOUND,
      });
      assert.deepEqual(await post(b.url, id, { jsonrpc: '2.0', id: 2, method: 'ping' }), {
        status: 404,
        body: SESSION_NOT_FOUND,
      });
      // A later initialize succeeds once the store is back.
      assert.deepEqual(await handshakeSeen(b.url, await initialize(a.url), 3), seenBy('B'));
    },
  );
}

test(
  'a load that fails answers 503 -32603 (retry) and is logged; the record stays, so the session is served once the store is back',
  T,
  async (t) => {
    const { store, a, b } = await pair(t);
    const session = await initialize(a.url);
    store.failLoad = true;
    assert.deepEqual(await post(b.url, session, { jsonrpc: '2.0', id: 1, method: 'ping' }), {
      status: 503,
      body: STORE_UNAVAILABLE,
    });
    assert.equal(b.http.handler.sessionCount, 0);
    assert.deepEqual(
      b.logger.errors.map((e) => [e.message, (e.error as Error).message]),
      [[`could not load session ${session} from the shared store`, 'store down (load)']],
    );
    assert.ok(store.records.has(session));
    store.failLoad = false;
    assert.deepEqual(await handshakeSeen(b.url, session, 2), seenBy('B'));
  },
);

test('the owner is restored with the session: another principal gets 404 on B, the owner is served', T, async (t) => {
  const { store, a, b } = await pair(t, { auth: AUTH });
  const session = await initialize(a.url, 'alice');
  assert.deepEqual(store.record(session), {
    protocolVersion: VERSION,
    clientCapabilities: CAPABILITIES,
    clientInfo: CLIENT_INFO,
    owner: '["https://as.example.com","alice","c1"]',
  });
  // Bob first: B restores the session on his request, and still refuses him.
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'handshake', arguments: {} } };
  assert.deepEqual(await post(b.url, session, call, 'bob'), { status: 404, body: SESSION_NOT_FOUND });
  assert.deepEqual(await handshakeSeen(b.url, session, 2, 'alice'), seenBy('B', 'alice'));
  assert.deepEqual(await post(b.url, session, call, 'bob'), { status: 404, body: SESSION_NOT_FOUND });
  assert.equal(await remove(b.url, session, 'bob'), 404);
  assert.ok(store.records.has(session), "another principal's DELETE removes nothing");
  assert.deepEqual(await handshakeSeen(a.url, session, 3, 'alice'), seenBy('A', 'alice'));
});

// ---------------------------------------------------------------------------------------------------------------
// The change bus

test('the bus carries changes made on B to a listen stream and a 2025 GET stream on A', T, async (t) => {
  const bus = new MemoryBus();
  const { a, b } = await pair(t, { bus });
  const listenA = await listen(a.url, 'L', { toolsListChanged: true, resourceSubscriptions: ['mem://x'] });
  const session = await initialize(a.url);
  assert.deepEqual(
    await post(a.url, session, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'mem://x' } }),
    { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } },
  );
  const getA = await getStream(a.url, session);
  bus.published.length = 0;

  assert.equal(
    (await modernCall(b.url, 'touch', { uri: 'mem://x' }, 't1')).result.content[0].text,
    'touched mem://x on B',
  );
  assert.deepEqual(bus.published, [{ type: 'resource', uri: 'mem://x' }, { type: 'tools' }], 'plain JSON events');
  assert.deepEqual(await listenA.message(), updated('mem://x', 'L'));
  assert.deepEqual(await listenA.message(), toolsChanged('L'));
  assert.deepEqual(await getA.message(), updated('mem://x'));
  assert.deepEqual(await getA.message(), toolsChanged());

  // A registry change on B, and server.notifyListChanged on B.
  b.server.tool('late', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
  assert.deepEqual(await listenA.message(), toolsChanged('L'));
  assert.deepEqual(await getA.message(), toolsChanged());
  b.server.notifyListChanged('tools');
  assert.deepEqual(await listenA.message(), toolsChanged('L'));
  assert.deepEqual(await getA.message(), toolsChanged());
  assert.deepEqual(bus.published, [
    { type: 'resource', uri: 'mem://x' },
    { type: 'tools' },
    { type: 'tools' },
    { type: 'tools' },
  ]);
  await listenA.cancel();
  await getA.cancel();
});

test("with a bus, a server's own changes reach its clients only as the bus delivers them", T, async (t) => {
  const bus = new MemoryBus();
  const { a } = await pair(t, { bus });
  bus.published.length = 0; // the registrations' own changes
  const listenA = await listen(a.url, 'L', { resourceSubscriptions: ['mem://x', 'mem://marker'] });
  bus.hold = true;
  await modernCall(a.url, 'touch', { uri: 'mem://x' }, 't1');
  assert.deepEqual(bus.published, [{ type: 'resource', uri: 'mem://x' }, { type: 'tools' }]);
  // Had A also told its own connections directly, mem://x would come before the marker.
  bus.deliver({ type: 'resource', uri: 'mem://marker' });
  assert.deepEqual(await listenA.message(), updated('mem://marker', 'L'));
  bus.deliver(bus.published[0]!);
  assert.deepEqual(await listenA.message(), updated('mem://x', 'L'));
  await listenA.cancel();
});

test('without a bus, a change stays in the server that made it', T, async (t) => {
  const { a, b } = await pair(t);
  const listenA = await listen(a.url, 'L', { toolsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://b'] });
  const session = await initialize(a.url);
  const getA = await getStream(a.url, session);
  await modernCall(b.url, 'touch', { uri: 'mem://b' }, 't1');
  await modernCall(a.url, 'touch', { uri: 'mem://a' }, 't2');
  // B's change would have come first: it was made (and, in one process, published) before A's.
  assert.deepEqual(await listenA.message(), updated('mem://a', 'L'));
  assert.deepEqual(await listenA.message(), toolsChanged('L'));
  assert.deepEqual(await getA.message(), toolsChanged());
  await listenA.cancel();
  await getA.cancel();
});
