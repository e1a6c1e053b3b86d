// The protocol floor (2026-07-28 only): the raw floor (floor.mjs) plus only the checks and answer fields the protocol
// asks of a server on a valid tools/call's path, for one known tool, written by hand with nothing general: the
// JSON-RPC request shape, the `_meta` envelope, the echo tool's arguments, and over HTTP the Host, Origin,
// Content-Type, Accept and MCP-Protocol-Version checks and the Mcp-Method/Mcp-Name mirrors. Its answers are mcp-core's
// byte for byte; its refusals carry mcp-core's codes but are plainer (no error data, and over HTTP a refused frame is
// answered 200). Set beside the raw floor, it shows what the protocol itself costs a call; the rest of a gap is the
// server's own work (bench/README.md, The protocol floor). Run: node protocol-floor.mjs stdio | … http

import { createRequire } from 'node:module';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const STAMP = { 'io.modelcontextprotocol/serverInfo': { name: 'bench', version: '1.0.0' } };
const LOCAL_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const failure = (id, code, message) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });

/** The answer to one frame's text (undefined for a notification); `headers`: the HTTP request's, to check the mirrors. */
function answer(text, headers) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return failure(null, -32700, 'Parse error');
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string')
    return failure(null, -32600, 'Invalid Request');
  const { id, method, params } = message;
  if (id === undefined) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return failure(null, -32600, 'Invalid Request');
  if (!isObject(params) || !isObject(params._meta)) return failure(id, -32602, 'params._meta is required');
  if (params._meta[VERSION_KEY] !== '2026-07-28') return failure(id, -32022, 'Unsupported protocol version');
  if (!isObject(params._meta[CAPABILITIES_KEY])) return failure(id, -32602, 'client capabilities are required');
  if (headers !== undefined) {
    if (headers['mcp-method'] !== method) return failure(id, -32020, 'Mcp-Method differs from the body');
    if (method === 'tools/call' && headers['mcp-name'] !== params.name)
      return failure(id, -32020, 'Mcp-Name differs from the body');
  }
  if (method !== 'tools/call') return failure(id, -32601, 'Method not found');
  if (params.name !== 'echo') return failure(id, -32602, 'Unknown tool');
  const args = params.arguments;
  if (!isObject(args)) return failure(id, -32602, 'params.arguments must be an object');
  // Arguments its input schema refuses are a tool execution error, a result (Server Features > Tools > Error Handling).
  const result =
    typeof args.text === 'string'
      ? { content: [{ type: 'text', text: args.text }], resultType: 'complete', _meta: STAMP }
      : {
          content: [{ type: 'text', text: "Invalid arguments for tool 'echo': arguments.text must be string" }],
          isError: true,
          resultType: 'complete',
          _meta: STAMP,
        };
  return JSON.stringify({ jsonrpc: '2.0', id, result });
}

if (process.argv[2] === 'http') {
  // Taken with require, as floor.mjs takes it (its comment says why).
  const { createServer } = createRequire(import.meta.url)('node:http');
  const server = createServer((req, res) => {
    const { headers } = req;
    if (!LOCAL_HOST.test(headers.host ?? '') || (headers.origin !== undefined && !LOCAL_ORIGIN.test(headers.origin)))
      return void res.writeHead(403).end();
    if (!(headers['content-type'] ?? '').startsWith('application/json')) return void res.writeHead(415).end();
    if (!(headers.accept ?? '').includes('application/json')) return void res.writeHead(406).end();
    if (headers['mcp-protocol-version'] !== '2026-07-28') return void res.writeHead(400).end();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = answer(Buffer.concat(chunks).toString(), headers);
      if (body === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
} else {
  const { createInterface } = await import('node:readline');
  createInterface({ input: process.stdin }).on('line', (line) => {
    const out = answer(line);
    if (out !== undefined) process.stdout.write(`${out}\n`);
  });
}
