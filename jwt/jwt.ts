// JWT access-token verification for the HTTP endpoint's `auth.verifyToken` (`mcp-core/jwt`; docs/http-deployment.md,
// Authorization): RFC 9068 access tokens signed with an asymmetric JWS algorithm (RFC 7515, RFC 7518, RFC 8037),
// checked with Web Crypto against the issuer's JWK Set, which it fetches with the runtime's `fetch`, caches and
// refreshes at most once per interval. Owns its key cache and its one JWKS fetch in flight; Web APIs only (it runs in
// workerd), and never logs, echoes or keeps a token.

import type { AuthInfo, Logger } from '../core.ts';

/** The JWS algorithms it verifies: asymmetric ones only (an HMAC secret is no public key, and `none` signs nothing). */
export type JwtAlgorithm =
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'
  | 'Ed25519';

/** What `fetch` the verifier calls for the JWK Set (the runtime's own by default). */
export type JwksFetch = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string>; redirect: 'manual' },
) => Promise<Response>;

/** `jwtVerifier`'s options (docs/api.md, `mcp-core/jwt`). */
export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier: the token's `iss` must equal it. */
  issuer: string;
  /** This server's resource identifier (`resourceMetadata.resource`): the token's `aud` must hold it. */
  audience: string;
  /** The issuer's JWK Set URL (`jwks_uri` of its metadata): https, or http on a loopback host. */
  jwksUri: string;
  /** The algorithms a token may be signed with (default: every `JwtAlgorithm`); the key must fit it too. */
  algorithms?: JwtAlgorithm[];
  /** The header `typ` a token must carry (default `'at+jwt'`, RFC 9068 §4); `application/` prefix and case ignored. */
  typ?: string;
  /** Leeway for `nbf` and `iat` (a token from a clock ahead of ours), 0 to 300 seconds (default 60); `exp` has none. */
  clockSkewSeconds?: number;
  /** The least time between two fetches of the key set (at most 1 h): an unknown `kid` refreshes it no more often. */
  jwksRefreshIntervalMs?: number;
  /** How long a fetched key set is used before it is fetched again, at most a day (while that fails, up to twice). */
  jwksMaxAgeMs?: number;
  /** The bound of one JWKS fetch, answer included (at most 60 s: a request waits for it). */
  jwksTimeoutMs?: number;
  /** The `fetch` to call (default: `globalThis.fetch`); it must honour `init.signal`. */
  fetch?: JwksFetch;
  /** Where refusals (naming the failed check, never the token) and failed JWKS fetches go (its `warn` only). */
  logger?: Pick<Logger, 'warn'>;
}

/** What `jwtVerifier` returns: `verifyToken` is `HttpOptions.auth.verifyToken` (a function: pass it as it is). */
export interface JwtVerifier {
  /**
   * The token's identity, or undefined when it is refused (the reason is logged). Rejects with a
   * `JwksUnavailableError` when no usable key set could be fetched: the token could not be checked, not found bad.
   */
  verifyToken(token: string): Promise<AuthInfo | undefined>;
}

/**
 * The verifier holds no usable key set: the JWKS endpoint is down, slow past `jwksTimeoutMs`, or answers something
 * that is not a JWK Set. `status` 503 and `retryAfterSeconds` say how the HTTP endpoint answers it.
 */
export class JwksUnavailableError extends Error {
  override readonly name = 'JwksUnavailableError';
  readonly status = 503;
  /** Seconds until the verifier fetches the key set again. */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Bounds: the token's length (it arrives in a header), the JWK Set's bytes and its signature keys. */
const MAX_TOKEN_LENGTH = 16 * 1024;
const MAX_JWKS_BYTES = 64 * 1024;
const MAX_JWKS_KEYS = 100;
/** The largest `clockSkewSeconds`: a wider window would admit tokens dated well into the future. */
const MAX_CLOCK_SKEW_SECONDS = 300;
/** The shortest RSA modulus accepted (RFC 7518 §3.3). */
const MIN_RSA_BITS = 2048;

/** How an algorithm imports its key and verifies, and which JWK fits it. */
interface Scheme {
  kty: string;
  crv?: string;
  key: { name: string };
  verify: { name: string };
}

const ED25519_SCHEME: Scheme = { kty: 'OKP', crv: 'Ed25519', key: { name: 'Ed25519' }, verify: { name: 'Ed25519' } };

/** Each algorithm's scheme (RFC 7518 §3; RFC 8037 §3.1; RFC 9864 §2.2, the fully-specified `Ed25519`). */
const ALGORITHMS: Record<JwtAlgorithm, Scheme> = {
  RS256: rsa('RSASSA-PKCS1-v1_5', 256),
  RS384: rsa('RSASSA-PKCS1-v1_5', 384),
  RS512: rsa('RSASSA-PKCS1-v1_5', 512),
  PS256: rsa('RSA-PSS', 256),
  PS384: rsa('RSA-PSS', 384),
  PS512: rsa('RSA-PSS', 512),
  ES256: ec('P-256', 256),
  ES384: ec('P-384', 384),
  ES512: ec('P-521', 512),
  EdDSA: ED25519_SCHEME,
  Ed25519: ED25519_SCHEME,
};

/** The names of Ed25519 signing: `EdDSA` on an Ed25519 key, and `Ed25519`, which Web Crypto writes in a JWK's `alg`. */
const ED25519_NAMES: readonly unknown[] = ['EdDSA', 'Ed25519'];

function rsa(name: string, bits: number) {
  // RSA-PSS salts as long as the hash (RFC 7518 §3.5).
  return { kty: 'RSA', key: { name, hash: `SHA-${bits}` }, verify: { name, saltLength: bits / 8 } };
}

function ec(crv: string, bits: number) {
  // A JWS ECDSA signature is r || s (RFC 7518 §3.4), which is what Web Crypto verifies.
  return { kty: 'EC', crv, key: { name: 'ECDSA', namedCurve: crv }, verify: { name: 'ECDSA', hash: `SHA-${bits}` } };
}

type CryptoKeyLike = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
type Json = Record<string, unknown>;

/** One key of the set that may verify: its public members only, and its imports by algorithm. */
interface KeyEntry {
  jwk: Json;
  imported: Map<JwtAlgorithm, Promise<CryptoKeyLike>>;
}

/** A check failed: the token is refused, and the message names the check. */
class Refusal extends Error {
  readonly check: string;

  constructor(check: string, detail: string) {
    super(`${check}: ${detail}`);
    this.check = check;
  }
}

function refuse(check: string, detail: string): never {
  throw new Refusal(check, detail);
}

/** One refusal line per check a minute at most: a client's stream of bad tokens must not become a stream of lines. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Strict base64url (RFC 7515 §2): its alphabet, no padding, no whitespace, unused trailing bits zero. */
function base64url(text: string, part: string): Uint8Array {
  const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
  let buffer = 0;
  let bits = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const value = BASE64URL.indexOf(text[i]!);
    if (value === -1) refuse(part, 'not base64url');
    buffer = ((buffer << 6) | value) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = buffer >> bits;
    }
  }
  if (text.length % 4 === 1 || (buffer & ((1 << bits) - 1)) !== 0) refuse(part, 'not canonical base64url');
  return bytes;
}

/** A part that must be a JSON object (UTF-8, RFC 7515 §5.2). */
function jsonObject(text: string, part: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url(text, part)));
  } catch (error) {
    if (error instanceof Refusal) throw error;
    value = undefined;
  }
  if (!isObject(value)) refuse(part, 'not a JSON object');
  return value;
}

/** A media type compared as RFC 7515 §4.1.9 says: case-insensitive, `application/` implied. */
const mediaType = (value: string): string => value.toLowerCase().replace(/^application\//, '');

/** Whether a JWK of the set may verify at all: a signature key of a known type (RFC 7517 §4.2, §4.3). */
function signatureKey(jwk: Json): boolean {
  return (
    (jwk.kid === undefined || typeof jwk.kid === 'string') &&
    (jwk.use === undefined || jwk.use === 'sig') &&
    (jwk.key_ops === undefined || (Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) &&
    (jwk.kty === 'RSA' || jwk.kty === 'EC' || jwk.kty === 'OKP')
  );
}

/** Its public members only: a private member or a stray `alg`/`key_ops` never reaches importKey. */
function publicJwk(jwk: Json): Json {
  if (jwk.kty === 'RSA') return { kty: 'RSA', n: jwk.n, e: jwk.e };
  if (jwk.kty === 'EC') return { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y };
  return { kty: 'OKP', crv: jwk.crv, x: jwk.x };
}

/** Whether `jwk` fits `algorithm`: its type and curve, and its own `alg` when it names one (RFC 7517 §4.4). */
function fits(jwk: Json, algorithm: JwtAlgorithm): boolean {
  const wanted = ALGORITHMS[algorithm];
  const named =
    jwk.alg === undefined ||
    jwk.alg === algorithm ||
    (ED25519_NAMES.includes(jwk.alg) && ED25519_NAMES.includes(algorithm));
  return jwk.kty === wanted.kty && jwk.crv === wanted.crv && named;
}

/** Whether a big-endian RSA public exponent is odd and at least 3 (RFC 8017 §3.1). */
function oddExponent(exponent: Uint8Array): boolean {
  const last = exponent[exponent.length - 1] ?? 0;
  return (last & 1) === 1 && (last > 1 || exponent.some((byte, at) => at < exponent.length - 1 && byte !== 0));
}

/** An option that must be a non-empty string. */
function nonEmpty(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') throw new TypeError(`jwtVerifier: ${name} must be a non-empty string`);
}

/** An option that must be an integer within bounds (its name last: the option's default is not this call's). */
function integer(value: number, min: number, max: number, name: string): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`jwtVerifier: ${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** The default logger: one line on stderr (stdout may be a stdio server's protocol stream). */
const stderr: Pick<Logger, 'warn'> = {
  warn(message) {
    console.error(`[mcp-core] ${message}`);
  },
};

/**
 * A verifier of RFC 9068 JWT access tokens for `HttpOptions.auth.verifyToken`. Throws a TypeError or RangeError for
 * options it cannot work with, so a misconfiguration fails at startup.
 */
export function jwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  const {
    issuer,
    audience,
    jwksUri,
    algorithms = Object.keys(ALGORITHMS) as JwtAlgorithm[],
    typ = 'at+jwt',
    clockSkewSeconds = 60,
    jwksRefreshIntervalMs = 30_000,
    jwksMaxAgeMs = 600_000,
    jwksTimeoutMs = 5000,
    fetch = (url, init) => globalThis.fetch(url, init),
    logger = stderr,
  } = options;
  nonEmpty('issuer', issuer);
  nonEmpty('audience', audience);
  const url = new URL(jwksUri); // throws a TypeError for a relative or malformed URL
  if (
    url.protocol !== 'https:' &&
    !(url.protocol === 'http:' && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(url.hostname))
  )
    throw new TypeError('jwtVerifier: jwksUri must be an https URL (or http on a loopback host)');
  const allowed = new Set<string>(algorithms);
  if (allowed.size === 0 || algorithms.some((algorithm) => !Object.hasOwn(ALGORITHMS, algorithm)))
    throw new TypeError(`jwtVerifier: algorithms must be some of ${Object.keys(ALGORITHMS).join(', ')}`);
  const skew = integer(clockSkewSeconds, 0, MAX_CLOCK_SKEW_SECONDS, 'clockSkewSeconds');
  const interval = integer(jwksRefreshIntervalMs, 1, 3_600_000, 'jwksRefreshIntervalMs');
  const maxAge = integer(jwksMaxAgeMs, 1, 86_400_000, 'jwksMaxAgeMs');
  const timeout = integer(jwksTimeoutMs, 1, 60_000, 'jwksTimeoutMs');
  const wantedTyp = mediaType(typ);
  /** The logger's warn, its throw dropped: that must neither turn a refusal into a failure nor reject the fetch. */
  const warn = (message: string): void => {
    try {
      logger.warn(message);
    } catch {}
  };

  /** Per check (a fixed set, named in the code): when it last logged, and the refusals since left unlogged. */
  const refusals = new Map<string, { loggedAt: number; unlogged: number }>();
  /** Logs a refusal unless its check logged one less than REFUSAL_LOG_INTERVAL_MS ago; then counts it. */
  const refused = (refusal: Refusal): void => {
    const now = Date.now();
    const last = refusals.get(refusal.check);
    if (last !== undefined && now - last.loggedAt < REFUSAL_LOG_INTERVAL_MS) {
      last.unlogged++;
      return;
    }
    const more =
      last === undefined || last.unlogged === 0 ? '' : ` (${last.unlogged} more refused so since the last line)`;
    refusals.set(refusal.check, { loggedAt: now, unlogged: 0 });
    warn(`mcp-core/jwt: bearer token refused: ${refusal.message}${more}`);
  };

  let keys: { entries: KeyEntry[]; fetchedAt: number } | undefined;
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let lastFailure = 'not fetched yet';
  let inflight: Promise<void> | undefined;

  /** One fetch of the JWK Set within `jwksTimeoutMs`, read up to MAX_JWKS_BYTES. */
  async function fetchKeys(): Promise<KeyEntry[]> {
    const response = await fetch(url.href, {
      signal: AbortSignal.timeout(timeout),
      headers: { accept: 'application/jwk-set+json, application/json' },
      // Keys come from jwksUri itself: a redirect could lead off https, or to another host's keys.
      redirect: 'manual',
    });
    const reader = response.body?.getReader();
    // A 3xx (not followed) is no 200; a fetch of the caller's that followed anyway says so in `redirected`.
    if (response.status !== 200 || response.redirected || reader === undefined) {
      await reader?.cancel();
      const why = response.redirected ? ' after a redirect' : reader === undefined ? ' without a body' : '';
      throw new Error(`the endpoint answered ${response.status}${why}`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength;
      if (size > MAX_JWKS_BYTES) {
        await reader.cancel();
        throw new Error(`the key set is larger than ${MAX_JWKS_BYTES} bytes`);
      }
      chunks.push(chunk.value);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    let document: unknown;
    try {
      document = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      document = undefined;
    }
    if (!isObject(document) || !Array.isArray(document.keys)) throw new Error('the answer is not a JWK Set');
    const usable = document.keys.filter((jwk): jwk is Json => isObject(jwk) && signatureKey(jwk));
    if (usable.length > MAX_JWKS_KEYS) throw new Error(`the key set holds more than ${MAX_JWKS_KEYS} signature keys`);
    return usable.map((jwk) => ({ jwk, imported: new Map() }));
  }

  /** Fetches the key set unless a fetch is in flight (then waits for it) or one began less than an interval ago. */
  async function refresh(): Promise<void> {
    if (inflight === undefined && Date.now() - lastAttempt >= interval) {
      lastAttempt = Date.now();
      inflight = fetchKeys().then(
        (entries) => {
          keys = { entries, fetchedAt: Date.now() };
        },
        (error: unknown) => {
          lastFailure = error instanceof Error ? error.message : String(error);
          warn(`mcp-core/jwt: fetching the key set of ${url.href} failed: ${lastFailure}`);
        },
      );
      void inflight.finally(() => {
        inflight = undefined;
      });
    }
    await inflight;
  }

  /** The key set to verify with: fetched when missing or past its age; a stale one serves up to twice its age. */
  async function keySet(): Promise<KeyEntry[]> {
    if (keys === undefined || Date.now() - keys.fetchedAt >= maxAge) await refresh();
    if (keys !== undefined && Date.now() - keys.fetchedAt < 2 * maxAge) return keys.entries;
    const wait = Math.max(1, Math.ceil((lastAttempt + interval - Date.now()) / 1000));
    throw new JwksUnavailableError(`mcp-core/jwt: no usable key set from ${url.href} (${lastFailure})`, wait);
  }

  /** The key that verifies a token: its `kid`'s, or the one key that fits when it names none. */
  async function keyFor(kid: string | undefined, algorithm: JwtAlgorithm): Promise<CryptoKeyLike> {
    const pick = (entries: KeyEntry[]): KeyEntry | undefined => {
      const fitting = entries.filter(({ jwk }) => (kid === undefined || jwk.kid === kid) && fits(jwk, algorithm));
      return fitting.length === 1 ? fitting[0] : undefined;
    };
    let entry = pick(await keySet());
    if (entry === undefined) {
      // An unknown kid may be a rotated key: one refresh, at most once per interval however many tokens ask.
      await refresh();
      entry = pick(keys!.entries);
    }
    if (entry === undefined) refuse('kid', `no one key of the issuer's set fits this kid and ${algorithm}`);
    let imported = entry.imported.get(algorithm);
    if (imported === undefined) {
      imported = crypto.subtle.importKey('jwk', publicJwk(entry.jwk), ALGORITHMS[algorithm].key, false, ['verify']);
      entry.imported.set(algorithm, imported);
    }
    const key = await imported.catch(() => refuse('kid', 'the key of the issuer cannot be imported'));
    const { modulusLength: bits, publicExponent } = key.algorithm as {
      modulusLength?: number;
      publicExponent?: Uint8Array;
    };
    if (bits !== undefined && bits < MIN_RSA_BITS) refuse('kid', `the RSA key is shorter than ${MIN_RSA_BITS} bits`);
    // An exponent of 1 (or an even one) makes every "signature" verify or none: only odd exponents of 3 and more.
    if (publicExponent !== undefined && !oddExponent(publicExponent))
      refuse('kid', 'the RSA key has an unusable exponent');
    return key;
  }

  /** A NumericDate claim (RFC 7519 §2): absent, or a finite number. */
  function numericDate(claims: Json, name: string): number | undefined {
    const value = claims[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      refuse(name, 'not a NumericDate');
    return value as number | undefined;
  }

  /** Every check of RFC 9068 §4 and RFC 7519 §7.2, in order; the payload is read only once the signature holds. */
  async function verify(token: string): Promise<AuthInfo> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH)
      refuse('token', `not a string of at most ${MAX_TOKEN_LENGTH} characters`);
    const parts = token.split('.');
    if (parts.length !== 3) refuse('token', 'not a JWS in compact serialization (three parts)');
    const [head, body, signature] = parts as [string, string, string];
    const header = jsonObject(head, 'header');
    const algorithm = header.alg;
    if (typeof algorithm !== 'string' || !allowed.has(algorithm))
      refuse('alg', `not one of the allowed algorithms (${[...allowed].join(', ')})`);
    if (header.crit !== undefined) refuse('crit', 'no critical header parameter is understood');
    if (typeof header.typ !== 'string' || mediaType(header.typ) !== wantedTyp) refuse('typ', `not ${typ}`);
    const kid = header.kid;
    if (kid !== undefined && typeof kid !== 'string') refuse('kid', 'not a string');
    const key = await keyFor(kid, algorithm as JwtAlgorithm);
    const signed = new TextEncoder().encode(`${head}.${body}`);
    const bytes = base64url(signature, 'signature');
    const valid = await crypto.subtle
      .verify(ALGORITHMS[algorithm as JwtAlgorithm].verify, key, bytes, signed)
      .catch(() => false);
    if (!valid) refuse('signature', 'does not verify with the key');

    const claims = jsonObject(body, 'payload');
    if (claims.iss !== issuer) refuse('iss', `not ${issuer}`);
    const aud = typeof claims.aud === 'string' ? [claims.aud] : claims.aud;
    if (!Array.isArray(aud) || !aud.every((value) => typeof value === 'string') || !aud.includes(audience))
      refuse('aud', `does not hold ${audience}`);
    const now = Date.now() / 1000;
    const exp = numericDate(claims, 'exp');
    if (exp === undefined) refuse('exp', 'missing (RFC 9068 §2.2)');
    // No leeway here: the guard refuses an `expiresAt` in the past too, and a client renews a token that expired.
    if (now >= exp) refuse('exp', 'the token has expired');
    const nbf = numericDate(claims, 'nbf');
    if (nbf !== undefined && now + skew < nbf) refuse('nbf', 'the token is not valid yet');
    const iat = numericDate(claims, 'iat');
    if (iat !== undefined && now + skew < iat) refuse('iat', 'the token was issued in the future');
    if (typeof claims.sub !== 'string') refuse('sub', 'missing or not a string');
    if (claims.client_id !== undefined && typeof claims.client_id !== 'string') refuse('client_id', 'not a string');
    if (claims.scope !== undefined && typeof claims.scope !== 'string') refuse('scope', 'not a string');
    const info: AuthInfo & { audience: string[] } = {
      subject: claims.sub,
      issuer,
      scopes: (claims.scope ?? '').split(' ').filter((scope) => scope !== ''),
      expiresAt: exp,
      audience: aud,
      extra: claims,
    };
    if (claims.client_id !== undefined) info.clientId = claims.client_id;
    return info;
  }

  return {
    async verifyToken(token) {
      try {
        return await verify(token);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refused(error);
        return undefined;
      }
    },
  };
}
