// One inbound request's life, from the in-flight table to its end (answered, cancelled or abandoned): its id,
// params, progress token, trace keys and lazily made AbortSignal, and the notifications and server→client requests
// made on its behalf. Owns nothing but its own signal; everything it sends goes through its dispatcher, and nothing
// goes once it has ended.

import type { Dispatcher } from './dispatcher.ts';
import type { JsonRpcRequest, JsonRpcResponse, RequestId } from './jsonrpc.ts';
import type { AuthInfo, FrameExtras, HttpRequestInfo, TraceContext } from './types.ts';

/** A request's `_meta.progressToken`: a string or an integer. */
export type ProgressToken = string | number;

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
  const why = state === 'cancelled' ? 'the client cancelled the request'
    : state === 'abandoned' ? 'the connection closed' : 'the request was answered';
  return new DOMException(`Request ended: ${why}`, 'AbortError');
}

const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

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
  readonly #dispatcher: Dispatcher;
  readonly batch: Batch | undefined;
  #controller: AbortController | undefined;
  #lastProgress = -Infinity;

  constructor(dispatcher: Dispatcher, message: JsonRpcRequest, batch: Batch | undefined, extras?: FrameExtras) {
    this.#dispatcher = dispatcher;
    this.http = extras?.http;
    this.auth = extras?.auth;
    this.id = message.id;
    this.method = message.method;
    this.params = message.params ?? EMPTY_PARAMS;
    this.batch = batch;
    const meta = this.params._meta;
    const token = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>).progressToken : undefined;
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

  /** Sends `notifications/progress` for this request's token; a no-op without a token or after the answer. */
  progress(progress: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.state !== 'running') return;
    if (!(progress > this.#lastProgress)) return; // the spec requires progress to increase
    this.#lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#dispatcher.notify('notifications/progress', params, this.id);
  }

  /** A notification related to this request; dropped once the request has its answer or was cancelled. */
  notify(method: string, params: Record<string, unknown>): void {
    if (this.state === 'running') this.#dispatcher.notify(method, params, this.id);
  }

  /** The error a server→client request made on behalf of this request would fail with at once, if any. */
  refusal(method: string): OutboundRequestError | undefined {
    return this.#dispatcher.refusal(method, this.id);
  }

  /** A server→client request made on behalf of this request; withdrawn when this request is cancelled. */
  request(method: string, params: Record<string, unknown> | undefined, options: OutboundOptions = {}): Promise<unknown> {
    if (this.state !== 'running') return Promise.reject(new OutboundRequestError(`Cannot send '${method}': the request has ended`));
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([this.signal, options.signal]);
    return this.#dispatcher.request(method, params, { signal, timeoutMs: options.timeoutMs }, this.id);
  }
}
