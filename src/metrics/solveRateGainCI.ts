import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, parseOptions } from '../errors/validate.js';
import {
  BootstrapCommonOptionsShape,
  checkBlockLength,
  defaultBlockLength,
  meanOf,
  movingBlockResample,
  percentileInterval,
} from './blockBootstrapCI.js';

/** Options of {@link solveRateGainCI}. */
export const SolveRateGainOptionsSchema = z.object(BootstrapCommonOptionsShape).strict();

/** Options of {@link solveRateGainCI} as the caller writes them. */
export type SolveRateGainOptions = z.input<typeof SolveRateGainOptionsSchema>;

/** The outcome of {@link solveRateGainCI}. */
export interface SolveRateGainInterval {
  /** `lastQuartileMean - firstQuartileMean` on the original series. */
  estimate: number;
  /** Lower percentile bound of the gain. */
  low: number;
  /** Upper percentile bound of the gain. */
  high: number;
  /** Mean of the first `q` values. */
  firstQuartileMean: number;
  /** Mean of the last `q` values. */
  lastQuartileMean: number;
  /** `q = floor(n / 4)`, the length of each quartile segment. */
  quartileLength: number;
  /** The block length used inside each segment. */
  blockLength: number;
}

/**
 * Within-iteration solve-rate gain relative to the first-quartile mean, with a
 * moving-block bootstrap interval (FrogNano §5.2, Fig. 10: "solve rate improves by
 * 11.7, 3.4, 5.6, 3.0 and 5.4 points relative to the first-quartile mean; four of
 * the five block-bootstrap intervals exclude zero").
 *
 * `solveRates` is one iteration's per-update training solve rate, in time order.
 * With `q = floor(n/4)`:
 * ```
 * first    = solveRates[0 .. q)          last = solveRates[n-q .. n)
 * estimate = mean(last) - mean(first)
 * ```
 * The paper gives the reference (the first-quartile mean) but not the end point;
 * the last-quartile mean is used here, a smoothed end of the iteration that is
 * symmetric with the reference. The result is in the units of `solveRates`
 * (multiply fractions by 100 for points).
 *
 * Interval: a plain block bootstrap of the whole series would move blocks to
 * random positions and wipe out the trend being measured (its resampled gains
 * centre on 0). So each quartile segment is resampled on its own, by moving
 * blocks drawn from that segment only, and the gain is recomputed on the two
 * resampled segments in their positions:
 * ```
 * first*_b = MBB(first, l),  last*_b = MBB(last, l),  gain*_b = mean(last*_b) - mean(first*_b)
 * interval = [ Q_{(1-c)/2}(gain*), Q_{(1+c)/2}(gain*) ]     (type-7 quantiles)
 * ```
 * Blocks keep the autocorrelation inside each segment; the two segments, a
 * half-iteration apart, are resampled independently. Seeded with `seedrandom`.
 * The means are computed without overflow; a gain beyond the float64 range (values
 * near -1.8e308 in one quartile and +1.8e308 in the other) is refused, never ±Infinity.
 *
 * @param solveRates - per-update solve rates of one iteration, in time order, at least 4
 * @returns `{ estimate, low, high, firstQuartileMean, lastQuartileMean, quartileLength, blockLength }`
 * @throws FrognanoError `INVALID_TYPE` (not an array of numbers, an unknown option), `EMPTY_INPUT`
 *   (fewer than 4 values), `NON_FINITE` (NaN/±Infinity), `OUT_OF_RANGE` (`opts.blockLength`
 *   not an integer in [1, q], `opts.resamples` not an integer in [1, `MAX_BOOTSTRAP_RESAMPLES`],
 *   `opts.confidence` outside (0, 1); naming `solveRates`, a gain, original or resampled,
 *   beyond the float64 range)
 * @example solveRateGainCI(iterationSolveRates, { seed: 1 }) // e.g. { estimate: 0.117, low: 0.08, high: 0.15, ... }
 */
export function solveRateGainCI(solveRates: ArrayLike<number>, opts?: SolveRateGainOptions): SolveRateGainInterval {
  const fn = 'solveRateGainCI';
  const xs = finiteArray(fn, 'solveRates', solveRates, { minLength: 4 });
  const o = parseOptions(fn, SolveRateGainOptionsSchema, opts);
  const n = xs.length;
  const q = Math.floor(n / 4);
  const l = o.blockLength ?? defaultBlockLength(q);
  checkBlockLength(fn, l, q, 'the quartile length floor(n/4)');
  const first = Float64Array.from({ length: q }, (_, i) => xs[i]!);
  const last = Float64Array.from({ length: q }, (_, i) => xs[n - q + i]!);
  const firstQuartileMean = meanOf(first);
  const lastQuartileMean = meanOf(last);
  const estimate = lastQuartileMean - firstQuartileMean;
  const overflow = (which: string): never => {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `the ${which} gain between the quartile means is beyond the float64 range (the values span more than 1.8e308); rescale solveRates`,
      { fn, field: 'solveRates' },
    );
  };
  if (estimate - estimate !== 0) overflow('estimated');
  const rng = seedrandom(String(o.seed));
  const bufFirst = new Float64Array(q);
  const bufLast = new Float64Array(q);
  const stats = new Float64Array(o.resamples);
  for (let b = 0; b < o.resamples; b++) {
    movingBlockResample(first, l, rng, bufFirst);
    movingBlockResample(last, l, rng, bufLast);
    const g = meanOf(bufLast) - meanOf(bufFirst);
    if (g - g !== 0) overflow('resampled');
    stats[b] = g;
  }
  return {
    estimate,
    ...percentileInterval(stats, o.confidence),
    firstQuartileMean,
    lastQuartileMean,
    quartileLength: q,
    blockLength: l,
  };
}
