// JSON Schema validation (2020-12, tolerant of draft-07/04) compiled once into closures: $ref/$dynamicRef over $id-scoped
// resources of the schema and of registered documents (never fetched), unevaluated* from annotations, JSON equality,
// a capped issue list with paths. Never mutates a schema or value, recurses past MAX_DEPTH into a value, takes more
// than linear time in it (a shared node judges each object once per pass and scope), or matches past WORK_BUDGET.

import { isPlainObject } from './jsonrpc.ts';
import { compilePattern, type PatternTest, WORK_BUDGET, type Work } from './regex.ts';

export type JsonSchema = { [key: string]: unknown } | boolean;
export type SchemaIssue = { path: (string | number)[]; message: string };

/** Where a collecting pass is in the value, and the issues it found. */
type State = { path: (string | number)[]; issues: SchemaIssue[] };
/** What the in-place keywords judging one object or array evaluated (2020-12 core, 11: unevaluatedItems/Properties). */
type Evaluated = { all: boolean; upTo: number; keys: Set<string | number> | undefined };
/** A shared node's verdict on one value, and what it evaluated there (kept when an unevaluated* keyword asked). */
type Verdict = { verdict: number; evaluated: Evaluated | undefined };
// The dynamic scope (2020-12 core, 7.1): the resources being evaluated, outermost first, each once (only the outermost
// of a resource can win a $dynamicRef); interned per validator, so its count depends on the schema alone.
type Scope = { resources: Obj[]; next: Map<Obj, Scope>; dynamic: Map<string, Check> };
// What one validation (both passes) has learnt: shared nodes' verdicts per scope, value ids; its patterns' work left;
// the dynamic scope; where the in-place keywords record what they evaluated (null: no unevaluated* asks).
interface Run {
  verdicts?: Map<Scope, Map<Check, Map<object, Verdict | number>>>;
  ids?: JsonIds;
  work: Work;
  scope: Scope;
  evaluated: Evaluated | null;
}
/** A check of a value (of type T for one type's keywords); with st === null it answers valid/invalid, stops early. */
type Check<T = unknown> = (v: T, st: State | null, depth: number, run: Run) => boolean;
/** A pattern's test of s: undefined once the pass's work is spent, the test that spent it reporting so at `key`. */
type Match = (s: string, st: State | null, run: Run, key?: string) => boolean | undefined;
/** A compiled schema object; reached again when compiling meets it twice (a $ref target, an object used twice). */
type Slot = { check: Check | undefined; reachedAgain: boolean };
// memo: a slot per compiled schema object; shared: the objects whose checks remember verdicts; dynamic: the checks of
// each resource's $dynamicAnchors; linear: patterns must compile to the linear-time matcher (false: checkSchema).
interface Ctx {
  refs: Refs;
  memo: Map<Obj, Slot>;
  shared: Set<Obj> | undefined;
  dynamic: Map<Obj, Map<string, Check>>;
  linear: boolean;
}

/** A shared node's verdict on one value: valid; invalid (found by the first pass); its issues already collected. */
const [VALID, INVALID, REPORTED] = [1, 2, 3];
const MAX_ISSUES = 20;
/** How many levels below the root a schema follows a value (docs/api.md, Registration, "Deep values"). */
const MAX_DEPTH = 512;
const TOO_DEEP = `is nested more than ${MAX_DEPTH} levels deep`;
const TOO_COSTLY = "is too costly to validate within the validator's work bound";
const NO_ISSUES = Object.freeze([]) as unknown as SchemaIssue[];
const IDENT = /^[A-Za-z_$][\w$]*$/;
const TYPE_TESTS: { [type: string]: (v: unknown) => boolean } = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => isPlainObject(v),
};
const COMPARE: { [op: string]: (a: number, b: number) => boolean } = {
  '>=': (a, b) => a >= b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '<': (a, b) => a < b,
};
// [keyword, operator, draft-04 boolean keyword that turns the bound exclusive]
const BOUNDS = [
  ['minimum', '>=', 'exclusiveMinimum'],
  ['maximum', '<=', 'exclusiveMaximum'],
  ['exclusiveMinimum', '>', ''],
  ['exclusiveMaximum', '<', ''],
];
// [keyword, value type, unit, plural unit]
const SIZES = [
  ['minLength', 'string', 'character'],
  ['maxLength', 'string', 'character'],
  ['minItems', 'array', 'item'],
  ['maxItems', 'array', 'item'],
  ['minProperties', 'object', 'property', 'properties'],
  ['maxProperties', 'object', 'property', 'properties'],
];

const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
const plural = (n: number, unit: string, units = `${unit}s`): string => `${n} ${n === 1 ? unit : units}`;
/** Asked after a failure: test mode needs no more work, and collect mode stops once the cap is reached. */
const stop = (st: State | null): boolean => st === null || st.issues.length >= MAX_ISSUES;
/** Accepts anything: the check of `true` and `{}`, and the pattern test of a schema that is only checked. */
const ALWAYS = (): boolean => true;
const PASS: Check = ALWAYS;
const REJECT: Check = (_v, st) => report(st, 'is not allowed');

/** What compiling a schema may use besides it: other documents by their absolute URI, for $ref (never fetched). */
export type SchemaOptions = { schemas?: Record<string, object> | undefined };

/** Compiles a schema, or throws a TypeError naming the place of what it cannot use; valid values get one frozen []. */
export function compileSchema(schema: JsonSchema, options: SchemaOptions = {}): (value: unknown) => SchemaIssue[] {
  // Only the objects the first compilation reached twice remember verdicts: the others cost no time or stack for it.
  const { refs, memo } = firstPass(schema, options, true);
  const shared = new Set([...memo].filter(([, slot]) => slot.reachedAgain).map(([s]) => s));
  const ctx: Ctx = { refs, memo: new Map(), shared, dynamic: new Map(), linear: true };
  const root = isPlainObject(schema) ? entering(schema, compileNode(ctx, schema, '#')) : compileNode(ctx, schema, '#');
  const outermost: Scope = { resources: [], next: new Map(), dynamic: new Map() };
  return (value) => {
    // Only invalid values are walked again, tracking paths, to collect issues.
    const run: Run = { work: { left: WORK_BUDGET }, scope: outermost, evaluated: null };
    // A spent budget refuses the value even where a cut test counted as a pass (under `not`).
    if (root(value, null, 0, run) && run.work.left >= 0) return NO_ISSUES;
    const st: State = { path: [], issues: [] };
    run.work.left = WORK_BUDGET; // the first pass's cut left no path: this one finds it again
    root(value, st, 0, run);
    if (st.issues.length === 0) report(st, TOO_COSTLY); // every cut test was where no path is tracked
    return st.issues;
  };
}

/** Throws as compileSchema does, but a pattern need only be valid syntax: a Standard Schema's export checks its own. */
export function checkSchema(schema: JsonSchema, options: SchemaOptions = {}): void {
  firstPass(schema, options, false);
}

/** Compiles the schema once, remembering at every object: checks it and finds the objects reached twice. */
function firstPass(schema: JsonSchema, options: SchemaOptions, linear: boolean): Ctx {
  if (!isSchema(schema)) throw new TypeError('schema must be an object or a boolean');
  const refs = createRefs(schema, options.schemas ?? {});
  const first: Ctx = { refs, memo: new Map(), shared: undefined, dynamic: new Map(), linear };
  compileNode(first, schema, '#');
  refs.assertDescends(first.memo.keys());
  return first;
}

/** formatPath('arguments', ['a', 0, 'b c']) -> 'arguments.a[0]["b c"]'; a key past 128 characters is cut (…). */
export function formatPath(root: string, path: (string | number)[]): string {
  let out = root;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (seg.length > 128) out += `[${JSON.stringify(`${seg.slice(0, 128)}…`)}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Records an issue at the current path (below it at `key`) unless in test mode or at the cap; always false. */
function report(st: State | null, message: string, key?: string | number): false {
  if (st !== null && st.issues.length < MAX_ISSUES) {
    const path = st.path.slice();
    if (key !== undefined) path.push(key);
    st.issues.push({ path, message });
  }
  return false;
}

/** Applies a check to the child `v` at `key`, one level deeper, refusing past MAX_DEPTH; its annotations are its own. */
function descend(check: Check, v: unknown, st: State | null, depth: number, key: string | number, run: Run): boolean {
  if (check === PASS) return true;
  if (depth >= MAX_DEPTH) return report(st, TOO_DEEP, key);
  const outer = run.evaluated;
  run.evaluated = null;
  st?.path.push(key);
  const ok = check(v, st, depth + 1, run);
  st?.path.pop();
  run.evaluated = outer;
  return ok;
}

/** Records that an in-place keyword evaluated the member `key` of the value, when an unevaluated* keyword asks. */
function mark(run: Run, key: string | number): void {
  if (run.evaluated !== null) (run.evaluated.keys ??= new Set()).add(key);
}

/** Adds what `from` evaluated to `into`: a valid subschema's annotations reach the schema applying it. */
function merge(into: Evaluated, from: Evaluated): void {
  into.all ||= from.all;
  into.upTo = Math.max(into.upTo, from.upTo);
  for (const key of from.keys ?? []) (into.keys ??= new Set()).add(key);
}

/** Runs check in place with its own annotations, kept if it passes; if none are asked, callers spare this frame. */
function apart(check: Check, v: unknown, d: number, run: Run, outer: Evaluated): boolean {
  const own: Evaluated = { all: false, upTo: 0, keys: undefined };
  run.evaluated = own;
  const ok = check(v, null, d, run);
  run.evaluated = outer;
  if (ok) merge(outer, own);
  return ok;
}

/** All of the checks, each run after a failure too (its issues are collected) until stop(). */
function every<T>(all: Check<T>[]): Check<T> {
  const checks = all.filter((check) => check !== PASS);
  if (checks.length === 0) return PASS;
  if (checks.length === 1) return checks[0];
  return (v, st, d, run) => {
    let ok = true;
    for (let i = 0; i < checks.length; i++) {
      ok = checks[i](v, st, d, run) && ok;
      if (!ok && stop(st)) return false;
    }
    return ok;
  };
}

/** The check of a schema found at `loc`; a schema object met again (a $ref target, a reused object) shares it. */
function compileNode(ctx: Ctx, s: unknown, loc: string): Check {
  if (s === true) return PASS;
  if (s === false) return REJECT;
  if (!isPlainObject(s)) bad(loc, 'a schema must be an object or a boolean');
  const known = ctx.memo.get(s);
  if (known !== undefined) {
    known.reachedAgain = true;
    // A remembering check exists before its children are compiled, so a recursive $ref gets it at once.
    return known.check as Check;
  }
  const node = ctx.shared === undefined || ctx.shared.has(s) ? { inner: PASS } : undefined;
  const slot: Slot = { check: node && remembered(node), reachedAgain: false };
  ctx.memo.set(s, slot);
  const resource = ctx.refs.resourceOf(s);
  if (resource === s) dynamicAnchors(ctx, s);
  // A resource whose metaschema leaves out the validation vocabulary only applies (annotates with) the others.
  const kws = ctx.refs.validates(resource) ? s : Object.fromEntries(Object.entries(s).filter(applying));
  const checks: Check[] = [];
  compileValues(ctx, kws, loc, checks);
  checks.push(compileArray(ctx, kws, loc), compileObject(ctx, kws, loc));
  compileApplicators(ctx, s, loc, checks);
  let check = compileUnevaluated(ctx, s, loc, every(checks));
  // A document's root is entered by whatever reaches it (the validator, a $ref); an embedded resource, here.
  if (resource === s && !ctx.refs.isDocument(s)) check = entering(s, check);
  if (node === undefined) return (slot.check = check);
  node.inner = check;
  return slot.check as Check;
}

/** Compiles the $dynamicAnchors of a resource, once: a $dynamicRef may pick them while the resource is in scope. */
function dynamicAnchors(ctx: Ctx, resource: Obj): void {
  if (ctx.dynamic.has(resource)) return;
  const checks = new Map<string, Check>();
  ctx.dynamic.set(resource, checks);
  for (const [name, s] of ctx.refs.dynamicAnchors(resource)) {
    checks.set(name, entering(resource, compileNode(ctx, s, `#${name}`)));
  }
}

/** The check run with `resource` added to the dynamic scope (if not in it yet) while it runs. */
function entering(resource: Obj, check: Check): Check {
  if (check === PASS) return PASS;
  return (v, st, d, run) => {
    const outer = run.scope;
    if (!outer.resources.includes(resource)) {
      let next = outer.next.get(resource);
      if (next === undefined) {
        next = { resources: [...outer.resources, resource], next: new Map(), dynamic: new Map() };
        outer.next.set(resource, next);
      }
      run.scope = next;
    }
    const ok = check(v, st, d, run);
    run.scope = outer;
    return ok;
  };
}

/** The node's checks, then unevaluated*, which see what those (and valid in-place subschemas) evaluated as they ran. */
function compileUnevaluated(ctx: Ctx, s: Obj, loc: string, checks: Check): Check {
  const props = compileKw(ctx, s, 'unevaluatedProperties', loc);
  const items = compileKw(ctx, s, 'unevaluatedItems', loc);
  if (props === undefined && items === undefined) return checks;
  return (v, st, d, run) => {
    const rest = Array.isArray(v) ? items : isPlainObject(v) ? props : undefined;
    if (rest === undefined) return checks(v, st, d, run);
    const outer = run.evaluated;
    const own: Evaluated = { all: false, upTo: 0, keys: undefined };
    run.evaluated = own;
    let ok = checks(v, st, d, run);
    if (!own.all && (ok || !stop(st))) {
      const keys: (string | number)[] = Array.isArray(v) ? Array.from(v.keys()) : Object.keys(v as Obj);
      const what = Array.isArray(v) ? 'item' : 'property';
      for (const k of keys) {
        if ((typeof k === 'number' && k < own.upTo) || own.keys?.has(k)) continue;
        ok =
          (rest === REJECT
            ? report(st, `must not have unevaluated ${what}`, k)
            : descend(rest, (v as Obj)[k], st, d, k, run)) && ok;
        if (!ok && stop(st)) break;
      }
    }
    // Even when it fails: only in place (allOf, $ref) do annotations reach another schema, which then fails too,
    // so this only keeps the issues of the collecting pass to their cause.
    run.evaluated = outer;
    if (outer !== null) outer.all = true;
    return ok;
  };
}

/**
 * A shared node's check, judging each object or array once per pass: else alternatives recursing through one node (a
 * oneOf of two recursive shapes, an allOf of two $refs to it) take time exponential in the value's depth.
 */
function remembered(node: { inner: Check }): Check {
  const check: Check = (v, st, d, run) => {
    if (!isComposite(v)) return node.inner(v, st, d, run);
    // A $dynamicRef below may resolve differently in another dynamic scope, so verdicts are kept per scope.
    let byCheck = (run.verdicts ??= new Map()).get(run.scope);
    if (byCheck === undefined) run.verdicts.set(run.scope, (byCheck = new Map()));
    let seen = byCheck.get(check);
    if (seen === undefined) byCheck.set(check, (seen = new Map()));
    const known = seen.get(v);
    const verdict = typeof known === 'number' ? known : known?.verdict;
    const evaluated = typeof known === 'number' ? undefined : known?.evaluated;
    const outer = run.evaluated;
    // A verdict found without annotations is found once more when an unevaluated* keyword asks for them.
    if (verdict !== undefined && (outer === null || evaluated !== undefined || verdict !== VALID)) {
      if (verdict === VALID) {
        if (outer !== null) merge(outer, evaluated as Evaluated);
        return true;
      }
      // An invalid value is walked once more to collect its issues (st set), and only once.
      if (verdict === REPORTED || st === null) return false;
    }
    const own: Evaluated | undefined = outer === null ? undefined : { all: false, upTo: 0, keys: undefined };
    run.evaluated = own ?? null;
    const ok = node.inner(v, st, d, run);
    run.evaluated = outer;
    if (own !== undefined) merge(outer as Evaluated, own); // kept even when it fails, as in compileUnevaluated
    const found = ok ? VALID : st === null ? INVALID : REPORTED;
    // A bare number unless annotations were asked for: most validations allocate nothing per value here.
    seen.set(v, own === undefined ? found : { verdict: found, evaluated: own });
    return ok;
  };
  return check;
}

/** A check of membership in `values` under JSON equality: scalars by a Set, objects and arrays by their ids. */
function memberOf(values: unknown[], message: string): Check {
  const scalars = new Set(values.filter((x) => !isComposite(x)));
  const composites = values.filter(isComposite);
  return (v, st, _d, run) => {
    if (!isComposite(v) || composites.length === 0) return scalars.has(v) || report(st, message);
    const ids = (run.ids ??= new JsonIds());
    const id = ids.of(v);
    return composites.some((c) => ids.of(c) === id) || report(st, message);
  };
}

/** Whether two items are equal (JSON equality): fewer distinct scalars and ids of objects and arrays than items. */
function hasDuplicate(items: unknown[], run: Run): boolean {
  // One pass that stops at the first duplicate, allocating nothing per item (bench/results.md, uniqueItems).
  const scalars = new Set<unknown>();
  const composites = new Set<number>();
  for (const x of items) {
    const seen = isComposite(x) ? composites : scalars;
    const key = isComposite(x) ? (run.ids ??= new JsonIds()).of(x) : x;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** The keywords on the value itself: type, enum, const, numeric bounds, sizes and pattern. */
function compileValues(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  if (s.type !== undefined) {
    const types: unknown[] = Array.isArray(s.type) ? s.type : [s.type];
    if (types.length === 0 || !types.every((t) => typeof t === 'string' && Object.hasOwn(TYPE_TESTS, t))) {
      bad(loc, `type must be one of ${Object.keys(TYPE_TESTS).join(', ')} or a non-empty array of them`);
    }
    const tests = types.map((t) => TYPE_TESTS[t as string]);
    const message = `must be ${types.join(' or ')}`;
    checks.push((v, st) => {
      for (let i = 0; i < tests.length; i++) if (tests[i]!(v)) return true; // a loop: no closure per value
      return report(st, message);
    });
  }
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum)) bad(loc, 'enum must be an array');
    checks.push(memberOf(s.enum, 'must be one of the allowed values'));
  }
  if (Object.hasOwn(s, 'const')) checks.push(memberOf([s.const], 'must be equal to the constant'));
  for (const [kw, op, draft4] of BOUNDS) {
    const limit = typeof s[kw] === 'boolean' ? undefined : numberKw(s, kw, loc, false);
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
    const matches = regex(ctx, s.pattern, 'pattern', loc);
    const message = `must match pattern ${s.pattern}`;
    checks.push((v, st, _d, run) => {
      if (typeof v !== 'string') return true;
      const hit = matches(v, st, run);
      return hit === false ? report(st, message) : hit === true;
    });
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

/** The keywords on an array's items: prefixItems/items (draft-07 items/additionalItems), uniqueItems, contains. */
function compileArray(ctx: Ctx, s: Obj, loc: string): Check {
  const own: Check<unknown[]>[] = [];
  // Draft-07 array-form items are prefixItems, and additionalItems then plays the role of items.
  const itemsIsList = Array.isArray(s.items);
  const prefix = compileList(ctx, s, s.prefixItems !== undefined || !itemsIsList ? 'prefixItems' : 'items', loc) ?? [];
  const rest = compileKw(ctx, s, itemsIsList ? 'additionalItems' : 'items', loc);
  if (prefix.length > 0 || rest !== undefined) {
    const restCheck = rest ?? PASS;
    own.push((v, st, d, run) => {
      let ok = true;
      const n = rest === undefined ? Math.min(v.length, prefix.length) : v.length;
      if (run.evaluated !== null) {
        run.evaluated.upTo = Math.max(run.evaluated.upTo, n);
        run.evaluated.all ||= rest !== undefined;
      }
      for (let i = 0; i < n; i++) {
        ok = descend(i < prefix.length ? prefix[i] : restCheck, v[i], st, d, i, run) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  if (s.uniqueItems !== undefined && typeof s.uniqueItems !== 'boolean') bad(loc, 'uniqueItems must be a boolean');
  if (s.uniqueItems === true) {
    own.push((v, st, _d, run) => !hasDuplicate(v, run) || report(st, 'must not have duplicate items'));
  }
  const contains = compileKw(ctx, s, 'contains', loc);
  if (contains !== undefined) {
    const least = numberKw(s, 'minContains', loc, true) ?? 1;
    const most = numberKw(s, 'maxContains', loc, true);
    own.push((v, st, d, run) => {
      let n = 0;
      for (let i = 0; i < v.length; i++) {
        if (descend(contains, v[i], null, d, i, run)) {
          n++;
          mark(run, i); // the items contains matched are evaluated (2020-12 core, 10.3.1.3)
        }
      }
      if (n < least) return report(st, `must contain at least ${plural(least, 'matching item')}`);
      return most === undefined || n <= most || report(st, `must contain at most ${plural(most, 'matching item')}`);
    });
  }
  const all = every(own);
  return all === PASS ? PASS : (v, st, d, run) => !Array.isArray(v) || all(v, st, d, run);
}

/** The keywords on an object's members: the properties keywords, propertyNames, required and the dependencies. */
function compileObject(ctx: Ctx, s: Obj, loc: string): Check {
  const props = compileMap(ctx, s, 'properties', loc);
  const own = props.map(property);
  const patterns = compileMap(ctx, s, 'patternProperties', loc);
  const matchers = patterns.map(([p]) => regex(ctx, p, 'patternProperties', loc));
  const declared = new Set(props.map(([k]) => k));
  const extra = compileKw(ctx, s, 'additionalProperties', loc);
  const names = compileKw(ctx, s, 'propertyNames', loc);
  if (matchers.length > 0 || extra !== undefined || names !== undefined) {
    // One pass over the value's own keys serves propertyNames, patternProperties and additionalProperties.
    own.push((v, st, d, run) => {
      let ok = true;
      for (const k of Object.keys(v)) {
        if (names !== undefined && !names(k, null, d, run)) ok = report(st, 'is not a valid property name', k);
        let matched = declared.has(k);
        for (let i = 0; i < matchers.length; i++) {
          const hit = matchers[i](k, st, run, k);
          if (hit === false) continue;
          matched = true; // a key too costly to test is not also an additional property
          mark(run, k);
          ok = hit === true && descend(patterns[i][1], v[k], st, d, k, run) && ok;
        }
        if (!matched && extra !== undefined) mark(run, k);
        if (!matched && extra === REJECT) ok = report(st, 'must not have additional property', k);
        else if (!matched && extra !== undefined) ok = descend(extra, v[k], st, d, k, run) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  // Draft-07 "dependencies" mixes both forms: an array of names is dependentRequired, a schema dependentSchemas.
  if (s.required !== undefined) own.push(requireAll(strings(s.required, 'required', loc), 'is required'));
  for (const kw of ['dependentRequired', 'dependentSchemas', 'dependencies']) {
    const map = s[kw];
    if (map === undefined) continue;
    if (!isPlainObject(map)) bad(loc, `${kw} must be an object`);
    for (const [k, dep] of Object.entries(map)) {
      let check: Check<Obj>;
      if (kw !== 'dependentSchemas' && Array.isArray(dep)) {
        check = requireAll(strings(dep, kw, loc), `is required when ${JSON.stringify(k)} is present`);
      } else if (kw !== 'dependentRequired') check = compileNode(ctx, dep, `${loc}/${kw}/${escapeToken(k)}`);
      else bad(loc, 'dependentRequired values must be arrays of strings');
      own.push((v, st, d, run) => !Object.hasOwn(v, k) || check(v, st, d, run));
    }
  }
  const all = every(own);
  return all === PASS ? PASS : (v, st, d, run) => !isPlainObject(v) || all(v, st, d, run);
}

/** The check of one declared property, applied when the object has it. */
function property([k, check]: [string, Check]): Check<Obj> {
  return (v, st, d, run) => {
    if (!Object.hasOwn(v, k)) return true;
    mark(run, k);
    return descend(check, v[k], st, d, k, run);
  };
}

/** Reports each of `names` the object lacks, with `message`. */
function requireAll(names: string[], message: string): Check<Obj> {
  return (v, st) => {
    let ok = true;
    for (const name of names) {
      if (Object.hasOwn(v, name)) continue;
      ok = report(st, message, name);
      if (stop(st)) return false;
    }
    return ok;
  };
}

/** The in-place applicators: $ref, $dynamicRef, allOf, anyOf, oneOf, not, if/then/else. */
function compileApplicators(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  for (const kw of ['$ref', '$dynamicRef'] as const) if (s[kw] !== undefined) checks.push(compileRef(ctx, s, kw, loc));
  checks.push(every(compileList(ctx, s, 'allOf', loc) ?? []));
  for (const kw of ['anyOf', 'oneOf']) {
    const subs = compileList(ctx, s, kw, loc);
    if (subs === undefined) continue;
    // anyOf can stop at the first match (unless every match's annotations are asked for); oneOf looks for a second.
    const any = kw === 'anyOf';
    const message = `must match ${any ? 'at least' : 'exactly'} one schema in ${kw}`;
    checks.push((v, st, d, run) => {
      let n = 0;
      const enough = !any ? 2 : run.evaluated === null ? 1 : subs.length;
      for (let i = 0; i < subs.length && n < enough; i++) {
        const outer = run.evaluated;
        if (outer === null ? subs[i](v, null, d, run) : apart(subs[i], v, d, run, outer)) n++;
      }
      return n === 1 || (any && n > 1) || report(st, message);
    });
  }
  const not = compileKw(ctx, s, 'not', loc);
  if (not !== undefined) {
    checks.push((v, st, d, run) => {
      const outer = run.evaluated; // a valid not subschema fails its parent, so its annotations are never kept
      run.evaluated = null;
      const ok = !not(v, null, d, run);
      run.evaluated = outer;
      return ok || report(st, 'must not match the schema in not');
    });
  }
  if (s.if !== undefined) {
    // Without then/else, if only annotates: it runs only when an unevaluated* keyword asks what it evaluated.
    const cond = compileNode(ctx, s.if, `${loc}/if`);
    const then = compileKw(ctx, s, 'then', loc) ?? PASS;
    const otherwise = compileKw(ctx, s, 'else', loc) ?? PASS;
    checks.push((v, st, d, run) => {
      if (then === PASS && otherwise === PASS && run.evaluated === null) return true;
      const outer = run.evaluated;
      const passes = outer === null ? cond(v, null, d, run) : apart(cond, v, d, run, outer);
      return passes ? then(v, st, d, run) : otherwise(v, st, d, run);
    });
  }
}

/**
 * The check of s.$ref or s.$dynamicRef; the latter, if its target carries the $dynamicAnchor its fragment names, takes
 * that anchor from the outermost resource in the dynamic scope that has it (2020-12 core, 8.2.3.2).
 */
function compileRef(ctx: Ctx, s: Obj, kw: '$ref' | '$dynamicRef', loc: string): Check {
  const { target, resource, dynamic } = ctx.refs.resolve(s, kw, loc);
  const check = compileNode(ctx, target, s[kw] as string);
  if (resource === undefined) return check; // true or false: no resource to enter
  dynamicAnchors(ctx, resource);
  // A $ref within its own resource finds that resource in scope already: no frame is spent entering it.
  const fallback = resource === ctx.refs.resourceOf(s) ? check : entering(resource, check);
  if (dynamic === undefined) return fallback;
  return (v, st, d, run) => {
    const { scope } = run;
    let check = scope.dynamic.get(dynamic);
    if (check === undefined) {
      const outermost = scope.resources.find((r) => ctx.dynamic.get(r)?.has(dynamic));
      if (outermost === undefined) return fallback(v, st, d, run);
      check = ctx.dynamic.get(outermost)?.get(dynamic) as Check;
      scope.dynamic.set(dynamic, check);
    }
    return check(v, st, d, run);
  };
}

/** The schema of keyword kw, compiled; undefined when absent. */
function compileKw(ctx: Ctx, s: Obj, kw: string, loc: string): Check | undefined {
  return s[kw] === undefined ? undefined : compileNode(ctx, s[kw], `${loc}/${kw}`);
}

/** The entries of the object of schemas s[kw], compiled (none when absent). */
function compileMap(ctx: Ctx, s: Obj, kw: string, loc: string): [string, Check][] {
  const map = s[kw] === undefined ? {} : s[kw];
  if (!isPlainObject(map)) bad(loc, `${kw} must be an object`);
  return Object.keys(map).map((k) => [k, compileNode(ctx, map[k], `${loc}/${kw}/${escapeToken(k)}`)]);
}

/** The list of schemas s[kw], compiled; undefined when absent. */
function compileList(ctx: Ctx, s: Obj, kw: string, loc: string): Check[] | undefined {
  const list = s[kw];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) bad(loc, `${kw} must be an array of schemas`);
  return list.map((sub, i) => compileNode(ctx, sub, `${loc}/${kw}/${i}`));
}

/** The number s[kw] (a count: a non-negative integer); undefined when absent. */
function numberKw(s: Obj, kw: string, loc: string, count: boolean): number | undefined {
  const x = s[kw];
  if (x === undefined) return undefined;
  if (typeof x !== 'number' || !Number.isFinite(x)) bad(loc, `${kw} must be a number`);
  if (count && (!Number.isInteger(x) || x < 0)) bad(loc, `${kw} must be a non-negative integer`);
  return x;
}

/** A copy of x, an array of strings. */
function strings(x: unknown, kw: string, loc: string): string[] {
  if (!Array.isArray(x) || !x.every((e) => typeof e === 'string')) bad(loc, `${kw} must be an array of strings`);
  return x.slice();
}

/** A pattern compiled by regex.ts, linear in the string it tests; a pattern it refuses is named with its place. */
function regex(ctx: Ctx, pattern: string, kw: string, loc: string): Match {
  let test: PatternTest;
  try {
    test = compilePattern(pattern);
  } catch (error) {
    // checkSchema's schemas are never run here: a refused pattern is still valid JSON Schema, a syntax error is not.
    if (!ctx.linear && !(error instanceof SyntaxError)) return ALWAYS;
    bad(loc, `${kw} ${JSON.stringify(pattern)} ${(error as Error).message}`);
  }
  const costly = `is too costly to match ${kw} ${pattern} within the validator's work bound`;
  return (s, st, run, key) => {
    const left = run.work.left;
    const hit = test(s, run.work);
    // Only the test that spent the budget is named; those after it, refused unstarted, add nothing.
    if (hit === undefined && left >= 0) report(st, costly, key);
    return hit;
  };
}

// References and JSON equality: schema resources (base URIs, anchors), $ref resolution, the check that $ref cycles
// descend into the value, and ids of JSON values. Never fetches a URI, never recurses into values.

type Obj = { [key: string]: unknown };
type Refs = ReturnType<typeof createRefs>;

// Keywords whose values are schemas, lists of schemas, or (MAP_KWS) objects whose values are schemas; those of
// IN_PLACE_KWS apply to the value itself, those of CHILD_KWS to its members.
const MAP_KWS = ['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies'];
const IN_PLACE_KWS = ['not', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas', 'dependencies'];
const CHILD_KWS = ['additionalProperties', 'propertyNames', 'items', 'prefixItems', 'additionalItems', 'contains'];
const SCHEMA_KWS = [...MAP_KWS, ...IN_PLACE_KWS, ...CHILD_KWS, 'if', 'then', 'else', 'unevaluatedProperties'];
SCHEMA_KWS.push('unevaluatedItems');
/** The base URI of a root schema without $id: relative references resolve against it, and name no document. */
const NO_BASE = 'mcp-core:/schema';
const VALIDATION_VOCAB = 'https://json-schema.org/draft/2020-12/vocab/validation';
// The validation vocabulary's keywords (2020-12 validation, 6), which a metaschema without it leaves out.
const VALIDATION_KWS = new Set(
  (
    'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern maxItems ' +
    'minItems uniqueItems maxContains minContains maxProperties minProperties required dependentRequired'
  ).split(' '),
);

const isSchema = (v: unknown): v is Obj | boolean => typeof v === 'boolean' || isPlainObject(v);
const isComposite = (v: unknown): v is object => typeof v === 'object' && v !== null;
const applying = ([kw]: [string, unknown]): boolean => !VALIDATION_KWS.has(kw);

/** Throws the TypeError of a schema the validator cannot use, naming its place. */
function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

/** The absolute URI `ref` names from `base`, without an empty fragment; undefined when it is no URI reference. */
function absolute(ref: string, base: string): string | undefined {
  try {
    const href = new URL(ref, base).href;
    return href.endsWith('#') ? href.slice(0, -1) : href;
  } catch {
    return undefined;
  }
}

/** The resources of a root schema and of the documents of `registry` (by absolute URI) it reaches, indexed lazily. */
function createRefs(root: Obj | boolean, registry: Record<string, unknown>) {
  const documents = new Map<string, Obj>();
  for (const [uri, doc] of Object.entries(registry)) {
    const key = URL.canParse(uri) ? absolute(uri, uri) : undefined;
    if (key === undefined || key.includes('#')) throw new TypeError(`schemas: "${uri}" is not an absolute URI`);
    if (!isPlainObject(doc)) throw new TypeError(`schemas: "${uri}" must be a schema object`);
    documents.set(key, doc);
  }
  /** Schemas by URI: resources by their absolute URI, anchors as URI#name. */
  const uris = new Map<string, Obj>();
  const bases = new Map<Obj, string>();
  const resources = new Map<Obj, Obj>();
  const roots = new Set<Obj>();
  const dynamic = new Map<Obj, Map<string, Obj>>();
  /** Each resource's metaschema leaves out the validation vocabulary (2020-12 core, 8.1.2). */
  const unvalidated = new Set<Obj>();
  const targets = new Map<Obj, unknown[]>();
  const dynamicRefs = new Map<Obj, string>();

  const name = (uri: string, s: Obj, loc: string) => {
    const known = uris.get(uri);
    if (known === undefined || known === s) return uris.set(uri, s);
    bad(loc, uri.includes('#') ? `duplicate anchor "${uri.slice(uri.indexOf('#') + 1)}"` : `duplicate $id "${uri}"`);
  };
  /** Indexes s and the schemas below it in the resource `resource` (undefined: s is a document's root) at `base`. */
  const index = (s: unknown, base: string, resource: Obj | undefined, loc: string): void => {
    if (!isPlainObject(s) || bases.has(s)) return;
    if (resource === undefined) roots.add(s);
    if (resource === undefined) name(base, s, loc);
    // An $id that is only a fragment is a draft-07 anchor; any other one starts an embedded resource.
    const own = typeof s.$id === 'string' ? s.$id : '#';
    const anchor = typeof s.$anchor === 'string' ? s.$anchor : own.slice(1);
    if (!own.startsWith('#')) {
      const id = absolute(own, base);
      if (id === undefined) bad(loc, `$id "${own}" is not a URI reference`);
      base = id;
      name(base, s, loc);
      resource = s;
    }
    resource ??= s;
    if (resource === s) {
      dynamic.set(s, new Map());
      const meta = typeof s.$schema === 'string' ? documents.get(absolute(s.$schema, base) ?? '') : undefined;
      const vocab = isPlainObject(meta) && isPlainObject(meta.$vocabulary) ? meta.$vocabulary : undefined;
      if (vocab !== undefined && !Object.hasOwn(vocab, VALIDATION_VOCAB)) unvalidated.add(s);
    }
    bases.set(s, base);
    resources.set(s, resource);
    if (anchor !== '') name(`${base}#${anchor}`, s, loc);
    if (typeof s.$dynamicAnchor === 'string') {
      name(`${base}#${s.$dynamicAnchor}`, s, loc);
      dynamic.get(resource)?.set(s.$dynamicAnchor, s);
    }
    for (const [sub, at] of subschemas(s, SCHEMA_KWS, loc)) index(sub, base, resource, at);
  };
  index(root, NO_BASE, undefined, '#');
  return {
    /** The resource s belongs to. */
    resourceOf: (s: Obj): Obj => resources.get(s) as Obj,
    /** Whether s is the root of a document (the schema's own or a registered one), not an embedded resource. */
    isDocument: (s: Obj): boolean => roots.has(s),
    /** The $dynamicAnchors of a resource, by name. */
    dynamicAnchors: (resource: Obj): Map<string, Obj> => dynamic.get(resource) as Map<string, Obj>,
    /** Whether the resource's metaschema (if registered) keeps the validation vocabulary. */
    validates: (resource: Obj): boolean => !unvalidated.has(resource),
    /** The schema s[kw] points to, its resource, and `dynamic`: the $dynamicAnchor a $dynamicRef's target carries. */
    resolve(s: Obj, kw: '$ref' | '$dynamicRef', loc: string) {
      const ref = s[kw];
      if (typeof ref !== 'string') bad(loc, `${kw} must be a string`);
      const uri = absolute(ref, bases.get(s) as string);
      if (uri === undefined) bad(loc, `${kw} "${ref}" is not a URI reference`);
      const hash = uri.includes('#') ? uri.indexOf('#') : uri.length;
      const doc = uri.slice(0, hash);
      let frag: string;
      try {
        frag = decodeURIComponent(uri.slice(hash + 1));
      } catch {
        bad(loc, `${kw} "${ref}" has invalid percent-encoding`);
      }
      if (!uris.has(doc) && documents.has(doc)) index(documents.get(doc), doc, undefined, doc);
      const res = uris.get(doc);
      if (res === undefined) {
        const where = doc.startsWith(NO_BASE.slice(0, 9)) || ref.startsWith(doc) ? '' : ` (${doc})`;
        bad(loc, `${kw} "${ref}" points outside this schema${where} and the schemas option has no such document`);
      }
      let target: unknown = res;
      let base = bases.get(res) as string;
      if (frag.startsWith('/')) {
        // A pointer may cross an $id into an embedded resource, or end where no keyword led the index.
        for (const raw of frag.slice(1).split('/')) {
          const tok = raw.replace(/~1/g, '/').replace(/~0/g, '~');
          if (Array.isArray(target) && /^(0|[1-9]\d*)$/.test(tok)) target = target[Number(tok)];
          else if (isPlainObject(target) && Object.hasOwn(target, tok)) target = target[tok];
          else target = undefined;
          if (isPlainObject(target)) base = bases.get(target) ?? base;
        }
        index(target, base, resources.get(res), loc);
      } else if (frag !== '') target = uris.get(`${doc}#${frag}`);
      if (!isSchema(target)) bad(loc, `${kw} "${ref}" cannot be resolved`);
      targets.set(s, [...(targets.get(s) ?? []), target]);
      if (typeof target === 'boolean') return { target, resource: undefined, dynamic: undefined };
      const dynamic = kw === '$dynamicRef' && target.$dynamicAnchor === frag ? frag : undefined;
      if (dynamic !== undefined) dynamicRefs.set(s, dynamic);
      return { target, resource: resources.get(target) as Obj, dynamic };
    },
    /** Rejects cycles of $ref/in-place applicators that never step into a child value: they would recurse forever. */
    assertDescends(schemas: Iterable<Obj>): void {
      // A $dynamicRef may reach any $dynamicAnchor of its name.
      for (const [s, anchor] of dynamicRefs) {
        for (const anchors of dynamic.values()) if (anchors.has(anchor)) targets.get(s)?.push(anchors.get(anchor));
      }
      const colors = new Map<Obj, number>();
      for (const s of schemas) visit(s, targets, colors);
    },
  };
}

/** The values of s's keywords among `keywords`, lists and maps of schemas spread, each with its place below loc. */
function subschemas(s: Obj, keywords: string[], loc: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  for (const kw of keywords) {
    const x = s[kw];
    if (Array.isArray(x)) for (const [i, sub] of x.entries()) out.push([sub, `${loc}/${kw}/${i}`]);
    else if (MAP_KWS.includes(kw) && isPlainObject(x)) {
      for (const k of Object.keys(x)) out.push([x[k], `${loc}/${kw}/${escapeToken(k)}`]);
    } else out.push([x, `${loc}/${kw}`]);
  }
  return out;
}

/** Depth-first search over in-place edges; colors: 1 = on the current path (so a cycle), 2 = known acyclic. */
function visit(s: Obj, targets: Map<Obj, unknown[]>, colors: Map<Obj, number>): void {
  const color = colors.get(s);
  if (color === 2) return;
  if (color === 1) throw new TypeError('invalid schema: a $ref cycle never descends into the value');
  colors.set(s, 1);
  const next = [...subschemas(s, IN_PLACE_KWS, '').map(([n]) => n), ...(targets.get(s) ?? []), s.if, s.then, s.else];
  for (const n of next) if (isPlainObject(n)) visit(n, targets, colors);
  colors.set(s, 2);
}

const OPEN = -1;

/**
 * Ids of JSON values under JSON equality (2020-12 core: members in any order, 1 and 1.0 one value) for enum, const and
 * uniqueItems: each object or array numbered once from its members and children's ids, without recursion (linear at
 * any depth). One instance per validation: it remembers every value it numbered.
 */
class JsonIds {
  #ids = new Map<object, number>();
  #shapes = new Map<string, number>();
  #cycles = 0;

  /** The id of an object or array. */
  of(root: object): number {
    const pending: object[] = [root];
    while (pending.length > 0) {
      const node = pending[pending.length - 1]!;
      const id = this.#ids.get(node);
      const before = pending.length;
      const children = id !== undefined ? [] : Array.isArray(node) ? node : Object.values(node);
      for (const child of children) if (isComposite(child) && !this.#ids.has(child)) pending.push(child);
      if (pending.length > before) {
        this.#ids.set(node, OPEN); // numbered once the children above it on the stack are
      } else {
        pending.pop();
        // OPEN: its children have been numbered since (or are its ancestors: a cycle), so it can be numbered.
        if (id === undefined || id === OPEN) this.#ids.set(node, this.#number(node));
      }
    }
    return this.#ids.get(root)!;
  }

  /** The node's shape (members with children as ids; object keys sorted), numbered by first appearance. */
  #number(node: object): number {
    // Built by concatenation, not map/join: this runs once per object of a value (bench/results.md, enum and const).
    let shape: string;
    if (Array.isArray(node)) {
      shape = '[';
      for (let i = 0; i < node.length; i++) shape += `${i > 0 ? ',' : ''}${this.#member(node[i])}`;
    } else {
      shape = '{';
      for (const key of Object.keys(node).sort()) {
        shape += `${shape.length > 1 ? ',' : ''}${key.length}:${key}=${this.#member((node as Obj)[key])}`;
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
