// The OpenTelemetry add-on (`mcp-core/otel`, docs/http-deployment.md, Metrics and tracing) with the real OpenTelemetry
// SDK (sdk-trace-base's in-memory exporter, the AsyncLocalStorage context manager, the W3C propagator), driven at
// the wire on stdio and node:http: one SERVER span per request with the attributes of the OpenTelemetry semantic
// conventions for MCP, its parent from params._meta's traceparent (the ambient context then a link), error and
// tool-error outcomes, refusals the middleware never sees, handler spans nested under it; a tracer or API that
// throws is logged and never reaches a request or the process; close() ends what is open and stops tracing.
// Every wait is on an explicit signal: a frame, an HTTP answer, a handler's deferred.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createServer, type InitializeParams, ProtocolError, type Server, ToolError } from '../core.ts';
import { serveHttp } from '../http.ts';
import { type OtelApi, type OtelTracer, traceWithOpenTelemetry } from '../otel/otel.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { modernHeaders } from './raw-http.ts';
import { modern, notification, ok, request } from './wire.ts';

const T = { timeout: 30_000 }; // a safety net against hangs only; no assertion depends on time
const LATEST = '2025-11-25';
const CLIENT = { name: 'otel-test', version: '1.0.0' };
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;
const SERVER = 1; // SpanKind.SERVER
const ERROR = 2; // SpanStatusCode.ERROR

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('otel-test');
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());

/** A tool result of one text block. */
function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A server with the tools, prompt and resource the tests call; `hold` waits for the test's release. */
function fixture(logger = new MemoryLogger(), onInitialize?: (params: InitializeParams) => Promise<void>) {
  const server = createServer({ name: 'otel-test', version: '1.0.0' }, { logger, onInitialize });
  const held = deferred();
  const started = deferred();
  const says = { type: 'object', properties: { says: { type: 'string' } } } as const;
  server.tool('echo', { inputSchema: says }, (args: { says?: string }) => text(`echo: ${args.says}`));
  server.tool('nested', { inputSchema: says }, async () => {
    await Promise.resolve(); // the handler's async work keeps the MCP span active
    tracer.startActiveSpan('inner', (inner) => inner.end());
    return text('nested');
  });
  server.tool('broken', { inputSchema: says }, () => {
    throw new ToolError('the tool failed');
  });
  server.tool('refuse', { inputSchema: says }, () => {
    throw new ProtocolError(-32000, 'refused by policy');
  });
  server.tool('hold', { inputSchema: says }, async () => {
    started.resolve();
    await held.promise;
    return text('released');
  });
  server.prompt('greet', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  server.resource('mem://crash', { name: 'crash' }, () => {
    throw new Error('disk on fire');
  });
  return { server, logger, held, started };
}

/** The add-on with the test's tracer and API (or stand-ins), intercepted on `server`; closed when the test ends. */
function traced(
  t: TestContext,
  server: Server,
  logger: MemoryLogger,
  options: { tracer?: OtelTracer; api?: OtelApi } = {},
) {
  exporter.reset();
  const otel = traceWithOpenTelemetry({ tracer: options.tracer ?? tracer, api: options.api ?? api, logger });
  server.intercept(otel.middleware);
  t.after(() => otel.close());
  return otel;
}

/** The finished spans named `name` (in the order they ended). */
function spans(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

/** The one finished span for request `id`. */
function spanOf(id: string | number): ReadableSpan {
  const found = exporter.getFinishedSpans().filter((span) => span.attributes['jsonrpc.request.id'] === String(id));
  assert.equal(found.length, 1, `one span for request ${id}: ${found.map((span) => span.name)}`);
  return found[0]!;
}

/** A tools/call of tool `name` with `{says: 'hi'}`, and `meta` as its `params._meta` when given. */
function call(id: string | number, name: unknown, meta?: Record<string, unknown>): Frame {
  return request(id, 'tools/call', { name, arguments: { says: 'hi' }, ...(meta && { _meta: meta }) });
}

test(
  'stdio tools/call: one SERVER span "tools/call echo" with mcp.method.name, gen_ai.tool.name, jsonrpc.request.id, network.transport pipe, mcp.protocol.version; prompts/get is named by its prompt',
  T,
  async (t) => {
    const { server, logger } = fixture();
    traced(t, server, logger);
    const client = new WireClient(server);
    await client.initialize();
    assert.deepEqual(
      await client.request('tools/call', { name: 'echo', arguments: { says: 'hi' } }, 2),
      ok(2, text('echo: hi')),
    );
    assert.equal((await client.request('prompts/get', { name: 'greet' }, 3)).result.messages.length, 1);
    await client.end();

    const span = spanOf(2);
    assert.equal(span.name, 'tools/call echo');
    assert.equal(span.kind, SERVER);
    assert.deepEqual(span.attributes, {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '2',
      'network.transport': 'pipe',
      'mcp.protocol.version': LATEST,
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    assert.equal(span.status.code, 0, 'unset: a result');
    assert.equal(span.parentSpanContext, undefined, 'a root span: no traceparent, no ambient span');
    const prompt = spanOf(3);
    assert.equal(prompt.name, 'prompts/get greet');
    assert.equal(prompt.attributes['gen_ai.prompt.name'], 'greet');
    assert.equal(prompt.attributes['gen_ai.operation.name'], undefined, 'execute_tool is for tool calls only');
    // initialize is traced (the middleware never sees it); a notification is no request and has no span.
    assert.deepEqual(
      exporter.getFinishedSpans().map((each) => each.name),
      ['initialize', 'tools/call echo', 'prompts/get greet'],
    );
    assert.deepEqual(logger.errors, []);
  },
);

test('a 2026-07-28 stdio request records the version of its envelope', T, async (t) => {
  const { server, logger } = fixture();
  traced(t, server, logger);
  const client = new WireClient(server);
  const answer = await client.request(
    'tools/call',
    modern('tools/call', { name: 'echo', arguments: { says: 'm' } }).params,
    'm1',
  );
  assert.equal(answer.result.content[0].text, 'echo: m');
  await client.end();
  assert.equal(spanOf('m1').name, 'tools/call echo');
  assert.equal(spanOf('m1').attributes['mcp.protocol.version'], '2026-07-28');
});

test(
  "the parent is params._meta's traceparent, else the ambient context; with both, the ambient one is a link",
  T,
  async (t) => {
    const { server, logger } = fixture();
    traced(t, server, logger);
    const client = new WireClient(server);
    await client.initialize();
    const ambient = tracer.startSpan('ambient');
    const inAmbient = (frame: Frame) =>
      api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, ambient), () => client.send(frame));
    client.send(call(2, 'echo', { traceparent: TRACEPARENT }));
    await client.response(2);
    inAmbient(call(3, 'echo', { traceparent: TRACEPARENT }));
    await client.response(3);
    inAmbient(call(4, 'echo'));
    await client.response(4);
    // A traceparent the propagator cannot read (only baggage, or a malformed one) leaves the ambient parent.
    inAmbient(call(5, 'echo', { traceparent: 'not-a-traceparent', baggage: 'k=v' }));
    await client.response(5);
    await client.end();
    ambient.end();

    const remote = { traceId: TRACE_ID, spanId: PARENT_ID, traceFlags: 1, isRemote: true };
    assert.deepEqual(
      { parent: spanOf(2).parentSpanContext, links: spanOf(2).links, traceId: spanOf(2).spanContext().traceId },
      { parent: remote, links: [], traceId: TRACE_ID },
    );
    assert.equal(spanOf(3).parentSpanContext?.spanId, PARENT_ID);
    assert.deepEqual(
      spanOf(3).links.map((link) => link.context.spanId),
      [ambient.spanContext().spanId],
    );
    for (const id of [4, 5]) {
      assert.equal(spanOf(id).parentSpanContext?.spanId, ambient.spanContext().spanId, `request ${id}`);
      assert.deepEqual(spanOf(id).links, [], `request ${id}`);
    }
  },
);

test(
  'a server error answer (-32000, -32603) sets error.type, rpc.response.status_code and status ERROR with its message; an unexpected throw records the exception; an isError result sets tool_error',
  T,
  async (t) => {
    const { server, logger } = fixture();
    traced(t, server, logger);
    const client = new WireClient(server);
    await client.initialize();
    assert.deepEqual((await client.request('tools/call', { name: 'refuse', arguments: {} }, 2)).error, {
      code: -32000,
      message: 'refused by policy',
    });
    assert.equal((await client.request('resources/read', { uri: 'mem://crash' }, 3)).error.code, -32603);
    assert.equal((await client.request('tools/call', { name: 'broken', arguments: {} }, 4)).result.isError, true);
    await client.end();

    const refused = spanOf(2);
    assert.equal(refused.name, 'tools/call', 'no result: the span keeps the method name');
    assert.equal(refused.attributes['gen_ai.tool.name'], 'refuse');
    assert.equal(refused.attributes['error.type'], '-32000');
    assert.equal(refused.attributes['rpc.response.status_code'], '-32000');
    assert.deepEqual(refused.status, { code: ERROR, message: 'refused by policy' });
    assert.deepEqual(refused.events, [], 'a ProtocolError is an answer, not an exception');

    const crashed = spanOf(3);
    assert.equal(crashed.name, 'resources/read', 'a resource URI is no span name');
    assert.equal(crashed.attributes['mcp.resource.uri'], 'mem://crash');
    assert.equal(crashed.attributes['error.type'], '-32603');
    assert.deepEqual(
      crashed.status,
      { code: ERROR, message: 'Internal error' },
      'as the answer says, without the detail',
    );
    assert.deepEqual(
      crashed.events.map((event) => [event.name, event.attributes?.['exception.message']]),
      [['exception', 'disk on fire']],
    );

    const broken = spanOf(4);
    assert.equal(broken.name, 'tools/call broken');
    assert.equal(broken.attributes['error.type'], 'tool_error');
    assert.equal(broken.attributes['rpc.response.status_code'], undefined, 'a result carries no error code');
    assert.equal(broken.status.code, ERROR);
  },
);

test(
  "an unknown tool's span is named 'tools/call' only, an unserved method 'other', both without error.type (the caller's mistake); a cancelled request's error.type is cancelled",
  T,
  async (t) => {
    const { server, logger, started } = fixture();
    traced(t, server, logger);
    const client = new WireClient(server);
    await client.initialize();
    assert.equal((await client.request('tools/call', { name: 'made-up-name', arguments: {} }, 2)).error.code, -32602);
    assert.equal((await client.request('tools/call', { name: 7 }, 3)).error.code, -32602);
    assert.equal((await client.request('made/up', {}, 4)).error.code, -32601);
    client.send(call(5, 'hold'));
    await started.promise;
    client.send(notification('notifications/cancelled', { requestId: 5 }));
    assert.deepEqual((await client.request('ping', {}, 6)).result, {});
    await client.end();

    assert.equal(spanOf(2).name, 'tools/call', "the client's name is no span name");
    assert.equal(spanOf(2).attributes['gen_ai.tool.name'], 'made-up-name', 'it is an attribute');
    // The conventions count an unknown tool (-32602) and an unknown method (-32601) as the caller's, not as errors.
    assert.deepEqual(
      [spanOf(2).attributes['rpc.response.status_code'], spanOf(2).attributes['error.type'], spanOf(2).status.code],
      ['-32602', undefined, 0],
    );
    assert.equal(spanOf(3).attributes['gen_ai.tool.name'], undefined, 'a name that is no string is not recorded');
    assert.deepEqual(
      { name: spanOf(4).name, attributes: spanOf(4).attributes },
      {
        name: 'other',
        attributes: {
          'mcp.method.name': 'other',
          'jsonrpc.request.id': '4',
          'network.transport': 'pipe',
          'rpc.response.status_code': '-32601',
        },
      },
      'refused before the middleware: only what the channel knows',
    );
    assert.deepEqual(
      { name: spanOf(5).name, type: spanOf(5).attributes['error.type'], status: spanOf(5).status.code },
      { name: 'tools/call', type: 'cancelled', status: ERROR },
    );
  },
);

test(
  "node:http: a 2025 session's span has mcp.session.id, network.transport tcp and client.address; a 2026-07-28 POST's has no session",
  T,
  async (t) => {
    const { server, logger } = fixture();
    traced(t, server, logger);
    const http = await serveHttp(server, { port: 0 });
    t.after(() => http.close());
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = (frame: Frame, extra: Record<string, string> = {}) =>
      fetch(http.url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(frame) });
    const init = await post(
      request(1, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT }),
    );
    await init.json();
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': LATEST };
    assert.equal((await post(notification('notifications/initialized'), session)).status, 202);
    assert.deepEqual(await (await post(call(2, 'echo'), session)).json(), ok(2, text('echo: hi')));
    const frame = modern('tools/call', { name: 'echo', arguments: { says: 'hi' } }, 'm2');
    const answer = await fetch(http.url, {
      method: 'POST',
      headers: modernHeaders(frame),
      body: JSON.stringify(frame),
    });
    assert.equal(((await answer.json()) as Frame).result.content[0].text, 'echo: hi');

    const http2025 = spanOf(2);
    assert.equal(http2025.name, 'tools/call echo');
    assert.equal(http2025.attributes['mcp.session.id'], session['mcp-session-id']);
    assert.equal(http2025.attributes['network.transport'], 'tcp');
    assert.equal(http2025.attributes['network.protocol.name'], 'http');
    assert.match(String(http2025.attributes['client.address']), /^(::ffff:)?127\.0\.0\.1$/);
    const http2026 = spanOf('m2');
    assert.equal(http2026.attributes['mcp.session.id'], undefined);
    assert.equal(http2026.attributes['mcp.protocol.version'], '2026-07-28');
  },
);

test("a handler's own span is a child of the MCP span, after its awaits too", T, async (t) => {
  const { server, logger } = fixture();
  traced(t, server, logger);
  const client = new WireClient(server);
  await client.initialize();
  client.send(call(2, 'nested', { traceparent: TRACEPARENT }));
  assert.deepEqual(await client.response(2), ok(2, text('nested')));
  await client.end();
  const [inner] = spans('inner');
  const mcp = spanOf(2);
  assert.equal(inner?.parentSpanContext?.spanId, mcp.spanContext().spanId);
  assert.equal(inner?.spanContext().traceId, TRACE_ID, "the client's trace continues");
});

test(
  "a request held behind a slow onInitialize keeps its own span; the ended initialize span is not its handler's parent",
  T,
  async (t) => {
    const gate = deferred();
    const { server, logger } = fixture(new MemoryLogger(), () => gate.promise);
    traced(t, server, logger);
    const client = new WireClient(server);
    client.send(request(1, 'initialize', { protocolVersion: LATEST, capabilities: {}, clientInfo: CLIENT }));
    client.send(notification('notifications/initialized'));
    client.send(call(2, 'nested'));
    gate.resolve();
    assert.equal((await client.response(1)).result.protocolVersion, LATEST);
    assert.deepEqual(await client.response(2), ok(2, text('nested')));
    await client.end();
    assert.deepEqual(
      exporter.getFinishedSpans().map((span) => span.name),
      ['initialize', 'inner', 'tools/call'],
    );
    assert.deepEqual(spanOf(1).attributes, {
      'mcp.method.name': 'initialize',
      'jsonrpc.request.id': '1',
      'network.transport': 'pipe',
    });
    assert.notEqual(spans('inner')[0]!.parentSpanContext?.spanId, spanOf(1).spanContext().spanId);
    assert.equal(spanOf(2).attributes['network.transport'], 'pipe');
  },
);

/** The test's tracer, whose spans throw from the methods named in `throwing` (startSpan throws from the tracer). */
function throwingTracer(throwing: Set<string>): OtelTracer {
  /** `call`, unless `method` is to throw. */
  const unless = <A extends unknown[]>(method: string, call: (...args: A) => unknown) => {
    return (...args: A): unknown => {
      if (throwing.has(method)) throw new Error(`${method} failed on purpose`);
      return call(...args);
    };
  };
  return {
    startSpan: unless('startSpan', (name: string, options: api.SpanOptions, context: unknown) => {
      const span = tracer.startSpan(name, options, context as api.Context);
      return {
        setAttribute: unless('setAttribute', (key: string, value: string) => span.setAttribute(key, value)),
        updateName: unless('updateName', (name: string) => span.updateName(name)),
        setStatus: unless('setStatus', (status: api.SpanStatus) => span.setStatus(status)),
        recordException: unless('recordException', (error: Error) => span.recordException(error)),
        end: unless('end', () => span.end()),
      };
    }) as OtelTracer['startSpan'],
  };
}

test(
  'a tracer that throws in startSpan, setAttribute, updateName or end, or an API whose setSpan or context.with throws, is logged and never reaches a request or the process',
  T,
  async (t) => {
    const throwing = new Set<string>();
    let contextWith: 'works' | 'throws' | 'throws after' = 'works';
    let setSpan = true;
    const flaky: OtelApi = {
      ...api,
      context: {
        active: () => api.context.active(),
        with(context, fn) {
          if (contextWith === 'throws') throw new Error('with failed on purpose');
          const result = api.context.with(context as api.Context, fn);
          if (contextWith === 'throws after') throw new Error('with failed after on purpose');
          return result;
        },
      },
      trace: {
        getSpanContext: (context) => api.trace.getSpanContext(context as api.Context),
        setSpan(context, span) {
          if (!setSpan) throw new Error('setSpan failed on purpose');
          return api.trace.setSpan(context as api.Context, span as api.Span);
        },
      },
    };
    const { server, logger } = fixture();
    traced(t, server, logger, { tracer: throwingTracer(throwing), api: flaky });
    const client = new WireClient(server);
    await client.initialize();
    let id = 10;
    const failures = async (setup: () => void): Promise<string[]> => {
      setup();
      logger.errors.length = 0;
      assert.deepEqual(
        await client.request('tools/call', { name: 'echo', arguments: { says: 'x' } }, ++id),
        ok(id, text('echo: x')),
      );
      throwing.clear();
      contextWith = 'works';
      setSpan = true;
      return logger.errors.map((each) => `${each.message}: ${(each.error as Error).message}`);
    };
    assert.deepEqual(await failures(() => throwing.add('startSpan')), [
      'mcp-core/otel: starting a span failed: startSpan failed on purpose',
    ]);
    assert.deepEqual(await failures(() => throwing.add('setAttribute')), [
      'mcp-core/otel: describing a span failed: setAttribute failed on purpose',
    ]);
    assert.deepEqual(await failures(() => throwing.add('updateName')), [
      'mcp-core/otel: ending a span failed: updateName failed on purpose',
    ]);
    assert.deepEqual(await failures(() => throwing.add('end')), [
      'mcp-core/otel: ending a span failed: end failed on purpose',
    ]);
    assert.deepEqual(await failures(() => (setSpan = false)), [
      'mcp-core/otel: activating a span failed: setSpan failed on purpose',
    ]);
    assert.deepEqual(await failures(() => (contextWith = 'throws')), [
      'mcp-core/otel: entering a span context failed: with failed on purpose',
    ]);
    assert.deepEqual(await failures(() => (contextWith = 'throws after')), [
      'mcp-core/otel: entering a span context failed: with failed after on purpose',
    ]);
    // An error answer's path and an unexpected throw's too.
    logger.errors.length = 0;
    throwing.add('setStatus');
    throwing.add('recordException');
    assert.equal((await client.request('resources/read', { uri: 'mem://crash' }, 'r')).error.code, -32603);
    assert.deepEqual(
      logger.errors.map((each) => each.message),
      ["handler for 'resources/read' failed", 'mcp-core/otel: ending a span failed'],
    );
    await client.end();
    // Each span that started was ended once, whatever threw (the ones whose end() threw are not exported).
    assert.deepEqual(
      exporter.getFinishedSpans().map((span) => span.name),
      [
        'initialize',
        'tools/call echo',
        'tools/call',
        'tools/call echo',
        'tools/call echo',
        'tools/call echo',
        'resources/read',
      ],
    );
  },
);

test(
  'close() ends the spans still open and stops tracing: no new span, the middleware passes through',
  T,
  async (t) => {
    const { server, logger, held, started } = fixture();
    const otel = traced(t, server, logger);
    const client = new WireClient(server);
    await client.initialize();
    client.send(call(2, 'hold'));
    await started.promise;
    otel.close();
    assert.deepEqual(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes['error.type']]),
      [
        ['initialize', undefined],
        ['tools/call', undefined],
      ],
      'ended as it stood',
    );
    held.resolve();
    assert.deepEqual(await client.response(2), ok(2, text('released')));
    assert.deepEqual(
      await client.request('tools/call', { name: 'echo', arguments: { says: 'after' } }, 3),
      ok(3, text('echo: after')),
    );
    otel.close(); // a second close changes nothing
    await client.end();
    assert.equal(exporter.getFinishedSpans().length, 2, 'nothing traced after close()');
    assert.deepEqual(logger.errors, []);
  },
);

test('the default logger reports on stderr, never stdout', T, async (t) => {
  const lines: unknown[][] = [];
  t.mock.method(console, 'error', (...args: unknown[]) => lines.push(args));
  const log = t.mock.method(console, 'log');
  const { server } = fixture();
  const otel = traceWithOpenTelemetry({ tracer: throwingTracer(new Set(['startSpan'])), api });
  t.after(() => otel.close());
  const client = new WireClient(server);
  await client.initialize();
  await client.end();
  assert.equal(lines[0]?.[0], 'mcp-core/otel: starting a span failed');
  assert.equal(log.mock.callCount(), 0);
});
