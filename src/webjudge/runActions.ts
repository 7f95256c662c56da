import { parseOptions, parseWith } from '../errors/validate.js';
import { type WebAction, WebPlanSchema } from './actions.js';
import { type RunActionsOptions, RunActionsOptionsSchema, type WebApp, WebAppSchema } from './runOptions.js';
import type { WebRun } from './webRun.js';
import { openWebSession } from './webSession.js';

// The runner's parts live beside it: its inputs (runOptions.ts), what it records
// (webRun.ts), the session (webSession.ts), one run (runInContext.ts), one action
// (performAction.ts), the recorded page (pageRecorder.ts, recordPage.ts), the
// origin guard (originGuard.ts) and the time limits (timeLimits.ts).
export { RunActionsOptionsSchema, WebAppSchema } from './runOptions.js';
export type { RunActionsOptions, WebApp } from './runOptions.js';
export type { PageObservation, WebRun, WebStep } from './webRun.js';

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
  const plan = parseWith(fn, 'actions', WebPlanSchema, actions);
  const session = await openWebSession(a, o, fn);
  try {
    return await session.run(plan);
  } finally {
    await session.close();
  }
}
