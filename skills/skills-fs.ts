// Loads an Agent Skill's folder from disk into the bundle `addSkill()` serves (mcp-core/skills-fs): SKILL.md and
// every regular file below it, within the skill limits. Owns nothing; never follows a symbolic link in the folder,
// never reads a file but the one it listed, never waits on a FIFO, looks names up only in the folders it listed (on
// Linux: docs/skills.md "Loading from disk"), holds at most MAX_DEPTH + 2 handles; the core never imports it.

import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, type SkillBundle } from './skills.ts';

// A constant a platform lacks is undefined: no flag. O_NONBLOCK makes opening a FIFO return at once (a regular file
// or a folder reads as without it); O_NOFOLLOW refuses a symbolic link in the last component.
const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0, O_DIRECTORY = 0, S_IFMT } = constants;
const OPEN_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const OPEN_FOLDER = OPEN_FILE | O_DIRECTORY;

/** Folders below the skill's, at most: each one being read holds a handle, and handles are the process's. */
const MAX_DEPTH = 64;

/** A file's bytes as text when they are UTF-8 with no NUL (served as `text`), else as they are (a `blob`). */
function asText(bytes: Uint8Array): string | Uint8Array {
  if (bytes.includes(0)) return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

/** Whether two stats are of the same file: the same device and inode. */
function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Whether `/proc/self/fd/<fd>` names the folder `handle` holds (Linux, with /proc readable): a name looked up below
 * that path is then looked up in that very folder, as openat() would, whatever was renamed or swapped on the way to
 * it since it was opened.
 */
async function procNamesHandles(handle: FileHandle): Promise<boolean> {
  try {
    return sameFile(await stat(`/proc/self/fd/${handle.fd}`), await handle.stat());
  } catch {
    return false;
  }
}

/**
 * A listed file's bytes from its handle, at most `budget` of them (undefined past it): its size as listed plus one
 * byte, so a file that grew after it was listed fills the buffer and is refused, never read whole.
 */
async function readBounded(
  handle: FileHandle,
  listed: Stats,
  budget: number,
  name: string,
): Promise<Uint8Array | undefined> {
  if (listed.size > budget) return undefined;
  const buffer = new Uint8Array(listed.size + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
    if (bytesRead === 0) return buffer.slice(0, length);
    length += bytesRead;
    if (length > listed.size) throw new Error(`${name} changed while it was read`);
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
 * anywhere below it, a file or folder that is not the one listed when it is opened, folders more than MAX_DEPTH
 * deep, more than MAX_SKILL_FILES files or MAX_SKILL_BYTES bytes (before reading past the limit), with an Error
 * naming the path. Hidden entries (a name starting with `.`) are skipped. `addSkill()` checks the rest.
 */
export async function loadSkillDirectory(directory: string, options: LoadSkillOptions = {}): Promise<SkillBundle> {
  // No prototype: a file named `__proto__` is a file like any other.
  const files: Record<string, string | Uint8Array> = Object.create(null);
  let count = 0;
  let total = 0;
  /** How errors name a path from the folder ('' for the folder itself). */
  const label = (path: string): string => (path === '' ? `skill ${directory}` : `skill ${directory}: ${path}`);
  /** A file-system call about `path`, its error renamed after that path (not the /proc one the call may have used). */
  const attempt = <T>(path: string, call: Promise<T>): Promise<T> =>
    call.catch((cause: NodeJS.ErrnoException) => {
      throw new Error(`${label(path)} cannot be read (${cause.code})`, { cause });
    });
  /**
   * Opens the entry `name` of the folder at `at` without following a link or waiting on a FIFO, and keeps the
   * handle only when it is what was listed there: the same file, of the same type (an inode number can be reused).
   */
  const openListed = async (at: string, name: string, path: string, listed: Stats): Promise<FileHandle> => {
    const handle = await attempt(path, open(join(at, name), listed.isDirectory() ? OPEN_FOLDER : OPEN_FILE));
    let same = false;
    try {
      const opened = await handle.stat();
      same = sameFile(opened, listed) && (opened.mode & S_IFMT) === (listed.mode & S_IFMT);
      if (same) return handle;
    } finally {
      if (!same) await handle.close();
    }
    throw new Error(`${label(path)} changed while it was loaded`);
  };
  /** Reads the folder `handle` holds (`relative` from the skill's, `depth` below it), depth first, in name order. */
  const walk = async (handle: FileHandle, relative: string, depth: number, viaProc: boolean): Promise<void> => {
    // Names are looked up in the folder held when /proc allows, else by path (docs/skills.md "Loading from disk").
    const at = viaProc ? `/proc/self/fd/${handle.fd}` : join(directory, relative);
    const entries = (await attempt(relative, readdir(at))).sort();
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const path = relative === '' ? entry : `${relative}/${entry}`;
      const listed = await attempt(path, lstat(join(at, entry)));
      if (listed.isSymbolicLink()) throw new Error(`${label(path)} is a symbolic link (not followed)`);
      if (listed.isDirectory()) {
        if (depth === MAX_DEPTH) throw new Error(`${label(path)} is more than ${MAX_DEPTH} folders deep`);
        const folder = await openListed(at, entry, path, listed);
        try {
          await walk(folder, path, depth + 1, viaProc);
        } finally {
          await folder.close();
        }
        continue;
      }
      if (!listed.isFile()) throw new Error(`${label(path)} is not a regular file`);
      count += 1;
      if (count > MAX_SKILL_FILES) throw new Error(`${label('')}: more than ${MAX_SKILL_FILES} files`);
      const file = await openListed(at, entry, path, listed);
      let bytes: Uint8Array | undefined;
      try {
        bytes = await readBounded(file, listed, MAX_SKILL_BYTES - total, label(path));
      } finally {
        await file.close();
      }
      if (bytes === undefined) throw new Error(`${label('')}: its files add up to more than ${MAX_SKILL_BYTES} bytes`);
      total += bytes.length;
      files[path] = asText(bytes);
    }
  };
  // The folder `directory` names as the load starts (a link there is followed, as a path is): what the load reads.
  const root = await attempt('', open(directory, O_RDONLY | O_DIRECTORY | O_NONBLOCK));
  try {
    await walk(root, '', 0, await procNamesHandles(root));
  } finally {
    await root.close();
  }
  const skillMd = files['SKILL.md'];
  if (skillMd === undefined) throw new Error(`${label('')}: there is no SKILL.md`);
  if (typeof skillMd !== 'string') throw new Error(`${label('')}: SKILL.md is not UTF-8 text`);
  delete files['SKILL.md'];
  const bundle: SkillBundle = { skillMd, files, name: basename(resolve(directory)) };
  if (options.prefix !== undefined) bundle.prefix = options.prefix;
  return bundle;
}
