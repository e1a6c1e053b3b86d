// The gate of every HTTP exchange before MCP sees it: Host and Origin (DNS rebinding), CORS, the path, the method and
// Content-Type, and authorization as an OAuth 2.1 resource server (bearer tokens checked by the author's hook, their
// audience, RFC 9728 metadata, challenges and the 403 step-up); which principal owns a 2025 session. Answers
// refusals itself; never reads a body and never dispatches a frame.

import { ErrorCode, errorResponse, isPlainObject, type JsonRpcResponse } from '../jsonrpc.ts';
import { isScopeToken } from '../registry.ts';
import { principalOf } from '../request.ts';
import { type AuthInfo, type HttpRequestInfo, type Logger, MODERN_VERSIONS } from '../types.ts';
import { first, type HeaderBag, type Reply } from './exchange.ts';
import type { Session } from './sessions.ts';

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** Request headers a browser client may send (any `Mcp-Param-*` it asks for is allowed too). */
const CORS_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
];
const PARAM_HEADER = /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** The Host value without its port. indexOf, not split: split on a header's fresh string is a runtime call per request. */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** The answer to an allowed preflight: methods, the MCP request headers plus the Mcp-Param-* it asks for, max age. */
function preflightHeaders(headers: HeaderBag, maxAgeSeconds: number): Record<string, string> {
  const asked = (first(headers['access-control-request-headers']) ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  const params = asked.filter((name) => PARAM_HEADER.test(name));
  return {
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': [...CORS_REQUEST_HEADERS, ...new Set(params)].join(', '),
    'access-control-max-age': String(maxAgeSeconds),
  };
}

/** What the guard reads of the HTTP endpoint's options (HttpOptions extends it). */
export interface GuardOptions {
  /** Serve only this path (default: any path the handler is mounted on; serveHttp uses `/mcp`). */
  path?: string;
  /** Hostnames accepted in `Host` and in `Origin` (default: localhost, 127.0.0.1, [::1], any port). */
  allowedHosts?: string[];
  /** Exact origins accepted besides those whose host is allowed (e.g. `https://app.example.com`). */
  allowedOrigins?: string[];
  /**
   * CORS for browser clients: requests from these origins (`'*'`: any) pass the Origin check and get
   * `Access-Control-Allow-Origin` (their own origin) and `Access-Control-Expose-Headers: Mcp-Session-Id`; a preflight
   * `OPTIONS` is answered 204, allowing the MCP request headers. The Host check still applies.
   */
  cors?: { origins: string[] | '*'; maxAgeSeconds?: number };
  /**
   * OAuth 2.1 resource server: every MCP request (POST, GET, DELETE) needs `Authorization: Bearer <token>` accepted
   * by `verifyToken` (and issued for this resource, when it reports an `audience`), else 401
   * (`WWW-Authenticate: Bearer resource_metadata="…"`, plus `error="invalid_token"` when a token was sent) or 403
   * `insufficient_scope`; the JSON-RPC body is error -32600 with id null. A request refused for an item's `scopes`
   * gets 403 with the step-up challenge (docs/api.md, Scopes). The RFC 9728 metadata is served to GET at
   * `/.well-known/oauth-protected-resource` and its path-suffixed forms (Host check applies, the Origin check does
   * not: it is a public document), its `scopes_supported` completed with the scopes in use. Handlers see the
   * identity as `ctx.auth`; a 2025 session belongs to the principal (issuer, subject, client) that created it:
   * another one gets 404 Session not found.
   */
  auth?: AuthOptions;
}

export class HttpGuard {
  readonly #options: GuardOptions;
  readonly #sessions: boolean;
  readonly #logger: Logger;
  readonly #hosts: string[];
  /** The scopes registered items need (TransportSide.scopesInUse), read when the metadata is served. */
  readonly #scopesInUse: () => string[];
  /**
   * With `auth`: the metadata URL named in challenges, the paths the metadata is served at, the resource as a token's
   * audience is compared with it (canonicalResource), each session's owner.
   */
  readonly #metadataUrl: string | undefined;
  readonly #metadataPaths: Set<string> | undefined;
  readonly #resource: string | undefined;
  readonly #owners = new WeakMap<Session, string>();
  /** When the 503 of a verifier that cannot check tokens was last logged. */
  #unverifiableLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(options: GuardOptions, sessions: boolean, logger: Logger, scopesInUse: () => string[]) {
    this.#options = options;
    this.#sessions = sessions;
    this.#logger = logger;
    this.#scopesInUse = scopesInUse;
    this.#hosts = (options.allowedHosts ?? LOCAL_HOSTS).map((host) => host.toLowerCase());
    if (options.auth !== undefined) {
      this.#metadataUrl = options.auth.resourceMetadataUrl ?? metadataUrlOf(options.auth.resourceMetadata.resource);
      this.#metadataPaths = metadataPaths(options.auth, options.path);
      this.#resource = canonicalResource(options.auth.resourceMetadata.resource);
    }
  }

  /**
   * The RFC 9728 document as served: the author's, its `scopes_supported` completed with `requiredScopes` and the
   * scopes registered items need, so that a client can discover them (computed when served: items come and go).
   * Stable order: the author's first, then the required ones, then those in use, each once.
   */
  #metadata(): ProtectedResourceMetadata {
    const auth = this.#options.auth!;
    const document = auth.resourceMetadata;
    const scopes = new Set([
      ...(document.scopes_supported ?? []),
      ...(auth.requiredScopes ?? []),
      ...this.#scopesInUse(),
    ]);
    return scopes.size === 0 ? document : { ...document, scopes_supported: [...scopes] };
  }

  /**
   * Checks that need only the request line and headers, and answers a CORS preflight. An allowed cross-origin
   * caller's reply gets its CORS headers first (every answer carries them). Returns whether the exchange is to be
   * served (false: it was answered).
   */
  admit(method: string, path: string, reply: Reply): boolean {
    const { headers } = reply;
    const hosts = this.#hosts;
    const origin = first(headers.origin);
    const cors = this.#options.cors;
    const corsAllowed =
      origin !== undefined && cors !== undefined && (cors.origins === '*' || cors.origins.includes(origin));
    if (corsAllowed)
      reply.cors = {
        'access-control-allow-origin': origin,
        'access-control-expose-headers': 'Mcp-Session-Id',
        vary: 'Origin',
      };
    // RFC 9112 §3.2: a request with more than one Host field line is answered 400 (node keeps them distinct).
    if (Array.isArray(headers.host) && headers.host.length > 1) {
      reply.send(
        400,
        errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Bad Request: more than one Host header' }),
      );
      return false;
    }
    const host = first(headers.host);
    // As sent first: clients send it in lowercase, and lowercasing makes a new string of every request's Host.
    const hostname = host === undefined ? undefined : hostnameOf(host);
    if (hostname === undefined || !(hosts.includes(hostname) || hosts.includes(hostname.toLowerCase()))) {
      reply.send(
        421,
        errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: 'Misdirected Request: Host header is not allowed',
        }),
      );
      return false;
    }
    if (method === 'GET' && this.#metadataPaths?.has(path) === true) {
      reply.send(200, this.#metadata(), { 'cache-control': 'max-age=3600' });
      return false;
    }
    if (origin !== undefined && !corsAllowed && !this.#originAllowed(origin, hosts)) {
      reply.send(
        403,
        errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Forbidden: Origin is not allowed' }),
      );
      return false;
    }
    if (this.#options.path !== undefined && path !== this.#options.path) {
      reply.send(404, errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Not Found' }));
      return false;
    }
    if (method === 'OPTIONS' && cors !== undefined) {
      reply.send(204, undefined, corsAllowed ? preflightHeaders(headers, cors.maxAgeSeconds ?? 600) : {});
      return false;
    }
    const sessions = this.#sessions;
    const header = first(headers['mcp-protocol-version']);
    const modernHeader = header !== undefined && (MODERN_VERSIONS as readonly string[]).includes(header);
    const allow = sessions && !modernHeader ? 'GET, POST, DELETE' : 'POST'; // a modern client may only POST
    if (method !== 'POST' && (!sessions || modernHeader || (method !== 'GET' && method !== 'DELETE'))) {
      reply.send(
        405,
        errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Method Not Allowed: ${method}` }),
        { allow },
      );
      return false;
    }
    if (method === 'POST') {
      const contentType = first(headers['content-type']);
      // The exact value clients send is taken as is; any other is parsed (parameters, case, whitespace).
      if (
        contentType !== 'application/json' &&
        contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/json'
      ) {
        reply.send(
          415,
          errorResponse(null, {
            code: ErrorCode.InvalidRequest,
            message: 'Unsupported Media Type: Content-Type must be application/json',
          }),
        );
        return false;
      }
    }
    return true;
  }

  #originAllowed(origin: string, hosts: string[]): boolean {
    if (this.#options.allowedOrigins?.includes(origin) === true) return true;
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && hosts.includes(url.hostname);
    } catch {
      return false;
    }
  }

  /**
   * Without `auth`: serves the exchange at once. With it: verifies the bearer token first, then serves the exchange
   * with the identity set as its `auth`, or refuses it with 401/403 and a `WWW-Authenticate` challenge.
   */
  authorize(reply: Reply, serve: () => void): void {
    const auth = this.#options.auth;
    if (auth === undefined) {
      serve();
      return;
    }
    const required = auth.requiredScopes ?? [];
    const refuse = (
      status: number,
      message: string,
      fields: { error?: string; description?: string; scope?: string[] },
    ): void => {
      reply.send(status, errorResponse(null, { code: ErrorCode.InvalidRequest, message: message }), {
        'www-authenticate': challenge(this.#metadataUrl!, fields),
      });
    };
    const token = bearerToken(reply.headers.authorization);
    if (token === undefined) {
      refuse(401, 'Unauthorized: a bearer token is required', { scope: required });
      return;
    }
    const invalid = (): void => {
      refuse(401, 'Unauthorized: the bearer token is not valid', {
        error: 'invalid_token',
        description: 'The access token is invalid or expired',
        scope: required,
      });
    };
    let gone = false; // a client that leaves while its token is verified is not served (nothing would end its handler)
    reply.onAbort(() => {
      gone = true;
    });
    void (async () => {
      let info: AuthInfo | undefined;
      try {
        info = await auth.verifyToken(token, reply.http ?? { headers: reply.headers });
      } catch (failure) {
        const retryAfter = unavailableFor(failure);
        if (retryAfter === undefined) {
          this.#logger.error('auth.verifyToken threw; the token is treated as invalid', failure);
          invalid();
        } else {
          // The token was not checked: a 401 would make the client drop a good token and re-authorize. Every request
          // meets it while it lasts, so it is logged once a minute.
          if (Date.now() - this.#unverifiableLoggedAt >= 60_000) {
            this.#unverifiableLoggedAt = Date.now();
            this.#logger.error(
              'auth.verifyToken cannot verify tokens now; answered 503 (logged once a minute)',
              failure,
            );
          }
          reply.send(
            503,
            errorResponse(null, {
              code: ErrorCode.InternalError,
              message: 'Service Unavailable: the bearer token cannot be verified now',
            }),
            { 'retry-after': String(retryAfter) },
          );
        }
        return;
      }
      if (gone) return;
      if (
        typeof info !== 'object' ||
        info === null ||
        typeof info.subject !== 'string' ||
        (info.expiresAt !== undefined && info.expiresAt * 1000 <= Date.now())
      ) {
        invalid();
        return;
      }
      // RFC 8707, MCP 2025-11-25 Authorization (Token Audience Binding and Validation): a token issued for another
      // resource is never served, whatever its scopes. No audience reported: the verifier vouched for it.
      if (info.audience !== undefined && !this.#issuedForThis(info.audience)) {
        refuse(401, 'Unauthorized: the bearer token is not valid', {
          error: 'invalid_token',
          description: 'The access token was not issued for this resource',
          scope: required,
        });
        return;
      }
      const scopes = Array.isArray(info.scopes) ? info.scopes : [];
      if (required.some((scope) => !scopes.includes(scope))) {
        // The granted scopes too, as the per-item step-up names them (stepUp): re-authorizing loses none of them.
        refuse(403, 'Forbidden: the bearer token lacks a required scope', {
          error: 'insufficient_scope',
          description: `Required scopes: ${required.join(' ')}`,
          scope: [...new Set([...scopes.filter(isScopeToken), ...required])],
        });
        return;
      }
      reply.auth = info;
      serve();
    })();
  }

  /** Whether a verified token's `audience` names this resource (a malformed one names none), compared canonically. */
  #issuedForThis(audience: unknown): boolean {
    return (
      Array.isArray(audience) &&
      audience.some((entry) => typeof entry === 'string' && canonicalResource(entry) === this.#resource)
    );
  }

  /**
   * The headers of the 403 step-up (MCP 2025-11-25, Authorization, Scope Challenge Handling) when `response` is the
   * refusal of a request for want of scope (jsonrpc.ts insufficientScope: -32600 with `data.requiredScopes`, scope
   * tokens): `WWW-Authenticate` with `insufficient_scope` and, as `scope`, the token's granted scopes and the
   * required ones (the spec's recommended approach: a client that re-authorizes with it keeps what it had).
   * Undefined for any other answer, and without `auth`, where no token holds a scope: the refusal stays in-band.
   */
  stepUp(reply: Reply, response: JsonRpcResponse): Record<string, string> | undefined {
    if (this.#metadataUrl === undefined || !('error' in response)) return undefined;
    const { code, data } = response.error;
    const required = isPlainObject(data) ? data.requiredScopes : undefined;
    // Anything else a handler put there stays in-band: a header carries scope tokens only (RFC 6750 §3).
    if (code !== ErrorCode.InvalidRequest || !isScopeList(required) || required.length === 0) return undefined;
    const held: unknown = reply.auth?.scopes; // the verifier's: what is no scope token is left out
    const granted = Array.isArray(held) ? held.filter(isScopeToken) : [];
    return {
      'www-authenticate': challenge(this.#metadataUrl, {
        error: 'insufficient_scope',
        description: `Required scopes: ${required.join(' ')}`,
        scope: [...new Set([...granted, ...required])],
      }),
    };
  }

  /** Whether this exchange may use this session: with `auth`, only the principal that created it. */
  ownedBy(session: Session, reply: Reply): boolean {
    const owner = this.ownerOf(session);
    return owner === undefined || this.principal(reply) === owner;
  }

  /** The principal that owns `session` (with `auth`; what its shared record names). */
  ownerOf(session: Session): string | undefined {
    return this.#owners.get(session);
  }

  /** The principal an exchange comes from (with `auth`): the verified identity on its reply. */
  principal(reply: Reply): string | undefined {
    return reply.auth === undefined ? undefined : principalOf(reply.auth);
  }

  /** Records the principal that created `session` (or, restored from a shared store, the one its record names). */
  own(session: Session, owner: string | undefined): void {
    if (owner !== undefined) this.#owners.set(session, owner);
  }
}

// Authorization (MCP authorization spec; RFC 6750, RFC 9728): the verified AuthInfo reaches handlers as `ctx.auth`.

/** OAuth 2.0 Protected Resource Metadata (RFC 9728 §2), served as is at its well-known path. */
export interface ProtectedResourceMetadata {
  /** The MCP endpoint's canonical URL (e.g. `https://mcp.example.com/mcp`); its path picks the well-known path. */
  resource: string;
  /** Issuer URLs of the authorization servers; the MCP spec requires at least one. */
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  [field: string]: unknown;
}

/** `HttpOptions.auth`: makes the endpoint an OAuth 2.1 resource server. */
export interface AuthOptions {
  /**
   * Verifies a bearer token (signature, expiry, audience = this resource…): returns who it stands for, or undefined
   * when it is not valid. A throw counts as an invalid token (and is logged), except one whose `status` is 503 (it
   * could not check the token now: 503 with `Retry-After`, its `retryAfterSeconds`). An `expiresAt` in the past is refused,
   * and so is an `audience` that does not name `resourceMetadata.resource` (canonicalResource); without one, the
   * verifier vouches that the token was issued for this resource (docs/http-deployment.md, Authorization).
   */
  verifyToken(token: string, request: HttpRequestInfo): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  resourceMetadata: ProtectedResourceMetadata;
  /** Scopes every MCP request needs (all of them); a token lacking one gets 403 `insufficient_scope`. */
  requiredScopes?: string[];
  /**
   * The metadata document's absolute public URL, named in every challenge and served at its path too (default:
   * derived from `resource`, RFC 9728 §3.1:
   * `https://host/.well-known/oauth-protected-resource/<resource path>`).
   */
  resourceMetadataUrl?: string;
}

/** The well-known path segment of OAuth 2.0 Protected Resource Metadata (RFC 9728). */
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The RFC 9728 §3.1 metadata URL of a resource: the well-known segment goes between the host and the path. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** Paths the metadata is served at: the root well-known path and the one suffixed with the resource's path. */
export function metadataPaths(options: AuthOptions, endpointPath: string | undefined): Set<string> {
  const paths = new Set([WELL_KNOWN, new URL(metadataUrlOf(options.resourceMetadata.resource)).pathname]);
  if (endpointPath !== undefined && endpointPath !== '/') paths.add(WELL_KNOWN + endpointPath);
  // An absolute URL (a relative one throws here, when the handler is created).
  if (options.resourceMetadataUrl !== undefined) paths.add(new URL(options.resourceMetadataUrl).pathname);
  return paths;
}

/**
 * A resource identifier as a token's audience is compared with this server's (RFC 8707 §2; MCP 2025-11-25,
 * Authorization, Canonical Server URI): an http(s) URL with its scheme and host lowercased and its default port
 * dropped (what URL parsing does), and one trailing slash of its path ignored (`https://mcp.example.com/` is
 * `https://mcp.example.com`, as the spec asks servers to accept both forms); its path, query and fragment stay as
 * they are. Anything else (an identifier that is no http(s) URL) is compared exactly, and so is a string URL parsing
 * would repair (whitespace, controls or anything but ASCII, a backslash, a dot segment): such an audience names no
 * resource exactly.
 */
export function canonicalResource(resource: string): string {
  if (/[^!-~]|\\|\/\.\.?(?:[/?#]|$)/.test(resource)) return resource; // a URI is printable ASCII (RFC 3986)
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return resource;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return resource;
  url.pathname = url.pathname.replace(/\/$/, '');
  return url.href;
}

function isScopeList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isScopeToken);
}

/**
 * A verifier's "cannot verify now" (a throw whose `status` is 503, as mcp-core/jwt's JwksUnavailableError): the
 * seconds its `retryAfterSeconds` gives (1 when it gives no positive integer); undefined for any other throw, which is
 * an invalid token.
 */
function unavailableFor(failure: unknown): number | undefined {
  if (typeof failure !== 'object' || failure === null || (failure as { status?: unknown }).status !== 503)
    return undefined;
  const seconds = (failure as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0 ? seconds : 1;
}

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** A `WWW-Authenticate: Bearer` challenge (RFC 6750 §3) with the RFC 9728 §5.1 `resource_metadata` parameter. */
export function challenge(
  metadataUrl: string,
  fields: { error?: string; description?: string; scope?: string[] } = {},
): string {
  const params: string[] = [];
  if (fields.error !== undefined) params.push(`error=${quoted(fields.error)}`);
  if (fields.description !== undefined) params.push(`error_description=${quoted(fields.description)}`);
  if (fields.scope !== undefined && fields.scope.length > 0) params.push(`scope=${quoted(fields.scope.join(' '))}`);
  params.push(`resource_metadata=${quoted(metadataUrl)}`);
  return `Bearer ${params.join(', ')}`;
}

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or another scheme. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  const match = value === undefined ? null : /^Bearer\s+(\S.*)$/i.exec(value.trim());
  return match === null ? undefined : match[1];
}
