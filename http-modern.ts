// The sessionless 2026-07-28 POST over HTTP (2026-07-28 transports, Streamable HTTP): the envelope, routing-header
// and Accept checks in the order the spec reports them, then one connection for the one request, answered as one
// JSON body or as an SSE stream. Closing the response is this era's cancellation. Owns the running modern
// exchanges (close() drains them); never touches a 2025 session.

import type { Connection, Server } from './core.ts';
import { NO_BACK_CHANNEL } from './dispatcher.ts';
import { readEnvelope } from './era.ts';
import { JsonText, extrasOf, type EventSink, type Reply } from './exchange.ts';
import { shuttingDown } from './http-guard.ts';
import { accepted, checkParamHeaders, checkRoutingHeaders } from './http-headers.ts';
import { ErrorCode, errorResponse, type JsonRpcMessage, type JsonRpcResponse, type ProtocolError, type RequestId } from './jsonrpc.ts';
import { formatEvent } from './sse.ts';

/** An endpoint's budget of long-lived SSE streams (listens here, and 2025 GET streams). */
export class StreamBudget {
  readonly #max: number;
  #open = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get full(): boolean {
    return this.#open >= this.#max;
  }

  /** Answers with an SSE stream; a `counted` one holds a place in the budget until it closes. */
  open(reply: Reply, counted: boolean, headers?: Record<string, string>): EventSink {
    const sink = reply.stream(headers);
    if (counted) {
      this.#open++;
      sink.onClose(() => this.#open--);
    }
    return sink;
  }
}

function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return 'id' in message && !('method' in message);
}

/** The 2026-07-28 exchanges of one HTTP endpoint. */
export class ModernExchanges {
  readonly #server: Server;
  readonly #streams: StreamBudget;
  /** Each running exchange's connection, with the way to end its HTTP response when the endpoint closes. */
  readonly #running = new Map<Connection, () => void>();

  constructor(server: Server, streams: StreamBudget) {
    this.#server = server;
    this.#streams = streams;
  }

  /** Running requests get `windowMs` to finish, listens end with their final result; then every response ends. */
  drain(windowMs: number): Promise<void>[] {
    const drained = [...this.#running].map(([connection, end]) => connection.drain(windowMs).then(end));
    this.#running.clear();
    return drained;
  }

  /** The sessionless modern ladder (2026-07-28 transports, Streamable HTTP), then one connection for this one request. */
  post(message: JsonRpcMessage, id: RequestId | null, reply: Reply): void {
    const { headers } = reply;
    const { method, params = {} } = message as { method: string; params?: Record<string, unknown> };
    try {
      readEnvelope(params);
    } catch (failure) {
      reply.send(400, errorResponse(id, (failure as ProtocolError).toJSON()));
      return;
    }
    if (id === null) {
      reply.send(202); // 2026-07-28 HTTP defines no client notifications; a cancel is a disconnect
      return;
    }
    const mismatch = checkRoutingHeaders(headers, method, params);
    if (mismatch !== undefined) {
      reply.send(400, errorResponse(id, { code: ErrorCode.HeaderMismatch, message: mismatch }));
      return;
    }
    const { json, sse } = accepted(headers);
    const listen = method === 'subscriptions/listen';
    if ((!json && !sse) || (listen && !sse)) {
      reply.send(406, errorResponse(id, { code: ErrorCode.InvalidRequest, message: 'Not Acceptable: Accept must admit application/json or text/event-stream' }));
      return;
    }
    let sink: EventSink | undefined;
    const connection = this.#server.connect({
      era: 'modern',
      extras: extrasOf(reply),
      send: (frame) => {
        if (Array.isArray(frame)) return;
        if (isResponse(frame)) {
          const text = JSON.stringify(frame); // first: a result that cannot be serialized changes nothing here
          const code = 'error' in frame ? frame.error.code : 0;
          const status = code === ErrorCode.MethodNotFound ? 404 : code === ErrorCode.MissingRequiredClientCapability ? 400 : 200;
          // A client that accepts only text/event-stream gets its 200 answer as a one-event stream.
          if (sink === undefined && !json && status === 200 && !reply.answered) sink = this.#streams.open(reply, listen);
          if (sink !== undefined) {
            sink.send(formatEvent(text));
            sink.end();
          } else if (!reply.answered) {
            reply.send(status, new JsonText(text));
          }
          this.#running.delete(connection);
          connection.close();
          return;
        }
        if (sink === undefined && sse && !reply.answered) sink = this.#streams.open(reply, listen);
        sink?.send(formatEvent(JSON.stringify(frame)));
      },
      noBackChannel: () => NO_BACK_CHANNEL,
    });
    try {
      connection.preflightModern(method, params);
    } catch (failure) {
      connection.close();
      const refusal = (failure as ProtocolError).toJSON();
      reply.send(refusal.code === ErrorCode.MethodNotFound ? 404 : 400, errorResponse(id, refusal));
      return;
    }
    const tool = method === 'tools/call' ? connection.modernTool(params.name) : undefined;
    if (tool !== undefined && tool.headerParams.length > 0) {
      const args = typeof params.arguments === 'object' && params.arguments !== null ? params.arguments : {};
      const paramMismatch = checkParamHeaders(headers, tool.headerParams, args as Record<string, unknown>);
      if (paramMismatch !== undefined) {
        connection.close();
        reply.send(400, errorResponse(id, { code: ErrorCode.HeaderMismatch, message: paramMismatch }));
        return;
      }
    }
    if (listen && this.#streams.full) {
      connection.close();
      reply.send(503, errorResponse(id, { code: ErrorCode.InternalError, message: 'Too many open streams' }));
      return;
    }
    this.#running.set(connection, () => {
      if (sink !== undefined) sink.end();
      else if (!reply.answered) reply.send(503, shuttingDown(id));
    });
    // Closing the response is this era's cancellation: the handler is aborted and nothing more is written.
    reply.onAbort(() => {
      this.#running.delete(connection);
      connection.close();
    });
    connection.receive(message);
  }
}
