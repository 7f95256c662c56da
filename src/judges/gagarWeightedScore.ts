import { z } from 'zod';
import { parseWith } from '../errors/validate.js';
import { GAGAR_WEIGHTS, GAGAR_DIMENSIONS, perGagarDimension } from './gagarDimensions.js';

/**
 * The judge's five rubric scores of one successful candidate (GAGAR App. A.1),
 * one number per dimension of {@link GAGAR_WEIGHTS} (unknown keys rejected).
 * The judge scores on 1..5; any finite number is accepted.
 */
export const GagarScoresSchema = z.object(perGagarDimension(() => z.number())).strict();
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
  // left to right in weight order, as the formula reads; from -0, which adds exactly (-0 + x = x, also for x = -0)
  let w = -0;
  for (const d of GAGAR_DIMENSIONS) w += GAGAR_WEIGHTS[d] * s[d];
  return w;
}
