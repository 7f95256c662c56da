import { SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import { expChunk, shiftInto, simdScratch, type Scratch } from './logSoftmaxScratch.js';

/**
 * The forward row pass of the fused log-softmax + gather and entropy host kernels
 * (issue 13; overview in `../tokenLogProbsFused.ts`). Per row `x` of `[N, V]`:
 * ```
 * M = max_v x_v      S = sum_v exp(x_v - M)      T = sum_v exp(x_v - M)(x_v - M)
 * logp = (x[target] - M) - ln S                    (tokenLogProbs)
 * H    = ln S - T / S                              (tokenEntropy)
 * ```
 * With SIMD the row is read once: chunk by chunk of {@link SIMD_CHUNK} (hot in L1), the
 * chunk's maximum, then `S` and `T` rescaled whenever the running maximum rises (the
 * online normalizer of Milakov & Gimelshein 2018, as the chunked tfjs path does); the
 * sums are float64. Without SIMD, two passes (the maximum, then `Math.exp`).
 * @internal
 * @module
 */

// Results of rowSums (no object per row).
let rowM = 0;
let rowS = 0;
let rowT = 0;

/**
 * `M = max x`, `S = sum exp(x - M)` (and `T = sum exp(x - M)(x - M)` if `withT`) over
 * `x[off, off + V)`, into `rowM` / `rowS` / `rowT`, float64 accumulation. With SIMD, one
 * read of the row: chunk by chunk (each hot in L1), the chunk's maximum, then `S`, `T`
 * rescaled when it rises (`S' = S e^(M - M')`, `T' = e^(M - M')(T + (M - M') S)`); without,
 * two passes (the maximum, then `Math.exp`).
 */
function rowSums(x: Float32Array, off: number, V: number, withT: boolean, sc: Scratch | null): void {
  let M = -Infinity;
  let S = 0;
  let T = 0;
  if (sc === null) {
    M = rowMax(x, off, V);
    for (let j = off, end = off + V; j < end; j++) {
      const z = x[j]! - M;
      const e = Math.exp(z);
      S += e;
      if (withT) T += e * z;
    }
  } else {
    const { z: zb, e: eb } = sc;
    for (let c0 = 0; c0 < V; c0 += SIMD_CHUNK) {
      const w = Math.min(SIMD_CHUNK, V - c0);
      const base = off + c0;
      const cm = rowMax(x, base, w);
      if (cm > M) {
        if (M !== -Infinity) {
          const d = M - cm;
          const r = Math.exp(d);
          T = r * (T + d * S);
          S *= r;
        }
        M = cm;
      }
      shiftInto(zb, x, base, w, M);
      expChunk(sc, w);
      if (withT) {
        for (let k = 0; k < w; k++) {
          const e = eb[k]!;
          S += e;
          T += e * zb[k]!;
        }
      } else {
        S += sumOf(eb, w);
      }
    }
  }
  rowM = M;
  rowS = S;
  rowT = T;
}

/** `max x[off, off + V)` (NaN ignored), four running maxima (about 1.5x a one-accumulator loop in V8). */
function rowMax(x: Float32Array, off: number, V: number): number {
  let m0 = -Infinity;
  let m1 = -Infinity;
  let m2 = -Infinity;
  let m3 = -Infinity;
  let j = off;
  const end = off + V;
  for (const end4 = off + (V & ~3); j < end4; j += 4) {
    const a = x[j]!;
    const b = x[j + 1]!;
    const c = x[j + 2]!;
    const d = x[j + 3]!;
    if (a > m0) m0 = a;
    if (b > m1) m1 = b;
    if (c > m2) m2 = c;
    if (d > m3) m3 = d;
  }
  for (; j < end; j++) if (x[j]! > m0) m0 = x[j]!;
  return Math.max(m0, m1, m2, m3);
}

/** `sum eb[0, w)` in float64, four partial sums. */
function sumOf(eb: Float32Array, w: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (const w4 = w & ~3; k < w4; k += 4) {
    s0 += eb[k]!;
    s1 += eb[k + 1]!;
    s2 += eb[k + 2]!;
    s3 += eb[k + 3]!;
  }
  for (; k < w; k++) s0 += eb[k]!;
  return s0 + s1 + s2 + s3;
}

/**
 * Forward over `x [N, V]` (row-major): writes `out[i]` (`logp` with `targets`, else the
 * entropy) and `stats[2i] = M`, `stats[2i + 1] = ln S`. A target outside `[0, V)` gives
 * `NaN`. @internal
 */
export function lseForwardHost(
  x: Float32Array,
  N: number,
  V: number,
  targets: ArrayLike<number> | null,
  out: Float32Array,
  stats: Float32Array,
): void {
  const sc = simdScratch();
  const entropy = targets === null;
  for (let i = 0; i < N; i++) {
    const off = i * V;
    rowSums(x, off, V, entropy, sc);
    const M = rowM;
    const logS = Math.log(rowS);
    stats[2 * i] = M;
    stats[2 * i + 1] = logS;
    if (entropy) {
      out[i] = logS - rowT / rowS;
    } else {
      const t = targets[i]!;
      // (x - M) - ln S, as logSoftmax rounds it: M + ln S would lose the low bits of ln S next to a large M
      out[i] = t >= 0 && t < V && Number.isInteger(t) ? x[off + t]! - M - logS : NaN;
    }
  }
}
