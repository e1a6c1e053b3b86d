// The 2026-07-28 (modern) lifecycle: each request is served statelessly under its own envelope — server/discover,
// the feature methods, subscriptions/listen — and every result is stamped (resultType, serverInfo, caching
// fields). Handlers ask for client input only through input_required answers. Remembers nothing between requests
// and never sends a server→client request.

import { type InboundRequest, NO_BACK_CHANNEL, OutboundRequestError, principalOf as authPrincipal, RequestContext } from './dispatcher.ts';
import { type Envelope, type Lifecycle, META_SERVER_INFO, MODERN_REMOVED, readEnvelope, removedMethod } from './era.ts';
import * as features from './features.ts';
import { InputRequired, readInputResponses, RequestStateSealer, requiredCapabilities } from './input.ts';
import { ErrorCode, methodNotFound, ProtocolError } from './jsonrpc.ts';
import type { ListenStreams } from './subscriptions.ts';
import { type ClientCapabilities, type Context, type Implementation, LOGGING_LEVELS, type LoggingLevel, MODERN_VERSIONS } from './types.ts';

type Shaped = Record<string, unknown>;

/** The `ttlMs` and `cacheScope` put on cacheable 2026-07-28 results. */
export interface CachePolicy {
  ttlMs: number;
  scope: 'public' | 'private';
}

type Served = ReturnType<typeof features.servedFeatures> & { logging: boolean };
type Method = (lifecycle: ModernLifecycle, request: InboundRequest, ctx: ModernContext) => unknown;

/** The modern method table: each entry names the capability that must be served and whether results are cacheable. */
const METHODS: Record<string, { capability?: 'tools' | 'resources' | 'prompts' | 'completions'; cacheable?: true; input?: true; serve: Method }> = {
  'server/discover': { cacheable: true, serve: (l) => l.discover() },
  'tools/list': { capability: 'tools', cacheable: true, serve: (l, r, c) => features.listTools(l.model, r.params, c.protocolVersion) },
  'tools/call': { capability: 'tools', input: true, serve: (l, r, c) => features.callTool(l.model, r.params, c) },
  'resources/list': {
    capability: 'resources',
    cacheable: true,
    serve: (l, r, c) => features.listResources(l.model, r.params, c.protocolVersion),
  },
  'resources/templates/list': {
    capability: 'resources',
    cacheable: true,
    serve: (l, r, c) => features.listResourceTemplates(l.model, r.params, c.protocolVersion),
  },
  'resources/read': {
    capability: 'resources',
    cacheable: true,
    input: true,
    serve: (l, r, c) => features.readResource(l.model, r.params, c),
  },
  'prompts/list': { capability: 'prompts', cacheable: true, serve: (l, r, c) => features.listPrompts(l.model, r.params, c.protocolVersion) },
  'prompts/get': { capability: 'prompts', input: true, serve: (l, r, c) => features.getPrompt(l.model, r.params, c) },
  'completion/complete': { capability: 'completions', serve: (l, r) => features.complete(l.model, r.params, 'modern') },
  'subscriptions/listen': { serve: (l, r) => l.listens.open(r, l.served()) },
};

/** Serves 2026-07-28 requests of one connection: the method table, capability checks and result stamping. */
export class ModernLifecycle implements Lifecycle {
  readonly model: features.ServerModel;
  readonly listens: ListenStreams;
  readonly #sealer: RequestStateSealer;
  readonly #cache: CachePolicy;

  constructor(model: features.ServerModel, listens: ListenStreams, sealer: RequestStateSealer, cache: CachePolicy) {
    this.model = model;
    this.listens = listens;
    this.#sealer = sealer;
    this.#cache = cache;
  }

  served(): Served {
    return { ...features.servedFeatures(this.model, 'modern'), logging: this.model.settings.logging };
  }

  /** Envelope and method checks, in the order the HTTP ladder reports them; throws the first failure. */
  preflight(method: string, params: Record<string, unknown>): Envelope {
    const envelope = readEnvelope(params);
    if (MODERN_REMOVED.has(method)) throw removedMethod(method);
    this.#method(method);
    return envelope;
  }

  #method(method: string): (typeof METHODS)[string] {
    const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (entry === undefined || (entry.capability !== undefined && !features.serves(this.model, entry.capability, 'modern'))) {
      throw methodNotFound(method);
    }
    return entry;
  }

  onRequest(request: InboundRequest): unknown {
    const envelope = readEnvelope(request.params);
    const { method, params } = request;
    const entry = this.#method(method);
    const retry = entry.input === true && (params.inputResponses !== undefined || params.requestState !== undefined);
    const ctx = new ModernContext(request, envelope, this.model.settings.logging);
    if (retry) {
      ctx.inputResponses = readInputResponses(params.inputResponses);
      if (params.requestState !== undefined) ctx.requestState = this.#sealer.open(method, params, params.requestState, principalOf(request));
    }
    const cacheable = entry.cacheable === true && !retry;
    const result = entry.serve(this, request, ctx);
    if (result instanceof Promise) return result.then((value) => this.#stamp(value, request, envelope, cacheable));
    return this.#stamp(result, request, envelope, cacheable);
  }

  discover(): Shaped {
    const served = this.served();
    const capabilities: Shaped = {};
    if (served.logging) capabilities.logging = {};
    if (served.completions) capabilities.completions = {};
    if (served.prompts) capabilities.prompts = { listChanged: true };
    if (served.resources) capabilities.resources = { subscribe: true, listChanged: true };
    if (served.tools) capabilities.tools = { listChanged: true };
    const result: Shaped = { supportedVersions: [...MODERN_VERSIONS], capabilities };
    if (this.model.instructions !== undefined) result.instructions = this.model.instructions;
    return result;
  }

  /** Turns a handler's answer into a modern result: a copy, never the handler's own object. */
  #stamp(value: unknown, request: InboundRequest, envelope: Envelope, cacheable: boolean): Shaped {
    const serverInfo = features.shapeImplementation(this.model.info, envelope.protocolVersion);
    if (value instanceof InputRequired) {
      const missing = requiredCapabilities(value.inputRequests, envelope.clientCapabilities);
      if (missing !== undefined) throw missingCapability(missing);
      const result: Shaped = { resultType: 'input_required' };
      if (Object.keys(value.inputRequests).length > 0) result.inputRequests = value.inputRequests;
      if (value.state !== undefined) {
        result.requestState = this.#sealer.seal(request.method, request.params, value.state, principalOf(request));
      }
      result._meta = { [META_SERVER_INFO]: serverInfo };
      return result;
    }
    const shaped = value as Shaped;
    // A handler may name another result type (an extension's); without one the result is complete.
    const resultType = typeof shaped.resultType === 'string' ? shaped.resultType : 'complete';
    const result: Shaped = { ...shaped, resultType, _meta: { ...(shaped._meta as Shaped | undefined), [META_SERVER_INFO]: serverInfo } };
    if (cacheable) {
      result.ttlMs = this.#cache.ttlMs;
      result.cacheScope = this.#cache.scope;
    }
    return result;
  }
}

/**
 * Who is asking (with HTTP auth): a requestState is bound to it (MCP 2026-07-28, Basic > Patterns > Multi
 * Round-Trip Requests > Basic Workflow > Server Requirements).
 */
function principalOf(request: InboundRequest): string | undefined {
  return request.auth === undefined ? undefined : authPrincipal(request.auth);
}

/** `-32021`: serving the request needs client capabilities this request did not declare. */
export function missingCapability(requiredCapabilities: ClientCapabilities): ProtocolError {
  return new ProtocolError(ErrorCode.MissingRequiredClientCapability, 'Missing required client capability', { requiredCapabilities });
}


/** The handler context of one modern request: its own envelope, no connection state, no outbound requests. */
class ModernContext extends RequestContext implements Context {
  readonly era = 'modern';
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;
  readonly #envelope: Envelope;
  readonly #logThreshold: number;

  constructor(request: InboundRequest, envelope: Envelope, logging: boolean) {
    super(request);
    this.#envelope = envelope;
    // Logging is opt-in per request: without the envelope's logLevel nothing is ever sent.
    this.#logThreshold = logging && envelope.logLevel !== undefined ? LOGGING_LEVELS.indexOf(envelope.logLevel) : Infinity;
  }

  get protocolVersion(): string {
    return this.#envelope.protocolVersion;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.#envelope.clientCapabilities;
  }

  get clientInfo(): Implementation | undefined {
    return this.#envelope.clientInfo;
  }

  progress(progress: number, total?: number, message?: string): void {
    this.request.progress(progress, total, message);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (LOGGING_LEVELS.indexOf(level) < this.#logThreshold) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.request.notify('notifications/message', params);
  }

  #refuse(method: string): Promise<never> {
    // 2026-07-28 servers send no requests (MCP 2026-07-28, Basic > Patterns > Overview): the same -32600
    // no-back-channel refusal as in any context without one; handlers answer inputRequired(…) instead
    // (docs/troubleshooting.md, `ctx.elicit()` rejects at once).
    return Promise.reject(new OutboundRequestError(`Cannot send '${method}': ${NO_BACK_CHANNEL}`, ErrorCode.InvalidRequest));
  }

  elicit(): Promise<Shaped> {
    return this.#refuse('elicitation/create');
  }

  sample(): Promise<Shaped> {
    return this.#refuse('sampling/createMessage');
  }

  listRoots(): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.#refuse('roots/list');
  }

  ping(): Promise<void> {
    return this.#refuse('ping');
  }
}

