// MCP wire types, part two: the params and results of each method of both eras, server→client requests,
// notifications, and the method→params/result maps. Types only: nothing here exists at runtime. The envelope,
// result and capability types they build on are in protocol.ts.


import type { JsonSchema } from './schema.ts';
import type {
  Annotations,
  CallToolResult,
  Content,
  GetPromptResult,
  Icon,
  LoggingLevel,
  Meta,
  PromptArgument,
  ReadResourceResult,
  ResourceDefinition,
  RequestId,
  ToolAnnotations,
} from './types.ts';
import type {
  ProgressToken,
  LegacyRequestParams,
  ModernRequestParams,
  NotificationParams,
  LegacyResult,
  ModernResult,
  CacheableResult,
  EmptyResult,
  InputRequiredResult,
  InputRetryParams,
  PaginatedParams,
  PaginatedResult,
  InitializeRequestParams,
  InitializeResult,
  DiscoverRequestParams,
  DiscoverResult,
} from './protocol.ts';

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
  /** 2025-11-25: task support hints. */
  execution?: Record<string, unknown>;
  _meta?: Meta;
}

/** `tools/list` result (legacy). */
export interface ListToolsResult extends LegacyResult, PaginatedResult { tools: Tool[] }
/** `tools/list` result (modern). */
export interface ModernListToolsResult extends ModernResult, CacheableResult, PaginatedResult { tools: Tool[] }

/** `tools/call` params (body; the era adds `_meta`). */
export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
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
export interface ListResourcesResult extends LegacyResult, PaginatedResult { resources: Resource[] }
/** `resources/list` result (modern). */
export interface ModernListResourcesResult extends ModernResult, CacheableResult, PaginatedResult { resources: Resource[] }
/** `resources/templates/list` result (legacy). */
export interface ListResourceTemplatesResult extends LegacyResult, PaginatedResult { resourceTemplates: ResourceTemplate[] }
/** `resources/templates/list` result (modern). */
export interface ModernListResourceTemplatesResult extends ModernResult, CacheableResult, PaginatedResult {
  resourceTemplates: ResourceTemplate[];
}

/** `resources/read`, `resources/subscribe` and `resources/unsubscribe` params (body). */
export interface ResourceUriParams { uri: string }

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
export interface ListPromptsResult extends LegacyResult, PaginatedResult { prompts: Prompt[] }
/** `prompts/list` result (modern). */
export interface ModernListPromptsResult extends ModernResult, CacheableResult, PaginatedResult { prompts: Prompt[] }

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
export interface CompleteResult extends LegacyResult { completion: Completion }
/** `completion/complete` result (modern). */
export interface ModernCompleteResult extends ModernResult { completion: Completion }

/** `logging/setLevel` params (legacy only): the connection's new threshold. */
export interface SetLevelParams extends LegacyRequestParams { level: LoggingLevel }

// ---------------------------------------------------------------------------------------------------------------
// subscriptions/listen (modern)

/** Which events a listen asks for (and, in the acknowledgement, which the server honours); all opt-in. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** Exact resource URIs whose `notifications/resources/updated` the client wants. */
  resourceSubscriptions?: string[];
}

/** `subscriptions/listen` params. */
export interface ListenParams extends ModernRequestParams { notifications: SubscriptionFilter }

/** The final result of a listen the server ended on purpose: only `resultType` and the subscription id in `_meta`. */
export type ListenResult = ModernResult;

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
export interface ResourceUpdatedNotificationParams extends NotificationParams { uri: string }

/** `notifications/subscriptions/acknowledged` params: the filter the server honours for this listen. */
export interface SubscriptionsAcknowledgedParams extends NotificationParams { notifications: SubscriptionFilter }

// ---------------------------------------------------------------------------------------------------------------
// Method maps

/** A legacy request's params: the method's own fields plus the optional legacy `_meta`. */
export type LegacyParams<P> = P & LegacyRequestParams;
/** A modern request's params: the method's own fields plus the required envelope. */
export type ModernParams<P> = P & ModernRequestParams;

/** Client→server requests of the legacy era: method → params and result (tasks/* omitted: the core refuses them). */
export interface LegacyClientRequests {
  'initialize': { params: InitializeRequestParams; result: InitializeResult };
  'ping': { params: LegacyRequestParams | undefined; result: EmptyResult };
  'tools/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListToolsResult };
  'tools/call': { params: LegacyParams<CallToolParams>; result: CallToolResultWire };
  'resources/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListResourcesResult };
  'resources/templates/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListResourceTemplatesResult };
  'resources/read': { params: LegacyParams<ResourceUriParams>; result: ReadResourceResult };
  'resources/subscribe': { params: LegacyParams<ResourceUriParams>; result: EmptyResult };
  'resources/unsubscribe': { params: LegacyParams<ResourceUriParams>; result: EmptyResult };
  'prompts/list': { params: LegacyParams<PaginatedParams> | undefined; result: ListPromptsResult };
  'prompts/get': { params: LegacyParams<GetPromptParams>; result: GetPromptResult };
  'completion/complete': { params: LegacyParams<CompleteParams>; result: CompleteResult };
  'logging/setLevel': { params: SetLevelParams; result: EmptyResult };
}

/** Client→server requests of 2026-07-28: method → params and result (every request carries the envelope). */
export interface ModernClientRequests {
  'server/discover': { params: DiscoverRequestParams; result: DiscoverResult };
  'tools/list': { params: ModernParams<PaginatedParams>; result: ModernListToolsResult };
  'tools/call': {
    params: ModernParams<CallToolParams & InputRetryParams>;
    result: (CallToolResultWire & ModernResult) | InputRequiredResult;
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
}

type Merged<A, B, K extends 'params' | 'result'> = {
  [M in keyof A | keyof B]:
    | (M extends keyof A ? A[M] extends Record<K, infer T> ? T : never : never)
    | (M extends keyof B ? B[M] extends Record<K, infer T> ? T : never : never);
};

/** Client→server request method → params, both eras (a method served in both has either era's params). */
export type ClientRequest = Merged<LegacyClientRequests, ModernClientRequests, 'params'>;
/** Client→server request method → result, both eras. */
export type ClientResult = Merged<LegacyClientRequests, ModernClientRequests, 'result'>;

/** Server→client request method → params. Legacy only: a modern server sends them as input requests instead. */
export interface ServerRequest {
  'ping': LegacyRequestParams | undefined;
  'elicitation/create': ElicitRequestParams;
  'sampling/createMessage': CreateMessageParams;
  'roots/list': LegacyRequestParams | undefined;
}

/** Server→client request method → the result the client answers with. */
export interface ServerRequestResult {
  'ping': EmptyResult;
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
}

/** Client→server notification method → params (modern: only `notifications/cancelled`, only on stdio). */
export interface ClientNotification {
  'notifications/initialized': NotificationParams | undefined;
  'notifications/cancelled': CancelledNotificationParams;
  'notifications/progress': ProgressNotificationParams;
  'notifications/roots/list_changed': NotificationParams | undefined;
}
