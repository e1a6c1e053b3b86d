// Authorization for HTTP as an OAuth 2.1 resource server (MCP authorization spec, RFC 6750, RFC 9728): the bearer
// token of every MCP request is verified by the server author's hook; the resulting AuthInfo reaches handlers as
// `ctx.auth`. Refusals carry a `WWW-Authenticate: Bearer …` challenge naming the protected-resource metadata.

import type { AuthInfo, HttpRequestInfo } from './types.ts';

export type { AuthInfo } from './types.ts';

/** OAuth 2.0 Protected Resource Metadata (RFC 9728 §2), served as is at its well-known path. */
export interface ProtectedResourceMetadata {
  /** The MCP endpoint's canonical URL (e.g. `https://mcp.example.com/mcp`); its path picks the well-known path. */
  resource: string;
  /** Issuer URLs of the authorization servers; the MCP spec requires at least one. */
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  resource_name?: string;
  resource_documentation?: string;
  [field: string]: unknown;
}

/** `HttpOptions.auth`: makes the endpoint an OAuth 2.1 resource server. */
export interface AuthOptions {
  /**
   * Verifies a bearer token (signature, expiry, audience = this resource…): returns who it stands for, or undefined
   * when it is not valid. A throw counts as an invalid token (and is logged). An `expiresAt` in the past is refused.
   */
  verifyToken(token: string, request: HttpRequestInfo): AuthInfo | undefined | Promise<AuthInfo | undefined>;
  resourceMetadata: ProtectedResourceMetadata;
  /** Scopes every MCP request needs (all of them); a token lacking one gets 403 `insufficient_scope`. */
  requiredScopes?: string[];
  /**
   * The metadata document's absolute public URL, named in every challenge and served at its path too (default:
   * derived from `resource`, RFC 9728 §3.1:
   * `https://host/.well-known/oauth-protected-resource/<resource path>`).
   */
  resourceMetadataUrl?: string;
}

/** The well-known path segment of OAuth 2.0 Protected Resource Metadata (RFC 9728). */
export const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The RFC 9728 §3.1 metadata URL of a resource: the well-known segment goes between the host and the path. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** Paths the metadata is served at: the root well-known path and the one suffixed with the resource's path. */
export function metadataPaths(options: AuthOptions, endpointPath: string | undefined): Set<string> {
  const paths = new Set([WELL_KNOWN, new URL(metadataUrlOf(options.resourceMetadata.resource)).pathname]);
  if (endpointPath !== undefined && endpointPath !== '/') paths.add(WELL_KNOWN + endpointPath);
  // An absolute URL (a relative one throws here, when the handler is created).
  if (options.resourceMetadataUrl !== undefined) paths.add(new URL(options.resourceMetadataUrl).pathname);
  return paths;
}

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** A `WWW-Authenticate: Bearer` challenge (RFC 6750 §3) with the RFC 9728 §5.1 `resource_metadata` parameter. */
export function challenge(metadataUrl: string, fields: { error?: string; description?: string; scope?: string[] } = {}): string {
  const params: string[] = [];
  if (fields.error !== undefined) params.push(`error=${quoted(fields.error)}`);
  if (fields.description !== undefined) params.push(`error_description=${quoted(fields.description)}`);
  if (fields.scope !== undefined && fields.scope.length > 0) params.push(`scope=${quoted(fields.scope.join(' '))}`);
  params.push(`resource_metadata=${quoted(metadataUrl)}`);
  return `Bearer ${params.join(', ')}`;
}

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or another scheme. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  const match = value === undefined ? null : /^Bearer\s+(\S.*)$/i.exec(value.trim());
  return match === null ? undefined : match[1];
}
