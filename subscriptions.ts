// subscriptions/listen streams of one connection (2026-07-28): the acknowledgement, filtered change events tagged
// with the subscription id, a bounded per-stream buffer while the transport is backed up, graceful end (buffer
// flushed, then the final result) and overflow end (an error). Owns only its connection's streams; every entry is
// released on cancel, overflow, graceful end and close, and nothing ever reaches another connection's streams.

import type { InboundRequest } from './dispatcher.ts';
import { META_SUBSCRIPTION_ID } from './era.ts';
import { ErrorCode, ProtocolError, invalidParams, type RequestId } from './jsonrpc.ts';
import type { ChangeEvent } from './registry.ts';

export interface ListenLimits {
  /** Open listen streams per connection (default 1024). */
  maxStreams: number;
  /** Events one stream may hold while the transport is backed up; one more ends it with an error (default 1024). */
  maxBufferedEvents: number;
}

interface Served {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
}

interface Filter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

type Frame = { method: string; params: Record<string, unknown> };
type Settle = { resolve(result: object): void; reject(error: unknown): void };

const MAX_RESOURCE_SUBSCRIPTIONS = 1024;
const FLAGS = [
  ['toolsListChanged', 'tools', 'tools'],
  ['promptsListChanged', 'prompts', 'prompts'],
  ['resourcesListChanged', 'resources', 'resources'],
] as const;

/** Reads the requested filter and keeps only what this server will honour. */
function narrowFilter(requested: unknown, served: Served): Filter {
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
    throw invalidParams('params.notifications must be an object');
  }
  const given = requested as Record<string, unknown>;
  const filter: Filter = {};
  for (const [flag, feature] of FLAGS) {
    const value = given[flag];
    if (value !== undefined && typeof value !== 'boolean') throw invalidParams(`params.notifications.${flag} must be a boolean`);
    if (value === true && served[feature]) filter[flag] = true;
  }
  const uris = given.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || uris.length > MAX_RESOURCE_SUBSCRIPTIONS || !uris.every((uri) => typeof uri === 'string')) {
      throw invalidParams(`params.notifications.resourceSubscriptions must be an array of at most ${MAX_RESOURCE_SUBSCRIPTIONS} strings`);
    }
    if (served.resources && uris.length > 0) filter.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return filter;
}

class ListenStream {
  readonly id: RequestId;
  readonly request: InboundRequest;
  readonly buffer: Frame[] = [];
  readonly #filter: Filter;
  readonly #uris: Set<string>;
  readonly settle: Settle;

  constructor(request: InboundRequest, filter: Filter, settle: Settle) {
    this.id = request.id;
    this.request = request;
    this.#filter = filter;
    this.#uris = new Set(filter.resourceSubscriptions);
    this.settle = settle;
  }

  /** The event's frame when this stream asked for it. */
  frameFor(event: ChangeEvent): Frame | undefined {
    const meta = { [META_SUBSCRIPTION_ID]: this.id };
    if (event.type === 'resource') {
      return this.#uris.has(event.uri)
        ? { method: 'notifications/resources/updated', params: { _meta: meta, uri: event.uri } }
        : undefined;
    }
    const flag = `${event.type}ListChanged` as const;
    return this.#filter[flag] === true ? { method: `notifications/${event.type}/list_changed`, params: { _meta: meta } } : undefined;
  }
}

export class ListenStreams {
  readonly #streams = new Map<RequestId, ListenStream>();
  readonly #limits: ListenLimits;
  readonly #isBackedUp: () => boolean;

  constructor(limits: ListenLimits, isBackedUp: () => boolean) {
    this.#limits = limits;
    this.#isBackedUp = isBackedUp;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** Serves one listen request; settles with the final result on a graceful end, rejects on overflow. */
  open(request: InboundRequest, served: Served): Promise<object> {
    const filter = narrowFilter(request.params.notifications, served);
    if (this.#streams.size >= this.#limits.maxStreams) {
      throw new ProtocolError(ErrorCode.InternalError, 'Subscription limit reached');
    }
    return new Promise((resolve, reject) => {
      const stream = new ListenStream(request, filter, { resolve, reject });
      this.#streams.set(stream.id, stream);
      // In the table before the ack is written, so an event racing the ack is delivered right after it.
      request.signal.addEventListener('abort', () => this.#release(stream), { once: true });
      const { resourceSubscriptions, ...flags } = filter;
      request.notify('notifications/subscriptions/acknowledged', {
        _meta: { [META_SUBSCRIPTION_ID]: stream.id },
        notifications: resourceSubscriptions === undefined ? flags : { ...flags, resourceSubscriptions },
      });
    });
  }

  /** A server change: each open stream that asked for it gets it. */
  onChange(event: ChangeEvent): void {
    // A Map survives deletion during iteration, so an overflowing stream may release itself here.
    for (const stream of this.#streams.values()) this.#deliver(stream, event);
  }

  #deliver(stream: ListenStream, event: ChangeEvent): void {
    const frame = stream.frameFor(event);
    if (frame === undefined) return;
    if (stream.buffer.length === 0 && !this.#isBackedUp()) {
      stream.request.notify(frame.method, frame.params);
      return;
    }
    if (stream.buffer.length >= this.#limits.maxBufferedEvents) {
      // Dropping silently would look like a quiet server; the client must re-listen and refetch.
      this.#release(stream);
      stream.settle.reject(new ProtocolError(ErrorCode.InternalError, 'Subscription overflowed: events were dropped; re-listen and refetch'));
      return;
    }
    stream.buffer.push(frame);
  }

  #release(stream: ListenStream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    stream.buffer.length = 0;
  }

  #flush(stream: ListenStream, respectBackpressure: boolean): void {
    let sent = 0;
    while (sent < stream.buffer.length && !(respectBackpressure && this.#isBackedUp())) {
      const frame = stream.buffer[sent++]!;
      stream.request.notify(frame.method, frame.params);
    }
    stream.buffer.splice(0, sent);
  }

  /** The transport can take more: write what the streams buffered while it could not. */
  resume(): void {
    for (const stream of this.#streams.values()) this.#flush(stream, true);
  }

  /** Ends every stream on purpose: buffered events first, then each final result. */
  endAll(): void {
    for (const stream of [...this.#streams.values()]) {
      this.#flush(stream, false);
      this.#release(stream);
      stream.settle.resolve({ _meta: { [META_SUBSCRIPTION_ID]: stream.id } });
    }
  }
}
