import { z } from 'zod';
import { parseWith } from '../errors/validate.js';
import { bandPosition, checkRate, ResolveRateBandSchema, type ResolveRateBand } from './resolveRateBand.js';

/**
 * TaskPilot's verdict on a candidate task (FrogNano §3.1, Fig. 4; SPEC §7):
 * - `accept`: inside the iteration's target band -> into the next RL batch;
 * - `too-hard`: resolve rate 0, no rollout passed (refine or discard);
 * - `saturated`: resolve rate 1, every rollout passed (refine or discard);
 * - `refine-easier`: solved sometimes but less often than the band wants: make
 *   the task easier (a clearer, more specific statement, lower difficulty);
 * - `refine-harder`: solved more often than the band wants: make it harder
 *   (less explicit statement, less localisation of the solution).
 */
export const CurriculumDecisionSchema = z.enum(['accept', 'too-hard', 'saturated', 'refine-easier', 'refine-harder']);
/** TaskPilot's verdict on a candidate task: one of {@link CurriculumDecisionSchema}'s values. */
export type CurriculumDecision = z.infer<typeof CurriculumDecisionSchema>;

/**
 * Classifies a candidate task by its resolve rate against a target band
 * (TaskPilot, FrogNano §3.1; SPEC §7). Checked in this order:
 *
 * ```
 * rate = 0              -> 'too-hard'
 * rate = 1              -> 'saturated'
 * rate inside band      -> 'accept'
 * rate below the band   -> 'refine-easier'
 * rate above the band   -> 'refine-harder'
 * ```
 * Rates 0 and 1 take precedence over the band: the paper calls them too hard
 * and saturated whatever the iteration's target, since an all-fail or all-pass
 * group carries no group-relative learning signal. So a band closed at 0 or 1
 * never accepts those rates.
 *
 * @param rate - the candidate's resolve rate {@link resolveRate}, in [0, 1]
 * @param band - the iteration's target band, e.g. {@link iterationBand}`(i)` or {@link BROAD_BAND}
 * @returns the decision
 * @throws FrognanoError `NON_FINITE` / `INVALID_TYPE` / `OUT_OF_RANGE` (rate not a
 *   number in [0, 1]) naming `rate`, or a band error naming `band.<field>`
 * @example classifyResolveRate(0.5, iterationBand(1)) // 'accept'
 * @example classifyResolveRate(0.25, iterationBand(1)) // 'refine-easier'
 * @example classifyResolveRate(0.25, iterationBand(5)) // 'accept'
 * @example classifyResolveRate(0.75, iterationBand(5)) // 'refine-harder'
 */
export function classifyResolveRate(rate: number, band: ResolveRateBand): CurriculumDecision {
  const fn = 'classifyResolveRate';
  const r = checkRate(fn, rate);
  const b = parseWith(fn, 'band', ResolveRateBandSchema, band);
  if (r === 0) return 'too-hard';
  if (r === 1) return 'saturated';
  switch (bandPosition(r, b)) {
    case 'inside':
      return 'accept';
    case 'below':
      return 'refine-easier';
    case 'above':
      return 'refine-harder';
  }
}
