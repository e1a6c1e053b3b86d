// The tree shows the layers (docs/design.md, Layers). The root holds exactly the core set — the import closure of
// stdio.ts, computed from the sources (value and type imports and re-exports alike) — and the entry files users import
// by path; each add-on folder's modules, and each entry, reach only the core set, themselves and the folders declared
// as their neighbours; and no module takes part in an import cycle. Transports hand the core what they know of an
// exchange as data (FrameExtras), never through a module.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closure, DECLARED_NEIGHBOURS, ENTRIES, FOLDERS, IMPORT, importsOf, modulesOf } from './imports.ts';

/** One import cycle of `graph` as a path that starts and ends at the same module, or undefined when it has none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** What `modules` reach beyond the core set, themselves and the modules of the folders `neighbours` names. */
function beyondDeclared(modules: readonly string[], neighbours: readonly string[]): string[] {
  const allowed = new Set([...closure('stdio.ts'), ...modules, ...neighbours.flatMap((folder) => modulesOf(folder))]);
  return [...new Set(modules.flatMap((module) => [...closure(module)]))].filter((file) => !allowed.has(file)).sort();
}

test('the root holds exactly the core set (the import closure of stdio.ts) and the entry files', () => {
  const core = [...closure('stdio.ts')].sort();
  assert.ok(core.includes('dispatcher.ts') && core.includes('core.ts'), 'the closure is computed');
  assert.deepEqual(
    core.filter((file) => file.includes('/')),
    [],
    'the core set holds nothing of a folder',
  );
  assert.deepEqual(modulesOf(), [...core, ...ENTRIES].sort());
  assert.deepEqual(
    ENTRIES.filter((entry) => core.includes(entry)),
    [],
    'no entry file is part of the core set',
  );
});

test('core.ts reaches no more than stdio.ts does: the core set is one', () => {
  assert.deepEqual(
    [...closure('core.ts')].sort(),
    [...closure('stdio.ts')].filter((file) => file !== 'stdio.ts').sort(),
  );
});

test('every folder and entry file has its declared neighbours, and nothing else is declared', () => {
  assert.deepEqual(Object.keys(DECLARED_NEIGHBOURS).sort(), [...FOLDERS, ...ENTRIES].sort());
});

for (const folder of FOLDERS) {
  test(`the ${folder}/ add-on reaches only the core set, itself and its declared neighbours`, () => {
    const own = modulesOf(folder);
    assert.ok(own.length > 0, `${folder}/ holds its modules`);
    assert.deepEqual(beyondDeclared(own, DECLARED_NEIGHBOURS[folder]!), []);
  });
}

for (const entry of ENTRIES) {
  test(`the entry ${entry} reaches only the core set, itself and its declared neighbours`, () => {
    assert.deepEqual(beyondDeclared([entry], DECLARED_NEIGHBOURS[entry]!), []);
  });
}

test('every declared edge is used: a neighbour nobody reaches is no neighbour', () => {
  for (const [from, neighbours] of Object.entries(DECLARED_NEIGHBOURS)) {
    const modules = from.endsWith('.ts') ? [from] : modulesOf(from);
    const reached = new Set(modules.flatMap((module) => [...closure(module)]));
    for (const folder of neighbours)
      assert.ok(
        modulesOf(folder).some((file) => reached.has(file)),
        `${from} reaches ${folder}/`,
      );
  }
});

test('the neighbour check sees an undeclared edge: the Redis add-on without its neighbours reaches beyond', () => {
  const redis = modulesOf('redis');
  assert.ok(beyondDeclared(redis, []).includes('tasks/task-store.ts'));
  assert.ok(beyondDeclared(redis, ['tasks']).includes('http/shared-sessions.ts'));
  assert.deepEqual(beyondDeclared(['http.ts'], []).includes('http/http-core.ts'), true);
});

test('no module takes part in an import cycle, type-only imports included', () => {
  const modules = [...modulesOf(), ...FOLDERS.flatMap((folder) => modulesOf(folder))];
  assert.ok(modules.length > 10, 'the graph is read from the root and folder modules');
  const graph = new Map(modules.map((file) => [file, importsOf(file)]));
  assert.equal(findCycle(graph)?.join(' → '), undefined);
});

test('the cycle check finds a cycle when there is one, through a type-only import too', () => {
  assert.deepEqual(
    findCycle(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', ['c.ts']],
        ['c.ts', ['a.ts']],
      ]),
    ),
    ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
  );
  assert.equal(
    findCycle(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
        ['c.ts', ['a.ts', 'b.ts']],
      ]),
    ),
    undefined,
  );
  const typeOnly = "import type { Lifecycle } from './era.ts';\nexport { x } from '../core.ts';";
  assert.deepEqual(
    [...typeOnly.matchAll(IMPORT)].map((match) => match[1]),
    ['./era.ts', '../core.ts'],
  );
});
