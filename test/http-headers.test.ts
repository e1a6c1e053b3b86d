// Modern Streamable HTTP header mirroring (MCP 2026-07-28, Basic > Transports > Streamable HTTP > Request Metadata;
// conformance scenarios http-header-validation and http-custom-header-server-validation): the base64 sentinel
// table, strict decoding, the Mcp-Method / Mcp-Name checks for each routed method, Mcp-Param-* checks by type, and
// the x-mcp-header declaration rules.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type HeaderParam, headerParamsOf } from '../features.ts';
import type { HeaderBag } from '../http/exchange.ts';
import { checkParamHeaders, checkRoutingHeaders as checkWithSource, decodeHeaderValue } from '../http/http-modern.ts';
import { encodeHeaderValue } from './raw-http.ts';

/** The core's Mcp-Name sources (TransportSide.routingParam without extensions). */
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function checkRoutingHeaders(
  headers: Record<string, string | string[]>,
  method: string,
  params: Record<string, unknown>,
) {
  return checkWithSource(headers, method, params, NAME_SOURCE[method]);
}

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

// ---------------------------------------------------------------------------------------------------------------
// Value encoding

// The encoding examples of MCP 2026-07-28, Basic > Transports > Streamable HTTP > Custom Headers from Tool Parameters >
// Value Encoding.
const TABLE: Array<[string, string]> = [
  ['us-west1', 'us-west1'],
  ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
  [' padded ', '=?base64?IHBhZGRlZCA=?='],
  ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
  ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
];

test("the spec's encoding table encodes exactly and round-trips", () => {
  for (const [original, wire] of TABLE) {
    assert.equal(encodeHeaderValue(original), wire, `encode ${JSON.stringify(original)}`);
    assert.equal(decodeHeaderValue(wire), original, `decode ${wire}`);
  }
});

test('values that are unsafe as plain text are wrapped and round-trip', () => {
  const cases = [
    '',
    'a',
    'tab\tinside',
    '\u0000',
    'del\u007f',
    'caf\u00e9',
    '😀',
    ' lead',
    'trail ',
    '=?base64?',
    '=?base64?x',
  ];
  for (const original of cases) {
    const wire = encodeHeaderValue(original);
    assert.match(wire, /^[\x21-\x7e]*$/, `wire form of ${JSON.stringify(original)} is printable ASCII`);
    assert.equal(decodeHeaderValue(wire), original, `round-trip ${JSON.stringify(original)}`);
  }
  assert.equal(encodeHeaderValue(''), '');
  assert.equal(encodeHeaderValue('a, b'), 'a, b', 'commas and inner spaces are safe as plain text');
  assert.equal(
    encodeHeaderValue('=?base64?x'),
    b64('=?base64?x'),
    'a plain form starting like the sentinel is wrapped',
  );
});

test('decoding trims surrounding spaces and tabs, outside and around the sentinel', () => {
  assert.equal(decodeHeaderValue('  us-west1\t'), 'us-west1');
  assert.equal(decodeHeaderValue(' \t=?base64?IHBhZGRlZCA=?= '), ' padded ');
  assert.equal(decodeHeaderValue('a  b'), 'a  b', 'inner whitespace is kept');
});

test('unwrapped values and uppercase or partial markers are literal', () => {
  assert.equal(decodeHeaderValue('SGVsbG8='), 'SGVsbG8=');
  assert.equal(decodeHeaderValue('=?BASE64?SGVsbG8=?='), '=?BASE64?SGVsbG8=?=');
  assert.equal(decodeHeaderValue('=?Base64?SGVsbG8=?='), '=?Base64?SGVsbG8=?=');
  assert.equal(decodeHeaderValue('=?base64?SGVsbG8='), '=?base64?SGVsbG8=');
  assert.equal(decodeHeaderValue('x=?base64?SGVsbG8=?='), 'x=?base64?SGVsbG8=?=');
  assert.equal(decodeHeaderValue('=?base64?='), '=?base64?=', 'overlapping markers are not a sentinel');
  assert.equal(decodeHeaderValue('=?base64??='), '', 'an empty payload is the empty string');
});

test('invalid base64 inside the sentinel decodes to undefined', () => {
  const bad = [
    '=?base64?SGVsbG8?=', // missing padding
    '=?base64?SGVsbG8==?=', // too much padding
    '=?base64?SGVs=bG8=?=', // padding in the middle
    '=?base64?SGVsbG8*?=', // character outside the alphabet
    '=?base64?SGVs bG8=?=', // inner space
    '=?base64?SGVsbG8_?=', // base64url alphabet
    '=?base64?SGVsbG9=?=', // nonzero unused bits (not canonical)
    '=?base64?S?=', // truncated quantum
  ];
  for (const value of bad) assert.equal(decodeHeaderValue(value), undefined, value);
});

test('base64 of invalid UTF-8 decodes to undefined; a BOM is kept', () => {
  assert.equal(decodeHeaderValue(`=?base64?${Buffer.from([0xc3, 0x28]).toString('base64')}?=`), undefined);
  assert.equal(
    decodeHeaderValue(`=?base64?${Buffer.from([0xed, 0xa0, 0x80]).toString('base64')}?=`),
    undefined,
    'encoded surrogate',
  );
  assert.equal(decodeHeaderValue(`=?base64?${Buffer.from([0xff]).toString('base64')}?=`), undefined);
  assert.equal(decodeHeaderValue(b64('\ufeffx')), '\ufeffx');
});

// ---------------------------------------------------------------------------------------------------------------
// Routing headers

const ROUTED: Array<[method: string, params: Record<string, unknown>, bodyValue: string]> = [
  ['tools/call', { name: 'execute_sql', arguments: {} }, 'execute_sql'],
  ['prompts/get', { name: 'greeting' }, 'greeting'],
  ['resources/read', { uri: 'test://static/text' }, 'test://static/text'],
];

test('routing headers that match the body pass for every routed method', () => {
  for (const [method, params, value] of ROUTED) {
    assert.equal(checkRoutingHeaders({ 'mcp-method': method, 'mcp-name': value }, method, params), undefined, method);
    assert.equal(
      checkRoutingHeaders(
        { 'mcp-method': ` ${method} `, 'mcp-name': `\t${encodeHeaderValue(value)} ` },
        method,
        params,
      ),
      undefined,
      `${method} with surrounding whitespace`,
    );
    assert.equal(
      checkRoutingHeaders({ 'mcp-method': [method], 'mcp-name': [value] }, method, params),
      undefined,
      `${method} as one-element arrays`,
    );
  }
});

test('methods without a name need only Mcp-Method, and a stray Mcp-Name is ignored', () => {
  assert.equal(checkRoutingHeaders({ 'mcp-method': 'tools/list' }, 'tools/list', {}), undefined);
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'server/discover', 'mcp-name': 'x' }, 'server/discover', {}),
    undefined,
  );
});

test('a missing Mcp-Method is refused for every method', () => {
  for (const method of ['tools/list', 'server/discover', ...ROUTED.map(([m]) => m)]) {
    assert.equal(
      checkRoutingHeaders({ 'mcp-name': 'x' }, method, { name: 'x', uri: 'x' }),
      'Header mismatch: Mcp-Method header is required',
    );
  }
});

test('a missing Mcp-Name is refused for tools/call, prompts/get and resources/read', () => {
  for (const [method, params] of ROUTED) {
    assert.equal(
      checkRoutingHeaders({ 'mcp-method': method }, method, params),
      'Header mismatch: Mcp-Name header is required',
      method,
    );
  }
});

test('a Mcp-Method that differs from the body, even only in case, is refused', () => {
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/list' }, 'prompts/list', {}),
    "Header mismatch: Mcp-Method header value 'tools/list' does not match body value 'prompts/list'",
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'Tools/Call', 'mcp-name': 'x' }, 'tools/call', { name: 'x' }),
    "Header mismatch: Mcp-Method header value 'Tools/Call' does not match body value 'tools/call'",
  );
});

test('a Mcp-Name that differs from the body is refused for every routed method, case-sensitively', () => {
  for (const [method, params, value] of ROUTED) {
    assert.equal(
      checkRoutingHeaders({ 'mcp-method': method, 'mcp-name': 'foo' }, method, params),
      `Header mismatch: Mcp-Name header value 'foo' does not match body value '${value}'`,
      method,
    );
    assert.equal(
      checkRoutingHeaders({ 'mcp-method': method, 'mcp-name': value.toUpperCase() }, method, params),
      `Header mismatch: Mcp-Name header value '${value.toUpperCase()}' does not match body value '${value}'`,
      `${method} upper-cased`,
    );
  }
});

test('Mcp-Name compares the decoded value: a sentinel matches, an unwrapped sentinel-looking name is literal', () => {
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': b64('héllo, wörld') }, 'tools/call', {
      name: 'héllo, wörld',
    }),
    undefined,
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': b64('other') }, 'tools/call', { name: 'tool' }),
    "Header mismatch: Mcp-Name header value 'other' does not match body value 'tool'",
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': 'dG9vbA==' }, 'tools/call', { name: 'tool' }),
    "Header mismatch: Mcp-Name header value 'dG9vbA==' does not match body value 'tool'",
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': '=?base64?dG9vbA?=' }, 'tools/call', {
      name: 'tool',
    }),
    'Header mismatch: Mcp-Name header is not valid base64',
  );
});

test('duplicated routing headers are refused; a comma is a duplicate only in Mcp-Method', () => {
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': ['tools/list', 'tools/list'] }, 'tools/list', {}),
    'Header mismatch: Mcp-Method header is duplicated',
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/list, tools/list' }, 'tools/list', {}),
    'Header mismatch: Mcp-Method header is duplicated',
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': ['a', 'a'] }, 'tools/call', { name: 'a' }),
    'Header mismatch: Mcp-Name header is duplicated',
  );
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'resources/read', 'mcp-name': 'test://x?a=1,2' }, 'resources/read', {
      uri: 'test://x?a=1,2',
    }),
    undefined,
    'a URI with a comma is one value',
  );
});

test('routing headers with characters not allowed in a header value are refused', () => {
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'tools/list\u0000' }, 'tools/list', {}),
    'Header mismatch: Mcp-Method header contains characters not allowed in a header value',
  );
  for (const bad of ['a\nb', 'a\u001fb', 'caf\u00e9', 'x\u007f', 'r\u00c3\u00a9', '\u0100']) {
    assert.equal(
      checkRoutingHeaders({ 'mcp-method': 'prompts/get', 'mcp-name': bad }, 'prompts/get', { name: bad }),
      'Header mismatch: Mcp-Name header contains characters not allowed in a header value',
      JSON.stringify(bad),
    );
  }
});

test('routing headers may hold every printable ASCII character, SP and HTAB', () => {
  let printable = '';
  for (let code = 0x20; code <= 0x7e; code++) printable += String.fromCharCode(code);
  const name = `\t${printable}\tend`;
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'prompts/get', 'mcp-name': name }, 'prompts/get', { name: name.trim() }),
    undefined,
  );
});

test('Mcp-Name is not demanded when the body has no string name or uri (params validation refuses it)', () => {
  assert.equal(checkRoutingHeaders({ 'mcp-method': 'tools/call' }, 'tools/call', {}), undefined);
  assert.equal(checkRoutingHeaders({ 'mcp-method': 'resources/read' }, 'resources/read', { uri: 42 }), undefined);
  assert.equal(
    checkRoutingHeaders({ 'mcp-method': 'resources/read' }, 'resources/read', { name: 'x' }),
    undefined,
    'resources/read mirrors uri, not name',
  );
});

test('echoed values are capped near 100 characters', () => {
  const long = 'x'.repeat(5000);
  const message = checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': long }, 'tools/call', {
    name: 'y'.repeat(5000),
  });
  assert.ok(message !== undefined);
  assert.equal(
    message,
    `Header mismatch: Mcp-Name header value '${'x'.repeat(100)}…' does not match body value '${'y'.repeat(100)}…'`,
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Mcp-Param-* headers

const PARAMS: HeaderParam[] = [
  { header: 'Region', property: 'region', type: 'string' },
  { header: 'Limit', property: 'limit', type: 'integer' },
  { header: 'DryRun', property: 'dryRun', type: 'boolean' },
];

test('param headers matching their arguments pass', () => {
  const headers: HeaderBag = { 'mcp-param-region': 'us-west1', 'mcp-param-limit': '42', 'mcp-param-dryrun': 'true' };
  assert.equal(
    checkParamHeaders(headers, PARAMS, { region: 'us-west1', limit: 42, dryRun: true, query: 'SELECT 1' }),
    undefined,
  );
  assert.equal(
    checkParamHeaders(
      { 'mcp-param-region': ' =?base64?SGVsbG8sIOS4lueVjA==?= ', 'mcp-param-limit': '-7', 'mcp-param-dryrun': 'false' },
      PARAMS,
      {
        region: 'Hello, 世界',
        limit: -7,
        dryRun: false,
      },
    ),
    undefined,
  );
});

test('string params compare exactly after decoding; an unwrapped sentinel-looking value is literal', () => {
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': 'US-WEST1' }, PARAMS, { region: 'us-west1' }),
    "Header mismatch: Mcp-Param-Region header value 'US-WEST1' does not match body value 'us-west1'",
  );
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': 'dXMtd2VzdDE=' }, PARAMS, { region: 'us-west1' }),
    "Header mismatch: Mcp-Param-Region header value 'dXMtd2VzdDE=' does not match body value 'us-west1'",
  );
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': 'dXMtd2VzdDE=' }, PARAMS, { region: 'dXMtd2VzdDE=' }),
    undefined,
  );
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': '' }, PARAMS, { region: '' }),
    undefined,
    'an empty string is a present value',
  );
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': 'a, b' }, PARAMS, { region: 'a, b' }),
    undefined,
    'a comma is part of the value',
  );
});

test('invalid base64 in a param header is refused', () => {
  for (const bad of [
    '=?base64?dXMtd2VzdDE?=',
    '=?base64?!!!!?=',
    `=?base64?${Buffer.from([0xc3]).toString('base64')}?=`,
  ]) {
    assert.equal(
      checkParamHeaders({ 'mcp-param-region': bad }, PARAMS, { region: 'us-west1' }),
      'Header mismatch: Mcp-Param-Region header is not valid base64',
      bad,
    );
  }
});

test('integer params compare numerically over decimal text', () => {
  for (const text of ['42', '42.0', '042', ' 42 ', '=?base64?NDIuMDA=?=']) {
    assert.equal(checkParamHeaders({ 'mcp-param-limit': text }, PARAMS, { limit: 42 }), undefined, text);
  }
  assert.equal(checkParamHeaders({ 'mcp-param-limit': '0' }, PARAMS, { limit: -0 }), undefined);
  for (const text of ['43', '42.5', '4.2e1', '0x2a', '+42', '42.', '', 'forty-two']) {
    assert.equal(
      checkParamHeaders({ 'mcp-param-limit': text }, PARAMS, { limit: 42 }),
      `Header mismatch: Mcp-Param-Limit header value '${text}' does not match body value '42'`,
      JSON.stringify(text),
    );
  }
});

test('boolean params accept exactly true and false', () => {
  assert.equal(checkParamHeaders({ 'mcp-param-dryrun': 'false' }, PARAMS, { dryRun: false }), undefined);
  for (const text of ['True', 'TRUE', '1', 'yes', 'false']) {
    assert.equal(
      checkParamHeaders({ 'mcp-param-dryrun': text }, PARAMS, { dryRun: true }),
      `Header mismatch: Mcp-Param-DryRun header value '${text}' does not match body value 'true'`,
      text,
    );
  }
});

test('a param header missing while the body holds the value is refused, for each type', () => {
  assert.equal(
    checkParamHeaders({}, PARAMS, { region: 'us-west1' }),
    'Header mismatch: Mcp-Param-Region header is required',
  );
  assert.equal(checkParamHeaders({}, PARAMS, { limit: 0 }), 'Header mismatch: Mcp-Param-Limit header is required');
  assert.equal(
    checkParamHeaders({}, PARAMS, { dryRun: false }),
    'Header mismatch: Mcp-Param-DryRun header is required',
  );
});

test('a param header present while the argument is absent or null is refused', () => {
  const message = 'Header mismatch: Mcp-Param-Region header must be absent when the argument is absent or null';
  assert.equal(checkParamHeaders({ 'mcp-param-region': 'us-west1' }, PARAMS, {}), message);
  assert.equal(checkParamHeaders({ 'mcp-param-region': 'us-west1' }, PARAMS, { region: null }), message);
  assert.equal(checkParamHeaders({ 'mcp-param-region': 'null' }, PARAMS, { region: null }), message);
});

test('absent and null arguments without headers pass', () => {
  assert.equal(checkParamHeaders({}, PARAMS, {}), undefined);
  assert.equal(checkParamHeaders({}, PARAMS, { region: null, limit: null, dryRun: null }), undefined);
  assert.equal(checkParamHeaders({}, PARAMS, { region: undefined }), undefined);
  assert.equal(checkParamHeaders({}, [], { region: 'x' }), undefined, 'a tool without declarations checks nothing');
});

test('Mcp-Param headers the tool does not declare are ignored', () => {
  const headers: HeaderBag = {
    'mcp-param-region': 'us-west1',
    'mcp-param-query': 'nonsense',
    'mcp-param-other': ['a', 'b'],
    'mcp-param-x': '=?base64?!?=',
  };
  assert.equal(checkParamHeaders(headers, PARAMS, { region: 'us-west1', query: 'SELECT 1' }), undefined);
});

test('a duplicated param header is refused; a one-element array is a single value', () => {
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': ['us-west1', 'us-west1'] }, PARAMS, { region: 'us-west1' }),
    'Header mismatch: Mcp-Param-Region header is duplicated',
  );
  assert.equal(checkParamHeaders({ 'mcp-param-region': ['us-west1'] }, PARAMS, { region: 'us-west1' }), undefined);
});

test('param headers with characters not allowed in a header value are refused', () => {
  assert.equal(
    checkParamHeaders({ 'mcp-param-region': 'caf\u00e9' }, PARAMS, { region: 'café' }),
    'Header mismatch: Mcp-Param-Region header contains characters not allowed in a header value',
  );
});

test('the first failing param answers, in declaration order', () => {
  assert.equal(
    checkParamHeaders({ 'mcp-param-limit': '1' }, PARAMS, { region: 'x', limit: 2 }),
    'Header mismatch: Mcp-Param-Region header is required',
  );
});

test('an argument of the wrong type is left to argument validation', () => {
  assert.equal(checkParamHeaders({ 'mcp-param-limit': '42' }, PARAMS, { limit: '42' }), undefined);
  assert.equal(checkParamHeaders({ 'mcp-param-limit': '1' }, PARAMS, { limit: 1.5 }), undefined);
  assert.equal(checkParamHeaders({ 'mcp-param-dryrun': 'true' }, PARAMS, { dryRun: 'true' }), undefined);
  assert.equal(checkParamHeaders({ 'mcp-param-region': '1' }, PARAMS, { region: 1 }), undefined);
});

// ---------------------------------------------------------------------------------------------------------------
// x-mcp-header declarations

test('headerParamsOf reads declarations from the root properties, in order', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      limit: { type: 'integer', 'x-mcp-header': 'Row-Limit' },
      dryRun: { type: 'boolean', 'x-mcp-header': 'dry_run.v2' },
    },
  };
  assert.deepEqual(headerParamsOf(schema), [
    { header: 'Region', property: 'region', type: 'string' },
    { header: 'Row-Limit', property: 'limit', type: 'integer' },
    { header: 'dry_run.v2', property: 'dryRun', type: 'boolean' },
  ]);
  assert.deepEqual(headerParamsOf({ type: 'object' }), []);
  assert.deepEqual(headerParamsOf({ type: 'object', properties: {} }), []);
});

test('headerParamsOf ignores declarations not reachable through root properties', () => {
  const schema = {
    type: 'object',
    'x-mcp-header': 'Root',
    properties: {
      list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
      choice: { anyOf: [{ type: 'string', 'x-mcp-header': 'Choice' }] },
      nested: { type: 'object', properties: { inner: { type: 'string', 'x-mcp-header': 'Inner' } } },
      cond: { if: { type: 'string' }, then: { type: 'string', 'x-mcp-header': 'Then' } },
      ref: { $ref: '#/$defs/r' },
    },
    $defs: { r: { type: 'string', 'x-mcp-header': 'Ref' } },
    allOf: [{ properties: { x: { type: 'string', 'x-mcp-header': 'AllOf' } } }],
  };
  assert.deepEqual(headerParamsOf(schema), []);
});

test('headerParamsOf refuses number and other non-primitive types', () => {
  for (const type of ['number', 'object', 'array', 'null', undefined, ['string', 'null']]) {
    assert.throws(
      () => headerParamsOf({ type: 'object', properties: { p: { type, 'x-mcp-header': 'P' } } }),
      { name: 'TypeError', message: "x-mcp-header of property 'p': property type must be string, integer or boolean" },
      JSON.stringify(type),
    );
  }
});

test('headerParamsOf refuses names that are empty, not tokens, or not strings', () => {
  for (const name of ['', 'Has Space', 'a:b', 'a/b', 'caf\u00e9', '(x)', 'a"b', 'a\tb', 42, null, true]) {
    assert.throws(
      () => headerParamsOf({ type: 'object', properties: { p: { type: 'string', 'x-mcp-header': name } } }),
      { name: 'TypeError', message: "x-mcp-header of property 'p' must be a non-empty HTTP token" },
      JSON.stringify(name),
    );
  }
});

test('headerParamsOf refuses duplicate names case-insensitively', () => {
  assert.throws(
    () =>
      headerParamsOf({
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'Region' },
          b: { type: 'integer', 'x-mcp-header': 'REGION' },
        },
      }),
    {
      name: 'TypeError',
      message: "x-mcp-header of property 'b': header name 'REGION' is declared twice (case-insensitively)",
    },
  );
});

test('declarations from headerParamsOf drive checkParamHeaders end to end', () => {
  const params = headerParamsOf({
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
    required: ['query'],
  });
  const args = { region: 'Hello, 世界', query: 'SELECT 1' };
  assert.equal(checkParamHeaders({ 'mcp-param-region': encodeHeaderValue(args.region) }, params, args), undefined);
  assert.equal(checkParamHeaders({}, params, args), 'Header mismatch: Mcp-Param-Region header is required');
});
