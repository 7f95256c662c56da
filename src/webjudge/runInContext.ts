import type { WebAction } from './actions.js';
import type { WebBrowser } from './browser.js';
import { newRecorder, openRecordedPage } from './pageRecorder.js';
import { performAction } from './performAction.js';
import { recordStep, type StepTarget } from './recordPage.js';
import type { RunOpts, WebApp } from './runOptions.js';
import { firstLine } from './text.js';
import { abortable, abortReason, ACTION_SLACK_MS, actionLimitMs, within } from './timeLimits.js';
import type { WebRun, WebStep } from './webRun.js';

/**
 * One run of a plan in a fresh browser context (SPEC §13 stage 2): load the
 * page and record step 0, then perform each action and record the step after
 * it. Time limits: each action has `actionTimeoutMs` (a `wait` the longer of
 * that and its `ms`, see `actionLimitMs`; a page load it started is awaited,
 * bounded by `actionTimeoutMs`), the whole run `runTimeoutMs`; actions
 * left when it passes are not run (`truncated`). A failing action is a step
 * with `ok: false` and `error`, and the run goes on; a navigation that tried to
 * leave the app's origin fails its step and the page goes back. The `signal`
 * rejects the run with its reason; the context is closed on every path.
 * @internal
 */
export async function runInContext(browser: WebBrowser, origin: string, app: WebApp, actions: readonly WebAction[], o: RunOpts, outDir: string): Promise<WebRun> {
  const started = performance.now();
  const deadline = started + o.runTimeoutMs;
  const rec = newRecorder();
  const steps: WebStep[] = [];
  const { context, page } = await openRecordedPage(browser, origin, o, rec);
  const left = (): number => deadline - performance.now();
  const target: StepTarget = { page, rec, o, outDir };
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
    steps.push(await abortable(recordStep(target, 0, null, loadError === undefined, loadError, t0), o.signal));
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
        await abortable(within(performAction(page, a, origin, timeout), actionLimitMs(a, o.actionTimeoutMs, left()) + ACTION_SLACK_MS, `the ${a.action} action`), o.signal);
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
      steps.push(await abortable(recordStep(target, i + 1, a, error === undefined, error, t0), o.signal));
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
