// The recipes of docs/api.md (Recipes: middleware and visibility), each a piece an author copies: a rate limit per
// principal, an audit log, a response cache for read-only tools, a per-tool timeout (middleware: server.intercept),
// and a per-caller tool list (visibility: a definition's `visible`). test/recipes.test.ts drives each at the wire.
// Every table here has a bound and a defined behaviour when full; the clocks and timers are parameters for the tests.
import { Buffer } from 'node:buffer';
import {
  ErrorCode,
  InputRequired,
  type Middleware,
  ProtocolError,
  type Registration,
  type Server,
  type ToolUpdate,
  type Viewer,
} from '../core.ts';

// ---------------------------------------------------------------------------------------------------------------
// Rate limit per principal

/**
 * The code of a refused request other than `tools/call`: JSON-RPC 2.0 (5.1, Error object) leaves -32000 to -32099 to
 * the server's own errors, and the core never emits -32000 (docs/eras.md, Error codes), so a client can tell it apart.
 */
export const RATE_LIMITED = -32000;

/** rateLimit's options: at most `limit` requests per principal in each fixed window of `windowMs`. */
export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Principals tracked at once; a new one past it evicts the window that started first. */
  maxPrincipals: number;
  /** The clock, in ms. */
  now?: () => number;
}

/**
 * Counts each principal's requests (`ctx.caller`) in fixed windows: past `limit`, a `tools/call` gets an `isError`
 * result the model can read, any other request the RATE_LIMITED error, both saying when to retry.
 */
export function rateLimit({ limit, windowMs, maxPrincipals, now = Date.now }: RateLimitOptions): Middleware {
  // Kept in the order the windows started, so the first entry is always the oldest window.
  const windows = new Map<string, { start: number; count: number }>();
  return (call, next) => {
    const time = now();
    const caller = call.ctx.caller;
    let window = windows.get(caller);
    if (window === undefined || time - window.start >= windowMs) {
      windows.delete(caller);
      // Ended windows go first; a table still full drops the oldest window, whose principal starts afresh.
      for (const [other, open] of windows) {
        if (windows.size < maxPrincipals && time - open.start < windowMs) break;
        windows.delete(other);
      }
      window = { start: time, count: 0 };
      windows.set(caller, window);
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
// Response cache for read-only tools

/** cacheResults' options. */
export interface ResultCacheOptions {
  /** The tools whose results are reused: read-only ones (`annotations.readOnlyHint`), whose calls change nothing. */
  tools: ReadonlySet<string>;
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
 * Answers a repeated `tools/call` of a read-only tool from a bounded LRU cache, keyed by tool, arguments, caller and
 * protocol version (results are shaped per version). Only a complete result reached without client input is held:
 * never an input_required, an `isError` result, or a task.
 */
export function cacheResults({ tools, maxEntries, maxBytes, ttlMs, now = Date.now }: ResultCacheOptions): Middleware {
  const entries = new Map<string, { json: string; bytes: number; expires: number }>();
  let held = 0;
  const drop = (key: string) => {
    held -= entries.get(key)!.bytes;
    entries.delete(key);
  };
  return async ({ method, params, ctx }, next) => {
    const { name } = params;
    if (method !== 'tools/call' || typeof name !== 'string' || !tools.has(name)) return next();
    // A 2026-07-28 retry's answer depends on the input it carries, which the key leaves out.
    if (ctx.inputResponses !== undefined || ctx.requestState !== undefined) return next();
    const key = JSON.stringify([name, params.arguments ?? {}, ctx.caller, ctx.protocolVersion]);
    const hit = entries.get(key);
    if (hit !== undefined) {
      drop(key);
      if (hit.expires > now()) {
        entries.set(key, hit); // now the most recently used
        held += hit.bytes;
        return JSON.parse(hit.json); // a copy: whatever is done to it leaves the cache as it was
      }
    }
    const result = await next();
    const complete = result as { content?: unknown; isError?: unknown };
    // A 2025 handler that asked the client for input (ctx.inputResponses) answered for that input only.
    if (!Array.isArray(complete.content) || complete.isError === true || ctx.inputResponses !== undefined)
      return result;
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
// All four on one server

/**
 * Installs the four middleware recipes around every request of `server`, in this order (the first outermost): the
 * audit log records what the others answer; the rate limit counts cache hits too; the cache answers a hit before a
 * timer starts. `forecast` is the read-only tool cached and timed.
 */
export function useRecipes(
  server: Server,
  write: (record: AuditRecord) => void,
  now = Date.now,
  start = startTimer,
): Server {
  return server.intercept(
    auditLog(write, now),
    rateLimit({ limit: 60, windowMs: 60_000, maxPrincipals: 10_000, now }),
    cacheResults({ tools: new Set(['forecast']), maxEntries: 1000, maxBytes: 8 * 1024 * 1024, ttlMs: 60_000, now }),
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
