import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseWith } from '../errors/validate.js';
import { AlphaSchema, RhoSchema, WindowSchema } from './compactionParameters.js';

/** A context-compaction configuration (FrogNano App. D). */
export const CompactionConfigSchema = z
  .object({
    /** The compaction window `W` in tokens, an integer >= 1. Compaction triggers at `rho * W`. */
    window: WindowSchema,
    /** The hard context limit `M` of the model server in tokens, an integer >= 1. Generation fails beyond it. */
    maxContext: z.number().int().min(1, 'must be >= 1'),
    /** Trigger ratio `rho` in (0, 1]. Default 0.8 (our choice; see `DEFAULT_COMPACTION_RHO`). */
    rho: RhoSchema,
    /** Fraction `alpha` of the window reserved for the summary, in [0, 1). Default 0.2 (FrogNano App. D.1). */
    alpha: AlphaSchema,
  })
  .strict();
/** A compaction configuration as the caller writes it. */
export type CompactionConfigInput = z.input<typeof CompactionConfigSchema>;
/** A validated compaction configuration, defaults filled in. */
export type CompactionConfig = z.output<typeof CompactionConfigSchema>;

/**
 * Validates a context-compaction configuration and rejects the two settings
 * FrogNano App. D.6 reports as silent no-ops (SPEC §8):
 *
 * - `window > maxContext`: the trigger `tau(H) >= rho W` depends on the
 *   compaction window `W`, not on the hard limit `M`; with `W > M` generation
 *   fails at `M` before the threshold can be reached, so compaction never fires.
 * - `rho * window > maxContext`: the threshold itself lies beyond what any
 *   rollout can hold. (With `rho <= 1` this is implied by the first check; it
 *   is kept explicit because it is the constraint `rho W <= M` the paper says
 *   its own config validator did not check.)
 *
 * Not checkable here: the paper's second trap also bites when `rho W` exceeds
 * the longest context any rollout of a given workload actually reaches; compare
 * `rho * window` with your workload's context lengths.
 *
 * @param config - `{ window, maxContext, rho = 0.8, alpha = 0.2 }`
 * @returns the parsed configuration with defaults filled in
 * @throws FrognanoError `OUT_OF_RANGE` naming `config.window` or `config.rho` for the
 *   no-op settings, and `INVALID_TYPE` / `NON_FINITE` / `OUT_OF_RANGE` for a bad field
 * @example validateCompactionConfig({ window: 32768, maxContext: 131072 }) // { window: 32768, maxContext: 131072, rho: 0.8, alpha: 0.2 }
 * @example validateCompactionConfig({ window: 262144, maxContext: 131072 }) // throws OUT_OF_RANGE (config.window)
 */
export function validateCompactionConfig(config: CompactionConfigInput): CompactionConfig {
  const fn = 'validateCompactionConfig';
  const c = parseWith(fn, 'config', CompactionConfigSchema, config);
  if (c.window > c.maxContext) {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `config.window (${c.window}) must be <= config.maxContext (${c.maxContext}): compaction triggers on the window, ` +
        `so generation would fail at maxContext before rho * window is reached and compaction would silently never run (FrogNano App. D.6)`,
      { fn, field: 'config.window' },
    );
  }
  if (c.rho * c.window > c.maxContext) {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `config.rho * config.window (${c.rho * c.window}) must be <= config.maxContext (${c.maxContext}): ` +
        `the trigger could never be reached, so compaction would silently never run (FrogNano App. D.6)`,
      { fn, field: 'config.rho' },
    );
  }
  return c;
}
