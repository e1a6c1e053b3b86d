// JSON Schema validation (2020-12 semantics, tolerant of draft-07/04 forms): a schema is compiled once into closures.
// Owns schema compilation, $ref/$anchor resolution inside one root schema, and the issue list (capped at 20).
// Must never mutate the schema or the value, never fetch or follow refs outside the root, and never recurse
// more than MAX_DEPTH levels into a value.

export type JsonSchema = { [key: string]: unknown } | boolean;
export interface SchemaIssue { path: (string | number)[]; message: string }
export type Validator = (value: unknown) => SchemaIssue[];

type Obj = { [key: string]: unknown };
interface State { path: (string | number)[]; issues: SchemaIssue[] }
/** With st === null the check only answers valid/invalid and stops at the first failure (used inside anyOf etc.). */
type Check = (v: unknown, st: State | null, depth: number) => boolean;
interface Ctx {
  root: JsonSchema;
  rootId: string;
  anchors: Map<string, Obj>;
  memo: Map<Obj, { check: Check | undefined }>;
  refs: Map<Obj, JsonSchema>;
}

const MAX_ISSUES = 20;
const MAX_DEPTH = 512;
const NO_ISSUES = Object.freeze([]) as unknown as SchemaIssue[];
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const IDENT = /^[A-Za-z_$][\w$]*$/;
const SINGLE_KWS = ['additionalProperties', 'propertyNames', 'items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else'];
const LIST_KWS = ['prefixItems', 'items', 'allOf', 'anyOf', 'oneOf'];
const MAP_KWS = ['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies'];

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
    // Valid values take the fast path; only invalid ones are walked again to collect issues with paths.
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

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'boolean' || isObj(v);
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

/** After a failure: test mode needs no more work, and collect mode stops once the cap is reached. */
function stop(st: State | null): boolean {
  return st === null || st.issues.length >= MAX_ISSUES;
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
      if (!checks[i](v, st, d)) {
        ok = false;
        if (stop(st)) return false;
      }
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
  for (const kw of SINGLE_KWS) collectAnchors(ctx, s[kw], seen);
  for (const kw of LIST_KWS) {
    const list = s[kw];
    if (Array.isArray(list)) for (const sub of list) collectAnchors(ctx, sub, seen);
  }
  for (const kw of MAP_KWS) {
    const map = s[kw];
    if (isObj(map)) for (const k of Object.keys(map)) collectAnchors(ctx, map[k], seen);
  }
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
  const next: unknown[] = [ctx.refs.get(s), s.not];
  if (s.then !== undefined || s.else !== undefined) next.push(s.if, s.then, s.else);
  for (const kw of ['allOf', 'anyOf', 'oneOf']) {
    const list = s[kw];
    if (Array.isArray(list)) next.push(...list);
  }
  for (const kw of ['dependentSchemas', 'dependencies']) {
    const map = s[kw];
    if (isObj(map)) next.push(...Object.values(map));
  }
  for (const n of next) if (isObj(n)) assertDescends(ctx, n, colors);
  colors.set(s, 2);
}

function compileNode(ctx: Ctx, s: unknown, loc: string): Check {
  if (s === true) return PASS;
  if (s === false) return REJECT;
  if (!isObj(s)) bad(loc, 'a schema must be an object or a boolean');
  const known = ctx.memo.get(s);
  // A schema still being compiled is reached again through a recursive $ref: defer to its finished check.
  if (known !== undefined) return known.check ?? ((v, st, d) => (known.check as Check)(v, st, d));
  const slot: { check: Check | undefined } = { check: undefined };
  ctx.memo.set(s, slot);
  const checks: Check[] = [];
  compileTypeAndValues(s, loc, checks);
  compileNumber(s, loc, checks);
  compileString(s, loc, checks);
  compileArray(ctx, s, loc, checks);
  compileObject(ctx, s, loc, checks);
  compileApplicators(ctx, s, loc, checks);
  slot.check = every(checks);
  return slot.check;
}

function compileTypeAndValues(s: Obj, loc: string, checks: Check[]): void {
  if (s.type !== undefined) {
    const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
    if (types.length === 0 || !types.every((t) => typeof t === 'string' && TYPES.has(t))) {
      bad(loc, `type must be one of ${[...TYPES].join(', ')} or a non-empty array of them`);
    }
    const names = types as string[];
    const message = `must be ${names.join(' or ')}`;
    checks.push((v, st) => {
      for (let i = 0; i < names.length; i++) if (hasType(v, names[i])) return true;
      return report(st, message);
    });
  }
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) bad(loc, 'enum must be an array');
    const scalars = new Set<unknown>();
    const composites: unknown[] = [];
    for (const x of s.enum) {
      if (typeof x === 'object' && x !== null) composites.push(x);
      else scalars.add(x);
    }
    checks.push((v, st) =>
      (typeof v === 'object' && v !== null ? composites.some((c) => jsonEqual(v, c)) : scalars.has(v)) ||
      report(st, 'must be one of the allowed values'));
  }
  if (Object.hasOwn(s, 'const')) {
    const c = s.const;
    checks.push((v, st) => v === c || jsonEqual(v, c) || report(st, 'must be equal to the constant'));
  }
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number';
    case 'integer': return Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'array': return Array.isArray(v);
    default: return isObj(v);
  }
}

function compileNumber(s: Obj, loc: string, checks: Check[]): void {
  // Draft-04 writes exclusiveMinimum/exclusiveMaximum as booleans that make minimum/maximum exclusive.
  const min = num(s, 'minimum', loc);
  const max = num(s, 'maximum', loc);
  const exMin = s.exclusiveMinimum === true ? min : s.exclusiveMinimum === false ? undefined : num(s, 'exclusiveMinimum', loc);
  const exMax = s.exclusiveMaximum === true ? max : s.exclusiveMaximum === false ? undefined : num(s, 'exclusiveMaximum', loc);
  if (min !== undefined && s.exclusiveMinimum !== true) {
    checks.push((v, st) => typeof v !== 'number' || v >= min || report(st, `must be >= ${min}`));
  }
  if (max !== undefined && s.exclusiveMaximum !== true) {
    checks.push((v, st) => typeof v !== 'number' || v <= max || report(st, `must be <= ${max}`));
  }
  if (exMin !== undefined) checks.push((v, st) => typeof v !== 'number' || v > exMin || report(st, `must be > ${exMin}`));
  if (exMax !== undefined) checks.push((v, st) => typeof v !== 'number' || v < exMax || report(st, `must be < ${exMax}`));
  const step = num(s, 'multipleOf', loc);
  if (step !== undefined) {
    if (step <= 0) bad(loc, 'multipleOf must be greater than 0');
    checks.push((v, st) => typeof v !== 'number' || isMultiple(v, step) || report(st, `must be a multiple of ${step}`));
  }
}

/** Float division is inexact (0.3 / 0.1 = 2.9999999999999996), so accept quotients within 1e-9 of an integer. */
function isMultiple(v: number, step: number): boolean {
  const q = v / step;
  return Number.isInteger(q) || Math.abs(q - Math.round(q)) < 1e-9;
}

function compileString(s: Obj, loc: string, checks: Check[]): void {
  // UTF-16 length bounds the code point count from above, so the exact count is needed only near the limit.
  const minLen = count(s, 'minLength', loc);
  const maxLen = count(s, 'maxLength', loc);
  if (minLen !== undefined) {
    checks.push((v, st) => typeof v !== 'string' || (v.length >= minLen && codePoints(v) >= minLen) ||
      report(st, `must have at least ${plural(minLen, 'character')}`));
  }
  if (maxLen !== undefined) {
    checks.push((v, st) => typeof v !== 'string' || v.length <= maxLen || codePoints(v) <= maxLen ||
      report(st, `must have at most ${plural(maxLen, 'character')}`));
  }
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== 'string') bad(loc, 'pattern must be a string');
    const re = regex(s.pattern, 'pattern', loc);
    const message = `must match pattern ${s.pattern}`;
    checks.push((v, st) => typeof v !== 'string' || re.test(v) || report(st, message));
  }
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
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
        if (!descend(i < prefix.length ? prefix[i] : restCheck, v[i], st, d, i)) {
          ok = false;
          if (stop(st)) return false;
        }
      }
      return ok;
    });
  }
  const minItems = count(s, 'minItems', loc);
  const maxItems = count(s, 'maxItems', loc);
  if (minItems !== undefined) {
    checks.push((v, st) => !Array.isArray(v) || v.length >= minItems || report(st, `must have at least ${plural(minItems, 'item')}`));
  }
  if (maxItems !== undefined) {
    checks.push((v, st) => !Array.isArray(v) || v.length <= maxItems || report(st, `must have at most ${plural(maxItems, 'item')}`));
  }
  if (s.uniqueItems !== undefined && typeof s.uniqueItems !== 'boolean') bad(loc, 'uniqueItems must be a boolean');
  if (s.uniqueItems === true) {
    checks.push((v, st) => !Array.isArray(v) || !hasDuplicate(v) || report(st, 'must not have duplicate items'));
  }
  if (s.contains !== undefined) {
    const contains = compileNode(ctx, s.contains, `${loc}/contains`);
    const least = count(s, 'minContains', loc) ?? 1;
    const most = count(s, 'maxContains', loc);
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
    if (typeof x !== 'object' || x === null) {
      if (scalars.has(x)) return true;
      scalars.add(x);
    } else {
      if (composites.some((c) => jsonEqual(x, c))) return true;
      composites.push(x);
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
        if (Object.hasOwn(v, k) && !descend(props.checks[i], v[k], st, d, k)) {
          ok = false;
          if (stop(st)) return false;
        }
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
  if (patterns !== undefined || extra !== undefined) {
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const k of Object.keys(v)) {
        let matched = declared.has(k);
        for (let i = 0; i < regexes.length; i++) {
          if (!regexes[i].test(k)) continue;
          matched = true;
          if (!descend(patternChecks[i], v[k], st, d, k)) {
            ok = false;
            if (stop(st)) return false;
          }
        }
        if (matched || extra === undefined) continue;
        if (extra === REJECT ? report(st, 'must not have additional property', k) : !descend(extra, v[k], st, d, k)) {
          ok = false;
          if (stop(st)) return false;
        }
      }
      return ok;
    });
  }
  if (s.propertyNames !== undefined) {
    const names = compileNode(ctx, s.propertyNames, `${loc}/propertyNames`);
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const k of Object.keys(v)) {
        if (!names(k, null, d)) {
          ok = report(st, 'is not a valid property name', k);
          if (stop(st)) return false;
        }
      }
      return ok;
    });
  }
  const required = s.required === undefined ? [] : strings(s.required, 'required', loc);
  if (required.length > 0) checks.push((v, st) => !isObj(v) || requireAll(v, required, st, 'is required'));
  const minProps = count(s, 'minProperties', loc);
  const maxProps = count(s, 'maxProperties', loc);
  if (minProps !== undefined) {
    checks.push((v, st) => !isObj(v) || Object.keys(v).length >= minProps ||
      report(st, `must have at least ${plural(minProps, 'property', 'properties')}`));
  }
  if (maxProps !== undefined) {
    checks.push((v, st) => !isObj(v) || Object.keys(v).length <= maxProps ||
      report(st, `must have at most ${plural(maxProps, 'property', 'properties')}`));
  }
  compileDependencies(ctx, s, loc, checks);
}

function compileDependencies(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  // Draft-07 "dependencies" mixes both forms: an array means dependentRequired, a schema dependentSchemas.
  const requiredBy: [string, string[]][] = [];
  const schemaBy: [string, Check][] = [];
  for (const kw of ['dependentRequired', 'dependentSchemas', 'dependencies']) {
    const map = s[kw];
    if (map === undefined) continue;
    if (!isObj(map)) bad(loc, `${kw} must be an object`);
    for (const k of Object.keys(map)) {
      const dep = map[k];
      if (kw !== 'dependentSchemas' && Array.isArray(dep)) requiredBy.push([k, strings(dep, kw, loc)]);
      else if (kw !== 'dependentRequired') schemaBy.push([k, compileNode(ctx, dep, `${loc}/${kw}/${escapeToken(k)}`)]);
      else bad(loc, 'dependentRequired values must be arrays of strings');
    }
  }
  if (requiredBy.length > 0) {
    checks.push((v, st) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const [k, names] of requiredBy) {
        if (Object.hasOwn(v, k) && !requireAll(v, names, st, `is required when ${JSON.stringify(k)} is present`)) {
          ok = false;
          if (stop(st)) return false;
        }
      }
      return ok;
    });
  }
  if (schemaBy.length > 0) {
    checks.push((v, st, d) => {
      if (!isObj(v)) return true;
      let ok = true;
      for (const [k, check] of schemaBy) {
        if (Object.hasOwn(v, k) && !check(v, st, d)) {
          ok = false;
          if (stop(st)) return false;
        }
      }
      return ok;
    });
  }
}

function requireAll(v: Obj, names: string[], st: State | null, message: string): boolean {
  let ok = true;
  for (const name of names) {
    if (!Object.hasOwn(v, name)) {
      ok = report(st, message, name);
      if (stop(st)) return false;
    }
  }
  return ok;
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
  const any = compileList(ctx, s, 'anyOf', loc);
  if (any !== undefined) {
    checks.push((v, st, d) => {
      for (let i = 0; i < any.length; i++) if (any[i](v, null, d)) return true;
      return report(st, 'must match at least one schema in anyOf');
    });
  }
  const one = compileList(ctx, s, 'oneOf', loc);
  if (one !== undefined) {
    checks.push((v, st, d) => {
      let n = 0;
      for (let i = 0; i < one.length && n < 2; i++) if (one[i](v, null, d)) n++;
      return n === 1 || report(st, 'must match exactly one schema in oneOf');
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

interface CheckMap { keys: string[]; checks: Check[] }

function compileMap(ctx: Ctx, s: Obj, kw: string, loc: string): CheckMap | undefined {
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

function num(s: Obj, kw: string, loc: string): number | undefined {
  const x = s[kw];
  if (x === undefined) return undefined;
  if (typeof x !== 'number' || !Number.isFinite(x)) bad(loc, `${kw} must be a number`);
  return x;
}

function count(s: Obj, kw: string, loc: string): number | undefined {
  const x = s[kw];
  if (x === undefined) return undefined;
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) bad(loc, `${kw} must be a non-negative integer`);
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

function escapeToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** JSON equality without recursion, so arbitrarily deep values cannot exhaust the stack. */
function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
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
