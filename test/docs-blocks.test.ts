// Docs that cannot drift: every fenced code block of README.md and docs/*.md in TypeScript or JavaScript is either a
// complete program or a fragment of a named example file, said by the HTML comment right before it:
//   <!-- program -->                     a complete program, type-checked (e.g. one that needs a Redis to run);
//   <!-- program: stdio -->              type-checked, then run and driven over stdio (initialize, tools/list);
//   <!-- program: http -->               type-checked, then run with PORT=0 and driven over HTTP; it prints its URL;
//   <!-- program: stdio as server.ts --> the same, written under that file name (another block imports it);
//   <!-- fragment: examples/x.ts -->     its lines (indentation, blank and import lines aside) occur in that order
//                                        in the example file, which tsconfig.check.json type-checks.
// The programs are type-checked together, in one `tsc --noEmit --strict` run (module and moduleResolution nodenext,
// the default lib with @types/node, as README.md tells TypeScript users), against the packed package installed in a
// fresh project (test/packed.ts). JSON blocks must parse (alone, or as the members of an object).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { installPacked, ROOT, run } from './packed.ts';

const T = { timeout: 240_000 }; // npm pack builds with tsc; a safety net against hangs only
const STEP_MS = 60_000;
const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
/** Packages the blocks import besides mcp-core (the Redis clients and the OpenTelemetry API of docs/http-deployment.md)
 * and @types/node. */
const LINKED = ['@types', 'undici-types', 'redis', '@redis', 'ioredis', '@ioredis', '@opentelemetry'];

interface Block {
  where: string; // file:line, for messages
  lang: string;
  code: string;
  marker: string | undefined;
}

/** Every fenced block of README.md and docs/*.md, with the HTML comment right before it, if any. */
function blocks(): Block[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)];
  const found: Block[] = [];
  for (const file of files.filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/^(?:<!-- ((?:program|fragment)[^>]*?) -->\n)?```(\w*)\n([\s\S]*?)^```$/gm)) {
      const line = text.slice(0, match.index).split('\n').length + (match[1] === undefined ? 0 : 1);
      found.push({ where: `${file}:${line}`, marker: match[1], lang: match[2]!, code: match[3]! });
    }
  }
  return found;
}

/** A fragment's or a file's lines as compared: trimmed, without blank lines and imports (specifiers differ). */
function meaningful(code: string): string[] {
  return code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('import '));
}

/** Whether `part` occurs as consecutive lines of `whole`. */
function occurs(part: string[], whole: string[]): boolean {
  for (let start = 0; start + part.length <= whole.length; start += 1) {
    if (part.every((line, i) => whole[start + i] === line)) return true;
  }
  return false;
}

/** Starts a program (bounded), killed when the test ends; returns it with its stderr so far. */
function start(t: TestContext, file: string, cwd: string) {
  const child = spawn(process.execPath, [file], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0' },
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
  const output = { stderr: '' };
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  t.after(() => {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, output };
}

/** A JSON-RPC answer as these checks read it. */
interface Answer {
  id?: number;
  result?: { protocolVersion?: string; capabilities?: { tools?: unknown }; tools?: unknown };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'docs', version: '1.0.0' } },
};

/** The second request: tools/list when the server has tools, else ping (a server without tools answers -32601). */
function followUp(init: Answer) {
  return { jsonrpc: '2.0', id: 2, method: init.result?.capabilities?.tools === undefined ? 'ping' : 'tools/list' };
}

/** Drives a stdio program: initialize, then tools/list or ping; returns both answers after its clean exit. */
async function driveStdio(t: TestContext, file: string, cwd: string) {
  const { child, output } = start(t, file, cwd);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    assert.ok(!line.done, `${file} closed stdout early; stderr:\n${output.stderr}`);
    return JSON.parse(line.value) as Answer;
  };
  const exit = once(child, 'exit');
  child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  const init = await next();
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  child.stdin.write(`${JSON.stringify(followUp(init))}\n`);
  const list = await next();
  child.stdin.end();
  assert.deepEqual(await exit, [0, null], output.stderr);
  return { init, list };
}

/** One JSON-RPC answer from an HTTP response, JSON or the `data:` of an SSE event. */
async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  assert.ok(data !== undefined, text);
  return JSON.parse(data.slice('data: '.length));
}

/** Drives an HTTP program: waits for the URL it prints, then initialize and a second request; stops it (SIGTERM). */
async function driveHttp(t: TestContext, file: string, cwd: string) {
  const { child, output } = start(t, file, cwd);
  let url: string | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    url = /https?:\/\/\S+/.exec(line)?.[0];
    if (url !== undefined) break;
  }
  assert.ok(url !== undefined, `${file} printed no URL; stderr:\n${output.stderr}`);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const first = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
  assert.equal(first.status, 200, output.stderr);
  const init = await answer(first);
  const session = first.headers.get('mcp-session-id');
  const second = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'mcp-protocol-version': '2025-11-25',
      ...(session === null ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify(followUp(init)),
  });
  assert.equal(second.status, 200, output.stderr);
  const list = await answer(second);
  const exit = once(child, 'exit');
  child.kill('SIGTERM');
  await exit;
  return { init, list };
}

test('every TypeScript and JavaScript block of the docs is marked a program or a fragment of an example', () => {
  const all = blocks();
  assert.ok(all.length > 10, 'the docs have code blocks');
  for (const block of all) {
    if (block.lang === 'json') {
      assert.doesNotThrow(() => {
        try {
          JSON.parse(block.code);
        } catch {
          JSON.parse(`{${block.code}}`);
        }
      }, `${block.where}: a json block parses`);
      continue;
    }
    if (!CODE.has(block.lang)) continue;
    assert.ok(block.marker !== undefined, `${block.where}: mark the block <!-- program… --> or <!-- fragment: … -->`);
    const fragment = /^fragment: (\S+)$/.exec(block.marker);
    if (fragment !== null) {
      const example = readFileSync(join(ROOT, fragment[1]!), 'utf8');
      assert.ok(occurs(meaningful(block.code), meaningful(example)), `${block.where} is not in ${fragment[1]}`);
    } else {
      assert.match(block.marker, /^program(: (stdio|http)( as [\w.-]+)?)?( \(.*\))?$/, block.where);
    }
  }
});

test(
  'the docs programs type-check with --strict against the packed package, and the runnable ones serve',
  T,
  async (t) => {
    const temp = mkdtempSync(join(tmpdir(), 'mcp-core-docs-'));
    t.after(() => rmSync(temp, { recursive: true, force: true }));
    const project = await installPacked(t, temp);
    for (const name of LINKED) {
      symlinkSync(join(ROOT, 'node_modules', name), join(project, 'node_modules', name), 'dir');
    }
    const dir = join(project, 'blocks');
    mkdirSync(dir);
    const runs: { file: string; wire: string; where: string }[] = [];
    for (const block of blocks()) {
      const program = /^program(?:: (stdio|http)(?: as ([\w.-]+))?)?/.exec(block.marker ?? '');
      if (!CODE.has(block.lang) || program === null) continue;
      const js = block.lang !== 'ts' && block.lang !== 'typescript';
      const file = program[2] ?? `${block.where.replace(/\W/g, '-')}.${js ? 'mjs' : 'ts'}`;
      writeFileSync(join(dir, file), block.code);
      if (program[1] !== undefined) runs.push({ file, wire: program[1], where: block.where });
    }
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          types: ['node'],
          allowJs: true,
          checkJs: true,
          allowImportingTsExtensions: true, // start.mjs imports ./server.ts, as Node runs it
        },
        include: ['blocks'],
      }),
    );
    await run(t, process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], project);

    assert.ok(
      runs.some((r) => r.wire === 'stdio') && runs.some((r) => r.wire === 'http'),
      'a stdio and an HTTP block run',
    );
    for (const { file, wire, where } of runs) {
      const { init, list } = wire === 'stdio' ? await driveStdio(t, file, dir) : await driveHttp(t, file, dir);
      assert.equal(init.id, 1, where);
      assert.equal(init.result?.protocolVersion, '2025-11-25', where);
      assert.equal(list.id, 2, where);
      if (init.result?.capabilities?.tools === undefined)
        assert.deepEqual(list.result, {}, where); // ping
      else assert.ok(Array.isArray(list.result?.tools), `${where}: ${JSON.stringify(list)}`);
    }
  },
);
