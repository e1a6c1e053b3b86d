// The Worker that test/workerd.test.ts bundles with esbuild and serves with Miniflare: createFetchHandler over a
// small server (a plain tool, one reporting progress, one asking for input with sealed state, one publishing a
// list change, one that throws), statelessly as fetch.ts defaults to; tools/list pages by three. Web APIs only: it runs without the `nodejs_compat` flag.

import { type Context, createServer } from '../core.ts';
import { createFetchHandler } from '../fetch.ts';
import { elicitInput, inputRequired } from '../input.ts';

const server = createServer({ name: 'workerd-test', version: '1.0.0' }, { pageSize: 3 }); // tools/list in pages
server.tool(
  'echo',
  { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  (args: { text?: string }) => ({
    content: [{ type: 'text', text: args.text ?? '' }],
  }),
);
server.tool('steps', {}, async (_args, ctx: Context) => {
  ctx.progress(1, 2, 'half way');
  await Promise.resolve();
  ctx.progress(2, 2, 'done');
  return { content: [{ type: 'text', text: 'two steps' }] };
});
server.tool('confirm', {}, (_args, ctx: Context) => {
  if (ctx.requestState === undefined)
    return inputRequired({ ok: elicitInput({ message: 'Sure?', requestedSchema: { type: 'object' } }) }, { round: 1 });
  const answer = JSON.stringify(ctx.inputResponses?.ok);
  return { content: [{ type: 'text', text: `round ${(ctx.requestState as { round: number }).round}: ${answer}` }] };
});
server.tool('publish', {}, () => {
  server.notifyListChanged('tools');
  return { content: [{ type: 'text', text: 'published' }] };
});

server.tool('boom', {}, () => {
  throw new Error('secret detail');
});

const handle = createFetchHandler(server);

/** The Worker's module entry: every request goes to the MCP handler. */
export default { fetch: (request: Request): Promise<Response> => handle(request) };
