// Streamable HTTP on node:http: createHttpHandler() gives a `(req, res)` handler to mount in any node:http server
// (and so express, fastify, …), serveHttp() listens on its own (127.0.0.1 by default) with bounded timeouts and a
// bounded close(). This adapter reads bodies under the size limit (or takes one a framework already parsed) and maps
// node's request/response onto the core's Reply; all MCP logic is in http/http-core.ts. Uses documented node APIs only.

import type { IncomingMessage, Server as NodeServer, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Server } from './core.ts';
import {
  DEFAULT_MAX_BODY,
  type EventSink,
  first,
  type HeaderBag,
  jsonText,
  PAYLOAD_TOO_LARGE,
  type Reply,
} from './http/exchange.ts';
import { HttpCore, type HttpMetrics, type HttpOptions } from './http/http-core.ts';
import { SSE_HEADERS, SseWriter } from './http/sse.ts';
import type { AuthInfo, HttpRequestInfo } from './types.ts';

export type { HttpMetrics, HttpOptions } from './http/http-core.ts';
export type { AuthOptions, ProtectedResourceMetadata } from './http/http-guard.ts';
export type { GetStreamHolder, SessionRecord, SharedSessionStore } from './http/shared-sessions.ts';
export { type EventStore, MemoryEventStore } from './http/sse.ts';

/** What handlers see of the request (`ctx.http`); node builds the joined header object only if one reads it. */
class NodeRequestInfo implements HttpRequestInfo {
  readonly #request: IncomingMessage;

  constructor(request: IncomingMessage) {
    this.#request = request;
  }

  get headers(): IncomingMessage['headers'] {
    return this.#request.headers;
  }

  get remoteAddress(): string | undefined {
    return this.#request.socket?.remoteAddress;
  }
}

/** One node:http exchange as the core sees it. Once the core is closing, answers close their connection. */
class NodeReply implements Reply {
  readonly headers: HeaderBag;
  readonly http: HttpRequestInfo;
  auth: AuthInfo | undefined;
  cors: Record<string, string> | undefined;
  readonly #response: ServerResponse;
  readonly #keepAliveMs: number | undefined;
  readonly #core: HttpCore;
  #answered = false;
  /** Takes the body reader's listeners off the request, once a stream keeps it open (readBody). */
  #releaseBody: (() => void) | undefined;

  constructor(request: IncomingMessage, response: ServerResponse, keepAliveMs: number | undefined, core: HttpCore) {
    this.headers = headerBag(request);
    this.http = new NodeRequestInfo(request);
    this.#response = response;
    this.#keepAliveMs = keepAliveMs;
    this.#core = core;
  }

  /** `Connection: close` once the core is closing: the client sends nothing more on this socket. */
  #closing(): Record<string, string> | undefined {
    return this.#core.closing ? { connection: 'close' } : undefined;
  }

  /** Also once the client is gone: nothing can answer it any more (as a fetch exchange whose request aborted). */
  get answered(): boolean {
    return this.#answered || this.#response.destroyed;
  }

  send(status: number, body?: unknown, headers?: Record<string, string>): void {
    if (this.answered) return;
    const text = body === undefined ? '' : jsonText(body); // may throw: before the exchange counts as answered
    this.#answered = true;
    if (status >= 400) this.#core.httpErrors.add(status);
    // Object.assign, not a spread: on Node 20 a spread copy that then gains keys costs about 5 µs (bench/README.md).
    const head: Record<string, string | number> = Object.assign({}, headers, this.cors);
    if (this.#core.closing) head.connection = 'close';
    if (body !== undefined) head['content-type'] = 'application/json';
    head['content-length'] = Buffer.byteLength(text);
    this.#response.writeHead(status, head);
    this.#response.end(text);
  }

  /** Runs `release` if this exchange's answer becomes a stream (readBody: an ended body's listeners). */
  releaseOnStream(release: () => void): void {
    this.#releaseBody = release;
  }

  stream(headers?: Record<string, string>): EventSink {
    this.#answered = true;
    this.#releaseBody?.();
    this.#releaseBody = undefined;
    this.#response.writeHead(200, Object.assign({}, SSE_HEADERS, headers, this.cors, this.#closing()));
    this.#response.flushHeaders();
    return new SseWriter(this.#response, { keepAliveMs: this.#keepAliveMs });
  }

  onAbort(listener: () => void): void {
    // `on`, not `once`: a response closes once, and `once` would wrap the listener in two more objects.
    this.#response.on('close', () => {
      if (!this.#response.writableFinished) listener();
    });
  }
}

/**
 * The request's headers with repeated ones visible: node's joined object (which node builds for itself anyway) when
 * it holds one name per raw header line, else the distinct values (node joins some repeats with ", " and drops others).
 */
function headerBag(request: IncomingMessage): HeaderBag {
  const joined = request.headers;
  let names = 0;
  for (const _ in joined) names++;
  return names * 2 === request.rawHeaders.length ? joined : (request.headersDistinct as HeaderBag);
}

/** The node:http request handler createHttpHandler() returns (usable as express middleware too). */
export interface HttpHandler {
  /**
   * Serves one exchange. A body a framework already read is used instead of the request stream: `body` when given
   * (not a function: express passes `next` there), else `request.body` (express.json(), express.text(), …). A parsed
   * object or array is taken as is; a string or Buffer is held to maxBodyBytes and parsed here.
   */
  (request: IncomingMessage, response: ServerResponse, body?: unknown): void;
  /**
   * Refuses every new request (503, `Connection: close`) and ends every session and stream the handler holds:
   * running requests get `drainWindowMs` (2 s) to finish. Resolves within the window.
   */
  close(drainWindowMs?: number): Promise<void>;
  readonly sessionCount: number;
  /** The server's metrics snapshot plus this handler's sessions and open SSE streams (HttpMetrics). */
  metrics(): HttpMetrics;
}

/** The MCP endpoint as a node:http request handler. */
export function createHttpHandler(server: Server, options: HttpOptions = {}): HttpHandler {
  const core = new HttpCore(server, options);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const handler = (request: IncomingMessage, response: ServerResponse, given?: unknown): void => {
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const reply = new NodeReply(request, response, options.keepAliveMs, core);
    if (!core.admit(method, path, reply)) {
      request.resume();
      return;
    }
    if (method !== 'POST') {
      request.resume();
      core.sessionRequest(method as 'GET' | 'DELETE', reply);
      return;
    }
    const parsed = given !== undefined && typeof given !== 'function' ? given : (request as { body?: unknown }).body;
    if (parsed !== undefined) {
      if (typeof parsed === 'string' || parsed instanceof Uint8Array) {
        const bytes =
          typeof parsed === 'string'
            ? Buffer.from(parsed, 'utf8')
            : Buffer.from(parsed.buffer, parsed.byteOffset, parsed.byteLength);
        if (bytes.length > maxBody) reply.send(413, PAYLOAD_TOO_LARGE);
        else core.post(bytes, reply);
      } else {
        core.postParsed(parsed, reply); // the framework parsed it under its own limit
      }
      return;
    }
    readBody(
      request,
      reply,
      maxBody,
      (body) => (body === undefined ? tooLarge(reply) : core.post(body, reply)),
      () => response.destroy(),
    );
  };
  return core.expose(handler);
}

function tooLarge(reply: Reply): void {
  // The rest of the body is not read: `Connection: close` makes node end the socket once this answer is out.
  reply.send(413, PAYLOAD_TOO_LARGE, { connection: 'close' });
}

/**
 * Reads the body, then hands `done` its bytes, or undefined once they pass `limit` bytes (at once when the reply's
 * Content-Length header says more; else counted as they arrive); `failed` when the request errors first.
 * Callbacks, not a promise: a body costs no microtask hop, and one that arrived in one chunk is not copied.
 */
function readBody(
  request: IncomingMessage,
  reply: NodeReply,
  limit: number,
  done: (body: Buffer | undefined) => void,
  failed: () => void,
): void {
  const declared = Number(first(reply.headers['content-length']));
  if (declared > limit) {
    done(undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      cleanup();
      request.pause();
      done(undefined);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    // An ended request emits no more data: its listeners go with it when a JSON answer releases it, as taking three
    // off costs more than node's own reading of a small body (bench/README.md, Over HTTP, counted). A stream keeps
    // the request for its life, so they are taken off then (an open listen would hold them).
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    chunks.length = 0;
    reply.releaseOnStream(cleanup);
    done(body);
  };
  const onError = (): void => {
    cleanup();
    failed();
  };
  const cleanup = (): void => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
  };
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
}

/** Options of serveHttp(): the handler options plus where to listen and how long a client may take to send a request. */
export interface ServeHttpOptions extends HttpOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A request's headers must have arrived within this long of its start, else 408 and the socket closes (default 10 000 ms). */
  headersTimeoutMs?: number;
  /** The whole request, headers and body, must have arrived within this long (default 30 000 ms, at least `headersTimeoutMs`). */
  requestTimeoutMs?: number;
}

/** A listening HTTP server returned by serveHttp(): its endpoint URL, the node server and the handler. */
export interface HttpServer {
  readonly url: string;
  readonly httpServer: NodeServer;
  readonly handler: HttpHandler;
  /**
   * Stops accepting connections and refuses every request that still arrives (503, `Connection: close`); running
   * requests get `drainWindowMs` (2 s) to finish and answer, listens and streams end; then every socket is closed
   * (answers still being written get a short grace). Resolves within the window plus that grace.
   */
  close(drainWindowMs?: number): Promise<void>;
}

/**
 * node:http's createServer, taken from the module itself, not through an ES import: on Node >= 22 an ES import of
 * node:http builds its ES module view by reading every export, and reading `WebSocket` there loads undici (about
 * 50 ms of a cold start; bench/README.md, Start-up). The module's own exports load it only when read.
 * `process.getBuiltinModule` (Node >= 20.16, Bun, Deno) first: it needs no `import.meta`, which a CommonJS bundle
 * of this file leaves empty; `createRequire` serves the Node 20 releases before it.
 */
const createNodeServer = (
  process.getBuiltinModule?.('node:http') ?? (createRequire(import.meta.url)('node:http') as typeof import('node:http'))
).createServer;

/** How long answers written by the end of the drain window may take to reach their clients before sockets are dropped. */
const CLOSE_GRACE_MS = 250;
/**
 * Node checks the header and request timeouts every `connectionsCheckingInterval` (30 s by default, so a 10 s
 * bound would cut at up to 40 s): checking every 1/20 of the shorter bound cuts within 5 % of each bound.
 */
const CHECKS_PER_BOUND = 20;
/**
 * The floor of that interval: each check walks every connection with a request in progress, and a 1 ms bound would
 * walk them every millisecond. 10 ms caps it at 100 checks a second and is still finer than any slow client needs
 * to be cut; bounds under 200 ms are cut within 10 ms of the bound instead of 5 %.
 */
const MIN_CHECK_INTERVAL_MS = 10;

/** A timeout option: a positive integer of milliseconds. */
function timeoutOption(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer of milliseconds, got ${value}`);
  return value;
}

/** Listens on `http://host:port/mcp` (path configurable) with timeouts against slow clients. */
export async function serveHttp(server: Server, options: ServeHttpOptions = {}): Promise<HttpServer> {
  const { port = 3000, host = '127.0.0.1', path = '/mcp' } = options;
  const headersTimeout = timeoutOption('headersTimeoutMs', options.headersTimeoutMs ?? 10_000);
  const requestTimeout = timeoutOption('requestTimeoutMs', options.requestTimeoutMs ?? 30_000);
  if (requestTimeout < headersTimeout) {
    throw new RangeError(`requestTimeoutMs (${requestTimeout}) must be at least headersTimeoutMs (${headersTimeout})`);
  }
  const handler = createHttpHandler(server, { ...options, path });
  // Responses not yet closed (node emits a response's 'close' once): close() waits (a short grace at most) for those
  // answered in the drain window. A count, not a set: a set emptied and refilled on every request rebuilds its table.
  let running = 0;
  let lastClosed: (() => void) | undefined;
  // One listener for every response: none made per request.
  function closed(): void {
    running--;
    if (running === 0) lastClosed?.();
  }
  const httpServer = createNodeServer(
    {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.max(MIN_CHECK_INTERVAL_MS, Math.ceil(headersTimeout / CHECKS_PER_BOUND)),
    },
    (request, response) => {
      running++;
      response.on('close', closed);
      handler(request, response);
    },
  );
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    httpServer,
    handler,
    close: async (drainWindowMs?: number) => {
      // First stop accepting (node also closes the idle keep-alive sockets); what arrives on open ones gets 503.
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await handler.close(drainWindowMs);
      if (running > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          lastClosed = resolve;
          timer = setTimeout(resolve, CLOSE_GRACE_MS);
        });
        clearTimeout(timer);
      }
      // Whatever is left (a client that never reads its answer, a socket that never sent a request) is dropped.
      httpServer.closeAllConnections();
      await stopped;
    },
  };
}
