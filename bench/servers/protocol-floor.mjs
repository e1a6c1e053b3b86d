// The protocol floor: the raw floor (floor.mjs) plus only the checks and answer fields the protocol asks of a server
// on a valid tools/call's path, for one known tool, written by hand with nothing general; it answers initialize and
// tools/call only. Both eras: the JSON-RPC request shape and the echo tool's arguments; in 2026-07-28 the `_meta`
// envelope, in 2025 the initialize handshake (its version negotiated, no call served before it); on stdio the first
// request decides the era. Over HTTP the Host, Origin, Content-Type, Accept and MCP-Protocol-Version checks, then the
// Mcp-Method/Mcp-Name mirrors (2026-07-28) or, in 2025, a session as mcp-core keeps one by default (sessions are the
// server's choice in 2025: its id issued at initialize, then required, known and of the negotiated version). Its
// answers' bodies are mcp-core's byte for byte (not their HTTP headers); the frames its tests name it refuses with
// mcp-core's codes and statuses, more plainly (no error data, and over HTTP a refused 2026-07-28 frame is answered
// 200). Set beside the raw floor, it shows what the protocol itself costs a call; the rest of a gap is the server's
// own work (bench/README.md, The protocol floor). Run: node protocol-floor.mjs stdio | … http

import { createRequire } from 'node:module';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO = { name: 'bench', version: '1.0.0' };
const STAMP = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
const CAPABILITIES = { logging: {}, tools: { listChanged: true } };
/** The 2025 revisions, oldest first: an initialize asking for another is answered with the newest. */
const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const BAD_ARGUMENTS = "Invalid arguments for tool 'echo': arguments.text must be string";
// Arguments its input schema refuses are a tool execution error, a result (Server Features > Tools > Error Handling).
const BAD_CONTENT = [{ type: 'text', text: BAD_ARGUMENTS }];
const LOCAL_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

const JSON_TYPE = { 'content-type': 'application/json' };
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const failure = (id, code, message) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
const success = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });

/** One frame's request (its `params` an object), or its refusal as the answer's text; undefined for a notification. */
function read(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return failure(null, -32700, 'Parse error');
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string')
    return failure(null, -32600, 'Invalid Request');
  const { id } = message;
  if (id === undefined) return undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return failure(null, -32600, 'Invalid Request');
  if (message.params === undefined) message.params = {};
  else if (!isObject(message.params)) return failure(id, -32600, 'Invalid Request');
  return message;
}

/** Whether a request's params carry the 2026-07-28 envelope's version. */
const isModern = (params) => isObject(params._meta) && Object.hasOwn(params._meta, VERSION_KEY);

/** A 2026-07-28 request: its envelope, the mirrors (`headers`, over HTTP), then the call. */
function modern({ id, method, params }, headers) {
  if (params._meta[VERSION_KEY] !== '2026-07-28') return failure(id, -32022, 'Unsupported protocol version');
  if (!isObject(params._meta[CAPABILITIES_KEY])) return failure(id, -32602, 'client capabilities are required');
  if (headers !== undefined) {
    if (headers['mcp-method'] !== method) return failure(id, -32020, 'Mcp-Method differs from the body');
    if (method === 'tools/call' && headers['mcp-name'] !== params.name)
      return failure(id, -32020, 'Mcp-Name differs from the body');
  }
  if (method !== 'tools/call') return failure(id, -32601, 'Method not found');
  const refused = refusal(id, params);
  if (refused !== undefined) return refused;
  // Literals, never a spread of the result: on Node 20 that costs a hand-written server 6-8 % (bench/README.md, The
  // protocol floor).
  const { text } = params.arguments;
  return typeof text === 'string'
    ? success(id, { content: [{ type: 'text', text }], resultType: 'complete', _meta: STAMP })
    : success(id, { content: BAD_CONTENT, isError: true, resultType: 'complete', _meta: STAMP });
}

/** A 2025 request of a connection (`session.version` once initialized): initialize, else a call once initialized. */
function legacy({ id, method, params }, session) {
  if (method === 'initialize') {
    // A repeated initialize is answered with the handshake already made (as mcp-core does).
    if (session.version !== undefined) return initialized(id, session.version);
    const { protocolVersion, capabilities, clientInfo } = params;
    if (typeof protocolVersion !== 'string') return failure(id, -32602, 'protocolVersion must be a string');
    if (!isObject(capabilities)) return failure(id, -32602, 'capabilities must be an object');
    if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string')
      return failure(id, -32602, 'clientInfo must be {name, version}');
    session.version = LEGACY_VERSIONS.includes(protocolVersion) ? protocolVersion : LEGACY_VERSIONS.at(-1);
    return initialized(id, session.version);
  }
  if (session.version === undefined) return failure(id, -32600, 'server not initialized');
  if (method !== 'tools/call') return failure(id, -32601, 'Method not found');
  const refused = refusal(id, params);
  if (refused !== undefined) return refused;
  const { text } = params.arguments;
  if (typeof text === 'string') return success(id, { content: [{ type: 'text', text }] });
  // Arguments the input schema refuses: a tool execution error from 2025-11-25 on, -32602 before.
  if (session.version < '2025-11-25') return failure(id, -32602, BAD_ARGUMENTS);
  return success(id, { content: BAD_CONTENT, isError: true });
}

/** The initialize result for `version`. */
function initialized(id, version) {
  return success(id, { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: SERVER_INFO });
}

/** The answer's text refusing a call the echo tool cannot take (its name, its arguments' shape), else undefined. */
function refusal(id, params) {
  if (typeof params.name !== 'string') return failure(id, -32602, 'params.name must be a string');
  if (params.name !== 'echo') return failure(id, -32602, 'Unknown tool');
  if (params.arguments === undefined) params.arguments = {};
  else if (!isObject(params.arguments)) return failure(id, -32602, 'params.arguments must be an object');
  return undefined;
}

if (process.argv[2] === 'http') {
  // Taken with require, as floor.mjs takes it (its comment says why).
  const { createServer } = createRequire(import.meta.url)('node:http');
  /** The 2025 sessions by id, each `{ version }`. */
  const sessions = new Map();
  const server = createServer((req, res) => {
    const { headers } = req;
    if (!LOCAL_HOST.test(headers.host ?? '') || (headers.origin !== undefined && !LOCAL_ORIGIN.test(headers.origin)))
      return void res.writeHead(403).end();
    if (!(headers['content-type'] ?? '').startsWith('application/json')) return void res.writeHead(415).end();
    if (!(headers.accept ?? '').includes('application/json')) return void res.writeHead(406).end();
    const version = headers['mcp-protocol-version'];
    if (version !== undefined && version !== '2026-07-28' && !LEGACY_VERSIONS.includes(version))
      return void res.writeHead(400).end();
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const request = read(Buffer.concat(chunks).toString());
      if (typeof request === 'string') return void res.writeHead(400, JSON_TYPE).end(request);
      if (request !== undefined && isModern(request.params)) {
        if (version !== '2026-07-28') return void res.writeHead(400).end();
        return void res.writeHead(200, JSON_TYPE).end(modern(request, headers));
      }
      if (request === undefined && version === '2026-07-28') return void res.writeHead(202).end(); // none defined
      const id = headers['mcp-session-id'];
      if (request?.method === 'initialize' && id === undefined) {
        const session = {};
        const body = legacy(request, session);
        if (session.version === undefined) return void res.writeHead(200, JSON_TYPE).end(body); // no session
        const created = crypto.randomUUID();
        sessions.set(created, session);
        return void res.writeHead(200, { ...JSON_TYPE, 'mcp-session-id': created }).end(body);
      }
      if (version === '2026-07-28') return void res.writeHead(400).end(); // a 2026-07-28 request without its envelope
      // A 2025 frame: its session, of the negotiated version.
      if (id === undefined) return void res.writeHead(400).end();
      const session = sessions.get(id);
      if (session === undefined) return void res.writeHead(404).end();
      if (version !== undefined && version !== session.version) return void res.writeHead(400).end();
      if (request === undefined) return void res.writeHead(202).end();
      res.writeHead(200, JSON_TYPE).end(legacy(request, session));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
} else {
  // One connection: its first request decides the era (a 2025 one's handshake sets `version`).
  const connection = { era: undefined, version: undefined };
  const route = (request) => {
    const claimed = isModern(request.params);
    connection.era ??= claimed ? 'modern' : 'legacy';
    if (claimed === (connection.era === 'modern')) return claimed ? modern(request) : legacy(request, connection);
    if (claimed) return failure(request.id, -32600, 'a 2025 connection');
    if (request.method === 'initialize') return failure(request.id, -32022, 'Unsupported protocol version');
    return failure(request.id, -32602, 'params._meta is required');
  };
  const { createInterface } = await import('node:readline');
  createInterface({ input: process.stdin }).on('line', (line) => {
    const request = read(line);
    if (request !== undefined) process.stdout.write(`${typeof request === 'string' ? request : route(request)}\n`);
  });
}
