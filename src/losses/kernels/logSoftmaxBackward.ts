import { SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import { expChunk, shiftInto, simdScratch } from './logSoftmaxScratch.js';

/**
 * The backward row pass of the fused log-softmax + gather and entropy host kernels
 * (issue 13; overview in `../tokenLogProbsFused.ts`): one pass per row of `x [N, V]`
 * from the forward's stats `(M, ln S)`, writing the `[N, V]` gradient:
 * ```
 * z = (x - M) - ln S  (= log p),  p = exp(z)
 * d logp / d x = dy (onehot(target) - p)        d H / d x = -dy p (z + H)
 * ```
 * `exp` is `fexp4` on chunks of {@link SIMD_CHUNK} in the SIMD module's scratch, or a
 * `Math.exp` loop without SIMD.
 * @internal
 * @module
 */

/** `g[base + k] = nd * eb[k]` for `k < w`, unrolled by four. */
function scaleInto(g: Float32Array, base: number, eb: Float32Array, w: number, nd: number): void {
  let k = 0;
  for (const w4 = w & ~3; k < w4; k += 4) {
    const j = base + k;
    g[j] = nd * eb[k]!;
    g[j + 1] = nd * eb[k + 1]!;
    g[j + 2] = nd * eb[k + 2]!;
    g[j + 3] = nd * eb[k + 3]!;
  }
  for (; k < w; k++) g[base + k] = nd * eb[k]!;
}

/**
 * Backward over `x [N, V]`: `g[i, v] = dy_i (onehot(targets_i)_v - p_iv)` with `targets`, else
 * (entropy, `h` the forward's values) `g[i, v] = -dy_i p_iv (log p_iv + h_i)`, where
 * `log p = (x - M) - ln S` from `stats`. Writes every element of `g`; a target outside
 * `[0, V)` gets no one-hot term. @internal
 */
export function lseBackwardHost(
  x: Float32Array,
  N: number,
  V: number,
  stats: ArrayLike<number>,
  dy: ArrayLike<number>,
  targets: ArrayLike<number> | null,
  h: ArrayLike<number> | null,
  g: Float32Array,
): void {
  const sc = simdScratch();
  for (let i = 0; i < N; i++) {
    const off = i * V;
    const d = dy[i]!;
    if (d === 0) {
      g.fill(0, off, off + V);
      continue;
    }
    const M = stats[2 * i]!;
    const logS = stats[2 * i + 1]!;
    const hi = h === null ? 0 : h[i]!;
    const nd = -d;
    if (sc === null) {
      for (let j = off, end = off + V; j < end; j++) {
        const z = x[j]! - M - logS;
        const p = Math.exp(z);
        g[j] = h === null ? nd * p : nd * p * (z + hi);
      }
    } else {
      const { z: zb, e: eb } = sc;
      for (let c0 = 0; c0 < V; c0 += SIMD_CHUNK) {
        const w = Math.min(SIMD_CHUNK, V - c0);
        const base = off + c0;
        shiftInto(zb, x, base, w, M + logS); // float64: M + ln S exact but for ~1e-12 next to |M| ~ 1e4
        expChunk(sc, w);
        if (h === null) {
          scaleInto(g, base, eb, w, nd);
        } else {
          for (let k = 0; k < w; k++) g[base + k] = nd * eb[k]! * (zb[k]! + hi);
        }
      }
    }
    if (targets !== null) {
      const t = targets[i]!;
      if (t >= 0 && t < V && Number.isInteger(t)) g[off + t] = d * (1 - (g[off + t]! / nd));
    }
  }
}
