import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, functionSchema, parseOptions } from '../errors/validate.js';
import { finiteMean } from '../numeric/finiteMean.js';

/** A statistic of a series: gets a fresh plain array (it may keep or mutate it) and returns a finite number. */
export type SeriesStatistic = (xs: number[]) => number;

/**
 * The most bootstrap resamples `B` one call may ask for (1 000 000): an
 * interval's percentiles are stable long before (the default is 2000), and the
 * bound keeps one call's memory (8 bytes per resample) and time in bounds.
 */
export const MAX_BOOTSTRAP_RESAMPLES = 1_000_000;

/** Options shared by the block-bootstrap helpers. */
export const BootstrapCommonOptionsShape = {
  /**
   * Length `l` of the moving blocks, an integer in [1, m] for a resampled series of
   * length `m` (the whole series for {@link blockBootstrapCI}; each quartile
   * segment, `m = floor(n/4)`, for {@link solveRateGainCI}). Default
   * `max(1, round(m^(1/3)))` (the `n^(1/3)` rate of Hall, Horowitz & Jing 1995 for
   * moving-block bootstrap variance and interval estimates).
   */
  blockLength: z.number().int().min(1).optional(),
  /** Number of bootstrap resamples `B`, an integer in [1, {@link MAX_BOOTSTRAP_RESAMPLES}] (1 000 000). Default 2000. */
  resamples: z.number().int().min(1).max(MAX_BOOTSTRAP_RESAMPLES).default(2000),
  /** Two-sided confidence level of the percentile interval, in (0, 1). Default 0.95. */
  confidence: z.number().gt(0).lt(1).default(0.95),
  /** Seed of the `seedrandom` generator: the same seed gives the same interval. Default 0. */
  seed: z.union([z.string(), z.number()]).default(0),
};

/** Options of {@link blockBootstrapCI}. */
export const BlockBootstrapOptionsSchema = z
  .object({
    ...BootstrapCommonOptionsShape,
    /** The statistic: `'mean'` (default) or a function of the (resampled) series. */
    statistic: z
      .union([z.literal('mean'), functionSchema<SeriesStatistic>('(xs) => number')], { error: "must be 'mean' or a function (xs) => number" })
      .default('mean'),
  })
  .strict();

/** Options of {@link blockBootstrapCI} as the caller writes them. */
export type BlockBootstrapOptions = z.input<typeof BlockBootstrapOptionsSchema>;

/** A percentile bootstrap interval. */
export interface BootstrapInterval {
  /** The statistic on the original series. */
  estimate: number;
  /** Lower percentile bound, the `(1 - confidence)/2` quantile of the bootstrap statistics. */
  low: number;
  /** Upper percentile bound, the `(1 + confidence)/2` quantile of the bootstrap statistics. */
  high: number;
  /** The block length used. */
  blockLength: number;
}

/** Default block length for a series of length `n`: `max(1, round(cbrt(n)))`. @internal */
export function defaultBlockLength(n: number): number {
  return Math.max(1, Math.round(Math.cbrt(n)));
}

/**
 * Fills `out` with one moving-block resample of `xs`: blocks `xs[s..s+l)` with
 * `s` uniform in `[0, n-l]`, concatenated and cut to `out.length`.
 * @internal
 */
export function movingBlockResample(xs: ArrayLike<number>, l: number, rng: () => number, out: Float64Array): void {
  const starts = xs.length - l + 1;
  let pos = 0;
  while (pos < out.length) {
    const s = Math.floor(rng() * starts);
    for (let k = 0; k < l && pos < out.length; k++) out[pos++] = xs[s + k]!;
  }
}

/**
 * Quantile of an ascending array by linear interpolation (numpy's default, Hyndman-Fan type 7).
 * When the two neighbours are more than the float64 range apart (`-1e308` and `1e308`), it
 * interpolates as `a (1 - t) + b t`, which cannot overflow. @internal
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  const t = h - lo;
  const d = b - a;
  if (d - d === 0) return a + t * d;
  return t === 0 ? a : a * (1 - t) + b * t;
}

/** Mean of a typed or plain array, without overflow ({@link finiteMean}). @internal */
export function meanOf(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  return finiteMean(xs, from, to);
}

/** Percentile interval from bootstrap statistics (sorts `stats` in place). @internal */
export function percentileInterval(stats: Float64Array, confidence: number): { low: number; high: number } {
  stats.sort();
  const a = (1 - confidence) / 2;
  return { low: quantileSorted(stats, a), high: quantileSorted(stats, 1 - a) };
}

/** Validates a block length against the length of what is resampled. @internal */
export function checkBlockLength(fn: string, l: number, n: number, what: string): void {
  if (l > n) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.blockLength must be <= ${what} (${n}), got ${l}`, { fn, field: 'opts.blockLength' });
  }
}

/**
 * Percentile confidence interval of a statistic of an autocorrelated series by
 * the moving-block bootstrap (Künsch 1989). FrogNano §5.2 / Fig. 10 reports
 * block-bootstrap intervals for within-iteration solve-rate gains (see
 * {@link solveRateGainCI} for that statistic).
 *
 * ```
 * blocks   B_s = (x_s, ..., x_{s+l-1}),  s = 0..n-l         (all n-l+1 overlapping blocks)
 * resample x*  = B_{s1} B_{s2} ... cut to length n,  s_i ~ Uniform{0..n-l}
 * theta*_b = statistic(x*_b),  b = 1..B
 * interval = [ Q_{(1-c)/2}(theta*), Q_{(1+c)/2}(theta*) ]   (type-7 quantiles)
 * estimate = statistic(x)
 * ```
 * Blocks keep the short-range dependence of the series, so the interval is
 * wider than an i.i.d. bootstrap's (`blockLength: 1`) when the series is
 * positively autocorrelated. Resampling moves blocks to random positions, so it
 * suits statistics of a stationary series (mean, variance, autocorrelation), not
 * trend statistics such as "late minus early"; those need {@link solveRateGainCI}.
 * Seeded with `seedrandom`: the same `seed` gives the same interval. The mean is
 * computed without overflow, so values near ±1.8e308 give a finite interval.
 *
 * @param values - the series, in time order, at least one finite number
 * @returns `{ estimate, low, high, blockLength }`
 * @throws FrognanoError `INVALID_TYPE` (`values` not an array of numbers, an unknown option,
 *   `opts.statistic` not `'mean'` or a function), `EMPTY_INPUT` (no value), `NON_FINITE`
 *   (NaN/±Infinity value, or a statistic that returns one), `OUT_OF_RANGE` (`opts.blockLength`
 *   not an integer in [1, n], `opts.resamples` not an integer in [1, {@link MAX_BOOTSTRAP_RESAMPLES}],
 *   `opts.confidence` outside (0, 1))
 * @example blockBootstrapCI(solveRates, { blockLength: 5, seed: 'fig10' }) // { estimate, low, high, blockLength: 5 }
 */
export function blockBootstrapCI(values: ArrayLike<number>, opts?: BlockBootstrapOptions): BootstrapInterval {
  const fn = 'blockBootstrapCI';
  const xs = finiteArray(fn, 'values', values, { minLength: 1 });
  const o = parseOptions(fn, BlockBootstrapOptionsSchema, opts);
  const n = xs.length;
  const l = o.blockLength ?? defaultBlockLength(n);
  checkBlockLength(fn, l, n, 'the length of values');
  const stat = o.statistic;
  const evaluate = (series: ArrayLike<number>): number => {
    if (stat === 'mean') return meanOf(series);
    const v: unknown = stat(Array.from(series));
    if (typeof v !== 'number' || v - v !== 0) {
      throw new FrognanoError(ErrorCode.NON_FINITE, `opts.statistic must return a finite number, got ${describeValue(v)}`, {
        fn,
        field: 'opts.statistic',
      });
    }
    return v;
  };
  const estimate = evaluate(xs);
  const rng = seedrandom(String(o.seed));
  const buf = new Float64Array(n);
  const stats = new Float64Array(o.resamples);
  for (let b = 0; b < o.resamples; b++) {
    movingBlockResample(xs, l, rng, buf);
    stats[b] = evaluate(buf);
  }
  return { estimate, ...percentileInterval(stats, o.confidence), blockLength: l };
}
