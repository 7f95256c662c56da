import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { classifyResolveRate } from './classifyResolveRate.js';
import { resolveRate } from './resolveRate.js';
import { BROAD_BAND, inBand, iterationBand } from './resolveRateBand.js';

describe('resolveRate', () => {
  it('is the mean of pass/fail outcomes', () => {
    expect(resolveRate([true, false, true, true])).toBe(0.75);
    expect(resolveRate([false, false, false])).toBe(0);
    expect(resolveRate([true])).toBe(1);
    expect(resolveRate([true, false, false])).toBeCloseTo(1 / 3, 15);
  });
  it('accepts 0 / 1 numbers (the raw outcomes of shapeRewards) and mixes', () => {
    expect(resolveRate([1, 0, 1, 0, 0, 0, 0, 0])).toBe(0.25);
    expect(resolveRate([1, false, true, 0])).toBe(0.5);
    expect(resolveRate(new Uint8Array([1, 1, 0, 1]))).toBe(0.75);
  });
  it('equals the count of passes over N (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }), (xs) => {
        expect(resolveRate(xs)).toBe(xs.filter(Boolean).length / xs.length);
      }),
    );
  });
  it('rejects an empty list', () => expectFrognanoError(() => resolveRate([]), 'EMPTY_INPUT', 'outcomes'));
  it('rejects a non-array', () => expectFrognanoError(() => resolveRate(true as never), 'INVALID_TYPE', 'outcomes'));
  it('rejects a shaped reward (0.5)', () => expectFrognanoError(() => resolveRate([1, 0.5]), 'OUT_OF_RANGE', 'outcomes[1]'));
  it('rejects NaN', () => expectFrognanoError(() => resolveRate([true, false, NaN]), 'NON_FINITE', 'outcomes[2]'));
  it('rejects a string', () => expectFrognanoError(() => resolveRate(['true' as never]), 'INVALID_TYPE', 'outcomes[0]'));
});

describe('iterationBand', () => {
  it('iterations 1-4 target exactly 0.5 (closed point band)', () => {
    for (const i of [1, 2, 3, 4]) expect(iterationBand(i)).toEqual({ low: 0.5, high: 0.5, lowInclusive: true, highInclusive: true });
  });
  it('iteration 5 and later use the revised band (0, 0.5]', () => {
    for (const i of [5, 6, 100]) expect(iterationBand(i)).toEqual({ low: 0, high: 0.5, lowInclusive: false, highInclusive: true });
  });
  it('returns a fresh object each call', () => {
    const a = iterationBand(1);
    a.low = 0.3;
    expect(iterationBand(1).low).toBe(0.5);
  });
  it('rejects iteration 0', () => expectFrognanoError(() => iterationBand(0), 'OUT_OF_RANGE', 'iteration'));
  it('rejects a fractional iteration', () => expectFrognanoError(() => iterationBand(2.5), 'OUT_OF_RANGE', 'iteration'));
  it('rejects NaN', () => expectFrognanoError(() => iterationBand(NaN), 'NON_FINITE', 'iteration'));
  it('rejects a string', () => expectFrognanoError(() => iterationBand('1' as never), 'INVALID_TYPE', 'iteration'));
});

describe('inBand', () => {
  it('honours open and closed ends', () => {
    expect(inBand(0, BROAD_BAND)).toBe(false);
    expect(inBand(1, BROAD_BAND)).toBe(false);
    expect(inBand(0.001, BROAD_BAND)).toBe(true);
    expect(inBand(0.5, iterationBand(5))).toBe(true);
    expect(inBand(0, iterationBand(5))).toBe(false);
    expect(inBand(0.2, { low: 0.2, high: 0.4 })).toBe(false);
    expect(inBand(0.2, { low: 0.2, high: 0.4, lowInclusive: true })).toBe(true);
    expect(inBand(0.4, { low: 0.2, high: 0.4 })).toBe(false);
    expect(inBand(0.4, { low: 0.2, high: 0.4, highInclusive: true })).toBe(true);
    // pure membership: a band closed at 0 contains 0
    expect(inBand(0, { low: 0, high: 0.5, lowInclusive: true })).toBe(true);
  });
  it('rejects low > high', () => expectFrognanoError(() => inBand(0.5, { low: 0.6, high: 0.4 }), 'OUT_OF_RANGE', 'band.high'));
  it('rejects an empty point band', () =>
    expectFrognanoError(() => inBand(0.5, { low: 0.5, high: 0.5, lowInclusive: true }), 'OUT_OF_RANGE', 'band', 'empty'));
  it('rejects a band end outside [0, 1]', () => expectFrognanoError(() => inBand(0.5, { low: -0.1, high: 0.4 }), 'OUT_OF_RANGE', 'band.low'));
  it('rejects an unknown band key', () =>
    expectFrognanoError(() => inBand(0.5, { low: 0, high: 1, inclusive: true } as never), 'INVALID_TYPE', 'inclusive'));
  it('rejects a missing band end', () => expectFrognanoError(() => inBand(0.5, { low: 0 } as never), 'INVALID_TYPE', 'band.high'));
  it('rejects a rate above 1', () => expectFrognanoError(() => inBand(1.5, BROAD_BAND), 'OUT_OF_RANGE', 'rate'));
});

describe('classifyResolveRate', () => {
  it('rate 0 -> too-hard, rate 1 -> saturated, for every band', () => {
    for (const band of [BROAD_BAND, iterationBand(1), iterationBand(5), { low: 0, high: 1, lowInclusive: true, highInclusive: true }]) {
      expect(classifyResolveRate(0, band)).toBe('too-hard');
      expect(classifyResolveRate(1, band)).toBe('saturated');
    }
  });
  it('iterations 1-4: only exactly 0.5 is accepted', () => {
    const b = iterationBand(3);
    expect(classifyResolveRate(0.5, b)).toBe('accept');
    expect(classifyResolveRate(4 / 8, b)).toBe('accept');
    expect(classifyResolveRate(3 / 8, b)).toBe('refine-easier');
    expect(classifyResolveRate(5 / 8, b)).toBe('refine-harder');
    expect(classifyResolveRate(0.125, b)).toBe('refine-easier');
    expect(classifyResolveRate(0.875, b)).toBe('refine-harder');
  });
  it('iteration 5: (0, 0.5] accepted, above refined harder, never refine-easier', () => {
    const b = iterationBand(5);
    expect(classifyResolveRate(1 / 16, b)).toBe('accept');
    expect(classifyResolveRate(0.5, b)).toBe('accept');
    expect(classifyResolveRate(9 / 16, b)).toBe('refine-harder');
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (r) => {
        expect(classifyResolveRate(r, b)).not.toBe('refine-easier');
      }),
    );
  });
  it('broad band accepts every mixed outcome', () => {
    expect(classifyResolveRate(Number.MIN_VALUE, BROAD_BAND)).toBe('accept');
    expect(classifyResolveRate(1 - Number.EPSILON, BROAD_BAND)).toBe('accept');
  });
  it('open and closed ends of a custom band', () => {
    const open = { low: 0.25, high: 0.75 };
    expect(classifyResolveRate(0.25, open)).toBe('refine-easier');
    expect(classifyResolveRate(0.75, open)).toBe('refine-harder');
    expect(classifyResolveRate(0.5, open)).toBe('accept');
    const closed = { low: 0.25, high: 0.75, lowInclusive: true, highInclusive: true };
    expect(classifyResolveRate(0.25, closed)).toBe('accept');
    expect(classifyResolveRate(0.75, closed)).toBe('accept');
  });
  it('agrees with resolveRate on calibration outcomes (8 rollouts, iteration 1)', () => {
    const b = iterationBand(1);
    expect(classifyResolveRate(resolveRate([1, 1, 1, 1, 0, 0, 0, 0]), b)).toBe('accept');
    expect(classifyResolveRate(resolveRate([1, 1, 1, 1, 1, 1, 1, 0]), b)).toBe('refine-harder');
    expect(classifyResolveRate(resolveRate([0, 0, 0, 0, 0, 0, 0, 0]), b)).toBe('too-hard');
  });
  it('rejects a negative rate', () => expectFrognanoError(() => classifyResolveRate(-0.1, BROAD_BAND), 'OUT_OF_RANGE', 'rate'));
  it('rejects a NaN rate', () => expectFrognanoError(() => classifyResolveRate(NaN, BROAD_BAND), 'NON_FINITE', 'rate'));
  it('rejects a non-boolean inclusive flag', () =>
    expectFrognanoError(() => classifyResolveRate(0.5, { low: 0, high: 1, lowInclusive: 'yes' as never }), 'INVALID_TYPE', 'band.lowInclusive'));
});

/** Issue 12 (fuzz): a DataView passed the array-like check and gave NaN. */
describe('resolveRate: DataView', () => {
  it('resolveRate(new DataView(new ArrayBuffer(8))) is INVALID_TYPE naming outcomes', () => {
    const e = expectFrognanoError(() => resolveRate(new DataView(new ArrayBuffer(8)) as never), 'INVALID_TYPE', 'resolveRate');
    expect(e.field).toBe('outcomes');
  });
  it('typed arrays of 0 / 1 still work', () => expect(resolveRate(Uint8Array.of(1, 0, 1, 1))).toBe(0.75));
});
