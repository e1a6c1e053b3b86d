// Tokens and a JWK Set for the JWT verifier's tests (test/jwt.test.ts, test/jwt-runtimes.test.ts): signing keys of
// every algorithm (Web Crypto; the RSA ones share one node:crypto 2048-bit pair), RFC 9068 claims valid now, compact
// JWS minted over them, and a loopback node:http JWKS endpoint that counts its hits and can be told how to answer.

import { generateKeyPairSync } from 'node:crypto';
import { createServer as createNodeServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { JwtAlgorithm } from '../jwt/jwt.ts';

export const ISSUER = 'https://as.example.com';
export const AUDIENCE = 'https://mcp.example.com/mcp';
export const ALGORITHMS: JwtAlgorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export type Key = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
export type Json = Record<string, unknown>;

export const RSA = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PRIVATE = RSA.privateKey.export({ format: 'jwk' });
const RSA_PUBLIC = RSA.publicKey.export({ format: 'jwk' });

/** How each algorithm signs: the key's import parameters, the signing parameters, a curve to generate. */
export function signing(alg: JwtAlgorithm): { importAs?: Json; generate?: Json; sign: Json } {
  const bits = alg.slice(2);
  if (alg.startsWith('RS'))
    return { importAs: { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${bits}` }, sign: { name: 'RSASSA-PKCS1-v1_5' } };
  if (alg.startsWith('PS'))
    return {
      importAs: { name: 'RSA-PSS', hash: `SHA-${bits}` },
      sign: { name: 'RSA-PSS', saltLength: Number(bits) / 8 },
    };
  if (alg === 'EdDSA' || alg === 'Ed25519') return { generate: { name: 'Ed25519' }, sign: { name: 'Ed25519' } };
  const curve = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg as 'ES256'];
  return { generate: { name: 'ECDSA', namedCurve: curve }, sign: { name: 'ECDSA', hash: `SHA-${bits}` } };
}

export interface Signer {
  alg: JwtAlgorithm;
  kid: string;
  privateKey: Key;
  /** The public JWK as a JWK Set carries it. */
  jwk: Json;
}

/** A signing key for `alg` (the RSA algorithms share one 2048-bit key pair) and its public JWK. */
export async function signer(alg: JwtAlgorithm, kid = `${alg}-key`): Promise<Signer> {
  const { importAs, generate } = signing(alg);
  if (importAs !== undefined) {
    const privateKey = await crypto.subtle.importKey('jwk', RSA_PRIVATE, importAs as never, false, ['sign']);
    return { alg, kid, privateKey, jwk: { ...RSA_PUBLIC, kid, alg, use: 'sig' } };
  }
  const pair = (await crypto.subtle.generateKey(generate as never, true, ['sign', 'verify'])) as {
    privateKey: Key;
    publicKey: Key;
  };
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { alg, kid, privateKey: pair.privateKey, jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg } };
}

export const b64 = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');

/** Claims valid now. */
export function claims(extra: Json = {}): Json {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'alice',
    client_id: 'client-1',
    scope: 'mcp:tools profile',
    exp: now + 300,
    iat: now,
    jti: 'j1',
    ...extra,
  };
}

/** A compact JWS: `header` overrides the signer's {alg, kid, typ}; a raw `payload` string is signed as it is. */
export async function mint(key: Signer, payload: Json | string = claims(), header: Json = {}): Promise<string> {
  const head = b64(JSON.stringify({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header }));
  const body = b64(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const signature = await crypto.subtle.sign(
    signing(key.alg).sign as never,
    key.privateKey,
    new TextEncoder().encode(`${head}.${body}`),
  );
  return `${head}.${body}.${b64(new Uint8Array(signature))}`;
}

/** A loopback JWKS endpoint: serves `state.keys` (or what `state.answer` does), counting its hits. */
export async function jwksServer(t: TestContext, keys: Json[]) {
  const state = {
    keys,
    hits: 0,
    answer: undefined as ((request: IncomingMessage, response: ServerResponse) => void) | undefined,
  };
  const held: ServerResponse[] = [];
  const server = createNodeServer((request, response) => {
    state.hits++;
    if (state.answer !== undefined) return state.answer(request, response);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  /** An answer that never comes: the response is held until the test ends. */
  const never = (_request: IncomingMessage, response: ServerResponse) => void held.push(response);
  return { state, url, never };
}
