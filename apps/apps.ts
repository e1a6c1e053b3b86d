// The MCP Apps add-on (`mcp-core/apps`, extension io.modelcontextprotocol/ui, SEP-1865; docs/apps.md): appResource()
// serves a `ui://` HTML view with its CSP and permission metadata, appTool() links a tool to it (`_meta.ui`) and
// hides an app-only tool from clients that cannot render apps, and the extension is declared while a view is served.
// Owns no protocol method and no wire shape of the core; never renders, sandboxes or enforces anything (hosts do).

import type {
  Context,
  Extension,
  Icon,
  Meta,
  Registration,
  ResourceDefinition,
  ResourceUpdate,
  Server,
  ToolArgsFor,
  ToolDefinition,
  ToolHandler,
  ToolStructuredFor,
  ToolUpdate,
  Viewer,
} from '../core.ts';
import { since } from '../features.ts';
import { isPlainObject } from '../jsonrpc.ts';
import { declaresExtension } from '../modern.ts';

/** The extension's identifier (SEP-1865, Extension Identifier). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The media type of a view's HTML (SEP-1865, UI Resource Format). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The first 2025 version whose wire carries `_meta` on tools and resources and `structuredContent` on results. */
const APPS_SINCE = '2025-06-18';
/** The URI scheme of views (SEP-1865, UI Resource Format: MUST be `ui://`). */
const UI_SCHEME = 'ui://';

/** The origins a view may reach, by CSP use (SEP-1865, UI Resource Format, `csp`); the host builds the policy. */
export interface AppCsp {
  /** Origins for fetch, XHR and WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts and media. */
  resourceDomains?: string[];
  /** Origins the view may embed in frames (`frame-src`). */
  frameDomains?: string[];
  /** Origins allowed as the document's base URI (`base-uri`). */
  baseUriDomains?: string[];
}

/** The browser permissions a view asks for, each `{}` (SEP-1865, UI Resource Format, `permissions`). */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A view as given to `appResource()`: how it is listed, its HTML, and what the host should know of it. */
export interface AppResourceOptions {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  /** The HTML5 document, or a function making it per read (given the read's context). */
  html: string | ((ctx: Context) => string | Promise<string>);
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** The dedicated origin the view asks for; its format is the host's. */
  domain?: string;
  /** Whether the view would like the host to draw a border around it. */
  prefersBorder?: boolean;
}

/** Who may call an app tool (SEP-1865, Resource Discovery, `visibility`): the model, the view, or both. */
export type AppVisibility = 'model' | 'app';

/** How `appTool()` links a tool to the app: its view, and who may call it (default both). */
export interface AppToolOptions {
  /** The `ui://` URI of a view `appResource()` registered on the same server. */
  resourceUri?: string;
  /** A non-empty list of `'model'` and `'app'`; without `'model'` the tool is app-only. */
  visibility?: AppVisibility[];
}

const CSP_KEYS: readonly string[] = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];
const PERMISSIONS: readonly string[] = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];
const VISIBILITIES: readonly string[] = ['model', 'app'];
/**
 * An origin as a CSP host-source: no whitespace, `;`, `,` or quote, which would end the source list, the directive or
 * the policy, or make a keyword such as `'unsafe-eval'`, in the policy the host builds from it (SEP-1865, Security
 * Implications, Content Security Policy Enforcement).
 */
const ORIGIN = /^[^\s;,']+$/;

/**
 * The extension, declared as `{mimeTypes: [APP_MIME_TYPE]}` (SEP-1865, Client<>Server Capability Negotiation): in
 * `server/discover`, and in the 2025 `initialize` result from APPS_SINCE (below it the wire carries no `_meta`, so the
 * server serves plain tools there). It serves no method.
 */
class AppsExtension implements Extension {
  readonly id = APPS_EXTENSION;
  readonly settings: Record<string, unknown> = { mimeTypes: [APP_MIME_TYPE] };

  /** Declared from APPS_SINCE, as `capabilities.extensions[id]`. */
  legacyCapabilities(version: string): Record<string, unknown> | undefined {
    return since(version, APPS_SINCE) ? { extensions: { [this.id]: this.settings } } : undefined;
  }
}

/** Each server's apps: its extension (installed while a view is served) and the URIs of its views. */
interface Apps {
  readonly extension: AppsExtension;
  readonly views: Set<string>;
}

const servers = new WeakMap<Server, Apps>();

/** The server's apps, made on first use. */
function appsOf(server: Server): Apps {
  let apps = servers.get(server);
  if (apps === undefined) servers.set(server, (apps = { extension: new AppsExtension(), views: new Set() }));
  return apps;
}

/**
 * Whether a request's client renders apps (a Visibility; a handler may ask it of its `ctx` too): it declares the
 * extension with `mimeTypes` holding APP_MIME_TYPE (SEP-1865, Client<>Server Capability Negotiation: REQUIRED), at
 * 2026-07-28 or a 2025 version from 2025-06-18, whose wire carries `_meta.ui` and `structuredContent`.
 */
export function supportsApps(viewer: Pick<Viewer, 'protocolVersion' | 'clientCapabilities'>): boolean {
  const capabilities = viewer.clientCapabilities;
  if (!since(viewer.protocolVersion, APPS_SINCE) || !declaresExtension(capabilities, APPS_EXTENSION)) return false;
  const { mimeTypes } = capabilities.extensions![APPS_EXTENSION] as Record<string, unknown>;
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** A list of distinct strings, each one of `allowed`; else a TypeError naming `what`. */
function checkList(what: string, value: unknown, allowed: (item: string) => boolean, expected: string): void {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !allowed(item)))
    throw new TypeError(`${what} must be an array of ${expected}`);
  if (new Set(value).size !== value.length) throw new TypeError(`${what} has an entry twice`);
}

/** `_meta.ui` of a view (SEP-1865, UI Resource Format), checked: a TypeError names the resource and the field. */
function viewMeta(uri: string, options: AppResourceOptions): Record<string, unknown> {
  const where = `app resource '${uri}'`;
  if (!uri.startsWith(UI_SCHEME)) throw new TypeError(`${where}: the URI must start with ${UI_SCHEME}`);
  const { html, csp, permissions, domain, prefersBorder } = options;
  if (typeof html !== 'string' && typeof html !== 'function')
    throw new TypeError(`${where}: html must be a string or a function returning one`);
  const ui: Record<string, unknown> = {};
  if (csp !== undefined) {
    if (!isPlainObject(csp)) throw new TypeError(`${where}: csp must be an object`);
    for (const [key, origins] of Object.entries(csp)) {
      if (!CSP_KEYS.includes(key)) throw new TypeError(`${where}: csp.${key} is not one of ${CSP_KEYS.join(', ')}`);
      checkList(
        `${where}: csp.${key}`,
        origins,
        (origin) => ORIGIN.test(origin),
        "origins (no whitespace, ';', ',' or quote)",
      );
    }
    ui.csp = structuredClone(csp);
  }
  if (permissions !== undefined) {
    if (!isPlainObject(permissions)) throw new TypeError(`${where}: permissions must be an object`);
    for (const [key, value] of Object.entries(permissions)) {
      if (!PERMISSIONS.includes(key))
        throw new TypeError(`${where}: permissions.${key} is not one of ${PERMISSIONS.join(', ')}`);
      if (!isPlainObject(value) || Object.keys(value).length !== 0)
        throw new TypeError(`${where}: permissions.${key} must be {}`);
    }
    ui.permissions = structuredClone(permissions);
  }
  if (domain !== undefined) {
    if (typeof domain !== 'string') throw new TypeError(`${where}: domain must be a string`);
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') throw new TypeError(`${where}: prefersBorder must be a boolean`);
    ui.prefersBorder = prefersBorder;
  }
  return ui;
}

/** The core resource registration of a view: listed with APP_MIME_TYPE and `_meta.ui`, read as its HTML with both. */
function viewRegistration(uri: string, options: AppResourceOptions) {
  const ui = viewMeta(uri, options);
  const { name, title, description, icons, html } = options;
  const definition: ResourceDefinition = { name, title, description, icons, mimeType: APP_MIME_TYPE, _meta: { ui } };
  const content = (text: unknown) => {
    // A function's answer is the author's: anything but a string is an unexpected handler error (-32603).
    if (typeof text !== 'string') throw new TypeError(`app resource '${uri}': html gave no string`);
    // SEP-1865, Metadata Location: hosts check the content item first, then the listing; both carry it.
    return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, _meta: { ui: structuredClone(ui) } }] };
  };
  const handler =
    typeof html === 'string' ? () => content(html) : async (_uri: string, ctx: Context) => content(await html(ctx));
  return { definition, handler };
}

/**
 * Serves an app's view (SEP-1865, UI Resource Format) at `uri` (`ui://…`): listed and read as APP_MIME_TYPE with its
 * metadata (`csp`, `permissions`, `domain`, `prefersBorder`) in `_meta.ui` of both the listing entry and the content
 * item, in both eras, to every client. The server declares the extension while it serves a view. Throws a TypeError
 * naming the resource and the field for options the extension refuses. Its registration's `update()` takes options
 * (checked again); `remove()` of the last view withdraws the declaration.
 */
export function appResource(
  server: Server,
  uri: string,
  options: AppResourceOptions,
): Registration<Partial<AppResourceOptions>> {
  let current = options;
  const { definition, handler } = viewRegistration(uri, current);
  const apps = appsOf(server);
  // Declared only while a view is served: installed with the first, uninstalled with the last.
  if (apps.views.size === 0) server.use(apps.extension);
  let registration: Registration<ResourceUpdate>;
  try {
    registration = server.resource(uri, definition, handler);
  } catch (error) {
    if (apps.views.size === 0) server.unuse(apps.extension);
    throw error;
  }
  apps.views.add(uri);
  let removed = false;
  return {
    remove: () => {
      if (removed) return;
      removed = true;
      apps.views.delete(uri);
      registration.remove();
      if (apps.views.size === 0) server.unuse(apps.extension);
    },
    update: (changes) => {
      const next = { ...current, ...changes };
      const { definition, handler } = viewRegistration(uri, next);
      registration.update({ ...definition, handler });
      current = next;
    },
    enable: () => registration.enable(),
    disable: () => registration.disable(),
    get enabled() {
      return registration.enabled;
    },
  };
}

/** The checked app options of a tool: a TypeError names the tool and the field. */
function checkToolOptions(server: Server, name: string, options: AppToolOptions): void {
  const where = `app tool '${name}'`;
  const { resourceUri, visibility } = options;
  if (resourceUri === undefined && visibility === undefined)
    throw new TypeError(`${where}: give a resourceUri, a visibility, or both`);
  // SEP-1865, Resource Discovery: the resource a tool names MUST exist.
  if (resourceUri !== undefined && !servers.get(server)?.views.has(resourceUri))
    throw new TypeError(`${where}: resourceUri ${JSON.stringify(resourceUri)} is no view appResource() serves here`);
  if (visibility !== undefined) {
    checkList(`${where}: visibility`, visibility, (item) => VISIBILITIES.includes(item), "'model' and 'app'");
    if (visibility.length === 0) throw new TypeError(`${where}: visibility must not be empty`);
  }
}

/**
 * The core definition of an app tool: `_meta.ui` (and the deprecated flat `ui/resourceUri`, which SEP-1865, Resource
 * Discovery, tells hosts to check too) over the author's `_meta`, and for an app-only tool `visible` ANDed with
 * supportsApps: a client that cannot render apps would hand it to its model, so it never sees it.
 */
function toolDefinition<D extends ToolDefinition>(name: string, definition: D, options: AppToolOptions): D {
  const { resourceUri, visibility } = options;
  if (
    isPlainObject(definition._meta) &&
    (Object.hasOwn(definition._meta, 'ui') || Object.hasOwn(definition._meta, 'ui/resourceUri'))
  )
    throw new TypeError(`app tool '${name}': _meta.ui is appTool()'s to write (give resourceUri and visibility)`);
  const ui: Record<string, unknown> = {};
  const meta: Meta = { ...definition._meta, ui };
  if (resourceUri !== undefined) {
    ui.resourceUri = resourceUri;
    meta['ui/resourceUri'] = resourceUri;
  }
  if (visibility !== undefined) ui.visibility = [...visibility];
  if (visibility === undefined || visibility.includes('model')) return { ...definition, _meta: meta };
  const { visible } = definition;
  return {
    ...definition,
    _meta: meta,
    visible: visible === undefined ? supportsApps : (viewer: Viewer) => supportsApps(viewer) && visible(viewer),
  };
}

/**
 * Registers a tool linked to an app (SEP-1865, Resource Discovery): `server.tool()` with `_meta.ui` (`resourceUri`,
 * `visibility`) and `_meta['ui/resourceUri']`. An app-only tool (a visibility without `'model'`) is shown only to
 * clients supportsApps() accepts, which filter it from their model themselves (SEP-1865, Visibility); others find it
 * missing. Its result should carry a readable `content` text for clients without apps (Graceful Degradation). Throws
 * a TypeError naming the tool for a resourceUri that is no view of this server or a visibility the extension refuses.
 * Its registration's `update()` keeps the app fields.
 */
export function appTool<D extends ToolDefinition, Args = ToolArgsFor<D>>(
  server: Server,
  name: string,
  definition: D,
  handler: ToolHandler<Args, ToolStructuredFor<D>>,
  options: AppToolOptions,
): Registration<ToolUpdate> {
  checkToolOptions(server, name, options);
  let current: ToolDefinition = definition;
  const registration = server.tool(name, toolDefinition(name, definition, options), handler);
  return {
    remove: () => registration.remove(),
    update: ({ handler: next, ...fields }) => {
      const merged = { ...current, ...fields };
      registration.update({ ...toolDefinition(name, merged, options), handler: next });
      current = merged;
    },
    enable: () => registration.enable(),
    disable: () => registration.disable(),
    get enabled() {
      return registration.enabled;
    },
  };
}
