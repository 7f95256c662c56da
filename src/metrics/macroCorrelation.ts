import { checkTasks, type EvaluatorTask } from './evaluatorTasks.js';

/** True when not every element equals the first (exact comparison). */
function varies(xs: ArrayLike<number>): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i] !== xs[0]) return true;
  return false;
}

/**
 * Pearson correlation of two equal-length vectors that both vary, computed on
 * centred values and clipped to [-1, 1] against rounding (as scipy.stats.pearsonr).
 * @internal
 */
export function pearsonUnchecked(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  // Running means and deviations scaled by their largest magnitude: no overflow
  // or underflow for any finite input.
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += (x[i]! - mx) / (i + 1);
    my += (y[i]! - my) / (i + 1);
  }
  let ax = 0;
  let ay = 0;
  for (let i = 0; i < n; i++) {
    ax = Math.max(ax, Math.abs(x[i]! - mx));
    ay = Math.max(ay, Math.abs(y[i]! - my));
  }
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (x[i]! - mx) / ax;
    const dy = (y[i]! - my) / ay;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const r = sxy / (Math.sqrt(sxx) * Math.sqrt(syy));
  return Math.max(-1, Math.min(1, r));
}

/**
 * 1-based ranks with ties given their average rank (scipy.stats.rankdata 'average').
 * @internal
 */
export function averageRanks(xs: ArrayLike<number>): number[] {
  const n = xs.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const ranks = new Array<number>(n);
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && xs[order[j + 1]!] === xs[order[i]!]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]!] = avg;
    i = j + 1;
  }
  return ranks;
}

function macro(fn: string, tasks: readonly EvaluatorTask[], coefficient: (x: ArrayLike<number>, y: ArrayLike<number>) => number): number | null {
  const ts = checkTasks(fn, tasks);
  let sum = 0;
  let used = 0;
  for (const t of ts) {
    if (!varies(t.ut) || !varies(t.eval)) continue; // a one-sample task never varies
    sum += coefficient(t.ut, t.eval);
    used++;
  }
  return used === 0 ? null : sum / used;
}

/**
 * Macro-averaged Pearson correlation between unit-test and evaluator scores
 * (Verification Horizon §5.2, `r_eval` / `r_pass`; SPEC §6): Pearson's `r` inside
 * each task, averaged over the tasks where it is defined.
 *
 * ```
 * r_j    = sum_k (ut_k - mean ut)(eval_k - mean eval) / sqrt(sum_k (ut_k - mean ut)^2 * sum_k (eval_k - mean eval)^2)
 * result = mean of r_j over tasks with >= 2 samples where neither ut nor eval is constant
 * ```
 * Tasks where `ut` or `eval` is constant (including one-sample tasks) have no
 * correlation and are left out of the average, not counted as 0. Each `r_j` is
 * clipped to [-1, 1] against rounding, as scipy.stats.pearsonr does.
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @returns the macro average in [-1, 1], or `null` when no task qualifies
 * @throws FrognanoError `INVALID_TYPE` (not an array of `{ ut, eval }`), `EMPTY_INPUT` (no task,
 *   or an empty `tasks[j].ut` / `tasks[j].eval`), `NON_FINITE` (NaN/±Infinity score) or
 *   `LENGTH_MISMATCH` (`tasks[j].eval` and `tasks[j].ut` differ in length)
 * @example macroPearson([{ ut: [0, 1, 2], eval: [1, 3, 5] }, { ut: [1, 2], eval: [4, 4] }]) // 1 (the 2nd task is skipped)
 */
export function macroPearson(tasks: readonly EvaluatorTask[]): number | null {
  return macro('macroPearson', tasks, pearsonUnchecked);
}

/**
 * Macro-averaged Spearman rank correlation between unit-test and evaluator
 * scores (Verification Horizon §5.2, `rho_eval` / `rho_pass`; SPEC §6): Pearson's
 * `r` of the within-task ranks (ties get their average rank, as
 * scipy.stats.spearmanr), averaged over the tasks where it is defined (same rule
 * as {@link macroPearson}).
 *
 * @param tasks - per task, the unit-test and evaluator scores of its samples
 * @returns the macro average in [-1, 1], or `null` when no task qualifies
 * @throws FrognanoError as {@link macroPearson}
 * @example macroSpearman([{ ut: [0, 1, 5], eval: [1, 2, 3] }]) // 1 (monotone, not linear)
 */
export function macroSpearman(tasks: readonly EvaluatorTask[]): number | null {
  return macro('macroSpearman', tasks, (x, y) => pearsonUnchecked(averageRanks(x), averageRanks(y)));
}
