// Caching hints per registration and per list (MCP 2026-07-28, Server > Utilities > Caching): a resource's or
// template's `cache` goes on the reads it serves, each list's on its pages (`cache.lists`), a handler's own hints win
// over both, and the server's `cache` fills whatever is left. Invalid hints are refused where they are given (a
// TypeError naming the field) or, from a handler, answered -32603 and logged. The 2025 era never sees a hint.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createServer, inputRequired, type Server, type ServerOptions } from '../core.ts';
import { serveHttp } from '../http.ts';
import { connectTestClient } from '../testing.ts';
import { MemoryLogger } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { modern, SERVER_INFO } from './wire.ts';

const INFO = { name: 'cache-hints-test', version: '1.0.0' };
const STAMP = { [SERVER_INFO]: INFO };

function quietServer(options: ServerOptions = {}): { server: Server; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  return { server: createServer(INFO, { ...options, logger }), logger };
}

/** A resource handler answering one text content for the URI read, plus `extra` result fields. */
function contents(extra: object = {}) {
  return (uri: string) => ({ contents: [{ uri, text: 'x' }], ...extra });
}

/** The raw 2026-07-28 result of reading `uri`. */
async function read(server: Server, uri: string): Promise<Record<string, unknown>> {
  const client = await connectTestClient(server);
  try {
    return await client.request('resources/read', { uri }, { raw: true });
  } finally {
    await client.close();
  }
}

/** A complete read result of `uri` with these hints, as the wire carries it. */
function readResult(uri: string, ttlMs: number, cacheScope: string) {
  return { contents: [{ uri, text: 'x' }], resultType: 'complete', _meta: STAMP, ttlMs, cacheScope };
}

test("a resource's cache hints go on the reads it serves, each field over the server's", async () => {
  const { server } = quietServer({ cache: { ttlMs: 1000, scope: 'private' } });
  server.resource('r://both', { name: 'both', cache: { ttlMs: 60_000, scope: 'public' } }, contents());
  server.resource('r://ttl', { name: 'ttl', cache: { ttlMs: 5 } }, contents());
  server.resource('r://scope', { name: 'scope', cache: { scope: 'public' } }, contents());
  server.resource('r://none', { name: 'none' }, contents());
  assert.deepEqual(await read(server, 'r://both'), readResult('r://both', 60_000, 'public'));
  assert.deepEqual(await read(server, 'r://ttl'), readResult('r://ttl', 5, 'private'));
  assert.deepEqual(await read(server, 'r://scope'), readResult('r://scope', 1000, 'public'));
  assert.deepEqual(await read(server, 'r://none'), readResult('r://none', 1000, 'private'));
});

test("a resource template's cache hints go on the reads it serves; a resource at the URI serves it first", async () => {
  const { server } = quietServer();
  server.resourceTemplate('r://t/{x}', { name: 'tpl', cache: { ttlMs: 30_000, scope: 'public' } }, contents());
  server.resourceTemplate('r://u/{x}', { name: 'plain' }, contents());
  server.resource('r://t/fixed', { name: 'fixed', cache: { ttlMs: 7 } }, contents());
  assert.deepEqual(await read(server, 'r://t/1'), readResult('r://t/1', 30_000, 'public'));
  assert.deepEqual(await read(server, 'r://u/1'), readResult('r://u/1', 0, 'private'));
  assert.deepEqual(await read(server, 'r://t/fixed'), readResult('r://t/fixed', 7, 'private'));
  // A read nothing serves is refused as ever.
  await assert.rejects(read(server, 5 as never), {
    code: -32602,
    message: 'Invalid params: params.uri must be a string',
  });
  await assert.rejects(read(server, 'r://v/1'), { code: -32602, message: 'Resource not found' });
});

test('an update changes the hints of later reads; disabled, the template behind it serves them', async () => {
  const { server } = quietServer();
  server.resourceTemplate('r://t/{x}', { name: 'tpl', cache: { ttlMs: 9 } }, contents());
  const resource = server.resource('r://t/a', { name: 'a', cache: { ttlMs: 1 } }, contents());
  resource.update({ cache: { ttlMs: 2, scope: 'public' } });
  assert.deepEqual(await read(server, 'r://t/a'), readResult('r://t/a', 2, 'public'));
  resource.update({ description: 'the cache stays' });
  assert.deepEqual(await read(server, 'r://t/a'), readResult('r://t/a', 2, 'public'));
  resource.disable();
  assert.deepEqual(await read(server, 'r://t/a'), readResult('r://t/a', 9, 'private'));
});

test("each list's pages carry its own hints from cache.lists, discover and the other lists the server's", async () => {
  const { server } = quietServer({
    cache: {
      ttlMs: 1000,
      lists: {
        tools: { ttlMs: 10 },
        resources: { scope: 'public' },
        resourceTemplates: { ttlMs: 30, scope: 'public' },
      },
    },
    pageSize: 1,
  });
  server.tool('t1', {}, () => ({ content: [] }));
  server.tool('t2', {}, () => ({ content: [] }));
  // A resource's own hints are for its reads: the list of resources keeps the list's.
  server.resource('r://a', { name: 'a', cache: { ttlMs: 5, scope: 'private' } }, contents());
  server.resourceTemplate('r://t/{x}', { name: 'tpl', cache: { ttlMs: 5 } }, contents());
  server.prompt('p', {}, () => ({ messages: [] }));
  const client = await connectTestClient(server);
  const hints = async (method: string, params = {}) => {
    const { ttlMs, cacheScope, nextCursor } = await client.request(method, params, { raw: true });
    return { ttlMs, cacheScope, nextCursor };
  };
  const first = await hints('tools/list');
  assert.deepEqual(
    { ...first, nextCursor: typeof first.nextCursor },
    { ttlMs: 10, cacheScope: 'private', nextCursor: 'string' },
  );
  assert.deepEqual(await hints('tools/list', { cursor: first.nextCursor }), {
    ttlMs: 10,
    cacheScope: 'private',
    nextCursor: undefined,
  });
  assert.deepEqual(await hints('resources/list'), { ttlMs: 1000, cacheScope: 'public', nextCursor: undefined });
  assert.deepEqual(await hints('resources/templates/list'), { ttlMs: 30, cacheScope: 'public', nextCursor: undefined });
  assert.deepEqual(await hints('prompts/list'), { ttlMs: 1000, cacheScope: 'private', nextCursor: undefined });
  assert.deepEqual(await hints('server/discover'), { ttlMs: 1000, cacheScope: 'private', nextCursor: undefined });
  await client.close();
});

test("a handler's own ttlMs and cacheScope win over its registration's and the server's, each on its own", async () => {
  const { server } = quietServer({ cache: { ttlMs: 1000, scope: 'public' } });
  server.resource('r://ttl', { name: 'ttl', cache: { ttlMs: 50, scope: 'private' } }, contents({ ttlMs: 0 }));
  server.resourceTemplate('r://t/{x}', { name: 'tpl', cache: { ttlMs: 50 } }, contents({ cacheScope: 'private' }));
  server.resource('r://unset', { name: 'unset', cache: { ttlMs: 50 } }, contents({ ttlMs: undefined }));
  server.use({
    id: 'com.example/cached',
    settings: {},
    modernMethods: { 'example/get': { gated: false, cacheable: true, serve: () => ({ value: 1, ttlMs: 7 }) } },
  });
  assert.deepEqual(await read(server, 'r://ttl'), readResult('r://ttl', 0, 'private'));
  assert.deepEqual(await read(server, 'r://t/1'), readResult('r://t/1', 50, 'private'));
  assert.deepEqual(await read(server, 'r://unset'), readResult('r://unset', 50, 'public'));
  const client = await connectTestClient(server);
  assert.deepEqual(await client.request('example/get', {}, { raw: true }), {
    value: 1,
    resultType: 'complete',
    _meta: STAMP,
    ttlMs: 7,
    cacheScope: 'public',
  });
  await client.close();
});

test("a handler's invalid hint is the server's bug: -32603 without detail, the log names it", async () => {
  const { server, logger } = quietServer();
  const bad = [{ ttlMs: -1 }, { ttlMs: 1.5 }, { ttlMs: '10' }, { ttlMs: null }, { cacheScope: 'shared' }];
  for (const [index, extra] of bad.entries())
    server.resource(`r://bad/${index}`, { name: `${index}` }, contents(extra));
  const client = await connectTestClient(server);
  for (const index of bad.keys()) {
    await assert.rejects(client.request('resources/read', { uri: `r://bad/${index}` }, { raw: true }), {
      code: -32603,
      message: 'Internal error',
    });
  }
  await client.close();
  assert.deepEqual(
    logger.errors.map((entry) => entry.message),
    [
      'ttlMs -1 and cacheScope "private"',
      'ttlMs 1.5 and cacheScope "private"',
      'ttlMs "10" and cacheScope "private"',
      'ttlMs null and cacheScope "private"',
      'ttlMs 0 and cacheScope "shared"',
    ].map((got) => `resources/read returned ${got}: a non-negative integer and "public" or "private"`),
  );
});

test('invalid hints are refused where they are given, with a TypeError naming the field', async () => {
  const refusals: [() => unknown, string][] = [
    [() => createServer(INFO, { cache: { ttlMs: -1 } }), 'cache.ttlMs must be a non-negative integer, got -1'],
    [() => createServer(INFO, { cache: { ttlMs: Number.NaN } }), 'cache.ttlMs must be a non-negative integer, got NaN'],
    [
      () => createServer(INFO, { cache: { ttlMs: 2 ** 53 } }),
      `cache.ttlMs must be a non-negative integer, got ${2 ** 53}`,
    ],
    [
      () => createServer(INFO, { cache: { scope: 'shared' as never } }),
      'cache.scope must be "public" or "private", got "shared"',
    ],
    [() => createServer(INFO, { cache: 5 as never }), 'cache must be an object, got 5'],
    [() => createServer(INFO, { cache: { lists: [] as never } }), 'cache.lists must be an object, got []'],
    [
      () => createServer(INFO, { cache: { lists: { prompts: { ttlMs: 0.5 } } } }),
      'cache.lists.prompts.ttlMs must be a non-negative integer, got 0.5',
    ],
    // A misspelt key is refused rather than ignored.
    [
      () => createServer(INFO, { cache: { lists: { resourcetemplates: {} } as never } }),
      'cache.lists has no "resourcetemplates": it takes tools, resources, resourceTemplates, prompts',
    ],
    [
      () => createServer(INFO, { cache: { cacheScope: 'public' } as never }),
      'cache has no "cacheScope": it takes ttlMs, scope, lists',
    ],
  ];
  const server = createServer(INFO);
  refusals.push(
    [
      () => server.resource('r://a', { name: 'a', cache: { ttlMs: -5 } }, contents()),
      "resource 'r://a': cache.ttlMs must be a non-negative integer, got -5",
    ],
    [
      () => server.resourceTemplate('r://t/{x}', { name: 't', cache: { scope: 'all' as never } }, contents()),
      `resource template 'r://t/{x}': cache.scope must be "public" or "private", got "all"`,
    ],
    [
      () => server.resource('r://b', { name: 'b', cache: { ttl: 5 } as never }, contents()),
      `resource 'r://b': cache has no "ttl": it takes ttlMs, scope`,
    ],
  );
  for (const [refused, message] of refusals) assert.throws(refused, { name: 'TypeError', message });
  // Refused registrations registered nothing; a refused update leaves the item as it was.
  const resource = server.resource('r://a', { name: 'a', cache: { ttlMs: 1 } }, contents());
  const template = server.resourceTemplate('r://t/{x}', { name: 't' }, contents());
  assert.throws(() => resource.update({ cache: { ttlMs: '1' as never } }), {
    name: 'TypeError',
    message: `resource 'r://a': cache.ttlMs must be a non-negative integer, got "1"`,
  });
  assert.throws(() => template.update({ cache: null as never }), {
    name: 'TypeError',
    message: "resource template 'r://t/{x}': cache must be an object, got null",
  });
  assert.deepEqual(await read(server, 'r://a'), readResult('r://a', 1, 'private'));
  assert.deepEqual(await read(server, 'r://t/1'), readResult('r://t/1', 0, 'private'));
});

test("a retry's result is immediately stale and private, whatever the handler and its resource say (hints are required, caching is not)", async () => {
  const { server } = quietServer({ cache: { ttlMs: 1000 } });
  server.resource('r://ask', { name: 'ask', cache: { ttlMs: 60_000 } }, (uri, ctx) =>
    ctx.requestState === undefined
      ? inputRequired({}, { asked: true })
      : { contents: [{ uri, text: 'x' }], ttlMs: 5, cacheScope: 'public' },
  );
  assert.deepEqual(await read(server, 'r://ask'), {
    contents: [{ uri: 'r://ask', text: 'x' }],
    resultType: 'complete',
    _meta: STAMP,
    ttlMs: 0,
    cacheScope: 'private',
  });
});

test('the 2025 era sees no hint on any result, not even a handler’s own', async () => {
  const { server } = quietServer({ cache: { ttlMs: 1000, scope: 'public', lists: { tools: { ttlMs: 5 } } } });
  server.tool('t', {}, () => ({ content: [] }));
  server.resource('r://a', { name: 'a', cache: { ttlMs: 60_000 } }, contents());
  server.resource('r://own', { name: 'own', cache: { ttlMs: 60_000 } }, contents({ ttlMs: 5, cacheScope: 'public' }));
  server.resourceTemplate('r://t/{x}', { name: 'tpl', cache: { ttlMs: 60_000 } }, contents());
  server.prompt('p', {}, () => ({ messages: [] }));
  const client = await connectTestClient(server, { era: 'legacy' });
  const results = [
    await client.request('tools/list', {}, { raw: true }),
    await client.request('resources/list', {}, { raw: true }),
    await client.request('resources/templates/list', {}, { raw: true }),
    await client.request('prompts/list', {}, { raw: true }),
    await client.request('resources/read', { uri: 'r://a' }, { raw: true }),
    await client.request('resources/read', { uri: 'r://own' }, { raw: true }),
    await client.request('resources/read', { uri: 'r://t/1' }, { raw: true }),
  ];
  await client.close();
  assert.deepEqual(
    results.filter((result) => 'ttlMs' in result || 'cacheScope' in result || 'resultType' in result),
    [],
  );
  assert.deepEqual(results[5], { contents: [{ uri: 'r://own', text: 'x' }] });
});

test("over Streamable HTTP a read carries its resource's hints and a list its own", async () => {
  const { server } = quietServer({ cache: { lists: { resources: { ttlMs: 15_000, scope: 'public' } } } });
  server.resource('r://a', { name: 'a', cache: { ttlMs: 60_000 } }, contents({ cacheScope: 'public' }));
  const http = await serveHttp(server, { port: 0 });
  try {
    const post = (frame: object) => raw(http.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
    const readFrame = modern('resources/read', { uri: 'r://a' }, 1);
    const listFrame = modern('resources/list', {}, 2);
    const [readAnswer, listAnswer] = [await post(readFrame), await post(listFrame)];
    assert.equal(readAnswer.status, 200);
    assert.deepEqual(readAnswer.json, { jsonrpc: '2.0', id: 1, result: readResult('r://a', 60_000, 'public') });
    assert.deepEqual(listAnswer.json, {
      jsonrpc: '2.0',
      id: 2,
      result: {
        resources: [{ uri: 'r://a', name: 'a' }],
        resultType: 'complete',
        _meta: STAMP,
        ttlMs: 15_000,
        cacheScope: 'public',
      },
    });
  } finally {
    await http.close();
  }
});

test("the official v2 client on 2026-07-28 reads a resource's own hints and a list's own", async () => {
  const { server } = quietServer({ cache: { lists: { tools: { ttlMs: 7000, scope: 'public' } } } });
  server.resource('r://a', { name: 'a', cache: { ttlMs: 5000, scope: 'public' } }, contents());
  server.tool('t', {}, () => ({ content: [] }));
  const http = await serveHttp(server, { port: 0 });
  const client = new Client({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    const read = await client.readResource({ uri: 'r://a' });
    assert.deepEqual([read.ttlMs, read.cacheScope], [5000, 'public']);
    const tools = await client.listTools();
    assert.deepEqual([tools.ttlMs, tools.cacheScope], [7000, 'public']);
  } finally {
    await client.close();
    await http.close();
  }
});
