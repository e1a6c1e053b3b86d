// Low-overhead raw MCP clients for the benchmarks: NDJSON over a child's pipes, and node:http with keep-alive.
// They speak just enough of each era to open a session and call the echo tool; every answer is checked to be a
// result (a benchmark of error paths would be worthless). They never validate more than that.

import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, type IncomingMessage, request } from 'node:http';

export type Era = '2025' | '2026';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const INITIALIZE = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'bench', version: '1.0.0' },
};

/** A frame a client sends; `id` is set per call. */
export function callFrame(era: Era, id: number): string {
  const params =
    era === '2026'
      ? { name: 'echo', arguments: { text: 'hi' }, _meta: MODERN_META }
      : { name: 'echo', arguments: { text: 'hi' } };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

export function initializeFrame(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: INITIALIZE });
}

function listFrame(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
}

const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** Throws unless `text` is a result for `id`; returns that result. */
function expectResult(text: string, id: number): Record<string, unknown> {
  const frame = JSON.parse(text) as { id?: unknown; result?: Record<string, unknown>; error?: { message?: string } };
  if (frame.id !== id || frame.result === undefined) {
    throw new Error(`expected a result for id ${id}, got ${text.slice(0, 300)}`);
  }
  return frame.result;
}

/** A spawned server process. `ready` resolves when it can take requests (HTTP: its port is known). */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/**
 * Spawns a server. Its environment is the bench's, without NODE_COMPILE_CACHE (a cache the caller happens to have
 * enabled would speed up every contender), plus `env` (the compile-cache contenders set it there).
 */
export async function startServer(
  command: string,
  args: string[],
  transport: 'stdio' | 'http',
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const { NODE_COMPILE_CACHE: _inherited, ...inherited } = process.env;
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...inherited, ...env } });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  if (transport === 'stdio') return { child, port: 0, stop };
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited (${code}) before listening`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      const match = /listening (\d+)/.exec(seen);
      if (match !== null) resolve(Number(match[1]));
    });
  });
  return { child, port, stop };
}

/** Calls over a child's stdin/stdout, answers matched by id. */
export class StdioClient {
  #child: ChildProcess;
  #pending = new Map<number, (text: string) => void>();
  #buffered = '';
  #nextId = 1;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.#receive(chunk));
  }

  #receive(chunk: string): void {
    let text = this.#buffered + chunk;
    let end = text.indexOf('\n');
    while (end !== -1) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      end = text.indexOf('\n');
      const match = /"id":(\d+)/.exec(line);
      const waiter = match === null ? undefined : this.#pending.get(Number(match[1]));
      if (waiter !== undefined) {
        this.#pending.delete(Number(match![1]));
        waiter(line);
      }
    }
    this.#buffered = text;
  }

  #send(frame: (id: number) => string): Promise<void> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, (text) => {
        try {
          expectResult(text, id);
          resolve();
        } catch (error) {
          reject(error);
        }
      });
      this.#child.stdin!.write(`${frame(id)}\n`);
    });
  }

  async open(era: Era): Promise<void> {
    if (era === '2026') return;
    await this.#send(initializeFrame);
    this.#child.stdin!.write(`${INITIALIZED}\n`);
  }

  call(era: Era): Promise<void> {
    return this.#send((id) => callFrame(era, id));
  }

  /** A 2025 `tools/list` (after `open('2025')`). */
  list(): Promise<void> {
    return this.#send(listFrame);
  }
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

function post(agent: Agent | false, port: number, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC frame of a body that is either JSON or an SSE stream ending with the answer. */
function frameOf(answer: Answer): string {
  if (!String(answer.headers['content-type']).startsWith('text/event-stream')) return answer.body;
  const data = answer.body.split('\n').filter((line) => line.startsWith('data:') && line.length > 6);
  return data[data.length - 1]!.slice(5).trim();
}

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One HTTP client: a 2025 session (initialize, initialized, calls with its id) or sessionless 2026 calls. */
export class HttpClient {
  #agent: Agent;
  #port: number;
  #nextId = 1;
  #headers: Record<string, string> = BASE_HEADERS;

  constructor(port: number, sockets: number) {
    this.#port = port;
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets });
  }

  async open(era: Era): Promise<void> {
    if (era === '2026') {
      this.#headers = {
        ...BASE_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      };
      return;
    }
    this.#headers = await openSession(this.#agent, this.#port);
  }

  async call(era: Era): Promise<void> {
    const id = this.#nextId++;
    const answer = await post(this.#agent, this.#port, this.#headers, callFrame(era, id));
    expectResult(frameOf(answer), id);
  }

  close(): void {
    this.#agent.destroy();
  }
}

/**
 * Opens an idle 2025 session (initialize + initialized, no GET stream); returns the headers its calls carry, with
 * the protocol version the server negotiated (a server may answer an older 2025 revision than the one asked for).
 */
export async function openSession(agent: Agent | false, port: number): Promise<Record<string, string>> {
  const init = await post(agent, port, BASE_HEADERS, initializeFrame(0));
  const { protocolVersion } = expectResult(frameOf(init), 0);
  const session = init.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error('initialize answered without an mcp-session-id');
  if (typeof protocolVersion !== 'string') throw new Error('initialize answered without a protocolVersion');
  const headers = { ...BASE_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': protocolVersion };
  const ack = await post(agent, port, headers, INITIALIZED);
  if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`);
  return headers;
}

/** Opens a 2026 `subscriptions/listen` stream and resolves once the server has sent its first bytes (the ack). */
export function openListen(port: number, id: number): Promise<IncomingMessage> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: MODERN_META },
  });
  const headers = { ...BASE_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent: false, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`listen answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let seen = '';
      const onData = (chunk: string): void => {
        seen += chunk;
        if (seen.includes('"error"')) reject(new Error(`listen refused: ${seen.slice(0, 300)}`));
        if (!seen.includes('notifications/subscriptions/acknowledged')) return;
        res.off('data', onData);
        resolve(res);
      };
      res.on('data', onData);
    });
    req.on('error', reject);
    req.end(body);
  });
}
