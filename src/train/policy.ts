import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

/**
 * Anything that maps token ids to next-token logits and can be trained:
 * the policy `pi_theta` of FrogNano §4.
 *
 * Contract:
 * - `logits(tokens)` takes int32 ids `[B, T]` (`T <= contextLength`) and returns
 *   float32 logits `[B, T, V]`, where position `t` predicts token `t + 1`;
 * - it is **causal**: position `t` depends on tokens `0..t` only. Batches are
 *   right-padded, so causality is all that keeps padding from changing the
 *   logits that matter;
 * - `variables` are every trainable weight, in a fixed order (the learner
 *   differentiates with respect to them; checkpoints store them in that order);
 * - `clone()` gives an independent copy (same architecture, copied weights):
 *   the rollout actor samples from such a snapshot while the learner updates
 *   the original (asynchronous rollouts, FrogNano §4).
 *
 * Adapters: {@link functionPolicy} (a function of explicit weights) and
 * {@link layersModelPolicy} (a `tf.LayersModel`); `TinyGpt` of `frognano/models`
 * implements the interface directly.
 */
export interface Policy {
  /** Number of token ids `V`. */
  readonly vocabSize: number;
  /** Longest sequence `logits` accepts. */
  readonly contextLength: number;
  /** The trainable weights, in a fixed order. */
  readonly variables: readonly tf.Variable[];
  /** `[B, T]` int32 -> `[B, T, V]` float32 logits; causal. The caller disposes the result. */
  logits(tokens: tf.Tensor): tf.Tensor;
  /** An independent copy with the same weights. */
  clone(): Promise<Policy>;
  /** Frees the weights. */
  dispose(): void;
}

/** Options of {@link functionPolicy}. */
export interface FunctionPolicyOptions {
  /** Number of token ids `V`. */
  vocabSize: number;
  /** Longest sequence accepted. */
  contextLength: number;
  /** Initial weights; copied into fresh `tf.Variable`s (the tensors are not kept). */
  weights: readonly tf.Tensor[];
  /** The forward pass: `[B, T]` int32 ids and the weights -> `[B, T, V]` logits. Must be causal. */
  apply: (weights: readonly tf.Variable[], tokens: tf.Tensor) => tf.Tensor;
}

/**
 * A {@link Policy} from a forward function of explicit weights.
 *
 * @example
 * ```ts
 * // a bigram model: logits[t] = W[token t]
 * const policy = functionPolicy({
 *   vocabSize: 5, contextLength: 16,
 *   weights: [tf.zeros([5, 5])],
 *   apply: ([w], ids) => tf.tidy(() => {
 *     const [B, T] = ids.shape;
 *     const oh = tf.cast(tf.oneHot(tf.reshape(ids, [-1]), 5), 'float32');
 *     return tf.reshape(tf.matMul(oh, w!), [B!, T!, 5]);
 *   }),
 * });
 * ```
 */
export function functionPolicy(opts: FunctionPolicyOptions): Policy {
  const fn = 'functionPolicy';
  if (typeof opts?.apply !== 'function') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'opts.apply must be a function (weights, tokens) => logits', { fn, field: 'opts.apply' });
  }
  checkSizes(fn, opts.vocabSize, opts.contextLength);
  // tidy frees the temporary copy (the variable keeps its own reference to the data).
  const variables = opts.weights.map((w) => tf.tidy(() => tf.variable(w.clone() as tf.Tensor, true)));
  const policy: Policy = {
    vocabSize: opts.vocabSize,
    contextLength: opts.contextLength,
    variables,
    logits: (tokens) => tf.tidy(() => opts.apply(variables, tokens)),
    clone: async () => functionPolicy({ ...opts, weights: variables }),
    dispose: () => {
      for (const v of variables) v.dispose();
    },
  };
  return policy;
}

/** Options of {@link layersModelPolicy}. */
export interface LayersModelPolicyOptions {
  /** Longest sequence the model accepts (its input length, or any bound for a variable-length input). */
  contextLength: number;
  /** Number of token ids; default: the last dimension of the model's output. */
  vocabSize?: number;
  /**
   * Builds a second model of the same architecture (weights are copied after).
   * Default: `tf.models.modelFromJSON(model.toJSON(null, false))`.
   */
  rebuild?: () => Promise<tf.LayersModel> | tf.LayersModel;
}

/**
 * A {@link Policy} from a `tf.LayersModel` whose input is `[B, T]` token ids
 * and whose output is `[B, T, V]` logits (not probabilities: no final softmax).
 * The model must be causal (e.g. causal attention or left-to-right recurrent
 * layers). Embedding layers use `gather`, whose gradient the `wasm` backend of
 * tfjs 4.22 lacks: on `wasm`, embed with a one-hot product instead.
 *
 * @example const policy = layersModelPolicy(model, { contextLength: 32 });
 */
export function layersModelPolicy(model: tf.LayersModel, opts: LayersModelPolicyOptions): Policy {
  const fn = 'layersModelPolicy';
  const outShape = (model.outputs[0]?.shape ?? []) as (number | null)[];
  const vocabSize = opts.vocabSize ?? outShape[outShape.length - 1] ?? NaN;
  checkSizes(fn, vocabSize, opts.contextLength);
  const variables = model.trainableWeights.map((w) => w.read() as tf.Variable);
  return {
    vocabSize,
    contextLength: opts.contextLength,
    variables,
    logits: (tokens) => tf.tidy(() => model.apply(tokens.dtype === 'float32' ? tokens : tf.cast(tokens, 'float32'), { training: true }) as tf.Tensor),
    clone: async () => {
      const copy = opts.rebuild
        ? await opts.rebuild()
        : await tf.models.modelFromJSON(model.toJSON(null, false) as unknown as tf.io.ModelJSON);
      copy.setWeights(model.getWeights());
      return layersModelPolicy(copy, opts);
    },
    dispose: () => model.dispose(),
  };
}

function checkSizes(fn: string, vocabSize: number, contextLength: number): void {
  if (!Number.isInteger(vocabSize) || vocabSize < 2) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.vocabSize must be an integer >= 2, got ${vocabSize}`, { fn, field: 'opts.vocabSize' });
  }
  if (!Number.isInteger(contextLength) || contextLength < 2) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.contextLength must be an integer >= 2, got ${contextLength}`, {
      fn,
      field: 'opts.contextLength',
    });
  }
}

/**
 * A copy of the policy's weights as float32 arrays, in `variables` order, read
 * with `await tensor.data()` (works on every backend, webgpu in Node included,
 * where synchronous reads are impossible).
 *
 * @example const snapshot = await readWeights(policy); // later: writeWeights(policy, snapshot)
 */
export async function readWeights(policy: Policy): Promise<Float32Array[]> {
  return readFloat32(policy.variables);
}

/** Copies of the tensors' values as float32 arrays, read with `await tensor.data()` ({@link readWeights}, `Adam.getState`). @internal */
export function readFloat32(xs: readonly tf.Tensor[]): Promise<Float32Array[]> {
  return Promise.all(xs.map(async (x) => Float32Array.from((await x.data()) as Float32Array)));
}

/**
 * Overwrites the policy's weights (same order and sizes as {@link readWeights}).
 *
 * @throws FrognanoError `LENGTH_MISMATCH` naming `weights[i]` when a count or size differs
 * @example writeWeights(policy, await readWeights(other));
 */
export function writeWeights(policy: Policy, weights: readonly Float32Array[]): void {
  const fn = 'writeWeights';
  if (weights.length !== policy.variables.length) {
    throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `weights has ${weights.length} arrays but the policy has ${policy.variables.length} variables`, {
      fn,
      field: 'weights',
    });
  }
  policy.variables.forEach((v, i) => {
    const w = weights[i]!;
    if (w.length !== v.size) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `weights[${i}] has ${w.length} values but variable ${i} [${v.shape.join(', ')}] has ${v.size}`, {
        fn,
        field: `weights[${i}]`,
        index: [i],
      });
    }
    tf.tidy(() => v.assign(tf.tensor(w, v.shape, 'float32')));
  });
}

/**
 * Copies `from`'s weights into `to` on the device (the actor's snapshot sync). Same architecture required.
 *
 * @throws FrognanoError `LENGTH_MISMATCH` naming `to.variables[i]` when the architectures differ
 * @example copyWeights(learner, actor);
 */
export function copyWeights(from: Policy, to: Policy): void {
  const fn = 'copyWeights';
  if (from.variables.length !== to.variables.length) {
    throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `to has ${to.variables.length} variables but from has ${from.variables.length}`, {
      fn,
      field: 'to',
    });
  }
  to.variables.forEach((v, i) => {
    const src = from.variables[i]!;
    if (src.size !== v.size) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `to.variables[${i}] has ${v.size} values but from.variables[${i}] has ${src.size}`, {
        fn,
        field: `to.variables[${i}]`,
        index: [i],
      });
    }
    v.assign(src);
  });
}
