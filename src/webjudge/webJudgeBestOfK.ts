import { join } from 'node:path';
import { z } from 'zod';
import { parseOptions, parseWith } from '../errors/validate.js';
import { type BestOfKSelection, selectBestOfK, SelectBestOfKOptionsSchema } from './bestOfK.js';
import { launchWebBrowser } from './browser.js';
import type { WebRubric } from './rubric.js';
import { type WebApp, WebAppSchema } from './runActions.js';
import { type WebJudgeReward, webJudgeReward, WebJudgeRewardOptionsSchema, type WebJudgeRewardOptions } from './webJudgeReward.js';

/** zod: the candidate apps of {@link webJudgeBestOfK}, at least one. */
const WebAppsSchema = z.array(WebAppSchema).min(1);

/** Options of {@link webJudgeBestOfK}: those of `webJudgeReward` (candidate `i` writes under `outDir/candidate-i`), plus the selection's. */
export const WebJudgeBestOfKOptionsSchema = WebJudgeRewardOptionsSchema.extend({
  /** How the best is chosen (see `selectBestOfK`). */
  select: SelectBestOfKOptionsSchema.optional(),
}).strict();
/** Options of {@link webJudgeBestOfK} as the caller writes them. */
export type WebJudgeBestOfKOptions = z.input<typeof WebJudgeBestOfKOptionsSchema>;

/**
 * Best-of-k rejection sampling with the interactive judge (Verification Horizon
 * §3.2: best-of-4 RFT): judges the k candidate apps of one prompt one after the
 * other with {@link webJudgeReward} (one browser shared by all, unless
 * `run.browser` is given), then keeps the best with {@link selectBestOfK}, whose
 * `minScore` / `ties` / `seed` come from `select`. An app that did not start
 * competes with its `appFailureReward`; a refused judgement never competes.
 *
 * @returns the selection and every candidate's reward (in input order)
 * @example
 * const { selection } = await webJudgeBestOfK(candidates.map((dir) => ({ dir })), rubric, { model, outDir: 'rft/p17' });
 * if (selection.index !== null) keepForSft(candidates[selection.index]);
 */
export async function webJudgeBestOfK(apps: readonly WebApp[], rubric: WebRubric, opts: WebJudgeBestOfKOptions): Promise<{ selection: BestOfKSelection; results: WebJudgeReward[] }> {
  const fn = 'webJudgeBestOfK';
  const o = parseOptions(fn, WebJudgeBestOfKOptionsSchema, opts);
  const list = parseWith(fn, 'apps', WebAppsSchema, apps);
  const { select, ...rewardOpts } = o;
  const own = o.run?.browser === undefined ? await launchWebBrowser(o.run?.executablePath ? { executablePath: o.run.executablePath } : {}) : null;
  const results: WebJudgeReward[] = [];
  try {
    for (let i = 0; i < list.length; i++) {
      results.push(
        await webJudgeReward(list[i]!, rubric, {
          ...(rewardOpts as WebJudgeRewardOptions),
          outDir: join(o.outDir, `candidate-${i}`),
          run: { ...(o.run ?? {}), ...(own ? { browser: own } : {}) },
        }),
      );
    }
  } finally {
    await own?.close();
  }
  return { selection: selectBestOfK(results.map((r) => r.reward), select), results };
}
