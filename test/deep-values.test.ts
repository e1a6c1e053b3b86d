// Inbound values nested deeper than any stack, in every position a peer controls: error data and results of client
// responses (with and without an id), notification params, request `_meta`, params and ids, over a real stdio pipe to
// the demo as a child process and over Streamable HTTP (2025 session, sessionless 2025, 2026-07-28). JSON.parse takes
// any depth; nothing the server does with such a value afterwards (logging, routing, validation) may throw for it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer } from '../core.ts';
import { type HttpServer, type ServeHttpOptions, serveHttp } from '../http.ts';
import { type Frame, MemoryLogger } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { CLIENT_CAPABILITIES, modern, PROTOCOL_VERSION } from './wire.ts';

const T = { timeout: 60_000 }; // a safety net against hangs only; no assertion depends on time
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'deep', version: '1' } };

/** `depth` nested arrays, as JSON text: far deeper than JSON.stringify or any recursive walk can follow. */
function deepArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** `depth` nested objects {"a":{"a":…}}, as JSON text. */
function deepObjects(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const DEPTHS = [10_000, 100_000];

/** Frames a 2025 client may send that carry `deep` where the protocol puts peer data; none of them is a request. */
function deepNonRequests(deep: string): string[] {
  return [
    `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"deep","data":${deep}}}`,
    `{"jsonrpc":"2.0","id":77,"error":{"code":-32000,"message":"deep","data":${deep}}}`,
    `{"jsonrpc":"2.0","id":78,"result":${deep}}`,
    `{"jsonrpc":"2.0","id":0,"result":{"_meta":${deep}}}`,
    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${deep},"reason":${deep}}}`,
    `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${deep},"progress":1}}`,
    `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":${deep}}}`,
    `{"jsonrpc":"2.0","method":"notifications/unknown","params":{"value":${deep}}}`,
  ];
}

/** Runs the demo on a real stdio pipe with `lines` as its whole input; resolves with its frames, stderr and exit. */
async function runDemo(
  t: TestContext,
  lines: string[],
): Promise<{ frames: Frame[]; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, ['examples/everything.ts', '--stdio'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when a test failed
  });
  let out = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit');
  child.stdin.end(`${lines.join('\n')}\n`);
  const [code] = (await exit) as [number | null];
  const frames = out
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line)); // stdout carries frames only
  return { frames, stderr, code };
}

/** The answers among `frames`, by id. */
function answers(frames: Frame[]): Map<unknown, Frame> {
  return new Map(frames.filter((frame) => !('method' in frame)).map((frame) => [frame.id, frame]));
}

for (const depth of DEPTHS) {
  test(
    `stdio (2025, real pipe): error data, results, notification params and _meta nested ${depth} deep are read and dropped; the server answers every request and exits 0`,
    T,
    async (t) => {
      const deep = deepArrays(depth);
      const { frames, stderr, code } = await runDemo(t, [
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        ...deepNonRequests(deep),
        ...deepNonRequests(deepObjects(depth)),
        `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"trace":${deep}}}}`,
        `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"progressToken":${deep}}}}`,
        `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":${deep}}}`,
        `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`,
        `{"jsonrpc":"2.0","id":5,"method":${deep}}`,
        '{"jsonrpc":"2.0","id":6,"method":"ping"}',
      ]);
      assert.equal(code, 0, stderr);
      const byId = answers(frames);
      assert.deepEqual(byId.get(2), { jsonrpc: '2.0', id: 2, result: {} });
      assert.deepEqual(byId.get(3), { jsonrpc: '2.0', id: 3, result: {} });
      assert.equal(byId.get(4)?.error?.code, -32602);
      assert.match(byId.get(4).error.message, /cursor/);
      assert.deepEqual(byId.get(null), {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' },
      });
      assert.deepEqual(byId.get(5), {
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32600, message: 'Invalid Request: method must be a non-empty string' },
      });
      assert.deepEqual(byId.get(6), { jsonrpc: '2.0', id: 6, result: {} });
      assert.equal(byId.size, 7, 'nothing but the requests was answered');
      // The log names what was dropped without echoing the peer's data.
      assert.match(stderr, /peer sent an error without an id: code -32000, message "deep"/);
      assert.ok(!stderr.includes('[[[['), 'the deep data never reaches the log');
    },
  );
}

test(
  'stdio (2026-07-28, real pipe): deep error data before the first request decides nothing; deep _meta keys, capabilities and client info are answered precisely',
  T,
  async (t) => {
    const deep = deepArrays(20_000);
    const meta = (extra: string): string => `{"${PROTOCOL_VERSION}":"2026-07-28","${CLIENT_CAPABILITIES}":{}${extra}}`;
    const { frames, stderr, code } = await runDemo(t, [
      `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"early","data":${deep}}}`,
      `{"jsonrpc":"2.0","id":9,"result":${deep}}`,
      `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":${meta(`,"trace":${deep}`)}}}`,
      `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"${PROTOCOL_VERSION}":"2026-07-28","${CLIENT_CAPABILITIES}":${deep}}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":${meta(`,"io.modelcontextprotocol/clientInfo":${deep}`)}}}`,
      `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":${meta(`,"io.modelcontextprotocol/logLevel":${deep}`)}}}`,
      `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":${meta('')},"cursor":${deep}}}`,
      JSON.stringify(modern('tools/list', {}, 6)),
    ]);
    assert.equal(code, 0, stderr);
    const byId = answers(frames);
    assert.equal(byId.get(1)?.result?.resultType, 'complete');
    for (const id of [2, 3, 4, 5]) assert.equal(byId.get(id)?.error?.code, -32602, `request ${id}`);
    assert.equal(byId.get(6)?.result?.resultType, 'complete');
    assert.equal(byId.size, 6);
    assert.match(stderr, /peer sent an error without an id: code -32000, message "early"/);
    assert.ok(!stderr.includes('[[[['));
  },
);

async function serve(
  t: TestContext,
  options: ServeHttpOptions = {},
): Promise<{ http: HttpServer; logger: MemoryLogger }> {
  const logger = new MemoryLogger();
  const server = createServer({ name: 'deep', version: '1.0.0' }, { logger });
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  t.after(() => http.close());
  return { http, logger };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

test(
  'HTTP (2025 session): deep error data, results and notification params are accepted with 202 and dropped; the session and every other session are served on',
  T,
  async (t) => {
    const { http, logger } = await serve(t);
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const init = await raw(http.url, {
        headers: JSON_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS }),
      });
      assert.equal(init.status, 200, init.text);
      sessions.push(init.headers['mcp-session-id'] as string);
    }
    const headers = { ...JSON_HEADERS, 'mcp-session-id': sessions[0]!, 'mcp-protocol-version': '2025-11-25' };
    for (const body of [...deepNonRequests(deepArrays(10_000)), ...deepNonRequests(deepObjects(100_000))]) {
      const response = await raw(http.url, { headers, body });
      assert.equal(response.status, 202, body.slice(0, 80));
    }
    for (const sessionId of sessions) {
      const ping = await raw(http.url, {
        headers: { ...headers, 'mcp-session-id': sessionId },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 1, result: {} });
    }
    assert.ok(logger.warnings.some((line) => line === 'peer sent an error without an id: code -32000, message "deep"'));
  },
);

test(
  'HTTP (sessions off, and 2026-07-28 routing headers): a deep error frame is accepted or refused precisely, and the server serves on',
  T,
  async (t) => {
    const { http } = await serve(t, { sessions: false });
    const body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"deep","data":${deepArrays(10_000)}}}`;
    assert.equal((await raw(http.url, { headers: JSON_HEADERS, body })).status, 202);
    const refused = await raw(http.url, { headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28' }, body });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, -32600);
    const deepMeta = `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"${PROTOCOL_VERSION}":"2026-07-28","${CLIENT_CAPABILITIES}":{},"trace":${deepArrays(10_000)}}}}`;
    const discovered = await raw(http.url, { headers: modernHeaders({ method: 'server/discover' }), body: deepMeta });
    assert.equal(discovered.status, 200, discovered.text);
    assert.equal(discovered.json.result.resultType, 'complete');
    const ping = await raw(http.url, { headers: JSON_HEADERS, body: '{"jsonrpc":"2.0","id":3,"method":"ping"}' });
    assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 3, result: {} });
  },
);
