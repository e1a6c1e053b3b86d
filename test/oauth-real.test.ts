// Authorization with real parts (issue 27): a real OAuth 2.0 authorization server — oidc-provider, a certified OpenID
// Connect implementation, on loopback — issuing RFC 9068 JWT access tokens for resource indicators (RFC 8707); the
// endpoint verifies them with mcp-core/jwt; and the official SDK clients' own OAuth support (v1, and v2 on
// 2026-07-28) discovers the authorization server from the 401 (RFC 9728), authorizes with PKCE, and steps up after
// the 403 insufficient_scope of a tool that needs more scope (MCP 2025-11-25 Authorization, Scope Challenge Handling).
// Also an expired token and a token for another audience: 401 invalid_token.

import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { mock, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedErrorV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Provider, { errors } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { createServer } from '../core.ts';
import { createHttpHandler, type HttpHandler } from '../http.ts';
import { jwtVerifier } from '../jwt/jwt.ts';
import { MemoryLogger } from './harness.ts';
import { MODERN, modern } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only

/** The client pre-registered at the authorization server: public (no secret), so PKCE is required. */
const CLIENT_ID = 'mcp-client';
/** Where the authorization server sends the browser back: nothing listens there, the test's browser stops at it. */
const REDIRECT_URI = 'http://127.0.0.1/callback';
const ACCOUNT = 'alice';

/** A node:http server listening on 127.0.0.1, port 0: its base URL (the handler is set once the URLs are known). */
async function listen(): Promise<{ server: NodeServer; base: string }> {
  const server = createNodeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function shut(server: NodeServer): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A JWT's header and claims (read, not verified: the endpoint's verifier does that). */
function decode(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = jwt.split('.', 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, claims };
}

/**
 * The user agent: follows the authorization URL through the authorization server's redirects, with its cookies,
 * across login and consent (which the server completes on its own), to the redirect URI; returns that URL.
 */
async function browse(start: URL, jar: Map<string, string>): Promise<URL> {
  let at = start;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(at, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    await response.body?.cancel();
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(name.length + 1);
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get('location');
    if (location === null) throw new Error(`the authorization stopped at ${at.pathname}: ${response.status}`);
    at = new URL(location, at);
    if (at.href.startsWith(REDIRECT_URI)) return at;
  }
  throw new Error('the authorization redirected more than 10 times');
}

/** The test's deployment: the authorization server, the MCP endpoint, and what each saw. */
interface Deployment {
  issuer: string;
  /** The MCP endpoint: its URL is its resource identifier. */
  resource: string;
  /** A second resource server the authorization server knows (tokens for it are not for the MCP endpoint). */
  other: string;
  /** The authorization requests the authorization server received, in order. */
  authorizations: { scope: string | null; resource: string | null }[];
  /** What the endpoint's JWT verifier logged (its refusals name the failed check). */
  verifierLog: MemoryLogger;
  close(): Promise<void>;
}

/**
 * Starts oidc-provider and the MCP endpoint on loopback. The authorization server knows two resource servers (the
 * endpoint and `other`), each issuing ES256-signed JWT access tokens whose `aud` is that resource; it logs the user
 * in and consents to what is asked on its own. The endpoint needs `files:read` for every request (its 401 challenge
 * names it) and its tool `write` needs `files:write` too.
 */
async function deploy(): Promise<Deployment> {
  const as = await listen();
  const mcp = await listen();
  const issuer = as.base;
  const resource = `${mcp.base}/mcp`;
  const other = `${mcp.base}/other`;
  const authorizations: Deployment['authorizations'] = [];

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'as-key-1', alg: 'ES256', use: 'sig' };
  const resourceServer = (audience: string) => ({
    scope: 'files:read files:write',
    audience,
    accessTokenFormat: 'jwt',
    accessTokenTTL: 600,
    jwt: { sign: { alg: 'ES256' } },
  });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256', // the one key is an EC key
      },
    ],
    adapter: createMemoryAdapter(), // its own store, in memory (the default one is shared by every provider)
    jwks: { keys: [jwk] },
    cookies: { keys: ['oauth-real-test'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        async getResourceServerInfo(_ctx: unknown, indicator: string) {
          if (indicator === resource || indicator === other) return resourceServer(indicator);
          throw new errors.InvalidTarget();
        },
      },
    },
    renderError(ctx: { type: string; body: unknown }, out: unknown) {
      ctx.type = 'json';
      ctx.body = out;
    },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  });
  const callback = provider.callback();

  /** Login, then consent to the resource scopes asked (the prompts oidc-provider raises, in that order). */
  async function interact(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const interaction = await provider.interactionDetails(request, response);
    if (interaction.prompt.name === 'login') {
      await provider.interactionFinished(request, response, { login: { accountId: ACCOUNT } });
      return;
    }
    const grant =
      (interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId)) ??
      new provider.Grant({ accountId: interaction.session!.accountId, clientId: interaction.params.client_id });
    for (const [indicator, scopes] of Object.entries(interaction.prompt.details.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    await provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } });
  }

  as.server.on('request', (request, response) => {
    const url = new URL(request.url!, issuer);
    if (url.pathname === '/auth')
      authorizations.push({ scope: url.searchParams.get('scope'), resource: url.searchParams.get('resource') });
    if (url.pathname.startsWith('/interaction/'))
      interact(request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    else callback(request, response);
  });

  const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const verifierLog = new MemoryLogger();
  const verifier = jwtVerifier({ issuer, audience: resource, jwksUri: metadata.jwks_uri, logger: verifierLog });

  const server = createServer({ name: 'oauth-real', version: '1.0.0' });
  server.tool('read', { description: 'Reads a file', inputSchema: { type: 'object' } }, () => ({
    content: [{ type: 'text', text: 'read' }],
  }));
  server.tool(
    'write',
    { description: 'Writes a file', inputSchema: { type: 'object' }, scopes: ['files:write'] },
    (_args, ctx) => ({
      content: [{ type: 'text', text: `written by ${ctx.auth?.subject} (${ctx.auth?.scopes.join(' ')})` }],
    }),
  );
  const handler: HttpHandler = createHttpHandler(server, {
    path: '/mcp',
    auth: {
      verifyToken: verifier.verifyToken,
      resourceMetadata: { resource, authorization_servers: [issuer] },
      requiredScopes: ['files:read'],
    },
  });
  mcp.server.on('request', handler);

  return {
    issuer,
    resource,
    other,
    authorizations,
    verifierLog,
    async close() {
      await handler.close(0);
      await Promise.all([shut(mcp.server), shut(as.server)]);
    },
  };
}

/**
 * The MCP client's side of OAuth, as both SDKs' OAuthClientProvider asks: a pre-registered public client, PKCE, tokens
 * and discovery state in memory. Its "browser" completes the authorization and keeps the code the redirect URI got,
 * which the application hands to the transport's finishAuth (the SDKs' interactive flow).
 */
class OAuthClient {
  readonly redirectUrl = REDIRECT_URI;
  readonly clientMetadata = {
    client_name: 'oauth-real-test',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  /** Every token response saved, in order. */
  readonly saved: { access_token: string; scope?: string }[] = [];
  readonly #jar = new Map<string, string>();
  #verifier: string | undefined;
  #discovery: unknown;
  #redirected: URL | undefined;

  clientInformation() {
    return { client_id: CLIENT_ID };
  }
  tokens() {
    return this.saved.at(-1) as never;
  }
  saveTokens(tokens: { access_token: string; scope?: string }) {
    this.saved.push(tokens);
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier!;
  }
  saveDiscoveryState(state: unknown) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery as never;
  }
  async redirectToAuthorization(url: URL) {
    this.#redirected = await browse(url, this.#jar);
  }
  /** The authorization code (and issuer, RFC 9207) of the last authorization, taken once. */
  takeCode(): { code: string; iss: string } {
    const url = this.#redirected!;
    this.#redirected = undefined;
    return { code: url.searchParams.get('code')!, iss: url.searchParams.get('iss')! };
  }
}

/**
 * A `fetch` for the SDK transport that records each exchange as `METHOD path [JSON-RPC method] status` (what the
 * SDK did, in order) and the challenge of each 401/403. The v1 client's standalone GET stream, opened in the
 * background, is left out: its place in the order is not the client's doing.
 */
function recording(log: string[], challenges: string[], versions: Set<string>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? 'GET';
    if (url.pathname === '/mcp') {
      if (method === 'GET') return response;
      versions.add(new Headers(init?.headers).get('mcp-protocol-version') ?? 'none');
    }
    const rpc = url.pathname === '/mcp' ? ` ${JSON.parse(String(init?.body)).method}` : '';
    log.push(`${method} ${url.pathname}${rpc} ${response.status}`);
    const challenge = response.headers.get('www-authenticate');
    if (challenge !== null) challenges.push(challenge);
    return response;
  };
}

/** The parameters of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3). */
function challengeParams(header: string): Record<string, string> {
  assert.match(header, /^Bearer /);
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]));
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** What both SDKs must have done, and what the authorization server must have issued, for a step-up. */
function assertStepUp(deployment: Deployment, oauth: OAuthClient, challenges: string[]): void {
  const metadata = `${new URL(deployment.resource).origin}/.well-known/oauth-protected-resource/mcp`;
  assert.deepEqual(challenges.map(challengeParams), [
    { scope: 'files:read', resource_metadata: metadata },
    {
      error: 'insufficient_scope',
      error_description: 'Required scopes: files:write',
      scope: 'files:read files:write',
      resource_metadata: metadata,
    },
  ]);
  // The first authorization asked for the 401's scope, the step-up for the 403's, both for this resource (RFC 8707).
  assert.deepEqual(deployment.authorizations, [
    { scope: 'files:read', resource: deployment.resource },
    { scope: 'files:read files:write', resource: deployment.resource },
  ]);
  const tokens = oauth.saved.map((saved) => decode(saved.access_token));
  assert.deepEqual(
    tokens.map(({ header, claims }) => [header.typ, header.alg, claims.iss, claims.aud, claims.sub, claims.scope]),
    [
      ['at+jwt', 'ES256', deployment.issuer, deployment.resource, ACCOUNT, 'files:read'],
      ['at+jwt', 'ES256', deployment.issuer, deployment.resource, ACCOUNT, 'files:read files:write'],
    ],
  );
  assert.deepEqual(deployment.verifierLog.warnings, []);
}

test('the v1 SDK client authorizes at a real authorization server and steps up after a 403', T, async () => {
  const deployment = await deploy();
  const oauth = new OAuthClient();
  const exchanges: string[] = [];
  const challenges: string[] = [];
  const versions = new Set<string>();
  const options = { authProvider: oauth, fetch: recording(exchanges, challenges, versions) };
  const unauthorized = new ClientV1({ name: 'oauth-real-v1', version: '1.0.0' });
  const client = new ClientV1({ name: 'oauth-real-v1', version: '1.0.0' });
  try {
    // No token: the SDK reads the 401's challenge, discovers the authorization server (RFC 9728, then RFC 8414) and
    // sends the browser to it with the challenge's scope and the resource; connect() rejects until finishAuth.
    const first = new HttpTransportV1(new URL(deployment.resource), options);
    await assert.rejects(unauthorized.connect(first), UnauthorizedErrorV1);
    await first.finishAuth(oauth.takeCode().code);
    const transport = new HttpTransportV1(new URL(deployment.resource), options);
    await client.connect(transport);
    assert.equal(text(await client.callTool({ name: 'read', arguments: {} })), 'read');
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['read'],
    );
    const session = transport.sessionId;
    // `write` needs files:write: 403 insufficient_scope, and the SDK sends the browser to authorize again with the
    // challenge's scope. Its flow is interactive: the call rejects with UnauthorizedError until the application hands
    // the transport the code (finishAuth), and the application retries it, in the same session.
    await assert.rejects(client.callTool({ name: 'write', arguments: {} }), UnauthorizedErrorV1);
    await transport.finishAuth(oauth.takeCode().code);
    assert.equal(
      text(await client.callTool({ name: 'write', arguments: {} })),
      'written by alice (files:read files:write)',
    );
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['read', 'write'],
    );
    // The new token stands for the same principal (issuer, subject, client): the 2025 session goes on.
    assert.ok(session !== undefined && transport.sessionId === session);

    assert.deepEqual(exchanges, [
      'POST /mcp initialize 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /token 200',
      'POST /mcp initialize 200',
      'POST /mcp notifications/initialized 202',
      'POST /mcp tools/call 200',
      'POST /mcp tools/list 200',
      'POST /mcp tools/call 403',
      'POST /token 200',
      'POST /mcp tools/call 200',
      'POST /mcp tools/list 200',
    ]);
    assertStepUp(deployment, oauth, challenges);
  } finally {
    await unauthorized.close();
    await client.close();
    await deployment.close();
  }
});

test('the v2 SDK client on 2026-07-28 authorizes and steps up after a 403 the same way', T, async () => {
  const deployment = await deploy();
  const oauth = new OAuthClient();
  const exchanges: string[] = [];
  const challenges: string[] = [];
  const versions = new Set<string>();
  const options = { authProvider: oauth, fetch: recording(exchanges, challenges, versions) };
  const negotiation = { versionNegotiation: { mode: { pin: MODERN } } } as const;
  const unauthorized = new ClientV2({ name: 'oauth-real-v2', version: '2.0.0' }, negotiation);
  const client = new ClientV2({ name: 'oauth-real-v2', version: '2.0.0' }, negotiation);
  try {
    const first = new HttpTransportV2(new URL(deployment.resource), options);
    await assert.rejects(unauthorized.connect(first), UnauthorizedErrorV2);
    // The redirect URI also got `iss` (RFC 9207), which the v2 client checks against the issuer's metadata.
    const authorized = oauth.takeCode();
    assert.equal(authorized.iss, deployment.issuer);
    await first.finishAuth(authorized.code, authorized.iss);
    const transport = new HttpTransportV2(new URL(deployment.resource), options);
    await client.connect(transport);
    assert.equal(text(await client.callTool({ name: 'read', arguments: {} })), 'read');
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['read'],
    );
    // The v2 client asks for the union of what it had and what the challenge names (a superset: no refresh).
    await assert.rejects(client.callTool({ name: 'write', arguments: {} }), UnauthorizedErrorV2);
    const steppedUp = oauth.takeCode();
    await transport.finishAuth(steppedUp.code, steppedUp.iss);
    assert.equal(
      text(await client.callTool({ name: 'write', arguments: {} })),
      'written by alice (files:read files:write)',
    );
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['read', 'write'],
    );

    assert.deepEqual(exchanges, [
      'POST /mcp server/discover 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /token 200',
      'POST /mcp server/discover 200',
      'POST /mcp tools/call 200',
      'POST /mcp tools/list 200',
      'POST /mcp tools/call 403',
      'POST /token 200',
      'POST /mcp tools/call 200',
      'POST /mcp tools/list 200',
    ]);
    assert.deepEqual([...versions], [MODERN]);
    assertStepUp(deployment, oauth, challenges);
  } finally {
    await unauthorized.close();
    await client.close();
    await deployment.close();
  }
});

/**
 * A token from the authorization server by the authorization code flow with PKCE, as a client gets one, for
 * `resource`; `issuedAt` (ms) sets the authorization server's clock for the code exchange, where the token is minted.
 */
async function issueToken(deployment: Deployment, resource: string, issuedAt?: number): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const authorization = new URL('/auth', deployment.issuer);
  const query = {
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'files:read',
    resource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(query)) authorization.searchParams.set(name, value);
  const code = (await browse(authorization, new Map())).searchParams.get('code')!;
  const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
  if (issuedAt !== undefined) mock.timers.enable({ apis: ['Date'], now: issuedAt });
  try {
    const response = await fetch(new URL('/token', deployment.issuer), {
      method: 'POST',
      body: new URLSearchParams({ ...form, code_verifier: verifier, resource }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { access_token: string }).access_token;
  } finally {
    mock.timers.reset();
  }
}

/** A 2026-07-28 call of `read` with `token`. */
function callRead(deployment: Deployment, token: string): Promise<Response> {
  return fetch(deployment.resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'read',
    },
    body: JSON.stringify(modern('tools/call', { name: 'read', arguments: {} })),
  });
}

test('an expired token, and a token issued for another resource, get 401 invalid_token', T, async () => {
  const deployment = await deploy();
  try {
    const metadata = `${new URL(deployment.resource).origin}/.well-known/oauth-protected-resource/mcp`;
    const invalid = {
      error: 'invalid_token',
      error_description: 'The access token is invalid or expired',
      scope: 'files:read',
      resource_metadata: metadata,
    };
    // The control: a token minted now, for this resource, is served.
    const valid = await callRead(deployment, await issueToken(deployment, deployment.resource));
    assert.equal(valid.status, 200);
    assert.equal(text(((await valid.json()) as { result: unknown }).result), 'read');

    // Minted two hours ago with the authorization server's 10-minute lifetime: expired past any clock skew.
    const expired = await issueToken(deployment, deployment.resource, Date.now() - 2 * 3600_000);
    assert.ok((decode(expired).claims.exp as number) * 1000 < Date.now() - 3600_000);
    const late = await callRead(deployment, expired);
    assert.equal(late.status, 401);
    assert.deepEqual(challengeParams(late.headers.get('www-authenticate')!), invalid);
    await late.body?.cancel();

    // The authorization server's other resource server: a valid token whose `aud` is not this endpoint (RFC 8707).
    const foreign = await issueToken(deployment, deployment.other);
    assert.equal(decode(foreign).claims.aud, deployment.other);
    const misdirected = await callRead(deployment, foreign);
    assert.equal(misdirected.status, 401);
    assert.deepEqual(challengeParams(misdirected.headers.get('www-authenticate')!), invalid);
    await misdirected.body?.cancel();

    // The verifier's refusals name the failed check (never the token).
    assert.deepEqual(deployment.verifierLog.warnings, [
      'mcp-core/jwt: bearer token refused: exp: the token has expired',
      `mcp-core/jwt: bearer token refused: aud: does not hold ${deployment.resource}`,
    ]);
  } finally {
    await deployment.close();
  }
});
