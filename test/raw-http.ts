// One HTTP exchange through node:http (on its own socket unless an agent is given), for tests that must set Host or
// Origin, send any method or body, or read a refusal's status and headers exactly: the status, headers, body text and
// body JSON (if any), and the local port of the client socket that carried it.

import { Buffer } from 'node:buffer';
import {
  type Agent,
  request as httpRequest,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import { deferred, type Frame } from './harness.ts';
import { MODERN } from './wire.ts';

const PLAIN_HEADER = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/** Encodes a header value as a client must (2026-07-28 Request Metadata): as is when it is printable ASCII with no
 * surrounding space and no sentinel prefix, else `=?base64?<UTF-8 as base64>?=`. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN_HEADER.test(value) && !value.startsWith('=?base64?')) return value;
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

export interface RawResponse {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  json: Frame;
  /** The local port of the client socket that carried the exchange: equal ports on one agent, one connection. */
  localPort?: number;
}

export function raw(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string | string[]>;
    body?: string;
    path?: string;
    agent?: Agent;
  } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: options.path ?? target.pathname,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
        agent: options.agent ?? false,
      },
      (response) => {
        const localPort = response.socket.localPort!;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Frame;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode!, headers: response.headers, text, json, localPort });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The headers a correct 2026-07-28 client sends with `frame` (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
export function modernHeaders(frame: Frame, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': frame.method,
  };
  const params = frame.params ?? {};
  if ((frame.method === 'tools/call' || frame.method === 'prompts/get') && typeof params.name === 'string') {
    headers['mcp-name'] = encodeHeaderValue(params.name);
  }
  if (frame.method === 'resources/read' && typeof params.uri === 'string')
    headers['mcp-name'] = encodeHeaderValue(params.uri);
  return { ...headers, ...extra };
}

/**
 * Watches every exchange a node server sees whose request has an `x-test` header: `closed(tag)` settles after the
 * server-side 'close' of its response (and after the core's own 'close' listeners ran), and `lateWrites` records any
 * write, end or writeHead attempted on a response after its client went away.
 */
export function watchExchanges(node: NodeServer) {
  const closes = new Map<string, ReturnType<typeof deferred<void>>>();
  const lateWrites: string[] = [];
  const closeOf = (tag: string) => {
    let entry = closes.get(tag);
    if (entry === undefined) closes.set(tag, (entry = deferred()));
    return entry;
  };
  node.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const tag = request.headers['x-test'];
    if (typeof tag !== 'string') return;
    let gone = false;
    response.on('close', () => {
      gone = !response.writableFinished;
      closeOf(tag).resolve();
    });
    for (const method of ['write', 'end', 'writeHead'] as const) {
      const original = response[method].bind(response) as (...args: unknown[]) => unknown;
      (response as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        if (gone) lateWrites.push(`${tag}: ${method} ${String(args[0] ?? '')}`);
        return original(...args);
      };
    }
  });
  return {
    closed: async (tag: string) => {
      await closeOf(tag).promise;
      await new Promise((resolve) => setImmediate(resolve)); // after the core's own 'close' listeners
    },
    lateWrites,
  };
}
