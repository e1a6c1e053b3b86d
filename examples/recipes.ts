// The recipes of docs/api.md (Recipes: middleware and visibility), each a piece an author copies: a rate limit per
// client, an audit log and a per-tool timeout (middleware: server.intercept), a response cache for read-only tools (a
// handler wrapper, run after the tool lookup and its visibility), and a per-caller tool list (visibility: a
// definition's `visible`). test/recipes.test.ts drives each at the wire.
// Every table here has a bound and a defined behaviour when full; the clocks and timers are parameters for the tests.
import { Buffer } from 'node:buffer';
import {
  ErrorCode,
  InputRequired,
  type Middleware,
  ProtocolError,
  type Registration,
  type Server,
  type ToolHandler,
  type ToolUpdate,
  type Viewer,
} from '../core.ts';

// ---------------------------------------------------------------------------------------------------------------
// Rate limit per client

/**
 * The code of a refused request other than `tools/call`: JSON-RPC 2.0 (5.1, Error object) leaves -32000 to -32099 to
 * the server's own errors, and the core never emits -32000 (docs/eras.md, Error codes), so a client can tell it apart.
 */
export const RATE_LIMITED = -32000;

/** rateLimit's options: at most `limit` requests per client in each fixed window of `windowMs`. */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Clients tracked at once; a new one past it evicts the window that started first. */
  maxClients: number;
  /** The clock, in ms. */
  now?: () => number;
}

/**
 * Who a request counts as: the verified principal (`ctx.caller`) when a token came with it; else the HTTP peer's
 * address (every sessionless request without a token has the caller '', and a new 2025 session would be a new
 * window); else, on stdio or in memory, the connection (its caller).
 */
export const clientKey = ({ auth, http, caller }: Viewer): string =>
  auth === undefined && http?.remoteAddress !== undefined ? `address:${http.remoteAddress}` : caller;

/**
 * Counts each client's requests (clientKey) in fixed windows: past `limit`, a `tools/call` gets an `isError`
 * result the model can read, any other request the RATE_LIMITED error, both saying when to retry.
 */
export function rateLimit({ limit, windowMs, maxClients, now = Date.now }: RateLimitOptions): Middleware {
  // Kept in the order the windows started, so the first entry is always the oldest window.
  const windows = new Map<string, { start: number; count: number }>();
  return (call, next) => {
    const time = now();
    const key = clientKey(call.ctx);
    let window = windows.get(key);
    if (window === undefined || time - window.start >= windowMs) {
      windows.delete(key);
      // Ended windows go first; a table still full drops the oldest window, whose client starts afresh.
      for (const [other, open] of windows) {
        if (windows.size < maxClients && time - open.start < windowMs) break;
        windows.delete(other);
      }
      window = { start: time, count: 0 };
      windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= limit) return next();
    const retryAfterMs = window.start + windowMs - time;
    const text = `rate limited, retry in ${Math.ceil(retryAfterMs / 1000)} s`;
    if (call.method === 'tools/call') return { content: [{ type: 'text', text }], isError: true };
    throw new ProtocolError(RATE_LIMITED, text, { retryAfterMs });
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Audit log

/** One served request: who asked for what, how it ended, and how long it took. */
export interface AuditRecord {
  method: string;
  caller: string;
  /** A result; a tool's `isError` result; a 2026-07-28 input_required (the client is asked); or the error's code. */
  outcome: 'result' | 'isError' | 'input_required' | number;
  ms: number;
}

/**
 * Writes one AuditRecord per request the server serves, once it is answered (a `subscriptions/listen` when its stream
 * ends). Requests refused before the chain (unknown method, not initialized, bad envelope) are never seen.
 */
export function auditLog(write: (record: AuditRecord) => void, now = () => performance.now()): Middleware {
  return async ({ method, ctx }, next) => {
    const start = now();
    let outcome: AuditRecord['outcome'] = ErrorCode.InternalError; // what anything but a ProtocolError becomes
    try {
      const result = await next();
      outcome =
        result instanceof InputRequired
          ? 'input_required'
          : (result as { isError?: unknown } | undefined)?.isError === true
            ? 'isError'
            : 'result';
      return result;
    } catch (error) {
      if (error instanceof ProtocolError) outcome = error.code;
      throw error;
    } finally {
      write({ method, caller: ctx.caller, outcome, ms: now() - start });
    }
  };
}

// ---------------------------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------------------------
// Per-tool timeout

/** Calls `fire` after `ms` unless the returned function cancels it first. */
export type StartTimer = (fire: () => void, ms: number) => () => void;

const startTimer: StartTimer = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * Answers a `tools/call` of a tool named in `limits` with an `isError` result once its time is up. The answer ends the
 * request, which aborts the handler's `ctx.signal`: a handler that honours it stops there, one that does not runs on,
 * its answer dropped. Only `tools/call` is timed, so `subscriptions/listen` (answered when its stream ends) never is.
 */
export function toolTimeouts(limits: Readonly<Record<string, number>>, start = startTimer): Middleware {
  return ({ method, params }, next) => {
    const { name } = params;
    if (method !== 'tools/call' || typeof name !== 'string' || !Object.hasOwn(limits, name)) return next();
    const ms = limits[name]!;
    let cancel = () => {};
    const deadline = new Promise((resolve) => {
      const text = `tool '${name}' timed out after ${ms} ms`;
      cancel = start(() => resolve({ content: [{ type: 'text', text }], isError: true }), ms);
    });
    return Promise.race([next(), deadline]).finally(() => cancel());
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Response cache for a read-only tool

/** cached's options. */
export interface ResultCacheOptions {
  /** Results held at most; past it, the least recently used goes. */
  maxEntries: number;
  /** Bytes held at most (keys and results as JSON); past it, the least recently used go; a larger result is not held. */
  maxBytes: number;
  /** How long a result is reused. */
  ttlMs: number;
  /** The clock, in ms. */
  now?: () => number;
}

/**
 * Wraps the handler of a read-only tool whose answer depends only on its arguments and the verified principal
 * (`ctx.auth`): a repeated call is answered from a bounded LRU cache keyed by both. A handler runs after the tool
 * lookup, its visibility and the argument checks, so a cached answer only reaches a request that passed them. Only a
 * complete result reached without client input is held: never an input_required, an `isError` result or a throw.
 */
export function cached<Args, Structured>(
  handler: ToolHandler<Args, Structured>,
  { maxEntries, maxBytes, ttlMs, now = Date.now }: ResultCacheOptions,
): ToolHandler<Args, Structured> {
  const entries = new Map<string, { json: string; bytes: number; expires: number }>();
  let held = 0;
  const drop = (key: string) => {
    held -= entries.get(key)!.bytes;
    entries.delete(key);
  };
  return async (args, ctx) => {
    // A round answering input (2026-07-28 retry, 2025 round trip) depends on that input, which the key leaves out.
    if (ctx.inputResponses !== undefined || ctx.requestState !== undefined) return handler(args, ctx);
    // Who asks, as far as a handler can tell: the verified principal; without a token, nobody in particular.
    const { auth } = ctx;
    const key = JSON.stringify([args, auth === undefined ? null : [auth.issuer, auth.subject, auth.clientId]]);
    const hit = entries.get(key);
    if (hit !== undefined) {
      drop(key);
      if (hit.expires > now()) {
        entries.set(key, hit); // now the most recently used
        held += hit.bytes;
        return JSON.parse(hit.json); // a copy: whatever is done to it leaves the cache as it was
      }
    }
    const result = await handler(args, ctx);
    if (result instanceof InputRequired || result.isError === true) return result;
    const json = JSON.stringify(result);
    const bytes = Buffer.byteLength(key) + Buffer.byteLength(json);
    if (bytes > maxBytes) return result;
    entries.set(key, { json, bytes, expires: now() + ttlMs });
    held += bytes;
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries && held <= maxBytes) break;
      drop(oldest);
    }
    return result;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The middleware on one server

/**
 * Installs the three middleware recipes around every request of `server`, in this order (the first outermost): the
 * audit log records what the others answer; the rate limit counts every served request, cache hits too (the cache is
 * in the handler, inside them all). `forecast` is the tool timed.
 */
export function useRecipes(
  server: Server,
  write: (record: AuditRecord) => void,
  now = Date.now,
  start = startTimer,
): Server {
  return server.intercept(
    auditLog(write, now),
    rateLimit({ limit: 60, windowMs: 60_000, maxClients: 10_000, now }),
    toolTimeouts({ forecast: 10_000 }, start),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Per-caller tool list

/** Whether a request's verified token carries the `admin` scope: only then is an admin tool listed and callable. */
export const isAdmin = (viewer: Viewer): boolean => viewer.auth?.scopes.includes('admin') === true;

/** Registers `purge`, an admin tool: to any other request it is exactly a tool that does not exist. */
export function addPurgeTool(server: Server, purge: () => number): Registration<ToolUpdate> {
  return server.tool('purge', { description: 'Empties the cache', visible: isAdmin }, () => ({
    content: [{ type: 'text', text: `purged ${purge()} entries` }],
  }));
}
