import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { WebAction } from './actions.js';
import type { WebBrowser } from './browser.js';
import { newRecorder, openRecordedPage, type Recorder } from './pageRecorder.js';
import type { RunOpts } from './runOptions.js';
import { firstLine } from './text.js';
import { within } from './timeLimits.js';
import type { PageObservation, WebStep } from './webRun.js';

/**
 * Recording what the page shows (SPEC §13): the {@link WebStep} after each
 * action (URL, title, ARIA snapshot of `body`, PNG screenshot, and the console
 * lines and blocked requests the step's recorder caught), and the planner's
 * {@link PageObservation} of the loaded page. Every read is bounded in time, so
 * a page stuck in a script still yields what could be read (`''` for a title or
 * screenshot, `[no snapshot: <reason>]` for the snapshot).
 * (`playwright-core` is imported for its types only: erased at build.)
 */

/** The page a run records, with its recorder and where its screenshots go. */
export interface StepTarget {
  page: Page;
  rec: Recorder;
  o: RunOpts;
  /** Absolute folder of the screenshots (`step-000.png`, ...). */
  outDir: string;
}

/**
 * Records the page after a step, once `settleMs` has passed: drains the
 * recorder's console lines (with a line counting those not kept) and blocked
 * requests into the step. Each read is bounded by the action time limit
 * (between 1 and 10 s).
 */
export async function recordStep(target: StepTarget, index: number, action: WebAction | null, ok: boolean, error: string | undefined, t0: number): Promise<WebStep> {
  const { page, rec, o, outDir } = target;
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
}

/** Loads the page in a fresh browser context and reads URL, title and ARIA snapshot (the planner's view, SPEC §13 stage 1). */
export async function observePage(browser: WebBrowser, origin: string, o: RunOpts): Promise<PageObservation> {
  const rec = newRecorder();
  const { context, page } = await openRecordedPage(browser, origin, o, rec);
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
