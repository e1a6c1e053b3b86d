// The deployment section of `npm run bench`: what sharing state costs per request. The scale-out worker
// (examples/scale-out.ts) served three ways in one run — alone and direct with nothing shared, alone and direct on
// Redis, and three of them on Redis behind haproxy balancing each request on its own — each era driven by the
// bench's HTTP client calling `echo`, plus the Redis commands each call cost (INFO's command counter). Needs
// redis-server and haproxy (.ci/run installs them); without them the section fails, naming the missing binary.

import { type Cleanup, findBinary, startHaproxy, startRedis, startWorker } from '../test/services.ts';
import type { Era } from './clients.ts';
import { HttpClient } from './clients.ts';

/** One measured way of serving, per era. */
export interface DeploymentRow {
  era: Era;
  /** 'direct', 'direct-redis' or 'haproxy-3-redis'. */
  setup: string;
  concurrency: number;
  callsPerSecond: number;
  p50Us: number;
  /** Redis commands per call (0 when nothing is shared). */
  redisCommandsPerCall: number;
}

/** Redis's count of commands processed so far (INFO stats), read over a fresh connection. */
async function commandsProcessed(url: string): Promise<number> {
  const { createClient } = await import('redis');
  const client = createClient({ url });
  await client.connect();
  try {
    const info = await client.info('stats');
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1]);
  } finally {
    await client.close();
  }
}

/** Calls `echo` from `concurrency` callers for `measureMs` (after `warmMs`); calls per second and the median. */
async function drive(port: number, era: Era, concurrency: number, warmMs: number, measureMs: number) {
  const client = new HttpClient(port, concurrency);
  await client.open(era);
  const latencies: number[] = [];
  const callers = (until: number, record: boolean) =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const began = performance.now();
          await client.call(era);
          if (record) latencies.push(performance.now() - began);
        }
      }),
    );
  await callers(performance.now() + warmMs, false);
  const began = performance.now();
  await callers(began + measureMs, true);
  const elapsed = performance.now() - began;
  client.close();
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    callsPerSecond: (latencies.length / elapsed) * 1000,
    p50Us: latencies[Math.floor(latencies.length / 2)]! * 1000,
  };
}

/** The deployment rows: every setup for each era, at `concurrency`, started and stopped here. */
export async function deploymentCosts(sizes: {
  warmMs: number;
  measureMs: number;
  concurrency: number;
}): Promise<DeploymentRow[]> {
  const redisBinary = findBinary('redis-server');
  const haproxyBinary = findBinary('haproxy');
  if (redisBinary === undefined) throw new Error('bench deployment: redis-server not installed (.ci/run installs it)');
  if (haproxyBinary === undefined) throw new Error('bench deployment: haproxy not installed (.ci/run installs it)');
  const stops: Array<() => unknown> = [];
  const cleanup: Cleanup = { after: (stop) => void stops.push(stop) };
  const rows: DeploymentRow[] = [];
  try {
    const redis = await startRedis(cleanup, redisBinary);
    const env = { MCP_STATE_SECRET: 'bench-deployment-secret' };
    const alone = await startWorker(cleanup, [], env);
    const onRedis = await startWorker(cleanup, ['--redis', redis.url], env);
    const fleet = await Promise.all([1, 2, 3].map(() => startWorker(cleanup, ['--redis', redis.url], env)));
    const haproxy = await startHaproxy(cleanup, haproxyBinary, {
      backends: fleet.map((worker) => worker.address),
      balance: 'roundrobin',
    });
    const setups = [
      { setup: 'direct', port: Number(new URL(alone.url).port), shared: false },
      { setup: 'direct-redis', port: Number(new URL(onRedis.url).port), shared: true },
      { setup: 'haproxy-3-redis', port: haproxy.port, shared: true },
    ];
    for (const era of ['2025', '2026'] as const) {
      for (const { setup, port, shared } of setups) {
        await drive(port, era, sizes.concurrency, 0, sizes.warmMs);
        const before = shared ? await commandsProcessed(redis.url) : 0;
        const figure = await drive(port, era, sizes.concurrency, 0, sizes.measureMs);
        // The count includes the measured client's session opening (2025): a bound from above, by a few commands.
        const commands = shared ? (await commandsProcessed(redis.url)) - before - 1 : 0; // less its own INFO
        rows.push({
          era,
          setup,
          concurrency: sizes.concurrency,
          callsPerSecond: figure.callsPerSecond,
          p50Us: figure.p50Us,
          redisCommandsPerCall: commands / figure.calls,
        });
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
  return rows;
}
