import { SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import { simdModule, type SimdExports } from '../../numeric/simd/simdModule.js';

/**
 * The SIMD scratch of the fused log-softmax / entropy host kernels (issue 13): two chunks
 * of {@link SIMD_CHUNK} float32 values in the WebAssembly SIMD module's own memory, `z`
 * (a chunk of `x - shift`, copied in) and `e = exp z` (written by `fexp4` of
 * `src/numeric/simd/simd.wat`, relative error <= 2^-23.55 against `Math.exp`). The
 * forward (`logSoftmaxForward.ts`) and the backward (`logSoftmaxBackward.ts`) run their
 * rows through it, or fall back to a `Math.exp` loop when it is `null`.
 * @internal
 * @module
 */

/** Whether to use the fast float32 SIMD exp (tests turn it off to check the `Math.exp` path). */
let useSimdExp = true;
/** Turns the SIMD exp of these kernels off (`false`) or on; returns the previous setting. @internal */
export function setFusedSimdExp(on: boolean): boolean {
  const was = useSimdExp;
  useSimdExp = on;
  return was;
}

/** Byte offsets of the two scratch chunks (`z` in, `exp z` out) in the SIMD module's own memory. */
const Z_AT = 0;
const E_AT = SIMD_CHUNK * 4;

/** The SIMD module and float32 views of its two scratch chunks. @internal */
export interface Scratch {
  m: SimdExports;
  buf: ArrayBuffer;
  /** `z`: the chunk of `x - shift` (input of the exp). */
  z: Float32Array;
  /** `exp z` (output of the exp). */
  e: Float32Array;
}
let scratch: Scratch | null = null;
/** The module and float32 views of its scratch, or `null` (no SIMD, disabled, or no `fexp_f32`). @internal */
export function simdScratch(): Scratch | null {
  if (!useSimdExp) return null;
  const m = simdModule();
  if (m === null || typeof m.fexp_f32 !== 'function') return null;
  const buf = m.memory.buffer;
  if (scratch === null || scratch.m !== m || scratch.buf !== buf) {
    scratch = { m, buf, z: new Float32Array(buf, Z_AT, SIMD_CHUNK), e: new Float32Array(buf, E_AT, SIMD_CHUNK) };
  }
  return scratch;
}

/** `sc.e[k] = exp(sc.z[k])` for `k < w` with `fexp4`. @internal */
export function expChunk(sc: Scratch, w: number): void {
  sc.m.fexp_f32(Z_AT, E_AT, (w + 3) & ~3); // the padding lanes (stale values) are computed and ignored
}

/** `zb[k] = x[base + k] - shift` for `k < w`, unrolled by four (the float32 stores are the cost). @internal */
export function shiftInto(zb: Float32Array, x: Float32Array, base: number, w: number, shift: number): void {
  let k = 0;
  for (const w4 = w & ~3; k < w4; k += 4) {
    const j = base + k;
    zb[k] = x[j]! - shift;
    zb[k + 1] = x[j + 1]! - shift;
    zb[k + 2] = x[j + 2]! - shift;
    zb[k + 3] = x[j + 3]! - shift;
  }
  for (; k < w; k++) zb[k] = x[base + k]! - shift;
}
