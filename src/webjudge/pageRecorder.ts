import type { BrowserContext, Page } from 'playwright-core';
import type { WebBrowser } from './browser.js';
import { guardOrigin } from './originGuard.js';
import type { RunOpts } from './runOptions.js';
import { oneLine } from './text.js';

/**
 * A recorded page of the browser runner (SPEC §13): a fresh browser context
 * (viewport, no service workers, no downloads, the action time limits) behind
 * the origin guard, whose page's console messages, page errors, dialogs and
 * popups, and aborted cross-origin requests are captured into a
 * {@link Recorder} that the runner drains once per step.
 *
 * - Console lines: at most `maxConsoleLines` per step (the rest counted), each
 *   cut at `maxConsoleChars`.
 * - Dialogs (`alert`, `confirm`, `prompt`) are accepted, as a user clicking OK,
 *   and logged; popups are closed and logged.
 * (`playwright-core` is imported for its types only: erased at build.)
 */

/** Per-page recorders: console lines, page errors, dialogs and popups, and aborted cross-origin requests, drained per step. */
export interface Recorder {
  console: string[];
  dropped: number;
  blocked: string[];
  allBlocked: string[];
  /** A main-frame navigation to another origin that was aborted during the current step. */
  leftOrigin: string | null;
}

/** An empty {@link Recorder}. */
export function newRecorder(): Recorder {
  return { console: [], dropped: 0, blocked: [], allBlocked: [], leftOrigin: null };
}

/** Opens a fresh context and page on `browser`, reaching `origin` only, recording into `rec`. The caller closes the context. */
export async function openRecordedPage(browser: WebBrowser, origin: string, o: RunOpts, rec: Recorder): Promise<{ context: BrowserContext; page: Page }> {
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
  // The browser reaches the app's origin only: everything else is aborted and recorded.
  await guardOrigin(context, origin, {
    blocked: (what) => {
      rec.blocked.push(what);
      rec.allBlocked.push(what);
    },
    leftOrigin: (url) => {
      rec.leftOrigin = url;
    },
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
