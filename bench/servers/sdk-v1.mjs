// The official TypeScript SDK v1 server (@modelcontextprotocol/sdk 1.x), wired the way its README shows: stdio
// through StdioServerTransport; HTTP on node:http with a sessionful StreamableHTTPServerTransport per session.
// v1 speaks the 2025 era only. Run: node sdk-v1.mjs stdio | node sdk-v1.mjs http (prints "listening <port>")
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';
import { serveSessions } from './sessionful-http.mjs';

function newServer() {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text',
      inputSchema: { text: z.string() },
    },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

if (process.argv[2] === 'http') {
  serveSessions(StreamableHTTPServerTransport, newServer);
} else {
  await newServer().connect(new StdioServerTransport());
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
