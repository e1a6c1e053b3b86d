// Standard Schema tool schemas at the wire and in the type checker: a zod 4 schema (devDependency only) is listed as
// its Standard JSON Schema export, validates arguments with its own validate() (issues worded with their paths, the
// era's error shape), hands its transformed output to the handler, and types the handler; async validation, output
// schemas, a hand-written Standard Schema without any library, and the registration mistakes a server author can
// make (each a TypeError naming the tool and the mistake, leaving nothing registered).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import {
  createServer,
  type ServerOptions,
  type StandardSchemaV1Issue,
  type StandardSchemaV1Result,
  type StandardSchemaWithJsonSchema,
  type ToolArgsOf,
} from '../core.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const S_INFO = { name: 's', version: '1' };
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

type Id = string | number;

function ok(id: Id, result: unknown): Frame {
  return { jsonrpc: '2.0', id, result };
}

function fail(id: Id, error: object): Frame {
  return { jsonrpc: '2.0', id, error };
}

function text(value: string) {
  return { type: 'text' as const, text: value };
}

/** One enveloped 2026-07-28 request; resolves with its response frame. */
function modern(client: WireClient, id: Id, method: string, params: object = {}): Promise<Frame> {
  client.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: { [PV]: '2026-07-28', [CAPS]: {} } } });
  return client.response(id);
}

/** A complete 2026-07-28 result as it appears on the wire. */
function complete(id: Id, result: Record<string, unknown>): Frame {
  return ok(id, { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: S_INFO } });
}

function quietServer(options: ServerOptions = {}) {
  const logger = new MemoryLogger();
  return { server: createServer(S_INFO, { logger, ...options }), logger };
}

async function connected(server: ReturnType<typeof createServer>, version = '2025-11-25') {
  const client = new WireClient(server);
  await client.initialize(version);
  return client;
}

// ---------------------------------------------------------------------------------------------------------------
// A zod 4 weather tool: constraints, a default, a transform, and an output schema with a default.

const Weather = z.object({
  city: z.string().trim().min(1).describe('City name'),
  days: z.number().int().min(1).max(16).default(3),
  units: z.enum(['metric', 'imperial']).optional(),
});

const Forecast = z.object({ city: z.string(), temperature: z.number(), unit: z.string().default('C') });

/** zod 4.6.7's Standard JSON Schema export of Weather (io "input": the default makes `days` optional). */
const WEATHER_JSON = {
  $schema: DRAFT_2020_12,
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1, description: 'City name' },
    days: { default: 3, type: 'integer', minimum: 1, maximum: 16 },
    units: { type: 'string', enum: ['metric', 'imperial'] },
  },
  required: ['city'],
};

/** …and of Forecast as output (io "output": the default is always present; zod strips unknown keys). */
const FORECAST_JSON = {
  $schema: DRAFT_2020_12,
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' }, unit: { default: 'C', type: 'string' } },
  required: ['city', 'temperature', 'unit'],
  additionalProperties: false,
};

function weatherServer() {
  const { server, logger } = quietServer();
  const seen: unknown[] = [];
  server.tool('weather', { description: 'Forecast', inputSchema: Weather, outputSchema: Forecast }, async (args) => {
    seen.push(args);
    // The handler's types come from the schemas: args is {city: string; days: number; units?: ...}.
    const city: string = args.city;
    const days: number = args.days;
    // @ts-expect-error -- 'town' is not a property of the inferred arguments
    void args.town;
    // @ts-expect-error -- days is a number after the default, not a string
    const wrong: string = args.days;
    void wrong;
    return { content: [text(`${city}: ${days} days`)], structuredContent: { city, temperature: 21.5 } };
  });
  return { server, logger, seen };
}

test('a zod tool lists its Standard JSON Schema exports as inputSchema and outputSchema', async () => {
  const { server } = weatherServer();
  const client = await connected(server);
  assert.deepEqual(
    await client.request('tools/list', {}, 1),
    ok(1, {
      tools: [{ name: 'weather', description: 'Forecast', inputSchema: WEATHER_JSON, outputSchema: FORECAST_JSON }],
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('a zod tool hands the schema output to its handler: trimmed, defaulted, unknown keys stripped', async () => {
  const { server, seen, logger } = weatherServer();
  const client = await connected(server);
  const response = await client.request(
    'tools/call',
    { name: 'weather', arguments: { city: '  Paris ', extra: true } },
    1,
  );
  assert.deepEqual(seen, [{ city: 'Paris', days: 3 }]);
  // The output schema's default is applied to structuredContent before it goes out.
  assert.deepEqual(
    response,
    ok(1, {
      content: [text('Paris: 3 days')],
      structuredContent: { city: 'Paris', temperature: 21.5, unit: 'C' },
    }),
  );
  assert.deepEqual(logger.errors, []);
  assert.deepEqual(await client.end(), []);
});

test("invalid zod arguments under 2025-11-25 are an isError result naming each path with zod's message", async () => {
  const { server, seen } = weatherServer();
  const client = await connected(server);
  assert.deepEqual(
    await client.request('tools/call', { name: 'weather', arguments: { city: ' ', days: 40 } }, 1),
    ok(1, {
      content: [
        text(
          "Invalid arguments for tool 'weather': arguments.city: Too small: expected string to have >=1 characters; " +
            'arguments.days: Too big: expected number to be <=16',
        ),
      ],
      isError: true,
    }),
  );
  assert.deepEqual(
    await client.request('tools/call', { name: 'weather', arguments: { city: 'Oslo', units: 'kelvin' } }, 2),
    ok(2, {
      content: [
        text(
          'Invalid arguments for tool \'weather\': arguments.units: Invalid option: expected one of "metric"|"imperial"',
        ),
      ],
      isError: true,
    }),
  );
  assert.deepEqual(seen, []);
  assert.deepEqual(await client.end(), []);
});

for (const version of ['2024-11-05', '2025-03-26', '2025-06-18']) {
  test(`invalid zod arguments under ${version} are -32602 naming the path`, async () => {
    const { server, seen } = weatherServer();
    const client = await connected(server, version);
    assert.deepEqual(
      await client.request('tools/call', { name: 'weather', arguments: { days: 2 } }, 1),
      fail(1, {
        code: -32602,
        message:
          "Invalid params: arguments for tool 'weather': arguments.city: Invalid input: expected string, received undefined",
      }),
    );
    assert.deepEqual(seen, []);
    assert.deepEqual(await client.end(), []);
  });
}

test('a zod tool on 2026-07-28: listed, validated (isError naming the path) and called with the schema output', async () => {
  const { server, seen } = weatherServer();
  const client = new WireClient(server);
  const listed = await modern(client, 1, 'tools/list');
  assert.deepEqual(listed.result.tools, [
    { name: 'weather', description: 'Forecast', inputSchema: WEATHER_JSON, outputSchema: FORECAST_JSON },
  ]);
  assert.deepEqual(
    await modern(client, 2, 'tools/call', { name: 'weather', arguments: { city: 7 } }),
    complete(2, {
      content: [
        text("Invalid arguments for tool 'weather': arguments.city: Invalid input: expected string, received number"),
      ],
      isError: true,
    }),
  );
  assert.deepEqual(
    await modern(client, 3, 'tools/call', { name: 'weather', arguments: { city: 'Rome', days: 1 } }),
    complete(3, {
      content: [text('Rome: 1 days')],
      structuredContent: { city: 'Rome', temperature: 21.5, unit: 'C' },
    }),
  );
  assert.deepEqual(seen, [{ city: 'Rome', days: 1 }]);
  assert.deepEqual(await client.end(), []);
});

test('async zod refinements: validate() returns a promise, and the handler runs only after it resolves valid', async () => {
  const { server } = quietServer();
  const checking = deferred();
  const verdict = deferred<boolean>();
  const Booking = z.object({
    room: z.string().refine(async (room) => {
      checking.resolve();
      return (await verdict.promise) && room.startsWith('R');
    }, 'no such room'),
  });
  const booked: string[] = [];
  server.tool('book', { inputSchema: Booking }, ({ room }) => {
    booked.push(room);
    return { content: [text(`booked ${room}`)] };
  });
  const client = await connected(server);
  client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book', arguments: { room: 'R1' } } });
  await checking.promise;
  assert.deepEqual(booked, []);
  verdict.resolve(true);
  assert.deepEqual(await client.response(1), ok(1, { content: [text('booked R1')] }));
  assert.deepEqual(
    await client.request('tools/call', { name: 'book', arguments: { room: 'X9' } }, 2),
    ok(2, {
      content: [text("Invalid arguments for tool 'book': arguments.room: no such room")],
      isError: true,
    }),
  );
  assert.deepEqual(booked, ['R1']);
  assert.ok(Booking['~standard'].validate({ room: 'R2' }) instanceof Promise, 'zod validates asynchronously here');
  assert.deepEqual(await client.end(), []);
});

test('a throwing refinement is the tool failing: generic isError, logged under the tool name', async () => {
  const { server, logger } = quietServer();
  const Exploding = z.object({
    n: z.number().refine(() => {
      throw new Error('refinement bug');
    }),
  });
  server.tool('explode', { inputSchema: Exploding }, () => ({ content: [] }));
  const client = await connected(server);
  assert.deepEqual(
    await client.request('tools/call', { name: 'explode', arguments: { n: 1 } }, 1),
    ok(1, {
      content: [text('Tool execution failed')],
      isError: true,
    }),
  );
  assert.equal(logger.errors.length, 1);
  assert.equal(logger.errors[0].message, "tool 'explode' failed");
  assert.equal((logger.errors[0].error as Error).message, 'refinement bug');
  assert.deepEqual(await client.end(), []);
});

test('a zod outputSchema misfit is a generic isError result; the path and zod message are logged', async () => {
  const { server, logger } = quietServer();
  server.tool('forecast', { outputSchema: Forecast }, () =>
    // @ts-expect-error -- temperature must be a number per the outputSchema's input type
    ({ structuredContent: { city: 'Oslo', temperature: 'cold' } }),
  );
  const client = await connected(server);
  assert.deepEqual(
    await client.request('tools/call', { name: 'forecast' }, 1),
    ok(1, {
      content: [text('Tool execution failed')],
      isError: true,
    }),
  );
  assert.deepEqual(
    logger.errors.map((e) => e.message),
    [
      "tool 'forecast' returned output that does not fit its outputSchema: " +
        'structuredContent.temperature: Invalid input: expected number, received string',
    ],
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Types: plain JSON Schema keeps a record (or the author's annotation); a Standard Schema infers.

test('handler argument types: JSON Schema gives a record or the annotated type; Standard Schema infers its output', () => {
  const { server } = quietServer();
  const json = { type: 'object', properties: { q: { type: 'string' } } };
  server.tool('plain', { inputSchema: json }, (args) => {
    const value: unknown = args.q;
    // @ts-expect-error -- a JSON Schema does not type its properties: unknown is not a string
    const q: string = args.q;
    return { content: [text(String(value) + q)] };
  });
  server.tool('annotated', { inputSchema: json }, (args: { q: string }) => ({ content: [text(args.q.toUpperCase())] }));
  type WeatherArgs = ToolArgsOf<typeof Weather>;
  const sample: WeatherArgs = { city: 'x', days: 1 };
  // @ts-expect-error -- the inferred type requires city
  const missing: WeatherArgs = { days: 1 };
  assert.deepEqual([sample, missing.days], [{ city: 'x', days: 1 }, 1]);
});

// ---------------------------------------------------------------------------------------------------------------
// A Standard Schema written by hand, no library: function-valued (like arktype), PathSegment and symbol keys.

interface Point {
  x: number;
  y: number;
}

function pointSchema(): StandardSchemaWithJsonSchema<unknown, Point> & ((value: unknown) => unknown) {
  const validate = (value: unknown): StandardSchemaV1Result<Point> => {
    const v = value as Record<string, unknown>;
    const issues: StandardSchemaV1Issue[] = [];
    if (typeof v.x !== 'number') issues.push({ message: 'x must be a number', path: [{ key: 'x' }] });
    if (typeof v.y !== 'number') issues.push({ message: 'y must be a number', path: ['y'] });
    if ('tag' in v) issues.push({ message: 'no tags', path: [Symbol('tag')] });
    if ('root' in v) issues.push({ message: 'whole value rejected' });
    return issues.length > 0 ? { issues } : { value: { x: v.x as number, y: v.y as number } };
  };
  const json = { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] };
  const schema = (value: unknown) => value;
  return Object.assign(schema, {
    '~standard': {
      version: 1 as const,
      vendor: 'handmade',
      validate,
      jsonSchema: { input: () => json, output: () => json },
    },
  });
}

test('a hand-written Standard Schema (a function, like arktype types) works without any library', async () => {
  const { server } = quietServer();
  server.tool('plot', { inputSchema: pointSchema() }, ({ x, y }) => ({ content: [text(`${x + y}`)] }));
  const client = await connected(server);
  assert.deepEqual((await client.request('tools/list', {}, 1)).result.tools[0].inputSchema, {
    type: 'object',
    properties: { x: { type: 'number' }, y: { type: 'number' } },
    required: ['x', 'y'],
  });
  assert.deepEqual(
    await client.request('tools/call', { name: 'plot', arguments: { x: 2, y: 3 } }, 2),
    ok(2, { content: [text('5')] }),
  );
  assert.deepEqual(
    await client.request('tools/call', { name: 'plot', arguments: { x: 'a', tag: 1, root: 1 } }, 3),
    ok(3, {
      content: [
        text(
          "Invalid arguments for tool 'plot': arguments.x: x must be a number; arguments.y: y must be a number; " +
            'arguments["Symbol(tag)"]: no tags',
        ),
      ],
      isError: true,
    }),
  );
  assert.deepEqual(await client.end(), []);
});

/** A hand-made Standard Schema over any object, with the given validate() and JSON Schema converter. */
function handmade(
  validate: (value: unknown) => unknown,
  toJson: () => unknown = () => ({ type: 'object' }),
  vendor?: string,
) {
  const props = { version: 1, vendor, validate, jsonSchema: { input: toJson, output: toJson } };
  return { '~standard': props } as unknown as StandardSchemaWithJsonSchema<Record<string, unknown>>;
}

test('hand-written Standard Schemas: thenable results, empty issues, broken results and throwing output validation', async () => {
  const { server, logger } = quietServer();
  const thenable = (result: object) => ({ then: (resolve: (value: object) => void) => resolve(result) });
  server.tool('later_ok', { inputSchema: handmade(() => thenable({ value: { n: 1 } })) }, (args) => ({
    content: [text(JSON.stringify(args))],
  }));
  server.tool('later_bad', { inputSchema: handmade(() => thenable({ issues: [] })) }, () => ({}));
  server.tool('garbage', { inputSchema: handmade(() => 'yes') }, () => ({}));
  server.tool(
    'out_throws',
    {
      outputSchema: handmade(() => {
        throw new Error('output validator bug');
      }),
    },
    () => ({ structuredContent: {} }),
  );
  server.tool('out_undefined', { outputSchema: handmade(async () => ({ value: undefined })) }, () => ({
    structuredContent: { n: 42 },
  }));
  server.tool('out_missing', { outputSchema: handmade(() => ({ value: {} })) }, () => ({ content: [] }));
  server.tool(
    'out_ok',
    { outputSchema: handmade(async (value) => ({ value: { ...(value as object), checked: true } })) },
    () => ({ content: [], structuredContent: { n: 1 } }),
  );
  const client = await connected(server);
  const generic = { content: [text('Tool execution failed')], isError: true };
  assert.deepEqual(
    await client.request('tools/call', { name: 'later_ok', arguments: { n: '1' } }, 1),
    ok(1, { content: [text('{"n":1}')] }),
  );
  assert.deepEqual(
    await client.request('tools/call', { name: 'later_bad' }, 2),
    ok(2, {
      content: [text("Invalid arguments for tool 'later_bad': arguments: is invalid")],
      isError: true,
    }),
  );
  for (const [id, name] of [
    [3, 'garbage'],
    [4, 'out_throws'],
    [5, 'out_undefined'],
    [6, 'out_missing'],
  ] as const) {
    assert.deepEqual(await client.request('tools/call', { name }, id), ok(id, generic), name);
  }
  assert.deepEqual(
    await client.request('tools/call', { name: 'out_ok' }, 7),
    ok(7, {
      content: [text('{"n":1,"checked":true}')],
      structuredContent: { n: 1, checked: true },
    }),
  );
  assert.deepEqual(
    logger.errors.map((e) => [e.message, (e.error as Error | undefined)?.message]),
    [
      ["tool 'garbage' failed", 'validate() of a Standard Schema returned a string, not a result'],
      ["tool 'out_throws' failed", 'output validator bug'],
      [
        "tool 'out_undefined' returned output that does not fit its outputSchema: the outputSchema turned it into undefined, not a JSON value",
        undefined,
      ],
      [
        "tool 'out_missing' returned output that does not fit its outputSchema: structuredContent is required by the outputSchema",
        undefined,
      ],
    ],
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Registration mistakes: a TypeError at registration naming the tool and the mistake; nothing gets registered.

function assertRefused(register: () => unknown, message: string | RegExp) {
  assert.throws(register, (error: unknown) => {
    assert.ok(error instanceof Error);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

test('a Standard Schema without a JSON Schema export is refused at registration, saying what is missing', () => {
  const { server } = quietServer();
  const bare = { '~standard': { version: 1, vendor: 'oldlib', validate: (value: unknown) => ({ value }) } };
  assertRefused(
    () => server.tool('t', { inputSchema: bare as never }, () => ({})),
    "tool 't': inputSchema is a Standard Schema (oldlib) that does not export JSON Schema ('~standard'.jsonSchema.input, " +
      'the Standard JSON Schema spec), which tools/list needs: use a library version that implements Standard JSON Schema, ' +
      'or pass a plain JSON Schema',
  );
  assertRefused(
    () => server.tool('t', { outputSchema: bare as never }, () => ({})),
    /^tool 't': outputSchema is a Standard Schema \(oldlib\) that does not export JSON Schema \('~standard'\.jsonSchema\.output/,
  );
  assertRefused(
    () => server.tool('t', { inputSchema: { '~standard': { version: 2, validate() {} } } as never }, () => ({})),
    "tool 't': inputSchema has a '~standard' property but is not a Standard Schema v1 (version 1 with validate())",
  );
  assertRefused(
    () =>
      server.tool(
        't',
        {
          inputSchema: handmade(
            () => ({}),
            () => {
              throw 'unsupported target';
            },
          ),
        },
        () => ({}),
      ),
    "tool 't': inputSchema (unknown vendor) has no JSON Schema form: unsupported target",
  );
  assertRefused(
    () =>
      server.tool(
        't',
        {
          inputSchema: handmade(
            () => ({}),
            () => [],
            'lib',
          ),
        },
        () => ({}),
      ),
    "tool 't': inputSchema (lib) exported an array as its JSON Schema",
  );
  assertRefused(
    () =>
      server.tool(
        't',
        {
          inputSchema: handmade(
            () => ({}),
            () => ({ type: 'object', minProperties: -1 }),
            'lib',
          ),
        },
        () => ({}),
      ),
    "tool 't': inputSchema (lib): invalid schema at #: minProperties must be a non-negative integer",
  );
});

test("a zod schema with no JSON Schema form, or not an object, is refused with zod's reason", () => {
  const { server } = quietServer();
  assertRefused(
    () => server.tool('when', { inputSchema: z.object({ at: z.date() }) }, () => ({})),
    "tool 'when': inputSchema (zod) has no JSON Schema form: Date cannot be represented in JSON Schema",
  );
  assertRefused(
    () => server.tool('shout', { outputSchema: z.object({ s: z.string().transform((s) => s.length) }) }, () => ({})),
    "tool 'shout': outputSchema (zod) has no JSON Schema form: Transforms cannot be represented in JSON Schema",
  );
  assertRefused(
    () => server.tool('str', { inputSchema: z.string() as never }, () => ({})),
    'tool \'str\': inputSchema (zod) must describe an object ({"type": "object", ...}), not type "string"',
  );
});

test('invalid JSON Schemas are refused at registration, naming the tool and the location in the schema', () => {
  const { server } = quietServer();
  assertRefused(
    () => server.tool('typo', { inputSchema: { type: 'object', properties: { a: { type: 'strng' } } } }, () => ({})),
    /^tool 'typo': inputSchema: invalid schema at #\/properties\/a: type must be one of string, number, integer/,
  );
  assertRefused(
    () => server.tool('pat', { outputSchema: { type: 'object', properties: { a: { pattern: '(' } } } }, () => ({})),
    'tool \'pat\': outputSchema: invalid schema at #/properties/a: pattern "(" is not a valid regular expression',
  );
  assertRefused(
    () => server.tool('str', { inputSchema: { type: 'string' } }, () => ({})),
    'tool \'str\': inputSchema must describe an object ({"type": "object", ...}), not type "string"',
  );
  assertRefused(
    () => server.tool('bool', { inputSchema: true }, () => ({})),
    "tool 'bool': inputSchema must be a JSON Schema object or a Standard Schema, not a boolean",
  );
  assertRefused(
    () =>
      server.tool(
        'hdr',
        {
          inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
        },
        () => ({}),
      ),
    "tool 'hdr': inputSchema: x-mcp-header of property 'n': property type must be string, integer or boolean",
  );
});

test('bad tool names, duplicate names, a missing handler and bad URI templates are refused with their reason', () => {
  const { server } = quietServer();
  server.tool('dup', {}, () => ({}));
  assertRefused(() => server.tool('dup', {}, () => ({})), "tool 'dup' is already registered");
  for (const name of ['', 'has space', 'x'.repeat(129), 'ü']) {
    assertRefused(
      () => server.tool(name, {}, () => ({})),
      `tool name ${JSON.stringify(name)} must be 1-128 characters of A-Z a-z 0-9 _ - .`,
    );
  }
  assertRefused(
    () => server.tool('nohandler', {}, undefined as never),
    "tool 'nohandler': the handler must be a function",
  );
  assertRefused(
    () => server.resourceTemplate('file:///{path', { name: 'f' }, () => undefined),
    'Invalid URI template (unclosed brace): file:///{path',
  );
  assertRefused(
    () => server.resourceTemplate('file:///{a}/{a}', { name: 'f' }, () => undefined),
    "Invalid URI template (variable 'a' appears twice): file:///{a}/{a}",
  );
  server.resource('test://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] }));
  assertRefused(
    () => server.resource('test://r', { name: 'r' }, (uri) => ({ contents: [{ uri, text: '' }] })),
    "resource 'test://r' is already registered",
  );
  server.prompt('p', {}, () => ({ messages: [] }));
  assertRefused(() => server.prompt('p', {}, () => ({ messages: [] })), "prompt 'p' is already registered");
});

test('a refused registration leaves nothing behind: no tool listed, no list_changed sent, the name still free', async () => {
  const { server } = quietServer();
  server.tool('first', {}, () => ({}));
  const client = await connected(server);
  assertRefused(
    () => server.tool('later', { inputSchema: z.object({ at: z.date() }) }, () => ({})),
    /no JSON Schema form/,
  );
  assertRefused(
    () => server.tool('later', { inputSchema: { type: 'object', required: 'a' } }, () => ({})),
    /required must be an array/,
  );
  assertRefused(
    () => server.tool('first', { inputSchema: z.object({}) }, () => ({})),
    "tool 'first' is already registered",
  );
  // The list answer is the very next frame: no list_changed went out for the refused registrations.
  assert.deepEqual(
    await client.request('tools/list', {}, 1),
    ok(1, { tools: [{ name: 'first', inputSchema: { type: 'object', properties: {} } }] }),
  );
  assert.deepEqual(client.unread(), []);
  server.tool('later', { inputSchema: z.object({ at: z.string() }) }, ({ at }) => ({ content: [text(at)] }));
  assert.deepEqual(await client.notification('notifications/tools/list_changed'), {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
  });
  assert.deepEqual(
    await client.request('tools/call', { name: 'later', arguments: { at: 'noon' } }, 2),
    ok(2, { content: [text('noon')] }),
  );
  assert.deepEqual(await client.end(), []);
});

// ---------------------------------------------------------------------------------------------------------------
// Malformed handler results: the client gets a generic failure, the log names the mistake.

test('a tool result with malformed content or isError is logged naming the mistake (structuredContent may be any JSON value)', async () => {
  const { server, logger } = quietServer();
  const bad: [string, unknown][] = [
    ['content_string', { content: 'hello' }],
    ['content_item', { content: [text('ok'), { text: 'no type' }] }],
    ['is_error_string', { content: [], isError: 'yes' }],
    ['content_bigint', { content: 10n }],
  ];
  for (const [name, value] of bad) server.tool(name, {}, () => value as never);
  const client = await connected(server);
  for (const [name] of bad) {
    assert.deepEqual(
      (await client.request('tools/call', { name })).result,
      { content: [text('Tool execution failed')], isError: true },
      name,
    );
  }
  assert.deepEqual(
    logger.errors.map((e) => e.message),
    [
      'tool \'content_string\' returned content that is "hello", not an array',
      "tool 'content_item' returned content[1] without a string \"type\" (e.g. {type: 'text', text: '...'})",
      'tool \'is_error_string\' returned isError that is "yes", not a boolean',
      "tool 'content_bigint' returned content that is a bigint that is not JSON, not an array",
    ],
  );
  assert.deepEqual(await client.end(), []);
});
