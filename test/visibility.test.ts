// Per-request visibility (docs/api.md, Visibility) at the wire, on stdio and Streamable HTTP in both eras: a tool,
// resource, template or prompt whose `visible(viewer)` is not `true` is left out of every listing (pages stay full,
// each cursor an offset into the caller's own list) and every lookup answers exactly as for an item never registered
// (tools/call, prompts/get, resources/read, completion/complete, the 2026-07-28 HTTP Mcp-Param check); guarded lists
// and reads are cacheScope private; resources/updated reaches only who may read the URI; list_changed goes to all.
// Two viewers differ by clientInfo on stdio and by their bearer token over HTTP.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type AuthInfo, createServer, type Era, type Server, type ServerOptions, type Visibility } from '../core.ts';
import { type HttpOptions, type SessionRecord, type SharedSessionStore, serveHttp } from '../http.ts';
import { connectTestClient } from '../testing.ts';
import { type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_INFO, type Id, modern, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time
const INFO = { name: 'visibility-test', version: '1.0.0' };
const LEGACY = '2025-11-25';
const NO_ARGS = { type: 'object', properties: {} } as const;

type Who = 'admin' | 'guest';

/** Shown to the admin only: its clientInfo on stdio, its token's scope over HTTP (where clientInfo is the client's say). */
const ADMIN: Visibility = (viewer) =>
  viewer.auth === undefined ? viewer.clientInfo?.name === 'admin' : viewer.auth.scopes.includes('admin');

const TOKENS: Record<Who, AuthInfo> = {
  admin: { subject: 'ada', scopes: ['admin'] },
  guest: { subject: 'gus', scopes: [] },
};
const AUTH: HttpOptions['auth'] = {
  resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] },
  verifyToken: (token) => TOKENS[token as Who],
};

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function quietServer(options: ServerOptions = {}): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  return { server: createServer(INFO, { logger, ...options }), logger };
}

// ---------------------------------------------------------------------------------------------------------------
// Wires: the same conversation on stdio and HTTP, in both eras

/** An answer: its frame, and over HTTP the status it came with. */
interface Answer {
  status?: number;
  frame: Frame;
}
type Ask = (method: string, params?: Record<string, unknown>, id?: Id) => Promise<Answer>;

interface Wire {
  name: string;
  era: Era;
  /** Serves `server` for the test; `as(who)` is a client of that viewer (its own connection or session where the era has one). */
  open(t: TestContext, server: Server): Promise<(who: Who) => Promise<Ask>>;
}

let ids = 0;
const nextId = () => `v${++ids}`;

/** A 2025 stdio connection initialized with clientInfo `{name: who}`. */
async function legacyStdio(t: TestContext, server: Server, who: string): Promise<WireClient> {
  const client = new WireClient(server);
  t.after(() => client.end());
  const init = await client.request('initialize', {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: who, version: '1' },
  });
  assert.equal(init.result.protocolVersion, LEGACY);
  client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return client;
}

/** A 2026-07-28 request of `who` on stdio: its envelope names the client. */
function modernAs(who: string, method: string, params: Record<string, unknown>, id: Id): Frame {
  return modern(method, params, id, { [CLIENT_INFO]: { name: who, version: '1' } });
}

function headersOf(who: Who, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${who}`, ...extra };
}

/** A 2025 HTTP session of `who` (its token), initialized: its requests. */
async function legacySession(url: string, who: Who): Promise<Ask> {
  const init = await fetch(url, {
    method: 'POST',
    headers: headersOf(who),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  await init.json();
  const session = init.headers.get('mcp-session-id')!;
  const inSession = headersOf(who, { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY });
  const initialized = await fetch(url, {
    method: 'POST',
    headers: inSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return async (method, params, id = nextId()) => {
    const body = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    const response = await fetch(url, { method: 'POST', headers: inSession, body: JSON.stringify(body) });
    return { status: response.status, frame: JSON.parse(await response.text()) };
  };
}

/** One 2026-07-28 POST of `who` with the headers a correct client sends, plus `extra`. */
async function modernPost(url: string, who: Who, frame: Frame, extra: Record<string, string> = {}): Promise<Answer> {
  const response = await raw(url, {
    headers: modernHeaders(frame, { accept: 'application/json', authorization: `Bearer ${who}`, ...extra }),
    body: JSON.stringify(frame),
  });
  return { status: response.status, frame: response.json };
}

async function serveAuthed(t: TestContext, server: Server): Promise<string> {
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
  t.after(() => http.close());
  return http.url;
}

const WIRES: Wire[] = [
  {
    name: 'stdio 2025',
    era: 'legacy',
    async open(t, server) {
      return async (who) => {
        const client = await legacyStdio(t, server, who);
        return async (method, params, id = nextId()) => ({ frame: await client.request(method, params, id) });
      };
    },
  },
  {
    name: 'stdio 2026-07-28',
    era: 'modern',
    async open(t, server) {
      const client = new WireClient(server);
      t.after(() => client.end());
      return async (who) =>
        async (method, params = {}, id = nextId()) => {
          client.send(modernAs(who, method, params, id));
          return { frame: await client.response(id) };
        };
    },
  },
  {
    name: 'HTTP 2025',
    era: 'legacy',
    async open(t, server) {
      const url = await serveAuthed(t, server);
      return (who) => legacySession(url, who);
    },
  },
  {
    name: 'HTTP 2026-07-28',
    era: 'modern',
    async open(t, server) {
      const url = await serveAuthed(t, server);
      return async (who) =>
        (method, params = {}, id = nextId()) =>
          modernPost(url, who, modern(method, params, id));
    },
  },
];

/** Walks a list from its first page: each page's names, and the cursors handed out. */
async function walk(ask: Ask, method: string, key: string): Promise<{ pages: string[][]; cursors: string[] }> {
  const pages: string[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const { frame } = await ask(method, cursor === undefined ? {} : { cursor });
    assert.ok(frame.result, JSON.stringify(frame));
    pages.push(frame.result[key].map((item: Frame) => item.name ?? item.uri));
    cursor = frame.result.nextCursor;
    if (cursor !== undefined) cursors.push(cursor);
  } while (cursor !== undefined);
  return { pages, cursors };
}

/** A list's items from one request. */
async function listed(ask: Ask, method: string, key: string, params: Record<string, unknown> = {}) {
  const { frame } = await ask(method, params);
  assert.ok(frame.result, JSON.stringify(frame));
  return frame.result[key].map((item: Frame) => item.name ?? item.uriTemplate);
}

// ---------------------------------------------------------------------------------------------------------------
// Listings and cursors

for (const wire of WIRES) {
  test(
    `${wire.name}: 7 tools, 3 hidden, pageSize 2: each visible tool is listed exactly once in full pages, every cursor valid; another caller's cursor is only an offset into that caller's own list`,
    T,
    async (t) => {
      const { server } = quietServer({ pageSize: 2 });
      for (let i = 1; i <= 7; i++) server.tool(`t${i}`, i % 2 === 0 ? { visible: ADMIN } : {}, () => text(`t${i}`));
      const as = await wire.open(t, server);
      const guest = await as('guest');
      const admin = await as('admin');

      const seen = await walk(guest, 'tools/list', 'tools');
      assert.deepEqual(seen.pages, [
        ['t1', 't3'],
        ['t5', 't7'],
      ]);
      const all = await walk(admin, 'tools/list', 'tools');
      assert.deepEqual(all.pages, [['t1', 't2'], ['t3', 't4'], ['t5', 't6'], ['t7']]);

      // The admin's cursors in the guest's hands: offsets 2 and 4 into the guest's four, 6 past their end.
      const [afterTwo, afterFour, afterSix] = all.cursors;
      assert.deepEqual(await listed(guest, 'tools/list', 'tools', { cursor: afterTwo }), ['t5', 't7']);
      const { frame: atEnd } = await guest('tools/list', { cursor: afterFour });
      assert.deepEqual([atEnd.result.tools, atEnd.result.nextCursor], [[], undefined]);
      const { frame: past } = await guest('tools/list', { cursor: afterSix }, 'past');
      assert.deepEqual(past.error, {
        code: -32602,
        message: 'Invalid params: params.cursor is not a cursor this server issued',
      });
      // And the guest's cursor in the admin's: an offset into the admin's list.
      assert.deepEqual(await listed(admin, 'tools/list', 'tools', { cursor: seen.cursors[0] }), ['t3', 't4']);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Lookups: exactly the answer of an item never registered

/** What both servers serve alike (so capabilities match): a tool, a prompt with a completer, a resource, a template. */
function common(server: Server): void {
  server.tool('open', { inputSchema: NO_ARGS }, () => text('open'));
  server.prompt('open-prompt', { complete: { a: () => ['x'] } }, () => ({ messages: [] }));
  server.resource('open://fixed', { name: 'open' }, (uri) => ({ contents: [{ uri, text: 'open' }] }));
  server.resourceTemplate('open://t/{id}', { name: 'open-t' }, (uri) => ({ contents: [{ uri, text: 'open' }] }));
}

/** The guarded items: what the admin sees and nobody else, named as a guest might guess them. */
function guarded(server: Server): void {
  server.tool(
    'secret',
    {
      visible: ADMIN,
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    ({ region }) => text(`secret ${region}`),
  );
  server.prompt(
    'secret-prompt',
    { visible: ADMIN, arguments: [{ name: 'a', required: true }], complete: { a: () => ['hidden'] } },
    () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'secret' } }] }),
  );
  server.resource('secret://fixed', { name: 'fixed', visible: ADMIN }, (uri) => ({
    contents: [{ uri, text: 'secret' }],
  }));
  server.resourceTemplate(
    'secret://t/{id}',
    { name: 'secret-t', visible: ADMIN, complete: { id: () => ['7'] } },
    (uri) => ({ contents: [{ uri, text: 'secret' }] }),
  );
}

/** Requests a guest may send about the guarded items, each as [method, params]. */
const PROBES: [string, Record<string, unknown>][] = [
  ['tools/call', { name: 'secret', arguments: { region: 'eu' } }],
  ['tools/call', { name: 'secret', arguments: { region: 5 } }], // bad arguments: no validation reveals the schema
  ['tools/call', { name: 'secret' }],
  ['prompts/get', { name: 'secret-prompt', arguments: { a: 'x' } }],
  ['prompts/get', { name: 'secret-prompt' }], // a missing required argument: no check reveals it
  ['resources/read', { uri: 'secret://fixed' }],
  ['resources/read', { uri: 'secret://t/7' }],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'a', value: '' } }],
  [
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'secret://t/{id}' }, argument: { name: 'id', value: '' } },
  ],
  ['completion/complete', { ref: { type: 'ref/resource', uri: 'secret://fixed' }, argument: { name: 'x', value: '' } }],
];

for (const wire of WIRES) {
  test(
    `${wire.name}: tools/call, prompts/get, resources/read and completion/complete of a hidden item answer frame for frame as for one never registered`,
    T,
    async (t) => {
      const withItems = quietServer();
      common(withItems.server);
      guarded(withItems.server);
      const without = quietServer();
      common(without.server);
      const guest = await (await wire.open(t, withItems.server))('guest');
      const control = await (await wire.open(t, without.server))('guest');
      const admin = await (await wire.open(t, withItems.server))('admin');
      for (const [index, [method, params]] of PROBES.entries()) {
        const id = `probe-${index}`;
        const hidden = await guest(method, params, id);
        assert.deepEqual(hidden, await control(method, params, id), `${method} ${JSON.stringify(params)}`);
        // The item is there all the same: the admin is served (or told what is wrong with the request).
        const shown = await admin(method, params, id);
        assert.notDeepEqual(shown, hidden, `${method} ${JSON.stringify(params)} reaches the item for the admin`);
      }
      const names = (list: Frame) => list.map((item: Frame) => item.name ?? item.uri ?? item.uriTemplate);
      for (const [method, key] of [
        ['tools/list', 'tools'],
        ['prompts/list', 'prompts'],
        ['resources/list', 'resources'],
        ['resources/templates/list', 'resourceTemplates'],
      ] as const) {
        const { frame } = await guest(method);
        const { frame: plain } = await control(method);
        assert.deepEqual(names(frame.result[key]), names(plain.result[key]), `${method}: the guest's list`);
        const { frame: full } = await admin(method);
        assert.equal(full.result[key].length, plain.result[key].length + 1, `${method}: the admin's list`);
      }
      assert.deepEqual([withItems.logger.errors, without.logger.errors], [[], []]);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Resources: fall-through to a visible template, hidden templates and their list() rows

for (const wire of WIRES) {
  test(
    `${wire.name}: a hidden resource's URI is served by a visible template matching it; a hidden template is absent from both lists, its list() rows too, and its URIs unreadable`,
    T,
    async (t) => {
      const { server } = quietServer();
      const asked: unknown[] = [];
      server.resource('doc://a', { name: 'fixed a', visible: ADMIN }, (uri) => ({
        contents: [{ uri, text: 'fixed' }],
      }));
      server.resourceTemplate('doc://{name}', { name: 'docs' }, (uri) => ({ contents: [{ uri, text: 'template' }] }));
      server.resourceTemplate(
        'vault://{id}',
        {
          name: 'vault',
          visible: ADMIN,
          list: (ctx) => {
            asked.push(ctx.auth?.subject ?? ctx.clientInfo?.name);
            return [{ uri: 'vault://1', name: 'one' }];
          },
        },
        (uri) => ({ contents: [{ uri, text: 'vault' }] }),
      );
      const as = await wire.open(t, server);
      const guest = await as('guest');
      const admin = await as('admin');
      const read = async (ask: Ask, uri: string) => {
        const { frame } = await ask('resources/read', { uri });
        return frame.error ?? frame.result.contents[0].text;
      };
      assert.equal(await read(guest, 'doc://a'), 'template');
      assert.equal(await read(admin, 'doc://a'), 'fixed');
      assert.equal(await read(admin, 'vault://1'), 'vault');
      assert.deepEqual(await read(guest, 'vault://1'), {
        code: wire.era === 'legacy' ? -32002 : -32602,
        message: 'Resource not found',
        data: { uri: 'vault://1' },
      });
      assert.deepEqual(await listed(guest, 'resources/list', 'resources'), []);
      assert.deepEqual(await listed(admin, 'resources/list', 'resources'), ['fixed a', 'one']);
      assert.deepEqual(asked, [wire.name.startsWith('HTTP') ? 'ada' : 'admin'], 'list() is asked for the admin only');
      assert.deepEqual(await listed(guest, 'resources/templates/list', 'resourceTemplates'), ['docs']);
      assert.deepEqual(await listed(admin, 'resources/templates/list', 'resourceTemplates'), ['docs', 'vault']);
    },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 2026-07-28 HTTP: the arrival check

test(
  "2026-07-28 HTTP: a hidden tool's Mcp-Param headers are not checked: a mismatch gets the missing tool's answer, not 400 -32020",
  T,
  async (t) => {
    const withTool = quietServer();
    common(withTool.server);
    guarded(withTool.server);
    const without = quietServer();
    common(without.server);
    const url = await serveAuthed(t, withTool.server);
    const control = await serveAuthed(t, without.server);
    const frame = modern('tools/call', { name: 'secret', arguments: { region: 'eu' } }, 'p1');
    const variants: Record<string, string>[] = [{ 'mcp-param-region': 'us' }, {}, { 'mcp-param-region': 'eu' }];
    for (const headers of variants) {
      const hidden = await modernPost(url, 'guest', frame, headers);
      assert.deepEqual(hidden, await modernPost(control, 'guest', frame, headers), JSON.stringify(headers));
      assert.deepEqual(hidden.frame.error, { code: -32602, message: "Invalid params: unknown tool 'secret'" });
    }
    // Its caller's mismatch is refused as ever, and a matching header is served.
    const refused = await modernPost(url, 'admin', frame, { 'mcp-param-region': 'us' });
    assert.deepEqual([refused.status, refused.frame.error.code], [400, -32020]);
    const served = await modernPost(url, 'admin', frame, { 'mcp-param-region': 'eu' });
    assert.deepEqual([served.status, served.frame.result.content], [200, text('secret eu').content]);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Caching hints

test('2026-07-28: a list with a guarded item is cacheScope private (its ttl kept); unguarded lists keep their hints', async () => {
  const { server } = quietServer({
    cache: {
      ttlMs: 1000,
      scope: 'public',
      lists: { tools: { ttlMs: 10, scope: 'public' }, resourceTemplates: { ttlMs: 30 } },
    },
  });
  server.tool('shown', {}, () => text('shown'));
  server.tool('guarded', { visible: () => true }, () => text('guarded'));
  server.prompt('p', {}, () => ({ messages: [] }));
  server.prompt('old', { visible: () => false, era: 'legacy' }, () => ({ messages: [] })); // guards the 2025 list only
  server.resource('r://open', { name: 'open', cache: { ttlMs: 5 } }, (uri) => ({ contents: [{ uri, text: 'o' }] }));
  server.resource('r://guarded', { name: 'g', visible: () => true, cache: { ttlMs: 7, scope: 'public' } }, (uri) => ({
    contents: [{ uri, text: 'g' }],
  }));
  server.resourceTemplate('t://{x}', { name: 't', cache: { ttlMs: 9, scope: 'public' } }, (uri) => ({
    contents: [{ uri, text: 't' }],
  }));
  const client = await connectTestClient(server);
  const hints = async (method: string, params = {}) => {
    const { ttlMs, cacheScope } = await client.request(method, params, { raw: true });
    return { ttlMs, cacheScope };
  };
  assert.deepEqual(await hints('tools/list'), { ttlMs: 10, cacheScope: 'private' });
  assert.deepEqual(await hints('prompts/list'), { ttlMs: 1000, cacheScope: 'public' });
  assert.deepEqual(await hints('resources/list'), { ttlMs: 1000, cacheScope: 'private' });
  assert.deepEqual(await hints('resources/templates/list'), { ttlMs: 30, cacheScope: 'public' });
  assert.deepEqual(await hints('resources/read', { uri: 'r://guarded' }), { ttlMs: 7, cacheScope: 'private' });
  assert.deepEqual(await hints('resources/read', { uri: 'r://open' }), { ttlMs: 5, cacheScope: 'public' });
  assert.deepEqual(await hints('resources/read', { uri: 't://1' }), { ttlMs: 9, cacheScope: 'public' });

  // A guarded template makes both resource lists and its reads private; the tools list is public once unguarded.
  server.resourceTemplate('g://{x}', { name: 'g', visible: () => true }, (uri) => ({ contents: [{ uri, text: 'g' }] }));
  assert.deepEqual(await hints('resources/templates/list'), { ttlMs: 30, cacheScope: 'private' });
  assert.deepEqual(await hints('resources/read', { uri: 'g://1' }), { ttlMs: 1000, cacheScope: 'private' });
  assert.deepEqual(await hints('resources/read', { uri: 't://1' }), { ttlMs: 9, cacheScope: 'public' });
  await client.close();

  const unguarded = quietServer({ cache: { ttlMs: 1000, scope: 'public', lists: { tools: { ttlMs: 10 } } } }).server;
  const tool = unguarded.tool('t', { visible: () => true }, () => text('t'));
  const other = await connectTestClient(unguarded);
  assert.deepEqual((await other.request('tools/list', {}, { raw: true })).cacheScope, 'private');
  tool.update({ visible: undefined });
  const { ttlMs, cacheScope } = await other.request('tools/list', {}, { raw: true });
  assert.deepEqual({ ttlMs, cacheScope }, { ttlMs: 10, cacheScope: 'public' });
  await other.close();
});

// ---------------------------------------------------------------------------------------------------------------
// resources/updated

/** A server with r://open, r://secret (the admin's), and the admin's template s://{id}. */
function updatesServer(options: ServerOptions = {}) {
  const made = quietServer(options);
  made.server.resource('r://open', { name: 'open' }, (uri) => ({ contents: [{ uri, text: 'o' }] }));
  made.server.resource('r://secret', { name: 'secret', visible: ADMIN }, (uri) => ({ contents: [{ uri, text: 's' }] }));
  made.server.resourceTemplate('s://{id}', { name: 's', visible: ADMIN }, (uri) => ({
    contents: [{ uri, text: 's' }],
  }));
  return made;
}

const UPDATED = (uri: string) => ({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });

test(
  '2025 stdio: resources/updated of a resource hidden from the subscriber is not sent; its own are',
  T,
  async (t) => {
    const { server } = updatesServer();
    const admin = await legacyStdio(t, server, 'admin');
    const guest = await legacyStdio(t, server, 'guest');
    for (const client of [admin, guest])
      for (const uri of ['r://open', 'r://secret', 's://1'])
        assert.deepEqual((await client.request('resources/subscribe', { uri })).result, {});
    for (const uri of ['r://secret', 's://1', 'r://open']) server.notifyResourceUpdated(uri);
    // Each connection's frames in order, up to a ping's answer: the guest's lack the two hidden URIs.
    assert.deepEqual(await admin.next(), UPDATED('r://secret'));
    assert.deepEqual(await admin.next(), UPDATED('s://1'));
    assert.deepEqual(await admin.next(), UPDATED('r://open'));
    assert.deepEqual(await guest.next(), UPDATED('r://open'));
    assert.deepEqual((await guest.request('ping', undefined, 'after')).result, {});
    assert.deepEqual(guest.unread(), []);
  },
);

test('2026-07-28 stdio: a listen stream hears resources/updated only of the URIs its caller may read', T, async (t) => {
  const { server } = updatesServer();
  const client = new WireClient(server);
  t.after(() => client.end());
  const subscriptions = ['r://open', 'r://secret', 's://1'];
  for (const who of ['admin', 'guest']) {
    client.send(
      modernAs(who, 'subscriptions/listen', { notifications: { resourceSubscriptions: subscriptions } }, who),
    );
    assert.equal((await client.next()).method, 'notifications/subscriptions/acknowledged');
  }
  for (const uri of ['r://secret', 's://1', 'r://open']) server.notifyResourceUpdated(uri);
  const tagged = (id: Id, uri: string) => ({
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { _meta: { [SUBSCRIPTION_ID]: id }, uri },
  });
  const frames = [];
  for (let i = 0; i < 4; i++) frames.push(await client.next());
  assert.deepEqual(frames, [
    tagged('admin', 'r://secret'),
    tagged('admin', 's://1'),
    tagged('admin', 'r://open'),
    tagged('guest', 'r://open'),
  ]);
  // Nothing else: the next frame is the answer to a request sent now.
  client.send(modernAs('guest', 'server/discover', {}, 'marker'));
  assert.equal((await client.next()).id, 'marker');
});

test('a predicate that throws while an update is filtered hides the update, and the log says so', T, async (t) => {
  const { server, logger } = quietServer();
  const failure = new Error('predicate bug');
  server.resource('r://open', { name: 'open' }, (uri) => ({ contents: [{ uri, text: 'o' }] }));
  server.resource(
    'r://flaky',
    {
      name: 'flaky',
      visible: () => {
        throw failure;
      },
    },
    (uri) => ({ contents: [{ uri, text: 'f' }] }),
  );
  const client = await legacyStdio(t, server, 'admin');
  for (const uri of ['r://flaky', 'r://open'])
    assert.deepEqual((await client.request('resources/subscribe', { uri })).result, {});
  server.notifyResourceUpdated('r://flaky');
  server.notifyResourceUpdated('r://open');
  assert.deepEqual(await client.next(), UPDATED('r://open'));
  assert.deepEqual(logger.errors, [
    { message: "a visibility predicate failed: the update of 'r://flaky' is not sent", error: failure },
  ]);
});

/** Records as a shared store keeps them (serialized). */
class MemoryStore implements SharedSessionStore {
  readonly records = new Map<string, string>();
  save(id: string, record: SessionRecord): void {
    this.records.set(id, JSON.stringify(record));
  }
  async load(id: string): Promise<SessionRecord | undefined> {
    const record = this.records.get(id);
    return record === undefined ? undefined : JSON.parse(record);
  }
  async remove(id: string): Promise<void> {
    this.records.delete(id);
  }
}

test(
  'HTTP 2025 shared session restored elsewhere: updates of guarded URIs are dropped until the client subscribes there again',
  T,
  async (t) => {
    const store = new MemoryStore();
    const node = async () => {
      const { server } = updatesServer();
      const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH, sharedSessions: store });
      t.after(() => http.close());
      return { server, url: http.url };
    };
    const a = await node();
    const b = await node();
    // The admin's session, subscribed on A to a guarded and an open URI.
    const init = await fetch(a.url, {
      method: 'POST',
      headers: headersOf('admin'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    await init.json();
    const session = init.headers.get('mcp-session-id')!;
    const headers = headersOf('admin', { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY });
    const post = async (url: string, frame: object) =>
      (await fetch(url, { method: 'POST', headers, body: JSON.stringify(frame) })).text();
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const uri of ['r://secret', 'r://open'])
      await post(a.url, { jsonrpc: '2.0', id: uri, method: 'resources/subscribe', params: { uri } });
    // B restores it (with its subscriptions, but no one who subscribed there) for its GET stream.
    const get = await fetch(b.url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream' },
    });
    assert.equal(get.status, 200);
    const stream = new SseReader(get);
    t.after(() => stream.cancel());
    b.server.notifyResourceUpdated('r://secret');
    b.server.notifyResourceUpdated('r://open');
    assert.deepEqual(await stream.message(), UPDATED('r://open'));
    // Subscribing again on B names the viewer: its guarded URI is heard again.
    await post(b.url, { jsonrpc: '2.0', id: 's', method: 'resources/subscribe', params: { uri: 'r://secret' } });
    b.server.notifyResourceUpdated('r://secret');
    assert.deepEqual(await stream.message(), UPDATED('r://secret'));
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Changes, failures and mistakes

test(
  "update({visible}) changes each caller's listing and sends list_changed to every client, each era",
  T,
  async (t) => {
    const { server } = quietServer();
    server.tool('always', {}, () => text('always'));
    const beta = server.tool('beta', { visible: () => false }, () => text('beta'));
    const admin = await legacyStdio(t, server, 'admin');
    const guest = await legacyStdio(t, server, 'guest');
    const modernClient = new WireClient(server);
    t.after(() => modernClient.end());
    modernClient.send(modernAs('guest', 'subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L'));
    assert.equal((await modernClient.next()).method, 'notifications/subscriptions/acknowledged');
    const names = async (client: WireClient) =>
      (await client.request('tools/list')).result.tools.map((tool: Frame) => tool.name);
    assert.deepEqual([await names(admin), await names(guest)], [['always'], ['always']]);

    beta.update({ visible: ADMIN });
    const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    assert.deepEqual(await admin.next(), changed);
    assert.deepEqual(await guest.next(), changed); // timing only: a guest learns nothing it could list
    assert.deepEqual(await modernClient.next(), { ...changed, params: { _meta: { [SUBSCRIPTION_ID]: 'L' } } });
    assert.deepEqual([await names(admin), await names(guest)], [['always', 'beta'], ['always']]);

    beta.update({ visible: undefined });
    assert.deepEqual(await guest.next(), changed);
    assert.deepEqual(await names(guest), ['always', 'beta']);
  },
);

test(
  'a predicate answering anything but true hides the item; one that throws fails the request -32603, logged',
  T,
  async (t) => {
    const { server, logger } = quietServer();
    const failure = new Error('predicate bug');
    server.tool('truthy', { visible: (() => 'yes') as unknown as Visibility }, () => text('truthy'));
    const flaky = server.tool('flaky', { visible: () => false }, () => text('flaky'));
    const legacy = await legacyStdio(t, server, 'guest');
    const modernClient = new WireClient(server);
    t.after(() => modernClient.end());
    assert.deepEqual((await legacy.request('tools/list')).result, { tools: [] });
    flaky.update({
      visible: () => {
        throw failure;
      },
    });
    assert.equal((await legacy.next()).method, 'notifications/tools/list_changed');
    const internal = (id: Id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(await legacy.request('tools/list', undefined, 1), internal(1));
    assert.deepEqual(await legacy.request('tools/call', { name: 'flaky' }, 2), internal(2));
    modernClient.send(modernAs('guest', 'tools/list', {}, 3));
    assert.deepEqual(await modernClient.response(3), internal(3));
    modernClient.send(modernAs('guest', 'tools/call', { name: 'flaky', arguments: {} }, 4));
    assert.deepEqual(await modernClient.response(4), internal(4));
    assert.equal(logger.errors.length, 4);
    for (const { error } of logger.errors) assert.equal(error, failure);
    // The connection serves on.
    assert.deepEqual((await legacy.request('ping', undefined, 5)).result, {});
  },
);

test('2026-07-28 HTTP: a predicate that throws on a tools/call arrival fails it -32603, logged', T, async (t) => {
  const { server, logger } = quietServer();
  const failure = new Error('predicate bug');
  server.tool(
    'flaky',
    {
      visible: () => {
        throw failure;
      },
    },
    () => text('flaky'),
  );
  const url = await serveAuthed(t, server);
  const answer = await modernPost(url, 'guest', modern('tools/call', { name: 'flaky', arguments: {} }, 'f'));
  assert.deepEqual(answer, {
    status: 200,
    frame: { jsonrpc: '2.0', id: 'f', error: { code: -32603, message: 'Internal error' } },
  });
  assert.equal(logger.errors.length, 1);
  assert.equal(logger.errors[0]!.error, failure);
});

test('a visible that is not a function is a TypeError at registration and at update; the item stays as it was', async () => {
  const { server } = quietServer();
  const bad = { visible: true } as unknown as { visible: Visibility };
  assert.throws(() => server.tool('t', bad, () => text('t')), {
    name: 'TypeError',
    message: "tool 't': visible must be a function of the request",
  });
  assert.throws(() => server.prompt('p', bad, () => ({ messages: [] })), {
    name: 'TypeError',
    message: "prompt 'p': visible must be a function of the request",
  });
  assert.throws(() => server.resource('r://a', { name: 'a', ...bad }, () => ({ contents: [] })), {
    name: 'TypeError',
    message: "resource 'r://a': visible must be a function of the request",
  });
  assert.throws(() => server.resourceTemplate('r://{x}', { name: 'x', ...bad }, () => ({ contents: [] })), {
    name: 'TypeError',
    message: "resource template 'r://{x}': visible must be a function of the request",
  });
  // The refusals registered nothing (the names are free); a refused update leaves the item as it was.
  const tool = server.tool('t', {}, () => text('t'));
  assert.throws(() => tool.update({ ...bad, description: 'changed' }), {
    name: 'TypeError',
    message: "tool 't': visible must be a function of the request",
  });
  const client = await connectTestClient(server);
  assert.deepEqual(
    (await client.listTools()).tools.map(({ name, description }) => ({ name, description })),
    [{ name: 't', description: undefined }],
  );
  await client.close();
});

test(
  'a visible that returns a promise fails the request -32603, and the log says a predicate must answer at once',
  T,
  async (t) => {
    const { server, logger } = quietServer();
    server.tool('later', { visible: (async () => true) as unknown as Visibility }, () => text('later'));
    const legacy = await legacyStdio(t, server, 'admin');
    const modernClient = new WireClient(server);
    t.after(() => modernClient.end());
    const internal = (id: Id) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(await legacy.request('tools/list', undefined, 1), internal(1));
    assert.deepEqual(await legacy.request('tools/call', { name: 'later' }, 2), internal(2));
    modernClient.send(modernAs('admin', 'tools/list', {}, 3));
    assert.deepEqual(await modernClient.response(3), internal(3));
    modernClient.send(modernAs('admin', 'tools/call', { name: 'later', arguments: {} }, 4));
    assert.deepEqual(await modernClient.response(4), internal(4));
    assert.deepEqual(
      logger.errors.map(({ error }) => [(error as Error).name, (error as Error).message]),
      Array(4).fill(['TypeError', 'a visible predicate must answer true or false at once, not a promise']),
    );
  },
);

for (const wire of WIRES.filter(({ name }) => name.startsWith('stdio'))) {
  test(
    `${wire.name}: a template's throwing predicate is asked only for URIs it matches: other reads, and completion of another template, are served`,
    T,
    async (t) => {
      const { server, logger } = quietServer();
      const failure = new Error('predicate bug');
      server.resourceTemplate(
        'broken://{x}',
        {
          name: 'broken',
          visible: () => {
            throw failure;
          },
        },
        (uri) => ({ contents: [{ uri, text: 'broken' }] }),
      );
      server.resourceTemplate('doc://{name}', { name: 'docs', complete: { name: () => ['intro'] } }, (uri) => ({
        contents: [{ uri, text: 'doc' }],
      }));
      const guest = await (await wire.open(t, server))('guest');
      const read = await guest('resources/read', { uri: 'doc://intro' });
      assert.equal(read.frame.result?.contents[0].text, 'doc', JSON.stringify(read.frame));
      const completion = await guest('completion/complete', {
        ref: { type: 'ref/resource', uri: 'doc://{name}' },
        argument: { name: 'name', value: '' },
      });
      assert.deepEqual(completion.frame.result?.completion.values, ['intro'], JSON.stringify(completion.frame));
      assert.deepEqual(logger.errors, []);
      // The template's own URI asks it, and fails as a throwing predicate does.
      const broken = await guest('resources/read', { uri: 'broken://1' });
      assert.deepEqual(broken.frame.error, { code: -32603, message: 'Internal error' });
      assert.deepEqual(
        logger.errors.map(({ error }) => error),
        [failure],
      );
    },
  );
}

test(
  '2026-07-28: a URI a guarded resource serves is cacheScope private for every caller, also when a public template answers the guest; a URI only unguarded registrations serve keeps its hints',
  T,
  async (t) => {
    const { server } = quietServer({ cache: { ttlMs: 1000, scope: 'public' } });
    server.resource('r://report', { name: 'report', visible: ADMIN, cache: { ttlMs: 5, scope: 'public' } }, (uri) => ({
      contents: [{ uri, text: 'report' }],
    }));
    server.resourceTemplate('r://{page}', { name: 'pages', cache: { ttlMs: 9, scope: 'public' } }, (uri) => ({
      contents: [{ uri, text: 'page' }],
    }));
    const client = new WireClient(server);
    t.after(() => client.end());
    const read = async (who: Who, uri: string, id: Id) => {
      client.send(modernAs(who, 'resources/read', { uri }, id));
      const { result } = await client.response(id);
      return [result.contents[0].text, result.ttlMs, result.cacheScope];
    };
    assert.deepEqual(await read('guest', 'r://report', 1), ['page', 9, 'private']);
    assert.deepEqual(await read('admin', 'r://report', 2), ['report', 5, 'private']);
    assert.deepEqual(await read('guest', 'r://about', 3), ['page', 9, 'public']);
  },
);

test(
  "2026-07-28 HTTP without auth: a guarded tool's predicate sees caller '' and the envelope's clientInfo, the same at the arrival check as at the call",
  T,
  async (t) => {
    const { server } = quietServer();
    const seen: unknown[] = [];
    server.tool(
      'guarded',
      {
        visible: ({ caller, clientInfo, auth, era }) => {
          seen.push({ caller, clientInfo, auth, era });
          return true;
        },
      },
      () => text('served'),
    );
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    t.after(() => http.close());
    const clientInfo = { name: 'anonymous-client', version: '2.0.0' };
    const frame = modern('tools/call', { name: 'guarded', arguments: {} }, 'g', { [CLIENT_INFO]: clientInfo });
    const response = await raw(http.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json.result.content, text('served').content);
    const viewer = { caller: '', clientInfo, auth: undefined, era: 'modern' };
    assert.deepEqual(seen, [viewer, viewer], 'asked once on arrival, once by the call');
  },
);
