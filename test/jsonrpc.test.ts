// Unit tests of the JSON-RPC framing rules in jsonrpc.ts: classification by key presence, the exact -32600 answers
// for malformed ids and shapes, id typing (0 and "" are ids), parseJson, ProtocolError's wire form.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  classify,
  ErrorCode,
  errorResponse,
  invalidParams,
  isRequestId,
  methodNotFound,
  PARSE_ERROR,
  ProtocolError,
  parseJson,
  successResponse,
} from '../jsonrpc.ts';

const BAD_ID = {
  kind: 'invalid',
  id: null,
  error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' },
};

function invalid(id: string | number | null, message: string) {
  return { kind: 'invalid', id, error: { code: -32600, message: `Invalid Request: ${message}` } };
}

test('malformed request ids are invalid requests with id null, never notifications', () => {
  for (const id of [null, 1.5, true, false, [1], {}, 2 ** 53, -(2 ** 53), Number.NaN]) {
    assert.deepEqual(classify({ jsonrpc: '2.0', id, method: 'tools/list' }), BAD_ID, `id ${JSON.stringify(id)}`);
  }
});

test('a malformed id wins over every other defect of the frame', () => {
  assert.deepEqual(classify({ id: null, method: 1, params: [] }), BAD_ID);
  assert.deepEqual(classify({ jsonrpc: '1.0', id: true, method: '' }), BAD_ID);
});

test('string and integer ids are valid and kept exactly, type included', () => {
  for (const id of [0, -1, 7, 2 ** 53 - 1, '', '0', '7', 'a b']) {
    const message = { jsonrpc: '2.0', id, method: 'ping' };
    const frame = classify(message);
    assert.deepEqual(frame, { kind: 'request', message });
    assert.equal(frame.kind === 'request' && frame.message.id, id);
  }
});

test('isRequestId accepts strings and safe integers only', () => {
  assert.equal(isRequestId(0), true);
  assert.equal(isRequestId(''), true);
  assert.equal(isRequestId(-5), true);
  assert.equal(isRequestId(Number.MAX_SAFE_INTEGER), true);
  assert.equal(isRequestId(Number.MAX_SAFE_INTEGER + 1), false);
  assert.equal(isRequestId(1.5), false);
  assert.equal(isRequestId(Infinity), false);
  assert.equal(isRequestId(null), false);
  assert.equal(isRequestId(undefined), false);
  assert.equal(isRequestId(true), false);
  assert.equal(isRequestId([1]), false);
  assert.equal(isRequestId({}), false);
});

test('malformed request shapes are invalid requests that echo a valid id', () => {
  assert.deepEqual(classify({ id: 3, method: 'ping' }), invalid(3, 'jsonrpc must be exactly "2.0"'));
  assert.deepEqual(
    classify({ jsonrpc: '1.0', id: 'a', method: 'ping' }),
    invalid('a', 'jsonrpc must be exactly "2.0"'),
  );
  assert.deepEqual(classify({ jsonrpc: 2, id: 0, method: 'ping' }), invalid(0, 'jsonrpc must be exactly "2.0"'));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 4, method: 1 }), invalid(4, 'method must be a non-empty string'));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 4, method: null }), invalid(4, 'method must be a non-empty string'));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: '', method: '' }), invalid('', 'method must be a non-empty string'));
  assert.deepEqual(
    classify({ jsonrpc: '2.0', id: 5, method: 'ping', params: [1] }),
    invalid(5, 'params must be an object'),
  );
  assert.deepEqual(
    classify({ jsonrpc: '2.0', id: 5, method: 'ping', params: null }),
    invalid(5, 'params must be an object'),
  );
  assert.deepEqual(
    classify({ jsonrpc: '2.0', id: 5, method: 'ping', params: 'x' }),
    invalid(5, 'params must be an object'),
  );
});

test('malformed notifications are invalid requests with id null', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', method: 1 }), invalid(null, 'method must be a non-empty string'));
  assert.deepEqual(classify({ method: 'notifications/initialized' }), invalid(null, 'jsonrpc must be exactly "2.0"'));
  assert.deepEqual(classify({ jsonrpc: '2.0', method: 'x', params: [] }), invalid(null, 'params must be an object'));
});

test('the id key decides request versus notification, before any type check', () => {
  const request = { jsonrpc: '2.0', id: 1, method: 'notifications/cancelled', params: { requestId: 2 } };
  assert.deepEqual(classify(request), { kind: 'request', message: request });
  const notification = { jsonrpc: '2.0', method: 'tools/list', params: {} };
  assert.deepEqual(classify(notification), { kind: 'notification', message: notification });
  // An explicit `undefined` id is still a present key: it is a malformed request, not a notification.
  assert.deepEqual(classify({ jsonrpc: '2.0', id: undefined, method: 'ping' }), BAD_ID);
});

test('params may be absent or any object', () => {
  const bare = { jsonrpc: '2.0', id: 1, method: 'ping' };
  assert.deepEqual(classify(bare), { kind: 'request', message: bare });
  const withMeta = { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 0 } } };
  assert.deepEqual(classify(withMeta), { kind: 'request', message: withMeta });
  const nullProto = Object.assign(Object.create(null) as object, { jsonrpc: '2.0', id: 1, method: 'ping' });
  assert.equal(classify(nullProto).kind, 'request');
});

test('values that are not objects are invalid requests with id null', () => {
  for (const value of [null, undefined, 42, 'text', true, [], [{ jsonrpc: '2.0', id: 1, method: 'ping' }]]) {
    assert.deepEqual(classify(value), invalid(null, 'a message must be a JSON object'), JSON.stringify(value));
  }
});

test('an object with neither method, result nor error is invalid and echoes a valid id', () => {
  assert.deepEqual(classify({}), invalid(null, 'a message needs a method, a result or an error'));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 9 }), invalid(9, 'a message needs a method, a result or an error'));
  assert.deepEqual(
    classify({ jsonrpc: '2.0', id: 1.5 }),
    invalid(null, 'a message needs a method, a result or an error'),
  );
});

test('responses: results and errors with valid ids are responses', () => {
  for (const message of [
    { jsonrpc: '2.0', id: 0, result: {} },
    { jsonrpc: '2.0', id: '0', result: null },
    { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no' } },
    { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad', data: { x: 1 } } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
  ]) {
    assert.deepEqual(classify(message), { kind: 'response', message });
  }
});

test('responses: malformed ids and shapes are invalid', () => {
  assert.deepEqual(classify({ jsonrpc: '2.0', id: null, result: {} }), BAD_ID);
  assert.deepEqual(classify({ jsonrpc: '2.0', result: {} }), BAD_ID);
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 1.5, result: {} }), BAD_ID);
  assert.deepEqual(
    classify({ jsonrpc: '2.0', id: true, error: { code: 1, message: 'x' } }),
    invalid(null, 'id must be a string, an integer or null'),
  );
  assert.deepEqual(classify({ id: 1, result: {} }), invalid(1, 'jsonrpc must be exactly "2.0"'));
  const badError = 'error must be an object with an integer code and a string message';
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 2, error: 'boom' }), invalid(2, badError));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 2, error: { code: 1.5, message: 'x' } }), invalid(2, badError));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 2, error: { code: '1', message: 'x' } }), invalid(2, badError));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: 2, error: { code: 1 } }), invalid(2, badError));
  assert.deepEqual(classify({ jsonrpc: '2.0', id: null, error: null }), invalid(null, badError));
});

test('a frame with a method is classified as a request even when it also carries result', () => {
  const message = { jsonrpc: '2.0', id: 1, method: 'ping', result: {} };
  assert.deepEqual(classify(message), { kind: 'request', message });
});

test('method names that shadow Object.prototype members are ordinary strings', () => {
  for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const message = { jsonrpc: '2.0', id: 1, method };
    assert.deepEqual(classify(message), { kind: 'request', message });
  }
  const parsed = parseJson('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"id":null}}');
  assert.ok(parsed !== undefined);
  assert.equal(classify(parsed.value).kind, 'request');
});

test('parseJson returns the parsed value, even falsy ones, and undefined for text that is not JSON', () => {
  assert.deepEqual(parseJson('{"a":1}'), { value: { a: 1 } });
  assert.deepEqual(parseJson('[]'), { value: [] });
  assert.deepEqual(parseJson('null'), { value: null });
  assert.deepEqual(parseJson('0'), { value: 0 });
  assert.deepEqual(parseJson('""'), { value: '' });
  assert.deepEqual(parseJson('false'), { value: false });
  assert.deepEqual(parseJson(' {"a":1} '), { value: { a: 1 } });
  for (const text of ['{"jsonrpc":"2.0","id":1,"method":', '', 'undefined', "{'a':1}", '{"a":1}}', 'NaN', '\u0000']) {
    assert.equal(parseJson(text), undefined, JSON.stringify(text));
  }
});

test('the parse error answer is the exact -32700 frame with id null', () => {
  assert.deepEqual(PARSE_ERROR, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
});

test('ProtocolError serializes code, message and data, omitting absent data only', () => {
  const withData = new ProtocolError(-32002, 'Resource not found', { uri: 'x' });
  assert.ok(withData instanceof Error);
  assert.equal(withData.name, 'ProtocolError');
  assert.deepEqual(withData.toJSON(), { code: -32002, message: 'Resource not found', data: { uri: 'x' } });
  assert.equal(JSON.stringify(withData), '{"code":-32002,"message":"Resource not found","data":{"uri":"x"}}');
  assert.deepEqual(new ProtocolError(7, 'plain').toJSON(), { code: 7, message: 'plain' });
  // Falsy data is data: only undefined means absent.
  assert.deepEqual(new ProtocolError(7, 'zero', 0).toJSON(), { code: 7, message: 'zero', data: 0 });
  assert.deepEqual(new ProtocolError(7, 'null', null).toJSON(), { code: 7, message: 'null', data: null });
  assert.deepEqual(new ProtocolError(7, 'empty', '').toJSON(), { code: 7, message: 'empty', data: '' });
});

test('helpers build the exact frames and errors', () => {
  assert.deepEqual(successResponse(0, {}), { jsonrpc: '2.0', id: 0, result: {} });
  assert.deepEqual(errorResponse(null, { code: -32600, message: 'm' }), {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'm' },
  });
  assert.deepEqual(invalidParams('params.x must be a string').toJSON(), {
    code: -32602,
    message: 'Invalid params: params.x must be a string',
  });
  assert.deepEqual(methodNotFound('x/unknown').toJSON(), {
    code: -32601,
    message: 'Method not found',
    data: 'x/unknown',
  });
  assert.deepEqual(ErrorCode, {
    ParseError: -32700,
    InvalidRequest: -32600,
    MethodNotFound: -32601,
    InvalidParams: -32602,
    InternalError: -32603,
    ResourceNotFound: -32002,
    HeaderMismatch: -32020,
    MissingRequiredClientCapability: -32021,
    UnsupportedProtocolVersion: -32022,
    UrlElicitationRequired: -32042,
  });
});

test('classify never throws on values JSON.parse cannot produce', () => {
  const getter = Object.defineProperty({ jsonrpc: '2.0', id: 1 }, 'method', { get: () => 'ping', enumerable: true });
  assert.equal(classify(getter).kind, 'request');
  for (const value of [Symbol('x'), () => 1, 10n, new Map(), new Date(0)]) {
    assert.equal(classify(value).kind, 'invalid');
  }
});
