import { z } from 'zod';

/**
 * The parameters of context compaction (FrogNano App. D.1; SPEC §8), defined
 * once for every schema that takes them (`compactionBudget`, `shouldCompact`,
 * `validateCompactionConfig`).
 */

/**
 * Default trigger ratio `rho`. FrogNano App. D names `rho` but does not report
 * its value; 0.8 is our choice: it equals `1 - alpha` for the paper's
 * `alpha = 0.2`, so compaction fires once the history no longer fits beside the
 * `floor(alpha W)` tokens reserved for the summary, and it is in the range
 * (roughly 0.75-0.95 of the window) where agent harnesses commonly put their
 * auto-compaction threshold.
 */
export const DEFAULT_COMPACTION_RHO = 0.8;

/** Default `alpha`, the fraction of the window reserved for the summary (FrogNano App. D.1). */
export const DEFAULT_COMPACTION_ALPHA = 0.2;

/** `W`: the compaction window in tokens (not the hard context limit), an integer >= 1. @internal */
export const WindowSchema = z.number().int().min(1, 'must be >= 1');

/** `rho`: the trigger ratio, in (0, 1], default {@link DEFAULT_COMPACTION_RHO} = 0.8. @internal */
export const RhoSchema = z.number().gt(0, 'must be > 0').max(1, 'must be <= 1').default(DEFAULT_COMPACTION_RHO);

/** `alpha`: the fraction of the window reserved for the summary, in [0, 1), default {@link DEFAULT_COMPACTION_ALPHA} = 0.2 (FrogNano App. D.1). @internal */
export const AlphaSchema = z.number().min(0, 'must be >= 0').lt(1, 'must be < 1').default(DEFAULT_COMPACTION_ALPHA);
