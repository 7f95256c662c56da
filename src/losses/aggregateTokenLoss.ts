import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { assertSameShape, assertTensor, checkMask01, readValues, resolveValidate, asFloat, zeroLoss } from './tensorUtils.js';

/** The ways a per-token loss is reduced to a scalar, named as verl's `loss_agg_mode`. */
export const AggregateModeSchema = z.enum(['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm']);
/** One of `'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm'`. */
export type AggregateMode = z.infer<typeof AggregateModeSchema>;

/** Options of {@link aggregateTokenLoss}. */
export const AggregateTokenLossOptionsSchema = z
  .object({
    /** How to reduce (verl `loss_agg_mode`). Default `'token-mean'`. */
    aggregate: AggregateModeSchema.default('token-mean'),
    /**
     * The constant divisor of `'seq-mean-token-sum-norm'` (verl `loss_scale_factor`, > 0).
     * Default: the last dimension of the tensors (verl's `loss_mask.shape[-1]`, the
     * padded response length). Set it to a fixed number (e.g. the maximum response
     * length of the run) so the scale stays constant as batches change (Dr. GRPO).
     * Ignored by the other modes.
     */
    lossScaleFactor: z.number().gt(0).optional(),
    /**
     * Check the input values on the host (the mask is 0/1), reading the
     * tensors once. Default: `true` where the backend reads synchronously (cpu, wasm,
     * tfjs-node), `false` where it cannot (webgpu in Node, see `canReadSync`), where an
     * explicit `true` is a `BACKEND_UNAVAILABLE` error. `false`: no read; bad input then
     * yields NaN or a wrong number instead of an error.
     */
    validate: z.boolean().optional(),
  })
  .strict();
/** Options of {@link aggregateTokenLoss} as the caller writes them. */
export type AggregateTokenLossOptions = z.input<typeof AggregateTokenLossOptionsSchema>;

/**
 * Reduces a per-token loss `L` with a 0/1 mask `m` to a scalar, exactly as
 * verl's `agg_loss` (`verl/trainer/ppo/core_algos.py`, single data-parallel rank):
 * ```
 * token-mean               sum(L m) / sum(m)                                   (over all tokens)
 * seq-mean-token-mean      mean over rows with sum_t m > 0 of  sum_t(L m) / sum_t m
 * seq-mean-token-sum-norm  sum(L m) / lossScaleFactor        (default: the last dimension)
 * ```
 * Rows are the last axis: a tensor of shape `[batch, seqLen]` has `batch` rows,
 * a rank-1 tensor is one row, higher ranks are flattened to `[-1, seqLen]`.
 * Edge cases (where verl would divide by zero): no mask token gives 0 with a
 * zero gradient; fully masked rows are left out of the sequence mean (as
 * current verl does); an empty tensor gives 0.
 *
 * @param lossMat - per-token loss, any shape
 * @param lossMask - 0/1 tensor of the same shape (1 = the token counts)
 * @throws FrognanoError `INVALID_TYPE` (not a tensor), `LENGTH_MISMATCH` (shapes differ),
 *   `OUT_OF_RANGE` (a mask value other than 0/1, `lossScaleFactor <= 0`)
 * @example aggregateTokenLoss(tf.tensor2d([[1, 2], [3, 0]]), tf.tensor2d([[1, 1], [1, 0]]), { aggregate: 'seq-mean-token-mean' }) // (1.5 + 3) / 2
 */
export function aggregateTokenLoss(lossMat: tf.Tensor, lossMask: tf.Tensor, opts: AggregateTokenLossOptions = {}): tf.Scalar {
  const fn = 'aggregateTokenLoss';
  const o = parseOptions(fn, AggregateTokenLossOptionsSchema, opts);
  assertTensor(fn, 'lossMat', lossMat);
  assertTensor(fn, 'lossMask', lossMask);
  assertSameShape(fn, 'lossMat', lossMat, 'lossMask', lossMask);
  if (resolveValidate(fn, o.validate)) checkMask01(fn, 'lossMask', lossMask.shape, readValues(lossMask));
  return tf.tidy(() => aggregateUnchecked(asFloat(lossMat), asFloat(lossMask), o.aggregate, o.lossScaleFactor));
}

/**
 * The reduction of {@link aggregateTokenLoss} on validated float32 tensors, on
 * the device (no value is read). Call inside `tf.tidy`. @internal
 */
export function aggregateUnchecked(
  lossMat: tf.Tensor,
  lossMask: tf.Tensor,
  mode: AggregateMode,
  lossScaleFactor?: number,
): tf.Scalar {
  if (lossMat.size === 0) return zeroLoss(lossMat);
  const masked = tf.mul(lossMat, lossMask);
  if (mode === 'token-mean') {
    return tf.div(tf.sum(masked), tf.maximum(tf.sum(lossMask), 1)) as tf.Scalar;
  }
  const cols = lossMat.rank === 0 ? 1 : lossMat.shape[lossMat.rank - 1]!;
  if (mode === 'seq-mean-token-sum-norm') {
    return tf.div(tf.sum(masked), lossScaleFactor ?? cols) as tf.Scalar;
  }
  // seq-mean-token-mean
  const rows2 = tf.reshape(masked, [-1, cols]);
  const mask2 = tf.reshape(lossMask, [-1, cols]);
  const count = tf.sum(mask2, -1);
  const rowMean = tf.div(tf.sum(rows2, -1), tf.maximum(count, 1));
  const nonEmpty = tf.step(count); // 1 where the row has a token (the mask is 0/1, so count >= 1)
  return tf.div(tf.sum(rowMean), tf.maximum(tf.sum(nonEmpty), 1)) as tf.Scalar;
}
