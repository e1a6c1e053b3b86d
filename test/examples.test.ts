// The small examples in examples/ run, each driving one meaningful exchange: the stdio and HTTP servers (and the
// MCP Apps thermometer, examples/apps/server.ts; its browser side is test/apps-browser.test.ts) as child processes
// of the dev Node, the mounted app, the input-required tool and the subscriptions server in-process (the
// test kit or the stdio harness). Also the W3C trace keys of a request's `_meta` as handlers see them (ctx.trace).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Context, createServer } from '../core.ts';
import { createInputServer } from '../examples/input-required.ts';
import { createApp } from '../examples/mount.ts';
import { createSubscriptionServer } from '../examples/subscriptions.ts';
import { connectTestClient } from '../testing.ts';
import { type Frame, WireClient } from './harness.ts';
import { modern, SUBSCRIPTION_ID } from './wire.ts';

const EXAMPLES = join(fileURLToPath(new URL('..', import.meta.url)), 'examples');
const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const GREET_CALL = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'greet', arguments: { name: 'Ada' } },
};

function spawnExample(t: TestContext, file: string, args: string[] = []) {
  const child = spawn(process.execPath, [join(EXAMPLES, file), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when a test failed
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, stderr: () => stderr };
}

/** POSTs one 2026-07-28 request with the headers a correct client sends, and returns the status and JSON body. */
async function postModern(url: string, method: string, params: Record<string, unknown>, name?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify(modern(method, params, 1)),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Frame,
  };
}

test(
  'examples/stdio-server.ts answers initialize and a tools/call over stdin/stdout, then exits on EOF',
  T,
  async (t) => {
    const { child, stderr } = spawnExample(t, 'stdio-server.ts');
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exit = once(child, 'exit');
    child.stdin.end(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        GREET_CALL,
      ]
        .map((frame) => `${JSON.stringify(frame)}\n`)
        .join(''),
    );
    assert.deepEqual(await exit, [0, null], stderr());
    const frames = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    assert.equal(frames.length, 2, stdout);
    assert.deepEqual(frames[0].result.serverInfo, { name: 'greeter', version: '1.0.0' });
    assert.deepEqual(frames[1], {
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'Hello, Ada!' }] },
    });
  },
);

test('examples/http-server.ts serves the tool on the port from argv and stops cleanly on SIGTERM', T, async (t) => {
  const { child, stderr } = spawnExample(t, 'http-server.ts', ['0']);
  child.stdout.setEncoding('utf8');
  const [line] = (await once(child.stdout, 'data')) as [string];
  const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
  assert.ok(url !== undefined && new URL(url).port !== '0', line);
  const answer = await postModern(url, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } }, 'greet');
  assert.equal(answer.status, 200);
  assert.equal(answer.type, 'application/json');
  assert.deepEqual(answer.body.result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
  assert.equal(answer.body.result.resultType, 'complete');
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  assert.deepEqual(await exit, [0, null], stderr());
});

test("examples/mount.ts: the MCP handler and the app's own route share one node:http server", T, async (t) => {
  const app = createApp();
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  t.after(() => new Promise((resolve) => app.close(resolve)));
  const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const health = await fetch(`${base}/health`);
  assert.deepEqual([health.status, await health.json()], [200, { ok: true }]);
  const answer = await postModern(`${base}/mcp`, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, 'add');
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body.result.content, [{ type: 'text', text: '5' }]);
  assert.equal((await fetch(`${base}/other`)).status, 404);
  const legacyInit = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  assert.equal(legacyInit.status, 200);
  assert.ok(legacyInit.headers.get('mcp-session-id'), 'a 2025 session through the mounted handler');
  await legacyInit.body?.cancel();
});

for (const era of ['legacy', 'modern'] as const) {
  test(`examples/input-required.ts asks for confirmation and acts on the answer (${era})`, T, async () => {
    const asked: Record<string, unknown>[] = [];
    let sure = true;
    const client = await connectTestClient(createInputServer(), {
      era,
      onElicit(params) {
        asked.push(params);
        return { action: 'accept', content: { sure } };
      },
    });
    assert.deepEqual(await client.callTool('delete_file', { path: '/tmp/x' }), {
      content: [{ type: 'text', text: 'Deleted /tmp/x' }],
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.message, 'Delete /tmp/x?');
    sure = false;
    assert.deepEqual(await client.callTool('delete_file', { path: '/tmp/y' }), {
      content: [{ type: 'text', text: 'Kept /tmp/y' }],
    });
    assert.equal(asked.length, 2);
    await client.close();
  });
}

test('examples/subscriptions.ts drives legacy resources/subscribe and list_changed', T, async () => {
  const client = new WireClient(createSubscriptionServer());
  const init = await client.initialize();
  assert.deepEqual(init.capabilities.resources, { subscribe: true, listChanged: true });
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'counter://value' }, 's'), {
    jsonrpc: '2.0',
    id: 's',
    result: {},
  });
  client.send({ jsonrpc: '2.0', id: 't', method: 'tools/call', params: { name: 'tick', arguments: {} } });
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { uri: 'counter://value' },
  });
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    id: 't',
    result: { content: [{ type: 'text', text: '1' }] },
  });
  assert.deepEqual(
    (await client.request('resources/read', { uri: 'counter://value' }, 'r')).result.contents[0].text,
    '1',
  );
  client.send({ jsonrpc: '2.0', id: 'n', method: 'tools/call', params: { name: 'add_note', arguments: {} } });
  const frames = [await client.next(), await client.next()];
  assert.deepEqual(
    frames.filter((frame) => frame.id === undefined),
    [{ jsonrpc: '2.0', method: 'notifications/resources/list_changed' }],
  );
  const list = await client.request('resources/list', {}, 'l');
  assert.deepEqual(
    list.result.resources.map((resource: { uri: string }) => resource.uri),
    ['counter://value', 'note://1'],
  );
  assert.deepEqual(await client.end(), []);
});

test('examples/subscriptions.ts drives a modern subscriptions/listen stream', T, async () => {
  const client = new WireClient(createSubscriptionServer());
  client.send(
    modern(
      'subscriptions/listen',
      { notifications: { resourcesListChanged: true, resourceSubscriptions: ['counter://value'] } },
      'L',
    ),
  );
  const ack = await client.next();
  assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params.notifications, {
    resourcesListChanged: true,
    resourceSubscriptions: ['counter://value'],
  });
  client.send(modern('tools/call', { name: 'tick', arguments: {} }, 't'));
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { uri: 'counter://value', _meta: { [SUBSCRIPTION_ID]: 'L' } },
  });
  assert.equal((await client.next()).id, 't');
  client.send(modern('tools/call', { name: 'add_note', arguments: {} }, 'n'));
  const frames = [await client.next(), await client.next()];
  assert.deepEqual(
    frames.filter((frame) => frame.id === undefined),
    [{ jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'L' } } }],
  );
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L' } });
  assert.deepEqual(await client.end(), []);
});

test('examples/apps/server.ts serves the thermometer app over stdio to a client that renders apps', T, async (t) => {
  const UI = 'io.modelcontextprotocol/ui';
  const VIEW = 'ui://thermometer/view';
  const { child, stderr } = spawnExample(t, 'apps/server.ts');
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const exit = once(child, 'exit');
  child.stdin.end(
    [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } },
          clientInfo: { name: 't', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'read_temperature', arguments: { city: 'Oslo' } },
      },
    ]
      .map((frame) => `${JSON.stringify(frame)}\n`)
      .join(''),
  );
  assert.deepEqual(await exit, [0, null], stderr());
  const [init, list, call] = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  assert.deepEqual(init.result.capabilities.extensions, { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } });
  assert.deepEqual(
    list.result.tools.map((tool: { name: string; _meta: unknown }) => [tool.name, tool._meta]),
    [
      ['read_temperature', { ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW }],
      ['refresh_temperature', { ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW }],
    ],
  );
  assert.deepEqual(call.result, {
    content: [{ type: 'text', text: 'Oslo: -3 °C' }],
    structuredContent: { city: 'Oslo', celsius: -3 },
  });
});

// ---------------------------------------------------------------------------------------------------------------
// ctx.trace

function traceServer() {
  const server = createServer({ name: 'trace-test', version: '1.0.0' });
  const seen: Context['trace'][] = [];
  server.tool('trace', { inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
    seen.push(ctx.trace);
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  return { server, seen };
}

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'congo=t61rcWkgMzE',
  baggage: 'userId=alice',
};

test('ctx.trace carries the W3C keys of _meta (strings only) in the legacy era', T, async () => {
  const { server, seen } = traceServer();
  const client = new WireClient(server);
  await client.initialize();
  const call = (id: number, _meta?: object) =>
    client.request('tools/call', { name: 'trace', arguments: {}, ...(_meta && { _meta }) }, id);
  assert.equal((await call(1, { ...TRACE, progressToken: 'p', other: 'x' })).result.isError, undefined);
  await call(2, { traceparent: 42, tracestate: 'a=b', baggage: null });
  await call(3);
  await call(4, { progressToken: 'p' });
  assert.deepEqual(seen, [TRACE, { tracestate: 'a=b' }, undefined, undefined]);
  assert.deepEqual(await client.end(), []);
});

test('ctx.trace carries the W3C keys of _meta beside the 2026-07-28 envelope', T, async () => {
  const { server, seen } = traceServer();
  const client = new WireClient(server);
  assert.equal(
    (await client.request('tools/call', modern('tools/call', { name: 'trace', arguments: {} }, 1, TRACE).params, 1))
      .result.resultType,
    'complete',
  );
  await client.request(
    'tools/call',
    modern('tools/call', { name: 'trace', arguments: {} }, 2, { baggage: 'k=v', traceparent: ['no'] }).params,
    2,
  );
  await client.request('tools/call', modern('tools/call', { name: 'trace', arguments: {} }, 3).params, 3);
  assert.deepEqual(seen, [TRACE, { baggage: 'k=v' }, undefined]);
  assert.deepEqual(await client.end(), []);
});
