// Request tracing and error counts (docs/http-deployment.md, Metrics and tracing): the `mcp-core:request`
// TracingChannel, found through process.getBuiltinModule so no node: module is imported (off where there is none), one
// request's start and outcome events, bounded counters of answers by code. Owns one cached channel handle; never
// publishes without a subscriber, nor an unserved method under its own name (a subscriber's labels stay bounded).

import type { JsonRpcResponse } from './jsonrpc.ts';
import type { RequestTrace } from './types.ts';

/** The TracingChannel every served request is published on (public API: docs/http-deployment.md, Metrics and
 * tracing): `tracing:mcp-core:request:start`, `:end`, `:asyncStart`, `:asyncEnd` and `:error`. */
export const REQUEST_TRACING_CHANNEL = 'mcp-core:request';

/** What a request is traced under when the server serves no such method (not the core's, nor an extension's). */
const UNSERVED_METHOD = 'other';

/** The method a request is traced under (RequestTrace.method): whatever clients send, a bounded set of labels. */
export function tracedMethod(method: string, served: (method: string) => boolean): string {
  return served(method) ? method : UNSERVED_METHOD;
}

/** What tracing uses of one channel of a node:diagnostics_channel TracingChannel. */
interface TraceEventChannel {
  publish(message: unknown): void;
  runStores<T>(message: unknown, fn: () => T): T;
}

type TraceEvent = 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';

/** What tracing uses of a TracingChannel (declared here: the core imports no node: module, not even a type). */
export interface RequestTracingChannel extends Readonly<Record<TraceEvent, TraceEventChannel>> {
  readonly hasSubscribers: boolean;
}

/** The channel, looked up on first use (null until then), undefined without `process.getBuiltinModule` (Node < 20.16,
 * workerd without nodejs_compat): one cached immutable handle, module-level state docs/design.md allows. */
let tracingChannel: RequestTracingChannel | undefined | null = null;

/** The request TracingChannel, or undefined where the runtime has none. */
export function requestTracing(): RequestTracingChannel | undefined {
  if (tracingChannel !== null) return tracingChannel;
  try {
    const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
    const channels = process?.getBuiltinModule?.('node:diagnostics_channel') as
      | { tracingChannel?(name: string): RequestTracingChannel }
      | undefined;
    tracingChannel = channels?.tracingChannel?.(REQUEST_TRACING_CHANNEL);
  } catch {
    tracingChannel = undefined;
  }
  return tracingChannel;
}

/** Runs `serve` with the `start` stores active (an AsyncLocalStorage bound to it follows the handler), publishing
 * `start` and `end` as `traceSync` does; `eraNow` reads the era the request may just have decided. */
export function traceRequest<T>(
  tracing: RequestTracingChannel,
  trace: RequestTrace,
  serve: () => T,
  eraNow: () => RequestTrace['era'],
): T {
  return tracing.start.runStores(trace, () => {
    try {
      return serve();
    } finally {
      trace.era = eraNow();
      tracing.end.publish(trace);
    }
  });
}

/** A traced request's outcome, published as `tracePromise` does: `error` (outcome 'error' only), `asyncStart`,
 * `asyncEnd`. Without a `response` it ended `unanswered`; `thrown` is what the handler threw. */
export function traceOutcome(
  trace: RequestTrace,
  response: JsonRpcResponse | undefined,
  unanswered: 'cancelled' | 'abandoned',
  thrown?: unknown,
): void {
  const tracing = tracingChannel!;
  if (response === undefined) trace.outcome = unanswered;
  else if ('error' in response) {
    trace.outcome = 'error';
    trace.errorCode = response.error.code;
    trace.error = thrown;
    tracing.error.publish(trace);
  } else {
    trace.outcome = 'result';
    trace.result = response.result;
  }
  tracing.asyncStart.publish(trace);
  tracing.asyncEnd.publish(trace);
}

/** How many distinct error codes ErrorCounts keeps apart; the rest count under 'other'. */
const MAX_ERROR_CODES = 64;

/** Bounded counts by integer code: a server's error answers by JSON-RPC code (ServerMetrics.errors), or an HTTP
 * handler's 4xx and 5xx answers by status (HttpMetrics.httpErrors). */
export class ErrorCounts {
  readonly #counts = new Map<number, number>();
  #other = 0;

  /** One answer with `code`; a code that is not an integer, or a new one past MAX_ERROR_CODES, counts as 'other'. */
  add(code: unknown): void {
    const integer = typeof code === 'number' && Number.isSafeInteger(code);
    if (integer && (this.#counts.has(code) || this.#counts.size < MAX_ERROR_CODES))
      this.#counts.set(code, (this.#counts.get(code) ?? 0) + 1);
    else this.#other++;
  }

  /** The counts as a plain object keyed by code ('-32601'), plus 'other' when anything folded into it. */
  snapshot(): Record<string, number> {
    const snapshot: Record<string, number> = {};
    for (const [code, count] of this.#counts) snapshot[String(code)] = count;
    if (this.#other > 0) snapshot.other = this.#other;
    return snapshot;
  }
}
