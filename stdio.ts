// The stdio transport: newline-delimited JSON over a Readable/Writable pair (default process.stdin/stdout), with a
// line cap, bounded output under backpressure, and the EOF drain. Only moves frames between the streams and one
// connection; it writes nothing but protocol frames to its output, ever. Once closed, process.stdin is unref'd so it
// no longer keeps the process alive (never destroyed); a given input is only paused.

import type { Readable, Writable } from 'node:stream';
import type { Connection, Server } from './core.ts';
import { type JsonRpcMessage, type JsonRpcResponse, type LineSink, LineSplitter, type RequestId } from './jsonrpc.ts';

/** Options of serveStdio(): the streams (default process.stdin/stdout) and the framing and back-pressure limits. */
export interface StdioOptions {
  input?: Readable;
  output?: Writable;
  /** A longer line is discarded and answered with a parse error (default 4 MiB). */
  maxLineBytes?: number;
  /** How long requests still running at end of input may take to finish (default 2 000 ms). */
  drainWindowMs?: number;
  /** Output held for a slow reader (default 16 MiB); past it, notifications (not listen-stream frames, bounded by their
   * stream) are dropped, answers kept; reading pauses while output waits. */
  maxQueuedBytes?: number;
}

/** A server being served over stdio: its one connection, and how to await or force its end. */
export interface StdioServer {
  readonly connection: Connection;
  /** Settles once the connection ended and its output is flushed (rejects only in rethrow mode); process.stdin then no
   * longer keeps the process alive, even while the host keeps it open. */
  readonly closed: Promise<void>;
  /** Stops reading and ends as on end of input: running requests get the drain window. Resolves once `closed` settles. */
  close(): Promise<void>;
}

type Phase = 'reading' | 'draining' | 'closed';

/** Serves `server` over newline-delimited JSON on stdin/stdout (or the given streams) as one connection. */
export function serveStdio(server: Server, options: StdioOptions = {}): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxQueuedBytes = options.maxQueuedBytes ?? 16 * 1024 * 1024;
  const drainWindowMs = options.drainWindowMs ?? 2000;
  const splitter = new LineSplitter(options.maxLineBytes ?? 4 * 1024 * 1024);
  const { logger, rethrow } = server.transport;
  let phase: Phase = 'reading';
  let outputBroken = false;
  let droppedNotifications = 0;
  let waitingForDrain = false;
  let settle!: { resolve(): void; reject(error: unknown): void };
  const closed = new Promise<void>((resolve, reject) => void (settle = { resolve, reject }));

  const send = (message: JsonRpcMessage | JsonRpcResponse[], _related?: RequestId, essential = false): void => {
    if (outputBroken) return;
    // Essential notifications (a listen's ack and events) are bounded by their stream; a lost one would go unnoticed.
    if (output.writableLength > maxQueuedBytes && !essential && !Array.isArray(message) && !('id' in message)) {
      if (droppedNotifications++ === 0) logger.warn('output is backed up; dropping notifications until it drains');
      return;
    }
    // Each frame is written as soon as it is made, never held back for the rest of its chunk: a pipelined client
    // reads the first answer while the next is computed (bench/README.md, stdio round trips).
    if (!output.write(`${JSON.stringify(message)}\n`) && phase === 'reading' && !waitingForDrain) {
      waitingForDrain = true; // one listener however many writes are refused
      input.pause();
      output.once('drain', resumeReading);
    }
  };

  const resumeReading = (): void => {
    waitingForDrain = false;
    if (droppedNotifications > 0)
      logger.warn(`dropped ${droppedNotifications} notification(s) while output was backed up`);
    droppedNotifications = 0;
    if (phase === 'reading') input.resume();
    connection.resume();
  };

  const connection = server.transport.connect({
    transport: 'stdio',
    send,
    onHandlerError: rethrow ? (error) => void finish({ error }) : undefined,
    isBackedUp: () => output.writableNeedDrain,
  });

  const sink: LineSink = {
    line: (text) => connection.receiveText(text),
    oversized: () => connection.receiveOversized(),
    notUtf8: () => connection.receiveNotUtf8(),
  };
  const onData = (chunk: Buffer | string): void =>
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, sink);
  const onEnd = (): void => void end();
  // The reader went away (EPIPE…), or the output was destroyed without an error: nothing can be delivered any more.
  const onOutputError = (error?: NodeJS.ErrnoException): void => {
    if (error === undefined && phase === 'closed') return;
    outputBroken = true;
    if (error !== undefined && error.code !== 'EPIPE') logger.error('output stream failed', error);
    connection.close();
    void finish();
  };
  const onOutputClose = (): void => onOutputError();

  function stopReading(): void {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('error', onEnd);
    input.pause();
    output.off('drain', resumeReading);
  }

  async function end(): Promise<void> {
    if (phase !== 'reading') return;
    phase = 'draining';
    splitter.end(sink);
    stopReading();
    await connection.drain(drainWindowMs);
    await finish();
  }

  /** Ends for good once the output is flushed; `failure` (rethrow mode) holds the handler's error, whatever it is. */
  async function finish(failure?: { error: unknown }): Promise<void> {
    if (phase === 'closed') return;
    phase = 'closed';
    stopReading();
    connection.close();
    if (!outputBroken) await flush(output);
    output.off('error', onOutputError);
    output.off('close', onOutputClose);
    output.on('error', ignore);
    releaseStdin(input);
    if (failure === undefined) settle.resolve();
    else settle.reject(failure.error);
  }

  output.on('error', onOutputError);
  output.on('close', onOutputClose);
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', onEnd);
  input.resume();

  return {
    connection,
    closed,
    close: async () => {
      await end();
      await closed.catch(ignore);
    },
  };
}

/** Swallows what a listener or promise no longer needs to report. */
function ignore(): void {}

/**
 * Lets the process exit once the server is done with process.stdin, which its host may keep open: pause() does not
 * reliably stop a pipe or TTY stdin (a net.Socket), but unref() lets the process exit while its handle lives, where
 * destroy() would free fd 0 for the next opened file. A file stdin has no unref(); a given input is left paused.
 */
function releaseStdin(input: Readable): void {
  if (input === process.stdin) process.stdin.unref?.();
}

/** Waits until everything written reached the destination (an empty write's callback runs once every chunk before it
 * is written; either callback also on failure); ends the stream unless it is process.stdout, which stays open. */
function flush(output: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (output === process.stdout) output.write('', () => resolve());
    else output.end(() => resolve());
  });
}
