// The 2025 (legacy) lifecycle of one connection: the initialize handshake and version negotiation, the gate
// before it, the idempotent repeat, capabilities as advertised, log level, resource subscriptions, change
// notifications and the legacy method table. Owns only this connection's lifecycle state; never writes a
// field the negotiated version does not define, and never serves what it did not advertise.

import type { Dispatcher, InboundRequest } from './dispatcher.ts';
import { ErrorCode, ProtocolError, invalidParams, isRequestId, methodNotFound, type JsonRpcErrorObject, type JsonRpcNotification } from './jsonrpc.ts';
import * as features from './features.ts';
import { InputRequired, requiredCapabilities, type InputRequest } from './input.ts';
import type { ChangeEvent } from './registry.ts';
import {
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  LOGGING_LEVELS,
  MissingCapabilityError,
  type ClientCapabilities,
  type Context,
  type Implementation,
  type LoggingLevel,
  type RequestOptions,
} from './types.ts';

export interface LegacyOptions {
  maxSubscriptions: number;
}

type Phase = 'awaiting-initialize' | 'initialized';

interface Advertised {
  tools: boolean;
  resources: boolean;
  prompts: boolean;
  logging: boolean;
  completions: boolean;
}

type Shaped = Record<string, unknown>;
type Method = (lifecycle: LegacyLifecycle, request: InboundRequest) => unknown;

/** Methods served after the handshake, each behind the capability that advertises it. */
const METHODS: Record<string, { capability: keyof Advertised | undefined; serve: Method }> = {
  'tools/list': { capability: 'tools', serve: (l, r) => features.listTools(l.model, r.params, l.version) },
  'tools/call': {
    capability: 'tools',
    serve: (l, r) => l.withInput(r, (ctx) => features.callTool(l.model, r.params, ctx)).catch((error: unknown) => {
      // Asking the client failed (capability missing, refused, timed out, too many rounds): a tool failure.
      if (!(error instanceof InputRoundError)) throw error;
      l.model.settings.logger.error(`tool '${String(r.params.name)}' could not get its input`, error.cause);
      return features.toolFailureResult(error.message, l.version);
    }),
  },
  'resources/list': { capability: 'resources', serve: (l, r) => features.listResources(l.model, r.params, l.version) },
  'resources/templates/list': {
    capability: 'resources',
    serve: (l, r) => features.listResourceTemplates(l.model, r.params, l.version),
  },
  'resources/read': {
    capability: 'resources',
    serve: (l, r) => l.withInput(r, (ctx) => features.readResource(l.model, r.params, ctx)),
  },
  'resources/subscribe': { capability: 'resources', serve: (l, r) => l.subscribe(r.params) },
  'resources/unsubscribe': { capability: 'resources', serve: (l, r) => l.unsubscribe(r.params) },
  'prompts/list': { capability: 'prompts', serve: (l, r) => features.listPrompts(l.model, r.params, l.version) },
  'prompts/get': { capability: 'prompts', serve: (l, r) => l.withInput(r, (ctx) => features.getPrompt(l.model, r.params, ctx)) },
  'completion/complete': { capability: 'completions', serve: (l, r) => features.complete(l.model, r.params, 'legacy') },
  'logging/setLevel': { capability: 'logging', serve: (l, r) => l.setLevel(r.params) },
  ping: { capability: undefined, serve: () => ({}) },
};

const EMPTY_RESULT = Object.freeze({});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isImplementation(value: unknown): value is Implementation {
  return isPlainObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}

export function negotiateVersion(requested: string): string {
  return (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST_LEGACY_VERSION;
}

export class LegacyLifecycle {
  readonly model: features.ServerModel;
  readonly #dispatcher: Dispatcher;
  readonly #options: LegacyOptions;
  #phase: Phase = 'awaiting-initialize';
  version = LATEST_LEGACY_VERSION;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined;
  #advertised: Advertised | undefined;
  #initializeResult: Shaped | undefined;
  #logLevel = LOGGING_LEVELS.indexOf('info');
  readonly #subscriptions = new Set<string>();

  constructor(model: features.ServerModel, dispatcher: Dispatcher, options: LegacyOptions) {
    this.model = model;
    this.#dispatcher = dispatcher;
    this.#options = options;
  }

  get subscriptionCount(): number {
    return this.#subscriptions.size;
  }

  onRequest(request: InboundRequest): unknown {
    const { method } = request;
    if (method === 'initialize') return this.#initialize(request.params);
    const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (this.#phase === 'awaiting-initialize') {
      if (method === 'ping') return EMPTY_RESULT;
      if (entry === undefined) throw methodNotFound(method);
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid Request: server not initialized; send initialize first');
    }
    if (entry === undefined || (entry.capability !== undefined && !this.#advertised![entry.capability])) {
      throw methodNotFound(method);
    }
    return entry.serve(this, request);
  }

  onNotification(message: JsonRpcNotification): void {
    // Before the handshake every notification is dropped, cancels included (pitfalls P16).
    if (this.#phase === 'awaiting-initialize') return;
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (isRequestId(requestId)) this.#dispatcher.cancel(requestId);
    }
  }

  checkBatch(items: unknown[]): JsonRpcErrorObject | undefined {
    if (this.#phase !== 'initialized' || this.version !== '2025-03-26') {
      return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: batches are accepted only under protocol 2025-03-26' };
    }
    if (items.some((item) => isPlainObject(item) && item.method === 'initialize')) {
      return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: initialize must not be part of a batch' };
    }
    return undefined;
  }

  /** The handshake commits only when the whole request is valid; a repeat answers the first result again. */
  #initialize(params: Record<string, unknown>): Shaped {
    if (this.#initializeResult !== undefined) return this.#initializeResult;
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== 'string') throw invalidParams('params.protocolVersion must be a string');
    if (!isPlainObject(capabilities)) throw invalidParams('params.capabilities must be an object');
    if (!isImplementation(clientInfo)) throw invalidParams('params.clientInfo must be {name: string, version: string}');
    const version = negotiateVersion(protocolVersion);
    const { model } = this;
    const advertised: Advertised = { ...features.servedFeatures(model, 'legacy'), logging: model.settings.logging };
    const result: Shaped = {
      protocolVersion: version,
      capabilities: this.#capabilities(advertised, version),
      serverInfo: features.shapeImplementation(model.info, version),
    };
    if (model.instructions !== undefined) result.instructions = model.instructions;
    this.version = version;
    this.clientCapabilities = capabilities;
    this.clientInfo = clientInfo;
    this.#advertised = advertised;
    this.#initializeResult = result;
    this.#phase = 'initialized';
    return result;
  }

  /** Stateless HTTP: serve as if a client without capabilities had initialized at `version`. */
  assumeInitialized(version: string): void {
    this.#initialize({ protocolVersion: version, capabilities: {}, clientInfo: { name: 'stateless', version: '0' } });
  }

  get initialized(): boolean {
    return this.#phase === 'initialized';
  }

  #capabilities(advertised: Advertised, version: string): Shaped {
    const capabilities: Shaped = {};
    if (advertised.logging) capabilities.logging = {};
    // completion/complete predates its capability, which 2025-03-26 introduced.
    if (advertised.completions && features.since(version, '2025-03-26')) capabilities.completions = {};
    if (advertised.prompts) capabilities.prompts = { listChanged: true };
    if (advertised.resources) capabilities.resources = { subscribe: true, listChanged: true };
    if (advertised.tools) capabilities.tools = { listChanged: true };
    return capabilities;
  }

  setLevel(params: Record<string, unknown>): object {
    const level = LOGGING_LEVELS.indexOf(params.level as LoggingLevel);
    if (level < 0) throw invalidParams(`params.level must be one of ${LOGGING_LEVELS.join(', ')}`);
    this.#logLevel = level;
    return EMPTY_RESULT;
  }

  subscribe(params: Record<string, unknown>): object {
    if (typeof params.uri !== 'string') throw invalidParams('params.uri must be a string');
    if (!this.#subscriptions.has(params.uri) && this.#subscriptions.size >= this.#options.maxSubscriptions) {
      throw new ProtocolError(ErrorCode.InternalError, 'Subscription limit reached');
    }
    this.#subscriptions.add(params.uri);
    return EMPTY_RESULT;
  }

  unsubscribe(params: Record<string, unknown>): object {
    if (typeof params.uri !== 'string') throw invalidParams('params.uri must be a string');
    this.#subscriptions.delete(params.uri);
    return EMPTY_RESULT;
  }

  /** Forwards a server change to this client when it is initialized and the change concerns it. */
  onChange(event: ChangeEvent): void {
    const advertised = this.#advertised;
    if (advertised === undefined) return;
    if (event.type === 'resource') {
      if (this.#subscriptions.has(event.uri)) {
        this.#dispatcher.notify('notifications/resources/updated', { uri: event.uri });
      }
    } else if (advertised[event.type]) {
      this.#dispatcher.notify(`notifications/${event.type}/list_changed`, undefined);
    }
  }

  passesLogLevel(level: LoggingLevel): boolean {
    return this.#advertised?.logging === true && LOGGING_LEVELS.indexOf(level) >= this.#logLevel;
  }

  /**
   * Runs a handler that may answer `inputRequired(…)`: a 2025 client gets real server→client requests, and the
   * handler runs again with the answers, at most MAX_INPUT_ROUNDS times.
   */
  async withInput(request: InboundRequest, serve: (ctx: LegacyContext) => Promise<unknown>): Promise<unknown> {
    const ctx = new LegacyContext(this, request);
    for (let round = 0; ; round++) {
      const result = await serve(ctx);
      if (!(result instanceof InputRequired)) return withoutResultType(result);
      if (round === MAX_INPUT_ROUNDS) {
        throw new InputRoundError(`The request needed more than ${MAX_INPUT_ROUNDS} rounds of client input`, undefined);
      }
      try {
        ctx.inputResponses = await ctx.ask(result.inputRequests);
      } catch (error) {
        if (request.signal.aborted) throw error;
        throw new InputRoundError('The client could not provide the requested input', error);
      }
      ctx.requestState = result.state;
    }
  }
}

const MAX_INPUT_ROUNDS = 8;

/**
 * `resultType` is a 2026-07-28 field and never goes on a legacy response: a handler's "complete" (or null) is
 * dropped; any other value claims an answer the 2025 era cannot express, a server bug answered -32603.
 */
function withoutResultType(result: unknown): unknown {
  if (!isPlainObject(result) || !Object.hasOwn(result, 'resultType')) return result;
  const { resultType, ...rest } = result;
  if (resultType === 'complete' || resultType === null || resultType === undefined) return rest;
  throw new TypeError(`handler result claims resultType ${JSON.stringify(resultType)} on a 2025 connection`);
}

/** Getting input from a 2025 client failed; `cause` says why (kept off the wire). */
class InputRoundError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** The handler context on a legacy connection: real server→client requests, connection-level log threshold. */
class LegacyContext implements Context {
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;
  readonly #lifecycle: LegacyLifecycle;
  readonly #request: InboundRequest;

  constructor(lifecycle: LegacyLifecycle, request: InboundRequest) {
    this.#lifecycle = lifecycle;
    this.#request = request;
  }

  readonly era = 'legacy';

  get requestId() {
    return this.#request.id;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  get protocolVersion(): string {
    return this.#lifecycle.version;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#lifecycle.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#lifecycle.clientInfo;
  }

  progress(progress: number, total?: number, message?: string): void {
    // `message` joined progress notifications in 2025-03-26.
    this.#request.progress(progress, total, features.since(this.#lifecycle.version, '2025-03-26') ? message : undefined);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.#lifecycle.passesLogLevel(level)) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.#request.notify('notifications/message', params);
  }

  #send(capability: keyof ClientCapabilities | undefined, method: string, params: Shaped | undefined, options?: RequestOptions) {
    if (capability !== undefined && !isPlainObject(this.#lifecycle.clientCapabilities[capability])) {
      return Promise.reject(new MissingCapabilityError(String(capability), method));
    }
    return this.#request.request(method, params, options);
  }

  elicit(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    if (!features.since(this.#lifecycle.version, '2025-06-18')) {
      return Promise.reject(new MissingCapabilityError('elicitation', 'elicitation/create'));
    }
    return this.#send('elicitation', 'elicitation/create', params, options) as Promise<Shaped>;
  }

  sample(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    return this.#send('sampling', 'sampling/createMessage', params, options) as Promise<Shaped>;
  }

  listRoots(options?: RequestOptions): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.#send('roots', 'roots/list', undefined, options) as Promise<{ roots: { uri: string; name?: string }[] }>;
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#send(undefined, 'ping', undefined, options);
  }

  /** Sends every input request of one round to the client at once; resolves with the answers by key. */
  async ask(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>> {
    const keys = Object.keys(requests);
    // A round the client cannot answer in full is refused before anything is sent (no request to withdraw later).
    const missing = requiredCapabilities(requests, this.#lifecycle.clientCapabilities);
    if (missing !== undefined) throw new MissingCapabilityError(Object.keys(missing).join(', '), 'the requested input');
    const answers = await Promise.all(keys.map((key) => {
      const { method, params = {} } = requests[key]!;
      if (method === 'elicitation/create') return this.elicit(params);
      if (method === 'sampling/createMessage') return this.sample(params);
      return this.listRoots() as Promise<Record<string, unknown>>;
    }));
    const responses: Record<string, Record<string, unknown>> = Object.create(null) as Record<string, Record<string, unknown>>;
    keys.forEach((key, index) => {
      responses[key] = answers[index]!;
    });
    return responses;
  }
}
