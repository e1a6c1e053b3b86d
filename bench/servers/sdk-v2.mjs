// The official TypeScript SDK v2 server (@modelcontextprotocol/server + @modelcontextprotocol/node), wired the way
// its README shows: stdio through StdioServerTransport; HTTP on node:http with the 2026-07-28 entry
// (createMcpHandler) for enveloped requests and a sessionful NodeStreamableHTTPServerTransport for 2025 sessions.
// Run: node sdk-v2.mjs stdio | node sdk-v2.mjs http   (HTTP prints "listening <port>" on stdout)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function newServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echoes its text',
    inputSchema: z.object({ text: z.string() }),
  }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

if (process.argv[2] === 'http') {
  const modern = toNodeHandler(createMcpHandler(newServer, { legacy: 'reject', maxSubscriptions: 20_000 }));
  const sessions = new Map();
  const readBody = (req) => new Promise((resolve) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString())));
  });
  const http = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined) {
      await modern(req, res, body);
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      transport = new NodeStreamableHTTPServerTransport({
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
