// Units of skills/sha256.ts, checked against node:crypto: the FIPS 180-2 vectors, every length around the padding
// boundaries, seeded random lengths and contents up to a few MiB, and a view at an offset.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { utf8 } from '../jsonrpc.ts';
import { sha256 } from '../skills/sha256.ts';
import { mulberry32 } from './fuzz-gen.ts';

/** Deterministic bytes of any length (so a failure is reproducible). */
function bytesOf(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff;
  return bytes;
}

// Lengths around the 64-byte blocks and a few larger ones.
const LENGTHS = [0, 1, 2, 3, 31, 32, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 0x8000, 0x8001, 70_000];

/** SHA-256 as node:crypto computes it. */
const nodeSha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

test('sha256 gives the FIPS 180-2 test vectors', () => {
  const vectors: [string, string][] = [
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    [
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
      'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
    ],
    ['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
  ];
  for (const [text, digest] of vectors)
    assert.equal(sha256(utf8(text)), digest, `${text.slice(0, 20)}… (${text.length})`);
});

test('sha256 equals node:crypto at every length to 300 bytes (the 55/56/64-byte padding edges) and beyond', () => {
  for (let length = 0; length <= 300; length++) assert.equal(sha256(bytesOf(length)), nodeSha256(bytesOf(length)));
  for (const length of LENGTHS) assert.equal(sha256(bytesOf(length, 7)), nodeSha256(bytesOf(length, 7)), `${length}`);
});

test('sha256 equals node:crypto on seeded random contents and lengths up to 4 MiB', () => {
  const random = mulberry32(2640);
  const lengths = [1 << 20, (1 << 22) - 1];
  for (let i = 0; i < 200; i++) lengths.push(Math.floor(random() * (i < 150 ? 4096 : 200_000)));
  for (const length of lengths) {
    const data = new Uint8Array(length);
    for (let i = 0; i < length; i++) data[i] = (random() * 256) | 0;
    assert.equal(sha256(data), nodeSha256(data), `length ${length}`);
  }
  const shared = bytesOf(1000);
  assert.equal(sha256(shared.subarray(3, 900)), nodeSha256(shared.subarray(3, 900)), 'a view at an offset');
});
