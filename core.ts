// Public entry of mcp-core: createServer(), registration of tools, resources (one by one or in a batch), resource
// templates and prompts, change notifications, extensions (use, unuse, close), and connect() for transports. Owns
// the server-wide model shared by all connections; holds no per-connection state, names no extension, and its only
// I/O is the default logger's lines on stderr.

import { Connection, type ConnectionOptions, type ConnectionSettings } from './era.ts';
import { type HeaderParam, headerParamsOf, type ServerModel, type ToolEntry } from './features.ts';
import { RequestStateSealer } from './input.ts';
import { describeValue } from './jsonrpc.ts';
import { checkArrival, isCoreMethod, routingParam } from './modern.ts';
import { type ChangeEvent, ChangeHub, type Registration, Registry } from './registry.ts';
import { compileToolSchema, type ToolArgsFor, type ToolStructuredFor } from './tool-schema.ts';
import { ErrorCounts } from './tracing.ts';
import type {
  Extension,
  Implementation,
  InitializeHook,
  Logger,
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
export { elicitInput, type InputRequest, InputRequired, inputRequired, listRootsInput, sampleInput } from './input.ts';
export type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.ts';
export { ErrorCode, ProtocolError } from './jsonrpc.ts';
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
 * A deployment's channel for change events between processes (a node:cluster primary, Redis pub/sub, …). An event
 * published by any process must be delivered to every subscriber, the publisher's own included, in publish order
 * per publisher. Events are plain JSON: `{type: 'tools' | 'prompts' | 'resources'}`, `{type: 'resource', uri}`, or
 * an extension's `{type: 'keyed', …}` notification (KeyedEvent).
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
  const event = value as Record<string, unknown>;
  switch (event.type) {
    case 'tools':
    case 'prompts':
    case 'resources':
      return true;
    case 'resource':
      return typeof event.uri === 'string';
    case 'keyed':
      return (
        typeof event.key === 'string' &&
        typeof event.id === 'string' &&
        typeof event.method === 'string' &&
        (event.audience === undefined || typeof event.audience === 'string') &&
        typeof event.params === 'object' &&
        event.params !== null
      );
    default:
      return false;
  }
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
  /**
   * Bytes the answers held for one connection's open batches may take together; past it each further answer is
   * replaced by -32603 naming the bound (default 16 MiB).
   */
  maxBatchAnswerBytes?: number;
  /** Default timeout of server→client requests (default 60 000 ms). */
  requestTimeoutMs?: number;
  /** `resources/subscribe` URIs per connection (default 1024). */
  maxSubscriptions?: number;
  /** Open `subscriptions/listen` streams per connection (default 1024). */
  maxListens?: number;
  /** Events a listen stream holds for a backed-up client; one more ends the stream with an error (default 1024). */
  maxBufferedEvents?: number;
  /** Caching hints on cacheable 2026-07-28 results (default `ttlMs: 0`, `scope: "private"`). */
  cache?: { ttlMs?: number; scope?: 'public' | 'private' };
  /**
   * How `requestState` of input-required answers is sealed: the HMAC secret (random per server by default; give
   * every process of a deployment the same one) and how long a state stays valid (default 10 minutes).
   */
  requestState?: { secret?: string | Uint8Array; ttlMs?: number };
  /**
   * Carries change events (list changed, resource updated) between the processes of a deployment. Without it they
   * reach this process's connections only. With it, every change of this server is published on the bus, and what
   * the bus delivers (this process's own changes included) goes to this process's connections.
   */
  changeBus?: ChangeBus;
  /** Development only: show thrown tool errors' messages to the client instead of a generic text. */
  exposeToolErrors?: boolean;
  /**
   * Debug mode: an unexpected handler error (a tool's too) goes out as the generic -32603, then ends the connection
   * and is handed to the transport's caller as is (for stdio, `closed` rejects with it).
   */
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

type LimitOption =
  | 'maxInFlight'
  | 'maxBatchLength'
  | 'maxBatchAnswerBytes'
  | 'requestTimeoutMs'
  | 'maxSubscriptions'
  | 'maxListens'
  | 'maxBufferedEvents'
  | 'pageSize';

/** A numeric limit of ServerOptions: `fallback` when absent, else a positive safe integer (NaN would lift the bound). */
function limit(options: ServerOptions, name: LimitOption, fallback: number): number {
  const value = options[name] ?? fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** The `subscriptions/listen` filter keys of the core (2026-07-28 Basic > Subscriptions), which no extension may take. */
const LISTEN_FLAGS: ReadonlySet<string> = new Set([
  'toolsListChanged',
  'promptsListChanged',
  'resourcesListChanged',
  'resourceSubscriptions',
]);
const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: Object.freeze({}) });

/** A tool's registry entry: schemas compiled, mistakes thrown with the tool's name (at registration and update). */
function toolEntry(name: string, definition: ToolDefinition, handler: ToolHandler<never>): ToolEntry {
  if (typeof handler !== 'function') throw new TypeError(`tool '${name}': the handler must be a function`);
  const { taskSupport } = definition;
  if (taskSupport !== undefined && taskSupport !== 'optional' && taskSupport !== 'required')
    throw new TypeError(
      `tool '${name}': taskSupport must be 'optional' or 'required', got ${JSON.stringify(taskSupport)}`,
    );
  const input = compileToolSchema(
    definition.inputSchema ?? EMPTY_OBJECT_SCHEMA,
    `tool '${name}': inputSchema`,
    'input',
  );
  const output =
    definition.outputSchema === undefined
      ? undefined
      : compileToolSchema(definition.outputSchema, `tool '${name}': outputSchema`, 'output');
  let headerParams: HeaderParam[];
  try {
    headerParams = headerParamsOf(input.json);
  } catch (error) {
    throw new TypeError(`tool '${name}': inputSchema: ${(error as Error).message}`, { cause: error });
  }
  return {
    name,
    era: definition.era,
    definition,
    inputSchema: input.json,
    outputSchema: output?.json,
    parseInput: input.parse,
    parseOutput: output?.parse,
    headerParams,
    handler,
  };
}

/** A resource batch under way (Server.batchResources): what it registered, and whether anything else changed. */
interface ResourceBatch {
  readonly registered: Registration<ResourceUpdate>[];
  changed: boolean;
}

/** An MCP server: its tools, resources, templates and prompts, served on the connections transports open. */
export class Server {
  readonly #model: ServerModel;
  readonly #connectionSettings: ConnectionSettings;
  /** To this process's connections, or through the change bus to every process's. */
  readonly #announce: (event: ChangeEvent) => void;
  /** The live connections (the model's change hub, seen with their type). */
  readonly #connections: ChangeHub<Connection>;
  readonly #hasChangeBus: boolean;
  /** The resource batch under way (batchResources), if any. */
  #batch: ResourceBatch | undefined;

  constructor(info: Implementation, options: ServerOptions = {}) {
    if (typeof info?.name !== 'string' || typeof info.version !== 'string') {
      throw new TypeError('createServer needs {name: string, version: string}');
    }
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
      cache: { ttlMs: options.cache?.ttlMs ?? 0, scope: options.cache?.scope ?? 'private' },
      sealer: new RequestStateSealer(options.requestState),
    };
    const hub = new ChangeHub<Connection>();
    this.#connections = hub;
    const bus = options.changeBus;
    this.#hasChangeBus = bus !== undefined;
    this.#announce = bus === undefined ? (event) => hub.publish(event) : (event) => this.#publishOn(bus, event);
    this.#model = {
      info,
      instructions: options.instructions,
      tools: new Registry('tool', () => this.#announce({ type: 'tools' })),
      resources: new Registry('resource', () => this.#resourcesChanged()),
      templates: new Registry('resource template', () => this.#announce({ type: 'resources' })),
      prompts: new Registry('prompt', () => this.#announce({ type: 'prompts' })),
      extensions: [],
      hub,
      settings: {
        pageSize: limit(options, 'pageSize', 100),
        logging: options.logging ?? true,
        exposeToolErrors: options.exposeToolErrors ?? false,
        rethrow: options.rethrow ?? false,
        onInitialize: options.onInitialize,
        logger: options.logger ?? stderrLogger,
      },
    };
    if (bus !== undefined) this.#subscribeTo(bus);
  }

  /** Whether an installed extension serves `method` in either era (what a request is traced under: tracing.ts). */
  #extensionServes(method: string): boolean {
    return this.#model.extensions.some(
      (extension) =>
        Object.hasOwn(extension.legacyMethods ?? {}, method) || Object.hasOwn(extension.modernMethods ?? {}, method),
    );
  }

  /** Fans what `bus` delivers out to this process's connections; a delivery that is no change event is dropped. */
  #subscribeTo(bus: ChangeBus): void {
    const subscribed = bus.subscribe((event) => {
      if (isChangeEvent(event)) this.#connections.publish(event);
      else this.logger.warn(`change bus: dropped a delivery that is not a change event: ${describeValue(event)}`);
    });
    Promise.resolve(subscribed).catch((error: unknown) => this.logger.error('change bus: subscribe failed', error));
  }

  /** Publishes a change of this server on `bus`; a bus that fails is logged (the change then reaches no process). */
  #publishOn(bus: ChangeBus, event: ChangeEvent): void {
    const failed = (error: unknown): void =>
      this.logger.error(`change bus: publish of a ${event.type} change failed`, error);
    try {
      Promise.resolve(bus.publish(event)).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  get rethrow(): boolean {
    return this.#model.settings.rethrow;
  }

  /** Whether changes reach every process of a deployment (a `changeBus`), not only this one's connections. */
  get hasChangeBus(): boolean {
    return this.#hasChangeBus;
  }

  /** Whether a 2025 initialize waits for a hook (HTTP then streams its answer so clients can pipeline). */
  get hasInitializeHook(): boolean {
    return this.#model.settings.onInitialize !== undefined;
  }

  /** The most elements one batch may hold (transports that check batches before the dispatcher refuse past it). */
  get maxBatchLength(): number {
    return this.#connectionSettings.maxBatchLength;
  }

  get logger(): Logger {
    return this.#model.settings.logger;
  }

  /** Live connections (each holds one change listener while it is open). */
  get connectionCount(): number {
    return this.#model.hub.size;
  }

  /**
   * A plain snapshot of what the server holds now, summed over every transport serving it, and the error answers
   * it wrote so far by code; then each extension's own counters (Extension.metrics). Walks the live connections:
   * nothing is counted on a request's path (docs/http-deployment.md, Metrics and tracing).
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

  /**
   * Registers a tool. Its schemas are compiled now, so a mistake (bad name, invalid schema, a Standard Schema
   * without a JSON Schema export, a duplicate name) throws here with a message naming it, not per call. With a
   * Standard Schema `inputSchema` the handler's arguments are typed as its output (and `structuredContent` as a
   * Standard Schema `outputSchema`'s input); with a JSON Schema they are a record, or what the handler's parameter
   * is annotated with. Returns the registration: `remove()`, `update({...definition fields, handler})` (schemas
   * recompiled, same checks), `disable()`/`enable()`; each tells clients the tool list changed.
   */
  tool<D extends ToolDefinition, Args = ToolArgsFor<D>>(
    name: string,
    definition: D,
    handler: ToolHandler<Args, ToolStructuredFor<D>>,
  ): Registration<ToolUpdate> {
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      throw new TypeError(`tool name ${JSON.stringify(name)} must be 1-128 characters of A-Z a-z 0-9 _ - .`);
    }
    const entry = toolEntry(name, definition, handler as unknown as ToolHandler<never>);
    return this.#model.tools.register(name, entry, (current, changes: ToolUpdate) => {
      const { handler: next, ...fields } = changes;
      return toolEntry(name, { ...current.definition, ...fields }, (next ?? current.handler) as ToolHandler<never>);
    });
  }

  /** Registers a resource at a fixed URI; returns its registration (remove, update, enable/disable). */
  resource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): Registration<ResourceUpdate> {
    if (!URL.canParse(uri)) throw new TypeError(`resource '${uri}': the URI must be absolute (scheme:…)`);
    if (typeof handler !== 'function') throw new TypeError(`resource '${uri}': the handler must be a function`);
    const batch = this.#batch;
    const changed = batch?.changed;
    const registration = this.#model.resources.register(
      uri,
      { uri, era: definition.era, definition, handler },
      (current, { handler: next, ...fields }: ResourceUpdate) => {
        const merged = { ...current.definition, ...fields };
        return { uri, era: merged.era, definition: merged, handler: next ?? current.handler };
      },
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
    const template = new UriTemplate(uriTemplate);
    return this.#model.templates.register(
      uriTemplate,
      { template, era: definition.era, definition, handler },
      (current, { handler: next, ...fields }: ResourceTemplateUpdate) => {
        const merged = { ...current.definition, ...fields };
        return { template, era: merged.era, definition: merged, handler: next ?? current.handler };
      },
    );
  }

  /**
   * Registers or removes many resources with one resources list change: runs `change` with the announcements held,
   * then announces once if the list changed. All or nothing: if `change` throws, the resources it registered are
   * removed again, the list change is announced only if something else changed (a removal), and the error is
   * rethrown. A batch inside another joins it (the outer one announces; an inner one that throws undoes its own).
   */
  batchResources(change: () => void): void {
    const outer = this.#batch;
    const batch: ResourceBatch = { registered: [], changed: false };
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
    return this.#model.prompts.register(
      name,
      { name, era: definition.era, definition, handler },
      (current, { handler: next, ...fields }: PromptUpdate) => {
        const merged = { ...current.definition, ...fields };
        return { name, era: merged.era, definition: merged, handler: next ?? current.handler };
      },
    );
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
   * Installs an extension (the tasks add-on, …) before the server serves: its methods, what it advertises and its
   * hooks. Throws for a second extension of the same id, or a method another extension or the core already serves.
   */
  use(extension: Extension): this {
    const { extensions } = this.#model;
    if (typeof extension?.id !== 'string' || extension.id === '')
      throw new TypeError('an extension needs a non-empty string id');
    if (extensions.some((installed) => installed.id === extension.id))
      throw new TypeError(`extension '${extension.id}' is already installed`);
    const { listenKey } = extension;
    if (
      listenKey !== undefined &&
      (LISTEN_FLAGS.has(listenKey) || extensions.some((installed) => installed.listenKey === listenKey))
    )
      throw new TypeError(`extension '${extension.id}': listen key '${listenKey}' is already taken`);
    for (const era of ['modernMethods', 'legacyMethods'] as const) {
      for (const method of Object.keys(extension[era] ?? {})) {
        const clash = extensions.find((installed) => Object.hasOwn(installed[era] ?? {}, method));
        if (clash !== undefined || isCoreMethod(method)) {
          const by = clash === undefined ? '' : ` by '${clash.id}'`;
          throw new TypeError(`extension '${extension.id}': method '${method}' is already served${by}`);
        }
      }
    }
    extensions.push(extension);
    extension.attach?.({
      publish: (event) => this.#announce(event),
      logger: this.logger,
      pageSize: this.#model.settings.pageSize,
    });
    return this;
  }

  /**
   * Uninstalls an extension `use()` installed: its methods and declaration go (for an extension declared only while
   * it serves something, such as the skills add-on). It is not closed; a no-op for one not installed.
   */
  unuse(extension: Extension): void {
    const { extensions } = this.#model;
    const at = extensions.indexOf(extension);
    if (at !== -1) extensions.splice(at, 1);
  }

  /**
   * Closes what the server holds beyond its connections: every installed extension (the tasks add-on cancels its
   * running tasks). Transports close their own connections (HttpHandler.close(), the stdio `closed` promise).
   */
  async close(): Promise<void> {
    await Promise.all(this.#model.extensions.map((extension) => extension.close?.()));
  }

  /** The param a 2026-07-28 HTTP request of `method` mirrors in its `Mcp-Name` header, if any (Streamable HTTP). */
  routingParam(method: string): string | undefined {
    return routingParam(this.#model, method);
  }

  /**
   * What a 2026-07-28 request meets on arrival, before any handler runs, for a transport that answers refusals
   * itself (each with its own status) or holds a request to what its tool declares: throws the ProtocolError it
   * would be refused with (its envelope; a method that revision removed or this server does not serve), else
   * returns the `x-mcp-header` parameters of the tool a `tools/call` names (none for another method or tool).
   */
  checkArrival(method: string, params: Record<string, unknown>): readonly HeaderParam[] {
    return checkArrival(this.#model, method, params)?.headerParams ?? [];
  }

  /** Opens a connection for a transport, which feeds it frame text and gives it a way to send frames. */
  connect(options: ConnectionOptions): Connection {
    return new Connection(this.#model, this.#connectionSettings, this.logger, options);
  }
}

/** Creates a server named by `info`; serve it with serveStdio, createHttpHandler or createFetchHandler. */
export function createServer(info: Implementation, options?: ServerOptions): Server {
  return new Server(info, options);
}
