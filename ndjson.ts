// Newline-delimited JSON framing for stdio: splits a byte stream into lines (CRLF accepted, blank lines skipped,
// chunks cut anywhere — even inside a multi-byte character) under a per-line byte cap, and decodes each as UTF-8.
// Pure: no I/O, no parsing; it never holds more than the cap of one unfinished line.

import { decodeUtf8 } from './jsonrpc.ts';

export interface LineSink {
  line(text: string): void;
  /** A line longer than the cap was discarded (reported once per such line). */
  oversized(): void;
  /** A line whose bytes are not UTF-8 was discarded. */
  notUtf8(): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #partsBytes = 0;
  #discarding = false;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Bytes held for the unfinished line. */
  get bufferedBytes(): number {
    return this.#partsBytes;
  }

  push(chunk: Buffer, sink: LineSink): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#hold(chunk, start, chunk.length, sink);
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#parts.length === 0) {
        if (end - start > this.#maxLineBytes) sink.oversized();
        else this.#emit(chunk, start, end, sink);
      } else {
        this.#hold(chunk, start, end, sink);
        if (!this.#discarding) {
          const line = Buffer.concat(this.#parts, this.#partsBytes);
          this.#reset();
          this.#emit(line, 0, line.length, sink);
        }
        this.#discarding = false;
      }
      start = end + 1;
    }
  }

  /** The input ended: a last line without its newline still counts. */
  end(sink: LineSink): void {
    if (this.#parts.length > 0) {
      const line = Buffer.concat(this.#parts, this.#partsBytes);
      this.#reset();
      this.#emit(line, 0, line.length, sink);
    }
    this.#discarding = false;
  }

  #hold(chunk: Buffer, start: number, end: number, sink: LineSink): void {
    if (this.#discarding || start === end) return;
    if (this.#partsBytes + end - start > this.#maxLineBytes) {
      this.#reset();
      this.#discarding = true;
      sink.oversized();
      return;
    }
    this.#parts.push(chunk.subarray(start, end));
    this.#partsBytes += end - start;
  }

  #reset(): void {
    this.#parts = [];
    this.#partsBytes = 0;
  }

  #emit(buffer: Buffer, start: number, end: number, sink: LineSink): void {
    if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
    const text = decodeUtf8(buffer.subarray(start, end));
    if (text === undefined) sink.notUtf8();
    else if (text.trim() !== '') sink.line(text);
  }
}
