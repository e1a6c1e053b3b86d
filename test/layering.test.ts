// The core never loads transport or add-on code: the import closure of stdio.ts and of core.ts, computed from the
// sources (value and type imports and re-exports alike), holds no HTTP, SSE, session, guard, auth, fetch or testing
// module. Transports hand the core what they know of an exchange as data (FrameExtras), never through a module.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"]\.\/([^'"]+)['"]/g;
const ADD_ON = /^(?:http|sse|sessions|shared-sessions|auth|fetch|testing|exchange)/;

/** Every root module `start` reaches through its relative imports, itself included. */
function closure(start: string): Set<string> {
  const seen = new Set<string>();
  const pending = [start];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)) pending.push(match[1]!);
  }
  return seen;
}

for (const entry of ['stdio.ts', 'core.ts']) {
  test(`the import closure of ${entry} holds no transport or add-on module`, () => {
    const reached = [...closure(entry)];
    assert.ok(reached.includes('dispatcher.ts'), 'the closure is computed (it reaches the dispatcher)');
    assert.deepEqual(reached.filter((file) => ADD_ON.test(file)), []);
  });
}

test('the closure check sees add-ons: http.ts reaches the HTTP set', () => {
  const reached = closure('http.ts');
  for (const file of ['http-core.ts', 'http-guard.ts', 'sessions.ts', 'sse.ts', 'exchange.ts']) assert.ok(reached.has(file), file);
});
