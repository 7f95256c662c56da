import { z } from 'zod';
import { parseWith } from '../errors/validate.js';

/**
 * GAGAR's quality tiers (GAGAR App. A.1):
 * - `T1`: every rubric dimension scores at least 4 and there is no severe issue;
 * - `T2`: the middle tier;
 * - `T3`: a severe defect (an unrequested large rewrite, a bypass that only works for the tests, ...).
 */
export const GagarTierSchema = z.enum(['T1', 'T2', 'T3']);
/** One of GAGAR's quality tiers `T1` (best) .. `T3` (severe defect). */
export type GagarTier = z.infer<typeof GagarTierSchema>;

/** The judge's verdict on one successful candidate: its tier and its rank inside the tier. */
export const GagarCandidateSchema = z
  .object({
    /** Quality tier, `'T1' | 'T2' | 'T3'`. */
    tier: GagarTierSchema,
    /**
     * Order of the candidate's tie group inside its tier: smaller is better,
     * equal ranks are a tie. Any finite number; ranks need not be consecutive
     * nor start at 1 (only their order matters). Ignored for `T3`.
     */
    rank: z.number(),
  })
  .strict();
/** The judge's verdict on one successful candidate. */
export type GagarCandidate = z.infer<typeof GagarCandidateSchema>;
const CandidateListSchema = z.array(GagarCandidateSchema);

/** Coefficient of the best T1 tie group. */
const T1_BEST = 1.0;
/** Coefficient of every later T1 tie group. */
const T1_REST = 0.9;
/** T2 coefficients fall linearly from this ... */
const T2_TOP = 0.85;
/** ... by this much in total ... */
const T2_SPAN = 0.45;
/** ... to this value for the worst T2 tie group (written out: `0.85 - 0.45` is 0.39999999999999997 in float64). */
const T2_BOTTOM = 0.4;
/** Coefficient of every T3 candidate. */
const T3_COEF = 0.2;

/** The distinct values of `xs`, ascending. */
function distinctSorted(xs: number[]): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}

/**
 * Turns the judge's tiers and in-tier ranks into GAGAR quality coefficients
 * (GAGAR App. A.1, Eq. 6; SPEC §4). A tie group is the set of candidates of one
 * tier with the same `rank`; groups are ordered by `rank`, smaller first.
 *
 * ```
 * T1: best tie group -> 1.0, every later T1 tie group -> 0.9
 * T2: m distinct tie groups, k-th best (k = 0..m-1) -> 0.85 - 0.45 k / (m - 1)   (m = 1 -> 0.85)
 * T3: 0.2
 * ```
 * So T2 runs linearly from 0.85 down to 0.4 (the last group gets exactly 0.4,
 * not the float64 rounding of `0.85 - 0.45`), and every coefficient lies in
 * (0, 1] as {@link gagarRedistribute} requires. Tiers are independent: the
 * best T2 group gets 0.85 whether or not there are T1 candidates. An empty
 * list gives an empty result.
 *
 * The result is aligned with `candidates` (the successful members only). To
 * feed {@link gagarRedistribute}, scatter it into a group-length array at the
 * successes' indices; what sits at the failures' indices is ignored.
 *
 * @param candidates - tier and rank of each successful candidate
 * @returns one coefficient per candidate, in input order
 * @throws FrognanoError `INVALID_TYPE` (not an array, an unknown tier, a missing or
 *   unknown field) or `NON_FINITE` (a NaN / ±Infinity rank), naming `candidates[i].<field>`
 * @example
 * gagarCoefficients([
 *   { tier: 'T1', rank: 1 }, { tier: 'T1', rank: 1 }, { tier: 'T1', rank: 2 },
 *   { tier: 'T2', rank: 1 }, { tier: 'T2', rank: 5 }, { tier: 'T2', rank: 9 },
 *   { tier: 'T3', rank: 1 },
 * ]) // [1, 1, 0.9, 0.85, 0.625, 0.4, 0.2]
 */
export function gagarCoefficients(candidates: readonly GagarCandidate[]): number[] {
  const cs = parseWith('gagarCoefficients', 'candidates', CandidateListSchema, candidates);
  const t1 = distinctSorted(cs.filter((c) => c.tier === 'T1').map((c) => c.rank));
  const t2 = distinctSorted(cs.filter((c) => c.tier === 'T2').map((c) => c.rank));
  const t1Best = t1[0];
  const m = t2.length;
  return cs.map((c) => {
    switch (c.tier) {
      case 'T1':
        return c.rank === t1Best ? T1_BEST : T1_REST;
      case 'T2': {
        if (m === 1) return T2_TOP;
        const k = t2.indexOf(c.rank);
        return k === m - 1 ? T2_BOTTOM : T2_TOP - (T2_SPAN * k) / (m - 1);
      }
      case 'T3':
        return T3_COEF;
    }
  });
}
