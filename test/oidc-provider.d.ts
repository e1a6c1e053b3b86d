// The part of oidc-provider (a devDependency: the real authorization server of test/oauth-real.test.ts) that the
// tests use; the package ships no types of its own.

declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** An authorization request's pending interaction (login or consent). */
  interface Interaction {
    uid: string;
    prompt: { name: string; details: { missingResourceScopes?: Record<string, string[]> } };
    params: Record<string, unknown> & { client_id: string };
    session?: { accountId: string };
    grantId?: string;
  }

  /** What an account consented to a client: scopes for each resource indicator. */
  interface Grant {
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    /** The node:http request handler. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export const errors: { InvalidTarget: new (description?: string) => Error };
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  /** The provider's in-memory storage, a store of its own (what `adapter` takes: a factory by model name). */
  export function createMemoryAdapter(clockTolerance?: number): (model: string) => unknown;
}
