// What the benchmark measures, one function per figure: call throughput and latency, cold start (and the warm-up
// of a compile cache before it), short-lived stdio sessions, memory per session / listen stream, import time and
// package weight. Each takes a contender and returns plain numbers; the orchestration (alternation, medians,
// reporting) lives in run.ts. Nothing here asserts a target.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, type IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Era,
  HttpClient,
  initializeFrame,
  openListen,
  openSession,
  type ServerProcess,
  StdioClient,
  startServer,
} from './clients.ts';

export type Transport = 'stdio' | 'http';

/** A server under test, started as its users start it. */
export interface Contender {
  key: string;
  label: string;
  node: string;
  nodeArgs: string[];
  script: string;
  /** Arguments after the transport (mcp-core.mjs: which build to load). */
  scriptArgs: string[];
  eras: Era[];
  transports: Transport[];
  /** The key of the raw floor on the same Node, which its cold start and short sessions are compared with. */
  floor: string;
  /** Entry modules a user of this contender imports (for the import-time figure). */
  imports: string[];
  /** Packages a user installs (for the installed-size figure); undefined: the packed tarball is everything. */
  installs?: string[];
  /** Environment added to the server's (NODE_COMPILE_CACHE for the compile-cache contenders). */
  env?: Record<string, string>;
  /** The key of the one-file `.ts` floor on the same Node, reported beside a stripped `.ts` build's cold start. */
  tsFloor?: string;
  /** Measured in the cold-start section only (the floors and builds on the other Nodes, and the `.ts` floors). */
  coldStartOnly?: boolean;
  /** Measured in the round trips only, as a yardstick beside the raw floor (the protocol floor), never a peer. */
  roundTripsOnly?: boolean;
}

export function start(
  contender: Contender,
  transport: Transport,
  extraNodeArgs: string[] = [],
): Promise<ServerProcess> {
  return startServer(
    contender.node,
    [...contender.nodeArgs, ...extraNodeArgs, contender.script, transport, ...contender.scriptArgs],
    transport,
    contender.env,
  );
}

export interface Throughput {
  callsPerSecond: number;
  p50Us: number;
  p99Us: number;
  /** Calls/s of each recorded window, in the order they ran: the contenders' windows of one turn pair up (run.ts). */
  windows: number[];
  /** Calls the server answered in its warm-up by count (`RoundTrips.warmUp`), before any window. */
  warmUpCalls: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/**
 * A server under test with the client of its callers open. Round trips run in windows, so that several contenders'
 * servers can stay up together and take turns (run.ts): a change in the machine's load then meets all of them.
 */
export interface RoundTrips {
  /**
   * Back-to-back echo calls by every caller until the server has answered `calls` in all or `capMs` has passed, none
   * recorded. V8 tiers a function up by how often it has run, not by the clock, so a one-caller HTTP server needs
   * seconds where a pipelined stdio one needs a fraction of one (bench/README.md, What is measured).
   */
  warmUp(calls: number, capMs: number): Promise<void>;
  /** `ms` of back-to-back echo calls by every caller; a `record`ed window counts (its calls, time and latencies). */
  window(ms: number, record: boolean): Promise<void>;
  /** Calls per second and latency percentiles over the recorded windows. */
  figure(): Throughput;
  stop(): Promise<void>;
}

/** Starts `contender` and opens the client of `concurrency` callers of the echo tool (a 2025 session, or none). */
export async function roundTrips(
  contender: Contender,
  transport: Transport,
  era: Era,
  concurrency: number,
): Promise<RoundTrips> {
  const server = await start(contender, transport);
  const client = transport === 'stdio' ? new StdioClient(server.child) : new HttpClient(server.port, concurrency);
  const stop = async (): Promise<void> => {
    if (client instanceof HttpClient) client.close();
    await server.stop();
  };
  try {
    await client.open(era);
  } catch (error) {
    await stop();
    throw error;
  }
  const latencies: number[] = [];
  const windows: number[] = [];
  let elapsed = 0;
  let warmUpCalls = 0;
  const drive = async (until: number, record: boolean): Promise<void> => {
    while (performance.now() < until) {
      const began = performance.now();
      await client.call(era);
      if (record) latencies.push(performance.now() - began);
    }
  };
  return {
    async warmUp(calls, capMs) {
      const until = performance.now() + capMs;
      let started = 0;
      const caller = async (): Promise<void> => {
        while (started < calls && performance.now() < until) {
          started++;
          await client.call(era);
          warmUpCalls++;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, caller));
    },
    async window(ms, record) {
      const began = performance.now();
      const before = latencies.length;
      await Promise.all(Array.from({ length: concurrency }, () => drive(began + ms, record)));
      if (!record) return;
      const took = performance.now() - began;
      elapsed += took;
      windows.push(((latencies.length - before) / took) * 1000);
    },
    figure() {
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        callsPerSecond: (sorted.length / elapsed) * 1000,
        p50Us: percentile(sorted, 0.5) * 1000,
        p99Us: percentile(sorted, 0.99) * 1000,
        windows,
        warmUpCalls,
      };
    },
    stop,
  };
}

/** Milliseconds from spawn to the answer of the first request (a 2025 `initialize`). */
export async function coldStart(contender: Contender, transport: Transport): Promise<number> {
  const began = performance.now();
  const server = await start(contender, transport);
  try {
    if (transport === 'http') {
      await openSession(false, server.port);
    } else {
      await new Promise<void>((resolve) => {
        server.child.stdout!.once('data', () => resolve());
        server.child.stdin!.write(`${initializeFrame(0)}\n`);
      });
    }
    return performance.now() - began;
  } finally {
    await server.stop();
  }
}

/** How long a short-lived session's server may take to exit once its stdin is closed. */
const EXIT_WAIT_MS = 5_000;

/**
 * Milliseconds from spawn to process exit for a short-lived stdio session, as a CLI client runs one: initialize,
 * notifications/initialized, tools/list, `calls` sequential echo calls, then stdin closed. NaN when the server
 * is still running EXIT_WAIT_MS after its stdin closed (it does not exit at end of input).
 */
export async function shortSession(contender: Contender, calls: number): Promise<number> {
  const began = performance.now();
  const server = await start(contender, 'stdio');
  const exited = new Promise<number>((resolve) => server.child.once('exit', () => resolve(performance.now())));
  try {
    const client = new StdioClient(server.child);
    await client.open('2025');
    await client.list();
    for (let call = 0; call < calls; call++) await client.call('2025');
    server.child.stdin!.end();
    const timeout = new AbortController();
    const end = await Promise.race([
      exited,
      delay(EXIT_WAIT_MS, Number.NaN, { signal: timeout.signal }).catch(() => Number.NaN),
    ]);
    timeout.abort();
    return end - began;
  } finally {
    await server.stop();
  }
}

/**
 * Fills a compile-cache contender's cache (the directory in its NODE_COMPILE_CACHE, emptied first) with one short
 * session: Node writes the cache when the process exits, and a cold start ends in SIGKILL, which writes nothing.
 * Throws when the directory holds no file afterwards (that Node cached nothing, or the server did not exit).
 */
export async function warmCompileCache(contender: Contender): Promise<void> {
  const dir = contender.env?.NODE_COMPILE_CACHE;
  if (dir === undefined) throw new Error(`${contender.key} has no NODE_COMPILE_CACHE to warm`);
  rmSync(dir, { recursive: true, force: true });
  await shortSession(contender, 1);
  const files = existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    : [];
  if (files.length === 0) throw new Error(`${contender.key}: no compile cache written to ${dir}`);
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Collects garbage in the server (its bench script runs gc() on SIGUSR2) and reads its resident set size. */
async function settledRss(server: ServerProcess): Promise<number> {
  for (let round = 0; round < 2; round++) {
    server.child.kill('SIGUSR2');
    await delay(200);
  }
  return rssBytes(server.child.pid!);
}

export interface Memory {
  rssBaseBytes: number;
  rssAtSampleBytes: number;
  bytesPerItem: number;
  items: number;
}

/**
 * RSS after `sample` items, and bytes per item over `total` more of them: idle 2025 HTTP sessions (initialized, no
 * GET stream) or open 2026 `subscriptions/listen` streams (acknowledged). The per-item figure is marginal (from the
 * sample on), so that the one-off growth of V8's young generation and of the allocator's arenas while the server
 * warms up is not charged to the items.
 */
export async function memory(
  contender: Contender,
  kind: 'sessions' | 'listens',
  sample: number,
  total: number,
): Promise<Memory> {
  const server = await start(contender, 'http', ['--expose-gc']);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const streams: IncomingMessage[] = [];
  let opened = 0;
  const openOne = async (): Promise<void> => {
    const id = opened++;
    if (kind === 'sessions') await openSession(agent, server.port);
    else streams.push(await openListen(server.port, id));
  };
  const openUpTo = async (count: number): Promise<void> => {
    const lanes = kind === 'sessions' ? 8 : 32;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (opened < count) await openOne();
      }),
    );
  };
  try {
    await openUpTo(1);
    const base = await settledRss(server);
    await openUpTo(sample);
    const atSample = await settledRss(server);
    await openUpTo(sample + total);
    const atTotal = await settledRss(server);
    return { rssBaseBytes: base, rssAtSampleBytes: atSample, bytesPerItem: (atTotal - atSample) / total, items: total };
  } finally {
    for (const stream of streams) stream.destroy();
    agent.destroy();
    await server.stop();
  }
}

/** Milliseconds to import the contender's entry modules in a fresh process (node startup excluded). */
export async function importTime(contender: Contender, cwd: string): Promise<number> {
  const program =
    `const t = performance.now(); ${contender.imports.map((m) => `await import(${JSON.stringify(m)});`).join(' ')}` +
    ' process.stdout.write(String(performance.now() - t));';
  return Number(await output(contender.node, [...contender.nodeArgs, '--input-type=module', '-e', program], cwd));
}

export function output(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.once('error', reject);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`${command} ${args.join(' ')} exited ${code}`)),
    );
  });
}

export interface Weight {
  tarballBytes: number;
  tarballFiles: number;
  installedBytes: number;
  installedFiles: number;
  packages: number;
}

interface PackSummary {
  size: number;
  entryCount: number;
  unpackedSize: number;
}

/** The packed tarball of `dir` (npm pack --dry-run, offline). */
export async function packed(dir: string, cwd: string): Promise<PackSummary> {
  const json = await output('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', dir], cwd);
  return (JSON.parse(json) as PackSummary[])[0]!;
}

function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function directorySize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = directorySize(path);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += statSync(path).size;
      files += 1;
    }
  }
  return { bytes, files };
}

/** What `npm install <packages>` puts in a user's node_modules: the dependency closure as installed here. */
export function installedClosure(packages: string[], root: string): { bytes: number; files: number; packages: number } {
  const seen = new Set<string>();
  const queue = packages.map((name) => ({ name, from: root }));
  let bytes = 0;
  let files = 0;
  while (queue.length > 0) {
    const { name, from } = queue.shift()!;
    const dir = packageDir(name, from);
    if (dir === undefined || seen.has(dir)) continue;
    seen.add(dir);
    const size = directorySize(dir);
    bytes += size.bytes;
    files += size.files;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      queue.push({ name: dep, from: dir });
    }
  }
  return { bytes, files, packages: seen.size };
}
