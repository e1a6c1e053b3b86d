// FastMCP wired the way its README shows: one FastMCP server with a zod tool, started with transportType "stdio"
// or "httpStream" (sessionful Streamable HTTP on its own node:http server). FastMCP speaks the 2025 era only.
// It takes a port but does not report the one it bound, so the HTTP case asks the OS for a free port first.
// Run: node fastmcp.mjs stdio | node fastmcp.mjs http   (HTTP prints "listening <port>" on stdout)
import { createServer } from 'node:net';
import { FastMCP } from 'fastmcp';
import * as z from 'zod';

const server = new FastMCP({ name: 'bench', version: '1.0.0' });
server.addTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: [{ type: 'text', text }] }),
});

/** A port nobody listens on now (the OS picks it), released for FastMCP to bind. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

if (process.argv[2] === 'http') {
  const port = await freePort();
  await server.start({ transportType: 'httpStream', httpStream: { port, host: '127.0.0.1' } });
  console.log(`listening ${port}`);
} else {
  await server.start({ transportType: 'stdio' });
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
