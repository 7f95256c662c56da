import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { dppoMask, dppoMaskDetailed, LOGP_TOLERANCE } from './dppoMask.js';

const L = Math.log;

describe('dppoMask (Binary-TV)', () => {
  it('drops a positive token whose probability rose by more than delta', () => {
    expect(dppoMask([L(0.9)], [L(0.5)], [1])).toEqual([0]); // dp = 0.4
    expect(dppoMask([L(0.65)], [L(0.5)], [1])).toEqual([1]); // dp = 0.15
  });
  it('drops a non-positive token whose probability fell by more than delta (A = 0 counts as non-positive)', () => {
    expect(dppoMask([L(0.1)], [L(0.5)], [-1])).toEqual([0]);
    expect(dppoMask([L(0.1)], [L(0.5)], [0])).toEqual([0]);
    expect(dppoMask([L(0.4)], [L(0.5)], [-1])).toEqual([1]);
  });
  it('never drops a move in the safe direction, however large', () => {
    expect(dppoMask([L(0.01)], [L(0.99)], [1])).toEqual([1]); // A>0, p fell
    expect(dppoMask([L(0.99)], [L(0.01)], [-1])).toEqual([1]); // A<=0, p rose
  });
  it('comparisons are strict at the threshold (dyadic numbers, exact in float64)', () => {
    // With delta set to exactly the float64 p - q, the token sits on the threshold and is kept.
    const p = Math.exp(L(0.75));
    const q = Math.exp(L(0.5));
    expect(dppoMask([L(0.75)], [L(0.5)], [1], { delta: p - q })).toEqual([1]);
    expect(dppoMask([L(0.5)], [L(0.75)], [-1], { delta: p - q })).toEqual([1]);
    // A hair less and it is dropped.
    expect(dppoMask([L(0.75)], [L(0.5)], [1], { delta: (p - q) * (1 - 1e-12) })).toEqual([0]);
  });
  it('deltaLow and deltaHigh act on their own side', () => {
    const lpN = [L(0.8), L(0.2)];
    const lpR = [L(0.5), L(0.5)];
    expect(dppoMask(lpN, lpR, [1, -1], { deltaHigh: 0.35, deltaLow: 0.1 })).toEqual([1, 0]);
    expect(dppoMask(lpN, lpR, [1, -1], { deltaHigh: 0.1, deltaLow: 0.35 })).toEqual([0, 1]);
    expect(dppoMask(lpN, lpR, [1, -1], { delta: 0.1, deltaLow: 0.35 })).toEqual([0, 1]);
  });
  it('with stats: counts kept and dropped by sign, mean rho', () => {
    const s = dppoMaskDetailed([L(0.9), L(0.1), L(0.5), L(0.5)], [L(0.5), L(0.5), L(0.5), L(0.25)], [1, -1, 1, -1]);
    expect(s.mask).toEqual([0, 0, 1, 1]);
    expect(s.kept).toBe(2);
    expect(s.droppedPositive).toBe(1);
    expect(s.droppedNegative).toBe(1);
    expect(s.meanRho).toBeCloseTo((1.8 + 0.2 + 1 + 2) / 4, 12);
  });
  it('empty input gives an empty mask', () => {
    expect(dppoMask([], [], [])).toEqual([]);
  });
  it('property: a move in the safe direction is never dropped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true })), { maxLength: 50 }),
        fc.constantFrom<'tv' | 'kl'>('tv', 'kl'),
        (rows, divergence) => {
          const m = dppoMask(rows.map((r) => L(r[0])), rows.map((r) => L(r[1])), rows.map((r) => r[2]), { divergence });
          rows.forEach(([p, q, a], t) => {
            if ((a > 0 && p <= q) || (a <= 0 && p >= q)) expect(m[t]).toBe(1);
          });
        },
      ),
    );
  });
  it('property: the TV mask equals the SPEC rule token by token', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 1, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true })), { maxLength: 50 }),
        fc.double({ min: 0.01, max: 0.9, noNaN: true }),
        (rows, delta) => {
          const lpN = rows.map((r) => L(r[0]));
          const lpR = rows.map((r) => L(r[1]));
          const m = dppoMask(lpN, lpR, rows.map((r) => r[2]), { delta });
          rows.forEach(([, , a], t) => {
            const dp = Math.exp(lpN[t]!) - Math.exp(lpR[t]!);
            expect(m[t]).toBe((a > 0 && dp > delta) || (a <= 0 && dp < -delta) ? 0 : 1);
          });
        },
      ),
    );
  });
});

describe('dppoMask (Binary-KL)', () => {
  const kl = (p: number, q: number) => q * (L(q) - L(p)) + (1 - q) * L((1 - q + 1e-8) / (1 - p + 1e-8));
  it('drops a positive token that rose with KL > delta, keeps one below', () => {
    expect(kl(0.9, 0.5)).toBeGreaterThan(0.2);
    expect(dppoMask([L(0.9)], [L(0.5)], [1], { divergence: 'kl' })).toEqual([0]);
    expect(kl(0.6, 0.5)).toBeLessThan(0.2);
    expect(dppoMask([L(0.6)], [L(0.5)], [1], { divergence: 'kl' })).toEqual([1]);
  });
  it('drops a negative token that fell with KL > delta', () => {
    expect(kl(0.05, 0.5)).toBeGreaterThan(0.2);
    expect(dppoMask([L(0.05)], [L(0.5)], [-1], { divergence: 'kl' })).toEqual([0]);
  });
  it('KL and TV can disagree: a small move near p = 1 is large in KL', () => {
    // q = 0.95 -> p = 0.999999: dp = 0.05 (TV keeps) but KL = 0.05 ln(0.05/1e-6)... > 0.2 (KL drops)
    expect(kl(0.999999, 0.95)).toBeGreaterThan(0.2);
    expect(dppoMask([L(0.999999)], [L(0.95)], [1])).toEqual([1]);
    expect(dppoMask([L(0.999999)], [L(0.95)], [1], { divergence: 'kl' })).toEqual([0]);
  });
});

describe('dppoMask bad input', () => {
  it('rejects NaN logpNew', () => expectFrognanoError(() => dppoMask([NaN], [-1], [1]), 'NON_FINITE', 'logpNew[0]'));
  it('rejects -Infinity logpRollout', () => expectFrognanoError(() => dppoMask([-1, -1], [-1, -Infinity], [1, 1]), 'NON_FINITE', 'logpRollout[1]'));
  it('rejects Infinity advantages', () => expectFrognanoError(() => dppoMask([-1], [-1], [Infinity]), 'NON_FINITE', 'advantages[0]'));
  it('rejects a positive log-prob (logits passed by mistake)', () => expectFrognanoError(() => dppoMask([2.3], [-1], [1]), 'OUT_OF_RANGE', 'logpNew[0]'));
  it('rejects a length mismatch of logpRollout', () => expectFrognanoError(() => dppoMask([-1, -1], [-1], [1, 1]), 'LENGTH_MISMATCH', 'logpRollout'));
  it('rejects a length mismatch of advantages', () => expectFrognanoError(() => dppoMask([-1], [-1], [1, 1]), 'LENGTH_MISMATCH', 'advantages'));
  it('rejects delta <= 0', () => expectFrognanoError(() => dppoMask([-1], [-1], [1], { delta: 0 }), 'OUT_OF_RANGE', 'opts.delta'));
  it('rejects deltaLow <= 0', () => expectFrognanoError(() => dppoMask([-1], [-1], [1], { deltaLow: -0.1 }), 'OUT_OF_RANGE', 'opts.deltaLow'));
  it('rejects an unknown divergence', () => expectFrognanoError(() => dppoMask([-1], [-1], [1], { divergence: 'js' as never }), 'INVALID_TYPE', 'opts.divergence'));
});

describe('dppoMask mean rho at the float64 edges (issue 12)', () => {
  it('logpRollout = -710: meanRho is e^710 saturated at Number.MAX_VALUE, never null/NaN', () => {
    const s = dppoMaskDetailed([0], [-710], [1]);
    expect(s.meanRho).toBe(Number.MAX_VALUE);
    expect(JSON.parse(JSON.stringify(s)).meanRho).toBe(Number.MAX_VALUE);
    expect(s.mask).toEqual([0]); // p - q = 1 > 0.2 on a positive token
  });
  it('logpRollout = -705 (q a normal float64, rho = e^705 representable): exact value', () => {
    const s = dppoMaskDetailed([0], [-705], [-1]);
    expect(s.meanRho / Math.exp(705) - 1).toBeLessThan(1e-12);
  });
  it('a subnormal q (logpRollout = -740) no longer divides by an inexact q: rho = exp(lp - lq)', () => {
    const s = dppoMaskDetailed([-735, -1], [-740, -1], [1, 1]);
    expect(Math.abs(s.meanRho / ((Math.exp(5) + 1) / 2) - 1)).toBeLessThan(1e-12);
  });
  it('q underflowed to 0 (logpRollout = -800) with p = q: rho = 1', () => {
    expect(dppoMaskDetailed([-800, -800], [-800, -800], [1, -1]).meanRho).toBeCloseTo(1, 12);
  });
  it('a mean that exceeds float64 only through the sum of many large rho is still finite and right', () => {
    // rho = e^709 = 8.2e307 on each of 20 tokens: the plain sum (1.6e309) overflows, the mean does not
    const n = 20;
    const s = dppoMaskDetailed(new Array(n).fill(0), new Array(n).fill(-709), new Array(n).fill(-1));
    expect(Number.isFinite(s.meanRho)).toBe(true);
    expect(Math.abs(s.meanRho / Math.exp(709) - 1)).toBeLessThan(1e-12);
  });
  it('logpNew = -1.7e308 with logpRollout = 0: rho underflows to 0, mean 0, finite', () => {
    expect(dppoMaskDetailed([-1.7e308], [0], [1]).meanRho).toBe(0);
  });
  it('KL with log-probs in the tolerance slack above 0 (p, q > 1): no NaN divergence, a move up on a positive token past delta is dropped', () => {
    expect(dppoMask([5e-5], [-5], [1], { divergence: 'kl' })).toEqual([0]);
    expect(dppoMask([-1e-5], [5e-5], [1], { divergence: 'kl' })).toEqual([1]);
  });
  it('property: meanRho is finite (or MAX_VALUE) for any valid log-probs', () => {
    const lp = fc.oneof(fc.double({ min: -1.7e308, max: 0, noNaN: true }), fc.constantFrom(0, -0, -709, -710, -745, -746, -1e4, LOGP_TOLERANCE, -5e-324));
    fc.assert(
      fc.property(fc.array(fc.tuple(lp, lp, fc.double({ noNaN: true, noDefaultInfinity: true })), { maxLength: 20 }), fc.constantFrom<'tv' | 'kl'>('tv', 'kl'), (rows, divergence) => {
        const s = dppoMaskDetailed(rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), { divergence });
        expect(Number.isFinite(s.meanRho)).toBe(true);
        expect(s.meanRho).toBeGreaterThanOrEqual(0);
        expect(s.mask).toHaveLength(rows.length);
      }),
      { numRuns: 300, seed: 1204 },
    );
  });
});

describe('dppoMask on typed arrays (issue #13)', () => {
  const rows = (n: number, seed: number) => {
    let a = seed;
    const r = () => ((a = (a * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const lpr = Array.from({ length: n }, () => -r() * 5 - 1e-3);
    const lpn = lpr.map((q) => Math.min(0, q + (r() - 0.5) * 2));
    const adv = Array.from({ length: n }, () => (r() - 0.5) * 4);
    return { lpn, lpr, adv };
  };
  it('Float64Array in, Float64Array out, the same mask and stats as plain arrays (both divergences, several SIMD chunks)', () => {
    const { lpn, lpr, adv } = rows(10_001, 3);
    for (const divergence of ['tv', 'kl'] as const) {
      const plain = dppoMaskDetailed(lpn, lpr, adv, { divergence, delta: 0.1 });
      const typed = dppoMaskDetailed(Float64Array.from(lpn), Float64Array.from(lpr), Float64Array.from(adv), { divergence, delta: 0.1 });
      expect(typed.mask).toBeInstanceOf(Float64Array);
      expect(Array.from(typed.mask)).toEqual(plain.mask);
      expect({ ...typed, mask: null }).toEqual({ ...plain, mask: null });
      expect(plain.kept).toBeGreaterThan(0);
      expect(plain.droppedPositive + plain.droppedNegative).toBeGreaterThan(0);
    }
  });
  it('Float32Array in, Float32Array out: the mask of the float32 values', () => {
    const { lpn, lpr, adv } = rows(999, 5);
    const f = (xs: number[]) => Float32Array.from(xs);
    const typed = dppoMask(f(lpn), f(lpr), f(adv));
    expect(typed).toBeInstanceOf(Float32Array);
    expect(Array.from(typed)).toEqual(dppoMask(Array.from(f(lpn)), Array.from(f(lpr)), Array.from(f(adv))));
  });
  it('a bad value in a typed array is a coded error naming the field and index (validated in the same pass)', () => {
    const lp = new Float64Array(5000).fill(-1);
    const ok = new Float64Array(5000).fill(-1);
    const adv = new Float64Array(5000).fill(1);
    lp[4321] = NaN;
    expectFrognanoError(() => dppoMask(lp, ok, adv), 'NON_FINITE', 'logpNew[4321]');
    lp[4321] = 0.5;
    expectFrognanoError(() => dppoMask(lp, ok, adv), 'OUT_OF_RANGE', 'logpNew[4321]');
    lp[4321] = -1;
    adv[4500] = -Infinity;
    expectFrognanoError(() => dppoMask(lp, ok, adv), 'NON_FINITE', 'advantages[4500]');
    adv[4500] = 1;
    expectFrognanoError(() => dppoMask(lp, new Float64Array(3), adv), 'LENGTH_MISMATCH', 'logpRollout');
  });
  it('dppoMaskDetailed names itself in its errors', () => {
    expectFrognanoError(() => dppoMaskDetailed([NaN], [-1], [1]), 'NON_FINITE', 'dppoMaskDetailed', 'logpNew[0]');
    expectFrognanoError(() => dppoMask([NaN], [-1], [1]), 'NON_FINITE', 'dppoMask', 'logpNew[0]');
  });
});

describe('dppoMask on typed arrays (WebAssembly SIMD pass) decides exactly as the float64 rule', () => {
  it('values the float32 pass flags only spuriously (a log-prob at the tolerance or beyond float32, a huge advantage) give the plain-array mask', () => {
    // 8 tokens (two SIMD steps); each edge value sits among ordinary ones
    const lp = [LOGP_TOLERANCE, -0.1, -1e39, -0.5, Math.log(0.9), -2, -1e-50, -0.3];
    const lq = [-0.2, LOGP_TOLERANCE, Math.log(0.5), -1e300, Math.log(0.5), -2.1, 0, -0.3];
    const a = [1, -1, 0.5, -2, 1e308, -1e308, 1e-300, -1e-300];
    const plain = dppoMask(lp, lq, a);
    expect(Array.from(dppoMask(Float64Array.from(lp), Float64Array.from(lq), Float64Array.from(a)))).toEqual(plain);
    expect(plain[4]).toBe(0); // p rose by 0.4 > 0.2 on a positive token
  });

  /** Log-probs whose p - q straddles the threshold by a few float64 (or float32) ulps. */
  function straddling(n: number, f32: boolean, lo: number, hi: number) {
    const lp: number[] = [];
    const lq: number[] = [];
    const a: number[] = [];
    let seed = 7;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; lp.length < n; i++) {
      const positive = i % 2 === 0;
      const q = lo + 0.01 + (0.98 - lo - hi) * r(); // p = q + hi and q - lo both in (0, 1)
      const p = positive ? q + hi : q - lo;
      const base = L(p);
      const lqv = f32 ? Math.fround(L(q)) : L(q);
      for (let k = -3; k <= 3; k++) {
        // k ulps away from log(p): float64 steps, or adjacent float32 values
        const x = f32 ? Math.fround(base) + k * 2 ** (Math.floor(Math.log2(Math.abs(base))) - 23) : base + k * Math.abs(base) * 2 ** -52;
        lp.push(f32 ? Math.fround(x) : x);
        lq.push(lqv);
        a.push(positive ? 0.5 : -0.5);
      }
    }
    return { lp, lq, a };
  }

  it('float64 inputs: tokens within float64 ulps of deltaHigh / -deltaLow get the float64 decision', () => {
    for (const [lo, hi] of [[0.2, 0.2], [0.1, 0.3], [0.05, 0.5]] as const) {
      const { lp, lq, a } = straddling(3003, false, lo, hi);
      const typed = dppoMask(Float64Array.from(lp), Float64Array.from(lq), Float64Array.from(a), { deltaLow: lo, deltaHigh: hi });
      const exact = dppoMask(lp, lq, a, { deltaLow: lo, deltaHigh: hi }); // plain arrays: the float64 JS loop
      expect(Array.from(typed)).toEqual(exact);
      expect(exact.filter((k) => k === 0).length).toBeGreaterThan(100); // both sides of the threshold occur
      expect(exact.filter((k) => k === 1).length).toBeGreaterThan(100);
    }
  });

  it('float32 inputs: adjacent float32 log-probs around the threshold; the mask is a Float32Array', () => {
    const { lp, lq, a } = straddling(2001, true, 0.2, 0.2);
    const typed = dppoMask(Float32Array.from(lp), Float32Array.from(lq), Float32Array.from(a));
    expect(typed).toBeInstanceOf(Float32Array);
    expect(Array.from(typed)).toEqual(dppoMask(lp, lq, a));
  });

  it('random inputs of every size class (tails of 1-3 tokens, several chunks) match the plain-array mask', () => {
    let seed = 3;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const n of [1, 2, 3, 4, 5, 7, 4096, 4099, 9001]) {
      const lp = Array.from({ length: n }, () => (r() < 0.05 ? -90 - r() * 500 : L(0.001 + 0.998 * r())));
      const lq = Array.from({ length: n }, () => L(0.001 + 0.998 * r()));
      const a = Array.from({ length: n }, () => r() - 0.5);
      expect(Array.from(dppoMask(Float64Array.from(lp), Float64Array.from(lq), Float64Array.from(a)))).toEqual(dppoMask(lp, lq, a));
    }
  });

  it('a bad value in a typed array is still the coded error naming the index', () => {
    const lp = new Float64Array(5000).fill(-1);
    const lq = new Float64Array(5000).fill(-1);
    const a = new Float64Array(5000).fill(1);
    lq[4321] = NaN;
    expectFrognanoError(() => dppoMask(lp, lq, a), 'NON_FINITE', 'logpRollout[4321]');
    lq[4321] = -1;
    lp[17] = 0.5;
    expectFrognanoError(() => dppoMask(lp, lq, a), 'OUT_OF_RANGE', 'logpNew[17]');
    lp[17] = -1;
    a[4999] = Infinity; // in the JS tail (5000 % 4 = 0: last SIMD group) and values beyond 1e307 are exact
    expectFrognanoError(() => dppoMask(lp, lq, a), 'NON_FINITE', 'advantages[4999]');
    a[4999] = 1e308;
    lp[0] = -1e308; // the SIMD validation may flag these spuriously (sum overflow): the exact path decides
    expect(Array.from(dppoMask(lp, lq, a))).toEqual(dppoMask(Array.from(lp), Array.from(lq), Array.from(a)));
  });
});
