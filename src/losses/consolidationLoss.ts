import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { aggregateUnchecked } from './aggregateTokenLoss.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { asFloat, assertSameShape, assertTensor, checkFiniteOnDevice, checkMask01, noGrad, readValues, resolveValidate, validateOption, zeroLoss } from './tensorUtils.js';
import { checkLogitsAndTargets, oneHotFloat } from './tokenLogProbs.js';

/**
 * Added to the logits outside the reference's top-k set, so their softmax
 * weight is exactly 0 in float32 while every number stays finite (an
 * `-Infinity` would turn `0 * -Infinity` into NaN).
 */
const OUTSIDE = -1e30;

/** Options of {@link consolidationLoss}. */
export const ConsolidationLossOptionsSchema = z
  .object({
    /** Size `k` of the reference's top-k set the KL runs over (integer >= 1; FrogNano App. C uses 64). Clamped to `V`. Default `64`. */
    topK: z.number().int().min(1).default(64),
    /**
     * How the policy's distribution on the top-k set is formed for the KL branch.
     * `'topk'` (default; the literal reading of App. C, "KL over the top-64 logits"):
     * softmax of the policy's logits at those k ids, so both sides are distributions
     * on the k ids. `'full'`: the policy's full-vocabulary log-softmax at those ids
     * (sparse top-k distillation as DistillKit does it), which also pulls the
     * policy's mass outside the set back into it.
     */
    policyNormalization: z.enum(['topk', 'full']).default('topk'),
    ...validateOption,
  })
  .strict();
/** Options of {@link consolidationLoss} as the caller writes them. */
export type ConsolidationLossOptions = z.input<typeof ConsolidationLossOptionsSchema>;

/** The tensors of {@link consolidationLoss}. */
export interface ConsolidationLossInputs {
  /** Policy logits `[T, V]` or `[B, T, V]` (the differentiated input). */
  policyLogits: tf.Tensor;
  /** Reference-model logits of the same shape (a constant; the reference may be FrogNano itself or an earlier RL checkpoint). */
  refLogits: tf.Tensor;
  /** Target token ids `[T]` or `[B, T]` (integers in `[0, V)`). */
  targets: tf.Tensor;
  /** 0/1 of `targets`' shape: 1 for trained tokens. Default: all ones. */
  lossMask?: tf.Tensor;
}

/**
 * The consolidation loss of FrogNano App. C ("merging checkpoints by
 * consolidation"): SFT on filtered successful trajectories that keeps entropy
 * by switching per token on whether the target agrees with the reference's top
 * token:
 * ```
 * S_t      = the k ids with the largest refLogits_t (k = topK, ties: lowest id first)
 * P_t      = softmax of refLogits_t over S_t                       (reference, renormalised)
 * Q_t      = softmax of policyLogits_t over S_t   ('topk')   |   softmax over all V restricted to S_t   ('full')
 * l_t      = KL(P_t || Q_t) = sum_{v in S_t} P_t(v) (ln P_t(v) - ln Q_t(v))    if targets_t = argmax refLogits_t
 *          = -log_softmax(policyLogits_t)[targets_t]                          otherwise (cross-entropy)
 * L        = sum_t l_t m_t / sum_t m_t                                       (0 when no token counts)
 * ```
 * The paper says only "KL loss over the top 64 logits" where the target is the
 * reference's top token and "standard cross-entropy" elsewhere; the KL
 * direction (reference to policy, as in distillation), the renormalisation and
 * the token-mean are this library's reading (see `policyNormalization`).
 * `argmax` takes the first maximal id. The reference side (top-k, argmax,
 * softmax) is a constant for the gradient even when `refLogits` is the same
 * tensor as `policyLogits`. Everything is dense `[N, V]` (no gather), so it
 * runs and differentiates on `cpu`, `wasm` and `webgpu`.
 *
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, rank not 2 or 3), `LENGTH_MISMATCH` (shapes),
 *   `EMPTY_INPUT` (`V = 0`), `NON_FINITE` (NaN/±Infinity logit), `OUT_OF_RANGE` (target outside
 *   `[0, V)`, mask not 0/1, `topK < 1`)
 * @example consolidationLoss({ policyLogits, refLogits, targets }, { topK: 64 })
 */
export function consolidationLoss(inputs: ConsolidationLossInputs, opts: ConsolidationLossOptions = {}): tf.Scalar {
  const fn = 'consolidationLoss';
  const o = parseOptions(fn, ConsolidationLossOptionsSchema, opts);
  if (inputs === null || typeof inputs !== 'object') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `inputs must be an object of tensors, got ${describeValue(inputs)}`, { fn, field: 'inputs' });
  }
  const policyLogits = assertTensor(fn, 'policyLogits', inputs.policyLogits);
  const refLogits = assertTensor(fn, 'refLogits', inputs.refLogits);
  if (policyLogits.rank !== 2 && policyLogits.rank !== 3) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `policyLogits must have shape [T, V] or [B, T, V], got [${policyLogits.shape.join(', ')}]`, {
      fn,
      field: 'policyLogits',
    });
  }
  assertSameShape(fn, 'policyLogits', policyLogits, 'refLogits', refLogits);
  const validate = resolveValidate(fn, o.validate);
  checkLogitsAndTargets(fn, policyLogits, inputs.targets, { logits: 'policyLogits', targets: 'targets' }, validate);
  if (validate) checkFiniteOnDevice(fn, 'refLogits', refLogits);
  const targets = inputs.targets;
  let lossMask: tf.Tensor | null = null;
  if (inputs.lossMask !== undefined) {
    lossMask = assertTensor(fn, 'lossMask', inputs.lossMask);
    assertSameShape(fn, 'targets', targets, 'lossMask', lossMask);
    if (validate) checkMask01(fn, 'lossMask', lossMask.shape, readValues(lossMask));
  }

  const V = policyLogits.shape[policyLogits.rank - 1]!;
  const N = targets.size;
  const k = Math.min(o.topK, V);
  return tf.tidy(() => {
    if (N === 0) return zeroLoss(policyLogits);
    const pol = tf.reshape(asFloat(policyLogits), [N, V]);
    const ref = tf.reshape(asFloat(refLogits), [N, V]);
    const tgt = tf.reshape(tf.cast(targets, 'int32'), [N]);
    // The reference side, off the gradient tape: a 0/1 top-k membership [N, V],
    // log P on it (about OUTSIDE elsewhere, where P = 0), and whether the target is the top token.
    const inTop = noGrad([ref], (r) => {
      const { indices } = tf.topk(r!, k, true);
      const rows = tf.tile(tf.reshape(tf.range(0, N, 1, 'int32'), [N, 1]), [1, k]);
      const coords = tf.reshape(tf.stack([rows, indices], 2), [N * k, 2]);
      return tf.scatterND(coords, tf.ones([N * k], 'float32'), [N, V]);
    });
    const outside = tf.mul(tf.sub(1, inTop), OUTSIDE);
    const logP = noGrad([ref, inTop], (r, m) => tf.logSoftmax(tf.add(r!, tf.mul(tf.sub(1, m!), OUTSIDE))));
    const P = tf.exp(logP);
    const isTop = noGrad([ref], (r) => tf.cast(tf.equal(tf.argMax(r!, -1), tgt), 'float32'));

    const logQ = o.policyNormalization === 'topk' ? tf.logSoftmax(tf.add(pol, outside)) : tf.logSoftmax(pol);
    const kl = tf.sum(tf.mul(P, tf.sub(logP, logQ)), -1);
    const ce = tf.neg(tf.sum(tf.mul(tf.logSoftmax(pol), oneHotFloat(tgt, V)), -1));
    const perToken = tf.add(tf.mul(isTop, kl), tf.mul(tf.sub(1, isTop), ce));
    const m = lossMask === null ? tf.onesLike(perToken) : tf.reshape(asFloat(lossMask), [N]);
    return aggregateUnchecked(perToken, m, 'token-mean');
  });
}
