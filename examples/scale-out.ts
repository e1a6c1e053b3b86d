// The scale-out worker: one process of a deployment that runs several of them behind a load balancer balancing per
// request, with no stickiness (test/scale-out-lb.test.ts and test/scale-out-redis.test.ts run three behind haproxy).
// It serves the demo server (examples/everything.ts) plus a `whoami` tool that answers its pid, so a client sees
// which worker served a call, `slow`, a call that runs until cancelled and says on stderr when a cancel stops it,
// `hold`, a task that runs until cancelled and says on stderr when it stops, and the `echo` tool the bench calls.
// With `--redis URL` every worker shares one Redis (mcp-core/redis: 2025 sessions, their events, change events, task
// records) and seals requestState with MCP_STATE_SECRET, so any worker serves any request; without it a worker shares
// nothing. MCP_TASK_LEASE_MS sets how soon a stopped worker's running tasks read `failed` (default 10 s).
// Run: node examples/scale-out.ts --port P [--redis redis://127.0.0.1:6379]. It prints
// `scale-out worker <pid> on <url>` to stderr once it listens, and stops cleanly on SIGTERM or SIGINT (running
// requests drain, the Redis clients close, then it exits with 0).
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { serveHttp } from '../http.ts';
import { createRedisEngine, type RedisEngine, type RedisLink } from '../redis/redis.ts';
import { createEverythingServer, EVERYTHING_HTTP_OPTIONS } from './everything.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3000' }, redis: { type: 'string' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port needs a port number');

// The glue docs/http-deployment.md shows: one client for commands (failing fast while disconnected, so an outage
// answers 503 at once), one in subscriber mode for every channel (so messages arrive in publish order).
const client = values.redis === undefined ? undefined : createClient({ url: values.redis, disableOfflineQueue: true });
const subscriber = client?.duplicate();
let engine: RedisEngine | undefined;
if (client !== undefined && subscriber !== undefined) {
  const report = (error: Error): void => void process.stderr.write(`redis: ${error.message}\n`);
  client.on('error', report);
  subscriber.on('error', report);
  await Promise.all([client.connect(), subscriber.connect()]);
  const link: RedisLink = {
    send: (command) => client.sendCommand(command),
    subscribe: async (channel, onMessage, onResubscribed) => {
      subscriber.on('ready', onResubscribed);
      await subscriber.subscribe(channel, onMessage);
    },
  };
  const lease = process.env.MCP_TASK_LEASE_MS;
  engine = createRedisEngine(link, { taskLeaseMs: lease === undefined ? undefined : Number(lease) });
}

// Every worker seals requestState with the same secret, so an input_required round answered by one worker is
// retried on any; without MCP_STATE_SECRET each worker has its own (a retry elsewhere is refused -32602).
const secret = process.env.MCP_STATE_SECRET;
const server = createEverythingServer({
  changeBus: engine?.changeBus,
  requestState: secret === undefined ? undefined : { secret },
  taskStore: engine?.taskStore,
});
server.tool(
  'echo',
  {
    description: 'Echoes its text (the call `npm run bench` measures)',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  (args: { text: string }) => ({ content: [{ type: 'text', text: args.text }] }),
);
server.tool(
  'whoami',
  { description: 'The pid of the worker serving this call', inputSchema: { type: 'object', properties: {} } },
  () => ({ content: [{ type: 'text', text: String(process.pid) }] }),
);

server.tool(
  'slow',
  {
    description:
      'Sends one progress notification, then waits `seconds` unless cancelled; prints `call <id> cancelled on <pid>` when cancelled',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 600 } } },
  },
  async ({ seconds = 600 }: { seconds?: number }, ctx) => {
    ctx.progress(0, seconds); // the client knows the call runs (and, through a balancer, on which worker)
    try {
      await delay(seconds * 1000, undefined, { signal: ctx.signal });
    } catch (error) {
      // Which worker ran it, and that the client's cancel reached it, wherever the client sent that cancel.
      process.stderr.write(`call ${JSON.stringify(ctx.requestId)} cancelled on ${process.pid}\n`);
      throw error;
    }
    return { content: [{ type: 'text', text: `slept ${seconds} s on ${process.pid}` }] };
  },
);

server.tool(
  'hold',
  {
    description: 'Runs as a task until cancelled (or for `seconds`); prints `task <id> stopped on <pid>` when it stops',
    taskSupport: 'required',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 600 } } },
  },
  async ({ seconds = 600 }: { seconds?: number }, ctx) => {
    try {
      await delay(seconds * 1000, undefined, { signal: ctx.signal });
    } finally {
      // Which worker ran it, and that its handler ended (cancelled, expired, or done).
      process.stderr.write(`task ${ctx.task?.taskId} stopped on ${process.pid}\n`);
    }
    return { content: [{ type: 'text', text: `held ${seconds} s on ${process.pid}` }] };
  },
);

const http = await serveHttp(server, {
  ...EVERYTHING_HTTP_OPTIONS,
  port,
  sharedSessions: engine?.sessions,
  eventStore: engine?.eventStore,
});
process.stderr.write(`scale-out worker ${process.pid} on ${http.url}\n`);
let closing = false;
const stop = async (): Promise<void> => {
  if (closing) return;
  closing = true;
  await http.close(); // closes the server, whose tasks extension cancels the tasks running here
  await engine?.taskStore.close();
  await Promise.all([client?.close(), subscriber?.close()]); // then nothing is left open: the process exits with 0
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
