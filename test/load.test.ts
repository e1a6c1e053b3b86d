// Load: 200 concurrent HTTP clients on one serveHttp endpoint — half 2025 sessions, half sessionless 2026 — each
// calling an echo tool whose answer carries the caller's identity and sequence number, after a progress notification
// and a log message on the same exchange, while each call also updates the caller's own resource, announced on the
// caller's long-lived stream (its session's GET stream, or its listen). Asserts that no answer is lost or duplicated
// and that nothing reaches another client; p50/p99 latencies are reported as diagnostics (no timing assertions).

import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { type HttpServer, MemoryEventStore, serveHttp } from '../http.ts';
import { deferred, type Frame, MemoryLogger } from './harness.ts';
import { LOG_LEVEL, MODERN, modern, notification, request, SUBSCRIPTION_ID } from './wire.ts';

const CLIENTS = 200; // half of each era
const CALLS = 75; // per client
const T = { timeout: 60_000 }; // a safety net against hangs only; no assertion depends on time

const LATEST = '2025-11-25';
const BOTH = 'application/json, text/event-stream';
const INFO = { name: 'load-test', version: '1.0.0' };

// ---------------------------------------------------------------------------------------------------------------
// The server: echo (progress, log, resource update, then the caller's identity back) and fence (a last update)

interface Echo {
  client: string;
  seq: number;
}

function loadServer(): { server: Server; handled: Map<string, number>; logger: MemoryLogger } {
  const logger = new MemoryLogger();
  const server = createServer(INFO, { logger });
  const handled = new Map<string, number>();
  server.tool(
    'echo',
    {
      description: 'Answers with the caller identity and sequence number',
      inputSchema: {
        type: 'object',
        properties: { client: { type: 'string' }, seq: { type: 'integer' } },
        required: ['client', 'seq'],
      },
    },
    (args, ctx) => {
      const { client, seq } = args as unknown as Echo;
      const key = `${client}#${seq}`;
      handled.set(key, (handled.get(key) ?? 0) + 1);
      ctx.progress(1, 1, key);
      ctx.log('info', { client, seq });
      server.notifyResourceUpdated(`load://${client}`);
      return { content: [{ type: 'text', text: key }], structuredContent: { client, seq } };
    },
  );
  server.tool(
    'fence',
    {
      description: 'Updates the caller fence resource: every update announced before it was delivered first',
      inputSchema: { type: 'object', properties: { client: { type: 'string' } }, required: ['client'] },
    },
    (args) => {
      server.notifyResourceUpdated(`load://${(args as { client: string }).client}/fence`);
      return { content: [{ type: 'text', text: 'fenced' }] };
    },
  );
  server.resourceTemplate('load://{client}', { name: 'client' }, (uri) => ({ contents: [{ uri, text: uri }] }));
  return { server, handled, logger };
}

// ---------------------------------------------------------------------------------------------------------------
// Wire: one exchange on a client's keep-alive agent, SSE parsed as it arrives

interface Opened {
  response: IncomingMessage;
  drop(): void;
}

function open(agent: Agent, url: URL, method: string, headers: Record<string, string>, body?: Frame): Promise<Opened> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        agent,
        headers: text === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(text)) },
      },
      (response) =>
        resolve({
          response,
          drop: () => {
            response.on('error', () => {});
            req.destroy();
          },
        }),
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Calls `onMessage` for each JSON-RPC message of an SSE body as it arrives (priming events and comments skipped). */
function onEvents(response: IncomingMessage, onMessage: (message: Frame) => void): Promise<void> {
  response.setEncoding('utf8');
  let text = '';
  return new Promise((resolve, reject) => {
    response.on('data', (chunk: string) => {
      text += chunk;
      let cut: number;
      while ((cut = text.indexOf('\n\n')) !== -1) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.replace(/^data: ?/, ''));
        const joined = data.join('\n');
        if (joined !== '') onMessage(JSON.parse(joined));
      }
    });
    response.once('end', () =>
      text === '' ? resolve() : reject(new Error(`the stream ended inside an event: ${text}`)),
    );
    response.once('error', reject);
  });
}

/** Every message of an answer: one JSON body, or the events of an SSE body up to its end. */
async function messages(
  opened: Opened,
): Promise<{ status: number; headers: IncomingMessage['headers']; messages: Frame[] }> {
  const { response } = opened;
  const found: Frame[] = [];
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    await onEvents(response, (message) => found.push(message));
  } else {
    response.setEncoding('utf8');
    let body = '';
    for await (const chunk of response) body += chunk as string;
    if (body !== '') found.push(JSON.parse(body));
  }
  return { status: response.statusCode!, headers: response.headers, messages: found };
}

// ---------------------------------------------------------------------------------------------------------------
// One client: its long-lived stream collects resource updates; its calls are checked frame by frame

type Era = '2025' | '2026';

interface ClientReport {
  latencies: number[];
  era: Era;
}

class LoadClient {
  readonly name: string;
  readonly era: Era;
  readonly #url: URL;
  readonly agent = new Agent({ keepAlive: true, maxSockets: 2 }); // one for the long-lived stream, one for calls
  #sessionId: string | undefined;
  #stream: Opened | undefined;
  #streamDone: Promise<void> | undefined;
  /** Updates of this client's own resource seen on its long-lived stream, and everything else seen there. */
  updates = 0;
  readonly foreign: Frame[] = [];
  readonly #fenced = deferred();
  readonly latencies: number[] = [];

  constructor(url: string, index: number) {
    this.#url = new URL(url);
    this.era = index % 2 === 0 ? '2025' : '2026';
    this.name = `c${index}`;
  }

  get #uri(): string {
    return `load://${this.name}`;
  }

  #headers(method: string, name?: string): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: BOTH };
    if (this.era === '2025') {
      if (this.#sessionId !== undefined) {
        headers['mcp-session-id'] = this.#sessionId;
        headers['mcp-protocol-version'] = LATEST;
      }
      return headers;
    }
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = method;
    if (name !== undefined) headers['mcp-name'] = name;
    return headers;
  }

  #onStreamMessage(message: Frame): void {
    const isMine = (uri: string): boolean =>
      message.method === 'notifications/resources/updated' &&
      message.params?.uri === uri &&
      (this.era === '2025' || message.params?._meta?.[SUBSCRIPTION_ID] === `listen-${this.name}`);
    if (isMine(this.#uri)) this.updates++;
    else if (isMine(`${this.#uri}/fence`)) this.#fenced.resolve();
    else this.foreign.push(message);
  }

  async #post(frame: Frame, method: string, name?: string) {
    return messages(await open(this.agent, this.#url, 'POST', this.#headers(method, name), frame));
  }

  /**
   * 2025: initialize, the GET stream, initialized, the subscriptions. 2026: the listen, then server/discover. The
   * long-lived stream takes the agent's first socket and setup opens the second, so the timed calls all run on an
   * established keep-alive connection (a burst of new connections is accepted late under load, by node itself).
   */
  async start(): Promise<void> {
    const uris = [this.#uri, `${this.#uri}/fence`];
    if (this.era === '2025') {
      const init = await this.#post(
        request(0, 'initialize', {
          protocolVersion: LATEST,
          capabilities: {},
          clientInfo: { name: this.name, version: '1.0.0' },
        }),
        'initialize',
      );
      assert.equal(init.status, 200);
      assert.equal(init.messages[0]?.result?.protocolVersion, LATEST);
      this.#sessionId = init.headers['mcp-session-id'] as string;
      this.#stream = await open(this.agent, this.#url, 'GET', {
        accept: 'text/event-stream',
        'mcp-session-id': this.#sessionId,
        'mcp-protocol-version': LATEST,
      });
      assert.equal(this.#stream.response.statusCode, 200);
      this.#streamDone = onEvents(this.#stream.response, (message) => this.#onStreamMessage(message));
      assert.equal((await this.#post(notification('notifications/initialized'), '')).status, 202);
      for (const [index, uri] of uris.entries()) {
        const subscribed = await this.#post(request(`sub${index}`, 'resources/subscribe', { uri }), '');
        assert.deepEqual(subscribed.messages, [{ jsonrpc: '2.0', id: `sub${index}`, result: {} }]);
      }
      return;
    }
    const id = `listen-${this.name}`;
    this.#stream = await open(
      this.agent,
      this.#url,
      'POST',
      this.#headers('subscriptions/listen'),
      modern('subscriptions/listen', { notifications: { resourceSubscriptions: uris } }, id),
    );
    assert.equal(this.#stream.response.statusCode, 200);
    const acknowledged = deferred();
    this.#streamDone = onEvents(this.#stream.response, (message) => {
      if (message.method === 'notifications/subscriptions/acknowledged') {
        assert.deepEqual(message.params, {
          _meta: { [SUBSCRIPTION_ID]: id },
          notifications: { resourceSubscriptions: uris },
        });
        acknowledged.resolve();
      } else {
        this.#onStreamMessage(message);
      }
    });
    this.#streamDone.catch(() => {}); // dropped at the end on purpose
    await acknowledged.promise;
    const discovered = await this.#post(modern('server/discover', {}, 'discover'), 'server/discover');
    assert.equal(discovered.messages[0]?.id, 'discover');
    assert.ok('result' in discovered.messages[0], JSON.stringify(discovered.messages[0]));
  }

  /** One echo call: exactly progress, log, answer — each naming this client and this sequence number. */
  async call(seq: number): Promise<void> {
    assert.deepEqual(this.foreign, [], `${this.name}: nothing on its stream that was not its own`);
    const id = `${this.name}-${seq}`;
    const token = `${this.name}:${seq}`;
    const args = { client: this.name, seq };
    const frame =
      this.era === '2025'
        ? request(id, 'tools/call', { name: 'echo', arguments: args, _meta: { progressToken: token } })
        : modern('tools/call', { name: 'echo', arguments: args }, id, { progressToken: token, [LOG_LEVEL]: 'info' });
    const began = performance.now();
    const answer = await this.#post(frame, 'tools/call', 'echo');
    this.latencies.push(performance.now() - began);
    assert.equal(answer.status, 200);
    const result =
      this.era === '2025'
        ? { content: [{ type: 'text', text: `${this.name}#${seq}` }], structuredContent: args }
        : {
            content: [{ type: 'text', text: `${this.name}#${seq}` }],
            structuredContent: args,
            resultType: 'complete',
            _meta: { 'io.modelcontextprotocol/serverInfo': INFO },
          };
    assert.deepEqual(
      answer.messages,
      [
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1, total: 1, message: `${this.name}#${seq}` },
        },
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: args } },
        { jsonrpc: '2.0', id, result },
      ],
      `${id}: its own notifications, then its own answer, once`,
    );
  }

  /** Waits until the stream delivered everything announced before the fence, then ends the client. */
  async finish(): Promise<void> {
    const id = `${this.name}-fence`;
    const frame =
      this.era === '2025'
        ? request(id, 'tools/call', { name: 'fence', arguments: { client: this.name } })
        : modern('tools/call', { name: 'fence', arguments: { client: this.name } }, id);
    const fenced = await this.#post(frame, 'tools/call', 'fence');
    assert.equal(fenced.messages.at(-1)?.id, id);
    await this.#fenced.promise;
    if (this.era === '2025') {
      const ended = await messages(await open(this.agent, this.#url, 'DELETE', this.#headers('')));
      assert.equal(ended.status, 200);
      await this.#streamDone; // the session's end ends its GET stream
    } else {
      this.#stream!.drop();
    }
    this.agent.destroy();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return (
    `n=${sorted.length} p50=${percentile(sorted, 50).toFixed(1)} ms p99=${percentile(sorted, 99).toFixed(1)} ms ` +
    `max=${sorted.at(-1)!.toFixed(1)} ms`
  );
}

// ---------------------------------------------------------------------------------------------------------------

test(
  `${CLIENTS} concurrent clients of both eras on one endpoint each get every answer exactly once, with their own notifications only`,
  T,
  async (t) => {
    const { server, handled, logger } = loadServer();
    const events = new MemoryEventStore(); // the default store, held here to see it emptied
    const http: HttpServer = await serveHttp(server, { port: 0, eventStore: events });
    let serving = true;
    t.after(async () => {
      if (serving) await http.close();
    });
    // The server side of every exchange: the test ends only once each one has closed.
    let finished = false;
    let exchanges = 0;
    const closed = { count: 0, all: deferred() };
    http.httpServer.prependListener('request', (_request, response) => {
      exchanges++;
      response.once('close', () => {
        if (++closed.count === exchanges && finished) closed.all.resolve();
      });
    });

    const clients = Array.from({ length: CLIENTS }, (_, index) => new LoadClient(http.url, index));
    const began = performance.now();
    await Promise.all(clients.map((client) => client.start()));
    assert.equal(http.handler.sessionCount, CLIENTS / 2);
    assert.equal(server.metrics().connections, CLIENTS, 'one connection per session and per listen');
    const reports: ClientReport[] = await Promise.all(
      clients.map(async (client) => {
        for (let seq = 1; seq <= CALLS; seq++) await client.call(seq);
        await client.finish();
        return { latencies: client.latencies, era: client.era };
      }),
    );
    const elapsed = performance.now() - began;

    for (const client of clients) {
      assert.equal(
        client.updates,
        CALLS,
        `${client.name}: one update of its own resource per call, none lost or doubled`,
      );
      assert.deepEqual(client.foreign, [], `${client.name}: nothing on its stream that was not its own`);
    }
    assert.equal(handled.size, CLIENTS * CALLS);
    for (const [key, count] of handled) assert.equal(count, 1, `${key} was handled ${count} times`);
    assert.equal(http.handler.sessionCount, 0, 'every session was deleted');
    finished = true;
    if (closed.count === exchanges) closed.all.resolve();
    await closed.all.promise;
    assert.equal(server.metrics().connections, 0, 'no session or listen connection is left');
    assert.equal(events.size, 0, 'the events stored for resumption went with their sessions');
    assert.deepEqual(logger.errors, []);

    const all = reports.flatMap((report) => report.latencies);
    t.diagnostic(
      `${CLIENTS} clients x ${CALLS} calls (+ setup and a fence each) in ${(elapsed / 1000).toFixed(1)} s, ${exchanges} exchanges`,
    );
    t.diagnostic(`all calls: ${summary(all)}`);
    for (const era of ['2025', '2026'] as const) {
      t.diagnostic(
        `${era} calls: ${summary(reports.filter((report) => report.era === era).flatMap((report) => report.latencies))}`,
      );
    }
    serving = false;
    await http.close();
  },
);
