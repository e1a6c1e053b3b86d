// The Worker that test/jwt-runtimes.test.ts bundles with esbuild and serves with Miniflare (no `nodejs_compat`):
// createFetchHandler with `auth.verifyToken` from mcp-core/jwt, whose JWK Set is the test's loopback endpoint (the
// JWKS_URI binding). One tool answers the verified subject. Web APIs only.

import { createServer } from '../core.ts';
import { createFetchHandler, type FetchHandler } from '../fetch.ts';
import { jwtVerifier } from '../jwt/jwt.ts';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';

let handle: FetchHandler | undefined;

/** The handler, made at the first request: the JWKS URL comes with the Worker's environment. */
function handlerFor(jwksUri: string): FetchHandler {
  const server = createServer({ name: 'jwt-worker', version: '1.0.0' });
  server.tool('whoami', {}, (_args, ctx) => ({ content: [{ type: 'text', text: ctx.auth?.subject ?? '' }] }));
  const verifier = jwtVerifier({ issuer: ISSUER, audience: RESOURCE, jwksUri });
  return createFetchHandler(server, {
    allowedHosts: ['127.0.0.1', 'localhost'],
    auth: {
      verifyToken: verifier.verifyToken,
      resourceMetadata: { resource: RESOURCE, authorization_servers: [ISSUER] },
    },
  });
}

/** The Worker's module entry: every request goes to the MCP handler. */
export default {
  fetch(request: Request, env: { JWKS_URI: string }): Promise<Response> {
    handle ??= handlerFor(env.JWKS_URI);
    return handle(request);
  },
};
