// Loads an Agent Skill's folder from disk into the bundle `server.skill()` serves (the add-on `mcp-core/skills-fs`):
// its SKILL.md and every regular file below it (UTF-8 ones as text), read within the skill limits. Owns nothing; never
// follows a symbolic link, never reads outside the folder, and the core never imports it.

import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, type SkillBundle } from './skills.ts';

/** A file's bytes as text when they are UTF-8 with no NUL (served as `text`), else as they are (a `blob`). */
function asText(bytes: Uint8Array): string | Uint8Array {
  if (bytes.includes(0)) return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

/**
 * A regular file's bytes, at most `budget` of them (undefined past it), read through one handle opened without
 * following a symbolic link: a file swapped or grown after it was listed is refused, never followed or read whole.
 */
async function readBounded(path: string, budget: number): Promise<Uint8Array | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${path} is not a regular file`);
    if (stats.size > budget) return undefined;
    // One byte more than its size: a file that grew while read fills it, and is refused.
    const buffer = new Uint8Array(stats.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) return buffer.slice(0, length);
      length += bytesRead;
      if (length > stats.size) throw new Error(`${path} changed while it was read`);
    }
  } finally {
    await handle.close();
  }
}

/** Options of loadSkillDirectory(). */
export interface LoadSkillOptions {
  /** Path segments before the skill's name in its URIs (SkillBundle.prefix). */
  prefix?: string;
}

/**
 * Reads the skill in `directory` (its name is the folder's, which the frontmatter's must match): SKILL.md as text,
 * every other regular file as bytes, with paths from the folder. Rejects a folder without SKILL.md, a symbolic link
 * anywhere below it, more than MAX_SKILL_FILES files or MAX_SKILL_BYTES bytes (before reading past the limit), with
 * an Error naming the path. Hidden entries (a name starting with `.`) are skipped. `server.skill()` checks the rest.
 */
export async function loadSkillDirectory(directory: string, options: LoadSkillOptions = {}): Promise<SkillBundle> {
  // No prototype: a file named `__proto__` is a file like any other.
  const files: Record<string, string | Uint8Array> = Object.create(null);
  let count = 0;
  let total = 0;
  /** Walks one folder (`relative` from the skill's), depth first, in name order. */
  const walk = async (relative: string): Promise<void> => {
    const entries = (await readdir(join(directory, relative))).sort();
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const path = relative === '' ? entry : `${relative}/${entry}`;
      const full = join(directory, path);
      const stats = await lstat(full);
      if (stats.isSymbolicLink()) throw new Error(`skill ${directory}: ${path} is a symbolic link (not followed)`);
      if (stats.isDirectory()) {
        await walk(path);
        continue;
      }
      if (!stats.isFile()) throw new Error(`skill ${directory}: ${path} is not a regular file`);
      count += 1;
      if (count > MAX_SKILL_FILES) throw new Error(`skill ${directory}: more than ${MAX_SKILL_FILES} files`);
      const bytes = await readBounded(full, MAX_SKILL_BYTES - total);
      if (bytes === undefined)
        throw new Error(`skill ${directory}: its files add up to more than ${MAX_SKILL_BYTES} bytes`);
      total += bytes.length;
      files[path] = asText(bytes);
    }
  };
  await walk('');
  const skillMd = files['SKILL.md'];
  if (skillMd === undefined) throw new Error(`skill ${directory}: there is no SKILL.md`);
  if (typeof skillMd !== 'string') throw new Error(`skill ${directory}: SKILL.md is not UTF-8 text`);
  delete files['SKILL.md'];
  const bundle: SkillBundle = { skillMd, files, name: basename(resolve(directory)) };
  if (options.prefix !== undefined) bundle.prefix = options.prefix;
  return bundle;
}
