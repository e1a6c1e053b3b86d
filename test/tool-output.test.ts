// Any tool output (MCP 2026-07-28, SEP-2106): an outputSchema may be any JSON Schema and structuredContent any JSON
// value. 2026-07-28 gets both as they are; the 2025 versions with structured output (2025-06-18, 2025-11-25) get an
// object, as their schema requires: a non-object schema listed as {type: 'object', properties: {result: …}} and its
// values, and any non-object value, under `result` (as the official SDK projects them); a non-object value without a
// text of its own also gets its JSON as text (SEP-2106, Backward Compatibility). At the wire on stdio in both eras,
// with a zod output schema, and through the official v1 (2025-11-25) and v2 (2026-07-28) clients over HTTP.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { createServer, type Server } from '../core.ts';
import { wrappedSchema } from '../features.ts';
import { serveHttp } from '../http.ts';
import { compileSchema } from '../schema.ts';
import { MemoryLogger, WireClient } from './harness.ts';
import { CLIENT_CAPABILITIES, modern, ok, SERVER_INFO } from './wire.ts';

const INFO = { name: 'tool-output', version: '1.0.0' };
const HOURS = [
  { hour: '09:00', temp: 20 },
  { hour: '10:00', temp: 22 },
];
const HOURS_SCHEMA = {
  type: 'array',
  items: { $ref: '#/$defs/hour' },
  $defs: { hour: { type: 'object', properties: { hour: { type: 'string' }, temp: { type: 'number' } } } },
};

/** The tools of every test: arrays, a scalar, a text of their own, a misfit, a zod schema, and no schema at all. */
function outputServer(logger = new MemoryLogger()): Server {
  const server = createServer(INFO, { logger });
  server.tool('hours', { outputSchema: HOURS_SCHEMA }, () => ({ structuredContent: HOURS }));
  server.tool('count', { outputSchema: { type: 'integer' } }, () => ({
    content: [{ type: 'text', text: 'two' }],
    structuredContent: 2,
  }));
  server.tool('plain', {}, () => ({ structuredContent: 'done' }));
  server.tool('misfit', { outputSchema: { type: 'array', items: { type: 'number' } } }, () => ({
    structuredContent: ['one'],
  }));
  server.tool('zod', { outputSchema: z.array(z.number()) }, () => ({ structuredContent: [1, 2] }));
  server.tool('object', { outputSchema: { type: 'object' } }, () => ({ structuredContent: { a: 1 } }));
  return server;
}

const text = (value: string) => ({ type: 'text', text: value });

/** What tools/call of each tool answers (its result without the era's own fields). */
const ANSWERS = {
  modern: {
    hours: { content: [text(JSON.stringify(HOURS))], structuredContent: HOURS },
    count: { content: [text('two')], structuredContent: 2 },
    plain: { content: [text('"done"')], structuredContent: 'done' },
    zod: { content: [text('[1,2]')], structuredContent: [1, 2] },
    object: { content: [text('{"a":1}')], structuredContent: { a: 1 } },
  },
  legacy: {
    hours: { content: [text(JSON.stringify(HOURS))], structuredContent: { result: HOURS } },
    count: { content: [text('two')], structuredContent: { result: 2 } },
    plain: { content: [text('"done"')], structuredContent: { result: 'done' } },
    zod: { content: [text('[1,2]')], structuredContent: { result: [1, 2] } },
    object: { content: [text('{"a":1}')], structuredContent: { a: 1 } },
  },
};

test('2026-07-28: a non-object output schema is listed as it is, and structuredContent of any JSON value is served with a text of its JSON', async () => {
  const client = new WireClient(outputServer());
  const envelope = { [CLIENT_CAPABILITIES]: {} };
  client.send(modern('tools/list', {}, 0, envelope));
  const listed = (await client.response(0)).result.tools;
  assert.deepEqual(
    Object.fromEntries(listed.map((tool: { name: string; outputSchema?: object }) => [tool.name, tool.outputSchema])),
    {
      hours: HOURS_SCHEMA,
      count: { type: 'integer' },
      plain: undefined,
      misfit: { type: 'array', items: { type: 'number' } },
      zod: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: { type: 'number' } },
      object: { type: 'object' },
    },
  );
  for (const [index, [name, answer]] of Object.entries(ANSWERS.modern).entries()) {
    client.send(modern('tools/call', { name }, index + 1, envelope));
    assert.deepEqual(
      await client.response(index + 1),
      ok(index + 1, { ...answer, resultType: 'complete', _meta: { [SERVER_INFO]: INFO } }),
      name,
    );
  }
  assert.deepEqual(await client.end(), []);
});

test('2025-11-25: a non-object output schema is listed wrapped under result, its references repointed, and its values under result', async () => {
  const client = new WireClient(outputServer());
  await client.initialize('2025-11-25');
  const listed = (await client.request('tools/list', {}, 0)).result.tools;
  const schemas = Object.fromEntries(
    listed.map((tool: { name: string; outputSchema?: object }) => [tool.name, tool.outputSchema]),
  );
  // Its same-document references now point into `result`, where its $defs are.
  assert.deepEqual(schemas.hours, {
    type: 'object',
    properties: {
      result: { type: 'array', items: { $ref: '#/properties/result/$defs/hour' }, $defs: HOURS_SCHEMA.$defs },
    },
    required: ['result'],
  });
  assert.deepEqual(schemas.count, {
    type: 'object',
    properties: { result: { type: 'integer' } },
    required: ['result'],
  });
  assert.deepEqual(schemas.zod, {
    type: 'object',
    properties: { result: { type: 'array', items: { type: 'number' } } },
    required: ['result'],
    $schema: 'https://json-schema.org/draft/2020-12/schema',
  });
  assert.deepEqual(schemas.object, { type: 'object' });
  for (const [index, [name, answer]] of Object.entries(ANSWERS.legacy).entries()) {
    assert.deepEqual(await client.request('tools/call', { name }, index + 1), ok(index + 1, answer), name);
  }
  assert.deepEqual(await client.end(), []);
});

test('2025-03-26, before structured output: no outputSchema and no structuredContent, the value as text', async () => {
  const client = new WireClient(outputServer());
  await client.initialize('2025-03-26');
  const listed = (await client.request('tools/list', {}, 0)).result.tools;
  assert.ok(listed.every((tool: object) => !('outputSchema' in tool)));
  assert.deepEqual(
    await client.request('tools/call', { name: 'hours' }, 1),
    ok(1, { content: [text(JSON.stringify(HOURS))] }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a value that does not fit a non-object output schema fails the call, logged naming the field', async () => {
  const logger = new MemoryLogger();
  const client = new WireClient(outputServer(logger));
  await client.initialize('2025-11-25');
  assert.deepEqual(
    await client.request('tools/call', { name: 'misfit' }, 1),
    ok(1, { content: [text('Tool execution failed')], isError: true }),
  );
  assert.deepEqual(
    logger.errors.map((error) => error.message),
    ["tool 'misfit' returned output that does not fit its outputSchema: structuredContent[0] must be number"],
  );
  assert.deepEqual(await client.end(), []);
});

test('an input schema must still describe an object; an output schema may describe anything', () => {
  const server = createServer(INFO);
  assert.throws(() => server.tool('list_in', { inputSchema: { type: 'array' } }, () => ({})), {
    name: 'TypeError',
    message: 'tool \'list_in\': inputSchema must describe an object ({"type": "object", ...}), not type "array"',
  });
  server.tool('any_out', { outputSchema: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, () => ({
    structuredContent: null,
  }));
});

test('the official v1 client (2025-11-25) validates the wrapped output against the wrapped schema; the v2 client (2026-07-28) reads the array', async () => {
  const http = await serveHttp(outputServer(), { port: 0 });
  const v1 = new ClientV1({ name: 'v1', version: '1.0.0' });
  const v2 = new ClientV2({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  try {
    await v1.connect(new HttpTransportV1(new URL(http.url)));
    await v1.listTools(); // the client validates structuredContent against the schema it listed
    assert.deepEqual((await v1.callTool({ name: 'hours' })).structuredContent, { result: HOURS });
    assert.deepEqual((await v1.callTool({ name: 'count' })).structuredContent, { result: 2 });
    await v2.connect(new HttpTransportV2(new URL(http.url)));
    await v2.listTools();
    assert.deepEqual((await v2.callTool({ name: 'hours' })).structuredContent, HOURS);
    assert.deepEqual((await v2.callTool({ name: 'plain' })).structuredContent, 'done');
  } finally {
    await v1.close();
    await v2.close();
    await http.close();
  }
});

test('structuredContent JSON cannot carry fails the call, logged; one whose toJSON gives a non-object is wrapped as one', async () => {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  server.tool('fn', {}, () => ({ structuredContent: () => 1 }));
  server.tool('sym', {}, () => ({ structuredContent: Symbol('s') }));
  server.tool('date', {}, () => ({ structuredContent: new Date(0) }));
  const client = new WireClient(server);
  await client.initialize('2025-11-25');
  const failed = { content: [text('Tool execution failed')], isError: true };
  assert.deepEqual(await client.request('tools/call', { name: 'fn' }, 1), ok(1, failed));
  assert.deepEqual(await client.request('tools/call', { name: 'sym' }, 2), ok(2, failed));
  assert.deepEqual(
    logger.errors.map(({ message }) => message),
    [
      "tool 'fn' returned structuredContent that is () => 1, not a JSON value",
      "tool 'sym' returned structuredContent that is Symbol(s), not a JSON value",
    ],
  );
  const date = '1970-01-01T00:00:00.000Z';
  assert.deepEqual(
    await client.request('tools/call', { name: 'date' }, 3),
    ok(3, { content: [text(JSON.stringify(date))], structuredContent: { result: date } }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a wrapped output schema still validates its wrapped values: definitions, a root $ref to itself; an $id of its own goes in whole', () => {
  const cases: [Record<string, unknown>, unknown, unknown][] = [
    // draft-07 `definitions`, reached by a same-document pointer
    [{ type: 'array', items: { $ref: '#/definitions/n' }, definitions: { n: { type: 'number' } } }, [1, 2], [1, 'x']],
    // a recursive schema whose root refers to itself
    [{ type: ['number', 'array'], items: { $ref: '#' } }, [1, [2, [3]]], [1, ['x']]],
  ];
  for (const [schema, valid, invalid] of cases) {
    const wrapped = wrappedSchema(schema);
    const validate = compileSchema(wrapped);
    assert.deepEqual(validate({ result: valid }), [], JSON.stringify(schema));
    assert.notDeepEqual(validate({ result: invalid }), [], JSON.stringify(schema));
    assert.deepEqual(compileSchema(schema)(valid), []); // the original is left as it was
  }
  // A schema with an $id is its own resource, whose references resolve inside it: it goes in whole.
  const own = { $id: 'https://example.com/list', type: 'array', items: { $ref: '#/$defs/n' }, $defs: { n: {} } };
  assert.deepEqual(wrappedSchema(own).properties, { result: own });
  // Values (const, enum, default, examples) are not schemas: a "$ref" inside one is data.
  const data = { type: 'string', const: { $ref: '#' }, examples: [{ $ref: '#/x' }] };
  assert.deepEqual(wrappedSchema(data).properties, { result: data });
});
