// Wire-level tests of the JSON-RPC dispatcher: frame validation, ids, the in-flight table, cancellation, progress,
// server→client requests, handler errors, rethrow mode, the concurrency cap and 2025-03-26 batches. Every race is
// resolved by explicit signals from inside handlers; every test ends by checking that the server wrote nothing it
// was not expected to.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CallToolResult,
  type Context,
  createServer,
  type Middleware,
  MissingCapabilityError,
  OutboundRequestError,
  ProtocolError,
  type ReadResourceResult,
  type RequestId,
  type Server,
  type ServerOptions,
  ToolError,
} from '../core.ts';
import { Dispatcher } from '../dispatcher.ts';
import { createEverythingServer } from '../examples/everything.ts';
import type { JsonRpcMessage, JsonRpcResponse } from '../jsonrpc.ts';
import type { InboundRequest } from '../request.ts';
import type { StdioOptions } from '../stdio.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

type Deferred<T> = ReturnType<typeof deferred<T>>;

/** One handler invocation parked until the test releases it. */
interface Held {
  id: RequestId;
  ctx: Context;
  /** Settles the handler's promise: resolve with its result or reject with what it throws. */
  outcome: Deferred<unknown>;
  /** Resolves (with the signal's reason) when the handler's AbortSignal fires. */
  aborted: Promise<unknown>;
}

/** Handlers that park themselves, looked up by request id (ids compare by type: "7" and 7 are different). */
class Holds {
  readonly all: Held[] = [];
  readonly #ready = new Map<RequestId, Held[]>();
  readonly #waiting = new Map<RequestId, Deferred<Held>[]>();

  park(ctx: Context): Promise<unknown> {
    const held: Held = {
      id: ctx.requestId,
      ctx,
      outcome: deferred<unknown>(),
      aborted: new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason), { once: true }),
      ),
    };
    this.all.push(held);
    const waiter = this.#waiting.get(held.id)?.shift();
    if (waiter !== undefined) waiter.resolve(held);
    else this.#ready.set(held.id, [...(this.#ready.get(held.id) ?? []), held]);
    return held.outcome.promise;
  }

  /** Drops the invocations no test claimed with `started`, so that a reused id finds its new invocation. */
  forget(): void {
    this.#ready.clear();
  }

  /** The next parked invocation for `id` (waits for it to start). */
  started(id: RequestId): Promise<Held> {
    const ready = this.#ready.get(id)?.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    const waiter = deferred<Held>();
    this.#waiting.set(id, [...(this.#waiting.get(id) ?? []), waiter]);
    return waiter.promise;
  }
}

interface Setup {
  server: Server;
  client: WireClient;
  logger: MemoryLogger;
  holds: Holds;
  /** Everything the server wrote to its output, byte for byte. */
  raw(): string;
}

/**
 * A server with a parking tool `hold`, a parking resource `test://hold` and whatever `register` adds, served over
 * stdio to a WireClient, with a MemoryLogger in place of stderr.
 */
function setup(
  options: ServerOptions = {},
  register: (server: Server, holds: Holds) => void = () => {},
  stdio: Omit<StdioOptions, 'input' | 'output'> = {},
): Setup {
  const logger = new MemoryLogger();
  const holds = new Holds();
  const server = createServer({ name: 'dispatcher-test', version: '1.0.0' }, { logger, ...options });
  server.tool('hold', {}, (_args, ctx) => holds.park(ctx) as Promise<CallToolResult>);
  server.resource('test://hold', { name: 'hold' }, (_uri, ctx) => holds.park(ctx) as Promise<ReadResourceResult>);
  register(server, holds);
  const client = new WireClient(server, stdio);
  let raw = '';
  client.output.on('data', (chunk: string) => (raw += chunk));
  return { server, client, logger, holds, raw: () => raw };
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

const request = (id: unknown, method: string, params?: object) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const call = (id: RequestId, name: string, args: object = {}, meta?: object) =>
  request(id, 'tools/call', meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta });
const read = (id: RequestId, uri: string) => request(id, 'resources/read', { uri });
const cancel = (requestId: unknown, reason?: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: reason === undefined ? { requestId } : { requestId, reason },
});

const result = (id: RequestId, value: unknown) => ({ jsonrpc: '2.0', id, result: value });
const toolText = (id: RequestId, value: string) => result(id, { content: [{ type: 'text', text: value }] });
const failure = (id: RequestId | null, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});
const progressFrame = (progressToken: string | number, progress: number, total?: number, message?: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: {
    progressToken,
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  },
});
const cancelled = (requestId: number, reason: string) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason },
});
const logFrame = (level: string, data: unknown) => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level, data },
});
const TOOL_FAILED = { content: [{ type: 'text', text: 'Tool execution failed' }], isError: true };
const INTERNAL = (id: RequestId) => failure(id, -32603, 'Internal error');
const BAD_ID = failure(null, -32600, 'Invalid Request: id must be a string or an integer');
const PARSE_ERROR = failure(null, -32700, 'Parse error');

/** Lets every pending handler continuation run, then proves with a ping round trip that all input was read. */
async function settle(client: WireClient): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const pong = await client.request('ping');
  assert.deepEqual(pong.result, {});
}

const line = (frame: object): string => `${JSON.stringify(frame)}\n`;

/** The request is gone from the table: the count is zero and its id is accepted again. */
async function assertFreed(client: WireClient, id: RequestId): Promise<void> {
  assert.equal(client.stdio.connection.inFlightCount, 0);
  assert.deepEqual(await client.request('ping', undefined, id), result(id, {}));
}

/** Resolves when the server's output stream has ended (after a rethrow close, where end() cannot be used). */
function outputEnded(client: WireClient): Promise<void> {
  return new Promise((resolve) => (client.output.readableEnded ? resolve() : client.output.once('end', resolve)));
}

/** The frames written after the first `skip` ones. */
function framesAfter(client: WireClient, skip: number): Frame[] {
  return client.frames.slice(skip);
}

function serverRequest(client: WireClient, method: string): Promise<Frame> {
  return client.waitFor((frame) => frame.method === method && 'id' in frame);
}

// ---------------------------------------------------------------------------------------------------------------

describe('frame validation', () => {
  test('malformed ids are answered -32600 with id null, before and after initialize', async () => {
    const { client } = setup();
    const ids = [null, 1.5, true, [1], {}];
    for (const id of ids) client.send(request(id, 'ping'));
    for (const _ of ids) assert.deepEqual(await client.next(), BAD_ID);
    await client.initialize();
    for (const id of ids) client.send(request(id, 'tools/list'));
    for (const _ of ids) assert.deepEqual(await client.next(), BAD_ID);
    assert.deepEqual(await client.end(), []);
  });

  test('malformed shapes are answered -32600 echoing the valid id', async () => {
    const { client } = setup();
    await client.initialize();
    client.send({ id: 1, method: 'ping' });
    assert.deepEqual(await client.next(), failure(1, -32600, 'Invalid Request: jsonrpc must be exactly "2.0"'));
    client.send({ jsonrpc: '1.0', id: 'a', method: 'ping' });
    assert.deepEqual(await client.next(), failure('a', -32600, 'Invalid Request: jsonrpc must be exactly "2.0"'));
    client.send({ jsonrpc: '2.0', id: 2, method: 5 });
    assert.deepEqual(await client.next(), failure(2, -32600, 'Invalid Request: method must be a non-empty string'));
    client.send({ jsonrpc: '2.0', id: 3, method: '' });
    assert.deepEqual(await client.next(), failure(3, -32600, 'Invalid Request: method must be a non-empty string'));
    client.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: [] });
    assert.deepEqual(await client.next(), failure(4, -32600, 'Invalid Request: params must be an object'));
    client.send({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: null });
    assert.deepEqual(await client.next(), failure(0, -32600, 'Invalid Request: params must be an object'));
    // Neither a request nor a notification nor a response.
    client.send({ jsonrpc: '2.0', method: 1 });
    assert.deepEqual(await client.next(), failure(null, -32600, 'Invalid Request: method must be a non-empty string'));
    client.send({ jsonrpc: '2.0', id: 5 });
    assert.deepEqual(
      await client.next(),
      failure(5, -32600, 'Invalid Request: a message needs a method, a result or an error'),
    );
    client.send('42');
    assert.deepEqual(await client.next(), failure(null, -32600, 'Invalid Request: a message must be a JSON object'));
    client.send('null');
    assert.deepEqual(await client.next(), failure(null, -32600, 'Invalid Request: a message must be a JSON object'));
    assert.deepEqual(await client.request('ping', undefined, 6), result(6, {}));
    assert.deepEqual(await client.end(), []);
  });

  test('invalid JSON gets -32700 with id null and the connection keeps serving', async () => {
    const { client } = setup();
    client.send('{"jsonrpc":"2.0","id":1,"method":');
    assert.deepEqual(await client.next(), PARSE_ERROR);
    assert.deepEqual(await client.request('ping', undefined, 1), result(1, {}));
    await client.initialize();
    client.send('{not json}');
    client.send('{"jsonrpc":"2.0","id":2,"method":"ping"}}');
    assert.deepEqual(await client.next(), PARSE_ERROR);
    assert.deepEqual(await client.next(), PARSE_ERROR);
    assert.deepEqual(await client.request('ping', undefined, 2), result(2, {}));
    assert.deepEqual(await client.end(), []);
  });

  test('unknown methods get -32601 naming the method; unknown notifications get nothing', async () => {
    const { client } = setup();
    assert.deepEqual(
      await client.request('x/unknown', undefined, 1),
      failure(1, -32601, 'Method not found', 'x/unknown'),
    );
    await client.initialize();
    for (const [id, method] of [
      [2, 'x/unknown'],
      [3, 'constructor'],
      [4, '__proto__'],
      [5, 'toString'],
      [6, 'prompts/list'],
    ] as const) {
      assert.deepEqual(await client.request(method, undefined, id), failure(id, -32601, 'Method not found', method));
    }
    client.send({ jsonrpc: '2.0', method: 'x/unknown-notification' });
    client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });
});

describe('request ids', () => {
  test('ids 0, "" and "0" are valid and echoed with their type', async () => {
    const { client, holds } = setup();
    for (const id of [0, '', '0', -1, Number.MAX_SAFE_INTEGER]) {
      assert.deepEqual(await client.request('ping', undefined, id), result(id, {}));
    }
    await client.initialize();
    client.send(call(0, 'hold'));
    client.send(call('', 'hold'));
    client.send(call('0', 'hold'));
    (await holds.started('0')).outcome.resolve(text('string zero'));
    (await holds.started('')).outcome.resolve(text('empty'));
    (await holds.started(0)).outcome.resolve(text('zero'));
    assert.deepEqual(await client.response('0'), toolText('0', 'string zero'));
    assert.deepEqual(await client.response(''), toolText('', 'empty'));
    assert.deepEqual(await client.response(0), toolText(0, 'zero'));
    assert.deepEqual(await client.end(), []);
  });

  test('a cancel naming id 0 cancels request 0', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(0, 'hold'));
    const held = await holds.started(0);
    client.send(cancel(0));
    await held.aborted;
    held.outcome.resolve(text('late'));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(await client.end(), []);
  });

  test('"7" and 7 are distinct ids: both run at once and cancelling "7" does not cancel 7', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call('7', 'hold'));
    client.send(call(7, 'hold'));
    const textual = await holds.started('7');
    const numeric = await holds.started(7);
    assert.equal(client.stdio.connection.inFlightCount, 2);
    client.send(cancel('7'));
    await textual.aborted;
    await settle(client);
    assert.equal(numeric.ctx.signal.aborted, false);
    assert.equal(client.stdio.connection.inFlightCount, 1);
    textual.outcome.resolve(text('string seven'));
    numeric.outcome.resolve(text('number seven'));
    assert.deepEqual(await client.response(7), toolText(7, 'number seven'));
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('a duplicate in-flight id is refused -32600 while the first keeps running; a later cancel applies to the first', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    const first = await holds.started(1);
    const refusal = failure(1, -32600, 'Invalid Request: request id 1 is already in flight');
    client.send(request(1, 'tools/list'));
    assert.deepEqual(await client.response(1), refusal);
    client.send(call(1, 'hold'));
    assert.deepEqual(await client.response(1), refusal);
    assert.equal(holds.all.length, 1, 'the refused duplicate never reached a handler');
    assert.equal(first.ctx.signal.aborted, false);
    assert.equal(client.stdio.connection.inFlightCount, 1);

    client.send(cancel(1));
    await first.aborted;
    first.outcome.resolve(text('late'));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);

    // The id is free again once the first request is gone: its cancel removed it from the in-flight table.
    client.send(call(1, 'hold'));
    (await holds.started(1)).outcome.resolve(text('second'));
    assert.deepEqual(await client.response(1), toolText(1, 'second'));
    assert.deepEqual(await client.end(), []);
  });

  test('a duplicate string id is named as JSON in the refusal', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call('x', 'hold'));
    const held = await holds.started('x');
    assert.deepEqual(
      await client.request('ping', undefined, 'x'),
      failure('x', -32600, 'Invalid Request: request id "x" is already in flight'),
    );
    held.outcome.resolve(text('done'));
    assert.deepEqual(await client.response('x'), toolText('x', 'done'));
    assert.deepEqual(await client.end(), []);
  });

  test('a cancelled request that finishes late does not evict a new request reusing its id', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    const first = await holds.started(1);
    client.send(cancel(1));
    await first.aborted;
    client.send(call(1, 'hold'));
    const second = await holds.started(1);
    first.outcome.resolve(text('first, late'));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 1);
    assert.deepEqual(
      await client.request('ping', undefined, 1),
      failure(1, -32600, 'Invalid Request: request id 1 is already in flight'),
    );
    client.send(cancel(1));
    await second.aborted;
    second.outcome.resolve(text('second, late'));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(await client.end(), []);
  });
});

describe('the in-flight table', () => {
  test('opening and cancelling 1000 requests leaves the table empty and the next request is answered', async () => {
    const { client, holds } = setup();
    await client.initialize();
    const ids = Array.from({ length: 1000 }, (_, index) => index + 1);
    client.input.write(ids.map((id) => line(call(id, 'hold'))).join(''));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 1000);
    assert.equal(holds.all.length, 1000);
    client.input.write(ids.map((id) => line(cancel(id))).join(''));
    await Promise.all(holds.all.map((held) => held.aborted));
    assert.equal(client.stdio.connection.inFlightCount, 0);
    for (const held of holds.all) held.outcome.resolve(text('late'));
    holds.forget();
    assert.deepEqual(await client.request('ping', undefined, 1), result(1, {}));
    client.send(call(1000, 'hold'));
    (await holds.started(1000)).outcome.resolve(text('after'));
    assert.deepEqual(await client.response(1000), toolText(1000, 'after'));
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(await client.end(), []);
  });

  test('the demo server: 1000 test_sleep calls opened and cancelled leave nothing in flight', async () => {
    const client = new WireClient(createEverythingServer());
    await client.initialize();
    const ids = Array.from({ length: 1000 }, (_, index) => `sleep-${index}`);
    client.input.write(ids.map((id) => line(call(id, 'test_sleep', { ms: 600_000 }))).join(''));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 1000);
    client.input.write(ids.map((id) => line(cancel(id))).join(''));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(
      await client.request('tools/call', { name: 'test_sleep', arguments: { ms: 0 } }, 'sleep-0'),
      toolText('sleep-0', 'Slept 0 ms'),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when its handler returns a result', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    const held = await holds.started(1);
    assert.equal(client.stdio.connection.inFlightCount, 1);
    held.outcome.resolve(text('done'));
    assert.deepEqual(await client.response(1), toolText(1, 'done'));
    await assertFreed(client, 1);
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when its handler throws a ProtocolError', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(read(1, 'test://hold'));
    (await holds.started(1)).outcome.reject(new ProtocolError(4001, 'Denied'));
    assert.deepEqual(await client.response(1), failure(1, 4001, 'Denied'));
    await assertFreed(client, 1);
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when its handler throws synchronously, rejects, or throws something that is not an Error', async () => {
    const { client, holds, logger } = setup({}, (server) => {
      server.resource('test://throw-sync', { name: 'sync' }, () => {
        throw new Error('sync failure');
      });
      server.resource('test://throw-undefined', { name: 'undefined' }, () => {
        throw undefined;
      });
    });
    await client.initialize();
    assert.deepEqual(await client.request('resources/read', { uri: 'test://throw-sync' }, 1), INTERNAL(1));
    await assertFreed(client, 1);
    assert.deepEqual(await client.request('resources/read', { uri: 'test://throw-undefined' }, 2), INTERNAL(2));
    await assertFreed(client, 2);
    client.send(read(3, 'test://hold'));
    (await holds.started(3)).outcome.reject(new Error('async failure'));
    assert.deepEqual(await client.response(3), INTERNAL(3));
    await assertFreed(client, 3);
    client.send(read(4, 'test://hold'));
    (await holds.started(4)).outcome.reject('a plain string');
    assert.deepEqual(await client.response(4), INTERNAL(4));
    await assertFreed(client, 4);
    assert.equal(logger.errors.length, 4);
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when its tool throws (in-band failure)', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    (await holds.started(1)).outcome.reject(new Error('tool failure'));
    assert.deepEqual(await client.response(1), result(1, TOOL_FAILED));
    await assertFreed(client, 1);
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when the connection closes: handlers are aborted and nothing more is written', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    client.send(read(2, 'test://hold'));
    const tool = await holds.started(1);
    const resource = await holds.started(2);
    assert.equal(client.stdio.connection.inFlightCount, 2);
    client.stdio.connection.close();
    assert.equal(client.stdio.connection.inFlightCount, 0);
    await tool.aborted;
    await resource.aborted;
    tool.outcome.resolve(text('late'));
    resource.outcome.reject(new Error('late'));
    client.send(request(3, 'ping'));
    assert.deepEqual(await client.end(), []);
  });

  test('an entry is removed when input ends and the drain window passes', async () => {
    const { client, holds } = setup({}, () => {}, { drainWindowMs: 0 });
    await client.initialize();
    client.send(call(1, 'hold'));
    const held = await holds.started(1);
    const ended = client.end();
    await held.aborted;
    held.outcome.resolve(text('late'));
    assert.deepEqual(await ended, []);
    assert.equal(client.stdio.connection.inFlightCount, 0);
  });
});

describe('cancellation', () => {
  test('notifications/cancelled aborts the signal and suppresses the answer even when the handler then resolves', async () => {
    const { client, holds, logger } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    client.send(read(2, 'test://hold'));
    const tool = await holds.started(1);
    const resource = await holds.started(2);
    client.send(cancel(1, 'user pressed stop'));
    client.send(cancel(2));
    await tool.aborted;
    await resource.aborted;
    assert.equal(tool.ctx.signal.aborted, true);
    tool.outcome.resolve(text('late result'));
    resource.outcome.resolve({ contents: [{ uri: 'test://hold', text: 'late' }] });
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(logger.errors, []);
    assert.deepEqual(await client.end(), []);
  });

  test('a handler that throws after its cancel writes nothing: Error, ProtocolError or a non-Error', async () => {
    const { client, holds, logger } = setup();
    await client.initialize();
    const ids = [1, 2, 3, 4, 5, 6];
    for (const id of ids) client.send(id % 2 === 1 ? call(id, 'hold') : read(id, 'test://hold'));
    const held = await Promise.all(ids.map((id) => holds.started(id)));
    for (const id of ids) client.send(cancel(id));
    await Promise.all(held.map((entry) => entry.aborted));
    const thrown = [
      new Error('after abort'),
      new Error('after abort'),
      new ProtocolError(4001, 'x'),
      new ProtocolError(4001, 'x'),
      'text',
      'text',
    ];
    for (const [index, entry] of held.entries()) entry.outcome.reject(thrown[index]);
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(await client.end(), []);
    assert.deepEqual(
      logger.errors.map((entry) => entry.message),
      [],
    );
  });

  test('progress and log messages from a cancelled handler are dropped', async () => {
    const { client, holds } = setup();
    await client.initialize();
    await client.request('logging/setLevel', { level: 'debug' }, 'level');
    client.send(call(1, 'hold', {}, { progressToken: 't' }));
    const held = await holds.started(1);
    held.ctx.progress(1, 10);
    held.ctx.log('error', 'before cancel');
    assert.deepEqual(await client.notification('notifications/progress'), progressFrame('t', 1, 10));
    assert.deepEqual(await client.notification('notifications/message'), logFrame('error', 'before cancel'));
    client.send(cancel(1));
    await held.aborted;
    held.ctx.progress(2, 10);
    held.ctx.log('error', 'after cancel');
    held.outcome.resolve(text('late'));
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('unknown, finished and malformed cancels are ignored', async () => {
    const { client, holds } = setup();
    await client.initialize();
    client.send(call(1, 'hold'));
    const held = await holds.started(1);
    for (const frame of [
      cancel(99),
      cancel('1'),
      cancel(null),
      cancel(1.5),
      cancel([1]),
      cancel({}),
      { jsonrpc: '2.0', method: 'notifications/cancelled' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { id: 1 } },
    ]) {
      client.send(frame);
    }
    await settle(client);
    assert.equal(held.ctx.signal.aborted, false);
    assert.equal(client.stdio.connection.inFlightCount, 1);
    // A cancel sent as a request is a request for an unknown method, not a cancel.
    assert.deepEqual(
      await client.request('notifications/cancelled', { requestId: 1 }, 2),
      failure(2, -32601, 'Method not found', 'notifications/cancelled'),
    );
    assert.equal(held.ctx.signal.aborted, false);
    held.outcome.resolve(text('done'));
    assert.deepEqual(await client.response(1), toolText(1, 'done'));
    client.send(cancel(1)); // finished
    await settle(client);
    assert.deepEqual(await client.request('ping', undefined, 1), result(1, {}));
    assert.deepEqual(await client.end(), []);
  });

  test('cancels before initialize are dropped', async (t) => {
    const cancels = t.mock.method(Dispatcher.prototype, 'cancel');
    const { client, holds } = setup();
    client.input.write(
      [
        request(1, 'ping'),
        cancel(1),
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
        cancel(2),
      ]
        .map(line)
        .join(''),
    );
    assert.deepEqual(await client.next(), result(1, {}));
    await settle(client);
    assert.equal(cancels.mock.callCount(), 0, 'a cancel before initialize must not reach the dispatcher');
    await client.initialize();
    client.send(call(1, 'hold'));
    const held = await holds.started(1);
    client.send(cancel(1));
    await held.aborted;
    assert.equal(cancels.mock.callCount(), 1);
    assert.deepEqual(cancels.mock.calls[0]!.arguments, [1]);
    assert.deepEqual(await client.end(), []);
  });

  test('the demo server: cancelling a test_sleep stops its progress and suppresses its answer', async () => {
    const client = new WireClient(createEverythingServer());
    await client.initialize();
    const start = client.frames.length;
    client.send(call(0, 'test_sleep', { ms: 600_000 }, { progressToken: 0 }));
    const first = await client.notification('notifications/progress');
    assert.equal(first.params.progressToken, 0);
    assert.equal(first.params.total, 600_000);
    client.send(cancel(0));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    const rest = await client.end();
    // Progress written before the cancel was read may still be unread; nothing else, and nothing for id 0.
    assert.ok(rest.every((frame) => frame.method === 'notifications/progress' && frame.params.progressToken === 0));
    const written = framesAfter(client, start);
    assert.equal(written.filter((frame) => frame.id === 0).length, 0);
    const pong = written.findIndex((frame) => 'result' in frame);
    assert.equal(pong, written.length - 1, 'nothing follows the ping answered after the cancel');
  });
});

describe('progress', () => {
  function steps(server: Server): void {
    server.tool('steps', {}, (_args, ctx) => {
      ctx.progress(1, 10, 'one');
      ctx.progress(1, 10, 'one again'); // not an increase
      ctx.progress(0.5); // a decrease
      ctx.progress(Number.NaN);
      ctx.progress(2);
      ctx.progress(10, 10, 'done');
      return text('stepped');
    });
  }

  test('progress is bound to the request token, token 0 included, and non-increasing values are dropped', async () => {
    const { client } = setup({}, steps);
    await client.initialize();
    const start = client.frames.length;
    client.send(call(1, 'steps', {}, { progressToken: 0 }));
    assert.deepEqual(await client.response(1), toolText(1, 'stepped'));
    assert.deepEqual(framesAfter(client, start), [
      progressFrame(0, 1, 10, 'one'),
      progressFrame(0, 2),
      progressFrame(0, 10, 10, 'done'),
      toolText(1, 'stepped'),
    ]);
    assert.deepEqual(await client.end(), [
      progressFrame(0, 1, 10, 'one'),
      progressFrame(0, 2),
      progressFrame(0, 10, 10, 'done'),
    ]);
  });

  test('concurrent requests each report on their own token', async () => {
    const { client, holds } = setup();
    await client.initialize();
    const start = client.frames.length;
    client.send(call(1, 'hold', {}, { progressToken: 'a' }));
    client.send(call(2, 'hold', {}, { progressToken: '' }));
    const a = await holds.started(1);
    const b = await holds.started(2);
    a.ctx.progress(1);
    b.ctx.progress(1);
    a.ctx.progress(2, 2);
    b.outcome.resolve(text('b'));
    a.outcome.resolve(text('a'));
    assert.deepEqual(await client.response(1), toolText(1, 'a'));
    assert.deepEqual(framesAfter(client, start), [
      progressFrame('a', 1),
      progressFrame('', 1),
      progressFrame('a', 2, 2),
      toolText(2, 'b'),
      toolText(1, 'a'),
    ]);
    assert.deepEqual(await client.end(), [
      progressFrame('a', 1),
      progressFrame('', 1),
      progressFrame('a', 2, 2),
      toolText(2, 'b'),
    ]);
  });

  test('progress without a token, or with a token that is not a string or number, is a no-op', async () => {
    const { client } = setup({}, steps);
    await client.initialize();
    const start = client.frames.length;
    const metas = [
      undefined,
      {},
      { progressToken: null },
      { progressToken: true },
      { progressToken: {} },
      { progressToken: [1] },
    ];
    for (const [index, meta] of metas.entries()) {
      assert.deepEqual(
        await client.request('tools/call', { name: 'steps', ...(meta && { _meta: meta }) }, index),
        toolText(index, 'stepped'),
      );
    }
    assert.deepEqual(
      framesAfter(client, start),
      metas.map((_, index) => toolText(index, 'stepped')),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('progress is never sent after the response', async () => {
    let kept: Context | undefined;
    const { client } = setup({}, (server) => {
      server.tool('keep', {}, (_args, ctx) => {
        kept = ctx;
        ctx.progress(1, 3);
        ctx.log('info', 'working');
        return text('kept');
      });
    });
    await client.initialize();
    await client.request('logging/setLevel', { level: 'debug' }, 'level');
    client.send(call(1, 'keep', {}, { progressToken: 't' }));
    assert.deepEqual(await client.notification('notifications/progress'), progressFrame('t', 1, 3));
    assert.deepEqual(await client.notification('notifications/message'), logFrame('info', 'working'));
    assert.deepEqual(await client.response(1), toolText(1, 'kept'));
    kept!.progress(2, 3);
    kept!.progress(3, 3, 'late');
    kept!.log('emergency', 'late log');
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('the progress message is omitted on 2024-11-05 and kept from 2025-03-26', async () => {
    for (const [version, expected] of [
      ['2024-11-05', [progressFrame('p', 1, 10), progressFrame('p', 2), progressFrame('p', 10, 10)]],
      ['2025-03-26', [progressFrame('p', 1, 10, 'one'), progressFrame('p', 2), progressFrame('p', 10, 10, 'done')]],
      ['2025-11-25', [progressFrame('p', 1, 10, 'one'), progressFrame('p', 2), progressFrame('p', 10, 10, 'done')]],
    ] as const) {
      const { client } = setup({}, steps);
      await client.initialize(version);
      assert.deepEqual(
        await client.request('tools/call', { name: 'steps', _meta: { progressToken: 'p' } }, 1),
        toolText(1, 'stepped'),
      );
      assert.deepEqual(await client.end(), expected, version);
    }
  });
});

describe('server→client requests', () => {
  const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

  test('elicitation goes out with a fresh id and the answer is correlated by id, type included', async () => {
    const { client, logger } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) =>
        text(JSON.stringify(await ctx.elicit({ message: 'Name?', requestedSchema: SCHEMA }))),
      );
    });
    await client.initialize('2025-06-18', { elicitation: {} });
    client.send(call(1, 'ask'));
    assert.deepEqual(
      await serverRequest(client, 'elicitation/create'),
      request(0, 'elicitation/create', { message: 'Name?', requestedSchema: SCHEMA }),
    );
    client.send(result('0', { action: 'decline' })); // "0" is not 0
    client.send(result(99, { action: 'decline' }));
    client.send(result(0, { action: 'accept', content: { name: 'Ada' } }));
    assert.deepEqual(await client.response(1), toolText(1, '{"action":"accept","content":{"name":"Ada"}}'));
    assert.deepEqual(client.unansweredServerRequests(), []);
    assert.deepEqual(logger.warnings, []);
    assert.deepEqual(await client.end(), []);
  });

  test('sampling, roots and ping each get their own id; concurrent requests correlate out of order', async () => {
    const { client } = setup({}, (server) => {
      server.tool('many', {}, async (_args, ctx) => {
        const samples = await Promise.all([
          ctx.sample({ messages: [], maxTokens: 1 }),
          ctx.sample({ messages: [], maxTokens: 2 }),
        ]);
        const roots = await ctx.listRoots();
        await ctx.ping();
        return text(JSON.stringify([...samples, roots]));
      });
    });
    await client.initialize('2025-11-25', { sampling: {}, roots: {} });
    client.send(call(1, 'many'));
    assert.deepEqual(
      await serverRequest(client, 'sampling/createMessage'),
      request(0, 'sampling/createMessage', { messages: [], maxTokens: 1 }),
    );
    assert.deepEqual(
      await serverRequest(client, 'sampling/createMessage'),
      request(1, 'sampling/createMessage', { messages: [], maxTokens: 2 }),
    );
    client.send(result(1, { model: 'second' }));
    client.send(result(0, { model: 'first' }));
    assert.deepEqual(await serverRequest(client, 'roots/list'), { jsonrpc: '2.0', id: 2, method: 'roots/list' });
    client.send(result(2, { roots: [{ uri: 'file:///r' }] }));
    assert.deepEqual(await serverRequest(client, 'ping'), { jsonrpc: '2.0', id: 3, method: 'ping' });
    client.send(result(3, {}));
    assert.deepEqual(
      await client.response(1),
      toolText(1, JSON.stringify([{ model: 'first' }, { model: 'second' }, { roots: [{ uri: 'file:///r' }] }])),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('an error response rejects with an OutboundRequestError (never a ProtocolError) carrying the client code, message and data', async () => {
    let caught: unknown;
    const { client } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) => {
        try {
          await ctx.sample({ messages: [], maxTokens: 1 });
          return text('sampled');
        } catch (error) {
          caught = error;
          return text('refused');
        }
      });
    });
    await client.initialize('2025-11-25', { sampling: {} });
    client.send(call(1, 'ask'));
    await serverRequest(client, 'sampling/createMessage');
    client.send(failure(0, -1, 'User rejected sampling', { reason: 'policy' }));
    assert.deepEqual(await client.response(1), toolText(1, 'refused'));
    assert.ok(caught instanceof OutboundRequestError);
    assert.ok(!(caught instanceof ProtocolError), "a client refusal must not pass for the server's own wire error");
    assert.deepEqual([caught.code, caught.message, caught.data], [-1, 'User rejected sampling', { reason: 'policy' }]);
    assert.deepEqual(client.unansweredServerRequests(), []);
    assert.deepEqual(await client.end(), []);
  });

  test('a server→client request still pending when its handler answers is withdrawn with notifications/cancelled', async () => {
    let outbound: Promise<unknown> | undefined;
    const { client } = setup({}, (server) => {
      server.tool('fire_and_forget', {}, (_args, ctx) => {
        outbound = ctx.sample({ messages: [], maxTokens: 1 });
        outbound.catch(() => {});
        return text('answered');
      });
    });
    await client.initialize('2025-11-25', { sampling: {} });
    client.send(call(1, 'fire_and_forget'));
    const asked = await serverRequest(client, 'sampling/createMessage');
    assert.deepEqual(await client.next(), cancelled(asked.id, 'cancelled'));
    assert.deepEqual(await client.next(), toolText(1, 'answered'));
    await assert.rejects(outbound!, { name: 'AbortError', message: 'Request ended: the request was answered' });
    assert.deepEqual(client.unansweredServerRequests(), []);
    assert.deepEqual(await client.end(), []);
  });

  test('a timed-out request rejects the handler and sends notifications/cancelled for its id', async () => {
    let caught: unknown;
    const { client } = setup({ requestTimeoutMs: 50 }, (server) => {
      server.tool('roots', {}, async (_args, ctx) => {
        try {
          return text(JSON.stringify(await ctx.listRoots()));
        } catch (error) {
          caught = error;
          return text('timed out');
        }
      });
    });
    await client.initialize('2025-11-25', { roots: {} });
    const start = client.frames.length;
    client.send(call(1, 'roots'));
    assert.deepEqual(await serverRequest(client, 'roots/list'), { jsonrpc: '2.0', id: 0, method: 'roots/list' });
    assert.deepEqual(await client.response(1), toolText(1, 'timed out'));
    assert.deepEqual(await client.notification('notifications/cancelled'), cancelled(0, 'timeout'));
    assert.deepEqual(framesAfter(client, start), [
      { jsonrpc: '2.0', id: 0, method: 'roots/list' },
      cancelled(0, 'timeout'),
      toolText(1, 'timed out'),
    ]);
    assert.ok(caught instanceof OutboundRequestError);
    assert.equal(caught.message, "'roots/list' timed out after 50 ms");
    assert.deepEqual(client.unansweredServerRequests(), []);
    client.send(result(0, { roots: [] })); // too late: dropped
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('a per-call timeoutMs overrides the server default', async () => {
    let caught: unknown;
    const { client } = setup({ requestTimeoutMs: 600_000 }, (server) => {
      server.tool('ping-client', {}, async (_args, ctx) => {
        await ctx.ping({ timeoutMs: 20 }).catch((error: unknown) => (caught = error));
        return text('done');
      });
    });
    await client.initialize();
    client.send(call(1, 'ping-client'));
    assert.deepEqual(await serverRequest(client, 'ping'), { jsonrpc: '2.0', id: 0, method: 'ping' });
    assert.deepEqual(await client.notification('notifications/cancelled'), cancelled(0, 'timeout'));
    assert.deepEqual(await client.response(1), toolText(1, 'done'));
    assert.ok(caught instanceof OutboundRequestError);
    assert.equal(caught.message, "'ping' timed out after 20 ms");
    assert.deepEqual(await client.end(), []);
  });

  test('cancelling the inbound request withdraws its outbound request with notifications/cancelled', async () => {
    const rejected = deferred<unknown>();
    const { client } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) => {
        try {
          await ctx.sample({ messages: [], maxTokens: 1 });
        } catch (error) {
          rejected.resolve(error);
        }
        return text('late');
      });
    });
    await client.initialize('2025-11-25', { sampling: {} });
    const start = client.frames.length;
    client.send(call(1, 'ask'));
    await serverRequest(client, 'sampling/createMessage');
    client.send(cancel(1));
    await rejected.promise;
    assert.deepEqual(await client.notification('notifications/cancelled'), cancelled(0, 'cancelled'));
    assert.deepEqual(client.unansweredServerRequests(), []);
    client.send(result(0, { model: 'too late' }));
    await settle(client);
    assert.deepEqual(framesAfter(client, start).slice(0, 2), [
      request(0, 'sampling/createMessage', { messages: [], maxTokens: 1 }),
      cancelled(0, 'cancelled'),
    ]);
    assert.deepEqual(await client.end(), []);
  });

  test('aborting the signal given to an outbound request withdraws it; an already aborted one writes nothing', async () => {
    const abortNow = deferred();
    const reason = new Error('changed my mind');
    const caught: unknown[] = [];
    const { client } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) => {
        const pre = new AbortController();
        pre.abort(reason);
        await ctx
          .sample({ messages: [], maxTokens: 0 }, { signal: pre.signal })
          .catch((error: unknown) => caught.push(error));
        const controller = new AbortController();
        const pending = ctx.sample({ messages: [], maxTokens: 1 }, { signal: controller.signal });
        void abortNow.promise.then(() => controller.abort(reason));
        await pending.catch((error: unknown) => caught.push(error));
        return text('withdrawn');
      });
    });
    await client.initialize('2025-11-25', { sampling: {} });
    const start = client.frames.length;
    client.send(call(1, 'ask'));
    assert.deepEqual(
      await serverRequest(client, 'sampling/createMessage'),
      request(0, 'sampling/createMessage', { messages: [], maxTokens: 1 }),
    );
    abortNow.resolve();
    assert.deepEqual(await client.response(1), toolText(1, 'withdrawn'));
    assert.deepEqual(framesAfter(client, start), [
      request(0, 'sampling/createMessage', { messages: [], maxTokens: 1 }),
      cancelled(0, 'cancelled'),
      toolText(1, 'withdrawn'),
    ]);
    assert.equal(caught[0], reason);
    assert.equal(caught[1], reason);
    assert.deepEqual(await client.notification('notifications/cancelled'), cancelled(0, 'cancelled'));
    assert.deepEqual(await client.end(), []);
  });

  test('a missing client capability rejects at once with MissingCapabilityError and writes no frame', async () => {
    const errors: unknown[] = [];
    const { client } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) => {
        await ctx.elicit({ message: 'x', requestedSchema: SCHEMA }).catch((error: unknown) => errors.push(error));
        await ctx.sample({ messages: [], maxTokens: 1 }).catch((error: unknown) => errors.push(error));
        await ctx.listRoots().catch((error: unknown) => errors.push(error));
        return text('answered');
      });
    });
    await client.initialize('2025-11-25', { experimental: {} });
    const start = client.frames.length;
    assert.deepEqual(await client.request('tools/call', { name: 'ask' }, 1), toolText(1, 'answered'));
    assert.deepEqual(framesAfter(client, start), [toolText(1, 'answered')]);
    assert.deepEqual(
      errors.map((error) => [
        error instanceof MissingCapabilityError,
        (error as MissingCapabilityError).capability,
        (error as Error).message,
      ]),
      [
        [
          true,
          'elicitation',
          "Cannot send 'elicitation/create': the client did not declare the 'elicitation' capability",
        ],
        [
          true,
          'sampling',
          "Cannot send 'sampling/createMessage': the client did not declare the 'sampling' capability",
        ],
        [true, 'roots', "Cannot send 'roots/list': the client did not declare the 'roots' capability"],
      ],
    );
    assert.deepEqual(client.unansweredServerRequests(), []);
    assert.deepEqual(await client.end(), []);
  });

  test('elicitation is unavailable before 2025-06-18 even when the client declares it', async () => {
    let caught: unknown;
    const { client } = setup({}, (server) => {
      server.tool('ask', {}, async (_args, ctx) => {
        await ctx.elicit({ message: 'x', requestedSchema: SCHEMA }).catch((error: unknown) => (caught = error));
        return text('answered');
      });
    });
    await client.initialize('2025-03-26', { elicitation: {} });
    const start = client.frames.length;
    assert.deepEqual(await client.request('tools/call', { name: 'ask' }, 1), toolText(1, 'answered'));
    assert.deepEqual(framesAfter(client, start), [toolText(1, 'answered')]);
    assert.ok(caught instanceof MissingCapabilityError);
    assert.equal(caught.capability, 'elicitation');
    assert.deepEqual(await client.end(), []);
  });

  test('a request made while serving a request goes out although notifications/initialized never came', async () => {
    const { client } = setup({}, (server) => {
      server.tool('ping-back', {}, async (_args, ctx) => {
        await ctx.ping();
        return text('pong');
      });
    });
    const init = await client.request(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'no-initialized', version: '1' },
      },
      'init',
    );
    assert.equal(init.result.protocolVersion, '2025-11-25');
    client.send(call(1, 'ping-back'));
    assert.deepEqual(await serverRequest(client, 'ping'), { jsonrpc: '2.0', id: 0, method: 'ping' });
    client.send(result(0, {}));
    assert.deepEqual(await client.response(1), toolText(1, 'pong'));
    assert.deepEqual(await client.end(), []);
  });

  test('a handler cannot send a request once its own request has ended', async () => {
    let kept: Context | undefined;
    const { client } = setup({}, (server) => {
      server.tool('keep', {}, (_args, ctx) => {
        kept = ctx;
        return text('kept');
      });
    });
    await client.initialize('2025-11-25', { sampling: {} });
    assert.deepEqual(await client.request('tools/call', { name: 'keep' }, 1), toolText(1, 'kept'));
    await assert.rejects(kept!.ping(), { message: "Cannot send 'ping': the request has ended" });
    await assert.rejects(kept!.sample({ messages: [], maxTokens: 1 }), {
      message: "Cannot send 'sampling/createMessage': the request has ended",
    });
    await settle(client);
    assert.deepEqual(client.unansweredServerRequests(), []);
    assert.deepEqual(await client.end(), []);
  });

  test('unmatched responses are dropped and an error response with id null is logged', async () => {
    const { client, logger } = setup();
    client.send(result(5, {}));
    await client.initialize();
    client.send(result(6, {}));
    client.send(failure('x', 1, 'unmatched'));
    client.send(result('0', {}));
    const orphan = failure(null, -32700, 'Parse error');
    client.send(orphan);
    await settle(client);
    assert.deepEqual(logger.warnings, [
      'discarded a response (id 5) that arrived before the first request',
      'peer sent an error without an id: code -32700, message "Parse error"',
    ]);
    assert.deepEqual(logger.errors, []);
    assert.deepEqual(await client.end(), []);
  });
});

describe('handler errors', () => {
  const SECRET = 'connect ECONNREFUSED 10.0.0.5:5432 user=admin password=hunter2';

  function assertNoSecret(raw: string): void {
    assert.equal(raw.includes('hunter2'), false, 'the secret reached the wire');
    assert.equal(raw.includes('10.0.0.5'), false, 'the secret reached the wire');
    assert.equal(raw.includes('ECONNREFUSED'), false, 'the secret reached the wire');
  }

  test('a ProtocolError thrown by a handler goes on the wire as is and is not logged', async () => {
    const { client, logger } = setup({}, (server) => {
      server.resource('test://quota', { name: 'quota' }, () => {
        throw new ProtocolError(-32050, 'Quota exceeded', { retryAfter: 3 });
      });
      server.resource('test://bare', { name: 'bare' }, async () => {
        throw new ProtocolError(4001, 'Nope');
      });
      server.resource('test://zero', { name: 'zero' }, () => {
        throw new ProtocolError(4002, 'Zero data', 0);
      });
      server.prompt('city', {}, () => {
        throw new ProtocolError(-32602, 'Invalid params: unknown city', { field: 'city' });
      });
      server.tool('url-needed', {}, () => {
        throw new ProtocolError(-32042, 'URL elicitation required', { elicitations: [] });
      });
    });
    await client.initialize();
    assert.deepEqual(
      await client.request('resources/read', { uri: 'test://quota' }, 1),
      failure(1, -32050, 'Quota exceeded', { retryAfter: 3 }),
    );
    assert.deepEqual(await client.request('resources/read', { uri: 'test://bare' }, 2), failure(2, 4001, 'Nope'));
    assert.deepEqual(
      await client.request('resources/read', { uri: 'test://zero' }, 3),
      failure(3, 4002, 'Zero data', 0),
    );
    assert.deepEqual(
      await client.request('prompts/get', { name: 'city' }, 4),
      failure(4, -32602, 'Invalid params: unknown city', { field: 'city' }),
    );
    assert.deepEqual(
      await client.request('tools/call', { name: 'url-needed' }, 5),
      failure(5, -32042, 'URL elicitation required', { elicitations: [] }),
    );
    assert.deepEqual(logger.errors, []);
    assert.deepEqual(await client.end(), []);
  });

  test('an unexpected handler error is -32603 "Internal error" with no detail on the wire; the detail goes to the logger', async () => {
    const error = new Error(SECRET);
    const typeError = new TypeError(SECRET);
    const lookalike = { code: -32000, message: SECRET, data: SECRET };
    const { client, logger, raw } = setup({}, (server) => {
      server.resource('test://secret', { name: 'secret' }, () => {
        throw error;
      });
      server.resourceTemplate('test://things/{id}', { name: 'things' }, async () => {
        throw lookalike;
      });
      server.prompt(
        'secret',
        {
          complete: {
            arg: () => {
              throw typeError;
            },
          },
        },
        async () => {
          throw SECRET;
        },
      );
    });
    await client.initialize();
    assert.deepEqual(await client.request('resources/read', { uri: 'test://secret' }, 1), INTERNAL(1));
    assert.deepEqual(await client.request('resources/read', { uri: 'test://things/7' }, 2), INTERNAL(2));
    assert.deepEqual(await client.request('prompts/get', { name: 'secret' }, 3), INTERNAL(3));
    assert.deepEqual(
      await client.request(
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'secret' }, argument: { name: 'arg', value: '' } },
        4,
      ),
      INTERNAL(4),
    );
    assert.deepEqual(await client.end(), []);
    assertNoSecret(raw());
    assert.deepEqual(logger.errors, [
      { message: "handler for 'resources/read' failed", error },
      { message: "handler for 'resources/read' failed", error: lookalike },
      { message: "handler for 'prompts/get' failed", error: SECRET },
      { message: "handler for 'completion/complete' failed", error: typeError },
    ]);
    assert.equal(logger.errors[0]!.error, error);
  });

  test('a tool that throws gets an in-band "Tool execution failed" result; the detail goes to the logger only', async () => {
    const error = new Error(SECRET);
    const { client, logger, raw } = setup({}, (server) => {
      server.tool('fail', {}, () => {
        throw error;
      });
      server.tool('fail-async', {}, async () => {
        await Promise.resolve();
        throw error;
      });
      server.tool('fail-string', {}, () => {
        throw SECRET;
      });
    });
    await client.initialize();
    assert.deepEqual(await client.request('tools/call', { name: 'fail' }, 1), result(1, TOOL_FAILED));
    assert.deepEqual(await client.request('tools/call', { name: 'fail-async' }, 2), result(2, TOOL_FAILED));
    assert.deepEqual(await client.request('tools/call', { name: 'fail-string' }, 3), result(3, TOOL_FAILED));
    assert.deepEqual(await client.end(), []);
    assertNoSecret(raw());
    assert.deepEqual(logger.errors, [
      { message: "tool 'fail' failed", error },
      { message: "tool 'fail-async' failed", error },
      { message: "tool 'fail-string' failed", error: SECRET },
    ]);
  });

  test('a ToolError message is shown to the model and not logged', async () => {
    const { client, logger } = setup({}, (server) => {
      server.tool('find', {}, () => {
        throw new ToolError('City not found: Atlantis');
      });
    });
    await client.initialize();
    assert.deepEqual(
      await client.request('tools/call', { name: 'find' }, 1),
      result(1, { content: [{ type: 'text', text: 'City not found: Atlantis' }], isError: true }),
    );
    assert.deepEqual(logger.errors, []);
    assert.deepEqual(await client.end(), []);
  });

  test('exposeToolErrors shows raw Error messages of tools only', async () => {
    const { client, logger } = setup({ exposeToolErrors: true }, (server) => {
      server.tool('fail', {}, () => {
        throw new Error('raw detail');
      });
      server.tool('fail-string', {}, () => {
        throw 'not an Error';
      });
      server.resource('test://fail', { name: 'fail' }, () => {
        throw new Error('raw resource detail');
      });
    });
    await client.initialize();
    assert.deepEqual(
      await client.request('tools/call', { name: 'fail' }, 1),
      result(1, { content: [{ type: 'text', text: 'raw detail' }], isError: true }),
    );
    assert.deepEqual(await client.request('tools/call', { name: 'fail-string' }, 2), result(2, TOOL_FAILED));
    assert.deepEqual(await client.request('resources/read', { uri: 'test://fail' }, 3), INTERNAL(3));
    assert.equal(logger.errors.length, 3);
    assert.deepEqual(await client.end(), []);
  });
});

describe('rethrow mode', () => {
  test('closed rejects with exactly the handler error when the first of three pipelined frames fails', async () => {
    const boom = new Error('boom with internal detail');
    const { client, holds, logger, raw } = setup({ rethrow: true }, (server) => {
      server.resource('test://boom', { name: 'boom' }, () => {
        throw boom;
      });
    });
    await client.initialize();
    const start = client.frames.length;
    client.input.write([read(1, 'test://boom'), request(2, 'ping'), call(3, 'hold')].map(line).join(''));
    await assert.rejects(client.stdio.closed, (error: unknown) => {
      assert.equal(error, boom);
      return true;
    });
    await outputEnded(client);
    assert.deepEqual(framesAfter(client, start), [result(2, {}), INTERNAL(1)]);
    const third = await holds.started(3);
    assert.equal(third.ctx.signal.aborted, true);
    third.outcome.reject(new Error('after close'));
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.equal(client.stdio.connection.closed, true);
    assert.equal(raw().includes('internal detail'), false);
    assert.deepEqual(logger.errors, [{ message: "handler for 'resources/read' failed", error: boom }]);
  });

  test('a thrown tool error is handed to the host too, with only the generic -32603 on the wire', async () => {
    const boom = new Error('tool detail');
    const { client, raw } = setup({ rethrow: true }, (server) => {
      server.tool('explode', {}, () => {
        throw boom;
      });
    });
    await client.initialize();
    client.send(call(1, 'explode'));
    await assert.rejects(client.stdio.closed, (error: unknown) => error === boom);
    await outputEnded(client);
    assert.deepEqual(client.frames.at(-1), INTERNAL(1));
    assert.equal(raw().includes('tool detail'), false);
  });

  test('a second pipelined failure does not mix into the rethrown error', async () => {
    const first = new Error('first');
    const second = new Error('second');
    const { client } = setup({ rethrow: true }, (server) => {
      server.resource('test://first', { name: 'first' }, () => {
        throw first;
      });
      server.resource('test://second', { name: 'second' }, async () => {
        throw second;
      });
    });
    await client.initialize();
    const start = client.frames.length;
    client.input.write([read(1, 'test://first'), read(2, 'test://second'), request(3, 'ping')].map(line).join(''));
    await assert.rejects(client.stdio.closed, (error: unknown) => {
      assert.equal(error, first);
      return true;
    });
    await outputEnded(client);
    assert.deepEqual(framesAfter(client, start), [result(3, {}), INTERNAL(1)]);
  });

  test('a ProtocolError thrown on purpose does not end the connection in rethrow mode', async () => {
    const { client } = setup({ rethrow: true }, (server) => {
      server.resource('test://denied', { name: 'denied' }, () => {
        throw new ProtocolError(4001, 'Denied');
      });
    });
    await client.initialize();
    assert.deepEqual(await client.request('resources/read', { uri: 'test://denied' }, 1), failure(1, 4001, 'Denied'));
    assert.deepEqual(await client.request('ping', undefined, 2), result(2, {}));
    assert.deepEqual(await client.end(), []);
  });
});

describe('concurrency cap', () => {
  test('with maxInFlight 2 a third concurrent request gets -32603 naming the limit; a new one is served after the first two finish', async () => {
    const { client, holds } = setup({ maxInFlight: 2 });
    await client.initialize();
    client.send(call(1, 'hold'));
    client.send(call(2, 'hold'));
    const first = await holds.started(1);
    const second = await holds.started(2);
    const refusal = (id: RequestId) => failure(id, -32603, 'Internal error: too many requests in flight (limit 2)');
    assert.deepEqual(await client.request('ping', undefined, 3), refusal(3));
    client.send(call(4, 'hold'));
    assert.deepEqual(await client.response(4), refusal(4));
    assert.equal(holds.all.length, 2, 'a refused request never reaches its handler');
    first.outcome.resolve(text('one'));
    second.outcome.resolve(text('two'));
    assert.deepEqual(await client.response(1), toolText(1, 'one'));
    assert.deepEqual(await client.response(2), toolText(2, 'two'));
    assert.deepEqual(await client.request('ping', undefined, 5), result(5, {}));
    assert.deepEqual(await client.end(), []);
  });

  test('a cancelled request frees its slot', async () => {
    const { client, holds } = setup({ maxInFlight: 1 });
    await client.initialize();
    client.send(call(1, 'hold'));
    const held = await holds.started(1);
    assert.deepEqual(
      await client.request('ping', undefined, 2),
      failure(2, -32603, 'Internal error: too many requests in flight (limit 1)'),
    );
    client.send(cancel(1));
    await held.aborted;
    assert.deepEqual(await client.request('ping', undefined, 3), result(3, {}));
    assert.deepEqual(await client.end(), []);
  });
});

describe('batches', () => {
  const withPrompt = (server: Server) => {
    server.prompt('greet', {}, () => ({ messages: [] }));
  };
  const ONLY_2025_03_26 = failure(null, -32600, 'Invalid Request: batches are accepted only under protocol 2025-03-26');

  test('a 2025-03-26 connection answers an array with an array: one response per request, nothing for notifications', async () => {
    const { client } = setup({}, withPrompt);
    await client.initialize('2025-03-26');
    const tools = (await client.request('tools/list', undefined, 'tools')).result;
    client.send([
      request(1, 'tools/list'),
      cancel(0),
      request(2, 'prompts/list'),
      { jsonrpc: '2.0', method: 'notifications/whatever' },
    ]);
    assert.deepEqual(await client.next(), [result(1, tools), result(2, { prompts: [{ name: 'greet' }] })]);
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('a batch answer waits for its slowest request', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    client.send([call(1, 'hold'), request(2, 'ping')]);
    const held = await holds.started(1);
    await settle(client);
    assert.deepEqual(client.unread(), [], 'nothing is written before the whole batch is answered');
    held.outcome.resolve(text('slow'));
    assert.deepEqual(await client.next(), [result(2, {}), toolText(1, 'slow')]);
    assert.deepEqual(await client.end(), []);
  });

  test('invalid elements are answered inside the batch answer', async () => {
    const { client } = setup();
    await client.initialize('2025-03-26');
    client.send([request(null, 'ping'), 42, request(3, 'ping'), { jsonrpc: '2.0', id: 4 }, request(5, 'x/unknown')]);
    assert.deepEqual(await client.next(), [
      BAD_ID,
      failure(null, -32600, 'Invalid Request: a message must be a JSON object'),
      result(3, {}),
      failure(4, -32600, 'Invalid Request: a message needs a method, a result or an error'),
      failure(5, -32601, 'Method not found', 'x/unknown'),
    ]);
    assert.deepEqual(await client.end(), []);
  });

  test('an empty array gets a single -32600 with id null, before and after initialize', async () => {
    const empty = failure(null, -32600, 'Invalid Request: an empty batch is not a request');
    const { client } = setup();
    client.send([]);
    assert.deepEqual(await client.next(), empty);
    await client.initialize('2025-03-26');
    client.send('[]');
    assert.deepEqual(await client.next(), empty);
    assert.deepEqual(await client.end(), []);
  });

  for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) {
    test(`an array on ${version} gets a single -32600 and no element is processed`, async () => {
      const { client, holds } = setup();
      await client.initialize(version);
      client.send([call(1, 'hold'), request(2, 'ping'), cancel(3)]);
      assert.deepEqual(await client.next(), ONLY_2025_03_26);
      await settle(client);
      assert.equal(holds.all.length, 0);
      assert.deepEqual(await client.end(), []);
    });
  }

  test('an array before initialize is refused and does not initialize the connection', async () => {
    const { client } = setup();
    const initialize = request(1, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    client.send([initialize, request(2, 'ping')]);
    assert.deepEqual(await client.next(), ONLY_2025_03_26);
    assert.deepEqual(
      await client.request('tools/list', undefined, 3),
      failure(3, -32600, 'Invalid Request: server not initialized; send initialize first'),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('an array containing initialize is refused and no element is processed', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    const initialize = request(2, 'initialize', {
      protocolVersion: '2025-03-26',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    client.send([call(1, 'hold'), initialize, request(3, 'ping')]);
    assert.deepEqual(
      await client.next(),
      failure(null, -32600, 'Invalid Request: initialize must not be part of a batch'),
    );
    await settle(client);
    assert.equal(holds.all.length, 0);
    assert.deepEqual(await client.end(), []);
  });

  test('a batch of notifications only writes nothing', async () => {
    const { client } = setup();
    await client.initialize('2025-03-26');
    client.send([
      cancel(99),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('a cancelled request is omitted from the batch answer', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    client.send([call(1, 'hold'), request(2, 'ping')]);
    const held = await holds.started(1);
    client.send(cancel(1));
    await held.aborted;
    assert.deepEqual(await client.next(), [result(2, {})]);
    held.outcome.resolve(text('late'));
    await settle(client);
    assert.deepEqual(await client.end(), []);
  });

  test('a batch whose requests are all cancelled writes nothing, even with the cancel in the same batch', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    client.send([call(1, 'hold'), cancel(1)]);
    const held = await holds.started(1);
    await held.aborted;
    held.outcome.resolve(text('late'));
    await settle(client);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(await client.end(), []);
  });

  test('a duplicate id inside a batch is refused inside the batch answer', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    client.send([call(5, 'hold'), call(5, 'hold'), request(6, 'ping')]);
    const held = await holds.started(5);
    held.outcome.resolve(text('five'));
    assert.deepEqual(await client.next(), [
      failure(5, -32600, 'Invalid Request: request id 5 is already in flight'),
      result(6, {}),
      toolText(5, 'five'),
    ]);
    assert.equal(holds.all.length, 1);
    assert.deepEqual(await client.end(), []);
  });

  test('a batch longer than maxBatchLength (default 100) is refused whole with -32600 and none of it runs; one of 100 is served', async () => {
    const { client, holds } = setup();
    await client.initialize('2025-03-26');
    client.send(Array.from({ length: 101 }, (_, i) => (i === 0 ? call(1, 'hold') : request(i + 1, 'ping'))));
    assert.deepEqual(
      await client.next(),
      failure(null, -32600, 'Invalid Request: a batch may hold at most 100 elements'),
    );
    assert.equal(holds.all.length, 0, 'nothing in the refused batch ran');
    client.send(Array.from({ length: 100 }, (_, i) => request(i + 1, 'ping')));
    assert.deepEqual(
      await client.next(),
      Array.from({ length: 100 }, (_, i) => result(i + 1, {})),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('an 80 000-element batch (3.9 MiB) is refused with one small answer instead of a 228 MiB one', async () => {
    const { client } = setup({}, withPrompt);
    await client.initialize('2025-03-26');
    client.send(Array.from({ length: 80_000 }, (_, i) => request(i + 1, 'tools/list')));
    assert.deepEqual(
      await client.next(),
      failure(null, -32600, 'Invalid Request: a batch may hold at most 100 elements'),
    );
    assert.deepEqual(await client.end(), []);
  });

  test('answers past maxBatchAnswerBytes are replaced by -32603 naming the bound; the batch is still one array', async () => {
    const big = 'x'.repeat(1000);
    const { client, logger } = setup({ maxBatchLength: 20, maxBatchAnswerBytes: 1500 }, (server) => {
      server.tool('big', {}, () => text(big));
    });
    await client.initialize('2025-03-26');
    client.send([
      call(1, 'big'),
      request(2, 'ping'),
      call(3, 'big'),
      call(4, 'big'),
      request(5, 'ping'),
      { jsonrpc: '2.0', id: 6 },
    ]);
    const over = (id: RequestId) =>
      failure(id, -32603, 'Internal error: the answers held for batches exceed 1500 bytes');
    const noMethod = (id: RequestId) =>
      failure(id, -32600, 'Invalid Request: a message needs a method, a result or an error');
    // In the order they settle: a synchronous tool answers at once, so here in the order they were read.
    assert.deepEqual(await client.next(), [toolText(1, big), result(2, {}), over(3), over(4), result(5, {}), over(6)]);
    assert.deepEqual(logger.warnings, [
      "the answer to 'tools/call' was replaced: the answers held for batches exceed 1500 bytes",
      "the answer to 'tools/call' was replaced: the answers held for batches exceed 1500 bytes",
      'the refusal of id 6 was replaced: the answers held for batches exceed 1500 bytes',
    ]);
    // The core's own refusals count too: 11 of 126 bytes each fit in 1500, the twelfth does not.
    client.send(Array.from({ length: 12 }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i })));
    assert.deepEqual(await client.next(), [...Array.from({ length: 11 }, (_, i) => noMethod(100 + i)), over(111)]);
    assert.equal(
      logger.warnings.at(-1),
      'the refusal of id 111 was replaced: the answers held for batches exceed 1500 bytes',
    );
  });

  test("the answer bytes bound holds across a connection's open batches, and is freed as each batch is written", async () => {
    const big = 'x'.repeat(1000);
    const { client, holds } = setup({ maxBatchAnswerBytes: 1500 }, (server) => server.tool('big', {}, () => text(big)));
    await client.initialize('2025-03-26');
    client.send([call(1, 'big'), call(2, 'hold')]); // its big answer is held while 'hold' runs
    const held = await holds.started(2);
    client.send([call(3, 'big')]);
    assert.deepEqual(await client.next(), [
      failure(3, -32603, 'Internal error: the answers held for batches exceed 1500 bytes'),
    ]);
    held.outcome.resolve(text('held'));
    assert.deepEqual(await client.next(), [toolText(1, big), toolText(2, 'held')]);
    client.send([call(4, 'big')]);
    assert.deepEqual(await client.next(), [toolText(4, big)], 'the first batch written, its bytes are free again');
    assert.deepEqual(await client.end(), []);
  });
});

describe('the Dispatcher on its own', () => {
  function direct(onRequest: (request: InboundRequest) => unknown) {
    const sent: (JsonRpcMessage | JsonRpcResponse[])[] = [];
    const unexpected: unknown[] = [];
    const logger = new MemoryLogger();
    const dispatcher = new Dispatcher(
      { send: (message) => sent.push(message) },
      {
        maxInFlight: 8,
        maxBatchLength: 100,
        maxBatchAnswerBytes: 1024 * 1024,
        requestTimeoutMs: 60_000,
        servesMethod: () => true,
      },
      logger,
    );
    dispatcher.attach({
      onRequest,
      onNotification: () => {},
      checkBatch: () => undefined,
      onUnexpectedError: (error) => unexpected.push(error),
    });
    return { dispatcher, sent, unexpected, logger };
  }

  test('a synchronous throw of a non-Error becomes -32603, is logged, and is reported once', () => {
    const { dispatcher, sent, unexpected, logger } = direct(() => {
      throw 'oops';
    });
    dispatcher.receive(request(1, 'x'));
    assert.deepEqual(sent, [INTERNAL(1)]);
    assert.deepEqual(unexpected, ['oops']);
    assert.deepEqual(logger.errors, [{ message: "handler for 'x' failed", error: 'oops' }]);
    assert.equal(dispatcher.inFlightCount, 0);
  });

  test('a synchronous result is answered before receive returns; a thenable that is not a Promise is awaited', async () => {
    const later = deferred();
    const thenable = {
      then: (resolve: (value: unknown) => void) => void later.promise.then(() => resolve('thenable')),
    };
    const { dispatcher, sent } = direct((inbound) => (inbound.id === 1 ? { sync: true } : thenable));
    dispatcher.receive(request(1, 'x'));
    assert.deepEqual(sent, [result(1, { sync: true })]);
    dispatcher.receive(request(2, 'x'));
    assert.equal(dispatcher.inFlightCount, 1);
    later.resolve();
    await later.promise;
    assert.deepEqual(sent, [result(1, { sync: true }), result(2, 'thenable')]);
    assert.equal(dispatcher.inFlightCount, 0);
  });

  test('the in-flight table finds each running request by id and withdraws them in admission order, wherever it holds them', async () => {
    /** A dispatcher whose requests run until answer(id); cancels withdraw them, and withdrawals are listed in order. */
    function table() {
      const withdrawn: RequestId[] = [];
      const answers = new Map<RequestId, (value: unknown) => void>();
      const sent: (JsonRpcMessage | JsonRpcResponse[])[] = [];
      const limits = { maxInFlight: 8, maxBatchLength: 100, maxBatchAnswerBytes: 1024, requestTimeoutMs: 60_000 };
      const dispatcher = new Dispatcher(
        { send: (message) => sent.push(message), onWithdrawn: (id) => withdrawn.push(id) },
        { ...limits, servesMethod: () => true },
        new MemoryLogger(),
      );
      dispatcher.attach({
        onRequest: (inbound) => new Promise((resolve) => answers.set(inbound.id, resolve)),
        onNotification: (message) => dispatcher.cancel((message.params as { requestId: RequestId }).requestId),
        checkBatch: () => undefined,
      });
      const receive = (...ids: RequestId[]) => {
        for (const id of ids) dispatcher.receive(request(id, 'x'));
      };
      const answer = async (id: RequestId) => {
        answers.get(id)!(`answer ${id}`);
        await new Promise((resolve) => setImmediate(resolve));
      };
      const withdraw = (id: RequestId) => dispatcher.receive(cancel(id));
      return { dispatcher, sent, withdrawn, receive, answer, withdraw };
    }
    const refused = (id: RequestId) =>
      failure(id, -32600, `Invalid Request: request id ${JSON.stringify(id)} is already in flight`);

    // Request 1 arrives while nothing runs (a slot of its own), the others beside it; a string id is another id.
    const first = table();
    first.receive(1, '1', 3, 1, '1');
    assert.deepEqual(first.sent.splice(0), [refused(1), refused('1')]);
    await first.answer('1');
    first.withdraw(3);
    first.receive(4, '1', 4);
    assert.deepEqual(first.sent.splice(0), [result('1', 'answer 1'), refused(4)]);
    assert.equal(first.dispatcher.inFlightCount, 3);
    first.dispatcher.close();
    assert.deepEqual(first.withdrawn, [3, 1, 4, '1'], 'the first admitted is withdrawn first');

    // Once the first one is answered, requests arriving while others run queue behind them, not in its place.
    const second = table();
    second.receive(1, 2);
    await second.answer(1);
    second.receive(3, 1, 2, 3);
    assert.deepEqual(second.sent.splice(0), [result(1, 'answer 1'), refused(2), refused(3)]);
    second.dispatcher.close();
    assert.deepEqual(second.withdrawn, [2, 3, 1]);
    assert.equal(second.dispatcher.inFlightCount, 0);
  });

  test('close abandons running requests silently and fails pending outbound requests', async () => {
    const inbound: InboundRequest[] = [];
    const { dispatcher, sent } = direct((request) => {
      inbound.push(request);
      return new Promise(() => {});
    });
    dispatcher.receive(request(1, 'x'));
    const outbound = inbound[0]!.request('ping', undefined);
    const unrelated = dispatcher.request('roots/list', undefined);
    assert.deepEqual(sent, [request(0, 'ping'), request(1, 'roots/list')]);
    dispatcher.close();
    assert.equal(dispatcher.inFlightCount, 0);
    assert.equal(inbound[0]!.signal.aborted, true);
    await assert.rejects(outbound, { name: 'AbortError', message: 'Request ended: the connection closed' });
    await assert.rejects(unrelated, { name: 'OutboundRequestError', message: 'the connection closed' });
    await assert.rejects(dispatcher.request('ping', undefined), OutboundRequestError);
    dispatcher.receive(request(2, 'x'));
    dispatcher.notify('notifications/message', { level: 'info', data: 'x' });
    inbound[0]!.progress(1);
    assert.equal(sent.length, 2, 'nothing is written after close');
  });
});

describe('the hot path', () => {
  /** The envelope of a 2026-07-28 request from a client that declares no capability. */
  const MODERN_META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };

  /** Takes `connection` through the 2025 handshake at `protocolVersion`. */
  function initialize(connection: { receive(value: unknown): void }, protocolVersion: string): void {
    const clientInfo = { name: 'c', version: '1' };
    connection.receive({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo },
    });
    connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  test('a synchronous tool is answered before receive() returns, in both eras: no promise hop between frame and answer', () => {
    const server = createServer({ name: 'sync', version: '1.0.0' });
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;
    server.tool('echo', { inputSchema: schema }, ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }));
    const params = { name: 'echo', arguments: { text: 'hi' } };
    const legacy: JsonRpcMessage[] = [];
    const connection = server.transport.connect({ send: (frame) => void legacy.push(frame as JsonRpcMessage) });
    initialize(connection, '2025-11-25');
    connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
    assert.deepEqual(legacy.at(-1), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    const modern: JsonRpcMessage[] = [];
    const stateless = server.transport.connect({ send: (frame) => void modern.push(frame as JsonRpcMessage) });
    stateless.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...params, _meta: MODERN_META } });
    assert.equal((modern[0] as { result: { resultType: string } }).result.resultType, 'complete');
    connection.close();
    stateless.close();
  });

  test('behind middleware that returns next() as given, a synchronous tool is still answered before receive() returns', async () => {
    const server = createServer({ name: 'sync', version: '1.0.0' });
    server.tool('echo', {}, () => ({ content: [{ type: 'text', text: 'hi' }] }));
    const seen: string[] = [];
    server.intercept(
      (call, next) => {
        seen.push(`outer ${call.method}`);
        return next();
      },
      (_call, next) => next(),
    );
    const answer = { content: [{ type: 'text', text: 'hi' }] };
    const legacy: JsonRpcMessage[] = [];
    const connection = server.transport.connect({ send: (frame) => void legacy.push(frame as JsonRpcMessage) });
    initialize(connection, '2025-11-25');
    connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } });
    assert.deepEqual(legacy.at(-1), { jsonrpc: '2.0', id: 1, result: answer });
    const modern: JsonRpcMessage[] = [];
    const stateless = server.transport.connect({ send: (frame) => void modern.push(frame as JsonRpcMessage) });
    stateless.receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', _meta: MODERN_META } });
    assert.equal((modern[0] as { result: { resultType: string } }).result.resultType, 'complete');
    // A middleware that waits for next() before it returns takes the promise path, with the same answer.
    server.intercept(async (_call, next) => await next());
    connection.receive({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo' } });
    assert.equal((legacy.at(-1) as { id: number }).id, 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(legacy.at(-1), { jsonrpc: '2.0', id: 3, result: answer });
    assert.deepEqual(seen, ['outer tools/call', 'outer tools/call', 'outer tools/call']);
    connection.close();
    stateless.close();
  });

  test('code chained beside `return next()` runs after the same-turn answer; code after `await next()` runs before it (docs/api.md, Middleware)', async () => {
    const events: string[] = [];
    const serve = async (middleware: Middleware) => {
      const server = createServer({ name: 'sync', version: '1.0.0' });
      server.tool('echo', {}, () => ({ content: [] }));
      server.intercept(middleware);
      const connection = server.transport.connect({ send: () => void events.push('answer') });
      connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', _meta: MODERN_META } });
      await new Promise((resolve) => setImmediate(resolve));
      connection.close();
    };
    await serve((_call, next) => {
      const answer = next();
      void answer.then(() => events.push('chained'));
      return answer;
    });
    assert.deepEqual(events.splice(0), ['answer', 'chained']);
    await serve(async (_call, next) => {
      const answer = await next();
      events.push('awaited');
      return answer;
    });
    assert.deepEqual(events.splice(0), ['awaited', 'answer']);
  });

  test("an extension's 2026-07-28 method answering with a thenable that is not a native Promise gets what it settles to, stamped", async () => {
    const server = createServer({ name: 'thenable', version: '1.0.0' });
    const thenable = { then: (resolve: (value: unknown) => void) => resolve({ value: 1 }) };
    server.use({
      id: 'com.example/t',
      settings: {},
      modernMethods: { 'example/get': { gated: false, serve: () => thenable } },
    });
    const sent: JsonRpcMessage[] = [];
    const connection = server.transport.connect({ send: (frame) => void sent.push(frame as JsonRpcMessage) });
    connection.receive({ jsonrpc: '2.0', id: 1, method: 'example/get', params: { _meta: MODERN_META } });
    await new Promise((resolve) => setImmediate(resolve));
    const { result } = sent[0] as { result: { value: number; resultType: string } };
    assert.deepEqual([result.value, result.resultType], [1, 'complete'], 'what it settles to, stamped');
    connection.close();
  });

  test("behind middleware, an extension method's answer whose then getter throws fails -32603, with no unhandled rejection", async () => {
    const server = createServer({ name: 'then-getter', version: '1.0.0' }, { logger: new MemoryLogger() });
    const odd = {
      get then(): never {
        throw new Error('then getter');
      },
    };
    server.use({
      id: 'com.example/t',
      settings: {},
      modernMethods: { 'example/get': { gated: false, serve: () => odd } },
    });
    server.intercept((_call, next) => next());
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const sent: JsonRpcMessage[] = [];
      const connection = server.transport.connect({ send: (frame) => void sent.push(frame as JsonRpcMessage) });
      connection.receive({ jsonrpc: '2.0', id: 1, method: 'example/get', params: { _meta: MODERN_META } });
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((sent[0] as { error: { code: number } }).error.code, -32603);
      assert.deepEqual(unhandled, []);
      connection.close();
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  test('a tool result whose then getter throws is the tool failure await makes of it, in both eras', async () => {
    const server = createServer({ name: 'then-getter', version: '1.0.0' }, { logger: new MemoryLogger() });
    server.tool('odd', { inputSchema: { type: 'object' } }, () => ({
      content: [],
      get then(): never {
        throw new Error('then getter');
      },
    }));
    const failure = { content: [{ type: 'text', text: 'Tool execution failed' }], isError: true };
    const legacy: JsonRpcMessage[] = [];
    const connection = server.transport.connect({ send: (frame) => void legacy.push(frame as JsonRpcMessage) });
    initialize(connection, '2025-11-25');
    connection.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'odd', arguments: {} } });
    const modern: JsonRpcMessage[] = [];
    const stateless = server.transport.connect({ send: (frame) => void modern.push(frame as JsonRpcMessage) });
    stateless.receive({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'odd', arguments: {}, _meta: MODERN_META },
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(legacy.at(-1), { jsonrpc: '2.0', id: 1, result: failure });
    const { result } = modern[0] as { result: Record<string, unknown> };
    assert.deepEqual({ content: result.content, isError: result.isError }, failure);
    connection.close();
    stateless.close();
  });

  test('a batch element whose failure closes the connection (rethrow) starts none of the elements after it', async () => {
    const server = createServer({ name: 'rethrow', version: '1.0.0' }, { rethrow: true, logger: new MemoryLogger() });
    server.tool('boom', { inputSchema: { type: 'object' } }, () => {
      throw new Error('boom');
    });
    let slowStarted = false;
    server.tool('slow', { inputSchema: { type: 'object' } }, () => {
      slowStarted = true;
      return { content: [] };
    });
    const errors: unknown[] = [];
    const connection = server.transport.connect({
      send: () => {},
      onHandlerError: (error) => void errors.push(error),
    });
    initialize(connection, '2025-03-26');
    connection.receive([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boom', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } },
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(errors.length, 1, 'the host got the failure');
    assert.equal(connection.closed, true);
    assert.equal(slowStarted, false, 'the element after it never ran');
    assert.equal(connection.inFlightCount, 0);
  });
});
