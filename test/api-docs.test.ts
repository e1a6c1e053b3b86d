// docs/api.md says what the entry points export, and nothing the sources do not (issue 30). Read with the TypeScript
// compiler from the .ts source of each entry of package.json "exports": every value and type an entry exports is named
// in backticks in api.md's prose and tables (fenced code blocks do not count); each entry-point row and export table
// names only what its entry exports; each option or member table names exactly the members of its interface, with
// the literal defaults the sources apply; "`f()` returns `T`" and member lists ("a `X` (`a`; optional `b`)") are
// the signatures' own; every member of the interfaces an author or transport holds is named; and every option
// interface an entry exports has such a table (in api.md, or tasks.md for the tasks add-on) or a stated reason why
// not. A rename, a new export, a new member or a changed default fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { createServer } from '../core.ts';
import { connectTestClient } from '../testing.ts';
import { ROOT } from './imports.ts';
import { checker, documentedDefault, ENTRY_SOURCES, program, sourceDefaults } from './source-facts.ts';

const API = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
/** api.md without its fenced code blocks: only prose and tables document a name. */
const PROSE = API.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
const LINES = PROSE.split('\n');
/** The lines of each document whose tables are checked: api.md, and tasks.md for the options of `mcp-core/tasks`. */
const DOCS: Record<'api.md' | 'tasks.md', string[]> = {
  'api.md': LINES,
  'tasks.md': readFileSync(join(ROOT, 'docs/tasks.md'), 'utf8')
    .replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
    .split('\n'),
};

/** The symbols an entry's source exports (re-exports followed), by name. */
function exportsOf(file: string): Map<string, ts.Symbol> {
  const source = program.getSourceFile(join(ROOT, file));
  assert.ok(source, `${file} is compiled`);
  const module = checker.getSymbolAtLocation(source);
  assert.ok(module, `${file} is a module`);
  return new Map(checker.getExportsOfModule(module).map((symbol) => [symbol.name, symbol]));
}

/** Every identifier inside an inline code span of `text` (`ctx.elicit(params)` gives ctx, elicit, params). */
function codeWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    for (const word of span!.match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
  }
  return words;
}

/** The cells of a markdown table row, split on unescaped pipes. */
const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** The rows (cells) of the first table at or after the first line of `doc` containing `marker`, header and rule skipped. */
function tableAfter(marker: string, doc: keyof typeof DOCS = 'api.md'): string[][] {
  const LINES = DOCS[doc];
  const at = LINES.findIndex((line) => line.includes(marker));
  assert.notEqual(at, -1, `${doc} has ${JSON.stringify(marker)}`);
  let start = at;
  while (start < LINES.length && !LINES[start]!.startsWith('|')) start++;
  const rows: string[][] = [];
  for (let i = start + 2; i < LINES.length && LINES[i]!.startsWith('|'); i++) rows.push(cells(LINES[i]!));
  assert.ok(rows.length > 0, `a table follows ${JSON.stringify(marker)}`);
  return rows;
}

/** The names a table's first column documents: the leading identifier of each code span (`elicit(params)` → elicit). */
function firstColumnNames(rows: string[][]): string[] {
  return rows.flatMap((row) => [...row[0]!.matchAll(/`([A-Za-z_$][\w$]*)/g)].map((match) => match[1]!));
}

/** The property names of an exported interface (inherited ones included). */
function membersOf(file: string, name: string): string[] {
  const symbol = exportsOf(file).get(name);
  assert.ok(symbol, `${file} exports ${name}`);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return checker
    .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(target))
    .map((property) => property.name)
    .sort();
}

test('package.json exports only entries whose sources exist, and api.md has one entry-point row for each', () => {
  const rows = tableAfter('| entry point | exports |');
  const documented = rows.map((row) => /^`([^`]+)`/.exec(row[0]!)?.[1]);
  assert.deepEqual(documented.sort(), [...ENTRY_SOURCES.keys()].sort());
});

/** The sections of api.md (by their `## ` heading) where each entry's exports are documented, besides its own row. */
const ENTRY_SECTIONS: Record<string, string[]> = {
  'mcp-core': [
    'Server',
    'Middleware',
    'Extensions',
    'Registration and handles',
    'Visibility',
    'Scopes',
    'Handler context (`ctx`)',
    'Asking for input: `inputRequired`',
    'Types of `mcp-core`',
    'Errors',
    'Transports',
  ],
  'mcp-core/stdio': ['Transports'],
  'mcp-core/http': ['Transports', 'HTTP options (`HttpOptions`)'],
  'mcp-core/fetch': ['Transports', 'HTTP options (`HttpOptions`)'],
  'mcp-core/tasks': ['`mcp-core/tasks`'],
  'mcp-core/redis': ['`mcp-core/redis`'],
  'mcp-core/skills': ['Skills'],
  'mcp-core/skills-fs': ['Skills'],
  'mcp-core/otel': ['`mcp-core/otel`'],
  'mcp-core/jwt': ['`mcp-core/jwt`'],
  'mcp-core/apps': ['`mcp-core/apps`'],
  'mcp-core/testing': ['Transports'],
  'mcp-core/protocol': ['`mcp-core/protocol`'],
};

/** The prose and tables of api.md's `## ` section titled `title`, its `###` subsections included. */
function section(title: string): string {
  const at = LINES.indexOf(`## ${title}`);
  assert.notEqual(at, -1, `api.md has a section ## ${title}`);
  const end = LINES.findIndex((line, i) => i > at && line.startsWith('## '));
  return LINES.slice(at, end === -1 ? undefined : end).join('\n');
}

test("every value and type each entry exports is named in its entry's row or its own sections of api.md", () => {
  assert.deepEqual(Object.keys(ENTRY_SECTIONS).sort(), [...ENTRY_SOURCES.keys()].sort());
  const rows = new Map(
    tableAfter('| entry point | exports |').map((row) => [/^`([^`]+)`/.exec(row[0]!)![1]!, row[1]!]),
  );
  for (const [entry, file] of ENTRY_SOURCES) {
    // tasks.md is the tasks add-on's own reference.
    const own = [rows.get(entry)!, ...ENTRY_SECTIONS[entry]!.map(section)];
    if (entry === 'mcp-core/tasks') own.push(DOCS['tasks.md'].join('\n'));
    const documented = codeWords(own.join('\n'));
    const missing = [...exportsOf(file).keys()].filter((name) => !documented.has(name));
    assert.deepEqual(
      missing,
      [],
      `${entry} (${file}) exports names neither its row nor its sections of api.md mention`,
    );
  }
});

test('each entry-point row names only what that entry exports', () => {
  for (const row of tableAfter('| entry point | exports |')) {
    const entry = /^`([^`]+)`/.exec(row[0]!)![1]!;
    const exported = exportsOf(ENTRY_SOURCES.get(entry)!);
    // Another entry named in backticks is a cross-reference (the fetch row: "the same types as `mcp-core/http`").
    const named = [...row[1]!.matchAll(/`([^`]+)`/g)]
      .map((match) => match[1]!)
      .filter((name) => !ENTRY_SOURCES.has(name));
    assert.deepEqual(
      named.filter((name) => !exported.has(name)),
      [],
      `the ${entry} row names what it does not export`,
    );
  }
});

/**
 * The option and member tables: where each starts (in api.md unless `doc` says), the interface whose members it
 * documents, and the interface whose members it leaves to another table (`inherits`).
 */
const TABLES: { marker: string; file: string; name: string; doc?: keyof typeof DOCS; inherits?: string }[] = [
  { marker: '`ServerOptions`:', file: 'core.ts', name: 'ServerOptions' },
  { marker: '## HTTP options (`HttpOptions`)', file: 'http.ts', name: 'HttpOptions' },
  { marker: '`RedisEngineOptions` (the task rows', file: 'redis/redis.ts', name: 'RedisEngineOptions' },
  { marker: 'an `Extension` is an object with:', file: 'core.ts', name: 'Extension' },
  { marker: '| `TransportSide` member |', file: 'core.ts', name: 'TransportSide' },
  { marker: '## Handler context (`ctx`)', file: 'core.ts', name: 'Context' },
  { marker: '`StdioOptions` (`serveStdio`):', file: 'stdio.ts', name: 'StdioOptions' },
  { marker: '`ServeHttpOptions` (`serveHttp`;', file: 'http.ts', name: 'ServeHttpOptions', inherits: 'HttpOptions' },
  { marker: '`TestClientOptions` (`connectTestClient`):', file: 'testing.ts', name: 'TestClientOptions' },
  { marker: '`OpenTelemetryOptions` (`traceWithOpenTelemetry`):', file: 'otel/otel.ts', name: 'OpenTelemetryOptions' },
  { marker: '`JwtVerifierOptions` (`jwtVerifier`):', file: 'jwt/jwt.ts', name: 'JwtVerifierOptions' },
  { marker: '`AppResourceOptions` (`appResource`):', file: 'apps/apps.ts', name: 'AppResourceOptions' },
  { marker: '`AppToolOptions` (`appTool`;', file: 'apps/apps.ts', name: 'AppToolOptions' },
  {
    marker: '`TasksExtensionOptions` (`createTasksExtension',
    file: 'tasks/tasks-extension.ts',
    name: 'TasksExtensionOptions',
    doc: 'tasks.md',
  },
  {
    marker: '`MemoryTaskStoreOptions` (`new MemoryTaskStore',
    file: 'tasks/tasks-extension.ts',
    name: 'MemoryTaskStoreOptions',
    doc: 'tasks.md',
  },
];

for (const { marker, file, name, doc = 'api.md', inherits } of TABLES) {
  test(`${doc}'s ${name} table names exactly the members of ${name}`, () => {
    const documented = firstColumnNames(tableAfter(marker, doc)).sort();
    const inherited = inherits ? membersOf(file, inherits) : [];
    const members = membersOf(file, name).filter((member) => !inherited.includes(member));
    assert.deepEqual(
      {
        documentedButAbsent: documented.filter((option) => !members.includes(option)),
        presentButUndocumented: members.filter((member) => !documented.includes(member)),
      },
      { documentedButAbsent: [], presentButUndocumented: [] },
    );
  });
}

/**
 * The default columns checked against the sources: the table, the sources that apply its options, and the options
 * whose default is prose or has no literal in the sources, each with why.
 */
const DEFAULTS: { marker: string; files: string[]; unchecked: Record<string, string>; doc?: keyof typeof DOCS }[] = [
  {
    marker: '`ServerOptions`:',
    files: ['core.ts'],
    unchecked: {
      instructions: 'no default (–)',
      cache: 'an object, two defaults: `cache?.ttlMs ?? 0` and `cache?.scope ?? ...`',
      requestState: 'a random secret drawn at startup',
      changeBus: 'no default (–)',
      schemas: 'no default (–)',
      onInitialize: 'no default (–)',
      logger: 'a stderr logger object',
    },
  },
  {
    marker: '## HTTP options (`HttpOptions`)',
    files: [
      'http.ts',
      'http/http-core.ts',
      'http/http-guard.ts',
      'http/sessions.ts',
      'http/sse.ts',
      'http/exchange.ts',
    ],
    unchecked: {
      path: 'any path, and serveHttp its own default',
      allowedHosts: 'a list of hostnames',
      allowedOrigins: 'no default (–)',
      sessions: 'differs per entry (fetch: false): checked by its own test below',
      endStreamAfterPriming: 'no literal default: an absent option becomes the predicate of no request',
      sharedSessions: 'no default (–)',
      eventStore: 'a MemoryEventStore instance',
      cors: 'no default (–)',
      auth: 'no default (–)',
    },
  },
  {
    marker: '`RedisEngineOptions` (the task rows',
    files: ['redis/redis.ts', 'redis/redis-tasks.ts', 'redis/redis-link.ts'],
    unchecked: {},
  },
  {
    marker: '`StdioOptions` (`serveStdio`):',
    files: ['stdio.ts'],
    unchecked: { input: 'a stream object (process.stdin)', output: 'a stream object (process.stdout)' },
  },
  { marker: '`ServeHttpOptions` (`serveHttp`;', files: ['http.ts'], unchecked: {} },
  {
    marker: '`OpenTelemetryOptions` (`traceWithOpenTelemetry`):',
    files: ['otel/otel.ts'],
    unchecked: { tracer: 'no default (–)', api: 'no default (–)', logger: 'a stderr logger object' },
  },
  {
    marker: '`JwtVerifierOptions` (`jwtVerifier`):',
    files: ['jwt/jwt.ts'],
    unchecked: {
      issuer: 'no default (–)',
      audience: 'no default (–)',
      jwksUri: 'no default (–)',
      algorithms: 'every JwtAlgorithm: a list',
      fetch: "the runtime's fetch, a function",
      logger: 'a stderr logger object',
    },
  },
  {
    marker: '`AppResourceOptions` (`appResource`):',
    files: ['apps/apps.ts'],
    unchecked: {
      name: 'no default (–)',
      title: 'no default (–)',
      description: 'no default (–)',
      icons: 'no default (–)',
      html: 'no default (–)',
      csp: 'no default (–)',
      permissions: 'no default (–)',
      domain: 'no default (–)',
      prefersBorder: 'no default (–)',
    },
  },
  {
    marker: '`AppToolOptions` (`appTool`;',
    files: ['apps/apps.ts'],
    unchecked: { resourceUri: 'no default (–)', visibility: "no default (–): the host's is both" },
  },
  {
    marker: '`TasksExtensionOptions` (`createTasksExtension',
    files: ['tasks/tasks-extension.ts'],
    unchecked: { store: 'a MemoryTaskStore instance' },
    doc: 'tasks.md',
  },
  {
    marker: '`MemoryTaskStoreOptions` (`new MemoryTaskStore',
    files: ['tasks/task-store.ts'],
    unchecked: {},
    doc: 'tasks.md',
  },
];

for (const { marker, files, unchecked, doc = 'api.md' } of DEFAULTS) {
  test(`every default ${doc} states after ${JSON.stringify(marker)} is the one the sources apply`, () => {
    const rows = tableAfter(marker, doc);
    const names = rows.map((row) => /^`([A-Za-z_$][\w$]*)`/.exec(row[0]!)?.[1]);
    assert.deepEqual(
      Object.keys(unchecked).filter((name) => !names.includes(name)),
      [],
      'unchecked defaults of options the table no longer has',
    );
    const wrong: string[] = [];
    for (const row of rows) {
      const name = /^`([A-Za-z_$][\w$]*)`/.exec(row[0]!)![1]!;
      if (name in unchecked) continue;
      const stated = documentedDefault(row[1]!);
      const applied = sourceDefaults(files, name);
      if (stated === undefined) wrong.push(`${name}: ${doc}'s default ${JSON.stringify(row[1])} is not a value`);
      else if (applied.length === 0) wrong.push(`${name}: no default found in ${files.join(', ')}`);
      else if (applied.some((value) => value !== stated))
        wrong.push(`${name}: ${doc} says ${JSON.stringify(stated)}, the sources ${JSON.stringify(applied)}`);
    }
    assert.deepEqual(wrong, []);
  });
}

test("HttpOptions' sessions defaults to true over node:http and false over fetch, as api.md says", () => {
  const row = tableAfter('## HTTP options (`HttpOptions`)').find((cellsOf) => cellsOf[0] === '`sessions`')!;
  assert.equal(row[1], '`true` (fetch: `false`)');
  assert.deepEqual(sourceDefaults(['http/http-core.ts'], 'sessions'), [true, true]);
  assert.deepEqual(sourceDefaults(['fetch.ts'], 'sessions'), [false]);
});

/** The exported function or member `path` names (`createServer`, `TransportSide.checkArrival`), from any entry. */
function signatureOf(path: string): ts.Signature {
  const [head, member] = path.split('.') as [string, string | undefined];
  for (const file of ENTRY_SOURCES.values()) {
    let symbol = exportsOf(file).get(head);
    if (!symbol) continue;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const type =
      member === undefined
        ? checker.getTypeOfSymbol(symbol)
        : checker.getTypeOfSymbol(checker.getDeclaredTypeOfSymbol(symbol).getProperty(member)!);
    const [signature] = type.getCallSignatures();
    assert.ok(signature, `${path} is callable`);
    return signature;
  }
  assert.fail(`no entry exports ${head}`);
}

test('every "`f(…)` returns `T`" and "resolves to `T`" in api.md is the return type of f', () => {
  const claims = [...PROSE.matchAll(/`([A-Za-z]+)\([^`]*\)`(?:\*\*)? (returns|resolves to)(?: an?)? `([^`]+)`/g)];
  assert.ok(claims.length >= 5, 'api.md states the return types of the entry functions');
  for (const [, name, verb, stated] of claims) {
    let returned = checker.getReturnTypeOfSignature(signatureOf(name!));
    if (verb === 'resolves to') returned = checker.getAwaitedType(returned)!;
    const call = /^\(([^)]*)\) => (.+)$/.exec(stated!);
    if (call) {
      // A callable result: as many parameters, optional where documented `name?`, and the documented result.
      const [signature] = returned.getCallSignatures();
      assert.ok(signature, `${name} returns something callable`);
      const optional = call[1]!.split(',').map((param) => param.trim().endsWith('?'));
      const actual = signature.parameters.map((param) =>
        checker.isOptionalParameter(param.valueDeclaration as ts.ParameterDeclaration),
      );
      assert.deepEqual(optional, actual, `${name}'s result's parameters (true: optional)`);
      assert.equal(checker.typeToString(signature.getReturnType()), call[2], `${name}'s result's result`);
    } else {
      assert.equal(checker.typeToString(returned), stated, `${name}'s return type`);
    }
  }
});

test("the return types api.md's member tables state are the members' own", () => {
  for (const [path, stated] of [['TransportSide.checkArrival', 'readonly HeaderParam[]']] as const) {
    assert.ok(PROSE.includes(`\`${stated}\``), `api.md states ${path} returns ${stated}`);
    assert.equal(checker.typeToString(checker.getReturnTypeOfSignature(signatureOf(path))), stated);
  }
});

/** The tables that list an entry's exports by name: where each starts, its entry, and the column holding the names. */
const EXPORT_TABLES = [
  { marker: '## Types of `mcp-core`', entry: 'mcp-core', column: 0 },
  { marker: '## `mcp-core/tasks`', entry: 'mcp-core/tasks', column: 0 },
  { marker: '## `mcp-core/protocol`', entry: 'mcp-core/protocol', column: 1 },
] as const;

for (const { marker, entry, column } of EXPORT_TABLES) {
  test(`every name api.md's ${entry} export table lists is exported by ${entry}`, () => {
    const exported = exportsOf(ENTRY_SOURCES.get(entry)!);
    const listed = tableAfter(marker).flatMap((row) =>
      [...row[column]!.matchAll(/`([A-Za-z_$][\w$]*)[`(]/g)].map((match) => match[1]!),
    );
    assert.ok(listed.length > 0);
    assert.deepEqual(
      listed.filter((name) => !exported.has(name)),
      [],
    );
  });
}

test('every "a `Interface` (`member`, …; optional `member`, …)" in api.md lists exactly its members, optional ones last', () => {
  const claims = [...PROSE.matchAll(/an? `([A-Z]\w*)` \(((?:`\w+`(?:, |; optional )?)+)\)/g)];
  assert.ok(claims.length >= 3, 'api.md lists the members of ChangeBus, SharedSessionStore and EventStore');
  for (const [, name, list] of claims) {
    const [required, optional = ''] = list!.split('; optional ');
    const names = (text: string): string[] => [...text.matchAll(/`(\w+)`/g)].map((match) => match[1]!);
    let symbol = [...ENTRY_SOURCES.values()].map((file) => exportsOf(file).get(name!)).find(Boolean);
    assert.ok(symbol, `an entry exports ${name}`);
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol));
    const isOptional = (member: ts.Symbol): boolean => (member.flags & ts.SymbolFlags.Optional) !== 0;
    assert.deepEqual(
      { required: names(required!).sort(), optional: names(optional).sort() },
      {
        required: members
          .filter((member) => !isOptional(member))
          .map((member) => member.name)
          .sort(),
        optional: members
          .filter(isOptional)
          .map((member) => member.name)
          .sort(),
      },
      `api.md's member list of ${name}`,
    );
  }
});

/** Interfaces and classes an author or transport holds, whose every member api.md names (in its prose or a table). */
const MEMBERS_NAMED = [
  ['core.ts', 'Server'],
  ['core.ts', 'Registration'],
  ['core.ts', 'Connection'],
  ['core.ts', 'ConnectionOptions'],
  ['core.ts', 'ServerMetrics'],
  ['stdio.ts', 'StdioOptions'],
  ['stdio.ts', 'StdioServer'],
  ['http.ts', 'ServeHttpOptions'],
  ['http.ts', 'HttpServer'],
  ['http.ts', 'HttpHandler'],
  ['fetch.ts', 'FetchHandler'],
  ['fetch.ts', 'FetchRequestInfo'],
  ['testing.ts', 'TestClient'],
  ['testing.ts', 'TestClientOptions'],
  ['testing.ts', 'CallOptions'],
  ['redis/redis.ts', 'RedisEngine'],
  ['redis/redis.ts', 'RedisLink'],
  ['skills/skills.ts', 'SkillBundle'],
  ['skills/skills.ts', 'SkillRegistration'],
  ['skills/skills-fs.ts', 'LoadSkillOptions'],
] as const;

test('every member of the interfaces an author or a transport holds is named in api.md', () => {
  const documented = codeWords(PROSE);
  const missing = MEMBERS_NAMED.flatMap(([file, name]) =>
    membersOf(file, name)
      .filter((member) => !member.startsWith('#') && !documented.has(member))
      .map((member) => `${name}.${member}`),
  );
  assert.deepEqual(missing, []);
});

/**
 * Option interfaces an entry exports that have no option table here, each with why; every member of each is still
 * named in api.md or tasks.md (prose or tables).
 */
const NO_OPTION_TABLE: Record<string, string> = {
  ConnectionOptions: "a transport's seam with no literal defaults: its members are listed in the connect() row",
  FetchHandlerOptions: 'the HttpOptions under another name (its table is checked as HttpOptions)',
  RedisTaskOptions: "RedisEngineOptions' task rows (its table is checked as RedisEngineOptions)",
  AuthOptions: 'the auth option of HttpOptions, described in its row: no literal defaults',
  CallOptions: 'one callback, no default',
  LoadSkillOptions: 'one option (prefix) without a default',
  TaskStartOptions: "the task runner's per-call options, no defaults",
  RequestOptions: "per-request options of ctx calls; timeoutMs defaults to the server's requestTimeoutMs",
  DetachOptions: 'what an extension passes to ToolCall.detach, no defaults',
};

test('every option interface an entry exports has an option table checked here, or a reason it has none', () => {
  const exported = new Set([...ENTRY_SOURCES.values()].flatMap((file) => [...exportsOf(file).keys()]));
  const options = [...exported].filter((name) => name.endsWith('Options')).sort();
  const tabled = new Set(TABLES.map((table) => table.name));
  assert.deepEqual(
    {
      untabled: options.filter((name) => !tabled.has(name) && !(name in NO_OPTION_TABLE)),
      staleReasons: Object.keys(NO_OPTION_TABLE).filter((name) => !options.includes(name)),
    },
    { untabled: [], staleReasons: [] },
  );
  const named = codeWords(`${PROSE}\n${DOCS['tasks.md'].join('\n')}`);
  const unnamed = Object.keys(NO_OPTION_TABLE).flatMap((name) => {
    const file = [...ENTRY_SOURCES.values()].find((source) => exportsOf(source).has(name))!;
    return membersOf(file, name)
      .filter((member) => !named.has(member))
      .map((member) => `${name}.${member}`);
  });
  assert.deepEqual(unnamed, [], 'members of option interfaces without a table that no doc names');
});

test("api.md's close() window is the sources' own (its socket grace is a figure: test/doc-figures.test.ts)", () => {
  const stated = /`close\(drainWindowMs = (\d+)\)`/.exec(PROSE);
  assert.ok(stated, "api.md states serveHttp's close() window");
  assert.deepEqual(sourceDefaults(['http/http-core.ts'], 'drainWindowMs'), [Number(stated[1])]);
});

/**
 * The options an exported function or class takes, where api.md or tasks.md writes its call with an options object
 * (`serveStdio(server, {input, output, …})`, `new MemoryEventStore({maxEventsPerSession, maxSessions})`): every name
 * in the braces is a member of that parameter's type, and without `...Rest` or `…` the braces name all its members.
 */
test('every call api.md and tasks.md write with an options object names members of that parameter, all of them unless elided', () => {
  const exported = new Map(
    [...ENTRY_SOURCES.values()].flatMap((file) => [...exportsOf(file)]).map(([name, symbol]) => [name, symbol]),
  );
  const wrong: string[] = [];
  let checked = 0;
  const docs = [PROSE, DOCS['tasks.md'].join('\n')].join('\n');
  for (const [span, isNew, name, args] of docs.matchAll(/`(new )?([A-Za-z]\w*)\(([^`]*\{[^`]*)\)`/g)) {
    let symbol = exported.get(name!);
    if (!symbol) continue; // a method or a callback, not an export
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const type = checker.getTypeOfSymbol(symbol);
    const [signature] = isNew ? type.getConstructSignatures() : type.getCallSignatures();
    assert.ok(signature, `${name} is ${isNew ? 'constructible' : 'callable'}`);
    const at = args!.split(/, (?![^{]*\})/).findIndex((arg) => arg.startsWith('{'));
    if (at === -1) continue; // objects inside another argument (an array of them), not an options object
    const braces = /\{([^}]*)\}/.exec(args!)![1]!;
    const listed = braces
      .split(',')
      .map((part) => part.trim())
      .filter((part) => /^[A-Za-z_$]/.test(part))
      .map((part) => /^[A-Za-z_$][\w$]*/.exec(part)![0]);
    const parameter = signature.parameters[at]!;
    const parameterType = checker.getNonNullableType(checker.getTypeOfSymbol(parameter));
    if (checker.getIndexInfosOfType(parameterType).length > 0) continue; // a record: any names (elicitInput's params)
    const members = parameterType.getProperties().map((member) => member.name);
    checked++;
    const absent = listed.filter((member) => !members.includes(member));
    if (absent.length > 0) wrong.push(`${span}: ${name} takes no ${absent.join(', ')}`);
    const elided = braces.includes('...') || braces.includes('…');
    const unnamed = members.filter((member) => !listed.includes(member));
    if (!elided && unnamed.length > 0) wrong.push(`${span} leaves out ${unnamed.join(', ')} without eliding them`);
  }
  assert.ok(checked >= 5, 'api.md and tasks.md write calls with options objects');
  assert.deepEqual(wrong, []);
});

test("connectTestClient's defaults are the ones api.md's TestClientOptions table states", async () => {
  const cell = (option: string) =>
    tableAfter('`TestClientOptions` (`connectTestClient`):').find((row) => row[0] === `\`${option}\``)![1]!;
  assert.equal(cell('era'), "the era of `protocolVersion`, else `'modern'`");
  const [legacyVersion, modernVersion] = [...cell('protocolVersion').matchAll(/`'([^']+)'` \((legacy|modern)\)/g)]
    .sort((a, b) => a[2]!.localeCompare(b[2]!))
    .map((match) => match[1]!);
  const capabilities = Object.fromEntries(
    [...cell('capabilities').matchAll(/`(on\w+)`: `(\w+)`/g)].map((match) => [match[1]!, match[2]!]),
  );
  const info = /^`\{name: '([^']+)', version: '([^']+)'\}`$/.exec(cell('clientInfo'));
  assert.ok(info, "api.md's clientInfo default is a name and a version");

  const seen: unknown[] = [];
  const server = createServer(
    { name: 'defaults', version: '1.0.0' },
    { onInitialize: (params) => void seen.push(params.clientInfo, params.capabilities) },
  );
  const modern = await connectTestClient(server);
  assert.deepEqual([modern.era, modern.protocolVersion], ['modern', modernVersion]);
  await modern.close();
  const byVersion = await connectTestClient(server, { protocolVersion: '2025-06-18' });
  assert.equal(byVersion.era, 'legacy', 'the era of protocolVersion');
  await byVersion.close();
  const answer = () => ({});
  const legacy = await connectTestClient(server, {
    era: 'legacy',
    onElicit: answer,
    onSample: answer,
    onListRoots: answer,
  });
  assert.equal(legacy.protocolVersion, legacyVersion);
  await legacy.close();
  assert.deepEqual(seen.slice(-2), [
    { name: info[1], version: info[2] },
    Object.fromEntries(Object.values(capabilities).map((capability) => [capability, {}])),
  ]);
  assert.deepEqual(Object.keys(capabilities).sort(), ['onElicit', 'onListRoots', 'onSample']);
});
