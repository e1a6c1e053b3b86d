// tmcp (a light MCP server library) wired the way its READMEs show: McpServer with the zod adapter, stdio through
// @tmcp/transport-stdio, HTTP through @tmcp/transport-http on node:http via @remix-run/node-fetch-server (the
// bridge its README uses). One transport serves both eras. Run: node tmcp.mjs stdio | node tmcp.mjs http
// (HTTP prints "listening <port>" on stdout)
import { createServer } from 'node:http';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { McpServer } from 'tmcp';
import * as z from 'zod';

const server = new McpServer(
  { name: 'bench', version: '1.0.0', description: 'bench' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool(
  {
    name: 'echo',
    description: 'Echoes its text',
    schema: z.object({ text: z.string() }),
  },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);

if (process.argv[2] === 'http') {
  const { HttpTransport } = await import('@tmcp/transport-http');
  const { createRequestListener } = await import('@remix-run/node-fetch-server');
  const transport = new HttpTransport(server, { path: '/mcp' });
  const http = createServer(
    createRequestListener(async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 })),
  );
  http.keepAliveTimeout = 60_000;
  http.listen(0, '127.0.0.1', () => console.log(`listening ${http.address().port}`));
} else {
  const { StdioTransport } = await import('@tmcp/transport-stdio');
  new StdioTransport(server).listen();
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
