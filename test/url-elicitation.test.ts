// URL-mode elicitation and sampling with tools (MCP 2025-11-25, Client Features > Elicitation > URL Mode, and
// Sampling > Tools): what each needs of the client's capabilities, notifications/elicitation/complete, the -32042
// URLElicitationRequiredError on 2025-11-25 and its input_required form on 2026-07-28, end to end with requestState.
// At the wire on stdio (both eras) and over HTTP; through the test client in both eras and the official clients.

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  UrlElicitationRequiredError as SdkUrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Context,
  createServer,
  elicitInput,
  inputRequired,
  MissingCapabilityError,
  type Server,
  sampleInput,
  UrlElicitationRequiredError,
  urlElicitationRequired,
} from '../core.ts';
import { serveHttp } from '../http.ts';
import { serveStdio } from '../stdio.ts';
import { connectTestClient } from '../testing.ts';
import { deferred, ENVELOPE_FREE_CLIENT, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { CLIENT_CAPABILITIES, fail, MODERN, modern, notification, ok, request, SERVER_INFO } from './wire.ts';

const INFO = { name: 'url-elicitation', version: '1.0.0' };
const LINK = { elicitationId: 'link-1', url: 'https://example.com/connect', message: 'Connect your account' };
const FORM = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const SAMPLE_TOOLS = {
  messages: [{ role: 'user', content: { type: 'text', text: 'weather?' } }],
  maxTokens: 10,
  tools: [{ name: 'forecast', inputSchema: { type: 'object' } }],
};

/** A tool result with one text. */
function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** A server with one tool, `ask`, whose body is `body`. */
function serverWith(body: (ctx: Context) => unknown, logger = new MemoryLogger()): Server {
  const server = createServer(INFO, { logger });
  server.tool('ask', {}, async (_args, ctx) => (await body(ctx)) as ReturnType<typeof text>);
  return server;
}

/** What each of the context's requests failed with: the error's class, capability and message. */
function refusals(errors: unknown[]) {
  return errors.map((error) => [
    error instanceof MissingCapabilityError,
    (error as MissingCapabilityError).capability,
    (error as Error).message,
  ]);
}

test('2025-11-25: a URL elicitation needs elicitation.url, a form one elicitation.form or the bare capability, and sampling with tools sampling.tools', async () => {
  const cases: [object, string[]][] = [
    [{ elicitation: {}, sampling: {} }, ['url', 'tools', 'toolChoice']],
    [{ elicitation: { url: {} }, sampling: { tools: {} } }, ['form']],
    [{ elicitation: { form: {}, url: {} }, sampling: { tools: {} } }, []],
  ];
  for (const [capabilities, refused] of cases) {
    const errors: unknown[] = [];
    const asked: string[] = [];
    const attempt = (label: string, call: Promise<unknown>) =>
      call.then(
        () => asked.push(label),
        (error: unknown) => errors.push(error),
      );
    const client = new WireClient(
      serverWith(async (ctx) => {
        await Promise.all([
          attempt('url', ctx.elicit({ mode: 'url', ...LINK })),
          attempt('form', ctx.elicit(FORM)),
          attempt('tools', ctx.sample(SAMPLE_TOOLS)),
          attempt('toolChoice', ctx.sample({ messages: [], maxTokens: 1, toolChoice: { mode: 'auto' } })),
        ]);
        return text('done');
      }),
    );
    await client.initialize('2025-11-25', capabilities);
    client.send(request(1, 'tools/call', { name: 'ask' }));
    // Each request the capabilities allow goes out; the client answers it.
    for (let i = 0; i < 4 - refused.length; i++) {
      const asking = await client.waitFor((frame) => frame.method !== undefined && frame.id !== undefined);
      client.send(ok(asking.id, asking.method === 'elicitation/create' ? { action: 'accept' } : {}));
    }
    assert.deepEqual(await client.response(1), ok(1, text('done')));
    const names: Record<string, string> = { url: 'elicitation.url', form: 'elicitation.form', tools: 'sampling.tools' };
    const methods: Record<string, string> = { url: 'elicitation/create', form: 'elicitation/create' };
    assert.deepEqual(
      refusals(errors),
      refused.map((label) => {
        const capability = names[label] ?? 'sampling.tools';
        const method = methods[label] ?? 'sampling/createMessage';
        return [true, capability, `Cannot send '${method}': the client did not declare the '${capability}' capability`];
      }),
      JSON.stringify(capabilities),
    );
    assert.deepEqual(
      asked.sort(),
      ['form', 'toolChoice', 'tools', 'url'].filter((label) => !refused.includes(label)),
    );
    assert.deepEqual(await client.end(), []);
  }
});

test('2025-11-25: a URL elicitation goes out with its id, or a random one when it has none', async () => {
  const client = new WireClient(
    serverWith(async (ctx) => {
      const answers = await Promise.all([
        ctx.elicit({ mode: 'url', ...LINK }),
        ctx.elicit({ mode: 'url', url: LINK.url, message: 'again' }),
      ]);
      return text(answers.map((answer) => answer.action).join(' '));
    }),
  );
  await client.initialize('2025-11-25', { elicitation: { url: {} } });
  client.send(request(1, 'tools/call', { name: 'ask' }));
  const first = await client.waitFor((frame) => frame.method === 'elicitation/create');
  const second = await client.waitFor((frame) => frame.method === 'elicitation/create');
  assert.deepEqual(first.params, { mode: 'url', ...LINK });
  const { elicitationId, ...rest } = second.params;
  assert.deepEqual(rest, { mode: 'url', url: LINK.url, message: 'again' });
  assert.match(elicitationId, /^[A-Za-z0-9_-]{22}$/);
  client.send(ok(first.id, { action: 'accept' }));
  client.send(ok(second.id, { action: 'decline' }));
  assert.deepEqual(await client.response(1), ok(1, text('accept decline')));
  assert.deepEqual(await client.end(), []);
});

test('2025-11-25: completeElicitation notifies a client that declared elicitation.url, during the request and after its answer; others get nothing', async () => {
  const later = deferred();
  let done: (() => void) | undefined;
  const body = (ctx: Context) => {
    ctx.completeElicitation('during');
    done = () => ctx.completeElicitation('after');
    assert.throws(() => ctx.completeElicitation(''), {
      name: 'TypeError',
      message: 'elicitationId must be a non-empty string',
    });
    later.resolve();
    return text('answered');
  };
  const client = new WireClient(serverWith(body));
  await client.initialize('2025-11-25', { elicitation: { url: {} } });
  const start = client.frames.length;
  assert.deepEqual(await client.request('tools/call', { name: 'ask' }, 1), ok(1, text('answered')));
  await later.promise;
  done!();
  const completed = (id: string) => (frame: Frame) => frame.params?.elicitationId === id;
  assert.deepEqual(
    await client.waitFor(completed('during')),
    notification('notifications/elicitation/complete', { elicitationId: 'during' }),
  );
  assert.deepEqual(
    await client.waitFor(completed('after')),
    notification('notifications/elicitation/complete', { elicitationId: 'after' }),
  );
  assert.deepEqual(client.frames.slice(start), [
    notification('notifications/elicitation/complete', { elicitationId: 'during' }),
    ok(1, text('answered')),
    notification('notifications/elicitation/complete', { elicitationId: 'after' }),
  ]);
  assert.deepEqual(await client.end(), []);

  const formOnly = new WireClient(serverWith(body));
  await formOnly.initialize('2025-11-25', { elicitation: {} });
  const before = formOnly.frames.length;
  assert.deepEqual(await formOnly.request('tools/call', { name: 'ask' }, 1), ok(1, text('answered')));
  done!();
  assert.deepEqual(await formOnly.end(), []);
  assert.deepEqual(formOnly.frames.slice(before), [ok(1, text('answered'))]);
});

test('2025-11-25: urlElicitationRequired answers -32042 with the elicitations to a client that declared elicitation.url', async () => {
  const client = new WireClient(
    serverWith(() => {
      throw urlElicitationRequired([LINK]);
    }),
  );
  await client.initialize('2025-11-25', { elicitation: { url: {} } });
  assert.deepEqual(
    await client.request('tools/call', { name: 'ask' }, 1),
    fail(1, {
      code: -32042,
      message: 'URL elicitation required',
      data: { elicitations: [{ mode: 'url', ...LINK }] },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('2025-11-25: to a client without elicitation.url, urlElicitationRequired fails the tool as missing input, logged', async () => {
  const logger = new MemoryLogger();
  const client = new WireClient(
    serverWith(() => {
      throw urlElicitationRequired([LINK]);
    }, logger),
  );
  await client.initialize('2025-11-25', { elicitation: {} });
  assert.deepEqual(
    await client.request('tools/call', { name: 'ask' }, 1),
    ok(1, {
      content: [{ type: 'text', text: 'The client could not provide the requested input' }],
      isError: true,
    }),
  );
  assert.deepEqual(
    logger.errors.map(({ message, error }) => [message, (error as MissingCapabilityError).capability]),
    [["tool 'ask' could not get its input", 'elicitation.url']],
  );
  assert.deepEqual(await client.end(), []);
});

test('urlElicitationRequired refuses an empty list and an elicitation without its id, URL or message, naming the field', () => {
  assert.throws(() => urlElicitationRequired([]), {
    name: 'TypeError',
    message: 'a URL elicitation error needs at least one elicitation',
  });
  assert.throws(() => urlElicitationRequired([{ ...LINK, url: '' }]), {
    name: 'TypeError',
    message: 'elicitations[0].url must be a non-empty string',
  });
  assert.throws(() => urlElicitationRequired([LINK, { elicitationId: 'x', url: 'u' } as never]), {
    name: 'TypeError',
    message: 'elicitations[1].message must be a non-empty string',
  });
  const error = urlElicitationRequired([LINK]);
  assert.ok(error instanceof UrlElicitationRequiredError);
  assert.deepEqual(error.elicitations, [LINK]);
});

/** Sends one 2026-07-28 tools/call of `ask` declaring `capabilities`, and resolves with its response. */
function callModern(client: WireClient, id: number, capabilities: object, params: object = {}) {
  client.send(modern('tools/call', { name: 'ask', ...params }, id, { [CLIENT_CAPABILITIES]: capabilities }));
  return client.response(id);
}

test('2026-07-28: urlElicitationRequired answers input_required with one URL elicitation per id, never -32042', async () => {
  const client = new WireClient(
    serverWith(() => {
      throw urlElicitationRequired([LINK, { ...LINK, elicitationId: 'link-2', url: 'https://example.com/pay' }]);
    }),
  );
  assert.deepEqual(
    await callModern(client, 1, { elicitation: { url: {} } }),
    ok(1, {
      resultType: 'input_required',
      inputRequests: {
        'link-1': { method: 'elicitation/create', params: { mode: 'url', message: LINK.message, url: LINK.url } },
        'link-2': {
          method: 'elicitation/create',
          params: { mode: 'url', message: LINK.message, url: 'https://example.com/pay' },
        },
      },
      _meta: { [SERVER_INFO]: INFO },
    }),
  );
  // Without elicitation.url the request needs a capability it did not declare (-32021).
  assert.deepEqual(
    await callModern(client, 2, { elicitation: {} }),
    fail(2, {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    }),
  );
  assert.deepEqual(await client.end(), []);
});

test('2026-07-28: input requests for a URL elicitation and for sampling with tools need elicitation.url and sampling.tools', async () => {
  const client = new WireClient(
    serverWith(() =>
      inputRequired({
        link: elicitInput({ mode: 'url', url: LINK.url, message: LINK.message }),
        pick: sampleInput(SAMPLE_TOOLS),
      }),
    ),
  );
  assert.deepEqual(
    await callModern(client, 1, { elicitation: { form: {} }, sampling: {} }),
    fail(1, {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { elicitation: { url: {} }, sampling: { tools: {} } } },
    }),
  );
  const answer = await callModern(client, 2, { elicitation: { url: {} }, sampling: { tools: {} } });
  assert.equal(answer.result.resultType, 'input_required');
  assert.deepEqual(Object.keys(answer.result.inputRequests), ['link', 'pick']);
  assert.deepEqual(await client.end(), []);
});

test('2026-07-28: completeElicitation sends nothing (the retry says it) and still refuses an empty id', async () => {
  const client = new WireClient(
    serverWith((ctx) => {
      ctx.completeElicitation('link-1');
      assert.throws(() => ctx.completeElicitation(''), { name: 'TypeError' });
      return text('answered');
    }),
  );
  const start = client.frames.length;
  const answer = await callModern(client, 1, { elicitation: { url: {} } });
  assert.equal(answer.result.resultType, 'complete');
  assert.deepEqual(client.frames.slice(start), [answer]);
  assert.deepEqual(await client.end(), []);
});

/**
 * One handler for both eras: it asks for a URL elicitation with state, and completes once the client accepted
 * and the state comes back (2026-07-28: the retry echoes requestState; 2025-11-25: the shim asks and re-runs).
 */
function connectServer(): Server {
  const server = createServer(INFO);
  server.tool('connect', {}, (_args, ctx) => {
    const accepted = ctx.inputResponses?.link?.action === 'accept';
    if (!accepted)
      return inputRequired(
        { link: elicitInput({ mode: 'url', url: LINK.url, message: LINK.message }) },
        {
          started: 'connect-1',
        },
      );
    return text(`connected ${(ctx.requestState as { started: string }).started}`);
  });
  return server;
}

for (const era of ['modern', 'legacy'] as const) {
  test(`${era}: a URL elicitation asked with state completes end to end through the test client`, async () => {
    const seen: Record<string, unknown>[] = [];
    const client = await connectTestClient(connectServer(), {
      era,
      capabilities: { elicitation: { url: {} } },
      onElicit: (params) => {
        seen.push(params);
        return { action: 'accept' };
      },
    });
    assert.deepEqual(await client.callTool('connect'), text('connected connect-1'));
    const [{ elicitationId, ...asked }] = seen as [Record<string, unknown>];
    assert.deepEqual(asked, { mode: 'url', url: LINK.url, message: LINK.message });
    // 2025-11-25 needs an id, which the shim gives it; 2026-07-28's URL elicitation has none.
    assert.equal(typeof elicitationId, era === 'legacy' ? 'string' : 'undefined');
    await client.close();
  });
}

test('over HTTP: -32042 on a 2025-11-25 session, input_required on a 2026-07-28 POST', async () => {
  const server = serverWith(() => {
    throw urlElicitationRequired([LINK]);
  });
  const http = await serveHttp(server, { port: 0 });
  try {
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const init = await post(
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: { url: {} } },
        clientInfo: ENVELOPE_FREE_CLIENT,
      }),
    );
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await post(notification('notifications/initialized'), headers)).text();
    const legacy = await post(request(2, 'tools/call', { name: 'ask' }), headers);
    assert.deepEqual(
      await legacy.json(),
      fail(2, {
        code: -32042,
        message: 'URL elicitation required',
        data: { elicitations: [{ mode: 'url', ...LINK }] },
      }),
    );
    const frame = modern('tools/call', { name: 'ask' }, 3, { [CLIENT_CAPABILITIES]: { elicitation: { url: {} } } });
    const answer = await post(frame, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'ask' });
    const body = (await answer.json()) as Frame;
    assert.equal(body.result.resultType, 'input_required');
    assert.deepEqual(Object.keys(body.result.inputRequests), ['link-1']);
  } finally {
    await http.close();
  }
});

/** A server for the official clients: `link` asks for a URL elicitation and completes it; `gate` needs one first. */
function sdkServer(): Server {
  const server = createServer(INFO);
  server.tool('link', {}, async (_args, ctx) => {
    if (ctx.era === 'modern') {
      if (ctx.inputResponses?.link?.action !== 'accept')
        return inputRequired({ link: elicitInput({ mode: 'url', url: LINK.url, message: LINK.message }) });
      return text('linked');
    }
    const answer = await ctx.elicit({ mode: 'url', ...LINK });
    ctx.completeElicitation(LINK.elicitationId);
    return text(`linked: ${answer.action}`);
  });
  server.tool('gate', {}, () => {
    throw urlElicitationRequired([LINK]);
  });
  return server;
}

test('the official v1 client: a URL elicitation request, its completion notification, and -32042 as its UrlElicitationRequiredError', async () => {
  const http = await serveHttp(sdkServer(), { port: 0 });
  const client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  try {
    const asked: unknown[] = [];
    const completed = deferred<unknown>();
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (note) => completed.resolve(note.params));
    await client.connect(new HttpTransportV1(new URL(http.url)));
    assert.deepEqual((await client.callTool({ name: 'link' })).content, text('linked: accept').content);
    assert.deepEqual(asked, [{ mode: 'url', ...LINK }]);
    assert.deepEqual(await completed.promise, { elicitationId: LINK.elicitationId });
    const refused = await client.callTool({ name: 'gate' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof SdkUrlElicitationRequiredError, String(refused));
    assert.deepEqual(refused.elicitations, [{ mode: 'url', ...LINK }]);
  } finally {
    await client.close();
    await http.close();
  }
});

test('the official v2 client on 2026-07-28: an input_required URL elicitation is answered and the call retried', async () => {
  const http = await serveHttp(sdkServer(), { port: 0 });
  const client = new ClientV2(
    { name: 'v2', version: '2.0.0' },
    { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  try {
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    await client.connect(new HttpTransportV2(new URL(http.url)));
    assert.deepEqual((await client.callTool({ name: 'link' })).content, text('linked').content);
    assert.deepEqual(asked, [{ mode: 'url', url: LINK.url, message: LINK.message }]);
  } finally {
    await client.close();
    await http.close();
  }
});

test('urlElicitationRequired refuses a URL that is not absolute and a repeated id', () => {
  assert.throws(() => urlElicitationRequired([{ ...LINK, url: '/connect' }]), {
    name: 'TypeError',
    message: 'elicitations[0].url must be an absolute URL',
  });
  assert.throws(() => urlElicitationRequired([LINK, LINK]), {
    name: 'TypeError',
    message: 'elicitations[1].elicitationId repeats link-1',
  });
});

test('a URL elicitation thrown where no input can be asked for (a template list) is the handler bug it is: -32603 in both eras, logged', async () => {
  for (const era of ['legacy', 'modern'] as const) {
    const logger = new MemoryLogger();
    const server = createServer(INFO, { logger });
    server.resourceTemplate(
      'notes://{id}',
      {
        name: 'note',
        list: () => {
          throw urlElicitationRequired([LINK]);
        },
      },
      (uri) => ({ contents: [{ uri, text: '' }] }),
    );
    const client = await connectTestClient(server, { era, capabilities: { elicitation: { url: {} } } });
    const refused = await client.listResources().then(
      () => undefined,
      (error: { code: number }) => error.code,
    );
    assert.equal(refused, -32603, era);
    assert.deepEqual(
      logger.errors.map(({ message }) => message),
      ["handler for 'resources/list' failed"],
    );
    await client.close();
  }
});

test('before 2025-11-25 there is no URL elicitation: ctx.elicit refuses it, -32042 becomes missing input, completion sends nothing', async () => {
  const errors: unknown[] = [];
  const server = createServer(INFO, { logger: new MemoryLogger() });
  server.tool('ask', {}, async (_args, ctx) => {
    await ctx.elicit({ mode: 'url', ...LINK }).catch((error: unknown) => errors.push(error));
    ctx.completeElicitation(LINK.elicitationId);
    return text('asked');
  });
  server.tool('gate', {}, () => {
    throw urlElicitationRequired([LINK]);
  });
  const client = new WireClient(server);
  await client.initialize('2025-06-18', { elicitation: { url: {} } });
  const start = client.frames.length;
  assert.deepEqual(await client.request('tools/call', { name: 'ask' }, 1), ok(1, text('asked')));
  assert.deepEqual(refusals(errors), [
    [
      true,
      'elicitation.url',
      "Cannot send 'elicitation/create': the client did not declare the 'elicitation.url' capability",
    ],
  ]);
  assert.deepEqual(
    await client.request('tools/call', { name: 'gate' }, 2),
    ok(2, { content: [{ type: 'text', text: 'The client could not provide the requested input' }], isError: true }),
  );
  assert.deepEqual(client.frames.slice(start).length, 2, 'the two answers and nothing else');
  assert.deepEqual(await client.end(), []);
});

test('an elicitation of a mode the client did not declare is not sent: its mode names the missing part', async () => {
  const errors: unknown[] = [];
  const client = new WireClient(
    serverWith(async (ctx) => {
      await ctx.elicit({ mode: 'voice', message: 'say it' }).catch((error: unknown) => errors.push(error));
      return text('done');
    }),
  );
  await client.initialize('2025-11-25', { elicitation: { form: {}, url: {} } });
  assert.deepEqual(await client.request('tools/call', { name: 'ask' }, 1), ok(1, text('done')));
  assert.deepEqual(
    errors.map((error) => (error as MissingCapabilityError).capability),
    ['elicitation.voice'],
  );
  assert.deepEqual(await client.end(), []);
});

test('one elicitationId serves both eras: 2025-11-25 sends it, 2026-07-28 leaves it out of the input request', async () => {
  const asking = () => inputRequired({ link: elicitInput({ mode: 'url', ...LINK }) });
  const modernClient = new WireClient(serverWith(asking));
  const answer = await callModern(modernClient, 1, { elicitation: { url: {} } });
  assert.deepEqual(answer.result.inputRequests, {
    link: { method: 'elicitation/create', params: { mode: 'url', url: LINK.url, message: LINK.message } },
  });
  assert.deepEqual(await modernClient.end(), []);
  const legacyClient = new WireClient(serverWith(asking));
  await legacyClient.initialize('2025-11-25', { elicitation: { url: {} } });
  legacyClient.send(request(1, 'tools/call', { name: 'ask' }));
  const sent = await legacyClient.waitFor((frame) => frame.method === 'elicitation/create');
  assert.deepEqual(sent.params, { mode: 'url', ...LINK });
  legacyClient.send(fail(sent.id, { code: -32603, message: 'no' }));
  await legacyClient.response(1);
  assert.deepEqual(await legacyClient.end(), []);
});

test('completion notifications are dropped, not queued, for a client that stopped reading (the stdio output bound holds)', async () => {
  const input = new PassThrough();
  const output = new PassThrough({ highWaterMark: 1024 }); // nobody reads it
  let ctxOf: Context | undefined;
  const server = serverWith((ctx) => {
    ctxOf = ctx;
    return text('answered');
  });
  const stdio = serveStdio(server, { input, output, maxQueuedBytes: 64 * 1024 });
  const handshake = {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { url: {} } },
    clientInfo: ENVELOPE_FREE_CLIENT,
  };
  input.write(`${JSON.stringify(request(1, 'initialize', handshake))}\n`);
  input.write(`${JSON.stringify(notification('notifications/initialized'))}\n`);
  input.write(`${JSON.stringify(request(2, 'tools/call', { name: 'ask' }))}\n`);
  while (ctxOf === undefined) await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 20_000; i++) ctxOf.completeElicitation(`id-${i}`);
  assert.ok(output.writableLength < 256 * 1024, `queued ${output.writableLength} bytes`);
  input.end();
  output.resume();
  await stdio.closed;
});

test('the official v2 client on 2026-07-28 reads a resource that asks for input first: the retry result carries the hints it requires', async () => {
  const server = createServer(INFO);
  server.resource('r://gated', { name: 'gated' }, (uri, ctx) =>
    ctx.inputResponses?.ok?.action === 'accept'
      ? { contents: [{ uri, text: 'open' }] }
      : inputRequired({ ok: elicitInput({ mode: 'url', url: LINK.url, message: LINK.message }) }),
  );
  const http = await serveHttp(server, { port: 0 });
  const client = new ClientV2(
    { name: 'v2', version: '2.0.0' },
    { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  try {
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept' }));
    await client.connect(new HttpTransportV2(new URL(http.url)));
    const read = await client.readResource({ uri: 'r://gated' });
    assert.deepEqual(read.contents, [{ uri: 'r://gated', text: 'open' }]);
  } finally {
    await client.close();
    await http.close();
  }
});
