import * as tf from '@tensorflow/tfjs';
import { DPPO_DROP_RULES, tvDrops } from '../../advantage/dppoRules.js';
import { expInto, SIMD_CHUNK, tvNearWindow } from '../../numeric/simd/expInto.js';
import { simdModule, simdModuleOn, type SimdExports, type WasmMemory } from '../../numeric/simd/simdModule.js';
import { DPPO_KERNEL_NAME, LOG_RATIO_CLAMP, provideDppoHostPass, type DppoKernelAttrs } from './dppoKernel.js';

/**
 * The fused DPPO kernel on `cpu` and `wasm` (issue #13; contract in `dppoKernel.ts`):
 * one pass over the tensors computes the mask, `rho`, the loss sum and the gradient.
 *
 * Binary-TV (`divergence` 0) with WebAssembly SIMD: the whole pass is `tv_loss_f32` of
 * `src/numeric/simd/simd.wat`, four tokens per step in float32 lanes, by chunks of
 * {@link SIMD_CHUNK}: `p`, `q` from a fast division-free exp (`fexp4`), the tv rule,
 * `rho = p / q`, the cap, the gradient (float32) and the loss (float64 accumulation).
 * On `wasm` it runs on tfjs-backend-wasm's heap in place (no copy of the tensors: the
 * module is instantiated a second time on that memory); on `cpu` the chunks are copied
 * into the module's own memory. Decisions stay exactly those of the float64 rule with
 * `Math.exp` (those of the array `dppoMask`): a token whose `dp` lies within a bound of
 * a threshold (or `|lp - lq|` near the clamp, or `rho` near the cap) is left "near" by
 * the WASM pass (gradient NaN as a marker) and decided here again in float64 by
 * {@link exactTerm}; the bound is many times the largest error of `fexp4` (checked over
 * every float32 input, see `simd.test.ts`). Values: `rho`, loss terms and gradient carry
 * float32 round-off (relative ~3e-7), the loss sum is float64.
 *
 * Binary-KL, or no WebAssembly SIMD: a JavaScript loop over the values, with `p`, `q`
 * from the exact `expInto` (bit-identical to `Math.exp`) and the rule of `dppoRules.ts`.
 * @internal
 */

const MIN_NORMAL = 2 ** -1022;
const RHO_HI = Math.exp(LOG_RATIO_CLAMP);
const RHO_LO = Math.exp(-LOG_RATIO_CLAMP);
const P_BUF = new Float64Array(SIMD_CHUNK);
const Q_BUF = new Float64Array(SIMD_CHUNK);

/** Per-call constants of the loss term. */
interface TermConsts {
  capOn: boolean;
  cap: number;
  truncate: boolean;
  negativeOnly: boolean;
}

function termConsts(attrs: DppoKernelAttrs): TermConsts {
  const capOn = attrs.ratioCap > 0;
  return { capOn, cap: attrs.ratioCap, truncate: capOn && attrs.capMode === 1, negativeOnly: attrs.capScope === 1 };
}

/** The gradient of the last {@link term} call (module scratch: the passes are synchronous). */
let termGrad = 0;

/**
 * The loss term of one kept token (SPEC §3, contract in `dppoKernel.ts`) in float64:
 * returns `wt * l_t`, leaves `wt * g_t` in {@link termGrad}. `p`, `q` are `exp(lp)`, `exp(lq)`.
 */
function term(lp: number, lq: number, p: number, q: number, a: number, wt: number, c: TermConsts): number {
  const lr = lp - lq;
  let rho: number;
  let inside = true;
  if (lr > LOG_RATIO_CLAMP) {
    rho = RHO_HI;
    inside = false;
  } else if (lr < -LOG_RATIO_CLAMP) {
    rho = RHO_LO;
    inside = false;
  } else rho = q >= MIN_NORMAL && p >= MIN_NORMAL ? p / q : Math.exp(lr);
  const over = c.capOn && (!c.negativeOnly || a < 0) && rho > c.cap;
  const r = over ? c.cap : rho;
  if (c.truncate) {
    termGrad = wt * (-a * r);
    return wt * (-a * r * lp);
  }
  termGrad = inside && !over ? wt * (-a * rho) : 0;
  return wt * (-a * r);
}

/**
 * One tv token `t` decided in float64 with `Math.exp` (a token the WASM pass left near a
 * threshold, or the odd tail): writes its gradient to `grad[gi]`, returns its loss term.
 */
function exactTerm(lpn: ArrayLike<number>, lpr: ArrayLike<number>, adv: ArrayLike<number>, w: ArrayLike<number>, wScale: number, t: number, lo: number, hi: number, c: TermConsts, grad: Float32Array, gi: number): number {
  const wt = w[t]! * wScale;
  const lp = lpn[t]!;
  const lq = lpr[t]!;
  const a = adv[t]!;
  const p = Math.exp(lp);
  const q = Math.exp(lq);
  if (wt === 0 || tvDrops(lp, lq, p, q, a > 0, lo, hi)) {
    grad[gi] = 0;
    return 0;
  }
  const l = term(lp, lq, p, q, a, wt, c);
  grad[gi] = termGrad;
  return l;
}

/**
 * The JavaScript pass (Binary-KL, or no WebAssembly SIMD): writes `grad` (length N) and
 * returns `sum_t wScale w_t keep_t l_t` (float64). @internal
 */
export function dppoHostPassJs(
  lpn: ArrayLike<number>,
  lpr: ArrayLike<number>,
  adv: ArrayLike<number>,
  w: ArrayLike<number>,
  attrs: DppoKernelAttrs,
  grad: Float32Array,
  wScale = 1,
): number {
  const drops = attrs.divergence === 1 ? DPPO_DROP_RULES.kl : DPPO_DROP_RULES.tv;
  const lo = attrs.deltaLow;
  const hi = attrs.deltaHigh;
  const c = termConsts(attrs);
  const n = lpn.length;
  let loss = 0;
  for (let s = 0; s < n; s += SIMD_CHUNK) {
    const e = Math.min(n, s + SIMD_CHUNK);
    expInto(lpn, P_BUF, s, e);
    expInto(lpr, Q_BUF, s, e);
    for (let t = s; t < e; t++) {
      const wt = w[t]! * wScale;
      const a = adv[t]!;
      const lp = lpn[t]!;
      const lq = lpr[t]!;
      const p = P_BUF[t - s]!;
      const q = Q_BUF[t - s]!;
      if (wt === 0 || drops(lp, lq, p, q, a > 0, lo, hi)) {
        grad[t] = 0;
        continue;
      }
      loss += term(lp, lq, p, q, a, wt, c);
      grad[t] = termGrad;
    }
  }
  return loss;
}

/** `opt` of `tv_loss_f32`: 1 cap on, 2 truncate, 4 cap only where A < 0. */
function optBits(c: TermConsts): number {
  return (c.capOn ? 1 : 0) | (c.truncate ? 2 : 0) | (c.negativeOnly ? 4 : 0);
}

/** The float32 thresholds handed to WASM (its bound covers their rounding). */
const f32 = Math.fround;

/**
 * The WASM tv pass over tokens `[0, n4)` (n4 a multiple of 4) by chunks; `run(s, e)` calls
 * `tv_loss_f32` on chunk `[s, e)` and returns `[loss, gradient view of the chunk]`; near tokens
 * (marked NaN) are decided again by {@link exactTerm}; then the tail `[n4, n)`.
 */
function tvChunks(
  m: SimdExports,
  lpn: ArrayLike<number>,
  lpr: ArrayLike<number>,
  adv: ArrayLike<number>,
  w: ArrayLike<number>,
  attrs: DppoKernelAttrs,
  wScale: number,
  grad: Float32Array,
  run: (s: number, e: number) => { loss: number; g: Float32Array },
): number {
  const n = lpn.length;
  const n4 = n - (n % 4);
  const c = termConsts(attrs);
  const lo = attrs.deltaLow;
  const hi = attrs.deltaHigh;
  let loss = 0;
  for (let s = 0; s < n4; s += SIMD_CHUNK) {
    const e = Math.min(n4, s + SIMD_CHUNK);
    const r = run(s, e);
    loss += r.loss;
    if (m.nearN.value > 0) {
      const g = r.g;
      for (let i = 0; i < e - s; i++) {
        const x = g[i]!;
        if (x !== x) {
          loss += exactTerm(lpn, lpr, adv, w, wScale, s + i, lo, hi, c, g, i);
        }
      }
    }
    if (r.g.buffer !== grad.buffer) grad.set(r.g.subarray(0, e - s), s); // the copy path
  }
  for (let t = n4; t < n; t++) loss += exactTerm(lpn, lpr, adv, w, wScale, t, lo, hi, c, grad, t);
  return loss;
}

/** Byte offsets of the copy buffers in the module's own memory (float32 chunks). */
const CB = SIMD_CHUNK * 4;
const C_LP = 0;
const C_LQ = CB;
const C_A = 2 * CB;
const C_W = 3 * CB;
const C_G = 4 * CB;
const C_SCRATCH = 5 * CB; // 2 CB

interface CopyViews {
  buf: ArrayBuffer;
  lp: Float32Array;
  lq: Float32Array;
  a: Float32Array;
  w: Float32Array;
  g: Float32Array;
}
let copyViews: CopyViews | null = null;
function copyViewsOf(m: SimdExports): CopyViews {
  const buf = m.memory.buffer;
  if (copyViews === null || copyViews.buf !== buf) {
    const v = (at: number) => new Float32Array(buf, at, SIMD_CHUNK);
    copyViews = { buf, lp: v(C_LP), lq: v(C_LQ), a: v(C_A), w: v(C_W), g: v(C_G) };
  }
  return copyViews;
}

function isTyped(x: ArrayLike<number>): x is Float32Array | Float64Array {
  return x instanceof Float32Array || x instanceof Float64Array;
}

/** The tv pass on the module's own memory: each chunk copied in, the gradient copied out. */
function tvPassCopy(m: SimdExports, lpn: Float32Array | Float64Array, lpr: Float32Array | Float64Array, adv: Float32Array | Float64Array, w: Float32Array | Float64Array, attrs: DppoKernelAttrs, grad: Float32Array, wScale: number): number {
  const v = copyViewsOf(m);
  const lo = f32(attrs.deltaLow);
  const hi = f32(attrs.deltaHigh);
  const cap = f32(attrs.ratioCap);
  const win = tvNearWindow(lo, hi);
  const opt = optBits(termConsts(attrs));
  return tvChunks(m, lpn, lpr, adv, w, attrs, wScale, grad, (s, e) => {
    v.lp.set(lpn.subarray(s, e));
    v.lq.set(lpr.subarray(s, e));
    v.a.set(adv.subarray(s, e));
    v.w.set(w.subarray(s, e));
    const loss = m.tv_loss_f32(C_LP, C_LQ, C_A, C_W, C_G, e - s, C_SCRATCH, lo, hi, win, cap, opt, wScale);
    return { loss, g: v.g };
  });
}

/** Scratch (two float32 chunks) per tfjs-backend-wasm heap, allocated once with its `_malloc`. */
const heapScratch = new WeakMap<object, number>();

interface WasmBackendLike {
  wasm: { _malloc(bytes: number): number; asm?: { memory?: WasmMemory }; wasmMemory?: WasmMemory; HEAPU8: Uint8Array };
}

/** tfjs-backend-wasm's memory, if this backend object exposes it. */
function heapMemory(b: unknown): WasmMemory | null {
  const w = (b as Partial<WasmBackendLike>).wasm;
  const mem = w?.asm?.memory ?? w?.wasmMemory;
  return mem !== undefined && mem.buffer === w!.HEAPU8.buffer ? mem : null;
}

/**
 * The tv pass in place on tfjs-backend-wasm's heap: the four inputs and the gradient are
 * views into `memory`; nothing is copied. `null` when the module cannot run there.
 */
function tvPassInPlace(b: unknown, lpn: Float32Array, lpr: Float32Array, adv: Float32Array, w: Float32Array, attrs: DppoKernelAttrs, grad: Float32Array, wScale: number): number | null {
  const mem = heapMemory(b);
  if (mem === null || simdModule() === null) return null;
  const m = simdModuleOn(mem);
  if (m === null) return null;
  let scratch = heapScratch.get(b as object);
  if (scratch === undefined) {
    scratch = (b as WasmBackendLike).wasm._malloc(2 * CB);
    heapScratch.set(b as object, scratch);
  }
  const lo = f32(attrs.deltaLow);
  const hi = f32(attrs.deltaHigh);
  const cap = f32(attrs.ratioCap);
  const win = tvNearWindow(lo, hi);
  const opt = optBits(termConsts(attrs));
  const sc = scratch;
  return tvChunks(m, lpn, lpr, adv, w, attrs, wScale, grad, (s, e) => {
    const loss = m.tv_loss_f32(lpn.byteOffset + 4 * s, lpr.byteOffset + 4 * s, adv.byteOffset + 4 * s, w.byteOffset + 4 * s, grad.byteOffset + 4 * s, e - s, sc, lo, hi, win, cap, opt, wScale);
    return { loss, g: grad.subarray(s, e) };
  });
}

/**
 * The host pass: writes `grad` (length N) and returns `sum_t wScale w_t keep_t l_t` (float64).
 * Binary-TV on typed arrays runs the WASM pass (module memory), else {@link dppoHostPassJs}.
 * @internal
 */
export function dppoHostPass(
  lpn: ArrayLike<number>,
  lpr: ArrayLike<number>,
  adv: ArrayLike<number>,
  w: ArrayLike<number>,
  attrs: DppoKernelAttrs,
  grad: Float32Array,
  wScale = 1,
): number {
  const m = attrs.divergence === 0 ? simdModule() : null;
  if (m !== null && isTyped(lpn) && isTyped(lpr) && isTyped(adv) && isTyped(w)) return tvPassCopy(m, lpn, lpr, adv, w, attrs, grad, wScale);
  return dppoHostPassJs(lpn, lpr, adv, w, attrs, grad, wScale);
}

/** The largest float32 not above `x` (so `f32 <= it` is exactly `f32 <= x` in float64). */
function f32Floor(x: number): number {
  const r = Math.fround(x);
  if (r <= x) return r;
  const b = new Float32Array([r]);
  const u = new Int32Array(b.buffer);
  u[0] = r > 0 ? u[0]! - 1 : u[0]! + 1;
  return b[0]!;
}

/** What {@link checkDppoInputsHost} found: `bad` 0 (all good), else 1 (a log-prob or advantage), 2 (the mask). */
export interface DppoInputCheck {
  bad: number;
  /** Mask values equal to 1. */
  ones: number;
}

/**
 * The float32 values of the four DPPO inputs on `cpu` (the backend's arrays, no copy) or
 * `wasm` (views into its heap), or `null` on another backend or dtype. Views into the
 * wasm heap are valid until the next tfjs allocation. @internal
 */
export function hostFloat32Views(tensors: readonly tf.Tensor[]): Float32Array[] | null {
  const name = tf.getBackend();
  if ((name !== 'cpu' && name !== 'wasm') || tensors.some((t) => t.dtype !== 'float32')) return null;
  const b = tf.backend() as unknown as KernelBackend;
  const out: Float32Array[] = [];
  for (const t of tensors) {
    const v = name === 'wasm' ? b.typedArrayFromHeap?.(t as unknown as tf.TensorInfo) : b.readSync((t as unknown as { dataId: unknown }).dataId);
    if (!(v instanceof Float32Array) || v.length !== t.size) return null;
    out.push(v);
  }
  return out;
}

/**
 * Validates the DPPO loss's inputs in one WebAssembly SIMD pass (`check_f32`): log-probs
 * finite and <= `tol`, advantages finite, mask values 0 or 1, and counts the mask's ones.
 * In place on the wasm heap, by copied chunks otherwise. `null` without WebAssembly SIMD
 * (the caller then checks in JavaScript). @internal
 */
export function checkDppoInputsHost(lpn: Float32Array, lpr: Float32Array, adv: Float32Array, lm: Float32Array, tol: number): DppoInputCheck | null {
  const own = simdModule();
  if (own === null) return null;
  const mem = heapMemory(tf.backend());
  const onHeap = mem !== null && lpn.buffer === mem.buffer;
  const m = onHeap ? simdModuleOn(mem) : own;
  if (m === null) return null;
  const tol32 = f32Floor(tol);
  m.bad.value = 0;
  m.ones.value = 0;
  const n = lpn.length;
  const n4 = n - (n % 4);
  if (onHeap) {
    m.check_f32(lpn.byteOffset, lpr.byteOffset, adv.byteOffset, lm.byteOffset, n4, tol32);
  } else {
    const v = copyViewsOf(m);
    for (let s = 0; s < n4; s += SIMD_CHUNK) {
      const e = Math.min(n4, s + SIMD_CHUNK);
      v.lp.set(lpn.subarray(s, e));
      v.lq.set(lpr.subarray(s, e));
      v.a.set(adv.subarray(s, e));
      v.w.set(lm.subarray(s, e));
      m.check_f32(C_LP, C_LQ, C_A, C_W, e - s, tol32);
    }
  }
  let bad = m.bad.value;
  let ones = m.ones.value;
  for (let t = n4; t < n; t++) {
    const x = lpn[t]!;
    const y = lpr[t]!;
    const z = adv[t]!;
    if (!(x <= tol && y <= tol && x - x === 0 && y - y === 0 && z - z === 0)) bad |= 1;
    if (lm[t] === 1) ones++;
    else if (lm[t] !== 0) bad |= 2;
  }
  return { bad, ones };
}

interface KernelBackend {
  readSync(dataId: unknown): ArrayLike<number>;
  makeTensorInfo?(shape: number[], dtype: string, values: Float32Array): tf.TensorInfo;
  makeOutput?(shape: number[], dtype: string): tf.TensorInfo;
  typedArrayFromHeap?(t: tf.TensorInfo): Float32Array;
}

function attrsOf(a: tf.NamedAttrMap): DppoKernelAttrs {
  return {
    divergence: a.divergence as 0 | 1,
    deltaLow: a.deltaLow as number,
    deltaHigh: a.deltaHigh as number,
    ratioCap: a.ratioCap as number,
    capMode: a.capMode as 0 | 1,
    capScope: a.capScope as 0 | 1,
    weightScale: (a.weightScale as number | undefined) ?? 1,
  };
}

/** The kernel function for `cpu` (values read in place) and `wasm` (views into its heap; the gradient is written in place). */
function dppoKernelFunc({ inputs, backend, attrs }: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo[] {
  const b = backend as KernelBackend;
  const { logpNew, logpRollout, advantages, weights } = inputs as Record<string, tf.TensorInfo>;
  const shape = logpNew!.shape.slice();
  const at = attrsOf(attrs ?? {});
  const ws = at.weightScale ?? 1;
  if (typeof b.typedArrayFromHeap === 'function' && typeof b.makeOutput === 'function') {
    // wasm: allocate the outputs first (an allocation may grow the heap and detach views)
    const gradOut = b.makeOutput(shape, 'float32');
    const lossOut = b.makeOutput([], 'float32');
    if (at.divergence === 0 && !heapScratch.has(b as object) && heapMemory(b) !== null && simdModule() !== null) {
      heapScratch.set(b as object, (b as unknown as WasmBackendLike).wasm._malloc(2 * CB)); // before the views, for the same reason
    }
    const view = (t: tf.TensorInfo): Float32Array => b.typedArrayFromHeap!(t);
    const [lp, lq, a, w, g] = [view(logpNew!), view(logpRollout!), view(advantages!), view(weights!), view(gradOut)];
    const loss = (at.divergence === 0 ? tvPassInPlace(b, lp, lq, a, w, at, g, ws) : null) ?? dppoHostPass(lp, lq, a, w, at, g, ws);
    view(lossOut)[0] = loss;
    return [lossOut, gradOut];
  }
  const n = logpNew!.shape.reduce((x, y) => x * y, 1);
  const grad = new Float32Array(n);
  const loss = dppoHostPass(b.readSync(logpNew!.dataId), b.readSync(logpRollout!.dataId), b.readSync(advantages!.dataId), b.readSync(weights!.dataId), at, grad, ws);
  return [b.makeTensorInfo!([], 'float32', Float32Array.of(loss)), b.makeTensorInfo!(shape, 'float32', grad)];
}

/** Registers {@link DPPO_KERNEL_NAME} for `cpu` and `wasm` (the wasm backend need not be loaded yet). */
function registerCpuKernels(): void {
  for (const backendName of ['cpu', 'wasm']) {
    if (tf.getKernel(DPPO_KERNEL_NAME, backendName) === undefined) {
      tf.registerKernel({ kernelName: DPPO_KERNEL_NAME, backendName, kernelFunc: dppoKernelFunc as unknown as tf.KernelFunc });
    }
  }
}

provideDppoHostPass(dppoHostPass, registerCpuKernels);
