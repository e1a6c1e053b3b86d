// The runtime matrix: the demo server (examples/everything.ts) on every runtime the README promises, each cell driven
// through the same wire scenarios of both eras (test/runtime-scenarios.ts) — over stdio and node:http on Node 22, 24
// and 26, Bun and Deno; createFetchHandler under Deno.serve and Bun.serve (test/fetch-serve.ts); the built dist/ on
// the machine's Node 20 and on Node 26. Runtimes come from devDependencies; a cell that cannot run fails, never skips.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineNode } from './machine-node.ts';
import {
  type CellSpec,
  type Outcome,
  runHttpCell,
  runStdioCell,
  SCENARIOS,
  type Scenario,
} from './runtime-scenarios.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEMO = join(ROOT, 'examples', 'everything.ts');
const FETCH_SERVE = join(ROOT, 'test', 'fetch-serve.ts');
const require = createRequire(import.meta.url);
const T = { timeout: 120_000 }; // a safety net against hangs only; each scenario has its own

/**
 * A runtime from its devDependency: the package's version (known without running anything, for the cell's name) and
 * its executable, the `bin` its package.json names (`binary` overrides it: the deno package's bin is a Node launcher
 * that would not pass signals on; its postinstall puts the executable beside it), checked when a cell starts to
 * report that version, so a missing or placeholder binary fails its cells loudly.
 */
class Runtime {
  readonly version: string;
  readonly #pkg: string;
  readonly #manifestPath: string | undefined;
  readonly #versionLine: (version: string) => string;
  readonly #binary: string | undefined;

  constructor(pkg: string, versionLine: (version: string) => string, binary?: string) {
    this.#pkg = pkg;
    this.#versionLine = versionLine;
    this.#binary = binary;
    try {
      this.#manifestPath = require.resolve(`${pkg}/package.json`);
      this.version = JSON.parse(readFileSync(this.#manifestPath, 'utf8')).version;
    } catch {
      this.version = '(not installed)';
    }
  }

  /** The executable, after checking that it runs and reports the package's version. */
  executable(): string {
    assert.ok(this.#manifestPath !== undefined, `the devDependency ${this.#pkg} is not installed (npm ci)`);
    const manifest = JSON.parse(readFileSync(this.#manifestPath, 'utf8'));
    const bin =
      this.#binary ?? (typeof manifest.bin === 'string' ? manifest.bin : Object.values<string>(manifest.bin)[0]!);
    const path = join(dirname(this.#manifestPath), bin);
    const reported = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const expected = this.#versionLine(this.version);
    assert.ok(
      reported.stdout?.startsWith(expected),
      `${this.#pkg}: ${path} should report ${expected}, got ${reported.error ?? (reported.stdout || reported.stderr)}`,
    );
    return path;
  }
}

/**
 * examples/everything.ts (and what it imports from examples/) as JavaScript that imports the built dist/, as a user
 * of the package runs it: types stripped, `../X.ts` rewritten to dist/X.js, `./X.ts` to its stripped sibling.
 */
function distDemo(): string {
  const dist = join(ROOT, 'dist');
  assert.ok(existsSync(join(dist, 'core.js')), 'dist/ is built (npm run build) before the matrix runs');
  const dir = mkdtempSync(join(tmpdir(), 'mcp-core-dist-demo-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const file of ['everything.ts', 'modern-fixtures.ts', 'task-fixtures.ts', 'skill-fixtures.ts']) {
    const source = stripTypeScriptTypes(readFileSync(join(ROOT, 'examples', file), 'utf8'))
      .replace(/'\.\.\/([\w/-]+)\.ts'/g, (_match, name: string) => `'${pathToFileURL(join(dist, `${name}.js`)).href}'`)
      .replace(/'\.\/([\w-]+)\.ts'/g, "'./$1.js'");
    writeFileSync(join(dir, file.replace(/\.ts$/, '.js')), source);
  }
  return join(dir, 'everything.js');
}

interface Cell {
  name: string;
  /** The command that starts the cell's server; throws when the runtime cannot run here. */
  spec(): CellSpec;
}

const NODE_VERSION = (version: string) => `v${version}`;
const node22 = new Runtime('node', NODE_VERSION);
const node24 = new Runtime('node24', NODE_VERSION);
const node26 = new Runtime('node26', NODE_VERSION);
const bun = new Runtime('bun', (version) => version);
const deno = new Runtime('deno', (version) => `deno ${version}`, 'deno');

/** The machine's Node (test/machine-node.ts) and its version, for the dist cells. */
function machine(): { command: string; version: string } {
  const command = machineNode();
  const version = spawnSync(command, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return { command, version };
}

let builtDemo: string | undefined;
/** The dist demo, written once (the first dist cell), removed after the last cell. */
function dist(): string {
  builtDemo ??= distDemo();
  return builtDemo;
}
after(() => {
  if (builtDemo !== undefined) rmSync(dirname(builtDemo), { recursive: true, force: true });
});

/** Every cell of the matrix, in the order it runs and prints. */
function cells(): Cell[] {
  const list: Cell[] = [];
  const sources: [string, Runtime, string[]][] = [
    [`Node ${node22.version}`, node22, [DEMO]],
    [`Node ${node24.version}`, node24, [DEMO]],
    [`Node ${node26.version}`, node26, [DEMO]],
    [`Bun ${bun.version}`, bun, ['run', DEMO]],
    [`Deno ${deno.version}`, deno, ['run', '--allow-net=127.0.0.1', DEMO]],
  ];
  for (const [label, runtime, args] of sources) {
    for (const transport of ['stdio', 'http'] as const) {
      list.push({
        name: `${label} ${transport === 'http' ? 'node:http' : transport}`,
        spec: () => ({ command: runtime.executable(), args, transport }),
      });
    }
  }
  list.push({
    name: `Deno ${deno.version} Deno.serve fetch`,
    spec: () => ({
      command: deno.executable(),
      args: ['run', '--allow-net=127.0.0.1', FETCH_SERVE],
      transport: 'http',
    }),
  });
  list.push({
    name: `Bun ${bun.version} Bun.serve fetch`,
    spec: () => ({ command: bun.executable(), args: ['run', FETCH_SERVE], transport: 'http' }),
  });
  let machineVersion: string;
  try {
    machineVersion = machine().version;
  } catch {
    machineVersion = '(not found)';
  }
  const distRuntimes: [string, () => string][] = [
    [`dist Node ${machineVersion}`, () => machine().command],
    [`dist Node ${node26.version}`, () => node26.executable()],
  ];
  for (const [label, command] of distRuntimes) {
    for (const transport of ['stdio', 'http'] as const) {
      list.push({
        name: `${label} ${transport === 'http' ? 'node:http' : transport}`,
        spec: () => ({ command: command(), args: [dist()], transport }),
      });
    }
  }
  return list;
}

const matrix: [string, Map<Scenario, Outcome>][] = [];

/** One line per cell: ok, n/a or FAIL under each scenario. */
function printMatrix(): void {
  const width = Math.max(...matrix.map(([name]) => name.length));
  const columns = SCENARIOS.map((scenario) => Math.max(scenario.length, 4));
  const row = (first: string, values: string[]) =>
    `${first.padEnd(width)}  ${values.map((value, i) => value.padEnd(columns[i]!)).join('  ')}`.trimEnd();
  const lines = [row('cell', [...SCENARIOS])];
  for (const [name, results] of matrix) {
    lines.push(
      row(
        name,
        SCENARIOS.map((scenario) => {
          const outcome = results.get(scenario);
          return outcome === undefined ? 'FAIL' : typeof outcome === 'string' ? outcome : 'FAIL';
        }),
      ),
    );
  }
  process.stdout.write(`\nRuntime matrix:\n${lines.join('\n')}\n\n`);
}

after(printMatrix);

for (const cell of cells()) {
  test(`the demo serves every wire scenario on ${cell.name}`, T, async () => {
    const results = new Map<Scenario, Outcome>();
    matrix.push([cell.name, results]);
    let spec: CellSpec | undefined;
    try {
      spec = cell.spec();
    } catch (error) {
      const reason = `the cell cannot run: ${error instanceof Error ? error.message : String(error)}`;
      for (const scenario of SCENARIOS) results.set(scenario, { fail: reason });
    }
    if (spec?.transport === 'stdio') await runStdioCell(spec, results);
    else if (spec !== undefined) await runHttpCell(spec, results);
    const failures = SCENARIOS.flatMap((scenario) => {
      const outcome = results.get(scenario);
      if (outcome === 'ok' || outcome === 'n/a') return [];
      return [`${scenario}: ${outcome === undefined ? 'did not run' : outcome.fail}`];
    });
    assert.deepEqual(failures, [], `${cell.name} failed:\n${failures.join('\n')}`);
  });
}
