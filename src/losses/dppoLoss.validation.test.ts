import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { canReadSync } from '../backend/canReadSync.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { dppoDiagnostics, dppoLoss, dppoLossDetailed } from './dppoLoss.js';
import { ADV, inputsOf, L, LPN, LPR, MASK, read } from './dppoLoss.fixtures.js';
import { checkFiniteAsync } from './tensorUtils.js';

/** dppoLoss input validation: what `validate` defaults to per backend, and one test per bad input (cpu). */
describe.each(TEST_BACKENDS)('dppoLoss validation on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('validate defaults to what the backend can do: host checks where it reads synchronously, none on webgpu in Node', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const bad = { ...x, logpNew: tf.tensor1d([NaN, ...LPN.slice(1)]) };
    if (canReadSync()) {
      expect(backend).not.toBe('webgpu');
      expectFrognanoError(() => dppoLoss(bad), 'NON_FINITE', 'logpNew[0]');
    } else {
      expect(backend).toBe('webgpu');
      // no synchronous read: the default does not check; the NaN may even vanish (WGSL leaves
      // NaN behaviour of clamp/min/max/comparisons to the implementation), hence checkFiniteAsync ...
      await read(dppoLoss(bad));
      // ... an explicit validate: true and the synchronous diagnostics say why, naming the async forms
      expectFrognanoError(() => dppoLoss(x, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true', 'checkFiniteAsync');
      expectFrognanoError(() => dppoLossDetailed(x), 'BACKEND_UNAVAILABLE', 'dppoDiagnostics');
    }
    // on every backend the asynchronous checks find the NaN
    await expectFrognanoErrorAsync(() => checkFiniteAsync(bad.logpNew, 'logpNew'), 'NON_FINITE', 'logpNew[0]', 'NaN');
    await expectFrognanoErrorAsync(() => dppoDiagnostics(bad), 'NON_FINITE', 'dppoDiagnostics', 'logpNew[0]');
    await checkFiniteAsync(x.logpNew, 'logpNew');
  });
});

describe('dppoLoss bad input', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });
  const ok = () => inputsOf([L(0.5), L(0.5)], [L(0.4), L(0.4)], [1, -1], [1, 1]);

  it('rejects NaN in logpNew', () => {
    const x = ok();
    expectFrognanoError(() => dppoLoss({ ...x, logpNew: tf.tensor1d([NaN, -1]) }), 'NON_FINITE', 'dppoLoss', 'logpNew[0]', 'NaN');
  });
  it('rejects -Infinity in logpRollout, naming the 2-D index', () => {
    const x = inputsOf([-1, -1, -1, -1], [-1, -1, -1, -Infinity], [1, 1, 1, 1], [1, 1, 1, 1], [2, 2]);
    expectFrognanoError(() => dppoLoss(x), 'NON_FINITE', 'logpRollout[1][1]', '-Infinity');
  });
  it('rejects a NaN advantage', () => {
    expectFrognanoError(() => dppoLoss({ ...ok(), advantages: tf.tensor1d([1, NaN]) }), 'NON_FINITE', 'advantages[1]');
  });
  it('rejects a log-prob above 0 (logits passed by mistake)', () => {
    expectFrognanoError(() => dppoLoss({ ...ok(), logpNew: tf.tensor1d([2.5, -1]) }), 'OUT_OF_RANGE', 'logpNew[0]');
  });
  it('rejects a shape mismatch', () => {
    expectFrognanoError(() => dppoLoss({ ...ok(), advantages: tf.tensor1d([1, 1, 1]) }), 'LENGTH_MISMATCH', 'advantages', '[3]', '[2]');
  });
  it('rejects lossMask values other than 0/1', () => {
    expectFrognanoError(() => dppoLoss({ ...ok(), lossMask: tf.tensor1d([1, 0.5]) }), 'OUT_OF_RANGE', 'lossMask[1]');
  });
  it('rejects a non-tensor input', () => {
    expectFrognanoError(() => dppoLoss({ ...ok(), lossMask: [1, 1] as unknown as tf.Tensor }), 'INVALID_TYPE', 'lossMask');
  });
  it('rejects delta <= 0', () => {
    expectFrognanoError(() => dppoLoss(ok(), { delta: 0 }), 'OUT_OF_RANGE', 'opts.delta');
  });
  it('rejects a negative deltaLow', () => {
    expectFrognanoError(() => dppoLoss(ok(), { deltaLow: -0.1 }), 'OUT_OF_RANGE', 'opts.deltaLow');
  });
  it('rejects ratioCap <= 1', () => {
    expectFrognanoError(() => dppoLoss(ok(), { ratioCap: 1 }), 'OUT_OF_RANGE', 'opts.ratioCap');
  });
  it('rejects an unknown ratioCapMode', () => {
    expectFrognanoError(() => dppoLoss(ok(), { ratioCap: 2, ratioCapMode: 'dual' as never }), 'INVALID_TYPE', 'opts.ratioCapMode');
  });
  it('rejects lossScaleFactor <= 0', () => {
    expectFrognanoError(() => dppoLoss(ok(), { aggregate: 'seq-mean-token-sum-norm', lossScaleFactor: 0 }), 'OUT_OF_RANGE', 'opts.lossScaleFactor');
  });
  it('rejects an unknown aggregate mode', () => {
    expectFrognanoError(() => dppoLoss(ok(), { aggregate: 'seq-sum' as never }), 'INVALID_TYPE', 'opts.aggregate');
  });
  it('rejects an unknown option (typo)', () => {
    expectFrognanoError(() => dppoLoss(ok(), { detla: 0.2 } as never), 'INVALID_TYPE', 'detla');
  });
  it('diagnostics validate the same way', () => {
    expectFrognanoError(() => dppoLossDetailed({ ...ok(), logpNew: tf.tensor1d([-Infinity, -1]) }), 'NON_FINITE', 'dppoLossDetailed', 'logpNew[0]');
  });
  it('dppoDiagnostics rejects (asynchronously) what dppoLoss rejects', async () => {
    await expectFrognanoErrorAsync(() => dppoDiagnostics({ ...ok(), lossMask: tf.tensor1d([1, 2]) }), 'OUT_OF_RANGE', 'dppoDiagnostics', 'lossMask[1]');
    await expectFrognanoErrorAsync(() => dppoDiagnostics({ ...ok(), advantages: tf.tensor1d([1]) }), 'LENGTH_MISMATCH', 'advantages');
    await expectFrognanoErrorAsync(() => dppoDiagnostics(ok(), { detla: 1 } as never), 'INVALID_TYPE', 'detla');
  });
  it('checkFiniteAsync rejects a non-tensor and names +Infinity in a 2-D tensor', async () => {
    await expectFrognanoErrorAsync(() => checkFiniteAsync([1] as never, 'x'), 'INVALID_TYPE', 'x');
    await expectFrognanoErrorAsync(() => checkFiniteAsync(tf.tensor2d([[0, 1], [Infinity, 2]]), 'x'), 'NON_FINITE', 'x[1][0]', 'Infinity');
  });
});
