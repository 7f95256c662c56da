import { simdModule } from './simdModule.js';
import { viewCache } from './viewCache.js';

/** Elements per call into the WASM module (32 KB of float64 in, 32 KB out: stays in L1/L2). @internal */
export const SIMD_CHUNK = 4096;
const IN = 0;
const OUT = (SIMD_CHUNK + 2) * 8;

/** The chunk buffers of {@link expInto} and {@link logInto} in the module's own memory. */
const viewsOf = viewCache((buf) => ({
  in64: new Float64Array(buf, IN, SIMD_CHUNK + 2),
  in32: new Float32Array(buf, IN, SIMD_CHUNK + 4),
  out: new Float64Array(buf, OUT, SIMD_CHUNK + 2),
}));

/**
 * `dst[dstOffset + i] = exp(src[start + i])` for `i < end - start`, bit-identical to
 * `Math.exp` (the WASM SIMD kernel is a lane-wise port of fdlibm's `exp`, which V8's
 * `Math.exp` runs; a test checks every bit over wide ranges and the edge values).
 * Float32 inputs are promoted exactly to float64 first. Uses WebAssembly SIMD where
 * the runtime has it (2 lanes of float64, ~4x the speed of a `Math.exp` loop), else
 * a plain `Math.exp` loop; plain arrays always take the loop.
 *
 * @param src - the exponents (`Float64Array`, `Float32Array` or any array of numbers)
 * @param dst - where the results go; must hold `dstOffset + (end - start)` elements
 * @example const p = new Float64Array(lp.length); expInto(lp, p);
 */
export function expInto(src: ArrayLike<number>, dst: Float64Array, start = 0, end = src.length, dstOffset = 0): void {
  const m = simdModule();
  if (m === null || !(src instanceof Float64Array || src instanceof Float32Array)) {
    expIntoJs(src, dst, start, end, dstOffset);
    return;
  }
  const v = viewsOf(m);
  const f64 = src instanceof Float64Array;
  for (let s = start; s < end; s += SIMD_CHUNK) {
    const e = Math.min(end, s + SIMD_CHUNK);
    const n = e - s;
    if (f64) {
      v.in64.set((src as Float64Array).subarray(s, e));
      m.exp_f64(IN, OUT, n);
    } else {
      v.in32.set((src as Float32Array).subarray(s, e));
      m.exp_f32(IN, OUT, n);
    }
    dst.set(n === SIMD_CHUNK ? v.out.subarray(0, SIMD_CHUNK) : v.out.subarray(0, n), dstOffset + (s - start));
  }
}

/** The pure-JS path of {@link expInto} (`Math.exp` per element). @internal */
export function expIntoJs(src: ArrayLike<number>, dst: Float64Array, start = 0, end = src.length, dstOffset = 0): void {
  for (let i = start, j = dstOffset; i < end; i++, j++) dst[j] = Math.exp(src[i]!);
}

/**
 * `dst[dstOffset + i] = ln(src[start + i])` for `i < end - start`, bit-identical to
 * `Math.log` (a lane-wise port of fdlibm's `log`, which V8's `Math.log` runs): `-Infinity`
 * for ±0, `NaN` below 0 and for NaN, `Infinity` for `Infinity`. WebAssembly SIMD for a
 * `Float64Array` source where the runtime has it, else a `Math.log` loop.
 *
 * @param src - the arguments (`Float64Array`, or any array of numbers)
 * @param dst - where the results go; must hold `dstOffset + (end - start)` elements
 * @example const lnR = new Float64Array(r.length); logInto(r, lnR);
 */
export function logInto(src: ArrayLike<number>, dst: Float64Array, start = 0, end = src.length, dstOffset = 0): void {
  const m = simdModule();
  if (m === null || !(src instanceof Float64Array)) {
    logIntoJs(src, dst, start, end, dstOffset);
    return;
  }
  const v = viewsOf(m);
  for (let s = start; s < end; s += SIMD_CHUNK) {
    const e = Math.min(end, s + SIMD_CHUNK);
    const n = e - s;
    v.in64.set(src.subarray(s, e));
    m.log_f64(IN, OUT, n);
    dst.set(v.out.subarray(0, n), dstOffset + (s - start));
  }
}

/** The pure-JS path of {@link logInto} (`Math.log` per element). @internal */
export function logIntoJs(src: ArrayLike<number>, dst: Float64Array, start = 0, end = src.length, dstOffset = 0): void {
  for (let i = start, j = dstOffset; i < end; i++, j++) dst[j] = Math.log(src[i]!);
}

/**
 * The half-width of the band around a DPPO tv threshold inside which the WASM passes
 * (`tv_mask_f64`, `tv_loss_f32` of `simd.wat`) leave a token undecided ("near"), for the
 * caller to decide in float64 with `Math.exp`: `2^-18 (2 e^1e-4 + max(lo, hi)) + 2^-22`.
 *
 * Why it is safe, for log-probs <= 1e-4 (so p, q <= e^1e-4): the pass computes
 * `d = fl32(fl32(p' - q') - thr32)` with `p' = fexp4(lp)`, whose relative error against
 * `Math.exp` is at most 2^-23.55 over every float32 input (checked exhaustively, see
 * `simd.test.ts`); float32 rounding of `p' - q'`, of the threshold and of `d` adds at most
 * 2^-24 of each; for float64 inputs, rounding `lp` to float32 moves `e^lp` by at most
 * `2^-24 |lp| e^lp <= 2^-24 / e` absolute. In all, `|d - ((p - q) - thr)_float64|` is below
 * `2^-22.7 (p + q) + 2^-24 thr + 2^-23.4`, under an eighth of this band, so outside the
 * band the sign of `d`, hence the decision, is that of the float64 rule. @internal
 */
export function tvNearWindow(lo: number, hi: number): number {
  return Math.fround(2 ** -18 * (2 * Math.exp(1e-4) + Math.max(lo, hi)) + 2 ** -22);
}
