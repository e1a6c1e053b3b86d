// Faults at the wire: end of input with work in flight, a stdout reader that goes away (EPIPE) in a real child
// process, clients that reset their socket mid-SSE, handlers that never settle or throw what is not an Error, and
// an event store that fails. Each must end in bounded time with precise answers (or documented silence), release
// what it held, and never crash the process.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createServer as createNodeServer,
  request as httpRequest,
  type IncomingMessage,
  type Server as NodeServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer, type Server, type ServerOptions } from '../core.ts';
import {
  createHttpHandler,
  type EventStore,
  type HttpHandler,
  type HttpOptions,
  MemoryEventStore,
  serveHttp,
} from '../http.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, type RawResponse, raw, watchExchanges } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INFO = { name: 'faults-test', version: '1.0.0' };
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'faults', version: '1' } };
const INTERNAL = (id: string | number) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function quietServer(options: ServerOptions = {}): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  return { server: createServer(INFO, { logger, ...options }), logger };
}

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const STREAMING_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<string> {
  const init = await raw(url, {
    headers: LEGACY_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS }),
  });
  assert.equal(init.status, 200, init.text);
  const id = init.headers['mcp-session-id'] as string;
  const initialized = await raw(url, {
    headers: { ...LEGACY_HEADERS, 'mcp-session-id': id },
    body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  });
  assert.equal(initialized.status, 202);
  return id;
}

function sessionPost(
  url: string,
  sessionId: string,
  frame: Frame,
  headers: Record<string, string> = LEGACY_HEADERS,
): Promise<RawResponse> {
  return raw(url, { headers: { ...headers, 'mcp-session-id': sessionId }, body: JSON.stringify(frame) });
}

/** A handler mounted in our own node:http server, so that close(drainWindowMs) can be given its window. */
async function mount(
  t: TestContext,
  server: Server,
  options: HttpOptions = {},
): Promise<{ url: string; handler: HttpHandler; node: NodeServer }> {
  const handler = createHttpHandler(server, { keepAliveMs: 0, ...options });
  const node = createNodeServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await handler.close(0).catch(() => {}); // a failing close() is asserted by the tests that provoke one
    node.closeAllConnections();
    await new Promise((resolve) => node.close(resolve));
  });
  return { url: `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`, handler, node };
}

/** An HTTP exchange read as raw text while it streams; `reset()` drops the socket with a TCP RST. */
async function openStream(url: string, headers: Record<string, string>, body?: string, method = 'POST') {
  const target = new URL(url);
  const request = httpRequest({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method,
    headers,
    agent: false,
  });
  request.on('error', () => {}); // the reset we cause
  request.end(body);
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  response.on('error', () => {});
  const ended = new Promise<void>((resolve) => response.once('end', resolve));
  let received = '';
  const waiters: { marker: string; resolve(): void }[] = [];
  response.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
    for (const waiter of waiters.filter((w) => received.includes(w.marker))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    status: response.statusCode,
    type: response.headers['content-type'],
    text: () => received,
    until: (marker: string) =>
      received.includes(marker) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ marker, resolve })),
    reset: () => request.socket!.resetAndDestroy(),
    /** Settles when the server has ended the response. */
    ended: () => ended,
  };
}

/**
 * Catches what would otherwise crash this process (an uncaught exception or unhandled rejection) while a scenario
 * that may provoke one runs; the test runner's own listeners are put back by restore().
 */
function trapProcessFailures() {
  const failures: unknown[] = [];
  const failed = deferred<void>();
  const record = (error: unknown): void => {
    failures.push(error);
    failed.resolve();
  };
  const uncaught = process.listeners('uncaughtException');
  const unhandled = process.listeners('unhandledRejection');
  process.removeAllListeners('uncaughtException');
  process.removeAllListeners('unhandledRejection');
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  return {
    failures,
    failed: failed.promise,
    /** After a turn of the event loop, so that rejections left unhandled by now are reported to the trap. */
    restore: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      process.removeListener('uncaughtException', record);
      process.removeListener('unhandledRejection', record);
      for (const listener of uncaught) process.on('uncaughtException', listener);
      for (const listener of unhandled) process.on('unhandledRejection', listener);
    },
  };
}

/**
 * Fails with what `describe()` says (instead of hanging until the test's own timeout) when `promise` never settles:
 * a safety net far beyond any legitimate wait, not a timing assertion.
 */
async function settles<T>(promise: Promise<T>, describe: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`never settled: ${describe()}`)), 20_000);
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// stdin EOF with work in flight

test(
  'stdin EOF with work in flight: the running request still answers with its progress, an open listen ends with its final result, then everything is released',
  T,
  async () => {
    const { server } = quietServer();
    const started = deferred();
    const release = deferred();
    server.tool('work', {}, async (_args, ctx) => {
      ctx.progress(1, 2);
      started.resolve();
      await release.promise;
      ctx.progress(2, 2); // after EOF: still delivered
      return text('finished after EOF');
    });
    const client = new WireClient(server, { drainWindowMs: 60_000 });
    client.send(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L'));
    assert.equal((await client.next()).method, 'notifications/subscriptions/acknowledged');
    client.send(modern('tools/call', { name: 'work' }, 'w', { progressToken: 'tok' }));
    await started.promise;
    assert.equal(client.stdio.connection.inFlightCount, 2);
    client.input.end();
    // The listen's final result is written when the drain begins, so it also tells us the EOF was seen.
    assert.deepEqual(await client.response('L'), {
      jsonrpc: '2.0',
      id: 'L',
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'L', [SERVER_INFO]: INFO } },
    });
    release.resolve();
    const rest = await client.end();
    assert.deepEqual(
      rest.map((frame) => frame.method ?? frame.id),
      ['notifications/progress', 'notifications/progress', 'w'],
    );
    assert.deepEqual(rest[1].params, { progressToken: 'tok', progress: 2, total: 2 });
    assert.deepEqual(rest[2].result.content, text('finished after EOF').content);
    const { connection } = client.stdio;
    assert.deepEqual([connection.closed, connection.inFlightCount, connection.listenCount], [true, 0, 0]);
    assert.equal(server.metrics().connections, 0);
    assert.equal(client.input.listenerCount('data'), 0);
    assert.equal(client.output.writableEnded, true);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// stdout closed by the peer (EPIPE), in a real child process

const STDIO_SERVER = join(ROOT, 'examples', 'stdio-server.ts');
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS };

function startStdioServer(t: TestContext) {
  const child = spawn(process.execPath, ['--experimental-strip-types', STDIO_SERVER], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when the test failed
  });
  child.stdin.on('error', () => {}); // once the child is gone, our writes to it fail
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([code, signal]) => ({ code, signal }));
  return {
    child,
    exit,
    stderr: () => stderr,
    send: (frame: object) => child.stdin.write(`${JSON.stringify(frame)}\n`),
  };
}

const greet = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'greet', arguments: { name: `n${id}` } },
});

test(
  'stdout closed by the peer (EPIPE): examples/stdio-server.ts on the dev Node stops writing and exits 0 by itself, stdin still open, nothing on stderr',
  T,
  async (t) => {
    const { child, exit, stderr, send } = startStdioServer(t);
    child.stdout.setEncoding('utf8');
    send(INITIALIZE);
    const [first] = (await once(child.stdout, 'data')) as [string];
    assert.equal(JSON.parse(first.split('\n')[0]!).id, 1);
    child.stdout.destroy(); // the reader closes its end
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (let id = 2; id < 200; id++) send(greet(id)); // every answer now meets a closed pipe
    assert.deepEqual(await settles(exit, () => `the child's exit (stderr: ${JSON.stringify(stderr())})`), {
      code: 0,
      signal: null,
    });
    assert.equal(stderr(), '', 'no uncaught exception and no EPIPE report');
  },
);

test(
  'stdout closed by the peer (EPIPE) before the first frame: examples/stdio-server.ts exits 0 without a stack on stderr',
  T,
  async (t) => {
    const { child, exit, stderr, send } = startStdioServer(t);
    child.stdout.destroy();
    send(INITIALIZE);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send(greet(2));
    assert.deepEqual(await settles(exit, () => `the child's exit (stderr: ${JSON.stringify(stderr())})`), {
      code: 0,
      signal: null,
    });
    assert.equal(stderr(), '');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Client disconnect mid-SSE

test(
  'client disconnect mid-SSE (TCP reset): a streamed 2026-07-28 POST aborts its handler, a listen frees its stream slot, a 2025 GET stream frees its place; nothing is written after',
  T,
  async (t) => {
    const { server } = quietServer();
    const started = deferred();
    const aborted = deferred();
    server.tool('hold', {}, async (_args, ctx) => {
      ctx.progress(1, 2);
      started.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      aborted.resolve();
      ctx.progress(2, 2); // after the abort: must go nowhere
      return text('too late');
    });
    const { url, node, handler } = await mount(t, server, { maxStreams: 1 });
    const exchanges = watchExchanges(node);

    const call = modern('tools/call', { name: 'hold' }, 'h', { progressToken: 'tok' });
    const streamed = await openStream(url, modernHeaders(call, { 'x-test': 'h' }), JSON.stringify(call));
    assert.equal(streamed.type, 'text/event-stream');
    await streamed.until('notifications/progress');
    await started.promise;
    streamed.reset();
    await aborted.promise;
    await exchanges.closed('h');
    assert.equal(server.metrics().connections, 0, "the request's connection is closed with its exchange");

    const listen = (id: string) => modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, id);
    const first = await openStream(url, modernHeaders(listen('L1'), { 'x-test': 'L1' }), JSON.stringify(listen('L1')));
    await first.until('notifications/subscriptions/acknowledged');
    const refused = await raw(url, { headers: modernHeaders(listen('L2')), body: JSON.stringify(listen('L2')) });
    assert.equal(refused.status, 503, 'maxStreams 1 holds while the first listen is open');
    first.reset();
    await exchanges.closed('L1');
    assert.equal(server.metrics().connections, 0, "the listen's connection is closed with its exchange");
    const second = await openStream(url, modernHeaders(listen('L3')), JSON.stringify(listen('L3')));
    await second.until('notifications/subscriptions/acknowledged');
    second.reset();

    const session = await openSession(url);
    const getHeaders = { accept: 'text/event-stream', 'mcp-session-id': session };
    const get1 = await openStream(url, { ...getHeaders, 'x-test': 'G1' }, undefined, 'GET');
    assert.equal(get1.status, 200);
    get1.reset();
    await exchanges.closed('G1');
    const get2 = await openStream(url, getHeaders, undefined, 'GET');
    assert.equal(get2.status, 200, "the session's one GET stream was freed, not 409 Conflict");
    server.notifyListChanged('tools');
    await get2.until('notifications/tools/list_changed');
    get2.reset();

    assert.deepEqual(exchanges.lateWrites, []);
    assert.equal(handler.sessionCount, 1);
    assert.deepEqual((await sessionPost(url, session, { jsonrpc: '2.0', id: 9, method: 'ping' })).json, {
      jsonrpc: '2.0',
      id: 9,
      result: {},
    });
  },
);

test(
  'client disconnect mid-SSE of a 2025 POST is not a cancel: the handler completes and its answer can be resumed with Last-Event-ID, which then ends the stream',
  T,
  async (t) => {
    const { server } = quietServer();
    const started = deferred();
    const release = deferred();
    let abortedBeforeAnswer: boolean | undefined;
    server.tool('slow', {}, async (_args, ctx) => {
      ctx.progress(1, 2);
      started.resolve();
      await release.promise;
      abortedBeforeAnswer = ctx.signal.aborted; // the signal aborts once the request is answered, not before
      return text('resumable');
    });
    const stored = deferred();
    class WatchedStore extends MemoryEventStore {
      override append(sessionId: string, streamId: string, data: string): string {
        const id = super.append(sessionId, streamId, data);
        if (data.includes('"id":"s"') && data.includes('"result"')) stored.resolve();
        return id;
      }
    }
    const { url, node } = await mount(t, server, { eventStore: new WatchedStore() });
    const exchanges = watchExchanges(node);
    const session = await openSession(url);
    const post = await openStream(
      url,
      { ...STREAMING_HEADERS, 'mcp-session-id': session, 'x-test': 's' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 's',
        method: 'tools/call',
        params: { name: 'slow', _meta: { progressToken: 'p' } },
      }),
    );
    await post.until('notifications/progress');
    const primingId = /^id: (\S+)\n/.exec(post.text())?.[1];
    assert.ok(primingId !== undefined, post.text());
    await started.promise;
    post.reset();
    await exchanges.closed('s');
    release.resolve();
    await stored.promise;
    assert.equal(abortedBeforeAnswer, false);
    const resumed = await openStream(
      url,
      { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': primingId },
      undefined,
      'GET',
    );
    await resumed.until('"id":"s"');
    assert.match(resumed.text(), /"id":"s","result":\{"content":\[\{"type":"text","text":"resumable"\}\]\}/);
    await resumed.ended(); // the answer was the stream's last event: the server ends it
    assert.deepEqual(exchanges.lateWrites, []);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Handlers that never resolve

function neverServer() {
  const { server, logger } = quietServer();
  const running = new Map<string, ReturnType<typeof deferred<void>>>();
  const abortedEras: string[] = [];
  server.tool(
    'never',
    { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } },
    (args: { tag?: string }, ctx) => {
      ctx.signal.addEventListener('abort', () => abortedEras.push(`${ctx.era} ${args.tag}`));
      ctx.progress(1, 2);
      let entry = running.get(args.tag ?? '');
      if (entry === undefined) running.set(args.tag ?? '', (entry = deferred()));
      entry.resolve();
      return new Promise(() => {}); // never settles, and ignores its abort
    },
  );
  const started = (tag: string) => {
    let entry = running.get(tag);
    if (entry === undefined) running.set(tag, (entry = deferred()));
    return entry.promise;
  };
  return { server, logger, started, abortedEras };
}

test(
  'a handler that never resolves: handler.close(drainWindowMs) ends after the window; the 2026-07-28 POST gets 503 -32603 with its id, its stream and a listen end, nothing is left',
  T,
  async (t) => {
    const { server, started, abortedEras } = neverServer();
    const { url, handler } = await mount(t, server);
    const json = modern('tools/call', { name: 'never', arguments: { tag: 'json' } }, 'j');
    const pendingJson = raw(url, {
      headers: modernHeaders(json, { accept: 'application/json' }),
      body: JSON.stringify(json),
    });
    const sse = modern('tools/call', { name: 'never', arguments: { tag: 'sse' } }, 's', { progressToken: 'tok' });
    const stream = new SseReader(
      await fetch(url, { method: 'POST', headers: modernHeaders(sse), body: JSON.stringify(sse) }),
    );
    assert.equal((await stream.message()).method, 'notifications/progress');
    const listenFrame = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L');
    const listen = new SseReader(
      await fetch(url, { method: 'POST', headers: modernHeaders(listenFrame), body: JSON.stringify(listenFrame) }),
    );
    assert.equal((await listen.message()).method, 'notifications/subscriptions/acknowledged');
    await Promise.all([started('json'), started('sse')]);

    await handler.close(20);
    assert.deepEqual(abortedEras.sort(), ['modern json', 'modern sse']);
    const answer = await pendingJson;
    assert.equal(answer.status, 503);
    assert.deepEqual(answer.json, {
      jsonrpc: '2.0',
      id: 'j',
      error: { code: -32603, message: 'Service Unavailable: the server is shutting down' },
    });
    await stream.ended();
    assert.deepEqual(
      (await listen.rest()).map((event) => event.message),
      [
        {
          jsonrpc: '2.0',
          id: 'L',
          result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'L', [SERVER_INFO]: INFO } },
        },
      ],
    );
    assert.equal(server.metrics().connections, 0);
  },
);

test(
  'a handler that never resolves in a 2025 session: handler.close(drainWindowMs) ends after the window and the request POST gets an error answer, not 202',
  T,
  async (t) => {
    const { server, started, abortedEras } = neverServer();
    const { url, handler } = await mount(t, server);
    const session = await openSession(url);
    const pending = sessionPost(url, session, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'never', arguments: { tag: 'legacy' } },
    });
    await started('legacy');
    await handler.close(20);
    assert.deepEqual(abortedEras, ['legacy legacy']);
    assert.equal(handler.sessionCount, 0);
    assert.equal(server.metrics().connections, 0);
    const answer = await pending;
    assert.notEqual(answer.status, 202, 'a POST holding a request is never answered 202');
    assert.ok(answer.json?.error !== undefined, `a JSON-RPC error answers it: ${answer.status} ${answer.text}`);
  },
);

test(
  'a handler that never resolves: serveHttp().close() is bounded by its 2 s drain window and answers 503',
  T,
  async () => {
    const { server, started } = neverServer();
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    const call = modern('tools/call', { name: 'never', arguments: { tag: 'served' } }, 'n');
    const pending = raw(http.url, {
      headers: modernHeaders(call, { accept: 'application/json' }),
      body: JSON.stringify(call),
    });
    await started('served');
    await http.close();
    const answer = await pending;
    assert.deepEqual([answer.status, answer.json.id, answer.json.error.code], [503, 'n', -32603]);
    assert.equal(server.metrics().connections, 0);
  },
);

test(
  'a handler that never resolves on stdio: EOF and close() are both bounded by drainWindowMs; nothing is written for it and its signal is aborted',
  T,
  async () => {
    for (const how of ['eof', 'close'] as const) {
      const { server, started, abortedEras } = neverServer();
      const client = new WireClient(server, { drainWindowMs: 20 });
      await client.initialize();
      client.send({
        jsonrpc: '2.0',
        id: 'n',
        method: 'tools/call',
        params: { name: 'never', arguments: { tag: how } },
      });
      await started(how);
      if (how === 'close') await client.stdio.close();
      const rest = await client.end();
      assert.deepEqual(rest, [], how);
      assert.equal(
        client.frames.some((frame) => frame.id === 'n'),
        false,
        how,
      );
      assert.deepEqual(abortedEras, [`legacy ${how}`]);
      assert.equal(server.metrics().connections, 0);
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Handlers that throw synchronously or reject with a non-Error

/** What each handler throws (synchronously) or rejects with; the same value every time, so the log can be checked by identity. */
const THROWN: [name: string, value: unknown, sync: boolean][] = [
  ['sync-error', new Error('secret sync error'), true],
  ['sync-string', 'secret sync string', true],
  ['sync-undefined', undefined, true],
  ['reject-string', 'secret rejected string', false],
  ['reject-undefined', undefined, false],
  ['reject-null', null, false],
  ['reject-object', { message: 'secret object', stack: 'secret stack' }, false],
  ['reject-look-alike', { code: -32602, message: 'secret look-alike', data: { secret: true } }, false],
  ['reject-coded-error', Object.assign(new Error('secret coded'), { code: -32602, data: 'secret' }), false],
  ['reject-number', 42, false],
  ['reject-array', ['secret array'], false],
];

function throwingServer() {
  const { server, logger } = quietServer();
  for (const [name, value, sync] of THROWN) {
    const fail = (): never => {
      if (sync) throw value;
      return Promise.reject(value) as never;
    };
    server.prompt(name, {}, fail);
    server.tool(name, {}, fail);
  }
  return { server, logger };
}

test(
  'handlers that throw synchronously or reject with a non-Error (string, undefined, null, object, look-alike, number): -32603 "Internal error" without their message, logged with the value, the connection serves on',
  T,
  async (t) => {
    const { server, logger } = throwingServer();
    const legacy = new WireClient(server);
    await legacy.initialize();
    const modernClient = new WireClient(server);
    const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
    t.after(() => http.close());
    for (const [index, [name, value]] of THROWN.entries()) {
      const before = logger.errors.length;
      assert.deepEqual(await legacy.request('prompts/get', { name }, index), INTERNAL(index), name);
      const answer = await modernClient.request(
        'prompts/get',
        { name, _meta: modern('prompts/get').params._meta },
        index,
      );
      assert.deepEqual(answer, INTERNAL(index), name);
      const frame = modern('prompts/get', { name }, index);
      const overHttp = await raw(http.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
      assert.deepEqual([overHttp.status, overHttp.json], [200, INTERNAL(index)], name);
      assert.doesNotMatch(overHttp.text, /secret/);
      // Logged once per request, with the thrown value itself (not a copy, not a string).
      assert.deepEqual(
        logger.errors.slice(before).map((entry) => entry.message),
        Array(3).fill("handler for 'prompts/get' failed"),
        name,
      );
      assert.ok(
        logger.errors.slice(before).every((entry) => Object.is(entry.error, value)),
        name,
      );
      // Tools report the same failures in-band, where the model reads them, and log them too.
      const tool = await legacy.request('tools/call', { name }, `t${index}`);
      assert.deepEqual(
        tool,
        {
          jsonrpc: '2.0',
          id: `t${index}`,
          result: { content: [{ type: 'text', text: 'Tool execution failed' }], isError: true },
        },
        name,
      );
      assert.equal(logger.errors.at(-1)!.message, `tool '${name}' failed`, name);
      assert.ok(Object.is(logger.errors.at(-1)!.error, value), name);
    }
    assert.deepEqual(await legacy.request('ping', undefined, 'alive'), { jsonrpc: '2.0', id: 'alive', result: {} });
    assert.deepEqual(
      legacy.frames.filter((frame) => JSON.stringify(frame).includes('secret')),
      [],
    );
    assert.deepEqual(
      modernClient.frames.filter((frame) => JSON.stringify(frame).includes('secret')),
      [],
    );
    assert.deepEqual(await legacy.end(), []);
    assert.deepEqual(await modernClient.end(), []);
  },
);

test(
  'a handler rejecting with a value String() cannot convert, under the default stderr logger, still gets -32603 and the process lives on',
  T,
  async (t) => {
    const core = pathToFileURL(join(ROOT, 'core.ts')).href;
    const stdio = pathToFileURL(join(ROOT, 'stdio.ts')).href;
    const script = `import { createServer } from ${JSON.stringify(core)};
import { serveStdio } from ${JSON.stringify(stdio)};
const server = createServer({ name: 'n', version: '1' });
server.prompt('null-prototype', {}, async () => { throw Object.create(null); });
server.prompt('bad-to-string', {}, async () => { throw { toString() { throw new Error('no text'); } }; });
serveStdio(server);`;
    const child = spawn(process.execPath, ['--experimental-strip-types', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.stdin.on('error', () => {});
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exit = once(child, 'exit');
    const frames = [
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { name: 'null-prototype' } },
      { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'bad-to-string' } },
    ];
    child.stdin.write(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(''));
    // Ping last, once the answers are out (or the process is gone): then end the input.
    const answered = (id: number) => stdout.split('\n').some((line) => line !== '' && JSON.parse(line).id === id);
    await new Promise<void>((resolve) => {
      const check = () => ((answered(3) && answered(2)) || child.exitCode !== null ? resolve() : undefined);
      child.stdout.on('data', check);
      child.on('exit', () => resolve());
      check();
    });
    child.stdin.end();
    const [code] = await exit;
    const answers = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      answers.filter((frame) => frame.id !== 1),
      [INTERNAL(2), INTERNAL(3)],
      stderr,
    );
    assert.equal(code, 0, stderr);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Event store failures

type StoreMethod = 'append' | 'replayAfter' | 'dropSession';

/** A MemoryEventStore whose `failing` methods throw (synchronously) or reject. */
function failingStore(mode: 'throw' | 'reject', failing: StoreMethod[]): EventStore & { failures: string[] } {
  const base = new MemoryEventStore();
  const failures: string[] = [];
  const wrap =
    <A extends unknown[], R>(method: StoreMethod, real: (...args: A) => R) =>
    (...args: A): R | Promise<never> => {
      if (!failing.includes(method)) return real(...args);
      failures.push(method);
      const error = new Error(`event store ${method} is down`);
      if (mode === 'throw') throw error;
      return Promise.reject(error);
    };
  return {
    failures,
    append: wrap('append', (sessionId: string, streamId: string, data: string) =>
      base.append(sessionId, streamId, data),
    ),
    replayAfter: wrap('replayAfter', (sessionId: string, lastEventId: string) =>
      base.replayAfter(sessionId, lastEventId),
    ),
    dropSession: wrap('dropSession', (sessionId: string) => base.dropSession(sessionId)),
  };
}

function tickServer() {
  const { server, logger } = quietServer();
  server.tool('tick', {}, (_args, ctx) => {
    ctx.progress(1, 1);
    return text('ticked');
  });
  return { server, logger };
}

test(
  'event store failures: an append that throws or rejects is logged and the events go out without ids; POST streams, the GET stream and the session live on',
  T,
  async (t) => {
    for (const mode of ['throw', 'reject'] as const) {
      const { server, logger } = tickServer();
      const store = failingStore(mode, ['append']);
      const { url } = await mount(t, server, { eventStore: store });
      const session = await openSession(url);
      const streamed = await sessionPost(
        url,
        session,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tick', _meta: { progressToken: 'p' } } },
        STREAMING_HEADERS,
      );
      assert.equal(streamed.headers['content-type'], 'text/event-stream', mode);
      assert.equal(
        streamed.text,
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":1}}\n\n' +
          'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ticked"}]}}\n\n',
        mode,
      );
      const get = new SseReader(
        await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } }),
      );
      server.notifyListChanged('tools');
      const event = await get.next();
      assert.deepEqual([event?.id, event?.message.method], [undefined, 'notifications/tools/list_changed'], mode);
      await get.cancel();
      assert.deepEqual(
        logger.errors.map((entry) => entry.message),
        [
          'event store append failed; the stream starts without a priming event',
          'event store append failed; the event is sent without an id',
          'event store append failed; the event is sent without an id',
          'event store append failed; the stream starts without a priming event', // the GET's
          'event store append failed; the event is sent without an id',
        ],
        mode,
      );
      assert.ok(store.failures.length >= 4);
      assert.deepEqual((await sessionPost(url, session, { jsonrpc: '2.0', id: 2, method: 'ping' })).json, {
        jsonrpc: '2.0',
        id: 2,
        result: {},
      });
    }
  },
);

test(
  'event store failures: a replayAfter that throws or rejects answers the resuming GET precisely and nothing goes unhandled',
  T,
  async (t) => {
    for (const mode of ['throw', 'reject'] as const) {
      const { server } = tickServer();
      const { url, handler } = await mount(t, server, { eventStore: failingStore(mode, ['replayAfter']) });
      const session = await openSession(url);
      const streamed = await sessionPost(
        url,
        session,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tick', _meta: { progressToken: 'p' } } },
        STREAMING_HEADERS,
      );
      const lastEventId = /^id: (\S+)$/m.exec(streamed.text)?.[1];
      assert.ok(lastEventId !== undefined, streamed.text);
      const trap = trapProcessFailures();
      const controller = new AbortController();
      try {
        const get = fetch(url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': lastEventId },
          signal: controller.signal,
        });
        const outcome = await Promise.race([get.then((response) => response), trap.failed.then(() => undefined)]);
        assert.deepEqual(trap.failures.map(String), [], mode);
        assert.ok(outcome !== undefined, 'the GET is answered');
        assert.ok(outcome.status === 200 || outcome.status >= 400, `${mode}: ${outcome.status}`);
        await outcome.body?.cancel();
        assert.equal(handler.sessionCount, 1);
        assert.deepEqual((await sessionPost(url, session, { jsonrpc: '2.0', id: 2, method: 'ping' })).json, {
          jsonrpc: '2.0',
          id: 2,
          result: {},
        });
      } finally {
        controller.abort();
        await handler.close(0).catch(() => {});
        await trap.restore();
      }
    }
  },
);

test(
  'event store failures: a dropSession that throws or rejects still ends the session on DELETE and on close(), and nothing goes unhandled',
  T,
  async (t) => {
    for (const mode of ['throw', 'reject'] as const) {
      const { server } = tickServer();
      const { url, handler } = await mount(t, server, { eventStore: failingStore(mode, ['dropSession']) });
      const deleted = await openSession(url);
      await openSession(url); // ended by close()
      const trap = trapProcessFailures();
      try {
        const del = raw(url, { method: 'DELETE', headers: { 'mcp-session-id': deleted } });
        const outcome = await Promise.race([del, trap.failed.then(() => undefined)]);
        assert.deepEqual(trap.failures.map(String), [], mode);
        assert.equal(outcome?.status, 200, mode);
        assert.deepEqual(
          (await sessionPost(url, deleted, { jsonrpc: '2.0', id: 1, method: 'ping' })).json,
          SESSION_NOT_FOUND,
        );
        assert.equal(handler.sessionCount, 1);
        const closing = handler.close(0).then(
          () => 'closed',
          (error: unknown) => `close() rejected: ${String(error)}`,
        );
        assert.equal(await Promise.race([closing, trap.failed.then(() => 'unhandled')]), 'closed', mode);
        assert.deepEqual(trap.failures.map(String), [], mode);
        assert.equal(handler.sessionCount, 0);
        assert.equal(server.metrics().connections, 0);
      } finally {
        await handler.close(0).catch(() => {});
        await trap.restore();
      }
    }
  },
);
