// JSON Schema validation (2020-12 semantics, tolerant of draft-07/04): a schema compiled once into closures, with $ref
// resolution (JSON pointers, anchors) inside the root schema and JSON equality for enum/const/uniqueItems, and the
// issue list (capped) with paths. Never mutates a schema or value, recurses at most MAX_DEPTH levels into a value,
// and takes time linear in the value for a given schema (a shared node judges each object once per pass; patterns
// never backtrack, and spend at most regex.ts's WORK_BUDGET per pass: a value past it is refused).

import { isPlainObject } from './jsonrpc.ts';
import { compilePattern, type PatternTest, WORK_BUDGET, type Work } from './regex.ts';

export type JsonSchema = { [key: string]: unknown } | boolean;
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}
/** Returns a shared frozen empty array when the value is valid, so callers must not mutate the result. */
export type Validator = (value: unknown) => SchemaIssue[];

interface State {
  path: (string | number)[];
  issues: SchemaIssue[];
}
/**
 * What one validation (both passes) has learnt: shared nodes' verdicts per object or array, and value ids; and
 * what its patterns may still spend in the current pass (regex.ts, WORK_BUDGET).
 */
interface Run {
  verdicts: Map<Check, Map<object, Verdict>> | undefined;
  ids: JsonIds | undefined;
  work: Work;
}
/** With st === null a check only answers valid/invalid and stops at the first failure (anyOf, not, if, ...). */
type Check = (v: unknown, st: State | null, depth: number, run: Run) => boolean;
/** A compiled schema object; reached again when compiling meets it a second time (a $ref target, an object used twice). */
interface Slot {
  check: Check | undefined;
  reachedAgain: boolean;
}
/** memo holds one slot per compiled schema object; shared the objects whose checks remember their verdicts. */
interface Ctx {
  refs: Refs;
  memo: Map<Obj, Slot>;
  shared: Set<Obj> | undefined;
  /** Whether patterns must compile to the linear-time matcher (false: checkSchema, syntax only). */
  linear: boolean;
}
/** A shared node's verdict on one value: valid; invalid (found by the first pass); its issues already collected. */
type Verdict = typeof VALID | typeof INVALID | typeof REPORTED;

const VALID = 1;
const INVALID = 2;
const REPORTED = 3;
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

function report(st: State | null, message: string, key?: string | number): false {
  if (st !== null && st.issues.length < MAX_ISSUES) {
    const path = st.path.slice();
    if (key !== undefined) path.push(key);
    st.issues.push({ path, message });
  }
  return false;
}

function descend(check: Check, v: unknown, st: State | null, depth: number, key: string | number, run: Run): boolean {
  if (check === PASS) return true;
  if (depth >= MAX_DEPTH) return report(st, TOO_DEEP, key);
  if (st === null) return check(v, null, depth + 1, run);
  st.path.push(key);
  const ok = check(v, st, depth + 1, run);
  st.path.pop();
  return ok;
}

function every(checks: Check[]): Check {
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
  compileArray(ctx, s, loc, checks);
  compileObject(ctx, s, loc, checks);
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

/** A test of membership in `values` under JSON equality: scalars by a Set, objects and arrays by their ids. */
function memberOf(values: unknown[]): (v: unknown, run: Run) => boolean {
  const scalars = new Set(values.filter((x) => !isComposite(x)));
  const composites = values.filter(isComposite);
  return (v, run) => {
    if (!isComposite(v)) return scalars.has(v);
    if (composites.length === 0) return false;
    const ids = (run.ids ??= new JsonIds());
    const id = ids.of(v);
    return composites.some((c) => ids.of(c) === id);
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
    const allowed = memberOf(s.enum);
    checks.push((v, st, _d, run) => allowed(v, run) || report(st, 'must be one of the allowed values'));
  }
  if (Object.hasOwn(s, 'const')) {
    const constant = memberOf([s.const]);
    checks.push((v, st, _d, run) => constant(v, run) || report(st, 'must be equal to the constant'));
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
    const re = regex(ctx, s.pattern, 'pattern', loc);
    const message = `must match pattern ${s.pattern}`;
    const costly = `is too costly to match pattern ${s.pattern} within the validator's work bound`;
    checks.push((v, st, _d, run) => {
      if (typeof v !== 'string') return true;
      const left = run.work.left;
      const matched = re(v, run.work);
      if (matched !== undefined) return matched || report(st, message);
      // Only the test that spent the budget is named; those after it, refused unstarted, add nothing.
      return left < 0 ? false : report(st, costly);
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

function compileArray(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  // Draft-07 array-form items are prefixItems, and additionalItems then plays the role of items.
  const itemsIsList = Array.isArray(s.items);
  const prefix = compileList(ctx, s, s.prefixItems !== undefined || !itemsIsList ? 'prefixItems' : 'items', loc) ?? [];
  const restKw = itemsIsList ? 'additionalItems' : 'items';
  const rest = s[restKw] === undefined ? undefined : compileNode(ctx, s[restKw], `${loc}/${restKw}`);
  if (prefix.length > 0 || rest !== undefined) {
    const restCheck = rest ?? PASS;
    checks.push((v, st, d, run) => {
      if (!Array.isArray(v)) return true;
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
    checks.push(
      (v, st, _d, run) => !Array.isArray(v) || !hasDuplicate(v, run) || report(st, 'must not have duplicate items'),
    );
  }
  if (s.contains !== undefined) {
    const contains = compileNode(ctx, s.contains, `${loc}/contains`);
    const least = numberKw(s, 'minContains', loc, true) ?? 1;
    const most = numberKw(s, 'maxContains', loc, true);
    checks.push((v, st, d, run) => {
      if (!Array.isArray(v)) return true;
      let n = 0;
      for (let i = 0; i < v.length; i++) if (descend(contains, v[i], null, d, i, run)) n++;
      if (n < least) return report(st, `must contain at least ${plural(least, 'matching item')}`);
      return most === undefined || n <= most || report(st, `must contain at most ${plural(most, 'matching item')}`);
    });
  }
}

function compileObject(ctx: Ctx, s: Obj, loc: string, checks: Check[]): void {
  const props = compileMap(ctx, s, 'properties', loc);
  if (props !== undefined) {
    checks.push((v, st, d, run) => {
      if (!isPlainObject(v)) return true;
      let ok = true;
      for (let i = 0; i < props.keys.length; i++) {
        const k = props.keys[i];
        ok = (!Object.hasOwn(v, k) || descend(props.checks[i], v[k], st, d, k, run)) && ok;
        if (!ok && stop(st)) return false;
      }
      return ok;
    });
  }
  const patterns = compileMap(ctx, s, 'patternProperties', loc);
  const regexes = patterns?.keys.map((p) => regex(ctx, p, 'patternProperties', loc)) ?? [];
  const patternKeys = patterns?.keys ?? [];
  const patternChecks = patterns?.checks ?? [];
  const declared = new Set(props?.keys);
  const extra =
    s.additionalProperties === undefined
      ? undefined
      : compileNode(ctx, s.additionalProperties, `${loc}/additionalProperties`);
  const names = s.propertyNames === undefined ? undefined : compileNode(ctx, s.propertyNames, `${loc}/propertyNames`);
  if (patterns !== undefined || extra !== undefined || names !== undefined) {
    // One pass over the value's own keys serves propertyNames, patternProperties and additionalProperties.
    checks.push((v, st, d, run) => {
      if (!isPlainObject(v)) return true;
      let ok = true;
      for (const k of Object.keys(v)) {
        if (names !== undefined && !names(k, null, d, run)) ok = report(st, 'is not a valid property name', k);
        let matched = declared.has(k);
        for (let i = 0; i < regexes.length; i++) {
          const left = run.work.left;
          const hit = regexes[i](k, run.work);
          if (hit === false) continue;
          matched = true; // a key too costly to test is not also an additional property
          if (hit === undefined) {
            ok =
              left < 0
                ? false
                : report(
                    st,
                    `is too costly to match patternProperties ${patternKeys[i]} within the validator's work bound`,
                    k,
                  );
          } else ok = descend(patternChecks[i], v[k], st, d, k, run) && ok;
        }
        if (!matched && extra === REJECT) ok = report(st, 'must not have additional property', k);
        else if (!matched && extra !== undefined) ok = descend(extra, v[k], st, d, k, run) && ok;
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
    if (!isPlainObject(map)) bad(loc, `${kw} must be an object`);
    for (const k of Object.keys(map)) {
      const dep = map[k];
      if (kw !== 'dependentSchemas' && Array.isArray(dep)) {
        deps.push([k, requireAll(strings(dep, kw, loc), `is required when ${JSON.stringify(k)} is present`)]);
      } else if (kw !== 'dependentRequired') deps.push([k, compileNode(ctx, dep, `${loc}/${kw}/${escapeToken(k)}`)]);
      else bad(loc, 'dependentRequired values must be arrays of strings');
    }
  }
  if (deps.length > 0) {
    checks.push((v, st, d, run) => {
      if (!isPlainObject(v)) return true;
      let ok = true;
      for (const [k, check] of deps) {
        ok = ((k !== undefined && !Object.hasOwn(v, k)) || check(v, st, d, run)) && ok;
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
    const target = ctx.refs.resolve(s, loc);
    checks.push(compileNode(ctx, target, s.$ref as string));
  }
  const all = compileList(ctx, s, 'allOf', loc);
  if (all !== undefined) checks.push(every(all));
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
  if (s.not !== undefined) {
    const not = compileNode(ctx, s.not, `${loc}/not`);
    checks.push((v, st, d, run) => !not(v, null, d, run) || report(st, 'must not match the schema in not'));
  }
  if (s.if !== undefined && (s.then !== undefined || s.else !== undefined)) {
    const cond = compileNode(ctx, s.if, `${loc}/if`);
    const then = s.then === undefined ? PASS : compileNode(ctx, s.then, `${loc}/then`);
    const otherwise = s.else === undefined ? PASS : compileNode(ctx, s.else, `${loc}/else`);
    checks.push((v, st, d, run) => (cond(v, null, d, run) ? then(v, st, d, run) : otherwise(v, st, d, run)));
  }
}

function compileMap(ctx: Ctx, s: Obj, kw: string, loc: string): { keys: string[]; checks: Check[] } | undefined {
  const map = s[kw];
  if (map === undefined) return undefined;
  if (!isPlainObject(map)) bad(loc, `${kw} must be an object`);
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

/** A pattern compiled by regex.ts, linear in the string it tests; a pattern it refuses is named with its place. */
function regex(ctx: Ctx, pattern: string, kw: string, loc: string): PatternTest {
  try {
    return compilePattern(pattern);
  } catch (error) {
    // checkSchema's schemas are never run here: a refused pattern is still valid JSON Schema, a syntax error is not.
    if (!ctx.linear && !(error instanceof SyntaxError)) return ALWAYS;
    bad(loc, `${kw} ${JSON.stringify(pattern)} ${(error as Error).message}`);
  }
}

// References and JSON equality: $anchor collection, $ref resolution (JSON pointers, anchors) within one root schema,
// the check that $ref cycles descend into the value, and ids of JSON values. Never recurses into values.

type Obj = { [key: string]: unknown };
/** $ref resolution for one root schema; resolve records each $ref's target for assertDescends. */
interface Refs {
  /** The schema that s.$ref points to; loc names s in errors. */
  resolve(s: Obj, loc: string): Obj | boolean;
  /** Rejects cycles of $ref/in-place applicators that never step into a child value: they would recurse forever. */
  assertDescends(schemas: Iterable<Obj>): void;
}

// Keywords whose values are schemas, lists of schemas, or (MAP_KWS) objects whose values are schemas.
const MAP_KWS = new Set([
  '$defs',
  'definitions',
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
]);
const IN_PLACE_KWS = ['not', 'allOf', 'anyOf', 'oneOf', 'dependentSchemas', 'dependencies'];
const SCHEMA_KWS = [
  ...MAP_KWS,
  ...IN_PLACE_KWS,
  'additionalProperties',
  'propertyNames',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'if',
  'then',
  'else',
];

const isSchema = (v: unknown): v is Obj | boolean => typeof v === 'boolean' || isPlainObject(v);
const isComposite = (v: unknown): v is object => typeof v === 'object' && v !== null;

function bad(loc: string, message: string): never {
  throw new TypeError(`invalid schema at ${loc}: ${message}`);
}

function createRefs(root: Obj | boolean): Refs {
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
  const anchor =
    typeof s.$anchor === 'string'
      ? s.$anchor
      : typeof s.$id === 'string' && s.$id.startsWith('#')
        ? s.$id.slice(1)
        : undefined;
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

/** The Standard Typed interface (Standard Schema spec v1), the base of the two below. */
