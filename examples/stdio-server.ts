// The smallest server: one tool with a JSON-Schema input, served over stdio. Run: node examples/stdio-server.ts
import { createServer } from '../core.ts';
import { serveStdio } from '../stdio.ts';

const server = createServer({ name: 'greeter', version: '1.0.0' });

server.tool(
  'greet',
  {
    description: 'Greets someone by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  ({ name }: { name: string }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
);

serveStdio(server);
