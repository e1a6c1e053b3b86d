// JSON-RPC 2.0 framing and errors, and the bytes frames and ids travel as: frame types, newline-delimited splitting
// under a per-line cap, strict UTF-8 decoding and parsing, classification, the exact answers to bad frames, the error
// codes and ProtocolError, bounded renderings of peer values, chain() (no microtask hop for a value); UTF-8,
// base64(url), hex, random bytes on Web APIs (no node: import; the splitter uses Buffer). No I/O, no state but a line.

/** A JSON-RPC request id: a string or an integer (never null), echoed exactly as received. */
export type RequestId = string | number;

/** A JSON-RPC notification frame (no `id`; never answered). */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** A JSON-RPC request frame: a notification's members and an `id`. */
export interface JsonRpcRequest extends JsonRpcNotification {
  id: RequestId;
}

/** The `error` member of an error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A successful JSON-RPC response frame. */
export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: unknown;
}

/** A JSON-RPC error response frame; `id` is null when the request's id could not be read. */
export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

/** A JSON-RPC response frame: success or error. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
/** Any single JSON-RPC frame. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The codes the core puts on the wire (docs/eras.md, Error codes). Nothing else is ever emitted by the core itself. */
export const ErrorCode = {
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
} as const;

/** An error meant for the wire: thrown by the core or on purpose by a handler, it is sent as is. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.data = data;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** What classify() made of one value: a request, notification, response, or an invalid frame with its error. */
export type Frame =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; error: JsonRpcErrorObject };

/** Whether an outgoing message is a response (an id and no method), not a request or notification. */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return 'id' in message && !('method' in message);
}

/** True for a valid request id: a string or a safe integer. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

/** A JSON object: neither null nor an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(id: RequestId | null, message: string): Frame {
  return { kind: 'invalid', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` } };
}

/** Classifies one parsed JSON value (not an array). Key presence decides the kind before any type check, so a request
 * with a malformed id is answered, not taken for a notification (MCP 2025-11-25, Basic > Overview > Messages). */
export function classify(value: unknown): Frame {
  if (!isPlainObject(value)) return invalid(null, 'a message must be a JSON object');
  const hasId = 'id' in value;
  const id = hasId && isRequestId(value.id) ? value.id : null;
  if ('method' in value) {
    if (hasId && id === null) return invalid(null, 'id must be a string or an integer');
    if (value.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be exactly "2.0"');
    if (typeof value.method !== 'string' || value.method === '')
      return invalid(id, 'method must be a non-empty string');
    if (value.params !== undefined && !isPlainObject(value.params)) return invalid(id, 'params must be an object');
    return hasId
      ? { kind: 'request', message: value as unknown as JsonRpcRequest }
      : { kind: 'notification', message: value as unknown as JsonRpcNotification };
  }
  if ('result' in value || 'error' in value) {
    if (value.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be exactly "2.0"');
    if ('error' in value) {
      const error = value.error;
      if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
        return invalid(id, 'error must be an object with an integer code and a string message');
      if (value.id !== null && id === null) return invalid(null, 'id must be a string, an integer or null');
    } else if (id === null) return invalid(null, 'id must be a string or an integer');
    return { kind: 'response', message: value as unknown as JsonRpcResponse };
  }
  return invalid(id, 'a message needs a method, a result or an error');
}

// Fatal: bytes that are not UTF-8 are no JSON text (RFC 8259 §8.1), never text with U+FFFD in their place. A byte
// order mark is kept, so a frame that starts with one is not JSON either.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `read`'s value, or undefined when it throws (as decoding and parsing do on bad input). */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** One frame's bytes as text; `undefined` when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  // Not through attempt(): every frame passes here, and a closure a frame is garbage (bench/README.md, stdio round
  // trips, "Change: fewer objects per call").
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

const encoder = new TextEncoder();

/** The UTF-8 encoding of `text` (a lone surrogate becomes U+FFFD, as TextEncoder does). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Bytes as base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes as base64url without padding (RFC 4648 section 5). */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64 or base64url, padded or not; undefined when it is not base64 (a bad character or length). */
export function fromBase64(text: string): Uint8Array | undefined {
  const binary = attempt(() => atob(text.replace(/-/g, '+').replace(/_/g, '/')));
  return binary === undefined ? undefined : Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Bytes as lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `length` bytes from the runtime's cryptographically secure generator. */
export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** Whether `value` is a thenable (any, not only a native Promise): what `await` would wait for. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * `next(value, state)` of the `value` that `step(input, state)` returns, at once unless it is a thenable (no microtask
 * hop for a synchronous answer); what `step` throws or rejects with goes to `failed(error, state)` (absent: it
 * propagates), not what `next` throws. The hot paths pass module-level steps and one `state` record, so that a call
 * served synchronously makes no closure (bench/README.md, stdio round trips, "Change: fewer objects per call").
 */
export function chain<I, S, V, T = V>(
  step: (input: I, state: S) => V | PromiseLike<V>,
  input: I,
  state: S,
  next?: (value: V, state: S) => T,
  failed?: (error: unknown, state: S) => T,
): unknown {
  let value: V | PromiseLike<V>;
  let pending: boolean;
  try {
    value = step(input, state);
    pending = isThenable(value); // a `then` getter may throw: that is the step's failure, as `await` makes it
  } catch (error) {
    if (failed === undefined) throw error;
    return failed(error, state);
  }
  if (!pending) return next === undefined ? value : next(value as V, state);
  return Promise.resolve(value).then(
    next && ((settled) => next(settled, state)),
    failed && ((error: unknown) => failed(error, state)),
  );
}

/** Parses one frame's text. Returns `undefined` when the text is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) }; // as decodeUtf8: no closure per frame
  } catch {
    return undefined;
  }
}

/** An error response frame for `id`. */
export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}

/** A success response frame for `id`. */
export function successResponse(id: RequestId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

/** The answer to text that is not JSON (`-32700`, id null). */
export const PARSE_ERROR: JsonRpcFailure = errorResponse(null, { code: ErrorCode.ParseError, message: 'Parse error' });

/** An unexpected failure (a handler's throw, an answer that cannot be serialized) on the wire or in a task: no detail. */
export const INTERNAL_ERROR = Object.freeze({ code: ErrorCode.InternalError, message: 'Internal error' });

/** The answer to bytes that are not UTF-8 (`-32700`, id null). */
export const NOT_UTF8: JsonRpcFailure = errorResponse(null, {
  code: ErrorCode.ParseError,
  message: 'Parse error: frame is not valid UTF-8',
});

/** A value as its JSON cut to `max` characters, for a log line or an error message. Never throws: a value JSON cannot
 * write (a cycle, a BigInt, nesting deeper than the stack allows) is named by its type. */
export function describeValue(value: unknown, max = 80): string {
  const written = attempt(() => ({ json: JSON.stringify(value) as string | undefined }));
  if (written === undefined) return `a ${typeof value} that is not JSON`;
  const { json } = written;
  return json === undefined ? String(value) : json.length > max ? `${json.slice(0, max - 3)}...` : json;
}

/** The refusal of a request whose id is still in flight on the same connection (`-32600`). */
export function idInFlight(id: RequestId): JsonRpcFailure {
  const message = `Invalid Request: request id ${describeValue(id)} is already in flight`;
  return errorResponse(id, { code: ErrorCode.InvalidRequest, message });
}

/** The refusal of work past the `max` requests one connection may have in flight (`-32603`). */
export function tooManyInFlight(max: number): JsonRpcErrorObject {
  return { code: ErrorCode.InternalError, message: `Internal error: too many requests in flight (limit ${max})` };
}

/** The refusal of a whole batch with more than `max` elements (`-32600`, answered with id null). */
export function batchTooLong(max: number): JsonRpcErrorObject {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: a batch may hold at most ${max} elements` };
}

/** A `-32602` ProtocolError whose message is "Invalid params: " + `message`. */
export function invalidParams(message: string, data?: unknown): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${message}`, data);
}

/**
 * The refusal of a request its token's scopes do not cover (MCP 2025-11-25, Authorization, Scope Challenge Handling):
 * `-32600` naming `requiredScopes`; HTTP answers it 403 with the `insufficient_scope` challenge (docs/api.md, Scopes).
 */
export function insufficientScope(requiredScopes: readonly string[]): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidRequest, 'Forbidden: insufficient scope', {
    requiredScopes: [...requiredScopes],
  });
}

/** A `-32601` ProtocolError with the method name as `data`. */
export function methodNotFound(method: string): ProtocolError {
  return new ProtocolError(ErrorCode.MethodNotFound, 'Method not found', method);
}

/** Where a LineSplitter delivers what it cuts from the byte stream. */
export interface LineSink {
  line(text: string): void;
  /** A line longer than the cap was discarded (reported once per such line). */
  oversized(): void;
  /** A line whose bytes are not UTF-8 was discarded. */
  notUtf8(): void;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Newline-delimited framing (stdio): cuts chunks into lines under a byte cap; CRLF accepted, blank lines skipped. */
export class LineSplitter {
  readonly #maxLineBytes: number;
  #parts: Buffer[] = [];
  #partsBytes = 0;
  #discarding = false;

  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer, sink: LineSink): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#hold(chunk, start, chunk.length, sink);
        return;
      }
      if (this.#discarding || this.#parts.length > 0) {
        this.#hold(chunk, start, end, sink);
        this.#flush(sink);
      } else if (end - start > this.#maxLineBytes) sink.oversized();
      else this.#emit(chunk, start, end, sink);
      start = end + 1;
    }
  }

  /** The input ended: a last line without its newline still counts. */
  end(sink: LineSink): void {
    this.#flush(sink);
  }

  /** A newline (or the end) came: the held line goes out, and a line being discarded is over. */
  #flush(sink: LineSink): void {
    if (this.#parts.length > 0) {
      const line = Buffer.concat(this.#parts, this.#partsBytes);
      this.#reset();
      this.#emit(line, 0, line.length, sink);
    }
    this.#discarding = false;
  }

  #hold(chunk: Buffer, start: number, end: number, sink: LineSink): void {
    if (this.#discarding || start === end) return;
    if (this.#partsBytes + end - start > this.#maxLineBytes) {
      this.#reset();
      this.#discarding = true;
      sink.oversized();
      return;
    }
    this.#parts.push(chunk.subarray(start, end));
    this.#partsBytes += end - start;
  }

  #reset(): void {
    this.#parts = [];
    this.#partsBytes = 0;
  }

  #emit(buffer: Buffer, start: number, end: number, sink: LineSink): void {
    if (end > start && buffer[end - 1] === CARRIAGE_RETURN) end--;
    const text = decodeUtf8(buffer.subarray(start, end));
    if (text === undefined) sink.notUtf8();
    else if (text.trim() !== '') sink.line(text);
  }
}
