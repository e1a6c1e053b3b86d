// The test kit (testing.ts): an in-memory client over server.connect() that speaks either era — the 2025 handshake
// with real server→client requests, or 2026-07-28 envelopes with input_required rounds — so one test body runs
// unchanged in both; errors reject as ProtocolError; progress, notifications and close().

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, elicitInput, inputRequired, ProtocolError, type Server } from '../core.ts';
import { connectTestClient } from '../testing.ts';
import { deferred } from './harness.ts';

const INFO = { name: 'kit-server', version: '1.0.0' };
const ERAS = ['legacy', 'modern'] as const;

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function kitServer(): Server {
  const server = createServer(INFO);
  server.tool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    ({ a, b }: { a: number; b: number }) => text(String(a + b)),
  );
  server.tool('greet', { description: 'Asks for a name' }, (_args, ctx) => {
    const answer = ctx.inputResponses?.name;
    if (answer === undefined) {
      return inputRequired({
        name: elicitInput({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        }),
      });
    }
    if (answer.action !== 'accept') return text('no name given');
    return text(`Hello, ${(answer.content as { name: string }).name}!`);
  });
  server.tool('count', {}, (_args, ctx) => {
    ctx.progress(1, 2, 'half');
    ctx.progress(2, 2, 'done');
    return text('counted');
  });
  server.resource('kit://readme', { name: 'readme', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: 'read me' }],
  }));
  server.resourceTemplate(
    'kit://items/{id}',
    {
      name: 'item',
      complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) },
    },
    (uri, { id }) => (id === 'missing' ? undefined : { contents: [{ uri, text: `item ${String(id)}` }] }),
  );
  server.prompt('hello', { arguments: [{ name: 'who', required: true }] }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}` } }],
  }));
  return server;
}

for (const era of ERAS) {
  test(`${era}: a tool is listed and called in a few lines`, async () => {
    const client = await connectTestClient(kitServer(), { era });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['add', 'greet', 'count'],
    );
    assert.deepEqual(await client.callTool('add', { a: 2, b: 3 }), text('5'));
    await client.close();
  });

  test(`${era}: an input-required tool is answered by onElicit`, async () => {
    const asked: unknown[] = [];
    const client = await connectTestClient(kitServer(), {
      era,
      onElicit: (params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    assert.deepEqual(await client.callTool('greet'), text('Hello, Ada!'));
    assert.deepEqual(asked, [
      {
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    ]);
    await client.close();
  });

  test(`${era}: resources, templates, prompts and completion answer the same in both eras`, async () => {
    const client = await connectTestClient(kitServer(), { era });
    assert.deepEqual(await client.readResource('kit://readme'), {
      contents: [{ uri: 'kit://readme', mimeType: 'text/plain', text: 'read me' }],
    });
    assert.deepEqual(await client.readResource('kit://items/7'), {
      contents: [{ uri: 'kit://items/7', text: 'item 7' }],
    });
    assert.deepEqual((await client.listResourceTemplates()).resourceTemplates, [
      { uriTemplate: 'kit://items/{id}', name: 'item' },
    ]);
    assert.deepEqual(await client.getPrompt('hello', { who: 'Bob' }), {
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Bob' } }],
    });
    assert.deepEqual(
      await client.complete({ type: 'ref/resource', uri: 'kit://items/{id}' }, { name: 'id', value: '1' }),
      {
        completion: { values: ['1', '10'], total: 2, hasMore: false },
      },
    );
    await client.close();
  });

  test(`${era}: a server error rejects with the ProtocolError's code`, async () => {
    const client = await connectTestClient(kitServer(), { era });
    await assert.rejects(
      client.callTool('nope'),
      (error: unknown) =>
        error instanceof ProtocolError && error.code === -32602 && /unknown tool 'nope'/.test(error.message),
    );
    await assert.rejects(
      client.readResource('kit://items/missing'),
      (error: unknown) => error instanceof ProtocolError && error.code === (era === 'legacy' ? -32002 : -32602),
    );
    await client.close();
  });

  test(`${era}: progress reaches onProgress and the notification log`, async () => {
    const client = await connectTestClient(kitServer(), { era });
    const seen: unknown[] = [];
    assert.deepEqual(
      await client.callTool('count', {}, { onProgress: (params) => seen.push(params) }),
      text('counted'),
    );
    assert.deepEqual(seen, [
      { progressToken: `progress-${era === 'legacy' ? 2 : 1}`, progress: 1, total: 2, message: 'half' },
      { progressToken: `progress-${era === 'legacy' ? 2 : 1}`, progress: 2, total: 2, message: 'done' },
    ]);
    assert.deepEqual(
      client.notifications.map((n) => n.method),
      ['notifications/progress', 'notifications/progress'],
    );
    await client.close();
  });

  test(`${era}: close() aborts a running handler and rejects its call`, async () => {
    const server = createServer(INFO);
    const started = deferred();
    const aborted = deferred();
    server.tool('hang', {}, (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      started.resolve();
      return new Promise(() => {});
    });
    const client = await connectTestClient(server, { era });
    const call = client.callTool('hang');
    await started.promise;
    await client.close();
    await aborted.promise;
    await assert.rejects(call, /closed/);
    await assert.rejects(client.listTools(), /closed/);
    assert.equal(client.connection.closed, true);
  });
}

test('legacy: the kit does the handshake, with capabilities derived from the callbacks', async () => {
  let seen: unknown;
  const server = kitServer();
  server.tool('caps', {}, (_args, ctx) => {
    seen = ctx.clientCapabilities;
    return text('ok');
  });
  const client = await connectTestClient(server, {
    era: 'legacy',
    onElicit: () => ({ action: 'decline' }),
    onListRoots: () => ({ roots: [] }),
  });
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.equal(client.initializeResult?.protocolVersion, '2025-11-25');
  assert.deepEqual(client.initializeResult?.serverInfo as object, { name: 'kit-server', version: '1.0.0' });
  await client.callTool('caps');
  assert.deepEqual(seen, { elicitation: {}, roots: {} });
  assert.deepEqual(await client.callTool('greet'), text('no name given'));
  await client.close();
});

test('protocolVersion picks the era: an older 2025 version is negotiated and shapes the results', async () => {
  const client = await connectTestClient(kitServer(), { protocolVersion: '2025-03-26' });
  assert.equal(client.era, 'legacy');
  assert.equal(client.protocolVersion, '2025-03-26');
  await client.close();
  const modern = await connectTestClient(kitServer());
  assert.equal(modern.era, 'modern');
  assert.equal(modern.protocolVersion, '2026-07-28');
  assert.equal(modern.initializeResult, undefined);
  await modern.close();
});

test('modern: raw requests keep resultType and the serverInfo stamp; era-neutral results drop them', async () => {
  const client = await connectTestClient(kitServer(), { era: 'modern' });
  const raw = await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { raw: true });
  assert.deepEqual(raw, {
    ...text('2'),
    resultType: 'complete',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'kit-server', version: '1.0.0' } },
  });
  const listed = await client.request('tools/list', {}, { raw: true });
  assert.equal(listed.resultType, 'complete');
  assert.equal(typeof listed.ttlMs, 'number');
  assert.deepEqual(Object.keys(await client.listTools()), ['tools']);
  await client.close();
});

test('modern: an input request the kit has no callback for fails the call with a message naming it', async () => {
  const client = await connectTestClient(kitServer(), { era: 'modern', capabilities: { elicitation: {} } });
  await assert.rejects(client.callTool('greet'), /asked for elicitation\/create and the test client has no handler/);
  await client.close();
});

test('legacy: a server→client request without a callback is answered with an error the tool sees', async () => {
  const server = createServer(INFO);
  server.tool('ask', {}, async (_args, ctx) => {
    try {
      await ctx.sample({ messages: [], maxTokens: 1 });
      return text('sampled');
    } catch (error) {
      return text(`failed: ${(error as Error).message}`);
    }
  });
  const client = await connectTestClient(server, { era: 'legacy', capabilities: { sampling: {} } });
  const result = await client.callTool('ask');
  assert.match((result.content![0] as { text: string }).text, /^failed: .*no handler for sampling\/createMessage/);
  await client.close();
});

test('legacy: list-changed notifications are recorded in order', async () => {
  const server = kitServer();
  const client = await connectTestClient(server, { era: 'legacy' });
  server.tool('later', {}, () => text('later'));
  server.notifyListChanged('prompts');
  assert.deepEqual(client.notifications, [
    { method: 'notifications/tools/list_changed' },
    { method: 'notifications/prompts/list_changed' },
  ]);
  await client.close();
});

for (const era of ERAS) {
  test(`${era}: notify() reaches the server: a cancelled call's handler is aborted`, async () => {
    const server = createServer(INFO);
    const started = deferred();
    const aborted = deferred();
    server.tool('hang', {}, (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve());
      started.resolve();
      return new Promise(() => {});
    });
    const client = await connectTestClient(server, { era });
    const call = client.callTool('hang');
    await started.promise;
    const id = era === 'legacy' ? 2 : 1; // the kit numbers requests from 1; initialize took the first
    client.notify('notifications/cancelled', { requestId: id, reason: 'test' });
    await aborted.promise;
    await client.close();
    await client.close(); // idempotent
    await assert.rejects(call, /closed/);
  });

  test(`${era}: resources and prompts are listed; completion passes the context arguments`, async () => {
    const server = kitServer();
    let context: unknown;
    server.prompt(
      'pair',
      {
        arguments: [{ name: 'a' }, { name: 'b' }],
        complete: {
          b: (_value, ctx) => {
            context = ctx;
            return ['x'];
          },
        },
      },
      () => ({ messages: [] }),
    );
    const client = await connectTestClient(server, { era });
    assert.deepEqual((await client.listResources()).resources, [
      { uri: 'kit://readme', name: 'readme', mimeType: 'text/plain' },
    ]);
    assert.deepEqual(
      (await client.listPrompts()).prompts.map((prompt) => prompt.name),
      ['hello', 'pair'],
    );
    const completion = await client.complete(
      { type: 'ref/prompt', name: 'pair' },
      { name: 'b', value: '' },
      { a: 'chosen' },
    );
    assert.deepEqual(completion, { completion: { values: ['x'], total: 1, hasMore: false } });
    assert.deepEqual({ ...(context as object) }, { a: 'chosen' });
    await client.close();
  });
}

test('modern: a handler that never stops asking fails after 8 input rounds; a throwing callback fails the call', async () => {
  const server = kitServer();
  let rounds = 0;
  server.tool('forever', {}, () => {
    rounds++;
    return inputRequired({}, { round: rounds });
  });
  const client = await connectTestClient(server, {
    era: 'modern',
    onElicit: () => {
      throw new Error('user closed the dialog');
    },
  });
  await assert.rejects(client.callTool('forever'), /tools\/call: still input_required after 8 rounds/);
  assert.equal(rounds, 9);
  await assert.rejects(client.callTool('greet'), /user closed the dialog/);
  await client.close();
});

test('legacy: a throwing callback answers the server→client request with -32603', async () => {
  const server = createServer(INFO);
  server.tool('ask', {}, async (_args, ctx) => {
    try {
      await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } });
      return text('answered');
    } catch (error) {
      return text(`failed: ${String((error as { code?: unknown }).code)} ${(error as Error).message}`);
    }
  });
  const client = await connectTestClient(server, {
    era: 'legacy',
    onElicit: () => {
      throw new Error('dialog closed');
    },
  });
  const result = await client.callTool('ask');
  assert.match((result.content![0] as { text: string }).text, /^failed: -32603 .*dialog closed/);
  await client.close();
});
