import { z } from 'zod';

/**
 * The checklist of the static front-end rubric judge (Verification Horizon §3.1):
 * its six dimensions with their weights, item verdicts and items.
 */

/** The six rubric dimensions of the static front-end judge (Verification Horizon §3.1). */
export const RUBRIC_DIMENSIONS = ['functional', 'content', 'visual', 'layout', 'ux', 'technical'] as const;
/** One rubric dimension. */
export type RubricDimension = (typeof RUBRIC_DIMENSIONS)[number];
/** zod: a rubric dimension. */
export const RubricDimensionSchema = z.enum(RUBRIC_DIMENSIONS);

/**
 * Dimension weights: the shares of checklist items per dimension the paper
 * reports over 671 WebDev tasks (Verification Horizon §3.1: Functional 37.7%,
 * Content 19.0%, Visual 13.3%, Layout 12.9%, UX 9.3%, Technical 7.2%). They sum
 * to 0.994 (rounding in the paper); {@link rubricScore} normalises over the
 * dimensions present.
 */
export const RUBRIC_DIMENSION_WEIGHTS: Readonly<Record<RubricDimension, number>> = Object.freeze({
  functional: 0.377,
  content: 0.19,
  visual: 0.133,
  layout: 0.129,
  ux: 0.093,
  technical: 0.072,
});

/** A checklist item's verdict: `pass` (1), `partial` (0.5), `fail` (0). */
export type RubricVerdict = 'pass' | 'partial' | 'fail';
/** What a verdict counts in {@link rubricScore}. @internal */
export const VERDICT_VALUE: Record<RubricVerdict, number> = { pass: 1, partial: 0.5, fail: 0 };
/** zod: a checklist item's verdict. @internal */
export const RubricVerdictSchema = z.enum(['pass', 'partial', 'fail']);

/** One checklist item of a task. */
export const RubricItemSchema = z
  .object({
    /** Item id, unique in the checklist (e.g. `R1`). */
    id: z.string().min(1),
    /** Its dimension. */
    dimension: RubricDimensionSchema,
    /** What must hold, e.g. "Clicking 'Add' appends the item to the list". */
    description: z.string().min(1),
  })
  .strict();
/** One checklist item of a task. */
export type RubricItem = z.infer<typeof RubricItemSchema>;
