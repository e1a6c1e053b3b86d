// Units of the bytes helpers of jsonrpc.ts, checked against Node's own Buffer and node:crypto: base64 / base64url both
// ways (and what is not base64), hex, random bytes and UTF-8 (the skills add-on's SHA-256 is test/sha256.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromBase64, randomBytes, toBase64, toBase64Url, toHex, utf8 } from '../jsonrpc.ts';

/** Deterministic bytes of any length (so a failure is reproducible). */
function bytesOf(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff;
  return bytes;
}

// Lengths around base64's 3-byte groups, a few blocks, and past toBase64's 32 KiB chunk.
const LENGTHS = [0, 1, 2, 3, 31, 32, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 0x8000, 0x8001, 70_000];

test('base64 and base64url encode as Buffer does and decode back, padded or not', () => {
  for (const length of LENGTHS) {
    const data = bytesOf(length);
    const buffer = Buffer.from(data);
    assert.equal(toBase64(data), buffer.toString('base64'), `length ${length}`);
    assert.equal(toBase64Url(data), buffer.toString('base64url'), `length ${length}`);
    assert.deepEqual(fromBase64(toBase64(data)), data);
    assert.deepEqual(fromBase64(toBase64Url(data)), data);
  }
});

test('what is not base64 decodes to undefined', () => {
  for (const text of ['a', 'abcde', 'ab!c', 'a=bc', 'é']) assert.equal(fromBase64(text), undefined, text);
});

test('toHex writes lowercase pairs; randomBytes gives the length asked, fresh each time', () => {
  assert.equal(toHex(new Uint8Array([0, 1, 0xab, 0xff])), '0001abff');
  assert.equal(randomBytes(16).length, 16);
  assert.notDeepEqual(randomBytes(16), randomBytes(16));
});

test('utf8 encodes as Buffer does, a lone surrogate as U+FFFD', () => {
  for (const text of ['', 'ascii', 'héllo', '日本', '😀', '\ud800', 'a\udc00b'])
    assert.deepEqual(Buffer.from(utf8(text)), Buffer.from(text, 'utf8'), JSON.stringify(text));
});
