// subscriptions/listen (2026-07-28) at the wire: the acknowledgement and its narrowing, tagged events, filtering,
// several streams per connection, ending by cancel, the per-connection limit, overflow under a backed-up output,
// the EOF drain (docs/api.md, Transports: `serveStdio`), connection isolation, both eras on one server, and
// the demo server as a child process.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer, type Server, type ServerOptions } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { type StdioServer, serveStdio } from '../stdio.ts';
import { deferred, type Frame, WireClient } from './harness.ts';
import { envelope, type Id, modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EVERYTHING = join(ROOT, 'examples', 'everything.ts');
const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const INFO = { name: 'listen-test', version: '1.0.0' };

type List = 'tools' | 'prompts' | 'resources';

// ---------------------------------------------------------------------------------------------------------------
// Frames

function listen(id: Id, notifications: unknown): object {
  return modern('subscriptions/listen', { notifications }, id);
}

function cancel(id: Id): object {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } };
}

function ack(id: Id, notifications: object): Frame {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
  };
}

function listChanged(id: Id, list: List): Frame {
  return { jsonrpc: '2.0', method: `notifications/${list}/list_changed`, params: { _meta: { [SUBSCRIPTION_ID]: id } } };
}

function updated(id: Id, uri: string): Frame {
  return {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { _meta: { [SUBSCRIPTION_ID]: id }, uri },
  };
}

function finalResult(id: Id, info: object = INFO): Frame {
  return {
    jsonrpc: '2.0',
    id,
    result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: id, [SERVER_INFO]: info } },
  };
}

const OVERFLOW_MESSAGE = 'Subscription overflowed: events were dropped; re-listen and refetch';

function overflowed(id: Id): Frame {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: OVERFLOW_MESSAGE } };
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

/** A server serving tools, prompts and resources (test://a, test://b) in both eras. */
function fullServer(options: ServerOptions = {}): Server {
  const server = createServer(INFO, options);
  server.tool('echo', { description: 'Echo' }, () => text('echo'));
  server.prompt('greeting', { description: 'A greeting' }, () => ({ messages: [] }));
  server.resource('test://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: 'a' }] }));
  server.resource('test://b', { name: 'b' }, (uri) => ({ contents: [{ uri, text: 'b' }] }));
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// Client helpers

/** Opens a listen and asserts that the very next frame on the wire is its acknowledgement. */
async function openListen(
  client: WireClient,
  id: Id,
  notifications: object,
  acknowledged: object = notifications,
): Promise<void> {
  client.send(listen(id, notifications));
  assert.deepEqual(await client.next(), ack(id, acknowledged));
}

let markers = 0;

/**
 * Proves that nothing was written since the last read frame: a modern tools/list request goes in after everything
 * the test did, and its answer must be the very next frame (the connection handles frames in order).
 */
async function assertNothingMore(client: WireClient): Promise<void> {
  const id = `marker-${++markers}`;
  client.send(modern('tools/list', {}, id));
  const next = await client.next();
  assert.equal(next.id, id, `expected nothing before the marker, got ${JSON.stringify(next)}`);
  assert.equal(next.result?.resultType, 'complete');
}

// ---------------------------------------------------------------------------------------------------------------
// A slow reader: serveStdio over our own streams, with an output whose reader can stop taking data

/**
 * An output with a tiny buffer whose reader takes a chunk only while the gate is open. While it is held, the
 * first chunk stays inside the stream and everything after it queues up: the transport is backed up
 * (`writableNeedDrain`) exactly as a pipe to a client that stopped reading.
 */
class GatedOutput extends Writable {
  /** Frames the reader has taken, in wire order. */
  readonly frames: Frame[] = [];
  #open = true;
  #held: { chunk: Buffer; callback(): void } | undefined;
  #text = '';
  #waiters: { match(frame: Frame): boolean; resolve(frame: Frame): void }[] = [];
  #onHeld: (() => void) | undefined;
  #read = 0;

  constructor() {
    super({ highWaterMark: 1 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.#open) {
      this.#take(chunk);
      callback();
      return;
    }
    this.#held = { chunk, callback };
    this.#onHeld?.();
  }

  #take(chunk: Buffer): void {
    this.#text += chunk.toString('utf8');
    let newline: number;
    while ((newline = this.#text.indexOf('\n')) !== -1) {
      const frame = JSON.parse(this.#text.slice(0, newline));
      this.#text = this.#text.slice(newline + 1);
      this.frames.push(frame);
      for (const waiter of this.#waiters.filter((w) => w.match(frame))) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  }

  /** The reader stops taking data. */
  hold(): void {
    this.#open = false;
  }

  /** Resolves once a chunk is stuck in the held stream. */
  whenHeld(): Promise<void> {
    if (this.#held !== undefined) return Promise.resolve();
    return new Promise(
      (resolve) =>
        (this.#onHeld = () => {
          this.#onHeld = undefined;
          resolve();
        }),
    );
  }

  /** The reader takes everything again. */
  release(): void {
    this.#open = true;
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined) {
      this.#take(held.chunk);
      held.callback();
    }
  }

  /** The first frame taken (from now on, or already taken and not yet awaited) that matches. */
  waitFor(match: (frame: Frame) => boolean): Promise<Frame> {
    const found = this.frames.slice(this.#read).find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** Frames taken since the last call. */
  takeNew(): Frame[] {
    const fresh = this.frames.slice(this.#read);
    this.#read = this.frames.length;
    return fresh;
  }
}

class SlowClient {
  readonly input = new PassThrough();
  readonly output = new GatedOutput();
  readonly stdio: StdioServer;

  constructor(server: Server, options: { maxQueuedBytes?: number } = {}) {
    this.stdio = serveStdio(server, { ...options, input: this.input, output: this.output });
  }

  send(frame: object): void {
    this.input.write(`${JSON.stringify(frame)}\n`);
  }

  /** Waits until the output can take more (nothing queued, no drain pending). */
  async settled(): Promise<void> {
    while (this.output.writableNeedDrain) await once(this.output, 'drain');
  }

  /** Opens a listen, waits for its ack, and lets the output settle. */
  async openListen(id: Id, notifications: object): Promise<void> {
    this.send(listen(id, notifications));
    await this.output.waitFor(
      (frame) =>
        frame.method === 'notifications/subscriptions/acknowledged' && frame.params._meta[SUBSCRIPTION_ID] === id,
    );
    await this.settled();
  }

  /** Holds the reader, then makes the transport back up with one frame that is not a listen event. */
  async backUp(): Promise<void> {
    this.output.hold();
    const held = this.output.whenHeld();
    this.send(modern('tools/list', {}, 'backlog'));
    await held;
    assert.equal(this.output.writableNeedDrain, true, 'the output is backed up');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The acknowledgement

test(
  'the ack is the first frame for the listen and echoes exactly the requested kinds the server serves',
  T,
  async () => {
    const client = new WireClient(fullServer());
    await openListen(client, 'sub-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    assert.deepEqual(client.frames, [
      ack('sub-1', {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['test://a'],
      }),
    ]);
    assert.deepEqual(await client.end(), [finalResult('sub-1')]);
  },
);

test('the ack is narrowed by the server: no prompts or resources served → those keys are dropped', T, async () => {
  const server = createServer(INFO);
  server.tool('echo', {}, () => text('echo'));
  const client = new WireClient(server);
  await openListen(
    client,
    'sub',
    {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['test://a'],
    },
    { toolsListChanged: true },
  );
  // And nothing of the dropped kinds is ever delivered.
  server.notifyListChanged('prompts');
  server.notifyListChanged('resources');
  server.notifyResourceUpdated('test://a');
  server.notifyListChanged('tools');
  assert.deepEqual(await client.next(), listChanged('sub', 'tools'));
  assert.deepEqual(await client.end(), [finalResult('sub')]);
});

test('a server without tools drops toolsListChanged from the ack', T, async () => {
  const server = createServer(INFO);
  server.prompt('greeting', {}, () => ({ messages: [] }));
  const client = new WireClient(server);
  await openListen(client, 7, { toolsListChanged: true, promptsListChanged: true }, { promptsListChanged: true });
  server.notifyListChanged('tools');
  server.notifyListChanged('prompts');
  assert.deepEqual(await client.next(), listChanged(7, 'prompts'));
  assert.deepEqual(await client.end(), [finalResult(7)]);
});

test('false keys and an empty resourceSubscriptions are omitted from the ack', T, async () => {
  const client = new WireClient(fullServer());
  await openListen(
    client,
    'sub',
    {
      toolsListChanged: false,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: [],
    },
    { promptsListChanged: true },
  );
  assert.deepEqual(await client.end(), [finalResult('sub')]);
});

test('an empty filter is acknowledged with {} and never delivers anything', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  await openListen(client, 'quiet', {}, {});
  server.notifyListChanged('tools');
  server.notifyListChanged('prompts');
  server.notifyListChanged('resources');
  server.notifyResourceUpdated('test://a');
  await assertNothingMore(client);
  assert.equal(client.stdio.connection.listenCount, 1, 'the empty listen is still open');
  assert.deepEqual(await client.end(), [finalResult('quiet')]);
});

test('an event published while the ack is being written is delivered, after the ack', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  // Publish from inside the ack's write: the listen is not yet acknowledged when the event happens.
  const output = client.output as unknown as { write(chunk: string): boolean };
  const write = output.write.bind(output);
  let published = 0;
  output.write = (chunk: string) => {
    const accepted = write(chunk);
    if (published === 0 && chunk.includes('notifications/subscriptions/acknowledged')) {
      published++;
      server.notifyListChanged('tools');
    }
    return accepted;
  };
  client.send(listen('sub', { toolsListChanged: true }));
  assert.deepEqual(await client.next(), ack('sub', { toolsListChanged: true }));
  assert.deepEqual(await client.next(), listChanged('sub', 'tools'));
  assert.equal(published, 1);
  assert.deepEqual(await client.end(), [finalResult('sub')]);
});

test('an event raised by a request pipelined right behind the listen comes after the ack', T, async () => {
  const client = new WireClient(createEverythingServer());
  client.send(
    `${JSON.stringify(listen('sub', { toolsListChanged: true }))}\n${JSON.stringify(
      modern('tools/call', { name: 'test_trigger_tool_change', arguments: {} }, 'trigger'),
    )}`,
  );
  assert.deepEqual(await client.next(), ack('sub', { toolsListChanged: true }));
  assert.deepEqual(await client.waitFor((frame) => frame.method !== undefined), listChanged('sub', 'tools'));
  const result = await client.response('trigger');
  assert.deepEqual(result.result.content, [{ type: 'text', text: 'Mutation triggered' }]);
  const rest = await client.end();
  assert.equal(rest.length, 1);
  assert.equal(rest[0].id, 'sub');
  assert.equal(rest[0].result.resultType, 'complete');
});

// ---------------------------------------------------------------------------------------------------------------
// Events: tagged with the listen id, filtered by kind and URI

for (const id of ['sub-1', 42, 0, ''] as const) {
  test(`every frame of a listen with id ${JSON.stringify(id)} carries that id with its JSON type`, T, async () => {
    const server = fullServer();
    const client = new WireClient(server);
    await openListen(client, id, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    server.notifyListChanged('tools');
    server.notifyListChanged('prompts');
    server.notifyResourceUpdated('test://a');
    assert.deepEqual(await client.next(), listChanged(id, 'tools'));
    assert.deepEqual(await client.next(), listChanged(id, 'prompts'));
    assert.deepEqual(await client.next(), updated(id, 'test://a'));
    assert.deepEqual(await client.end(), [finalResult(id)]);
    for (const frame of client.frames) {
      const tag = frame.params?._meta?.[SUBSCRIPTION_ID] ?? frame.result?._meta?.[SUBSCRIPTION_ID];
      assert.equal(typeof tag, typeof id, JSON.stringify(frame));
      assert.equal(tag, id);
    }
  });
}

test('a listen for toolsListChanged only gets nothing for prompts, resources or resource updates', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  await openListen(client, 'tools-only', { toolsListChanged: true });
  server.notifyListChanged('prompts');
  server.notifyListChanged('resources');
  server.notifyResourceUpdated('test://a');
  server.notifyResourceUpdated('test://b');
  await assertNothingMore(client);
  server.notifyListChanged('tools');
  assert.deepEqual(await client.next(), listChanged('tools-only', 'tools'));
  assert.deepEqual(await client.end(), [finalResult('tools-only')]);
});

test(
  'resource updates arrive only for the listed URIs, and resourceSubscriptions alone brings no list_changed',
  T,
  async () => {
    const server = fullServer();
    const client = new WireClient(server);
    await openListen(client, 'res', { resourceSubscriptions: ['test://a'] });
    server.notifyResourceUpdated('test://b');
    server.notifyResourceUpdated('test://unknown');
    server.notifyListChanged('resources');
    server.notifyListChanged('tools');
    await assertNothingMore(client);
    server.notifyResourceUpdated('test://a');
    assert.deepEqual(await client.next(), updated('res', 'test://a'));
    assert.deepEqual(await client.end(), [finalResult('res')]);
  },
);

for (const [what, notifications] of [
  ['missing', undefined],
  ['null', null],
  ['an array', []],
  ['a string', 'toolsListChanged'],
  ['with a non-boolean flag', { toolsListChanged: 'yes' }],
  ['with resourceSubscriptions not an array', { resourceSubscriptions: 'test://a' }],
  ['with a non-string URI', { resourceSubscriptions: ['test://a', 1] }],
] as const) {
  test(`params.notifications ${what} → -32602, no ack, no stream`, T, async () => {
    const client = new WireClient(fullServer());
    const params: Record<string, unknown> = notifications === undefined ? {} : { notifications };
    const response = await client.request('subscriptions/listen', { ...params, _meta: envelope() }, 'bad');
    assert.equal(response.error?.code, -32602, JSON.stringify(response));
    assert.match(response.error.message, /notifications/);
    assert.equal(client.stdio.connection.listenCount, 0);
    assert.equal(client.stdio.connection.inFlightCount, 0);
    assert.deepEqual(client.frames, [response], 'nothing but the error');
    assert.deepEqual(await client.end(), []);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Several streams on one connection; the demo server's triggers

test('several listens on one connection each get the events they asked for, tagged with their own id', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  await openListen(client, 'a', { toolsListChanged: true });
  await openListen(client, 'b', { promptsListChanged: true });
  await openListen(client, 3, {
    toolsListChanged: true,
    promptsListChanged: true,
    resourceSubscriptions: ['test://b'],
  });
  assert.equal(client.stdio.connection.listenCount, 3);
  const byId = (frames: Frame[]) =>
    [...frames].sort((x, y) =>
      String(x.params._meta[SUBSCRIPTION_ID]).localeCompare(String(y.params._meta[SUBSCRIPTION_ID])),
    );

  server.notifyListChanged('tools');
  assert.deepEqual(byId([await client.next(), await client.next()]), [
    listChanged(3, 'tools'),
    listChanged('a', 'tools'),
  ]);
  await assertNothingMore(client);

  server.notifyListChanged('prompts');
  assert.deepEqual(byId([await client.next(), await client.next()]), [
    listChanged(3, 'prompts'),
    listChanged('b', 'prompts'),
  ]);
  await assertNothingMore(client);

  server.notifyResourceUpdated('test://b');
  assert.deepEqual(await client.next(), updated(3, 'test://b'));
  await assertNothingMore(client);

  const rest = await client.end();
  assert.equal(rest.length, 3);
  for (const id of ['a', 'b', 3])
    assert.deepEqual(
      rest.find((f) => f.id === id),
      finalResult(id),
    );
});

test(
  "events from the demo server's test_trigger_tool_change and test_trigger_prompt_change reach the stream",
  T,
  async () => {
    const client = new WireClient(createEverythingServer());
    await openListen(client, 'demo', { toolsListChanged: true, promptsListChanged: true });
    const tools = await client.request(
      'tools/call',
      { name: 'test_trigger_tool_change', arguments: {}, _meta: envelope() },
      't',
    );
    assert.deepEqual(tools.result.content, [{ type: 'text', text: 'Mutation triggered' }]);
    const prompts = await client.request(
      'tools/call',
      { name: 'test_trigger_prompt_change', arguments: {}, _meta: envelope() },
      'p',
    );
    assert.deepEqual(prompts.result.content, [{ type: 'text', text: 'Mutation triggered' }]);
    // Each event is written by the handler, before its own result.
    assert.deepEqual(
      client.frames.slice(1).map((f) => f.method ?? f.id),
      ['notifications/tools/list_changed', 't', 'notifications/prompts/list_changed', 'p'],
    );
    const rest = await client.end();
    assert.deepEqual(rest.slice(0, 2), [listChanged('demo', 'tools'), listChanged('demo', 'prompts')]);
    assert.equal(rest.length, 3, JSON.stringify(rest));
    assert.equal(rest[2].id, 'demo');
    assert.equal(rest[2].result.resultType, 'complete');
    assert.equal(rest[2].result._meta[SUBSCRIPTION_ID], 'demo');
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Ending by cancel

test('notifications/cancelled ends the listen silently and frees its entries', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  await assertNothingMore(client); // pins the connection to the modern era first
  const baseline = server.metrics().connections;
  await openListen(client, 'sub', { toolsListChanged: true, resourceSubscriptions: ['test://a'] });
  assert.equal(client.stdio.connection.listenCount, 1);
  assert.equal(client.stdio.connection.inFlightCount, 1, 'the open listen is a running request');

  client.send(cancel('sub'));
  await assertNothingMore(client); // the cancel is handled: nothing was written for it
  assert.equal(client.stdio.connection.listenCount, 0);
  assert.equal(client.stdio.connection.inFlightCount, 0);
  assert.equal(server.metrics().connections, baseline, 'no change listener left behind');

  server.notifyListChanged('tools');
  server.notifyResourceUpdated('test://a');
  await assertNothingMore(client);

  // The id is free again: a new listen under it is accepted and acknowledged.
  await openListen(client, 'sub', { promptsListChanged: true });
  client.send(cancel('sub'));
  const rest = await client.end();
  assert.deepEqual(rest, [], 'not even a final result for a cancelled listen');
});

test('an open listen makes no AbortController: its cancel releases it all the same', T, async (t) => {
  const server = fullServer();
  const client = new WireClient(server);
  await assertNothingMore(client);
  // A signal costs an open stream about 1 KB (bench/README.md, What we found and changed): the listen hears its
  // request's end without one.
  const controllers = t.mock.method(globalThis, 'AbortController');
  await openListen(client, 'sub', { toolsListChanged: true });
  client.send(cancel('sub'));
  await assertNothingMore(client);
  assert.equal(client.stdio.connection.listenCount, 0, 'the cancel released the stream');
  assert.equal(controllers.mock.callCount(), 0);
  server.notifyListChanged('tools');
  assert.deepEqual(await client.end(), []);
});

test('1000 listen open/cancel cycles leave no entry behind, and the next request is answered', T, async () => {
  const server = fullServer();
  const client = new WireClient(server);
  await assertNothingMore(client);
  const baseline = server.metrics().connections;
  for (let i = 0; i < 1000; i++) {
    // Reused ids (0, 'sub') and fresh ones: a leaked entry makes a reused id "already in flight".
    const id = i % 3 === 0 ? 0 : i % 3 === 1 ? 'sub' : i;
    await openListen(client, id, { toolsListChanged: true });
    client.send(cancel(id));
  }
  const connection = client.stdio.connection;
  const next = await client.request('tools/list', { _meta: envelope() }, 'after');
  assert.equal(next.result.resultType, 'complete');
  assert.equal(connection.listenCount, 0);
  assert.equal(connection.inFlightCount, 0);
  assert.equal(server.metrics().connections, baseline);
  server.notifyListChanged('tools');
  await assertNothingMore(client);
  assert.equal(client.frames.length, 1000 + 3, 'acks, the two markers and the answer: nothing else');
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// The per-connection limit

test(
  'with maxListens 2 a third listen gets -32603 "Subscription limit reached" and no ack; a cancel frees a slot',
  T,
  async () => {
    const server = fullServer({ maxListens: 2 });
    const client = new WireClient(server);
    await openListen(client, 'a', { toolsListChanged: true });
    await openListen(client, 'b', { toolsListChanged: true });
    client.send(listen('c', { toolsListChanged: true }));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 'c',
      error: { code: -32603, message: 'Subscription limit reached' },
    });
    assert.equal(client.stdio.connection.listenCount, 2);
    server.notifyListChanged('tools');
    const events = [await client.next(), await client.next()];
    assert.deepEqual(
      events.map((f) => f.params._meta[SUBSCRIPTION_ID]).sort(),
      ['a', 'b'],
      'the refused listen gets no events',
    );
    client.send(cancel('a'));
    await openListen(client, 'c', { promptsListChanged: true });
    assert.equal(client.stdio.connection.listenCount, 2);
    const rest = await client.end();
    assert.deepEqual(new Set(rest.map((f) => f.id)), new Set(['b', 'c']));
  },
);

test(
  'the listen limit is per connection: another connection on the same server still gets its listens',
  T,
  async () => {
    const server = fullServer({ maxListens: 1 });
    const first = new WireClient(server);
    const second = new WireClient(server);
    await openListen(first, 'x', { toolsListChanged: true });
    await openListen(second, 'x', { toolsListChanged: true });
    assert.deepEqual(await first.end(), [finalResult('x')]);
    assert.deepEqual(await second.end(), [finalResult('x')]);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Overflow under a backed-up output

test(
  'buffer overflow ends the listen with the -32603 overflow error, never the graceful result, and frees its slot',
  T,
  async () => {
    const server = fullServer({ maxBufferedEvents: 3, maxListens: 1 });
    const client = new SlowClient(server);
    await client.openListen('sub', { toolsListChanged: true });
    await client.backUp();
    const queued = client.output.writableLength;
    server.notifyListChanged('tools');
    server.notifyListChanged('tools');
    server.notifyListChanged('tools');
    assert.equal(client.output.writableLength, queued, 'the events wait in the listen buffer, not in the output');
    assert.equal(client.stdio.connection.listenCount, 1, 'three buffered events are within the limit');
    server.notifyListChanged('tools'); // one more than the buffer holds
    assert.equal(client.stdio.connection.listenCount, 0, 'the slot is freed at once');

    client.output.release();
    const error = await client.output.waitFor((frame) => frame.id === 'sub');
    assert.deepEqual(error, overflowed('sub'));
    assert.deepEqual(
      client.output.takeNew().map((f) => f.id ?? f.method),
      ['notifications/subscriptions/acknowledged', 'backlog', 'sub'],
      'the dropped events are not written, and the error is the only answer',
    );
    await client.settled();
    assert.equal(client.stdio.connection.inFlightCount, 0);

    // Later events reach nothing; the freed slot takes a new listen (maxListens is 1).
    server.notifyListChanged('tools');
    await client.openListen('again', { toolsListChanged: true });
    assert.deepEqual(client.output.takeNew(), [ack('again', { toolsListChanged: true })]);
    client.input.end();
    await client.stdio.closed;
    assert.deepEqual(client.output.takeNew(), [finalResult('again')], 'no frame for the overflowed listen, ever again');
  },
);

test(
  'events buffered within the limit arrive in order when the output drains, and the listen stays open',
  T,
  async () => {
    const server = fullServer({ maxBufferedEvents: 3 });
    const client = new SlowClient(server);
    await client.openListen('sub', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['test://a'],
    });
    await client.backUp();
    const queued = client.output.writableLength;
    server.notifyListChanged('prompts');
    server.notifyResourceUpdated('test://a');
    server.notifyListChanged('tools');
    assert.equal(client.output.writableLength, queued, 'the events wait in the listen buffer');

    client.output.release();
    await client.output.waitFor((frame) => frame.method === 'notifications/tools/list_changed');
    await client.settled();
    const fresh = client.output.takeNew();
    assert.deepEqual(fresh.map((f) => f.id ?? f.method).slice(0, 2), [
      'notifications/subscriptions/acknowledged',
      'backlog',
    ]);
    assert.deepEqual(fresh.slice(2), [
      listChanged('sub', 'prompts'),
      updated('sub', 'test://a'),
      listChanged('sub', 'tools'),
    ]);
    assert.equal(client.stdio.connection.listenCount, 1);

    server.notifyListChanged('tools');
    await client.output.waitFor((frame) => frame.method === 'notifications/tools/list_changed');
    client.input.end();
    await client.stdio.closed;
    assert.deepEqual(client.output.takeNew(), [listChanged('sub', 'tools'), finalResult('sub')]);
  },
);

test('an overflow on one listen leaves the other listens of the connection open', T, async () => {
  const server = fullServer({ maxBufferedEvents: 2 });
  const client = new SlowClient(server);
  await client.openListen('noisy', { toolsListChanged: true });
  await client.openListen('calm', { promptsListChanged: true });
  await client.backUp();
  for (let i = 0; i < 3; i++) server.notifyListChanged('tools');
  server.notifyListChanged('prompts');
  assert.equal(client.stdio.connection.listenCount, 1);
  client.output.release();
  await client.output.waitFor((frame) => frame.method === 'notifications/prompts/list_changed');
  await client.output.waitFor((frame) => frame.id === 'noisy');
  const fresh = client.output.takeNew();
  assert.deepEqual(
    fresh.filter((f) => f.id === 'noisy'),
    [overflowed('noisy')],
  );
  assert.deepEqual(
    fresh.filter(
      (f) => f.method?.startsWith('notifications/') && f.method !== 'notifications/subscriptions/acknowledged',
    ),
    [listChanged('calm', 'prompts')],
  );
  client.input.end();
  await client.stdio.closed;
  assert.deepEqual(client.output.takeNew(), [finalResult('calm')]);
});

// ---------------------------------------------------------------------------------------------------------------
// End of input (MCP 2026-07-28, Basic > Transports > stdio > Shutdown; docs/api.md, Transports: `serveStdio`)

test(
  'EOF with two events buffered behind a backed-up output: ack, event, event, final result, then the server closes',
  T,
  async () => {
    const server = fullServer();
    const client = new SlowClient(server);
    await client.openListen('sub-1', { toolsListChanged: true });
    await client.backUp();
    const queued = client.output.writableLength;
    server.notifyListChanged('tools');
    server.notifyListChanged('tools');
    assert.equal(client.output.writableLength, queued, 'both events sit in the listen buffer');
    client.input.end(); // the client closes stdin and keeps reading stdout
    client.output.release();
    await client.stdio.closed;
    assert.equal(client.output.writableFinished, true, 'the output was ended after the last frame');
    const frames = client.output.frames;
    assert.deepEqual(
      frames.map((f) => f.id ?? f.method),
      [
        'notifications/subscriptions/acknowledged',
        'backlog',
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
        'sub-1',
      ],
    );
    assert.deepEqual(frames[0], ack('sub-1', { toolsListChanged: true }));
    assert.deepEqual(frames[2], listChanged('sub-1', 'tools'));
    assert.deepEqual(frames[3], listChanged('sub-1', 'tools'));
    assert.deepEqual(frames[4], finalResult('sub-1'));
  },
);

test(
  'a graceful close while events are still buffered flushes them before the final result (the drain writes notifications)',
  T,
  async () => {
    const server = fullServer();
    const client = new SlowClient(server);
    await client.openListen('sub-1', { toolsListChanged: true, resourceSubscriptions: ['test://a'] });
    await client.backUp();
    server.notifyListChanged('tools');
    server.notifyResourceUpdated('test://a');
    // close() ends exactly as on EOF, but now, while both events are still in the listen buffer.
    const closing = client.stdio.close();
    assert.equal(client.stdio.connection.listenCount, 0, 'the drain ended the listen');
    client.output.release();
    await closing;
    assert.deepEqual(client.output.frames.slice(2), [
      listChanged('sub-1', 'tools'),
      updated('sub-1', 'test://a'),
      finalResult('sub-1'),
    ]);
    assert.equal(client.output.frames.length, 5);
  },
);

test('events buffered at close are written even when the output queue is past maxQueuedBytes', T, async () => {
  const server = fullServer();
  const client = new SlowClient(server, { maxQueuedBytes: 10 });
  await client.openListen('sub', { toolsListChanged: true });
  await client.backUp();
  assert.ok(client.output.writableLength > 10, 'the queue is over the limit');
  server.notifyListChanged('tools');
  server.notifyListChanged('tools');
  const closing = client.stdio.close();
  client.output.release();
  await closing;
  // Dropping them here would end the listen "gracefully" after a silent loss; an overflow ends it with -32603 instead
  // (docs/eras.md, What each era's client sees).
  assert.deepEqual(client.output.frames.slice(2), [
    listChanged('sub', 'tools'),
    listChanged('sub', 'tools'),
    finalResult('sub'),
  ]);
});

test(
  "an ack due while the output queue is past maxQueuedBytes is still written, before the listen's events",
  T,
  async () => {
    const server = fullServer();
    const client = new SlowClient(server, { maxQueuedBytes: 10 });
    client.output.hold();
    // One chunk: the first answer fills the queue past the limit while the rest of the chunk is still being read.
    client.input.write(
      `${JSON.stringify(modern('tools/list', {}, 'big'))}\n${JSON.stringify(listen('sub', { toolsListChanged: true }))}\n`,
    );
    await client.output.whenHeld();
    assert.equal(client.stdio.connection.listenCount, 1, 'the whole chunk was read while the answer sat in the queue');
    assert.ok(client.output.writableLength > 10, 'the queue was over the limit when the ack was due');
    client.output.release();
    await client.settled();
    server.notifyListChanged('tools');
    client.input.end();
    await client.stdio.closed;
    assert.deepEqual(
      client.output.frames.map((f) => f.id ?? f.method),
      ['big', 'notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'sub'],
    );
    assert.deepEqual(client.output.frames[1], ack('sub', { toolsListChanged: true }));
  },
);

test(
  'a listen with nothing buffered ends at EOF with its final result carrying subscriptionId and serverInfo',
  T,
  async () => {
    const client = new WireClient(fullServer());
    await openListen(client, 'sub', { toolsListChanged: true });
    const rest = await client.end();
    assert.deepEqual(rest, [finalResult('sub')]);
    assert.deepEqual(Object.keys(rest[0].result).sort(), ['_meta', 'resultType']);
    assert.deepEqual(Object.keys(rest[0].result._meta).sort(), [SERVER_INFO, SUBSCRIPTION_ID].sort());
  },
);

test(
  'EOF: the listen ends at once, and a running tools/call still gets its progress and result during the drain',
  T,
  async () => {
    const started = deferred();
    const finish = deferred();
    const server = fullServer();
    server.tool('slow', {}, async (_args, ctx) => {
      started.resolve();
      await finish.promise;
      ctx.progress(1, 1, 'almost');
      return text('done');
    });
    const client = new WireClient(server);
    await openListen(client, 'sub', { toolsListChanged: true });
    client.send(modern('tools/call', { name: 'slow', arguments: {} }, 'call', { progressToken: 'tok' }));
    await started.promise;
    client.input.end();
    // The final result proves the server is draining; only now may the handler finish.
    assert.deepEqual(await client.next(), finalResult('sub'));
    assert.equal(client.stdio.connection.closed, false, 'output stays enabled during the drain');
    finish.resolve();
    const rest = await client.end();
    assert.deepEqual(rest, [
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 1, message: 'almost' },
      },
      {
        jsonrpc: '2.0',
        id: 'call',
        result: { ...text('done'), resultType: 'complete', _meta: { [SERVER_INFO]: INFO } },
      },
    ]);
  },
);

test(
  'nothing is written at EOF for a listen cancelled before it; the other listen gets its final result',
  T,
  async () => {
    const server = fullServer();
    const client = new WireClient(server);
    await openListen(client, 'gone', { toolsListChanged: true });
    await openListen(client, 'kept', { toolsListChanged: true });
    client.send(cancel('gone'));
    assert.deepEqual(await client.end(), [finalResult('kept')]);
    assert.equal(
      client.frames.filter((f) => f.id === 'gone' || f.params?._meta?.[SUBSCRIPTION_ID] === 'gone').length,
      1,
      'only its ack',
    );
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Streams belong to their connection

test(
  "EOF on one connection ends only its own listens; the other connection's listen stays open and delivering",
  T,
  async () => {
    const server = fullServer();
    const m1 = new WireClient(server);
    const m2 = new WireClient(server);
    await openListen(m1, 'sub', { toolsListChanged: true });
    await openListen(m2, 'sub', { toolsListChanged: true });
    const baseline = server.metrics().connections;

    assert.deepEqual(await m1.end(), [finalResult('sub')]);
    assert.ok(server.metrics().connections < baseline, 'the ended connection let go of the change hub');
    assert.equal(m2.stdio.connection.listenCount, 1);
    server.notifyListChanged('tools');
    assert.deepEqual(await m2.next(), listChanged('sub', 'tools'), 'still delivering, and no final result came first');
    await assertNothingMore(m2);
    assert.deepEqual(await m2.end(), [finalResult('sub')]);
  },
);

test('a legacy connection ending on the same server does not touch a modern listen', T, async () => {
  const server = fullServer();
  const legacy = new WireClient(server);
  const m = new WireClient(server);
  await legacy.initialize();
  assert.equal((await legacy.request('resources/subscribe', { uri: 'test://a' })).result !== undefined, true);
  await openListen(m, 'sub', { toolsListChanged: true, resourceSubscriptions: ['test://a'] });

  await legacy.end();
  assert.equal(legacy.stdio.connection.closed, true);
  await assertNothingMore(m);
  server.notifyResourceUpdated('test://a');
  assert.deepEqual(await m.next(), updated('sub', 'test://a'));
  assert.equal(m.stdio.connection.listenCount, 1);
  assert.deepEqual(await m.end(), [finalResult('sub')]);
});

// ---------------------------------------------------------------------------------------------------------------
// Both eras on one server: one notify API

test(
  'one notifyListChanged reaches a legacy client as a bare broadcast and a listen as a tagged event; a modern connection without a listen gets nothing',
  T,
  async () => {
    const server = fullServer();
    const legacy = new WireClient(server);
    const listener = new WireClient(server);
    const bystander = new WireClient(server);
    await legacy.initialize();
    await openListen(listener, 'sub', { toolsListChanged: true });
    await assertNothingMore(bystander); // a modern connection, no listen
    assert.equal(bystander.stdio.connection.era, 'modern');

    server.notifyListChanged('tools');
    assert.deepEqual(await legacy.next(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    assert.deepEqual(await listener.next(), listChanged('sub', 'tools'));
    await assertNothingMore(bystander);
    await assertNothingMore(listener);
    assert.deepEqual(await legacy.request('ping', undefined, 'p'), { jsonrpc: '2.0', id: 'p', result: {} });
    assert.deepEqual(legacy.unread(), []);

    assert.deepEqual(await legacy.end(), []);
    assert.deepEqual(await listener.end(), [finalResult('sub')]);
    assert.deepEqual(await bystander.end(), []);
  },
);

test(
  'resource updates: legacy resources/subscribe gets the bare notification, a modern listen the tagged one, an unsubscribed modern connection nothing',
  T,
  async () => {
    const server = fullServer();
    const legacy = new WireClient(server);
    const listener = new WireClient(server);
    const bystander = new WireClient(server);
    await legacy.initialize();
    await legacy.request('resources/subscribe', { uri: 'test://a' }, 's');
    await openListen(listener, 'sub', { resourceSubscriptions: ['test://a'] });
    await assertNothingMore(bystander);

    server.notifyResourceUpdated('test://b');
    server.notifyResourceUpdated('test://a');
    assert.deepEqual(await legacy.next(), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'test://a' },
    });
    assert.deepEqual(await listener.next(), updated('sub', 'test://a'));
    await assertNothingMore(bystander);
    await assertNothingMore(listener);
    assert.deepEqual(await legacy.end(), []);
    assert.deepEqual(await listener.end(), [finalResult('sub')]);
    assert.deepEqual(await bystander.end(), []);
  },
);

test('a legacy connection has no subscriptions/listen: -32601, no ack, and its broadcasts go on', T, async () => {
  const server = fullServer();
  const legacy = new WireClient(server);
  await legacy.initialize();
  const response = await legacy.request('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'x');
  assert.equal(response.error?.code, -32601);
  assert.equal(legacy.stdio.connection.listenCount, 0);
  server.notifyListChanged('tools');
  assert.deepEqual(await legacy.next(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  assert.deepEqual(await legacy.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// The demo server as a child process

test(
  'child process: listen, test_publish two events, close stdin → ack, both events, the call result, the final result, exit 0',
  T,
  async (t: TestContext) => {
    const child = spawn(process.execPath, [EVERYTHING, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when the test failed
    });
    const exit = once(child, 'exit');
    let out = '';
    let pending = '';
    const frames: Frame[] = [];
    const acked = deferred();
    child.stderr!.resume();
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) !== -1) {
        const frame = JSON.parse(pending.slice(0, newline)); // anything but a frame on stdout fails here
        pending = pending.slice(newline + 1);
        frames.push(frame);
        if (frame.method === 'notifications/subscriptions/acknowledged') acked.resolve();
      }
    });
    const write = (frame: object) => child.stdin!.write(`${JSON.stringify(frame)}\n`);
    write(listen('sub', { toolsListChanged: true }));
    await acked.promise;
    write(modern('tools/call', { name: 'test_publish', arguments: { event: 'tools', count: 2 } }, 2));
    child.stdin!.end();
    const [code, signal] = await exit;
    assert.equal(code, 0);
    assert.equal(signal, null);
    assert.ok(out.endsWith('\n'));

    assert.equal(frames.length, 5, JSON.stringify(frames));
    assert.deepEqual(frames[0], ack('sub', { toolsListChanged: true }));
    const events = frames.filter((f) => f.method === 'notifications/tools/list_changed');
    assert.deepEqual(events, [listChanged('sub', 'tools'), listChanged('sub', 'tools')]);
    const call = frames.find((f) => f.id === 2);
    assert.deepEqual(call.result.content, [{ type: 'text', text: 'Published 2 tools event(s)' }]);
    assert.equal(call.result.resultType, 'complete');
    const finals = frames.filter((f) => f.id === 'sub');
    assert.equal(finals.length, 1);
    assert.equal(finals[0].result.resultType, 'complete');
    assert.equal(finals[0].result._meta[SUBSCRIPTION_ID], 'sub');
    assert.equal(typeof finals[0].result._meta[SERVER_INFO].name, 'string');
    const last = frames.indexOf(finals[0]);
    for (const event of events) assert.ok(frames.indexOf(event) < last, 'events come before the final result');
  },
);
