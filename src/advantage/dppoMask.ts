import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, parseOptions, sameLength } from '../errors/validate.js';

/** Options of {@link dppoMask}. */
export const DppoMaskOptionsSchema = z
  .object({
    /** Threshold of both sides when `deltaLow` / `deltaHigh` are not given. Default `0.2` (FrogNano §4.1). Must be > 0. */
    delta: z.number().gt(0).default(0.2),
    /** Threshold for tokens with `A <= 0` (drop when `p - q < -deltaLow`). Default `delta`. */
    deltaLow: z.number().gt(0).optional(),
    /** Threshold for tokens with `A > 0` (drop when `p - q > deltaHigh`). Default `delta`. */
    deltaHigh: z.number().gt(0).optional(),
    /**
     * `'tv'` (default): the Binary-TV mask on `p - q`. `'kl'`: the Binary-KL mask
     * `KL = q ln(q/p) + (1-q) ln((1-q+1e-8)/(1-p+1e-8))`, dropped when `KL > delta`
     * (deltaHigh for `A > 0`, deltaLow for `A <= 0`) and `p` moved the way the advantage favours.
     */
    divergence: z.enum(['tv', 'kl']).default('tv'),
  })
  .strict();
/** Options of {@link dppoMask} as the caller writes them. */
export type DppoMaskOptions = z.input<typeof DppoMaskOptionsSchema>;

/**
 * Log-probabilities above 0 by more than this are rejected: they are not
 * log-probabilities (a common bug is passing logits). The slack absorbs float32
 * round-off of a log-softmax.
 */
export const LOGP_TOLERANCE = 1e-4;

/**
 * The DPPO asymmetric trust-region mask (FrogNano §4.1, DPPO Binary-TV; SPEC §3).
 *
 * Per generated token, with `p = exp(logpNew)` (training policy) and
 * `q = exp(logpRollout)` (the policy that sampled it):
 * ```
 * dp = p - q
 * drop  if A > 0  and dp >  deltaHigh     (already pushed up too far)
 * drop  if A <= 0 and dp < -deltaLow      (already pushed down too far)
 * keep  otherwise                         (a move in the safe direction is never dropped)
 * ```
 * Comparisons are strict. Defaults `delta = 0.2`, `deltaLow = deltaHigh = delta`.
 * The same rule with the Binary-KL divergence is `divergence: 'kl'`.
 *
 * @param logpNew - log-probs of the sampled tokens under the current policy (finite, <= 0)
 * @param logpRollout - log-probs of the same tokens recorded at sampling time (finite, <= 0)
 * @param advantages - per-token advantages (e.g. from {@link broadcastToTokens}, flattened)
 * @returns 1 for a kept token, 0 for a dropped one
 * @throws FrognanoError `LENGTH_MISMATCH`, `NON_FINITE` (NaN/±Infinity log-prob or advantage),
 *   `OUT_OF_RANGE` (a log-prob > 0, `delta <= 0`)
 * @example dppoMask([Math.log(0.9)], [Math.log(0.5)], [1]) // [0]: p rose by 0.4 > 0.2 on a positive token
 */
export function dppoMask(
  logpNew: ArrayLike<number>,
  logpRollout: ArrayLike<number>,
  advantages: ArrayLike<number>,
  opts: DppoMaskOptions = {},
): number[] {
  return dppoMaskWithStats(logpNew, logpRollout, advantages, opts).mask;
}

/** The mask of {@link dppoMask} with counts for logs. */
export interface DppoMaskStats {
  /** 1 = kept, 0 = dropped, one entry per token. */
  mask: number[];
  /** Kept tokens. */
  kept: number;
  /** Dropped tokens with `A > 0` (probability already raised past `deltaHigh`). */
  droppedPositive: number;
  /** Dropped tokens with `A <= 0` (probability already lowered past `deltaLow`). */
  droppedNegative: number;
  /**
   * Mean of `rho = exp(logpNew - logpRollout)` over all tokens (1 when there are none),
   * computed as `exp(max_t d_t) * mean_t exp(d_t - max_t d_t)` (`d_t = logpNew - logpRollout`),
   * so it neither overflows nor turns NaN. A mean beyond float64 (some `d_t > 709.78`)
   * saturates at `Number.MAX_VALUE` (1.8e308); it is never Infinity or NaN.
   */
  meanRho: number;
}

/** {@link dppoMask} plus the counts a training log wants (kept, dropped positive / negative, mean rho). */
export function dppoMaskWithStats(
  logpNew: ArrayLike<number>,
  logpRollout: ArrayLike<number>,
  advantages: ArrayLike<number>,
  opts: DppoMaskOptions = {},
): DppoMaskStats {
  const fn = 'dppoMask';
  const o = parseOptions(fn, DppoMaskOptionsSchema, opts);
  const lo = o.deltaLow ?? o.delta;
  const hi = o.deltaHigh ?? o.delta;
  checkLogProbs(fn, 'logpNew', logpNew);
  checkLogProbs(fn, 'logpRollout', logpRollout);
  finiteArray(fn, 'advantages', advantages);
  sameLength(fn, 'logpNew', logpNew, 'logpRollout', logpRollout);
  sameLength(fn, 'logpNew', logpNew, 'advantages', advantages);

  const n = logpNew.length;
  // fill(0) keeps a packed array (new Array(n) alone is holey, and slow past 64K elements).
  const mask = new Array<number>(n).fill(0);
  let kept = 0;
  let droppedPositive = 0;
  let droppedNegative = 0;
  let rhoSum = 0;
  // rho = p / q while q is a normal float64 (lq > -708); otherwise the stable form below.
  let exact = true;
  const kl = o.divergence === 'kl';
  for (let t = 0; t < n; t++) {
    const lp = logpNew[t]!;
    const lq = logpRollout[t]!;
    const p = Math.exp(lp);
    const q = Math.exp(lq);
    const positive = advantages[t]! > 0;
    if (q >= MIN_NORMAL) rhoSum += p / q;
    else exact = false;
    if (!dppoDrops(lp, lq, p, q, positive, lo, hi, kl)) {
      mask[t] = 1;
      kept++;
    } else if (positive) droppedPositive++;
    else droppedNegative++;
  }
  const meanRho = n === 0 ? 1 : exact && rhoSum < Infinity ? rhoSum / n : stableMeanRho(logpNew, logpRollout);
  return { mask, kept, droppedPositive, droppedNegative, meanRho };
}

/** Smallest positive normal float64 (2^-1022). */
const MIN_NORMAL = 2 ** -1022;

/**
 * `mean_t exp(d_t)`, `d_t = logpNew[t] - logpRollout[t]`, as
 * `exp(dMax) * (1/n) sum_t exp(d_t - dMax)`: every `exp(d_t - dMax)` is in
 * [0, 1], so the sum cannot overflow and nothing divides by an underflowed `q`.
 */
function stableMeanRho(logpNew: ArrayLike<number>, logpRollout: ArrayLike<number>): number {
  const n = logpNew.length;
  let dMax = -Infinity;
  for (let t = 0; t < n; t++) {
    const d = logpNew[t]! - logpRollout[t]!;
    if (d > dMax) dMax = d;
  }
  let scaledSum = 0;
  for (let t = 0; t < n; t++) scaledSum += Math.exp(logpNew[t]! - logpRollout[t]! - dMax);
  return meanRhoOf(dMax, scaledSum, n);
}

/**
 * `exp(dMax) * scaledSum / n` without intermediate overflow, saturated at
 * `Number.MAX_VALUE`: the documented rule for a mean ratio beyond float64
 * (`rho > 1.8e308` needs `logpNew - logpRollout > 709.78`, i.e. a token the
 * sampler gave probability below 1e-308). `scaledSum` is in [1, n].
 */
function meanRhoOf(dMax: number, scaledSum: number, n: number): number {
  const frac = scaledSum / n; // in [1/n, 1]
  const direct = Math.exp(dMax) * frac;
  if (direct < Infinity) return direct;
  const logMean = dMax + Math.log(frac);
  return logMean >= Math.log(Number.MAX_VALUE) ? Number.MAX_VALUE : Math.exp(logMean);
}

/**
 * The per-token DPPO rule of SPEC §3, shared by {@link dppoMask} and the tensor
 * loss `dppoLoss` (which builds its constant mask on the host with it), so that
 * both drop exactly the same tokens. `p = exp(lp)`, `q = exp(lq)` are passed in
 * because callers need them anyway. `lo` / `hi` are `deltaLow` / `deltaHigh`.
 * @internal
 */
export function dppoDrops(lp: number, lq: number, p: number, q: number, positive: boolean, lo: number, hi: number, kl: boolean): boolean {
  if (kl) {
    // p, q may exceed 1 by the LOGP_TOLERANCE slack; clamp them so 1 - q + 1e-8 stays > 0 (no NaN).
    const pc = p < 1 ? p : 1;
    const qc = q < 1 ? q : 1;
    const d = qc * (lq - lp) + (1 - qc) * Math.log((1 - qc + 1e-8) / (1 - pc + 1e-8));
    return positive ? p > q && d > hi : p < q && d > lo;
  }
  const dp = p - q;
  return positive ? dp > hi : dp < -lo;
}

/** Finite and <= 0 (with {@link LOGP_TOLERANCE}); one tight loop. */
function checkLogProbs(fn: string, field: string, xs: ArrayLike<number>): void {
  finiteArray(fn, field, xs);
  for (let t = 0; t < xs.length; t++) {
    if ((xs[t] as number) > LOGP_TOLERANCE) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${field}[${t}] must be a log-probability (<= 0), got ${xs[t]}`, {
        fn,
        field: `${field}[${t}]`,
        index: [t],
      });
    }
  }
}
