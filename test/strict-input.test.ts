// Input the specifications leave to the receiver, answered strictly: bytes that are not UTF-8 are not JSON text
// (RFC 8259 §8.1), so they get -32700 on stdio and 400 -32700 on both HTTP adapters, never a request decoded with
// U+FFFD in place of the bad bytes. Duplicate member names are the one lenient case (docs/reliability.md says why):
// the last one wins, as in JSON.parse, and this file pins that behaviour.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { createServer, type Server } from '../core.ts';
import { createFetchHandler } from '../fetch.ts';
import { serveHttp } from '../http.ts';
import { MemoryLogger, WireClient } from './harness.ts';
import { raw } from './raw-http.ts';

const NOT_UTF8 = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32700, message: 'Parse error: frame is not valid UTF-8' },
};
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A tools/call of `echo` whose text argument holds `bad` as raw bytes. */
function callWithBytes(id: number, bad: number[]): Buffer {
  const [before, after] = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: '@' } },
  }).split('@') as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]);
}

const BAD_SEQUENCES = [[0x80], [0xff, 0xfe], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]];

function echoServer(): Server {
  const server = createServer({ name: 'strict', version: '1.0.0' }, { logger: new MemoryLogger() });
  server.tool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    (args: { text: string }) => ({ content: [{ type: 'text' as const, text: args.text }] }),
  );
  return server;
}

test('stdio: a line that is not UTF-8 is answered -32700 with id null, is never served, and the connection goes on', async () => {
  const client = new WireClient(echoServer());
  await client.initialize();
  for (const bad of BAD_SEQUENCES) {
    client.input.write(Buffer.concat([callWithBytes(7, bad), Buffer.from('\n')]));
    assert.deepEqual(await client.next(), NOT_UTF8, `bytes ${bad}`);
  }
  const answer = await client.request('tools/call', { name: 'echo', arguments: { text: 'é€😀' } });
  assert.deepEqual(answer.result.content, [{ type: 'text', text: 'é€😀' }]);
  assert.deepEqual(await client.end(), []);
});

test('stdio: with duplicate member names the last one wins (id, method, arguments), as JSON.parse reads them', async () => {
  const client = new WireClient(echoServer());
  await client.initialize();
  client.input.write(
    '{"jsonrpc":"2.0","id":1,"id":2,"method":"nope","method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"}}}\n',
  );
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'b' }] } });
  assert.deepEqual(await client.end(), []);
});

async function nodeEndpoint(
  t: TestContext,
): Promise<(body: Buffer, headers?: Record<string, string>) => Promise<{ status: number; json: unknown }>> {
  const http = await serveHttp(echoServer(), { port: 0, keepAliveMs: 0, sessions: false });
  t.after(() => http.close());
  return async (body, headers = {}) => {
    const response = await raw(http.url, { headers: { ...HEADERS, ...headers }, body: body as unknown as string });
    return { status: response.status, json: response.json };
  };
}

async function fetchEndpoint(
  t: TestContext,
): Promise<(body: Buffer, headers?: Record<string, string>) => Promise<{ status: number; json: unknown }>> {
  const handler = createFetchHandler(echoServer(), { sessions: false });
  t.after(() => handler.close());
  return async (body, headers = {}) => {
    const response = await handler(
      new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body }),
    );
    return { status: response.status, json: await response.json() };
  };
}

for (const [name, endpoint] of [
  ['node:http', nodeEndpoint],
  ['fetch', fetchEndpoint],
] as const) {
  test(`HTTP (${name}): a body that is not UTF-8 is refused 400 -32700 before anything reads it; valid UTF-8 is served`, async (t) => {
    const post = await endpoint(t);
    for (const bad of BAD_SEQUENCES) {
      assert.deepEqual(await post(callWithBytes(7, bad)), { status: 400, json: NOT_UTF8 }, `bytes ${bad}`);
    }
    const served = await post(
      Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'é€😀' } },
        }),
      ),
    );
    assert.deepEqual(served, {
      status: 200,
      json: { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'é€😀' }] } },
    });
  });
}
