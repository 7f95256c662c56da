import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { broadcastToTokens } from './broadcastToTokens.js';

describe('broadcastToTokens', () => {
  it('puts each advantage on its mask-1 tokens and 0 elsewhere', () => {
    expect(broadcastToTokens([0.5, -1], [[0, 1, 1], [0, 0, 1, 1]])).toEqual([[0, 0.5, 0.5], [0, 0, -1, -1]]);
  });
  it('tool-observation tokens between generated spans stay 0', () => {
    expect(broadcastToTokens([2], [[1, 1, 0, 0, 1]])).toEqual([[2, 2, 0, 0, 2]]);
  });
  it('never writes -0 on masked tokens of a negative advantage', () => {
    expect(Object.is(broadcastToTokens([-3], [[0]])[0]![0], 0)).toBe(true);
  });
  it('empty inputs give an empty result', () => {
    expect(broadcastToTokens([], [])).toEqual([]);
    expect(broadcastToTokens([1], [[]])).toEqual([[]]);
  });
  it('rejects a count mismatch', () => expectFrognanoError(() => broadcastToTokens([1, 2], [[1]]), 'LENGTH_MISMATCH', 'lossMasks'));
  it('rejects a mask value other than 0/1', () => expectFrognanoError(() => broadcastToTokens([1], [[1, 0.5]]), 'OUT_OF_RANGE', 'lossMasks[0][1]'));
  it('rejects a NaN advantage', () => expectFrognanoError(() => broadcastToTokens([NaN], [[1]]), 'NON_FINITE', 'sequenceAdvantages[0]'));
  it('rejects a NaN mask', () => expectFrognanoError(() => broadcastToTokens([1], [[1, NaN]]), 'NON_FINITE', 'lossMasks[0][1]'));
  it('rejects a non-array mask list', () => expectFrognanoError(() => broadcastToTokens([1], 3 as never), 'INVALID_TYPE', 'lossMasks'));
});

describe('broadcastToTokens: flat form', () => {
  it('padded rows of one length (verl response_mask), typed in, Float64Array out', () => {
    const out = broadcastToTokens(Float64Array.of(0.5, -1), Uint8Array.of(0, 1, 1, 0, 1, 0));
    expect(out).toBeInstanceOf(Float64Array);
    expect(Array.from(out)).toEqual([0, 0.5, 0.5, 0, -1, 0]);
  });
  it('packed sequences with seqLengths equal the nested form, flattened', () => {
    const adv = [0.5, -1, 2];
    const rows = [[0, 1, 1], [], [1, 0, 0, 1]];
    const out = broadcastToTokens(adv, Float32Array.from(rows.flat()), { seqLengths: rows.map((r) => r.length) });
    expect(Array.from(out)).toEqual(broadcastToTokens(adv, rows).flat());
  });
  it('a flat number[] mask works as a typed one', () => {
    expect(Array.from(broadcastToTokens([2, 3], [1, 0, 0, 1]))).toEqual([2, 0, 0, 3]);
  });
  it('no sequences and an empty mask give an empty Float64Array', () => {
    expect(broadcastToTokens(new Float64Array(0), new Uint8Array(0)).length).toBe(0);
  });
  it('rejects a mask that is not n rows of one length', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Uint8Array.of(1, 1, 1)), 'LENGTH_MISMATCH', 'lossMask', 'seqLengths'));
  it('rejects seqLengths that do not sum to the mask length', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Uint8Array.of(1, 1, 1), { seqLengths: [1, 1] }), 'LENGTH_MISMATCH', 'opts.seqLengths'));
  it('rejects seqLengths of another count', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Uint8Array.of(1, 1, 1), { seqLengths: [3] }), 'LENGTH_MISMATCH', 'opts.seqLengths'));
  it('rejects a negative length', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Uint8Array.of(1, 1), { seqLengths: [3, -1] }), 'OUT_OF_RANGE', 'opts.seqLengths[1]'));
  it('rejects a mask value other than 0/1, naming sequence and token', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Float64Array.of(1, 0, 0.5, 1)), 'OUT_OF_RANGE', 'lossMasks[1][0]'));
  it('rejects a NaN mask value', () => expectFrognanoError(() => broadcastToTokens([1], Float64Array.of(1, NaN)), 'NON_FINITE', 'lossMasks[0][1]'));
  it('rejects a NaN advantage', () => expectFrognanoError(() => broadcastToTokens(Float64Array.of(1, NaN), Uint8Array.of(1, 1)), 'NON_FINITE', 'sequenceAdvantages[1]'));
  it('rejects an unknown option', () => expectFrognanoError(() => broadcastToTokens([1], [1], { lengths: [1] } as never), 'INVALID_TYPE', 'lengths'));
});

describe('broadcastToTokens: flat Uint8Array masks, word by word', () => {
  it('property: equals the nested form for any 0/1 mask, offset and row lengths', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 1 }), { maxLength: 23 }), { maxLength: 6 }), fc.integer({ min: 0, max: 3 }), (rows, pad) => {
        const adv = rows.map((_, i) => i - 2.5);
        const buf = new Uint8Array(pad + rows.flat().length);
        buf.set(rows.flat(), pad);
        const got = broadcastToTokens(adv, buf.subarray(pad), { seqLengths: rows.map((r) => r.length) });
        expect(Array.from(got)).toEqual(broadcastToTokens(adv, rows).flat());
      }),
      { numRuns: 300, seed: 1304 },
    );
  });
  it('names the bad byte inside an aligned word', () =>
    expectFrognanoError(() => broadcastToTokens([1, 2], Uint8Array.of(1, 1, 1, 1, 1, 1, 2, 1)), 'OUT_OF_RANGE', 'lossMasks[1][2]'));
});
