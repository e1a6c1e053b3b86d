// The wire scenarios of the runtime matrix (test/runtimes.test.ts), driven from the test process against a demo
// server running as a child process on some runtime: over stdio (one process per era, since the first request decides
// a connection's era) or over HTTP (one process, both eras). Each scenario settles ok or with the reason it failed;
// a hang becomes a failure after SCENARIO_TIMEOUT_MS, so one broken cell never stalls the matrix.

import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { deferred, type Frame } from './harness.ts';
import { modernHeaders } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { EVERYTHING_INFO, MODERN, modern, notification, request, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

export const SCENARIOS = [
  '2025 handshake',
  '2025 progress',
  '2025 event',
  '2025 resume',
  '2026 discover',
  '2026 progress',
  '2026 listen',
  'close',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** ok, n/a (the scenario does not exist on this transport), or FAIL with the reason. */
export type Outcome = 'ok' | 'n/a' | { fail: string };

/** How to start one cell's server: the command, its arguments, and whether it serves stdio or HTTP. */
export interface CellSpec {
  command: string;
  args: string[];
  transport: 'stdio' | 'http';
}

/** A hang turns into a failure after this long (a safety net; no scenario asserts on time). */
const SCENARIO_TIMEOUT_MS = 10_000;
const LEGACY = '2025-11-25';
const PROGRESS = [0, 50, 100].map((progress) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 'p', progress, total: 100, message: `Completed step ${progress} of 100` },
}));
const PROGRESS_DONE = [{ type: 'text', text: 'Progress completed' }];

/** `promise`, or a rejection naming what was awaited (`waitingFor()`) once SCENARIO_TIMEOUT_MS passed first. */
async function within<T>(promise: Promise<T>, waitingFor: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`hung: nothing within ${SCENARIO_TIMEOUT_MS} ms while waiting for ${waitingFor()}`)),
      SCENARIO_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Names what a scenario is waiting for, for the failure when it hangs. */
type Mark = (what: string) => void;

/** Runs the scenarios in order, each within SCENARIO_TIMEOUT_MS, recording each outcome in `results`. */
async function runAll(
  results: Map<Scenario, Outcome>,
  steps: [Scenario, (mark: Mark) => Promise<void>][],
): Promise<void> {
  for (const [scenario, step] of steps) {
    let waitingFor = 'the first answer';
    try {
      await within(
        step((what) => (waitingFor = what)),
        () => waitingFor,
      );
      results.set(scenario, 'ok');
    } catch (error) {
      results.set(scenario, { fail: error instanceof Error ? error.message : String(error) });
    }
  }
}

/**
 * The cells' environment: the test's own, without NODE_V8_COVERAGE. Coverage is the dev Node's; another Node's
 * report of the same sources (other function ranges) would corrupt the merged figures.
 */
const CHILD_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_V8_COVERAGE'));

/** A server child process: its stderr kept for failure messages, its exit observable. */
class Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  #stderr = '';

  constructor(spec: CellSpec, extraArgs: string[]) {
    this.process = spawn(spec.command, [...spec.args, ...extraArgs], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: CHILD_ENV,
    });
    this.process.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.exited = once(this.process, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    this.exited.catch(() => {}); // a spawn error also rejects `failed`, which reports it
  }

  /** The child's stderr so far, for failure messages. */
  get stderr(): string {
    return this.#stderr.trim();
  }

  /** Rejects when the process fails to start or exits, with its status and stderr. */
  failed(): Promise<never> {
    return new Promise<never>((_resolve, reject) => {
      this.process.once('error', (error) => reject(new Error(`could not start: ${error.message}`)));
      this.process.once('exit', (code, signal) =>
        reject(new Error(`exited (code ${code}, signal ${signal}): ${this.stderr || 'no stderr'}`)),
      );
    });
  }

  /** Asserts the process exits 0 on its own after `stop()`. */
  async exitsCleanly(stop: () => void): Promise<void> {
    stop();
    assert.deepEqual(await this.exited, [0, null], this.stderr);
  }

  /** Kills the process if it still runs (only after a failure). */
  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }
}

/** A stdio peer: newline-delimited frames to the child's stdin, frames read back from its stdout. */
class StdioPeer {
  readonly child: Child;
  readonly #frames: Frame[] = [];
  #waiter: (() => void) | undefined;
  readonly #failed: Promise<never>;

  constructor(spec: CellSpec) {
    this.child = new Child(spec, ['--stdio']);
    this.#failed = this.child.failed();
    this.#failed.catch(() => {});
    let buffer = '';
    this.child.process.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let cut = buffer.indexOf('\n'); cut !== -1; cut = buffer.indexOf('\n')) {
        const line = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 1);
        if (line !== '') this.#frames.push(JSON.parse(line));
      }
      this.#waiter?.();
    });
  }

  send(frame: Frame): void {
    this.child.process.stdin.write(`${JSON.stringify(frame)}\n`);
  }

  /** The next `count` frames, in the order written. */
  async take(count: number): Promise<Frame[]> {
    while (this.#frames.length < count) {
      const arrived = deferred();
      this.#waiter = arrived.resolve;
      await Promise.race([arrived.promise, this.#failed]);
    }
    return this.#frames.splice(0, count);
  }
}

/** The 2025 and 2026 stdio scenarios, each era on its own process; closing is stdin EOF, after which both exit 0. */
export async function runStdioCell(spec: CellSpec, results: Map<Scenario, Outcome>): Promise<void> {
  const legacy = new StdioPeer(spec);
  const current = new StdioPeer(spec);
  try {
    results.set('2025 resume', 'n/a');
    await runAll(results, [
      [
        '2025 handshake',
        async () => {
          legacy.send(
            request(1, 'initialize', {
              protocolVersion: LEGACY,
              capabilities: {},
              clientInfo: { name: 'matrix', version: '1' },
            }),
          );
          const [answer] = await legacy.take(1);
          assert.equal(answer.result?.protocolVersion, LEGACY, JSON.stringify(answer));
          assert.deepEqual(answer.result.serverInfo, EVERYTHING_INFO);
          legacy.send(notification('notifications/initialized'));
        },
      ],
      [
        '2025 progress',
        async () => {
          legacy.send(
            request(2, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } }),
          );
          const frames = await legacy.take(4);
          assert.deepEqual(frames.slice(0, 3), PROGRESS);
          assert.deepEqual(frames[3], { jsonrpc: '2.0', id: 2, result: { content: PROGRESS_DONE } });
        },
      ],
      [
        '2025 event',
        async () => {
          legacy.send(request(3, 'tools/call', { name: 'test_publish', arguments: { event: 'tools' } }));
          const frames = await legacy.take(2);
          assert.deepEqual(
            frames.find((frame) => frame.id === undefined),
            notification('notifications/tools/list_changed'),
          );
          assert.equal(frames.find((frame) => frame.id === 3)?.result?.isError, undefined, JSON.stringify(frames));
        },
      ],
      [
        '2026 discover',
        async () => {
          current.send(modern('server/discover', {}, 1));
          const [answer] = await current.take(1);
          assertDiscovered(answer);
        },
      ],
      [
        '2026 progress',
        async () => {
          current.send(
            modern('tools/call', { name: 'test_tool_with_progress', arguments: {} }, 2, { progressToken: 'p' }),
          );
          const frames = await current.take(4);
          assert.deepEqual(frames.slice(0, 3), PROGRESS);
          assertModernResult(frames[3], 2, PROGRESS_DONE);
        },
      ],
      [
        '2026 listen',
        async () => {
          current.send(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L'));
          const [ack] = await current.take(1);
          assert.equal(ack.method, 'notifications/subscriptions/acknowledged', JSON.stringify(ack));
          current.send(modern('tools/call', { name: 'test_publish', arguments: { event: 'tools' } }, 3));
          const frames = await current.take(2);
          assert.deepEqual(
            frames.find((frame) => frame.id === undefined),
            taggedListChanged('L'),
          );
          assert.equal(frames.find((frame) => frame.id === 3)?.result?.resultType, 'complete', JSON.stringify(frames));
          current.send(notification('notifications/cancelled', { requestId: 'L' }));
        },
      ],
      [
        'close',
        async (mark) => {
          mark('both processes to exit after stdin EOF');
          await Promise.all([
            legacy.child.exitsCleanly(() => legacy.child.process.stdin.end()),
            current.child.exitsCleanly(() => current.child.process.stdin.end()),
          ]);
        },
      ],
    ]);
  } finally {
    legacy.child.kill();
    current.child.kill();
  }
}

/** A server/discover answer of the demo server. */
function assertDiscovered(answer: Frame): void {
  assert.deepEqual(answer.result?.supportedVersions, [MODERN], JSON.stringify(answer));
  assert.deepEqual(answer.result._meta[SERVER_INFO], EVERYTHING_INFO);
}

/** A complete modern tools/call result with `content`. */
function assertModernResult(frame: Frame, id: string | number, content: unknown): void {
  assert.equal(frame.id, id, JSON.stringify(frame));
  assert.equal(frame.result?.resultType, 'complete', JSON.stringify(frame));
  assert.deepEqual(frame.result.content, content);
}

/** The tools list_changed notification a listen `id` receives. */
function taggedListChanged(id: string): Frame {
  return notification('notifications/tools/list_changed', { _meta: { [SUBSCRIPTION_ID]: id } });
}

/** The 2025 list_changed notification for `kind`. */
function listChanged(kind: string): Frame {
  return notification(`notifications/${kind}/list_changed`);
}

/** The JSON-RPC message of an answer: a JSON body, or the last event of an SSE stream. */
async function answerOf(response: Response): Promise<Frame> {
  if (response.status !== 200) assert.fail(`answered ${response.status} ${await response.text()}`);
  if (response.headers.get('content-type') === 'application/json') return response.json();
  return (await new SseReader(response).rest()).at(-1)?.message;
}

/** A 2025 client of one session at `url`. */
class LegacyHttpClient {
  readonly url: string;
  sessionId = '';

  constructor(url: string) {
    this.url = url;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': LEGACY, ...extra };
    if (this.sessionId !== '') headers['mcp-session-id'] = this.sessionId;
    return headers;
  }

  post(frame: Frame): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      body: JSON.stringify(frame),
    });
  }

  /** The session's GET stream (resuming after `lastEventId` when given) and a way to leave it. */
  async get(lastEventId?: string): Promise<{ reader: SseReader; leave(): Promise<void> }> {
    const controller = new AbortController();
    const extra: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) extra['last-event-id'] = lastEventId;
    const response = await fetch(this.url, { method: 'GET', headers: this.headers(extra), signal: controller.signal });
    const what = lastEventId === undefined ? 'a fresh GET' : 'a GET resumed with Last-Event-ID';
    if (response.status !== 200) assert.fail(`${what} answered ${response.status} ${await response.text()}`);
    const reader = new SseReader(response);
    return {
      reader,
      leave: async () => {
        controller.abort();
        await reader.cancel().catch(() => {});
      },
    };
  }

  /** Calls test_publish for `event` and checks the call's answer. */
  async publish(id: number, event: string): Promise<void> {
    const answer = await answerOf(
      await this.post(request(id, 'tools/call', { name: 'test_publish', arguments: { event } })),
    );
    assert.equal(answer.id, id, JSON.stringify(answer));
    assert.equal(answer.result?.isError, undefined, JSON.stringify(answer));
  }
}

/** POSTs a 2026-07-28 request with the headers a correct client sends. */
function postModern(url: string, frame: Frame): Promise<Response> {
  return fetch(url, { method: 'POST', headers: modernHeaders(frame), body: JSON.stringify(frame) });
}

/**
 * The HTTP scenarios against one process serving both eras: a 2025 session (initialize, a progress stream, a GET
 * stream receiving a published change, that GET left and resumed with Last-Event-ID — once with a change to replay,
 * once with nothing to replay, whose headers must still arrive at once), the 2026 requests, and SIGTERM, after which
 * the process exits 0.
 */
export async function runHttpCell(spec: CellSpec, results: Map<Scenario, Outcome>): Promise<void> {
  const child = new Child(spec, ['--port', '0']);
  const failed = child.failed();
  failed.catch(() => {});
  try {
    const url = await within(
      Promise.race([announcedUrl(child), failed]),
      () => 'the server to announce its URL on stderr',
    );
    const legacy = new LegacyHttpClient(url);
    let lastSeen = '';
    await runAll(results, [
      [
        '2025 handshake',
        async () => {
          const response = await legacy.post(
            request(1, 'initialize', {
              protocolVersion: LEGACY,
              capabilities: {},
              clientInfo: { name: 'matrix', version: '1' },
            }),
          );
          legacy.sessionId = response.headers.get('mcp-session-id') ?? '';
          assert.notEqual(legacy.sessionId, '', 'initialize minted a session');
          const answer = await answerOf(response);
          assert.equal(answer.result?.protocolVersion, LEGACY, JSON.stringify(answer));
          assert.deepEqual(answer.result.serverInfo, EVERYTHING_INFO);
          const initialized = await legacy.post(notification('notifications/initialized'));
          assert.equal(initialized.status, 202);
          await initialized.body?.cancel();
        },
      ],
      [
        '2025 progress',
        async () => {
          const response = await legacy.post(
            request(2, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } }),
          );
          const events = await new SseReader(response).rest();
          assert.deepEqual(
            events.map((event) => event.message),
            [...PROGRESS, { jsonrpc: '2.0', id: 2, result: { content: PROGRESS_DONE } }],
          );
        },
      ],
      [
        '2025 event',
        async (mark) => {
          mark("a fresh GET stream's response headers");
          const stream = await legacy.get();
          mark('the answer to test_publish');
          await legacy.publish(3, 'tools');
          mark('the published change on the GET stream');
          const event = await stream.reader.next();
          assert.ok(event !== undefined, 'the GET stream ended');
          assert.deepEqual(event.message, listChanged('tools'));
          assert.ok(event.id !== undefined, 'a 2025 GET event carries an id');
          lastSeen = event.id;
          await stream.leave();
        },
      ],
      [
        '2025 resume',
        async (mark) => {
          mark('the answer to test_publish');
          await legacy.publish(4, 'prompts'); // while no GET stream is attached
          mark("the resumed GET stream's response headers");
          const resumed = await legacy.get(lastSeen);
          mark('the replayed change on the resumed GET stream');
          const replayed = await resumed.reader.next();
          assert.ok(replayed !== undefined, 'the resumed GET stream ended');
          assert.deepEqual(replayed.message, listChanged('prompts'), 'the change published while away is replayed');
          await resumed.leave();
          // Nothing to replay: the headers still arrive at once, then live events flow.
          mark('the response headers of a GET resumed with nothing to replay');
          const caughtUp = await legacy.get(replayed.id);
          mark('the answer to test_publish');
          await legacy.publish(5, 'resources');
          mark('the live change on the resumed GET stream');
          assert.deepEqual((await caughtUp.reader.next())?.message, listChanged('resources'));
          await caughtUp.leave();
        },
      ],
      [
        '2026 discover',
        async () => {
          assertDiscovered(await answerOf(await postModern(url, modern('server/discover', {}, 1))));
        },
      ],
      [
        '2026 progress',
        async () => {
          const frame = modern('tools/call', { name: 'test_tool_with_progress', arguments: {} }, 2, {
            progressToken: 'p',
          });
          const response = await postModern(url, frame);
          assert.equal(response.status, 200);
          const messages = (await new SseReader(response).rest()).map((event) => event.message);
          assert.deepEqual(messages.slice(0, 3), PROGRESS);
          assert.equal(messages.length, 4, JSON.stringify(messages));
          assertModernResult(messages[3], 2, PROGRESS_DONE);
        },
      ],
      [
        '2026 listen',
        async (mark) => {
          mark("the listen stream's acknowledgement");
          const controller = new AbortController();
          const frame = modern('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'L');
          const response = await fetch(url, {
            method: 'POST',
            headers: modernHeaders(frame),
            body: JSON.stringify(frame),
            signal: controller.signal,
          });
          const reader = new SseReader(response);
          assert.equal((await reader.message()).method, 'notifications/subscriptions/acknowledged');
          const publish = modern('tools/call', { name: 'test_publish', arguments: { event: 'tools' } }, 3);
          mark('the answer to test_publish');
          assertModernResult(await answerOf(await postModern(url, publish)), 3, [
            { type: 'text', text: 'Published 1 tools event(s)' },
          ]);
          mark('the published change on the listen stream');
          assert.deepEqual(await reader.message(), taggedListChanged('L'));
          controller.abort();
          await reader.cancel().catch(() => {});
        },
      ],
      [
        'close',
        (mark) => {
          mark('the process to exit after SIGTERM');
          return child.exitsCleanly(() => child.process.kill('SIGTERM'));
        },
      ],
    ]);
  } catch (error) {
    // The server never announced its URL: every scenario fails with that reason.
    for (const scenario of SCENARIOS)
      results.set(scenario, { fail: error instanceof Error ? error.message : String(error) });
  } finally {
    child.kill();
  }
}

/** The URL the server announces on stderr (`… on http://127.0.0.1:PORT/mcp`). */
async function announcedUrl(child: Child): Promise<string> {
  for (;;) {
    const url = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(child.stderr)?.[1];
    if (url !== undefined) return url;
    await once(child.process.stderr, 'data');
  }
}
