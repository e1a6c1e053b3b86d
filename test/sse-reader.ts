// SSE read incrementally from a fetch body, for the Streamable HTTP wire tests: events are parsed as their bytes
// arrive, keep-alive comments are skipped, and priming events (an id with empty data) are collected apart from
// the events that carry a JSON-RPC message.

import assert from 'node:assert/strict';
import type { Frame } from './harness.ts';

export interface SseEvent {
  /** The `event:` field as sent (MCP streams send `message` or nothing). */
  event: string | undefined;
  id: string | undefined;
  /** The JSON-RPC message in the event's data. */
  message: Frame;
}

/** A block's event: its message, `priming` for an id with empty data, or undefined for comments and empty blocks. */
function parseBlock(block: string): SseEvent | { priming: string } | undefined {
  let event: string | undefined;
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  const text = data.join('\n');
  if (text === '') return id === undefined ? undefined : { priming: id };
  assert.equal(event ?? 'message', 'message', 'an MCP stream carries only message events');
  return { event, id, message: JSON.parse(text) };
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #done = false;
  /** Ids of the priming events skipped so far (2025-11-25 streams open with one). */
  readonly priming: string[] = [];

  /** From a Response (asserted to be a 200 `text/event-stream` first), or from a body stream as it is. */
  constructor(source: Response | ReadableStream<Uint8Array>) {
    if (source instanceof Response) {
      assert.equal(source.status, 200);
      assert.equal(source.headers.get('content-type'), 'text/event-stream');
      source = source.body!;
    }
    this.#reader = source.getReader();
  }

  /** The next event that carries a message (comments and priming events are skipped); undefined once the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const cut = this.#buffer.indexOf('\n\n');
      if (cut !== -1) {
        const block = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        const event = parseBlock(block);
        if (event !== undefined && 'priming' in event) this.priming.push(event.priming);
        else if (event !== undefined) return event;
        continue;
      }
      if (this.#done) {
        assert.equal(this.#buffer, '', 'the stream ended in the middle of an event');
        return undefined;
      }
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** The next event's message; fails when the stream ended instead. */
  async message(): Promise<Frame> {
    const event = await this.next();
    assert.ok(event !== undefined, 'the stream ended before the expected event');
    return event.message;
  }

  /** Every event up to the end of the stream. */
  async rest(): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(); event !== undefined; event = await this.next()) events.push(event);
    return events;
  }

  /** Asserts that the stream ends with no further event. */
  async ended(): Promise<void> {
    assert.deepEqual(await this.rest(), []);
  }

  /** Stops reading: the client goes away. */
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}
