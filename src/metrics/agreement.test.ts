import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { aggregateRaters, agreementRate } from './agreementRate.js';
import { fleissKappa } from './fleissKappa.js';
import { majorityVote } from './majorityVote.js';

// Fleiss (1971) / Wikipedia "Fleiss' kappa" worked example: 10 items, 14 raters, 5 categories.
const WIKI = [
  [0, 0, 0, 0, 14],
  [0, 2, 6, 4, 2],
  [0, 0, 3, 5, 6],
  [0, 3, 9, 2, 0],
  [2, 2, 8, 1, 1],
  [7, 7, 0, 0, 0],
  [3, 2, 6, 3, 0],
  [2, 5, 3, 2, 2],
  [6, 5, 2, 1, 0],
  [0, 2, 2, 3, 7],
];

describe('fleissKappa', () => {
  it('the textbook example: kappa = 0.210', () => {
    // sum of squares 828, N n = 140: P_bar = (828 - 140) / (140 * 13) = 688/1820
    // column totals 20, 28, 39, 21, 32: P_e = 4170 / 140^2
    const pBar = 688 / 1820;
    const pE = 4170 / 19600;
    const k = fleissKappa(WIKI);
    expect(k).toBeCloseTo((pBar - pE) / (1 - pE), 14);
    expect(k).toBeCloseTo(0.20993070442195522, 14); // statsmodels / numpy
    expect(k.toFixed(3)).toBe('0.210');
  });
  it('a small hand example', () => {
    expect(fleissKappa([[3, 0], [0, 3], [2, 1]])).toBeCloseTo(0.55, 15);
  });
  it('is 1 for perfect agreement spread over categories', () => {
    expect(fleissKappa([[3, 0], [0, 3]])).toBe(1);
  });
  it('degenerate P_e = 1 (every rating in one category) returns 1, not NaN', () => {
    expect(fleissKappa([[0, 3], [0, 3], [0, 3]])).toBe(1);
    expect(fleissKappa([[5]])).toBe(1);
  });
  it('is negative below chance: -1 for two raters that always split', () => {
    expect(fleissKappa([[1, 1], [1, 1]])).toBeCloseTo(-1, 15);
    // each of 4 items split evenly over 2 categories by 4 raters: P_bar = 1/3, P_e = 1/2
    expect(fleissKappa([[2, 2], [2, 2], [2, 2], [2, 2]])).toBeCloseTo(-1 / 3, 15);
  });
  it('is invariant to the order of items and of categories (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.nat(3)), { minLength: 1, maxLength: 8 }),
        (splits) => {
          // 3 categories, 6 raters per item
          const rows = splits.map(([a, b]) => [a, b, 6 - a - b]);
          const k = fleissKappa(rows);
          expect(fleissKappa([...rows].reverse())).toBeCloseTo(k, 12);
          expect(fleissKappa(rows.map((r) => [r[2]!, r[0]!, r[1]!]))).toBeCloseTo(k, 12);
          expect(k).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
  it('rejects no items', () => expectFrognanoError(() => fleissKappa([]), 'EMPTY_INPUT', 'fleissKappa', 'counts'));
  it('rejects an item without categories', () => expectFrognanoError(() => fleissKappa([[]]), 'EMPTY_INPUT', 'counts[0]'));
  it('rejects a non-matrix', () => expectFrognanoError(() => fleissKappa([1, 2] as never), 'INVALID_TYPE', 'counts[0]'));
  it('rejects NaN', () => expectFrognanoError(() => fleissKappa([[1, 1], [NaN, 2]]), 'NON_FINITE', 'counts[1][0]'));
  it('rejects rows with different numbers of categories', () =>
    expectFrognanoError(() => fleissKappa([[1, 1], [1, 1, 0]]), 'LENGTH_MISMATCH', 'counts[1]'));
  it('rejects rows with different numbers of raters', () =>
    expectFrognanoError(() => fleissKappa([[1, 1], [2, 1]]), 'OUT_OF_RANGE', 'counts[1]', 'raters'));
  it('rejects a negative count', () => expectFrognanoError(() => fleissKappa([[3, -1], [1, 1]]), 'OUT_OF_RANGE', 'counts[0][1]'));
  it('rejects a fractional count', () => expectFrognanoError(() => fleissKappa([[1.5, 0.5]]), 'OUT_OF_RANGE', 'counts[0][0]'));
  it('rejects fewer than 2 raters', () => expectFrognanoError(() => fleissKappa([[1, 0], [0, 1]]), 'OUT_OF_RANGE', 'counts[0]', 'at least 2 raters'));
});

describe('majorityVote', () => {
  it('three judges, 2-1', () => {
    const r = majorityVote(['hack', 'clean', 'hack']);
    expect(r.winner).toBe('hack');
    expect(r.count).toBe(2);
    expect(r.agreement).toBeCloseTo(2 / 3, 15);
    expect(r.tied).toBe(false);
  });
  it('unanimous and single votes', () => {
    expect(majorityVote([true, true, true])).toEqual({ winner: true, count: 3, agreement: 1, tied: false });
    expect(majorityVote([0])).toEqual({ winner: 0, count: 1, agreement: 1, tied: false });
  });
  it('a plurality is enough', () => {
    expect(majorityVote(['a', 'b', 'c', 'b', 'd']).winner).toBe('b');
  });
  it('ties: null by default, earliest-voted tied label with tieBreak first', () => {
    const votes = ['c', 'a', 'b', 'a', 'c', 'b'];
    expect(majorityVote(votes)).toEqual({ winner: null, count: 2, agreement: 1 / 3, tied: true });
    expect(majorityVote(votes, { tieBreak: 'first' }).winner).toBe('c');
    // a label first seen early but with fewer votes does not win the tie
    expect(majorityVote(['x', 'a', 'b', 'a', 'b'], { tieBreak: 'first' }).winner).toBe('a');
  });
  it('a later label that overtakes clears an earlier tie', () => {
    expect(majorityVote(['a', 'b', 'c', 'c'])).toEqual({ winner: 'c', count: 2, agreement: 0.5, tied: false });
  });
  it('the winner has at least as many votes as any label (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 15 }), (votes) => {
        const r = majorityVote(votes, { tieBreak: 'first' });
        for (let v = 0; v <= 3; v++) expect(votes.filter((x) => x === v).length).toBeLessThanOrEqual(r.count);
        expect(votes.filter((x) => x === r.winner).length).toBe(r.count);
        expect(r.agreement).toBe(r.count / votes.length);
      }),
    );
  });
  it('rejects no votes', () => expectFrognanoError(() => majorityVote([]), 'EMPTY_INPUT', 'majorityVote', 'votes'));
  it('rejects a non-array', () => expectFrognanoError(() => majorityVote('abc' as never), 'INVALID_TYPE', 'votes'));
  it('rejects an unknown tieBreak', () => expectFrognanoError(() => majorityVote(['a'], { tieBreak: 'last' as never }), 'INVALID_TYPE', 'opts.tieBreak'));
  it('rejects an unknown option', () => expectFrognanoError(() => majorityVote(['a'], { tiebreak: 'first' } as never), 'INVALID_TYPE', 'tiebreak'));
});

describe('agreementRate', () => {
  it('three judges: unanimous 1, a 2-1 split 1/3', () => {
    expect(agreementRate([['hack', 'hack', 'hack'], ['clean', 'hack', 'clean']])).toBeCloseTo(2 / 3, 15);
    expect(agreementRate([[1, 2, 3]])).toBe(0);
  });
  it('allows different numbers of raters per item', () => {
    // 2 raters agree (1), 4 raters split 2-2 (2*1 + 2*1)/(4*3) = 1/3
    expect(agreementRate([['a', 'a'], ['a', 'a', 'b', 'b']])).toBeCloseTo(2 / 3, 15);
  });
  it('is Fleiss P_bar: kappa = (agreement - P_e) / (1 - P_e) (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('x', 'y', 'z'), { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 10 }),
        (votes) => {
          const { counts } = aggregateRaters(votes, { categories: ['x', 'y', 'z'] });
          const total = votes.length * 3;
          const pE = [0, 1, 2].reduce((s, j) => s + (counts.reduce((t, r) => t + r[j]!, 0) / total) ** 2, 0);
          const used = [0, 1, 2].filter((j) => counts.some((r) => r[j]! > 0)).length;
          if (used > 1) expect(fleissKappa(counts)).toBeCloseTo((agreementRate(votes) - pE) / (1 - pE), 12);
        },
      ),
    );
  });
  it('rejects no items', () => expectFrognanoError(() => agreementRate([]), 'EMPTY_INPUT', 'agreementRate', 'votesPerItem'));
  it('rejects an item with one vote', () => expectFrognanoError(() => agreementRate([['a', 'a'], ['a']]), 'EMPTY_INPUT', 'votesPerItem[1]'));
  it('rejects an item that is not an array', () => expectFrognanoError(() => agreementRate([['a', 'a'], 'ab' as never]), 'INVALID_TYPE', 'votesPerItem[1]'));
  it('rejects a non-array', () => expectFrognanoError(() => agreementRate(null as never), 'INVALID_TYPE', 'votesPerItem'));
});

describe('aggregateRaters', () => {
  it('counts votes per category in order of first appearance', () => {
    expect(aggregateRaters([['a', 'b', 'a'], ['b', 'b', 'b']])).toEqual({ categories: ['a', 'b'], counts: [[2, 1], [0, 3]] });
  });
  it('uses the given categories, with columns for unused labels', () => {
    expect(aggregateRaters([[true, false, true]], { categories: [false, true, 'unsure'] })).toEqual({
      categories: [false, true, 'unsure'],
      counts: [[1, 2, 0]],
    });
  });
  it('feeds fleissKappa', () => {
    const votes = [
      ['hack', 'hack', 'clean'],
      ['clean', 'clean', 'clean'],
      ['hack', 'hack', 'hack'],
    ];
    // counts [[2,1],[0,3],[3,0]]: P_bar = (1/3 + 1 + 1)/3 = 7/9, p = (5/9, 4/9), P_e = 41/81 -> 0.55
    expect(fleissKappa(aggregateRaters(votes).counts)).toBeCloseTo(0.55, 15);
  });
  it('rejects no items', () => expectFrognanoError(() => aggregateRaters([]), 'EMPTY_INPUT', 'aggregateRaters', 'votesPerItem'));
  it('rejects an item without votes', () => expectFrognanoError(() => aggregateRaters([['a'], []]), 'EMPTY_INPUT', 'votesPerItem[1]'));
  it('rejects a vote outside the given categories', () =>
    expectFrognanoError(() => aggregateRaters([['a', 'c']], { categories: ['a', 'b'] }), 'OUT_OF_RANGE', 'votesPerItem[0][1]'));
  it('rejects a repeated category', () => expectFrognanoError(() => aggregateRaters([['a']], { categories: ['a', 'a'] }), 'OUT_OF_RANGE', 'opts.categories[1]'));
  it('rejects a non-array categories', () => expectFrognanoError(() => aggregateRaters([['a']], { categories: 'ab' as never }), 'INVALID_TYPE', 'opts.categories'));
});
