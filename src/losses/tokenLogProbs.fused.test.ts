import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { read } from '../../test/helpers/tensors.js';
import { numericGradientAsync } from './numericGradient.js';
import { tokenEntropy, tokenEntropyDense } from './tokenEntropy.js';
import { tokenLogProbs, tokenLogProbsDense, tokenLogProbsUnchecked } from './tokenLogProbs.js';
import { asRows, entropyChunked } from './tokenLogProbsChunked.js';
import { ENTROPY_KERNEL, hasFusedLogSoftmax, LOGPROBS_KERNEL, setFusedSimdExp } from './tokenLogProbsFused.js';
import { rng } from '../../test/helpers/rng.js';

/**
 * The fused host kernels of tokenLogProbs / tokenEntropy on cpu and wasm (issue 13),
 * against a float64 reference, the chunked tfjs-op path (webgpu's), the
 * whole-vocabulary logSoftmax, and finite differences; with the SIMD exp and with Math.exp.
 */

const FD_TOL = 1e-3; // see tokenLogProbs.test.ts


/** Float64 reference of one row (float32 values): logp of every token, entropy, probabilities. */
function reference(row: ArrayLike<number>): { logp: number[]; h: number; p: number[] } {
  const r = Array.from(row, Math.fround);
  const M = Math.max(...r);
  const S = r.reduce((s, v) => s + Math.exp(v - M), 0);
  const logS = Math.log(S);
  const logp = r.map((v) => v - M - logS);
  const p = logp.map(Math.exp);
  const h = -p.reduce((s, pv, j) => s + pv * logp[j]!, 0);
  return { logp, h, p };
}

/** Random logits `[n, v]`: normal-ish rows of scale `scale`, with some extreme rows. */
function randomLogits(seed: number, n: number, v: number, scale: number, extremes = false): Float32Array {
  const u = rng(seed);
  const x = new Float32Array(n * v);
  for (let i = 0; i < n; i++) {
    const kind = extremes ? i % 4 : 0;
    for (let j = 0; j < v; j++) {
      const g = (u() + u() + u() - 1.5) * 2;
      x[i * v + j] =
        kind === 0
          ? g * scale
          : kind === 1
            ? (u() < 0.5 ? 1e4 : -1e4) + g // +-1e4, a handful near the top
            : kind === 2
              ? -3e4 + g * 5 // every logit large and negative (no -Infinity)
              : j === (i * 7) % v
                ? 1e4 // one token dominant, the rest near 0 (probabilities underflow to 0)
                : g;
    }
  }
  return x;
}

function close(a: number, b: number, rel: number, abs: number): boolean {
  return Math.abs(a - b) <= rel * Math.abs(b) + abs;
}

describe.each(['cpu', 'wasm'] as const)('fused log-softmax host kernels on %s (issue 13)', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  afterEach(() => {
    setFusedSimdExp(true);
  });

  it('are registered for this backend and used by default', () => {
    expect(hasFusedLogSoftmax()).toBe(true);
    expect(tf.getKernel(LOGPROBS_KERNEL, backend)).toBeDefined();
    expect(tf.getKernel(ENTROPY_KERNEL, backend)).toBeDefined();
    expect(hasFusedLogSoftmax('webgpu')).toBe(false);
  });

  for (const simd of [true, false]) {
    const label = simd ? 'SIMD exp' : 'Math.exp';
    // V: below, at and across the SIMD chunk (4096), not a multiple of 4
    for (const [n, v, scale, extremes] of [
      [8, 1, 3, false],
      [16, 7, 3, true],
      [12, 257, 8, true],
      [4, 4096, 2, true],
      [5, 8195, 4, true],
    ] as const) {
      it(`${label}: N ${n}, V ${v}${extremes ? ' with +-1e4 and -3e4 rows' : ''}: log-probs, entropies and gradients match float64, the chunked ops and the whole-vocabulary logSoftmax`, async () => {
        setFusedSimdExp(simd);
        const vals = randomLogits(1000 * n + v, n, v, scale, extremes);
        const u = rng(v);
        const tg = Int32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? (i * 7) % v : Math.floor(u() * v)));
        const dyv = Float32Array.from({ length: n }, () => u() * 2 - 0.5);
        const x = tf.tensor2d(vals, [n, v]);
        const t = tf.tensor1d(tg, 'int32');
        const dy = tf.tensor1d(dyv);
        const chunk = v > 300 ? 1000 : 5; // several chunks of the tfjs-op path, not thousands
        const lpF = (l: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(l, t, { validate: false }), dy)) as tf.Scalar;
        const lpC = (l: tf.Tensor) => tf.sum(tf.mul(tokenLogProbsUnchecked(l, t, chunk, 'chunked'), dy)) as tf.Scalar;
        const hF = (l: tf.Tensor) => tf.sum(tf.mul(tokenEntropy(l, { validate: false }), dy)) as tf.Scalar;
        const hC = (l: tf.Tensor) => tf.sum(tf.mul(entropyChunked(asRows(l), chunk), dy)) as tf.Scalar;

        const lp = await read(tokenLogProbs(x, t));
        const lpChunked = await read(tf.tidy(() => tokenLogProbsUnchecked(x, t, chunk, 'chunked')));
        const lpDense = v >= 2 ? await read(tf.tidy(() => tokenLogProbsDense(x, t))) : null; // tf.oneHot needs a depth >= 2
        const h = await read(tokenEntropy(x));
        const hChunked = await read(tf.tidy(() => entropyChunked(asRows(x), chunk)));
        const hDense = await read(tokenEntropyDense(x));
        const g = await read(tf.grad(lpF)(x));
        const gChunked = await read(tf.grad(lpC)(x));
        const gh = await read(tf.grad(hF)(x));
        const ghChunked = await read(tf.grad(hC)(x));

        // worst errors, asserted once (one expect per element would dominate the run time)
        let eG = 0;
        let eGc = 0;
        let eGh = 0;
        let eGhc = 0;
        for (let i = 0; i < n; i++) {
          const ref = reference(vals.subarray(i * v, (i + 1) * v));
          const k = tg[i]!;
          // log-probs down to -2e4 here: relative float32 round-off, plus an absolute floor
          expect(close(lp[i]!, ref.logp[k]!, 2e-7, 2e-6), `logp[${i}] ${lp[i]} vs ${ref.logp[k]}`).toBe(true);
          expect(close(lp[i]!, lpChunked[i]!, 1e-6, 2e-5), `logp[${i}] vs chunked ${lpChunked[i]}`).toBe(true);
          if (lpDense !== null) expect(close(lp[i]!, lpDense[i]!, 1e-6, 2e-5), `logp[${i}] vs dense ${lpDense[i]}`).toBe(true);
          expect(Math.abs(h[i]! - ref.h), `H[${i}] ${h[i]} vs ${ref.h}`).toBeLessThanOrEqual(2e-6 * (1 + ref.h));
          expect(Math.abs(h[i]! - hChunked[i]!)).toBeLessThanOrEqual(2e-5 * (1 + ref.h));
          expect(Math.abs(h[i]! - hDense[i]!)).toBeLessThanOrEqual(2e-5 * (1 + ref.h));
          const d = dyv[i]!;
          for (let j = 0; j < v; j++) {
            const e = i * v + j;
            const want = d * ((j === k ? 1 : 0) - ref.p[j]!);
            eG = Math.max(eG, Math.abs(g[e]! - want));
            eGc = Math.max(eGc, Math.abs(g[e]! - gChunked[e]!));
            // p (log p + H): where p underflows and log p is ~ -2e4, the product is ~0 either way
            const wantH = -d * ref.p[j]! * (ref.logp[j]! + ref.h);
            eGh = Math.max(eGh, Math.abs(gh[e]! - wantH) / (1 + ref.h));
            eGhc = Math.max(eGhc, Math.abs(gh[e]! - ghChunked[e]!) / (1 + ref.h));
          }
        }
        expect(eG, 'd logp / d x against float64').toBeLessThanOrEqual(1e-6);
        expect(eGc, 'd logp / d x against the chunked ops').toBeLessThanOrEqual(2e-6);
        expect(eGh, 'd H / d x against float64').toBeLessThanOrEqual(2e-6);
        expect(eGhc, 'd H / d x against the chunked ops').toBeLessThanOrEqual(2e-5);
        expect(lp.every(Number.isFinite) && g.every(Number.isFinite) && h.every(Number.isFinite) && gh.every(Number.isFinite)).toBe(true);
      });
    }

    it(`${label}: gradients agree with finite differences (weighted rows, [B, T, V])`, async () => {
      setFusedSimdExp(simd);
      const vals = randomLogits(77, 6, 9, 1.5);
      const x = tf.tensor3d(vals, [2, 3, 9]);
      const t = tf.tensor2d([[0, 8, 4], [3, 3, 1]], [2, 3], 'int32');
      const w = tf.tensor2d([[1, -2, 0.5], [0, 1.5, -1]]);
      const f = (l: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(l, t), w)) as tf.Scalar;
      const fh = (l: tf.Tensor) => tf.sum(tf.mul(tokenEntropy(l), w)) as tf.Scalar;
      for (const fun of [f, fh]) {
        const g = await read(tf.grad(fun)(x));
        const fd = await numericGradientAsync(fun, x);
        fd.forEach((d, i) => expect(Math.abs(d - g[i]!), `index ${i}`).toBeLessThanOrEqual(FD_TOL));
      }
      // a row with dy = 0 (w[1][0]) has an all-zero gradient
      const g = await read(tf.grad(f)(x));
      expect(g.slice(27, 36).every((v) => v === 0)).toBe(true);
    });
  }

  it('the row maximum rising in a later SIMD chunk (-1e4 ... then 0 ... then 50 ...) rescales S and T exactly', async () => {
    const v = 2 * 4096 + 5;
    const u = rng(5);
    const rows = [
      Array.from({ length: v }, (_, j) => (j < 4096 ? -1e4 : j < 8192 ? 0 : 50) + u()),
      Array.from({ length: v }, (_, j) => j / 1000 + u()), // a ramp: the maximum rises in every chunk
    ];
    const x = tf.tensor2d(rows);
    const t = tf.tensor1d([10, v - 1], 'int32');
    const lp = await read(tokenLogProbs(x, t));
    const h = await read(tokenEntropy(x));
    const g = await read(tf.grad((l: tf.Tensor) => tf.sum(tokenEntropy(l)) as tf.Scalar)(x));
    rows.forEach((row, i) => {
      const ref = reference(row);
      const k = i === 0 ? 10 : v - 1;
      expect(close(lp[i]!, ref.logp[k]!, 2e-7, 2e-6), `logp[${i}] ${lp[i]} vs ${ref.logp[k]}`).toBe(true);
      expect(Math.abs(h[i]! - ref.h)).toBeLessThanOrEqual(2e-6 * (1 + ref.h));
      let err = 0;
      for (let j = 0; j < v; j++) err = Math.max(err, Math.abs(g[i * v + j]! + ref.p[j]! * (ref.logp[j]! + ref.h)));
      expect(err).toBeLessThanOrEqual(2e-6 * (1 + ref.h));
    });
  });

  it('a target outside [0, V) (validate: false) gives NaN and no one-hot term', async () => {
    const x = tf.tensor2d([[0, 1, 2], [0, 0, 0]]);
    const t = tf.tensor1d([3, 1], 'int32');
    const lp = await read(tokenLogProbs(x, t, { validate: false }));
    expect(lp[0]).toBeNaN();
    expect(lp[1]).toBeCloseTo(-Math.log(3), 6);
    const g = await read(tf.grad((l: tf.Tensor) => tf.sum(tf.mul(tokenLogProbs(l, t, { validate: false }), tf.tensor1d([1, 0]))) as tf.Scalar)(x));
    const p = reference([0, 1, 2]).p;
    g.slice(0, 3).forEach((v, j) => expect(v).toBeCloseTo(-p[j]!, 6));
  });

  it('hold O(N) tensor bytes in the forward and dispose what they create', async () => {
    const x = tf.randomNormal([16, 5000], 0, 2, 'float32', 3);
    const t = tf.zeros([16], 'int32');
    const before = tf.memory().numTensors;
    const start = tf.memory().numBytes;
    const p = await tf.profile(() => {
      tokenLogProbs(x, t, { validate: false }).dispose();
      tokenEntropy(x, { validate: false }).dispose();
    });
    expect(p.peakBytes - start).toBeLessThanOrEqual(4 * 16 * 4); // logp [N] + stats [N, 2] (+ the reshaped targets)
    tf.grad((l: tf.Tensor) => tf.sum(tokenLogProbs(l, t)) as tf.Scalar)(x).dispose();
    tf.grad((l: tf.Tensor) => tf.sum(tokenEntropy(l)) as tf.Scalar)(x).dispose();
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x, t]);
  });
});
