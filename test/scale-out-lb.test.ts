// The precondition of the scale-out proof: three worker processes (examples/scale-out.ts) behind a real haproxy,
// driven through ONE keep-alive client connection. With `balance roundrobin` and `option http-server-close` each
// sessionless 2026-07-28 request is balanced on its own and the three workers take turns; the negative control,
// `balance source`, pins every request on one worker. The real redis-server the later scenarios share starts and
// stops cleanly. Every process started here is stopped, and its exit observed (test/services.ts starts them). The
// balancer recipes of docs/http-deployment.md pass SSE on unbuffered, and the test configuration runs the recipe.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { after, before, type TestContext, test } from 'node:test';
import { modernHeaders, raw } from './raw-http.ts';
import {
  type Cleanup,
  type Exit,
  haproxyConfig,
  needBinary,
  ping,
  startHaproxy,
  startRedis,
  startWorker,
  type WorkerService,
} from './services.ts';
import { type Id, modern, SERVER_INFO } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time
const WORKERS = 3;
const ROUNDS = 3; // requests per test: ROUNDS × WORKERS
const INFO = { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' };

let workers: WorkerService[] = [];
const stops: Array<() => unknown> = []; // every worker's stop, even one whose start failed half way
const shared: Cleanup = { after: (stop) => void stops.push(stop) };

before(async () => {
  workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(shared)));
});

after(async () => {
  // SIGTERM drains each worker; its exit event is the proof that nothing is left running.
  const exits = await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(stops.map((stop) => stop()));
  assert.deepEqual(
    exits,
    workers.map((): Exit => ({ code: 0, signal: null })),
    workers.map((worker) => worker.output()).join('\n'),
  );
});

/**
 * `count` sessionless tools/call whoami requests, one after another on one keep-alive connection to `url`: the pid
 * each answer names. Asserts that a single client socket carried them all.
 */
async function whoamiSequence(url: string, count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const pids: number[] = [];
    const ports = new Set<number>();
    for (let i = 0; i < count; i++) {
      const id: Id = `who-${i}`;
      const frame = modern('tools/call', { name: 'whoami', arguments: {} }, id);
      const response = await raw(url, { agent, headers: modernHeaders(frame), body: JSON.stringify(frame) });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.json, {
        jsonrpc: '2.0',
        id,
        result: {
          resultType: 'complete',
          content: [{ type: 'text', text: response.json?.result?.content?.[0]?.text }],
          _meta: { [SERVER_INFO]: INFO },
        },
      });
      pids.push(Number(response.json.result.content[0].text));
      ports.add(response.localPort!);
    }
    assert.equal(ports.size, 1, `one client connection carried every request (local ports ${[...ports]})`);
    return pids;
  } finally {
    agent.destroy();
  }
}

async function haproxyIn(t: TestContext, balance: 'roundrobin' | 'source') {
  const binary = needBinary(t, 'haproxy');
  if (binary === undefined) return undefined;
  return startHaproxy(t, binary, { backends: workers.map((worker) => worker.address), balance });
}

test(
  'haproxy balance roundrobin: one keep-alive connection’s sessionless calls rotate across all three workers',
  T,
  async (t) => {
    const haproxy = await haproxyIn(t, 'roundrobin');
    if (haproxy === undefined) return;
    const pids = await whoamiSequence(haproxy.url, ROUNDS * WORKERS);
    const all = workers.map((worker) => worker.pid).sort();
    // Round robin: every run of WORKERS consecutive requests meets each worker once, in the same order each round.
    for (let round = 0; round < ROUNDS; round++) {
      const turn = pids.slice(round * WORKERS, (round + 1) * WORKERS);
      assert.deepEqual([...turn].sort(), all, `round ${round}: ${pids}`);
      assert.deepEqual(turn, pids.slice(0, WORKERS), `the same order every round: ${pids}`);
    }
    assert.deepEqual(await haproxy.stop(), { code: 0, signal: null }, haproxy.output());
  },
);

test(
  'haproxy balance source (negative control): every call of the connection lands on the same worker',
  T,
  async (t) => {
    const haproxy = await haproxyIn(t, 'source');
    if (haproxy === undefined) return;
    const pids = await whoamiSequence(haproxy.url, ROUNDS * WORKERS);
    assert.equal(new Set(pids).size, 1, `pinned: ${pids}`);
    assert.ok(
      workers.some((worker) => worker.pid === pids[0]),
      `a worker answered: ${pids}`,
    );
    assert.deepEqual(await haproxy.stop(), { code: 0, signal: null }, haproxy.output());
  },
);

test(
  'the test redis-server answers PING on loopback; stopped, it exits 0, its port refuses and its dir is gone',
  T,
  async (t) => {
    const binary = needBinary(t, 'redis-server');
    if (binary === undefined) return;
    const redis = await startRedis(t, binary);
    assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await ping(redis.port), '+PONG');
    assert.ok(existsSync(redis.dir!));
    assert.deepEqual(await redis.stop(), { code: 0, signal: null }, redis.output());
    await assert.rejects(ping(redis.port), { code: 'ECONNREFUSED' });
    assert.equal(existsSync(redis.dir!), false);
  },
);

/** The lines of the fenced block that follows `**<name>:**` in docs/http-deployment.md, trimmed, comments cut. */
function recipe(name: string): string[] {
  const docs = readFileSync(new URL('../docs/http-deployment.md', import.meta.url), 'utf8');
  const block = new RegExp(`\\*\\*${name}:\\*\\*\\n\\n\`\`\`\\n([^]*?)\`\`\``).exec(docs);
  assert.ok(block, `docs/http-deployment.md has a ${name} recipe`);
  return block[1]!.split('\n').map((line) => line.replace(/#.*/, '').trim());
}

test('the haproxy recipe and the test configuration set option http-no-delay: SSE bytes are not held back', () => {
  const documented = recipe('haproxy').filter((line) => line.startsWith('option '));
  assert.ok(documented.includes('option http-no-delay'), `the recipe's options: ${documented}`);
  // Every option of the recipe is in the configuration the scale-out tests run, so the proof runs the recipe.
  const tested = haproxyConfig(8080, ['127.0.0.1:3000'], 'roundrobin')
    .split('\n')
    .map((line) => line.trim());
  for (const option of documented) assert.ok(tested.includes(option), `the test configuration has ${option}`);
});

test('the nginx recipe turns response buffering off for SSE', () => {
  const lines = recipe('nginx');
  assert.ok(lines.includes('proxy_buffering off;'), lines.join('\n'));
  assert.ok(lines.includes('proxy_cache off;'), lines.join('\n'));
});
