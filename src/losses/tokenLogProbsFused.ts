import * as tf from '@tensorflow/tfjs';
import { SIMD_CHUNK } from '../numeric/simd/expInto.js';
import { simdModule, type SimdExports } from '../numeric/simd/simdModule.js';

/**
 * Fused log-softmax + gather, and entropy, as host kernels for the `cpu` and `wasm`
 * backends (issue 13): one pass per row over tfjs' own float32 array of the logits
 * (`cpu`: the backend's array, read in place; `wasm`: a view into its heap), no tfjs
 * op per chunk. Per row `x` of `[N, V]`:
 * ```
 * M = max_v x_v      S = sum_v exp(x_v - M)      T = sum_v exp(x_v - M)(x_v - M)
 * logp = (x[target] - M) - ln S                    (tokenLogProbs)
 * H    = ln S - T / S                              (tokenEntropy)
 * ```
 * With SIMD the row is read once: chunk by chunk of {@link SIMD_CHUNK} (hot in L1), the
 * chunk's maximum, then `S` and `T` rescaled whenever the running maximum rises (the
 * online normalizer of Milakov & Gimelshein 2018, as the chunked tfjs path does).
 * `(M, ln S)` are kept as a `[N, 2]` float32 "stats" tensor for the backward, which is
 * one more pass per row writing the `[N, V]` gradient (a new float32 tensor):
 * ```
 * z = (x - M) - ln S  (= log p),  p = exp(z)
 * d logp / d x = dy (onehot(target) - p)        d H / d x = -dy p (z + H)
 * ```
 * Beyond the logits and the gradient, the kernels hold O(N) tensor bytes and one
 * chunk of {@link SIMD_CHUNK} float32 values of scratch (the SIMD module's memory).
 *
 * The exponentials: with WebAssembly SIMD, `fexp4` of `src/numeric/simd/simd.wat`
 * (float32 lanes, relative error <= 2^-23.55 against `Math.exp`, i.e. below the float32
 * rounding tfjs' own `exp` output carries) on chunks of `x - M` copied into the module's
 * memory; the sums are float64. Without SIMD, a `Math.exp` loop (the exact `expInto` would
 * not help: its fdlibm port runs at about `Math.exp`'s speed; measured on the 2-core dev
 * machine, one pass costs ~6 ns per logit with `fexp4` against ~16 ns with `Math.exp`).
 * Differences against
 * tfjs' `logSoftmax` are float32 round-off (the tests compare both paths, and finite
 * differences).
 *
 * A target outside `[0, V)` (possible only with `validate: false`) gives `NaN` and no
 * one-hot term. A row of `-Infinity` gives `NaN`, as `tf.logSoftmax` does.
 * @internal
 * @module
 */

/** Kernel names (registered for `cpu` and `wasm` on first use). */
export const LOGPROBS_KERNEL = 'FrognanoLogProbs';
export const LOGPROBS_GRAD_KERNEL = 'FrognanoLogProbsGrad';
export const ENTROPY_KERNEL = 'FrognanoEntropy';
export const ENTROPY_GRAD_KERNEL = 'FrognanoEntropyGrad';

/** The methods of a tfjs backend the kernels use (`cpu`: `readSync`, `makeTensorInfo`; `wasm`: `makeOutput`, `typedArrayFromHeap`). */
interface HostBackend {
  readSync(dataId: unknown): ArrayLike<number>;
  makeTensorInfo?(shape: number[], dtype: string, values: Float32Array): tf.TensorInfo;
  makeOutput?(shape: number[], dtype: string): tf.TensorInfo;
  typedArrayFromHeap?(t: tf.TensorInfo): ArrayLike<number>;
}

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

interface Scratch {
  m: SimdExports;
  buf: ArrayBuffer;
  z: Float32Array;
  e: Float32Array;
}
let scratch: Scratch | null = null;
/** The module and float32 views of its scratch, or `null` (no SIMD, disabled, or no `fexp_f32`). */
function simdScratch(): Scratch | null {
  if (!useSimdExp) return null;
  const m = simdModule();
  if (m === null || typeof m.fexp_f32 !== 'function') return null;
  const buf = m.memory.buffer;
  if (scratch === null || scratch.m !== m || scratch.buf !== buf) {
    scratch = { m, buf, z: new Float32Array(buf, Z_AT, SIMD_CHUNK), e: new Float32Array(buf, E_AT, SIMD_CHUNK) };
  }
  return scratch;
}

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
    const { m, z: zb, e: eb } = sc;
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
      m.fexp_f32(Z_AT, E_AT, (w + 3) & ~3); // the padding lanes (stale values) are computed and ignored
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

/** `zb[k] = x[base + k] - shift` for `k < w`, unrolled by four (the float32 stores are the cost). */
function shiftInto(zb: Float32Array, x: Float32Array, base: number, w: number, shift: number): void {
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
 * entropy) and `stats[2i] = M`, `stats[2i + 1] = ln S`. @internal
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

/**
 * Backward over `x [N, V]`: `g[i, v] = dy_i (onehot(targets_i)_v - p_iv)` with `targets`, else
 * (entropy, `h` the forward's values) `g[i, v] = -dy_i p_iv (log p_iv + h_i)`, where
 * `log p = (x - M) - ln S` from `stats`. Writes every element of `g`. @internal
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
      const { m, z: zb, e: eb } = sc;
      for (let c0 = 0; c0 < V; c0 += SIMD_CHUNK) {
        const w = Math.min(SIMD_CHUNK, V - c0);
        const base = off + c0;
        shiftInto(zb, x, base, w, M + logS); // float64: M + ln S exact but for ~1e-12 next to |M| ~ 1e4
        m.fexp_f32(Z_AT, E_AT, (w + 3) & ~3);
        if (h === null) {
          let k = 0;
          for (const w4 = w & ~3; k < w4; k += 4) {
            const j = base + k;
            g[j] = nd * eb[k]!;
            g[j + 1] = nd * eb[k + 1]!;
            g[j + 2] = nd * eb[k + 2]!;
            g[j + 3] = nd * eb[k + 3]!;
          }
          for (; k < w; k++) g[base + k] = nd * eb[k]!;
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

// ---- tfjs kernels ------------------------------------------------------------------------

type KernelArgs = { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap };

/** Values of `t` on the backend: the cpu array or a view into the wasm heap (no copy). */
function valuesOf(b: HostBackend, t: tf.TensorInfo): ArrayLike<number> {
  return typeof b.typedArrayFromHeap === 'function' ? b.typedArrayFromHeap(t) : b.readSync(t.dataId);
}

/** `v` as a Float32Array (the logits always are one: the inputs are float32 tensors). */
function float32(v: ArrayLike<number>): Float32Array {
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

/**
 * Runs `body` on writable arrays of new float32 outputs of `shapes` and returns the outputs.
 * `wasm`: outputs allocated in its heap first, and `body` takes its input views after that
 * (an allocation may grow the heap and detach earlier views); `cpu`: new arrays, handed to
 * the backend as they are (no copy).
 */
function withOutputs(b: HostBackend, shapes: number[][], body: (arrays: Float32Array[]) => void): tf.TensorInfo[] {
  if (typeof b.makeOutput === 'function' && typeof b.typedArrayFromHeap === 'function') {
    const infos = shapes.map((s) => b.makeOutput!(s, 'float32'));
    body(infos.map((t) => b.typedArrayFromHeap!(t) as Float32Array));
    return infos;
  }
  const arrays = shapes.map((s) => new Float32Array(s.reduce((a, c) => a * c, 1)));
  body(arrays);
  return shapes.map((s, k) => b.makeTensorInfo!(s, 'float32', arrays[k]!));
}

function forwardKernel(entropy: boolean) {
  return ({ inputs, backend }: KernelArgs): tf.TensorInfo[] => {
    const b = backend as HostBackend;
    const logits = inputs.logits as tf.TensorInfo;
    const [N, V] = logits.shape as [number, number];
    return withOutputs(b, [[N], [N, 2]], ([out, stats]) => {
      const x = float32(valuesOf(b, logits));
      const t = entropy ? null : valuesOf(b, inputs.targets as tf.TensorInfo);
      lseForwardHost(x, N, V, t, out!, stats!);
    });
  };
}

function backwardKernel(entropy: boolean) {
  return ({ inputs, backend }: KernelArgs): tf.TensorInfo[] => {
    const b = backend as HostBackend;
    const logits = inputs.logits as tf.TensorInfo;
    const [N, V] = logits.shape as [number, number];
    return withOutputs(b, [[N, V]], ([g]) => {
      const x = float32(valuesOf(b, logits));
      const stats = valuesOf(b, inputs.stats as tf.TensorInfo);
      const dy = valuesOf(b, inputs.dy as tf.TensorInfo);
      const t = entropy ? null : valuesOf(b, inputs.targets as tf.TensorInfo);
      const h = entropy ? valuesOf(b, inputs.h as tf.TensorInfo) : null;
      lseBackwardHost(x, N, V, stats, dy, t, h, g!);
    });
  };
}

const HOST_BACKENDS = ['cpu', 'wasm'] as const;
let registered = false;
function ensureKernels(): void {
  if (registered) return;
  registered = true;
  const kernels: Array<[string, (a: KernelArgs) => tf.TensorInfo[]]> = [
    [LOGPROBS_KERNEL, forwardKernel(false)],
    [ENTROPY_KERNEL, forwardKernel(true)],
    [LOGPROBS_GRAD_KERNEL, backwardKernel(false)],
    [ENTROPY_GRAD_KERNEL, backwardKernel(true)],
  ];
  for (const backendName of HOST_BACKENDS) {
    for (const [kernelName, f] of kernels) {
      if (tf.getKernel(kernelName, backendName) === undefined) {
        tf.registerKernel({ kernelName, backendName, kernelFunc: f as unknown as tf.KernelFunc });
      }
    }
  }
}

/** Whether the active backend runs the fused host kernels (`cpu`, `wasm`). @internal */
export function hasFusedLogSoftmax(backend: string = tf.getBackend()): boolean {
  if (!(HOST_BACKENDS as readonly string[]).includes(backend)) return false;
  ensureKernels();
  return tf.getKernel(LOGPROBS_KERNEL, backend) !== undefined;
}

function run(name: string, inputs: Record<string, tf.Tensor>): tf.Tensor[] {
  const out = tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, {});
  return Array.isArray(out) ? (out as tf.Tensor[]) : [out as tf.Tensor];
}

/**
 * `log_softmax(x)[i, targets[i]]` for float32 `x [N, V]` and int32 `targets [N]` with the
 * host kernels; differentiable with respect to `x`. Needs {@link hasFusedLogSoftmax}. @internal
 */
export function logProbsFused(x: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D {
  ensureKernels();
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    const [lp, stats] = run(LOGPROBS_KERNEL, { logits: xs, targets });
    save([xs, targets, stats!]);
    return {
      value: lp!,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
        const [sx, st, ss] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor2D];
        return run(LOGPROBS_GRAD_KERNEL, { logits: sx, targets: st, stats: ss, dy: dy as tf.Tensor })[0]!;
      },
    };
  });
  return op(x) as tf.Tensor1D;
}

/** Entropy per row of float32 `x [N, V]` with the host kernels; differentiable. Needs {@link hasFusedLogSoftmax}. @internal */
export function entropyFused(x: tf.Tensor2D): tf.Tensor1D {
  ensureKernels();
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    const [h, stats] = run(ENTROPY_KERNEL, { logits: xs });
    save([xs, stats!, h!]);
    return {
      value: h!,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
        const [sx, ss, sh] = saved as [tf.Tensor2D, tf.Tensor2D, tf.Tensor1D];
        return run(ENTROPY_GRAD_KERNEL, { logits: sx, stats: ss, h: sh, dy: dy as tf.Tensor })[0]!;
      },
    };
  });
  return op(x) as tf.Tensor1D;
}
