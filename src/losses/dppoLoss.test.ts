import * as tf from '@tensorflow/tfjs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { canReadSync } from '../backend/canReadSync.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import {
  dppoDiagnostics,
  dppoLoss,
  dppoLossDetailed,
  LOG_RATIO_CLAMP,
  type DppoLossDiagnostics,
  type DppoLossInputs,
  type DppoLossOptions,
} from './dppoLoss.js';
import { numericGradientAsync } from './numericGradient.js';
import { checkFiniteAsync } from './tensorUtils.js';

/**
 * Tolerances. The tensors are float32 (eps = 2^-23 ~ 1.2e-7 relative), so a
 * loss that sums a handful of terms of order 1 agrees with the float64
 * reference to a few 1e-7; 1e-5 relative leaves room for `exp` implementations
 * (cpu: Math.exp on float32 inputs, wasm: XNNPACK/libm in float32).
 * Finite differences: central differences in float32 with step h have error
 * ~ eps*|f|/h + h^2*|f'''|/6; with h = 1e-2 and |f|, |f'''| of order 1 that is
 * ~1e-5 + 2e-5, so 1e-3 absolute is a safe bound that still catches a wrong
 * factor (the smallest gradient entries below are ~0.1).
 */
const REL = 1e-5;
const FD_TOL = 1e-3;

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, rel = REL): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    expect(Number.isFinite(a), `element ${i} is ${a}`).toBe(true);
    expect(Math.abs(a - e), `element ${i}: ${a} vs ${e}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(e)));
  }
}

interface RefOpts {
  deltaLow?: number;
  deltaHigh?: number;
  kl?: boolean;
  cap?: number;
  capNegativeOnly?: boolean;
}

/** The SPEC §3 loss, mask and gradient in float64 on the float32-rounded inputs. */
function reference(lpn: number[], lpr: number[], adv: number[], mask: number[], o: RefOpts = {}) {
  const lo = o.deltaLow ?? 0.2;
  const hi = o.deltaHigh ?? 0.2;
  const n = lpn.length;
  const keep: number[] = [];
  const tokenLoss: number[] = [];
  const dTokenLoss: number[] = [];
  for (let t = 0; t < n; t++) {
    const lp = Math.fround(lpn[t]!);
    const lq = Math.fround(lpr[t]!);
    const a = Math.fround(adv[t]!);
    const p = Math.exp(lp);
    const q = Math.exp(lq);
    let drop: boolean;
    if (o.kl) {
      const d = q * (lq - lp) + (1 - q) * Math.log((1 - q + 1e-8) / (1 - p + 1e-8));
      drop = a > 0 ? p > q && d > hi : p < q && d > lo;
    } else drop = a > 0 ? p - q > hi : p - q < -lo;
    const k = mask[t] === 1 && !drop ? 1 : 0;
    keep.push(k);
    const lr = lp - lq;
    const clamped = Math.min(LOG_RATIO_CLAMP, Math.max(-LOG_RATIO_CLAMP, lr));
    let rho = Math.exp(clamped);
    let dRho = Math.abs(lr) <= LOG_RATIO_CLAMP ? rho : 0;
    if (o.cap !== undefined && (!o.capNegativeOnly || a < 0) && rho > o.cap) {
      rho = o.cap;
      dRho = 0;
    }
    tokenLoss.push(-a * rho * k);
    dTokenLoss.push(-a * dRho * k);
  }
  const T = mask.reduce((s, m) => s + m, 0);
  const denom = Math.max(T, 1);
  return {
    keep,
    tokenLoss,
    loss: tokenLoss.reduce((s, x) => s + x, 0) / denom,
    grad: dTokenLoss.map((g) => g / denom),
  };
}

function inputsOf(lpn: number[], lpr: number[], adv: number[], mask: number[], shape?: number[]): DppoLossInputs {
  const s = shape ?? [lpn.length];
  return {
    logpNew: tf.tensor(lpn, s),
    logpRollout: tf.tensor(lpr, s),
    advantages: tf.tensor(adv, s),
    lossMask: tf.tensor(mask, s),
  };
}

// Every read is `await data()`: on webgpu in Node there is no synchronous read (see canReadSync).
async function lossAndGrad(x: DppoLossInputs, opts: DppoLossOptions = {}): Promise<{ loss: number; grad: Float32Array }> {
  const { value, grad } = tf.valueAndGrad((lpn: tf.Tensor) => dppoLoss({ ...x, logpNew: lpn }, opts))(x.logpNew);
  const out = { loss: (await value.data())[0]!, grad: (await grad.data()) as Float32Array };
  value.dispose();
  grad.dispose();
  return out;
}

async function read(t: tf.Tensor): Promise<number[]> {
  const v = Array.from((await t.data()) as Float32Array);
  t.dispose();
  return v;
}

/**
 * The diagnostics and the loss: `dppoDiagnostics` (asynchronous, every backend) and
 * `dppoLoss`; where the backend reads synchronously, also `dppoLossDetailed`,
 * which must give the same counts and the same loss.
 */
async function diagnose(x: DppoLossInputs, opts: DppoLossOptions = {}): Promise<Omit<DppoLossDiagnostics, 'loss'> & { loss: number }> {
  const d = await dppoDiagnostics(x, opts);
  const [loss] = await read(dppoLoss(x, opts));
  if (canReadSync()) {
    const { loss: l, ...counts } = dppoLossDetailed(x, opts);
    expect(counts).toEqual(d);
    expect((await read(l))[0]).toBe(loss);
  }
  return { ...d, loss: loss! };
}

// A batch with kept, dropped-positive, dropped-negative, safe-direction and prompt (mask 0) tokens.
const L = Math.log;
const LPN = [L(0.5), L(0.9), L(0.3), L(0.1), L(0.6), L(0.2), L(0.45), L(0.7)];
const LPR = [L(0.4), L(0.5), L(0.6), L(0.5), L(0.2), L(0.25), L(0.5), L(0.1)];
const ADV = [1.0, 1.0, -0.5, 0.7, -1.2, -0.3, 0.4, 2.0];
const MASK = [1, 1, 1, 1, 1, 1, 1, 0];
// token 1: A>0, dp=+0.4 -> drop; token 2: A<=0, dp=-0.3 -> drop; token 3: A>0, dp=-0.4 (safe) -> keep;
// token 4: A<=0, dp=+0.4 (safe) -> keep; token 7: prompt token.

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

  it('gradient agrees with central finite differences', async () => {
    const x = inputsOf(LPN, LPR, ADV, MASK);
    const { grad } = await lossAndGrad(x);
    const fd = await numericGradientAsync((lpn) => dppoLoss({ ...x, logpNew: lpn }), x.logpNew, { h: 1e-2 });
    for (let i = 0; i < fd.length; i++) expect(Math.abs(fd[i]! - grad[i]!)).toBeLessThanOrEqual(FD_TOL);
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
