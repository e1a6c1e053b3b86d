// Public entry of mcp-core: createServer(), registration of tools, resources (one by one or in a batch), resource
// templates and prompts, change notifications, extensions (use, unuse, close), and the transport side (connect).
// Owns the server-wide model shared by all connections; holds no per-connection state, names no extension, and its
// only I/O is the default logger's lines on stderr.

import { Connection, type ConnectionOptions, type ConnectionSettings } from './era.ts';
import { type HeaderParam, headerParamsOf, type ServerModel, type ToolEntry, wrappedSchema } from './features.ts';
import { RequestStateSealer } from './input.ts';
import { describeValue } from './jsonrpc.ts';
import type { CachedList, CachePolicy } from './modern.ts';
import { checkArrival, checkCacheHint, isCoreMethod, readEnvelope, routingParam } from './modern.ts';
import { type ChangeEvent, ChangeHub, type Registration, Registry } from './registry.ts';
import { compileToolSchema, type ToolArgsFor, type ToolStructuredFor } from './tool-schema.ts';
import { ErrorCounts } from './tracing.ts';
import type {
  CacheHint,
  Envelope,
  Era,
  Extension,
  FrameExtras,
  Implementation,
  InitializeHook,
  Logger,
  Middleware,
  PromptDefinition,
  PromptHandler,
  PromptUpdate,
  ResourceDefinition,
  ResourceHandler,
  ResourceTemplateDefinition,
  ResourceTemplateHandler,
  ResourceTemplateUpdate,
  ResourceUpdate,
  ServerMetrics,
  ToolDefinition,
  ToolHandler,
  ToolUpdate,
} from './types.ts';
import { UriTemplate } from './uri-template.ts';

export type { Connection, ConnectionOptions } from './era.ts';
export type { HeaderParam } from './features.ts';
export {
  elicitInput,
  type InputRequest,
  InputRequired,
  inputRequired,
  listRootsInput,
  sampleInput,
  type UrlElicitation,
  UrlElicitationRequiredError,
  urlElicitationRequired,
} from './input.ts';
export type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.ts';
export { ErrorCode, insufficientScope, ProtocolError } from './jsonrpc.ts';
export type { Handshake } from './legacy.ts';
export { missingCapability } from './modern.ts';
export type { ChangeEvent, Registration } from './registry.ts';
export { OutboundRequestError } from './request.ts';
export type {
  StandardJSONSchemaV1,
  StandardJSONSchemaV1Props,
  StandardSchemaV1,
  StandardSchemaV1Issue,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaWithJsonSchema,
  StandardTypedV1,
  StandardTypedV1Props,
  ToolArgsFor,
  ToolArgsOf,
  ToolSchema,
  ToolStructuredFor,
  ToolStructuredOf,
} from './tool-schema.ts';
export { REQUEST_TRACING_CHANNEL } from './tracing.ts';
export type * from './types.ts';
export { MissingCapabilityError, ToolError } from './types.ts';

/**
 * A deployment's channel for change events between processes (a node:cluster primary, Redis pub/sub, …): an event any
 * process publishes must reach every subscriber, its own included, in publish order per publisher. Events are plain
 * JSON: `{type: 'tools' | 'prompts' | 'resources'}`, `{type: 'resource', uri}`, or an extension's KeyedEvent.
 */
export interface ChangeBus {
  /** May be async: a rejection (or a throw) is logged, and the change reaches no process. */
  publish(event: ChangeEvent): void | Promise<void>;
  /** May be async: a rejection is logged. What it delivers is checked: anything but a change event is logged and dropped. */
  subscribe(deliver: (event: ChangeEvent) => void): void | Promise<void>;
}

/** Whether `value`, delivered by a change bus from another process, is a change event this server can fan out. */
function isChangeEvent(value: unknown): value is ChangeEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { type, uri, key, id, method, audience, params } = value as Record<string, unknown>;
  if (type === 'tools' || type === 'prompts' || type === 'resources') return true;
  if (type === 'resource') return typeof uri === 'string';
  const named = [key, id, method, audience === undefined ? '' : audience].every((field) => typeof field === 'string');
  return type === 'keyed' && named && typeof params === 'object' && params !== null;
}

/** Options of createServer(): limits, defaults and hooks shared by every connection of the server. */
export interface ServerOptions {
  /** Sent to clients in the initialize result. */
  instructions?: string;
  /** Advertise `logging` and let handlers send log messages (default true). */
  logging?: boolean;
  /** Items per page of every list method (default 100). */
  pageSize?: number;
  /** Concurrent requests per connection; beyond it a request is refused with -32603 (default 1024). */
  maxInFlight?: number;
  /** Elements one 2025-03-26 batch may hold; a longer batch is refused whole with -32600 (default 100). */
  maxBatchLength?: number;
  /** Bytes of the answers held for a connection's open batches; an answer past it is -32603 (default 16 MiB). */
  maxBatchAnswerBytes?: number;
  /** Default timeout of server→client requests (default 60 000 ms). */
  requestTimeoutMs?: number;
  /** `resources/subscribe` URIs per connection (default 1024). */
  maxSubscriptions?: number;
  /** Open `subscriptions/listen` streams per connection (default 1024). */
  maxListens?: number;
  /** Events a listen stream holds for a backed-up client; one more ends the stream with an error (default 1024). */
  maxBufferedEvents?: number;
  /** Caching hints of cacheable 2026-07-28 results (default `ttlMs: 0`, `scope: "private"`), each list's in `lists`. */
  cache?: CacheHint & { lists?: Partial<Record<CachedList, CacheHint>> };
  /** Sealing of input-required `requestState`: HMAC `secret` (random; share it across processes), `ttlMs` (10 min). */
  requestState?: { secret?: string | Uint8Array; ttlMs?: number };
  /** Carries change events between processes: every change is published on it; its deliveries reach our connections. */
  changeBus?: ChangeBus;
  /** JSON Schema documents by absolute URI that tools' schemas may `$ref` (never fetched: docs/api.md, JSON Schema). */
  schemas?: Record<string, object>;
  /** Development only: show thrown tool errors' messages to the client instead of a generic text. */
  exposeToolErrors?: boolean;
  /** Debug: a handler's unexpected error, answered -32603, ends the connection and reaches the transport's caller. */
  rethrow?: boolean;
  /** Runs when a 2025 client initializes; later frames of that connection wait for it. */
  onInitialize?: InitializeHook;
  /** Where the core reports handler failures and dropped frames (default: stderr). */
  logger?: Logger;
}

/** The default logger: one line per report on stderr (console.error, which every runtime has), stack included. */
const stderrLogger: Logger = {
  error(message, error) {
    let detail: string;
    try {
      detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    } catch {
      detail = Object.prototype.toString.call(error); // an object without a usable toString must not throw here
    }
    console.error(`[mcp-core] ${message}${error === undefined ? '' : `: ${detail}`}`);
  },
  warn(message) {
    console.error(`[mcp-core] ${message}`);
  },
};

/** The numeric options of ServerOptions, each a limit. */
type LimitOption = {
  [K in keyof ServerOptions]-?: ServerOptions[K] extends number | undefined ? K : never;
}[keyof ServerOptions];

/** A numeric limit of ServerOptions: `fallback` when absent, else a positive safe integer (NaN would lift the bound). */
function limit(options: ServerOptions, name: LimitOption, fallback: number): number {
  const value = options[name] ?? fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** ServerOptions.cache checked, each list's hints completed from the server's. */
function cachePolicy(cache: ServerOptions['cache']): CachePolicy {
  const names = ['tools', 'resources', 'resourceTemplates', 'prompts'] as const;
  checkCacheHint('cache', cache, ['ttlMs', 'scope', 'lists']);
  checkCacheHint('cache.lists', cache?.lists, names);
  const server = { ttlMs: cache?.ttlMs ?? 0, scope: cache?.scope ?? 'private' } as const;
  const lists = {} as CachePolicy['lists'];
  for (const name of names) {
    const own = cache?.lists?.[name];
    checkCacheHint(`cache.lists.${name}`, own);
    lists[name] = { ttlMs: own?.ttlMs ?? server.ttlMs, scope: own?.scope ?? server.scope };
  }
  return { ...server, lists };
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The `subscriptions/listen` filter keys of the core (2026-07-28 Basic > Subscriptions), which no extension may take. */
const LISTEN_FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'resourceSubscriptions'];
/** An extension's method tables, one per era. */
const ERAS = ['modernMethods', 'legacyMethods'] as const;
const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: Object.freeze({}) });

/** What a transport uses of a server (`server.transport`), apart from the author's API (docs/api.md, Transports). */
export interface TransportSide {
  /** Opens a connection, which the transport feeds frame text (or parsed frames) and gives a way to send frames. */
  connect(options: ConnectionOptions): Connection;
  /** ServerOptions.logger (stderr by default): where the transport reports its own failures. */
  readonly logger: Logger;
  /** ServerOptions.rethrow: the transport passes `onHandlerError` to connect() and hands that error to its caller. */
  readonly rethrow: boolean;
  /** ServerOptions.maxBatchLength, for a transport that refuses a long batch before it opens a connection. */
  readonly maxBatchLength: number;
  /** Whether a `changeBus` carries every change to every process, not only to this one's connections. */
  readonly hasChangeBus: boolean;
  /** Whether a 2025 initialize waits for `onInitialize` (HTTP then streams its answer so clients can pipeline). */
  readonly hasInitializeHook: boolean;
  /** The param a 2026-07-28 HTTP request of `method` mirrors in its `Mcp-Name` header, if any (Streamable HTTP). */
  routingParam(method: string): string | undefined;
  /** Reads a 2026-07-28 request's envelope or throws its -32602/-32022 refusal; hand it on as FrameExtras.envelope. */
  readEnvelope(params: Record<string, unknown>): Envelope;
  /**
   * For a transport answering a 2026-07-28 request's arrival refusals itself, after readEnvelope: throws the -32601 of
   * a removed or unserved method, else returns the `x-mcp-header` params of the tool a `tools/call` names.
   */
  checkArrival(
    method: string,
    params: Record<string, unknown>,
    extras: FrameExtras & { envelope: Envelope },
  ): readonly HeaderParam[];
  /** Every scope a registered tool, resource, template or prompt needs (an HTTP endpoint's `scopes_supported`). */
  scopesInUse(): string[];
}

/** A resource, template or prompt after `update()`: fields merged, handler replaced, `cache` checked (at `where`). */
function updated<E extends { era: Era | undefined; definition: { era?: Era; cache?: CacheHint }; handler: unknown }>(
  current: E,
  { handler, ...fields }: Partial<E['definition']> & { handler?: E['handler'] },
  where?: string,
): E {
  if (where !== undefined) checkCacheHint(`${where}: cache`, fields.cache);
  const definition = { ...current.definition, ...fields };
  return { ...current, era: definition.era, definition, handler: handler ?? current.handler };
}

/** An MCP server: its tools, resources, templates and prompts, served on the connections transports open. */
export class Server {
  readonly #model: ServerModel;
  readonly #connectionSettings: ConnectionSettings;
  /** To this process's connections, or through the change bus to every process's. */
  readonly #announce: (event: ChangeEvent) => void;
  /** The live connections (the model's change hub, seen with their type). */
  readonly #connections: ChangeHub<Connection>;
  /** The resource batch under way: what it registered, and whether anything else changed. */
  #batch: { readonly registered: Registration<ResourceUpdate>[]; changed: boolean } | undefined;
  readonly #schemas: { schemas?: Record<string, object> };
  /** What transports use (connect, the options they act on): not part of the author's API. */
  readonly transport: TransportSide;

  constructor(info: Implementation, options: ServerOptions = {}) {
    if (typeof info?.name !== 'string' || typeof info.version !== 'string')
      throw new TypeError('createServer needs {name: string, version: string}');
    this.#schemas = { schemas: options.schemas };
    this.#connectionSettings = {
      errors: new ErrorCounts(),
      servesMethod: (method) => isCoreMethod(method) || this.#extensionServes(method),
      maxInFlight: limit(options, 'maxInFlight', 1024),
      maxBatchLength: limit(options, 'maxBatchLength', 100),
      maxBatchAnswerBytes: limit(options, 'maxBatchAnswerBytes', 16 * 1024 * 1024),
      requestTimeoutMs: limit(options, 'requestTimeoutMs', 60_000),
      maxSubscriptions: limit(options, 'maxSubscriptions', 1024),
      maxStreams: limit(options, 'maxListens', 1024),
      maxBufferedEvents: limit(options, 'maxBufferedEvents', 1024),
      cache: cachePolicy(options.cache),
      sealer: new RequestStateSealer(options.requestState),
    };
    const hub = new ChangeHub<Connection>();
    this.#connections = hub;
    const bus = options.changeBus;
    this.#announce = bus === undefined ? (event) => hub.publish(event) : (event) => this.#publishOn(bus, event);
    const logger = options.logger ?? stderrLogger;
    const model: ServerModel = {
      info,
      instructions: options.instructions,
      tools: new Registry('tool', () => this.#announce({ type: 'tools' })),
      resources: new Registry('resource', () => this.#resourcesChanged()),
      templates: new Registry('resource template', () => this.#announce({ type: 'resources' })),
      prompts: new Registry('prompt', () => this.#announce({ type: 'prompts' })),
      extensions: [],
      middleware: [],
      hub,
      settings: {
        pageSize: limit(options, 'pageSize', 100),
        logging: options.logging ?? true,
        exposeToolErrors: options.exposeToolErrors ?? false,
        rethrow: options.rethrow ?? false,
        onInitialize: options.onInitialize,
        logger,
      },
    };
    this.#model = model;
    this.transport = {
      connect: (connection) => new Connection(model, this.#connectionSettings, logger, connection),
      logger,
      rethrow: model.settings.rethrow,
      maxBatchLength: this.#connectionSettings.maxBatchLength,
      hasChangeBus: bus !== undefined,
      hasInitializeHook: options.onInitialize !== undefined,
      routingParam: (method) => routingParam(model, method),
      readEnvelope,
      checkArrival: (method, params, extras) => checkArrival(model, method, params, extras)?.headerParams ?? [],
      scopesInUse: () => {
        const registries = [model.tools, model.resources, model.templates, model.prompts];
        // Enabled items only, and none a predicate hides: the document is public, a hidden item's scopes are not.
        const items = registries
          .flatMap((registry) => [...registry.served('legacy'), ...registry.served('modern')])
          .filter((item) => item.definition.visible === undefined);
        return [...new Set(items.flatMap((item) => item.definition.scopes ?? []))];
      },
    };
    if (bus !== undefined) this.#subscribeTo(bus);
  }

  /** Whether an installed extension serves `method` in either era (what a request is traced under: tracing.ts). */
  #extensionServes(method: string): boolean {
    return this.#model.extensions.some((extension) => ERAS.some((era) => Object.hasOwn(extension[era] ?? {}, method)));
  }

  /** Fans what `bus` delivers out to this process's connections; a delivery that is no change event is dropped. */
  #subscribeTo(bus: ChangeBus): void {
    const { logger } = this.transport;
    const subscribed = bus.subscribe((event) => {
      if (isChangeEvent(event)) this.#connections.publish(event);
      else logger.warn(`change bus: dropped a delivery that is not a change event: ${describeValue(event)}`);
    });
    Promise.resolve(subscribed).catch((error: unknown) => logger.error('change bus: subscribe failed', error));
  }

  /** Publishes a change of this server on `bus`; a bus that fails is logged (the change then reaches no process). */
  #publishOn(bus: ChangeBus, event: ChangeEvent): void {
    const failed = (error: unknown): void =>
      this.transport.logger.error(`change bus: publish of a ${event.type} change failed`, error);
    try {
      Promise.resolve(bus.publish(event)).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /**
   * A plain snapshot of what the server holds now over every transport, its error answers so far by code, then each
   * extension's counters. Walks the live connections: nothing is counted on a request's path (docs/http-deployment.md).
   */
  metrics(): ServerMetrics {
    let inFlight = 0;
    let listenStreams = 0;
    for (const connection of this.#connections.listeners()) {
      inFlight += connection.inFlightCount;
      listenStreams += connection.listenCount;
    }
    const snapshot: ServerMetrics = {
      connections: this.#connections.size,
      inFlight,
      listenStreams,
      errors: this.#connectionSettings.errors.snapshot(),
    };
    for (const extension of this.#model.extensions) {
      const own = extension.metrics?.();
      for (const [name, value] of Object.entries(own ?? {})) if (!Object.hasOwn(snapshot, name)) snapshot[name] = value;
    }
    return snapshot;
  }

  /** A tool's registry entry: schemas compiled, each extension's checkTool passed, mistakes named with the tool. */
  #toolEntry(name: string, definition: ToolDefinition, handler: ToolHandler<never>): ToolEntry {
    const where = `tool '${name}'`;
    if (typeof handler !== 'function') throw new TypeError(`${where}: the handler must be a function`);
    for (const extension of this.#model.extensions) extension.checkTool?.(name, definition);
    const compile = (schema: unknown, io: 'input' | 'output') =>
      compileToolSchema(schema, `${where}: ${io}Schema`, io, this.#schemas);
    const input = compile(definition.inputSchema ?? EMPTY_OBJECT_SCHEMA, 'input');
    const output = definition.outputSchema === undefined ? undefined : compile(definition.outputSchema, 'output');
    let headerParams: HeaderParam[];
    try {
      headerParams = headerParamsOf(input.json);
    } catch (error) {
      throw new TypeError(`${where}: inputSchema: ${(error as Error).message}`, { cause: error });
    }
    return {
      name,
      era: definition.era,
      definition,
      inputSchema: input.json,
      outputSchema: output?.json,
      wrappedOutputSchema:
        output === undefined || output.json.type === 'object' ? undefined : wrappedSchema(output.json),
      parseInput: input.parse,
      parseOutput: output?.parse,
      headerParams,
      handler,
    };
  }

  /**
   * Registers a tool, compiling its schemas now: a mistake (bad name, invalid schema, Standard Schema without JSON
   * Schema export, duplicate name) throws here, naming it. A Standard Schema types the handler's arguments (its output)
   * and `structuredContent` (an `outputSchema`'s input), a JSON Schema a record. Returns the registration (remove,
   * update, enable/disable).
   */
  tool<D extends ToolDefinition, Args = ToolArgsFor<D>>(
    name: string,
    definition: D,
    handler: ToolHandler<Args, ToolStructuredFor<D>>,
  ): Registration<ToolUpdate> {
    if (typeof name !== 'string' || !TOOL_NAME.test(name))
      throw new TypeError(`tool name ${JSON.stringify(name)} must be 1-128 characters of A-Z a-z 0-9 _ - .`);
    const entry = this.#toolEntry(name, definition, handler as unknown as ToolHandler<never>);
    return this.#model.tools.register(name, entry, (current, { handler: next, ...fields }: ToolUpdate) =>
      this.#toolEntry(name, { ...current.definition, ...fields }, (next ?? current.handler) as ToolHandler<never>),
    );
  }

  /** Registers a resource at a fixed URI; returns its registration (remove, update, enable/disable). */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): Registration<ResourceUpdate> {
    if (!URL.canParse(uri)) throw new TypeError(`resource '${uri}': the URI must be absolute (scheme:…)`);
    if (typeof handler !== 'function') throw new TypeError(`resource '${uri}': the handler must be a function`);
    checkCacheHint(`resource '${uri}': cache`, definition.cache);
    const batch = this.#batch;
    const changed = batch?.changed;
    const entry = { uri, era: definition.era, definition, handler };
    const registration = this.#model.resources.register(uri, entry, (current, changes: ResourceUpdate) =>
      updated(current, changes, `resource '${uri}'`),
    );
    if (batch !== undefined) {
      // Kept apart from the batch's other changes: a batch that throws removes it again, and it then changed nothing.
      batch.changed = changed!;
      batch.registered.push(registration);
    }
    return registration;
  }

  /** Registers a resource template (RFC 6570); returns its registration (remove, update, enable/disable). */
  resourceTemplate(
    uriTemplate: string,
    definition: ResourceTemplateDefinition,
    handler: ResourceTemplateHandler,
  ): Registration<ResourceTemplateUpdate> {
    checkCacheHint(`resource template '${uriTemplate}': cache`, definition.cache);
    const entry = { template: new UriTemplate(uriTemplate), era: definition.era, definition, handler };
    return this.#model.templates.register(uriTemplate, entry, (current, changes: ResourceTemplateUpdate) =>
      updated(current, changes, `resource template '${uriTemplate}'`),
    );
  }

  /**
   * Registers or removes many resources with one list change: `change` runs with announcements held, then one is made
   * if the list changed. All or nothing: if `change` throws, what it registered is removed (announced only if something
   * else changed) and the error rethrown. A nested batch joins the outer one (an inner one that throws undoes its own).
   */
  batchResources(change: () => void): void {
    const outer = this.#batch;
    const batch = { registered: [] as Registration<ResourceUpdate>[], changed: false };
    this.#batch = batch;
    try {
      change();
    } catch (error) {
      const { changed } = batch;
      for (const registration of batch.registered) registration.remove();
      batch.changed = changed; // undoing its own registrations changes nothing in the end
      batch.registered.length = 0;
      throw error;
    } finally {
      this.#batch = outer;
      if (outer !== undefined) {
        outer.registered.push(...batch.registered);
        outer.changed ||= batch.changed;
      } else if (batch.changed || batch.registered.length > 0) this.#announce({ type: 'resources' });
    }
  }

  /** The resource registry changed: announced now, or once the batch under way ends. */
  #resourcesChanged(): void {
    if (this.#batch === undefined) this.#announce({ type: 'resources' });
    else this.#batch.changed = true;
  }

  /** Registers a prompt; returns its registration (remove, update, enable/disable). */
  prompt(name: string, definition: PromptDefinition, handler: PromptHandler): Registration<PromptUpdate> {
    if (typeof name !== 'string' || name === '') throw new TypeError('a prompt needs a non-empty name');
    if (typeof handler !== 'function') throw new TypeError(`prompt '${name}': the handler must be a function`);
    const entry = { name, era: definition.era, definition, handler };
    return this.#model.prompts.register(name, entry, (current, changes: PromptUpdate) => updated(current, changes));
  }

  /** Tells every initialized client that a list changed (registration does this by itself). */
  notifyListChanged(list: 'tools' | 'prompts' | 'resources'): void {
    this.#announce({ type: list });
  }

  /** Tells the clients subscribed to `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#announce({ type: 'resource', uri });
  }

  /**
   * Installs an extension before the server serves: its methods, what it advertises and its hooks. Throws for a second
   * extension of the same id, a method or listen key already taken, or a registered tool its checkTool refuses.
   */
  use(extension: Extension): this {
    const { extensions } = this.#model;
    if (typeof extension?.id !== 'string' || extension.id === '')
      throw new TypeError('an extension needs a non-empty string id');
    if (extensions.some((installed) => installed.id === extension.id))
      throw new TypeError(`extension '${extension.id}' is already installed`);
    const { listenKey } = extension;
    if (listenKey !== undefined && [...LISTEN_FLAGS, ...extensions.map((other) => other.listenKey)].includes(listenKey))
      throw new TypeError(`extension '${extension.id}': listen key '${listenKey}' is already taken`);
    for (const era of ERAS) {
      for (const method of Object.keys(extension[era] ?? {})) {
        const clash = extensions.find((installed) => Object.hasOwn(installed[era] ?? {}, method));
        if (clash !== undefined || isCoreMethod(method)) {
          const by = clash === undefined ? '' : ` by '${clash.id}'`;
          throw new TypeError(`extension '${extension.id}': method '${method}' is already served${by}`);
        }
      }
    }
    const { tools } = this.#model;
    for (const tool of new Set([...tools.registered('legacy'), ...tools.registered('modern')]))
      extension.checkTool?.(tool.name, tool.definition);
    extensions.push(extension);
    extension.attach?.({
      publish: (event) => this.#announce(event),
      logger: this.transport.logger,
      pageSize: this.#model.settings.pageSize,
    });
    return this;
  }

  /**
   * Adds middleware around every request the server serves, both eras and every transport (docs/api.md, Middleware):
   * in order, the first added outermost. Requests refused before their handler context exists never reach it.
   */
  intercept(...middleware: Middleware[]): this {
    const bad = middleware.findIndex((step) => typeof step !== 'function');
    if (bad !== -1) throw new TypeError(`intercept: middleware ${bad} must be a function`);
    this.#model.middleware.push(...middleware);
    return this;
  }

  /**
   * Uninstalls an extension `use()` installed, for one declared only while it serves something: its methods and
   * declaration go. It is not closed; a no-op for one not installed.
   */
  unuse(extension: Extension): void {
    const at = this.#model.extensions.indexOf(extension);
    if (at !== -1) this.#model.extensions.splice(at, 1);
  }

  /**
   * Closes what the server holds beyond its connections: every installed extension (which ends the work it runs).
   * Transports close their own connections (HttpHandler.close(), the stdio `closed` promise).
   */
  async close(): Promise<void> {
    await Promise.all(this.#model.extensions.map((extension) => extension.close?.()));
  }
}

/** Creates a server named by `info`; serve it with serveStdio, createHttpHandler or createFetchHandler. */
export function createServer(info: Implementation, options?: ServerOptions): Server {
  return new Server(info, options);
}
