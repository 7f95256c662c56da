import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { canReadSync } from '../backend/canReadSync.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS, readsSync } from '../../test/helpers/backends.js';
import { read, scalar } from '../../test/helpers/tensors.js';
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
const MODES = ['token-mean', 'token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'] as const;

// Every read is `await data()`: tfjs-backend-webgpu in Node reads only asynchronously
// (dataSync needs OffscreenCanvas), and there `validate` defaults to false (see canReadSync).

describe.each(TEST_BACKENDS)('aggregateTokenLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const agg = (mode: (typeof MODES)[number], extra: { lossScaleFactor?: number; validate?: boolean } = {}) =>
    scalar(aggregateTokenLoss(tf.tensor2d(LOSS), tf.tensor2d(MASK), { aggregate: mode, ...extra }));

  it('token-mean: masked_sum / mask_sum = (1 + 2 + 4) / 3', async () => {
    expect(await agg('token-mean')).toBeCloseTo(7 / 3, 6);
  });
  it('seq-mean-token-mean: row means (1.5, 4), fully masked row left out -> 2.75', async () => {
    expect(await agg('seq-mean-token-mean')).toBeCloseTo((1.5 + 4) / 2, 6);
  });
  // Changed by issue #13 (verl PR #5417): the mean over the 2 non-empty rows was missing (was 7 / 3 and 0.5).
  it('seq-mean-token-sum-norm: mean over non-empty rows of the row sums, / shape[-1] = (3 + 4) / 2 / 3, or / lossScaleFactor', async () => {
    expect(await agg('seq-mean-token-sum-norm')).toBeCloseTo(7 / 6, 6);
    expect(await agg('seq-mean-token-sum-norm', { lossScaleFactor: 14 })).toBeCloseTo(0.25, 6);
  });
  it('token-sum: the masked sum 1 + 2 + 4 = 7', async () => {
    expect(await agg('token-sum')).toBeCloseTo(7, 6);
  });
  it('seq-mean-token-sum: mean over non-empty rows of the row sums (3 + 4) / 2', async () => {
    expect(await agg('seq-mean-token-sum')).toBeCloseTo(3.5, 6);
  });
  it('gradient of every mode is its weight: token-sum m, seq-mean-token-sum m / 2, seq-mean-token-sum-norm m / 6', async () => {
    for (const [mode, scale] of [['token-sum', 1], ['seq-mean-token-sum', 1 / 2], ['seq-mean-token-sum-norm', 1 / 6], ['token-mean', 1 / 3]] as const) {
      const g = tf.grad((l: tf.Tensor) => aggregateTokenLoss(l, tf.tensor2d(MASK), { aggregate: mode }))(tf.tensor2d(LOSS));
      (await read(g)).forEach((v, i) => expect(v).toBeCloseTo(MASK.flat()[i]! * scale, 6));
    }
  });
  it('a rank-1 tensor is one sequence', async () => {
    const v = aggregateTokenLoss(tf.tensor1d([2, 4, 6]), tf.tensor1d([1, 1, 0]), { aggregate: 'seq-mean-token-mean' });
    expect(await scalar(v)).toBeCloseTo(3, 6);
  });
  it('no mask token: 0 in every mode', async () => {
    for (const mode of MODES) {
      const v = aggregateTokenLoss(tf.tensor2d(LOSS), tf.zeros([3, 3]), { aggregate: mode });
      expect(await scalar(v)).toBe(0);
    }
  });
  it('gradient of seq-mean-token-mean is m / (rowCount * nonEmptyRows)', async () => {
    const g = tf.grad((l: tf.Tensor) => aggregateTokenLoss(l, tf.tensor2d(MASK), { aggregate: 'seq-mean-token-mean' }))(tf.tensor2d(LOSS));
    const expected = [1 / 4, 1 / 4, 0, 1 / 2, 0, 0, 0, 0, 0];
    (await read(g)).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 6));
  });

  it('disposes what it creates', () => {
    const l = tf.tensor2d(LOSS);
    const m = tf.tensor2d(MASK);
    const before = tf.memory().numTensors;
    for (const aggregate of MODES) {
      for (const validate of [undefined, false]) {
        aggregateTokenLoss(l, m, { aggregate, validate }).dispose();
        tf.grad((x: tf.Tensor) => aggregateTokenLoss(x, m, { aggregate, validate }))(l).dispose();
      }
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  // validate: false is the path webgpu in Node takes by default: cpu and wasm exercise it too.
  it('validate: false gives the same loss and gradient as the default in every mode', async () => {
    const l = tf.tensor2d(LOSS);
    const m = tf.tensor2d(MASK);
    for (const aggregate of MODES) {
      for (const extra of [{}, { lossScaleFactor: 14 }]) {
        const f = (validate?: boolean) => (x: tf.Tensor) => aggregateTokenLoss(x, m, { aggregate, ...extra, validate });
        const a = tf.valueAndGrad(f())(l);
        const b = tf.valueAndGrad(f(false))(l);
        expect(await scalar(b.value)).toBe(await scalar(a.value));
        expect(await read(b.grad)).toEqual(await read(a.grad));
      }
    }
    expect(await agg('token-mean', { validate: false })).toBeCloseTo(7 / 3, 6);
    expect(await agg('seq-mean-token-mean', { validate: false })).toBeCloseTo((1.5 + 4) / 2, 6);
  });

  it.runIf(readsSync(backend))('validate defaults to true here: a mask value other than 0/1 is rejected on this backend', () => {
    expect(canReadSync()).toBe(true);
    expectFrognanoError(() => aggregateTokenLoss(tf.tensor1d([1, 2]), tf.tensor1d([1, 2])), 'OUT_OF_RANGE', 'lossMask[1]');
    expectFrognanoError(() => aggregateTokenLoss(tf.tensor2d(LOSS), tf.tensor2d([[1, 1, 0], [1, 0, 0], [0, -1, 0]])), 'OUT_OF_RANGE', 'lossMask[2][1]');
  });

  it.runIf(!readsSync(backend))('no synchronous read (webgpu in Node): the default skips the check, an explicit validate: true is BACKEND_UNAVAILABLE', async () => {
    expect(canReadSync()).toBe(false);
    for (const [mode, want] of [['token-mean', 7 / 3], ['token-sum', 7], ['seq-mean-token-mean', 2.75], ['seq-mean-token-sum', 3.5], ['seq-mean-token-sum-norm', 7 / 6]] as const) {
      const v = await agg(mode);
      expect(Number.isFinite(v)).toBe(true);
      expect(v).toBeCloseTo(want, 6);
      expect(v).toBe(await agg(mode, { validate: false }));
    }
    expectFrognanoError(() => aggregateTokenLoss(tf.tensor2d(LOSS), tf.tensor2d(MASK), { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true');
  });
});

describe('aggregateTokenLoss bad input', () => {
  // the previous describe may have left webgpu active, where validate defaults to false
  beforeAll(async () => {
    await useBackend('cpu');
  });
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

describe('aggregateWeightsHost (the dppoLoss host path) equals aggregateWeights on the device', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });
  it('property: same weights in every mode, any [rows, cols] mask (empty rows included)', async () => {
    const { aggregateWeights, aggregateWeightsHost } = await import('./aggregateTokenLoss.js');
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom(0, 1), { minLength: 30, maxLength: 30 }),
        fc.constantFrom(...MODES),
        fc.option(fc.double({ min: 0.5, max: 50, noNaN: true }), { nil: undefined }),
        (rows, cols, bits, mode, lsf) => {
          const mask = bits.slice(0, rows * cols);
          const host = aggregateWeightsHost(mask, [rows, cols], mode, lsf);
          const dev = tf.tidy(() => aggregateWeights(tf.tensor2d(mask, [rows, cols]), mode, lsf).dataSync());
          host.forEach((w, i) => expect(Math.abs(w - dev[i]!)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(w))));
        },
      ),
      { numRuns: 200, seed: 1313 },
    );
  });
});
