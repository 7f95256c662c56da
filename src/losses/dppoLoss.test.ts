import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { dppoLoss } from './dppoLoss.js';
import { ADV, diagnose, expectClose, inputsOf, L, LPN, LPR, lossAndGrad, MASK, read, reference } from './dppoLoss.fixtures.js';

/** dppoLoss against SPEC §3 by hand: the loss, the strict asymmetric TV and Binary-KL masks, ratioCap, the log-ratio clamp, empty inputs. */
describe.each(TEST_BACKENDS)('dppoLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('matches the SPEC §3 formula (|T| normaliser, strict asymmetric mask)', async () => {
    const ref = reference(LPN, LPR, ADV, MASK);
    expect(ref.keep).toEqual([1, 0, 0, 1, 1, 1, 1, 0]);
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const { loss, grad } = await lossAndGrad(x);
    expectClose([loss], [ref.loss]);
    expectClose(grad, ref.grad);
    // hand check of the first entry: -(1/7) * 1.0 * 0.5/0.4
    expect(ref.grad[0]).toBeCloseTo(-(1 / 7) * 1.25, 6);
  });

  it('the README example: -(1/2) * 0.5/0.4 = -0.625', async () => {
    const x = inputsOf([L(0.5), L(0.9)], [L(0.4), L(0.5)], [1, 1], [1, 1]);
    expect((await read(dppoLoss(x)))[0]).toBeCloseTo(-0.625, 6);
  });

  it('validate: false builds the same mask on the device', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    // ratioCap with both scopes: the device path once capped only A < 0 tokens whatever the scope (found on webgpu)
    for (const opts of [{}, { divergence: 'kl' as const, delta: 0.05 }, { ratioCap: 1.5 }, { ratioCap: 1.1, ratioCapScope: 'negative' as const }, { ratioCap: 1.1 }]) {
      const a = await lossAndGrad(x, opts);
      const b = await lossAndGrad(x, { ...opts, validate: false });
      expectClose([b.loss], [a.loss]);
      expectClose(b.grad, a.grad);
    }
  });

  it('comparisons are strict: dp exactly deltaHigh is kept, just above is dropped', async () => {
    const lp = Math.fround(L(0.7));
    const lq = Math.fround(L(0.5));
    const dp = Math.exp(lp) - Math.exp(lq); // the float64 dp the mask sees
    const x = inputsOf([lp], [lq], [1], [1]);
    expect((await diagnose(x, { deltaHigh: dp })).kept).toBe(1);
    expect((await diagnose(x, { deltaHigh: dp * (1 - 1e-12) })).kept).toBe(0);
    const y = inputsOf([lq], [lp], [-1], [1]); // dp = -(same)
    expect((await diagnose(y, { deltaLow: dp })).kept).toBe(1);
    expect((await diagnose(y, { deltaLow: dp * (1 - 1e-12) })).kept).toBe(0);
  });

  it('deltaLow and deltaHigh act on their own side only', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    // deltaHigh 0.5 keeps token 1 (dp = +0.4); deltaLow stays 0.2 and still drops token 2.
    const d = await diagnose(x, { deltaHigh: 0.5 });
    expect([d.droppedPositive, d.droppedNegative]).toEqual([0, 1]);
    const ref = reference(LPN, LPR, ADV, MASK, { deltaHigh: 0.5 });
    expectClose([d.loss], [ref.loss]);
    const e = await diagnose(x, { deltaLow: 0.35 });
    expect([e.droppedPositive, e.droppedNegative]).toEqual([1, 0]);
  });

  it('the Binary-KL mask drops only moves the advantage favours, when KL > delta', async () => {
    // p: 0.01 -> 0.2 on a positive token: dp = 0.19 <= 0.2 (TV keeps) but KL = 0.181 > 0.1 (drops).
    // p: 0.9 -> 0.99 on a positive token: dp = 0.09, KL = 0.144 > 0.1 -> drop.
    // p: 0.5 -> 0.2 on a positive token: a move against the advantage, never dropped.
    // p: 0.5 -> 0.2 on a negative token: KL = 0.223 > 0.1, the favoured direction -> drop.
    // p: 0.5 -> 0.71 on a positive token: dp = 0.21 (TV drops) but KL = 0.0899 <= 0.1 (kept).
    const lpn = [L(0.2), L(0.99), L(0.2), L(0.2), L(0.71)];
    const lpr = [L(0.01), L(0.9), L(0.5), L(0.5), L(0.5)];
    const adv = [1, 1, 1, -1, 1];
    const mask = [1, 1, 1, 1, 1];
    const ref = reference(lpn, lpr, adv, mask, { kl: true, deltaLow: 0.1, deltaHigh: 0.1 });
    expect(ref.keep).toEqual([0, 0, 1, 0, 1]);
    const tvRef = reference(lpn, lpr, adv, mask);
    expect(tvRef.keep).toEqual([1, 1, 1, 0, 0]);
    const x = inputsOf(lpn, lpr, adv, mask);
    const d = await diagnose(x, { divergence: 'kl', delta: 0.1 });
    expect([d.kept, d.droppedPositive, d.droppedNegative]).toEqual([2, 2, 1]);
    expectClose([d.loss], [ref.loss]);
    // hand value of the first token's KL: q ln(q/p) + (1-q) ln((1-q)/(1-p)), q = 0.01, p = 0.2
    expect(0.01 * Math.log(0.01 / 0.2) + 0.99 * Math.log(0.99 / 0.8)).toBeCloseTo(0.18104, 4);
  });

  it('ratioCap: min(rho, cap) with zero gradient above the cap; scope negative leaves A > 0 alone', async () => {
    // rho = 2 on both tokens (p: 0.2 -> 0.4 would be dropped by TV 0.2 for A>0, so use a wide delta)
    const x = inputsOf([L(0.4), L(0.4)], [L(0.2), L(0.2)], [1, -1], [1, 1]);
    const all = await lossAndGrad(x, { delta: 0.9, ratioCap: 1.5 });
    expectClose([all.loss], [(-1 * 1.5 + 1 * 1.5) / 2]);
    expect(Math.abs(all.grad[0]!)).toBe(0);
    expect(Math.abs(all.grad[1]!)).toBe(0);
    const neg = await lossAndGrad(x, { delta: 0.9, ratioCap: 1.5, ratioCapScope: 'negative' });
    expectClose([neg.loss], [(-1 * 2 + 1 * 1.5) / 2]);
    expectClose(neg.grad, [-2 / 2, 0]);
    const ref = reference([L(0.4), L(0.4)], [L(0.2), L(0.2)], [1, -1], [1, 1], { deltaHigh: 0.9, deltaLow: 0.9, cap: 1.5, capNegativeOnly: true });
    expectClose([neg.loss], [ref.loss]);
  });

  it('clamps the log-ratio to ±20: finite loss, no gradient beyond the clamp', async () => {
    // q = e^-30, p = e^-5: log-ratio 25, dp ~ 0.0067 (kept for A > 0)
    const x = inputsOf([-5, -1], [-30, -1], [1, 1], [1, 1]);
    const { loss, grad } = await lossAndGrad(x);
    expectClose([loss], [(-Math.exp(20) - 1) / 2]);
    expect(Math.abs(grad[0]!)).toBe(0);
    expectClose([grad[1]!], [-0.5]);
    const d = await diagnose(x);
    expect(d.maxAbsLogRho).toBeCloseTo(25, 5);
  });

  it('|T| = 0 gives loss 0 with a zero (not NaN) gradient; empty tensors give 0', async () => {
    const x = inputsOf(LPN, LPR, ADV, new Array(LPN.length).fill(0));
    const { loss, grad } = await lossAndGrad(x);
    expect(loss).toBe(0);
    for (const g of grad) expect(Math.abs(g)).toBe(0);
    const none = await lossAndGrad(x, { aggregate: 'seq-mean-token-mean' });
    expect(none.loss).toBe(0);
    const empty = inputsOf([], [], [], []);
    expect((await read(dppoLoss(empty)))[0]).toBe(0);
    const d = await diagnose(empty);
    expect([d.tokens, d.keptFraction, d.meanRho, d.maxAbsLogRho]).toEqual([0, 1, 1, 0]);
  });
});
