// A SKILL.md's frontmatter: the leading `---` block, found as the skills conformance checks find it and read as a
// subset of YAML 1.2 whose every accepted block gives what the `yaml` package's parse() gives (core schema;
// test/frontmatter.test.ts compares the two). Owns nothing: pure, no I/O, no state. Never guesses: a construct
// outside the subset, or a value JSON cannot carry, is a TypeError naming it and its line; nothing else is thrown.

/** The frontmatter block, as the conformance check matches it after dropping a leading U+FEFF. */
const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** How deeply mappings and sequences may nest; deeper is refused, so the recursion stays bounded. */
const MAX_DEPTH = 64;
/** yaml@2 refuses an implicit key whose `:` is more than 1024 characters past the key's start. */
const MAX_KEY_SPAN = 1024;
/** A block scalar header: `|` or `>`, then at most one chomping indicator and one indentation digit, either order. */
const HEADER = /^[|>](?:[1-9][-+]?|[-+][1-9]?)?$/;

// The YAML 1.2 core schema's plain-scalar tags, tested in the order yaml@2 tests them.
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const INF_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** The escapes of a double-quoted scalar that stand for one character (YAML 1.2 section 5.7). */
const ESCAPES = new Map([
  ['0', '\0'],
  ['a', '\x07'],
  ['b', '\b'],
  ['e', '\x1b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
  ['\t', '\t'],
  ['v', '\v'],
  ['N', '\u0085'],
  ['_', '\u00a0'],
  ['L', '\u2028'],
  ['P', '\u2029'],
  [' ', ' '],
  ['"', '"'],
  ['/', '/'],
  ['\\', '\\'],
]);
/** The hex digits after `\x`, `\u` and `\U`. */
const CODE_LENGTH = new Map([
  ['x', 2],
  ['u', 4],
  ['U', 8],
]);

/** A frontmatter value: what JSON can carry, as yaml@2 reads it. */
export type FrontmatterValue = string | number | boolean | null | FrontmatterValue[] | FrontmatterMap;
/** A YAML mapping read into a plain object. */
export type FrontmatterMap = { [key: string]: FrontmatterValue };

/** A SKILL.md split at its frontmatter. */
export interface Frontmatter {
  /** The block's top-level mapping (keys in document order, as far as a JS object keeps it). */
  data: FrontmatterMap;
  /** The text after the closing `---` line. */
  body: string;
}

/** A node read from the block and the index of the first line it did not consume. */
interface Parsed {
  value: FrontmatterValue;
  next: number;
}

/**
 * Splits a SKILL.md into its frontmatter and body. The text, less a leading U+FEFF, must open with a `---` line, the
 * YAML, then a `---` line; the YAML must be a mapping in the subset this module reads: block mappings and sequences,
 * plain, quoted and block scalars, comments, core-schema scalars. Anything else is a TypeError naming the line.
 */
export function parseFrontmatter(text: string): Frontmatter {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = BLOCK.exec(source);
  if (match === null)
    throw new TypeError('SKILL.md must start with a frontmatter block: a "---" line, the YAML, then a "---" line');
  return { data: new BlockReader(match[1]!).document(), body: source.slice(match[0].length) };
}

/**
 * The offset of the first character no frontmatter needs, or -1: a C0 control but tab and line feed, a carriage
 * return not before a line feed, DEL or U+FEFF. Refused outright rather than matched to yaml's handling of each.
 */
function forbiddenAt(block: string): number {
  for (let i = 0; i < block.length; i++) {
    const code = block.charCodeAt(i);
    if (code === 0x7f || code === 0xfeff) return i;
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && (code !== 0x0d || block.charCodeAt(i + 1) !== 0x0a)) return i;
  }
  return -1;
}

/** Whether `ch` of a line is a space, a tab or past the line's end: what ends a token in the YAML lexer. */
function isBlank(ch: string | undefined): boolean {
  return ch === undefined || ch === ' ' || ch === '\t';
}

/** `text` less its leading spaces and tabs. */
function trimStart(text: string): string {
  let start = 0;
  while (text[start] === ' ' || text[start] === '\t') start++;
  return text.slice(start);
}

/** `text` less its trailing spaces and tabs (a loop: a RegExp here would be quadratic on long runs of blanks). */
function trimEnd(text: string): string {
  let end = text.length;
  while (text[end - 1] === ' ' || text[end - 1] === '\t') end--;
  return text.slice(0, end);
}

/**
 * Folds the lines of a plain or single-quoted scalar as yaml@2 does: the first line loses trailing blanks, the last
 * its leading ones, inner lines both; a line break becomes a space, and each empty line a line feed.
 */
function unfold(source: string): string {
  const lines = source.split('\n');
  if (lines.length === 1) return source;
  let value = trimEnd(lines[0]!);
  let separator = ' ';
  for (let i = 1; i < lines.length - 1; i++) {
    const line = trimEnd(trimStart(lines[i]!));
    if (line === '') {
      if (separator === '\n') value += separator;
      else separator = '\n';
    } else {
      value += separator + line;
      separator = ' ';
    }
  }
  return value + separator + trimStart(lines[lines.length - 1]!);
}

/** A single-quoted scalar's value (`''` is a quote; lines fold as in a plain scalar). */
function singleQuoted(raw: string): string {
  return unfold(raw.slice(1, -1)).replaceAll("''", "'");
}

/** A plain scalar's value under the YAML 1.2 core schema, its tags tested in yaml@2's order. */
function coreScalar(text: string): string | number | boolean | null {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (OCT.test(text)) return parseInt(text.slice(2), 8);
  if (INT.test(text)) return parseInt(text, 10);
  if (HEX.test(text)) return parseInt(text.slice(2), 16);
  if (INF_NAN.test(text))
    return text.endsWith('nan') || text.endsWith('NaN') || text.endsWith('NAN')
      ? Number.NaN
      : text[0] === '-'
        ? Number.NEGATIVE_INFINITY
        : Number.POSITIVE_INFINITY;
  if (EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  return text;
}

/** The index just past the closing quote of the scalar opening at `open` in `text`, or -1 when it never closes. */
function quoteEnd(text: string, open: number): number {
  const quote = text[open]!;
  let end = text.indexOf(quote, open + 1);
  if (quote === "'") {
    while (end !== -1 && text[end + 1] === "'") end = text.indexOf("'", end + 2);
  } else {
    while (end !== -1) {
      let backslashes = 0;
      while (text[end - 1 - backslashes] === '\\') backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
  }
  return end === -1 ? -1 : end + 1;
}

/** Defines `key` on `map` as an own enumerable property, as yaml@2 does for a key the object already inherits. */
function define(map: FrontmatterMap, key: string, value: FrontmatterValue): void {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Reads one frontmatter block, line by line. Every method that reads a node takes the line and column it starts at
 * and the column of the mapping key or `-` that owns it (`owner`): continuation lines must be indented past `owner`,
 * as yaml@2's lexer requires (its `indentNext`).
 */
class BlockReader {
  readonly #src: string;
  readonly #lines: string[];
  readonly #starts: number[];
  #depth = 0;

  /** Takes the block as the frontmatter RegExp captured it; CRLF line ends read as LF (yaml@2 treats both alike). */
  constructor(block: string) {
    const bad = forbiddenAt(block);
    if (bad !== -1) {
      const line = block.slice(0, bad).split('\n').length - 1;
      const code = block.charCodeAt(bad).toString(16).padStart(4, '0');
      throw new TypeError(`frontmatter line ${line + 2}: the character U+${code} is not allowed in frontmatter`);
    }
    this.#src = block.replaceAll('\r\n', '\n');
    this.#lines = this.#src.split('\n');
    this.#starts = [];
    let start = 0;
    for (const line of this.#lines) {
      this.#starts.push(start);
      start += line.length + 1;
    }
  }

  /** The block's top-level mapping. */
  document(): FrontmatterMap {
    const first = this.#skip(0);
    if (first === this.#lines.length) throw new TypeError('the frontmatter block holds no YAML mapping');
    const column = this.#indent(first);
    if (this.#isEntry(first, column) || this.#keyAt(first, column) === undefined)
      this.#fail(first, 'the frontmatter must be a mapping of keys to values (name: …), not a sequence or a scalar');
    const { value, next } = this.#mapping(first, column);
    const rest = this.#skip(next);
    if (rest < this.#lines.length) this.#fail(rest, 'this line is indented less than the keys of the frontmatter');
    return value as FrontmatterMap;
  }

  /** Throws the TypeError for a construct on block line `line` (numbered as a line of the SKILL.md). */
  #fail(line: number, problem: string): never {
    throw new TypeError(`frontmatter line ${line + 2}: ${problem}`);
  }

  /** The index of the line holding offset `offset` of the block. */
  #lineAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * The first line from `line` on that is neither blank nor a comment. A document marker there is refused, and so is
   * a tab before the first character of any of these lines (yaml@2 accepts it on some lines only).
   */
  #skip(line: number): number {
    while (line < this.#lines.length) {
      const text = this.#lines[line]!;
      const first = trimStart(text);
      if (first.length < text.length && text.slice(0, text.length - first.length).includes('\t'))
        this.#fail(line, 'a tab in the indentation: YAML indents with spaces only');
      if (first !== '' && first[0] !== '#') {
        if ((text.startsWith('---') || text.startsWith('...')) && isBlank(text[3]))
          this.#fail(line, `a document marker (${text.slice(0, 3)}): the frontmatter must be one YAML document`);
        return line;
      }
      line++;
    }
    return line;
  }

  /** The indentation of a line #skip has passed or stopped at (its leading blanks are spaces: #skip refuses tabs). */
  #indent(line: number): number {
    const text = this.#lines[line]!;
    let column = 0;
    while (text[column] === ' ') column++;
    return column;
  }

  /** Whether a block sequence entry (`-` then a blank or the line's end) starts at `column` of `line`. */
  #isEntry(line: number, column: number): boolean {
    const text = this.#lines[line]!;
    return text[column] === '-' && isBlank(text[column + 1]);
  }

  /** Counts one more level of nesting, refusing it past MAX_DEPTH. */
  #enter(line: number): void {
    if (++this.#depth > MAX_DEPTH) this.#fail(line, `mappings and sequences nest deeper than ${MAX_DEPTH} levels`);
  }

  /** Refuses the indicators that start no construct of the subset (anchors, aliases, tags, flow collections…). */
  #refuseIndicator(line: number, column: number): void {
    const ch = this.#lines[line]![column];
    if (ch === '&') this.#fail(line, 'an anchor (&name) is not supported in frontmatter');
    if (ch === '*') this.#fail(line, 'an alias (*name) is not supported in frontmatter');
    if (ch === '!') this.#fail(line, 'a tag (!tag) is not supported in frontmatter; quote the value if it is text');
    if (ch === '[' || ch === '{')
      this.#fail(line, `a flow collection (${ch}…) is not supported; write a block sequence or mapping, or quote it`);
    if (ch === '%') this.#fail(line, 'a directive (%) is not supported in frontmatter');
    if (ch === ']' || ch === '}' || ch === ',' || ch === '@' || ch === '`')
      this.#fail(line, `a plain value cannot start with ${ch}; quote it`);
    if ((ch === '?' || ch === ':') && isBlank(this.#lines[line]![column + 1]))
      this.#fail(line, `an explicit ${ch === '?' ? 'key (? )' : 'value (: ) with no key'} is not supported`);
  }

  /**
   * The key of the implicit mapping entry at `column` of `line` and the column just past its `:`, or undefined when
   * no entry starts there (the line holds a scalar).
   */
  #keyAt(line: number, column: number): { key: string; after: number } | undefined {
    const text = this.#lines[line]!;
    const ch = text[column];
    if (ch === '"' || ch === "'") {
      const end = quoteEnd(text, column);
      if (end === -1) return undefined;
      let colon = end;
      while (text[colon] === ' ' || text[colon] === '\t') colon++;
      if (text[colon] !== ':' || !isBlank(text[colon + 1])) return undefined;
      this.#refuseLongKey(line, colon - column);
      const raw = text.slice(column, end);
      return { key: ch === '"' ? this.#doubleQuoted(raw, line) : singleQuoted(raw), after: colon + 1 };
    }
    this.#refuseIndicator(line, column);
    if (ch === '|' || ch === '>') return undefined;
    let last = column;
    for (let i = column; i < text.length; i++) {
      const c = text[i];
      if (c === ':' && isBlank(text[i + 1])) {
        this.#refuseLongKey(line, i - column);
        const key = coreScalar(text.slice(column, last + 1));
        return { key: key === null ? '' : String(key), after: i + 1 };
      }
      if (c === ' ' || c === '\t') {
        if (text[i + 1] === '#') return undefined;
      } else last = i;
    }
    return undefined;
  }

  /** Refuses an implicit key whose `:` is `span` characters past its start, beyond what yaml@2 allows. */
  #refuseLongKey(line: number, span: number): void {
    if (span > MAX_KEY_SPAN) this.#fail(line, `a key longer than ${MAX_KEY_SPAN} characters`);
  }

  /** The block mapping whose first key is at `column` of `line`; its other keys start lines at that column. */
  #mapping(line: number, column: number): Parsed {
    this.#enter(line);
    const map: FrontmatterMap = {};
    for (;;) {
      const entry = this.#keyAt(line, column);
      if (entry === undefined) this.#fail(line, 'expected a "key: value" line of the mapping above');
      if (entry.key === '__proto__') this.#fail(line, 'the key "__proto__" is not allowed in frontmatter');
      if (Object.hasOwn(map, entry.key)) this.#fail(line, `the key ${JSON.stringify(entry.key)} appears twice`);
      const { value, next } = this.#valueAfter(line, entry.after, column, false);
      define(map, entry.key, value);
      line = this.#skip(next);
      if (line === this.#lines.length) break;
      const indent = this.#indent(line);
      if (indent < column) break;
      if (indent > column)
        this.#fail(line, 'this line is indented more than its mapping, but nothing above it takes it');
      if (this.#isEntry(line, column)) this.#fail(line, 'a sequence entry (- ) among the keys of a mapping');
    }
    this.#depth--;
    return { value: map, next: line };
  }

  /** The block sequence whose first `-` is at `column` of `line`; its other entries start lines at that column. */
  #sequence(line: number, column: number): Parsed {
    this.#enter(line);
    const items: FrontmatterValue[] = [];
    for (;;) {
      const { value, next } = this.#valueAfter(line, column + 1, column, true);
      items.push(value);
      line = this.#skip(next);
      if (line === this.#lines.length) break;
      const indent = this.#indent(line);
      if (indent < column) break;
      if (indent > column)
        this.#fail(line, 'this line is indented more than its sequence, but nothing above it takes it');
      if (!this.#isEntry(line, column)) break;
    }
    this.#depth--;
    return { value: items, next: line };
  }

  /**
   * The value after a mapping key's `:` or a sequence entry's `-` (`after` is the column past the indicator, `owner`
   * the indicator's node column). On the same line it is a scalar, or for an entry also a compact mapping or
   * sequence; otherwise it is the node on the lines below, or null.
   */
  #valueAfter(line: number, after: number, owner: number, entry: boolean): Parsed {
    const text = this.#lines[line]!;
    let column = after;
    let tab = false;
    while (text[column] === ' ' || text[column] === '\t') if (text[column++] === '\t') tab = true;
    if (column === text.length || text[column] === '#') return this.#below(line + 1, owner, !entry);
    if (entry && (this.#isEntry(line, column) || this.#keyAt(line, column) !== undefined)) {
      if (tab) this.#fail(line, 'a tab between "-" and a compact mapping or sequence: use spaces');
      return this.#isEntry(line, column) ? this.#sequence(line, column) : this.#mapping(line, column);
    }
    return this.#scalar(line, column, owner);
  }

  /**
   * The value on the lines from `line` on of a key or entry at column `owner`: a node indented past it, a sequence
   * at its column when it is a mapping key's (`sequenceAtOwner`), or else null.
   */
  #below(line: number, owner: number, sequenceAtOwner: boolean): Parsed {
    const first = this.#skip(line);
    if (first === this.#lines.length) return { value: null, next: first };
    const indent = this.#indent(first);
    if (indent === owner && sequenceAtOwner && this.#isEntry(first, indent)) return this.#sequence(first, indent);
    if (indent <= owner) return { value: null, next: first };
    if (this.#isEntry(first, indent)) return this.#sequence(first, indent);
    if (this.#keyAt(first, indent) !== undefined) return this.#mapping(first, indent);
    const ch = this.#lines[first]![indent];
    if (ch === '|' || ch === '>')
      this.#fail(first, `a block scalar header (${ch}) must end the line of its key or "-"`);
    // A comment line left of the scalar lowers how far yaml@2 requires the scalar's next lines to be indented
    // (Lexer.parseLineStart lowers indentNext), so they could continue it where this reader would not.
    for (let i = line; i < first; i++)
      if (this.#indent(i) <= owner && this.#lines[i]!.trimStart().startsWith('#'))
        this.#fail(i, 'a comment between a key or "-" and its value on the next lines must be indented past the key');
    return this.#scalar(first, indent, owner);
  }

  /** The scalar starting at `column` of `line`: quoted, block or plain. */
  #scalar(line: number, column: number, owner: number): Parsed {
    const text = this.#lines[line]!;
    const ch = text[column];
    if (ch === '"' || ch === "'") return this.#quoted(line, column, owner);
    if (ch === '|' || ch === '>') return this.#block(line, column, owner);
    if (ch === '-' && isBlank(text[column + 1]))
      this.#fail(line, 'a block sequence (- ) cannot start on the line of its key; start it on the next line');
    this.#refuseIndicator(line, column);
    return this.#plain(line, column, owner);
  }

  /**
   * The end (exclusive) of the plain scalar text on `line` from `column`, and whether a comment cuts it there. A `:`
   * before a blank would make it a key: refused, since a mapping cannot nest on one line.
   */
  #plainLine(line: number, column: number): { end: number; comment: boolean } {
    const text = this.#lines[line]!;
    let last = column;
    for (let i = column; i < text.length; i++) {
      const c = text[i];
      if (c === ':' && isBlank(text[i + 1]))
        this.#fail(line, 'a ": " inside a plain value (a mapping cannot nest on one line); quote the value');
      if (c === ' ' || c === '\t') {
        if (text[i + 1] === '#') return { end: last + 1, comment: true };
      } else last = i;
    }
    return { end: last + 1, comment: false };
  }

  /** A plain scalar and the lines indented past `owner` that continue it, folded and resolved by the core schema. */
  #plain(line: number, column: number, owner: number): Parsed {
    let { end, comment } = this.#plainLine(line, column);
    let last = line;
    for (let next = line + 1; !comment && next < this.#lines.length; next++) {
      const text = this.#lines[next]!;
      let indent = 0;
      while (text[indent] === ' ') indent++;
      if (indent === text.length) continue;
      if (indent <= owner) break;
      let start = indent;
      while (text[start] === ' ' || text[start] === '\t') start++;
      if (start === text.length) continue;
      if (text[start] === '#') break;
      ({ end, comment } = this.#plainLine(next, start));
      last = next;
    }
    const source = this.#src.slice(this.#starts[line]! + column, this.#starts[last]! + end);
    const value = coreScalar(unfold(source));
    if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))
      this.#fail(line, `the number ${JSON.stringify(source)} cannot be carried by JSON; quote it to keep it as text`);
    return { value, next: last + 1 };
  }

  /** A single- or double-quoted scalar, whose continuation lines must be blank or indented past `owner`. */
  #quoted(line: number, column: number, owner: number): Parsed {
    const open = this.#starts[line]! + column;
    const end = quoteEnd(this.#src, open);
    if (end === -1) this.#fail(line, 'a quoted value with no closing quote');
    const last = this.#lineAt(end - 1);
    for (let next = line + 1; next <= last; next++) {
      const text = this.#lines[next]!;
      let indent = 0;
      while (text[indent] === ' ') indent++;
      if (indent < text.length && indent <= owner)
        this.#fail(next, 'a line of a quoted value must be indented more than its key or "-"');
    }
    const raw = this.#src.slice(open, end);
    const value = raw[0] === '"' ? this.#doubleQuoted(raw, line) : singleQuoted(raw);
    const text = this.#lines[last]!;
    const after = end - this.#starts[last]!;
    let rest = after;
    while (text[rest] === ' ' || text[rest] === '\t') rest++;
    if (rest < text.length && !(text[rest] === '#' && rest > after))
      this.#fail(last, 'text after the closing quote of a value');
    return { value, next: last + 1 };
  }

  /** A double-quoted scalar's value: escapes decoded, lines folded as yaml@2 folds them. */
  #doubleQuoted(raw: string, line: number): string {
    let value = '';
    for (let i = 1; i < raw.length - 1; i++) {
      const ch = raw[i]!;
      if (ch === '\n') {
        let fold = '';
        let next = raw[i + 1];
        while (next === ' ' || next === '\t' || next === '\n') {
          if (next === '\n') fold += '\n';
          next = raw[++i + 1];
        }
        value += fold === '' ? ' ' : fold;
      } else if (ch === '\\') {
        const escaped = raw[++i]!;
        const single = ESCAPES.get(escaped);
        const length = CODE_LENGTH.get(escaped);
        if (single !== undefined) value += single;
        else if (escaped === '\n') {
          while (raw[i + 1] === ' ' || raw[i + 1] === '\t') i++;
        } else if (length !== undefined) {
          const digits = raw.slice(i + 1, i + 1 + length);
          const code = /^[0-9a-fA-F]+$/.test(digits) && digits.length === length ? parseInt(digits, 16) : -1;
          if (code < 0 || code > 0x10ffff) this.#fail(line, `the escape \\${escaped}${digits} is not a character`);
          value += String.fromCodePoint(code);
          i += length;
        } else this.#fail(line, `the escape \\${escaped} is not a YAML escape`);
      } else if (ch === ' ' || ch === '\t') {
        // Blanks before a line break are dropped; elsewhere they stay.
        const start = i;
        while (raw[i + 1] === ' ' || raw[i + 1] === '\t') i++;
        if (raw[i + 1] !== '\n') value += raw.slice(start, i + 1);
      } else value += ch;
    }
    return value;
  }

  /**
   * A literal (`|`) or folded (`>`) block scalar whose header is at `column` of `line`. Its extent and value follow
   * yaml@2 step by step (Lexer.parseBlockScalar, then resolveBlockScalar), so trailing blank lines, chomping and
   * more-indented lines come out as yaml reads them.
   */
  #block(line: number, column: number, owner: number): Parsed {
    const text = this.#lines[line]!;
    let headerEnd = column + 1;
    while (!isBlank(text[headerEnd]) && text[headerEnd] !== '#') headerEnd++;
    const header = text.slice(column, headerEnd);
    if (!HEADER.test(header))
      this.#fail(line, `the block scalar header ${JSON.stringify(header)}: it is | or >, then - or + and a digit 1-9`);
    let rest = headerEnd;
    while (text[rest] === ' ' || text[rest] === '\t') rest++;
    if (rest < text.length && !(text[rest] === '#' && rest > headerEnd))
      this.#fail(line, 'text after a block scalar header (the scalar starts on the next line)');
    const explicit = Number(/[1-9]/.exec(header)?.[0] ?? 0);
    const keep = header.includes('+');
    if (line + 1 === this.#lines.length) return { value: '', next: line + 1 };
    const src = this.#src;
    const start = this.#starts[line + 1]!;
    // The extent: leading blank lines, then every line that is blank or indented at least as the content.
    let end = start - 1;
    let indent = 0;
    for (let i = start; i < src.length; i++) {
      if (src[i] === ' ') indent++;
      else if (src[i] === '\n') {
        end = i;
        indent = 0;
      } else break;
    }
    if (indent > owner) {
      const contentIndent = explicit === 0 ? indent : owner + explicit;
      for (;;) {
        let at = end + 1;
        while (src[at] === ' ') at++;
        if (src[at] !== '\n' && at - end - 1 < contentIndent) break;
        end = src.indexOf('\n', at);
        if (end === -1) {
          end = src.length;
          break;
        }
      }
    }
    if (!keep) {
      // Trailing blank lines no more indented than the first content line are left to the enclosing node.
      for (;;) {
        let i = end - 1;
        const lastChar = i;
        while (src[i] === ' ') i--;
        if (src[i] === '\n' && i >= start && i + 1 + indent > lastChar) end = i;
        else break;
      }
    }
    const value = this.#blockValue(src.slice(start, end + 1), header, explicit, owner, line);
    return { value, next: end + 1 >= src.length ? this.#lines.length : this.#lineAt(end + 1) };
  }

  /** A block scalar's value from its content lines (yaml@2 resolveBlockScalar, less what the extent rules out). */
  #blockValue(source: string, header: string, explicit: number, owner: number, line: number): string {
    const lines = source === '' ? [] : source.split('\n');
    const indentOf = (i: number): number => {
      let spaces = 0;
      while (lines[i]![spaces] === ' ') spaces++;
      return spaces;
    };
    const contentOf = (i: number): string => lines[i]!.slice(indentOf(i));
    let chompStart = lines.length;
    while (chompStart > 0 && contentOf(chompStart - 1) === '') chompStart--;
    const keep = header.includes('+');
    if (chompStart === 0) return keep && lines.length > 0 ? '\n'.repeat(Math.max(1, lines.length - 1)) : '';
    let trimIndent = owner + explicit;
    let contentStart = 0;
    for (let i = 0; i < chompStart; i++) {
      if (contentOf(i) === '') {
        if (explicit === 0 && indentOf(i) > trimIndent) trimIndent = indentOf(i);
        continue;
      }
      if (indentOf(i) < trimIndent)
        this.#fail(line, 'a block scalar whose leading blank lines are indented more than its first line');
      if (explicit === 0) trimIndent = indentOf(i);
      contentStart = i;
      break;
    }
    for (let i = lines.length - 1; i >= chompStart; i--) if (indentOf(i) > trimIndent) chompStart = i + 1;
    const folded = header[0] === '>';
    let value = '';
    let separator = '';
    let moreIndented = false;
    for (let i = 0; i < contentStart; i++) value += `${lines[i]!.slice(trimIndent, indentOf(i))}\n`;
    for (let i = contentStart; i < chompStart; i++) {
      const indent = lines[i]!.slice(trimIndent, indentOf(i));
      const content = contentOf(i);
      if (!folded) {
        value += separator + indent + content;
        separator = '\n';
      } else if (indent !== '' || content[0] === '\t') {
        if (separator === ' ') separator = '\n';
        else if (!moreIndented && separator === '\n') separator = '\n\n';
        value += separator + indent + content;
        separator = '\n';
        moreIndented = true;
      } else if (content === '') {
        if (separator === '\n') value += '\n';
        else separator = '\n';
      } else {
        value += separator + content;
        separator = ' ';
        moreIndented = false;
      }
    }
    if (keep) {
      for (let i = chompStart; i < lines.length; i++) value += `\n${lines[i]!.slice(trimIndent, indentOf(i))}`;
      if (!value.endsWith('\n')) value += '\n';
    } else if (!header.includes('-')) value += '\n';
    return value;
  }
}
