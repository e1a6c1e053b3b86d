// Loading a skill's folder from disk (skills/skills-fs.ts, docs/skills.md "Loading from disk") in temporary folders:
// the bundle it gives (UTF-8 files as text, others as bytes, hidden entries skipped, the folder's name), served as is,
// the folders it refuses (no SKILL.md, a symbolic link, past the limits, a name the frontmatter does not have), and the
// folder changed while it loads (test/skills-fs-child.ts): a FIFO or a link swapped in is never waited on or followed.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer } from '../core.ts';
import { addSkill, MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../skills/skills.ts';
import { loadSkillDirectory } from '../skills/skills-fs.ts';
import { MemoryLogger } from './harness.ts';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Works with PDF files.\n---\n# PDF\n';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
/** 'café' in Latin-1: no NUL, yet not UTF-8, so bytes. */
const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);

/** A temporary folder holding `files` (path → content) under a skill folder named `name`; removed after the test. */
async function folder(t: TestContext, name: string, files: Record<string, string | Buffer>): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'mcp-skill-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, name);
  await mkdir(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

test('a folder loads into the bundle addSkill() serves: text as text, bytes as bytes, hidden entries skipped', async (t) => {
  const root = await folder(t, 'pdf-processing', {
    'SKILL.md': SKILL_MD,
    'references/FORMS.md': '# Forms ünïcode\n',
    'assets/logo.png': PNG,
    'assets/latin1.txt': LATIN1,
    '.git/config': 'hidden',
    '.DS_Store': 'hidden',
  });
  const bundle = await loadSkillDirectory(root, { prefix: 'acme' });
  assert.deepEqual(
    { ...bundle, files: { ...bundle.files } },
    {
      skillMd: SKILL_MD,
      files: {
        'assets/latin1.txt': new Uint8Array(LATIN1),
        'assets/logo.png': new Uint8Array(PNG),
        'references/FORMS.md': '# Forms ünïcode\n',
      },
      name: 'pdf-processing',
      prefix: 'acme',
    },
  );
  const server = createServer({ name: 's', version: '1' }, { logger: new MemoryLogger() });
  assert.equal(addSkill(server, bundle).uri, 'skill://acme/pdf-processing/SKILL.md');
});

test('a folder whose name is not the frontmatter name is refused by addSkill(server, )', async (t) => {
  const root = await folder(t, 'pdf', { 'SKILL.md': SKILL_MD });
  const server = createServer({ name: 's', version: '1' }, { logger: new MemoryLogger() });
  await assert.rejects(
    (async () => addSkill(server, await loadSkillDirectory(root)))(),
    /the frontmatter's name must be its folder's name, 'pdf'/,
  );
});

test('no SKILL.md, a non-UTF-8 SKILL.md, or a symbolic link anywhere in the folder is refused, naming it', async (t) => {
  const empty = await folder(t, 'empty', { 'README.md': 'x' });
  await assert.rejects(loadSkillDirectory(empty), /there is no SKILL.md/);
  const binary = await folder(t, 'binary', { 'SKILL.md': Buffer.from([0xff, 0xfe, 0x00]) });
  await assert.rejects(loadSkillDirectory(binary), /SKILL.md is not UTF-8 text/);
  const linked = await folder(t, 'linked', { 'SKILL.md': SKILL_MD, 'references/a.md': 'a' });
  await symlink('/etc/passwd', join(linked, 'references', 'passwd'));
  await assert.rejects(loadSkillDirectory(linked), /references\/passwd is a symbolic link/);
});

test('a folder past the file count or the byte limit is refused before it is read past it', async (t) => {
  const many: Record<string, string> = { 'SKILL.md': SKILL_MD };
  for (let index = 0; index < MAX_SKILL_FILES; index++) many[`f/${String(index).padStart(3, '0')}.txt`] = 'x';
  await assert.rejects(loadSkillDirectory(await folder(t, 'many', many)), /more than 512 files/);
  const big = await folder(t, 'big', { 'SKILL.md': SKILL_MD, 'big.bin': Buffer.alloc(MAX_SKILL_BYTES) });
  await assert.rejects(loadSkillDirectory(big), /more than 16777216 bytes/);
});

test('a file named __proto__ is a file like any other; a path ending in /. names its folder', async (t) => {
  const root = await folder(t, 'pdf-processing', { 'SKILL.md': SKILL_MD, ['__proto__']: 'odd but legal' });
  const bundle = await loadSkillDirectory(`${root}/.`);
  assert.equal(bundle.name, 'pdf-processing');
  assert.deepEqual(Object.keys(bundle.files!), ['__proto__']);
  const server = createServer({ name: 's', version: '1' }, { logger: new MemoryLogger() });
  addSkill(server, bundle);
});

test('a folder that does not exist, or nested more than 64 folders deep, is refused, naming it', async (t) => {
  const root = await folder(t, 'pdf-processing', { 'SKILL.md': SKILL_MD, [`${'d/'.repeat(64)}a.md`]: 'deep enough' });
  assert.deepEqual(Object.keys((await loadSkillDirectory(root)).files!), [`${'d/'.repeat(64)}a.md`]);
  await mkdir(join(root, 'd/'.repeat(65)));
  await assert.rejects(loadSkillDirectory(root), new RegExp(`: ${'d/'.repeat(64)}d is more than 64 folders deep$`));
  await assert.rejects(loadSkillDirectory(join(root, 'missing')), /^Error: skill .*missing cannot be read \(ENOENT\)$/);
});

// ---------------------------------------------------------------------------------------------------------------
// The folder changed while it loads, in a child process (test/skills-fs-child.ts)

const CHILD = fileURLToPath(new URL('skills-fs-child.ts', import.meta.url));
/** A load takes milliseconds: only a load that never settles (a regression) reaches this, and fails the test. */
const HANG_MS = 15_000;

/** What the child's load gave: the bundle's files, or the error's message. */
interface ChildLoad {
  files?: Record<string, string>;
  error?: string;
}

/**
 * Loads `root` in a child process with test/skills-fs-child.ts's options `args`. A child that has not exited after
 * HANG_MS is killed, and awaited, and the test fails; a failing test kills and awaits it too.
 */
async function loadInChild(t: TestContext, root: string, ...args: string[]): Promise<ChildLoad> {
  const child = spawn(process.execPath, [CHILD, 'load', root, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const closed = once(child, 'close');
  t.after(async () => {
    child.kill('SIGKILL'); // a no-op once it has exited
    await closed.catch(() => {});
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), HANG_MS);
  const [code, signal] = await closed.finally(() => clearTimeout(timer));
  assert.equal(signal, null, `the load had not settled after ${HANG_MS} ms: the child was killed`);
  assert.equal(code, 0, err);
  return JSON.parse(out);
}

/**
 * A skill folder with `count` files sub/f<n>.md reading 'inside', beside a folder `outside` holding the same names
 * reading 'outside'.
 */
async function besideOutside(t: TestContext, count = 1): Promise<string> {
  const files: Record<string, string> = { 'SKILL.md': SKILL_MD };
  for (let index = 0; index < count; index++) {
    files[`sub/f${index}.md`] = 'inside';
    files[`../outside/f${index}.md`] = 'outside';
  }
  return folder(t, 'pdf-processing', files);
}

test('a FIFO in the folder is refused as not a regular file; a file that grew after its listing, as changed', async (t) => {
  const root = await folder(t, 'pdf-processing', { 'SKILL.md': SKILL_MD, 'references/a.md': '# A\n' });
  assert.deepEqual(await loadInChild(t, root, '--swap', 'a.md', 'references/a.md', 'grow'), {
    error: `skill ${root}: references/a.md changed while it was read`,
  });
  execFileSync('mkfifo', [join(root, 'references', 'pipe')]);
  await assert.rejects(loadSkillDirectory(root), /: references\/pipe is not a regular file$/);
});

test('a file swapped for a FIFO between its listing and its open is refused at once, never waited on', async (t) => {
  const root = await folder(t, 'pdf-processing', { 'SKILL.md': SKILL_MD, 'references/a.md': '# A\n' });
  assert.deepEqual(await loadInChild(t, root, '--swap', 'a.md', 'references/a.md', 'fifo'), {
    error: `skill ${root}: references/a.md changed while it was loaded`,
  });
});

test('without /proc/self/fd (looked up by path) a FIFO swapped in is refused too, and a folder still loads', async (t) => {
  const root = await folder(t, 'pdf-processing', { 'SKILL.md': SKILL_MD, 'references/a.md': '# A\n' });
  assert.deepEqual(await loadInChild(t, root, '--no-proc'), { files: { 'references/a.md': '# A\n' } });
  assert.deepEqual(await loadInChild(t, root, '--no-proc', '--swap', 'a.md', 'references/a.md', 'fifo'), {
    error: `skill ${root}: references/a.md changed while it was loaded`,
  });
});

test('a folder swapped for a link to outside between its listing and its open is refused, never followed', async (t) => {
  const root = await besideOutside(t);
  assert.deepEqual(await loadInChild(t, root, '--swap', 'sub', 'sub', 'link:../outside'), {
    error: `skill ${root}: sub cannot be read (ENOTDIR)`,
  });
});

test('a folder swapped for another folder between its listing and its open is refused', async (t) => {
  const root = await besideOutside(t);
  assert.deepEqual(await loadInChild(t, root, '--swap', 'sub', 'sub', 'folder'), {
    error: `skill ${root}: sub changed while it was loaded`,
  });
});

test('a folder swapped for a link to outside once entered: its files are read from the folder entered', async (t) => {
  const root = await besideOutside(t);
  // The swap lands after sub/f0.md is listed, before it is opened: a path through `sub` would now reach outside/f0.md.
  assert.deepEqual(await loadInChild(t, root, '--swap', 'f0.md', 'sub', 'link:../outside'), {
    files: { 'sub/f0.md': 'inside' },
  });
});

test('a folder swapped for a link to outside and back by another process, 100 loads: no file is read from outside', async (t) => {
  const root = await besideOutside(t, 20);
  const mutator = spawn(process.execPath, [CHILD, 'mutate', root, '../outside'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const closed = once(mutator, 'close');
  // Loads that read only files from inside, loads that read one or more from outside, and loads refused.
  const outcomes = { inside: 0, outside: 0, refused: 0 };
  try {
    // A mutator that fails to start closes instead, and fails the test here.
    const [ready] = await Promise.race([once(mutator.stdout.setEncoding('utf8'), 'data'), closed]);
    assert.equal(ready, 'ready\n');
    for (let load = 0; load < 100; load++) {
      try {
        const files = (await loadSkillDirectory(root)).files!;
        outcomes[Object.values(files).includes('outside') ? 'outside' : 'inside'] += 1;
      } catch {
        outcomes.refused += 1;
      }
    }
  } finally {
    // Before the folder is removed (t.after): it cannot be while the mutator still renames in it.
    mutator.kill('SIGKILL');
    await closed.catch(() => {});
  }
  t.diagnostic(JSON.stringify(outcomes));
  assert.equal(outcomes.outside, 0, JSON.stringify(outcomes));
});
