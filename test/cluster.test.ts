// examples/cluster.ts as a real deployment: the primary and its workers as processes of the dev Node, driven over
// loopback HTTP with a new connection per request (node:cluster hands connections to workers in turn). Any worker
// serves modern calls, the second round of an input_required call, a listen hears changes made on other workers,
// a 2025 session is served (and ended) by every worker, and SIGTERM stops the whole process tree with exit code 0.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RawResponse, raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_CAPABILITIES, type Id, MODERN, modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time
const WORKERS = 3;
const EXAMPLE = fileURLToPath(new URL('../examples/cluster.ts', import.meta.url));
const SESSION_NOT_FOUND = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } };
const INFO = { name: 'cluster-example', version: '1.0.0' };

let primary: ChildProcess;
let url: string;
let stderr = '';
const workerPids = new Set<number>();

before(async () => {
  primary = spawn(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', EXAMPLE, '--port', '0', '--workers', String(WORKERS)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  primary.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let stdout = '';
  primary.stdout!.setEncoding('utf8');
  for (;;) {
    const [chunk] = (await Promise.race([once(primary.stdout!, 'data'), once(primary, 'exit').then(() => [''])])) as [
      string,
    ];
    assert.ok(chunk !== '' || primary.exitCode === null, `the cluster exited before listening: ${stderr}`);
    stdout += chunk;
    const port = /^listening (\d+)$/m.exec(stdout)?.[1];
    if (port !== undefined) {
      url = `http://127.0.0.1:${port}/mcp`;
      break;
    }
  }
});

after(() => {
  // Only when a test failed before the SIGTERM test: the workers leave on their own once their primary is gone.
  if (primary.exitCode === null && primary.signalCode === null) primary.kill('SIGKILL');
});

// ---------------------------------------------------------------------------------------------------------------
// Exchanges, each on its own connection (raw() uses agent: false)

type Headers = Record<string, string>;

function modernHeaders(method: string, name?: string): Headers {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

function callTool(
  name: string,
  args: Record<string, unknown>,
  id: Id,
  extra: Record<string, unknown> = {},
  meta: object = {},
): Promise<RawResponse> {
  return raw(url, {
    headers: modernHeaders('tools/call', name),
    body: JSON.stringify(modern('tools/call', { name, arguments: args, ...extra }, id, meta)),
  });
}

/** The text of a successful modern tools/call answer with `id`. */
function textOf(response: RawResponse, id: Id): string {
  assert.equal(response.status, 200, response.text);
  assert.equal(response.json.id, id, response.text);
  assert.equal(response.json.result?.resultType, 'complete', response.text);
  assert.deepEqual(response.json.result._meta, { [SERVER_INFO]: INFO });
  const [content] = response.json.result.content;
  assert.equal(content.type, 'text');
  return content.text;
}

async function whoami(id: Id): Promise<number> {
  const pid = Number(textOf(await callTool('whoami', {}, id), id));
  assert.ok(Number.isInteger(pid) && pid > 0);
  workerPids.add(pid);
  return pid;
}

/** A POST whose answer is an SSE stream read as it arrives (a listen); on its own connection. */
function openStream(headers: Headers, body: unknown): Promise<{ response: IncomingMessage; reader: SseReader }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, agent: false },
      (response) => {
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-type'], 'text/event-stream');
        resolve({ response, reader: new SseReader(Readable.toWeb(response) as ReadableStream<Uint8Array>) });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function openListen(id: Id, notifications: Record<string, unknown>): Promise<SseReader> {
  const { reader } = await openStream(
    modernHeaders('subscriptions/listen'),
    modern('subscriptions/listen', { notifications }, id),
  );
  assert.deepEqual(await reader.message(), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
  });
  return reader;
}

// ---------------------------------------------------------------------------------------------------------------

test('modern requests are served by every worker of the one port', T, async () => {
  const seen = new Set<number>();
  for (let i = 0; seen.size < WORKERS; i++) {
    assert.ok(i < 10 * WORKERS, `only workers ${[...seen]} answered`);
    seen.add(await whoami(`w${i}`));
  }
  assert.equal(seen.has(primary.pid!), false, 'the primary serves nothing itself');
  const echo = await callTool('echo', { text: 'hi' }, 'e');
  assert.equal(textOf(echo, 'e'), 'hi');
});

test(
  'the second round of an input_required call is served by another worker (one requestState secret)',
  T,
  async () => {
    const ELICIT = { [CLIENT_CAPABILITIES]: { elicitation: {} } };
    for (let attempt = 0; ; attempt++) {
      assert.ok(attempt < 20, 'never had the two rounds served by different workers');
      const first = await callTool('confirm', {}, `ask${attempt}`, {}, ELICIT);
      assert.equal(first.status, 200, first.text);
      const { result } = first.json;
      assert.equal(result.resultType, 'input_required', first.text);
      assert.deepEqual(result.inputRequests, {
        confirm: {
          method: 'elicitation/create',
          params: { message: 'Go on?', requestedSchema: { type: 'object', properties: {} } },
        },
      });
      assert.equal(typeof result.requestState, 'string');
      const second = await callTool(
        'confirm',
        {},
        `answer${attempt}`,
        {
          inputResponses: { confirm: { action: 'accept', content: {} } },
          requestState: result.requestState,
        },
        ELICIT,
      );
      const [, askedBy, answeredBy] =
        /^asked by (\d+), answered by (\d+)$/.exec(textOf(second, `answer${attempt}`)) ?? [];
      assert.ok(workerPids.has(Number(askedBy)) && workerPids.has(Number(answeredBy)), second.text);
      if (askedBy !== answeredBy) break;
    }
  },
);

test(
  'a listen stream on one worker hears resource updates and list changes made on every other worker',
  T,
  async () => {
    const uris = Array.from({ length: 40 }, (_, i) => `mem://touch/${i}`);
    const reader = await openListen('L', { toolsListChanged: true, resourceSubscriptions: uris });
    // The listen lives on one worker X. Touches go round the workers until each one served a touch after the first
    // change of worker: then, were changes to stay in their own worker, a frame would be missing before one of X's
    // (a mismatch below) rather than only at the end.
    const pids: number[] = [];
    let changedAt = -1;
    for (let i = 0; new Set(pids.slice(changedAt === -1 ? pids.length : changedAt)).size < WORKERS; i++) {
      assert.ok(i < uris.length, `touches went to ${pids}`);
      const answer = textOf(await callTool('touch', { uri: uris[i] }, `t${i}`), `t${i}`);
      const pid = Number(/^mem:\/\/touch\/\d+ touched by (\d+)$/.exec(answer)?.[1]);
      assert.ok(workerPids.has(pid), answer);
      if (changedAt === -1 && pids.length > 0 && pid !== pids[0]) changedAt = pids.length;
      pids.push(pid);
    }
    const tag = { [SUBSCRIPTION_ID]: 'L' };
    for (const [i, pid] of pids.entries()) {
      assert.deepEqual(
        await reader.message(),
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: tag, uri: uris[i] } },
        `touch ${i} (worker ${pid} of ${pids})`,
      );
      assert.deepEqual(await reader.message(), {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: tag },
      });
    }
    await reader.cancel();
  },
);

test(
  'a 2025 session initialized on one worker is served by every worker, and a DELETE on any ends it on all',
  T,
  async () => {
    const VERSION = '2025-06-18';
    const legacyHeaders = (session?: string, version?: string): Headers => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
      ...(version === undefined ? {} : { 'mcp-protocol-version': version }),
    });
    const init = await raw(url, {
      headers: legacyHeaders(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    assert.equal(init.status, 200, init.text);
    assert.equal(init.json.result.protocolVersion, VERSION);
    assert.deepEqual(init.json.result.serverInfo, INFO);
    const session = init.headers['mcp-session-id'];
    assert.ok(typeof session === 'string' && session.length > 0);
    const initialized = await raw(url, {
      headers: legacyHeaders(session, VERSION),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(initialized.status, 202, initialized.text);

    const call = (id: number, version = VERSION) =>
      raw(url, {
        headers: legacyHeaders(session, version),
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
    // Every worker comes to hold the session (restored from the primary's record at the negotiated version: a
    // restored copy at another version would refuse the header).
    const pids = new Set<number>();
    for (let id = 1; pids.size < WORKERS; id++) {
      assert.ok(id < 10 * WORKERS, `only workers ${[...pids]} served the session`);
      const answer = await call(id);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.headers['mcp-session-id'], session);
      const pid = Number(answer.json.result?.content?.[0]?.text);
      assert.ok(workerPids.has(pid), answer.text);
      assert.deepEqual(answer.json, { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(pid) }] } });
      pids.add(pid);
    }
    for (let i = 0; i < 2 * WORKERS; i++) {
      const wrong = await call(100 + i, '2025-11-25');
      assert.equal(wrong.status, 400, wrong.text);
      assert.deepEqual(wrong.json, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Bad Request: MCP-Protocol-Version header does not match the negotiated version',
        },
      });
    }

    const deleted = await raw(url, { method: 'DELETE', headers: legacyHeaders(session, VERSION) });
    assert.equal(deleted.status, 200, deleted.text);
    for (let i = 0; i < 3 * WORKERS; i++) {
      const gone = await call(200 + i);
      assert.equal(gone.status, 404, gone.text);
      assert.deepEqual(gone.json, SESSION_NOT_FOUND);
    }
    const again = await raw(url, { method: 'DELETE', headers: legacyHeaders(session, VERSION) });
    assert.equal(again.status, 404);
  },
);

test(
  'SIGTERM to the primary ends open streams with their final result, stops every worker, and exits 0',
  T,
  async () => {
    const reader = await openListen('final', { toolsListChanged: true });
    assert.equal(workerPids.size, WORKERS);
    const exit = once(primary, 'exit');
    primary.kill('SIGTERM');
    assert.deepEqual(
      (await reader.rest()).map((event) => event.message),
      [
        {
          jsonrpc: '2.0',
          id: 'final',
          result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'final', [SERVER_INFO]: INFO } },
        },
      ],
    );
    assert.deepEqual(await exit, [0, null], stderr);
    for (const pid of workerPids) {
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `worker ${pid} outlived its primary`);
    }
    assert.equal(stderr, '');
  },
);
