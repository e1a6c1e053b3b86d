// The table of one HTTP handler's live 2025 sessions (docs/http-deployment.md, Limits and timeouts): sessions by id
// in the order requests last named them, the ones no request has named since their initialize, and which session a
// full table ends for a newcomer or the reaper ends for idleness. Owns the table and its eviction count; never ends a
// session itself (its owner does, as it reaps one) and never picks a busy one.

import type { Session } from './sessions.ts';

/**
 * How many sessions of each order a full table looks at, at most, for one to end (`idlest`): an initialize costs the
 * same whether 10 or 10 000 sessions are busy.
 */
const MAX_EVICTION_LOOKS = 64;

/**
 * The first session of `order` (by id, oldest first) that is not busy, looking at each once and at most
 * MAX_EVICTION_LOOKS. A busy one looked at moves to the back (it is in use now), so the next look starts further on.
 */
function idlest(order: Map<string, Session>): Session | undefined {
  let looks = Math.min(order.size, MAX_EVICTION_LOOKS);
  for (const [id, session] of order) {
    if (looks-- === 0) break;
    if (!session.busy) return session;
    order.delete(id);
    order.set(id, session);
  }
  return undefined;
}

/** One handler's live 2025 sessions, at most `maxSessions` of them. */
export class SessionTable {
  readonly #maxSessions: number;
  /** By id, least recently named first: `touch` moves a session to the back, so room is made from the front. */
  readonly #sessions = new Map<string, Session>();
  /**
   * The sessions no request has named since their initialize (not even `notifications/initialized`), oldest first:
   * a full table ends these before any other.
   */
  readonly #handshakeOnly = new Map<string, Session>();
  #evicted = 0;

  constructor(maxSessions: number) {
    this.#maxSessions = maxSessions;
  }

  /** The live sessions by id (read-only: the table changes them only through its methods). */
  get byId(): ReadonlyMap<string, Session> {
    return this.#sessions;
  }

  /** How many sessions a full table has ended for a newcomer (HttpMetrics.evictedSessions). */
  get evicted(): number {
    return this.#evicted;
  }

  /**
   * Lists `session` under `id`: a new one (`handshakeOnly`: its initialize is all a request has said of it yet) or
   * a shared one's copy restored for a request.
   */
  add(id: string, session: Session, handshakeOnly: boolean): void {
    this.#sessions.set(id, session);
    if (handshakeOnly) this.#handshakeOnly.set(id, session);
  }

  /** A request named session `id`: it is past its handshake, and the most recently named session of the table. */
  touch(id: string, session: Session): void {
    this.#handshakeOnly.delete(id);
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
  }

  /** Takes session `id` out of the table. */
  remove(id: string): void {
    this.#sessions.delete(id);
    this.#handshakeOnly.delete(id);
  }

  /**
   * Whether one more session fits, and if not, the session to end so that it does (counted as evicted): the oldest
   * handshake-only session that is not busy, else the least recently named one that is not busy — exactly as an idle
   * one is reaped, so its client's next request gets 404 and it starts a new session (MCP 2025-11-25, Basic >
   * Transports > Streamable HTTP > Session Management). A busy session (a request in flight, a stream open) is never
   * picked: a flood of initializes cannot cut a working client off. `'full'` when none of those looked at may end.
   */
  makeRoom(): 'room' | 'full' | Session {
    if (this.#sessions.size < this.#maxSessions) return 'room';
    const session = idlest(this.#handshakeOnly) ?? idlest(this.#sessions);
    if (session === undefined) return 'full';
    this.#evicted++;
    return session;
  }

  /** The sessions neither busy nor named by a request for more than `idleMs` (the reaper ends them). */
  idle(idleMs: number): Session[] {
    const now = Date.now();
    return [...this.#sessions.values()].filter((session) => !session.busy && now - session.lastActivity > idleMs);
  }
}
