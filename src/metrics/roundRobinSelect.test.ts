import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { MAX_ROUND_ROBIN_CANDIDATES, roundRobinSelect, type PairwiseCompare } from './roundRobinSelect.js';

/** A comparator from a fixed table of games (`'i,j': 1` means i beats j, `0` a tie), recording its calls. */
function tableCompare(games: Record<string, number>) {
  const calls: [number, number][] = [];
  const compare: PairwiseCompare<string> = (_a, _b, ia, ib) => {
    calls.push([ia, ib]);
    const key = `${ia},${ib}`;
    if (key in games) return games[key]!;
    const rev = `${ib},${ia}`;
    if (rev in games) return -games[rev]!;
    throw new Error(`no game ${key}`);
  };
  return { compare, calls };
}

function counter<T>(ranking: number[]) {
  const seen: number[][] = [];
  const rank = (_c: readonly T[], indices: number[]) => {
    seen.push(indices);
    return ranking.filter((i) => indices.includes(i));
  };
  return { rank, seen };
}

describe('roundRobinSelect', () => {
  it('a clear winner: round robin, then a final between the top two, no ranking call', async () => {
    const quality = [1, 3, 4, 2];
    let calls = 0;
    const { rank, seen } = counter<number>([0, 1, 2, 3]);
    const r = await roundRobinSelect(
      quality,
      (a, b) => {
        calls++;
        return a - b;
      },
      { rank },
    );
    expect(r.wins).toEqual([0, 2, 3, 1]);
    expect(r.finalists).toEqual([2, 1]);
    expect(r.winner).toBe(2);
    expect(r.comparisons).toBe(7); // 6 round-robin games + the final
    expect(calls).toBe(7);
    expect(r.usedRankCall).toBe(false);
    expect(r.tiebreak).toBe('none');
    expect(r.tiebreakCandidates).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('the final decides between two candidates with equal wins', async () => {
    // 0>1, 0>2, 1>2, 1>3, 2>3, 3>0 -> wins [2, 2, 1, 1]: top two {0, 1} unique, the final replays 0 vs 1
    const { compare, calls } = tableCompare({ '0,1': 1, '0,2': 1, '1,2': 1, '1,3': 1, '2,3': 1, '0,3': -1 });
    const r = await roundRobinSelect(['a', 'b', 'c', 'd'], compare);
    expect(r.wins).toEqual([2, 2, 1, 1]);
    expect(r.finalists).toEqual([0, 1]);
    expect(r.winner).toBe(0);
    expect(calls).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
      [0, 1],
    ]);
  });

  it('a 3-cycle is broken by one ranking call over all three', async () => {
    const { compare, calls } = tableCompare({ '0,1': 1, '1,2': 1, '0,2': -1 });
    const { rank, seen } = counter<string>([2, 0, 1]);
    const r = await roundRobinSelect(['a', 'b', 'c'], compare, { rank });
    expect(r.wins).toEqual([1, 1, 1]);
    expect(r.winner).toBe(2);
    expect(r.usedRankCall).toBe(true);
    expect(r.tiebreak).toBe('rank');
    expect(r.tiebreakCandidates).toEqual([0, 1, 2]);
    expect(r.finalists).toEqual([]);
    expect(r.comparisons).toBe(3); // no final
    expect(calls.length).toBe(3);
    expect(seen).toEqual([[0, 1, 2]]);
  });

  it('a 3-cycle without rank falls back to the lowest index', async () => {
    const { compare } = tableCompare({ '0,1': -1, '1,2': -1, '0,2': 1 });
    const r = await roundRobinSelect(['a', 'b', 'c'], compare);
    expect(r.wins).toEqual([1, 1, 1]);
    expect(r.winner).toBe(0);
    expect(r.tiebreak).toBe('lowestIndex');
    expect(r.usedRankCall).toBe(false);
  });

  it('a tie for second place sends the top candidate and the tied ones to the ranking call', async () => {
    // 0 beats everyone; 1>2, 2>3, 3>1 -> wins [3,1,1,1]
    const { compare } = tableCompare({ '0,1': 1, '0,2': 1, '0,3': 1, '1,2': 1, '2,3': 1, '1,3': -1 });
    const { rank, seen } = counter<string>([3, 0, 1, 2]);
    const r = await roundRobinSelect(['a', 'b', 'c', 'd'], compare, { rank });
    expect(r.wins).toEqual([3, 1, 1, 1]);
    expect(seen).toEqual([[0, 1, 2, 3]]);
    expect(r.winner).toBe(3);
    expect(r.comparisons).toBe(6);
  });

  it('a final that ties is broken by one ranking call over the two finalists', async () => {
    // 0 ~ 1 tie, both beat 2: wins [1,1,0]; the final 0 vs 1 ties again
    const { compare, calls } = tableCompare({ '0,1': 0, '0,2': 1, '1,2': 1 });
    const { rank, seen } = counter<string>([1, 0, 2]);
    const r = await roundRobinSelect(['a', 'b', 'c'], compare, { rank });
    expect(r.wins).toEqual([1, 1, 0]);
    expect(r.finalists).toEqual([0, 1]);
    expect(r.winner).toBe(1);
    expect(r.comparisons).toBe(4);
    expect(calls.at(-1)).toEqual([0, 1]);
    expect(seen).toEqual([[0, 1]]);
    expect(r.usedRankCall).toBe(true);
  });

  it('a stochastic final can overturn the round-robin game', async () => {
    let n01 = 0;
    const compare: PairwiseCompare<string> = (_a, _b, i, j) => {
      if (i === 0 && j === 1) return n01++ === 0 ? 1 : -1; // first game 0 wins, final 1 wins
      return i < j ? 1 : -1;
    };
    // games: 0>1, 0>2, 1>2 -> wins [2,1,0], final 0 vs 1 -> 1 wins
    const r = await roundRobinSelect(['a', 'b', 'c'], compare);
    expect(r.wins).toEqual([2, 1, 0]);
    expect(r.winner).toBe(1);
  });

  it('two candidates: the single game is the final', async () => {
    let calls = 0;
    const r = await roundRobinSelect([5, 7], (a, b) => {
      calls++;
      return a - b;
    });
    expect(r.winner).toBe(1);
    expect(r.finalists).toEqual([1, 0]);
    expect(calls).toBe(1);
    const t = await roundRobinSelect([5, 5], () => 0, { rank: () => [1, 0] });
    expect(t.winner).toBe(1);
    expect(t.comparisons).toBe(1);
    expect(t.usedRankCall).toBe(true);
  });

  it('one candidate wins with no calls', async () => {
    const r = await roundRobinSelect(['only'], () => {
      throw new Error('must not be called');
    });
    expect(r).toEqual({ winner: 0, wins: [0], finalists: [], tiebreakCandidates: [], tiebreak: 'none', usedRankCall: false, comparisons: 0 });
  });

  it('all games tied: every candidate goes to the ranking call', async () => {
    const r = await roundRobinSelect([1, 2, 3, 4], () => 0, { rank: (_c, idx) => [...idx].reverse() });
    expect(r.wins).toEqual([0, 0, 0, 0]);
    expect(r.tiebreakCandidates).toEqual([0, 1, 2, 3]);
    expect(r.winner).toBe(3);
  });

  it('accepts async comparators and runs up to `concurrency` games at once with the same result', async () => {
    const quality = [3, 9, 1, 7, 5, 8];
    let inFlight = 0;
    let peak = 0;
    const compare = async (a: number, b: number) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((res) => setTimeout(res, 1));
      inFlight--;
      return a - b;
    };
    const seq = await roundRobinSelect(quality, compare);
    expect(peak).toBe(1);
    peak = 0;
    const par = await roundRobinSelect(quality, compare, { concurrency: 4 });
    expect(peak).toBe(4);
    expect(par).toEqual(seq);
    expect(seq.winner).toBe(1);
    expect(seq.comparisons).toBe(16);
  });

  it('propagates an error thrown by compare', async () => {
    await expect(
      roundRobinSelect([1, 2, 3], () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });

  it('does not mutate its input', async () => {
    const c = [3, 1, 2];
    await roundRobinSelect(c, (a, b) => a - b, { rank: (_x, idx) => idx });
    expect(c).toEqual([3, 1, 2]);
  });

  it('rejects no candidates', () => expectFrognanoErrorAsync(() => roundRobinSelect([], () => 1), 'EMPTY_INPUT', 'roundRobinSelect', 'candidates'));
  it('rejects a non-array candidates', () => expectFrognanoErrorAsync(() => roundRobinSelect('ab' as never, () => 1), 'INVALID_TYPE', 'candidates'));
  it('rejects a non-function compare', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], 3 as never), 'INVALID_TYPE', 'compare'));
  it('rejects a non-function rank', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 1, { rank: 'x' as never }), 'INVALID_TYPE', 'opts.rank'));
  it('rejects concurrency 0', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 1, { concurrency: 0 }), 'OUT_OF_RANGE', 'opts.concurrency'));
  it('rejects a fractional concurrency', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 1, { concurrency: 1.5 }), 'OUT_OF_RANGE', 'opts.concurrency'));
  it('rejects an unknown option', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 1, { rnak: () => [] } as never), 'INVALID_TYPE', 'rnak'));
  it('rejects a NaN game result', () => expectFrognanoErrorAsync(() => roundRobinSelect([1, 2, 3], () => NaN), 'NON_FINITE', 'compare(candidates[0], candidates[1])'));
  it('rejects a non-number game result', () =>
    expectFrognanoErrorAsync(() => roundRobinSelect([1, 2, 3], (() => 'a') as never), 'INVALID_TYPE', 'compare(candidates[0], candidates[1])'));
  it('rejects a ranking that is not an array', () =>
    expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 0, { rank: (() => 1) as never }), 'INVALID_TYPE', 'opts.rank()'));
  it('rejects a ranking of the wrong length', () =>
    expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 0, { rank: () => [1] }), 'LENGTH_MISMATCH', 'opts.rank()'));
  it('rejects a ranking with a foreign index', () =>
    expectFrognanoErrorAsync(() => roundRobinSelect([1, 2, 3], () => 0, { rank: () => [0, 1, 5] }), 'OUT_OF_RANGE', 'opts.rank()[2]'));
  it('rejects a ranking with a repeated index', () =>
    expectFrognanoErrorAsync(() => roundRobinSelect([1, 2], () => 0, { rank: () => [1, 1] }), 'OUT_OF_RANGE', 'opts.rank()[1]'));
});

/** Issue 12 (fuzz): the O(n^2) round robin is bounded and holes are refused before any game. */
describe('roundRobinSelect: size bound and holes', () => {
  it("refuses ['a', 'b', 'c', <500 000 holes>] at once (more than MAX_ROUND_ROBIN_CANDIDATES), without calling compare", async () => {
    let calls = 0;
    const e = await expectFrognanoErrorAsync(
      () => roundRobinSelect(Object.assign(['a', 'b', 'c'], { length: 500_000 }), () => (calls++, 0)),
      'OUT_OF_RANGE',
      'MAX_ROUND_ROBIN_CANDIDATES',
    );
    expect(e.field).toBe('candidates');
    expect(calls).toBe(0);
  });
  it('refuses a hole at its first index, without calling compare', async () => {
    let calls = 0;
    const e = await expectFrognanoErrorAsync(
      () => roundRobinSelect(Object.assign(['a', 'b', 'c'], { length: 6 }), () => (calls++, 0)),
      'INVALID_TYPE',
      'candidates[3]',
    );
    expect(e.field).toBe('candidates[3]');
    expect(e.index).toEqual([3]);
    expect(calls).toBe(0);
  });
  it('takes exactly MAX_ROUND_ROBIN_CANDIDATES candidates', async () => {
    expect(MAX_ROUND_ROBIN_CANDIDATES).toBe(256);
    const xs = Array.from({ length: MAX_ROUND_ROBIN_CANDIDATES }, (_, i) => i);
    const r = await roundRobinSelect(xs, (a, b) => a - b);
    expect(r.winner).toBe(255);
    expect(r.comparisons).toBe((256 * 255) / 2 + 1);
    const e = await expectFrognanoErrorAsync(() => roundRobinSelect([...xs, 256], (a, b) => a - b), 'OUT_OF_RANGE', '257');
    expect(e.field).toBe('candidates');
  });
});
