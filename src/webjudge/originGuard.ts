import type { BrowserContext } from 'playwright-core';

/**
 * The origin guard of the browser runner (SPEC §13): the browser reaches the
 * app's origin only. Every other request and WebSocket of a browser context is
 * aborted (`blockedbyclient`) and reported, so a model-written app can neither
 * call out nor leave the app; a main-frame navigation to another origin is
 * reported apart, so the runner can fail the step and go back.
 * (`playwright-core` is imported for its types only: erased at build.)
 */

/** The origin of `url`, or null when it has none (`about:blank`, `data:`, malformed). */
export function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/** What the guard reports. */
export interface OriginGuardListener {
  /** An aborted request (`GET https://...`) or WebSocket (`WEBSOCKET wss://...`). */
  blocked(what: string): void;
  /** An aborted main-frame navigation to another origin, with its URL. */
  leftOrigin(url: string): void;
}

/** Routes every request and WebSocket of `context`: those to `origin` go through, the rest are aborted and reported. */
export async function guardOrigin(context: BrowserContext, origin: string, listener: OriginGuardListener): Promise<void> {
  await context.route('**/*', (route) => {
    const req = route.request();
    if (originOf(req.url()) === origin) return route.continue();
    listener.blocked(`${req.method()} ${req.url()}`);
    if (req.isNavigationRequest() && req.frame() === req.frame().page().mainFrame()) listener.leftOrigin(req.url());
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (ws) => {
    if (originOf(ws.url().replace(/^ws/, 'http')) === origin) return ws.connectToServer();
    listener.blocked(`WEBSOCKET ${ws.url()}`);
    return ws.close();
  });
}
