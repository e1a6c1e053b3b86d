// Resources that change. notifyResourceUpdated(uri) reaches 2025 clients that sent resources/subscribe and
// 2026-07-28 clients whose subscriptions/listen stream names the uri; a list change (a resource registered at run
// time, or notifyListChanged('resources')) reaches every 2025 client and the listen streams that asked for
// resourcesListChanged. Run over stdio: node examples/subscriptions.ts
import { pathToFileURL } from 'node:url';
import { createServer, type Server } from '../core.ts';
import { serveStdio } from '../stdio.ts';

/** A counter resource and a `tick` tool that bumps it; `add_note` registers a new resource (a list change). */
export function createSubscriptionServer(): Server {
  const server = createServer({ name: 'subscriptions-example', version: '1.0.0' });
  let count = 0;
  server.resource('counter://value', { name: 'counter', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: String(count) }],
  }));
  server.tool(
    'tick',
    { description: 'Increments the counter', inputSchema: { type: 'object', properties: {} } },
    () => {
      count += 1;
      server.notifyResourceUpdated('counter://value');
      return { content: [{ type: 'text', text: String(count) }] };
    },
  );
  let notes = 0;
  server.tool(
    'add_note',
    { description: 'Adds a note resource', inputSchema: { type: 'object', properties: {} } },
    () => {
      const uri = `note://${++notes}`;
      const text = `note ${notes}`;
      // Registering (or removing, updating) after clients connected sends the list change on its own; call
      // server.notifyListChanged('resources') yourself only for changes the registry cannot see.
      server.resource(uri, { name: text }, () => ({ contents: [{ uri, text }] }));
      return { content: [{ type: 'text', text: uri }] };
    },
  );
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) serveStdio(createSubscriptionServer());
