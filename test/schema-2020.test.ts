// JSON Schema 2020-12 keywords of schema.ts beyond the draft-07 core: unevaluatedProperties/unevaluatedItems and the
// annotations they read, $id-scoped resources with relative $refs, $anchor, $dynamicRef/$dynamicAnchor, the registry
// of other documents (the `schemas` option), a metaschema's $vocabulary, and the bound on annotation work.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from '../core.ts';
import { compileSchema, type JsonSchema, type SchemaIssue, type SchemaOptions } from '../schema.ts';
import { WireClient } from './harness.ts';
import { fail, request, ok as result } from './wire.ts';

function issues(schema: JsonSchema, value: unknown, options?: SchemaOptions): SchemaIssue[] {
  return compileSchema(schema, options)(value);
}

function ok(schema: JsonSchema, value: unknown, options?: SchemaOptions): void {
  assert.deepEqual(issues(schema, value, options), [], `expected ${JSON.stringify(value)} to be valid`);
}

const extra = (...path: (string | number)[]) => ({ path, message: 'must not have unevaluated property' });

test('unevaluatedProperties false refuses a property no keyword evaluated, by path, and accepts declared ones', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false };
  ok(schema, { a: 'x' });
  assert.deepEqual(issues(schema, { a: 'x', extra: 1, b: 2 }), [extra('extra'), extra('b')]);
  ok({ unevaluatedProperties: false, unevaluatedItems: false }, 'x'); // only objects and arrays are its business
  ok({ unevaluatedProperties: false }, [1, 2]);
});

test('unevaluatedProperties sees properties, patternProperties and additionalProperties of the same schema', () => {
  ok({ patternProperties: { '^x-': {} }, unevaluatedProperties: false }, { 'x-a': 1 });
  ok({ additionalProperties: { type: 'number' }, unevaluatedProperties: false }, { anything: 1 });
  assert.deepEqual(issues({ patternProperties: { '^x-': {} }, unevaluatedProperties: false }, { y: 1 }), [extra('y')]);
});

test('unevaluatedProperties sees through allOf, $ref, dependentSchemas and the passing if with then', () => {
  const schema = {
    $defs: { b: { properties: { b: true } } },
    allOf: [{ properties: { a: true } }],
    $ref: '#/$defs/b',
    dependentSchemas: { d: { properties: { d: true, e: true } } },
    if: { properties: { kind: { const: 'x' } }, required: ['kind'] },
    then: { properties: { x: true } },
    else: { properties: { y: true } },
    unevaluatedProperties: false,
  };
  ok(schema, { a: 1, b: 2, kind: 'x', x: 1 });
  ok(schema, { d: 1, e: 2, y: 1 });
  // e is evaluated only when d is there (the trigger itself is not); y only when the if fails; kind by the if only
  // when it passes.
  assert.deepEqual(issues(schema, { e: 1, kind: 'x', y: 1 }), [extra('e'), extra('y')]);
  assert.deepEqual(issues(schema, { kind: 'z', x: 1 }), [extra('kind'), extra('x')]);
});

test('unevaluatedProperties counts every passing anyOf branch and the one oneOf branch, never a failing one', () => {
  const schema = {
    anyOf: [{ properties: { a: { type: 'number' } } }, { properties: { b: true }, required: ['b'] }],
    unevaluatedProperties: false,
  };
  ok(schema, { a: 1, b: 1 }); // both branches pass: both evaluated
  assert.deepEqual(issues(schema, { a: 'no', b: 1 }), [extra('a')]); // the first branch failed: a is not evaluated
  const one = {
    oneOf: [
      { properties: { a: true }, required: ['a'] },
      { properties: { b: true }, required: ['b'] },
    ],
    unevaluatedProperties: false,
  };
  ok(one, { a: 1 });
  assert.deepEqual(issues(one, { b: 1, c: 1 }), [extra('c')]);
});

test('unevaluatedProperties never sees into not, and an adjacent $ref target does not see its referrer', () => {
  ok({ not: { not: { properties: { a: true } } }, unevaluatedProperties: false }, {});
  assert.deepEqual(issues({ not: { not: { properties: { a: true } } }, unevaluatedProperties: false }, { a: 1 }), [
    extra('a'),
  ]);
  const schema = {
    $defs: { closed: { unevaluatedProperties: false } },
    properties: { a: true },
    $ref: '#/$defs/closed',
  };
  assert.deepEqual(issues(schema, { a: 1 }), [extra('a')]);
});

test('a nested unevaluatedProperties evaluates everything for the schema around it', () => {
  ok({ allOf: [{ unevaluatedProperties: true }], unevaluatedProperties: false }, { a: 1 });
  const inner = { allOf: [{ properties: { a: true }, unevaluatedProperties: false }], unevaluatedProperties: false };
  assert.deepEqual(issues(inner, { a: 1, b: 1 }), [extra('b')]);
});

test('an unevaluatedProperties schema validates the unevaluated values with their paths', () => {
  const schema = { properties: { a: true }, unevaluatedProperties: { type: 'string' } };
  ok(schema, { a: 1, b: 'x' });
  assert.deepEqual(issues(schema, { a: 1, b: 2 }), [{ path: ['b'], message: 'must be string' }]);
});

test('unevaluatedItems sees prefixItems, items, contains and in-place subschemas, refusing the rest by index', () => {
  const schema = { prefixItems: [{ type: 'string' }], unevaluatedItems: false };
  ok(schema, ['a']);
  assert.deepEqual(issues(schema, ['a', 1, 2]), [
    { path: [1], message: 'must not have unevaluated item' },
    { path: [2], message: 'must not have unevaluated item' },
  ]);
  ok({ allOf: [{ items: { type: 'number' } }], unevaluatedItems: false }, [1, 2]);
  const contains = { contains: { type: 'string' }, unevaluatedItems: { type: 'number' } };
  ok(contains, ['a', 1, 'b']);
  assert.deepEqual(issues(contains, ['a', true]), [{ path: [1], message: 'must be number' }]);
  ok({ anyOf: [{ prefixItems: [true, true] }, { prefixItems: [true] }], unevaluatedItems: false }, [1, 2]);
});

test('an embedded $id starts a resource: relative $refs and $anchors resolve against it, not the root', () => {
  const schema = {
    $id: 'https://example.com/root.json',
    $defs: {
      a: { $id: 'a.json', $anchor: 'thing', type: 'string' },
      b: { $id: 'nested/b.json', $anchor: 'thing', type: 'number', $defs: { c: { $ref: '../a.json' } } },
    },
    properties: {
      s: { $ref: 'a.json#thing' },
      n: { $ref: 'nested/b.json#thing' },
      t: { $ref: 'https://example.com/nested/b.json#/$defs/c' },
    },
  };
  ok(schema, { s: 'x', n: 1, t: 'y' });
  assert.deepEqual(issues(schema, { s: 1, n: 'x', t: 2 }), [
    { path: ['s'], message: 'must be string' },
    { path: ['n'], message: 'must be number' },
    { path: ['t'], message: 'must be string' },
  ]);
  assert.throws(() => compileSchema({ $defs: { a: { $id: 'https://x/a' }, b: { $id: 'https://x/a' } } }), {
    message: /duplicate \$id "https:\/\/x\/a"/,
  });
});

const TREE = {
  $id: 'https://example.com/tree',
  $dynamicAnchor: 'node',
  type: 'object',
  properties: { data: true, children: { type: 'array', items: { $dynamicRef: '#node' } } },
};
const STRICT_TREE = {
  $id: 'https://example.com/strict-tree',
  $dynamicAnchor: 'node',
  $ref: 'tree',
  unevaluatedProperties: false,
};

test('$dynamicRef resolves to the outermost $dynamicAnchor of its name in the dynamic scope: a strict tree closes every level', () => {
  const value = { data: 1, children: [{ data: 2, daat: 3, children: [] }] };
  ok(TREE, value);
  const options = { schemas: { 'https://example.com/tree': TREE } };
  assert.deepEqual(issues(STRICT_TREE, value, options), [extra('children', 0, 'daat')]);
  ok(STRICT_TREE, { data: 1, children: [{ data: 2, children: [] }] }, options);
});

test('a strict tree 10 000 deep is refused 513 levels down, within the stack: dynamic scope and annotations add no depth', () => {
  let value: unknown = { data: 1 };
  for (let i = 0; i < 10_000; i++) value = { data: 1, children: [value] };
  const found = issues(STRICT_TREE, value, { schemas: { 'https://example.com/tree': TREE } });
  const deep = found.find((issue) => issue.message === 'is nested more than 512 levels deep');
  assert.equal(deep?.path.length, 513);
});

test('a $dynamicRef whose target has no $dynamicAnchor of that name is a plain $ref', () => {
  const schema = {
    $id: 'https://example.com/list',
    $defs: {
      item: { $anchor: 'item', type: 'string' },
      other: { $id: 'other', $dynamicAnchor: 'item', type: 'number' },
    },
    items: { $dynamicRef: '#item' },
  };
  ok(schema, ['a']);
  assert.deepEqual(issues(schema, [1]), [{ path: [0], message: 'must be string' }]);
});

test('a $dynamicRef into a resource outside the dynamic scope uses its target', () => {
  const schema = {
    $id: 'https://example.com/root',
    $defs: { n: { $id: 'n', $dynamicAnchor: 'node', type: 'string' } },
    items: { $dynamicRef: 'n#node' },
  };
  ok(schema, ['a']);
  assert.deepEqual(issues(schema, [1]), [{ path: [0], message: 'must be string' }]);
});

test('one schema reached under two dynamic scopes is judged in each: a verdict is not reused across scopes', () => {
  // A tree whose every node needs data: the override, met first in the dynamic scope, is what the tree's items use.
  const dataTree = { $id: 'https://example.com/data-tree', $dynamicAnchor: 'node', $ref: 'tree', required: ['data'] };
  const schema = {
    $id: 'https://example.com/both',
    prefixItems: [{ $ref: 'tree' }, { $ref: 'data-tree' }],
    $defs: { tree: TREE, dataTree },
  };
  // The same object under the open tree (valid), then under the data tree, where its child lacks data.
  const shared = { data: 1, children: [{}] };
  assert.deepEqual(issues(schema, [shared, shared]), [{ path: [1, 'children', 0, 'data'], message: 'is required' }]);
});

test('the schemas option lends documents by absolute URI; a $ref to a URI found nowhere throws naming it', () => {
  const schemas = {
    'https://example.com/defs.json': {
      $defs: { id: { type: 'integer' }, ids: { type: 'array', items: { $ref: '#/$defs/id' } } },
    },
  };
  const schema = { properties: { ids: { $ref: 'https://example.com/defs.json#/$defs/ids' } } };
  ok(schema, { ids: [1, 2] }, { schemas });
  assert.deepEqual(issues(schema, { ids: [1, 'x'] }, { schemas }), [{ path: ['ids', 1], message: 'must be integer' }]);
  assert.throws(() => compileSchema(schema), {
    name: 'TypeError',
    message:
      'invalid schema at #/properties/ids: $ref "https://example.com/defs.json#/$defs/ids" points outside this ' +
      'schema and the schemas option has no such document',
  });
  assert.throws(
    () => compileSchema({}, { schemas: { 'relative.json': {} } }),
    /"relative.json" is not an absolute URI/,
  );
  assert.throws(() => compileSchema({}, { schemas: { 'https://x/': 5 as never } }), /must be a schema object/);
  // A relative $ref is named with the URI it resolved to; one that is no URI reference, and such an $id, throw too.
  assert.throws(() => compileSchema({ $id: 'https://example.com/a/root', $ref: '../b.json' }), {
    message: /\$ref "..\/b.json" points outside this schema \(https:\/\/example.com\/b.json\)/,
  });
  assert.throws(() => compileSchema({ $ref: 'http://[x' }), /\$ref "http:\/\/\[x" is not a URI reference/);
  assert.throws(
    () => compileSchema({ $defs: { a: { $id: 'http://[x' } } }),
    /\$id "http:\/\/\[x" is not a URI reference/,
  );
  // A $ref may point at a boolean schema.
  assert.deepEqual(issues({ $defs: { no: false }, properties: { a: { $ref: '#/$defs/no' } } }, { a: 1 }), [
    { path: ['a'], message: 'is not allowed' },
  ]);
});

test("a metaschema without the validation vocabulary turns its schemas' assertions off, keeping the applicators", () => {
  const schemas = {
    'https://example.com/meta': {
      $vocabulary: { 'https://json-schema.org/draft/2020-12/vocab/applicator': true },
    },
  };
  const schema = { $schema: 'https://example.com/meta', properties: { n: { minimum: 10 }, no: false } };
  ok(schema, { n: 1 }, { schemas });
  assert.deepEqual(issues(schema, { no: 1 }, { schemas }), [{ path: ['no'], message: 'is not allowed' }]);
  assert.deepEqual(issues(schema, { n: 1 }), [{ path: ['n'], message: 'must be >= 10' }]); // metaschema unknown
  assert.deepEqual(issues({ ...schema, $schema: 'http://[x' }, { n: 1 }, { schemas }).length, 1); // nor this one
});

test("a shared schema's failure found without annotations is not judged again when an unevaluated* asks", () => {
  const schema = {
    $defs: { n: { properties: { a: true }, required: ['a'] } },
    anyOf: [{ $ref: '#/$defs/n' }, { $ref: '#/$defs/n', unevaluatedProperties: false }, { required: ['b'] }],
  };
  ok(schema, { b: 1 });
  assert.deepEqual(issues(schema, {}), [{ path: [], message: 'must match at least one schema in anyOf' }]);
});

test('unusable 2020-12 keywords throw a TypeError naming their place', () => {
  const cases: [JsonSchema, RegExp][] = [
    [{ unevaluatedProperties: 5 } as never, /at #\/unevaluatedProperties: a schema must be an object or a boolean/],
    [{ $dynamicRef: 5 }, /at #: \$dynamicRef must be a string/],
    [{ $dynamicRef: '#nowhere' }, /\$dynamicRef "#nowhere" cannot be resolved/],
    [{ dependentSchemas: [] }, /dependentSchemas must be an object/],
    [{ pattern: 5 }, /pattern must be a string/],
  ];
  for (const [schema, message] of cases) assert.throws(() => compileSchema(schema), { name: 'TypeError', message });
});

/** Counts every read of the value's members (get, has, own keys, descriptors): the work a validation does on it. */
function counting(value: object): { value: object; reads: () => number } {
  let reads = 0;
  const count = <T>(x: T): T => {
    reads++;
    return x;
  };
  const proxy = new Proxy(value, {
    get: (o, k, r) => count(Reflect.get(o, k, r)),
    has: (o, k) => count(Reflect.has(o, k)),
    ownKeys: (o) => count(Reflect.ownKeys(o)),
    getOwnPropertyDescriptor: (o, k) => count(Reflect.getOwnPropertyDescriptor(o, k)),
  });
  return { value: proxy, reads: () => reads };
}

test('unevaluatedProperties over a large object reads each member a bounded number of times: work linear in its size', () => {
  const schema = {
    allOf: [{ properties: { a: true } }, { patternProperties: { '^k': { type: 'number' } } }],
    anyOf: [{ required: ['a'] }, { patternProperties: { '^k': true } }],
    oneOf: [{ $ref: '#/$defs/keys' }, { required: ['none'] }],
    $defs: { keys: { patternProperties: { '^k': true } } },
    unevaluatedProperties: false,
  };
  const validate = compileSchema(schema);
  const perMember: number[] = [];
  for (const n of [100, 2000]) {
    const object: { [key: string]: number } = { a: 1 };
    for (let i = 0; i < n; i++) object[`k${i}`] = i;
    const valid = counting(object);
    assert.deepEqual(validate(valid.value), []);
    const invalid = counting({ ...object, extra: 1 });
    assert.deepEqual(validate(invalid.value), [extra('extra')]);
    perMember.push(invalid.reads() / n);
  }
  assert.ok(perMember[1] <= perMember[0] * 1.1, `reads per member grew with size: ${perMember.join(' -> ')}`);
});

test('a tool whose inputSchema closes it with unevaluatedProperties refuses an extra argument naming it, on both eras', async () => {
  const server = createServer(
    { name: 's', version: '1' },
    {
      schemas: { 'https://example.com/base': { type: 'object', properties: { city: { type: 'string' } } } },
    },
  );
  const inputSchema = { type: 'object', $ref: 'https://example.com/base', unevaluatedProperties: false } as const;
  server.tool('weather', { inputSchema }, () => ({ content: [{ type: 'text', text: 'sunny' }] }));
  const call = (id: number, args: object) => request(id, 'tools/call', { name: 'weather', arguments: args });
  const refused = "Invalid arguments for tool 'weather': arguments.extra must not have unevaluated property";

  const current = new WireClient(server);
  await current.initialize('2025-11-25');
  current.send(call(1, { city: 'Oslo' }));
  assert.deepEqual(await current.response(1), result(1, { content: [{ type: 'text', text: 'sunny' }] }));
  current.send(call(2, { city: 'Oslo', extra: true }));
  assert.deepEqual(await current.response(2), result(2, { content: [{ type: 'text', text: refused }], isError: true }));
  assert.deepEqual(await current.end(), []);

  const legacy = new WireClient(server);
  await legacy.initialize('2025-06-18');
  legacy.send(call(1, { city: 'Oslo', extra: true }));
  assert.deepEqual(
    await legacy.response(1),
    fail(1, { code: -32602, message: `Invalid params: ${refused.slice('Invalid '.length)}` }),
  );
  assert.deepEqual(await legacy.end(), []);
});

test('a tool schema that $refs a document the server was not given throws at registration, naming the URI', () => {
  const server = createServer({ name: 's', version: '1' });
  assert.throws(
    () =>
      server.tool('t', { inputSchema: { type: 'object', $ref: 'https://example.com/missing.json' } }, () => ({
        content: [],
      })),
    {
      name: 'TypeError',
      message:
        'tool \'t\': inputSchema: invalid schema at #: $ref "https://example.com/missing.json" points outside this ' +
        'schema and the schemas option has no such document',
    },
  );
});
