// The server's registries (tools, resources, resource templates, prompts) in deterministic registration order,
// opaque pagination cursors, and the change hub that carries list-changed and resource-updated events to every
// live connection. Owns no per-connection state; a listener is removed by the connection that added it.

import { invalidParams } from './jsonrpc.ts';
import type { Era } from './types.ts';

export type ChangeEvent =
  | { type: 'tools' | 'prompts' | 'resources' }
  | { type: 'resource'; uri: string };

export type ChangeListener = (event: ChangeEvent) => void;

/** Fans change events out to the live connections; listeners are the core's own connection code. */
export class ChangeHub {
  readonly #listeners = new Set<ChangeListener>();

  get size(): number {
    return this.#listeners.size;
  }

  /** Returns the function that removes the listener again. */
  listen(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(event: ChangeEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,24}$/;
const OFFSET_SHAPE = /^o(0|[1-9][0-9]{0,8})$/;

export function encodeCursor(offset: number): string {
  return Buffer.from(`o${offset}`).toString('base64url');
}

/** Reads a cursor this server minted; anything else is `-32602`. */
export function decodeCursor(cursor: unknown, length: number): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string' && CURSOR_SHAPE.test(cursor)) {
    const match = OFFSET_SHAPE.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
    const offset = match === null ? NaN : Number(match[1]);
    // Only the exact spelling minted here: base64 ignores the low bits of a final partial character.
    if (offset <= length && encodeCursor(offset) === cursor) return offset;
  }
  throw invalidParams('params.cursor is not a cursor this server issued');
}

/** Named items in registration order, paged by opaque cursors; an item may be restricted to one era. */
export class Registry<T extends { era: Era | undefined }> {
  readonly #items = new Map<string, T>();
  #ordered: { legacy: T[]; modern: T[] } | undefined;
  readonly #onChange: () => void;
  readonly #kind: string;

  constructor(kind: string, onChange: () => void) {
    this.#kind = kind;
    this.#onChange = onChange;
  }

  /** The item under `key` if `era` serves it; an item of the other era is as unknown as a missing one. */
  get(key: string, era: Era): T | undefined {
    const item = this.#items.get(key);
    return item === undefined || (item.era !== undefined && item.era !== era) ? undefined : item;
  }

  add(key: string, item: T): void {
    if (this.#items.has(key)) throw new Error(`${this.#kind} '${key}' is already registered`);
    this.#items.set(key, item);
    this.#ordered = undefined;
    this.#onChange();
  }

  remove(key: string): boolean {
    if (!this.#items.delete(key)) return false;
    this.#ordered = undefined;
    this.#onChange();
    return true;
  }

  /** The items `era` serves, in registration order. */
  values(era: Era): T[] {
    if (this.#ordered === undefined) {
      const all = [...this.#items.values()];
      this.#ordered = {
        legacy: all.filter((item) => item.era !== 'modern'),
        modern: all.filter((item) => item.era !== 'legacy'),
      };
    }
    return this.#ordered[era];
  }

  page(cursor: unknown, pageSize: number, era: Era): Page<T> {
    const all = this.values(era);
    const start = decodeCursor(cursor, all.length);
    const end = Math.min(start + pageSize, all.length);
    return {
      items: start === 0 && end === all.length ? all : all.slice(start, end),
      nextCursor: end < all.length ? encodeCursor(end) : undefined,
    };
  }
}
