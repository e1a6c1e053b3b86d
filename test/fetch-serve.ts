// The demo server behind `createFetchHandler` on the runtime's own Web server, for the runtime matrix
// (test/runtimes.test.ts): `Deno.serve` under Deno, `Bun.serve` under Bun, on 127.0.0.1 at a free port, announced on
// stderr as examples/everything.ts does. 2025 sessions are on (one process serves every request); SIGTERM closes
// the handler, then the server, and exits 0.

import { createEverythingServer } from '../examples/everything.ts';
import { createFetchHandler } from '../fetch.ts';

/** The part of Deno's runtime API used here (Deno.serve). */
interface DenoApi {
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>,
  ): { shutdown(): Promise<void> };
}

/** The part of Bun's runtime API used here (Bun.serve). */
interface BunApi {
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout: number;
    fetch(request: Request, server: { requestIP(request: Request): { address: string } | null }): Promise<Response>;
  }): { port: number; stop(closeActiveConnections?: boolean): Promise<void> };
}

const runtime = globalThis as { Deno?: DenoApi; Bun?: BunApi };
const handle = createFetchHandler(createEverythingServer(), { sessions: true });

/** Announces the endpoint the way examples/everything.ts does. */
function announce(port: number): void {
  process.stderr.write(`mcp-core everything server on http://127.0.0.1:${port}/mcp\n`);
}

let stopServer: () => Promise<void>;
if (runtime.Deno !== undefined) {
  const server = runtime.Deno.serve(
    { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => announce(port) },
    (request, info) => handle(request, { remoteAddress: info.remoteAddr.hostname }),
  );
  stopServer = () => server.shutdown();
} else if (runtime.Bun !== undefined) {
  const server = runtime.Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0, // SSE streams stay open between keep-alive comments (Bun's default ends idle ones after 10 s)
    fetch: (request, bun) => handle(request, { remoteAddress: bun.requestIP(request)?.address }),
  });
  stopServer = () => server.stop();
  announce(server.port);
} else {
  throw new Error('test/fetch-serve.ts runs under Deno or Bun');
}

process.once('SIGTERM', () => {
  void handle
    .close()
    .then(stopServer)
    .then(() => process.exit(0));
});
