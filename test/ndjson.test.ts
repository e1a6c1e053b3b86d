// LineSplitter (jsonrpc.ts): newline-delimited framing of a byte stream (MCP 2026-07-28, Basic > Transports >
// stdio), independent of any stream or server: split on \n, strip one trailing \r, skip blank lines, bounded line
// buffer with an oversize line discarded (and reported once) while reading continues (docs/api.md, Transports:
// `serveStdio`).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from '../jsonrpc.ts';

type Event = string | { oversized: true } | { notUtf8: true };
const OVERSIZED: Event = { oversized: true };
const NOT_UTF8: Event = { notUtf8: true };

/** Feeds the chunks, then ends the input; returns what the sink saw, in order. */
function split(chunks: (Buffer | string)[], maxLineBytes = 1024, end = true): Event[] {
  const events: Event[] = [];
  const sink = {
    line: (text: string) => events.push(text),
    oversized: () => events.push(OVERSIZED),
    notUtf8: () => events.push(NOT_UTF8),
  };
  const splitter = new LineSplitter(maxLineBytes);
  for (const chunk of chunks) splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, sink);
  if (end) splitter.end(sink);
  return events;
}

/** Every way of cutting `bytes` into two chunks, plus one byte per chunk. */
function cuts(bytes: Buffer): { name: string; chunks: Buffer[] }[] {
  const ways: { name: string; chunks: Buffer[] }[] = [
    { name: 'one byte per chunk', chunks: [...bytes].map((byte) => Buffer.from([byte])) },
  ];
  for (let at = 0; at <= bytes.length; at++) {
    ways.push({ name: `cut at byte ${at}`, chunks: [bytes.subarray(0, at), bytes.subarray(at)] });
  }
  return ways;
}

test('splits on LF and hands over each line without its newline', () => {
  assert.deepEqual(split(['{"a":1}\n{"b":2}\n']), ['{"a":1}', '{"b":2}']);
});

test('several frames in one chunk come out in order', () => {
  const chunk = Array.from({ length: 50 }, (_, i) => `{"id":${i}}\n`).join('');
  assert.deepEqual(
    split([chunk]),
    Array.from({ length: 50 }, (_, i) => `{"id":${i}}`),
  );
});

test('CRLF: exactly one trailing CR is stripped, an inner CR is kept', () => {
  assert.deepEqual(split(['{"a":1}\r\n{"b":2}\r\n']), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(split(['x\r\r\n']), ['x\r']);
  assert.deepEqual(split(['a\rb\n']), ['a\rb']);
});

test('a CR at the end of one chunk and the LF at the start of the next make one CRLF', () => {
  assert.deepEqual(split(['{"a":1}\r', '\n{"b":2}\r', '\n']), ['{"a":1}', '{"b":2}']);
});

test('blank and whitespace-only lines are skipped', () => {
  assert.deepEqual(split(['\n\n\r\n  \n\t\r\n{"a":1}\n\n \n{"b":2}\n\r\n']), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(split(['\r\n', '\n', '   ']), []);
});

test('a frame split at every byte position comes out whole', () => {
  const input = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n{"id":2,"t":"h\\u00e9"}\n');
  for (const { name, chunks } of cuts(input)) {
    assert.deepEqual(split(chunks), ['{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"id":2,"t":"h\\u00e9"}'], name);
  }
});

test('multi-byte UTF-8 characters split across chunks decode intact', () => {
  // 2-, 3- and 4-byte sequences: é, €, 😀 (surrogate pair in JS), and a CJK character.
  const text = '{"t":"é€😀漢"}';
  const input = Buffer.from(`${text}\n${text}`); // the second one has no newline: end() delivers it
  assert.equal(input.length, 2 * Buffer.byteLength(text) + 1);
  for (const { name, chunks } of cuts(input)) {
    assert.deepEqual(split(chunks), [text, text], name);
  }
});

test('a line that is not UTF-8 is reported, not decoded with U+FFFD, wherever the chunks are cut; lines around it are served', () => {
  // A stray continuation byte, a truncated 3-byte sequence, an overlong encoding and a lone surrogate (CESU-8).
  for (const bad of [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
    const input = Buffer.concat([Buffer.from('{"a":1}\n{"t":"'), Buffer.from(bad), Buffer.from('"}\n{"b":2}\n')]);
    for (const { name, chunks } of cuts(input)) {
      assert.deepEqual(split(chunks), ['{"a":1}', NOT_UTF8, '{"b":2}'], `${bad} ${name}`);
    }
  }
  // A byte order mark is valid UTF-8: it is kept (and the connection answers the line as not JSON).
  assert.deepEqual(split([Buffer.from('\uFEFF{"a":1}\n')]), ['\uFEFF{"a":1}']);
});

test('a final line without a newline is delivered by end()', () => {
  assert.deepEqual(split(['{"a":1}\n{"b"', ':2}']), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(split(['{"b":2}\r']), ['{"b":2}']);
  // Without end() the unfinished line is only held.
  assert.deepEqual(split(['{"a":1}\n{"b":2}'], 1024, false), ['{"a":1}']);
});

test('end() with nothing held delivers nothing', () => {
  assert.deepEqual(split([]), []);
  assert.deepEqual(split(['{"a":1}\n']), ['{"a":1}']);
});

test('a line of exactly maxLineBytes is kept, one byte more is discarded', () => {
  const limit = 16;
  const exact = 'x'.repeat(limit);
  const over = 'y'.repeat(limit + 1);
  const input = Buffer.from(`${exact}\n${over}\n${exact}\n`);
  for (const { name, chunks } of cuts(input)) {
    assert.deepEqual(split(chunks, limit), [exact, OVERSIZED, exact], name);
  }
});

test('an oversized line in one chunk is reported once and the next line is served', () => {
  const big = `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${'x'.repeat(5000)}"}}`;
  assert.deepEqual(split([`${big}\n{"id":1}\n`], 1024), [OVERSIZED, '{"id":1}']);
});

test('an oversized line across many chunks is reported once, its tail is discarded, and the next line is served', () => {
  const big = Buffer.from(`{"pad":"${'x'.repeat(10_000)}"}\n{"id":1}\n`);
  const chunks: Buffer[] = [];
  for (let at = 0; at < big.length; at += 7) chunks.push(big.subarray(at, at + 7));
  assert.deepEqual(split(chunks, 100), [OVERSIZED, '{"id":1}']);
});

test('an oversized line that starts a chunk after a held prefix is reported once', () => {
  // A short prefix is held, then one chunk completes the line far beyond the cap.
  assert.deepEqual(split(['{"a"', `:"${'x'.repeat(500)}"}\n{"id":1}\n`], 100), [OVERSIZED, '{"id":1}']);
});

test('consecutive oversized lines are each reported, between valid ones', () => {
  const big = 'z'.repeat(300);
  const input = Buffer.from(`${big}\n${big}\r\n{"id":1}\n${big}\n{"id":2}`);
  const expected = [OVERSIZED, OVERSIZED, '{"id":1}', OVERSIZED, '{"id":2}'];
  assert.deepEqual(split([input], 100), expected);
  for (const size of [1, 3, 64, 99, 100, 101, 301]) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < input.length; at += size) chunks.push(input.subarray(at, at + size));
    assert.deepEqual(split(chunks, 100), expected, `chunks of ${size} bytes`);
  }
});

test('an oversized final line without a newline is reported once and end() delivers nothing more', () => {
  assert.deepEqual(split(['{"id":1}\n', 'q'.repeat(60), 'q'.repeat(60)], 100), ['{"id":1}', OVERSIZED]);
});

test('memory is bounded: a line is dropped the moment holding it would pass maxLineBytes, however long it runs', () => {
  const limit = 1000;
  const events: Event[] = [];
  const sink = {
    line: (text: string) => events.push(text),
    oversized: () => events.push(OVERSIZED),
    notUtf8: () => events.push(NOT_UTF8),
  };
  const splitter = new LineSplitter(limit);
  splitter.push(Buffer.alloc(limit, 0x61), sink);
  assert.deepEqual(events, [], 'exactly maxLineBytes is held');
  splitter.push(Buffer.alloc(1, 0x61), sink);
  assert.deepEqual(events, [OVERSIZED], 'one byte more: dropped at once, not at its newline');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (let i = 0; i < 160; i++) splitter.push(chunk, sink); // 10 MiB more of the same line, discarded as it comes
  assert.deepEqual(events, [OVERSIZED]);
  splitter.push(Buffer.from('aaa\n{"id":1}\n{"id":'), sink);
  splitter.end(sink);
  assert.deepEqual(events, [OVERSIZED, '{"id":1}', '{"id":']);
});

test("bytes are handed over as they are: invalid JSON is the parser's business, not the splitter's", () => {
  assert.deepEqual(split(['{"jsonrpc":"2.0","id":1,"method":\n', 'not json\n']), [
    '{"jsonrpc":"2.0","id":1,"method":',
    'not json',
  ]);
});
