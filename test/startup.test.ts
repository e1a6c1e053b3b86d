// What a start loads (bench/README.md, Start-up): a node:http server started from the `.ts` sources loads Node's
// http module and nothing it does not use. An ES import of node:http reads every export of the module on Node >= 22,
// and its `WebSocket` export loads undici (with tls, http2, zlib and worker_threads): about 50 ms of a cold start.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Node's built-in modules a fresh process on this Node has loaded once `program` (ESM, run in ROOT) ran. */
function loadedBy(program: string): string[] {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as string[];
}

const LOADED = 'process.stdout.write(JSON.stringify(process.moduleLoadList));';

test('serveHttp listens without loading undici: node:http is taken from the module, not through an ES import', () => {
  const loaded = loadedBy(
    "const { createServer } = await import('./core.ts'); const { serveHttp } = await import('./http.ts');" +
      " const http = await serveHttp(createServer({ name: 's', version: '1' }), { port: 0 }); await http.close();" +
      LOADED,
  );
  assert.ok(loaded.includes('NativeModule _http_server'), 'node:http is loaded');
  assert.ok(!loaded.includes('NativeModule internal/deps/undici/undici'), 'undici is not');
});

test('the check sees undici: an ES import of node:http loads it on this Node', () => {
  assert.ok(loadedBy(`await import('node:http'); ${LOADED}`).includes('NativeModule internal/deps/undici/undici'));
});

test('serveHttp still serves from a CommonJS bundle, where import.meta is empty', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-core-cjs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'entry.mjs');
  writeFileSync(
    entry,
    `import { createServer } from ${JSON.stringify(join(ROOT, 'core.ts'))};\n` +
      `import { serveHttp } from ${JSON.stringify(join(ROOT, 'http.ts'))};\n` +
      'void (async () => {\n' +
      "  const http = await serveHttp(createServer({ name: 's', version: '1' }), { port: 0, host: '127.0.0.1' });\n" +
      "  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };\n" +
      "  const answer = await fetch(http.url, { method: 'POST', headers, body: '[' });\n" +
      '  process.stdout.write(String(answer.status));\n' +
      '  await http.close();\n' +
      '})();\n',
  );
  const bundle = join(dir, 'bundle.cjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    logLevel: 'silent',
  });
  const run = spawnSync(process.execPath, [bundle], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, '400', 'a parse error answered over node:http');
});
