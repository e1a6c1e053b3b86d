// Units of registry.ts: opaque cursor encoding and decoding, registry order and paging, and the change hub.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProtocolError } from '../core.ts';
import { type ChangeEvent, ChangeHub, decodeCursor, encodeCursor, type Registration, Registry } from '../registry.ts';
import type { Era } from '../types.ts';

function assertInvalidCursor(cursor: unknown, length: number): void {
  assert.throws(
    () => decodeCursor(cursor, length, 't'),
    (error: unknown) => {
      assert.ok(error instanceof ProtocolError, `${JSON.stringify(cursor)}: not a ProtocolError`);
      assert.equal(error.code, -32602);
      assert.equal(error.message, 'Invalid params: params.cursor is not a cursor this server issued');
      return true;
    },
    JSON.stringify(cursor),
  );
}

test('an absent cursor is the first page', () => {
  assert.equal(decodeCursor(undefined, 0, 't'), 0);
  assert.equal(decodeCursor(undefined, 10, 't'), 0);
});

test('every encoded offset decodes back to itself', () => {
  for (const offset of [0, 1, 2, 9, 10, 99, 100, 12345, 999_999_999]) {
    const cursor = encodeCursor(offset, 't');
    assert.match(cursor, /^[A-Za-z0-9_-]+$/, 'URL-safe, no padding');
    assert.equal(decodeCursor(cursor, offset, 't'), offset);
    assert.equal(decodeCursor(cursor, offset + 1, 't'), offset);
  }
});

test('cursors are opaque: they are not the offset written out', () => {
  for (const offset of [0, 1, 42]) {
    assert.notEqual(encodeCursor(offset, 't'), String(offset));
    assertInvalidCursor(String(offset), 100);
  }
});

test('a cursor beyond the end of the list is invalid; the end itself is an empty last page', () => {
  assert.equal(decodeCursor(encodeCursor(5, 't'), 5, 't'), 5);
  assertInvalidCursor(encodeCursor(6, 't'), 5);
  assertInvalidCursor(encodeCursor(1, 't'), 0);
});

test('values that are not strings are invalid cursors, empty and null included', () => {
  for (const cursor of [null, '', 0, 1, true, false, [], ['bzE'], {}, { offset: 1 }]) assertInvalidCursor(cursor, 10);
});

test('strings this server never minted are invalid cursors', () => {
  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  const invalid = [
    'random-string',
    'not a cursor',
    'bzE=', // padded spelling of "o1"
    'bz+E',
    'bz/E',
    b64url('o-1'), // negative
    b64url('o01'), // leading zero
    b64url('o1.5'),
    b64url('o1e3'),
    b64url('o 1'),
    b64url('o1\n'),
    b64url('O1'),
    b64url('x1'),
    b64url('o'),
    b64url('o1000000000'), // more digits than any offset the server mints
    'A'.repeat(25), // longer than any minted cursor
    `${encodeCursor(1, 't')}x`,
    encodeCursor(1, 't').slice(0, -1),
  ];
  for (const cursor of invalid) assertInvalidCursor(cursor, 10);
});

test('a cursor of one list is not a cursor of another', () => {
  const tools = encodeCursor(2, 't');
  assert.equal(decodeCursor(tools, 10, 't'), 2);
  assert.throws(() => decodeCursor(tools, 10, 'p'), /not a cursor this server issued/);
});

test('a tampered spelling that decodes to the same bytes is still not a cursor this server issued', () => {
  // base64 ignores the low bits of a final partial character: "dDI", "dDJ", "dDK" and "dDL" all decode to "t2".
  const issued = encodeCursor(2, 't');
  assert.equal(issued, 'dDI');
  assert.equal(decodeCursor(issued, 10, 't'), 2);
  for (const spelling of ['dDJ', 'dDK', 'dDL']) {
    assert.equal(Buffer.from(spelling, 'base64url').toString('latin1'), 't2');
    assertInvalidCursor(spelling, 10);
  }
});

type Item = { name: string; era: Era | undefined; definition: object };

/** Registers `name` (served in `era`, or both) and returns its handle. */
function add(r: Registry<Item>, name: string, era?: Era): Registration<unknown> {
  return r.register(name, { name, era, definition: {} }, (current) => current);
}

function registry(names: string[], onChange: () => void = () => {}): Registry<Item> {
  const r = new Registry<Item>('tool', onChange);
  for (const name of names) add(r, name);
  return r;
}

test('pages follow registration order and end without a cursor', () => {
  const r = registry(['c', 'a', 'b', 'e', 'd']);
  const seen: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = r.page(cursor, 2, 'legacy', undefined);
    seen.push(page.items.map((item) => item.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(seen, [['c', 'a'], ['b', 'e'], ['d']]);
});

test('a page size that divides the list ends on a full page; a larger one gives everything at once', () => {
  const r = registry(['a', 'b', 'c', 'd']);
  const first = r.page(undefined, 2, 'legacy', undefined);
  const second = r.page(first.nextCursor, 2, 'legacy', undefined);
  assert.deepEqual(
    second.items.map((i) => i.name),
    ['c', 'd'],
  );
  assert.equal(second.nextCursor, undefined);
  assert.deepEqual(r.page(undefined, 100, 'modern', undefined), {
    items: r.values('modern', undefined),
    nextCursor: undefined,
  });
  assert.deepEqual(registry([]).page(undefined, 10, 'legacy', undefined), { items: [], nextCursor: undefined });
});

test('a registry rejects a duplicate name, reports each change, and keeps order across removals', () => {
  let changes = 0;
  const r = registry(['a'], () => changes++);
  const b = add(r, 'b');
  add(r, 'c');
  assert.equal(changes, 3);
  assert.throws(() => add(r, 'b'), /tool 'b' is already registered/);
  assert.equal(changes, 3);
  b.remove();
  b.remove(); // a second remove changes nothing
  assert.equal(changes, 4);
  add(r, 'b');
  assert.deepEqual(
    r.values('legacy', undefined).map((i) => i.name),
    ['a', 'c', 'b'],
  );
  assert.equal(r.get('zzz', 'legacy', undefined), undefined);
  assert.equal(r.get('constructor', 'legacy', undefined), undefined);
});

test('an item restricted to one era is listed, paged and found in that era only', () => {
  const r = registry(['both']);
  const old = add(r, 'old', 'legacy');
  add(r, 'new', 'modern');
  assert.deepEqual(
    r.values('legacy', undefined).map((i) => i.name),
    ['both', 'old'],
  );
  assert.deepEqual(
    r.values('modern', undefined).map((i) => i.name),
    ['both', 'new'],
  );
  assert.deepEqual(
    r.page(undefined, 1, 'modern', undefined).items.map((i) => i.name),
    ['both'],
  );
  assert.deepEqual(
    r.page(r.page(undefined, 1, 'modern', undefined).nextCursor, 1, 'modern', undefined).items.map((i) => i.name),
    ['new'],
  );
  assert.equal(r.get('new', 'legacy', undefined), undefined);
  assert.equal(r.get('old', 'modern', undefined), undefined);
  assert.equal(r.get('new', 'modern', undefined)?.name, 'new');
  old.remove();
  assert.deepEqual(
    r.values('legacy', undefined).map((i) => i.name),
    ['both'],
  );
});

test('the change hub delivers to every listener until it is removed', () => {
  const hub = new ChangeHub();
  const a: ChangeEvent[] = [];
  const b: ChangeEvent[] = [];
  const listenerA = { onChange: (event: ChangeEvent) => a.push(event) };
  const listenerB = { onChange: (event: ChangeEvent) => b.push(event) };
  hub.add(listenerA);
  hub.add(listenerB);
  assert.equal(hub.size, 2);
  hub.publish({ type: 'tools' });
  hub.remove(listenerA);
  hub.remove(listenerA); // removing twice is harmless
  assert.equal(hub.size, 1);
  hub.publish({ type: 'resource', uri: 'mem://x' });
  hub.remove(listenerB);
  assert.equal(hub.size, 0);
  hub.publish({ type: 'prompts' });
  assert.deepEqual(a, [{ type: 'tools' }]);
  assert.deepEqual(b, [{ type: 'tools' }, { type: 'resource', uri: 'mem://x' }]);
});
