// The error codes the core can put on the wire are exactly the table of docs/eras.md, Error codes: every numeric
// code in the library's code (comments aside) is one of them, none but the spec's own -32002 lies in the legacy
// range -32000..-32019 (MCP 2026-07-28, Basic > Overview > Messages > Error Codes), and code 0 is never used. Outside
// jsonrpc.ts (and the protocol tables) a code is spelled by its ErrorCode name and a frame is built by errorResponse.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../core.ts';
import { FOLDERS } from './imports.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The root's files and those of each add-on folder (`skills/skills.ts`), by path from the root. */
const SOURCES = [
  ...readdirSync(ROOT),
  ...FOLDERS.flatMap((folder) => readdirSync(join(ROOT, folder)).map((file) => `${folder}/${file}`)),
];
const WIRE_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32002, -32020, -32021, -32022, -32042]);

function codeWithoutComments(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

test('every error code in the library is one of the codes docs/eras.md lets the core emit', () => {
  const files = SOURCES.filter((file) => file.endsWith('.ts'));
  assert.ok(files.length >= 10);
  const seen = new Map<number, string[]>();
  for (const file of files) {
    const code = codeWithoutComments(file);
    const literals = [...code.matchAll(/-32\d{3}\b/g)].map((match) => Number(match[0]));
    const named = [...code.matchAll(/ErrorCode\.(\w+)/g)].map((match) => ErrorCode[match[1] as keyof typeof ErrorCode]);
    for (const value of [...literals, ...named]) {
      assert.equal(typeof value, 'number', `${file} names an ErrorCode that does not exist`);
      seen.set(value, [...(seen.get(value) ?? []), file]);
    }
    assert.doesNotMatch(code, /\bcode:\s*0\b/, `${file} writes code 0`);
  }
  for (const [code, where] of seen) {
    assert.ok(WIRE_CODES.has(code), `${code} (in ${where.join(', ')}) is not in the docs/eras.md table`);
    // -32002 (2025 resource not found) is the one code of that range the spec itself assigns.
    if (code !== -32002) assert.ok(code < -32019 || code > -32000, `${code} lies in the reserved -32000..-32019 range`);
  }
  for (const code of [-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022, -32042]) {
    assert.ok(seen.has(code), `${code} is in the table but the code never emits it: update the table or the test`);
  }
});

test('the exported ErrorCode constants are wire codes', () => {
  for (const [name, code] of Object.entries(ErrorCode)) assert.ok(WIRE_CODES.has(code), `${name} = ${code}`);
});

/** The files that may spell codes as numbers: the vocabulary itself and the protocol tables. */
const VOCABULARY = new Set(['jsonrpc.ts', 'protocol.ts']);

test('outside jsonrpc.ts, error codes are ErrorCode names and error frames come from errorResponse', () => {
  const files = SOURCES.filter((file) => file.endsWith('.ts') && !VOCABULARY.has(file));
  assert.ok(files.length >= 10);
  for (const file of files) {
    const code = codeWithoutComments(file);
    assert.doesNotMatch(code, /-32\d{3}\b/, `${file} writes a raw JSON-RPC error code: use its ErrorCode name`);
    assert.doesNotMatch(code, /\berror:\s*\{\s*code\b/, `${file} writes a literal error object: use errorResponse`);
    assert.doesNotMatch(
      code,
      /jsonrpc:\s*'2\.0'[^;\n]*\berror:/,
      `${file} writes a literal error frame: use errorResponse`,
    );
  }
});
