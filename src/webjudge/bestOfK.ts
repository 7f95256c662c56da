import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';

/** Options of {@link selectBestOfK}. */
export const SelectBestOfKOptionsSchema = z
  .object({
    /** How a tie for the best score is broken: `'random'` (default, seeded) or `'first'` (the lowest index). */
    ties: z.enum(['random', 'first']).default('random'),
    /** Seed of the tie break (seedrandom). Default 0. */
    seed: z.number().int().default(0),
    /** The best candidate is kept only when its score is at least this. Default 0 (any scored candidate). */
    minScore: z.number().default(0),
  })
  .strict();
/** Options of {@link selectBestOfK} as the caller writes them. */
export type SelectBestOfKOptions = z.input<typeof SelectBestOfKOptionsSchema>;

/** The outcome of {@link selectBestOfK}. */
export interface BestOfKSelection {
  /** The kept candidate's index, or `null` when none is kept (see `reason`). */
  index: number | null;
  /** Its score (`null` when none is kept). */
  score: number | null;
  /** Every index sharing the best score (one entry when there is no tie; empty when all were refused). */
  tied: number[];
  /** Indices of refused candidates (`null` scores): never kept, never counted as 0. */
  refused: number[];
  /** `'best'`, `'all-refused'` or `'below-min-score'`. */
  reason: 'best' | 'all-refused' | 'below-min-score';
}

/**
 * The best-of-k filter of rejection-sampling fine-tuning with the interactive
 * judge (Verification Horizon §3.2: best-of-4 RFT): of the k candidate apps
 * generated for one prompt, keep the one with the highest judge score as the
 * prompt's fine-tuning target.
 * - A refused judgement (`null`, from {@link webJudgeReward}'s `reward: null`) is
 *   never kept and never read as 0: only scored candidates compete.
 * - All refused: nothing is kept (`reason: 'all-refused'`).
 * - Ties for the best score: broken by `ties` (`'random'`: uniform among the tied
 *   indices with `seedrandom(seed)`, so the filter does not favour the order the
 *   samples came in; `'first'`: the lowest index).
 * - The best below `minScore`: nothing is kept (`'below-min-score'`), e.g. to
 *   keep only apps whose every rubric item passed (`minScore: 1`).
 *
 * @param scores - one score per candidate, or `null` for a refused judgement (at least one entry)
 * @throws FrognanoError `EMPTY_INPUT` (no candidate), `INVALID_TYPE` (not a number or null, naming
 *   `scores[i]`), `NON_FINITE` (NaN or ±Infinity at `scores[i]`)
 * @example
 * selectBestOfK([0.4, null, 0.9, 0.9], { seed: 1 }) // { index: 2 or 3 (seeded), score: 0.9, tied: [2, 3], refused: [1], reason: 'best' }
 */
export function selectBestOfK(scores: readonly (number | null)[], opts?: SelectBestOfKOptions): BestOfKSelection {
  const fn = 'selectBestOfK';
  const o = parseOptions(fn, SelectBestOfKOptionsSchema, opts);
  if (!Array.isArray(scores)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `scores must be an array of numbers or nulls, got ${describeValue(scores)}`, { fn, field: 'scores' });
  if (scores.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'scores must have at least 1 candidate, got 0', { fn, field: 'scores' });
  const refused: number[] = [];
  let best = -Infinity;
  let tied: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s: unknown = scores[i];
    if (s === null) {
      refused.push(i);
      continue;
    }
    if (typeof s !== 'number') throw new FrognanoError(ErrorCode.INVALID_TYPE, `scores[${i}] must be a number or null (refused), got ${describeValue(s)}`, { fn, field: `scores[${i}]`, index: [i] });
    if (!Number.isFinite(s)) throw new FrognanoError(ErrorCode.NON_FINITE, `scores[${i}] must be a finite number, got ${s}`, { fn, field: `scores[${i}]`, index: [i] });
    if (s > best) {
      best = s;
      tied = [i];
    } else if (s === best) tied.push(i);
  }
  if (tied.length === 0) return { index: null, score: null, tied: [], refused, reason: 'all-refused' };
  if (best < o.minScore) return { index: null, score: null, tied, refused, reason: 'below-min-score' };
  const index = tied.length === 1 || o.ties === 'first' ? tied[0]! : tied[Math.floor(seedrandom(String(o.seed))() * tied.length)]!;
  return { index, score: best, tied, refused, reason: 'best' };
}
