// The handler context of a 2025 connection (real server→client requests behind the client's declared capabilities,
// the connection's log threshold, detachment for a task's handler) and the shim that serves an `inputRequired(…)`
// answer with real requests, re-running the handler with the answers. Owns no connection state (it reads LegacyState);
// never asks what the client did not declare, never puts `resultType` on a 2025 answer.

import { type CallSite, since } from './features.ts';
import { type InputRequest, InputRequired, MAX_INPUT_ROUNDS, requiredCapabilities } from './input.ts';
import { isPlainObject } from './jsonrpc.ts';
import { type InboundRequest, OutboundRequestError, RequestContext } from './request.ts';
import {
  type ClientCapabilities,
  type DetachedContext,
  type DetachOptions,
  type Implementation,
  type LoggingLevel,
  MissingCapabilityError,
  type RequestOptions,
} from './types.ts';

type Shaped = Record<string, unknown>;

/** What a legacy context reads from its connection's lifecycle. */
export interface LegacyState {
  readonly version: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  passesLogLevel(level: LoggingLevel): boolean;
}

/**
 * Runs a handler that may answer `inputRequired(…)`: a 2025 client gets real server→client requests, and the
 * handler runs again with the answers, at most MAX_INPUT_ROUNDS times.
 */
export async function withInput(
  lifecycle: LegacyState,
  request: InboundRequest,
  serve: (ctx: LegacyContext) => Promise<unknown>,
): Promise<unknown> {
  const ctx = new LegacyContext(lifecycle, request);
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
export class InputRoundError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/**
 * The handler context on a legacy connection: real server→client requests, connection-level log threshold.
 * Detached (a task's handler): its input requests go to the task, its progress and log to the connection once the
 * request is answered.
 */
export class LegacyContext extends RequestContext implements CallSite {
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;
  readonly #lifecycle: LegacyState;

  constructor(lifecycle: LegacyState, request: InboundRequest, detached?: DetachOptions) {
    super(request, detached);
    this.#lifecycle = lifecycle;
  }

  readonly era = 'legacy';

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
    const text = since(this.#lifecycle.version, '2025-03-26') ? message : undefined;
    const { detached } = this;
    this.request.progress(progress, total, text, detached !== undefined, detached?.meta);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.#lifecycle.passesLogLevel(level)) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    const { detached } = this;
    if (detached?.meta !== undefined) params._meta = detached.meta;
    this.request.notify('notifications/message', params, false, detached !== undefined);
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

  #send(
    capability: keyof ClientCapabilities | undefined,
    method: string,
    params: Shaped | undefined,
    options?: RequestOptions,
  ) {
    // No back-channel is the answer whatever the capabilities (a stateless client declares none), so it comes first
    // (test/http-legacy.test.ts, 'stateless: ctx.sample fails with the documented -32600 no-back-channel error').
    const detached = this.detached;
    const refusal = detached === undefined ? this.request.refusal(method) : undefined;
    if (refusal !== undefined) return Promise.reject(refusal);
    if (capability !== undefined && !isPlainObject(this.#lifecycle.clientCapabilities[capability])) {
      return Promise.reject(new MissingCapabilityError(String(capability), method));
    }
    if (detached === undefined) return this.request.request(method, params, options);
    if (method === 'ping')
      return Promise.reject(new OutboundRequestError("Cannot send 'ping' from a detached handler"));
    return detached.input({ method: method as InputRequest['method'], params: params ?? {} });
  }

  elicit(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    if (!since(this.#lifecycle.version, '2025-06-18')) {
      return Promise.reject(new MissingCapabilityError('elicitation', 'elicitation/create'));
    }
    return this.#send('elicitation', 'elicitation/create', params, options) as Promise<Shaped>;
  }

  sample(params: Shaped, options?: RequestOptions): Promise<Shaped> {
    return this.#send('sampling', 'sampling/createMessage', params, options) as Promise<Shaped>;
  }

  listRoots(options?: RequestOptions): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.#send('roots', 'roots/list', undefined, options) as Promise<{
      roots: { uri: string; name?: string }[];
    }>;
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#send(undefined, 'ping', undefined, options);
  }

  /** ExtensionContext.sendInput: the input request as the server→client request it names. */
  sendInput(input: InputRequest): Promise<Shaped> {
    const params = input.params ?? {};
    if (input.method === 'elicitation/create') return this.elicit(params);
    if (input.method === 'sampling/createMessage') return this.sample(params);
    // roots/list takes no params of its own: only a `_meta` (a task's) is worth sending.
    return this.#send('roots', 'roots/list', Object.keys(params).length > 0 ? params : undefined) as Promise<Shaped>;
  }

  /** Sends every input request of one round to the client at once; resolves with the answers by key. */
  async ask(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>> {
    const keys = Object.keys(requests);
    // A round the client cannot answer in full is refused before anything is sent (no request to withdraw later).
    const missing = requiredCapabilities(requests, this.#lifecycle.clientCapabilities);
    if (missing !== undefined) throw new MissingCapabilityError(Object.keys(missing).join(', '), 'the requested input');
    const answers = await Promise.all(keys.map((key) => this.sendInput(requests[key]!)));
    const responses: Record<string, Record<string, unknown>> = Object.create(null) as Record<
      string,
      Record<string, unknown>
    >;
    keys.forEach((key, index) => {
      responses[key] = answers[index]!;
    });
    return responses;
  }
}
