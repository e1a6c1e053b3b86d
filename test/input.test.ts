// input.ts: InputRequired and its builders, requiredCapabilities, readInputResponses, paramsDigest and the
// requestState sealer. requestState is attacker-controlled (MCP 2026-07-28, Basic > Patterns > Multi Round-Trip
// Requests > Basic Workflow > Server Requirements), so it is HMAC-protected, bound to method + params digest +
// expiry, and anything else is refused with -32602 "requestState failed verification".

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { createServer } from '../core.ts';
import type { InputRequest } from '../input.ts';
import {
  elicitInput,
  InputRequired,
  inputRequired,
  listRootsInput,
  MAX_REQUEST_STATE_LENGTH,
  paramsDigest,
  RequestStateSealer,
  readInputResponses,
  requiredCapabilities,
  sampleInput,
} from '../input.ts';
import { ProtocolError } from '../jsonrpc.ts';
import { MemoryLogger, WireClient } from './harness.ts';
import { CLIENT_CAPABILITIES, fail, modern, ok, SERVER_INFO } from './wire.ts';

const FAILED = { code: -32602, message: 'Invalid params: requestState failed verification' };
const PARAMS = { name: 'greet', arguments: { who: 'Alice', times: 2 } };
const STATE = { step: 2, answers: ['a', 'b'], nested: { ok: true } };

/** Asserts that an open rejects with exactly the verification ProtocolError (not a TypeError, RangeError or SyntaxError). */
async function assertRefused(opening: Promise<unknown>): Promise<void> {
  await assert.rejects(opening, (error: unknown) => {
    assert.ok(error instanceof ProtocolError, `expected ProtocolError, got ${String(error)}`);
    assert.deepEqual(error.toJSON(), FAILED);
    return true;
  });
}

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/** Decodes the payload half of a sealed string (for tests only; open() never trusts it unverified). */
function payloadOf(sealed: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(sealed.split('.')[0]!, 'base64url').toString('utf8'));
}

test('seal then open returns the state intact', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  assert.match(sealed, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(await sealer.open('tools/call', PARAMS, sealed), STATE);
});

test('undefined and primitive states round-trip', async () => {
  const sealer = new RequestStateSealer();
  assert.equal(
    await sealer.open('prompts/get', PARAMS, await sealer.seal('prompts/get', PARAMS, undefined)),
    undefined,
  );
  assert.equal(await sealer.open('prompts/get', PARAMS, await sealer.seal('prompts/get', PARAMS, null)), null);
  assert.equal(await sealer.open('prompts/get', PARAMS, await sealer.seal('prompts/get', PARAMS, 'text')), 'text');
  assert.equal(await sealer.open('prompts/get', PARAMS, await sealer.seal('prompts/get', PARAMS, 0)), 0);
});

test('two seals of the same state differ by their nonce and both open', async () => {
  const { now } = clock();
  const sealer = new RequestStateSealer({ now });
  const a = await sealer.seal('tools/call', PARAMS, STATE);
  const b = await sealer.seal('tools/call', PARAMS, STATE);
  assert.notEqual(a, b);
  assert.notEqual(payloadOf(a).n, payloadOf(b).n);
  assert.deepEqual(await sealer.open('tools/call', PARAMS, a), STATE);
  assert.deepEqual(await sealer.open('tools/call', PARAMS, b), STATE);
});

test('a payload re-encoded with altered state is refused', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, { admin: false });
  const [, mac] = sealed.split('.');
  const payload = payloadOf(sealed);
  assert.deepEqual(payload.s, { admin: false });
  payload.s = { admin: true };
  const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
  await assertRefused(sealer.open('tools/call', PARAMS, forged));
});

test('one flipped character anywhere in the payload or the MAC is refused', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  for (let i = 0; i < sealed.length; i++) {
    if (sealed[i] === '.') continue;
    const flipped = sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1);
    await assertRefused(sealer.open('tools/call', PARAMS, flipped));
  }
});

test('a MAC spelled with different spare bits (same decoded bytes) is refused', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  const [payload, mac] = sealed.split('.') as [string, string];
  // 43 base64url characters carry 258 bits for a 256-bit MAC: the last character has 2 spare bits.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(mac.at(-1)!);
  const variant = mac.slice(0, -1) + alphabet[last ^ 1];
  assert.deepEqual(Buffer.from(variant, 'base64url'), Buffer.from(mac, 'base64url'));
  await assertRefused(sealer.open('tools/call', PARAMS, `${payload}.${variant}`));
});

test('appended "-TAMPERED", truncated, or split differently is refused', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  await assertRefused(sealer.open('tools/call', PARAMS, `${sealed}-TAMPERED`));
  await assertRefused(sealer.open('tools/call', PARAMS, sealed.slice(0, -1)));
  await assertRefused(sealer.open('tools/call', PARAMS, sealed.slice(0, sealed.indexOf('.') + 1)));
  await assertRefused(sealer.open('tools/call', PARAMS, sealed.slice(0, sealed.indexOf('.'))));
  await assertRefused(sealer.open('tools/call', PARAMS, sealed.slice(1)));
  await assertRefused(sealer.open('tools/call', PARAMS, `${sealed}.${sealed.split('.')[1]}`));
});

test('any malformed requestState is refused with the ProtocolError and nothing else', async () => {
  const sealer = new RequestStateSealer();
  const bad: unknown[] = [
    undefined,
    null,
    0,
    1,
    true,
    {},
    [],
    ['a.b'],
    { toString: () => 'x' },
    '',
    '.',
    'a.',
    '.a',
    'abc',
    'a.b.c',
    'not base64!.AAAA',
    'AAAA.not base64!',
    'a b.c',
    '%%%.%%%',
    'AAAA.AAAA',
    '\u0000.\u0000',
    '😀.😀',
    'x'.repeat(MAX_REQUEST_STATE_LENGTH + 1),
    `${'A'.repeat(MAX_REQUEST_STATE_LENGTH)}.A`,
    'a'.repeat(10_000_000),
  ];
  for (const value of bad) await assertRefused(sealer.open('tools/call', PARAMS, value));
});

/** Builds a requestState with a genuine MAC under `secret` around any payload text, as a key holder could. */
function forge(secret: string, payloadText: string, encode: BufferEncoding = 'base64url'): string {
  const encoded = Buffer.from(payloadText).toString(encode);
  return `${encoded}.${createHmac('sha256', secret).update(encoded).digest('base64url')}`;
}

test('a validly MACed payload with wrong inner types is refused, never a TypeError', async () => {
  // Knowing the secret lets the test forge MACs, so only the payload checks stand between these and a result.
  const secret = 'test-secret';
  const sealer = new RequestStateSealer({ secret });
  const real = payloadOf(await sealer.seal('tools/call', PARAMS, STATE));
  // Sanity: a forged copy of the genuine payload opens, so the refusals below come from the payload checks.
  assert.deepEqual(await sealer.open('tools/call', PARAMS, forge(secret, JSON.stringify(real))), STATE);
  const variants = [
    'not json',
    '',
    'null',
    '[]',
    '42',
    '"s"',
    '{}',
    JSON.stringify({ ...real, v: 2 }),
    JSON.stringify({ ...real, m: 42 }),
    JSON.stringify({ ...real, d: null }),
    JSON.stringify({ ...real, e: '99999999999999' }),
    JSON.stringify({ ...real, e: null }),
    JSON.stringify({ ...real, m: 'prompts/get' }),
    JSON.stringify({ ...real, d: await paramsDigest({ name: 'other' }) }),
  ];
  for (const text of variants) await assertRefused(sealer.open('tools/call', PARAMS, forge(secret, text)));
});

test('only strict base64url is accepted, even under a genuine MAC', async () => {
  const secret = 'test-secret';
  const sealer = new RequestStateSealer({ secret });
  // A payload whose standard base64 has '+', '/' or '=' padding: Buffer would decode it, the format must not.
  const text = JSON.stringify({ ...payloadOf(await sealer.seal('tools/call', PARAMS, STATE)), s: '>>>??~~' });
  const standard = Buffer.from(text).toString('base64');
  assert.match(standard, /[+/=]/);
  await assertRefused(sealer.open('tools/call', PARAMS, forge(secret, text, 'base64')));
  assert.deepEqual(await sealer.open('tools/call', PARAMS, forge(secret, text)), '>>>??~~');
});

test('a requestState longer than the cap is refused even when its MAC is genuine', async () => {
  const secret = 'test-secret';
  const sealer = new RequestStateSealer({ secret });
  const real = payloadOf(await sealer.seal('tools/call', PARAMS, STATE));
  const huge = forge(secret, JSON.stringify({ ...real, s: 'x'.repeat(MAX_REQUEST_STATE_LENGTH) }));
  assert.ok(huge.length > MAX_REQUEST_STATE_LENGTH);
  await assertRefused(sealer.open('tools/call', PARAMS, huge));
  const fits = forge(secret, JSON.stringify({ ...real, s: 'x'.repeat(MAX_REQUEST_STATE_LENGTH / 2) }));
  assert.equal(await sealer.open('tools/call', PARAMS, fits), 'x'.repeat(MAX_REQUEST_STATE_LENGTH / 2));
});

test('a state sealed for one method is refused for another', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  await assertRefused(sealer.open('prompts/get', PARAMS, sealed));
  await assertRefused(sealer.open('resources/read', PARAMS, sealed));
});

test('a state sealed for one set of arguments is refused for other arguments or another tool', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  await assertRefused(sealer.open('tools/call', { name: 'greet', arguments: { who: 'Mallory', times: 2 } }, sealed));
  await assertRefused(sealer.open('tools/call', { name: 'greet', arguments: { who: 'Alice', times: '2' } }, sealed));
  await assertRefused(sealer.open('tools/call', { name: 'greet', arguments: { who: 'Alice' } }, sealed));
  await assertRefused(sealer.open('tools/call', { name: 'greet' }, sealed));
  await assertRefused(sealer.open('tools/call', { ...PARAMS, name: 'other' }, sealed));
  await assertRefused(sealer.open('tools/call', { ...PARAMS, extra: 1 }, sealed));
});

test('the same params with a different key order still verify', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal(
    'tools/call',
    { name: 'greet', arguments: { a: 1, b: { x: [1, { p: 1, q: 2 }], y: 2 } } },
    7,
  );
  const reordered = JSON.parse('{"arguments":{"b":{"y":2,"x":[1,{"q":2,"p":1}]},"a":1},"name":"greet"}');
  assert.equal(await sealer.open('tools/call', reordered, sealed), 7);
});

test('_meta, inputResponses and requestState in params are ignored by the digest', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal(
    'tools/call',
    { ...PARAMS, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    STATE,
  );
  const retry = {
    _meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, progressToken: 9 },
    ...PARAMS,
    inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    requestState: sealed,
  };
  assert.deepEqual(await sealer.open('tools/call', retry, sealed), STATE);
  assert.equal(await paramsDigest(retry), await paramsDigest(PARAMS));
  // Only those three top-level keys: the same names nested inside arguments still count.
  assert.notEqual(
    await paramsDigest({ ...PARAMS, arguments: { ...PARAMS.arguments, _meta: 1 } }),
    await paramsDigest(PARAMS),
  );
});

test('paramsDigest treats "__proto__" as an ordinary own key', async () => {
  const withProto = JSON.parse('{"name":"t","arguments":{"__proto__":{"a":1}}}');
  const otherProto = JSON.parse('{"name":"t","arguments":{"__proto__":{"a":2}}}');
  const topProto = JSON.parse('{"name":"t","__proto__":{"arguments":{}}}');
  assert.notEqual(await paramsDigest(withProto), await paramsDigest(otherProto));
  assert.notEqual(await paramsDigest(withProto), await paramsDigest({ name: 't', arguments: {} }));
  assert.notEqual(await paramsDigest(topProto), await paramsDigest({ name: 't' }));
  assert.equal(
    await paramsDigest(withProto),
    await paramsDigest(JSON.parse('{"arguments":{"__proto__":{"a":1}},"name":"t"}')),
  );
  assert.equal(({} as Record<string, unknown>).a, undefined, 'no prototype was polluted');
  const sealer = new RequestStateSealer();
  await assertRefused(sealer.open('tools/call', otherProto, await sealer.seal('tools/call', withProto, 1)));
});

test('paramsDigest distinguishes values JSON would confuse only by type', async () => {
  assert.notEqual(await paramsDigest({ a: 1 }), await paramsDigest({ a: '1' }));
  assert.notEqual(await paramsDigest({ a: [] }), await paramsDigest({ a: {} }));
  assert.notEqual(await paramsDigest({ a: null }), await paramsDigest({}));
  assert.notEqual(await paramsDigest({ 'a,b': 1 }), await paramsDigest({ a: 1, b: 1 }));
  assert.equal(await paramsDigest({ a: undefined }), await paramsDigest({}));
});

test('a requestState is refused once its expiry has passed', async () => {
  const { now, advance } = clock();
  const sealer = new RequestStateSealer({ ttlMs: 1000, now });
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  advance(999);
  assert.deepEqual(await sealer.open('tools/call', PARAMS, sealed), STATE);
  advance(1);
  await assertRefused(sealer.open('tools/call', PARAMS, sealed));
});

test('the default expiry is ten minutes', async () => {
  const { now, advance } = clock();
  const sealer = new RequestStateSealer({ now });
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  advance(10 * 60_000 - 1);
  assert.deepEqual(await sealer.open('tools/call', PARAMS, sealed), STATE);
  advance(1);
  await assertRefused(sealer.open('tools/call', PARAMS, sealed));
});

test('a state sealed by another sealer (another secret) is refused', async () => {
  const a = new RequestStateSealer();
  const b = new RequestStateSealer();
  await assertRefused(b.open('tools/call', PARAMS, await a.seal('tools/call', PARAMS, STATE)));
  const c = new RequestStateSealer({ secret: 'one' });
  const d = new RequestStateSealer({ secret: 'two' });
  await assertRefused(d.open('tools/call', PARAMS, await c.seal('tools/call', PARAMS, STATE)));
});

test('string and byte secrets work, and equal secrets verify each other', async () => {
  const s1 = new RequestStateSealer({ secret: 'shared secret' });
  const s2 = new RequestStateSealer({ secret: 'shared secret' });
  assert.deepEqual(await s2.open('tools/call', PARAMS, await s1.seal('tools/call', PARAMS, STATE)), STATE);
  const b1 = new RequestStateSealer({ secret: Buffer.from('shared secret') });
  assert.deepEqual(await b1.open('tools/call', PARAMS, await s1.seal('tools/call', PARAMS, STATE)), STATE);
  const u1 = new RequestStateSealer({ secret: new Uint8Array([1, 2, 3]) });
  assert.deepEqual(await u1.open('tools/call', PARAMS, await u1.seal('tools/call', PARAMS, STATE)), STATE);
});

test('the sealer rejects bad options and unsealable state at seal time', async () => {
  assert.throws(() => new RequestStateSealer({ secret: '' }), TypeError);
  assert.throws(() => new RequestStateSealer({ secret: new Uint8Array(0) }), TypeError);
  assert.throws(() => new RequestStateSealer({ ttlMs: 0 }), TypeError);
  assert.throws(() => new RequestStateSealer({ ttlMs: Number.POSITIVE_INFINITY }), TypeError);
  const sealer = new RequestStateSealer();
  await assert.rejects(sealer.seal('tools/call', PARAMS, { big: 1n }), TypeError);
  await assert.rejects(
    sealer.seal('tools/call', PARAMS, () => 1),
    TypeError,
  );
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  await assert.rejects(sealer.seal('tools/call', PARAMS, cyclic), TypeError);
  await assert.rejects(sealer.seal('tools/call', PARAMS, 'x'.repeat(MAX_REQUEST_STATE_LENGTH)), RangeError);
});

test('open refuses rather than throws when the retry params themselves are hostile', async () => {
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', PARAMS, STATE);
  let deep: unknown = 0;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  await assertRefused(sealer.open('tools/call', { name: 'greet', arguments: { deep } }, sealed));
  await assertRefused(sealer.open('tools/call', null as unknown as Record<string, unknown>, sealed));
});

test('paramsDigest and seal take params and state of any depth; equal deep params verify in any key order', async () => {
  let arrays: unknown = 0;
  let objects: unknown = 0;
  let reordered: unknown = 0;
  for (let i = 0; i < 100_000; i++) {
    arrays = [arrays];
    objects = { a: objects, n: i };
    reordered = { n: i, a: reordered };
  }
  const sealer = new RequestStateSealer();
  const sealed = await sealer.seal('tools/call', { name: 'greet', arguments: { objects } }, { arrays: 1 });
  assert.deepEqual(await sealer.open('tools/call', { name: 'greet', arguments: { objects: reordered } }, sealed), {
    arrays: 1,
  });
  await assertRefused(sealer.open('tools/call', { name: 'greet', arguments: { objects: { a: reordered } } }, sealed));
  assert.equal(
    await paramsDigest({ arrays }),
    await paramsDigest(JSON.parse(`{"arrays":${'['.repeat(100_000)}0${']'.repeat(100_000)}}`)),
  );
  assert.notEqual(await paramsDigest({ arrays }), await paramsDigest({ arrays: [arrays] }));
  let state: unknown = 'leaf';
  for (let i = 0; i < 5_000; i++) state = [state];
  let opened = await sealer.open('tools/call', PARAMS, await sealer.seal('tools/call', PARAMS, state));
  let levels = 0;
  for (; Array.isArray(opened); levels++) opened = opened[0];
  assert.deepEqual([levels, opened], [5_000, 'leaf']);
});

test('the state is serialized as JSON.stringify would: toJSON once, undefined and functions dropped from objects, null in arrays', async () => {
  const sealer = new RequestStateSealer();
  const state = {
    when: new Date(0),
    skip: undefined,
    fn: () => 1,
    list: [undefined, () => 1, 2],
    self: {
      toJSON() {
        return this;
      },
    },
  };
  assert.deepEqual(
    await sealer.open('tools/call', PARAMS, await sealer.seal('tools/call', PARAMS, state)),
    JSON.parse(JSON.stringify(state)),
  );
});

/** A 2026-07-28 tools/call frame as text, with each "@n" string in `params` replaced by raw JSON text `raw[n]`. */
function askFrame(id: number, params: object, raw: string[]): string {
  const frame = modern('tools/call', params, id, { [CLIENT_CAPABILITIES]: { elicitation: {} } });
  return JSON.stringify(frame).replace(/"@(\d+)"/g, (_, n: string) => raw[Number(n)]!);
}

test('an input-required tool takes arguments and inputResponses nested 10 000 deep over stdio, and binds its state to them', async () => {
  const logger = new MemoryLogger();
  const server = createServer({ name: 's', version: '1' }, { logger });
  server.tool('ask', { inputSchema: { type: 'object' } }, (_args, ctx) => {
    if (ctx.requestState === undefined)
      return inputRequired(
        { confirm: elicitInput({ message: 'sure?', requestedSchema: { type: 'object' } }) },
        { round: 1 },
      );
    let levels = 0;
    for (
      let v = ctx.inputResponses?.confirm?.content;
      Array.isArray(v) || (typeof v === 'object' && v !== null);
      levels++
    ) {
      v = Array.isArray(v) ? v[0] : (v as { a: unknown }).a;
    }
    return {
      content: [{ type: 'text', text: `round ${(ctx.requestState as { round: number }).round}, ${levels} levels` }],
    };
  });
  const client = new WireClient(server);
  const info = { [SERVER_INFO]: { name: 's', version: '1' } };
  const arrays = '['.repeat(10_000) + ']'.repeat(10_000);
  const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  for (const [id, deep] of [
    [1, arrays],
    [3, objects],
  ] as const) {
    client.send(askFrame(id, { name: 'ask', arguments: { nest: '@0' } }, [deep]));
    const asked = await client.response(id);
    assert.equal(typeof asked.result?.requestState, 'string', JSON.stringify(asked));
    assert.deepEqual(
      asked,
      ok(id, {
        resultType: 'input_required',
        inputRequests: {
          confirm: { method: 'elicitation/create', params: { message: 'sure?', requestedSchema: { type: 'object' } } },
        },
        requestState: asked.result.requestState,
        _meta: info,
      }),
    );
    const retry = {
      name: 'ask',
      arguments: { nest: '@0' },
      requestState: asked.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: '@0' } },
    };
    client.send(askFrame(id + 1, retry, [deep]));
    assert.deepEqual(
      await client.response(id + 1),
      ok(id + 1, { content: [{ type: 'text', text: 'round 1, 10000 levels' }], resultType: 'complete', _meta: info }),
    );
    // The state is bound to those deep arguments: one level more is another call.
    client.send(askFrame(id + 100, { ...retry, arguments: { nest: '@1' } }, [deep, `[${deep}]`]));
    assert.deepEqual(
      await client.response(id + 100),
      fail(id + 100, { code: -32602, message: 'Invalid params: requestState failed verification' }),
    );
  }
  client.send(askFrame(9, { name: 'ask' }, []));
  assert.equal((await client.response(9)).result.resultType, 'input_required');
  assert.deepEqual(await client.end(), []);
  assert.deepEqual(logger.errors, []);
});

test('readInputResponses: undefined passes through, a valid map becomes a null-prototype copy', () => {
  assert.equal(readInputResponses(undefined), undefined);
  const input = JSON.parse('{"user_name":{"action":"accept","content":{"name":"Alice"}},"__proto__":{"roots":[]}}');
  const out = readInputResponses(input)!;
  assert.equal(Object.getPrototypeOf(out), null);
  assert.notEqual(out, input);
  assert.deepEqual(Object.keys(out), ['user_name', '__proto__']);
  assert.deepEqual(out.user_name, { action: 'accept', content: { name: 'Alice' } });
  assert.deepEqual(out.__proto__, { roots: [] });
  assert.deepEqual({ ...readInputResponses({})! }, {});
});

test('readInputResponses: a non-object map or a non-object response is -32602 naming it', () => {
  const cases: [unknown, string][] = [
    [null, 'Invalid params: params.inputResponses must be an object'],
    [[], 'Invalid params: params.inputResponses must be an object'],
    ['x', 'Invalid params: params.inputResponses must be an object'],
    [7, 'Invalid params: params.inputResponses must be an object'],
    [{ user_name: 5 }, 'Invalid params: params.inputResponses.user_name must be an object'],
    [{ ok: {}, user_name: null }, 'Invalid params: params.inputResponses.user_name must be an object'],
    [{ roots: [] }, 'Invalid params: params.inputResponses.roots must be an object'],
    [{ 'a b': 'x' }, 'Invalid params: params.inputResponses["a b"] must be an object'],
  ];
  for (const [value, message] of cases) {
    assert.throws(
      () => readInputResponses(value),
      (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.deepEqual(error.toJSON(), { code: -32602, message });
        return true;
      },
      message,
    );
  }
});

test('requiredCapabilities: undefined when every needed capability is declared', () => {
  const all = { a: elicitInput({ message: 'hi' }), b: sampleInput({ messages: [] }), c: listRootsInput() };
  assert.equal(requiredCapabilities(all, { elicitation: {}, sampling: {}, roots: {} }), undefined);
  assert.equal(
    requiredCapabilities(all, { elicitation: { form: {} }, sampling: { tools: {} }, roots: { listChanged: true } }),
    undefined,
  );
  assert.equal(requiredCapabilities({}, {}), undefined);
  assert.equal(requiredCapabilities({ a: elicitInput({}) }, { elicitation: {} }), undefined);
});

test('requiredCapabilities lists only the missing capabilities', () => {
  const all = { a: elicitInput({ message: 'hi' }), b: sampleInput({ messages: [] }), c: listRootsInput() };
  assert.deepEqual(requiredCapabilities(all, {}), { elicitation: {}, sampling: {}, roots: {} });
  assert.deepEqual(requiredCapabilities(all, { elicitation: {}, roots: {} }), { sampling: {} });
  assert.deepEqual(requiredCapabilities({ x: sampleInput({}), y: sampleInput({}) }, {}), { sampling: {} });
  // Declared but not as a plain object does not count.
  assert.deepEqual(
    requiredCapabilities(all, { elicitation: true, sampling: null, roots: [] } as Record<string, unknown>),
    { elicitation: {}, sampling: {}, roots: {} },
  );
  // Inherited members do not count as declared.
  assert.deepEqual(requiredCapabilities({ a: listRootsInput() }, Object.create({ roots: {} })), { roots: {} });
});

test('builders produce bare wire-shaped input requests', () => {
  const params = { message: 'What is your name?', requestedSchema: { type: 'object', properties: {} } };
  assert.deepEqual(elicitInput(params), { method: 'elicitation/create', params });
  assert.deepEqual(sampleInput({ messages: [], maxTokens: 5 }), {
    method: 'sampling/createMessage',
    params: { messages: [], maxTokens: 5 },
  });
  assert.deepEqual(listRootsInput(), { method: 'roots/list', params: {} });
});

test('inputRequired accepts requests, a state, or both', () => {
  const requests = { user_name: elicitInput({ message: 'name?' }) };
  const a = inputRequired(requests);
  assert.ok(a instanceof InputRequired);
  assert.deepEqual(a.inputRequests, requests);
  assert.equal(a.state, undefined);
  const b = inputRequired({}, { step: 1 });
  assert.deepEqual(b.inputRequests, {});
  assert.deepEqual(b.state, { step: 1 });
  const c = new InputRequired(requests, null);
  assert.equal(c.state, null);
  assert.deepEqual({ ...c }, { inputRequests: requests, state: null });
});

test('inputRequired rejects an empty answer, empty keys, unknown methods and bad shapes', () => {
  const bad: [unknown, unknown][] = [
    [{}, undefined],
    [undefined, { s: 1 }],
    [null, { s: 1 }],
    [[], { s: 1 }],
    [{ '': elicitInput({}) }, undefined],
    [{ a: { method: 'ping' } }, undefined],
    [{ a: { method: 'tools/call', params: {} } }, undefined],
    [{ a: {} }, undefined],
    [{ a: null }, undefined],
    [{ a: 'elicitation/create' }, undefined],
    [{ a: { method: 'roots/list', params: [] } }, undefined],
    [{ ok: listRootsInput(), a: { method: 'ROOTS/LIST' } }, undefined],
  ];
  for (const [requests, state] of bad) {
    assert.throws(
      () => inputRequired(requests as Record<string, InputRequest>, state),
      TypeError,
      JSON.stringify(requests),
    );
  }
});

test('inputRequired keeps a "__proto__" key as an own entry', () => {
  const requests = JSON.parse('{"__proto__":{"method":"roots/list","params":{}}}');
  const answer = inputRequired(requests);
  assert.deepEqual(Object.keys(answer.inputRequests), ['__proto__']);
  assert.equal(Object.getPrototypeOf(answer.inputRequests), Object.prototype);
  assert.equal(JSON.stringify(answer.inputRequests), '{"__proto__":{"method":"roots/list","params":{}}}');
});
