import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { logBinomialRatioAsymptotic, logBinomialRatioSum, PASS_AT_K_DIRECT_TERMS, passAtK } from './passAtK.js';

/** Exact 1 - C(n-c,k)/C(n,k) with BigInt, then one division in float64. */
function exactPassAtK(n: number, c: number, k: number): number {
  const choose = (a: number, b: number): bigint => {
    if (b < 0 || b > a) return 0n;
    let r = 1n;
    for (let i = 1; i <= b; i++) r = (r * BigInt(a - b + i)) / BigInt(i);
    return r;
  };
  const num = choose(n - c, k);
  const den = choose(n, k);
  // 1 - num/den = (den - num)/den
  return Number(den - num) / Number(den);
}

describe('passAtK', () => {
  it('pass@1 is c / n', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
    expect(passAtK(7, 0, 1)).toBe(0);
    expect(passAtK(7, 7, 1)).toBe(1);
  });
  it('hand-computed values', () => {
    // 1 - C(2,2)/C(4,2) = 1 - 1/6
    expect(passAtK(4, 2, 2)).toBeCloseTo(5 / 6, 15);
    // 1 - C(7,3)/C(10,3) = 1 - 35/120
    expect(passAtK(10, 3, 3)).toBeCloseTo(1 - 35 / 120, 15);
    // 1 - C(5,2)/C(8,2) = 1 - 10/28
    expect(passAtK(8, 3, 2)).toBeCloseTo(1 - 10 / 28, 15);
  });
  it('is 1 when n - c < k and 0 when c = 0', () => {
    expect(passAtK(8, 5, 4)).toBe(1);
    expect(passAtK(8, 1, 8)).toBe(1);
    expect(passAtK(8, 0, 8)).toBe(0);
    expect(passAtK(1, 1, 1)).toBe(1);
  });
  it('equals the exact binomial ratio for small n (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          expect(passAtK(n, c, k)).toBeCloseTo(exactPassAtK(n, c, k), 12);
        },
      ),
    );
  });
  it('lies in [0, 1] and is non-decreasing in k and in c (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          const v = passAtK(n, c, k);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
          if (k < n) expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(v - 1e-15);
          if (c < n) expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(v - 1e-15);
        },
      ),
    );
  });
  it('is stable for large n', () => {
    const v = passAtK(1000, 1, 1);
    expect(v).toBeCloseTo(0.001, 15);
    expect(passAtK(100000, 50000, 100)).toBeCloseTo(1, 12);
  });
  it('rejects NaN n', () => expectFrognanoError(() => passAtK(NaN, 1, 1), 'NON_FINITE', 'passAtK', 'n'));
  it('rejects Infinity c', () => expectFrognanoError(() => passAtK(5, Infinity, 1), 'NON_FINITE', 'c'));
  it('rejects a string k', () => expectFrognanoError(() => passAtK(5, 1, '1' as unknown as number), 'INVALID_TYPE', 'k'));
  it('rejects n = 0', () => expectFrognanoError(() => passAtK(0, 0, 1), 'OUT_OF_RANGE', 'n'));
  it('rejects a fractional n', () => expectFrognanoError(() => passAtK(2.5, 1, 1), 'OUT_OF_RANGE', 'n'));
  it('rejects c < 0', () => expectFrognanoError(() => passAtK(5, -1, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects c > n', () => expectFrognanoError(() => passAtK(5, 6, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects a fractional c', () => expectFrognanoError(() => passAtK(5, 1.5, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects k = 0', () => expectFrognanoError(() => passAtK(5, 1, 0), 'OUT_OF_RANGE', 'k'));
  it('rejects k > n', () => expectFrognanoError(() => passAtK(5, 1, 6), 'OUT_OF_RANGE', 'k'));
  it('rejects a fractional k', () => expectFrognanoError(() => passAtK(5, 1, 1.5), 'OUT_OF_RANGE', 'k'));
});

/** Runs `f` and asserts it took less than `ms` milliseconds. */
function fast<T>(f: () => T, ms = 100): T {
  const t0 = performance.now();
  const v = f();
  expect(performance.now() - t0).toBeLessThan(ms);
  return v;
}

/** 1 - C(n-c,k)/C(n,k) from BigInt binomials, to 17 significant digits. */
function bigExact(n: number, c: number, k: number): number {
  const choose = (a: bigint, b: bigint): bigint => {
    let r = 1n;
    for (let i = 1n; i <= b; i++) r = (r * (a - b + i)) / i;
    return r;
  };
  const den = choose(BigInt(n), BigInt(k));
  const num = den - choose(BigInt(n - c), BigInt(k));
  const scale = 10n ** 40n;
  return Number((num * scale) / den) / 1e40;
}

describe('passAtK at the edges (issue 12)', () => {
  it('rejects n = 1e308 with OUT_OF_RANGE instead of looping forever', () =>
    expectFrognanoError(() => fast(() => passAtK(1e308, 1, 1)), 'OUT_OF_RANGE', 'n', 'MAX_SAFE_INTEGER'));
  it('rejects n = 2^53 (where i++ stops changing i) with OUT_OF_RANGE', () =>
    expectFrognanoError(() => fast(() => passAtK(2 ** 53, 1, 1)), 'OUT_OF_RANGE', 'n'));
  it('accepts n = Number.MAX_SAFE_INTEGER, c huge: cost bounded by k, not c', () => {
    const n = Number.MAX_SAFE_INTEGER;
    // 1 - prod_{i<3} (1 - c/(n-i)), c = 4e15: three factors
    const c = 4e15;
    let prod = 1;
    for (let i = 0; i < 3; i++) prod *= (n - c - i) / (n - i);
    expect(fast(() => passAtK(n, c, 3))).toBeCloseTo(1 - prod, 15);
  });
  it('a large c with k = 1 is c / n, at once', () => {
    expect(fast(() => passAtK(9e15, 3e15, 1))).toBeCloseTo(1 / 3, 15);
  });
  it('keeps full relative precision when pass@k is tiny: passAtK(9e15, 1, 1) = 1/9e15', () => {
    expect(passAtK(9e15, 1, 1) / (1 / 9e15) - 1).toBeLessThan(1e-15);
    expect(Math.abs(passAtK(9e15, 1, 1) * 9e15 - 1)).toBeLessThan(1e-15);
    // 1 - (1 - 2/n)(1 - 2/(n-1)) = 4/n - 2/n^2 + ... = 3.999999999998e-12 for n = 1e12
    expect(Math.abs(passAtK(1e12, 2, 2) / bigExact(1e12, 2, 2) - 1)).toBeLessThan(1e-14);
    expect(Math.abs(passAtK(1e12, 2, 2) / 3.999999999998e-12 - 1)).toBeLessThan(1e-14);
  });
  it('huge k and c with a negligible ratio return 1 at once (passAtK(1e15, 1e9, 1e9))', () => {
    expect(fast(() => passAtK(1e15, 1e9, 1e9))).toBe(1);
    expect(fast(() => passAtK(Number.MAX_SAFE_INTEGER, 1e15, 1e15))).toBe(1);
  });
  it('huge k with a non-negligible ratio uses the closed form, fast and in (0, 1)', () => {
    // c = 2e4, k = 1e8, n = 1e15: ln R ~ -c k / n = -2e-3
    const v = fast(() => passAtK(1e15, 2e4, 1e8));
    expect(v).toBeGreaterThan(0);
    expect(v).toBeLessThan(1);
    // the term-by-term sum over the 2e4 shorter factors, a reference to ~1e-15
    const ref = -Math.expm1(logBinomialRatioSum(1e15, 2e4, 1e8));
    expect(Math.abs(v / ref - 1)).toBeLessThan(1e-12);
  });
  it('the closed form matches the term-by-term sum to 1e-12 relative (property, moderate values)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: PASS_AT_K_DIRECT_TERMS + 1, max: 200_000 }),
        fc.double({ min: 1, max: 50, noNaN: true }),
        fc.double({ min: 0.05, max: 30, noNaN: true }),
        fc.boolean(),
        (s, ratio, target, swap) => {
          // pick n so that ln R ~ -target (a pass@k that is neither 0 nor 1 in float64)
          const l = Math.round(s * ratio);
          const n = Math.max(s + l + 1, Math.round((s * l) / target));
          if (n > Number.MAX_SAFE_INTEGER) return;
          const ref = logBinomialRatioSum(n, s, l);
          const [c, k] = swap ? [l, s] : [s, l];
          const approx = logBinomialRatioAsymptotic(n, c, k);
          expect(Math.abs(approx / ref - 1)).toBeLessThan(1e-12);
          expect(Math.abs(-Math.expm1(approx) / -Math.expm1(ref) - 1)).toBeLessThan(1e-12);
        },
      ),
      { numRuns: 40, seed: 12 },
    );
  });
  it('the term-by-term sum equals the exact BigInt ratio (n = 2e6, c = 3e4, k = 2e4)', () => {
    const exact = bigExact(2e6, 3e4, 2e4);
    const v = -Math.expm1(logBinomialRatioSum(2e6, 2e4, 3e4));
    expect(Math.abs(v / exact - 1)).toBeLessThan(1e-13);
  });
  it('passAtK on both sides of the direct / closed-form switch agrees with BigInt', () => {
    for (const s of [PASS_AT_K_DIRECT_TERMS, PASS_AT_K_DIRECT_TERMS + 1]) {
      const n = 20_000_000;
      const exact = bigExact(n, s, s);
      expect(Math.abs(passAtK(n, s, s) / exact - 1)).toBeLessThan(1e-12);
    }
  });
  it('the product path is unchanged for c <= k (historical results)', () => {
    expect(passAtK(4, 2, 2)).toBe(0.8333333333333333);
    expect(passAtK(4, 2, 1)).toBe(0.5);
    expect(passAtK(4, 1, 2)).toBe(0.5);
  });
  it('rejects a fractional k even when n is huge', () => expectFrognanoError(() => passAtK(1e15, 1, 0.5), 'OUT_OF_RANGE', 'k'));
  it('rejects c = 1e308', () => expectFrognanoError(() => passAtK(10, 1e308, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects k = 1e308', () => expectFrognanoError(() => passAtK(10, 1, 1e308), 'OUT_OF_RANGE', 'k'));
});
