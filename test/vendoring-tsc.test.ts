// The README's TypeScript settings for vendoring are the ones that work: each copy list of README.md, Vendoring, copied
// into an empty folder at its paths, type-checks under exactly the tsconfig.json the README shows, with the `lib` and
// the `@types/node` its table gives that list, and with nothing else (no file of this repository's, no other types).
// The lists are the import closures test/vendoring.test.ts checks the README's lists against.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { closure, modulesOf, ROOT } from './imports.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CORE = [...closure('stdio.ts')];
const HTTP = [...closure('http.ts')];

/** What each row of the README's settings table copies: the core set plus the list's own files, by path. */
const COPIES: Readonly<Record<string, readonly string[]>> = {
  stdio: CORE,
  'node:http': [...CORE, ...HTTP],
  fetch: [...CORE, ...closure('fetch.ts')],
  tasks: [...CORE, ...modulesOf('tasks')],
  skills: [...CORE, ...modulesOf('skills')],
  otel: [...CORE, ...modulesOf('otel')],
  jwt: [...CORE, ...modulesOf('jwt')],
  apps: [...CORE, ...modulesOf('apps')],
  redis: [...CORE, ...HTTP, ...modulesOf('redis'), 'tasks/task-store.ts'],
};

/** The README text between `<!-- tag -->` and `<!-- /tag -->`. */
function marked(tag: string): string {
  const start = README.indexOf(`<!-- ${tag} -->`);
  const end = README.indexOf(`<!-- /${tag} -->`);
  assert.ok(start !== -1 && end > start, `README.md has the ${tag} markers`);
  return README.slice(start, end);
}

/** The tsconfig.json the README shows, as written (its one json block between the markers). */
function readmeTsconfig(): { compilerOptions: Record<string, unknown> } {
  const block = /```json\n([\s\S]*?)\n```/.exec(marked('vendoring:tsconfig'));
  assert.ok(block, 'the vendoring:tsconfig markers hold a json block');
  return JSON.parse(block[1]!);
}

/** The README's settings table: per copy list, whether it needs @types/node and its `lib` (a JSON array). */
function readmeSettings(): Map<string, { typesNode: boolean; lib: string[] }> {
  const rows = new Map<string, { typesNode: boolean; lib: string[] }>();
  for (const line of marked('vendoring:settings').split('\n')) {
    const row = /^\| (?:\*\*)?`?([a-z:]+)`?(?:\*\*)? \| (yes|no)\b[^|]* \| `(\[[^`]*\])` \|$/.exec(line);
    if (row !== null) rows.set(row[1]!, { typesNode: row[2] === 'yes', lib: JSON.parse(row[3]!) });
  }
  return rows;
}

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

test('the README gives TypeScript settings for every copy list, and shows a strict tsconfig.json for them', () => {
  assert.deepEqual([...readmeSettings().keys()].sort(), Object.keys(COPIES).sort());
  const { compilerOptions } = readmeTsconfig();
  assert.equal(compilerOptions.strict, true, 'the settings are checked under --strict');
  assert.deepEqual(compilerOptions.types, ['node'], 'the shown tsconfig is the one for lists that need @types/node');
});

/** Type-checks one copy list in an empty folder; rejects with tsc's output when it reports an error. */
async function typeCheck(list: string, files: readonly string[], settings: { typesNode: boolean; lib: string[] }) {
  const folder = mkdtempSync(join(tmpdir(), `mcp-core-vendor-${list.replace(':', '-')}-`));
  folders.push(folder);
  for (const file of new Set(files)) {
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    cpSync(join(ROOT, file), join(folder, file));
  }
  const { compilerOptions } = readmeTsconfig();
  const types = settings.typesNode ? ['node'] : [];
  if (settings.typesNode) {
    // @types/node as npm installs it: node_modules/@types/node of the folder, the only package there.
    mkdirSync(join(folder, 'node_modules', '@types'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(folder, 'node_modules', '@types', 'node'), 'dir');
  }
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(folder, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, lib: settings.lib, types }, include: ['**/*.ts'] }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(folder, 'tsconfig.json')], { cwd: folder });
}

// One tsc per list, all started at once and run two at a time (the machine has two cores); each test awaits its own.
let free = 2;
const waiting: (() => void)[] = [];
/** Runs `task` once one of the two slots is free. */
async function inSlot(task: () => Promise<void>): Promise<void> {
  if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
  else free--;
  try {
    await task();
  } finally {
    const wake = waiting.shift();
    if (wake === undefined) free++;
    else wake();
  }
}

const settings = readmeSettings();
const runs = new Map(
  Object.entries(COPIES).map(([list, files]) => {
    const run = inSlot(async () => {
      const setting = settings.get(list);
      assert.ok(setting, `README.md gives TypeScript settings for the ${list} copy list`);
      await typeCheck(list, files, setting).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`tsc failed for the ${list} copy list:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
      });
    });
    run.catch(() => {}); // reported by its test, below
    return [list, run] as const;
  }),
);

for (const [list, run] of runs) {
  test(`the ${list} copy list type-checks alone in an empty folder with the README's settings for it`, () => run);
}
