// Real services for the scale-out tests, each a child process on loopback with its own temp dir: `redis-server`,
// `haproxy` in front of given backends, and scale-out workers (examples/scale-out.ts). Each start registers its stop
// with the caller's `after`, waits for the process's own readiness signal (never a sleep) and rejects with its
// output if it exits first. A missing binary (these two, or `chromium` for the browser test) is a skip locally and a
// failure with CI=true. Never used by the source.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { deferred } from './harness.ts';
import { raw } from './raw-http.ts';

/**
 * Where a test registers the stop of what it started: its TestContext. For processes shared by a file, a collector
 * that the file's own `after` hook runs (node:test's `after` called inside a `before` hook runs when that hook ends).
 */
export interface Cleanup {
  after(fn: () => unknown): void;
}

/** How a service process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Service {
  readonly process: ChildProcess;
  /** Its own temp dir (removed by stop()), if it has one. */
  readonly dir: string | undefined;
  /** Everything it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Its exit, whenever it comes (the process's own 'exit' event). */
  readonly exited: Promise<Exit>;
  /** SIGTERM (unless it already ended), then its exit; its temp dir is removed. Idempotent. */
  stop(): Promise<Exit>;
}

export interface RedisService extends Service {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
}

export interface HaproxyService extends Service {
  readonly port: number;
  /** The frontend's MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
}

export interface WorkerService extends Service {
  readonly pid: number;
  /** The worker's own MCP endpoint, as it printed it. */
  readonly url: string;
  /** Its `host:port`, as a haproxy backend. */
  readonly address: string;
}

const INSTALL_HINT = '.ci/run installs it';

/** The path of an executable named `name` on PATH or in the sbin directories (Debian puts haproxy in /usr/sbin). */
export function findBinary(name: string): string | undefined {
  const directories = [...(process.env.PATH ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const directory of directories) {
    if (directory === '') continue;
    const path = join(directory, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

/**
 * The binary a test needs, or undefined after marking the test skipped with the reason ("<name> not installed:
 * .ci/run installs it"). With CI=true a missing binary fails the test instead: CI must run the whole proof.
 */
export function needBinary(t: TestContext, name: 'redis-server' | 'haproxy' | 'chromium'): string | undefined {
  const path = findBinary(name);
  if (path !== undefined) return path;
  const reason = `${name} not installed: ${INSTALL_HINT}`;
  assert.notEqual(process.env.CI, 'true', `${reason} (CI=true: the whole proof must run)`);
  t.skip(reason);
  return undefined;
}

/** A port that was free on 127.0.0.1 a moment ago (bound to port 0, then released); a start retries on a race. */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Spawns `command` and resolves once `ready` matches its output (stdout and stderr together), with what matched;
 * rejects with the output if it exits first. The stop is registered with `cleanup` before any wait.
 */
async function startProcess(
  cleanup: Cleanup,
  command: string,
  args: string[],
  ready: RegExp,
  dir?: string,
  env?: Record<string, string>,
): Promise<{ service: Service; match: RegExpExecArray }> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
    env: env === undefined ? undefined : { ...process.env, ...env },
  });
  let output = '';
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // An 'error' (the binary vanished, EACCES) comes instead of 'exit': record it and settle as an exit.
  const failed = once(child, 'error').then(([error]) => {
    output += `\n${(error as Error).message}`;
    return { code: null, signal: null } satisfies Exit;
  });
  const ended = Promise.race([exited, failed]);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stopping: Promise<Exit> | undefined;
  const service: Service = {
    process: child,
    dir,
    output: () => output,
    exited: ended,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill('SIGTERM');
        const exit = await ended;
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
        return exit;
      })();
      return stopping;
    },
  };
  cleanup.after(() => service.stop());
  const { promise, resolve } = deferred<RegExpExecArray | undefined>();
  const listen = (chunk: string): void => {
    output += chunk;
    const match = ready.exec(output);
    if (match !== null) resolve(match);
  };
  child.stdout!.setEncoding('utf8').on('data', listen);
  child.stderr!.setEncoding('utf8').on('data', listen);
  void ended.then(() => resolve(undefined));
  const match = await promise;
  if (match === undefined) {
    await service.stop();
    await Promise.race([closed, failed]); // its last output read (stdio ends after 'exit')
    throw new Error(`${command} exited before it was ready:\n${output}`);
  }
  return { service, match };
}

/** Starts on a fresh free port, again (up to 3 times) when the port was taken in between. */
async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      const raced = /address already in use|cannot bind/i.test(String(error));
      if (!raced || attempt === 3) throw error;
    }
  }
}

/**
 * A real `redis-server` on 127.0.0.1 (no persistence, its own temp dir), ready once it logged that it accepts
 * connections and answered PING. `binary` comes from needBinary().
 */
export function startRedis(cleanup: Cleanup, binary: string): Promise<RedisService> {
  return onFreePort(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-core-redis-'));
    const { service } = await startProcess(
      cleanup,
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      /Ready to accept connections/,
      dir,
    );
    assert.equal(await ping(port), '+PONG', service.output());
    return { ...service, port, url: `redis://127.0.0.1:${port}` };
  });
}

/** One inline PING on a fresh connection to 127.0.0.1:`port`: the first reply line (`+PONG`). Test helper only. */
export async function ping(port: number): Promise<string> {
  const socket = createConnection({ host: '127.0.0.1', port });
  try {
    await once(socket, 'connect');
    socket.write('PING\r\n');
    let reply = '';
    socket.setEncoding('utf8');
    for await (const chunk of socket) {
      reply += chunk;
      if (reply.includes('\r\n')) break;
    }
    return reply.split('\r\n')[0]!;
  } finally {
    socket.destroy();
  }
}

/** The haproxy configuration: one frontend on 127.0.0.1:`port` balancing per request over `backends`. */
export function haproxyConfig(port: number, backends: string[], balance: 'roundrobin' | 'source'): string {
  const servers = backends.map((address, i) => `  server w${i + 1} ${address}`);
  return [
    'global',
    '  maxconn 1000',
    '  nbthread 1',
    'defaults',
    '  mode http',
    '  option http-server-close', // one server connection per request: each request is balanced on its own
    '  retries 2',
    '  option redispatch', // a connect failure (a dead worker) retries on another worker
    '  option http-no-delay', // SSE events go out as written: no wait to coalesce small writes
    '  timeout connect 5s',
    '  timeout http-request 10s',
    '  timeout http-keep-alive 1h',
    '  timeout client 1h', // SSE: a stream may stay quiet between keep-alives
    '  timeout server 1h',
    '  timeout tunnel 1h',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend workers',
    'backend workers',
    `  balance ${balance}`,
    '  http-response set-header x-served-by %[srv_name]', // which worker answered: w1, w2, …
    ...servers,
    '',
  ].join('\n');
}

/**
 * A real `haproxy` (master-worker mode, in the foreground) with haproxyConfig(): ready once the master logged
 * "Loading success.", answered on its CLI socket (masterAnswers), and one GET through the frontend got an answer
 * from a backend (not haproxy's own 5xx).
 */
export function startHaproxy(
  cleanup: Cleanup,
  binary: string,
  options: { backends: string[]; balance: 'roundrobin' | 'source' },
): Promise<HaproxyService> {
  return onFreePort(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-core-haproxy-'));
    const config = join(dir, 'haproxy.cfg');
    writeFileSync(config, haproxyConfig(port, options.backends, options.balance));
    const master = join(dir, 'master.sock');
    const { service } = await startProcess(
      cleanup,
      binary,
      ['-W', '-db', '-S', master, '-f', config],
      /Loading success\./,
      dir,
    );
    await masterAnswers(master);
    const url = `http://127.0.0.1:${port}/mcp`;
    const probe = await raw(url, { method: 'GET', path: '/', headers: { accept: 'text/plain' } });
    assert.ok(
      probe.status < 500,
      `haproxy answered the readiness GET itself (${probe.status} ${probe.text}):\n${service.output()}`,
    );
    return { ...service, port, url };
  });
}

/**
 * Resolves once haproxy's master answers `show proc` on its CLI socket. After "Loading success." the master
 * re-executes itself (to run in wait mode), and a SIGTERM arriving in between kills it by the signal instead of its
 * clean stop; only the re-executed master serves this socket, and it has its signal handlers by then. Asked again
 * after each refusal (the socket is recreated by the re-execution).
 */
async function masterAnswers(path: string): Promise<void> {
  for (;;) {
    const reply = await new Promise<string>((resolve) => {
      const socket = createConnection({ path });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('connect', () => socket.end('show proc\n'));
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => {}); // refused or missing during the re-execution: 'close' follows, with no reply
    });
    if (reply.includes('master')) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const WORKER = fileURLToPath(new URL('../examples/scale-out.ts', import.meta.url));

/**
 * A scale-out worker (examples/scale-out.ts on the Node running the tests) on a port of its own choosing, ready
 * once it printed its URL; `args` are passed on, `env` is added to the environment.
 */
export async function startWorker(
  cleanup: Cleanup,
  args: string[] = [],
  env?: Record<string, string>,
): Promise<WorkerService> {
  const { service, match } = await startProcess(
    cleanup,
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', WORKER, '--port', '0', ...args],
    /scale-out worker \d+ on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)\n/,
    undefined,
    env,
  );
  return {
    ...service,
    pid: service.process.pid!,
    url: match[1]!,
    address: `127.0.0.1:${match[2]!}`,
  };
}
