// The core never loads transport or add-on code: the import closure of stdio.ts and of core.ts, computed from the
// sources (value and type imports and re-exports alike), holds no HTTP, SSE, session, exchange, guard, auth, fetch,
// testing, wire-type or Redis module and nothing of an add-on folder (skills/, tasks/); each add-on folder's modules
// reach only the core set and the folder itself; a root module reaches into a folder only along a declared
// cross-add-on edge (Redis → tasks/); and no module takes part in an import cycle. Transports hand the core what they
// know of an exchange as data (FrameExtras), never through a module (docs/design.md, Layers).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closure, FOLDERS, IMPORT, importsOf, modulesOf } from './imports.ts';

const ADD_ON =
  /^(?:http|sse|sessions|shared-|session-get-stream|session-table|post-streams|exchange|auth|fetch|testing|protocol|redis|skills\/|tasks\/)/;

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

for (const entry of ['stdio.ts', 'core.ts']) {
  test(`the import closure of ${entry} holds no transport or add-on module`, () => {
    const reached = [...closure(entry)];
    assert.ok(reached.includes('dispatcher.ts'), 'the closure is computed (it reaches the dispatcher)');
    assert.deepEqual(
      reached.filter((file) => ADD_ON.test(file)),
      [],
    );
  });
}

test('the core set holds nothing of an add-on folder: the skills and tasks add-ons stay out', () => {
  const core = [...closure('stdio.ts')];
  assert.deepEqual(
    core.filter((file) => file.includes('/')),
    [],
  );
  for (const file of [
    'frontmatter.ts',
    'skills.ts',
    'skills-fs.ts',
    'sha256.ts',
    'task-store.ts',
    'tasks.ts',
    'tasks-extension.ts',
  ])
    assert.ok(!core.includes(file), file);
});

/**
 * The declared cross-add-on edges (docs/design.md, Layers): the root modules that reach into an add-on folder, and
 * the folders each reaches. Every Redis module reaches the task store of tasks/; nothing else crosses into a folder.
 */
const DECLARED_NEIGHBOURS: Readonly<Record<string, readonly string[]>> = {
  'redis-link.ts': ['tasks'],
  'redis-task-scripts.ts': ['tasks'],
  'redis-tasks.ts': ['tasks'],
  'redis.ts': ['tasks'],
};

test('a root module reaches into an add-on folder only along a declared edge: the Redis add-on into tasks/', () => {
  const reached: Record<string, string[]> = {};
  for (const module of modulesOf()) {
    const folders = [
      ...new Set([...closure(module)].filter((file) => file.includes('/')).map((file) => file.split('/')[0]!)),
    ];
    if (folders.length > 0) reached[module] = folders.sort();
  }
  assert.deepEqual(reached, DECLARED_NEIGHBOURS);
  assert.ok(closure('redis.ts').has('tasks/task-store.ts'), 'the Redis add-on reaches the task store');
});

for (const folder of FOLDERS) {
  test(`the ${folder}/ add-on reaches only the core set and itself, from every module it holds`, () => {
    const core = closure('stdio.ts');
    const own = modulesOf(folder);
    assert.ok(own.length > 1, `${folder}/ holds its modules`);
    for (const module of own) {
      const outside = [...closure(module)].filter((file) => !core.has(file) && !own.includes(file));
      assert.deepEqual(outside, [], `${module} reaches beyond the core and ${folder}/`);
    }
  });
}

test('the folder check sees a folder module reach the core and its siblings', () => {
  const reached = closure('skills/skills.ts');
  for (const file of ['core.ts', 'skills/frontmatter.ts', 'skills/sha256.ts']) assert.ok(reached.has(file), file);
  assert.ok(closure('skills/skills-fs.ts').has('skills/skills.ts'));
  const tasks = closure('tasks/tasks-extension.ts');
  for (const file of ['core.ts', 'tasks/tasks.ts', 'tasks/task-store.ts']) assert.ok(tasks.has(file), file);
});

test('the closure check sees add-ons: http.ts reaches the HTTP set', () => {
  const reached = closure('http.ts');
  for (const file of ['http-core.ts', 'http-guard.ts', 'sessions.ts', 'sse.ts', 'exchange.ts'])
    assert.ok(reached.has(file), file);
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
