// Mistakes a server author can make are named where they are made: a limit option that is no positive integer at
// createServer; at registration a relative resource URI, an empty prompt name, a handler that is not a function; or,
// for a handler returning a malformed result, in the log, while the client gets a plain -32603 without the detail.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type GetPromptResult, type ReadResourceResult } from '../core.ts';
import { createTasksExtension } from '../tasks/tasks-extension.ts';
import { MemoryLogger, WireClient } from './harness.ts';

test('registration refuses a relative resource URI, an empty prompt name, a non-function handler and an unknown taskSupport', () => {
  const server = createServer({ name: 's', version: '1' });
  assert.throws(
    () => server.resource('static-text', { name: 'x' }, () => ({ contents: [] })),
    /resource 'static-text': the URI must be absolute/,
  );
  assert.throws(
    () => server.resource('test://x', { name: 'x' }, 42 as never),
    /resource 'test:\/\/x': the handler must be a function/,
  );
  assert.throws(() => server.prompt('', {}, () => ({ messages: [] })), /a prompt needs a non-empty name/);
  assert.throws(() => server.prompt('p', {}, null as never), /prompt 'p': the handler must be a function/);
  // taskSupport is the tasks add-on's field, checked once its extension is installed (TasksExtension.checkTool).
  const tasks = createServer({ name: 's', version: '1' }).use(createTasksExtension());
  assert.throws(
    () => tasks.tool('t', { taskSupport: 'always' as never }, () => ({ content: [] })),
    /tool 't': taskSupport must be 'optional' or 'required', got "always"/,
  );
});

test('with the tasks extension an unknown taskSupport is refused at update, and at use() for a tool registered before', () => {
  const server = createServer({ name: 's', version: '1' });
  // The core names no extension: without the tasks extension, taskSupport is not its to check.
  const early = server.tool('early', { taskSupport: 'sometimes' as never }, () => ({ content: [] }));
  const tasks = createTasksExtension();
  assert.throws(() => server.use(tasks), {
    name: 'TypeError',
    message: `tool 'early': taskSupport must be 'optional' or 'required', got "sometimes"`,
  });
  early.remove();
  assert.equal(server.use(tasks), server, 'the refused use() installed nothing');
  const job = server.tool('job', { taskSupport: 'optional' }, () => ({ content: [] }));
  assert.throws(() => job.update({ taskSupport: 'never' as never }), {
    name: 'TypeError',
    message: `tool 'job': taskSupport must be 'optional' or 'required', got "never"`,
  });
  job.update({ taskSupport: 'required' });
});

test('createServer refuses a limit that is not a positive integer, naming the option (NaN would lift the bound, 0 refuse everything)', () => {
  for (const name of [
    'maxInFlight',
    'maxBatchLength',
    'maxBatchAnswerBytes',
    'requestTimeoutMs',
    'maxSubscriptions',
    'maxListens',
    'maxBufferedEvents',
    'pageSize',
  ]) {
    for (const value of [Number.NaN, 0, -1, 1.5, Infinity]) {
      assert.throws(() => createServer({ name: 's', version: '1' }, { [name]: value }), {
        name: 'RangeError',
        message: `${name} must be a positive integer, got ${value}`,
      });
    }
    assert.doesNotThrow(() => createServer({ name: 's', version: '1' }, { [name]: 1 }));
  }
});

test('a malformed resource or prompt result is -32603 on the wire and named in the log', async () => {
  const logger = new MemoryLogger();
  const server = createServer({ name: 's', version: '1' }, { logger });
  server.resource('test://no-contents', { name: 'a' }, () => ({ text: 'oops' }) as unknown as ReadResourceResult);
  server.resource(
    'test://bad-item',
    { name: 'b' },
    (uri) => ({ contents: [{ uri, mime: 'text/plain' }] }) as unknown as ReadResourceResult,
  );
  server.prompt('no_messages', {}, () => ({ text: 'oops' }) as unknown as GetPromptResult);
  server.prompt(
    'bad_role',
    {},
    () => ({ messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] }) as unknown as GetPromptResult,
  );
  const client = new WireClient(server);
  await client.initialize();
  const internal = { code: -32603, message: 'Internal error' };
  assert.deepEqual((await client.request('resources/read', { uri: 'test://no-contents' })).error, internal);
  assert.deepEqual((await client.request('resources/read', { uri: 'test://bad-item' })).error, internal);
  assert.deepEqual((await client.request('prompts/get', { name: 'no_messages' })).error, internal);
  assert.deepEqual((await client.request('prompts/get', { name: 'bad_role' })).error, internal);
  assert.deepEqual(
    logger.errors.map((entry) => entry.message),
    [
      'resource handler for \'test://no-contents\' returned {"text":"oops"}, not {contents: [...]}',
      "resource handler for 'test://bad-item' returned contents[0] without a string uri and a string text or blob",
      'prompt \'no_messages\' returned {"text":"oops"}, not {messages: [...]}',
      "prompt 'bad_role' returned messages[0] without a user/assistant role and a typed content",
    ],
  );
  assert.deepEqual(await client.end(), []);
});
