// 2025 sessions shared by the processes of a deployment: the record a shared store keeps (handshake, owner, log
// level, subscriptions, the GET stream and its holder), the SharedSessionStore interface an engine implements
// (mcp-core/redis is one), and its use by the HTTP core, where a store that fails is logged and answered 503, never
// taken for "no session". Never holds a session itself; a record is removed only by the client's DELETE.

import { ErrorCode, errorResponse, type JsonRpcResponse } from './jsonrpc.ts';
import type { Handshake, SessionState } from './legacy.ts';
import type { Logger } from './types.ts';

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
  save(id: string, record: SessionRecord): Promise<void> | void;
  load(id: string): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  remove(id: string): Promise<void> | void;
  /**
   * Optional, called once by each HTTP handler: `changed` is to be called in every process with each record saved
   * (the new one) or removed (undefined), by any process, in the order they were stored. A process holding a copy
   * of that session applies the new state to it at once, or ends it (its GET streams close). Without it a copy
   * learns of a change with its next request.
   */
  watch?(
    changed: (id: string, record: SessionRecord | undefined) => void,
    relayed: (id: string, response: JsonRpcResponse) => void,
    held: (id: string, holder: GetStreamHolder) => void,
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
   * Optional, with `watch`: hands a client's response that this process cannot match (it answers a server→client
   * request another process sent, such as an elicitation) to every process, as `relayed(id, response)` there; the
   * one that asked settles it. Without it such a response is dropped (the request times out).
   */
  relay?(id: string, response: JsonRpcResponse): Promise<void> | void;
}

/** The answer when the shared store cannot be read or written (HTTP 503): the client may retry. */
export const STORE_UNAVAILABLE = errorResponse(null, {
  code: ErrorCode.InternalError,
  message: 'Internal error: the session store is unavailable',
});

/** A deployment's shared store as the HTTP core uses it: failures are logged here and surface as "no session". */
export class SharedSessions {
  readonly #store: SharedSessionStore;
  readonly #logger: Logger;

  constructor(store: SharedSessionStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * Saves a session's record: its handshake, its `owner` (with `auth`) and the `state` a request sets (none for a
   * new session). False (logged) when the store failed.
   */
  async save(id: string, handshake: Handshake, owner: string | undefined, state?: SessionState): Promise<boolean> {
    const record: SessionRecord = { ...handshake, ...state };
    if (owner !== undefined) record.owner = owner;
    try {
      await this.#store.save(id, record);
      return true;
    } catch (failure) {
      this.#logger.error(`could not save session ${id} to the shared store`, failure);
      return false;
    }
  }

  /** The record of a session, or undefined when the store does not know it; rejects (logged) when it cannot be read. */
  async load(id: string): Promise<SessionRecord | undefined> {
    try {
      return await this.#store.load(id);
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
    relayed: (id: string, response: JsonRpcResponse) => void,
    held: (id: string, holder: GetStreamHolder) => void,
  ): void {
    if (this.#store.watch === undefined) return;
    try {
      Promise.resolve(this.#store.watch(changed, relayed, held)).catch((failure: unknown) =>
        this.#logger.error('could not watch the shared session store', failure),
      );
    } catch (failure) {
      this.#logger.error('could not watch the shared session store', failure);
    }
  }

  /** Hands a response to the process that asked (SharedSessionStore.relay); a failure is logged (it times out). */
  relay(id: string, response: JsonRpcResponse): void {
    if (this.#store.relay === undefined) return;
    const failed = (failure: unknown): void =>
      this.#logger.error(`could not relay a response of session ${id} through the shared store`, failure);
    try {
      Promise.resolve(this.#store.relay(id, response)).catch(failed);
    } catch (failure) {
      failed(failure);
    }
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
