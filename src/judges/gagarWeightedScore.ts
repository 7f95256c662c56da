import { z } from 'zod';
import { parseWith } from '../errors/validate.js';

/**
 * The weights of GAGAR's five rubric dimensions (GAGAR App. A.1, Table 2, Eq. 5):
 * approach 0.30, precision 0.25, minimality 0.20, side effects 0.15,
 * consistency 0.10. They sum to 1.
 */
export const GAGAR_WEIGHTS = Object.freeze({
  approach: 0.3,
  precision: 0.25,
  minimality: 0.2,
  sideEffects: 0.15,
  consistency: 0.1,
} as const);

/** The judge's five rubric scores of one successful candidate (GAGAR App. A.1). */
export const GagarScoresSchema = z
  .object({
    /** Approach (`s_app`): does the change fix the root cause with a sound strategy? Judge scale 1..5; any finite number accepted. */
    approach: z.number(),
    /** Precision (`s_prec`): are the edited locations right and the behaviour fully covered? 1..5. */
    precision: z.number(),
    /** Minimality (`s_min`): only the necessary change, no unrelated refactoring? 1..5. */
    minimality: z.number(),
    /** Side effects (`s_side`): surrounding behaviour and public interfaces left intact? 1..5. */
    sideEffects: z.number(),
    /** Consistency (`s_style`): reuses existing abstractions and code conventions? 1..5. */
    consistency: z.number(),
  })
  .strict();
/** The judge's five rubric scores of one successful candidate. */
export type GagarScores = z.infer<typeof GagarScoresSchema>;

/**
 * GAGAR's weighted quality score of one successful candidate (GAGAR App. A.1,
 * Table 2, Eq. 5; SPEC §4):
 *
 * ```
 * W = 0.30 approach + 0.25 precision + 0.20 minimality + 0.15 sideEffects + 0.10 consistency
 * ```
 * The judge scores each dimension on 1..5, so `W` lies in [1, 5] for judge
 * output; any finite scores are accepted (no clamping, no range check), so a
 * caller may also feed rescaled scores. `W` is what GAGAR's quality audit
 * reports (4.03 vs 3.70); the tiers and ranks fed to {@link gagarCoefficients}
 * come from the judge itself.
 *
 * @param scores - the five rubric scores (unknown keys are rejected)
 * @returns the weighted score
 * @throws FrognanoError `INVALID_TYPE` (a missing, non-number or unknown field) or
 *   `NON_FINITE` (NaN / ±Infinity), naming `scores.<field>`
 * @example gagarWeightedScore({ approach: 5, precision: 4, minimality: 3, sideEffects: 5, consistency: 4 }) // 4.25
 */
export function gagarWeightedScore(scores: GagarScores): number {
  const s = parseWith('gagarWeightedScore', 'scores', GagarScoresSchema, scores);
  return (
    GAGAR_WEIGHTS.approach * s.approach +
    GAGAR_WEIGHTS.precision * s.precision +
    GAGAR_WEIGHTS.minimality * s.minimality +
    GAGAR_WEIGHTS.sideEffects * s.sideEffects +
    GAGAR_WEIGHTS.consistency * s.consistency
  );
}
