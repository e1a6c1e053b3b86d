// A child process for the concurrent-change tests in test/skills-fs.test.ts, which cannot run in the test runner:
// a load that hangs would hang it, and the swaps are injected into node:fs/promises, which loadSkillDirectory uses.
// `load <root> [--swap <name> <entry> grow|fifo|folder|link:<target>] [--no-proc]` loads the skill at <root> and
// writes one JSON line, {files} or {error}; `--swap` changes <entry> (a path from <root>) as soon as the loader has
// listed the entry named <name> (its lstat() returned), so the change lands between that listing and the next open
// every time: `grow` appends to a file, `fifo` replaces a file by a FIFO (mkfifo(1)), `folder` a folder by an empty
// one, `link:<target>` a folder by a symbolic link to <target>; what it replaces stays beside it as `<entry>.old`.
// `--no-proc` makes /proc/self/fd unreadable, as on a system without /proc. `mutate <root> <target>` swaps the
// folder <root>/sub for a symbolic link to <target> and back, without end, after writing `ready`.

import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { basename, join } from 'node:path';

const [mode, root, ...rest] = process.argv.slice(2);

if (mode === 'mutate') {
  const sub = join(root, 'sub');
  const folder = join(root, '.sub-folder');
  const link = join(root, '.sub-link');
  symlinkSync(rest[0], link);
  process.stdout.write('ready\n');
  // rename(2) is atomic: `sub` is the folder or the link at every moment but the one between each pair. Each stays a
  // millisecond, about a load's time, so that a load may see the folder listed and the link opened.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    renameSync(sub, folder);
    renameSync(link, sub);
    Atomics.wait(pause, 0, 0, 1);
    renameSync(sub, link);
    renameSync(folder, sub);
    Atomics.wait(pause, 0, 0, 1);
  }
}

const fsp = createRequire(import.meta.url)('node:fs/promises') as typeof import('node:fs/promises');
const swap = rest.indexOf('--swap');
if (swap !== -1) {
  const [when, entry, how] = rest.slice(swap + 1, swap + 4);
  const lstat = fsp.lstat;
  let done = false;
  fsp.lstat = (async (path: string, ...more: []) => {
    const stats = await lstat(path, ...more);
    // The loader looks entries up by their name under the folder it holds, whatever path that folder has.
    if (!done && basename(path) === when) {
      done = true;
      const target = join(root, entry);
      if (how === 'grow') appendFileSync(target, ', grown');
      else {
        renameSync(target, `${target}.old`);
        if (how === 'fifo') execFileSync('mkfifo', [target]);
        else if (how === 'folder') mkdirSync(target);
        else symlinkSync(how.slice('link:'.length), target);
      }
    }
    return stats;
  }) as typeof fsp.lstat;
}
if (rest.includes('--no-proc')) {
  const stat = fsp.stat;
  fsp.stat = (async (path: string, ...more: []) => {
    if (String(path).startsWith('/proc/')) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return stat(path, ...more);
  }) as typeof fsp.stat;
}
syncBuiltinESMExports();

const { loadSkillDirectory } = await import('../skills/skills-fs.ts');
try {
  const bundle = await loadSkillDirectory(root);
  process.stdout.write(`${JSON.stringify({ files: bundle.files })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
}
