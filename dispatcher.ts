// The JSON-RPC engine of one connection: frames in, the in-flight table (removed on every path) where each request is
// settled once (answered | cancelled | abandoned), cancellation, bounded batches, the answers, and server→client
// requests (correlation, timeout, cancel). Knows no MCP method beyond the base protocol's; never writes anything
// related to a request after it settled. Hands requests to tracing.ts while it has subscribers; counts error answers.

import {
  batchTooLong,
  classify,
  describeValue,
  ErrorCode,
  errorResponse,
  INTERNAL_ERROR,
  idInFlight,
  isThenable,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  ProtocolError,
  type RequestId,
  randomBytes,
  successResponse,
  toBase64Url,
  tooManyInFlight,
  utf8,
} from './jsonrpc.ts';
import {
  InboundRequest,
  type OutboundOptions,
  OutboundRequestError,
  type RequestConnection,
  type RequestState,
} from './request.ts';
import {
  type ErrorCounts,
  type RequestTracingChannel,
  requestTracing,
  tracedMethod,
  traceOutcome,
  traceRequest,
} from './tracing.ts';
import type { FrameExtras, Logger, RequestTrace } from './types.ts';

/** What the dispatcher's owner (a connection) does with requests, notifications and odd frames. */
export interface DispatcherHooks {
  /** Serves one admitted request. Returns its result (or a promise); throws a ProtocolError for a wire error. */
  onRequest(request: InboundRequest): unknown;
  /** Every well-formed notification; the owner decides what it means (cancellation included). */
  onNotification(message: JsonRpcNotification): void;
  /** Whether a JSON array may be served as a batch now: undefined, its refusal, or 'held' (behind the initialize gate)
   * when the owner calls `decide` later, in its turn, with one of those. */
  checkBatch(items: unknown[], decide: (refusal?: JsonRpcErrorObject) => void): JsonRpcErrorObject | 'held' | undefined;
  /** An unexpected (non-protocol) handler error, after the generic -32603 went out. */
  onUnexpectedError?(error: unknown, request: InboundRequest): void;
  /** A response (with an id) that answers no outbound request; it is dropped after this hook. */
  onStrayResponse?(message: JsonRpcResponse): void;
  /** The connection's era for tracing (RequestTrace.era); undefined while undecided. */
  readonly era?: 'legacy' | 'modern' | undefined;
}

/** The transport side of a dispatcher (a connection's options): how frames go out, what a withdrawn request does. */
export interface DispatcherPeer {
  /** Writes a frame. `related`: the inbound request it belongs to (per-request streams route by it); a backed-up
   * transport may drop a notification not `essential` (a listen's is bounded by its stream); `change`: a change
   * notification, which every copy of a shared session hears (http/session-get-stream.ts sends it from one copy). */
  send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId, essential?: boolean, change?: boolean): void;
  /** Why a server→client request cannot reach the client from here (undefined: it can). */
  noBackChannel?(related: RequestId | undefined): string | undefined;
  /** A request left the table without an answer (cancelled or abandoned). */
  onWithdrawn?(id: RequestId): void;
  /** Whom requests without a verified identity speak for (ExtensionContext.caller); absent: the connection itself. */
  caller?(): string;
  /** The transport's name for tracing (RequestTrace.transport): 'stdio', 'http', 'memory', … */
  readonly transport?: string;
  /** A response no outbound request here awaits: a shared session passes it on (Connection.settleOutbound there). */
  onStrayResponse?(message: JsonRpcResponse): void;
  /** The first outbound id (default 0): copies of a shared session start far apart, so an id names one request. */
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
  /** Whether the server serves `method` at all (the core or an extension): others are traced as UNSERVED_METHOD. */
  readonly servesMethod: (method: string) => boolean;
}

type Shaped = Record<string, unknown>;
type PendingOutbound = { resolve(result: unknown): void; reject(error: unknown): void; cleanup(): void };

/** The JSON-RPC engine of one connection: in-flight table, cancellation, batches, answers and outbound requests. */
export class Dispatcher implements RequestConnection {
  // References, not copies, and the tables made on demand (the in-flight one keeps its Map only while requests
  // overlap): an idle 2025 session pays for every field it keeps.
  readonly #peer: DispatcherPeer;
  readonly #limits: DispatcherLimits;
  readonly #logger: Logger;
  #hooks!: DispatcherHooks;
  readonly #inFlight = new InFlightTable();
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
    if (refusal !== undefined) this.#write(errorResponse(null, refusal));
    else {
      const batch = new Batch();
      for (const item of items) {
        if (this.#closed) break; // an element's failure closed the connection (rethrow): start no more of them
        this.#receiveOne(item, batch, extras);
      }
      this.#settleBatch(batch);
    }
  }

  /** One frame, alone or an element of `batch`. */
  #receiveOne(value: unknown, batch: Batch | undefined, extras: FrameExtras | undefined): void {
    const frame = classify(value);
    if (frame.kind === 'request') this.#startRequest(frame.message, batch, extras);
    else if (frame.kind === 'notification') this.#hooks.onNotification(frame.message);
    else if (frame.kind === 'response') this.#receiveResponse(frame.message);
    else this.#answer(errorResponse(frame.id, frame.error), batch);
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

  /** Holds one batch answer, measured as written: one that cannot be serialized, or would take the answers held for
   * this connection's open batches past maxBatchAnswerBytes, becomes -32603. */
  #collect(batch: Batch, response: JsonRpcResponse, method: string | undefined): JsonRpcResponse {
    const what = method === undefined ? `the refusal of id ${describeValue(response.id)}` : `the answer to '${method}'`;
    let bytes: number;
    try {
      bytes = utf8(JSON.stringify(response)).byteLength;
    } catch (error) {
      this.#logger.error(`${what} could not be serialized`, error);
      response = errorResponse(response.id, INTERNAL_ERROR);
      bytes = utf8(JSON.stringify(response)).byteLength;
    }
    const max = this.#limits.maxBatchAnswerBytes;
    if (this.#batchBytes + bytes > max) {
      this.#logger.warn(`${what} was replaced: the answers held for batches exceed ${max} bytes`);
      const message = `Internal error: the answers held for batches exceed ${max} bytes`;
      response = errorResponse(response.id, { code: ErrorCode.InternalError, message });
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
    const inFlight = this.#inFlight;
    if (inFlight.get(message.id) !== undefined) {
      this.#answer(idInFlight(message.id), batch);
      return;
    }
    if (inFlight.size >= this.#limits.maxInFlight) {
      this.#answer(errorResponse(message.id, tooManyInFlight(this.#limits.maxInFlight)), batch);
      return;
    }
    const request = new AdmittedRequest(this, message, batch, extras);
    inFlight.add(request);
    if (batch !== undefined) batch.open++;
    let result: unknown;
    try {
      const tracing = requestTracing();
      result = tracing?.hasSubscribers === true ? this.#traceStart(tracing, request) : this.#hooks.onRequest(request);
    } catch (error) {
      this.#fail(request, error);
      return;
    }
    if (!isThenable(result)) this.#succeed(request, result);
    else
      result.then(
        (value) => this.#succeed(request, value),
        (error: unknown) => this.#fail(request, error),
      );
  }

  /** Serves a request on the request TracingChannel (tracing.ts, traceRequest), its context kept on the request. */
  #traceStart(tracing: RequestTracingChannel, request: InboundRequest): unknown {
    const trace: RequestTrace = {
      method: tracedMethod(request.method, this.#limits.servesMethod),
      requestId: request.id,
      transport: this.#peer.transport,
      era: this.#hooks.era,
      trace: request.trace,
    };
    request.traced = trace;
    const serve = () => this.#hooks.onRequest(request);
    return traceRequest(tracing, trace, serve, () => this.#hooks.era);
  }

  /** A traced request's outcome (tracing.ts, traceOutcome): `response` is the answer written, `thrown` the error. */
  #traceEnd(request: InboundRequest, response: JsonRpcResponse | undefined, thrown?: unknown): void {
    const trace = request.traced;
    if (trace === undefined) return;
    request.traced = undefined;
    traceOutcome(trace, response, request.state === 'cancelled' ? 'cancelled' : 'abandoned', thrown);
  }

  /** Removes a request from the table; true when it was still running (and so may be answered now). */
  #settle(request: AdmittedRequest, state: Exclude<RequestState, 'running'>): boolean {
    if (request.state !== 'running') return false;
    request.end(state);
    this.#inFlight.delete(request);
    if (this.#inFlight.size === 0) this.#drained?.();
    if (state !== 'answered') this.#traceEnd(request, undefined);
    return true;
  }

  #succeed(request: AdmittedRequest, result: unknown): void {
    if (this.#settle(request, 'answered')) this.#finish(request, successResponse(request.id, result));
  }

  /** A ProtocolError is the wire error; anything else is logged and answered -32603 without its message. */
  #fail(request: AdmittedRequest, error: unknown): void {
    if (!this.#settle(request, 'answered')) return;
    const expected = error instanceof ProtocolError;
    if (!expected) this.#logger.error(`handler for '${request.method}' failed`, error);
    this.#finish(request, errorResponse(request.id, expected ? error.toJSON() : INTERNAL_ERROR), error);
    if (!expected) this.#hooks.onUnexpectedError?.(error, request);
  }

  /** Writes (or collects into its batch) a request's answer, ends its trace with the answer as written (maybe
   * replaced; `thrown`: what the handler threw), then sends what it held back. */
  #finish(request: AdmittedRequest, response: JsonRpcResponse, thrown?: unknown): void {
    if (request.batch !== undefined) {
      response = this.#collect(request.batch, response, request.method);
      this.#settleBatch(request.batch);
    } else if (!this.#closed) {
      // Transports serialize before they change anything, so an answer that cannot be (a cycle, a BigInt, nesting
      // too deep) can still be replaced by the generic error.
      try {
        this.#peer.send(response);
      } catch (error) {
        this.#logger.error(`the answer to '${request.method}' could not be serialized`, error);
        response = errorResponse(response.id, INTERNAL_ERROR);
        this.#peer.send(response);
      }
      this.#count(response);
    }
    this.#traceEnd(request, response, thrown);
    request.sendHeld();
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

  /** Sends a notification (DispatcherPeer.send says what `related`, `essential` and `change` mean). */
  notify(method: string, params: Shaped | undefined, related?: RequestId, essential = false, change = false): void {
    if (this.#closed) return;
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    this.#peer.send(message, related, essential, change);
  }

  /** A change notification (list_changed, resources/updated) related to no request: see DispatcherPeer.send. */
  notifyChange(method: string, params: Shaped | undefined): void {
    this.notify(method, params, undefined, false, true);
  }

  /** Sends a server→client request and resolves with the peer's result (rejects with its error). */
  request(method: string, params: Shaped | undefined, options: OutboundOptions = {}, related?: RequestId) {
    if (this.#closed || this.#inputClosed)
      return Promise.reject(new OutboundRequestError(`Cannot send '${method}': the client can no longer answer`));
    const refusal = this.refusal(method, related);
    if (refusal !== undefined) return Promise.reject(refusal);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextOutboundId++;
    return new Promise((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.#limits.requestTimeoutMs;
      const withdraw = (error: unknown, reason: string): void => {
        cleanup();
        this.notify('notifications/cancelled', { requestId: id, reason }, related);
        reject(error);
      };
      const timer = setTimeout(
        () => withdraw(new OutboundRequestError(`'${method}' timed out after ${timeoutMs} ms`), 'timeout'),
        timeoutMs,
      );
      const onAbort = (): void => withdraw(signal?.reason, 'cancelled');
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#pending!.delete(id);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      (this.#pending ??= new Map()).set(id, { resolve, reject, cleanup });
      const message: JsonRpcRequest =
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      this.#peer.send(message, related);
    });
  }

  /** Why a server→client request related to `related` cannot reach the client from here (undefined: it can). */
  refusal(method: string, related: RequestId | undefined): OutboundRequestError | undefined {
    const noBackChannel = this.#peer.noBackChannel?.(related);
    return noBackChannel === undefined
      ? undefined
      : new OutboundRequestError(`Cannot send '${method}': ${noBackChannel}`, ErrorCode.InvalidRequest);
  }

  /** A response from the peer: it settles an outbound request, or is stray (an error without an id is logged). */
  #receiveResponse(message: JsonRpcResponse): void {
    if (this.settleOutbound(message)) return;
    if (message.id === null) {
      // Only the code and a bounded message are logged: the error's data is the peer's, of any size and depth.
      const { code, message: text } = (message as JsonRpcFailure).error;
      this.#logger.warn(`peer sent an error without an id: code ${code}, message ${describeValue(text)}`);
    } else {
      this.#hooks.onStrayResponse?.(message);
      this.#peer.onStrayResponse?.(message);
    }
  }

  /** Settles the outbound request `message` answers (received here or by another process of a shared session);
   * false when none is waiting here. */
  settleOutbound(message: JsonRpcResponse): boolean {
    const pending = typeof message.id === 'number' ? this.#pending?.get(message.id) : undefined;
    if (pending === undefined) return false;
    pending.cleanup();
    // Not a ProtocolError: a client's refusal must not pass for the server's own answer to the client.
    if ('error' in message)
      pending.reject(new OutboundRequestError(message.error.message, message.error.code, message.error.data));
    else pending.resolve(message.result);
    return true;
  }

  #rejectPending(reason: string): void {
    for (const pending of [...(this.#pending?.values() ?? [])]) {
      pending.cleanup();
      pending.reject(new OutboundRequestError(reason));
    }
  }

  /** The peer stopped sending: outbound requests fail now (no answer can come); in-flight ones get up to `windowMs`
   * to finish, output enabled, and what is left is then abandoned silently. */
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
    for (const request of this.#inFlight.values()) {
      this.#settle(request, 'abandoned');
      this.#peer.onWithdrawn?.(request.id);
    }
    this.#rejectPending('the connection closed');
  }
}

/** The one error for a request-scoped server→client request that nothing can carry (code -32600). */
export const NO_BACK_CHANNEL = 'this transport context has no back-channel for server-initiated requests';

/**
 * The in-flight table: running requests by id, in admission order. A request admitted while no other runs takes a
 * slot of its own, so that a connection serving one request at a time makes no garbage for it: a Map emptied by its
 * last delete and refilled rebuilds its storage, about 150 bytes a request (bench/README.md, stdio round trips,
 * "Change: fewer objects per call"). The others are held in a Map, made while there are some.
 */
class InFlightTable {
  /** The oldest running request when it was admitted alone; absent while only `#others` hold requests. */
  #alone: AdmittedRequest | undefined;
  #others: Map<RequestId, AdmittedRequest> | undefined;

  get size(): number {
    return (this.#alone === undefined ? 0 : 1) + (this.#others?.size ?? 0);
  }

  get(id: RequestId): AdmittedRequest | undefined {
    return this.#alone?.id === id ? this.#alone : this.#others?.get(id);
  }

  /** Admits a request whose id is not in the table. */
  add(request: AdmittedRequest): void {
    if (this.size === 0) this.#alone = request;
    else (this.#others ??= new Map()).set(request.id, request);
  }

  /** Removes `request` (not another request that took its id after it). */
  delete(request: AdmittedRequest): void {
    if (this.#alone === request) this.#alone = undefined;
    else if (this.#others?.get(request.id) === request) {
      this.#others.delete(request.id);
      if (this.#others.size === 0) this.#others = undefined;
    }
  }

  /** The running requests in admission order, as a copy (settling one removes it). */
  values(): AdmittedRequest[] {
    const others = [...(this.#others?.values() ?? [])];
    return this.#alone === undefined ? others : [this.#alone, ...others];
  }
}

/** Collects the answers of one batch and writes them as one array when the last request settles. */
class Batch {
  readonly responses: JsonRpcResponse[] = [];
  /** The UTF-8 bytes of `responses` as they will be written. */
  bytes = 0;
  open = 1; // the batch itself until all elements are read, then one per running request
}

/** A request as the in-flight table holds it: with the batch its answer joins (undefined: a frame of its own). */
class AdmittedRequest extends InboundRequest {
  readonly batch: Batch | undefined;

  constructor(dispatcher: Dispatcher, message: JsonRpcRequest, batch: Batch | undefined, extras?: FrameExtras) {
    super(dispatcher, message, extras);
    this.batch = batch;
  }
}
