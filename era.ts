// One client connection and its era router: frame text in, a dispatcher, the era state machine (undecided → legacy |
// modern) decided on arrival by the first request that is not a probe (an enveloped server/discover, a refused
// modern-removed method) and never by handler outcomes, both lifecycles behind it, and the subscription to server
// changes. Releases everything the connection holds on every exit path; never reaches into another connection.

import { Dispatcher, type DispatcherHooks, type DispatcherLimits, type DispatcherPeer } from './dispatcher.ts';
import type { ServerModel } from './features.ts';
import type { RequestStateSealer } from './input.ts';
import {
  describeValue,
  ErrorCode,
  errorResponse,
  isPlainObject,
  isRequestId,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcResponse,
  NOT_UTF8,
  PARSE_ERROR,
  ProtocolError,
  parseJson,
} from './jsonrpc.ts';
import { BATCH_REFUSAL, type Handshake, LegacyLifecycle, type SaveSessionState, type SessionState } from './legacy.ts';
import {
  type CachePolicy,
  hasClaim,
  type ListenLimits,
  ListenStreams,
  MISSING_ENVELOPE,
  MODERN_REMOVED,
  ModernLifecycle,
  readEnvelope,
  removedMethod,
  unsupportedVersion,
} from './modern.ts';
import type { ChangeEvent } from './registry.ts';
import type { InboundRequest } from './request.ts';
import type { ErrorCounts } from './tracing.ts';
import type { FrameExtras, Logger } from './types.ts';

/** At most this many notifications wait for the era decision; later ones are dropped (and logged). */
const MAX_HELD_NOTIFICATIONS = 8;

// True after every opening sequence: probes and refused removed methods before the deciding request carried envelopes.
const LEGACY_REFUSAL =
  'Invalid Request: this connection serves the legacy initialize-handshake protocol (the request ' +
  'that decided its era carried no 2026-07-28 _meta envelope); requests carrying the 2026-07-28 envelope are not accepted on it';
const MODERN_HANDSHAKE_REFUSAL =
  'Unsupported protocol version: this connection serves protocol 2026-07-28 with a ' +
  'per-request _meta envelope (an earlier request on it carried the envelope); the initialize handshake is not accepted on it';
const BATCH_WITH_CLAIM =
  'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later';

/** What the router hands requests to: one lifecycle per era. */
export interface Lifecycle {
  onRequest(request: InboundRequest): unknown;
}

export type LegacySide = Lifecycle & Pick<DispatcherHooks, 'onNotification' | 'checkBatch'>;

export type EraState = 'undecided' | 'legacy' | 'modern';
type Decide = (refusal?: JsonRpcErrorObject) => void;

export class EraRouter implements DispatcherHooks {
  #state: EraState = 'undecided';
  #held: JsonRpcNotification[] | undefined;
  /** The 2025 side, or the function that builds it on first use; absent on a connection fixed to 2026-07-28. */
  readonly #legacy: LegacySide | (() => LegacySide) | undefined;
  /** Absent on a connection whose era is fixed to 2025, which refuses every claim before reaching it. */
  readonly #modern: Lifecycle | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #logger: Logger;
  /** Debug (re-throw) mode only: the connection's reaction to an unexpected handler error. */
  onUnexpectedError?: (error: unknown) => void;

  constructor(
    legacy: LegacySide | (() => LegacySide) | undefined,
    modern: Lifecycle | undefined,
    dispatcher: Dispatcher,
    logger: Logger,
    era?: 'legacy' | 'modern',
  ) {
    this.#state = era ?? 'undecided';
    this.#legacy = legacy;
    this.#modern = modern;
    this.#dispatcher = dispatcher;
    this.#logger = logger;
  }

  get state(): EraState {
    return this.#state;
  }

  #legacySide(): LegacySide {
    return typeof this.#legacy === 'function' ? this.#legacy() : this.#legacy!;
  }

  /** DispatcherHooks.era: the era once decided. */
  get era(): 'legacy' | 'modern' | undefined {
    return this.#state === 'undecided' ? undefined : this.#state;
  }

  onRequest(request: InboundRequest): unknown {
    const { method, params } = request;
    if (hasClaim(params)) {
      if (this.#state === 'legacy') throw new ProtocolError(ErrorCode.InvalidRequest, LEGACY_REFUSAL);
      if (MODERN_REMOVED.has(method)) {
        readEnvelope(params); // a broken envelope is reported as such, and still decides nothing
        throw removedMethod(method);
      }
      if (method !== 'server/discover') this.#decide('modern');
      return this.#modern!.onRequest(request);
    }
    if (this.#state === 'undecided') this.#decide('legacy');
    if (this.#state === 'legacy') return this.#legacySide().onRequest(request);
    if (method === 'initialize') throw unsupportedVersion(params.protocolVersion, MODERN_HANDSHAKE_REFUSAL);
    throw new ProtocolError(ErrorCode.InvalidParams, MISSING_ENVELOPE);
  }

  #decide(era: 'legacy' | 'modern'): void {
    if (this.#state !== 'undecided') return;
    this.#state = era;
    const held = this.#held;
    this.#held = undefined;
    for (const message of held ?? []) this.onNotification(message);
  }

  onNotification(message: JsonRpcNotification): void {
    if (this.#state === 'legacy') {
      this.#legacySide().onNotification(message);
    } else if (message.method === 'notifications/cancelled') {
      // Notifications carry no envelope: a modern (or undecided) connection acts on cancels alone.
      const requestId = message.params?.requestId;
      if (isRequestId(requestId)) this.#dispatcher.cancel(requestId);
    } else if (this.#state === 'undecided') {
      const held = (this.#held ??= []);
      if (held.length < MAX_HELD_NOTIFICATIONS) held.push(message);
      else this.#logger.warn(`dropped '${message.method}': too many notifications before the first request`);
    }
  }

  /** Before the decision none of our requests is outstanding, so a client response answers nothing: logged. */
  onStrayResponse(message: JsonRpcResponse): void {
    if (this.#state === 'undecided')
      this.#logger.warn(`discarded a response (id ${describeValue(message.id)}) that arrived before the first request`);
  }

  checkBatch(items: unknown[], decide: Decide): JsonRpcErrorObject | 'held' | undefined {
    if (items.some((item) => isPlainObject(item) && isPlainObject(item.params) && hasClaim(item.params)))
      return { code: ErrorCode.InvalidRequest, message: BATCH_WITH_CLAIM };
    return this.#state === 'legacy' ? this.#legacySide().checkBatch(items, decide) : BATCH_REFUSAL;
  }
}

const OVERSIZED_FRAME = errorResponse(null, {
  code: ErrorCode.ParseError,
  message: 'Parse error: frame exceeds the limit',
});

/** Server-wide settings every connection shares (the error counts included: one object for the server). */
export interface ConnectionSettings extends ListenLimits, DispatcherLimits {
  readonly errors: ErrorCounts;
  maxSubscriptions: number;
  cache: CachePolicy;
  sealer: RequestStateSealer;
}

/** What a transport gives `server.transport.connect()`: how to send frames, and what it knows about its context. */
export interface ConnectionOptions extends DispatcherPeer {
  /** The era when the transport already knows it (HTTP classifies each body); otherwise the first request decides. */
  era?: 'legacy' | 'modern';
  /** Stateless legacy HTTP: no handshake; requests are served at this negotiated version (or restored handshake). It fixes the era to 2025. */
  assumeInitialized?: string | (Handshake & Partial<SessionState>);
  /** A 2025 session in a shared store: saves what a request sets on the session before it is acknowledged. */
  saveSessionState?: SaveSessionState;
  /** Debug (re-throw) mode: receives exactly the first unexpected handler error; the connection then closes. */
  onHandlerError?(error: unknown): void;
  /** Whether the transport is backed up; listen events then wait in their stream's bounded buffer. */
  isBackedUp?(): boolean;
  /** A frame's `ctx.http`, `ctx.auth` unless `receive(value, extras)` overrides; never `envelope` (one request's). */
  extras?: FrameExtras;
}

/** One client connection (a stdio process, a 2025 session, a modern HTTP request): frames in, frames out. */
export class Connection {
  readonly #dispatcher: Dispatcher;
  /** Built at once when fixed to 2025, else on first need (#legacySide), never on a 2026 one: no closure kept. */
  #legacy: LegacyLifecycle | undefined;
  readonly #settings: ConnectionSettings;
  readonly #saveState: SaveSessionState | undefined;
  readonly #listens: ListenStreams | undefined;
  readonly #router: EraRouter;
  readonly #extras: FrameExtras | undefined;
  readonly #model: ServerModel;
  /** Set once the extensions heard of this caller's end (close()). */
  #ended = false;

  constructor(model: ServerModel, settings: ConnectionSettings, logger: Logger, options: ConnectionOptions) {
    this.#dispatcher = new Dispatcher(options, settings, logger);
    this.#model = model;
    this.#settings = settings;
    this.#saveState = options.saveSessionState;
    // A connection whose era is fixed to 2025 (an HTTP session) never serves modern requests: it holds no modern side.
    const era = options.era ?? (options.assumeInitialized === undefined ? undefined : 'legacy');
    let modern: ModernLifecycle | undefined;
    if (era !== 'legacy') {
      this.#listens = new ListenStreams(settings, options.isBackedUp);
      modern = new ModernLifecycle(model, this.#listens, settings.sealer, settings.cache);
    }
    const legacy = era === 'legacy' ? this.#legacySide() : era === undefined ? () => this.#legacySide() : undefined;
    this.#router = new EraRouter(legacy, modern, this.#dispatcher, logger, era);
    const { onHandlerError } = options;
    if (onHandlerError !== undefined)
      this.#router.onUnexpectedError = (error) => {
        if (this.#dispatcher.closed) return;
        this.close();
        onHandlerError(error);
      };
    this.#dispatcher.attach(this.#router);
    this.#extras = options.extras === undefined ? undefined : { ...options.extras, envelope: undefined };
    if (options.assumeInitialized !== undefined) this.#legacySide().assumeInitialized(options.assumeInitialized);
    model.hub.add(this);
  }

  /** The 2025 lifecycle, built the first time the connection needs it. */
  #legacySide(): LegacyLifecycle {
    return (this.#legacy ??= new LegacyLifecycle(this.#model, this.#dispatcher, this.#settings, this.#saveState));
  }

  get era(): EraState {
    return this.#router.state;
  }

  /** The committed 2025 handshake (undefined before it, and on modern connections). */
  get handshake(): Handshake | undefined {
    return this.#legacy?.handshake;
  }

  /** Settles an outbound request with a response another process received (false: none of ours is waiting). */
  settleOutbound(message: JsonRpcResponse): boolean {
    return this.#dispatcher.settleOutbound(message);
  }

  /** Applies the session state another process set (a shared store's record of this 2025 session). */
  applySessionState(state: Partial<SessionState>): void {
    this.#legacySide().applyState(state);
  }

  /** The negotiated 2025 version once the handshake committed. */
  get legacyVersion(): string | undefined {
    return this.#legacy?.initialized ? this.#legacy.version : undefined;
  }

  get listenCount(): number {
    return this.#listens?.size ?? 0;
  }

  get inFlightCount(): number {
    return this.#dispatcher.inFlightCount;
  }

  /** Why a 2025-03-26 batch of `length` elements arriving now is refused on arrival (see LegacyLifecycle). */
  batchRefusal(length: number): JsonRpcErrorObject | undefined {
    return this.#legacySide().batchRefusal(length);
  }

  get closed(): boolean {
    return this.#dispatcher.closed;
  }

  /** One parsed frame (or batch), for transports that parse bodies themselves; `extras`: what they know of its exchange. */
  receive(value: unknown, extras: FrameExtras | undefined = this.#extras): void {
    this.#dispatcher.receive(value, extras);
  }

  /** One frame's text; text that is not JSON is answered with a parse error and the connection goes on. */
  receiveText(text: string): void {
    const parsed = parseJson(text);
    if (parsed === undefined) this.#dispatcher.answerUnreadable(PARSE_ERROR);
    else this.#dispatcher.receive(parsed.value);
  }

  /** A frame whose text could not even be kept (it exceeded the transport's size limit). */
  receiveOversized(): void {
    this.#dispatcher.answerUnreadable(OVERSIZED_FRAME);
  }

  /** A frame whose bytes are not UTF-8, so not JSON text: answered with a parse error, and the connection goes on. */
  receiveNotUtf8(): void {
    this.#dispatcher.answerUnreadable(NOT_UTF8);
  }

  /** A server change (from the hub): to the 2025 side's notifications and to the listen streams. */
  onChange(event: ChangeEvent): void {
    this.#legacy?.onChange(event);
    this.#listens?.onChange(event);
  }

  /** The transport can take more output again. */
  resume(): void {
    this.#listens?.resume();
  }

  /** The peer sends nothing more: listen streams end gracefully, running requests get `windowMs`, then it closes. */
  async drain(windowMs: number): Promise<void> {
    this.#listens?.endAll();
    await this.#dispatcher.drain(windowMs);
    this.close();
  }

  /** Whether an extension runs work for this connection's caller (Extension.holdsWorkOf): its session is not idle. */
  get holdsWork(): boolean {
    const caller = this.#dispatcher.caller;
    return this.#model.extensions.some((extension) => extension.holdsWorkOf?.(caller) === true);
  }

  /** Ends the connection at once, aborting its handlers. `callerEnded`: its caller (a 2025 session) is gone too. */
  close(callerEnded = false): void {
    this.#model.hub.remove(this);
    this.#dispatcher.close();
    // A connection that was its own caller (stdio), or a session that ended for good (perhaps after its drain closed
    // the connection), is gone: what was bound to it can never be reached again. Nobody in particular ('') never ends.
    const caller = this.#dispatcher.ownCaller ?? (callerEnded ? this.#dispatcher.caller : '');
    if (this.#ended || caller === '') return;
    this.#ended = true;
    for (const extension of this.#model.extensions) extension.callerEnded?.(caller);
  }
}
