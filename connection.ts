// One client connection (a stdio process, later an HTTP session): frame text in, a dispatcher for JSON-RPC, the
// era router with both lifecycles behind it, listen streams, and the subscription to server changes. Owns the
// release of everything the connection holds on every exit path; never reaches into another connection.

import { Dispatcher, type DispatcherLimits, type DispatcherPeer } from './dispatcher.ts';
import { EraRouter, type EraState } from './era.ts';
import { LegacyLifecycle, type Handshake } from './handshake.ts';
import type { RequestStateSealer } from './input.ts';
import { ModernLifecycle, type CachePolicy } from './modern.ts';
import { ListenStreams, type ListenLimits } from './subscriptions.ts';
import {
  ErrorCode,
  NOT_UTF8,
  PARSE_ERROR,
  errorResponse,
  parseJson,
  type JsonRpcErrorObject,
} from './jsonrpc.ts';
import type { ServerModel, ToolEntry } from './features.ts';
import type { ChangeEvent, ChangeHub } from './registry.ts';
import type { FrameExtras, Logger } from './types.ts';

const OVERSIZED_FRAME = errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error: frame exceeds the limit' });

/** Server-wide settings every connection shares. */
export interface ConnectionSettings extends ListenLimits, DispatcherLimits {
  maxSubscriptions: number;
  cache: CachePolicy;
  sealer: RequestStateSealer;
}

/** What a transport gives `server.connect()`: how to send frames, and what it knows about its context. */
export interface ConnectionOptions extends DispatcherPeer {
  /** The era when the transport already knows it (HTTP classifies each body); otherwise the first request decides. */
  era?: 'legacy' | 'modern';
  /** Stateless legacy HTTP: no handshake; requests are served at this negotiated version. */
  assumeInitialized?: string | Handshake;
  /** Debug (re-throw) mode: receives exactly the first unexpected handler error; the connection then closes. */
  onHandlerError?(error: unknown): void;
  /** Whether the transport is backed up; listen events then wait in their stream's bounded buffer. */
  isBackedUp?(): boolean;
  /** What the transport knows of the exchange behind this connection (`ctx.http`, `ctx.auth`); `receive(value, extras)` overrides it per frame. */
  extras?: FrameExtras;
}

/** One client connection (a stdio process, a 2025 session, a modern HTTP request): frames in, frames out. */
export class Connection {
  readonly #dispatcher: Dispatcher;
  readonly #legacy: LegacyLifecycle;
  readonly #listens: ListenStreams | undefined;
  readonly #router: EraRouter;
  readonly #modern: ModernLifecycle | undefined;
  readonly #hub: ChangeHub;
  readonly #extras: FrameExtras | undefined;

  constructor(model: ServerModel, settings: ConnectionSettings, logger: Logger, options: ConnectionOptions) {
    this.#dispatcher = new Dispatcher(options, settings, logger);
    this.#legacy = new LegacyLifecycle(model, this.#dispatcher, settings);
    // A connection whose era is fixed to 2025 (an HTTP session) never serves modern requests: it holds no modern side.
    if (options.era !== 'legacy') {
      this.#listens = new ListenStreams(settings, options.isBackedUp ?? (() => false));
      this.#modern = new ModernLifecycle(model, this.#listens, settings.sealer, settings.cache);
    }
    this.#router = new EraRouter(this.#legacy, this.#modern, this.#dispatcher, logger, options.era);
    const { onHandlerError } = options;
    if (onHandlerError !== undefined) {
      this.#router.onUnexpectedError = (error) => {
        if (this.#dispatcher.closed) return;
        this.close();
        onHandlerError(error);
      };
    }
    this.#dispatcher.attach(this.#router);
    this.#extras = options.extras;
    if (options.assumeInitialized !== undefined) this.#legacy.assumeInitialized(options.assumeInitialized);
    this.#hub = model.hub;
    this.#hub.add(this);
  }

  get era(): EraState {
    return this.#router.state;
  }

  /** The committed 2025 handshake (undefined before it, and on modern connections). */
  get handshake(): Handshake | undefined {
    return this.#legacy.handshake;
  }

  /** The negotiated 2025 version once the handshake committed. */
  get legacyVersion(): string | undefined {
    return this.#legacy.initialized ? this.#legacy.version : undefined;
  }

  /**
   * The checks a modern HTTP request must pass before it is dispatched, each answered with its own HTTP status:
   * envelope (-32602/-32022) and method (-32601). Throws the first failure as a ProtocolError.
   */
  preflightModern(method: string, params: Record<string, unknown>): void {
    this.#modern!.preflight(method, params);
  }

  /** The modern tool a tools/call names, for checks of its mirrored headers. */
  modernTool(name: unknown): ToolEntry | undefined {
    return typeof name === 'string' ? this.#modern!.model.tools.get(name, 'modern') : undefined;
  }

  get listenCount(): number {
    return this.#listens?.size ?? 0;
  }

  get inFlightCount(): number {
    return this.#dispatcher.inFlightCount;
  }

  /** Why a 2025-03-26 batch of `length` elements arriving now is refused on arrival (see LegacyLifecycle). */
  batchRefusal(length: number): JsonRpcErrorObject | undefined {
    return this.#legacy.batchRefusal(length);
  }

  get pendingOutboundCount(): number {
    return this.#dispatcher.pendingOutboundCount;
  }

  get subscriptionCount(): number {
    return this.#legacy.subscriptionCount;
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
    this.#legacy.onChange(event);
    this.#listens?.onChange(event);
  }

  /** The transport can take more output again. */
  resume(): void {
    this.#listens?.resume();
  }

  /**
   * The peer will send nothing more: listen streams end gracefully (buffered events, then their final results),
   * running requests get the window to finish with output fully enabled, then the connection closes.
   */
  async drain(windowMs: number): Promise<void> {
    this.#listens?.endAll();
    await this.#dispatcher.drain(windowMs);
    this.close();
  }

  /** Ends the connection at once; running handlers are aborted and nothing more is written. */
  close(): void {
    this.#hub.remove(this);
    this.#dispatcher.close();
  }
}
