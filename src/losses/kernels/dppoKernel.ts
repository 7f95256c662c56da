import * as tf from '@tensorflow/tfjs';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { canReadSync } from '../../backend/canReadSync.js';

/**
 * The fused DPPO kernel: the contract between `dppoLoss` and the per-backend
 * implementations (issue #13). One custom tfjs kernel, registered per backend
 * with `tf.registerKernel` under {@link DPPO_KERNEL_NAME}:
 * - `cpu`, `wasm`: `dppoKernelCpu.ts` (one pass over typed arrays, WASM SIMD exp where available);
 * - `webgpu`: `dppoKernelWebgpu.ts` (three WGSL programs: the gradient elementwise, partial sums
 *   of the loss, their sum in one workgroup).
 *
 * ## Inputs (float32, all of one shape, `N` elements)
 * `logpNew`, `logpRollout`, `advantages`, `weights`. `weights_t` is the aggregation
 * weight of token `t`, already including the loss mask (0 on mask-0 tokens), e.g.
 * token-mean: `m_t / max(1, sum m)`. A token with `weights_t = 0` contributes 0 to the
 * loss and 0 to the gradient (the kernel may skip it; its inputs may be anything finite).
 *
 * ## Attributes ({@link DppoKernelAttrs})
 * `divergence` 0 = tv, 1 = kl; `deltaLow`, `deltaHigh` (> 0); `ratioCap` (0 = off, else > 1);
 * `capMode` 0 = clip, 1 = truncate; `capScope` 0 = all tokens, 1 = only tokens with `A < 0`.
 *
 * ## Per token (SPEC §3), `lp = logpNew_t`, `lq = logpRollout_t`, `A = advantages_t`, `w = weights_t`
 * ```
 * p = exp(lp), q = exp(lq)
 * drop (tv):  A > 0 ? p - q > deltaHigh : p - q < -deltaLow                        (strict)
 * drop (kl):  pc = min(p, 1), qc = min(q, 1)
 *             d  = qc*(lq - lp) + (1 - qc) * ln((1 - qc + 1e-8) / (1 - pc + 1e-8))
 *             A > 0 ? (p > q && d > deltaHigh) : (p < q && d > deltaLow)           (strict)
 * keep = !drop
 * lr  = lp - lq;  rho = exp(clamp(lr, -LOG_RATIO_CLAMP, LOG_RATIO_CLAMP));  inside = |lr| <= LOG_RATIO_CLAMP
 * capped = ratioCap > 0 && (capScope == 0 || A < 0)
 * r = capped ? min(rho, ratioCap) : rho
 * clip     (capMode 0): l = -A * r;        g = -A * (inside && !(capped && rho > ratioCap) ? rho : 0)
 * truncate (capMode 1): l = -A * r * lp;   g = -A * r          (-A * stopgrad(r) * logpNew; no clamp gate)
 * ```
 * (In clip mode a tie `rho == ratioCap` keeps the gradient, as tfjs `minimum` routes ties to
 * its first argument.) With `ratioCap = 0` the mode and scope do not matter: `l = -A * rho`,
 * `g = -A * (inside ? rho : 0)`, i.e. clip.
 *
 * ## Outputs `[loss, grad]`
 * `loss`: float32 scalar `sum_t w_t * keep_t * l_t` (cpu/wasm accumulate in float64;
 * webgpu in float32 with a tree reduction). `grad`: float32 of the input shape,
 * `w_t * keep_t * g_t = d loss / d logpNew_t`. The op's gradient is `dy * grad` (only
 * `logpNew` is differentiated; the others are constants of the loss).
 *
 * ## Precision of the rule
 * cpu/wasm decide exactly as the float64 rule with `Math.exp`/`Math.log` on the float32
 * inputs (the rule of `src/advantage/dppoRules.ts`: the kept tokens are those of the array
 * `dppoMask` on the same values). Binary-TV runs in WebAssembly SIMD with a fast float32
 * exp, and every token near a decision edge is decided again in float64 (see
 * `dppoKernelSimd.ts` and `exactTerm` in `dppoKernelFloat64.ts`); its values carry float32 round-off (relative ~3e-7), the loss is
 * summed in float64. webgpu evaluates the rule in float32 (a token within float32
 * round-off of a threshold may go the other way); a test compares every kernel with the
 * float64 `dppoMask`.
 *
 * ## Registration
 * `dppoKernelCpu.ts` registers `cpu` and `wasm` when this module is first used
 * ({@link ensureDppoKernels}). The webgpu kernel registers itself for `'webgpu'` when
 * `dppoKernelWebgpu.ts` is imported (it must not import `@tensorflow/tfjs-backend-webgpu`
 * statically: the backend object is used through `runWebGPUProgram`, duck-typed). On a
 * backend with no registered kernel that reads synchronously (`tensorflow`, `webgl`), the
 * same host pass runs on the read values; on one that cannot, `BACKEND_UNAVAILABLE`.
 * @internal
 */
export const DPPO_KERNEL_NAME = 'FrognanoDppo';

/**
 * The log-ratio `logpNew - logpRollout` is clamped to `[-LOG_RATIO_CLAMP, LOG_RATIO_CLAMP]`
 * before `exp` (as verl does), so `rho <= e^20 ~ 4.9e8` and float32 `exp` cannot
 * overflow. Outside the range the clamp is flat: in clip mode such a token contributes
 * a constant to the loss and **no gradient**. A kept token only gets there when the
 * rollout probability `q` is below `e^-20 * p`, i.e. tiny.
 */
export const LOG_RATIO_CLAMP = 20;

/** Attributes of the {@link DPPO_KERNEL_NAME} kernel (all numbers, as tfjs attrs). */
export interface DppoKernelAttrs {
  /** 0 = Binary-TV (`p - q`), 1 = Binary-KL. */
  divergence: 0 | 1;
  /** Threshold for tokens with `A <= 0` (> 0). */
  deltaLow: number;
  /** Threshold for tokens with `A > 0` (> 0). */
  deltaHigh: number;
  /** 0 = no cap; otherwise the cap on `rho` (> 1). */
  ratioCap: number;
  /** 0 = clip (`min(rho, cap)` in the loss, no gradient above), 1 = truncate (`-A * stopgrad(min(rho, cap)) * logpNew`). */
  capMode: 0 | 1;
  /** 0 = the cap applies to every token, 1 = only to tokens with `A < 0` (verl's dual-clip). */
  capScope: 0 | 1;
  /**
   * Optional, default 1: every weight is multiplied by it (`w_t = weightScale * weights_t`),
   * so token-mean can pass the 0/1 loss mask as `weights` with `weightScale = 1 / max(1, sum m)`
   * instead of a weights tensor. Every implementation honours it: the cpu/wasm kernels and
   * the sync-read fallback of {@link runDppoKernel} (in float64), the webgpu kernel (a
   * uniform multiplying the weights, in float32). `dppoLoss` passes a value other than 1
   * only on cpu and wasm today.
   */
  weightScale?: number;
}

/** The attributes as tfjs carries them (`weightScale` filled in with its default 1). @internal */
export function dppoAttrMap(a: DppoKernelAttrs): tf.NamedAttrMap {
  return {
    divergence: a.divergence,
    deltaLow: a.deltaLow,
    deltaHigh: a.deltaHigh,
    ratioCap: a.ratioCap,
    capMode: a.capMode,
    capScope: a.capScope,
    weightScale: a.weightScale ?? 1,
  };
}

/** The inverse of {@link dppoAttrMap}, for the kernel functions. @internal */
export function dppoAttrsOf(a: tf.NamedAttrMap = {}): Required<DppoKernelAttrs> {
  return {
    divergence: a.divergence === 1 ? 1 : 0,
    deltaLow: Number(a.deltaLow),
    deltaHigh: Number(a.deltaHigh),
    ratioCap: Number(a.ratioCap),
    capMode: a.capMode === 1 ? 1 : 0,
    capScope: a.capScope === 1 ? 1 : 0,
    weightScale: a.weightScale === undefined ? 1 : Number(a.weightScale),
  };
}

/** The four float32 inputs of the kernel, one shape. */
export interface DppoKernelInputs {
  logpNew: tf.Tensor;
  logpRollout: tf.Tensor;
  advantages: tf.Tensor;
  /** Aggregation weight per token, 0 on mask-0 tokens. */
  weights: tf.Tensor;
}

/**
 * The host pass every cpu/wasm kernel (and the sync-read fallback) runs, the one signature
 * of `dppoHostPass` (`dppoKernelCpu.ts`) and `dppoHostPassJs` (`dppoKernelFloat64.ts`):
 * reads the four inputs' values, writes `grad` (length N) and returns
 * `sum_t weightScale w_t keep_t l_t` in float64. Set by `dppoKernelCpu.ts`.
 */
export type DppoHostPass = (
  lpn: ArrayLike<number>,
  lpr: ArrayLike<number>,
  adv: ArrayLike<number>,
  w: ArrayLike<number>,
  attrs: DppoKernelAttrs,
  grad: Float32Array,
) => number;

/** The kernel's four inputs, from the map tfjs hands a kernel function. @internal */
export function dppoKernelInputsOf(inputs: tf.NamedTensorInfoMap): { logpNew: tf.TensorInfo; logpRollout: tf.TensorInfo; advantages: tf.TensorInfo; weights: tf.TensorInfo } {
  const { logpNew, logpRollout, advantages, weights } = inputs;
  if (logpNew === undefined || logpRollout === undefined || advantages === undefined || weights === undefined) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `the ${DPPO_KERNEL_NAME} kernel needs the inputs logpNew, logpRollout, advantages and weights`, { fn: 'dppoLoss', field: 'inputs' });
  }
  return { logpNew, logpRollout, advantages, weights };
}

let hostPass: DppoHostPass | null = null;
let registrar: (() => void) | null = null;

/** Called once by `dppoKernelCpu.ts`: the host pass and the function registering the cpu/wasm kernels. @internal */
export function provideDppoHostPass(pass: DppoHostPass, register: () => void): void {
  hostPass = pass;
  registrar = register;
}

let registered = false;
/** Registers the cpu and wasm kernels (idempotent). @internal */
export function ensureDppoKernels(): void {
  if (registered || registrar === null) return;
  registered = true;
  registrar();
}

/** Whether the active backend has a registered {@link DPPO_KERNEL_NAME} kernel. */
export function hasDppoKernel(backend: string = tf.getBackend()): boolean {
  ensureDppoKernels();
  return tf.getKernel(DPPO_KERNEL_NAME, backend) !== undefined;
}

/**
 * Runs the kernel (forward): `[loss, grad]`, both new tensors the caller owns.
 * Not differentiable by itself; {@link dppoFusedLoss} wraps it in `tf.customGrad`.
 */
export function runDppoKernel(x: DppoKernelInputs, attrs: DppoKernelAttrs): [tf.Scalar, tf.Tensor] {
  if (hasDppoKernel()) {
    const out = tf.engine().runKernel<tf.Tensor[]>(
      DPPO_KERNEL_NAME,
      { logpNew: x.logpNew, logpRollout: x.logpRollout, advantages: x.advantages, weights: x.weights },
      dppoAttrMap(attrs),
    );
    return [out[0] as tf.Scalar, out[1]!];
  }
  if (!canReadSync() || hostPass === null) {
    throw new FrognanoError(
      ErrorCode.BACKEND_UNAVAILABLE,
      `the fused DPPO kernel '${DPPO_KERNEL_NAME}' is not registered for backend '${tf.getBackend()}', which cannot read tensors synchronously for the host pass; import frognano's webgpu kernel (src/losses/kernels/dppoKernelWebgpu.ts) or use the cpu or wasm backend`,
      { fn: 'dppoLoss', field: 'backend' },
    );
  }
  const grad = new Float32Array(x.logpNew.size);
  const loss = hostPass(x.logpNew.dataSync(), x.logpRollout.dataSync(), x.advantages.dataSync(), x.weights.dataSync(), attrs, grad);
  return [tf.scalar(loss, 'float32'), tf.tensor(grad, x.logpNew.shape, 'float32')];
}

/**
 * Whether the upstream gradient `dy` is the scalar 1 (as `tf.grad` / `tf.valueAndGrad` of the
 * loss itself pass it), read only on `cpu` and `wasm`, where a scalar reads back at once
 * (never on `webgpu`, where a read would wait for the device).
 */
function isUnitScalar(dy: tf.Tensor): boolean {
  const b = tf.getBackend();
  return dy.size === 1 && dy.dtype === 'float32' && (b === 'cpu' || b === 'wasm') && dy.dataSync()[0] === 1;
}

/**
 * The differentiable fused loss: the kernel's `loss`, with gradient `dy * grad` to
 * `logpNew` (the other three inputs are constants, closed over). When `dy` is 1 on
 * `cpu` / `wasm` the gradient is `grad` itself (a copy, or on `cpu` a shared buffer:
 * `1 * g = g` exactly, without an elementwise multiply).
 */
export function dppoFusedLoss(x: DppoKernelInputs, attrs: DppoKernelAttrs): tf.Scalar {
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const lpn = args[0] as tf.Tensor;
    const save = args[1] as tf.GradSaveFunc;
    const [loss, grad] = runDppoKernel({ ...x, logpNew: lpn }, attrs);
    save([grad]);
    return {
      value: loss,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => (isUnitScalar(dy) ? tf.clone(saved[0]!) : tf.mul(dy, saved[0]!)),
    };
  });
  return op(x.logpNew) as tf.Scalar;
}
