/**
 * Exact power-of-two scaling for float64 (the C library's `ldexp` / `frexp`
 * idea). Scaling by a power of two changes only the exponent, so a group of
 * numbers can be brought near 1 before sums and squares that would overflow or
 * underflow, and brought back exactly (used by `groupAdvantages` and
 * `rubricScore`).
 * @module
 */

/** `x * 2^e`, exact whenever the result is a normal float64 (the C `ldexp`), in at most three multiplications. */
export function ldexp(x: number, e: number): number {
  let v = x;
  let k = e;
  while (k > 1023) {
    v *= 2 ** 1023;
    k -= 1023;
  }
  while (k < -1022) {
    v *= 2 ** -1022;
    k += 1022;
  }
  return v * 2 ** k;
}

/** The `e` with `m * 2^e` in [1, 2) for a finite `m > 0`; 0 for `m = 0`. */
export function unitExponent(m: number): number {
  if (m === 0) return 0;
  let e = -Math.floor(Math.log2(m));
  // Math.log2 can be off by one ulp next to a power of two: settle on [1, 2) exactly.
  while (ldexp(m, e) >= 2) e--;
  while (ldexp(m, e) < 1) e++;
  return e;
}
