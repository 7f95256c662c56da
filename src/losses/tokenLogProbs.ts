import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { asRows, DEFAULT_VOCAB_CHUNK, logProbsChunked } from './tokenLogProbsChunked.js';
import { hasFusedLogSoftmax, logProbsFused } from './tokenLogProbsFused.js';
import { assertTensor, checkFiniteOnDevice, elementPath, readValues, resolveValidate, validateOption } from './tensorUtils.js';

/** Options of {@link tokenLogProbs} and {@link tokenEntropy}. */
export const TokenLogProbsOptionsSchema = z
  .object({
    ...validateOption,
    /**
     * Vocabulary chunk of the tfjs-op path (backends other than `cpu` and `wasm`, e.g.
     * `webgpu`): the log-softmax runs over `chunkSize` logits at a time (an online
     * log-sum-exp), so the peak tensor memory of the forward is O(N chunkSize), not
     * O(N V). On `cpu` and `wasm` a fused host kernel makes one pass per row and holds
     * O(N) tensor bytes whatever the chunk; it is ignored there. Integer >= 1. Default 4096.
     */
    chunkSize: z.number().int().min(1).default(DEFAULT_VOCAB_CHUNK),
  })
  .strict();
/** Options of {@link tokenLogProbs} and {@link tokenEntropy} as the caller writes them. */
export type TokenLogProbsOptions = z.input<typeof TokenLogProbsOptionsSchema>;

/**
 * Log-probabilities of the sampled tokens: `logp[..., t] = log_softmax(logits[..., t, :])[targets[..., t]]`.
 *
 * Fused log-softmax + gather. On `cpu` and `wasm`, a host kernel
 * (`tokenLogProbsFused.ts`) makes one pass per row over the backend's own array of
 * the logits: the row maximum `M`, `S = sum exp(x - M)` (WebAssembly SIMD exp where
 * available, float64 sums) and `logp = (x[target] - M) - ln S`; the forward holds O(N)
 * tensor bytes beyond the logits. Elsewhere (`webgpu`) tfjs ops run over the
 * vocabulary in chunks of `chunkSize` (default 4096) with an online log-sum-exp: per
 * row, the running `M` and `S` are rescaled chunk by chunk, and the forward's peak
 * tensor memory is O(N chunkSize). Either way no `[..., V]` temporary is built,
 * where the plain `logSoftmax` + one-hot took several `[N, V]` tensors (2.5 GB each
 * at N = 4096, V = 151,936). Numerically
 * stable (nothing is exponentiated above the running maximum) and differentiable
 * with respect to `logits` through its own gradient, `onehot(target) - softmax`,
 * built in one pass per row on `cpu`/`wasm`, chunk by chunk elsewhere (no `gather`
 * gradient, which the `wasm` backend lacks).
 * Feed the result to {@link dppoLoss} as
 * `logpNew`, or to {@link sftLoss} / {@link rwSftLoss} / {@link spanKtoLoss}.
 *
 * Validation (`validate`, default where the backend reads synchronously) reads
 * `targets` (small) and checks the logits for NaN/±Infinity on the device,
 * reading back one number.
 *
 * @param logits - float tensor `[..., V]` (e.g. `[T, V]` or `[B, T, V]`), `V >= 1`
 * @param targets - integer tensor `[...]` (the logits' shape without `V`), values in `[0, V)`
 * @returns float32 tensor `[...]` of log-probs (each `<= 0`); the caller owns it
 * @throws FrognanoError `INVALID_TYPE` (not a tensor, rank-0 logits), `LENGTH_MISMATCH` (shapes),
 *   `EMPTY_INPUT` (`V = 0`), `OUT_OF_RANGE` (a target outside `[0, V)` or not an integer),
 *   `NON_FINITE` (NaN/±Infinity logit)
 * @example tokenLogProbs(tf.tensor2d([[0, Math.log(3)]]), tf.tensor1d([1], 'int32')) // [log(3/4)]
 */
export function tokenLogProbs(logits: tf.Tensor, targets: tf.Tensor, opts: TokenLogProbsOptions = {}): tf.Tensor {
  const fn = 'tokenLogProbs';
  const o = parseOptions(fn, TokenLogProbsOptionsSchema, opts);
  checkLogitsAndTargets(fn, logits, targets, undefined, resolveValidate(fn, o.validate));
  return tf.tidy(() => tokenLogProbsUnchecked(logits, targets, o.chunkSize));
}

/** Checks `logits [..., V]` and `targets [...]` as {@link tokenLogProbs} documents. @internal */
export function checkLogitsAndTargets(
  fn: string,
  logits: tf.Tensor,
  targets: tf.Tensor,
  names: { logits: string; targets: string } = { logits: 'logits', targets: 'targets' },
  values = true,
): void {
  assertTensor(fn, names.logits, logits);
  assertTensor(fn, names.targets, targets);
  if (logits.rank < 1) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${names.logits} must have rank >= 1 ([..., V]), got a scalar`, {
      fn,
      field: names.logits,
    });
  }
  const V = logits.shape[logits.rank - 1]!;
  if (V === 0) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${names.logits} must have a vocabulary dimension V >= 1, got 0`, {
      fn,
      field: names.logits,
    });
  }
  const lead = logits.shape.slice(0, -1);
  if (targets.rank !== lead.length || targets.shape.some((n, i) => n !== lead[i])) {
    throw new FrognanoError(
      ErrorCode.LENGTH_MISMATCH,
      `${names.targets} has shape [${targets.shape.join(', ')}] but ${names.logits} [${logits.shape.join(', ')}] needs [${lead.join(', ')}]`,
      { fn, field: names.targets },
    );
  }
  if (!values) return;
  const tv = readValues(targets);
  for (let i = 0; i < tv.length; i++) {
    const v = tv[i]!;
    if (!Number.isInteger(v) || v < 0 || v >= V) {
      const { where, index } = elementPath(names.targets, targets.shape, i);
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} must be an integer token id in [0, ${V}), got ${v}`, {
        fn,
        field: where,
        index,
      });
    }
  }
  checkFiniteOnDevice(fn, names.logits, logits);
}

/**
 * A float32 one-hot `[..., V]`. Built as int32 and cast: the wasm backend of
 * tfjs 4.22 ignores `dtype: 'float32'` in `oneHot` and writes int32 bit
 * patterns (1 reads as 1.4e-45). Call inside `tf.tidy`. @internal
 */
export function oneHotFloat(indices: tf.Tensor, depth: number): tf.Tensor {
  return tf.cast(tf.oneHot(indices, depth), 'float32');
}

/**
 * {@link tokenLogProbs} without validation; call inside `tf.tidy`. `path` `'auto'` (default)
 * takes the fused host kernel on `cpu`/`wasm` and the chunked tfjs ops elsewhere;
 * `'chunked'` forces the latter (tests, benchmark). @internal
 */
export function tokenLogProbsUnchecked(
  logits: tf.Tensor,
  targets: tf.Tensor,
  chunkSize = DEFAULT_VOCAB_CHUNK,
  path: 'auto' | 'chunked' = 'auto',
): tf.Tensor {
  const x = asRows(logits);
  const t = tf.reshape(targets.dtype === 'int32' ? targets : tf.cast(targets, 'int32'), [x.shape[0]]) as tf.Tensor1D;
  const lp = path === 'auto' && hasFusedLogSoftmax() ? logProbsFused(x, t) : logProbsChunked(x, t, chunkSize);
  return logits.rank === 2 ? lp : tf.reshape(lp, logits.shape.slice(0, -1));
}

/**
 * The log-probs as tokenLogProbs computed them before issue 13: `tf.logSoftmax`
 * over the whole vocabulary times a one-hot, O(N V) temporaries. Kept for the
 * benchmark (`bench/logsoftmax.bench.ts`) and the tests that compare the two. @internal
 */
export function tokenLogProbsDense(logits: tf.Tensor, targets: tf.Tensor): tf.Tensor {
  const V = logits.shape[logits.rank - 1]!;
  const logp = tf.logSoftmax(logits.dtype === 'float32' ? logits : tf.cast(logits, 'float32'));
  const onehot = oneHotFloat(tf.cast(targets, 'int32'), V);
  return tf.sum(tf.mul(logp, onehot), -1);
}
