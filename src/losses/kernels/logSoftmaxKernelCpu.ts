import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { isCpuBackend, isWasmBackend } from './dppoHostViews.js';
import { lseBackwardHost } from './logSoftmaxBackward.js';
import { lseForwardHost } from './logSoftmaxForward.js';

/**
 * The tfjs kernels of the fused log-softmax + gather and entropy (issue 13; overview in
 * `../tokenLogProbsFused.ts`), registered for `cpu` and `wasm` on first use:
 * - `FrognanoLogProbs` (`logits [N, V]`, `targets [N]`) and `FrognanoEntropy` (`logits`):
 *   `[value [N], stats [N, 2]]` by `lseForwardHost` (`logSoftmaxForward.ts`);
 * - `FrognanoLogProbsGrad` (`logits`, `targets`, `stats`, `dy`) and `FrognanoEntropyGrad`
 *   (`logits`, `stats`, `h`, `dy`): the `[N, V]` gradient by `lseBackwardHost`
 *   (`logSoftmaxBackward.ts`).
 * The values are the backend's own: the `cpu` array read in place, views into the wasm
 * heap (the backend objects are checked by `isCpuBackend` / `isWasmBackend` of
 * `dppoHostViews.ts`).
 * @internal
 * @module
 */

/** Kernel names (registered for `cpu` and `wasm` on first use). @internal */
export const LOGPROBS_KERNEL = 'FrognanoLogProbs';
/** @internal */
export const LOGPROBS_GRAD_KERNEL = 'FrognanoLogProbsGrad';
/** @internal */
export const ENTROPY_KERNEL = 'FrognanoEntropy';
/** @internal */
export const ENTROPY_GRAD_KERNEL = 'FrognanoEntropyGrad';

/** Reading a kernel's inputs and making its float32 outputs on one host backend. */
interface HostIO {
  /** Values of `t`: the cpu array or a view into the wasm heap (no copy). */
  values(t: tf.TensorInfo): ArrayLike<number>;
  /**
   * Runs `body` on writable arrays of new float32 outputs of `shapes` and returns the outputs.
   * `wasm`: outputs allocated in its heap first, and `body` takes its input views after that
   * (an allocation may grow the heap and detach earlier views); `cpu`: new arrays, handed to
   * the backend as they are (no copy).
   */
  withOutputs(shapes: number[][], body: (arrays: Float32Array[]) => void): tf.TensorInfo[];
}

/** The {@link HostIO} of the backend object tfjs hands a kernel (`wasm` checked first: it has `readSync` too). */
function hostIO(backend: unknown, kernelName: string): HostIO {
  if (isWasmBackend(backend)) {
    return {
      values: (t) => backend.typedArrayFromHeap(t),
      withOutputs: (shapes, body) => {
        const infos = shapes.map((s) => backend.makeOutput(s, 'float32'));
        body(infos.map((t) => backend.typedArrayFromHeap(t)));
        return infos;
      },
    };
  }
  if (isCpuBackend(backend)) {
    return {
      values: (t) => backend.readSync(t.dataId),
      withOutputs: (shapes, body) => {
        const arrays = shapes.map((s) => new Float32Array(s.reduce((a, c) => a * c, 1)));
        body(arrays);
        return shapes.map((s, k) => backend.makeTensorInfo(s, 'float32', arrays[k]!));
      },
    };
  }
  throw new FrognanoError(ErrorCode.BACKEND_UNAVAILABLE, `the ${kernelName} kernel for cpu/wasm was handed a backend object without makeOutput/typedArrayFromHeap or readSync/makeTensorInfo`, { fn: 'tokenLogProbs', field: 'backend' });
}

/** Input `name` of a kernel call (the ops below always pass it). */
function inputOf(inputs: tf.NamedTensorInfoMap, name: string, kernelName: string): tf.TensorInfo {
  const t = inputs[name];
  if (t === undefined) throw new FrognanoError(ErrorCode.INVALID_TYPE, `the ${kernelName} kernel needs the input ${name}`, { fn: 'tokenLogProbs', field: 'inputs' });
  return t;
}

/** `v` as a Float32Array (the logits always are one: the inputs are float32 tensors). */
function float32(v: ArrayLike<number>): Float32Array {
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

/** The forward kernel: `[value [N], stats [N, 2]]` (log-probs with `targets`, else entropy). */
function forwardKernel(kernelName: string, entropy: boolean): tf.KernelFunc {
  return ({ inputs, backend }) => {
    const io = hostIO(backend, kernelName);
    const logits = inputOf(inputs, 'logits', kernelName);
    const targets = entropy ? null : inputOf(inputs, 'targets', kernelName);
    const [N, V] = logits.shape as [number, number];
    return io.withOutputs([[N], [N, 2]], ([out, stats]) => {
      const x = float32(io.values(logits));
      lseForwardHost(x, N, V, targets === null ? null : io.values(targets), out!, stats!);
    });
  };
}

/** The backward kernel: the gradient `[N, V]` of the log-probs (with `targets`) or of the entropy (with `h`). */
function backwardKernel(kernelName: string, entropy: boolean): tf.KernelFunc {
  return ({ inputs, backend }) => {
    const io = hostIO(backend, kernelName);
    const logits = inputOf(inputs, 'logits', kernelName);
    const statsIn = inputOf(inputs, 'stats', kernelName);
    const dyIn = inputOf(inputs, 'dy', kernelName);
    const targets = entropy ? null : inputOf(inputs, 'targets', kernelName);
    const hIn = entropy ? inputOf(inputs, 'h', kernelName) : null;
    const [N, V] = logits.shape as [number, number];
    return io.withOutputs([[N, V]], ([g]) => {
      const x = float32(io.values(logits));
      const t = targets === null ? null : io.values(targets);
      const h = hIn === null ? null : io.values(hIn);
      lseBackwardHost(x, N, V, io.values(statsIn), io.values(dyIn), t, h, g!);
    });
  };
}

const HOST_BACKENDS = ['cpu', 'wasm'] as const;
let registered = false;
/** Registers the four kernels for `cpu` and `wasm` (once; the wasm backend need not be loaded yet). @internal */
export function ensureLogSoftmaxKernels(): void {
  if (registered) return;
  registered = true;
  const kernels: Array<[string, tf.KernelFunc]> = [
    [LOGPROBS_KERNEL, forwardKernel(LOGPROBS_KERNEL, false)],
    [ENTROPY_KERNEL, forwardKernel(ENTROPY_KERNEL, true)],
    [LOGPROBS_GRAD_KERNEL, backwardKernel(LOGPROBS_GRAD_KERNEL, false)],
    [ENTROPY_GRAD_KERNEL, backwardKernel(ENTROPY_GRAD_KERNEL, true)],
  ];
  for (const backendName of HOST_BACKENDS) {
    for (const [kernelName, kernelFunc] of kernels) {
      if (tf.getKernel(kernelName, backendName) === undefined) tf.registerKernel({ kernelName, backendName, kernelFunc });
    }
  }
}

/** Whether the active backend runs the fused host kernels (`cpu`, `wasm`). @internal */
export function hasFusedLogSoftmax(backend: string = tf.getBackend()): boolean {
  if (!(HOST_BACKENDS as readonly string[]).includes(backend)) return false;
  ensureLogSoftmaxKernels();
  return tf.getKernel(LOGPROBS_KERNEL, backend) !== undefined;
}
