// The import graph of the root modules, read from their sources: value and type imports and re-exports of `./x.ts`
// siblings alike. Used by the layering and vendoring tests.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"]\.\/([^'"]+)['"]/g;

/** The root modules `file` imports (value and type imports, re-exports). */
export function importsOf(file: string): string[] {
  return [...readFileSync(join(ROOT, file), 'utf8').matchAll(IMPORT)].map((match) => match[1]!);
}

/** Every root module `start` reaches through its relative imports, itself included. */
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
