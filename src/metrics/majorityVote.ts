import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';

/** Options of {@link majorityVote}. */
export const MajorityVoteOptionsSchema = z
  .object({
    /**
     * What a tie for the most votes gives: `'null'` (default) no winner; `'first'`
     * the tied label whose first vote comes earliest in `votes`.
     */
    tieBreak: z.enum(['first', 'null']).default('null'),
  })
  .strict();
/** Options of {@link majorityVote} as the caller writes them. */
export type MajorityVoteOptions = z.input<typeof MajorityVoteOptionsSchema>;

/** The outcome of {@link majorityVote}. */
export interface MajorityVoteResult<T> {
  /** The label with the most votes; `null` on a tie under `tieBreak: 'null'`. */
  winner: T | null;
  /** Votes for the top label (for each of the tied labels on a tie). */
  count: number;
  /** `count / votes.length`: the share of votes for the top label. */
  agreement: number;
  /** Whether two or more labels share the most votes. */
  tied: boolean;
}

/**
 * Plurality vote over labels (FrogNano §5.2 / App. F.2: the three-judge
 * adjudication of reward-hacking candidates; Verification Horizon §2.2: the
 * majority vote over samples of the agentic task-quality judge).
 *
 * ```
 * count(v) = #{ r : votes[r] = v }
 * winner   = argmax_v count(v)    (unique; else tieBreak: 'null' -> null, 'first' -> earliest-voted tied label)
 * agreement = count(winner) / |votes|
 * ```
 * Labels are compared with SameValueZero (as `Map` keys): use primitives
 * (strings, numbers, booleans); objects match only by reference. A plurality is
 * enough (three judges voting `a, b, c` tie; `a, a, b` elects `a` with agreement 2/3).
 *
 * @param votes - one label per rater or sample, at least one
 * @throws FrognanoError `INVALID_TYPE` (`votes` not an array, an unknown option or
 *   `opts.tieBreak` not `'first' | 'null'`), `EMPTY_INPUT` (no vote)
 * @example majorityVote(['hack', 'clean', 'hack']) // { winner: 'hack', count: 2, agreement: 0.667, tied: false }
 */
export function majorityVote<T>(votes: readonly T[], opts?: MajorityVoteOptions): MajorityVoteResult<T> {
  const fn = 'majorityVote';
  if (!Array.isArray(votes)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `votes must be an array, got ${describeValue(votes)}`, { fn, field: 'votes' });
  }
  const o = parseOptions(fn, MajorityVoteOptionsSchema, opts);
  if (votes.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'votes must have at least 1 element, got 0', { fn, field: 'votes' });
  const counts = new Map<T, number>();
  for (const v of votes) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: T = votes[0]!;
  let bestCount = 0;
  let tied = false;
  // Map iteration follows first appearance, so the first label reaching the top count is the earliest voted.
  for (const [label, c] of counts) {
    if (c > bestCount) {
      best = label;
      bestCount = c;
      tied = false;
    } else if (c === bestCount) tied = true;
  }
  return {
    winner: tied && o.tieBreak === 'null' ? null : best,
    count: bestCount,
    agreement: bestCount / votes.length,
    tied,
  };
}
