// The official MCP conformance suite (both requirement sets, plus the pending header scenarios) against the demo
// server over HTTP, plus server-sse-polling and the tasks and skills scenarios each on its own, through
// `scripts/conformance.ts`,
// which exits non-zero on any scored or pending failure and on an exercised run that made no check or any but
// SUCCESS / INFO.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

test('the conformance suite passes every scored check of 2025-11-25 and 2026-07-28 and the pending header scenarios, and exercises every check of server-sse-polling, of the nine tasks scenarios and of the three skills scenarios', {
  timeout: 10 * 60_000,
}, async () => {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'conformance.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.equal(code, 0, `conformance failed:\n${output.slice(-20_000)}`);
});
