// The extension seam of the core (Extension, server.use/unuse/close, transport.routingParam), at the wire with small
// fake extensions: installation refusals, tool definition checks, 2026-07-28 extension methods behind the -32021 declaration gate, 2025 methods and
// capabilities per version, listed-tool fields, the tools/call hook (take over, leave, run, detach, notify), keyed
// listen filters with audiences, Mcp-Name routing, the caller each request speaks for, and close. Never the tasks
// add-on.

import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import {
  createServer,
  type Extension,
  type ExtensionHost,
  type ExtensionMethod,
  ProtocolError,
  type Server,
  type ServerOptions,
  type ToolCall,
} from '../core.ts';
import { type HttpServer, serveHttp } from '../http.ts';
import type { InputRequest } from '../input.ts';
import type { AuthInfo, TaskHandle } from '../types.ts';
import { deferred, type Frame, MemoryLogger, WireClient } from './harness.ts';
import { encodeHeaderValue, modernHeaders, raw } from './raw-http.ts';
import { SseReader } from './sse-reader.ts';
import { CLIENT_CAPABILITIES, type Id, MODERN, modern, SERVER_INFO, SUBSCRIPTION_ID } from './wire.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; no assertion depends on time

const INFO = { name: 'extensions-test', version: '1.0.0' };
const ID = 'com.example/fake';
const OTHER = 'com.example/other';
const LATEST = '2025-11-25';

/** The envelope key that declares the fake extension (and `extra` client capabilities) in a 2026-07-28 request. */
function declaring(extra: object = {}, id = ID): object {
  return { [CLIENT_CAPABILITIES]: { extensions: { [id]: {} }, ...extra } };
}

function stamped(result: Record<string, unknown>): Record<string, unknown> {
  return { ...result, resultType: 'complete', _meta: { [SERVER_INFO]: INFO } };
}

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function server(options: ServerOptions = {}): Server {
  return createServer(INFO, { logger: new MemoryLogger(), ...options });
}

/** A stdio-like connection to `s`, closed after the test. */
function connect(t: TestContext, s: Server): WireClient {
  const client = new WireClient(s);
  t.after(() => client.end());
  return client;
}

/** An extension method answering what its context says of the request (era, version, capabilities, caller). */
const WHOAMI: ExtensionMethod = {
  serve: (params, ctx) => ({
    params: { ...params, _meta: undefined },
    era: ctx.era,
    protocolVersion: ctx.protocolVersion,
    clientCapabilities: ctx.clientCapabilities,
    caller: ctx.caller,
  }),
};

let markers = 0;

/** Proves nothing was written since the last read frame: a modern tools/list's answer is the very next frame. */
async function assertNothingMore(client: WireClient): Promise<void> {
  const id = `marker-${++markers}`;
  client.send(modern('tools/list', {}, id));
  const next = await client.next();
  assert.equal(next.id, id, `expected nothing before the marker, got ${JSON.stringify(next)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// server.use

test('server.use refuses an extension without a non-empty string id', () => {
  const s = server();
  for (const bad of [undefined, {}, { id: '' }, { id: 7 }, { id: null }]) {
    assert.throws(() => s.use(bad as unknown as Extension), {
      name: 'TypeError',
      message: 'an extension needs a non-empty string id',
    });
  }
});

test('server.use refuses a second extension with the same id, and installs neither twice', () => {
  const s = server();
  let attached = 0;
  s.use({ id: ID, settings: {}, attach: () => void attached++ });
  assert.throws(() => s.use({ id: ID, settings: {}, attach: () => void attached++ }), {
    name: 'TypeError',
    message: `extension '${ID}' is already installed`,
  });
  assert.equal(attached, 1);
});

test('server.use refuses a method another extension serves in the same era, naming that extension', () => {
  const s = server();
  s.use({ id: ID, settings: {}, modernMethods: { 'fake/a': WHOAMI }, legacyMethods: { 'fake/b': WHOAMI } });
  assert.throws(() => s.use({ id: OTHER, settings: {}, modernMethods: { 'fake/a': WHOAMI } }), {
    name: 'TypeError',
    message: `extension '${OTHER}': method 'fake/a' is already served by '${ID}'`,
  });
  assert.throws(() => s.use({ id: OTHER, settings: {}, legacyMethods: { 'fake/b': WHOAMI } }), {
    name: 'TypeError',
    message: `extension '${OTHER}': method 'fake/b' is already served by '${ID}'`,
  });
});

test('server.use refuses a method the core serves, in either era', () => {
  const s = server();
  for (const method of ['tools/call', 'server/discover', 'subscriptions/listen', 'initialize', 'ping']) {
    for (const era of ['modernMethods', 'legacyMethods'] as const) {
      assert.throws(() => s.use({ id: `${ID}-${method}-${era}`, settings: {}, [era]: { [method]: WHOAMI } }), {
        name: 'TypeError',
        message: `extension '${ID}-${method}-${era}': method '${method}' is already served`,
      });
    }
  }
});

test('server.use returns the server and attaches the extension once with publish, the logger and the page size', () => {
  const logger = new MemoryLogger();
  const s = createServer(INFO, { logger, pageSize: 7 });
  const hosts: ExtensionHost[] = [];
  assert.equal(s.use({ id: ID, settings: {}, attach: (host) => void hosts.push(host) }), s);
  assert.equal(hosts.length, 1);
  assert.equal(typeof hosts[0]!.publish, 'function');
  assert.equal(hosts[0]!.logger, logger);
  assert.equal(hosts[0]!.pageSize, 7);
});

test(
  'checkTool refuses a tool at registration and update, and its extension at use() for a tool already registered',
  T,
  async (t) => {
    const s = server();
    const checked: string[] = [];
    const strict: Extension = {
      id: ID,
      settings: {},
      attach: () => void checked.push('attached'),
      checkTool: (name, definition) => {
        checked.push(name);
        if (definition.description === 'bad') throw new TypeError(`tool '${name}': description 'bad' is refused`);
      },
    };
    const early = s.tool('early', { description: 'bad' }, () => text('early')); // no extension checks it yet
    assert.throws(() => s.use(strict), { name: 'TypeError', message: "tool 'early': description 'bad' is refused" });
    early.remove();
    s.tool('both', {}, () => text('both'));
    s.tool('legacy_only', { era: 'legacy' }, () => text('legacy'));
    assert.equal(s.use(strict), s, 'refused whole before: installed (and attached) only now');
    assert.deepEqual(checked, ['early', 'both', 'legacy_only', 'attached'], 'each tool checked once, then attached');
    const kept = s.tool('kept', { description: 'good' }, () => text('kept'));
    assert.throws(() => s.tool('late', { description: 'bad' }, () => text('late')), {
      name: 'TypeError',
      message: "tool 'late': description 'bad' is refused",
    });
    assert.throws(() => kept.update({ description: 'bad' }), { message: "tool 'kept': description 'bad' is refused" });
    const client = connect(t, s);
    await client.initialize(LATEST);
    const { tools } = (await client.request('tools/list', {})).result;
    assert.deepEqual(
      tools.map((tool: { name: string; description?: string }) => [tool.name, tool.description]),
      [
        ['both', undefined],
        ['legacy_only', undefined],
        ['kept', 'good'],
      ],
      'the refused tool is not registered; the refused update left the tool as it was',
    );
  },
);

test(
  'server.unuse uninstalls an extension: its declaration and methods go, and it may be installed again',
  T,
  async (t) => {
    const s = server();
    const fake: Extension = { id: ID, settings: {}, modernMethods: { 'fake/whoami': WHOAMI } };
    s.unuse(fake); // not installed: a no-op
    s.use(fake);
    const client = connect(t, s);
    client.send(modern('server/discover', {}, 1));
    assert.deepEqual((await client.next()).result.capabilities.extensions, { [ID]: {} });
    s.unuse(fake);
    client.send(modern('server/discover', {}, 2));
    assert.equal((await client.next()).result.capabilities.extensions, undefined);
    client.send(modern('fake/whoami', {}, 3, declaring()));
    assert.equal((await client.next()).error.code, -32601, 'its method is no longer served');
    assert.equal(s.use(fake), s, 'the id and methods are free again');
    client.send(modern('server/discover', {}, 4));
    assert.deepEqual((await client.next()).result.capabilities.extensions, { [ID]: {} });
  },
);

// ---------------------------------------------------------------------------------------------------------------
// 2026-07-28 extension methods

test(
  'a modern extension method is served with the request context, its answer stamped complete with serverInfo',
  T,
  async (t) => {
    const s = server();
    s.use({ id: ID, settings: {}, modernMethods: { 'fake/whoami': WHOAMI } });
    const client = connect(t, s);
    const capabilities = { extensions: { [ID]: { level: 2 } }, elicitation: {} };
    client.send(modern('fake/whoami', { x: 1 }, 1, { [CLIENT_CAPABILITIES]: capabilities }));
    const answer = await client.next();
    assert.match(answer.result.caller, /^connection:/);
    assert.deepEqual(answer, {
      jsonrpc: '2.0',
      id: 1,
      result: stamped({
        params: { x: 1 },
        era: 'modern',
        protocolVersion: MODERN,
        clientCapabilities: capabilities,
        caller: answer.result.caller,
      }),
    });
  },
);

test(
  'a modern extension method from a client not declaring the extension is refused -32021 before it runs',
  T,
  async (t) => {
    const s = server();
    let served = 0;
    s.use({ id: ID, settings: {}, modernMethods: { 'fake/m': { serve: () => ({ n: ++served }) } } });
    const client = connect(t, s);
    const refusal = (id: Id) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32021,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { extensions: { [ID]: {} } } },
      },
    });
    client.send(modern('fake/m', {}, 1));
    assert.deepEqual(await client.next(), refusal(1));
    // Declaring another extension, or this one as a non-object, is not declaring it.
    client.send(modern('fake/m', {}, 2, declaring({}, OTHER)));
    assert.deepEqual(await client.next(), refusal(2));
    client.send(modern('fake/m', {}, 3, { [CLIENT_CAPABILITIES]: { extensions: { [ID]: true } } }));
    assert.deepEqual(await client.next(), refusal(3));
    assert.equal(served, 0);
    client.send(modern('fake/m', {}, 4, declaring()));
    assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 4, result: stamped({ n: 1 }) });
  },
);

test('a modern extension method may name its own resultType; a promise is awaited', T, async (t) => {
  const s = server();
  s.use({
    id: ID,
    settings: {},
    modernMethods: { 'fake/later': { serve: async () => ({ resultType: 'fake', v: true }) } },
  });
  const client = connect(t, s);
  client.send(modern('fake/later', {}, 1, declaring()));
  assert.deepEqual(await client.next(), {
    jsonrpc: '2.0',
    id: 1,
    result: { resultType: 'fake', v: true, _meta: { [SERVER_INFO]: INFO } },
  });
});

test(
  'with extensions installed an unknown method, or a legacy-only extension method, is still -32601',
  T,
  async (t) => {
    const s = server();
    s.use({ id: ID, settings: {}, modernMethods: { 'fake/m': WHOAMI }, legacyMethods: { 'fake/old': WHOAMI } });
    const client = connect(t, s);
    for (const [id, method] of [
      [1, 'fake/nope'],
      [2, 'fake/old'],
    ] as const) {
      client.send(modern(method, {}, id, declaring()));
      const answer = await client.next();
      assert.equal(answer.id, id);
      assert.equal(answer.error.code, -32601, JSON.stringify(answer));
    }
  },
);

test(
  'a ProtocolError an extension method throws or rejects with reaches the wire as is; another error is -32603',
  T,
  async (t) => {
    const s = server();
    s.use({
      id: ID,
      settings: {},
      modernMethods: {
        'fake/throw': {
          serve: () => {
            throw new ProtocolError(-32602, 'params.key must be a string', { field: 'key' });
          },
        },
        'fake/reject': { serve: () => Promise.reject(new ProtocolError(-32001, 'Not yours')) },
        'fake/bug': {
          serve: () => {
            throw new Error('secret detail');
          },
        },
      },
    });
    const client = connect(t, s);
    client.send(modern('fake/throw', {}, 1, declaring()));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'params.key must be a string', data: { field: 'key' } },
    });
    client.send(modern('fake/reject', {}, 2, declaring()));
    assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'Not yours' } });
    client.send(modern('fake/bug', {}, 3, declaring()));
    const bug = await client.next();
    assert.equal(bug.id, 3);
    assert.equal(bug.error.code, -32603);
    assert.doesNotMatch(JSON.stringify(bug), /secret detail/);
  },
);

test('server/discover lists each extension under capabilities.extensions with its settings', T, async (t) => {
  const bare = connect(t, server());
  bare.send(modern('server/discover', {}, 1));
  assert.equal((await bare.next()).result.capabilities.extensions, undefined);

  const s = server();
  s.use({ id: ID, settings: { flavour: 'fake', depth: 2 } });
  s.use({ id: OTHER, settings: {} });
  const client = connect(t, s);
  client.send(modern('server/discover', {}, 2));
  const answer = await client.next();
  assert.deepEqual(answer.result.capabilities.extensions, { [ID]: { flavour: 'fake', depth: 2 }, [OTHER]: {} });
});

// ---------------------------------------------------------------------------------------------------------------
// 2025 methods, capabilities and listed tools

/** An extension whose 2025 surface exists at 2025-11-25 only. */
function legacyFake(): Extension {
  return {
    id: ID,
    settings: {},
    legacyMethods: { 'fake/whoami': WHOAMI },
    legacyCapabilities: (version) => (version === LATEST ? { fake: { deep: {} } } : undefined),
    listedTool: (tool, version) => ({ fakeMark: `${String(tool.title)}@${version}` }),
  };
}

test('a legacy extension method is served only at the versions where legacyCapabilities answers', T, async (t) => {
  const s = server();
  s.use(legacyFake());
  const latest = connect(t, s);
  await latest.initialize(LATEST, { sampling: {} });
  const answer = await latest.request('fake/whoami', { y: 2 });
  assert.match(answer.result.caller, /^connection:/);
  assert.deepEqual(answer.result, {
    params: { y: 2 },
    era: 'legacy',
    protocolVersion: LATEST,
    clientCapabilities: { sampling: {} },
    caller: answer.result.caller,
  });
  for (const version of ['2025-06-18', '2025-03-26', '2024-11-05']) {
    const older = connect(t, s);
    await older.initialize(version);
    const refused = await older.request('fake/whoami', {});
    assert.equal(refused.error?.code, -32601, `${version}: ${JSON.stringify(refused)}`);
  }
});

test('legacyCapabilities are merged into the initialize result at their version only', T, async (t) => {
  const s = server();
  s.tool('t', {}, () => text('t'));
  s.use(legacyFake());
  const latest = connect(t, s);
  const result = await latest.initialize(LATEST);
  assert.deepEqual(result.capabilities.fake, { deep: {} });
  assert.ok(result.capabilities.tools !== undefined, 'the core capabilities stay');
  const older = connect(t, s);
  const old = await older.initialize('2025-06-18');
  assert.equal(old.capabilities.fake, undefined);
  assert.ok(old.capabilities.tools !== undefined);
});

test('listedTool fields are merged into 2025 tools/list entries, never into 2026-07-28 ones', T, async (t) => {
  const s = server();
  s.tool('t', { title: 'Tee' }, () => text('t'));
  s.use(legacyFake());
  const legacy = connect(t, s);
  await legacy.initialize('2025-06-18');
  const listed = await legacy.request('tools/list', {});
  assert.equal(listed.result.tools.length, 1);
  assert.equal(listed.result.tools[0].fakeMark, 'Tee@2025-06-18');
  const current = connect(t, s);
  current.send(modern('tools/list', {}, 1, declaring()));
  const answer = await current.next();
  assert.equal(answer.result.tools.length, 1);
  assert.equal(answer.result.tools[0].name, 't');
  assert.equal('fakeMark' in answer.result.tools[0], false);
});

// ---------------------------------------------------------------------------------------------------------------
// The tools/call hook

/** A server with tool `n` (arguments {n: number}) counting its runs, and an extension with `callTool`. */
function hooked(callTool: Extension['callTool']): { s: Server; runs: { count: number } } {
  const s = server();
  const runs = { count: 0 };
  s.tool(
    'n',
    {
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      taskSupport: 'optional',
    },
    (args: Record<string, unknown>) => {
      runs.count++;
      return text(`n=${String(args.n)}`);
    },
  );
  s.use({ id: ID, settings: {}, callTool });
  return { s, runs };
}

test('the callTool hook can take a call over: its answer goes out and the tool never runs', T, async (t) => {
  const calls: ToolCall[] = [];
  const { s, runs } = hooked((call) => {
    calls.push(call);
    return Promise.resolve({ content: [{ type: 'text', text: `hooked ${call.tool.name}` }], extra: 1 });
  });
  const legacy = connect(t, s);
  await legacy.initialize(LATEST);
  assert.deepEqual(await legacy.request('tools/call', { name: 'n', arguments: { n: 1 } }, 5), {
    jsonrpc: '2.0',
    id: 5,
    result: { content: [{ type: 'text', text: 'hooked n' }], extra: 1 },
  });
  const current = connect(t, s);
  current.send(modern('tools/call', { name: 'n', arguments: { n: 'not checked' } }, 6));
  assert.deepEqual(await current.next(), {
    jsonrpc: '2.0',
    id: 6,
    result: stamped({ content: [{ type: 'text', text: 'hooked n' }], extra: 1 }),
  });
  assert.equal(runs.count, 0);
  assert.equal(calls[0]!.tool.name, 'n');
  assert.equal(calls[0]!.tool.definition.taskSupport, 'optional');
  assert.deepEqual(calls[0]!.params, { name: 'n', arguments: { n: 1 } });
  assert.equal(calls[0]!.ctx.era, 'legacy');
  assert.equal(calls[1]!.ctx.era, 'modern');
  assert.match(calls[1]!.ctx.caller, /^connection:/);
});

test('the callTool hook answering undefined leaves the call to the tool', T, async (t) => {
  let asked = 0;
  const { s, runs } = hooked(() => {
    asked++;
    return undefined;
  });
  const client = connect(t, s);
  client.send(modern('tools/call', { name: 'n', arguments: { n: 3 } }, 1));
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 1, result: stamped(text('n=3')) });
  assert.deepEqual([asked, runs.count], [1, 1]);
});

test(
  'ToolCall.run validates the arguments, runs the handler with the given context and shapes its result',
  T,
  async (t) => {
    const ran: unknown[] = [];
    const { s, runs } = hooked(async (call) => {
      const result = await call.run(call.ctx);
      ran.push(result);
      return { content: [{ type: 'text', text: 'wrapped' }], inner: result };
    });
    const client = connect(t, s);
    client.send(modern('tools/call', { name: 'n', arguments: { n: 'two' } }, 1));
    const refused = await client.next();
    assert.equal(runs.count, 0, 'invalid arguments never reach the handler');
    assert.equal(refused.result.inner.isError, true);
    assert.match(refused.result.inner.content[0].text, /^Invalid arguments for tool 'n'/);
    client.send(modern('tools/call', { name: 'n', arguments: { n: 2 } }, 2));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 2,
      result: stamped({ content: [{ type: 'text', text: 'wrapped' }], inner: text('n=2') }),
    });
    assert.equal(runs.count, 1);
    assert.equal(ran.length, 2);
  },
);

test('the core still checks the tool and its arguments object before the hook is asked', T, async (t) => {
  let asked = 0;
  const { s } = hooked(() => {
    asked++;
    return undefined;
  });
  const client = connect(t, s);
  client.send(modern('tools/call', { name: 'missing' }, 1));
  assert.equal((await client.next()).error.code, -32602);
  client.send(modern('tools/call', { name: 'n', arguments: [] }, 2));
  assert.equal((await client.next()).error.code, -32602);
  assert.equal(asked, 0);
});

for (const era of ['legacy', 'modern'] as const) {
  test(
    `ToolCall.detach (${era}): the handler sees the given signal and task, and its elicit goes to options.input`,
    T,
    async (t) => {
      const controller = new AbortController();
      const task: TaskHandle = { taskId: 'task-1', setStatusMessage: async () => {}, setTtl: async () => {} };
      const inputs: InputRequest[] = [];
      const s = server();
      const seen: { signal?: boolean; task?: string; plainTask?: unknown } = {};
      s.tool('ask', {}, async (_args, ctx) => {
        seen.signal = ctx.signal === controller.signal;
        seen.task = ctx.task?.taskId;
        const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
        return text(JSON.stringify(answer));
      });
      s.use({
        id: ID,
        settings: {},
        callTool: (call) => {
          seen.plainTask = call.ctx.task;
          const ctx = call.detach({
            signal: controller.signal,
            task,
            input: async (request) => {
              inputs.push(request);
              return { action: 'accept', content: { name: 'Ada' } };
            },
          });
          return call.run(ctx);
        },
      });
      const client = connect(t, s);
      let answer: Frame;
      if (era === 'legacy') {
        await client.initialize(LATEST, { elicitation: {} });
        answer = await client.request('tools/call', { name: 'ask', arguments: {} }, 1);
      } else {
        client.send(
          modern('tools/call', { name: 'ask', arguments: {} }, 1, { [CLIENT_CAPABILITIES]: { elicitation: {} } }),
        );
        answer = await client.next();
      }
      assert.deepEqual(answer.result.content, [{ type: 'text', text: '{"action":"accept","content":{"name":"Ada"}}' }]);
      assert.deepEqual(seen, { signal: true, task: 'task-1', plainTask: undefined });
      assert.deepEqual(inputs, [
        {
          method: 'elicitation/create',
          params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        },
      ]);
      assert.equal(
        client.frames.some((frame) => frame.method === 'elicitation/create'),
        false,
        'nothing asked on the wire',
      );
    },
  );
}

test(
  'ToolCall.notify sends a notification on a 2025 connection only after the call was answered, related to no request',
  T,
  async (t) => {
    const later = deferred<ToolCall>();
    const { s } = hooked((call) => {
      call.notify('notifications/fake/before', { n: 1 });
      later.resolve(call);
      return Promise.resolve(text('answered'));
    });
    const client = connect(t, s);
    await client.initialize(LATEST);
    client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'n', arguments: { n: 1 } } });
    // Made while the call ran, held until its answer went out (the answer carries what it is about).
    assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 1, result: text('answered') });
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      method: 'notifications/fake/before',
      params: { n: 1 },
    });
    (await later.promise).notify('notifications/fake/after', { n: 2 });
    assert.deepEqual(await client.next(), { jsonrpc: '2.0', method: 'notifications/fake/after', params: { n: 2 } });
  },
);

test('ToolCall.notify is a no-op for a 2026-07-28 request', T, async (t) => {
  const { s } = hooked((call) => {
    call.notify('notifications/fake/before', { n: 1 });
    return Promise.resolve(text('answered'));
  });
  const client = connect(t, s);
  client.send(modern('tools/call', { name: 'n', arguments: { n: 1 } }, 1));
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 1, result: stamped(text('answered')) });
  await assertNothingMore(client);
});

// ---------------------------------------------------------------------------------------------------------------
// Keyed listen filters

/** An extension with listen key `items` whose host is kept, so the test publishes through it. */
function keyedServer(): { s: Server; host: () => ExtensionHost } {
  const s = server();
  let host: ExtensionHost | undefined;
  s.use({
    id: ID,
    settings: {},
    listenKey: 'items',
    modernMethods: { 'fake/whoami': WHOAMI },
    attach: (given) => {
      host = given;
    },
  });
  return { s, host: () => host! };
}

function listenFrame(id: Id, notifications: unknown, meta: object = declaring()): Frame {
  return modern('subscriptions/listen', { notifications }, id, meta);
}

function ack(id: Id, notifications: object): Frame {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications },
  };
}

function keyed(id: Id, params: object): Frame {
  return { jsonrpc: '2.0', method: 'notifications/fake/item', params: { ...params, _meta: { [SUBSCRIPTION_ID]: id } } };
}

async function callerOf(client: WireClient, id: Id): Promise<string> {
  client.send(modern('fake/whoami', {}, id, declaring()));
  return (await client.next()).result.caller;
}

test('a declaring client listening under the listen key is acknowledged with its ids (deduplicated)', T, async (t) => {
  const { s } = keyedServer();
  const client = connect(t, s);
  client.send(listenFrame('L', { items: ['a', 'b', 'a'], toolsListChanged: true }));
  assert.deepEqual(await client.next(), ack('L', { items: ['a', 'b'] }));
});

test('a KeyedEvent reaches only the streams that asked for its id under its key', T, async (t) => {
  const { s, host } = keyedServer();
  const first = connect(t, s);
  const second = connect(t, s);
  first.send(listenFrame('L1', { items: ['a'] }));
  assert.deepEqual(await first.next(), ack('L1', { items: ['a'] }));
  second.send(listenFrame('L2', { items: ['b'] }));
  assert.deepEqual(await second.next(), ack('L2', { items: ['b'] }));
  const publish = (key: string, id: string, n: number) =>
    host().publish({ type: 'keyed', key, id, method: 'notifications/fake/item', params: { n } });
  publish('items', 'a', 1);
  publish('other', 'b', 2); // another key: nobody asked
  publish('items', 'b', 3);
  publish('items', 'c', 4); // nobody asked for c
  assert.deepEqual(await first.next(), keyed('L1', { n: 1 }));
  assert.deepEqual(await second.next(), keyed('L2', { n: 3 }));
  await assertNothingMore(first);
  await assertNothingMore(second);
});

test(
  'a KeyedEvent with an audience reaches only the streams of that caller; 2025 connections get none',
  T,
  async (t) => {
    const { s, host } = keyedServer();
    const mine = connect(t, s);
    const theirs = connect(t, s);
    const legacy = connect(t, s);
    await legacy.initialize(LATEST);
    const me = await callerOf(mine, 'w');
    mine.send(listenFrame('L1', { items: ['a'] }));
    assert.deepEqual(await mine.next(), ack('L1', { items: ['a'] }));
    theirs.send(listenFrame('L2', { items: ['a'] }));
    assert.deepEqual(await theirs.next(), ack('L2', { items: ['a'] }));
    host().publish({
      type: 'keyed',
      key: 'items',
      id: 'a',
      audience: me,
      method: 'notifications/fake/item',
      params: { n: 1 },
    });
    host().publish({ type: 'keyed', key: 'items', id: 'a', method: 'notifications/fake/item', params: { n: 2 } });
    assert.deepEqual(await mine.next(), keyed('L1', { n: 1 }));
    assert.deepEqual(await mine.next(), keyed('L1', { n: 2 }));
    assert.deepEqual(await theirs.next(), keyed('L2', { n: 2 }));
    await assertNothingMore(theirs);
    // Publishing is synchronous: anything meant for the 2025 connection would come before this answer.
    assert.deepEqual((await legacy.request('ping')).result, {});
    assert.deepEqual(legacy.unread(), []);
  },
);

test(
  'a client not declaring the extension is refused -32021 for asking its listen key, and needs none without it',
  T,
  async (t) => {
    const { s } = keyedServer();
    const client = connect(t, s);
    client.send(listenFrame('L', { items: ['a'] }, {}));
    assert.deepEqual(await client.next(), {
      jsonrpc: '2.0',
      id: 'L',
      error: {
        code: -32021,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { extensions: { [ID]: {} } } },
      },
    });
    // Not asking for the key needs no declaration.
    client.send(listenFrame('M', { toolsListChanged: true }, {}));
    assert.deepEqual(await client.next(), ack('M', {}));
  },
);

test(
  'a listen key holding anything but an array of strings is -32602 naming params.notifications.<key>',
  T,
  async (t) => {
    const { s } = keyedServer();
    const client = connect(t, s);
    for (const [id, value] of [
      [1, 'a'],
      [2, { a: true }],
      [3, [1]],
      [4, null],
    ] as const) {
      client.send(listenFrame(id, { items: value }));
      const answer = await client.next();
      assert.equal(answer.id, id);
      assert.equal(answer.error.code, -32602, JSON.stringify(answer));
      assert.match(answer.error.message, /params\.notifications\.items must be an array/);
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------
// Mcp-Name routing

test('server.transport.routingParam names the param of core methods and of an extension method with routeBy', () => {
  const s = server();
  s.use({
    id: ID,
    settings: {},
    modernMethods: { 'fake/get': { routeBy: 'key', serve: () => ({}) }, 'fake/plain': { serve: () => ({}) } },
  });
  assert.equal(s.transport.routingParam('tools/call'), 'name');
  assert.equal(s.transport.routingParam('prompts/get'), 'name');
  assert.equal(s.transport.routingParam('resources/read'), 'uri');
  for (const method of ['tools/list', 'server/discover', 'subscriptions/listen', 'fake/plain', 'fake/none'])
    assert.equal(s.transport.routingParam(method), undefined, method);
  assert.equal(s.transport.routingParam('fake/get'), 'key');
});

/** serveHttp on 127.0.0.1 port 0, closed after the test. */
async function http(t: TestContext, s: Server, options: Parameters<typeof serveHttp>[1] = {}): Promise<HttpServer> {
  const served = await serveHttp(s, { port: 0, keepAliveMs: 0, ...options });
  t.after(() => served.close());
  return served;
}

test(
  'over HTTP a modern request to an extension method with routeBy needs a matching Mcp-Name (-32020)',
  T,
  async (t) => {
    const s = server();
    let served = 0;
    s.use({
      id: ID,
      settings: {},
      modernMethods: { 'fake/get': { routeBy: 'key', serve: (params) => ({ key: params.key, n: ++served }) } },
    });
    const endpoint = await http(t, s);
    const frame = modern('fake/get', { key: 'k é' }, 1, declaring());
    const body = JSON.stringify(frame);
    for (const name of [undefined, 'other']) {
      const headers = modernHeaders(frame, name === undefined ? {} : { 'mcp-name': name });
      const refused = await raw(endpoint.url, { headers, body });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.id, 1);
      assert.equal(refused.json.error.code, -32020, refused.text);
    }
    assert.equal(served, 0);
    const answered = await raw(endpoint.url, {
      headers: modernHeaders(frame, { 'mcp-name': encodeHeaderValue('k é') }),
      body,
    });
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(answered.json, { jsonrpc: '2.0', id: 1, result: stamped({ key: 'k é', n: 1 }) });
  },
);

// ---------------------------------------------------------------------------------------------------------------
// The caller

test('each stdio-like connection is its own caller, stable across its requests', T, async (t) => {
  const { s } = keyedServer();
  const first = connect(t, s);
  const second = connect(t, s);
  const a1 = await callerOf(first, 1);
  const a2 = await callerOf(first, 2);
  const b = await callerOf(second, 1);
  assert.match(a1, /^connection:[A-Za-z0-9_-]{16,}$/);
  assert.match(b, /^connection:[A-Za-z0-9_-]{16,}$/);
  assert.equal(a1, a2);
  assert.notEqual(a1, b);
});

/** A 2025 HTTP session: initialize and notifications/initialized; its id and the headers its requests carry. */
async function session(url: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  const init = await raw(url, {
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }),
  });
  assert.equal(init.status, 200, init.text);
  const id = init.headers['mcp-session-id'];
  assert.equal(typeof id, 'string');
  const headers = { ...base, 'mcp-session-id': id as string, 'mcp-protocol-version': LATEST };
  const initialized = await raw(url, {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(initialized.status, 202);
  return headers;
}

test('over HTTP a 2025 session speaks for session:<id>, a sessionless 2026-07-28 request for no one', T, async (t) => {
  const s = server();
  s.use({ ...legacyFake(), modernMethods: { 'fake/whoami': WHOAMI } });
  const endpoint = await http(t, s);
  const headers = await session(endpoint.url);
  const legacy = await raw(endpoint.url, {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'fake/whoami', params: {} }),
  });
  assert.equal(legacy.status, 200, legacy.text);
  assert.equal(legacy.json.result.caller, `session:${headers['mcp-session-id']}`);
  const frame = modern('fake/whoami', {}, 2, declaring());
  const current = await raw(endpoint.url, { headers: modernHeaders(frame), body: JSON.stringify(frame) });
  assert.equal(current.status, 200, current.text);
  assert.equal(current.json.result.caller, '');
});

test('a request with a verified identity speaks for its principal, in both eras over HTTP', T, async (t) => {
  const s = server();
  s.use({ ...legacyFake(), modernMethods: { 'fake/whoami': WHOAMI } });
  const tokens: Record<string, AuthInfo> = {
    alice: { subject: 'alice', clientId: 'client-1', issuer: 'https://as.example.com', scopes: [] },
    bob: { subject: 'bob', scopes: [] },
  };
  const endpoint = await http(t, s, {
    auth: {
      resourceMetadata: { resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://as.example.com'] },
      verifyToken: (token) => tokens[token],
    },
  });
  const frame = modern('fake/whoami', {}, 1, declaring());
  const current = await raw(endpoint.url, {
    headers: modernHeaders(frame, { authorization: 'Bearer alice' }),
    body: JSON.stringify(frame),
  });
  assert.equal(current.status, 200, current.text);
  assert.equal(current.json.result.caller, '["https://as.example.com","alice","client-1"]');
  const headers = await session(endpoint.url, { authorization: 'Bearer bob' });
  const legacy = await raw(endpoint.url, {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'fake/whoami', params: {} }),
  });
  assert.equal(legacy.status, 200, legacy.text);
  assert.equal(legacy.json.result.caller, '[null,"bob",null]');
});

test('over HTTP ToolCall.notify goes to the 2025 session GET stream, not to the call it was made in', T, async (t) => {
  const { s } = hooked((call) => {
    call.notify('notifications/fake/status', { n: 1 });
    return Promise.resolve(text('answered'));
  });
  const endpoint = await http(t, s);
  const headers = await session(endpoint.url);
  const get = await fetch(endpoint.url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': headers['mcp-session-id']!,
      'mcp-protocol-version': LATEST,
    },
  });
  const stream = new SseReader(get);
  t.after(() => stream.cancel());
  const call = await fetch(endpoint.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'n', arguments: { n: 1 } } }),
  });
  const answer =
    call.headers.get('content-type') === 'application/json'
      ? [await call.json()]
      : (await new SseReader(call).rest()).map((event) => event.message);
  assert.deepEqual(answer, [{ jsonrpc: '2.0', id: 1, result: text('answered') }]);
  assert.deepEqual(await stream.message(), { jsonrpc: '2.0', method: 'notifications/fake/status', params: { n: 1 } });
});

// ---------------------------------------------------------------------------------------------------------------
// server.close

test('server.close() calls every extension close() and settles only once all of them have', async () => {
  const s = server();
  const first = deferred();
  const second = deferred();
  const closing: string[] = [];
  s.use({
    id: ID,
    settings: {},
    close: () => {
      closing.push(ID);
      return first.promise;
    },
  });
  s.use({
    id: OTHER,
    settings: {},
    close: () => {
      closing.push(OTHER);
      return second.promise;
    },
  });
  s.use({ id: 'com.example/none', settings: {} }); // no close: nothing to await
  let settled = false;
  const closed = s.close().then(() => {
    settled = true;
  });
  assert.deepEqual(closing, [ID, OTHER]);
  first.resolve();
  await first.promise;
  await new Promise((resolve) => setImmediate(resolve)); // every pending reaction has run
  assert.equal(settled, false, 'still waiting for the second extension');
  second.resolve();
  await closed;
  assert.equal(settled, true);
});

test(
  'a 2025 extension method before initialize is refused like the core methods: -32600 not initialized',
  T,
  async (t) => {
    const s = server();
    s.use(legacyFake());
    const client = connect(t, s);
    client.send({ jsonrpc: '2.0', id: 1, method: 'fake/whoami', params: {} });
    assert.deepEqual(await client.response(1), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32600, message: 'Invalid Request: server not initialized; send initialize first' },
    });
    client.send({ jsonrpc: '2.0', id: 2, method: 'fake/unknown', params: {} });
    assert.equal((await client.response(2)).error.code, -32601, 'a method nobody serves is still -32601');
  },
);

test(
  'ExtensionContext.sendInput is a real server→client request on 2025 and refused at once on 2026-07-28',
  T,
  async (t) => {
    const s = server();
    const ask: ExtensionMethod = {
      serve: async (_params, ctx) => {
        try {
          return { answer: await ctx.sendInput({ method: 'roots/list', params: { _meta: { mark: 1 } } }) };
        } catch (error) {
          return { refused: (error as Error).message };
        }
      },
    };
    s.use({
      id: ID,
      settings: {},
      modernMethods: { 'fake/ask': ask },
      legacyMethods: { 'fake/ask': ask },
      legacyCapabilities: () => ({}),
    });
    const legacy = connect(t, s);
    await legacy.initialize(LATEST, { roots: {} });
    legacy.send({ jsonrpc: '2.0', id: 1, method: 'fake/ask', params: {} });
    const asked = await legacy.next();
    assert.deepEqual(
      { method: asked.method, params: asked.params },
      { method: 'roots/list', params: { _meta: { mark: 1 } } },
    );
    legacy.send({ jsonrpc: '2.0', id: asked.id, result: { roots: [] } });
    assert.deepEqual(await legacy.response(1), { jsonrpc: '2.0', id: 1, result: { answer: { roots: [] } } });
    const current = connect(t, s);
    current.send(modern('fake/ask', {}, 2, declaring({ roots: {} })));
    const refused = (await current.response(2)).result.refused as string;
    assert.match(refused, /no back-channel/);
  },
);

test('ToolCall.notify made during a call that ends unanswered is dropped, and at most 16 are held', T, async (t) => {
  const cancelled = deferred<void>();
  const { s } = hooked((call) => {
    for (let n = 0; n < 20; n++) call.notify('notifications/fake/held', { n });
    if (call.params.arguments && (call.params.arguments as { n: number }).n === 0)
      return new Promise((_resolve, reject) =>
        call.ctx.signal.addEventListener('abort', () => {
          cancelled.resolve();
          reject(call.ctx.signal.reason);
        }),
      );
    return Promise.resolve(text('answered'));
  });
  const client = connect(t, s);
  await client.initialize(LATEST);
  client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'n', arguments: { n: 0 } } });
  client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
  await cancelled.promise;
  client.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'n', arguments: { n: 1 } } });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 2, result: text('answered') });
  for (let n = 4; n < 20; n++)
    assert.deepEqual(await client.next(), { jsonrpc: '2.0', method: 'notifications/fake/held', params: { n } });
  client.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  assert.deepEqual(await client.next(), { jsonrpc: '2.0', id: 3, result: {} }, 'nothing of the cancelled call');
});
