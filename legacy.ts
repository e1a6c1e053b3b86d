// The 2025 lifecycle of one connection: initialize (negotiation, its gate, the idempotent repeat), capabilities, log
// level, subscriptions, change notifications, the method table (in the middleware chain) and its handlers' context
// (server→client requests, the `inputRequired` shim). Owns only this connection's lifecycle state; never writes a
// field the negotiated version lacks, serves what it did not advertise, or asks what the client did not declare.

import type { Dispatcher } from './dispatcher.ts';
import * as features from './features.ts';
import {
  checkElicitationId,
  describeCapabilities,
  type InputRequest,
  InputRequired,
  MAX_INPUT_ROUNDS,
  requiredCapabilities,
  UrlElicitationRequiredError,
} from './input.ts';
import {
  chain,
  ErrorCode,
  invalidParams,
  isPlainObject,
  isRequestId,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  methodNotFound,
  ProtocolError,
  type RequestId,
  randomBytes,
  toBase64Url,
  tooManyInFlight,
} from './jsonrpc.ts';
import type { ChangeEvent } from './registry.ts';
import { type InboundRequest, OutboundRequestError, RequestContext } from './request.ts';
import {
  type ClientCapabilities,
  type DetachedContext,
  type DetachOptions,
  type ExtensionMethod,
  type Implementation,
  type InitializeParams,
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  LOGGING_LEVELS,
  type LoggingLevel,
  MissingCapabilityError,
  type RequestOptions,
  type Viewer,
} from './types.ts';

export interface LegacyOptions {
  maxSubscriptions: number;
  /** Also bounds the notifications and batch elements held behind a running initialize hook. */
  maxInFlight: number;
}

/** `initializing`: the server's initialize hook is running; every later frame waits for it, in order. */
type Phase = 'awaiting-initialize' | 'initializing' | 'initialized';
type Advertised = Record<'tools' | 'resources' | 'prompts' | 'logging' | 'completions', boolean>;
type Shaped = Record<string, unknown>;
type ServerModel = features.ServerModel;
type Decide = (refusal?: JsonRpcErrorObject) => void;

const ADVERTISED_SETS = new Map<string, Advertised>();

/** The one frozen object per advertised set (five flags, fixed once committed): an idle session keeps no copy. */
function shared(advertised: Advertised): Advertised {
  const key = `${+advertised.tools}${+advertised.resources}${+advertised.prompts}${+advertised.logging}${+advertised.completions}`;
  let known = ADVERTISED_SETS.get(key);
  if (known === undefined) ADVERTISED_SETS.set(key, (known = Object.freeze(advertised)));
  return known;
}

/** A committed 2025 handshake: what a shared session store keeps of a session. */
export interface Handshake {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation;
}

/** What a 2025 client sets after the handshake: a shared session store keeps it, so every process applies it. */
export interface SessionState {
  logLevel: LoggingLevel;
  subscriptions: string[];
}

/** Saves the state a request is about to set, before it is acknowledged; rejects with the request's error answer. */
export type SaveSessionState = (state: SessionState) => Promise<void>;

/**
 * What arrives while the initialize hook runs (requests, batches, notifications): replayed in arrival order; held
 * cancels withdraw held requests, batch elements included. `version`: what the handshake negotiates if it commits.
 */
interface Gate {
  held: (() => void)[];
  cancels: Set<RequestId>;
  version: string;
  /** Notifications and batch elements held, at most maxInFlight (held requests are in the dispatcher's table). */
  frames: number;
  /** Past that bound a batch is refused and a notification dropped; the first drop is logged. */
  overflowed: boolean;
}
type Method = (lifecycle: LegacyLifecycle, request: InboundRequest, ctx: LegacyContext) => unknown;
type FeatureHandler = (model: ServerModel, params: Shaped, ctx: LegacyContext) => unknown;

/** Methods served after the handshake, each behind the capability that advertises it. */
type MethodEntry = { capability: keyof Advertised | undefined; serve: Method };
const METHODS: Record<string, MethodEntry> = {
  'tools/list': { capability: 'tools', serve: (l, r, c) => features.listTools(l.model, r.params, c) },
  'tools/call': {
    capability: 'tools',
    serve: (l, r, c) => {
      const call: InputCall = { lifecycle: l, request: r, ctx: c, serve: features.callTool, round: 0 };
      return chain(withInput, call, call, undefined, toolInputFailed);
    },
  },
  'resources/list': {
    capability: 'resources',
    serve: (l, r, c) => features.listResources(l.model, r.params, c),
  },
  'resources/templates/list': {
    capability: 'resources',
    serve: (l, r, c) => features.listResourceTemplates(l.model, r.params, c),
  },
  'resources/read': {
    capability: 'resources',
    serve: (l, r, c) => withInput({ lifecycle: l, request: r, ctx: c, serve: features.readResource, round: 0 }),
  },
  'resources/subscribe': { capability: 'resources', serve: (l, r, c) => l.subscribe(r.params, c) },
  'resources/unsubscribe': { capability: 'resources', serve: (l, r) => l.unsubscribe(r.params) },
  'prompts/list': { capability: 'prompts', serve: (l, r, c) => features.listPrompts(l.model, r.params, c) },
  'prompts/get': {
    capability: 'prompts',
    serve: (l, r, c) => withInput({ lifecycle: l, request: r, ctx: c, serve: features.getPrompt, round: 0 }),
  },
  'completion/complete': { capability: 'completions', serve: (l, r, c) => features.complete(l.model, r.params, c) },
  'logging/setLevel': { capability: 'logging', serve: (l, r) => l.setLevel(r.params) },
  ping: { capability: undefined, serve: () => ({}) },
};

const EMPTY_RESULT = Object.freeze({});
const NOT_INITIALIZED = 'Invalid Request: server not initialized; send initialize first';
/** The refusal of a batch on any connection but a 2025-03-26 one (JSON-RPC batches exist in that revision only). */
export const BATCH_REFUSAL: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.InvalidRequest,
  message: 'Invalid Request: batches are accepted only under protocol 2025-03-26',
});

/** What is wrong with an initialize request's params, if anything. */
export function initializeParamsRefusal(params: Record<string, unknown>): string | undefined {
  if (typeof params.protocolVersion !== 'string') return 'params.protocolVersion must be a string';
  if (!isPlainObject(params.capabilities)) return 'params.capabilities must be an object';
  if (!features.isImplementation(params.clientInfo)) return 'params.clientInfo must be {name: string, version: string}';
  return undefined;
}

/** The requested version when the server speaks it, else the latest (MCP 2025-11-25, Lifecycle). */
function negotiateVersion(requested: string): string {
  // The known constant, not the parsed string: an idle session keeps a reference instead of its own copy.
  return LEGACY_VERSIONS.find((version) => version === requested) ?? LATEST_LEGACY_VERSION;
}

/** One connection's 2025 lifecycle: its phase, the handshake, the session state and the method table. */
export class LegacyLifecycle {
  readonly model: ServerModel;
  readonly #dispatcher: Dispatcher;
  readonly #options: LegacyOptions;
  #phase: Phase = 'awaiting-initialize';
  version = LATEST_LEGACY_VERSION;
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined;
  /** Set when the handshake commits; the initialize result is derived from it (and `version`) when asked again. */
  #advertised: Advertised | undefined;
  #logLevel = LOGGING_LEVELS.indexOf('info');
  #subscriptions: Set<string> | undefined;
  /** Who subscribed last (a restored session's subscriber is no one): its updates are those it may see (mayView). */
  #subscriber: Viewer | undefined;
  /** Present exactly while the phase is `initializing`. */
  #gate: Gate | undefined;
  /** While a released gate replays what it held: the ids its held cancels withdrew. */
  #withdrawn: Set<RequestId> | undefined;
  readonly #saveState: SaveSessionState | undefined;
  /** The last state change being saved (with a shared store): the next one starts from what it leaves. */
  #saving: Promise<unknown> | undefined;

  constructor(model: ServerModel, dispatcher: Dispatcher, options: LegacyOptions, saveState?: SaveSessionState) {
    this.model = model;
    this.#dispatcher = dispatcher;
    this.#options = options;
    this.#saveState = saveState;
  }

  /**
   * DispatcherHooks.onRequest on a 2025 connection: the phase, then the method table or an extension's method, run
   * inside the middleware chain (docs/api.md, Middleware) with the context its handler gets.
   */
  onRequest(request: InboundRequest): unknown {
    const { method } = request;
    // Withdrawn whatever the phase: after a refused handshake the cancel itself is dropped.
    if (this.#withdrawn?.has(request.id) === true) {
      this.#dispatcher.cancel(request.id);
      return undefined;
    }
    if (this.#phase === 'initializing') return this.#hold(request);
    if (method === 'initialize') return this.#initialize(request);
    const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (this.#phase === 'awaiting-initialize') {
      if (method === 'ping') return EMPTY_RESULT;
      const known = this.model.extensions.some((extension) => Object.hasOwn(extension.legacyMethods ?? {}, method));
      if (entry === undefined && !known) throw methodNotFound(method);
      throw new ProtocolError(ErrorCode.InvalidRequest, NOT_INITIALIZED);
    }
    const extended = entry === undefined ? this.#extensionMethod(method) : undefined;
    if (entry === undefined ? extended === undefined : entry.capability && !this.#advertised![entry.capability])
      throw methodNotFound(method);
    const ctx = new LegacyContext(this, request);
    if (this.model.middleware.length === 0) return this.#serve(request, ctx, entry, extended);
    return features.intercepted(this.model, request, ctx, false, () => this.#serve(request, ctx, entry, extended));
  }

  /** Serves a request by its method-table entry, else by the extension's method. */
  #serve(request: InboundRequest, ctx: LegacyContext, entry: MethodEntry | undefined, extended?: ExtensionMethod) {
    return entry !== undefined ? entry.serve(this, request, ctx) : extended!.serve(request.params, ctx);
  }

  /** The method an installed extension serves at the negotiated version under `method` (Extension.legacyMethods). */
  #extensionMethod(method: string): ExtensionMethod | undefined {
    for (const extension of this.model.extensions) {
      const methods = extension.legacyMethods;
      if (methods === undefined || !Object.hasOwn(methods, method)) continue;
      if (extension.legacyCapabilities?.(this.version) !== undefined) return methods[method];
    }
    return undefined;
  }

  /** DispatcherHooks.onNotification: held behind the gate, dropped before the handshake; a cancel withdraws. */
  onNotification(message: JsonRpcNotification): void {
    const requestId = message.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
    if (this.#phase === 'initializing') {
      const gate = this.#gate!;
      if (!this.#holdFrames(gate, 1)) {
        if (!gate.overflowed)
          this.model.settings.logger.warn(
            `dropped '${message.method}' and later notifications: too many frames held behind the initialize hook (limit ${this.#options.maxInFlight})`,
          );
        gate.overflowed = true;
        return;
      }
      if (isRequestId(requestId)) gate.cancels.add(requestId);
      gate.held.push(() => this.onNotification(message));
      return;
    }
    if (this.#phase === 'initialized' && isRequestId(requestId)) this.#dispatcher.cancel(requestId);
  }

  /** A request that arrived while the initialize hook runs: served after it, unless a held cancel withdrew it. */
  #hold(request: InboundRequest): Promise<unknown> {
    const gate = this.#gate!;
    return new Promise((resolve, reject) => {
      gate.held.push(() => {
        try {
          resolve(this.onRequest(request));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** The hook ended: the phase it leads to, then what the gate held, replayed in order. */
  #release(committed: boolean): void {
    this.#phase = committed ? 'initialized' : 'awaiting-initialize';
    const gate = this.#gate!;
    this.#gate = undefined; // a replayed initialize may open a new gate
    this.#withdrawn = gate.cancels;
    for (const replay of gate.held) replay();
    this.#withdrawn = undefined;
  }

  /** Counts `count` more frames held behind the gate; false (nothing counted) when they would pass the bound. */
  #holdFrames(gate: Gate, count: number): boolean {
    if (gate.frames + count > this.#options.maxInFlight) return false;
    gate.frames += count;
    return true;
  }

  /** Why a batch of `length` arriving now is refused: not (to be) 2025-03-26, or no room is left behind the hook. */
  batchRefusal(length: number): JsonRpcErrorObject | undefined {
    const gate = this.#gate;
    if ((gate?.version ?? (this.#phase === 'initialized' ? this.version : undefined)) !== '2025-03-26')
      return BATCH_REFUSAL;
    return gate !== undefined && gate.frames + length > this.#options.maxInFlight
      ? tooManyInFlight(this.#options.maxInFlight)
      : undefined;
  }

  /** DispatcherHooks.checkBatch: refused (batchRefusal, or holding initialize), held behind the gate, or served. */
  checkBatch(items: unknown[], decide: Decide): JsonRpcErrorObject | 'held' | undefined {
    if (this.#phase === 'initializing') {
      if (!this.#holdFrames(this.#gate!, items.length)) return tooManyInFlight(this.#options.maxInFlight);
      // Held like a request and decided in its turn. After a refused handshake it is served, so that its requests
      // meet the not-initialized gate as held requests do; a batch held behind a replayed initialize waits again.
      this.#gate!.held.push(() => {
        const refusal = this.#phase === 'awaiting-initialize' ? undefined : this.checkBatch(items, decide);
        if (refusal !== 'held') decide(refusal);
      });
      return 'held';
    }
    const refusal = this.batchRefusal(items.length);
    if (refusal !== undefined) return refusal;
    if (items.some((item) => isPlainObject(item) && item.method === 'initialize'))
      return { code: ErrorCode.InvalidRequest, message: 'Invalid Request: initialize must not be part of a batch' };
    return undefined;
  }

  /** Commits once the request is valid and the initialize hook (if any) succeeded; a repeat answers the same result. */
  #initialize(request: InboundRequest): Shaped | Promise<Shaped> {
    if (this.#advertised !== undefined) return this.#result();
    const { params } = request;
    const refusal = initializeParamsRefusal(params);
    if (refusal !== undefined) throw invalidParams(refusal);
    const { protocolVersion, capabilities, clientInfo } = params as unknown as InitializeParams;
    const version = negotiateVersion(protocolVersion);
    const hook = this.model.settings.onInitialize;
    if (hook === undefined) return this.#commit(version, capabilities, clientInfo);
    this.#phase = 'initializing';
    this.#gate = { held: [], cancels: new Set(), version, frames: 0, overflowed: false };
    const answer = (async () => {
      await hook(
        { protocolVersion, capabilities, clientInfo, _meta: params._meta },
        { signal: request.signal, requestId: request.id, protocolVersion: version },
      );
      return this.#commit(version, capabilities, clientInfo);
    })();
    // Only the hook's end releases the gate, after the dispatcher (which subscribed first) wrote the answer.
    queueMicrotask(() => answer.then(this.#release.bind(this, true), this.#release.bind(this, false)));
    return answer;
  }

  /** Records the handshake; the phase moves on here unless a gate's release moves it. */
  #commit(version: string, capabilities: ClientCapabilities, clientInfo: Implementation): Shaped {
    const { model } = this;
    this.version = version;
    this.clientCapabilities = capabilities;
    this.clientInfo = clientInfo;
    this.#advertised = shared({ ...features.servedFeatures(model, 'legacy'), logging: model.settings.logging });
    if (this.#phase === 'awaiting-initialize') this.#phase = 'initialized';
    return this.#result();
  }

  /** The initialize result, from the committed handshake. */
  #result(): Shaped {
    const { model, version } = this;
    const capabilities = features.serverCapabilities(this.#advertised!, version);
    // An extension adds capabilities, never replacing the core's; `extensions` maps merge, each beside the others.
    for (const extension of model.extensions)
      for (const [key, value] of Object.entries(extension.legacyCapabilities?.(version) ?? {})) {
        const held = capabilities[key];
        if (key === 'extensions' && isPlainObject(held) && isPlainObject(value))
          capabilities[key] = { ...held, ...value };
        else if (!Object.hasOwn(capabilities, key)) capabilities[key] = value;
      }
    const serverInfo = features.shapeImplementation(model.info, version);
    const result: Shaped = { protocolVersion: version, capabilities, serverInfo };
    if (model.instructions !== undefined) result.instructions = model.instructions;
    return result;
  }

  /** As if the handshake happened: at that version without capabilities (stateless HTTP), or a restored session's. */
  assumeInitialized(handshake: string | (Handshake & Partial<SessionState>)): void {
    if (typeof handshake !== 'string') {
      this.#commit(negotiateVersion(handshake.protocolVersion), handshake.clientCapabilities, handshake.clientInfo);
      this.applyState(handshake);
    } else this.#commit(negotiateVersion(handshake), {}, { name: 'stateless', version: '0' });
  }

  /** The negotiated version, as a handler context reads it. */
  get protocolVersion(): string {
    return this.version;
  }

  /** What the committed handshake agreed (undefined before it). */
  get handshake(): Handshake | undefined {
    // Committed, even while the gate of an initialize hook is still being released (its answer is being sent).
    if (this.#advertised === undefined) return undefined;
    return { protocolVersion: this.version, clientCapabilities: this.clientCapabilities, clientInfo: this.clientInfo! };
  }

  /** Whether the handshake committed and no gate holds frames any more. */
  get initialized(): boolean {
    return this.#phase === 'initialized';
  }

  /** logging/setLevel. */
  setLevel(params: Record<string, unknown>): object | Promise<object> {
    const level = LOGGING_LEVELS.indexOf(params.level as LoggingLevel);
    if (level < 0) throw invalidParams(`params.level must be one of ${LOGGING_LEVELS.join(', ')}`);
    return this.#change(
      () => (this.#logLevel = level),
      (state) => ({ ...state, logLevel: LOGGING_LEVELS[level]! }),
    );
  }

  /** resources/subscribe, at most maxSubscriptions URIs per session. */
  subscribe(params: Record<string, unknown>, ctx: Viewer): object | Promise<object> {
    const { uri } = params;
    if (typeof uri !== 'string') throw invalidParams('params.uri must be a string');
    const full = (held = new Set<string>()) => !held.has(uri) && held.size >= this.#options.maxSubscriptions;
    if (full(this.#subscriptions)) throw new ProtocolError(ErrorCode.InternalError, 'Subscription limit reached');
    const { era, protocolVersion, clientCapabilities, clientInfo, caller, auth, http } = ctx;
    this.#subscriber = { era, protocolVersion, clientCapabilities, clientInfo, caller, auth, http };
    return this.#change(
      () => (this.#subscriptions ??= new Set()).add(uri),
      (state) => {
        if (full(new Set(state.subscriptions)))
          throw new ProtocolError(ErrorCode.InternalError, 'Subscription limit reached');
        return state.subscriptions.includes(uri) ? state : { ...state, subscriptions: [...state.subscriptions, uri] };
      },
    );
  }

  /** resources/unsubscribe. */
  unsubscribe(params: Record<string, unknown>): object | Promise<object> {
    const { uri } = params;
    if (typeof uri !== 'string') throw invalidParams('params.uri must be a string');
    return this.#change(
      () => this.#subscriptions?.delete(uri),
      (state) => ({ ...state, subscriptions: state.subscriptions.filter((held) => held !== uri) }),
    );
  }

  /**
   * One change of the session's state, acknowledged once made: `locally` without a shared store; with one, saved in
   * turn, each computed (`next`) from what the one before left, so that two changes never overwrite each other.
   */
  #change(locally: () => unknown, next: (state: SessionState) => SessionState): object | Promise<object> {
    const save = this.#saveState;
    if (save === undefined) {
      locally();
      return EMPTY_RESULT;
    }
    const saved = (this.#saving ?? Promise.resolve()).then(async () => {
      const state = next({
        logLevel: LOGGING_LEVELS[this.#logLevel]!,
        subscriptions: [...(this.#subscriptions ?? [])],
      });
      await save(state);
      this.applyState(state);
      return EMPTY_RESULT;
    });
    this.#saving = saved.catch(() => undefined);
    return saved;
  }

  /** Sets what `state` holds: a request's change once saved, or the state a shared store recorded for the session. */
  applyState(state: Partial<SessionState>): void {
    const level = state.logLevel === undefined ? -1 : LOGGING_LEVELS.indexOf(state.logLevel);
    if (level !== -1) this.#logLevel = level;
    if (Array.isArray(state.subscriptions)) {
      const uris = state.subscriptions.filter((uri) => typeof uri === 'string');
      this.#subscriptions = uris.length === 0 ? undefined : new Set(uris.slice(0, this.#options.maxSubscriptions));
    }
  }

  /** Forwards a server change to this client when it is initialized and the change concerns it. */
  onChange(event: ChangeEvent): void {
    const advertised = this.#advertised;
    if (advertised === undefined || event.type === 'keyed') return; // keyed events go to 2026-07-28 listen streams
    if (event.type !== 'resource') {
      if (advertised[event.type]) this.#dispatcher.notifyChange(`notifications/${event.type}/list_changed`, undefined);
    } else if (
      this.#subscriptions?.has(event.uri) === true &&
      features.mayView(this.model, 'legacy', event.uri, this.#subscriber)
    ) {
      this.#dispatcher.notifyChange('notifications/resources/updated', { uri: event.uri });
    }
  }

  /** Whether a log message at `level` goes to this client (logging advertised, at or above its level). */
  passesLogLevel(level: LoggingLevel): boolean {
    return this.#advertised?.logging === true && LOGGING_LEVELS.indexOf(level) >= this.#logLevel;
  }
}

/** A request whose handler (`serve`) may answer `inputRequired(…)`, in its `round` of client input (withInput). */
interface InputCall {
  readonly lifecycle: LegacyLifecycle;
  readonly request: InboundRequest;
  readonly ctx: LegacyContext;
  readonly serve: FeatureHandler;
  readonly round: number;
}

/**
 * Runs a handler that may answer `inputRequired(…)`: the client is asked, the handler rerun (MAX_INPUT_ROUNDS). The
 * steps are module-level functions of one InputCall: a request served at once makes no closure (jsonrpc.ts, chain).
 */
function withInput(call: InputCall): unknown {
  return chain(serveRound, call.request.params, call, answered, refused);
}

function serveRound(params: Shaped, { lifecycle, ctx, serve }: InputCall): unknown {
  return serve(lifecycle.model, params, ctx);
}

/** A handler's answer: a result as 2025 sends it, or an input round, after which the handler runs again. */
function answered(result: unknown, call: InputCall): unknown {
  if (!(result instanceof InputRequired)) return withoutResultType(result);
  const { request, ctx, round } = call;
  if (round === MAX_INPUT_ROUNDS)
    throw new InputRoundError(undefined, `The request needed more than ${MAX_INPUT_ROUNDS} rounds of client input`);
  const asked = ctx.ask(result.inputRequests).catch((error: unknown) => {
    throw request.signal.aborted ? error : new InputRoundError(error);
  });
  return asked.then((responses) => {
    ctx.inputResponses = responses;
    ctx.requestState = result.state;
    return withInput({ ...call, round: round + 1 });
  });
}

/** A handler's throw: a URL elicitation is -32042 where the client can open the URLs, else an input round failed. */
function refused(error: unknown, { ctx }: InputCall): never {
  if (!(error instanceof UrlElicitationRequiredError)) throw error;
  // -32042 goes only to a 2025-11-25 client that can open the URLs (Client Features > Elicitation >
  // Capabilities); to any other it is the missing capability an input round would have met.
  const missing = features.since(ctx.protocolVersion, '2025-11-25')
    ? requiredCapabilities(error.inputRequests(), ctx.clientCapabilities)
    : { elicitation: { url: {} } };
  if (missing === undefined) {
    const elicitations = error.elicitations.map((elicitation) => ({ mode: 'url', ...elicitation }));
    throw new ProtocolError(ErrorCode.UrlElicitationRequired, error.message, { elicitations });
  }
  throw new InputRoundError(new MissingCapabilityError(describeCapabilities(missing), 'elicitation/create'));
}

/** Asking the client failed (capability missing, refused, timed out, too many rounds): a tool failure, not an error. */
function toolInputFailed(error: unknown, { lifecycle, request }: InputCall): Shaped {
  if (!(error instanceof InputRoundError)) throw error;
  lifecycle.model.settings.logger.error(`tool '${String(request.params.name)}' could not get its input`, error.cause);
  return features.toolFailureResult(error.message, lifecycle.version);
}

/** Drops the 2026-07-28 resultType, ttlMs and cacheScope; a resultType but "complete" (or null) is a bug: -32603. */
function withoutResultType(result: unknown): unknown {
  if (!isPlainObject(result)) return result;
  const { resultType } = result;
  if (resultType !== 'complete' && resultType !== null && resultType !== undefined)
    throw new TypeError(`handler result claims resultType ${JSON.stringify(resultType)} on a 2025 connection`);
  // Most results carry none of the three: copied whole then, which V8 does from the object's layout, where a copy
  // that leaves keys out calls into its runtime (bench/README.md, Instructions per call). A copy either way: a
  // batch holds its answers as objects until the last one, and middleware and tracing see the answer.
  if (resultType === undefined && result.ttlMs === undefined && result.cacheScope === undefined) return { ...result };
  const { resultType: _dropped, ttlMs, cacheScope, ...rest } = result;
  return rest;
}

/** Getting input from a 2025 client failed; `cause` says why (kept off the wire). */
class InputRoundError extends Error {
  constructor(cause: unknown, message = 'The client could not provide the requested input') {
    super(message, { cause });
  }
}

type Roots = { roots: { uri: string; name?: string }[] };

/** The handler context on a 2025 connection; detached (a task's), input goes to the task, progress and log outlive. */
class LegacyContext extends RequestContext implements features.CallSite {
  readonly era = 'legacy';
  readonly #lifecycle: LegacyLifecycle;

  constructor(lifecycle: LegacyLifecycle, request: InboundRequest, detached?: DetachOptions) {
    // The handshake committed before any handler runs and never changes after: a context keeps what it agreed.
    super(request, lifecycle, detached);
    this.#lifecycle = lifecycle;
  }

  progress(progress: number, total?: number, message?: string): void {
    // `message` joined progress notifications in 2025-03-26.
    const text = features.since(this.protocolVersion, '2025-03-26') ? message : undefined;
    this.request.progress(progress, total, text, this.detached !== undefined, this.detached?.meta);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.#lifecycle.passesLogLevel(level)) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    if (this.detached?.meta !== undefined) params._meta = this.detached.meta;
    this.request.notify('notifications/message', params, false, this.detached !== undefined);
  }

  /** ToolCall.detach: this request's identity and input, `options` for the rest. */
  detach(options: DetachOptions): DetachedContext {
    const ctx = new LegacyContext(this.#lifecycle, this.request, options);
    ctx.inputResponses = this.inputResponses;
    ctx.requestState = this.requestState;
    return ctx;
  }

  /** ToolCall.notify: on the connection, related to no request, after this request's answer. */
  notifyCaller(method: string, params: Record<string, unknown>): void {
    this.request.notifyAfterAnswer(method, params);
  }

  /** A server→client request if the client declared what it needs (requiredCapabilities); detached: task input. */
  #send(method: string, params?: Shaped, options?: RequestOptions) {
    // No back-channel is the answer whatever the capabilities (a stateless client declares none), so it comes first.
    const detached = this.detached;
    const refusal = detached === undefined ? this.request.refusal(method) : undefined;
    if (refusal !== undefined) return Promise.reject(refusal);
    const missing = requiredCapabilities({ request: { method, params } as InputRequest }, this.clientCapabilities);
    if (missing !== undefined) return Promise.reject(new MissingCapabilityError(describeCapabilities(missing), method));
    if (detached === undefined) return this.request.request(method, params, options);
    if (method === 'ping')
      return Promise.reject(new OutboundRequestError("Cannot send 'ping' from a detached handler"));
    return detached.input({ method: method as InputRequest['method'], params: params ?? {} });
  }

  elicit(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    if (!features.since(this.protocolVersion, params.mode === 'url' ? '2025-11-25' : '2025-06-18')) {
      const capability = params.mode === 'url' ? 'elicitation.url' : 'elicitation';
      return Promise.reject(new MissingCapabilityError(capability, 'elicitation/create'));
    }
    // A URL elicitation needs an id on 2025-11-25 (Client Features > Elicitation > URL Mode), which 2026-07-28's has
    // not: one written for both eras (an input request) gets a random one here.
    const asked =
      params.mode === 'url' && params.elicitationId === undefined
        ? { ...params, elicitationId: toBase64Url(randomBytes(16)) }
        : params;
    return this.#send('elicitation/create', asked, options) as Promise<Shaped>;
  }

  sample(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    return this.#send('sampling/createMessage', params, options) as Promise<Shaped>;
  }

  listRoots(options?: RequestOptions): Promise<Roots> {
    return this.#send('roots/list', undefined, options) as Promise<Roots>;
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#send('ping', undefined, options);
  }

  /** Sends notifications/elicitation/complete to a 2025-11-25 client declaring `elicitation.url` (Client Features). */
  completeElicitation(elicitationId: string): void {
    checkElicitationId(elicitationId);
    const declared = this.clientCapabilities.elicitation;
    if (!features.since(this.protocolVersion, '2025-11-25') || !isPlainObject(declared) || !isPlainObject(declared.url))
      return;
    // Optional to the client ("MAY"), so it is dropped, not queued, when the client has stopped reading.
    this.request.notify('notifications/elicitation/complete', { elicitationId }, false, true);
  }

  /** ExtensionContext.sendInput: the input request as the server→client request it names. */
  sendInput(input: InputRequest): Promise<Shaped> {
    const params = input.params ?? {};
    if (input.method === 'elicitation/create') return this.elicit(params);
    if (input.method === 'sampling/createMessage') return this.sample(params);
    // roots/list takes no params of its own: only a `_meta` (a task's) is worth sending.
    return this.#send('roots/list', Object.keys(params).length > 0 ? params : undefined) as Promise<Shaped>;
  }

  /** Sends every input request of one round to the client at once; resolves with the answers by key. */
  async ask(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>> {
    const keys = Object.keys(requests);
    // A round the client cannot answer in full is refused before anything is sent (no request to withdraw later).
    const missing = requiredCapabilities(requests, this.clientCapabilities);
    if (missing !== undefined) throw new MissingCapabilityError(describeCapabilities(missing), 'the requested input');
    const answers = await Promise.all(keys.map((key) => this.sendInput(requests[key]!)));
    const responses: Record<string, Record<string, unknown>> = Object.create(null);
    for (const [index, key] of keys.entries()) responses[key] = answers[index]!;
    return responses;
  }
}
