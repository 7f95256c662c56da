import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions, parseWith } from '../errors/validate.js';
import { ldexp, unitExponent } from '../numeric/ldexp.js';
import { RUBRIC_DIMENSION_WEIGHTS, RUBRIC_DIMENSIONS, type RubricDimension, RubricDimensionSchema, type RubricVerdict, RubricVerdictSchema, VERDICT_VALUE } from './rubricItems.js';

/** Options of {@link rubricScore}. */
export const RubricScoreOptionsSchema = z
  .object({
    /** Dimension weights (finite, >= 0, at least one > 0 among the dimensions present). Default {@link RUBRIC_DIMENSION_WEIGHTS}. */
    weights: z.partialRecord(RubricDimensionSchema, z.number().min(0)).optional(),
    /**
     * `'dimension'` (default): weighted mean of the per-dimension mean item values;
     * `'item'`: plain mean over all items (weights ignored).
     */
    weighting: z.enum(['dimension', 'item']).default('dimension'),
  })
  .strict();
/** Options of {@link rubricScore} as the caller writes them. */
export type RubricScoreOptions = z.input<typeof RubricScoreOptionsSchema>;

/** The result of {@link rubricScore}. */
export interface RubricScore {
  /** The score in [0, 100]. */
  score: number;
  /** Per dimension: the number of items and their mean value in [0, 1] (`null` without items). */
  byDimension: Record<RubricDimension, { items: number; value: number | null }>;
}

const ScoredItemListSchema = z.array(z.looseObject({ dimension: RubricDimensionSchema, verdict: RubricVerdictSchema }));

/**
 * The rubric score of one artefact from its checklist verdicts (Verification
 * Horizon §3.1). Each item counts `pass = 1`, `partial = 0.5`, `fail = 0`; per
 * dimension `v_d` is the mean over its items; the score is
 * ```
 * score = 100 * sum_{d present} w_d v_d / sum_{d present} w_d
 * ```
 * with the paper's dimension shares as weights (Functional 0.377, Content 0.19,
 * Visual 0.133, Layout 0.129, UX 0.093, Technical 0.072). The paper gives the
 * dimensions and their shares of the checklist items but not its aggregation
 * (its prompts are in an appendix not reproduced): this weighting keeps
 * functional correctness dominant whatever the item count of a checklist, and
 * equals the plain item mean when a checklist has the paper's item shares.
 * `weighting: 'item'` gives the plain item mean. Partial credit 0.5 is this
 * library's choice. Only the ratios of the weights matter: they are rescaled by
 * a power of two before summing, so weights as large as 1e308 or as small as
 * 5e-324 give the same finite score as their ratios.
 *
 * @param items - verdicts with their dimension, at least one
 * @throws FrognanoError `EMPTY_INPUT` (no item), `INVALID_TYPE` (an unknown dimension or verdict,
 *   naming `items[i].<field>`), `OUT_OF_RANGE` (a negative weight, or all weights of the present
 *   dimensions 0)
 * @example
 * rubricScore([
 *   { dimension: 'functional', verdict: 'pass' }, { dimension: 'functional', verdict: 'fail' },
 *   { dimension: 'visual', verdict: 'pass' },
 * ]) // 100 * (0.377 * 0.5 + 0.133 * 1) / (0.377 + 0.133) = 63.04
 */
export function rubricScore(items: readonly { dimension: RubricDimension; verdict: RubricVerdict }[], opts?: RubricScoreOptions): RubricScore {
  const fn = 'rubricScore';
  const o = parseOptions(fn, RubricScoreOptionsSchema, opts);
  if (!Array.isArray(items)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `items must be an array, got ${describeValue(items)}`, { fn, field: 'items' });
  if (items.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'items must have at least 1 item, got 0', { fn, field: 'items' });
  const xs = parseWith(fn, 'items', ScoredItemListSchema, items);
  return scoreParsed(fn, xs, o.weights, o.weighting);
}

/** {@link rubricScore} on parsed items. @internal */
export function scoreParsed(fn: string, xs: readonly { dimension: RubricDimension; verdict: RubricVerdict }[], w: Partial<Record<RubricDimension, number>> | undefined, weighting: 'dimension' | 'item'): RubricScore {
  const weights = { ...RUBRIC_DIMENSION_WEIGHTS, ...(w ?? {}) };
  const sum: Record<string, number> = {};
  const count: Record<string, number> = {};
  let all = 0;
  for (const x of xs) {
    sum[x.dimension] = (sum[x.dimension] ?? 0) + VERDICT_VALUE[x.verdict];
    count[x.dimension] = (count[x.dimension] ?? 0) + 1;
    all += VERDICT_VALUE[x.verdict];
  }
  const byDimension = {} as RubricScore['byDimension'];
  let wMax = 0;
  for (const d of RUBRIC_DIMENSIONS) if ((count[d] ?? 0) > 0 && weights[d] > wMax) wMax = weights[d];
  // Weights scaled by the power of two 2^e that brings the largest present weight into [1, 2):
  // exact (the score is bit-for-bit unchanged for ordinary weights), and the sums can
  // neither overflow (weights near 1.8e308) nor lose the weights to underflow (near 5e-324).
  const e = wMax > 0 ? unitExponent(wMax) : 0;
  let num = 0;
  let den = 0;
  for (const d of RUBRIC_DIMENSIONS) {
    const c = count[d] ?? 0;
    const v = c > 0 ? sum[d]! / c : null;
    byDimension[d] = { items: c, value: v };
    if (v !== null) {
      const w = ldexp(weights[d], e);
      num += w * v;
      den += w;
    }
  }
  if (weighting === 'item') return { score: (100 * all) / xs.length, byDimension };
  if (!(den > 0)) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, 'opts.weights: every dimension present in items has weight 0', { fn, field: 'opts.weights' });
  }
  // 100 * (num / den), not (100 * num) / den: num <= den holds in float64 too (w v <= w, sums are monotone), so the score never exceeds 100.
  return { score: 100 * (num / den), byDimension };
}
