// Interop with the official TypeScript SDK clients: the v1 client (@modelcontextprotocol/sdk, 2025 lifecycle only)
// and the v2 client (@modelcontextprotocol/client, with versionNegotiation 'legacy', 'auto' and pinned 2026-07-28)
// drive the demo server over stdio (examples/everything.ts spawned by the client's own stdio transport) and over
// HTTP (serveHttp in-process on a loopback port).
//
// Each client × transport × mode is one suite sharing one connection; every capability is its own test. Besides
// what the client API returns, each suite records the JSON-RPC frames the client's transport sends and receives,
// so the tests can also check the wire (ordering, ids, what the server must not send).
//
// Known client deviations are pinned here and described with their frames in docs/client-deviations.md.
//
// Determinism: every wait is on an explicit signal (a progress notification, a notification handler, the GET
// stream's response, the server's connection count); nothing sleeps and nothing asserts on time.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
  type McpSubscription,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '../core.ts';
import { createEverythingServer } from '../examples/everything.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { DEMO_SKILL_FILES, deferred, type Frame } from './harness.ts';
import { SseReader } from './sse-reader.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const EVERYTHING_INFO = { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' };
const DEMO = fileURLToPath(new URL('../examples/everything.ts', import.meta.url));
const CANCEL_REASON = 'cancelled by the interop test';

// ---------------------------------------------------------------------------------------------------------------
// The matrix

type ClientKind = 'sdk v1' | 'client v2';
type TransportKind = 'stdio' | 'http';
type Mode = 'legacy' | 'auto' | typeof MODERN;
type Era = 'legacy' | 'modern';

interface Case {
  client: ClientKind;
  transport: TransportKind;
  mode: Mode;
  era: Era; // what the mode negotiates with this server
}

const MODES: Record<ClientKind, { mode: Mode; era: Era }[]> = {
  'sdk v1': [{ mode: 'legacy', era: 'legacy' }], // v1 has no negotiation: the 2025 lifecycle only
  'client v2': [
    { mode: 'legacy', era: 'legacy' },
    { mode: 'auto', era: 'modern' },
    { mode: MODERN, era: 'modern' },
  ],
};

const CASES: Case[] = (['sdk v1', 'client v2'] as const).flatMap((client) =>
  (['stdio', 'http'] as const).flatMap((transport) =>
    MODES[client].map(({ mode, era }) => ({ client, transport, mode, era })),
  ),
);

// ---------------------------------------------------------------------------------------------------------------
// One API over both clients (they differ in callTool's signature and in how handlers are registered)

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
interface CallOptions {
  onprogress?: (progress: Progress) => void;
  signal?: AbortSignal;
}
interface ToolResult {
  content?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}
interface Notification {
  method: string;
  params?: Record<string, unknown>;
}

interface Api {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(uri: string): Promise<{ contents: unknown[]; [key: string]: unknown }>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(name: string, args: Record<string, string>): Promise<{ messages: unknown[]; [key: string]: unknown }>;
  completePromptArgument(prompt: string, argument: string, value: string): Promise<{ completion: unknown }>;
  onToolListChanged(handler: (notification: Notification) => void): void;
  serverVersion(): unknown;
  close(): Promise<void>;
}

const ANSWERS: Record<string, string> = { username: 'ada', email: 'ada@example.com', name: 'Ada' };

/** What every client's elicitation handler answers: accept, with a value for each requested field. */
function answerElicitation(params: { requestedSchema?: { properties?: Record<string, unknown> } }) {
  const fields = Object.keys(params.requestedSchema?.properties ?? {});
  return {
    action: 'accept' as const,
    content: Object.fromEntries(fields.map((field) => [field, ANSWERS[field] ?? 'x'])),
  };
}

/** Records every frame the transport carries, in order, with its direction. */
interface Wire {
  frames: { dir: 'out' | 'in'; frame: Frame }[];
  out(): Frame[];
  in(): Frame[];
}

interface Recordable {
  send(message: never, options?: never): Promise<void>;
  onmessage?: (message: never, extra?: never) => void;
}

function record(transport: Recordable): Wire {
  const wire: Wire = {
    frames: [],
    out: () => wire.frames.filter((f) => f.dir === 'out').map((f) => f.frame),
    in: () => wire.frames.filter((f) => f.dir === 'in').map((f) => f.frame),
  };
  const send = transport.send.bind(transport) as (message: Frame, options?: unknown) => Promise<void>;
  (transport as { send(message: Frame, options?: unknown): Promise<void> }).send = (message, options) => {
    wire.frames.push({ dir: 'out', frame: structuredClone(message) });
    return send(message, options);
  };
  // Both clients chain an onmessage set before connect() and call it first, in arrival order.
  (transport as { onmessage?: (message: Frame) => void }).onmessage = (message) => {
    wire.frames.push({ dir: 'in', frame: structuredClone(message) });
  };
  return wire;
}

/** One HTTP exchange the client made: its method, the JSON-RPC method or id in a POST body, the status. */
interface Exchange {
  method: string;
  rpc?: string;
  lastEventId?: string;
  status: number;
}

/** The exchanges a transport made, in order, and a way to wait for one. */
class Exchanges {
  readonly list: Exchange[] = [];
  readonly #waiters: { match(exchange: Exchange): boolean; resolve(exchange: Exchange): void }[] = [];

  add(exchange: Exchange): void {
    this.list.push(exchange);
    for (const waiter of this.#waiters.filter((w) => w.match(exchange))) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(exchange);
    }
  }

  next(match: (exchange: Exchange) => boolean): Promise<Exchange> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

interface Session {
  api: Api;
  wire: Wire;
  errors: Error[]; // everything the client reported through onerror
  elicitations: unknown[]; // params of every elicitation the client's handler answered
  v2?: ClientV2;
  server?: Server; // HTTP: the in-process server
  http?: HttpServer;
  exchanges: Exchanges; // HTTP: every request the client's transport made
  getStreamOpen: Promise<void>; // HTTP: the client's standalone GET stream got its response
  sessionId?: () => string | undefined; // legacy HTTP: the client's Mcp-Session-Id
  deleteSession?: (sessionId: string) => Promise<void>; // HTTP: DELETE through a fresh transport of the same SDK
  exited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** A fetch that logs every exchange and reports when the client's standalone GET stream is open (legacy HTTP routes
 * unrelated notifications such as list_changed to it). */
function watchingFetch(exchanges: Exchanges, onGetStream: () => void): typeof fetch {
  return async (input, init) => {
    const exchange: Partial<Exchange> = { method: init?.method ?? 'GET' };
    if (typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as Frame;
      exchange.rpc = body.method ?? `response ${JSON.stringify(body.id)}`;
    }
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    if (lastEventId !== null) exchange.lastEventId = lastEventId;
    const response = await fetch(input, init);
    exchanges.add({ ...exchange, status: response.status } as Exchange);
    if (exchange.method === 'GET' && lastEventId === null && response.ok) onGetStream();
    return response;
  };
}

/** The child a stdio transport spawned (a private field of both SDKs' transports; read to see how it exits). */
function childOf(transport: object): { exited: Session['exited'] } {
  const child = (transport as { _process?: ChildProcess })._process;
  assert.ok(child !== undefined, 'the stdio transport has no child process');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { exited };
}

/** The demo server as a child of the dev Node (type stripping), its stderr piped so the test can read it. */
const STDIO = { command: process.execPath, args: [DEMO, '--stdio'], stderr: 'pipe' as const };

/** A failed connect must not leave a child or a listening server behind (the suite's `after` has no session). */
async function connectOrCleanUp(
  connect: () => Promise<void>,
  close: () => Promise<void>,
  http: HttpServer | undefined,
): Promise<void> {
  try {
    await connect();
  } catch (error) {
    await close().catch(() => {});
    await http?.close();
    throw error;
  }
}

async function open(c: Case): Promise<Session> {
  const errors: Error[] = [];
  const elicitations: unknown[] = [];
  const stderrChunks: string[] = [];
  const getStream = deferred();
  const exchanges = new Exchanges();
  let server: Server | undefined;
  let http: HttpServer | undefined;
  if (c.transport === 'http') {
    server = createEverythingServer();
    http = await serveHttp(server, { port: 0 });
  }
  const url = http === undefined ? undefined : new URL(http.url);
  const fetchOption = watchingFetch(exchanges, () => getStream.resolve());

  if (c.client === 'sdk v1') {
    const client = new ClientV1({ name: 'interop-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.onerror = (error) => errors.push(error);
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicitations.push(request.params);
      return answerElicitation(request.params as Parameters<typeof answerElicitation>[0]);
    });
    const transport =
      url === undefined
        ? new StdioTransportV1({ ...STDIO, args: [...STDIO.args] })
        : new HttpTransportV1(url, { fetch: fetchOption });
    if (transport instanceof StdioTransportV1)
      transport.stderr?.on('data', (chunk: Buffer) => stderrChunks.push(String(chunk)));
    const wire = record(transport as unknown as Recordable);
    await connectOrCleanUp(
      () => client.connect(transport),
      () => client.close(),
      http,
    );
    const api: Api = {
      listTools: () => client.listTools(),
      callTool: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
      listResources: () => client.listResources(),
      listResourceTemplates: () => client.listResourceTemplates(),
      readResource: (uri) => client.readResource({ uri }),
      listPrompts: () => client.listPrompts(),
      getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
      completePromptArgument: (prompt, argument, value) =>
        client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } }),
      onToolListChanged: (handler) => client.setNotificationHandler(ToolListChangedNotificationSchema, handler),
      serverVersion: () => client.getServerVersion(),
      close: () => client.close(),
    };
    return {
      api,
      wire,
      errors,
      elicitations,
      server,
      http,
      exchanges,
      getStreamOpen: getStream.promise,
      ...(transport instanceof StdioTransportV1
        ? childOf(transport)
        : {
            sessionId: () => transport.sessionId,
            deleteSession: (sessionId: string) =>
              new HttpTransportV1(url!, { sessionId, fetch: fetchOption }).terminateSession(),
          }),
      stderr: () => stderrChunks.join(''),
    };
  }

  const client = new ClientV2(
    { name: 'interop-v2', version: '2.0.0' },
    {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: c.mode === MODERN ? { pin: MODERN } : c.mode },
    },
  );
  client.onerror = (error) => errors.push(error);
  client.setRequestHandler('elicitation/create', (request) => {
    elicitations.push(request.params);
    return answerElicitation(request.params as Parameters<typeof answerElicitation>[0]);
  });
  const transport =
    url === undefined
      ? new StdioTransportV2({ ...STDIO, args: [...STDIO.args] })
      : new HttpTransportV2(url, { fetch: fetchOption });
  if (transport instanceof StdioTransportV2)
    transport.stderr?.on('data', (chunk: Buffer) => stderrChunks.push(String(chunk)));
  const wire = record(transport as unknown as Recordable);
  await connectOrCleanUp(
    () => client.connect(transport),
    () => client.close(),
    http,
  );
  const api: Api = {
    listTools: () => client.listTools(),
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, options) as Promise<ToolResult>,
    listResources: () => client.listResources(),
    listResourceTemplates: () => client.listResourceTemplates(),
    readResource: (uri) => client.readResource({ uri }),
    listPrompts: () => client.listPrompts(),
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
    completePromptArgument: (prompt, argument, value) =>
      client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } }),
    onToolListChanged: (handler) => client.setNotificationHandler('notifications/tools/list_changed', handler),
    serverVersion: () => client.getServerVersion(),
    close: () => client.close(),
  };
  return {
    api,
    wire,
    errors,
    elicitations,
    v2: client,
    server,
    http,
    exchanges,
    getStreamOpen: getStream.promise,
    ...(transport instanceof StdioTransportV2
      ? childOf(transport)
      : {
          sessionId: () => transport.sessionId,
          deleteSession: (sessionId: string) =>
            new HttpTransportV2(url!, { sessionId, fetch: fetchOption }).terminateSession(),
        }),
    stderr: () => stderrChunks.join(''),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const UNKNOWN_PROGRESS = /^Received a progress notification for an unknown token: (.*)$/s;

/** Client errors other than the documented late-progress report (docs/client-deviations.md §1). */
function unexpected(errors: Error[]): string[] {
  return errors.filter((error) => !UNKNOWN_PROGRESS.test(error.message)).map((error) => error.message);
}

/** Runs `body` and asserts the client reported no (undocumented) error while it ran. */
async function quietly<R>(session: Session, body: () => Promise<R>): Promise<R> {
  const before = session.errors.length;
  const result = await body();
  assert.deepEqual(unexpected(session.errors.slice(before)), [], 'the client reported errors');
  return result;
}

function text(value: string) {
  return [{ type: 'text', text: value }];
}

/** The outbound request for a tool call started after `mark` frames were recorded. */
function outboundCall(session: Session, name: string, mark = 0): Frame {
  const frame = session.wire.frames
    .slice(mark)
    .find((f) => f.dir === 'out' && f.frame.method === 'tools/call' && f.frame.params?.name === name)?.frame;
  assert.ok(frame !== undefined, `no outbound tools/call for ${name}`);
  return frame;
}

/** Waits for a condition on server state that has no event to await (no assertion on how long it takes). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const LEGACY_ONLY_TOOL = 'test_elicitation';
const MODERN_ONLY_TOOL = 'test_input_required_result_elicitation';

// ---------------------------------------------------------------------------------------------------------------
// The suites

for (const c of CASES) {
  const title = `${c.client} over ${c.transport}, ${c.client === 'sdk v1' ? 'its only mode (2025 lifecycle)' : `versionNegotiation ${c.mode}`}`;

  describe(title, () => {
    let session!: Session;

    before(async () => {
      session = await open(c);
    });

    // The last test closes on purpose; this is for a run that failed or was filtered before it. Both closes are
    // idempotent.
    after(async () => {
      await session?.api.close();
      await session?.http?.close();
    });

    test(`connects in the ${c.era} era and sees the server's identity`, T, async () => {
      assert.deepEqual(session.api.serverVersion(), EVERYTHING_INFO);
      const sent = session.wire.out();
      if (c.era === 'legacy') {
        assert.equal(sent[0].method, 'initialize');
        assert.equal(sent[0].params.protocolVersion, LEGACY);
        const answer = session.wire.in().find((frame) => frame.id === sent[0].id);
        assert.equal(answer.result.protocolVersion, LEGACY);
        assert.deepEqual(sent[1], { jsonrpc: '2.0', method: 'notifications/initialized' });
      } else {
        assert.ok(!sent.some((frame) => frame.method === 'initialize'), 'a modern client never initializes');
      }
      if (session.v2 !== undefined) {
        assert.equal(session.v2.getProtocolEra(), c.era);
        assert.equal(session.v2.getNegotiatedProtocolVersion(), c.era === 'modern' ? MODERN : LEGACY);
      }
      assert.deepEqual(unexpected(session.errors), []);
    });

    test('lists the tools of its era and calls one', T, async () => {
      await quietly(session, async () => {
        const names = (await session.api.listTools()).tools.map((tool) => tool.name);
        assert.ok(names.includes('test_simple_text'));
        assert.equal(names.includes(LEGACY_ONLY_TOOL), c.era === 'legacy');
        assert.equal(names.includes(MODERN_ONLY_TOOL), c.era === 'modern');
        const result = await session.api.callTool('test_simple_text', {});
        assert.deepEqual(result.content, text('This is a simple text response for testing.'));
        assert.equal(result.isError, undefined);
        if (c.era === 'modern') assert.deepEqual(result._meta, { [SERVER_INFO]: EVERYTHING_INFO });
      });
    });

    test(
      'a call with progress: every step reaches the client before the answer (the last ones may be dropped: deviation 1)',
      T,
      async () => {
        const mark = session.wire.frames.length;
        const errorMark = session.errors.length;
        const delivered: Progress[] = [];
        const result = await session.api.callTool(
          'test_tool_with_progress',
          {},
          { onprogress: (p) => delivered.push(p) },
        );
        assert.deepEqual(result.content, text('Progress completed'));

        // The wire: three progress notifications for the call's token, all before its answer, none after.
        const request = outboundCall(session, 'test_tool_with_progress', mark);
        const token = request.params._meta.progressToken;
        assert.ok(typeof token === 'string' || typeof token === 'number');
        const inbound = session.wire.frames
          .slice(mark)
          .filter((f) => f.dir === 'in')
          .map((f) => f.frame);
        const answerAt = inbound.findIndex((frame) => frame.id === request.id);
        const progressAt = inbound.flatMap((frame, index) =>
          frame.method === 'notifications/progress' && frame.params.progressToken === token ? [index] : [],
        );
        const steps = [0, 50, 100].map((step) => ({
          progress: step,
          total: 100,
          message: `Completed step ${step} of 100`,
        }));
        assert.deepEqual(
          progressAt.map((index) => inbound[index].params),
          steps.map((step) => ({ progressToken: token, ...step })),
        );
        assert.ok(
          progressAt.every((index) => index < answerAt),
          'progress after the answer',
        );

        // The client: each step reached onprogress, or (deviation 1) was dropped and reported through onerror because
        // the client had already retired the token when it got to it; dropped steps are always the last ones. Over
        // stdio the last step (written right before the answer) is usually dropped, and a stalled client can drop them
        // all; that steps do reach onprogress is pinned by the cancel test, where no answer races.
        const dropped = session.errors.slice(errorMark).flatMap((error) => {
          const match = UNKNOWN_PROGRESS.exec(error.message);
          return match === null
            ? []
            : [(JSON.parse(match[1]!) as { params: Progress & { progressToken: unknown } }).params];
        });
        assert.deepEqual(unexpected(session.errors.slice(errorMark)), []);
        assert.deepEqual([...delivered, ...dropped.map(({ progressToken: _token, ...step }) => step)], steps);
      },
    );

    test(
      'a call reports progress to onprogress; cancelled, it rejects, gets no answer, and the server stays healthy',
      T,
      async () => {
        const mark = session.wire.frames.length;
        const resumption = session.exchanges.next((exchange) => exchange.lastEventId !== undefined);
        const running = deferred<Progress>();
        const controller = new AbortController();
        // The first progress reaches onprogress (nothing races it here) and proves the handler runs; only then abort.
        const call = session.api.callTool(
          'test_sleep',
          { ms: 60_000 },
          { signal: controller.signal, onprogress: (p) => running.resolve(p) },
        );
        const progress = await running.promise;
        assert.equal(progress.total, 60_000);
        assert.ok(progress.progress > 0 && progress.progress < 60_000);
        controller.abort(CANCEL_REASON);
        await assert.rejects(call, (error: Error) => error.message.includes(CANCEL_REASON));
        const request = outboundCall(session, 'test_sleep', mark);

        if (c.transport === 'http' && c.era === 'modern') {
          // Modern HTTP: the client drops the request's stream, which is the cancel (MCP 2026-07-28, Basic > Transports >
          // Streamable HTTP > Cancellation); the server
          // closes the request's connection, so the 60 s handler is no longer running.
          assert.ok(!session.wire.out().some((frame) => frame.method === 'notifications/cancelled'));
          await until(() => session.server!.metrics().connections === 0);
        } else {
          const cancel = session.wire.frames
            .slice(mark)
            .find((f) => f.dir === 'out' && f.frame.method === 'notifications/cancelled')?.frame;
          assert.ok(cancel !== undefined, 'the client sent notifications/cancelled');
          assert.equal(cancel.params.requestId, request.id);
          assert.equal(cancel.params.reason, CANCEL_REASON);
        }

        await quietly(session, async () => {
          const next = await session.api.callTool('test_simple_text', {});
          assert.deepEqual(next.content, text('This is a simple text response for testing.'));
        });
        // Nothing at all for the cancelled id: no result, no error (a later answer would have come before `next`'s).
        const answered = session.wire.frames.slice(mark).filter((f) => f.dir === 'in' && f.frame.id === request.id);
        assert.deepEqual(answered, []);

        if (c.client === 'sdk v1' && c.transport === 'http') {
          // The server ends the cancelled POST's SSE stream without an answer; having seen its priming event id, the
          // v1 client resumes it (the priming `retry:` later) with GET + Last-Event-ID while its standalone GET
          // stream is open. That is a resumption, not a second standalone stream: served, not 409 (server fix).
          await quietly(session, async () => {
            const resume = await resumption;
            assert.deepEqual(resume, { method: 'GET', lastEventId: resume.lastEventId, status: 200 });
            assert.ok(typeof resume.lastEventId === 'string' && resume.lastEventId !== '');
          });
        }
      },
    );

    test('lists and reads resources and resource templates', T, async () => {
      await quietly(session, async () => {
        const resources = (await session.api.listResources()).resources.map((resource) => resource.uri);
        assert.deepEqual(resources, [
          'test://static-text',
          'test://static-binary',
          'test://watched-resource',
          ...DEMO_SKILL_FILES,
        ]);
        assert.deepEqual((await session.api.listResourceTemplates()).resourceTemplates, [
          {
            name: 'Template Resource',
            uriTemplate: 'test://template/{id}/data',
            description: 'Data for an id',
            mimeType: 'application/json',
          },
        ]);
        const stamp =
          c.era === 'modern' ? { _meta: { [SERVER_INFO]: EVERYTHING_INFO }, ttlMs: 0, cacheScope: 'private' } : {};
        assert.deepEqual(await session.api.readResource('test://static-text'), {
          ...stamp,
          contents: [
            {
              uri: 'test://static-text',
              mimeType: 'text/plain',
              text: 'This is the content of the static text resource.',
            },
          ],
        });
        assert.deepEqual(await session.api.readResource('test://template/7/data'), {
          ...stamp,
          contents: [
            {
              uri: 'test://template/7/data',
              mimeType: 'application/json',
              text: JSON.stringify({ id: '7', templateTest: true, data: 'Data for ID: 7' }),
            },
          ],
        });
      });
    });

    test('lists prompts and gets one with arguments', T, async () => {
      await quietly(session, async () => {
        const names = (await session.api.listPrompts()).prompts.map((prompt) => prompt.name);
        assert.ok(names.includes('test_prompt_with_arguments'));
        assert.equal(names.includes('test_input_required_result_prompt'), c.era === 'modern');
        const prompt = await session.api.getPrompt('test_prompt_with_arguments', { arg1: 'paris', arg2: 'world' });
        assert.deepEqual(prompt.messages, [
          {
            role: 'user',
            content: { type: 'text', text: "Prompt with arguments: arg1='paris', arg2='world'" },
          },
        ]);
      });
    });

    test('completes a prompt argument', T, async () => {
      await quietly(session, async () => {
        const result = await session.api.completePromptArgument('test_prompt_with_arguments', 'arg1', 'par');
        assert.deepEqual(result.completion, { values: ['paris', 'park', 'party'], total: 3, hasMore: false });
      });
    });

    if (c.era === 'legacy') {
      test('receives notifications/tools/list_changed through its notification handler', T, async () => {
        await quietly(session, async () => {
          const received = deferred<Notification>();
          session.api.onToolListChanged((notification) => received.resolve(notification));
          // Legacy HTTP routes unrelated notifications to the standalone GET stream: wait until the client has it.
          if (c.transport === 'http') await session.getStreamOpen;
          await session.api.callTool('test_publish', { event: 'tools' });
          assert.deepEqual(await received.promise, { method: 'notifications/tools/list_changed' });
        });
      });

      test(
        'answers test_elicitation (elicitation/create from the server) with its elicitation handler',
        T,
        async () => {
          await quietly(session, async () => {
            const mark = session.elicitations.length;
            const result = await session.api.callTool('test_elicitation', { message: 'Who are you?' });
            assert.deepEqual(session.elicitations.slice(mark), [
              {
                message: 'Who are you?',
                requestedSchema: {
                  type: 'object',
                  properties: {
                    username: { type: 'string', description: "User's response" },
                    email: { type: 'string', description: "User's email address" },
                  },
                  required: ['username', 'email'],
                },
              },
            ]);
            assert.deepEqual(
              result.content,
              text('User response: action=accept, content={"username":"ada","email":"ada@example.com"}'),
            );
          });
        },
      );
    } else {
      test('receives notifications/tools/list_changed on a subscriptions/listen stream', T, async () => {
        await quietly(session, async () => {
          const client = session.v2!;
          const mark = session.wire.frames.length;
          const received = deferred<Notification>();
          session.api.onToolListChanged((notification) => received.resolve(notification));
          const subscription: McpSubscription = await client.listen({ toolsListChanged: true });
          assert.deepEqual(subscription.honoredFilter, { toolsListChanged: true });
          const listen = session.wire.frames
            .slice(mark)
            .find((f) => f.dir === 'out' && f.frame.method === 'subscriptions/listen')?.frame;
          assert.ok(listen !== undefined);
          assert.deepEqual(listen.params.notifications, { toolsListChanged: true });

          await session.api.callTool('test_publish', { event: 'tools' });
          assert.deepEqual(await received.promise, {
            method: 'notifications/tools/list_changed',
            params: { _meta: { [SUBSCRIPTION_ID]: listen.id } },
          });

          const cancelPost = session.exchanges.next((exchange) => exchange.rpc === 'notifications/cancelled');
          await subscription.close();
          assert.equal(await subscription.closed, 'local');
          // Closing sends notifications/cancelled for the listen id: the spec's way on stdio. Over HTTP, where
          // closing the stream is the cancel, the client POSTs it too (deviation 3); the server answers 202.
          const cancels = session.wire.frames
            .slice(mark)
            .filter((f) => f.dir === 'out' && f.frame.method === 'notifications/cancelled')
            .map((f) => f.frame.params.requestId);
          assert.deepEqual(cancels, [listen.id]);
          if (c.transport === 'http')
            assert.deepEqual(await cancelPost, { method: 'POST', rpc: 'notifications/cancelled', status: 202 });
          // Nothing more for the listen id: no final result, no error (a late one would come before this answer).
          await session.api.callTool('test_simple_text', {});
          const answers = session.wire.frames.slice(mark).filter((f) => f.dir === 'in' && f.frame.id === listen.id);
          assert.deepEqual(answers, []);
        });
      });

      test(
        'answers test_input_required_result_elicitation (input_required) with its elicitation handler',
        T,
        async () => {
          await quietly(session, async () => {
            const mark = session.wire.frames.length;
            const elicitMark = session.elicitations.length;
            const result = await session.api.callTool(MODERN_ONLY_TOOL, {});
            assert.deepEqual(result.content, text('Hello, Ada!'));
            const question = {
              message: 'What is your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            };
            assert.deepEqual(session.elicitations.slice(elicitMark), [question]);

            // The round trip on the wire: input_required, then a retry on a new id carrying the answer.
            const calls = session.wire.frames
              .slice(mark)
              .filter((f) => f.dir === 'out' && f.frame.method === 'tools/call')
              .map((f) => f.frame);
            assert.equal(calls.length, 2);
            assert.notEqual(calls[0].id, calls[1].id);
            assert.equal(calls[0].params.inputResponses, undefined);
            const first = session.wire.in().find((frame) => frame.id === calls[0].id);
            assert.equal(first.result.resultType, 'input_required');
            assert.deepEqual(first.result.inputRequests, {
              user_name: { method: 'elicitation/create', params: question },
            });
            assert.deepEqual(calls[1].params.inputResponses, {
              user_name: { action: 'accept', content: { name: 'Ada' } },
            });
            assert.equal(calls[1].params.requestState, first.result.requestState);
            // No server→client request exists in this era.
            assert.ok(
              !session.wire.frames.slice(mark).some((f) => f.dir === 'in' && f.frame.method === 'elicitation/create'),
            );
          });
        },
      );
    }

    if (c.transport === 'stdio') {
      test('closes: the child exits by itself at EOF with code 0 and wrote nothing to stderr', T, async () => {
        await session.api.close();
        // The transports close stdin, wait 2 s, then send SIGTERM: a signal here would mean the server hung at EOF.
        assert.deepEqual(await session.exited, { code: 0, signal: null });
        assert.equal(session.stderr(), '');
      });
    } else if (c.era === 'legacy') {
      test(
        "closes without DELETE, leaving its session (deviation 2); the SDK's terminateSession() ends it",
        T,
        async () => {
          const handler = session.http!.handler;
          const sessionId = session.sessionId!();
          assert.ok(sessionId !== undefined);
          assert.equal(handler.sessionCount, 1);
          const mark = session.exchanges.list.length;
          await session.api.close();
          assert.deepEqual(session.exchanges.list.slice(mark), []);
          assert.equal(handler.sessionCount, 1);
          await session.deleteSession!(sessionId);
          assert.deepEqual(session.exchanges.list.slice(mark), [{ method: 'DELETE', status: 200 }]);
          assert.equal(handler.sessionCount, 0);
          await session.http!.close();
          assert.equal(session.server!.metrics().connections, 0);
        },
      );
    } else {
      test('closes: nothing is left open on the server', T, async () => {
        await session.api.close();
        await session.http!.close();
        assert.equal(session.server!.metrics().connections, 0);
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The server fix the v1 client exposed, pinned at the wire (docs/client-deviations.md, notes)

test(
  "a GET resuming a cancelled request's POST stream is served while a GET stream is open; resuming the open GET stream takes it over",
  T,
  async () => {
    const server = createEverythingServer();
    const http = await serveHttp(server, { port: 0 });
    try {
      let sessionId = '';
      const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LEGACY,
        ...(sessionId === '' ? {} : { 'mcp-session-id': sessionId }),
        ...extra,
      });
      const post = (body: Frame) => fetch(http.url, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
      const get = (lastEventId?: string) =>
        fetch(http.url, {
          headers: headers(
            lastEventId === undefined
              ? { accept: 'text/event-stream' }
              : { accept: 'text/event-stream', 'last-event-id': lastEventId },
          ),
        });
      const initialize = await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'wire', version: '1.0.0' } },
      });
      sessionId = initialize.headers.get('mcp-session-id')!;
      assert.equal((await new SseReader(initialize).rest()).at(-1)?.message.result.protocolVersion, LEGACY);
      assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);

      const standalone = new SseReader(await get());
      server.notifyListChanged('tools');
      const own = (await standalone.next())!;
      assert.equal(own.message.method, 'notifications/tools/list_changed');

      // A call with progress, cancelled once it runs: its stream ends without an answer, after its priming event.
      const call = new SseReader(
        await post({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'test_sleep', arguments: { ms: 60_000 }, _meta: { progressToken: 't1' } },
        }),
      );
      const first = (await call.next())!;
      assert.equal(first.message.method, 'notifications/progress');
      assert.equal(
        (await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })).status,
        202,
      );
      const events = [first, ...(await call.rest())];
      assert.ok(events.every((event) => event.message.method === 'notifications/progress'));
      assert.equal(call.priming.length, 1);

      // Resuming it from its priming event replays everything it carried, then stays open with nothing more.
      const fromStart = new SseReader(await get(call.priming[0]));
      assert.deepEqual(await Promise.all(events.map(() => fromStart.next())), events);
      // Resuming from its last event replays nothing.
      const fromEnd = await get(events.at(-1)!.id);
      assert.equal(fromEnd.status, 200);

      // Not resumptions of a POST stream: an id the session never issued opens a new GET stream; the open GET
      // stream's own id takes that stream over (its old connection ends) and it delivers on the new one.
      const unknown = new SseReader(await get('no-such-event_1'));
      const takenOver = new SseReader(await get(own.id!));
      await standalone.ended();
      server.notifyListChanged('prompts');
      assert.equal((await takenOver.message()).method, 'notifications/prompts/list_changed');

      // Ending the session ends every stream it holds, the resumed ones included.
      assert.equal((await fetch(http.url, { method: 'DELETE', headers: headers() })).status, 200);
      await fromStart.ended();
      await new SseReader(fromEnd).ended();
      await takenOver.ended();
      await unknown.ended();
    } finally {
      await http.close();
    }
  },
);
