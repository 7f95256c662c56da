import { SIMD_CHUNK, tvNearWindow } from '../../numeric/simd/expInto.js';
import { simdModule, simdModuleOn, type SimdExports } from '../../numeric/simd/simdModule.js';
import type { DppoKernelAttrs } from './dppoKernel.js';
import { exactTerm, termConsts, type TermConsts } from './dppoKernelFloat64.js';
import { C_A, C_G, C_LP, C_LQ, C_SCRATCH, C_W, copyViewsOf, heapMemory, heapScratchOf, type WasmBackendLike } from './dppoHostViews.js';

/**
 * The Binary-TV pass of the cpu/wasm DPPO kernel in WebAssembly SIMD (issue #13; contract
 * in `dppoKernel.ts`): `tv_loss_f32` of `src/numeric/simd/simd.wat` over chunks of
 * {@link SIMD_CHUNK} tokens, four per step in float32 lanes (`p`, `q` from the
 * division-free `fexp4`, the tv rule, `rho = p / q`, the cap, the gradient in float32 and
 * the loss in float64). Two ways to feed it: in place on tfjs-backend-wasm's heap
 * ({@link tvPassInPlace}, no copy), or chunks copied into the module's own memory
 * ({@link tvPassCopy}). Tokens the pass lists as near a threshold (one pass, `p` and `q` computed in
 * the rule loop) and the
 * tail of fewer than 4 tokens are decided in float64 by `exactTerm` (`dppoKernelFloat64.ts`).
 * @internal
 */

/** `opt` of `tv_loss_f32`: 1 cap on, 2 truncate, 4 cap only where A < 0. */
function optBits(c: TermConsts): number {
  return (c.capOn ? 1 : 0) | (c.truncate ? 2 : 0) | (c.negativeOnly ? 4 : 0);
}

/** The float32 thresholds handed to WASM (its bound covers their rounding). */
const f32 = Math.fround;

/**
 * The WASM tv pass over tokens `[0, n4)` (n4 a multiple of 4) by chunks; `run(s, e)` calls
 * `tv_loss_f32` on chunk `[s, e)` and returns `[loss, gradient view of the chunk, near list]`;
 * the near tokens (their indices in the list, `m.nearN` of them) are decided again by
 * `exactTerm`; then the tail `[n4, n)`.
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
  run: (s: number, e: number) => { loss: number; g: Float32Array; near: Int32Array },
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
    const nearN = m.nearN.value;
    for (let k = 0; k < nearN; k++) {
      const i = r.near[k]!;
      loss += exactTerm(lpn, lpr, adv, w, wScale, s + i, lo, hi, c, r.g, i);
    }
    if (r.g.buffer !== grad.buffer) grad.set(r.g.subarray(0, e - s), s); // the copy path
  }
  for (let t = n4; t < n; t++) loss += exactTerm(lpn, lpr, adv, w, wScale, t, lo, hi, c, grad, t);
  return loss;
}

/** The arguments of `tv_loss_f32` that come from the attributes (float32 thresholds and cap, the near window, `opt`). */
function tvArgs(attrs: DppoKernelAttrs): { lo: number; hi: number; cap: number; win: number; opt: number; wScale: number } {
  const lo = f32(attrs.deltaLow);
  const hi = f32(attrs.deltaHigh);
  return { lo, hi, cap: f32(attrs.ratioCap), win: tvNearWindow(lo, hi), opt: optBits(termConsts(attrs)), wScale: attrs.weightScale ?? 1 };
}

/** The tv pass on the module's own memory: each chunk copied in, the gradient copied out. @internal */
export function tvPassCopy(m: SimdExports, lpn: Float32Array | Float64Array, lpr: Float32Array | Float64Array, adv: Float32Array | Float64Array, w: Float32Array | Float64Array, attrs: DppoKernelAttrs, grad: Float32Array): number {
  const v = copyViewsOf(m);
  const { lo, hi, cap, win, opt, wScale } = tvArgs(attrs);
  return tvChunks(m, lpn, lpr, adv, w, attrs, wScale, grad, (s, e) => {
    v.lp.set(lpn.subarray(s, e));
    v.lq.set(lpr.subarray(s, e));
    v.a.set(adv.subarray(s, e));
    v.w.set(w.subarray(s, e));
    const loss = m.tv_loss_f32(C_LP, C_LQ, C_A, C_W, C_G, e - s, C_SCRATCH, lo, hi, win, cap, opt, wScale);
    return { loss, g: v.g, near: v.near };
  });
}

/**
 * The tv pass in place on tfjs-backend-wasm's heap: the four inputs and the gradient are
 * views into `memory`; nothing is copied. `null` when the module cannot run there. @internal
 */
export function tvPassInPlace(b: WasmBackendLike, lpn: Float32Array, lpr: Float32Array, adv: Float32Array, w: Float32Array, attrs: DppoKernelAttrs, grad: Float32Array): number | null {
  const mem = heapMemory(b);
  if (mem === null || simdModule() === null) return null;
  const m = simdModuleOn(mem);
  if (m === null) return null;
  const sc = heapScratchOf(b);
  const near = new Int32Array(mem.buffer, sc, SIMD_CHUNK); // the near list (no allocation below: the view stays valid)
  const { lo, hi, cap, win, opt, wScale } = tvArgs(attrs);
  return tvChunks(m, lpn, lpr, adv, w, attrs, wScale, grad, (s, e) => {
    const loss = m.tv_loss_f32(lpn.byteOffset + 4 * s, lpr.byteOffset + 4 * s, adv.byteOffset + 4 * s, w.byteOffset + 4 * s, grad.byteOffset + 4 * s, e - s, sc, lo, hi, win, cap, opt, wScale);
    return { loss, g: grad.subarray(s, e), near };
  });
}
