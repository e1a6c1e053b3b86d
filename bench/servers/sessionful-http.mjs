// The 2025 session wiring both SDK contenders use on node:http, as their READMEs show: read the body, route by
// Mcp-Session-Id to the session's transport, or make a new transport and server for an initialize. `modern`, when
// given, serves requests carrying a 2026-07-28 envelope instead. Prints "listening <port>" on stdout.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString())));
  });
}

export function serveSessions(Transport, newServer, modern) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (modern !== undefined && body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined) {
      await modern(req, res, body);
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      transport = new Transport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.keepAliveTimeout = 60_000;
  http.listen(0, '127.0.0.1', () => console.log(`listening ${http.address().port}`));
}
