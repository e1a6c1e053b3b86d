// An MCP App (SEP-1865): a thermometer whose tool result a UI host renders in a sandboxed frame (view.html), and
// whose text content every other client shows. Run over stdio for a desktop host: node examples/apps/server.ts;
// node examples/apps/host.ts serves it to a browser page instead (docs/apps.md, The example).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { appResource, appTool } from '../../apps/apps.ts';
import { createServer, type Server } from '../../core.ts';
import { serveStdio } from '../../stdio.ts';

/** The app's `ui://` resource, which both tools link to. */
export const VIEW_URI = 'ui://thermometer/view';

/** The readings of the simulated sensor, in °C. */
const BASE: Record<string, number> = { Lisbon: 21, Oslo: -3, Nairobi: 24 };

const CITY = {
  type: 'object',
  properties: { city: { type: 'string', enum: Object.keys(BASE) } },
  required: ['city'],
};

/**
 * The thermometer server: `read_temperature` (for the model and the app), the app-only `refresh_temperature` (the
 * view's refresh button: a new measurement, one degree warmer each time, so a person sees it change) and the view.
 */
export function createAppsServer(): Server {
  const server = createServer({ name: 'thermometer', version: '1.0.0' });
  let drift = 0; // the sensor's drift, per server
  /** The result both tools give: text for any client (Graceful Degradation), structuredContent for the view. */
  const reading = (city: string) => {
    const celsius = BASE[city]! + drift;
    return {
      content: [{ type: 'text' as const, text: `${city}: ${celsius} °C` }],
      structuredContent: { city, celsius },
    };
  };
  appResource(server, VIEW_URI, {
    name: 'thermometer',
    description: 'A bar thermometer for one city',
    html: readFileSync(new URL('./view.html', import.meta.url), 'utf8'),
    prefersBorder: true, // no csp: the host applies the restrictive default (no network at all)
  });
  appTool(
    server,
    'read_temperature',
    { description: 'Reads the current temperature of a city', inputSchema: CITY },
    ({ city }: { city: string }) => reading(city),
    { resourceUri: VIEW_URI },
  );
  appTool(
    server,
    'refresh_temperature',
    { description: 'Takes a new measurement (called by the app, hidden from the model)', inputSchema: CITY },
    ({ city }: { city: string }) => {
      drift += 1;
      return reading(city);
    },
    { resourceUri: VIEW_URI, visibility: ['app'] },
  );
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) serveStdio(createAppsServer());
