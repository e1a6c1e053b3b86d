// The JWT access-token verifier (jwt/jwt.ts, mcp-core/jwt): RFC 9068 tokens minted here with Web Crypto keys, verified
// against a JWK Set a loopback node:http server serves (counting its hits). Every check accepts and refuses: each
// algorithm, iss, aud, exp/nbf/iat with the clock skew, typ, kid, crit, alg none and algorithms not allowed (an HMAC
// over the RSA public key too), forged algs, strict base64url and JSON, the size bounds; the key set fetched once and
// shared by concurrent tokens, refreshed at most once per interval for unknown kids, rotated, expired and served stale
// within its bound; a JWKS endpoint down, slow or answering garbage (bounded, JwksUnavailableError); and serveHttp
// answering 200 and 401 invalid_token with it (and 503 when its JWKS endpoint is down). Time moves where the test moves
// the mocked Date; the only wait is the 50 ms jwksTimeoutMs the slow endpoints are given.

import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createServer } from '../core.ts';
import { serveHttp } from '../http.ts';
import { JwksUnavailableError, type JwtVerifierOptions, jwtVerifier } from '../jwt/jwt.ts';
import { MemoryLogger } from './harness.ts';
import {
  ALGORITHMS,
  AUDIENCE,
  b64,
  claims,
  ISSUER,
  type Json,
  jwksServer,
  mint,
  RSA,
  type Signer,
  signer,
} from './jwt-tokens.ts';
import { modernHeaders } from './raw-http.ts';
import { modern } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only

/** A verifier of this test's issuer and audience, logging to `logger`. */
function verifierOf(url: string, logger: MemoryLogger, options: Partial<JwtVerifierOptions> = {}) {
  return jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: url, logger, ...options });
}

test('a token of every algorithm verifies, and its claims become the AuthInfo', T, async (t) => {
  const signers = await Promise.all(ALGORITHMS.map((alg) => signer(alg)));
  const { state, url } = await jwksServer(
    t,
    signers.map(({ jwk }) => jwk),
  );
  const logger = new MemoryLogger();
  const { verifyToken } = verifierOf(url, logger);
  for (const key of signers) {
    const payload = claims({ tenant: 't1' });
    assert.deepEqual(
      await verifyToken(await mint(key, payload)),
      {
        subject: 'alice',
        clientId: 'client-1',
        issuer: ISSUER,
        scopes: ['mcp:tools', 'profile'],
        expiresAt: payload.exp,
        audience: [AUDIENCE],
        extra: payload,
      },
      key.alg,
    );
  }
  assert.equal(state.hits, 1, 'one fetch of the key set serves every token');
  assert.deepEqual(logger.warnings, []);
});

test('without a logger, a refusal is one line on stderr', T, async (t) => {
  const es = await signer('ES256');
  const { url } = await jwksServer(t, [es.jwk]);
  const lines: unknown[] = [];
  t.mock.method(console, 'error', (line: unknown) => void lines.push(line));
  const { verifyToken } = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: url });
  const token = await mint(es, claims({ iss: 'https://evil.example.com' }));
  assert.equal(await verifyToken(token), undefined);
  assert.deepEqual(lines, [`[mcp-core] mcp-core/jwt: bearer token refused: iss: not ${ISSUER}`]);
});

test(
  'a logger whose warn throws changes nothing: a refusal is still undefined, a failed fetch still 503',
  T,
  async (t) => {
    const es = await signer('ES256');
    const { state, url } = await jwksServer(t, [es.jwk]);
    const logger = {
      warn() {
        throw new Error('the logger broke');
      },
    };
    const { verifyToken } = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: url, logger });
    state.answer = (_request, response) => void response.writeHead(500).end();
    await assert.rejects(verifyToken(await mint(es)), JwksUnavailableError);
    const fresh = jwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: url, logger });
    state.answer = undefined;
    assert.equal(await fresh.verifyToken(await mint(es, claims({ iss: 'https://evil.example.com' }))), undefined);
  },
);

test(
  'an Ed25519 key as Web Crypto exports it (alg Ed25519) verifies EdDSA and Ed25519 tokens, nothing else',
  T,
  async (t) => {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as {
      privateKey: Signer['privateKey'];
      publicKey: Signer['privateKey'];
    };
    const exported = { ...(await crypto.subtle.exportKey('jwk', pair.publicKey)), kid: 'ed' };
    assert.equal(exported.alg, 'Ed25519');
    const es = await signer('ES256', 'ed');
    const { url } = await jwksServer(t, [exported as Json]);
    const logger = new MemoryLogger();
    const { verifyToken } = verifierOf(url, logger);
    for (const alg of ['EdDSA', 'Ed25519'] as const) {
      const key: Signer = { alg, kid: 'ed', privateKey: pair.privateKey, jwk: exported };
      assert.equal((await verifyToken(await mint(key)))?.subject, 'alice', alg);
    }
    assert.equal(await verifyToken(await mint(es)), undefined);
    assert.deepEqual(logger.warnings, [
      "mcp-core/jwt: bearer token refused: kid: no one key of the issuer's set fits this kid and ES256",
    ]);
  },
);

test('concurrent first tokens share one JWKS fetch; a token without kid uses the one key that fits', T, async (t) => {
  const es = await signer('ES256');
  const ed = await signer('EdDSA');
  const { state, url } = await jwksServer(t, [es.jwk, ed.jwk]);
  const logger = new MemoryLogger();
  const { verifyToken } = verifierOf(url, logger);
  const token = await mint(es);
  const infos = await Promise.all(Array.from({ length: 20 }, () => verifyToken(token)));
  assert.ok(infos.every((info) => info?.subject === 'alice'));
  assert.equal(state.hits, 1);
  // No kid: the one ES256 key fits (the Ed25519 key does not).
  const noKid = await mint(es, claims(), { kid: undefined });
  assert.equal((await verifyToken(noKid))?.subject, 'alice');
  // No claims beyond the required ones: no client_id, no scope.
  const bare = await verifyToken(await mint(es, { iss: ISSUER, aud: AUDIENCE, sub: 'bob', exp: 4_000_000_000 }));
  assert.deepEqual(bare, {
    subject: 'bob',
    issuer: ISSUER,
    scopes: [],
    expiresAt: 4_000_000_000,
    audience: [AUDIENCE],
    extra: { iss: ISSUER, aud: AUDIENCE, sub: 'bob', exp: 4_000_000_000 },
  });
  assert.deepEqual(logger.warnings, []);
});

test('each failed check refuses the token with a reason naming the check, never the token', T, async (t) => {
  const rs = await signer('RS256');
  const es = await signer('ES256');
  const second = await signer('ES256', 'second');
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const weak: Signer = {
    alg: 'RS256',
    kid: 'weak',
    privateKey: await crypto.subtle.importKey(
      'jwk',
      small.privateKey.export({ format: 'jwk' }),
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['sign'],
    ),
    jwk: { ...small.publicKey.export({ format: 'jwk' }), kid: 'weak' },
  };
  const unalgorithmed = { ...rs.jwk, kid: 'any-rsa', alg: undefined };
  const broken = { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', kid: 'broken' };
  const p384 = await signer('ES384');
  // Keys that name no alg: only their kty and crv say which algorithms fit them.
  const loose = [
    { ...es.jwk, kid: 'ec-no-alg', alg: undefined },
    { ...p384.jwk, kid: 'p384-no-alg', alg: undefined },
    { ...rs.jwk, kid: 'rsa-named-eddsa', alg: 'EdDSA' }, // inconsistent: an RSA key that names an Ed25519 algorithm
  ];
  const skipped: unknown[] = [
    { ...es.jwk, kid: 'enc', use: 'enc' },
    { ...es.jwk, kid: 'ops', key_ops: ['encrypt'] },
    { ...es.jwk, kid: 'ops-string', key_ops: 'verify' },
    { ...es.jwk, kid: 7 },
    { kty: 'oct', k: 'c2VjcmV0', kid: 'oct' },
    'not a key',
  ];
  const { url } = await jwksServer(t, [
    rs.jwk,
    es.jwk,
    second.jwk,
    weak.jwk,
    unalgorithmed,
    broken,
    ...loose,
    ...(skipped as Json[]),
  ]);
  const logger = new MemoryLogger();
  const { verifyToken } = verifierOf(url, logger, { jwksRefreshIntervalMs: 3_600_000 });
  const now = Math.floor(Date.now() / 1000);
  const [head, body] = (await mint(rs)).split('.') as [string, string];
  const hs256 = (() => {
    // HS256 keyed with the RSA public key (the classic key confusion).
    const h = b64(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: rs.kid }));
    const secret = RSA.publicKey.export({ format: 'pem', type: 'spki' });
    return `${h}.${body}.${createHmac('sha256', secret).update(`${h}.${body}`).digest('base64url')}`;
  })();
  const forged = await mint(rs, claims(), { alg: 'PS256' }); // signed RS256, header says PS256
  const reheaded = await mint(rs, claims(), { kid: 'any-rsa' });
  const forgedHead = b64(JSON.stringify({ alg: 'PS256', typ: 'at+jwt', kid: 'any-rsa' }));
  const forgedNoAlg = `${forgedHead}.${reheaded.split('.').slice(1).join('.')}`;
  const cases: [string, string | Promise<string>, string][] = [
    ['expired', mint(es, claims({ exp: now - 120 })), 'exp: the token has expired'],
    ['exp missing', mint(es, claims({ exp: undefined })), 'exp: missing (RFC 9068 §2.2)'],
    ['exp not a number', mint(es, claims({ exp: `${now + 300}` })), 'exp: not a NumericDate'],
    ['nbf in the future', mint(es, claims({ nbf: now + 120 })), 'nbf: the token is not valid yet'],
    ['nbf not a number', mint(es, claims({ nbf: null })), 'nbf: not a NumericDate'],
    ['iat in the future', mint(es, claims({ iat: now + 120 })), 'iat: the token was issued in the future'],
    ['another issuer', mint(es, claims({ iss: 'https://evil.example.com' })), `iss: not ${ISSUER}`],
    ['another audience', mint(es, claims({ aud: 'https://other.example.com/mcp' })), `aud: does not hold ${AUDIENCE}`],
    [
      'an audience array without ours',
      mint(es, claims({ aud: ['https://a.example', 'https://b.example'] })),
      `aud: does not hold ${AUDIENCE}`,
    ],
    ['an audience of numbers', mint(es, claims({ aud: [1, AUDIENCE] })), `aud: does not hold ${AUDIENCE}`],
    ['no audience', mint(es, claims({ aud: undefined })), `aud: does not hold ${AUDIENCE}`],
    ['no sub', mint(es, claims({ sub: undefined })), 'sub: missing or not a string'],
    ['client_id not a string', mint(es, claims({ client_id: 5 })), 'client_id: not a string'],
    ['scope not a string', mint(es, claims({ scope: ['mcp:tools'] })), 'scope: not a string'],
    ['typ JWT (an ID token)', mint(es, claims(), { typ: 'JWT' }), 'typ: not at+jwt'],
    ['no typ', mint(es, claims(), { typ: undefined }), 'typ: not at+jwt'],
    [
      'alg none',
      `${b64(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${body}.`,
      'alg: not one of the allowed algorithms (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)',
    ],
    [
      'HS256 over the RSA public key',
      hs256,
      'alg: not one of the allowed algorithms (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)',
    ],
    [
      'no alg',
      mint(es, claims(), { alg: undefined }),
      'alg: not one of the allowed algorithms (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)',
    ],
    ['a forged alg its key does not allow', forged, "kid: no one key of the issuer's set fits this kid and PS256"],
    ['a forged alg on a key that names none', forgedNoAlg, 'signature: does not verify with the key'],
    [
      'an RS256 token naming an RSA key whose alg is EdDSA',
      mint(rs, claims(), { kid: 'rsa-named-eddsa' }),
      "kid: no one key of the issuer's set fits this kid and RS256",
    ],
    [
      'an RS256 token naming an EC key that names no alg',
      mint(rs, claims(), { kid: 'ec-no-alg' }),
      "kid: no one key of the issuer's set fits this kid and RS256",
    ],
    [
      'an ES256 token naming a P-384 key that names no alg',
      mint(es, claims(), { kid: 'p384-no-alg' }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    [
      'an ES256 kid claimed by an RS256 token',
      mint(rs, claims(), { kid: es.kid }),
      "kid: no one key of the issuer's set fits this kid and RS256",
    ],
    [
      'no kid, two fitting keys',
      mint(es, claims(), { kid: undefined }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    ['a kid not a string', mint(es, claims(), { kid: 7 }), 'kid: not a string'],
    [
      'a key set entry for encryption',
      mint(es, claims(), { kid: 'enc' }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    [
      'a key whose key_ops do not verify',
      mint(es, claims(), { kid: 'ops' }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    [
      'a key with malformed key_ops',
      mint(es, claims(), { kid: 'ops-string' }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    [
      'a symmetric key',
      mint(es, claims(), { kid: 'oct' }),
      "kid: no one key of the issuer's set fits this kid and ES256",
    ],
    [
      'a key that cannot be imported',
      mint(await signer('EdDSA', 'broken'), claims()),
      'kid: the key of the issuer cannot be imported',
    ],
    ['an RSA key of 1024 bits', mint(weak), 'kid: the RSA key is shorter than 2048 bits'],
    ['crit', mint(es, claims(), { crit: ['exp'] }), 'crit: no critical header parameter is understood'],
    [
      'a tampered payload',
      `${head}.${b64(JSON.stringify(claims({ sub: 'mallory' })))}.${(await mint(rs)).split('.')[2]}`,
      'signature: does not verify with the key',
    ],
    [
      'a signature of another key',
      `${(await mint(second)).split('.').slice(0, 2).join('.')}.${(await mint(es)).split('.')[2]}`,
      'signature: does not verify with the key',
    ],
    ['two parts', `${head}.${body}`, 'token: not a JWS in compact serialization (three parts)'],
    ['five parts (a JWE)', 'a.b.c.d.e', 'token: not a JWS in compact serialization (three parts)'],
    ['too long', `${head}.${'A'.repeat(16 * 1024)}.x`, 'token: not a string of at most 16384 characters'],
    ['standard base64 in the header', `${head}+.${body}.x`, 'header: not base64url'],
    ['padding', `${head}==.${body}.x`, 'header: not base64url'],
    ['a length no base64url has', `${head}A.${body}.x`, 'header: not canonical base64url'],
    ['non-zero unused bits', `${b64('{"a":1}').slice(0, -1)}z.${body}.x`, 'header: not canonical base64url'],
    ['a header that is not JSON', `${b64('{alg')}.${body}.x`, 'header: not a JSON object'],
    ['a header that is an array', `${b64('["ES256"]')}.${body}.x`, 'header: not a JSON object'],
    ['a header that is not UTF-8', `${b64(new Uint8Array([0x7b, 0xff, 0x7d]))}.${body}.x`, 'header: not a JSON object'],
    ['a signature not base64url', `${head}.${body}.a/b`, 'signature: not base64url'],
    ['a signed payload that is not JSON', mint(es, 'not json'), 'payload: not a JSON object'],
  ];
  for (const [name, token, reason] of cases) {
    const text = await token;
    logger.warnings.length = 0;
    // A verifier of its own per case: one logs a check's refusal once a minute at most (the next test).
    const { verifyToken } = verifierOf(url, logger, { jwksRefreshIntervalMs: 3_600_000 });
    assert.equal(await verifyToken(text), undefined, name);
    assert.deepEqual(logger.warnings, [`mcp-core/jwt: bearer token refused: ${reason}`], name);
  }
  logger.warnings.length = 0;
  assert.equal(await verifyToken(42 as never), undefined);
  assert.deepEqual(logger.warnings, [
    'mcp-core/jwt: bearer token refused: token: not a string of at most 16384 characters',
  ]);
});

test('the clock skew: nbf and iat within it pass, exp has none; typ is compared as a media type', T, async (t) => {
  const es = await signer('ES256');
  const { url } = await jwksServer(t, [es.jwk]);
  const logger = new MemoryLogger();
  const now = Math.floor(Date.now() / 1000);
  const lenient = verifierOf(url, logger);
  for (const extra of [{ nbf: now + 30 }, { iat: now + 30 }])
    assert.equal((await lenient.verifyToken(await mint(es, claims(extra))))?.subject, 'alice', JSON.stringify(extra));
  for (const typ of ['application/at+jwt', 'AT+JWT', 'Application/AT+JWT'])
    assert.equal((await lenient.verifyToken(await mint(es, claims(), { typ })))?.subject, 'alice', typ);
  assert.equal(await lenient.verifyToken(await mint(es, claims({ exp: now }))), undefined);
  const strict = verifierOf(url, logger, { clockSkewSeconds: 0 });
  assert.equal(await strict.verifyToken(await mint(es, claims({ nbf: now + 30 }))), undefined);
  assert.deepEqual(logger.warnings, [
    'mcp-core/jwt: bearer token refused: exp: the token has expired',
    'mcp-core/jwt: bearer token refused: nbf: the token is not valid yet',
  ]);
  // An issuer that types its access tokens otherwise, and a narrower algorithm list.
  logger.warnings.length = 0;
  const typed = verifierOf(url, logger, { typ: 'JWT', algorithms: ['EdDSA'] });
  assert.equal(await typed.verifyToken(await mint(es, claims(), { typ: 'JWT' })), undefined);
  assert.deepEqual(logger.warnings, [
    'mcp-core/jwt: bearer token refused: alg: not one of the allowed algorithms (EdDSA)',
  ]);
});

test(
  'an unknown kid refreshes the key set once; a flood of unknown kids fetches at most once per interval',
  T,
  async (t) => {
    const es = await signer('ES256');
    const { state, url } = await jwksServer(t, [es.jwk]);
    const logger = new MemoryLogger();
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { verifyToken } = verifierOf(url, logger, { jwksRefreshIntervalMs: 30_000 });
    assert.equal((await verifyToken(await mint(es)))?.subject, 'alice');
    assert.equal(state.hits, 1);
    t.mock.timers.tick(30_000);
    const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => mint({ ...es, kid: `attacker-${i}` })));
    assert.deepEqual(
      await Promise.all(tokens.map((token) => verifyToken(token))),
      tokens.map(() => undefined),
    );
    assert.equal(state.hits, 2, 'the first unknown kid refreshed; the 199 others joined it or waited for the interval');
    for (const token of tokens.slice(0, 50)) assert.equal(await verifyToken(token), undefined);
    assert.equal(state.hits, 2, 'within the interval no token fetches');
    t.mock.timers.tick(29_999);
    assert.equal(await verifyToken(tokens[0]!), undefined);
    assert.equal(state.hits, 2);
    t.mock.timers.tick(1);
    assert.equal(await verifyToken(tokens[0]!), undefined);
    assert.equal(state.hits, 3, 'one more fetch once the interval has passed');
    // 252 refusals of one check within a minute: one line; the first after the minute counts the others.
    const refusal = "mcp-core/jwt: bearer token refused: kid: no one key of the issuer's set fits this kid and ES256";
    assert.deepEqual(logger.warnings, [refusal]);
    t.mock.timers.tick(30_000);
    assert.equal(await verifyToken(tokens[0]!), undefined);
    assert.deepEqual(logger.warnings, [refusal, `${refusal} (251 more refused so since the last line)`]);
  },
);

test(
  'a rotated key: the new kid is accepted after one refresh, the dropped one refused, with no restart',
  T,
  async (t) => {
    const old = await signer('EdDSA', 'old');
    const rotated = await signer('EdDSA', 'new');
    const { state, url } = await jwksServer(t, [old.jwk]);
    const logger = new MemoryLogger();
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { verifyToken } = verifierOf(url, logger);
    const oldToken = await mint(old, claims({ exp: Math.floor(Date.now() / 1000) + 3600 }));
    assert.equal((await verifyToken(oldToken))?.subject, 'alice');
    state.keys = [rotated.jwk];
    t.mock.timers.tick(30_000); // the default refresh interval
    const rotatedToken = await mint(rotated, claims({ exp: Math.floor(Date.now() / 1000) + 3600 }));
    assert.equal((await verifyToken(rotatedToken))?.subject, 'alice');
    assert.equal(state.hits, 2);
    assert.equal(await verifyToken(oldToken), undefined);
    assert.deepEqual(logger.warnings, [
      "mcp-core/jwt: bearer token refused: kid: no one key of the issuer's set fits this kid and EdDSA",
    ]);
    // Past its age the set is fetched again though every kid is known: a key removed from it goes with no unknown kid.
    state.keys = [old.jwk];
    t.mock.timers.tick(599_999);
    assert.equal((await verifyToken(rotatedToken))?.subject, 'alice');
    assert.equal(state.hits, 2);
    t.mock.timers.tick(1);
    assert.equal(await verifyToken(rotatedToken), undefined);
    assert.equal(state.hits, 3);
    assert.equal((await verifyToken(oldToken))?.subject, 'alice');
  },
);

test('a key set past its age is used while the endpoint fails, up to twice its age, then 503', T, async (t) => {
  const es = await signer('ES256');
  const { state, url } = await jwksServer(t, [es.jwk]);
  const logger = new MemoryLogger();
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const { verifyToken } = verifierOf(url, logger, { jwksMaxAgeMs: 60_000, jwksRefreshIntervalMs: 10_000 });
  const token = await mint(es, claims({ exp: Math.floor(Date.now() / 1000) + 3600 }));
  assert.equal((await verifyToken(token))?.subject, 'alice');
  state.answer = (_request, response) => void response.writeHead(500).end();
  t.mock.timers.tick(60_000);
  assert.equal((await verifyToken(token))?.subject, 'alice', 'stale, served');
  assert.equal(state.hits, 2);
  assert.deepEqual(logger.warnings, [`mcp-core/jwt: fetching the key set of ${url} failed: the endpoint answered 500`]);
  t.mock.timers.tick(59_999);
  assert.equal((await verifyToken(token))?.subject, 'alice', 'just under twice its age');
  assert.equal(state.hits, 3);
  t.mock.timers.tick(1);
  await assert.rejects(verifyToken(token), {
    name: 'JwksUnavailableError',
    status: 503,
    retryAfterSeconds: 10,
    message: `mcp-core/jwt: no usable key set from ${url} (the endpoint answered 500)`,
  });
  assert.equal(state.hits, 3, 'within the interval the failing endpoint is not asked again');
  t.mock.timers.tick(9_500);
  await assert.rejects(verifyToken(token), { retryAfterSeconds: 1 });
  state.answer = undefined;
  t.mock.timers.tick(500);
  assert.equal((await verifyToken(token))?.subject, 'alice', 'recovered at the next attempt');
  assert.equal(state.hits, 4);
});

test(
  'a JWKS endpoint that refuses connections: JwksUnavailableError at once, one attempt per interval',
  T,
  async () => {
    const es = await signer('ES256');
    // A port nothing listens on: one a server had, closed.
    const probe = createNodeServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const down = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/jwks`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    let attempts = 0;
    const logger = new MemoryLogger();
    const { verifyToken } = verifierOf(down, logger, {
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    const token = await mint(es);
    const failure = await verifyToken(token).then(
      () => assert.fail('resolved'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof JwksUnavailableError);
    assert.equal(failure.retryAfterSeconds, 30);
    assert.equal(failure.message, `mcp-core/jwt: no usable key set from ${down} (fetch failed)`);
    await assert.rejects(verifyToken(token), JwksUnavailableError);
    assert.equal(attempts, 1);
    assert.equal(logger.warnings.length, 1);
  },
);

test('a JWKS endpoint that never answers, or stalls its body, is bounded by jwksTimeoutMs', T, async (t) => {
  const es = await signer('ES256');
  const { state, url, never } = await jwksServer(t, [es.jwk]);
  const logger = new MemoryLogger();
  state.answer = never;
  const silent = verifierOf(url, logger, { jwksTimeoutMs: 50 });
  const token = await mint(es);
  await assert.rejects(silent.verifyToken(token), {
    name: 'JwksUnavailableError',
    message: /^mcp-core\/jwt: no usable key set from .* \(The operation was aborted due to timeout\)$/,
  });
  state.answer = (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"keys": [');
    never(_request, response);
  };
  const stalled = verifierOf(url, logger, { jwksTimeoutMs: 50 });
  await assert.rejects(stalled.verifyToken(token), {
    name: 'JwksUnavailableError',
    message: /^mcp-core\/jwt: no usable key set from .* \(The operation was aborted due to timeout\)$/,
  });
  assert.equal(state.hits, 2);
});

test(
  'a JWKS answer that is not a usable JWK Set is refused: status, size, JSON, shape, key count, no body',
  T,
  async (t) => {
    const es = await signer('ES256');
    const { state, url } = await jwksServer(t, []);
    const token = await mint(es);
    const answers: [string, (request: IncomingMessage, response: ServerResponse) => void][] = [
      ['the endpoint answered 404', (_q, r) => void r.writeHead(404).end('no')],
      [
        'the key set is larger than 65536 bytes',
        (_q, r) => void r.writeHead(200).end(JSON.stringify({ keys: [es.jwk], pad: 'x'.repeat(64 * 1024) })),
      ],
      ['the answer is not a JWK Set', (_q, r) => void r.writeHead(200).end('{"keys": ')],
      ['the answer is not a JWK Set', (_q, r) => void r.writeHead(200).end('{"keys": {}}')],
      ['the answer is not a JWK Set', (_q, r) => void r.writeHead(200).end('[]')],
      [
        'the key set holds more than 100 signature keys',
        (_q, r) => void r.writeHead(200).end(JSON.stringify({ keys: Array.from({ length: 101 }, () => es.jwk) })),
      ],
    ];
    for (const [reason, answer] of answers) {
      state.answer = answer;
      const logger = new MemoryLogger();
      await assert.rejects(verifierOf(url, logger).verifyToken(token), {
        name: 'JwksUnavailableError',
        message: `mcp-core/jwt: no usable key set from ${url} (${reason})`,
      });
      assert.deepEqual(logger.warnings, [`mcp-core/jwt: fetching the key set of ${url} failed: ${reason}`]);
    }
    // Exactly 100 keys and 64 KiB are within the bounds.
    state.answer = undefined;
    state.keys = [...Array.from({ length: 99 }, (_, i) => ({ ...es.jwk, kid: `k${i}` })), es.jwk];
    assert.equal((await verifierOf(url, new MemoryLogger()).verifyToken(token))?.subject, 'alice');
    const nobody = verifierOf(url, new MemoryLogger(), {
      fetch: async () => new Response(null, { status: 200 }),
    });
    await assert.rejects(nobody.verifyToken(token), {
      message: `mcp-core/jwt: no usable key set from ${url} (the endpoint answered 200 without a body)`,
    });
    const thrower = verifierOf(url, new MemoryLogger(), {
      fetch: () => Promise.reject('a string'), // not an Error: the reason is its text
    });
    await assert.rejects(thrower.verifyToken(token), {
      message: `mcp-core/jwt: no usable key set from ${url} (a string)`,
    });
  },
);

test('options it cannot work with throw at startup', () => {
  const base = { issuer: ISSUER, audience: AUDIENCE, jwksUri: 'https://as.example.com/jwks' };
  assert.equal(typeof jwtVerifier(base).verifyToken, 'function');
  assert.equal(typeof jwtVerifier({ ...base, jwksUri: 'http://localhost:8080/jwks' }).verifyToken, 'function');
  assert.equal(typeof jwtVerifier({ ...base, jwksUri: 'http://[::1]/jwks' }).verifyToken, 'function');
  const wrong: [Partial<JwtVerifierOptions>, RegExp][] = [
    [{ issuer: '' }, /issuer must be a non-empty string/],
    [{ audience: 1 as never }, /audience must be a non-empty string/],
    [{ jwksUri: '/jwks' }, /Invalid URL/],
    [{ jwksUri: 'http://as.example.com/jwks' }, /jwksUri must be an https URL/],
    [{ jwksUri: 'file:///etc/jwks' }, /jwksUri must be an https URL/],
    [{ algorithms: [] }, /algorithms must be some of RS256/],
    [{ algorithms: ['HS256' as never] }, /algorithms must be some of RS256/],
    [{ algorithms: ['toString' as never] }, /algorithms must be some of RS256/],
    [{ clockSkewSeconds: 301 }, /clockSkewSeconds must be an integer from 0 to 300/],
    [{ clockSkewSeconds: -1 }, /clockSkewSeconds must be an integer from 0 to 300/],
    [{ jwksRefreshIntervalMs: 0 }, /jwksRefreshIntervalMs must be an integer from 1 to 3600000/],
    [{ jwksRefreshIntervalMs: 3_600_001 }, /jwksRefreshIntervalMs must be an integer from 1 to 3600000/],
    [{ jwksMaxAgeMs: 1.5 }, /jwksMaxAgeMs must be an integer from 1 to 86400000/],
    [{ jwksTimeoutMs: Number.NaN }, /jwksTimeoutMs must be an integer from 1 to 60000/],
    [{ jwksTimeoutMs: 60_001 }, /jwksTimeoutMs must be an integer from 1 to 60000/],
  ];
  for (const [options, message] of wrong) assert.throws(() => jwtVerifier({ ...base, ...options }), message);
});

test(
  'serveHttp with the verifier: 200 for a valid token, 401 invalid_token for an expired or foreign one',
  T,
  async (t) => {
    const rs = await signer('PS256');
    const { url } = await jwksServer(t, [rs.jwk]);
    const logger = new MemoryLogger();
    const verifier = verifierOf(url, logger);
    const server = createServer({ name: 'jwt-test', version: '1.0.0' }, { logger });
    server.tool('whoami', {}, (_args, ctx) => ({ content: [{ type: 'text', text: ctx.auth?.subject ?? '' }] }));
    const http = await serveHttp(server, {
      port: 0,
      auth: {
        verifyToken: verifier.verifyToken,
        resourceMetadata: { resource: AUDIENCE, authorization_servers: [ISSUER] },
      },
    });
    t.after(() => http.close());
    const frame = modern('tools/call', { name: 'whoami', arguments: {} }, 1);
    const post = (token: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: { ...modernHeaders(frame), authorization: `Bearer ${token}` },
        body: JSON.stringify(frame),
      });
    const ok = await post(await mint(rs));
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text, 'alice');
    const now = Math.floor(Date.now() / 1000);
    for (const token of [
      await mint(rs, claims({ exp: now - 3600 })),
      await mint(rs, claims({ aud: 'https://other.example.com/mcp' })),
    ]) {
      const refused = await post(token);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
      await refused.body?.cancel();
    }
    assert.deepEqual(logger.warnings, [
      'mcp-core/jwt: bearer token refused: exp: the token has expired',
      `mcp-core/jwt: bearer token refused: aud: does not hold ${AUDIENCE}`,
    ]);
  },
);

test(
  'serveHttp with the verifier and its JWKS endpoint down: 503 with Retry-After, not 401, and logged',
  T,
  async (t) => {
    const es = await signer('ES256');
    const probe = createNodeServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const down = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/jwks`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const logger = new MemoryLogger();
    const verifier = verifierOf(down, logger);
    const server = createServer({ name: 'jwt-test', version: '1.0.0' }, { logger });
    server.tool('whoami', {}, () => ({ content: [] }));
    const http = await serveHttp(server, {
      port: 0,
      auth: {
        verifyToken: verifier.verifyToken,
        resourceMetadata: { resource: AUDIENCE, authorization_servers: [ISSUER] },
      },
    });
    t.after(() => http.close());
    const frame = modern('tools/call', { name: 'whoami', arguments: {} }, 1);
    const response = await fetch(http.url, {
      method: 'POST',
      headers: { ...modernHeaders(frame), authorization: `Bearer ${await mint(es)}` },
      body: JSON.stringify(frame),
    });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '30');
    assert.equal(response.headers.get('www-authenticate'), null, 'no invalid_token: the client keeps its token');
    assert.deepEqual(await response.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Service Unavailable: the bearer token cannot be verified now' },
    });
    assert.equal(logger.errors.length, 1);
    assert.ok(logger.errors[0]!.error instanceof JwksUnavailableError);
  },
);

test('a JWKS endpoint that redirects is not followed: the keys behind the redirect are never used', T, async (t) => {
  const es = await signer('ES256');
  const target = await jwksServer(t, [es.jwk]); // the keys a redirect would lead to
  const origin = await jwksServer(t, []);
  origin.state.answer = (_request, response) => void response.writeHead(301, { location: target.url }).end();
  const logger = new MemoryLogger();
  const token = await mint(es);
  await assert.rejects(verifierOf(origin.url, logger).verifyToken(token), JwksUnavailableError);
  assert.equal(target.state.hits, 0, 'the redirect was not followed');
  assert.match(logger.warnings[0]!, /failed: the endpoint answered 301$/);
  // A fetch of the caller's that follows anyway: what it brings back after a redirect is refused all the same.
  const following: JwtVerifierOptions['fetch'] = async (url, init) => {
    const response = await fetch(url, { ...init, redirect: 'follow' });
    return response;
  };
  const followed = verifierOf(origin.url, logger, { fetch: following });
  await assert.rejects(followed.verifyToken(token), JwksUnavailableError);
  assert.equal(target.state.hits, 1);
  assert.match(logger.warnings.at(-1)!, /failed: the endpoint answered 200 after a redirect$/);
});

test('an RSA key whose exponent is 1 or even verifies nothing: the token is refused naming the key', T, async (t) => {
  const rs = await signer('RS256');
  const { url } = await jwksServer(t, [
    { ...rs.jwk, kid: 'e1', e: 'AQ' },
    { ...rs.jwk, kid: 'e-even', e: 'AQAC' },
  ]);
  const logger = new MemoryLogger();
  for (const kid of ['e1', 'e-even']) {
    const { verifyToken } = verifierOf(url, logger);
    assert.equal(await verifyToken(await mint({ ...rs, kid })), undefined, kid);
    assert.equal(
      logger.warnings.at(-1),
      'mcp-core/jwt: bearer token refused: kid: the RSA key has an unusable exponent',
    );
  }
});
