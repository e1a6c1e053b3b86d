// MCP wire types for both eras (legacy 2024-11-05 … 2025-11-25 and modern 2026-07-28), written for this core from
// each version's schema (MCP <version>, Schema Reference): request params and results, server→client requests,
// notifications, `_meta` envelopes and capabilities per era, plus method→params maps. Types only: nothing here
// exists at runtime.

import type { InputRequest } from './input.ts';
import type { CreateMessageResult, ElicitResult, ListRootsResult } from './protocol-methods.ts';
import type {
  Implementation,
  LoggingLevel,
  Meta,
  RequestId,
} from './types.ts';

// ---------------------------------------------------------------------------------------------------------------
// Envelope `_meta` keys

/** A progress token: a string or an integer, unique among the sender's active requests. */
export type ProgressToken = string | number;

/**
 * The reserved `_meta` keys of the `io.modelcontextprotocol/` prefix and the W3C trace keys (MCP 2026-07-28, Basic >
 * Overview > General fields > `_meta`; `related-task` is 2025-11-25's).
 */
export type ReservedMetaKey =
  | 'progressToken'
  | 'io.modelcontextprotocol/protocolVersion'
  | 'io.modelcontextprotocol/clientInfo'
  | 'io.modelcontextprotocol/clientCapabilities'
  | 'io.modelcontextprotocol/logLevel'
  | 'io.modelcontextprotocol/serverInfo'
  | 'io.modelcontextprotocol/subscriptionId'
  | 'io.modelcontextprotocol/related-task'
  | 'traceparent'
  | 'tracestate'
  | 'baggage';

/** `params._meta` of a legacy request: an optional progress token plus any other keys. */
export interface LegacyRequestMeta {
  progressToken?: ProgressToken;
  [key: string]: unknown;
}

/**
 * `params._meta` of a 2026-07-28 request: the envelope every modern request must carry (MCP 2026-07-28, Basic >
 * Overview > General fields > `_meta`, per-request protocol fields).
 */
export interface ModernRequestMeta {
  /** The protocol version of this request; its presence is what claims the modern era. */
  'io.modelcontextprotocol/protocolVersion': string;
  /** The capabilities of this request alone (`{}` = none); never inferred from earlier requests. */
  'io.modelcontextprotocol/clientCapabilities': ModernClientCapabilities;
  'io.modelcontextprotocol/clientInfo'?: Implementation;
  /** Opt-in for `notifications/message` on this request's own stream (deprecated). */
  'io.modelcontextprotocol/logLevel'?: LoggingLevel;
  progressToken?: ProgressToken;
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
  [key: string]: unknown;
}

/** `result._meta` of a 2026-07-28 result: the server identity stamp, and the subscription id on a listen's result. */
export interface ModernResultMeta {
  'io.modelcontextprotocol/serverInfo'?: Implementation;
  'io.modelcontextprotocol/subscriptionId'?: RequestId;
  [key: string]: unknown;
}

/** `params._meta` of a notification; events on a listen stream carry their subscription id (the listen's request id). */
export interface NotificationMeta {
  'io.modelcontextprotocol/subscriptionId'?: RequestId;
  [key: string]: unknown;
}

/** Params every legacy request may carry. */
export interface LegacyRequestParams { _meta?: LegacyRequestMeta }
/** Params every modern request must carry: the envelope. */
export interface ModernRequestParams { _meta: ModernRequestMeta }
/** Params every notification may carry. */
export interface NotificationParams { _meta?: NotificationMeta }

// ---------------------------------------------------------------------------------------------------------------
// Results

/** Whether a modern result is final (`complete`) or asks the client for input first (`input_required`). */
export type ResultType = 'complete' | 'input_required';

/** Fields of every legacy result. Legacy results never carry `resultType`, `ttlMs`, `cacheScope` or the stamp. */
export interface LegacyResult { _meta?: Meta }

/** Fields of every final 2026-07-28 result. */
export interface ModernResult {
  resultType: 'complete';
  _meta?: ModernResultMeta;
}

/**
 * Caching hints on complete results of discover, the list methods and `resources/read` (MCP 2026-07-28, Server >
 * Utilities > Caching).
 */
export interface CacheableResult {
  /** Milliseconds the result stays fresh; `0` = stale at once. */
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** An empty answer (`ping`, `logging/setLevel`, `resources/subscribe|unsubscribe`): `{}` in the legacy era. */
export type EmptyResult = LegacyResult;

/**
 * A modern answer asking the client for input before the request can complete (MCP 2026-07-28, Basic > Patterns >
 * Multi Round-Trip Requests > Core Types > InputRequiredResult).
 */
export interface InputRequiredResult {
  resultType: 'input_required';
  /** Requests for the client to serve, by unique key; at least this or `requestState` is present. */
  inputRequests?: Record<string, InputRequest>;
  /** Opaque state the client must send back verbatim on its retry. */
  requestState?: string;
  _meta?: ModernResultMeta;
}

/** What a retry sends back under `inputResponses`, by the key of each input request. */
export type InputResponses = Record<string, ElicitResult | CreateMessageResult | ListRootsResult>;

/** The fields a modern retry of `tools/call`, `prompts/get` or `resources/read` adds to its original params. */
export interface InputRetryParams {
  inputResponses?: InputResponses;
  requestState?: string;
}

/** A page request of the four list methods. */
export interface PaginatedParams { cursor?: string }
/** A page answer; `nextCursor` is absent on the last page. */
export interface PaginatedResult { nextCursor?: string }

// ---------------------------------------------------------------------------------------------------------------
// Capabilities per era

/**
 * What a legacy client declares in `initialize` (fields by version: `ClientCapabilities` in each version's Schema
 * Reference).
 */
export interface LegacyClientCapabilities {
  experimental?: Record<string, object>;
  roots?: { listChanged?: boolean };
  /** `{}` before 2025-11-25, which adds `context` and `tools`. */
  sampling?: { context?: object; tools?: object };
  /** From 2025-06-18; `form` and `url` from 2025-11-25. */
  elicitation?: { form?: object; url?: object };
  /** 2025-11-25 only; this core never uses tasks. */
  tasks?: { list?: object; cancel?: object; requests?: Record<string, unknown> };
  [key: string]: unknown;
}

/** What a legacy server advertises in its `initialize` result. */
export interface LegacyServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  /** From 2025-03-26. */
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  /** 2025-11-25 only; this core never advertises it. */
  tasks?: { list?: object; cancel?: object; requests?: Record<string, unknown> };
  [key: string]: unknown;
}

/** What a 2026-07-28 request declares in its envelope (MCP 2026-07-28, Schema Reference > `ClientCapabilities`). */
export interface ModernClientCapabilities {
  experimental?: Record<string, object>;
  /** Deprecated; no `listChanged` in this era. */
  roots?: object;
  /** Deprecated. */
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

/** What a 2026-07-28 server advertises in `server/discover`. */
export interface ModernServerCapabilities {
  experimental?: Record<string, object>;
  /** Deprecated. */
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  /** `subscribe`: listen streams deliver `resourceSubscriptions`; `listChanged`: they deliver list changes. */
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// Lifecycle: initialize (legacy), server/discover (modern)

/** `initialize` params (legacy only). */
export interface InitializeRequestParams extends LegacyRequestParams {
  protocolVersion: string;
  capabilities: LegacyClientCapabilities;
  clientInfo: Implementation;
}

/** `initialize` result: the negotiated version, the server's capabilities and identity. */
export interface InitializeResult extends LegacyResult {
  protocolVersion: string;
  capabilities: LegacyServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/** `server/discover` params: the envelope only. */
export type DiscoverRequestParams = ModernRequestParams;

/** `server/discover` result: the modern versions served and the capabilities really served. */
export interface DiscoverResult extends ModernResult, CacheableResult {
  /** Modern versions only (`["2026-07-28"]`); legacy versions are negotiated by `initialize`. */
  supportedVersions: string[];
  capabilities: ModernServerCapabilities;
  instructions?: string;
}
