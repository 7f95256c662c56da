import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { numericGradient, numericGradientAsync } from './numericGradient.js';

describe('numericGradient', () => {
  it('central differences of sum(x^2) are 2x (exact for a quadratic up to float32 round-off)', () => {
    const g = numericGradient((x) => tf.sum(tf.square(x)) as tf.Scalar, tf.tensor1d([1, -2, 0.5]));
    [2, -4, 1].forEach((e, i) => expect(g[i]).toBeCloseTo(e, 3));
  });
  it('only the requested indices, and the truncation error h^2 f\'\'\'/6 of sum(x^3)', () => {
    const g = numericGradient((x) => tf.sum(tf.pow(x, 3)) as tf.Scalar, tf.tensor1d([1, 2]), { indices: [1], h: 0.1 });
    expect(g).toHaveLength(1);
    // (f(2.1) - f(1.9)) / 0.2 = 3 * 4 + 0.1^2 = 12.01
    expect(g[0]).toBeCloseTo(12.01, 2);
  });
  it('rejects h <= 0', () => expectFrognanoError(() => numericGradient((x) => tf.sum(x) as tf.Scalar, tf.tensor1d([1]), { h: 0 }), 'OUT_OF_RANGE', 'opts.h'));
  it('rejects an index outside x', () =>
    expectFrognanoError(() => numericGradient((x) => tf.sum(x) as tf.Scalar, tf.tensor1d([1]), { indices: [3] }), 'OUT_OF_RANGE', 'opts.indices'));
  it('numericGradientAsync gives the same numbers as numericGradient (same steps, asynchronous reads)', async () => {
    const f = (x: tf.Tensor) => tf.sum(tf.mul(tf.exp(x), tf.tensor1d([1, -2, 3]))) as tf.Scalar;
    const x = tf.tensor1d([0.3, -1, 0.7]);
    expect(await numericGradientAsync(f, x)).toEqual(numericGradient(f, x));
    expect(await numericGradientAsync(f, x, { indices: [2], h: 0.1 })).toEqual(numericGradient(f, x, { indices: [2], h: 0.1 }));
    // d/dx of 3 e^x at 0.7, up to the h^2 f'''/6 truncation of the default h = 1e-2
    expect((await numericGradientAsync(f, x))[2]).toBeCloseTo(3 * Math.exp(0.7), 3);
  });
  it('numericGradientAsync rejects like numericGradient', async () => {
    await expectFrognanoErrorAsync(() => numericGradientAsync((x) => tf.sum(x) as tf.Scalar, tf.tensor1d([1]), { indices: [3] }), 'OUT_OF_RANGE', 'numericGradientAsync', 'opts.indices');
    await expectFrognanoErrorAsync(() => numericGradientAsync((x) => tf.sum(x) as tf.Scalar, [1] as never), 'INVALID_TYPE', 'x');
  });
});
