// The MCP Apps add-on (apps/apps.ts, docs/apps.md) read by the official host side: `@modelcontextprotocol/ext-apps`'s
// AppBridge and helpers over the official v2 Client, with an official App on the other end of the bridge (in Node,
// over an in-memory pair), per transport (Streamable HTTP in-process; stdio on a child running this file with
// --serve-stdio) and per era (versionNegotiation 'legacy', and pinned 2026-07-28). What a host reads: the declaration,
// the tool linkage and visibility, the view and its metadata (checked by the package's own schemas), a tool input and
// result handed to the app, and the app's own calls forwarded to our server; a host that declares nothing never sees
// the app-only tool.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { App, McpUiResourceMetaSchema, McpUiToolMetaSchema } from '@modelcontextprotocol/ext-apps';
import {
  AppBridge,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, getUiCapability, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { appResource, appTool } from '../apps/apps.ts';
import { createServer, type Server } from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import { serveStdio } from '../stdio.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time
const SERVE_STDIO = '--serve-stdio';
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const VIEW = 'ui://thermometer/view';
const HTML = '<!doctype html><html><body><p id="reading"></p></body></html>';
const VIEW_UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true,
};
const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;

/** The app: its view, the model's tool linked to it, and the app-only refresh (one degree warmer each call). */
function thermometer(): Server {
  const server = createServer({ name: 'thermometer', version: '1.0.0' });
  let drift = 0;
  const reading = (city: string) => ({
    content: [{ type: 'text' as const, text: `${city}: ${21 + drift} °C` }],
    structuredContent: { city, celsius: 21 + drift },
  });
  appResource(server, VIEW, { name: 'thermometer', html: HTML, ...VIEW_UI });
  appTool(
    server,
    'read_temperature',
    { description: 'Reads a city', inputSchema: CITY },
    ({ city }: { city: string }) => reading(city),
    {
      resourceUri: VIEW,
    },
  );
  appTool(
    server,
    'refresh_temperature',
    { description: 'Measures again', inputSchema: CITY },
    ({ city }: { city: string }) => {
      drift += 1;
      return reading(city);
    },
    { resourceUri: VIEW, visibility: ['app'] },
  );
  return server;
}

if (process.argv.includes(SERVE_STDIO)) {
  // The stdio child: the same server on this process's own stdin and stdout.
  serveStdio(thermometer());
} else {
  const SELF = fileURLToPath(import.meta.url);
  /** What a host that renders apps declares (SEP-1865, Client<>Server Capability Negotiation). */
  const RENDERS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

  const CASES = (['http', 'stdio'] as const).flatMap((transport) =>
    (['legacy', MODERN] as const).map((mode) => ({ transport, mode })),
  );

  /** A connected v2 client of a fresh server (a child over stdio), and how to close both. */
  async function connect(transport: 'http' | 'stdio', mode: 'legacy' | typeof MODERN, capabilities: object) {
    const client = new Client(
      { name: 'apps-host', version: '1.0.0' },
      { capabilities, versionNegotiation: { mode: mode === MODERN ? { pin: MODERN } : mode } },
    );
    let http: HttpServer | undefined;
    try {
      if (transport === 'http') {
        http = await serveHttp(thermometer(), { port: 0, host: '127.0.0.1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      } else {
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [SELF, SERVE_STDIO], stderr: 'pipe' }),
        );
      }
    } catch (error) {
      await client.close().catch(() => {});
      await http?.close();
      throw error;
    }
    return {
      client,
      close: async () => {
        await client.close();
        await http?.close();
      },
    };
  }

  for (const { transport, mode } of CASES) {
    describe(`ext-apps host side over ${transport}, versionNegotiation ${mode}`, () => {
      let client: Client;
      let close: () => Promise<void>;
      before(async () => {
        ({ client, close } = await connect(transport, mode, RENDERS));
      });
      after(() => close());

      test('the era is the one asked for, and the server declares the extension with the profile MIME type', T, () => {
        assert.equal(client.getNegotiatedProtocolVersion(), mode === MODERN ? MODERN : LEGACY);
        const capabilities = client.getServerCapabilities()!;
        assert.deepEqual(capabilities.extensions?.[EXTENSION_ID], { mimeTypes: [RESOURCE_MIME_TYPE] });
        assert.deepEqual(getUiCapability(capabilities as never)?.mimeTypes, [RESOURCE_MIME_TYPE]);
      });

      test(
        "the tools link to the view; the package's helpers read the model tool and the app-only one",
        T,
        async () => {
          const { tools } = await client.listTools();
          const read = tools.find((tool) => tool.name === 'read_temperature')!;
          const refresh = tools.find((tool) => tool.name === 'refresh_temperature')!;
          assert.equal(getToolUiResourceUri(read), VIEW);
          assert.equal(getToolUiResourceUri(refresh), VIEW);
          assert.equal(isToolVisibilityAppOnly(refresh), true);
          assert.equal(isToolVisibilityAppOnly(read), false);
          assert.equal(isToolVisibilityModelOnly(read), false);
          assert.deepEqual(McpUiToolMetaSchema.parse(refresh._meta?.ui), { resourceUri: VIEW, visibility: ['app'] });
          assert.equal(read._meta?.['ui/resourceUri'], VIEW);
        },
      );

      test(
        "the view reads as the profile MIME type with its metadata, which the package's schema accepts",
        T,
        async () => {
          const { contents } = await client.readResource({ uri: VIEW });
          assert.equal(contents.length, 1);
          const [content] = contents as [{ uri: string; mimeType?: string; text?: string; _meta?: { ui?: unknown } }];
          assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
          assert.equal(content.text, HTML);
          assert.deepEqual(McpUiResourceMetaSchema.parse(content._meta?.ui), VIEW_UI);
          const { resources } = await client.listResources();
          const entry = resources.find((resource) => resource.uri === VIEW)!;
          assert.equal(entry.mimeType, RESOURCE_MIME_TYPE);
          assert.deepEqual(McpUiResourceMetaSchema.parse(entry._meta?.ui), VIEW_UI);
        },
      );

      test(
        "an app gets the tool's input and result through the bridge, and its own calls reach the server",
        T,
        async () => {
          const bridge = new AppBridge(
            client,
            { name: 'apps-host', version: '1.0.0' },
            { serverTools: {}, serverResources: {} },
          );
          const app = new App({ name: 'thermometer-view', version: '1.0.0' }, {}, { autoResize: false });
          const [hostSide, appSide] = InMemoryTransport.createLinkedPair();
          const initialized = new Promise<void>((resolve) => {
            bridge.oninitialized = () => resolve();
          });
          const input = new Promise<unknown>((resolve) => {
            app.ontoolinput = (params) => resolve(params.arguments);
          });
          const result = new Promise<unknown>((resolve) => {
            app.ontoolresult = (params) => resolve(params.structuredContent);
          });
          try {
            await bridge.connect(hostSide);
            await app.connect(appSide);
            await initialized;
            const args = { city: 'Lisbon' };
            await bridge.sendToolInput({ arguments: args });
            assert.deepEqual(await input, args);
            const called = await client.callTool({ name: 'read_temperature', arguments: args });
            assert.deepEqual(called.content, [{ type: 'text', text: 'Lisbon: 21 °C' }]);
            await bridge.sendToolResult(called as never);
            assert.deepEqual(await result, { city: 'Lisbon', celsius: 21 });
            // The app's refresh button: App → AppBridge → Client → our server, and back.
            const refreshed = await app.callServerTool({ name: 'refresh_temperature', arguments: args });
            assert.deepEqual(refreshed.structuredContent, { city: 'Lisbon', celsius: 22 });
            const read = await app.readServerResource({ uri: VIEW });
            assert.equal((read.contents[0] as { text?: string }).text, HTML);
          } finally {
            await app.close();
            await bridge.close();
          }
        },
      );
    });

    test(
      `${transport}, ${mode}: a host that declares nothing gets no app-only tool, and the model tool's text`,
      T,
      async () => {
        const { client, close } = await connect(transport, mode, {});
        try {
          // The server declares the extension all the same: the declaration is the server's, the tool list the caller's.
          assert.deepEqual(client.getServerCapabilities()?.extensions?.[EXTENSION_ID], {
            mimeTypes: [RESOURCE_MIME_TYPE],
          });
          const { tools } = await client.listTools();
          assert.deepEqual(
            tools.map((tool) => tool.name),
            ['read_temperature'],
          );
          await assert.rejects(client.callTool({ name: 'refresh_temperature', arguments: { city: 'Lisbon' } }), {
            code: -32602,
          });
          const called = await client.callTool({ name: 'read_temperature', arguments: { city: 'Lisbon' } });
          assert.deepEqual(called.content, [{ type: 'text', text: 'Lisbon: 21 °C' }]);
        } finally {
          await close();
        }
      },
    );
  }
}
