import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { DppoMaskOptionsSchema, LOGP_TOLERANCE } from '../advantage/dppoMask.js';
import { DPPO_DROP_RULES } from '../advantage/dppoRules.js';
import { AggregateModeSchema, aggregateWeights, aggregateWeightsHost } from './aggregateTokenLoss.js';
import { asFloat, assertSameShape, assertTensor, checkFinite, checkLogProbs, checkMask01, readValues, requireSyncRead, resolveValidate, validateOption, zeroLoss } from './tensorUtils.js';
import { dppoFusedLoss, hasDppoKernel, LOG_RATIO_CLAMP, type DppoKernelAttrs } from './kernels/dppoKernel.js';
import { checkDppoInputsHost, hostFloat32Views } from './kernels/dppoKernelCpu.js';
import './kernels/dppoKernelWebgpu.js';

export { LOG_RATIO_CLAMP };

/** Options of {@link dppoLoss} and {@link dppoLossDetailed}. */
export const DppoLossOptionsSchema = DppoMaskOptionsSchema.extend({
    /**
     * Off by default. verl's `clip_ratio_c` (dual-clip): use `min(rho, ratioCap)` in
     * the loss. Must be > 1 (verl asserts the same). With `ratioCapMode: 'clip'`, at
     * `rho = ratioCap` the gradient still flows (ties go to `rho`, as tfjs `minimum`); above it is zero.
     */
    ratioCap: z.number().gt(1).optional(),
    /**
     * How `ratioCap` acts (SPEC §3; ignored without `ratioCap`). `'clip'` (default): `min(rho, cap)`
     * in the loss, so a token above the cap gets no gradient. `'truncate'`: truncated importance
     * sampling as verl's DPPO losses and Stable-RL compute it, per-token loss
     * `-A * stopgrad(min(rho, cap)) * logpNew`, whose gradient is `-A * min(rho, cap)`: the clip
     * gradient below the cap, `-A * cap` above it. Its value is that surrogate (it differs from
     * the `'clip'` value); only its gradient is meaningful.
     */
    ratioCapMode: z.enum(['clip', 'truncate']).default('clip'),
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
    ...validateOption,
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

/** {@link dppoLossDetailed}: the loss and what a training log wants, computed over loss-mask tokens. */
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
 * Other reductions (`aggregate`: `'token-sum'`, `'seq-mean-token-mean'`,
 * `'seq-mean-token-sum'`, `'seq-mean-token-sum-norm'`) follow verl's current `agg_loss`
 * (after its PR #5417), with the dropped tokens contributing 0 to the sums and still
 * counting in the denominators. `ratioCap` with `ratioCapMode: 'truncate'` is truncated
 * importance sampling (gradient `-A * min(rho, cap)`), as verl's DPPO losses and Stable-RL.
 *
 * One fused op computes the mask, `rho`, the loss and its gradient (issue #13): on
 * `cpu`/`wasm` one pass over typed arrays (WASM SIMD `exp`), on `webgpu` WGSL shaders;
 * its gradient is `dy * grad` (`tf.customGrad`). Only `logpNew` is differentiated.
 *
 * `validate` (see `validateOption`; ignored by {@link dppoLossDetailed} and
 * {@link dppoDiagnostics}, which always read): `true` reads the four tensors once and
 * rejects NaN/±Infinity, log-probs > 0 and mask values other than 0/1 (coded errors
 * naming the element); the aggregation weights are then built from the values read.
 * `false` reads nothing and builds the weights on the device (for large batches on a
 * GPU backend, where the read is a GPU-to-CPU transfer); bad input then gives no error
 * but a wrong loss: NaN for a NaN or ±Infinity in most places, and a finite, wrong
 * number for bad but finite values (a log-prob above 0, a mask value of 2). Either way the loss is one fused kernel
 * (`kernels/dppoKernel.ts`), which applies the rule of `dppoRules.ts`: in float64 on cpu
 * and wasm (exactly the tokens `dppoMask` keeps), in float32 on webgpu.
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
  const validate = resolveValidate(fn, o.validate);
  const fast = hostLoss(fn, x, o, validate);
  if (fast !== null) return fast;
  if (!validate) return fusedLoss(x, o, null);
  const v = readInputs(x);
  validateValues(fn, x.logpNew.shape, v);
  return fusedLoss(x, o, v.lm);
}

/**
 * The loss on `cpu` / `wasm` with float32 tensors and WebAssembly SIMD, where the tensors'
 * values lie in host memory (the wasm heap, the cpu backend's arrays: nothing is copied or
 * transferred). One SIMD pass checks the values and counts the mask's ones; with `validate`
 * a bad value is then named by the field-by-field checks; without it this path steps aside
 * for the device path, which computes with the bad values as they are (NaN for a NaN or
 * ±Infinity in most places, a finite wrong number for a log-prob above 0 or a mask value
 * of 2). token-mean and token-sum pass the loss mask itself as the kernel's
 * weights (`weightScale = 1 / max(1, sum m)` or 1), the seq-mean modes build the weights
 * from the mask values. `validate: false` takes this same path, so both give the same bits.
 * `null` where this path does not apply.
 */
function hostLoss(fn: string, x: DppoLossInputs, o: ParsedOptions, validate = true): tf.Scalar | null {
  if (x.logpNew.size === 0 || !hasDppoKernel()) return null;
  const views = hostFloat32Views([x.logpNew, x.logpRollout, x.advantages, x.lossMask]);
  if (views === null) return null;
  const [lpn, lpr, adv, lm] = views as [Float32Array, Float32Array, Float32Array, Float32Array];
  const check = checkDppoInputsHost(lpn, lpr, adv, lm, LOGP_TOLERANCE);
  if (check === null) return null;
  if (check.bad !== 0) {
    if (!validate) return null; // the device path computes with them as they are (NaN, or a finite wrong number)
    validateValues(fn, x.logpNew.shape, { lpn, lpr, adv, lm }); // throws, naming the element
    return null;
  }
  const perToken = o.aggregate === 'token-mean' || o.aggregate === 'token-sum';
  const weightScale = o.aggregate === 'token-mean' ? 1 / Math.max(1, check.ones) : 1;
  const hostWeights = perToken ? null : aggregateWeightsHost(lm, x.logpNew.shape, o.aggregate, o.lossScaleFactor);
  return tf.tidy(() => {
    const weights = hostWeights === null ? x.lossMask : tf.tensor(hostWeights, x.logpNew.shape, 'float32');
    return dppoFusedLoss(
      { logpNew: x.logpNew, logpRollout: x.logpRollout, advantages: x.advantages, weights },
      { ...kernelAttrs(o), weightScale },
    );
  });
}

/**
 * {@link dppoLoss} plus counts for training logs (kept fraction, dropped tokens
 * by advantage sign, mean ratio, largest |log-ratio|), all over loss-mask tokens.
 * Always reads the tensors once, whatever `validate` says.
 *
 * @throws FrognanoError as {@link dppoLoss}
 * @example const { loss, keptFraction } = dppoLossDetailed(inputs); loss.dispose();
 */
export function dppoLossDetailed(inputs: DppoLossInputs, opts: DppoLossOptions = {}): DppoLossDiagnostics {
  const fn = 'dppoLossDetailed';
  const o = parseOptions(fn, DppoLossOptionsSchema, opts);
  const x = checkInputs(fn, inputs);
  requireSyncRead(fn, 'inputs', 'dppoLossDetailed', 'use dppoLoss for the loss and `await dppoDiagnostics(inputs, opts)` for the counts');
  const v = readInputs(x);
  const stats = maskStats(fn, x.logpNew.shape, v, o);
  return { loss: hostLoss(fn, x, o) ?? fusedLoss(x, o, v.lm), ...diagnosticsOf(stats) };
}

/**
 * The diagnostics of {@link dppoLossDetailed} without the loss, read
 * asynchronously (`await tensor.data()`), so it works on every backend,
 * webgpu in Node included, and never blocks the event loop. The values are
 * validated as `validate: true` does and the keep rule is the same float64
 * rule, so the counts are exactly those of {@link dppoLossDetailed}.
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
  return diagnosticsOf(maskStats(fn, x.logpNew.shape, { lpn: lpn!, lpr: lpr!, adv: adv!, lm: lm! }, o));
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

/** `NON_FINITE` / `OUT_OF_RANGE` naming the first bad element, field by field. */
function validateValues(fn: string, shape: readonly number[], v: HostValues): number {
  checkLogProbs(fn, 'logpNew', shape, v.lpn);
  checkLogProbs(fn, 'logpRollout', shape, v.lpr);
  checkFinite(fn, 'advantages', shape, v.adv);
  return checkMask01(fn, 'lossMask', shape, v.lm);
}

/**
 * Validates the values, then counts over loss-mask tokens with the rule of
 * `dppoRules.ts` in float64 (`Math.exp`, bit-identical to the kernels' exp, so the
 * counts are those of the tokens the loss keeps).
 */
function maskStats(fn: string, shape: readonly number[], v: HostValues, o: ParsedOptions): MaskStats {
  const tokens = validateValues(fn, shape, v);
  const { lpn, lpr, adv, lm } = v;
  const lo = o.deltaLow ?? o.delta;
  const hi = o.deltaHigh ?? o.delta;
  const drops = DPPO_DROP_RULES[o.divergence];
  let kept = 0;
  let droppedPositive = 0;
  let droppedNegative = 0;
  let rhoSum = 0;
  let maxAbsLogRho = 0;
  for (let t = 0; t < lpn.length; t++) {
    if (lm[t] !== 1) continue;
    const lp = lpn[t]!;
    const lq = lpr[t]!;
    const p = Math.exp(lp);
    const q = Math.exp(lq);
    const positive = adv[t]! > 0;
    const d = Math.abs(lp - lq);
    if (d > maxAbsLogRho) maxAbsLogRho = d;
    rhoSum += q > 0 ? p / q : Math.exp(lp - lq);
    if (!drops(lp, lq, p, q, positive, lo, hi)) kept++;
    else if (positive) droppedPositive++;
    else droppedNegative++;
  }
  return { tokens, kept, droppedPositive, droppedNegative, rhoSum, maxAbsLogRho };
}

/** The kernel attributes of the parsed options (see `kernels/dppoKernel.ts`). */
function kernelAttrs(o: ParsedOptions): DppoKernelAttrs {
  return {
    divergence: o.divergence === 'kl' ? 1 : 0,
    deltaLow: o.deltaLow ?? o.delta,
    deltaHigh: o.deltaHigh ?? o.delta,
    ratioCap: o.ratioCap ?? 0,
    capMode: o.ratioCapMode === 'truncate' ? 1 : 0,
    capScope: o.ratioCapScope === 'negative' ? 1 : 0,
  };
}

/**
 * The loss through the fused kernel (`kernels/dppoKernel.ts`): one op for mask, rho,
 * loss and gradient on every backend. The aggregation weights come from the mask values
 * already read (`mask`, the validate path) or are built on the device (`null`).
 */
function fusedLoss(x: DppoLossInputs, o: ParsedOptions, mask: ArrayLike<number> | null): tf.Scalar {
  return tf.tidy(() => {
    const shape = x.logpNew.shape;
    if (x.logpNew.size === 0) return zeroLoss(x.logpNew);
    const weights =
      mask !== null
        ? tf.tensor(aggregateWeightsHost(mask, shape, o.aggregate, o.lossScaleFactor), shape, 'float32')
        : aggregateWeights(asFloat(x.lossMask), o.aggregate, o.lossScaleFactor);
    return dppoFusedLoss(
      { logpNew: asFloat(x.logpNew), logpRollout: asFloat(x.logpRollout), advantages: asFloat(x.advantages), weights },
      kernelAttrs(o),
    );
  });
}
