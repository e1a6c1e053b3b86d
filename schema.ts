// JSON Schema validation (2020-12 semantics, tolerant of draft-07/04 forms): a schema is compiled once into closures.
// Owns schema compilation, $ref/$anchor resolution inside one root schema, and the issue list (capped at 20).
// Must never mutate the schema or the value, never follow refs outside the root schema, and never recurse more
// than MAX_DEPTH levels into a value.

export type JsonSchema = { [key: string]: unknown } | boolean;
export interface SchemaIssue { path: (string | number)[]; message: string }
/** Returns a shared frozen empty array when the value is valid, so callers must not mutate the result. */
export type Validator = (value: unknown) => SchemaIssue[];

type Obj = { [key: string]: unknown };
interface State { path: (string | number)[]; issues: SchemaIssue[] }
/** With st === null a check only answers valid/invalid and stops at the first failure (anyOf, not, if, ...). */
type Check = (v: unknown, st: State | null, depth: number) => boolean;
/** memo holds one slot per compiled schema object; refs records each $ref's target for the cycle check. */
interface Ctx {
  root: JsonSchema; rootId: string; anchors: Map<string, Obj>;
  memo: Map<Obj, { check: Check | undefined }>; refs: Map<Obj, JsonSchema>;
}

const MAX_ISSUES = 20;
const MAX_DEPTH = 512;
const NO_ISSUES = Object.freeze([]) as unknown as SchemaIssue[];
const IDENT = /^[A-Za-z_$][\w$]*$/;
const TYPE_TESTS: { [type: string]: (v: unknown) => boolean } = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => isObj(v),
};
const COMPARE: { [op: string]: (a: number, b: number) => boolean } = {
  '>=': (a, b) => a >= b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '<': (a, b) => a < b,
};
// [keyword, operator, draft-04 boolean keyword that turns the bound exclusive]
const BOUNDS = [['minimum', '>=', 'exclusiveMinimum'], ['maximum', '<=', 'exclusiveMaximum'],
  ['exclusiveMinimum', '>', ''], ['exclusiveMaximum', '<', '']];
// [keyword, value type, unit, plural unit]
const SIZES = [['minLength', 'string', 'character'], ['maxLength', 'string', 'character'],
  ['minItems', 'array', 'item'], ['maxItems', 'array', 'item'],
  ['minProperties', 'object', 'property', 'properties'], ['maxProperties', 'object', 'property', 'properties']];
// Keywords whose values are schemas, lists of schemas, or (MAP_KWS) objects whose values are schemas.
const MAP_KWS = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas',
  'dependencies']);
const IN_PLACE_KWS = ['not', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas', 'dependencies'];
const SCHEMA_KWS = [...MAP_KWS, ...IN_PLACE_KWS, 'additionalProperties', 'propertyNames', 'items', 'prefixItems',
  'additionalItems', 'contains', 'if', 'then', 'else'];

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSchema = (v: unknown): v is JsonSchema => typeof v === 'boolean' || isObj(v);
const isComposite = (v: unknown): boolean => typeof v === 'object' && v !== null;
const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const plural = (n: number, unit: string, units = `${unit}s`): string => `${n} ${n === 1 ? unit : units}`;
/** Asked after a failure: test mode needs no more work, and collect mode stops once the cap is reached. */
const stop = (st: State | null): boolean => st === null || st.issues.length >= MAX_ISSUES;
const PASS: Check = () => true;
const REJECT: Check = (_v, st) => report(st, 'is not allowed');

export function compileSchema(schema: JsonSchema): Validator {
  if (!isSchema(schema)) throw new TypeError('schema must be an object or a boolean');
  const id = isObj(schema) && typeof schema.$id === 'string' ? schema.$id : '';
  const ctx: Ctx = { root: schema, rootId: id.split('#')[0], anchors: new Map(), memo: new Map(), refs: new Map() };
  collectAnchors(ctx, schema, new Set());
  const root = compileNode(ctx, schema, '#');
  const colors = new Map<Obj, number>();
  for (const s of ctx.memo.keys()) assertDescends(ctx, s, colors);
  return (value) => {
    // Valid values are checked once without tracking paths; only invalid ones are walked again to collect issues.
    if (root(value, null, 0)) return NO_ISSUES;
    const st: State = { path: [], issues: [] };
    root(value, st, 0);
    return st.issues;
  };
}

/** formatPath('arguments', ['a', 0, 'b c']) -> 'arguments.a[0]["b c"]' */
export function formatPath(root: string, path: (string | number)[]): string {
  let out = root;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

function report(st: State | null, message: string, key?: string | number): false {
  if (st !== null && st.issues.length < MAX_ISSUES) {
    const path = st.path.slice();
    if (key !== undefined) path.push(key);
    st.issues.push({ path, message });
  }
  return false;
}

function descend(check: Check, v: unknown, st: State | null, depth: number, key: string | number): boolean {
  if (check === PASS) return true;
  if (depth >= MAX_DEPTH) return report(st, 'is nested too deeply', key);
  if (st === null) return check(v, null, depth + 1);
  st.path.push(key);
  const ok = check(v, st, depth + 1);
  st.path.pop();
  return ok;
}

function every(checks: Check[]): Check {
  if (checks.length === 0) return PASS;
  if (checks.length === 1) return checks[0];
  return (v, st, d) => {
    let ok = true;
    for (let i = 0; i < checks.length; i++) {
      ok = checks[i](v, st, d) && ok;
      if (!ok && stop(st)) return false;
    }
    return ok;
  };
}

function collectAnchors(ctx: Ctx, s: unknown, seen: Set<Obj>): void {
  if (!isObj(s) || seen.has(s)) return;
  seen.add(s);
  // Draft-07 spells an anchor as an $id that is only a fragment.
  const anchor = typeof s.$anchor === 'string' ? s.$anchor
    : typeof s.$id === 'string' && s.$id.startsWith('#') ? s.$id.slice(1) : undefined;
  if (anchor !== undefined) {
    if (ctx.anchors.has(anchor)) throw new TypeError(`invalid schema: duplicate anchor "${anchor}"`);
    ctx.anchors.set(anchor, s);
  }
  for (const sub of subschemas(s, SCHEMA_KWS)) collectAnchors(ctx, sub, seen);
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

function resolveRef(ctx: Ctx, ref: string, loc: string): JsonSchema {
  const hash = ref.indexOf('#');
  const base = hash < 0 ? ref : ref.slice(0, hash);
  if (base !== '' && base !== ctx.rootId) bad(loc, `$ref "${ref}" points outside this schema`);
  let frag: string;
  try {
    frag = decodeURIComponent(hash < 0 ? '' : ref.slice(hash + 1));
  } catch {
    bad(loc, `$ref "${ref}" has invalid percent-encoding`);
  }
  const target = frag === '' ? ctx.root : frag.startsWith('/') ? pointer(ctx.root, frag) : ctx.anchors.get(frag);
  if (!isSchema(target)) bad(loc, `$ref "${ref}" cannot be resolved`);
  return target;
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

/** Rejects cycles of $ref/in-place applicators that never step into a child value: they would recurse forever. */
function assertDescends(ctx: Ctx, s: Obj, colors: Map<Obj, number>): void {
  const color = colors.get(s);
  if (color === 2) return;
  if (color === 1) throw new TypeError('invalid schema: a $ref cycle never descends into the value');
  colors.set(s, 1);
  const next = subschemas(s, IN_PLACE_KWS);
  next.push(ctx.refs.get(s));
  if (s.then !== undefined || s.else !== undefined) next.push(s.if, s.then, s.else);
  for (const n of next) if (isObj(n)) assertDescends(ctx, n, colors);
  colors.set(s, 2);
}

function compileNode(ctx: Ctx, s: unknown, loc: string): Check {
  if (s === true) return PASS;
  if (s === false) return REJECT;
  if (!isObj(s)) bad(loc, 'a schema must be an object or a boolean');
  const known = ctx.memo.get(s);
  // Reached again through a recursive $ref while still compiling: defer to the check once it exists.
  if (known !== undefined) return known.check ?? ((v, st, d) => (known.check as Check)(v, st, d));
  const slot: { check: Check | undefined } = { check: undefined };
  ctx.memo.set(s, slot);
  const checks: Check[] = [];
  compileValues(s, loc, checks);
  compileArray(ctx, s, loc, checks);
  compileObject(ctx, s, loc, checks);
  compileApplicators(ctx, s, loc, checks);
  slot.check = every(checks);
  return slot.check;
}

function compileValues(s: Obj, loc: string, checks: Check[]): void {
  if (s.type !== undefined) {
    const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
    if (types.length === 0 || !types.every((t) => typeof t === 'string' && Object.hasOwn(TYPE_TESTS, t))) {
      bad(loc, `type must be one of ${Object.keys(TYPE_TESTS).join(', ')} or a non-empty array of them`);
    }
    const tests = types.map((t) => TYPE_TESTS[t as string]);
    const message = `must be ${types.join(' or ')}`;
    checks.push((v, st) => {
      for (let i = 0; i < tests.length; i++) if (tests[i](v)) return true;
      return report(st, message);
    });
  }
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) bad(loc, 'enum must be an array');
    const scalars = new Set<unknown>(s.enum.filter((x) => !isComposite(x)));
    const composites = s.enum.filter(isComposite);
    checks.push((v, st) => (isComposite(v) ? composites.some((c) => jsonEqual(v, c)) : scalars.has(v)) ||
      report(st, 'must be one of the allowed values'));
  }
  if (Object.hasOwn(s, 'const')) {
    const c = s.const;
    checks.push((v, st) => v === c || jsonEqual(v, c) || report(st, 'must be equal to the constant'));
  }
  for (const [kw, op, draft4] of BOUNDS) {
    if (typeof s[kw] === 'boolean') continue;
    const limit = numberKw(s, kw, loc, false);
    if (limit === undefined) continue;
    const exact = draft4 !== '' && s[draft4] === true ? op.slice(0, 1) : op;
    const compare = COMPARE[exact];
    const message = `must be ${exact} ${limit}`;
    checks.push((v, st) => typeof v !== 'number' || compare(v, limit) || report(st, message));
  }
  const step = numberKw(s, 'multipleOf', loc, false);
  if (step !== undefined) {
    if (step <= 0) bad(loc, 'multipleOf must be greater than 0');
    checks.push((v, st) => typeof v !== 'number' || isMultiple(v, step) || report(st, `must be a multiple of ${step}`));
  }
  for (const [kw, type, unit, units] of SIZES) {
    const limit = numberKw(s, kw, loc, true);
    if (limit === undefined) continue;
    const atLeast = kw.startsWith('min');
    const message = `must have ${atLeast ? 'at least' : 'at most'} ${plural(limit, unit, units)}`;
    const is = TYPE_TESTS[type];
    checks.push((v, st) => !is(v) || (atLeast ? sizeOf(v) >= limit : sizeOf(v) <= limit) || report(st, message));
  }
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== 'string') bad(loc, 'pattern must be a string');
    const re = regex(s.pattern, 'pattern', loc);
    const message = `must match pattern ${s.pattern}`;
    checks.push((v, st) => typeof v !== 'string' || re.test(v) || report(st, message));
  }
}

/** Float division is inexact (0.3 / 0.1 = 2.9999999999999996), so accept quotients within 1e-9 of an integer. */
function isMultiple(v: number, step: number): boolean {
  const q = v / step;
  return Number.isInteger(q) || Math.abs(q - Math.round(q)) < 1e-9;
}

/** Strings are measured in Unicode code points, as JSON Schema specifies, not in UTF-16 units. */
function sizeOf(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  if (typeof v !== 'string') return Object.keys(v as Obj).length;
  let n = 0;
  for (let i = 0; i < v.length; i++, n++) {
    if ((v.charCodeAt(i) & 0xfc00) === 0xd800 && (v.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

function compileArray(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  // Draft-07 array-form items are prefixItems, and additionalItems then plays the role of items.
  const itemsIsList = Array.isArray(s.items);
  const prefix = compileList(ctx, s, s.prefixItems !== undefined || !itemsIsList ? 'prefixItems' : 'items', loc) ?? [];
  const restKw = itemsIsList ? 'additionalItems' : 'items';
  const rest = s[restKw] === undefined ? undefined : compileNode(ctx, s[restKw], `${loc}/${restKw}`);
  if (prefix.length > 0 || rest !== undefined) {
    const restCheck = rest ?? PASS;
    checks.push((v, st, d) => {
      if (!Array.isArray(v)) return true;
      let ok = true;
      const n = rest === undefined ? Math.min(v.length, prefix.length) : v.length;
      for (let i = 0; i < n; i++) {
        ok = descend(i < prefix.length ? prefix[i] : restCheck, v[i], st, d, i) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  if (s.uniqueItems !== undefined && typeof s.uniqueItems !== 'boolean') bad(loc, 'uniqueItems must be a boolean');
  if (s.uniqueItems === true) {
    checks.push((v, st) => !Array.isArray(v) || !hasDuplicate(v) || report(st, 'must not have duplicate items'));
  }
  if (s.contains !== undefined) {
    const contains = compileNode(ctx, s.contains, `${loc}/contains`);
    const least = numberKw(s, 'minContains', loc, true) ?? 1;
    const most = numberKw(s, 'maxContains', loc, true);
    checks.push((v, st, d) => {
      if (!Array.isArray(v)) return true;
      let n = 0;
      for (let i = 0; i < v.length; i++) if (descend(contains, v[i], null, d, i)) n++;
      if (n < least) return report(st, `must contain at least ${plural(least, 'matching item')}`);
      return most === undefined || n <= most || report(st, `must contain at most ${plural(most, 'matching item')}`);
    });
  }
}

function hasDuplicate(items: unknown[]): boolean {
  const scalars = new Set<unknown>();
  const composites: unknown[] = [];
  for (const x of items) {
    if (isComposite(x)) {
      if (composites.some((c) => jsonEqual(x, c))) return true;
      composites.push(x);
    } else {
      if (scalars.has(x)) return true;
      scalars.add(x);
    }
  }
  return false;
}

function compileObject(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  const props = compileMap(ctx, s, 'properties', loc);
  if (props !== undefined) {
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (let i = 0; i < props.keys.length; i++) {
        const k = props.keys[i];
        ok = (!Object.hasOwn(v, k) || descend(props.checks[i], v[k], st, d, k)) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  const patterns = compileMap(ctx, s, 'patternProperties', loc);
  const regexes = patterns?.keys.map((p) => regex(p, 'patternProperties', loc)) ?? [];
  const patternChecks = patterns?.checks ?? [];
  const declared = new Set(props?.keys);
  const extra = s.additionalProperties === undefined ? undefined
    : compileNode(ctx, s.additionalProperties, `${loc}/additionalProperties`);
  const names = s.propertyNames === undefined ? undefined : compileNode(ctx, s.propertyNames, `${loc}/propertyNames`);
  if (patterns !== undefined || extra !== undefined || names !== undefined) {
    // One pass over the value's own keys serves propertyNames, patternProperties and additionalProperties.
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const k of Object.keys(v)) {
        if (names !== undefined && !names(k, null, d)) ok = report(st, 'is not a valid property name', k);
        let matched = declared.has(k);
        for (let i = 0; i < regexes.length; i++) {
          if (!regexes[i].test(k)) continue;
          matched = true;
          ok = descend(patternChecks[i], v[k], st, d, k) && ok;
        }
        if (!matched && extra === REJECT) ok = report(st, 'must not have additional property', k);
        else if (!matched && extra !== undefined) ok = descend(extra, v[k], st, d, k) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  // Each dependency becomes a check applied only when its key is present. Draft-07 "dependencies" mixes both
  // forms: an array of names means dependentRequired, a schema means dependentSchemas.
  const deps: [string | undefined, Check][] = [];
  if (s.required !== undefined) deps.push([undefined, requireAll(strings(s.required, 'required', loc), 'is required')]);
  for (const kw of ['dependentRequired', 'dependentSchemas', 'dependencies']) {
    const map = s[kw];
    if (map === undefined) continue;
    if (!isObj(map)) bad(loc, `${kw} must be an object`);
    for (const k of Object.keys(map)) {
      const dep = map[k];
      if (kw !== 'dependentSchemas' && Array.isArray(dep)) {
        deps.push([k, requireAll(strings(dep, kw, loc), `is required when ${JSON.stringify(k)} is present`)]);
      } else if (kw !== 'dependentRequired') deps.push([k, compileNode(ctx, dep, `${loc}/${kw}/${escapeToken(k)}`)]);
      else bad(loc, 'dependentRequired values must be arrays of strings');
    }
  }
  if (deps.length > 0) {
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const [k, check] of deps) {
        ok = ((k !== undefined && !Object.hasOwn(v, k)) || check(v, st, d)) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
}

function requireAll(names: string[], message: string): Check {
  return (v, st) => {
    let ok = true;
    for (const name of names) {
      if (Object.hasOwn(v as Obj, name)) continue;
      ok = report(st, message, name);
      if (stop(st)) return false;
    }
    return ok;
  };
}

function compileApplicators(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  if (s.$ref !== undefined) {
    if (typeof s.$ref !== 'string') bad(loc, '$ref must be a string');
    const target = resolveRef(ctx, s.$ref, loc);
    ctx.refs.set(s, target);
    checks.push(compileNode(ctx, target, s.$ref));
  }
  const all = compileList(ctx, s, 'allOf', loc);
  if (all !== undefined) checks.push(every(all));
  for (const kw of ['anyOf', 'oneOf']) {
    const subs = compileList(ctx, s, kw, loc);
    if (subs === undefined) continue;
    // anyOf can stop at the first match; oneOf must look for a second one.
    const enough = kw === 'anyOf' ? 1 : 2;
    const message = `must match ${kw === 'anyOf' ? 'at least' : 'exactly'} one schema in ${kw}`;
    checks.push((v, st, d) => {
      let n = 0;
      for (let i = 0; i < subs.length && n < enough; i++) if (subs[i](v, null, d)) n++;
      return n === 1 || report(st, message);
    });
  }
  if (s.not !== undefined) {
    const not = compileNode(ctx, s.not, `${loc}/not`);
    checks.push((v, st, d) => !not(v, null, d) || report(st, 'must not match the schema in not'));
  }
  if (s.if !== undefined && (s.then !== undefined || s.else !== undefined)) {
    const cond = compileNode(ctx, s.if, `${loc}/if`);
    const then = s.then === undefined ? PASS : compileNode(ctx, s.then, `${loc}/then`);
    const otherwise = s.else === undefined ? PASS : compileNode(ctx, s.else, `${loc}/else`);
    checks.push((v, st, d) => (cond(v, null, d) ? then(v, st, d) : otherwise(v, st, d)));
  }
}

function compileMap(ctx: Ctx, s: Obj, kw: string, loc: string): { keys: string[]; checks: Check[] } | undefined {
  const map = s[kw];
  if (map === undefined) return undefined;
  if (!isObj(map)) bad(loc, `${kw} must be an object`);
  const keys = Object.keys(map);
  return { keys, checks: keys.map((k) => compileNode(ctx, map[k], `${loc}/${kw}/${escapeToken(k)}`)) };
}

function compileList(ctx: Ctx, s: Obj, kw: string, loc: string): Check[] | undefined {
  const list = s[kw];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) bad(loc, `${kw} must be an array of schemas`);
  return list.map((sub, i) => compileNode(ctx, sub, `${loc}/${kw}/${i}`));
}

function numberKw(s: Obj, kw: string, loc: string, count: boolean): number | undefined {
  const x = s[kw];
  if (x === undefined) return undefined;
  if (typeof x !== 'number' || !Number.isFinite(x)) bad(loc, `${kw} must be a number`);
  if (count && (!Number.isInteger(x) || x < 0)) bad(loc, `${kw} must be a non-negative integer`);
  return x;
}

function strings(x: unknown, kw: string, loc: string): string[] {
  if (!Array.isArray(x) || !x.every((e) => typeof e === 'string')) bad(loc, `${kw} must be an array of strings`);
  return x.slice();
}

function regex(pattern: string, kw: string, loc: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    bad(loc, `${kw} ${JSON.stringify(pattern)} is not a valid regular expression`);
  }
}

/** JSON equality without recursion, so arbitrarily deep values cannot exhaust the stack. */
function jsonEqual(a: unknown, b: unknown): boolean {
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
