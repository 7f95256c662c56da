import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, sameLength } from '../errors/validate.js';

/**
 * Checks that `value` is an array of booleans; returns it typed.
 * @internal
 */
export function booleanArray(fn: string, field: string, value: unknown): readonly boolean[] {
  if (!Array.isArray(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be an array of booleans, got ${describeValue(value)}`, { fn, field });
  }
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'boolean') {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field}[${i}] must be a boolean, got ${describeValue(value[i])}`, {
        fn,
        field: `${field}[${i}]`,
        index: [i],
      });
    }
  }
  return value as boolean[];
}

/**
 * Checks that `value` is a permutation of `0..n-1` (a ranking of `n` candidates).
 * `INVALID_TYPE` for a non-array or non-number entry, `LENGTH_MISMATCH` for a wrong
 * length (named against `otherField`), `OUT_OF_RANGE` for an entry that is not an
 * index in range or repeats one.
 */
function permutationOf(fn: string, field: string, value: unknown, n: number, otherField: string): readonly number[] {
  if (!Array.isArray(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be an array of candidate indices, got ${describeValue(value)}`, { fn, field });
  }
  sameLength(fn, otherField, { length: n }, field, value);
  const seen = new Uint8Array(n);
  for (let r = 0; r < value.length; r++) {
    const x: unknown = value[r];
    const where = `${field}[${r}]`;
    if (typeof x !== 'number') {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} must be a candidate index, got ${describeValue(x)}`, { fn, field: where, index: [r] });
    }
    if (!Number.isInteger(x) || x < 0 || x >= n) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} must be an integer index in [0, ${n - 1}], got ${describeValue(x)}`, {
        fn,
        field: where,
        index: [r],
      });
    }
    if (seen[x]) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} repeats candidate ${x}: ${field} must be a permutation of 0..${n - 1}`, {
        fn,
        field: where,
        index: [r],
      });
    }
    seen[x] = 1;
  }
  return value as number[];
}

/**
 * Reciprocal-rank reward of a ranking verifier (FrogNano §5.2, "Verifier"; SPEC §6).
 *
 * ```
 * r* = min_{i : passed_i} rank(i)        (1-based rank of the best-ranked passing candidate)
 * R  = 1 / r*,   or 0 when no candidate passes
 * ```
 * FrogNano trains its patch-ranking verifier with GRPO on this reward, on groups
 * of k = 2..8 candidates that contain both a pass and a fail.
 *
 * @param ranking - candidate indices, best first: a permutation of `0..passed.length-1`
 * @param passed - `passed[i]`: candidate `i` passes its tests
 * @returns a reward in {0} ∪ {1, 1/2, 1/3, ...}
 * @throws FrognanoError `EMPTY_INPUT` (no candidate), `INVALID_TYPE` (non-array, non-boolean
 *   `passed[i]`, non-number `ranking[r]`), `LENGTH_MISMATCH` (`ranking` and `passed` differ in
 *   length) or `OUT_OF_RANGE` (`ranking[r]` not an index in range, or a repeated index)
 * @example reciprocalRankReward([2, 1, 0], [false, true, false]) // candidate 1 ranked 2nd -> 0.5
 */
export function reciprocalRankReward(ranking: readonly number[], passed: readonly boolean[]): number {
  const fn = 'reciprocalRankReward';
  const p = booleanArray(fn, 'passed', passed);
  if (p.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'passed must have at least 1 element, got 0', { fn, field: 'passed' });
  const rk = permutationOf(fn, 'ranking', ranking, p.length, 'passed');
  for (let r = 0; r < rk.length; r++) if (p[rk[r]!]) return 1 / (r + 1);
  return 0;
}
