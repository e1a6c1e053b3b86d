// One HTTP exchange as the HTTP core sees it, whatever the server framework: the Reply interface and the base of
// its decorators, bodies serialized ahead of time, and a 2025 session's SSE stream, whose events are stored before
// they are written. Knows no session table and no MCP method; never writes an event before the store has it.

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

/** One SSE stream of a session with its single writer: events are stored, then written, strictly in order. */
export class Stream {
  readonly sink: EventSink;
  readonly id: string;
  #tail: Promise<void> = Promise.resolve();

  constructor(sink: EventSink, id = newStreamId()) {
    this.sink = sink;
    this.id = id;
  }

  write(session: StreamOwner, data: string, after?: () => void): void {
    const store = session.eventStore;
    if (store === undefined || session.id === undefined) {
      if (!this.sink.closed) this.sink.send(formatEvent(data));
      after?.();
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
      if (!this.sink.closed) this.sink.send(formatEvent(data, eventId));
      after?.();
    });
  }

  /** Ends the stream after the events already queued for it. */
  close(): void {
    this.#tail = this.#tail.then(() => this.sink.end());
  }

  /** 2025-11-25: an id with empty data opens the stream, so a client can resume it from its very start. */
  prime(session: StreamOwner): void {
    const store = session.eventStore;
    if (store === undefined || session.id === undefined) return;
    const sessionId = session.id;
    this.#tail = this.#tail.then(async () => {
      try {
        const eventId = await store.append(sessionId, this.id, '');
        if (!this.sink.closed) this.sink.send(formatPriming(eventId, session.retryMs));
      } catch (error) {
        session.logger.error('event store append failed; the stream starts without a priming event', error);
      }
    });
  }
}
