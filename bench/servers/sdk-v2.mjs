// The official TypeScript SDK v2 server (@modelcontextprotocol/server + @modelcontextprotocol/node), wired the way
// its README shows: stdio through StdioServerTransport; HTTP on node:http with the 2026-07-28 entry
// (createMcpHandler) for enveloped requests and a sessionful NodeStreamableHTTPServerTransport for 2025 sessions.
// Run: node sdk-v2.mjs stdio | node sdk-v2.mjs http   (HTTP prints "listening <port>" on stdout)
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { serveSessions } from './sessionful-http.mjs';

function newServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text',
      inputSchema: z.object({ text: z.string() }),
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

if (process.argv[2] === 'http') {
  serveSessions(
    NodeStreamableHTTPServerTransport,
    newServer,
    toNodeHandler(createMcpHandler(newServer, { legacy: 'reject', maxSubscriptions: 20_000 })),
  );
} else {
  await newServer().connect(new StdioServerTransport());
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
