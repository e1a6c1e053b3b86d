// Registry mutation at runtime, at the wire: the handles server.tool()/resource()/resourceTemplate()/prompt()
// return (remove, update, enable, disable, enabled), the list_changed each change publishes (a 2025 broadcast, a
// 2026-07-28 listen event), disabled items as unknown as missing ones in both eras, an update keeping the item's
// place and recompiling its schemas, stale handles, and `_meta` on definitions (listed from 2025-06-18) and on
// results (passed through for tools, prompts and resources in both eras).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { type Frame, WireClient } from './harness.ts';
import { type Id, modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const INFO = { name: 'mutation-test', version: '1.0.0' };
const T = { timeout: 20_000 }; // a safety net against hangs only

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function legacyChanged(list: 'tools' | 'prompts' | 'resources'): Frame {
  return { jsonrpc: '2.0', method: `notifications/${list}/list_changed` };
}

function modernChanged(id: Id, list: 'tools' | 'prompts' | 'resources'): Frame {
  return { jsonrpc: '2.0', method: `notifications/${list}/list_changed`, params: { _meta: { [SUBSCRIPTION_ID]: id } } };
}

let markers = 0;

/** Proves nothing was written since the last frame read: a ping's answer must be the very next frame. */
async function assertNothingMore(client: WireClient): Promise<void> {
  const id = `marker-${++markers}`;
  client.send({ jsonrpc: '2.0', id, method: 'ping' });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id, result: {} });
}

async function toolNames(client: WireClient): Promise<string[]> {
  const response = await client.request('tools/list', {});
  return response.result.tools.map((tool: { name: string }) => tool.name);
}

function threeTools(server: Server) {
  return ['alpha', 'beta', 'gamma'].map((name) => server.tool(name, { description: name }, () => text(name)));
}

// ---------------------------------------------------------------------------------------------------------------
// Tools, 2025 era

test(
  'legacy: disable hides a tool from tools/list and tools/call (-32602), enable restores it in place',
  T,
  async () => {
    const server = createServer(INFO);
    const [, beta] = threeTools(server);
    const client = new WireClient(server);
    await client.initialize();
    assert.equal(beta!.enabled, true);
    beta!.disable();
    assert.equal(beta!.enabled, false);
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    assert.deepEqual(await toolNames(client), ['alpha', 'gamma']);
    assert.deepEqual(await client.request('tools/call', { name: 'beta', arguments: {} }, 5), {
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32602, message: "Invalid params: unknown tool 'beta'" },
    });
    beta!.disable(); // already disabled: nothing changes, nothing is sent
    await assertNothingMore(client);
    beta!.enable();
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    assert.deepEqual(await toolNames(client), ['alpha', 'beta', 'gamma']);
    assert.deepEqual((await client.request('tools/call', { name: 'beta', arguments: {} }, 6)).result, text('beta'));
    beta!.enable();
    await assertNothingMore(client);
    await client.end();
  },
);

test(
  'legacy: update replaces definition fields and the handler, keeps the position, and recompiles the schema',
  T,
  async () => {
    const server = createServer(INFO);
    const [alpha] = threeTools(server);
    const client = new WireClient(server);
    await client.initialize();
    alpha!.update({
      description: 'Alpha, now with a required x',
      inputSchema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] },
      handler: (args: { x: number }) => text(`x=${args.x}`),
    });
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    const listed = (await client.request('tools/list', {})).result.tools;
    assert.deepEqual(
      listed.map((tool: { name: string }) => tool.name),
      ['alpha', 'beta', 'gamma'],
    );
    assert.deepEqual(listed[0], {
      name: 'alpha',
      description: 'Alpha, now with a required x',
      inputSchema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] },
    });
    assert.deepEqual(
      (await client.request('tools/call', { name: 'alpha', arguments: { x: 4 } }, 7)).result,
      text('x=4'),
    );
    const invalid = await client.request('tools/call', { name: 'alpha', arguments: {} }, 8);
    assert.equal(invalid.result.isError, true, 'the new schema is enforced');
    // A definition-only update keeps the handler.
    alpha!.update({ description: 'Alpha again' });
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    assert.deepEqual(
      (await client.request('tools/call', { name: 'alpha', arguments: { x: 5 } }, 9)).result,
      text('x=5'),
    );
    await client.end();
  },
);

test(
  'an update with an invalid schema throws naming the tool and leaves the tool as it was, unannounced',
  T,
  async () => {
    const server = createServer(INFO);
    const [alpha] = threeTools(server);
    const client = new WireClient(server);
    await client.initialize();
    assert.throws(
      () => alpha!.update({ inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } as never }),
      /tool 'alpha': inputSchema/,
    );
    assert.throws(
      () => alpha!.update({ handler: 'not a function' as never }),
      /tool 'alpha': the handler must be a function/,
    );
    await assertNothingMore(client);
    assert.deepEqual((await client.request('tools/call', { name: 'alpha', arguments: {} }, 3)).result, text('alpha'));
    await client.end();
  },
);

test(
  'legacy: remove unregisters once; a stale handle throws on update and cannot touch a re-registration',
  T,
  async () => {
    const server = createServer(INFO);
    const [alpha] = threeTools(server);
    const client = new WireClient(server);
    await client.initialize();
    alpha!.remove();
    assert.equal(alpha!.enabled, false);
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    assert.deepEqual(await toolNames(client), ['beta', 'gamma']);
    alpha!.remove();
    await assertNothingMore(client);
    assert.throws(() => alpha!.update({ description: 'x' }), /cannot update tool 'alpha': it was removed/);
    assert.throws(() => alpha!.enable(), /cannot enable tool 'alpha': it was removed/);
    assert.throws(() => alpha!.disable(), /cannot disable tool 'alpha': it was removed/);
    const again = server.tool('alpha', { description: 'new alpha' }, () => text('new'));
    assert.deepEqual(await client.next(), legacyChanged('tools'));
    alpha!.remove(); // the old handle must not remove the new registration
    await assertNothingMore(client);
    assert.deepEqual(await toolNames(client), ['beta', 'gamma', 'alpha']);
    assert.equal(again.enabled, true);
    await client.end();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Resources, templates and prompts, 2025 era

test(
  'legacy: disabled resources, templates and prompts are unknown (-32002, -32602) and each change is announced',
  T,
  async () => {
    const server = createServer(INFO);
    const resource = server.resource('test://fixed', { name: 'fixed' }, (uri) => ({
      contents: [{ uri, text: 'fixed' }],
    }));
    const template = server.resourceTemplate(
      'test://items/{id}',
      { name: 'item', complete: { id: () => ['1'] } },
      (uri) => ({ contents: [{ uri, text: 'item' }] }),
    );
    const prompt = server.prompt('hello', { description: 'hi', complete: { who: () => ['you'] } }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    }));
    const client = new WireClient(server);
    await client.initialize();

    resource.disable();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    assert.deepEqual((await client.request('resources/list', {})).result, { resources: [] });
    assert.deepEqual(await client.request('resources/read', { uri: 'test://fixed' }, 1), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32002, message: 'Resource not found', data: { uri: 'test://fixed' } },
    });

    template.disable();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    assert.deepEqual((await client.request('resources/templates/list', {})).result, { resourceTemplates: [] });
    assert.equal((await client.request('resources/read', { uri: 'test://items/1' }, 2)).error.code, -32002);
    const completeTemplate = await client.request(
      'completion/complete',
      { ref: { type: 'ref/resource', uri: 'test://items/{id}' }, argument: { name: 'id', value: '' } },
      3,
    );
    assert.equal(completeTemplate.error.code, -32602);

    prompt.disable();
    assert.deepEqual(await client.next(), legacyChanged('prompts'));
    assert.deepEqual((await client.request('prompts/list', {})).result, { prompts: [] });
    assert.deepEqual(await client.request('prompts/get', { name: 'hello' }, 4), {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: "Invalid params: unknown prompt 'hello'" },
    });
    const completePrompt = await client.request(
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'hello' }, argument: { name: 'who', value: '' } },
      5,
    );
    assert.equal(completePrompt.error.code, -32602);

    resource.update({ description: 'now described', handler: (uri) => ({ contents: [{ uri, text: 'updated' }] }) });
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    resource.enable();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    assert.deepEqual((await client.request('resources/list', {})).result, {
      resources: [{ uri: 'test://fixed', name: 'fixed', description: 'now described' }],
    });
    assert.deepEqual((await client.request('resources/read', { uri: 'test://fixed' }, 6)).result, {
      contents: [{ uri: 'test://fixed', text: 'updated' }],
    });

    template.update({ handler: (uri) => ({ contents: [{ uri, text: 'item v2' }] }) });
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    template.enable();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    assert.deepEqual((await client.request('resources/read', { uri: 'test://items/9' }, 7)).result, {
      contents: [{ uri: 'test://items/9', text: 'item v2' }],
    });

    prompt.update({ description: 'hello v2' });
    assert.deepEqual(await client.next(), legacyChanged('prompts'));
    prompt.enable();
    assert.deepEqual(await client.next(), legacyChanged('prompts'));
    assert.deepEqual((await client.request('prompts/list', {})).result, {
      prompts: [{ name: 'hello', description: 'hello v2' }],
    });

    prompt.remove();
    assert.deepEqual(await client.next(), legacyChanged('prompts'));
    template.remove();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    resource.remove();
    assert.deepEqual(await client.next(), legacyChanged('resources'));
    await assertNothingMore(client);
    await client.end();
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 2026-07-28: listen events, unknown items, capabilities stay

test(
  'modern: each change is a listen event; a disabled tool is -32602 and a disabled resource -32602 with its uri',
  T,
  async () => {
    const server = createServer(INFO);
    const [alpha] = threeTools(server);
    const prompt = server.prompt('hello', {}, () => ({ messages: [] }));
    const resource = server.resource('test://fixed', { name: 'fixed' }, (uri) => ({
      contents: [{ uri, text: 'fixed' }],
    }));
    const client = new WireClient(server);
    client.send(
      modern(
        'subscriptions/listen',
        {
          notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
        },
        'sub',
      ),
    );
    assert.equal((await client.next()).method, 'notifications/subscriptions/acknowledged');

    alpha!.disable();
    assert.deepEqual(await client.next(), modernChanged('sub', 'tools'));
    client.send(modern('tools/call', { name: 'alpha', arguments: {} }, 'c1'));
    assert.deepEqual(await client.response('c1'), {
      jsonrpc: '2.0',
      id: 'c1',
      error: { code: -32602, message: "Invalid params: unknown tool 'alpha'" },
    });
    client.send(modern('tools/list', {}, 'l1'));
    assert.deepEqual(
      (await client.response('l1')).result.tools.map((tool: { name: string }) => tool.name),
      ['beta', 'gamma'],
    );

    resource.disable();
    assert.deepEqual(await client.next(), modernChanged('sub', 'resources'));
    client.send(modern('resources/read', { uri: 'test://fixed' }, 'r1'));
    assert.deepEqual(await client.response('r1'), {
      jsonrpc: '2.0',
      id: 'r1',
      error: { code: -32602, message: 'Resource not found', data: { uri: 'test://fixed' } },
    });

    prompt.update({ description: 'changed' });
    assert.deepEqual(await client.next(), modernChanged('sub', 'prompts'));
    prompt.disable();
    assert.deepEqual(await client.next(), modernChanged('sub', 'prompts'));
    client.send(modern('prompts/get', { name: 'hello' }, 'p1'));
    assert.equal((await client.response('p1')).error.code, -32602);

    alpha!.remove();
    assert.deepEqual(await client.next(), modernChanged('sub', 'tools'));
    assert.deepEqual(await client.end(), [
      {
        jsonrpc: '2.0',
        id: 'sub',
        result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'sub', [SERVER_INFO]: INFO } },
      },
    ]);
  },
);

test('modern: with its only tool disabled the server still serves tools (an empty list, not -32601)', T, async () => {
  const server = createServer(INFO);
  const only = server.tool('only', {}, () => text('only'));
  only.disable();
  const client = new WireClient(server);
  client.send(modern('tools/list', {}, 1));
  const listed = await client.response(1);
  assert.deepEqual(listed.result.tools, []);
  client.send(modern('server/discover', {}, 2));
  assert.deepEqual((await client.response(2)).result.capabilities.tools, { listChanged: true });
  await client.end();
});

// ---------------------------------------------------------------------------------------------------------------
// _meta

function metaServer(): Server {
  const server = createServer(INFO);
  server.tool('t', { _meta: { 'example.com/tool': 1 } }, () => ({
    ...text('t'),
    _meta: { 'example.com/result': 't' },
  }));
  server.resource('test://r', { name: 'r', _meta: { 'example.com/resource': 2 } }, (uri) => ({
    contents: [{ uri, text: 'r', _meta: { 'example.com/contents': 'c' } }],
    _meta: { 'example.com/result': 'r' },
  }));
  server.resourceTemplate('test://r/{id}', { name: 'rt', _meta: { 'example.com/template': 3 } }, (uri) => ({
    contents: [{ uri, text: 'rt' }],
  }));
  server.prompt('p', { _meta: { 'example.com/prompt': 4 } }, () => ({
    messages: [],
    _meta: { 'example.com/result': 'p' },
  }));
  return server;
}

test('legacy 2025-06-18+: _meta of definitions is listed and _meta of results passes through', T, async () => {
  const client = new WireClient(metaServer());
  await client.initialize('2025-06-18');
  assert.deepEqual((await client.request('tools/list', {})).result.tools[0]._meta, { 'example.com/tool': 1 });
  assert.deepEqual((await client.request('resources/list', {})).result.resources[0]._meta, {
    'example.com/resource': 2,
  });
  assert.deepEqual((await client.request('resources/templates/list', {})).result.resourceTemplates[0]._meta, {
    'example.com/template': 3,
  });
  assert.deepEqual((await client.request('prompts/list', {})).result.prompts[0]._meta, { 'example.com/prompt': 4 });
  assert.deepEqual((await client.request('tools/call', { name: 't', arguments: {} })).result, {
    ...text('t'),
    _meta: { 'example.com/result': 't' },
  });
  assert.deepEqual((await client.request('resources/read', { uri: 'test://r' })).result, {
    contents: [{ uri: 'test://r', text: 'r', _meta: { 'example.com/contents': 'c' } }],
    _meta: { 'example.com/result': 'r' },
  });
  assert.deepEqual((await client.request('prompts/get', { name: 'p' })).result, {
    messages: [],
    _meta: { 'example.com/result': 'p' },
  });
  await client.end();
});

test('legacy 2025-03-26: _meta of definitions is not listed (the field is newer)', T, async () => {
  const client = new WireClient(metaServer());
  await client.initialize('2025-03-26');
  assert.deepEqual((await client.request('tools/list', {})).result.tools[0], {
    name: 't',
    inputSchema: { type: 'object', properties: {} },
  });
  assert.deepEqual((await client.request('prompts/list', {})).result.prompts[0], { name: 'p' });
  await client.end();
});

test('modern: _meta of definitions is listed and results keep theirs beside the serverInfo stamp', T, async () => {
  const client = new WireClient(metaServer());
  client.send(modern('tools/list', {}, 1));
  assert.deepEqual((await client.response(1)).result.tools[0]._meta, { 'example.com/tool': 1 });
  client.send(modern('prompts/list', {}, 2));
  assert.deepEqual((await client.response(2)).result.prompts[0]._meta, { 'example.com/prompt': 4 });
  client.send(modern('tools/call', { name: 't', arguments: {} }, 3));
  assert.deepEqual((await client.response(3)).result._meta, { 'example.com/result': 't', [SERVER_INFO]: INFO });
  client.send(modern('resources/read', { uri: 'test://r' }, 4));
  const read = (await client.response(4)).result;
  assert.deepEqual(read._meta, { 'example.com/result': 'r', [SERVER_INFO]: INFO });
  assert.deepEqual(read.contents, [{ uri: 'test://r', text: 'r', _meta: { 'example.com/contents': 'c' } }]);
  client.send(modern('prompts/get', { name: 'p' }, 5));
  assert.deepEqual((await client.response(5)).result._meta, { 'example.com/result': 'p', [SERVER_INFO]: INFO });
  await client.end();
});
