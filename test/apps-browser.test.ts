// The MCP Apps example in a real browser: headless Chromium (test/cdp.ts) opens the host harness
// (examples/apps/host.ts), whose page calls the thermometer server, loads its view through the sandbox proxy on a
// second origin, and hands it the tool result (SEP-1865, Sandbox proxy, Data Passing). Asserted inside the app's own
// out-of-process frame, then a click on its refresh button (app → host → server), then the screenshot's pixels.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startAppsHost } from '../examples/apps/host.ts';
import { Cdp } from './cdp.ts';
import { needBinary } from './services.ts';

const T = { timeout: 20_000 }; // a safety net against hangs only; every wait is on a DOM marker or a CDP event
/** Where a person finds the screenshot (git-ignored). */
const SCREENSHOT = join(fileURLToPath(new URL('..', import.meta.url)), 'test-results', 'apps-browser.png');
const WIDTH = 800;
const HEIGHT = 600;
/** The view's colours (examples/apps/view.html): the bar and the track it fills. */
const BAR = [0xd9, 0x48, 0x0f, 255];
const TRACK = [0xe9, 0xec, 0xef, 255];

/** An expression that resolves once `condition` (an expression) is truthy in the page, watched by a MutationObserver. */
function when(condition: string): string {
  return `new Promise((resolve) => {
    const check = () => { const value = ${condition}; if (value) { observer.disconnect(); resolve(value); } };
    const observer = new MutationObserver(check);
    observer.observe(document.documentElement, { attributes: true, childList: true, subtree: true, characterData: true });
    check();
  })`;
}

/** An expression giving an element's box (viewport coordinates) plus, for a frame, its border (the content's origin). */
function box(selector: string): string {
  return `(() => { const element = document.querySelector(${JSON.stringify(selector)});
    const { x, y, width, height } = element.getBoundingClientRect();
    return { x: x + element.clientLeft, y: y + element.clientTop, width, height }; })()`;
}

test(
  'the thermometer app renders its tool result in Chromium, refreshes through the host, and paints its bar',
  T,
  async (t) => {
    const binary = needBinary(t, 'chromium');
    if (binary === undefined) return;
    const harness = await startAppsHost();
    t.after(() => harness.close());
    const cdp = await Cdp.launch(binary);
    t.after(() => cdp.close());
    const fail = (error: unknown) => assert.fail(`${String(error)}\n--- chromium stderr ---\n${cdp.stderr}`);

    const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId: page } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    await cdp.send(
      'Emulation.setDeviceMetricsOverride',
      { width: WIDTH, height: HEIGHT, deviceScaleFactor: 1, mobile: false },
      page,
    );
    // The app's frame (an opaque origin) runs out of process: auto-attach gives it a session of its own.
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, page);
    await cdp.send('Page.enable', {}, page);
    await cdp.send('Page.navigate', { url: harness.url }, page);
    await cdp.waitFor((event) => event.method === 'Page.loadEventFired' && event.sessionId === page);

    // The host marks its body once the app, given the result, reported its size; or an error on any failed step.
    const state = await cdp.evaluate(
      page,
      when(`/^(rendered|error:)/.test(document.body.dataset.state) && document.body.dataset.state`),
    );
    assert.equal(state, 'rendered');
    assert.equal(
      await cdp.evaluate(page, `document.getElementById('text').textContent`),
      'Lisbon: 21 °C',
      'the text content a client without apps shows',
    );
    assert.equal(
      await cdp.evaluate(page, `document.getElementById('tools').textContent`),
      'read_temperature (model+app), refresh_temperature (app)',
    );

    // The proxy runs on the sandbox origin (the same site: in the page's process, a frame of the page's session),
    // the app in an opaque origin inside it (out of process: a frame target of its own).
    const { frameTree } = await cdp.send('Page.getFrameTree', {}, page);
    assert.equal(frameTree.childFrames?.length, 1);
    assert.equal(frameTree.childFrames[0].frame.url, `${harness.sandboxOrigin}/sandbox`);
    const { executionContextId: proxy } = await cdp.send(
      'Page.createIsolatedWorld',
      { frameId: frameTree.childFrames[0].frame.id, worldName: 'apps-browser-test' },
      page,
    );
    const attached = await cdp.waitFor(
      (event) => event.method === 'Target.attachedToTarget' && event.params.targetInfo.url === 'about:srcdoc',
    );
    assert.equal(attached.params.targetInfo.type, 'iframe');
    const app = attached.params.sessionId as string;
    assert.notEqual(harness.sandboxOrigin, harness.hostOrigin);
    assert.equal(await cdp.evaluate(page, 'origin', proxy), harness.sandboxOrigin);
    assert.equal(await cdp.evaluate(app, 'origin'), 'null');
    assert.match(
      await cdp.evaluate(app, `document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`),
      /^default-src 'none'; .*connect-src 'none'$/,
      'no csp declared: the restrictive default',
    );
    assert.deepEqual(
      await cdp.evaluate(
        app,
        `({ reading: document.getElementById('reading').textContent, rendered: document.body.dataset.rendered })`,
      ),
      { reading: 'Lisbon 21 °C', rendered: '21' },
    );

    // Where the app's content sits on the page: the host's frame, then the proxy's frame inside it.
    const outer = await cdp.evaluate(page, box('#app'));
    const inner = await cdp.evaluate(page, box('iframe'), proxy);
    const onPage = (rect: { x: number; y: number; width: number; height: number }) => ({
      ...rect,
      x: rect.x + outer.x + inner.x,
      y: rect.y + outer.y + inner.y,
    });

    // A real mouse click on the refresh button: the app calls refresh_temperature through the proxy and the host.
    const button = onPage(await cdp.evaluate(app, box('#refresh')));
    for (const type of ['mousePressed', 'mouseReleased']) {
      await cdp.send(
        'Input.dispatchMouseEvent',
        { type, x: button.x + button.width / 2, y: button.y + button.height / 2, button: 'left', clickCount: 1 },
        page,
      );
    }
    assert.equal(
      await cdp.evaluate(
        app,
        when(`document.body.dataset.rendered === '22' || document.getElementById('status').textContent`),
      ),
      true,
      'the new reading, not an error in the status line',
    );
    assert.equal(await cdp.evaluate(app, `document.getElementById('reading').textContent`), 'Lisbon 22 °C');

    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png' }, page);
    const png = Buffer.from(data as string, 'base64');
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    writeFileSync(SCREENSHOT, png);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [WIDTH, HEIGHT]);

    // The pixels, decoded by the browser itself: the bar's middle has its colour, and just past its end the track's
    // (22 °C fills 84 % of the track).
    const bar = onPage(await cdp.evaluate(app, box('#bar')));
    const track = onPage(await cdp.evaluate(app, box('#track')));
    assert.ok(Math.abs(bar.width - track.width * 0.84) < 1, `bar ${bar.width} of ${track.width}`);
    const y = Math.round(bar.y + bar.height / 2);
    const pixels = await cdp
      .evaluate(
        page,
        `new Promise((resolve, reject) => {
        const image = new Image();
        image.onload = () => {
          const canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          const at = (x) => Array.from(context.getImageData(x, ${y}, 1, 1).data);
          resolve([at(${Math.round(bar.x + bar.width / 2)}), at(${Math.round(bar.x + bar.width + 4)})]);
        };
        image.onerror = () => reject(new Error('the screenshot did not decode'));
        image.src = 'data:image/png;base64,${data}';
      })`,
      )
      .catch(fail);
    assert.deepEqual(pixels, [BAR, TRACK], `the screenshot is at ${SCREENSHOT}`);
  },
);
