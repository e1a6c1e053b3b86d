// What every era's handler context shares: what the inbound request itself carries — its id, abort signal, HTTP
// exchange, verified identity and trace keys. The era contexts (legacy-context.ts, modern.ts) add the version,
// client capabilities, logging and client requests. Holds no state beyond the request it reads.

import type { InboundRequest } from './dispatcher.ts';
import type { AuthInfo, HttpRequestInfo, RequestId, TraceContext } from './types.ts';

export class RequestContext {
  protected readonly request: InboundRequest;

  constructor(request: InboundRequest) {
    this.request = request;
  }

  get requestId(): RequestId {
    return this.request.id;
  }

  /** Aborted when the client cancels the request, the connection ends, or the request is over. */
  get signal(): AbortSignal {
    return this.request.signal;
  }

  get http(): HttpRequestInfo | undefined {
    return this.request.http;
  }

  get auth(): AuthInfo | undefined {
    return this.request.auth;
  }

  get trace(): TraceContext | undefined {
    return this.request.trace;
  }
}

/** Who a verified identity is, as one string: the same issuer, subject and client make the same principal. */
export function principalOf(auth: AuthInfo): string {
  return JSON.stringify([auth.issuer ?? null, auth.subject, auth.clientId ?? null]);
}
