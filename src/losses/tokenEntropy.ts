import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { assertTensor, checkFiniteOnDevice, resolveValidate } from './tensorUtils.js';
import { asRows, entropyChunked } from './tokenLogProbsChunked.js';
import { entropyFused, hasFusedLogSoftmax } from './tokenLogProbsFused.js';
import { TokenLogProbsOptionsSchema, type TokenLogProbsOptions } from './tokenLogProbs.js';

/**
 * Entropy of the next-token distribution at every position:
 * `H[...] = -sum_v softmax(logits)[..., v] * log_softmax(logits)[..., v]` (nats).
 *
 * With `M` the row maximum, `S = sum exp(x - M)` and `T = sum exp(x - M)(x - M)`,
 * `H = ln S - T / S`. As {@link tokenLogProbs}: on `cpu` and `wasm` a fused host
 * kernel computes them in one pass per row (O(N) tensor bytes beyond the logits);
 * elsewhere tfjs ops run over the vocabulary in chunks of `chunkSize` (default 4096)
 * with an online log-sum-exp (`M`, `S`, `T` rescaled at each chunk; peak tensor
 * memory O(N chunkSize)). No `[..., V]` temporary either way. Stable (`0 * log 0`
 * never appears: an underflowed probability multiplies a finite `x - M`) and
 * differentiable through its own gradient `-p (log p + H)`.
 * For logging (entropy collapse is the failure FrogNano's consolidation step
 * works against, App. C); the DPPO loss itself has no entropy bonus.
 *
 * @param logits - float tensor `[..., V]`, `V >= 1`
 * @returns float32 tensor `[...]`, each value in `[0, ln V]`; the caller owns it
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, rank 0), `EMPTY_INPUT` (`V = 0`), `NON_FINITE` (NaN/±Infinity logit)
 * @example tokenEntropy(tf.tensor2d([[0, 0, 0, 0]])) // [ln 4]
 */
export function tokenEntropy(logits: tf.Tensor, opts: TokenLogProbsOptions = {}): tf.Tensor {
  const fn = 'tokenEntropy';
  const o = parseOptions(fn, TokenLogProbsOptionsSchema, opts);
  assertTensor(fn, 'logits', logits);
  if (logits.rank < 1) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'logits must have rank >= 1 ([..., V]), got a scalar', { fn, field: 'logits' });
  }
  if (logits.shape[logits.rank - 1] === 0) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'logits must have a vocabulary dimension V >= 1, got 0', { fn, field: 'logits' });
  }
  if (resolveValidate(fn, o.validate)) checkFiniteOnDevice(fn, 'logits', logits);
  return tf.tidy(() => {
    const x = asRows(logits);
    const h = hasFusedLogSoftmax() ? entropyFused(x) : entropyChunked(x, o.chunkSize);
    return logits.rank === 2 ? h : tf.reshape(h, logits.shape.slice(0, -1));
  });
}

/** The entropy as tokenEntropy computed it before issue 13 (`tf.logSoftmax`, O(N V) temporaries), for the benchmark and the tests. @internal */
export function tokenEntropyDense(logits: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const logp = tf.logSoftmax(logits.dtype === 'float32' ? logits : tf.cast(logits, 'float32'));
    return tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1));
  });
}
