import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { numericGradient } from './numericGradient.js';

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
});
