// Multi round-trip input (MCP 2026-07-28, Basic > Patterns > Multi Round-Trip Requests): the InputRequired answer a
// handler returns, the capabilities it needs, the URL-elicitation-required error (2025-11-25's form of the same ask),
// validation of a retry's inputResponses, RequestStateSealer (state bound to method, params digest and expiry under
// HMAC-SHA-256, by Web Crypto, so async). No I/O, no connection state; open() rejects with nothing but one -32602.

import { decodeUtf8, fromBase64, invalidParams, isPlainObject, randomBytes, toBase64Url, utf8 } from './jsonrpc.ts';
import { formatPath } from './schema.ts';

/** One request for client input, as the 2026-07-28 wire carries it (no jsonrpc, no id). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: Record<string, unknown>;
}

const CAPABILITY: Record<string, string> = Object.assign(Object.create(null), {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
});

/** What a tools/call, prompts/get or resources/read handler returns to ask the client for input. */
export class InputRequired {
  readonly inputRequests: Record<string, InputRequest>;
  readonly state: unknown;

  constructor(inputRequests: Record<string, InputRequest>, state?: unknown) {
    if (!isPlainObject(inputRequests)) throw new TypeError('inputRequests must be an object');
    const entries = Object.entries(inputRequests);
    for (const [key, request] of entries) {
      if (key === '') throw new TypeError('input request keys must be non-empty strings');
      if (!isPlainObject(request) || typeof request.method !== 'string' || !Object.hasOwn(CAPABILITY, request.method))
        throw new TypeError(
          `input request "${key}" must have method elicitation/create, sampling/createMessage or roots/list`,
        );
      if (request.params !== undefined && !isPlainObject(request.params))
        throw new TypeError(`input request "${key}" params must be an object`);
    }
    if (entries.length === 0 && state === undefined)
      throw new TypeError('an input-required answer needs at least one input request or a state');
    this.inputRequests = Object.fromEntries(entries); // own data properties only, even for a "__proto__" key
    this.state = state;
  }
}

/** The rounds of client input one request's handler may ask for (the 2025 shim, tasks, the test client). */
export const MAX_INPUT_ROUNDS = 8;

/** Builds the InputRequired answer: input requests by key, and optional state handed back on the next round. */
export function inputRequired(inputRequests: Record<string, InputRequest>, state?: unknown): InputRequired {
  return new InputRequired(inputRequests, state);
}

/** An `elicitation/create` input request with these params. */
export function elicitInput(params: Record<string, unknown>): InputRequest {
  return { method: 'elicitation/create', params };
}

/** A `sampling/createMessage` input request with these params. */
export function sampleInput(params: Record<string, unknown>): InputRequest {
  return { method: 'sampling/createMessage', params };
}

/** A `roots/list` input request. */
export function listRootsInput(): InputRequest {
  return { method: 'roots/list', params: {} };
}

/** One URL elicitation a request needs first (MCP 2025-11-25, Client Features > Elicitation > URL Mode). */
export interface UrlElicitation {
  elicitationId: string;
  url: string;
  message: string;
}

/**
 * Thrown when the request can go on only once the user completed these URL elicitations: answered `-32042` on
 * 2025-11-25 (Client Features > Elicitation > URL Elicitation Required Error), `input_required` on 2026-07-28. Not a
 * ProtocolError: thrown by a method that takes no input it is the handler's bug (-32603, logged).
 */
export class UrlElicitationRequiredError extends Error {
  override readonly name = 'UrlElicitationRequiredError';
  readonly elicitations: readonly UrlElicitation[];

  constructor(elicitations: readonly UrlElicitation[]) {
    if (!Array.isArray(elicitations) || elicitations.length === 0)
      throw new TypeError('a URL elicitation error needs at least one elicitation');
    const ids = new Set<string>();
    const copies = elicitations.map((elicitation, index) => {
      for (const field of ['elicitationId', 'url', 'message'] as const)
        if (typeof elicitation?.[field] !== 'string' || elicitation[field] === '')
          throw new TypeError(`elicitations[${index}].${field} must be a non-empty string`);
      const { elicitationId, url, message } = elicitation;
      if (!URL.canParse(url)) throw new TypeError(`elicitations[${index}].url must be an absolute URL`);
      if (ids.has(elicitationId)) throw new TypeError(`elicitations[${index}].elicitationId repeats ${elicitationId}`);
      ids.add(elicitationId);
      return { elicitationId, url, message };
    });
    super('URL elicitation required');
    this.elicitations = copies;
  }

  /** The same elicitations as 2026-07-28 input requests, keyed by their ids. */
  inputRequests(): Record<string, InputRequest> {
    const requests: Record<string, InputRequest> = Object.create(null);
    for (const { elicitationId, url, message } of this.elicitations)
      requests[elicitationId] = elicitInput({ mode: 'url', message, url });
    return requests;
  }
}

/** The error a handler throws when the request needs these URL elicitations completed first (see the class). */
export function urlElicitationRequired(elicitations: readonly UrlElicitation[]): UrlElicitationRequiredError {
  return new UrlElicitationRequiredError(elicitations);
}

/** A handler's UrlElicitationRequiredError as the input it asks for (2026-07-28, a task's rounds); others rethrown. */
export function urlElicitationAsInput(error: unknown): InputRequired {
  if (!(error instanceof UrlElicitationRequiredError)) throw error;
  return new InputRequired(error.inputRequests());
}

/** Refuses an elicitation id that is not a non-empty string (ctx.completeElicitation's argument). */
export function checkElicitationId(elicitationId: unknown): void {
  if (typeof elicitationId !== 'string' || elicitationId === '')
    throw new TypeError('elicitationId must be a non-empty string');
}

/** The part of its capability an input request needs (2025-11-25, Client Features > Elicitation and Sampling >
 * Capabilities): an elicitation's mode (none: `form`); `tools` for sampling with tools. Undefined: the bare one. */
function partNeeded(request: InputRequest): string | undefined {
  const params = isPlainObject(request.params) ? request.params : {};
  // A mode the client did not declare is never sent (Capabilities: "MUST NOT send … modes that are not supported").
  if (request.method === 'elicitation/create') return typeof params.mode === 'string' ? params.mode : 'form';
  if (request.method === 'sampling/createMessage' && (params.tools !== undefined || params.toolChoice !== undefined))
    return 'tools';
  return undefined;
}

/**
 * The client capabilities `requests` need that `declared` (a ClientCapabilities, read as a plain record) lacks, as
 * {sampling: {tools: {}}}, {elicitation: {form: {}}} (declared for URLs only) or {roots: {}}; undefined: none.
 */
export function requiredCapabilities(requests: Record<string, InputRequest>, declared: Record<string, unknown>) {
  let missing: Record<string, Record<string, object>> | undefined;
  for (const request of Object.values(requests)) {
    const method = isPlainObject(request) ? request.method : undefined;
    if (typeof method !== 'string' || !Object.hasOwn(CAPABILITY, method)) continue;
    const capability = CAPABILITY[method]!;
    const part = partNeeded(request);
    const held = isPlainObject(declared) && Object.hasOwn(declared, capability) ? declared[capability] : undefined;
    if (isPlainObject(held)) {
      if (part === undefined || isPlainObject(held[part])) continue;
      if (part === 'form' && held.form === undefined && held.url === undefined) continue; // bare: form only
    }
    const needed = ((missing ??= {})[capability] ??= {});
    // A form elicitation needs the bare capability, unless the client declared elicitation for URLs alone.
    if (part !== undefined && (part !== 'form' || isPlainObject(held))) needed[part] = {};
  }
  return missing;
}

/** Missing capabilities as a person reads them: `elicitation.url, roots`. */
export function describeCapabilities(missing: Record<string, Record<string, object>>): string {
  return Object.entries(missing)
    .flatMap(([capability, parts]) => {
      const names = Object.keys(parts);
      return names.length === 0 ? [capability] : names.map((part) => `${capability}.${part}`);
    })
    .join(', ');
}

/** A value as JSON.stringify sees it: its toJSON() applied once; undefined for what JSON omits (functions, symbols). */
function jsonView(value: unknown): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  const viewed = typeof toJSON === 'function' ? toJSON.call(value) : value;
  if (typeof viewed === 'bigint') throw new TypeError('a bigint cannot be serialized as JSON');
  return typeof viewed === 'function' || typeof viewed === 'symbol' ? undefined : viewed;
}

/** JSON with sorted (own enumerable) keys, toJSON honoured, undefined members dropped; a stack of pending pieces, not
 * recursion, so a value of any depth (a client's arguments) serializes; a cycle throws a TypeError. */
function canonicalJson(value: unknown): string | undefined {
  const root = jsonView(value);
  if (root === undefined) return undefined;
  let out = '';
  // { text } is text to write (ending `close`, an object or array in progress, when set); { value } a value to write.
  const pending: ({ text: string; close?: object } | { value: unknown })[] = [{ value: root }];
  const open = new Set<object>();
  while (pending.length > 0) {
    const piece = pending.pop()!;
    if ('text' in piece) {
      if (piece.close !== undefined) open.delete(piece.close);
      out += piece.text;
      continue;
    }
    const current = piece.value;
    if (current === null || typeof current !== 'object') {
      out += JSON.stringify(current);
      continue;
    }
    if (open.has(current)) throw new TypeError('a cyclic value cannot be serialized as JSON');
    open.add(current);
    const members: ({ text: string } | { value: unknown })[] = [];
    if (Array.isArray(current)) {
      out += '[';
      for (let i = 0; i < current.length; i++)
        members.push({ text: i > 0 ? ',' : '' }, { value: jsonView(current[i]) ?? null });
      pending.push({ close: current, text: ']' });
    } else {
      out += '{';
      const record = current as Record<string, unknown>;
      for (const key of Object.keys(record).sort()) {
        const member = jsonView(record[key]);
        if (member !== undefined)
          members.push({ text: `${members.length > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: member });
      }
      pending.push({ close: current, text: '}' });
    }
    for (let i = members.length - 1; i >= 0; i--) pending.push(members[i]!);
  }
  return out;
}

const UNBOUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

/** Bytes as Web Crypto takes them: ours are over a plain ArrayBuffer, so typed they also satisfy the DOM lib's
 * BufferSource, which refuses a possibly shared buffer (README.md, Vendoring: the sources type-check with it too). */
const cryptoBytes = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

/** The params a retry is bound to (all but UNBOUND_PARAMS), canonical, SHA-256 (Web Crypto's: native, off-stack). */
export async function paramsDigest(params: Record<string, unknown>): Promise<string> {
  const bound: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(params)) if (!UNBOUND_PARAMS.has(key)) bound[key] = params[key];
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', cryptoBytes(utf8(canonicalJson(bound)!)))));
}

/** The longest requestState open() considers; seal() refuses to make a longer one. */
export const MAX_REQUEST_STATE_LENGTH = 64 * 1024;
const PAYLOAD_VERSION = 1;
const SEALED = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

function verificationFailed() {
  return invalidParams('requestState failed verification');
}

/** A Web Crypto key being imported (the global CryptoKey type is DOM's, not in this project's libs). */
type HmacKey = ReturnType<typeof crypto.subtle.importKey>;
const HMAC = { name: 'HMAC', hash: 'SHA-256' };

/** Seals handler state into an opaque requestState: base64url payload {method, params digest, expiry, nonce, state,
 * principal} + "." + base64url HMAC-SHA-256 of the payload text. */
export class RequestStateSealer {
  /** The configured secret; without one, the key is drawn at the first seal or open. */
  readonly #secret: Uint8Array | undefined;
  /** The Web Crypto HMAC key, imported once, at the first seal or open. */
  #key: HmacKey | undefined;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { secret?: Uint8Array | string; ttlMs?: number; now?: () => number } = {}) {
    const { secret, ttlMs = 10 * 60_000, now = Date.now } = options;
    this.#secret =
      typeof secret === 'string' ? utf8(secret) : secret === undefined ? undefined : Uint8Array.from(secret);
    if (this.#secret?.length === 0) throw new TypeError('the requestState secret must not be empty');
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError('ttlMs must be a positive finite number');
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** `principal`: the caller's identity (with HTTP auth), so that another caller cannot replay the state. */
  async seal(method: string, params: Record<string, unknown>, state: unknown, principal?: string): Promise<string> {
    if (state !== undefined && canonicalJson(state) === undefined)
      throw new TypeError('state must be JSON-serializable');
    const payload = canonicalJson({
      v: PAYLOAD_VERSION,
      m: method,
      d: await paramsDigest(params),
      e: this.#now() + this.#ttlMs,
      n: toBase64Url(randomBytes(16)),
      s: state,
      a: principal,
    })!;
    const encoded = toBase64Url(utf8(payload));
    const mac = await crypto.subtle.sign('HMAC', await this.#hmacKey(), cryptoBytes(utf8(encoded)));
    const sealed = `${encoded}.${toBase64Url(new Uint8Array(mac))}`;
    if (sealed.length > MAX_REQUEST_STATE_LENGTH)
      throw new RangeError(`sealed requestState exceeds ${MAX_REQUEST_STATE_LENGTH} characters; keep state small`);
    return sealed;
  }

  /** Resolves to the state; rejects -32602 unless requestState is our intact, unexpired seal for this very call. */
  open(method: string, params: Record<string, unknown>, requestState: unknown, principal?: string): Promise<unknown> {
    return this.#open(method, params, requestState, principal).catch(() => Promise.reject(verificationFailed()));
  }

  /** HMAC-SHA-256 under the secret (a random 256-bit one when none was configured), for sign and verify. */
  #hmacKey(): HmacKey {
    const usages: ['sign', 'verify'] = ['sign', 'verify'];
    this.#key ??= crypto.subtle.importKey('raw', cryptoBytes(this.#secret ?? randomBytes(32)), HMAC, false, usages);
    return this.#key;
  }

  async #open(method: string, params: Record<string, unknown>, requestState: unknown, principal?: string) {
    if (typeof requestState !== 'string' || requestState.length > MAX_REQUEST_STATE_LENGTH) throw verificationFailed();
    const parts = SEALED.exec(requestState);
    if (parts === null) throw verificationFailed();
    const [, encoded, mac] = parts as unknown as [string, string, string];
    // Only the canonical spelling of a 32-byte MAC verifies; verify compares in constant time.
    const given = fromBase64(mac);
    if (given === undefined || given.length !== 32 || toBase64Url(given) !== mac) throw verificationFailed();
    if (!(await crypto.subtle.verify('HMAC', await this.#hmacKey(), cryptoBytes(given), cryptoBytes(utf8(encoded)))))
      throw verificationFailed();
    // Only now is the payload ours, and worth parsing.
    const payload: unknown = JSON.parse(decodeUtf8(fromBase64(encoded)!)!);
    if (!isPlainObject(payload) || payload.v !== PAYLOAD_VERSION) throw verificationFailed();
    const { m, d, e } = payload;
    if (m !== method || typeof e !== 'number' || !(this.#now() < e)) throw verificationFailed();
    if (d !== (await paramsDigest(params)) || payload.a !== principal) throw verificationFailed();
    return payload.s; // absent when the state was undefined
  }
}

/** A retry's inputResponses as a null-prototype copy: an object of plain objects, else -32602 naming the bad key. */
export function readInputResponses(value: unknown): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalidParams('params.inputResponses must be an object');
  const copy: Record<string, Record<string, unknown>> = Object.create(null);
  for (const key of Object.keys(value)) {
    const response = value[key];
    if (!isPlainObject(response))
      throw invalidParams(`${formatPath('params.inputResponses', [key])} must be an object`);
    copy[key] = response;
  }
  return copy;
}
