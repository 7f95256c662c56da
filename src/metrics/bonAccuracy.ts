import { argmaxFirst, checkTasks, maxOf, type EvaluatorTask } from './evaluatorTasks.js';

/**
 * Best-of-N accuracy of an evaluator (Verification Horizon §5.2; SPEC §6): the
 * share of tasks where the evaluator's pick has the maximal unit-test score.
 *
 * ```
 * k*_j    = argmax_k S_eval^(j,k)          (first index on ties)
 * BoN-Acc = (1/M) sum_j 1[ S_UT^(j,k*_j) = max_k S_UT^(j,k) ]
 * ```
 * A pick that ties the best unit-test score counts as correct (SPEC §6: "has the
 * maximal ut"), so ties in `ut` are not held against the evaluator.
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @returns a share in [0, 1]
 * @throws FrognanoError `INVALID_TYPE` (not an array of `{ ut, eval }`), `EMPTY_INPUT` (no task,
 *   or an empty `tasks[j].ut` / `tasks[j].eval`), `NON_FINITE` (NaN/±Infinity score) or
 *   `LENGTH_MISMATCH` (`tasks[j].eval` and `tasks[j].ut` differ in length)
 * @example bonAccuracy([{ ut: [0.2, 0.9], eval: [3, 8] }, { ut: [0.5, 0.1], eval: [4, 9] }]) // 0.5
 */
export function bonAccuracy(tasks: readonly EvaluatorTask[]): number {
  const ts = checkTasks('bonAccuracy', tasks);
  let hits = 0;
  for (const t of ts) if (t.ut[argmaxFirst(t.eval)] === maxOf(t.ut)) hits++;
  return hits / ts.length;
}

/**
 * Mean regret of an evaluator's best-of-N pick (Verification Horizon §5.2; SPEC §6).
 *
 * ```
 * k*_j     = argmax_k S_eval^(j,k)          (first index on ties)
 * Regret_j = max_k S_UT^(j,k) - S_UT^(j,k*_j)
 * result   = (1/M) sum_j Regret_j
 * ```
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @returns the mean regret, `>= 0`, in the units of `ut`
 * @throws FrognanoError as {@link bonAccuracy}
 * @example meanRegret([{ ut: [0.2, 0.9], eval: [3, 8] }, { ut: [0.5, 0.1], eval: [4, 9] }]) // (0 + 0.4) / 2 = 0.2
 */
export function meanRegret(tasks: readonly EvaluatorTask[]): number {
  const ts = checkTasks('meanRegret', tasks);
  let sum = 0;
  for (const t of ts) sum += maxOf(t.ut) - t.ut[argmaxFirst(t.eval)]!;
  return sum / ts.length;
}
