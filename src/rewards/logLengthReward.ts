import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteNumber, integerAtLeast } from '../errors/validate.js';

/**
 * Success-gated logarithmic length reward (FrogNano §4.2; SPEC §1).
 *
 * ```
 * r(n) = 1                          if n <= N
 *      = 1 - alpha * ln(n / N)      otherwise
 * ```
 * `n` is the number of assistant-generated tokens (reasoning, text and
 * tool-call tokens; never tool observations), `N` the budget, `alpha` the
 * penalty strength. No clamp is applied here: pass `floor` to
 * {@link shapeReward} to bound it from below. Since `ln(n / N) <= ln(1.8e308) < 710`,
 * the reward is finite unless `alpha` is astronomically large (`alpha * ln(n/N) > 1.8e308`,
 * e.g. `logLengthReward(1e9, 1, 1e308)`): that is `OUT_OF_RANGE` (naming `alpha`), never -Infinity.
 *
 * @param n - assistant tokens, an integer `>= 0`
 * @param budget - the allowed budget `N`, `>= 1`
 * @param alpha - penalty strength, `>= 0`
 * @throws FrognanoError `NON_FINITE` (NaN/±Infinity), `INVALID_TYPE` (not a number) or
 *   `OUT_OF_RANGE` (`n` not an integer >= 0, `budget < 1`, `alpha < 0`, a reward beyond float64)
 * @example logLengthReward(2000, 1000, 0.1) // 1 - 0.1 * ln 2 = 0.93069
 */
export function logLengthReward(n: number, budget: number, alpha: number): number {
  const fn = 'logLengthReward';
  integerAtLeast(fn, 'n', n, 0);
  finiteNumber(fn, 'budget', budget);
  finiteNumber(fn, 'alpha', alpha);
  if (budget < 1) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `budget must be >= 1, got ${budget}`, { fn, field: 'budget' });
  if (alpha < 0) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `alpha must be >= 0, got ${alpha}`, { fn, field: 'alpha' });
  const r = logLengthUnchecked(n, budget, alpha);
  if (r - r !== 0) {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `alpha * ln(n / budget) = ${alpha} * ${Math.log(n / budget)} is beyond the float64 range: the reward would be -Infinity; use a smaller alpha`,
      { fn, field: 'alpha' },
    );
  }
  return r;
}

/**
 * The formula of {@link logLengthReward} without validation, for loops over validated input.
 * May return -Infinity for an astronomically large `alpha` (see {@link logLengthReward}):
 * callers clamp (`shapeReward`'s `floor`) or check. @internal
 */
export function logLengthUnchecked(n: number, budget: number, alpha: number): number {
  return n <= budget ? 1 : 1 - alpha * Math.log(n / budget);
}
