// The Redis add-on (redis/redis.ts) on a real redis-server, over both client libraries' glue (node-redis and ioredis):
// the session store (sliding TTL, corrupt records, watch in store order), the event store on Redis Streams (ids,
// replay, hostile ids, dropSession, TTLs), follow across engines (the early buffer), the change bus (fan-out, the
// resync after a reconnect, what the server refuses), the options; then the core's change-bus seams without Redis.
// Two engines on one Redis stand for two processes. The cross-process HTTP proof is test/scale-out-redis.test.ts.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { type ChangeBus, type ChangeEvent, createServer, type Logger } from '../core.ts';
import {
  MAX_RELAYED_BYTES,
  MAX_RELAYED_CANCEL_BYTES,
  type SharedSessionStore,
  SharedSessions,
} from '../http/shared-sessions.ts';
import { newStreamId } from '../http/sse.ts';
import type { SessionRecord } from '../http.ts';
import { serveHttp } from '../http.ts';
import type { JsonRpcNotification, JsonRpcResponse } from '../jsonrpc.ts';
import { utf8 } from '../jsonrpc.ts';
import { createRedisEngine, type RedisEngine, type RedisEngineOptions, type RedisLink } from '../redis/redis.ts';
import { createTasksExtension } from '../tasks/tasks-extension.ts';
import { deferred, type Frame, WireClient } from './harness.ts';
import { type Cleanup, findBinary, needBinary, type RedisService, startRedis } from './services.ts';
import { SseReader } from './sse-reader.ts';

const T = { timeout: 20_000 }; // a hang guard only; no assertion depends on time

let redis: RedisService | undefined;
const stops: Array<() => unknown> = [];
const shared: Cleanup = { after: (stop) => void stops.push(stop) };

before(async () => {
  const binary = findBinary('redis-server');
  if (binary !== undefined) redis = await startRedis(shared, binary); // else each test skips (needBinary)
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
});

/** A connected glue: the link, a plain command on its command connection, and what the link sent. */
interface Linked {
  link: RedisLink;
  command(args: string[]): Promise<unknown>;
}

/** The glue of one client library, as docs would show it: a command client and a subscriber connection. */
interface Glue {
  name: string;
  connect(t: TestContext, url: string): Promise<Linked>;
}

const GLUES: Glue[] = [
  {
    name: 'node-redis',
    async connect(t, url) {
      const client = createClient({ url, disableOfflineQueue: true });
      const subscriber = client.duplicate();
      client.on('error', () => {}); // a killed connection reconnects; its error is expected here
      subscriber.on('error', () => {});
      await Promise.all([client.connect(), subscriber.connect()]);
      t.after(() => Promise.all([client.destroy(), subscriber.destroy()]));
      const link: RedisLink = {
        send: (command) => client.sendCommand(command),
        subscribe: async (channel, onMessage, onResubscribed) => {
          subscriber.on('ready', onResubscribed);
          await subscriber.subscribe(channel, onMessage);
        },
      };
      return { link, command: (args) => client.sendCommand(args) };
    },
  },
  {
    name: 'ioredis',
    async connect(t, url) {
      const client = new Redis(url, { enableOfflineQueue: false });
      const subscriber = new Redis(url, { enableOfflineQueue: false });
      client.on('error', () => {});
      subscriber.on('error', () => {});
      await Promise.all([once(client, 'ready'), once(subscriber, 'ready')]);
      t.after(() => {
        client.disconnect();
        subscriber.disconnect();
      });
      const link: RedisLink = {
        send: (command) => client.call(command[0]!, ...command.slice(1)),
        subscribe: async (channel, onMessage, onResubscribed) => {
          subscriber.on('message', (from: string, message: string) => {
            if (from === channel) onMessage(message);
          });
          subscriber.on('ready', onResubscribed);
          await subscriber.subscribe(channel);
        },
      };
      return { link, command: (args) => client.call(args[0]!, ...args.slice(1)) };
    },
  },
];

let prefixes = 0;

/** A prefix no other test uses, so tests share the one Redis without seeing each other's keys. */
function freshPrefix(): string {
  prefixes += 1;
  return `t${prefixes}-${newStreamId().slice(0, 6)}:`;
}

/** A link that records every command and lets a test run code after a command's reply, before the engine sees it. */
interface Tapped {
  link: RedisLink;
  sent: string[][];
  /** Runs after each reply (awaited before the engine gets it). */
  afterReply: ((command: string[], reply: unknown) => Promise<void> | void) | undefined;
  /** Called with each message the link hands on (after the engine got it). */
  onMessage: ((channel: string, message: string) => void) | undefined;
}

/** Wraps `link` so that a test sees every command and message and can act between a reply and the engine. */
function tap(link: RedisLink): Tapped {
  const tapped: Tapped = {
    sent: [],
    afterReply: undefined,
    onMessage: undefined,
    link: {
      send: async (command) => {
        tapped.sent.push(command);
        const reply = await link.send(command);
        await tapped.afterReply?.(command, reply);
        return reply;
      },
      subscribe: (channel, onMessage, onResubscribed) =>
        link.subscribe(
          channel,
          (message) => {
            onMessage(message);
            tapped.onMessage?.(channel, message);
          },
          onResubscribed,
        ),
    },
  };
  return tapped;
}

/** Items pushed as they come, and a wait for the first `n` of them. */
function collector<T>(): { items: T[]; push(item: T): void; first(n: number): Promise<T[]> } {
  const items: T[] = [];
  const waiters: { n: number; resolve(items: T[]): void }[] = [];
  return {
    items,
    push(item) {
      items.push(item);
      for (const waiter of [...waiters]) {
        if (items.length >= waiter.n) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(items.slice(0, waiter.n));
        }
      }
    },
    first(n) {
      if (items.length >= n) return Promise.resolve(items.slice(0, n));
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

interface Process {
  engine: RedisEngine;
  tapped: Tapped;
  command(args: string[]): Promise<unknown>;
}

/** One "process": its own connections through `glue`, an engine over them (tapped) with `prefix`. */
async function engineProcess(
  t: TestContext,
  glue: Glue,
  prefix: string,
  options: RedisEngineOptions = {},
): Promise<Process> {
  const { link, command } = await glue.connect(t, redis!.url);
  const tapped = tap(link);
  return { engine: createRedisEngine(tapped.link, { prefix, ...options }), tapped, command };
}

/** Two processes on the same Redis and prefix, or undefined when redis-server is missing (skipped). */
async function two(
  t: TestContext,
  glue: Glue,
  options: RedisEngineOptions = {},
): Promise<{ prefix: string; a: Process; b: Process } | undefined> {
  if (needBinary(t, 'redis-server') === undefined) return undefined;
  const prefix = freshPrefix();
  return { prefix, a: await engineProcess(t, glue, prefix, options), b: await engineProcess(t, glue, prefix, options) };
}

/** A 2025 session record, with a log level when given. */
function record(level?: string): SessionRecord {
  return {
    protocolVersion: '2025-11-25',
    clientCapabilities: { roots: {} },
    clientInfo: { name: 'c', version: '1' },
    ...(level === undefined ? {} : { logLevel: level }),
  } as SessionRecord;
}

/** Keys under `prefix` with their PTTL, sorted. */
async function keysOf(p: Process, prefix: string): Promise<[string, number][]> {
  const keys = ((await p.command(['KEYS', `${prefix}*`])) as string[]).map(String).sort();
  return Promise.all(keys.map(async (key) => [key, Number(await p.command(['PTTL', key]))] as [string, number]));
}

/**
 * Resolves once Redis counts one subscriber of `channel` (PUBSUB NUMSUB): Redis's own answer is the signal, asked
 * again after each reply; the test's timeout bounds it.
 */
async function subscribed(p: Process, channel: string): Promise<void> {
  for (;;) {
    const [, count] = (await p.command(['PUBSUB', 'NUMSUB', channel])) as [string, number];
    if (Number(count) === 1) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

for (const glue of GLUES) {
  // -------------------------------------------------------------------------------------------------------------
  // Session store

  test(`${glue.name}: a saved record loads back equal, with a TTL; an unknown id loads undefined`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a, b } = fleet;
    await a.engine.sessions.save('s1', record());
    await a.engine.sessions.save('s1', record('info')); // a state change of the existing record
    assert.deepEqual(await b.engine.sessions.load('s1'), record('info'));
    const ttl = Number(await a.command(['PTTL', `${prefix}session:s1`]));
    assert.ok(ttl > 0 && ttl <= 30 * 60_000, `PTTL ${ttl}`);
    assert.equal(await b.engine.sessions.load('nobody'), undefined);
  });

  test(`${glue.name}: a load renews the record's TTL to sessionTtlMs (a sliding TTL)`, T, async (t) => {
    const fleet = await two(t, glue, { sessionTtlMs: 60_000 });
    if (fleet === undefined) return;
    const { prefix, a, b } = fleet;
    const key = `${prefix}session:s1`;
    await a.engine.sessions.save('s1', record());
    assert.equal(await a.command(['PEXPIRE', key, '500']), 1); // as if the session had been idle for most of its TTL
    assert.ok(Number(await a.command(['PTTL', key])) <= 500);
    await b.engine.sessions.load('s1');
    const ttl = Number(await a.command(['PTTL', key]));
    assert.ok(ttl > 50_000 && ttl <= 60_000, `PTTL after load ${ttl}`);
  });

  test(`${glue.name}: a corrupt record rejects its load instead of passing for a session`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a } = fleet;
    for (const [text, kind] of [
      ['{"capabilities":{}}', TypeError],
      ['null', TypeError],
      ['"2025-11-25"', TypeError],
      ['{"protocolVersion":7}', TypeError],
      ['not json', SyntaxError],
    ] as const) {
      await a.command(['SET', `${prefix}session:bad`, text]);
      await assert.rejects(Promise.resolve(a.engine.sessions.load('bad')), kind, text);
    }
  });

  test(
    `${glue.name}: every watcher gets each save and removal, in store order; remove deletes the record`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const seenA = collector<[string, SessionRecord | undefined]>();
      const seenB = collector<[string, SessionRecord | undefined]>();
      await a.engine.sessions.watch!(
        (id, r) => seenA.push([id, r]),
        () => {},
        () => {},
      );
      await b.engine.sessions.watch!(
        (id, r) => seenB.push([id, r]),
        () => {},
        () => {},
      );
      await a.engine.sessions.save('s1', record());
      await b.engine.sessions.save('s1', record('debug'));
      await a.engine.sessions.save('s2', record());
      await a.engine.sessions.save('s2', record('error'));
      await b.engine.sessions.remove('s1');
      const expected: [string, SessionRecord | undefined][] = [
        ['s1', record()],
        ['s1', record('debug')],
        ['s2', record()],
        ['s2', record('error')],
        ['s1', undefined],
      ];
      assert.deepEqual(await seenA.first(5), expected);
      assert.deepEqual(await seenB.first(5), expected);
      // A state change never brings back a removed session: it rejects, and announces nothing.
      await assert.rejects(
        Promise.resolve(a.engine.sessions.save('s1', record('info'))),
        /session s1 ended before its state was saved/,
      );
      assert.equal(await a.command(['EXISTS', `${prefix}session:s1`]), 0);
      assert.equal(await a.command(['EXISTS', `${prefix}session:s1`]), 0);
      assert.equal(await a.engine.sessions.load('s1'), undefined);
      assert.deepEqual(await a.engine.sessions.load('s2'), record('error'));
    },
  );

  test(`${glue.name}: messages on the sessions channel that are not announcements are ignored`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a, b } = fleet;
    const seen = collector<[string, SessionRecord | undefined]>();
    await b.engine.sessions.watch!(
      (id, r) => seen.push([id, r]),
      () => assert.fail('nothing was relayed'),
      () => assert.fail('no GET stream was held'),
    );
    for (const message of ['not json', 'null', '5', '{"record":{}}', '{"id":5}', '[]'])
      await a.command(['PUBLISH', `${prefix}sessions`, message]);
    await a.engine.sessions.save('s1', record()); // the marker: published after the malformed ones
    assert.deepEqual(await seen.first(1), [['s1', record()]]);
    assert.equal(seen.items.length, 1);
  });

  test(
    `${glue.name}: a relayed message reaches only the process it names, on its own channel; loads and saves list the copies`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const c = await engineProcess(t, glue, prefix);
      const toB = collector<[string, unknown]>();
      const toC = collector<[string, unknown]>();
      for (const [p, seen, process] of [
        [b, toB, '2'],
        [c, toC, '3'],
      ] as const)
        await p.engine.sessions.watch!(
          () => {}, // the save and the removal below
          (id, message) => seen.push([id, message]),
          () => assert.fail('a relay holds no GET stream'),
          process,
        );
      await a.engine.sessions.save('s1', record(), '1');
      assert.deepEqual(await b.engine.sessions.load('s1', '2'), { ...record(), copies: ['1', '2'] });
      const response = { jsonrpc: '2.0' as const, id: 7, result: { action: 'accept' } };
      const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: 'r' } };
      await a.engine.sessions.relay!('s1', response, '2');
      await a.engine.sessions.relay!('s1', cancel, '3');
      assert.deepEqual(await toB.first(1), [['s1', response]]);
      assert.deepEqual(await toC.first(1), [['s1', cancel]], 'c got only what was relayed to it');
      // Another process's inbox channel is not this one's: a malformed message there is ignored too.
      await a.command(['PUBLISH', `${prefix}session-inbox:2`, 'not json']);
      await a.command(['PUBLISH', `${prefix}session-inbox:2`, '{"id":"s1"}']);
      await a.engine.sessions.relay!('s1', cancel, '2');
      assert.deepEqual(await toB.first(2), [
        ['s1', response],
        ['s1', cancel],
      ]);
      assert.equal(toC.items.length, 1);
      assert.ok(Number(await a.command(['PTTL', `${prefix}session-copies:s1`])) > 0);
      await a.engine.sessions.remove('s1');
      assert.equal(Number(await a.command(['EXISTS', `${prefix}session-copies:s1`])), 0);
    },
  );

  test(
    `${glue.name}: a GET stream's holder is kept apart from the record: announced as held, loaded with it, never resurrecting`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { sessionTtlMs: 60_000 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const held = collector<[string, unknown]>();
      const changed = collector<string>();
      await b.engine.sessions.watch!(
        (id) => changed.push(id),
        () => {},
        (id, holder) => held.push([id, holder]),
      );
      await a.engine.sessions.save('g1', record());
      const holder = { id: 'get-abc', process: 'p1' };
      await a.engine.sessions.holdGetStream!('g1', holder);
      assert.deepEqual(await held.first(1), [['g1', holder]]);
      // A later state save (with no GET stream in it) keeps the holder: neither overwrites the other.
      await b.engine.sessions.save('g1', record('info'));
      assert.deepEqual(await a.engine.sessions.load('g1'), { ...record('info'), getStream: holder });
      assert.ok(Number(await a.command(['PTTL', `${prefix}session-get:g1`])) > 0);
      // A hold for a session DELETE removed stores nothing and announces nothing.
      await a.engine.sessions.remove('g1');
      assert.equal(Number(await a.command(['EXISTS', `${prefix}session-get:g1`])), 0);
      await a.engine.sessions.holdGetStream!('g1', { id: 'get-late', process: 'p2' });
      assert.equal(Number(await a.command(['EXISTS', `${prefix}session-get:g1`])), 0);
      await a.engine.sessions.save('marker', record());
      assert.deepEqual(await changed.first(4), ['g1', 'g1', 'g1', 'marker']);
      assert.equal(held.items.length, 1);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Event store

  test(`${glue.name}: event ids are <stream>_<ms>-<seq>; a replay after the priming event skips it`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { a, b } = fleet;
    const stream = newStreamId();
    const priming = await a.engine.eventStore.append('s1', stream, '');
    const e1 = await a.engine.eventStore.append('s1', stream, 'one');
    const middle = await a.engine.eventStore.append('s1', stream, '');
    const e2 = await a.engine.eventStore.append('s1', stream, 'two');
    for (const id of [priming, e1, middle, e2]) assert.match(id, new RegExp(`^${stream}_[0-9]+-[0-9]+$`));
    assert.deepEqual(await b.engine.eventStore.replayAfter('s1', priming), {
      streamId: stream,
      events: [
        { id: e1, data: 'one' },
        { id: e2, data: 'two' },
      ],
    });
    assert.deepEqual(await b.engine.eventStore.replayAfter('s1', e1), {
      streamId: stream,
      events: [{ id: e2, data: 'two' }],
    });
    assert.deepEqual(await b.engine.eventStore.replayAfter('s1', e2), { streamId: stream, events: [] });
  });

  test(`${glue.name}: a replay with another session's, an unknown or a trimmed id is undefined`, T, async (t) => {
    const fleet = await two(t, glue, { maxEventsPerSession: 2 });
    if (fleet === undefined) return;
    const { a, b } = fleet;
    const stream = newStreamId();
    const ids: string[] = [];
    for (const data of ['1', '2', '3', '4']) ids.push(await a.engine.eventStore.append('s1', stream, data));
    assert.equal(await b.engine.eventStore.replayAfter('s2', ids[3]!), undefined); // another session's
    assert.equal(await b.engine.eventStore.replayAfter('s1', `${stream}_1-0`), undefined); // never stored
    assert.equal(await b.engine.eventStore.replayAfter('s1', `${newStreamId()}_1-0`), undefined); // no such stream
    assert.equal(await b.engine.eventStore.replayAfter('s1', ids[0]!), undefined); // trimmed
    assert.equal(await b.engine.eventStore.replayAfter('s1', ids[1]!), undefined); // trimmed
    assert.deepEqual(await b.engine.eventStore.replayAfter('s1', ids[2]!), {
      streamId: stream,
      events: [{ id: ids[3], data: '4' }],
    });
  });

  test(`${glue.name}: hostile Last-Event-IDs are undefined and never reach Redis as a range`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { b } = fleet;
    await b.engine.eventStore.append('s1', 'abc', 'x');
    b.tapped.sent.length = 0;
    for (const id of ['-', '+', 'abc_+', 'abc_-', 'abc_123', '_1-0', 'ab c_1-0', 'abc', '', 'abc_1-0-0', 'a:b_1-0'])
      assert.equal(await b.engine.eventStore.replayAfter('s1', id), undefined, JSON.stringify(id));
    assert.deepEqual(b.tapped.sent, []);
  });

  test(`${glue.name}: an append with an invalid stream id throws and stores nothing`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a } = fleet;
    for (const stream of ['', 'a_b', 'a b', 'a:b', '*'])
      await assert.rejects(Promise.resolve(a.engine.eventStore.append('s1', stream, 'x')), TypeError, stream);
    assert.deepEqual(await keysOf(a, prefix), []);
  });

  test(
    `${glue.name}: dropSession deletes every key of the session and only that session's; every key has a TTL`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      await a.engine.eventStore.append('s1', 'x1', 'a');
      await a.engine.eventStore.append('s1', 'get-x2', 'b');
      await b.engine.eventStore.append('s2', 'y1', 'c');
      await a.engine.sessions.save('s1', record());
      const keys = await keysOf(a, prefix);
      assert.deepEqual(
        keys.map(([key]) => key),
        [
          `${prefix}events-count:s1`,
          `${prefix}events-count:s2`,
          `${prefix}events-of:s1`,
          `${prefix}events-of:s2`,
          `${prefix}events-until:s1`,
          `${prefix}events-until:s2`,
          `${prefix}events:s1:get-x2`,
          `${prefix}events:s1:x1`,
          `${prefix}events:s2:y1`,
          `${prefix}session:s1`,
        ],
      );
      for (const [key, ttl] of keys) assert.ok(ttl > 0, `${key} PTTL ${ttl}`);
      await b.engine.eventStore.dropSession('s1');
      assert.deepEqual(
        (await keysOf(a, prefix)).map(([key]) => key),
        [
          `${prefix}events-count:s2`,
          `${prefix}events-of:s2`,
          `${prefix}events-until:s2`,
          `${prefix}events:s2:y1`,
          `${prefix}session:s1`,
        ],
      );
    },
  );

  test(
    `${glue.name}: a session's events are bounded over all its streams: the largest loses its oldest, never a POST stream's answer`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxEventsPerSession: 4 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const post = newStreamId();
      const priming = await a.engine.eventStore.append('s1', post, '');
      const answer = await a.engine.eventStore.append('s1', post, '{"jsonrpc":"2.0","id":1,"result":{}}', true);
      // A GET stream storing broadcasts while no client is attached, past the session's bound.
      const ids: string[] = [];
      for (const data of ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'])
        ids.push(await b.engine.eventStore.append('s1', 'get-g', data));
      await a.engine.eventStore.append('s2', post, 'another session, its own bound');
      assert.deepEqual(await b.engine.eventStore.replayAfter('s1', priming), {
        streamId: post,
        events: [{ id: answer, data: '{"jsonrpc":"2.0","id":1,"result":{}}' }],
      });
      assert.equal(await a.engine.eventStore.replayAfter('s1', ids[3]!), undefined, 'b4 was evicted');
      assert.deepEqual(await a.engine.eventStore.replayAfter('s1', ids[4]!), {
        streamId: 'get-g',
        events: [{ id: ids[5], data: 'b6' }],
      });
      assert.equal(Number(await a.command(['XLEN', `${prefix}events:s1:get-g`])), 2);
      assert.deepEqual(
        ((await a.command(['ZRANGE', `${prefix}events-of:s1`, '0', '-1'])) as string[]).sort(),
        [post, 'get-g'].sort(),
      );
      for (const stream of [post, 'get-g'])
        assert.equal(Math.floor(Number(await a.command(['ZSCORE', `${prefix}events-of:s1`, stream]))), 2, stream);
      assert.equal(String(await a.command(['HGET', `${prefix}events-count:s1`, 'total'])), '4');
      assert.equal(String(await a.command(['HGET', `${prefix}events-count:s2`, 'total'])), '1');
    },
  );

  test(
    `${glue.name}: a POST stream's answer cuts its TTL to 60 s; a stream whose time passed leaves the session's count`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a } = fleet;
      const post = newStreamId();
      await a.engine.eventStore.append('s1', post, '');
      const open = Number(await a.command(['PTTL', `${prefix}events:s1:${post}`]));
      assert.ok(open > 60_000, `an open POST stream lives as the session: PTTL ${open}`);
      await a.engine.eventStore.append('s1', post, 'answer', true);
      const answered = Number(await a.command(['PTTL', `${prefix}events:s1:${post}`]));
      assert.ok(answered > 0 && answered <= 60_000, `PTTL once answered ${answered}`);
      await a.engine.eventStore.append('s1', 'get-g', 'b1');
      assert.ok(Number(await a.command(['PTTL', `${prefix}events:s1:get-g`])) > 60_000);
      // As if its 60 s had passed (the key's own expiry is Redis's): the next append takes it out of the count.
      await a.command(['ZADD', `${prefix}events-until:s1`, '0', post]);
      await a.engine.eventStore.append('s1', 'get-g', 'b2');
      assert.equal(Number(await a.command(['EXISTS', `${prefix}events:s1:${post}`])), 0);
      assert.deepEqual(await a.command(['ZRANGE', `${prefix}events-of:s1`, '0', '-1']), ['get-g']);
      assert.deepEqual(await a.command(['ZRANGE', `${prefix}events-until:s1`, '0', '-1']), ['get-g']);
      assert.equal(String(await a.command(['HGET', `${prefix}events-count:s1`, 'total'])), '2');
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // follow

  test(
    `${glue.name}: follow delivers what another engine stored after afterId, before and after it began, once each, in order, never priming events`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const stream = newStreamId();
      const priming = await a.engine.eventStore.append('s1', stream, '');
      const before = await a.engine.eventStore.append('s1', stream, 'stored before the follow'); // in the stream only
      const got = collector<{ id: string; data: string }>();
      const following = b.engine.eventStore.follow!('s1', stream, priming, (event) => got.push(event));
      await following.ready;
      assert.deepEqual(got.items, [{ id: before, data: 'stored before the follow' }]);
      got.items.length = 0;
      assert.deepEqual(
        await a.command(['SMEMBERS', `${prefix}followers:s1:${stream}`]).then((m) => (m as string[]).length),
        1,
      );
      const ids: string[] = [];
      for (const data of ['one', '', 'two', 'three']) ids.push(await a.engine.eventStore.append('s1', stream, data));
      await a.engine.eventStore.append('s1', newStreamId(), 'other stream'); // not this follower's
      await a.engine.eventStore.append('s2', stream, 'other session'); // nor this
      const last = await a.engine.eventStore.append('s1', stream, 'four');
      assert.deepEqual(await got.first(4), [
        { id: ids[0], data: 'one' },
        { id: ids[2], data: 'two' },
        { id: ids[3], data: 'three' },
        { id: last, data: 'four' },
      ]);
      assert.equal(got.items.length, 4);
      following.stop();
    },
  );

  test(
    `${glue.name}: events stored while a follow starts are neither lost nor duplicated (the early buffer)`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { a, b } = fleet;
      const stream = newStreamId();
      const priming = await a.engine.eventStore.append('s1', stream, '');
      const inbox = collector<string>();
      b.tapped.onMessage = (channel, message) => {
        if (channel.includes('inbox:')) inbox.push(message);
      };
      const ids: string[] = [];
      // After the registration: e1 is both in the stream the follower reads and in its inbox (before the read).
      // After the read: e2 is only in the inbox (and held while the read is handed on).
      b.tapped.afterReply = async (command) => {
        if (command[0] === 'EVAL' && command[1]!.includes("'SADD', KEYS[1], ARGV[1]") && ids.length === 0) {
          ids.push(await a.engine.eventStore.append('s1', stream, 'e1'));
          await inbox.first(1);
        } else if (command[0] === 'XRANGE' && ids.length === 1) {
          ids.push(await a.engine.eventStore.append('s1', stream, 'e2'));
          await inbox.first(2);
        }
      };
      const got = collector<{ id: string; data: string }>();
      const following = b.engine.eventStore.follow!('s1', stream, priming, (event) => got.push(event));
      await following.ready;
      b.tapped.afterReply = undefined;
      assert.equal(ids.length, 2, 'both appends ran inside the start of the follow');
      ids.push(await a.engine.eventStore.append('s1', stream, 'e3'));
      assert.deepEqual(await got.first(3), [
        { id: ids[0], data: 'e1' },
        { id: ids[1], data: 'e2' },
        { id: ids[2], data: 'e3' },
      ]);
      const marker = await a.engine.eventStore.append('s1', stream, 'e4');
      assert.deepEqual((await got.first(4))[3], { id: marker, data: 'e4' });
      assert.equal(got.items.length, 4);
      following.stop();
    },
  );

  test(`${glue.name}: stop() ends delivery at once and the last stop unregisters the process (SREM)`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a, b } = fleet;
    const stream = newStreamId();
    const followersKey = `${prefix}followers:s1:${stream}`;
    const priming = await a.engine.eventStore.append('s1', stream, '');
    const first = collector<string>();
    const second = collector<string>();
    const f1 = b.engine.eventStore.follow!('s1', stream, priming, (event) => first.push(event.data));
    const f2 = b.engine.eventStore.follow!('s1', stream, priming, (event) => second.push(event.data));
    await Promise.all([f1.ready, f2.ready]);
    await a.engine.eventStore.append('s1', stream, 'both');
    assert.deepEqual(await first.first(1), ['both']);
    assert.deepEqual(await second.first(1), ['both']);
    f1.stop();
    await a.engine.eventStore.append('s1', stream, 'second only');
    assert.deepEqual(await second.first(2), ['both', 'second only']);
    assert.deepEqual(first.items, ['both']);
    assert.equal(((await a.command(['SMEMBERS', followersKey])) as string[]).length, 1); // f2 still follows
    const unregistered = deferred();
    b.tapped.afterReply = (command) => {
      if (command[0] === 'SREM') unregistered.resolve();
    };
    f2.stop();
    await unregistered.promise;
    assert.deepEqual(await a.command(['SMEMBERS', followersKey]), []);
    f2.stop(); // idempotent
  });

  test(
    `${glue.name}: what a follower's inbox lost while disconnected is read from the stream once it resubscribed`,
    T,
    async (t) => {
      if (needBinary(t, 'redis-server') === undefined) return;
      const prefix = freshPrefix();
      const writer = await engineProcess(t, glue, prefix);
      const { link } = await glue.connect(t, redis!.url);
      // The follower's link loses inbox messages while `lost` is set, as a dropped subscriber connection would.
      let lost = false;
      const dropped = collector<void>();
      let resubscribed: (() => void) | undefined;
      const lossy: RedisLink = {
        send: (command) => link.send(command),
        subscribe: (channel, onMessage, onResubscribed) => {
          resubscribed = onResubscribed;
          return link.subscribe(channel, (message) => (lost ? dropped.push() : onMessage(message)), onResubscribed);
        },
      };
      const follower = createRedisEngine(lossy, { prefix });
      const stream = newStreamId();
      const priming = await writer.engine.eventStore.append('s1', stream, '');
      const got = collector<string>();
      const following = follower.eventStore.follow!('s1', stream, priming, (event) => got.push(event.data));
      t.after(() => following.stop());
      await following.ready;
      await writer.engine.eventStore.append('s1', stream, 'before');
      assert.deepEqual(await got.first(1), ['before']);
      lost = true;
      await writer.engine.eventStore.append('s1', stream, 'lost 1');
      await writer.engine.eventStore.append('s1', stream, 'lost 2');
      await dropped.first(2);
      lost = false;
      resubscribed!(); // the client subscribed again
      assert.deepEqual(await got.first(3), ['before', 'lost 1', 'lost 2']);
      await writer.engine.eventStore.append('s1', stream, 'after');
      assert.deepEqual(await got.first(4), ['before', 'lost 1', 'lost 2', 'after']);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Change bus

  test(`${glue.name}: a published change reaches every subscriber, in publish order`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { a, b } = fleet;
    const seenA = collector<ChangeEvent>();
    const seenB = collector<ChangeEvent>();
    await a.engine.changeBus.subscribe((event) => seenA.push(event));
    await b.engine.changeBus.subscribe((event) => seenB.push(event));
    const events: ChangeEvent[] = [
      { type: 'resource', uri: 'mem://x' },
      { type: 'tools' },
      { type: 'keyed', key: 'k', id: 'i', method: 'notifications/x', params: { n: 1 } } as ChangeEvent,
    ];
    await a.engine.changeBus.publish(events[0]!);
    await b.engine.changeBus.publish(events[1]!);
    await a.engine.changeBus.publish(events[2]!);
    assert.deepEqual(await seenA.first(3), events);
    assert.deepEqual(await seenB.first(3), events);
  });

  test(
    `${glue.name}: after its subscriber connection is killed the bus resubscribes and delivers one resync`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const seen = collector<ChangeEvent>();
      await b.engine.changeBus.subscribe((event) => seen.push(event));
      const killed = Number(await a.command(['CLIENT', 'KILL', 'TYPE', 'pubsub']));
      assert.ok(killed >= 1, `killed ${killed}`);
      assert.deepEqual(await seen.first(3), [{ type: 'tools' }, { type: 'prompts' }, { type: 'resources' }]);
      // The resync may come before the subscription is back (ioredis emits ready first): wait for Redis to have it.
      await subscribed(a, `${prefix}changes`);
      await a.engine.changeBus.publish({ type: 'resource', uri: 'mem://after' });
      assert.deepEqual((await seen.first(4))[3], { type: 'resource', uri: 'mem://after' });
      assert.equal(seen.items.length, 4);
    },
  );

  test(
    `${glue.name}: what the changes channel carries that is no change event is logged by the server and reaches no connection`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      const logger = new SignalLogger();
      // The server's own changes (its tool's registration) stay off the bus: only what the test publishes arrives.
      const bus: ChangeBus = { publish: () => {}, subscribe: (deliver) => b.engine.changeBus.subscribe(deliver) };
      const server = createServer({ name: 's', version: '1' }, { changeBus: bus, logger });
      server.tool('t', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
      const client = new WireClient(server);
      t.after(() => client.end());
      await client.initialize();
      // The server subscribes on its own, with no promise to await: wait for Redis to have the subscription.
      await subscribed(a, `${prefix}changes`);
      for (const message of ['not json', '{"type":"nope"}', '{"type":"resource"}', 'null'])
        await a.command(['PUBLISH', `${prefix}changes`, message]);
      await a.engine.changeBus.publish({ type: 'tools' }); // the marker
      const marker = await client.notification('notifications/tools/list_changed');
      assert.equal(marker.method, 'notifications/tools/list_changed');
      const warnings = await logger.warnings.first(4);
      assert.equal(warnings.length, 4);
      for (const warning of warnings)
        assert.match(warning, /change bus: dropped a delivery that is not a change event/);
      assert.match(warnings[0]!, /not json/);
      assert.deepEqual(client.unread(), []);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Task store

  test(
    `${glue.name}: a task created by one process is read at once by another, with TTLs on its keys`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { taskLeaseMs: 60_000 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const created = await a.engine.taskStore.create({
        taskId: 'one',
        owner: 'alice',
        ttlMs: 30_000,
        pollIntervalMs: 5,
      });
      assert.deepEqual(
        { ...created, createdAt: undefined, lastUpdatedAt: undefined },
        {
          taskId: 'one',
          status: 'working',
          createdAt: undefined,
          lastUpdatedAt: undefined,
          ttlMs: 30_000,
          pollIntervalMs: 5,
          owner: 'alice',
        },
      );
      assert.equal(created.createdAt, created.lastUpdatedAt);
      assert.deepEqual(await b.engine.taskStore.get('one'), created);
      assert.equal(await b.engine.taskStore.get('unknown'), undefined);
      const ttls = new Map(await keysOf(a, prefix));
      assert.deepEqual(
        [...ttls.keys()],
        [
          `${prefix}task-lease:one`,
          `${prefix}task:one`,
          `${prefix}tasks`,
          `${prefix}tasks-acct`,
          `${prefix}tasks-of:alice`,
          `${prefix}tasks:seq`,
        ],
      );
      for (const [key, ttl] of ttls) assert.ok(ttl > 0, `${key} has a TTL`);
      assert.ok(ttls.get(`${prefix}task:one`)! <= 30_000 && ttls.get(`${prefix}task-lease:one`)! <= 60_000);
      await assert.rejects(
        a.engine.taskStore.create({ taskId: 'one', owner: 'alice', pollIntervalMs: 5 }),
        /already exists/,
      );
    },
  );

  test(
    `${glue.name}: updates move lastUpdatedAt strictly later, change the TTL, and never change a terminal record`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxTaskTtlMs: 60_000 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const created = await a.engine.taskStore.create({ taskId: 'u', owner: '', pollIntervalMs: 1 });
      assert.equal(created.ttlMs, 60_000); // absent: the cap
      const asked = await b.engine.taskStore.update('u', {
        status: 'input_required',
        statusMessage: 'asking',
        inputRequests: { k: { method: 'elicitation/create', params: { list: [] } } },
        ttlMs: 10 ** 9,
      });
      assert.equal(asked!.status, 'input_required');
      assert.equal(asked!.ttlMs, 60_000); // clamped
      assert.deepEqual(asked!.inputRequests, { k: { method: 'elicitation/create', params: { list: [] } } });
      assert.ok(Date.parse(asked!.lastUpdatedAt) > Date.parse(created.lastUpdatedAt));
      const shorter = await a.engine.taskStore.update('u', { status: 'working', ttlMs: 20_000 });
      assert.equal(shorter!.statusMessage, undefined); // the variable part is replaced
      assert.ok(Number(await a.command(['PTTL', `${prefix}task:u`])) <= 20_000);
      const done = await a.engine.taskStore.update('u', { status: 'completed', result: { content: [] } });
      assert.deepEqual(done!.result, { content: [] }); // an empty array stays an array
      assert.deepEqual(await b.engine.taskStore.get('u'), done);
      for (const status of ['working', 'failed', 'completed'] as const)
        assert.equal(await b.engine.taskStore.update('u', { status }), undefined);
      assert.equal(await b.engine.taskStore.update('nope', { status: 'working' }), undefined);
      assert.equal(Number(await a.command(['EXISTS', `${prefix}task-lease:u`])), 0); // a terminal task has no owner
    },
  );

  test(`${glue.name}: the task cap counts live records across processes; a delete frees a place`, T, async (t) => {
    const fleet = await two(t, glue, { maxTasks: 2 });
    if (fleet === undefined) return;
    const { a, b } = fleet;
    t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
    await a.engine.taskStore.create({ taskId: 'c1', owner: 'o', pollIntervalMs: 1 });
    await b.engine.taskStore.create({ taskId: 'c2', owner: 'o', pollIntervalMs: 1 });
    await assert.rejects(a.engine.taskStore.create({ taskId: 'c3', owner: 'o', pollIntervalMs: 1 }), {
      code: -32603,
      message: 'Task limit reached',
      data: { maxTasks: 2 },
    });
    assert.equal(await b.engine.taskStore.delete('c1'), true);
    assert.equal(await b.engine.taskStore.delete('c1'), false);
    await a.engine.taskStore.create({ taskId: 'c3', owner: 'o', pollIntervalMs: 1 });
  });

  test(
    `${glue.name}: an owner's tasks page in creation order across processes; gone ones are skipped`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      for (const [index, taskId] of ['l1', 'l2', 'l3', 'l4', 'l5'].entries())
        await (index % 2 === 0 ? a : b).engine.taskStore.create({ taskId, owner: 'bob', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'other', owner: 'carol', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'nobody', owner: '', pollIntervalMs: 1 });
      await a.engine.taskStore.delete('l2');
      await a.command(['DEL', `${prefix}task:l4`]); // as if it expired
      const first = await b.engine.taskStore.list('bob', undefined, 2);
      assert.deepEqual(
        first.tasks.map((task) => task.taskId),
        ['l1', 'l3'],
      );
      const second = await a.engine.taskStore.list('bob', first.nextCursor, 2);
      assert.deepEqual(
        second.tasks.map((task) => task.taskId),
        ['l5'],
      );
      assert.equal(second.nextCursor, undefined);
      assert.deepEqual(
        (await a.engine.taskStore.list('carol', undefined, 10)).tasks.map((task) => task.taskId),
        ['other'],
      );
      // Nobody's tasks are indexed too (their own finished ones are evicted first), though tasks/list never asks.
      assert.deepEqual(await a.command(['ZRANGE', `${prefix}tasks-of:`, '0', '-1']), ['nobody']);
      assert.deepEqual(await a.command(['ZRANGE', `${prefix}tasks-of:bob`, '0', '-1']), ['l1', 'l3', 'l5']);
      await assert.rejects(a.engine.taskStore.list('bob', 'bogus', 2), { code: -32602 });
    },
  );

  test(
    `${glue.name}: a running task whose lease lapsed reads failed everywhere, and its owner's writes are refused`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      await a.engine.taskStore.create({ taskId: 'lost', owner: 'o', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'listed', owner: 'o', pollIntervalMs: 1 });
      await a.command(['DEL', `${prefix}task-lease:lost`, `${prefix}task-lease:listed`]); // its process stopped
      const failed = await b.engine.taskStore.get('lost');
      assert.equal(failed!.status, 'failed');
      assert.equal(failed!.statusMessage, 'The process running the task stopped');
      assert.deepEqual(failed!.error, { code: -32603, message: 'Internal error' });
      assert.equal(await a.engine.taskStore.update('lost', { status: 'completed', result: {} }), undefined);
      const listed = await b.engine.taskStore.list('o', undefined, 10);
      assert.deepEqual(
        listed.tasks.map((task) => task.status),
        ['failed', 'failed'],
      );
    },
  );

  test(`${glue.name}: a process renews its leases while its tasks run, and stops once they end`, T, async (t) => {
    const fleet = await two(t, glue, { taskLeaseMs: 300 });
    if (fleet === undefined) return;
    const { prefix, a } = fleet;
    t.after(() => a.engine.taskStore.close());
    const renewed = collector<void>();
    a.tapped.afterReply = (command) => {
      if (command[0] === 'EVAL' && command[1]!.includes("'held'")) renewed.push();
    };
    await a.engine.taskStore.create({ taskId: 'r', owner: 'o', pollIntervalMs: 1 });
    await renewed.first(3); // three renewals: the lease outlived its own 300 ms
    assert.ok(Number(await a.command(['PTTL', `${prefix}task-lease:r`])) > 0);
    assert.equal((await a.engine.taskStore.get('r'))!.status, 'working');
    await a.engine.taskStore.update('r', { status: 'completed', result: {} });
    const count = renewed.items.length;
    // No renewal is pending any more: a create of another task starts the timer again, and it renews that one only.
    await a.engine.taskStore.create({ taskId: 'r2', owner: 'o', pollIntervalMs: 1 });
    const sent = a.tapped.sent.length;
    await renewed.first(count + 1);
    const renewal = a.tapped.sent.slice(sent).find((command) => command[1]!.includes("'held'"))!;
    assert.deepEqual(renewal.slice(-1), ['r2']);
  });

  test(
    `${glue.name}: what another process sends a task reaches the process that runs it, and ends reach it too`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const heard = collector<[string, unknown]>();
      const stop = a.engine.taskStore.receive!((taskId, notice) => heard.push([taskId, notice]));
      await a.engine.taskStore.create({ taskId: 's', owner: 'o', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'd', owner: 'o', pollIntervalMs: 1 });
      await b.engine.taskStore.send!('s', { type: 'responses', responses: { k: { action: 'accept' } } });
      await b.engine.taskStore.send!('s', { type: 'refused', key: 'j', error: { code: -1, message: 'no' } });
      assert.deepEqual(await heard.first(2), [
        ['s', { type: 'responses', responses: { k: { action: 'accept' } } }],
        ['s', { type: 'refused', key: 'j', error: { code: -1, message: 'no' } }],
      ]);
      await b.engine.taskStore.update('s', { status: 'cancelled' });
      await b.engine.taskStore.delete('d');
      // Each task is drained on its own: their ends arrive in either order.
      const ends = (await heard.first(4)).slice(2).sort(([a], [b]) => String(a).localeCompare(String(b)));
      assert.deepEqual(ends, [
        ['d', { type: 'ended' }],
        ['s', { type: 'ended' }],
      ]);
      // An ended task has no process to reach: a send resolves and queues nothing.
      await b.engine.taskStore.send!('s', { type: 'responses', responses: {} });
      assert.equal(Number(await a.command(['EXISTS', `${prefix}task-inbox:s`])), 0);
      stop();
    },
  );

  test(
    `${glue.name}: a message whose notification was lost is delivered by the next renewal; junk is dropped`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { taskLeaseMs: 300 });
      if (fleet === undefined) return;
      const { prefix, a } = fleet;
      t.after(() => a.engine.taskStore.close());
      const heard = collector<unknown>();
      a.engine.taskStore.receive!((_taskId, notice) => heard.push(notice));
      await a.engine.taskStore.create({ taskId: 'm', owner: 'o', pollIntervalMs: 1 });
      const inbox = `${prefix}task-inbox:m`;
      for (const junk of ['not json', 'null', '{"type":"responses"}', '{"type":"refused","key":"k","error":{}}'])
        await a.command(['RPUSH', inbox, junk]);
      await a.command(['RPUSH', inbox, JSON.stringify({ type: 'responses', responses: { k: {} } })]);
      assert.deepEqual(await heard.first(1), [{ type: 'responses', responses: { k: {} } }]);
      // Delivered, then trimmed: Redis's own answer is the signal, asked again after each reply.
      while (Number(await a.command(['EXISTS', inbox])) !== 0) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(heard.items, [{ type: 'responses', responses: { k: {} } }]);
    },
  );

  test(
    `${glue.name}: a lapsed lease is never taken back: the task fails, its runner hears it ended, a send finds nobody`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { taskLeaseMs: 300 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const heard = collector<[string, unknown]>();
      a.engine.taskStore.receive!((taskId, notice) => heard.push([taskId, notice]));
      await a.engine.taskStore.create({ taskId: 'lapsed', owner: 'o', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'unread', owner: 'o', pollIntervalMs: 1 });
      await a.command(['DEL', `${prefix}task-lease:lapsed`, `${prefix}task-lease:unread`]); // as if it paused too long
      // Nobody read them meanwhile: the owner's next renewal finds the leases gone and does not take them back.
      assert.deepEqual((await heard.first(2)).map(([taskId, notice]) => [taskId, notice]).sort(), [
        ['lapsed', { type: 'ended' }],
        ['unread', { type: 'ended' }],
      ]);
      assert.equal((await b.engine.taskStore.get('lapsed'))!.status, 'failed');
      assert.equal(Number(await a.command(['EXISTS', `${prefix}task-lease:lapsed`])), 0);
      // An answer sent now finds no process: nothing is queued.
      await b.engine.taskStore.send!('unread', { type: 'responses', responses: { k: {} } });
      assert.equal(Number(await a.command(['EXISTS', `${prefix}task-inbox:unread`])), 0);
      assert.equal((await b.engine.taskStore.get('unread'))!.status, 'failed');
    },
  );

  test(
    `${glue.name}: a write that fails lets the task's lease go, so the task reads failed instead of working`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { taskLeaseMs: 300 });
      if (fleet === undefined) return;
      const { a } = fleet;
      t.after(() => a.engine.taskStore.close());
      await a.engine.taskStore.create({ taskId: 'w', owner: 'o', pollIntervalMs: 1 });
      a.tapped.afterReply = (command) => {
        if (command[0] === 'EVAL' && command[1]!.includes('allowed(r[2], ARGV[1])')) throw new Error('reply lost');
      };
      await assert.rejects(a.engine.taskStore.update('w', { status: 'input_required' }), /reply lost/);
      const renewed = collector<string[]>();
      a.tapped.afterReply = (command) => {
        if (command[0] === 'EVAL' && command[1]!.includes("'held'")) renewed.push(command.slice(8)); // the ids renewed
      };
      await a.engine.taskStore.create({ taskId: 'next', owner: 'o', pollIntervalMs: 1 });
      assert.deepEqual(await renewed.first(1), [['next']], 'the failed task is no longer renewed');
    },
  );

  test(`${glue.name}: a create prunes the oldest ids of the owner's index whose records are gone`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a } = fleet;
    t.after(() => a.engine.taskStore.close());
    for (const taskId of ['p1', 'p2', 'p3']) await a.engine.taskStore.create({ taskId, owner: 'o', pollIntervalMs: 1 });
    await a.command(['DEL', `${prefix}task:p1`, `${prefix}task:p3`]); // as if they expired
    await a.engine.taskStore.create({ taskId: 'p4', owner: 'o', pollIntervalMs: 1 });
    assert.deepEqual(await a.command(['ZRANGE', `${prefix}tasks-of:o`, '0', '-1']), ['p2', 'p4']);
  });

  test(
    `${glue.name}: task bytes are bounded across processes: a body past the owner's bound is stored as the task's failure naming it; bodies that fit evict the owner's oldest terminal records; deletes give every byte back`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxTaskBytesPerOwner: 4096, maxTaskBytes: 6144 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const acct = async (field: string) => Number(await a.command(['HGET', `${prefix}tasks-acct`, field]));
      await a.engine.taskStore.create({ taskId: 'big', owner: 'o', pollIntervalMs: 1 });
      const failed = await b.engine.taskStore.update('big', {
        status: 'completed',
        result: { text: 'x'.repeat(5000) },
      });
      const message = "Internal error: the task's result exceeded 4096 bytes of task records (maxTaskBytesPerOwner)";
      assert.equal(failed!.status, 'failed');
      assert.equal(failed!.result, undefined);
      assert.equal(failed!.statusMessage, message);
      assert.deepEqual(failed!.error, { code: -32603, message, data: { maxTaskBytesPerOwner: 4096 } });
      assert.deepEqual(await a.engine.taskStore.get('big'), failed);
      // About 1 800 bytes each (a 1 500-byte body, its owner, 256): the owner's 4 096 hold two.
      for (const [index, taskId] of ['f1', 'f2', 'f3'].entries()) {
        const store = (index % 2 === 0 ? a : b).engine.taskStore;
        await store.create({ taskId, owner: 'o', pollIntervalMs: 1 });
        await store.update(taskId, { status: 'completed', result: { text: 'y'.repeat(1500) } });
        assert.ok((await acct('b:o')) <= 4096, `owner bytes ${await acct('b:o')}`);
      }
      assert.equal(await a.engine.taskStore.get('big'), undefined, 'the oldest terminal record went first');
      assert.equal(await a.engine.taskStore.get('f1'), undefined);
      assert.equal((await b.engine.taskStore.get('f3'))!.status, 'completed');
      // The store's 6 144 bytes: another owner's body evicts the oldest terminal record of anyone.
      await b.engine.taskStore.create({ taskId: 'p1', owner: 'p', pollIntervalMs: 1 });
      await b.engine.taskStore.update('p1', {
        status: 'input_required',
        inputRequests: { k: { text: 'z'.repeat(2500) } },
      });
      assert.equal(await a.engine.taskStore.get('f2'), undefined);
      assert.equal((await a.engine.taskStore.get('p1'))!.status, 'input_required');
      assert.ok((await acct('#bytes')) <= 6144, `store bytes ${await acct('#bytes')}`);
      // Past the store's bound with only live records left: the write is the task's failure, naming that bound.
      await a.engine.taskStore.create({ taskId: 'p2', owner: 'q', pollIntervalMs: 1 });
      const crowded = await a.engine.taskStore.update('f3', { status: 'working' });
      assert.equal(crowded, undefined, 'a terminal record never changes');
      await a.engine.taskStore.delete('f3');
      const live = await a.engine.taskStore.update('p2', { status: 'working', statusMessage: 'w'.repeat(3500) });
      assert.equal(live!.status, 'failed');
      assert.deepEqual(live!.error!.data, { maxTaskBytes: 6144 });
      for (const taskId of ['p1', 'p2']) assert.equal(await b.engine.taskStore.delete(taskId), true);
      assert.deepEqual(
        await a.command(['HGETALL', `${prefix}tasks-acct`]),
        glue.name === 'ioredis' ? ['#bytes', '0'] : { '#bytes': '0' },
      );
    },
  );

  test(
    `${glue.name}: a task body too large for its owner's bound even with nothing else stored evicts nothing: the owner's finished records stay`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxTaskBytesPerOwner: 2048 });
      if (fleet === undefined) return;
      const { a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      await a.engine.taskStore.create({ taskId: 'done', owner: 'o', pollIntervalMs: 1 });
      const done = await a.engine.taskStore.update('done', { status: 'completed', result: { content: [] } });
      await b.engine.taskStore.create({ taskId: 'live', owner: 'o', pollIntervalMs: 1 });
      // 2 177 bytes (256, the owner, a 1 920-byte body): past 2 048 alone, by less than the record weighed before.
      const failed = await b.engine.taskStore.update('live', { status: 'working', statusMessage: 's'.repeat(1900) });
      assert.deepEqual(failed!.error!.data, { maxTaskBytesPerOwner: 2048 });
      assert.deepEqual(await b.engine.taskStore.get('done'), done, 'no eviction could have made room: none was made');
    },
  );

  test(
    `${glue.name}: a write to a record whose expiry time came before Redis expired its key finds it gone, and its weight never outlives it`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      await a.engine.taskStore.create({ taskId: 'x', owner: 'o', ttlMs: 30_000, pollIntervalMs: 1 });
      // The record's expiry time has come (its score in the cap set), its key not yet gone: the millisecond between.
      await a.command(['ZADD', `${prefix}tasks`, '1', 'x']);
      assert.equal(await b.engine.taskStore.update('x', { status: 'working', statusMessage: 'm' }), undefined);
      assert.equal(await a.engine.taskStore.get('x'), undefined);
      assert.deepEqual(
        await a.command(['HGETALL', `${prefix}tasks-acct`]),
        glue.name === 'ioredis' ? ['#bytes', '0'] : { '#bytes': '0' },
        'no weight is left without its record',
      );
    },
  );

  test(
    `${glue.name}: each owner has its share of task records across processes (the anonymous owner too): past it a create is refused unless the owner's own terminal record is evicted; a terminal record no TTL was asked for keeps only the retention`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxTasksPerOwner: 2, maxTasks: 5, taskRetentionMs: 5_000 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const limit = (data: object) => ({ code: -32603, message: 'Task limit reached', data });
      for (const owner of ['o', '']) {
        await a.engine.taskStore.create({ taskId: `${owner}1`, owner, pollIntervalMs: 1 });
        await b.engine.taskStore.create({ taskId: `${owner}2`, owner, ttlMs: 30_000, pollIntervalMs: 1 });
        await assert.rejects(
          a.engine.taskStore.create({ taskId: `${owner}3`, owner, pollIntervalMs: 1 }),
          limit({ maxTasksPerOwner: 2 }),
        );
      }
      const brief = await b.engine.taskStore.update('o1', { status: 'completed', result: {} });
      assert.equal(brief!.ttlMs, Date.parse(brief!.lastUpdatedAt) - Date.parse(brief!.createdAt) + 5_000);
      assert.ok(Number(await a.command(['PTTL', `${prefix}task:o1`])) <= 5_000);
      const asked = await b.engine.taskStore.update('o2', { status: 'completed', result: {} });
      assert.equal(asked!.ttlMs, 30_000, 'a TTL asked for is kept');
      await a.engine.taskStore.create({ taskId: 'o3', owner: 'o', pollIntervalMs: 1 });
      assert.equal(await b.engine.taskStore.get('o1'), undefined, "the owner's oldest terminal record went");
      assert.equal((await b.engine.taskStore.get('o2'))!.status, 'completed');
      // The store's cap (5): o2, o3, 1, 2 and one more; then a terminal record of anyone goes before a refusal.
      await a.engine.taskStore.create({ taskId: 'p1', owner: 'p', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'p2', owner: 'p', pollIntervalMs: 1 });
      assert.equal(await b.engine.taskStore.get('o2'), undefined);
      await assert.rejects(
        a.engine.taskStore.create({ taskId: 'r1', owner: 'r', pollIntervalMs: 1 }),
        limit({ maxTasks: 5 }),
      );
      // A record that expired is forgotten by the next create: its place and its weight come back.
      await a.command(['ZADD', `${prefix}tasks`, '1', 'p1']);
      await a.command(['DEL', `${prefix}task:p1`]);
      await b.engine.taskStore.create({ taskId: 'r1', owner: 'r', pollIntervalMs: 1 });
      assert.equal(Number(await a.command(['HGET', `${prefix}tasks-acct`, 'n:p'])), 1);
      assert.equal(Number(await a.command(['HEXISTS', `${prefix}tasks-acct`, 'p1'])), 0);
    },
  );

  test(
    `${glue.name}: tasks whose process stopped are finished records: read failed, they keep only the retention unless a TTL was asked for, and they never block their owner's next create`,
    T,
    async (t) => {
      const fleet = await two(t, glue, { maxTasksPerOwner: 3, taskRetentionMs: 5_000 });
      if (fleet === undefined) return;
      const { prefix, a, b } = fleet;
      t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
      const dead = ['d1', 'd2', 'd3'];
      for (const taskId of dead) await a.engine.taskStore.create({ taskId, owner: 'o', pollIntervalMs: 1 });
      await a.engine.taskStore.create({ taskId: 'kept', owner: 'p', ttlMs: 30_000, pollIntervalMs: 1 });
      // a's worker is gone: its leases lapsed, and nobody but the first read below looks at its tasks.
      await a.command(['DEL', ...[...dead, 'kept'].map((taskId) => `${prefix}task-lease:${taskId}`)]);
      const lost = await b.engine.taskStore.get('d1');
      assert.equal(lost!.status, 'failed');
      assert.equal(lost!.ttlMs, Date.parse(lost!.lastUpdatedAt) - Date.parse(lost!.createdAt) + 5_000);
      assert.ok(Number(await a.command(['PTTL', `${prefix}task:d1`])) <= 5_000);
      assert.ok(Number(await a.command(['ZSCORE', `${prefix}tasks`, 'd1'])) <= Date.parse(lost!.lastUpdatedAt) + 5_000);
      assert.equal((await b.engine.taskStore.get('kept'))!.ttlMs, 30_000, 'a TTL asked for is kept');
      assert.deepEqual(await a.command(['ZRANGE', `${prefix}tasks-done`, '0', '-1']), ['d1', 'kept']);
      // The owner's share (3) is full of tasks nobody runs: each create evicts the oldest as finished, read or not.
      for (const [index, taskId] of ['n1', 'n2', 'n3'].entries()) {
        await b.engine.taskStore.create({ taskId, owner: 'o', pollIntervalMs: 1 });
        assert.equal(await b.engine.taskStore.get(dead[index]!), undefined);
      }
      await assert.rejects(b.engine.taskStore.create({ taskId: 'n4', owner: 'o', pollIntervalMs: 1 }), {
        code: -32603,
        message: 'Task limit reached',
        data: { maxTasksPerOwner: 3 },
      });
      for (const [key, ttl] of await keysOf(a, prefix)) assert.ok(ttl > 0, `${key} has a TTL`);
      for (const taskId of ['n1', 'n2', 'n3', 'kept']) assert.equal(await b.engine.taskStore.delete(taskId), true);
      assert.deepEqual(
        await a.command(['HGETALL', `${prefix}tasks-acct`]),
        glue.name === 'ioredis' ? ['#bytes', '0'] : { '#bytes': '0' },
        'every byte comes back',
      );
    },
  );

  test(
    `${glue.name}: a shared 2025 session DELETEd through one process cancels its task running in another process that no longer holds a copy of it`,
    T,
    async (t) => {
      const fleet = await two(t, glue);
      if (fleet === undefined) return;
      const { a, b } = fleet;
      const started = deferred<AbortSignal>();
      const aborted = deferred();
      const serve = async (p: Process) => {
        const server = createServer({ name: 's', version: '1' });
        server.use(createTasksExtension({ store: p.engine.taskStore }));
        server.tool('sleep', { taskSupport: 'optional' }, async (_args, ctx) => {
          started.resolve(ctx.signal);
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
          aborted.resolve();
          return { content: [] };
        });
        const http = await serveHttp(server, {
          port: 0,
          responseMode: 'json',
          sharedSessions: p.engine.sessions,
          eventStore: false,
        });
        t.after(async () => {
          await http.close();
          await server.close();
          await p.engine.taskStore.close();
        });
        return http;
      };
      const [first, second] = [await serve(a), await serve(b)];
      const post = async (url: string, body: unknown, session?: string, method = 'POST') => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        };
        if (session !== undefined) headers['mcp-session-id'] = session;
        const body_ = method === 'POST' ? JSON.stringify(body) : undefined;
        return fetch(url, { method, headers, body: body_ });
      };
      const init = await post(first.url, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      await (await post(first.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
      const call = { name: 'sleep', arguments: {}, task: {} };
      const created = (await (
        await post(second.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call }, session)
      ).json()) as Frame;
      const { taskId } = created.result.task;
      const signal = await started.promise;
      await second.close(); // the second process drops its copy of the session: its task runs on
      assert.equal(signal.aborted, false);
      assert.equal((await a.engine.taskStore.get(taskId))!.status, 'working');
      const deleted = await post(first.url, undefined, session, 'DELETE');
      assert.equal(deleted.status, 200);
      await aborted.promise; // the first process cancelled it in the store, which told the second
      assert.equal((await a.engine.taskStore.get(taskId))!.status, 'cancelled');
    },
  );

  test(`${glue.name}: a task's queue of undelivered messages is bounded`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a, b } = fleet;
    t.after(() => Promise.all([a.engine.taskStore.close(), b.engine.taskStore.close()]));
    await a.engine.taskStore.create({ taskId: 'q', owner: 'o', pollIntervalMs: 1 });
    await a.command(['SET', `${prefix}task-lease:q`, 'a-process-that-never-reads', 'PX', '60000']);
    for (let index = 0; index < 64; index++) await b.engine.taskStore.send!('q', { type: 'responses', responses: {} });
    await assert.rejects(b.engine.taskStore.send!('q', { type: 'responses', responses: {} }), {
      code: -32603,
      data: { maxQueued: 64 },
    });
    assert.ok(Number(await a.command(['PTTL', `${prefix}task-inbox:q`])) > 0);
  });

  test(`${glue.name}: a corrupt task record rejects its read; a closed store refuses creates`, T, async (t) => {
    const fleet = await two(t, glue);
    if (fleet === undefined) return;
    const { prefix, a } = fleet;
    await a.command([
      'HSET',
      `${prefix}task:bad`,
      'owner',
      'o',
      'status',
      'sleeping',
      'createdMs',
      '1',
      'updatedMs',
      '1',
      'ttlMs',
      '1',
      'poll',
      '1',
      'body',
      '{}',
    ]);
    await a.command(['PEXPIRE', `${prefix}task:bad`, '60000']);
    await assert.rejects(a.engine.taskStore.get('bad'), /not a task record/);
    await a.engine.taskStore.close();
    await assert.rejects(a.engine.taskStore.create({ taskId: 'x', owner: 'o', pollIntervalMs: 1 }), /closed/);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The event store at the wire: a 2025 session over HTTP on the engine

/** `server` over HTTP on `p`'s engine (its session store and event store), closed after the test. */
async function served(t: TestContext, p: Process, server: ReturnType<typeof createServer>): Promise<string> {
  const http = await serveHttp(server, {
    port: 0,
    keepAliveMs: 0,
    sharedSessions: p.engine.sessions,
    eventStore: p.engine.eventStore,
  });
  t.after(() => http.close());
  return http.url;
}

/** The headers of a 2025 client's POST (2025-11-25 unless told), in session `session` when given. */
function legacyHeaders(session?: string, version = '2025-11-25'): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
  };
}

/** POSTs `body` (a 2025-11-25 frame unless told) to `url` in session `session`. */
function postFrame(url: string, body: unknown, session?: string, version?: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: legacyHeaders(session, version), body: JSON.stringify(body) });
}

/** Opens a 2025-11-25 session on `url` with the client `capabilities`: its id. */
async function openSession(url: string, capabilities: object = {}, protocolVersion = '2025-11-25'): Promise<string> {
  const initialize = await postFrame(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities, clientInfo: { name: 'c', version: '1' } },
    },
    undefined,
    protocolVersion,
  );
  assert.equal(initialize.status, 200);
  await initialize.text();
  return initialize.headers.get('mcp-session-id')!;
}

test(
  'many streamed POSTs of one session leave at most maxEventsPerSession events in Redis, the newest answer kept',
  T,
  async (t) => {
    if (needBinary(t, 'redis-server') === undefined) return;
    const prefix = freshPrefix();
    const p = await engineProcess(t, GLUES[0]!, prefix, { maxEventsPerSession: 10 });
    const server = createServer({ name: 's', version: '1' });
    server.tool('tick', { inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
      ctx.progress(1, 1); // so that the POST is answered with an SSE stream: priming, progress, answer
      return { content: [{ type: 'text', text: 'tock' }] };
    });
    const url = await served(t, p, server);
    const session = await openSession(url);
    let progressed = '';
    for (let id = 1; id <= 40; id++) {
      const call = await postFrame(
        url,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'tick', arguments: {}, _meta: { progressToken: id } },
        },
        session,
      );
      const reader = new SseReader(call);
      const events = await reader.rest();
      assert.deepEqual(
        events.map((event) => event.message.method ?? event.message.result.content[0].text),
        ['notifications/progress', 'tock'],
      );
      progressed = events[0]!.id!;
    }
    // 40 streams of 3 events were stored; the session keeps 10, in at most 10 streams, each answered one for 60 s.
    const streams = ((await p.command(['KEYS', `${prefix}events:${session}:*`])) as string[]).map(String);
    assert.ok(streams.length <= 10, `${streams.length} stream keys`);
    let events = 0;
    for (const key of streams) {
      events += Number(await p.command(['XLEN', key]));
      const ttl = Number(await p.command(['PTTL', key]));
      assert.ok(ttl > 0 && ttl <= 60_000, `${key} PTTL ${ttl}`);
    }
    assert.equal(events, 10);
    assert.ok(((await p.command(['KEYS', `${prefix}*`])) as string[]).length <= streams.length + 5);
    // The newest POST's answer is kept: its stream, the largest as it grew, lost its older events, never its answer.
    const newest = await p.command(['XRANGE', `${prefix}events:${session}:${progressed.split('_')[0]}`, '-', '+']);
    assert.deepEqual((newest as [string, string[]][]).map(([, fields]) => JSON.parse(String(fields[1]))).at(-1), {
      jsonrpc: '2.0',
      id: 40,
      result: { content: [{ type: 'text', text: 'tock' }] },
    });
  },
);

test(
  "a client's stray responses reach only the process that asked: a foreign id or an oversized one is published nowhere",
  T,
  async (t) => {
    if (needBinary(t, 'redis-server') === undefined) return;
    const prefix = freshPrefix();
    const [a, b] = [await engineProcess(t, GLUES[0]!, prefix), await engineProcess(t, GLUES[0]!, prefix)];
    const logger = new SignalLogger();
    const urls: string[] = [];
    for (const p of [a, b]) {
      const server = createServer({ name: 's', version: '1' }, { logger });
      server.tool('ask', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'who?', requestedSchema: { type: 'object', properties: {} } });
        return { content: [{ type: 'text' as const, text: String(answer.action) }] };
      });
      urls.push(await served(t, p, server));
    }
    const [onA, onB] = urls as [string, string];
    const session = await openSession(onA, { elicitation: {} });
    assert.equal((await postFrame(onB, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
    const call = await postFrame(
      onA,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask' } },
      session,
    );
    const stream = new SseReader(call);
    const asked = await stream.message();
    assert.equal(asked.method, 'elicitation/create');
    const block = Math.floor(asked.id / 2 ** 32); // the asking process's block of ids
    const publishes = (): string[][] => b.tapped.sent.filter((command) => command[0] === 'PUBLISH');
    const before = publishes().length;
    const strays = [
      { jsonrpc: '2.0', id: ((block + 1) % 2 ** 20) * 2 ** 32 + 5, result: { action: 'accept' } }, // nobody's block
      { jsonrpc: '2.0', id: 'not-ours', result: { action: 'accept' } }, // the server issues numbers only
      { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { pad: 'x'.repeat(1 << 20) } } }, // too big
    ];
    for (const stray of strays) assert.equal((await postFrame(onB, stray, session)).status, 202);
    assert.deepEqual(publishes().length, before, 'none was published');
    // One warning for the three (at most one a minute): the client decides how many strays it sends.
    assert.deepEqual(logger.warnings.items.length, 1);
    assert.match(
      logger.warnings.items[0]!,
      /dropped a response of session .* to id \d+: no other process of the session sent .*\(1 dropped since/,
    );
    // The asker's own answer, through the other process: published once, to the asker's inbox only.
    const answer = { jsonrpc: '2.0', id: asked.id, result: { action: 'decline' } };
    assert.equal((await postFrame(onB, answer, session)).status, 202);
    assert.deepEqual(await stream.message(), {
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'decline' }] },
    });
    const published = publishes().slice(before);
    assert.equal(published.length, 1);
    assert.match(published[0]![1]!, new RegExp(`^${prefix}session-inbox:${block}\\.[0-9a-f]{16}$`));
    assert.equal(logger.warnings.items.length, 1);
  },
);

test(
  'a 2025 cancel sent to another process reaches the copy running the request; a local one or a malformed one is not relayed',
  T,
  async (t) => {
    if (needBinary(t, 'redis-server') === undefined) return;
    const prefix = freshPrefix();
    const [a, b] = [await engineProcess(t, GLUES[0]!, prefix), await engineProcess(t, GLUES[0]!, prefix)];
    const aborted = collector<unknown>();
    const logger = new SignalLogger();
    const urls: string[] = [];
    for (const p of [a, b]) {
      const server = createServer({ name: 's', version: '1' }, { logger });
      server.tool('wait', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
        ctx.progress(0); // the POST's stream opens: the call runs
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        aborted.push(ctx.requestId);
        return { content: [{ type: 'text' as const, text: 'never sent' }] };
      });
      urls.push(await served(t, p, server));
    }
    const [onA, onB] = urls as [string, string];
    const session = await openSession(onA);
    assert.equal((await postFrame(onB, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
    const wait = (url: string, id: string): Promise<Response> =>
      postFrame(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', _meta: { progressToken: id } } },
        session,
      );
    const cancel = (url: string, requestId: unknown): Promise<Response> =>
      postFrame(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }, session);
    const publishes = (): string[][] => b.tapped.sent.filter((command) => command[0] === 'PUBLISH');
    // Running on A, cancelled through B: relayed to A alone, whose handler aborts and whose stream ends unanswered.
    const onAStream = new SseReader(await wait(onA, 'on-a'));
    assert.equal((await onAStream.message()).method, 'notifications/progress');
    let before = publishes().length;
    assert.equal((await cancel(onB, 'on-a')).status, 202);
    assert.deepEqual(await aborted.first(1), ['on-a']);
    await onAStream.ended();
    const relayed = publishes().slice(before);
    assert.equal(relayed.length, 1, 'to the other copy only');
    assert.match(relayed[0]![1]!, new RegExp(`^${prefix}session-inbox:\\d+\\.[0-9a-f]{16}$`));
    assert.deepEqual(JSON.parse(relayed[0]![2]!), {
      id: session,
      message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'on-a' } },
    });
    // Running on B and cancelled there: a local cancel, relayed nowhere; nor is a cancel naming no request id.
    const onBStream = new SseReader(await wait(onB, 'on-b'));
    assert.equal((await onBStream.message()).method, 'notifications/progress');
    before = publishes().length;
    assert.equal((await cancel(onB, 'on-b')).status, 202);
    assert.deepEqual(await aborted.first(2), ['on-a', 'on-b']);
    await onBStream.ended();
    assert.equal((await cancel(onB, { not: 'an id' })).status, 202);
    assert.equal(publishes().length, before);
    // Every other copy gets a cancel, so it is bounded (1 KiB of JSON): a huge request id is relayed nowhere, and a
    // reason is never relayed, whatever its size.
    assert.equal((await cancel(onB, 'x'.repeat((1 << 20) - 100))).status, 202);
    assert.equal(publishes().length, before);
    assert.match(
      logger.warnings.items[0]!,
      /dropped a client message of session .*: 1048\d+ bytes of JSON, over 1024 /,
    );
    const reasoned = { requestId: 'nobody', reason: 'x'.repeat(1 << 20) };
    const bigReason = { jsonrpc: '2.0', method: 'notifications/cancelled', params: reasoned };
    assert.equal((await postFrame(onB, bigReason, session)).status, 202);
    const bounded = publishes().slice(before);
    assert.equal(bounded.length, 1);
    assert.deepEqual(JSON.parse(bounded[0]![2]!).message, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'nobody' },
    });
    // A 2025-03-26 batch: each cancel in it is relayed as a single one would be (an invalid element is answered).
    const old = await openSession(onA, {}, '2025-03-26');
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    assert.equal((await postFrame(onB, initialized, old, '2025-03-26')).status, 202);
    const call = {
      jsonrpc: '2.0',
      id: 'old',
      method: 'tools/call',
      params: { name: 'wait', _meta: { progressToken: 1 } },
    };
    const oldStream = new SseReader(await postFrame(onA, call, old, '2025-03-26'));
    assert.equal((await oldStream.message()).method, 'notifications/progress');
    const batch = [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'old' } }, null];
    const batched = await postFrame(onB, batch, old, '2025-03-26');
    assert.equal(batched.status, 200);
    assert.equal(((await batched.json()) as { error: { code: number } }[])[0]!.error.code, -32600);
    assert.deepEqual(await aborted.first(3), ['on-a', 'on-b', 'old']);
    await oldStream.ended();
  },
);

test(
  'two processes that drew the same block of outbound ids still relay elicitation answers and cancels to each other',
  T,
  async (t) => {
    if (needBinary(t, 'redis-server') === undefined) return;
    const prefix = freshPrefix();
    const [a, b] = [await engineProcess(t, GLUES[0]!, prefix), await engineProcess(t, GLUES[0]!, prefix)];
    const aborted = collector<unknown>();
    const urls: string[] = [];
    for (const p of [a, b]) {
      const server = createServer({ name: 's', version: '1' });
      server.tool('ask', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'who?', requestedSchema: { type: 'object', properties: {} } });
        return { content: [{ type: 'text' as const, text: String(answer.action) }] };
      });
      server.tool('wait', { inputSchema: { type: 'object', properties: {} } }, async (_args, ctx) => {
        ctx.progress(0); // the POST's stream opens: the call runs
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        aborted.push(ctx.requestId);
        return { content: [{ type: 'text' as const, text: 'never sent' }] };
      });
      urls.push(await inBlockZero(t, () => served(t, p, server)));
    }
    const [onA, onB] = urls as [string, string];
    const session = await openSession(onA, { elicitation: {} });
    assert.equal((await postFrame(onB, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
    for (const [runs, relays] of [
      [onA, onB],
      [onB, onA],
    ] as const) {
      const call = { jsonrpc: '2.0', id: `ask-${runs}`, method: 'tools/call', params: { name: 'ask' } };
      const asking = new SseReader(await postFrame(runs, call, session));
      const asked = await asking.message();
      assert.ok(asked.id < 2 ** 32, 'in block 0, as the other process');
      const answer = { jsonrpc: '2.0', id: asked.id, result: { action: 'accept' } };
      assert.equal((await postFrame(relays, answer, session)).status, 202);
      assert.deepEqual((await asking.message()).result, { content: [{ type: 'text', text: 'accept' }] });
      const wait = {
        jsonrpc: '2.0',
        id: `wait-${runs}`,
        method: 'tools/call',
        params: { name: 'wait', _meta: { progressToken: 1 } },
      };
      const waiting = new SseReader(await postFrame(runs, wait, session));
      assert.equal((await waiting.message()).method, 'notifications/progress');
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: wait.id } };
      assert.equal((await postFrame(relays, cancel, session)).status, 202);
      assert.equal((await aborted.first(aborted.items.length + 1)).at(-1), wait.id);
      await waiting.ended();
    }
  },
);

/** A logger whose warnings and errors can be awaited. */
class SignalLogger implements Logger {
  readonly warnings = collector<string>();
  readonly errors = collector<{ message: string; error: unknown }>();
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string, error?: unknown): void {
    this.errors.push({ message, error });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Which copy a client's message is relayed to (SharedSessions, no Redis needed)

/** A store that records what it relays, and fails (`failure`) when told to. */
function relayingStore(): {
  store: SharedSessionStore;
  relayed: [string, unknown, string][];
  fail(how?: string): void;
} {
  const relayed: [string, unknown, string][] = [];
  let failure: string | undefined;
  const store: SharedSessionStore = {
    save: () => {},
    load: () => undefined,
    remove: () => {},
    relay(id, message, process) {
      if (failure === 'throw') throw new Error('relay threw');
      relayed.push([id, message, process]);
      return failure === 'reject' ? Promise.reject(new Error('relay rejected')) : undefined;
    },
  };
  return { store, relayed, fail: (how) => void (failure = how) };
}

/** While `run` runs, every 4-byte random draw is zeros: each SharedSessions made then has block 0, as two processes that drew the same number. */
async function inBlockZero<T>(t: TestContext, run: () => T | Promise<T>): Promise<T> {
  const real = crypto.getRandomValues.bind(crypto);
  const mocked = t.mock.method(crypto, 'getRandomValues', (array: Uint8Array) =>
    array.byteLength === 4 ? array.fill(0) : real(array),
  );
  try {
    return await run();
  } finally {
    mocked.mock.restore();
  }
}

test('SharedSessions.relay: a response goes to the other copies of the block its id names, a cancel to every other copy, the rest nowhere', async (t) => {
  const { store, relayed, fail } = relayingStore();
  const logger = new SignalLogger();
  const shared = new SharedSessions(store, logger);
  const [block, suffix] = shared.process.split('.') as [string, string];
  assert.match(suffix, /^[0-9a-f]{16}$/, 'a name: the block, then 64 random bits');
  const first = shared.firstOutboundId();
  assert.equal(String(Math.floor(first / 2 ** 32)), block, 'a copy made here counts from its own block');
  assert.ok(first % 2 ** 32 < 2 ** 31);
  const other = `${(Number(block) + 1) % 2 ** 20}.0123456789abcdef`;
  const response = (id: unknown) => ({ jsonrpc: '2.0', id, result: {} }) as JsonRpcResponse;
  const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: 1 } };
  const inOther = Number(other.split('.')[0]) * 2 ** 32 + 9;
  shared.relay('s', [shared.process, other], response(inOther));
  shared.relay('s', [shared.process, other, '77.1'], cancel);
  shared.relay('s', undefined, cancel); // no copies listed: nowhere to send a cancel
  shared.relay('s', [shared.process], cancel); // no other copy
  assert.deepEqual(relayed, [
    ['s', response(inOther), other],
    ['s', cancel, other],
    ['s', cancel, '77.1'],
  ]);
  // Dropped: an id in this process's own block (no other copy has it), ids no process issues, a block whose process
  // holds no copy of this session, copies the store does not list. One warning a minute, counting the drops.
  let now = 1_000_000;
  t.mock.method(Date, 'now', () => now);
  for (const id of [first, inOther + 0.5, -1, 2 ** 53, '9', null])
    shared.relay('s', [shared.process, other], response(id));
  shared.relay('s', [shared.process], response(inOther));
  shared.relay('s', undefined, response(inOther));
  assert.equal(relayed.length, 3);
  assert.deepEqual(logger.warnings.items, [
    `dropped a response of session s to id ${first}: no other process of the session sent that request (1 dropped since the last such warning, at most one a minute)`,
  ]);
  now += 60_000;
  shared.relay('s', [shared.process, other], response('late'));
  assert.equal(logger.warnings.items.length, 2);
  assert.match(
    logger.warnings.items[1]!,
    /^dropped a response of session s to id "late": .*\(8 dropped since the last/,
  );
  fail('throw');
  shared.relay('s', [other], cancel);
  fail('reject');
  shared.relay('s', [other], cancel);
  const errors = await logger.errors.first(2);
  assert.deepEqual(
    errors.map((error) => [error.message, (error.error as Error).message]),
    [
      ['could not relay a client message of session s through the shared store', 'relay threw'],
      ['could not relay a client message of session s through the shared store', 'relay rejected'],
    ],
  );
  // A store without relay relays nothing and logs nothing.
  new SharedSessions({ save: () => {}, load: () => undefined, remove: () => {} }, logger).relay('s', [other], cancel);
  assert.equal(logger.errors.items.length, 2);
});

test('SharedSessions.relay: two processes that drew the same block still relay responses and cancels to each other', async (t) => {
  const { store, relayed } = relayingStore();
  const [a, b] = await inBlockZero(t, () => [new SharedSessions(store, console), new SharedSessions(store, console)]);
  assert.notEqual(a.process, b.process, 'their names differ');
  const copies = [a.process, b.process];
  const askedByA = a.firstOutboundId();
  assert.ok(askedByA < 2 ** 32, 'in block 0');
  const answer = { jsonrpc: '2.0', id: askedByA, result: { action: 'accept' } } as JsonRpcResponse;
  const cancel = { jsonrpc: '2.0' as const, method: 'notifications/cancelled', params: { requestId: 'r' } };
  b.relay('s', copies, answer); // B could not match it: A, in the same block, may have asked
  b.relay('s', copies, cancel);
  a.relay('s', copies, cancel);
  assert.deepEqual(relayed, [
    ['s', answer, a.process],
    ['s', cancel, a.process],
    ['s', cancel, b.process],
  ]);
});

test('SharedSessions.relay: the bounds count UTF-8 bytes of JSON: 1 MiB for a response, 1 KiB for a cancel', (t) => {
  assert.deepEqual([MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES], [1 << 20, 1 << 10]);
  const { store, relayed } = relayingStore();
  const logger = new SignalLogger();
  const shared = new SharedSessions(store, logger);
  const other = `${(Number(shared.process.split('.')[0]) + 1) % 2 ** 20}.0123456789abcdef`;
  const id = Number(other.split('.')[0]) * 2 ** 32;
  /** `text` holding a string `pad` of two-byte characters (and one 'x' for an odd count) making it `bytes` of JSON. */
  const padded = (bytes: number, text: (pad: string) => string): string => {
    const room = bytes - text('').length;
    return text('é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2));
  };
  const response = (bytes: number): JsonRpcResponse =>
    JSON.parse(padded(bytes, (pad) => JSON.stringify({ jsonrpc: '2.0', id, result: { pad } })));
  const cancel = (bytes: number): JsonRpcNotification =>
    JSON.parse(
      padded(bytes, (requestId) =>
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }),
      ),
    );
  t.mock.method(Date, 'now', () => 0);
  shared.relay('s', [other], response(MAX_RELAYED_BYTES));
  shared.relay('s', [other], response(MAX_RELAYED_BYTES + 1)); // ~524 288 characters
  shared.relay('s', [other], cancel(MAX_RELAYED_CANCEL_BYTES));
  shared.relay('s', [other], cancel(MAX_RELAYED_CANCEL_BYTES + 1));
  assert.deepEqual(
    relayed.map(([, message]) => utf8(JSON.stringify(message)).byteLength),
    [MAX_RELAYED_BYTES, MAX_RELAYED_CANCEL_BYTES],
  );
  assert.deepEqual(logger.warnings.items, [
    `dropped a client message of session s for another process: ${MAX_RELAYED_BYTES + 1} bytes of JSON, over ${MAX_RELAYED_BYTES} (1 dropped since the last such warning, at most one a minute)`,
  ]);
});

// ---------------------------------------------------------------------------------------------------------------
// Options (no Redis needed)

const FAKE_LINK: RedisLink = { send: () => new Promise(() => {}), subscribe: () => Promise.resolve() };

test('createRedisEngine refuses bad options, naming the option', () => {
  for (const name of [
    'sessionTtlMs',
    'maxEventsPerSession',
    'commandTimeoutMs',
    'maxTasks',
    'maxTasksPerOwner',
    'maxTaskBytes',
    'maxTaskBytesPerOwner',
    'maxTaskTtlMs',
    'taskRetentionMs',
    'taskLeaseMs',
  ] as const) {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '5' as unknown as number])
      assert.throws(() => createRedisEngine(FAKE_LINK, { [name]: value }), {
        name: 'RangeError',
        message: new RegExp(name),
      });
  }
  // Past setTimeout's bound a timer fires after 1 ms: every command would time out at once.
  assert.throws(() => createRedisEngine(FAKE_LINK, { commandTimeoutMs: 2 ** 31 }), {
    name: 'RangeError',
    message: /commandTimeoutMs must be a positive integer up to 2147483647/,
  });
  createRedisEngine(FAKE_LINK, { commandTimeoutMs: 2 ** 31 - 1, sessionTtlMs: 2 ** 40 });
  for (const prefix of [5, {}, true] as unknown as string[])
    assert.throws(() => createRedisEngine(FAKE_LINK, { prefix }), { name: 'TypeError', message: /prefix/ });
});

test('createRedisEngine refuses a link without send and subscribe functions', () => {
  const send = FAKE_LINK.send;
  const subscribe = FAKE_LINK.subscribe;
  for (const link of [undefined, null, {}, { send }, { subscribe }, { send: 'x', subscribe }] as unknown as RedisLink[])
    assert.throws(() => createRedisEngine(link), { name: 'TypeError', message: /send and subscribe/ });
});

test('a command that gets no answer rejects after commandTimeoutMs, naming the command', T, async () => {
  const engine = createRedisEngine(FAKE_LINK, { commandTimeoutMs: 10 });
  await assert.rejects(Promise.resolve(engine.sessions.load('s1')), {
    message: 'redis: no answer to EVAL within 10 ms',
  });
  await assert.rejects(Promise.resolve(engine.sessions.save('s1', record())), {
    message: /no answer to EVAL within 10 ms/,
  });
  await assert.rejects(Promise.resolve(engine.changeBus.publish({ type: 'tools' })), {
    message: /no answer to PUBLISH within 10 ms/,
  });
  await assert.rejects(Promise.resolve(engine.eventStore.replayAfter('s1', 'abc_1-0')), {
    message: /no answer to XRANGE within 10 ms/,
  });
});

test("a link's own rejection passes through the command timeout unchanged", T, async () => {
  const failure = new Error('READONLY You cannot write against a read only replica.');
  const engine = createRedisEngine({ send: () => Promise.reject(failure), subscribe: () => Promise.resolve() });
  await assert.rejects(Promise.resolve(engine.sessions.load('s1')), (error) => error === failure);
});

// ---------------------------------------------------------------------------------------------------------------
// The core's change-bus seams (core.ts), without Redis

test('a change bus publish that throws is logged via the server logger', T, () => {
  const logger = new SignalLogger();
  const failure = new Error('bus down');
  const bus: ChangeBus = {
    publish: () => {
      throw failure;
    },
    subscribe: () => {},
  };
  const server = createServer({ name: 's', version: '1' }, { changeBus: bus, logger });
  server.notifyListChanged('tools');
  assert.deepEqual(logger.errors.items, [{ message: 'change bus: publish of a tools change failed', error: failure }]);
});

test('a change bus publish that rejects is logged via the server logger', T, async () => {
  const logger = new SignalLogger();
  const failure = new Error('bus down');
  const bus: ChangeBus = { publish: () => Promise.reject(failure), subscribe: () => {} };
  const server = createServer({ name: 's', version: '1' }, { changeBus: bus, logger });
  server.notifyResourceUpdated('mem://x');
  assert.deepEqual(await logger.errors.first(1), [
    { message: 'change bus: publish of a resource change failed', error: failure },
  ]);
});

test('a change bus subscribe that rejects is logged via the server logger', T, async () => {
  const logger = new SignalLogger();
  const failure = new Error('no subscriber');
  const bus: ChangeBus = { publish: () => {}, subscribe: () => Promise.reject(failure) };
  createServer({ name: 's', version: '1' }, { changeBus: bus, logger });
  assert.deepEqual(await logger.errors.first(1), [{ message: 'change bus: subscribe failed', error: failure }]);
});

test('malformed change events from the bus are logged and dropped; a well-formed keyed event is not', T, async (t) => {
  const logger = new SignalLogger();
  let deliver: ((event: ChangeEvent) => void) | undefined;
  const bus: ChangeBus = {
    publish: () => {},
    subscribe: (d) => {
      deliver = d;
    },
  };
  const server = createServer({ name: 's', version: '1' }, { changeBus: bus, logger });
  server.tool('t', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
  const client = new WireClient(server);
  t.after(() => client.end());
  await client.initialize();
  const keyed = { type: 'keyed', key: 'k', id: 'i', method: 'notifications/x', params: {} };
  const malformed: unknown[] = [
    undefined,
    null,
    'tools',
    { type: 'resource' },
    { type: 'resource', uri: 5 },
    { type: 'unknown' },
    { ...keyed, key: 1 },
    { ...keyed, id: undefined },
    { ...keyed, method: null },
    { ...keyed, audience: 7 },
    { ...keyed, params: undefined },
    { ...keyed, params: null },
    { ...keyed, params: 'x' },
  ];
  for (const event of malformed) deliver!(event as ChangeEvent);
  assert.equal(logger.warnings.items.length, malformed.length);
  for (const warning of logger.warnings.items)
    assert.match(warning, /^change bus: dropped a delivery that is not a change event/);
  deliver!({ ...keyed, audience: 'someone' } as ChangeEvent); // well-formed: no warning (no connection is keyed)
  assert.equal(logger.warnings.items.length, malformed.length);
  deliver!({ type: 'tools' });
  const frame: Frame = await client.notification('notifications/tools/list_changed');
  assert.equal(frame.jsonrpc, '2.0');
  assert.deepEqual(client.unread(), []);
});
