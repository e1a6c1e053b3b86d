// The stdio transport (stdio.ts) at the wire: framing through real streams, the line cap, backpressure, the EOF
// drain (2025-11-25 lifecycle, shutdown, stdio; docs/reliability.md), a broken output, and servers as real child
// processes.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Context, createServer, type Server } from '../core.ts';
import { serveStdio } from '../stdio.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EVERYTHING = join(ROOT, 'examples', 'everything.ts');
const STDIO_CHILD = join(ROOT, 'test', 'stdio-child.ts');

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
const OVERSIZED = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: 'Parse error: frame exceeds the limit' },
};
const INIT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'stdio-test', version: '1.0.0' },
};

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function pong(id: string | number) {
  return { jsonrpc: '2.0', id, result: {} };
}

function ping(id: string | number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
}

function call(id: string | number, name: string, args: object = {}, progressToken?: string | number): object {
  const params: Record<string, unknown> = { name, arguments: args };
  if (progressToken !== undefined) params._meta = { progressToken };
  return { jsonrpc: '2.0', id, method: 'tools/call', params };
}

/** A server with an `echo` tool; `register` adds the test's own tools. */
function testServer(register?: (server: Server) => void, options: { rethrow?: boolean } = {}) {
  const logger = new MemoryLogger();
  const server = createServer({ name: 'stdio-test', version: '1.0.0' }, { logger, ...options });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args: { text?: string }) => text(args.text ?? ''),
  );
  register?.(server);
  return { server, logger };
}

/** Lets every pending stream callback and promise job run: all of them are queued ahead of a setImmediate. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Fails (instead of hanging) when `promise` never settles. Not a timing assertion: the bound is far beyond any
 * legitimate wait, and its timer keeps the event loop alive so a stuck test fails alone, not with the whole file.
 */
async function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never settled`)), 10_000);
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

function framesPerId(frames: Frame[]): Map<unknown, number> {
  const counts = new Map<unknown, number>();
  for (const frame of frames)
    if ('id' in frame && !('method' in frame)) counts.set(frame.id, (counts.get(frame.id) ?? 0) + 1);
  return counts;
}

// ---------------------------------------------------------------------------------------------------------------
// Framing

test('CRLF-terminated frames are served', async () => {
  const client = new WireClient(testServer().server);
  client.input.write(`${ping(1)}\r\n${ping(2)}\r\n`);
  assert.deepEqual(await client.next(), pong(1));
  assert.deepEqual(await client.next(), pong(2));
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

test('blank lines are skipped without an answer', async () => {
  const client = new WireClient(testServer().server);
  client.input.write('\n\r\n   \n\t\n');
  client.input.write(`\n${ping(1)}\n\n`);
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [pong(1)]);
  assert.deepEqual(client.frames, [pong(1)]);
});

test('several frames in one chunk are all answered, in order', async () => {
  const client = new WireClient(testServer().server);
  client.input.write(`${ping(1)}\n${ping('two')}\n${ping(3)}\n`);
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [pong(1), pong('two'), pong(3)]);
});

test("each answer is written as soon as it is made: a chunk's first answer leaves before its next frame is read", async () => {
  const gate = deferred<void>();
  const writes: string[][] = [];
  const writesBefore: number[] = [];
  const { server } = testServer((s) => {
    s.tool('counts', {}, () => {
      writesBefore.push(writes.length);
      return text('counted');
    });
    s.tool('waits', {}, async () => {
      await gate.promise;
      return text('waited');
    });
  });
  const output = new Writable({
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => String(chunk).trimEnd()));
      callback();
    },
    write(chunk, _encoding, callback) {
      writes.push([String(chunk).trimEnd()]);
      callback();
    },
  });
  const input = new Readable({ read() {} });
  const stdio = serveStdio(server, { input, output });
  input.push(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS })}\n`);
  input.push(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await settle(); // the handshake answered, and the input flowing: a chunk pushed from now on is emitted at once
  assert.equal(writes.splice(0).flat().length, 1);
  input.push(`${ping(1)}\n${JSON.stringify(call(2, 'counts'))}\n${ping(3)}\n`);
  // Synchronously, one write per answer, and the first one out before the tool of the next frame ran: a pipelined
  // client reads it while the server works on the rest (bench/README.md, stdio round trips).
  assert.deepEqual(writesBefore, [1]);
  const counted = JSON.stringify({ jsonrpc: '2.0', id: 2, result: text('counted') });
  assert.deepEqual(writes.splice(0), [[JSON.stringify(pong(1))], [counted], [JSON.stringify(pong(3))]]);
  input.push(`${JSON.stringify(call(4, 'waits'))}\n${JSON.stringify(call(5, 'waits'))}\n`);
  gate.resolve();
  await settle();
  // Answers made later in one turn leave one write each too.
  assert.deepEqual(
    writes,
    [4, 5].map((id) => [JSON.stringify({ jsonrpc: '2.0', id, result: text('waited') })]),
  );
  input.push(null);
  await settles(stdio.closed, 'the end of the connection');
});

test('a frame split across two chunks at every byte position is served, multi-byte characters included', async () => {
  const client = new WireClient(testServer().server);
  await client.initialize();
  const payload = 'héllo € 😀 漢字';
  const sample = Buffer.from(`${JSON.stringify(call(0, 'echo', { text: payload }))}\r\n`);
  for (let at = 0; at <= sample.length; at++) {
    const frame = Buffer.from(`${JSON.stringify(call(at, 'echo', { text: payload }))}\r\n`);
    client.input.write(frame.subarray(0, at));
    client.input.write(frame.subarray(at));
    assert.deepEqual(await client.response(at), { jsonrpc: '2.0', id: at, result: text(payload) }, `cut at byte ${at}`);
  }
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

test('a 4-byte character written one byte per chunk arrives intact', async () => {
  const client = new WireClient(testServer().server);
  await client.initialize();
  const frame = Buffer.from(`${JSON.stringify(call('emoji', 'echo', { text: '😀' }))}\n`);
  const start = frame.indexOf(Buffer.from('😀'));
  client.input.write(frame.subarray(0, start));
  for (let i = 0; i < 4; i++) client.input.write(frame.subarray(start + i, start + i + 1));
  client.input.write(frame.subarray(start + 4));
  assert.deepEqual(await client.response('emoji'), { jsonrpc: '2.0', id: 'emoji', result: text('😀') });
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

test('an unparseable line is answered with -32700 and id null, and the connection keeps serving', async () => {
  const client = new WireClient(testServer().server);
  client.input.write('{"jsonrpc":"2.0","id":1,"method":\n');
  assert.deepEqual(await client.next(), PARSE_ERROR);
  client.input.write(`${ping(2)}\n`);
  assert.deepEqual(await client.next(), pong(2));
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

test('a line over maxLineBytes in one chunk is answered with the frame-limit -32700 and the next line is served', async () => {
  const client = new WireClient(testServer().server, { maxLineBytes: 256 });
  const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'x'.repeat(1000) } });
  client.input.write(`${big}\n${ping(1)}\n`);
  assert.deepEqual(await client.next(), OVERSIZED);
  assert.deepEqual(await client.next(), pong(1));
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
  assert.equal(
    client.frames.some((frame) => frame.id === 'big'),
    false,
  );
});

test('a line over maxLineBytes across many chunks is answered once and the next line is served', async () => {
  const client = new WireClient(testServer().server, { maxLineBytes: 256 });
  const big = Buffer.from(
    JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'é'.repeat(5000) } }),
  );
  for (let at = 0; at < big.length; at += 13) client.input.write(big.subarray(at, at + 13));
  client.input.write(`\n${ping(1)}\n`);
  assert.deepEqual(await client.next(), OVERSIZED);
  assert.deepEqual(await client.next(), pong(1));
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
  assert.deepEqual(client.frames, [OVERSIZED, pong(1)]);
});

test('a line of exactly maxLineBytes is served', async () => {
  const frame = ping('edge');
  const client = new WireClient(testServer().server, { maxLineBytes: Buffer.byteLength(frame) });
  client.input.write(`${frame}\n${frame.replace('"edge"', '"edge1"')}\n`);
  assert.deepEqual(await client.next(), pong('edge'));
  assert.deepEqual(await client.next(), OVERSIZED);
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

test('a final line without a newline is still served at EOF', async () => {
  const client = new WireClient(testServer().server);
  client.input.write(`${ping(1)}\n${ping(2)}`);
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [pong(1), pong(2)]);
});

test('the default maxLineBytes is 4 MiB', async () => {
  const client = new WireClient(testServer().server);
  await client.initialize();
  const fits = JSON.stringify(call('fits', 'echo', { text: 'a'.repeat(4 * 1024 * 1024 - 200) }));
  const over = JSON.stringify(call('over', 'echo', { text: 'a'.repeat(4 * 1024 * 1024) }));
  client.input.write(`${fits}\n${over}\n`);
  assert.equal((await client.response('fits')).result.content[0].text.length, 4 * 1024 * 1024 - 200);
  assert.deepEqual(await client.next(), OVERSIZED);
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Backpressure

/**
 * An output whose reader is slow: while `reading` is false the first chunk handed to it stays unacknowledged, so
 * everything written after it queues in the stream (writableLength). Records what was handed over, frame by frame.
 */
class SlowReader extends Writable {
  reading = true;
  readonly frames: Frame[] = [];
  #held: (() => void)[] = [];
  #waiters: { match(frame: Frame): boolean; resolve(frame: Frame): void }[] = [];

  constructor(highWaterMark: number) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      const frame = JSON.parse(line);
      this.frames.push(frame);
      const index = this.#waiters.findIndex((w) => w.match(frame));
      if (index !== -1) this.#waiters.splice(index, 1)[0].resolve(frame);
    }
    if (this.reading) callback();
    else this.#held.push(callback);
  }

  /** The reader catches up: everything queued is handed over. */
  readAll(): void {
    this.reading = true;
    for (const callback of this.#held.splice(0)) callback();
  }

  waitFor(match: (frame: Frame) => boolean): Promise<Frame> {
    const found = this.frames.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  response(id: string | number): Promise<Frame> {
    return this.waitFor((frame) => frame.id === id && !('method' in frame));
  }
}

/** Records every frame the server writes with the number of bytes already queued when it wrote it. */
function recordWrites(output: Writable) {
  const writes: { frame: Frame; queuedBefore: number }[] = [];
  let maxQueued = 0;
  const write = output.write.bind(output) as (chunk: string) => boolean;
  output.write = ((chunk: string) => {
    const queuedBefore = output.writableLength;
    const result = write(chunk);
    writes.push({ frame: JSON.parse(chunk), queuedBefore });
    maxQueued = Math.max(maxQueued, output.writableLength);
    return result;
  }) as typeof output.write;
  return { writes, maxQueued: () => maxQueued };
}

async function handshake(input: PassThrough, output: SlowReader): Promise<void> {
  input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT_PARAMS })}\n`);
  await output.response('init');
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

test('a slow reader pauses reading: the next request is not processed until the output drains', async () => {
  const handled: string[] = [];
  const { server } = testServer((s) =>
    s.tool('blob', {}, (args: { tag?: string }) => {
      handled.push(args.tag ?? '');
      return text('x'.repeat(4000));
    }),
  );
  const input = new PassThrough();
  const output = new SlowReader(1024);
  const stdio = serveStdio(server, { input, output });
  await handshake(input, output);

  output.reading = false;
  input.write(`${JSON.stringify(call(1, 'blob', { tag: 'a' }))}\n`);
  await output.response(1); // handed to the reader, which does not acknowledge it
  assert.ok(output.writableLength >= 1024);
  assert.equal(input.readableFlowing, false, 'input is paused while the output is backed up');

  input.write(`${JSON.stringify(call(2, 'blob', { tag: 'b' }))}\n`);
  await settle();
  assert.deepEqual(handled, ['a'], 'the second request waits in the input');
  assert.ok(input.readableLength > 0);

  output.readAll();
  const second = await output.response(2);
  assert.deepEqual(second, { jsonrpc: '2.0', id: 2, result: text('x'.repeat(4000)) });
  assert.deepEqual(handled, ['a', 'b']);
  input.end();
  await settles(stdio.closed, 'closed');
});

test('past maxQueuedBytes notifications are dropped while responses are kept', async () => {
  const { server, logger } = testServer((s) =>
    s.tool('chatty', {}, (_args, ctx: Context) => {
      for (let i = 1; i <= 100; i++) {
        ctx.progress(i, 100, 'p'.repeat(100));
        ctx.log('info', 'l'.repeat(100));
      }
      return text('done');
    }),
  );
  const input = new PassThrough();
  const output = new SlowReader(1024);
  const maxQueuedBytes = 4096;
  const stdio = serveStdio(server, { input, output, maxQueuedBytes });
  await handshake(input, output);
  const { writes, maxQueued } = recordWrites(output);

  output.reading = false;
  input.write(`${JSON.stringify(call('chatty', 'chatty', {}, 'tok'))}\n`);
  const responseWritten = deferred();
  const poll = (): void => {
    if (writes.some((w) => w.frame.id === 'chatty')) responseWritten.resolve();
    else setImmediate(poll);
  };
  poll();
  await responseWritten.promise;

  const response = writes.find((w) => w.frame.id === 'chatty')!;
  assert.ok(response.queuedBefore > maxQueuedBytes, 'the response was written while the queue was over the limit');
  const notifications = writes.filter((w) => 'method' in w.frame);
  assert.ok(notifications.length > 0 && notifications.length < 200, `${notifications.length} notifications written`);
  for (const { queuedBefore } of notifications) assert.ok(queuedBefore <= maxQueuedBytes);
  assert.ok(maxQueued() < maxQueuedBytes + 1024, `queue peaked at ${maxQueued()} bytes`);
  assert.ok(logger.warnings.some((w) => w.includes('dropping notifications')));
  assert.equal(output.listenerCount('drain'), 1, 'one drain listener however many writes were refused');

  output.readAll();
  input.end();
  await settles(stdio.closed, 'closed');
  // Everything written reached the reader, the response exactly once and after the notifications that preceded it.
  const delivered = output.frames.slice(output.frames.findIndex((f) => f.id === 'init') + 1);
  assert.deepEqual(
    delivered,
    writes.map((w) => w.frame),
  );
  assert.deepEqual(delivered.at(-1), { jsonrpc: '2.0', id: 'chatty', result: text('done') });
  assert.equal(framesPerId(delivered).get('chatty'), 1);
  assert.ok(logger.warnings.some((w) => /dropped \d+ notification/.test(w)));
});

test('a fast client and a slow reader: output memory stays bounded and every response arrives once, in order', async () => {
  let handled = 0;
  const { server } = testServer((s) =>
    s.tool('blob', {}, () => {
      handled++;
      return text('y'.repeat(1000));
    }),
  );
  const input = new PassThrough();
  const highWaterMark = 4096;
  const output = new SlowReader(highWaterMark);
  const stdio = serveStdio(server, { input, output });
  await handshake(input, output);
  const { maxQueued } = recordWrites(output);

  output.reading = false;
  const count = 200;
  for (let id = 0; id < count; id++) {
    input.write(`${JSON.stringify(call(id, 'blob'))}\n`);
    await settle(); // each request arrives as its own read, as from a pipe
  }
  // Without backpressure about 200 KB would be queued; reading stopped once the high-water mark was reached.
  assert.ok(maxQueued() < 2 * highWaterMark, `queue peaked at ${maxQueued()} bytes`);
  assert.ok(output.writableLength < 2 * highWaterMark);
  assert.ok(handled < 10, `${handled} requests were read`);
  const waiting = input.readableLength + input.writableLength;
  assert.ok(
    waiting >= (count - handled) * Buffer.byteLength(JSON.stringify(call(0, 'blob'))),
    'the rest waits in the input',
  );

  output.readAll();
  await output.response(count - 1);
  input.end();
  await settles(stdio.closed, 'closed');
  const responses = output.frames.filter((frame) => typeof frame.id === 'number');
  assert.deepEqual(
    responses.map((frame) => frame.id),
    Array.from({ length: count }, (_, i) => i),
  );
  assert.ok(responses.every((frame) => frame.result.content[0].text.length === 1000));
});

// ---------------------------------------------------------------------------------------------------------------
// EOF drain (2025-11-25 lifecycle, shutdown, stdio: the client ends the server's input and waits for it to exit)

test('EOF drain: a running request finishes, and its progress and log notifications sent after EOF arrive', async () => {
  const started = deferred();
  const go = deferred();
  const { server } = testServer((s) =>
    s.tool('work', {}, async (_args, ctx: Context) => {
      started.resolve();
      await go.promise;
      ctx.progress(1, 2, 'half');
      ctx.log('info', 'during the drain');
      ctx.progress(2, 2, 'done');
      return text('finished after EOF');
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 }); // closing must not wait for the window
  await client.initialize();
  client.send(call(7, 'work', {}, 'p7'));
  await started.promise;

  const eof = once(client.input, 'end');
  client.input.end();
  await eof; // the server saw EOF (its listener runs first) and is draining
  assert.equal(client.stdio.connection.closed, false);
  go.resolve();

  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [
    {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p7', progress: 1, total: 2, message: 'half' },
    },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'during the drain' } },
    {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p7', progress: 2, total: 2, message: 'done' },
    },
    { jsonrpc: '2.0', id: 7, result: text('finished after EOF') },
  ]);
  assert.equal(client.stdio.connection.closed, true);
  assert.equal(client.stdio.connection.inFlightCount, 0);
});

test('EOF drain: several requests finishing in any order each get their one result', async () => {
  const gates = [deferred(), deferred(), deferred()];
  const started = [deferred(), deferred(), deferred()];
  const { server } = testServer((s) =>
    s.tool('gated', {}, async (args: { n: number }) => {
      started[args.n].resolve();
      await gates[args.n].promise;
      return text(`gate ${args.n}`);
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 });
  await client.initialize();
  for (const n of [0, 1, 2]) client.send(call(`g${n}`, 'gated', { n }));
  await Promise.all(started.map((d) => d.promise));
  const eof = once(client.input, 'end');
  client.input.end();
  await eof;
  for (const n of [2, 0, 1]) gates[n].resolve();
  const rest = await settles(client.end(), 'the end of the connection');
  assert.deepEqual(rest.map((frame) => frame.id).sort(), ['g0', 'g1', 'g2']);
  for (const frame of rest) assert.deepEqual(frame.result, text(`gate ${frame.id.slice(1)}`));
});

test('EOF drain: a request still running when the window ends is aborted and gets nothing; one that finished gets its result', async () => {
  const stuckStarted = deferred();
  const lateStarted = deferred();
  const go = deferred();
  const aborted = deferred<AbortSignal>();
  const stuckReturned = deferred();
  const { server } = testServer((s) => {
    s.tool('stuck', {}, async (_args, ctx: Context) => {
      stuckStarted.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      aborted.resolve(ctx.signal);
      // A handler that ignores its signal: nothing of this may reach the wire.
      ctx.progress(1, 1, 'after the window');
      ctx.log('error', 'after the window');
      queueMicrotask(() => stuckReturned.resolve());
      return text('too late');
    });
    s.tool('late', {}, async () => {
      lateStarted.resolve();
      await go.promise;
      return text('in time');
    });
  });
  const client = new WireClient(server, { drainWindowMs: 50 });
  await client.initialize();
  client.send(call('stuck', 'stuck', {}, 'ps'));
  client.send(call('late', 'late'));
  await Promise.all([stuckStarted.promise, lateStarted.promise]);
  const eof = once(client.input, 'end');
  client.input.end();
  await eof;
  go.resolve();

  const signal = await aborted.promise;
  assert.equal(signal.aborted, true);
  await stuckReturned.promise;
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [
    { jsonrpc: '2.0', id: 'late', result: text('in time') },
  ]);
  assert.equal(
    client.frames.some((frame) => frame.id === 'stuck' || frame.params?.progressToken === 'ps'),
    false,
  );
  for (const [id, n] of framesPerId(client.frames)) assert.equal(n, 1, `frames for id ${String(id)}`);
});

test('EOF drain: a request the client cancelled before EOF gets nothing, and the drain does not wait for it', async () => {
  const started = deferred();
  const cancelled = deferred();
  const go = deferred();
  const returned = deferred();
  const { server } = testServer((s) =>
    s.tool('ignores_cancel', {}, async (_args, ctx: Context) => {
      started.resolve();
      ctx.signal.addEventListener('abort', () => cancelled.resolve());
      await go.promise;
      ctx.progress(1, 1);
      queueMicrotask(() => returned.resolve());
      return text('cancelled yet answered');
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 });
  await client.initialize();
  client.send(call('c1', 'ignores_cancel', {}, 'pc'));
  await started.promise;
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user' } });
  await cancelled.promise;

  assert.deepEqual(await settles(client.end(), 'the end of the connection'), []); // settles although the handler is still running and the window is long
  go.resolve();
  await returned.promise;
  await settle();
  assert.equal(
    client.frames.some((frame) => frame.id === 'c1' || frame.method === 'notifications/progress'),
    false,
  );
});

test('EOF drain: a server→client request still unanswered at EOF fails in the handler, whose result is still written', async () => {
  const failure = deferred<unknown>();
  const { server } = testServer((s) =>
    s.tool('roots', {}, async (_args, ctx: Context) => {
      try {
        await ctx.listRoots();
        return text('answered');
      } catch (error) {
        failure.resolve(error);
        return text('no answer');
      }
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 });
  await client.initialize('2025-11-25', { roots: {} });
  client.send(call('r', 'roots'));
  const outbound = await client.waitFor((frame) => frame.method === 'roots/list');
  assert.equal(typeof outbound.id, 'number');
  client.input.end();
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [
    { jsonrpc: '2.0', id: 'r', result: text('no answer') },
  ]);
  assert.ok((await failure.promise) instanceof Error);
});

test('EOF before any request writes nothing, ends the output and resolves closed', async () => {
  const { server, logger } = testServer();
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.setEncoding('utf8').on('data', (chunk: string) => (written += chunk));
  const stdio = serveStdio(server, { input, output });
  const outputEnded = once(output, 'end');
  input.end();
  await settles(stdio.closed, 'closed');
  await outputEnded;
  assert.equal(written, '');
  assert.equal(stdio.connection.closed, true);
  assert.equal(server.metrics().connections, 0);
  assert.deepEqual(logger.errors, []);
});

test('close() ends like EOF: the running request gets the drain window and its result', async () => {
  const started = deferred();
  const go = deferred();
  const { server } = testServer((s) =>
    s.tool('work', {}, async () => {
      started.resolve();
      await go.promise;
      return text('done');
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 });
  await client.initialize();
  client.send(call(1, 'work'));
  await started.promise;
  const closing = client.stdio.close();
  client.send(ping('after close')); // no longer read
  go.resolve();
  await closing;
  assert.deepEqual(await settles(client.end(), 'the end of the connection'), [
    { jsonrpc: '2.0', id: 1, result: text('done') },
  ]);
});

test("in rethrow mode closed rejects with the handler's own error after its -32603 is written", async () => {
  const boom = new Error('boom');
  const { server, logger } = testServer(
    (s) =>
      s.tool('boom', {}, () => {
        throw boom;
      }),
    { rethrow: true },
  );
  server.resource('test://r', { name: 'r' }, () => {
    throw boom;
  });
  const client = new WireClient(server);
  await client.initialize();
  client.send({ jsonrpc: '2.0', id: 'read', method: 'resources/read', params: { uri: 'test://r' } });
  await assert.rejects(client.stdio.closed, (error) => error === boom);
  if (!client.output.readableEnded) await once(client.output, 'end');
  assert.deepEqual(client.unread(), [
    { jsonrpc: '2.0', id: 'read', error: { code: -32603, message: 'Internal error' } },
  ]);
  assert.equal(logger.errors.length, 1);
});

test('in rethrow mode a handler throwing undefined rejects closed with undefined, not as a clean end', async () => {
  const { server } = testServer(
    (s) =>
      s.tool('throws_undefined', {}, () => {
        throw undefined;
      }),
    { rethrow: true },
  );
  const client = new WireClient(server);
  await client.initialize();
  client.send(call('u', 'throws_undefined'));
  await assert.rejects(client.stdio.closed, (error) => error === undefined);
  if (!client.output.readableEnded) await once(client.output, 'end');
  assert.deepEqual(client.unread(), [{ jsonrpc: '2.0', id: 'u', error: { code: -32603, message: 'Internal error' } }]);
});

// ---------------------------------------------------------------------------------------------------------------
// A broken output (EPIPE, destroyed stream)

async function brokenOutputScenario(breakOutput: (output: PassThrough) => void) {
  const started = deferred();
  const go = deferred();
  const aborted = deferred();
  const returned = deferred();
  const { server, logger } = testServer((s) =>
    s.tool('work', {}, async (_args, ctx: Context) => {
      started.resolve();
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      await go.promise;
      ctx.progress(1, 1);
      ctx.log('info', 'nobody is listening');
      queueMicrotask(() => returned.resolve());
      return text('nobody is listening');
    }),
  );
  const client = new WireClient(server, { drainWindowMs: 600_000 });
  await client.initialize();
  client.send(call(1, 'work', {}, 'tok'));
  await started.promise;
  const before = client.frames.length;

  breakOutput(client.output);
  await settles(client.stdio.closed, 'closed');
  await settles(aborted.promise, "the handler's abort");
  assert.equal(client.stdio.connection.closed, true);
  assert.equal(client.input.listenerCount('data'), 0, 'input is no longer read');

  // Everything after the break is swallowed: handler output, new input, even a late error on the output.
  go.resolve();
  await returned.promise;
  client.send(ping(2));
  client.output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
  await settle();
  assert.equal(client.frames.length, before);
  return logger;
}

test('EPIPE on the output: writing stops, handlers are aborted, closed resolves, nothing throws', async () => {
  const logger = await brokenOutputScenario((output) =>
    output.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
  );
  assert.deepEqual(logger.errors, []);
});

test('another output error is logged and handled like EPIPE', async () => {
  const logger = await brokenOutputScenario((output) =>
    output.destroy(Object.assign(new Error('write EIO'), { code: 'EIO' })),
  );
  assert.equal(logger.errors.length, 1);
  assert.match(logger.errors[0].message, /output/);
});

test('an output destroyed without an error: writing stops, handlers are aborted, closed resolves', async () => {
  await brokenOutputScenario((output) => output.destroy());
});

// ---------------------------------------------------------------------------------------------------------------
// The demo server as a real child process

interface Child {
  process: ChildProcess;
  send(frame: object | string): void;
  response(id: string | number): Promise<Frame>;
  endInput(): void;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  frames: Frame[];
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr holds `line` as a whole line; rejects if the child's output ends without it. */
  stderrLine(line: string): Promise<void>;
}

/** Starts a child process and reads its stdout strictly: every line must parse as a JSON-RPC 2.0 frame. */
function startChild(t: TestContext, args: string[], stdin: 'pipe' | number = 'pipe'): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: [stdin, 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when a test failed
  });
  // 'close' follows 'exit' once the child's stdio streams have ended too: by then everything it wrote has been read.
  const exit = once(child, 'close').then(([code, signal]) => ({ code, signal }));
  child.once('close', () => {
    for (const { line, reject } of lineWaiters.splice(0))
      reject(new Error(`the child ended without '${line}' on stderr:\n${err}`));
  });
  let out = '';
  let err = '';
  let pending = '';
  const frames: Frame[] = [];
  const waiters: { id: string | number; resolve(frame: Frame): void }[] = [];
  const lineWaiters: { line: string; resolve(): void; reject(error: Error): void }[] = [];
  const hasLine = (line: string): boolean => err.split('\n').slice(0, -1).includes(line);
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    for (const waiter of lineWaiters.filter((w) => hasLine(w.line))) {
      lineWaiters.splice(lineWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const frame = JSON.parse(line); // anything but a frame on stdout fails the test here
      frames.push(frame);
      for (const waiter of waiters.filter((w) => w.id === frame.id && !('method' in frame))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  });
  return {
    process: child,
    send: (frame) => child.stdin!.write(typeof frame === 'string' ? `${frame}\n` : `${JSON.stringify(frame)}\n`),
    response: (id) => {
      const found = frames.find((frame) => frame.id === id && !('method' in frame));
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ id, resolve }));
    },
    endInput: () => child.stdin!.end(),
    exit,
    frames,
    stdout: () => out,
    stderr: () => err,
    stderrLine: (line) =>
      hasLine(line) ? Promise.resolve() : new Promise((resolve, reject) => lineWaiters.push({ line, resolve, reject })),
  };
}

function assertOnlyFrames(child: Child): void {
  const out = child.stdout();
  assert.ok(out === '' || out.endsWith('\n'), 'stdout ends with a complete line');
  for (const line of out.split('\n').slice(0, -1)) {
    const frame = JSON.parse(line);
    assert.equal(frame.jsonrpc, '2.0', line);
    assert.ok('method' in frame || 'result' in frame || 'error' in frame, line);
  }
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const CHILD_TIMEOUT = { timeout: 30_000 };

test(
  'child process: stdout carries only JSON-RPC frames, logs go to stderr, and EOF ends the process with 0',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [EVERYTHING, '--stdio']);
    child.send(INITIALIZE);
    const init = await child.response(1);
    assert.equal(init.result.protocolVersion, '2025-11-25');
    child.send(INITIALIZED);
    child.send(call(2, 'test_simple_text'));
    assert.deepEqual(await child.response(2), {
      jsonrpc: '2.0',
      id: 2,
      result: text('This is a simple text response for testing.'),
    });
    child.send(call(3, 'test_throw', { message: 'detail-for-stderr-only' }));
    const thrown = await child.response(3);
    assert.equal(thrown.result.isError, true);
    child.send('{"jsonrpc":"2.0","id":4,"method":');
    child.send(ping(5));
    assert.deepEqual(await child.response(5), pong(5));
    child.endInput();
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
    assert.ok(child.frames.some((frame) => JSON.stringify(frame) === JSON.stringify(PARSE_ERROR)));
    assert.ok(child.stderr().includes('detail-for-stderr-only'), 'the thrown error is logged to stderr');
    assert.ok(!child.stdout().includes('detail-for-stderr-only'), 'and never shows on stdout');
  },
);

test(
  'child process: stdin closed with a 300 ms test_sleep in flight still writes its progress and result, then exits 0 on its own',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [EVERYTHING, '--stdio']);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'test_sleep', { ms: 300 }, 'sleep'));
    await child.response(1);
    child.endInput();
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
    assert.deepEqual(
      child.frames.filter((frame) => frame.id === 2),
      [{ jsonrpc: '2.0', id: 2, result: text('Slept 300 ms') }],
    );
    const progress = child.frames.filter((frame) => frame.method === 'notifications/progress');
    assert.ok(progress.length >= 1, 'progress sent during the drain arrives');
    assert.ok(progress.every((frame) => frame.params.progressToken === 'sleep' && frame.params.total === 300));
    assert.equal(child.frames.indexOf(progress.at(-1)) < child.frames.findIndex((frame) => frame.id === 2), true);
  },
);

test(
  'child process: a file of frames piped to stdin (`server < requests.jsonl`) gets its 300 ms result',
  CHILD_TIMEOUT,
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-core-stdio-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'requests.jsonl');
    writeFileSync(
      file,
      `${[INITIALIZE, INITIALIZED, call(2, 'test_sleep', { ms: 300 })].map((f) => JSON.stringify(f)).join('\n')}\n`,
    );
    const fd = openSync(file, 'r');
    let child: Child;
    try {
      child = startChild(t, [EVERYTHING, '--stdio'], fd);
    } finally {
      closeSync(fd);
    }
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
    assert.equal(child.frames.filter((frame) => 'id' in frame && !('method' in frame)).length, 2);
    assert.equal((await child.response(1)).result.protocolVersion, '2025-11-25');
    assert.deepEqual(await child.response(2), { jsonrpc: '2.0', id: 2, result: text('Slept 300 ms') });
  },
);

test(
  'child process: `node --experimental-strip-types examples/everything.ts` serves straight from the sources',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, ['--experimental-strip-types', 'examples/everything.ts', '--stdio']);
    child.send(INITIALIZE);
    assert.equal((await child.response(1)).result.serverInfo.name.length > 0, true);
    child.send(INITIALIZED);
    child.send(call(2, 'test_simple_text'));
    assert.deepEqual(await child.response(2), {
      jsonrpc: '2.0',
      id: 2,
      result: text('This is a simple text response for testing.'),
    });
    child.endInput();
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
  },
);

test(
  'child process: when the stdout reader goes away the server stops and exits on its own',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [EVERYTHING, '--stdio']);
    child.send(INITIALIZE);
    await child.response(1);
    child.send(INITIALIZED);
    // The reader closes its end of stdout but keeps stdin open: the next write fails with EPIPE.
    child.process.stdout!.destroy();
    child.send(call(2, 'test_sleep', { ms: 100 }, 'tok'));
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assert.ok(!child.stderr().includes('EPIPE'), child.stderr());
  },
);

// On a real stdout pipe (test/stdio-child.ts reports on stderr how `closed` and `close()` settled): an answer written
// in the drain window is still queued when the flush starts, and no 'drain' ever follows a write that was accepted.

test(
  'child process: an answer written in the EOF drain window reaches a real stdout pipe and closed resolves',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [STDIO_CHILD]);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'after_eof')); // answered only once the server has seen EOF
    child.endInput();
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
    assert.equal((await child.response(1)).result.protocolVersion, '2025-11-25');
    assert.deepEqual(
      child.frames.filter((frame) => frame.id === 2),
      [{ jsonrpc: '2.0', id: 2, result: text('answered after EOF') }],
    );
    assert.equal(child.stderr(), 'closed: resolved\n');
  },
);

test(
  'child process: closed resolves only once a large answer written after EOF has been handed to the stdout pipe',
  CHILD_TIMEOUT,
  async (t) => {
    const bytes = 4 * 1024 * 1024; // far more than a pipe holds: most of it waits in the stream when the flush starts
    const child = startChild(t, [STDIO_CHILD, '--exit-when-closed']);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'after_eof', { bytes }));
    child.endInput();
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assert.equal((await child.response(2)).result.content[0].text.length, bytes);
    assert.equal(child.stderr(), 'closed: resolved\n');
  },
);

// The host keeps stdin open in these: once `closed` has settled, stdin must not keep the process alive (a failure
// shows as the test's timeout, the child never exiting).

test(
  "child process: close() called during a call settles on a real stdout pipe, after the call's answer, and the process exits on its own with stdin still open",
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [STDIO_CHILD]);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'close'));
    assert.deepEqual(await child.response(2), { jsonrpc: '2.0', id: 2, result: text('closing') });
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assertOnlyFrames(child);
    assert.deepEqual(child.stderr().split('\n').sort(), ['', 'close(): settled', 'closed: resolved']);
  },
);

test(
  "child process in rethrow mode: closed rejects with the handler's own error on a real stdout pipe, after its -32603, and the process exits on its own with stdin still open",
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [STDIO_CHILD, '--rethrow']);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'throw'));
    assert.deepEqual(await child.response(2), {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: 'Internal error' },
    });
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assert.ok(child.stderr().split('\n').includes('closed: rejected with Error: boom'), child.stderr());
    assertOnlyFrames(child);
  },
);

test(
  'child process in rethrow mode: a handler throwing undefined rejects closed with undefined on a real stdout pipe, after its -32603, and the process exits on its own with stdin still open',
  CHILD_TIMEOUT,
  async (t) => {
    const child = startChild(t, [STDIO_CHILD, '--rethrow']);
    child.send(INITIALIZE);
    child.send(INITIALIZED);
    child.send(call(2, 'throw', { undefined: true }));
    assert.deepEqual(await child.response(2), {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: 'Internal error' },
    });
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assert.ok(child.stderr().split('\n').includes('closed: rejected with undefined'), child.stderr());
    assertOnlyFrames(child);
  },
);
