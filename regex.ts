// A linear-time matcher for JSON Schema patterns (ECMA-262 syntax, `u` flag): a pattern becomes a Thompson NFA, and
// a string is read once, every thread moved together over each code point (a Pike VM), the states met cached as a
// lazy DFA within 256 KiB. Owns each pattern's program and cache; never backtracks, never takes more than program ×
// length steps nor an uncached step its caller's work cannot pay (WORK_BUDGET), never accepts what it cannot match so.

/** Whether the pattern matches somewhere in s (as `RegExp(pattern, 'u').test(s)`); undefined once out of work. */
export type PatternTest = (s: string, work: Work) => boolean | undefined;
/** What a caller may still spend on uncached steps, shared by every test it makes; below 0 once spent. */
export type Work = { left: number };

/**
 * The work one validation pass may spend (docs/api.md, Registration, "Patterns"): an uncached step costs STEP_UNITS
 * plus one per thread it moves (WIDE_UNITS past ASCII) plus one per instruction its closures walk; a cached one
 * nothing, its bound being the body's size. All of it, on the costliest steps measured, takes 10–50 ms on 2 cores.
 */
export const WORK_BUDGET = 2 ** 21;
/** What an uncached step costs beyond its threads: deciding assertions, building and finding the next state. */
const STEP_UNITS = 64;
/** What a thread's step costs past ASCII, where a class is tested by its RegExp: a unit is an ASCII thread step. */
const WIDE_UNITS = 16;
/** The most atoms a pattern run by the native RegExp may have: it tries each at every start position. */
const NATIVE_ATOMS = 32;

/** The most instructions one pattern compiles to: a test costs at most this many steps per code point. */
export const MAX_PROGRAM = 2000;
/** How deep groups may nest (the parser and compiler recurse once per level). */
const MAX_NESTING = 100;

/** A parsed pattern: a single-code-point test, an assertion, a sequence, an alternation or a repetition. */
type Node =
  | { t: 'char'; atom: number }
  | { t: 'assert'; kind: number }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

// Instructions (CHAR's operand is a code point >= 0 or ~k, the k-th class test; SPLIT's and JMP's are targets),
// assertion kinds, what precedes a position, the code point after one (not read yet, or none), and state ids
// beyond the cached ones.
const [CHAR, SPLIT, JMP, ASSERT, MATCH] = [0, 1, 2, 3, 4];
const [START, END, BOUNDARY, NOT_BOUNDARY] = [0, 1, 2, 3];
const [AT_START, WORD, OTHER] = [0, 1, 2];
const [PENDING, END_OF_INPUT] = [-2, -1];
const [MATCHED, DEAD, UNKNOWN, UNCACHED] = [-1, -2, -3, -4];
/** How many integers one pattern's cached states and transitions may hold (256 KiB; twice that in heap). */
const CACHE_INTS = 1 << 16;

/**
 * Compiles `pattern` as JSON Schema reads it (2020-12 Validation, 6.3.3: ECMA-262, here with the `u` flag), or throws
 * an error completing "pattern <p> ...": a SyntaxError when the native parser refuses it, else a TypeError for what no
 * linear-time matcher runs (lookaround, backreference, group modifier), groups past MAX_NESTING, or a program past
 * MAX_PROGRAM. Without quantifier, alternation or \b, and within NATIVE_ATOMS atoms, the native RegExp runs it (one
 * short path per start position); any other runs on the program below.
 */
export function compilePattern(pattern: string): PatternTest {
  let native: RegExp;
  try {
    native = new RegExp(pattern, 'u');
  } catch {
    throw new SyntaxError('is not a valid regular expression');
  }
  const parser = new Parser(pattern);
  const root = parser.alternation(0);
  if (!parser.needsMatcher && parser.atoms <= NATIVE_ATOMS) return (s) => native.test(s);
  const program = new Program(parser.tests);
  program.emit(root);
  program.push(MATCH, 0, 0);
  return (s, work) => program.run(s, work);
}

/** A recursive-descent parser over a pattern the native parser has accepted, so only its shape is read here. */
class Parser {
  readonly tests: ((cp: number) => boolean)[] = [];
  /** Needs this matcher: a quantifier or alternation (native backtracking), or \b (V8 tests it in surrogate pairs). */
  needsMatcher = false;
  /** How many single-code-point atoms the pattern has (one path of the native RegExp tests each once). */
  atoms = 0;
  #i = 0;
  #byText = new Map<string, number>();
  readonly #src: string;

  constructor(src: string) {
    this.#src = src;
  }

  /** Alternatives separated by `|`, up to the end or the `)` of the group at `depth`. */
  alternation(depth: number): Node {
    if (depth > MAX_NESTING) throw new TypeError(`nests groups more than ${MAX_NESTING} deep`);
    const alts = [this.#sequence(depth)];
    while (this.#src[this.#i] === '|') {
      this.#i++;
      this.needsMatcher = true;
      alts.push(this.#sequence(depth));
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  /** One alternative: quantified atoms up to a `|` or `)`. */
  #sequence(depth: number): Node {
    const items: Node[] = [];
    while (this.#i < this.#src.length && this.#src[this.#i] !== '|' && this.#src[this.#i] !== ')') {
      // A quantifier after an assertion is a syntax error with the u flag, so one here belongs to the atom.
      items.push(this.#quantified(this.#atom(depth)));
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  /** One atom: an assertion, a group, a class, `.`, a character or an escape. */
  #atom(depth: number): Node {
    const src = this.#src;
    const start = this.#i;
    const c = src[start]!;
    if (c === '^' || c === '$') {
      this.#i++;
      return { t: 'assert', kind: c === '^' ? START : END };
    }
    if (c === '(') {
      if (src.startsWith('(?:', start)) this.#i += 3;
      else if (/^\(\?<[^=!]/.test(src.slice(start, start + 4))) this.#i = src.indexOf('>', start) + 1;
      else if (src[start + 1] === '?') {
        const head = src.slice(start, start + (src[start + 2] === '<' ? 4 : 3));
        throw new TypeError(`uses "${head}", a lookaround or group modifier, which has no linear-time matcher`);
      } else this.#i++;
      const inner = this.alternation(depth + 1);
      this.#i++; // ')'
      return inner;
    }
    if (c === '[') {
      let i = start + 1;
      while (src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
      this.#i = i + 1;
      return this.#test(src.slice(start, this.#i));
    }
    if (c === '.') {
      this.#i++;
      return this.#test('.');
    }
    if (c !== '\\') {
      const cp = src.codePointAt(start)!;
      this.#i += cp > 0xffff ? 2 : 1;
      this.atoms++;
      return { t: 'char', atom: cp };
    }
    const e = src[start + 1]!;
    if (e === 'b' || e === 'B') {
      this.#i += 2;
      this.needsMatcher = true;
      return { t: 'assert', kind: e === 'b' ? BOUNDARY : NOT_BOUNDARY };
    }
    if (/[1-9k]/.test(e)) throw new TypeError('uses a backreference, which has no linear-time matcher');
    let end = start + 2;
    if ((e === 'u' && src[end] === '{') || e === 'p' || e === 'P') end = src.indexOf('}', end) + 1;
    else if (e === 'u') end += /^[dD][89abAB]..\\u[dD][c-fC-F]/.test(src.slice(end, end + 8)) ? 10 : 4;
    else if (e === 'x') end += 2;
    else if (e === 'c') end += 1;
    this.#i = end;
    return this.#test(src.slice(start, end));
  }

  /** The atom followed by its quantifier, if any (a lazy `?` suffix matches the same strings). */
  #quantified(atom: Node): Node {
    const quantifier = /[*+?]|\{(\d+)(,(\d*))?\}/y; // sticky: read at this.#i
    quantifier.lastIndex = this.#i;
    const m = quantifier.exec(this.#src);
    if (m === null) return atom;
    this.#i += m[0].length;
    // `*`, `+` and `?` are `{0,}`, `{1,}` and `{0,1}`; `{n}` is `{n,n}`.
    const min = m[0] === '+' ? 1 : Number(m[1] ?? 0);
    const max = m[0] === '?' ? 1 : m[1] !== undefined && m[2] === undefined ? min : Number(m[3] || Infinity);
    if (this.#src[this.#i] === '?') this.#i++;
    this.needsMatcher = true;
    return { t: 'rep', node: atom, min, max };
  }

  /** A class, escape or `.`, tested on one code point by the native RegExp of that atom alone (one per text). */
  #test(text: string): Node {
    this.atoms++;
    let k = this.#byText.get(text);
    if (k === undefined) {
      k = this.tests.length;
      this.#byText.set(text, k);
      this.tests.push(text === '.' ? isNotLineTerminator : classTest(text)); // `.` without a RegExp per code point
    }
    return { t: 'char', atom: ~k };
  }
}

/** What `.` matches under the `u` flag: any code point but a line terminator. */
const isNotLineTerminator = (cp: number): boolean => cp !== 10 && cp !== 13 && cp !== 0x2028 && cp !== 0x2029;

/** A one-code-point test by the native RegExp of the atom, its answers for ASCII remembered (128 bytes). */
function classTest(text: string): (cp: number) => boolean {
  const re = new RegExp(`^${text}$`, 'u');
  const ascii = new Uint8Array(128); // 0: not asked yet, 1: no, 2: yes
  return (cp) => {
    if (cp >= 128) return re.test(String.fromCodePoint(cp));
    if (ascii[cp] === 0) ascii[cp] = re.test(String.fromCharCode(cp)) ? 2 : 1;
    return ascii[cp] === 2;
  };
}

/** \w with the u flag and no i flag: ASCII letters, digits and _. */
const isWord = (cp: number): boolean =>
  (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) || (cp >= 48 && cp <= 57) || cp === 95;
/** Whether a word boundary lies between what precedes (AT_START, WORD or OTHER) and the code point after. */
const isBoundary = (before: number, after: number): boolean => (before === WORD) !== isWord(after);

/** A compiled program (parallel arrays of opcode and two operands) and the automaton cached over it. */
class Program {
  readonly #op: number[] = [];
  readonly #x: number[] = [];
  readonly #y: number[] = [];
  readonly #tests: ((cp: number) => boolean)[];
  // The cache: state ids by key, each state's threads, what precedes it and its ASCII transitions (slot 128: the
  // answer at the end), the other code points' transitions in one map, and how many integers all that holds.
  #ids = new Map<string, number>();
  #states: { threads: number[]; before: number; ascii: Int32Array }[] = [];
  #wide = new Map<number, number>();
  #cached = 0;
  #start = UNKNOWN;
  #marks: Float64Array | undefined;
  #stack: Int32Array | undefined;
  #generation = 0;
  /** How many entries every closure so far has taken off its stack: a step's work beyond its threads' tests. */
  #visits = 0;

  constructor(tests: ((cp: number) => boolean)[]) {
    this.#tests = tests;
  }

  /** Appends an instruction, refusing one past MAX_PROGRAM; returns its address. */
  push(op: number, x: number, y: number): number {
    if (this.#op.length >= MAX_PROGRAM)
      throw new TypeError(`compiles to more than ${MAX_PROGRAM} instructions (repeat less, or with a smaller count)`);
    this.#op.push(op);
    this.#x.push(x);
    this.#y.push(y);
    return this.#op.length - 1;
  }

  /** Appends the instructions of a parsed node (Thompson's construction). */
  emit(node: Node): void {
    if (node.t === 'char') this.push(CHAR, node.atom, 0);
    else if (node.t === 'assert') this.push(ASSERT, node.kind, 0);
    else if (node.t === 'seq') for (const item of node.items) this.emit(item);
    else if (node.t === 'alt') {
      const jumps: number[] = [];
      for (let i = 0; i < node.alts.length - 1; i++) {
        const split = this.push(SPLIT, this.#op.length + 1, 0);
        this.emit(node.alts[i]!);
        jumps.push(this.push(JMP, 0, 0));
        this.#y[split] = this.#op.length;
      }
      this.emit(node.alts[node.alts.length - 1]!);
      for (const j of jumps) this.#x[j] = this.#op.length;
    } else {
      const start = this.#op.length;
      for (let i = 0; i < node.min; i++) {
        this.emit(node.node);
        // A node compiled to nothing matches only the empty string, however often: `(?:){100000}` is one copy, so
        // nested counts of an empty group (10^10 copies of nothing) cost no time at registration.
        if (this.#op.length === start) break;
      }
      if (node.max === Infinity) {
        const split = this.push(SPLIT, this.#op.length + 1, 0);
        this.emit(node.node);
        this.push(JMP, split, 0);
        this.#y[split] = this.#op.length;
        return;
      }
      // x{0,3} is (x(x(x)?)?)?: each optional copy may skip to the end.
      const splits: number[] = [];
      for (let i = node.min; i < node.max; i++) {
        splits.push(this.push(SPLIT, this.#op.length + 1, 0));
        this.emit(node.node);
      }
      for (const split of splits) this.#y[split] = this.#op.length;
    }
  }

  /**
   * Whether the program matches somewhere in s, in at most program × length steps (each instruction once per code
   * point). States and transitions are cached (a lazy DFA) within CACHE_INTS; once full, the run goes on uncached, the
   * next starts empty. Each uncached step is paid from `work` first: once spent, the run stops (undefined), only
   * complete steps cached.
   */
  run(s: string, work: Work): boolean | undefined {
    if (this.#cached > CACHE_INTS) this.#forget();
    if (this.#start === UNKNOWN) this.#start = this.#intern(this.#close([0], AT_START, PENDING), AT_START);
    let state = this.#start;
    let threads: number[] = [];
    let before = AT_START;
    for (let i = 0; state !== MATCHED && state !== DEAD && i < s.length; ) {
      const cp = s.codePointAt(i)!;
      i += cp > 0xffff ? 2 : 1;
      const from = state;
      const table = cp < 128 && from >= 0 ? this.#states[from]!.ascii : undefined;
      if (from >= 0) {
        const known = table === undefined ? this.#wide.get(from * 0x110000 + cp) : table[cp]!;
        if (known !== undefined && known !== UNKNOWN) {
          state = known;
          continue;
        }
        ({ threads, before } = this.#states[from]!);
      }
      work.left -= STEP_UNITS + threads.length * (cp < 128 ? 1 : WIDE_UNITS);
      if (work.left < 0) return undefined;
      const visited = this.#visits;
      const next = this.#advance(threads, before, cp);
      // The closures' walk is paid too: a chain of SPLITs and JMPs (`(?:|){995}a`) holds one thread but visits
      // 2 000 instructions. Once it has overspent, the step is dropped uncached, as one refused before it.
      work.left -= this.#visits - visited;
      if (work.left < 0) return undefined;
      before = isWord(cp) ? WORD : OTHER;
      state = this.#intern(next, before);
      if (next !== undefined) threads = next;
      if (from < 0 || state === UNCACHED) continue;
      if (table !== undefined) table[cp] = state;
      else {
        this.#wide.set(from * 0x110000 + cp, state);
        this.#cached += 4;
      }
    }
    // At the end the waiting assertions are decided: a cached state remembers the answer in its table's last slot.
    const last = state >= 0 ? this.#states[state]! : undefined;
    if (last !== undefined && last.ascii[128] === UNKNOWN)
      last.ascii[128] = this.#close(last.threads, last.before, END_OF_INPUT) ? DEAD : MATCHED;
    if (state === UNCACHED) state = this.#close(threads, before, END_OF_INPUT) ? DEAD : MATCHED;
    return (last?.ascii[128] ?? state) === MATCHED;
  }

  /** The threads after cp (undefined: one matched): waiting assertions decided, those that accept cp advanced. */
  #advance(threads: number[], before: number, cp: number): number[] | undefined {
    // Only END and word boundaries wait in a set; without them the set is already what cp meets.
    const ready = threads.some((pc) => this.#op[pc] === ASSERT) ? this.#close(threads, before, cp) : threads;
    if (ready === undefined) return undefined;
    const moved = [0]; // a match may also begin after cp
    for (const pc of ready) {
      const atom = this.#x[pc]!;
      if (this.#op[pc] === CHAR && (atom >= 0 ? atom === cp : this.#tests[~atom]!(cp))) moved.push(pc + 1);
    }
    return this.#close(moved, isWord(cp) ? WORD : OTHER, PENDING);
  }

  /** The id of the state of these threads: MATCHED when one matched, DEAD when none is left, UNCACHED when full. */
  #intern(threads: number[] | undefined, before: number): number {
    if (threads === undefined) return MATCHED;
    if (threads.length === 0) return DEAD;
    if (this.#cached > CACHE_INTS) return UNCACHED;
    const key = `${before}:${threads.sort((a, b) => a - b).join()}`;
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#states.length;
      this.#ids.set(key, id);
      this.#states.push({ threads, before, ascii: new Int32Array(129).fill(UNKNOWN) });
      this.#cached += 129 + threads.length;
    }
    return id;
  }

  /** Empties the cache (it is full). */
  #forget(): void {
    this.#ids.clear();
    this.#states = [];
    this.#wide.clear();
    this.#cached = 0;
    this.#start = UNKNOWN;
  }

  /**
   * The threads reached from seeds through JMP, SPLIT and the assertions holding between `before` and `after` (a code
   * point, END_OF_INPUT, or PENDING: not read yet, so END and \b wait in the set), or undefined once one reaches MATCH.
   */
  #close(seeds: number[], before: number, after: number): number[] | undefined {
    const [ops, xs, ys] = [this.#op, this.#x, this.#y];
    const marks = (this.#marks ??= new Float64Array(ops.length)); // a generation per closure: never wraps
    const stack = (this.#stack ??= new Int32Array(3 * ops.length + 1)); // seeds, then at most 2 per instruction
    const generation = ++this.#generation;
    let top = 0;
    for (let i = seeds.length - 1; i >= 0; i--) stack[top++] = seeds[i]!;
    const out: number[] = [];
    while (top > 0) {
      this.#visits++;
      const at = stack[--top]!;
      if (marks[at] === generation) continue;
      marks[at] = generation;
      const op = ops[at];
      if (op === CHAR) out.push(at);
      else if (op === JMP) stack[top++] = xs[at]!;
      else if (op === SPLIT) {
        stack[top++] = ys[at]!;
        stack[top++] = xs[at]!;
      } else if (op === MATCH) return undefined;
      else {
        const kind = xs[at];
        if (kind === START) {
          if (before === AT_START) stack[top++] = at + 1;
        } else if (after === PENDING) out.push(at);
        else if (kind === END ? after === END_OF_INPUT : isBoundary(before, after) === (kind === BOUNDARY))
          stack[top++] = at + 1;
      }
    }
    return out;
  }
}
