// The one-file `.ts` floor: floor.mjs's stdio path written in TypeScript, run with type stripping, so that a `.ts`
// build's cold start can be set beside the least a stripped program pays (loading the stripper, stripping one file).
// Answers exactly as floor.mjs does; keep the two in step. Run: node --experimental-strip-types floor.ts stdio

import { createInterface } from 'node:readline';

interface Request {
  id?: number | string;
  method?: string;
}

const TOOL_RESULT = { content: [{ type: 'text', text: 'hello' }] };
const LIST_RESULT = {
  tools: [
    { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ],
};
const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'floor', version: '1.0.0' },
};

/** The canned answer to one line, or undefined for a notification. */
function answer(text: string): string | undefined {
  const message = JSON.parse(text) as Request;
  if (message.id === undefined) return undefined;
  const result =
    message.method === 'initialize' ? INIT_RESULT : message.method === 'tools/list' ? LIST_RESULT : TOOL_RESULT;
  return JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line: string) => {
  const out = answer(line);
  if (out !== undefined) process.stdout.write(`${out}\n`);
});
