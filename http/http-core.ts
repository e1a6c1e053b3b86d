// The transport-neutral core of Streamable HTTP for both eras on one endpoint: behind the guard (http-guard.ts),
// body-primary era classification with the MCP-Protocol-Version header as a cross-check, then the sessionless
// 2026-07-28 exchanges (http-modern.ts) or the 2025 session path with its session table, idle reaper and shared-store
// restores, all over the Reply interface. Never answers a refusal with a session id.

import type { Server } from '../core.ts';
import {
  batchTooLong,
  classify,
  decodeUtf8,
  ErrorCode,
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  NOT_UTF8,
  PARSE_ERROR,
  ProtocolError,
  parseJson,
  type RequestId,
} from '../jsonrpc.ts';
import { initializeParamsRefusal, type SessionState } from '../legacy.ts';
import { hasClaim, META_PROTOCOL_VERSION, MISSING_ENVELOPE } from '../modern.ts';
import { ErrorCounts } from '../tracing.ts';
import { LEGACY_VERSIONS, type Logger, MODERN_VERSIONS, type ServerMetrics } from '../types.ts';
import { accepted, first, type Reply, StreamBudget, shuttingDown } from './exchange.ts';
import { type GuardOptions, HttpGuard } from './http-guard.ts';
import { ModernExchanges, mismatch } from './http-modern.ts';
import type { GetStreamHolds } from './session-get-stream.ts';
import { SessionTable } from './session-table.ts';
import { newSessionId, SESSION_NOT_FOUND, Session, type SessionOptions } from './sessions.ts';
import { type SessionRecord, type SharedSessionStore, SharedSessions, STORE_UNAVAILABLE } from './shared-sessions.ts';
import { type EventStore, MemoryEventStore } from './sse.ts';

/** Options of the HTTP endpoint (node and fetch adapters): admission checks, limits, sessions, streams and auth. */
export interface HttpOptions extends GuardOptions {
  /** Request body limit in bytes (default 4 MiB), counted as it streams in. */
  maxBodyBytes?: number;
  /** 2025 sessions (default true); false serves 2025 requests statelessly, without initialize. */
  sessions?: boolean;
  /** 2025 request POSTs: 'sse' streams when something precedes the answer (default); 'json' never streams. */
  responseMode?: 'sse' | 'json';
  /**
   * Live 2025 sessions at once (default 10 000). A full table makes room for a new one: a session no request has
   * named since its initialize ends first, else the least recently named one, never a busy one; 503 when all are busy.
   */
  maxSessions?: number;
  /** Idle 2025 sessions (no request, no open stream) are ended after this long, checked at most once a second (default 30 min). */
  sessionIdleMs?: number;
  /** Long-lived SSE streams (GET streams and listens) open at once (default 10 000). */
  maxStreams?: number;
  keepAliveMs?: number;
  /** Reconnection delay advised by the priming event of 2025-11-25 streams (default 1000 ms). */
  retryMs?: number;
  /**
   * SSE polling (2025-11-25 sessions with an event store): a request POST this admits (`true`: every one; a function
   * is given the JSON-RPC request) is answered at once with an SSE stream that ends right after its priming event
   * (`retry:` set) while the request keeps running; its progress and answer are stored, and the client's GET with
   * Last-Event-ID receives them. Default false: a POST stream stays open until its answer.
   */
  endStreamAfterPriming?: boolean | ((request: JsonRpcRequest) => boolean);
  /**
   * 2025 sessions shared by several processes: a session created by one is served by any (its handshake is restored
   * from the record), so a balancer needs no stickiness (mcp-core/redis is one; docs/http-deployment.md, Scaling out
   * on Redis). Without it only the process that created a session serves it. GET streams and server→client requests
   * stay with the process that holds them.
   */
  sharedSessions?: SharedSessionStore;
  /** Resumability storage for 2025 SSE streams (default: in memory, bounded); false stores nothing. */
  eventStore?: EventStore | false;
}

const STATELESS_VERSION = '2025-03-26';

/** Answers the exchange with `status` and the -32600 refusal `message` (to `id`, or null: no frame is answered). */
function refuseRequest(reply: Reply, status: number, message: string, id: RequestId | null = null): void {
  reply.send(status, errorResponse(id, { code: ErrorCode.InvalidRequest, message }));
}

/** The answer to a new 2025 session (or a restored copy) when the table is full and no session in it may end (503). */
const TOO_MANY_SESSIONS = errorResponse(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Service Unavailable: too many sessions',
});

/**
 * The `endStreamAfterPriming` option as a predicate (undefined: no request POST ends early). One that throws is
 * logged and taken for false: the request is served with its stream open.
 */
function predicate(
  option: HttpOptions['endStreamAfterPriming'],
  logger: Logger,
): SessionOptions['endStreamAfterPriming'] {
  if (typeof option !== 'function') return option === true ? () => true : undefined;
  return (request) => {
    try {
      return option(request);
    } catch (error) {
      logger.error('endStreamAfterPriming threw; the stream stays open', error);
      return false;
    }
  };
}

/** What an HTTP handler's `metrics()` answers: its server's snapshot (ServerMetrics) and its own. */
export interface HttpMetrics extends ServerMetrics {
  /** Live 2025 sessions in this handler's table. */
  sessions: number;
  /** 2025 sessions ended to make room for a new one in a full table (maxSessions) since the handler was created. */
  evictedSessions: number;
  /** SSE responses open now: 2025 POST and GET streams, resumptions, 2026-07-28 streamed answers and listens. */
  sseStreams: number;
  /**
   * Answers with an HTTP status of 400 or more since the handler was created, by status ('404': 2), whoever wrote
   * them: the HTTP layer's refusals (which `errors` does not count) and the 2026-07-28 error answers it maps to 4xx.
   */
  httpErrors: Record<string, number>;
}

/** What the handler an adapter returns controls of its core. */
export interface HandlerControls {
  close(drainWindowMs?: number): Promise<void>;
  readonly sessionCount: number;
  /** A plain snapshot: the server's metrics (every transport's), then this handler's sessions and SSE streams. */
  metrics(): HttpMetrics;
}

/** The key of a handler's own (non-enumerable) view of its live 2025 sessions; see `sessionsOf`. */
const SESSIONS = Symbol('mcp-core sessions');

/**
 * The live 2025 sessions, by id, of a handler an adapter returned, read from the handler itself: for the test
 * suite, which checks what they hold (test/storms.test.ts). Neither adapter exports it.
 */
export function sessionsOf(handler: object): ReadonlyMap<string, Session> | undefined {
  return (handler as { [SESSIONS]?: ReadonlyMap<string, Session> })[SESSIONS];
}

/** The transport-neutral HTTP core: one per handler, shared by all exchanges. */
export class HttpCore {
  readonly #server: Server;
  readonly #options: HttpOptions;
  /** The live 2025 sessions: a POST, GET or DELETE naming one touches it (#withSession). */
  readonly #table: SessionTable;
  readonly #eventStore: EventStore | undefined;
  readonly #modern: ModernExchanges;
  readonly #registry = {
    add: (session: Session): string | undefined => {
      if (this.#closing) return undefined;
      const id = newSessionId();
      this.#table.add(id, session, true);
      return id;
    },
    save: (session: Session): Promise<boolean> | undefined =>
      this.#shared?.save(session.id!, session.connection.handshake!, this.#guard.ownerOf(session)),
    saveState: (session: Session, state: SessionState): Promise<void> | undefined => {
      const saving = this.#shared?.save(
        session.id!,
        session.connection.handshake!,
        this.#guard.ownerOf(session),
        state,
      );
      return saving?.then((saved) => {
        if (!saved) throw new ProtocolError(ErrorCode.InternalError, STORE_UNAVAILABLE.error.message);
      });
    },
    relay: (session: Session, message: JsonRpcResponse | JsonRpcNotification): void =>
      this.#shared?.relay(session.id!, session.copies, message),
    isShared: (): boolean => this.#shared !== undefined,
    firstOutboundId: (): number | undefined => this.#shared?.firstOutboundId(),
    getStreamHolds: undefined as GetStreamHolds | undefined,
    remove: (session: Session): void => {
      if (session.id !== undefined) this.#table.remove(session.id);
    },
  };
  readonly #reaper: ReturnType<typeof setInterval> | undefined;
  /** Long-lived SSE streams (GET streams and listens) against `maxStreams`. */
  readonly #streams: StreamBudget;
  readonly #guard: HttpGuard;
  readonly #shared: SharedSessions | undefined;
  readonly #sessionOptions: SessionOptions;
  /**
   * Sessions serving outside the session store, which close() must drain too: the one-POST sessions of stateless
   * 2025 requests (`sessions: false`) still running, and sessions whose initialize has not been answered yet (one
   * whose answer waits for its shared record is in the store already).
   */
  readonly #unlisted = new Set<Session>();
  #closing = false;
  /** The adapters' answers with a status of 400 or more, by status (HttpMetrics.httpErrors). */
  readonly httpErrors = new ErrorCounts();

  constructor(server: Server, options: HttpOptions = {}) {
    this.#server = server;
    this.#options = options;
    this.#table = new SessionTable(options.maxSessions ?? 10_000);
    const { transport } = server;
    this.#guard = new HttpGuard(options, options.sessions !== false, transport.logger, () => transport.scopesInUse());
    this.#streams = new StreamBudget(options.maxStreams ?? 10_000);
    const stepUp: HttpGuard['stepUp'] = (reply, response) => this.#guard.stepUp(reply, response);
    this.#modern = new ModernExchanges(server, this.#streams, stepUp);
    if (options.sharedSessions !== undefined) {
      const shared = new SharedSessions(options.sharedSessions, server.transport.logger);
      this.#shared = shared;
      if (shared.holdsGetStreams)
        this.#registry.getStreamHolds = {
          processId: newSessionId(), // unguessable like a session id; only ever compared
          changesShared: server.transport.hasChangeBus,
          hold: (sessionId, holder) => shared.holdGetStream(sessionId, holder),
        };
      shared.watch(
        (id, record) => this.#recordChanged(id, record),
        (id, message) => this.#relayed(id, message),
        (id, holder) => this.#table.byId.get(id)?.heardGetStream(holder),
      );
    }
    this.#eventStore = options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore());
    this.#sessionOptions = {
      responseMode: options.responseMode ?? 'sse',
      eventStore: this.#eventStore,
      logger: server.transport.logger,
      retryMs: options.retryMs ?? 1000,
      endStreamAfterPriming: predicate(options.endStreamAfterPriming, server.transport.logger),
      streams: this.#streams,
      stepUp,
    };
    if (options.sessions !== false) {
      const idleMs = options.sessionIdleMs ?? 30 * 60_000;
      this.#reaper = setInterval(() => this.#reap(idleMs), Math.max(1000, Math.min(idleMs, 60_000)));
      this.#reaper.unref();
    }
  }

  /** Makes `handler` (an adapter's) the face of this core: its close() and sessionCount are the core's. */
  expose<H extends object>(handler: H): H & HandlerControls {
    // Not Object.assign: it would copy the getter's value once (sessionCount frozen at 0).
    return Object.defineProperties(handler, {
      close: { value: (drainWindowMs?: number) => this.close(drainWindowMs) },
      sessionCount: { get: () => this.#table.byId.size, enumerable: true },
      metrics: { value: (): HttpMetrics => this.metrics() },
      [SESSIONS]: { value: this.#table.byId },
    }) as H & HandlerControls;
  }

  /** HandlerControls.metrics. */
  metrics(): HttpMetrics {
    return {
      ...this.#server.metrics(),
      sessions: this.#table.byId.size,
      evictedSessions: this.#table.evicted,
      sseStreams: this.#streams.sseStreams,
      httpErrors: this.httpErrors.snapshot(),
    };
  }

  /** Whether close() began: from then on every new exchange is refused 503. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Once close() began: answers 503 (the request is not served) and returns true. */
  #refusedWhileClosing(reply: Reply): boolean {
    if (this.#closing) reply.send(503, shuttingDown(null));
    return this.#closing;
  }

  /** Ends the sessions idle for more than `idleMs` (HttpOptions.sessionIdleMs). */
  #reap(idleMs: number): void {
    for (const session of this.#table.idle(idleMs)) this.#endSession(session);
  }

  /** Another process saved or removed a shared session's record: this process's copy follows it. */
  #recordChanged(id: string, record: SessionRecord | undefined): void {
    const session = this.#table.byId.get(id);
    if (session === undefined) return;
    if (record === undefined)
      this.#endSession(session, false, true); // over; the process that removed it drops its events
    else session.applyRecord(record, false);
  }

  /**
   * A client's message another process received for this process's copy of a session (SharedSessions.relay): a
   * response settles the server→client request this copy sent; a cancel cancels the request this copy runs, as the
   * client's own cancel here would (its POST ends without an answer). Anything else is not relayed, so not ours.
   */
  #relayed(id: string, message: JsonRpcMessage): void {
    const session = this.#table.byId.get(id);
    const frame = classify(message);
    if (frame.kind === 'response') session?.connection.settleOutbound(frame.message);
    else if (frame.kind === 'notification' && frame.message.method === 'notifications/cancelled')
      session?.connection.receive(frame.message);
  }

  /**
   * Ends this process's copy of a session. `over`: the session itself is over (DELETE, its record gone), so its
   * stored events go too; a copy reaped or closed here leaves a shared session's events to the processes still
   * serving it. `callerEnded`: the session is over everywhere (unshared: any end; shared: DELETE, or its record gone),
   * so what is bound to it (its tasks) ends too; an auth principal's is not the session's, and stays.
   */
  #endSession(session: Session, over = this.#shared === undefined, callerEnded = over): void {
    session.end(over, callerEnded);
    if (session.id !== undefined) this.#table.remove(session.id);
  }

  /**
   * Whether the table has room for one more session, made if need be by ending the session it picks
   * (SessionTable.makeRoom; a shared session's record stays, so there its next request restores it). False when no
   * session may end: the newcomer is refused 503.
   */
  #roomForOne(): boolean {
    const room = this.#table.makeRoom();
    if (room === 'full') return false;
    if (room !== 'room') this.#endSession(room);
    return true;
  }

  /**
   * Header-only checks and a CORS preflight (http-guard.ts). Returns whether the exchange is to be served (false: it
   * was answered).
   */
  admit(method: string, path: string, reply: Reply): boolean {
    if (this.#refusedWhileClosing(reply)) return false;
    return this.#guard.admit(method, path, reply);
  }

  /**
   * Serves nothing new from now on (503), and ends every session and exchange this core holds: listens and GET
   * streams end at once (listens with their final results), running requests get the window to finish, then are
   * cut (answered 503). Resolves within the window.
   */
  close(drainWindowMs = 2000): Promise<void> {
    this.#closing = true;
    clearInterval(this.#reaper);
    const sessions = [...new Set([...this.#table.byId.values(), ...this.#unlisted])].map(async (session) => {
      await session.shutdown(drainWindowMs);
      this.#endSession(session);
    });
    this.#unlisted.clear();
    const modern = this.#modern.drain(drainWindowMs);
    return Promise.all([...sessions, ...modern]).then(() => undefined);
  }

  /** A POST body that arrived whole (within the limit), as its bytes. */
  post(body: Uint8Array, reply: Reply): void {
    this.#guard.authorize(reply, () => this.#post(body, reply));
  }

  #post(body: Uint8Array, reply: Reply): void {
    const text = decodeUtf8(body);
    if (text === undefined) {
      reply.send(400, NOT_UTF8);
      return;
    }
    const parsed = parseJson(text);
    if (parsed === undefined) {
      reply.send(400, PARSE_ERROR);
      return;
    }
    this.#postParsed(parsed.value, reply);
  }

  /** A POST body a framework already parsed as JSON (e.g. express.json()). */
  postParsed(value: unknown, reply: Reply): void {
    this.#guard.authorize(reply, () => this.#postParsed(value, reply));
  }

  #postParsed(value: unknown, reply: Reply): void {
    if (this.#refusedWhileClosing(reply)) return; // close() began while the body arrived or its token was verified
    const versions = reply.headers['mcp-protocol-version'];
    if (Array.isArray(versions) && versions.length > 1) {
      reply.send(
        400,
        errorResponse(null, {
          code: ErrorCode.HeaderMismatch,
          message: mismatch('MCP-Protocol-Version', 'is duplicated'),
        }),
      );
      return;
    }
    const header = first(versions);
    if (Array.isArray(value)) {
      this.#batch(value, header, reply);
      return;
    }
    const frame = classify(value);
    if (frame.kind === 'invalid') {
      reply.send(400, errorResponse(frame.id, frame.error));
      return;
    }
    const message = frame.message;
    const modernHeader = header !== undefined && (MODERN_VERSIONS as readonly string[]).includes(header);
    if (frame.kind === 'response') {
      if (modernHeader) refuseRequest(reply, 400, 'Invalid Request: clients must not send responses in 2026-07-28');
      else this.#legacy(value, [], header, reply);
      return;
    }
    const { params } = frame.message as { params?: Record<string, unknown> };
    const id = frame.kind === 'request' ? frame.message.id : null;
    if (hasClaim(params)) {
      const claimed = (params!._meta as Record<string, unknown>)[META_PROTOCOL_VERSION];
      if (header !== claimed) {
        reply.send(
          400,
          errorResponse(id, {
            code: ErrorCode.HeaderMismatch,
            message: 'Header mismatch: MCP-Protocol-Version header must equal the _meta protocol version',
          }),
        );
      } else {
        this.#modern.post(message, id, reply);
      }
      return;
    }
    if (frame.kind === 'request' && frame.message.method === 'initialize') {
      this.#legacy(value, [frame.message.id], header, reply);
    } else if (modernHeader) {
      if (frame.kind === 'notification') reply.send(202);
      else
        reply.send(
          400,
          errorResponse(id, {
            code: ErrorCode.InvalidParams,
            message: MISSING_ENVELOPE,
          }),
        );
    } else if (header !== undefined && !(LEGACY_VERSIONS as readonly string[]).includes(header)) {
      refuseRequest(reply, 400, 'Bad Request: unsupported MCP-Protocol-Version header', id);
    } else {
      this.#legacy(value, id === null ? [] : [id], header, reply);
    }
  }

  #batch(items: unknown[], header: string | undefined, reply: Reply): void {
    if (items.length === 0) {
      refuseRequest(reply, 400, 'Invalid Request: an empty batch is not a request');
      return;
    }
    const { maxBatchLength } = this.#server.transport;
    if (items.length > maxBatchLength) {
      reply.send(400, errorResponse(null, batchTooLong(maxBatchLength)));
      return;
    }
    const claimed = items.some((item) => {
      const params = (item as { params?: unknown } | null)?.params;
      return typeof params === 'object' && params !== null && hasClaim(params as Record<string, unknown>);
    });
    if (claimed) {
      refuseRequest(
        reply,
        400,
        'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
      );
      return;
    }
    const ids: RequestId[] = [];
    for (const item of items) {
      const frame = classify(item);
      if (frame.kind === 'request') {
        if (frame.message.method === 'initialize') {
          refuseRequest(reply, 400, 'Invalid Request: initialize must not be part of a batch');
          return;
        }
        ids.push(frame.message.id);
      }
    }
    this.#legacy(items, ids, header, reply, true);
  }

  #legacy(value: unknown, ids: RequestId[], header: string | undefined, reply: Reply, batch = false): void {
    const { json, sse: canStream } = accepted(reply.headers);
    if (ids.length > 0 && !canStream && !json) {
      refuseRequest(reply, 406, 'Not Acceptable: Accept must admit application/json or text/event-stream');
      return;
    }
    const sessionOptions = this.#sessionOptions;
    const { responseMode } = sessionOptions;
    const initialize = !batch && ids.length === 1 && (value as { method?: unknown }).method === 'initialize';
    if (this.#options.sessions === false) {
      const session = new Session(
        this.#server,
        Object.assign({}, sessionOptions, { responseMode: 'json' as const }), // not a spread: see NodeReply.send
        undefined,
        initialize ? undefined : (header ?? STATELESS_VERSION),
      );
      this.#unlisted.add(session);
      const done = (): void => {
        if (this.#unlisted.delete(session)) session.end();
      };
      reply.onAbort(done);
      session.post(value, ids, reply, false, done); // the one-POST session ends with its answer
      return;
    }
    const sessionId = first(reply.headers['mcp-session-id']);
    if (initialize && sessionId === undefined) {
      if (!this.#roomForOne()) {
        reply.send(503, TOO_MANY_SESSIONS);
        return;
      }
      const session = new Session(this.#server, sessionOptions, this.#registry);
      this.#guard.own(session, this.#guard.principal(reply));
      // Streaming hands out the session id at once, so only a well-formed initialize may do it. With a
      // shared store the id goes out only once the record is saved (SessionRegistry.save), so never early.
      const params = (value as { params?: Record<string, unknown> }).params ?? {};
      const streamEarly =
        this.#server.transport.hasInitializeHook &&
        responseMode === 'sse' &&
        canStream &&
        this.#shared === undefined &&
        initializeParamsRefusal(params) === undefined;
      if (streamEarly) {
        session.initialize(value, ids[0]!, reply, true); // registered at once: its id goes out with the stream
        return;
      }
      this.#unlisted.add(session); // listed with its answer, unless close() began meanwhile
      session.initialize(value, ids[0]!, reply, false, () => this.#unlisted.delete(session));
      return;
    }
    if (sessionId === undefined) {
      refuseRequest(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    this.#withSession(sessionId, reply, sessionOptions, (session) => {
      const negotiated = session.connection.legacyVersion;
      // Undefined while an initialize hook runs: nothing is negotiated yet, and the frame waits behind the gate.
      if (header !== undefined && negotiated !== undefined && header !== negotiated) {
        refuseRequest(reply, 400, 'Bad Request: MCP-Protocol-Version header does not match the negotiated version');
        return;
      }
      // Refused here, with this POST: a batch the dispatcher refused would have no POST to answer on.
      const refusal = batch ? session.connection.batchRefusal((value as unknown[]).length) : undefined;
      if (refusal !== undefined) {
        reply.send(refusal.code === ErrorCode.InternalError ? 503 : 400, errorResponse(null, refusal));
        return;
      }
      session.post(value, ids, reply, canStream);
    });
  }

  /**
   * Serves `serve` with the session `id` names when this exchange may use it, else answers 404. With a shared store
   * the record decides: a session ended elsewhere is forgotten here, one created elsewhere is restored here.
   */
  #withSession(id: string, reply: Reply, options: SessionOptions, serve: (session: Session) => void): void {
    const admit = (session: Session | undefined): void => {
      if (session === undefined || session.ended || !this.#guard.ownedBy(session, reply)) {
        reply.send(404, SESSION_NOT_FOUND);
        return;
      }
      this.#table.touch(id, session);
      serve(session);
    };
    const shared = this.#shared;
    if (shared === undefined) {
      admit(this.#table.byId.get(id));
      return;
    }
    shared.load(id).then(
      (record) => {
        if (this.#refusedWhileClosing(reply)) return; // a session restored now would outlive close()
        let session = this.#table.byId.get(id);
        if (record === undefined) {
          if (session !== undefined) this.#endSession(session, true);
          session = undefined;
        } else if (session !== undefined) {
          session.applyRecord(record, true); // what another process set since this copy last heard
        } else {
          if (!this.#roomForOne()) {
            reply.send(503, TOO_MANY_SESSIONS);
            return;
          }
          session = new Session(this.#server, options, this.#registry, record);
          session.id = id;
          session.applyRecord(record, true); // the GET stream it names
          this.#table.add(id, session, false);
          this.#guard.own(session, record.owner);
        }
        admit(session);
      },
      () => reply.send(503, STORE_UNAVAILABLE),
    );
  }

  /** GET opens (or resumes) one of a session's GET streams; DELETE ends the session. */
  sessionRequest(method: 'GET' | 'DELETE', reply: Reply): void {
    this.#guard.authorize(reply, () => this.#sessionRequest(method, reply));
  }

  #sessionRequest(method: 'GET' | 'DELETE', reply: Reply): void {
    if (this.#refusedWhileClosing(reply)) return; // close() began while its token was verified
    if (method === 'GET' && !accepted(reply.headers).sse) {
      refuseRequest(reply, 406, 'Not Acceptable: a GET stream needs Accept: text/event-stream');
      return;
    }
    const sessionId = first(reply.headers['mcp-session-id']);
    if (sessionId === undefined) {
      refuseRequest(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    this.#withSession(sessionId, reply, this.#sessionOptions, (session) => {
      if (method === 'DELETE') {
        // Answered once every process would refuse the id: after the shared record is gone. Its shared events go
        // only then: a removal that failed (503, the client may retry) leaves the session whole.
        const shared = this.#shared;
        this.#endSession(session, shared === undefined, true); // the client ended it: its tasks end too
        if (shared === undefined) reply.send(200);
        else
          void shared.remove(sessionId).then((removed) => {
            if (removed) session.dropEvents();
            reply.send(removed ? 200 : 503, removed ? undefined : STORE_UNAVAILABLE);
          });
        return;
      }
      if (this.#streams.full) {
        this.#streams.refuse(reply, null);
        return;
      }
      void session.openGetStream(reply, first(reply.headers['last-event-id']), (r) =>
        this.#streams.open(r, true, { 'mcp-session-id': sessionId }),
      );
    });
  }
}
