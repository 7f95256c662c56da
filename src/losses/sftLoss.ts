import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { aggregateUnchecked } from './aggregateTokenLoss.js';
import { asFloat, assertSameShape, assertTensor, checkLogProbs, checkMask01, readValues, resolveValidate, validateOption } from './tensorUtils.js';

/** Options of {@link sftLoss}. */
export const SftLossOptionsSchema = z
  .object({
    ...validateOption,
  })
  .strict();
/** Options of {@link sftLoss} as the caller writes them. */
export type SftLossOptions = z.input<typeof SftLossOptionsSchema>;

/** The tensors of {@link sftLoss}. */
export interface SftLossInputs {
  /** Log-probs of the target tokens under the policy (e.g. from {@link tokenLogProbs}); any shape. */
  logp: tf.Tensor;
  /** 0/1 of the same shape: 1 for tokens that are trained on. Default: all ones. */
  lossMask?: tf.Tensor;
}

/**
 * Plain supervised fine-tuning loss: the masked mean negative log-likelihood
 * (Verification Horizon §4.3, the SFT baseline):
 * ```
 * L = -sum_t logp_t * m_t / sum_t m_t          (0 when no token has m_t = 1)
 * ```
 * The gradient with respect to `logp_t` is `-m_t / sum m`. With `validate`
 * (default where the backend reads synchronously) reads `logp` and `lossMask` once.
 *
 * @returns a scalar tensor the caller owns
 * @throws FrognanoError `INVALID_TYPE` (not a tensor), `LENGTH_MISMATCH`, `NON_FINITE` (NaN/±Infinity log-prob),
 *   `OUT_OF_RANGE` (a log-prob > 0, a mask value other than 0/1)
 * @example sftLoss({ logp: tf.tensor1d([Math.log(0.5), Math.log(0.25)]) }) // (ln 2 + ln 4) / 2
 */
export function sftLoss(inputs: SftLossInputs, opts: SftLossOptions = {}): tf.Scalar {
  const fn = 'sftLoss';
  const o = parseOptions(fn, SftLossOptionsSchema, opts);
  const { logp, lossMask } = checkLogpAndMask(fn, inputs, resolveValidate(fn, o.validate));
  return tf.tidy(() => weightedNll(logp, lossMask, null));
}

/** Validates `{ logp, lossMask? }`: types and shapes always, values (one read of each) when `values`. @internal */
export function checkLogpAndMask(
  fn: string,
  inputs: { logp: tf.Tensor; lossMask?: tf.Tensor },
  values: boolean,
): { logp: tf.Tensor; lossMask: tf.Tensor | null } {
  if (inputs === null || typeof inputs !== 'object') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `inputs must be an object of tensors, got ${describeValue(inputs)}`, { fn, field: 'inputs' });
  }
  const logp = assertTensor(fn, 'logp', inputs.logp);
  if (values) checkLogProbs(fn, 'logp', logp.shape, readValues(logp));
  if (inputs.lossMask === undefined) return { logp, lossMask: null };
  const lossMask = assertTensor(fn, 'lossMask', inputs.lossMask);
  assertSameShape(fn, 'logp', logp, 'lossMask', lossMask);
  if (values) checkMask01(fn, 'lossMask', lossMask.shape, readValues(lossMask));
  return { logp, lossMask };
}

/**
 * `-sum(w * logp * m) / max(sum m, 1)` on validated tensors: the token-mean of
 * {@link aggregateUnchecked} over the per-token loss `-w * logp` (`w = 1` for
 * plain SFT). Call inside `tf.tidy`. @internal
 */
export function weightedNll(logp: tf.Tensor, lossMask: tf.Tensor | null, weights: tf.Tensor | null): tf.Scalar {
  const nll = tf.neg(asFloat(logp));
  return aggregateUnchecked(weights === null ? nll : tf.mul(weights, nll), lossMask === null ? tf.onesLike(nll) : asFloat(lossMask), 'token-mean');
}
