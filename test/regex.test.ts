// The linear-time pattern matcher (regex.ts, docs/api.md, Registration, "Patterns"): it answers exactly as the native
// `new RegExp(pattern, 'u').test(s)` on every pattern it accepts (per feature, and on seeded random patterns and
// strings), refuses lookarounds, backreferences and oversized programs with the reason, and answers patterns that
// backtrack exponentially or polynomially on the native engine over megabyte strings (these tests finish), and
// stops a test whose uncached steps outrun the caller's work (WORK_BUDGET), the same way every time.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePattern, MAX_PROGRAM, WORK_BUDGET } from '../regex.ts';

/** One validation's work (WORK_BUDGET): every test below but the budget's own answers within it. */
const budget = () => ({ left: WORK_BUDGET });

/**
 * What ECMA-262 answers (RegExpBuiltinExec): a match starts only where a code point does. V8 also tries an empty
 * match between the two halves of a surrogate pair (`/\\B/u.exec('a😀a').index` is 2), so a match found there is
 * set aside and the search goes on after the pair.
 */
function specTest(native: RegExp, s: string): boolean {
  for (let from = 0; ; ) {
    native.lastIndex = from;
    const found = native.exec(s);
    if (found === null) return false;
    const at = found.index;
    if (!(at > 0 && at < s.length && /[\uD800-\uDBFF]/.test(s[at - 1]!) && /[\uDC00-\uDFFF]/.test(s[at]!))) return true;
    from = at + 1;
  }
}

/** Asserts that the matcher and the native RegExp (as the specification reads it) agree on every string. */
function agrees(pattern: string, strings: string[]): void {
  const native = new RegExp(pattern, 'gu');
  const matches = compilePattern(pattern);
  for (const s of strings)
    assert.equal(matches(s, budget()), specTest(native, s), `${pattern} on ${JSON.stringify(s)}`);
}

const SAMPLES = [
  '',
  'a',
  'b',
  'ab',
  'ba',
  'aab',
  'abc',
  'a b',
  'A_1',
  'é',
  '😀',
  '\uD83D',
  '\uDE00a',
  'a\nb',
  'x.y',
  '-',
];

test('literals, dot, classes and escapes match one code point each, as the native RegExp does', () => {
  for (const pattern of [
    'a',
    'ab',
    '^ab$',
    'a.b',
    '^.$',
    '.',
    '[ab]+',
    '[^ab]+',
    '[a-c]*x',
    '[]?a',
    '[^]+',
    '[\\]a]+',
    '\\d+',
    '\\D+',
    '\\w+',
    '\\W+',
    '\\s+',
    '\\S+',
    '\\p{L}+',
    '\\P{Ll}+',
    '\\p{Script=Latin}+',
    '\\u0061+',
    '\\u{1F600}+',
    '\\uD83D\\uDE00+',
    '\\uD83D+',
    '\\x62+',
    '\\cJ+',
    '\\n+',
    '\\0?a',
    '\\.+',
    '\\/?a',
    '[\\-]?',
    '😀+',
    'é+',
    '[😀é]+',
  ]) {
    agrees(pattern, SAMPLES);
  }
});

test('anchors, word boundaries, groups, alternation and every quantifier agree with the native RegExp', () => {
  for (const pattern of [
    '^a*$',
    '^$',
    'a$',
    '^(a|b)+$',
    '\\ba',
    'a\\b',
    '\\Ba',
    'a\\B',
    '\\b',
    '\\B',
    '(?:ab)+',
    '(?<name>a)(?<other>b)?',
    'a|b|',
    '|a',
    '^(?:a|ab)(?:c|bcd)?$',
    'a{2}',
    'a{1,2}b',
    'a{0,}b',
    'a{2,}',
    'a{0}b',
    'a*?b',
    'a+?',
    'a??b',
    'a{1,2}?',
    '(a*)*b',
    '(a|)*b',
    '(\\b)+a',
    '(^a)*b',
    '(?:$)*',
    '^(?:a?){3}a{3}$',
    '\\B[^a]*',
    '\\p{Lu}?\\B',
  ]) {
    agrees(pattern, [...SAMPLES, 'aaa', 'aaab', 'aabcd', 'abcd', 'aaaaaa', 'a😀a', 'b😀1 _']);
  }
});

test('patterns that backtrack on the native engine answer on megabyte strings', () => {
  const a = 'a'.repeat(1 << 20);
  assert.equal(compilePattern('^(a+)+$')(`${'a'.repeat(30)}!`, budget()), false);
  assert.equal(compilePattern('^(a+)+$')(`${a}!`, budget()), false);
  assert.equal(compilePattern('^(a+)+$')(a, budget()), true);
  assert.equal(compilePattern('^a*a*a*a*b$')(a, budget()), false);
  assert.equal(compilePattern('a+b')(a, budget()), false);
  assert.equal(compilePattern('(a|a)*b')(a, budget()), false);
  assert.equal(compilePattern('(\\w|\\d)+$')(`${'1'.repeat(1 << 16)} `, budget()), false);
  assert.equal(compilePattern('^[^"]*$')('é'.repeat(1 << 18), budget()), true);
});

test('a pattern whose states outgrow the cache still answers exactly, and the next test starts afresh', () => {
  // [ab]*a[ab]{12}c needs a state per 13-letter suffix: thousands, more than the cache holds.
  let seed = 7;
  const text = Array.from({ length: 20_000 }, () => ((seed = (seed * 48271) % 0x7fffffff) % 2 === 0 ? 'a' : 'b'));
  const s = text.join('');
  const matches = compilePattern('[ab]*a[ab]{12}c');
  assert.equal(matches(s, budget()), false);
  assert.equal(matches(`${s}c`, budget()), /[ab]*a[ab]{12}c/u.test(`${s}c`));
  assert.equal(matches(`${s.slice(0, 100)}é${s.slice(100, 200)}c`, budget()), true);
});

/** 1 MiB on which ^.*x[a-z]{1,63}!$ keeps a different set of threads after nearly every code point. */
function thrashing(): string {
  let seed = 11;
  const letter = () => ((seed = (seed * 48271) % 0x7fffffff) % 8 === 0 ? 'x' : 'abcdefgh'[seed % 8]!);
  return Array.from({ length: 1 << 20 }, letter).join('');
}

test('a test that outgrows the cache on every code point is cut by the work budget: the same cut every time, and the cache stays exact', () => {
  const matches = compilePattern('^.*x[a-z]{1,63}!$');
  const hostile = thrashing();
  const first = budget();
  assert.equal(matches(hostile, first), undefined);
  const second = budget();
  assert.equal(matches(hostile, second), undefined);
  assert.equal(second.left, first.left); // the same steps paid, to the unit
  assert.ok(first.left < 0);
  // Unbounded, the same test answers (and the cut left nothing half-built in the cache).
  assert.equal(matches(hostile, { left: Infinity }), false);
  agrees('^.*x[a-z]{1,63}!$', [
    'xab!',
    'ax!',
    `${hostile.slice(0, 5000)}!`,
    `x${'a'.repeat(63)}!`,
    `x${'a'.repeat(64)}!`,
  ]);
  for (const s of ['xab!', `${hostile.slice(0, 5000)}xa!`, 'xa']) {
    assert.equal(matches(s, budget()), /^.*x[a-z]{1,63}!$/u.test(s));
  }
  // A spent budget refuses every later test that needs an uncached step, and answers those the cache knows.
  assert.equal(matches('xab!', budget()), true);
  const spent = { left: -1 };
  assert.equal(matches('xab!', spent), true);
  assert.equal(matches(`${hostile.slice(0, 5000)}!`, spent), undefined);
});

test('the work budget is shared by every test it is passed to: strings each within it are cut once together over it', () => {
  const matches = compilePattern('^.*x[a-z]{1,63}!$');
  const hostile = thrashing();
  const parts = Array.from({ length: 256 }, (_, i) => hostile.slice(i * 4096, (i + 1) * 4096));
  for (const part of parts) assert.equal(matches(part, budget()), false);
  const work = budget();
  const answers = parts.map((part) => matches(part, work));
  assert.deepEqual(answers.slice(0, 4), [false, false, false, false]);
  assert.equal(answers.at(-1), undefined);
});

test('a step pays for the instructions its closure walks, not only for its threads: one thread behind 2 000 empty alternatives', () => {
  const chain = compilePattern('(?:|){995}a');
  // The step on é costs 64 + 16 for its one thread, which 100 units pay, but its closure walks the whole chain.
  const short = { left: 100 };
  assert.equal(chain('é', short), undefined);
  assert.ok(short.left < -1000, `left ${short.left}`);
  // The cut step left nothing in the cache: the same step is paid again, and answers once it can be.
  const again = budget();
  assert.equal(chain('é', again), false);
  assert.ok(WORK_BUDGET - again.left > 2000, `spent ${WORK_BUDGET - again.left}`);
  assert.equal(chain('éa', budget()), true);
});

test('counted repetition of a group that compiles to nothing costs nothing at registration, and matches the empty string', {
  timeout: 30_000,
}, () => {
  // Copied out, (?:(?:){100000}){100000} was 10^10 copies of nothing: about 50 s of registration (one more level:
  // days). The timeout only turns that hang into a failure; it measures nothing.
  for (const pattern of ['(?:(?:){100000}){100000}', '(?:(?:(?:){10000}){10000}){10000}', '^(?:a{0}){100000}b$'])
    agrees(pattern, SAMPLES);
});

test('a long pattern without quantifiers runs on the matcher, not on the native RegExp that tries it at every position', () => {
  agrees(`${'[ab]'.repeat(40)}[^ab]`, [...SAMPLES, `${'ab'.repeat(20)}c`, `${'ab'.repeat(19)}c`]);
  // The native RegExp tries 200 atoms at each of a million positions; the matcher caches its states after 200
  // (the native RegExp spends no work: the matcher's spending shows which one ran).
  const work = budget();
  assert.equal(compilePattern(`${'[ab]'.repeat(200)}[^ab]`)('a'.repeat(1 << 20), work), false);
  assert.ok(work.left < WORK_BUDGET);
  // Up to 32 atoms the native RegExp still runs: at most 32 steps per position.
  const short = budget();
  assert.equal(compilePattern(`${'[ab]'.repeat(31)}[^ab]`)('a'.repeat(1 << 10), short), false);
  assert.equal(short.left, WORK_BUDGET);
});

test('lookarounds, backreferences, group modifiers and oversized programs are refused with the reason', () => {
  const cases: [string, RegExp][] = [
    ['^(?=.*\\d)', /^uses "\(\?=", a lookaround or group modifier, which has no linear-time matcher$/],
    ['(?!a)b', /^uses "\(\?!", a lookaround/],
    ['(?<=a)b', /^uses "\(\?<=", a lookaround/],
    ['(?<!a)b', /^uses "\(\?<!", a lookaround/],
    ['(a)\\1', /^uses a backreference, which has no linear-time matcher$/],
    ['(?<x>a)\\k<x>', /^uses a backreference/],
    ['a{2001}', new RegExp(`^compiles to more than ${MAX_PROGRAM} instructions`)],
    ['(a{50}){50}', /^compiles to more than/],
    [`${'('.repeat(101)}a${')'.repeat(101)}*`, /^nests groups more than 100 deep$/],
  ];
  for (const [pattern, message] of cases) {
    assert.throws(() => compilePattern(pattern), { name: 'TypeError', message }, pattern);
  }
  // What the native parser refuses is a SyntaxError: checkSchema tells the two apart.
  for (const pattern of ['(', 'a{2,1}', '\\p{Nope}', 'a**']) {
    assert.throws(() => compilePattern(pattern), { name: 'SyntaxError', message: 'is not a valid regular expression' });
  }
  // Lookarounds are refused even where the native RegExp would have run them without backtracking.
  assert.throws(() => compilePattern('(?=a)'), /lookaround/);
  // A runtime whose RegExp has modifiers (Node 23 and later) parses them; they are refused all the same.
  assert.throws(() => compilePattern('(?i:a)'), /not a valid regular expression|group modifier/);
});

test('a pattern without quantifier, alternation or word boundary is tested as written, by the native RegExp', () => {
  agrees('', SAMPLES);
  agrees('^a(b)[^c]$', [...SAMPLES, 'ab ', 'abd']);
  agrees('(?<x>\\p{L})\\d$', ['a1', '1a', 'é9']);
});

// Seeded differential fuzzing: random patterns from a small grammar (every construct the matcher accepts) against
// random strings over an alphabet that exercises classes, word boundaries, line terminators and surrogates.
const ATOMS = [
  'a',
  'b',
  'é',
  '😀',
  '.',
  '[ab]',
  '[^a]',
  '[a-c_]',
  '\\d',
  '\\w',
  '\\W',
  '\\s',
  '\\p{Lu}',
  '\\P{L}',
  '\\u0062',
  '\\u{1F600}',
  '\\uD83D',
  '\\x61',
  '\\.',
  '[\\s\\S]',
];
const ASSERTIONS = ['^', '$', '\\b', '\\B'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '*?', '+?', '{1,3}?'];
const ALPHABET = ['a', 'b', 'c', 'A', '_', '1', ' ', '\n', '.', 'é', '😀', '\uD83D', '\uDE00'];

function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 48271) % 0x7fffffff;
    return state % n;
  };
}

function generate(pick: (n: number) => number, depth: number, names: { n: number }): string {
  const terms = pick(4);
  let out = '';
  for (let i = 0; i < terms; i++) {
    const kind = pick(depth > 2 ? 4 : 6);
    if (kind === 0) {
      out += ASSERTIONS[pick(ASSERTIONS.length)];
      continue;
    }
    let atom = ATOMS[pick(ATOMS.length)]!;
    if (kind >= 4) {
      const alts = Array.from({ length: 1 + pick(3) }, () => generate(pick, depth + 1, names)).join('|');
      atom = [`(${alts})`, `(?:${alts})`, `(?<g${names.n++}>${alts})`][pick(3)]!;
    }
    out += atom + QUANTIFIERS[pick(QUANTIFIERS.length)];
  }
  return out;
}

test('seeded differential fuzzing: random patterns and strings, answered as the native RegExp answers', () => {
  const pick = random(20_261_206);
  let compared = 0;
  for (let p = 0; p < 1500; p++) {
    const pattern = generate(pick, 0, { n: 0 });
    const strings = Array.from({ length: 12 }, () =>
      Array.from({ length: pick(10) }, () => ALPHABET[pick(ALPHABET.length)]).join(''),
    );
    agrees(pattern, strings);
    compared += strings.length;
  }
  assert.equal(compared, 18_000);
});
