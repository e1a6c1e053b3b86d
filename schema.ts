// JSON Schema validation (2020-12 semantics, tolerant of draft-07/04) compiled once into closures: $ref (JSON pointers,
// anchors) inside the root schema, JSON equality for enum/const/uniqueItems, a capped issue list with paths. Never
// mutates a schema or value, recurses at most MAX_DEPTH levels into a value, takes time linear in the value (a shared
// node judges each object once per pass), and refuses a value its patterns cannot test within WORK_BUDGET (regex.ts).

import { isPlainObject } from './jsonrpc.ts';
import { compilePattern, type PatternTest, WORK_BUDGET, type Work } from './regex.ts';

export type JsonSchema = { [key: string]: unknown } | boolean;
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}
/** Returns a shared frozen empty array when the value is valid, so callers must not mutate the result. */
export type Validator = (value: unknown) => SchemaIssue[];

/** Where a collecting pass is in the value, and the issues it found. */
type State = { path: (string | number)[]; issues: SchemaIssue[] };
/** What one validation (both passes) has learnt: shared nodes' verdicts and value ids; its patterns' work left. */
interface Run {
  verdicts: Map<Check, Map<object, number>> | undefined;
  ids: JsonIds | undefined;
  work: Work;
}
/** A check of a value (of type T for one type's keywords); with st === null it answers valid/invalid, stops early. */
type Check<T = unknown> = (v: T, st: State | null, depth: number, run: Run) => boolean;
/** A pattern's test of s: undefined once the pass's work is spent, the test that spent it reporting so at `key`. */
type Match = (s: string, st: State | null, run: Run, key?: string) => boolean | undefined;
/** A compiled schema object; reached again when compiling meets it twice (a $ref target, an object used twice). */
type Slot = { check: Check | undefined; reachedAgain: boolean };
/** memo holds one slot per compiled schema object; shared the objects whose checks remember their verdicts. */
interface Ctx {
  refs: Refs;
  memo: Map<Obj, Slot>;
  shared: Set<Obj> | undefined;
  /** Whether patterns must compile to the linear-time matcher (false: checkSchema, syntax only). */
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

/** Compiles a schema into its validator, or throws a TypeError naming the place of what it cannot use. */
export function compileSchema(schema: JsonSchema): Validator {
  // The first compilation finds the schema objects reached more than once; the second compiles those, and only
  // those, to remember their verdicts (remembered()), so the others cost nothing extra, in time or stack.
  const { refs, memo } = firstPass(schema, true);
  const shared = new Set([...memo].filter(([, slot]) => slot.reachedAgain).map(([s]) => s));
  const root = compileNode({ refs, memo: new Map(), shared, linear: true }, schema, '#');
  return (value) => {
    // Valid values are checked once without tracking paths; only invalid ones are walked again to collect issues.
    const run: Run = { verdicts: undefined, ids: undefined, work: { left: WORK_BUDGET } };
    // A spent budget refuses the value even where a test it cut counted as a pass (under `not`): no verdict is
    // trusted that a cut test could have changed.
    if (root(value, null, 0, run) && run.work.left >= 0) return NO_ISSUES;
    const st: State = { path: [], issues: [] };
    // The second pass has its own budget: the first one's cut left no path, and this one finds it again.
    run.work.left = WORK_BUDGET;
    root(value, st, 0, run);
    if (st.issues.length === 0) report(st, TOO_COSTLY); // every cut test was where no path is tracked
    return st.issues;
  };
}

/**
 * Throws as compileSchema does on a schema it cannot use, except that a pattern need only be valid syntax: for a
 * schema that is listed but validated by another library (a Standard Schema's export, whose patterns may use the
 * lookarounds regex.ts refuses, as zod's hostname and emoji do).
 */
export function checkSchema(schema: JsonSchema): void {
  firstPass(schema, false);
}

/** Compiles the schema once, remembering at every object: checks it and finds the objects reached twice. */
function firstPass(schema: JsonSchema, linear: boolean): Ctx {
  if (!isSchema(schema)) throw new TypeError('schema must be an object or a boolean');
  const refs = createRefs(schema);
  const first: Ctx = { refs, memo: new Map(), shared: undefined, linear };
  compileNode(first, schema, '#');
  refs.assertDescends(first.memo.keys());
  return first;
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

/** Records an issue at the current path (below it at `key`) unless in test mode or at the cap; always false. */
function report(st: State | null, message: string, key?: string | number): false {
  if (st !== null && st.issues.length < MAX_ISSUES) {
    const path = st.path.slice();
    if (key !== undefined) path.push(key);
    st.issues.push({ path, message });
  }
  return false;
}

/** Applies a check to the child `v` at `key`, one level deeper, refusing past MAX_DEPTH. */
function descend(check: Check, v: unknown, st: State | null, depth: number, key: string | number, run: Run): boolean {
  if (check === PASS) return true;
  if (depth >= MAX_DEPTH) return report(st, TOO_DEEP, key);
  if (st === null) return check(v, null, depth + 1, run);
  st.path.push(key);
  const ok = check(v, st, depth + 1, run);
  st.path.pop();
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
  // The first compilation remembers everywhere: it only has to find the objects reached twice.
  const node = ctx.shared === undefined || ctx.shared.has(s) ? { inner: PASS } : undefined;
  const slot: Slot = { check: node && remembered(node), reachedAgain: false };
  ctx.memo.set(s, slot);
  const checks: Check[] = [];
  compileValues(ctx, s, loc, checks);
  checks.push(compileArray(ctx, s, loc), compileObject(ctx, s, loc));
  compileApplicators(ctx, s, loc, checks);
  if (node === undefined) return (slot.check = every(checks));
  node.inner = every(checks);
  return slot.check as Check;
}

/**
 * The check of a shared schema node: it judges each object or array once per pass and reuses the verdict.
 * Without this, alternatives that recurse through one node (a oneOf of two recursive shapes, an allOf of two
 * $refs to it) judge each level's children once per alternative: time exponential in the value's depth.
 */
function remembered(node: { inner: Check }): Check {
  const check: Check = (v, st, d, run) => {
    if (!isComposite(v)) return node.inner(v, st, d, run);
    run.verdicts ??= new Map();
    let seen = run.verdicts.get(check);
    if (seen === undefined) run.verdicts.set(check, (seen = new Map()));
    const known = seen.get(v);
    if (known === VALID) return true;
    // An invalid value is walked once more to collect its issues (st set), and only once.
    if (known === REPORTED || (known === INVALID && st === null)) return false;
    const ok = node.inner(v, st, d, run);
    seen.set(v, ok ? VALID : st === null ? INVALID : REPORTED);
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

/** Whether two items are equal (JSON equality): one pass, scalars in a Set and objects and arrays by their ids. */
function hasDuplicate(items: unknown[], run: Run): boolean {
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
      for (let i = 0; i < tests.length; i++) if (tests[i](v)) return true;
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
      for (let i = 0; i < v.length; i++) if (descend(contains, v[i], null, d, i, run)) n++;
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
          ok = hit === true && descend(patterns[i][1], v[k], st, d, k, run) && ok;
        }
        if (!matched && extra === REJECT) ok = report(st, 'must not have additional property', k);
        else if (!matched && extra !== undefined) ok = descend(extra, v[k], st, d, k, run) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  // Each dependency applies only when its key is present. Draft-07 "dependencies" mixes both forms: an array of
  // names means dependentRequired, a schema means dependentSchemas.
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
  return (v, st, d, run) => !Object.hasOwn(v, k) || descend(check, v[k], st, d, k, run);
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

/** The in-place applicators: $ref, allOf, anyOf, oneOf, not, if/then/else. */
function compileApplicators(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  if (s.$ref !== undefined) checks.push(compileNode(ctx, ctx.refs.resolve(s, loc), s.$ref as string));
  checks.push(every(compileList(ctx, s, 'allOf', loc) ?? []));
  for (const kw of ['anyOf', 'oneOf']) {
    const subs = compileList(ctx, s, kw, loc);
    if (subs === undefined) continue;
    // anyOf can stop at the first match; oneOf must look for a second one.
    const enough = kw === 'anyOf' ? 1 : 2;
    const message = `must match ${kw === 'anyOf' ? 'at least' : 'exactly'} one schema in ${kw}`;
    checks.push((v, st, d, run) => {
      let n = 0;
      for (let i = 0; i < subs.length && n < enough; i++) if (subs[i](v, null, d, run)) n++;
      return n === 1 || report(st, message);
    });
  }
  const not = compileKw(ctx, s, 'not', loc);
  if (not !== undefined) {
    checks.push((v, st, d, run) => !not(v, null, d, run) || report(st, 'must not match the schema in not'));
  }
  if (s.if !== undefined && (s.then !== undefined || s.else !== undefined)) {
    const cond = compileNode(ctx, s.if, `${loc}/if`);
    const then = compileKw(ctx, s, 'then', loc) ?? PASS;
    const otherwise = compileKw(ctx, s, 'else', loc) ?? PASS;
    checks.push((v, st, d, run) => (cond(v, null, d, run) ? then(v, st, d, run) : otherwise(v, st, d, run)));
  }
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

// References and JSON equality: $anchor collection, $ref resolution (JSON pointers, anchors) within one root schema,
// the check that $ref cycles descend into the value, and ids of JSON values. Never recurses into values.

type Obj = { [key: string]: unknown };
type Refs = ReturnType<typeof createRefs>;

// Keywords whose values are schemas, lists of schemas, or (MAP_KWS) objects whose values are schemas; those of
// IN_PLACE_KWS apply to the value itself, those of CHILD_KWS to its members.
const MAP_KWS = ['$defs', 'definitions', 'properties', 'patternProperties', 'dependentSchemas', 'dependencies'];
const IN_PLACE_KWS = ['not', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas', 'dependencies'];
const CHILD_KWS = ['additionalProperties', 'propertyNames', 'items', 'prefixItems', 'additionalItems', 'contains'];
const SCHEMA_KWS = [...MAP_KWS, ...IN_PLACE_KWS, ...CHILD_KWS, 'if', 'then', 'else'];

const isSchema = (v: unknown): v is Obj | boolean => typeof v === 'boolean' || isPlainObject(v);
const isComposite = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** Throws the TypeError of a schema the validator cannot use, naming its place. */
function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

/** $ref resolution for one root schema; resolve() records each $ref's target for assertDescends(). */
function createRefs(root: Obj | boolean) {
  const id = isPlainObject(root) && typeof root.$id === 'string' ? root.$id : '';
  const rootId = id.split('#')[0];
  const anchors = new Map<string, Obj>();
  collectAnchors(root, anchors, new Set());
  const targets = new Map<Obj, Obj | boolean>();
  return {
    /** The schema that s.$ref points to; loc names s in errors. */
    resolve(s: Obj, loc: string): Obj | boolean {
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
    /** Rejects cycles of $ref/in-place applicators that never step into a child value: they would recurse forever. */
    assertDescends(schemas: Iterable<Obj>): void {
      const colors = new Map<Obj, number>();
      for (const s of schemas) visit(s, targets, colors);
    },
  };
}

/** Collects the anchors of every schema object below s, refusing a duplicate. */
function collectAnchors(s: unknown, anchors: Map<string, Obj>, seen: Set<Obj>): void {
  if (!isPlainObject(s) || seen.has(s)) return;
  seen.add(s);
  // Draft-07 spells an anchor as an $id that is only a fragment.
  const fragment = typeof s.$id === 'string' && s.$id.startsWith('#') ? s.$id.slice(1) : undefined;
  const anchor = typeof s.$anchor === 'string' ? s.$anchor : fragment;
  if (anchor !== undefined) {
    if (anchors.has(anchor)) throw new TypeError(`invalid schema: duplicate anchor "${anchor}"`);
    anchors.set(anchor, s);
  }
  for (const sub of subschemas(s, SCHEMA_KWS)) collectAnchors(sub, anchors, seen);
}

/** The values of s's keywords among `keywords`, lists and maps of schemas spread. */
function subschemas(s: Obj, keywords: string[]): unknown[] {
  const out: unknown[] = [];
  for (const kw of keywords) {
    const x = s[kw];
    if (Array.isArray(x)) out.push(...x);
    else if (MAP_KWS.includes(kw) && isPlainObject(x)) out.push(...Object.values(x));
    else out.push(x);
  }
  return out;
}

/** The value a JSON pointer (RFC 6901) names in root, undefined when there is none. */
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
 * Ids of JSON values under JSON Schema equality (2020-12 core, instance equality: members in any order, numbers by
 * value, so 1 and 1.0 are one value), which uniqueItems, enum and const compare instead of walking values. Each object
 * or array is numbered once, from its members and its children's ids, without recursion: time linear in its size at
 * any depth. Remembers every value it numbered, so one instance serves one validation.
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
