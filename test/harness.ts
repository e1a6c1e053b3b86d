// Test harness: drives a server over the stdio transport through in-memory streams and scripts a conversation —
// send frames, await the frames that come back (in order, by id, or by predicate), end the input and collect the
// rest. Every wait is on an explicit frame or signal, never on a sleep.

import { PassThrough } from 'node:stream';
import type { Logger, Server } from '../core.ts';
import { type StdioOptions, type StdioServer, serveStdio } from '../stdio.ts';

export type Frame = any;

export const ENVELOPE_FREE_CLIENT = { name: 'test-client', version: '1.0.0' };

/** A logger that records what the core reports instead of writing to stderr. */
export class MemoryLogger implements Logger {
  readonly errors: { message: string; error: unknown }[] = [];
  readonly warnings: string[] = [];
  error(message: string, error?: unknown): void {
    this.errors.push({ message, error });
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
}

export class WireClient {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly stdio: StdioServer;
  /** Every frame the server wrote, in order. */
  readonly frames: Frame[] = [];
  #unread: Frame[] = [];
  #waiters: { match(frame: Frame): boolean; resolve(frame: Frame): void }[] = [];
  #text = '';
  #nextId = 1000;

  constructor(server: Server, options: Omit<StdioOptions, 'input' | 'output'> = {}) {
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => this.#receive(chunk));
    this.stdio = serveStdio(server, { ...options, input: this.input, output: this.output });
  }

  #receive(chunk: string): void {
    this.#text += chunk;
    let newline: number;
    while ((newline = this.#text.indexOf('\n')) !== -1) {
      const line = this.#text.slice(0, newline);
      this.#text = this.#text.slice(newline + 1);
      const frame = JSON.parse(line);
      this.frames.push(frame);
      const waiter = this.#waiters.findIndex((w) => w.match(frame));
      if (waiter === -1) {
        this.#unread.push(frame);
      } else {
        const [{ resolve }] = this.#waiters.splice(waiter, 1);
        resolve(frame);
      }
    }
  }

  /** Writes one frame (objects are serialized; strings are sent as they are, plus a newline). */
  send(frame: object | string): void {
    this.input.write(typeof frame === 'string' ? `${frame}\n` : `${JSON.stringify(frame)}\n`);
  }

  /** Resolves with the first unread frame that matches (waiting for it if needed) and marks it read. */
  waitFor(match: (frame: Frame) => boolean): Promise<Frame> {
    const index = this.#unread.findIndex(match);
    if (index !== -1) return Promise.resolve(this.#unread.splice(index, 1)[0]);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** The next unread frame in wire order. */
  next(): Promise<Frame> {
    return this.waitFor(() => true);
  }

  /** The response (result or error) for `id`; ids compare by type too. */
  response(id: string | number | null): Promise<Frame> {
    return this.waitFor((frame) => 'id' in frame && frame.id === id && !('method' in frame));
  }

  notification(method: string): Promise<Frame> {
    return this.waitFor((frame) => frame.method === method && !('id' in frame));
  }

  /** Sends a request and resolves with its response frame. */
  request(method: string, params?: object, id: string | number = this.#nextId++): Promise<Frame> {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.response(id);
  }

  /** The 2025 handshake: initialize, then notifications/initialized. Resolves with the initialize result. */
  async initialize(protocolVersion = '2025-11-25', capabilities: object = {}): Promise<Frame> {
    const response = await this.request('initialize', {
      protocolVersion,
      capabilities,
      clientInfo: ENVELOPE_FREE_CLIENT,
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response.result;
  }

  /**
   * The ids of the server→client requests seen on the wire that the server still waits an answer for (its
   * outbound table is released on every path). Probes with Connection.settleOutbound, which settles a request still
   * waiting with an empty result: call it where none should be.
   */
  unansweredServerRequests(): number[] {
    const asked = this.frames.filter((frame) => !Array.isArray(frame) && 'method' in frame && 'id' in frame);
    return asked
      .map((frame) => frame.id)
      .filter((id) => this.stdio.connection.settleOutbound({ jsonrpc: '2.0', id, result: {} }));
  }

  /** Frames received but not yet awaited. */
  unread(): Frame[] {
    return [...this.#unread];
  }

  /** Closes the input (EOF), waits until the server has finished, and returns the frames not yet read. */
  async end(): Promise<Frame[]> {
    this.input.end();
    await this.stdio.closed;
    await new Promise<void>((resolve) => (this.output.readableEnded ? resolve() : this.output.once('end', resolve)));
    return this.unread();
  }
}

/** Reads frames in wire order up to and including the response to `id` (a batch answer never matches). */
export async function untilResponse(client: WireClient, id: string | number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await client.next();
    frames.push(frame);
    if (!Array.isArray(frame) && frame.id === id && !('method' in frame)) return frames;
  }
}

/** A promise with its resolver, for handlers that must wait for a test's explicit signal. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The demo's tasks fixture tools (examples/task-fixtures.ts), in registration order, served in both eras. */
export const DEMO_TASK_TOOLS = [
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

/** The demo's skill files (examples/skill-fixtures.ts), listed as resources in registration order after its own. */
export const DEMO_SKILL_FILES = [
  'skill://pdf-processing/SKILL.md',
  'skill://pdf-processing/references/FORMS.md',
  'skill://pdf-processing/scripts/fill_form.py',
  'skill://pdf-processing/assets/logo.png',
  'skill://acme/docs/release-notes/SKILL.md',
];
