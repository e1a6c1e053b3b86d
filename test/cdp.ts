// A minimal Chrome DevTools Protocol client for the browser test (test/apps-browser.test.ts): headless Chromium over
// --remote-debugging-pipe (NUL-delimited JSON on fds 3 and 4: no port, no WebSocket) with flat sessions, and the
// events a test waits for. Owns the browser process and its temp profile; close() releases both on any path.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A CDP event: its method, params, and the flat session it came from (none: the browser). */
export interface CdpEvent {
  method: string;
  params: Record<string, any>;
  sessionId?: string;
}

/** What a test keeps of Chromium's stderr for a failure message (its dbus noise is harmless). */
const STDERR_TAIL = 8192;

/** Headless Chromium driven over its debugging pipe. */
export class Cdp {
  readonly #child: ChildProcess;
  readonly #profile: string;
  readonly #pending = new Map<number, { resolve(value: any): void; reject(error: Error): void; method: string }>();
  readonly #events: CdpEvent[] = []; // every event of this short-lived browser, for waitFor() to search
  readonly #waiters = new Set<{
    match(event: CdpEvent): boolean;
    resolve(event: CdpEvent): void;
    reject(error: Error): void;
  }>();
  #nextId = 0;
  #input = '';
  #stderr = '';
  #exited: Error | undefined;

  private constructor(binary: string) {
    this.#profile = mkdtempSync(join(tmpdir(), 'mcp-core-chromium-'));
    this.#child = spawn(
      binary,
      [
        '--headless=new',
        '--no-sandbox', // required as root; the test's pages are its own
        '--disable-gpu',
        '--force-color-profile=srgb', // screenshot pixels are the CSS colours
        '--hide-scrollbars',
        '--no-first-run',
        '--no-default-browser-check',
        '--remote-debugging-pipe',
        `--user-data-dir=${this.#profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    this.#child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    (this.#child.stdio[3] as Writable).on('error', () => {}); // a closed pipe: the exit (below) reports it
    (this.#child.stdio[4] as Readable).setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    this.#child.once('exit', (code, signal) => this.#end(`chromium exited (${code ?? signal})`));
    this.#child.once('error', (error) => this.#end(`chromium failed: ${error.message}`));
  }

  /** Starts Chromium and resolves once it answers on the pipe; on a failure, nothing is left running or on disk. */
  static async launch(binary: string): Promise<Cdp> {
    const cdp = new Cdp(binary);
    try {
      await cdp.send('Browser.getVersion');
    } catch (error) {
      await cdp.close();
      throw error;
    }
    return cdp;
  }

  /** Chromium's stderr so far (the tail), for failure messages. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Sends a command (to a flat session when given) and resolves with its result, or rejects with its error. */
  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    if (this.#exited !== undefined) return Promise.reject(this.#exited);
    const id = ++this.#nextId;
    const frame = JSON.stringify({ id, method, params, ...(sessionId !== undefined && { sessionId }) });
    (this.#child.stdio[3] as Writable).write(`${frame}\0`);
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject, method }));
  }

  /** The first event, past or future, that `match` accepts. */
  waitFor(match: (event: CdpEvent) => boolean): Promise<CdpEvent> {
    const seen = this.#events.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.#exited !== undefined) return Promise.reject(this.#exited);
    return new Promise((resolve, reject) => this.#waiters.add({ match, resolve, reject }));
  }

  /**
   * Evaluates `expression` in a session's main frame, or in the execution context `contextId` of one of its frames
   * (awaiting a promise it returns), and gives its value; throws on an exception.
   */
  async evaluate(sessionId: string, expression: string, contextId?: number): Promise<any> {
    const { result, exceptionDetails } = await this.send(
      'Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true, ...(contextId !== undefined && { contextId }) },
      sessionId,
    );
    if (exceptionDetails !== undefined) throw new Error(`${expression}: ${JSON.stringify(exceptionDetails)}`);
    return result.value;
  }

  /** Closes the browser (killed if it does not exit within 5 s) and removes its profile. */
  async close(): Promise<void> {
    if (this.#exited === undefined) {
      const exit = once(this.#child, 'exit');
      this.send('Browser.close').catch(() => {}); // the pipe may close before the answer
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    }
    rmSync(this.#profile, { recursive: true, force: true });
  }

  /** The browser is gone: every command and waiter fails with `reason` and the stderr tail. */
  #end(reason: string): void {
    this.#exited ??= new Error(`${reason}:\n${this.#stderr}`);
    for (const call of this.#pending.values()) call.reject(this.#exited);
    this.#pending.clear();
    for (const waiter of this.#waiters) waiter.reject(this.#exited);
    this.#waiters.clear();
  }

  /** Splits the pipe into NUL-delimited messages: answers settle their command, events go to waiters. */
  #read(chunk: string): void {
    this.#input += chunk;
    let end: number;
    while ((end = this.#input.indexOf('\0')) !== -1) {
      const message = JSON.parse(this.#input.slice(0, end));
      this.#input = this.#input.slice(end + 1);
      if (message.id !== undefined) {
        const call = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error !== undefined) call?.reject(new Error(`${call.method}: ${JSON.stringify(message.error)}`));
        else call?.resolve(message.result);
      } else {
        this.#event(message as CdpEvent);
      }
    }
  }

  /** Records an event for waitFor() and settles the waiters it matches. */
  #event(event: CdpEvent): void {
    this.#events.push(event);
    for (const waiter of this.#waiters) {
      if (waiter.match(event)) {
        this.#waiters.delete(waiter);
        waiter.resolve(event);
      }
    }
  }
}
