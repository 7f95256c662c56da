import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteNumber, integerAtLeast } from '../errors/validate.js';

/**
 * Unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language
 * Models Trained on Code"; used for FrogNano's pass@k and pass@8 curves, §5.2 and
 * App. B, Fig. 14/15; SPEC §6).
 *
 * ```
 * pass@k = 1 - C(n - c, k) / C(n, k)
 *        = 1 - prod_{i = n-c+1}^{n} (1 - k / i)     (numerically stable form)
 *        = 1                                        if n - c < k
 * ```
 * `n` samples were drawn for a task, `c` of them passed; the value is the
 * probability that at least one of `k` samples drawn without replacement from
 * the `n` passes. Average it over tasks for the benchmark score.
 *
 * @param n - samples drawn, an integer `>= 1`
 * @param c - samples that passed, an integer `0 <= c <= n`
 * @param k - the `k` of pass@k, an integer `1 <= k <= n`
 * @returns a probability in [0, 1]
 * @throws FrognanoError `INVALID_TYPE` (not a number), `NON_FINITE` (NaN/±Infinity) or
 *   `OUT_OF_RANGE` (`n`, `c` or `k` not an integer in its range)
 * @example passAtK(10, 3, 1) // 0.3
 * @example passAtK(4, 2, 2)  // 1 - C(2,2)/C(4,2) = 5/6
 */
export function passAtK(n: number, c: number, k: number): number {
  const fn = 'passAtK';
  integerAtLeast(fn, 'n', n, 1);
  finiteNumber(fn, 'c', c);
  finiteNumber(fn, 'k', k);
  if (!Number.isInteger(c) || c < 0 || c > n) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `c must be an integer with 0 <= c <= n (${n}), got ${c}`, { fn, field: 'c' });
  }
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `k must be an integer with 1 <= k <= n (${n}), got ${k}`, { fn, field: 'k' });
  }
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}
