// The official TypeScript SDK v1 server (@modelcontextprotocol/sdk 1.x), wired the way its README shows: stdio
// through StdioServerTransport; HTTP on node:http with a sessionful StreamableHTTPServerTransport per session.
// v1 speaks the 2025 era only. Run: node sdk-v1.mjs stdio | node sdk-v1.mjs http (prints "listening <port>")
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

function newServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echoes its text',
    inputSchema: { text: z.string() },
  }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

if (process.argv[2] === 'http') {
  const sessions = new Map();
  const readBody = (req) => new Promise((resolve) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString())));
  });
  const http = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.keepAliveTimeout = 60_000;
  http.listen(0, '127.0.0.1', () => console.log(`listening ${http.address().port}`));
} else {
  await newServer().connect(new StdioServerTransport());
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
