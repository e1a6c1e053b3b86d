// The server features over the shared server model: tools, resources and templates, prompts and completion —
// listing (paged, filtered by era and by who asks, shaped per protocol version), x-mcp-header declarations, argument
// validation, the middleware chain, invoking handlers (or an extension's tools/call hook) and shaping results, and
// the capabilities both eras advertise. Connection-free: it sees one request's params and context, never a transport.

import { InputRequired, UrlElicitationRequiredError } from './input.ts';
import { chain, describeValue, ErrorCode, invalidParams, isPlainObject, isThenable, ProtocolError } from './jsonrpc.ts';
import { type ChangeHub, lacking, passes, type Registry, reachable } from './registry.ts';
import type { InboundRequest } from './request.ts';
import { formatPath } from './schema.ts';
import type { Parsed, Parser } from './tool-schema.ts';
import {
  type CallToolResult,
  type Completer,
  type Content,
  type Context,
  type Era,
  type Extension,
  type ExtensionContext,
  type Implementation,
  type InitializeHook,
  type ListedResource,
  type Logger,
  type Middleware,
  MODERN_VERSIONS,
  type PromptDefinition,
  type PromptHandler,
  type ReadResourceResult,
  type RequestCall,
  type ResourceDefinition,
  type ResourceHandler,
  type ResourceTemplateDefinition,
  type ResourceTemplateHandler,
  type ToolCall,
  type ToolDefinition,
  ToolError,
  type ToolHandler,
  type Viewer,
} from './types.ts';
import type { UriTemplate } from './uri-template.ts';

/** What every registration holds: the era it serves (undefined: both), its definition and its handler. */
type Entry<Definition, Handler> = { era: Era | undefined; definition: Definition; handler: Handler };

export interface ToolEntry extends Entry<ToolDefinition, ToolHandler<never>> {
  name: string;
  /** The JSON Schemas listed (a Standard Schema's export) and the parsers that check values against them. */
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | undefined;
  /** The output schema as 2025 clients are sent it when it does not describe an object (wrappedSchema). */
  wrappedOutputSchema: Record<string, unknown> | undefined;
  parseInput: Parser;
  parseOutput: Parser | undefined;
  /** Arguments mirrored into `Mcp-Param-*` headers on 2026-07-28 HTTP (`x-mcp-header`). */
  headerParams: HeaderParam[];
}
export type ResourceEntry = Entry<ResourceDefinition, ResourceHandler> & { uri: string };
export type TemplateEntry = Entry<ResourceTemplateDefinition, ResourceTemplateHandler> & { template: UriTemplate };
export type PromptEntry = Entry<PromptDefinition, PromptHandler> & { name: string };

export interface ServerSettings {
  pageSize: number;
  logging: boolean;
  exposeToolErrors: boolean;
  rethrow: boolean;
  onInitialize: InitializeHook | undefined;
  logger: Logger;
}

/** One tool argument mirrored into an `Mcp-Param-{name}` header (2026-07-28 Streamable HTTP). */
export interface HeaderParam {
  header: string;
  property: string;
  type: 'string' | 'integer' | 'boolean';
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PARAM_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant']);

/**
 * Reads the x-mcp-header declarations of a tool's inputSchema (only direct `properties` of the root). Throws a
 * TypeError for an invalid declaration: an empty or non-token name, a duplicate (case-insensitive), a type other than
 * string, integer or boolean (number is refused).
 */
export function headerParamsOf(inputSchema: Record<string, unknown>): HeaderParam[] {
  const properties = inputSchema.properties;
  if (!isPlainObject(properties)) return [];
  const out: HeaderParam[] = [];
  const seen = new Set<string>();
  for (const [property, schema] of Object.entries(properties)) {
    if (!isPlainObject(schema) || !Object.hasOwn(schema, 'x-mcp-header')) continue;
    const header = schema['x-mcp-header'];
    const where = `x-mcp-header of property '${property}'`;
    if (typeof header !== 'string' || !TOKEN.test(header))
      throw new TypeError(`${where} must be a non-empty HTTP token`);
    const key = header.toLowerCase();
    if (seen.has(key)) throw new TypeError(`${where}: header name '${header}' is declared twice (case-insensitively)`);
    seen.add(key);
    const type = schema.type;
    if (!PARAM_TYPES.has(type)) throw new TypeError(`${where}: property type must be string, integer or boolean`);
    out.push({ header, property, type: type as HeaderParam['type'] });
  }
  return out;
}

/** Everything connections share: identity, registries, the change hub and settings. */
export interface ServerModel {
  info: Implementation;
  instructions: string | undefined;
  tools: Registry<ToolEntry>;
  resources: Registry<ResourceEntry>;
  templates: Registry<TemplateEntry>;
  prompts: Registry<PromptEntry>;
  /** Installed by `server.use()`, in order; the first whose hook answers takes a call over. */
  extensions: Extension[];
  /** Added by `server.intercept()`, in order: the first runs outermost (intercepted). */
  middleware: Middleware[];
  hub: ChangeHub;
  settings: ServerSettings;
}

/**
 * Runs `serve` (the handler) inside the middleware chain as it stands, the first outermost (docs/api.md, Middleware):
 * each `next` runs the rest once, and never once the request has ended. The chain answers a result object (or an
 * InputRequired where `input` allows one); anything else, or what a middleware throws, fails the request. When the
 * handler answers at once and every middleware returns the very promise its `next()` gave, the answer is that value,
 * known now: it is returned without waiting for the promise (no microtask hop), as the chain would resolve with it.
 */
export function intercepted(
  model: ServerModel,
  request: InboundRequest,
  ctx: ExtensionContext,
  input: boolean,
  serve: () => unknown,
): unknown {
  const { middleware } = model;
  const { method, params } = request;
  const count = middleware.length;
  const call: RequestCall = { method, params, ctx };
  // The promise the innermost next() resolved at once with the handler's own answer (which it holds), if it did.
  let answered: { promise: Promise<unknown>; answer: unknown } | undefined;
  // No async functions: Promise.resolve() of a native promise is that promise, so a step adds no microtask hop.
  const step = (index: number): Promise<unknown> => {
    try {
      if (index === count) {
        const answer = serve();
        // Asked first: a `then` getter that throws fails the request here, before a promise could reject unheard.
        if (isThenable(answer)) return Promise.resolve(answer);
        answered = { promise: Promise.resolve(answer), answer };
        return answered.promise;
      }
      let called = false;
      const returned = middleware[index]!(call, () => {
        if (called) return Promise.reject(new Error(`middleware ${index} called next() twice`));
        // Its state, not its signal: a signal made for a request costs a DOMException at every end (request.ts).
        if (request.state !== 'running') return Promise.reject(request.signal.reason);
        called = true;
        const rest = step(index + 1);
        // A middleware may leave its failure unread: that is no unhandled rejection (an answer held cannot fail).
        if (rest !== answered?.promise) rest.catch(() => {});
        return rest;
      });
      // Not undefined === undefined: a middleware answering nothing is a promise of nothing, checked as one.
      return answered !== undefined && returned === answered.promise ? answered.promise : Promise.resolve(returned);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const checked = (answer: unknown): unknown => {
    if (answer instanceof InputRequired ? input : isPlainObject(answer)) return answer;
    malformed(model, `middleware answered '${method}' with ${describeValue(answer)}, not a result object`);
  };
  const outcome = step(0);
  return answered !== undefined && outcome === answered.promise ? checked(answered.answer) : outcome.then(checked);
}

export function eraOf(version: string): Era {
  return (MODERN_VERSIONS as readonly string[]).includes(version) ? 'modern' : 'legacy';
}

/** True when `version` is `since` or later; protocol versions are ISO dates, so text order is time order. */
export function since(version: string, since: string): boolean {
  return version >= since;
}

type Shaped = Record<string, unknown>;

/** Copies `fields` of `source` that are set, keeping the wire free of `undefined`. */
function pick(target: Shaped, source: object, fields: readonly string[]): Shaped {
  for (const field of fields) {
    const value = (source as Record<string, unknown>)[field];
    if (value !== undefined) target[field] = value;
  }
  return target;
}

function shapeItem(target: Shaped, source: object, version: string): Shaped {
  if (since(version, '2025-06-18')) pick(target, source, ['title', '_meta']);
  if (since(version, '2025-11-25')) pick(target, source, ['icons']);
  return target;
}

export function shapeImplementation(info: Implementation, version: string): Shaped {
  let byVersion = shapedImplementations.get(info);
  if (byVersion === undefined) shapedImplementations.set(info, (byVersion = new Map()));
  const cached = byVersion.get(version);
  if (cached !== undefined) return cached;
  const shaped = { name: info.name, version: info.version };
  if (since(version, '2025-06-18')) pick(shaped, info, ['title']);
  if (since(version, '2025-11-25')) pick(shaped, info, ['icons', 'description', 'websiteUrl']);
  byVersion.set(version, Object.freeze(shaped));
  return shaped;
}

/** A server's identity shaped per protocol version, once: every initialize result and modern `_meta` shares it. */
const shapedImplementations = new WeakMap<Implementation, Map<string, Shaped>>();

const FEATURES = ['tools', 'resources', 'prompts', 'completions'] as const;
type Feature = (typeof FEATURES)[number];

/** Whether an era serves a feature, from what is registered for it (a disabled item counts: it is only hidden for a while). */
export function serves(model: ServerModel, feature: Feature, era: Era): boolean {
  const { tools, resources, templates, prompts } = model;
  if (feature === 'tools') return tools.registered(era).length > 0;
  if (feature === 'prompts') return prompts.registered(era).length > 0;
  if (feature === 'resources') return resources.registered(era).length > 0 || templates.registered(era).length > 0;
  const completes = (entry: { definition: { complete?: object } }) => entry.definition.complete !== undefined;
  return prompts.registered(era).some(completes) || templates.registered(era).some(completes);
}

/** What an era serves. */
export function servedFeatures(model: ServerModel, era: Era): Record<Feature, boolean> {
  const served = Object.fromEntries(FEATURES.map((feature) => [feature, serves(model, feature, era)]));
  return served as Record<Feature, boolean>;
}

/** Whether `value` is an Implementation (`{name: string, version: string}`), as clientInfo must be in both eras. */
export function isImplementation(value: unknown): value is Implementation {
  return isPlainObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}

/** The capabilities both eras advertise for what a connection serves (`completions` exists from 2025-03-26 on). */
export function serverCapabilities(served: Record<Feature, boolean> & { logging: boolean }, version: string): Shaped {
  const capabilities: Shaped = {};
  if (served.logging) capabilities.logging = {};
  if (served.completions && since(version, '2025-03-26')) capabilities.completions = {};
  if (served.prompts) capabilities.prompts = { listChanged: true };
  if (served.resources) capabilities.resources = { subscribe: true, listChanged: true };
  if (served.tools) capabilities.tools = { listChanged: true };
  return capabilities;
}

function withCursor(result: Shaped, nextCursor: string | undefined): Shaped {
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}

function shapeTool(tool: ToolEntry, version: string): Shaped {
  const shaped: Shaped = { name: tool.name };
  pick(shaped, tool.definition, ['description']);
  shaped.inputSchema = tool.inputSchema;
  if (since(version, '2025-03-26')) pick(shaped, tool.definition, ['annotations']);
  if (since(version, '2025-06-18') && tool.outputSchema !== undefined)
    shaped.outputSchema = wrapsOutput(tool, version) ? tool.wrappedOutputSchema : tool.outputSchema;
  return shapeItem(shaped, tool.definition, version);
}

/** Whether `version` gets this tool's structured output under `result` (ToolEntry.wrappedOutputSchema). */
function wrapsOutput(tool: ToolEntry | undefined, version: string): boolean {
  return eraOf(version) === 'legacy' && tool?.wrappedOutputSchema !== undefined;
}

/** Keywords whose value maps names to subschemas, and keywords whose value is a value, not a schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const VALUE_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/**
 * A non-object output schema as a 2025 client takes it, under `result` (2025 output schemas describe an object).
 * `$schema` stays at the root; a schema with an `$id` goes in whole, else its `#…` references are repointed below it.
 */
export function wrappedSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema, ...rest } = schema;
  const wrapper: Record<string, unknown> = $schema === undefined ? {} : { $schema };
  const result = rest.$id === undefined ? repointed(rest, true) : rest;
  return Object.assign(wrapper, { type: 'object', properties: { result }, required: ['result'] });
}

/** A copy of `node` whose same-document `$ref`s point below `#/properties/result`; embedded resources unchanged. */
function repointed(node: unknown, root = false): unknown {
  if (Array.isArray(node)) return node.map((item) => repointed(item));
  if (!isPlainObject(node) || (!root && node.$id !== undefined)) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (VALUE_KEYWORDS.has(key)) copy[key] = value;
    else if (key === '$ref' && typeof value === 'string' && (value === '#' || value.startsWith('#/')))
      copy[key] = `#/properties/result${value.slice(1)}`;
    else if (SCHEMA_MAPS.has(key) && isPlainObject(value))
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, repointed(schema)]));
    else copy[key] = repointed(value);
  }
  return copy;
}

export function listTools(model: ServerModel, params: Shaped, viewer: Viewer): Shaped {
  const { era, protocolVersion: version } = viewer;
  const page = model.tools.page(params.cursor, model.settings.pageSize, era, viewer);
  const hooks = era === 'legacy' ? model.extensions.filter((extension) => extension.listedTool !== undefined) : [];
  const tools = page.items.map((tool) => {
    const shaped = shapeTool(tool, version);
    for (const extension of hooks) Object.assign(shaped, extension.listedTool!(tool.definition, version));
    return shaped;
  });
  return withCursor({ tools }, page.nextCursor);
}

function toolFailure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What a lifecycle's handler context offers a tool call that an extension takes over (ToolCall). */
export interface CallSite extends ExtensionContext, Pick<ToolCall, 'detach'> {
  notifyCaller(method: string, params: Record<string, unknown>): void;
}

/** tools/call: the tool and the shape of its arguments, then an extension's hook (Extension.callTool) or the tool. */
export function callTool(model: ServerModel, params: Shaped, ctx: CallSite): unknown {
  if (typeof params.name !== 'string') throw invalidParams('params.name must be a string');
  const tool = model.tools.get(params.name, ctx.era, ctx);
  if (tool === undefined) throw invalidParams(`unknown tool '${params.name}'`);
  const args = params.arguments === undefined ? {} : params.arguments;
  if (!isPlainObject(args)) throw invalidParams('params.arguments must be an object');
  for (const extension of model.extensions) {
    const taken = extension.callTool?.({
      tool: { name: tool.name, definition: tool.definition },
      params,
      ctx,
      run: async (runCtx) => runTool(model, tool, args, runCtx) as Shaped | InputRequired,
      detach: (options) => ctx.detach(options),
      notify: (method, notification) => ctx.notifyCaller(method, notification),
    });
    if (taken !== undefined) return taken;
  }
  return runTool(model, tool, args, ctx);
}

/** One tools/call under way: what the steps of runTool need, passed to them rather than closed over. */
interface ToolRun {
  readonly model: ServerModel;
  readonly tool: ToolEntry;
  readonly ctx: Context;
}

/**
 * Validates a tool's arguments, runs its handler, checks and shapes its answer: synchronously when those steps are.
 * The steps are module-level functions of one ToolRun, so a call served at once makes no closure (chain()).
 */
function runTool(model: ServerModel, tool: ToolEntry, args: Shaped, ctx: Context): unknown {
  return chain(parseArguments, args, { model, tool, ctx }, runHandler, toolThrew);
}

/** A Standard Schema's validate() runs the author's code (refinements…), in and out: its throw is the tool's failure,
 * as the handler's is, and a ProtocolError it throws passes through toolThrew as one. */
function parseArguments(args: Shaped, call: ToolRun): Parsed | Promise<Parsed> {
  return call.tool.parseInput(args, 'arguments');
}

/** Runs the handler on valid arguments; invalid ones are the model's to correct (or -32602 before 2025-11-25). */
function runHandler(parsed: Parsed, call: ToolRun): unknown {
  if (parsed.problems === undefined) return chain(invokeHandler, parsed.value, call, checkAnswer, toolThrew);
  const { tool, ctx } = call;
  const message = `Invalid arguments for tool '${tool.name}': ${parsed.problems.slice(0, 3).join('; ')}`;
  // 2025-11-25 on, bad arguments are a tool error the model can correct (Server Features > Tools > Error Handling).
  if (since(ctx.protocolVersion, '2025-11-25')) return toolFailureResult(message, ctx.protocolVersion);
  throw invalidParams(message.slice('Invalid '.length));
}

function invokeHandler(args: unknown, { tool, ctx }: ToolRun): ReturnType<ToolHandler<unknown>> {
  return (tool.handler as ToolHandler<unknown>)(args, ctx);
}

/** An InputRequired is the era's to answer; a result is checked (its outputSchema's parser may throw), then shaped. */
function checkAnswer(result: CallToolResult | InputRequired, call: ToolRun): unknown {
  return result instanceof InputRequired ? result : chain(checkToolResult, result, call, shapeAnswer, toolThrew);
}

function shapeAnswer(checked: CallToolResult, { tool, ctx }: ToolRun): Shaped {
  return shapeToolResult(checked, ctx.protocolVersion, tool);
}

/** A tool's throw as its failure result; an aborted call gets no answer, a URL elicitation is the era's to answer. */
function toolThrew(error: unknown, { model, tool, ctx }: ToolRun): Shaped {
  if (error instanceof ProtocolError || error instanceof UrlElicitationRequiredError || ctx.signal.aborted) throw error;
  if (error instanceof ToolError) return toolFailureResult(error.message, ctx.protocolVersion);
  if (model.settings.rethrow) throw error; // debug mode: the host gets the tool's own error
  model.settings.logger.error(`tool '${tool.name}' failed`, error);
  const text = model.settings.exposeToolErrors && error instanceof Error ? error.message : 'Tool execution failed';
  return toolFailureResult(text, ctx.protocolVersion);
}

/** What is wrong with the shape of a handler's result, if anything. */
function malformedResult(result: unknown): string | undefined {
  if (!isPlainObject(result)) return `${describeValue(result)}, not a CallToolResult object`;
  const { content, structuredContent, isError } = result;
  if (NOT_JSON_TYPES.has(typeof structuredContent))
    return `structuredContent that is ${describeValue(structuredContent)}, not a JSON value`;
  if (content !== undefined && !Array.isArray(content))
    return `content that is ${describeValue(content)}, not an array`;
  const bad = content === undefined ? -1 : content.findIndex(isUntyped);
  if (bad >= 0) return `content[${bad}] without a string "type" (e.g. {type: 'text', text: '...'})`;
  if (isError !== undefined && typeof isError !== 'boolean')
    return `isError that is ${describeValue(isError)}, not a boolean`;
  return undefined;
}

/** The `typeof`s that no JSON value has (made once: a literal in malformedResult would be one more array a call). */
const NOT_JSON_TYPES = new Set(['function', 'symbol', 'bigint']);

/** Whether a content item lacks its string `type`. */
function isUntyped(item: unknown): boolean {
  return !isPlainObject(item) || typeof item.type !== 'string';
}

/** A handler's result is the server's bug: the log names the mistake, the client gets -32603 without detail. */
function malformed(model: ServerModel, detail: string): never {
  model.settings.logger.error(detail);
  throw new ProtocolError(ErrorCode.InternalError, 'Internal error');
}

/** Checks a result's shape and its fit to the outputSchema (whose parser may transform structuredContent). */
function checkToolResult(result: CallToolResult, { model, tool }: ToolRun): CallToolResult | Promise<CallToolResult> {
  const mistake = malformedResult(result);
  if (mistake === undefined && (tool.parseOutput === undefined || result.isError === true)) return result;
  const failed = (mistake: string): CallToolResult => {
    model.settings.logger.error(`tool '${tool.name}' returned ${mistake}`);
    return toolFailure('Tool execution failed');
  };
  if (mistake !== undefined) return failed(mistake);
  const fit = (parsed: Parsed): CallToolResult => {
    if (parsed.problems === undefined && parsed.value !== undefined)
      return { ...result, structuredContent: parsed.value };
    const detail = parsed.problems?.join('; ') ?? 'the outputSchema turned it into undefined, not a JSON value';
    return failed(`output that does not fit its outputSchema: ${detail}`);
  };
  if (result.structuredContent === undefined)
    return fit({ problems: ['structuredContent is required by the outputSchema'] });
  const pending = tool.parseOutput!(result.structuredContent, 'structuredContent');
  return pending instanceof Promise ? pending.then(fit) : fit(pending);
}

/** Drops content kinds the negotiated version does not know (audio before 2025-03-26, links before 2025-06-18). */
function shapeContent(content: Content[], version: string): Content[] {
  if (since(version, '2025-06-18')) return content;
  return content.filter(
    (item) => item.type !== 'resource_link' && (item.type !== 'audio' || since(version, '2025-03-26')),
  );
}

/** An in-band tool failure the model reads, shaped for `version`. */
export function toolFailureResult(text: string, version: string): Shaped {
  return shapeToolResult(toolFailure(text), version);
}

/** A tool result for `version`; `tool` (when one answered) says whether its structured output goes under `result`. */
function shapeToolResult(result: CallToolResult, version: string, tool?: ToolEntry): Shaped {
  let content: Content[] = result.content ?? [];
  const structured = result.structuredContent;
  // What JSON makes of it decides: an object whose toJSON() gives something else is not one on the wire.
  const object = isPlainObject(structured) && typeof structured.toJSON !== 'function';
  // Clients that do not read structuredContent, or not as anything but an object, still see the data as text: with
  // no content at all, and for a non-object value without a text of its own (SEP-2106, Backward Compatibility: MUST).
  if (structured !== undefined && (content.length === 0 || (!object && !content.some(({ type }) => type === 'text'))))
    content = [...content, { type: 'text', text: JSON.stringify(structured) }];
  const shaped: Shaped = { content: shapeContent(content, version) };
  if (since(version, '2025-06-18') && structured !== undefined) {
    const wrap = wrapsOutput(tool, version) || (!object && eraOf(version) === 'legacy');
    shaped.structuredContent = wrap ? { result: structured } : structured;
  }
  // The fields kept as the handler set them, loaded by name: pick()'s keyed load sees every shape it copies from.
  if (result.isError !== undefined) shaped.isError = result.isError;
  if (result._meta !== undefined) shaped._meta = result._meta;
  return shaped;
}

function shapeResource(target: Shaped, definition: ResourceDefinition, version: string): Shaped {
  pick(target, definition, ['name', 'description', 'mimeType', 'annotations', 'size']);
  return shapeItem(target, definition, version);
}

/** Resources all templates' `list`s may give one `resources/list` together (each listing gathers them all anew). */
const MAX_LISTED_RESOURCES = 10_000;

/**
 * The fixed resources, then each template's `list` (registration order), paged together; every request calls the
 * lists anew and its cursor is an offset into the whole, so a list changing between pages shifts later pages. Past
 * MAX_LISTED_RESOURCES the rest is left out with a warning: lists fed by clients cannot deny everyone the listing.
 */
export function listResources(model: ServerModel, params: Shaped, ctx: ExtensionContext) {
  const { era, protocolVersion: version } = ctx;
  const listing = model.templates.values(era, ctx).filter((template) => template.definition.list !== undefined);
  const page = (listed: ListedRow[] = []) => {
    const rows = model.resources.page(params.cursor, model.settings.pageSize, era, ctx, listed);
    const resources = rows.items.map((row) => {
      const shaped = shapeResource({ uri: row.uri }, row.definition, version);
      return 'listed' in row ? shapeResource(shaped, row.listed, version) : shaped;
    });
    return withCursor({ resources }, rows.nextCursor);
  };
  return listing.length === 0 ? page() : gatherListed(model, listing, ctx).then(page);
}

/** A resource a template's `list` gave, with the template whose fields fill those it leaves out. */
type ListedRow = { uri: string; definition: ResourceTemplateDefinition; listed: ListedResource };

/** What the templates' lists give, checked (a malformed item is the server's bug, -32603) and bounded. */
async function gatherListed(model: ServerModel, templates: TemplateEntry[], ctx: Context): Promise<ListedRow[]> {
  const listed: ListedRow[] = [];
  for (const { definition, template } of templates) {
    const items: unknown = await definition.list!(ctx);
    const where = `list of resource template '${template.template}' returned`;
    if (!Array.isArray(items)) malformed(model, `${where} ${describeValue(items)}, not an array of resources`);
    for (const [index, item] of items.entries()) {
      if (!isPlainObject(item) || typeof item.uri !== 'string' || !URL.canParse(item.uri))
        malformed(model, `${where} item ${index} without an absolute "uri"`);
      if (typeof item.name !== 'string') malformed(model, `${where} item ${index} without a string "name"`);
      if (listed.length === MAX_LISTED_RESOURCES) {
        model.settings.logger.warn(
          `${where} resources past MAX_LISTED_RESOURCES (${MAX_LISTED_RESOURCES}, all templates together): the rest is not listed`,
        );
        return listed;
      }
      listed.push({ uri: item.uri, definition, listed: item as ListedResource });
    }
  }
  return listed;
}

export function listResourceTemplates(model: ServerModel, params: Shaped, viewer: Viewer): Shaped {
  const version = viewer.protocolVersion;
  const page = model.templates.page(params.cursor, model.settings.pageSize, viewer.era, viewer);
  const resourceTemplates = page.items.map((entry) =>
    shapeResource({ uriTemplate: entry.template.template }, entry.definition, version),
  );
  return withCursor({ resourceTemplates }, page.nextCursor);
}

export async function readResource(
  model: ServerModel,
  params: Shaped,
  ctx: ExtensionContext,
): Promise<Shaped | InputRequired> {
  const uri = params.uri;
  if (typeof uri !== 'string') throw invalidParams('params.uri must be a string');
  let result: ReadResourceResult | InputRequired | undefined;
  // What `ctx` may not see is as missing: the same answer, from the same code (docs/api.md, Visibility).
  const resource = model.resources.get(uri, ctx.era, ctx);
  if (resource !== undefined) result = await resource.handler(uri, ctx);
  else
    for (const entry of model.templates.served(ctx.era)) {
      const variables = entry.template.match(uri);
      if (variables === undefined || !reachable(entry, ctx)) continue;
      result = await entry.handler(uri, variables, ctx);
      break;
    }
  if (result === undefined) {
    // -32002 in the 2025 era; 2026-07-28 forbids that code and uses -32602.
    const code = ctx.era === 'legacy' ? ErrorCode.ResourceNotFound : ErrorCode.InvalidParams;
    throw new ProtocolError(code, 'Resource not found', { uri });
  }
  if (!(result instanceof InputRequired)) {
    const contents: unknown = isPlainObject(result) ? result.contents : undefined;
    const where = `resource handler for '${uri}' returned`;
    if (!Array.isArray(contents)) malformed(model, `${where} ${describeValue(result)}, not {contents: [...]}`);
    const bad = contents.findIndex(
      (item) =>
        !isPlainObject(item) ||
        typeof item.uri !== 'string' ||
        (typeof item.text !== 'string' && typeof item.blob !== 'string'),
    );
    if (bad >= 0) malformed(model, `${where} contents[${bad}] without a string uri and a string text or blob`);
  }
  return result as unknown as Shaped;
}

/**
 * Whether `viewer` (none: a restored session's subscriber) hears of `uri`'s updates: always while no resource or
 * template has a predicate, else only when it may read `uri`. A throwing predicate hides it; the log says so.
 */
export function mayView(model: ServerModel, era: Era, uri: string, viewer: Viewer | undefined): boolean {
  const { resources, templates } = model;
  if (!resources.guarded(era) && !templates.guarded(era)) return true;
  try {
    // As readResource reads it: the fixed resource unless its predicate hides it, else the first matching template
    // whose predicate shows it; then its scopes decide.
    const fixed = resources.find(uri, era);
    if (fixed !== undefined && passes(fixed, viewer)) return lacking(fixed, viewer) === undefined;
    for (const entry of templates.served(era))
      if (entry.template.match(uri) !== undefined && passes(entry, viewer)) return lacking(entry, viewer) === undefined;
    return false;
  } catch (error) {
    model.settings.logger.error(`a visibility predicate failed: the update of '${uri}' is not sent`, error);
    return false;
  }
}

function shapePrompt(entry: PromptEntry, version: string): Shaped {
  const shaped: Shaped = { name: entry.name };
  pick(shaped, entry.definition, ['description']);
  const args = entry.definition.arguments;
  if (args !== undefined && args.length > 0)
    shaped.arguments = args.map((arg) => {
      const item = pick({ name: arg.name }, arg, ['description', 'required']);
      return since(version, '2025-06-18') ? pick(item, arg, ['title']) : item;
    });
  return shapeItem(shaped, entry.definition, version);
}

export function listPrompts(model: ServerModel, params: Shaped, viewer: Viewer): Shaped {
  const version = viewer.protocolVersion;
  const page = model.prompts.page(params.cursor, model.settings.pageSize, viewer.era, viewer);
  return withCursor({ prompts: page.items.map((entry) => shapePrompt(entry, version)) }, page.nextCursor);
}

export async function getPrompt(model: ServerModel, params: Shaped, ctx: ExtensionContext) {
  if (typeof params.name !== 'string') throw invalidParams('params.name must be a string');
  const prompt = model.prompts.get(params.name, ctx.era, ctx);
  if (prompt === undefined) throw invalidParams(`unknown prompt '${params.name}'`);
  const given = params.arguments === undefined ? {} : params.arguments;
  if (!isPlainObject(given)) throw invalidParams('params.arguments must be an object');
  const args: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== 'string') throw invalidParams(`${formatPath('params.arguments', [key])} must be a string`);
    args[key] = value;
  }
  for (const declared of prompt.definition.arguments ?? [])
    if (declared.required === true && args[declared.name] === undefined)
      throw invalidParams(`missing required argument '${declared.name}' for prompt '${prompt.name}'`);
  const result = await prompt.handler(args, ctx);
  if (!(result instanceof InputRequired)) {
    const messages: unknown = isPlainObject(result) ? result.messages : undefined;
    const where = `prompt '${prompt.name}' returned`;
    if (!Array.isArray(messages)) malformed(model, `${where} ${describeValue(result)}, not {messages: [...]}`);
    const bad = messages.findIndex(
      (m) => !isPlainObject(m) || !ROLES.has(m.role) || !isPlainObject(m.content) || typeof m.content.type !== 'string',
    );
    if (bad >= 0) malformed(model, `${where} messages[${bad}] without a user/assistant role and a typed content`);
  }
  const version = ctx.protocolVersion;
  if (result instanceof InputRequired || since(version, '2025-06-18')) return result;
  return { ...result, messages: result.messages.filter((m) => shapeContent([m.content], version).length === 1) };
}

const MAX_COMPLETIONS = 100;

/** The author's completer for `argument`: an own entry of the map only, never a member Object.prototype lends it. */
function ownCompleter(complete: Record<string, Completer> | undefined, argument: string): Completer | undefined {
  return complete !== undefined && Object.hasOwn(complete, argument) ? complete[argument] : undefined;
}

function findCompleter(model: ServerModel, viewer: Viewer, ref: Shaped, argument: string): Completer | undefined {
  const { era } = viewer;
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw invalidParams('params.ref.name must be a string');
    const prompt = model.prompts.get(ref.name, era, viewer);
    if (prompt === undefined) throw invalidParams(`unknown prompt '${ref.name}'`);
    return ownCompleter(prompt.definition.complete, argument);
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw invalidParams('params.ref.uri must be a string');
    const template = model.templates.get(ref.uri, era, viewer);
    if (template !== undefined) return ownCompleter(template.definition.complete, argument);
    if (model.resources.get(ref.uri, era, viewer) !== undefined) return undefined;
    throw invalidParams(`unknown resource template '${ref.uri}'`);
  }
  throw invalidParams('params.ref.type must be "ref/prompt" or "ref/resource"');
}

export async function complete(model: ServerModel, params: Shaped, viewer: Viewer): Promise<Shaped> {
  const { ref, argument, context } = params;
  if (!isPlainObject(ref)) throw invalidParams('params.ref must be an object');
  if (!isPlainObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string')
    throw invalidParams('params.argument must be {name: string, value: string}');
  const chosen = isPlainObject(context) && isPlainObject(context.arguments) ? context.arguments : {};
  const others: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(chosen)) if (typeof chosen[key] === 'string') others[key] = chosen[key];
  const completer = findCompleter(model, viewer, ref, argument.name);
  const values = completer === undefined ? [] : await completer(argument.value, others);
  const hasMore = values.length > MAX_COMPLETIONS;
  return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore } };
}
