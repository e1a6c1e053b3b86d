// The GET stream of a 2025 session that several processes share (a shared session store that holds GET streams, an
// event store that follows streams, 2025-11-25): which stream the session's messages for no request go to, the
// process holding it, and the holder's connection fed from the store in the store's order. Owns one session's view of
// its GET stream; never routes a message related to a request, and never touches another session.

import type { EventSink, Stream, StreamOwner } from './exchange.ts';
import type { GetStreamHolder } from './shared-sessions.ts';
import { isGetStreamId } from './sse.ts';

/** Messages for a GET stream held elsewhere that may wait to be stored at once; past it, one is dropped (logged). */
export const MAX_HANDED_ON = 64;

/** What a session's shared GET stream needs from the HTTP core: this process's id, and the store's hold. */
export interface GetStreamHolds {
  /** This process among those sharing the store (GetStreamHolder.process). */
  readonly processId: string;
  /** Whether a change reaches every process (a change bus): then only the holder's copy sends change notifications. */
  readonly changesShared: boolean;
  /** Records (and announces to every process) that the session's GET stream is now `holder`; failures are logged. */
  hold(sessionId: string, holder: GetStreamHolder): void;
}

/**
 * One session's shared GET stream. The store names the GET stream a client opened or resumed last, and the
 * process holding it (SharedSessionStore.holdGetStream); each process's copy of the session follows the store's
 * announcements in order. A message for no request produced here goes to that stream: written to it when this
 * process holds it, else stored under it, so that the holder delivers it (or the client's resumption, wherever that
 * lands, replays it). A change notification, which every copy hears when changes are shared, is written by the
 * holder's copy only.
 */
export class SharedGetStream {
  readonly #session: StreamOwner;
  readonly #holds: GetStreamHolds;
  /** The GET stream the store names, as this copy last heard. */
  #named: GetStreamHolder | undefined;
  /** Stores under a GET stream held elsewhere, in order; how many wait. */
  #handedOn: Promise<void> = Promise.resolve();
  #waiting = 0;
  #ended = false;

  constructor(session: StreamOwner, holds: GetStreamHolds) {
    this.#session = session;
    this.#holds = holds;
  }

  /**
   * A message for no request: written to `held(id)` (the session's GET stream of that id here) when this process
   * holds the named stream, else stored under it. Returns false when no GET stream is named yet (the caller routes it
   * as an unshared session would).
   */
  send(text: string, change: boolean, held: (streamId: string) => Stream | undefined): boolean {
    const named = this.#named;
    if (named === undefined) return false;
    const mine = named.process === this.#holds.processId;
    const stream = mine ? held(named.id) : undefined;
    if (stream !== undefined) stream.write(this.#session, text);
    // The holder's copy writes every change; any other copy only what it alone has (a change it alone hears too).
    else if (mine || !change || !this.#holds.changesShared) this.#store(named.id, text);
    return true;
  }

  /** Stores a message under a GET stream this process does not hold; bounded (MAX_HANDED_ON), in order. */
  #store(streamId: string, text: string): void {
    const { eventStore, id, logger } = this.#session;
    if (this.#waiting >= MAX_HANDED_ON) {
      logger.error(`event store: ${MAX_HANDED_ON} messages wait to be stored; a GET stream message is dropped`);
      return;
    }
    this.#waiting++;
    this.#handedOn = this.#handedOn
      .then(() => (this.#ended ? undefined : eventStore!.append(id!, streamId, text)))
      .then(
        () => undefined,
        (error: unknown) => logger.error('event store append failed; a GET stream message is lost', error),
      )
      .finally(() => this.#waiting--);
  }

  /**
   * What the store named (an announcement, in store order; or a load, which only fills in a copy that heard
   * nothing yet, since a load may be older than an announcement). Returns the id of a GET stream this process held
   * and now lets go of (a client resumed it on another process), if any.
   */
  heard(holder: unknown, loaded: boolean): string | undefined {
    if (!isHolder(holder) || (loaded && this.#named !== undefined)) return undefined;
    const before = this.#named;
    this.#named = { id: holder.id, process: holder.process };
    const lost = before?.process === this.#holds.processId && holder.process !== this.#holds.processId;
    return lost ? before.id : undefined;
  }

  /**
   * A client opened or resumed `stream` here on `sink`: it is the session's GET stream now, held by this process
   * (recorded in the store), and `sink` gets every event stored under it after what it got so far, whichever
   * process stored it, until it closes. When that start is unknown (its priming event could not be stored), the
   * stream is written to directly instead.
   */
  hold(stream: Stream, sink: EventSink): void {
    const { id, eventStore, logger } = this.#session;
    stream.share(true);
    this.#named = { id: stream.id, process: this.#holds.processId };
    this.#holds.hold(id!, this.#named);
    void stream.deliveredTo(sink).then((delivered) => {
      if (delivered === false) return; // its client left (or came back on another connection) meanwhile
      if (delivered === undefined) {
        stream.share(false);
        return;
      }
      const following = eventStore!.follow!(id!, stream.id, delivered, (event) => stream.deliver(sink, event));
      sink.onClose(() => following.stop());
      following.ready.catch((error: unknown) => {
        logger.error('event store follow failed', error);
        sink.end(); // the client resumes the stream
      });
    });
  }

  /** The session ended here: what still waits to be stored is dropped. */
  end(): void {
    this.#ended = true;
  }
}

/** Whether a value is a GetStreamHolder naming a GET stream (a record's, or an announcement's). */
function isHolder(value: unknown): value is GetStreamHolder {
  const holder = value as GetStreamHolder | undefined;
  return typeof holder?.id === 'string' && typeof holder.process === 'string' && isGetStreamId(holder.id);
}
