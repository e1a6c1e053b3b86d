// The test kit (`mcp-core/testing`): an in-memory client connected straight to a server (server.transport.connect),
// so an author unit-tests tools, resources and prompts in either era. Every frame is serialized and parsed as on a
// real transport: the 2025 handshake and server→client requests, or 2026-07-28 envelopes and input_required rounds,
// both answered by the same callbacks. No streams and no I/O.

import type { Connection, Server } from './core.ts';
import { MAX_INPUT_ROUNDS } from './input.ts';
import { ErrorCode, errorResponse, isPlainObject, ProtocolError, type RequestId } from './jsonrpc.ts';
import {
  type CallToolResult,
  type ClientCapabilities,
  type GetPromptResult,
  type Implementation,
  LATEST_LEGACY_VERSION,
  MODERN_VERSIONS,
  type ReadResourceResult,
} from './types.ts';

type Params = Record<string, unknown>;
type Answer = Params | Promise<Params>;

/** Options of connectTestClient(): the era and version to speak, what the client declares, and its answers to server requests. */
export interface TestClientOptions {
  /** Which lifecycle to speak (default: the era of `protocolVersion`, else `'modern'`, i.e. 2026-07-28). */
  era?: 'legacy' | 'modern';
  /** The version to request (default: 2025-11-25 for the legacy era, 2026-07-28 for the modern one). */
  protocolVersion?: string;
  /** Declared client capabilities (default: those of the callbacks given, e.g. `{elicitation: {}}` for `onElicit`). */
  capabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  /** Answers `elicitation/create`: a server→client request (2025) or an input request (2026-07-28). */
  onElicit?(params: Params): Answer;
  /** Answers `sampling/createMessage`, likewise. */
  onSample?(params: Params): Answer;
  /** Answers `roots/list`, likewise. */
  onListRoots?(params: Params): Answer;
}

/** Per-call options of the test client's requests. */
export interface CallOptions {
  /** Receives the request's `notifications/progress` params (a progress token is sent when given). */
  onProgress?(params: Params): void;
}

/** A notification the server sent on this connection. */
export interface ReceivedNotification {
  method: string;
  params?: Params;
}

/** What `connectTestClient` resolves to; every call rejects with a ProtocolError when the server answers an error. */
export interface TestClient {
  readonly era: 'legacy' | 'modern';
  readonly protocolVersion: string;
  /** The 2025 initialize result (undefined in the modern era). */
  readonly initializeResult: Params | undefined;
  /** Every notification received so far, in order. */
  readonly notifications: ReceivedNotification[];
  /** The underlying connection (`closed`, `inFlightCount`…). */
  readonly connection: Connection;
  listTools(cursor?: string): Promise<Params & { tools: Params[] }>;
  callTool(name: string, args?: Params, options?: CallOptions): Promise<CallToolResult & Params>;
  listResources(cursor?: string): Promise<Params & { resources: Params[] }>;
  listResourceTemplates(cursor?: string): Promise<Params & { resourceTemplates: Params[] }>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult & Params>;
  listPrompts(cursor?: string): Promise<Params & { prompts: Params[] }>;
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult & Params>;
  complete(ref: Params, argument: { name: string; value: string }, context?: Record<string, string>): Promise<Params>;
  /**
   * Any request; in the modern era the envelope is added, input_required rounds are answered by the callbacks and
   * the era-specific fields (resultType, ttlMs, cacheScope, the serverInfo stamp in `_meta`) are dropped from the
   * result, so the same assertion holds in both eras. `raw: true` returns the last result as the server sent it.
   */
  request(method: string, params?: Params, options?: CallOptions & { raw?: boolean }): Promise<Params>;
  /** Sends a notification to the server (the modern envelope is added). */
  notify(method: string, params?: Params): void;
  /** Ends the connection: running handlers are aborted, unanswered calls reject. */
  close(): Promise<void>;
}

const MODERN_VERSION = MODERN_VERSIONS[0];
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

interface Pending {
  resolve(result: Params): void;
  reject(error: Error): void;
  onProgress?: (params: Params) => void;
}

/** Connects an in-memory client to `server`; in the 2025 era the handshake is done when this resolves. */
export async function connectTestClient(server: Server, options: TestClientOptions = {}): Promise<TestClient> {
  const era =
    options.era ??
    (options.protocolVersion === undefined || (MODERN_VERSIONS as readonly string[]).includes(options.protocolVersion)
      ? 'modern'
      : 'legacy');
  const protocolVersion = options.protocolVersion ?? (era === 'modern' ? MODERN_VERSION : LATEST_LEGACY_VERSION);
  const capabilities: ClientCapabilities = options.capabilities ?? {
    ...(options.onElicit && { elicitation: {} }),
    ...(options.onSample && { sampling: {} }),
    ...(options.onListRoots && { roots: {} }),
  };
  const clientInfo = options.clientInfo ?? { name: 'mcp-core-test-client', version: '0.0.0' };
  const answerers: Record<string, ((params: Params) => Answer) | undefined> = {
    'elicitation/create': options.onElicit,
    'sampling/createMessage': options.onSample,
    'roots/list': options.onListRoots,
    ping: () => ({}),
  };
  const pending = new Map<number, Pending>();
  const progressTokens = new Map<string, (params: Params) => void>();
  const notifications: ReceivedNotification[] = [];
  let nextId = 1;
  let closed = false;

  /** What goes over the wire is JSON: both directions are serialized, as a real transport would. */
  const wire = (message: unknown): void => {
    if (!closed) connection.receiveText(JSON.stringify(message));
  };

  const answerServerRequest = async (frame: Params): Promise<void> => {
    const answerer = answerers[frame.method as string];
    try {
      if (answerer === undefined)
        throw new ProtocolError(ErrorCode.MethodNotFound, `the test client has no handler for ${String(frame.method)}`);
      const result = await answerer(isPlainObject(frame.params) ? frame.params : {});
      wire({ jsonrpc: '2.0', id: frame.id, result });
    } catch (error) {
      const code = error instanceof ProtocolError ? error.code : ErrorCode.InternalError;
      wire(errorResponse(frame.id as RequestId, { code, message: (error as Error).message }));
    }
  };

  const onFrame = (frame: Params): void => {
    if (typeof frame.method === 'string') {
      if (frame.id !== undefined) {
        void answerServerRequest(frame);
        return;
      }
      const notification: ReceivedNotification = { method: frame.method };
      if (isPlainObject(frame.params)) notification.params = frame.params;
      notifications.push(notification);
      const token = notification.params?.progressToken;
      if (frame.method === 'notifications/progress' && typeof token === 'string')
        progressTokens.get(token)?.(notification.params!);
      return;
    }
    const waiter = typeof frame.id === 'number' ? pending.get(frame.id) : undefined;
    if (waiter === undefined) return;
    pending.delete(frame.id as number);
    if (isPlainObject(frame.error)) {
      const { code, message, data } = frame.error;
      waiter.reject(new ProtocolError(code as number, message as string, data));
    } else {
      waiter.resolve(frame.result as Params);
    }
  };

  const connection = server.transport.connect({
    era,
    transport: 'memory',
    send(message) {
      const parsed = JSON.parse(JSON.stringify(message)) as Params | Params[];
      for (const frame of Array.isArray(parsed) ? parsed : [parsed]) onFrame(frame);
    },
  });

  const withEnvelope = (params: Params): Params =>
    era === 'legacy'
      ? params
      : {
          ...params,
          _meta: {
            ...(isPlainObject(params._meta) ? params._meta : {}),
            'io.modelcontextprotocol/protocolVersion': protocolVersion,
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': clientInfo,
          },
        };

  const send = (method: string, params: Params, onProgress?: (params: Params) => void): Promise<Params> => {
    if (closed) return Promise.reject(new Error('the test client is closed'));
    const id = nextId++;
    let sent = params;
    const token = `progress-${id}`;
    if (onProgress !== undefined) {
      sent = { ...params, _meta: { ...(isPlainObject(params._meta) ? params._meta : {}), progressToken: token } };
      progressTokens.set(token, onProgress);
    }
    const answer = new Promise<Params>((resolve, reject) => pending.set(id, { resolve, reject }));
    wire({ jsonrpc: '2.0', id, method, params: withEnvelope(sent) });
    return onProgress === undefined ? answer : answer.finally(() => progressTokens.delete(token));
  };

  /** Modern input_required rounds: answer each input request with its callback and retry with a new id. */
  const request = async (
    method: string,
    params: Params = {},
    opts: CallOptions & { raw?: boolean } = {},
  ): Promise<Params> => {
    let result = await send(method, params, opts.onProgress);
    for (let round = 0; era === 'modern' && result.resultType === 'input_required'; round++) {
      if (round === MAX_INPUT_ROUNDS)
        throw new Error(`${method}: still input_required after ${MAX_INPUT_ROUNDS} rounds`);
      const retry: Params = { ...params };
      if (isPlainObject(result.inputRequests)) {
        const responses: Params = {};
        for (const [key, input] of Object.entries(result.inputRequests)) {
          const { method: inputMethod, params: inputParams } = input as Params;
          const answerer = answerers[inputMethod as string];
          if (answerer === undefined || inputMethod === 'ping') {
            throw new Error(
              `${method}: the server asked for ${String(inputMethod)} and the test client has no handler for it`,
            );
          }
          responses[key] = await answerer(isPlainObject(inputParams) ? inputParams : {});
        }
        retry.inputResponses = responses;
      }
      if (result.requestState !== undefined) retry.requestState = result.requestState;
      result = await send(method, retry, opts.onProgress);
    }
    return opts.raw === true ? result : eraNeutral(result);
  };

  let initializeResult: Params | undefined;
  if (era === 'legacy') {
    initializeResult = await send('initialize', { protocolVersion, capabilities, clientInfo });
    wire({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  const negotiated =
    typeof initializeResult?.protocolVersion === 'string' ? initializeResult.protocolVersion : protocolVersion;
  const page = (cursor: string | undefined): Params => (cursor === undefined ? {} : { cursor });

  return {
    era,
    protocolVersion: negotiated,
    initializeResult,
    notifications,
    connection,
    listTools: (cursor) => request('tools/list', page(cursor)) as Promise<Params & { tools: Params[] }>,
    callTool: (name, args = {}, opts) =>
      request('tools/call', { name, arguments: args }, opts) as Promise<CallToolResult & Params>,
    listResources: (cursor) => request('resources/list', page(cursor)) as Promise<Params & { resources: Params[] }>,
    listResourceTemplates: (cursor) =>
      request('resources/templates/list', page(cursor)) as Promise<Params & { resourceTemplates: Params[] }>,
    readResource: (uri, opts) => request('resources/read', { uri }, opts) as Promise<ReadResourceResult & Params>,
    listPrompts: (cursor) => request('prompts/list', page(cursor)) as Promise<Params & { prompts: Params[] }>,
    getPrompt: (name, args = {}, opts) =>
      request('prompts/get', { name, arguments: args }, opts) as Promise<GetPromptResult & Params>,
    complete: (ref, argument, context) =>
      request(
        'completion/complete',
        context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } },
      ),
    request,
    notify(method, params) {
      wire(
        params === undefined && era === 'legacy'
          ? { jsonrpc: '2.0', method }
          : { jsonrpc: '2.0', method, params: withEnvelope(params ?? {}) },
      );
    },
    async close() {
      if (closed) return;
      connection.close();
      closed = true;
      for (const waiter of pending.values()) waiter.reject(new Error('the test client was closed'));
      pending.clear();
    },
  };
}

/** A modern result without what only the 2026-07-28 wire carries, so it compares equal to the 2025 one. */
function eraNeutral(result: Params): Params {
  if (!('resultType' in result)) return result;
  const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, _meta, ...rest } = result;
  if (isPlainObject(_meta)) {
    const { [SERVER_INFO_META]: _serverInfo, ...meta } = _meta;
    if (Object.keys(meta).length > 0) rest._meta = meta;
  }
  return rest;
}
