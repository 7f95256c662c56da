import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { assertSameShape, assertTensor, checkMask01, readValues, resolveValidate, asFloat, validateOption, zeroLoss } from './tensorUtils.js';

/** The ways a per-token loss is reduced to a scalar, named as verl's `loss_agg_mode`. */
export const AggregateModeSchema = z.enum(['token-mean', 'token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm']);
/** One of `'token-mean' | 'token-sum' | 'seq-mean-token-mean' | 'seq-mean-token-sum' | 'seq-mean-token-sum-norm'`. */
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
    ...validateOption,
  })
  .strict();
/** Options of {@link aggregateTokenLoss} as the caller writes them. */
export type AggregateTokenLossOptions = z.input<typeof AggregateTokenLossOptionsSchema>;

/**
 * Reduces a per-token loss `L` with a 0/1 mask `m` to a scalar, exactly as
 * verl's current `agg_loss` (`verl/trainer/ppo/core_algos.py`, after its PR #5417;
 * single data-parallel rank). With `S` the rows that have at least one mask-1 token:
 * ```
 * token-mean               sum(L m) / sum(m)
 * token-sum                sum(L m)
 * seq-mean-token-mean      mean_{s in S}  sum_t(L m) / sum_t m
 * seq-mean-token-sum       mean_{s in S}  sum_t(L m)
 * seq-mean-token-sum-norm  mean_{s in S}  sum_t(L m) / lossScaleFactor     (Dr. GRPO; default: the last dimension)
 * ```
 * Rows are the last axis: a tensor of shape `[batch, seqLen]` has `batch` rows,
 * a rank-1 tensor is one row, higher ranks are flattened to `[-1, seqLen]`.
 * Every mode is `sum_t L_t * weight_t` with the weights of {@link aggregateWeights}.
 * Edge cases (where verl would divide by zero): no mask token gives 0 with a
 * zero gradient; fully masked rows are left out of the sequence means (as
 * current verl does); an empty tensor gives 0.
 *
 * `validate` (see `validateOption`) checks here that the mask is 0/1, reading `lossMask`
 * once; with `validate: false` a mask value other than 0/1 is used as a weight as it is
 * (a finite, wrong number).
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

/** The row length of the reduction (the last dimension; 1 for a scalar). @internal */
export function rowLength(shape: readonly number[]): number {
  return shape.length === 0 ? 1 : shape[shape.length - 1]!;
}

/**
 * The weight of each token in the reduction of {@link aggregateTokenLoss}, on the
 * device (float32, the mask's shape): the loss is `sum_t L_t * w_t`. With `M = sum m`,
 * `c_s` the mask count of row `s`, `|S|` the non-empty rows (each at least 1 when used):
 * `token-mean` `m / M`; `token-sum` `m`; `seq-mean-token-mean` `m / (c_s |S|)`;
 * `seq-mean-token-sum` `m / |S|`; `seq-mean-token-sum-norm` `m / (lossScaleFactor |S|)`.
 * Call inside `tf.tidy`; `lossMask` is a validated float32 0/1 tensor. @internal
 */
export function aggregateWeights(lossMask: tf.Tensor, mode: AggregateMode, lossScaleFactor?: number): tf.Tensor {
  if (mode === 'token-sum') return lossMask;
  if (mode === 'token-mean') return tf.div(lossMask, tf.maximum(tf.sum(lossMask), 1));
  const cols = rowLength(lossMask.shape);
  const rows = tf.reshape(lossMask, [-1, cols]);
  const count = tf.sum(rows, -1, true);
  const seqs = tf.maximum(tf.sum(tf.step(count)), 1); // non-empty rows (the mask is 0/1, so count >= 1 there)
  let w: tf.Tensor;
  if (mode === 'seq-mean-token-mean') w = tf.div(rows, tf.mul(tf.maximum(count, 1), seqs));
  else if (mode === 'seq-mean-token-sum') w = tf.div(rows, seqs);
  else w = tf.div(rows, tf.mul(seqs, lossScaleFactor ?? cols));
  return tf.reshape(w, lossMask.shape);
}

/**
 * {@link aggregateWeights} on the host, from the mask values (float32 out, the order
 * of the values): the same numbers, without a round trip through the device. @internal
 */
export function aggregateWeightsHost(mask: ArrayLike<number>, shape: readonly number[], mode: AggregateMode, lossScaleFactor?: number): Float32Array {
  const n = mask.length;
  const w = new Float32Array(n);
  if (mode === 'token-sum' || mode === 'token-mean') {
    let total = 0;
    for (let t = 0; t < n; t++) total += mask[t]!;
    const scale = mode === 'token-sum' ? 1 : 1 / Math.max(total, 1);
    for (let t = 0; t < n; t++) w[t] = mask[t]! * scale;
    return w;
  }
  const cols = rowLength(shape);
  let seqs = 0;
  for (let s = 0; s < n; s += cols) {
    let c = 0;
    for (let t = s; t < s + cols; t++) c += mask[t]!;
    if (c > 0) seqs++;
  }
  seqs = Math.max(seqs, 1);
  for (let s = 0; s < n; s += cols) {
    let c = 0;
    for (let t = s; t < s + cols; t++) c += mask[t]!;
    const scale =
      mode === 'seq-mean-token-mean' ? 1 / (Math.max(c, 1) * seqs) : mode === 'seq-mean-token-sum' ? 1 / seqs : 1 / (seqs * (lossScaleFactor ?? cols));
    for (let t = s; t < s + cols; t++) w[t] = mask[t]! * scale;
  }
  return w;
}

/**
 * The reduction of {@link aggregateTokenLoss} on validated float32 tensors, on
 * the device (no value is read); equal to `sum(lossMat * aggregateWeights(lossMask))`
 * up to float32 rounding. Call inside `tf.tidy`. @internal
 */
export function aggregateUnchecked(
  lossMat: tf.Tensor,
  lossMask: tf.Tensor,
  mode: AggregateMode,
  lossScaleFactor?: number,
): tf.Scalar {
  if (lossMat.size === 0) return zeroLoss(lossMat);
  // The op order of each mode is verl's (mask, sum, divide), not sum(L * weight): the same
  // numbers in exact arithmetic, and the float32 results the earlier releases gave.
  const masked = tf.mul(lossMat, lossMask);
  if (mode === 'token-sum') return tf.sum(masked) as tf.Scalar;
  if (mode === 'token-mean') return tf.div(tf.sum(masked), tf.maximum(tf.sum(lossMask), 1)) as tf.Scalar;
  const cols = rowLength(lossMat.shape);
  const rowSums = tf.sum(tf.reshape(masked, [-1, cols]), -1);
  const count = tf.sum(tf.reshape(lossMask, [-1, cols]), -1);
  const seqs = tf.maximum(tf.sum(tf.step(count)), 1); // non-empty rows (the mask is 0/1, so count >= 1 there)
  const perSeq =
    mode === 'seq-mean-token-mean' ? tf.div(rowSums, tf.maximum(count, 1)) : mode === 'seq-mean-token-sum' ? rowSums : tf.div(rowSums, lossScaleFactor ?? cols);
  return tf.div(tf.sum(perSeq), seqs) as tf.Scalar;
}
