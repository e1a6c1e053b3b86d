// Authorization for HTTP as an OAuth 2.1 resource server (HttpOptions.auth), at the wire over real loopback
// sockets: the RFC 9728 metadata document at its well-known paths, 401 challenges naming it (without a token, with
// an invalid, expired or throwing one), 403 insufficient_scope, the verified identity as ctx.auth in both eras,
// and 2025 sessions bound to the principal that created them. The same core behind the fetch adapter.

import assert from 'node:assert/strict';
import { createServer as createNodeServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { createFetchHandler } from '../fetch.ts';
import { bearerToken, challenge, metadataUrlOf } from '../http/http-guard.ts';
import { createHttpHandler, type HttpOptions, type HttpServer, serveHttp } from '../http.ts';
import type { AuthInfo } from '../types.ts';
import { deferred, MemoryLogger } from './harness.ts';
import { MODERN, modern } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only

const RESOURCE = 'https://mcp.example.com/mcp';
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const METADATA = {
  resource: RESOURCE,
  authorization_servers: ['https://as.example.com'],
  scopes_supported: ['mcp:tools', 'mcp:admin'],
  bearer_methods_supported: ['header'],
};
const ISSUER = 'https://as.example.com';

const TOKENS: Record<string, AuthInfo> = {
  alice: {
    subject: 'alice',
    clientId: 'client-1',
    issuer: ISSUER,
    scopes: ['mcp:tools', 'profile'],
    extra: { tenant: 't1' },
  },
  'alice-other-client': { subject: 'alice', clientId: 'client-2', issuer: ISSUER, scopes: ['mcp:tools'] },
  bob: { subject: 'bob', clientId: 'client-1', issuer: ISSUER, scopes: ['mcp:tools'] },
  reader: { subject: 'carol', issuer: ISSUER, scopes: ['profile'] },
  expired: { subject: 'dave', issuer: ISSUER, scopes: ['mcp:tools'], expiresAt: 1_000_000 },
};

function setup(logger = new MemoryLogger()): {
  server: Server;
  seen: string[];
  logger: MemoryLogger;
  auth: HttpOptions['auth'];
} {
  const server = createServer({ name: 'http-auth-test', version: '1.0.0' }, { logger });
  server.tool('whoami', { description: 'Echoes ctx.auth', inputSchema: { type: 'object' } }, (_args, ctx) => ({
    content: [{ type: 'text', text: JSON.stringify(ctx.auth ?? null) }],
  }));
  const seen: string[] = [];
  const auth: HttpOptions['auth'] = {
    resourceMetadata: METADATA,
    requiredScopes: ['mcp:tools'],
    async verifyToken(token, request) {
      seen.push(`${token}@${typeof request.headers.host}`);
      if (token === 'boom') throw new Error('key server unreachable');
      if (token === 'unverifiable') throw Object.assign(new Error('no key set'), { status: 503, retryAfterSeconds: 7 });
      if (token === 'unverifiable-anytime') throw Object.assign(new Error('no key set'), { status: 503 });
      if (token === 'string-throw') throw 'not an error';
      return TOKENS[token];
    },
  };
  return { server, seen, logger, auth };
}

async function serve(
  logger?: MemoryLogger,
): Promise<{ http: HttpServer; seen: string[]; logger: MemoryLogger; base: string }> {
  const { server, seen, logger: log, auth } = setup(logger);
  const http = await serveHttp(server, { port: 0, auth });
  return { http, seen, logger: log, base: http.url.replace(/\/mcp$/, '') };
}

function headers(token: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
}

const MODERN_CALL = modern('tools/call', { name: 'whoami', arguments: {} }, 7);
const MODERN_HEADERS = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' };

async function post(
  url: string,
  token: string | undefined,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, { method: 'POST', headers: headers(token, extra), body: JSON.stringify(body) });
}

function unauthorized(message: string): object {
  return { jsonrpc: '2.0', id: null, error: { code: -32600, message } };
}

const MISSING_CHALLENGE = `Bearer scope="mcp:tools", resource_metadata="${METADATA_URL}"`;
const INVALID_CHALLENGE =
  'Bearer error="invalid_token", error_description="The access token is invalid or expired", ' +
  `scope="mcp:tools", resource_metadata="${METADATA_URL}"`;

/** A 2025 session created with `token`: its id. */
async function initialize(url: string, token: string): Promise<string> {
  const response = await post(url, token, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });
  assert.equal(response.status, 200);
  await response.json();
  const id = response.headers.get('mcp-session-id');
  assert.ok(id !== null);
  const initialized = await post(
    url,
    token,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
  );
  assert.equal(initialized.status, 202);
  return id;
}

function legacyCall(url: string, token: string | undefined, session: string, id = 1): Promise<Response> {
  return post(
    url,
    token,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  );
}

async function authSeen(response: Response): Promise<unknown> {
  assert.equal(response.status, 200);
  const frame = (await response.json()) as { result: { content: { text: string }[] } };
  return JSON.parse(frame.result.content[0]!.text);
}

test('the protected-resource metadata is served at the root and the path-suffixed well-known paths', T, async () => {
  const { http, base } = await serve();
  try {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(base + path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.deepEqual(await response.json(), METADATA);
    }
    // Other well-known paths are not ours; the Host check still applies to the metadata.
    assert.equal((await fetch(`${base}/.well-known/oauth-protected-resource/other`)).status, 404);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${base}/.well-known/oauth-protected-resource`,
        { headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 421);
  } finally {
    await http.close();
  }
});

test('a request without a bearer token gets 401 naming the metadata, without an error code', T, async () => {
  const { http, seen } = await serve();
  try {
    for (const token of [undefined, 'Basic dXNlcjpwYXNz']) {
      const response = await fetch(http.url, {
        method: 'POST',
        headers: { ...headers(undefined, MODERN_HEADERS), ...(token === undefined ? {} : { authorization: token }) },
        body: JSON.stringify(MODERN_CALL),
      });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), MISSING_CHALLENGE);
      assert.equal(response.headers.get('mcp-session-id'), null);
      assert.deepEqual(await response.json(), unauthorized('Unauthorized: a bearer token is required'));
    }
    // GET and DELETE of the 2025 session path are MCP requests too.
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(http.url, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' },
      });
      assert.equal(response.status, 401, method);
      assert.equal(response.headers.get('www-authenticate'), MISSING_CHALLENGE);
      await response.body?.cancel();
    }
    assert.deepEqual(seen, []); // the verifier never ran
  } finally {
    await http.close();
  }
});

test('an unknown or expired token gets 401 invalid_token', T, async () => {
  const { http, seen } = await serve();
  try {
    for (const token of ['nobody', 'expired']) {
      const response = await post(http.url, token, MODERN_CALL, MODERN_HEADERS);
      assert.equal(response.status, 401, token);
      assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
      assert.deepEqual(await response.json(), unauthorized('Unauthorized: the bearer token is not valid'));
    }
    assert.deepEqual(seen, ['nobody@string', 'expired@string']); // the verifier saw the request's headers
  } finally {
    await http.close();
  }
});

test('a verifier that throws counts as an invalid token, and the failure is logged', T, async () => {
  const logger = new MemoryLogger();
  const { http } = await serve(logger);
  try {
    const response = await post(http.url, 'boom', MODERN_CALL, MODERN_HEADERS);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
    assert.deepEqual(await response.json(), unauthorized('Unauthorized: the bearer token is not valid'));
    assert.equal(logger.errors.length, 1);
    assert.match(logger.errors[0]!.message, /verifyToken/);
    assert.equal((logger.errors[0]!.error as Error).message, 'key server unreachable');
  } finally {
    await http.close();
  }
});

test(
  'a verifier that cannot check tokens now (a throw whose status is 503) gets 503 with Retry-After, never 401; other throws stay 401',
  T,
  async () => {
    const logger = new MemoryLogger();
    const { http } = await serve(logger);
    try {
      const unavailable = {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Service Unavailable: the bearer token cannot be verified now' },
      };
      for (const [token, retryAfter] of [
        ['unverifiable', '7'],
        ['unverifiable-anytime', '1'],
      ] as const) {
        const response = await post(http.url, token, MODERN_CALL, MODERN_HEADERS);
        assert.equal(response.status, 503, token);
        assert.equal(response.headers.get('retry-after'), retryAfter, token);
        assert.equal(response.headers.get('www-authenticate'), null, token);
        assert.deepEqual(await response.json(), unavailable);
      }
      const response = await post(http.url, 'string-throw', MODERN_CALL, MODERN_HEADERS);
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), INVALID_CHALLENGE);
      assert.deepEqual(
        logger.errors.map((entry) => entry.message),
        [
          // The second 503 within the minute is not logged: every request would log it while it lasts.
          'auth.verifyToken cannot verify tokens now; answered 503 (logged once a minute)',
          'auth.verifyToken threw; the token is treated as invalid',
        ],
      );
    } finally {
      await http.close();
    }
  },
);

test(
  'a token lacking a required scope gets 403 insufficient_scope naming the scopes it holds and the required ones',
  T,
  async () => {
    const { http } = await serve();
    try {
      const response = await post(http.url, 'reader', MODERN_CALL, MODERN_HEADERS);
      assert.equal(response.status, 403);
      assert.equal(
        response.headers.get('www-authenticate'),
        'Bearer error="insufficient_scope", error_description="Required scopes: mcp:tools", ' +
          `scope="profile mcp:tools", resource_metadata="${METADATA_URL}"`,
      );
      assert.deepEqual(await response.json(), unauthorized('Forbidden: the bearer token lacks a required scope'));
    } finally {
      await http.close();
    }
  },
);

test('a modern tool sees the verified identity as ctx.auth', T, async () => {
  const { http } = await serve();
  try {
    assert.deepEqual(await authSeen(await post(http.url, 'alice', MODERN_CALL, MODERN_HEADERS)), TOKENS.alice);
    assert.deepEqual(await authSeen(await post(http.url, 'bob', MODERN_CALL, MODERN_HEADERS)), TOKENS.bob);
  } finally {
    await http.close();
  }
});

test('a 2025 tool sees the identity of the POST that carried its request as ctx.auth', T, async () => {
  const { http } = await serve();
  try {
    const session = await initialize(http.url, 'alice');
    assert.deepEqual(await authSeen(await legacyCall(http.url, 'alice', session)), TOKENS.alice);
  } finally {
    await http.close();
  }
});

test('a 2025 session answers only the principal that created it: another gets 404 Session not found', T, async () => {
  const { http } = await serve();
  try {
    const session = await initialize(http.url, 'alice');
    const notFound = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
    for (const token of ['bob', 'alice-other-client']) {
      const response = await legacyCall(http.url, token, session, 2);
      assert.equal(response.status, 404, token);
      assert.deepEqual(await response.json(), notFound);
      for (const method of ['GET', 'DELETE']) {
        const other = await fetch(http.url, {
          method,
          headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'mcp-session-id': session },
        });
        assert.equal(other.status, 404, `${method} ${token}`);
        assert.deepEqual(await other.json(), notFound);
      }
    }
    // The owner still has it (bob's DELETE did not end it): its GET stream opens; then the owner ends it.
    const stream = await fetch(http.url, {
      headers: { accept: 'text/event-stream', authorization: 'Bearer alice', 'mcp-session-id': session },
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    await stream.body?.cancel();
    assert.deepEqual(await authSeen(await legacyCall(http.url, 'alice', session, 3)), TOKENS.alice);
    const deleted = await fetch(http.url, {
      method: 'DELETE',
      headers: { authorization: 'Bearer alice', 'mcp-session-id': session },
    });
    assert.equal(deleted.status, 200);
    assert.equal((await legacyCall(http.url, 'alice', session, 4)).status, 404);
  } finally {
    await http.close();
  }
});

test('the fetch adapter enforces the same authorization and exposes ctx.auth', T, async () => {
  const { server, auth } = setup();
  const handle = createFetchHandler(server, { auth });
  try {
    const url = 'http://localhost/mcp';
    const metadata = await handle(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'));
    assert.equal(metadata.status, 200);
    assert.deepEqual(await metadata.json(), METADATA);
    const denied = await handle(
      new Request(url, {
        method: 'POST',
        headers: headers(undefined, MODERN_HEADERS),
        body: JSON.stringify(MODERN_CALL),
      }),
    );
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get('www-authenticate'), MISSING_CHALLENGE);
    await denied.body?.cancel();
    const allowed = await handle(
      new Request(url, {
        method: 'POST',
        headers: headers('alice', MODERN_HEADERS),
        body: JSON.stringify(MODERN_CALL),
      }),
    );
    assert.deepEqual(await authSeen(allowed), TOKENS.alice);
    // Stateless 2025 (the fetch default) as well.
    const legacy = await handle(
      new Request(url, {
        method: 'POST',
        headers: headers('bob', { 'mcp-protocol-version': '2025-11-25' }),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'whoami', arguments: {} },
        }),
      }),
    );
    assert.deepEqual(await authSeen(legacy), TOKENS.bob);
  } finally {
    handle.close();
  }
});

test('without auth options, handlers see no ctx.auth and no token is asked for', T, async () => {
  const { server } = setup();
  const http = await serveHttp(server, { port: 0 });
  try {
    assert.equal(await authSeen(await post(http.url, undefined, MODERN_CALL, MODERN_HEADERS)), null);
    assert.equal((await fetch(http.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource'))).status, 404);
  } finally {
    await http.close();
  }
});

test('a client that leaves while its token is being verified is not served', T, async () => {
  const { server, auth } = setup();
  const verifying = deferred<void>();
  const verdict = deferred<AuthInfo | undefined>();
  let ran = 0;
  server.tool('count', { description: 'Counts its runs', inputSchema: { type: 'object' } }, () => {
    ran++;
    return { content: [] };
  });
  const http = await serveHttp(server, {
    port: 0,
    auth: {
      ...auth!,
      verifyToken: () => {
        verifying.resolve();
        return verdict.promise;
      },
    },
  });
  try {
    const closed = deferred<void>();
    http.httpServer.on('request', (_request, response) => response.once('close', () => closed.resolve()));
    const body = JSON.stringify(modern('tools/call', { name: 'count', arguments: {} }, 1));
    const request = httpRequest(http.url, {
      method: 'POST',
      headers: headers('alice', { ...MODERN_HEADERS, 'mcp-name': 'count' }),
    });
    request.on('error', () => {}); // the socket is destroyed on purpose
    request.end(body);
    await verifying.promise;
    request.destroy();
    await closed.promise; // the server saw the client leave before the verdict
    verdict.resolve(TOKENS.alice);
    await verdict.promise;
    await new Promise((resolve) => setImmediate(resolve)); // the verification's continuation has run by now
    assert.equal(ran, 0);
  } finally {
    await http.close();
  }
});

test('a configured metadata URL is named and served; without required scopes the challenge names none', T, async () => {
  const { server } = setup();
  const http = await serveHttp(server, {
    port: 0,
    auth: {
      resourceMetadata: { resource: 'https://mcp.example.com/', authorization_servers: [ISSUER] },
      resourceMetadataUrl: 'https://mcp.example.com/meta/prm.json',
      verifyToken: (token) => (token === 'odd' ? ({ scopes: [] } as unknown as AuthInfo) : TOKENS[token]),
    },
  });
  try {
    const base = http.url.replace(/\/mcp$/, '');
    for (const path of [
      '/meta/prm.json',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      assert.equal((await fetch(base + path)).status, 200, path);
    }
    const missing = await post(http.url, undefined, MODERN_CALL, MODERN_HEADERS);
    assert.equal(missing.status, 401);
    assert.equal(
      missing.headers.get('www-authenticate'),
      'Bearer resource_metadata="https://mcp.example.com/meta/prm.json"',
    );
    await missing.body?.cancel();
    // A verifier answer without a subject is no identity.
    const odd = await post(http.url, 'odd', MODERN_CALL, MODERN_HEADERS);
    assert.equal(odd.status, 401);
    assert.equal(
      odd.headers.get('www-authenticate'),
      'Bearer error="invalid_token", ' +
        'error_description="The access token is invalid or expired", resource_metadata="https://mcp.example.com/meta/prm.json"',
    );
    await odd.body?.cancel();
    assert.deepEqual(await authSeen(await post(http.url, 'reader', MODERN_CALL, MODERN_HEADERS)), TOKENS.reader);
  } finally {
    await http.close();
  }
});

test('challenge and token helpers: RFC 9728 metadata URLs, quoting, the Bearer scheme only', () => {
  assert.equal(
    metadataUrlOf('https://mcp.example.com'),
    'https://mcp.example.com/.well-known/oauth-protected-resource',
  );
  assert.equal(
    metadataUrlOf('https://mcp.example.com/a/mcp/'),
    'https://mcp.example.com/.well-known/oauth-protected-resource/a/mcp',
  );
  assert.equal(
    challenge('u', { error: 'invalid_token', description: 'say "hi" \\ bye', scope: ['a', 'b'] }),
    'Bearer error="invalid_token", error_description="say \\"hi\\" \\\\ bye", scope="a b", resource_metadata="u"',
  );
  assert.equal(bearerToken('Bearer abc.def'), 'abc.def');
  assert.equal(bearerToken('bearer   abc '), 'abc');
  assert.equal(bearerToken(['Bearer abc']), 'abc');
  assert.equal(bearerToken(['Bearer a', 'Bearer b']), undefined); // two Authorization headers: none is trusted
  assert.equal(bearerToken('Bearer '), undefined);
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken(undefined), undefined);
  // A metadata URL clients cannot dereference is a configuration mistake, reported when the handler is created.
  const { server, auth } = setup();
  assert.throws(() => createHttpHandler(server, { auth: { ...auth!, resourceMetadataUrl: '/prm.json' } }), TypeError);
});

test('a body the framework already parsed is authorized the same way', T, async (t) => {
  const { server, auth } = setup();
  const handler = createHttpHandler(server, { auth });
  const node = createNodeServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => handler(request, response, JSON.parse(text)));
  });
  t.after(() => {
    handler.close();
    node.closeAllConnections();
    node.close();
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`;
  const denied = await post(url, 'reader', MODERN_CALL, MODERN_HEADERS);
  assert.equal(denied.status, 403);
  await denied.body?.cancel();
  assert.deepEqual(await authSeen(await post(url, 'alice', MODERN_CALL, MODERN_HEADERS)), TOKENS.alice);
});
