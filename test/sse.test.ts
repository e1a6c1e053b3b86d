// http/sse.ts: SSE event text, the 2025-11-25 priming event and resumability store (MCP 2025-11-25, Basic > Transports >
// Streamable HTTP > Resumability and Redelivery: server-minted ids, replay of one stream only, never across
// sessions), and the single-writer SSE response (keep-alive, peer disconnect, backpressure, no leaked listeners or
// timers).

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import {
  formatEvent,
  formatPriming,
  KEEP_ALIVE,
  MemoryEventStore,
  newStreamId,
  SSE_HEADERS,
  SseWriter,
} from '../http/sse.ts';
import { deferred } from './harness.ts';

/** A WHATWG EventSource parser (html.spec.whatwg.org §9.2.6), enough to check what a client sees. */
function parseSse(stream: string): {
  events: { type: string; data: string; lastEventId: string }[];
  lastEventId: string;
  retry?: number;
} {
  const events: { type: string; data: string; lastEventId: string }[] = [];
  let data = '',
    type = '',
    idBuffer = '',
    lastEventId = '',
    retry: number | undefined;
  for (const line of stream.split(/\r\n|\r|\n/).slice(0, -1)) {
    if (line === '') {
      lastEventId = idBuffer;
      if (data !== '')
        events.push({ type: type || 'message', data: data.endsWith('\n') ? data.slice(0, -1) : data, lastEventId });
      data = type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') type = value;
    else if (field === 'id' && !value.includes('\0')) idBuffer = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  return { events, lastEventId, retry };
}

// ---- event text ----

test('formatEvent writes id, event and one data line, ending with a blank line', () => {
  assert.equal(
    formatEvent('{"jsonrpc":"2.0","id":1,"result":{}}', 'abc_7'),
    'id: abc_7\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
  );
  assert.equal(formatEvent('{"a":1}'), 'event: message\ndata: {"a":1}\n\n');
});

test('formatEvent splits a stray line break into data lines that a client joins back', () => {
  const data = '{"a":\n1,\r\n"b":\r2}';
  assert.equal(formatEvent(data, 's_1'), 'id: s_1\nevent: message\ndata: {"a":\ndata: 1,\ndata: "b":\ndata: 2}\n\n');
  assert.deepEqual(parseSse(formatEvent(data, 's_1')).events, [
    { type: 'message', data: '{"a":\n1,\n"b":\n2}', lastEventId: 's_1' },
  ]);
});

test('an event id containing CR, LF or NUL is refused rather than written', () => {
  for (const bad of ['a\nb', 'a\rb', 'a\0b']) {
    assert.throws(() => formatEvent('{}', bad), TypeError);
    assert.throws(() => formatPriming(bad), TypeError);
  }
});

test('formatPriming is an id with empty data, with retry when given', () => {
  assert.equal(formatPriming('abc_1'), 'id: abc_1\ndata: \n\n');
  assert.equal(formatPriming('abc_1', 5000), 'id: abc_1\nretry: 5000\ndata: \n\n');
  assert.equal(formatPriming('abc_1', 0), 'id: abc_1\nretry: 0\ndata: \n\n');
  for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => formatPriming('abc_1', bad), RangeError);
  // A client records the id (for Last-Event-ID) and the retry delay; the event carries no message data.
  const seen = parseSse(formatPriming('abc_1', 5000));
  assert.equal(seen.lastEventId, 'abc_1');
  assert.equal(seen.retry, 5000);
  assert.deepEqual(
    seen.events.map((event) => event.data),
    [''],
  );
});

test('KEEP_ALIVE is a self-terminated comment: no event, last event id unchanged', () => {
  assert.equal(KEEP_ALIVE, ':\n\n');
  const stream = formatEvent('{"n":1}', 's_1') + KEEP_ALIVE + KEEP_ALIVE + formatEvent('{"n":2}');
  const seen = parseSse(stream);
  assert.deepEqual(seen.events, [
    { type: 'message', data: '{"n":1}', lastEventId: 's_1' },
    { type: 'message', data: '{"n":2}', lastEventId: 's_1' },
  ]);
  // Blank-line splitters see the keep-alive as its own block.
  assert.deepEqual(stream.split('\n\n').filter(Boolean), [
    'id: s_1\nevent: message\ndata: {"n":1}',
    ':',
    ':',
    'event: message\ndata: {"n":2}',
  ]);
});

test('SSE_HEADERS: event-stream, not cached or transformed, not buffered by proxies', () => {
  assert.deepEqual(SSE_HEADERS, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
});

// ---- stream ids and the event store ----

test('newStreamId is random url-safe text without the id separator', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newStreamId()));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/);
});

test("replay returns only the events of the id's own stream, after it, in order", () => {
  const store = new MemoryEventStore();
  const a = newStreamId(),
    b = newStreamId();
  const a1 = store.append('s1', a, '{"a":1}');
  const b1 = store.append('s1', b, '{"b":1}');
  const a2 = store.append('s1', a, '{"a":2}');
  const b2 = store.append('s1', b, '{"b":2}');
  const a3 = store.append('s1', a, '{"a":3}');
  assert.equal(new Set([a1, b1, a2, b2, a3]).size, 5);
  for (const id of [a1, a2, a3]) assert.ok(id.startsWith(`${a}_`), id);
  const [seqA1, seqB1, seqA2] = [a1, b1, a2].map((id) => Number(id.split('_')[1]));
  assert.equal(seqB1, seqA1 + 1, 'one sequence per session, shared by its streams');
  assert.equal(seqA2, seqB1 + 1);
  assert.deepEqual(store.replayAfter('s1', a1), {
    streamId: a,
    events: [
      { id: a2, data: '{"a":2}' },
      { id: a3, data: '{"a":3}' },
    ],
  });
  assert.deepEqual(store.replayAfter('s1', b1), { streamId: b, events: [{ id: b2, data: '{"b":2}' }] });
  assert.deepEqual(store.replayAfter('s1', a3), { streamId: a, events: [] });
  assert.equal(store.size, 5);
});

test("unknown, malformed and other sessions' ids replay nothing", () => {
  const store = new MemoryEventStore();
  const stream = newStreamId();
  const own = store.append('s1', stream, '{"n":1}');
  store.append('s1', stream, '{"n":2}');
  const foreign = store.append('s2', newStreamId(), '{"secret":1}');
  store.append('s2', newStreamId(), '{"secret":2}');
  const seq = Number(own.split('_')[1]);
  for (const id of [
    '',
    '_',
    `_${seq}`,
    stream,
    `${stream}_`,
    `${stream}_x`,
    `${stream}_${seq + 99}`,
    `${stream}_${seq - 1}`,
    `${stream}_1e3`,
    `${stream}_-1`,
    `${newStreamId()}_${seq}`,
    foreign,
    `${stream}_99999999999999999999999`,
  ]) {
    assert.equal(store.replayAfter('s1', id), undefined, id);
  }
  assert.equal(store.replayAfter('s3', own), undefined, 'a session without events');
  assert.equal(store.replayAfter('s2', own), undefined, 'the id of another session');
});

test("two sessions sharing a store and a stream name never replay each other's events", () => {
  const store = new MemoryEventStore();
  const shared = newStreamId();
  const one = [store.append('s1', shared, '{"s":1,"n":1}'), store.append('s1', shared, '{"s":1,"n":2}')];
  const two = [store.append('s2', shared, '{"s":2,"n":1}'), store.append('s2', shared, '{"s":2,"n":2}')];
  assert.equal(new Set([...one, ...two]).size, 4, 'sessions start their sequences at unrelated points');
  assert.deepEqual(store.replayAfter('s1', one[0]), {
    streamId: shared,
    events: [{ id: one[1], data: '{"s":1,"n":2}' }],
  });
  assert.deepEqual(store.replayAfter('s2', two[0]), {
    streamId: shared,
    events: [{ id: two[1], data: '{"s":2,"n":2}' }],
  });
  assert.equal(store.replayAfter('s2', one[0]), undefined);
  assert.equal(store.replayAfter('s1', two[0]), undefined);
});

test('stream ids that could not be parsed back out of an event id are refused', () => {
  const store = new MemoryEventStore();
  for (const bad of ['', 'a_b', 'a b', 'a\nb', '1/2'])
    assert.throws(() => store.append('s1', bad, '{}'), TypeError, bad);
  assert.equal(store.size, 0);
});

test('a priming event (empty data) can be resumed from but is never replayed', () => {
  const store = new MemoryEventStore();
  const post = newStreamId();
  const priming = store.append('s1', post, '');
  const first = store.append('s1', post, '{"n":1}');
  const again = store.append('s1', post, '');
  const second = store.append('s1', post, '{"n":2}');
  assert.deepEqual(store.replayAfter('s1', priming), {
    streamId: post,
    events: [
      { id: first, data: '{"n":1}' },
      { id: second, data: '{"n":2}' },
    ],
  });
  assert.deepEqual(store.replayAfter('s1', again), { streamId: post, events: [{ id: second, data: '{"n":2}' }] });
});

test('each session keeps its newest maxEventsPerSession events; an evicted id replays nothing', () => {
  const store = new MemoryEventStore({ maxEventsPerSession: 3 });
  const stream = newStreamId();
  const ids = [1, 2, 3, 4, 5].map((n) => store.append('s1', stream, `{"n":${n}}`));
  const other = store.append('s2', stream, '{"other":1}');
  assert.equal(store.size, 4);
  assert.equal(store.replayAfter('s1', ids[0]), undefined);
  assert.equal(store.replayAfter('s1', ids[1]), undefined);
  assert.deepEqual(store.replayAfter('s1', ids[2]), {
    streamId: stream,
    events: [
      { id: ids[3], data: '{"n":4}' },
      { id: ids[4], data: '{"n":5}' },
    ],
  });
  assert.deepEqual(store.replayAfter('s2', other), { streamId: stream, events: [] }, 'the bound is per session');
});

test("a session over its bound evicts from its stream holding the most events: a chatty stream never evicts a smaller one's", () => {
  const store = new MemoryEventStore({ maxEventsPerSession: 4 });
  const post = newStreamId(),
    chatty = newStreamId();
  const priming = store.append('s1', post, '');
  const progress = store.append('s1', post, '{"progress":1}');
  const broadcasts = Array.from({ length: 10 }, (_, n) => store.append('s1', chatty, `{"b":${n}}`));
  assert.equal(store.size, 4);
  assert.deepEqual(store.replayAfter('s1', priming), {
    streamId: post,
    events: [{ id: progress, data: '{"progress":1}' }],
  });
  assert.deepEqual(store.replayAfter('s1', broadcasts[8]), {
    streamId: chatty,
    events: [{ id: broadcasts[9], data: '{"b":9}' }],
  });
  assert.equal(store.replayAfter('s1', broadcasts[7]), undefined, 'the chatty stream lost its own oldest');
  // Once the POST stream is the largest, it loses its own oldest (its priming event), never the chatty one's.
  const answer = store.append('s1', post, '{"answer":1}');
  assert.equal(store.replayAfter('s1', priming), undefined);
  assert.deepEqual(store.replayAfter('s1', progress), {
    streamId: post,
    events: [{ id: answer, data: '{"answer":1}' }],
  });
  assert.deepEqual(store.replayAfter('s1', broadcasts[8]), {
    streamId: chatty,
    events: [{ id: broadcasts[9], data: '{"b":9}' }],
  });
  // Streams of equal size: the one holding events first pays; a stream whose last event goes is forgotten.
  const single = newStreamId();
  const only = store.append('s1', single, '{"single":1}');
  assert.equal(store.replayAfter('s1', progress), undefined);
  store.append('s1', newStreamId(), '{"other":1}');
  assert.equal(store.replayAfter('s1', broadcasts[8]), undefined, 'the largest stream pays first');
  store.append('s1', newStreamId(), '{"other":2}');
  assert.equal(store.replayAfter('s1', answer), undefined, 'the POST stream is gone');
  assert.deepEqual(store.replayAfter('s1', only), { streamId: single, events: [] });
  assert.equal(store.size, 4);
});

test('beyond maxSessions the least recently used session is dropped', () => {
  const store = new MemoryEventStore({ maxSessions: 2 });
  const stream = newStreamId();
  const first = store.append('s1', stream, '{"s":1}');
  const second = store.append('s2', stream, '{"s":2}');
  assert.ok(store.replayAfter('s1', first), 'replay counts as use: s2 is now the oldest');
  const third = store.append('s3', stream, '{"s":3}');
  assert.equal(store.size, 2);
  assert.equal(store.replayAfter('s2', second), undefined);
  assert.deepEqual(store.replayAfter('s1', first), { streamId: stream, events: [] });
  store.append('s1', stream, '{"s":1,"n":2}'); // s3 is now the oldest
  store.append('s4', stream, '{"s":4}');
  assert.equal(store.replayAfter('s3', third), undefined);
  assert.equal(store.size, 3);
});

test('dropSession forgets the session and only it; a re-created session does not reissue old ids', () => {
  const store = new MemoryEventStore();
  const stream = newStreamId();
  const old = [store.append('s1', stream, '{"n":1}'), store.append('s1', stream, '{"n":2}')];
  const kept = store.append('s2', stream, '{"k":1}');
  store.dropSession('s1');
  store.dropSession('s1');
  store.dropSession('never');
  assert.equal(store.size, 1);
  assert.equal(store.replayAfter('s1', old[0]), undefined);
  assert.deepEqual(store.replayAfter('s2', kept), { streamId: stream, events: [] });
  const fresh = [store.append('s1', stream, '{"new":1}'), store.append('s1', stream, '{"new":2}')];
  assert.ok(!fresh.some((id) => old.includes(id)), `${fresh} reuse ${old}`);
  assert.equal(store.replayAfter('s1', old[0]), undefined);
});

test('store bounds must be positive integers', () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => new MemoryEventStore({ maxEventsPerSession: bad }), RangeError);
    assert.throws(() => new MemoryEventStore({ maxSessions: bad }), RangeError);
  }
});

// ---- SseWriter ----

test('SseWriter writes events in order, writes no headers, and end() ends the response once', async () => {
  const response = new PassThrough();
  const out = text(response);
  const baseline = [response.listenerCount('close'), response.listenerCount('error')];
  const writer = new SseWriter(response);
  let closes = 0;
  writer.onClose(() => closes++);
  const events = [formatPriming('s_1'), formatEvent('{"n":1}', 's_2'), formatEvent('{"n":2}', 's_3')];
  for (const event of events) assert.equal(writer.send(event), true);
  writer.end();
  writer.end();
  assert.equal(writer.closed, true);
  assert.equal(writer.send(formatEvent('{"late":1}')), false);
  assert.equal(await out, events.join(''));
  assert.equal(closes, 1);
  assert.deepEqual([response.listenerCount('close'), response.listenerCount('error')], baseline);
});

test('keep-alive comments are written while the stream is open', async () => {
  const response = new PassThrough({ encoding: 'utf8' });
  const writer = new SseWriter(response, { keepAliveMs: 5 });
  writer.send(formatEvent('{"n":1}'));
  // The writer's timer is unref'd (it must never hold a process open), so something else keeps this test alive.
  const hold = setInterval(() => {}, 60_000);
  try {
    let seen = '';
    while (!seen.includes(KEEP_ALIVE)) seen += (await once(response, 'data'))[0];
    assert.ok(seen.startsWith(formatEvent('{"n":1}') + KEEP_ALIVE), seen);
  } finally {
    clearInterval(hold);
    writer.end();
  }
});

test('end() clears the keep-alive timer: no comment after it', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const response = new PassThrough({ encoding: 'utf8' });
  const writer = new SseWriter(response, { keepAliveMs: 100 });
  t.mock.timers.tick(100);
  assert.equal(response.read(), KEEP_ALIVE);
  t.mock.timers.tick(250);
  assert.equal(response.read(), KEEP_ALIVE + KEEP_ALIVE);
  writer.end();
  writer.end();
  t.mock.timers.tick(1000);
  assert.equal(response.read(), null);
  assert.equal(response.writableEnded, true);
});

test('end() and a peer disconnect both clear the keep-alive interval (it would otherwise tick forever)', (t) => {
  const started = t.mock.method(globalThis, 'setInterval');
  const cleared = t.mock.method(globalThis, 'clearInterval');
  const finishes: [string, (writer: SseWriter, response: PassThrough) => void][] = [
    ['end()', (writer) => writer.end()],
    ['peer close', (_, response) => response.emit('close')],
  ];
  for (const [name, finish] of finishes) {
    const response = new PassThrough();
    const writer = new SseWriter(response, { keepAliveMs: 60_000 });
    const handle = started.mock.calls.at(-1)?.result;
    assert.ok(handle, name);
    finish(writer, response);
    assert.ok(
      cleared.mock.calls.some((call) => call.arguments[0] === handle),
      name,
    );
  }
});

test('keep-alive waits while the response is backed up', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const response = new PassThrough({ highWaterMark: 8 });
  const writer = new SseWriter(response, { keepAliveMs: 10 });
  assert.equal(writer.send(formatEvent('{"big":"payload"}')), false);
  const backlog = response.writableLength;
  t.mock.timers.tick(50);
  assert.equal(response.writableLength, backlog);
  writer.end();
});

test('send reports backpressure, and true again once the response drained', async () => {
  const response = new PassThrough({ highWaterMark: 16 });
  const writer = new SseWriter(response, { keepAliveMs: 0 });
  assert.equal(writer.send(':\n\n'), true);
  assert.equal(writer.send(formatEvent('{"n":1}', 's_1')), false);
  assert.equal(writer.closed, false);
  const drained = once(response, 'drain');
  response.resume();
  await drained;
  assert.equal(writer.send(':\n\n'), true);
  writer.end();
});

test('a peer close stops all writes and fires onClose exactly once', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const response = new PassThrough({ encoding: 'utf8' });
  const writer = new SseWriter(response, { keepAliveMs: 10 });
  const calls: string[] = [];
  writer.onClose(() => calls.push('first'));
  writer.onClose(() => calls.push('second'));
  assert.equal(writer.send('a'), true);
  response.emit('close');
  response.emit('close');
  assert.equal(writer.closed, true);
  assert.deepEqual(calls, ['first', 'second']);
  assert.equal(writer.send('b'), false);
  t.mock.timers.tick(100);
  writer.end();
  assert.equal(response.writableEnded, false, 'end() after a disconnect writes nothing');
  assert.equal(response.read(), 'a');
  writer.onClose(() => calls.push('late'));
  assert.deepEqual(calls, ['first', 'second', 'late']);
  assert.equal(response.listenerCount('close'), 0);
  assert.equal(response.listenerCount('error'), 0);
});

test('a response error counts as a disconnect and is not rethrown', async () => {
  const response = new PassThrough();
  const writer = new SseWriter(response, { keepAliveMs: 0 });
  let closes = 0;
  writer.onClose(() => closes++);
  const gone = new Promise((resolve) => response.once('close', resolve)); // not once(): it would absorb the error
  response.destroy(new Error('socket hang up'));
  await gone;
  assert.equal(closes, 1);
  assert.equal(writer.send('x'), false);
});

test('a writer over an already destroyed response is closed from the start', () => {
  const response = new PassThrough();
  response.destroy();
  const writer = new SseWriter(response);
  assert.equal(writer.closed, true);
  assert.equal(writer.send('x'), false);
  let closes = 0;
  writer.onClose(() => closes++);
  assert.equal(closes, 1);
  assert.equal(response.listenerCount('close'), 0);
});

test('over node:http: the client sees SSE headers and events, and its disconnect closes the writer', async () => {
  const closed = deferred<SseWriter>();
  const server = createServer((_, response) => {
    response.writeHead(200, SSE_HEADERS);
    const writer = new SseWriter(response, { keepAliveMs: 60_000 });
    writer.onClose(() => closed.resolve(writer));
    writer.send(formatPriming('s_1', 1000));
    writer.send(formatEvent('{"n":1}', 's_2'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const request = get({ host: '127.0.0.1', port, path: '/mcp', headers: { accept: 'text/event-stream' } });
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/event-stream');
    assert.equal(response.headers['cache-control'], 'no-cache, no-transform');
    assert.equal(response.headers['x-accel-buffering'], 'no');
    response.setEncoding('utf8');
    const expected = formatPriming('s_1', 1000) + formatEvent('{"n":1}', 's_2');
    let seen = '';
    while (seen.length < expected.length) seen += (await once(response, 'data'))[0];
    assert.equal(seen, expected);
    request.destroy();
    const writer = await closed.promise;
    assert.equal(writer.closed, true);
    assert.equal(writer.send(formatEvent('{"n":2}')), false);
  } finally {
    server.close();
  }
});
