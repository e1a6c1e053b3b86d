// createFetchHandler (fetch.ts) in Cloudflare's workerd: test/workerd-worker.ts is bundled from the .ts sources with
// esbuild into a temporary directory and served by Miniflare on 127.0.0.1 WITHOUT the `nodejs_compat` flag, so the
// fetch path must load and run on Web APIs alone. Driven over real HTTP: the 2026-07-28 POST path (server/discover,
// tools/call as JSON and with progress over SSE, an input_required round whose requestState is sealed and opened
// again, subscriptions/listen with a published event, a failing handler) and stateless 2025 requests.
//
// Determinism: every wait is on the next HTTP answer or the next SSE event; nothing sleeps. A workerd that cannot
// start here fails the suite with Miniflare's reason: it is never skipped.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import type { Frame } from './harness.ts';
import { modernHeaders } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_CAPABILITIES, fail, modern, ok, request, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time
const INFO = { name: 'workerd-test', version: '1.0.0' };
const WORKER = fileURLToPath(new URL('./workerd-worker.ts', import.meta.url));

let dir: string | undefined;
let miniflare: Miniflare | undefined;
let endpoint: URL;
let bundleImports: string[];
/** What the Worker logged (console.error, console.log, …), as workerd reports it, each with the level it was logged at. */
const logged: { level: string; message: string }[] = [];
const logWaiters: { marker: string; resolve: () => void }[] = [];

/** Resolves once the Worker has logged a message containing `marker`. */
function loggedContaining(marker: string): Promise<void> {
  if (logged.some(({ message }) => message.includes(marker))) return Promise.resolve();
  return new Promise((resolve) => logWaiters.push({ marker, resolve }));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-core-workerd-'));
  const script = join(dir, 'worker.mjs');
  const result = await build({
    entryPoints: [WORKER],
    outfile: script,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['node:*'], // kept as imports, so the test below sees any the fetch path still has
    metafile: true,
    logLevel: 'silent',
  });
  bundleImports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map(({ path }) => path));
  miniflare = new Miniflare({
    scriptPath: script,
    modules: true,
    modulesRoot: dir,
    compatibilityDate: '2026-07-01',
    compatibilityFlags: [], // no nodejs_compat: Web APIs only
    host: '127.0.0.1',
    port: 0,
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      logged.push({ level, message });
      for (const waiter of logWaiters.filter(({ marker }) => message.includes(marker))) waiter.resolve();
    },
  });
  endpoint = new URL('/mcp', await miniflare.ready); // rejects with workerd's own error when it cannot start
});

after(async () => {
  try {
    await miniflare?.dispose();
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
});

/** POSTs `frame` to the Worker with the headers a correct client sends (modern ones for a modern frame). */
function post(frame: Frame, headers: Record<string, string> = {}): Promise<Response> {
  const base =
    Array.isArray(frame) || frame.params?._meta === undefined
      ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      : modernHeaders(frame);
  return fetch(endpoint, { method: 'POST', headers: { ...base, ...headers }, body: JSON.stringify(frame) });
}

/** The JSON answer of `response`, asserted to be a 200 application/json without a session id. */
async function json(response: Response): Promise<Frame> {
  const body = await response.text();
  assert.equal(response.status, 200, `status (body: ${body})`);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.equal(response.headers.get('mcp-session-id'), null);
  return JSON.parse(body);
}

/** A modern result as the server stamps it. */
function stamped(result: Record<string, unknown>): Record<string, unknown> {
  return { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: INFO } };
}

/** A tool result of one text block. */
function text(value: string) {
  return { content: [{ type: 'text', text: value }] };
}

/** A 2026-07-28 tools/call frame. */
function call(name: string, args: Record<string, unknown>, id: string | number, meta: object = {}): Frame {
  return modern('tools/call', { name, arguments: args }, id, meta);
}

test('the Worker bundle of the fetch path imports no node: built-in', () => {
  assert.deepEqual(bundleImports, []);
});

test('server/discover and a JSON tools/call are answered by the Worker', T, async () => {
  assert.deepEqual(
    await json(await post(modern('server/discover', {}, 1))),
    ok(1, {
      supportedVersions: ['2026-07-28'],
      capabilities: { logging: {}, tools: { listChanged: true } },
      resultType: 'complete',
      _meta: { [SERVER_INFO]: INFO },
      ttlMs: 0,
      cacheScope: 'private',
    }),
  );
  assert.deepEqual(await json(await post(call('echo', { text: 'héllo' }, 2))), ok(2, stamped(text('héllo'))));
  // Mcp-Name may be sent base64-encoded (2026-07-28 Request Metadata): decoded without node:buffer.
  const encoded = await post(call('echo', { text: 'x' }, 3), { 'mcp-name': '=?base64?ZWNobw==?=' });
  assert.deepEqual(await json(encoded), ok(3, stamped(text('x'))));
});

test('a tools/call with a progress token streams its progress and its result over SSE, then ends', T, async () => {
  const response = await post(call('steps', {}, 4, { progressToken: 'p' }));
  const reader = new SseReader(response);
  assert.deepEqual(await reader.rest(), [
    {
      event: 'message',
      id: undefined,
      message: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 1, total: 2, message: 'half way' },
      },
    },
    {
      event: 'message',
      id: undefined,
      message: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p', progress: 2, total: 2, message: 'done' },
      },
    },
    { event: 'message', id: undefined, message: ok(4, stamped(text('two steps'))) },
  ]);
});

test(
  'an input_required round: the sealed requestState opens on the retry, and a tampered one is refused',
  T,
  async () => {
    const caps = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
    const asked = await json(await post(call('confirm', {}, 5, caps)));
    const requestState = asked.result?.requestState;
    assert.equal(typeof requestState, 'string', JSON.stringify(asked));
    assert.deepEqual(
      asked,
      ok(5, {
        resultType: 'input_required',
        inputRequests: {
          ok: { method: 'elicitation/create', params: { message: 'Sure?', requestedSchema: { type: 'object' } } },
        },
        requestState,
        _meta: { [SERVER_INFO]: INFO },
      }),
    );
    const answer = { ok: { action: 'accept', content: {} } };
    const retry = (id: number, state: string) =>
      post(
        modern('tools/call', { name: 'confirm', arguments: {}, inputResponses: answer, requestState: state }, id, caps),
      );
    assert.deepEqual(
      await json(await retry(6, requestState)),
      ok(6, stamped(text('round 1: {"action":"accept","content":{}}'))),
    );
    const [payload, mac] = requestState.split('.');
    const tampered = `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    assert.deepEqual(
      await json(await retry(7, tampered)),
      fail(7, { code: -32602, message: 'Invalid params: requestState failed verification' }),
    );
  },
);

test('subscriptions/listen acknowledges, then carries the list change another request publishes', T, async () => {
  const response = await post(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L'));
  const reader = new SseReader(response);
  try {
    assert.deepEqual(await reader.message(), {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [SUBSCRIPTION_ID]: 'L' }, notifications: { toolsListChanged: true } },
    });
    assert.deepEqual(await json(await post(call('publish', {}, 8))), ok(8, stamped(text('published'))));
    assert.deepEqual(await reader.message(), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 'L' } },
    });
  } finally {
    await reader.cancel();
  }
});

test('a tool that throws gets the generic error result; its detail goes to the default logger only', T, async () => {
  assert.deepEqual(
    await json(await post(call('boom', {}, 9))),
    ok(9, stamped({ content: [{ type: 'text', text: 'Tool execution failed' }], isError: true })),
  );
  await loggedContaining("[mcp-core] tool 'boom' failed: Error: secret detail");
  const line = logged.find(({ message }) => message.includes("tool 'boom' failed"))!;
  assert.equal(line.level, 'error');
});

test('tools/list pages through the cursors the Worker mints', T, async () => {
  const first = await json(await post(modern('tools/list', {}, 10)));
  assert.deepEqual(
    first.result.tools.map((tool: { name: string }) => tool.name),
    ['echo', 'steps', 'confirm'],
  );
  assert.equal(typeof first.result.nextCursor, 'string');
  const second = await json(await post(modern('tools/list', { cursor: first.result.nextCursor }, 11)));
  assert.deepEqual(
    second.result.tools.map((tool: { name: string }) => tool.name),
    ['publish', 'boom'],
  );
  assert.equal(second.result.nextCursor, undefined);
  assert.deepEqual(
    await json(await post(modern('tools/list', { cursor: 'bm90LW91cnM' }, 12))),
    fail(12, { code: -32602, message: 'Invalid params: params.cursor is not a cursor this server issued' }),
  );
});

test(
  '2025 requests are served statelessly: initialize, tools/call at the header version, no session id',
  T,
  async () => {
    const init = await json(
      await post(
        request(1, 'initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      ),
    );
    assert.equal(init.result?.protocolVersion, '2025-11-25', JSON.stringify(init));
    assert.deepEqual(init.result.serverInfo, INFO);
    const echo = request(2, 'tools/call', { name: 'echo', arguments: { text: 'legacy' } });
    assert.deepEqual(await json(await post(echo, { 'mcp-protocol-version': '2025-11-25' })), ok(2, text('legacy')));
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(notified.status, 202);
    assert.equal(await notified.text(), '');
    const batch = [request(3, 'ping'), request(4, 'tools/call', { name: 'echo', arguments: { text: 'b' } })];
    assert.deepEqual(await json(await post(batch, { 'mcp-protocol-version': '2025-03-26' })), [
      ok(3, {}),
      ok(4, text('b')),
    ]);
    const get = await fetch(endpoint, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    await get.body?.cancel();
  },
);
