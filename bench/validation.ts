// What argument validation costs at the size limit: for each JSON Schema keyword whose cost grows with the value
// (uniqueItems, enum and const over objects, pattern, patternProperties with additionalProperties, required, $ref
// recursion, oneOf and anyOf), a schema and a tool-arguments body filling the 4 MiB default line and body limit
// (stdio.ts, http.ts). Measured in process on the .ts sources against JSON.parse of the same body; never asserts.

import { compileSchema, type JsonSchema } from '../schema.ts';

/** One keyword under load: the schema, and the arguments object of about `bytes` of JSON that it validates. */
interface ValidationCase {
  name: string;
  schema: JsonSchema;
  build(bytes: number): unknown;
  /** How many issues the body must produce (0: a valid body, walked to the end). */
  issues: number;
}

export interface ValidationCost {
  name: string;
  bytes: number;
  parseMs: number;
  validateMs: number;
}

/** An array of `item(i)` for i = 0, 1, … holding about `bytes` of JSON. */
function fill(bytes: number, item: (i: number) => unknown): unknown[] {
  const out: unknown[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const next = item(i);
    size += JSON.stringify(next).length + 1;
    if (size <= bytes) out.push(next);
  }
  return out;
}

/** A chain of `depth` nodes {a, kids: [next]}, the last with no kids. */
function chain(depth: number): unknown {
  let node: unknown = { a: 1 };
  for (let i = 1; i < depth; i++) node = { a: 1, kids: [node] };
  return node;
}

const ENUM = Array.from({ length: 10 }, (_, i) => ({ kind: `k${i}`, sizes: [i, i + 1], meta: { on: i % 2 === 0 } }));
const SHAPES = Array.from({ length: 10 }, (_, i) => ({
  type: 'object',
  required: [`f${i}`],
  properties: { [`f${i}`]: { type: 'integer' } },
}));
/** A recursive node the two alternatives of a oneOf both follow, told apart only by `required` (checked last). */
const ONE_OF_NODE = {
  oneOf: ['a', 'b'].map((key) => ({
    type: 'object',
    properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } },
    required: [key],
  })),
};
const TREE_NODE = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
};

/** items: the schema of each element of the body's `items` array. */
function itemsSchema(items: JsonSchema, extra: object = {}): JsonSchema {
  return { type: 'object', properties: { items: { type: 'array', items, ...extra } }, required: ['items'] };
}

export const VALIDATION_CASES: ValidationCase[] = [
  {
    name: 'uniqueItems, 3-member objects',
    schema: itemsSchema({ type: 'object' }, { uniqueItems: true }),
    build: (bytes) => ({ items: fill(bytes, (i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) }),
    issues: 0,
  },
  {
    name: 'uniqueItems, strings',
    schema: itemsSchema({ type: 'string' }, { uniqueItems: true }),
    build: (bytes) => ({ items: fill(bytes, (i) => `s${i}`) }),
    issues: 0,
  },
  {
    name: 'enum of 10 objects (keys reordered)',
    schema: itemsSchema({ enum: ENUM }),
    build: (bytes) => ({
      items: fill(bytes, (i) => {
        const { meta, sizes, kind } = ENUM[i % ENUM.length]!;
        return { meta, sizes, kind };
      }),
    }),
    issues: 0,
  },
  {
    name: 'const object',
    schema: itemsSchema({ const: ENUM[0] }),
    build: (bytes) => ({ items: fill(bytes, () => ({ sizes: [0, 1], meta: { on: true }, kind: 'k0' })) }),
    issues: 0,
  },
  {
    name: 'pattern',
    schema: itemsSchema({ type: 'string', pattern: '^[a-z]+-[0-9]+$' }),
    build: (bytes) => ({ items: fill(bytes, (i) => `item-${i}`) }),
    issues: 0,
  },
  {
    name: 'patternProperties + additionalProperties (one object)',
    schema: {
      type: 'object',
      properties: { id: { type: 'integer' } },
      patternProperties: { '^x-': { type: 'string' } },
      additionalProperties: { type: 'integer' },
    },
    build: (bytes) => {
      const body: Record<string, unknown> = { id: 0 };
      for (let i = 0, size = 8; size < bytes - 32; i++) {
        const [key, value] = i % 3 === 0 ? [`x-${i}`, 'v'] : [`k${i}`, i];
        body[key] = value;
        size += JSON.stringify(key).length + JSON.stringify(value).length + 2;
      }
      return body;
    },
    issues: 0,
  },
  {
    name: 'unevaluatedProperties through allOf and patternProperties (one object)',
    schema: {
      type: 'object',
      allOf: [{ properties: { id: { type: 'integer' } } }],
      patternProperties: { '^k': { type: 'integer' } },
      unevaluatedProperties: false,
    },
    build: (bytes) => {
      const body: Record<string, unknown> = { id: 0 };
      for (let i = 0, size = 8; size < bytes - 32; i++) {
        body[`k${i}`] = i;
        size += JSON.stringify(`k${i}`).length + String(i).length + 2;
      }
      return body;
    },
    issues: 0,
  },
  {
    name: 'required (4 names per object)',
    schema: itemsSchema({ type: 'object', required: ['a', 'b', 'c', 'd'] }),
    build: (bytes) => ({ items: fill(bytes, (i) => ({ a: i, b: i, c: i, d: i })) }),
    issues: 0,
  },
  {
    name: '$ref recursion (trees 4 deep)',
    schema: { $ref: '#/$defs/node', $defs: { node: TREE_NODE } },
    build: (bytes) => {
      const leaf = (i: number) => ({ name: `n${i}` });
      const tree = (i: number) => ({
        name: 't',
        children: [0, 1, 2].map((j) => ({ name: 'u', children: [leaf(i), { name: 'v', children: [leaf(j)] }] })),
      });
      return { name: 'root', children: fill(bytes, tree) };
    },
    issues: 0,
  },
  {
    name: 'oneOf of two recursive shapes (chains 200 deep)',
    schema: {
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/node' } } },
      $defs: { node: ONE_OF_NODE },
    },
    build: (bytes) => ({ items: fill(bytes, () => chain(200)) }),
    issues: 0,
  },
  {
    name: 'anyOf over 10 object shapes (the last matches)',
    schema: itemsSchema({ anyOf: SHAPES }),
    build: (bytes) => ({ items: fill(bytes, (i) => ({ f9: i })) }),
    issues: 0,
  },
  {
    name: 'invalid: every item wrong (issues capped at 20)',
    schema: itemsSchema({ type: 'object', properties: { n: { type: 'string' } } }),
    build: (bytes) => ({ items: fill(bytes, (i) => ({ n: i })) }),
    issues: 20,
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median milliseconds of JSON.parse and of validation over `reps` runs, per case, on bodies of about `bytes`. */
export function validationCosts(bytes: number, reps: number): ValidationCost[] {
  return VALIDATION_CASES.map((c) => {
    const body = JSON.stringify(c.build(bytes));
    const validate = compileSchema(c.schema);
    const parseTimes: number[] = [];
    const validateTimes: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      let began = performance.now();
      const value: unknown = JSON.parse(body);
      parseTimes.push(performance.now() - began);
      began = performance.now();
      const found = validate(value).length;
      validateTimes.push(performance.now() - began);
      if (found !== c.issues) throw new Error(`validation case "${c.name}": ${found} issues, expected ${c.issues}`);
    }
    return { name: c.name, bytes: body.length, parseMs: median(parseTimes), validateMs: median(validateTimes) };
  });
}
