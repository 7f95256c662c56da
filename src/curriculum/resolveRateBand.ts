import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteNumber, integerAtLeast, parseWith } from '../errors/validate.js';

/**
 * A target band of resolve rates (FrogNano §3.1; SPEC §7): the interval
 * `low .. high` inside [0, 1], each end open unless its `*Inclusive` flag is set.
 * `low > high` and empty bands (`low === high` with an open end) are rejected.
 */
export const ResolveRateBandSchema = z
  .object({
    /** Lower end of the band, in [0, 1]. */
    low: z.number().min(0, 'must be >= 0').max(1, 'must be <= 1'),
    /** Upper end of the band, in [0, 1], `>= low`. */
    high: z.number().min(0, 'must be >= 0').max(1, 'must be <= 1'),
    /** Whether a rate equal to `low` is inside the band. Default false (open). */
    lowInclusive: z.boolean().default(false),
    /** Whether a rate equal to `high` is inside the band. Default false (open). */
    highInclusive: z.boolean().default(false),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.low > b.high) {
      ctx.addIssue({ code: 'custom', path: ['high'], message: `must be >= low (${b.low}), got ${b.high}`, params: { code: ErrorCode.OUT_OF_RANGE } });
    } else if (b.low === b.high && !(b.lowInclusive && b.highInclusive)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `the band is empty: low === high (${b.low}) needs lowInclusive and highInclusive both true`,
        params: { code: ErrorCode.OUT_OF_RANGE },
      });
    }
  });
/** A target band of resolve rates as the caller writes it (the `*Inclusive` flags default to false). */
export type ResolveRateBand = z.input<typeof ResolveRateBandSchema>;
/** A validated band, every field present. */
export type ParsedResolveRateBand = z.output<typeof ResolveRateBandSchema>;

/**
 * The broad learnable band `0 < p̂ < 1` (FrogNano §3.1): the calibration
 * rollouts contain both successes and failures.
 */
export const BROAD_BAND: Readonly<ParsedResolveRateBand> = Object.freeze({
  low: 0,
  high: 1,
  lowInclusive: false,
  highInclusive: false,
});

/**
 * The resolve-rate target band of TaskPilot iteration `iteration` (FrogNano §3.1;
 * SPEC §7):
 *
 * ```
 * iterations 1-4:  p̂ = 0.5       -> the closed point band [0.5, 0.5]
 * iteration  5+:   0 < p̂ <= 0.5  -> (0, 0.5]
 * ```
 * The paper states the iteration 1-4 target as the single value 0.5, so it is
 * represented as the point band `{ low: 0.5, high: 0.5, lowInclusive: true,
 * highInclusive: true }`: with N calibration rollouts `p̂ = 0.5` is reachable
 * only when N is even, and every other rate is steered by refinement (rates in
 * (0, 0.5) -> `refine-easier`, (0.5, 1) -> `refine-harder`). A caller who wants a
 * tolerance (e.g. odd N) passes its own band, such as
 * `{ low: 0.5 - 1 / (2 * N), high: 0.5 + 1 / (2 * N), lowInclusive: true, highInclusive: true }`.
 * The paper runs five iterations; later iterations keep the revised
 * iteration 5 band (our choice: the paper is silent beyond 5).
 *
 * @param iteration - the TaskPilot iteration, an integer >= 1
 * @returns a fresh band object
 * @throws FrognanoError `INVALID_TYPE` / `NON_FINITE` (not a finite number) or
 *   `OUT_OF_RANGE` (not an integer >= 1), naming `iteration`
 * @example iterationBand(2) // { low: 0.5, high: 0.5, lowInclusive: true, highInclusive: true }
 * @example iterationBand(5) // { low: 0, high: 0.5, lowInclusive: false, highInclusive: true }
 */
export function iterationBand(iteration: number): ParsedResolveRateBand {
  integerAtLeast('iterationBand', 'iteration', iteration, 1);
  return iteration <= 4
    ? { low: 0.5, high: 0.5, lowInclusive: true, highInclusive: true }
    : { low: 0, high: 0.5, lowInclusive: false, highInclusive: true };
}

/** Checks a resolve rate argument: a finite number in [0, 1]. @internal */
export function checkRate(fn: string, rate: unknown): number {
  finiteNumber(fn, 'rate', rate);
  const r = rate as number;
  if (r < 0 || r > 1) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `rate must lie in [0, 1], got ${r}`, { fn, field: 'rate' });
  return r;
}

/** Where a rate lies relative to a validated band. @internal */
export function bandPosition(rate: number, b: ParsedResolveRateBand): 'below' | 'inside' | 'above' {
  if (rate < b.low || (rate === b.low && !b.lowInclusive)) return 'below';
  if (rate > b.high || (rate === b.high && !b.highInclusive)) return 'above';
  return 'inside';
}

/**
 * Whether a resolve rate lies inside a band, honouring open and closed ends
 * (FrogNano §3.1; SPEC §7). Pure interval membership: unlike
 * {@link classifyResolveRate} it gives no special meaning to rates 0 and 1.
 *
 * @param rate - a resolve rate in [0, 1]
 * @param band - the band (see {@link ResolveRateBandSchema})
 * @throws FrognanoError `NON_FINITE` / `INVALID_TYPE` / `OUT_OF_RANGE` naming `rate`,
 *   or any band error naming `band.<field>`
 * @example inBand(0.5, iterationBand(5)) // true
 * @example inBand(0, BROAD_BAND) // false
 */
export function inBand(rate: number, band: ResolveRateBand): boolean {
  const fn = 'inBand';
  const r = checkRate(fn, rate);
  const b = parseWith(fn, 'band', ResolveRateBandSchema, band);
  return bandPosition(r, b) === 'inside';
}
