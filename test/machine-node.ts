// The machine's Node (20), not the dev Node 22 that npm scripts run (node_modules/node/bin/node): the
// Node the package promises to run on, for the tests (and the benchmark) that run the built dist/ as users do.

import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';

/** npm's own Node when run from npm, else the first `node` on PATH outside node_modules, else the usual places. */
export function machineNode(): string {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'node'));
  const candidates = [process.env.npm_node_execpath, ...onPath, '/usr/local/bin/node', '/usr/bin/node'];
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '' || !existsSync(candidate)) continue;
    if (realpathSync(candidate).split(sep).includes('node_modules')) continue;
    return candidate;
  }
  throw new Error(`no Node outside node_modules among ${candidates.join(', ')}`);
}
