import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, isArrayLikeOfAny, parseOptions, sameLength } from '../errors/validate.js';
import { expInto, SIMD_CHUNK, tvNearWindow } from '../numeric/simd/expInto.js';
import { f32Floor } from '../numeric/simd/f32Floor.js';
import { simdModule, type SimdExports } from '../numeric/simd/simdModule.js';
import { viewCache } from '../numeric/simd/viewCache.js';
import { DPPO_DROP_RULES, tvDrops } from './dppoRules.js';

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

/** A typed array of float64 or float32 values. */
export type FloatArray = Float64Array | Float32Array;

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
 * The same rule with the Binary-KL divergence is `divergence: 'kl'`. The rules live
 * in `dppoRules.ts`, shared with the tensor loss `dppoLoss` and its fused kernels.
 *
 * Typed arrays: when `logpNew` is a `Float64Array` or `Float32Array` the mask comes back
 * as the same kind of typed array (no per-element objects; `exp` runs in WebAssembly
 * SIMD where available, bit-identical to `Math.exp`, so the mask is the same as for
 * plain arrays). The values are validated in the same pass as the mask.
 *
 * @param logpNew - log-probs of the sampled tokens under the current policy (finite, <= 0)
 * @param logpRollout - log-probs of the same tokens recorded at sampling time (finite, <= 0)
 * @param advantages - per-token advantages (e.g. from {@link broadcastToTokens}, flattened)
 * @returns 1 for a kept token, 0 for a dropped one (`number[]`, or a typed array like `logpNew`)
 * @throws FrognanoError `LENGTH_MISMATCH`, `NON_FINITE` (NaN/±Infinity log-prob or advantage),
 *   `OUT_OF_RANGE` (a log-prob > 0, `delta <= 0`)
 * @example dppoMask([Math.log(0.9)], [Math.log(0.5)], [1]) // [0]: p rose by 0.4 > 0.2 on a positive token
 */
export function dppoMask<T extends FloatArray>(logpNew: T, logpRollout: ArrayLike<number>, advantages: ArrayLike<number>, opts?: DppoMaskOptions): T;
export function dppoMask(logpNew: ArrayLike<number>, logpRollout: ArrayLike<number>, advantages: ArrayLike<number>, opts?: DppoMaskOptions): number[];
export function dppoMask(
  logpNew: ArrayLike<number>,
  logpRollout: ArrayLike<number>,
  advantages: ArrayLike<number>,
  opts: DppoMaskOptions = {},
): number[] | FloatArray {
  if (isFloatArray(logpNew) && isFloatArray(logpRollout) && isFloatArray(advantages) &&
      logpRollout.length === logpNew.length && advantages.length === logpNew.length) {
    const o = parseOptions('dppoMask', DppoMaskOptionsSchema, opts);
    const m = o.divergence === 'tv' ? simdModule() : null;
    if (m !== null) {
      const mask = tvMaskSimd(m, logpNew, logpRollout, advantages, o.deltaLow ?? o.delta, o.deltaHigh ?? o.delta);
      if (mask !== null) return mask;
      // a bad value (or a spurious flag: a log-prob beyond float32 range or within a float32 step of the
      // tolerance, an advantage beyond 1e307): the exact pass names it or decides
    }
  }
  return maskPass('dppoMask', logpNew, logpRollout, advantages, opts).mask;
}

/** Byte offsets of the chunk buffers of {@link tvMaskSimd} in the module's own memory (float64 chunks, then the near list). */
const MB = SIMD_CHUNK * 8;
const maskViewsOf = viewCache((buf) => {
  const v = (k: number) => new Float64Array(buf, k * MB, SIMD_CHUNK);
  return { lp: v(0), lq: v(1), a: v(2), out: v(3), near: new Int32Array(buf, 4 * MB, SIMD_CHUNK) };
});

/** The log-prob tolerance as the float32 the WASM pass compares with (see `tv_mask_f64`). */
const TOL32 = f32Floor(LOGP_TOLERANCE);

/**
 * The Binary-TV mask of typed arrays in WebAssembly SIMD (`tv_mask_f64` of `simd.wat`):
 * per chunk of {@link SIMD_CHUNK} tokens, the values are copied into the module's memory,
 * validated, and decided four at a time with a fast float32 exp, in one pass; the tokens
 * whose `dp` lies within the pass's error bound of a threshold come back in a list ("near")
 * and are decided here in float64 with `Math.exp`, so the mask is exactly that of the
 * float64 rule. `null` when a value may be bad (the caller's exact pass then throws the
 * coded error naming it, or decides).
 */
function tvMaskSimd<T extends FloatArray>(m: SimdExports, lp: T, lq: FloatArray, a: FloatArray, lo: number, hi: number): T | null {
  const n = lp.length;
  const n4 = n - (n % 4);
  const mask = (lp instanceof Float64Array ? new Float64Array(n) : new Float32Array(n)) as T;
  const v = maskViewsOf(m);
  const lo32 = Math.fround(lo);
  const hi32 = Math.fround(hi);
  const win = tvNearWindow(lo32, hi32);
  m.bad.value = 0;
  for (let s = 0; s < n4; s += SIMD_CHUNK) {
    const e = Math.min(n4, s + SIMD_CHUNK);
    const full = e - s === SIMD_CHUNK;
    v.lp.set(lp.subarray(s, e));
    v.lq.set(lq.subarray(s, e));
    v.a.set(a.subarray(s, e));
    const near = m.tv_mask_f64(0, MB, 2 * MB, 3 * MB, e - s, 4 * MB, lo32, hi32, win, TOL32);
    if (m.bad.value !== 0) return null;
    const out = v.out;
    for (let k = 0; k < near; k++) {
      const i = v.near[k]!;
      const t = s + i;
      out[i] = tvDrops(lp[t]!, lq[t]!, Math.exp(lp[t]!), Math.exp(lq[t]!), a[t]! > 0, lo, hi) ? 0 : 1;
    }
    mask.set(full ? out : out.subarray(0, e - s), s);
  }
  for (let t = n4; t < n; t++) {
    const x = lp[t]!;
    const y = lq[t]!;
    const z = a[t]!;
    if (!(x <= LOGP_TOLERANCE && y <= LOGP_TOLERANCE && x - x === 0 && y - y === 0 && z - z === 0)) return null;
    mask[t] = tvDrops(x, y, Math.exp(x), Math.exp(y), z > 0, lo, hi) ? 0 : 1;
  }
  return mask;
}

/** The mask of {@link dppoMask} with counts for logs. */
export interface DppoMaskStats<M = number[]> {
  /** 1 = kept, 0 = dropped, one entry per token (a typed array like `logpNew` when that is one). */
  mask: M;
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
export function dppoMaskDetailed<T extends FloatArray>(logpNew: T, logpRollout: ArrayLike<number>, advantages: ArrayLike<number>, opts?: DppoMaskOptions): DppoMaskStats<T>;
export function dppoMaskDetailed(logpNew: ArrayLike<number>, logpRollout: ArrayLike<number>, advantages: ArrayLike<number>, opts?: DppoMaskOptions): DppoMaskStats;
export function dppoMaskDetailed(
  logpNew: ArrayLike<number>,
  logpRollout: ArrayLike<number>,
  advantages: ArrayLike<number>,
  opts: DppoMaskOptions = {},
): DppoMaskStats<number[] | FloatArray> {
  return maskPass('dppoMaskDetailed', logpNew, logpRollout, advantages, opts);
}

/** Scratch for the chunked exp (reused; the pass is synchronous). */
const P_BUF = new Float64Array(SIMD_CHUNK);
const Q_BUF = new Float64Array(SIMD_CHUNK);

/**
 * One pass: validation, `p`/`q` (chunked WASM SIMD exp), the rule, the counts and the
 * ratio sum. A bad value stops the pass and the boundary checks run to name it (so the
 * error is exactly that of the field-by-field checks).
 */
function maskPass(
  fn: string,
  logpNew: ArrayLike<number>,
  logpRollout: ArrayLike<number>,
  advantages: ArrayLike<number>,
  opts: DppoMaskOptions,
): DppoMaskStats<number[] | FloatArray> {
  const o = parseOptions(fn, DppoMaskOptionsSchema, opts);
  const lo = o.deltaLow ?? o.delta;
  const hi = o.deltaHigh ?? o.delta;
  const drops = DPPO_DROP_RULES[o.divergence];
  if (!isArrayLikeOfAny(logpNew) || !isArrayLikeOfAny(logpRollout) || !isArrayLikeOfAny(advantages) ||
      logpRollout.length !== logpNew.length || advantages.length !== logpNew.length) {
    checkAll(fn, logpNew, logpRollout, advantages); // throws
  }
  const n = logpNew.length;
  // fill(0) keeps a packed array (new Array(n) alone is holey, and slow past 64K elements).
  const mask: number[] | FloatArray =
    logpNew instanceof Float64Array ? new Float64Array(n) : logpNew instanceof Float32Array ? new Float32Array(n) : new Array<number>(n).fill(0);
  let kept = 0;
  let droppedPositive = 0;
  let droppedNegative = 0;
  let rhoSum = 0;
  // rho = p / q while q is a normal float64 (lq > -708); otherwise the stable form below.
  let exact = true;
  let bad = false;
  // typed arrays: exp by chunks (WASM SIMD); plain arrays: Math.exp after the value check
  // (a plain array may hold anything, e.g. a BigInt, that Math.exp would throw on)
  const typed = isFloatArray(logpNew) && isFloatArray(logpRollout);
  for (let s = 0; s < n && !bad; s += SIMD_CHUNK) {
    const e = Math.min(n, s + SIMD_CHUNK);
    if (typed) {
      expInto(logpNew, P_BUF, s, e);
      expInto(logpRollout, Q_BUF, s, e);
    }
    for (let t = s; t < e; t++) {
      const lp = logpNew[t]!;
      const lq = logpRollout[t]!;
      const a = advantages[t]!;
      // numbers (not BigInt, Symbol, objects), finite (x - x === 0 fails for NaN, ±Infinity), log-probs <= tolerance
      if (
        typeof lp !== 'number' || typeof lq !== 'number' || typeof a !== 'number' ||
        !(lp <= LOGP_TOLERANCE && lq <= LOGP_TOLERANCE && lp - lp === 0 && lq - lq === 0 && a - a === 0)
      ) {
        bad = true;
        break;
      }
      const p = typed ? P_BUF[t - s]! : Math.exp(lp);
      const q = typed ? Q_BUF[t - s]! : Math.exp(lq);
      const positive = a > 0;
      if (q >= MIN_NORMAL) rhoSum += p / q;
      else exact = false;
      if (!drops(lp, lq, p, q, positive, lo, hi)) {
        mask[t] = 1;
        kept++;
      } else if (positive) droppedPositive++;
      else droppedNegative++;
    }
  }
  if (bad) checkAll(fn, logpNew, logpRollout, advantages); // throws, naming the field and index
  const meanRho = n === 0 ? 1 : exact && rhoSum < Infinity ? rhoSum / n : stableMeanRho(logpNew, logpRollout);
  return { mask, kept, droppedPositive, droppedNegative, meanRho };
}

function isFloatArray(x: unknown): x is FloatArray {
  return x instanceof Float64Array || x instanceof Float32Array;
}

/** The boundary checks, field by field (used only to name a bad value). */
function checkAll(fn: string, logpNew: unknown, logpRollout: unknown, advantages: unknown): void {
  checkLogProbs(fn, 'logpNew', finiteArray(fn, 'logpNew', logpNew));
  checkLogProbs(fn, 'logpRollout', finiteArray(fn, 'logpRollout', logpRollout));
  finiteArray(fn, 'advantages', advantages);
  sameLength(fn, 'logpNew', logpNew as ArrayLike<number>, 'logpRollout', logpRollout as ArrayLike<number>);
  sameLength(fn, 'logpNew', logpNew as ArrayLike<number>, 'advantages', advantages as ArrayLike<number>);
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

/** Finite and <= 0 (with {@link LOGP_TOLERANCE}); one tight loop. */
function checkLogProbs(fn: string, field: string, xs: ArrayLike<number>): void {
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
