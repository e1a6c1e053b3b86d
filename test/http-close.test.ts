// serveHttp().close() drains: a request already running gets the drain window to finish and its answer still
// reaches the client (both eras), then every socket closes and close() resolves.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from '../core.ts';
import { serveHttp } from '../http.ts';
import { deferred } from './harness.ts';
import { envelope } from './wire.ts';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

test('close() lets running requests of both eras finish and answer, then resolves', async () => {
  const release = deferred();
  const started: string[] = [];
  const server = createServer({ name: 's', version: '1' });
  server.tool('finish_late', {}, async (_args, ctx) => {
    started.push(ctx.era);
    await release.promise;
    return { content: [{ type: 'text', text: `finished ${ctx.era}` }] };
  });
  const http = await serveHttp(server, { port: 0 });
  const init = await fetch(http.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const legacy = fetch(http.url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'finish_late' } }),
  });
  const modern = fetch(http.url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'finish_late' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'finish_late', _meta: envelope() } }),
  });
  while (started.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const closed = http.close();
  release.resolve();
  const [legacyAnswer, modernAnswer] = await Promise.all([(await legacy).json(), (await modern).json()]) as [
    { result: { content: { text: string }[] } }, { result: { content: { text: string }[] } },
  ];
  assert.equal(legacyAnswer.result.content[0]!.text, 'finished legacy');
  assert.equal(modernAnswer.result.content[0]!.text, 'finished modern');
  await closed;
  assert.equal(http.handler.sessionCount, 0);
});
