// The package as a user installs it: `npm pack` in a temporary copy of the package (root .ts files, package.json,
// tsconfig.json, README, LICENSE, the add-on folders, node_modules linked for tsc, so its prepack build never
// rewrites the repository's dist/ under other test files), then the tarball installed offline into a fresh project.
// Shared by test/quickstart.test.ts and test/docs-blocks.test.ts.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FOLDERS } from './imports.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STEP_MS = 90_000;

/** Runs a command to completion (bounded), failing with its output on a non-zero exit. */
export async function run(t: TestContext, command: string, args: string[], cwd: string): Promise<string> {
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), STEP_MS);
  t.after(() => clearTimeout(timer));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, `${command} ${args.join(' ')}\n${output}`);
  return output;
}

/** Packs the package and installs the tarball into `<temp>/project` (nothing else installed); returns its path. */
export async function installPacked(t: TestContext, temp: string): Promise<string> {
  const source = join(temp, 'source');
  mkdirSync(source);
  for (const name of readdirSync(ROOT)) {
    if (
      (name.endsWith('.ts') && !name.endsWith('.d.ts')) ||
      ['package.json', 'tsconfig.json', 'README.md', 'LICENSE'].includes(name)
    ) {
      copyFileSync(join(ROOT, name), join(source, name));
    }
  }
  for (const folder of FOLDERS) {
    cpSync(join(ROOT, folder), join(source, folder), { recursive: true }); // the add-on folders the package ships
  }
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const packed = join(temp, 'packed');
  mkdirSync(packed);
  await run(t, 'npm', ['pack', '--pack-destination', packed, '--silent'], source);
  const [tarball] = readdirSync(packed).filter((name) => name.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack wrote a tarball');

  // A fresh project with only the tarball installed (zero dependencies: nothing to fetch).
  const project = join(temp, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'quickstart', version: '1.0.0', private: true, type: 'module' }),
  );
  await run(t, 'npm', ['install', '--no-audit', '--no-fund', '--offline', join(packed, tarball)], project);
  const installed = join(project, 'node_modules', 'mcp-core');
  assert.ok(existsSync(join(installed, 'dist', 'core.js')) && existsSync(join(installed, 'dist', 'core.d.ts')));
  assert.deepEqual(
    readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.')),
    ['mcp-core'],
    'no dependencies installed',
  );
  return project;
}
