import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { RhoSchema, WindowSchema } from './compactionParameters.js';

/** Options of {@link shouldCompact}. */
export const ShouldCompactOptionsSchema = z
  .object({
    /** Tokens `tau(H_t)` of the current conversation history, an integer >= 0. */
    historyTokens: z.number().int().min(0, 'must be >= 0'),
    /** The compaction window `W` in tokens, an integer >= 1. */
    window: WindowSchema,
    /**
     * Trigger ratio `rho` in (0, 1]. Default `DEFAULT_COMPACTION_RHO` = 0.8
     * (our choice; the paper does not report its value).
     */
    rho: RhoSchema,
  })
  .strict();
/** Options of {@link shouldCompact} as the caller writes them. */
export type ShouldCompactOptions = z.input<typeof ShouldCompactOptionsSchema>;

/**
 * Whether to compact before the next model call (FrogNano App. D.1; SPEC §8):
 *
 * ```
 * compact  <=>  tau(H_t) >= rho * W
 * ```
 * The trigger depends on the compaction window `W`, not on the hard context
 * limit (see {@link validateCompactionConfig} for the two silent no-op
 * configurations the paper reports).
 *
 * @param opts - `{ historyTokens, window, rho = 0.8 }`
 * @returns true when the history has reached `rho * W` tokens
 * @throws FrognanoError `INVALID_TYPE`, `NON_FINITE` or `OUT_OF_RANGE`
 *   (`historyTokens < 0`, `window < 1`, `rho` outside (0, 1]) naming `opts.<field>`
 * @example shouldCompact({ historyTokens: 26215, window: 32768 }) // true (0.8 * 32768 = 26214.4)
 * @example shouldCompact({ historyTokens: 26214, window: 32768 }) // false
 */
export function shouldCompact(opts: ShouldCompactOptions): boolean {
  const { historyTokens, window, rho } = parseOptions('shouldCompact', ShouldCompactOptionsSchema, opts);
  return historyTokens >= rho * window;
}
