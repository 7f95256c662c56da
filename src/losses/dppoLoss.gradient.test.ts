import fc from 'fast-check';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { dppoLoss } from './dppoLoss.js';
import { ADV, expectClose, FD_TOL, inputsOf, LPN, LPR, lossAndGrad, MASK, reference } from './dppoLoss.fixtures.js';
import { numericGradientAsync } from './numericGradient.js';

/** The dppoLoss gradient: central finite differences, exact zeros on dropped and mask-0 tokens, linearity in the advantages. */
describe.each(TEST_BACKENDS)('dppoLoss gradient on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('gradient agrees with central finite differences', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const { grad } = await lossAndGrad(x);
    const fd = await numericGradientAsync((lpn) => dppoLoss({ ...x, logpNew: lpn }), x.logpNew, { h: 1e-2 });
    for (let i = 0; i < fd.length; i++) expect(Math.abs(fd[i]! - grad[i]!)).toBeLessThanOrEqual(FD_TOL);
  });

  it('the chain rule: the gradient of c * loss is c times that of the loss (dy = c, not 1), and nothing leaks', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const { grad } = await lossAndGrad(x);
    const before = tf.memory().numTensors;
    for (const c of [1, 3, -0.5]) {
      const g = tf.grad((lpn: tf.Tensor) => tf.mul(dppoLoss({ ...x, logpNew: lpn }), c))(x.logpNew);
      const v = await g.data();
      g.dispose();
      v.forEach((gi, i) => expect(gi).toBe(Math.fround(c * grad[i]!)));
    }
    expect(tf.memory().numTensors).toBe(before);
    tf.dispose([x.logpNew, x.logpRollout, x.advantages, x.lossMask]);
  });

  const batch = fc.integer({ min: 1, max: 10 }).chain((n) =>
    fc.record({
      lpr: fc.array(fc.double({ min: -3, max: -0.05, noNaN: true }), { minLength: n, maxLength: n }),
      move: fc.array(fc.double({ min: -1.5, max: 1.5, noNaN: true }), { minLength: n, maxLength: n }),
      adv: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: n, maxLength: n }),
      mask: fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
    }),
  );

  it('property: the gradient is exactly zero on dropped and mask-0 tokens', async () => {
    await fc.assert(
      fc.asyncProperty(batch, async ({ lpr, move, adv, mask }) => {
        const lpn = lpr.map((q, i) => Math.min(0, q + move[i]!));
        const ref = reference(lpn, lpr, adv, mask);
        const { grad } = await lossAndGrad(inputsOf(lpn, lpr, adv, mask));
        ref.keep.forEach((k, i) => {
          if (k === 0) expect(Math.abs(grad[i]!)).toBe(0);
        });
        expectClose(grad, ref.grad, 1e-4);
      }),
      { numRuns: 25 },
    );
  });

  it('property: scaling all advantages by c > 0 scales the loss and the gradient by c', async () => {
    await fc.assert(
      fc.asyncProperty(batch, fc.double({ min: 0.1, max: 10, noNaN: true }), async ({ lpr, move, adv, mask }, c) => {
        const lpn = lpr.map((q, i) => Math.min(0, q + move[i]!));
        const base = await lossAndGrad(inputsOf(lpn, lpr, adv, mask));
        const scaledAdv = adv.map((a) => Math.fround(Math.fround(a) * c));
        const scaled = await lossAndGrad(inputsOf(lpn, lpr, scaledAdv, mask));
        const tol = 1e-5 * Math.max(1, Math.abs(c * base.loss));
        expect(Math.abs(scaled.loss - c * base.loss)).toBeLessThanOrEqual(tol * 10);
        base.grad.forEach((g, i) => {
          expect(Math.abs(scaled.grad[i]! - c * g)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(c * g)));
        });
      }),
      { numRuns: 25 },
    );
  });
});
