// Modern Streamable HTTP header mirroring (MCP 2026-07-28, Basic > Transports > Streamable HTTP > Request Metadata):
// the base64 sentinel value encoding, and the checks of Mcp-Method / Mcp-Name / Mcp-Param-* against the body (-32020
// messages); a tool's x-mcp-header declarations are read at registration (features.ts).
// Pure functions over a node:http header bag; the transport decides when each rung of the ladder runs.

import { Buffer } from 'node:buffer';
import type { HeaderParam } from './features.ts';
import { isPlainObject } from './jsonrpc.ts';

/** Header names as node:http gives them: lowercase keys; a repeated header may arrive as an array or as a comma-joined string (node joins unknown repeated headers with ", "). */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header's (first) value. */
export function single(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Which of the two media types an `Accept` value admits (wildcards honoured). */
export interface Accepted { json: boolean; sse: boolean }

const NOTHING_ACCEPTED: Accepted = { json: false, sse: false };
/** Clients repeat one `Accept` value on every request: parsed once each (bounded: cleared when full). */
const acceptedByValue = new Map<string, Accepted>();
const MAX_ACCEPT_VALUES = 64;

export function accepted(headers: HeaderBag): Accepted {
  const accept = single(headers, 'accept');
  if (accept === undefined) return NOTHING_ACCEPTED;
  let known = acceptedByValue.get(accept);
  if (known === undefined) {
    const media = accept.split(',').map((range) => range.split(';')[0]!.trim().toLowerCase());
    const admits = (type: string, major: string) => media.some((m) => m === type || m === '*/*' || m === `${major}/*`);
    known = { json: admits('application/json', 'application'), sse: admits('text/event-stream', 'text') };
    if (acceptedByValue.size >= MAX_ACCEPT_VALUES) acceptedByValue.clear();
    acceptedByValue.set(accept, known);
  }
  return known;
}


const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** Printable ASCII with no surrounding space: sent as is. */
const PLAIN = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
/** What we accept in a raw header value: printable ASCII, SP and HTAB (non-ASCII must arrive sentinel-encoded). */
const HEADER_CHARS = /^[\t\x20-\x7e]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;
const MAX_ECHO = 100;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes a header value: trims surrounding whitespace; `=?base64?…?=` (lowercase markers, case-sensitive) is strict base64 of UTF-8 (invalid padding/characters/invalid UTF-8 -> undefined); anything else is literal. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.length < PREFIX.length + SUFFIX.length || !value.startsWith(PREFIX) || !value.endsWith(SUFFIX)) {
    return value;
  }
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  const bytes = Buffer.from(payload, 'base64');
  // Canonical form only: nonzero bits in the last character's unused part would otherwise decode silently.
  if (bytes.toString('base64') !== payload) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Encodes a value the way a client must (for tests and for our own use): plain when safe, else the sentinel. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !value.startsWith(PREFIX)) return value;
  return PREFIX + Buffer.from(value, 'utf8').toString('base64') + SUFFIX;
}

function echo(value: string): string {
  return value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
}

function mismatch(label: string, what: string): string {
  return `Header mismatch: ${label} header ${what}`;
}

type Read = { ok: true; value: string | undefined } | { ok: false; error: string };

/**
 * Reads one header that must occur at most once: an array of more than one value is a duplicate, and so is a
 * comma when `commaIsDuplicate` (node joins repeats with ", "). Checks the characters, then decodes.
 */
function readSingle(headers: HeaderBag, label: string, commaIsDuplicate: boolean): Read {
  let raw = headers[label.toLowerCase()];
  if (Array.isArray(raw)) {
    if (raw.length > 1) return { ok: false, error: mismatch(label, 'is duplicated') };
    raw = raw[0];
  }
  if (raw === undefined) return { ok: true, value: undefined };
  if (commaIsDuplicate && raw.includes(',')) return { ok: false, error: mismatch(label, 'is duplicated') };
  if (!HEADER_CHARS.test(raw)) return { ok: false, error: mismatch(label, 'contains characters not allowed in a header value') };
  const value = decodeHeaderValue(raw);
  if (value === undefined) return { ok: false, error: mismatch(label, 'is not valid base64') };
  return { ok: true, value };
}

function differs(label: string, headerValue: string, bodyValue: string): string {
  return mismatch(label, `value '${echo(headerValue)}' does not match body value '${echo(bodyValue)}'`);
}

const NAME_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** Checks the routing headers of a modern POST against its body; returns an error message for -32020 or undefined. Mcp-Method must equal the body method (case-sensitive); Mcp-Name must equal params.name for tools/call and prompts/get, params.uri for resources/read (after decoding); missing where required, duplicated (array or containing a comma where a single value is expected — careful: method names never contain commas; names/URIs might, so for Mcp-Name treat only an array as duplicated), or with characters not allowed in a header value -> error. */
export function checkRoutingHeaders(headers: HeaderBag, method: string, params: Record<string, unknown>): string | undefined {
  const m = readSingle(headers, 'Mcp-Method', true);
  if (!m.ok) return m.error;
  if (m.value === undefined) return mismatch('Mcp-Method', 'is required');
  if (m.value !== method) return differs('Mcp-Method', m.value, method);

  const source = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  if (source === undefined) return undefined;
  const bodyValue = isPlainObject(params) ? params[source] : undefined;
  // A body without a string name/uri is refused by params validation (-32602); there is nothing to mirror.
  if (typeof bodyValue !== 'string') return undefined;
  const n = readSingle(headers, 'Mcp-Name', false);
  if (!n.ok) return n.error;
  if (n.value === undefined) return mismatch('Mcp-Name', 'is required');
  return n.value === bodyValue ? undefined : differs('Mcp-Name', n.value, bodyValue);
}

/** Whether the decoded header text equals the body value; undefined when the body value lacks the declared type. */
function matches(type: HeaderParam['type'], text: string, value: unknown): boolean | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? text === value : undefined;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
      return DECIMAL.test(text) && Number(text) === value;
    case 'boolean':
      return typeof value === 'boolean' ? text === String(value) : undefined;
  }
}

/** Checks Mcp-Param-* headers for a tools/call against its arguments: for each declared param: argument present and not null -> header required and must match (string: exact after decoding; integer: numeric comparison of decimal text, e.g. "42" and "42.0" both equal 42; boolean: "true"/"false"); argument absent or null -> header must be absent. Headers the tool does not declare are ignored. Returns an error message or undefined. */
export function checkParamHeaders(headers: HeaderBag, params: HeaderParam[], args: Record<string, unknown>): string | undefined {
  const bag = isPlainObject(args) ? args : {};
  for (const param of params) {
    const label = `Mcp-Param-${param.header}`;
    const r = readSingle(headers, label, false);
    if (!r.ok) return r.error;
    const value = Object.hasOwn(bag, param.property) ? bag[param.property] : undefined;
    if (value === undefined || value === null) {
      if (r.value !== undefined) return mismatch(label, 'must be absent when the argument is absent or null');
      continue;
    }
    if (r.value === undefined) return mismatch(label, 'is required');
    // A body value of the wrong type fails argument validation later (-32602), which is the truer answer.
    const ok = matches(param.type, r.value, value);
    if (ok === false) return differs(label, r.value, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return undefined;
}
