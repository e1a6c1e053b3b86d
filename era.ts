// The era router of one connection: reads a request's own 2026-07-28 envelope claim, validates the envelope, and
// runs the connection's era state machine (undecided → legacy | modern) that sends each request to its lifecycle.
// The era is decided by the first request that is not a probe, on arrival, before any handler runs; an enveloped
// server/discover probe and a refused modern-removed method decide nothing. Never consults handler outcomes.

import type { Dispatcher, DispatcherHooks, InboundRequest } from './dispatcher.ts';
import {
  ErrorCode,
  ProtocolError,
  describeValue,
  invalidParams,
  isPlainObject,
  isRequestId,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcResponse,
} from './jsonrpc.ts';
import { LOGGING_LEVELS, MODERN_VERSIONS, type ClientCapabilities, type Implementation, type Logger, type LoggingLevel } from './types.ts';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Methods of the 2025 lifecycle that 2026-07-28 removed; enveloped, they are -32601 whatever the connection. */
export const MODERN_REMOVED = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** At most this many notifications wait for the era decision; later ones are dropped (and logged). */
const MAX_HELD_NOTIFICATIONS = 8;

export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
}

/** A request claims the modern era exactly when `params._meta` holds the protocol-version key. */
export function hasClaim(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return isPlainObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION);
}

export function unsupportedVersion(requested: unknown, message = 'Unsupported protocol version'): ProtocolError {
  return new ProtocolError(ErrorCode.UnsupportedProtocolVersion, message, {
    supported: [...MODERN_VERSIONS],
    requested: typeof requested === 'string' ? requested : 'unknown',
  });
}

/** Validates a claimed envelope in the spec's order; each failure names the offending key. */
export function readEnvelope(params: Record<string, unknown>): Envelope {
  const meta = params._meta as Record<string, unknown>;
  const protocolVersion = meta[META_PROTOCOL_VERSION];
  if (typeof protocolVersion !== 'string') throw invalidParams(`params._meta['${META_PROTOCOL_VERSION}'] must be a string`);
  if (!(MODERN_VERSIONS as readonly string[]).includes(protocolVersion)) throw unsupportedVersion(protocolVersion);
  if (!Object.hasOwn(meta, META_CLIENT_CAPABILITIES)) {
    throw invalidParams(`params._meta is missing required key(s): ${META_CLIENT_CAPABILITIES}`);
  }
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(clientCapabilities)) throw invalidParams(`params._meta['${META_CLIENT_CAPABILITIES}'] must be an object`);
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined &&
    !(isPlainObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string')) {
    throw invalidParams(`params._meta['${META_CLIENT_INFO}'] must be {name: string, version: string}`);
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && !LOGGING_LEVELS.includes(logLevel as LoggingLevel)) {
    throw invalidParams(`params._meta['${META_LOG_LEVEL}'] must be one of ${LOGGING_LEVELS.join(', ')}`);
  }
  return {
    protocolVersion,
    clientCapabilities,
    clientInfo: clientInfo as Implementation | undefined,
    logLevel: logLevel as LoggingLevel | undefined,
  };
}

export function removedMethod(method: string): ProtocolError {
  return new ProtocolError(ErrorCode.MethodNotFound, `Method not found: '${method}' is not part of protocol ${MODERN_VERSIONS[0]}`, method);
}

// True after every opening sequence: probes and refused removed methods before the deciding request carried envelopes.
const LEGACY_REFUSAL = 'Invalid Request: this connection serves the legacy initialize-handshake protocol (the request ' +
  'that decided its era carried no 2026-07-28 _meta envelope); requests carrying the 2026-07-28 envelope are not accepted on it';
const MODERN_HANDSHAKE_REFUSAL = 'Unsupported protocol version: this connection serves protocol 2026-07-28 with a ' +
  'per-request _meta envelope (an earlier request on it carried the envelope); the initialize handshake is not accepted on it';
const MISSING_ENVELOPE = `Invalid params: params._meta must carry '${META_PROTOCOL_VERSION}' and '${META_CLIENT_CAPABILITIES}'`;
const BATCH_WITH_CLAIM = 'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later';

/** What the router hands requests to: one lifecycle per era. */
export interface Lifecycle {
  onRequest(request: InboundRequest): unknown;
}

export interface LegacySide extends Lifecycle {
  onNotification(message: JsonRpcNotification): void;
  checkBatch(items: unknown[], decide: (refusal?: JsonRpcErrorObject) => void): JsonRpcErrorObject | 'held' | undefined;
}

export type EraState = 'undecided' | 'legacy' | 'modern';

export class EraRouter implements DispatcherHooks {
  #state: EraState = 'undecided';
  #held: JsonRpcNotification[] = [];
  readonly #legacy: LegacySide;
  /** Absent on a connection whose era is fixed to 2025, which refuses every claim before reaching it. */
  readonly #modern: Lifecycle | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #logger: Logger;
  /** Debug (re-throw) mode only: the connection's reaction to an unexpected handler error. */
  onUnexpectedError?: (error: unknown) => void;

  constructor(legacy: LegacySide, modern: Lifecycle | undefined, dispatcher: Dispatcher, logger: Logger, era?: 'legacy' | 'modern') {
    this.#state = era ?? 'undecided';
    this.#legacy = legacy;
    this.#modern = modern;
    this.#dispatcher = dispatcher;
    this.#logger = logger;
  }

  get state(): EraState {
    return this.#state;
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
    if (this.#state === 'legacy') return this.#legacy.onRequest(request);
    if (method === 'initialize') throw unsupportedVersion(params.protocolVersion, MODERN_HANDSHAKE_REFUSAL);
    throw new ProtocolError(ErrorCode.InvalidParams, MISSING_ENVELOPE);
  }

  #decide(era: 'legacy' | 'modern'): void {
    if (this.#state !== 'undecided') return;
    this.#state = era;
    const held = this.#held;
    this.#held = [];
    for (const message of held) this.onNotification(message);
  }

  onNotification(message: JsonRpcNotification): void {
    if (this.#state === 'legacy') {
      this.#legacy.onNotification(message);
    } else if (message.method === 'notifications/cancelled') {
      // Notifications carry no envelope: a modern (or undecided) connection acts on cancels alone.
      const requestId = message.params?.requestId;
      if (isRequestId(requestId)) this.#dispatcher.cancel(requestId);
    } else if (this.#state === 'undecided') {
      if (this.#held.length < MAX_HELD_NOTIFICATIONS) this.#held.push(message);
      else this.#logger.warn(`dropped '${message.method}': too many notifications before the first request`);
    }
  }

  /**
   * Before the decision no request of ours is outstanding, so a client response answers nothing: it is discarded
   * and logged (test/era.test.ts, 'a client response before any request is logged').
   */
  onStrayResponse(message: JsonRpcResponse): void {
    if (this.#state === 'undecided') {
      this.#logger.warn(`discarded a response (id ${describeValue(message.id)}) that arrived before the first request`);
    }
  }

  checkBatch(items: unknown[], decide: (refusal?: JsonRpcErrorObject) => void): JsonRpcErrorObject | 'held' | undefined {
    if (items.some((item) => isPlainObject(item) && isPlainObject(item.params) && hasClaim(item.params))) {
      return { code: ErrorCode.InvalidRequest, message: BATCH_WITH_CLAIM };
    }
    return this.#legacy.checkBatch(items, decide);
  }
}
