// The 2026-07-28 lifecycle: the envelope (`_meta` keys, validation, removed methods, arrival checks), server/discover,
// the feature methods and the extensions' (behind the -32021 gate) in the middleware chain, subscriptions/listen
// streams (ack, filtered and keyed events, a bounded buffer, graceful and overflow end), every result stamped.
// Stateless between requests; never sends a server→client request or reaches another connection's streams.

import { NO_BACK_CHANNEL } from './dispatcher.ts';
import * as features from './features.ts';
import {
  checkElicitationId,
  describeCapabilities,
  type InputRequest,
  InputRequired,
  type RequestStateSealer,
  readInputResponses,
  requiredCapabilities,
  urlElicitationAsInput,
} from './input.ts';
import {
  chain,
  describeValue,
  ErrorCode,
  invalidParams,
  isPlainObject,
  methodNotFound,
  ProtocolError,
  type RequestId,
} from './jsonrpc.ts';
import { type ChangeEvent, guardedItem, shows } from './registry.ts';
import { principalOf as authPrincipal, type InboundRequest, OutboundRequestError, RequestContext } from './request.ts';
import {
  type CacheHint,
  type ClientCapabilities,
  type Context,
  type DetachedContext,
  type DetachOptions,
  type Envelope,
  type Extension,
  type ExtensionMethod,
  type FrameExtras,
  type Implementation,
  LOGGING_LEVELS,
  type LoggingLevel,
  MissingCapabilityError,
  MODERN_VERSIONS,
  type ResourceDefinition,
  type Viewer,
} from './types.ts';

// The envelope (2026-07-28 basic protocol, `_meta`): every request carries its own version and client capabilities.

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The refusal of a request that needs the envelope and carries none (or only part of it). */
export const MISSING_ENVELOPE = `Invalid params: params._meta must carry '${META_PROTOCOL_VERSION}' and '${META_CLIENT_CAPABILITIES}'`;

/** Methods of the 2025 lifecycle that 2026-07-28 removed; enveloped, they are -32601 whatever the connection. */
export const MODERN_REMOVED = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** A request claims the modern era exactly when `params._meta` holds the protocol-version key. */
export function hasClaim(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return isPlainObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION);
}

/** The -32022 refusal of a protocol version, with the versions this server supports. */
export function unsupportedVersion(requested: unknown, message = 'Unsupported protocol version'): ProtocolError {
  return new ProtocolError(ErrorCode.UnsupportedProtocolVersion, message, {
    supported: [...MODERN_VERSIONS],
    requested: typeof requested === 'string' ? requested : 'unknown',
  });
}

/** Validates a claimed envelope in the spec's order; each failure names the offending key. */
export function readEnvelope(params: Record<string, unknown>): Envelope {
  const meta = params._meta;
  if (!isPlainObject(meta)) throw new ProtocolError(ErrorCode.InvalidParams, MISSING_ENVELOPE);
  const protocolVersion = meta[META_PROTOCOL_VERSION];
  if (typeof protocolVersion !== 'string')
    throw invalidParams(`params._meta['${META_PROTOCOL_VERSION}'] must be a string`);
  if (!(MODERN_VERSIONS as readonly string[]).includes(protocolVersion)) throw unsupportedVersion(protocolVersion);
  if (!Object.hasOwn(meta, META_CLIENT_CAPABILITIES))
    throw invalidParams(`params._meta is missing required key(s): ${META_CLIENT_CAPABILITIES}`);
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(clientCapabilities))
    throw invalidParams(`params._meta['${META_CLIENT_CAPABILITIES}'] must be an object`);
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !features.isImplementation(clientInfo))
    throw invalidParams(`params._meta['${META_CLIENT_INFO}'] must be {name: string, version: string}`);
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && !LOGGING_LEVELS.includes(logLevel as LoggingLevel))
    throw invalidParams(`params._meta['${META_LOG_LEVEL}'] must be one of ${LOGGING_LEVELS.join(', ')}`);
  return {
    protocolVersion,
    clientCapabilities,
    clientInfo: clientInfo as Implementation | undefined,
    logLevel: logLevel as LoggingLevel | undefined,
  };
}

/** The -32601 answer to a 2025 method that 2026-07-28 removed, sent enveloped. */
export function removedMethod(method: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MethodNotFound,
    `Method not found: '${method}' is not part of protocol ${MODERN_VERSIONS[0]}`,
    method,
  );
}

type Shaped = Record<string, unknown>;
type ServerModel = features.ServerModel;
/** A method an installed extension serves in the 2026-07-28 era, with its extension. */
type Extended = { extension: Extension; entry: ExtensionMethod };

/** The lists that may have hints of their own (`ServerOptions.cache.lists`), named as their results' items. */
export type CachedList = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** The hints of cacheable 2026-07-28 results: the server's (`ServerOptions.cache`), and each list's, completed. */
export interface CachePolicy extends Required<CacheHint> {
  lists: Record<CachedList, Required<CacheHint>>;
}

/** A valid `ttlMs`: an integer ≥ 0 (2026-07-28 Server > Utilities > Caching > Time-to-Live (TTL) Field). */
function isTtlMs(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** `value` for a message: a number as written (JSON has no NaN), anything else as describeValue gives it. */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : describeValue(value);
}

/** Checks hints given where `name` says (an option, a definition's `cache`): a TypeError names the bad field. */
export function checkCacheHint(name: string, hint: unknown, keys: readonly string[] = ['ttlMs', 'scope']): void {
  if (hint === undefined) return;
  if (!isPlainObject(hint)) throw new TypeError(`${name} must be an object, got ${describeValue(hint)}`);
  const unknown = Object.keys(hint).find((key) => !keys.includes(key));
  if (unknown !== undefined)
    throw new TypeError(`${name} has no ${JSON.stringify(unknown)}: it takes ${keys.join(', ')}`);
  if (hint.ttlMs !== undefined && !isTtlMs(hint.ttlMs))
    throw new TypeError(`${name}.ttlMs must be a non-negative integer, got ${shown(hint.ttlMs)}`);
  if (hint.scope !== undefined && hint.scope !== 'public' && hint.scope !== 'private')
    throw new TypeError(`${name}.scope must be "public" or "private", got ${describeValue(hint.scope)}`);
}

type Served = ReturnType<typeof features.servedFeatures> & { logging: boolean };
type Method = (lifecycle: ModernLifecycle, request: InboundRequest, ctx: ModernContext) => unknown;

/** A method-table entry: the capability it needs, cacheable results, input responses, the param `Mcp-Name` mirrors. */
interface MethodEntry {
  capability?: 'tools' | 'resources' | 'prompts' | 'completions';
  /** A list's results take its own hints first (`ServerOptions.cache.lists`). */
  cacheable?: true | CachedList;
  input?: true;
  routeBy?: 'name' | 'uri';
  serve: Method;
}

const METHODS: Record<string, MethodEntry> = {
  'server/discover': { cacheable: true, serve: (l) => l.discover() },
  'tools/list': {
    capability: 'tools',
    cacheable: 'tools',
    serve: (l, r, c) => features.listTools(l.model, r.params, c),
  },
  'tools/call': {
    capability: 'tools',
    input: true,
    routeBy: 'name',
    serve: (l, r, c) => features.callTool(l.model, r.params, c),
  },
  'resources/list': {
    capability: 'resources',
    cacheable: 'resources',
    serve: (l, r, c) => features.listResources(l.model, r.params, c),
  },
  'resources/templates/list': {
    capability: 'resources',
    cacheable: 'resourceTemplates',
    serve: (l, r, c) => features.listResourceTemplates(l.model, r.params, c),
  },
  'resources/read': {
    capability: 'resources',
    cacheable: true,
    input: true,
    routeBy: 'uri',
    serve: (l, r, c) => features.readResource(l.model, r.params, c),
  },
  'prompts/list': {
    capability: 'prompts',
    cacheable: 'prompts',
    serve: (l, r, c) => features.listPrompts(l.model, r.params, c),
  },
  'prompts/get': {
    capability: 'prompts',
    input: true,
    routeBy: 'name',
    serve: (l, r, c) => features.getPrompt(l.model, r.params, c),
  },
  'completion/complete': { capability: 'completions', serve: (l, r, c) => features.complete(l.model, r.params, c) },
  'subscriptions/listen': {
    serve: (l, r, c) =>
      l.listens.open(r, narrowFilter(r.params.notifications, l, c), (uri) =>
        features.mayView(l.model, 'modern', uri, c),
      ),
  },
};

/** The method an installed extension serves in the 2026-07-28 era under `method`, with its extension. */
function extensionMethod(model: ServerModel, method: string): Extended | undefined {
  for (const extension of model.extensions) {
    const methods = extension.modernMethods;
    if (methods !== undefined && Object.hasOwn(methods, method)) return { extension, entry: methods[method]! };
  }
  return undefined;
}

/** The core's entry of a 2026-07-28 method this server serves (its capability too), or an extension's; else -32601. */
function servedMethod(model: ServerModel, method: string): MethodEntry | Extended {
  const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (entry !== undefined && (entry.capability === undefined || features.serves(model, entry.capability, 'modern')))
    return entry;
  const extended = entry === undefined ? extensionMethod(model, method) : undefined;
  if (extended === undefined) throw methodNotFound(method);
  return extended;
}

/** Whether the core serves `method` itself in either era (the 2025-only methods are those 2026-07-28 removed). */
export function isCoreMethod(method: string): boolean {
  return Object.hasOwn(METHODS, method) || MODERN_REMOVED.has(method);
}

/** The param whose value a 2026-07-28 HTTP request of `method` mirrors in `Mcp-Name` (undefined: none). */
export function routingParam(model: ServerModel, method: string): string | undefined {
  if (Object.hasOwn(METHODS, method)) return METHODS[method]!.routeBy;
  return extensionMethod(model, method)?.entry.routeBy;
}

/** Whether these client capabilities declare the extension `id` (as an object under `extensions`). */
export function declaresExtension(capabilities: ClientCapabilities, id: string): boolean {
  const { extensions } = capabilities;
  return isPlainObject(extensions) && Object.hasOwn(extensions, id) && isPlainObject(extensions[id]);
}

/** The -32021 refusal of a request that needs the client to declare the extension `id`. */
export function missingExtension(id: string): ProtocolError {
  return missingCapability({ extensions: { [id]: {} } });
}

/**
 * A 2026-07-28 request's check on arrival (its envelope read), before any handler runs: -32601 for a method removed or
 * not served, else the tool a `tools/call` names (undefined for another method, or a tool its caller may not see).
 */
export function checkArrival(
  model: ServerModel,
  method: string,
  params: Shaped,
  { envelope, http, auth }: FrameExtras & { envelope: Envelope },
): features.ToolEntry | undefined {
  if (MODERN_REMOVED.has(method)) throw removedMethod(method);
  servedMethod(model, method);
  if (method !== 'tools/call' || typeof params.name !== 'string') return undefined;
  const { tools } = model;
  if (!tools.guarded('modern')) return tools.get(params.name, 'modern', undefined);
  // The viewer its handler context would be: a sessionless request speaks for its verified identity, else for no one.
  const caller = auth === undefined ? '' : authPrincipal(auth);
  try {
    return tools.get(params.name, 'modern', { era: 'modern', ...envelope, caller, http, auth });
  } catch {
    return undefined; // a predicate's throw or a scope refusal: answered where the request is served
  }
}

/**
 * One 2026-07-28 request on its way through ModernLifecycle.#run: what its steps need, passed rather than closed over.
 * `cacheable`: a cacheable method's hints (`{}`: the server's), null when it may not be cached; undefined for other
 * methods. `input`: whether the method takes input (a URL elicitation thrown is then its input_required).
 */
interface ModernCall {
  readonly lifecycle: ModernLifecycle;
  readonly request: InboundRequest;
  readonly envelope: Envelope;
  readonly cacheable: CacheHint | null | undefined;
  readonly served: MethodEntry | Extended;
  readonly input: boolean;
}

/** Serves 2026-07-28 requests of one connection: the method table, capability checks and result stamping. */
export class ModernLifecycle {
  readonly model: ServerModel;
  readonly listens: ListenStreams;
  readonly #sealer: RequestStateSealer;
  readonly #cache: CachePolicy;

  constructor(model: ServerModel, listens: ListenStreams, sealer: RequestStateSealer, cache: CachePolicy) {
    this.model = model;
    this.listens = listens;
    this.#sealer = sealer;
    this.#cache = cache;
  }

  served(): Served {
    return { ...features.servedFeatures(this.model, 'modern'), logging: this.model.settings.logging };
  }

  /**
   * Serves one request: the envelope, the method (an extension's behind its -32021 gate), a retry's verified state,
   * then the handler inside the middleware chain (docs/api.md, Middleware); what the chain answers is stamped.
   */
  onRequest(request: InboundRequest): unknown {
    const envelope = request.envelope ?? readEnvelope(request.params);
    const { method, params } = request;
    const served = servedMethod(this.model, method);
    const ctx = new ModernContext(request, envelope, this.model.settings.logging);
    if ('extension' in served) {
      // The gate precedes the method, so that an unknown id is never looked up for a client that cannot hold one.
      if (served.entry.gated !== false && !declaresExtension(envelope.clientCapabilities, served.extension.id))
        throw missingExtension(served.extension.id);
      return this.#run(request, envelope, ctx, served.entry.cacheable === true ? {} : undefined, served);
    }
    const retry = served.input === true && (params.inputResponses !== undefined || params.requestState !== undefined);
    // A retry's answer depends on inputs its cache key lacks, so it must not be cached (Server > Utilities > Caching >
    // Cache Key), yet a complete result still carries both hints: immediately stale and private.
    const cacheable = served.cacheable && (retry ? null : this.#hint(served.cacheable, method, params, ctx));
    if (retry) {
      ctx.inputResponses = readInputResponses(params.inputResponses);
      if (params.requestState !== undefined) {
        // The handler runs only once the state verified.
        return this.#sealer.open(method, params, params.requestState, principalOf(request)).then((state) => {
          ctx.requestState = state;
          return this.#run(request, envelope, ctx, cacheable, served);
        });
      }
    }
    return this.#run(request, envelope, ctx, cacheable, served);
  }

  /**
   * Runs the method's handler inside the middleware chain (docs/api.md, Middleware) and stamps what the chain answers.
   * Where the method takes input, a URL elicitation thrown (by the handler or a middleware) is its input_required.
   * The steps are static, of one ModernCall: a request served at once makes no closure (jsonrpc.ts, chain).
   */
  #run(
    request: InboundRequest,
    envelope: Envelope,
    ctx: ModernContext,
    cacheable: CacheHint | null | undefined,
    served: MethodEntry | Extended,
  ): unknown {
    const input = !('extension' in served) && served.input === true;
    const call: ModernCall = { lifecycle: this, request, envelope, cacheable, served, input };
    const failed = input ? ModernLifecycle.#stampInput : undefined;
    return chain(ModernLifecycle.#serve, ctx, call, ModernLifecycle.#stamp, failed);
  }

  /** The handler, inside the middleware chain when the server has one. */
  static #serve(ctx: ModernContext, call: ModernCall): unknown {
    const { model } = call.lifecycle;
    if (model.middleware.length === 0) return ModernLifecycle.#handle(ctx, call);
    return features.intercepted(model, call.request, ctx, call.input, () => ModernLifecycle.#handle(ctx, call));
  }

  static #handle(ctx: ModernContext, { lifecycle, request, served }: ModernCall): unknown {
    return 'extension' in served ? served.entry.serve(request.params, ctx) : served.serve(lifecycle, request, ctx);
  }

  static #stampInput(error: unknown, call: ModernCall): Shaped | Promise<Shaped> {
    return ModernLifecycle.#stamp(urlElicitationAsInput(error), call);
  }

  discover(): Shaped {
    const capabilities = features.serverCapabilities(this.served(), MODERN_VERSIONS[0]);
    if (this.model.extensions.length > 0)
      capabilities.extensions = Object.fromEntries(this.model.extensions.map((ext) => [ext.id, ext.settings]));
    const result: Shaped = { supportedVersions: [...MODERN_VERSIONS], capabilities };
    if (this.model.instructions !== undefined) result.instructions = this.model.instructions;
    return result;
  }

  /**
   * A cacheable core method's own hints: its list's (`cache.lists`), or the resource's or template's it reads; private
   * where the answer depends on who asks: a list with a guarded item, a URI a guarded registration (a predicate or
   * scopes) serves (docs/api.md).
   */
  #hint(cacheable: true | CachedList, method: string, params: Shaped, viewer: Viewer): CacheHint {
    const { tools, resources, templates, prompts } = this.model;
    const { uri } = params;
    if (cacheable !== true) {
      const guarded =
        cacheable === 'tools'
          ? tools.guarded('modern')
          : cacheable === 'prompts'
            ? prompts.guarded('modern')
            : templates.guarded('modern') || (cacheable === 'resources' && resources.guarded('modern'));
      const hint = this.#cache.lists[cacheable];
      return guarded ? { ...hint, scope: 'private' } : hint;
    }
    if (method !== 'resources/read' || typeof uri !== 'string') return {};
    // Every registration serving the URI, whoever asks: one hidden from some callers makes the answer theirs.
    const fixed = resources.find(uri, 'modern');
    let guarded = fixed !== undefined && guardedItem(fixed);
    let serving: { definition: ResourceDefinition } | undefined = fixed && shows(fixed, viewer) ? fixed : undefined;
    for (const entry of templates.served('modern')) {
      if (entry.template.match(uri) === undefined) continue;
      guarded ||= guardedItem(entry);
      serving ??= shows(entry, viewer) ? entry : undefined;
    }
    const hint = serving?.definition.cache ?? {};
    return guarded ? { ...hint, scope: 'private' } : hint;
  }

  /**
   * A handler's answer as a modern result (a copy; a promise while an InputRequired's state is sealed), with the
   * call's cache hints when its method is cacheable (ModernCall).
   */
  static #stamp(value: unknown, { lifecycle, request, envelope, cacheable }: ModernCall): Shaped | Promise<Shaped> {
    const serverInfo = features.shapeImplementation(lifecycle.model.info, envelope.protocolVersion);
    if (value instanceof InputRequired) {
      const missing = requiredCapabilities(value.inputRequests, envelope.clientCapabilities);
      if (missing !== undefined) throw missingCapability(missing);
      const result: Shaped = { resultType: 'input_required' };
      if (Object.keys(value.inputRequests).length > 0)
        result.inputRequests = withoutElicitationIds(value.inputRequests);
      const meta = { [META_SERVER_INFO]: serverInfo };
      if (value.state === undefined) return { ...result, _meta: meta };
      const sealing = lifecycle.#sealer.seal(request.method, request.params, value.state, principalOf(request));
      return sealing.then((requestState) => ({ ...result, requestState, _meta: meta }));
    }
    const shaped = value as Shaped;
    // A handler may name another result type (an extension's); without one the result is complete.
    const resultType = typeof shaped.resultType === 'string' ? shaped.resultType : 'complete';
    // Opened with an empty spread: on Node 20 (V8 11.3) a literal that opens with the spread of an object and then
    // gains keys makes a new hidden class every time, about 5 µs a call (bench/README.md, HTTP round trips).
    const result: Shaped = {
      ...NO_FIELDS,
      ...shaped,
      resultType,
      _meta: { ...NO_FIELDS, ...(shaped._meta as Shaped | undefined), [META_SERVER_INFO]: serverInfo },
    };
    return cacheable === undefined ? result : lifecycle.#cached(result, request.method, cacheable);
  }

  /**
   * A cacheable result with its hints: the handler's, else `hint`'s, else the server's (docs/api.md, Caching hints);
   * `ttlMs: 0` and private when `hint` is null (a retry). A handler's invalid hint is a server bug: logged, -32603.
   */
  #cached(result: Shaped, method: string, hint: CacheHint | null): Shaped {
    const { ttlMs = hint?.ttlMs ?? this.#cache.ttlMs, cacheScope = hint?.scope ?? this.#cache.scope, ...rest } = result;
    if (hint === null) return { ...rest, ttlMs: 0, cacheScope: 'private' };
    if (!isTtlMs(ttlMs) || (cacheScope !== 'public' && cacheScope !== 'private')) {
      const got = `ttlMs ${shown(ttlMs)} and cacheScope ${describeValue(cacheScope)}`;
      this.model.settings.logger.error(`${method} returned ${got}: a non-negative integer and "public" or "private"`);
      throw new ProtocolError(ErrorCode.InternalError, 'Internal error');
    }
    return { ...rest, ttlMs, cacheScope };
  }
}

/** What a copy's literal opens with (see ModernLifecycle.#stamp). */
const NO_FIELDS: Readonly<Shaped> = Object.freeze({});

/** Whom a requestState is bound to (2026-07-28 Basic > Patterns > Multi Round-Trip Requests > Basic Workflow). */
function principalOf(request: InboundRequest): string | undefined {
  return request.auth === undefined ? undefined : authPrincipal(request.auth);
}

/** Input requests as 2026-07-28 sends them: without a URL elicitation's `elicitationId` (2025-11-25 needs it). */
function withoutElicitationIds(requests: Record<string, InputRequest>): Record<string, InputRequest> {
  const sent: Record<string, InputRequest> = Object.create(null);
  for (const [key, request] of Object.entries(requests)) {
    const params = request.params;
    if (request.method === 'elicitation/create' && params?.mode === 'url' && 'elicitationId' in params) {
      const { elicitationId: _id, ...rest } = params;
      sent[key] = { ...request, params: rest };
    } else sent[key] = request;
  }
  return sent;
}

/** `-32021`: serving the request needs client capabilities this request did not declare. */
export function missingCapability(requiredCapabilities: ClientCapabilities): ProtocolError {
  return new ProtocolError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
    requiredCapabilities,
  });
}

/** The handler context of one modern request: its own envelope, no connection state, no outbound requests. */
class ModernContext extends RequestContext implements Context {
  readonly era = 'modern';
  readonly #envelope: Envelope;
  readonly #logging: boolean;
  readonly #logThreshold: number;

  constructor(request: InboundRequest, envelope: Envelope, logging: boolean, detached?: DetachOptions) {
    super(request, envelope, detached);
    this.#envelope = envelope;
    this.#logging = logging;
    // Logging is opt-in per request: without the envelope's logLevel nothing is ever sent.
    this.#logThreshold =
      logging && envelope.logLevel !== undefined ? LOGGING_LEVELS.indexOf(envelope.logLevel) : Infinity;
  }

  progress(progress: number, total?: number, message?: string): void {
    this.request.progress(progress, total, message, false, this.detached?.meta);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (LOGGING_LEVELS.indexOf(level) < this.#logThreshold) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    if (this.detached?.meta !== undefined) params._meta = this.detached.meta;
    this.request.notify('notifications/message', params);
  }

  /**
   * ExtensionContext.sendInput: detached (a task's handler), the task's input request if the client declared what it
   * needs; else -32600 no-back-channel, as 2026-07-28 servers send no requests (Basic > Patterns > Overview): handlers
   * answer inputRequired(…) instead (docs/troubleshooting.md, `ctx.elicit()` rejects at once).
   */
  sendInput(request: InputRequest): Promise<Shaped> {
    if (this.detached !== undefined) {
      const missing = requiredCapabilities({ request }, this.clientCapabilities);
      if (missing !== undefined)
        return Promise.reject(new MissingCapabilityError(describeCapabilities(missing), request.method));
      return this.detached.input(request);
    }
    return Promise.reject(
      new OutboundRequestError(`Cannot send '${request.method}': ${NO_BACK_CHANNEL}`, ErrorCode.InvalidRequest),
    );
  }

  elicit(params: Shaped): Promise<Shaped> {
    return this.sendInput({ method: 'elicitation/create', params });
  }

  sample(params: Shaped): Promise<Shaped> {
    return this.sendInput({ method: 'sampling/createMessage', params });
  }

  listRoots(): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.sendInput({ method: 'roots/list', params: {} }) as Promise<{ roots: { uri: string; name?: string }[] }>;
  }

  ping(): Promise<void> {
    return Promise.reject(new OutboundRequestError(`Cannot send 'ping': ${NO_BACK_CHANNEL}`, ErrorCode.InvalidRequest));
  }

  /** 2026-07-28 has no completion notification: the client's retry carries the answer (docs/eras.md). */
  completeElicitation(elicitationId: string): void {
    checkElicitationId(elicitationId);
  }

  /** ToolCall.detach: this request's identity and input, `options` for the rest; log and progress end with it. */
  detach(options: DetachOptions): DetachedContext {
    const ctx = new ModernContext(this.request, this.#envelope, this.#logging, options);
    ctx.inputResponses = this.inputResponses;
    ctx.requestState = this.requestState;
    return ctx;
  }

  /** ToolCall.notify: 2026-07-28 has no channel outside a request. */
  notifyCaller(): void {}
}

export interface ListenLimits {
  /** Open listen streams per connection (default 1024). */
  maxStreams: number;
  /** Events one stream may hold while the transport is backed up; one more ends it with an error (default 1024). */
  maxBufferedEvents: number;
}

interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  /** The ids asked for under each extension's listen key (Extension.listenKey). */
  keyed?: Record<string, string[]>;
}

type Frame = { method: string; params: Record<string, unknown> };
type Settle = { resolve(result: object): void; reject(error: unknown): void };

const MAX_RESOURCE_SUBSCRIPTIONS = 1024;
const FLAGS = [
  ['toolsListChanged', 'tools', 'tools'],
  ['promptsListChanged', 'prompts', 'prompts'],
  ['resourcesListChanged', 'resources', 'resources'],
] as const;

/** An array of at most MAX_RESOURCE_SUBSCRIPTIONS strings under `params.notifications[key]`, deduplicated; else -32602. */
function readIds(value: unknown, key: string): string[] {
  if (Array.isArray(value) && value.length <= MAX_RESOURCE_SUBSCRIPTIONS && value.every((id) => typeof id === 'string'))
    return [...new Set(value as string[])];
  throw invalidParams(`params.notifications.${key} must be an array of at most ${MAX_RESOURCE_SUBSCRIPTIONS} strings`);
}

/**
 * Reads the requested filter and keeps only what this server will honour. An extension's listen key asked for by a
 * client that does not declare the extension is refused -32021.
 */
function narrowFilter(given: unknown, lifecycle: ModernLifecycle, ctx: ModernContext): Filter {
  if (!isPlainObject(given)) throw invalidParams('params.notifications must be an object');
  const served = lifecycle.served();
  const filter: Filter = {};
  for (const [flag, feature] of FLAGS) {
    const value = given[flag];
    if (value !== undefined && typeof value !== 'boolean')
      throw invalidParams(`params.notifications.${flag} must be a boolean`);
    if (value === true && served[feature]) filter[flag] = true;
  }
  if (given.resourceSubscriptions !== undefined) {
    const uris = readIds(given.resourceSubscriptions, 'resourceSubscriptions');
    if (served.resources && uris.length > 0) filter.resourceSubscriptions = uris;
  }
  for (const extension of lifecycle.model.extensions) {
    const key = extension.listenKey;
    if (key === undefined || !Object.hasOwn(given, key) || given[key] === undefined) continue;
    if (!declaresExtension(ctx.clientCapabilities, extension.id)) throw missingExtension(extension.id);
    (filter.keyed ??= {})[key] = readIds(given[key], key);
  }
  return filter;
}

class ListenStream {
  readonly id: RequestId;
  readonly request: InboundRequest;
  readonly buffer: Frame[] = [];
  readonly #filter: Filter;
  readonly #uris: Set<string> | undefined;
  readonly #keyed: Map<string, Set<string>> | undefined;
  readonly #mayView: (uri: string) => boolean;
  readonly settle: Settle;

  constructor(request: InboundRequest, filter: Filter, mayView: (uri: string) => boolean, settle: Settle) {
    this.#mayView = mayView;
    this.id = request.id;
    this.request = request;
    this.#filter = filter;
    if (filter.resourceSubscriptions !== undefined) this.#uris = new Set(filter.resourceSubscriptions);
    if (filter.keyed !== undefined)
      this.#keyed = new Map(Object.entries(filter.keyed).map(([key, ids]) => [key, new Set(ids)]));
    this.settle = settle;
  }

  /** The event's frame when this stream asked for it (a keyed one also only when it is this stream's caller's). */
  frameFor(event: ChangeEvent): Frame | undefined {
    const meta = { [META_SUBSCRIPTION_ID]: this.id };
    if (event.type === 'keyed') {
      const asked = this.#keyed?.get(event.key)?.has(event.id) === true;
      return asked && (event.audience === undefined || event.audience === this.request.caller)
        ? { method: event.method, params: { ...event.params, _meta: meta } }
        : undefined;
    }
    if (event.type === 'resource') {
      return this.#uris?.has(event.uri) === true && this.#mayView(event.uri)
        ? { method: 'notifications/resources/updated', params: { _meta: meta, uri: event.uri } }
        : undefined;
    }
    const flag = `${event.type}ListChanged` as const;
    return this.#filter[flag] === true
      ? { method: `notifications/${event.type}/list_changed`, params: { _meta: meta } }
      : undefined;
  }
}

export class ListenStreams {
  readonly #streams = new Map<RequestId, ListenStream>();
  readonly #limits: ListenLimits;
  readonly #isBackedUp: (() => boolean) | undefined;

  constructor(limits: ListenLimits, isBackedUp: (() => boolean) | undefined) {
    this.#limits = limits;
    this.#isBackedUp = isBackedUp;
  }

  get size(): number {
    return this.#streams.size;
  }

  /**
   * Serves one listen request; settles with the final result on a graceful end, rejects on overflow. `mayView`: whether
   * its caller may hear of a resource's update (features.mayView).
   */
  open(request: InboundRequest, filter: Filter, mayView: (uri: string) => boolean): Promise<object> {
    if (this.#streams.size >= this.#limits.maxStreams)
      throw new ProtocolError(ErrorCode.InternalError, 'Subscription limit reached');
    return new Promise((resolve, reject) => {
      const stream = new ListenStream(request, filter, mayView, { resolve, reject });
      this.#streams.set(stream.id, stream);
      // In the table before the ack is written, so an event racing the ack is delivered right after it.
      request.onEnd = () => this.#release(stream); // not its signal's listener: an AbortController costs ~1 KB
      const { keyed, ...asked } = filter;
      const ack = { _meta: { [META_SUBSCRIPTION_ID]: stream.id }, notifications: { ...asked, ...keyed } };
      request.notify('notifications/subscriptions/acknowledged', ack, true);
    });
  }

  /** A server change: each open stream that asked for it gets it. */
  onChange(event: ChangeEvent): void {
    // A Map survives deletion during iteration, so an overflowing stream may release itself here.
    for (const stream of this.#streams.values()) this.#deliver(stream, event);
  }

  #deliver(stream: ListenStream, event: ChangeEvent): void {
    const frame = stream.frameFor(event);
    if (frame === undefined) return;
    if (stream.buffer.length === 0 && this.#isBackedUp?.() !== true) {
      stream.request.notify(frame.method, frame.params, true);
      return;
    }
    if (stream.buffer.length >= this.#limits.maxBufferedEvents) {
      // Dropping silently would look like a quiet server; the client must re-listen and refetch.
      this.#release(stream);
      stream.settle.reject(
        new ProtocolError(
          ErrorCode.InternalError,
          'Subscription overflowed: events were dropped; re-listen and refetch',
        ),
      );
      return;
    }
    stream.buffer.push(frame);
  }

  #release(stream: ListenStream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    stream.buffer.length = 0;
  }

  #flush(stream: ListenStream, respectBackpressure: boolean): void {
    let sent = 0;
    while (sent < stream.buffer.length && !(respectBackpressure && this.#isBackedUp?.() === true)) {
      const frame = stream.buffer[sent++]!;
      stream.request.notify(frame.method, frame.params, true);
    }
    stream.buffer.splice(0, sent);
  }

  /** The transport can take more: write what the streams buffered while it could not. */
  resume(): void {
    for (const stream of this.#streams.values()) this.#flush(stream, true);
  }

  /** Ends every stream on purpose: buffered events first, then each final result. */
  endAll(): void {
    for (const stream of [...this.#streams.values()]) {
      this.#flush(stream, false);
      this.#release(stream);
      stream.settle.resolve({ _meta: { [META_SUBSCRIPTION_ID]: stream.id } });
    }
  }
}
