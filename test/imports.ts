// The import graph of the modules, read from their sources: value and type imports and re-exports of relative
// `./x.ts` and `../x.ts` modules alike, each named by its path from the repository root (`core.ts`,
// `skills/skills.ts`). Used by the layering and vendoring tests.

import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"](\.\.?\/[^'"]+)['"]/g;
/** The add-on folders: each holds its modules flat (docs/design.md, Layers). */
export const FOLDERS = ['apps', 'http', 'jwt', 'otel', 'redis', 'skills', 'tasks'] as const;
/** The entry files at the root beside the core set, which users import by path (docs/design.md, Layers). */
export const ENTRIES = ['fetch.ts', 'http.ts', 'protocol.ts', 'testing.ts'] as const;
/**
 * The declared edges out of the core (docs/design.md, Layers): the add-on folders an entry file or a folder may reach
 * beyond the core set and itself. The node:http and fetch entries reach the HTTP internals; the Redis add-on reaches
 * the HTTP internals (the shared session and event stores it implements) and the task store of tasks/.
 */
export const DECLARED_NEIGHBOURS: Readonly<Record<string, readonly string[]>> = {
  'fetch.ts': ['http'],
  'http.ts': ['http'],
  'protocol.ts': [],
  'testing.ts': [],
  apps: [],
  http: [],
  jwt: [],
  otel: [],
  redis: ['http', 'tasks'],
  skills: [],
  tasks: [],
};

/** The `.ts` modules of the root (`folder` undefined) or of one folder, by path from the root, sorted. */
export function modulesOf(folder?: string): string[] {
  return readdirSync(join(ROOT, folder ?? '.'))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => (folder === undefined ? name : `${folder}/${name}`))
    .sort();
}

/** The modules `file` imports (value and type imports, re-exports), by path from the root. */
export function importsOf(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)].map((match) =>
    posix.normalize(posix.join(posix.dirname(file), match[1]!)),
  );
}

/** Every module `start` reaches through its relative imports, itself included. */
export function closure(start: string): Set<string> {
  const seen = new Set<string>();
  const pending = [start];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return seen;
}
