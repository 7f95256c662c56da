import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { PAD_BATCH_MAX_CELLS, padBatch } from './batch.js';

describe('padBatch', () => {
  it('shifts and right-pads', () => {
    const b = padBatch(
      [
        { tokens: [5, 6, 7], lossMask: [0, 1, 1], logpRollout: [0, -0.5, -1], advantages: [0, 2, 2] },
        { tokens: [5, 8], lossMask: [0, 1], logpRollout: [0, -0.25], advantages: [0, -1] },
      ],
      0,
    );
    expect(b.batch).toBe(2);
    expect(b.length).toBe(2);
    expect([...b.inputs]).toEqual([5, 6, 5, 0]);
    expect([...b.targets]).toEqual([6, 7, 8, 0]);
    expect([...b.lossMask]).toEqual([1, 1, 1, 0]);
    expect([...b.logpRollout]).toEqual([-0.5, -1, -0.25, 0]);
    expect([...b.advantages]).toEqual([2, 2, -1, 0]);
    expect(b.tokens).toBe(3);
  });
});

/** Issue 12 (fuzz): padBatch validates at the boundary (it threw TypeErrors and passed Infinity through). */
describe('padBatch: bad input', () => {
  const seq = () => ({ tokens: [5, 6, 7], lossMask: [0, 1, 1] });
  it('padBatch(5, 0) is INVALID_TYPE naming seqs', () => expect(expectFrognanoError(() => padBatch(5 as never, 0), 'INVALID_TYPE', 'seqs').field).toBe('seqs'));
  it('refuses a lossMask with Infinity', () => {
    const e = expectFrognanoError(() => padBatch([{ tokens: [5, 6, 7], lossMask: [0, Infinity, 1] }], 0), 'NON_FINITE', 'seqs[0].lossMask[1]');
    expect(e.field).toBe('seqs[0].lossMask[1]');
    expect(e.index).toEqual([0, 1]);
  });
  it('refuses an advantage beyond the float32 range', () => {
    const e = expectFrognanoError(() => padBatch([{ ...seq(), advantages: [0, 1e308, 0] }], 0), 'OUT_OF_RANGE', 'float32');
    expect(e.field).toBe('seqs[0].advantages[1]');
  });
  it('refuses a NaN rollout log-prob', () => expect(expectFrognanoError(() => padBatch([{ ...seq(), logpRollout: [0, NaN, 0] }], 0), 'NON_FINITE').field).toBe('seqs[0].logpRollout[1]'));
  it('refuses an empty batch', () => expect(expectFrognanoError(() => padBatch([], 0), 'EMPTY_INPUT').field).toBe('seqs'));
  it('refuses a null sequence', () => expect(expectFrognanoError(() => padBatch([seq(), null as never], 0), 'INVALID_TYPE').field).toBe('seqs[1]'));
  it('refuses a hole in seqs', () => expect(expectFrognanoError(() => padBatch(Object.assign([seq()], { length: 3 }), 0), 'INVALID_TYPE', 'hole').field).toBe('seqs[1]'));
  it('refuses tokens that are not an array', () => expect(expectFrognanoError(() => padBatch([{ tokens: 5, lossMask: [] } as never], 0), 'INVALID_TYPE').field).toBe('seqs[0].tokens'));
  it('refuses a fractional token id', () => expect(expectFrognanoError(() => padBatch([{ tokens: [5, 6.5, 7], lossMask: [0, 1, 1] }], 0), 'OUT_OF_RANGE').field).toBe('seqs[0].tokens[1]'));
  it('refuses a token id beyond int32', () => expect(expectFrognanoError(() => padBatch([{ tokens: [5, 2 ** 31, 7], lossMask: [0, 1, 1] }], 0), 'OUT_OF_RANGE').field).toBe('seqs[0].tokens[1]'));
  it('refuses a string token', () => expect(expectFrognanoError(() => padBatch([{ tokens: [5, '6', 7] as never, lossMask: [0, 1, 1] }], 0), 'INVALID_TYPE').field).toBe('seqs[0].tokens[1]'));
  it('refuses a hole in tokens', () => expect(expectFrognanoError(() => padBatch([{ tokens: [5, , 7] as never, lossMask: [0, 1, 1] }], 0), 'INVALID_TYPE', 'hole').field).toBe('seqs[0].tokens[1]'));
  it('refuses a NaN padToken', () => expect(expectFrognanoError(() => padBatch([seq()], NaN), 'NON_FINITE').field).toBe('padToken'));
  it('refuses a fractional padToken', () => expect(expectFrognanoError(() => padBatch([seq()], 0.5), 'OUT_OF_RANGE').field).toBe('padToken'));
  it('refuses a mask of another length (as before)', () =>
    expect(expectFrognanoError(() => padBatch([{ tokens: [5, 6, 7], lossMask: [0, 1] }], 0), 'LENGTH_MISMATCH').field).toBe('seqs[0]'));
  it('refuses a batch padding to more than PAD_BATCH_MAX_CELLS cells, before allocating', () => {
    const long = { tokens: new Array<number>(2 ** 20 + 1).fill(1), lossMask: new Array<number>(2 ** 20 + 1).fill(1) };
    const short = { tokens: [1, 2], lossMask: [0, 1] };
    const seqs = [long, ...Array.from({ length: 64 }, () => short)];
    const e = expectFrognanoError(() => padBatch(seqs, 0), 'OUT_OF_RANGE', 'PAD_BATCH_MAX_CELLS');
    expect(e.field).toBe('seqs');
    expect(65 * 2 ** 20).toBeGreaterThan(PAD_BATCH_MAX_CELLS);
  });
});
