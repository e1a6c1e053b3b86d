// A shared 2025 session's GET stream (http/session-get-stream.ts) as a unit, over fakes of its stream, connection and stores:
// where a message for no request goes (held here, stored for the holder, a change sent by the holder only), the bound
// on messages waiting to be stored, announcements winning over older loads, letting go of a stream resumed
// elsewhere, and how a held stream's connection is fed (from the store, or directly when its start is unknown).
// The cross-process proof is test/scale-out-redis.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventSink, Stream, StreamOwner } from '../http/exchange.ts';
import { type GetStreamHolds, MAX_HANDED_ON, SharedGetStream } from '../http/session-get-stream.ts';
import type { EventStore } from '../http/sse.ts';
import type { GetStreamHolder } from '../http.ts';
import { deferred, MemoryLogger } from './harness.ts';

const ME = 'process-me';
const OTHER = 'process-other';

/** A fake GET stream recording what it is asked; `delivered` is what deliveredTo() settles with (default an id). */
function fakeStream(id: string, ...given: [delivered: string | undefined | false] | []) {
  const delivered = given.length === 0 ? 'get-x_1-0' : given[0];
  const calls: unknown[][] = [];
  const stream = {
    id,
    write: (_owner: StreamOwner, text: string) => void calls.push(['write', text]),
    share: (shared: boolean) => void calls.push(['share', shared]),
    deliveredTo: async () => delivered,
    deliver: (_sink: EventSink, event: { id: string; data: string }) => void calls.push(['deliver', event.data]),
  };
  return { stream: stream as unknown as Stream, calls };
}

/** A fake connection: its close listeners can be run. */
function fakeSink() {
  const closers: (() => void)[] = [];
  const sink = {
    closed: false,
    ended: 0,
    send: () => true,
    end() {
      this.ended++;
    },
    onClose: (listener: () => void) => void closers.push(listener),
  };
  return {
    sink: sink as unknown as EventSink & { ended: number },
    close: () => {
      for (const close of closers) close();
    },
  };
}

/** A session with an event store whose appends and follows are recorded (appends resolve unless told otherwise). */
function setup(options: { changesShared?: boolean; append?: () => Promise<string> } = {}) {
  const appended: [string, string][] = [];
  const follows: { afterId: string; stopped: boolean; deliver: (event: { id: string; data: string }) => void }[] = [];
  let failFollow = false;
  const eventStore = {
    append: async (_session: string, streamId: string, data: string) => {
      appended.push([streamId, data]);
      return options.append === undefined ? `${streamId}_1-0` : options.append();
    },
    follow: (
      _session: string,
      _stream: string,
      afterId: string,
      deliver: (event: { id: string; data: string }) => void,
    ) => {
      const follow = { afterId, stopped: false, deliver };
      follows.push(follow);
      return {
        ready: failFollow ? Promise.reject(new Error('no inbox')) : Promise.resolve(),
        stop: () => {
          follow.stopped = true;
        },
      };
    },
  } as unknown as EventStore;
  const logger = new MemoryLogger();
  const owner: StreamOwner = { id: 's1', eventStore, logger, retryMs: 1000 };
  const holds: GetStreamHolder[] = [];
  const shares: GetStreamHolds = {
    processId: ME,
    changesShared: options.changesShared ?? true,
    hold: (_session, holder) => void holds.push(holder),
  };
  return {
    shared: new SharedGetStream(owner, shares),
    appended,
    follows,
    holds,
    logger,
    failFollows: () => {
      failFollow = true;
    },
  };
}

/** Resolves after the microtasks queued so far (and those they queue) ran. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('with no GET stream named yet, send() leaves the message to the unshared routing', () => {
  const { shared } = setup();
  assert.equal(
    shared.send('{}', false, () => undefined),
    false,
  );
});

test('the holder writes to its stream; another process stores what it alone has, never a change', async () => {
  const here = setup();
  const { stream, calls } = fakeStream('get-a');
  here.shared.heard({ id: 'get-a', process: ME }, false);
  assert.equal(
    here.shared.send('change', true, (id) => (id === 'get-a' ? stream : undefined)),
    true,
  );
  here.shared.send('status', false, () => stream);
  assert.deepEqual(calls, [
    ['write', 'change'],
    ['write', 'status'],
  ]);

  const elsewhere = setup();
  elsewhere.shared.heard({ id: 'get-b', process: OTHER }, false);
  elsewhere.shared.send('change', true, () => undefined); // the holder's copy sends it
  elsewhere.shared.send('status', false, () => undefined);
  await settle();
  assert.deepEqual(elsewhere.appended, [['get-b', 'status']]);
});

test('a holder without the stream stores changes too; without a change bus a change is stored everywhere', async () => {
  const reaped = setup();
  reaped.shared.heard({ id: 'get-a', process: ME }, false);
  reaped.shared.send('change', true, () => undefined);
  const noBus = setup({ changesShared: false });
  noBus.shared.heard({ id: 'get-b', process: OTHER }, false);
  noBus.shared.send('change', true, () => undefined);
  await settle();
  assert.deepEqual(reaped.appended, [['get-a', 'change']]);
  assert.deepEqual(noBus.appended, [['get-b', 'change']]);
});

test('messages waiting to be stored are bounded, kept in order, and dropped once the session ended', async () => {
  const gate = deferred<string>();
  const { shared, appended, logger } = setup({ append: () => gate.promise });
  shared.heard({ id: 'get-b', process: OTHER }, false);
  for (let index = 0; index <= MAX_HANDED_ON; index++) shared.send(`m${index}`, false, () => undefined);
  assert.match(logger.errors[0]!.message, new RegExp(`${MAX_HANDED_ON} messages wait to be stored`));
  await settle();
  assert.deepEqual(appended, [['get-b', 'm0']]); // one at a time, in order
  shared.end();
  gate.resolve('get-b_1-0');
  await settle();
  assert.equal(appended.length, 1, 'nothing is stored after the end');
});

test('a failing append is logged and the next message is still stored', async () => {
  let calls = 0;
  const { shared, appended, logger } = setup({
    append: async () => {
      if (++calls === 1) throw new Error('down');
      return 'get-b_2-0';
    },
  });
  shared.heard({ id: 'get-b', process: OTHER }, false);
  shared.send('first', false, () => undefined);
  shared.send('second', false, () => undefined);
  await settle();
  await settle();
  assert.deepEqual(appended, [
    ['get-b', 'first'],
    ['get-b', 'second'],
  ]);
  assert.match(logger.errors[0]!.message, /a GET stream message is lost/);
});

test('an announcement wins over an older load; letting go reports the stream this process held', () => {
  const { shared } = setup();
  assert.equal(shared.heard({ id: 'get-a', process: ME }, true), undefined); // a load fills in what nothing named
  assert.equal(shared.heard({ id: 'get-old', process: OTHER }, true), undefined, 'a later load is ignored');
  assert.equal(shared.heard({ id: 'get-a', process: OTHER }, false), 'get-a', 'resumed elsewhere: let go');
  assert.equal(shared.heard({ id: 'get-c', process: OTHER }, false), undefined, 'not ours to let go');
  for (const junk of [undefined, null, {}, { id: 'post-1', process: ME }, { id: 'get-d', process: 5 }])
    assert.equal(shared.heard(junk, false), undefined);
});

test('hold(): the stream is named and recorded, shared, and its connection follows the store from what it got', async () => {
  const { shared, holds, follows } = setup();
  const { stream, calls } = fakeStream('get-h', 'get-h_5-0');
  const { sink, close } = fakeSink();
  shared.hold(stream, sink);
  assert.deepEqual(holds, [{ id: 'get-h', process: ME }]);
  await settle();
  assert.deepEqual(calls, [['share', true]]);
  assert.equal(follows.length, 1);
  assert.equal(follows[0]!.afterId, 'get-h_5-0');
  follows[0]!.deliver({ id: 'get-h_6-0', data: 'from elsewhere' });
  assert.deepEqual(calls.at(-1), ['deliver', 'from elsewhere']);
  close();
  assert.equal(follows[0]!.stopped, true);
  // It is the holder now: what it has for no request goes to that stream.
  shared.send('mine', false, () => stream);
  assert.deepEqual(calls.at(-1), ['write', 'mine']);
});

test('hold(): a connection gone meanwhile follows nothing; one with no stored start is written to directly', async () => {
  const gone = setup();
  gone.shared.hold(fakeStream('get-g', false).stream, fakeSink().sink);
  const unstarted = setup();
  const { stream, calls } = fakeStream('get-u', undefined);
  unstarted.shared.hold(stream, fakeSink().sink);
  await settle();
  assert.equal(gone.follows.length + unstarted.follows.length, 0);
  assert.deepEqual(calls, [
    ['share', true],
    ['share', false],
  ]);
});

test('hold(): a follow that fails is logged and ends the connection, so the client resumes', async () => {
  const { shared, failFollows, logger } = setup();
  failFollows();
  const { sink } = fakeSink();
  shared.hold(fakeStream('get-f').stream, sink);
  await settle();
  await settle();
  assert.equal(sink.ended, 1);
  assert.match(logger.errors[0]!.message, /event store follow failed/);
});
