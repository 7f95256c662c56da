import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, integerAtLeast, parseOptions } from '../errors/validate.js';

/** Options of {@link truncateHistoryToBudget}. */
export const TruncateHistoryOptionsSchema = z
  .object({
    /**
     * Tokens of the part of the history that is never dropped and sits before
     * the turn groups (system prefix, original task statement), an integer >= 0.
     * It counts toward the budget. Default 0.
     */
    prefixTokens: z.number().int().min(0, 'must be >= 0').default(0),
  })
  .strict();
/** Options of {@link truncateHistoryToBudget} as the caller writes them. */
export type TruncateHistoryOptions = z.input<typeof TruncateHistoryOptionsSchema>;

/** One turn group: an assistant message with its tool calls and their results. Extra fields are allowed and ignored. */
export interface TurnGroup {
  /** Tokens of the whole group, an integer >= 0. */
  readonly tokens: number;
}

/**
 * Where to cut the history before a compaction request (FrogNano App. D.2;
 * SPEC §8): the oldest complete turn groups are dropped until the history fits
 * the budget `C` ({@link compactionBudget}); whole groups only, so that no tool
 * result is left without its call (Leaf rejects orphaned tool references). The
 * prefix (system message, task statement) and the most recent group are always
 * kept, even when they alone exceed the budget.
 *
 * ```
 * k = the smallest index such that prefixTokens + sum_{j >= k} tokens_j <= budget,
 *     but never more than n - 1 (the latest group stays)
 * ```
 * Groups `k .. n-1` are kept, `0 .. k-1` dropped. Returns 0 for an empty list
 * and when everything fits.
 *
 * @param groups - turn groups, oldest first, each with its `tokens`
 * @param budget - the token budget `C`, an integer >= 0
 * @param opts - `{ prefixTokens = 0 }`
 * @returns the index of the first kept group
 * @throws FrognanoError `INVALID_TYPE` (not an array, a group without numeric
 *   `tokens`), `NON_FINITE`, or `OUT_OF_RANGE` (negative or fractional token
 *   counts or budget), naming `groups[i].tokens`, `budget` or `opts.prefixTokens`
 * @example truncateHistoryToBudget([{ tokens: 500 }, { tokens: 300 }, { tokens: 400 }], 1000, { prefixTokens: 200 }) // 1
 */
export function truncateHistoryToBudget(groups: readonly TurnGroup[], budget: number, opts?: TruncateHistoryOptions): number {
  const fn = 'truncateHistoryToBudget';
  const { prefixTokens } = parseOptions(fn, TruncateHistoryOptionsSchema, opts);
  integerAtLeast(fn, 'budget', budget, 0);
  if (!Array.isArray(groups)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `groups must be an array of { tokens }, got ${describeValue(groups)}`, {
      fn,
      field: 'groups',
    });
  }
  const n = groups.length;
  const tokens = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const g: unknown = groups[i];
    if (typeof g !== 'object' || g === null) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `groups[${i}] must be an object with tokens, got ${describeValue(g)}`, {
        fn,
        field: `groups[${i}]`,
        index: [i],
      });
    }
    tokens[i] = integerAtLeast(fn, `groups[${i}].tokens`, (g as { tokens?: unknown }).tokens, 0, [i]);
  }
  if (n === 0) return 0;
  let kept = prefixTokens + tokens[n - 1]!;
  let k = n - 1;
  while (k > 0 && kept + tokens[k - 1]! <= budget) {
    k--;
    kept += tokens[k]!;
  }
  return k;
}
