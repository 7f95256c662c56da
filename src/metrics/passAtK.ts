import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteNumber, integerAtLeast } from '../errors/validate.js';

/**
 * Below this many factors the ratio `C(n-c, k) / C(n, k)` is summed term by
 * term (at most this many `log1p` calls, well under a millisecond); above it the
 * asymptotic form of {@link logBinomialRatioAsymptotic} is used.
 * @internal
 */
export const PASS_AT_K_DIRECT_TERMS = 10_000;

/**
 * `ln R` below this means `R < e^-750`, far below the float64 spacing of 1
 * (2^-53), so `pass@k = 1 - R` is exactly 1 in float64.
 */
const LOG_RATIO_NEGLIGIBLE = -750;

/**
 * Unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language
 * Models Trained on Code"; used for FrogNano's pass@k and pass@8 curves, §5.2 and
 * App. B, Fig. 14/15; SPEC §6).
 *
 * ```
 * pass@k = 1 - R,   R = C(n - c, k) / C(n, k)
 *        = 1                                        if n - c < k
 *        = 0                                        if c = 0
 * R = prod_{i = n-c+1}^{n} (1 - k / i)  =  prod_{i = n-k+1}^{n} (1 - c / i)   (C(n-c,k)/C(n,k) = C(n-k,c)/C(n,c))
 * ```
 * `n` samples were drawn for a task, `c` of them passed; the value is the
 * probability that at least one of `k` samples drawn without replacement from
 * the `n` passes. Average it over tasks for the benchmark score.
 *
 * Cost and precision: the work is bounded by `min(c, k)`, never by `n`.
 * - `min(c, k) <= 10000` ({@link PASS_AT_K_DIRECT_TERMS}): the product over the
 *   `min(c, k)` factors of the shorter form above;
 * - `R` provably below `e^-750` (`min(c,k) * -ln(1 - max(c,k)/n) > 750`, since
 *   `R <= (1 - max(c,k)/n)^min(c,k)`): exactly 1, without a loop;
 * - otherwise `ln R` from a Stirling (log-gamma) expansion in closed form
 *   ({@link logBinomialRatioAsymptotic}), about 20 operations, then
 *   `pass@k = -expm1(ln R)`; relative error below 1e-12 (tested against the
 *   term-by-term sum).
 * When the product is above 1/2 (pass@k below 1/2), `1 - product` would cancel,
 * so pass@k is taken as `-expm1(sum of log1p(-k/i))` instead: full relative
 * precision down to pass@k ~ 1e-16 (e.g. `passAtK(9e15, 1, 1) = 1/9e15`).
 *
 * @param n - samples drawn, an integer with `1 <= n <= Number.MAX_SAFE_INTEGER` (2^53 - 1)
 * @param c - samples that passed, an integer `0 <= c <= n`
 * @param k - the `k` of pass@k, an integer `1 <= k <= n`
 * @returns a probability in [0, 1]
 * @throws FrognanoError `INVALID_TYPE` (not a number), `NON_FINITE` (NaN/±Infinity) or
 *   `OUT_OF_RANGE` (`n`, `c` or `k` not an integer in its range; `n` above
 *   `Number.MAX_SAFE_INTEGER`, where consecutive integers are no longer distinct doubles)
 * @example passAtK(10, 3, 1) // 0.3
 * @example passAtK(4, 2, 2)  // 1 - C(2,2)/C(4,2) = 5/6
 * @example passAtK(1e15, 1e9, 1e9) // 1 (R < e^-750), in microseconds
 */
export function passAtK(n: number, c: number, k: number): number {
  const fn = 'passAtK';
  integerAtLeast(fn, 'n', n, 1);
  finiteNumber(fn, 'c', c);
  finiteNumber(fn, 'k', k);
  if (n > Number.MAX_SAFE_INTEGER) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `n must be at most Number.MAX_SAFE_INTEGER (${Number.MAX_SAFE_INTEGER}), got ${n}`, {
      fn,
      field: 'n',
    });
  }
  if (!Number.isInteger(c) || c < 0 || c > n) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `c must be an integer with 0 <= c <= n (${n}), got ${c}`, { fn, field: 'c' });
  }
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `k must be an integer with 1 <= k <= n (${n}), got ${k}`, { fn, field: 'k' });
  }
  if (n - c < k) return 1;
  if (c === 0) return 0;
  // From here 1 <= c, 1 <= k and c + k <= n, so every factor 1 - l/i lies in (0, 1).
  const s = Math.min(c, k);
  const l = Math.max(c, k);
  if (s <= PASS_AT_K_DIRECT_TERMS) {
    // The product over the s factors (exactly the historical formula when c <= k).
    let prod = 1;
    for (let i = n - s + 1; i <= n; i++) prod *= 1 - l / i;
    if (prod <= 0.5) return 1 - prod;
    return -Math.expm1(logBinomialRatioSum(n, s, l));
  }
  if (s * -Math.log1p(-l / n) > -LOG_RATIO_NEGLIGIBLE) return 1;
  return -Math.expm1(logBinomialRatioAsymptotic(n, c, k));
}

/**
 * `ln R = ln(C(n-c, k) / C(n, k)) = sum_{i = n-s+1}^{n} log1p(-l / i)` with
 * `s = min(c, k)`, `l = max(c, k)`, summed with Neumaier compensation (every term
 * is negative, so the relative error stays a few ulps whatever `s`). Cost: `s`
 * `log1p` calls. Requires `1 <= s <= l`, `s + l <= n`.
 * @internal
 */
export function logBinomialRatioSum(n: number, s: number, l: number): number {
  let sum = 0;
  let comp = 0;
  for (let i = n - s + 1; i <= n; i++) {
    const x = Math.log1p(-l / i);
    const t = sum + x;
    comp += Math.abs(sum) >= Math.abs(x) ? sum - t + x : x - t + sum;
    sum = t;
  }
  return sum + comp;
}

/**
 * `ln R = ln(C(n-c, k) / C(n, k))` in O(1) from Stirling's series, arranged so
 * that nothing cancels. With `a = n - c` and `ln x! = x ln x - x + rho(x)`,
 * `rho(x) = (1/2) ln(2 pi x) + 1/(12x) - 1/(360x^3) + O(x^-5)`:
 * ```
 * ln R = c log1p(-k/n)                                              (main term, ~ -ck/n)
 *      - sum_{m>=2} c (c/n)^(m-1) / (m(m-1)) * expm1(-(m-1) log1p(-k/n))
 *                                                                   (= F(n) - F(n-k), F(x) = x w(c/x),
 *                                                                    w(t) = (1-t) log1p(-t) + t = sum t^m/(m(m-1)))
 *      + (1/2) log1p(k c / (n (a - k)))                              (the 1/2 ln x terms of rho)
 *      - k c (a + n - k) / (12 n (n-k) a (a-k))                     (the 1/(12x) terms)
 *      - (1/360) (1/a^3 - 1/(a-k)^3 - 1/n^3 + 1/(n-k)^3)            (the 1/(360x^3) terms)
 * ```
 * The first two lines are the exact `x ln x` parts of the four log-factorials
 * (`h(x) = (x-c) ln(x-c) - x ln x = -c ln x - c + F(x)`, so the `-c` cancel
 * symbolically); every series term has the same sign. Truncating `rho` after
 * `x^-3` leaves a relative error of order `n^-4` of `ln R`.
 *
 * Used by {@link passAtK} when `min(c, k) > 10000` and `R` is not negligible,
 * which forces `c/n` and `k/n` below 0.075 (so `c/(n-k) < 0.09` and the series
 * needs about 15 terms) and every argument above 0.85 n > 10^5.
 * @internal
 */
export function logBinomialRatioAsymptotic(n: number, c: number, k: number): number {
  const a = n - c;
  const lk = Math.log1p(-k / n); // ln(1 - k/n) < 0
  const main = c * lk;
  // F(n) - F(n-k) = sum_m c (c/n)^(m-1) / (m (m-1)) * (1 - (1 - k/n)^(1-m)), every term < 0.
  let series = 0;
  let pow = c; // c (c/n)^(m-1)
  for (let m = 2; m < 200; m++) {
    pow *= c / n;
    const term = (pow / (m * (m - 1))) * -Math.expm1(-(m - 1) * lk);
    series += term;
    if (Math.abs(term) <= 1e-18 * Math.abs(series)) break;
  }
  const half = 0.5 * Math.log1p((k * c) / (n * (a - k)));
  const twelfth = -((k / n) * (c / (n - k)) * ((a + n - k) / (a * (a - k)))) / 12;
  const cube = (x: number): number => 1 / (x * x * x);
  const three60 = -(cube(a) - cube(a - k) - cube(n) + cube(n - k)) / 360;
  return main + series + half + twelfth + three60;
}
