import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteMatrix, parseOptions, sameShape } from '../errors/validate.js';
import { ldexp, unitExponent } from '../numeric/ldexp.js';

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
 * Numerics: each group is first scaled by a power of two `2^e` so that
 * `max_j |R_j| 2^e` lies in [1, 2) (exact, and undone exactly), so the mean and
 * the std never overflow or underflow, whatever the rewards' magnitude:
 * `groupAdvantages([[1e200, 0]])` is `[0.7071, -0.7071]` and
 * `[[1.7e308, 1.7e308, 0]]` gives `[0.577, 0.577, -1.155]`. With `eps = 0` the
 * std-scaled advantages are invariant to multiplying a group by any `c > 0`
 * (up to the rounding of `c R_j`); with `eps > 0` they are not (`eps` is in
 * reward units). With `scale: 'none'` a centred reward `R_j - mean` beyond the
 * float64 range (rewards spread over more than 1.8e308) is `OUT_OF_RANGE`,
 * never ±Infinity.
 *
 * Defaults: `scale 'std'`, `std 'sample'`, `eps 1e-6` (verl's `compute_grpo_outcome_advantage`
 * uses `torch.std`, i.e. Bessel-corrected, and `epsilon = 1e-6`).
 *
 * @param groups - rewards, one row per task group (rows may differ in length)
 * @throws FrognanoError `INVALID_TYPE`, `NON_FINITE` (naming `groups[i][j]`), `EMPTY_INPUT`
 *   (no groups or an empty group), `LENGTH_MISMATCH` (`filterBy` shape), `OUT_OF_RANGE` (`eps < 0`;
 *   with `scale: 'none'`, a centred reward beyond the float64 range, naming `groups[i][j]`)
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
    // Equal rewards in a kept group (possible with filterBy): every R_j - mean is exactly 0.
    if (!kept[i] || allEqual(r)) continue;
    // y = R * 2^e with max |y| in [1, 2): exact (a power of two), so the sums below
    // can neither overflow (|y| < 2) nor underflow, and for rewards of ordinary
    // size the result is bit-for-bit that of the unscaled formula.
    const e = unitExponent(maxAbs(r));
    const y = new Array<number>(g);
    for (let j = 0; j < g; j++) y[j] = ldexp(r[j]!, e);
    let sum = 0;
    for (let j = 0; j < g; j++) sum += y[j]!;
    const mean = sum / g;
    if (p.scale === 'none') {
      for (let j = 0; j < g; j++) {
        const a = ldexp(y[j]! - mean, -e);
        if (a - a !== 0) {
          throw new FrognanoError(
            ErrorCode.OUT_OF_RANGE,
            `groups[${i}][${j}] - mean(groups[${i}]) is beyond the float64 range (rewards spread over more than ${Number.MAX_VALUE}); scale the rewards down`,
            { fn, field: `groups[${i}][${j}]`, index: [i, j] },
          );
        }
        out[j] = a + 0;
      }
      continue;
    }
    let ss = 0;
    for (let j = 0; j < g; j++) ss += (y[j]! - mean) ** 2;
    // std(y) = 2^e std(R) exactly (the scale is an even power of 2 in ss), so
    // (R_j - mean) / (std(R) + eps) = (y_j - mean_y) / (std(y) + eps 2^e).
    const sd = Math.sqrt(ss / (p.std === 'sample' ? g - 1 : g));
    const epsY = ldexp(p.eps, e);
    if (epsY === Infinity) {
      // max |R| < 2^-1023 eps (subnormal rewards, eps >> std): A_j ~ (R_j - mean) / eps,
      // tiny: divide first, then scale back once (a single rounding into the subnormals).
      const den = ldexp(sd, -e) + p.eps;
      for (let j = 0; j < g; j++) out[j] = ldexp((y[j]! - mean) / den, -e) + 0;
      continue;
    }
    const denom = sd + epsY;
    if (denom === 0) continue;
    for (let j = 0; j < g; j++) out[j] = (y[j]! - mean) / denom + 0;
  }
  return { advantages, kept };
}

function allEqual(xs: ArrayLike<number>): boolean {
  const first = xs[0];
  for (let j = 1; j < xs.length; j++) if (xs[j] !== first) return false;
  return true;
}

function maxAbs(xs: ArrayLike<number>): number {
  let m = 0;
  for (let j = 0; j < xs.length; j++) {
    const a = Math.abs(xs[j]!);
    if (a > m) m = a;
  }
  return m;
}

