/**
 * Time limits and cancellation of the browser runner (SPEC §13): a bound on
 * calls Playwright cannot bound itself ({@link within}), and the run's
 * `signal` ({@link abortable}, {@link abortReason}). A promise left behind by
 * either never becomes an unhandled rejection.
 */

import type { WebAction } from './actions.js';

/** Slack on top of an action's own limit before the runner gives up on it (Playwright's own timeout fires first). */
export const ACTION_SLACK_MS = 1000;

/**
 * The time limit of one action in the run, milliseconds (before {@link ACTION_SLACK_MS}):
 * `min(actionTimeoutMs, leftMs)`, except for `wait`, which takes as long as it asks:
 * `min(max(actionTimeoutMs, round(ms)), leftMs)`, so that a valid `{"action":"wait","ms":5000}`
 * never fails as a timeout under a shorter `actionTimeoutMs` (SPEC §13 allows up to 5000 ms).
 * Always at least 1 ms. `leftMs` is what is left of the whole run's `runTimeoutMs`.
 * @internal
 */
export function actionLimitMs(a: WebAction, actionTimeoutMs: number, leftMs: number): number {
  const own = a.action === 'wait' ? Math.max(actionTimeoutMs, Math.round(a.ms)) : actionTimeoutMs;
  return Math.max(1, Math.min(own, leftMs));
}

/** A timeout that rejects with `what` after `ms`, for calls Playwright cannot bound itself (a page stuck in a script). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
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
export function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  p.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The error a run aborted by `signal` rejects with: its reason when that is an Error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the run was aborted');
}
