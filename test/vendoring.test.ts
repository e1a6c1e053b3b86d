// The README's vendoring lists and layout table say exactly what the sources do: the files a stdio server copies are
// the import closure of stdio.ts (and core.ts), a node:http or fetch server adds the closure of http.ts or fetch.ts
// beyond it, the tasks and skills add-ons that of their folders (tasks/, skills/), the Redis add-on that of redis.ts
// beyond the node:http set (the task store of tasks/ among it), and the layout table names every module once. Computed from the
// imports, so the README cannot drift from the tree (README.md, Vendoring and Layout).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { closure, FOLDERS, modulesOf, ROOT } from './imports.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The `name.ts` (or `folder/name.ts`) files named in the README between `<!-- tag -->` and `<!-- /tag -->`. */
function namedIn(tag: string): string[] {
  const start = README.indexOf(`<!-- ${tag} -->`);
  const end = README.indexOf(`<!-- /${tag} -->`);
  assert.ok(start !== -1 && end > start, `README.md has the ${tag} markers`);
  return [...README.slice(start, end).matchAll(/`((?:[a-z]+\/)?[a-z0-9-]+\.ts)`/g)].map((match) => match[1]!);
}

const sorted = (files: Iterable<string>): string[] => [...files].sort();
const CORE = closure('stdio.ts');

test('the README lists exactly the files a stdio server copies: the import closure of stdio.ts and core.ts', () => {
  assert.deepEqual(sorted(closure('core.ts')), sorted([...CORE].filter((file) => file !== 'stdio.ts')));
  assert.deepEqual(namedIn('vendoring:stdio'), sorted(CORE));
  assert.match(README, new RegExp(`A stdio server\\*\\* copies ${CORE.size} files`));
});

for (const [tag, entry, reaches] of [
  ['vendoring:http', 'http.ts', 'http-core.ts'],
  ['vendoring:fetch', 'fetch.ts', 'http-core.ts'],
] as const) {
  test(`the README lists exactly the files ${entry} adds to the core set`, () => {
    const added = sorted([...closure(entry)].filter((file) => !CORE.has(file)));
    assert.ok(added.includes(entry) && added.includes(reaches), `the closure reaches ${reaches}`);
    assert.deepEqual(namedIn(tag), added);
    assert.match(README, new RegExp(`adds ${added.length}[,:]`));
  });
}

for (const folder of FOLDERS) {
  test(`the README lists exactly the files the ${folder}/ folder adds to the core set: the folder, nothing else`, () => {
    const added = sorted(
      new Set(modulesOf(folder).flatMap((module) => [...closure(module)].filter((file) => !CORE.has(file)))),
    );
    assert.deepEqual(added, modulesOf(folder));
    assert.deepEqual(namedIn(`vendoring:${folder}`), added);
    assert.match(README, new RegExp(`\\(\`mcp-core/${folder}\`[^)]*\\) adds ${added.length}[,:]`));
  });
}

test('the README lists exactly the files redis.ts adds to the core and node:http sets', () => {
  const http = closure('http.ts');
  const added = sorted([...closure('redis.ts')].filter((file) => !CORE.has(file) && !http.has(file)));
  assert.deepEqual(namedIn('vendoring:redis'), added);
  assert.ok(added.includes('redis.ts'));
  assert.match(README, new RegExp(`beside the \`node:http\` set\\) adds ${added.length}[,:]`));
});

test('the README layout table names every module of the root and of each add-on folder exactly once', () => {
  const start = README.indexOf('<!-- layout -->');
  assert.ok(start !== -1, 'README.md has the layout markers');
  const table = README.slice(start, README.indexOf('<!-- /layout -->'));
  const rows = [...table.matchAll(/^\| `((?:[a-z]+\/)?[a-z0-9-]+\.ts)` \|/gm)].map((match) => match[1]!);
  assert.equal(new Set(rows).size, rows.length, 'no module has two rows');
  assert.deepEqual(sorted(rows), sorted([...modulesOf(), ...FOLDERS.flatMap((folder) => modulesOf(folder))]));
});
