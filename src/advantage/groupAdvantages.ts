import { z } from 'zod';
import { finiteMatrix, parseOptions, sameShape } from '../errors/validate.js';

/** Options of {@link groupAdvantages}. */
export const GroupAdvantagesOptionsSchema = z
  .object({
    /** `'std'`: divide the centred reward by `std + eps` (GRPO, FrogNano §4.1). `'none'`: `A = R - mean` (GAGAR §3.1, Dr. GRPO). Default `'std'`. */
    scale: z.enum(['std', 'none']).default('std'),
    /** `'sample'`: Bessel-corrected std (n - 1), as verl, TRL, slime and OpenRLHF (`torch.std`). `'population'`: divide by n. Default `'sample'`. */
    std: z.enum(['sample', 'population']).default('sample'),
    /** Added to the std before dividing. Default `1e-6` (verl uses the same). Must be >= 0. */
    eps: z.number().min(0).default(1e-6),
    /**
     * The rewards the zero-variance filter looks at, same shape as `groups`.
     * FrogNano filters on RAW task outcomes (0/1), not on shaped rewards: pass
     * the raw outcomes here and the shaped rewards as `groups`. Default: `groups` itself.
     */
    filterBy: z.array(z.any()).optional(),
  })
  .strict();
/** Options of {@link groupAdvantages} as the caller writes them. */
export interface GroupAdvantagesOptions {
  /** `'std'` (default) or `'none'`. See {@link GroupAdvantagesOptionsSchema}. */
  scale?: 'std' | 'none';
  /** `'sample'` (default, Bessel) or `'population'`. */
  std?: 'sample' | 'population';
  /** Default `1e-6`. */
  eps?: number;
  /** Raw outcomes for the zero-variance filter, same shape as `groups`. */
  filterBy?: ArrayLike<number>[];
}

/** Result of {@link groupAdvantages}. */
export interface GroupAdvantagesResult {
  /** One advantage per rollout, same shape as the input groups; all 0 in a dropped group. */
  advantages: number[][];
  /** `kept[i]` is false when group `i` was dropped by the zero-variance filter. */
  kept: boolean[];
}

/**
 * Group-relative advantages with the zero-variance (dynamic-sampling) filter
 * (FrogNano §4.1; GAGAR §3.1; SPEC §2).
 *
 * For each group `R = (R_1..R_G)` of rollouts of one task:
 * ```
 * dropped  if every value of filterBy[i] (default groups[i]) is equal, or G = 1
 * A_j = (R_j - mean(R)) / (std(R) + eps)     scale = 'std'  (std: sample = Bessel n-1, or population)
 * A_j =  R_j - mean(R)                       scale = 'none'
 * ```
 * A dropped group has `kept = false` and all advantages 0: it carries no
 * learning signal. In a kept group the advantages sum to 0. When the shaped
 * rewards of a kept group are all equal while its raw outcomes are not (possible
 * with a `floor`), the std is 0: with `eps = 0` the advantages are then 0, not NaN.
 *
 * Defaults: `scale 'std'`, `std 'sample'`, `eps 1e-6` (verl's `compute_grpo_outcome_advantage`
 * uses `torch.std`, i.e. Bessel-corrected, and `epsilon = 1e-6`).
 *
 * @param groups - rewards, one row per task group (rows may differ in length)
 * @throws FrognanoError `INVALID_TYPE`, `NON_FINITE` (naming `groups[i][j]`), `EMPTY_INPUT`
 *   (no groups or an empty group), `LENGTH_MISMATCH` (`filterBy` shape), `OUT_OF_RANGE` (`eps < 0`)
 * @example
 * groupAdvantages([[1, 0, 0, 1], [1, 1, 1, 1]])
 * // { advantages: [[0.866, -0.866, -0.866, 0.866], [0, 0, 0, 0]], kept: [true, false] }
 */
export function groupAdvantages(groups: ArrayLike<number>[], opts: GroupAdvantagesOptions = {}): GroupAdvantagesResult {
  const fn = 'groupAdvantages';
  const p = parseOptions(fn, GroupAdvantagesOptionsSchema, opts);
  finiteMatrix(fn, 'groups', groups, { minRows: 1, minCols: 1 });
  let filter: ArrayLike<number>[] = groups;
  if (p.filterBy !== undefined) {
    filter = finiteMatrix(fn, 'opts.filterBy', p.filterBy);
    sameShape(fn, 'groups', groups, 'opts.filterBy', filter);
  }
  const advantages: number[][] = new Array(groups.length);
  const kept: boolean[] = new Array(groups.length);
  for (let i = 0; i < groups.length; i++) {
    const r = groups[i]!;
    const g = r.length;
    const out = new Array<number>(g).fill(0);
    advantages[i] = out;
    kept[i] = g > 1 && !allEqual(filter[i]!);
    if (!kept[i]) continue;
    let sum = 0;
    for (let j = 0; j < g; j++) sum += r[j]!;
    const mean = sum / g;
    let denom = 1;
    if (p.scale === 'std') {
      let ss = 0;
      for (let j = 0; j < g; j++) ss += (r[j]! - mean) ** 2;
      denom = Math.sqrt(ss / (p.std === 'sample' ? g - 1 : g)) + p.eps;
    }
    // denom is 0 only when std = 0 and eps = 0; then every R_j - mean is 0 too.
    if (denom === 0) continue;
    for (let j = 0; j < g; j++) out[j] = (r[j]! - mean) / denom;
  }
  return { advantages, kept };
}

function allEqual(xs: ArrayLike<number>): boolean {
  const first = xs[0];
  for (let j = 1; j < xs.length; j++) if (xs[j] !== first) return false;
  return true;
}
