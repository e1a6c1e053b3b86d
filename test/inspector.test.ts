// Interop with the MCP Inspector's non-interactive CLI: it lists and calls tools in both eras over both
// transports. The CLI (@modelcontextprotocol/inspector, `--cli`) runs as a child of the dev Node
// (process.execPath, ≥ 22.19 as the Inspector requires) with a temporary HOME, since it keeps a catalog and client
// config under ~/.mcp-inspector. It reaches the demo server
//   - over stdio: the CLI itself spawns `node examples/everything.ts --stdio`;
//   - over HTTP: serveHttp(createEverythingServer(), { port: 0 }) in this process.
// The era is chosen with `--protocol-era legacy|modern|auto`: legacy runs the 2025 initialize handshake, modern sends
// enveloped requests (server/discover probe, then 2026-07-28 `_meta` on every request), auto probes and picks modern
// because the demo supports it. Each run is checked for the era actually spoken, not just for a successful exit: the
// `initialize` method reports the negotiated protocol version, tool lists differ per era (legacy-only and modern-only
// fixtures), a modern tool result carries the serverInfo stamp, and over HTTP every request's MCP-Protocol-Version
// header is recorded.
//
// Every child is bounded: its whole process group (the CLI and the stdio server it spawned) is killed when the
// deadline passes, and the run then fails with what the child printed. The deadline is a safety net against hangs;
// no assertion depends on time.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEverythingServer } from '../examples/everything.ts';
import { type HttpServer, serveHttp } from '../http.ts';

const LAUNCHER = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);
const DEMO = fileURLToPath(new URL('../examples/everything.ts', import.meta.url));
const CHILD_DEADLINE_MS = 60_000;
const T = { timeout: 2 * CHILD_DEADLINE_MS };

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const EVERYTHING_INFO = { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' };
const SIMPLE_TEXT = 'This is a simple text response for testing.';

type Era = 'legacy' | 'modern' | 'auto';
/** The era each `--protocol-era` must end up speaking with the demo (which supports both). */
const SPOKEN: Record<Era, string> = { legacy: LEGACY, modern: MODERN, auto: MODERN };

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `inspector --cli <args>` under the dev Node with a fresh temporary HOME, removed afterwards. */
async function inspector(args: string[]): Promise<Run> {
  const home = await mkdtemp(join(tmpdir(), 'mcp-core-inspector-'));
  try {
    return await runBounded(args, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Spawns the CLI; kills its whole process group (the CLI and any stdio server it spawned) on the deadline. */
function runBounded(args: string[], home: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    // No keychain on CI machines; keep any secret in memory instead of probing D-Bus.
    MCP_INSPECTOR_SECRET_STORE: 'memory',
  };
  // Coverage is collected for this repository's sources only; the Inspector's bundle would just add large files.
  delete env.NODE_V8_COVERAGE;
  const child = spawn(process.execPath, [LAUNCHER, '--cli', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so a kill also reaches the stdio server it spawned
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      reject(
        new Error(
          `inspector ${args.join(' ')} still running after ${CHILD_DEADLINE_MS} ms; stdout: ${stdout}; stderr: ${stderr}`,
        ),
      );
    }, CHILD_DEADLINE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the CLI with `--format json` and returns the `result` of its one JSON object, failing on any error exit. */
async function cliResult(target: string[], era: Era, method: string[]): Promise<Record<string, unknown>> {
  const run = await inspector(['--protocol-era', era, '--format', 'json', ...method, ...target]);
  assert.equal(run.code, 0, `exit ${run.code} (${run.signal}); stdout: ${run.stdout}; stderr: ${run.stderr}`);
  const output = JSON.parse(run.stdout) as { result?: Record<string, unknown> };
  assert.ok(output.result, `no result in ${run.stdout}`);
  return output.result;
}

function toolNames(result: Record<string, unknown>): string[] {
  return (result.tools as { name: string }[]).map((tool) => tool.name);
}

/** The list, call and era checks shared by both transports. */
function eraTests(era: Era, target: () => string[], afterRun: (version: string) => void = () => {}): void {
  const spoken = SPOKEN[era];

  test(`--protocol-era ${era}: initialize reports ${spoken} and the demo's serverInfo`, T, async () => {
    const result = await cliResult(target(), era, ['--method', 'initialize']);
    assert.equal(result.protocolVersion, spoken);
    assert.deepEqual(result.serverInfo, EVERYTHING_INFO);
    afterRun(spoken);
  });

  test(`--protocol-era ${era}: tools/list includes test_simple_text and only ${spoken} tools`, T, async () => {
    const names = toolNames(await cliResult(target(), era, ['--method', 'tools/list']));
    assert.ok(names.includes('test_simple_text'), `tools: ${names.join(', ')}`);
    // test_sampling is registered for the 2025 era only, test_missing_capability for 2026-07-28 only.
    assert.equal(names.includes('test_sampling'), spoken === LEGACY, `tools: ${names.join(', ')}`);
    assert.equal(names.includes('test_missing_capability'), spoken === MODERN, `tools: ${names.join(', ')}`);
    assert.equal(new Set(names).size, names.length, 'each tool listed once');
    afterRun(spoken);
  });

  test(`--protocol-era ${era}: tools/call test_simple_text returns its text`, T, async () => {
    const result = await cliResult(target(), era, ['--method', 'tools/call', '--tool-name', 'test_simple_text']);
    const expected: Record<string, unknown> = { content: [{ type: 'text', text: SIMPLE_TEXT }] };
    // A 2026-07-28 result is stamped with the server's identity and its result type; a 2025 result is not. (The
    // CLI's client keeps resultType once the server declares the tasks extension, whose results it tells apart by it.)
    if (spoken === MODERN) {
      expected._meta = { [SERVER_INFO]: EVERYTHING_INFO };
      expected.resultType = 'complete';
    }
    assert.deepEqual(result, expected);
    afterRun(spoken);
  });
}

// The two transports run side by side (each CLI run is mostly start-up); the runs within a transport stay in order,
// so the HTTP header record of one run is not mixed with another's.
describe('Inspector CLI', { concurrency: 2 }, () => {
  describe('Inspector CLI over stdio (the CLI spawns examples/everything.ts --stdio)', { concurrency: 1 }, () => {
    const target = () => ['--', process.execPath, DEMO, '--stdio'];
    for (const era of ['legacy', 'modern', 'auto'] as const) {
      describe(`--protocol-era ${era}`, () => eraTests(era, target));
    }
  });

  describe('Inspector CLI over HTTP (serveHttp in-process)', { concurrency: 1 }, () => {
    let http: HttpServer;
    /** MCP-Protocol-Version of every request of the current test ('' when absent: the 2025 initialize POST). */
    let versions: string[] = [];
    const record = (request: IncomingMessage) => {
      const header = request.headers['mcp-protocol-version'];
      versions.push(typeof header === 'string' ? header : '');
    };

    before(async () => {
      http = await serveHttp(createEverythingServer(), { port: 0 });
      http.httpServer.on('request', record);
    });

    beforeEach(() => {
      versions = [];
    });

    after(async () => {
      await http.close();
    });

    /** Every request of the run carried the spoken version; a 2025 run opens with one unversioned initialize POST. */
    const checkHeaders = (spoken: string) => {
      const seen = versions;
      const expected = spoken === LEGACY ? ['', ...seen.slice(1).map(() => LEGACY)] : seen.map(() => MODERN);
      assert.ok(seen.length > 0, 'the CLI sent requests');
      assert.deepEqual(seen, expected);
    };

    const target = () => ['--transport', 'http', '--server-url', http.url];
    for (const era of ['legacy', 'modern', 'auto'] as const) {
      describe(`--protocol-era ${era}`, () => eraTests(era, target, checkHeaders));
    }
  });
});
