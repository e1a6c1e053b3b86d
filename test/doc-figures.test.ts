// The figures README.md and docs/ state come from somewhere checkable: measured ones from bench/results.json (the run
// bench/results.md renders) or, for the compile cache's size, measured here; counted ones from the tree and the
// exported limits. Each figure is found by the phrase
// around it and compared with its source at the rounding the phrase implies, so a figure that drifts from a new bench
// run, a module added or a limit changed fails here; rewording a phrase fails here too, until its entry follows.
// docs/reliability.md: its bounds and defaults are checked here against the constant or option default in the source
// (read from the source text where the module does not export it). Its figures of test runs (load, storms, fuzz) name
// the test or script that prints them and the date of the run; its "Found, and fixed" figures are what was seen
// before a fix, dated by their section, and are not checked.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_GET_STREAMS } from '../http/sessions.ts';
import { MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES } from '../http/shared-sessions.ts';
import { ANSWERED_STREAM_TTL_MS } from '../redis/redis.ts';
import { MAX_PROGRAM, WORK_BUDGET } from '../regex.ts';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../skills/skills.ts';
import { RECORD_BYTES, TASK_BOUNDS } from '../tasks/task-store.ts';
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

/** An integer with its thousands set apart by a space, as the docs write them (10 000; 512 stays 512). */
const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+$)/g, ' ');
/** Bytes in MiB, as a bound is written (32). */
const mib = (bytes: number) => String(bytes / 2 ** 20);
/** The exponent of a power of two, as a bound is written (2^21). */
const log2 = (value: number) => String(Math.log2(value));

/**
 * The number a source file gives where `pattern` captures it: a constant or an option's default, written as integer
 * literals joined by `*`, `**` or `<<` (`256 * 1024 * 1024`, `2 ** 32`, `1 << 16`), for defaults no module exports.
 */
function sourceNumber(file: string, pattern: RegExp): number {
  const match = pattern.exec(readFileSync(join(ROOT, file), 'utf8'));
  assert.ok(match, `${file} no longer has ${pattern}: update the figure's entry in this test`);
  const literal = (word: string) => {
    assert.match(word, /^\d[\d_]*$/, `${file}: ${match[1]} is a product of integer literals`);
    return Number(word.replaceAll('_', ''));
  };
  return match[1].split(' * ').reduce((product, factor) => {
    const [base, power] = factor.split(/ \*\* | << /);
    if (power === undefined) return product * literal(base);
    return product * (factor.includes('<<') ? literal(base) * 2 ** literal(power) : literal(base) ** literal(power));
  }, 1);
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
  {
    what: 'the GET streams a 2025 session holds at once (MAX_GET_STREAMS)',
    file: 'docs/reliability.md',
    phrase: /past (\d+) the oldest ends and its resumption loses nothing/,
    source: () => [String(MAX_GET_STREAMS)],
  },
  ...[
    /validation follows a value (\d+) levels deep/,
    /refused by path where a schema follows them past (\d+) levels/,
    /arguments nested deeper than a schema follows \((\d+) levels\)/,
  ].map((phrase) => ({
    what: `the depth a schema follows a value (schema.ts MAX_DEPTH), ${phrase.source}`,
    file: 'docs/reliability.md',
    phrase,
    source: () => [String(sourceNumber('schema.ts', /const MAX_DEPTH = ([^;]+);/))],
  })),
  {
    what: 'the default maxBatchLength (core.ts)',
    file: 'docs/reliability.md',
    phrase: /a 2025-03-26 batch of more than (\d+) elements/,
    source: () => [String(sourceNumber('core.ts', /limit\(options, 'maxBatchLength', ([^)]+)\)/))],
  },
  {
    what: "the task stores' byte bounds and a record's fixed weight (TASK_BOUNDS, RECORD_BYTES, the Redis defaults)",
    file: 'docs/reliability.md',
    phrase:
      /`MemoryTaskStore` holds at most (\d+) MiB of records \(`maxBytes`\) and (\d+) MiB per owner \(`maxBytesPerOwner`\); the Redis task store (\d+) MiB \(`maxTaskBytes`\) and (\d+) MiB per owner \(`maxTaskBytesPerOwner`\)\. A record weighs its JSON text plus its owner and (\d+)\./,
    source: () => {
      const redis = readFileSync(join(ROOT, 'redis', 'redis-tasks.ts'), 'utf8');
      assert.match(redis, /'maxTaskBytesPerOwner', options\.maxTaskBytesPerOwner, TASK_BOUNDS\.maxBytesPerOwner\)/);
      return [
        mib(TASK_BOUNDS.maxBytes),
        mib(TASK_BOUNDS.maxBytesPerOwner),
        mib(sourceNumber('redis/redis-tasks.ts', /positive\('maxTaskBytes', options\.maxTaskBytes, ([^)]+)\)/)),
        mib(TASK_BOUNDS.maxBytesPerOwner),
        String(RECORD_BYTES),
      ];
    },
  },
  {
    what: "the task stores' count bounds (TASK_BOUNDS.maxTasksPerOwner, the maxTasks defaults)",
    file: 'docs/reliability.md',
    phrase:
      /(\d+) per owner \(`maxTasksPerOwner`, memory and Redis; anonymous 2026-07-28 callers share one owner\) within ([\d ]+) \(memory\) \/ ([\d ]+) \(Redis\)\. .*? keeps its newest (\d+),/,
    source: () => [
      String(TASK_BOUNDS.maxTasksPerOwner),
      grouped(sourceNumber('tasks/task-store.ts', /options\.maxTasks \?\? ([^,]+),/)),
      grouped(sourceNumber('redis/redis-tasks.ts', /positive\('maxTasks', options\.maxTasks, ([^)]+)\)/)),
      String(TASK_BOUNDS.maxTasksPerOwner),
    ],
  },
  {
    what: "a finished task's default retention and the longest TTL (TASK_BOUNDS.retentionMs, maxTtlMs)",
    file: 'docs/reliability.md',
    phrase:
      /is kept (\d+) s \(`retentionMs` \/ `taskRetentionMs`\), and its `ttl` says so; one with a requested TTL keeps it \(at most (\d+) h\)/,
    source: () => [
      String(TASK_BOUNDS.retentionMs / 1000),
      String(sourceNumber('tasks/task-store.ts', /options\.maxTtlMs \?\? ([^,]+),/) / 3_600_000),
    ],
  },
  {
    what: 'the default maxSessions (http/http-core.ts) and the sessions a full table looks at (MAX_EVICTION_LOOKS)',
    file: 'docs/reliability.md',
    phrase: /a full table \(`maxSessions`, ([\d ]+)\) ends .*? looking at (\d+) sessions per order at most/,
    source: () => [
      grouped(sourceNumber('http/http-core.ts', /options\.maxSessions \?\? ([^)]+)\)/)),
      String(sourceNumber('http/session-table.ts', /const MAX_EVICTION_LOOKS = ([^;]+);/)),
    ],
  },
  {
    what: 'the default maxSessions in the session flood run',
    file: 'docs/reliability.md',
    phrase: /against the default `maxSessions` \(([\d ]+)\)/,
    source: () => [grouped(sourceNumber('http/http-core.ts', /options\.maxSessions \?\? ([^)]+)\)/))],
  },
  {
    what: "the Redis event store's default maxEventsPerSession and an answered stream's TTL (ANSWERED_STREAM_TTL_MS)",
    file: 'docs/reliability.md',
    phrase:
      /`maxEventsPerSession` \(([\d ]+)\) events per 2025 session .*? a POST stream is kept (\d+) s once its answer is stored/,
    source: () => [
      grouped(
        sourceNumber('redis/redis.ts', /positive\('maxEventsPerSession', options\.maxEventsPerSession, ([^)]+)\)/),
      ),
      String(ANSWERED_STREAM_TTL_MS / 1000),
    ],
  },
  {
    what: 'the relay bounds (IDS_PER_PROCESS, MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES)',
    file: 'docs/reliability.md',
    phrase:
      /\(2\^(\d+) per block, 2\^(\d+) blocks\) holds its id, at most (\d+) MiB of UTF-8 JSON; .*? at most (\d+) KiB\./,
    source: () => [
      log2(sourceNumber('http/shared-sessions.ts', /const IDS_PER_PROCESS = ([^;]+);/)),
      String(sourceNumber('http/shared-sessions.ts', /readonly #number = randomInteger\((\d+)\);/)),
      mib(MAX_RELAYED_BYTES),
      String(MAX_RELAYED_CANCEL_BYTES / 1024),
    ],
  },
  {
    what: "the skill loader's nesting bound (skills/skills-fs.ts MAX_DEPTH)",
    file: 'docs/reliability.md',
    phrase: /at most (\d+) nested folders/,
    source: () => [String(sourceNumber('skills/skills-fs.ts', /const MAX_DEPTH = ([^;]+);/))],
  },
  {
    what: "the matcher's bounds (CACHE_INTS in KiB of 4-byte integers, MAX_PROGRAM, WORK_BUDGET)",
    file: 'docs/reliability.md',
    phrase:
      /a DFA of at most (\d+) KiB per pattern, programs of at most ([\d ]+) instructions;.*? at most `WORK_BUDGET` \(2\^(\d+) units/,
    source: () => [
      String((sourceNumber('regex.ts', /const CACHE_INTS = (\S+ << \S+);/) * 4) / 1024),
      grouped(MAX_PROGRAM),
      log2(WORK_BUDGET),
    ],
  },
  {
    what: "the storms' cycles and heap bound (test/storms.test.ts CYCLES, HEAP_BOUND)",
    file: 'docs/reliability.md',
    phrase: /Heap growth over ([\d ]+) cycles stays under (\d+) MiB/,
    source: () => [
      grouped(sourceNumber('test/storms.test.ts', /const CYCLES = ([^;]+);/)),
      mib(sourceNumber('test/storms.test.ts', /const HEAP_BOUND = ([^;]+);/)),
    ],
  },
  {
    what: "the fuzzer's heap bound (test/fuzz.ts, the default of heapBoundBytes)",
    file: 'docs/reliability.md',
    phrase: /heap after GC within (\d+) MiB of the start/,
    source: () => [mib(sourceNumber('test/fuzz.ts', /options\.heapBoundBytes \?\? ([^;]+);/))],
  },
  {
    what: "serveHttp's default header and request timeouts and its close grace (http.ts, CLOSE_GRACE_MS)",
    file: 'docs/reliability.md',
    phrase: /plus a (\d+) ms grace\).*? so the (\d+) s and (\d+) s bounds cut at up to/,
    source: () => [
      String(sourceNumber('http.ts', /const CLOSE_GRACE_MS = ([^;]+);/)),
      String(sourceNumber('http.ts', /options\.headersTimeoutMs \?\? ([^)]+)\)/) / 1000),
      String(sourceNumber('http.ts', /options\.requestTimeoutMs \?\? ([^)]+)\)/) / 1000),
    ],
  },
  {
    what: 'the atoms past which a pattern without quantifiers runs on the matcher (regex.ts NATIVE_ATOMS)',
    file: 'docs/reliability.md',
    phrase: /past (\d+) atoms they now run on the matcher/,
    source: () => [String(sourceNumber('regex.ts', /const NATIVE_ATOMS = ([^;]+);/))],
  },
  {
    what: "each owner's share of task records, in the history (TASK_BOUNDS.maxTasksPerOwner)",
    file: 'docs/reliability.md',
    phrase: /Each owner now has a share \((\d+)\)/,
    source: () => [String(TASK_BOUNDS.maxTasksPerOwner)],
  },
  {
    what: 'how often serveHttp checks the timeouts (http.ts CHECKS_PER_BOUND, MIN_CHECK_INTERVAL_MS)',
    file: 'docs/reliability.md',
    phrase:
      /\(408 within (\d+) % of `headersTimeoutMs` \/ `requestTimeoutMs`, within (\d+) ms of bounds under (\d+) ms,.*? now checks every 1\/(\d+) of the header bound/,
    source: () => {
      const checks = sourceNumber('http.ts', /const CHECKS_PER_BOUND = ([^;]+);/);
      const floor = sourceNumber('http.ts', /const MIN_CHECK_INTERVAL_MS = ([^;]+);/);
      return [String(100 / checks), String(floor), String(floor * checks), String(checks)];
    },
  },
];

for (const { what, file, phrase, source } of FIGURES) {
  test(`${file} states ${what} as its source gives it`, async () => {
    const match = phrase.exec(text(file));
    assert.ok(match, `${file} no longer has the phrase ${phrase}: update the figure's entry in this test`);
    assert.deepEqual(match.slice(1), await source(), `${file}: ${match[0]}`);
  });
}
