// RFC 6570 URI templates as MCP resource templates use them: matching a concrete URI to its variables (expanding one
// is the client's part). Owns the parse of one template and its compiled, anchored matcher; pure, no shared state.
// match() must never throw and its RegExp must never backtrack: every capture is atomic, so matching stays linear.

const MAX_TEMPLATE_LENGTH = 4096;
const MAX_URI_LENGTH = 16384;

/** An expression's operator (RFC 6570, 3.2): the text before its first value, and between values. */
interface Operator {
  first: string;
  sep: string;
  /** Query operators give `name=value` pairs. */
  named: boolean;
  /** Values may hold reserved characters (any character matches). */
  reserved: boolean;
}

const OPERATORS: Readonly<Record<string, Operator>> = {
  '': { first: '', sep: ',', named: false, reserved: false },
  '+': { first: '', sep: ',', named: false, reserved: true },
  '#': { first: '#', sep: ',', named: false, reserved: true },
  '.': { first: '.', sep: '.', named: false, reserved: false },
  '/': { first: '/', sep: '/', named: false, reserved: false },
  '?': { first: '?', sep: '&', named: true, reserved: false },
  '&': { first: '&', sep: '&', named: true, reserved: false },
};

type VarSpec = { name: string; explode: boolean };
/** One `{…}` of a template: its operator and variables. */
type Expression = { op: Operator; vars: VarSpec[] };

/** What one RegExp group captures and how its raw text becomes variables. */
type Capture =
  | { kind: 'value'; name: string; chars: string }
  | { kind: 'list'; name: string; chars: string; split: string }
  | { kind: 'query'; lead: string; vars: VarSpec[] };

const VAR_NAME = /^(?:\w|%[0-9A-Fa-f]{2})+(?:\.(?:\w|%[0-9A-Fa-f]{2})+)*$/;
const ANY_CHAR = '[\\s\\S]';
const SEGMENT_CHAR = '[^/?#&]';
const PATH_CHAR = '[^?#&]';
const QUERY_CHAR = '[^#]';

/** The TypeError of a template this module cannot use, quoting its start. */
function malformed(template: string, reason: string): TypeError {
  return new TypeError(`Invalid URI template (${reason}): ${template.slice(0, 200)}`);
}

/** One `{…}` expression: its operator and variables (a prefix modifier is refused). */
function parseExpression(template: string, body: string): Expression {
  const opChar = '+#./?&'.includes(body.charAt(0)) ? body.charAt(0) : '';
  if (/^[;=,!@|]/.test(body)) throw malformed(template, `unsupported operator '${body.charAt(0)}'`);
  const list = body.slice(opChar.length);
  if (list === '') throw malformed(template, 'empty expression');
  const vars = list.split(',').map((spec) => {
    const explode = spec.endsWith('*');
    const name = explode ? spec.slice(0, -1) : spec;
    if (name.includes(':')) throw malformed(template, `prefix modifier in '${spec}' is not supported`);
    if (!VAR_NAME.test(name)) throw malformed(template, `bad variable name '${spec}'`);
    return { name, explode };
  });
  return { op: OPERATORS[opChar] as Operator, vars };
}

/** The template as literal text and expressions. */
function parse(template: string): (string | Expression)[] {
  const parts: (string | Expression)[] = [];
  for (let at = 0; at < template.length; ) {
    const open = template.indexOf('{', at);
    const literal = open < 0 ? template.slice(at) : template.slice(at, open);
    if (literal.includes('}')) throw malformed(template, "unmatched '}'");
    if (literal !== '') parts.push(literal);
    if (open < 0) break;
    const close = template.indexOf('}', open);
    if (close < 0 || template.slice(open + 1, close).includes('{')) throw malformed(template, 'unclosed brace');
    parts.push(parseExpression(template, template.slice(open + 1, close)));
    at = close + 1;
  }
  return parts;
}

/** A RegExp source that matches `text` only. */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Lays the template out as fixed text and captures; a `{&…}` right after a query expression joins its query part. */
function layOut(parts: (string | Expression)[]): (string | Capture)[] {
  const tokens: (string | Capture)[] = [];
  const pushText = (text: string): void => {
    const last = tokens.length - 1;
    if (typeof tokens[last] === 'string') tokens[last] += text;
    else if (text !== '') tokens.push(text);
  };
  for (const part of parts) {
    if (typeof part === 'string') pushText(part);
    else {
      const { op, vars } = part;
      const last = tokens.at(-1);
      if (op.named && op.first === '&' && typeof last === 'object' && last.kind === 'query') last.vars.push(...vars);
      else if (op.named) tokens.push({ kind: 'query', lead: op.first, vars: [...vars] });
      else
        vars.forEach(({ name, explode }, index) => {
          pushText(index === 0 ? op.first : op.sep);
          const chars = op.reserved ? ANY_CHAR : explode && op.sep === '/' ? PATH_CHAR : SEGMENT_CHAR;
          tokens.push(explode ? { kind: 'list', name, chars, split: op.sep } : { kind: 'value', name, chars });
        });
    }
  }
  return tokens;
}

/** Each capture takes the longest run of its characters before the first occurrence of the text that must follow,
 * then is committed (lookahead + backreference emulates an atomic group), so nothing ever backtracks. */
function compile(tokens: (string | Capture)[]): RegExp {
  let source = '^';
  let group = 0;
  tokens.forEach((token, index) => {
    if (typeof token === 'string') source += escapeRegExp(token);
    else {
      const next = tokens[index + 1];
      const stop = typeof next === 'string' ? next : next?.kind === 'query' ? next.lead : '';
      const chars = token.kind === 'query' ? QUERY_CHAR : token.chars;
      const char = stop === '' ? chars : `(?:(?!${escapeRegExp(stop)})${chars})`;
      const body = token.kind === 'query' ? `(?:${escapeRegExp(token.lead)}${char}+)?` : `${char}+`;
      source += `(?=(${body}))(?:\\${++group})`;
    }
  });
  return new RegExp(`${source}$`);
}

/** Reads `name=value` pairs; any name outside the expression, or a repeated unexploded one, means no match. */
function readQuery(raw: string, vars: VarSpec[], into: Record<string, string | string[]>): boolean {
  for (const pair of raw.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const spec = vars.find((v) => v.name === name);
    if (spec === undefined) return false;
    const value = decodeURIComponent(eq < 0 ? '' : pair.slice(eq + 1));
    const seen = into[name];
    if (spec.explode && Array.isArray(seen)) seen.push(value);
    else if (spec.explode) into[name] = [value];
    else if (seen !== undefined) return false;
    else into[name] = value;
  }
  return true;
}

/** One resource template: its text, and the match of a concrete URI to its variables. */
export class UriTemplate {
  readonly template: string;
  readonly #captures: Capture[];
  readonly #matcher: RegExp;

  constructor(template: string) {
    if (typeof template !== 'string') throw new TypeError('URI template must be a string');
    if (template.length > MAX_TEMPLATE_LENGTH)
      throw new TypeError(`URI template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
    this.template = template;
    const parts = parse(template);
    const names = parts.flatMap((part) => (typeof part === 'string' ? [] : part.vars.map((v) => v.name)));
    const twice = names.find((name, i) => names.indexOf(name) !== i);
    if (twice !== undefined) throw malformed(template, `variable '${twice}' appears twice`);
    const tokens = layOut(parts);
    this.#captures = tokens.filter((token) => typeof token !== 'string');
    this.#matcher = compile(tokens);
  }

  /** The template's variables in `uri` (lists for exploded ones), or undefined when it does not match. */
  match(uri: string): Record<string, string | string[]> | undefined {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return undefined;
    const found = this.#matcher.exec(uri);
    if (found === null) return undefined;
    const result: Record<string, string | string[]> = Object.create(null);
    try {
      for (const [index, capture] of this.#captures.entries()) {
        const raw = found[index + 1] ?? '';
        if (capture.kind === 'query') {
          if (raw !== '' && !readQuery(raw.slice(1), capture.vars, result)) return undefined;
        } else if (capture.kind === 'list') result[capture.name] = raw.split(capture.split).map(decodeURIComponent);
        else result[capture.name] = decodeURIComponent(raw);
      }
    } catch {
      return undefined; // a malformed percent-escape
    }
    return result;
  }
}
