/**
 * The mean of finite numbers without overflow. @internal
 *
 * The plain sum is used when it is finite (the common case: the numbers are the
 * ones a left-to-right sum gives). When it overflows (values near ±1.8e308), the
 * values are scaled by a power of two `2^-k` with `2^k >= 2 (to - from)` (exact),
 * summed, divided by the count and scaled back; the result is clamped to the
 * range of the values, where the exact mean lies, so it is always finite.
 *
 * @param xs - finite numbers (not checked: validate first)
 * @returns the mean of `xs[from .. to)`; NaN for an empty range (callers check)
 */
export function finiteMean(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i]!;
  const n = to - from;
  const m = s / n;
  if (m - m === 0 || n <= 0) return m;
  const k = Math.ceil(Math.log2(n)) + 1;
  const down = 2 ** -k;
  let t = 0;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = from; i < to; i++) {
    const x = xs[i]!;
    t += x * down;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  const scaled = (t / n) * 2 ** k;
  return Math.min(hi, Math.max(lo, scaled));
}
