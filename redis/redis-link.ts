// The user's Redis client as the Redis add-on (`mcp-core/redis`) uses it: the two-function RedisLink, and the
// commands sent over it with a key prefix and a timeout, so an outage rejects within a known bound. It owns no key
// and no state of its own; it never opens a socket or speaks RESP itself, and the core never imports it.

import { MAX_TIMER_MS } from '../tasks/task-store.ts';

/**
 * The user's Redis client as this add-on uses it. `send` sends one command (its name and arguments, as strings) and
 * resolves with Redis's reply (strings, numbers, arrays, null) or rejects. `subscribe` subscribes a connection in
 * subscriber mode to `channel` and resolves once subscribed; `onMessage` gets each message's text, and
 * `onResubscribed` runs each time the client subscribed again after losing its connection (messages published
 * meanwhile are lost: pub/sub delivers at most once). docs/http-deployment.md has the glue for node-redis and ioredis.
 */
export interface RedisLink {
  send(command: string[]): Promise<unknown>;
  subscribe(channel: string, onMessage: (message: string) => void, onResubscribed: () => void): Promise<void>;
}

/** A positive safe integer option (at most `max`), or its default; a RangeError names a bad one. */
export function positive(
  name: string,
  value: number | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1 || chosen > max)
    throw new RangeError(
      `${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}, got ${chosen}`,
    );
  return chosen;
}

/** The link with the engine's key prefix and command timeout. */
export class RedisCommands {
  readonly link: RedisLink;
  readonly prefix: string;
  readonly #timeoutMs: number;

  /** Checks the link and the options (a TypeError or RangeError names a bad one). */
  constructor(link: RedisLink, prefix: string | undefined, commandTimeoutMs: number | undefined) {
    if (typeof link?.send !== 'function' || typeof link.subscribe !== 'function')
      throw new TypeError('createRedisEngine: the link must have send and subscribe functions');
    this.link = link;
    this.prefix = prefix ?? 'mcp:';
    if (typeof this.prefix !== 'string') throw new TypeError('createRedisEngine: prefix must be a string');
    this.#timeoutMs = positive('commandTimeoutMs', commandTimeoutMs, 2000, MAX_TIMER_MS);
  }
  /** Sends one command; rejects when Redis answers an error or takes longer than the command timeout. */
  send(command: string[]): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`redis: no answer to ${command[0]} within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    timer!.unref(); // a command in flight never keeps a closing process alive
    // A link that throws instead of rejecting rejects here too (the timer is cleared either way).
    const answer = Promise.resolve().then(() => this.link.send(command));
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /** Runs a Lua script (EVAL) on `keys` with `args`: one round trip, applied atomically. */
  script(source: string, keys: string[], args: string[]): Promise<unknown> {
    return this.send(['EVAL', source, String(keys.length), ...keys, ...args]);
  }
}
