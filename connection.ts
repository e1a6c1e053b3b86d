// One client connection (a stdio process, later an HTTP session): frame text in, a dispatcher for JSON-RPC, the
// lifecycle that serves it, and the subscription to server changes. Routes every request to its era's lifecycle
// (today the 2025 handshake lifecycle). Owns the release of everything the connection holds on every exit path;
// never reaches into another connection.

import { Dispatcher, type DispatcherHooks, type InboundRequest, type Logger } from './dispatcher.ts';
import { LegacyLifecycle } from './handshake.ts';
import { ErrorCode, PARSE_ERROR, errorResponse, parseJson, type JsonRpcMessage, type JsonRpcResponse } from './jsonrpc.ts';
import type { ServerModel } from './features.ts';

const OVERSIZED_FRAME = errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error: frame exceeds the limit' });

export interface ConnectionLimits {
  maxInFlight: number;
  requestTimeoutMs: number;
  maxSubscriptions: number;
}

export interface ConnectionOptions {
  /** Writes one frame (or a batch answer) to the peer. */
  send(message: JsonRpcMessage | JsonRpcResponse[]): void;
  /** Debug (re-throw) mode: receives exactly the first unexpected handler error; the connection then closes. */
  onHandlerError?(error: unknown): void;
}

export class Connection {
  readonly #dispatcher: Dispatcher;
  readonly #lifecycle: LegacyLifecycle;
  readonly #stopListening: () => void;

  constructor(model: ServerModel, limits: ConnectionLimits, logger: Logger, options: ConnectionOptions) {
    const hooks: DispatcherHooks = {
      onRequest: (request: InboundRequest) => this.#lifecycle.onRequest(request),
      onNotification: (message) => this.#lifecycle.onNotification(message),
      checkBatch: (items) => this.#lifecycle.checkBatch(items),
    };
    const { onHandlerError } = options;
    if (onHandlerError !== undefined) {
      hooks.onUnexpectedError = (error) => {
        if (this.#dispatcher.closed) return;
        this.close();
        onHandlerError(error);
      };
    }
    this.#dispatcher = new Dispatcher({
      send: options.send,
      hooks,
      logger,
      maxInFlight: limits.maxInFlight,
      requestTimeoutMs: limits.requestTimeoutMs,
    });
    this.#lifecycle = new LegacyLifecycle(model, this.#dispatcher, { maxSubscriptions: limits.maxSubscriptions });
    this.#stopListening = model.hub.listen((event) => this.#lifecycle.onChange(event));
  }

  get inFlightCount(): number {
    return this.#dispatcher.inFlightCount;
  }

  get pendingOutboundCount(): number {
    return this.#dispatcher.pendingOutboundCount;
  }

  get subscriptionCount(): number {
    return this.#lifecycle.subscriptionCount;
  }

  get closed(): boolean {
    return this.#dispatcher.closed;
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

  /** The peer will send nothing more: let running requests finish within the window, then close. */
  async drain(windowMs: number): Promise<void> {
    await this.#dispatcher.drain(windowMs);
    this.close();
  }

  /** Ends the connection at once; running handlers are aborted and nothing more is written. */
  close(): void {
    this.#stopListening();
    this.#dispatcher.close();
  }
}
