// Which of a 2025 session's POST streams a GET with Last-Event-ID resumes, and how (with an event store): one held
// here carries its later events and answer, one another process serves is relayed from the store, one that is over
// gets its replay only, a withdrawn one stays open carrying nothing. Owns one session's POST streams by id, its
// withdrawn-stream memory and the GETs resuming or relaying them; never routes a frame, never resumes a GET stream.

import { ErrorCode, errorResponse, type JsonRpcMessage, type JsonRpcResponse } from '../jsonrpc.ts';
import { type EventSink, type Reply, type Resumption, Stream, type StreamOwner } from './exchange.ts';
import { formatEvent } from './sse.ts';

/**
 * How many withdrawn POST stream ids a session remembers: a client resumes the stream of a request it cancelled
 * soon after (SDK v1 after the advised `retry:`), so the last ones are enough; an older one ends after its replay.
 */
const WITHDRAWN_STREAMS_KEPT = 100;

/** Whether a stored event's data is a POST stream's answer (a response, or a batch's array): its final event. */
function isAnswer(data: string): boolean {
  let message: JsonRpcMessage | JsonRpcResponse[] | null;
  try {
    message = JSON.parse(data) as typeof message;
  } catch {
    return false; // not stored by a session: it is relayed as it is, and ends nothing
  }
  return (
    Array.isArray(message) ||
    (typeof message === 'object' && message !== null && 'id' in message && !('method' in message))
  );
}

/**
 * The POST streams of one 2025 session with an event store, as a GET with Last-Event-ID finds them: the session
 * adds each POST's SSE stream, says when one wrote its answer or was withdrawn, and hands over a GET whose event
 * belongs to a POST stream (`resume`). Made by the session only when it has an event store.
 */
export class PostStreams {
  readonly #session: StreamOwner;
  /** The POST streams still carrying events, by id, for a GET resuming one. */
  #streams: Map<string, Stream> | undefined; // made on demand, like the next ones
  /** POST streams a GET resumed, while that GET is open. */
  #resumed: Set<Stream> | undefined;
  /** GETs relaying a POST stream another process serves (see #relay), while open. */
  #relays: Set<EventSink> | undefined;
  /**
   * The ids of the session's last WITHDRAWN_STREAMS_KEPT POST streams that ended without an answer (withdrawn),
   * oldest first. A GET resuming one stays open carrying nothing; any other stream that is over ends after its
   * replay.
   */
  #withdrawn: Set<string> | undefined;

  /** `session`: whose streams these are (its id, event store and logger, read when used). */
  constructor(session: StreamOwner) {
    this.#session = session;
  }

  /** Whether a GET resuming or relaying one of these streams is still open (reaping waits for it). */
  get busy(): boolean {
    return (this.#resumed?.size ?? 0) > 0 || (this.#relays?.size ?? 0) > 0;
  }

  /** A POST's SSE stream: found by id for a GET resuming it until it is done. */
  add(stream: Stream): void {
    (this.#streams ??= new Map()).set(stream.id, stream);
  }

  /** A POST stream that is done is no longer found by id once its last events are stored and written. */
  forgetWhenSettled(stream: Stream): void {
    const streams = this.#streams;
    if (streams !== undefined) void stream.settled.then(() => streams.delete(stream.id));
  }

  /** A POST stream the session ended without an answer: remembered as withdrawn (bounded) for a GET resuming it. */
  withdraw(stream: Stream): void {
    this.forgetWhenSettled(stream);
    const withdrawn = (this.#withdrawn ??= new Set());
    withdrawn.add(stream.id);
    for (const oldest of withdrawn) {
      if (withdrawn.size <= WITHDRAWN_STREAMS_KEPT) break;
      withdrawn.delete(oldest);
    }
  }

  /**
   * A GET whose Last-Event-ID belongs to the POST stream `streamId` (`resumption`: that id and the stream's stored
   * events after it, as read): 409 while that POST's own connection is still open; else `open` answers it with its
   * SSE stream, which carries that POST's later events and its answer, then ends, and never the session's
   * broadcasts (one that is over, or that this process does not serve, gets its replay only, then ends; a withdrawn
   * one stays open carrying nothing: see Stream.attach). With a store that follows streams, one this process neither
   * holds nor withdrew is relayed from the store (#relay).
   */
  resume(reply: Reply, streamId: string, resumption: Resumption, open: (reply: Reply) => EventSink): void {
    const live = this.#streams?.get(streamId);
    if (live?.attached === true) {
      reply.send(
        409,
        errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: 'Conflict: the stream of that Last-Event-ID is still open',
        }),
      );
      return;
    }
    // Not held here: it is over (answered, or withdrawn), or another process serves it.
    const withdrawn = this.#withdrawn?.has(streamId) === true;
    if (live === undefined && !withdrawn && this.#session.eventStore!.follow !== undefined) {
      this.#relay(reply, open, streamId, resumption.lastEventId, resumption.events);
      return;
    }
    const stream = live ?? new Stream(undefined, streamId, !withdrawn);
    const sink = open(reply);
    const resumed = (this.#resumed ??= new Set());
    resumed.add(stream);
    sink.onClose(() => resumed.delete(stream));
    stream.attach(this.#session, sink, resumption);
  }

  /**
   * Resumes a POST stream this process does not hold, with a store that follows streams (shared by processes): the
   * replay, then what the process serving the request goes on storing, relayed as it is stored, up to its answer
   * (then the connection ends). A stream whose answer is in the replay ends after it.
   */
  #relay(
    reply: Reply,
    open: (reply: Reply) => EventSink,
    streamId: string,
    lastEventId: string,
    events: readonly { id: string; data: string }[],
  ): void {
    const { eventStore, id, logger } = this.#session;
    const sink = open(reply);
    for (const event of events) sink.send(formatEvent(event.data, event.id));
    if (events.some((event) => isAnswer(event.data))) {
      sink.end();
      return;
    }
    const following = eventStore!.follow!(id!, streamId, events.at(-1)?.id ?? lastEventId, (event) => {
      sink.send(formatEvent(event.data, event.id));
      if (isAnswer(event.data)) sink.end();
    });
    const relays = (this.#relays ??= new Set());
    relays.add(sink);
    sink.onClose(() => {
      relays.delete(sink);
      following.stop();
    });
    following.ready.catch((error: unknown) => {
      logger.error('event store follow failed', error);
      sink.end(); // the client may resume again
    });
  }

  /** The server is closing: the GETs resuming or relaying these streams end at once. */
  shutdown(): void {
    for (const stream of this.#resumed ?? []) stream.close();
    for (const sink of this.#relays ?? []) sink.end();
  }

  /** The session ended: the GETs resuming or relaying its POST streams end, and every stream id is forgotten. */
  end(): void {
    for (const stream of this.#resumed ?? []) stream.close();
    this.#resumed = undefined;
    for (const sink of this.#relays ?? []) sink.end();
    this.#relays = undefined;
    this.#streams = undefined;
    this.#withdrawn = undefined;
  }
}
