// The task store and runner (tasks/task-store.ts, tasks/tasks.ts, docs/tasks.md): the records MemoryTaskStore keeps
// (timestamps, TTL clamp, the live-task cap, paging by owner, expiry, close), the state machine and its terminal rule,
// the mapping of a handler's outcome to a record, input requests, cancellation, expiry of a running task, close() with
// tasks running, a task's own listener hearing its terminal transition, and a 1 000-task storm that leaves no record
// and no timer behind. Every wait is on an explicit signal; expiry runs on node:test's mocked timers and clock.

import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { test } from 'node:test';
import { ProtocolError } from '../jsonrpc.ts';
import {
  canTransition,
  MemoryTaskStore,
  TASK_TRANSITIONS,
  type TaskChange,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
} from '../tasks/task-store.ts';
import { POLL_INTERVAL_MS, type TaskContext, TaskRunner } from '../tasks/tasks.ts';
import { MemoryLogger } from './harness.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const OK = { content: [{ type: 'text', text: 'done' }] };

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Resolves with the first stored transition of `taskId` to `status`. */
function reaches(runner: TaskRunner, taskId: () => string, status: TaskStatus): Promise<TaskRecord> {
  return new Promise((resolve) => {
    const off = runner.onStatus((record) => {
      if (record.taskId === taskId() && record.status === status) {
        off();
        resolve(record);
      }
    });
  });
}

/** A handler that runs until its signal aborts, then rejects with the abort reason; `aborted` resolves then. */
function untilAborted() {
  const aborted = deferred<AbortSignal>();
  const handler = (ctx: TaskContext) =>
    new Promise<Record<string, unknown>>((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => {
        aborted.resolve(ctx.signal);
        reject(ctx.signal.reason);
      }),
    );
  return { handler, aborted: aborted.promise };
}

/** Counts the Timeout handles alive in this process, ref'd or not (getActiveResourcesInfo lists only ref'd ones). */
function timeoutCounter() {
  const live = new Set<number>();
  const hook = createHook({
    init: (id, type) => type === 'Timeout' && live.add(id),
    destroy: (id) => live.delete(id),
  }).enable();
  return { live, disable: () => hook.disable() };
}

/** One turn of the event loop, after which the destroy hooks of cleared timers have run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------------------------------------------
// The state machine

test('the state machine: working and input_required move anywhere (themselves included), terminal states nowhere', () => {
  const all: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
  for (const from of all)
    for (const to of all)
      assert.equal(canTransition(from, to), from === 'working' || from === 'input_required', `${from} → ${to}`);
  assert.deepEqual(TASK_TRANSITIONS.completed, []);
});

// ---------------------------------------------------------------------------------------------------------------
// MemoryTaskStore

test('create stores a working record with equal ISO timestamps, the requested TTL, or the cap when none or more', async () => {
  const store = new MemoryTaskStore({ maxTtlMs: 60_000 });
  const record = await store.create({ taskId: 'a', owner: 'alice', ttlMs: 5000, pollIntervalMs: 100 });
  assert.deepEqual(Object.keys(record).sort(), [
    'createdAt',
    'lastUpdatedAt',
    'owner',
    'pollIntervalMs',
    'status',
    'taskId',
    'ttlMs',
  ]);
  assert.equal(record.status, 'working');
  assert.match(record.createdAt, ISO);
  assert.equal(record.lastUpdatedAt, record.createdAt);
  assert.equal(record.ttlMs, 5000);
  assert.equal(
    (await store.create({ taskId: 'b', owner: 'alice', ttlMs: 86_400_000, pollIntervalMs: 1 })).ttlMs,
    60_000,
  );
  assert.equal((await store.create({ taskId: 'c', owner: 'alice', pollIntervalMs: 1 })).ttlMs, 60_000);
  record.status = 'failed'; // a returned record is a copy
  const stored = await store.get('a');
  assert.equal(stored?.status, 'working');
  assert.equal(await store.get('nope'), undefined);
  await store.close();
});

test('update replaces the variable part, moves lastUpdatedAt strictly later on a frozen clock, and never changes a terminal record', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2026-07-28T10:00:00.000Z') });
  const store = new MemoryTaskStore();
  await store.create({ taskId: 'a', owner: 'alice', pollIntervalMs: 100 });
  const parked = await store.update('a', {
    status: 'input_required',
    statusMessage: 'asking',
    inputRequests: { k: {} },
  });
  assert.equal(parked?.lastUpdatedAt, '2026-07-28T10:00:00.001Z');
  assert.deepEqual(parked?.inputRequests, { k: {} });
  const working = await store.update('a', { status: 'working' });
  assert.equal(working?.lastUpdatedAt, '2026-07-28T10:00:00.002Z');
  assert.equal(working?.inputRequests, undefined, 'a field absent from the change is gone');
  assert.equal(working?.statusMessage, undefined);
  assert.equal(working?.createdAt, '2026-07-28T10:00:00.000Z');
  t.mock.timers.tick(1000);
  const done = await store.update('a', { status: 'completed', result: OK });
  assert.equal(done?.lastUpdatedAt, '2026-07-28T10:00:01.000Z');
  for (const status of ['cancelled', 'working', 'failed', 'completed'] as const)
    assert.equal(await store.update('a', { status }), undefined, status);
  assert.deepEqual(await store.get('a'), done);
  assert.equal(await store.update('nope', { status: 'working' }), undefined);
  await store.close();
});

test('the live-task cap: a create past maxTasks rejects -32603 "Task limit reached"; a delete frees a slot', async () => {
  const store = new MemoryTaskStore({ maxTasks: 2 });
  await store.create({ taskId: 'a', owner: 'o', pollIntervalMs: 1 });
  await store.create({ taskId: 'b', owner: 'o', pollIntervalMs: 1 });
  await assert.rejects(store.create({ taskId: 'c', owner: 'o', pollIntervalMs: 1 }), (error: unknown) => {
    assert.ok(error instanceof ProtocolError);
    assert.deepEqual(error.toJSON(), { code: -32603, message: 'Task limit reached', data: { maxTasks: 2 } });
    return true;
  });
  assert.equal(store.size, 2);
  assert.equal(await store.delete('a'), true);
  assert.equal(await store.delete('a'), false);
  await store.create({ taskId: 'c', owner: 'o', pollIntervalMs: 1 });
  await store.delete('b');
  await assert.rejects(store.create({ taskId: 'c', owner: 'o', pollIntervalMs: 1 }), /task c already exists/);
  assert.equal((await store.get('c'))?.taskId, 'c', 'the record is not overwritten');
  await store.close();
});

test('delete clears the record and its timer', async () => {
  const timers = timeoutCounter();
  try {
    const store = new MemoryTaskStore();
    await turn();
    const before = timers.live.size;
    await store.create({ taskId: 'a', owner: 'o', pollIntervalMs: 1 });
    assert.equal(timers.live.size, before + 1);
    assert.equal(await store.delete('a'), true);
    await turn();
    assert.equal(timers.live.size, before);
    assert.equal(store.size, 0);
    await store.close();
  } finally {
    timers.disable();
  }
});

test('bad store bounds throw a RangeError naming the option', () => {
  assert.throws(() => new MemoryTaskStore({ maxTasks: 0 }), /maxTasks must be an integer from 1/);
  for (const name of ['maxTasksPerOwner', 'maxBytes', 'maxBytesPerOwner', 'retentionMs'] as const)
    assert.throws(
      () => new MemoryTaskStore({ [name]: 0 }),
      new RegExp(`^RangeError: ${name} must be an integer from 1`),
    );
  assert.throws(
    () => new MemoryTaskStore({ retentionMs: 2 ** 31 }),
    /retentionMs must be an integer from 1 to 2147483647/,
  );
  assert.throws(() => new MemoryTaskStore({ maxTtlMs: 2 ** 31 }), /maxTtlMs must be an integer from 1 to 2147483647/);
  assert.throws(() => new MemoryTaskStore({ maxTtlMs: 1.5 }), /maxTtlMs/);
});

test("list pages one owner's records in creation order; a cursor it did not issue is -32602", async () => {
  const store = new MemoryTaskStore();
  for (const [taskId, owner] of [
    ['a1', 'alice'],
    ['b1', 'bob'],
    ['a2', 'alice'],
    ['a3', 'alice'],
  ])
    await store.create({ taskId, owner, pollIntervalMs: 1 });
  const first = await store.list('alice', undefined, 2);
  assert.deepEqual(
    first.tasks.map((task) => task.taskId),
    ['a1', 'a2'],
  );
  assert.equal(typeof first.nextCursor, 'string');
  const second = await store.list('alice', first.nextCursor, 2);
  assert.deepEqual(
    second.tasks.map((task) => task.taskId),
    ['a3'],
  );
  assert.equal(second.nextCursor, undefined);
  assert.deepEqual(await store.list('carol', undefined, 2), { tasks: [], nextCursor: undefined });
  for (const taskId of ['a1', 'a2', 'a3']) await store.delete(taskId);
  assert.deepEqual(
    await store.list('alice', first.nextCursor, 2),
    { tasks: [], nextCursor: undefined },
    'a cursor issued before the records went is still a cursor',
  );
  await assert.rejects(store.list('alice', 'bogus', 2), (error: unknown) => {
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, -32602);
    return true;
  });
  await store.close();
});

test('a record expires after its TTL from creation and the store is empty again; a deleted one leaves no timer', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const store = new MemoryTaskStore();
  await store.create({ taskId: 'short', owner: 'o', ttlMs: 100, pollIntervalMs: 1 });
  await store.create({ taskId: 'long', owner: 'o', ttlMs: 200, pollIntervalMs: 1 });
  await store.create({ taskId: 'gone', owner: 'o', ttlMs: 50, pollIntervalMs: 1 });
  await store.delete('gone');
  await store.update('short', { status: 'completed', result: OK }); // terminal records expire too
  t.mock.timers.tick(99);
  assert.equal(store.size, 2);
  t.mock.timers.tick(1);
  assert.equal(await store.get('short'), undefined);
  assert.equal(store.size, 1);
  t.mock.timers.tick(100);
  assert.equal(store.size, 0);
  await store.close();
});

test('close() clears every record and timer; a create after it rejects', async () => {
  const timers = timeoutCounter();
  try {
    const store = new MemoryTaskStore();
    const before = timers.live.size;
    for (let i = 0; i < 10; i++) await store.create({ taskId: `t${i}`, owner: 'o', pollIntervalMs: 1 });
    assert.equal(timers.live.size, before + 10);
    await store.close();
    assert.equal(store.size, 0);
    await turn();
    assert.equal(timers.live.size, before);
    await assert.rejects(store.create({ taskId: 'x', owner: 'o', pollIntervalMs: 1 }), /the task store is closed/);
  } finally {
    timers.disable();
  }
});

// ---------------------------------------------------------------------------------------------------------------
// TaskRunner: outcomes

test('start resolves with the stored working record: an unguessable base64url id, the owner, TTL and poll interval', async () => {
  const store = new MemoryTaskStore({ maxTtlMs: 10_000 });
  const runner = new TaskRunner(store, new MemoryLogger());
  const { handler } = untilAborted();
  const ids = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const record = await runner.start(handler, { owner: 'alice', ttlMs: 60_000 });
    assert.match(record.taskId, /^[A-Za-z0-9_-]{22}$/, 'header-safe: 128 bits as base64url');
    ids.add(record.taskId);
    assert.deepEqual(await store.get(record.taskId), record, 'durably stored before start resolves');
    assert.equal(record.owner, 'alice');
    assert.equal(record.ttlMs, 10_000);
    assert.equal(record.pollIntervalMs, POLL_INTERVAL_MS);
  }
  assert.equal(ids.size, 50);
  for (const ttlMs of [0, -1, 1.5, Number.NaN])
    await assert.rejects(runner.start(handler, { owner: 'alice', ttlMs }), /ttlMs must be a positive integer/);
  assert.equal(runner.active, 50);
  await runner.close();
  await store.close();
});

test('outcomes: a result is completed, an isError result completed, a ProtocolError failed with it, another throw failed -32603 and logged only', async () => {
  const store = new MemoryTaskStore();
  const logger = new MemoryLogger();
  const runner = new TaskRunner(store, logger);
  const terminal = new Map<string, TaskRecord>();
  const settled = new Map<string, () => void>();
  runner.onStatus((record) => {
    terminal.set(record.taskId, record);
    settled.get(record.taskId)?.();
  });
  const run = async (handler: () => Promise<Record<string, unknown>>) => {
    const done = deferred();
    let id = '';
    const record = await runner.start(
      async () => {
        await done.promise; // the id is known before the handler settles
        return handler();
      },
      { owner: 'o' },
    );
    id = record.taskId;
    const stored = new Promise<void>((resolve) => settled.set(id, resolve));
    done.resolve();
    await stored;
    return terminal.get(id)!;
  };

  const completed = await run(async () => OK);
  assert.equal(completed.status, 'completed');
  assert.deepEqual(completed.result, OK);
  assert.equal(completed.error, undefined);

  const toolError = { content: [{ type: 'text', text: 'disk full' }], isError: true };
  const isError = await run(async () => toolError);
  assert.equal(
    isError.status,
    'completed',
    'a tool result with isError: true is completed (2026-07-28 tasks extension)',
  );
  assert.deepEqual(isError.result, toolError);

  const protocol = await run(async () => {
    throw new ProtocolError(-32602, 'Invalid params: label', { field: 'label' });
  });
  assert.equal(protocol.status, 'failed');
  assert.deepEqual(protocol.error, { code: -32602, message: 'Invalid params: label', data: { field: 'label' } });
  assert.equal(protocol.statusMessage, 'Invalid params: label');
  assert.equal(protocol.result, undefined);

  const internal = await run(async () => {
    throw new Error('secret detail');
  });
  assert.equal(internal.status, 'failed');
  assert.deepEqual(internal.error, { code: -32603, message: 'Internal error' });
  assert.ok(!JSON.stringify(internal).includes('secret detail'), 'the detail stays off the record');
  assert.equal(logger.errors.length, 1);
  assert.match(logger.errors[0]!.message, new RegExp(`task ${internal.taskId} failed`));
  assert.equal((logger.errors[0]!.error as Error).message, 'secret detail');

  assert.equal(runner.active, 0);
  for (const record of [completed, isError, protocol, internal])
    assert.equal(await store.update(record.taskId, { status: 'working' }), undefined, 'terminal stays terminal');
  await runner.close();
  await store.close();
});

// ---------------------------------------------------------------------------------------------------------------
// TaskRunner: input requests and status messages

test('input: two requests show input_required with both keys; answering one keeps the other; unknown keys are ignored; then working and completed', async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  const seen: TaskRecord[] = [];
  runner.onStatus((record) => seen.push(record));
  let id = '';
  const bothAsked = new Promise<TaskRecord>((resolve) =>
    runner.onStatus((record) => Object.keys(record.inputRequests ?? {}).length === 2 && resolve(record)),
  );
  const done = reaches(runner, () => id, 'completed');
  const record = await runner.start(
    async (ctx) => {
      await ctx.setStatusMessage('asking twice');
      const answers = await Promise.all([ctx.input({ method: 'elicitation/create', n: 1 }), ctx.input({ n: 2 })]);
      return { content: [{ type: 'text', text: JSON.stringify(answers) }] };
    },
    { owner: 'o' },
  );
  id = record.taskId;
  const parked = await bothAsked;
  assert.equal(parked.status, 'input_required');
  assert.deepEqual(parked.inputRequests, { 'input-1': { method: 'elicitation/create', n: 1 }, 'input-2': { n: 2 } });
  assert.equal(parked.statusMessage, 'asking twice');

  const before = seen.length;
  await runner.respond(id, { 'input-9': { ignored: true } });
  assert.equal(seen.length, before, 'a key that is not outstanding makes no transition');

  await runner.respond(id, { 'input-1': 'first', 'input-9': 'ignored' });
  const half = await store.get(id);
  assert.equal(half?.status, 'input_required');
  assert.deepEqual(half?.inputRequests, { 'input-2': { n: 2 } });

  await runner.respond(id, { 'input-2': 'second' });
  const final = await done;
  assert.deepEqual(final.result, { content: [{ type: 'text', text: '["first","second"]' }] });
  assert.deepEqual(
    seen.map((step) => step.status),
    ['working', 'input_required', 'input_required', 'input_required', 'working', 'completed'],
  );
  for (let i = 1; i < seen.length; i++)
    assert.ok(seen[i]!.lastUpdatedAt > seen[i - 1]!.lastUpdatedAt, `lastUpdatedAt moves at transition ${i}`);
  assert.ok(seen.every((step) => step.createdAt === record.createdAt));
  await runner.respond(id, { 'input-2': 'late' }); // the task has left the runner: nothing happens
  await runner.close();
  await store.close();
});

test('a context kept past its task neither asks for input nor sets a status message', async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  let kept: TaskContext | undefined;
  let id = '';
  const done = reaches(runner, () => id, 'completed');
  id = (
    await runner.start(
      (ctx) => {
        kept = ctx;
        return OK;
      },
      { owner: 'o' },
    )
  ).taskId;
  const record = await done;
  await kept!.setStatusMessage('late');
  await assert.rejects(kept!.input({}), { name: 'AbortError' });
  assert.deepEqual(await store.get(id), record);
  await runner.close();
  await store.close();
});

// ---------------------------------------------------------------------------------------------------------------
// TaskRunner: cancellation, expiry, failures, close

/** A runner running one task that waits forever: its record, what its own listener heard, and its abort. */
async function endlessTask() {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  const heard: TaskRecord[] = [];
  const aborted = deferred();
  const record = await runner.start(
    async (ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      return new Promise<never>(() => {});
    },
    { owner: 'o', onStatus: (next) => heard.push(next) },
  );
  return { store, runner, heard, aborted: aborted.promise, record };
}

test('ended(): a record that ended elsewhere aborts the handler here, tells its own listener, and writes nothing', async () => {
  const { store, runner, heard, aborted, record } = await endlessTask();
  const prepared = runner.prepare({ owner: 'o' });
  // Another process cancelled it: the store holds cancelled; this runner is told.
  const cancelled = (await store.update(record.taskId, { status: 'cancelled' }))!;
  runner.ended(record.taskId, cancelled);
  await aborted;
  assert.equal(runner.runs(record.taskId), false);
  assert.deepEqual(heard, [cancelled]);
  runner.ended(record.taskId, cancelled); // once only
  runner.ended('unknown', undefined);
  runner.ended(prepared.context.taskId, undefined); // no record yet: its creation is still to come
  assert.equal(runner.runs(prepared.context.taskId), true);
  assert.deepEqual(heard, [cancelled]);
  assert.deepEqual(await store.get(record.taskId), cancelled);
  prepared.discard();
  await runner.close();
});

test('ended() with no record (it went away) aborts the handler; its own listener hears nothing', async () => {
  const { store, runner, heard, aborted, record } = await endlessTask();
  await store.delete(record.taskId);
  runner.ended(record.taskId, undefined);
  await aborted;
  assert.deepEqual(heard, []);
  await runner.close();
});

test('cancel of a running handler aborts it and stores cancelled before it resolves; its late outcome is dropped', async () => {
  const store = new MemoryTaskStore();
  let updates = 0;
  const counting: TaskStore = {
    create: (task) => store.create(task),
    get: (taskId) => store.get(taskId),
    update: (taskId, change) => {
      updates++;
      return store.update(taskId, change);
    },
    list: (owner, cursor, size) => store.list(owner, cursor, size),
    delete: (taskId) => store.delete(taskId),
    close: () => store.close(),
  };
  const runner = new TaskRunner(counting, new MemoryLogger());
  const finish = deferred();
  const aborted = deferred();
  const record = await runner.start(
    async (ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      await finish.promise;
      return OK;
    },
    { owner: 'o' },
  );
  const cancelled = await runner.cancel(record.taskId);
  assert.equal(cancelled?.status, 'cancelled');
  assert.deepEqual(await store.get(record.taskId), cancelled);
  await aborted.promise;
  assert.equal(runner.active, 0);
  finish.resolve();
  await turn(); // the handler has settled
  assert.deepEqual(await store.get(record.taskId), cancelled);
  assert.equal(updates, 1, 'the late outcome was not even written');
  assert.deepEqual(await runner.cancel(record.taskId), cancelled, 'cancel of a terminal task returns it unchanged');
  assert.equal(await runner.cancel('unknown'), undefined);
  await runner.close();
  await store.close();
});

test('cancel while the handler waits for input rejects that input; cancel after completion leaves it completed', async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  let id = '';
  const parked = reaches(runner, () => id, 'input_required');
  const inputRejected = deferred<unknown>();
  id = (
    await runner.start(
      (ctx) =>
        ctx.input({ q: 1 }).then(
          () => OK,
          (reason) => {
            inputRejected.resolve(reason);
            throw reason;
          },
        ),
      { owner: 'o' },
    )
  ).taskId;
  await parked;
  assert.equal((await runner.cancel(id))?.status, 'cancelled');
  assert.equal(((await inputRejected.promise) as Error).name, 'AbortError');

  let quick = '';
  const done = reaches(runner, () => quick, 'completed');
  quick = (await runner.start(() => OK, { owner: 'o' })).taskId;
  await done;
  assert.equal((await runner.cancel(quick))?.status, 'completed', 'the task had already finished');
  await runner.close();
  await store.close();
});

test('a running task whose TTL elapses is aborted and its record freed: store size and active back to zero', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const store = new MemoryTaskStore();
  const logger = new MemoryLogger();
  const runner = new TaskRunner(store, logger);
  const { handler, aborted } = untilAborted();
  await runner.start(handler, { owner: 'o', ttlMs: 1000 });
  assert.equal(store.size, 1);
  t.mock.timers.tick(1000);
  assert.equal(store.size, 0);
  assert.equal(runner.active, 0);
  assert.equal((await aborted).aborted, true);
  assert.deepEqual(logger.errors, [], 'the aborted handler is not reported as a failure');
  await runner.close();
  await store.close();
});

test('a store granting more than setTimeout keeps does not end the task at once', async () => {
  const inner = new MemoryTaskStore();
  const generous: TaskStore = {
    create: async (task) => ({ ...(await inner.create(task)), ttlMs: 2 ** 40 }),
    get: (taskId) => inner.get(taskId),
    update: (taskId, change) => inner.update(taskId, change),
    list: (owner, cursor, size) => inner.list(owner, cursor, size),
    delete: (taskId) => inner.delete(taskId),
    close: () => inner.close(),
  };
  const runner = new TaskRunner(generous, new MemoryLogger());
  const { handler, aborted } = untilAborted();
  const record = await runner.start(handler, { owner: 'o' });
  // setTimeout takes a delay past 2^31 - 1 as 1 ms: a 1 ms timer armed after start fires after such a deadline
  // (timers of one duration fire in the order they were armed), so this is an ordering signal, not a sleep.
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(runner.active, 1);
  assert.equal((await runner.cancel(record.taskId))?.status, 'cancelled');
  await aborted;
  await runner.close();
  await inner.close();
});

test('a store that fails a write ends the task here: logged, handler aborted, nothing left running', async () => {
  const inner = new MemoryTaskStore();
  const failing: TaskStore = {
    create: (task) => inner.create(task),
    get: (taskId) => inner.get(taskId),
    update: async () => {
      throw new Error('store down');
    },
    list: (owner, cursor, size) => inner.list(owner, cursor, size),
    delete: (taskId) => inner.delete(taskId),
    close: () => inner.close(),
  };
  const logger = new MemoryLogger();
  const runner = new TaskRunner(failing, logger);
  const aborted = deferred();
  await runner.start(
    async (ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      await ctx.setStatusMessage('first write');
      return OK;
    },
    { owner: 'o' },
  );
  await aborted.promise;
  assert.equal(runner.active, 0);
  assert.match(logger.errors[0]!.message, /the store refused a write/);
  await runner.close();
  await inner.close();
});

test('a result JSON cannot carry (a BigInt, a cycle) fails the task -32603, logged: the record never stays working with no runner', async () => {
  const store = new MemoryTaskStore();
  const logger = new MemoryLogger();
  const runner = new TaskRunner(store, logger);
  const cyclic: Record<string, unknown> = { content: [] };
  cyclic.self = cyclic;
  for (const result of [{ content: [], structuredContent: { n: 1n } }, cyclic]) {
    let id = '';
    const failed = reaches(runner, () => id, 'failed');
    id = (await runner.start(async () => result, { owner: 'o' })).taskId;
    const record = await failed;
    assert.deepEqual(record.error, { code: -32603, message: 'Internal error' });
    assert.deepEqual(await store.get(id), record);
  }
  assert.equal(runner.active, 0);
  assert.equal(logger.errors.length, 2);
  for (const entry of logger.errors) assert.match(entry.message, /the store refused a write/);
  await runner.close();
  await store.close();
});

test('a throwing status listener is logged and the other listeners still hear; a removed listener hears nothing', async () => {
  const store = new MemoryTaskStore();
  const logger = new MemoryLogger();
  const runner = new TaskRunner(store, logger);
  const removed: TaskRecord[] = [];
  runner.onStatus(() => {
    throw new Error('listener bug');
  });
  runner.onStatus((record) => removed.push(record))();
  let id = '';
  const done = reaches(runner, () => id, 'completed');
  id = (await runner.start(() => OK, { owner: 'o' })).taskId;
  await done;
  assert.deepEqual(removed, []);
  assert.match(logger.errors[0]!.message, /a task status listener failed/);
  await runner.close();
  await store.close();
});

test('close() with tasks running aborts every handler and records them cancelled; the store then closes empty', async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  const handlers = Array.from({ length: 5 }, () => untilAborted());
  const ids: string[] = [];
  for (const { handler } of handlers) ids.push((await runner.start(handler, { owner: 'o' })).taskId);
  const pending = runner.start(() => OK, { owner: 'o' }); // its create is still pending when close() begins
  await runner.close();
  for (const { aborted } of handlers) assert.equal((await aborted).aborted, true);
  for (const id of ids) {
    const record = await store.get(id);
    assert.equal(record?.status, 'cancelled');
    assert.equal(record?.statusMessage, 'The server shut down');
  }
  const late = await pending;
  assert.equal(late.status, 'cancelled', 'a task created while closing never runs');
  assert.equal(runner.active, 0);
  await assert.rejects(
    runner.start(() => OK, { owner: 'o' }),
    /the server is shutting down/,
  );
  await store.close();
  assert.equal(store.size, 0);
});

test("a task's own status listener hears its terminal transition: completed, cancelled, and shut down by close()", async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  const heard: Record<string, TaskStatus[]> = { done: [], doomed: [], closed: [] };
  const listener = (name: string) => (record: TaskRecord) => heard[name]!.push(record.status);
  const finish = deferred();
  const work = async () => {
    await finish.promise;
    return OK;
  };
  const done = await runner.start(work, { owner: 'o', onStatus: listener('done') });
  await runner.start(untilAborted().handler, { owner: 'o', onStatus: listener('closed') });
  const doomed = await runner.start(untilAborted().handler, { owner: 'o', onStatus: listener('doomed') });
  const completed = reaches(runner, () => done.taskId, 'completed');
  finish.resolve();
  await completed;
  await runner.cancel(doomed.taskId);
  await runner.close();
  assert.deepEqual(heard, { done: ['completed'], doomed: ['cancelled'], closed: ['cancelled'] });
  await store.close();
});

test('a 1000-task storm leaves no record and no timer behind after close()', async () => {
  const timers = timeoutCounter();
  try {
    await turn();
    const before = timers.live.size;
    const store = new MemoryTaskStore();
    const runner = new TaskRunner(store, new MemoryLogger());
    const handlers = Array.from({ length: 1000 }, () => untilAborted());
    // Ten owners: each within its default share (maxTasksPerOwner, 100).
    await Promise.all(handlers.map(({ handler }, i) => runner.start(handler, { owner: `o${i % 10}` })));
    assert.equal(store.size, 1000);
    assert.equal(runner.active, 1000);
    assert.ok(timers.live.size >= before + 2000, 'a store timer and a runner deadline per task');
    await runner.close();
    await Promise.all(handlers.map(({ aborted }) => aborted));
    await store.close();
    assert.equal(store.size, 0);
    assert.equal(runner.active, 0);
    await turn();
    assert.equal(timers.live.size, before, 'every timer was cleared');
  } finally {
    timers.disable();
  }
});

test('a 1000-task storm leaves no record and no timer behind after expiry', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const store = new MemoryTaskStore({ maxTtlMs: 5000 });
  const runner = new TaskRunner(store, new MemoryLogger());
  const handlers = Array.from({ length: 1000 }, () => untilAborted());
  const start = ({ handler }: (typeof handlers)[number], i: number) =>
    runner.start(handler, { owner: `o${i % 10}`, ttlMs: 1 + (i % 5000) });
  await Promise.all(handlers.map(start));
  assert.equal(store.size, 1000);
  t.mock.timers.tick(5000);
  assert.equal(store.size, 0);
  assert.equal(runner.active, 0);
  await Promise.all(handlers.map(({ aborted }) => aborted));
  await runner.close();
  await store.close();
});

test('a prepared task ended before its commit creates nothing: cancelled by its owner, or its runner closed', async () => {
  const store = new MemoryTaskStore();
  const runner = new TaskRunner(store, new MemoryLogger());
  const cancelled = runner.prepare({ owner: 'gone' });
  await runner.cancelOwned('gone');
  assert.equal(cancelled.context.signal.aborted, true, 'the handler that already started is aborted');
  let worked = false;
  await assert.rejects(
    cancelled.commit(async () => {
      worked = true;
      return OK;
    }),
    /cancelled before it was created/,
  );
  const unclosed = runner.prepare({ owner: 'o' });
  await runner.close(); // a prepared, never committed task does not hold close() up
  await assert.rejects(
    unclosed.commit(async () => OK),
    /the server is shutting down/,
  );
  assert.equal(worked, false);
  assert.equal(store.size, 0);
  assert.equal(runner.active, 0);
  await store.close();
});

test('a write past the store-wide byte bound, once terminal records are evicted, is the task failure naming what was too large', async () => {
  const store = new MemoryTaskStore({ maxBytes: 2048, maxBytesPerOwner: 2048 });
  const big = 'x'.repeat(2048);
  const changes: [TaskChange, string][] = [
    [{ status: 'failed', error: { code: 1, message: big } }, 'error'],
    [{ status: 'input_required', inputRequests: { k: big } }, 'input requests'],
    [{ status: 'working', statusMessage: big }, 'status message'],
  ];
  for (const [index, [change, what]] of changes.entries()) {
    const taskId = `t${index}`;
    await store.create({ taskId, owner: `o${index}`, pollIntervalMs: 1 });
    const record = await store.update(taskId, change);
    const message = `Internal error: the task's ${what} exceeded 2048 bytes of task records (maxBytesPerOwner)`;
    assert.equal(record?.status, 'failed', what);
    assert.equal(record?.statusMessage, message);
    assert.deepEqual(record?.error, { code: -32603, message, data: { maxBytesPerOwner: 2048 } });
  }
  // Each owner's share holds its result, the store not both: the older finished one is evicted for the newer.
  const fits = { content: [{ type: 'text', text: 'y'.repeat(1200) }] };
  await store.create({ taskId: 'a', owner: 'a', pollIntervalMs: 1 });
  await store.create({ taskId: 'b', owner: 'b', pollIntervalMs: 1 });
  await store.create({ taskId: 'c', owner: 'c', pollIntervalMs: 1 });
  assert.equal((await store.update('a', { status: 'completed', result: fits }))?.status, 'completed');
  assert.equal((await store.update('b', { status: 'completed', result: fits }))?.status, 'completed');
  assert.equal(await store.get('t0'), undefined, 'the oldest finished record went first');
  assert.ok(store.bytes <= 2048, `${store.bytes}`);
  // Only live records left to evict: the write fails its task, naming the store's bound.
  await store.delete('a');
  await store.update('c', { status: 'working', statusMessage: 'z'.repeat(600) });
  const crowded = await store.update('b', { status: 'working' });
  assert.equal(crowded, undefined, 'a terminal record never changes');
  await store.create({ taskId: 'd', owner: 'd', pollIntervalMs: 1 });
  const failed = await store.update('d', { status: 'working', statusMessage: 'w'.repeat(900) });
  assert.deepEqual(failed?.error?.data, { maxBytes: 2048 });
  await store.close();
  assert.equal(store.bytes, 0);
});

test('a terminal record keeps only the retention unless a TTL was asked for, at creation or by a later change', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const store = new MemoryTaskStore({ retentionMs: 1000 });
  await store.create({ taskId: 'brief', owner: 'o', pollIntervalMs: 1 });
  await store.create({ taskId: 'asked', owner: 'o', ttlMs: 60_000, pollIntervalMs: 1 });
  await store.create({ taskId: 'later', owner: 'o', pollIntervalMs: 1 });
  await store.update('later', { status: 'working', ttlMs: 30_000 });
  t.mock.timers.tick(500);
  for (const taskId of ['brief', 'asked', 'later']) await store.update(taskId, { status: 'completed', result: {} });
  assert.equal((await store.get('brief'))?.ttlMs, 1500); // finished 500 ms after its creation, kept 1000 more
  assert.equal((await store.get('asked'))?.ttlMs, 60_000);
  assert.equal((await store.get('later'))?.ttlMs, 30_000);
  t.mock.timers.tick(1001);
  assert.equal(await store.get('brief'), undefined);
  assert.equal(store.size, 2);
  await store.close();
});

test("a write too large for its owner's bound even with nothing else stored evicts nothing: the owner's finished records stay", async () => {
  const store = new MemoryTaskStore({ maxBytesPerOwner: 2048 });
  await store.create({ taskId: 'done', owner: 'o', pollIntervalMs: 1 });
  const done = await store.update('done', { status: 'completed', result: { content: [] } });
  await store.create({ taskId: 'live', owner: 'o', pollIntervalMs: 1 });
  // 2 177 bytes (256, the owner, a 1 920-character body): past 2 048 alone, by less than the record weighed before.
  const failed = await store.update('live', { status: 'working', statusMessage: 's'.repeat(1900) });
  assert.deepEqual(failed?.error?.data, { maxBytesPerOwner: 2048 });
  assert.deepEqual(await store.get('done'), done, 'no eviction could have made room: none was made');
  await store.close();
});
