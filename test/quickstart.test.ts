// The README's quick start works verbatim: the package is packed with `npm pack` (its prepack script
// builds dist/), installed from the tarball into a fresh project, and the README's first ```ts block importing
// 'mcp-core' is written there as the server and driven over stdio: (a) as .ts under the dev Node (type stripping;
// 'mcp-core' resolves to the installed dist/*.js with its .d.ts), and (b) on the machine's Node 20, which cannot
// strip types: there the same file runs after the dev Node's own `stripTypeScriptTypes` (node:module) turned it
// into JavaScript, i.e. what a user compiling the README's snippet would run, with nothing else changed.
//
// The pack and the install are test/packed.ts's.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type TestContext, test } from 'node:test';
import { machineNode } from './machine-node.ts';
import { installPacked, ROOT, run } from './packed.ts';

const T = { timeout: 180_000 }; // npm pack builds with tsc; a safety net against hangs only
const STEP_MS = 90_000;

/** The first ```ts block of README.md that imports from 'mcp-core'. */
function readmeServer(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const match of readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
    if (/from ['"]mcp-core['"]/.test(match[1]!)) return match[1]!;
  }
  throw new Error("README.md has no ```ts block importing from 'mcp-core'");
}

/** A placeholder value for each required argument, from the tool's input schema. */
function argumentsFor(schema: {
  properties?: Record<string, { type?: string }>;
  required?: string[];
}): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : 'Paris';
  }
  return args;
}

/** Talks to the server over stdio: initialize, tools/list, then calls the first tool; returns the frames. */
async function drive(t: TestContext, node: string, script: string, cwd: string) {
  const child = spawn(node, [script], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
  t.after(() => {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only when a test failed
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit');
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const send = (frame: object) => child.stdin.write(`${JSON.stringify(frame)}\n`);
  const next = async () => {
    const line = await lines.next();
    assert.ok(!line.done, `the server closed stdout early; stderr:\n${stderr}`);
    return JSON.parse(line.value);
  };
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'quickstart', version: '1.0.0' } },
  });
  const init = await next();
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const list = await next();
  const tool = list.result?.tools?.[0];
  assert.ok(tool, JSON.stringify(list));
  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: tool.name, arguments: argumentsFor(tool.inputSchema) },
  });
  const call = await next();
  child.stdin.end();
  const [code, signal] = await exit;
  clearTimeout(timer);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
  return { init, call };
}

test(
  'the README quick start runs verbatim from the packed tarball: as .ts on the dev Node and stripped on Node 20',
  T,
  async (t) => {
    const temp = mkdtempSync(join(tmpdir(), 'mcp-core-quickstart-'));
    t.after(() => rmSync(temp, { recursive: true, force: true }));

    const project = await installPacked(t, temp);

    const code = readmeServer();
    writeFileSync(join(project, 'server.ts'), code);
    writeFileSync(join(project, 'server.js'), stripTypeScriptTypes(code));

    const node20 = machineNode();
    for (const [node, script] of [
      [process.execPath, 'server.ts'],
      [node20, 'server.js'],
    ] as const) {
      const { init, call } = await drive(t, node, script, project);
      assert.equal(init.id, 1);
      assert.equal(init.result.protocolVersion, '2025-11-25', `${node} ${script}`);
      assert.equal(typeof init.result.serverInfo.name, 'string');
      assert.equal(call.id, 3);
      assert.equal(call.result?.isError, undefined, `${node} ${script}: ${JSON.stringify(call)}`);
      assert.equal(call.result.content[0].type, 'text');
      assert.ok(call.result.content[0].text.length > 0);
    }
    const version = await run(t, node20, ['--version'], project);
    assert.match(version, /^v20\./, "the compiled run used the machine's Node 20");
  },
);
