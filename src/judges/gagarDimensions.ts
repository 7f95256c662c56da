/**
 * GAGAR's five rubric dimensions and their weights (GAGAR App. A.1, Table 2,
 * Eq. 5), in weight order: approach 0.30, precision 0.25, minimality 0.20, side
 * effects 0.15, consistency 0.10. They sum to 1.
 *
 * This object is the one definition of the dimensions: their names
 * ({@link GAGAR_DIMENSIONS}), the score schemas (`GagarScoresSchema`, the judge's
 * answer schema) and `gagarWeightedScore` are all built from it.
 */
export const GAGAR_WEIGHTS = Object.freeze({
  /** Approach (`s_app`): does the change fix the root cause with a sound strategy? */
  approach: 0.3,
  /** Precision (`s_prec`): are the edited locations right and the behaviour fully covered? */
  precision: 0.25,
  /** Minimality (`s_min`): only the necessary change, no unrelated refactoring? */
  minimality: 0.2,
  /** Side effects (`s_side`): surrounding behaviour and public interfaces left intact? */
  sideEffects: 0.15,
  /** Consistency (`s_style`): reuses existing abstractions and code conventions? */
  consistency: 0.1,
} as const);

/** One GAGAR rubric dimension. */
export type GagarDimension = keyof typeof GAGAR_WEIGHTS;

/** The five GAGAR rubric dimensions, in weight order (GAGAR App. A.1, Table 2): the keys of {@link GAGAR_WEIGHTS}. */
export const GAGAR_DIMENSIONS: readonly GagarDimension[] = Object.freeze(Object.keys(GAGAR_WEIGHTS) as GagarDimension[]);

/**
 * An object with one entry `value(d)` per dimension `d`, in weight order: how the
 * schemas and records over the five dimensions are built. @internal
 */
export function perGagarDimension<T>(value: (d: GagarDimension) => T): { [D in GagarDimension]: T } {
  return Object.fromEntries(GAGAR_DIMENSIONS.map((d) => [d, value(d)])) as { [D in GagarDimension]: T };
}
