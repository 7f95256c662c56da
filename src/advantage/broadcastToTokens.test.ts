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
