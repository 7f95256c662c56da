import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { assertSameShape, assertTensor, elementPath, noGrad, readValues, resolveValidate, validateOption } from './tensorUtils.js';
import { checkLogpAndMask, weightedNll } from './sftLoss.js';

/** The polarity of a token from process-level user feedback (Verification Horizon §4.3; SPEC §5). */
export const TokenPolaritySchema = z.enum(['positive', 'neutral', 'negative']);
/** `'positive' | 'neutral' | 'negative'`. */
export type TokenPolarity = z.infer<typeof TokenPolaritySchema>;

/** Options of {@link rwSftLoss}. */
export const RwSftLossOptionsSchema = z
  .object({
    /**
     * Loss weight per polarity, each `>= 0` (the paper's `w: {pos, neu, neg} -> R>=0`).
     * Default `{ positive: 1.2, neutral: 1.0, negative: 0.8 }` (Verification Horizon §4.3;
     * §4.4.1 finds `negative = 0.8` the only setting above plain SFT). A field left out
     * keeps its default.
     */
    weights: z
      .object({
        positive: z.number().min(0).default(1.2),
        neutral: z.number().min(0).default(1.0),
        negative: z.number().min(0).default(0.8),
      })
      .strict()
      .default({ positive: 1.2, neutral: 1.0, negative: 0.8 }),
    ...validateOption,
  })
  .strict();
/** Options of {@link rwSftLoss} as the caller writes them. */
export type RwSftLossOptions = z.input<typeof RwSftLossOptionsSchema>;

/** The tensors of {@link rwSftLoss}. */
export interface RwSftLossInputs {
  /** Log-probs of the target tokens under the policy; any shape. */
  logp: tf.Tensor;
  /**
   * The polarity of every token, either as strings (`'positive' | 'neutral' | 'negative'`,
   * one per element of `logp` in row-major order: the annotation pipeline's own format)
   * or as a numeric tensor of `logp`'s shape holding `+1` (positive), `0` (neutral),
   * `-1` (negative) (keeps the labels on the device with the batch).
   */
  polarity: readonly TokenPolarity[] | tf.Tensor;
  /** 0/1 of `logp`'s shape: 1 for tokens trained on (the agent's tokens). Default: all ones. */
  lossMask?: tf.Tensor;
}

/**
 * Re-weighted SFT (RW-SFT, Verification Horizon §4.3; SPEC §5):
 * ```
 * L = -sum_t w(p_t) * logp_t * m_t / sum_t m_t          (0 when no token has m_t = 1)
 * ```
 * Note the normaliser is the token count, not the weight sum (the paper's
 * `-E_t[w(p_t) log pi]`): raising `w_pos` raises the loss scale too.
 *
 * @returns a scalar tensor the caller owns
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, unknown polarity string), `LENGTH_MISMATCH`
 *   (polarity length/shape, mask shape), `NON_FINITE` (NaN/±Infinity log-prob), `OUT_OF_RANGE`
 *   (log-prob > 0, mask not 0/1, numeric polarity not in {-1, 0, 1}, negative weight)
 * @example rwSftLoss({ logp: tf.tensor1d([Math.log(0.5), Math.log(0.5)]), polarity: ['positive', 'negative'] }) // (1.2 + 0.8) ln 2 / 2
 */
export function rwSftLoss(inputs: RwSftLossInputs, opts: RwSftLossOptions = {}): tf.Scalar {
  const fn = 'rwSftLoss';
  const o = parseOptions(fn, RwSftLossOptionsSchema, opts);
  const validate = resolveValidate(fn, o.validate);
  const { logp, lossMask } = checkLogpAndMask(fn, inputs, validate);
  // inside the tidy: the device-side weights (validate false, polarity tensor) are an intermediate too
  return tf.tidy(() => {
    const w = weightsOf(fn, inputs.polarity, logp, o.weights, validate);
    return weightedNll(logp, lossMask, w instanceof tf.Tensor ? w : tf.tensor(w, logp.shape, 'float32'));
  });
}

function weightsOf(
  fn: string,
  polarity: readonly TokenPolarity[] | tf.Tensor,
  logp: tf.Tensor,
  weights: { positive: number; neutral: number; negative: number },
  validate: boolean,
): Float32Array | tf.Tensor {
  const n = logp.size;
  if (polarity instanceof tf.Tensor) {
    assertTensor(fn, 'polarity', polarity);
    assertSameShape(fn, 'logp', logp, 'polarity', polarity);
    if (!validate) {
      // on the device, a constant for the gradient: w = pos [x = 1] + neu [x = 0] + neg [x = -1]
      return noGrad([polarity], (x) => {
        const is = (v: number): tf.Tensor => tf.cast(tf.equal(x!, v), 'float32');
        return tf.addN([tf.mul(is(1), weights.positive), tf.mul(is(0), weights.neutral), tf.mul(is(-1), weights.negative)]);
      });
    }
    const v = readValues(polarity);
    const w = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const x = v[i];
      if (x === 1) w[i] = weights.positive;
      else if (x === 0) w[i] = weights.neutral;
      else if (x === -1) w[i] = weights.negative;
      else {
        const { where, index } = elementPath('polarity', polarity.shape, i);
        throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} must be 1 (positive), 0 (neutral) or -1 (negative), got ${describeValue(x)}`, {
          fn,
          field: where,
          index,
        });
      }
    }
    return w;
  }
  if (!Array.isArray(polarity)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `polarity must be an array of 'positive' | 'neutral' | 'negative' or a tf.Tensor, got ${describeValue(polarity)}`, {
      fn,
      field: 'polarity',
    });
  }
  if (polarity.length !== n) {
    throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `polarity has length ${polarity.length} but logp has ${n} elements`, {
      fn,
      field: 'polarity',
    });
  }
  const w = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const s = polarity[i];
    if (s === 'positive') w[i] = weights.positive;
    else if (s === 'neutral') w[i] = weights.neutral;
    else if (s === 'negative') w[i] = weights.negative;
    else {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `polarity[${i}] must be 'positive', 'neutral' or 'negative', got ${describeValue(s)}`, {
        fn,
        field: `polarity[${i}]`,
        index: [i],
      });
    }
  }
  return w;
}
