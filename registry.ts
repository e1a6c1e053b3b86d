// The server's registries (tools, resources, resource templates, prompts) in deterministic registration order,
// opaque pagination cursors, and the change hub that carries list-changed, resource-updated and extensions' keyed
// events to every live connection. Owns no per-connection state; a listener is removed by the connection that added it.

import { fromBase64, insufficientScope, invalidParams, toBase64Url, utf8 } from './jsonrpc.ts';
import type { Era, KeyedEvent, Viewer, Visibility } from './types.ts';

/** A change the server announces: a list changed, one resource was updated, or an extension's keyed notification. */
export type ChangeEvent = { type: 'tools' | 'prompts' | 'resources' } | { type: 'resource'; uri: string } | KeyedEvent;

/** Receives change events from the hub (a connection: an object with a method, so that it costs no closure). */
export interface ChangeListener {
  onChange(event: ChangeEvent): void;
}

/** Fans change events out to the live connections; listeners are the core's own connection code. */
export class ChangeHub<L extends ChangeListener = ChangeListener> {
  readonly #listeners = new Set<L>();

  get size(): number {
    return this.#listeners.size;
  }

  /** The live listeners (the server's connections, for its metrics snapshot). */
  listeners(): IterableIterator<L> {
    return this.#listeners.values();
  }

  add(listener: L): void {
    this.#listeners.add(listener);
  }

  /** Removing a listener that is not there is harmless. */
  remove(listener: L): void {
    this.#listeners.delete(listener);
  }

  publish(event: ChangeEvent): void {
    for (const listener of this.#listeners) listener.onChange(event);
  }
}

const CURSOR_SHAPE = /^[A-Za-z0-9_-]{1,24}$/;
const OFFSET_SHAPE = /^([a-z])(0|[1-9][0-9]{0,8})$/;

/** Each list's cursor letter. */
const CURSOR_TAGS = { tool: 't', resource: 'r', 'resource template': 'u', prompt: 'p' } as const;

/** The opaque cursor of an offset into one list (`tag`: a letter naming the list, so no list takes another's). */
export function encodeCursor(offset: number, tag: string): string {
  return toBase64Url(utf8(`${tag}${offset}`));
}

/** Reads a cursor this server minted for the list `tag` names; anything else is `-32602`. */
export function decodeCursor(cursor: unknown, length: number, tag: string): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string' && CURSOR_SHAPE.test(cursor)) {
    const bytes = fromBase64(cursor);
    const match = bytes === undefined ? null : OFFSET_SHAPE.exec(String.fromCharCode(...bytes));
    const offset = match === null || match[1] !== tag ? NaN : Number(match[2]);
    // Only the exact spelling minted here: base64 ignores the low bits of a final partial character.
    if (offset <= length && encodeCursor(offset, tag) === cursor) return offset;
  }
  throw invalidParams('params.cursor is not a cursor this server issued');
}

/** Each era's enabled items, then everything registered for it; `guarded`: the eras where who asks matters. */
type Views<T> = Record<'legacy' | 'modern' | 'legacyAll' | 'modernAll', T[]> & { guarded: Record<Era, boolean> };
type Item = { era: Era | undefined; definition: { visible?: Visibility; scopes?: readonly string[] } };

/** Whether what `item` answers depends on who asks: it has a visibility predicate or scopes. */
export function guardedItem(item: Item): boolean {
  return item.definition.visible !== undefined || (item.definition.scopes?.length ?? 0) > 0;
}

/** Whether `item`'s predicate shows it to `viewer` (docs/api.md, Visibility): only `true` does; no viewer sees none. */
export function passes(item: Item, viewer: Viewer | undefined): boolean {
  const visible = item.definition.visible;
  if (visible === undefined) return true;
  const shown: unknown = viewer === undefined ? false : visible(viewer);
  // A promise would hide the item from everyone, silently: the author meant something else.
  if (typeof (shown as PromiseLike<unknown> | undefined)?.then === 'function')
    throw new TypeError('a visible predicate must answer true or false at once, not a promise');
  return shown === true;
}

/** `item`'s scopes when `viewer`'s token lacks one of them (a request without a token lacks them all). */
export function lacking(item: Item, viewer: Viewer | undefined): readonly string[] | undefined {
  const { scopes } = item.definition;
  if (scopes === undefined || scopes.length === 0) return undefined;
  const held = viewer?.auth?.scopes;
  return Array.isArray(held) && scopes.every((scope) => held.includes(scope)) ? undefined : scopes;
}

/** Whether a listing shows `item` to `viewer`: its predicate shows it and the token holds its scopes. */
export function shows(item: Item, viewer: Viewer | undefined): boolean {
  return passes(item, viewer) && lacking(item, viewer) === undefined;
}

/**
 * Whether `viewer` may use the `item` it names: false when its predicate hides it (as a missing one); short of its
 * scopes, the refusal naming them is thrown, so that the client can ask for them (docs/api.md, Scopes).
 */
export function reachable(item: Item, viewer: Viewer | undefined): boolean {
  if (!passes(item, viewer)) return false;
  const scopes = lacking(item, viewer);
  if (scopes !== undefined) throw insufficientScope(scopes);
  return true;
}

/** An OAuth scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`, so it sits quoted in a header. */
export function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);
}

/** What `server.tool()`, `resource()`, `resourceTemplate()` and `prompt()` return: the registration, changeable at runtime. */
export interface Registration<Changes> {
  /** Unregisters the item (a no-op once removed); clients are told the list changed. */
  remove(): void;
  /** Replaces the given definition fields (and the handler); the item keeps its place in listings. */
  update(changes: Changes): void;
  /** Lists and serves the item again after `disable()`. */
  enable(): void;
  /** Hides the item: neither listed nor callable (as unknown as a missing one) until `enable()`. */
  disable(): void;
  /** False while disabled, and after `remove()`. */
  readonly enabled: boolean;
}

/** Named items in registration order, paged by opaque cursors; an item may serve one era, be disabled, or be hidden. */
export class Registry<T extends Item> {
  readonly #items = new Map<string, T>();
  readonly #disabled = new Set<string>();
  #ordered: Views<T> | undefined;
  readonly #onChange: () => void;
  readonly #kind: string;
  readonly #cursorTag: string;

  constructor(kind: keyof typeof CURSOR_TAGS, onChange: () => void) {
    this.#kind = kind;
    this.#cursorTag = CURSOR_TAGS[kind];
    this.#onChange = onChange;
  }

  /**
   * The item under `key` if `era` serves it to `viewer`; one disabled, of the other era or hidden is as a missing one,
   * and one whose scopes the viewer's token lacks is refused (`reachable`).
   */
  get(key: string, era: Era, viewer: Viewer | undefined): T | undefined {
    const item = this.find(key, era);
    return item === undefined || !reachable(item, viewer) ? undefined : item;
  }

  /** The enabled item under `key` if `era` serves it, whoever asks (what exists, before who may see it). */
  find(key: string, era: Era): T | undefined {
    const item = this.#items.get(key);
    if (item === undefined || this.#disabled.has(key)) return undefined;
    return item.era !== undefined && item.era !== era ? undefined : item;
  }

  /** Adds `item` under a free `key` and returns the handle, which alone changes it; `rebuild` makes the replacement
   * for an update (a throw leaves the item as it was). */
  register<C>(key: string, item: T, rebuild: (current: T, changes: C) => T): Registration<C> {
    if (this.#items.has(key)) throw new Error(`${this.#kind} '${key}' is already registered`);
    this.#checkAccess(key, item);
    this.#items.set(key, item);
    this.#changed();
    let current: T | undefined = item;
    const disabled = this.#disabled;
    const live = (action: string): T => {
      if (current === undefined) throw new Error(`cannot ${action} ${this.#kind} '${key}': it was removed`);
      return current;
    };
    const setEnabled = (enabled: boolean) => {
      live(enabled ? 'enable' : 'disable');
      if (this.#disabled.has(key) !== enabled) return;
      if (enabled) this.#disabled.delete(key);
      else this.#disabled.add(key);
      this.#changed();
    };
    return {
      remove: () => {
        if (current === undefined) return;
        current = undefined;
        this.#items.delete(key);
        this.#disabled.delete(key);
        this.#changed();
      },
      update: (changes: C) => {
        current = this.#checkAccess(key, rebuild(live('update'), changes));
        this.#items.set(key, current); // an existing key keeps its position in a Map
        this.#changed();
      },
      enable: () => setEnabled(true),
      disable: () => setEnabled(false),
      get enabled() {
        return current !== undefined && !disabled.has(key);
      },
    };
  }

  /** Refuses a `visible` that is not a predicate (read as always hidden, silently) and scopes that are no tokens. */
  #checkAccess(key: string, item: T): T {
    const { visible, scopes } = item.definition;
    if (visible !== undefined && typeof visible !== 'function')
      throw new TypeError(`${this.#kind} '${key}': visible must be a function of the request`);
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every(isScopeToken)))
      throw new TypeError(`${this.#kind} '${key}': scopes must be an array of OAuth scope tokens (RFC 6749 §3.3)`);
    return item;
  }

  #changed(): void {
    this.#ordered = undefined;
    this.#onChange();
  }

  /** The items registered for `era`, enabled or not (what decides the capabilities the server advertises). */
  registered(era: Era): T[] {
    return this.#views()[era === 'legacy' ? 'legacyAll' : 'modernAll'];
  }

  /** The enabled items `era` serves to `viewer`, in registration order (a new array only when some are guarded). */
  values(era: Era, viewer: Viewer | undefined): T[] {
    const views = this.#views();
    return views.guarded[era] ? views[era].filter((item) => shows(item, viewer)) : views[era];
  }

  /** Every enabled item `era` serves, whoever asks: for matching first (a template), then asking `shows`. */
  served(era: Era): T[] {
    return this.#views()[era];
  }

  /** Whether an item `era` serves has a visibility predicate or scopes: its listings then depend on the caller. */
  guarded(era: Era): boolean {
    return this.#views().guarded[era];
  }

  #views(): Views<T> {
    if (this.#ordered !== undefined) return this.#ordered;
    const guarded = { legacy: false, modern: false };
    const views: Views<T> = { legacy: [], modern: [], legacyAll: [], modernAll: [], guarded };
    for (const [key, item] of this.#items) {
      const enabled = !this.#disabled.has(key);
      if (guardedItem(item)) {
        guarded.legacy ||= item.era !== 'modern';
        guarded.modern ||= item.era !== 'legacy';
      }
      if (item.era !== 'modern') views.legacyAll.push(item);
      if (item.era !== 'modern' && enabled) views.legacy.push(item);
      if (item.era !== 'legacy') views.modernAll.push(item);
      if (item.era !== 'legacy' && enabled) views.modern.push(item);
    }
    return (this.#ordered = views);
  }

  /**
   * One page of the items `era` serves to `viewer`, then of `more` (listed resources), from `cursor`; and the next
   * page's cursor: an offset into this viewer's own list, so hidden items never make a page short (nor count).
   */
  page<M = never>(cursor: unknown, pageSize: number, era: Era, viewer: Viewer | undefined, more: readonly M[] = []) {
    const own = this.values(era, viewer);
    const all = more.length === 0 ? own : [...own, ...more];
    const start = decodeCursor(cursor, all.length, this.#cursorTag);
    const end = Math.min(start + pageSize, all.length);
    return {
      items: start === 0 && end === all.length ? all : all.slice(start, end),
      nextCursor: end < all.length ? encodeCursor(end, this.#cursorTag) : undefined,
    };
  }
}
