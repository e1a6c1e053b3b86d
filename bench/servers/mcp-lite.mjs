// mcp-lite wired the way its README shows: McpServer with a zod schema adapter, StreamableHttpTransport bound to
// it and mounted on a Hono app, served on node:http by @hono/node-server (mcp-lite is fetch-based and documents
// Hono). The README's single-server setup keeps sessions in an InMemorySessionAdapter. HTTP only, 2025 era only
// (it negotiates 2025-06-18 or 2025-03-26). Run: node mcp-lite.mjs http   (prints "listening <port>" on stdout)
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { InMemorySessionAdapter, McpServer, StreamableHttpTransport } from 'mcp-lite';
import * as z from 'zod';

const mcp = new McpServer({ name: 'bench', version: '1.0.0', schemaAdapter: (schema) => z.toJSONSchema(schema) });
mcp.tool('echo', {
  description: 'Echoes its text',
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => ({ content: [{ type: 'text', text }] }),
});

const transport = new StreamableHttpTransport({
  sessionAdapter: new InMemorySessionAdapter({ maxEventBufferSize: 1024 }),
});
const handler = transport.bind(mcp);
const app = new Hono();
app.all('/mcp', (c) => handler(c.req.raw));
const http = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
  console.log(`listening ${info.port}`),
);
http.keepAliveTimeout = 60_000;
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
