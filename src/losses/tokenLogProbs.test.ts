import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { canReadSync } from '../backend/canReadSync.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS, readsSync } from '../../test/helpers/backends.js';
import { read } from '../../test/helpers/tensors.js';
import { numericGradientAsync } from './numericGradient.js';
import { tokenEntropy, tokenEntropyDense } from './tokenEntropy.js';
import { tokenLogProbs, tokenLogProbsDense, tokenLogProbsUnchecked } from './tokenLogProbs.js';
import { asRows, entropyChunked } from './tokenLogProbsChunked.js';
import { hasFusedLogSoftmax } from './tokenLogProbsFused.js';

// Finite-difference tolerance: float32 central differences with h = 1e-2 err by
// ~eps|f|/h + h^2|f'''|/6 ~ 1e-5 + 2e-5 for the O(1) functions here; 1e-3 bounds it.
const FD_TOL = 1e-3;

/** log softmax(row)[target] in float64, directly from the definition. */
function directLogProb(row: number[], target: number): number {
  const r = row.map(Math.fround);
  const z = r.reduce((s, v) => s + Math.exp(v), 0);
  return r[target]! - Math.log(z);
}
function directEntropy(row: number[]): number {
  const r = row.map(Math.fround);
  const z = r.reduce((s, v) => s + Math.exp(v), 0);
  return -r.reduce((s, v) => s + (Math.exp(v) / z) * (v - Math.log(z)), 0);
}

const LOGITS = [
  [0.3, -1.2, 2.0, 0.5, 0.0],
  [1.0, 1.0, 1.0, 1.0, 1.0],
  [-0.7, 3.1, -2.2, 0.4, 1.6],
];
const TARGETS = [2, 4, 0];

// Every read is `await data()`: tfjs-backend-webgpu in Node reads only asynchronously
// (dataSync needs OffscreenCanvas), and there `validate` defaults to false (see canReadSync).

describe.each(TEST_BACKENDS)('tokenLogProbs / tokenEntropy on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('tokenLogProbs equals the direct softmax', async () => {
    const lp = await read(tokenLogProbs(tf.tensor2d(LOGITS), tf.tensor1d(TARGETS, 'int32')));
    TARGETS.forEach((t, i) => expect(lp[i]).toBeCloseTo(directLogProb(LOGITS[i]!, t), 5));
    expect(lp[1]).toBeCloseTo(-Math.log(5), 6);
  });

  it('is stable for huge logits (no overflow to NaN/-Infinity)', async () => {
    const lp = await read(tokenLogProbs(tf.tensor2d([[1000, 0, -1000], [1000, 999, -1000]]), tf.tensor1d([0, 1], 'int32')));
    expect(lp[0]).toBeCloseTo(0, 6);
    expect(lp[1]).toBeCloseTo(-1 - Math.log1p(Math.exp(-1)), 5);
  });

  it('works on [B, T, V] with [B, T] targets', async () => {
    const logits = tf.tensor3d([LOGITS, LOGITS]);
    const lp = tokenLogProbs(logits, tf.tensor2d([TARGETS, [0, 0, 0]], [2, 3], 'int32'));
    expect(lp.shape).toEqual([2, 3]);
    expect((await read(lp))[3]).toBeCloseTo(directLogProb(LOGITS[0]!, 0), 5);
  });

  it('gradient is onehot - softmax and agrees with finite differences', async () => {
    const x = tf.tensor2d(LOGITS);
    const targets = tf.tensor1d(TARGETS, 'int32');
    const f = (l: tf.Tensor) => tf.sum(tokenLogProbs(l, targets)) as tf.Scalar;
    const g = await read(tf.grad(f)(x));
    LOGITS.forEach((row, i) => {
      const z = row.reduce((s, v) => s + Math.exp(v), 0);
      row.forEach((v, j) => expect(g[i * 5 + j]).toBeCloseTo((j === TARGETS[i] ? 1 : 0) - Math.exp(v) / z, 5));
    });
    const fd = await numericGradientAsync(f, x);
    fd.forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('tokenEntropy equals the direct formula; uniform rows give ln V', async () => {
    const h = await read(tokenEntropy(tf.tensor2d(LOGITS)));
    LOGITS.forEach((row, i) => expect(h[i]).toBeCloseTo(directEntropy(row), 5));
    expect(h[1]).toBeCloseTo(Math.log(5), 5);
    expect((await read(tokenEntropy(tf.tensor2d([[500, -500, -500]]))))[0]).toBeCloseTo(0, 6);
  });

  it('tokenEntropy gradient agrees with finite differences', async () => {
    const x = tf.tensor2d(LOGITS);
    const f = (l: tf.Tensor) => tf.sum(tokenEntropy(l)) as tf.Scalar;
    const g = await read(tf.grad(f)(x));
    (await numericGradientAsync(f, x)).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('disposes what it creates', () => {
    const x = tf.tensor2d(LOGITS);
    const t = tf.tensor1d(TARGETS, 'int32');
    const before = tf.memory().numTensors;
    for (const opts of [{}, { validate: false }]) {
      tokenLogProbs(x, t, opts).dispose();
      tokenEntropy(x, opts).dispose();
      tf.grad((l: tf.Tensor) => tf.sum(tokenLogProbs(l, t, opts)) as tf.Scalar)(x).dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  // validate: false is the path webgpu in Node takes by default: cpu and wasm exercise it too.
  it('validate: false gives the same log-probs, entropies and gradients as the default', async () => {
    const x = tf.tensor2d(LOGITS);
    const t = tf.tensor1d(TARGETS, 'int32');
    const lp = (opts: { validate?: boolean }) => (l: tf.Tensor) => tf.sum(tokenLogProbs(l, t, opts)) as tf.Scalar;
    const h = (opts: { validate?: boolean }) => (l: tf.Tensor) => tf.sum(tokenEntropy(l, opts)) as tf.Scalar;
    expect(await read(tokenLogProbs(x, t, { validate: false }))).toEqual(await read(tokenLogProbs(x, t)));
    expect(await read(tokenEntropy(x, { validate: false }))).toEqual(await read(tokenEntropy(x)));
    expect(await read(tf.grad(lp({ validate: false }))(x))).toEqual(await read(tf.grad(lp({}))(x)));
    expect(await read(tf.grad(h({ validate: false }))(x))).toEqual(await read(tf.grad(h({}))(x)));
    // and the same numbers as the definition
    const v = await read(tokenLogProbs(x, t, { validate: false }));
    TARGETS.forEach((k, i) => expect(v[i]).toBeCloseTo(directLogProb(LOGITS[i]!, k), 5));
  });

  it.runIf(readsSync(backend))('validate defaults to true here: bad values are rejected on this backend', () => {
    expect(canReadSync()).toBe(true);
    expectFrognanoError(() => tokenLogProbs(tf.tensor2d(LOGITS), tf.tensor1d([2, 5, 0], 'int32')), 'OUT_OF_RANGE', 'targets[1]', '[0, 5)');
    expectFrognanoError(() => tokenLogProbs(tf.tensor2d([[0, NaN]]), tf.tensor1d([0], 'int32')), 'NON_FINITE', 'logits[0][1]');
    expectFrognanoError(() => tokenEntropy(tf.tensor1d([0, Infinity])), 'NON_FINITE', 'logits[1]');
  });

  it.runIf(!readsSync(backend))('no synchronous read (webgpu in Node): the default skips the checks, an explicit validate: true is BACKEND_UNAVAILABLE', async () => {
    expect(canReadSync()).toBe(false);
    const x = tf.tensor2d(LOGITS);
    const t = tf.tensor1d(TARGETS, 'int32');
    const lp = await read(tokenLogProbs(x, t));
    lp.forEach((v) => expect(Number.isFinite(v)).toBe(true));
    TARGETS.forEach((k, i) => expect(lp[i]).toBeCloseTo(directLogProb(LOGITS[i]!, k), 5));
    expect(lp).toEqual(await read(tokenLogProbs(x, t, { validate: false })));
    const h = await read(tokenEntropy(x));
    LOGITS.forEach((row, i) => expect(h[i]).toBeCloseTo(directEntropy(row), 5));
    expectFrognanoError(() => tokenLogProbs(x, t, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true', 'checkFiniteAsync');
    expectFrognanoError(() => tokenEntropy(x, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true');
  });
});

describe('tokenLogProbs bad input', () => {
  // the previous describe may have left webgpu active, where validate defaults to false
  beforeAll(async () => {
    await useBackend('cpu');
  });
  it('rejects a target outside [0, V)', () =>
    expectFrognanoError(() => tokenLogProbs(tf.tensor2d(LOGITS), tf.tensor1d([2, 5, 0], 'int32')), 'OUT_OF_RANGE', 'targets[1]', '[0, 5)'));
  it('rejects an empty vocabulary', () =>
    expectFrognanoError(() => tokenLogProbs(tf.zeros([3, 0]), tf.tensor1d([0, 0, 0], 'int32')), 'EMPTY_INPUT', 'logits'));
  it('rejects a NaN logit, naming it', () =>
    expectFrognanoError(() => tokenLogProbs(tf.tensor2d([[0, NaN]]), tf.tensor1d([0], 'int32')), 'NON_FINITE', 'logits[0][1]'));
  it('rejects targets of the wrong shape', () =>
    expectFrognanoError(() => tokenLogProbs(tf.tensor2d(LOGITS), tf.tensor1d([0, 1], 'int32')), 'LENGTH_MISMATCH', 'targets'));
  it('tokenEntropy rejects an empty vocabulary', () => expectFrognanoError(() => tokenEntropy(tf.zeros([2, 0])), 'EMPTY_INPUT', 'logits'));
  it('tokenEntropy rejects +Infinity', () =>
    expectFrognanoError(() => tokenEntropy(tf.tensor1d([0, Infinity])), 'NON_FINITE', 'logits[1]'));
});

describe.each(TEST_BACKENDS)('tokenLogProbs / tokenEntropy in vocabulary chunks on %s (issue 13)', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const rows = Array.from({ length: 6 }, (_, i) => Array.from({ length: 11 }, (_, j) => Math.sin(3 * i + 7 * j) * (i === 5 ? 300 : 2)));
  const tg = [0, 10, 3, 4, 7, 9];

  it('every chunk size gives the numbers of the whole-vocabulary log-softmax (and of the definition)', async () => {
    const x = tf.tensor2d(rows);
    const t = tf.tensor1d(tg, 'int32');
    const dense = await read(tokenLogProbsDense(x, t));
    const hDense = await read(tokenEntropyDense(x));
    for (const chunkSize of [1, 2, 3, 4, 10, 11, 64]) {
      const lp = await read(tokenLogProbs(x, t, { chunkSize, validate: false }));
      const h = await read(tokenEntropy(x, { chunkSize, validate: false }));
      lp.forEach((v, i) => {
        expect(v).toBeCloseTo(dense[i]!, 4);
        expect(v).toBeCloseTo(directLogProb(rows[i]!, tg[i]!), 4);
      });
      h.forEach((v, i) => {
        expect(v).toBeCloseTo(hDense[i]!, 4);
        expect(v).toBeCloseTo(directEntropy(rows[i]!), 4);
      });
    }
  });

  it('chunked gradients (chunks of 2, 2, 1) agree with finite differences and with onehot - softmax', async () => {
    const x = tf.tensor2d(LOGITS);
    const t = tf.tensor1d(TARGETS, 'int32');
    const f = (l: tf.Tensor) => tf.sum(tokenLogProbs(l, t, { chunkSize: 2 })) as tf.Scalar;
    const g = await read(tf.grad(f)(x));
    LOGITS.forEach((row, i) => {
      const z = row.reduce((s, v) => s + Math.exp(v), 0);
      row.forEach((v, j) => expect(g[i * 5 + j]).toBeCloseTo((j === TARGETS[i] ? 1 : 0) - Math.exp(v) / z, 5));
    });
    (await numericGradientAsync(f, x)).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
    const h = (l: tf.Tensor) => tf.sum(tf.mul(tokenEntropy(l, { chunkSize: 2 }), tf.tensor1d([1, -2, 0.5]))) as tf.Scalar;
    const gh = await read(tf.grad(h)(x));
    (await numericGradientAsync(h, x)).forEach((d, i) => expect(Math.abs(d - gh[i]!)).toBeLessThanOrEqual(FD_TOL));
    // the same gradient as the whole-vocabulary path
    const gd = await read(tf.grad((l: tf.Tensor) => tf.sum(tokenLogProbsDense(l, t)) as tf.Scalar)(x));
    gd.forEach((v, i) => expect(g[i]).toBeCloseTo(v, 5));
  });

  it('[B, T, V] in chunks, and chunked gradients dispose what they create', async () => {
    const x3 = tf.tensor3d([LOGITS, LOGITS]);
    const t2 = tf.tensor2d([TARGETS, [1, 1, 1]], [2, 3], 'int32');
    const lp = tokenLogProbs(x3, t2, { chunkSize: 2 });
    expect(lp.shape).toEqual([2, 3]);
    expect((await read(lp))[4]).toBeCloseTo(directLogProb(LOGITS[1]!, 1), 5);
    const before = tf.memory().numTensors;
    tf.grad((l: tf.Tensor) => tf.sum(tokenLogProbs(l, t2, { chunkSize: 2, validate: false })) as tf.Scalar)(x3).dispose();
    tf.grad((l: tf.Tensor) => tf.sum(tokenEntropy(l, { chunkSize: 2, validate: false })) as tf.Scalar)(x3).dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it.runIf(readsSync(backend))('peak tensor memory of the forward grows with the chunk, not with the vocabulary', async () => {
    const N = 32;
    const extra = async (f: () => tf.Tensor) => {
      const start = tf.memory().numBytes;
      const p = await tf.profile(() => tf.tidy(f).dispose());
      return p.peakBytes - start;
    };
    const measure = async (V: number, chunkSize: number) => {
      const x = tf.randomNormal([N, V], 0, 1, 'float32', 7);
      const t = tf.zeros([N], 'int32');
      const r = {
        // the tfjs-op path in chunks (webgpu's; forced here on cpu and wasm)
        lp: await extra(() => tokenLogProbsUnchecked(x, t, chunkSize, 'chunked')),
        h: await extra(() => entropyChunked(asRows(x), chunkSize)),
        // what tokenLogProbs / tokenEntropy run on this backend (the host kernels on cpu and wasm)
        lpAuto: await extra(() => tokenLogProbs(x, t, { chunkSize, validate: false })),
        hAuto: await extra(() => tokenEntropy(x, { chunkSize, validate: false })),
        dense: await extra(() => tokenLogProbsDense(x, t)),
      };
      tf.dispose([x, t]);
      return r;
    };
    const small = await measure(1024, 128);
    const large = await measure(4096, 128);
    const wider = await measure(4096, 512);
    for (const k of ['lp', 'h'] as const) {
      expect(large[k]).toBe(small[k]); // 4x the vocabulary: the same peak
      expect(large[k]).toBeLessThanOrEqual(5 * N * 128 * 4); // a few [N, chunk] float32 tensors
      expect(wider[k]).toBeGreaterThan(3 * large[k]); // 4x the chunk: ~4x the peak
    }
    for (const k of ['lpAuto', 'hAuto'] as const) {
      expect(large[k]).toBe(small[k]);
      if (hasFusedLogSoftmax(backend)) {
        // one pass per row: [N] values and [N, 2] row statistics, whatever the vocabulary and chunk
        expect(wider[k]).toBe(large[k]);
        expect(large[k]).toBeLessThanOrEqual(4 * N * 4);
      } else {
        expect(large[k]).toBeLessThanOrEqual(5 * N * 128 * 4);
      }
    }
    expect(large.dense).toBeGreaterThanOrEqual(4 * N * 4096 * 4); // the whole-vocabulary path: several [N, V]
  });
});
