import { z } from 'zod';
import { AbortSignalSchema, parseOptions, parseWith } from '../errors/validate.js';
import { ChatModelSchema } from '../llm/chatModel.js';
import { type WebAction, WebPlanSchema } from './actions.js';
import { JudgeInteractionOptionsSchema, judgeInteraction, type WebVerdict } from './judgeInteraction.js';
import { PlanActionsOptionsSchema, planActions } from './planActions.js';
import { writeWebJudgeReport } from './report.js';
import { parseWebRubric, type WebRubric } from './rubric.js';
import { RunActionsOptionsSchema, type WebApp, WebAppSchema } from './runOptions.js';
import type { PageObservation, WebRun, WebStep } from './webRun.js';
import { openWebSession } from './webSession.js';

/** Options of {@link planAndRunActions}: the planner's and the runner's. */
export const PlanAndRunOptionsSchema = z
  .object({
    /** The planner model. */
    model: ChatModelSchema,
    /** Folder for screenshots and the report. Required. */
    outDir: z.string().min(1),
    /** A fixed plan: the planner is not called (replays, tests, hand-written smoke checks). */
    plan: WebPlanSchema.optional(),
    /** Planner options (see `planActions`), without `model`. */
    planner: PlanActionsOptionsSchema.omit({ model: true }).partial().optional(),
    /** Runner options (see `runActions`), without `outDir` and `signal`. */
    run: RunActionsOptionsSchema.omit({ outDir: true, signal: true }).partial().optional(),
    /** Stops the whole judgement: model calls are cancelled, the browser and the app closed. */
    signal: AbortSignalSchema.optional(),
  })
  .strict();
/** Options of {@link planAndRunActions} as the caller writes them. */
export type PlanAndRunOptions = z.input<typeof PlanAndRunOptionsSchema>;

/** What stages 1 and 2 produce. */
export interface PlannedRun {
  /** The loaded page the planner saw (`null` with a fixed `plan`). */
  page: PageObservation | null;
  /** The plan. */
  plan: WebAction[];
  /** The recorded run. */
  run: WebRun;
}

/**
 * Stages 1 and 2 of the interactive judge: start the app and the browser, show
 * the loaded page to the planner ({@link planActions}), run the plan from a
 * fresh page ({@link runActions}), close everything. The browser and the app
 * stay up during the planner call (one start for both stages).
 *
 * @throws FrognanoError as `planActions` and `runActions`
 */
export async function planAndRunActions(app: WebApp, rubric: WebRubric, opts: PlanAndRunOptions): Promise<PlannedRun> {
  const fn = 'planAndRunActions';
  const o = parseOptions(fn, PlanAndRunOptionsSchema, opts);
  const a = parseWith(fn, 'app', WebAppSchema, app);
  const rb = parseWebRubric(rubric, fn);
  const runOpts = parseOptions(fn, RunActionsOptionsSchema, { ...(o.run ?? {}), outDir: o.outDir, signal: o.signal });
  const session = await openWebSession(a, runOpts, fn);
  try {
    let page: PageObservation | null = null;
    let plan: WebAction[];
    if (o.plan) plan = o.plan;
    else {
      page = await session.observe();
      plan = await planActions(page, rb, { ...(o.planner ?? {}), model: o.model, complete: { ...(o.planner?.complete ?? {}), ...(o.signal ? { signal: o.signal } : {}) } });
    }
    const run = await session.run(plan);
    return { page, plan, run };
  } finally {
    await session.close();
  }
}

/** Options of {@link webJudge}. */
export const WebJudgeOptionsSchema = PlanAndRunOptionsSchema.extend({
  /** The judge model (a vision model). Default: `model`. */
  judgeModel: ChatModelSchema.optional(),
  /** Judge options (see `judgeInteraction`), without `model`. */
  judge: JudgeInteractionOptionsSchema.omit({ model: true }).partial().optional(),
  /** Write the HTML report to `outDir/report.html`. Default true. */
  report: z.boolean().default(true),
}).strict();
/** Options of {@link webJudge} as the caller writes them. */
export type WebJudgeOptions = z.input<typeof WebJudgeOptionsSchema>;

/** The result of {@link webJudge}: SPEC §13's document (`plan`, `steps`, `verdict`, `score`, `report`) plus the run and the score's parts. */
export interface WebJudgement {
  /** The actions the planner returned (or the fixed plan). */
  plan: WebAction[];
  /** The recorded steps (step 0: the page as loaded). */
  steps: WebStep[];
  /** One decision per rubric item. */
  verdict: { items: WebVerdict['items'] };
  /** SPEC §13 score in [0, 1]. */
  score: number;
  /** Path of the HTML report (`''` with `report: false`). */
  report: string;
  /** Per-dimension pass counts and rates. */
  byDimension: WebVerdict['byDimension'];
  /** The steps whose screenshots the judge saw. */
  screenshotSteps: number[];
  /** The whole run (origin, blocked requests, truncation, browser version, timing). */
  run: WebRun;
  /** The page the planner saw (`null` with a fixed plan). */
  page: PageObservation | null;
}

/**
 * The interactive web judge of Verification Horizon §3.2 (SPEC §13), all three
 * stages: (1) a planner model sees the loaded page's ARIA snapshot, URL and title
 * and the rubric, and returns the whole action list at once; (2) headless
 * Chromium runs it against the app (served statically, or `app.start` in the
 * Leaf sandbox), recording screenshot, ARIA snapshot, URL and console after each
 * action, other origins blocked; (3) a judge model decides every rubric item
 * from sampled screenshots, the recorded steps and the source, citing a step;
 * the score is `sum_d w_d passed_d / items_d / sum_{d present} w_d`.
 * Writes the HTML report under `outDir` (`report: false` to skip).
 *
 * @param app - `{ dir, start? }`
 * @param rubric - `{ task, items: [{ id, dimension, text }] }`
 * @param opts - `{ model, judgeModel?, outDir, plan?, planner?, run?, judge?, report = true, signal? }`
 * @throws FrognanoError (as a rejected promise) `MODEL_ANSWER_INVALID` (a plan or verdict refused
 *   after the retries: never a score), `MODEL_UNAVAILABLE`, `BROWSER_UNAVAILABLE`, `APP_UNAVAILABLE`,
 *   `SANDBOX_UNAVAILABLE`, `INVALID_TYPE` / `OUT_OF_RANGE` naming the field
 * @example
 * const model = openAiChatModel(); // FROGNANO_LLM_BASE_URL / FROGNANO_LLM_MODEL
 * const j = await webJudge({ dir: 'out/app' }, rubric, { model, outDir: 'out/judge' });
 * j.score; // in [0, 1]; j.report: out/judge/report.html
 */
export async function webJudge(app: WebApp, rubric: WebRubric, opts: WebJudgeOptions): Promise<WebJudgement> {
  const fn = 'webJudge';
  const o = parseOptions(fn, WebJudgeOptionsSchema, opts);
  const rb = parseWebRubric(rubric, fn);
  const { judgeModel, judge, report, ...stage12 } = o;
  const { page, plan, run } = await planAndRunActions(app, rb, stage12 as PlanAndRunOptions);
  const verdict = await judgeInteraction(run, rb, {
    ...(judge ?? {}),
    model: judgeModel ?? o.model,
    complete: { ...(judge?.complete ?? {}), ...(o.signal ? { signal: o.signal } : {}) },
  });
  const reportPath = report ? await writeWebJudgeReport({ run, rubric: rb, verdict }, o.outDir) : '';
  return {
    plan,
    steps: run.steps,
    verdict: { items: verdict.items },
    score: verdict.score,
    report: reportPath,
    byDimension: verdict.byDimension,
    screenshotSteps: verdict.screenshotSteps,
    run,
    page,
  };
}

/** SPEC §13's output document of a judgement: `{ plan, steps, verdict, score, report }` (what `frognano web-judge` prints). */
export function webJudgeDocument(j: Pick<WebJudgement, 'plan' | 'steps' | 'verdict' | 'score' | 'report'>): { plan: WebAction[]; steps: WebStep[]; verdict: { items: WebVerdict['items'] }; score: number; report: string } {
  return { plan: j.plan, steps: j.steps, verdict: { items: j.verdict.items }, score: j.score, report: j.report };
}
