// Fuzz runner (test/fuzz.test.ts, scripts/fuzz.ts): drives the seeded frames of fuzz-gen.ts into serveStdio over
// in-memory streams or serveHttp on 127.0.0.1:0 (2025 session or 2026 sessionless POSTs), against a server whose slow
// tool waits for the runner's gate. Checks: no uncaught error; one answer per answerable request (bar cancels, refused
// in-flight duplicates, drain cuts); only JSON-RPC out; in-flight state back to the held set at barriers; bounded heap.

import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { getHeapSnapshot, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type Context, createServer, type Server } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { type StdioServer, serveStdio } from '../stdio.ts';
import {
  type CancelItem,
  type Era,
  FrameGenerator,
  type FrameItem,
  type Outcome,
  type Profile,
  Rng,
  type Transport,
} from './fuzz-gen.ts';
import { deferred, MemoryLogger } from './harness.ts';
import { envelope, type Id } from './wire.ts';

export interface FuzzOptions {
  seed: number;
  /** Frames put on the wire (barrier sentinels not counted). */
  frames: number;
  transport: Transport;
  era: Era;
  /** The version the legacy connection negotiates (default 2025-11-25; 2025-03-26 serves batches). */
  legacyVersion?: string;
  /** The stdio line cap and HTTP body cap (default 768 KiB, so some giant frames pass and some do not). */
  maxFrameBytes?: number;
  /** The drain window at the end (default 100 ms; only requests never released wait it out). */
  drainWindowMs?: number;
  /** How long any one wait may take before it counts as a hang (default 15 s; never reached when all is well). */
  guardMs?: number;
  /** Heap growth allowed from before the run to after it, both after garbage collection (default 32 MiB). */
  heapBoundBytes?: number;
}

export interface FuzzSummary {
  seed: number;
  transport: Transport;
  era: Era;
  version: string;
  frames: number;
  bytes: number;
  /** Requests with a usable id (the ones that must be answered unless withdrawn). */
  requests: number;
  /** Answers to those, matched to their expectation. */
  answered: number;
  /** Answers with id null (unparseable or unreadable frames), all expected. */
  nullAnswers: number;
  /** Held requests the peer cancelled (never answered). */
  cancelled: number;
  /** Requests refused because their id was still in flight. */
  duplicatesRefused: number;
  /** Held requests still running when the drain window closed. */
  drainCut: number;
  /** Of those, the ones answered anyway (modern HTTP answers a cut request 503 / -32603). */
  drainCutAnswered: number;
  /** Oversized HTTP bodies whose 413 answer the connection reset beat (the server closes without reading the body). */
  oversizedResets: number;
  /** Handlers of cancelled or cut requests that saw their signal abort. */
  abortsSeen: number;
  reused: number;
  batchAnswers: number;
  notifications: number;
  /** Barriers passed (each checks that every answer is in and the in-flight table holds only the held requests). */
  barriers: number;
  /** Deliberate tool failures the server logged (the `fail` tool); any other logged error is a violation. */
  toolFailuresLogged: number;
  warnings: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  heapDeltaBytes: number;
  heapPeakBytes: number;
  durationMs: number;
  labels: Record<string, number>;
  violationCount: number;
  /** The first violations, each a sentence naming the frame category and what went wrong. */
  violations: string[];
}

const MAX_REPORTED = 40;
const SYNC_PREFIX = 'sync-';

// ---------------------------------------------------------------------------------------------------------------
// The server under test

type Signal = ReturnType<typeof deferred<void>>;

interface Gate {
  open: Signal;
  started: Signal;
  aborted: Signal;
  wasAborted: boolean;
}

/** The slow tool's gates: it reports when it starts and when it sees its abort, and finishes when its gate opens. */
export class Gates {
  readonly #gates = new Map<number, Gate>();

  get(gate: number): Gate {
    let entry = this.#gates.get(gate);
    if (entry === undefined) {
      entry = { open: deferred<void>(), started: deferred<void>(), aborted: deferred<void>(), wasAborted: false };
      this.#gates.set(gate, entry);
    }
    return entry;
  }

  open(gate: number): void {
    this.get(gate).open.resolve();
  }
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** The server the fuzzer drives: echo, add, mirror (reflects its arguments), fail, slow (gated), a resource, a template, a prompt. */
export function createFuzzServer(gates: Gates, logger: MemoryLogger): Server {
  const server = createServer({ name: 'fuzz', version: '1.0.0' }, { logger });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    (args: { text: string }) => text(args.text),
  );
  server.tool(
    'add',
    {
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    (args: { a: number; b: number }) => text(String(args.a + args.b)),
  );
  server.tool('mirror', { inputSchema: { type: 'object' } }, (args: Record<string, unknown>) => ({
    content: [{ type: 'text' as const, text: 'mirror' }],
    structuredContent: args,
  }));
  server.tool('fail', {}, () => {
    throw new Error('fuzz: deliberate failure');
  });
  server.tool(
    'slow',
    { inputSchema: { type: 'object', properties: { gate: { type: 'integer' } }, required: ['gate'] } },
    async (args: { gate: number }, ctx: Context) => {
      const gate = gates.get(args.gate);
      gate.started.resolve();
      ctx.progress(1, 2, 'started');
      if (!ctx.signal.aborted) {
        await new Promise<void>((resolve) => {
          void gate.open.promise.then(resolve);
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
      if (ctx.signal.aborted) {
        gate.wasAborted = true;
        gate.aborted.resolve();
      }
      return text(`gate ${args.gate}`);
    },
  );
  server.resource('fuzz://static', { name: 'static' }, (uri) => ({ contents: [{ uri, text: 'static' }] }));
  server.resourceTemplate(
    'fuzz://item/{n}',
    {
      name: 'item',
      complete: { n: (value) => ['1', '2', '3', '10'].filter((n) => n.startsWith(value)) },
    },
    (uri, variables) => ({ contents: [{ uri, text: String(variables.n) }] }),
  );
  server.prompt(
    'greet',
    {
      arguments: [{ name: 'name', required: true }],
      complete: { name: (value) => ['ada', 'alan', 'grace'].filter((name) => name.startsWith(value)) },
    },
    (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hi ${args.name}` } }] }),
  );
  return server;
}

// ---------------------------------------------------------------------------------------------------------------
// The book: what must come back, and what did

type State = 'pending' | 'held' | 'listen' | 'cancelled' | 'cut' | 'done' | 'missing';

interface Expectation {
  outcome: Outcome;
  state: State;
  label: string;
  /** A refusal of an id still in flight. */
  duplicate: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function idKey(id: Id): string {
  return typeof id === 'number' ? `n:${id === 0 ? 0 : id}` : `s:${id}`;
}

function shortId(id: unknown): string {
  const text = JSON.stringify(id) ?? String(id);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(message: Record<string, unknown>): string {
  if ('result' in message) return 'a result';
  const error = message.error as { code?: unknown; message?: unknown };
  const detail = typeof error?.message === 'string' ? error.message : '';
  return `error ${String(error?.code)} "${detail.length > 80 ? `${detail.slice(0, 77)}...` : detail}"`;
}

function fits(outcome: Outcome, message: Record<string, unknown>): boolean {
  const code = isPlainObject(message.error) ? message.error.code : undefined;
  switch (outcome) {
    case 'result':
      return 'result' in message;
    case 'error':
      return 'error' in message && code !== -32603;
    case 'any':
      return 'result' in message || code !== -32603;
    default:
      return code === outcome;
  }
}

/** A JSON-RPC response: jsonrpc 2.0, an id (string, number or null), exactly one of result and a well-formed error. */
function isResponse(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || 'method' in value || !('id' in value)) return false;
  const id = value.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') return false;
  if ('result' in value === 'error' in value) return false;
  if ('error' in value) {
    const error = value.error;
    if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return false;
  }
  return true;
}

class Book {
  readonly entries = new Map<string, Expectation[]>();
  readonly nulls = new Map<string, number>();
  readonly gates = new Map<number, Expectation>();
  readonly listens = new Map<string, Expectation>();
  readonly sentinels = new Map<string, () => void>();
  readonly acks = new Map<string, () => void>();
  readonly violations: string[] = [];
  violationCount = 0;
  pending = 0;
  held = 0;
  openListens = 0;
  #waiter: (() => void) | undefined;
  readonly stats = {
    requests: 0,
    answered: 0,
    nullAnswers: 0,
    cancelled: 0,
    duplicatesRefused: 0,
    drainCut: 0,
    drainCutAnswered: 0,
    reused: 0,
    batchAnswers: 0,
    batchesExpected: 0,
    notifications: 0,
    oversizedResets: 0,
  };

  violation(text: string): void {
    this.violationCount++;
    if (this.violations.length < MAX_REPORTED) this.violations.push(text);
  }

  expect(item: FrameItem): void {
    this.stats.requests += item.requests;
    if (item.reuse === true) this.stats.reused++;
    if (item.batch && item.answers.length > 0) this.stats.batchesExpected++;
    let ownHeld = item.hold !== undefined;
    let ownListen = item.listen !== undefined;
    for (const answer of item.answers) {
      if (answer.id === null) {
        const key = String(answer.outcome);
        this.nulls.set(key, (this.nulls.get(key) ?? 0) + 1);
        this.pending++;
        continue;
      }
      const key = idKey(answer.id);
      let list = this.entries.get(key);
      if (list === undefined) this.entries.set(key, (list = []));
      const inFlight = list.some((e) => e.state === 'held' || e.state === 'listen');
      const expectation: Expectation = {
        outcome: answer.outcome,
        state: 'pending',
        label: item.label,
        duplicate: inFlight && answer.outcome === -32600,
      };
      if (ownHeld && idKey(item.hold!.id) === key) {
        ownHeld = false;
        expectation.state = 'held';
        this.gates.set(item.hold!.gate, expectation);
        this.held++;
      } else if (ownListen && idKey(item.listen!) === key) {
        ownListen = false;
        expectation.state = 'listen';
        this.listens.set(key, expectation);
        this.openListens++;
      } else {
        this.pending++;
      }
      list.push(expectation);
    }
  }

  /** A held request's gate opens: its answer is due. */
  release(gate: number): void {
    const expectation = this.gates.get(gate);
    if (expectation === undefined || expectation.state !== 'held') return;
    expectation.state = 'pending';
    this.held--;
    this.pending++;
    this.gates.delete(gate);
  }

  /** The peer withdrew a held request or listen: it must never be answered. */
  cancel(item: CancelItem): void {
    const expectation = item.gate !== undefined ? this.gates.get(item.gate) : this.listens.get(idKey(item.id));
    if (expectation === undefined) return;
    if (expectation.state === 'held') this.held--;
    if (expectation.state === 'listen') this.openListens--;
    expectation.state = 'cancelled';
    this.stats.cancelled++;
    if (item.gate !== undefined) this.gates.delete(item.gate);
    else this.listens.delete(idKey(item.id));
  }

  /** End of input: held requests not released are cut by the drain window; listens end with their final result. */
  endOfInput(): void {
    for (const expectation of this.gates.values()) {
      if (expectation.state !== 'held') continue;
      expectation.state = 'cut';
      this.held--;
      this.stats.drainCut++;
    }
    for (const expectation of this.listens.values()) {
      if (expectation.state !== 'listen') continue;
      expectation.state = 'pending';
      this.openListens--;
      this.pending++;
    }
  }

  /** One JSON value the server wrote (a line, a body, an SSE event). */
  onMessage(value: unknown, where: string): void {
    if (Array.isArray(value)) {
      if (value.length === 0) this.violation(`${where}: an empty array on the wire`);
      this.stats.batchAnswers++;
      for (const element of value) {
        if (isResponse(element)) this.#onResponse(element, where);
        else this.violation(`${where}: a batch answer element that is not a JSON-RPC response: ${shortId(element)}`);
      }
      return;
    }
    if (isResponse(value)) {
      this.#onResponse(value, where);
      return;
    }
    if (
      isPlainObject(value) &&
      value.jsonrpc === '2.0' &&
      typeof value.method === 'string' &&
      value.method !== '' &&
      (value.params === undefined || isPlainObject(value.params)) &&
      !('result' in value) &&
      !('error' in value)
    ) {
      this.stats.notifications++;
      if ('id' in value)
        this.violation(`${where}: the server sent a request (${value.method}) though no tool asks the client anything`);
      if (value.method === 'notifications/subscriptions/acknowledged') {
        const meta = (value.params as { _meta?: Record<string, unknown> })._meta;
        const subscription = meta?.['io.modelcontextprotocol/subscriptionId'];
        if (typeof subscription === 'string' || typeof subscription === 'number') {
          const key = idKey(subscription);
          this.acks.get(key)?.();
          this.acks.delete(key);
        }
      }
      return;
    }
    this.violation(`${where}: not a JSON-RPC message: ${shortId(value)}`);
  }

  #onResponse(message: Record<string, unknown>, where: string): void {
    const id = message.id as Id | null;
    if (id === null) {
      const code = isPlainObject(message.error) ? message.error.code : undefined;
      for (const key of [String(code), 'error', 'any']) {
        const count = this.nulls.get(key) ?? 0;
        if (count > 0 && ((key !== 'error' && key !== 'any') || code !== -32603)) {
          this.nulls.set(key, count - 1);
          this.pending--;
          this.stats.nullAnswers++;
          this.#wake();
          return;
        }
      }
      this.violation(`${where}: an unexpected answer with id null: ${describe(message)}`);
      return;
    }
    if (typeof id === 'string' && id.startsWith(SYNC_PREFIX)) {
      const done = this.sentinels.get(id);
      if (done === undefined || !('result' in message))
        this.violation(`${where}: sentinel ${id} answered ${describe(message)}`);
      this.sentinels.delete(id);
      done?.();
      return;
    }
    const list = this.entries.get(idKey(id));
    if (list === undefined) {
      this.violation(`${where}: an answer for id ${shortId(id)}, which no request carried: ${describe(message)}`);
      return;
    }
    const match =
      list.find((e) => e.state === 'pending' && fits(e.outcome, message)) ?? list.find((e) => e.state === 'cut');
    if (match !== undefined) {
      if (match.state === 'pending') this.pending--;
      else this.stats.drainCutAnswered++;
      match.state = 'done';
      this.stats.answered++;
      if (match.duplicate) {
        this.stats.duplicatesRefused++;
        const text = (message.error as { message?: string } | undefined)?.message ?? '';
        if (!text.includes('already in flight'))
          this.violation(`${where}: duplicate id ${shortId(id)} refused with "${text}"`);
      }
      this.#wake();
      return;
    }
    const wrong = list.find((e) => e.state === 'pending');
    if (wrong !== undefined) {
      this.violation(
        `${where}: [${wrong.label}] id ${shortId(id)}: expected ${typeof wrong.outcome === 'number' ? `error ${wrong.outcome}` : wrong.outcome}, got ${describe(message)}`,
      );
      wrong.state = 'done';
      this.pending--;
      this.#wake();
      return;
    }
    const states = list.map((e) => e.state);
    const why = states.includes('cancelled')
      ? 'answered after the client cancelled it'
      : states.includes('held')
        ? 'answered before its gate opened'
        : states.includes('listen')
          ? 'a listen stream answered while still open'
          : 'answered more than once';
    this.violation(`${where}: [${list[list.length - 1]!.label}] id ${shortId(id)} ${why}: ${describe(message)}`);
  }

  /** An expected answer with id null that the transport could not deliver (see the HTTP driver's oversized POSTs). */
  forgiveNull(outcome: Outcome): void {
    const key = String(outcome);
    const count = this.nulls.get(key) ?? 0;
    if (count === 0) return;
    this.nulls.set(key, count - 1);
    this.pending--;
    this.stats.oversizedResets++;
    this.#wake();
  }

  #wake(): void {
    if (this.pending === 0 && this.#waiter !== undefined) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter();
    }
  }

  /** Resolves when every expected answer is in; after `guardMs` the missing ones are reported instead. */
  async allIn(guardMs: number, where: string): Promise<void> {
    if (this.pending === 0) return;
    const arrived = new Promise<void>((resolve) => (this.#waiter = resolve));
    const settled = await guard(arrived, guardMs);
    if (settled) return;
    this.#waiter = undefined;
    this.reportMissing(where);
  }

  /** Lets go of the bookkeeping, so that the heap measured after the run is the server's alone. */
  clear(): void {
    this.entries.clear();
    this.nulls.clear();
    this.gates.clear();
    this.listens.clear();
    this.sentinels.clear();
    this.acks.clear();
  }

  /** Every expectation still pending is a missing answer. */
  reportMissing(where: string): void {
    for (const [key, list] of this.entries) {
      for (const expectation of list) {
        if (expectation.state !== 'pending') continue;
        expectation.state = 'missing';
        this.violation(`${where}: [${expectation.label}] id ${key} never answered (expected ${expectation.outcome})`);
      }
    }
    for (const [key, count] of this.nulls) {
      if (count > 0) this.violation(`${where}: ${count} answer(s) with id null and outcome ${key} never came`);
    }
    this.nulls.clear();
    this.pending = 0;
  }
}

/** True when `promise` settled within `ms`; false when the guard fired first (a hang, reported by the caller). */
async function guard(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), fired]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Transports

interface Driver {
  send(item: FrameItem): Promise<void>;
  /** Abandons a held POST (modern HTTP cancellation). */
  abandon?(id: Id): void;
  /** Everything sent so far has been read and dispatched by the server. */
  sync(): Promise<void>;
  /** The counts the in-flight state must have at a barrier; returns what differs. */
  leaks(expected: { held: number; listens: number; sessions: number }): string | undefined;
  /** End of input; `opened` runs right after the end began (gates released during the drain). */
  end(opened: () => void): Promise<void>;
  readonly bytes: number;
}

class StdioDriver implements Driver {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly stdio: StdioServer;
  readonly #server: Server;
  readonly #book: Book;
  readonly #rng: Rng;
  readonly #era: Era;
  readonly #guardMs: number;
  #text = '';
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #syncs = 0;
  bytes = 0;

  constructor(
    server: Server,
    book: Book,
    options: { seed: number; era: Era; maxLineBytes: number; drainWindowMs: number; guardMs: number },
  ) {
    this.#server = server;
    this.#book = book;
    this.#rng = new Rng(options.seed ^ 0x5bd1e995);
    this.#era = options.era;
    this.#guardMs = options.guardMs;
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => this.#receive(chunk));
    this.stdio = serveStdio(server, {
      input: this.input,
      output: this.output,
      maxLineBytes: options.maxLineBytes,
      drainWindowMs: options.drainWindowMs,
    });
  }

  #receive(chunk: string): void {
    this.#text += chunk;
    let newline: number;
    while ((newline = this.#text.indexOf('\n')) !== -1) {
      const line = this.#text.slice(0, newline);
      this.#text = this.#text.slice(newline + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.#book.violation(`stdout: a line that is not JSON: ${shortId(line)}`);
        continue;
      }
      this.#book.onMessage(value, 'stdout');
    }
  }

  /** Frames are coalesced and cut at random byte offsets (mid-line, mid-character) before they are written. */
  async send(item: FrameItem): Promise<void> {
    const data = typeof item.data === 'string' ? Buffer.from(item.data) : item.data;
    this.#pending.push(data, Buffer.from(item.eol));
    this.#pendingBytes += data.length + item.eol.length;
    if (this.#pendingBytes > 64 * 1024 || this.#rng.chance(0.3)) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const bytes = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.bytes += bytes.length;
    let start = 0;
    while (start < bytes.length) {
      const end = this.#rng.chance(0.5)
        ? bytes.length
        : Math.min(bytes.length, start + 1 + this.#rng.int(Math.max(1, bytes.length - start)));
      if (!this.input.write(bytes.subarray(start, end))) await once(this.input, 'drain');
      start = end;
    }
  }

  /** A sentinel request answered synchronously: once it is answered, every line before it has been dispatched. */
  async sync(): Promise<void> {
    const id = `${SYNC_PREFIX}${++this.#syncs}`;
    const frame =
      this.#era === 'legacy'
        ? { jsonrpc: '2.0', id, method: 'ping' }
        : { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope() } };
    const answered = new Promise<void>((resolve) => this.#book.sentinels.set(id, resolve));
    const bytes = Buffer.from(`${JSON.stringify(frame)}\n`);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    await this.#flush();
    if (!(await guard(answered, this.#guardMs))) this.#book.violation(`stdio: sentinel ${id} never answered`);
  }

  leaks(expected: { held: number; listens: number }): string | undefined {
    const connection = this.stdio.connection;
    const inFlight = connection.inFlightCount;
    const problems: string[] = [];
    if (inFlight !== expected.held + expected.listens) {
      problems.push(`in-flight ${inFlight}, expected ${expected.held} held + ${expected.listens} listening`);
    }
    if (this.#server.metrics().connections !== 1)
      problems.push(`server connections ${this.#server.metrics().connections}`);
    if (connection.closed) problems.push('the connection closed');
    return problems.length === 0 ? undefined : problems.join(', ');
  }

  async end(opened: () => void): Promise<void> {
    await this.#flush();
    this.input.end();
    opened();
    if (!(await guard(this.stdio.closed, this.#guardMs)))
      this.#book.violation('stdio: closed never settled after end of input');
    if (!this.output.readableEnded) await guard(once(this.output, 'end'), this.#guardMs);
    if (this.#text !== '') this.#book.violation(`stdout: output ended inside a line: ${shortId(this.#text)}`);
    this.output.removeAllListeners('data');
    if (this.#server.metrics().connections !== 0)
      this.#book.violation(`stdio: ${this.#server.metrics().connections} connection(s) still open after the end`);
  }
}

interface Post {
  done: Promise<void>;
  abort(): void;
}

class HttpDriver implements Driver {
  readonly http: HttpServer;
  readonly #server: Server;
  readonly #book: Book;
  readonly #era: Era;
  readonly #version: string;
  readonly #guardMs: number;
  readonly #drainWindowMs: number;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 256 });
  readonly #url: URL;
  readonly #outstanding = new Set<Promise<void>>();
  /** Held and listening POSTs, by id key (aborted to cancel on modern HTTP). */
  readonly #open = new Map<string, Post>();
  #sessionId: string | undefined;
  bytes = 0;

  constructor(
    http: HttpServer,
    server: Server,
    book: Book,
    options: { era: Era; version: string; guardMs: number; drainWindowMs: number },
  ) {
    this.http = http;
    this.#server = server;
    this.#book = book;
    this.#era = options.era;
    this.#version = options.version;
    this.#guardMs = options.guardMs;
    this.#drainWindowMs = options.drainWindowMs;
    this.#url = new URL(http.url);
  }

  async send(item: FrameItem): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.#era === 'legacy') {
      if (this.#sessionId !== undefined) {
        headers['mcp-session-id'] = this.#sessionId;
        headers['mcp-protocol-version'] = this.#version;
      }
    } else {
      Object.assign(headers, item.headers);
    }
    const body = typeof item.data === 'string' ? Buffer.from(item.data) : item.data;
    this.bytes += body.length;
    const post = this.#post(item.label, headers, body);
    if (item.initialize === true) {
      const responseHeaders = await post.response;
      const id = responseHeaders?.['mcp-session-id'];
      if (typeof id !== 'string') this.#book.violation('http: the initialize answer carried no Mcp-Session-Id');
      this.#sessionId = typeof id === 'string' ? id : undefined;
      await post.done;
      return;
    }
    const openId = item.hold?.id ?? item.listen;
    if (openId !== undefined) {
      this.#open.set(idKey(openId), post);
      void post.done.then(() => this.#open.delete(idKey(openId)));
      return;
    }
    this.#outstanding.add(post.done);
    void post.done.then(() => this.#outstanding.delete(post.done));
    if (this.#outstanding.size >= 32) await Promise.race(this.#outstanding);
  }

  /** One POST; its answers go to the book as they arrive (SSE events one by one). */
  #post(
    label: string,
    headers: Record<string, string>,
    body: Buffer,
  ): Post & { response: Promise<IncomingHttpHeaders | undefined> } {
    const where = `http ${label}`;
    let aborted = false;
    let answered = false;
    let responded: (headers: IncomingHttpHeaders | undefined) => void = () => {};
    const response = new Promise<IncomingHttpHeaders | undefined>((resolve) => (responded = resolve));
    let request: ReturnType<typeof httpRequest> | undefined;
    const done = new Promise<void>((resolve) => {
      request = httpRequest(
        {
          host: this.#url.hostname,
          port: this.#url.port,
          path: this.#url.pathname,
          method: 'POST',
          headers: { ...headers, 'content-length': String(body.length) },
          agent: this.#agent,
        },
        (res) => {
          answered = true;
          responded(res.headers);
          const type = res.headers['content-type'] ?? '';
          if (type.startsWith('text/event-stream')) {
            this.#readEvents(res, where, resolve);
            return;
          }
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', () => resolve());
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (text !== '') {
              let value: unknown;
              try {
                value = JSON.parse(text);
              } catch {
                this.#book.violation(`${where}: a body that is not JSON (status ${res.statusCode}): ${shortId(text)}`);
              }
              if (value !== undefined) this.#book.onMessage(value, where);
            } else if (res.statusCode !== 202 && res.statusCode !== 200) {
              this.#book.violation(`${where}: status ${res.statusCode} with an empty body`);
            }
            resolve();
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (
          !aborted &&
          !answered &&
          label.endsWith(':oversized') &&
          (error.code === 'ECONNRESET' || error.code === 'EPIPE')
        ) {
          // The server answers 413 before reading the body and closes the connection; the reset may beat the answer.
          this.#book.forgiveNull(-32600);
        } else if (!aborted && !answered) {
          this.#book.violation(`${where}: the POST failed: ${error.message}`);
        }
        responded(undefined);
        resolve();
      });
      request.end(body);
    });
    return {
      done,
      response,
      abort: () => {
        aborted = true;
        request?.destroy();
      },
    };
  }

  #readEvents(res: IncomingMessage, where: string, resolve: () => void): void {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data === '') continue; // a priming event or a keep-alive comment
        let value: unknown;
        try {
          value = JSON.parse(data);
        } catch {
          this.#book.violation(`${where}: an SSE event that is not JSON: ${shortId(data)}`);
          continue;
        }
        this.#book.onMessage(value, where);
      }
    });
    res.on('error', () => resolve());
    res.on('close', () => resolve());
    res.on('end', () => {
      if (buffer.trim() !== '') this.#book.violation(`${where}: the SSE stream ended inside an event`);
      resolve();
    });
  }

  abandon(id: Id): void {
    this.#open.get(idKey(id))?.abort();
  }

  /** Every POST that is not held open has been answered (or refused). */
  async sync(): Promise<void> {
    while (this.#outstanding.size > 0) {
      if (!(await guard(Promise.all(this.#outstanding), this.#guardMs))) {
        this.#book.violation(`http: ${this.#outstanding.size} POST(s) never completed`);
        this.#outstanding.clear();
      }
    }
  }

  leaks(expected: { held: number; listens: number; sessions: number }): string | undefined {
    const sessions = this.#era === 'legacy' ? 1 : expected.sessions;
    const connections = this.#era === 'legacy' ? 1 : expected.held + expected.listens + expected.sessions;
    const problems: string[] = [];
    if (this.#server.metrics().connections !== connections)
      problems.push(`server connections ${this.#server.metrics().connections}, expected ${connections}`);
    if (this.http.handler.sessionCount !== sessions)
      problems.push(`sessions ${this.http.handler.sessionCount}, expected ${sessions}`);
    return problems.length === 0 ? undefined : problems.join(', ');
  }

  async end(opened: () => void): Promise<void> {
    const closing = this.http.handler.close(this.#drainWindowMs);
    opened();
    if (!(await guard(closing, this.#guardMs))) this.#book.violation('http: the handler never finished closing');
    const open = [...this.#open.values()].map((post) => post.done);
    if (!(await guard(Promise.all(open), this.#guardMs)))
      this.#book.violation('http: held POSTs never ended after close');
    await this.sync();
    if (!(await guard(this.http.close(), this.#guardMs))) this.#book.violation('http: the server never closed');
    this.#agent.destroy();
    if (this.#server.metrics().connections !== 0)
      this.#book.violation(`http: ${this.#server.metrics().connections} connection(s) still open after close`);
    if (this.http.handler.sessionCount !== 0)
      this.#book.violation(`http: ${this.http.handler.sessionCount} session(s) left after close`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The run

let collect: (() => void) | undefined;

/** Full garbage collection (exposed on demand), then the heap in use. */
async function settledHeap(): Promise<number> {
  if (collect === undefined) {
    collect = (globalThis as { gc?: () => void }).gc;
    if (collect === undefined) {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  // Until two collections in a row agree (streams and sockets let go of their buffers a few turns after the end).
  let previous = Infinity;
  for (let round = 0; round < 10; round++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.memoryUsage().heapUsed;
    if (Math.abs(previous - used) < 256 * 1024) return Math.min(previous, used);
    previous = used;
  }
  return previous;
}

/** Runs one fuzz session and returns its summary; `violations` lists what broke (empty when every invariant held). */
export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const crashes: string[] = [];
  const onCrash = (error: unknown): void => {
    crashes.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  const heapBeforeBytes = await settledHeap();
  const started = performance.now();
  let summary: FuzzSummary;
  try {
    summary = await drive(options, heapBeforeBytes);
    // Crashes may surface a turn late (a rejected promise nobody awaited).
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  }
  summary.durationMs = Math.round(performance.now() - started);
  // Crashes first: they matter most, and the list is capped.
  summary.violations.unshift(...crashes.slice(0, MAX_REPORTED).map((crash) => `process: uncaught ${crash}`));
  summary.violations.length = Math.min(summary.violations.length, MAX_REPORTED);
  summary.violationCount += crashes.length;
  const bound = options.heapBoundBytes ?? 32 * 1024 * 1024;
  summary.heapAfterBytes = await settledHeap();
  if (summary.heapAfterBytes - heapBeforeBytes > bound) {
    // gc() sometimes leaves tens of MiB in old space after runs with 100 000-deep values, which the collection a heap
    // snapshot makes frees (a snapshot of that moment holds about 10 MiB, and the next run starts from there):
    // confirm with that collection before counting growth.
    await once(getHeapSnapshot().resume(), 'end'); // only its collection is wanted
    summary.heapAfterBytes = await settledHeap();
  }
  summary.heapDeltaBytes = summary.heapAfterBytes - heapBeforeBytes;
  if (summary.heapDeltaBytes > bound) {
    summary.violationCount++;
    summary.violations.push(`heap: grew ${summary.heapDeltaBytes} bytes over the run (bound ${bound})`);
  }
  return summary;
}

async function drive(options: FuzzOptions, heapBeforeBytes: number): Promise<FuzzSummary> {
  const { seed, transport, era } = options;
  const version = options.legacyVersion ?? '2025-11-25';
  const maxFrameBytes = options.maxFrameBytes ?? 768 * 1024;
  const drainWindowMs = options.drainWindowMs ?? 100;
  const guardMs = options.guardMs ?? 15_000;
  const profile: Profile = { transport, era, legacyVersion: version, maxFrameBytes };
  const book = new Book();
  const gates = new Gates();
  const logger = new MemoryLogger();
  const server = createFuzzServer(gates, logger);
  const driver: Driver =
    transport === 'stdio'
      ? new StdioDriver(server, book, { seed, era, maxLineBytes: maxFrameBytes, drainWindowMs, guardMs })
      : new HttpDriver(await serveHttp(server, { port: 0, maxBodyBytes: maxFrameBytes }), server, book, {
          era,
          version,
          guardMs,
          drainWindowMs,
        });
  const labels: Record<string, number> = {};
  const cancelledGates: number[] = [];
  let frames = 0;
  let barriers = 0;
  let sessions = 0;
  let heapPeakBytes = heapBeforeBytes;
  const generator = new FrameGenerator(seed, profile);

  for (const item of generator.items(options.frames)) {
    switch (item.type) {
      case 'frame': {
        frames++;
        labels[item.label] = (labels[item.label] ?? 0) + 1;
        book.expect(item);
        if (item.createsSession === true) sessions++;
        await driver.send(item);
        if (transport === 'http' && item.hold !== undefined) {
          // Later frames (duplicates, cancels) must find it in flight: wait until its handler runs.
          if (!(await guard(gates.get(item.hold.gate).started.promise, guardMs)))
            book.violation(`http: slow gate ${item.hold.gate} never started`);
        }
        if (transport === 'http' && item.listen !== undefined) {
          const acked = new Promise<void>((resolve) => book.acks.set(idKey(item.listen!), resolve));
          if (!(await guard(acked, guardMs))) book.violation(`http: listen ${shortId(item.listen)} never acknowledged`);
        }
        break;
      }
      case 'cancel': {
        frames++;
        labels.cancel = (labels.cancel ?? 0) + 1;
        // Duplicates of this id sent before must reach the server while it is still in flight. Stdio keeps the order
        // of frames; over HTTP each frame is its own POST, and a later POST may overtake an earlier one.
        if (transport === 'http') await driver.sync();
        book.cancel(item);
        if (item.gate !== undefined) cancelledGates.push(item.gate);
        if (item.frame !== undefined) {
          book.expect(item.frame);
          await driver.send(item.frame);
        } else {
          driver.abandon?.(item.id);
          if (item.gate !== undefined && !(await guard(gates.get(item.gate).aborted.promise, guardMs))) {
            book.violation(`http: the handler of abandoned gate ${item.gate} never saw its abort`);
          }
        }
        break;
      }
      case 'release':
        // Duplicates and cancels of this id sent before must have been dispatched while it was still in flight.
        await driver.sync();
        book.release(item.gate);
        gates.open(item.gate);
        break;
      case 'barrier': {
        await driver.sync();
        await book.allIn(guardMs, `barrier ${barriers + 1}`);
        barriers++;
        const leak = driver.leaks({ held: book.held, listens: book.openListens, sessions });
        if (leak !== undefined) book.violation(`barrier ${barriers}: ${leak}`);
        heapPeakBytes = Math.max(heapPeakBytes, process.memoryUsage().heapUsed);
        break;
      }
      case 'end': {
        await driver.sync();
        await book.allIn(guardMs, 'before the end');
        for (const gate of item.release) book.release(gate);
        book.endOfInput();
        for (const gate of book.gates.keys()) cancelledGates.push(gate); // cut: their handlers see the connection close
        await driver.end(() => {
          for (const gate of item.release) gates.open(gate);
        });
        await book.allIn(guardMs, 'after the end');
        break;
      }
    }
  }
  book.reportMissing('end');
  if (book.stats.batchAnswers !== book.stats.batchesExpected) {
    book.violation(`batches: ${book.stats.batchAnswers} array answer(s), expected ${book.stats.batchesExpected}`);
  }
  let abortsSeen = 0;
  for (const gate of cancelledGates) {
    if (gates.get(gate).wasAborted) abortsSeen++;
    else book.violation(`gate ${gate}: the handler of a cancelled or cut request never saw its abort`);
  }
  for (const { message, error } of logger.errors) {
    // The deliberate failures: the 'fail' tool, and mirrored results too deep to serialize (answered -32603).
    if (message === "tool 'fail' failed" || /^the answer to '.*' could not be serialized$/.test(message)) continue;
    book.violation(`logger: unexpected server error "${message}"${error instanceof Error ? `: ${error.message}` : ''}`);
  }
  const summary: FuzzSummary = {
    seed,
    transport,
    era,
    version: era === 'legacy' ? version : '2026-07-28',
    frames,
    bytes: driver.bytes,
    requests: book.stats.requests,
    answered: book.stats.answered,
    nullAnswers: book.stats.nullAnswers,
    cancelled: book.stats.cancelled,
    duplicatesRefused: book.stats.duplicatesRefused,
    drainCut: book.stats.drainCut,
    drainCutAnswered: book.stats.drainCutAnswered,
    oversizedResets: book.stats.oversizedResets,
    abortsSeen,
    reused: book.stats.reused,
    batchAnswers: book.stats.batchAnswers,
    notifications: book.stats.notifications,
    barriers,
    toolFailuresLogged: logger.errors.filter((e) => e.message === "tool 'fail' failed").length,
    warnings: logger.warnings.length,
    heapBeforeBytes,
    heapAfterBytes: 0,
    heapDeltaBytes: 0,
    heapPeakBytes,
    durationMs: 0,
    labels,
    violationCount: book.violationCount,
    violations: book.violations,
  };
  book.clear();
  return summary;
}
