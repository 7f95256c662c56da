import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { DPPO_KERNEL_NAME, dppoAttrsOf, dppoKernelInputsOf } from './dppoKernel.js';
import { DPPO_RULE_UNIFORMS, DPPO_TOKEN_WGSL, dppoRuleUniformData } from './dppoRule.wgsl.js';

/**
 * The fused DPPO kernel on `webgpu` (issue #13): the WGSL implementation of the
 * `FrognanoDppo` contract (`dppoKernel.ts`), written as tfjs `WebGPUProgram`s and
 * run through the backend's `runWebGPUProgram`, so it shares tfjs's buffers,
 * pipeline cache and command encoder. The per-token rule is `DPPO_TOKEN_WGSL`
 * (`dppoRule.wgsl.ts`), the one WGSL copy of SPEC §3.
 *
 * A tfjs program has one output, so the kernel records three dispatches (two when
 * `N <= 32`), where the tfjs op chain it replaces took about twenty:
 * 1. `grad`: elementwise, one thread per token, `w * keep * g`;
 * 2. `partials`: `P = ceil(N / 32)` threads, thread `i` summing the 32 tokens' `w * keep * l`
 *    at `i, i + P, i + 2P, ...` (grid-stride, so neighbouring threads read neighbouring
 *    tokens): one float32 per thread;
 * 3. `sum`: one workgroup of 256 threads adds the `P` partials, with a tree reduction in
 *    workgroup memory (skipped when `P = 1`).
 * The loss is thus a float32 sum in a fixed order (deterministic), as the contract says.
 * The per-token work stays out of the pass with workgroup barriers: on SwiftShader, the
 * CPU Vulkan driver the test suite runs on, a first version that summed the tokens and
 * tree-reduced them in one shader took about 10x longer than these two passes at 64K
 * tokens (measured, 2026-12-01); on a GPU both layouts are bound by reading the inputs.
 *
 * The module does not import `@tensorflow/tfjs-backend-webgpu`: the backend object
 * that tfjs hands the kernel is used duck-typed ({@link WebGpuBackendLike}), so
 * registering the kernel costs nothing where webgpu is never used.
 */

/** Threads per workgroup (WebGPU's default `maxComputeInvocationsPerWorkgroup` is 256). */
const WORKGROUP = 256;
/** Tokens per thread in the partial-sum pass. */
const TOKENS_PER_THREAD = 32;

/** What the kernel uses of tfjs-backend-webgpu's `WebGPUBackend` (4.22). @internal */
export interface WebGpuBackendLike {
  runWebGPUProgram(program: object, inputs: tf.TensorInfo[], outputDtype: tf.DataType, uniforms?: { type: string; data: number[] }[]): tf.TensorInfo;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values?: Float32Array): tf.TensorInfo;
  disposeData(dataId: object): boolean;
}

/** The fields of tfjs's `WebGPUProgram` that a flat 1-D program sets. */
interface FlatProgram {
  variableNames: string[];
  uniforms?: string;
  size: boolean;
  outputShape: number[];
  workgroupSize: [number, number, number];
  dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  shaderKey: string;
  getUserCode(): string;
}

const INPUTS = ['lpn', 'lpr', 'adv', 'w'];
const readToken = (t: string): string => `dppoToken(f32(lpn[${t}]), f32(lpr[${t}]), f32(adv[${t}]), f32(w[${t}]))`;

/** Pass 1: `grad[t] = w_t * keep_t * g_t`, one thread per token. */
function gradProgram(n: number): FlatProgram {
  return {
    variableNames: INPUTS,
    uniforms: DPPO_RULE_UNIFORMS,
    size: true,
    outputShape: [n],
    workgroupSize: [WORKGROUP, 1, 1],
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(n / WORKGROUP), 1, 1],
    shaderKey: 'frognanoDppoGrad',
    getUserCode: () => `
${DPPO_TOKEN_WGSL}
fn main(index : i32) {
  if (index < uniforms.size) {
    setOutputAtIndex(index, ${readToken('index')}.y);
  }
}
`,
  };
}

/** Pass 2: `P = ceil(N / 32)` partial sums of `w_t * keep_t * l_t`, thread `i` taking tokens `i + k P`. */
function partialsProgram(n: number): FlatProgram {
  const threads = Math.ceil(n / TOKENS_PER_THREAD);
  return {
    variableNames: INPUTS,
    uniforms: `${DPPO_RULE_UNIFORMS} n : i32,`,
    size: true,
    outputShape: [threads],
    workgroupSize: [WORKGROUP, 1, 1],
    dispatchLayout: { x: [0] },
    dispatch: [Math.ceil(threads / WORKGROUP), 1, 1],
    shaderKey: 'frognanoDppoPartials',
    getUserCode: () => `
${DPPO_TOKEN_WGSL}
fn main(index : i32) {
  if (index < uniforms.size) {
    var acc = 0.0;
    for (var k = 0; k < ${TOKENS_PER_THREAD}; k = k + 1) {
      let t = index + k * uniforms.size;
      if (t < uniforms.n) {
        acc = acc + ${readToken('t')}.x;
      }
    }
    setOutputAtIndex(index, acc);
  }
}
`,
  };
}

/** Pass 3: the sum of the partials, in one workgroup. */
function sumProgram(): FlatProgram {
  return {
    variableNames: ['x'],
    size: true,
    outputShape: [1],
    workgroupSize: [WORKGROUP, 1, 1],
    dispatchLayout: { x: [0] },
    dispatch: [1, 1, 1],
    shaderKey: 'frognanoDppoSum',
    getUserCode: () => `
var<workgroup> partial : array<f32, ${WORKGROUP}>;
fn main(index : i32) {
  var acc = 0.0;
  for (var i = i32(localIndex); i < uniforms.xShape; i = i + ${WORKGROUP}) {
    acc = acc + x[i];
  }
  partial[localIndex] = acc;
  workgroupBarrier();
  for (var s = ${WORKGROUP / 2}u; s > 0u; s = s >> 1u) {
    if (localIndex < s) {
      partial[localIndex] = partial[localIndex] + partial[localIndex + s];
    }
    workgroupBarrier();
  }
  if (localIndex == 0u) {
    setOutputAtIndex(0, partial[0]);
  }
}
`,
  };
}

/** Whether `b` has the methods of {@link WebGpuBackendLike} (tfjs hands a kernel its backend typed `{}`). @internal */
export function isWebGpuBackend(b: unknown): b is WebGpuBackendLike {
  return (
    typeof b === 'object' && b !== null &&
    'runWebGPUProgram' in b && typeof b.runWebGPUProgram === 'function' &&
    'makeTensorInfo' in b && typeof b.makeTensorInfo === 'function' &&
    'disposeData' in b && typeof b.disposeData === 'function'
  );
}

/**
 * The `FrognanoDppo` kernel function for `webgpu`: `[loss, grad]` (see `dppoKernel.ts`),
 * `weightScale` included (a uniform multiplying the weights in `dppoToken`).
 * Inputs of any shape are read as flat arrays of `N` elements.
 * @internal
 */
export function dppoKernelWebgpu({ inputs: named, backend, attrs: attrMap }: Parameters<tf.KernelFunc>[0]): tf.TensorInfo[] {
  if (!isWebGpuBackend(backend)) {
    throw new FrognanoError(ErrorCode.BACKEND_UNAVAILABLE, `the webgpu ${DPPO_KERNEL_NAME} kernel was handed a backend object without runWebGPUProgram (tfjs-backend-webgpu 4.x expected)`, { fn: 'dppoLoss', field: 'backend' });
  }
  const attrs = dppoAttrsOf(attrMap);
  const { logpNew, logpRollout, advantages, weights } = dppoKernelInputsOf(named);
  const shape = logpNew.shape;
  const n = shape.reduce((a, b) => a * b, 1);
  if (n === 0) {
    return [backend.makeTensorInfo([], 'float32', new Float32Array([0])), backend.makeTensorInfo(shape, 'float32', new Float32Array(0))];
  }
  const flat = (t: tf.TensorInfo): tf.TensorInfo => ({ dataId: t.dataId, shape: [n], dtype: t.dtype });
  const inputs = [logpNew, logpRollout, advantages, weights].map(flat);
  const rule = dppoRuleUniformData(attrs);

  const grad = backend.runWebGPUProgram(gradProgram(n), inputs, 'float32', rule);
  const partials = backend.runWebGPUProgram(partialsProgram(n), inputs, 'float32', [...rule, { type: 'int32', data: [n] }]);
  let loss = partials;
  if (partials.shape[0]! > 1) {
    loss = backend.runWebGPUProgram(sumProgram(), [partials], 'float32');
    backend.disposeData(partials.dataId);
  }
  return [
    { dataId: loss.dataId, shape: [], dtype: 'float32' },
    { dataId: grad.dataId, shape: [...shape], dtype: 'float32' },
  ];
}

/**
 * Registers {@link dppoKernelWebgpu} as `FrognanoDppo` for the backend name `'webgpu'`
 * (idempotent). tfjs keeps kernels by backend name, so this works before (or without)
 * tfjs-backend-webgpu being loaded. Runs when this module is imported (`dppoLoss.ts` imports it).
 * @internal
 */
export function registerDppoKernelWebgpu(): void {
  if (tf.getKernel(DPPO_KERNEL_NAME, 'webgpu') !== undefined) return;
  tf.registerKernel({ kernelName: DPPO_KERNEL_NAME, backendName: 'webgpu', kernelFunc: dppoKernelWebgpu });
}

registerDppoKernelWebgpu();
