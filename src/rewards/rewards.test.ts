import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { logLengthReward } from './logLengthReward.js';
import { shapeReward, shapeRewards } from './shapeReward.js';
import { OutcomeSchema } from '../schema/outcome.js';
import { isFrognanoError } from '../errors/index.js';

describe('logLengthReward', () => {
  it('is 1 within the budget, boundary included', () => {
    expect(logLengthReward(0, 1000, 0.5)).toBe(1);
    expect(logLengthReward(1000, 1000, 0.5)).toBe(1);
  });
  it('is 1 - alpha ln(n/N) past the budget', () => {
    expect(logLengthReward(2000, 1000, 0.1)).toBeCloseTo(1 - 0.1 * Math.LN2, 15);
    expect(logLengthReward(1001, 1000, 1)).toBeCloseTo(1 - Math.log(1.001), 15);
    // e^10 times the budget with alpha 0.2: 1 - 0.2 * 10 = -1 (no clamp)
    expect(logLengthReward(Math.round(1000 * Math.exp(10)), 1000, 0.2)).toBeCloseTo(-1, 6);
  });
  it('alpha = 0 disables the penalty', () => {
    expect(logLengthReward(1e9, 1, 0)).toBe(1);
  });
  it('is non-increasing in n (property)', () => {
    fc.assert(
      fc.property(fc.nat(1e7), fc.nat(1e7), fc.integer({ min: 1, max: 1e6 }), fc.double({ min: 0, max: 5, noNaN: true }), (a, b, N, alpha) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(logLengthReward(hi, N, alpha)).toBeLessThanOrEqual(logLengthReward(lo, N, alpha));
      }),
    );
  });
  it('rejects NaN n', () => expectFrognanoError(() => logLengthReward(NaN, 10, 0.1), 'NON_FINITE', 'n'));
  it('rejects Infinity budget', () => expectFrognanoError(() => logLengthReward(5, Infinity, 0.1), 'NON_FINITE', 'budget'));
  it('rejects a negative n', () => expectFrognanoError(() => logLengthReward(-1, 10, 0.1), 'OUT_OF_RANGE', 'n'));
  it('rejects a fractional n', () => expectFrognanoError(() => logLengthReward(1.5, 10, 0.1), 'OUT_OF_RANGE', 'n'));
  it('rejects budget < 1', () => expectFrognanoError(() => logLengthReward(5, 0.5, 0.1), 'OUT_OF_RANGE', 'budget'));
  it('rejects alpha < 0', () => expectFrognanoError(() => logLengthReward(5, 10, -0.1), 'OUT_OF_RANGE', 'alpha'));
  it('rejects a string', () => expectFrognanoError(() => logLengthReward('5' as unknown as number, 10, 0.1), 'INVALID_TYPE', 'n'));
});

describe('shapeReward', () => {
  const opts = { budget: 1000, alpha: 0.1 };
  it('failure -> 0, whatever else', () => {
    expect(shapeReward({ success: false, truncated: false, assistantTokens: 10 }, opts)).toBe(0);
    expect(shapeReward({ success: false, truncated: true, assistantTokens: 1e6 }, opts)).toBe(0);
  });
  it('truncated success -> 0.5 without length penalty', () => {
    expect(shapeReward({ success: true, truncated: true, assistantTokens: 1e6 }, opts)).toBe(0.5);
    expect(shapeReward({ success: true, truncated: true, assistantTokens: 5 }, { ...opts, truncatedReward: 0.25 })).toBe(0.25);
  });
  it('completed success -> the log-length reward', () => {
    expect(shapeReward({ success: true, truncated: false, assistantTokens: 500 }, opts)).toBe(1);
    expect(shapeReward({ success: true, truncated: false, assistantTokens: 2000 }, opts)).toBeCloseTo(1 - 0.1 * Math.LN2, 15);
  });
  it('lengthPenalty: false -> 1', () => {
    expect(shapeReward({ success: true, truncated: false, assistantTokens: 1e6 }, { ...opts, lengthPenalty: false })).toBe(1);
  });
  it('floor clamps the penalised reward', () => {
    const r = shapeReward({ success: true, truncated: false, assistantTokens: 1e9 }, { budget: 1, alpha: 1, floor: 0.1 });
    expect(r).toBe(0.1);
    expect(shapeReward({ success: true, truncated: false, assistantTokens: 1e9 }, { budget: 1, alpha: 1 })).toBeCloseTo(1 - Math.log(1e9), 12);
  });
  it('shapeRewards maps a batch and returns the raw outcomes', () => {
    const out = shapeRewards(
      [
        { success: true, truncated: false, assistantTokens: 2000 },
        { success: true, truncated: true, assistantTokens: 10 },
        { success: false, truncated: false, assistantTokens: 10 },
      ],
      opts,
    );
    expect(out.rewards[0]).toBeCloseTo(1 - 0.1 * Math.LN2, 15);
    expect(out.rewards.slice(1)).toEqual([0.5, 0]);
    expect(out.raw).toEqual([1, 1, 0]);
  });
  it('rejects a missing field', () =>
    expectFrognanoError(() => shapeReward({ success: true, truncated: false } as never, opts), 'INVALID_TYPE', 'outcome.assistantTokens'));
  it('rejects NaN assistantTokens', () =>
    expectFrognanoError(() => shapeReward({ success: true, truncated: false, assistantTokens: NaN }, opts), 'NON_FINITE', 'outcome.assistantTokens'));
  it('rejects a negative budget', () =>
    expectFrognanoError(() => shapeReward({ success: true, truncated: false, assistantTokens: 1 }, { budget: -5, alpha: 0.1 }), 'OUT_OF_RANGE', 'opts.budget'));
  it('rejects alpha < 0', () =>
    expectFrognanoError(() => shapeReward({ success: true, truncated: false, assistantTokens: 1 }, { budget: 5, alpha: -1 }), 'OUT_OF_RANGE', 'opts.alpha'));
  it('rejects an unknown option (typo)', () =>
    expectFrognanoError(() => shapeReward({ success: true, truncated: false, assistantTokens: 1 }, { budget: 5, alpha: 1, alhpa: 2 } as never), 'INVALID_TYPE', 'alhpa'));
  it('names the index of a bad outcome in a batch', () =>
    expectFrognanoError(
      () => shapeRewards([{ success: true, truncated: false, assistantTokens: 1 }, { success: true, truncated: false, assistantTokens: -3 }], opts),
      'OUT_OF_RANGE',
      'outcomes[1].assistantTokens',
    ));

  it('property: the per-element check agrees with OutcomeSchema (same rewards, or the same code and field)', () => {
    const field = fc.oneof(fc.boolean(), fc.integer({ min: -2, max: 20000 }), fc.double(), fc.constant(undefined), fc.constant(null), fc.string(), fc.constant(2 ** 53));
    const el = fc.oneof(
      fc.record({ success: fc.boolean(), truncated: fc.boolean(), assistantTokens: fc.nat(50000) }),
      fc.record({ success: field, truncated: field, assistantTokens: field }, { requiredKeys: [] }),
      fc.constant(null),
      fc.constant([]),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(el, { maxLength: 6 }), (outcomes) => {
        const zodOk = outcomes.every((o) => OutcomeSchema.safeParse(o).success);
        let got: unknown;
        try {
          got = shapeRewards(outcomes as never, opts);
        } catch (e) {
          expect(isFrognanoError(e)).toBe(true);
          expect(zodOk).toBe(false);
          const first = outcomes.findIndex((o) => !OutcomeSchema.safeParse(o).success);
          expect((e as { field: string }).field.startsWith(`outcomes[${first}]`)).toBe(true);
          return;
        }
        expect(zodOk).toBe(true);
        const parsed = outcomes.map((o) => OutcomeSchema.parse(o));
        expect(got).toEqual({ rewards: parsed.map((o) => shapeReward(o, opts)), raw: parsed.map((o) => (o.success ? 1 : 0)) });
      }),
      { numRuns: 500 },
    );
  });
});

/** Issue 12 (fuzz): a shaped reward is finite or a coded error, as logLengthReward's. */
describe('shapeReward / shapeRewards: no -Infinity', () => {
  const long = { success: true, truncated: false, assistantTokens: 1e9 };
  it('shapeReward refuses a penalty beyond float64 with the default floor (OUT_OF_RANGE naming opts.alpha)', () => {
    const e = expectFrognanoError(() => shapeReward(long, { budget: 1, alpha: 1e308 }), 'OUT_OF_RANGE', 'shapeReward', 'opts.alpha', '-Infinity');
    expect(e.field).toBe('opts.alpha');
  });
  it('shapeReward with a finite floor clamps the same penalty (no error)', () => {
    expect(shapeReward(long, { budget: 1, alpha: 1e308, floor: -1 })).toBe(-1);
  });
  it('shapeReward refuses a floor of +Infinity (OUT_OF_RANGE naming opts.floor)', () => {
    const e = expectFrognanoError(() => shapeReward({ ...long, assistantTokens: 5 }, { budget: 1000, alpha: 0.1, floor: Infinity }), 'OUT_OF_RANGE', 'opts.floor');
    expect(e.field).toBe('opts.floor');
  });
  it('shapeRewards refuses it too, naming the outcome in the message', () => {
    const e = expectFrognanoError(
      () => shapeRewards([{ success: false, truncated: false, assistantTokens: 3 }, long], { budget: 1, alpha: 1e308 }),
      'OUT_OF_RANGE',
      'shapeRewards',
      'outcomes[1]',
    );
    expect(e.field).toBe('opts.alpha');
  });
  it('the same alpha is fine where it cannot overflow (within budget, failures, truncations)', () => {
    const r = shapeRewards(
      [
        { success: true, truncated: false, assistantTokens: 1 },
        { success: false, truncated: false, assistantTokens: 1e9 },
        { success: true, truncated: true, assistantTokens: 1e9 },
      ],
      { budget: 1, alpha: 1e308 },
    );
    expect(r.rewards).toEqual([1, 0, 0.5]);
  });
});

describe('shapeRewards: the first refused outcome is named once', () => {
  const ok = { success: true, truncated: false, assistantTokens: 3 };
  it('a malformed outcome: the message names the function once, the field and index name the element', () => {
    const e = expectFrognanoError(() => shapeRewards([ok, { ...ok, success: 'yes' } as never], { budget: 4, alpha: 0.2 }), 'INVALID_TYPE', 'outcomes[1].success');
    expect(e.message.startsWith('shapeRewards: shapeRewards:')).toBe(false);
    expect(e.field).toBe('outcomes[1].success');
    expect(e.index).toEqual([1]);
  });
  it('a hole is named as a hole', () => {
    const e = expectFrognanoError(() => shapeRewards(Object.assign([ok], { length: 3 }), { budget: 4, alpha: 0.2 }), 'INVALID_TYPE', 'outcomes[1]', 'hole');
    expect(e.field).toBe('outcomes[1]');
  });
});

describe('shapeRewards: columns (struct of arrays)', () => {
  const opts = { budget: 1000, alpha: 0.1 };
  it('typed columns give the rewards of the object form, as Float64Array / Uint8Array', () => {
    const objs = [
      { success: true, truncated: false, assistantTokens: 2000 },
      { success: true, truncated: true, assistantTokens: 10 },
      { success: false, truncated: false, assistantTokens: 10 },
      { success: true, truncated: false, assistantTokens: 1000 },
    ];
    const cols = {
      success: Uint8Array.from(objs, (o) => (o.success ? 1 : 0)),
      truncated: Uint8Array.from(objs, (o) => (o.truncated ? 1 : 0)),
      assistantTokens: Uint32Array.from(objs, (o) => o.assistantTokens),
    };
    const got = shapeRewards(cols, opts);
    expect(got.rewards).toBeInstanceOf(Float64Array);
    expect(got.raw).toBeInstanceOf(Uint8Array);
    const want = shapeRewards(objs, opts);
    expect(Array.from(got.rewards)).toEqual(want.rewards);
    expect(Array.from(got.raw)).toEqual(want.raw);
  });
  it('boolean and number[] columns work too; floor, truncatedReward and lengthPenalty apply', () => {
    const cols = { success: [true, true, true], truncated: [false, true, false], assistantTokens: [1e9, 5, 1e9] };
    expect(Array.from(shapeRewards(cols, { budget: 1, alpha: 1, floor: 0.1, truncatedReward: 0.25 }).rewards)).toEqual([0.1, 0.25, 0.1]);
    expect(Array.from(shapeRewards(cols, { budget: 1, alpha: 1, lengthPenalty: false }).rewards)).toEqual([1, 0.5, 1]);
  });
  it('property: columns and objects agree', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ success: fc.boolean(), truncated: fc.boolean(), assistantTokens: fc.nat(50000) }), { maxLength: 20 }), (objs) => {
        const cols = { success: objs.map((o) => o.success), truncated: objs.map((o) => o.truncated), assistantTokens: Float64Array.from(objs, (o) => o.assistantTokens) };
        const got = shapeRewards(cols, opts);
        const want = shapeRewards(objs, opts);
        expect(Array.from(got.rewards)).toEqual(want.rewards);
        expect(Array.from(got.raw)).toEqual(want.raw);
      }),
    );
  });
  const base = () => ({ success: Uint8Array.of(1, 1), truncated: Uint8Array.of(0, 0), assistantTokens: Float64Array.of(5, 5) });
  it('rejects columns of different lengths', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), truncated: Uint8Array.of(0) }, opts), 'LENGTH_MISMATCH', 'outcomes.truncated'));
  it('rejects a success value other than 0/1', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), success: Uint8Array.of(1, 2) }, opts), 'OUT_OF_RANGE', 'outcomes.success[1]'));
  it('rejects a string truncated flag', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), truncated: [0, 'no'] as never }, opts), 'INVALID_TYPE', 'outcomes.truncated[1]'));
  it('rejects NaN tokens', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), assistantTokens: Float64Array.of(5, NaN) }, opts), 'NON_FINITE', 'outcomes.assistantTokens[1]'));
  it('rejects fractional tokens', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), assistantTokens: Float64Array.of(1.5, 5) }, opts), 'OUT_OF_RANGE', 'outcomes.assistantTokens[0]'));
  it('rejects negative tokens', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), assistantTokens: Int32Array.of(5, -1) }, opts), 'OUT_OF_RANGE', 'outcomes.assistantTokens[1]'));
  it('rejects a column that is not an array', () =>
    expectFrognanoError(() => shapeRewards({ ...base(), success: 1 as never }, opts), 'INVALID_TYPE', 'outcomes.success'));
  it('a penalty beyond float64 is OUT_OF_RANGE naming opts.alpha and the outcome', () => {
    const e = expectFrognanoError(() => shapeRewards({ ...base(), assistantTokens: Float64Array.of(1, 1e9) }, { budget: 1, alpha: 1e308 }), 'OUT_OF_RANGE', 'outcomes[1]');
    expect(e.field).toBe('opts.alpha');
  });
});
