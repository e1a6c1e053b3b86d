// Seeded fuzz input for mcp-core: a small PRNG (mulberry32) and a generator of JSON-RPC-shaped and malformed frames
// for one transport and era. Each item records what the invariants expect of it: the answers it must get (by id,
// with the exact error code where the protocol fixes one), the slow request it holds open, the in-flight id it
// duplicates or cancels. Pure: no I/O, no clock; the same seed and profile always give the same items.

import { Buffer } from 'node:buffer';
import { CLIENT_CAPABILITIES, CLIENT_INFO, envelope, type Id, LOG_LEVEL, MODERN, PROTOCOL_VERSION } from './wire.ts';

// ---------------------------------------------------------------------------------------------------------------
// Randomness

/** mulberry32: a tiny 32-bit PRNG; the same seed gives the same sequence on every platform. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  float(): number {
    return this.#next();
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.#next() * max);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** One of `entries` with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [weight] of entries) total += weight;
    let roll = this.float() * total;
    for (const [weight, value] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1]![1];
  }

  /** A short printable string, sometimes with non-ASCII characters. */
  word(max = 12): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_ ';
    const exotic = ['é', 'ß', '漢', '字', '😀', '\u200b', 'Ω', 'ñ'];
    let text = '';
    const length = this.int(max) + 1;
    for (let i = 0; i < length; i++) text += this.chance(0.1) ? this.pick(exotic) : alphabet[this.int(alphabet.length)];
    return text;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// What the generator produces

export type Transport = 'stdio' | 'http';
export type Era = 'legacy' | 'modern';

/** The transport and era a run drives, and the limits the expectations depend on. */
export interface Profile {
  transport: Transport;
  era: Era;
  /** The version the legacy connection negotiates (batches are served only under 2025-03-26). */
  legacyVersion: string;
  /** The stdio line cap / HTTP body cap the server was given. */
  maxFrameBytes: number;
}

/**
 * What one answer must be: a result, an error with this exact code, any error, or anything but the generic -32603
 * ('any': the protocol leaves the outcome to the server, e.g. argument validation of an odd number).
 */
export type Outcome = 'result' | 'error' | 'any' | number;

/** An answer the frame must get: `id` null for errors about frames whose id could not be read. */
export interface Answer {
  id: Id | null;
  outcome: Outcome;
}

/** One frame on the wire (one stdio line, one HTTP POST body). */
export interface FrameItem {
  type: 'frame';
  /** The category, for reports and exclusion. */
  label: string;
  data: string | Buffer;
  /** The stdio line ending. */
  eol: '\n' | '\r\n';
  /** Modern HTTP: the routing headers mirrored from the body (legacy HTTP gets the session's headers). */
  headers?: Record<string, string>;
  /** Every answer the frame must get. A held or listen request's own answer is listed here too. */
  answers: Answer[];
  /** The answers come as one JSON array (an accepted batch). */
  batch: boolean;
  /** Requests with a usable id the frame carries (including invalid ones that must be answered). */
  requests: number;
  /** A slow tools/call that waits for its gate: answered once released; not if cancelled or cut by the drain. */
  hold?: { gate: number; id: Id };
  /** A subscriptions/listen stream: open until the connection drains, then answered with its final result. */
  listen?: Id;
  /** The id of a request still in flight this frame reuses (refused once, except on modern HTTP). */
  duplicateOf?: Id;
  /** The id was used before and answered (before a barrier); reusing it is legal. */
  reuse?: boolean;
  /** Legacy HTTP: the initialize that opens the session. */
  initialize?: boolean;
  /** Modern HTTP: an initialize without envelope, which opens a 2025 session on the shared endpoint. */
  createsSession?: boolean;
}

/** Withdraws a held request or listen: notifications/cancelled, or on modern HTTP the client abandons the POST. */
export interface CancelItem {
  type: 'cancel';
  id: Id;
  gate: number | undefined;
  /** The wire frame (absent on modern HTTP, where a disconnect is the cancellation). */
  frame: FrameItem | undefined;
}

/** Opens a held request's gate: its handler finishes and it must be answered. */
export interface ReleaseItem {
  type: 'release';
  gate: number;
}

/** Every answer expected so far arrives before anything else is sent (the in-flight table is checked there). */
export interface BarrierItem {
  type: 'barrier';
}

/** End of input: `release` gates open as the connection drains; the other held requests are cut by the window. */
export interface EndItem {
  type: 'end';
  release: number[];
}

export type FuzzItem = FrameItem | CancelItem | ReleaseItem | BarrierItem | EndItem;

// ---------------------------------------------------------------------------------------------------------------
// Frame text

/** Number text JSON.stringify cannot write (-0, 2^53+1, 1e400) or a pre-built nest, spliced in verbatim. */
class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

function raw(text: string): Raw {
  return new Raw(text);
}

/** Serializes a value whose Raw parts are spliced in as they are. */
function serialize(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (item instanceof Raw) {
      raws.push(item.text);
      return `@@RAW${raws.length - 1}@@`;
    }
    return item;
  });
  if (raws.length === 0) return text;
  return text.replace(/"@@RAW(\d+)@@"/g, (_match, index: string) => raws[Number(index)]!);
}

/** `depth` nested arrays. */
function nestedArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** `depth` nested objects {"a":{"a":...}}. */
function nestedObjects(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A header value as a client must send it: plain printable ASCII without commas, else the base64 sentinel. */
function headerValue(value: string): string {
  const plain =
    /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.includes(',') && !value.startsWith('=?base64?');
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** Header values longer than this are left out (node refuses header blocks over 16 KiB). */
const MAX_HEADER_VALUE = 4096;

const REMOVED_IN_MODERN = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'];
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The envelope's validation in the spec's order: the error code a broken one gets, or undefined when it is valid. */
function envelopeCode(meta: Record<string, unknown>): number | undefined {
  const version = meta[PROTOCOL_VERSION];
  if (typeof version !== 'string') return -32602;
  if (version !== MODERN) return -32022;
  if (!Object.hasOwn(meta, CLIENT_CAPABILITIES) || !isPlainObject(meta[CLIENT_CAPABILITIES])) return -32602;
  const info = meta[CLIENT_INFO];
  if (info !== undefined && !(isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string'))
    return -32602;
  const level = meta[LOG_LEVEL];
  if (level !== undefined && !LEVELS.includes(level as string)) return -32602;
  return undefined;
}

/** A valid request's method and params, and the outcome it must get. */
interface Call {
  method: string;
  params: Record<string, unknown> | undefined;
  outcome: Outcome;
}

// ---------------------------------------------------------------------------------------------------------------
// The generator

export interface GeneratorOptions {
  /** Held slow requests at once (default 6). */
  maxHeld?: number;
  /** Listen streams at once (modern only, default 3). */
  maxListens?: number;
}

export class FrameGenerator {
  readonly profile: Profile;
  readonly #rng: Rng;
  readonly #maxHeld: number;
  readonly #maxListens: number;
  #counter = 0;
  #gates = 0;
  /** Held slow requests by gate. */
  readonly #held = new Map<number, Id>();
  readonly #listens: Id[] = [];
  /** Ids answered before the last barrier: reusing one is legal. */
  #reusable: Id[] = [];
  /** Ids issued since the last barrier whose answers are due. */
  #recent: Id[] = [];
  readonly #once = new Set<string>();
  #decided = false;

  constructor(seed: number, profile: Profile, options: GeneratorOptions = {}) {
    this.#rng = new Rng(seed);
    this.profile = profile;
    this.#maxHeld = options.maxHeld ?? 6;
    this.#maxListens = options.maxListens ?? 3;
  }

  get #legacy(): boolean {
    return this.profile.era === 'legacy';
  }

  get #http(): boolean {
    return this.profile.transport === 'http';
  }

  /** The version results are shaped for (tool argument errors are in-band from 2025-11-25). */
  get #version(): string {
    return this.#legacy ? this.profile.legacyVersion : MODERN;
  }

  /** A fresh id, of a random shape: numbers, numeric strings (distinct from the numbers), unicode, large integers. */
  #freshId(): Id {
    const n = ++this.#counter;
    switch (this.#rng.int(6)) {
      case 0:
      case 1:
        return n;
      case 2:
        return `r${n}`;
      case 3:
        return String(n);
      case 4:
        return 4_000_000_000 + n;
      default:
        return `✓-${n}-\u{1F600}`;
    }
  }

  /** An id no request ever uses (for cancels and client responses of nothing). */
  #ghostId(): Id {
    const n = ++this.#counter;
    return this.#rng.chance(0.5) ? -n : `ghost-${n}`;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Items

  *items(frames: number): Generator<FuzzItem> {
    let sent = 0;
    for (const item of this.#opening()) {
      yield item;
      sent++;
    }
    while (sent < frames) {
      if (this.#rng.chance(0.02)) {
        this.#reusable = [...this.#reusable, ...this.#recent].slice(-256);
        this.#recent = [];
        yield { type: 'barrier' };
        continue;
      }
      // The last frame is a held request (any other could cancel the only one held), so the drain window always has
      // one to cut.
      const item = sent === frames - 1 ? this.#slow() : this.#next();
      if (item === undefined) continue;
      if (item.type === 'frame' || item.type === 'cancel') sent++; // an abandoned POST (modern HTTP cancel) counts too
      yield item;
    }
    // Some held requests are released as the input ends (answered during the drain); the first one is always cut.
    const release = [...this.#held.keys()].slice(1).filter(() => this.#rng.chance(0.5));
    yield { type: 'end', release };
  }

  /** Legacy: a few frames before the handshake (stdio), then initialize and initialized. Modern: a deciding request. */
  *#opening(): Generator<FrameItem> {
    if (this.#legacy) {
      if (!this.#http) {
        const prelude = this.#rng.int(5);
        for (let i = 0; i < prelude; i++) yield this.#preInitialize();
      }
      const id = this.#freshId();
      const params = {
        protocolVersion: this.profile.legacyVersion,
        capabilities: {},
        clientInfo: { name: 'fuzz', version: '1.0.0' },
      };
      const item = this.#frame('initialize', { jsonrpc: '2.0', id, method: 'initialize', params }, [
        { id, outcome: 'result' },
      ]);
      item.initialize = true;
      this.#recent.push(id);
      yield item;
      yield this.#frame('initialized', { jsonrpc: '2.0', method: 'notifications/initialized' }, []);
    } else {
      const id = this.#freshId();
      this.#recent.push(id);
      yield this.#request('decide', id, { method: 'tools/list', params: {}, outcome: 'result' });
    }
    this.#decided = true;
  }

  /** Legacy stdio before initialize: ping is served, other known methods refused, unknown ones not found. */
  #preInitialize(): FrameItem {
    const id = this.#freshId();
    this.#recent.push(id);
    switch (this.#rng.int(5)) {
      case 0:
        return this.#frame('pre-init', { jsonrpc: '2.0', id, method: 'ping' }, [{ id, outcome: 'result' }]);
      case 1:
        return this.#frame('pre-init', { jsonrpc: '2.0', id, method: 'tools/list' }, [{ id, outcome: -32600 }]);
      case 2:
        return this.#frame('pre-init', { jsonrpc: '2.0', id, method: `nope/${this.#rng.word()}` }, [
          { id, outcome: -32601 },
        ]);
      case 3:
        return this.#frame('pre-init', { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: 5 } }, [
          { id, outcome: -32602 },
        ]);
      default:
        return this.#frame(
          'pre-init',
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } },
          [],
        );
    }
  }

  #next(): FuzzItem | undefined {
    const rng = this.#rng;
    const category = rng.weighted<string>([
      [30, 'valid'],
      [6, 'bad-params'],
      [3, 'unknown-method'],
      [6, 'bad-id'],
      [4, 'bad-method'],
      [3, 'bad-jsonrpc'],
      [4, 'bad-params-type'],
      [2, 'no-method'],
      [2, 'non-object'],
      [4, 'notification'],
      [2, 'bad-notification'],
      [3, 'client-response'],
      [4, 'garbage'],
      [2, 'invalid-utf8'],
      [2, 'empty-line'],
      [2, 'huge-number'],
      [1, 'deep-nesting'],
      [3, 'deep-anywhere'],
      [0.6, 'giant'],
      [4, 'era-mismatch'],
      [4, 'envelope'],
      [3, 'batch'],
      [5, 'slow'],
      [3, 'duplicate'],
      [3, 'cancel'],
      [4, 'release'],
      [2, 'reuse'],
      [1, 'listen'],
      [0.2, 'special-id'],
    ]);
    return this.#build(category);
  }

  #build(category: string): FuzzItem | undefined {
    const rng = this.#rng;
    switch (category) {
      case 'valid': {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#request('valid', id, this.#validCall());
      }
      case 'bad-params': {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#request('bad-params', id, this.#badParamsCall());
      }
      case 'unknown-method':
        return this.#unknownMethod();
      case 'bad-id':
        return this.#badId();
      case 'bad-method':
        return this.#badMethod();
      case 'bad-jsonrpc':
        return this.#badJsonrpc();
      case 'bad-params-type':
        return this.#badParamsType();
      case 'no-method': {
        const id = this.#freshId();
        this.#recent.push(id);
        const frame = rng.chance(0.5) ? { jsonrpc: '2.0', id } : { jsonrpc: '2.0', id, params: {} };
        return this.#frame('no-method', frame, [{ id, outcome: -32600 }]);
      }
      case 'non-object':
        return this.#frame('non-object', rng.pick<unknown>([1, 'text', true, null, 0, {}, -1.5]), [
          { id: null, outcome: -32600 },
        ]);
      case 'notification':
        return this.#notification();
      case 'bad-notification':
        return this.#badNotification();
      case 'client-response':
        return this.#clientResponse();
      case 'garbage':
        return this.#garbage();
      case 'invalid-utf8':
        return this.#invalidUtf8();
      case 'empty-line':
        return this.#emptyLine();
      case 'huge-number':
        return this.#hugeNumber();
      case 'deep-nesting':
        return this.#deepNesting();
      case 'deep-anywhere':
        return this.#deepAnywhere();
      case 'giant':
        return this.#giant();
      case 'era-mismatch':
        return this.#eraMismatch();
      case 'envelope':
        return this.#brokenEnvelope();
      case 'batch':
        return this.#batch();
      case 'slow':
        return this.#slow();
      case 'duplicate':
        return this.#duplicate();
      case 'cancel':
        return this.#cancel();
      case 'release':
        return this.#release();
      case 'reuse':
        return this.#reuse();
      case 'listen':
        return this.#listen();
      default:
        return this.#specialId();
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Building frames

  /** A frame item from a value (serialized, Raw parts spliced) or exact bytes. */
  #frame(
    label: string,
    value: unknown,
    answers: Answer[],
    options: { bytes?: string | Buffer; batch?: boolean } = {},
  ): FrameItem {
    const data = options.bytes ?? serialize(value);
    const item: FrameItem = {
      type: 'frame',
      label,
      data,
      eol: this.#rng.chance(0.1) ? '\r\n' : '\n',
      answers,
      batch: options.batch ?? false,
      requests: answers.filter((answer) => answer.id !== null).length,
    };
    if (this.#http && !this.#legacy) item.headers = this.#routingHeaders(value);
    return this.#sized(item);
  }

  /** A frame past the cap is refused whole: -32700 on stdio, 413 (-32600) over HTTP; nothing in it is served. */
  #sized(item: FrameItem): FrameItem {
    const bytes = typeof item.data === 'string' ? Buffer.byteLength(item.data) : item.data.length;
    if (bytes + (item.eol === '\r\n' ? 1 : 0) <= this.profile.maxFrameBytes) return item;
    item.label = `${item.label}:oversized`;
    item.answers = [{ id: null, outcome: this.#http ? -32600 : -32700 }];
    item.requests = 0;
    item.batch = false;
    delete item.hold;
    delete item.listen;
    item.createsSession = false;
    return item;
  }

  /** Modern HTTP routing headers mirrored from the body (left out when too long for a header block). */
  #routingHeaders(value: unknown): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN };
    if (!isPlainObject(value)) return headers;
    const params = isPlainObject(value.params) ? value.params : undefined;
    const meta = params?._meta;
    if (isPlainObject(meta) && Object.hasOwn(meta, PROTOCOL_VERSION)) {
      const claimed = meta[PROTOCOL_VERSION];
      if (typeof claimed === 'string' && /^[\x21-\x7e]{1,64}$/.test(claimed)) headers['mcp-protocol-version'] = claimed;
    }
    if (typeof value.method === 'string') {
      const method = headerValue(value.method);
      if (method.length <= MAX_HEADER_VALUE) headers['mcp-method'] = method;
    }
    const source =
      value.method === 'resources/read'
        ? 'uri'
        : value.method === 'tools/call' || value.method === 'prompts/get'
          ? 'name'
          : undefined;
    const name = source === undefined ? undefined : params?.[source];
    if (typeof name === 'string') {
      const encoded = headerValue(name);
      if (encoded.length <= MAX_HEADER_VALUE) headers['mcp-name'] = encoded;
    }
    return headers;
  }

  /**
   * A request of `call` with `id`, in this profile's era (modern: with an envelope), and its expected outcome as this
   * transport reports it.
   */
  #request(label: string, id: Id, call: Call, meta: Record<string, unknown> = {}): FrameItem {
    const params: Record<string, unknown> = { ...call.params };
    if (this.#legacy) {
      if (Object.keys(meta).length > 0) params._meta = meta;
    } else {
      params._meta = envelope({ ...this.#envelopeExtras(), ...meta });
    }
    const frame =
      call.params === undefined && this.#legacy && Object.keys(meta).length === 0
        ? { jsonrpc: '2.0', id, method: call.method }
        : { jsonrpc: '2.0', id, method: call.method, params };
    return this.#frame(label, frame, [{ id, outcome: this.#modernHttpOutcome(frame, call.outcome) }]);
  }

  /** Optional envelope keys: client info, log level, a progress token, trace context. */
  #envelopeExtras(): Record<string, unknown> {
    const rng = this.#rng;
    const extras: Record<string, unknown> = {};
    if (rng.chance(0.3)) extras[CLIENT_INFO] = { name: rng.word(), version: '1.0' };
    if (rng.chance(0.2)) extras[LOG_LEVEL] = rng.pick(LEVELS);
    if (rng.chance(0.1)) extras.progressToken = rng.chance(0.5) ? rng.int(1000) : rng.word();
    if (rng.chance(0.1)) extras.traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    return extras;
  }

  /**
   * Modern HTTP answers a well-enveloped request whose routing header could not be sent with -32020 before looking
   * at the method; a claim whose version is not a string cannot match the version header at all.
   */
  #modernHttpOutcome(frame: Record<string, unknown>, outcome: Outcome): Outcome {
    if (!this.#http || this.#legacy) return outcome;
    const params = isPlainObject(frame.params) ? frame.params : undefined;
    const meta = params?._meta;
    if (!isPlainObject(meta) || !Object.hasOwn(meta, PROTOCOL_VERSION)) return outcome;
    const claimed = meta[PROTOCOL_VERSION];
    if (typeof claimed !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(claimed)) return -32020;
    if (envelopeCode(meta) !== undefined) return outcome;
    const headers = this.#routingHeaders(frame);
    if (headers['mcp-method'] === undefined) return -32020;
    const source =
      frame.method === 'resources/read'
        ? 'uri'
        : frame.method === 'tools/call' || frame.method === 'prompts/get'
          ? 'name'
          : undefined;
    if (source !== undefined && typeof params![source] === 'string' && headers['mcp-name'] === undefined) return -32020;
    return outcome;
  }

  /** Tool argument problems: in-band results from 2025-11-25 (and in 2026-07-28), -32602 before. */
  get #argumentProblem(): Outcome {
    return this.#version >= '2025-11-25' ? 'result' : -32602;
  }

  #validCall(): Call {
    const rng = this.#rng;
    const legacy = this.#legacy;
    const choices: string[] = [
      'tools/list',
      'echo',
      'add',
      'mirror',
      'fail',
      'resources/list',
      'resources/templates/list',
      'read-static',
      'read-item',
      'prompts/list',
      'prompts/get',
      'complete-prompt',
      'complete-resource',
    ];
    if (legacy) choices.push('ping', 'logging/setLevel', 'subscribe', 'unsubscribe', 'initialize');
    else choices.push('server/discover');
    switch (rng.pick(choices)) {
      case 'echo':
        return { method: 'tools/call', params: { name: 'echo', arguments: { text: rng.word(40) } }, outcome: 'result' };
      case 'add':
        return {
          method: 'tools/call',
          params: { name: 'add', arguments: { a: rng.int(1e6) - 5e5, b: rng.float() * 1e6 } },
          outcome: 'result',
        };
      case 'mirror':
        return {
          method: 'tools/call',
          params: { name: 'mirror', arguments: { value: rng.word(), list: [1, 'two', null, { x: rng.int(9) }] } },
          outcome: 'result',
        };
      case 'fail':
        return { method: 'tools/call', params: { name: 'fail', arguments: {} }, outcome: 'result' };
      case 'read-static':
        return { method: 'resources/read', params: { uri: 'fuzz://static' }, outcome: 'result' };
      case 'read-item':
        return { method: 'resources/read', params: { uri: `fuzz://item/${rng.int(1000)}` }, outcome: 'result' };
      case 'prompts/get':
        return { method: 'prompts/get', params: { name: 'greet', arguments: { name: rng.word() } }, outcome: 'result' };
      case 'complete-prompt':
        return {
          method: 'completion/complete',
          params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: rng.word(3) } },
          outcome: 'result',
        };
      case 'complete-resource':
        return {
          method: 'completion/complete',
          params: {
            ref: { type: 'ref/resource', uri: 'fuzz://item/{n}' },
            argument: { name: 'n', value: String(rng.int(10)) },
          },
          outcome: 'result',
        };
      case 'logging/setLevel':
        return { method: 'logging/setLevel', params: { level: rng.pick(LEVELS) }, outcome: 'result' };
      case 'subscribe':
        return { method: 'resources/subscribe', params: { uri: `fuzz://item/${rng.int(5)}` }, outcome: 'result' };
      case 'unsubscribe':
        return { method: 'resources/unsubscribe', params: { uri: `fuzz://item/${rng.int(5)}` }, outcome: 'result' };
      case 'initialize':
        // A repeat answers the first result again, whatever it carries.
        return {
          method: 'initialize',
          params: { protocolVersion: rng.word(), capabilities: {}, clientInfo: { name: 'x', version: '2' } },
          outcome: 'result',
        };
      case 'ping':
        return { method: 'ping', params: rng.chance(0.5) ? undefined : {}, outcome: 'result' };
      default: {
        const method = rng.pick([
          'tools/list',
          'resources/list',
          'resources/templates/list',
          'prompts/list',
          'server/discover',
        ]);
        return {
          method: legacy && method === 'server/discover' ? 'tools/list' : method,
          params: {},
          outcome: 'result',
        };
      }
    }
  }

  #badParamsCall(): Call {
    const rng = this.#rng;
    const legacy = this.#legacy;
    const cases: Call[] = [
      { method: 'tools/call', params: {}, outcome: -32602 },
      { method: 'tools/call', params: { name: rng.int(100) }, outcome: -32602 },
      { method: 'tools/call', params: { name: `nope-${rng.word()}` }, outcome: -32602 },
      { method: 'tools/call', params: { name: 'echo', arguments: [rng.word()] }, outcome: -32602 },
      { method: 'tools/call', params: { name: 'echo', arguments: 'text' }, outcome: -32602 },
      {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: rng.int(10) } },
        outcome: this.#argumentProblem,
      },
      { method: 'tools/call', params: { name: 'echo', arguments: {} }, outcome: this.#argumentProblem },
      { method: 'tools/call', params: { name: 'slow', arguments: { gate: 'soon' } }, outcome: this.#argumentProblem },
      { method: 'resources/read', params: {}, outcome: -32602 },
      { method: 'resources/read', params: { uri: rng.int(9) }, outcome: -32602 },
      { method: 'resources/read', params: { uri: `fuzz://nope/${rng.word()}` }, outcome: legacy ? -32002 : -32602 },
      { method: 'prompts/get', params: { name: `nope-${rng.word()}` }, outcome: -32602 },
      { method: 'prompts/get', params: { name: 'greet' }, outcome: -32602 },
      { method: 'prompts/get', params: { name: 'greet', arguments: { name: rng.int(9) } }, outcome: -32602 },
      { method: 'prompts/get', params: { name: 'greet', arguments: [] }, outcome: -32602 },
      { method: 'completion/complete', params: {}, outcome: -32602 },
      {
        method: 'completion/complete',
        params: { ref: { type: 'ref/x' }, argument: { name: 'a', value: 'b' } },
        outcome: -32602,
      },
      { method: 'tools/list', params: { cursor: rng.word() }, outcome: -32602 },
      { method: 'prompts/list', params: { cursor: rng.int(99) }, outcome: -32602 },
    ];
    if (legacy) {
      cases.push({ method: 'logging/setLevel', params: { level: 'loud' }, outcome: -32602 });
      cases.push({ method: 'resources/subscribe', params: {}, outcome: -32602 });
    } else {
      cases.push({ method: 'subscriptions/listen', params: { notifications: rng.int(9) }, outcome: -32602 });
      cases.push({
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: 'yes' } },
        outcome: -32602,
      });
    }
    return rng.pick(cases);
  }

  #unknownMethod(): FrameItem {
    const rng = this.#rng;
    const id = this.#freshId();
    this.#recent.push(id);
    const method = rng.pick([
      `nope/${rng.word()}`,
      rng.word(),
      'tasks/list',
      'tools/List',
      ' tools/list',
      'rpc.discover',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'toString',
    ]);
    return this.#request('unknown-method', id, { method, params: {}, outcome: -32601 });
  }

  /** The request's id is unreadable: answered with id null. */
  #badId(): FrameItem {
    const rng = this.#rng;
    const method = rng.pick(['ping', 'tools/list', 'tools/call']);
    const id = rng.pick<unknown>([
      {},
      { id: 1 },
      [],
      [1],
      true,
      false,
      null,
      1.5,
      -0.25,
      1e308,
      -1e308,
      raw('9007199254740993'),
      raw('1e400'),
      raw('-1e400'),
      raw('2e-320'),
    ]);
    return this.#frame('bad-id', { jsonrpc: '2.0', id, method, params: {} }, [{ id: null, outcome: -32600 }]);
  }

  #badMethod(): FrameItem {
    const id = this.#freshId();
    this.#recent.push(id);
    const method = this.#rng.pick<unknown>([1, 0, null, true, '', {}, ['tools/list'], { method: 'ping' }]);
    return this.#frame('bad-method', { jsonrpc: '2.0', id, method }, [{ id, outcome: -32600 }]);
  }

  #badJsonrpc(): FrameItem {
    const id = this.#freshId();
    this.#recent.push(id);
    const jsonrpc = this.#rng.pick<unknown>(['1.0', '2', 2, 2.0, null, undefined, '2.0 ', {}]);
    const frame: Record<string, unknown> = { id, method: 'tools/list' };
    if (jsonrpc !== undefined) frame.jsonrpc = jsonrpc;
    return this.#frame('bad-jsonrpc', frame, [{ id, outcome: -32600 }]);
  }

  #badParamsType(): FrameItem {
    const id = this.#freshId();
    this.#recent.push(id);
    const params = this.#rng.pick<unknown>([[], [1, 2], 'params', 5, true, null]);
    return this.#frame(
      'bad-params-type',
      { jsonrpc: '2.0', id, method: this.#rng.pick(['tools/list', 'ping', 'tools/call']), params },
      [{ id, outcome: -32600 }],
    );
  }

  /** Notifications never get an answer (cancels of ids nothing uses, unknown ones, a repeated initialized). */
  #notification(): FrameItem {
    const rng = this.#rng;
    const method = rng.pick([
      'notifications/cancelled',
      'notifications/cancelled',
      'notifications/initialized',
      'notifications/progress',
      'notifications/roots/list_changed',
      `notifications/${rng.word()}`,
      'tools/list',
    ]);
    let params: Record<string, unknown> | undefined;
    if (method === 'notifications/cancelled') {
      params = rng.pick<Record<string, unknown>>([
        { requestId: this.#ghostId(), reason: rng.word() },
        { requestId: { x: 1 } },
        {},
        { requestId: null },
      ]);
    } else if (method === 'notifications/progress') {
      params = { progressToken: rng.word(), progress: rng.int(10) };
    } else if (rng.chance(0.5)) {
      params = {};
    }
    return this.#frame(
      'notification',
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
      [],
    );
  }

  /** A notification-shaped frame that is invalid: answered with id null. */
  #badNotification(): FrameItem {
    const rng = this.#rng;
    const frame = rng.pick<Record<string, unknown>>([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: [1] },
      { jsonrpc: '2.0', method: 'notifications/initialized', params: 'x' },
      { jsonrpc: '1.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: '' },
      { jsonrpc: '2.0', method: 7 },
    ]);
    return this.#frame('bad-notification', frame, [{ id: null, outcome: -32600 }]);
  }

  /** Responses from the client answer nothing here: dropped (modern HTTP refuses them); malformed ones are answered. */
  #clientResponse(): FrameItem {
    const rng = this.#rng;
    const refused: Answer[] = this.#http && !this.#legacy ? [{ id: null, outcome: -32600 }] : [];
    switch (rng.int(5)) {
      case 0:
        return this.#frame('client-response', { jsonrpc: '2.0', id: this.#ghostId(), result: {} }, refused);
      case 1:
        return this.#frame(
          'client-response',
          { jsonrpc: '2.0', id: this.#ghostId(), error: { code: -1, message: rng.word() } },
          refused,
        );
      case 2:
        return this.#frame('client-response', { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }, refused);
      case 3: {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#frame(
          'client-response',
          { jsonrpc: '2.0', id, error: rng.pick<unknown>(['bad', { code: 1.5, message: 'x' }, { code: 1 }]) },
          [{ id, outcome: -32600 }],
        );
      }
      default:
        return this.#frame('client-response', { jsonrpc: '2.0', id: rng.pick<unknown>([{}, true, 1.5]), result: 1 }, [
          { id: null, outcome: -32600 },
        ]);
    }
  }

  /** Text that is not JSON: -32700 with id null. */
  #garbage(): FrameItem {
    const rng = this.#rng;
    const id = rng.int(1000);
    const text = rng.pick([
      `{"jsonrpc":"2.0","id":${id},"method":`,
      `{'jsonrpc':'2.0','id':${id},'method':'ping'}`,
      `{"jsonrpc":"2.0","id":${id},"method":"ping"}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"ping",}`,
      'NaN',
      'undefined',
      '[1,2',
      '"unterminated',
      'tru',
      '{"a":1} {"b":2}',
      '\u001b[31mred\u001b[0m',
      'Content-Length: 52',
      `\uFEFF{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
      `#${rng.word(60)}`,
      `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":"\u0001"}}`,
    ]);
    return this.#frame('garbage', undefined, [{ id: null, outcome: -32700 }], { bytes: text });
  }

  /** Invalid UTF-8, inside a JSON string or not: not JSON text, so -32700 with id null (the request is never read). */
  #invalidUtf8(): FrameItem {
    const rng = this.#rng;
    // A continuation byte (0x80-0xbf) where a character must start is never UTF-8, whatever follows it.
    const bad = Buffer.from([0x80 + rng.int(0x40), ...Array.from({ length: rng.int(16) }, () => 0x80 + rng.int(0x80))]);
    if (rng.chance(0.5)) {
      const frame = this.#request('invalid-utf8', this.#ghostId(), {
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: '@@BYTES@@' } },
        outcome: 'result',
      });
      const [before, after] = (frame.data as string).split('@@BYTES@@') as [string, string];
      frame.data = Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]);
      frame.answers = [{ id: null, outcome: -32700 }];
      frame.requests = 0;
      return frame;
    }
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      bad,
      Buffer.from(rng.chance(0.5) ? '{"jsonrpc":"2.0"}' : ''),
    ]);
    return this.#frame('invalid-utf8', undefined, [{ id: null, outcome: -32700 }], { bytes });
  }

  /** Blank lines are skipped on stdio; an empty HTTP body is not JSON. */
  #emptyLine(): FrameItem {
    const text = this.#rng.pick(['', ' ', '\t', '   \t  ']);
    return this.#frame('empty-line', undefined, this.#http ? [{ id: null, outcome: -32700 }] : [], { bytes: text });
  }

  /** Extreme numbers as arguments (the tool sees what JSON.parse made of them). */
  #hugeNumber(): FrameItem {
    const rng = this.#rng;
    const id = this.#freshId();
    this.#recent.push(id);
    const a = rng.pick([
      1e308,
      -1e308,
      raw('-0'),
      raw('9007199254740993'),
      raw('1e400'),
      raw('5e-324'),
      Number.MAX_SAFE_INTEGER,
      raw('123456789012345678901234567890'),
    ]);
    const b = rng.pick([1e308, raw('-0'), 0.1, -1]);
    // Infinity (from 1e400) is not a JSON number the schema accepts everywhere: any precise answer will do.
    const odd = a instanceof Raw && /e4/.test(a.text);
    return this.#request('huge-number', id, {
      method: 'tools/call',
      params: { name: 'add', arguments: { a, b } },
      outcome: odd ? 'any' : 'result',
    });
  }

  #deepNesting(): FrameItem {
    const rng = this.#rng;
    const depth = rng.chance(0.1) ? 100_000 : 10_000;
    switch (rng.int(6)) {
      case 0: {
        // A top-level nest is an array: a batch of one invalid element, or a refused batch.
        if (this.#batchAccepted())
          return this.#frame('deep-batch', undefined, [{ id: null, outcome: -32600 }], {
            bytes: nestedArrays(depth),
            batch: true,
          });
        return this.#frame('deep-batch', undefined, [{ id: null, outcome: -32600 }], { bytes: nestedArrays(depth) });
      }
      case 1:
        return this.#frame('deep-id', { jsonrpc: '2.0', id: raw(nestedArrays(depth)), method: 'ping' }, [
          { id: null, outcome: -32600 },
        ]);
      case 2: {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#frame('deep-method', { jsonrpc: '2.0', id, method: raw(nestedObjects(depth)) }, [
          { id, outcome: -32600 },
        ]);
      }
      case 3: {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#request('deep-argument', id, {
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: 'deep', nest: raw(nestedArrays(depth)) } },
          outcome: 'result',
        });
      }
      case 4: {
        const id = this.#freshId();
        this.#recent.push(id);
        return this.#request('deep-name', id, {
          method: 'tools/call',
          params: { name: raw(nestedObjects(depth)) },
          outcome: -32602,
        });
      }
      default: {
        const id = this.#freshId();
        this.#recent.push(id);
        // Reflected into structuredContent, too deep to serialize: the server must still answer, with the generic
        // -32603. Before 2025-06-18 there is no structuredContent, so the answer is a plain result.
        const structured = this.profile.era === 'modern' || (this.profile.legacyVersion ?? '') >= '2025-06-18';
        return this.#request('deep-mirror', id, {
          method: 'tools/call',
          params: { name: 'mirror', arguments: { nest: raw(nestedArrays(depth)) } },
          outcome: structured ? -32603 : 'result',
        });
      }
    }
  }

  /** A valid call whose handler only reads its params (every one but the mirror tool, which writes them back). */
  #readingCall(): Call {
    let call: Call;
    do call = this.#validCall();
    while (call.params?.name === 'mirror');
    return call;
  }

  /** A nest of arrays or objects 10 000 (sometimes 100 000) levels deep: deeper than any recursion can follow. */
  #deepValue(): Raw {
    const depth = this.#rng.chance(0.1) ? 100_000 : 10_000;
    return raw(this.#rng.chance(0.5) ? nestedArrays(depth) : nestedObjects(depth));
  }

  /**
   * A deep value wherever a peer may put any JSON: a request's params or tool arguments, a `_meta` or envelope key, a
   * client response's result or error data (id null included), a notification's params. A request must still get its
   * one answer, and not the generic -32603 (a value the server only reads cannot fail it); the rest is dropped or
   * refused like its shallow twin. Never in the mirror tool: it writes its arguments back (`deep-mirror` covers that).
   */
  #deepAnywhere(): FrameItem {
    const rng = this.#rng;
    const deep = this.#deepValue();
    switch (rng.int(4)) {
      case 0: {
        const id = this.#freshId();
        this.#recent.push(id);
        const call = this.#readingCall();
        const params: Record<string, unknown> = { ...call.params };
        const inArguments = isPlainObject(params.arguments) && rng.chance(0.5);
        const target = inArguments
          ? ((params.arguments = { ...(params.arguments as Record<string, unknown>) }) as Record<string, unknown>)
          : params;
        const keys = Object.keys(target);
        target[keys.length > 0 && rng.chance(0.7) ? rng.pick(keys) : rng.word()] = deep;
        return this.#request('deep-param', id, { method: call.method, params, outcome: 'any' });
      }
      case 1: {
        const id = this.#freshId();
        this.#recent.push(id);
        const call = this.#readingCall();
        const keys = this.#legacy
          ? ['progressToken', rng.word()]
          : [PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO, LOG_LEVEL, 'progressToken', rng.word()];
        return this.#request('deep-meta', id, { ...call, outcome: 'any' }, { [rng.pick(keys)]: deep });
      }
      case 2: {
        const refused: Answer[] = this.#http && !this.#legacy ? [{ id: null, outcome: -32600 }] : [];
        const frame = rng.pick<Record<string, unknown>>([
          { jsonrpc: '2.0', id: null, error: { code: -32000, message: rng.word(), data: deep } },
          { jsonrpc: '2.0', id: this.#ghostId(), error: { code: -1, message: rng.word(), data: deep } },
          { jsonrpc: '2.0', id: this.#ghostId(), result: deep },
          { jsonrpc: '2.0', id: this.#ghostId(), result: { _meta: deep } },
        ]);
        return this.#frame('deep-response', frame, refused);
      }
      default: {
        const frame = rng.pick<Record<string, unknown>>([
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: deep } },
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: this.#ghostId(), reason: deep } },
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: deep, progress: 1 } },
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: rng.word(), progress: deep } },
          { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: deep } },
          { jsonrpc: '2.0', method: 'notifications/initialized', params: { [rng.word()]: deep } },
          { jsonrpc: '2.0', method: `notifications/${rng.word()}`, params: { value: deep } },
        ]);
        return this.#frame('deep-notification', frame, []);
      }
    }
  }

  /** Strings of 64 KiB to 1 MiB: some fit the frame cap, some do not. */
  #giant(): FrameItem {
    const rng = this.#rng;
    const max = this.profile.maxFrameBytes;
    // Well clear of the cap on either side, so the expectation never hangs on a byte.
    const size = rng.chance(0.5)
      ? rng.range(64 * 1024, Math.floor(max * 0.8))
      : rng.range(Math.ceil(max * 1.2), Math.max(Math.ceil(max * 1.2), 1024 * 1024));
    const text = rng
      .word(16)
      .repeat(Math.ceil(size / 16))
      .slice(0, size);
    const id = this.#freshId();
    switch (rng.int(3)) {
      case 0:
        this.#recent.push(id);
        return this.#request('giant', id, {
          method: 'tools/call',
          params: { name: 'echo', arguments: { text } },
          outcome: 'result',
        });
      case 1:
        this.#recent.push(id);
        return this.#request('giant', id, { method: `nope/${text}`, params: {}, outcome: -32601 });
      default: {
        const giantId = `${id}-${text}`;
        return this.#request('giant', giantId, {
          method: this.#legacy ? 'ping' : 'server/discover',
          params: {},
          outcome: 'result',
        });
      }
    }
  }

  /** A request of the other era: refused with the error this connection's era defines. */
  #eraMismatch(): FrameItem {
    const rng = this.#rng;
    const id = this.#freshId();
    this.#recent.push(id);
    if (this.#legacy) {
      // An envelope on a legacy connection.
      const method = rng.pick(['tools/list', 'server/discover', 'ping', 'resources/list']);
      const frame = { jsonrpc: '2.0', id, method, params: { _meta: envelope() } };
      return this.#frame('era-mismatch', frame, [{ id, outcome: this.#claimOnLegacy(MODERN) }]);
    }
    switch (rng.int(4)) {
      case 0: {
        // No envelope on a modern connection.
        const method = rng.pick(['tools/list', 'ping', 'resources/list', 'tools/call']);
        return this.#frame('era-mismatch', { jsonrpc: '2.0', id, method, params: {} }, [{ id, outcome: -32602 }]);
      }
      case 1: {
        // _meta that is not an object carries no envelope.
        const meta = rng.pick<unknown>(['x', 5, null, [], [PROTOCOL_VERSION]]);
        return this.#frame('era-mismatch', { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } }, [
          { id, outcome: -32602 },
        ]);
      }
      case 2: {
        // A method the modern era removed, under a valid envelope.
        const method = rng.pick(REMOVED_IN_MODERN);
        return this.#request('era-mismatch', id, { method, params: {}, outcome: -32601 });
      }
      default: {
        // The 2025 handshake on a modern connection; over HTTP it opens a 2025 session (body-primary era).
        const valid = rng.chance(0.5);
        const params = valid
          ? { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } }
          : { protocolVersion: 5 };
        if (this.#http) {
          const item = this.#frame('era-mismatch', { jsonrpc: '2.0', id, method: 'initialize', params }, [
            { id, outcome: valid ? 'result' : -32602 },
          ]);
          item.createsSession = valid;
          return item;
        }
        return this.#frame('era-mismatch', { jsonrpc: '2.0', id, method: 'initialize', params }, [
          { id, outcome: -32022 },
        ]);
      }
    }
  }

  /** The error an enveloped request gets on a legacy connection. */
  #claimOnLegacy(claimed: unknown): Outcome {
    if (!this.#http) return -32600;
    // Legacy HTTP: the version header (the negotiated version) must equal the claim; if it does, the envelope is read.
    if (claimed !== this.profile.legacyVersion) return -32020;
    return -32022;
  }

  /** Envelopes broken in each way the spec orders: version type, version value, capabilities, client info, log level. */
  #brokenEnvelope(): FrameItem {
    const rng = this.#rng;
    const id = this.#freshId();
    this.#recent.push(id);
    const meta: Record<string, unknown> = envelope();
    switch (rng.int(8)) {
      case 0:
        meta[PROTOCOL_VERSION] = rng.pick<unknown>([5, null, {}, ['2026-07-28']]);
        break;
      case 1:
        meta[PROTOCOL_VERSION] = rng.pick([
          '2025-11-25',
          '2099-01-01',
          'latest',
          this.profile.legacyVersion,
          '2026-07-28x',
        ]);
        break;
      case 2:
        delete meta[CLIENT_CAPABILITIES];
        break;
      case 3:
        meta[CLIENT_CAPABILITIES] = rng.pick<unknown>([null, [], 'all', 1]);
        break;
      case 4:
        meta[CLIENT_INFO] = rng.pick<unknown>([{ name: 1, version: '1' }, 'me', { name: 'x' }]);
        break;
      case 5:
        meta[LOG_LEVEL] = rng.pick<unknown>(['loud', 3, 'INFO']);
        break;
      case 6:
        meta[CLIENT_CAPABILITIES] = JSON.parse(nestedObjects(50));
        break;
      default:
        meta[PROTOCOL_VERSION] = rng.pick(['', ' 2026-07-28']);
        break;
    }
    const method = rng.pick([
      'tools/list',
      'tools/call',
      'server/discover',
      'ping',
      'initialize',
      `nope/${rng.word()}`,
    ]);
    const params = method === 'tools/call' ? { name: 'echo', arguments: { text: 'x' }, _meta: meta } : { _meta: meta };
    const frame = { jsonrpc: '2.0', id, method, params };
    if (this.#legacy)
      return this.#frame('envelope', frame, [{ id, outcome: this.#claimOnLegacy(meta[PROTOCOL_VERSION]) }]);
    const code = envelopeCode(meta);
    let outcome: Outcome;
    if (code !== undefined) outcome = code;
    else if (REMOVED_IN_MODERN.includes(method) || method.startsWith('nope/')) outcome = -32601;
    else outcome = 'result';
    return this.#frame('envelope', frame, [{ id, outcome: this.#modernHttpOutcome(frame, outcome) }]);
  }

  /** Whether this connection serves a batch (2025-03-26 only, after the handshake; never on a modern connection). */
  #batchAccepted(): boolean {
    return this.#legacy && this.#decided && this.profile.legacyVersion === '2025-03-26';
  }

  #batch(): FrameItem {
    const rng = this.#rng;
    if (rng.chance(0.1)) return this.#frame('batch-empty', [], [{ id: null, outcome: -32600 }]);
    const size = rng.range(1, 6);
    const elements: unknown[] = [];
    const answers: Answer[] = [];
    const accepted = this.#batchAccepted();
    let refusedWhole = !accepted;
    let label = 'batch';
    for (let i = 0; i < size; i++) {
      const kind = rng.weighted<string>([
        [5, 'valid'],
        [2, 'invalid'],
        [1, 'invalid-null'],
        [1, 'notification'],
        [1, 'response'],
        [0.5, 'claim'],
        [0.3, 'initialize'],
        [1, 'duplicate'],
      ]);
      switch (kind) {
        case 'valid': {
          const id = this.#freshId();
          this.#recent.push(id);
          const call = this.#legacy
            ? this.#validCall()
            : { method: 'tools/list', params: {}, outcome: 'result' as Outcome };
          if (call.method === 'initialize') {
            elements.push({ jsonrpc: '2.0', id, method: 'ping' });
          } else {
            elements.push(
              call.params === undefined
                ? { jsonrpc: '2.0', id, method: call.method }
                : { jsonrpc: '2.0', id, method: call.method, params: call.params },
            );
          }
          answers.push({ id, outcome: call.method === 'initialize' ? 'result' : call.outcome });
          break;
        }
        case 'invalid': {
          const id = this.#freshId();
          this.#recent.push(id);
          elements.push({ jsonrpc: '2.0', id, method: rng.pick<unknown>([5, null, '']) });
          answers.push({ id, outcome: -32600 });
          label = 'batch-invalid';
          break;
        }
        case 'invalid-null':
          elements.push(rng.pick<unknown>([1, 'x', null, { jsonrpc: '2.0', id: true, method: 'ping' }]));
          answers.push({ id: null, outcome: -32600 });
          label = 'batch-invalid';
          break;
        case 'notification':
          elements.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: this.#ghostId() } });
          break;
        case 'response':
          elements.push({ jsonrpc: '2.0', id: this.#ghostId(), result: {} });
          break;
        case 'claim': {
          const id = this.#freshId();
          elements.push({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: envelope() } });
          refusedWhole = true;
          break;
        }
        case 'initialize': {
          const id = this.#freshId();
          elements.push({
            jsonrpc: '2.0',
            id,
            method: 'initialize',
            params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
          });
          refusedWhole = true;
          break;
        }
        default: {
          const held = this.#heldIds();
          if (held.length === 0) break;
          const id = rng.pick(held);
          elements.push({ jsonrpc: '2.0', id, method: 'tools/list' });
          answers.push({ id, outcome: this.#http && !this.#legacy ? 'result' : -32600 });
          label = 'batch-duplicate';
          break;
        }
      }
    }
    if (elements.length === 0) elements.push({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (refusedWhole) {
      // Nothing in a refused batch is served; the refusal itself has id null.
      return this.#frame('batch-refused', elements, [{ id: null, outcome: -32600 }]);
    }
    const item = this.#frame(label, elements, answers, { batch: true });
    return item;
  }

  #heldIds(): Id[] {
    const ids = [...this.#held.values()];
    return this.#http ? ids : [...ids, ...this.#listens];
  }

  /** A slow tools/call that waits for its gate (sometimes with a progress token: it reports progress when it starts). */
  #slow(): FuzzItem | undefined {
    if (this.#held.size >= this.#maxHeld) return this.#release();
    const id = this.#freshId();
    const gate = ++this.#gates;
    const meta: Record<string, unknown> = {};
    if (this.#rng.chance(0.3)) meta.progressToken = this.#rng.chance(0.5) ? gate : `p-${gate}`;
    const item = this.#request(
      'slow',
      id,
      { method: 'tools/call', params: { name: 'slow', arguments: { gate } }, outcome: 'result' },
      meta,
    );
    if (item.answers[0]!.id === null || item.label.endsWith(':oversized')) return item;
    item.hold = { gate, id };
    this.#held.set(gate, id);
    return item;
  }

  /** A request reusing the id of one still in flight: refused once (modern HTTP: separate exchanges, served). */
  #duplicate(): FrameItem | undefined {
    const held = this.#heldIds();
    if (held.length === 0) return undefined;
    const id = this.#rng.pick(held);
    const modernHttp = this.#http && !this.#legacy;
    const item = this.#request('duplicate', id, {
      method: 'tools/list',
      params: {},
      outcome: modernHttp ? 'result' : -32600,
    });
    item.duplicateOf = id;
    return item;
  }

  #cancel(): CancelItem | undefined {
    const rng = this.#rng;
    const candidates: { gate: number | undefined; id: Id }[] = [...this.#held].map(([gate, id]) => ({ gate, id }));
    if (!this.#http) for (const id of this.#listens) candidates.push({ gate: undefined, id });
    if (candidates.length === 0) return undefined;
    const { gate, id } = rng.pick(candidates);
    if (gate !== undefined) this.#held.delete(gate);
    else this.#listens.splice(this.#listens.indexOf(id), 1);
    this.#recent.push(id); // no longer in flight once the barrier has passed
    if (this.#http && !this.#legacy) return { type: 'cancel', id, gate, frame: undefined };
    const params: Record<string, unknown> = { requestId: id };
    if (rng.chance(0.5)) params.reason = rng.word();
    const frame = this.#frame('cancel', { jsonrpc: '2.0', method: 'notifications/cancelled', params }, []);
    return { type: 'cancel', id, gate, frame };
  }

  #release(): ReleaseItem | undefined {
    if (this.#held.size === 0) return undefined;
    const gate = this.#rng.pick([...this.#held.keys()]);
    this.#recent.push(this.#held.get(gate)!);
    this.#held.delete(gate);
    return { type: 'release', gate };
  }

  /** A request reusing an id answered before the last barrier: served like a fresh one. */
  #reuse(): FrameItem | undefined {
    if (this.#reusable.length === 0) return undefined;
    const index = this.#rng.int(this.#reusable.length);
    const id = this.#reusable[index]!;
    this.#reusable.splice(index, 1);
    this.#recent.push(id);
    const item = this.#request('reuse', id, this.#validCall());
    item.reuse = true;
    return item;
  }

  /** A subscriptions/listen stream (modern): acknowledged at once, answered with its final result at the drain. */
  #listen(): FrameItem | undefined {
    if (this.#legacy || this.#listens.length >= this.#maxListens) return undefined;
    const id = this.#freshId();
    const item = this.#request('listen', id, {
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true } },
      outcome: 'result',
    });
    if (item.label.endsWith(':oversized')) return item;
    item.listen = id;
    this.#listens.push(id);
    return item;
  }

  /** Ids the falsy-value pitfalls trip on: 0 (or -0, which is 0), "" and the largest safe integer; each once. */
  #specialId(): FrameItem | undefined {
    const which = this.#rng.pick(['zero', 'empty', 'max']);
    if (this.#once.has(which)) return undefined;
    this.#once.add(which);
    const id: Id = which === 'zero' ? 0 : which === 'empty' ? '' : Number.MAX_SAFE_INTEGER;
    const call = this.#validCall();
    const item = this.#request('special-id', id, call);
    if (which === 'zero' && this.#rng.chance(0.5) && typeof item.data === 'string') {
      item.data = item.data.replace('"id":0,', '"id":-0,');
    }
    return item;
  }
}
