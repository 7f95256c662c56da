import * as tf from '@tensorflow/tfjs';
import { simdModule } from '../../numeric/simd/simdModule.js';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { DPPO_KERNEL_NAME, dppoAttrsOf, dppoKernelInputsOf, provideDppoHostPass, type DppoHostPass } from './dppoKernel.js';
import { dppoHostPassJs } from './dppoKernelFloat64.js';
import { tvPassCopy, tvPassInPlace } from './dppoKernelSimd.js';
import { heapMemory, heapScratchOf, isCpuBackend, isWasmBackend } from './dppoHostViews.js';

export { dppoHostPassJs } from './dppoKernelFloat64.js';
export { hostFloat32Views } from './dppoHostViews.js';
export { checkDppoInputsHost, type DppoInputCheck } from './checkDppoInputsHost.js';

/**
 * The fused DPPO kernel on `cpu` and `wasm` (issue #13; contract in `dppoKernel.ts`):
 * one pass over the tensors computes the mask, `rho`, the loss sum and the gradient.
 * This file dispatches and registers; the parts live in:
 * - `dppoKernelSimd.ts`: the Binary-TV pass in WebAssembly SIMD;
 * - `dppoKernelFloat64.ts`: the float64 term, the JavaScript pass, the re-decision of near tokens;
 * - `dppoHostViews.ts`: the backends' memory and the module's copy buffers;
 * - `checkDppoInputsHost.ts`: the SIMD input check `dppoLoss` runs before the kernel.
 *
 * Binary-TV (`divergence` 0) with WebAssembly SIMD: the whole pass is `tv_loss_f32` of
 * `src/numeric/simd/simd.wat`, four tokens per step in float32 lanes, by chunks of
 * `SIMD_CHUNK`: `p`, `q` from a fast division-free exp (`fexp4`), the tv rule,
 * `rho = p / q`, the cap, the gradient (float32) and the loss (float64 accumulation).
 * On `wasm` it runs on tfjs-backend-wasm's heap in place (no copy of the tensors: the
 * module is instantiated a second time on that memory); on `cpu` the chunks are copied
 * into the module's own memory. Decisions stay exactly those of the float64 rule with
 * `Math.exp` (those of the array `dppoMask`): a token whose `dp` lies within a bound of
 * a threshold (or `|lp - lq|` near the clamp, or `rho` near the cap) is left "near" by
 * the WASM pass (its index goes to a near list) and decided again in float64 by `exactTerm`;
 * the bound is many times the largest error of `fexp4` (checked over every float32
 * input, see `simd.test.ts`). Values: `rho`, loss terms and gradient carry float32
 * round-off (relative ~3e-7), the loss sum is float64.
 *
 * Binary-KL, or no WebAssembly SIMD: a JavaScript loop over the values, with `p`, `q`
 * from the exact `expInto` (bit-identical to `Math.exp`) and the rule of `dppoRules.ts`.
 * @internal
 */

function isTyped(x: ArrayLike<number>): x is Float32Array | Float64Array {
  return x instanceof Float32Array || x instanceof Float64Array;
}

/**
 * The host pass ({@link DppoHostPass}): Binary-TV on typed arrays runs the WASM pass
 * (module memory), else {@link dppoHostPassJs}.
 * @internal
 */
export const dppoHostPass: DppoHostPass = (lpn, lpr, adv, w, attrs, grad) => {
  const m = attrs.divergence === 0 ? simdModule() : null;
  if (m !== null && isTyped(lpn) && isTyped(lpr) && isTyped(adv) && isTyped(w)) return tvPassCopy(m, lpn, lpr, adv, w, attrs, grad);
  return dppoHostPassJs(lpn, lpr, adv, w, attrs, grad);
};

/** The kernel function for `cpu` (values read in place) and `wasm` (views into its heap; the gradient is written in place). */
function dppoKernelFunc({ inputs, backend, attrs }: Parameters<tf.KernelFunc>[0]): tf.TensorInfo[] {
  const { logpNew, logpRollout, advantages, weights } = dppoKernelInputsOf(inputs);
  const shape = logpNew.shape.slice();
  const at = dppoAttrsOf(attrs);
  if (isWasmBackend(backend)) {
    // wasm: allocate the outputs first (an allocation may grow the heap and detach views)
    const gradOut = backend.makeOutput(shape, 'float32');
    const lossOut = backend.makeOutput([], 'float32');
    const heap = at.divergence === 0 && simdModule() !== null && heapMemory(backend) !== null;
    if (heap) heapScratchOf(backend); // before the views, for the same reason
    const view = (t: tf.TensorInfo): Float32Array => backend.typedArrayFromHeap(t);
    const [lp, lq, a, w, g] = [view(logpNew), view(logpRollout), view(advantages), view(weights), view(gradOut)];
    const loss = (heap ? tvPassInPlace(backend, lp, lq, a, w, at, g) : null) ?? dppoHostPass(lp, lq, a, w, at, g);
    view(lossOut)[0] = loss;
    return [lossOut, gradOut];
  }
  if (!isCpuBackend(backend)) {
    throw new FrognanoError(ErrorCode.BACKEND_UNAVAILABLE, `the ${DPPO_KERNEL_NAME} kernel for cpu/wasm was handed a backend object without readSync/makeTensorInfo`, { fn: 'dppoLoss', field: 'backend' });
  }
  const n = shape.reduce((x, y) => x * y, 1);
  const grad = new Float32Array(n);
  const loss = dppoHostPass(backend.readSync(logpNew.dataId), backend.readSync(logpRollout.dataId), backend.readSync(advantages.dataId), backend.readSync(weights.dataId), at, grad);
  return [backend.makeTensorInfo([], 'float32', Float32Array.of(loss)), backend.makeTensorInfo(shape, 'float32', grad)];
}

/** Registers {@link DPPO_KERNEL_NAME} for `cpu` and `wasm` (the wasm backend need not be loaded yet). */
function registerCpuKernels(): void {
  for (const backendName of ['cpu', 'wasm']) {
    if (tf.getKernel(DPPO_KERNEL_NAME, backendName) === undefined) {
      tf.registerKernel({ kernelName: DPPO_KERNEL_NAME, backendName, kernelFunc: dppoKernelFunc });
    }
  }
}

provideDppoHostPass(dppoHostPass, registerCpuKernels);
