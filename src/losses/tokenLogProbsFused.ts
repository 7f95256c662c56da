import * as tf from '@tensorflow/tfjs';
import { ENTROPY_GRAD_KERNEL, ENTROPY_KERNEL, ensureLogSoftmaxKernels, LOGPROBS_GRAD_KERNEL, LOGPROBS_KERNEL } from './kernels/logSoftmaxKernelCpu.js';

/**
 * Fused log-softmax + gather, and entropy, as host kernels for the `cpu` and `wasm`
 * backends (issue 13): one pass per row over tfjs' own float32 array of the logits
 * (`cpu`: the backend's array, read in place; `wasm`: a view into its heap), no tfjs
 * op per chunk. Per row `x` of `[N, V]`:
 * ```
 * M = max_v x_v      S = sum_v exp(x_v - M)      T = sum_v exp(x_v - M)(x_v - M)
 * logp = (x[target] - M) - ln S                    (tokenLogProbs)
 * H    = ln S - T / S                              (tokenEntropy)
 * ```
 * With SIMD the row is read once: chunk by chunk of `SIMD_CHUNK` (hot in L1), the
 * chunk's maximum, then `S` and `T` rescaled whenever the running maximum rises (the
 * online normalizer of Milakov & Gimelshein 2018, as the chunked tfjs path does).
 * `(M, ln S)` are kept as a `[N, 2]` float32 "stats" tensor for the backward, which is
 * one more pass per row writing the `[N, V]` gradient (a new float32 tensor):
 * ```
 * z = (x - M) - ln S  (= log p),  p = exp(z)
 * d logp / d x = dy (onehot(target) - p)        d H / d x = -dy p (z + H)
 * ```
 * Beyond the logits and the gradient, the kernels hold O(N) tensor bytes and one
 * chunk of `SIMD_CHUNK` float32 values of scratch (the SIMD module's memory).
 *
 * The exponentials: with WebAssembly SIMD, `fexp4` of `src/numeric/simd/simd.wat`
 * (float32 lanes, relative error <= 2^-23.55 against `Math.exp`, i.e. below the float32
 * rounding tfjs' own `exp` output carries) on chunks of `x - M` copied into the module's
 * memory; the sums are float64. Without SIMD, a `Math.exp` loop (the exact `expInto` would
 * not help: its fdlibm port runs at about `Math.exp`'s speed; measured on the 2-core dev
 * machine, one pass costs ~6 ns per logit with `fexp4` against ~16 ns with `Math.exp`).
 * Differences against tfjs' `logSoftmax` are float32 round-off (the tests compare both
 * paths, and finite differences).
 *
 * A target outside `[0, V)` (possible only with `validate: false`) gives `NaN` and no
 * one-hot term. A row of `-Infinity` gives `NaN`, as `tf.logSoftmax` does.
 *
 * This file builds the differentiable ops; the parts live in `kernels/`:
 * - `logSoftmaxScratch.ts`: the SIMD module's scratch chunks and the SIMD-exp switch;
 * - `logSoftmaxForward.ts`: the forward row pass (`M`, `ln S`, `T`; log-prob or entropy);
 * - `logSoftmaxBackward.ts`: the backward row pass (the `[N, V]` gradient);
 * - `logSoftmaxKernelCpu.ts`: the four tfjs kernels on `cpu` / `wasm` and their registration.
 * @internal
 * @module
 */

export { ENTROPY_GRAD_KERNEL, ENTROPY_KERNEL, hasFusedLogSoftmax, LOGPROBS_GRAD_KERNEL, LOGPROBS_KERNEL } from './kernels/logSoftmaxKernelCpu.js';
export { setFusedSimdExp } from './kernels/logSoftmaxScratch.js';
export { lseForwardHost } from './kernels/logSoftmaxForward.js';
export { lseBackwardHost } from './kernels/logSoftmaxBackward.js';

/** Runs kernel `name` on `inputs`; its outputs as an array. */
function run(name: string, inputs: tf.NamedTensorMap): tf.Tensor[] {
  const out = tf.engine().runKernel<tf.Tensor | tf.Tensor[]>(name, inputs, {});
  return Array.isArray(out) ? out : [out];
}

/** One fused op: its forward and gradient kernels, and the inputs it takes besides the logits. */
interface FusedOp {
  forward: string;
  backward: string;
  /** Inputs of both kernels besides `logits` (`targets` for the log-probs). */
  extra: tf.NamedTensorMap;
  /** Name under which the gradient kernel takes the forward's value (`h` for the entropy), or `null`. */
  valueAs: string | null;
}

/**
 * The differentiable op of `spec` on float32 `x [N, V]`: the forward kernel gives
 * `[value [N], stats [N, 2]]`; the gradient is the gradient kernel on `logits`, `stats`,
 * `dy`, the extra inputs and (with `valueAs`) the value.
 */
function fusedOp(x: tf.Tensor2D, spec: FusedOp): tf.Tensor1D {
  ensureLogSoftmaxKernels();
  const names = Object.keys(spec.extra);
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    const [value, stats] = run(spec.forward, { logits: xs, ...spec.extra });
    save([xs, stats!, ...names.map((k) => spec.extra[k]!), ...(spec.valueAs === null ? [] : [value!])]);
    return {
      value: value!,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
        const [sx, ss, ...rest] = saved;
        const inputs: tf.NamedTensorMap = { logits: sx!, stats: ss!, dy: dy as tf.Tensor };
        names.forEach((k, i) => (inputs[k] = rest[i]!));
        if (spec.valueAs !== null) inputs[spec.valueAs] = rest[names.length]!;
        return run(spec.backward, inputs)[0]!;
      },
    };
  });
  return op(x) as tf.Tensor1D;
}

/**
 * `log_softmax(x)[i, targets[i]]` for float32 `x [N, V]` and int32 `targets [N]` with the
 * host kernels; differentiable with respect to `x`. Needs {@link hasFusedLogSoftmax}. @internal
 */
export function logProbsFused(x: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D {
  return fusedOp(x, { forward: LOGPROBS_KERNEL, backward: LOGPROBS_GRAD_KERNEL, extra: { targets }, valueAs: null });
}

/** Entropy per row of float32 `x [N, V]` with the host kernels; differentiable. Needs {@link hasFusedLogSoftmax}. @internal */
export function entropyFused(x: tf.Tensor2D): tf.Tensor1D {
  return fusedOp(x, { forward: ENTROPY_KERNEL, backward: ENTROPY_GRAD_KERNEL, extra: {}, valueAs: 'h' });
}
