// `npm run bench`: mcp-core against the raw floor, the official TypeScript SDK servers (v2 and v1) and the light
// peers (tmcp, FastMCP, mcp-lite), in one run on one machine. Alternates the contenders, takes medians of
// repetitions, prints a Markdown table and writes it to bench/results.md with the raw figures in bench/results.json.
// Flags: --smoke (tiny sizes, for the test suite: proves the harness works, measures nothing), --reps N, --out DIR,
// --only SECTION,... (some of the sections in SECTIONS), --contenders KEY,... (some of the contenders, in every
// section they take part in), --render FILE (re-renders a results.json), --baseline-dist DIR (adds another built
// dist/ to the round trips, set against this tree's: the core before a change).
// Never asserts a target: it reports.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineNode } from '../test/machine-node.ts';
import type { Era } from './clients.ts';
import { deploymentCosts } from './deployment.ts';
import {
  type Contender,
  coldStart,
  importTime,
  installedClosure,
  type Memory,
  memory,
  output,
  packed,
  type RoundTrips,
  roundTrips,
  shortSession,
  type Throughput,
  type Transport,
  warmCompileCache,
} from './measure.ts';
import { type Comparison, type Results, renderMarkdown } from './report.ts';
import { validationCosts } from './validation.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVERS = join(ROOT, 'bench', 'servers');

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    reps: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench') },
    render: { type: 'string' },
    only: { type: 'string' },
    contenders: { type: 'string' },
    'baseline-dist': { type: 'string' },
  },
});

// The report's directory is made before anything runs: a full run takes about 25 minutes, and a missing directory
// must not lose it at the last write.
mkdirSync(flags.out, { recursive: true });

const SECTIONS = ['round-trips', 'cold-start', 'short-sessions', 'memory', 'weight', 'validation', 'deployment'];
const only = flags.only?.split(',') ?? SECTIONS;
for (const section of only) {
  if (!SECTIONS.includes(section))
    throw new Error(`--only: unknown section ${section} (sections: ${SECTIONS.join(', ')})`);
}

// --render FILE: the Markdown of an earlier run's results.json again (after a change to the report), nothing measured.
if (flags.render !== undefined) {
  const earlier = JSON.parse(readFileSync(flags.render, 'utf8')) as Results;
  const markdown = renderMarkdown(
    earlier,
    earlier.contenders.map((c) => c.key).filter((key) => key.startsWith('core')),
  );
  writeFileSync(join(flags.out, 'results.md'), markdown);
  process.stdout.write(markdown);
  process.exit(0);
}

const SIZES = flags.smoke
  ? {
      reps: 1,
      warmCalls: 20,
      warmCapMs: 5_000,
      warmMs: 30,
      measureMs: 120,
      slices: 2,
      coldReps: 1,
      coldStartReps: 1,
      importReps: 1,
      sessionCalls: [1, 10, 20],
      sample: 20,
      total: 40,
      bodyBytes: 64 * 1024,
      validationReps: 1,
    }
  : {
      // Five: the paired interval of a one-caller row then resolves about 3 % (bench/README.md, The bench's method).
      reps: Number(flags.reps ?? 5),
      // Round trips: every server first answers this many calls (V8 has tiered mcp-core's HTTP path up by 15 000 on
      // Node 22), or runs this long if it is too slow for that (bench/README.md, What is measured).
      warmCalls: 20_000,
      warmCapMs: 5_000,
      warmMs: 1_500,
      measureMs: 1_500,
      // Round trips: the warm-up and the measured time each in this many slices, contenders taking turns.
      slices: 10,
      // Short sessions, taken in pairs (each repetition a round of every contender): 15 give the paired ratio's
      // interval from the 4th to the 12th (bench/README.md, The bench's method); five left verdicts to chance.
      coldReps: 15,
      // Starts are short and the ratio targets tight (1.10×): more samples than a short session gets.
      coldStartReps: 15,
      importReps: 7,
      sessionCalls: [1, 100, 1_000],
      // Memory is marginal from the sample on: by 9 000 idle sessions V8's young generation has grown to its maximum
      // (from 1 000 it still doubled inside the window, a one-off charged to the items: bench/README.md, Memory).
      // 9 000 + 10 000 stays under the bench servers' 20 000 sessions and streams.
      sample: 9_000,
      total: 10_000,
      // The default stdio line and HTTP body limit (4 MiB), less the frame around the arguments.
      bodyBytes: 4 * 1024 * 1024 - 256,
      validationReps: 5,
    };

const MACHINE_NODE = machineNode();
const DEV_NODE = join(ROOT, 'node_modules', '.bin', 'node');
// The other dev Nodes (devDependencies node24 and node26), for the cold start of the `.ts` sources on each.
const NODE_24 = join(ROOT, 'node_modules', 'node24', 'bin', 'node');
const NODE_26 = join(ROOT, 'node_modules', 'node26', 'bin', 'node');
const STRIP = ['--experimental-strip-types', '--no-warnings'];
// The compile-cache contenders' cache directories (one per Node), made by their warm-up and removed at exit,
// however the run ends (a server that dies in its warm-up leaves the run's last await unsettled).
const COMPILE_CACHES = join(tmpdir(), `mcp-bench-compile-cache-${process.pid}`);
process.once('exit', () => rmSync(COMPILE_CACHES, { recursive: true, force: true }));
const dist = (file: string) => new URL(`../dist/${file}`, import.meta.url).href;
const source = (file: string) => new URL(`../${file}`, import.meta.url).href;

const FLOOR: Contender = {
  key: 'floor',
  label: 'raw floor',
  node: MACHINE_NODE,
  nodeArgs: [],
  script: join(SERVERS, 'floor.mjs'),
  scriptArgs: [],
  eras: ['2025', '2026'],
  transports: ['stdio', 'http'],
  floor: 'floor',
  imports: ['node:http', 'node:readline'],
};
// The floor again on the dev Node, the `.ts` build's floor: Node 22 starts faster than Node 20 and runs node:http at
// another speed, so the `.ts` sources' startup figures and round trips are set against the floor on their own Node.
const FLOOR_DEV: Contender = {
  ...FLOOR,
  key: 'floor-dev',
  label: 'raw floor (Node 22)',
  node: DEV_NODE,
  floor: 'floor-dev',
};
const CONTENDERS: Contender[] = [
  FLOOR,
  {
    key: 'core-dist',
    label: 'mcp-core (dist, machine Node)',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'mcp-core.mjs'),
    scriptArgs: ['dist'],
    eras: ['2025', '2026'],
    transports: ['stdio', 'http'],
    floor: 'floor',
    imports: [dist('core.js'), dist('stdio.js'), dist('http.js')],
  },
  {
    key: 'core-ts',
    label: 'mcp-core (.ts, Node 22)',
    node: DEV_NODE,
    nodeArgs: STRIP,
    script: join(SERVERS, 'mcp-core.mjs'),
    scriptArgs: ['ts'],
    eras: ['2025', '2026'],
    transports: ['stdio', 'http'],
    floor: 'floor-dev',
    tsFloor: 'floor-ts-22',
    imports: [source('core.ts'), source('stdio.ts'), source('http.ts')],
  },
  {
    key: 'sdk-v2',
    label: 'SDK v2 (@modelcontextprotocol/server)',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'sdk-v2.mjs'),
    scriptArgs: [],
    eras: ['2025', '2026'],
    transports: ['stdio', 'http'],
    floor: 'floor',
    imports: [
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/server/stdio',
      '@modelcontextprotocol/node',
      'zod',
    ],
    installs: ['@modelcontextprotocol/server', '@modelcontextprotocol/node'],
  },
  {
    key: 'sdk-v1',
    label: 'SDK v1 (@modelcontextprotocol/sdk)',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'sdk-v1.mjs'),
    scriptArgs: [],
    eras: ['2025'],
    transports: ['stdio', 'http'],
    floor: 'floor',
    imports: [
      '@modelcontextprotocol/sdk/server/mcp.js',
      '@modelcontextprotocol/sdk/server/stdio.js',
      '@modelcontextprotocol/sdk/server/streamableHttp.js',
      'zod',
    ],
    installs: ['@modelcontextprotocol/sdk'],
  },
  {
    key: 'tmcp',
    label: 'tmcp',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'tmcp.mjs'),
    scriptArgs: [],
    eras: ['2025', '2026'],
    transports: ['stdio', 'http'],
    floor: 'floor',
    imports: [
      'tmcp',
      '@tmcp/adapter-zod',
      '@tmcp/transport-stdio',
      '@tmcp/transport-http',
      '@remix-run/node-fetch-server',
      'zod',
    ],
    installs: [
      'tmcp',
      '@tmcp/adapter-zod',
      '@tmcp/transport-stdio',
      '@tmcp/transport-http',
      '@remix-run/node-fetch-server',
      'zod',
    ],
  },
  {
    key: 'fastmcp',
    label: 'FastMCP',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'fastmcp.mjs'),
    scriptArgs: [],
    eras: ['2025'],
    transports: ['stdio', 'http'],
    floor: 'floor',
    imports: ['fastmcp', 'zod'],
    installs: ['fastmcp'],
  },
  {
    key: 'mcp-lite',
    label: 'mcp-lite',
    node: MACHINE_NODE,
    nodeArgs: [],
    script: join(SERVERS, 'mcp-lite.mjs'),
    scriptArgs: [],
    eras: ['2025'],
    transports: ['http'],
    floor: 'floor',
    imports: ['mcp-lite', 'hono', '@hono/node-server', 'zod'],
    installs: ['mcp-lite', 'hono', '@hono/node-server', 'zod'],
  },
];
/**
 * The stdio cold-start contenders on one dev Node beyond the dist and the Node 22 runs above: the `.mjs` floor on
 * that Node (Node 24, 26), the one-file `.ts` floor stripped the same way as the sources (every dev Node), the `.ts`
 * sources stripped (Node 24, 26), and with Node's compile cache warmed by a first run (Node 24, 26, where the cache
 * holds the stripped sources; Node 22 caches only V8's compilation and strips again at every start, so a warm cache
 * changes nothing there: bench/README.md, Start-up). On Node 22, the built dist instead, over stdio and HTTP.
 */
function coldStartOnNode(major: 22 | 24 | 26, node: string): Contender[] {
  const floor = major === 22 ? 'floor-dev' : `floor-${major}`;
  // Cold start only: no import-time figure (`imports`), no other section.
  const base = {
    node,
    scriptArgs: [],
    eras: ['2025'] as Era[],
    transports: ['stdio'] as Transport[],
    floor,
    imports: [],
    coldStartOnly: true,
  };
  const core = { ...base, script: join(SERVERS, 'mcp-core.mjs'), scriptArgs: ['ts'], nodeArgs: STRIP };
  const tsFloor: Contender = {
    ...base,
    key: `floor-ts-${major}`,
    label: `one-file .ts floor (Node ${major})`,
    nodeArgs: STRIP,
    script: join(SERVERS, 'floor.ts'),
  };
  // Node 22 strips at every start, cache or not: beside its `.ts` run (core-ts), the built dist on the same Node, the
  // start a user who copies the `.js` instead of the sources gets there (README.md, Vendoring), on both transports.
  const distOn22: Contender = {
    ...base,
    key: 'core-dist-22',
    label: 'mcp-core (dist, Node 22)',
    nodeArgs: [],
    script: join(SERVERS, 'mcp-core.mjs'),
    scriptArgs: ['dist'],
    transports: ['stdio', 'http'],
  };
  if (major === 22) return [tsFloor, distOn22];
  return [
    { ...FLOOR, ...base, key: floor, label: `raw floor (Node ${major})` },
    tsFloor,
    {
      ...core,
      key: `core-ts-${major}`,
      label: `mcp-core (.ts, Node ${major})`,
      tsFloor: tsFloor.key,
    },
    {
      ...core,
      key: `core-ts-cache-${major}`,
      label: `mcp-core (.ts + compile cache, Node ${major})`,
      env: { NODE_COMPILE_CACHE: join(COMPILE_CACHES, `node${major}`) },
    },
  ];
}
/**
 * The protocol floor: the raw floor plus only what each era asks of a server for one known tool (its file says what).
 * Round trips only, beside the raw floor: what is left of a gap above it is mcp-core's own work.
 */
const PROTOCOL_FLOOR: Contender = {
  ...FLOOR,
  key: 'floor-protocol',
  label: 'protocol floor',
  script: join(SERVERS, 'protocol-floor.mjs'),
  roundTripsOnly: true,
};
// Spawn-to-answer and spawn-to-exit figures: every contender, and the floor on each Node.
const STARTUP = [FLOOR, FLOOR_DEV, ...CONTENDERS.slice(1)];
// Cold start adds the one-file `.ts` floors and the other Nodes' floors and `.ts` runs (in this order in its table).
const COLD_START = [
  FLOOR,
  FLOOR_DEV,
  ...coldStartOnNode(22, DEV_NODE),
  ...CONTENDERS.slice(1),
  ...coldStartOnNode(24, NODE_24),
  ...coldStartOnNode(26, NODE_26),
];
/**
 * Round trips only (issue 26), each set against another contender of the run: every mcp-core build with one
 * pass-through middleware against the same build without, and with --baseline-dist DIR the dist built in DIR (the
 * core before a change) against this tree's, both without middleware.
 */
const COMPARED: (Contender & { comparison: Comparison })[] = CONTENDERS.filter((c) =>
  ['core-dist', 'core-ts'].includes(c.key),
).map((build) => {
  const key = `${build.key}-mw`;
  const label = `${build.label} + 1 pass-through middleware`;
  return {
    ...build,
    key,
    label,
    scriptArgs: [...build.scriptArgs, 'pass-through'],
    comparison: { key, label, against: build.key, kind: 'middleware' },
  };
});
const baselineDist = flags['baseline-dist'];
if (baselineDist !== undefined) {
  const build = CONTENDERS.find((c) => c.key === 'core-dist')!;
  const key = 'core-dist-base';
  const label = `mcp-core (dist of ${baselineDist}, machine Node)`;
  COMPARED.push({
    ...build,
    key,
    label,
    scriptArgs: [resolve(baselineDist)],
    comparison: { key, label, against: build.key, kind: 'baseline' },
  });
}
// The contenders the memory figures cover (the peers' sessions are not measured).
const MEMORY = ['core-dist', 'core-ts', 'sdk-v2', 'sdk-v1'];
const CORES = COLD_START.filter((c) => c.key.startsWith('core'));

// --contenders KEY,...: only those contenders run, in every section they take part in.
const picked = flags.contenders?.split(',');
const KNOWN = [...COLD_START, PROTOCOL_FLOOR, ...COMPARED].map((c) => c.key);
for (const key of picked ?? []) {
  if (!KNOWN.includes(key))
    throw new Error(
      `--contenders: unknown contender ${key} (contenders: ${KNOWN.join(', ')}; core-dist-base needs --baseline-dist)`,
    );
}
/** Whether `contender` runs in this invocation (--contenders). */
const chosen = (contender: Contender): boolean => picked === undefined || picked.includes(contender.key);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Contender order for repetition `rep`: rotated, so that none always runs first (cold caches) or last. */
function rotation<T>(items: T[], rep: number): T[] {
  const shift = rep % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

const began = performance.now();
const results: Results & Required<Pick<Results, 'shortSessions'>> = {
  machine: {
    node: (await output(MACHINE_NODE, ['--version'], ROOT)).trim(),
    devNode: process.version,
    cores: 0,
    smoke: flags.smoke,
  },
  contenders: [...COLD_START, PROTOCOL_FLOOR]
    .filter(chosen)
    .map(({ key, label, eras, transports, floor, tsFloor, coldStartOnly, roundTripsOnly }) => ({
      key,
      label,
      eras,
      transports,
      floor,
      tsFloor,
      coldStartOnly,
      roundTripsOnly,
    })),
  throughput: [],
  coldStart: [],
  shortSessions: [],
  memory: [],
  weight: [],
  seconds: 0,
};
results.machine.cores = (await import('node:os')).availableParallelism();

const SCENARIOS: { transport: Transport; era: Era; concurrency: number }[] = [];
for (const transport of ['stdio', 'http'] as const) {
  for (const era of ['2025', '2026'] as const) {
    for (const concurrency of [1, 8]) SCENARIOS.push({ transport, era, concurrency });
  }
}

for (const scenario of only.includes('round-trips') ? SCENARIOS : []) {
  const runs = new Map<string, Throughput[]>();
  const eligible = [FLOOR, FLOOR_DEV, PROTOCOL_FLOOR, ...CONTENDERS.slice(1), ...COMPARED].filter(
    (c) => chosen(c) && c.eras.includes(scenario.era) && c.transports.includes(scenario.transport),
  );
  for (let rep = 0; rep < SIZES.reps; rep++) {
    // Each repetition starts every contender's server afresh and keeps them all up, and their warm-up and measured
    // time are cut into slices that take turns (rotated): a change in the machine's load, which a window of one
    // contender after another would charge to whichever ran then, meets every contender alike (bench/README.md).
    const order = rotation(eligible, rep);
    const open: RoundTrips[] = [];
    try {
      for (const contender of order) {
        open.push(await roundTrips(contender, scenario.transport, scenario.era, scenario.concurrency));
      }
      for (const trips of open) await trips.warmUp(SIZES.warmCalls, SIZES.warmCapMs);
      for (const [ms, record] of [
        [SIZES.warmMs, false],
        [SIZES.measureMs, true],
      ] as const) {
        for (let slice = 0; slice < SIZES.slices; slice++) {
          // Every other turn runs backwards, so that no contender always follows the same one.
          const turn = rotation(open, slice >> 1);
          for (const trips of slice % 2 === 0 ? turn : turn.reverse()) await trips.window(ms / SIZES.slices, record);
        }
      }
      order.forEach((contender, at) => {
        runs.set(contender.key, [...(runs.get(contender.key) ?? []), open[at]!.figure()]);
      });
    } finally {
      for (const trips of open) await trips.stop();
    }
  }
  for (const [key, figures] of runs) {
    results.throughput.push({
      ...scenario,
      contender: key,
      callsPerSecond: median(figures.map((f) => f.callsPerSecond)),
      p50Us: median(figures.map((f) => f.p50Us)),
      p99Us: median(figures.map((f) => f.p99Us)),
      repetitions: figures.map((f) => f.callsPerSecond),
      windows: figures.flatMap((f) => f.windows),
      warmUpCalls: figures.map((f) => f.warmUpCalls),
    });
  }
  log(
    `throughput ${scenario.transport} ${scenario.era} x${scenario.concurrency}: ${[...runs.keys()].map((k) => `${k} ${Math.round(median(runs.get(k)!.map((f) => f.callsPerSecond)))}/s`).join(', ')}`,
  );
}

for (const transport of only.includes('cold-start') ? (['stdio', 'http'] as const) : []) {
  const runs = new Map<string, number[]>();
  const eligible = COLD_START.filter((c) => chosen(c) && c.transports.includes(transport));
  // A compile cache is warmed by a first, unmeasured run, as a host's first start of the server warms it.
  for (const contender of eligible.filter((c) => c.env?.NODE_COMPILE_CACHE !== undefined)) {
    await warmCompileCache(contender);
  }
  for (let rep = 0; rep < SIZES.coldStartReps; rep++) {
    for (const contender of rotation(eligible, rep)) {
      runs.set(contender.key, [...(runs.get(contender.key) ?? []), await coldStart(contender, transport)]);
    }
  }
  for (const [key, times] of runs) results.coldStart.push({ transport, contender: key, ms: median(times) });
  log(
    `cold start ${transport}: ${[...runs.keys()].map((k) => `${k} ${median(runs.get(k)!).toFixed(1)} ms`).join(', ')}`,
  );
}

for (const calls of only.includes('short-sessions') ? SIZES.sessionCalls : []) {
  const runs = new Map<string, number[]>();
  const eligible = STARTUP.filter((c) => chosen(c) && c.transports.includes('stdio'));
  for (let rep = 0; rep < SIZES.coldReps; rep++) {
    for (const contender of rotation(eligible, rep)) {
      runs.set(contender.key, [...(runs.get(contender.key) ?? []), await shortSession(contender, calls)]);
    }
  }
  for (const [key, times] of runs) {
    results.shortSessions.push({ calls, contender: key, ms: median(times), repetitions: times });
  }
  log(
    `short sessions of ${calls} calls: ${[...runs.keys()].map((k) => `${k} ${median(runs.get(k)!).toFixed(1)} ms`).join(', ')}`,
  );
}

for (const kind of only.includes('memory') ? (['sessions', 'listens'] as const) : []) {
  const eligible = CONTENDERS.filter(
    (c) => chosen(c) && MEMORY.includes(c.key) && (kind === 'sessions' || c.eras.includes('2026')),
  );
  for (const contender of eligible) {
    const figure: Memory = await memory(contender, kind, SIZES.sample, SIZES.total);
    results.memory.push({ kind, contender: contender.key, ...figure });
    log(`memory ${kind} ${contender.key}: ${Math.round(figure.bytesPerItem)} B each`);
  }
}

if (only.includes('weight')) {
  const corePack = await packed(ROOT, ROOT);
  for (const contender of CONTENDERS.filter((c) => c !== FLOOR && chosen(c))) {
    const times: number[] = [];
    for (let rep = 0; rep < SIZES.importReps; rep++) times.push(await importTime(contender, ROOT));
    const tarball =
      contender.installs === undefined
        ? corePack
        : await packed(join(ROOT, 'node_modules', contender.installs[0]!), ROOT);
    const installed =
      contender.installs === undefined
        ? { bytes: corePack.unpackedSize, files: corePack.entryCount, packages: 1 }
        : installedClosure(contender.installs, ROOT);
    results.weight.push({
      contender: contender.key,
      importMs: median(times),
      tarballBytes: tarball.size,
      tarballFiles: tarball.entryCount,
      installedBytes: installed.bytes,
      installedFiles: installed.files,
      packages: installed.packages,
    });
  }
  log('weight done');
}

if (only.includes('validation')) {
  results.validation = validationCosts(SIZES.bodyBytes, SIZES.validationReps);
  log('validation done');
}

if (only.includes('deployment')) {
  results.deployment = await deploymentCosts({ warmMs: SIZES.warmMs, measureMs: SIZES.measureMs, concurrency: 8 });
  log('deployment done');
}

// The compared contenders' rows leave the round-trips table for their own section, with the rows they are set against.
const compared = COMPARED.filter(chosen).map((c) => c.comparison);
if (compared.length > 0 && only.includes('round-trips')) {
  const involved = new Set(compared.flatMap((c) => [c.key, c.against]));
  results.middleware = {
    date: new Date().toISOString().slice(0, 10),
    compared,
    throughput: results.throughput.filter((row) => involved.has(row.contender)),
  };
  results.throughput = results.throughput.filter((row) => !compared.some((c) => c.key === row.contender));
}

results.seconds = (performance.now() - began) / 1000;
const markdown = renderMarkdown(
  results,
  CORES.map((c) => c.key),
);
writeFileSync(join(flags.out, 'results.md'), markdown);
writeFileSync(join(flags.out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(markdown);
