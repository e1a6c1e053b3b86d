// One port served by several processes with node:cluster: change events travel through the primary (a ChangeBus),
// 2025 sessions live in a Map in the primary (a SharedSessionStore over IPC), and every worker seals requestState
// with one secret, so any worker serves any request. Run: node examples/cluster.ts [--workers N] [--port P]
// (default 2 workers on port 3000; 0 = any). It prints `listening <port>` once every worker listens.
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type ChangeBus, type ChangeEvent, createServer, elicitInput, inputRequired } from '../core.ts';
import { type SessionRecord, type SharedSessionStore, serveHttp } from '../http.ts';

// IPC messages. Worker → primary: a change to broadcast, or a store operation. Primary → worker: a change, or the
// store's answer to the operation with the same `ref`.
type StoreOp = { kind: 'store'; ref: number; op: 'save' | 'load' | 'remove'; id: string; record?: SessionRecord };
type ToPrimary = { kind: 'change'; event: ChangeEvent } | StoreOp;
type ToWorker = { kind: 'change'; event: ChangeEvent } | { kind: 'stored'; ref: number; record?: SessionRecord };

const { values } = parseArgs({
  options: { workers: { type: 'string', default: '2' }, port: { type: 'string', default: '3000' } },
});
const workers = Number(values.workers);
const port = Number(values.port);

if (cluster.isPrimary) {
  // One secret for every worker: a requestState sealed by one verifies on all (set MCP_STATE_SECRET to keep it
  // across restarts of the whole deployment). Workers inherit the environment.
  process.env.MCP_STATE_SECRET ??= randomBytes(32).toString('base64url');
  const records = new Map<string, SessionRecord>(); // a real store would also expire abandoned records (a TTL)
  const alive = new Set<Worker>();
  let stopping = false;
  let clean = true;
  let listening = 0;

  const fork = (): void => void alive.add(cluster.fork());
  for (let i = 0; i < workers; i++) fork();

  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) console.log(`listening ${address.port}`);
  });
  cluster.on('message', (worker, message: ToPrimary) => {
    if (message.kind === 'change') {
      // Every worker, the sender included, in the order the primary receives them.
      for (const each of alive) if (each.isConnected()) each.send(message satisfies ToWorker);
      return;
    }
    if (message.kind !== 'store') return;
    if (message.op === 'save') records.set(message.id, message.record!);
    if (message.op === 'remove') records.delete(message.id);
    const reply: ToWorker = {
      kind: 'stored',
      ref: message.ref,
      record: message.op === 'load' ? records.get(message.id) : undefined,
    };
    if (worker.isConnected()) worker.send(reply);
  });
  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (!stopping) {
      console.error(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
      fork();
      return;
    }
    clean &&= code === 0;
    if (alive.size === 0) process.exit(clean ? 0 : 1);
  });
  // Stopping: each worker closes its server (running requests drain, streams end) and leaves; then the primary.
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const worker of alive) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  /** Change events through the primary, which sends each one to every worker. */
  class ClusterChangeBus implements ChangeBus {
    publish(event: ChangeEvent): void {
      if (process.connected) process.send!({ kind: 'change', event } satisfies ToPrimary);
    }
    subscribe(deliver: (event: ChangeEvent) => void): void {
      process.on('message', (message: ToWorker) => {
        if (message.kind === 'change') deliver(message.event);
      });
    }
  }

  /** Session records in the primary's Map: each operation is a request over IPC, answered by `ref`, or timed out. */
  class PrimarySessionStore implements SharedSessionStore {
    readonly #pending = new Map<number, (record: SessionRecord | undefined) => void>();
    readonly #timeoutMs: number;
    #next = 0;

    constructor(timeoutMs = 5000) {
      this.#timeoutMs = timeoutMs;
      process.on('message', (message: ToWorker) => {
        if (message.kind === 'stored') this.#pending.get(message.ref)?.(message.record);
      });
    }

    #ask(op: StoreOp['op'], id: string, record?: SessionRecord): Promise<SessionRecord | undefined> {
      const ref = ++this.#next;
      return new Promise<SessionRecord | undefined>((resolve, reject) => {
        const fail = (error: Error): void => {
          clearTimeout(timer);
          this.#pending.delete(ref);
          reject(error);
        };
        const timer = setTimeout(
          () => fail(new Error(`session store: no answer to ${op} within ${this.#timeoutMs} ms`)),
          this.#timeoutMs,
        );
        timer.unref();
        this.#pending.set(ref, (answer) => {
          clearTimeout(timer);
          this.#pending.delete(ref);
          resolve(answer);
        });
        if (!process.connected) fail(new Error('session store: the primary is gone'));
        else
          process.send!(
            { kind: 'store', ref, op, id, record } satisfies StoreOp,
            undefined,
            {},
            (error) => error && fail(error),
          );
      });
    }

    async save(id: string, record: SessionRecord): Promise<void> {
      await this.#ask('save', id, record);
    }
    load(id: string): Promise<SessionRecord | undefined> {
      return this.#ask('load', id);
    }
    async remove(id: string): Promise<void> {
      await this.#ask('remove', id);
    }
  }

  const server = createServer(
    { name: 'cluster-example', version: '1.0.0' },
    {
      changeBus: new ClusterChangeBus(),
      requestState: { secret: process.env.MCP_STATE_SECRET },
    },
  );
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  let counter = 0; // per worker: what this worker's touches counted

  server.tool(
    'echo',
    {
      description: 'Echoes its text',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    ({ text: value }: { text: string }) => text(value),
  );
  server.tool(
    'whoami',
    { description: 'The pid of the worker serving this call', inputSchema: { type: 'object' } },
    () => text(String(process.pid)),
  );
  server.tool(
    'touch',
    {
      description:
        'Bumps the counter and announces it: resource updated (the uri, default mem://counter), tools list changed',
      inputSchema: { type: 'object', properties: { uri: { type: 'string' } } },
    },
    ({ uri = 'mem://counter' }: { uri?: string }) => {
      counter++;
      server.notifyResourceUpdated(uri); // through the bus: the clients of every worker hear it
      server.notifyListChanged('tools');
      return text(`${uri} touched by ${process.pid}`);
    },
  );
  server.resource('mem://counter', { name: 'counter', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: `${counter} (worker ${process.pid})` }],
  }));
  // Asks once; the answer may come back to another worker, which opens the state this one sealed.
  server.tool(
    'confirm',
    { description: 'Asks the user to confirm, then answers', inputSchema: { type: 'object' } },
    (_args, ctx) => {
      if (ctx.requestState === undefined) {
        const question = elicitInput({ message: 'Go on?', requestedSchema: { type: 'object', properties: {} } });
        return inputRequired({ confirm: question }, { askedBy: process.pid });
      }
      const { askedBy } = ctx.requestState as { askedBy: number };
      return text(`asked by ${askedBy}, answered by ${process.pid}`);
    },
  );

  const http = await serveHttp(server, { port, sharedSessions: new PrimarySessionStore() });
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    void http.close().then(() => cluster.worker!.disconnect()); // nothing left open: the worker exits with 0
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
}
