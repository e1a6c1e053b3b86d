// The benchmark harness itself (npm run bench) at smoke size: every contender starts, answers every scenario in the
// eras and on the transports it serves, runs short stdio sessions to exit, the cold-start rows of every Node (the
// floors, the one-file `.ts` floors, the `.ts` sources stripped and with a warmed compile cache) start once, every
// validation case runs, the deployment rows (direct, on Redis, three workers behind haproxy) are measured per era,
// the builds with one pass-through middleware and a baseline dist run the round trips only (issue 26), and every
// figure lands in results.json and results.md. Asserts shape, never speed; the report's paired verdicts are checked on
// synthetic slices.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Results, renderMarkdown } from '../bench/report.ts';
import { VALIDATION_CASES } from '../bench/validation.ts';

const RUN = fileURLToPath(new URL('../bench/run.ts', import.meta.url));
const RESULTS = fileURLToPath(new URL('../bench/results.json', import.meta.url));
const DIST = fileURLToPath(new URL('../dist', import.meta.url));
const PROTOCOL_FLOOR = fileURLToPath(new URL('../bench/servers/protocol-floor.mjs', import.meta.url));
const CORE_SERVER = fileURLToPath(new URL('../bench/servers/mcp-core.mjs', import.meta.url));

test('npm run bench -- --smoke measures every contender on every transport x era and writes the report', {
  timeout: 300_000,
}, async () => {
  const out = await mkdtemp(join(tmpdir(), 'mcp-bench-'));
  try {
    const exitCode = await new Promise<number | null>((resolve) => {
      // This tree's own dist stands in for the core before a change (--baseline-dist).
      const args = [RUN, '--smoke', '--out', out, '--baseline-dist', DIST];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.once('exit', (code) => {
        if (code !== 0) process.stderr.write(stderr);
        resolve(code);
      });
    });
    assert.equal(exitCode, 0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
    const keys = results.contenders.map((c) => c.key);
    assert.deepEqual(keys, [
      'floor',
      'floor-dev',
      'floor-ts-22',
      'core-dist-22',
      'core-dist',
      'core-ts',
      'sdk-v2',
      'sdk-v1',
      'tmcp',
      'fastmcp',
      'mcp-lite',
      'floor-24',
      'floor-ts-24',
      'core-ts-24',
      'core-ts-cache-24',
      'floor-26',
      'floor-ts-26',
      'core-ts-26',
      'core-ts-cache-26',
      'floor-protocol',
    ]);
    // Every contender serving `transport` (and `era`) in `section`: cold start keeps the cold-start-only runs of the
    // other Nodes, only the round trips keep the protocol floor.
    const serving = (transport: string, era?: string, section: 'round trips' | 'cold start' | 'other' = 'other') =>
      results.contenders
        .filter(
          (c) =>
            (section === 'cold start' || c.coldStartOnly !== true) &&
            (section === 'round trips' || c.roundTripsOnly !== true) &&
            c.transports!.includes(transport as 'stdio' | 'http') &&
            (era === undefined || c.eras.includes(era as '2025' | '2026')),
        )
        .map((c) => c.key);
    for (const transport of ['stdio', 'http']) {
      for (const era of ['2025', '2026']) {
        for (const concurrency of [1, 8]) {
          const rows = results.throughput.filter(
            (r) => r.transport === transport && r.era === era && r.concurrency === concurrency,
          );
          const expected = serving(transport, era, 'round trips');
          assert.deepEqual(
            rows.map((r) => r.contender).sort(),
            [...expected].sort(),
            `${transport} ${era} x${concurrency}`,
          );
          for (const row of rows) assert.ok(row.callsPerSecond > 0 && row.p99Us >= row.p50Us, JSON.stringify(row));
        }
      }
      assert.deepEqual(
        results.coldStart
          .filter((r) => r.transport === transport)
          .map((r) => r.contender)
          .sort(),
        serving(transport, undefined, 'cold start').sort(),
      );
    }
    for (const row of results.coldStart) assert.ok(row.ms > 0, JSON.stringify(row));
    // Each stripped `.ts` run stands beside the one-file `.ts` floor of its Node; the cached runs against the floor.
    const contender = new Map(results.contenders.map((c) => [c.key, c]));
    for (const major of [22, 24, 26]) {
      const ts = major === 22 ? 'core-ts' : `core-ts-${major}`;
      assert.equal(contender.get(ts)?.tsFloor, `floor-ts-${major}`);
      assert.equal(contender.get(`floor-ts-${major}`)?.floor, major === 22 ? 'floor-dev' : `floor-${major}`);
    }
    for (const major of [24, 26]) assert.equal(contender.get(`core-ts-cache-${major}`)?.floor, `floor-${major}`);
    // The built dist on Node 22 stands beside the `.ts` run of that Node, against the same floor (README.md, Vendoring).
    assert.equal(contender.get('core-dist-22')?.floor, contender.get('core-ts')?.floor);
    const sessionCalls = [...new Set(results.shortSessions!.map((r) => r.calls))];
    assert.equal(sessionCalls.length, 3);
    for (const calls of sessionCalls) {
      const rows = results.shortSessions!.filter((r) => r.calls === calls);
      assert.deepEqual(
        rows.map((r) => r.contender).sort(),
        serving('stdio').sort(),
        `short sessions of ${calls} calls`,
      );
      for (const row of rows) {
        assert.ok(typeof row.ms === 'number' && row.ms > 0, `${JSON.stringify(row)} exits at end of input`);
        // Each round's session is kept for the paired verdict (smoke: one round, so the median is that session).
        assert.deepEqual(row.repetitions, [row.ms]);
      }
    }
    assert.deepEqual(
      results.memory.filter((r) => r.kind === 'sessions').map((r) => r.contender),
      ['core-dist', 'core-ts', 'sdk-v2', 'sdk-v1'],
    );
    assert.deepEqual(
      results.memory.filter((r) => r.kind === 'listens').map((r) => r.contender),
      ['core-dist', 'core-ts', 'sdk-v2'],
    );
    assert.deepEqual(
      results.weight.map((r) => r.contender),
      ['core-dist', 'core-ts', 'sdk-v2', 'sdk-v1', 'tmcp', 'fastmcp', 'mcp-lite'],
    );
    assert.deepEqual(
      results.validation?.map((r) => r.name),
      VALIDATION_CASES.map((c) => c.name),
    );
    for (const row of results.validation ?? [])
      assert.ok(row.bytes > 0 && row.parseMs > 0 && row.validateMs >= 0, JSON.stringify(row));
    assert.deepEqual(
      results.deployment?.map((r) => `${r.era} ${r.setup}`),
      ['2025', '2026'].flatMap((era) => ['direct', 'direct-redis', 'haproxy-3-redis'].map((s) => `${era} ${s}`)),
    );
    for (const row of results.deployment ?? []) {
      assert.ok(row.callsPerSecond > 0, JSON.stringify(row));
      // Nothing shared direct; on Redis a call costs commands (a 2025 call loads its session record).
      if (row.setup === 'direct') assert.equal(row.redisCommandsPerCall, 0);
      else if (row.era === '2025') assert.ok(row.redisCommandsPerCall >= 1, JSON.stringify(row));
    }
    // The middleware builds and the baseline dist run in the round trips only (the lists above hold none of them), in
    // a section of their own beside the builds they are set against (issue 26).
    const middleware = results.middleware!;
    assert.deepEqual(
      middleware.compared.map((c) => `${c.key} against ${c.against}: ${c.kind}`),
      [
        'core-dist-mw against core-dist: middleware',
        'core-ts-mw against core-ts: middleware',
        'core-dist-base against core-dist: baseline',
      ],
    );
    for (const transport of ['stdio', 'http']) {
      for (const era of ['2025', '2026']) {
        for (const concurrency of [1, 8]) {
          const rows = middleware.throughput.filter(
            (r) => r.transport === transport && r.era === era && r.concurrency === concurrency,
          );
          assert.deepEqual(
            rows.map((r) => r.contender).sort(),
            ['core-dist', 'core-dist-base', 'core-dist-mw', 'core-ts', 'core-ts-mw'],
            `middleware ${transport} ${era} x${concurrency}`,
          );
          for (const row of rows) assert.deepEqual(row.repetitions, [row.callsPerSecond], JSON.stringify(row));
        }
      }
    }
    const markdown = await readFile(join(out, 'results.md'), 'utf8');
    // The report marks each cold-start target met or missed, and sets each stripped run beside its `.ts` floor.
    const line = (prefix: string) => markdown.split('\n').find((l) => l.startsWith(prefix)) ?? `no line ${prefix}`;
    for (const major of [24, 26]) {
      assert.match(
        line(`| mcp-core (.ts + compile cache, Node ${major}) cold start stdio: ≤ 1.3× raw floor (Node ${major}) |`),
        / \| [\d.]+× \| (met|\*\*missed\*\*) \|$/,
      );
    }
    // A round-trip target is judged on its paired ratio, which 2 slices (the smoke run's) cannot resolve; in both eras
    // it shows the protocol floor's ratio beside it. Intervals: the synthetic tests below.
    const unresolved = 'not resolved \\(too few slices for an interval\\)';
    for (const era of ['2025-11-25', '2026-07-28']) {
      assert.match(
        line(`| mcp-core (dist, machine Node) http ${era} ×1: ≥ 0.95× floor |`),
        new RegExp(`\\| [\\d.]+× floor \\(protocol floor [\\d.]+×\\) \\| ${unresolved} \\|$`),
      );
    }
    // The `.ts` sources run on Node 22: their round trips are set against the floor on Node 22.
    assert.match(
      line('| mcp-core (.ts, Node 22) http 2025-11-25 ×1: ≥ 0.95× raw floor (Node 22) |'),
      new RegExp(`\\| [\\d.]+× raw floor \\(Node 22\\) \\(protocol floor [\\d.]+×\\) \\| ${unresolved} \\|$`),
    );
    // Each round-trip row keeps the calls/s of every measured slice (smoke: 1 repetition of 2 slices).
    for (const row of results.throughput) assert.equal(row.windows?.length, 2, JSON.stringify(row));
    // Before its windows, each server answered the warm-up's count of calls (smoke: 20, well inside its 5 s cap).
    for (const row of results.throughput) assert.deepEqual(row.warmUpCalls, [20], JSON.stringify(row));
    for (const ts of ['(.ts, Node 22)', '(.ts, Node 24)', '(.ts, Node 26)']) {
      assert.match(
        line(`| mcp-core ${ts} cold start stdio: reported beside one-file .ts floor`),
        /× \.ts floor \| no target \|$/,
      );
    }
    // In the middleware section: the cost per build against the 3 % target, then the baseline's ratio.
    const section = markdown.slice(markdown.indexOf('## Middleware cost')).split('\n');
    const rowsOf = (prefix: string) => section.filter((l) => l.startsWith(prefix));
    assert.match(
      rowsOf('| http | 2026-07-28 | 8 | mcp-core (.ts, Node 22) | ')[0] ?? 'no middleware row',
      /^(\| [^|]+){4}\| \d+ \| – \| \d+ \| – \| -?[\d.]+ % \| not resolved \(too few slices for an interval\) \|$/,
    );
    assert.match(
      rowsOf('| http | 2026-07-28 | 8 | ').at(-1) ?? 'no baseline row',
      /^(\| [^|]+){3}(\| \d+ \| – ){2}\| [\d.]+× \|$/,
    );
    assert.match(
      line('| mcp-core (dist, machine Node) cold start stdio: ≤ 1.1× raw floor |'),
      /(met|\*\*missed\*\*) \|$/,
    );
    for (const heading of [
      '## Echo tool round trips',
      '## Cold start',
      '## Short-lived stdio sessions',
      '## Memory',
      '## Package weight',
      '## Argument validation',
      '## Deployment: the cost of sharing state',
      '## Middleware cost (issue 26, ',
      '## Targets (mcp-core)',
    ]) {
      assert.ok(markdown.includes(heading), heading);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test('--out names a directory that does not exist yet: the bench makes it before it runs anything', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'mcp-bench-out-'));
  try {
    const out = join(parent, 'a', 'b');
    // --render measures nothing, so this is quick; a full run makes the directory at the same point, before it starts.
    const run = spawnSync(process.execPath, [RUN, '--render', RESULTS, '--out', out], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.ok((await readFile(join(out, 'results.md'), 'utf8')).startsWith('# Benchmark results'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

/** A JSON-RPC answer as the servers write it. */
interface Answer {
  id: number;
  error?: { code: number };
}

test('the protocol floor answers and refuses 2026-07-28 calls as mcp-core does, with the same codes', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const call = (params: Record<string, unknown>) => ({
    name: 'echo',
    arguments: { text: 'hi' },
    _meta: meta,
    ...params,
  });
  const frames = [
    call({}),
    call({ _meta: undefined }),
    call({ _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
    call({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    call({ arguments: { text: 1 } }),
    call({ arguments: [] }),
    call({ name: 'nope' }),
  ].map((params, id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`);
  // Each server reads every frame, answers, and exits at end of input. A result is kept as the line it was written
  // (the same bytes, key order included), an error as its code; in id order.
  const answers = (script: string, ...args: string[]) => {
    const run = spawnSync(process.execPath, [script, 'stdio', ...args], { input: frames.join(''), encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    const read = lines.map((line) => ({ line, answer: JSON.parse(line) as Answer }));
    return read.sort((a, b) => a.answer.id - b.answer.id).map(({ line, answer }) => answer.error?.code ?? line);
  };
  const floor = answers(PROTOCOL_FLOOR);
  assert.deepEqual(floor, answers(CORE_SERVER, 'dist'));
  assert.deepEqual(floor.slice(1, 4), [-32602, -32022, -32602]);
  assert.match(String(floor[4]), /"isError":true,"resultType":"complete"/);
  assert.deepEqual(floor.slice(5), [-32602, -32602]);
});

test('the protocol floor answers and refuses 2025 calls as mcp-core does, with the same codes', () => {
  const initialize = (id: number, protocolVersion: unknown) => ({
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'smoke', version: '1' } },
  });
  const call = (id: number, params: unknown) => ({ id, method: 'tools/call', params });
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  /** Each frame's answer (a result as its line, an error as its code) from both servers, in id order. */
  const both = (messages: Record<string, unknown>[]) => {
    const input = messages.map((message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`).join('');
    const answers = (script: string, ...args: string[]) => {
      const run = spawnSync(process.execPath, [script, 'stdio', ...args], { input, encoding: 'utf8', timeout: 30_000 });
      assert.equal(run.status, 0, run.stderr);
      const read = run.stdout
        .trim()
        .split('\n')
        .map((line) => ({ line, answer: JSON.parse(line) as Answer }));
      return read.sort((a, b) => a.answer.id - b.answer.id).map(({ line, answer }) => answer.error?.code ?? line);
    };
    const floor = answers(PROTOCOL_FLOOR);
    assert.deepEqual(floor, answers(CORE_SERVER, 'dist'));
    return floor;
  };
  const current = both([
    call(0, { name: 'echo', arguments: { text: 'hi' } }), // before the handshake
    initialize(1, '2025-11-25'),
    { method: 'notifications/initialized' },
    call(2, { name: 'echo', arguments: { text: 'hi' } }),
    call(3, { name: 'echo', arguments: { text: 1 } }),
    call(4, { name: 'echo', arguments: [] }),
    call(5, { name: 'nope', arguments: { text: 'hi' } }),
    call(6, { name: 'echo', arguments: { text: 'hi' }, _meta: envelope }), // a 2026-07-28 request on a 2025 connection
    initialize(7, '2025-06-18'), // a repeated initialize keeps the handshake made
  ]);
  assert.equal(current[0], -32600);
  assert.match(String(current[1]), /"protocolVersion":"2025-11-25"/);
  assert.equal(current[2], '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}');
  assert.match(String(current[3]), /"isError":true}}$/);
  assert.deepEqual(current.slice(4, 7), [-32602, -32602, -32600]);
  assert.match(String(current[7]), /"protocolVersion":"2025-11-25"/);
  // An older revision asked for is answered with it, and refuses bad arguments as -32602; an unknown one gets the
  // newest; a malformed initialize is -32602.
  const older = both([initialize(0, '2025-03-26'), call(1, { name: 'echo', arguments: { text: 1 } })]);
  assert.match(String(older[0]), /"protocolVersion":"2025-03-26"/);
  assert.equal(older[1], -32602);
  assert.match(String(both([initialize(0, '1999-01-01')])[0]), /"protocolVersion":"2025-11-25"/);
  assert.deepEqual(
    both([initialize(0, 5), { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }]),
    [-32602, -32602],
  );
});

test('over HTTP the protocol floor keeps 2025 sessions as mcp-core does, with the same statuses', async (t) => {
  /** Starts `script` over HTTP; resolves with its port once it prints it (stopped when the test ends). */
  const start = (script: string, ...args: string[]) => {
    const child = spawn(process.execPath, [script, 'http', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => child.kill());
    return new Promise<number>((resolve, reject) => {
      let printed = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        printed += chunk;
        const match = /listening (\d+)/.exec(printed);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', () => reject(new Error(`${script} exited before listening`)));
    });
  };
  /** What one server answers to the steps of a session: each POST's status, or a 200's body as its text. */
  const session = async (port: number) => {
    const post = async (headers: Record<string, string>, message: Record<string, unknown>) => {
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: response.status, text: await response.text(), id: response.headers.get('mcp-session-id') };
    };
    const initialize = (clientInfo: unknown) => ({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
    });
    const refused = await post({}, initialize('nobody')); // answered, but opens no session
    const init = await post({}, initialize({ name: 'smoke', version: '1' }));
    assert.equal(refused.id, null);
    assert.equal(typeof init.id, 'string');
    const ours = { 'mcp-session-id': init.id!, 'mcp-protocol-version': '2025-11-25' };
    const initialized = { method: 'notifications/initialized' };
    const echo = { id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };
    const steps = [
      refused,
      init,
      await post(ours, initialized),
      await post(ours, echo),
      await post({ 'mcp-protocol-version': '2025-11-25' }, echo), // no session id
      await post({ ...ours, 'mcp-session-id': 'unknown' }, echo),
      await post({ ...ours, 'mcp-session-id': 'unknown' }, initialized),
      await post({ ...ours, 'mcp-protocol-version': '2025-06-18' }, echo), // not the negotiated version
      await post({ ...ours, 'mcp-protocol-version': '2025-06-18' }, initialized),
      await post({ ...ours, 'mcp-protocol-version': '1999-01-01' }, echo), // not a version at all
    ];
    // A refusal in a body is compared by its code, as the protocol floor words its messages more plainly.
    const codeOrText = (text: string) => (JSON.parse(text) as { error?: { code: number } }).error?.code ?? text;
    return steps.map(({ status, text }) => (status === 200 ? codeOrText(text) : status));
  };
  const [floor, core] = await Promise.all([start(PROTOCOL_FLOOR), start(CORE_SERVER, 'dist')]);
  const answers = await session(floor);
  assert.deepEqual(answers, await session(core));
  assert.deepEqual(answers.slice(0, 1), [-32602]);
  assert.match(String(answers[1]), /"protocolVersion":"2025-11-25"/);
  assert.deepEqual(answers.slice(2), [
    202,
    '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}',
    400,
    404,
    404,
    400,
    400,
    400,
  ]);
});

/** The rest of the report's line that starts with `prefix`, the dist as the one mcp-core build; undefined if none. */
function lineAfter(results: Results, prefix: string): string | undefined {
  return renderMarkdown(results, ['core-dist'])
    .split('\n')
    .find((line) => line.startsWith(prefix))
    ?.slice(prefix.length);
}

test('a round-trip target is judged on its slice-by-slice ratios to the floor: met, missed, or not resolved', () => {
  const scenario = { transport: 'stdio', era: '2026', concurrency: 1, p50Us: 50, p99Us: 100 } as const;
  const row = (contender: string, windows: number[]) => ({
    ...scenario,
    contender,
    callsPerSecond: windows.reduce((sum, calls) => sum + calls, 0) / windows.length,
    windows,
  });
  const scaled = (windows: number[], by: number) => windows.map((calls) => calls * by);
  /** The target line of mcp-core's stdio 2026-07-28 ×1 row when its slices ran at `core` calls/s against `floor`. */
  const judged = (floor: number[], core: number[]) => {
    const results: Results = {
      machine: { node: 'v20', devNode: 'v22', cores: 2, smoke: false },
      contenders: ['floor', 'sdk-v2', 'core-dist'].map((key) => ({ key, label: key, eras: ['2026'] })),
      throughput: [row('floor', floor), row('sdk-v2', scaled(floor, 0.5)), row('core-dist', core)],
      coldStart: [],
      memory: [],
      weight: [],
      seconds: 0,
    };
    return lineAfter(results, '| core-dist stdio 2026-07-28 ×1: ≥ 0.95× floor | ');
  };
  // The load halves the floor's calls/s in half the slices; mcp-core, at 0.96× the floor in every slice, is met.
  const loaded = Array.from({ length: 30 }, (_, slice) => (slice % 2 === 0 ? 1000 : 500));
  assert.equal(judged(loaded, scaled(loaded, 0.96)), '0.96× floor (0.96–0.96) | met |');
  // 31 ratios from 0.80 to 1.10: the median 0.95, its interval the 10th to the 22nd ratio (P(Binomial(31, ½) < 10)
  // ≤ 2.5 %), across the target.
  const steady = Array.from({ length: 31 }, () => 1000);
  const spread = steady.map((_, slice) => 800 + 10 * slice);
  assert.equal(judged(steady, spread), '0.95× floor (0.89–1.01) | not resolved (the interval spans 0.95×) |');
  assert.equal(
    judged(
      steady,
      spread.map((calls) => calls - 120),
    ),
    '0.83× floor (0.77–0.89) | **missed** |',
  );
  // Under 6 slices no interval holds the median 95 % of the time: not resolved, whatever the ratios.
  const few = steady.slice(0, 5);
  assert.equal(judged(few, few), '1.00× floor | not resolved (too few slices for an interval) |');
});

test('a short session is judged on its paired ratios to the floor, repetition by repetition: met, missed, or not resolved', () => {
  type Session = NonNullable<Results['shortSessions']>[number];
  /** A session row; `kept` false for a run from before the repetitions were kept (its median only: here the first). */
  const session = (contender: string, repetitions: (number | null)[], kept: boolean): Session => ({
    calls: 1_000,
    contender,
    ms: repetitions[0] ?? null,
    ...(kept ? { repetitions } : {}),
  });
  /** The target line of the dist's 1 000-call session when its repetitions took `core` ms against the floor's. */
  const judged = (floor: (number | null)[], core: (number | null)[], kept = true) => {
    const results: Results = {
      machine: { node: 'v20', devNode: 'v22', cores: 2, smoke: false },
      contenders: ['floor', 'core-dist'].map((key) => ({ key, label: key, eras: ['2025'] })),
      throughput: [],
      coldStart: [],
      shortSessions: [session('floor', floor, kept), session('core-dist', core, kept)],
      memory: [],
      weight: [],
      seconds: 0,
    };
    return lineAfter(results, '| core-dist short session of 1000 calls: ≤ 1.15× floor | ');
  };
  // The machine slows every other round by half; mcp-core at 1.10× the floor's session of each round is met, with an
  // interval of no width: the load moves both sides of a pair, not their ratio.
  const rounds = Array.from({ length: 15 }, (_, round) => (round % 2 === 0 ? 2_000 : 1_000));
  assert.equal(
    judged(
      rounds,
      rounds.map((ms) => ms * 1.1),
    ),
    '1.10× (1.10–1.10) | met |',
  );
  // 15 ratios from 1.08 to 1.22: the median 1.15, its interval the 4th to the 12th (P(Binomial(15, ½) < 4) ≤ 2.5 %).
  const steady = Array.from({ length: 15 }, () => 100);
  const spread = steady.map((_, round) => 108 + round);
  assert.equal(judged(steady, spread), '1.15× (1.11–1.19) | not resolved (the interval spans 1.15×) |');
  assert.equal(
    judged(
      steady,
      spread.map((ms) => ms + 10),
    ),
    '1.25× (1.21–1.29) | **missed** |',
  );
  // A server that did not exit (null) leaves its round out; under 6 rounds left, no interval.
  assert.equal(
    judged(steady.slice(0, 6), [110, 110, 110, 110, 110, null]),
    '1.10× | not resolved (too few repetitions for an interval) |',
  );
  // A run from before the repetitions were kept is judged on the ratio of its medians.
  assert.equal(judged([100], [110], false), '1.10× | met |');
});

test("a build on another Node is judged against the floor on its own Node, the peers' ratios against the machine's", () => {
  const scenario = { transport: 'http', era: '2026', concurrency: 1, p50Us: 50, p99Us: 100 } as const;
  const row = (contender: string, calls: number) => ({
    ...scenario,
    contender,
    callsPerSecond: calls,
    windows: Array.from({ length: 30 }, () => calls),
  });
  const contender = (key: string, label: string, floor: string) => ({ key, label, eras: ['2026' as const], floor });
  const results: Results = {
    machine: { node: 'v20', devNode: 'v22', cores: 2, smoke: false },
    contenders: [
      contender('floor', 'raw floor', 'floor'),
      contender('floor-dev', 'raw floor (Node 22)', 'floor-dev'),
      contender('floor-protocol', 'protocol floor', 'floor'),
      contender('core-ts', 'ts build', 'floor-dev'),
      contender('sdk-v2', 'SDK v2', 'floor'),
    ],
    // Node 22's floor runs at 0.8× Node 20's; the `.ts` build at 0.76× Node 20's floor is 0.95× its own Node's.
    throughput: [
      row('floor', 1000),
      row('floor-dev', 800),
      row('floor-protocol', 980),
      row('core-ts', 760),
      row('sdk-v2', 250),
    ],
    coldStart: [],
    memory: [],
    weight: [],
    seconds: 0,
  };
  const lines = renderMarkdown(results, ['core-ts']).split('\n');
  assert.ok(lines.includes('| http | 2026-07-28 | 1 | ts build | 760 | 0.95× | 3.04× | 50 | 100 |'));
  assert.ok(lines.includes('| http | 2026-07-28 | 1 | SDK v2 | 250 | 0.25× | 1.00× | 50 | 100 |'));
  assert.ok(lines.includes('× floor is against the raw floor on the same Node.'));
  assert.ok(
    lines.includes(
      '| ts build http 2026-07-28 ×1: ≥ 0.95× raw floor (Node 22) | 0.95× raw floor (Node 22) (0.95–0.95; protocol floor 0.98×, 0.98–0.98) | met |',
    ),
  );
  // SDK v2 at 0.25× the machine's floor is within the 3.5× target's reach (at 0.31× Node 22's floor it would not be).
  assert.ok(lines.includes('| ts build http 2026-07-28 ×1: ≥ 3.5× SDK v2 | 3.04× SDK v2 | **missed** |'));
  // A run without round trips of the floor on Node 22 (one before it joined them) sets the build against the
  // machine's floor, and says so.
  const older = renderMarkdown(
    { ...results, throughput: results.throughput.filter((r) => r.contender !== 'floor-dev') },
    ['core-ts'],
  ).split('\n');
  assert.ok(
    older.includes(
      '| ts build http 2026-07-28 ×1: ≥ 0.95× floor | 0.76× floor (0.76–0.76; protocol floor 0.98×, 0.98–0.98) | **missed** |',
    ),
  );
  assert.ok(
    older.some((line) => line.startsWith('× floor is against the raw floor on the same Node, but for the builds')),
  );
});

test("beside a round-trip target the protocol floor's own paired ratio shows whether the protocol's work alone keeps to it", () => {
  const scenario = { transport: 'stdio', era: '2026', concurrency: 1, p50Us: 50, p99Us: 100 } as const;
  // 30 turns, each slice's calls a second given by its turn.
  const row = (contender: string, calls: (turn: number) => number) => {
    const windows = Array.from({ length: 30 }, (_, turn) => calls(turn));
    return { ...scenario, contender, callsPerSecond: windows[15]!, windows };
  };
  const contender = (key: string, label: string) => ({ key, label, eras: ['2026' as const], floor: 'floor' });
  const results: Results = {
    machine: { node: 'v20', devNode: 'v22', cores: 2, smoke: false },
    contenders: [
      contender('floor', 'raw floor'),
      contender('floor-protocol', 'protocol floor'),
      contender('core-dist', 'dist build'),
      contender('sdk-v2', 'SDK v2'),
    ],
    // The protocol floor's slices at 0.920, 0.922, … 0.978 of the floor's, the build's at 0.90.
    throughput: [
      row('floor', () => 1000),
      row('floor-protocol', (turn) => 920 + 2 * turn),
      row('core-dist', () => 900),
      row('sdk-v2', () => 250),
    ],
    coldStart: [],
    memory: [],
    weight: [],
    seconds: 0,
  };
  const lines = renderMarkdown(results, ['core-dist']).split('\n');
  // Its interval (the 10th and 21st of 30 ratios, 0.938 and 0.960) spans 0.95×: the protocol's work alone would leave
  // the target unresolved.
  assert.ok(
    lines.includes(
      '| dist build stdio 2026-07-28 ×1: ≥ 0.95× floor | 0.90× floor (0.90–0.90; protocol floor 0.95×, 0.94–0.96) | **missed** |',
    ),
  );
});

test('a middleware cost is judged on the paired ratio: met within 3 %, missed beyond it, else not resolved', () => {
  const row = (contender: string, windows: number[]) => ({
    transport: 'stdio' as const,
    era: '2026' as const,
    concurrency: 1,
    contender,
    callsPerSecond: windows.reduce((sum, calls) => sum + calls, 0) / windows.length,
    p50Us: 50,
    p99Us: 100,
    windows,
  });
  /** The cost and verdict cells of the middleware row when `with` ran against `without`, slice by slice. */
  const judged = (without: number[], withIt: number[]) => {
    const results: Results = {
      machine: { node: 'v20', devNode: 'v22', cores: 2, smoke: false },
      contenders: [{ key: 'core-dist', label: 'core-dist', eras: ['2026'] }],
      throughput: [],
      coldStart: [],
      memory: [],
      weight: [],
      middleware: {
        date: '2026-12-06',
        compared: [{ key: 'core-dist-mw', label: 'with', against: 'core-dist', kind: 'middleware' }],
        throughput: [row('core-dist', without), row('core-dist-mw', withIt)],
      },
      seconds: 0,
    };
    return lineAfter(results, '| stdio | 2026-07-28 | 1 | core-dist | ')?.split(' | ').slice(-2).join(' | ');
  };
  const without = Array.from({ length: 30 }, (_, slice) => (slice % 2 === 0 ? 1000 : 600));
  // 1 % slower in every slice: met, though the load moves both by 40 %.
  assert.equal(
    judged(
      without,
      without.map((calls) => calls / 1.01),
    ),
    '1.0 % (1.0 % to 1.0 %) | met |',
  );
  // 10 % slower in every slice: missed.
  assert.equal(
    judged(
      without,
      without.map((calls) => calls / 1.1),
    ),
    '10.0 % (10.0 % to 10.0 %) | **missed** |',
  );
  // Slices from 5 % faster to 9.5 % slower: the median 2.2 %, its interval (the 10th to the 21st of 30) across 3 %.
  const mixed = without.map((calls, slice) => calls / (0.95 + 0.005 * slice));
  assert.equal(judged(without, mixed), '2.2 % (-0.5 % to 5.0 %) | not resolved (the interval spans 3 %) |');
});
