// Package and layout: package.json and tsconfig as promised, zero runtime dependencies, root modules that
// import only node: built-ins and their siblings, add-on folder modules that import only node: built-ins, the core
// set and their siblings, and the built dist/ (made by `npm run build`, which `npm test` runs first) imported and
// serving a request on the machine's Node 20, through file URLs and through the exports map.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { closure, DECLARED_NEIGHBOURS, FOLDERS, modulesOf } from './imports.ts';
import { machineNode } from './machine-node.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const MODULES = modulesOf();
/** The modules of the add-on folders, by path from the root (`skills/skills.ts`). */
const FOLDER_MODULES = FOLDERS.flatMap((folder) => modulesOf(folder));

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-core-package-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `node script` with the given stdin lines, closes stdin, and returns the parsed stdout frames and exit. */
async function serveOnce(t: TestContext, node: string, script: string, lines: object[], cwd: string) {
  const child = spawn(node, [script], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when a test failed
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit');
  child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  const [code, signal] = await exit;
  assert.ok(stdout === '' || stdout.endsWith('\n'));
  const frames = stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  return { code, signal, frames, stderr };
}

const SESSION = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'package-test', version: '1.0.0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'node_version', arguments: {} } },
];

const SERVER_BODY = `
const server = createServer({ name: 'built-package', version: '1.2.3' });
server.tool('node_version', { inputSchema: { type: 'object', properties: {} } },
  () => ({ content: [{ type: 'text', text: process.version }] }));
serveStdio(server);
`;

function assertServed(run: Awaited<ReturnType<typeof serveOnce>>): void {
  assert.deepEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, run.stderr);
  assert.equal(run.frames.length, 2, JSON.stringify(run.frames));
  const [init, call] = run.frames;
  assert.equal(init.id, 1);
  assert.equal(init.result.protocolVersion, '2025-06-18');
  assert.deepEqual(init.result.serverInfo, { name: 'built-package', version: '1.2.3' });
  assert.equal(call.id, 2);
  assert.match(call.result.content[0].text, /^v20\./, 'the server ran on Node 20');
}

// ---------------------------------------------------------------------------------------------------------------
// package.json, tsconfig, files

test('package.json: ESM, no runtime dependencies of any kind, engines node >= 20, MIT', () => {
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.dependencies, {});
  assert.equal(pkg.peerDependencies, undefined);
  assert.equal(pkg.optionalDependencies, undefined);
  assert.equal(pkg.bundleDependencies ?? pkg.bundledDependencies, undefined);
  assert.match(pkg.engines.node, /^>=\s*20(\.0)?(\.0)?$/);
  assert.equal(pkg.license, 'MIT');
});

test('package.json: exports "." and "./stdio", each with its types first', () => {
  assert.deepEqual(pkg.exports['.'], { types: './dist/core.d.ts', default: './dist/core.js' });
  assert.deepEqual(pkg.exports['./stdio'], { types: './dist/stdio.d.ts', default: './dist/stdio.js' });
  for (const [subpath, entry] of Object.entries<Record<string, string>>(pkg.exports)) {
    assert.equal(Object.keys(entry)[0], 'types', `${subpath}: TypeScript reads the first matching condition`);
  }
  assert.deepEqual(
    Object.keys(pkg.exports).filter(
      (key) =>
        ![
          '.',
          './stdio',
          './http',
          './fetch',
          './protocol',
          './tasks',
          './redis',
          './skills',
          './skills-fs',
          './otel',
          './jwt',
          './apps',
          './testing',
        ].includes(key),
    ),
    [],
  );
});

test('package.json: dev tools are devDependencies, with a Node >= 22.19 for type stripping', () => {
  for (const tool of ['typescript', 'c8', '@types/node', 'node']) assert.ok(pkg.devDependencies[tool], tool);
  const [major, minor] = String(pkg.devDependencies.node)
    .replace(/^[\^~>=\s]+/, '')
    .split('.')
    .map(Number);
  assert.ok(major > 22 || (major === 22 && minor >= 19), `node ${pkg.devDependencies.node}`);
  assert.match(pkg.scripts.build, /\btsc\b/);
  assert.match(pkg.scripts.test, /npm run build/, 'the tests run on a fresh build');
});

test('tsconfig.json: strict, erasable syntax only, verbatim module syntax, .ts imports rewritten for dist/', () => {
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
  assert.equal(compilerOptions.strict, true);
  assert.equal(compilerOptions.erasableSyntaxOnly, true);
  assert.equal(compilerOptions.verbatimModuleSyntax, true);
  assert.equal(compilerOptions.rewriteRelativeImportExtensions, true);
  assert.equal(compilerOptions.declaration, true);
  assert.equal(compilerOptions.outDir, 'dist');
});

test('LICENSE is MIT and the README opens with the demo command and the test command that .ci/run runs', () => {
  assert.match(readFileSync(join(ROOT, 'LICENSE'), 'utf8'), /MIT License/);
  const head = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').slice(0, 8).join('\n');
  const demo = head.search(/npm[^\n]*\bstart\b/);
  const tests = head.search(/npm[^\n]*\btest\b/);
  assert.ok(demo !== -1 && tests !== -1 && demo < tests, head);
  assert.match(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'), /^npm test$/m);
});

test("the packed package holds only dist/*.js, dist/*.d.ts (an add-on folder's too), README.md, LICENSE and package.json", () => {
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  const files: string[] = JSON.parse(packed.stdout)[0].files.map((file: { path: string }) => file.path);
  const unexpected = files.filter(
    (file) =>
      !/^dist\/(?:[a-z]+\/)?[^/]+\.(js|d\.ts)$/.test(file) && !['README.md', 'LICENSE', 'package.json'].includes(file),
  );
  assert.deepEqual(unexpected, []);
  for (const file of ['dist/core.js', 'dist/core.d.ts', 'dist/stdio.js', 'dist/stdio.d.ts', 'README.md', 'LICENSE']) {
    assert.ok(files.includes(file), file);
  }
  for (const module of FOLDER_MODULES) {
    const base = `dist/${module.slice(0, -'.ts'.length)}`;
    assert.ok(files.includes(`${base}.js`) && files.includes(`${base}.d.ts`), `${base}.js and .d.ts are packed`);
  }
});

// ---------------------------------------------------------------------------------------------------------------
// Module layout

// Which modules may import from a folder is the layering test's declared edges (test/imports.ts, DECLARED_NEIGHBOURS).
test("every root module imports only node: built-ins, ./*.ts siblings and an add-on folder's ./<folder>/*.ts", () => {
  assert.ok(MODULES.includes('core.ts') && MODULES.includes('stdio.ts'));
  const builtins = new Set(builtinModules);
  for (const file of MODULES) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    const { importedFiles } = ts.preProcessFile(source, true, true); // imports, re-exports, import(), require()
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith('node:')) {
        assert.ok(builtins.has(specifier.slice('node:'.length)), `${file}: ${specifier} is not a Node built-in`);
        continue;
      }
      assert.match(specifier, /^\.\/(?:[a-z]+\/)?[^/]+\.ts$/, `${file} imports '${specifier}'`);
      const path = specifier.slice(2);
      assert.ok(MODULES.includes(path) || FOLDER_MODULES.includes(path), `${file}: ${specifier} is no module of ours`);
    }
  }
});

test("every add-on folder's module imports only node: built-ins, ../<core module>.ts, ./<sibling>.ts and a declared neighbour's ../<folder>/<module>.ts", () => {
  const core = closure('stdio.ts');
  const builtins = new Set(builtinModules);
  assert.ok(FOLDER_MODULES.includes('skills/skills.ts') && FOLDER_MODULES.includes('tasks/tasks-extension.ts'));
  for (const module of FOLDER_MODULES) {
    const folder = module.slice(0, module.indexOf('/'));
    const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, module), 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith('node:')) {
        assert.ok(builtins.has(specifier.slice('node:'.length)), `${module}: ${specifier} is not a Node built-in`);
        continue;
      }
      assert.match(specifier, /^(?:\.\/|\.\.\/(?:[a-z]+\/)?)[^/]+\.ts$/, `${module} imports '${specifier}'`);
      const neighbour = /^\.\.\/([a-z]+)\/(.+)$/.exec(specifier);
      if (neighbour !== null) {
        assert.ok(DECLARED_NEIGHBOURS[folder]!.includes(neighbour[1]!), `${module}: ${specifier} is no declared edge`);
        assert.ok(FOLDER_MODULES.includes(specifier.slice(3)), `${module}: ${specifier} is no module of ours`);
      } else if (specifier.startsWith('../'))
        assert.ok(core.has(specifier.slice(3)), `${module}: ${specifier} is not core`);
      else
        assert.ok(FOLDER_MODULES.includes(`${folder}/${specifier.slice(2)}`), `${module}: ${specifier} is no sibling`);
    }
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The build

test('npm run build emitted a current dist/*.js and .d.ts for every root and add-on folder module', () => {
  for (const file of [...MODULES, ...FOLDER_MODULES]) {
    const base = file.slice(0, -'.ts'.length);
    for (const built of [`${base}.js`, `${base}.d.ts`]) {
      const path = join(DIST, built);
      assert.ok(existsSync(path), `dist/${built} is missing: run npm run build`);
      assert.ok(
        statSync(path).mtimeMs >= statSync(join(ROOT, file)).mtimeMs,
        `dist/${built} is older than ${file}: run npm run build`,
      );
    }
  }
  for (const entry of Object.values<Record<string, string>>(pkg.exports)) {
    for (const target of Object.values(entry)) assert.ok(existsSync(join(ROOT, target)), target);
  }
});

test('the built JavaScript carries code only and the declarations keep every doc comment (the tarball: bench/README.md)', () => {
  /** The comments of `text` parsed as a module: the comment ranges around every node and token. */
  function comments(text: string): string[] {
    const found = new Set<string>();
    const visit = (node: ts.Node, source: ts.SourceFile): void => {
      for (const at of [node.pos, node.end]) {
        for (const range of [
          ...(ts.getLeadingCommentRanges(text, at) ?? []),
          ...(ts.getTrailingCommentRanges(text, at) ?? []),
        ]) {
          found.add(text.slice(range.pos, range.end));
        }
      }
      for (const child of node.getChildren(source)) visit(child, source);
    };
    const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true);
    visit(source, source);
    return [...found];
  }
  for (const file of [...MODULES, ...FOLDER_MODULES]) {
    const base = file.slice(0, -'.ts'.length);
    assert.deepEqual(comments(readFileSync(join(DIST, `${base}.js`), 'utf8')), [], `dist/${base}.js carries comments`);
    const docs = (text: string) => comments(text).filter((comment) => comment.startsWith('/**')).length;
    const declared = readFileSync(join(DIST, `${base}.d.ts`), 'utf8');
    if (/^export /m.test(declared) && docs(readFileSync(join(ROOT, file), 'utf8')) > 0) {
      assert.ok(docs(declared) > 0, `dist/${base}.d.ts lost the doc comments of ${file}`);
    }
  }
});

test('the built JavaScript imports ./*.js siblings, a folder ../*.js or ../<folder>/*.js, a root module ./<folder>/*.js (the .ts extensions were rewritten)', () => {
  const built = [
    ...readdirSync(DIST).filter((name) => name.endsWith('.js')),
    ...FOLDERS.flatMap((folder) =>
      readdirSync(join(DIST, folder))
        .filter((name) => name.endsWith('.js'))
        .map((name) => `${folder}/${name}`),
    ),
  ];
  assert.ok(built.includes('skills/skills.js') && built.includes('tasks/tasks-extension.js'), 'the folders are built');
  for (const file of built) {
    const inFolder = file.includes('/');
    const { importedFiles } = ts.preProcessFile(readFileSync(join(DIST, file), 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (specifier.startsWith('node:')) continue;
      assert.match(
        specifier,
        inFolder ? /^(?:\.\/|\.\.\/(?:[a-z]+\/)?)[^/]+\.js$/ : /^\.\/(?:[a-z]+\/)?[^/]+\.js$/,
        `dist/${file} imports '${specifier}'`,
      );
      assert.ok(existsSync(join(DIST, file, '..', specifier)), `dist/${file} imports the missing ${specifier}`);
    }
  }
});

test("the machine's Node is 20 and is not the dev Node running these tests", () => {
  const node = machineNode();
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  assert.match(version, /^v20\./, `${node} is ${version}`);
  // node24 and node26 (the runtime matrix) also declare a `node` bin, so npm scripts name the dev Node's path.
  assert.equal(process.version, `v${pkg.devDependencies.node}`, 'the tests themselves run on the dev Node');
  for (const script of ['start', 'test', 'conformance', 'bench', 'fuzz']) {
    assert.match(pkg.scripts[script], /node_modules\/node\/bin\/node /, `npm run ${script} names the dev Node`);
  }
});

test("the built package imported by file URL serves initialize and tools/call on the machine's Node 20", {
  timeout: 30_000,
}, async (t) => {
  const dir = tempDir(t);
  const script = join(dir, 'server.mjs');
  writeFileSync(
    script,
    [
      `import { createServer } from ${JSON.stringify(pathToFileURL(join(DIST, 'core.js')).href)};`,
      `import { serveStdio } from ${JSON.stringify(pathToFileURL(join(DIST, 'stdio.js')).href)};`,
      SERVER_BODY,
    ].join('\n'),
  );
  assertServed(await serveOnce(t, machineNode(), script, SESSION, dir));
});

test('the exports map resolves "mcp-core", "mcp-core/stdio" and the skills, tasks, OpenTelemetry, JWT and MCP Apps add-ons on Node 20, and internals stay private', {
  timeout: 30_000,
}, async (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'mcp-core'), 'dir');
  const script = join(dir, 'server.mjs');
  writeFileSync(
    script,
    [
      `import { createServer } from 'mcp-core';`,
      `import { serveStdio } from 'mcp-core/stdio';`,
      // Only the documented entry points are reachable; a deep import is refused by the exports map.
      `await import('mcp-core/dist/ndjson.js').then(() => process.exit(3), (error) => {`,
      `  if (error.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') process.exit(4);`,
      `});`,
      // The skills add-on resolves from its folder, its disk loader too.
      `const { addSkill } = await import('mcp-core/skills');`,
      `const { loadSkillDirectory } = await import('mcp-core/skills-fs');`,
      `if (typeof addSkill !== 'function' || typeof loadSkillDirectory !== 'function') process.exit(5);`,
      // The tasks add-on resolves from its folder.
      `const { createTasksExtension } = await import('mcp-core/tasks');`,
      `if (typeof createTasksExtension !== 'function') process.exit(6);`,
      // The OpenTelemetry add-on resolves from its folder.
      `const { traceWithOpenTelemetry } = await import('mcp-core/otel');`,
      `if (typeof traceWithOpenTelemetry !== 'function') process.exit(7);`,
      // The JWT verifier add-on resolves from its folder.
      `const { jwtVerifier } = await import('mcp-core/jwt');`,
      `if (typeof jwtVerifier !== 'function') process.exit(8);`,
      // The MCP Apps add-on resolves from its folder.
      `const { appResource, appTool } = await import('mcp-core/apps');`,
      `if (typeof appResource !== 'function' || typeof appTool !== 'function') process.exit(9);`,
      SERVER_BODY,
    ].join('\n'),
  );
  assertServed(await serveOnce(t, machineNode(), script, SESSION, dir));
});

test("the exports map's types serve a strict TypeScript consumer", { timeout: 60_000 }, (t) => {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'mcp-core'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'consumer.ts'),
    `
import { createServer, ProtocolError, type Context } from 'mcp-core';
import { addSkill, type SkillRegistration } from 'mcp-core/skills';
import { serveStdio, type StdioServer } from 'mcp-core/stdio';
import { createTasksExtension, type TasksExtension } from 'mcp-core/tasks';

const server = createServer({ name: 'consumer', version: '1.0.0' }, { pageSize: 10 });
const skill: SkillRegistration = addSkill(server, { skillMd: '---\\nname: notes\\ndescription: Notes.\\n---\\n' });
void skill;
const tasks: TasksExtension = createTasksExtension();
server.use(tasks);
server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' } } } },
  (args: { a: number }, ctx: Context) => {
    ctx.progress(1);
    if (args.a < 0) throw new ProtocolError(-32602, 'negative');
    return { content: [{ type: 'text', text: String(args.a + 1) }] };
  });
const stdio: StdioServer = serveStdio(server, { maxLineBytes: 1024 });
const closed: Promise<void> = stdio.closed;
void closed;
// The declarations are real types, not any: misuse is an error.
// @ts-expect-error name and version are required
createServer({});
// @ts-expect-error a skill bundle needs its SKILL.md text
addSkill(server, {});
// @ts-expect-error a task store is an object
createTasksExtension({ store: 'memory' });
// @ts-expect-error maxLineBytes is a number
serveStdio(server, { maxLineBytes: 'big' });
// mcp-core/tasks declares taskSupport on ToolDefinition (module augmentation).
server.tool('job', { taskSupport: 'optional' }, () => ({ content: [] }));
// @ts-expect-error taskSupport is 'optional' or 'required'
server.tool('never', { taskSupport: 'sometimes' }, () => ({ content: [] }));
`,
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['consumer.ts'],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});
