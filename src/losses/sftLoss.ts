import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import { asFloat, assertSameShape, assertTensor, checkLogProbs, checkMask01, readValues, zeroLoss } from './tensorUtils.js';

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
 * The gradient with respect to `logp_t` is `-m_t / sum m`. Reads `logp` and
 * `lossMask` once to validate.
 *
 * @returns a scalar tensor the caller owns
 * @throws FrognanoError `INVALID_TYPE` (not a tensor), `LENGTH_MISMATCH`, `NON_FINITE` (NaN/±Infinity log-prob),
 *   `OUT_OF_RANGE` (a log-prob > 0, a mask value other than 0/1)
 * @example sftLoss({ logp: tf.tensor1d([Math.log(0.5), Math.log(0.25)]) }) // (ln 2 + ln 4) / 2
 */
export function sftLoss(inputs: SftLossInputs): tf.Scalar {
  const fn = 'sftLoss';
  const { logp, lossMask } = checkLogpAndMask(fn, inputs);
  return tf.tidy(() => weightedNll(logp, lossMask, null));
}

/** Validates `{ logp, lossMask? }` (reads both once). @internal */
export function checkLogpAndMask(fn: string, inputs: { logp: tf.Tensor; lossMask?: tf.Tensor }): { logp: tf.Tensor; lossMask: tf.Tensor | null; tokens: number } {
  if (inputs === null || typeof inputs !== 'object') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `inputs must be an object of tensors, got ${describeValue(inputs)}`, { fn, field: 'inputs' });
  }
  const logp = assertTensor(fn, 'logp', inputs.logp);
  checkLogProbs(fn, 'logp', logp.shape, readValues(logp));
  if (inputs.lossMask === undefined) return { logp, lossMask: null, tokens: logp.size };
  const lossMask = assertTensor(fn, 'lossMask', inputs.lossMask);
  assertSameShape(fn, 'logp', logp, 'lossMask', lossMask);
  const tokens = checkMask01(fn, 'lossMask', lossMask.shape, readValues(lossMask));
  return { logp, lossMask, tokens };
}

/** `-sum(w * logp * m) / max(sum m, 1)` on validated tensors; call inside `tf.tidy`. @internal */
export function weightedNll(logp: tf.Tensor, lossMask: tf.Tensor | null, weights: tf.Tensor | null): tf.Scalar {
  if (logp.size === 0) return zeroLoss(logp);
  const lp = asFloat(logp);
  const m = lossMask === null ? tf.onesLike(lp) : asFloat(lossMask);
  const w = weights === null ? m : tf.mul(weights, m);
  // sum(w * -logp), not -sum(w * logp): an empty mask then gives +0, not -0.
  return tf.div(tf.sum(tf.mul(w, tf.neg(lp))), tf.maximum(tf.sum(m), 1)) as tf.Scalar;
}
