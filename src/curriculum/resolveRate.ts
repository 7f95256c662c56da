import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, isArrayLikeOfAny } from '../errors/validate.js';

/**
 * TaskPilot's estimate of a candidate task's resolve rate under the current
 * policy (FrogNano §3.1; SPEC §7):
 *
 * ```
 * p̂_policy = (1 / N) * sum_j R_j,   R_j ∈ {0, 1}
 * ```
 * where `R_j` says whether calibration rollout `j` passed every grading test.
 *
 * Each outcome may be a boolean or the number 0 / 1 (so the `raw` outcomes of
 * `shapeRewards` can be passed as they are). Any other number is rejected:
 * a shaped reward such as 0.5 is not a pass/fail outcome.
 *
 * @param outcomes - one pass/fail outcome per calibration rollout (N >= 1)
 * @returns the fraction of passing rollouts, in [0, 1]
 * @throws FrognanoError `EMPTY_INPUT` (no outcomes), `INVALID_TYPE` (not an array or typed
 *   array (a `DataView` is neither), a hole, or an element that is neither boolean nor number), `NON_FINITE` (NaN / ±Infinity)
 *   or `OUT_OF_RANGE` (a number other than 0 or 1), naming `outcomes[i]`
 * @example resolveRate([true, false, true, true]) // 0.75
 */
export function resolveRate(outcomes: ArrayLike<boolean | number>): number {
  const fn = 'resolveRate';
  if (!isArrayLikeOfAny(outcomes)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `outcomes must be an array of booleans, got ${describeValue(outcomes)}`, {
      fn,
      field: 'outcomes',
    });
  }
  const n = outcomes.length;
  if (n === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'outcomes must have at least 1 element, got 0', { fn, field: 'outcomes' });
  let passed = 0;
  for (let i = 0; i < n; i++) {
    const x: unknown = outcomes[i];
    if (x === true || x === 1) passed++;
    else if (x === false || x === 0) continue;
    else {
      const where = `outcomes[${i}]`;
      const code =
        typeof x !== 'number' ? ErrorCode.INVALID_TYPE : Number.isFinite(x) ? ErrorCode.OUT_OF_RANGE : ErrorCode.NON_FINITE;
      throw new FrognanoError(code, `${where} must be a boolean (or 0 / 1), got ${describeValue(x)}`, {
        fn,
        field: where,
        index: [i],
      });
    }
  }
  return passed / n;
}
