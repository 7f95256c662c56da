import type { WebAction } from './actions.js';
import type { WebApp } from './runOptions.js';

/**
 * What the browser runner records (SPEC §13): one {@link WebStep} per state of
 * the page (step 0 as loaded, then one per action), the whole {@link WebRun},
 * and the {@link PageObservation} the planner reads (stage 1).
 */

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
