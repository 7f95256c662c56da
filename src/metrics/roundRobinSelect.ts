import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, functionSchema, parseOptions } from '../errors/validate.js';

/**
 * A pairwise judgement between two candidates (e.g. one verifier call).
 * Sign convention: `> 0` means `a` (candidate `ia`) beats `b`, `< 0` means `b`
 * (candidate `ib`) beats `a`, `0` is a tie. Any finite number is accepted; only
 * its sign is used.
 */
export type PairwiseCompare<T> = (a: T, b: T, ia: number, ib: number) => number | Promise<number>;

/**
 * One ranking call (e.g. the ranking verifier of FrogNano §5.2) over the candidates
 * whose indices are given: it must return exactly those indices, best first.
 */
export type RankCall<T> = (candidates: readonly T[], indices: number[]) => readonly number[] | Promise<readonly number[]>;

/**
 * The most candidates {@link roundRobinSelect} takes (256): a round robin plays
 * `n(n-1)/2` games (32 640 for 256 candidates, each a verifier call), so a larger
 * field is refused rather than left to run for hours or exhaust memory.
 */
export const MAX_ROUND_ROBIN_CANDIDATES = 256;

/** Options of {@link roundRobinSelect}. */
export const RoundRobinOptionsSchema = z
  .object({
    /**
     * The one extra ranking call that breaks ties and cycles. When omitted, ties
     * are broken deterministically by the lowest candidate index (no call is made).
     */
    rank: functionSchema<RankCall<unknown>>('(candidates, indices) => indices best first').optional(),
    /** How many round-robin comparisons may be in flight at once. Integer >= 1, default 1 (sequential, in pair order). */
    concurrency: z.number().int().min(1).default(1),
  })
  .strict();

/**
 * Options of {@link roundRobinSelect} as the caller writes them: those of
 * {@link RoundRobinOptionsSchema}, with `rank` typed for the candidates' type `T`
 * (the schema checks only that it is a function).
 */
export type RoundRobinOptions<T = unknown> = Omit<z.input<typeof RoundRobinOptionsSchema>, 'rank'> & {
  /** The one extra ranking call that breaks ties and cycles ({@link RoundRobinOptionsSchema}). */
  rank?: RankCall<T>;
};

/** How the winner of {@link roundRobinSelect} was settled. */
export type RoundRobinTiebreak = 'none' | 'rank' | 'lowestIndex';

/** The outcome of {@link roundRobinSelect}. */
export interface RoundRobinResult {
  /** Index of the selected candidate. */
  winner: number;
  /** Round-robin wins per candidate (a tied game gives no win to either side). */
  wins: number[];
  /** The two candidates that met in the final, more wins first (lower index on equal wins); `[]` when no final was played. */
  finalists: number[];
  /** The candidates handed to the tie-break (ranking call or lowest-index fallback), ascending; `[]` when none was needed. */
  tiebreakCandidates: number[];
  /** `'none'`: decided by the final; `'rank'`: by the ranking call; `'lowestIndex'`: by the fallback without `rank`. */
  tiebreak: RoundRobinTiebreak;
  /** Whether `opts.rank` was called (at most once). */
  usedRankCall: boolean;
  /** Number of `compare` calls made (round robin plus final). */
  comparisons: number;
}

/** Runs `f` over `items` with at most `limit` calls in flight; results keep the order of `items`. */
async function mapLimit<A, B>(items: readonly A[], limit: number, f: (a: A) => Promise<B>): Promise<B[]> {
  const out = new Array<B>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const k = next++;
      try {
        out[k] = await f(items[k]!);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < Math.min(limit, items.length); w++) workers.push(worker());
  await Promise.all(workers);
  return out;
}

/**
 * Round-robin tournament selection among candidate patches (FrogNano §5.2,
 * "Verifier", test-time scaling; with three candidates per SWE-bench Verified
 * task it reaches 62.8% pass@1, against 61.4% for one verifier call).
 *
 * 1. Round robin: `compare(c[i], c[j], i, j)` once for every pair `i < j`
 *    (`n(n-1)/2` calls); the sign gives the game (`> 0`: `i` wins, `< 0`: `j`
 *    wins, `0`: tie, no win for either). Count wins per candidate.
 * 2. Final: when the two candidates with most wins are unique (the 2nd has
 *    strictly more wins than the 3rd), they meet in a final, one more
 *    `compare(c[f0], c[f1], f0, f1)` call with `f0` the one with more wins (lower
 *    index on equal wins); its winner is selected. With two candidates the single
 *    round-robin game is the final (no second call on the same pair).
 * 3. Tie-break (at most one extra ranking call): when the top two are not unique
 *    (a tie in wins at the 2nd place, which covers cycles such as three
 *    candidates with one win each), every candidate with at least the 2nd-highest
 *    win count goes to `opts.rank`, whose best-ranked index is selected (no final
 *    is played). When the final itself is a tie, the two finalists go to
 *    `opts.rank`. Without `opts.rank`, the lowest index among those candidates is
 *    selected (deterministic; no call).
 *
 * The paper does not say whether the final repeats the round-robin game or how
 * many candidates the ranking call sees; this is the choice made here. One
 * candidate wins with no calls.
 *
 * @param candidates - the candidates (patches, trajectories, ...), passed through to `compare` and `rank`;
 *   at most {@link MAX_ROUND_ROBIN_CANDIDATES} (256), every index present (no holes)
 * @param compare - pairwise judgement, see {@link PairwiseCompare} for the sign convention
 * @throws FrognanoError (as a rejected promise) `EMPTY_INPUT` (no candidate), `INVALID_TYPE`
 *   (`candidates` not an array or with a hole, naming `candidates[i]`, `compare`/`opts.rank`
 *   not a function, a `compare` result that
 *   is not a number, a `rank` result that is not an array), `NON_FINITE` (a NaN/±Infinity
 *   `compare` result), `OUT_OF_RANGE` (`opts.concurrency` < 1 or fractional, a `rank` result
 *   that is not a permutation of the indices it was given), `LENGTH_MISMATCH` (a `rank`
 *   result of the wrong length), `OUT_OF_RANGE` (more than {@link MAX_ROUND_ROBIN_CANDIDATES}
 *   candidates). Errors thrown by `compare` or `rank` propagate unchanged.
 * @example
 * const q = [0.2, 0.9, 0.5];
 * const r = await roundRobinSelect(q, (a, b) => a - b);
 * // r.winner === 1, r.wins = [0, 2, 1], r.finalists = [1, 2], r.comparisons === 4
 */
export async function roundRobinSelect<T>(
  candidates: readonly T[],
  compare: PairwiseCompare<T>,
  opts?: RoundRobinOptions<T>,
): Promise<RoundRobinResult> {
  const fn = 'roundRobinSelect';
  if (!Array.isArray(candidates)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `candidates must be an array, got ${describeValue(candidates)}`, { fn, field: 'candidates' });
  }
  if (typeof compare !== 'function') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `compare must be a function (a, b, ia, ib) => number, got ${describeValue(compare)}`, {
      fn,
      field: 'compare',
    });
  }
  const o = parseOptions(fn, RoundRobinOptionsSchema, opts);
  const rank = o.rank as RankCall<T> | undefined;
  const n = candidates.length;
  if (n === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'candidates must have at least 1 element, got 0', { fn, field: 'candidates' });
  if (n > MAX_ROUND_ROBIN_CANDIDATES) {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `candidates has ${n} elements, more than ${MAX_ROUND_ROBIN_CANDIDATES} (MAX_ROUND_ROBIN_CANDIDATES): a round robin plays n(n-1)/2 games`,
      { fn, field: 'candidates' },
    );
  }
  for (let i = 0; i < n; i++) {
    if (!(i in candidates)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `candidates[${i}] is a hole of a sparse array (arrays must have every element)`, {
        fn,
        field: `candidates[${i}]`,
        index: [i],
      });
    }
  }
  const wins = new Array<number>(n).fill(0);
  let comparisons = 0;
  const result = (winner: number, rest: Partial<RoundRobinResult>): RoundRobinResult => ({
    winner,
    wins,
    finalists: [],
    tiebreakCandidates: [],
    tiebreak: 'none',
    usedRankCall: false,
    comparisons,
    ...rest,
  });
  if (n === 1) return result(0, {});

  const game = async (i: number, j: number): Promise<number> => {
    comparisons++;
    const v: unknown = await compare(candidates[i]!, candidates[j]!, i, j);
    const where = `compare(candidates[${i}], candidates[${j}])`;
    if (typeof v !== 'number') {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} must return a number, got ${describeValue(v)}`, { fn, field: 'compare', index: [i, j] });
    }
    if (v - v !== 0) {
      throw new FrognanoError(ErrorCode.NON_FINITE, `${where} must return a finite number, got ${describeValue(v)}`, { fn, field: 'compare', index: [i, j] });
    }
    return v;
  };

  const tiebreakAmong = async (indices: number[], finalists: number[]): Promise<RoundRobinResult> => {
    const sorted = [...indices].sort((a, b) => a - b);
    if (!rank) return result(sorted[0]!, { finalists, tiebreakCandidates: sorted, tiebreak: 'lowestIndex' });
    const r: unknown = await rank(candidates, [...sorted]);
    checkRanking(fn, r, sorted);
    return result((r as number[])[0]!, { finalists, tiebreakCandidates: sorted, tiebreak: 'rank', usedRankCall: true });
  };

  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pairs.push([i, j]);
  const outcomes = await mapLimit(pairs, o.concurrency, ([i, j]) => game(i, j));
  for (let p = 0; p < pairs.length; p++) {
    const v = outcomes[p]!;
    if (v > 0) wins[pairs[p]![0]]!++;
    else if (v < 0) wins[pairs[p]![1]]!++;
  }
  const order = wins.map((_, i) => i).sort((a, b) => wins[b]! - wins[a]! || a - b);
  const f0 = order[0]!;
  const f1 = order[1]!;

  if (n === 2) {
    // The only round-robin game is the final.
    const v = outcomes[0]!;
    if (v !== 0) return result(v > 0 ? 0 : 1, { finalists: [f0, f1] });
    return tiebreakAmong([0, 1], [f0, f1]);
  }
  const second = wins[f1]!;
  if (second > wins[order[2]!]!) {
    const v = await game(f0, f1);
    if (v > 0) return result(f0, { finalists: [f0, f1] });
    if (v < 0) return result(f1, { finalists: [f0, f1] });
    return tiebreakAmong([f0, f1], [f0, f1]);
  }
  const contenders: number[] = [];
  for (let i = 0; i < n; i++) if (wins[i]! >= second) contenders.push(i);
  return tiebreakAmong(contenders, []);
}

/** Checks that the ranking call returned a permutation of `indices`. */
function checkRanking(fn: string, r: unknown, indices: readonly number[]): void {
  const field = 'opts.rank()';
  if (!Array.isArray(r)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must return an array of candidate indices, got ${describeValue(r)}`, { fn, field });
  }
  if (r.length !== indices.length) {
    throw new FrognanoError(
      ErrorCode.LENGTH_MISMATCH,
      `${field} returned ${r.length} indices but was given ${indices.length} ([${indices.join(', ')}])`,
      { fn, field },
    );
  }
  const allowed = new Set(indices);
  const seen = new Set<number>();
  for (let k = 0; k < r.length; k++) {
    const x: unknown = r[k];
    if (typeof x !== 'number' || !allowed.has(x) || seen.has(x)) {
      throw new FrognanoError(
        ErrorCode.OUT_OF_RANGE,
        `${field}[${k}] is ${describeValue(x)}: the result must be a permutation of [${indices.join(', ')}]`,
        { fn, field: `${field}[${k}]`, index: [k] },
      );
    }
    seen.add(x);
  }
}
