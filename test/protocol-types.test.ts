// The wire types on their own subpath `mcp-core/protocol` (protocol.ts) describe what the server really sends:
// frames typed with them are served, and answers read through them have the fields the types promise. The tasks
// tests check each task answer, in both eras, against a key table the type-check holds to the type (every key, and
// whether it is required), so a field the server sends and the type lacks fails at run time, and a table out of step
// with its type fails the type-check. The `@ts-expect-error` lines fail the type-check (npm test runs it) if the types
// stop catching those mistakes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Context, createServer, ErrorCode, ProtocolError } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import type {
  CallToolResultWire,
  ClientRequest,
  ClientResult,
  CreateTaskResult,
  DetailedTask,
  DiscoverResult,
  GetTaskResult,
  InitializeResult,
  InputRequiredResult,
  LegacyClientRequests,
  LegacyCreateTaskResult,
  LegacyTask,
  ListenParams,
  ListTasksResult,
  ListToolsResult,
  ModernClientRequests,
  ModernGetTaskResult,
  ModernRequestMeta,
  ModernResult,
  ModernTask,
  ServerNotification,
  SubscriptionsAcknowledgedParams,
  TaskPayloadResult,
  TaskStatus,
  Tool,
} from '../protocol.ts';
import { createTasksExtension } from '../tasks/tasks-extension.ts';
import { type Frame, untilResponse, WireClient } from './harness.ts';

test('frames typed with the exported wire types are served, and their answers fit the result types', async () => {
  const meta: ModernRequestMeta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const call: ClientRequest['tools/call'] = { name: 'test_input_required_result_elicitation', _meta: meta };
  // @ts-expect-error a tools/call needs a tool name
  const nameless: ClientRequest['tools/call'] = { arguments: {} };
  assert.equal(nameless.name, undefined);
  const client = new WireClient(createEverythingServer());
  const listed = await client.request('tools/list', { _meta: meta });
  const tools: ClientResult['tools/list'] = listed.result;
  assert.ok(tools.tools.some((tool) => tool.name === 'test_input_required_result_elicitation'));
  const asked = await client.request('tools/call', call);
  assert.equal(asked.error, undefined, JSON.stringify(asked));
  const input: InputRequiredResult = asked.result;
  assert.equal(input.resultType, 'input_required');
  assert.deepEqual(Object.keys(input.inputRequests ?? {}), ['user_name']);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Tasks

/** Each key of `T` and whether `T` requires it: a literal of this type names every key of `T`, rightly, no other. */
type KeyTable<T> = { [K in keyof T]-?: Pick<T, K> extends Required<Pick<T, K>> ? 'required' : 'optional' };

/** The member of a task union that has `status` (a member may stand for several). */
type InStatus<T extends { status: TaskStatus }, S extends TaskStatus> = T extends unknown
  ? S extends T['status']
    ? T
    : never
  : never;

const TASK_FIELDS = {
  taskId: 'required',
  status: 'required',
  statusMessage: 'optional',
  createdAt: 'required',
  lastUpdatedAt: 'required',
} as const;
const MODERN_TASK: KeyTable<ModernTask> = { ...TASK_FIELDS, ttlMs: 'required', pollIntervalMs: 'optional' };
const LEGACY_TASK: KeyTable<LegacyTask> = { ...TASK_FIELDS, ttl: 'required', pollInterval: 'optional' };
const CREATE_TASK: KeyTable<CreateTaskResult> = { ...MODERN_TASK, resultType: 'required', _meta: 'optional' };
const ACK: KeyTable<ModernResult> = { resultType: 'required', _meta: 'optional' };
const DETAILED = {
  working: { ...MODERN_TASK },
  completed: { ...MODERN_TASK, result: 'required' },
  failed: { ...MODERN_TASK, error: 'required' },
  input_required: { ...MODERN_TASK, inputRequests: 'required' },
  cancelled: { ...MODERN_TASK },
} as const satisfies { [S in TaskStatus]: KeyTable<InStatus<DetailedTask, S>> };
/** `tasks/get` adds the result envelope to the detailed task, a notification only its `_meta`. */
const GET_TASK = {
  working: { ...DETAILED.working, ...ACK },
  completed: { ...DETAILED.completed, ...ACK },
  failed: { ...DETAILED.failed, ...ACK },
  input_required: { ...DETAILED.input_required, ...ACK },
  cancelled: { ...DETAILED.cancelled, ...ACK },
} as const satisfies { [S in TaskStatus]: KeyTable<InStatus<ModernGetTaskResult, S>> };
const TASK_NOTIFICATION = (status: TaskStatus) => ({ ...DETAILED[status], _meta: 'optional' as const });
const LEGACY_CREATE: KeyTable<LegacyCreateTaskResult> = { task: 'required', _meta: 'optional' };
const LEGACY_GET: KeyTable<GetTaskResult> = { ...LEGACY_TASK, _meta: 'optional' };
const LEGACY_LIST: KeyTable<ListTasksResult> = { tasks: 'required', nextCursor: 'optional', _meta: 'optional' };
const LEGACY_STATUS: KeyTable<ServerNotification['notifications/tasks/status']> = { ...LEGACY_TASK, _meta: 'optional' };
const LEGACY_PAYLOAD: KeyTable<TaskPayloadResult> = {
  content: 'required',
  structuredContent: 'optional',
  isError: 'optional',
  _meta: 'required',
};

/** Asserts a wire object fits its type's key table: each key it has is one the type names, each required one there. */
function assertFits(value: unknown, table: Readonly<Record<string, 'optional' | 'required'>>, what: string): void {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${what}: an object`);
  for (const key of Object.keys(value))
    assert.ok(Object.hasOwn(table, key), `${what}: the wire has '${key}', the type does not`);
  for (const [key, need] of Object.entries(table))
    if (need === 'required') assert.ok(Object.hasOwn(value, key), `${what}: the type requires '${key}'`);
}

/** A valid 2026-07-28 task, for the mistakes below to spread. */
const MODERN_VALUES: ModernTask = { taskId: 't', status: 'working', createdAt: '', lastUpdatedAt: '', ttlMs: null };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TASKS_ID = 'io.modelcontextprotocol/tasks';

/** Asserts the values of the fields both eras' tasks have. */
function assertTaskValues(task: ModernTask | LegacyTask, taskId: string, status: TaskStatus): void {
  assert.equal(task.taskId, taskId);
  assert.equal(task.status, status);
  assert.match(task.createdAt, ISO);
  assert.match(task.lastUpdatedAt, ISO);
}

/**
 * A server with the tasks extension and three task tools that wait for the test: `build` (optional) until its
 * target is released, `confirm` (required) until released, then asks the client to confirm, `explode` (optional)
 * until released, then throws a JSON-RPC error. Each ends early when its task is cancelled.
 */
function taskServer() {
  const releases = new Map<string, () => void>();
  const held = (key: string, ctx: Context) =>
    new Promise<void>((resolve, reject) => {
      releases.set(key, resolve);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    });
  const release = (key: string) => {
    const resolve = releases.get(key);
    assert.ok(resolve !== undefined, `${key} is waiting`);
    resolve();
  };
  const server = createServer({ name: 'tasks-protocol', version: '1.0.0' });
  server.use(createTasksExtension());
  const target = { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] } as const;
  server.tool(
    'build',
    { taskSupport: 'optional', inputSchema: target },
    async ({ target }: { target: string }, ctx) => {
      await held(target, ctx);
      return { content: [{ type: 'text', text: `built ${target}` }] };
    },
  );
  server.tool('confirm', { taskSupport: 'required' }, async (_args, ctx) => {
    await held('confirm', ctx);
    const answer = await ctx.elicit({
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } },
    });
    return { content: [{ type: 'text', text: `confirmed: ${answer.action}` }] };
  });
  server.tool('explode', { taskSupport: 'optional' }, async (_args, ctx) => {
    await held('explode', ctx);
    throw new ProtocolError(ErrorCode.InvalidParams, 'The job cannot run');
  });
  return { server, release };
}

/** The next `notifications/tasks` of `taskId` in `status` (earlier unread frames stay unread). */
function taskNotification(client: WireClient, taskId: string, status: TaskStatus): Promise<Frame> {
  return client.waitFor(
    (frame) =>
      frame.method === 'notifications/tasks' && frame.params.taskId === taskId && frame.params.status === status,
  );
}

test('a 2026-07-28 task at the wire fits the extension types: CreateTaskResult, DetailedTask in every status, the acks', async () => {
  const { server, release } = taskServer();
  const client = new WireClient(server);
  const meta: ModernRequestMeta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_ID]: {} } },
  };

  const discover: ModernClientRequests['server/discover']['params'] = { _meta: meta };
  const discovered: DiscoverResult = (await client.request('server/discover', discover)).result;
  assert.deepEqual(discovered.capabilities.extensions, { [TASKS_ID]: {} });
  assert.equal(discovered.capabilities.tasks, undefined);

  /** Calls `name` and returns the task it became. */
  const create = async (name: string, args?: Record<string, unknown>): Promise<CreateTaskResult> => {
    const params: ModernClientRequests['tools/call']['params'] = { name, arguments: args, _meta: meta };
    const frame = await client.request('tools/call', params);
    assert.equal(frame.error, undefined, JSON.stringify(frame));
    const answer: ModernClientRequests['tools/call']['result'] = frame.result;
    if (answer.resultType !== 'task') assert.fail(`${name} became a task: ${JSON.stringify(answer)}`);
    assertFits(answer, CREATE_TASK, `tools/call ${name}`);
    assertTaskValues(answer, answer.taskId, 'working');
    assert.equal(typeof answer.ttlMs, 'number');
    assert.equal(typeof answer.pollIntervalMs, 'number');
    return answer;
  };
  const built = await create('build', { target: 'a' });
  const confirmed = await create('confirm');
  const exploded = await create('explode');
  const doomed = await create('build', { target: 'doomed' });

  const get = async (taskId: string): Promise<ModernGetTaskResult> => {
    const params: ModernClientRequests['tasks/get']['params'] = { taskId, _meta: meta };
    const frame = await client.request('tasks/get', params);
    assert.equal(frame.error, undefined, JSON.stringify(frame));
    const task: ModernGetTaskResult = frame.result;
    assertFits(task, GET_TASK[task.status], `tasks/get (${task.status})`);
    assert.equal(task.resultType, 'complete');
    return task;
  };
  assertTaskValues(await get(built.taskId), built.taskId, 'working');

  const ids = [built.taskId, confirmed.taskId, exploded.taskId, doomed.taskId];
  const listen: ListenParams = { notifications: { taskIds: ids }, _meta: meta };
  client.send({ jsonrpc: '2.0', id: 'tasks', method: 'subscriptions/listen', params: listen });
  const ack: SubscriptionsAcknowledgedParams = (await client.notification('notifications/subscriptions/acknowledged'))
    .params;
  assert.deepEqual(ack.notifications.taskIds, ids);

  /** The next notifications/tasks of `taskId` in `status`, checked against its type. */
  const announced = async (taskId: string, status: TaskStatus): Promise<DetailedTask> => {
    const frame = await taskNotification(client, taskId, status);
    const task: ServerNotification['notifications/tasks'] = frame.params;
    assertFits(task, TASK_NOTIFICATION(status), `notifications/tasks (${status})`);
    assertTaskValues(task, taskId, status);
    assert.equal(task._meta?.['io.modelcontextprotocol/subscriptionId'], 'tasks');
    return task;
  };

  release('a');
  const completed = await announced(built.taskId, 'completed');
  if (completed.status !== 'completed') assert.fail('narrowed by status');
  const result: CallToolResultWire = completed.result;
  assert.deepEqual(result.content, [{ type: 'text', text: 'built a' }]);
  assert.deepEqual(await get(built.taskId), { ...completed, resultType: 'complete', _meta: discovered._meta });

  release('confirm');
  const parked = await announced(confirmed.taskId, 'input_required');
  if (parked.status !== 'input_required') assert.fail('narrowed by status');
  assert.deepEqual(Object.keys(parked.inputRequests), ['input-1']);
  assert.equal(parked.inputRequests['input-1']?.method, 'elicitation/create');
  assert.deepEqual(await get(confirmed.taskId), { ...parked, resultType: 'complete', _meta: discovered._meta });
  const update: ModernClientRequests['tasks/update']['params'] = {
    taskId: confirmed.taskId,
    inputResponses: { 'input-1': { action: 'accept', content: { go: true } } },
    _meta: meta,
  };
  const updated: ModernClientRequests['tasks/update']['result'] = (await client.request('tasks/update', update)).result;
  assertFits(updated, ACK, 'tasks/update');
  assert.equal(updated.resultType, 'complete');
  await announced(confirmed.taskId, 'working');
  const confirmedDone = await announced(confirmed.taskId, 'completed');
  if (confirmedDone.status !== 'completed') assert.fail('narrowed by status');
  assert.deepEqual(confirmedDone.result.content, [{ type: 'text', text: 'confirmed: accept' }]);

  release('explode');
  const failed = await announced(exploded.taskId, 'failed');
  if (failed.status !== 'failed') assert.fail('narrowed by status');
  assert.deepEqual(failed.error, { code: ErrorCode.InvalidParams, message: 'The job cannot run' });
  assert.equal((await get(exploded.taskId)).status, 'failed');

  const cancel: ModernClientRequests['tasks/cancel']['params'] = { taskId: doomed.taskId, _meta: meta };
  const cancelled: ModernClientRequests['tasks/cancel']['result'] = (await client.request('tasks/cancel', cancel))
    .result;
  assertFits(cancelled, ACK, 'tasks/cancel');
  assert.equal(cancelled.resultType, 'complete');
  await announced(doomed.taskId, 'cancelled');
  assertFits(await get(doomed.taskId), GET_TASK.cancelled, 'tasks/get (cancelled)');

  // @ts-expect-error a task handle needs its taskId
  const handleless: CreateTaskResult = {
    resultType: 'task',
    status: 'working',
    createdAt: '',
    lastUpdatedAt: '',
    ttlMs: 1,
  };
  // @ts-expect-error 2026-07-28 names the retention ttlMs (2025-11-25's ttl is not a field here)
  const renamed: ModernTask = { taskId: 't', status: 'working', createdAt: '', lastUpdatedAt: '', ttl: 1 };
  // @ts-expect-error a completed task carries its result
  const resultless: DetailedTask = { ...MODERN_VALUES, status: 'completed' };
  // @ts-expect-error tasks/update answers input requests under inputResponses
  const answerless: ModernClientRequests['tasks/update']['params'] = { taskId: 't', _meta: meta };
  assert.deepEqual(
    [handleless.taskId, renamed.ttlMs, resultless.status, answerless.taskId],
    [undefined, undefined, 'completed', 't'],
  );

  const rest = await client.end();
  assert.deepEqual(
    rest.map((frame) => frame.id),
    ['tasks'],
    'only the listen final result is left',
  );
  await server.close();
});

test('a 2025-11-25 task at the wire fits the utility types: execution, the nested task, tasks/get|list|result|cancel, status notifications', async () => {
  const { server, release } = taskServer();
  const client = new WireClient(server);
  const init: InitializeResult = await client.initialize('2025-11-25');
  assert.deepEqual(init.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });

  const tools: ListToolsResult = (await client.request('tools/list', {})).result;
  const execution: Tool['execution'][] = tools.tools.map((tool) => tool.execution);
  assert.deepEqual(execution, [{ taskSupport: 'optional' }, { taskSupport: 'required' }, { taskSupport: 'optional' }]);

  /** Calls `build` for `target` as a task and returns the task. */
  const create = async (target: string, ttl?: number): Promise<LegacyTask> => {
    const params: LegacyClientRequests['tools/call']['params'] = {
      name: 'build',
      arguments: { target },
      task: ttl === undefined ? {} : { ttl },
    };
    const frame = await client.request('tools/call', params);
    assert.equal(frame.error, undefined, JSON.stringify(frame));
    const answer: LegacyClientRequests['tools/call']['result'] = frame.result;
    if (!('task' in answer)) assert.fail(`build ${target} became a task: ${JSON.stringify(answer)}`);
    assertFits(answer, LEGACY_CREATE, `tools/call build ${target}`);
    assertFits(answer.task, LEGACY_TASK, `tools/call build ${target}: task`);
    assertTaskValues(answer.task, answer.task.taskId, 'working');
    return answer.task;
  };
  const built = await create('a', 60_000);
  assert.equal(built.ttl, 60_000);
  assert.equal(typeof built.pollInterval, 'number');
  const doomed = await create('doomed');

  const getParams: LegacyClientRequests['tasks/get']['params'] = { taskId: built.taskId };
  const got: GetTaskResult = (await client.request('tasks/get', getParams)).result;
  assertFits(got, LEGACY_GET, 'tasks/get');
  assert.deepEqual(got, built);

  const listParams: LegacyClientRequests['tasks/list']['params'] = {};
  const listed: ListTasksResult = (await client.request('tasks/list', listParams)).result;
  assertFits(listed, LEGACY_LIST, 'tasks/list');
  for (const task of listed.tasks) assertFits(task, LEGACY_TASK, 'tasks/list: task');
  assert.deepEqual(
    listed.tasks.map((task) => task.taskId),
    [built.taskId, doomed.taskId],
  );

  const resultParams: LegacyClientRequests['tasks/result']['params'] = { taskId: built.taskId };
  client.send({ jsonrpc: '2.0', id: 'result', method: 'tasks/result', params: resultParams });
  release('a');
  const [status, answer] = await untilResponse(client, 'result');
  assert.equal(status.method, 'notifications/tasks/status', 'the completion is announced on the connection');
  const announced: ServerNotification['notifications/tasks/status'] = status.params;
  assertFits(announced, LEGACY_STATUS, 'notifications/tasks/status (completed)');
  assertTaskValues(announced, built.taskId, 'completed');
  const payload: TaskPayloadResult = answer.result;
  assertFits(payload, LEGACY_PAYLOAD, 'tasks/result');
  assert.deepEqual(payload.content, [{ type: 'text', text: 'built a' }]);
  assert.deepEqual(payload._meta['io.modelcontextprotocol/related-task'], { taskId: built.taskId });

  const cancelParams: LegacyClientRequests['tasks/cancel']['params'] = { taskId: doomed.taskId };
  client.send({ jsonrpc: '2.0', id: 'cancel', method: 'tasks/cancel', params: cancelParams });
  const [cancelStatus, cancelAnswer] = await untilResponse(client, 'cancel');
  assert.equal(cancelStatus.method, 'notifications/tasks/status', 'the cancellation is announced before the answer');
  assertFits(cancelStatus.params, LEGACY_STATUS, 'notifications/tasks/status (cancelled)');
  const cancelled: LegacyClientRequests['tasks/cancel']['result'] = cancelAnswer.result;
  assertFits(cancelled, LEGACY_GET, 'tasks/cancel');
  assertTaskValues(cancelled, doomed.taskId, 'cancelled');
  assert.deepEqual(cancelled, cancelStatus.params);

  // @ts-expect-error params.task.ttl is a number of ms
  const stringTtl: LegacyClientRequests['tools/call']['params'] = { name: 'build', task: { ttl: '60000' } };
  // @ts-expect-error 2025-11-25 names the retention ttl (2026-07-28's ttlMs is not a field here)
  const renamed: LegacyTask = { taskId: 't', status: 'working', createdAt: '', lastUpdatedAt: '', ttlMs: 1 };
  // @ts-expect-error a tool's taskSupport is forbidden, optional or required
  const sometimes: Tool['execution'] = { taskSupport: 'sometimes' };
  // @ts-expect-error a tasks/result answer carries the related-task _meta
  const unrelated: TaskPayloadResult = { content: [] };
  assert.deepEqual(
    [stringTtl.task?.ttl, renamed.ttl, sometimes?.taskSupport, unrelated.content],
    ['60000', undefined, 'sometimes', []],
  );

  assert.deepEqual(await client.end(), []);
  await server.close();
});
