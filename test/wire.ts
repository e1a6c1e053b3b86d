// Wire vocabulary shared by the tests: JSON-RPC frame builders and the 2026-07-28 request envelope. The protocol
// strings are written out here rather than imported from the source, so that drift in the code fails the tests.

import type { Frame } from './harness.ts';

export type Id = string | number;

export const MODERN = '2026-07-28';
export const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The demo server's serverInfo, as its modern results stamp it. */
export const EVERYTHING_INFO = { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' };

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC frames

export function request(id: Id, method: string, params?: Record<string, unknown>): Frame {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function notification(method: string, params?: Record<string, unknown>): Frame {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function ok(id: Id, result: unknown): Frame {
  return { jsonrpc: '2.0', id, result };
}

export function fail(id: Id | null, error: object): Frame {
  return { jsonrpc: '2.0', id, error };
}

// ---------------------------------------------------------------------------------------------------------------
// The 2026-07-28 envelope

/** The envelope's required keys (this version, no client capabilities); `extra` adds or overrides keys. */
export function envelope(extra: object = {}): Record<string, unknown> {
  return { [PROTOCOL_VERSION]: MODERN, [CLIENT_CAPABILITIES]: {}, ...extra };
}

/** A modern request: `params` plus the envelope (`meta` adds or overrides envelope keys; set to undefined, removes one). */
export function modern(method: string, params: object = {}, id: Id = 1, meta: object = {}): Frame {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(meta) } };
}
