// MCP wire types for both eras (2024-11-05 … 2025-11-25 and 2026-07-28), written from each version's schema (MCP
// <version>, Schema Reference): envelopes and capabilities, each method's params and results, tasks in either era,
// server→client requests, notifications and the method→params/result maps. Types only (`mcp-core/protocol`): nothing
// here exists at runtime, and no module of the core imports it.

import type { InputRequest } from './input.ts';
import type { JsonSchema } from './schema.ts';
import type {
  Annotations,
  CallToolResult,
  ClientCapabilities,
  Content,
  GetPromptResult,
  Icon,
  Implementation,
  InitializeParams,
  LoggingLevel,
  Meta,
  ProgressToken,
  PromptArgument,
  ReadResourceResult,
  RequestId,
  ResourceDefinition,
  ToolAnnotations,
} from './types.ts';

// ---------------------------------------------------------------------------------------------------------------
// Envelope `_meta` keys

/**
 * The reserved `_meta` keys of the `io.modelcontextprotocol/` prefix and the W3C trace keys (MCP 2026-07-28, Basic >
 * Overview > General fields > `_meta`; `related-task` is 2025-11-25's).
 */
export type ReservedMetaKey =
  | 'progressToken'
  | 'io.modelcontextprotocol/protocolVersion'
  | 'io.modelcontextprotocol/clientInfo'
  | 'io.modelcontextprotocol/clientCapabilities'
  | 'io.modelcontextprotocol/logLevel'
  | 'io.modelcontextprotocol/serverInfo'
  | 'io.modelcontextprotocol/subscriptionId'
  | 'io.modelcontextprotocol/related-task'
  | 'traceparent'
  | 'tracestate'
  | 'baggage';

/** `params._meta` of a legacy request: an optional progress token plus any other keys. */
export interface LegacyRequestMeta {
  progressToken?: ProgressToken;
  [key: string]: unknown;
}

/**
 * `params._meta` of a 2026-07-28 request: the envelope every modern request must carry (MCP 2026-07-28, Basic >
 * Overview > General fields > `_meta`, per-request protocol fields).
 */
export interface ModernRequestMeta {
  /** The protocol version of this request; its presence is what claims the modern era. */
  'io.modelcontextprotocol/protocolVersion': string;
  /** The capabilities of this request alone (`{}` = none); never inferred from earlier requests. */
  'io.modelcontextprotocol/clientCapabilities': ClientCapabilities;
  'io.modelcontextprotocol/clientInfo'?: Implementation;
  /** Opt-in for `notifications/message` on this request's own stream (deprecated). */
  'io.modelcontextprotocol/logLevel'?: LoggingLevel;
  progressToken?: ProgressToken;
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
  [key: string]: unknown;
}

/** `result._meta` of a 2026-07-28 result: the server identity stamp, and the subscription id on a listen's result. */
export interface ModernResultMeta {
  'io.modelcontextprotocol/serverInfo'?: Implementation;
  'io.modelcontextprotocol/subscriptionId'?: RequestId;
  [key: string]: unknown;
}

/** `params._meta` of a notification; events on a listen stream carry their subscription id (the listen's request id). */
export interface NotificationMeta {
  'io.modelcontextprotocol/subscriptionId'?: RequestId;
  [key: string]: unknown;
}

/** Params every legacy request may carry. */
export interface LegacyRequestParams {
  _meta?: LegacyRequestMeta;
}
/** Params every modern request must carry: the envelope. */
export interface ModernRequestParams {
  _meta: ModernRequestMeta;
}
/** Params every notification may carry. */
export interface NotificationParams {
  _meta?: NotificationMeta;
}

// ---------------------------------------------------------------------------------------------------------------
// Results

/**
 * Whether a modern result is final (`complete`), asks the client for input first (`input_required`), or is the handle
 * of a task the call became (`task`, MCP 2026-07-28, Extensions > Tasks; only with the tasks extension installed).
 */
export type ResultType = 'complete' | 'input_required' | 'task';

/** Fields of every legacy result. Legacy results never carry `resultType`, `ttlMs`, `cacheScope` or the stamp. */
export interface LegacyResult {
  _meta?: Meta;
}

/** Fields of every final 2026-07-28 result. */
export interface ModernResult {
  resultType: 'complete';
  _meta?: ModernResultMeta;
}

/**
 * Caching hints on complete results of discover, the list methods and `resources/read` (MCP 2026-07-28, Server >
 * Utilities > Caching).
 */
export interface CacheableResult {
  /** Milliseconds the result stays fresh; `0` = stale at once. */
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** An empty answer (`ping`, `logging/setLevel`, `resources/subscribe|unsubscribe`): `{}` in the legacy era. */
export type EmptyResult = LegacyResult;

/**
 * A modern answer asking the client for input before the request can complete (MCP 2026-07-28, Basic > Patterns >
 * Multi Round-Trip Requests > Core Types > InputRequiredResult).
 */
export interface InputRequiredResult {
  resultType: 'input_required';
  /** Requests for the client to serve, by unique key; at least this or `requestState` is present. */
  inputRequests?: Record<string, InputRequest>;
  /** Opaque state the client must send back verbatim on its retry. */
  requestState?: string;
  _meta?: ModernResultMeta;
}

/** What a retry sends back under `inputResponses`, by the key of each input request. */
export type InputResponses = Record<string, ElicitResult | CreateMessageResult | ListRootsResult>;

/** The fields a modern retry of `tools/call`, `prompts/get` or `resources/read` adds to its original params. */
export interface InputRetryParams {
  inputResponses?: InputResponses;
  requestState?: string;
}

/** A page request of the four list methods. */
export interface PaginatedParams {
  cursor?: string;
}
/** A page answer; `nextCursor` is absent on the last page. */
export interface PaginatedResult {
  nextCursor?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Capabilities per era

/** What a legacy server advertises in its `initialize` result. */
export interface LegacyServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  /** From 2025-03-26. */
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  /**
   * 2025-11-25 only (MCP 2025-11-25, Basic > Utilities > Tasks > Capabilities): with the tasks extension installed,
   * `{list: {}, cancel: {}, requests: {tools: {call: {}}}}`; absent at earlier versions and without the extension.
   */
  tasks?: { list?: object; cancel?: object; requests?: { tools?: { call?: object } } };
  [key: string]: unknown;
}

/** What a 2026-07-28 server advertises in `server/discover`. */
export interface ModernServerCapabilities {
  experimental?: Record<string, object>;
  /** Deprecated. */
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  /** `subscribe`: listen streams deliver `resourceSubscriptions`; `listChanged`: they deliver list changes. */
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  /**
   * The installed extensions' settings, by identifier: `{"io.modelcontextprotocol/tasks": {}}` with the tasks
   * extension (MCP 2026-07-28, Extensions > Tasks), which never advertises `tasks` here.
   */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// Lifecycle: initialize (legacy), server/discover (modern)

/** `initialize` result: the negotiated version, the server's capabilities and identity. */
export interface InitializeResult extends LegacyResult {
  protocolVersion: string;
  capabilities: LegacyServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/** `server/discover` params: the envelope only. */
export type DiscoverRequestParams = ModernRequestParams;

/** `server/discover` result: the modern versions served and the capabilities really served. */
export interface DiscoverResult extends ModernResult, CacheableResult {
  /** Modern versions only (`["2026-07-28"]`); legacy versions are negotiated by `initialize`. */
  supportedVersions: string[];
  capabilities: ModernServerCapabilities;
  instructions?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Tools

/** A tool as `tools/list` lists it. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  /** An object JSON Schema for the arguments. */
  inputSchema: JsonSchema;
  /** An object JSON Schema for `structuredContent` (from 2025-06-18). */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** 2025-11-25 only, on tools registered with `taskSupport`: how the tool may run as a task. */
  execution?: ToolExecution;
  _meta?: Meta;
}

/**
 * `Tool.execution` (MCP 2025-11-25, Basic > Utilities > Tasks > Tool-Level Negotiation): `forbidden` (the default
 * when absent) refuses `params.task`, `required` refuses a call without it, `optional` takes both.
 */
export interface ToolExecution {
  taskSupport?: 'forbidden' | 'optional' | 'required';
}

/** `tools/list` result (legacy). */
export interface ListToolsResult extends LegacyResult, PaginatedResult {
  tools: Tool[];
}
/** `tools/list` result (modern). */
export interface ModernListToolsResult extends ModernResult, CacheableResult, PaginatedResult {
  tools: Tool[];
}

/** `tools/call` params (body; the era adds `_meta`). */
export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/** `tools/call` params of the legacy era: 2025-11-25 adds `task`, which asks for the call to run as a task. */
export interface LegacyCallToolParams extends CallToolParams {
  /** 2025-11-25 only; ignored at earlier versions and on 2026-07-28, where the server decides. */
  task?: TaskMetadata;
}

/** A `tools/call` result as the wire carries it: `content` is always present. */
export type CallToolResultWire = CallToolResult & { content: Content[] };

// ---------------------------------------------------------------------------------------------------------------
// Resources

/** A resource as `resources/list` lists it: its registered metadata (era aside) plus its URI. */
export type Resource = Omit<ResourceDefinition, 'era'> & { uri: string };

/** A resource template (RFC 6570 URI template) as `resources/templates/list` lists it. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** `resources/list` result (legacy). */
export interface ListResourcesResult extends LegacyResult, PaginatedResult {
  resources: Resource[];
}
/** `resources/list` result (modern). */
export interface ModernListResourcesResult extends ModernResult, CacheableResult, PaginatedResult {
  resources: Resource[];
}
/** `resources/templates/list` result (legacy). */
export interface ListResourceTemplatesResult extends LegacyResult, PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}
/** `resources/templates/list` result (modern). */
export interface ModernListResourceTemplatesResult extends ModernResult, CacheableResult, PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

/** `resources/read`, `resources/subscribe` and `resources/unsubscribe` params (body). */
export interface ResourceUriParams {
  uri: string;
}

/** `resources/read` result (modern): the contents plus caching hints. */
export type ModernReadResourceResult = ReadResourceResult & ModernResult & CacheableResult;

// ---------------------------------------------------------------------------------------------------------------
// Prompts

/** A prompt as `prompts/list` lists it. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

/** `prompts/list` result (legacy). */
export interface ListPromptsResult extends LegacyResult, PaginatedResult {
  prompts: Prompt[];
}
/** `prompts/list` result (modern). */
export interface ModernListPromptsResult extends ModernResult, CacheableResult, PaginatedResult {
  prompts: Prompt[];
}

/** `prompts/get` params (body). */
export interface GetPromptParams {
  name: string;
  arguments?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------------------
// Completion and logging

/** What `completion/complete` completes for: a prompt's argument or a resource template's variable. */
export type CompleteReference =
  | { type: 'ref/prompt'; name: string; title?: string }
  | { type: 'ref/resource'; uri: string };

/** `completion/complete` params (body); `context` exists from 2025-06-18. */
export interface CompleteParams {
  ref: CompleteReference;
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/** The `completion` member of a `completion/complete` result. */
export interface Completion {
  /** At most 100 values. */
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** `completion/complete` result (legacy). */
export interface CompleteResult extends LegacyResult {
  completion: Completion;
}
/** `completion/complete` result (modern). */
export interface ModernCompleteResult extends ModernResult {
  completion: Completion;
}

/** `logging/setLevel` params (legacy only): the connection's new threshold. */
export interface SetLevelParams extends LegacyRequestParams {
  level: LoggingLevel;
}

// ---------------------------------------------------------------------------------------------------------------
// subscriptions/listen (modern)

/** Which events a listen asks for (and, in the acknowledgement, which the server honours); all opt-in. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** Exact resource URIs whose `notifications/resources/updated` the client wants. */
  resourceSubscriptions?: string[];
  /**
   * Tasks whose transitions the client wants as `notifications/tasks` (MCP 2026-07-28, Extensions > Tasks): only with
   * the tasks extension installed and declared in this request's client capabilities (else -32021).
   */
  taskIds?: string[];
}

/** `subscriptions/listen` params. */
export interface ListenParams extends ModernRequestParams {
  notifications: SubscriptionFilter;
}

/** The final result of a listen the server ended on purpose: only `resultType` and the subscription id in `_meta`. */
export type ListenResult = ModernResult;

// ---------------------------------------------------------------------------------------------------------------
// Tasks (the tasks extension, `mcp-core/tasks`: MCP 2025-11-25, Basic > Utilities > Tasks; MCP 2026-07-28,
// Extensions > Tasks)

/** A task's status, the same five in both eras; `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** `params.task` of a 2025-11-25 `tools/call`: the retention asked for, in ms (a positive integer, else -32602). */
export interface TaskMetadata {
  ttl?: number;
}

/** The fields a task has in both eras; the era adds its own names for retention and polling. */
export interface TaskBase {
  /** Minted by the server, unguessable. */
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601, fixed at creation. */
  createdAt: string;
  /** ISO 8601, later on every transition. */
  lastUpdatedAt: string;
}

/** A task on the 2025-11-25 wire (MCP 2025-11-25, Basic > Utilities > Tasks); `isError: true` results are `failed`. */
export interface LegacyTask extends TaskBase {
  /** How long the task is kept from `createdAt`, in ms, as the server granted it; `null` = unlimited. */
  ttl: number | null;
  /** The suggested interval between `tasks/get` polls, in ms. */
  pollInterval?: number;
}

/**
 * A task on the 2026-07-28 wire (MCP 2026-07-28, Extensions > Tasks): the 2025 fields renamed `ttlMs` and
 * `pollIntervalMs`; a tool result with `isError: true` is `completed`.
 */
export interface ModernTask extends TaskBase {
  /** How long the task is kept from `createdAt`, in ms; `null` = unlimited (this server always sends a number). */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** The `error` of a `failed` 2026-07-28 task: the JSON-RPC error object the request would have answered. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A 2026-07-28 task as `tasks/get` and `notifications/tasks` show it: by status, the tool's result (`completed`), the
 * JSON-RPC error (`failed`) or every outstanding input request by its task-lifetime key (`input_required`).
 */
export type DetailedTask =
  | (ModernTask & { status: 'working' | 'cancelled' })
  | (ModernTask & { status: 'completed'; result: CallToolResultWire })
  | (ModernTask & { status: 'failed'; error: TaskError })
  | (ModernTask & { status: 'input_required'; inputRequests: Record<string, InputRequest> });

/**
 * A 2026-07-28 `tools/call` answer when the call became a task: the task itself, flat, with `resultType: "task"` (no
 * result, error, input requests or `requestState` yet). Sent only to a request that declares the extension.
 */
export type CreateTaskResult = ModernTask & { resultType: 'task'; _meta?: ModernResultMeta };

/** A 2025-11-25 `tools/call` answer when the call carried `params.task`: the task, nested. */
export interface LegacyCreateTaskResult extends LegacyResult {
  task: LegacyTask;
}

/**
 * The `_meta` that ties a 2025-11-25 message to its task: on `tasks/result` answers and on the server→client requests
 * a task's input goes out as (MCP 2025-11-25, Basic > Utilities > Tasks).
 */
export interface RelatedTaskMeta {
  'io.modelcontextprotocol/related-task': { taskId: string };
  [key: string]: unknown;
}

/** `tasks/get`, `tasks/result` and `tasks/cancel` params (body). */
export interface TaskIdParams {
  taskId: string;
}

/** 2026-07-28 `tasks/update` params (body): answers to outstanding input requests; other keys are ignored. */
export interface UpdateTaskParams extends TaskIdParams {
  inputResponses: InputResponses;
}

/** 2026-07-28 `tasks/get` result: the detailed task, always `resultType: "complete"`. */
export type ModernGetTaskResult = DetailedTask & ModernResult;

/** 2025-11-25 `tasks/get` result, and `tasks/cancel`'s (then `cancelled`): the task, flat. */
export type GetTaskResult = LegacyTask & LegacyResult;

/**
 * 2025-11-25 `tasks/result` result: exactly the tool's result, with the related-task `_meta`; a failed task answers
 * its JSON-RPC error instead, a cancelled one -32602.
 */
export type TaskPayloadResult = CallToolResultWire & { _meta: RelatedTaskMeta };

/** 2025-11-25 `tasks/list` result: the caller's tasks, paged. */
export interface ListTasksResult extends LegacyResult, PaginatedResult {
  tasks: LegacyTask[];
}

/** `notifications/tasks/status` params (2025-11-25): the task as `tasks/get` shows it. */
export type TaskStatusNotificationParams = LegacyTask & NotificationParams;

/** `notifications/tasks` params (2026-07-28, on a listen stream, with its subscription id): the detailed task. */
export type TaskNotificationParams = DetailedTask & NotificationParams;

// ---------------------------------------------------------------------------------------------------------------
// Server→client requests (legacy requests; modern input requests)

/** A primitive property of an elicitation form schema. */
export type ElicitPropertySchema = { type: 'string' | 'number' | 'integer' | 'boolean'; [key: string]: unknown };

/** `elicitation/create` params: a form (the default mode) or, from 2025-11-25, a URL to open. */
export type ElicitRequestParams =
  | {
      mode?: 'form';
      message: string;
      requestedSchema: { type: 'object'; properties: Record<string, ElicitPropertySchema>; required?: string[] };
      _meta?: Meta;
    }
  | { mode: 'url'; message: string; url: string; elicitationId: string; _meta?: Meta };

/** `elicitation/create` result: the user's decision and, on accept of a form, the values. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Meta;
}

/** One message of a sampling conversation. */
export interface SamplingMessage {
  role: 'user' | 'assistant';
  /** One block, or (2025-11-25) several, including tool use and tool results. */
  content: Content | Content[] | Record<string, unknown> | Record<string, unknown>[];
  _meta?: Meta;
}

/** Hints for the client's model choice; priorities are 0…1. */
export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

/** `sampling/createMessage` params. */
export interface CreateMessageParams {
  messages: SamplingMessage[];
  modelPreferences?: ModelPreferences;
  systemPrompt?: string;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  /** 2025-11-25: tools the model may call, and how. */
  tools?: Tool[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
}

/** `sampling/createMessage` result: the sampled message and the model that produced it. */
export interface CreateMessageResult extends SamplingMessage {
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
}

/** A root the client exposes. */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  name?: string;
  _meta?: Meta;
}

/** `roots/list` result. */
export interface ListRootsResult {
  roots: Root[];
  _meta?: Meta;
}

// ---------------------------------------------------------------------------------------------------------------
// Notifications

/** `notifications/progress` params; `progress` only increases, `message` exists from 2025-03-26. */
export interface ProgressNotificationParams extends NotificationParams {
  progressToken: ProgressToken;
  progress: number;
  total?: number;
  message?: string;
}

/** `notifications/message` params: one log entry. */
export interface LoggingMessageNotificationParams extends NotificationParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** `notifications/cancelled` params: the id of a request issued earlier in the same direction. */
export interface CancelledNotificationParams extends NotificationParams {
  requestId: RequestId;
  reason?: string;
}

/** `notifications/resources/updated` params. */
export interface ResourceUpdatedNotificationParams extends NotificationParams {
  uri: string;
}

/** `notifications/subscriptions/acknowledged` params: the filter the server honours for this listen. */
export interface SubscriptionsAcknowledgedParams extends NotificationParams {
  notifications: SubscriptionFilter;
}

// ---------------------------------------------------------------------------------------------------------------
// Method maps

/** A legacy request's params: the method's own fields plus the optional legacy `_meta`. */
export type LegacyParams<P> = P & LegacyRequestParams;
/** A modern request's params: the method's own fields plus the required envelope. */
export type ModernParams<P> = P & ModernRequestParams;

/**
 * Client→server requests of the legacy era: method → params and result (`tasks/*` and `params.task`: 2025-11-25 with
 * the tasks extension installed, -32601 otherwise).
 */
export interface LegacyClientRequests {
  initialize: { params: InitializeParams; result: InitializeResult };
  ping: { params: LegacyRequestParams | undefined; result: EmptyResult };
  'tools/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListToolsResult };
  'tools/call': { params: LegacyParams<LegacyCallToolParams>; result: CallToolResultWire | LegacyCreateTaskResult };
  'resources/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListResourcesResult };
  'resources/templates/list': {
    params: LegacyParams<PaginatedParams> | undefined;
    result: ListResourceTemplatesResult;
  };
  'resources/read': { params: LegacyParams<ResourceUriParams>; result: ReadResourceResult };
  'resources/subscribe': { params: LegacyParams<ResourceUriParams>; result: EmptyResult };
  'resources/unsubscribe': { params: LegacyParams<ResourceUriParams>; result: EmptyResult };
  'prompts/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListPromptsResult };
  'prompts/get': { params: LegacyParams<GetPromptParams>; result: GetPromptResult };
  'completion/complete': { params: LegacyParams<CompleteParams>; result: CompleteResult };
  'logging/setLevel': { params: SetLevelParams; result: EmptyResult };
  'tasks/get': { params: LegacyParams<TaskIdParams>; result: GetTaskResult };
  /** Blocks until the task is terminal; meanwhile its input requests arrive as server→client requests. */
  'tasks/result': { params: LegacyParams<TaskIdParams>; result: TaskPayloadResult };
  'tasks/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListTasksResult };
  /** A terminal task is -32602. */
  'tasks/cancel': { params: LegacyParams<TaskIdParams>; result: GetTaskResult };
}

/**
 * Client→server requests of 2026-07-28: method → params and result (every request carries the envelope). `tasks/*`
 * exist with the tasks extension installed (else -32601), and need it declared in the request's client capabilities
 * (else -32021); `tasks/result` and `tasks/list` are not methods of this era.
 */
export interface ModernClientRequests {
  'server/discover': { params: DiscoverRequestParams; result: DiscoverResult };
  'tools/list': { params: ModernParams<PaginatedParams>; result: ModernListToolsResult };
  'tools/call': {
    params: ModernParams<CallToolParams & InputRetryParams>;
    result: (CallToolResultWire & ModernResult) | InputRequiredResult | CreateTaskResult;
  };
  'resources/list': { params: ModernParams<PaginatedParams>; result: ModernListResourcesResult };
  'resources/templates/list': { params: ModernParams<PaginatedParams>; result: ModernListResourceTemplatesResult };
  'resources/read': {
    params: ModernParams<ResourceUriParams & InputRetryParams>;
    result: ModernReadResourceResult | InputRequiredResult;
  };
  'prompts/list': { params: ModernParams<PaginatedParams>; result: ModernListPromptsResult };
  'prompts/get': {
    params: ModernParams<GetPromptParams & InputRetryParams>;
    result: (GetPromptResult & ModernResult) | InputRequiredResult;
  };
  'completion/complete': { params: ModernParams<CompleteParams>; result: ModernCompleteResult };
  'subscriptions/listen': { params: ListenParams; result: ListenResult };
  'tasks/get': { params: ModernParams<TaskIdParams>; result: ModernGetTaskResult };
  /** An acknowledgement only: the task moves on later. */
  'tasks/update': { params: ModernParams<UpdateTaskParams>; result: ModernResult };
  /** An acknowledgement only, terminal tasks included: cancellation is cooperative. */
  'tasks/cancel': { params: ModernParams<TaskIdParams>; result: ModernResult };
}

type Merged<A, B, K extends 'params' | 'result'> = {
  [M in keyof A | keyof B]:
    | (M extends keyof A ? (A[M] extends Record<K, infer T> ? T : never) : never)
    | (M extends keyof B ? (B[M] extends Record<K, infer T> ? T : never) : never);
};

/** Client→server request method → params, both eras (a method served in both has either era's params). */
export type ClientRequest = Merged<LegacyClientRequests, ModernClientRequests, 'params'>;
/** Client→server request method → result, both eras. */
export type ClientResult = Merged<LegacyClientRequests, ModernClientRequests, 'result'>;

/**
 * Server→client request method → params. Legacy only: a modern server sends them as input requests instead. A
 * 2025-11-25 task's input goes out as these, on its `tasks/result` stream, with the related-task `_meta`
 * (RelatedTaskMeta).
 */
export interface ServerRequest {
  ping: LegacyRequestParams | undefined;
  'elicitation/create': ElicitRequestParams;
  'sampling/createMessage': CreateMessageParams;
  'roots/list': LegacyRequestParams | undefined;
}

/** Server→client request method → the result the client answers with. */
export interface ServerRequestResult {
  ping: EmptyResult;
  'elicitation/create': ElicitResult;
  'sampling/createMessage': CreateMessageResult;
  'roots/list': ListRootsResult;
}

/** Server→client notification method → params (modern: list changes only on listen streams, then with a subscription id). */
export interface ServerNotification {
  'notifications/progress': ProgressNotificationParams;
  'notifications/message': LoggingMessageNotificationParams;
  'notifications/cancelled': CancelledNotificationParams;
  'notifications/resources/updated': ResourceUpdatedNotificationParams;
  'notifications/resources/list_changed': NotificationParams | undefined;
  'notifications/tools/list_changed': NotificationParams | undefined;
  'notifications/prompts/list_changed': NotificationParams | undefined;
  /** Modern only: the first frame of a listen. */
  'notifications/subscriptions/acknowledged': SubscriptionsAcknowledgedParams;
  /** 2025-11-25 only: each stored transition of a task, on the connection that created it. */
  'notifications/tasks/status': TaskStatusNotificationParams;
  /** Modern only: each stored transition of a task a listen asked for under `taskIds`. */
  'notifications/tasks': TaskNotificationParams;
}

/** Client→server notification method → params (modern: only `notifications/cancelled`, only on stdio). */
export interface ClientNotification {
  'notifications/initialized': NotificationParams | undefined;
  'notifications/cancelled': CancelledNotificationParams;
  'notifications/progress': ProgressNotificationParams;
  'notifications/roots/list_changed': NotificationParams | undefined;
}
