// The sessionless 2026-07-28 POST over HTTP: the envelope, routing-header and Accept checks in the spec's order, then
// one connection for the one request, answered as a JSON body or an SSE stream (a scope refusal: 403 with the guard's
// challenge, unless the stream began); closing the response is this era's cancellation. Owns the running modern
// exchanges (close() drains them); never touches a 2025 session.

import type { Connection, Envelope, Server } from '../core.ts';
import { NO_BACK_CHANNEL } from '../dispatcher.ts';
import type { HeaderParam } from '../features.ts';
import {
  ErrorCode,
  errorResponse,
  fromBase64,
  isPlainObject,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type ProtocolError,
  type RequestId,
  toBase64,
} from '../jsonrpc.ts';
import {
  accepted,
  type EventSink,
  extrasOf,
  type HeaderBag,
  JsonText,
  type Reply,
  type StreamBudget,
  shuttingDown,
} from './exchange.ts';
import { formatEvent } from './sse.ts';

/** The guard's challenge of an answer refused for want of scope (HttpGuard.stepUp); undefined: none. */
type StepUp = (reply: Reply, response: JsonRpcResponse) => Record<string, string> | undefined;

/** The 2026-07-28 exchanges of one HTTP endpoint. */
export class ModernExchanges {
  readonly #server: Server;
  readonly #streams: StreamBudget;
  readonly #stepUp: StepUp;
  /** Each running exchange's connection, with the exchange (the way to end its HTTP response when the endpoint closes). */
  readonly #running = new Map<Connection, ModernExchange>();

  /** `stepUp`: the guard's challenge of an answer refused for want of scope (HttpGuard.stepUp). */
  constructor(server: Server, streams: StreamBudget, stepUp: StepUp) {
    this.#server = server;
    this.#streams = streams;
    this.#stepUp = stepUp;
  }

  /** Running requests get `windowMs` to finish, listens end with their final result; then every response ends. */
  drain(windowMs: number): Promise<void>[] {
    const drained = [...this.#running].map(([connection, exchange]) =>
      connection.drain(windowMs).then(() => exchange.end()),
    );
    this.#running.clear();
    return drained;
  }

  /** The sessionless modern ladder (2026-07-28 transports, Streamable HTTP), then one connection for this one request. */
  post(message: JsonRpcMessage, id: RequestId | null, reply: Reply): void {
    const { headers } = reply;
    const { method, params = {} } = message as { method: string; params?: Record<string, unknown> };
    let envelope: Envelope;
    try {
      envelope = this.#server.transport.readEnvelope(params);
    } catch (failure) {
      reply.send(400, errorResponse(id, (failure as ProtocolError).toJSON()));
      return;
    }
    if (id === null) {
      reply.send(202); // 2026-07-28 HTTP defines no client notifications; a cancel is a disconnect
      return;
    }
    const mismatch = checkRoutingHeaders(headers, method, params, this.#server.transport.routingParam(method));
    if (mismatch !== undefined) {
      reply.send(400, errorResponse(id, { code: ErrorCode.HeaderMismatch, message: mismatch }));
      return;
    }
    const { json, sse } = accepted(headers);
    const listen = method === 'subscriptions/listen';
    if ((!json && !sse) || (listen && !sse)) {
      reply.send(
        406,
        errorResponse(id, {
          code: ErrorCode.InvalidRequest,
          message: 'Not Acceptable: Accept must admit application/json or text/event-stream',
        }),
      );
      return;
    }
    const extras = extrasOf(reply, envelope);
    let headerParams: readonly HeaderParam[];
    try {
      headerParams = this.#server.transport.checkArrival(method, params, extras);
    } catch (failure) {
      reply.send(404, errorResponse(id, (failure as ProtocolError).toJSON())); // a removed or unserved method
      return;
    }
    if (headerParams.length > 0) {
      const args = isPlainObject(params.arguments) ? params.arguments : {};
      const paramMismatch = checkParamHeaders(headers, headerParams, args);
      if (paramMismatch !== undefined) {
        reply.send(400, errorResponse(id, { code: ErrorCode.HeaderMismatch, message: paramMismatch }));
        return;
      }
    }
    if (listen && this.#streams.full) {
      this.#streams.refuse(reply, id);
      return;
    }
    const exchange = new ModernExchange(reply, id, json, sse, listen, this.#streams, this.#stepUp, this.#running);
    const connection = (exchange.connection = this.#server.transport.connect(exchange));
    this.#running.set(connection, exchange);
    // Closing the response is this era's cancellation: the handler is aborted and nothing more is written.
    reply.onAbort(() => exchange.abort());
    connection.receive(message, extras);
  }
}

/**
 * One 2026-07-28 POST as its connection's peer: its answer (a JSON body, or an SSE stream once something precedes
 * it, or when only SSE is accepted) and the frames related to it. The exchange is the peer itself, its methods the
 * peer's: no closures per request (an open listen keeps all of it; bench/README.md, What we found and changed).
 */
class ModernExchange {
  readonly #reply: Reply;
  readonly #id: RequestId;
  readonly #json: boolean;
  readonly #sse: boolean;
  /** A listen's stream holds a place in the budget (StreamBudget.open). */
  readonly #listen: boolean;
  readonly #streams: StreamBudget;
  readonly #stepUp: StepUp;
  readonly #running: Map<Connection, ModernExchange>;
  #sink: EventSink | undefined;
  connection!: Connection;

  constructor(
    reply: Reply,
    id: RequestId,
    json: boolean,
    sse: boolean,
    listen: boolean,
    streams: StreamBudget,
    stepUp: StepUp,
    running: Map<Connection, ModernExchange>,
  ) {
    this.#reply = reply;
    this.#id = id;
    this.#json = json;
    this.#sse = sse;
    this.#listen = listen;
    this.#streams = streams;
    this.#stepUp = stepUp;
    this.#running = running;
  }

  get era(): 'modern' {
    return 'modern';
  }

  get transport(): 'http' {
    return 'http';
  }

  /** Connection peer: the answer ends the exchange; anything before it opens the SSE stream (if accepted). */
  send(frame: JsonRpcMessage | JsonRpcResponse[]): void {
    if (Array.isArray(frame)) return;
    const reply = this.#reply;
    if (isResponse(frame)) {
      const text = JSON.stringify(frame); // first: a result that cannot be serialized changes nothing here
      const code = 'error' in frame ? frame.error.code : 0;
      // Refused for want of scope (at the lookup, or by a handler): 403 with the step-up challenge.
      const challenge = code === 0 ? undefined : this.#stepUp(reply, frame);
      const status =
        challenge !== undefined
          ? 403
          : code === ErrorCode.MethodNotFound
            ? 404
            : code === ErrorCode.MissingRequiredClientCapability
              ? 400
              : 200;
      // A client that accepts only text/event-stream gets its 200 answer as a one-event stream.
      if (this.#sink === undefined && !this.#json && status === 200 && !reply.answered)
        this.#sink = this.#streams.open(reply, this.#listen);
      const sink = this.#sink;
      if (sink !== undefined) {
        sink.send(formatEvent(text));
        sink.end();
      } else if (!reply.answered) {
        reply.send(status, new JsonText(text), challenge);
      }
      this.abort();
      return;
    }
    if (this.#sink === undefined && this.#sse && !reply.answered) this.#sink = this.#streams.open(reply, this.#listen);
    this.#sink?.send(formatEvent(JSON.stringify(frame)));
  }

  /** Connection peer: a sessionless request has no back-channel. */
  noBackChannel(): string {
    return NO_BACK_CHANNEL;
  }

  /** Connection peer: sessionless, so anyone holding an id (ExtensionContext.caller). */
  caller(): string {
    return '';
  }

  /** The exchange is over (answered, or its client gone): its connection closes and leaves the running table. */
  abort(): void {
    this.#running.delete(this.connection);
    this.connection.close();
  }

  /** The endpoint closed: the stream ends (a listen's after its final result), else the request is answered 503. */
  end(): void {
    if (this.#sink !== undefined) this.#sink.end();
    else if (!this.#reply.answered) this.#reply.send(503, shuttingDown(this.#id));
  }
}

// Routing headers (2026-07-28 transports, Streamable HTTP, Request Metadata): Mcp-Method, Mcp-Name and Mcp-Param-*
// mirror the body; a value that is not plain printable ASCII arrives as `=?base64?…?=` of its UTF-8 (-32020 on any
// mismatch). A tool's x-mcp-header declarations are read at registration (features.ts).

const PREFIX = '=?base64?';
const SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;
const MAX_ECHO = 100;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes a header value of printable ASCII, SP and HTAB (readSingle checks that first; trim() would also strip other whitespace): trims surrounding whitespace; `=?base64?…?=` (lowercase markers, case-sensitive) is strict base64 of UTF-8 (invalid padding/characters/invalid UTF-8 -> undefined); anything else is literal. */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim(); // the same as trimming SP and HTAB on what readSingle admits, without a regex per header
  if (value.length < PREFIX.length + SUFFIX.length || !value.startsWith(PREFIX) || !value.endsWith(SUFFIX)) {
    return value;
  }
  const payload = value.slice(PREFIX.length, value.length - SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  const bytes = fromBase64(payload)!; // BASE64 matched: it decodes
  // Canonical form only: nonzero bits in the last character's unused part would otherwise decode silently.
  if (toBase64(bytes) !== payload) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function echo(value: string): string {
  return value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
}

/** A -32020 message: the `label` header `what` (e.g. "is duplicated"). */
export function mismatch(label: string, what: string): string {
  return `Header mismatch: ${label} header ${what}`;
}

type Read = { ok: true; value: string | undefined } | { ok: false; error: string };

/**
 * Reads the value of one header that must occur at most once (read by name by the caller, as exchange.ts's `first`
 * says why): an array of more than one value is a duplicate, and so is a comma when `commaIsDuplicate` (node joins
 * repeats with ", "). Checks the characters, then decodes.
 */
function readSingle(raw: string | string[] | undefined, label: string, commaIsDuplicate: boolean): Read {
  if (Array.isArray(raw)) {
    if (raw.length > 1) return { ok: false, error: mismatch(label, 'is duplicated') };
    raw = raw[0];
  }
  if (raw === undefined) return { ok: true, value: undefined };
  if (commaIsDuplicate && raw.includes(',')) return { ok: false, error: mismatch(label, 'is duplicated') };
  if (!isPlainHeaderValue(raw))
    return { ok: false, error: mismatch(label, 'contains characters not allowed in a header value') };
  const value = decodeHeaderValue(raw);
  if (value === undefined) return { ok: false, error: mismatch(label, 'is not valid base64') };
  return { ok: true, value };
}

/**
 * Whether a raw header value holds only what we accept: printable ASCII, SP and HTAB (non-ASCII must arrive
 * sentinel-encoded). A loop, not a regex: a regex test costs about 440 instructions a header, most of it the call
 * (bench/README.md, HTTP round trips).
 */
function isPlainHeaderValue(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code > 0x7e || (code < 0x20 && code !== 0x09)) return false;
  }
  return true;
}

function differs(label: string, headerValue: string, bodyValue: string): string {
  return mismatch(label, `value '${echo(headerValue)}' does not match body value '${echo(bodyValue)}'`);
}

/**
 * Checks the routing headers of a modern POST against its body: the -32020 message, or undefined. Mcp-Method must
 * equal the body's method (case-sensitive); Mcp-Name must equal the param `nameSource` names (TransportSide.routingParam:
 * `params.name` of tools/call and prompts/get, `params.uri` of resources/read, an extension's) once decoded.
 * Missing where required, duplicated, or holding characters a header value may not is a mismatch; a comma counts as a
 * duplicate in Mcp-Method only (names and URIs may hold commas).
 */
export function checkRoutingHeaders(
  headers: HeaderBag,
  method: string,
  params: Record<string, unknown>,
  nameSource: string | undefined,
): string | undefined {
  const m = readSingle(headers['mcp-method'], 'Mcp-Method', true);
  if (!m.ok) return m.error;
  if (m.value === undefined) return mismatch('Mcp-Method', 'is required');
  if (m.value !== method) return differs('Mcp-Method', m.value, method);

  if (nameSource === undefined) return undefined;
  const bodyValue = isPlainObject(params) ? params[nameSource] : undefined;
  // A body without a string name/uri is refused by params validation (-32602); there is nothing to mirror.
  if (typeof bodyValue !== 'string') return undefined;
  const n = readSingle(headers['mcp-name'], 'Mcp-Name', false);
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

/**
 * Checks a tools/call's Mcp-Param-* headers against its arguments; returns an error message, or undefined. For each
 * declared param: an argument present and not null needs its header, equal to it (a string exactly once decoded; an
 * integer as decimal text of the same number, so "42" and "42.0" both equal 42; a boolean as "true" or "false"); an
 * argument absent or null needs its header absent. Headers the tool does not declare are ignored.
 */
export function checkParamHeaders(
  headers: HeaderBag,
  params: readonly HeaderParam[],
  args: Record<string, unknown>,
): string | undefined {
  const bag = isPlainObject(args) ? args : {};
  for (const param of params) {
    const label = `Mcp-Param-${param.header}`;
    const r = readSingle(headers[label.toLowerCase()], label, false);
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
