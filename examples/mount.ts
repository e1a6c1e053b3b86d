// Mounting the MCP endpoint in an existing node:http app, next to its own routes. Express or fastify work the same
// way: pass the `(req, res)` handler to the route (`app.all('/mcp', handler)`). Run: node examples/mount.ts [port]
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createServer } from '../core.ts';
import { createHttpHandler } from '../http.ts';

/** The app: `GET /health` is its own route, everything under `/mcp` goes to the MCP handler. */
export function createApp(): HttpServer {
  const mcp = createServer({ name: 'mounted', version: '1.0.0' });
  mcp.tool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  const handler = createHttpHandler(mcp, { path: '/mcp' });

  const app = createHttpServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else if (pathname === '/mcp') {
      handler(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  app.on('close', () => handler.close()); // ends the 2025 sessions with the app
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = createApp().listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), '127.0.0.1', () => {
    const address = app.address();
    console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/mcp`);
  });
}
