// Wire scenarios of a 2025-11-25 session's SSE streams, run on both adapters (test/http-legacy.test.ts on node:http,
// test/fetch.test.ts on the fetch handler): a GET answers its headers and a first chunk at once, a session holds
// several GET streams and each message related to no request reaches exactly one, the per-session bound ends the
// oldest (which resumes losing nothing), and a POST stream ended after its priming event (polling) is resumed by GET.

import assert from 'node:assert/strict';
import type { Server } from '../core.ts';
import { MAX_GET_STREAMS } from '../http/sessions.ts';
import { type EventStore, MemoryEventStore } from '../http/sse.ts';
import { deferred, type Frame } from './harness.ts';
import { SseReader } from './sse-reader.ts';

/** One open SSE response of the session, and how its client leaves it (resolves once the server saw it close). */
export interface Opened {
  response: Response;
  leave(): Promise<void>;
}

/** A client of one initialized 2025-11-25 session, on either adapter. */
export interface SessionClient {
  /** A GET of the session, resuming after `lastEventId` when given. */
  get(lastEventId?: string): Promise<Opened>;
  /** A POST of `frame` in the session. */
  post(frame: Frame): Promise<Opened>;
}

const decoder = new TextDecoder();

/** The body's text up to (and including) its first blank line that ends a block with `id:` (the priming event). */
async function readPriming(reader: ReadableStreamDefaultReader<Uint8Array>, text: string): Promise<string> {
  while (!/(^|\n)id: [^\n]+\n(retry: \d+\n)?data: \n\n/.test(text)) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before its priming event: ${JSON.stringify(text)}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/**
 * A fresh GET and a GET resumed with a Last-Event-ID whose replay is empty both answer with a first body chunk at
 * once, before any server message: a comment (a Web Response is flushed by some runtimes only at its first chunk).
 * The fresh one then has its priming event (2025-11-25 transports, Streamable HTTP, resumability).
 */
export async function firstChunkAtOnce(client: SessionClient): Promise<void> {
  const fresh = await client.get();
  assert.equal(fresh.response.status, 200);
  const freshReader = fresh.response.body!.getReader();
  const first = decoder.decode((await freshReader.read()).value);
  assert.ok(first.startsWith(':\n\n'), JSON.stringify(first));
  const priming = /(?:^|\n)id: ([^\n]+)\n/.exec(await readPriming(freshReader, first))![1]!;
  const resumed = await client.get(priming);
  assert.equal(resumed.response.status, 200);
  const resumedReader = resumed.response.body!.getReader();
  const resumedFirst = decoder.decode((await resumedReader.read()).value);
  assert.ok(resumedFirst.startsWith(':\n\n'), JSON.stringify(resumedFirst));
  await resumed.leave();
  await fresh.leave();
}

const changed = (list: string): Frame => ({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` });

/**
 * Two concurrent GETs of a session are both answered (200, SSE); a message related to no request reaches exactly
 * one of them: the newest attached. Once that one's client left, the next goes to the other, and it never saw the
 * first.
 */
export async function twoGetStreams(client: SessionClient, server: Server): Promise<void> {
  const older = await client.get();
  const newer = await client.get();
  const olderReader = new SseReader(older.response);
  const newerReader = new SseReader(newer.response);
  server.notifyListChanged('tools');
  assert.deepEqual(await newerReader.message(), changed('tools'));
  await newer.leave();
  server.notifyListChanged('prompts');
  assert.deepEqual(await olderReader.message(), changed('prompts'), 'the older stream never got the first message');
  await older.leave();
}

/**
 * A looping client: each GET past MAX_GET_STREAMS ends the oldest, so only the last MAX_GET_STREAMS stay open. The
 * messages stored for a stream its client had left are replayed to that stream's resumption, even once later GETs
 * made it the oldest and it was forgotten, and to no other stream; a stream ended by the bound resumes too.
 */
export async function getStreamBound(client: SessionClient, server: Server): Promise<void> {
  const left = await client.get();
  const leftReader = new SseReader(left.response);
  server.notifyListChanged('tools');
  const seen = (await leftReader.next())!;
  await left.leave();
  server.notifyListChanged('prompts'); // no GET attached: stored on the stream its client left
  server.notifyListChanged('resources');
  const loop: { opened: Opened; reader: SseReader }[] = [];
  for (let i = 0; i < MAX_GET_STREAMS + 3; i++) {
    const opened = await client.get();
    loop.push({ opened, reader: new SseReader(opened.response) });
  }
  const ended = loop.slice(0, 3);
  const open = loop.slice(3);
  for (const { reader } of ended) await reader.ended();
  server.notifyListChanged('tools');
  assert.deepEqual(await open.at(-1)!.reader.message(), changed('tools'));

  const resumed = await client.get(seen.id);
  const resumedReader = new SseReader(resumed.response);
  assert.deepEqual(
    [await resumedReader.message(), await resumedReader.message()],
    [changed('prompts'), changed('resources')],
  );
  await open[0]!.reader.ended(); // the resumption took a place: the oldest open one made room
  // A stream the bound ended resumes from its priming event with nothing lost (nothing was sent to it).
  const endedFirst = ended[0]!.reader;
  assert.equal(endedFirst.priming.length, 1);
  const again = await client.get(endedFirst.priming[0]);
  server.notifyListChanged('prompts');
  assert.deepEqual(await new SseReader(again.response).message(), changed('prompts'));
  for (const { opened } of open.slice(1)) await opened.leave();
  await resumed.leave();
  await again.leave();
}

/** A server whose tool `steps` reports progress 1, then 2 and its answer once `release` is called. */
export function stepsTool(server: Server): { release(): void } {
  const go = deferred();
  server.tool('steps', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    ctx.progress(1, 2);
    await go.promise;
    ctx.progress(2, 2);
    return { content: [{ type: 'text', text: 'all steps' }] };
  });
  return { release: () => go.resolve() };
}

/**
 * Polling (endStreamAfterPriming): the POST is answered with an SSE stream holding only its priming event (with
 * `retry:`), which then ends while the request runs on; a GET with that Last-Event-ID gets its progress and its
 * answer, then ends.
 */
export async function pollingPost(client: SessionClient, release: () => void): Promise<void> {
  const call: Frame = {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'steps', arguments: {}, _meta: { progressToken: 'p7' } },
  };
  const posted = await client.post(call);
  assert.equal(posted.response.headers.get('content-type'), 'text/event-stream');
  const text = await posted.response.text();
  const match = /^id: ([^\n]+)\nretry: (\d+)\ndata: \n\n$/.exec(text);
  assert.ok(match !== null, `only a priming event with retry, then the end: ${JSON.stringify(text)}`);
  release();
  const resumed = await client.get(match[1]);
  const reader = new SseReader(resumed.response);
  const progress = (value: number): Frame => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'p7', progress: value, total: 2 },
  });
  assert.deepEqual(
    (await reader.rest()).map((event) => event.message),
    [progress(1), progress(2), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'all steps' }] } }],
  );
}

/** An event store whose appends can be held: `hold()` makes the next appends wait until the returned release. */
export function heldStore(): { store: EventStore; hold(): { appending: Promise<void>; release(): void } } {
  const inner = new MemoryEventStore();
  let gate: { reached: () => void; open: Promise<void> } | undefined;
  return {
    store: {
      async append(sessionId, streamId, data) {
        if (gate !== undefined) {
          gate.reached();
          await gate.open;
        }
        return inner.append(sessionId, streamId, data);
      },
      replayAfter: (sessionId, eventId) => inner.replayAfter(sessionId, eventId),
      dropSession: (sessionId) => inner.dropSession(sessionId),
    },
    hold() {
      let reached!: () => void;
      let open!: () => void;
      const appending = new Promise<void>((resolve) => (reached = resolve));
      gate = { reached, open: new Promise<void>((resolve) => (open = resolve)) };
      return {
        appending,
        release: () => {
          gate = undefined;
          open();
        },
      };
    },
  };
}

/**
 * A GET stream resumed twice while a message for it is still being stored: the earlier resumption, still waiting
 * for its replay, is taken over (ended with nothing); the later one alone gets the replay and what follows.
 */
export async function resumedTwiceWhileStoring(
  client: SessionClient,
  server: Server,
  held: ReturnType<typeof heldStore>,
): Promise<void> {
  const first = await client.get();
  const reader = first.response.body!.getReader();
  const priming = /(?:^|\n)id: ([^\n]+)\n/.exec(await readPriming(reader, ''))![1]!;
  await first.leave();
  const { appending, release } = held.hold();
  server.notifyListChanged('tools'); // stored on the GET stream, behind the held append
  await appending;
  const earlier = await client.get(priming);
  const later = await client.get(priming);
  release();
  assert.deepEqual(await new SseReader(earlier.response).rest(), [], 'the earlier resumption was taken over');
  const laterReader = new SseReader(later.response);
  assert.equal((await laterReader.message()).method, 'notifications/tools/list_changed');
  server.notifyListChanged('prompts');
  assert.equal((await laterReader.message()).method, 'notifications/prompts/list_changed');
  await later.leave();
}
