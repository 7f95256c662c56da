import { checkTasks, type EvaluatorTask } from './evaluatorTasks.js';

/**
 * Pooled pairwise Kendall's tau between evaluator and unit-test scores
 * (Verification Horizon §5.2; SPEC §6).
 *
 * For every task and every pair of its samples `(k, l)` with `S_UT^k != S_UT^l`:
 * `+1` when the evaluator orders them the same way (concordant), `-1` when the
 * other way (discordant), `0` when `S_eval^k == S_eval^l` (the pair still counts
 * in the denominator). The result is the mean of these scores over all such pairs
 * pooled across tasks (a micro average: tasks with more distinct-ut pairs weigh
 * more). Pairs tied in `ut` are skipped. This is neither scipy's tau-b nor tau-a;
 * it is the paper's definition.
 *
 * ```
 * tau = sum_j sum_{k<l, ut_k != ut_l} sign(ut_k - ut_l) * sign(eval_k - eval_l)  /  #{such pairs}
 * ```
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @returns tau in [-1, 1], or `null` when no task has a pair with different `ut`
 *   (the mean over zero pairs is undefined; SPEC §6 is silent, `null` as for the macro correlations)
 * @throws FrognanoError `INVALID_TYPE` (not an array of `{ ut, eval }`), `EMPTY_INPUT` (no task,
 *   or an empty `tasks[j].ut` / `tasks[j].eval`), `NON_FINITE` (NaN/±Infinity score) or
 *   `LENGTH_MISMATCH` (`tasks[j].eval` and `tasks[j].ut` differ in length)
 * @example kendallTau([{ ut: [0, 0.5, 1], eval: [1, 3, 2] }]) // (+1 +1 -1) / 3 = 1/3
 */
export function kendallTau(tasks: readonly EvaluatorTask[]): number | null {
  const ts = checkTasks('kendallTau', tasks);
  let score = 0;
  let pairs = 0;
  for (const t of ts) {
    const { ut, eval: ev } = t;
    for (let k = 0; k < ut.length; k++) {
      for (let l = k + 1; l < ut.length; l++) {
        const du = ut[k]! - ut[l]!;
        if (du === 0) continue;
        pairs++;
        const de = ev[k]! - ev[l]!;
        if (de !== 0) score += (du > 0) === (de > 0) ? 1 : -1;
      }
    }
  }
  return pairs === 0 ? null : score / pairs;
}
