// One HTTP exchange as the HTTP core sees it, whatever the framework: request headers (one value, Accept), the Reply
// interface (what the guard decided is data on it), body limits, the budget of long-lived SSE streams, the shutdown
// refusal, and a 2025 session's resumable SSE stream. Knows no session table and no MCP method; never writes an
// event before the store has taken it (or failed to: then it goes without an id).

import type { Envelope } from '../core.ts';
import { ErrorCode, errorResponse, type JsonRpcFailure, type RequestId } from '../jsonrpc.ts';
import type { AuthInfo, FrameExtras, HttpRequestInfo, Logger } from '../types.ts';
import { type EventStore, formatEvent, formatPriming, newStreamId } from './sse.ts';

/** Header names as node:http gives them: lowercase keys; a repeated header may arrive as an array or as a comma-joined string (node joins unknown repeated headers with ", "). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * A header's (first) value, read by name where it is used (`first(headers.host)`): a read by a variable name in one
 * shared place would see every header name and every request's object, and V8 would look each up in its global cache
 * of property accesses, missing it often in a busy server (bench/README.md, Instructions per call).
 */
export function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Which of the two media types an `Accept` value admits (wildcards honoured). */
export interface Accepted {
  json: boolean;
  sse: boolean;
}

const NOTHING_ACCEPTED: Accepted = { json: false, sse: false };
/** Clients repeat one `Accept` value on every request: parsed once each (bounded: cleared when full). */
const acceptedByValue = new Map<string, Accepted>();
const MAX_ACCEPT_VALUES = 64;
/** The value met last and what it admits, compared before the table: a lookup hashes every request's new string. */
let lastAccept: string | undefined;
let lastAccepted = NOTHING_ACCEPTED;

export function accepted(headers: HeaderBag): Accepted {
  const accept = first(headers.accept);
  if (accept === undefined) return NOTHING_ACCEPTED;
  if (accept === lastAccept) return lastAccepted;
  let known = acceptedByValue.get(accept);
  if (known === undefined) {
    const media = accept.split(',').map((range) => range.split(';')[0]!.trim().toLowerCase());
    const admits = (type: string, major: string) => media.some((m) => m === type || m === '*/*' || m === `${major}/*`);
    known = { json: admits('application/json', 'application'), sse: admits('text/event-stream', 'text') };
    if (acceptedByValue.size >= MAX_ACCEPT_VALUES) acceptedByValue.clear();
    acceptedByValue.set(accept, known);
  }
  lastAccept = accept;
  lastAccepted = known;
  return known;
}

/** The answer (HTTP 503) to a request the endpoint does not serve because its close() began, or cut by the drain window. */
export function shuttingDown(id: RequestId | null): JsonRpcFailure {
  return errorResponse(id, {
    code: ErrorCode.InternalError,
    message: 'Service Unavailable: the server is shutting down',
  });
}

/**
 * An endpoint's budget of long-lived SSE streams (listens here, and 2025 GET streams), and the count of every SSE
 * stream it has open (POST streams too: HttpMetrics.sseStreams). Every SSE answer of the endpoint opens here.
 */
export class StreamBudget {
  readonly #max: number;
  #open = 0;
  #sse = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get full(): boolean {
    return this.#open >= this.#max;
  }

  /** The answer when the budget is full: 503, echoing the request's id (null for a GET). */
  refuse(reply: Reply, id: RequestId | null): void {
    reply.send(503, errorResponse(id, { code: ErrorCode.InternalError, message: 'Too many open streams' }));
  }

  /** The SSE streams open now, of every kind. */
  get sseStreams(): number {
    return this.#sse;
  }

  /** Answers with an SSE stream; a `counted` one holds a place in the budget until it closes. */
  open(reply: Reply, counted: boolean, headers?: Record<string, string>): EventSink {
    const sink = reply.stream(headers);
    this.#sse++;
    if (counted) {
      this.#open++;
      sink.onClose(() => {
        this.#open--;
        this.#sse--;
      });
    } else {
      sink.onClose(() => this.#sse--);
    }
    return sink;
  }
}

/** The request body limit when an adapter's `maxBodyBytes` is not given (4 MiB). */
export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/** The answer (HTTP 413) to a body over the limit. */
export const PAYLOAD_TOO_LARGE = errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Payload Too Large' });

/** A JSON body already serialized (so that serializing could fail before anything about the exchange changed). */
export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }
}

/** The text of a JSON body. */
export function jsonText(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}

/**
 * What the HTTP core needs from one HTTP exchange, whatever the server framework. The adapters' replies are its only
 * implementations: what the guard decides about an exchange (its CORS headers, the verified identity) is set on it
 * as data, and the adapter writes `cors` into every answer.
 */
export interface Reply {
  readonly headers: HeaderBag;
  /** Answers once: status, optional JSON body (a value, or a JsonText), extra headers, then the `cors` headers. */
  send(status: number, body?: unknown, headers?: Record<string, string>): void;
  /** Answers with an SSE stream (status 200) and returns its writer; its headers end with the `cors` headers. */
  stream(headers?: Record<string, string>): EventSink;
  /** The client went away before the answer was complete. */
  onAbort(listener: () => void): void;
  readonly answered: boolean;
  /** What handlers of the requests in this exchange see as `ctx.http`. */
  readonly http?: HttpRequestInfo;
  /** The identity its bearer token was verified as (`ctx.auth`): set by the guard once it has verified it. */
  auth?: AuthInfo;
  /** The CORS response headers of an allowed cross-origin caller: set by the guard, carried by every answer. */
  cors?: Record<string, string>;
}

/** What the core is handed with the frames of `reply`'s exchange (a 2026-07-28 request's with the envelope read). */
export function extrasOf(reply: Reply): FrameExtras;
export function extrasOf(reply: Reply, envelope: Envelope): FrameExtras & { envelope: Envelope };
export function extrasOf(reply: Reply, envelope?: Envelope): FrameExtras {
  return { http: reply.http, auth: reply.auth, envelope };
}

/** One open SSE stream of an HTTP exchange: write event text, end it, learn when it closed. */
export interface EventSink {
  send(text: string): boolean;
  end(): void;
  readonly closed: boolean;
  onClose(listener: () => void): void;
}

/** What a stream needs of its session: where its events are stored, and how to report a store failure. */
export interface StreamOwner {
  readonly id: string | undefined;
  readonly eventStore: EventStore | undefined;
  readonly logger: Logger;
  /** The `retry:` a 2025-11-25 priming event advises for reconnecting. */
  readonly retryMs: number;
}

/** What a GET with Last-Event-ID resumes a stream from: the id, and the stream's stored events after it, as read. */
export interface Resumption {
  readonly lastEventId: string;
  readonly events: readonly { id: string; data: string }[];
}

/**
 * One SSE stream of a session with its single writer: events are stored, then written to the client connection
 * attached to it, strictly in order. With an event store the stream outlives its connection: what is written while
 * no client is attached is stored, and a client resuming the stream (GET with Last-Event-ID) gets it replayed, then
 * the rest live on this same stream. Without one, what is written while no client is attached is lost. A stream that
 * several processes write (share()) gets its events to the connection from the store instead, in the store's order.
 */
export class Stream {
  readonly id: string;
  /** The client connection events are written to (none attached, or it closed: they are only stored). */
  #sink: EventSink | undefined;
  /** A resuming connection whose replay is queued: the stream is taken meanwhile. */
  #joining: EventSink | undefined;
  #tail: Promise<void> = Promise.resolve();
  /** The id the store gave the last event this stream stored here. */
  #lastId: string | undefined;
  /** Its final event (its answer) was written, or it is over and not held here: a resuming connection ends after its replay. */
  #answered: boolean;
  /** Shared by processes (see share()): what is written here is only stored. */
  #shared = false;
  /** The id of the last stored event the connection got (its priming event, or its replay's last). */
  #deliveredId: string | undefined;

  constructor(sink: EventSink | undefined, id = newStreamId(), answered = false) {
    this.#sink = sink;
    this.id = id;
    this.#answered = answered;
  }

  /** Whether a client connection is attached and open, or joining. */
  get attached(): boolean {
    return this.#joining !== undefined || (this.#sink !== undefined && !this.#sink.closed);
  }

  /** Queues one event; `last`: the stream's final event (its answer), after which its connection ends. */
  write(session: StreamOwner, data: string, last = false): void {
    const store = session.eventStore;
    if (store === undefined || session.id === undefined) {
      this.#send(formatEvent(data));
      if (last) this.#answer();
      return;
    }
    const sessionId = session.id;
    this.#tail = this.#tail.then(async () => {
      let eventId: string | undefined;
      try {
        eventId = this.#lastId = await store.append(sessionId, this.id, data, last);
      } catch (error) {
        session.logger.error('event store append failed; the event is sent without an id', error); // never on the wire
      }
      // Shared: the event reaches the connection from the store (deliver), in the store's order; unstored, at once.
      if (!this.#shared || eventId === undefined) this.#send(formatEvent(data, eventId));
      if (last) this.#answer();
    });
  }

  /**
   * `true` makes this a stream several processes write (a shared 2025 session's GET stream): from then on what is
   * written here is only stored, and the connection gets every stored event, whichever process stored it, through
   * `deliver`, in the store's order. `false` writes to the connection directly again.
   */
  share(shared: boolean): void {
    this.#shared = shared;
  }

  /** Queues a stored event for `sink`, if it is still the connection attached (a shared stream's, from the store). */
  deliver(sink: EventSink, event: { id: string; data: string }): void {
    this.#tail = this.#tail.then(() => {
      if (this.#sink === sink && !sink.closed) sink.send(formatEvent(event.data, event.id));
    });
  }

  /**
   * Settles, once what is queued has gone, with the id of the last stored event `sink` got (where the store's events
   * for it go on from; undefined when none was stored), or false when `sink` is no longer the connection attached.
   */
  deliveredTo(sink: EventSink): Promise<string | undefined | false> {
    return this.#tail.then(() => (this.#sink === sink && !sink.closed ? this.#deliveredId : false));
  }

  /** Ends the stream after the events already queued for it, with nothing more (a withdrawn request, a session's end). */
  close(): void {
    this.#tail = this.#tail.then(() => this.#end());
  }

  /**
   * Ends the client connection after the events queued so far (its priming event), while the stream goes on: what
   * is written later is stored for the client's GET with Last-Event-ID (2025-11-25 transports, Streamable HTTP,
   * resumability: the server may close the connection after the priming event, and the client polls).
   */
  release(): void {
    this.#tail = this.#tail.then(() => {
      this.#sink?.end();
      this.#sink = undefined;
    });
  }

  /** Settles once everything queued so far (its final event or its close included) has been stored and written. */
  get settled(): Promise<void> {
    return this.#tail;
  }

  /** 2025-11-25: an id with empty data opens the stream, so a client can resume it from its very start. */
  prime(session: StreamOwner): void {
    const store = session.eventStore;
    if (store === undefined || session.id === undefined) return;
    const sessionId = session.id;
    this.#tail = this.#tail.then(async () => {
      try {
        const eventId = (this.#lastId = this.#deliveredId = await store.append(sessionId, this.id, ''));
        this.#send(formatPriming(eventId, session.retryMs));
      } catch (error) {
        session.logger.error('event store append failed; the stream starts without a priming event', error);
      }
    });
  }

  /**
   * Attaches a client connection (a GET; the caller checked `attached`). A `resumption` (the stream's events after
   * Last-Event-ID, read by the caller) is replayed first, in the stream's own order: what is written meanwhile waits
   * behind the replay, and what this stream stored after the store read it (written while the read was under way)
   * is read once more here, so nothing is lost or sent twice. Then the connection carries the rest live; on a
   * stream that ended with its answer (or is over and not held here) it ends after the replay, and on one that was
   * withdrawn it stays open carrying nothing (clients resume the stream of a request they cancelled, and would
   * only retry: docs/client-deviations.md, notes). A connection still attached ends: the new one takes over.
   */
  attach(session: StreamOwner, sink: EventSink, resumption?: Resumption): void {
    // A connection still attached, or still waiting for its replay, is taken over: its client came back on a new one.
    // What is written from here until the replay is only stored, and the replay reads it back.
    this.#sink?.end();
    this.#sink = undefined;
    this.#joining?.end();
    this.#joining = undefined;
    if (resumption === undefined) {
      this.#sink = sink;
      this.#deliveredId = undefined;
      return;
    }
    this.#joining = sink;
    this.#tail = this.#tail.then(async () => {
      if (this.#joining !== sink) return; // taken over by a later resumption before its turn (it was ended then)
      let events = resumption.events;
      const replayedTo = events.at(-1)?.id ?? resumption.lastEventId;
      if (this.#lastId !== undefined && this.#lastId !== replayedTo) {
        try {
          events = [...events, ...((await session.eventStore!.replayAfter(session.id!, replayedTo))?.events ?? [])];
        } catch (error) {
          session.logger.error('event store replay failed', error);
          if (this.#joining === sink) this.#joining = undefined;
          sink.end(); // the client may resume again
          return;
        }
        if (this.#joining !== sink) return; // taken over while the store was read
      }
      this.#joining = undefined;
      for (const event of events) sink.send(formatEvent(event.data, event.id));
      this.#deliveredId = events.at(-1)?.id ?? resumption.lastEventId;
      if (this.#answered) sink.end();
      else this.#sink = sink;
    });
  }

  /** Writes event text to the attached connection, if one is open (else it was only stored). */
  #send(text: string): void {
    const sink = this.#sink;
    if (sink !== undefined && !sink.closed) sink.send(text);
  }

  /** Its final event (its answer) was written: it ends, and so will a connection resuming it, after its replay. */
  #answer(): void {
    this.#answered = true;
    this.#end();
  }

  /** The stream carries nothing more; its connection, if any, ends. */
  #end(): void {
    this.#sink?.end();
  }
}
