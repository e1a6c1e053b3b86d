// One HTTP exchange on its own socket through node:http, for tests that must set Host or Origin, send any method or
// body, or read a refusal's status and headers exactly: the status, headers, body text and body JSON (if any).

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { encodeHeaderValue } from '../http-headers.ts';
import type { Frame } from './harness.ts';
import { MODERN } from './wire.ts';

export interface RawResponse { status: number; headers: IncomingMessage['headers']; text: string; json: Frame }

export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string; path?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: target.hostname,
      port: target.port,
      path: options.path ?? target.pathname,
      method: options.method ?? 'POST',
      headers: options.headers ?? {},
      agent: false,
    }, (response) => {
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
        resolve({ status: response.statusCode!, headers: response.headers, text, json });
      });
      response.on('error', reject);
    });
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
  if (frame.method === 'resources/read' && typeof params.uri === 'string') headers['mcp-name'] = encodeHeaderValue(params.uri);
  return { ...headers, ...extra };
}
