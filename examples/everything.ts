// The demo and conformance fixture server: the official conformance surface of both eras (tools `test_*`,
// resources `test://…`, prompts `test_*`, the tasks extension and its fixture tools) plus diagnostics (`test_sleep`,
// `test_throw`, `test_publish`), and the HTTP options its conformance runs need (EVERYTHING_HTTP_OPTIONS).
// `npm -s start -- --stdio` serves it over stdio; it writes nothing but protocol frames to stdout.

import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { type Context, createServer, type Server, type ServerOptions } from '../core.ts';
import { type HttpOptions, serveHttp } from '../http.ts';
import { serveStdio } from '../stdio.ts';
import { createTasksExtension, type TaskStore } from '../tasks/tasks-extension.ts';
import { registerModernFixtures } from './modern-fixtures.ts';
import { registerSkillFixtures } from './skill-fixtures.ts';
import { registerTaskFixtures } from './task-fixtures.ts';

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
export const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const NO_ARGUMENTS = { type: 'object', properties: {} };

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** Sends a server→client request; a client without the capability gets an error result instead. */
async function ask(
  call: () => Promise<Record<string, unknown>>,
  describe: (result: Record<string, unknown>) => string,
) {
  try {
    return text(describe(await call()));
  } catch (error) {
    return { ...text(`Request failed: ${error instanceof Error ? error.message : String(error)}`), isError: true };
  }
}

function elicitationSummary(prefix: string) {
  return (result: Record<string, unknown>) =>
    `${prefix}: action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
}

function registerTools(server: Server): void {
  server.tool('test_simple_text', { description: 'Returns a simple text response', inputSchema: NO_ARGUMENTS }, () =>
    text('This is a simple text response for testing.'),
  );
  server.tool('test_image_content', { description: 'Returns an image', inputSchema: NO_ARGUMENTS }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.tool('test_audio_content', { description: 'Returns audio', inputSchema: NO_ARGUMENTS }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.tool(
    'test_embedded_resource',
    { description: 'Returns an embedded resource', inputSchema: NO_ARGUMENTS },
    () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );
  server.tool(
    'test_multiple_content_types',
    { description: 'Returns mixed content', inputSchema: NO_ARGUMENTS },
    () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  server.tool(
    'test_error_handling',
    { description: 'Always returns an error result', inputSchema: NO_ARGUMENTS },
    () => ({ ...text('This tool intentionally returns an error for testing'), isError: true }),
  );
  server.tool(
    'test_tool_with_progress',
    { description: 'Reports progress', inputSchema: NO_ARGUMENTS },
    async (_args, ctx: Context) => {
      for (const step of [0, 50, 100]) {
        if (step > 0) await delay(50, undefined, { signal: ctx.signal });
        ctx.progress(step, 100, `Completed step ${step} of 100`);
      }
      return text('Progress completed');
    },
  );
  server.tool(
    'test_tool_with_logging',
    { description: 'Sends log messages', inputSchema: NO_ARGUMENTS },
    async (_args, ctx: Context) => {
      const messages = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
      for (const [index, message] of messages.entries()) {
        if (index > 0) await delay(50, undefined, { signal: ctx.signal });
        ctx.log('info', message);
      }
      return text('Tool with logging executed successfully');
    },
  );
  server.tool(
    'json_schema_2020_12_tool',
    {
      description: 'Lists a JSON Schema 2020-12 input schema unchanged',
      inputSchema: JSON_SCHEMA_2020_12,
    },
    (args) => text(`Received: ${JSON.stringify(args)}`),
  );
  // The next four send real server→client requests, which exist in the 2025 era only.
  server.tool(
    'test_sampling',
    {
      era: 'legacy',
      description: 'Asks the client to sample an LLM',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    },
    (args: { prompt: string }, ctx: Context) =>
      ask(
        () =>
          ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }], maxTokens: 100 }),
        (result) => `LLM response: ${String((result.content as { text?: unknown } | undefined)?.text ?? '')}`,
      ),
  );
  server.tool(
    'test_elicitation',
    {
      era: 'legacy',
      description: 'Asks the user for input',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
    (args: { message: string }, ctx: Context) =>
      ask(
        () =>
          ctx.elicit({
            message: args.message,
            requestedSchema: {
              type: 'object',
              properties: {
                username: { type: 'string', description: "User's response" },
                email: { type: 'string', description: "User's email address" },
              },
              required: ['username', 'email'],
            },
          }),
        elicitationSummary('User response'),
      ),
  );
  server.tool(
    'test_elicitation_sep1034_defaults',
    { era: 'legacy', description: 'Elicits with defaults', inputSchema: NO_ARGUMENTS },
    (_args, ctx: Context) =>
      ask(
        () =>
          ctx.elicit({
            message: 'Please review your information',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', default: 'John Doe' },
                age: { type: 'integer', default: 30 },
                score: { type: 'number', default: 95.5 },
                status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
                verified: { type: 'boolean', default: true },
              },
            },
          }),
        elicitationSummary('Elicitation completed'),
      ),
  );
  server.tool(
    'test_elicitation_sep1330_enums',
    { era: 'legacy', description: 'Elicits with enum forms', inputSchema: NO_ARGUMENTS },
    (_args, ctx: Context) =>
      ask(
        () =>
          ctx.elicit({
            message: 'Please choose options',
            requestedSchema: {
              type: 'object',
              properties: {
                untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                titledSingle: {
                  type: 'string',
                  oneOf: [
                    { const: 'value1', title: 'First Option' },
                    { const: 'value2', title: 'Second Option' },
                    { const: 'value3', title: 'Third Option' },
                  ],
                },
                legacyEnum: {
                  type: 'string',
                  enum: ['opt1', 'opt2', 'opt3'],
                  enumNames: ['Option One', 'Option Two', 'Option Three'],
                },
                untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
                titledMulti: {
                  type: 'array',
                  items: {
                    anyOf: [
                      { const: 'value1', title: 'First Choice' },
                      { const: 'value2', title: 'Second Choice' },
                      { const: 'value3', title: 'Third Choice' },
                    ],
                  },
                },
              },
            },
          }),
        elicitationSummary('Elicitation completed'),
      ),
  );
  server.tool(
    'test_reconnection',
    {
      era: 'legacy', // a 2025 session's POST stream; 2026-07-28 has no resumption
      description:
        'Answers once its HTTP stream was closed (the demo ends its POST stream after the priming event, see EVERYTHING_HTTP_OPTIONS): the client gets the answer by resuming with GET + Last-Event-ID',
      inputSchema: NO_ARGUMENTS,
    },
    () => text('Reconnection test completed'),
  );
}

/**
 * The demo's HTTP options: SSE polling (2025-11-25 transports, Streamable HTTP, resumability) for
 * `test_reconnection`, whose POST stream ends after its priming event (the conformance scenario server-sse-polling).
 */
export const EVERYTHING_HTTP_OPTIONS: HttpOptions = {
  endStreamAfterPriming: (request) => request.method === 'tools/call' && request.params?.name === 'test_reconnection',
};

function registerDiagnostics(server: Server): void {
  server.tool(
    'test_sleep',
    {
      description: 'Waits for ms milliseconds unless cancelled; reports progress every 100 ms when asked to',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    },
    async (args: { ms: number }, ctx: Context) => {
      const started = Date.now();
      let elapsed = 0;
      while (elapsed < args.ms) {
        await delay(Math.min(100, args.ms - elapsed), undefined, { signal: ctx.signal });
        elapsed = Date.now() - started;
        ctx.progress(Math.min(elapsed, args.ms), args.ms);
      }
      return text(`Slept ${args.ms} ms`);
    },
  );
  server.tool(
    'test_throw',
    {
      description: 'Throws a plain Error with the given message',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    },
    (args: { message?: string }) => {
      throw new Error(args.message ?? 'test_throw');
    },
  );
  server.tool(
    'test_publish',
    {
      description: 'Publishes change events',
      inputSchema: {
        type: 'object',
        properties: {
          event: { type: 'string', enum: ['tools', 'prompts', 'resources', 'resource'] },
          uri: { type: 'string' },
          count: { type: 'integer', minimum: 1, maximum: 10000 },
        },
        required: ['event'],
      },
    },
    (args: { event: 'tools' | 'prompts' | 'resources' | 'resource'; uri?: string; count?: number }) => {
      const count = args.count ?? 1;
      for (let i = 0; i < count; i++) {
        if (args.event === 'resource') server.notifyResourceUpdated(args.uri ?? 'test://watched-resource');
        else server.notifyListChanged(args.event);
      }
      return text(`Published ${count} ${args.event} event(s)`);
    },
  );
}

function registerResources(server: Server): void {
  server.resource(
    'test://static-text',
    { name: 'Static Text Resource', description: 'A static text resource', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.resource(
    'test://static-binary',
    { name: 'Static Binary Resource', description: 'A static PNG image', mimeType: 'image/png' },
    (uri) => ({ contents: [{ uri, mimeType: 'image/png', blob: PNG }] }),
  );
  server.resource(
    'test://watched-resource',
    { name: 'Watched Resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
    (uri) => ({ contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] }),
  );
  server.resourceTemplate(
    'test://template/{id}/data',
    {
      name: 'Template Resource',
      description: 'Data for an id',
      mimeType: 'application/json',
      complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
    },
    (uri, variables) => ({
      contents: [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${String(variables.id)}` }),
        },
      ],
    }),
  );
}

function registerPrompts(server: Server): void {
  server.prompt('test_simple_prompt', { description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.prompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: {
        arg1: (value) => ['paris', 'park', 'party', 'hello'].filter((word) => word.startsWith(value)),
        arg2: (value) => ['world', 'wonder'].filter((word) => word.startsWith(value)),
      },
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` },
        },
      ],
    }),
  );
  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt with an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: args.resourceUri!,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.prompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}

/** What the processes of a deployment share (examples/scale-out.ts): the server's seams and the task store. */
export interface Deployment extends Pick<ServerOptions, 'changeBus' | 'requestState'> {
  /** Where task records live (default: the tasks extension's own in-memory store); the caller closes it. */
  taskStore?: TaskStore;
}

/** The demo server; `deployment` carries what the processes of a deployment share. */
export function createEverythingServer(deployment: Deployment = {}): Server {
  const { taskStore, ...shared } = deployment;
  const server = createServer(
    { name: 'mcp-core-everything', version: '0.1.0', title: 'mcp-core everything server' },
    {
      ...shared,
      instructions: 'The mcp-core demo server: the MCP conformance fixture surface plus diagnostics.',
      // Makes the initialize gate observable: `_meta["fixture/initializeDelayMs"]: N` holds the handshake N ms.
      onInitialize: async (params, ctx) => {
        const delayMs = (params._meta as Record<string, unknown> | undefined)?.['fixture/initializeDelayMs'];
        if (typeof delayMs === 'number' && delayMs > 0)
          await delay(Math.min(delayMs, 60_000), undefined, { signal: ctx.signal });
      },
    },
  );
  registerTools(server);
  registerDiagnostics(server);
  registerResources(server);
  registerPrompts(server);
  registerModernFixtures(server);
  server.use(createTasksExtension({ store: taskStore }));
  registerTaskFixtures(server);
  registerSkillFixtures(server);
  return server;
}

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } } },
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword (if / then / else)
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** `--stdio` serves stdio; otherwise HTTP on `--port N` (default 3000) at http://127.0.0.1:N/mcp. */
async function main(args: string[]): Promise<void> {
  const server = createEverythingServer();
  if (args.includes('--stdio')) {
    serveStdio(server);
    return;
  }
  const portIndex = args.indexOf('--port');
  const port = portIndex === -1 ? 3000 : Number(args[portIndex + 1]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port needs a port number');
  const http = await serveHttp(server, { ...EVERYTHING_HTTP_OPTIONS, port });
  process.stderr.write(`mcp-core everything server on ${http.url}\n`);
  const stop = (): void => void http.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
