// The README's vendoring lists and layout table say exactly what the sources do: the files a stdio server copies are
// the import closure of stdio.ts (and core.ts), a node:http or fetch server adds its entry and the http/ folder, the
// tasks, skills, OpenTelemetry, JWT and MCP Apps add-ons their folders, the Redis add-on its folder and the task
// store of tasks/ beyond the node:http set; and the layout table names every module once, under the layer it belongs
// to (the core set, the entries, each folder). Computed from the imports, so the README cannot drift from the tree
// (README.md, Vendoring and Layout).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { closure, ENTRIES, FOLDERS, modulesOf, ROOT } from './imports.ts';

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

for (const [tag, entry] of [
  ['vendoring:http', 'http.ts'],
  ['vendoring:fetch', 'fetch.ts'],
] as const) {
  test(`the README lists exactly the files ${entry} adds to the core set: the entry and the http/ folder`, () => {
    const added = sorted([...closure(entry)].filter((file) => !CORE.has(file)));
    assert.deepEqual(added, sorted([entry, ...modulesOf('http')]));
    assert.deepEqual(namedIn(tag), added);
    assert.match(README, new RegExp(`adds ${added.length}[,:]`));
  });
}

for (const folder of ['apps', 'jwt', 'otel', 'skills', 'tasks']) {
  test(`the README lists exactly the files the ${folder}/ folder adds to the core set: the folder, nothing else`, () => {
    const added = sorted(
      new Set(modulesOf(folder).flatMap((module) => [...closure(module)].filter((file) => !CORE.has(file)))),
    );
    assert.deepEqual(added, modulesOf(folder));
    assert.deepEqual(namedIn(`vendoring:${folder}`), added);
    assert.match(README, new RegExp(`\\(\`mcp-core/${folder}\`[^)]*\\) adds ${added.length}[,:]`));
  });
}

test('the README lists exactly the files the redis/ folder adds to the core and node:http sets', () => {
  const http = closure('http.ts');
  const reached = modulesOf('redis').flatMap((module) => [...closure(module)]);
  const added = sorted(new Set(reached.filter((file) => !CORE.has(file) && !http.has(file))));
  assert.deepEqual(namedIn('vendoring:redis'), added);
  assert.deepEqual(added, sorted([...modulesOf('redis'), 'tasks/task-store.ts']));
  assert.match(README, new RegExp(`beside the \`node:http\` set\\) adds ${added.length}[,:]`));
});

/** The README layout table's modules by group: a `| **group** … |` row heads the module rows under it. */
function layoutGroups(): Map<string, string[]> {
  const start = README.indexOf('<!-- layout -->');
  assert.ok(start !== -1, 'README.md has the layout markers');
  const groups = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of README.slice(start, README.indexOf('<!-- /layout -->')).split('\n')) {
    const group = /^\| \*\*`?([a-z/ ]+?)`?\*\*/.exec(line);
    const module = /^\| `((?:[a-z]+\/)?[a-z0-9-]+\.ts)` \|/.exec(line);
    if (group !== null) groups.set(group[1]!, (current = []));
    else if (module !== null) current?.push(module[1]!);
  }
  return groups;
}

test('the README layout table names every module exactly once, under its layer: core set, entries, each folder', () => {
  const groups = layoutGroups();
  const rows = [...groups.values()].flat();
  assert.equal(new Set(rows).size, rows.length, 'no module has two rows');
  assert.deepEqual([...groups.keys()].sort(), ['core set', 'entries', ...FOLDERS.map((folder) => `${folder}/`)].sort());
  assert.deepEqual(sorted(groups.get('core set')!), sorted(CORE));
  assert.deepEqual(sorted(groups.get('entries')!), sorted(ENTRIES));
  for (const folder of FOLDERS) assert.deepEqual(sorted(groups.get(`${folder}/`)!), modulesOf(folder), folder);
});
