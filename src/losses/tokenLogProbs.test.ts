import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { numericGradient } from './numericGradient.js';
import { tokenEntropy } from './tokenEntropy.js';
import { tokenLogProbs } from './tokenLogProbs.js';

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

describe.each(TEST_BACKENDS)('tokenLogProbs / tokenEntropy on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('tokenLogProbs equals the direct softmax', () => {
    const lp = tokenLogProbs(tf.tensor2d(LOGITS), tf.tensor1d(TARGETS, 'int32')).dataSync();
    TARGETS.forEach((t, i) => expect(lp[i]).toBeCloseTo(directLogProb(LOGITS[i]!, t), 5));
    expect(lp[1]).toBeCloseTo(-Math.log(5), 6);
  });

  it('is stable for huge logits (no overflow to NaN/-Infinity)', () => {
    const lp = tokenLogProbs(tf.tensor2d([[1000, 0, -1000], [1000, 999, -1000]]), tf.tensor1d([0, 1], 'int32')).dataSync();
    expect(lp[0]).toBeCloseTo(0, 6);
    expect(lp[1]).toBeCloseTo(-1 - Math.log1p(Math.exp(-1)), 5);
  });

  it('works on [B, T, V] with [B, T] targets', () => {
    const logits = tf.tensor3d([LOGITS, LOGITS]);
    const lp = tokenLogProbs(logits, tf.tensor2d([TARGETS, [0, 0, 0]], [2, 3], 'int32'));
    expect(lp.shape).toEqual([2, 3]);
    expect(lp.dataSync()[3]).toBeCloseTo(directLogProb(LOGITS[0]!, 0), 5);
  });

  it('gradient is onehot - softmax and agrees with finite differences', () => {
    const x = tf.tensor2d(LOGITS);
    const targets = tf.tensor1d(TARGETS, 'int32');
    const f = (l: tf.Tensor) => tf.sum(tokenLogProbs(l, targets)) as tf.Scalar;
    const g = tf.grad(f)(x).dataSync();
    LOGITS.forEach((row, i) => {
      const z = row.reduce((s, v) => s + Math.exp(v), 0);
      row.forEach((v, j) => expect(g[i * 5 + j]).toBeCloseTo((j === TARGETS[i] ? 1 : 0) - Math.exp(v) / z, 5));
    });
    const fd = numericGradient(f, x);
    fd.forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('tokenEntropy equals the direct formula; uniform rows give ln V', () => {
    const h = tokenEntropy(tf.tensor2d(LOGITS)).dataSync();
    LOGITS.forEach((row, i) => expect(h[i]).toBeCloseTo(directEntropy(row), 5));
    expect(h[1]).toBeCloseTo(Math.log(5), 5);
    expect(tokenEntropy(tf.tensor2d([[500, -500, -500]])).dataSync()[0]).toBeCloseTo(0, 6);
  });

  it('tokenEntropy gradient agrees with finite differences', () => {
    const x = tf.tensor2d(LOGITS);
    const f = (l: tf.Tensor) => tf.sum(tokenEntropy(l)) as tf.Scalar;
    const g = tf.grad(f)(x).dataSync();
    numericGradient(f, x).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('disposes what it creates', () => {
    const x = tf.tensor2d(LOGITS);
    const t = tf.tensor1d(TARGETS, 'int32');
    const before = tf.memory().numTensors;
    tokenLogProbs(x, t).dispose();
    tokenEntropy(x).dispose();
    tf.grad((l: tf.Tensor) => tf.sum(tokenLogProbs(l, t)) as tf.Scalar)(x).dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('tokenLogProbs bad input', () => {
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
