// The figures README.md and docs/ state come from somewhere checkable (issue 30): measured ones from
// bench/results.json (the run bench/results.md renders) or, for the compile cache's size, measured here; counted ones
// from the tree, the exported limits, the constants and option defaults of the sources and the tests' own parameters.
// Each figure is found by the phrase around it and compared with its source at the rounding the phrase implies, so a
// figure that drifts from a new bench run, a module added or a limit changed fails here; rewording a phrase fails here
// too, until its entry follows. A sweep then finds every figure with a unit (sizes, times, ratios, shares, counts of
// things) in the prose of README.md and docs/: each must be captured by a phrase here, be the value of an option or
// constant named beside it, stand in a quoted test name or message the tests hold, or lie in a part UNCHECKED excuses
// with its reason (dated records of runs and of what was seen before a fix) — so a new figure fails until it is checked.
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
import { namedValues, UNITS } from './source-facts.ts';

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

/** Milliseconds from spawn to the first answer of `contender` over `transport` (stdio by default). */
function coldMs(contender: string, transport = 'stdio'): number {
  const row = RESULTS.coldStart.find((entry) => entry.transport === transport && entry.contender === contender);
  assert.ok(row, `bench/results.json has a ${transport} cold start of ${contender}`);
  return row.ms;
}

/** Cold start of `contender` over `floor`'s, over stdio. */
function coldRatio(contender: string, floor: string): number {
  return coldMs(contender) / coldMs(floor);
}

/** The range of `values` as rounded (`low–high`), or the one figure when both ends round alike. */
const range = (values: number[], round: (value: number) => string) => {
  const [low, high] = [round(Math.min(...values)), round(Math.max(...values))];
  return low === high ? low : `${low}–${high}`;
};

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

/** How often the relay warns of dropped messages (http/shared-sessions.ts DROP_WARNING_MS), as the docs write it. */
function dropWarning(): string {
  const ms = sourceNumber('http/shared-sessions.ts', /const DROP_WARNING_MS = ([^;]+);/);
  return ms === 60_000 ? 'a minute' : `${ms} ms`;
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
    what: 'bytes per idle 2025 HTTP session (dist/), in KB of 1000 bytes, to one decimal',
    file: 'README.md',
    phrase: /about (\d+\.\d) KB per idle 2025 HTTP session/,
    source: () => {
      const row = RESULTS.memory.find((entry) => entry.kind === 'sessions' && entry.contender === 'core-dist');
      assert.ok(row, 'bench/results.json has the idle session memory of core-dist');
      return [dec1(row.bytesPerItem / 1000)];
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
    phrase: /about ([\d.]+(?:–[\d.]+)?)× the start of a bare Node script on Node 22, 24 and 26/,
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
    phrase: /\(([\d.]+(?:–[\d.]+)?)× a one-file `\.ts` script\)/,
    source: () => [
      range(
        [
          coldRatio('core-ts', 'floor-ts-22'),
          coldRatio('core-ts-24', 'floor-ts-24'),
          coldRatio('core-ts-26', 'floor-ts-26'),
        ],
        dec1,
      ),
    ],
  },
  {
    what: 'cold start of the built dist/ against a bare script on the same Node, Node 20 and 22',
    file: 'README.md',
    phrase: /about ([\d.]+(?:–[\d.]+)?)× for the built `dist\/`/,
    source: () => [range([coldRatio('core-dist', 'floor'), coldRatio('core-dist-22', 'floor-dev')], dec1)],
  },
  {
    what: 'cold start of the built .js (vendored), in ms to the unit and against a bare script on the same Node',
    file: 'README.md',
    phrase:
      /its first request about (\d+) ms after it was spawned on Node 20, ([\d.]+)× a bare Node script on the same Node, and about (\d+) ms on Node 22\s+\(([\d.]+)× there\)/,
    source: () => [
      coldMs('core-dist').toFixed(0),
      dec1(coldRatio('core-dist', 'floor')),
      coldMs('core-dist-22').toFixed(0),
      dec1(coldRatio('core-dist-22', 'floor-dev')),
    ],
  },
  {
    what: 'cold start of the .ts sources (vendored) on Node 22: stdio in ms and against a bare script, node:http in ms',
    file: 'README.md',
    phrase:
      /at every start: (\d+) ms on Node 22 over stdio \(([\d.]+)× a bare script there\) and (\d+) ms over `node:http`/,
    source: () => [
      coldMs('core-ts').toFixed(0),
      dec1(coldRatio('core-ts', 'floor-dev')),
      coldMs('core-ts', 'http').toFixed(0),
    ],
  },
  {
    what: 'cold start with a warm compile cache against a bare script, Node 24 and 26',
    file: 'README.md',
    phrase: /takes about ([\d.]+(?:–[\d.]+)?)× the bare start on Node 24 and 26/,
    source: () => [range([coldRatio('core-ts-cache-24', 'floor-24'), coldRatio('core-ts-cache-26', 'floor-26')], dec1)],
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
  ...(
    [
      ['docs/reliability.md', /validation follows a value (\d+) levels deep/],
      ['docs/reliability.md', /refused by path where a schema follows them past (\d+) levels/],
      ['docs/reliability.md', /arguments nested deeper than a schema follows \((\d+) levels\)/],
      ['docs/api.md', /and then at most (\d+) levels below the arguments/],
    ] as const
  ).map(([file, phrase]) => ({
    what: `the depth a schema follows a value (schema.ts MAX_DEPTH), ${phrase.source}`,
    file,
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
  {
    what: 'the modules a stdio server copies: the core set',
    file: 'README.md',
    phrase: /\*\*A stdio server\*\* copies (\d+) files/,
    source: () => [String(CORE.size)],
  },
  {
    what: "the matcher's state cache (regex.ts CACHE_INTS, of 4-byte integers)",
    file: 'docs/api.md',
    phrase: /at most 2\^(\d+) integers per pattern: (\d+) KiB as such/,
    source: () => {
      const ints = sourceNumber('regex.ts', /const CACHE_INTS = (\S+ << \S+);/);
      return [log2(ints), String((ints * 4) / 1024)];
    },
  },
  {
    what: "the matcher's state cache (regex.ts CACHE_INTS, of 4-byte integers)",
    file: 'docs/design.md',
    phrase: /its states and transitions cached as a lazy DFA within (\d+) KiB/,
    source: () => [String((sourceNumber('regex.ts', /const CACHE_INTS = (\S+ << \S+);/) * 4) / 1024)],
  },
  {
    what: "the matcher's program and nesting bounds (regex.ts MAX_PROGRAM, MAX_NESTING)",
    file: 'docs/api.md',
    phrase:
      /a pattern compiling to more than ([\d ]+) instructions is refused .*? as is one nesting groups more than (\d+) deep/,
    source: () => [grouped(MAX_PROGRAM), String(sourceNumber('regex.ts', /const MAX_NESTING = ([^;]+);/))],
  },
  ...(
    [
      ['docs/api.md', /measures each costly keyword on a (\d+) MiB body/],
      ['docs/api.md', /row `pattern`, times a (\d+) MiB body/],
      ['docs/reliability.md', /times each costly keyword on a (\d+) MiB body/],
    ] as const
  ).map(([file, phrase]) => ({
    what: "the bench's validation body (the default line and body limit, less the frame around it)",
    file,
    phrase,
    source: () => [mib(sourceNumber('bench/run.ts', /bodyBytes: (\d+ \* \d+ \* \d+) - 256,/))],
  })),
  {
    what: "the skill loader's handles and the hang test's bound (test/skills-fs.test.ts HANG_MS)",
    file: 'docs/reliability.md',
    phrase: /\((\d+) handles at once\).*?in a child process killed after (\d+) s/,
    source: () => [
      String(sourceNumber('skills/skills-fs.ts', /const MAX_DEPTH = ([^;]+);/) + 2),
      String(sourceNumber('test/skills-fs.test.ts', /const HANG_MS = ([^;]+);/) / 1000),
    ],
  },
  {
    what: 'how closely serveHttp cuts at its timeouts (http.ts CHECKS_PER_BOUND, MIN_CHECK_INTERVAL_MS)',
    file: 'docs/api.md',
    phrase:
      /the cut comes within (\d+) % of each bound \(within (\d+) ms for bounds under (\d+) ms: node's connection check runs at most every (\d+) ms\)/,
    source: () => {
      const checks = sourceNumber('http.ts', /const CHECKS_PER_BOUND = ([^;]+);/);
      const floor = sourceNumber('http.ts', /const MIN_CHECK_INTERVAL_MS = ([^;]+);/);
      return [String(100 / checks), String(floor), String(floor * checks), String(floor)];
    },
  },
  {
    what: 'how often serveHttp checks the timeouts, and where it cuts at the defaults (http.ts)',
    file: 'docs/http-deployment.md',
    phrase:
      /run every 1\/(\d+) of `headersTimeoutMs`, (\d+) ms at least .*? within (\d+) % of each bound, or within (\d+) ms of a bound under (\d+) ms \(([\d.]+) s and ([\d.]+) s at the defaults; node's own 30 s check would cut at up to (\d+) s and (\d+) s\)/,
    source: () => {
      const checks = sourceNumber('http.ts', /const CHECKS_PER_BOUND = ([^;]+);/);
      const floor = sourceNumber('http.ts', /const MIN_CHECK_INTERVAL_MS = ([^;]+);/);
      const headers = sourceNumber('http.ts', /options\.headersTimeoutMs \?\? ([^)]+)\)/);
      const request = sourceNumber('http.ts', /options\.requestTimeoutMs \?\? ([^)]+)\)/);
      const interval = Math.max(floor, Math.ceil(headers / checks));
      const nodeInterval = 30_000; // node's own connectionsCheckingInterval default, which the phrase names
      const s = (ms: number) => String(ms / 1000);
      return [
        String(checks),
        String(floor),
        String(100 / checks),
        String(floor),
        String(floor * checks),
        s(headers + interval),
        s(request + interval),
        s(headers + nodeInterval),
        s(request + nodeInterval),
      ];
    },
  },
  ...(
    [
      ['docs/api.md', /plus a (\d+) ms grace, are destroyed/],
      ['docs/http-deployment.md', /window get (\d+) ms to reach their clients/],
    ] as const
  ).map(([file, phrase]) => ({
    what: "serveHttp's close grace (http.ts CLOSE_GRACE_MS)",
    file,
    phrase,
    source: () => [String(sourceNumber('http.ts', /const CLOSE_GRACE_MS = ([^;]+);/))],
  })),
  {
    what: "an answered stream's TTL in the Redis event store (ANSWERED_STREAM_TTL_MS)",
    file: 'docs/api.md',
    phrase: /a POST stream whose answer is stored is kept (\d+) s\)/,
    source: () => [String(ANSWERED_STREAM_TTL_MS / 1000)],
  },
  {
    what: 'the relay bounds and the drop warning interval (MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES, DROP_WARNING_MS)',
    file: 'docs/api.md',
    phrase: /Responses over (\d+) MiB and cancels over (\d+) KiB of JSON .*? one warning (a minute) at most/,
    source: () => [mib(MAX_RELAYED_BYTES), String(MAX_RELAYED_CANCEL_BYTES / 1024), dropWarning()],
  },
  {
    what: "the relay's drop warning interval (http/shared-sessions.ts DROP_WARNING_MS)",
    file: 'docs/reliability.md',
    phrase: /dropped and counted, with at most one warning (a minute) per worker/,
    source: () => [dropWarning()],
  },
  {
    what: 'the relay bounds in the Redis recipe (MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES)',
    file: 'docs/http-deployment.md',
    phrase:
      /or a response of more than (\d+) MiB \(UTF-8 bytes\) of JSON .*? at most (\d+) KiB of JSON\) to the other workers .*? over (\d+) KiB of JSON is not relayed/,
    source: () => [
      mib(MAX_RELAYED_BYTES),
      String(MAX_RELAYED_CANCEL_BYTES / 1024),
      String(MAX_RELAYED_CANCEL_BYTES / 1024),
    ],
  },
  {
    what: "the frontmatter parser's nesting bound (skills/frontmatter.ts MAX_DEPTH)",
    file: 'docs/design.md',
    phrase: /recurses past (\d+) levels/,
    source: () => [String(sourceNumber('skills/frontmatter.ts', /const MAX_DEPTH = ([^;]+);/))],
  },
  {
    what: "the idle reaper's period (http/http-core.ts)",
    file: 'docs/design.md',
    phrase: /every `min\(sessionIdleMs, (\d+) s\)`, at least (\d+) s\)/,
    source: () => [
      String(sourceNumber('http/http-core.ts', /Math\.min\(idleMs, ([\d_]+)\)/) / 1000),
      String(sourceNumber('http/http-core.ts', /Math\.max\(([\d_]+), Math\.min\(idleMs/) / 1000),
    ],
  },
  {
    what: 'the sessions a full table looks at (http/session-table.ts MAX_EVICTION_LOOKS)',
    file: 'docs/http-deployment.md',
    phrase: /looks at (\d+) sessions of each kind at most/,
    source: () => [String(sourceNumber('http/session-table.ts', /const MAX_EVICTION_LOOKS = ([^;]+);/))],
  },
  {
    what: 'the clients of the load test (test/load.test.ts CLIENTS)',
    file: 'docs/design.md',
    phrase: /`test\/load\.test\.ts` \((\d+) clients of both eras\)/,
    source: () => [String(sourceNumber('test/load.test.ts', /const CLIENTS = ([^;]+);/))],
  },
  {
    what: 'the clients and calls of the load test (test/load.test.ts CLIENTS, half of each era, and CALLS)',
    file: 'docs/reliability.md',
    phrase: /`test\/load\.test\.ts` \((\d+) sessions \+ (\d+) sessionless clients, (\d+) calls each\)/,
    source: () => {
      const clients = sourceNumber('test/load.test.ts', /const CLIENTS = ([^;]+);/);
      return [
        String(clients / 2),
        String(clients / 2),
        String(sourceNumber('test/load.test.ts', /const CALLS = ([^;]+);/)),
      ];
    },
  },
  {
    what: 'the runs of the fuzz test and their frames (test/fuzz.test.ts RUNS and its frames per transport)',
    file: 'docs/reliability.md',
    phrase: /\((\d+) runs of ([\d ]+)–([\d ]+) frames:/,
    source: () => {
      const fuzz = readFileSync(join(ROOT, 'test', 'fuzz.test.ts'), 'utf8');
      const runs = fuzz.slice(fuzz.indexOf('const RUNS'), fuzz.indexOf('];', fuzz.indexOf('const RUNS')));
      const perRun = /run\.transport === 'stdio' \? (\d+) : (\d+)\)/.exec(fuzz);
      assert.ok(perRun, 'test/fuzz.test.ts gives the frames of a run by transport');
      const frames = [Number(perRun[1]), Number(perRun[2])];
      return [String(runs.match(/\{ transport:/g)?.length), grouped(Math.min(...frames)), grouped(Math.max(...frames))];
    },
  },
];

for (const { what, file, phrase, source } of FIGURES) {
  test(`${file} states ${what} as its source gives it`, async () => {
    const match = phrase.exec(prose(file).text);
    assert.ok(match, `${file} no longer has the phrase ${phrase}: update the figure's entry in this test`);
    assert.deepEqual(match.slice(1), await source(), `${file}: ${match[0]}`);
  });
}

/** Where a figure sits in a document, and what vouches for it. */
interface Prose {
  /** The document outside its fenced code blocks, every run of white space one space. */
  text: string;
  /** Each heading's offset in `text` and its title, in order. */
  headings: { at: number; title: string }[];
}

/** A document's prose, as the figures' phrases and the sweep below read it. */
function prose(file: string): Prose {
  const raw = readFileSync(join(ROOT, file), 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  let text = '';
  const headings: Prose['headings'] = [];
  for (const line of raw.split('\n')) {
    const words = line.trim().replace(/\s+/g, ' ');
    if (words === '') continue;
    if (text !== '') text += ' ';
    if (/^#+ /.test(words)) headings.push({ at: text.length, title: words.replace(/^#+ /, '') });
    text += words;
  }
  return { text, headings };
}

/** A figure: a number (thousands set apart by spaces, a range with an en dash) and its unit or what it counts. */
const FIGURE =
  /(?<![\w.–-])(\d{1,3}(?: \d{3})+|\d+)(?:\.\d+)?(?:–[\d.]+)? ?(KiB|MiB|GiB|KB|MB|GB|bytes|µs|ms|s|min|minutes|h|hours|×|%|modules|files|levels|handles|sessions|tests|lines|calls|clients|cycles|elements|instructions|frames|events|requests|evictions)(?![\w])/g;

/** The sentence or table row around `at`: a figure's context, where the option or constant it is the value of is named. */
function contextAt(text: string, at: number, from: number): string {
  const start = Math.max(from, text.lastIndexOf('. ', at) + 2, text.lastIndexOf('| |', at) + 2);
  const ends = [text.indexOf('. ', at), text.indexOf('| |', at)].filter((end) => end !== -1);
  return text.slice(start, ends.length > 0 ? Math.min(...ends) : text.length);
}

/**
 * The parts of the docs whose figures no check vouches for, each with why: the record of a past run or of what was
 * seen before a fix (dated where it stands), a platform's documented default, a figure of the specification.
 */
/** Each part is a section, or the captures of every match of a phrase. */
const UNCHECKED: { file: string; section?: string; phrase?: RegExp; why: string }[] = [
  {
    file: 'docs/reliability.md',
    section: 'Figures of the last long runs',
    why: 'the record of long runs, each row naming the script or test that prints its figures and the date of the run',
  },
  {
    file: 'docs/reliability.md',
    section: 'Found, and fixed',
    why: 'what was measured before each fix, dated by the section; the fix is held by the test each item names',
  },
  {
    file: 'docs/reliability.md',
    phrase: /Measured by hand on \d{4}-\d\d-\d\d \([^)]*\): ([^|]*)/g,
    why: 'measured by hand, dated, saying what the test asserts instead of the figures',
  },
  {
    file: 'docs/reliability.md',
    phrase: /([^:;(]*\((?:before the fix, )?measured by hand on \d{4}-\d\d-\d\d[^)]*\))/g,
    why: 'measured by hand, dated, saying what the test asserts instead of the figures',
  },
  {
    file: 'docs/reliability.md',
    phrase: /(about \d+ µs per eviction) \(the session flood run of \d{4}-\d\d-\d\d, below\)/g,
    why: 'the session flood run, dated, recorded under Figures of the last long runs',
  },
  {
    file: 'docs/http-deployment.md',
    phrase: /node's own (30 s) check/g,
    why: "node's documented default connectionsCheckingInterval, which serveHttp replaces",
  },
];

/** Whether `offset` of `file` lies in a part UNCHECKED excuses. */
function excused(file: string, { text, headings }: Prose, offset: number): boolean {
  const section = headings.filter((heading) => heading.at <= offset).at(-1)?.title;
  return UNCHECKED.some((part) => {
    if (part.file !== file) return false;
    if (part.section !== undefined) return part.section === section;
    return [...text.matchAll(new RegExp(part.phrase!.source, 'gd'))].some((match) =>
      match.indices!.slice(1).some((capture) => capture !== undefined && offset >= capture[0] && offset < capture[1]),
    );
  });
}

/** The text of the tests and sources, where a quoted test name or message a doc cites must appear verbatim. */
const QUOTABLE = [
  ...readdirSync(join(ROOT, 'test')).map((name) => join('test', name)),
  ...ALL.filter((module) => module.endsWith('.ts')),
]
  .map((file) => readFileSync(join(ROOT, file), 'utf8'))
  .join('\n');

/**
 * Each figure of `file` that nothing vouches for: a figure is vouched for when a FIGURES phrase captures it, when it
 * is the value the sources give an option or constant its sentence or table row names in backticks, when it stands
 * in a quoted test name or message that the tests or sources hold verbatim, or when UNCHECKED excuses its part.
 * Figures inside code spans are code, not claims.
 */
function unvouched(file: string): string[] {
  const doc = prose(file);
  const { text, headings } = doc;
  const spans: [number, number][] = [];
  for (const { file: of, phrase } of FIGURES) {
    if (of !== file) continue;
    const match = new RegExp(phrase.source, 'd').exec(text);
    for (const capture of match?.indices?.slice(1) ?? []) spans.push(capture);
  }
  for (const code of text.matchAll(/`[^`]*`/g)) spans.push([code.index, code.index + code[0].length]);
  for (const quote of text.matchAll(/"([^"]{12,})"/g)) {
    // A cited test name may leave out its start or end ("…bounded over all its streams…"): each part must be there.
    const parts = quote[1]!.split('…').filter((part) => part.trim() !== '');
    if (parts.every((part) => QUOTABLE.includes(part))) spans.push([quote.index, quote.index + quote[0].length]);
  }
  const out: string[] = [];
  for (const figure of text.matchAll(FIGURE)) {
    const at = figure.index;
    if (/^20\d\d$/.test(figure[1]!) && !(figure[2]! in UNITS) && figure[2] !== 'ms') continue; // an era: 2025 sessions
    if (spans.some(([start, end]) => at >= start && at < end) || excused(file, doc, at)) continue;
    const section = headings.filter((heading) => heading.at <= at).at(-1);
    const context = contextAt(text, at, section?.at ?? 0);
    const number = Number(figure[0].replace(/[^\d.].*$/, '').replace(/ /g, ''));
    const value = number * (UNITS[figure[2]!] ?? 1);
    const names = [...context.matchAll(/`[^`]*`/g)].flatMap((code) => code[0].match(/[A-Za-z_$][\w$]*/g) ?? []);
    if (names.some((name) => namedValues(name).includes(value))) continue;
    out.push(`${figure[0]} (${section?.title ?? 'top'}): ${context.slice(0, 120)}…`);
  }
  return out;
}

test('every figure README.md and docs/ state is checked against its source, or excused with a reason', () => {
  const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];
  const found = Object.fromEntries(docs.map((file) => [file, unvouched(file)]));
  assert.deepEqual(
    found,
    Object.fromEntries(docs.map((file) => [file, []])),
    'figures no check vouches for: add a phrase to FIGURES, name the option or constant beside them, or excuse them in UNCHECKED',
  );
  const stale = UNCHECKED.filter(
    (part) =>
      !(part.section
        ? prose(part.file).headings.some((heading) => heading.title === part.section)
        : new RegExp(part.phrase!.source).test(prose(part.file).text)),
  );
  assert.deepEqual(stale, [], 'UNCHECKED parts the docs no longer have');
});

test('every "`name` (N)" in README.md and docs/ gives the value the sources give that option or constant', () => {
  const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];
  const wrong: string[] = [];
  let checked = 0;
  for (const file of docs) {
    for (const [stated, name, digits] of prose(file).text.matchAll(
      /`([A-Za-z_$][\w$]*)` \((\d{1,3}(?: \d{3})*|\d+)\)/g,
    )) {
      const value = Number(digits!.replace(/ /g, ''));
      const known = namedValues(name!);
      // A name the sources give no value (a header), or a 4xx/5xx beside an option (`maxBodyBytes` (413)), is no figure.
      if (known.length === 0 || (value >= 400 && value < 600 && !digits!.includes(' '))) continue;
      checked++;
      if (!known.includes(value)) wrong.push(`${file}: ${stated}, the sources give ${JSON.stringify(known)}`);
    }
  }
  assert.ok(checked >= 10, 'the docs state options and constants this way');
  assert.deepEqual(wrong, []);
});
