// A tool that asks the user before acting. It answers `inputRequired(…)`; a 2026-07-28 client gets an
// input_required result and retries with the answers, a 2025 client is sent a real elicitation/create request.
// Either way the handler runs again with ctx.inputResponses. Run over stdio: node examples/input-required.ts
import { pathToFileURL } from 'node:url';
import { createServer, elicitInput, inputRequired, type Server } from '../core.ts';
import { serveStdio } from '../stdio.ts';

export function createInputServer(): Server {
  const server = createServer({ name: 'input-required-example', version: '1.0.0' });
  server.tool(
    'delete_file',
    {
      description: 'Deletes a file after the user confirms',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    ({ path }: { path: string }, ctx) => {
      const answer = ctx.inputResponses?.confirm;
      if (answer === undefined) {
        return inputRequired({
          confirm: elicitInput({
            message: `Delete ${path}?`,
            requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
          }),
        });
      }
      const sure = answer.action === 'accept' && (answer.content as { sure?: unknown } | undefined)?.sure === true;
      return { content: [{ type: 'text', text: sure ? `Deleted ${path}` : `Kept ${path}` }] };
    },
  );
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) serveStdio(createInputServer());
