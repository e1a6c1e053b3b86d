// Resource templates that list their instances (ResourceTemplateDefinition.list, docs/api.md, Registration and
// handles): the listed resources follow the fixed ones in resources/list, filled with the template's fields and paged
// with them by one cursor, in both eras over stdio and HTTP; a list that throws, answers a malformed result or
// gathers more than the listing bound is -32603, logged; registration changes of the template change what it lists.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type Context, createServer, type ListedResource, ProtocolError, type ServerOptions } from '../core.ts';
import { serveHttp } from '../http.ts';
import { connectTestClient } from '../testing.ts';
import { MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { fail, modern } from './wire.ts';

const ERAS = ['legacy', 'modern'] as const;
const INFO = { name: 'template-list', version: '1.0.0' };
const INTERNAL = { code: -32603, message: 'Internal error' };
/** The listing bound of features.ts (MAX_LISTED_RESOURCES), written out so that a changed figure fails here. */
const MAX_LISTED = 10_000;

const NOTE_FIELDS = { name: 'note', title: 'A note', description: 'One note', mimeType: 'text/plain' };

function setup(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger, ...options });
  server.resource('mem://readme', { name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'read me' }] }));
  return { server, logger };
}

function read(uri: string) {
  return { contents: [{ uri, text: uri }] };
}

/** `count` resources of the template `notes://{id}`. */
function notes(count: number, from = 0): ListedResource[] {
  return Array.from({ length: count }, (_, i) => ({ uri: `notes://${from + i}`, name: `note ${from + i}` }));
}

/** The error a test client's request rejected with. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await promise.then(
    () => assert.fail('the request succeeded'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ProtocolError, String(error));
  return { code: error.code, message: error.message };
}

for (const era of ERAS) {
  test(`${era}: a template's list adds its resources after the fixed ones, the template's fields filling the gaps`, async () => {
    const { server } = setup();
    const seen: Context[] = [];
    server.resourceTemplate('plain://{id}', { name: 'unlisted' }, (uri) => read(uri));
    server.resourceTemplate(
      'notes://{id}/v{version}',
      {
        ...NOTE_FIELDS,
        icons: [{ src: 'https://example.com/n.png' }],
        _meta: { 'example.com/kind': 'note' },
        list: (ctx) => {
          seen.push(ctx);
          return [
            { uri: 'notes://1/v2', name: 'note 1 v2', description: 'Second draft', size: 12, era: 'legacy' },
            { uri: 'notes://1/v3', name: 'note 1 v3', annotations: { priority: 1 }, _meta: { own: true } },
          ] as ListedResource[];
        },
      },
      (uri) => read(uri),
    );
    const client = await connectTestClient(server, { era });
    assert.deepEqual(await client.listResources(), {
      resources: [
        { uri: 'mem://readme', name: 'readme' },
        {
          uri: 'notes://1/v2',
          name: 'note 1 v2',
          description: 'Second draft',
          mimeType: 'text/plain',
          size: 12,
          title: 'A note',
          _meta: { 'example.com/kind': 'note' },
          icons: [{ src: 'https://example.com/n.png' }],
        },
        {
          uri: 'notes://1/v3',
          name: 'note 1 v3',
          description: 'One note',
          mimeType: 'text/plain',
          annotations: { priority: 1 },
          title: 'A note',
          _meta: { own: true },
          icons: [{ src: 'https://example.com/n.png' }],
        },
      ],
    });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.era, era);
    assert.equal(seen[0]!.protocolVersion, client.protocolVersion);
    await client.close();
  });

  test(`${era}: the cursor pages over the fixed and the listed resources together`, async () => {
    const { server } = setup({ pageSize: 2 });
    server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: () => notes(2) }, (uri) => read(uri));
    server.resourceTemplate('plain://{id}', { name: 'unlisted' }, (uri) => read(uri));
    server.resourceTemplate(
      'more://{id}',
      { name: 'more', list: async () => [{ uri: 'more://x', name: 'x' }] },
      (uri) => read(uri),
    );
    const client = await connectTestClient(server, { era });
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor);
      pages.push(page.resources.map((resource) => resource.uri as string));
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    assert.deepEqual(pages, [
      ['mem://readme', 'notes://0'],
      ['notes://1', 'more://x'],
    ]);
    await client.close();
  });

  test(`${era}: a list that shrinks between pages leaves a cursor past its end refused with -32602`, async () => {
    const { server } = setup({ pageSize: 2 });
    let count = 5;
    server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: () => notes(count) }, (uri) => read(uri));
    const client = await connectTestClient(server, { era });
    const first = await client.listResources();
    const second = await client.listResources(first.nextCursor as string);
    assert.deepEqual(
      second.resources.map((resource) => resource.uri),
      ['notes://1', 'notes://2'],
    );
    count = 1; // the fixed resource and one note: offset 4 is past the end now
    assert.deepEqual(await failure(client.listResources(second.nextCursor as string)), {
      code: -32602,
      message: 'Invalid params: params.cursor is not a cursor this server issued',
    });
    count = 3; // offset 4 is the end again: an empty last page
    assert.deepEqual(await client.listResources(second.nextCursor as string), { resources: [] });
    await client.close();
  });

  test(`${era}: a list that throws answers -32603 without its message, and is logged`, async () => {
    const { server, logger } = setup();
    const thrown = new Error('database is down');
    server.resourceTemplate(
      'notes://{id}',
      {
        ...NOTE_FIELDS,
        list: () => {
          throw thrown;
        },
      },
      (uri) => read(uri),
    );
    const client = await connectTestClient(server, { era });
    assert.deepEqual(await failure(client.listResources()), INTERNAL);
    assert.deepEqual(logger.errors, [{ message: "handler for 'resources/list' failed", error: thrown }]);
    await client.close();
  });

  test(`${era}: a malformed list result is -32603, logged naming the template and the field`, async () => {
    const cases: [unknown, string][] = [
      [{ resources: [] }, '{"resources":[]}, not an array of resources'],
      [[{ uri: 'notes://0', name: 'n' }, null], 'item 1 without an absolute "uri"'],
      [[{ name: 'n', uri: 7 }], 'item 0 without an absolute "uri"'],
      [[{ name: 'n', uri: 'notes/0' }], 'item 0 without an absolute "uri"'],
      [[{ uri: 'notes://0', title: 'no name' }], 'item 0 without a string "name"'],
    ];
    for (const [result, detail] of cases) {
      const { server, logger } = setup();
      server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: async () => result as ListedResource[] }, (uri) =>
        read(uri),
      );
      const client = await connectTestClient(server, { era });
      assert.deepEqual(await failure(client.listResources()), INTERNAL, detail);
      assert.deepEqual(
        logger.errors.map((entry) => entry.message),
        [`list of resource template 'notes://{id}' returned ${detail}`],
      );
      await client.close();
    }
  });

  test(`${era}: the templates' lists give one listing ${MAX_LISTED} resources together at most, the rest left out with a warning`, async () => {
    const { server, logger } = setup({ pageSize: 20_000 });
    let extra = 0;
    server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: () => notes(MAX_LISTED / 2) }, (uri) => read(uri));
    server.resourceTemplate(
      'more://{id}',
      { name: 'more', list: () => notes(MAX_LISTED / 2 + extra, MAX_LISTED) },
      (uri) => read(uri),
    );
    const client = await connectTestClient(server, { era });
    const full = await client.listResources();
    assert.equal(full.resources.length, 1 + MAX_LISTED); // the fixed one and every listed one
    assert.deepEqual(logger.warnings, []);
    extra = 1;
    const cut = await client.listResources();
    assert.deepEqual(cut.resources, full.resources);
    assert.deepEqual(logger.warnings, [
      "list of resource template 'more://{id}' returned resources past MAX_LISTED_RESOURCES (10000, all templates together): the rest is not listed",
    ]);
    assert.deepEqual(logger.errors, []);
    await client.close();
  });

  test(`${era}: updating, disabling and removing a template changes what it lists`, async () => {
    const { server } = setup();
    const registration = server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: () => notes(1) }, (uri) =>
      read(uri),
    );
    const client = await connectTestClient(server, { era });
    const uris = async () => (await client.listResources()).resources.map((resource) => resource.uri);
    assert.deepEqual(await uris(), ['mem://readme', 'notes://0']);
    registration.update({ list: () => notes(2, 5) });
    assert.deepEqual(await uris(), ['mem://readme', 'notes://5', 'notes://6']);
    registration.disable();
    assert.deepEqual(await uris(), ['mem://readme']);
    registration.enable();
    registration.update({ description: 'Changed' });
    assert.deepEqual((await client.listResources()).resources[1], {
      uri: 'notes://5',
      name: 'note 5',
      title: 'A note',
      description: 'Changed',
      mimeType: 'text/plain',
    });
    registration.remove();
    assert.deepEqual(await uris(), ['mem://readme']);
    await client.close();
  });

  test(`${era}: a template served in the other era lists nothing here`, async () => {
    const { server } = setup();
    const other = era === 'legacy' ? 'modern' : 'legacy';
    server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, era: other, list: () => notes(1) }, (uri) => read(uri));
    server.resourceTemplate('more://{id}', { name: 'more', era, list: () => [{ uri: 'more://x', name: 'x' }] }, (uri) =>
      read(uri),
    );
    const client = await connectTestClient(server, { era });
    assert.deepEqual((await client.listResources()).resources, [
      { uri: 'mem://readme', name: 'readme' },
      { uri: 'more://x', name: 'x' },
    ]);
    await client.close();
  });
}

test('legacy over stdio: registering, updating and removing a listing template announces resources/list_changed', async () => {
  const { server } = setup();
  const client = new WireClient(server);
  await client.initialize();
  const changed = { jsonrpc: '2.0', method: 'notifications/resources/list_changed' };
  const registration = server.resourceTemplate('notes://{id}', { ...NOTE_FIELDS, list: () => notes(1) }, (uri) =>
    read(uri),
  );
  assert.deepEqual(await client.next(), changed);
  registration.update({ list: () => notes(2) });
  assert.deepEqual(await client.next(), changed);
  registration.remove();
  assert.deepEqual(await client.next(), changed);
  assert.deepEqual(await client.request('resources/list', {}, 1), {
    jsonrpc: '2.0',
    id: 1,
    result: { resources: [{ uri: 'mem://readme', name: 'readme' }] },
  });
  assert.deepEqual(await client.end(), []);
});

test('modern over stdio: a list that throws is answered with the exact -32603 frame', async () => {
  const { server, logger } = setup();
  server.resourceTemplate(
    'notes://{id}',
    {
      ...NOTE_FIELDS,
      list: () => {
        throw new Error('secret detail');
      },
    },
    (uri) => read(uri),
  );
  const client = new WireClient(server);
  client.send(modern('resources/list', {}, 7));
  assert.deepEqual(await client.response(7), fail(7, INTERNAL));
  assert.equal(logger.errors.length, 1);
  assert.deepEqual(await client.end(), []);
});

test('modern over HTTP: resources/list carries the listed resources, and the list sees the HTTP request', async (t: TestContext) => {
  const { server } = setup();
  server.resourceTemplate(
    'notes://{id}',
    { ...NOTE_FIELDS, list: (ctx) => notes(Number(ctx.http?.headers['x-notes'] ?? 0)) },
    (uri) => read(uri),
  );
  const http = await serveHttp(server, { port: 0, keepAliveMs: 0 });
  t.after(() => http.close());
  const frame = modern('resources/list', {}, 3);
  const response = await raw(http.url, {
    headers: { ...modernHeaders(frame), 'x-notes': '2' },
    body: JSON.stringify(frame),
  });
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json.result._meta['io.modelcontextprotocol/serverInfo'].name, INFO.name);
  assert.deepEqual(response.json.result.resources, [
    { uri: 'mem://readme', name: 'readme' },
    { uri: 'notes://0', name: 'note 0', title: 'A note', description: 'One note', mimeType: 'text/plain' },
    { uri: 'notes://1', name: 'note 1', title: 'A note', description: 'One note', mimeType: 'text/plain' },
  ]);
});
