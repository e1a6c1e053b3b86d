// One HTTP exchange as the HTTP core sees it, whatever the server framework: the Reply interface and the base of
// its decorators, bodies serialized ahead of time, and a 2025 session's SSE stream, whose events are stored before
// they are written, and which a client may leave and resume. Knows no session table and no MCP method; never
// writes an event before the store has it.

import type { HeaderBag } from './http-headers.ts';
import { formatEvent, formatPriming, newStreamId, type EventStore } from './sse.ts';
import type { HttpRequestInfo, Logger } from './types.ts';

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

/** What the HTTP core needs from one HTTP exchange, whatever the server framework. */
export interface Reply {
  readonly headers: HeaderBag;
  /** Answers once: status, optional JSON body (a value, or a JsonText), extra headers. */
  send(status: number, body?: unknown, headers?: Record<string, string>): void;
  /** Answers with an SSE stream (status 200) and returns its writer. */
  stream(headers?: Record<string, string>): EventSink;
  /** The client went away before the answer was complete. */
  onAbort(listener: () => void): void;
  readonly answered: boolean;
  /** What handlers of the requests in this exchange see as `ctx.http`. */
  readonly http?: HttpRequestInfo;
}

/** A Reply that passes everything on to another: the base of decorators, which override what they change. */
export class ForwardingReply implements Reply {
  readonly inner: Reply;

  constructor(inner: Reply) {
    this.inner = inner;
  }

  get headers(): HeaderBag {
    return this.inner.headers;
  }

  get http(): HttpRequestInfo | undefined {
    return this.inner.http;
  }

  get answered(): boolean {
    return this.inner.answered;
  }

  send(status: number, body?: unknown, headers?: Record<string, string>): void {
    this.inner.send(status, body, headers);
  }

  stream(headers?: Record<string, string>): EventSink {
    return this.inner.stream(headers);
  }

  onAbort(listener: () => void): void {
    this.inner.onAbort(listener);
  }
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

/** Whether stored event text is an answer (a response, or a batch's array of them): the last event of a POST stream. */
function isAnswer(data: string | undefined): boolean {
  if (data === undefined) return false;
  const value: unknown = JSON.parse(data); // a store that returns text of its own fails the replay
  return Array.isArray(value) || (typeof value === 'object' && value !== null && !('method' in value));
}

/**
 * One SSE stream of a session with its single writer: events are stored, then written to the client connection
 * attached to it, strictly in order. With an event store the stream outlives its connection: what is written while
 * no client is attached is stored, and a client resuming the stream (GET with Last-Event-ID) gets it replayed, then
 * the rest live on this same stream. Without one, what is written while no client is attached is lost.
 */
export class Stream {
  readonly id: string;
  /** The client connection events are written to (none attached, or it closed: they are only stored). */
  #sink: EventSink | undefined;
  /** A resuming connection whose replay is queued: the stream is taken meanwhile. */
  #joining: EventSink | undefined;
  #tail: Promise<void> = Promise.resolve();
  /** It carries nothing more: its last event was written, it was withdrawn, or it is not served here. */
  #done: boolean;

  constructor(sink: EventSink | undefined, id = newStreamId(), done = false) {
    this.#sink = sink;
    this.id = id;
    this.#done = done;
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
      if (last) this.#end();
      return;
    }
    const sessionId = session.id;
    this.#tail = this.#tail.then(async () => {
      let eventId: string | undefined;
      try {
        eventId = await store.append(sessionId, this.id, data);
      } catch (error) {
        session.logger.error('event store append failed; the event is sent without an id', error); // never on the wire
      }
      this.#send(formatEvent(data, eventId));
      if (last) this.#end();
    });
  }

  /** Ends the stream after the events already queued for it, with nothing more (a withdrawn request, a session's end). */
  close(): void {
    this.#tail = this.#tail.then(() => this.#end());
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
        const eventId = await store.append(sessionId, this.id, '');
        this.#send(formatPriming(eventId, session.retryMs));
      } catch (error) {
        session.logger.error('event store append failed; the stream starts without a priming event', error);
      }
    });
  }

  /**
   * Attaches a client connection (a GET; the caller checked `attached`). With `lastEventId` the stream's stored
   * events after it are replayed first, in the stream's own order: what is written meanwhile waits behind the
   * replay, so nothing is lost or sent twice. Then the connection carries the rest live; on a stream that is done
   * it ends after a replay that ended with the answer, and otherwise stays open carrying nothing (clients resume
   * the stream of a request they cancelled, and would only retry).
   */
  attach(session: StreamOwner, sink: EventSink, lastEventId?: string): void {
    if (lastEventId === undefined) {
      this.#sink = sink;
      return;
    }
    this.#joining = sink;
    this.#tail = this.#tail.then(async () => {
      let events: { id: string; data: string }[];
      let answered: boolean;
      try {
        events = (await session.eventStore!.replayAfter(session.id!, lastEventId))?.events ?? [];
        answered = this.#done && isAnswer(events.at(-1)?.data);
      } catch (error) {
        session.logger.error('event store replay failed', error);
        this.#joining = undefined;
        sink.end(); // the client may resume again
        return;
      }
      this.#joining = undefined;
      for (const event of events) sink.send(formatEvent(event.data, event.id));
      if (answered) sink.end();
      else this.#sink = sink;
    });
  }

  /** Writes event text to the attached connection, if one is open (else it was only stored). */
  #send(text: string): void {
    const sink = this.#sink;
    if (sink !== undefined && !sink.closed) sink.send(text);
  }

  /** The stream carries nothing more; its connection, if any, ends. */
  #end(): void {
    this.#done = true;
    this.#sink?.end();
  }
}
