import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { fleissKappa } from './fleissKappa.js';

/** Fleiss' kappa with exact rationals (BigInt numerators over a common denominator), then one division. */
function exactKappa(counts: number[][]): number {
  const N = BigInt(counts.length);
  const n = BigInt(counts[0]!.reduce((a, b) => a + b, 0));
  const m = counts[0]!.length;
  // 1 - P_bar = sum_i sum_j x (n - x) / (N n (n-1)); 1 - P_e = sum_j C_j (T - C_j) / T^2
  let obs = 0n;
  for (const row of counts) for (const x of row) obs += BigInt(x) * (n - BigInt(x));
  const T = N * n;
  let exp = 0n;
  for (let j = 0; j < m; j++) {
    const C = counts.reduce((s, r) => s + BigInt(r[j]!), 0n);
    exp += C * (T - C);
  }
  if (exp === 0n) return 1;
  // kappa = 1 - (obs / (N n (n-1))) / (exp / T^2) = 1 - obs T^2 / (exp N n (n-1))
  const num = obs * T * T;
  const den = exp * N * n * (n - 1n);
  const scale = 10n ** 30n;
  return Number(((den - num) * scale) / den) / 1e30;
}

describe('fleissKappa at the float64 edges (issue 12)', () => {
  it('counts of 1e15 raters: finite and equal to the exact value to 1e-15 absolute', () => {
    const c = [[1e15, 1], [1e15, 1], [1e15 - 1, 2]];
    const k = fleissKappa(c);
    expect(Number.isFinite(k)).toBe(true);
    expect(Math.abs(k - exactKappa(c))).toBeLessThan(1e-15);
  });
  it('2^52 raters split in halves (x^2 = 2^102 would be inexact): exact to 1e-15', () => {
    const c = [[2 ** 51, 2 ** 51], [2 ** 52, 0]];
    expect(Math.abs(fleissKappa(c) - exactKappa(c))).toBeLessThan(1e-15);
  });
  it('one category with almost every rating: 1 - P_e does not cancel (kappa of a single dissent)', () => {
    // 1000 items, 10^6 raters, all in category 0 except one rating on item 0
    const c = Array.from({ length: 1000 }, (_, i) => (i === 0 ? [1e6 - 1, 1] : [1e6, 0]));
    const k = fleissKappa(c);
    expect(Math.abs(k - exactKappa(c))).toBeLessThan(1e-12);
  });
  it('rejects a count of 1e308 with OUT_OF_RANGE (more raters than Number.MAX_SAFE_INTEGER)', () =>
    expectFrognanoError(() => fleissKappa([[1e308, 0], [0, 1e308]]), 'OUT_OF_RANGE', 'counts[0]', 'MAX_SAFE_INTEGER'));
  it('rejects a row summing past Number.MAX_SAFE_INTEGER with OUT_OF_RANGE', () =>
    expectFrognanoError(() => fleissKappa([[2 ** 52, 2 ** 52]]), 'OUT_OF_RANGE', 'counts[0]'));
  it('rejects a later row of 2^53 raters, naming it', () =>
    expectFrognanoError(() => fleissKappa([[1, 1], [2 ** 53, 0]]), 'OUT_OF_RANGE', 'counts[1]'));
  it('property: finite, at most 1, and equal to the exact rational value (random counts up to 1e12)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((m) =>
          fc.tuple(fc.integer({ min: 2, max: 1e12 }), fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: m, maxLength: m }), { minLength: 1, maxLength: 6 })),
        ),
        ([n, shares]) => {
          // turn shares into integer rows summing to n
          const rows = shares.map((sh) => {
            const tot = sh.reduce((a, b) => a + b, 0) || 1;
            const row = sh.map((x) => Math.floor((x / tot) * n));
            row[0]! += n - row.reduce((a, b) => a + b, 0);
            return row;
          });
          const k = fleissKappa(rows);
          expect(Number.isFinite(k)).toBe(true);
          expect(k).toBeLessThanOrEqual(1);
          expect(Math.abs(k - exactKappa(rows))).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 200, seed: 1206 },
    );
  });
});
