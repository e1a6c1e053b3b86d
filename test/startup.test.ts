// What a start loads (bench/README.md, Start-up): a node:http server started from the `.ts` sources loads Node's
// http module and nothing it does not use. An ES import of node:http reads every export of the module on Node >= 22,
// and its `WebSocket` export loads undici (with tls, http2, zlib and worker_threads): about 50 ms of a cold start.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

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
