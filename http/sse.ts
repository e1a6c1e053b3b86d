// Server-Sent Events for Streamable HTTP (MCP 2025-11-25, Basic > Transports > Streamable HTTP): event text, the
// priming event (> Sending Messages to the Server), the resumability event store (> Resumability and Redelivery;
// stream and event ids are server-minted and session-scoped, a replay never leaves its stream) and a
// single-writer SSE response with keep-alive comments, peer-disconnect detection and backpressure reporting.
import type { Writable } from 'node:stream';
import { randomBytes, toHex } from '../jsonrpc.ts';

/** One SSE event's text: `id: <id>\n` when given, `event: message\n`, `data: <json>\n\n` (JSON is single-line). */
export function formatEvent(data: string, id?: string): string {
  // Compact JSON has no raw line breaks; any that slip in become extra `data:` lines, which SSE rejoins with "\n".
  const body = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `${id === undefined ? '' : `id: ${checkId(id)}\n`}event: message\n${body}\n`;
}

/** The priming event of a 2025-11-25 stream: an id with empty data, plus `retry: <ms>` when given. */
export function formatPriming(id: string, retryMs?: number): string {
  if (retryMs !== undefined && !(Number.isSafeInteger(retryMs) && retryMs >= 0)) {
    throw new RangeError(`retry must be a non-negative integer of milliseconds, got ${retryMs}`);
  }
  return `id: ${checkId(id)}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data: \n\n`;
}

/** A line break would end the `id:` field early; a NUL makes clients ignore it. Ids are server-minted, so this is a bug. */
function checkId(id: string): string {
  if (/[\r\n\0]/.test(id)) throw new TypeError('an SSE event id must not contain CR, LF or NUL');
  return id;
}

/**
 * Keep-alive comment. A bare `:\r\n`, as some servers send, is a valid comment line, but it does not end an event
 * block, and it would be the only CR on a stream whose events use LF. `:\n\n` is a comment line plus the blank line
 * that closes the block: a spec parser dispatches nothing (empty data, last event id unchanged), and parsers or
 * proxies that cut the stream at blank lines see a self-contained, comment-only block and flush it.
 */
export const KEEP_ALIVE = ':\n\n';

/** The keep-alive interval an option asks for (default 15 s; 0: none); a RangeError names a bad one. */
export function keepAliveOf(keepAliveMs: number | undefined): number {
  const interval = keepAliveMs ?? 15_000;
  if (!Number.isSafeInteger(interval) || interval < 0) {
    throw new RangeError(`keepAliveMs must be a non-negative integer, got ${interval}`);
  }
  return interval;
}

/**
 * Response headers of an SSE stream (the caller passes them to writeHead). `no-transform` keeps compressing proxies
 * from buffering the stream. `connection` is for HTTP/1.1 only: HTTP/2 forbids connection-specific headers.
 */
export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

type Replay = { streamId: string; events: { id: string; data: string }[] };

/** Stored events for resumption. Implementations may be shared by processes; every method may be async. */
export interface EventStore {
  /**
   * Stores one event of a stream and returns its id. Ids are server-minted, unique across the session's streams, and
   * name their stream. `last`: the stream's final event (a POST stream's answer), after which nothing is appended to it.
   */
  append(sessionId: string, streamId: string, data: string, last?: boolean): Promise<string> | string;
  /** The events of the stream that `lastEventId` belongs to, after it, in order; undefined when the id is unknown, foreign to the session, or already evicted. */
  replayAfter(sessionId: string, lastEventId: string): Promise<Replay | undefined> | Replay | undefined;
  /** Forgets everything of a session. */
  dropSession(sessionId: string): Promise<void> | void;
  /**
   * Optional, for a store shared by processes: hands `deliver` each event of the stream stored after `afterId` (an
   * id of that stream), by any process, in order and once each, as they are stored, until `stop()`. `ready`
   * settles once following began (rejects when it could not). A process resuming a POST stream that another one
   * serves relays what that one goes on storing, its answer included.
   */
  follow?(
    sessionId: string,
    streamId: string,
    afterId: string,
    deliver: (event: { id: string; data: string }) => void,
  ): { ready: Promise<void>; stop(): void };
}

/** Mints a stream id: random, url-safe, never derived from client input. 128 bits of lowercase hex (no `_`). */
export function newStreamId(): string {
  return toHex(randomBytes(16));
}

/** A session's first event sequence number: random in [1, 2^40), from 40 random bits. */
function firstSequence(): number {
  let value = 0;
  for (const byte of randomBytes(5)) value = value * 256 + byte;
  return 1 + (value % (2 ** 40 - 1));
}

/** What every GET stream id starts with; a POST stream's id (newStreamId) is hex only, so it never does. */
const GET_STREAM = 'get-';

/**
 * Mints the id of a new GET stream: `get-` and 128 random bits of hex. Every process serving the session recognises a
 * resumption as a GET stream's (isGetStreamId) wherever it lands; the event store is session-scoped, so a replay
 * names only this session's streams.
 */
export function newGetStreamId(): string {
  return GET_STREAM + newStreamId();
}

/** Whether `streamId` names a GET stream (newGetStreamId), not a POST stream. */
export function isGetStreamId(streamId: string): boolean {
  return streamId.startsWith(GET_STREAM);
}

const STREAM_ID = /^[A-Za-z0-9-]+$/;

interface StoredEvent {
  id: string;
  seq: number;
  data: string;
}
/** A session's events, by stream (in order of each stream's first held event), each stream's in order. */
interface SessionEvents {
  nextSeq: number;
  size: number;
  streams: Map<string, StoredEvent[]>;
}

/**
 * The default store: in memory, bounded per session (maxEventsPerSession, default 1000, over all its streams) and
 * in total sessions (maxSessions, default 10000, least recently used dropped). A session over its bound loses the
 * oldest event of the stream holding the most events: a chatty stream (a GET stream storing broadcasts
 * while no client is attached) evicts only its own oldest events, never those of a smaller stream (a dropped POST's
 * progress and answer). Event ids are `<streamId>_<sequence>`; the sequence is per session and increasing, so a
 * lookup is a binary search in the stream named by the id. It starts at a random point, so a session dropped (LRU)
 * and then written again never reissues an id a client may still hold. An event with empty data (a priming event)
 * is stored so a client can resume from its id, but is never replayed: it carries no message.
 */
export class MemoryEventStore implements EventStore {
  readonly #maxEvents: number;
  readonly #maxSessions: number;
  readonly #sessions = new Map<string, SessionEvents>(); // insertion order = least recently used first
  #size = 0;

  constructor(options: { maxEventsPerSession?: number; maxSessions?: number } = {}) {
    this.#maxEvents = positive('maxEventsPerSession', options.maxEventsPerSession ?? 1000);
    this.#maxSessions = positive('maxSessions', options.maxSessions ?? 10_000);
  }

  /** Events held, over all sessions. */
  get size(): number {
    return this.#size;
  }

  append(sessionId: string, streamId: string, data: string): string {
    if (!STREAM_ID.test(streamId)) throw new TypeError(`invalid stream id ${JSON.stringify(streamId)}`);
    let session = this.#touch(sessionId);
    if (session === undefined) {
      session = { nextSeq: firstSequence(), size: 0, streams: new Map() };
      this.#sessions.set(sessionId, session);
      for (const [oldest] of this.#sessions) {
        if (this.#sessions.size <= this.#maxSessions) break;
        this.dropSession(oldest);
      }
    }
    const seq = session.nextSeq++;
    const id = `${streamId}_${seq}`;
    let events = session.streams.get(streamId);
    if (events === undefined) session.streams.set(streamId, (events = []));
    events.push({ id, seq, data });
    session.size++;
    this.#size++;
    if (session.size > this.#maxEvents) this.#evict(session);
    return id;
  }

  replayAfter(sessionId: string, lastEventId: string): Replay | undefined {
    const cut = lastEventId.lastIndexOf('_');
    const digits = lastEventId.slice(cut + 1);
    if (cut <= 0 || !/^[0-9]+$/.test(digits)) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const events = this.#touch(sessionId)?.streams.get(streamId);
    if (events === undefined) return undefined;
    const seq = Number(digits);
    let low = 0;
    let high = events.length; // the first event with a sequence >= seq is at `low` once they meet
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (events[middle].seq < seq) low = middle + 1;
      else high = middle;
    }
    // The exact id must still be held: this rejects other sessions' ids, unknown sequences and evicted events.
    if (events[low]?.id !== lastEventId) return undefined;
    const replay: { id: string; data: string }[] = [];
    for (let i = low + 1; i < events.length; i++) {
      if (events[i].data !== '') replay.push({ id: events[i].id, data: events[i].data });
    }
    return { streamId, events: replay };
  }

  /** Drops the oldest event of the session's stream holding the most events (the first such stream on a tie). */
  #evict(session: SessionEvents): void {
    let largest: [string, StoredEvent[]] | undefined;
    for (const entry of session.streams) {
      if (largest === undefined || entry[1].length > largest[1].length) largest = entry;
    }
    const [streamId, events] = largest!;
    events.shift();
    if (events.length === 0) session.streams.delete(streamId);
    session.size--;
    this.#size--;
  }

  dropSession(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    this.#size -= session.size;
    this.#sessions.delete(sessionId);
  }

  /** Marks a session as most recently used. */
  #touch(sessionId: string): SessionEvents | undefined {
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) {
      this.#sessions.delete(sessionId);
      this.#sessions.set(sessionId, session);
    }
    return session;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * One SSE response with exactly one writer: writes events in order, sends keep-alive comments every `keepAliveMs`
 * (default 15000; 0 disables) while open (timer unref'd, skipped while the response is backed up, cleared on end),
 * stops writing once the peer is gone, and reports backpressure. It never writes headers: the caller does
 * writeHead(200, SSE_HEADERS). A response 'error' counts as a disconnect. Listeners and the timer are removed on
 * every path to closed.
 */
export class SseWriter {
  readonly #response: Writable;
  readonly #closeListeners = new CloseListeners();
  readonly #onPeerGone = (): void => this.#close();
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(response: Writable, options: { keepAliveMs?: number } = {}) {
    const keepAliveMs = keepAliveOf(options.keepAliveMs);
    this.#response = response;
    if (this.#gone()) {
      this.#closed = true; // its 'close' may already have been emitted: never wait for it
      this.#closeListeners.call();
      return;
    }
    response.on('close', this.#onPeerGone);
    response.on('error', this.#onPeerGone);
    if (keepAliveMs > 0) {
      this.#timer = setInterval(() => {
        if (this.#gone()) this.#close();
        else if (!response.writableNeedDrain) response.write(KEEP_ALIVE);
      }, keepAliveMs);
      this.#timer.unref();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one event; returns false when the response asked to wait (backpressure) or is closed. */
  send(text: string): boolean {
    if (this.#closed) return false;
    if (this.#gone()) {
      this.#close();
      return false;
    }
    return this.#response.write(text);
  }

  /** Ends the stream (idempotent); clears the keep-alive timer. */
  end(): void {
    if (this.#closed) return;
    const gone = this.#gone();
    try {
      this.#close(); // detaches first, so the response's own 'close' after end() is not taken for a disconnect
    } finally {
      if (!gone) this.#response.end(); // even when an onClose listener threw
    }
  }

  /** Calls `listener` once when the peer disconnects or end() was called (at once if that already happened). */
  onClose(listener: () => void): void {
    this.#closeListeners.add(listener);
  }

  #gone(): boolean {
    const response = this.#response;
    return response.destroyed || response.writableEnded || response.closed;
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#response.off('close', this.#onPeerGone);
    this.#response.off('error', this.#onPeerGone);
    this.#closeListeners.call();
  }
}

/**
 * The close listeners of an event sink: each is called once, when the sink closes (at once when added after). All of
 * them run even when one throws; the first error is then rethrown.
 */
export class CloseListeners {
  #waiting: (() => void)[] | undefined = [];

  add(listener: () => void): void {
    if (this.#waiting === undefined) listener();
    else this.#waiting.push(listener);
  }

  call(): void {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    const errors: unknown[] = [];
    for (const listener of waiting) {
      try {
        listener();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }
}
