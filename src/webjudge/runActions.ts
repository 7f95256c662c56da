import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith } from '../errors/validate.js';
import type { SandboxOptions } from '../leaf/index.js';
import { DEFAULT_SCROLL_DY, type WebAction, WebActionSchema } from './actions.js';
import { launchWebBrowser, type WebBrowser } from './browser.js';
import { serveStatic } from './serveStatic.js';
import { startApp } from './startApp.js';
// Types only (erased): this module loads playwright-core only through launchWebBrowser's dynamic import.
import type { BrowserContext, Page } from 'playwright-core';

/** The app to judge: a folder served statically, or started by its own command (SPEC §13). */
export const WebAppSchema = z
  .object({
    /** The app's folder (its files; the judge also reads its sources). */
    dir: z.string().min(1),
    /**
     * A command that serves the app on `$PORT` (run with `bash -c` in a copy of `dir`,
     * inside the Leaf sandbox unless `isolation: 'none'`). Without it, `dir` is served
     * statically on 127.0.0.1.
     */
    start: z.string().min(1).optional(),
  })
  .strict();
/** The app to judge. */
export type WebApp = z.infer<typeof WebAppSchema>;

const WebBrowserSchema = z.custom<WebBrowser>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { close?: unknown }).close === 'function' && typeof (v as { browser?: unknown }).browser === 'object',
  { message: 'must be a WebBrowser from launchWebBrowser()', params: { code: ErrorCode.INVALID_TYPE } },
);
const AbortSignalSchema = z.custom<AbortSignal>((v) => typeof AbortSignal !== 'undefined' && v instanceof AbortSignal, {
  message: 'must be an AbortSignal',
  params: { code: ErrorCode.INVALID_TYPE },
});

/** Options of the browser runner ({@link runActions}, and the run part of `webJudge`). */
export const RunActionsOptionsSchema = z
  .object({
    /** Folder for the screenshots (`step-000.png`, ...); created when missing. Required. */
    outDir: z.string().min(1),
    /** A running browser to use (several runs can share one, see `launchWebBrowser`); default: one launched for this run and closed after it. */
    browser: WebBrowserSchema.optional(),
    /** Chromium executable when the run launches its own browser. Default: `FROGNANO_CHROMIUM`, then PATH. */
    executablePath: z.string().min(1).optional(),
    /** Time limit of one action, milliseconds (Playwright's action timeout; a step past it is `ok: false`). Default 5000. */
    actionTimeoutMs: z.number().int().min(1).default(5_000),
    /** Time limit of the whole run (page load and every action), milliseconds; actions left when it passes are not run (`truncated`). Default 120000. */
    runTimeoutMs: z.number().int().min(1).default(120_000),
    /** With `app.start`: milliseconds until the app's port must answer. Default 30000. */
    startTimeoutMs: z.number().int().min(1).default(30_000),
    /** Pause after each action before recording, milliseconds (lets handlers, transitions and timers run). Default 150. */
    settleMs: z.number().int().min(0).default(150),
    /** The browser viewport in CSS pixels. Default 1280 x 800. */
    viewport: z.object({ width: z.number().int().min(100).max(4096), height: z.number().int().min(100).max(4096) }).strict().default({ width: 1280, height: 800 }),
    /** Screenshot the whole page instead of the viewport. Default false. */
    fullPage: z.boolean().default(false),
    /** With `app.start`: `'bwrap'` (default) runs the command in the Leaf sandbox; `'none'` runs it unisolated (UNSAFE for model-written apps). */
    isolation: z.enum(['bwrap', 'none']).default('bwrap'),
    /** Options of the Leaf sandbox for `app.start` (see `createSandbox` of `frognano/leaf`). */
    sandbox: z.record(z.string(), z.unknown()).optional(),
    /** Console lines kept per step (the rest are counted in one line). Default 200. */
    maxConsoleLines: z.number().int().min(1).default(200),
    /** Characters kept of one console line. Default 2000. */
    maxConsoleChars: z.number().int().min(20).default(2_000),
    /** Stops the run; the browser and the app are closed and the call rejects with the signal's reason. */
    signal: AbortSignalSchema.optional(),
  })
  .strict();
/** Options of {@link runActions} as the caller writes them. */
export type RunActionsOptions = z.input<typeof RunActionsOptionsSchema>;
type RunOpts = z.output<typeof RunActionsOptionsSchema>;

/** One recorded step (SPEC §13). Step 0 is the page as loaded, before any action. */
export interface WebStep {
  /** 0 for the loaded page, then 1, 2, ... one per action run. */
  index: number;
  /** The action of this step (`null` for step 0). */
  action: WebAction | null;
  /** The action (or the page load) succeeded. */
  ok: boolean;
  /** Why it failed, when `ok` is false. */
  error?: string;
  /** The page URL after the step. */
  url: string;
  /** The page title after the step. */
  title: string;
  /** The ARIA snapshot of `body` after the step (Playwright's YAML form). */
  snapshot: string;
  /** Console messages (`[error] ...`, `[log] ...`), page errors (`[pageerror] ...`), dialogs and popups during the step. */
  console: string[];
  /** Requests to another origin that were aborted during the step (`GET https://...`). */
  blocked: string[];
  /** Absolute path of the step's PNG screenshot under `outDir` (`''` when the page could not be captured). */
  screenshot: string;
  /** Wall time of the action and its recording, milliseconds. */
  durationMs: number;
}

/** What the runner recorded (the `steps` of SPEC §13, with the context the judge needs). */
export interface WebRun {
  /** The app as given. */
  app: WebApp;
  /** The origin the browser could reach, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** The actions asked for. */
  plan: WebAction[];
  /** Step 0 and one step per action run. */
  steps: WebStep[];
  /** Every aborted request to another origin, in order. */
  blocked: string[];
  /** True when the run's time limit stopped it before every action ran. */
  truncated: boolean;
  /** Chromium's version. */
  browserVersion: string;
  /** Wall time of the run (app start and browser launch included), milliseconds. */
  durationMs: number;
}

/** The loaded page as the planner sees it (SPEC §13 stage 1). */
export interface PageObservation {
  /** The page URL. */
  url: string;
  /** The page title. */
  title: string;
  /** The ARIA snapshot of `body`. */
  snapshot: string;
}

/** A timeout that rejects with `what` after `ms`, for calls Playwright cannot bound itself (a page stuck in a script). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  p.catch(() => {}); // a late rejection after the timeout is not unhandled
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Rejects when `signal` aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  p.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the run was aborted');
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();
/** Playwright's error messages carry a call log after the first line: keep the first line. */
const firstLine = (e: unknown): string => oneLine(String(e instanceof Error ? e.message : e).split('\n')[0] ?? '');

/** The origin of `url`, or null when it has none (`about:blank`, `data:`, malformed). */
function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

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
      observe: () => abortable(observe(browser, origin, o), o.signal),
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

/** Per-page recorders: console lines, page errors, dialogs and popups, and aborted cross-origin requests, drained per step. */
interface Recorder {
  console: string[];
  dropped: number;
  blocked: string[];
  allBlocked: string[];
  /** A main-frame navigation to another origin that was aborted during the current step. */
  leftOrigin: string | null;
}

async function newContext(browser: WebBrowser, origin: string, o: RunOpts, rec: Recorder): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.browser.newContext({
    viewport: o.viewport,
    serviceWorkers: 'block', // a service worker's requests would bypass the origin filter
    acceptDownloads: false,
  });
  context.setDefaultTimeout(o.actionTimeoutMs);
  context.setDefaultNavigationTimeout(Math.max(o.actionTimeoutMs, 10_000));
  const push = (line: string): void => {
    if (rec.console.length >= o.maxConsoleLines) rec.dropped++;
    else rec.console.push(line.length > o.maxConsoleChars ? `${line.slice(0, o.maxConsoleChars)} [... ${line.length - o.maxConsoleChars} chars cut]` : line);
  };
  const block = (what: string): void => {
    rec.blocked.push(what);
    rec.allBlocked.push(what);
  };
  // The browser reaches the app's origin only: everything else is aborted and recorded.
  await context.route('**/*', (route) => {
    const req = route.request();
    if (originOf(req.url()) === origin) return route.continue();
    block(`${req.method()} ${req.url()}`);
    if (req.isNavigationRequest() && req.frame() === req.frame().page().mainFrame()) rec.leftOrigin = req.url();
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, (ws) => {
    if (originOf(ws.url().replace(/^ws/, 'http')) === origin) return ws.connectToServer();
    block(`WEBSOCKET ${ws.url()}`);
    return ws.close();
  });
  const page = await context.newPage();
  page.on('console', (m) => push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => push(`[pageerror] ${oneLine(e.message)}`));
  page.on('dialog', (d) => {
    push(`[dialog ${d.type()}] ${d.message()}`);
    // alert/confirm/prompt would block the page: accepted as a user clicking OK
    d.accept().catch(() => {});
  });
  context.on('page', (p) => {
    if (p === page) return;
    push(`[popup] ${p.url()} (closed)`);
    p.close().catch(() => {});
  });
  return { context, page };
}

async function observe(browser: WebBrowser, origin: string, o: RunOpts): Promise<PageObservation> {
  const rec: Recorder = { console: [], dropped: 0, blocked: [], allBlocked: [], leftOrigin: null };
  const { context, page } = await newContext(browser, origin, o, rec);
  try {
    await page.goto(`${origin}/`, { waitUntil: 'load' }).catch(() => null);
    await new Promise((r) => setTimeout(r, o.settleMs));
    const t = Math.max(1000, o.actionTimeoutMs);
    return {
      url: page.url(),
      title: await within(page.title(), t, 'reading the title').catch(() => ''),
      snapshot: await page.locator('body').ariaSnapshot({ timeout: t }).catch((e: unknown) => `[no snapshot: ${firstLine(e)}]`),
    };
  } finally {
    await within(context.close(), 10_000, 'closing the page').catch(() => {});
  }
}

/** Runs one action on the page; throws with a one-line reason when it fails. */
async function perform(page: Page, a: WebAction, origin: string, timeout: number): Promise<void> {
  const at = (selector: string) => page.locator(selector).first();
  switch (a.action) {
    case 'click':
      return at(a.selector).click({ timeout });
    case 'fill':
      return at(a.selector).fill(a.text, { timeout });
    case 'hover':
      return at(a.selector).hover({ timeout });
    case 'press':
      return a.selector ? at(a.selector).press(a.key, { timeout }) : page.keyboard.press(a.key);
    case 'scroll':
      if (a.selector === undefined) {
        await page.evaluate((dy) => (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, dy), a.dy ?? DEFAULT_SCROLL_DY);
        return;
      }
      await at(a.selector).scrollIntoViewIfNeeded({ timeout });
      if (a.dy !== undefined) await at(a.selector).evaluate((el, dy) => el.scrollBy(0, dy), a.dy, { timeout });
      return;
    case 'navigate': {
      let target: URL;
      try {
        target = new URL(a.url, page.url().startsWith('http') ? page.url() : `${origin}/`);
      } catch {
        throw new Error(`not a URL: ${JSON.stringify(a.url)}`);
      }
      // never followed: the browser reaches the app's origin only
      if (target.origin !== origin) throw new Error(`navigation to another origin (${target.origin === 'null' ? target.protocol : target.origin}) is not followed`);
      const res = await page.goto(target.href, { timeout, waitUntil: 'load' });
      if (res && res.status() >= 400) throw new Error(`HTTP ${res.status()} for ${target.pathname}`);
      return;
    }
    case 'wait':
      await new Promise((r) => setTimeout(r, a.ms));
      return;
  }
}

async function runInContext(browser: WebBrowser, origin: string, app: WebApp, actions: readonly WebAction[], o: RunOpts, outDir: string): Promise<WebRun> {
  const started = performance.now();
  const deadline = started + o.runTimeoutMs;
  const rec: Recorder = { console: [], dropped: 0, blocked: [], allBlocked: [], leftOrigin: null };
  const steps: WebStep[] = [];
  const { context, page } = await newContext(browser, origin, o, rec);
  const left = (): number => deadline - performance.now();
  /** Records the page after a step; each read is bounded, so a stuck page yields a step with what could be read. */
  const record = async (index: number, action: WebAction | null, ok: boolean, error: string | undefined, t0: number): Promise<WebStep> => {
    await new Promise((r) => setTimeout(r, o.settleMs));
    const t = Math.max(1000, Math.min(o.actionTimeoutMs, 10_000));
    const url = page.url();
    const title = await within(page.title(), t, 'reading the title').catch(() => '');
    const snapshot = await within(page.locator('body').ariaSnapshot({ timeout: t }), t + 1000, 'the ARIA snapshot').catch(
      (e: unknown) => `[no snapshot: ${firstLine(e)}]`,
    );
    const file = join(outDir, `step-${String(index).padStart(3, '0')}.png`);
    const shot = await within(page.screenshot({ path: file, fullPage: o.fullPage, timeout: t }), t + 1000, 'the screenshot')
      .then(() => file)
      .catch(() => '');
    const consoleLines = rec.console.splice(0);
    if (rec.dropped > 0) consoleLines.push(`[... ${rec.dropped} more console lines not kept]`);
    rec.dropped = 0;
    const step: WebStep = { index, action, ok, url, title, snapshot, console: consoleLines, blocked: rec.blocked.splice(0), screenshot: shot, durationMs: performance.now() - t0 };
    if (error !== undefined) step.error = error;
    return step;
  };
  let truncated = false;
  try {
    // step 0: the page as loaded
    let t0 = performance.now();
    let loadError: string | undefined;
    try {
      const res = await abortable(within(page.goto(`${origin}/`, { waitUntil: 'load', timeout: Math.max(1, Math.min(left(), Math.max(o.actionTimeoutMs, 10_000))) }), Math.max(1, left()) + 1000, 'loading the page'), o.signal);
      if (res && res.status() >= 400) loadError = `HTTP ${res.status()} for /`;
    } catch (e) {
      if (o.signal?.aborted) throw abortReason(o.signal);
      loadError = firstLine(e);
    }
    rec.leftOrigin = null;
    steps.push(await abortable(record(0, null, loadError === undefined, loadError, t0), o.signal));
    for (let i = 0; i < actions.length; i++) {
      if (left() <= 0) {
        truncated = true;
        break;
      }
      const a = actions[i]!;
      t0 = performance.now();
      const timeout = Math.max(1, Math.min(o.actionTimeoutMs, left()));
      let error: string | undefined;
      try {
        await abortable(within(perform(page, a, origin, timeout), timeout + 1000, `the ${a.action} action`), o.signal);
        // an action that started a navigation: let the new page load (bounded)
        await within(page.waitForLoadState('load', { timeout }), timeout + 500, 'the page load').catch(() => {});
      } catch (e) {
        if (o.signal?.aborted) throw abortReason(o.signal);
        error = firstLine(e);
      }
      if (rec.leftOrigin !== null) {
        // a link or script that led to another origin: the request was aborted, and the
        // page goes back to the app so that the following actions act on it
        error ??= `the page tried to navigate to another origin (${rec.leftOrigin}); the request was aborted and the page went back`;
        rec.leftOrigin = null;
        if (page.url().startsWith('chrome-error:')) await within(page.goBack({ timeout, waitUntil: 'load' }), timeout + 500, 'going back').catch(() => {});
      }
      steps.push(await abortable(record(i + 1, a, error === undefined, error, t0), o.signal));
    }
  } finally {
    await within(context.close(), 10_000, 'closing the page').catch(() => {});
  }
  return {
    app,
    origin,
    plan: [...actions],
    steps,
    blocked: rec.allBlocked,
    truncated,
    browserVersion: browser.version,
    durationMs: performance.now() - started,
  };
}

/**
 * The browser runner of the interactive judge (Verification Horizon §3.2 stage 2,
 * SPEC §13): serves the app (its folder statically on 127.0.0.1, or `app.start`
 * with `PORT` set, in the Leaf sandbox), opens it in headless Chromium, records
 * step 0 (the page as loaded), then runs the actions in order, recording after
 * each one its screenshot (PNG under `outDir`), the ARIA snapshot of the page,
 * the URL and title, the console messages and page errors, and the requests to
 * other origins that were aborted.
 *
 * - Only the app's origin is reachable: every other request (and WebSocket) is
 *   aborted and listed in `blocked`; a `navigate` to another origin is a failed step.
 * - Each action has `actionTimeoutMs`; a failing action (no element matches,
 *   a timeout) is a step with `ok: false` and `error`, and the run goes on.
 * - The whole run has `runTimeoutMs`; actions left when it passes are not run
 *   (`truncated: true`).
 * - Dialogs (`alert`, `confirm`, `prompt`) are accepted and logged; popups are closed and logged.
 * - The browser (unless passed in), the server and the app's process tree are
 *   closed on every path: success, error, and `signal` (wire SIGINT to it).
 *
 * @param app - `{ dir, start? }`
 * @param actions - the plan (each validated against the action library)
 * @param opts - `{ outDir, browser?, actionTimeoutMs = 5000, runTimeoutMs = 120000, ... }`
 * @throws FrognanoError `BROWSER_UNAVAILABLE` (no Chromium or playwright-core), `APP_UNAVAILABLE`,
 *   `SANDBOX_UNAVAILABLE`, `INVALID_TYPE` naming `app.<field>`, `actions[i].<field>`, `opts.<field>`;
 *   the signal's reason when aborted
 * @example
 * const run = await runActions({ dir: 'app' }, [{ action: 'click', selector: 'text=Add' }], { outDir: 'out' });
 * run.steps[1].snapshot; // the page after the click
 */
export async function runActions(app: WebApp, actions: readonly WebAction[], opts: RunActionsOptions): Promise<WebRun> {
  const fn = 'runActions';
  const o = parseOptions(fn, RunActionsOptionsSchema, opts);
  const a = parseWith(fn, 'app', WebAppSchema, app);
  const plan = parseWith(fn, 'actions', z.array(WebActionSchema), actions);
  const session = await openWebSession(a, o, fn);
  try {
    return await session.run(plan);
  } finally {
    await session.close();
  }
}

/** Parses runner options (shared by `webJudge`). @internal */
export const parseRunOptions = (fn: string, opts: unknown): RunOpts => parseOptions(fn, RunActionsOptionsSchema, opts);
