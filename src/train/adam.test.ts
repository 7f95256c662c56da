import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { Adam, clipByGlobalNorm } from './adam.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

/** torch.optim.Adam on plain numbers. */
function torchAdam(p: number[], grads: number[][], lr: number, b1 = 0.9, b2 = 0.999, eps = 1e-8): number[] {
  const m = p.map(() => 0);
  const v = p.map(() => 0);
  const x = [...p];
  grads.forEach((g, k) => {
    const t = k + 1;
    for (let i = 0; i < x.length; i++) {
      m[i] = b1 * m[i]! + (1 - b1) * g[i]!;
      v[i] = b2 * v[i]! + (1 - b2) * g[i]! ** 2;
      x[i] = x[i]! - (lr / (1 - b1 ** t)) * (m[i]! / (Math.sqrt(v[i]!) / Math.sqrt(1 - b2 ** t) + eps));
    }
  });
  return x;
}

describe('Adam', () => {
  it('follows torch.optim.Adam', () => {
    const w = tf.variable(tf.tensor1d([0.5, -1, 2]));
    const adam = new Adam([w], { learningRate: 0.1 });
    const grads = [
      [0.3, -0.2, 1],
      [0.1, 0.4, -2],
      [-0.5, 0.05, 0.5],
    ];
    for (const g of grads) tf.tidy(() => adam.apply([tf.tensor1d(g)]));
    const want = torchAdam([0.5, -1, 2], grads, 0.1);
    Array.from(w.dataSync()).forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 5));
    expect(adam.step).toBe(3);
    adam.dispose();
    w.dispose();
  });
  it('state round-trips exactly, and reset starts over', async () => {
    const w = tf.variable(tf.tensor1d([1, 2]));
    const a = new Adam([w], { learningRate: 0.05 });
    tf.tidy(() => a.apply([tf.tensor1d([0.3, -0.7])]));
    const s = await a.getState();
    const w2 = tf.variable(tf.tensor1d(Array.from(w.dataSync())));
    const b = new Adam([w2], { learningRate: 0.05 });
    b.setState(s);
    tf.tidy(() => a.apply([tf.tensor1d([0.1, 0.2])]));
    tf.tidy(() => b.apply([tf.tensor1d([0.1, 0.2])]));
    expect(Array.from(w2.dataSync())).toEqual(Array.from(w.dataSync()));
    a.reset();
    expect(a.step).toBe(0);
    expect(Array.from((await a.getState()).m[0]!)).toEqual([0, 0]);
    for (const x of [a, b]) x.dispose();
    w.dispose();
    w2.dispose();
  });
  it('rejects a gradient count mismatch', () => {
    const w = tf.variable(tf.zeros([2]));
    expectFrognanoError(() => new Adam([w]).apply([]), 'LENGTH_MISMATCH', 'grads');
  });
  it('rejects a state of other sizes', () => {
    const w = tf.variable(tf.zeros([2]));
    expectFrognanoError(() => new Adam([w]).setState({ step: 1, m: [new Float32Array(3)], v: [new Float32Array(2)] }), 'LENGTH_MISMATCH', 'state.m[0]');
  });
  it('rejects a learning rate of 0', () => expectFrognanoError(() => new Adam([], { learningRate: 0 }), 'OUT_OF_RANGE', 'opts.learningRate'));
});

describe('clipByGlobalNorm', () => {
  it('scales by maxNorm / (norm + 1e-6) when the global norm is larger, as clip_grad_norm_', async () => {
    const g = [tf.tensor1d([3, 0]), tf.tensor1d([0, 4])]; // norm 5
    const { grads, norm } = await clipByGlobalNorm(g, 1);
    expect(norm).toBeCloseTo(5, 6);
    const s = 1 / (5 + 1e-6);
    expect(Array.from(grads[0]!.dataSync())[0]).toBeCloseTo(3 * s, 6);
    expect(Array.from(grads[1]!.dataSync())[1]).toBeCloseTo(4 * s, 6);
    const small = await clipByGlobalNorm(g, 10);
    expect(Array.from(small.grads[1]!.dataSync())).toEqual([0, 4]);
    tf.dispose([...g, ...grads, ...small.grads]);
  });
  it('rejects maxNorm 0', () => expectFrognanoErrorAsync(() => clipByGlobalNorm([], 0), 'OUT_OF_RANGE', 'maxNorm'));
});
