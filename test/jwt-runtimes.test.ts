// mcp-core/jwt on the other runtimes the README promises, against a loopback JWK Set this test serves: under Bun and
// Deno (their devDependencies) test/jwt-runtime-check.ts verifies a token of each algorithm family and refuses an
// expired one, one for another audience and one of an unknown kid; in Cloudflare's workerd (Miniflare, no
// `nodejs_compat`), test/jwt-worker.ts, bundled from the sources, serves createFetchHandler with the verifier: 200 with
// a valid token, 401 invalid_token with an expired one. Web Crypto and the runtime's fetch only. A runtime that cannot
// run fails its test, never skips.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { AUDIENCE, claims, ISSUER, jwksServer, mint, type Signer, signer } from './jwt-tokens.ts';
import { modernHeaders } from './raw-http.ts';
import { modern } from './wire.ts';

const T = { timeout: 60_000 }; // a safety net against hangs only
const require = createRequire(import.meta.url);
const CHECK = fileURLToPath(new URL('./jwt-runtime-check.ts', import.meta.url));
const WORKER = fileURLToPath(new URL('./jwt-worker.ts', import.meta.url));

/** A runtime's executable from its devDependency: the package's `bin`, or `binary` beside its package.json. */
function executable(pkg: string, binary?: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = binary ?? (typeof manifest.bin === 'string' ? manifest.bin : Object.values<string>(manifest.bin)[0]!);
  return join(dirname(manifestPath), bin);
}

/** Keys of each family (RSA PKCS#1 and PSS, ECDSA, EdDSA) and the tokens: four valid, three refused. */
async function tokens(): Promise<{ keys: Signer[]; valid: string[]; refused: string[] }> {
  const keys = await Promise.all((['RS256', 'PS256', 'ES256', 'EdDSA'] as const).map((alg) => signer(alg)));
  const now = Math.floor(Date.now() / 1000);
  const es = keys[2]!;
  return {
    keys,
    valid: await Promise.all(keys.map((key) => mint(key, claims({ sub: key.alg })))),
    refused: [
      await mint(es, claims({ exp: now - 3600 })),
      await mint(es, claims({ aud: 'https://other.example.com/mcp' })),
      await mint({ ...es, kid: 'unknown' }),
    ],
  };
}

const REFUSALS = [
  'mcp-core/jwt: bearer token refused: exp: the token has expired',
  `mcp-core/jwt: bearer token refused: aud: does not hold ${AUDIENCE}`,
  "mcp-core/jwt: bearer token refused: kid: no one key of the issuer's set fits this kid and ES256",
];

for (const [name, command, args] of [
  ['Bun', () => executable('bun'), ['run']],
  ['Deno', () => executable('deno', 'deno'), ['run', '--allow-net=127.0.0.1']],
] as const) {
  test(
    `${name} verifies RS256, PS256, ES256 and EdDSA tokens and refuses expired, foreign and unknown-kid ones`,
    T,
    async (t) => {
      const { keys, valid, refused } = await tokens();
      const { state, url } = await jwksServer(
        t,
        keys.map(({ jwk }) => jwk),
      );
      const input = JSON.stringify({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUri: url,
        tokens: [...valid, ...refused],
      });
      const { stdout } = await promisify(execFile)(command(), [...args, CHECK, input], { timeout: 30_000 });
      assert.deepEqual(JSON.parse(stdout), {
        verdicts: ['RS256', 'PS256', 'ES256', 'EdDSA', null, null, null],
        refusals: REFUSALS,
      });
      assert.equal(state.hits, 1, 'one fetch: the unknown kid came within the refresh interval');
    },
  );
}

test(
  'in workerd, createFetchHandler with the verifier answers 200 to a valid token and 401 to an expired one',
  T,
  async (t) => {
    const { keys, valid, refused } = await tokens();
    const { url } = await jwksServer(
      t,
      keys.map(({ jwk }) => jwk),
    );
    const dir = mkdtempSync(join(tmpdir(), 'mcp-core-jwt-worker-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, 'worker.mjs');
    const result = await build({
      entryPoints: [WORKER],
      outfile: script,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      external: ['node:*'],
      metafile: true,
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map(({ path }) => path));
    assert.deepEqual(imports, [], 'the Worker imports no node: built-in');
    const logged: string[] = [];
    const miniflare = new Miniflare({
      scriptPath: script,
      modules: true,
      modulesRoot: dir,
      compatibilityDate: '2026-07-01',
      compatibilityFlags: [],
      bindings: { JWKS_URI: url },
      host: '127.0.0.1',
      port: 0,
      handleStructuredLogs: ({ message }: { message: string }) => void logged.push(message),
    });
    t.after(() => miniflare.dispose());
    const endpoint = new URL('/mcp', await miniflare.ready);
    const call = async (token: string) => {
      const frame = modern('tools/call', { name: 'whoami', arguments: {} }, 1);
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { ...modernHeaders(frame), authorization: `Bearer ${token}` },
        body: JSON.stringify(frame),
      });
      return {
        status: response.status,
        challenge: response.headers.get('www-authenticate'),
        body: await response.text(),
      };
    };
    for (const [i, alg] of (['RS256', 'PS256', 'ES256', 'EdDSA'] as const).entries()) {
      const answer = await call(valid[i]!);
      assert.equal(answer.status, 200, answer.body);
      assert.equal(JSON.parse(answer.body).result.content[0].text, alg);
    }
    const expired = await call(refused[0]!);
    assert.equal(expired.status, 401);
    assert.match(expired.challenge ?? '', /^Bearer error="invalid_token"/);
    assert.ok(
      logged.some((message) => message.includes(REFUSALS[0]!)),
      `workerd logged the refusal: ${logged.join('\n')}`,
    );
  },
);
