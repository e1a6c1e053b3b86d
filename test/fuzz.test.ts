// Seeded fuzzing of every entry point (stdio and Streamable HTTP, both eras) through test/fuzz.ts: no uncaught error,
// exactly one answer per answerable request (bar cancels, refused in-flight duplicates and drain cuts), nothing but
// JSON-RPC on the output, the in-flight state back to the held requests at every barrier, a bounded heap. Then the
// minimal reproductions of the bugs the fuzzer found (fixed), kept as regression tests.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { type FuzzOptions, type FuzzSummary, runFuzz } from './fuzz.ts';
import { FrameGenerator, type Profile } from './fuzz-gen.ts';
import { deferred, MemoryLogger, WireClient } from './harness.ts';
import { raw } from './raw-http.ts';

const T = { timeout: 120_000 }; // a safety net against hangs only; no assertion depends on time

type Run = Omit<FuzzOptions, 'frames'> & { frames?: number };

const RUNS: Run[] = [
  { transport: 'stdio', era: 'legacy', legacyVersion: '2025-11-25', seed: 1 },
  { transport: 'stdio', era: 'legacy', legacyVersion: '2025-03-26', seed: 2 },
  { transport: 'stdio', era: 'legacy', legacyVersion: '2024-11-05', seed: 3 },
  { transport: 'stdio', era: 'modern', seed: 1 },
  { transport: 'stdio', era: 'modern', seed: 2 },
  { transport: 'stdio', era: 'modern', seed: 3 },
  { transport: 'http', era: 'legacy', legacyVersion: '2025-11-25', seed: 1 },
  { transport: 'http', era: 'legacy', legacyVersion: '2025-03-26', seed: 2 },
  { transport: 'http', era: 'legacy', legacyVersion: '2025-06-18', seed: 3 },
  { transport: 'http', era: 'modern', seed: 1 },
  { transport: 'http', era: 'modern', seed: 2 },
  { transport: 'http', era: 'modern', seed: 3 },
];

function title(run: Run, frames: number): string {
  const era = run.era === 'legacy' ? `${run.legacyVersion} session` : '2026-07-28 sessionless';
  return `${run.transport}, ${era}, seed ${run.seed}: ${frames} fuzzed frames break no invariant`;
}

function brief(summary: FuzzSummary): string {
  const { labels: _labels, violations: _violations, ...rest } = summary;
  return JSON.stringify(rest);
}

for (const run of RUNS) {
  const frames = run.frames ?? (run.transport === 'stdio' ? 2000 : 1000);
  test(title(run, frames), T, async (t) => {
    const summary = await runFuzz({ ...run, frames });
    t.diagnostic(brief(summary));
    assert.deepEqual(summary.violations, []);
    assert.equal(summary.violationCount, 0);
    // The run exercised what the invariants are about (a fuzzer that sends nothing interesting proves nothing).
    assert.equal(summary.frames, frames);
    assert.ok(summary.requests > frames / 3, 'requests with usable ids');
    assert.ok(summary.nullAnswers > 0, 'frames answered with id null');
    assert.ok(summary.cancelled > 0, 'cancelled in-flight requests');
    assert.ok(summary.drainCut > 0, 'requests cut by the drain window');
    assert.ok(summary.reused > 0, 'ids reused after their answer');
    if (run.transport === 'http' && run.era === 'modern') assert.equal(summary.duplicatesRefused, 0);
    else assert.ok(summary.duplicatesRefused > 0, 'duplicates of in-flight ids refused');
    if (run.legacyVersion === '2025-03-26') assert.ok(summary.batchAnswers > 0, 'batches answered');
  });
}

test('the same seed and profile generate the same frames; another seed does not', () => {
  const profile: Profile = {
    transport: 'stdio',
    era: 'legacy',
    legacyVersion: '2025-03-26',
    maxFrameBytes: 768 * 1024,
  };
  const digest = (seed: number): string[] =>
    [...new FrameGenerator(seed, profile).items(400)].map((item) =>
      item.type === 'frame'
        ? `${item.label}:${Buffer.from(item.data).toString('base64')}:${JSON.stringify(item.answers)}`
        : JSON.stringify(item),
    );
  assert.deepEqual(digest(7), digest(7));
  assert.notDeepEqual(digest(7), digest(8));
});

// ---------------------------------------------------------------------------------------------------------------
// Bugs the fuzzer found, reduced to one frame each

const INIT = (version: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  });

test('a tool result nested too deep for JSON.stringify is answered -32603 and the server survives', T, async () => {
  const server = createServer({ name: 'mirror', version: '1' }, { logger: new MemoryLogger() });
  server.tool('mirror', { inputSchema: { type: 'object' } }, (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: 'mirror' }],
    structuredContent: args,
  }));
  const rejections: unknown[] = [];
  const onRejection = (error: unknown): void => void rejections.push(error);
  process.on('unhandledRejection', onRejection);
  const client = new WireClient(server);
  try {
    await client.initialize();
    const crashed = new Promise<'crash'>((resolve) => process.once('unhandledRejection', () => resolve('crash')));
    const nest = '['.repeat(10_000) + ']'.repeat(10_000);
    client.send(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mirror","arguments":{"nest":${nest}}}}`,
    );
    const first = await Promise.race([client.response(2), crashed]);
    assert.deepEqual(first, { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(rejections, []);
  } finally {
    await client.end();
    process.off('unhandledRejection', onRejection);
  }
});

/** A 2025-03-26 session (the version that serves batches) on a fresh server with a gated `slow` and a `mark` tool. */
async function batchSession(): Promise<{
  http: HttpServer;
  post(body: string): ReturnType<typeof raw>;
  started: Promise<void>;
  gate(): void;
  marked: Promise<void>;
}> {
  const server: Server = createServer({ name: 'batch', version: '1' }, { logger: new MemoryLogger() });
  const started = deferred<void>();
  const gate = deferred<void>();
  const marked = deferred<void>();
  server.tool('slow', {}, async () => {
    started.resolve();
    await gate.promise;
    return { content: [] };
  });
  server.tool('mark', {}, () => {
    marked.resolve();
    return { content: [] };
  });
  const http = await serveHttp(server, { port: 0 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await raw(http.url, { headers, body: INIT('2025-03-26') });
  const session = {
    ...headers,
    'mcp-session-id': String(init.headers['mcp-session-id']),
    'mcp-protocol-version': '2025-03-26',
  };
  await raw(http.url, { headers: session, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' });
  return {
    http,
    post: (body) => raw(http.url, { headers: session, body }),
    started: started.promise,
    gate: () => gate.resolve(),
    marked: marked.promise,
  };
}

test('legacy HTTP: a batch of only invalid elements is answered with their errors, not 202', T, async () => {
  const { http, post } = await batchSession();
  try {
    const answer = await post('[{"jsonrpc":"2.0","id":"x","method":5}]');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json, [
      {
        jsonrpc: '2.0',
        id: 'x',
        error: { code: -32600, message: 'Invalid Request: method must be a non-empty string' },
      },
    ]);
  } finally {
    await http.close();
  }
});

test("legacy HTTP: a batch whose first answer is an invalid element's still answers its requests", T, async () => {
  const { http, post, marked } = await batchSession();
  try {
    const answer = post(
      '[{"jsonrpc":"2.0","id":3,"method":5},{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mark"}}]',
    );
    await marked;
    // The answer is written in promise jobs after the tool returns, all run before this turn ends; closing the
    // handler then ends the session, which is what finally ends the POST when its answer was lost (404).
    await new Promise((resolve) => setImmediate(resolve));
    await http.handler.close(0);
    const response = await answer;
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, [
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: method must be a non-empty string' } },
      { jsonrpc: '2.0', id: 4, result: { content: [] } },
    ]);
  } finally {
    await http.close();
  }
});

test('legacy HTTP: a batch reusing an in-flight id refuses that element and serves the others', T, async () => {
  const { http, post, started, gate } = await batchSession();
  try {
    const slow = post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}');
    await started;
    const answer = await post('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    gate();
    assert.deepEqual((await slow).json, { jsonrpc: '2.0', id: 1, result: { content: [] } });
    assert.deepEqual(answer.json, [
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: request id 1 is already in flight' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  } finally {
    await http.close();
  }
});
