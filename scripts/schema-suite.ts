// Runs the official JSON Schema Test Suite's required draft 2020-12 tests (tests/draft2020-12/*.json, not optional/)
// against schema.ts's compileSchema, the suite's remotes/ handed over as the `schemas` registry (keyed by the
// http://localhost:1234/ URIs the tests use) with the 2020-12 metaschemas a dependency already installs. Prints the
// passes and failures per file and the total. Not part of `npm test`: the suite is not in this repository.
// `npm run schema-suite -- <checkout or bare git dir of json-schema-org/JSON-Schema-Test-Suite>`

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSchema, type JsonSchema } from '../schema.ts';

interface Case {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

const where = process.argv[2];
if (where === undefined || !existsSync(where)) {
  console.error(`usage: schema-suite.ts <JSON-Schema-Test-Suite checkout or git dir>; not found: ${where ?? '(none)'}`);
  process.exit(2);
}
const isGitDir = !existsSync(join(where, 'tests')) && existsSync(join(where, 'HEAD'));
if (!isGitDir && !existsSync(join(where, 'tests', 'draft2020-12'))) {
  console.error(`no tests/draft2020-12 under ${where}: not a JSON-Schema-Test-Suite checkout or git dir`);
  process.exit(2);
}

/** The paths of the suite's files under `dir`, relative to the suite's root. */
function list(dir: string): string[] {
  if (isGitDir) {
    const out = execFileSync('git', [`--git-dir=${where}`, 'ls-tree', '-r', '--name-only', 'HEAD', `${dir}/`]);
    return out.toString().split('\n').filter(Boolean);
  }
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
  return walk(join(where as string, dir)).map((p) => relative(where as string, p));
}

/** One suite file's text. */
function read(path: string): string {
  if (isGitDir) return execFileSync('git', [`--git-dir=${where}`, 'show', `HEAD:${path}`]).toString();
  return readFileSync(join(where as string, path), 'utf8');
}

const schemas: Record<string, object> = {};
for (const path of list('remotes')) {
  if (path.endsWith('.json'))
    schemas[`http://localhost:1234/${path.slice('remotes/'.length)}`] = JSON.parse(read(path));
}
const metaDir = fileURLToPath(new URL('../node_modules/ajv/dist/refs/json-schema-2020-12/', import.meta.url));
// The suite's remotes/ lack the metaschema that four tests $ref; a copy comes with ajv, a dependency of a devDependency.
if (existsSync(metaDir)) {
  for (const file of ['schema.json', ...readdirSync(join(metaDir, 'meta')).map((n) => `meta/${n}`)]) {
    const doc = JSON.parse(readFileSync(join(metaDir, file), 'utf8'));
    schemas[doc.$id] = doc;
  }
} else console.log(`no 2020-12 metaschema at ${metaDir}: the tests that $ref it fail`);

const files = list('tests/draft2020-12').filter((p) => p.endsWith('.json') && !p.includes('/optional/'));
if (files.length === 0) {
  console.error(`no tests/draft2020-12/*.json under ${where}`);
  process.exit(2);
}
let [passed, failed] = [0, 0];
for (const file of files.sort()) {
  const cases = JSON.parse(read(file)) as Case[];
  const failures: string[] = [];
  let ok = 0;
  for (const c of cases) {
    let validate: ((v: unknown) => unknown[]) | undefined;
    let error = '';
    try {
      validate = compileSchema(c.schema as JsonSchema, { schemas });
    } catch (e) {
      error = `compile: ${(e as Error).message}`;
    }
    for (const t of c.tests) {
      let got: boolean | string;
      try {
        got = validate === undefined ? error : validate(t.data).length === 0;
      } catch (e) {
        got = `throws: ${(e as Error).message}`;
      }
      if (got === t.valid) ok++;
      else failures.push(`  ${c.description} / ${t.description}: expected ${t.valid}, got ${got}`);
    }
  }
  passed += ok;
  failed += failures.length;
  console.log(`${file.split('/').pop()}: ${ok} passed, ${failures.length} failed`);
  for (const f of failures) console.log(f);
}
console.log(`total: ${passed} of ${passed + failed} passed`);
process.exitCode = failed === 0 ? 0 : 1;
