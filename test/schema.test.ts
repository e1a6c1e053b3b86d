import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createServer } from '../core.ts';
import { checkSchema, compileSchema, formatPath, type JsonSchema, type SchemaIssue } from '../schema.ts';
import { MemoryLogger, WireClient } from './harness.ts';
import { fail, modern, request, ok as result } from './wire.ts';

function issues(schema: JsonSchema, value: unknown): SchemaIssue[] {
  return compileSchema(schema)(value);
}

function ok(schema: JsonSchema, value: unknown): void {
  assert.deepEqual(issues(schema, value), [], `expected ${JSON.stringify(value)} to be valid`);
}

function fails(schema: JsonSchema, value: unknown, expected: SchemaIssue[]): void {
  assert.deepEqual(issues(schema, value), expected);
}

const CONFORMANCE = JSON.parse(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
  "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
  "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},
  "phone":{"type":"string"},"email":{"type":"string"}},
  "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
  "if":{"properties":{"contactMethod":{"const":"phone"}}},"then":{"required":["phone"]},"else":{"required":["email"]},
  "additionalProperties":false}`) as JsonSchema;

test('conformance schema compiles unchanged and accepts a valid value', () => {
  const before = structuredClone(CONFORMANCE);
  const validate = compileSchema(CONFORMANCE);
  assert.deepEqual(CONFORMANCE, before);
  assert.deepEqual(validate({ name: 'a', contactMethod: 'email', email: 'x@y' }), []);
  assert.deepEqual(validate({ contactMethod: 'phone', phone: '1', address: { street: 's', city: 'c' } }), []);
  validate({ name: 5, extra: true });
  assert.deepEqual(CONFORMANCE, before);
});

test('conformance schema reports nested, conditional and additional-property issues', () => {
  const validate = compileSchema(CONFORMANCE);
  assert.deepEqual(validate({ contactMethod: 'phone', email: 'x@y' }), [{ path: ['phone'], message: 'is required' }]);
  assert.deepEqual(validate({ name: 5, address: { street: 1 }, contactMethod: 'email', email: 'e', nick: 'n' }), [
    { path: ['name'], message: 'must be string' },
    { path: ['address', 'street'], message: 'must be string' },
    { path: ['nick'], message: 'must not have additional property' },
  ]);
  assert.deepEqual(validate({ contactMethod: 'fax' }), [
    { path: ['contactMethod'], message: 'must be one of the allowed values' },
    { path: [], message: 'must match at least one schema in anyOf' },
    { path: ['email'], message: 'is required' },
  ]);
  assert.deepEqual(validate('x'), [{ path: [], message: 'must be object' }]);
});

test('a schema object is never mutated by compiling or validating', () => {
  const schema: JsonSchema = {
    $defs: { n: { type: 'integer', minimum: 0 } },
    type: 'array',
    items: { $ref: '#/$defs/n' },
    minItems: 1,
    uniqueItems: true,
  };
  const before = structuredClone(schema);
  const validate = compileSchema(schema);
  validate([1, 2, -1, 'x']);
  validate([]);
  assert.deepEqual(schema, before);
});

test('type accepts each JSON type and rejects the others', () => {
  ok({ type: 'string' }, 'a');
  ok({ type: 'number' }, 1.5);
  ok({ type: 'integer' }, 3);
  ok({ type: 'integer' }, 3.0);
  ok({ type: 'boolean' }, false);
  ok({ type: 'null' }, null);
  ok({ type: 'array' }, []);
  ok({ type: 'object' }, {});
  fails({ type: 'string' }, 1, [{ path: [], message: 'must be string' }]);
  fails({ type: 'integer' }, 1.5, [{ path: [], message: 'must be integer' }]);
  fails({ type: 'object' }, [], [{ path: [], message: 'must be object' }]);
  fails({ type: 'object' }, null, [{ path: [], message: 'must be object' }]);
  fails({ type: 'array' }, {}, [{ path: [], message: 'must be array' }]);
  fails({ type: 'null' }, undefined, [{ path: [], message: 'must be null' }]);
});

test('type union accepts any listed type and names all of them', () => {
  ok({ type: ['string', 'null'] }, null);
  ok({ type: ['string', 'null'] }, 's');
  fails({ type: ['string', 'null'] }, 1, [{ path: [], message: 'must be string or null' }]);
});

test('boolean schemas accept everything or nothing', () => {
  ok(true, { any: 'thing' });
  fails(false, 1, [{ path: [], message: 'is not allowed' }]);
  fails({ properties: { a: false } }, { a: 1 }, [{ path: ['a'], message: 'is not allowed' }]);
});

test('required property missing names the property path', () => {
  const schema = { type: 'object', required: ['a', 'b'] };
  ok(schema, { a: 1, b: 2 });
  fails(schema, { a: 1 }, [{ path: ['b'], message: 'is required' }]);
  fails(schema, {}, [
    { path: ['a'], message: 'is required' },
    { path: ['b'], message: 'is required' },
  ]);
});

test('required does not see inherited properties', () => {
  fails({ required: ['toString', 'constructor'] }, {}, [
    { path: ['toString'], message: 'is required' },
    { path: ['constructor'], message: 'is required' },
  ]);
});

test('properties validate present values with their paths', () => {
  const schema = { properties: { a: { type: 'string' }, b: { properties: { c: { type: 'number' } } } } };
  ok(schema, { a: 'x', b: { c: 1 } });
  ok(schema, {});
  ok(schema, 'not an object');
  fails(schema, { a: 1, b: { c: 'x' } }, [
    { path: ['a'], message: 'must be string' },
    { path: ['b', 'c'], message: 'must be number' },
  ]);
});

test('additionalProperties false rejects undeclared keys by path', () => {
  const schema = { properties: { a: {} }, patternProperties: { '^x-': {} }, additionalProperties: false };
  ok(schema, { a: 1, 'x-y': 2 });
  fails(schema, { a: 1, b: 2 }, [{ path: ['b'], message: 'must not have additional property' }]);
});

test('additionalProperties schema validates undeclared values', () => {
  const schema = { properties: { a: {} }, additionalProperties: { type: 'number' } };
  ok(schema, { a: 'x', b: 2 });
  fails(schema, { a: 'x', b: 'y' }, [{ path: ['b'], message: 'must be number' }]);
});

test('patternProperties validates matching keys', () => {
  const schema = { patternProperties: { '^n_': { type: 'number' } } };
  ok(schema, { n_a: 1, other: 'x' });
  fails(schema, { n_a: 'x' }, [{ path: ['n_a'], message: 'must be number' }]);
});

test('propertyNames checks every key', () => {
  const schema = { propertyNames: { pattern: '^[a-z]+$' } };
  ok(schema, { abc: 1 });
  fails(schema, { abc: 1, 'B C': 2 }, [{ path: ['B C'], message: 'is not a valid property name' }]);
});

test('minProperties and maxProperties count own keys', () => {
  ok({ minProperties: 1, maxProperties: 2 }, { a: 1 });
  fails({ minProperties: 2 }, { a: 1 }, [{ path: [], message: 'must have at least 2 properties' }]);
  fails({ maxProperties: 1 }, { a: 1, b: 2 }, [{ path: [], message: 'must have at most 1 property' }]);
});

test('dependentRequired requires names when the trigger is present', () => {
  const schema = { dependentRequired: { card: ['billing'] } };
  ok(schema, {});
  ok(schema, { card: 1, billing: 2 });
  fails(schema, { card: 1 }, [{ path: ['billing'], message: 'is required when "card" is present' }]);
});

test('dependentSchemas and draft-07 dependencies apply when the trigger is present', () => {
  const schema = { dependentSchemas: { a: { required: ['b'] } }, dependencies: { c: ['d'], e: { maxProperties: 1 } } };
  ok(schema, { a: 1, b: 2 });
  ok(schema, { c: 1, d: 2 });
  ok(schema, { e: 1 });
  fails(schema, { a: 1 }, [{ path: ['b'], message: 'is required' }]);
  fails(schema, { c: 1 }, [{ path: ['d'], message: 'is required when "c" is present' }]);
  fails(schema, { e: 1, f: 2 }, [{ path: [], message: 'must have at most 1 property' }]);
});

test('enum accepts listed values including objects and rejects others', () => {
  const schema = { enum: ['a', 1, null, { k: [1] }] };
  ok(schema, 'a');
  ok(schema, 1);
  ok(schema, null);
  ok(schema, { k: [1] });
  fails(schema, 'b', [{ path: [], message: 'must be one of the allowed values' }]);
  fails(schema, { k: [2] }, [{ path: [], message: 'must be one of the allowed values' }]);
  fails(schema, '1', [{ path: [], message: 'must be one of the allowed values' }]);
});

test('const uses deep JSON equality', () => {
  ok({ const: { a: [1, { b: null }] } }, { a: [1, { b: null }] });
  ok({ const: null }, null);
  fails({ const: { a: [1] } }, { a: [1], b: 2 }, [{ path: [], message: 'must be equal to the constant' }]);
  fails({ const: [1, 2] }, [2, 1], [{ path: [], message: 'must be equal to the constant' }]);
  fails({ const: [1] }, { 0: 1 }, [{ path: [], message: 'must be equal to the constant' }]);
  fails({ const: null }, 0, [{ path: [], message: 'must be equal to the constant' }]);
});

test('enum and const over objects ignore key order and number spelling, at any depth', () => {
  ok({ enum: [{ a: 1, b: [1, { c: 2 }] }, 'x'] }, JSON.parse('{"b":[1.0,{"c":2}],"a":1}'));
  ok({ const: { a: 1, b: 2 } }, JSON.parse('{"b":2,"a":1e0}'));
  fails({ enum: [{ a: 1 }] }, { a: 1, b: undefined }, [{ path: [], message: 'must be one of the allowed values' }]);
  let deep: unknown = 1;
  let copy: unknown = 1;
  let objects: unknown = 1;
  let objectsCopy: unknown = 1;
  for (let i = 0; i < 100_000; i++) {
    deep = [deep];
    copy = [copy];
    objects = { k: objects, n: i };
    objectsCopy = { n: i, k: objectsCopy };
  }
  assert.deepEqual(issues({ const: deep }, copy), []);
  fails({ const: deep }, [copy], [{ path: [], message: 'must be equal to the constant' }]);
  assert.deepEqual(issues({ enum: [1, objects] }, objectsCopy), []);
  fails({ enum: [1, objects] }, { k: objectsCopy }, [{ path: [], message: 'must be one of the allowed values' }]);
});

test('items applies to every element with index paths', () => {
  const schema = { items: { type: 'string' } };
  ok(schema, ['a', 'b']);
  fails(
    schema,
    ['a', 1, 'c', null],
    [
      { path: [1], message: 'must be string' },
      { path: [3], message: 'must be string' },
    ],
  );
});

test('prefixItems validates positions and items applies after them', () => {
  const schema = { prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'boolean' } };
  ok(schema, ['a', 1, true, false]);
  ok(schema, ['a']);
  fails(
    schema,
    [1, 'a', 'b'],
    [
      { path: [0], message: 'must be string' },
      { path: [1], message: 'must be number' },
      { path: [2], message: 'must be boolean' },
    ],
  );
  fails({ prefixItems: [{}], items: false }, [1, 2], [{ path: [1], message: 'is not allowed' }]);
});

test('draft-07 array items act as prefixItems with additionalItems after them', () => {
  const schema = { items: [{ type: 'string' }], additionalItems: { type: 'number' } };
  ok(schema, ['a', 1, 2]);
  fails(
    schema,
    [1, 'x'],
    [
      { path: [0], message: 'must be string' },
      { path: [1], message: 'must be number' },
    ],
  );
  ok({ items: [{ type: 'string' }] }, ['a', 'anything', 3]);
});

test('minItems and maxItems bound the array length', () => {
  ok({ minItems: 1, maxItems: 2 }, [1]);
  fails({ minItems: 2 }, [1], [{ path: [], message: 'must have at least 2 items' }]);
  fails({ maxItems: 1 }, [1, 2], [{ path: [], message: 'must have at most 1 item' }]);
});

test('uniqueItems compares elements by deep equality', () => {
  ok({ uniqueItems: true }, [1, '1', { a: 1 }, { a: 2 }, [1]]);
  ok({ uniqueItems: false }, [1, 1]);
  fails({ uniqueItems: true }, [1, 2, 1], [{ path: [], message: 'must not have duplicate items' }]);
  fails({ uniqueItems: true }, [{ a: [1] }, { a: [1] }], [{ path: [], message: 'must not have duplicate items' }]);
});

test('uniqueItems equality is JSON equality: key order and number spelling do not count, nesting does', () => {
  const duplicate = [{ path: [], message: 'must not have duplicate items' }];
  for (const text of [
    '[{"a":1,"b":2},{"b":2,"a":1}]',
    '[1,1.0]',
    '[0,-0]',
    '[{"n":1e2},{"n":100}]',
    '[[{"x":[1,{"y":2,"z":[3]}]}],[{"x":[1.0,{"z":[3],"y":2}]}]]',
    '[{"s":"1:a,b"},{"s":"1:a,b"}]',
    '["x",{"a":{}},"y",{"a":{}}]',
  ])
    fails({ uniqueItems: true }, JSON.parse(text), duplicate);
  for (const text of [
    '[{"a":1},{"a":"1"}]',
    '[[1,2],[2,1]]',
    '[{"a":[]},{"a":{}}]',
    '[{},[]]',
    '[null,"null",{"a":null},{"a":"null"},{"b":null}]',
    '[["a,b"],["a","b"],["1:a"],{"a,b":1},{"a":1,"b":1}]',
    '[{"a=1":1},{"a":"=1"},{"a":1,"=1":1}]',
    '[[[]],[[[]]],[{}],[[{}]]]',
    '[true,"true",[true],[false]]',
  ])
    ok({ uniqueItems: true }, JSON.parse(text));
});

test("values JSON cannot carry (as in a handler's structuredContent) compare without failing: cycles, bigints, functions", () => {
  const duplicate = [{ path: [], message: 'must not have duplicate items' }];
  const cyclic: unknown[] = [];
  cyclic.push(cyclic);
  const other: unknown[] = [];
  other.push(other);
  fails({ uniqueItems: true }, [cyclic, cyclic], duplicate);
  assert.deepEqual(issues({ uniqueItems: true }, [cyclic, other, [cyclic]]), []);
  fails({ uniqueItems: true }, [[1n], [1n]], duplicate);
  assert.deepEqual(issues({ uniqueItems: true }, [[1n], [1], ['1n']]), []);
  fails({ uniqueItems: true }, [{ f: () => 1 }, { f: () => 2 }], duplicate);
  fails({ enum: ['a', 1] }, ['a'], [{ path: [], message: 'must be one of the allowed values' }]);
});

/**
 * `value` behind proxies that count the reads of each member of each object and array (an array's length aside),
 * so a test can bound how often validation looks at any one member: a bounded count at every size is linear work.
 */
function counted(value: unknown): { value: unknown; mostReads(): number } {
  const reads = new Map<object, Map<PropertyKey, number>>();
  const wrap = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const target: object = Array.isArray(v)
      ? v.map(wrap)
      : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)]));
    const counts = new Map<PropertyKey, number>();
    reads.set(target, counts);
    return new Proxy(target, {
      get(object, key, receiver) {
        if (Object.hasOwn(object, key) && !(Array.isArray(object) && key === 'length'))
          counts.set(key, (counts.get(key) ?? 0) + 1);
        return Reflect.get(object, key, receiver);
      },
    });
  };
  const wrapped = wrap(value);
  return {
    value: wrapped,
    mostReads: () => Math.max(0, ...[...reads.values()].flatMap((counts) => [...counts.values()])),
  };
}

test('uniqueItems reads each member a bounded number of times, however many items there are', () => {
  const validate = compileSchema({ type: 'array', uniqueItems: true });
  for (const n of [10, 300]) {
    const items = counted(Array.from({ length: n }, (_, i) => ({ id: i, tags: ['a', { k: i }] })));
    assert.deepEqual(validate(items.value), []);
    assert.ok(items.mostReads() <= 2, `${n} items: a member was read ${items.mostReads()} times`);
  }
});

test('alternatives that recurse through one schema read each member a bounded number of times, at any depth', () => {
  // Both branches follow kids and differ only in required (checked last): each level is judged by both.
  const branch = (key: string) => ({
    type: 'object',
    properties: { kids: { type: 'array', items: { $ref: '#/$defs/n' } } },
    required: [key],
  });
  for (const [schema, issuesAtLeaf] of [
    [{ $ref: '#/$defs/n', $defs: { n: { oneOf: [branch('a'), branch('b')] } } }, 1],
    [{ $ref: '#/$defs/n', $defs: { n: { anyOf: [branch('b'), branch('a')] } } }, 1],
    // Both branches report the leaf's missing "a"; the levels above it are judged once.
    [{ $ref: '#/$defs/n', $defs: { n: { allOf: [branch('a'), { $ref: '#/$defs/m' }] }, m: branch('a') } }, 2],
  ] as const) {
    const validate = compileSchema(schema);
    for (const depth of [4, 16]) {
      let valid: unknown = { a: 1 };
      for (let i = 0; i < depth; i++) valid = { a: 1, kids: [valid] };
      const value = counted(valid);
      assert.deepEqual(validate(value.value), []);
      assert.ok(value.mostReads() <= 8, `depth ${depth}: a member was read ${value.mostReads()} times`);
      // An invalid leaf (neither "a" nor "b"): the second pass collects its issues once, reading no more.
      let invalid: unknown = { c: 1 };
      for (let i = 0; i < depth; i++) invalid = { a: 1, kids: [invalid] };
      const wrong = counted(invalid);
      assert.equal(validate(wrong.value).length, issuesAtLeaf);
      assert.ok(wrong.mostReads() <= 16, `depth ${depth}, invalid: a member was read ${wrong.mostReads()} times`);
    }
  }
});

test('an invalid object reached through several paths to one schema is reported once', () => {
  const schema = {
    $defs: { n: { type: 'object', required: ['x'] } },
    allOf: [{ $ref: '#/$defs/n' }, { $ref: '#/$defs/n' }],
  };
  fails(schema, {}, [{ path: ['x'], message: 'is required' }]);
});

test('contains with minContains and maxContains counts matching items', () => {
  ok({ contains: { type: 'string' } }, [1, 'a']);
  fails({ contains: { type: 'string' } }, [1, 2], [{ path: [], message: 'must contain at least 1 matching item' }]);
  ok({ contains: { type: 'string' }, minContains: 2, maxContains: 3 }, ['a', 'b', 1]);
  fails(
    { contains: { type: 'string' }, minContains: 2 },
    ['a'],
    [{ path: [], message: 'must contain at least 2 matching items' }],
  );
  fails(
    { contains: { type: 'string' }, maxContains: 1 },
    ['a', 'b'],
    [{ path: [], message: 'must contain at most 1 matching item' }],
  );
  ok({ contains: { type: 'string' }, minContains: 0 }, []);
});

test('minimum, maximum and exclusive bounds compare numbers', () => {
  ok({ minimum: 0, maximum: 10 }, 0);
  ok({ minimum: 0, maximum: 10 }, 10);
  fails({ minimum: 0 }, -1, [{ path: [], message: 'must be >= 0' }]);
  fails({ maximum: 10 }, 11, [{ path: [], message: 'must be <= 10' }]);
  ok({ exclusiveMinimum: 0, exclusiveMaximum: 1 }, 0.5);
  fails({ exclusiveMinimum: 0 }, 0, [{ path: [], message: 'must be > 0' }]);
  fails({ exclusiveMaximum: 1 }, 1, [{ path: [], message: 'must be < 1' }]);
  ok({ minimum: 0 }, 'not a number');
});

test('draft-04 boolean exclusive bounds make minimum and maximum exclusive', () => {
  fails({ minimum: 0, exclusiveMinimum: true }, 0, [{ path: [], message: 'must be > 0' }]);
  fails({ maximum: 5, exclusiveMaximum: true }, 5, [{ path: [], message: 'must be < 5' }]);
  ok({ minimum: 0, exclusiveMinimum: false }, 0);
});

test('multipleOf tolerates floating point error', () => {
  ok({ multipleOf: 0.1 }, 0.3);
  ok({ multipleOf: 0.01 }, 19.99);
  ok({ multipleOf: 3 }, 9);
  fails({ multipleOf: 3 }, 10, [{ path: [], message: 'must be a multiple of 3' }]);
  fails({ multipleOf: 0.1 }, 0.35, [{ path: [], message: 'must be a multiple of 0.1' }]);
});

test('minLength and maxLength count code points, not UTF-16 units', () => {
  ok({ minLength: 2, maxLength: 2 }, '😀😀');
  fails({ maxLength: 1 }, 'ab', [{ path: [], message: 'must have at most 1 character' }]);
  ok({ maxLength: 1 }, '😀');
  fails({ minLength: 2 }, '😀', [{ path: [], message: 'must have at least 2 characters' }]);
});

test('pattern searches anywhere in the string with unicode semantics', () => {
  ok({ pattern: 'b' }, 'abc');
  ok({ pattern: '^\\p{Lu}' }, 'Émile');
  fails({ pattern: '^a' }, 'ba', [{ path: [], message: 'must match pattern ^a' }]);
  ok({ pattern: '^a' }, 5);
});

test('pattern is stateless across calls', () => {
  const validate = compileSchema({ pattern: 'a' });
  for (let i = 0; i < 3; i++) assert.deepEqual(validate('a'), []);
});

test('anyOf passes when one branch matches', () => {
  const schema = { anyOf: [{ type: 'string' }, { type: 'number' }] };
  ok(schema, 1);
  fails(schema, true, [{ path: [], message: 'must match at least one schema in anyOf' }]);
});

test('oneOf requires exactly one matching branch', () => {
  const schema = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
  ok(schema, 1.5);
  fails(schema, 1, [{ path: [], message: 'must match exactly one schema in oneOf' }]);
  fails(schema, 'x', [{ path: [], message: 'must match exactly one schema in oneOf' }]);
});

test('allOf reports issues from every branch', () => {
  const schema = { allOf: [{ type: 'number' }, { minimum: 5 }] };
  ok(schema, 6);
  fails(schema, 4, [{ path: [], message: 'must be >= 5' }]);
  fails({ allOf: [{ required: ['a'] }, { required: ['b'] }] }, {}, [
    { path: ['a'], message: 'is required' },
    { path: ['b'], message: 'is required' },
  ]);
});

test('not inverts its schema', () => {
  ok({ not: { type: 'string' } }, 1);
  fails({ not: { type: 'string' } }, 's', [{ path: [], message: 'must not match the schema in not' }]);
});

test('if/then/else picks the branch by the condition', () => {
  const schema = { if: { minimum: 10 }, then: { multipleOf: 10 }, else: { maximum: 5 } };
  ok(schema, 20);
  ok(schema, 3);
  fails(schema, 15, [{ path: [], message: 'must be a multiple of 10' }]);
  fails(schema, 7, [{ path: [], message: 'must be <= 5' }]);
  ok({ if: { type: 'string' } }, 1);
  ok({ if: { type: 'string' }, then: { minLength: 1 } }, 5);
});

test('$ref resolves $defs, definitions and JSON pointers with escapes', () => {
  const schema = {
    $defs: { s: { type: 'string' } },
    definitions: { n: { type: 'number' } },
    properties: {
      a: { $ref: '#/$defs/s' },
      b: { $ref: '#/definitions/n' },
      c: { $ref: '#/properties/a~1b~0c%25' },
      'a/b~c%': { type: 'boolean' },
      d: { $ref: '#/$defs/list/prefixItems/1' },
    },
  };
  const full = { ...schema, $defs: { ...schema.$defs, list: { prefixItems: [{}, { type: 'null' }] } } };
  ok(full, { a: 's', b: 1, c: true, d: null });
  fails(full, { a: 1, b: 's', c: 1, d: 0 }, [
    { path: ['a'], message: 'must be string' },
    { path: ['b'], message: 'must be number' },
    { path: ['c'], message: 'must be boolean' },
    { path: ['d'], message: 'must be null' },
  ]);
});

test('$ref siblings apply alongside the referenced schema', () => {
  const schema = { $defs: { s: { type: 'string' } }, $ref: '#/$defs/s', minLength: 2 };
  ok(schema, 'ab');
  fails(schema, 'a', [{ path: [], message: 'must have at least 2 characters' }]);
});

test('$ref to an $anchor and to a draft-07 fragment $id resolves', () => {
  const schema = {
    $defs: { a: { $anchor: 'addressDef', type: 'object', required: ['street'] }, b: { $id: '#num', type: 'number' } },
    properties: { home: { $ref: '#addressDef' }, n: { $ref: '#num' } },
  };
  ok(schema, { home: { street: 'x' }, n: 1 });
  fails(schema, { home: {}, n: 'x' }, [
    { path: ['home', 'street'], message: 'is required' },
    { path: ['n'], message: 'must be number' },
  ]);
});

test('$ref using the root $id as base resolves into the root', () => {
  const schema = {
    $id: 'https://example.com/s.json',
    $defs: { n: { type: 'number' } },
    items: { $ref: 'https://example.com/s.json#/$defs/n' },
  };
  fails(schema, ['x'], [{ path: [0], message: 'must be number' }]);
});

test('recursive $ref to the root validates nested trees', () => {
  const tree = {
    type: 'object',
    properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#' } } },
  };
  ok(tree, { value: 1, children: [{ value: 2, children: [{ value: 3, children: [] }] }] });
  fails(tree, { value: 1, children: [{ value: 2, children: [{ value: 'x' }] }] }, [
    { path: ['children', 0, 'children', 0, 'value'], message: 'must be number' },
  ]);
});

test('recursive $ref through $defs compiles once and validates', () => {
  const schema = {
    $ref: '#/$defs/node',
    $defs: {
      node: {
        type: 'object',
        properties: { next: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/node' }] } },
        required: ['next'],
      },
    },
  };
  ok(schema, { next: { next: { next: null } } });
  fails(schema, { next: { next: {} } }, [{ path: ['next'], message: 'must match at least one schema in anyOf' }]);
});

test('a $ref cycle that never descends into the value is rejected at compile time', () => {
  assert.throws(
    () =>
      compileSchema({ $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }),
    { name: 'TypeError', message: /cycle/ },
  );
  assert.throws(() => compileSchema({ anyOf: [{ type: 'string' }, { $ref: '#' }] }), TypeError);
});

test('deeply nested values are capped instead of overflowing the stack', () => {
  const schema = { type: 'array', items: { $ref: '#' } };
  let value: unknown = [];
  for (let i = 0; i < 100_000; i++) value = [value];
  const result = compileSchema(schema)(value);
  assert.equal(result.length, 1);
  assert.equal(result[0].message, 'is nested more than 512 levels deep');
  assert.equal(result[0].path.length, 512 + 1);
  let shallow: unknown = [];
  for (let i = 0; i < 500; i++) shallow = [shallow];
  ok(schema, shallow);
});

test('deep equality on deeply nested values does not overflow the stack', () => {
  let a: unknown = 1;
  let b: unknown = 1;
  for (let i = 0; i < 100_000; i++) {
    a = [a];
    b = [b];
  }
  fails({ uniqueItems: true }, [a, b], [{ path: [], message: 'must not have duplicate items' }]);
});

test('__proto__ as a property name is validated as an ordinary own property', () => {
  const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}');
  const validate = compileSchema(schema);
  assert.deepEqual(validate(JSON.parse('{"__proto__": 5}')), [{ path: ['__proto__'], message: 'must be string' }]);
  assert.deepEqual(validate(JSON.parse('{"__proto__": "x"}')), []);
  assert.deepEqual(validate({}), [{ path: ['__proto__'], message: 'is required' }]);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

test('the brief example: __proto__ value 5 against a string property reports its path', () => {
  const schema = { type: 'object', properties: { ['__proto__']: { type: 'string' } } };
  assert.ok(Object.hasOwn(schema.properties, '__proto__'));
  fails(schema, JSON.parse('{"__proto__": 5}'), [{ path: ['__proto__'], message: 'must be string' }]);
});

test('constructor and __proto__ keys are additional properties like any other', () => {
  const schema = { properties: { a: {} }, additionalProperties: false };
  fails(schema, JSON.parse('{"constructor": 1, "__proto__": {"x": 1}}'), [
    { path: ['constructor'], message: 'must not have additional property' },
    { path: ['__proto__'], message: 'must not have additional property' },
  ]);
  ok({ properties: { constructor: { type: 'number' } } }, {});
  ok({ dependentRequired: { constructor: ['x'] } }, {});
  fails({ enum: [{}] }, JSON.parse('{"__proto__": 1}'), [{ path: [], message: 'must be one of the allowed values' }]);
});

test('unknown keywords and annotations are ignored', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:x',
    $comment: 'c',
    title: 't',
    description: 'd',
    default: 5,
    examples: [1],
    format: 'email',
    'x-custom': { type: 'string' },
    nonsense: 1,
    readOnly: true,
    type: 'string',
  };
  ok(schema, 'not-an-email');
  fails(schema, 1, [{ path: [], message: 'must be string' }]);
});

test('issues are capped at 20', () => {
  const result = issues(
    { items: { type: 'string' } },
    Array.from({ length: 50 }, (_, i) => i),
  );
  assert.equal(result.length, 20);
  assert.deepEqual(result[19], { path: [19], message: 'must be string' });
});

test('valid values return a shared frozen empty array', () => {
  const validate = compileSchema({ type: 'string' });
  const result = validate('a');
  assert.equal(result, validate('b'));
  assert.ok(Object.isFrozen(result));
});

test('a validator can be reused: paths do not leak between calls', () => {
  const validate = compileSchema({ properties: { a: { properties: { b: { type: 'string' } } } } });
  assert.deepEqual(validate({ a: { b: 1 } }), [{ path: ['a', 'b'], message: 'must be string' }]);
  assert.deepEqual(validate({ a: { b: 2 } }), [{ path: ['a', 'b'], message: 'must be string' }]);
});

test('unusable schemas throw a TypeError naming the problem', () => {
  const cases: [unknown, RegExp][] = [
    [{ $ref: '#/$defs/missing' }, /cannot be resolved/],
    [{ $ref: '#nope' }, /cannot be resolved/],
    [{ $ref: 'other.json#/x' }, /outside this schema/],
    [{ $ref: '#/%zz' }, /percent-encoding/],
    [{ $ref: 5 }, /\$ref must be a string/],
    [{ pattern: '(' }, /not a valid regular expression/],
    [{ patternProperties: { '[': {} } }, /not a valid regular expression/],
    [{ type: 'text' }, /type must be one of/],
    [{ type: [] }, /type must be one of/],
    [{ minLength: -1 }, /minLength must be a non-negative integer/],
    [{ minimum: '1' }, /minimum must be a number/],
    [{ multipleOf: 0 }, /multipleOf must be greater than 0/],
    [{ required: 'a' }, /required must be an array of strings/],
    [{ properties: { a: 5 } }, /#\/properties\/a: a schema must be an object or a boolean/],
    [{ properties: [] }, /properties must be an object/],
    [{ enum: 'a' }, /enum must be an array/],
    [{ anyOf: {} }, /anyOf must be an array/],
    [{ uniqueItems: 'yes' }, /uniqueItems must be a boolean/],
    [{ dependentRequired: { a: {} } }, /dependentRequired values/],
    [{ $defs: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } }, /duplicate anchor/],
    [null, /must be an object or a boolean/],
    ['string', /must be an object or a boolean/],
  ];
  for (const [schema, message] of cases) {
    assert.throws(() => compileSchema(schema as JsonSchema), { name: 'TypeError', message }, JSON.stringify(schema));
  }
});

test('formatPath joins identifiers with dots, indexes with brackets and quotes other keys', () => {
  assert.equal(formatPath('arguments', ['address', 'street']), 'arguments.address.street');
  assert.equal(formatPath('arguments', ['items', 0, 'name']), 'arguments.items[0].name');
  assert.equal(formatPath('arguments', ['a b', '__proto__', '1x', '$ok']), 'arguments["a b"].__proto__["1x"].$ok');
  assert.equal(formatPath('arguments', []), 'arguments');
  assert.equal(formatPath('', ['a', 1]), 'a[1]');
});

test('arguments nested 10 000 deep: a schema that follows them names the path 513 levels down, one that does not accepts them, and the server keeps serving', async () => {
  const logger = new MemoryLogger();
  const server = createServer({ name: 's', version: '1' }, { logger });
  const tree = {
    type: ['array', 'object'],
    items: { $ref: '#/$defs/tree' },
    additionalProperties: { $ref: '#/$defs/tree' },
  };
  server.tool(
    'tree',
    { inputSchema: { type: 'object', properties: { t: { $ref: '#/$defs/tree' } }, $defs: { tree } } },
    () => ({ content: [] }),
  );
  server.tool('any', { inputSchema: { type: 'object', properties: { t: {} } } }, () => ({
    content: [{ type: 'text', text: 'accepted' }],
  }));
  const arrays = '['.repeat(10_000) + ']'.repeat(10_000);
  const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  const call = (id: number, name: string, nest: string, meta = '') =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{"t":${nest}}${meta}}}`;
  const tooDeep = (path: string) =>
    `Invalid arguments for tool 'tree': arguments.t${path} is nested more than 512 levels deep`;
  const accepted = { content: [{ type: 'text', text: 'accepted' }] };

  // Before 2025-11-25 invalid arguments are -32602.
  const legacy = new WireClient(server);
  await legacy.initialize('2025-06-18');
  legacy.send(call(1, 'tree', arrays));
  assert.deepEqual(
    await legacy.response(1),
    fail(1, { code: -32602, message: `Invalid params: ${tooDeep('[0]'.repeat(512)).slice('Invalid '.length)}` }),
  );
  legacy.send(call(2, 'tree', objects));
  assert.deepEqual(
    await legacy.response(2),
    fail(2, { code: -32602, message: `Invalid params: ${tooDeep('.a'.repeat(512)).slice('Invalid '.length)}` }),
  );
  legacy.send(call(3, 'any', arrays));
  assert.deepEqual(await legacy.response(3), result(3, accepted));
  legacy.send(call(4, 'any', objects));
  assert.deepEqual(await legacy.response(4), result(4, accepted));
  legacy.send(request(5, 'ping'));
  assert.deepEqual(await legacy.response(5), result(5, {}));
  assert.deepEqual(await legacy.end(), []);

  // From 2025-11-25 (and in 2026-07-28) they are a tool execution error with the same words.
  const current = new WireClient(server);
  await current.initialize('2025-11-25');
  current.send(call(1, 'tree', arrays));
  assert.deepEqual(
    await current.response(1),
    result(1, { content: [{ type: 'text', text: tooDeep('[0]'.repeat(512)) }], isError: true }),
  );
  const envelope = JSON.stringify(modern('tools/call').params._meta);
  const enveloped = new WireClient(server);
  enveloped.send(call(1, 'tree', objects, `,"_meta":${envelope}`));
  const answer = await enveloped.response(1);
  assert.deepEqual(answer.result.content, [{ type: 'text', text: tooDeep('.a'.repeat(512)) }]);
  assert.equal(answer.result.isError, true);
  enveloped.send(call(2, 'any', arrays, `,"_meta":${envelope}`));
  assert.deepEqual((await enveloped.response(2)).result.content, accepted.content);
  assert.deepEqual(await current.end(), []);
  assert.deepEqual(await enveloped.end(), []);
  assert.deepEqual(logger.errors, []);
});

test('patterns are compiled by the linear-time matcher: a refused pattern is named with its place in the schema', () => {
  assert.throws(() => compileSchema({ properties: { code: { pattern: '^(?=.*\\d)\\w+$' } } }), {
    name: 'TypeError',
    message:
      'invalid schema at #/properties/code: pattern "^(?=.*\\\\d)\\\\w+$" uses "(?=", a lookaround or group modifier, which has no linear-time matcher',
  });
  assert.throws(() => compileSchema({ patternProperties: { '(a)\\1': {} } }), {
    name: 'TypeError',
    message: 'invalid schema at #: patternProperties "(a)\\\\1" uses a backreference, which has no linear-time matcher',
  });
  const keys = compileSchema({ patternProperties: { '^(a+)+$': { type: 'number' } }, additionalProperties: false });
  assert.deepEqual(keys({ aaaa: 1 }), []);
  assert.deepEqual(keys({ [`${'a'.repeat(1 << 16)}!`]: 1 }), [
    { path: [`${'a'.repeat(1 << 16)}!`], message: 'must not have additional property' },
  ]);
});

test('a tool whose pattern backtracks on the native engine answers a 31-character and a 1 MiB argument, and one with a lookahead is refused at registration', async () => {
  const server = createServer({ name: 's', version: '1' });
  const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } as const;
  server.tool('strict', { inputSchema: schema }, () => ({ content: [{ type: 'text', text: 'accepted' }] }));
  const client = new WireClient(server);
  await client.initialize('2025-11-25');
  const call = (id: number, s: string) => request(id, 'tools/call', { name: 'strict', arguments: { s } });
  const refused = {
    content: [{ type: 'text', text: "Invalid arguments for tool 'strict': arguments.s must match pattern ^(a+)+$" }],
    isError: true,
  };
  client.send(call(1, `${'a'.repeat(30)}!`));
  assert.deepEqual(await client.response(1), result(1, refused));
  client.send(call(2, `${'a'.repeat(1 << 20)}!`));
  assert.deepEqual(await client.response(2), result(2, refused));
  client.send(call(3, 'a'.repeat(1 << 20)));
  assert.deepEqual(await client.response(3), result(3, { content: [{ type: 'text', text: 'accepted' }] }));
  // Registration refuses a lookahead, naming the pattern and its place.
  assert.throws(
    () =>
      server.tool(
        'password',
        { inputSchema: { type: 'object', properties: { p: { type: 'string', pattern: '^(?=.*\\d).{8,}$' } } } },
        () => ({ content: [] }),
      ),
    /#\/properties\/p: pattern "\^\(\?=\.\*\\\\d\)\.\{8,\}\$" uses "\(\?=", a lookaround/,
  );
  assert.deepEqual(await client.end(), []);
});

test("a Standard Schema whose JSON Schema export uses a lookahead (zod's hostname) still registers: its own library validates", async () => {
  const server = createServer({ name: 's', version: '1' });
  const schema = z.object({ host: z.hostname() });
  assert.match(JSON.stringify(schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' })), /\(\?=/);
  server.tool('dns', { inputSchema: schema }, ({ host }) => ({ content: [{ type: 'text', text: host }] }));
  const client = new WireClient(server);
  await client.initialize('2025-11-25');
  client.send(request(1, 'tools/call', { name: 'dns', arguments: { host: 'example.com' } }));
  assert.deepEqual(await client.response(1), result(1, { content: [{ type: 'text', text: 'example.com' }] }));
  client.send(request(2, 'tools/call', { name: 'dns', arguments: { host: '-bad-' } }));
  assert.equal((await client.response(2)).result.isError, true);
  assert.deepEqual(await client.end(), []);
  // checkSchema still refuses what is not valid JSON Schema, a pattern that is not a regular expression included.
  checkSchema({ pattern: '(?<=a)b' });
  assert.throws(() => checkSchema({ pattern: '(' }), /pattern "\(" is not a valid regular expression/);
  assert.throws(() => checkSchema({ type: 'text' }), /type must be one of/);
});

/** 1 MiB on which ^.*x[a-z]{1,63}!$ keeps a different set of threads after nearly every character. */
function thrashing(): string {
  let seed = 11;
  const letter = () => ((seed = (seed * 48271) % 0x7fffffff) % 8 === 0 ? 'x' : 'abcdefgh'[seed % 8]!);
  return Array.from({ length: 1 << 20 }, letter).join('');
}
const THRASHES = '^.*x[a-z]{1,63}!$';
const TOO_COSTLY = `is too costly to match pattern ${THRASHES} within the validator's work bound`;

test('an argument too costly to match within the work bound is refused naming its field, the same way every time, on both eras; a large ordinary one is accepted', async () => {
  const server = createServer({ name: 's', version: '1' });
  const schema = {
    type: 'object',
    properties: { s: { type: 'string', pattern: THRASHES }, t: { type: 'string', pattern: '^(a+)+$' } },
  } as const;
  server.tool('strict', { inputSchema: schema }, () => ({ content: [{ type: 'text', text: 'accepted' }] }));
  const hostile = thrashing();
  const call = (id: number, args: object) => request(id, 'tools/call', { name: 'strict', arguments: args });
  const refused = `Invalid arguments for tool 'strict': arguments.s ${TOO_COSTLY}`;

  const current = new WireClient(server);
  await current.initialize('2025-11-25');
  for (const id of [1, 2]) {
    current.send(call(id, { s: hostile }));
    assert.deepEqual(
      await current.response(id),
      result(id, { content: [{ type: 'text', text: refused }], isError: true }),
    );
  }
  // Just under the 4 MiB line bound: cached steps cost nothing, so the size of the body is their only bound.
  const large = 'a'.repeat((4 << 20) - 1024);
  current.send(call(3, { t: large }));
  assert.deepEqual(await current.response(3), result(3, { content: [{ type: 'text', text: 'accepted' }] }));
  current.send(call(4, { s: `x${large.slice(0, (4 << 20) - 2048)}` }));
  assert.equal(
    (await current.response(4)).result.content[0].text,
    `Invalid arguments for tool 'strict': arguments.s must match pattern ${THRASHES}`,
  );
  assert.deepEqual(await current.end(), []);

  // Before 2025-11-25 the same refusal is -32602.
  const legacy = new WireClient(server);
  await legacy.initialize('2025-06-18');
  legacy.send(call(1, { s: hostile }));
  assert.deepEqual(
    await legacy.response(1),
    fail(1, { code: -32602, message: `Invalid params: ${refused.slice('Invalid '.length)}` }),
  );
  legacy.send(request(2, 'ping'));
  assert.deepEqual(await legacy.response(2), result(2, {}));
  assert.deepEqual(await legacy.end(), []);
});

test('the work bound is per validation: strings each within it are refused together once over it, at the string where it ran out', () => {
  const hostile = thrashing();
  const parts = Array.from({ length: 256 }, (_, i) => `${hostile.slice(i * 4096, (i + 1) * 4096)}xab!`);
  const one = compileSchema({ pattern: THRASHES });
  for (const part of parts) assert.deepEqual(one(part), []);
  const all = compileSchema({ type: 'array', items: { pattern: THRASHES } });
  const found = all(parts);
  assert.equal(found.length, 1);
  const [{ path }] = found as [SchemaIssue];
  assert.ok(typeof path[0] === 'number' && path[0] > 0 && path[0] < 255, `cut at ${path[0]}`);
  assert.deepEqual(found, [{ path, message: TOO_COSTLY }]);
  assert.deepEqual(all(parts), found);
  // An object's keys share the bound too, and a key cut by it is not also an additional property.
  const keys = compileSchema({ patternProperties: { [THRASHES]: {} }, additionalProperties: false });
  assert.deepEqual(keys({ ok: 2, [hostile]: 1, [`${hostile}!`]: 3 }), [
    { path: ['ok'], message: 'must not have additional property' },
    {
      path: [hostile],
      message: `is too costly to match patternProperties ${THRASHES} within the validator's work bound`,
    },
  ]);
});

test('a pattern whose one thread sits behind a chain of 2 000 empty alternatives pays for walking the chain: the argument is refused within the work bound', async () => {
  // Each uncached step walks every SPLIT and JMP of (?:|){995} to reach the one thread at `a`: 16 384 new wide
  // transitions fill the cache, then every step is uncached. Paid per thread only, the argument below stayed
  // within the bound and took about 250 ms per pass (two passes: about 600 ms of one request).
  const chain = '(?:|){995}a';
  const server = createServer({ name: 's', version: '1' });
  const schema = { type: 'object', properties: { s: { type: 'string', pattern: chain } } } as const;
  server.tool('chain', { inputSchema: schema }, () => ({ content: [{ type: 'text', text: 'accepted' }] }));
  let wide = '';
  for (let cp = 0x4e00; wide.length < 16384; cp++) wide += String.fromCodePoint(cp);
  const client = new WireClient(server);
  await client.initialize('2025-11-25');
  client.send(request(1, 'tools/call', { name: 'chain', arguments: { s: `${wide}${'b'.repeat(10000)}` } }));
  const text = `Invalid arguments for tool 'chain': arguments.s is too costly to match pattern ${chain} within the validator's work bound`;
  assert.deepEqual(await client.response(1), result(1, { content: [{ type: 'text', text }], isError: true }));
  client.send(request(2, 'tools/call', { name: 'chain', arguments: { s: 'ba' } }));
  assert.deepEqual(await client.response(2), result(2, { content: [{ type: 'text', text: 'accepted' }] }));
  assert.deepEqual(await client.end(), []);
});

test('a test cut by the work bound never counts as a pass: under not, the value is refused at the root', () => {
  const hostile = thrashing();
  assert.deepEqual(compileSchema({ not: { pattern: THRASHES } })(hostile), [
    { path: [], message: "is too costly to validate within the validator's work bound" },
  ]);
  assert.deepEqual(compileSchema({ not: { pattern: THRASHES } })('xab'), []);
});
