// mcp-core as users run it: `node mcp-core.mjs <stdio|http> dist` loads the built dist/ (machine Node);
// `node --experimental-strip-types mcp-core.mjs <stdio|http> ts` loads the .ts sources (Node >= 22.19); any other
// build argument is the absolute path of another built dist/ (bench/run.ts --baseline-dist). A third argument
// `pass-through` adds one middleware that only calls next() (the seam's cost, issue 26).
// One echo tool; HTTP serves both eras on one endpoint and prints "listening <port>" on stdout.
const [transport = 'stdio', build = 'dist', middleware] = process.argv.slice(2);
// node:url only for another dist: the cold-start rows measure the script as the others run it.
const root =
  build === 'ts'
    ? '../../'
    : build === 'dist'
      ? '../../dist/'
      : (await import('node:url')).pathToFileURL(`${build}/`).href;
const ext = build === 'ts' ? '.ts' : '.js';
const { createServer } = await import(`${root}core${ext}`);

const server = createServer({ name: 'bench', version: '1.0.0' }, { maxSubscriptions: 20_000, maxListens: 20_000 });
server.tool(
  'echo',
  {
    description: 'Echoes its text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);
if (middleware === 'pass-through') server.intercept((_call, next) => next());
else if (middleware !== undefined) throw new Error(`mcp-core.mjs: unknown middleware ${middleware}`);

if (transport === 'http') {
  const { serveHttp } = await import(`${root}http${ext}`);
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', maxSessions: 20_000, maxStreams: 20_000 });
  console.log(`listening ${new URL(http.url).port}`);
} else {
  const { serveStdio } = await import(`${root}stdio${ext}`);
  serveStdio(server);
}
if (typeof globalThis.gc === 'function') process.on('SIGUSR2', () => globalThis.gc());
