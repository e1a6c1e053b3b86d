// A stdio server for the child-process tests in test/stdio.test.ts: serves on the process's own stdin and stdout (a
// real pipe, unlike the PassThrough streams of test/harness.ts) and reports on stderr how `closed` and `close()`
// settled, so a promise that never settles shows as a missing line. `--rethrow` serves in rethrow mode;
// `--exit-when-closed` exits as soon as `closed` resolves, as a host may.

import { once } from 'node:events';
import { createServer } from '../core.ts';
import { serveStdio } from '../stdio.ts';

const server = createServer({ name: 'stdio-child', version: '1.0.0' }, { rethrow: process.argv.includes('--rethrow') });

/** A tool result with one text item. */
function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

// Answers only once stdin has ended, so its answer is written in the EOF drain window whenever the call arrives;
// `bytes` pads it past what a pipe takes at once.
server.tool(
  'after_eof',
  { inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } } },
  async (args: { bytes?: number }) => {
    if (!process.stdin.readableEnded) await once(process.stdin, 'end');
    return text(args.bytes === undefined ? 'answered after EOF' : 'x'.repeat(args.bytes));
  },
);

// Calls close() while its own call runs, so its answer is written in the drain window close() opens. The call runs
// inside the read of its frame from stdin, where pausing stdin does not stop its handle reading.
server.tool('close', {}, async () => {
  stdio.close().then(() => report('close(): settled'));
  await Promise.resolve();
  return text('closing');
});

// Throws Error('boom'), or `undefined` itself with `{ undefined: true }`: rethrow mode must reject `closed` with it.
server.tool(
  'throw',
  { inputSchema: { type: 'object', properties: { undefined: { type: 'boolean' } } } },
  (args: { undefined?: boolean }) => {
    if (args.undefined === true) throw undefined;
    throw new Error('boom');
  },
);

/** One line on stderr (stdout carries frames only). */
function report(line: string): void {
  process.stderr.write(`${line}\n`);
}

const stdio = serveStdio(server);
stdio.closed.then(
  () => {
    report('closed: resolved');
    if (process.argv.includes('--exit-when-closed')) process.exit(0);
  },
  (error: unknown) => report(`closed: rejected with ${String(error)}`),
);
