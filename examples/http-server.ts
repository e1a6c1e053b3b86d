// The same server over Streamable HTTP. Run: node examples/http-server.ts [port]  (or PORT=…; default 3000, 0 = any)
import { createServer } from '../core.ts';
import { serveHttp } from '../http.ts';

const server = createServer({ name: 'greeter', version: '1.0.0' });

server.tool(
  'greet',
  {
    description: 'Greets someone by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  ({ name }: { name: string }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
);

const http = await serveHttp(server, { port: Number(process.argv[2] ?? process.env.PORT ?? 3000) });
console.log(`listening on ${http.url}`); // stdout is free: over HTTP it carries no protocol
process.once('SIGTERM', () => void http.close()); // drains running requests, then the process exits
process.once('SIGINT', () => void http.close());
