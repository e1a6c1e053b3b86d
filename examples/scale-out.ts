// The scale-out worker: one process of a deployment that runs several of them behind a load balancer balancing per
// request (test/scale-out-lb.test.ts runs three behind haproxy). It serves the demo server (examples/everything.ts)
// plus a `whoami` tool that answers its pid, so a client sees which worker served each request. It shares no state
// with the other workers yet: only calls that need nothing shared (sessionless 2026-07-28 calls without a
// requestState round) are served alike by any worker.
// Run: node examples/scale-out.ts --port P (0 = any). It prints `scale-out worker <pid> on <url>` to stderr once it
// listens, and stops cleanly on SIGTERM or SIGINT (running requests drain, then it exits with 0).
import { parseArgs } from 'node:util';
import { serveHttp } from '../http.ts';
import { createEverythingServer } from './everything.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3000' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port needs a port number');

const server = createEverythingServer();
server.tool(
  'whoami',
  { description: 'The pid of the worker serving this call', inputSchema: { type: 'object', properties: {} } },
  () => ({ content: [{ type: 'text', text: String(process.pid) }] }),
);

const http = await serveHttp(server, { port });
process.stderr.write(`scale-out worker ${process.pid} on ${http.url}\n`);
let closing = false;
const stop = (): void => {
  if (closing) return;
  closing = true;
  void http.close(); // once closed nothing is left open: the process exits with 0 by itself
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
