/**
 * The interactive web judge of Verification Horizon §3.2 (SPEC §13): a planner
 * model reads the loaded page and the rubric and returns the whole action list
 * at once; headless Chromium (through playwright-core) runs it against the app
 * and records every step (screenshot, ARIA snapshot, URL, console); a vision
 * judge model decides each rubric item from the recording and the source, and
 * the decisions become a score in [0, 1], usable as an RL reward or a best-of-k
 * RFT filter.
 *
 * `playwright-core` is an optional peer dependency, loaded only when a browser
 * is launched (`import('playwright-core')` inside the runner): importing this
 * module, or any other part of frognano, never loads it. Chromium comes from
 * the system (`FROGNANO_CHROMIUM`, else `chromium`, `chromium-browser` or
 * `google-chrome` on PATH; Debian package `chromium`).
 * @module webjudge
 */
export {
  WebActionSchema,
  PlanAnswerSchema,
  ClickActionSchema,
  FillActionSchema,
  HoverActionSchema,
  PressActionSchema,
  ScrollActionSchema,
  NavigateActionSchema,
  WaitActionSchema,
  WEB_ACTION_NAMES,
  DEFAULT_SCROLL_DY,
  MAX_WAIT_MS,
  describeAction,
} from './actions.js';
export type { WebAction } from './actions.js';
export { WebRubricSchema, WebRubricItemSchema, WEB_JUDGE_WEIGHTS, parseWebRubric, loadWebRubric, webJudgeScore } from './rubric.js';
export type { WebRubric, WebRubricItem, WebJudgeScore } from './rubric.js';
export { findChromium, launchWebBrowser, LaunchWebBrowserOptionsSchema, CHROMIUM_NAMES } from './browser.js';
export type { LaunchWebBrowserOptions, WebBrowser } from './browser.js';
export { serveStatic, CONTENT_TYPES } from './serveStatic.js';
export type { StaticServer } from './serveStatic.js';
export { startApp } from './startApp.js';
export type { StartAppOptions, StartedApp } from './startApp.js';
export { runActions, RunActionsOptionsSchema, WebAppSchema } from './runActions.js';
export type { PageObservation, RunActionsOptions, WebApp, WebRun, WebStep } from './runActions.js';
export { planActions, PlanActionsOptionsSchema, PageObservationSchema, WEB_PLANNER_SYSTEM_PROMPT } from './planActions.js';
export type { PlanActionsOptions } from './planActions.js';
export { judgeInteraction, JudgeInteractionOptionsSchema, JudgeAnswerSchema, WEB_JUDGE_SYSTEM_PROMPT, sampleScreenshotSteps } from './judgeInteraction.js';
export type { JudgeInteractionOptions, WebVerdict, WebVerdictItem } from './judgeInteraction.js';
export { readAppSources, SOURCE_EXTENSIONS } from './appSources.js';
export type { AppSources } from './appSources.js';
export { webJudge, planAndRunActions, webJudgeDocument, WebJudgeOptionsSchema, PlanAndRunOptionsSchema } from './webJudge.js';
export type { PlanAndRunOptions, PlannedRun, WebJudgement, WebJudgeOptions } from './webJudge.js';
export { webJudgeReward, WebJudgeRewardOptionsSchema } from './webJudgeReward.js';
export type { WebJudgeReward, WebJudgeRewardOptions } from './webJudgeReward.js';
export { selectBestOfK, SelectBestOfKOptionsSchema } from './bestOfK.js';
export type { BestOfKSelection, SelectBestOfKOptions } from './bestOfK.js';
export { webJudgeBestOfK, WebJudgeBestOfKOptionsSchema } from './webJudgeBestOfK.js';
export type { WebJudgeBestOfKOptions } from './webJudgeBestOfK.js';
export { renderWebJudgeReport, writeWebJudgeReport } from './report.js';
export type { WebJudgeReportInput } from './report.js';
