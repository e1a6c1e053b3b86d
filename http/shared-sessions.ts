// 2025 sessions shared by a deployment's processes: the record a store keeps (handshake, owner, log level,
// subscriptions, the GET stream and its holder), the SharedSessionStore interface (mcp-core/redis is one), and its use
// by the HTTP core: a failing store is logged and answered 503, never "no session"; a message for another process goes
// to that process only (bounded). Never holds a session itself; a record is removed only by the client's DELETE.

import {
  describeValue,
  ErrorCode,
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  randomBytes,
  toHex,
  utf8,
} from '../jsonrpc.ts';
import type { Handshake, SessionState } from '../legacy.ts';
import type { Logger } from '../types.ts';

/**
 * What a shared session store keeps of a 2025 session: its handshake, who opened it (with `auth`), and once the
 * client set them, its log level and resource subscriptions.
 */
export interface SessionRecord extends Handshake, Partial<SessionState> {
  /** The principal (token subject) that opened the session; later requests must come from the same one. */
  owner?: string;
  /**
   * As loaded from a store that holds GET streams (SharedSessionStore.holdGetStream): the session's GET stream and
   * its holder. Never saved with the record: the store keeps it apart, so neither overwrites the other.
   */
  getStream?: GetStreamHolder;
  /**
   * As loaded from a store that relays (SharedSessionStore.relay): the processes holding a copy of the session,
   * each recorded by its own `load` or `save` (as `process`). A client message relayed for the session goes only to
   * these. Never saved with the record.
   */
  copies?: string[];
}

/** A shared session's GET stream: its id, and the process holding it (the one whose client opened it last). */
export interface GetStreamHolder {
  id: string;
  process: string;
}

/**
 * 2025 sessions shared by the processes of a deployment (Redis, a database, a node:cluster primary, …): any process
 * serves a session another one created. Every method may be async. The initialize answer waits for `save`, so the
 * client never holds an id the store does not know; `logging/setLevel` and `resources/(un)subscribe` are
 * acknowledged once `save` stored the record with the new state; `remove` comes with DELETE. Every request of a
 * session loads its record first. Expiry of abandoned sessions is the store's own (a TTL): a process forgets its
 * idle local copies without removing the record.
 */
export interface SharedSessionStore {
  /** `process`: this process (see `relay`), to record among the session's copies. */
  save(id: string, record: SessionRecord, process?: string): Promise<void> | void;
  /** `process`: this process (see `relay`), to record among the session's copies, returned as the record's `copies`. */
  load(id: string, process?: string): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  remove(id: string): Promise<void> | void;
  /**
   * Optional, called once by each HTTP handler: `changed` is to be called in every process with each record saved
   * (the new one) or removed (undefined), by any process, in the order they were stored. A process holding a copy
   * of that session applies the new state to it at once, or ends it (its GET streams close). Without it a copy
   * learns of a change with its next request.
   */
  watch?(
    changed: (id: string, record: SessionRecord | undefined) => void,
    relayed: (id: string, message: JsonRpcMessage) => void,
    held: (id: string, holder: GetStreamHolder) => void,
    process?: string,
  ): Promise<void> | void;
  /**
   * Optional, with `watch` (and an event store that follows streams): records that the session's GET stream is now
   * `holder` (a client opened or resumed it there; only for a session the store still has: it never brings one
   * back), kept apart from the record and returned by `load` as its `getStream`, and announced to every process as
   * `held(id, holder)`, in store order. Every process then stores its messages for no request under that stream,
   * and only the holder sends change notifications. Without it each process delivers to the GET streams it holds.
   */
  holdGetStream?(id: string, holder: GetStreamHolder): Promise<void> | void;
  /**
   * Optional, with `watch` (and `load` returning the session's `copies`): hands a client's message that belongs to
   * another process's copy of the session to that process only (`process`, as that process gave it to `watch`,
   * `load` and `save`), as `relayed(id, message)` there: a response to a server→client request that process sent (an
   * elicitation's answer), or a `notifications/cancelled` for a request it may be running. Without it such a
   * response is dropped (the request times out) and such a cancel ignored.
   */
  relay?(id: string, message: JsonRpcMessage, process: string): Promise<void> | void;
}

/**
 * The largest client response relayed to another process, in UTF-8 bytes of its JSON (1 MiB): a bigger one is dropped
 * (counted), so a client cannot make the store carry more than this per message it sends.
 */
export const MAX_RELAYED_BYTES = 1 << 20;

/**
 * The largest `notifications/cancelled` relayed, in UTF-8 bytes of its JSON (1 KiB; relayed reduced to its request
 * id): a cancel goes to every other copy of the session, so a client's ids, which may be any string, are bounded
 * far below a response's.
 */
export const MAX_RELAYED_CANCEL_BYTES = 1 << 10;

/**
 * Outbound ids a shared session's copy may use: each process owns the ids `n * 2^32` to `(n + 1) * 2^32 - 1` of its
 * block number `n` (in [0, 2^20), so every id is a safe integer), and the id of a client's response names the block
 * of the process that asked. Two processes may draw the same number: their names still differ (SharedSessions.process),
 * and a response goes to every other copy of that block, so a collision costs a duplicate the copy that did not ask
 * ignores, never a loss.
 */
const IDS_PER_PROCESS = 2 ** 32;

/** At most one warning per process this often (ms) for the client messages dropped, which the client controls. */
const DROP_WARNING_MS = 60_000;

/** The answer when the shared store cannot be read or written (HTTP 503): the client may retry. */
export const STORE_UNAVAILABLE = errorResponse(null, {
  code: ErrorCode.InternalError,
  message: 'Internal error: the session store is unavailable',
});

/** A deployment's shared store as the HTTP core uses it: failures are logged here and surface as "no session". */
export class SharedSessions {
  readonly #store: SharedSessionStore;
  readonly #logger: Logger;
  /** This process's block of outbound ids (IDS_PER_PROCESS): random, so possibly another process's too. */
  readonly #number = randomInteger(20);
  /** This process among those sharing the store, as the store records it: `<block>.<64 random bits>`, unique. */
  readonly process = `${this.#number}.${toHex(randomBytes(8))}`;
  /** Client messages dropped since the last warning about them, and when that was (DROP_WARNING_MS). */
  #dropped = 0;
  #warnedAt = Number.NEGATIVE_INFINITY;

  constructor(store: SharedSessionStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * Where a copy of a shared session made in this process starts its outbound ids: in this process's own block (see
   * IDS_PER_PROCESS), at a random point in its first half, so a copy restored after another was reaped here does
   * not reissue its ids.
   */
  firstOutboundId(): number {
    return this.#number * IDS_PER_PROCESS + randomInteger(31);
  }

  /**
   * Saves a session's record: its handshake, its `owner` (with `auth`) and the `state` a request sets (none for a
   * new session). False (logged) when the store failed.
   */
  async save(id: string, handshake: Handshake, owner: string | undefined, state?: SessionState): Promise<boolean> {
    const record: SessionRecord = { ...handshake, ...state };
    if (owner !== undefined) record.owner = owner;
    try {
      await this.#store.save(id, record, this.process);
      return true;
    } catch (failure) {
      this.#logger.error(`could not save session ${id} to the shared store`, failure);
      return false;
    }
  }

  /** The record of a session, or undefined when the store does not know it; rejects (logged) when it cannot be read. */
  async load(id: string): Promise<SessionRecord | undefined> {
    try {
      return await this.#store.load(id, this.process);
    } catch (failure) {
      this.#logger.error(`could not load session ${id} from the shared store`, failure);
      throw failure;
    }
  }

  /** Whether the store holds GET streams (SharedSessionStore.holdGetStream, with watch). */
  get holdsGetStreams(): boolean {
    return this.#store.holdGetStream !== undefined && this.#store.watch !== undefined;
  }

  /** Records the session's GET stream and its holder (SharedSessionStore.holdGetStream); a failure is logged. */
  holdGetStream(id: string, holder: GetStreamHolder): void {
    const failed = (failure: unknown): void =>
      this.#logger.error(`could not record the GET stream of session ${id} in the shared store`, failure);
    try {
      Promise.resolve(this.#store.holdGetStream?.(id, holder)).catch(failed);
    } catch (failure) {
      failed(failure);
    }
  }

  /**
   * Has the store report every process's saves and removals to `changed`, responses other processes relay to
   * `relayed`, and GET streams held anywhere to `held` (SharedSessionStore.watch), if it can.
   */
  watch(
    changed: (id: string, record: SessionRecord | undefined) => void,
    relayed: (id: string, message: JsonRpcMessage) => void,
    held: (id: string, holder: GetStreamHolder) => void,
  ): void {
    if (this.#store.watch === undefined) return;
    try {
      Promise.resolve(this.#store.watch(changed, relayed, held, this.process)).catch((failure: unknown) =>
        this.#logger.error('could not watch the shared session store', failure),
      );
    } catch (failure) {
      this.#logger.error('could not watch the shared session store', failure);
    }
  }

  /**
   * A client message of session `id` that this process's copy cannot act on, for the copy it belongs to
   * (SharedSessionStore.relay), among the session's `copies` as last loaded (none when the store lists none): a
   * response goes to the other copies whose block holds its id (IDS_PER_PROCESS; not this one, which could not
   * match it), a `notifications/cancelled` to every other copy (the one running the request acts on it). Dropped,
   * counted, when no other copy can own a response (an id no copy of the session issued), or the message's JSON is
   * over MAX_RELAYED_BYTES (a cancel: MAX_RELAYED_CANCEL_BYTES). A store failure is logged (the request times out,
   * or runs on).
   */
  relay(id: string, copies: readonly string[] | undefined, message: JsonRpcResponse | JsonRpcNotification): void {
    if (this.#store.relay === undefined) return;
    const cancel = 'method' in message;
    const others = copies?.filter((copy) => copy !== this.process) ?? [];
    const to = cancel ? others : others.filter((copy) => copy.startsWith(this.#blockOf(message)));
    if (to.length === 0) {
      if (!cancel)
        this.#drop(
          `a response of session ${id} to id ${describeValue(message.id)}: no other process of the session sent that request`,
        );
      return;
    }
    const bytes = utf8(JSON.stringify(message)).byteLength;
    const bound = cancel ? MAX_RELAYED_CANCEL_BYTES : MAX_RELAYED_BYTES;
    if (bytes > bound) {
      this.#drop(`a client message of session ${id} for another process: ${bytes} bytes of JSON, over ${bound}`);
      return;
    }
    const failed = (failure: unknown): void =>
      this.#logger.error(`could not relay a client message of session ${id} through the shared store`, failure);
    for (const process of to) {
      try {
        Promise.resolve(this.#store.relay(id, message, process)).catch(failed);
      } catch (failure) {
        failed(failure);
      }
    }
  }

  /**
   * How the names of the processes whose block holds a response's id start (`<block>.`); a name no process has
   * (`-`) for an id no process issues (not a non-negative safe integer).
   */
  #blockOf(response: JsonRpcResponse): string {
    const { id } = response;
    return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? `${Math.floor(id / IDS_PER_PROCESS)}.` : '-';
  }

  /**
   * Counts a client message dropped instead of relayed, warning at most once per DROP_WARNING_MS (the client decides
   * how many it sends), with the count since the last warning.
   */
  #drop(what: string): void {
    this.#dropped++;
    const now = Date.now();
    if (now - this.#warnedAt < DROP_WARNING_MS) return;
    this.#logger.warn(`dropped ${what} (${this.#dropped} dropped since the last such warning, at most one a minute)`);
    this.#dropped = 0;
    this.#warnedAt = now;
  }

  /** The client ended the session (DELETE): every process forgets it. False (logged) when the store failed. */
  async remove(id: string): Promise<boolean> {
    try {
      await this.#store.remove(id);
      return true;
    } catch (failure) {
      this.#logger.error(`could not remove session ${id} from the shared store`, failure);
      return false;
    }
  }
}

/** A random integer in [0, 2^bits), bits at most 32. */
function randomInteger(bits: number): number {
  let value = 0;
  for (const byte of randomBytes(4)) value = value * 256 + byte;
  return Math.floor(value / 2 ** (32 - bits));
}
