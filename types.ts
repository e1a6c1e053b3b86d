// The vocabulary of mcp-core: protocol versions, MCP content and result shapes, the definitions a server author
// registers, the context a handler receives, the Extension seam an add-on plugs into, and the two error classes a
// handler throws (ToolError, MissingCapabilityError). Public through core.ts: every type and the error classes; the
// version and log-level constants stay internal. No behaviour beyond those constructors lives here.

import type { InputRequest, InputRequired } from './input.ts';
import type { RequestId } from './jsonrpc.ts';
import type { ToolSchema } from './tool-schema.ts';

export type { RequestId } from './jsonrpc.ts';
export type { JsonSchema } from './schema.ts';

/** Legacy (initialize-handshake) protocol versions, oldest first. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** The newest legacy version: the counter-offer to an unknown or modern `initialize` version. */
export const LATEST_LEGACY_VERSION = '2025-11-25';
/** Modern (per-request envelope) protocol versions. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

/** A protocol era: the 2025 initialize handshake, or 2026-07-28 per-request envelopes. */
export type Era = 'legacy' | 'modern';

/** A log severity (RFC 5424 names), as in `notifications/message` and `logging/setLevel`. */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** RFC 5424 severities in increasing order. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** An icon of a server, tool, resource or prompt (sent from 2025-11-25). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** The name and version of a client or server (`clientInfo`, `serverInfo`); the optional fields are sent from 2025-06-18 and 2025-11-25. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** A `_meta` object: reserved and custom keys, passed through as given. */
export type Meta = Record<string, unknown>;

/** Hints on content and resources: for whom, how important, when last modified. */
export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

/** The contents of a text resource. */
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
/** The contents of a binary resource, base64-encoded in `blob`. */
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}
/** One entry of a `resources/read` result: text or binary. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** One content block of a tool result or prompt message (audio from 2025-03-26, `resource_link` from 2025-06-18). */
export type Content = (
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: ResourceContents }
  | { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string }
) & { annotations?: Annotations; _meta?: Meta };

/** A tool's result; `structuredContent` is any JSON value (2026-07-28, SEP-2106; 2025 clients: docs/eras.md). */
export interface CallToolResult<Structured = unknown> {
  content?: Content[];
  structuredContent?: Structured;
  isError?: boolean;
  _meta?: Meta;
}

/** What a resource handler returns: the resource's contents. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: Content;
}
/** What a prompt handler returns: the prompt's messages. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

/** Behaviour hints about a tool for clients (untrusted: a client must not rely on them for safety). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool's metadata and schemas: each an object JSON Schema (listed verbatim) or a Standard Schema with Standard
 * JSON Schema (zod 4, valibot, arktype…): its JSON Schema is listed, its `validate` checks and types the values. */
export interface ToolDefinition<In extends ToolSchema = ToolSchema, Out extends ToolSchema = ToolSchema> {
  title?: string;
  description?: string;
  /** The arguments; `{type: "object", properties: {}}` when omitted. A Standard Schema's output is what the handler gets. */
  inputSchema?: In;
  /** `structuredContent` of results; a Standard Schema's output (of the handler's value) is what is sent. */
  outputSchema?: Out;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  /** Serve this tool in one era only (listed and callable there alone). */
  era?: Era;
  /** Shown to a request only when this answers true: else unlisted and uncallable, as a missing tool (docs/api.md). */
  visible?: Visibility;
  /** Scopes a caller's token must hold: else unlisted, and a call is refused naming them (docs/api.md, Scopes). */
  scopes?: string[];
}

/** A resource's metadata, given to `server.resource()`. */
export interface ResourceDefinition {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
  /** Serve this resource in one era only. */
  era?: Era;
  /** Shown to a request only when this answers true: else unlisted and unreadable, as a missing resource. */
  visible?: Visibility;
  /** Scopes a caller's token must hold: else unlisted, and a read is refused naming them. */
  scopes?: string[];
  /** The caching hints of the `resources/read` results it serves (2026-07-28), over the server's (docs/api.md). */
  cache?: CacheHint;
}

/** Caching hints of cacheable 2026-07-28 results (Server > Utilities > Caching); a field left out takes the default. */
export interface CacheHint {
  /** How long a client may consider a result fresh (an integer ≥ 0; 0: stale at once). */
  ttlMs?: number;
  /** Who may share it (`private`: only within the authorization context that got it). */
  scope?: 'public' | 'private';
}

/** Suggests completions for a partial value; `context` holds the other arguments already chosen. */
export type Completer = (value: string, context: Record<string, string>) => string[] | Promise<string[]>;

/** A resource template's metadata, given to `server.resourceTemplate()`. */
export interface ResourceTemplateDefinition extends ResourceDefinition {
  /** Completion for template variables, by variable name. */
  complete?: Record<string, Completer>;
  /** The template's concrete resources, listed by `resources/list` after the fixed ones (docs/api.md). */
  list?: (ctx: Context) => ListedResource[] | Promise<ListedResource[]>;
}

/** One resource a template's `list` gives: a `resources/list` item; the template's fields fill those it leaves out. */
export type ListedResource = Pick<
  ResourceDefinition,
  'name' | 'title' | 'description' | 'mimeType' | 'size' | 'annotations' | 'icons' | '_meta'
> & { uri: string };

/** One argument a prompt takes. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt's metadata, given to `server.prompt()`. */
export interface PromptDefinition {
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
  /** Serve this prompt in one era only. */
  era?: Era;
  /** Shown to a request only when this answers true: else unlisted, as a missing prompt. */
  visible?: Visibility;
  /** Scopes a caller's token must hold: else unlisted, and a get is refused naming them. */
  scopes?: string[];
  /** Completion for prompt arguments, by argument name. */
  complete?: Record<string, Completer>;
}

/** The capabilities a client declared (2025 `initialize` or a 2026-07-28 envelope), per version's Schema Reference. */
export interface ClientCapabilities {
  experimental?: Record<string, unknown>;
  /** `listChanged` exists in the 2025 era only; deprecated in 2026-07-28. */
  roots?: { listChanged?: boolean };
  /** `{}` before 2025-11-25, which adds `context` and `tools`; deprecated in 2026-07-28. */
  sampling?: { context?: object; tools?: object };
  /** From 2025-06-18; `form` and `url` from 2025-11-25. */
  elicitation?: { form?: object; url?: object };
  /** 2025-11-25 only. */
  tasks?: { list?: object; cancel?: object; requests?: Record<string, unknown> };
  /** The extensions the client supports, by identifier (2026-07-28; a 2025 client may declare them too, SEP-1724). */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

/** A request's progress token (`params._meta.progressToken`), echoed in its `notifications/progress`. */
export type ProgressToken = string | number;

/** Options of a server→client request made from a handler (`ctx.elicit`, `ctx.sample`, …). */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Defaults to the server's `requestTimeoutMs` (60 s). */
  timeoutMs?: number;
}

/** The HTTP request a handler is serving: headers and peer address, as the HTTP adapter saw them. */
export interface HttpRequestInfo {
  /** Lowercase names; node:http joins repeated headers with ", " (`set-cookie` stays an array). */
  readonly headers: Record<string, string | string[] | undefined>;
  /** The peer's address (a proxy's, behind one), when the runtime knows it. */
  readonly remoteAddress?: string;
}

/** Who a verified bearer token stands for (HttpOptions.auth.verifyToken's answer); handlers see it as `ctx.auth`. */
export interface AuthInfo {
  /** The principal (e.g. the token's `sub`). */
  subject: string;
  clientId?: string;
  issuer?: string;
  scopes: string[];
  /** Expiry in seconds since the epoch; an expired token is refused as invalid. */
  expiresAt?: number;
  /** The resources the token was issued for (its `aud`, RFC 8707): one must be this server, else it is refused. */
  audience?: string[];
  extra?: Record<string, unknown>;
}

/** What a transport knows of a frame's exchange: the HTTP request (`ctx.http`), the verified identity (`ctx.auth`). */
export interface FrameExtras {
  http?: HttpRequestInfo;
  auth?: AuthInfo;
  /** The 2026-07-28 envelope of this frame's request when the transport already read (and checked) it: read once. */
  envelope?: Envelope;
}

/** What a valid 2026-07-28 envelope (`params._meta`) declares. */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
}

/** W3C Trace Context (`traceparent`, `tracestate`) and Baggage (`baggage`) keys read from a request's `_meta`. */
export interface TraceContext {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/** One served request's context on the `mcp-core:request` TracingChannel (docs/http-deployment.md, Metrics and
 * tracing); `error`, `asyncStart` and `asyncEnd` also see `outcome` and its details, `end` sets `era`. */
export interface RequestTrace {
  /** The method if the server serves it (a core or installed extension's method), else 'other': labels stay bounded. */
  readonly method: string;
  readonly requestId: RequestId;
  /** Named by the transport (ConnectionOptions.transport): 'stdio', 'http', 'memory' (mcp-core/testing), or yours. */
  readonly transport: string | undefined;
  /** The connection's era; undefined while it is undecided (a stdio connection before its first deciding request). */
  era: Era | undefined;
  /** The W3C trace keys of the request's `params._meta`, to continue its trace (undefined when it carried none). */
  readonly trace: TraceContext | undefined;
  /** How it ended: a result or an error, cancelled by the client, or abandoned (the connection closed first). */
  outcome?: 'result' | 'error' | 'cancelled' | 'abandoned';
  /** The JSON-RPC error code answered (outcome 'error'). */
  errorCode?: number;
  /** What the handler threw (outcome 'error'; undefined when the core replaced an answer it could not write). */
  error?: unknown;
  /** The result answered (outcome 'result'). */
  result?: unknown;
}

/** A snapshot of a server's live state and counters (`server.metrics()`) over all transports; HTTP adds HttpMetrics. */
export interface ServerMetrics {
  /** Live connections: a stdio connection, a 2025 HTTP session, a running 2026-07-28 HTTP request, a test client. */
  connections: number;
  /** Requests being served now (admitted, not yet answered, cancelled or abandoned). */
  inFlight: number;
  /** Open 2026-07-28 `subscriptions/listen` streams. */
  listenStreams: number;
  /** Error answers since the server was created, by JSON-RPC code ('-32602': 3); past 64 codes, the rest as 'other'. */
  errors: Record<string, number>;
  /** What the installed extensions report (Extension.metrics), e.g. the tasks add-on's `liveTasks`. */
  [extension: string]: number | Record<string, number>;
}

/** What every handler receives besides its arguments. */
export interface Context {
  readonly requestId: RequestId;
  readonly era: Era;
  /** The HTTP request that carried this request (for a 2025 session: the POST of this very request); undefined on stdio. */
  readonly http?: HttpRequestInfo;
  /** The verified bearer token's identity when the HTTP endpoint requires authorization (HttpOptions.auth). */
  readonly auth?: AuthInfo;
  /** Aborted when the client cancels the request or the connection ends. */
  readonly signal: AbortSignal;
  /** The W3C trace keys the request carried in `params._meta` (string values only); undefined when it carried none. */
  readonly trace?: TraceContext;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** After an `inputRequired(…)` answer: the client's responses by key (e.g. an ElicitResult); undefined at first. */
  readonly inputResponses: Record<string, Record<string, unknown>> | undefined;
  /** The state the handler attached to its `inputRequired(…)` answer; undefined on a first round. */
  readonly requestState: unknown;
  /** Reports progress when the request carried a progress token; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the level passes the client's threshold. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Server→client requests; each fails at once when the client did not declare the capability it needs. */
  elicit(params: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
  sample(params: Record<string, unknown>, options?: RequestOptions): Promise<Record<string, unknown>>;
  listRoots(options?: RequestOptions): Promise<{ roots: { uri: string; name?: string }[] }>;
  ping(options?: RequestOptions): Promise<void>;
  /** Sends `notifications/elicitation/complete` to a 2025-11-25 client that declared `elicitation.url` (also after
   * the answer); nothing on 2026-07-28, where the retry says it. */
  completeElicitation(elicitationId: string): void;
  /** Set while the handler runs as a task or may still become one (a 2026-07-28 call not yet waited; docs/tasks.md). */
  readonly task?: TaskHandle;
}

/** What a handler running as a task has besides its usual context. */
export interface TaskHandle {
  readonly taskId: string;
  /** Shows `message` as the task's status message (the task's `lastUpdatedAt` moves). */
  setStatusMessage(message: string): Promise<void>;
  /** How long the task's record lives from its creation, in ms (the store may clamp it); an elapsed one ends it now. */
  setTtl(ttlMs: number): Promise<void>;
}

/** What an extension method's handler receives: the request's context, and whom the request speaks for. */
export interface ExtensionContext extends Context {
  /** Whom the request speaks for, which per-caller state is bound to: its verified identity, else its 2025 session or
   * stdio connection, else '' (a sessionless HTTP exchange, which anyone may make). */
  readonly caller: string;
  /** Asks the client for one input on this request's behalf as `elicit`, `sample`, `listRoots` do (2025 era only). */
  sendInput(request: InputRequest): Promise<Record<string, unknown>>;
}

/** What a visibility predicate sees of a request (any handler context is one). */
export type Viewer = Pick<
  ExtensionContext,
  'era' | 'protocolVersion' | 'clientCapabilities' | 'clientInfo' | 'caller' | 'auth' | 'http'
>;

/** Whether a request may see an item (docs/api.md, Visibility): synchronous; only `true` shows it, a throw is -32603. */
export type Visibility = (viewer: Viewer) => boolean;

/** One request a middleware sees: its method and params (read-only) and the context its handler gets. */
export interface RequestCall {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly ctx: ExtensionContext;
}

/**
 * Runs around each request the server serves (docs/api.md, Middleware): answers itself (returns a result, throws a
 * ProtocolError) or awaits `next()`, the rest of the chain and the handler, once, reading or replacing its answer.
 */
export type Middleware = (call: RequestCall, next: () => Promise<unknown>) => unknown;

/** One method an extension serves in one era. */
export interface ExtensionMethod {
  /** The param a 2026-07-28 HTTP request mirrors in its `Mcp-Name` header, as tools/call mirrors `name`. */
  readonly routeBy?: string;
  /** False: served on 2026-07-28 to clients that do not declare the extension (learned from `server/discover`). */
  readonly gated?: boolean;
  /** A cacheable result (2026-07-28): it keeps the `ttlMs` and `cacheScope` it carries, else gets the server's. */
  readonly cacheable?: boolean;
  /** Answers the request: a result object (or a promise of one); a ProtocolError thrown is the wire error. */
  serve(params: Record<string, unknown>, ctx: ExtensionContext): unknown;
}

/** How a tool call's handler runs past its request (ToolCall.detach). */
export interface DetachOptions {
  /** The handler's signal from now on (the request's no longer ends it). */
  signal: AbortSignal;
  /** Where `ctx.elicit`, `ctx.sample` and `ctx.listRoots` go; resolves with the client's answer. */
  input(request: InputRequest): Promise<Record<string, unknown>>;
  task: TaskHandle;
  /** Merged into the `_meta` of the progress and log notifications the handler sends (a task's related-task key). */
  meta?: Record<string, unknown>;
}

/** A handler context that outlives its request; the runner sets the input of each further round. */
export interface DetachedContext extends Context {
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;
}

/** A `tools/call` an extension may take over (Extension.callTool), its arguments not yet validated. */
export interface ToolCall {
  readonly tool: { readonly name: string; readonly definition: ToolDefinition };
  readonly params: Record<string, unknown>;
  readonly ctx: ExtensionContext;
  /** Validates the arguments, runs the handler with `ctx` and shapes its answer; a ProtocolError it throws rejects. */
  run(ctx: Context): Promise<Record<string, unknown> | InputRequired>;
  /** A context for running the handler past this request, with `options.signal` and `options.input`; progress and log
   * go with the request while it runs, then on the connection (2025 era; on 2026-07-28 nowhere once answered). */
  detach(options: DetachOptions): DetachedContext;
  /** A notification on the caller's connection, sent after this call's answer (2025 era; otherwise a no-op). */
  notify(method: string, params: Record<string, unknown>): void;
}

/** A notification for the listen streams that asked for `id` under `key` (an extension's listen filter). */
export interface KeyedEvent {
  type: 'keyed';
  key: string;
  id: string;
  /** Only streams of this caller get it (ExtensionContext.caller); absent: every stream that asked. */
  audience?: string;
  method: string;
  params: Record<string, unknown>;
}

/** What a server gives an extension it installs. */
export interface ExtensionHost {
  /** Sends a keyed notification to the listen streams that asked for it (through the change bus, when there is one). */
  publish(event: KeyedEvent): void;
  readonly logger: Logger;
  /** Items per page of list methods (ServerOptions.pageSize). */
  readonly pageSize: number;
}

/** A protocol extension (2026-07-28 Basic > Extensions) installed with `server.use()`: methods, settings, hooks. */
export interface Extension {
  /** Its identifier, e.g. `io.modelcontextprotocol/tasks`. */
  readonly id: string;
  /** Declared in `server/discover` as `capabilities.extensions[id]`. */
  readonly settings: Record<string, unknown>;
  /** 2026-07-28 methods; a client not declaring the extension is refused -32021 naming it, unless `gated` is false. */
  readonly modernMethods?: Readonly<Record<string, ExtensionMethod>>;
  /** 2025 methods, served only at the versions for which `legacyCapabilities` answers. */
  readonly legacyMethods?: Readonly<Record<string, ExtensionMethod>>;
  /** Capabilities merged into the 2025 initialize result at `version`; undefined: not served at that version. */
  legacyCapabilities?(version: string): Record<string, unknown> | undefined;
  /** Fields added to a listed tool at a 2025 `version`. */
  listedTool?(tool: ToolDefinition, version: string): Record<string, unknown> | undefined;
  /** Checks the tool fields it reads (at registration, update and `use()`): a TypeError naming the tool refuses it. */
  checkTool?(name: string, definition: ToolDefinition): void;
  /** Takes over a tools/call (a promise of its answer), or leaves it to the core (undefined). */
  callTool?(call: ToolCall): Promise<unknown> | undefined;
  /** A `subscriptions/listen` filter key for its KeyedEvents; a client not declaring the extension gets -32021. */
  readonly listenKey?: string;
  /** Called once by `server.use()`. */
  attach?(host: ExtensionHost): void;
  /** A caller is gone for good (its own connection closed, or its 2025 HTTP session ended for good: a shared one only
   * by DELETE or its record's removal): what is bound to it can never be reached again. */
  callerEnded?(caller: string): void;
  /** Whether it runs work of `caller` here now (a task), keeping its 2025 HTTP session busy: cheap, never throws. */
  holdsWorkOf?(caller: string): boolean;
  /** Called by `server.close()`: releases everything the extension holds. */
  close?(): Promise<void>;
  /** Its own counters for `server.metrics()` (the core's names win); called per snapshot: cheap, never throws. */
  metrics?(): Record<string, number>;
}

/** Tool, resource and prompt handlers may answer `inputRequired(…)` to ask the client for input first. */
export type ToolHandler<Args = Record<string, unknown>, Structured = Record<string, unknown>> = (
  args: Args,
  ctx: Context,
) => CallToolResult<Structured> | InputRequired | Promise<CallToolResult<Structured> | InputRequired>;

/** Reads a fixed resource; may answer `inputRequired(…)` to ask the client for input first. */
export type ResourceHandler = (
  uri: string,
  ctx: Context,
) => ReadResourceResult | InputRequired | Promise<ReadResourceResult | InputRequired>;

/** Returns `undefined` when no resource exists for these variables. */
export type ResourceTemplateHandler = (
  uri: string,
  variables: Record<string, string | string[]>,
  ctx: Context,
) => ReadResourceResult | InputRequired | undefined | Promise<ReadResourceResult | InputRequired | undefined>;

/** Builds a prompt from its arguments; may answer `inputRequired(…)` to ask the client for input first. */
export type PromptHandler = (
  args: Record<string, string>,
  ctx: Context,
) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;

/** What a tool registration's `update()` takes: definition fields to replace, and optionally a new handler. */
export type ToolUpdate = Partial<ToolDefinition> & { handler?: ToolHandler<never, unknown> };
/** What a resource registration's `update()` takes (the URI stays). */
export type ResourceUpdate = Partial<ResourceDefinition> & { handler?: ResourceHandler };
/** What a resource template registration's `update()` takes (the URI template stays). */
export type ResourceTemplateUpdate = Partial<ResourceTemplateDefinition> & { handler?: ResourceTemplateHandler };
/** What a prompt registration's `update()` takes (the name stays). */
export type PromptUpdate = Partial<PromptDefinition> & { handler?: PromptHandler };

/** What a 2025 client sent in `initialize`. */
export interface InitializeParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  _meta?: unknown;
}

/** Runs when a 2025 client initializes, before the handshake commits (frames wait for it, in order); a throw refuses
 * the handshake (a ProtocolError goes on the wire as is). */
export type InitializeHook = (
  params: InitializeParams,
  ctx: { signal: AbortSignal; requestId: RequestId; protocolVersion: string },
) => void | Promise<void>;

/** Where the core reports handler failures and dropped frames; never stdout (stderr by default). */
export interface Logger {
  error(message: string, error?: unknown): void;
  warn(message: string): void;
}

/** Thrown by a tool to report a failure whose message the model should see (an in-band `isError` result). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** A server→client request the client cannot serve because it did not declare this capability. */
export class MissingCapabilityError extends Error {
  override readonly name = 'MissingCapabilityError';
  readonly capability: string;

  constructor(capability: string, method: string) {
    super(`Cannot send '${method}': the client did not declare the '${capability}' capability`);
    this.capability = capability;
  }
}
