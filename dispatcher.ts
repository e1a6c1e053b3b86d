// The JSON-RPC engine of one connection: the in-flight table (removed on every path), each request's life (running →
// answered | cancelled | abandoned) with the handler context every era shares, cancellation, progress, bounded
// batches, and server→client requests (correlation, timeout, cancel). Knows no MCP method beyond the base protocol's;
// never writes anything related to a request after its answer, its cancellation or its abandonment (a detached
// handler's notifications go out on the connection, related to nothing). Hands each request to tracing.ts while the
// request channel has subscribers, and counts the error answers it writes.

import { randomBytes, toBase64Url, utf8 } from './bytes.ts';
import {
  batchTooLong,
  classify,
  describeValue,
  ErrorCode,
  errorResponse,
  INTERNAL_ERROR,
  idInFlight,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  ProtocolError,
  type RequestId,
  successResponse,
  tooManyInFlight,
} from './jsonrpc.ts';
import { type ErrorCounts, type RequestTracingChannel, requestTracing, traceOutcome, traceRequest } from './tracing.ts';
import type {
  AuthInfo,
  DetachOptions,
  FrameExtras,
  HttpRequestInfo,
  Logger,
  ProgressToken,
  RequestTrace,
  TaskHandle,
  TraceContext,
} from './types.ts';

/** What the dispatcher's owner (a connection) does with requests, notifications and odd frames. */
export interface DispatcherHooks {
  /** Serves one admitted request. Returns its result (or a promise); throws a ProtocolError for a wire error. */
  onRequest(request: InboundRequest): unknown;
  /** Every well-formed notification; the owner decides what it means (cancellation included). */
  onNotification(message: JsonRpcNotification): void;
  /**
   * Whether a JSON array may be served as a batch now: undefined to serve it, or its refusal. Or 'held': the owner
   * holds it (behind the initialize gate) and calls `decide` later, in its turn, with one of those.
   */
  checkBatch(items: unknown[], decide: (refusal?: JsonRpcErrorObject) => void): JsonRpcErrorObject | 'held' | undefined;
  /** An unexpected (non-protocol) handler error, after the generic -32603 went out. */
  onUnexpectedError?(error: unknown, request: InboundRequest): void;
  /** A response (with an id) that answers no outbound request; it is dropped after this hook. */
  onStrayResponse?(message: JsonRpcResponse): void;
  /** The connection's era for tracing (RequestTrace.era); undefined while undecided. */
  readonly era?: 'legacy' | 'modern' | undefined;
}

/** The transport side of a dispatcher (a connection's options): how frames go out and what happens to withdrawn requests. */
export interface DispatcherPeer {
  /**
   * Writes a frame. `related` names the inbound request a notification or server→client request belongs to
   * (transports with one stream per request route by it); responses carry their own id. A notification that is not
   * `essential` may be dropped by a backed-up transport; an essential one is bounded by its own stream (a listen's).
   */
  send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId, essential?: boolean): void;
  /** Why a server→client request cannot reach the client from here (undefined: it can). */
  noBackChannel?(related: RequestId | undefined): string | undefined;
  /** A request left the table without an answer (cancelled or abandoned). */
  onWithdrawn?(id: RequestId): void;
  /**
   * Whom requests without a verified identity speak for (ExtensionContext.caller): HTTP gives a 2025 session's id,
   * or '' for a sessionless exchange. Absent: the connection is its own caller (stdio).
   */
  caller?(): string;
  /** The transport's name for tracing (RequestTrace.transport): 'stdio', 'http', 'memory', … */
  readonly transport?: string;
  /**
   * A client response that answers none of this connection's outbound requests (after the lifecycle's own check):
   * a 2025 session shared by processes hands it to the one that asked (Connection.settleOutbound there).
   */
  onStrayResponse?(message: JsonRpcResponse): void;
  /**
   * The id of this connection's first outbound request (default 0; then counting up). Copies of one shared 2025
   * session in several processes start far apart, so a client's response names exactly one process's request.
   */
  readonly firstOutboundId?: number;
}

/** Limits shared by every dispatcher of a server. */
export interface DispatcherLimits {
  maxInFlight: number;
  maxBatchLength: number;
  maxBatchAnswerBytes: number;
  requestTimeoutMs: number;
  /** Where the error answers are counted (the server's, shared like the limits); absent: not counted. */
  readonly errors?: ErrorCounts;
}

interface PendingOutbound {
  resolve(result: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

/** The JSON-RPC engine of one connection: in-flight table, cancellation, progress, batches and outbound requests. */
export class Dispatcher {
  // The peer and limits are objects the connection and server already hold: an idle 2025 session costs memory
  // for every field it keeps, so the dispatcher keeps references, not copies, and makes the outbound table on demand.
  readonly #peer: DispatcherPeer;
  readonly #limits: DispatcherLimits;
  readonly #logger: Logger;
  #hooks!: DispatcherHooks;
  readonly #inFlight = new Map<RequestId, InboundRequest>();
  #pending: Map<number, PendingOutbound> | undefined;
  #nextOutboundId = 0;
  /** The bytes of the answers held for this connection's open batches (bounded by maxBatchAnswerBytes). */
  #batchBytes = 0;
  #inputClosed = false;
  #closed = false;
  #drained: (() => void) | undefined;
  /** This connection as a caller, minted on first use when the peer names none. */
  #caller: string | undefined;

  constructor(peer: DispatcherPeer, limits: DispatcherLimits, logger: Logger) {
    this.#peer = peer;
    this.#nextOutboundId = peer.firstOutboundId ?? 0;
    this.#limits = limits;
    this.#logger = logger;
  }

  /** Sets the owner that serves what arrives; called once, before the first frame. */
  attach(hooks: DispatcherHooks): void {
    this.#hooks = hooks;
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  get pendingOutboundCount(): number {
    return this.#pending?.size ?? 0;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whom this connection's requests speak for when they carry no verified identity (DispatcherPeer.caller). */
  get caller(): string {
    if (this.#peer.caller !== undefined) return this.#peer.caller();
    return (this.#caller ??= `connection:${toBase64Url(randomBytes(16))}`);
  }

  /** This connection as its own caller, once a request has spoken for it (undefined when the peer names callers). */
  get ownCaller(): string | undefined {
    return this.#caller;
  }

  /** Handles one parsed JSON value: a single frame or a batch; `extras`: what the transport knows of its exchange. */
  receive(value: unknown, extras?: FrameExtras): void {
    if (this.#closed) return;
    if (!Array.isArray(value)) {
      this.#receiveOne(value, undefined, extras);
      return;
    }
    const decide = (refusal?: JsonRpcErrorObject): void => this.#receiveBatch(value, refusal, extras);
    const refusal =
      value.length === 0
        ? { code: ErrorCode.InvalidRequest, message: 'Invalid Request: an empty batch is not a request' }
        : value.length > this.#limits.maxBatchLength
          ? batchTooLong(this.#limits.maxBatchLength)
          : this.#hooks.checkBatch(value, decide);
    if (refusal !== 'held') decide(refusal);
  }

  /** Serves a batch as one array answer, or answers its refusal; a batch held until after close() gets neither. */
  #receiveBatch(items: unknown[], refusal: JsonRpcErrorObject | undefined, extras: FrameExtras | undefined): void {
    if (this.#closed) return;
    if (refusal !== undefined) {
      this.#write(errorResponse(null, refusal));
      return;
    }
    const batch = new Batch();
    for (const item of items) this.#receiveOne(item, batch, extras);
    this.#settleBatch(batch);
  }

  #receiveOne(value: unknown, batch: Batch | undefined, extras: FrameExtras | undefined): void {
    const frame = classify(value);
    switch (frame.kind) {
      case 'request':
        this.#startRequest(frame.message, batch, extras);
        return;
      case 'notification':
        this.#hooks.onNotification(frame.message);
        return;
      case 'response':
        this.#receiveResponse(frame.message);
        return;
      case 'invalid':
        this.#answer(errorResponse(frame.id, frame.error), batch);
    }
  }

  #answer(response: JsonRpcResponse, batch: Batch | undefined): void {
    if (batch === undefined) this.#write(response);
    else this.#collect(batch, response, undefined);
  }

  /** Writes one answer that is not part of a batch, and counts it when it is an error. */
  #write(response: JsonRpcResponse): void {
    this.#peer.send(response);
    this.#count(response);
  }

  #count(response: JsonRpcResponse): void {
    if ('error' in response) this.#limits.errors?.add(response.error.code);
  }

  /**
   * Holds one answer of a batch, measured as it will be written, so the array is known to serialize and the bytes
   * held stay bounded: an answer that cannot be serialized, or that would take the answers held for this connection's
   * open batches past their bound, becomes -32603.
   */
  #collect(batch: Batch, response: JsonRpcResponse, method: string | undefined): JsonRpcResponse {
    const what = method === undefined ? `the refusal of id ${describeValue(response.id)}` : `the answer to '${method}'`;
    let bytes: number;
    try {
      bytes = utf8(JSON.stringify(response)).byteLength;
    } catch (error) {
      this.#logger.error(`${what} could not be serialized`, error);
      response = unserializable(response);
      bytes = utf8(JSON.stringify(response)).byteLength;
    }
    const max = this.#limits.maxBatchAnswerBytes;
    if (this.#batchBytes + bytes > max) {
      this.#logger.warn(`${what} was replaced: the answers held for batches exceed ${max} bytes`);
      response = errorResponse(response.id, {
        code: ErrorCode.InternalError,
        message: `Internal error: the answers held for batches exceed ${max} bytes`,
      });
      bytes = utf8(JSON.stringify(response)).byteLength;
    }
    batch.bytes += bytes;
    this.#batchBytes += bytes;
    batch.responses.push(response);
    return response;
  }

  #settleBatch(batch: Batch): void {
    if (--batch.open > 0) return;
    this.#batchBytes -= batch.bytes; // written now, or never (closed, or every request in it withdrawn)
    if (batch.responses.length === 0 || this.#closed) return;
    this.#peer.send(batch.responses);
    for (const response of batch.responses) this.#count(response);
  }

  #startRequest(message: JsonRpcRequest, batch: Batch | undefined, extras: FrameExtras | undefined): void {
    if (this.#inFlight.has(message.id)) {
      this.#answer(idInFlight(message.id), batch);
      return;
    }
    if (this.#inFlight.size >= this.#limits.maxInFlight) {
      this.#answer(errorResponse(message.id, tooManyInFlight(this.#limits.maxInFlight)), batch);
      return;
    }
    const request = new InboundRequest(this, message, batch, extras);
    this.#inFlight.set(request.id, request);
    if (batch !== undefined) batch.open++;
    let result: unknown;
    try {
      const tracing = requestTracing();
      result = tracing?.hasSubscribers === true ? this.#traceStart(tracing, request) : this.#hooks.onRequest(request);
    } catch (error) {
      this.#fail(request, error);
      return;
    }
    if (isThenable(result)) {
      result.then(
        (value) => this.#succeed(request, value),
        (error: unknown) => this.#fail(request, error),
      );
    } else {
      this.#succeed(request, result);
    }
  }

  /** Serves a request on the request TracingChannel (tracing.ts, traceRequest), its context kept on the request. */
  #traceStart(tracing: RequestTracingChannel, request: InboundRequest): unknown {
    const trace: RequestTrace = {
      method: request.method,
      requestId: request.id,
      transport: this.#peer.transport,
      era: this.#hooks.era,
      trace: request.trace,
    };
    request.traced = trace;
    return traceRequest(
      tracing,
      trace,
      () => this.#hooks.onRequest(request),
      () => this.#hooks.era,
    );
  }

  /** A traced request's outcome (tracing.ts, traceOutcome): `response` is the answer written, `thrown` the error. */
  #traceEnd(request: InboundRequest, response: JsonRpcResponse | undefined, thrown?: unknown): void {
    const trace = request.traced;
    if (trace === undefined) return;
    request.traced = undefined;
    traceOutcome(trace, response, request.state === 'cancelled' ? 'cancelled' : 'abandoned', thrown);
  }

  /** Removes a request from the table; true when it was still running (and so may be answered now). */
  #settle(request: InboundRequest, state: Exclude<RequestState, 'running'>): boolean {
    if (request.state !== 'running') return false;
    request.end(state);
    if (this.#inFlight.get(request.id) === request) this.#inFlight.delete(request.id);
    if (this.#inFlight.size === 0) this.#drained?.();
    if (state !== 'answered' && request.traced !== undefined) this.#traceEnd(request, undefined);
    return true;
  }

  #succeed(request: InboundRequest, result: unknown): void {
    if (!this.#settle(request, 'answered')) return;
    const response = this.#finish(request, successResponse(request.id, result));
    if (request.traced !== undefined) this.#traceEnd(request, response);
    request.sendHeld();
  }

  #fail(request: InboundRequest, error: unknown): void {
    if (!this.#settle(request, 'answered')) return;
    if (error instanceof ProtocolError) {
      const response = this.#finish(request, errorResponse(request.id, error.toJSON()));
      if (request.traced !== undefined) this.#traceEnd(request, response, error);
      request.sendHeld();
      return;
    }
    this.#logger.error(`handler for '${request.method}' failed`, error);
    const response = this.#finish(request, errorResponse(request.id, INTERNAL_ERROR));
    request.sendHeld();
    if (request.traced !== undefined) this.#traceEnd(request, response, error);
    this.#hooks.onUnexpectedError?.(error, request);
  }

  /** Writes (or collects into its batch) a request's answer; returns the answer as written, maybe replaced. */
  #finish(request: InboundRequest, response: JsonRpcResponse): JsonRpcResponse {
    if (request.batch === undefined) {
      if (this.#closed) return response;
      // Transports serialize before they change anything, so an answer that cannot be (a cycle, a BigInt, nesting
      // too deep) can still be replaced by the generic error.
      try {
        this.#peer.send(response);
      } catch (error) {
        this.#logger.error(`the answer to '${request.method}' could not be serialized`, error);
        response = unserializable(response);
        this.#peer.send(response);
      }
      this.#count(response);
      return response;
    }
    const collected = this.#collect(request.batch, response, request.method);
    this.#settleBatch(request.batch);
    return collected;
  }

  /** Withdraws an inbound request at the peer's word: its handler is aborted and nothing more is written for it. */
  cancel(id: RequestId): void {
    const request = this.#inFlight.get(id);
    if (request === undefined) return;
    this.#settle(request, 'cancelled');
    if (request.batch !== undefined) this.#settleBatch(request.batch);
    this.#peer.onWithdrawn?.(request.id);
  }

  /** Answers text that never became a message (unparseable or oversized). */
  answerUnreadable(response: JsonRpcFailure): void {
    if (!this.#closed) this.#write(response);
  }

  notify(method: string, params: Record<string, unknown> | undefined, related?: RequestId, essential = false): void {
    if (this.#closed) return;
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    this.#peer.send(message, related, essential);
  }

  /** Sends a server→client request and resolves with the peer's result (rejects with its error). */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: OutboundOptions = {},
    related?: RequestId,
  ): Promise<unknown> {
    if (this.#closed || this.#inputClosed) {
      return Promise.reject(new OutboundRequestError(`Cannot send '${method}': the client can no longer answer`));
    }
    const refusal = this.refusal(method, related);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextOutboundId++;
    return new Promise((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.#limits.requestTimeoutMs;
      const withdraw = (error: unknown, reason: string): void => {
        pending.cleanup();
        this.notify('notifications/cancelled', { requestId: id, reason }, related);
        reject(error);
      };
      const timer = setTimeout(
        () => withdraw(new OutboundRequestError(`'${method}' timed out after ${timeoutMs} ms`), 'timeout'),
        timeoutMs,
      );
      const onAbort = (): void => withdraw(signal?.reason, 'cancelled');
      const pending: PendingOutbound = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.#pending!.delete(id);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      (this.#pending ??= new Map()).set(id, pending);
      this.#peer.send(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
        related,
      );
    });
  }

  /** Why a server→client request related to `related` cannot reach the client from here (undefined: it can). */
  refusal(method: string, related: RequestId | undefined): OutboundRequestError | undefined {
    const noBackChannel = this.#peer.noBackChannel?.(related);
    return noBackChannel === undefined
      ? undefined
      : new OutboundRequestError(`Cannot send '${method}': ${noBackChannel}`, ErrorCode.InvalidRequest);
  }

  #receiveResponse(message: JsonRpcResponse): void {
    const pending = typeof message.id === 'number' ? this.#pending?.get(message.id) : undefined;
    if (pending === undefined) {
      // Only the code and a bounded message are logged: the error's data is the peer's, of any size and depth.
      if (message.id === null) {
        const { code, message: text } = (message as JsonRpcFailure).error;
        this.#logger.warn(`peer sent an error without an id: code ${code}, message ${describeValue(text)}`);
      } else {
        this.#hooks.onStrayResponse?.(message);
        this.#peer.onStrayResponse?.(message);
      }
      return;
    }
    this.#settleOutbound(pending, message);
  }

  /**
   * A response another process of a shared session received for one of this connection's outbound requests
   * (DispatcherPeer.onStrayResponse there): settles it; false when none is waiting here (nothing else happens).
   */
  settleOutbound(message: JsonRpcResponse): boolean {
    const pending = typeof message.id === 'number' ? this.#pending?.get(message.id) : undefined;
    if (pending !== undefined) this.#settleOutbound(pending, message);
    return pending !== undefined;
  }

  #settleOutbound(pending: PendingOutbound, message: JsonRpcResponse): void {
    pending.cleanup();
    if ('error' in message) {
      // Not a ProtocolError: a client's refusal must not pass for the server's own answer to the client.
      pending.reject(new OutboundRequestError(message.error.message, message.error.code, message.error.data));
    } else {
      pending.resolve(message.result);
    }
  }

  #rejectPending(reason: string): void {
    if (this.#pending === undefined) return;
    for (const pending of [...this.#pending.values()]) {
      pending.cleanup();
      pending.reject(new OutboundRequestError(reason));
    }
  }

  /**
   * The peer stopped sending: no answer to an outbound request can arrive any more, so those fail now. In-flight
   * requests get up to `windowMs` to finish, with output fully enabled; what is left is then abandoned silently.
   */
  async drain(windowMs: number): Promise<void> {
    this.#inputClosed = true;
    this.#rejectPending('the client closed its input before answering');
    if (this.#inFlight.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
        timer = setTimeout(resolve, windowMs);
      });
      clearTimeout(timer);
      this.#drained = undefined;
    }
    this.close();
  }

  /** Ends the connection at once: running handlers are aborted and nothing more is written. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const request of [...this.#inFlight.values()]) {
      this.#settle(request, 'abandoned');
      this.#peer.onWithdrawn?.(request.id);
    }
    this.#rejectPending('the connection closed');
  }
}

function unserializable(response: JsonRpcResponse): JsonRpcFailure {
  return errorResponse(response.id, INTERNAL_ERROR);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Options of one server→client request: cancellation signal and timeout. */
export interface OutboundOptions {
  /** Aborting it withdraws the request and tells the peer with `notifications/cancelled`. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The one error for a request-scoped server→client request that nothing can carry (code -32600). */
export const NO_BACK_CHANNEL = 'this transport context has no back-channel for server-initiated requests';

/** Why an outbound request did not get an answer; never written to the wire. */
export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';
  /** The client's JSON-RPC error code when it answered with an error; -32600 for NO_BACK_CHANNEL; else undefined. */
  readonly code: number | undefined;
  readonly data: unknown;

  constructor(message: string, code?: number, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** Collects the answers of one batch and writes them as one array when the last request settles. */
export class Batch {
  readonly responses: JsonRpcResponse[] = [];
  /** The UTF-8 bytes of `responses` as they will be written. */
  bytes = 0;
  open = 1; // the batch itself until all elements are read, then one per running request
}

export type RequestState = 'running' | 'answered' | 'cancelled' | 'abandoned';

function endReason(state: RequestState): DOMException {
  const why =
    state === 'cancelled'
      ? 'the client cancelled the request'
      : state === 'abandoned'
        ? 'the connection closed'
        : 'the request was answered';
  return new DOMException(`Request ended: ${why}`, 'AbortError');
}

const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
/** The most notifications one request holds for after its answer (InboundRequest.notifyAfterAnswer). */
const MAX_HELD = 16;

const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** One inbound request in the in-flight table: its id, method, params, progress token and cancellation. */
export class InboundRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly progressToken: ProgressToken | undefined;
  /** The HTTP request that carried this one (undefined on stdio). */
  readonly http: HttpRequestInfo | undefined;
  /** The identity the carrying request's bearer token was verified as (undefined without auth, and on stdio). */
  readonly auth: AuthInfo | undefined;
  state: RequestState = 'running';
  /** Its context on the request TracingChannel while it runs, when there were subscribers at its start. */
  traced: RequestTrace | undefined;
  readonly #dispatcher: Dispatcher;
  readonly batch: Batch | undefined;
  #controller: AbortController | undefined;
  #lastProgress = -Infinity;
  /** Notifications waiting for this request's answer (notifyAfterAnswer). */
  #held: { method: string; params: Record<string, unknown> }[] | undefined;

  constructor(dispatcher: Dispatcher, message: JsonRpcRequest, batch: Batch | undefined, extras?: FrameExtras) {
    this.#dispatcher = dispatcher;
    this.http = extras?.http;
    this.auth = extras?.auth;
    this.id = message.id;
    this.method = message.method;
    this.params = message.params ?? EMPTY_PARAMS;
    this.batch = batch;
    const meta = this.params._meta;
    const token =
      typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>).progressToken : undefined;
    this.progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /** The W3C trace keys of `params._meta` (string values only), or undefined when there are none. */
  get trace(): TraceContext | undefined {
    const meta = this.params._meta;
    if (typeof meta !== 'object' || meta === null) return undefined;
    let trace: TraceContext | undefined;
    for (const key of TRACE_KEYS) {
      const value = (meta as Record<string, unknown>)[key];
      if (typeof value === 'string') (trace ??= {})[key] = value;
    }
    return trace;
  }

  /** Created on first use: most requests never look at it. Aborted once the request is over, however it ended. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.state !== 'running') this.#controller.abort(endReason(this.state));
    return this.#controller.signal;
  }

  /** Marks the request over and aborts its signal, which also withdraws its outstanding server→client requests. */
  end(state: Exclude<RequestState, 'running'>): void {
    this.state = state;
    this.#controller?.abort(endReason(state));
  }

  /** Whom this request speaks for: its verified identity, else its connection's caller (DispatcherPeer.caller). */
  get caller(): string {
    return this.auth === undefined ? this.#dispatcher.caller : principalOf(this.auth);
  }

  /**
   * Sends `notifications/progress` for this request's token; a no-op without a token, or after the answer unless
   * `outlive` (a detached handler's: then on the connection, related to nothing). `meta` becomes its `_meta`.
   */
  progress(progress: number, total?: number, message?: string, outlive = false, meta?: Record<string, unknown>): void {
    if (this.progressToken === undefined || (this.state !== 'running' && !outlive)) return;
    if (!(progress > this.#lastProgress)) return; // the spec requires progress to increase
    this.#lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    if (meta !== undefined) params._meta = meta;
    this.notify('notifications/progress', params, false, outlive);
  }

  /**
   * A notification related to this request; once the request has its answer or was cancelled it is dropped, or with
   * `outlive` (a task's handler) sent on the connection, related to nothing. `essential`: a backed-up transport must
   * not drop it (DispatcherPeer.send).
   */
  notify(method: string, params: Record<string, unknown>, essential = false, outlive = false): void {
    if (this.state === 'running') this.#dispatcher.notify(method, params, this.id, essential);
    else if (outlive) this.#dispatcher.notify(method, params, undefined, essential);
  }

  /**
   * A notification that belongs to no request but must not precede this one's answer (a task's status, whose id the
   * answer carries): held while the request runs, sent on the connection right after its answer, dropped when it
   * ends unanswered. At most MAX_HELD are held; past that the oldest goes (each one supersedes the earlier).
   */
  notifyAfterAnswer(method: string, params: Record<string, unknown>): void {
    if (this.state !== 'running') {
      if (this.state === 'answered') this.#dispatcher.notify(method, params);
      return;
    }
    const held = (this.#held ??= []);
    if (held.length === MAX_HELD) held.shift();
    held.push({ method, params });
  }

  /** The answer went out: what notifyAfterAnswer held goes now. */
  sendHeld(): void {
    const held = this.#held;
    this.#held = undefined;
    for (const { method, params } of held ?? []) this.#dispatcher.notify(method, params);
  }

  /** The error a server→client request made on behalf of this request would fail with at once, if any. */
  refusal(method: string): OutboundRequestError | undefined {
    return this.#dispatcher.refusal(method, this.id);
  }

  /** A server→client request made on behalf of this request; withdrawn when this request is cancelled. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: OutboundOptions = {},
  ): Promise<unknown> {
    if (this.state !== 'running')
      return Promise.reject(new OutboundRequestError(`Cannot send '${method}': the request has ended`));
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([this.signal, options.signal]);
    return this.#dispatcher.request(method, params, { signal, timeoutMs: options.timeoutMs }, this.id);
  }
}

/**
 * What every era's handler context shares: the request's identity, and its detachment — a context made by
 * `detach(options)` (a task's handler) takes its signal, input and task handle from those options instead.
 */
export class RequestContext {
  protected readonly request: InboundRequest;
  protected readonly detached: DetachOptions | undefined;

  constructor(request: InboundRequest, detached?: DetachOptions) {
    this.request = request;
    this.detached = detached;
  }

  get requestId(): RequestId {
    return this.request.id;
  }

  /** Aborted when the client cancels the request, the connection ends, or the request is over (detached: its own). */
  get signal(): AbortSignal {
    return this.detached?.signal ?? this.request.signal;
  }

  /** The task handle of a detached context (DetachOptions.task); undefined in a request's own context. */
  get task(): TaskHandle | undefined {
    return this.detached?.task;
  }

  /** ExtensionContext.caller. */
  get caller(): string {
    return this.request.caller;
  }

  get http(): HttpRequestInfo | undefined {
    return this.request.http;
  }

  get auth(): AuthInfo | undefined {
    return this.request.auth;
  }

  get trace(): TraceContext | undefined {
    return this.request.trace;
  }
}

/** Who a verified identity is, as one string: the same issuer, subject and client make the same principal. */
export function principalOf(auth: AuthInfo): string {
  return JSON.stringify([auth.issuer ?? null, auth.subject, auth.clientId ?? null]);
}
