// The MCP Apps add-on (io.modelcontextprotocol/ui, SEP-1865; apps/apps.ts, docs/apps.md) at the wire, exact frames,
// in both eras on stdio (2026-07-28 also over HTTP): the declaration (server/discover; initialize from 2025-06-18,
// never at 2025-03-26), the view's listing entry and content item with `_meta.ui`, the tool linkage (`_meta.ui` and
// the flat `ui/resourceUri`), the app-only tool shown only to clients declaring the extension with the profile MIME
// type (the author's `visible` ANDed), updates that keep the app fields, the registrations refused, and the
// declaration's lifetime (installed once, withdrawn with the last view).

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  type AppResourceOptions,
  type AppToolOptions,
  appResource,
  appTool,
  supportsApps,
} from '../apps/apps.ts';
import { createServer, type Server, type Viewer } from '../core.ts';
import { serveHttp } from '../http.ts';
import { type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders, raw } from './raw-http.ts';
import { CLIENT_CAPABILITIES, type Id, modern, SERVER_INFO } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time
const INFO = { name: 'apps-test', version: '1.0.0' };
const UI = 'io.modelcontextprotocol/ui';
const PROFILE = 'text/html;profile=mcp-app';
const NO_ARGS = { type: 'object', properties: {} };
const HTML = '<!doctype html><html><body><p id="reading"></p></body></html>';
const VIEW = 'ui://thermometer/view';
/** What a client that renders apps declares (SEP-1865, Client<>Server Capability Negotiation). */
const RENDERS = { extensions: { [UI]: { mimeTypes: [PROFILE] } } };

/** The view's `_meta.ui` as registered by server(). */
const VIEW_UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com', 'https://*.x.org'] },
  permissions: { clipboardWrite: {} },
  domain: 'thermometer.example.com',
  prefersBorder: true,
};
const VIEW_ENTRY = {
  uri: VIEW,
  name: 'thermometer',
  title: 'Thermometer',
  description: 'Shows a reading',
  mimeType: PROFILE,
  _meta: { ui: VIEW_UI },
};
const VIEW_CONTENT = { uri: VIEW, mimeType: PROFILE, text: HTML, _meta: { ui: VIEW_UI } };
const READ_TOOL = {
  name: 'read_temperature',
  description: 'The temperature in a city',
  inputSchema: NO_ARGS,
  _meta: { 'acme/owner': 'weather', ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW },
};
const REFRESH_TOOL = {
  name: 'refresh_temperature',
  description: 'Reads again (the view calls it)',
  inputSchema: NO_ARGS,
  _meta: { ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW },
};
const READING = {
  content: [{ type: 'text' as const, text: 'Lisbon: 21 °C' }],
  structuredContent: { city: 'Lisbon', celsius: 21 },
};

/** A server with the thermometer app: its view, a model tool linked to it, and an app-only refresh. */
function server(): Server {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  appResource(s, VIEW, {
    name: 'thermometer',
    title: 'Thermometer',
    description: 'Shows a reading',
    html: HTML,
    csp: VIEW_UI.csp,
    permissions: VIEW_UI.permissions,
    domain: VIEW_UI.domain,
    prefersBorder: true,
  });
  appTool(
    s,
    'read_temperature',
    { description: 'The temperature in a city', _meta: { 'acme/owner': 'weather' } },
    () => READING,
    { resourceUri: VIEW },
  );
  appTool(s, 'refresh_temperature', { description: 'Reads again (the view calls it)' }, () => READING, {
    resourceUri: VIEW,
    visibility: ['app'],
  });
  return s;
}

/** A 2026-07-28 request's response over one transport, its client declaring `capabilities`. */
type Call = (method: string, params: object, id: Id, capabilities?: object) => Promise<Frame>;

/** 2026-07-28 over stdio (no handshake). */
function stdioModern(t: TestContext, s: Server): Call {
  const client = new WireClient(s);
  t.after(() => client.end());
  return (method, params, id, capabilities = {}) => {
    client.send(modern(method, params, id, { [CLIENT_CAPABILITIES]: capabilities }));
    return client.response(id);
  };
}

/** 2026-07-28 over HTTP (sessionless POSTs). */
async function httpModern(t: TestContext, s: Server): Promise<Call> {
  const http = await serveHttp(s, { port: 0, host: '127.0.0.1' });
  t.after(() => http.close());
  return async (method, params, id, capabilities = {}) => {
    const frame = modern(method, params, id, { [CLIENT_CAPABILITIES]: capabilities });
    const response = await raw(http.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
    assert.equal(response.status, 200, response.text);
    return response.json;
  };
}

const TRANSPORTS = [
  ['stdio', (t: TestContext, s: Server) => Promise.resolve(stdioModern(t, s))],
  ['http', httpModern],
] as const;

/** A 2026-07-28 result frame; `cache` adds the cacheable methods' hints (private: the listings are guarded). */
function modernOk(id: Id, result: object, cache = false): Frame {
  const extra = cache ? { ttlMs: 0, cacheScope: 'private' } : {};
  return {
    jsonrpc: '2.0',
    id,
    result: { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: INFO }, ...extra },
  };
}

/** The -32602 a call of a tool the caller may not see answers: exactly as for a tool never registered. */
function unknownTool(id: Id, name: string): Frame {
  return { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params: unknown tool '${name}'` } };
}

/** A 2025 client over stdio after its handshake at `version`, declaring `capabilities`; its initialize result. */
async function legacy(t: TestContext, s: Server, version: string, capabilities: object = {}) {
  const client = new WireClient(s);
  t.after(() => client.end());
  const initialized = await client.initialize(version, capabilities);
  return { client, initialized };
}

/** The server's 2026-07-28 declaration of the extension, over stdio. */
async function declared(t: TestContext, s: Server): Promise<unknown> {
  const call = stdioModern(t, s);
  return (await call('server/discover', {}, 'd')).result.capabilities.extensions?.[UI];
}

for (const [kind, open] of TRANSPORTS) {
  test(`${kind}: server/discover declares the extension with the profile MIME type`, T, async (t) => {
    const call = await open(t, server());
    const { result } = await call('server/discover', {}, 'd');
    assert.deepEqual(result.capabilities.extensions, { [UI]: { mimeTypes: [PROFILE] } });
    assert.deepEqual(result.capabilities.resources, { subscribe: true, listChanged: true });
  });

  test(
    `${kind}: the view is listed and read as the profile MIME type with _meta.ui on the entry and the content item`,
    T,
    async (t) => {
      const call = await open(t, server());
      assert.deepEqual(await call('resources/list', {}, 1), modernOk(1, { resources: [VIEW_ENTRY] }, true));
      assert.deepEqual(await call('resources/read', { uri: VIEW }, 2), modernOk(2, { contents: [VIEW_CONTENT] }, true));
    },
  );

  test(
    `${kind}: a client declaring the extension with the profile MIME type lists and calls the app-only tool`,
    T,
    async (t) => {
      const call = await open(t, server());
      assert.deepEqual(
        await call('tools/list', {}, 1, RENDERS),
        modernOk(1, { tools: [READ_TOOL, REFRESH_TOOL] }, true),
      );
      assert.deepEqual(
        await call('tools/call', { name: 'refresh_temperature', arguments: {} }, 2, RENDERS),
        modernOk(2, READING),
      );
    },
  );

  test(
    `${kind}: a client without the extension gets no app-only tool (a call is an unknown tool) and the model tool's text`,
    T,
    async (t) => {
      const call = await open(t, server());
      assert.deepEqual(await call('tools/list', {}, 1), modernOk(1, { tools: [READ_TOOL] }, true));
      assert.deepEqual(
        await call('tools/call', { name: 'refresh_temperature', arguments: {} }, 2),
        unknownTool(2, 'refresh_temperature'),
      );
      assert.deepEqual(await call('tools/call', { name: 'read_temperature', arguments: {} }, 3), modernOk(3, READING));
    },
  );
}

test('stdio 2026-07-28: declarations that are not the profile MIME type hide the app-only tool', T, async (t) => {
  const call = stdioModern(t, server());
  const declarations = [
    { [UI]: { mimeTypes: ['text/html'] } }, // another MIME type
    { [UI]: {} }, // mimeTypes is REQUIRED
    { [UI]: { mimeTypes: PROFILE } }, // not a list
    { [UI]: true }, // not an object
    { 'io.modelcontextprotocol/other': { mimeTypes: [PROFILE] } },
  ];
  let id = 0;
  for (const extensions of declarations) {
    assert.deepEqual(await call('tools/list', {}, ++id, { extensions }), modernOk(id, { tools: [READ_TOOL] }, true));
    assert.deepEqual(
      await call('tools/call', { name: 'refresh_temperature', arguments: {} }, ++id, { extensions }),
      unknownTool(id, 'refresh_temperature'),
    );
  }
});

for (const version of ['2025-06-18', '2025-11-25']) {
  test(
    `stdio ${version}: initialize declares the extension; the listings carry _meta.ui; the app-only tool follows the declaration`,
    T,
    async (t) => {
      const s = server();
      const { client, initialized } = await legacy(t, s, version, RENDERS);
      assert.deepEqual(initialized.capabilities.extensions, { [UI]: { mimeTypes: [PROFILE] } });
      assert.deepEqual(await client.request('tools/list', {}, 1), {
        jsonrpc: '2.0',
        id: 1,
        result: { tools: [READ_TOOL, REFRESH_TOOL] },
      });
      assert.deepEqual(await client.request('resources/list', {}, 2), {
        jsonrpc: '2.0',
        id: 2,
        result: { resources: [VIEW_ENTRY] },
      });
      assert.deepEqual(await client.request('resources/read', { uri: VIEW }, 3), {
        jsonrpc: '2.0',
        id: 3,
        result: { contents: [VIEW_CONTENT] },
      });
      assert.deepEqual(await client.request('tools/call', { name: 'refresh_temperature', arguments: {} }, 4), {
        jsonrpc: '2.0',
        id: 4,
        result: READING,
      });
      const plain = await legacy(t, s, version);
      assert.deepEqual(await plain.client.request('tools/list', {}, 1), {
        jsonrpc: '2.0',
        id: 1,
        result: { tools: [READ_TOOL] },
      });
      assert.deepEqual(
        await plain.client.request('tools/call', { name: 'refresh_temperature', arguments: {} }, 2),
        unknownTool(2, 'refresh_temperature'),
      );
    },
  );
}

test(
  'stdio 2025-03-26: no declaration, no _meta, no app-only tool even to a client declaring the extension',
  T,
  async (t) => {
    const { client, initialized } = await legacy(t, server(), '2025-03-26', RENDERS);
    assert.deepEqual(initialized.capabilities, {
      logging: {},
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });
    assert.deepEqual(await client.request('tools/list', {}, 1), {
      jsonrpc: '2.0',
      id: 1,
      result: { tools: [{ name: 'read_temperature', description: 'The temperature in a city', inputSchema: NO_ARGS }] },
    });
    assert.deepEqual(
      await client.request('tools/call', { name: 'refresh_temperature', arguments: {} }, 2),
      unknownTool(2, 'refresh_temperature'),
    );
    // The model tool's result is whole text there (no structuredContent before 2025-06-18).
    assert.deepEqual(await client.request('tools/call', { name: 'read_temperature', arguments: {} }, 3), {
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: 'Lisbon: 21 °C' }] },
    });
  },
);

test('supportsApps: the profile MIME type declared, at 2026-07-28 or from 2025-06-18', () => {
  const viewer = (protocolVersion: string, clientCapabilities: object) =>
    ({ protocolVersion, clientCapabilities }) as Viewer;
  assert.equal(supportsApps(viewer('2026-07-28', RENDERS)), true);
  assert.equal(supportsApps(viewer('2025-06-18', RENDERS)), true);
  assert.equal(supportsApps(viewer('2025-03-26', RENDERS)), false);
  assert.equal(supportsApps(viewer('2026-07-28', {})), false);
  assert.equal(
    supportsApps(viewer('2026-07-28', { extensions: { [UI]: { mimeTypes: ['text/html', PROFILE] } } })),
    true,
  );
  assert.equal(APPS_EXTENSION, UI);
  assert.equal(APP_MIME_TYPE, PROFILE);
});

test("an app-only tool's own visible is ANDed with the declaration, also after update()", T, async (t) => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  appResource(s, VIEW, { name: 'thermometer', html: HTML });
  let open = false;
  const tool = appTool(s, 'refresh_temperature', { visible: () => open }, () => READING, { visibility: ['app'] });
  const call = stdioModern(t, s);
  const entry = { name: 'refresh_temperature', inputSchema: NO_ARGS, _meta: { ui: { visibility: ['app'] } } };
  assert.deepEqual(await call('tools/list', {}, 1, RENDERS), modernOk(1, { tools: [] }, true));
  open = true;
  assert.deepEqual(await call('tools/list', {}, 2, RENDERS), modernOk(2, { tools: [entry] }, true));
  assert.deepEqual(await call('tools/list', {}, 3), modernOk(3, { tools: [] }, true));
  // An update replacing visible (or anything else) keeps the declaration's guard and _meta.ui.
  tool.update({ visible: () => true, description: 'Again' });
  assert.deepEqual(await call('tools/list', {}, 4), modernOk(4, { tools: [] }, true));
  assert.deepEqual(
    await call('tools/list', {}, 5, RENDERS),
    modernOk(5, { tools: [{ ...entry, description: 'Again' }] }, true),
  );
  // A new handler goes through too.
  tool.update({ handler: () => ({ content: [{ type: 'text', text: 'new' }] }) });
  assert.deepEqual(
    await call('tools/call', { name: 'refresh_temperature', arguments: {} }, 6, RENDERS),
    modernOk(6, { content: [{ type: 'text', text: 'new' }] }),
  );
  tool.disable();
  assert.equal(tool.enabled, false);
  assert.deepEqual(await call('tools/list', {}, 7, RENDERS), modernOk(7, { tools: [] }, true));
  tool.enable();
  assert.equal(tool.enabled, true);
  tool.remove();
  assert.equal(tool.enabled, false);
  // Its last tool gone, the server serves no tools at all.
  assert.deepEqual(await call('tools/call', { name: 'refresh_temperature', arguments: {} }, 8, RENDERS), {
    jsonrpc: '2.0',
    id: 8,
    error: { code: -32601, message: 'Method not found', data: 'tools/call' },
  });
});

test("a model tool's update keeps _meta.ui and the author's other _meta keys are the update's", T, async (t) => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  appResource(s, VIEW, { name: 'thermometer', html: HTML });
  const tool = appTool(s, 'read_temperature', { _meta: { a: 1 } }, () => READING, {
    resourceUri: VIEW,
    visibility: ['model', 'app'],
  });
  tool.update({ _meta: { b: 2 } });
  const call = stdioModern(t, s);
  assert.deepEqual(
    await call('tools/list', {}, 1),
    modernOk(
      1,
      {
        tools: [
          {
            name: 'read_temperature',
            inputSchema: NO_ARGS,
            _meta: { b: 2, ui: { resourceUri: VIEW, visibility: ['model', 'app'] }, 'ui/resourceUri': VIEW },
          },
        ],
      },
      true,
    ),
  );
  assert.throws(() => tool.update({ _meta: { ui: {} } }), {
    name: 'TypeError',
    message: "app tool 'read_temperature': _meta.ui is appTool()'s to write (give resourceUri and visibility)",
  });
});

test(
  'a view whose html is a function is made per read from its context; one that gives no string is -32603',
  T,
  async (t) => {
    const s = createServer(INFO, { logger: new MemoryLogger() });
    appResource(s, VIEW, {
      name: 'thermometer',
      html: async (ctx) => `<!doctype html><p>${ctx.protocolVersion} ${supportsApps(ctx)}</p>`,
    });
    appResource(s, 'ui://broken/view', { name: 'broken', html: () => 42 as unknown as string });
    const call = stdioModern(t, s);
    const read = await call('resources/read', { uri: VIEW }, 1, RENDERS);
    assert.deepEqual(
      read,
      modernOk(
        1,
        {
          contents: [
            { uri: VIEW, mimeType: PROFILE, text: '<!doctype html><p>2026-07-28 true</p>', _meta: { ui: {} } },
          ],
        },
        true,
      ),
    );
    assert.deepEqual(await call('resources/read', { uri: 'ui://broken/view' }, 2), {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: 'Internal error' },
    });
  },
);

test("a view's update() is checked like its registration and keeps the profile MIME type", T, async (t) => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  const view = appResource(s, VIEW, { name: 'thermometer', html: HTML, prefersBorder: true });
  assert.throws(() => view.update({ prefersBorder: 'yes' as unknown as boolean }), {
    name: 'TypeError',
    message: `app resource '${VIEW}': prefersBorder must be a boolean`,
  });
  const call = stdioModern(t, s);
  const entry = { uri: VIEW, name: 'thermometer', mimeType: PROFILE, _meta: { ui: { prefersBorder: true } } };
  assert.deepEqual(await call('resources/list', {}, 1), modernOk(1, { resources: [entry] }, true));
  view.update({ html: '<!doctype html><p>new</p>', prefersBorder: false, title: 'New' });
  const meta = { ui: { prefersBorder: false } };
  assert.deepEqual(
    await call('resources/list', {}, 2),
    modernOk(2, { resources: [{ ...entry, title: 'New', _meta: meta }] }, true),
  );
  assert.deepEqual(
    await call('resources/read', { uri: VIEW }, 3),
    modernOk(3, { contents: [{ uri: VIEW, mimeType: PROFILE, text: '<!doctype html><p>new</p>', _meta: meta }] }, true),
  );
  view.disable();
  assert.equal(view.enabled, false);
  assert.deepEqual(await call('resources/list', {}, 4), modernOk(4, { resources: [] }, true));
  view.enable();
  assert.equal(view.enabled, true);
});

test(
  'the declaration lives while a view is served: installed once, withdrawn with the last view, back with a new one',
  T,
  async (t) => {
    const s = createServer(INFO, { logger: new MemoryLogger() });
    assert.equal(await declared(t, s), undefined);
    const first = appResource(s, VIEW, { name: 'one', html: HTML });
    const second = appResource(s, 'ui://other/view', { name: 'two', html: HTML });
    assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
    first.remove();
    assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
    first.remove(); // a no-op: the other view keeps the declaration
    assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
    second.remove();
    assert.equal(await declared(t, s), undefined);
    assert.equal(second.enabled, false);
    // A removed view is no view a tool may name.
    assert.throws(() => appTool(s, 't', {}, () => READING, { resourceUri: VIEW }), {
      name: 'TypeError',
      message: `app tool 't': resourceUri "${VIEW}" is no view appResource() serves here`,
    });
    const again = appResource(s, VIEW, { name: 'one', html: HTML });
    assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
    first.remove(); // the old registration's removal leaves the new view alone
    assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
    assert.equal(again.enabled, true);
  },
);

test('a view the core refuses (its URI taken) leaves the extension as it was', T, async (t) => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  s.resource(VIEW, { name: 'plain' }, (uri) => ({ contents: [{ uri, text: 'plain' }] }));
  assert.throws(() => appResource(s, VIEW, { name: 'thermometer', html: HTML }), {
    message: `resource '${VIEW}' is already registered`,
  });
  assert.equal(await declared(t, s), undefined);
  appResource(s, 'ui://other/view', { name: 'other', html: HTML });
  assert.throws(() => appResource(s, 'ui://other/view', { name: 'again', html: HTML }), {
    message: `resource 'ui://other/view' is already registered`,
  });
  assert.deepEqual(await declared(t, s), { mimeTypes: [PROFILE] });
});

test('appResource refuses options the extension does not allow, naming the resource and the field', T, async (t) => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  const where = `app resource '${VIEW}'`;
  type Case = [string, Partial<AppResourceOptions>, string];
  /** A CSP list holding `value` where origins go: refused, naming the list. */
  const notOrigins = (list: string, value: unknown): Case => [
    VIEW,
    { csp: { [list]: value } },
    `${where}: csp.${list} must be an array of origins (no whitespace, ';', ',' or quote)`,
  ];
  const cases: Case[] = [
    ['https://example.com/view', {}, "app resource 'https://example.com/view': the URI must start with ui://"],
    [VIEW, { html: undefined }, `${where}: html must be a string or a function returning one`],
    [VIEW, { html: 42 as unknown as string }, `${where}: html must be a string or a function returning one`],
    [VIEW, { csp: [] as unknown as object }, `${where}: csp must be an object`],
    [
      VIEW,
      { csp: { scriptDomains: [] } as object },
      `${where}: csp.scriptDomains is not one of connectDomains, resourceDomains, frameDomains, baseUriDomains`,
    ],
    notOrigins('connectDomains', ['https://a.example; script-src *']),
    notOrigins('connectDomains', ['https://a.example;']),
    notOrigins('resourceDomains', ['https://a.example\thttps://b.example']),
    notOrigins('resourceDomains', ["'unsafe-eval'"]),
    notOrigins('frameDomains', ['https://a.example,https://b.example']),
    notOrigins('frameDomains', ['']),
    notOrigins('baseUriDomains', 'https://a.example'),
    notOrigins('baseUriDomains', [1]),
    [
      VIEW,
      { csp: { connectDomains: ['https://a.example', 'https://a.example'] } },
      `${where}: csp.connectDomains has an entry twice`,
    ],
    [VIEW, { permissions: 'camera' as unknown as object }, `${where}: permissions must be an object`],
    [
      VIEW,
      { permissions: { usb: {} } as object },
      `${where}: permissions.usb is not one of camera, microphone, geolocation, clipboardWrite`,
    ],
    [VIEW, { permissions: { camera: true } as unknown as object }, `${where}: permissions.camera must be {}`],
    [VIEW, { permissions: { camera: { always: true } } as object }, `${where}: permissions.camera must be {}`],
    [VIEW, { domain: 42 as unknown as string }, `${where}: domain must be a string`],
    [VIEW, { prefersBorder: 'yes' as unknown as boolean }, `${where}: prefersBorder must be a boolean`],
  ];
  for (const [uri, options, message] of cases)
    assert.throws(
      () => appResource(s, uri, { name: 'view', html: HTML, ...options }),
      { name: 'TypeError', message },
      message,
    );
  // Nothing of them is served or declared.
  assert.equal(await declared(t, s), undefined);
});

test('appTool refuses a missing view, a bad visibility, and neither option, naming the tool', () => {
  const s = createServer(INFO, { logger: new MemoryLogger() });
  const where = "app tool 'refresh'";
  const add = (options: AppToolOptions, definition = {}) => appTool(s, 'refresh', definition, () => READING, options);
  // No view at all on this server yet.
  assert.throws(() => add({ resourceUri: VIEW }), {
    name: 'TypeError',
    message: `${where}: resourceUri "${VIEW}" is no view appResource() serves here`,
  });
  appResource(s, VIEW, { name: 'thermometer', html: HTML });
  s.resource('ui://plain/view', { name: 'plain' }, (uri) => ({ contents: [{ uri, text: HTML }] }));
  const cases: [AppToolOptions, string][] = [
    [{}, `${where}: give a resourceUri, a visibility, or both`],
    [
      { resourceUri: 'ui://plain/view' },
      `${where}: resourceUri "ui://plain/view" is no view appResource() serves here`,
    ],
    [{ visibility: [] }, `${where}: visibility must not be empty`],
    [{ visibility: ['app', 'app'] }, `${where}: visibility has an entry twice`],
    [{ visibility: ['user' as 'app'] }, `${where}: visibility must be an array of 'model' and 'app'`],
    [{ visibility: 'app' as unknown as ['app'] }, `${where}: visibility must be an array of 'model' and 'app'`],
  ];
  for (const [options, message] of cases) assert.throws(() => add(options), { name: 'TypeError', message }, message);
  assert.throws(() => add({ resourceUri: VIEW }, { _meta: { 'ui/resourceUri': VIEW } }), {
    name: 'TypeError',
    message: `${where}: _meta.ui is appTool()'s to write (give resourceUri and visibility)`,
  });
});
