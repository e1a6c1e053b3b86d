// OpenTelemetry spans for served requests (`mcp-core/otel`, docs/http-deployment.md, Metrics and tracing), following
// the OpenTelemetry semantic conventions for MCP (server spans): the `mcp-core:request` TracingChannel opens and ends
// one SERVER span per request, and the middleware names its target and makes it the handler's active context. Owns
// its subscription and the spans open now; imports nothing of OpenTelemetry, and never lets a tracer's throw out.

import { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import {
  ErrorCode,
  type Logger,
  type Middleware,
  ProtocolError,
  REQUEST_TRACING_CHANNEL,
  type RequestTrace,
  type TraceContext,
} from '../core.ts';
import { INTERNAL_ERROR } from '../jsonrpc.ts';

/** An OpenTelemetry `Context`, opaque here: it only goes back to the API that made it. */
interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** An OpenTelemetry `SpanContext`: what a link points at. */
interface OtelSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** What the add-on calls on a span of the user's tracer (OpenTelemetry's `Span`). */
export interface OtelSpan {
  setAttribute(key: string, value: string): unknown;
  updateName(name: string): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error): unknown;
  end(): unknown;
}

/** The user's tracer (OpenTelemetry's `Tracer`, e.g. `api.trace.getTracer('my-server')`). */
export interface OtelTracer {
  startSpan(
    name: string,
    options: { kind: number; attributes: Record<string, string>; links?: { context: OtelSpanContext }[] },
    context: OtelContext,
  ): OtelSpan;
}

/** What the add-on uses of the user's `@opentelemetry/api` module (pass the module itself). */
export interface OtelApi {
  readonly context: { active(): OtelContext; with<T>(context: OtelContext, fn: () => T): T };
  readonly propagation: { extract(context: OtelContext, carrier: TraceContext): OtelContext };
  readonly trace: {
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpanContext(context: OtelContext): OtelSpanContext | undefined;
  };
  readonly ROOT_CONTEXT: OtelContext;
  readonly SpanKind: { readonly SERVER: number };
  readonly SpanStatusCode: { readonly ERROR: number };
}

/** What `traceWithOpenTelemetry` takes. */
export interface OpenTelemetryOptions {
  /** The tracer the spans are started on. */
  tracer: OtelTracer;
  /** The `@opentelemetry/api` module whose context manager and propagator the tracer works with. */
  api: OtelApi;
  /** Where a throw of the tracer, its spans or the API is reported (default: stderr); it never reaches a request. */
  logger?: Pick<Logger, 'error'>;
}

/** The add-on's handle: the middleware to `server.intercept()`, and `close()`. */
export interface OpenTelemetryTracing {
  /** Names each span's tool, prompt or resource, session and protocol version, and runs the handler in its context. */
  readonly middleware: Middleware;
  /** Stops tracing: no new spans; the spans still open are ended as they stand. */
  close(): void;
}

/** One request's span while it is open. */
interface OpenSpan {
  readonly trace: RequestTrace;
  readonly span: OtelSpan;
  /** The parent context with the span set: the handler's active context (undefined if the API failed to make it). */
  readonly context: OtelContext | undefined;
  /** The tool or prompt name the span is renamed after when the request ends in a result. */
  target?: string;
}

/** The network attributes of each transport (conventions: `network.transport` is pipe on stdio, tcp under HTTP). */
const NETWORK = new Map<string | undefined, Readonly<Record<string, string>>>([
  ['stdio', { 'network.transport': 'pipe' }],
  ['http', { 'network.transport': 'tcp', 'network.protocol.name': 'http' }],
]);

/** The attribute a method's named target goes under. */
const TARGETS = new Map([
  ['tools/call', 'gen_ai.tool.name'],
  ['prompts/get', 'gen_ai.prompt.name'],
]);

/** The methods whose `uri` param the conventions record as `mcp.resource.uri`. */
const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);

/** The codes of a request the server could not serve as sent, which the conventions' server status codes do not count
 * as errors: parse error, invalid request, method not found, invalid params (an unknown tool too), resource not found. */
const CALLER_ERRORS = new Set<number>([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
  ErrorCode.ResourceNotFound,
]);

/** The default logger: one line on stderr (stdout may be a stdio server's protocol stream). */
const stderr: Pick<Logger, 'error'> = { error: (message, error) => console.error(message, error) };

/**
 * Traces every request the servers of this process serve as an OpenTelemetry SERVER span named after its method,
 * refusals included; `server.intercept(middleware)` adds what only the served request knows. One per process: each
 * one subscribes to the process-wide channel.
 */
export function traceWithOpenTelemetry(options: OpenTelemetryOptions): OpenTelemetryTracing {
  const { tracer, api, logger = stderr } = options;
  const channel = tracingChannel<OpenSpan | undefined, RequestTrace>(REQUEST_TRACING_CHANNEL);
  const store = new AsyncLocalStorage<OpenSpan | undefined>();
  /** The spans open now, by the request's trace context: one per request in flight, removed at its outcome. */
  const open = new Map<RequestTrace, OpenSpan>();

  /** Runs one call into OpenTelemetry; a throw is logged, never rethrown (diagnostics_channel would make it an
   * uncaught exception, and a request must not fail for its telemetry). */
  const attempt = <T>(what: string, call: () => T): T | undefined => {
    try {
      return call();
    } catch (error) {
      logger.error(`mcp-core/otel: ${what} failed`, error);
      return undefined;
    }
  };

  /** The `start` store's transform: the request's span, its parent the W3C context of `params._meta` (the ambient
   * context then a link, as the conventions ask), else the ambient context. */
  const start = (trace: RequestTrace): OpenSpan | undefined => {
    let parent: OtelContext | undefined;
    const span = attempt('starting a span', () => {
      const ambient = api.context.active();
      const carried = trace.trace === undefined ? undefined : api.propagation.extract(api.ROOT_CONTEXT, trace.trace);
      const remote = carried !== undefined && api.trace.getSpanContext(carried) !== undefined;
      parent = remote ? carried : ambient;
      const linked = remote ? api.trace.getSpanContext(ambient) : undefined;
      const attributes = {
        'mcp.method.name': trace.method,
        'jsonrpc.request.id': String(trace.requestId),
        ...NETWORK.get(trace.transport),
      };
      const kind = api.SpanKind.SERVER;
      return tracer.startSpan(trace.method, { kind, attributes, links: linked && [{ context: linked }] }, parent);
    });
    if (span === undefined) return undefined;
    const context = attempt('activating a span', () => api.trace.setSpan(parent!, span));
    const opened: OpenSpan = { trace, span, context };
    open.set(trace, opened);
    return opened;
  };

  /** The `asyncEnd` subscriber: records the outcome as the conventions say and ends the span. */
  const finish = (message: unknown): void => {
    const trace = message as RequestTrace;
    const opened = open.get(trace);
    if (opened === undefined) return; // it started before this add-on, or its span did not start
    open.delete(trace);
    attempt('ending a span', () => {
      const { span, target } = opened;
      try {
        let type: string | undefined;
        let status: string | undefined;
        if (trace.outcome === 'error') {
          const code = String(trace.errorCode);
          span.setAttribute('rpc.response.status_code', code);
          const { error } = trace;
          if (!CALLER_ERRORS.has(trace.errorCode!)) {
            type = code;
            status = error instanceof ProtocolError ? error.message : INTERNAL_ERROR.message; // as the answer says
          }
          if (error instanceof Error && !(error instanceof ProtocolError)) span.recordException(error);
        } else if (trace.outcome === 'result') {
          // Only a result proves the name is one the server serves: a client's invented one stays out of span names.
          if (target !== undefined) span.updateName(`${trace.method} ${target}`);
          if (trace.method === 'tools/call' && (trace.result as { isError?: unknown }).isError === true)
            type = 'tool_error';
        } else type = trace.outcome; // cancelled by the client, or abandoned (the connection closed first)
        if (type !== undefined) {
          span.setAttribute('error.type', type);
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: status });
        }
      } finally {
        span.end();
      }
    });
  };

  const middleware: Middleware = (call, next) => {
    const opened = store.getStore();
    // A request held behind a slow onInitialize is replayed in the initialize's context, whose span has ended: it
    // keeps its own span, without the attributes below.
    if (opened === undefined || open.get(opened.trace) !== opened) return next();
    const { method, params, ctx } = call;
    attempt('describing a span', () => {
      const attributes: [string, unknown][] = [
        ['mcp.protocol.version', ctx.protocolVersion],
        ['mcp.session.id', ctx.http?.headers['mcp-session-id']],
        ['client.address', ctx.http?.remoteAddress],
      ];
      const key = TARGETS.get(method);
      if (key !== undefined && typeof params.name === 'string') {
        opened.target = params.name;
        attributes.push([key, params.name]);
        if (method === 'tools/call') attributes.push(['gen_ai.operation.name', 'execute_tool']);
      }
      if (RESOURCE_METHODS.has(method)) attributes.push(['mcp.resource.uri', params.uri]);
      for (const [name, value] of attributes) if (typeof value === 'string') opened.span.setAttribute(name, value);
    });
    if (opened.context === undefined) return next();
    let answer: Promise<unknown> | undefined;
    try {
      return api.context.with(opened.context, () => (answer = next()));
    } catch (error) {
      logger.error('mcp-core/otel: entering a span context failed', error);
      return answer ?? next();
    }
  };

  channel.start.bindStore(store, start);
  channel.asyncEnd.subscribe(finish);
  return {
    middleware,
    close() {
      channel.start.unbindStore(store);
      channel.asyncEnd.unsubscribe(finish);
      for (const { span } of open.values()) attempt('ending a span', () => span.end());
      open.clear();
    },
  };
}
