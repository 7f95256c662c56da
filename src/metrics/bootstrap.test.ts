import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { blockBootstrapCI, defaultBlockLength, MAX_BOOTSTRAP_RESAMPLES, movingBlockResample, quantileSorted } from './blockBootstrapCI.js';
import { solveRateGainCI } from './solveRateGainCI.js';

/** Seeded standard normal noise (Box-Muller). */
function noise(seed: string, n: number, sd: number): number[] {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, () => sd * Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng()));
}

/** AR(1) series x_t = phi x_{t-1} + e_t. */
function ar1(seed: string, n: number, phi: number): number[] {
  const e = noise(seed, n, 1);
  const x: number[] = [];
  let prev = 0;
  for (const v of e) x.push((prev = phi * prev + v));
  return x;
}

describe('bootstrap helpers', () => {
  it('quantileSorted is numpy type 7', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.25)).toBeCloseTo(1.75, 15);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5, 15);
    expect(quantileSorted([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 15);
    expect(quantileSorted([1, 2, 3], 0.025)).toBeCloseTo(1.05, 15);
    expect(quantileSorted([1, 2, 3], 0.975)).toBeCloseTo(2.95, 15);
    expect(quantileSorted([1, 2, 3], 0)).toBe(1);
    expect(quantileSorted([1, 2, 3], 1)).toBe(3);
    expect(quantileSorted([7], 0.3)).toBe(7);
  });
  it('defaultBlockLength is round(cbrt(n)), at least 1', () => {
    expect([1, 2, 8, 27, 50, 100, 1000].map(defaultBlockLength)).toEqual([1, 1, 2, 3, 4, 5, 10]);
  });
  it('movingBlockResample copies whole contiguous blocks and cuts to length', () => {
    const xs = Array.from({ length: 10 }, (_, i) => i);
    const out = new Float64Array(10);
    movingBlockResample(xs, 3, seedrandom('b'), out);
    // 4 blocks of 3 cut to 10: positions 0-2, 3-5, 6-8 and 9 each start a run of consecutive values
    for (const start of [0, 3, 6]) {
      expect(out[start + 1]).toBe(out[start]! + 1);
      expect(out[start + 2]).toBe(out[start]! + 2);
      expect(out[start]).toBeLessThanOrEqual(7);
    }
    expect(out[9]).toBeLessThanOrEqual(7);
  });
});

describe('blockBootstrapCI', () => {
  it('one block of the whole series: every resample is the series, the interval collapses', () => {
    const xs = [3, 1, 4, 1, 5, 9, 2, 6];
    const r = blockBootstrapCI(xs, { blockLength: 8, resamples: 50 });
    expect(r).toEqual({ estimate: 31 / 8, low: 31 / 8, high: 31 / 8, blockLength: 8 });
  });
  it('percentile interval on known data: [0, 1] with blockLength 1 has resample means 0, 1/2, 1', () => {
    // P(mean* = 0) = P(mean* = 1) = 1/4 > 2.5%, so the 2.5% and 97.5% quantiles are 0 and 1
    const r = blockBootstrapCI([0, 1], { blockLength: 1 });
    expect(r).toEqual({ estimate: 0.5, low: 0, high: 1, blockLength: 1 });
    // with confidence 0.4 the 30% and 70% quantiles fall inside the 1/2 atom (P = 1/2)
    const mid = blockBootstrapCI([0, 1], { blockLength: 1, confidence: 0.4 });
    expect([mid.low, mid.high]).toEqual([0.5, 0.5]);
  });
  it('a constant series gives a degenerate interval', () => {
    expect(blockBootstrapCI([2, 2, 2, 2, 2])).toEqual({ estimate: 2, low: 2, high: 2, blockLength: 2 });
  });
  it('the same seed gives identical output; another seed differs', () => {
    const xs = noise('s', 60, 1);
    expect(blockBootstrapCI(xs, { seed: 'abc' })).toEqual(blockBootstrapCI(xs, { seed: 'abc' }));
    expect(blockBootstrapCI(xs, { seed: 7 })).toEqual(blockBootstrapCI(xs, { seed: 7 }));
    expect(blockBootstrapCI(xs, { seed: 7 })).toEqual(blockBootstrapCI(xs, { seed: '7' }));
    expect(blockBootstrapCI(xs, { seed: 'abc' }).low).not.toBe(blockBootstrapCI(xs, { seed: 'abd' }).low);
    expect(blockBootstrapCI(xs)).toEqual(blockBootstrapCI(xs, { seed: 0 }));
  });
  it('brackets the sample mean of a noisy series with about the normal-theory width, narrower at lower confidence', () => {
    const xs = noise('cover', 200, 1).map((v) => v + 10);
    const r95 = blockBootstrapCI(xs, { seed: 1 });
    const r50 = blockBootstrapCI(xs, { seed: 1, confidence: 0.5 });
    // i.i.d. N(0, 1): 2 * 1.96 / sqrt(200) = 0.277
    expect(r95.high - r95.low).toBeGreaterThan(0.18);
    expect(r95.high - r95.low).toBeLessThan(0.4);
    expect(r50.high - r50.low).toBeLessThan(r95.high - r95.low);
    expect(r95.low).toBeLessThan(r95.estimate);
    expect(r95.high).toBeGreaterThan(r95.estimate);
  });
  it('blocks widen the interval of a positively autocorrelated series', () => {
    const xs = ar1('ar', 400, 0.9);
    const iid = blockBootstrapCI(xs, { blockLength: 1, seed: 3 });
    const mbb = blockBootstrapCI(xs, { blockLength: 20, seed: 3 });
    // the long-run variance of AR(1) is (1+phi)/(1-phi) = 19 times the i.i.d. one
    expect(mbb.high - mbb.low).toBeGreaterThan(2 * (iid.high - iid.low));
  });
  it('takes a custom statistic, called on fresh arrays of length n', () => {
    const xs = [1, 5, 2, 8, 3];
    const lengths = new Set<number>();
    const r = blockBootstrapCI(xs, {
      statistic: (s) => {
        lengths.add(s.length);
        s.sort((a, b) => a - b); // mutating its argument must not matter
        return s[s.length - 1]!;
      },
      resamples: 200,
      blockLength: 2,
    });
    expect(r.estimate).toBe(8);
    expect([...lengths]).toEqual([5]);
    expect(xs).toEqual([1, 5, 2, 8, 3]);
    expect(r.high).toBe(8);
  });
  it('rejects no values', () => expectFrognanoError(() => blockBootstrapCI([]), 'EMPTY_INPUT', 'blockBootstrapCI', 'values'));
  it('rejects NaN', () => expectFrognanoError(() => blockBootstrapCI([1, NaN]), 'NON_FINITE', 'values[1]'));
  it('rejects blockLength 0', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { blockLength: 0 }), 'OUT_OF_RANGE', 'opts.blockLength'));
  it('rejects a fractional blockLength', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { blockLength: 1.5 }), 'OUT_OF_RANGE', 'opts.blockLength'));
  it('rejects blockLength > n', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { blockLength: 3 }), 'OUT_OF_RANGE', 'opts.blockLength'));
  it('rejects resamples 0', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { resamples: 0 }), 'OUT_OF_RANGE', 'opts.resamples'));
  it('rejects confidence 1', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { confidence: 1 }), 'OUT_OF_RANGE', 'opts.confidence'));
  it('rejects confidence 0', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { confidence: 0 }), 'OUT_OF_RANGE', 'opts.confidence'));
  it('rejects an unknown statistic', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { statistic: 'median' as never }), 'INVALID_TYPE', 'opts.statistic'));
  it('rejects a statistic that returns NaN', () =>
    expectFrognanoError(() => blockBootstrapCI([1, 2], { statistic: () => NaN }), 'NON_FINITE', 'opts.statistic'));
  it('rejects a boolean seed', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { seed: true as never }), 'INVALID_TYPE', 'opts.seed'));
  it('rejects an unknown option', () => expectFrognanoError(() => blockBootstrapCI([1, 2], { samples: 5 } as never), 'INVALID_TYPE', 'samples'));
});

describe('solveRateGainCI', () => {
  it('hand-computed estimate and quartile means', () => {
    // n = 9, q = 2: first [0.1, 0.2], last [0.5, 0.7]
    const r = solveRateGainCI([0.1, 0.2, 0.3, 0.9, 0.0, 0.4, 0.6, 0.5, 0.7], { resamples: 100 });
    expect(r.quartileLength).toBe(2);
    expect(r.firstQuartileMean).toBeCloseTo(0.15, 15);
    expect(r.lastQuartileMean).toBeCloseTo(0.6, 15);
    expect(r.estimate).toBeCloseTo(0.45, 15);
    expect(r.blockLength).toBe(1);
  });
  it('segments resampled as whole blocks reproduce themselves: the interval collapses', () => {
    const xs = [0.1, 0.3, 0.5, 0.4, 0.9, 0.2, 0.6, 0.8];
    const r = solveRateGainCI(xs, { blockLength: 2, resamples: 20 });
    expect(r.low).toBeCloseTo(r.estimate, 15);
    expect(r.high).toBeCloseTo(r.estimate, 15);
    expect(r.estimate).toBeCloseTo(0.7 - 0.2, 15);
  });
  it('a clear upward trend gives an interval that excludes 0', () => {
    // 120 updates, solve rate 0.30 -> ~0.42 with autocorrelated noise
    const e = ar1('trend', 120, 0.5).map((v) => 0.02 * v);
    const xs = e.map((v, t) => 0.3 + 0.001 * t + v);
    const r = solveRateGainCI(xs, { seed: 'fig10' });
    expect(r.estimate).toBeGreaterThan(0.05);
    expect(r.low).toBeGreaterThan(0);
    expect(r.low).toBeLessThan(r.estimate);
    expect(r.high).toBeGreaterThan(r.estimate);
  });
  it('a flat noisy series gives an interval that includes 0', () => {
    const xs = noise('flat', 120, 0.05).map((v) => 0.5 + v);
    const r = solveRateGainCI(xs, { seed: 'fig10' });
    expect(r.low).toBeLessThan(0);
    expect(r.high).toBeGreaterThan(0);
  });
  it('keeps the trend where a whole-series block bootstrap would centre on 0', () => {
    // why the quartile segments are resampled separately
    const xs = Array.from({ length: 80 }, (_, t) => t / 80);
    const q = 20;
    const whole = blockBootstrapCI(xs, {
      blockLength: 4,
      statistic: (s) => s.slice(-q).reduce((a, b) => a + b, 0) / q - s.slice(0, q).reduce((a, b) => a + b, 0) / q,
    });
    const seg = solveRateGainCI(xs, { blockLength: 4 });
    expect(whole.estimate).toBeCloseTo(seg.estimate, 12);
    expect(whole.low).toBeLessThan(0); // the whole-series resample loses the trend
    expect(seg.low).toBeGreaterThan(0.5); // estimate 0.75
  });
  it('is reproducible from its seed', () => {
    const xs = noise('r', 40, 0.1);
    expect(solveRateGainCI(xs, { seed: 5 })).toEqual(solveRateGainCI(xs, { seed: 5 }));
  });
  it('rejects fewer than 4 values', () => expectFrognanoError(() => solveRateGainCI([1, 2, 3]), 'EMPTY_INPUT', 'solveRateGainCI', 'solveRates'));
  it('rejects Infinity', () => expectFrognanoError(() => solveRateGainCI([1, 2, 3, Infinity]), 'NON_FINITE', 'solveRates[3]'));
  it('rejects a blockLength longer than a quartile', () =>
    expectFrognanoError(() => solveRateGainCI([1, 2, 3, 4, 5, 6, 7, 8], { blockLength: 3 }), 'OUT_OF_RANGE', 'opts.blockLength'));
  it('rejects a statistic option', () => expectFrognanoError(() => solveRateGainCI([1, 2, 3, 4], { statistic: 'mean' } as never), 'INVALID_TYPE', 'statistic'));
  it('rejects resamples 0', () => expectFrognanoError(() => solveRateGainCI([1, 2, 3, 4], { resamples: 0 }), 'OUT_OF_RANGE', 'opts.resamples'));
});

/** Issue 12 (fuzz): resamples are bounded, and values near ±1.8e308 never give NaN / ±Infinity. */
describe('bootstrap: bounds and float64 edges', () => {
  it('blockBootstrapCI refuses resamples 1e15 (more than MAX_BOOTSTRAP_RESAMPLES)', () => {
    const e = expectFrognanoError(() => blockBootstrapCI([0.1, 0.5, 0.3, 0.9], { resamples: 1e15 }), 'OUT_OF_RANGE', 'opts.resamples');
    expect(e.field).toBe('opts.resamples');
  });
  it('blockBootstrapCI accepts exactly MAX_BOOTSTRAP_RESAMPLES', () => {
    expect(MAX_BOOTSTRAP_RESAMPLES).toBe(1_000_000);
    const r = blockBootstrapCI([0, 1], { resamples: MAX_BOOTSTRAP_RESAMPLES, blockLength: 1 });
    expect(r.low).toBe(0);
    expect(r.high).toBe(1);
    const e = expectFrognanoError(() => blockBootstrapCI([0, 1], { resamples: MAX_BOOTSTRAP_RESAMPLES + 1 }), 'OUT_OF_RANGE', 'opts.resamples');
    expect(e.field).toBe('opts.resamples');
  });
  it('blockBootstrapCI([1e308, 1e308, 0, 0.5]) is finite: the means do not overflow', () => {
    const r = blockBootstrapCI([1e308, 1e308, 0, 0.5], { blockLength: 2, resamples: 50 });
    expect(r.estimate).toBeCloseTo(5e307, -293);
    for (const v of [r.estimate, r.low, r.high]) expect(Number.isFinite(v)).toBe(true);
    expect(r.low).toBeGreaterThanOrEqual(0);
    expect(r.high).toBeLessThanOrEqual(1e308);
  });
  it('blockBootstrapCI at ±MAX_VALUE stays in range', () => {
    const M = Number.MAX_VALUE;
    const r = blockBootstrapCI([M, M, -M, M, -M, -M], { resamples: 200, blockLength: 1 });
    for (const v of [r.estimate, r.low, r.high]) {
      expect(Number.isFinite(v)).toBe(true);
      expect(Math.abs(v)).toBeLessThanOrEqual(M);
    }
  });
  it('quantileSorted interpolates between -1e308 and 1e308 without overflow', () => {
    expect(quantileSorted([-1e308, 1e308], 0.5)).toBe(0);
    expect(quantileSorted([-1e308, 1e308], 0.75)).toBeCloseTo(5e307, -293);
    expect(quantileSorted([-1e308, 1e308], 0)).toBe(-1e308);
  });
  it('solveRateGainCI refuses resamples 1e15 (more than MAX_BOOTSTRAP_RESAMPLES)', () => {
    const e = expectFrognanoError(() => solveRateGainCI([0.1, 0.2, 0.3, 0.9, 0.4], { resamples: 1e15 }), 'OUT_OF_RANGE', 'opts.resamples');
    expect(e.field).toBe('opts.resamples');
  });
  it('solveRateGainCI refuses a resampled gain beyond the float64 range (-1e308 early, 1e308 late)', () => {
    const e = expectFrognanoError(
      () => solveRateGainCI([-1e308, 0.2, 0.3, 0.9, 0, 0.4, 0.6, 0.5, 1e308], { resamples: 50 }),
      'OUT_OF_RANGE',
      'float64 range',
    );
    expect(e.field).toBe('solveRates');
  });
  it('solveRateGainCI refuses an estimated gain beyond the float64 range', () => {
    const e = expectFrognanoError(() => solveRateGainCI([-1e308, -1e308, 1e308, 1e308], { resamples: 10 }), 'OUT_OF_RANGE', 'estimated');
    expect(e.field).toBe('solveRates');
  });
  it('solveRateGainCI keeps large but representable gains finite', () => {
    const r = solveRateGainCI([1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308, 1e308], { resamples: 20 });
    expect(r.firstQuartileMean).toBe(1e308);
    expect(r.estimate).toBe(0);
    expect([r.low, r.high]).toEqual([0, 0]);
  });
});
