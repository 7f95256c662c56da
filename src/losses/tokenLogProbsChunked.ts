import * as tf from '@tensorflow/tfjs';

/**
 * Fused log-softmax + gather, and entropy, over the vocabulary in chunks
 * (issue 13): an online log-sum-exp (Milakov & Gimelshein 2018, "Online
 * normalizer calculation for softmax") keeps, per row, the running maximum `M`
 * and `S = sum exp(x - M)`; each chunk of `C` logits rescales them:
 * ```
 * M' = max(M, max_c x)      S' = S exp(M - M') + sum_c exp(x - M')
 * logp[target] = x[target] - (M + ln S)
 * H = ln S - T / S,   T = sum exp(x - M)(x - M),   T' = exp(M - M')(T + (M - M') S) + sum_c exp(x - M')(x - M')
 * ```
 * so no `[N, V]` temporary exists: the forward allocates O(N C). Each is one
 * `tf.customGrad` op whose gradient is built chunk by chunk too:
 * `d logp / d x = onehot(target) - softmax(x)`, `d H / d x = -p (x - lse + H)`;
 * the gradient itself is `[N, V]`, as it must be (it is the gradient of the logits).
 * @internal
 * @module
 */

/** Default vocabulary chunk of {@link tokenLogProbs} / {@link tokenEntropy}. */
export const DEFAULT_VOCAB_CHUNK = 4096;

/**
 * `logits [..., V]` as float32 rows `[N, V]`. A reshape shares the data, but
 * tfjs' byte count (`tf.memory()`, `tf.profile`) counts it as new bytes: `[N, V]`
 * float32 logits are used as they are. Call inside `tf.tidy`.
 */
export function asRows(logits: tf.Tensor): tf.Tensor2D {
  const f = logits.dtype === 'float32' ? logits : tf.cast(logits, 'float32');
  if (f.rank === 2) return f as tf.Tensor2D;
  const V = f.shape[f.rank - 1]!;
  return tf.reshape(f, [f.size / Math.max(V, 1), V]);
}

/**
 * Columns `[c0, c0 + w)` of `x [N, V]`. On `cpu`, whose `Slice` of a strided
 * block goes element by element through index arithmetic (seconds per million
 * elements), the rows are copied from the backend's own array (a `dataSync` there
 * is no copy); elsewhere `tf.slice`. Call inside `tf.tidy`.
 */
function columns(x: tf.Tensor2D, c0: number, w: number): tf.Tensor2D {
  const [n, v] = x.shape;
  if (w === v) return x;
  if (tf.getBackend() !== 'cpu') return tf.slice(x, [0, c0], [n, w]);
  const src = x.dataSync() as Float32Array;
  const out = new Float32Array(n * w);
  for (let i = 0; i < n; i++) out.set(src.subarray(i * v + c0, i * v + c0 + w), i * w);
  return tf.tensor2d(out, [n, w]);
}

/** Running `(M, S[, T])` of the online log-sum-exp over the chunks of `x [N, V]`. Call inside `tf.tidy`. */
function onlineLse(x: tf.Tensor2D, chunk: number, withT: boolean): { m: tf.Tensor1D; s: tf.Tensor1D; t: tf.Tensor1D | null } {
  const [n, v] = x.shape;
  let m: tf.Tensor1D | null = null;
  let s: tf.Tensor1D | null = null;
  let t: tf.Tensor1D | null = null;
  for (let c0 = 0; c0 < v; c0 += chunk) {
    const w = Math.min(chunk, v - c0);
    const next = tf.tidy(() => {
      const xc = columns(x, c0, w);
      const mc = tf.max(xc, 1) as tf.Tensor1D;
      const mn = m === null ? mc : (tf.maximum(m, mc) as tf.Tensor1D);
      const z = tf.sub(xc, tf.expandDims(mn, 1));
      const e = tf.exp(z);
      let sn = tf.sum(e, 1) as tf.Tensor1D;
      let tn: tf.Tensor1D | null = withT ? (tf.sum(tf.mul(e, z), 1) as tf.Tensor1D) : null;
      if (m !== null) {
        const d = tf.sub(m, mn); // <= 0
        const r = tf.exp(d);
        if (tn !== null) tn = tf.add(tf.mul(r, tf.add(t!, tf.mul(d, s!))), tn) as tf.Tensor1D;
        sn = tf.add(tf.mul(s!, r), sn) as tf.Tensor1D;
      }
      return { m: mn, s: sn, t: tn ?? undefined };
    });
    m?.dispose();
    s?.dispose();
    t?.dispose();
    m = next.m;
    s = next.s;
    t = next.t ?? null;
  }
  return { m: m!, s: s!, t };
}

/** The chunks of `f(x[:, c0:c0+w], c0)`, concatenated along the vocabulary: `[N, V]`. */
function byChunk(x: tf.Tensor2D, chunk: number, f: (xc: tf.Tensor2D, c0: number, w: number) => tf.Tensor2D): tf.Tensor2D {
  const [n, v] = x.shape;
  if (v <= chunk) return tf.tidy(() => f(x, 0, v));
  const parts: tf.Tensor2D[] = [];
  for (let c0 = 0; c0 < v; c0 += chunk) {
    const w = Math.min(chunk, v - c0);
    parts.push(tf.tidy(() => f(columns(x, c0, w), c0, w)));
  }
  const out = tf.concat(parts, 1);
  for (const p of parts) p.dispose();
  return out;
}

/** The four `[N]` tensors as `[N, 1]` columns, to broadcast over a chunk `[N, w]`. */
function asColumns(...ts: [tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]): [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D, tf.Tensor2D] {
  const [a, b, c, d] = ts.map((t) => tf.expandDims(t, 1) as tf.Tensor2D);
  return [a!, b!, c!, d!];
}

/**
 * `log_softmax(x)[i, targets[i]]` for float32 `x [N, V]` and int32 `targets [N]`,
 * in chunks of `chunk` logits. Differentiable with respect to `x`.
 */
export function logProbsChunked(x: tf.Tensor2D, targets: tf.Tensor1D, chunk: number): tf.Tensor1D {
  const n = x.shape[0];
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    const { m, s } = onlineLse(xs, chunk, false);
    const logS = tf.log(s) as tf.Tensor1D;
    const idx = tf.stack([tf.range(0, n, 1, 'int32'), targets], 1);
    const picked = tf.gatherND(xs, idx) as tf.Tensor1D;
    save([xs, targets, m, logS]);
    return {
      // (x - M) - ln S, as logSoftmax rounds it: M + ln S would lose the low bits of ln S next to a large M
      value: tf.sub(tf.sub(picked, m), logS),
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
        const [sx, st, sm, sls] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D];
        const [dyc, mc, lc, tc] = asColumns(dy as tf.Tensor, sm, sls, st);
        // the one-hot of the chunk: all zeros on rows whose target lies in another chunk
        return byChunk(sx, chunk, (xc, c0, w) => {
          // (tf.oneHot needs a depth >= 2, and its wasm kernel ignores the float32 dtype)
          const hot = tf.cast(tf.equal(tc, tf.range(c0, c0 + w, 1, 'int32')), 'float32');
          return tf.mul(dyc, tf.sub(hot, tf.exp(tf.sub(tf.sub(xc, mc), lc))));
        });
      },
    };
  });
  return op(x) as tf.Tensor1D;
}

/** Entropy `-sum softmax(x) log_softmax(x)` per row of float32 `x [N, V]`, in chunks. Differentiable. */
export function entropyChunked(x: tf.Tensor2D, chunk: number): tf.Tensor1D {
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    const { m, s, t } = onlineLse(xs, chunk, true);
    const logS = tf.log(s);
    const h = tf.sub(logS, tf.div(t!, s)) as tf.Tensor1D;
    save([xs, m, logS, h]);
    return {
      value: h as tf.Tensor,
      gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[]) => {
        const [sx, sm, sls, sh] = saved as [tf.Tensor2D, tf.Tensor1D, tf.Tensor1D, tf.Tensor1D];
        const [dyc, mc, lc, hc] = asColumns(dy as tf.Tensor, sm, sls, sh);
        // dH/dx = -p (log p + H), log p = (x - M) - ln S
        return byChunk(sx, chunk, (xc) => {
          const logp = tf.sub(tf.sub(xc, mc), lc);
          return tf.mul(tf.neg(dyc), tf.mul(tf.exp(logp), tf.add(logp, hc)));
        });
      },
    };
  });
  return op(x) as tf.Tensor1D;
}
