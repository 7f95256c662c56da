import { finiteNumber } from '../errors/validate.js';
import { checkTasks, type EvaluatorTask } from './evaluatorTasks.js';

/** The outcome of {@link thresholdScore}. */
export interface ThresholdScoreResult {
  /** Mean unit-test score of the accepted samples; `null` when none is accepted. */
  mean: number | null;
  /** Number of accepted samples `|A_theta|` (pooled over tasks). */
  count: number;
}

/**
 * Threshold-conditioned unit-test score (Verification Horizon §5.2, Tables 7 and 9; SPEC §6):
 * the mean unit-test score of the samples the evaluator scores at least `theta`,
 * pooled over all tasks, with the number of such samples.
 *
 * ```
 * A_theta        = { (j, k) : S_eval^(j,k) >= theta }
 * S_UT_bar(theta) = (1/|A_theta|) sum_{(j,k) in A_theta} S_UT^(j,k)
 * ```
 * The paper reports both numbers, e.g. `0.625 (68)` at `theta >= 8`.
 * `mean` is always finite: when the plain sum of the accepted scores overflows
 * (scores near ±1.8e308) it is recomputed as a running mean of the halved scores.
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @param theta - the evaluator-score threshold (inclusive), a finite number
 * @returns `{ mean, count }`; `mean` is `null` when `count = 0`
 * @throws FrognanoError `NON_FINITE` / `INVALID_TYPE` (`theta`) and the task errors of {@link bonAccuracy}
 * @example thresholdScore([{ ut: [0.2, 0.9], eval: [3, 8] }, { ut: [0.5, 0.1], eval: [8, 9] }], 8) // { mean: 0.5, count: 3 }
 */
export function thresholdScore(tasks: readonly EvaluatorTask[], theta: number): ThresholdScoreResult {
  const fn = 'thresholdScore';
  const ts = checkTasks(fn, tasks);
  finiteNumber(fn, 'theta', theta);
  let sum = 0;
  let count = 0;
  for (const t of ts) {
    for (let k = 0; k < t.ut.length; k++) {
      if (t.eval[k]! >= theta) {
        sum += t.ut[k]!;
        count++;
      }
    }
  }
  if (count === 0) return { mean: null, count };
  if (sum - sum === 0) return { mean: sum / count, count };
  // The plain sum overflowed (unit-test scores near ±1.8e308): a running mean of the
  // halved scores, |x/2 - m| <= 1.8e308, stays finite and its double is within the scores' range.
  let m = 0;
  let seen = 0;
  for (const t of ts) {
    for (let k = 0; k < t.ut.length; k++) {
      if (t.eval[k]! >= theta) {
        seen++;
        m += (t.ut[k]! / 2 - m) / seen;
      }
    }
  }
  // Rounding can push 2m an ulp past the largest score: keep it in range.
  return { mean: Math.min(Number.MAX_VALUE, Math.max(-Number.MAX_VALUE, 2 * m)), count };
}
