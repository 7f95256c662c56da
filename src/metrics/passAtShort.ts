import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseWith } from '../errors/validate.js';

/**
 * One sampled trajectory for pass@short (FrogNano §5.2, test-time scaling). Extra
 * fields (an id, the patch, ...) are allowed and ignored.
 */
export const ShortCandidateSchema = z.object({
  /** The candidate's patch passes the task's tests. */
  passed: z.boolean(),
  /** Its length: assistant tokens (or steps); a finite number >= 0. Only the order matters. */
  length: z.number().min(0),
});
/** One sampled trajectory for pass@short. */
export type ShortCandidate = z.infer<typeof ShortCandidateSchema>;

const CandidatesSchema = z.array(ShortCandidateSchema);

function parseCandidates(fn: string, candidates: readonly ShortCandidate[]): ShortCandidate[] {
  const arr = parseWith(fn, 'candidates', CandidatesSchema, candidates);
  if (arr.length === 0) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'candidates must have at least 1 element, got 0', { fn, field: 'candidates' });
  }
  return arr;
}

function shortestOf(arr: readonly ShortCandidate[]): number {
  let best = 0;
  for (let i = 1; i < arr.length; i++) if (arr[i]!.length < arr[best]!.length) best = i;
  return best;
}

/**
 * The index of the shortest candidate, the first one on ties (the selection
 * rule of pass@short; FrogNano §5.2; SPEC §6).
 *
 * @throws FrognanoError `EMPTY_INPUT` (no candidate), `INVALID_TYPE` / `NON_FINITE` /
 *   `OUT_OF_RANGE` naming `candidates[i].passed` or `candidates[i].length`
 * @example shortestIndex([{ passed: false, length: 30 }, { passed: true, length: 12 }]) // 1
 */
export function shortestIndex(candidates: readonly ShortCandidate[]): number {
  return shortestOf(parseCandidates('shortestIndex', candidates));
}

/**
 * pass@short (FrogNano §5.2, test-time scaling; SPEC §6): of the `k` trajectories
 * sampled for a task, keep the shortest (the first one on ties) and report whether
 * it passed. FrogNano reports it as a proxy for distilling pass@k into pass@1
 * (37.6% -> 38.0% on SWE-bench Pro). Average it over tasks for the benchmark score.
 *
 * ```
 * passAtShort = candidates[argmin_i length_i].passed     (smallest index on ties)
 * ```
 *
 * @throws FrognanoError `EMPTY_INPUT` (no candidate), `INVALID_TYPE` / `NON_FINITE` /
 *   `OUT_OF_RANGE` naming `candidates[i].passed` or `candidates[i].length`
 * @example passAtShort([{ passed: false, length: 30 }, { passed: true, length: 12 }]) // true
 */
export function passAtShort(candidates: readonly ShortCandidate[]): boolean {
  const arr = parseCandidates('passAtShort', candidates);
  return arr[shortestOf(arr)]!.passed;
}
