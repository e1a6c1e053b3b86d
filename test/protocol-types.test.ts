// The wire types on their own subpath `mcp-core/protocol` (protocol.ts) describe what the server really sends:
// frames typed with them are served, and answers read through them have the fields the types promise. The
// `@ts-expect-error` lines fail the type-check (npm test runs it) if the types stop catching those mistakes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEverythingServer } from '../examples/everything.ts';
import type { ClientRequest, ClientResult, InputRequiredResult, ModernRequestMeta } from '../protocol.ts';
import { WireClient } from './harness.ts';

test('frames typed with the exported wire types are served, and their answers fit the result types', async () => {
  const meta: ModernRequestMeta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const call: ClientRequest['tools/call'] = { name: 'test_input_required_result_elicitation', _meta: meta };
  // @ts-expect-error a tools/call needs a tool name
  const nameless: ClientRequest['tools/call'] = { arguments: {} };
  assert.equal(nameless.name, undefined);
  const client = new WireClient(createEverythingServer());
  const listed = await client.request('tools/list', { _meta: meta });
  const tools: ClientResult['tools/list'] = listed.result;
  assert.ok(tools.tools.some((tool) => tool.name === 'test_input_required_result_elicitation'));
  const asked = await client.request('tools/call', call);
  assert.equal(asked.error, undefined, JSON.stringify(asked));
  const input: InputRequiredResult = asked.result;
  assert.equal(input.resultType, 'input_required');
  assert.deepEqual(Object.keys(input.inputRequests ?? {}), ['user_name']);
  assert.deepEqual(await client.end(), []);
});
