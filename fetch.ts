// Streamable HTTP as a Web-standard handler, `(Request) => Promise<Response>`, for Deno.serve, Bun.serve and Workers:
// the transport-neutral core (http/http-core.ts) over a Reply of Web APIs only (JSON bodies; SSE as a ReadableStream
// whose cancellation is the client leaving). 2025 sessions are off by default (they need one long-lived process). Nothing
// it loads imports a node: built-in, so it runs in a Worker without Node compatibility (test/workerd.test.ts).

import type { Server } from './core.ts';
import {
  DEFAULT_MAX_BODY,
  type EventSink,
  type HeaderBag,
  jsonText,
  PAYLOAD_TOO_LARGE,
  type Reply,
} from './http/exchange.ts';
import { HttpCore, type HttpMetrics, type HttpOptions } from './http/http-core.ts';
import { CloseListeners, KEEP_ALIVE, keepAliveOf, SSE_HEADERS } from './http/sse.ts';
import { ErrorCode, errorResponse } from './jsonrpc.ts';
import type { ErrorCounts } from './tracing.ts';
import type { AuthInfo, HttpRequestInfo } from './types.ts';

export type { HttpMetrics, HttpOptions } from './http/http-core.ts';
export type { AuthOptions, ProtectedResourceMetadata } from './http/http-guard.ts';
export type { GetStreamHolder, SessionRecord, SharedSessionStore } from './http/shared-sessions.ts';

/**
 * The options of the node:http adapter, with one different default: `sessions` is false, so 2025 requests are
 * served statelessly (no initialize, no session id). Set `sessions: true` only where one process serves every
 * request of a client (a single Deno or Bun server), never on an edge runtime that may spread them over isolates.
 */
export type FetchHandlerOptions = HttpOptions;

/** What the runtime knows about the peer, which a Request does not carry (e.g. Deno's `info.remoteAddr.hostname`). */
export interface FetchRequestInfo {
  remoteAddress?: string;
}

/** The MCP endpoint as a Fetch API handler (Request in, Response out) for Deno, Bun and edge runtimes. */
export interface FetchHandler {
  /** Serves one request; `info.remoteAddress` reaches handlers as `ctx.http.remoteAddress`. */
  (request: Request, info?: FetchRequestInfo): Promise<Response>;
  /**
   * Refuses every new request (503) and ends every session, stream and running request the handler holds: running
   * requests get `drainWindowMs` (2 s) to finish. Resolves within the window.
   */
  close(drainWindowMs?: number): Promise<void>;
  readonly sessionCount: number;
  /** The server's metrics snapshot plus this handler's sessions and open SSE streams (HttpMetrics). */
  metrics(): HttpMetrics;
}

const UNREADABLE = errorResponse(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Bad Request: the body could not be read',
});
/** `connection` is a hop-by-hop header the runtime owns (and HTTP/2 forbids): not set by a fetch handler. */
const STREAM_HEADERS: Record<string, string> = Object.fromEntries(
  Object.entries(SSE_HEADERS).filter(([name]) => name !== 'connection'),
);
const encoder = new TextEncoder();

/**
 * An SSE response body. The consumer cancelling the stream (a client that went away, or `response.body.cancel()`)
 * closes the sink and calls `onCancel`; end() closes the stream after what is queued. Keep-alive comments every
 * `keepAliveMs` (0: none) while the consumer keeps up.
 */
class StreamSink implements EventSink {
  readonly readable: ReadableStream<Uint8Array>;
  readonly #closeListeners = new CloseListeners();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(keepAliveMs: number, onCancel: () => void) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => {
          if (this.#closed) return; // ended by the server: what is left was already its whole answer
          this.#close();
          onCancel();
        },
      },
      { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
    );
    if (keepAliveMs > 0) {
      this.#timer = setInterval(() => {
        if ((this.#controller.desiredSize ?? 0) > 0) this.send(KEEP_ALIVE);
      }, keepAliveMs);
      (this.#timer as { unref?: () => void }).unref?.(); // node and Bun: a stream alone keeps no process alive
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Queues one event; false when the consumer is behind (the queue is past its high-water mark) or gone. */
  send(text: string): boolean {
    if (this.#closed) return false;
    this.#controller.enqueue(encoder.encode(text));
    return (this.#controller.desiredSize ?? 0) > 0;
  }

  end(): void {
    if (this.#closed) return;
    try {
      this.#close();
    } finally {
      this.#controller.close();
    }
  }

  onClose(listener: () => void): void {
    this.#closeListeners.add(listener);
  }

  #close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#closeListeners.call();
  }
}

/**
 * One fetch exchange as the core sees it. `response` settles with the first answer; the exchange counts as
 * aborted when the consumer cancels its stream, or the request's signal aborts, before the server completed it.
 */
class FetchReply implements Reply {
  readonly headers: HeaderBag;
  readonly http: HttpRequestInfo;
  auth: AuthInfo | undefined;
  cors: Record<string, string> | undefined;
  readonly response: Promise<Response>;
  readonly #keepAliveMs: number;
  readonly #statuses: ErrorCounts;
  readonly #abortListeners: (() => void)[] = [];
  #resolve!: (response: Response) => void;
  #sink: StreamSink | undefined;
  #answered = false;
  #aborted = false;

  constructor(
    request: Request,
    headers: Record<string, string>,
    remoteAddress: string | undefined,
    keepAliveMs: number,
    statuses: ErrorCounts,
  ) {
    this.headers = headers;
    this.#statuses = statuses;
    const own = { ...headers }; // handlers get their own copy
    this.http = remoteAddress === undefined ? { headers: own } : { headers: own, remoteAddress };
    this.#keepAliveMs = keepAliveMs;
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    if (request.signal.aborted) this.abort();
    else request.signal.addEventListener('abort', () => this.abort(), { once: true });
  }

  get answered(): boolean {
    return this.#answered;
  }

  send(status: number, body?: unknown, headers?: Record<string, string>): void {
    if (this.#answered) return;
    const text = body === undefined ? undefined : jsonText(body); // may throw: before the exchange counts as answered
    this.#answered = true;
    if (status >= 400) this.#statuses.add(status);
    if (text === undefined) {
      // Object.assign, not spreads: on Node 20 a spread copy that then gains keys costs about 5 µs (bench/README.md).
      this.#resolve(new Response(null, { status, headers: Object.assign({}, headers, this.cors) }));
      return;
    }
    this.#resolve(
      new Response(text, {
        status,
        headers: Object.assign({}, headers, this.cors, { 'content-type': 'application/json' }),
      }),
    );
  }

  stream(headers?: Record<string, string>): EventSink {
    this.#answered = true;
    const sink = new StreamSink(this.#keepAliveMs, () => this.#fireAbort());
    this.#sink = sink;
    this.#resolve(
      new Response(sink.readable, { status: 200, headers: Object.assign({}, STREAM_HEADERS, headers, this.cors) }),
    );
    return sink;
  }

  onAbort(listener: () => void): void {
    if (this.#aborted) listener();
    else this.#abortListeners.push(listener);
  }

  /**
   * The client is gone (the request's signal aborted): an answer still owed settles the response with an empty
   * 400 nobody reads, so the runtime is never left waiting; a stream stops; the core is told unless it had finished.
   */
  abort(): void {
    if (!this.#answered) {
      this.#answered = true;
      this.#resolve(new Response(null, { status: 400 }));
      this.#fireAbort();
    } else if (this.#sink !== undefined && !this.#sink.closed) {
      this.#sink.end(); // nothing more is queued for a client that is gone
      this.#fireAbort();
    }
  }

  #fireAbort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    for (const listener of this.#abortListeners.splice(0)) listener();
  }
}

/** Request headers as a bag with lowercase names (a Request has no `host` header of its own: its URL's is used). */
function headerBag(request: Request, url: URL): Record<string, string> {
  const bag: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    bag[name] = value;
  });
  bag.host ??= url.host;
  return bag;
}

/** The body's bytes, or undefined when it passes `limit` bytes (counted as it arrives, whatever Content-Length says). */
async function readBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length')) > limit) {
    discard(request);
    return undefined;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A body nobody will read. */
function discard(request: Request): void {
  if (request.body !== null && !request.bodyUsed && !request.body.locked) request.body.cancel().catch(() => {});
}

/**
 * The MCP endpoint as a fetch handler: both eras on one endpoint, modern requests sessionless, 2025 requests
 * stateless unless `sessions: true`. The same checks as the node:http adapter (Host, Origin, path, limits, CORS).
 *
 * ```ts
 * const handle = createFetchHandler(server);
 * Deno.serve((request, info) => handle(request, { remoteAddress: info.remoteAddr.hostname }));
 * ```
 */
export function createFetchHandler(server: Server, options: FetchHandlerOptions = {}): FetchHandler {
  const core = new HttpCore(server, { ...options, sessions: options.sessions ?? false });
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const keepAliveMs = keepAliveOf(options.keepAliveMs);
  const handler = async (request: Request, info: FetchRequestInfo = {}): Promise<Response> => {
    const url = new URL(request.url);
    const reply = new FetchReply(request, headerBag(request, url), info.remoteAddress, keepAliveMs, core.httpErrors);
    const method = request.method;
    if (!core.admit(method, url.pathname, reply)) {
      discard(request);
      return reply.response;
    }
    if (method !== 'POST') {
      discard(request);
      core.sessionRequest(method as 'GET' | 'DELETE', reply);
      return reply.response;
    }
    let body: Uint8Array | undefined;
    try {
      body = await readBody(request, maxBody);
    } catch {
      reply.send(400, UNREADABLE); // an aborted request has already settled its response; this is then a no-op
      return reply.response;
    }
    if (body === undefined) reply.send(413, PAYLOAD_TOO_LARGE);
    else core.post(body, reply);
    return reply.response;
  };
  return core.expose(handler);
}
