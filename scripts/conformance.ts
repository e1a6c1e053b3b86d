// Runs the official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency) against the
// demo server (examples/everything.ts) served in-process over Streamable HTTP on a loopback port.
// Runs: the frozen 2025-11-25 and 2026-07-28 requirement sets (scored: the CLI's exit code counts), the two
// pending header scenarios (any FAILURE counts), and server-sse-polling and the tasks and skills extensions' scenarios
// each on its own (exercised: each must report at least one SUCCESS and nothing but SUCCESS or INFO, so a scenario that
// skips its checks fails). Prints each run's summary and every FAILURE from checks.json.
// `npm run conformance` (needs Node >= 22: the project's dev Node, node_modules/.bin/node, is first on npm's PATH).

import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createEverythingServer, EVERYTHING_HTTP_OPTIONS } from '../examples/everything.ts';
import { serveHttp } from '../http.ts';

const CLI = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const SCENARIO_TIMEOUT_MS = 20_000;
/** Wall-clock guard per CLI run on top of the suite's per-scenario timeout. */
const RUN_GUARD_MS = { requirements: 15 * 60_000, scenario: 2 * 60_000 };
const DETAILS_CHARS = 400;

interface Run {
  name: string;
  /**
   * scored: the CLI's exit code decides; pending: any FAILURE in checks.json decides; exercised: at least one SUCCESS
   * and no check other than SUCCESS or INFO.
   */
  kind: 'scored' | 'pending' | 'exercised';
  args: string[];
}

interface Check {
  id?: string;
  name?: string;
  status?: string;
  errorMessage?: string;
  details?: unknown;
}

interface Outcome {
  exitCode: number | null;
  output: string;
  timedOut: boolean;
}

const RUNS: Run[] = [
  { name: 'r2025', kind: 'scored', args: ['--requirements', '2025-11-25'] },
  { name: 'r2026', kind: 'scored', args: ['--requirements', '2026-07-28'] },
  {
    name: 'http-header-validation',
    kind: 'pending',
    args: ['--scenario', 'http-header-validation', '--spec-version', '2026-07-28'],
  },
  {
    name: 'http-custom-header-server-validation',
    kind: 'pending',
    args: ['--scenario', 'http-custom-header-server-validation', '--spec-version', '2026-07-28'],
  },
  {
    name: 'server-sse-polling',
    kind: 'exercised',
    args: ['--scenario', 'server-sse-polling', '--spec-version', '2025-11-25'],
  },
  // The tasks extension (io.modelcontextprotocol/tasks) is not on the spec timeline, so each scenario runs by name.
  // tasks-status-notifications is left out: the suite reports it SKIPPED whatever the server does (its harness
  // awaits a subscriptions/listen rewrite); test/tasks-modern.test.ts covers notifications/tasks instead.
  ...[
    'tasks-lifecycle',
    'tasks-capability-negotiation',
    'tasks-wire-fields',
    'tasks-request-state-removal',
    'tasks-mrtr-input',
    'tasks-request-headers',
    'tasks-dispatch-and-envelope',
    'tasks-required-task-error',
    'tasks-mrtr-composition',
  ].map((scenario): Run => ({ name: scenario, kind: 'exercised', args: ['--scenario', scenario] })),
  // The skills extension (io.modelcontextprotocol/skills, SEP-2640) is off the spec timeline too: each scenario runs by
  // name at the suite's version for extension scenarios, 2026-07-28 (a --spec-version without --force skips it).
  ...['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'].map(
    (scenario): Run => ({ name: scenario, kind: 'exercised', args: ['--scenario', scenario] }),
  ),
];

let child: ReturnType<typeof spawn> | undefined;

/** Runs the CLI once; its output goes to `<outDir>.log` and is returned for the summary. */
function runCli(url: string, run: Run, outDir: string): Promise<Outcome> {
  const args = [CLI, 'server', '--url', url, ...run.args, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outDir];
  const log = createWriteStream(`${outDir}.log`);
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, {
      cwd: tmpdir(),
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let timedOut = false;
    const guard = setTimeout(
      () => {
        timedOut = true;
        proc.kill('SIGKILL');
      },
      run.kind === 'scored' ? RUN_GUARD_MS.requirements : RUN_GUARD_MS.scenario,
    );
    const collect = (chunk: Buffer): void => {
      chunks.push(chunk);
      log.write(chunk);
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    proc.once('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    proc.once('close', (code) => {
      clearTimeout(guard);
      child = undefined;
      log.end();
      resolve({ exitCode: code, output: Buffer.concat(chunks).toString('utf8'), timedOut });
    });
  });
}

/** The CLI's closing summary, or the output's tail when it never got there. */
function summaryOf(output: string): string {
  // A requirements run ends with `=== SUMMARY ===` and the per-scenario lines; a single scenario prints
  // `Test Results:` and `Passed: N/M, F failed, W warnings`, then the text of each failed check (reported below anyway).
  const summary = output.indexOf('=== SUMMARY ===');
  if (summary !== -1) return output.slice(summary).trimEnd();
  const results = output.indexOf('Test Results:');
  if (results !== -1) return output.slice(results).split('\n').slice(0, 2).join('\n').trimEnd();
  return ['(no summary; last lines of output)', ...output.trimEnd().split('\n').slice(-40)].join('\n');
}

/** Scenarios the CLI listed under "Not scored for <rev>:" (`  ✓|✗ <scenario> (<reason>)`). */
function notScoredOf(output: string): Set<string> {
  const out = new Set<string>();
  const at = output.indexOf('Not scored for');
  if (at === -1) return out;
  for (const line of output.slice(at).split('\n').slice(1)) {
    const match = /^\s+\S+\s+(\S+)\s+\(([^)]*)\)\s*$/.exec(line);
    if (match !== null) out.add(match[1]);
  }
  return out;
}

/** Every checks.json under `dir`, with the scenario name taken from its folder `server-<scenario>-<timestamp>`. */
async function readChecks(dir: string): Promise<{ scenario: string; checks: Check[] }[]> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch {
    return [];
  }
  const out: { scenario: string; checks: Check[] }[] = [];
  for (const entry of entries.filter((name) => name.endsWith('checks.json')).sort()) {
    const folder = entry.split(/[\\/]/).at(-2) ?? entry;
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(folder)?.[1] ?? folder;
    try {
      const parsed: unknown = JSON.parse(await readFile(join(dir, entry), 'utf8'));
      out.push({ scenario, checks: Array.isArray(parsed) ? (parsed as Check[]) : [] });
    } catch (error) {
      out.push({
        scenario,
        checks: [{ id: '(unreadable checks.json)', status: 'FAILURE', errorMessage: String(error) }],
      });
    }
  }
  return out;
}

function trimmed(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > DETAILS_CHARS ? `${text.slice(0, DETAILS_CHARS)}…` : text;
}

async function main(): Promise<number> {
  const outRoot = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
  const http = await serveHttp(createEverythingServer(), { ...EVERYTHING_HTTP_OPTIONS, port: 0 });
  const stop = (): void => {
    child?.kill('SIGKILL');
    void http.close();
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`conformance ${CLI}\nserver ${http.url}\nresults ${outRoot}\n`);

  const problems: string[] = [];
  try {
    for (const run of RUNS) {
      const outDir = join(outRoot, run.name);
      console.log(`=== ${run.name} (${run.kind}): server ${run.args.join(' ')} ===`);
      const started = Date.now();
      const outcome = await runCli(http.url, run, outDir);
      console.log(summaryOf(outcome.output));
      console.log(
        `exit ${outcome.exitCode ?? 'signal'}${outcome.timedOut ? ' (killed by the run guard)' : ''}, ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s, full log ${outDir}.log\n`,
      );

      const notScored = notScoredOf(outcome.output);
      const results = await readChecks(outDir);
      let failures = 0;
      for (const { scenario, checks } of results) {
        for (const check of checks) {
          if (check.status !== 'FAILURE') continue;
          failures += 1;
          const tag = notScored.has(scenario) ? ' (not scored)' : '';
          console.log(
            `FAILURE ${run.name} ${scenario}${tag} ${check.id ?? '?'}: ${check.errorMessage ?? check.name ?? ''}`,
          );
          const details = trimmed(check.details);
          if (details !== '') console.log(`    details ${details}`);
        }
      }
      if (failures > 0) console.log('');

      if (outcome.timedOut) problems.push(`${run.name}: killed after the run guard`);
      if (results.length === 0) problems.push(`${run.name}: no checks.json was written`);
      if (run.kind === 'scored' && outcome.exitCode !== 0)
        problems.push(`${run.name}: exit ${outcome.exitCode ?? 'signal'}`);
      if (run.kind === 'pending' && failures > 0) problems.push(`${run.name}: ${failures} FAILURE check(s)`);
      if (run.kind === 'exercised') {
        const checks = results.flatMap((result) => result.checks);
        const passed = checks.filter((check) => check.status === 'SUCCESS').length;
        const other = checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO');
        console.log(`${run.name}: ${passed} SUCCESS check(s), ${other.length} other than SUCCESS or INFO\n`);
        if (passed === 0 || other.length > 0)
          problems.push(
            `${run.name}: ${passed} SUCCESS check(s)${other.map((check) => `, ${check.id} ${check.status}`).join('')}`,
          );
      }
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // close() waits for open streams to end; the process exits right after in any case.
    await Promise.race([http.close(), delay(5_000)]);
  }

  if (problems.length > 0) {
    console.log(`conformance FAILED:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    return 1;
  }
  console.log(
    'conformance passed: scored runs exited 0, the pending header scenarios have no FAILURE, server-sse-polling, the tasks and the skills scenarios passed every check they made',
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    child?.kill('SIGKILL');
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
