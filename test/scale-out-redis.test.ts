// The scale-out proof on a real Redis: three workers (examples/scale-out.ts --redis, one MCP_STATE_SECRET) behind a
// real haproxy balancing each request on its own (round robin, no stickiness), so consecutive requests land on
// different workers (the `x-served-by` header haproxy adds names which). Both eras across workers: an
// input_required retry (and its refusal when the workers' secrets differ), listen fan-out, a 2025 session whose
// state, GET-stream notifications, stream resumption, elicitation answers and cancels cross workers, a Redis outage and its
// recovery, a session that outlives the worker that created it; at the end no `mcp:*` key is left without a TTL.

import assert from 'node:assert/strict';
import { after, before, type TestContext, test } from 'node:test';
import { createClient } from 'redis';
import {
  type Cleanup,
  type Exit,
  findBinary,
  type HaproxyService,
  needBinary,
  type RedisService,
  startHaproxy,
  startRedis,
  startWorker,
  type WorkerService,
} from './services.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_CAPABILITIES, EVERYTHING_INFO, type Id, MODERN, modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 60_000 }; // a safety net against hangs only; no assertion depends on time
const SECRET = 'scale-out-test-secret-0123456789abcdef';
const LEGACY = '2025-11-25';
/** The workers' task lease: how soon a killed worker's running task reads failed. */
const LEASE_MS = 1000;
const TASKS = 'io.modelcontextprotocol/tasks';

let redis: RedisService | undefined;
let workers: WorkerService[] = [];
let haproxy: HaproxyService | undefined;
const stops: Array<() => unknown> = [];
const shared: Cleanup = { after: (stop) => void stops.push(stop) };
const killed = new Set<WorkerService>();

before(async () => {
  const redisBinary = findBinary('redis-server');
  const haproxyBinary = findBinary('haproxy');
  if (redisBinary === undefined || haproxyBinary === undefined) return; // each test says so (needBinary)
  redis = await startRedis(shared, redisBinary);
  workers = await Promise.all(
    [1, 2, 3].map(() =>
      startWorker(shared, ['--redis', redis!.url], { MCP_STATE_SECRET: SECRET, MCP_TASK_LEASE_MS: String(LEASE_MS) }),
    ),
  );
  haproxy = await startHaproxy(shared, haproxyBinary, {
    backends: workers.map((worker) => worker.address),
    balance: 'roundrobin',
  });
});

after(async () => {
  const exits = await Promise.all(workers.filter((worker) => !killed.has(worker)).map((worker) => worker.stop()));
  await Promise.all(stops.map((stop) => stop()));
  for (const exit of exits) assert.deepEqual(exit, { code: 0, signal: null } satisfies Exit);
});

/** The fleet, or undefined (the test skipped locally, failed with CI=true) when a binary is missing. */
function fleet(t: TestContext): { url: string } | undefined {
  if (needBinary(t, 'redis-server') === undefined || needBinary(t, 'haproxy') === undefined) return undefined;
  return { url: haproxy!.url };
}

type Headers = Record<string, string>;

function modernHeaders(method: string, name?: string): Headers {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

function post(url: string, headers: Headers, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
}

/** Which worker (haproxy's server name, w1…w3) answered. */
function servedBy(response: Response): string {
  const name = response.headers.get('x-served-by');
  assert.match(name ?? '', /^w[1-3]$/);
  return name!;
}

async function callModern(url: string, name: string, args: object, id: Id, extra: object = {}, meta: object = {}) {
  const response = await post(
    url,
    modernHeaders('tools/call', name),
    modern('tools/call', { name, arguments: args, ...extra }, id, meta),
  );
  assert.equal(response.status, 200);
  return { by: servedBy(response), body: (await response.json()) as Record<string, any> };
}

// ---------------------------------------------------------------------------------------------------------------
// 2026-07-28

test('an input_required round answered by one worker is retried on another, and completes', T, async (t) => {
  const deployment = fleet(t);
  if (deployment === undefined) return;
  const ELICIT = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
  const tool = 'test_input_required_result_request_state';
  const first = await callModern(deployment.url, tool, {}, 'r1', {}, ELICIT);
  assert.equal(first.body.result.resultType, 'input_required', JSON.stringify(first.body));
  const retry = await callModern(
    deployment.url,
    tool,
    {},
    'r2',
    {
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: first.body.result.requestState,
    },
    ELICIT,
  );
  assert.notEqual(retry.by, first.by, 'the retry landed on another worker');
  assert.deepEqual(retry.body, {
    jsonrpc: '2.0',
    id: 'r2',
    result: {
      resultType: 'complete',
      content: [{ type: 'text', text: 'Confirmed with state-ok (action=accept)' }],
      _meta: { [SERVER_INFO]: EVERYTHING_INFO },
    },
  });
});

test('control: workers with different requestState secrets refuse a retry on another worker (-32602)', T, async (t) => {
  const deployment = fleet(t);
  if (deployment === undefined) return;
  // Two more workers, each with a random secret of its own (no MCP_STATE_SECRET), behind their own haproxy.
  const own = await Promise.all([1, 2].map(() => startWorker(t, ['--redis', redis!.url])));
  const proxy = await startHaproxy(t, findBinary('haproxy')!, {
    backends: own.map((worker) => worker.address),
    balance: 'roundrobin',
  });
  const ELICIT = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
  const tool = 'test_input_required_result_request_state';
  const first = await callModern(proxy.url, tool, {}, 'c1', {}, ELICIT);
  assert.equal(first.body.result.resultType, 'input_required');
  const retry = await callModern(
    proxy.url,
    tool,
    {},
    'c2',
    {
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: first.body.result.requestState,
    },
    ELICIT,
  );
  assert.notEqual(retry.by, first.by);
  assert.equal(retry.body.error?.code, -32602, JSON.stringify(retry.body));
  assert.deepEqual(await proxy.stop(), { code: 0, signal: null });
  for (const worker of own) assert.deepEqual(await worker.stop(), { code: 0, signal: null });
});

test(
  'listen fan-out: one change made on any worker reaches a listen stream on every worker, once each',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const notifications = { toolsListChanged: true };
    const listens: { by: string; reader: SseReader; abort: AbortController }[] = [];
    for (const id of ['L1', 'L2', 'L3']) {
      const abort = new AbortController();
      const response = await post(
        deployment.url,
        modernHeaders('subscriptions/listen'),
        modern('subscriptions/listen', { notifications }, id),
        abort.signal,
      );
      const reader = new SseReader(response);
      assert.deepEqual(await reader.message(), {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
      });
      listens.push({ by: servedBy(response), reader, abort });
    }
    assert.deepEqual(listens.map((listen) => listen.by).sort(), ['w1', 'w2', 'w3'], 'one listen on each worker');
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'touch');
    await callModern(deployment.url, 'test_trigger_prompt_change', {}, 'untouched'); // a change none asked for
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'touch2');
    for (const [index, listen] of listens.entries()) {
      const changed = {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: `L${index + 1}` } },
      };
      // Exactly one per change: the second change's event comes right after the first one's.
      assert.deepEqual(await listen.reader.message(), changed);
      assert.deepEqual(await listen.reader.message(), changed);
      listen.abort.abort();
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 2025 sessions

function legacyHeaders(session?: string): Headers {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY,
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
  };
}

/** A 2025-11-25 session opened through the balancer: its id and the worker that initialized it. */
async function openSession(url: string, capabilities: object = {}): Promise<{ id: string; by: string }> {
  const response = await post(url, legacyHeaders(), {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities, clientInfo: { name: 'scale-out-test', version: '1' } },
  });
  assert.equal(response.status, 200);
  const id = response.headers.get('mcp-session-id')!;
  assert.ok(id);
  const by = servedBy(response);
  await response.text();
  const initialized = await post(url, legacyHeaders(id), { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(initialized.status, 202);
  return { id, by };
}

/** One request of a session; its answer (read from JSON or from the SSE stream) and who served it. */
async function sessionCall(url: string, session: string, id: Id, method: string, params: object = {}) {
  const response = await post(url, legacyHeaders(session), { jsonrpc: '2.0', id, method, params });
  const by = response.headers.has('x-served-by') ? servedBy(response) : 'direct'; // a worker's own url: no balancer
  if (response.headers.get('content-type') === 'text/event-stream') {
    const reader = new SseReader(response);
    const messages: Record<string, any>[] = [];
    for (let event = await reader.next(); event !== undefined; event = await reader.next())
      messages.push(event.message);
    return { status: response.status, by, messages };
  }
  const text = await response.text();
  return { status: response.status, by, messages: text === '' ? [] : [JSON.parse(text)] };
}

test(
  'a 2025 session initialized on one worker is served by every worker, with the log level set through another',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const pids = new Set<string>();
    for (const id of [1, 2, 3]) {
      const { status, messages } = await sessionCall(deployment.url, session.id, id, 'tools/call', {
        name: 'whoami',
        arguments: {},
      });
      assert.equal(status, 200);
      pids.add(messages[0]!.result.content[0].text);
    }
    assert.equal(pids.size, 3, 'three workers served the session');
    const level = await sessionCall(deployment.url, session.id, 4, 'logging/setLevel', { level: 'error' });
    assert.deepEqual(level.messages, [{ jsonrpc: '2.0', id: 4, result: {} }]);
    // Every worker now filters the tool's info logs: the answers carry no notifications/message.
    const servers = new Set<string>();
    for (const id of [5, 6, 7]) {
      const call = await sessionCall(deployment.url, session.id, id, 'tools/call', {
        name: 'test_tool_with_logging',
        arguments: {},
      });
      servers.add(call.by);
      assert.deepEqual(
        call.messages.map((message) => message.method ?? 'answer'),
        ['answer'],
      );
    }
    assert.equal(servers.size, 3);
    const deleted = await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) });
    assert.equal(deleted.status, 200);
  },
);

test(
  'GET stream on one worker: a subscription made on another and changes made on a third reach it exactly once',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const abort = new AbortController();
    const get = await fetch(deployment.url, {
      headers: { ...legacyHeaders(session.id), accept: 'text/event-stream' },
      signal: abort.signal,
    });
    const holder = servedBy(get);
    const stream = new SseReader(get);
    const uri = 'test://watched-resource';
    const subscribed = await sessionCall(deployment.url, session.id, 1, 'resources/subscribe', { uri });
    assert.notEqual(subscribed.by, holder);
    assert.deepEqual(subscribed.messages, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    const publish = async (id: Id, args: object): Promise<string> => {
      const call = await sessionCall(deployment.url, session.id, id, 'tools/call', {
        name: 'test_publish',
        arguments: args,
      });
      assert.equal(call.messages.at(-1)?.result?.isError, undefined, JSON.stringify(call.messages));
      return call.by;
    };
    const byUpdate = await publish(2, { event: 'resource', uri });
    const byOther = await publish(3, { event: 'resource', uri: 'test://not-subscribed' });
    const byList = await publish(4, { event: 'tools' });
    assert.ok([byUpdate, byOther, byList].some((by) => by !== holder));
    assert.deepEqual(await stream.message(), {
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri },
    });
    assert.deepEqual(await stream.message(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    // Unsubscribed through yet another worker: the next update is not sent, the next list change is.
    const unsubscribed = await sessionCall(deployment.url, session.id, 5, 'resources/unsubscribe', { uri });
    assert.deepEqual(unsubscribed.messages, [{ jsonrpc: '2.0', id: 5, result: {} }]);
    await publish(6, { event: 'resource', uri });
    await publish(7, { event: 'prompts' });
    assert.deepEqual(await stream.message(), { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    abort.abort();
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

/** A session's `test_sleep` call of `ms` with a progress token: its POST stream, which `signal` disconnects. */
function sleepWithProgress(url: string, session: string, id: Id, ms: number, signal: AbortSignal): Promise<Response> {
  const params = { name: 'test_sleep', arguments: { ms }, _meta: { progressToken: 'p' } };
  return post(url, legacyHeaders(session), { jsonrpc: '2.0', id, method: 'tools/call', params }, signal);
}

/** Reads a POST stream of `test_sleep` until `count` progress events came; the last event id and the messages. */
async function progressUntil(reader: SseReader, count: number) {
  const messages: Record<string, any>[] = [];
  let lastId: string | undefined;
  while (messages.length < count) {
    const event = await reader.next();
    assert.ok(event !== undefined, 'the stream ended early');
    assert.equal(event.message.method, 'notifications/progress');
    messages.push(event.message);
    lastId = event.id;
  }
  return { messages, lastId: lastId! };
}

test(
  'Last-Event-ID served by another worker: the replay, then the live rest of the stream, answer included',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const abort = new AbortController();
    const response = await sleepWithProgress(deployment.url, session.id, 'sleep', 1000, abort.signal);
    const origin = servedBy(response);
    const first = await progressUntil(new SseReader(response), 2);
    abort.abort(); // a disconnect, not a cancellation: the original worker goes on
    const resumed = await fetch(deployment.url, {
      headers: { ...legacyHeaders(session.id), accept: 'text/event-stream', 'last-event-id': first.lastId },
    });
    assert.notEqual(servedBy(resumed), origin, 'another worker serves the resumption');
    const reader = new SseReader(resumed);
    const rest: Record<string, any>[] = [];
    for (let event = await reader.next(); event !== undefined; event = await reader.next()) rest.push(event.message);
    const answer = rest.pop();
    assert.deepEqual(answer, {
      jsonrpc: '2.0',
      id: 'sleep',
      result: { content: [{ type: 'text', text: 'Slept 1000 ms' }] },
    });
    const progress = [...first.messages, ...rest].map((message) => message.params.progress);
    assert.ok(rest.length > 0, 'progress went on after the resumption');
    assert.deepEqual(
      progress,
      [...progress].sort((a, b) => a - b),
      'in order, no duplicates',
    );
    assert.equal(new Set(progress).size, progress.length);
    assert.equal(progress.at(-1), 1000);
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

test(
  'a Redis outage answers 503 with a JSON-RPC error, stateless calls go on, and it recovers by itself',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    redis!.process.kill('SIGSTOP');
    try {
      const initialize = await post(deployment.url, legacyHeaders(), {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'outage', version: '1' } },
      });
      assert.equal(initialize.status, 503);
      assert.equal(initialize.headers.get('mcp-session-id'), null, 'no session without its record');
      assert.equal(((await initialize.json()) as any).error.code, -32603);
      const existing = await sessionCall(deployment.url, session.id, 1, 'ping');
      assert.equal(existing.status, 503, 'never 404');
      assert.equal(existing.messages[0]!.error.code, -32603);
      for (const id of ['s1', 's2', 's3']) {
        const call = await callModern(deployment.url, 'whoami', {}, id);
        assert.equal(call.body.result.resultType, 'complete');
      }
    } finally {
      redis!.process.kill('SIGCONT');
    }
    for (const id of [2, 3, 4]) {
      const again = await sessionCall(deployment.url, session.id, id, 'ping');
      assert.deepEqual(again.messages, [{ jsonrpc: '2.0', id, result: {} }]);
    }
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

test(
  'an elicitation sent by one worker is answered through another: the client response reaches the asker',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url, { elicitation: {} });
    const call = await post(deployment.url, legacyHeaders(session.id), {
      jsonrpc: '2.0',
      id: 'ask',
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Who are you?' } },
    });
    const asker = servedBy(call);
    const stream = new SseReader(call);
    const request = await stream.message();
    assert.equal(request.method, 'elicitation/create');
    assert.equal(typeof request.id, 'number');
    const content = { username: 'ada', email: 'ada@example.com' };
    const answer = await post(deployment.url, legacyHeaders(session.id), {
      jsonrpc: '2.0',
      id: request.id,
      result: { action: 'accept', content },
    });
    assert.equal(answer.status, 202);
    assert.notEqual(servedBy(answer), asker, 'the response landed on another worker');
    assert.deepEqual(await stream.message(), {
      jsonrpc: '2.0',
      id: 'ask',
      result: {
        content: [{ type: 'text', text: `User response: action=accept, content=${JSON.stringify(content)}` }],
      },
    });
    assert.equal(await stream.next(), undefined);
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

test(
  'a 2025 cancel POSTed to another worker reaches the one running the request: its handler aborts, its stream ends unanswered',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const call = await post(deployment.url, legacyHeaders(session.id), {
      jsonrpc: '2.0',
      id: 'slow',
      method: 'tools/call',
      params: { name: 'slow', arguments: {}, _meta: { progressToken: 'p' } },
    });
    const runner = worker(servedBy(call));
    const stream = new SseReader(call);
    assert.equal((await stream.message()).method, 'notifications/progress', 'the call runs');
    const stopped = printed(runner, new RegExp(`call "slow" cancelled on ${runner.pid}`));
    const cancel = await post(deployment.url, legacyHeaders(session.id), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'slow', reason: 'no longer needed' },
    });
    assert.equal(cancel.status, 202);
    assert.notEqual(servedBy(cancel), servedBy(call), 'the cancel landed on another worker');
    await stopped; // the handler's signal aborted, on the worker running it
    assert.equal(await stream.next(), undefined, 'the stream ended with no answer');
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Tasks (mcp-core/tasks on the Redis task store)

/** The worker haproxy names `by` (w1…w3). */
function worker(by: string): WorkerService {
  return workers[Number(by.slice(1)) - 1]!;
}

/** A worker other than the one haproxy names `by`. */
function elsewhere(by: string): WorkerService {
  return workers.find((other) => other !== worker(by) && !killed.has(other))!;
}

/** Resolves once `service` has written a line matching `pattern` (its own output is the signal). */
function printed(service: WorkerService, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const look = (): void => {
      if (!pattern.test(service.output())) return;
      service.process.stderr!.off('data', look);
      resolve();
    };
    service.process.stderr!.on('data', look);
    look();
  });
}

/** A 2026-07-28 client that declares the tasks extension and elicitation. */
const TASK_CLIENT = { [CLIENT_CAPABILITIES]: { extensions: { [TASKS]: {} }, elicitation: {} } };

/** A 2026-07-28 `tasks/*` request through the balancer: its result (or error) and who served it. */
async function taskRequest(url: string, method: string, taskId: string, id: Id, extra: object = {}) {
  const response = await post(
    url,
    modernHeaders(method, taskId),
    modern(method, { taskId, ...extra }, id, TASK_CLIENT),
  );
  assert.equal(response.status, 200);
  return { by: servedBy(response), body: (await response.json()) as Record<string, any> };
}

/**
 * Asks `tasks/get` through the balancer until the task's status is `status` (each answer is the signal for the
 * next question; the test's timeout bounds it), then returns that answer.
 */
async function untilStatus(url: string, taskId: string, status: string): Promise<Record<string, any>> {
  for (let round = 0; ; round++) {
    const { body } = await taskRequest(url, 'tasks/get', taskId, `poll-${round}`);
    assert.equal(body.error, undefined, JSON.stringify(body));
    if (body.result.status === status) return body.result;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test(
  'a 2026 task created on one worker is read at once on another, answered and cancelled through the others',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const held = await callModern(deployment.url, 'hold', {}, 'hold', {}, TASK_CLIENT);
    assert.equal(held.body.result.resultType, 'task');
    const { taskId } = held.body.result;
    const owner = worker(held.by);
    // The create was durable before the answer: the very next request, on another worker, finds it.
    const read = await taskRequest(deployment.url, 'tasks/get', taskId, 'get');
    assert.notEqual(read.by, held.by);
    assert.equal(read.body.result.status, 'working');
    const stopped = printed(owner, new RegExp(`task ${taskId} stopped on ${owner.pid}`));
    const cancel = await taskRequest(deployment.url, 'tasks/cancel', taskId, 'cancel');
    assert.notEqual(cancel.by, held.by);
    assert.equal(cancel.body.result.resultType, 'complete');
    await stopped; // the handler on the owner was aborted
    const after = await taskRequest(deployment.url, 'tasks/get', taskId, 'after');
    assert.equal(after.body.result.status, 'cancelled');

    // An input request of a task on one worker, answered by tasks/update through another.
    const asked = await callModern(deployment.url, 'confirm_delete', { filename: 'f' }, 'ask', {}, TASK_CLIENT);
    assert.equal(asked.body.result.resultType, 'task');
    const waiting = await untilStatus(deployment.url, asked.body.result.taskId, 'input_required');
    assert.equal(waiting.inputRequests['input-1'].method, 'elicitation/create');
    // Straight to a worker that does not run the task, as a balancer could route it.
    const update = await post(
      elsewhere(asked.by).url,
      modernHeaders('tasks/update', asked.body.result.taskId),
      modern(
        'tasks/update',
        {
          taskId: asked.body.result.taskId,
          inputResponses: { 'input-1': { action: 'accept', content: { confirm: true } } },
        },
        'update',
        TASK_CLIENT,
      ),
    ).then((response) => response.json() as Promise<Record<string, any>>);
    assert.equal(update.result.resultType, 'complete');
    const done = await untilStatus(deployment.url, asked.body.result.taskId, 'completed');
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'Deleted f' }]);
  },
);

test(
  'a 2025 task is listed, read, answered through tasks/result and cancelled through other workers, and expires',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url, { elicitation: {} });
    const start = async (id: Id, name: string, args: object, ttl?: number) => {
      const call = await sessionCall(deployment.url, session.id, id, 'tools/call', {
        name,
        arguments: args,
        task: ttl === undefined ? {} : { ttl },
      });
      assert.equal(call.status, 200);
      const answer = call.messages.at(-1)!;
      assert.equal(answer.result.task.status, 'working', JSON.stringify(answer));
      return { by: call.by, taskId: answer.result.task.taskId as string };
    };
    const brief = await start(1, 'hold', {}, 1500);
    const listed = await sessionCall(deployment.url, session.id, 2, 'tasks/list');
    assert.notEqual(listed.by, brief.by);
    assert.deepEqual(
      listed.messages[0].result.tasks.map((task: { taskId: string }) => task.taskId),
      [brief.taskId],
    );
    // It expires: the owner's handler stops at the deadline, and every worker then knows no such task.
    const owner = worker(brief.by);
    await printed(owner, new RegExp(`task ${brief.taskId} stopped on ${owner.pid}`));
    for (let id = 3; ; id++) {
      const read = await sessionCall(deployment.url, session.id, id, 'tasks/get', { taskId: brief.taskId });
      if (read.messages[0].error !== undefined) {
        assert.equal(read.messages[0].error.code, -32602);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // Cancelled through another worker: stored cancelled before the answer, and the owner's handler stops.
    const long = await start(10, 'hold', {});
    const longOwner = worker(long.by);
    const stopped = printed(longOwner, new RegExp(`task ${long.taskId} stopped on ${longOwner.pid}`));
    const cancelled = await sessionCall(deployment.url, session.id, 11, 'tasks/cancel', { taskId: long.taskId });
    assert.notEqual(cancelled.by, long.by);
    assert.equal(cancelled.messages[0].result.status, 'cancelled');
    await stopped;

    // An input request delivered on a tasks/result stream held by another worker, answered through a third.
    const asked = await start(20, 'confirm_delete', { filename: 'g' });
    let result: Response;
    do {
      result = await post(deployment.url, legacyHeaders(session.id), {
        jsonrpc: '2.0',
        id: 'result',
        method: 'tasks/result',
        params: { taskId: asked.taskId },
      });
      if (servedBy(result) === asked.by) await result.body?.cancel();
    } while (servedBy(result) === asked.by);
    const stream = new SseReader(result);
    const request = await stream.message();
    assert.equal(request.method, 'elicitation/create');
    assert.deepEqual(request.params._meta, { 'io.modelcontextprotocol/related-task': { taskId: asked.taskId } });
    // Answered straight to the third worker: neither the task's nor the stream's.
    const third = workers.find((other) => other !== worker(asked.by) && other !== worker(servedBy(result)))!;
    const answer = await post(third.url, legacyHeaders(session.id), {
      jsonrpc: '2.0',
      id: request.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    assert.equal(answer.status, 202);
    const final = await stream.message();
    assert.equal(final.id, 'result');
    assert.deepEqual(final.result.content, [{ type: 'text', text: 'Deleted g' }]);
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// A 2025 session's GET stream across workers

/** Opens a GET stream of `session` through the balancer (resuming `lastEventId` when given). */
async function openGet(url: string, session: string, lastEventId?: string) {
  const abort = new AbortController();
  const headers: Headers = { ...legacyHeaders(session), accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const response = await fetch(url, { headers, signal: abort.signal });
  assert.equal(response.status, 200);
  const by = response.headers.has('x-served-by') ? servedBy(response) : 'direct'; // a worker's own url: no balancer
  return { by, reader: new SseReader(response), abort };
}

/** The messages Redis holds for one stream of a session (the stream of event id `eventId`), priming ones excluded. */
async function storedOn(session: string, eventId: string): Promise<Record<string, any>[]> {
  const client = createClient({ url: redis!.url });
  await client.connect();
  try {
    const streamId = eventId.slice(0, eventId.lastIndexOf('_'));
    const entries = await client.xRange(`mcp:events:${session}:${streamId}`, '-', '+');
    return (entries ?? []).filter((entry) => entry.message.d !== '').map((entry) => JSON.parse(entry.message.d!));
  } finally {
    await client.close();
  }
}

const TOOLS_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };

/** Resolves once Redis names a GET stream of `session` other than `streamId` (asked again after each answer). */
async function untilHolderIsNot(session: string, streamId: string): Promise<void> {
  const client = createClient({ url: redis!.url });
  await client.connect();
  try {
    for (;;) {
      const held = await client.get(`mcp:session-get:${session}`);
      if (held !== null && (JSON.parse(held) as { id: string }).id !== streamId) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await client.close();
  }
}

test(
  "a message for no request produced on another worker reaches the GET stream's worker, or waits for its resumption",
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const get = await openGet(deployment.url, session.id);
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'marker');
    const marker = await get.reader.next();
    assert.deepEqual(marker?.message, TOOLS_CHANGED);
    // A 2025 task's status after its answer belongs to no request: it goes to the GET stream, from the task's worker.
    let id = 1;
    const task = await sessionCall(elsewhere(get.by).url, session.id, id++, 'tools/call', {
      name: 'hold',
      arguments: { seconds: 0.05 },
      task: {},
    });
    const { taskId } = task.messages.at(-1)!.result.task;
    const status = await get.reader.message();
    assert.equal(status.method, 'notifications/tasks/status');
    assert.deepEqual([status.params.taskId, status.params.status], [taskId, 'completed']);
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'marker2');
    assert.deepEqual(await get.reader.message(), TOOLS_CHANGED, 'exactly once: the next message is the next change');

    // With no client on the stream, both kinds wait in it for the resumption, which any worker serves.
    get.abort.abort();
    const second = await sessionCall(elsewhere(get.by).url, session.id, id++, 'tools/call', {
      name: 'hold',
      arguments: { seconds: 0.05 },
      task: {},
    });
    const secondId = second.messages.at(-1)!.result.task.taskId;
    await callModern(deployment.url, 'test_trigger_prompt_change', {}, 'while-away');
    for (;;) {
      // The store is the signal: both are stored once the status and the change have been handed on.
      const stored = (await storedOn(session.id, marker!.id!)).map((message) => message.method);
      if (
        stored.includes('notifications/prompts/list_changed') &&
        stored.filter((m) => m === 'notifications/tasks/status').length === 2
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const resumed = await openGet(elsewhere(get.by).url, session.id, marker!.id);
    const replayed: Record<string, any>[] = [];
    while (replayed.length < 4) replayed.push(await resumed.reader.message());
    assert.deepEqual(replayed.slice(0, 2), [status, TOOLS_CHANGED]);
    const away = replayed.slice(2);
    assert.deepEqual(away.map((message) => message.method).sort(), [
      'notifications/prompts/list_changed',
      'notifications/tasks/status',
    ]);
    assert.equal(away.find((message) => message.method === 'notifications/tasks/status')!.params.taskId, secondId);
    resumed.abort.abort();
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

test(
  'a GET stream resumed on another worker is taken over there; of two GET streams on two workers, only the newest gets changes',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const first = await openGet(deployment.url, session.id);
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'm1');
    const marker = await first.reader.next();
    // Resumed elsewhere while the first connection is still open: that one ends, the new one carries the stream.
    const takenBy = elsewhere(first.by);
    const taken = await openGet(takenBy.url, session.id, marker!.id);
    assert.equal(await first.reader.next(), undefined, 'the old connection ended');
    await callModern(deployment.url, 'test_trigger_tool_change', {}, 'm2');
    assert.deepEqual(await taken.reader.message(), TOOLS_CHANGED);
    // A second, new GET stream on yet another worker: the newest gets the changes, the older one nothing.
    const newest = await openGet(
      workers.find((other) => other !== takenBy && other !== worker(first.by))!.url,
      session.id,
    );
    // Once the store names the new stream, every worker hears that before the change below (one subscriber
    // connection per worker gets both channels in publish order); before, a worker may still store it in the old one.
    await untilHolderIsNot(session.id, marker!.id!.slice(0, marker!.id!.lastIndexOf('_')));
    await callModern(deployment.url, 'test_trigger_prompt_change', {}, 'm3');
    const change = await newest.reader.next();
    assert.deepEqual(change?.message, { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    // The old stream got each tools change once (stored by one worker each time), and not the prompts change.
    assert.deepEqual(await storedOn(session.id, marker!.id!), [TOOLS_CHANGED, TOOLS_CHANGED]);
    taken.abort.abort();
    newest.abort.abort();
    assert.equal((await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) })).status, 200);
  },
);

// Last: these kill workers.

test(
  'a 2025 session survives SIGKILL of its worker: resumed elsewhere from what it stored, served, DELETEd everywhere',
  T,
  async (t) => {
    const deployment = fleet(t);
    if (deployment === undefined) return;
    const session = await openSession(deployment.url);
    const abort = new AbortController();
    const response = await sleepWithProgress(deployment.url, session.id, 'doomed', 30_000, abort.signal);
    const origin = workers[Number(servedBy(response).slice(1)) - 1]!;
    const reader = new SseReader(response);
    const first = await progressUntil(reader, 2);
    const more = await progressUntil(reader, 1); // stored after the id the client resumes from
    // A task running on the doomed worker (asked of it directly, as a balancer could route it).
    const task = await post(
      origin.url,
      modernHeaders('tools/call', 'hold'),
      modern('tools/call', { name: 'hold', arguments: {} }, 'task', TASK_CLIENT),
    );
    const { taskId } = ((await task.json()) as Record<string, any>).result;
    origin.process.kill('SIGKILL');
    killed.add(origin);
    assert.equal((await origin.exited).signal, 'SIGKILL');
    abort.abort();
    // The resumption replays what the dead worker stored after the id, and no more: the request itself is lost.
    const leave = new AbortController();
    const resumed = await fetch(deployment.url, {
      headers: { ...legacyHeaders(session.id), accept: 'text/event-stream', 'last-event-id': first.lastId },
      signal: leave.signal,
    });
    const replay = new SseReader(resumed);
    const replayed = await replay.next();
    assert.deepEqual(replayed?.message, more.messages[0]);
    leave.abort();
    // The survivors serve the session, with its recorded handshake.
    const served = new Set<string>();
    for (const id of [1, 2, 3, 4]) {
      const call = await sessionCall(deployment.url, session.id, id, 'tools/call', { name: 'whoami', arguments: {} });
      assert.equal(call.status, 200);
      served.add(call.messages[0]!.result.content[0].text);
    }
    assert.equal(served.size, 2, 'both survivors');
    assert.equal(served.has(String(origin.pid)), false);
    // Its running task reads failed once its lease lapsed, never working forever.
    const lost = await untilStatus(deployment.url, taskId, 'failed');
    assert.equal(lost.statusMessage, 'The process running the task stopped');
    assert.deepEqual(lost.error, { code: -32603, message: 'Internal error' });
    const deleted = await fetch(deployment.url, { method: 'DELETE', headers: legacyHeaders(session.id) });
    assert.equal(deleted.status, 200);
    for (const id of [5, 6]) {
      const gone = await sessionCall(deployment.url, session.id, id, 'ping');
      assert.equal(gone.status, 404);
    }
  },
);

test('at the end every mcp:* key in Redis has a TTL', T, async (t) => {
  const deployment = fleet(t);
  if (deployment === undefined) return;
  const client = createClient({ url: redis!.url });
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: 'mcp:*', COUNT: 100 })) keys.push(...batch);
    for (const key of keys) assert.ok((await client.pTTL(key)) > 0, `${key} has a TTL`);
  } finally {
    await client.close();
  }
});
