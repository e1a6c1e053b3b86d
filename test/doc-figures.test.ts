// The figures README.md and docs/ state come from somewhere checkable: measured ones from bench/results.json (the run
// bench/results.md renders) or, for the compile cache's size, measured here; counted ones from the tree and the
// exported limits. Each figure is found by the phrase
// around it and compared with its source at the rounding the phrase implies, so a figure that drifts from a new bench
// run, a module added or a limit changed fails here; rewording a phrase fails here too, until its entry follows.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../skills/skills.ts';
import { closure, FOLDERS, modulesOf, ROOT } from './imports.ts';

interface Throughput {
  transport: string;
  era: string;
  concurrency: number;
  contender: string;
  callsPerSecond: number;
}
interface Results {
  seconds: number;
  throughput: Throughput[];
  coldStart: { transport: string; contender: string; ms: number }[];
  memory: { kind: string; contender: string; bytesPerItem: number }[];
  weight: { contender: string; tarballBytes: number }[];
}
const RESULTS: Results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results.json'), 'utf8'));

/** A document's text with every run of white space made one space, so a phrase may wrap anywhere. */
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

/** Two significant figures, as the ranges of ratios are written (0.69, 1.0, 10). */
const sig2 = (value: number) => value.toPrecision(2);
/** One decimal, as single ratios are written (1.2). */
const dec1 = (value: number) => value.toFixed(1);
/** Every value's rendering when they all render alike (a figure stated once for several measurements), else each. */
const alike = (values: string[]) => [...new Set(values)].join(' / ');

/** The built dist/'s calls/s over `against`'s, for every transport, era and caller count both were measured at. */
function throughputRatios(against: string): number[] {
  const rows = RESULTS.throughput;
  return rows
    .filter((row) => row.contender === 'core-dist')
    .flatMap((row) => {
      const other = rows.find(
        (peer) =>
          peer.contender === against &&
          peer.transport === row.transport &&
          peer.era === row.era &&
          peer.concurrency === row.concurrency,
      );
      return other === undefined ? [] : [row.callsPerSecond / other.callsPerSecond];
    });
}

/** Cold start of `contender` over `floor`'s, over stdio. */
function coldRatio(contender: string, floor: string): number {
  const ms = (key: string) => {
    const row = RESULTS.coldStart.find((entry) => entry.transport === 'stdio' && entry.contender === key);
    assert.ok(row, `bench/results.json has a stdio cold start of ${key}`);
    return row.ms;
  };
  return ms(contender) / ms(floor);
}

/** `min–max` of values, each at `round`. */
const range = (values: number[], round: (value: number) => string) =>
  `${round(Math.min(...values))}–${round(Math.max(...values))}`;

/**
 * The bytes of the compile cache one start of the smallest stdio server (examples/stdio-server.ts, its stdin at EOF
 * so it exits normally and Node writes the cache) leaves on `runtime`, a Node of the runtimes matrix.
 */
async function compileCacheBytes(runtime: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-core-compile-cache-'));
  try {
    const node = join(ROOT, 'node_modules', runtime, 'bin', 'node');
    const child = spawn(node, [join(ROOT, 'examples', 'stdio-server.ts')], {
      env: { ...process.env, NODE_COMPILE_CACHE: dir },
      stdio: 'ignore',
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, `${runtime} ran examples/stdio-server.ts to a clean exit`);
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    assert.ok(files.length > 0, `${runtime} wrote a compile cache`);
    return files.reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The core set and the add-ons, counted from the tree (docs/design.md, Layers). */
const CORE = closure('stdio.ts');
const ALL = [...modulesOf(), ...FOLDERS.flatMap((folder) => modulesOf(folder))];

/**
 * Each figure: the document, the phrase that states it (its figures captured, white space as one space), and what
 * its source gives for the captures. The rule of each rounding is in the helper it uses.
 */
const FIGURES: { what: string; file: string; phrase: RegExp; source: () => string[] | Promise<string[]> }[] = [
  {
    what: 'calls/s against the raw floor, the built dist/ on every transport, era and caller count',
    file: 'README.md',
    phrase: /its calls\/s are ([\d.]+–[\d.]+)× the raw floor/,
    source: () => [range(throughputRatios('floor'), sig2)],
  },
  {
    what: 'calls/s against the official SDK v2 server, the same rows',
    file: 'README.md',
    phrase: /and ([\d.]+–[\d.]+)× the official SDK v2 server's/,
    source: () => [range(throughputRatios('sdk-v2'), sig2)],
  },
  {
    what: 'bytes per idle 2025 HTTP session (dist/), in KB of 1000 bytes, to the unit',
    file: 'README.md',
    phrase: /about (\d+) KB per idle 2025 HTTP session/,
    source: () => {
      const row = RESULTS.memory.find((entry) => entry.kind === 'sessions' && entry.contender === 'core-dist');
      assert.ok(row, 'bench/results.json has the idle session memory of core-dist');
      return [String(Math.round(row.bytesPerItem / 1000))];
    },
  },
  {
    what: 'the packed tarball, in KiB, to the unit',
    file: 'README.md',
    phrase: /a (\d+) KiB tarball/,
    source: () => {
      const row = RESULTS.weight.find((entry) => entry.contender === 'core-dist');
      assert.ok(row, 'bench/results.json has the package weight of core-dist');
      return [String(Math.round(row.tarballBytes / 1024))];
    },
  },
  {
    what: 'the duration of a bench run, in minutes, to the unit',
    file: 'README.md',
    phrase: /`npm run bench`, about (\d+) minutes/,
    source: () => [String(Math.round(RESULTS.seconds / 60))],
  },
  {
    what: 'cold start of the .ts sources against a bare script on Node 22, 24 and 26',
    file: 'README.md',
    phrase: /about ([\d.]+–[\d.]+)× the start of a bare Node script on Node 22, 24 and 26/,
    source: () => [
      range(
        [coldRatio('core-ts', 'floor-dev'), coldRatio('core-ts-24', 'floor-24'), coldRatio('core-ts-26', 'floor-26')],
        dec1,
      ),
    ],
  },
  {
    what: 'cold start of the .ts sources against a one-file .ts script, on the same three',
    file: 'README.md',
    phrase: /\(([\d.]+)× a one-file `\.ts` script\)/,
    source: () => [
      alike(
        [
          coldRatio('core-ts', 'floor-ts-22'),
          coldRatio('core-ts-24', 'floor-ts-24'),
          coldRatio('core-ts-26', 'floor-ts-26'),
        ].map(dec1),
      ),
    ],
  },
  {
    what: 'cold start of the built dist/ against a bare script',
    file: 'README.md',
    phrase: /about ([\d.]+)× for the built `dist\/`/,
    source: () => [dec1(coldRatio('core-dist', 'floor'))],
  },
  {
    what: 'cold start with a warm compile cache against a bare script, Node 24 and 26',
    file: 'README.md',
    phrase: /takes about ([\d.]+)× the bare start on Node 24 and 26/,
    source: () => [
      alike([coldRatio('core-ts-cache-24', 'floor-24'), coldRatio('core-ts-cache-26', 'floor-26')].map(dec1)),
    ],
  },
  {
    what: 'the compile cache of a stdio server on Node 24 and 26, in MB of 10^6 bytes, to one decimal (measured here)',
    file: 'README.md',
    phrase: /code\): about ([\d.]+) MB for a stdio server/,
    source: async () => [
      alike((await Promise.all(['node24', 'node26'].map(compileCacheBytes))).map((bytes) => (bytes / 1e6).toFixed(1))),
    ],
  },
  {
    what: "a skill's limits, as skills/skills.ts exports them",
    file: 'README.md',
    phrase: /the limits \((\d+) files, (\d+) MiB\)/,
    source: () => [String(MAX_SKILL_FILES), String(MAX_SKILL_BYTES / 2 ** 20)],
  },
  {
    what: "a skill's limits, as skills/skills.ts exports them",
    file: 'docs/skills.md',
    phrase: /more than (\d+) files \(SKILL\.md included\) or more than (\d+) MiB in all/,
    source: () => [String(MAX_SKILL_FILES), String(MAX_SKILL_BYTES / 2 ** 20)],
  },
  {
    what: 'the core set and the add-ons, counted from the tree',
    file: 'docs/design.md',
    phrase: /The core \((\d+) modules, at the root\):.*Add-ons \((\d+) modules\)/,
    source: () => [String(CORE.size), String(ALL.filter((module) => !CORE.has(module)).length)],
  },
];

for (const { what, file, phrase, source } of FIGURES) {
  test(`${file} states ${what} as its source gives it`, async () => {
    const match = phrase.exec(text(file));
    assert.ok(match, `${file} no longer has the phrase ${phrase}: update the figure's entry in this test`);
    assert.deepEqual(match.slice(1), await source(), `${file}: ${match[0]}`);
  });
}
