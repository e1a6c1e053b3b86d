// 2025 sessions across the processes of a deployment: a new session's handshake is saved to the SharedSessionStore
// before its initialize answer leaves, and a process that does not hold a session restores it from its record.
// Owns the record's shape and that wait; never serves frames (sessions.ts does) and never removes a record unless
// the client ended the session (DELETE). A store that fails is answered 503 (retry later), never taken for "no session".

import { ForwardingReply, type Reply } from './exchange.ts';
import { ErrorCode, errorResponse } from './jsonrpc.ts';
import type { Session, SessionRecord, SharedSessionStore } from './sessions.ts';
import type { Logger } from './types.ts';

/** The answer when the shared store cannot be read or written (HTTP 503): the client may retry. */
export const STORE_UNAVAILABLE = errorResponse(null, { code: ErrorCode.InternalError, message: 'Internal error: the session store is unavailable' });

/** The reply of an initialize exchange: a successful answer (it names the new session) waits for the saved record. */
class PersistingReply extends ForwardingReply {
  readonly #save: () => Promise<void>;
  #sent = false;

  constructor(reply: Reply, save: () => Promise<void>) {
    super(reply);
    this.#save = save;
  }

  override get answered(): boolean {
    return this.#sent || this.inner.answered;
  }

  override send(status: number, body?: unknown, headers?: Record<string, string>): void {
    if (this.answered) return;
    this.#sent = true;
    if (headers?.['mcp-session-id'] === undefined) {
      this.inner.send(status, body, headers);
      return;
    }
    this.#save().then(
      () => this.inner.send(status, body, headers),
      () => this.inner.send(503, STORE_UNAVAILABLE),
    );
  }
}

/** A deployment's shared store as the HTTP core uses it: failures are logged here and surface as "no session". */
export class SharedSessions {
  readonly #store: SharedSessionStore;
  readonly #logger: Logger;

  constructor(store: SharedSessionStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /**
   * The reply to serve a new session's initialize with: its successful answer goes out once the record is saved. If
   * saving fails the client gets 503 and `abandon` ends the session here.
   */
  persisting(session: Session, reply: Reply, owner: string | undefined, abandon: () => void): Reply {
    return new PersistingReply(reply, async () => {
      const handshake = session.connection.handshake!;
      const record: SessionRecord = owner === undefined ? { ...handshake } : { ...handshake, owner };
      try {
        await this.#store.save(session.id!, record);
      } catch (failure) {
        this.#logger.error(`could not save session ${session.id} to the shared store`, failure);
        abandon();
        throw failure;
      }
    });
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
