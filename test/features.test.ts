// Server features at the wire: tools (listing per version, verbatim schemas, pagination, calls, validation, output
// schemas, content shaping), resources and templates, prompts, completion, change notifications, subscriptions,
// connection bookkeeping, and one full session against the demo server.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Context, createServer, type ServerOptions } from '../core.ts';
import { createEverythingServer, PNG, WAV } from '../examples/everything.ts';
import { encodeCursor } from '../registry.ts';
import {
  DEMO_SKILL_FILES,
  DEMO_TASK_TOOLS,
  deferred,
  type Frame,
  MemoryLogger,
  untilResponse,
  WireClient,
} from './harness.ts';
import { fail, ok } from './wire.ts';

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

function text(value: string) {
  return { type: 'text' as const, text: value };
}

/** Proves that nothing was written: a ping's answer is the next frame and nothing else is waiting. */
async function assertQuiet(client: WireClient, label?: string): Promise<void> {
  const id = `quiet-${Math.random()}`;
  client.send({ jsonrpc: '2.0', id, method: 'ping' });
  assert.deepEqual(await client.next(), ok(id, {}), label);
  assert.deepEqual(client.unread(), [], label);
}

async function connected(server: ReturnType<typeof createServer>, version = '2025-11-25', capabilities: object = {}) {
  const client = new WireClient(server);
  await client.initialize(version, capabilities);
  return client;
}

function quietServer(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  return { server: createServer({ name: 's', version: '1' }, { logger, ...options }), logger };
}

// ---------------------------------------------------------------------------------------------------------------
// tools/list

const FULL_TOOL = {
  title: 'Full Tool',
  description: 'Has every field',
  inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
  outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  annotations: { title: 'Annotated', readOnlyHint: true, openWorldHint: false },
  icons: [{ src: 'https://example.com/t.png', mimeType: 'image/png' }],
  _meta: { 'example.com/k': 1 },
};

const EXPECTED_TOOL: Record<(typeof LEGACY)[number], object> = {
  '2024-11-05': { name: 'full', description: FULL_TOOL.description, inputSchema: FULL_TOOL.inputSchema },
  '2025-03-26': {
    name: 'full',
    description: FULL_TOOL.description,
    inputSchema: FULL_TOOL.inputSchema,
    annotations: FULL_TOOL.annotations,
  },
  '2025-06-18': {
    name: 'full',
    title: FULL_TOOL.title,
    description: FULL_TOOL.description,
    inputSchema: FULL_TOOL.inputSchema,
    outputSchema: FULL_TOOL.outputSchema,
    annotations: FULL_TOOL.annotations,
    _meta: FULL_TOOL._meta,
  },
  '2025-11-25': {
    name: 'full',
    title: FULL_TOOL.title,
    description: FULL_TOOL.description,
    inputSchema: FULL_TOOL.inputSchema,
    outputSchema: FULL_TOOL.outputSchema,
    annotations: FULL_TOOL.annotations,
    _meta: FULL_TOOL._meta,
    icons: FULL_TOOL.icons,
  },
};

for (const version of LEGACY) {
  test(`tools/list under ${version} lists only the tool fields that version defines`, async () => {
    const { server } = quietServer();
    server.tool('full', FULL_TOOL, () => ({ content: [], structuredContent: { n: 1 } }));
    server.tool('bare', {}, () => ({ content: [] }));
    const client = await connected(server, version);
    assert.deepEqual(
      await client.request('tools/list', {}, 1),
      ok(1, {
        tools: [EXPECTED_TOOL[version], { name: 'bare', inputSchema: { type: 'object', properties: {} } }],
      }),
    );
    assert.deepEqual(await client.end(), []);
  });
}

/** The json_schema_2020_12_tool input schema of the conformance suite's `json-schema-2020-12` scenario, written out independently. */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } } },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

test('inputSchema is listed verbatim, unknown keywords included, and the registered object is not mutated', async () => {
  const { server } = quietServer();
  const registered = structuredClone(JSON_SCHEMA_2020_12) as Record<string, unknown>;
  Object.assign(registered, { 'x-vendor': { keep: [1, 2] }, $comment: 'kept', examples: [{ name: 'n', email: 'e' }] });
  const pristine = structuredClone(registered);
  server.tool('schema', { inputSchema: registered }, (args) => ({ content: [text(JSON.stringify(args))] }));
  const client = await connected(server);
  for (const version of LEGACY) {
    const other = await connected(server, version);
    assert.deepEqual((await other.request('tools/list', {})).result.tools[0].inputSchema, pristine, version);
    assert.deepEqual(await other.end(), []);
  }
  // Validation (including if/then/else and $ref into $defs) uses it without changing it.
  const good = await client.request('tools/call', {
    name: 'schema',
    arguments: { contactMethod: 'email', email: 'e', address: { city: 'c' } },
  });
  assert.equal(good.result.isError, undefined);
  const bad = await client.request('tools/call', { name: 'schema', arguments: { contactMethod: 'phone', email: 'e' } });
  assert.equal(bad.result.isError, true);
  const badRef = await client.request('tools/call', {
    name: 'schema',
    arguments: { contactMethod: 'email', email: 'e', address: { city: 5 } },
  });
  assert.equal(badRef.result.isError, true);
  assert.match(badRef.result.content[0].text, /arguments\.address\.city/);
  assert.deepEqual(registered, pristine);
  assert.deepEqual(await client.end(), []);
});

test('the demo json_schema_2020_12_tool lists its 2020-12 input schema unchanged', async () => {
  const client = await connected(createEverythingServer());
  const { tools } = (await client.request('tools/list', {})).result;
  const tool = tools.find((t: { name: string }) => t.name === 'json_schema_2020_12_tool');
  assert.deepEqual(tool.inputSchema, JSON_SCHEMA_2020_12);
  assert.deepEqual(await client.end(), []);
});

test('tools are listed in registration order, the same on every call and every connection', async () => {
  const { server } = quietServer();
  for (const name of ['zeta', 'alpha', 'mid', 'Alpha', '0']) server.tool(name, {}, () => ({ content: [] }));
  const a = await connected(server);
  const b = await connected(server, '2024-11-05');
  const names = async (client: WireClient) =>
    (await client.request('tools/list', {})).result.tools.map((t: { name: string }) => t.name);
  const expected = ['zeta', 'alpha', 'mid', 'Alpha', '0'];
  assert.deepEqual(await names(a), expected);
  assert.deepEqual(await names(a), expected);
  assert.deepEqual(await names(b), expected);
  assert.deepEqual(await a.end(), []);
  assert.deepEqual(await b.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Pagination

async function walk(
  client: WireClient,
  method: string,
  key: string,
): Promise<{ pages: string[][]; cursors: string[] }> {
  const pages: string[][] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const response = await client.request(method, cursor === undefined ? {} : { cursor });
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    pages.push(response.result[key].map((item: { name: string }) => item.name));
    if (!('nextCursor' in response.result)) return { pages, cursors };
    cursor = response.result.nextCursor;
    assert.equal(typeof cursor, 'string');
    cursors.push(cursor!);
    assert.ok(pages.length < 100, 'pagination does not end');
  }
}

test('every list method pages by pageSize and a walk via nextCursor visits each item once, in order', async () => {
  const { server } = quietServer({ pageSize: 2 });
  const names = ['t0', 't1', 't2', 't3', 't4'];
  for (const name of names) {
    server.tool(name, {}, () => ({ content: [] }));
    server.prompt(name, {}, () => ({ messages: [] }));
    server.resource(`mem://${name}`, { name }, (uri) => ({ contents: [{ uri, text: '' }] }));
    server.resourceTemplate(`mem://${name}/{x}`, { name }, () => undefined);
  }
  const client = await connected(server);
  for (const [method, key] of [
    ['tools/list', 'tools'],
    ['prompts/list', 'prompts'],
    ['resources/list', 'resources'],
    ['resources/templates/list', 'resourceTemplates'],
  ]) {
    const { pages } = await walk(client, method, key);
    assert.deepEqual(pages, [['t0', 't1'], ['t2', 't3'], ['t4']], method);
  }
  assert.deepEqual(await client.end(), []);
});

test('a list that fits in one page has no nextCursor, and an exact multiple of pageSize ends without an empty page', async () => {
  const { server } = quietServer({ pageSize: 2 });
  server.tool('a', {}, () => ({ content: [] }));
  server.tool('b', {}, () => ({ content: [] }));
  const client = await connected(server);
  assert.deepEqual((await walk(client, 'tools/list', 'tools')).pages, [['a', 'b']]);
  server.tool('c', {}, () => ({ content: [] }));
  server.tool('d', {}, () => ({ content: [] }));
  await client.notification('notifications/tools/list_changed');
  await client.notification('notifications/tools/list_changed');
  assert.deepEqual((await walk(client, 'tools/list', 'tools')).pages, [
    ['a', 'b'],
    ['c', 'd'],
  ]);
  assert.deepEqual(await client.end(), []);
});

test('invalid cursors are -32602 on every list method', async () => {
  const { server } = quietServer({ pageSize: 2 });
  for (const name of ['a', 'b', 'c']) {
    server.tool(name, {}, () => ({ content: [] }));
    server.prompt(name, {}, () => ({ messages: [] }));
    server.resource(`mem://${name}`, { name }, (uri) => ({ contents: [{ uri, text: '' }] }));
    server.resourceTemplate(`mem://${name}/{x}`, { name }, () => undefined);
  }
  const client = await connected(server);
  const issued: string = (await client.request('tools/list', {})).result.nextCursor;
  const tampered = issued.slice(0, 1) + (issued[1] === 'A' ? 'B' : 'A') + issued.slice(2);
  const invalid: unknown[] = [
    'random-string',
    'not a cursor!',
    tampered,
    `${issued}x`,
    issued.slice(0, -1),
    Buffer.from('o-1').toString('base64url'),
    Buffer.from('o01').toString('base64url'),
    Buffer.from('o4').toString('base64url'), // beyond the end of a three-item list
    encodeCursor(1_000_000, 't'),
    Buffer.from('o1').toString('base64'), // padded, not this server's spelling
    'dDJ', // decodes to the same bytes as the issued "dDI" (offset 2), but was never issued
    '',
    null,
    2,
    { offset: 2 },
  ];
  for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
    for (const [index, cursor] of invalid.entries()) {
      const response = await client.request(method, { cursor }, index);
      assert.deepEqual(
        response,
        fail(index, {
          code: -32602,
          message: 'Invalid params: params.cursor is not a cursor this server issued',
        }),
        `${method} ${JSON.stringify(cursor)}`,
      );
    }
  }
  // The issued cursor still works after all that.
  assert.deepEqual((await client.request('tools/list', { cursor: issued }, 'ok')).result, {
    tools: [{ name: 'c', inputSchema: { type: 'object', properties: {} } }],
  });
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// tools/call

function echoServer() {
  const { server, logger } = quietServer();
  const seen: unknown[] = [];
  server.tool('echo', {}, (args) => {
    seen.push(args);
    return { content: [text(JSON.stringify(args))] };
  });
  server.tool(
    'strict',
    {
      inputSchema: {
        type: 'object',
        properties: {
          count: { type: 'integer', minimum: 1 },
          items: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
        },
        required: ['count'],
        additionalProperties: false,
      },
    },
    (args) => ({ content: [text(JSON.stringify(args))] }),
  );
  return { server, logger, seen };
}

test('tools/call without arguments passes {} to the handler', async () => {
  const { server, seen } = echoServer();
  const client = await connected(server);
  assert.deepEqual(await client.request('tools/call', { name: 'echo' }, 1), ok(1, { content: [text('{}')] }));
  assert.deepEqual(seen, [{}]);
  assert.deepEqual(await client.end(), []);
});

test('tools/call for an unknown tool or without a name is -32602', async () => {
  const { server } = echoServer();
  const client = await connected(server);
  assert.deepEqual(
    await client.request('tools/call', { name: 'nope' }, 1),
    fail(1, { code: -32602, message: "Invalid params: unknown tool 'nope'" }),
  );
  assert.equal((await client.request('tools/call', {}, 2)).error.code, -32602);
  assert.equal((await client.request('tools/call', { name: 7 }, 3)).error.code, -32602);
  assert.equal((await client.request('tools/call', { name: 'echo', arguments: [1] }, 4)).error.code, -32602);
  assert.equal((await client.request('tools/call', { name: 'echo', arguments: 'x' }, 5)).error.code, -32602);
  assert.deepEqual(await client.end(), []);
});

const INVALID_CALLS: [object, RegExp][] = [
  [{}, /arguments\.count is required/],
  [{ count: 'three' }, /arguments\.count must be integer/],
  [{ count: 0 }, /arguments\.count/],
  [{ count: 1, extra: true }, /arguments\.extra/],
  [{ count: 1, items: [{ name: 'a' }, { name: 5 }] }, /arguments\.items\[1\]\.name/],
];

test('invalid arguments under 2025-11-25 are an isError result naming the offending path', async () => {
  const { server } = echoServer();
  const client = await connected(server, '2025-11-25');
  for (const [args, path] of INVALID_CALLS) {
    const response = await client.request('tools/call', { name: 'strict', arguments: args });
    assert.equal(response.error, undefined);
    assert.equal(response.result.isError, true);
    assert.equal(response.result.content.length, 1);
    assert.equal(response.result.content[0].type, 'text');
    assert.match(response.result.content[0].text, /^Invalid arguments for tool 'strict': /);
    assert.match(response.result.content[0].text, path);
  }
  assert.deepEqual(await client.end(), []);
});

for (const version of ['2024-11-05', '2025-03-26', '2025-06-18']) {
  test(`invalid arguments under ${version} are -32602 naming the offending path`, async () => {
    const { server } = echoServer();
    const client = await connected(server, version);
    for (const [args, path] of INVALID_CALLS) {
      const response = await client.request('tools/call', { name: 'strict', arguments: args });
      assert.equal(response.result, undefined);
      assert.equal(response.error.code, -32602);
      assert.match(response.error.message, /^Invalid params: arguments for tool 'strict': /);
      assert.match(response.error.message, path);
    }
    assert.deepEqual(await client.end(), []);
  });
}

function outputServer() {
  const { server, logger } = quietServer();
  const schema = { type: 'object', properties: { n: { type: 'number' }, s: { type: 'string' } }, required: ['n'] };
  server.tool('good', { outputSchema: schema }, () => ({ content: [], structuredContent: { n: 1, s: 'x' } }));
  server.tool('good_with_text', { outputSchema: schema }, () => ({
    content: [text('own text')],
    structuredContent: { n: 2 },
  }));
  server.tool('bad', { outputSchema: schema }, () => ({
    content: [text('secret detail')],
    structuredContent: { n: 'one' },
  }));
  server.tool('missing', { outputSchema: schema }, () => ({ content: [text('no structure')] }));
  server.tool('failed', { outputSchema: schema }, () => ({ content: [text('it failed')], isError: true }));
  server.tool('free', {}, () => ({ structuredContent: { any: ['thing'] } }));
  return { server, logger };
}

test('structuredContent that fits the outputSchema is returned, and mirrored as text only when content is empty', async () => {
  const { server, logger } = outputServer();
  const client = await connected(server, '2025-06-18');
  assert.deepEqual((await client.request('tools/call', { name: 'good' })).result, {
    content: [text('{"n":1,"s":"x"}')],
    structuredContent: { n: 1, s: 'x' },
  });
  assert.deepEqual((await client.request('tools/call', { name: 'good_with_text' })).result, {
    content: [text('own text')],
    structuredContent: { n: 2 },
  });
  assert.deepEqual((await client.request('tools/call', { name: 'free' })).result, {
    content: [text('{"any":["thing"]}')],
    structuredContent: { any: ['thing'] },
  });
  // A declared failure is not held to the output schema.
  assert.deepEqual((await client.request('tools/call', { name: 'failed' })).result, {
    content: [text('it failed')],
    isError: true,
  });
  assert.deepEqual(logger.errors, []);
  assert.deepEqual(await client.end(), []);
});

test('structuredContent that misses the outputSchema is a generic isError result; the detail is only logged', async () => {
  const { server, logger } = outputServer();
  const client = await connected(server, '2025-11-25');
  const generic = { content: [text('Tool execution failed')], isError: true };
  assert.deepEqual(await client.request('tools/call', { name: 'bad' }, 1), ok(1, generic));
  assert.deepEqual(await client.request('tools/call', { name: 'missing' }, 2), ok(2, generic));
  assert.equal(logger.errors.length, 2);
  assert.match(logger.errors[0].message, /'bad'.*structuredContent\.n/);
  assert.match(logger.errors[1].message, /'missing'/);
  assert.ok(!client.frames.some((frame) => JSON.stringify(frame).includes('secret detail')));
  assert.deepEqual(await client.end(), []);
});

for (const version of ['2024-11-05', '2025-03-26']) {
  test(`structuredContent is stripped under ${version}, leaving its text mirror`, async () => {
    const { server } = outputServer();
    const client = await connected(server, version);
    assert.deepEqual((await client.request('tools/call', { name: 'good' })).result, {
      content: [text('{"n":1,"s":"x"}')],
    });
    assert.deepEqual((await client.request('tools/call', { name: 'good_with_text' })).result, {
      content: [text('own text')],
    });
    // The output is still validated: a misfit is a failure under every version.
    assert.deepEqual((await client.request('tools/call', { name: 'bad' })).result, {
      content: [text('Tool execution failed')],
      isError: true,
    });
    assert.deepEqual(await client.end(), []);
  });
}

const MIXED_CONTENT = [
  text('t'),
  { type: 'audio', data: WAV, mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'mem://x', name: 'x' },
  { type: 'image', data: PNG, mimeType: 'image/png' },
];

const MIXED_EXPECTED: Record<(typeof LEGACY)[number], object[]> = {
  '2024-11-05': [MIXED_CONTENT[0]!, MIXED_CONTENT[3]!],
  '2025-03-26': [MIXED_CONTENT[0]!, MIXED_CONTENT[1]!, MIXED_CONTENT[3]!],
  '2025-06-18': MIXED_CONTENT,
  '2025-11-25': MIXED_CONTENT,
};

for (const version of LEGACY) {
  test(`tool content under ${version} drops the kinds that version does not know`, async () => {
    const { server } = quietServer();
    server.tool('mixed', {}, () => ({ content: MIXED_CONTENT as never, _meta: { 'example.com/m': true } }));
    const client = await connected(server, version);
    assert.deepEqual((await client.request('tools/call', { name: 'mixed' })).result, {
      content: MIXED_EXPECTED[version],
      _meta: { 'example.com/m': true },
    });
    assert.deepEqual(await client.end(), []);
  });
}

test('the demo audio tool under 2024-11-05 returns no audio', async () => {
  const client = await connected(createEverythingServer(), '2024-11-05');
  assert.deepEqual((await client.request('tools/call', { name: 'test_audio_content' })).result, { content: [] });
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Resources

test('resources/list and resources/templates/list list the demo fixtures, test://static-text first', async () => {
  const client = await connected(createEverythingServer());
  const { resources } = (await client.request('resources/list', {}, 1)).result;
  // The skill fixtures' files come after (test/skills.test.ts covers them).
  assert.deepEqual(
    resources.slice(3).map((resource: { uri: string }) => resource.uri),
    DEMO_SKILL_FILES,
  );
  assert.deepEqual(
    { resources: resources.slice(0, 3) },
    {
      resources: [
        {
          uri: 'test://static-text',
          name: 'Static Text Resource',
          description: 'A static text resource',
          mimeType: 'text/plain',
        },
        {
          uri: 'test://static-binary',
          name: 'Static Binary Resource',
          description: 'A static PNG image',
          mimeType: 'image/png',
        },
        {
          uri: 'test://watched-resource',
          name: 'Watched Resource',
          description: 'A resource to subscribe to',
          mimeType: 'text/plain',
        },
      ],
    },
  );
  assert.deepEqual((await client.request('resources/templates/list', {}, 2)).result, {
    resourceTemplates: [
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'Template Resource',
        description: 'Data for an id',
        mimeType: 'application/json',
      },
    ],
  });
  assert.deepEqual(await client.end(), []);
});

test('resources/read returns text and base64 blob contents', async () => {
  const client = await connected(createEverythingServer());
  assert.deepEqual(
    await client.request('resources/read', { uri: 'test://static-text' }, 1),
    ok(1, {
      contents: [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  );
  assert.deepEqual(
    await client.request('resources/read', { uri: 'test://static-binary' }, 2),
    ok(2, {
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }],
    }),
  );
  assert.ok(Buffer.from(PNG, 'base64').subarray(1, 4).toString() === 'PNG');
  assert.deepEqual(
    await client.request('resources/read', { uri: 'test://template/123/data' }, 3),
    ok(3, {
      contents: [
        {
          uri: 'test://template/123/data',
          mimeType: 'application/json',
          text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
        },
      ],
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a template read extracts the variables and hands them to the handler', async () => {
  const { server } = quietServer();
  const calls: { uri: string; variables: Record<string, unknown> }[] = [];
  server.resourceTemplate('mem://users/{user}/files{/path*}', { name: 'files' }, (uri, variables) => {
    calls.push({ uri, variables: { ...variables } });
    return { contents: [{ uri, text: JSON.stringify(variables) }] };
  });
  server.resourceTemplate('mem://{+rest}', { name: 'catch-all' }, (uri, variables) =>
    variables.rest === 'missing' ? undefined : { contents: [{ uri, text: String(variables.rest) }] },
  );
  const client = await connected(server);
  const read = await client.request('resources/read', { uri: 'mem://users/ann%20b/files/a/b.txt' }, 1);
  assert.deepEqual(calls, [
    { uri: 'mem://users/ann%20b/files/a/b.txt', variables: { user: 'ann b', path: ['a', 'b.txt'] } },
  ]);
  assert.deepEqual(
    read,
    ok(1, { contents: [{ uri: 'mem://users/ann%20b/files/a/b.txt', text: '{"user":"ann b","path":["a","b.txt"]}' }] }),
  );
  // The first matching template in registration order wins; a later one catches the rest.
  assert.deepEqual((await client.request('resources/read', { uri: 'mem://other/x' }, 2)).result, {
    contents: [{ uri: 'mem://other/x', text: 'other/x' }],
  });
  // A template handler that finds nothing is "resource not found".
  assert.deepEqual(
    await client.request('resources/read', { uri: 'mem://missing' }, 3),
    fail(3, {
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'mem://missing' },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

for (const version of LEGACY) {
  test(`an unknown URI under ${version} is -32002 with data.uri`, async () => {
    const client = await connected(createEverythingServer(), version);
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    assert.deepEqual(
      await client.request('resources/read', { uri }, 1),
      fail(1, { code: -32002, message: 'Resource not found', data: { uri } }),
    );
    assert.equal((await client.request('resources/read', {}, 2)).error.code, -32602);
    assert.equal((await client.request('resources/read', { uri: 5 }, 3)).error.code, -32602);
    assert.deepEqual(await client.end(), []);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Prompts

test('prompts/list lists the demo prompts with their arguments', async () => {
  const client = await connected(createEverythingServer());
  assert.deepEqual((await client.request('prompts/list', {}, 1)).result, {
    prompts: [
      { name: 'test_simple_prompt', description: 'A simple prompt without arguments' },
      {
        name: 'test_prompt_with_arguments',
        description: 'A prompt with arguments',
        arguments: [
          { name: 'arg1', description: 'First test argument', required: true },
          { name: 'arg2', description: 'Second test argument', required: true },
        ],
      },
      {
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt with an embedded resource',
        arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      },
      { name: 'test_prompt_with_image', description: 'A prompt with an image' },
    ],
  });
  assert.deepEqual(await client.end(), []);
});

for (const version of LEGACY) {
  test(`prompts/list under ${version} shapes titles, icons and _meta per version`, async () => {
    const { server } = quietServer();
    server.prompt(
      'p',
      {
        title: 'P',
        description: 'd',
        icons: [{ src: 'https://example.com/p.png' }],
        _meta: { 'example.com/k': 1 },
        arguments: [{ name: 'a', title: 'A', description: 'ad', required: false }],
        complete: { a: () => [] },
      },
      () => ({ messages: [] }),
    );
    const client = await connected(server, version);
    const expected: Record<string, unknown> = {
      name: 'p',
      description: 'd',
      arguments: [{ name: 'a', description: 'ad', required: false }],
    };
    if (version >= '2025-06-18') {
      Object.assign(expected, {
        title: 'P',
        _meta: { 'example.com/k': 1 },
        arguments: [{ name: 'a', title: 'A', description: 'ad', required: false }],
      });
    }
    if (version >= '2025-11-25') expected.icons = [{ src: 'https://example.com/p.png' }];
    assert.deepEqual((await client.request('prompts/list', {})).result, { prompts: [expected] });
    assert.deepEqual(await client.end(), []);
  });
}

test('prompts/get passes the arguments and returns the messages', async () => {
  const client = await connected(createEverythingServer());
  assert.deepEqual(
    await client.request(
      'prompts/get',
      { name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } },
      1,
    ),
    ok(1, {
      messages: [{ role: 'user', content: text("Prompt with arguments: arg1='hello', arg2='world'") }],
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('prompts/get with a missing required argument is -32602 naming it', async () => {
  const client = await connected(createEverythingServer());
  assert.deepEqual(
    await client.request('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'hello' } }, 1),
    fail(1, {
      code: -32602,
      message: "Invalid params: missing required argument 'arg2' for prompt 'test_prompt_with_arguments'",
    }),
  );
  assert.deepEqual(
    await client.request('prompts/get', { name: 'test_prompt_with_embedded_resource' }, 2),
    fail(2, {
      code: -32602,
      message:
        "Invalid params: missing required argument 'resourceUri' for prompt 'test_prompt_with_embedded_resource'",
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('prompts/get with a non-string argument is -32602 naming it', async () => {
  const client = await connected(createEverythingServer());
  for (const [index, value] of [5, null, true, ['x'], { v: 1 }].entries()) {
    assert.deepEqual(
      await client.request(
        'prompts/get',
        { name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: value } },
        index,
      ),
      fail(index, {
        code: -32602,
        message: 'Invalid params: params.arguments.arg2 must be a string',
      }),
      JSON.stringify(value),
    );
  }
  assert.equal(
    (await client.request('prompts/get', { name: 'test_simple_prompt', arguments: 'x' }, 'a')).error.code,
    -32602,
  );
  assert.deepEqual(await client.end(), []);
});

test('prompts/get for an unknown prompt or without a name is -32602', async () => {
  const client = await connected(createEverythingServer());
  assert.deepEqual(
    await client.request('prompts/get', { name: 'nope' }, 1),
    fail(1, { code: -32602, message: "Invalid params: unknown prompt 'nope'" }),
  );
  assert.equal((await client.request('prompts/get', {}, 2)).error.code, -32602);
  assert.deepEqual(await client.end(), []);
});

test('prompts/get hands the handler exactly the given string arguments', async () => {
  const { server } = quietServer();
  const seen: Record<string, string>[] = [];
  server.prompt('p', { arguments: [{ name: 'a', required: true }, { name: 'b' }] }, (args) => {
    seen.push({ ...args });
    return { messages: [] };
  });
  const client = await connected(server);
  await client.request('prompts/get', { name: 'p', arguments: { a: '', extra: 'kept' } });
  assert.deepEqual(seen, [{ a: '', extra: 'kept' }]);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Completion

test('completion/complete for prompt arguments passes the value and context.arguments to the completer', async () => {
  const { server } = quietServer();
  const seen: [string, Record<string, string>][] = [];
  server.prompt(
    'trip',
    {
      arguments: [{ name: 'country' }, { name: 'city' }],
      complete: {
        city: (value, context) => {
          seen.push([value, { ...context }]);
          return ['Paris', 'Parma', 'Lyon'].filter((city) => city.startsWith(value));
        },
      },
    },
    () => ({ messages: [] }),
  );
  const client = await connected(server);
  assert.deepEqual(
    await client.request(
      'completion/complete',
      {
        ref: { type: 'ref/prompt', name: 'trip' },
        argument: { name: 'city', value: 'Par' },
        context: { arguments: { country: 'FR', ignored: 5 } },
      },
      1,
    ),
    ok(1, { completion: { values: ['Paris', 'Parma'], total: 2, hasMore: false } }),
  );
  await client.request(
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: '' } },
    2,
  );
  assert.deepEqual(seen, [
    ['Par', { country: 'FR' }],
    ['', {}],
  ]);
  // An argument without a completer completes to nothing.
  assert.deepEqual(
    await client.request(
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'country', value: 'F' } },
      3,
    ),
    ok(3, { completion: { values: [], total: 0, hasMore: false } }),
  );
  assert.deepEqual(await client.end(), []);
});

test('completion/complete for template variables passes context.arguments too', async () => {
  const { server } = quietServer();
  const seen: [string, Record<string, string>][] = [];
  server.resourceTemplate(
    'mem://{owner}/{repo}',
    {
      name: 'repo',
      complete: {
        repo: (value, context) => {
          seen.push([value, { ...context }]);
          return [`${context.owner ?? '?'}-core`, `${context.owner ?? '?'}-site`];
        },
      },
    },
    () => undefined,
  );
  const client = await connected(server);
  assert.deepEqual(
    await client.request(
      'completion/complete',
      {
        ref: { type: 'ref/resource', uri: 'mem://{owner}/{repo}' },
        argument: { name: 'repo', value: 'c' },
        context: { arguments: { owner: 'acme' } },
      },
      1,
    ),
    ok(1, { completion: { values: ['acme-core', 'acme-site'], total: 2, hasMore: false } }),
  );
  assert.deepEqual(seen, [['c', { owner: 'acme' }]]);
  assert.deepEqual(await client.end(), []);
});

test('completion values are capped at 100 with total and hasMore', async () => {
  const { server } = quietServer();
  const many = Array.from({ length: 250 }, (_, i) => `v${i}`);
  server.prompt(
    'p',
    {
      arguments: [{ name: 'many' }, { name: 'hundred' }],
      complete: { many: () => many, hundred: () => many.slice(0, 100) },
    },
    () => ({ messages: [] }),
  );
  const client = await connected(server);
  const capped = await client.request('completion/complete', {
    ref: { type: 'ref/prompt', name: 'p' },
    argument: { name: 'many', value: '' },
  });
  assert.deepEqual(capped.result, { completion: { values: many.slice(0, 100), total: 250, hasMore: true } });
  const exact = await client.request('completion/complete', {
    ref: { type: 'ref/prompt', name: 'p' },
    argument: { name: 'hundred', value: '' },
  });
  assert.deepEqual(exact.result, { completion: { values: many.slice(0, 100), total: 100, hasMore: false } });
  assert.deepEqual(await client.end(), []);
});

test('completion/complete with a bad ref or argument is -32602', async () => {
  const client = await connected(createEverythingServer());
  const bad: object[] = [
    { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } },
    { ref: { type: 'ref/resource', uri: 'test://nope/{x}' }, argument: { name: 'x', value: '' } },
    { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } },
    { ref: 'test_prompt_with_arguments', argument: { name: 'arg1', value: '' } },
    { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' } },
    { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 1 } },
  ];
  for (const [index, params] of bad.entries()) {
    assert.equal(
      (await client.request('completion/complete', params, index)).error?.code,
      -32602,
      JSON.stringify(params),
    );
  }
  // The demo's fixture completions work.
  assert.deepEqual(
    (
      await client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'par' },
      })
    ).result,
    { completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } },
  );
  assert.deepEqual(
    (
      await client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
        argument: { name: 'id', value: '4' },
      })
    ).result,
    { completion: { values: ['456'], total: 1, hasMore: false } },
  );
  assert.deepEqual(await client.end(), []);
});

test('under 2024-11-05 completion/complete is served although that version has no completions capability', async () => {
  const client = await connected(createEverythingServer(), '2024-11-05');
  assert.deepEqual(
    (
      await client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg2', value: 'wo' },
      })
    ).result,
    { completion: { values: ['world', 'wonder'], total: 2, hasMore: false } },
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// list_changed notifications

const LIST_CHANGED = (list: string): Frame => ({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` });

test('registering after initialize sends the matching list_changed notification to every initialized connection', async () => {
  const { server } = quietServer();
  server.tool('t', {}, () => ({ content: [] }));
  server.prompt('p', {}, () => ({ messages: [] }));
  server.resource('mem://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  const a = await connected(server);
  const b = await connected(server, '2024-11-05');
  const uninitialized = new WireClient(server);
  const steps: [() => void, string][] = [
    [() => server.tool('t2', {}, () => ({ content: [] })), 'tools'],
    [() => server.prompt('p2', {}, () => ({ messages: [] })), 'prompts'],
    [() => server.resource('mem://r2', { name: 'r2' }, (uri) => ({ contents: [{ uri, text: '' }] })), 'resources'],
    [() => server.resourceTemplate('mem://t/{x}', { name: 't' }, () => undefined), 'resources'],
    [() => server.notifyListChanged('tools'), 'tools'],
    [() => server.notifyListChanged('prompts'), 'prompts'],
    [() => server.notifyListChanged('resources'), 'resources'],
  ];
  for (const [act, list] of steps) {
    act();
    assert.deepEqual(await a.next(), LIST_CHANGED(list));
    assert.deepEqual(await b.next(), LIST_CHANGED(list));
  }
  await assertQuiet(a);
  await assertQuiet(b);
  await assertQuiet(uninitialized);
  // The new items are served.
  assert.deepEqual(
    (await a.request('tools/list', {})).result.tools.map((t: { name: string }) => t.name),
    ['t', 't2'],
  );
  for (const client of [a, b, uninitialized]) assert.deepEqual(await client.end(), []);
});

test('no list_changed is sent for registrations before initialize', async () => {
  const { server } = quietServer();
  server.tool('t', {}, () => ({ content: [] }));
  const client = new WireClient(server);
  server.tool('t2', {}, () => ({ content: [] }));
  server.notifyListChanged('tools');
  const init = await client.request(
    'initialize',
    { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    1,
  );
  assert.equal(init.id, 1);
  assert.deepEqual(client.frames, [init]);
  await assertQuiet(client);
  assert.deepEqual(await client.end(), []);
});

test('no list_changed is sent for a list whose capability was not advertised at initialize', async () => {
  const { server } = quietServer();
  server.tool('t', {}, () => ({ content: [] }));
  const client = await connected(server);
  server.prompt('p', {}, () => ({ messages: [] }));
  server.resource('mem://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  server.notifyListChanged('prompts');
  server.notifyListChanged('resources');
  await assertQuiet(client);
  server.tool('t2', {}, () => ({ content: [] }));
  assert.deepEqual(await client.next(), LIST_CHANGED('tools'));
  assert.deepEqual(await client.end(), []);
});

test('batchResources registers or removes many resources with one resources list_changed, none when empty', async () => {
  const { server } = quietServer();
  server.resource('mem://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  const client = await connected(server);
  const registrations: { remove(): void }[] = [];
  server.batchResources(() => {
    for (const name of ['a', 'b', 'c'])
      registrations.push(server.resource(`mem://${name}`, { name }, (uri) => ({ contents: [{ uri, text: name }] })));
  });
  assert.deepEqual(await client.next(), LIST_CHANGED('resources'));
  await assertQuiet(client, 'one announcement for three resources');
  const listed = async () =>
    (await client.request('resources/list', {})).result.resources.map((r: { uri: string }) => r.uri);
  assert.deepEqual(await listed(), ['mem://r', 'mem://a', 'mem://b', 'mem://c']);
  server.batchResources(() => {
    for (const registration of registrations) registration.remove();
  });
  assert.deepEqual(await client.next(), LIST_CHANGED('resources'));
  await assertQuiet(client, 'one announcement for three removals');
  server.batchResources(() => {});
  await assertQuiet(client, 'an empty batch announces nothing');
  assert.deepEqual(await listed(), ['mem://r']);
  assert.deepEqual(await client.end(), []);
});

test('a batch that throws removes what it registered and rethrows; only its other changes are announced', async () => {
  const { server } = quietServer();
  const kept = server.resource('mem://kept', { name: 'kept' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  const client = await connected(server);
  const listed = async () =>
    (await client.request('resources/list', {})).result.resources.map((r: { uri: string }) => r.uri);
  const register = (name: string) =>
    server.resource(`mem://${name}`, { name }, (uri) => ({ contents: [{ uri, text: name }] }));
  const failure = new Error('half way');
  assert.throws(
    () =>
      server.batchResources(() => {
        register('a');
        register('b');
        throw failure;
      }),
    (error) => error === failure,
  );
  await assertQuiet(client, 'nothing changed in the end');
  assert.deepEqual(await listed(), ['mem://kept']);
  // A registration the batch cannot make (the URI is taken) undoes the batch the same way.
  assert.throws(
    () =>
      server.batchResources(() => {
        register('a');
        register('kept');
      }),
    /mem:\/\/kept/,
  );
  await assertQuiet(client, 'nothing changed in the end');
  assert.deepEqual(await listed(), ['mem://kept']);
  // A removal made before the throw stands, and is announced once.
  assert.throws(() =>
    server.batchResources(() => {
      kept.remove();
      register('a');
      throw failure;
    }),
  );
  assert.deepEqual(await client.next(), LIST_CHANGED('resources'));
  await assertQuiet(client);
  assert.deepEqual(await listed(), []);
  assert.deepEqual(await client.end(), []);
});

test('a batch inside another joins it: one announcement at the end, an inner batch that throws undoes its own', async () => {
  const { server } = quietServer();
  const register = (name: string) =>
    server.resource(`mem://${name}`, { name }, (uri) => ({ contents: [{ uri, text: name }] }));
  register('r'); // resources are served from the start: the session is told of list changes
  const client = await connected(server);
  server.batchResources(() => {
    register('a');
    server.batchResources(() => register('b'));
    assert.throws(() =>
      server.batchResources(() => {
        register('c');
        throw new Error('inner');
      }),
    );
    assert.deepEqual(client.unread(), [], 'held until the outer batch ends');
  });
  assert.deepEqual(await client.next(), LIST_CHANGED('resources'));
  await assertQuiet(client);
  assert.deepEqual(
    (await client.request('resources/list', {})).result.resources.map((r: { uri: string }) => r.uri),
    ['mem://r', 'mem://a', 'mem://b'],
  );
  // An outer batch that throws undoes its inner batches too.
  assert.throws(() =>
    server.batchResources(() => {
      server.batchResources(() => register('d'));
      throw new Error('outer');
    }),
  );
  await assertQuiet(client);
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Subscriptions

const UPDATED = (uri: string): Frame => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri },
});

test('resources/updated goes only to the connection subscribed to that URI, until it unsubscribes', async () => {
  const server = createEverythingServer();
  const a = await connected(server);
  const b = await connected(server);
  assert.deepEqual(await a.request('resources/subscribe', { uri: 'test://watched-resource' }, 1), ok(1, {}));
  assert.deepEqual(await b.request('resources/subscribe', { uri: 'test://static-text' }, 1), ok(1, {}));

  server.notifyResourceUpdated('test://watched-resource');
  assert.deepEqual(await a.next(), UPDATED('test://watched-resource'));
  await assertQuiet(b, 'b is not subscribed to the watched resource');

  server.notifyResourceUpdated('test://static-text');
  assert.deepEqual(await b.next(), UPDATED('test://static-text'));
  await assertQuiet(a, 'a is not subscribed to static-text');

  // Subscribing twice is one subscription (one notification per update); one unsubscribe ends it.
  assert.deepEqual(await a.request('resources/subscribe', { uri: 'test://watched-resource' }, 2), ok(2, {}));
  server.notifyResourceUpdated('test://watched-resource');
  assert.deepEqual(await a.next(), UPDATED('test://watched-resource'));
  await assertQuiet(a, 'one notification for a URI subscribed twice');
  assert.deepEqual(await a.request('resources/unsubscribe', { uri: 'test://watched-resource' }, 3), ok(3, {}));
  server.notifyResourceUpdated('test://watched-resource');
  await assertQuiet(a, 'a unsubscribed');
  // Unsubscribing from something never subscribed is harmless.
  assert.deepEqual(await a.request('resources/unsubscribe', { uri: 'test://never' }, 4), ok(4, {}));

  // Through the demo's publish tool, which other connections' requests can trigger.
  const published = await b.request(
    'tools/call',
    { name: 'test_publish', arguments: { event: 'resource', uri: 'test://static-text', count: 2 } },
    5,
  );
  assert.deepEqual(published.result, { content: [text('Published 2 resource event(s)')] });
  assert.deepEqual(b.unread(), [UPDATED('test://static-text'), UPDATED('test://static-text')]);
  await b.next();
  await b.next();
  await assertQuiet(a);
  assert.deepEqual(await a.end(), []);
  assert.deepEqual(await b.end(), []);
});

test('resources/subscribe with a missing or non-string uri is -32602', async () => {
  const { server } = quietServer({ maxSubscriptions: 1 });
  server.resource('mem://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  const client = await connected(server);
  assert.equal((await client.request('resources/subscribe', {}, 1)).error.code, -32602);
  assert.equal((await client.request('resources/subscribe', { uri: 1 }, 2)).error.code, -32602);
  assert.equal((await client.request('resources/unsubscribe', {}, 3)).error.code, -32602);
  // The one subscription slot is still free: the refusals took none.
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://a' }, 4), ok(4, {}));
  assert.deepEqual(await client.end(), []);
});

test('maxSubscriptions bounds the subscriptions of one connection', async () => {
  const { server } = quietServer({ maxSubscriptions: 2 });
  server.resource('mem://a', { name: 'a' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  const client = await connected(server);
  const other = await connected(server);
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://a' }, 1), ok(1, {}));
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://b' }, 2), ok(2, {}));
  assert.deepEqual(
    await client.request('resources/subscribe', { uri: 'mem://c' }, 3),
    fail(3, { code: -32603, message: 'Subscription limit reached' }),
  );
  // Re-subscribing to a held URI is not a new subscription, and another connection has its own budget.
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://a' }, 4), ok(4, {}));
  assert.deepEqual(await other.request('resources/subscribe', { uri: 'mem://c' }, 1), ok(1, {}));
  // Unsubscribing frees a slot.
  await client.request('resources/unsubscribe', { uri: 'mem://b' });
  assert.deepEqual(await client.request('resources/subscribe', { uri: 'mem://c' }, 5), ok(5, {}));
  server.notifyResourceUpdated('mem://b');
  await assertQuiet(client);
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(await other.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Connection bookkeeping

test('metrics().connections counts live connections and goes back down when each ends (no hub listener leak)', async () => {
  const server = createEverythingServer();
  assert.equal(server.metrics().connections, 0);
  const a = new WireClient(server);
  const b = new WireClient(server);
  const c = new WireClient(server);
  assert.equal(server.metrics().connections, 3);
  await a.initialize();
  await b.initialize();
  await b.request('resources/subscribe', { uri: 'test://watched-resource' });
  assert.deepEqual(await a.end(), []);
  assert.equal(server.metrics().connections, 2);
  assert.deepEqual(await c.end(), []); // never initialized
  assert.equal(server.metrics().connections, 1);
  assert.deepEqual(await b.end(), []);
  assert.equal(server.metrics().connections, 0);
  // Events after every connection closed reach nobody and fail nowhere.
  server.notifyListChanged('tools');
  server.notifyResourceUpdated('test://watched-resource');
  for (let i = 0; i < 20; i++) assert.deepEqual(await new WireClient(server).end(), []);
  assert.equal(server.metrics().connections, 0);
});

// ---------------------------------------------------------------------------------------------------------------
// A full session against the demo server

const DEMO_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'test_tool_with_progress',
  'test_tool_with_logging',
  'json_schema_2020_12_tool',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_reconnection',
  'test_sleep',
  'test_throw',
  'test_publish',
  ...DEMO_TASK_TOOLS,
];

/** Captures what the process writes to stderr while `run` is pending. */
async function captureStderr<T>(run: () => Promise<T>): Promise<{ value: T; stderr: string }> {
  const original = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    return { value: await run(), stderr };
  } finally {
    process.stderr.write = original;
  }
}

test('a full 2025-11-25 session against the demo server: every tool, resource and prompt, a cancel, a clean end', async () => {
  const { stderr } = await captureStderr(() => demoSession());
  // A plain Error thrown by a tool is logged with its detail; a cancelled tool is not a failure to report.
  assert.match(stderr, /secret-detail-42/);
  assert.doesNotMatch(stderr, /test_sleep/);
});

async function demoSession(): Promise<void> {
  const client = new WireClient(createEverythingServer());
  const init = await client.initialize('2025-11-25', { sampling: {}, elicitation: {} });
  assert.deepEqual(init.capabilities, {
    logging: {},
    completions: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    tools: { listChanged: true },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
  });
  assert.equal(typeof init.instructions, 'string');
  assert.deepEqual(await client.request('ping', undefined, 0), ok(0, {}));
  assert.deepEqual((await client.request('logging/setLevel', { level: 'debug' })).result, {});

  const { tools } = (await client.request('tools/list', {})).result;
  assert.deepEqual(
    tools.map((tool: { name: string }) => tool.name),
    DEMO_TOOLS,
  );
  for (const tool of tools) {
    assert.equal(typeof tool.description, 'string', tool.name);
    assert.equal(tool.inputSchema.type, 'object', tool.name);
  }

  const call = async (name: string, args?: object) =>
    (await client.request('tools/call', args === undefined ? { name } : { name, arguments: args })).result;

  assert.deepEqual(await call('test_simple_text'), { content: [text('This is a simple text response for testing.')] });
  assert.deepEqual(await call('test_image_content'), {
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  });
  assert.deepEqual(await call('test_audio_content'), {
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  });
  assert.deepEqual(await call('test_embedded_resource'), {
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  });
  assert.deepEqual(await call('test_multiple_content_types'), {
    content: [
      text('Multiple content types test:'),
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ],
  });
  assert.deepEqual(await call('test_error_handling'), {
    content: [text('This tool intentionally returns an error for testing')],
    isError: true,
  });
  assert.deepEqual(
    await call('json_schema_2020_12_tool', { name: 'n', contactMethod: 'email', email: 'e@example.com' }),
    {
      content: [text('Received: {"name":"n","contactMethod":"email","email":"e@example.com"}')],
    },
  );

  // Progress: 0, 50, 100 of 100 on the request's token, before the result.
  client.send({
    jsonrpc: '2.0',
    id: 'progress',
    method: 'tools/call',
    params: { name: 'test_tool_with_progress', _meta: { progressToken: 0 } },
  });
  assert.deepEqual(await untilResponse(client, 'progress'), [
    ...[0, 50, 100].map((progress) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 0, progress, total: 100, message: `Completed step ${progress} of 100` },
    })),
    ok('progress', { content: [text('Progress completed')] }),
  ]);

  // Logging: three info messages, before the result.
  client.send({ jsonrpc: '2.0', id: 'logging', method: 'tools/call', params: { name: 'test_tool_with_logging' } });
  assert.deepEqual(await untilResponse(client, 'logging'), [
    ...['Tool execution started', 'Tool processing data', 'Tool execution completed'].map((data) => ({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data },
    })),
    ok('logging', { content: [text('Tool with logging executed successfully')] }),
  ]);

  // Sampling: the server asks, the test answers.
  client.send({
    jsonrpc: '2.0',
    id: 'sampling',
    method: 'tools/call',
    params: { name: 'test_sampling', arguments: { prompt: 'Capital of France?' } },
  });
  const sample = await client.next();
  assert.deepEqual(sample, {
    jsonrpc: '2.0',
    id: sample.id,
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: text('Capital of France?') }], maxTokens: 100 },
  });
  client.send({
    jsonrpc: '2.0',
    id: sample.id,
    result: { role: 'assistant', content: text('Paris'), model: 'test-model', stopReason: 'endTurn' },
  });
  assert.deepEqual(await client.next(), ok('sampling', { content: [text('LLM response: Paris')] }));

  // Elicitation, three ways.
  const elicitations: [string, object | undefined, string, object, string][] = [
    [
      'test_elicitation',
      { message: 'Who are you?' },
      'Who are you?',
      { action: 'accept', content: { username: 'ann', email: 'ann@example.com' } },
      'User response: action=accept, content={"username":"ann","email":"ann@example.com"}',
    ],
    [
      'test_elicitation_sep1034_defaults',
      undefined,
      'Please review your information',
      { action: 'decline' },
      'Elicitation completed: action=decline, content={}',
    ],
    [
      'test_elicitation_sep1330_enums',
      undefined,
      'Please choose options',
      { action: 'accept', content: { untitledSingle: 'option1' } },
      'Elicitation completed: action=accept, content={"untitledSingle":"option1"}',
    ],
  ];
  for (const [name, args, message, answer, expected] of elicitations) {
    client.send({
      jsonrpc: '2.0',
      id: name,
      method: 'tools/call',
      params: args === undefined ? { name } : { name, arguments: args },
    });
    const ask = await client.next();
    assert.equal(ask.method, 'elicitation/create', name);
    assert.equal(ask.params.message, message, name);
    assert.equal(ask.params.requestedSchema.type, 'object', name);
    client.send({ jsonrpc: '2.0', id: ask.id, result: answer });
    assert.deepEqual(await client.next(), ok(name, { content: [text(expected)] }), name);
  }

  // Change events through test_publish arrive before its result.
  client.send({
    jsonrpc: '2.0',
    id: 'publish',
    method: 'tools/call',
    params: { name: 'test_publish', arguments: { event: 'prompts', count: 2 } },
  });
  assert.deepEqual(await untilResponse(client, 'publish'), [
    LIST_CHANGED('prompts'),
    LIST_CHANGED('prompts'),
    ok('publish', { content: [text('Published 2 prompts event(s)')] }),
  ]);

  // Cancel a sleep once it is demonstrably running; no response for it ever arrives.
  {
    client.send({
      jsonrpc: '2.0',
      id: 'sleep',
      method: 'tools/call',
      params: { name: 'test_sleep', arguments: { ms: 600_000 }, _meta: { progressToken: 'zz' } },
    });
    const first = await client.next();
    assert.equal(first.method, 'notifications/progress');
    assert.equal(first.params.progressToken, 'zz');
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sleep', reason: 'test' } });
    client.send({ jsonrpc: '2.0', id: 'after-cancel', method: 'ping' });
    for (const frame of await untilResponse(client, 'after-cancel')) {
      if (frame.id === 'after-cancel') continue;
      // Progress written before the cancel arrived may still be in the pipe; nothing else may be.
      assert.equal(frame.method, 'notifications/progress');
    }
    assert.equal(client.stdio.connection.inFlightCount, 0);
  }

  // A plain Error thrown by a tool: generic text on the wire, the detail on stderr only (checked by the caller).
  assert.deepEqual(await call('test_throw', { message: 'secret-detail-42' }), {
    content: [text('Tool execution failed')],
    isError: true,
  });
  assert.ok(!client.frames.some((frame) => JSON.stringify(frame).includes('secret-detail-42')));

  // Every resource, and the template.
  const { resources } = (await client.request('resources/list', {})).result;
  for (const resource of resources) {
    const { contents } = (await client.request('resources/read', { uri: resource.uri })).result;
    assert.equal(contents.length, 1, resource.uri);
    assert.equal(contents[0].uri, resource.uri);
    assert.equal(contents[0].mimeType, resource.mimeType);
    assert.ok(typeof contents[0].text === 'string' || typeof contents[0].blob === 'string', resource.uri);
  }
  const { resourceTemplates } = (await client.request('resources/templates/list', {})).result;
  assert.equal(resourceTemplates.length, 1);
  assert.deepEqual(
    JSON.parse((await client.request('resources/read', { uri: 'test://template/42/data' })).result.contents[0].text),
    {
      id: '42',
      templateTest: true,
      data: 'Data for ID: 42',
    },
  );
  assert.deepEqual(
    await client.request('resources/subscribe', { uri: 'test://watched-resource' }, 'sub'),
    ok('sub', {}),
  );
  assert.deepEqual(
    await client.request('resources/unsubscribe', { uri: 'test://watched-resource' }, 'unsub'),
    ok('unsub', {}),
  );

  // Every prompt.
  const { prompts } = (await client.request('prompts/list', {})).result;
  const promptArgs: Record<string, Record<string, string>> = {
    test_prompt_with_arguments: { arg1: 'hello', arg2: 'world' },
    test_prompt_with_embedded_resource: { resourceUri: 'test://static-text' },
  };
  const expectedMessages: Record<string, object[]> = {
    test_simple_prompt: [{ role: 'user', content: text('This is a simple prompt for testing.') }],
    test_prompt_with_arguments: [{ role: 'user', content: text("Prompt with arguments: arg1='hello', arg2='world'") }],
    test_prompt_with_embedded_resource: [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: 'test://static-text',
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
    test_prompt_with_image: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  };
  assert.deepEqual(prompts.map((prompt: { name: string }) => prompt.name).sort(), Object.keys(expectedMessages).sort());
  for (const prompt of prompts) {
    const params =
      promptArgs[prompt.name] === undefined
        ? { name: prompt.name }
        : { name: prompt.name, arguments: promptArgs[prompt.name] };
    assert.deepEqual(
      (await client.request('prompts/get', params)).result,
      { messages: expectedMessages[prompt.name] },
      prompt.name,
    );
  }

  // End of input: the server drains, closes its output, and nothing was left unread.
  assert.deepEqual(await client.end(), []);
  assert.equal(client.stdio.connection.closed, true);
  assert.equal(client.stdio.connection.inFlightCount, 0);
  assert.deepEqual(client.unansweredServerRequests(), []);
}

test('demo sampling and elicitation tools fail in-band, without a request frame, when the client lacks the capability', async () => {
  for (const [version, capabilities] of [
    ['2025-11-25', {}],
    ['2025-03-26', { elicitation: {} }],
  ] as const) {
    const client = await connected(createEverythingServer(), version, capabilities);
    for (const [name, args] of [
      ['test_sampling', { prompt: 'x' }],
      ['test_elicitation', { message: 'x' }],
      ['test_elicitation_sep1034_defaults', {}],
    ] as const) {
      const result = (await client.request('tools/call', { name, arguments: args })).result;
      assert.equal(result.isError, true, `${version} ${name}`);
      assert.match(
        result.content[0].text,
        /^Request failed: Cannot send '(sampling\/createMessage|elicitation\/create)'/,
      );
    }
    assert.ok(
      !client.frames.some(
        (frame) => frame.method === 'sampling/createMessage' || frame.method === 'elicitation/create',
      ),
    );
    assert.deepEqual(await client.end(), []);
  }
});

test('a tool that awaits a client answer sees a failure, not a hang, when the client ends its input', async () => {
  const server = createEverythingServer();
  const client = await connected(server, '2025-11-25', { sampling: {} });
  client.send({
    jsonrpc: '2.0',
    id: 's',
    method: 'tools/call',
    params: { name: 'test_sampling', arguments: { prompt: 'x' } },
  });
  const ask = await client.next();
  assert.equal(ask.method, 'sampling/createMessage');
  const rest = await client.end();
  assert.equal(rest.length, 1);
  assert.equal(rest[0].id, 's');
  assert.equal(rest[0].result.isError, true);
  assert.match(rest[0].result.content[0].text, /^Request failed: /);
});

test("handlers see the negotiated version and the client's declared capabilities", async () => {
  const { server } = quietServer();
  const seen = deferred<[string, unknown, unknown]>();
  server.tool('ctx', {}, (_args, ctx: Context) => {
    seen.resolve([ctx.protocolVersion, ctx.clientCapabilities, ctx.clientInfo]);
    return { content: [] };
  });
  const client = await connected(server, '2025-03-26', { roots: { listChanged: true } });
  await client.request('tools/call', { name: 'ctx' });
  assert.deepEqual(await seen.promise, [
    '2025-03-26',
    { roots: { listChanged: true } },
    { name: 'test-client', version: '1.0.0' },
  ]);
  assert.deepEqual(await client.end(), []);
});

test('a cancelled tool call is neither answered nor logged as a tool failure', async () => {
  const { server, logger } = quietServer();
  const started = deferred();
  server.tool(
    'hang',
    {},
    (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted by the client')));
        started.resolve();
      }),
  );
  const client = await connected(server);
  client.send({ jsonrpc: '2.0', id: 'h', method: 'tools/call', params: { name: 'hang' } });
  await started.promise;
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h' } });
  assert.deepEqual(await client.request('ping', undefined, 'p'), ok('p', {}));
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(logger.errors, []);
});

test('a tool that returns something other than a CallToolResult is a generic isError result, logged', async () => {
  const { server, logger } = quietServer();
  for (const [name, value] of [
    ['undef', undefined],
    ['str', 'just text'],
    ['arr', [1]],
    ['nul', null],
  ] as const) {
    server.tool(name, {}, () => value as never);
  }
  const client = await connected(server);
  for (const name of ['undef', 'str', 'arr', 'nul']) {
    assert.deepEqual(
      (await client.request('tools/call', { name })).result,
      { content: [text('Tool execution failed')], isError: true },
      name,
    );
  }
  assert.equal(logger.errors.length, 4);
  assert.match(logger.errors[1]!.message, /'str' returned "just text", not a CallToolResult/);
  assert.deepEqual(await client.end(), []);
});

for (const version of LEGACY) {
  test(`prompts/get under ${version} drops messages whose content kind that version does not know`, async () => {
    const { server } = quietServer();
    const messages = [
      { role: 'user' as const, content: text('t') },
      { role: 'user' as const, content: { type: 'audio' as const, data: WAV, mimeType: 'audio/wav' } },
      { role: 'assistant' as const, content: { type: 'resource_link' as const, uri: 'mem://x', name: 'x' } },
    ];
    server.prompt('p', { description: 'd' }, () => ({ description: 'shown', messages }));
    const client = await connected(server, version);
    const expected =
      version >= '2025-06-18' ? messages : version >= '2025-03-26' ? messages.slice(0, 2) : messages.slice(0, 1);
    assert.deepEqual((await client.request('prompts/get', { name: 'p' })).result, {
      description: 'shown',
      messages: expected,
    });
    assert.deepEqual(await client.end(), []);
  });
}

test("handlers can list the client's roots and ping it; roots need the declared capability", async () => {
  const { server } = quietServer();
  server.tool('roots', {}, async (_args, ctx) => {
    const { roots } = await ctx.listRoots();
    await ctx.ping();
    return { content: [text(`${String(ctx.requestId)}: ${roots.map((root) => root.uri).join(',')}`)] };
  });
  const withRoots = await connected(server, '2025-11-25', { roots: {} });
  withRoots.send({ jsonrpc: '2.0', id: 'r', method: 'tools/call', params: { name: 'roots' } });
  const list = await withRoots.next();
  assert.deepEqual(list, { jsonrpc: '2.0', id: list.id, method: 'roots/list' });
  withRoots.send({ jsonrpc: '2.0', id: list.id, result: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } });
  const ping = await withRoots.next();
  assert.deepEqual(ping, { jsonrpc: '2.0', id: ping.id, method: 'ping' });
  assert.notEqual(ping.id, list.id);
  withRoots.send({ jsonrpc: '2.0', id: ping.id, result: {} });
  assert.deepEqual(await withRoots.next(), ok('r', { content: [text('r: file:///a,file:///b')] }));
  assert.deepEqual(await withRoots.end(), []);

  const without = await connected(server, '2025-11-25', {});
  assert.deepEqual(
    await without.request('tools/call', { name: 'roots' }, 1),
    ok(1, { content: [text('Tool execution failed')], isError: true }),
  );
  assert.deepEqual(await without.end(), []);
});
