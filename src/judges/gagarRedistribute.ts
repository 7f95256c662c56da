import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, isArrayLikeOfAny, parseOptions, sameLength } from '../errors/validate.js';

/**
 * `lambdaMax`: a number >= 1, `Infinity` included (the exact conserving
 * formula). NaN is `NON_FINITE`, a non-number `INVALID_TYPE`, anything below 1
 * (`-Infinity` included) `OUT_OF_RANGE`.
 */
const LambdaMaxSchema = z.custom<number>().superRefine((v, ctx) => {
  const got = describeValue(v);
  if (typeof v !== 'number') {
    ctx.addIssue({ code: 'custom', message: `must be a number >= 1 or Infinity, got ${got}`, params: { code: ErrorCode.INVALID_TYPE } });
  } else if (Number.isNaN(v)) {
    ctx.addIssue({ code: 'custom', message: `must be a number >= 1 or Infinity, got NaN`, params: { code: ErrorCode.NON_FINITE } });
  } else if (!(v >= 1)) {
    ctx.addIssue({ code: 'custom', message: `must be >= 1 (or Infinity), got ${got}`, params: { code: ErrorCode.OUT_OF_RANGE } });
  }
});

/** Options of {@link gagarRedistribute} and {@link gagarRedistributeDetailed}. */
export const GagarRedistributeOptionsSchema = z
  .object({
    /**
     * Upper bound `lambda_max` of the redistribution factor (GAGAR App. A.2, Eq. 7:
     * `lambda_bnd = min(lambda, lambdaMax)`). Default 1.5. Must be >= 1;
     * `Infinity` gives the exact conserving formula (GAGAR Eq. 2-4).
     */
    lambdaMax: LambdaMaxSchema.default(1.5),
  })
  .strict();
/** Options of {@link gagarRedistribute} as the caller writes them. */
export type GagarRedistributeOptions = z.input<typeof GagarRedistributeOptionsSchema>;

/** The full result of {@link gagarRedistributeDetailed}, for audit logs. */
export interface GagarRedistribution {
  /** The redistributed advantages `A'`, one per group member, in input order. */
  advantages: number[];
  /**
   * False when every reward of the group is equal: the group carries no signal
   * and every advantage is 0 (as `kept` of `groupAdvantages`).
   */
  kept: boolean;
  /**
   * The conserving factor `lambda = sum_S A_i / sum_S c_i A_i` (>= 1); 1 when the group is
   * not kept or has no member above the mean. Can be `Infinity` only for coefficients
   * so small (< ~1e-308) that `1 / c` overflows; the advantages stay finite.
   */
  lambda: number;
  /** The factor actually applied: `min(lambda, lambdaMax)`. */
  lambdaUsed: number;
  /** True when `lambda > lambdaMax`, i.e. the capped branch ran and the group mean was subtracted. */
  capped: boolean;
  /** The group mean subtracted from every member in the capped branch (<= 0, so members move up); 0 otherwise. */
  shift: number;
}

/** A coefficients array: numbers at the successes; failures' entries may be any number, NaN, `null` or absent. */
export type GagarCoefficientArray = ArrayLike<number | null | undefined>;

function badCoefficient(fn: string, code: ErrorCode, i: number, detail: string): never {
  throw new FrognanoError(code, `coefficients[${i}] ${detail}`, { fn, field: `coefficients[${i}]`, index: [i] });
}

/** Never return NaN or ±Infinity: finite rewards near ±1e308 can still overflow float64 in the mean or in R - mean. */
function checkFinite(fn: string, out: number[]): number[] {
  for (let i = 0; i < out.length; i++) {
    const v = out[i]!;
    if (v - v !== 0) {
      throw new FrognanoError(
        ErrorCode.OUT_OF_RANGE,
        `rewards / coefficients too extreme for float64: advantage ${i} would be ${describeValue(v)} (reward magnitudes overflow float64)`,
        { fn, field: 'rewards', index: [i] },
      );
    }
  }
  return out;
}

function redistribute(
  fn: string,
  rewards: ArrayLike<number>,
  coefficients: GagarCoefficientArray,
  opts: GagarRedistributeOptions | undefined,
): GagarRedistribution {
  const { lambdaMax } = parseOptions(fn, GagarRedistributeOptionsSchema, opts);
  const r = finiteArray(fn, 'rewards', rewards, { minLength: 1 });
  if (!isArrayLikeOfAny(coefficients)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `coefficients must be an array, got ${describeValue(coefficients)}`, {
      fn,
      field: 'coefficients',
    });
  }
  sameLength(fn, 'rewards', r, 'coefficients', coefficients);
  const n = r.length;

  const r0 = r[0]!;
  let allEqual = true;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const x = r[i]!;
    if (x !== r0) allEqual = false;
    sum += x;
  }
  const mean = sum / n;

  // Base advantages A_i = R_i - mean(R); S = { i : A_i > 0 } with its coefficients checked.
  const base = new Array<number>(n);
  const coef = new Array<number>(n).fill(0);
  let sumA = 0;
  let maxA = 0;
  for (let i = 0; i < n; i++) {
    const a = allEqual ? 0 : r[i]! - mean;
    base[i] = a;
    const c = coefficients[i];
    if (a > 0) {
      if (typeof c !== 'number') badCoefficient(fn, ErrorCode.INVALID_TYPE, i, `(a success) must be a number in (0, 1], got ${describeValue(c)}`);
      if (c - c !== 0) badCoefficient(fn, ErrorCode.NON_FINITE, i, `(a success) must be a finite number in (0, 1], got ${describeValue(c)}`);
      if (!(c > 0 && c <= 1)) {
        badCoefficient(fn, ErrorCode.OUT_OF_RANGE, i, `(a success) must lie in (0, 1] (lambda would be infinite or negative), got ${c}`);
      }
      coef[i] = c;
      sumA += a;
      if (a > maxA) maxA = a;
    } else if (c !== null && c !== undefined && typeof c !== 'number') {
      badCoefficient(fn, ErrorCode.INVALID_TYPE, i, `(a failure, ignored) must be a number, null or absent, got ${describeValue(c)}`);
    }
  }

  if (allEqual) return { advantages: base, kept: false, lambda: 1, lambdaUsed: 1, capped: false, shift: 0 };
  // Not all equal, yet nobody strictly above the float64 mean: only reachable through
  // rounding with nearly equal rewards. Nothing to redistribute.
  if (sumA === 0) return { advantages: checkFinite(fn, base), kept: true, lambda: 1, lambdaUsed: 1, capped: false, shift: 0 };

  // lambda is scale-free, so compute it on a_i = A_i / max_S A (in (0, 1]): then
  // sum_S c_i a_i >= c of the largest member > 0 never underflows, whatever the
  // magnitudes (subnormal rewards included).
  let sumScaled = 0;
  let sumCScaled = 0;
  for (let i = 0; i < n; i++) {
    const a = base[i]!;
    if (a > 0) {
      const s = a / maxA;
      sumScaled += s;
      sumCScaled += coef[i]! * s;
    }
  }
  const lambda = sumScaled / sumCScaled;
  const capped = lambda > lambdaMax;
  const lambdaUsed = capped ? lambdaMax : lambda;
  const finiteLambda = lambdaUsed !== Infinity;
  const out = new Array<number>(n);
  let outSum = 0;
  for (let i = 0; i < n; i++) {
    const a = base[i]!;
    // lambda c_i A_i, or, when 1/c overflowed lambda to Infinity, the same value written
    // as sum_S A * (c_i a_i / sum_S c a) (a weight in (0, 1], no overflow, no 0/0).
    const v = a > 0 ? (finiteLambda ? lambdaUsed * coef[i]! * a : sumA * ((coef[i]! * (a / maxA)) / sumCScaled)) : a;
    out[i] = v;
    outSum += v;
  }
  let shift = 0;
  if (capped) {
    shift = outSum / n;
    for (let i = 0; i < n; i++) out[i] = out[i]! - shift;
  }
  return { advantages: checkFinite(fn, out), kept: true, lambda, lambdaUsed, capped, shift };
}

/**
 * GAGAR quality-weighted advantage redistribution (GAGAR §3, Eq. 2-4 and App. A.2,
 * Eq. 7; SPEC §4), with the audit numbers. See {@link gagarRedistribute} for
 * the formula; this returns `{ advantages, kept, lambda, lambdaUsed, capped, shift }`.
 *
 * @throws FrognanoError as {@link gagarRedistribute} (messages name `gagarRedistributeDetailed`)
 * @example
 * gagarRedistributeDetailed([1, 1, 0, 0], [1.0, 0.2, null, null])
 * // { advantages: [0.775, 0.175, -0.475, -0.475], kept: true, lambda: 1.6667, lambdaUsed: 1.5, capped: true, shift: -0.025 }
 */
export function gagarRedistributeDetailed(
  rewards: ArrayLike<number>,
  coefficients: GagarCoefficientArray,
  opts?: GagarRedistributeOptions,
): GagarRedistribution {
  return redistribute('gagarRedistributeDetailed', rewards, coefficients, opts);
}

/**
 * GAGAR quality-weighted advantage redistribution (GAGAR §3, Eq. 2-4 and
 * App. A.2, Eq. 7; SPEC §4). Successful members of a rollout group give up or
 * gain positive advantage according to their judged quality coefficient, so
 * that (uncapped) the total positive advantage of the group is unchanged.
 *
 * ```
 * all R_i equal                -> A'_i = 0 for every i (no signal)
 * A_i = R_i - mean(R)          (no std scaling)
 * S = { i : A_i > 0 }          (the successes)
 * lambda = sum_S A_i / sum_S c_i A_i          (>= 1 because c_i <= 1)
 * lambda <= lambdaMax:  A'_i = lambda c_i A_i on S, A'_i = A_i elsewhere
 *                       (positive mass conserved exactly, failures unchanged, group sum 0)
 * lambda >  lambdaMax:  B_i = lambdaMax c_i A_i on S, B_i = A_i elsewhere;
 *                       A'_i = B_i - mean(B)   (order kept, group sum 0, conservation no longer exact)
 * ```
 * `lambdaMax` defaults to 1.5 (GAGAR App. A.2); `Infinity` is the exact
 * conserving formula.
 *
 * Rewards: GAGAR uses binary test outcomes (0 | 1), but the formula is
 * well defined for any finite rewards, so any finite numbers are accepted
 * (e.g. shaped rewards); "success" then means "strictly above the group mean".
 * The all-equal test runs on the rewards given here; to drop groups on raw
 * outcomes instead, filter upstream (`groupAdvantages`' `filterBy`).
 * An empty group is rejected (its mean is undefined).
 *
 * Coefficients: one entry per group member (same length as `rewards`), e.g.
 * {@link gagarCoefficients} scattered to the successes' indices. Entries of
 * members in `S` must be finite numbers in (0, 1] (0 or a negative value would
 * make lambda infinite or flip the sign). Entries of all other members are
 * ignored and may be any number (NaN included), `null` or absent (a hole),
 * matching the slides' `-`. When all rewards are equal no entry is read
 * beyond its type.
 *
 * @param rewards - the group's rewards, finite numbers (0 | 1 in GAGAR)
 * @param coefficients - quality coefficients, read only at members above the mean
 * @param opts - `{ lambdaMax = 1.5 }`
 * @returns the redistributed advantages, same length as `rewards`
 * @throws FrognanoError `EMPTY_INPUT` (no rewards), `NON_FINITE` / `INVALID_TYPE`
 *   (a bad reward or success coefficient, naming `rewards[i]` / `coefficients[i]`),
 *   `LENGTH_MISMATCH` (`coefficients` length), `OUT_OF_RANGE` (a success
 *   coefficient outside (0, 1], `opts.lambdaMax < 1`, or a float64 overflow)
 * @example
 * // GAGAR slides p.6: two successes (T1, T3) and two failures, R̄ = 0.5
 * gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, null, null], { lambdaMax: Infinity })
 * // lambda = 1 / (0.5 * 1.0 + 0.5 * 0.2) = 1.667 -> [0.8333, 0.1667, -0.5, -0.5]
 * gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, null, null])
 * // capped at 1.5: [0.75, 0.15, -0.5, -0.5] minus its mean -0.025 -> [0.775, 0.175, -0.475, -0.475]
 */
export function gagarRedistribute(
  rewards: ArrayLike<number>,
  coefficients: GagarCoefficientArray,
  opts?: GagarRedistributeOptions,
): number[] {
  return redistribute('gagarRedistribute', rewards, coefficients, opts).advantages;
}
