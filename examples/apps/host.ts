// A zero-dependency MCP Apps host harness for a browser: two node:http listeners on 127.0.0.1, so that the host
// and the sandbox proxy have different origins (SEP-1865, Sandbox proxy). The host origin serves the host page and
// the thermometer server (examples/apps/server.ts) at /mcp; the sandbox origin serves only the proxy page.
// Run: node examples/apps/host.ts [port], then open the URL it prints (docs/apps.md, The example).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createHttpHandler } from '../../http.ts';
import { createAppsServer } from './server.ts';

/** A running harness: the page to open, both origins, and how to stop it. */
export interface AppsHost {
  /** The host page (`?city=Oslo` picks another city). */
  readonly url: string;
  readonly hostOrigin: string;
  readonly sandboxOrigin: string;
  /** Stops both listeners (open browser connections included) and the MCP handler. */
  close(): Promise<void>;
}

const HOST_PAGE = readFileSync(new URL('./host.html', import.meta.url), 'utf8');
const SANDBOX_PAGE = readFileSync(new URL('./sandbox.html', import.meta.url), 'utf8');

/** Listens on 127.0.0.1:`port` and resolves with the origin it got. */
async function listen(server: HttpServer, port: number): Promise<string> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A listener that answers `GET path` with `html`, and 404 to anything else. */
function page(path: string, html: () => string, next?: RequestListener): RequestListener {
  return (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === path && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html());
    } else if (next !== undefined) {
      next(req, res);
    } else {
      res.writeHead(404).end();
    }
  };
}

/** Starts the harness: the host origin on `port` (0: any free port), the sandbox origin on a free port. */
export async function startAppsHost(port = 0): Promise<AppsHost> {
  const handler = createHttpHandler(createAppsServer(), { path: '/mcp' });
  let hostOrigin = '';
  let sandboxOrigin = '';
  const mcp: RequestListener = (req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === '/mcp') handler(req, res);
    else res.writeHead(404).end();
  };
  const host = createHttpServer(page('/', () => HOST_PAGE.replaceAll('__SANDBOX_ORIGIN__', sandboxOrigin), mcp));
  const sandbox = createHttpServer(page('/sandbox', () => SANDBOX_PAGE.replaceAll('__HOST_ORIGIN__', hostOrigin)));
  try {
    hostOrigin = await listen(host, port);
    sandboxOrigin = await listen(sandbox, 0);
  } catch (error) {
    host.close();
    sandbox.close();
    await handler.close();
    throw error;
  }
  return {
    url: `${hostOrigin}/`,
    hostOrigin,
    sandboxOrigin,
    async close() {
      for (const server of [host, sandbox]) {
        server.close();
        server.closeAllConnections(); // a browser keeps idle connections open
      }
      await handler.close();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const harness = await startAppsHost(Number(process.argv[2] ?? process.env.PORT ?? 0));
  console.log(`open ${harness.url} (sandbox proxy on ${harness.sandboxOrigin})`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void harness.close());
}
