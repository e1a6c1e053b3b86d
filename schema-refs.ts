// Schema references and JSON equality for schema.ts: $anchor collection, $ref resolution (JSON pointers, anchors)
// within one root schema, the check that $ref cycles descend into the value, and ids of JSON values (equal, same id).
// Owns the $ref graph and which keywords hold subschemas. Must never mutate a schema or value, never follow a $ref
// outside the root schema, and never recurse into values (deep values must not exhaust the stack).

import { isPlainObject } from './jsonrpc.ts';

export type Obj = { [key: string]: unknown };
/** $ref resolution for one root schema; resolve records each $ref's target for assertDescends. */
export interface Refs {
  /** The schema that s.$ref points to; loc names s in errors. */
  resolve(s: Obj, loc: string): Obj | boolean;
  /** Rejects cycles of $ref/in-place applicators that never step into a child value: they would recurse forever. */
  assertDescends(schemas: Iterable<Obj>): void;
}

// Keywords whose values are schemas, lists of schemas, or (MAP_KWS) objects whose values are schemas.
const MAP_KWS = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas',
  'dependencies']);
const IN_PLACE_KWS = ['not', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas', 'dependencies'];
const SCHEMA_KWS = [...MAP_KWS, ...IN_PLACE_KWS, 'additionalProperties', 'propertyNames', 'items', 'prefixItems',
  'additionalItems', 'contains', 'if', 'then', 'else'];

export const isSchema = (v: unknown): v is Obj | boolean => typeof v === 'boolean' || isPlainObject(v);
export const isComposite = (v: unknown): v is object => typeof v === 'object' && v !== null;

export function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

export function createRefs(root: Obj | boolean): Refs {
  const id = isPlainObject(root) && typeof root.$id === 'string' ? root.$id : '';
  const rootId = id.split('#')[0];
  const anchors = new Map<string, Obj>();
  collectAnchors(root, anchors, new Set());
  const targets = new Map<Obj, Obj | boolean>();
  return {
    resolve(s, loc) {
      const ref = s.$ref;
      if (typeof ref !== 'string') bad(loc, '$ref must be a string');
      const hash = ref.includes('#') ? ref.indexOf('#') : ref.length;
      const base = ref.slice(0, hash);
      if (base !== '' && base !== rootId) bad(loc, `$ref "${ref}" points outside this schema`);
      let frag: string;
      try {
        frag = decodeURIComponent(ref.slice(hash + 1));
      } catch {
        bad(loc, `$ref "${ref}" has invalid percent-encoding`);
      }
      const target = frag === '' ? root : frag.startsWith('/') ? pointer(root, frag) : anchors.get(frag);
      if (!isSchema(target)) bad(loc, `$ref "${ref}" cannot be resolved`);
      targets.set(s, target);
      return target;
    },
    assertDescends(schemas) {
      const colors = new Map<Obj, number>();
      for (const s of schemas) visit(s, targets, colors);
    },
  };
}

function collectAnchors(s: unknown, anchors: Map<string, Obj>, seen: Set<Obj>): void {
  if (!isPlainObject(s) || seen.has(s)) return;
  seen.add(s);
  // Draft-07 spells an anchor as an $id that is only a fragment.
  const anchor = typeof s.$anchor === 'string' ? s.$anchor
    : typeof s.$id === 'string' && s.$id.startsWith('#') ? s.$id.slice(1) : undefined;
  if (anchor !== undefined) {
    if (anchors.has(anchor)) throw new TypeError(`invalid schema: duplicate anchor "${anchor}"`);
    anchors.set(anchor, s);
  }
  for (const sub of subschemas(s, SCHEMA_KWS)) collectAnchors(sub, anchors, seen);
}

function subschemas(s: Obj, keywords: string[]): unknown[] {
  const out: unknown[] = [];
  for (const kw of keywords) {
    const x = s[kw];
    if (Array.isArray(x)) out.push(...x);
    else if (MAP_KWS.has(kw) && isPlainObject(x)) out.push(...Object.values(x));
    else out.push(x);
  }
  return out;
}

function pointer(root: unknown, ptr: string): unknown {
  let cur = root;
  for (const raw of ptr.slice(1).split('/')) {
    const tok = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^(0|[1-9]\d*)$/.test(tok)) cur = cur[Number(tok)];
    else if (isPlainObject(cur) && Object.hasOwn(cur, tok)) cur = cur[tok];
    else return undefined;
  }
  return cur;
}

/** Depth-first search over in-place edges; colors: 1 = on the current path (so a cycle), 2 = known acyclic. */
function visit(s: Obj, targets: Map<Obj, Obj | boolean>, colors: Map<Obj, number>): void {
  const color = colors.get(s);
  if (color === 2) return;
  if (color === 1) throw new TypeError('invalid schema: a $ref cycle never descends into the value');
  colors.set(s, 1);
  const next = subschemas(s, IN_PLACE_KWS);
  next.push(targets.get(s));
  if (s.then !== undefined || s.else !== undefined) next.push(s.if, s.then, s.else);
  for (const n of next) if (isPlainObject(n)) visit(n, targets, colors);
  colors.set(s, 2);
}

const OPEN = -1;

/**
 * Ids of JSON values under JSON Schema equality (2020-12 core, instance equality: object members in any order,
 * numbers by value, so 1 and 1.0 are one value): equal objects and arrays get equal ids, and uniqueItems, enum
 * and const compare ids instead of walking values against each other. Each object or array is numbered once, from
 * its own members and its children's ids, without recursion: numbering a value takes time linear in its size, at
 * any depth. Remembers every value it numbered, so one instance serves one validation.
 */
export class JsonIds {
  #ids = new Map<object, number>();
  #shapes = new Map<string, number>();
  #cycles = 0;

  /** The id of an object or array. */
  of(root: object): number {
    const pending: object[] = [root];
    while (pending.length > 0) {
      const node = pending[pending.length - 1]!;
      const id = this.#ids.get(node);
      if (id !== undefined) {
        pending.pop();
        // OPEN: its children have been numbered since (or are its ancestors: a cycle), so it can be numbered.
        if (id === OPEN) this.#ids.set(node, this.#number(node, Array.isArray(node) ? undefined : Object.keys(node)));
        continue;
      }
      const keys = Array.isArray(node) ? undefined : Object.keys(node);
      const before = pending.length;
      if (keys === undefined) {
        for (const child of node as unknown[]) if (isComposite(child) && !this.#ids.has(child)) pending.push(child);
      } else {
        for (const key of keys) {
          const child = (node as Obj)[key];
          if (isComposite(child) && !this.#ids.has(child)) pending.push(child);
        }
      }
      if (pending.length === before) {
        pending.pop();
        this.#ids.set(node, this.#number(node, keys));
      } else {
        this.#ids.set(node, OPEN); // numbered once the children above it on the stack are
      }
    }
    return this.#ids.get(root)!;
  }

  /** The node's shape (members with children as ids; object keys sorted), numbered by first appearance. */
  #number(node: object, keys: string[] | undefined): number {
    let shape: string;
    if (keys === undefined) {
      const items = node as unknown[];
      shape = '[';
      for (let i = 0; i < items.length; i++) shape += `${i > 0 ? ',' : ''}${this.#member(items[i])}`;
    } else {
      keys.sort();
      shape = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        shape += `${i > 0 ? ',' : ''}${key.length}:${key}=${this.#member((node as Obj)[key])}`;
      }
    }
    let id = this.#shapes.get(shape);
    if (id === undefined) this.#shapes.set(shape, (id = this.#shapes.size));
    return id;
  }

  /** A member's part of a shape: strings length-prefixed (no escaping needed), numbers by value, children by id. */
  #member(v: unknown): string {
    if (typeof v === 'string') return `${v.length}:${v}`;
    if (typeof v === 'number') return String(v); // -0 and 0 are one number, as in a Set
    if (typeof v === 'bigint') return `${v}n`;
    // null, true, false; JSON has no undefined, function or symbol, so those compare by type alone.
    if (!isComposite(v)) return typeof v === 'boolean' || v === null ? String(v) : typeof v;
    const id = this.#ids.get(v)!;
    // Still OPEN: an ancestor, so the value is cyclic (never JSON); the cycle equals nothing else.
    return id === OPEN ? `!${this.#cycles++}` : `#${id}`;
  }
}
