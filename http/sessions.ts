// 2025-era Streamable HTTP sessions: an initialize creates one (registered before its answer, removed if refused);
// each frame goes to exactly one stream (its POST's body or SSE stream, a GET stream; a POST's lone scope refusal: 403
// with the guard's challenge), stored first so Last-Event-ID resumes it. DELETE and idle reaping end a session; a
// restored one follows its shared record. Never touches another session or a modern request.

import type { Connection, Server } from '../core.ts';
import { NO_BACK_CHANNEL } from '../dispatcher.ts';
import {
  classify,
  ErrorCode,
  errorResponse,
  idInFlight,
  isRequestId,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  randomBytes,
  toBase64Url,
} from '../jsonrpc.ts';
import type { SaveSessionState, SessionState } from '../legacy.ts';
import type { Logger } from '../types.ts';
import { type EventSink, extrasOf, JsonText, type Reply, Stream, type StreamBudget, shuttingDown } from './exchange.ts';
import { PostStreams } from './post-streams.ts';
import { type GetStreamHolds, SharedGetStream } from './session-get-stream.ts';
import { type GetStreamHolder, type SessionRecord, STORE_UNAVAILABLE } from './shared-sessions.ts';
import { type EventStore, isGetStreamId, KEEP_ALIVE, newGetStreamId } from './sse.ts';

/**
 * How many GET streams a session holds at once (2025-11-25 transports, Streamable HTTP: the client MAY remain
 * connected to multiple SSE streams). A further GET makes room: the oldest GET stream no client is attached to is
 * forgotten, else the oldest attached one ends (after its queued events); its client resumes it with
 * Last-Event-ID and loses nothing. So a client that loops on GET never piles up streams.
 */
export const MAX_GET_STREAMS = 4;
/** The answer to a resumption the event store could not serve (HTTP 503): the client may retry. */
const EVENT_STORE_UNAVAILABLE = errorResponse(null, {
  code: ErrorCode.InternalError,
  message: 'Internal error: the event store is unavailable',
});

/** The answer to a request naming an unknown or ended session id (HTTP 404). */
export const SESSION_NOT_FOUND = errorResponse(null, { code: ErrorCode.InvalidRequest, message: 'Session not found' });

/** One POST of a session: where the answers to its requests and their related frames go. */
class Exchange {
  readonly reply: Reply;
  readonly canStream: boolean;
  /** The step that follows this POST's answer (see `answer`). */
  readonly answered: (() => void) | undefined;
  stream: Stream | undefined;
  open: number;
  /**
   * A batch POST: the ids it holds in the session's table (requests whose id was not in flight already), and
   * whether it has answers that no such id names (invalid elements, refused duplicates). Its answer is one array.
   */
  batch: { ids: RequestId[]; unnamedAnswers: boolean } | undefined;

  /** `open`: how many of its requests are still unanswered; `canStream`: whether it may become an SSE stream. */
  constructor(reply: Reply, canStream: boolean, open: number, answered: (() => void) | undefined) {
    this.reply = reply;
    this.canStream = canStream;
    this.open = open;
    this.answered = answered;
  }
}

/**
 * Answers a POST with a body, then runs the step that follows its answer (`answered`: how the HTTP core lists or
 * ends a session it serves outside its table) in a microtask: after what the answering code is in the middle of,
 * such as handing on the notification a 202 was sent ahead of, or the dispatcher's sending of the answer.
 */
function answer(
  reply: Reply,
  answered: (() => void) | undefined,
  status: number,
  body?: unknown,
  headers?: Record<string, string>,
): void {
  reply.send(status, body, headers);
  if (answered !== undefined) queueMicrotask(answered);
}

/** How a 2025 session answers requests and stores events. */
export interface SessionOptions {
  /** 'json': one JSON body per request POST and no back-channel; 'sse': a stream once something precedes the answer. */
  responseMode: 'sse' | 'json';
  eventStore: EventStore | undefined;
  logger: Logger;
  /** The `retry:` a 2025-11-25 priming event advises for reconnecting. */
  retryMs: number;
  /** 2025-11-25 with an event store: which request POSTs get an SSE stream that ends after its priming event. */
  endStreamAfterPriming: ((request: JsonRpcRequest) => boolean) | undefined;
  /** The endpoint's streams, where a POST's SSE stream opens (uncounted against the budget, counted as open). */
  streams: StreamBudget;
  /** The guard's challenge of an answer refused for want of scope (HttpGuard.stepUp): its JSON body is a 403. */
  stepUp(reply: Reply, response: JsonRpcResponse): Record<string, string> | undefined;
}

/** One 2025 Streamable HTTP session: its legacy connection and the routing of its frames to HTTP exchanges. */
export class Session {
  id: string | undefined;
  readonly connection: Connection;
  /** Stateless sessions: the version the connection serves as if initialized. */
  readonly assumeInitialized: string | SessionRecord | undefined;
  lastActivity = Date.now();
  /**
   * The POSTs by the ids of their unanswered requests: made by the first and dropped with the last, so an idle
   * session holds no table (bench/README.md, What we found and changed).
   */
  #exchanges: Map<RequestId, Exchange> | undefined;
  /** The handler's options, one object for all its sessions: a reference, never a copy per session. */
  readonly #options: SessionOptions;
  readonly #registry: SessionRegistry | undefined;
  /** The POST whose initialize creates this session, until it is answered. */
  #handshake: Exchange | undefined;
  /**
   * The GET streams, oldest first (at most MAX_GET_STREAMS), whether or not a client is attached to each. A message
   * related to no request goes to the newest one a client is attached to, else (stored for its resumption) to the
   * newest one: so it reaches exactly one stream. A shared session's goes to the one its store names (#sharedGet).
   */
  #getStreams: Stream[] | undefined;
  /** With an event store: its POST streams as a GET with Last-Event-ID resumes them (post-streams.ts), made on need. */
  #postStreams: PostStreams | undefined;
  /** A shared session's GET stream (session-get-stream.ts), made once the session is known to share them. */
  #sharedGet: SharedGetStream | undefined;
  /**
   * A shared session's copies, as its record last loaded here named them (SessionRecord.copies): where a client's
   * message this copy cannot act on may be relayed.
   */
  copies: readonly string[] | undefined;
  /** Set by shutdown(): requests the drain window cuts are answered 503, not taken for cancelled. */
  #shuttingDown = false;
  /** Batch POSTs waiting for an array that may name none of their ids, oldest first. */
  #unnamedBatches: Exchange[] | undefined;
  #ended = false;

  /**
   * `registry` records the session once its handshake succeeds; without one the session is stateless (served as if
   * initialized at `assumeInitialized`, never registered). A session restored from a shared store has both: its
   * recorded handshake, and the id its store gave it (set by the caller).
   */
  constructor(
    server: Server,
    options: SessionOptions,
    registry?: SessionRegistry,
    assumeInitialized?: string | SessionRecord,
  ) {
    this.#registry = registry;
    this.#options = options;
    this.assumeInitialized = assumeInitialized;
    // The session is its connection's peer itself (send, noBackChannel, onWithdrawn): no closures per session.
    this.connection = server.transport.connect(this);
  }

  /** StreamOwner: where the session's events are stored (the handler's option). */
  get eventStore(): EventStore | undefined {
    return this.#options.eventStore;
  }

  get logger(): Logger {
    return this.#options.logger;
  }

  get retryMs(): number {
    return this.#options.retryMs;
  }

  /** The session's POST streams (with an event store), made when the first one opens or is resumed. */
  #posts(): PostStreams {
    return (this.#postStreams ??= new PostStreams(this));
  }

  /** The table of unanswered requests' POSTs, made on need (see #exchanges). */
  #table(): Map<RequestId, Exchange> {
    return (this.#exchanges ??= new Map());
  }

  /** Takes request `id` out of the table; the table goes with its last entry. */
  #forget(id: RequestId): void {
    const exchanges = this.#exchanges;
    if (exchanges?.delete(id) === true && exchanges.size === 0) this.#exchanges = undefined;
  }

  /** Whether the session ended here (end()): nothing of it is served any more. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * The server is closing: the GET streams end at once (as listens do), running requests get `windowMs` to finish;
   * those still running then are answered 503.
   */
  async shutdown(windowMs: number): Promise<void> {
    this.#shuttingDown = true;
    for (const stream of this.#getStreams ?? []) stream.close();
    this.#postStreams?.shutdown();
    await this.connection.drain(windowMs);
  }

  /** Whether anything of this session is still open or running, a task included (reaping and a full table wait). */
  get busy(): boolean {
    return (
      this.#exchanges !== undefined ||
      (this.#unnamedBatches?.length ?? 0) > 0 ||
      this.#getStreams?.some((stream) => stream.attached) === true ||
      this.#postStreams?.busy === true ||
      this.connection.holdsWork
    );
  }

  /** The headers every answer of the session carries: its id, once it has one. */
  #headers(): Record<string, string> | undefined {
    return this.id === undefined ? undefined : { 'mcp-session-id': this.id };
  }

  /** Connection peer: what a request sets on a shared session is saved first (undefined: not shared). */
  get saveSessionState(): SaveSessionState | undefined {
    const registry = this.#registry;
    return registry?.isShared() === true ? (state) => registry.saveState(this, state)! : undefined;
  }

  /** Connection peer: a response to a server→client request another process of a shared session sent. */
  onStrayResponse(response: JsonRpcResponse): void {
    this.#registry?.relay(this, response);
  }

  /** Connection peer: a shared session's copy starts its outbound ids in its process's own block (DispatcherPeer). */
  get firstOutboundId(): number | undefined {
    return this.#registry?.firstOutboundId();
  }

  /** Connection peer: a session's requests speak for the session; a stateless one's for anyone (''). */
  caller(): string {
    return this.id === undefined ? '' : `session:${this.id}`;
  }

  /** Connection peer: the era of a session's connection is fixed. */
  get era(): 'legacy' {
    return 'legacy';
  }

  /** Connection peer: the transport's name for tracing (RequestTrace.transport). */
  get transport(): 'http' {
    return 'http';
  }

  /** Connection peer: answers go to their POST; related frames to its stream; the rest to one GET stream, or nowhere. */
  send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId, _essential?: boolean, change?: boolean): void {
    if (Array.isArray(message)) {
      const exchange = this.#batchOf(message);
      if (exchange !== undefined) this.#finishBatch(exchange, message);
      return;
    }
    if (isResponse(message)) {
      const exchange = message.id === null ? undefined : this.#exchanges?.get(message.id);
      if (exchange !== undefined) this.#finish(exchange, message, [message.id as RequestId]);
      return;
    }
    const exchange = related === undefined ? undefined : this.#exchanges?.get(related);
    if (exchange !== undefined) {
      this.#streamOf(exchange)?.write(this, JSON.stringify(message));
    } else if (related === undefined) {
      this.#sendUnrelated(JSON.stringify(message), change === true);
    }
  }

  /**
   * A message related to no request goes to one GET stream: a shared session's to the one its store names
   * (SharedGetStream.send), any other's to #unrelatedStream.
   */
  #sendUnrelated(text: string, change: boolean): void {
    const held = (streamId: string): Stream | undefined => this.#getStreams?.find((stream) => stream.id === streamId);
    if (this.#shared()?.send(text, change, held) !== true) this.#unrelatedStream()?.write(this, text);
  }

  /**
   * This session's shared GET stream, once it shares them: the store holds GET streams (the registry's
   * getStreamHolds), the event store follows streams, and the version's streams begin with a priming event (the id a
   * holder follows its stream from). Undefined otherwise, and before the session has an id.
   */
  #shared(): SharedGetStream | undefined {
    const holds = this.#registry?.getStreamHolds;
    if (this.#sharedGet !== undefined || holds === undefined || this.id === undefined) return this.#sharedGet;
    if (this.eventStore?.follow === undefined || !this.#primes) return undefined;
    return (this.#sharedGet = new SharedGetStream(this, holds));
  }

  /**
   * The shared record another process saved or this request loaded: its state, and (a load) the GET stream it names
   * (SharedGetStream.heard).
   */
  applyRecord(record: SessionRecord, loaded: boolean): void {
    this.connection.applySessionState(record);
    if (record.copies !== undefined) this.copies = record.copies;
    if (record.getStream !== undefined) this.heardGetStream(record.getStream, loaded);
  }

  /**
   * The store named the session's GET stream (an announcement, or a load). A GET stream held here that a client
   * resumed on another process is let go: its connection ends here (its client left it; the stream goes on there).
   */
  heardGetStream(holder: GetStreamHolder, loaded = false): void {
    const lost = this.#shared()?.heard(holder, loaded);
    if (lost !== undefined) this.#getStreams?.find((stream) => stream.id === lost && stream.attached)?.release();
  }

  /** The GET stream a message related to no request goes to: the newest attached one, else the newest one. */
  #unrelatedStream(): Stream | undefined {
    const streams = this.#getStreams;
    return streams?.findLast((stream) => stream.attached) ?? streams?.at(-1);
  }

  /** Whether this session's connection serves a version whose streams start with a priming event, and stores them. */
  get #primes(): boolean {
    return this.eventStore !== undefined && (this.connection.legacyVersion ?? '') >= '2025-11-25';
  }

  /**
   * Connection peer: why a server→client request cannot reach the client (undefined: it can). A POST stream whose
   * client is gone still can with an event store (the client resumes it), never without one.
   */
  noBackChannel(related: RequestId | undefined): string | undefined {
    if (related === undefined)
      return this.#getStreams?.some((stream) => stream.attached) === true ? undefined : NO_BACK_CHANNEL;
    const exchange = this.#exchanges?.get(related);
    const reachable =
      exchange !== undefined &&
      (exchange.stream === undefined
        ? exchange.canStream && !exchange.reply.answered
        : exchange.stream.attached || this.eventStore !== undefined);
    return reachable ? undefined : NO_BACK_CHANNEL;
  }

  /** A POST's SSE stream, opened (and primed, 2025-11-25 with a store) at its first event; none if it cannot stream. */
  #streamOf(exchange: Exchange): Stream | undefined {
    if (exchange.stream === undefined && exchange.canStream && !exchange.reply.answered) {
      exchange.stream = this.#postStream(exchange.reply);
      if (this.#primes) exchange.stream.prime(this);
    }
    return exchange.stream;
  }

  /** A POST's SSE stream; with an event store it can be resumed (found by id) until it is done. */
  #postStream(reply: Reply): Stream {
    const stream = new Stream(this.#options.streams.open(reply, false, this.#headers()));
    if (this.eventStore !== undefined) this.#posts().add(stream);
    return stream;
  }

  /** The last event of a POST stream (its answer); the stream is forgotten once that is stored and written. */
  #writeLast(stream: Stream, text: string): void {
    stream.write(this, text, true);
    this.#postStreams?.forgetWhenSettled(stream);
  }

  /** Ends a POST stream without an answer; it is remembered as withdrawn (bounded) for a GET resuming it. */
  #closePostStream(stream: Stream): void {
    stream.close();
    this.#postStreams?.withdraw(stream);
  }

  /** The batch POST an array answer belongs to: the one holding one of its ids, else the oldest with unnamed answers. */
  #batchOf(answers: JsonRpcResponse[]): Exchange | undefined {
    for (const answer of answers) {
      const exchange = answer.id === null ? undefined : this.#exchanges?.get(answer.id);
      if (exchange?.batch?.ids.includes(answer.id!) === true) return exchange;
    }
    return this.#unnamedBatches?.[0];
  }

  /** A batch POST's array answer: its stream's last event, or its JSON body. */
  #finishBatch(exchange: Exchange, answers: JsonRpcResponse[]): void {
    const text = JSON.stringify(answers); // first: an answer that cannot be serialized changes nothing here
    this.#releaseBatch(exchange);
    if (exchange.stream !== undefined) this.#writeLast(exchange.stream, text);
    else if (!exchange.reply.answered)
      answer(exchange.reply, exchange.answered, 200, new JsonText(text), this.#headers());
  }

  /** A batch POST that is done: its ids leave the session's table and it waits for no unnamed answer. */
  #releaseBatch(exchange: Exchange): void {
    for (const id of exchange.batch!.ids) {
      if (this.#exchanges?.get(id) === exchange) this.#forget(id);
    }
    exchange.batch!.ids = [];
    const unnamed = this.#unnamedBatches?.indexOf(exchange) ?? -1;
    if (unnamed !== -1) this.#unnamedBatches!.splice(unnamed, 1);
  }

  /** The answer to requests `ids` of a POST: its stream's last event, or its JSON body (the handshake's: see below). */
  #finish(exchange: Exchange, message: unknown, ids: RequestId[]): void {
    if (exchange === this.#handshake) {
      this.#finishHandshake(exchange, message, ids);
      return;
    }
    const text = JSON.stringify(message); // first: a result that cannot be serialized changes nothing here
    for (const id of ids) this.#forget(id);
    exchange.open -= ids.length;
    const { stream, reply } = exchange;
    if (stream !== undefined) {
      this.#writeLast(stream, text); // a single request's POST: its answer is its last event (a 200 already sent)
    } else if (!reply.answered) {
      // Refused for want of scope before anything was streamed: 403 with the step-up challenge (docs/api.md, Scopes).
      const challenge = this.#options.stepUp(reply, message as JsonRpcResponse);
      const headers = challenge === undefined ? this.#headers() : { ...this.#headers(), ...challenge };
      answer(reply, exchange.answered, challenge === undefined ? 200 : 403, new JsonText(text), headers);
    }
  }

  /**
   * Only a successful initialize keeps the session: a refusal never leaves one registered (MCP 2025-11-25, Basic >
   * Transports > Streamable HTTP > Session Management: the id is assigned at initialization time, with its result).
   * Nor does a handshake that succeeds once the handler began closing: it is answered 503 and the session ends.
   */
  #finishHandshake(exchange: Exchange, message: unknown, ids: RequestId[]): void {
    this.#handshake = undefined;
    for (const id of ids) this.#forget(id); // requests pipelined behind the gate keep theirs
    let succeeded = typeof message === 'object' && message !== null && 'result' in message;
    const { stream } = exchange;
    if (stream !== undefined) {
      this.#writeLast(stream, JSON.stringify(message));
    } else {
      if (succeeded) this.id = this.#registry!.add(this);
      if (succeeded && this.id === undefined) {
        succeeded = false;
        answer(exchange.reply, exchange.answered, 503, shuttingDown(ids[0]!));
      } else {
        const saving = succeeded ? this.#registry!.save(this) : undefined;
        if (saving === undefined) answer(exchange.reply, exchange.answered, 200, message, this.#headers());
        else void this.#answerOnceSaved(exchange, message, saving);
      }
    }
    if (!succeeded) {
      if (this.id !== undefined) this.#registry!.remove(this);
      // Streamed early, frames may be held behind the gate: they are replayed (and answered, in microtasks) first.
      if (stream !== undefined) setTimeout(() => this.end(), 0);
      else this.end();
    }
  }

  /**
   * A new session's successful initialize when its registry saves a record first (a shared store): the answer names
   * the session, so it goes out only once the record is saved and the client never holds an id the store does not
   * know. A store that failed is answered 503 and the session ends here.
   */
  async #answerOnceSaved(exchange: Exchange, message: unknown, saving: Promise<boolean>): Promise<void> {
    const headers = this.#headers();
    if (await saving) {
      answer(exchange.reply, exchange.answered, 200, message, headers);
      return;
    }
    this.end();
    this.#registry!.remove(this);
    answer(exchange.reply, exchange.answered, 503, STORE_UNAVAILABLE);
  }

  /**
   * The POST whose initialize creates the session. With `streamEarly` (an initialize hook that may take a while)
   * the session exists at once and its id goes out with the SSE headers, so the client can pipeline behind the
   * gate; otherwise the id is minted only with the successful answer, and `answered` follows that answer.
   */
  initialize(value: unknown, id: RequestId, reply: Reply, streamEarly: boolean, answered?: () => void): void {
    const exchange = new Exchange(reply, false, 1, answered);
    this.#table().set(id, exchange);
    this.#handshake = exchange;
    if (streamEarly) {
      this.id = this.#registry!.add(this);
      exchange.stream = this.#postStream(reply);
    }
    this.connection.receive(value, extrasOf(reply));
  }

  /** Connection peer: a cancelled or abandoned request; its POST ends with no answer (202 when nothing was sent yet). */
  onWithdrawn(id: RequestId): void {
    const exchange = this.#exchanges?.get(id);
    if (exchange === undefined || this.#ended) return; // a session's end answers its POSTs itself (404 or stream end)
    this.#forget(id);
    const { batch } = exchange;
    if (batch !== undefined) {
      batch.ids = batch.ids.filter((held) => held !== id);
      // A batch whose every answer was withdrawn gets no array: it ends here.
      if (batch.ids.length > 0 || batch.unnamedAnswers) return;
      this.#releaseBatch(exchange);
    } else if (--exchange.open > 0) {
      return;
    }
    if (exchange.stream !== undefined) this.#closePostStream(exchange.stream);
    else if (this.#shuttingDown)
      answer(exchange.reply, exchange.answered, 503, shuttingDown(id), this.#headers()); // abandoned, not cancelled
    else if (!exchange.reply.answered) answer(exchange.reply, exchange.answered, 202, undefined, this.#headers());
  }

  /**
   * Serves one POST body holding the requests `ids` (none: notifications or responses → 202), in arrival order;
   * `answered` follows its answer (see `answer`).
   */
  post(value: unknown, ids: RequestId[], reply: Reply, canStream: boolean, answered?: () => void): void {
    this.lastActivity = Date.now();
    if (Array.isArray(value)) {
      const elsewhere = value.map((item) => this.#cancelOfAnother(item)); // each cancel as if sent alone
      this.#postBatch(value, reply, canStream, answered);
      for (const cancel of elsewhere) if (cancel !== undefined) this.#registry?.relay(this, cancel);
      return;
    }
    if (ids.length === 0) {
      answer(reply, answered, 202, undefined, this.#headers());
      const elsewhere = this.#cancelOfAnother(value);
      this.connection.receive(value, extrasOf(reply));
      if (elsewhere !== undefined) this.#registry?.relay(this, elsewhere);
      return;
    }
    const busy = ids.find((id) => this.#exchanges?.has(id) === true);
    if (busy !== undefined) {
      answer(reply, answered, 200, idInFlight(busy), this.#headers());
      return;
    }
    const exchange = new Exchange(reply, canStream && this.#options.responseMode === 'sse', ids.length, answered);
    const table = this.#table();
    for (const id of ids) table.set(id, exchange);
    if (exchange.canStream && this.#primes && this.#options.endStreamAfterPriming?.(value as JsonRpcRequest) === true) {
      this.#streamOf(exchange)!.release(); // polling: the rest is stored for the client's GET with Last-Event-ID
    }
    this.connection.receive(value, extrasOf(reply)); // each request's handler sees the POST that carried it
  }

  /**
   * A `notifications/cancelled` for a request no POST of this copy carries: another process's copy of a shared
   * session may be running it (MCP 2025-11-25, Basic > Utilities > Cancellation), so the cancel, reduced to its
   * request id (its `reason` stays here), is relayed to the session's other copies. Undefined for anything else (a
   * batch's element may be any value).
   */
  #cancelOfAnother(value: unknown): JsonRpcNotification | undefined {
    const message = value as Partial<JsonRpcNotification> | null;
    const requestId = message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
    if (!isRequestId(requestId) || this.#exchanges?.has(requestId) === true || this.#registry?.isShared() !== true)
      return undefined;
    return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } };
  }

  /**
   * A batch (2025-03-26): its requests are served as on stdio, a reused in-flight id refused inside the array, and
   * invalid elements answered in it too; the array answers the POST (202 when nothing in it is answered).
   */
  #postBatch(items: unknown[], reply: Reply, canStream: boolean, answered: (() => void) | undefined): void {
    const ids: RequestId[] = [];
    let unnamedAnswers = false;
    for (const item of items) {
      const frame = classify(item);
      if (frame.kind === 'invalid') unnamedAnswers = true;
      else if (
        frame.kind === 'request' &&
        (this.#exchanges?.has(frame.message.id) === true || ids.includes(frame.message.id))
      )
        unnamedAnswers = true;
      else if (frame.kind === 'request') ids.push(frame.message.id);
    }
    if (ids.length === 0 && !unnamedAnswers) {
      answer(reply, answered, 202, undefined, this.#headers());
      this.connection.receive(items, extrasOf(reply));
      return;
    }
    const exchange = new Exchange(reply, canStream && this.#options.responseMode === 'sse', 1, answered);
    exchange.batch = { ids, unnamedAnswers };
    if (ids.length > 0) {
      const table = this.#table();
      for (const id of ids) table.set(id, exchange);
    }
    if (unnamedAnswers) (this.#unnamedBatches ??= []).push(exchange);
    this.connection.receive(items, extrasOf(reply));
  }

  /**
   * A GET: a new GET stream of the session, or (`lastEventId`, with an event store) the resumption of the one stream
   * its event belongs to: that stream's stored events after it are replayed, then it goes on live on this
   * connection. Resuming a GET stream resumes it as a GET stream (a connection still attached to it is taken over);
   * resuming a POST stream carries that POST's later events and its answer, then ends, and never the session's
   * broadcasts (one that is over, or that this process does not serve, gets its replay only, then ends; a withdrawn
   * one stays open carrying nothing: PostStreams.resume). An id the store does not know resumes nothing: the client
   * gets a new GET stream. The store is read once: its replay is handed to the stream. Every GET stream answers its
   * headers with a first chunk at once, a comment (a Web Response's body is flushed only at its first chunk), and a
   * new one then its priming event (2025-11-25).
   */
  async openGetStream(reply: Reply, lastEventId: string | undefined, open: (reply: Reply) => EventSink): Promise<void> {
    const store = this.eventStore;
    this.lastActivity = Date.now();
    let replay: Awaited<ReturnType<EventStore['replayAfter']>>;
    try {
      replay =
        lastEventId === undefined || store === undefined ? undefined : await store.replayAfter(this.id!, lastEventId);
    } catch (error) {
      this.logger.error('event store replay failed', error);
      return reply.send(503, EVENT_STORE_UNAVAILABLE);
    }
    if (this.#ended) return reply.send(404, SESSION_NOT_FOUND);
    const resumption = replay === undefined ? undefined : { lastEventId: lastEventId!, events: replay.events };
    if (replay === undefined || isGetStreamId(replay.streamId)) {
      const streams = (this.#getStreams ??= []);
      const held = replay === undefined ? -1 : streams.findIndex((stream) => stream.id === replay.streamId);
      const stream =
        held === -1 ? new Stream(undefined, replay?.streamId ?? newGetStreamId()) : streams.splice(held, 1)[0]!;
      if (streams.length >= MAX_GET_STREAMS) {
        const detached = streams.findIndex((other) => !other.attached);
        streams.splice(detached === -1 ? 0 : detached, 1)[0]!.close();
      }
      streams.push(stream);
      const sink = this.#openSink(reply, open);
      stream.attach(this, sink, resumption);
      if (resumption === undefined && this.#primes) stream.prime(this);
      this.#shared()?.hold(stream, sink);
      return;
    }
    this.#posts().resume(reply, replay.streamId, resumption!, (get) => this.#openSink(get, open));
  }

  /** Answers a GET with its SSE stream and a first chunk (a comment) at once; its close counts as activity. */
  #openSink(reply: Reply, open: (reply: Reply) => EventSink): EventSink {
    const sink = open(reply);
    sink.send(KEEP_ALIVE);
    sink.onClose(() => {
      this.lastActivity = Date.now();
    });
    return sink;
  }

  /**
   * Ends the session and everything it owns here: its connection, its POST streams, its GET streams, and (unless
   * `dropEvents` is false: a shared session other processes go on serving) its stored events. `over`: the session
   * itself is over (not only this process's copy), so what is bound to it ends too (Extension.callerEnded).
   */
  end(dropEvents = true, over = dropEvents): void {
    if (this.#ended) return;
    this.#ended = true;
    this.connection.close(over);
    for (const exchange of new Set([...(this.#exchanges?.values() ?? []), ...(this.#unnamedBatches ?? [])])) {
      if (exchange.stream !== undefined) exchange.stream.close();
      else if (!exchange.reply.answered) answer(exchange.reply, exchange.answered, 404, SESSION_NOT_FOUND);
    }
    this.#exchanges = undefined;
    this.#unnamedBatches = undefined;
    for (const stream of this.#getStreams ?? []) stream.close();
    this.#postStreams?.end();
    this.#sharedGet?.end();
    if (dropEvents) this.dropEvents();
  }

  /** Forgets the session's stored events (the session is over); a store that fails is logged. */
  dropEvents(): void {
    const { eventStore, id } = this;
    if (eventStore === undefined || id === undefined) return;
    Promise.resolve()
      .then(() => eventStore.dropSession(id))
      .catch((error: unknown) => this.logger.error('event store dropSession failed', error));
  }
}

/** How a session enters and leaves its HTTP handler's store. */
export interface SessionRegistry {
  /** Mints the session's id and records it; undefined once the handler is closing (nothing new is minted then). */
  add(session: Session): string | undefined;
  /**
   * With a shared store: saves the record of a session `add` just recorded, before its initialize is answered;
   * resolves false when the store failed (logged). Undefined without one: there is nothing to wait for.
   */
  save(session: Session): Promise<boolean> | undefined;
  /**
   * With a shared store: saves the state a request of `session` sets, before it is acknowledged; rejects with the
   * error to answer when the store failed. Undefined without one.
   */
  saveState(session: Session, state: SessionState): Promise<void> | undefined;
  /**
   * With a shared store that relays: hands a client's message `session` cannot act on (a response it cannot match, a
   * cancel of a request it does not run) to the process its copy there can.
   */
  relay(session: Session, message: JsonRpcResponse | JsonRpcNotification): void;
  /** Whether sessions are shared by processes. */
  isShared(): boolean;
  /** Where a new copy's outbound ids start: with a shared store, in this process's own block (undefined: 0). */
  firstOutboundId(): number | undefined;
  /** With a shared store that holds GET streams: how this process records and names them (session-get-stream.ts). */
  readonly getStreamHolds: GetStreamHolds | undefined;
  /** Takes a session `add` recorded out of the handler's table again (its handshake failed, or was not saved). */
  remove(session: Session): void;
}

/**
 * A session id: 144 random bits as URL-safe base64 — visible ASCII only. 18 bytes make 24 characters with no padding
 * to cut, so the id is one flat string (16 bytes' 22 would be a slice kept with its 24-character parent: 32 more bytes
 * per idle session).
 */
export function newSessionId(): string {
  return toBase64Url(randomBytes(18));
}
