// Schema references and JSON equality for schema.ts: $anchor collection, $ref resolution (JSON pointers, anchors)
// within one root schema, the check that $ref cycles descend into the value, and deep equality of JSON values.
// Owns the $ref graph and which keywords hold subschemas. Must never mutate a schema or value, never follow a $ref
// outside the root schema, and never recurse into values (deep values must not exhaust the stack).

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

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isSchema = (v: unknown): v is Obj | boolean => typeof v === 'boolean' || isObj(v);
const isComposite = (v: unknown): boolean => typeof v === 'object' && v !== null;

export function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

export function createRefs(root: Obj | boolean): Refs {
  const id = isObj(root) && typeof root.$id === 'string' ? root.$id : '';
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
  if (!isObj(s) || seen.has(s)) return;
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
    else if (MAP_KWS.has(kw) && isObj(x)) out.push(...Object.values(x));
    else out.push(x);
  }
  return out;
}

function pointer(root: unknown, ptr: string): unknown {
  let cur = root;
  for (const raw of ptr.slice(1).split('/')) {
    const tok = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^(0|[1-9]\d*)$/.test(tok)) cur = cur[Number(tok)];
    else if (isObj(cur) && Object.hasOwn(cur, tok)) cur = cur[tok];
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
  for (const n of next) if (isObj(n)) visit(n, targets, colors);
  colors.set(s, 2);
}

/** JSON equality without recursion, so arbitrarily deep values cannot exhaust the stack. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (!isComposite(x) || !isComposite(y) || Array.isArray(x) !== Array.isArray(y)) return false;
    const xo = x as Obj;
    const yo = y as Obj;
    const keys = Object.keys(xo);
    if (keys.length !== Object.keys(yo).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(yo, k)) return false;
      pending.push(xo[k], yo[k]);
    }
  }
  return true;
}

/** A set of JSON values: scalars are looked up by value, objects and arrays by jsonEqual. */
export class JsonSet {
  #scalars = new Set<unknown>();
  #composites: unknown[] = [];

  constructor(values: unknown[] = []) {
    for (const v of values) this.add(v);
  }

  has(v: unknown): boolean {
    return isComposite(v) ? this.#composites.some((c) => jsonEqual(v, c)) : this.#scalars.has(v);
  }

  add(v: unknown): void {
    if (isComposite(v)) this.#composites.push(v);
    else this.#scalars.add(v);
  }
}

export function hasDuplicate(items: unknown[]): boolean {
  const seen = new JsonSet();
  for (const x of items) {
    if (seen.has(x)) return true;
    seen.add(x);
  }
  return false;
}
