// Streamable HTTP on node:http: createHttpHandler() gives a `(req, res)` handler to mount in any node:http server
// (and so express, fastify, …), serveHttp() listens on its own (127.0.0.1 by default). This adapter reads bodies
// under the size limit (or takes one a framework already parsed) and maps node's request/response onto the core's
// Reply; all MCP logic is in http-core.ts.

import { createServer as createNodeServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from './core.ts';
import { HttpCore, type HttpOptions } from './http-core.ts';
import type { HeaderBag } from './http-headers.ts';
import { jsonText, type EventSink, type Reply } from './exchange.ts';
import { SSE_HEADERS, SseWriter } from './sse.ts';
import type { HttpRequestInfo } from './types.ts';

export type { HttpOptions } from './http-core.ts';
export type { AuthOptions, ProtectedResourceMetadata } from './auth.ts';
export { MemoryEventStore, type EventStore } from './sse.ts';
export { MemorySessionStore, type SessionRecord, type SessionStore, type SharedSessionStore } from './sessions.ts';

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

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

/** One node:http exchange as the core sees it. */
class NodeReply implements Reply {
  readonly headers: HeaderBag;
  readonly http: HttpRequestInfo;
  readonly #response: ServerResponse;
  readonly #keepAliveMs: number | undefined;
  #answered = false;

  constructor(request: IncomingMessage, response: ServerResponse, keepAliveMs: number | undefined) {
    // Distinct values keep repeated headers visible (node would join them with ", ").
    this.headers = request.headersDistinct as HeaderBag;
    this.http = new NodeRequestInfo(request);
    this.#response = response;
    this.#keepAliveMs = keepAliveMs;
  }

  /** Also once the client is gone: nothing can answer it any more (as a fetch exchange whose request aborted). */
  get answered(): boolean {
    return this.#answered || this.#response.destroyed;
  }

  send(status: number, body?: unknown, headers?: Record<string, string>): void {
    if (this.answered) return;
    const text = body === undefined ? '' : jsonText(body); // may throw: before the exchange counts as answered
    this.#answered = true;
    const head: Record<string, string | number> = { ...headers };
    if (body !== undefined) head['content-type'] = 'application/json';
    head['content-length'] = Buffer.byteLength(text);
    this.#response.writeHead(status, head);
    this.#response.end(text);
  }

  stream(headers?: Record<string, string>): EventSink {
    this.#answered = true;
    this.#response.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.#response.flushHeaders();
    return new SseWriter(this.#response, { keepAliveMs: this.#keepAliveMs });
  }

  onAbort(listener: () => void): void {
    this.#response.once('close', () => {
      if (!this.#response.writableFinished) listener();
    });
  }
}

/** The node:http request handler createHttpHandler() returns (usable as express middleware too). */
export interface HttpHandler {
  /**
   * Serves one exchange. A body a framework already read is used instead of the request stream: `body` when given
   * (not a function: express passes `next` there), else `request.body` (express.json(), express.text(), …). A parsed
   * object or array is taken as is; a string or Buffer is held to maxBodyBytes and parsed here.
   */
  (request: IncomingMessage, response: ServerResponse, body?: unknown): void;
  /** Ends every session and stream the handler holds: running requests get `drainWindowMs` (2 s) to finish. */
  close(drainWindowMs?: number): Promise<void>;
  readonly sessionCount: number;
}

/** The MCP endpoint as a node:http request handler. */
export function createHttpHandler(server: Server, options: HttpOptions = {}): HttpHandler {
  const core = new HttpCore(server, options);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const handler = (request: IncomingMessage, response: ServerResponse, given?: unknown): void => {
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').split('?')[0]!;
    const reply = core.admit(method, path, new NodeReply(request, response, options.keepAliveMs));
    if (reply === undefined) {
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
        const bytes = typeof parsed === 'string' ? Buffer.from(parsed, 'utf8') : Buffer.from(parsed.buffer, parsed.byteOffset, parsed.byteLength);
        if (bytes.length > maxBody) reply.send(413, PAYLOAD_TOO_LARGE);
        else core.post(bytes.toString('utf8'), reply);
      } else {
        core.postParsed(parsed, reply); // the framework parsed it under its own limit
      }
      return;
    }
    readBody(request, maxBody).then(
      (body) => (body === undefined ? tooLarge(reply, response) : core.post(body, reply)),
      () => response.destroy(),
    );
  };
  // Not Object.assign: it would copy the getter's value once (sessionCount frozen at 0).
  return Object.defineProperties(handler, {
    close: { value: (drainWindowMs?: number) => core.close(drainWindowMs) },
    sessionCount: { get: () => core.sessionCount, enumerable: true },
  }) as HttpHandler;
}

const PAYLOAD_TOO_LARGE = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Payload Too Large' } };

function tooLarge(reply: Reply, response: ServerResponse): void {
  // The rest of the body is not read; the connection closes after this answer.
  reply.send(413, PAYLOAD_TOO_LARGE, { connection: 'close' });
  response.once('finish', () => response.socket?.destroySoon());
}

/** The body as text, or undefined when it passes `limit` bytes (counted as it arrives, whatever Content-Length says). */
function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        request.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

/** Options of serveHttp(): the handler options plus where to listen. */
export interface ServeHttpOptions extends HttpOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** A listening HTTP server returned by serveHttp(): its endpoint URL, the node server and the handler. */
export interface HttpServer {
  readonly url: string;
  readonly httpServer: NodeServer;
  readonly handler: HttpHandler;
  /** Ends sessions and streams, stops listening, and resolves when every socket has closed. */
  close(): Promise<void>;
}

/** Listens on `http://host:port/mcp` (path configurable) with timeouts against slow clients. */
export async function serveHttp(server: Server, options: ServeHttpOptions = {}): Promise<HttpServer> {
  const { port = 3000, host = '127.0.0.1', path = '/mcp' } = options;
  const handler = createHttpHandler(server, { ...options, path });
  // Responses still running: close() drops every socket once the last one has ended (an exchange the handler ends
  // after close() began, or a socket a client opened and never used, would otherwise hold close() for its keep-alive).
  const running = new Set<ServerResponse>();
  let closing = false;
  const httpServer = createNodeServer((request, response) => {
    running.add(response);
    response.once('close', () => {
      running.delete(response);
      if (closing && running.size === 0) httpServer.closeAllConnections();
    });
    handler(request, response);
  });
  httpServer.headersTimeout = 10_000;
  httpServer.requestTimeout = 30_000;
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
    close: async () => {
      closing = true;
      await handler.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        if (running.size === 0) httpServer.closeAllConnections();
      });
    },
  };
}
