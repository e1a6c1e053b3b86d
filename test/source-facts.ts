// What the sources say, read with the TypeScript compiler, for the tests that hold the docs to them (issue 30): the
// entries package.json exports, one program over their sources, the value of a constant expression, and the defaults
// the sources give an option. It only reads; the tests decide what a doc must say.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './imports.ts';

/** package.json "exports" as `mcp-core/<subpath>` → the .ts source of its `dist/<x>.js` (`dist/x.js` → `x.ts`). */
export const ENTRY_SOURCES: ReadonlyMap<string, string> = (() => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  const out = new Map<string, string>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const source = /^\.\/dist\/(.+)\.js$/.exec(target.default)?.[1];
    assert.ok(source, `package.json exports ${subpath} from dist/*.js`);
    out.set(subpath === '.' ? 'mcp-core' : `mcp-core/${subpath.slice(2)}`, `${source}.ts`);
  }
  return out;
})();

/** One program over every entry's source (so over every module an entry reaches). */
export const program = ts.createProgram(
  [...ENTRY_SOURCES.values()].map((file) => join(ROOT, file)),
  {
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    strict: true,
    target: ts.ScriptTarget.ES2023,
  },
);
export const checker = program.getTypeChecker();

/** The value of a constant expression (literals; `*`, `**` and `<<`; consts and object-literal members they name). */
export function constant(node: ts.Expression): unknown {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return constant(node.expression);
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isStringLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isBinaryExpression(node)) {
    const [left, right] = [constant(node.left), constant(node.right)];
    if (typeof left !== 'number' || typeof right !== 'number') return undefined;
    const operator = node.operatorToken.kind;
    if (operator === ts.SyntaxKind.AsteriskToken) return left * right;
    if (operator === ts.SyntaxKind.AsteriskAsteriskToken) return left ** right;
    if (operator === ts.SyntaxKind.LessThanLessThanToken) return left * 2 ** right;
    return undefined;
  }
  if (ts.isIdentifier(node) || ts.isPropertyAccessExpression(node)) {
    const type = checker.getTypeAtLocation(node);
    if (type.isNumberLiteral() || type.isStringLiteral()) return type.value; // a member of an `as const` object
    let symbol = checker.getSymbolAtLocation(ts.isIdentifier(node) ? node : node.name);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.valueDeclaration;
    if (declaration && (ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration))) {
      return declaration.initializer ? constant(declaration.initializer) : undefined;
    }
  }
  return undefined;
}

/** Whether `node` reads the option `name`: `name` (destructured) or `options.name` (not `TASK_BOUNDS.name`). */
const readsOption = (node: ts.Expression, name: string): boolean =>
  ts.isIdentifier(node)
    ? node.text === name
    : ts.isPropertyAccessExpression(node) &&
      node.name.text === name &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'options';

/**
 * The defaults the sources under `folders` give option `name`, in each of the forms they use: `name ?? value`
 * (`options.name ?? value`), a checker given the option's name and then its default (`limit(options, 'name', value)`,
 * `positive('name', options.name, value)`), `options.name !== false` (default `true`), and a destructured option or
 * a parameter with an initializer (`{name = value} = options`, `close(name = value)`).
 */
export function sourceDefaults(files: readonly string[], name: string): unknown[] {
  const found: unknown[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isBindingElement(node) || ts.isParameter(node)) &&
      ts.isIdentifier(node.name) &&
      node.name.text === name &&
      node.initializer
    )
      found.push(constant(node.initializer));
    if (ts.isBinaryExpression(node) && readsOption(node.left, name)) {
      const operator = node.operatorToken.kind;
      if (operator === ts.SyntaxKind.QuestionQuestionToken) found.push(constant(node.right));
      if (operator === ts.SyntaxKind.ExclamationEqualsEqualsToken && node.right.kind === ts.SyntaxKind.FalseKeyword)
        found.push(true);
    }
    if (ts.isCallExpression(node)) {
      const at = node.arguments.findIndex((arg) => ts.isStringLiteral(arg) && arg.text === name);
      if (at !== -1) {
        const fallback = node.arguments.slice(at + 1).find((arg) => !readsOption(arg, name));
        if (fallback) found.push(constant(fallback));
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(program.getSourceFile(join(ROOT, file))!);
  return found.filter((value) => value !== undefined);
}

/** What one of each unit the docs write is worth in the sources' units: bytes or milliseconds. */
export const UNITS: Record<string, number> = {
  KiB: 1024,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  KB: 1000,
  MB: 1e6,
  GB: 1e9,
  µs: 1e-3,
  s: 1000,
  min: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hours: 3_600_000,
};

/** A documented default as a value: `true`, `'sse'`, 60 000, 16 MiB, 30 min, 1 h; undefined for prose. */
export function documentedDefault(cell: string): unknown {
  const text = cell.replace(/`/g, '').trim();
  if (text === 'true' || text === 'false') return text === 'true';
  const quoted = /^'([^']*)'$/.exec(text);
  if (quoted) return quoted[1];
  const number = /^(\d[\d ]*)(?: (KiB|MiB|min|h|s))?$/.exec(text);
  if (number) return Number(number[1]!.replace(/ /g, '')) * (number[2] ? UNITS[number[2]]! : 1);
  return undefined;
}

/** The repository's own sources in the program: every module an entry reaches, without the tests or dependencies. */
const OWN_SOURCES = program
  .getSourceFiles()
  .filter((source) => !source.fileName.includes('/node_modules/') && !source.isDeclarationFile)
  .map((source) => relative(ROOT, source.fileName));

/** namedValues' answers by name: the sources do not change while the tests run. */
const NAMED_VALUES = new Map<string, unknown[]>();

/**
 * The values the sources give `name`: the defaults they apply to an option of that name (as `sourceDefaults` finds
 * them) and the value of a constant declared under that name at the top of a module.
 */
export function namedValues(name: string): unknown[] {
  const known = NAMED_VALUES.get(name);
  if (known !== undefined) return known;
  const constants = OWN_SOURCES.flatMap((file) =>
    program
      .getSourceFile(join(ROOT, file))!
      .statements.filter(ts.isVariableStatement)
      .flatMap((statement) => statement.declarationList.declarations)
      .filter((declaration) => ts.isIdentifier(declaration.name) && declaration.name.text === name)
      .map((declaration) => (declaration.initializer ? constant(declaration.initializer) : undefined)),
  );
  const values = [...sourceDefaults(OWN_SOURCES, name), ...constants.filter((value) => value !== undefined)];
  NAMED_VALUES.set(name, values);
  return values;
}
