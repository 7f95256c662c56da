import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FrognanoError } from '../errors/FrognanoError.js';
import type { SandboxOptions } from '../leaf/index.js';
import type { WebAction } from './actions.js';
import { launchWebBrowser } from './browser.js';
import { observePage } from './recordPage.js';
import { runInContext } from './runInContext.js';
import type { RunOpts, WebApp } from './runOptions.js';
import { serveStatic } from './serveStatic.js';
import { startApp } from './startApp.js';
import { abortable } from './timeLimits.js';
import type { PageObservation, WebRun } from './webRun.js';

/**
 * A web session (SPEC §13): the app (served statically from its folder on
 * 127.0.0.1, or started by `app.start` in the Leaf sandbox) and the browser
 * (passed in, or launched here: the only place that loads playwright-core, via
 * `launchWebBrowser`'s dynamic import), opened once and shared by the
 * planner's observation (stage 1) and the run (stage 2). Whatever was opened is
 * closed on every path, in reverse order.
 */

/** A live app and browser: the planner's observation and the run share them. @internal */
export interface WebSession {
  /** The app's origin. */
  readonly origin: string;
  /** Chromium's version. */
  readonly browserVersion: string;
  /** Loads the page in a fresh browser context and reads URL, title and ARIA snapshot. */
  observe(): Promise<PageObservation>;
  /** Runs `actions` in a fresh browser context from the loaded page, recording every step. */
  run(actions: readonly WebAction[]): Promise<WebRun>;
  /** Closes the browser (when the session launched it) and stops the app (idempotent). */
  close(): Promise<void>;
}

/**
 * Starts the app (static server or `app.start`) and the browser. Every caller
 * closes it in a `finally`; a failure while opening closes what was opened.
 * @internal
 */
export async function openWebSession(app: WebApp, o: RunOpts, fn: string): Promise<WebSession> {
  const started = performance.now();
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => {});
  };
  try {
    let origin: string;
    if (app.start !== undefined) {
      const a = await abortable(startApp(app.dir, app.start, { isolation: o.isolation, startTimeoutMs: o.startTimeoutMs, sandbox: o.sandbox as SandboxOptions | undefined, signal: o.signal }), o.signal);
      closers.push(() => a.close());
      origin = a.origin;
    } else {
      const s = await serveStatic(app.dir);
      closers.push(() => s.close());
      origin = s.origin;
    }
    let wb = o.browser;
    if (wb === undefined) {
      const launched = await abortable(launchWebBrowser(o.executablePath ? { executablePath: o.executablePath } : {}), o.signal);
      closers.push(() => launched.close());
      wb = launched;
    }
    const browser = wb;
    await mkdir(o.outDir, { recursive: true });
    const outDir = resolve(o.outDir);
    let closing: Promise<void> | null = null;
    return {
      origin,
      browserVersion: browser.version,
      observe: () => abortable(observePage(browser, origin, o), o.signal),
      run: async (actions) => {
        const r = await runInContext(browser, origin, app, actions, o, outDir);
        r.durationMs = performance.now() - started;
        return r;
      },
      close: () => (closing ??= closeAll()),
    };
  } catch (e) {
    await closeAll();
    if (e instanceof FrognanoError && e.fn === undefined) throw new FrognanoError(e.code, e.message, { fn, cause: e });
    throw e;
  }
}
