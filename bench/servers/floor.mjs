// The raw floor: the least a Node process can do per MCP call. It reads a line (stdio) or a POST body (HTTP),
// JSON.parses it, and JSON.stringifies a canned result (initialize, tools/list, anything else as tools/call) with
// the request's id; on stdio it exits at end of input. No validation, no sessions, no protocol. It loads only its
// transport's module (node:http costs a stdio process on Node 22 about as much as the rest of its start).
// Run: node floor.mjs stdio | node floor.mjs http   (HTTP prints "listening <port>" on stdout)

import { createRequire } from 'node:module';

const TOOL_RESULT = { content: [{ type: 'text', text: 'hello' }] };
const LIST_RESULT = {
  tools: [
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ],
};
const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'floor', version: '1.0.0' },
};

function answer(text) {
  const message = JSON.parse(text);
  if (message.id === undefined) return undefined;
  const result =
    message.method === 'initialize' ? INIT_RESULT : message.method === 'tools/list' ? LIST_RESULT : TOOL_RESULT;
  return JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
}

if (process.argv[2] === 'http') {
  // Taken with require, as mcp-core/http takes it: an ES import reads every export of node:http, and on Node >= 22
  // its WebSocket export loads undici, tens of ms of a start the floor would pay and the server not.
  const { createServer } = createRequire(import.meta.url)('node:http');
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = answer(Buffer.concat(chunks).toString());
      if (body === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'floor' }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
} else {
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const out = answer(line);
    if (out !== undefined) process.stdout.write(`${out}\n`);
  });
}
