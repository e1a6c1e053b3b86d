// The skills add-on (`mcp-core/skills`, extension io.modelcontextprotocol/skills, docs/skills.md): addSkill() checks a
// bundle into the skill it serves under skill://<prefix>/<name>/… (each file's size and SHA-256 digest), registers its
// files as resources in one batch, and installs the extension (skills/list, skills/get, resources/directory/read) only
// while it serves a skill. Reads no file system (skills-fs.ts does); never serves a byte that was not registered.

import type { Registration, Server } from '../core.ts';
import { invalidParams, isPlainObject, toBase64, utf8 } from '../jsonrpc.ts';
import { decodeCursor, encodeCursor } from '../registry.ts';
import type {
  Extension,
  ExtensionHost,
  ExtensionMethod,
  ReadResourceResult,
  ResourceDefinition,
  ResourceUpdate,
} from '../types.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { sha256 } from './sha256.ts';

/** The extension's identifier (SEP-2640). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** Files one skill may have, its SKILL.md included (SEP-2640, limits). */
export const MAX_SKILL_FILES = 512;
/** The bytes one skill's files may add up to (SEP-2640, limits: 16 MiB). */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** The longest `description` (Agent Skills specification). */
const MAX_DESCRIPTION_LENGTH = 1024;
/** What a directory's resources/directory/read entry says it is. */
const DIRECTORY_MIME_TYPE = 'inode/directory';
/** The cursor letters of skills/list and resources/directory/read pages (registry.ts cursors). */
const SKILLS_CURSOR = 's';
const DIRECTORY_CURSOR = 'd';

/** A skill as given to `addSkill()`: its SKILL.md and the files beside it. */
export interface SkillBundle {
  /** The SKILL.md text: YAML frontmatter (`name`, `description`, …) between `---` lines, then Markdown. */
  skillMd: string;
  /** Its other files by path from the skill's root (`references/FORMS.md`): text, or bytes. */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /**
   * Path segments before the skill's name in its URIs (`acme/billing` serves `skill://acme/billing/<name>/…`); none
   * by default (`skill://<name>/…`).
   */
  prefix?: string;
  /** The name the skill's folder has (a loaded directory's): it must be the frontmatter's `name`. */
  name?: string;
  /** Digests (`sha256:<hex>`) its files must have, by path (`SKILL.md` included): a bundle copied from elsewhere. */
  digests?: Readonly<Record<string, string>>;
}

/** One file of a served skill, with what its manifest says of it. */
interface SkillFile {
  readonly uri: string;
  /** Its path from the skill's root. */
  readonly path: string;
  readonly mimeType: string;
  /** Served as `text` (a string was given), else as a base64 `blob`. */
  readonly text: string | undefined;
  readonly bytes: Uint8Array;
  readonly digest: string;
}

/** What `addSkill()` returns: the skill's SKILL.md URI, and its removal (its files stop being served). */
export interface SkillRegistration {
  readonly uri: string;
  /** Stops serving the skill and its files (a no-op once removed); clients are told the resource list changed. */
  remove(): void;
}

/** A skill as served: its SKILL.md's URI and root, its frontmatter, and its files (SKILL.md first). */
interface Skill {
  readonly uri: string;
  readonly root: string;
  readonly name: string;
  readonly description: string;
  readonly frontmatter: Record<string, unknown>;
  readonly files: readonly SkillFile[];
}

/** The name rule of Agent Skills: 1–64 of a-z, 0-9 and `-`, no hyphen first, last, or twice in a row. */
const NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
/** A URI path segment we serve as it is: RFC 3986 unreserved characters only (nothing to percent-encode). */
const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** Media types by file extension; anything else is served as `application/octet-stream`. */
const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The media type of a file by its extension. */
function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot === -1 ? undefined : MIME_TYPES[path.slice(dot + 1).toLowerCase()]) ?? 'application/octet-stream';
}

/** `sha256:<hex>` of some bytes (SEP-2640, the manifest's digests). */
function digestOf(bytes: Uint8Array): string {
  return `sha256:${sha256(bytes)}`;
}

/** A plain object: made by `{}` or with a null prototype (never a Map, an array or a class instance). */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A lone UTF-16 surrogate: a string holding one has no UTF-8 form, so its bytes (and digest) would be a guess. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A path's segments, each checked (no `.`, `..`, empty or unsafe segment), or a TypeError naming the mistake. */
function segmentsOf(what: string, path: string): string[] {
  const segments = path.split('/');
  for (const segment of segments)
    if (segment === '' || segment === '.' || segment === '..' || !SEGMENT.test(segment))
      throw new TypeError(
        `${what} ${JSON.stringify(path)}: each /-separated segment must be made of A-Z, a-z, 0-9, '.', '_', '~' and '-', and not be '.' or '..'`,
      );
  return segments;
}

/**
 * Checks a bundle into the skill it serves, or throws a TypeError naming the mistake: the frontmatter (a YAML block
 * with a `name` following the naming rule and a `description` of at most MAX_DESCRIPTION_LENGTH), the folder name
 * when given, the prefix and file paths (no traversal, nothing to escape), the limits (MAX_SKILL_FILES and
 * MAX_SKILL_BYTES), and the digests when given.
 */
function checkSkill(bundle: SkillBundle): Skill {
  if (!isRecord(bundle) || typeof bundle.skillMd !== 'string')
    throw new TypeError('a skill needs its SKILL.md text as skillMd (a string)');
  if (LONE_SURROGATE.test(bundle.skillMd)) throw new TypeError('skill: SKILL.md has a lone surrogate (not UTF-8 text)');
  const { data: frontmatter } = parseFrontmatter(bundle.skillMd);
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new TypeError(
      `skill: the frontmatter's name must be 1-64 of a-z, 0-9 and '-', with no '-' first, last or twice in a row, got ${JSON.stringify(name)}`,
    );
  if (typeof description !== 'string' || description.trim() === '')
    throw new TypeError(`skill '${name}': the frontmatter needs a description (a non-empty string)`);
  if (description.length > MAX_DESCRIPTION_LENGTH)
    throw new TypeError(
      `skill '${name}': the description has ${description.length} characters, at most ${MAX_DESCRIPTION_LENGTH}`,
    );
  if (bundle.name !== undefined && bundle.name !== name)
    throw new TypeError(`skill '${name}': the frontmatter's name must be its folder's name, '${bundle.name}'`);
  const metadata = frontmatter.metadata;
  if (isPlainObject(metadata))
    for (const key of Object.keys(metadata))
      if (key.startsWith('io.modelcontextprotocol/'))
        throw new TypeError(`skill '${name}': metadata key '${key}' uses the reserved prefix io.modelcontextprotocol/`);
  if (bundle.prefix !== undefined && typeof bundle.prefix !== 'string')
    throw new TypeError(`skill '${name}': prefix must be a string`);
  const prefix = bundle.prefix === undefined ? [] : segmentsOf(`skill '${name}': prefix`, bundle.prefix);
  const root = `skill://${[...prefix, name].join('/')}`;
  const given = bundle.files ?? {};
  if (!isRecord(given)) throw new TypeError(`skill '${name}': files must be a plain object of paths to contents`);
  const digests = bundle.digests ?? {};
  if (!isRecord(digests)) throw new TypeError(`skill '${name}': digests must be a plain object of paths to digests`);
  const entries: [string, string | Uint8Array][] = [['SKILL.md', bundle.skillMd]];
  for (const [path, content] of Object.entries(given)) {
    segmentsOf(`skill '${name}': file`, path);
    if (path === 'SKILL.md') throw new TypeError(`skill '${name}': SKILL.md is skillMd, not one of its files`);
    if (typeof content !== 'string' && !(content instanceof Uint8Array))
      throw new TypeError(`skill '${name}': file ${JSON.stringify(path)} must be a string or a Uint8Array`);
    if (typeof content === 'string' && LONE_SURROGATE.test(content))
      throw new TypeError(`skill '${name}': file ${JSON.stringify(path)} has a lone surrogate (not UTF-8 text)`);
    entries.push([path, content]);
  }
  if (entries.length > MAX_SKILL_FILES)
    throw new TypeError(`skill '${name}': ${entries.length} files, at most ${MAX_SKILL_FILES} (SKILL.md included)`);
  const files: SkillFile[] = [];
  let total = 0;
  const paths = new Set(entries.map(([path]) => path));
  for (const [path, content] of entries) {
    // A file may not also be a folder of others (`a` and `a/b`): its URI would name both.
    if ([...paths].some((other) => other.startsWith(`${path}/`)))
      throw new TypeError(`skill '${name}': ${JSON.stringify(path)} is both a file and a folder of files`);
    const bytes = typeof content === 'string' ? utf8(content) : content.slice();
    total += bytes.length;
    if (total > MAX_SKILL_BYTES)
      throw new TypeError(`skill '${name}': its files add up to more than ${MAX_SKILL_BYTES} bytes`);
    const digest = digestOf(bytes);
    const expected = Object.hasOwn(digests, path) ? digests[path] : undefined;
    if (expected !== undefined && expected !== digest)
      throw new TypeError(`skill '${name}': file ${JSON.stringify(path)} has digest ${digest}, not ${expected}`);
    files.push({
      uri: `${root}/${path}`,
      path,
      mimeType: path === 'SKILL.md' ? 'text/markdown' : mimeTypeOf(path),
      text: typeof content === 'string' ? content : undefined,
      bytes,
      digest,
    });
  }
  for (const path of Object.keys(digests))
    if (!paths.has(path))
      throw new TypeError(`skill '${name}': a digest is given for ${JSON.stringify(path)}, which it does not have`);
  return { uri: `${root}/SKILL.md`, root, name, description, frontmatter, files };
}

/** What a file is listed as (resources/list, resources/directory/read): SKILL.md with the skill's name. */
function definitionOf(skill: Skill, file: SkillFile): ResourceDefinition {
  return file.path === 'SKILL.md'
    ? { name: skill.name, description: skill.description, mimeType: file.mimeType, size: file.bytes.length }
    : { name: file.path, mimeType: file.mimeType, size: file.bytes.length };
}

/** What reading a file answers (resources/read): its text, or its bytes as a base64 blob. */
function contentOf(file: SkillFile): ReadResourceResult['contents'][number] {
  return file.text === undefined
    ? { uri: file.uri, mimeType: file.mimeType, blob: toBase64(file.bytes) }
    : { uri: file.uri, mimeType: file.mimeType, text: file.text };
}

/** A skill's manifest entry (skills/list, skills/get). */
function entryOf(skill: Skill): Record<string, unknown> {
  return {
    uri: skill.uri,
    frontmatter: structuredClone(skill.frontmatter),
    resources: skill.files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.bytes.length })),
  };
}

/** One directory of the served skills: its files (with their skill) and subdirectories, by URI. */
interface Directory {
  readonly files: Map<string, { skill: Skill; file: SkillFile }>;
  readonly directories: Set<string>;
}

/**
 * The skills extension: declared as `{directoryRead: true}` in both eras (2026-07-28 `server/discover`, 2025
 * `initialize`), its methods served to every client (a client learns of them from the declaration), skills/list and
 * skills/get cacheable. The skills are registered by `addSkill()`, which serves their files as resources and
 * installs the extension only while it serves one.
 */
class SkillsExtension implements Extension {
  readonly id = SKILLS_EXTENSION;
  readonly settings: Record<string, unknown> = { directoryRead: true };
  readonly modernMethods: Readonly<Record<string, ExtensionMethod>>;
  readonly legacyMethods: Readonly<Record<string, ExtensionMethod>>;
  /** The skills served, by SKILL.md URI, in registration order. */
  readonly #skills = new Map<string, Skill>();
  /** Every directory of the served skills (their roots, prefixes and folders), made on demand. */
  #directories: Map<string, Directory> | undefined;
  #pageSize = 100;

  constructor() {
    const methods: Record<string, ExtensionMethod> = {
      'skills/list': { gated: false, cacheable: true, serve: (params) => this.#list(params) },
      'skills/get': { gated: false, cacheable: true, serve: (params) => this.#get(params) },
      'resources/directory/read': { gated: false, serve: (params) => this.#readDirectory(params) },
    };
    this.modernMethods = methods;
    this.legacyMethods = methods;
  }

  /** Extension.attach: the server's page size. */
  attach(host: ExtensionHost): void {
    this.#pageSize = host.pageSize;
  }

  /** Declared at every 2025 version, as `capabilities.extensions[id]`. */
  legacyCapabilities(): Record<string, unknown> {
    return { extensions: { [this.id]: this.settings } };
  }

  /**
   * Checks that `skill` can join the skills served (a name and URIs of its own, not inside another skill's folder
   * nor holding one), or throws a TypeError naming the clash.
   */
  admit(skill: Skill): void {
    for (const served of this.#skills.values()) {
      if (served.name === skill.name) throw new TypeError(`skill '${skill.name}' is already served (${served.uri})`);
      if (served.root.startsWith(`${skill.root}/`) || skill.root.startsWith(`${served.root}/`))
        throw new TypeError(`skill '${skill.name}': its folder ${skill.root} and ${served.root} hold one another`);
    }
  }

  /** How many skills it serves. */
  get size(): number {
    return this.#skills.size;
  }

  /** Serves `skill` (admitted, its files registered as resources). */
  add(skill: Skill): void {
    this.#skills.set(skill.uri, skill);
    this.#directories = undefined;
  }

  /** Stops serving the skill of that SKILL.md URI. */
  remove(uri: string): void {
    if (this.#skills.delete(uri)) this.#directories = undefined;
  }

  /** skills/list: one page of the skills served, each entry whole. */
  #list(params: Record<string, unknown>): Record<string, unknown> {
    const skills = [...this.#skills.values()];
    const start = decodeCursor(params.cursor, skills.length, SKILLS_CURSOR);
    const end = Math.min(start + this.#pageSize, skills.length);
    const result: Record<string, unknown> = { skills: skills.slice(start, end).map(entryOf) };
    if (end < skills.length) result.nextCursor = encodeCursor(end, SKILLS_CURSOR);
    return result;
  }

  /** skills/get: the skill whose SKILL.md is at `params.uri`; any other URI is -32602. */
  #get(params: Record<string, unknown>): Record<string, unknown> {
    const { uri } = params;
    if (typeof uri !== 'string') throw invalidParams('params.uri must be a string (a SKILL.md URI)');
    const skill = this.#skills.get(uri);
    if (skill === undefined) throw invalidParams(`params.uri: no skill is served at ${uri}`);
    return { skill: entryOf(skill) };
  }

  /** resources/directory/read: one page of a directory's children (files, then subdirectories); else -32602. */
  #readDirectory(params: Record<string, unknown>): Record<string, unknown> {
    const { uri } = params;
    if (typeof uri !== 'string') throw invalidParams('params.uri must be a string (a directory URI)');
    const directory = this.#tree().get(uri);
    if (directory === undefined) throw invalidParams(`params.uri: ${uri} is not a directory resource`);
    const children: Record<string, unknown>[] = [];
    for (const { skill, file } of directory.files.values())
      children.push({ uri: file.uri, ...definitionOf(skill, file) });
    for (const child of directory.directories)
      children.push({ uri: child, name: child.slice(child.lastIndexOf('/') + 1), mimeType: DIRECTORY_MIME_TYPE });
    const start = decodeCursor(params.cursor, children.length, DIRECTORY_CURSOR);
    const end = Math.min(start + this.#pageSize, children.length);
    const result: Record<string, unknown> = { resources: children.slice(start, end) };
    if (end < children.length) result.nextCursor = encodeCursor(end, DIRECTORY_CURSOR);
    return result;
  }

  /** Every directory of the served skills: each file's folders up to its URI's authority. */
  #tree(): Map<string, Directory> {
    if (this.#directories !== undefined) return this.#directories;
    const tree = new Map<string, Directory>();
    const directory = (uri: string): Directory => {
      let found = tree.get(uri);
      if (found === undefined) tree.set(uri, (found = { files: new Map(), directories: new Set() }));
      return found;
    };
    for (const skill of this.#skills.values())
      for (const file of skill.files) {
        // Up from the file to its URI's first segment (`skill://acme`), which has no directory above it.
        let child = file.uri;
        for (let cut = child.lastIndexOf('/'); cut > 'skill://'.length; cut = child.lastIndexOf('/')) {
          const parent = child.slice(0, cut);
          if (child === file.uri) directory(parent).files.set(file.uri, { skill, file });
          else directory(parent).directories.add(child);
          child = parent;
        }
      }
    this.#directories = tree;
    return tree;
  }
}

/** Each server's skills extension, made by its first addSkill() (installed only while it serves a skill). */
const extensions = new WeakMap<Server, SkillsExtension>();

/**
 * Serves an Agent Skill on `server` (the io.modelcontextprotocol/skills extension, docs/skills.md) from its bundle:
 * its SKILL.md and files become resources under `skill://[prefix/]<name>/`, listed and read in both eras, and the
 * extension (declared while it serves a skill) lists it with each file's size and SHA-256 digest. Throws a TypeError
 * naming the mistake for a bundle the extension refuses (frontmatter, name, paths, limits, digests) or one whose
 * name or URIs another skill or resource holds; nothing of it is then served. Clients are told the resource list
 * changed, once (Server.batchResources).
 */
export function addSkill(server: Server, bundle: SkillBundle): SkillRegistration {
  const skill = checkSkill(bundle);
  let skills = extensions.get(server);
  if (skills === undefined) extensions.set(server, (skills = new SkillsExtension()));
  skills.admit(skill);
  // Declared only while it serves a skill: installed with the first, uninstalled with the last.
  if (skills.size === 0) server.use(skills);
  const registrations: Registration<ResourceUpdate>[] = [];
  try {
    server.batchResources(() => {
      for (const file of skill.files) {
        const content = contentOf(file);
        // Each read gets its own content object; its strings are shared (they never change).
        registrations.push(
          server.resource(file.uri, definitionOf(skill, file), () => ({ contents: [{ ...content }] })),
        );
      }
    });
  } catch (error) {
    if (skills.size === 0) server.unuse(skills); // the batch removed what it registered: none of it is served
    throw new TypeError(`skill '${skill.name}': ${(error as Error).message}`);
  }
  skills.add(skill);
  let removed = false;
  return {
    uri: skill.uri,
    remove: () => {
      if (removed) return;
      removed = true;
      skills.remove(skill.uri);
      if (skills.size === 0) server.unuse(skills);
      server.batchResources(() => {
        for (const registration of registrations) registration.remove();
      });
    },
  };
}
