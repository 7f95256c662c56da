import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { AlphaSchema, WindowSchema } from './compactionParameters.js';

/** Options of {@link compactionBudget}. */
export const CompactionBudgetOptionsSchema = z
  .object({
    /** The compaction context window `W` in tokens (not the hard context limit), an integer >= 1. */
    window: WindowSchema,
    /** Tokens `tau(P)` of the compaction (summary) instruction `P`, an integer >= 0. */
    promptTokens: z.number().int().min(0, 'must be >= 0'),
    /** Fraction `alpha` of the window reserved for the generated summary, in [0, 1). Default 0.2 (FrogNano App. D.1). */
    alpha: AlphaSchema,
  })
  .strict();
/** Options of {@link compactionBudget} as the caller writes them. */
export type CompactionBudgetOptions = z.input<typeof CompactionBudgetOptionsSchema>;

/**
 * Token budget for the conversation history sent with a compaction (summary)
 * request (FrogNano App. D.1, Eq. 1; SPEC §8). The summary request itself must
 * fit in the window `W`, and `floor(alpha W)` tokens are kept free for the
 * summary the model will write:
 *
 * ```
 * C = max(1, W - tau(P) - floor(alpha * W)),   alpha = 0.2
 * ```
 * `floor(alpha * W)` is computed in float64, exactly as Python's
 * `math.floor(alpha * W)` (e.g. `0.57 * 100` floors to 56). The history is
 * then cut to `C` tokens by dropping the oldest complete turn groups
 * ({@link truncateHistoryToBudget}).
 *
 * @param opts - `{ window, promptTokens, alpha = 0.2 }`
 * @returns the budget `C`, an integer >= 1
 * @throws FrognanoError `INVALID_TYPE` (missing, non-number, fractional or unknown
 *   field), `NON_FINITE` or `OUT_OF_RANGE` (`window < 1`, `promptTokens < 0`,
 *   `alpha` outside [0, 1)), naming `opts.<field>`
 * @example compactionBudget({ window: 32768, promptTokens: 300 }) // 32768 - 300 - 6553 = 25915
 */
export function compactionBudget(opts: CompactionBudgetOptions): number {
  const { window, promptTokens, alpha } = parseOptions('compactionBudget', CompactionBudgetOptionsSchema, opts);
  return Math.max(1, window - promptTokens - Math.floor(alpha * window));
}
