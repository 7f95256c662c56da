import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { aggregateTokenLoss } from './aggregateTokenLoss.js';

// verl agg_loss, written out by hand for
//   loss = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
//   mask = [[1, 1, 0], [1, 0, 0], [0, 0, 0]]   (the last row is fully masked)
const LOSS = [
  [1, 2, 3],
  [4, 5, 6],
  [7, 8, 9],
];
const MASK = [
  [1, 1, 0],
  [1, 0, 0],
  [0, 0, 0],
];

describe.each(TEST_BACKENDS)('aggregateTokenLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const agg = (mode: 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm', extra: { lossScaleFactor?: number } = {}) =>
    aggregateTokenLoss(tf.tensor2d(LOSS), tf.tensor2d(MASK), { aggregate: mode, ...extra }).dataSync()[0]!;

  it('token-mean: masked_sum / mask_sum = (1 + 2 + 4) / 3', () => {
    expect(agg('token-mean')).toBeCloseTo(7 / 3, 6);
  });
  it('seq-mean-token-mean: row means (1.5, 4), fully masked row left out -> 2.75', () => {
    expect(agg('seq-mean-token-mean')).toBeCloseTo((1.5 + 4) / 2, 6);
  });
  it('seq-mean-token-sum-norm: total masked sum / shape[-1] = 7 / 3, or / lossScaleFactor', () => {
    expect(agg('seq-mean-token-sum-norm')).toBeCloseTo(7 / 3, 6);
    expect(agg('seq-mean-token-sum-norm', { lossScaleFactor: 14 })).toBeCloseTo(0.5, 6);
  });
  it('a rank-1 tensor is one sequence', () => {
    const v = aggregateTokenLoss(tf.tensor1d([2, 4, 6]), tf.tensor1d([1, 1, 0]), { aggregate: 'seq-mean-token-mean' });
    expect(v.dataSync()[0]).toBeCloseTo(3, 6);
  });
  it('no mask token: 0 in every mode', () => {
    for (const mode of ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const) {
      const v = aggregateTokenLoss(tf.tensor2d(LOSS), tf.zeros([3, 3]), { aggregate: mode });
      expect(v.dataSync()[0]).toBe(0);
    }
  });
  it('gradient of seq-mean-token-mean is m / (rowCount * nonEmptyRows)', () => {
    const g = tf.grad((l: tf.Tensor) => aggregateTokenLoss(l, tf.tensor2d(MASK), { aggregate: 'seq-mean-token-mean' }))(tf.tensor2d(LOSS));
    const expected = [1 / 4, 1 / 4, 0, 1 / 2, 0, 0, 0, 0, 0];
    Array.from(g.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });
});

describe('aggregateTokenLoss bad input', () => {
  it('rejects a mask value other than 0/1', () =>
    expectFrognanoError(() => aggregateTokenLoss(tf.tensor1d([1, 2]), tf.tensor1d([1, 2])), 'OUT_OF_RANGE', 'lossMask[1]'));
  it('rejects a shape mismatch', () =>
    expectFrognanoError(() => aggregateTokenLoss(tf.tensor1d([1, 2]), tf.tensor1d([1])), 'LENGTH_MISMATCH', 'lossMask'));
  it('rejects lossScaleFactor <= 0', () =>
    expectFrognanoError(
      () => aggregateTokenLoss(tf.tensor1d([1]), tf.tensor1d([1]), { aggregate: 'seq-mean-token-sum-norm', lossScaleFactor: -1 }),
      'OUT_OF_RANGE',
      'opts.lossScaleFactor',
    ));
});
