// Loading a skill's folder from disk (skills-fs.ts, docs/skills.md "Loading from disk") in temporary folders: the
// bundle it gives (UTF-8 files as text, others as bytes, hidden entries skipped, the folder's name), served as is,
// and the folders it refuses (no SKILL.md, a symbolic link, past the limits, a name the frontmatter does not have).

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { createServer } from '../core.ts';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../skills.ts';
import { loadSkillDirectory } from '../skills-fs.ts';
import { MemoryLogger } from './harness.ts';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Works with PDF files.\n---\n# PDF\n';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

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

test('a folder loads into the bundle server.skill() serves: text as text, bytes as bytes, hidden entries skipped', async (t) => {
  const root = await folder(t, 'pdf-processing', {
    'SKILL.md': SKILL_MD,
    'references/FORMS.md': '# Forms ünïcode\n',
    'assets/logo.png': PNG,
    '.git/config': 'hidden',
    '.DS_Store': 'hidden',
  });
  const bundle = await loadSkillDirectory(root, { prefix: 'acme' });
  assert.deepEqual(
    { ...bundle, files: { ...bundle.files } },
    {
      skillMd: SKILL_MD,
      files: { 'assets/logo.png': new Uint8Array(PNG), 'references/FORMS.md': '# Forms ünïcode\n' },
      name: 'pdf-processing',
      prefix: 'acme',
    },
  );
  const server = createServer({ name: 's', version: '1' }, { logger: new MemoryLogger() });
  assert.equal(server.skill(bundle).uri, 'skill://acme/pdf-processing/SKILL.md');
});

test('a folder whose name is not the frontmatter name is refused by server.skill()', async (t) => {
  const root = await folder(t, 'pdf', { 'SKILL.md': SKILL_MD });
  const server = createServer({ name: 's', version: '1' }, { logger: new MemoryLogger() });
  await assert.rejects(
    (async () => server.skill(await loadSkillDirectory(root)))(),
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
  server.skill(bundle);
});
