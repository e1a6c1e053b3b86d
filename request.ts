// One inbound request's life, admitted to its end (running → answered | cancelled | abandoned): id, params, progress
// token, trace keys, caller, lazy signal; what goes out on its behalf (notifications, server→client requests and their
// OutboundRequestError); the handler context every era shares. Owns only its signal, progress and held notifications;
// writes nothing itself (all goes through its RequestConnection) and nothing related to itself once it has ended.

import { isPlainObject, type JsonRpcRequest, type RequestId } from './jsonrpc.ts';
import type {
  AuthInfo,
  ClientCapabilities,
  DetachOptions,
  Envelope,
  FrameExtras,
  HttpRequestInfo,
  Implementation,
  ProgressToken,
  RequestOptions,
  RequestTrace,
  TaskHandle,
  TraceContext,
} from './types.ts';

type Shaped = Record<string, unknown>;

/** What a request needs from the connection that admitted it (the dispatcher): whom it speaks for, and the way out. */
export interface RequestConnection {
  /** Whom the connection's requests speak for when they carry no verified identity (DispatcherPeer.caller). */
  readonly caller: string;
  /** Sends a notification, related to the request `related` names (undefined: to none); see DispatcherPeer.send. */
  notify(method: string, params: Shaped | undefined, related?: RequestId, essential?: boolean): void;
  /** Why a server→client request related to `related` cannot reach the client (undefined: it can). */
  refusal(method: string, related: RequestId | undefined): OutboundRequestError | undefined;
  /** Sends a server→client request related to `related`; resolves with the client's result. */
  request(method: string, params: Shaped | undefined, options: OutboundOptions, related: RequestId): Promise<unknown>;
}

/** Options of one server→client request: aborting `signal` withdraws it (`notifications/cancelled` tells the peer). */
export type OutboundOptions = RequestOptions;

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

export type RequestState = 'running' | 'answered' | 'cancelled' | 'abandoned';

/** How an ended request ended, as its signal's abort reason says. */
const END_REASONS = {
  answered: 'the request was answered',
  cancelled: 'the client cancelled the request',
  abandoned: 'the connection closed',
};

const EMPTY_PARAMS: Shaped = Object.freeze({}) as Shaped;
/** The most notifications one request holds for after its answer (InboundRequest.notifyAfterAnswer). */
const MAX_HELD = 16;

const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;

/** One inbound request in the in-flight table: its id, method, params, progress token and cancellation. */
export class InboundRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Shaped;
  readonly progressToken: ProgressToken | undefined;
  /** The HTTP request that carried this one (undefined on stdio). */
  readonly http: HttpRequestInfo | undefined;
  /** The identity the carrying request's bearer token was verified as (undefined without auth, and on stdio). */
  readonly auth: AuthInfo | undefined;
  /** Its 2026-07-28 envelope when the transport already read it (FrameExtras.envelope). */
  readonly envelope: Envelope | undefined;
  state: RequestState = 'running';
  /** Its context on the request TracingChannel while it runs, when there were subscribers at its start. */
  traced: RequestTrace | undefined;
  /** Called at its end, however it ended (as its signal's abort, without the signal's cost: a listen's release). */
  onEnd: (() => void) | undefined;
  readonly #connection: RequestConnection;
  #controller: AbortController | undefined;
  #lastProgress = -Infinity;
  #held: { method: string; params: Shaped }[] | undefined;

  constructor(connection: RequestConnection, message: JsonRpcRequest, extras?: FrameExtras) {
    this.#connection = connection;
    this.http = extras?.http;
    this.auth = extras?.auth;
    this.envelope = extras?.envelope;
    this.id = message.id;
    this.method = message.method;
    this.params = message.params ?? EMPTY_PARAMS;
    const meta = this.params._meta;
    const token = isPlainObject(meta) ? meta.progressToken : undefined;
    this.progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /** The W3C trace keys of `params._meta` (string values only), or undefined when there are none. */
  get trace(): TraceContext | undefined {
    const meta = this.params._meta;
    if (!isPlainObject(meta)) return undefined;
    const found = TRACE_KEYS.filter((key) => typeof meta[key] === 'string').map((key) => [key, meta[key]]);
    return found.length === 0 ? undefined : (Object.fromEntries(found) as TraceContext);
  }

  /** Created on first use: most requests never look at it. Aborted once the request is over, however it ended. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.state !== 'running') this.end(this.state);
    return this.#controller.signal;
  }

  /** Marks the request over and aborts its signal, which also withdraws its outstanding server→client requests. */
  end(state: Exclude<RequestState, 'running'>): void {
    this.state = state;
    this.onEnd?.();
    this.#controller?.abort(new DOMException(`Request ended: ${END_REASONS[state]}`, 'AbortError'));
  }

  /** Whom this request speaks for: its verified identity, else its connection's caller (DispatcherPeer.caller). */
  get caller(): string {
    return this.auth === undefined ? this.#connection.caller : principalOf(this.auth);
  }

  /** `notifications/progress` for this request's token, if any; after the answer only with `outlive` (see notify). */
  progress(progress: number, total?: number, message?: string, outlive = false, meta?: Shaped): void {
    if (this.progressToken === undefined || (this.state !== 'running' && !outlive)) return;
    if (!(progress > this.#lastProgress)) return; // the spec requires progress to increase
    this.#lastProgress = progress;
    const params: Shaped = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    if (meta !== undefined) params._meta = meta;
    this.notify('notifications/progress', params, false, outlive);
  }

  /**
   * A notification related to this request; once it has ended, dropped, or with `outlive` (a task's handler) sent on
   * the connection, related to nothing. `essential`: a backed-up transport must not drop it (DispatcherPeer.send).
   */
  notify(method: string, params: Shaped, essential = false, outlive = false): void {
    if (this.state === 'running') this.#connection.notify(method, params, this.id, essential);
    else if (outlive) this.#connection.notify(method, params, undefined, essential);
  }

  /**
   * A notification that must not precede this request's answer (a task's status, whose id the answer carries): sent
   * on the connection after it, dropped if none comes. At most MAX_HELD wait; past that the oldest goes (superseded).
   */
  notifyAfterAnswer(method: string, params: Shaped): void {
    if (this.state === 'answered') this.#connection.notify(method, params);
    if (this.state !== 'running') return;
    const held = (this.#held ??= []);
    if (held.length === MAX_HELD) held.shift();
    held.push({ method, params });
  }

  /** The answer went out: what notifyAfterAnswer held goes now. */
  sendHeld(): void {
    const held = this.#held;
    this.#held = undefined;
    for (const { method, params } of held ?? []) this.#connection.notify(method, params);
  }

  /** The error a server→client request made on behalf of this request would fail with at once, if any. */
  refusal(method: string): OutboundRequestError | undefined {
    return this.#connection.refusal(method, this.id);
  }

  /** A server→client request made on behalf of this request; withdrawn when this request is cancelled. */
  request(method: string, params: Shaped | undefined, options: OutboundOptions = {}) {
    if (this.state !== 'running')
      return Promise.reject(new OutboundRequestError(`Cannot send '${method}': the request has ended`));
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([this.signal, options.signal]);
    return this.#connection.request(method, params, { signal, timeoutMs: options.timeoutMs }, this.id);
  }
}

/** What every era's handler context shares; a detached one (a task's) takes signal and task from DetachOptions. */
export class RequestContext {
  protected readonly request: InboundRequest;
  protected readonly detached: DetachOptions | undefined;
  // Whom the request speaks for: the 2025 handshake's or the 2026-07-28 envelope's, fixed for the context's life.
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;

  constructor(request: InboundRequest, client: Omit<Envelope, 'logLevel'>, detached?: DetachOptions) {
    this.request = request;
    this.detached = detached;
    this.protocolVersion = client.protocolVersion;
    this.clientCapabilities = client.clientCapabilities;
    this.clientInfo = client.clientInfo;
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
