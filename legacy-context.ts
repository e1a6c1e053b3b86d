// The handler context of a 2025 connection — real server→client requests behind the client's declared
// capabilities, the connection's log threshold — and the shim that serves an `inputRequired(…)` answer to a 2025
// client with real requests, re-running the handler with the answers. Owns no connection state of its own.

import { type InboundRequest, RequestContext } from './dispatcher.ts';
import { since } from './features.ts';
import { type InputRequest, InputRequired, requiredCapabilities } from './input.ts';
import { isPlainObject } from './jsonrpc.ts';
import { type ClientCapabilities, type Context, type Implementation, type LoggingLevel, MissingCapabilityError, type RequestOptions } from './types.ts';

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
serve: (ctx: Context) => Promise<unknown>,
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

const MAX_INPUT_ROUNDS = 8;

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

/** The handler context on a legacy connection: real server→client requests, connection-level log threshold. */
class LegacyContext extends RequestContext implements Context {
  inputResponses: Record<string, Record<string, unknown>> | undefined;
  requestState: unknown;
  readonly #lifecycle: LegacyState;

  constructor(lifecycle: LegacyState, request: InboundRequest) {
    super(request);
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
    this.request.progress(progress, total, since(this.#lifecycle.version, '2025-03-26') ? message : undefined);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.#lifecycle.passesLogLevel(level)) return;
    const params: Shaped = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.request.notify('notifications/message', params);
  }

  #send(capability: keyof ClientCapabilities | undefined, method: string, params: Shaped | undefined, options?: RequestOptions) {
    // No back-channel is the answer whatever the capabilities (a stateless client declares none), so it comes first
    // (test/http-legacy.test.ts, 'stateless: ctx.sample fails with the documented -32600 no-back-channel error').
    const refusal = this.request.refusal(method);
    if (refusal !== undefined) return Promise.reject(refusal);
    if (capability !== undefined && !isPlainObject(this.#lifecycle.clientCapabilities[capability])) {
      return Promise.reject(new MissingCapabilityError(String(capability), method));
    }
    return this.request.request(method, params, options);
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
    return this.#send('roots', 'roots/list', undefined, options) as Promise<{ roots: { uri: string; name?: string }[] }>;
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.#send(undefined, 'ping', undefined, options);
  }

  /** Sends every input request of one round to the client at once; resolves with the answers by key. */
  async ask(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>> {
    const keys = Object.keys(requests);
    // A round the client cannot answer in full is refused before anything is sent (no request to withdraw later).
    const missing = requiredCapabilities(requests, this.#lifecycle.clientCapabilities);
    if (missing !== undefined) throw new MissingCapabilityError(Object.keys(missing).join(', '), 'the requested input');
    const answers = await Promise.all(keys.map((key) => {
      const { method, params = {} } = requests[key]!;
      if (method === 'elicitation/create') return this.elicit(params);
      if (method === 'sampling/createMessage') return this.sample(params);
      return this.listRoots() as Promise<Record<string, unknown>>;
    }));
    const responses: Record<string, Record<string, unknown>> = Object.create(null) as Record<string, Record<string, unknown>>;
    keys.forEach((key, index) => {
      responses[key] = answers[index]!;
    });
    return responses;
  }
}
