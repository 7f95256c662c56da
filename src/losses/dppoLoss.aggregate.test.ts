import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { canReadSync } from '../backend/canReadSync.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { dppoDiagnostics, dppoLoss, dppoLossDetailed } from './dppoLoss.js';
import { ADV, diagnose, expectClose, FD_TOL, inputsOf, LPN, LPR, MASK, read, reference } from './dppoLoss.fixtures.js';
import { numericGradientAsync } from './numericGradient.js';

/** dppoLoss aggregate modes (verl agg_loss), the diagnostics counts, and that every tensor it creates is disposed. */
describe.each(TEST_BACKENDS)('dppoLoss aggregation and diagnostics on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('aggregate modes follow verl agg_loss on [batch, seqLen]', async () => {
    const shape = [2, 4];
    const x = inputsOf(LPN, LPR, ADV, MASK, shape);
    const ref = reference(LPN, LPR, ADV, MASK);
    const tl = ref.tokenLoss; // already times keep (and keep is 0 where mask is 0)
    const row0 = tl.slice(0, 4).reduce((s, v) => s + v, 0);
    const row1 = tl.slice(4).reduce((s, v) => s + v, 0);
    // seq-mean-token-mean: row means over each row's mask count (4 and 3), then the mean of rows
    const seqMean = (row0 / 4 + row1 / 3) / 2;
    expectClose(await read(dppoLoss(x, { aggregate: 'seq-mean-token-mean' })), [seqMean]);
    // seq-mean-token-sum-norm (verl after PR #5417; issue #13 changed this pin, which lacked the mean over
    // the 2 non-empty rows): the mean of the row sums over loss_mask.shape[-1] = 4, or a given constant
    expectClose(await read(dppoLoss(x, { aggregate: 'seq-mean-token-sum-norm' })), [(row0 + row1) / 2 / 4]);
    expectClose(await read(dppoLoss(x, { aggregate: 'seq-mean-token-sum-norm', lossScaleFactor: 10 })), [(row0 + row1) / 2 / 10]);
    // token-sum and seq-mean-token-sum
    expectClose(await read(dppoLoss(x, { aggregate: 'token-sum' })), [row0 + row1]);
    expectClose(await read(dppoLoss(x, { aggregate: 'seq-mean-token-sum' })), [(row0 + row1) / 2]);
    // token-mean is the SPEC formula whatever the shape
    expectClose(await read(dppoLoss(x)), [ref.loss]);
    // FD on the seq-mean mode too
    const g = await read(tf.grad((lpn: tf.Tensor) => dppoLoss({ ...x, logpNew: lpn }, { aggregate: 'seq-mean-token-mean' }))(x.logpNew));
    const fd = await numericGradientAsync((lpn) => dppoLoss({ ...x, logpNew: lpn }, { aggregate: 'seq-mean-token-mean' }), x.logpNew);
    for (let i = 0; i < fd.length; i++) expect(Math.abs(fd[i]! - g[i]!)).toBeLessThanOrEqual(FD_TOL);
  });

  it('diagnostics count over loss-mask tokens', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const d = await diagnose(x);
    expect([d.tokens, d.kept, d.droppedPositive, d.droppedNegative]).toEqual([7, 5, 1, 1]);
    expect(d.keptFraction).toBeCloseTo(5 / 7, 12);
    const rhos = [0.5 / 0.4, 0.9 / 0.5, 0.3 / 0.6, 0.1 / 0.5, 0.6 / 0.2, 0.2 / 0.25, 0.45 / 0.5];
    expect(d.meanRho).toBeCloseTo(rhos.reduce((s, v) => s + v, 0) / 7, 5);
    expect(d.maxAbsLogRho).toBeCloseTo(Math.log(5), 5);
    expectClose([d.loss], [reference(LPN, LPR, ADV, MASK).loss]);
  });

  it('disposes every tensor it creates (forward and gradient)', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK, [2, 4]);
    const before = tf.memory().numTensors;
    for (const opts of [{}, { validate: false }, { aggregate: 'seq-mean-token-mean' as const, ratioCap: 2, ratioCapScope: 'negative' as const }]) {
      dppoLoss(x, opts).dispose();
      tf.grad((lpn: tf.Tensor) => dppoLoss({ ...x, logpNew: lpn }, opts))(x.logpNew).dispose();
    }
    if (canReadSync()) dppoLossDetailed(x).loss.dispose();
    await dppoDiagnostics(x);
    expect(tf.memory().numTensors).toBe(before);
  });
});
