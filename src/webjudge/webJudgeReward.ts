import { z } from 'zod';
import { ErrorCode, isFrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import type { WebRubric } from './rubric.js';
import type { WebApp } from './runActions.js';
import { type WebJudgement, webJudge, WebJudgeOptionsSchema, type WebJudgeOptions } from './webJudge.js';

/** Options of {@link webJudgeReward}: those of `webJudge`, plus the reward of an app that does not start. */
export const WebJudgeRewardOptionsSchema = WebJudgeOptionsSchema.extend({
  /** Reward of an app whose `--start` command exits or never answers (`APP_UNAVAILABLE`): the agent's app does not run. Default 0. */
  appFailureReward: z.number().default(0),
}).strict();
/** Options of {@link webJudgeReward} as the caller writes them. */
export type WebJudgeRewardOptions = z.input<typeof WebJudgeRewardOptionsSchema>;

/** The reward of one rollout's app. */
export interface WebJudgeReward {
  /**
   * The reward: the judge's score in [0, 1]; `appFailureReward` when the app did not
   * start; `null` when the planner's or the judge's answer was refused: the rollout
   * has no reward and must be left out of its group (it never becomes a number).
   */
  reward: number | null;
  /** The judge's score (`null` unless judged). */
  score: number | null;
  /** `'judged'`, `'app-failed'` (APP_UNAVAILABLE) or `'refused'` (MODEL_ANSWER_INVALID). */
  status: 'judged' | 'app-failed' | 'refused';
  /** The error behind `app-failed` / `refused`. */
  error?: { code: string; message: string };
  /** The whole judgement when judged. */
  judgement?: WebJudgement;
}

/**
 * The interactive judge as an RL reward for one rollout (Verification Horizon
 * §3.2: the interactive judge as the reward signal, which does not reward ever
 * longer CSS and JS the way static judges do, since the score comes from runtime
 * behaviour). Runs {@link webJudge} on the app the rollout produced and maps the
 * outcome:
 * - judged: `reward = score` (SPEC §13, in [0, 1]);
 * - the app's `--start` command failed (`APP_UNAVAILABLE`): `reward = appFailureReward` (default 0),
 *   as a failing build is a failing rollout;
 * - a refused plan or verdict (`MODEL_ANSWER_INVALID`): `reward = null`. The
 *   caller drops the rollout from its group (as verl drops samples whose reward
 *   function failed), never scoring it 0 or 1 by default.
 *
 * Any other error (no Chromium, model unreachable, bad options) is the setup's
 * and is thrown, not turned into a reward.
 *
 * @throws FrognanoError `BROWSER_UNAVAILABLE`, `MODEL_UNAVAILABLE`, `SANDBOX_UNAVAILABLE`, `INVALID_TYPE`, ...
 * @example
 * const { reward } = await webJudgeReward({ dir: rolloutDir }, rubric, { model, outDir: `${rolloutDir}.judge` });
 */
export async function webJudgeReward(app: WebApp, rubric: WebRubric, opts: WebJudgeRewardOptions): Promise<WebJudgeReward> {
  const o = parseOptions('webJudgeReward', WebJudgeRewardOptionsSchema, opts);
  const { appFailureReward, ...judgeOpts } = o;
  try {
    const judgement = await webJudge(app, rubric, judgeOpts as WebJudgeOptions);
    return { reward: judgement.score, score: judgement.score, status: 'judged', judgement };
  } catch (e) {
    if (isFrognanoError(e, ErrorCode.APP_UNAVAILABLE)) return { reward: appFailureReward, score: null, status: 'app-failed', error: { code: e.code, message: e.message } };
    if (isFrognanoError(e, ErrorCode.MODEL_ANSWER_INVALID)) return { reward: null, score: null, status: 'refused', error: { code: e.code, message: e.message } };
    throw e;
  }
}
