import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { DppoMaskOptionsSchema, dppoDrops } from '../advantage/dppoMask.js';
import { AggregateModeSchema, aggregateUnchecked } from './aggregateTokenLoss.js';
import {
  asFloat,
  assertSameShape,
  assertTensor,
  checkFinite,
  checkLogProbs,
  checkMask01,
  noGrad,
  readValues,
  requireSyncRead,
  resolveValidate,
} from './tensorUtils.js';

/**
 * The log-ratio `logpNew - logpRollout` is clamped to `[-LOG_RATIO_CLAMP, LOG_RATIO_CLAMP]`
 * before `exp` (as verl does), so `rho <= e^20 ~ 4.9e8` and float32 `exp` cannot
 * overflow. Outside the range the clamp is flat, so such a token contributes a
 * constant to the loss and **no gradient** (tfjs `clipByValue` passes the
 * gradient only for values inside the closed range). A kept token only gets
 * there when the rollout probability `q` is below `e^-20 * p`, i.e. tiny.
 */
export const LOG_RATIO_CLAMP = 20;

/** Options of {@link dppoLoss} and {@link dppoLossWithDiagnostics}. */
export const DppoLossOptionsSchema = DppoMaskOptionsSchema.extend({
    /**
     * Off by default. verl's `clip_ratio_c` (dual-clip): use `min(rho, ratioCap)` in
     * the loss. Must be > 1 (verl asserts the same). At `rho = ratioCap` the gradient
     * still flows (tfjs `minimum` routes ties to its first argument); above it is zero.
     */
    ratioCap: z.number().gt(1).optional(),
    /**
     * Which tokens `ratioCap` applies to. `'all'` (default; SPEC §3: `min(rho, cap)`)
     * or `'negative'`: only tokens with `A < 0`, which is exactly verl's dual-clip
     * (for `A < 0` the two agree).
     */
    ratioCapScope: z.enum(['all', 'negative']).default('all'),
    /** Reduction of the per-token loss, as verl's `loss_agg_mode`. Default `'token-mean'` (the SPEC §3 formula). */
    aggregate: AggregateModeSchema.default('token-mean'),
    /**
     * Divisor of `'seq-mean-token-sum-norm'` (verl `loss_scale_factor`, > 0). Default: the
     * last dimension of the tensors. Ignored by the other modes.
     */
    lossScaleFactor: z.number().gt(0).optional(),
    /**
     * `true`: read the four tensors once, reject NaN/±Infinity, log-probs > 0 and
     * mask values other than 0/1, and build the mask in float64 (the same numbers as the
     * array primitive `dppoMask`). `false`: read nothing and build the mask on the device
     * in float32 (for large batches on a GPU backend, where the read is a GPU-to-CPU
     * transfer); bad input then yields NaN instead of an error. Default: `true` where the
     * backend reads synchronously (cpu, wasm, tfjs-node), `false` where it cannot (webgpu
     * in Node, see `canReadSync`), where an explicit `true` is a `BACKEND_UNAVAILABLE`
     * error. Ignored by {@link dppoLossWithDiagnostics} and {@link dppoDiagnostics}, which always read.
     */
    validate: z.boolean().optional(),
  })
  .strict();
/** Options of {@link dppoLoss} as the caller writes them. */
export type DppoLossOptions = z.input<typeof DppoLossOptionsSchema>;
type ParsedOptions = z.output<typeof DppoLossOptionsSchema>;

/** The tensors of one DPPO loss evaluation; all of one shape, any rank (`[batch, seqLen]` for the seq-mean modes). */
export interface DppoLossInputs {
  /** Log-probs of the sampled tokens under the policy being trained (the differentiated input). */
  logpNew: tf.Tensor;
  /** Log-probs of the same tokens recorded at sampling time (a constant). */
  logpRollout: tf.Tensor;
  /** Per-token advantages (a constant), e.g. the group advantage broadcast over the trajectory. */
  advantages: tf.Tensor;
  /** 1 for generated tokens that count, 0 for prompt, tool-output and padding tokens. */
  lossMask: tf.Tensor;
}

/** {@link dppoLossWithDiagnostics}: the loss and what a training log wants, computed over loss-mask tokens. */
export interface DppoLossDiagnostics {
  /** The scalar loss, identical to {@link dppoLoss}. The caller disposes it. */
  loss: tf.Scalar;
  /** `|T|`: tokens with `lossMask = 1`. */
  tokens: number;
  /** `|K|`: loss-mask tokens kept by the mask. */
  kept: number;
  /** `|K| / |T|` (1 when `|T| = 0`). */
  keptFraction: number;
  /** Number of loss-mask tokens with `A > 0` that the mask dropped. */
  droppedPositive: number;
  /** Number of loss-mask tokens with `A <= 0` that the mask dropped. */
  droppedNegative: number;
  /** Mean of `rho = exp(logpNew - logpRollout)` over loss-mask tokens, unclamped, before any cap (1 when `|T| = 0`). */
  meanRho: number;
  /** Largest `|logpNew - logpRollout|` over loss-mask tokens, unclamped (0 when `|T| = 0`). */
  maxAbsLogRho: number;
}

/**
 * The DPPO policy loss with the asymmetric trust-region mask (FrogNano §4.1,
 * DPPO Binary-TV; SPEC §3).
 *
 * Per token, `p = exp(logpNew)`, `q = exp(logpRollout)`, `dp = p - q`; a token
 * is dropped when `A > 0 and dp > deltaHigh` or `A <= 0 and dp < -deltaLow`
 * (strict; a move in the safe direction is never dropped). Then
 * ```
 * L = -(1/|T|) * sum_{t in K} A_t * rho_t,     rho_t = exp(clamp(logpNew_t - logpRollout_t, -20, 20))
 * ```
 * with `T` the tokens with `lossMask = 1` and `K` the kept ones among them: the
 * normaliser is `|T|`, not `|K|`, so dropped tokens still dilute the batch. The
 * mask is a constant for the gradient, which flows through `rho` only
 * (`dL/dlogpNew_t = -A_t rho_t / |T|` on kept tokens, 0 elsewhere). `|T| = 0`
 * gives 0 with a zero gradient. No KL-to-reference term, no entropy bonus.
 * Other reductions (`aggregate`) follow verl's `agg_loss`, with the dropped
 * tokens contributing 0 to the sums and still counting in the denominators.
 *
 * Cost: with `validate` (the default where the backend reads synchronously)
 * the four tensors are read once (`dataSync`); on `cpu` that is free, on
 * `wasm` a copy, on a GPU backend a synchronous transfer of 16 bytes per token.
 * Pass `validate: false` to keep everything on the device; on webgpu in Node,
 * which has no synchronous read, that is the default (check inputs with
 * `await checkFiniteAsync`, log with `await dppoDiagnostics`).
 *
 * @param inputs - {@link DppoLossInputs}; tensors are not disposed or changed
 * @param opts - {@link DppoLossOptions}; defaults `delta = 0.2`, `aggregate = 'token-mean'`, `divergence = 'tv'`
 * @returns a scalar tensor (float32) the caller owns
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, unknown option), `LENGTH_MISMATCH` (shapes differ),
 *   `NON_FINITE` (NaN/±Infinity in a log-prob or advantage), `OUT_OF_RANGE` (log-prob > 0, mask not 0/1,
 *   `delta <= 0`, `ratioCap <= 1`, `lossScaleFactor <= 0`)
 * @example
 * ```ts
 * const loss = dppoLoss({
 *   logpNew: tf.tensor1d([Math.log(0.5), Math.log(0.9)]),
 *   logpRollout: tf.tensor1d([Math.log(0.4), Math.log(0.5)]),
 *   advantages: tf.tensor1d([1, 1]),
 *   lossMask: tf.tensor1d([1, 1]),
 * }); // token 2 rose by 0.4 > 0.2 and is dropped: -(1/2) * (0.5/0.4) = -0.625
 * ```
 */
export function dppoLoss(inputs: DppoLossInputs, opts: DppoLossOptions = {}): tf.Scalar {
  const fn = 'dppoLoss';
  const o = parseOptions(fn, DppoLossOptionsSchema, opts);
  const x = checkInputs(fn, inputs);
  if (!resolveValidate(fn, o.validate)) return tf.tidy(() => lossOnDevice(x, o));
  const m = maskFromValues(fn, x.logpNew.shape, readInputs(x), o);
  return lossWithMask(x, o, m);
}

/**
 * {@link dppoLoss} plus counts for training logs (kept fraction, dropped tokens
 * by advantage sign, mean ratio, largest |log-ratio|), all over loss-mask tokens.
 * Always reads the tensors once, whatever `validate` says.
 *
 * @throws FrognanoError as {@link dppoLoss}
 * @example const { loss, keptFraction } = dppoLossWithDiagnostics(inputs); loss.dispose();
 */
export function dppoLossWithDiagnostics(inputs: DppoLossInputs, opts: DppoLossOptions = {}): DppoLossDiagnostics {
  const fn = 'dppoLossWithDiagnostics';
  const o = parseOptions(fn, DppoLossOptionsSchema, opts);
  const x = checkInputs(fn, inputs);
  requireSyncRead(fn, 'inputs', 'dppoLossWithDiagnostics', 'use dppoLoss for the loss and `await dppoDiagnostics(inputs, opts)` for the counts');
  const m = maskFromValues(fn, x.logpNew.shape, readInputs(x), o);
  return { loss: lossWithMask(x, o, m), ...diagnosticsOf(m.stats) };
}

/**
 * The diagnostics of {@link dppoLossWithDiagnostics} without the loss, read
 * asynchronously (`await tensor.data()`), so it works on every backend,
 * webgpu in Node included, and never blocks the event loop. The values are
 * validated as `validate: true` does and the keep rule is the same float64
 * rule, so the counts are exactly those of {@link dppoLossWithDiagnostics}.
 * Typical use on a GPU: take `dppoLoss(inputs, { validate: false })` inside
 * the gradient, keep `logpNew`, then `await dppoDiagnostics(...)` for the log.
 *
 * @throws FrognanoError as {@link dppoLoss} with `validate: true` (the promise rejects)
 * @example const d = await dppoDiagnostics({ logpNew, logpRollout, advantages, lossMask }); // d.keptFraction, d.meanRho, ...
 */
export async function dppoDiagnostics(inputs: DppoLossInputs, opts: DppoLossOptions = {}): Promise<Omit<DppoLossDiagnostics, 'loss'>> {
  const fn = 'dppoDiagnostics';
  const o = parseOptions(fn, DppoLossOptionsSchema, opts);
  const x = checkInputs(fn, inputs);
  const [lpn, lpr, adv, lm] = (await Promise.all([x.logpNew.data(), x.logpRollout.data(), x.advantages.data(), x.lossMask.data()])) as ArrayLike<number>[];
  return diagnosticsOf(maskFromValues(fn, x.logpNew.shape, { lpn: lpn!, lpr: lpr!, adv: adv!, lm: lm! }, o).stats);
}

function diagnosticsOf(s: MaskStats): Omit<DppoLossDiagnostics, 'loss'> {
  return {
    tokens: s.tokens,
    kept: s.kept,
    keptFraction: s.tokens === 0 ? 1 : s.kept / s.tokens,
    droppedPositive: s.droppedPositive,
    droppedNegative: s.droppedNegative,
    meanRho: s.tokens === 0 ? 1 : s.rhoSum / s.tokens,
    maxAbsLogRho: s.maxAbsLogRho,
  };
}

function checkInputs(fn: string, inputs: DppoLossInputs): DppoLossInputs {
  if (inputs === null || typeof inputs !== 'object') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `inputs must be an object of tensors, got ${describeValue(inputs)}`, {
      fn,
      field: 'inputs',
    });
  }
  const { logpNew, logpRollout, advantages, lossMask } = inputs;
  assertTensor(fn, 'logpNew', logpNew);
  assertTensor(fn, 'logpRollout', logpRollout);
  assertTensor(fn, 'advantages', advantages);
  assertTensor(fn, 'lossMask', lossMask);
  assertSameShape(fn, 'logpNew', logpNew, 'logpRollout', logpRollout);
  assertSameShape(fn, 'logpNew', logpNew, 'advantages', advantages);
  assertSameShape(fn, 'logpNew', logpNew, 'lossMask', lossMask);
  return { logpNew, logpRollout, advantages, lossMask };
}

interface MaskStats {
  tokens: number;
  kept: number;
  droppedPositive: number;
  droppedNegative: number;
  rhoSum: number;
  maxAbsLogRho: number;
}

interface HostMask {
  /** lossMask * kept, 0/1 per token. */
  keep: Float32Array;
  /** 1 where A < 0 (only for ratioCapScope 'negative'). */
  negative: Float32Array | null;
  stats: MaskStats;
}

interface HostValues {
  lpn: ArrayLike<number>;
  lpr: ArrayLike<number>;
  adv: ArrayLike<number>;
  lm: ArrayLike<number>;
}

/** One synchronous read of the four tensors. */
function readInputs(x: DppoLossInputs): HostValues {
  return { lpn: readValues(x.logpNew), lpr: readValues(x.logpRollout), adv: readValues(x.advantages), lm: readValues(x.lossMask) };
}

/** Validates the four tensors' values, then builds the keep mask in float64. */
function maskFromValues(fn: string, shape: readonly number[], v: HostValues, o: ParsedOptions): HostMask {
  const { lpn, lpr, adv, lm } = v;
  checkLogProbs(fn, 'logpNew', shape, lpn);
  checkLogProbs(fn, 'logpRollout', shape, lpr);
  checkFinite(fn, 'advantages', shape, adv);
  const tokens = checkMask01(fn, 'lossMask', shape, lm);

  const lo = o.deltaLow ?? o.delta;
  const hi = o.deltaHigh ?? o.delta;
  const kl = o.divergence === 'kl';
  const n = lpn.length;
  const keep = new Float32Array(n);
  const wantNegative = o.ratioCap !== undefined && o.ratioCapScope === 'negative';
  const negative = wantNegative ? new Float32Array(n) : null;
  let kept = 0;
  let droppedPositive = 0;
  let droppedNegative = 0;
  let rhoSum = 0;
  let maxAbsLogRho = 0;
  for (let t = 0; t < n; t++) {
    if (negative !== null && adv[t]! < 0) negative[t] = 1;
    if (lm[t] !== 1) continue;
    const lp = lpn[t]!;
    const lq = lpr[t]!;
    const p = Math.exp(lp);
    const q = Math.exp(lq);
    const positive = adv[t]! > 0;
    const d = Math.abs(lp - lq);
    if (d > maxAbsLogRho) maxAbsLogRho = d;
    rhoSum += q > 0 ? p / q : Math.exp(lp - lq);
    if (!dppoDrops(lp, lq, p, q, positive, lo, hi, kl)) {
      keep[t] = 1;
      kept++;
    } else if (positive) droppedPositive++;
    else droppedNegative++;
  }
  return { keep, negative, stats: { tokens, kept, droppedPositive, droppedNegative, rhoSum, maxAbsLogRho } };
}

/**
 * The per-token ratio `rho = exp(clamp(logpNew - logpRollout, -20, 20))`, capped by
 * `min(rho, ratioCap)` on every token (`ratioCapScope: 'all'`) or only where `A < 0`
 * (`'negative'`); call inside `tf.tidy`. The scope is decided here, for both paths;
 * `negative` builds the bool condition `A < 0` only when it is needed, by a comparison
 * (bool tensors from a comparison are reliable on wasm; casts to bool are not).
 */
function ratio(x: DppoLossInputs, o: ParsedOptions, negative: () => tf.Tensor): tf.Tensor {
  const logRatio = tf.clipByValue(tf.sub(asFloat(x.logpNew), asFloat(x.logpRollout)), -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP);
  const rho = tf.exp(logRatio);
  if (o.ratioCap === undefined) return rho;
  const capped = tf.minimum(rho, o.ratioCap);
  return o.ratioCapScope === 'negative' ? tf.where(negative(), capped, rho) : capped;
}

function lossWithMask(x: DppoLossInputs, o: ParsedOptions, m: HostMask): tf.Scalar {
  return tf.tidy(() => {
    const shape = x.logpNew.shape;
    const keep = tf.tensor(m.keep, shape, 'float32');
    // m.negative exists exactly when ratio() asks for it (ratioCap set, scope 'negative')
    const rho = ratio(x, o, () => tf.greater(tf.tensor(m.negative!, shape, 'float32'), 0.5));
    const lossMat = tf.mul(tf.neg(tf.mul(asFloat(x.advantages), rho)), keep);
    return aggregateUnchecked(lossMat, asFloat(x.lossMask), o.aggregate, o.lossScaleFactor);
  });
}

/** The `validate: false` path: the mask is built on the device in float32, outside the gradient tape. */
function lossOnDevice(x: DppoLossInputs, o: ParsedOptions): tf.Scalar {
  const lo = o.deltaLow ?? o.delta;
  const hi = o.deltaHigh ?? o.delta;
  const lossMask = asFloat(x.lossMask);
  // 0/1 masks are float32 products, not bool logic: the wasm backend's Select and
  // Cast on bool tensors are not reliable (tfjs 4.22), its comparisons are.
  const keep = noGrad([x.logpNew, x.logpRollout, x.advantages, lossMask], (lpn, lpr, adv, lm) => {
    const lp = asFloat(lpn!);
    const lq = asFloat(lpr!);
    const p = tf.exp(lp);
    const q = tf.exp(lq);
    const flag = (b: tf.Tensor): tf.Tensor => tf.cast(b, 'float32');
    const positive = flag(tf.greater(adv!, 0));
    let dropPos: tf.Tensor;
    let dropNeg: tf.Tensor;
    if (o.divergence === 'kl') {
      const oneMinusQ = tf.sub(1, q);
      const oneMinusP = tf.sub(1, p);
      const div = tf.add(
        tf.mul(q, tf.sub(lq, lp)),
        tf.mul(oneMinusQ, tf.log(tf.div(tf.add(oneMinusQ, 1e-8), tf.add(oneMinusP, 1e-8)))),
      );
      dropPos = tf.mul(flag(tf.greater(p, q)), flag(tf.greater(div, hi)));
      dropNeg = tf.mul(flag(tf.less(p, q)), flag(tf.greater(div, lo)));
    } else {
      const dp = tf.sub(p, q);
      dropPos = flag(tf.greater(dp, hi));
      dropNeg = flag(tf.less(dp, -lo));
    }
    const drop = tf.add(tf.mul(positive, dropPos), tf.mul(tf.sub(1, positive), dropNeg));
    return tf.mul(tf.sub(1, drop), lm!);
  });
  const rho = ratio(x, o, () => noGrad([x.advantages], (adv) => tf.less(adv!, 0)));
  const lossMat = tf.mul(tf.neg(tf.mul(asFloat(x.advantages), rho)), keep);
  return aggregateUnchecked(lossMat, lossMask, o.aggregate, o.lossScaleFactor);
}
