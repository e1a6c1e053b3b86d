// Per-operation scopes at the wire (docs/api.md, Scopes; MCP 2025-11-25, Authorization, Scope Challenge Handling and
// Token Audience Binding and Validation): a tool, prompt, resource or template whose scopes the token lacks is unlisted,
// and a request for it is answered 403 with the `insufficient_scope` step-up challenge over HTTP (2025 sessions and
// 2026-07-28 POSTs) when nothing was streamed yet, in-band otherwise (a begun stream, a batch, an endpoint without
// auth, stdio); a token issued for another resource gets 401; the metadata document lists the scopes in use.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type AuthInfo, createServer, ErrorCode, insufficientScope, ProtocolError, type Server } from '../core.ts';
import { createFetchHandler } from '../fetch.ts';
import { canonicalResource } from '../http/http-guard.ts';
import { type HttpOptions, serveHttp } from '../http.ts';
import { type Frame, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { modern } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only

const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ISSUER = 'https://as.example.com';
const LEGACY = '2025-11-25';

/** One user (one principal) holding a token before and after stepping up, and tokens naming audiences. */
const ALICE = { subject: 'alice', clientId: 'client-1', issuer: ISSUER };
const TOKENS: Record<string, AuthInfo> = {
  reader: { ...ALICE, scopes: ['files:read'] },
  writer: { ...ALICE, scopes: ['files:read', 'files:write'] },
  'aud-other': { ...ALICE, scopes: ['files:read'], audience: ['https://other.example.com/mcp'] },
  'aud-exact': { ...ALICE, scopes: ['files:read'], audience: [RESOURCE] },
  'aud-variant': { ...ALICE, scopes: ['files:read'], audience: ['HTTPS://MCP.Example.COM:443/mcp/'] },
  'aud-among': { ...ALICE, scopes: ['files:read'], audience: ['https://other.example.com/mcp', `${RESOURCE}/`] },
  'aud-path-case': { ...ALICE, scopes: ['files:read'], audience: ['https://mcp.example.com/MCP'] },
  'aud-identifier': { ...ALICE, scopes: ['files:read'], audience: ['api://mcp', 'not a url', 7 as unknown as string] },
  'aud-malformed': { ...ALICE, scopes: ['files:read'], audience: RESOURCE as unknown as string[] },
  // Entries are strings: not even a URL object of this very resource counts.
  'aud-object': { ...ALICE, scopes: ['files:read'], audience: [new URL(RESOURCE) as unknown as string] },
};

const TEXT = (text: string) => ({ content: [{ type: 'text' as const, text }] });

/** A server whose items need scopes: files:write for the writing ones, nothing for `status`. */
function scopedServer(): Server {
  const server = createServer({ name: 'scopes-test', version: '1.0.0' });
  server.tool('status', { inputSchema: { type: 'object' } }, () => TEXT('up'));
  server.tool('write-file', { inputSchema: { type: 'object' }, scopes: ['files:write'] }, () => TEXT('written'));
  // Asks for more scope at run time, before anything is sent, and once its stream began.
  server.tool('purge', { inputSchema: { type: 'object' } }, () => {
    throw insufficientScope(['files:admin']);
  });
  server.tool('purge-late', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    await ctx.progress(1, 2);
    throw insufficientScope(['files:admin']);
  });
  server.prompt('draft', { scopes: ['files:write'], complete: { topic: () => ['plans'] } }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'draft' } }],
  }));
  server.resource('file:///notes', { name: 'notes' }, (uri) => ({ contents: [{ uri, text: 'notes' }] }));
  server.resource('file:///secret', { name: 'secret', scopes: ['files:write'] }, (uri) => ({
    contents: [{ uri, text: 'secret' }],
  }));
  server.resourceTemplate(
    'file:///private/{name}',
    {
      name: 'private',
      scopes: ['files:write'],
      list: () => [{ uri: 'file:///private/plans', name: 'plans' }],
      complete: { name: () => ['plans'] },
    },
    (uri) => ({ contents: [{ uri, text: 'private' }] }),
  );
  return server;
}

const AUTH: NonNullable<HttpOptions['auth']> = {
  resourceMetadata: { resource: RESOURCE, authorization_servers: [ISSUER], scopes_supported: ['files:read'] },
  verifyToken: (token) => TOKENS[token],
};

async function serveScoped(t: TestContext, options: HttpOptions = { auth: AUTH }): Promise<string> {
  const http = await serveHttp(scopedServer(), { port: 0, keepAliveMs: 0, ...options });
  t.after(() => http.close());
  return http.url;
}

/** The step-up challenge of a token holding files:read asked for `required`. */
function stepUpChallenge(required: string): string {
  return (
    `Bearer error="insufficient_scope", error_description="Required scopes: ${required}", ` +
    `scope="files:read ${required}", resource_metadata="${METADATA_URL}"`
  );
}

function refusal(id: string | number, requiredScopes: string[]): Frame {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32600, message: 'Forbidden: insufficient scope', data: { requiredScopes } },
  };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  frame: Frame;
}
type Ask = (token: string, method: string, params: Record<string, unknown>, id: string | number) => Promise<Answer>;

/**
 * A 2025 session created by `token` (accepting JSON and SSE, as the SDK clients do): its requests, by any token (an
 * array as `params` is sent as the body itself: a batch).
 */
async function legacySession(url: string, token: string, version = LEGACY): Promise<Ask> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await raw(url, {
    headers: { ...base, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  });
  assert.equal(init.status, 200);
  const session = init.headers['mcp-session-id'] as string;
  const inSession = (who: string) => ({
    ...base,
    authorization: `Bearer ${who}`,
    'mcp-session-id': session,
    'mcp-protocol-version': version,
  });
  const initialized = await raw(url, {
    headers: inSession(token),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return async (who, method, params, id) => {
    const body = JSON.stringify(Array.isArray(params) ? params : { jsonrpc: '2.0', id, method, params });
    const response = await raw(url, { headers: inSession(who), body });
    return { status: response.status, headers: response.headers, text: response.text, frame: response.json };
  };
}

/** 2026-07-28 POSTs with the headers a correct client sends (accepting JSON and SSE). */
function modernPosts(url: string): Ask {
  return async (who, method, { _meta, ...params }, id) => {
    const frame = modern(method, params, id, _meta ?? {}); // a request's own _meta joins its envelope
    const response = await raw(url, {
      headers: modernHeaders(frame, { authorization: `Bearer ${who}` }),
      body: JSON.stringify(frame),
    });
    return { status: response.status, headers: response.headers, text: response.text, frame: response.json };
  };
}

const ERAS: { name: string; open(url: string): Promise<Ask> }[] = [
  { name: '2025 session', open: (url) => legacySession(url, 'reader') },
  { name: '2026-07-28 POST', open: async (url) => modernPosts(url) },
];

/** The requests for scoped items, and what each needs. */
const SCOPED: [string, Record<string, unknown>][] = [
  ['tools/call', { name: 'write-file', arguments: {} }],
  ['prompts/get', { name: 'draft' }],
  ['resources/read', { uri: 'file:///secret' }],
  ['resources/read', { uri: 'file:///private/plans' }],
];

for (const era of ERAS) {
  test(
    `${era.name}: an item whose scopes the token lacks is unlisted, refused 403 with the step-up challenge, served after the step-up`,
    T,
    async (t) => {
      const ask = await era.open(await serveScoped(t));
      const tools = await ask('reader', 'tools/list', {}, 'l1');
      assert.equal(tools.status, 200);
      assert.deepEqual(
        tools.frame.result.tools.map((tool: { name: string }) => tool.name),
        ['status', 'purge', 'purge-late'],
      );
      const prompts = await ask('reader', 'prompts/list', {}, 'l2');
      assert.deepEqual(prompts.frame.result.prompts, []);
      const resources = await ask('reader', 'resources/list', {}, 'l3');
      assert.deepEqual(
        resources.frame.result.resources.map((resource: { uri: string }) => resource.uri),
        ['file:///notes'],
      );
      for (const [index, [method, params]] of SCOPED.entries()) {
        const refused = await ask('reader', method, params, `r${index}`);
        assert.equal(refused.status, 403, method);
        assert.equal(refused.headers['www-authenticate'], stepUpChallenge('files:write'), method);
        assert.match(refused.headers['content-type'] as string, /^application\/json/);
        assert.deepEqual(refused.frame, refusal(`r${index}`, ['files:write']), method);
        if (era.name.startsWith('2025')) assert.ok(refused.headers['mcp-session-id'] !== undefined);
        // The same user's stepped-up token (the same principal: the 2025 session stays theirs).
        const served = await ask('writer', method, params, `s${index}`);
        assert.equal(served.status, 200, method);
        assert.equal(served.headers['www-authenticate'], undefined);
        assert.ok('result' in served.frame, method);
      }
      const listed = await ask('writer', 'tools/list', {}, 'l4');
      assert.ok(listed.frame.result.tools.some((tool: { name: string }) => tool.name === 'write-file'));
    },
  );

  test(
    `${era.name}: a handler asking for more scope at run time gets 403 before anything streamed, in-band after`,
    T,
    async (t) => {
      const ask = await era.open(await serveScoped(t));
      const early = await ask('reader', 'tools/call', { name: 'purge', arguments: {} }, 'p1');
      assert.equal(early.status, 403);
      assert.equal(early.headers['www-authenticate'], stepUpChallenge('files:admin'));
      assert.deepEqual(early.frame, refusal('p1', ['files:admin']));
      // Its progress began an SSE stream (200): the refusal is that stream's last event.
      const late = await ask(
        'reader',
        'tools/call',
        { name: 'purge-late', arguments: {}, _meta: { progressToken: 'k' } },
        'p2',
      );
      assert.equal(late.status, 200);
      assert.equal(late.headers['content-type'], 'text/event-stream');
      assert.equal(late.headers['www-authenticate'], undefined);
      const events = late.text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice('data: '.length)));
      assert.equal(events[0].method, 'notifications/progress');
      assert.deepEqual(events.at(-1), refusal('p2', ['files:admin']));
    },
  );
}

test('the fetch adapter answers the same step-up, stateless 2025 (its default) and 2026-07-28', T, async (t) => {
  const handle = createFetchHandler(scopedServer(), { auth: AUTH });
  t.after(() => handle.close());
  const call = { name: 'write-file', arguments: {} };
  const frames = [
    {
      frame: { jsonrpc: '2.0', id: 'f1', method: 'tools/call', params: call },
      headers: { 'mcp-protocol-version': LEGACY },
    },
    { frame: modern('tools/call', call, 'f1'), headers: modernHeaders(modern('tools/call', call, 'f1')) },
  ];
  for (const { frame, headers } of frames) {
    const response = await handle(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: 'Bearer reader',
          ...headers,
        },
        body: JSON.stringify(frame),
      }),
    );
    assert.equal(response.status, 403);
    assert.equal(response.headers.get('www-authenticate'), stepUpChallenge('files:write'));
    assert.deepEqual(await response.json(), refusal('f1', ['files:write']));
  }
});

test('2025-03-26 batch: a refusal for want of scope is answered in-band, in the array', T, async (t) => {
  const ask = await legacySession(await serveScoped(t), 'reader', '2025-03-26');
  const batch = [
    { jsonrpc: '2.0', id: 'b1', method: 'tools/call', params: { name: 'write-file', arguments: {} } },
    { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'status', arguments: {} } },
  ];
  const answer = await ask('reader', '', batch as unknown as Record<string, unknown>, 0);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['www-authenticate'], undefined);
  assert.deepEqual(answer.frame[0], refusal('b1', ['files:write']));
  assert.deepEqual(answer.frame[1].result, TEXT('up'));
});

test(
  'without auth on the endpoint no token holds a scope: scoped items are refused in-band (200), never 403',
  T,
  async (t) => {
    const url = await serveScoped(t, {});
    for (const era of ERAS) {
      const ask = await era.open(url);
      const answer = await ask('ignored', 'tools/call', { name: 'write-file', arguments: {} }, 'n1');
      assert.equal(answer.status, 200, era.name);
      assert.equal(answer.headers['www-authenticate'], undefined);
      assert.deepEqual(answer.frame, refusal('n1', ['files:write']));
    }
  },
);

test('a handler error that only looks like the refusal (no scope tokens) stays in-band', T, async (t) => {
  const server = scopedServer();
  server.tool('odd', { inputSchema: { type: 'object' } }, () => {
    throw insufficientScope(['two words']);
  });
  server.tool('none', { inputSchema: { type: 'object' } }, () => {
    throw insufficientScope([]);
  });
  server.tool('plain', { inputSchema: { type: 'object' } }, () => {
    throw new ProtocolError(ErrorCode.InvalidRequest, 'Forbidden: insufficient scope');
  });
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
  t.after(() => http.close());
  const ask = modernPosts(http.url);
  for (const name of ['odd', 'none', 'plain']) {
    const answer = await ask('reader', 'tools/call', { name, arguments: {} }, name);
    assert.equal(answer.status, 200, name);
    assert.equal(answer.headers['www-authenticate'], undefined);
    assert.equal(answer.frame.error.code, -32600);
  }
});

test('the step-up scope leaves out what the verifier granted that is no scope token', T, async (t) => {
  const granted: Record<string, unknown> = { odd: ['files:read', 'bad"scope', 7], string: 'files:read' };
  const url = await serveScoped(t, {
    auth: { ...AUTH, verifyToken: (token) => ({ ...ALICE, scopes: granted[token] as string[] }) },
  });
  const odd = await modernPosts(url)('odd', 'tools/call', { name: 'write-file', arguments: {} }, 1);
  assert.equal(odd.status, 403);
  assert.equal(odd.headers['www-authenticate'], stepUpChallenge('files:write'));
  // Scopes that are no array: the token holds none (registry.ts), and the challenge names only what is required.
  const string = await modernPosts(url)('string', 'tools/call', { name: 'write-file', arguments: {} }, 1);
  assert.equal(string.status, 403);
  assert.equal(
    string.headers['www-authenticate'],
    'Bearer error="insufficient_scope", error_description="Required scopes: files:write", ' +
      `scope="files:write", resource_metadata="${METADATA_URL}"`,
  );
});

test('stdio: a scoped item is unlisted and a request for it is refused -32600 naming its scopes', T, async (t) => {
  const server = scopedServer();
  const client = new WireClient(server);
  t.after(() => client.end());
  await client.initialize();
  const names = async (method: string, key: string, field: string) =>
    (await client.request(method, {})).result[key].map((item: Record<string, string>) => item[field]);
  assert.deepEqual(await names('tools/list', 'tools', 'name'), ['status', 'purge', 'purge-late']);
  assert.deepEqual(await names('prompts/list', 'prompts', 'name'), []);
  // The scoped template's listed resources are left out with it.
  assert.deepEqual(await names('resources/list', 'resources', 'uri'), ['file:///notes']);
  assert.deepEqual(await names('resources/templates/list', 'resourceTemplates', 'uriTemplate'), []);
  const completions: [string, Record<string, unknown>][] = [
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'draft' }, argument: { name: 'topic', value: '' } }],
    [
      'completion/complete',
      { ref: { type: 'ref/resource', uri: 'file:///private/{name}' }, argument: { name: 'name', value: '' } },
    ],
  ];
  for (const [index, [method, params]] of [...SCOPED, ...completions].entries())
    assert.deepEqual(await client.request(method, params, `r${index}`), refusal(`r${index}`, ['files:write']), method);
  // update() replaces the scopes (an empty list asks for nothing); scopes that are no scope tokens are refused.
  const archive = server.tool('archive', { inputSchema: { type: 'object' }, scopes: ['files:write'] }, () => TEXT('a'));
  assert.deepEqual((await client.request('tools/call', { name: 'archive', arguments: {} }, 'a1')).error.data, {
    requiredScopes: ['files:write'],
  });
  assert.throws(() => archive.update({ scopes: ['files write'] }), /scopes must be an array of OAuth scope tokens/);
  archive.update({ scopes: [] });
  assert.ok((await names('tools/list', 'tools', 'name')).includes('archive'));
  assert.deepEqual((await client.request('tools/call', { name: 'archive', arguments: {} }, 'a2')).result, TEXT('a'));
  // The same on a 2026-07-28 request of the same stdio server.
  const modernClient = new WireClient(scopedServer());
  t.after(() => modernClient.end());
  modernClient.send(modern('tools/call', { name: 'write-file', arguments: {} }, 'm1'));
  assert.deepEqual(await modernClient.response('m1'), refusal('m1', ['files:write']));
});

const INVALID_AUDIENCE =
  'Bearer error="invalid_token", error_description="The access token was not issued for this resource", ' +
  `resource_metadata="${METADATA_URL}"`;

test('a token whose audience does not name this resource gets 401 invalid_token and is never served', T, async (t) => {
  let served = 0;
  const server = scopedServer();
  server.tool('count', { inputSchema: { type: 'object' } }, () => TEXT(String(++served)));
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
  t.after(() => http.close());
  const ask = modernPosts(http.url);
  for (const token of ['aud-other', 'aud-path-case', 'aud-identifier', 'aud-malformed', 'aud-object']) {
    const answer = await ask(token, 'tools/call', { name: 'count', arguments: {} }, 1);
    assert.equal(answer.status, 401, token);
    assert.equal(answer.headers['www-authenticate'], INVALID_AUDIENCE, token);
    assert.deepEqual(answer.frame, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Unauthorized: the bearer token is not valid' },
    });
  }
  assert.equal(served, 0);
  // The resource itself, its case and default-port and trailing-slash variants, among others, or no audience at all.
  for (const token of ['aud-exact', 'aud-variant', 'aud-among', 'reader']) {
    const answer = await ask(token, 'tools/call', { name: 'count', arguments: {} }, 1);
    assert.equal(answer.status, 200, token);
  }
  assert.equal(served, 4);
  // A 2025 initialize is refused the same way.
  await assert.rejects(legacySession(http.url, 'aud-other'));
});

test('canonicalResource: scheme and host lowercased, default port and one trailing slash dropped, the rest exact', () => {
  for (const variant of [
    'https://mcp.example.com/mcp',
    'HTTPS://MCP.EXAMPLE.COM:443/mcp',
    'https://mcp.example.com/mcp/',
  ])
    assert.equal(canonicalResource(variant), 'https://mcp.example.com/mcp', variant);
  assert.equal(canonicalResource('https://mcp.example.com'), canonicalResource('https://mcp.example.com/'));
  assert.equal(canonicalResource('http://localhost:80/'), canonicalResource('http://LOCALHOST'));
  assert.notEqual(canonicalResource('https://mcp.example.com:8443/mcp'), canonicalResource(RESOURCE));
  assert.notEqual(canonicalResource('https://mcp.example.com/MCP'), canonicalResource(RESOURCE));
  assert.equal(canonicalResource('api://MCP/'), 'api://MCP/'); // no http(s) URL: compared exactly
  assert.equal(canonicalResource('not a url'), 'not a url');
  // What URL parsing would repair names no resource: a dot segment, a backslash, whitespace are compared exactly.
  for (const mended of [
    'https://mcp.example.com/x/../mcp',
    'https://mcp.example.com/./mcp',
    'https:\\\\mcp.example.com\\mcp',
    'https://mcp.exa\tmple.com/mcp',
    ' https://mcp.example.com/mcp',
  ])
    assert.equal(canonicalResource(mended), mended, mended);
});

test(
  "the metadata document lists the scopes in use with the author's and the required ones, as they are now",
  T,
  async (t) => {
    const server = scopedServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: { ...AUTH, requiredScopes: ['mcp'] } });
    t.after(() => http.close());
    const metadata = async () => {
      const response = await raw(http.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp'), {
        method: 'GET',
      });
      assert.equal(response.status, 200);
      return response.json;
    };
    assert.deepEqual(await metadata(), {
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['files:read', 'mcp', 'files:write'],
    });
    const reports = server.tool('reports', { scopes: ['reports:read', 'files:read'] }, () => TEXT('r'));
    assert.deepEqual((await metadata()).scopes_supported, ['files:read', 'mcp', 'files:write', 'reports:read']);
    reports.remove();
    assert.deepEqual((await metadata()).scopes_supported, ['files:read', 'mcp', 'files:write']);
    // The document is public: the scopes of a disabled item, or of one a predicate hides, are not in it.
    server.tool('hidden', { scopes: ['payroll:admin'], visible: () => false }, () => TEXT('h'));
    server.tool('paused', { scopes: ['archive:write'] }, () => TEXT('p')).disable();
    assert.deepEqual((await metadata()).scopes_supported, ['files:read', 'mcp', 'files:write']);
    // Without any scope anywhere the author's document is served as it is.
    const bare = await serveHttp(createServer({ name: 'bare', version: '1' }), {
      port: 0,
      keepAliveMs: 0,
      auth: { ...AUTH, resourceMetadata: { resource: RESOURCE, authorization_servers: [ISSUER] } },
    });
    t.after(() => bare.close());
    const document = await raw(bare.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource'), { method: 'GET' });
    assert.deepEqual(document.json, { resource: RESOURCE, authorization_servers: [ISSUER] });
  },
);

test(
  'a scoped fixed resource shadowed by an unscoped template: its updates reach no subscriber without the scope, and its reads are private',
  T,
  async (t) => {
    const server = createServer({ name: 'shadow', version: '1.0.0' }, { cache: { ttlMs: 60_000, scope: 'public' } });
    server.resource('file:///secret', { name: 'secret', scopes: ['files:write'] }, (uri) => ({
      contents: [{ uri, text: 'secret' }],
    }));
    server.resourceTemplate('file:///{name}', { name: 'any' }, (uri) => ({ contents: [{ uri, text: 'public' }] }));
    const client = new WireClient(server);
    t.after(() => client.end());
    await client.initialize();
    // A read is refused (the fixed resource answers first), so an update of it is not this subscriber's to hear.
    assert.deepEqual(
      await client.request('resources/read', { uri: 'file:///secret' }, 'r1'),
      refusal('r1', ['files:write']),
    );
    assert.deepEqual((await client.request('resources/subscribe', { uri: 'file:///secret' }, 's1')).result, {});
    assert.deepEqual((await client.request('resources/subscribe', { uri: 'file:///open' }, 's2')).result, {});
    server.notifyResourceUpdated('file:///secret');
    server.notifyResourceUpdated('file:///open');
    await client.request('ping', {}, 'p1'); // a barrier: the updates were sent before its answer
    assert.deepEqual(
      client.frames.filter((frame) => frame.method === 'notifications/resources/updated').map((frame) => frame.params),
      [{ uri: 'file:///open' }],
    );
    // 2026-07-28, a token holding the scope: what a scoped registration serves is private whatever the server says.
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0, auth: AUTH });
    t.after(() => http.close());
    const ask = modernPosts(http.url);
    const hints = async (uri: string) => {
      const { result } = (await ask('writer', 'resources/read', { uri }, uri)).frame;
      return [result.contents[0].text, result.ttlMs, result.cacheScope];
    };
    assert.deepEqual(await hints('file:///secret'), ['secret', 60_000, 'private']);
    assert.deepEqual(await hints('file:///other'), ['public', 60_000, 'public']);
  },
);
