import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { canReadSync } from '../backend/canReadSync.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS, readsSync } from '../../test/helpers/backends.js';
import { read, scalar } from '../../test/helpers/tensors.js';
import { consolidationLoss, type ConsolidationLossOptions } from './consolidationLoss.js';
import { numericGradientAsync } from './numericGradient.js';

// float32 central differences with h = 1e-2: error ~ eps|f|/h + h^2|f'''|/6, ~1e-5 + 2e-5
// for these O(1) log-softmax losses; 1e-3 bounds it while catching a wrong term.
const FD_TOL = 1e-3;

const lse = (xs: number[]) => {
  const m = Math.max(...xs);
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
};

/** App. C as documented, in float64 on float32-rounded inputs. */
function reference(pol: number[][], ref: number[][], targets: number[], mask: number[] | null, k: number, mode: 'topk' | 'full' = 'topk') {
  const perToken = pol.map((row0, i) => {
    const row = row0.map(Math.fround);
    const r = ref[i]!.map(Math.fround);
    const order = r.map((v, j) => [v, j] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const S = order.slice(0, Math.min(k, r.length)).map(([, j]) => j);
    const argmax = order[0]![1];
    const t = targets[i]!;
    if (t !== argmax) return { kl: false, l: lse(row) - row[t]! };
    const lzP = lse(S.map((j) => r[j]!));
    const lzQ = mode === 'topk' ? lse(S.map((j) => row[j]!)) : lse(row);
    let l = 0;
    for (const j of S) {
      const logP = r[j]! - lzP;
      l += Math.exp(logP) * (logP - (row[j]! - lzQ));
    }
    return { kl: true, l };
  });
  const m = mask ?? pol.map(() => 1);
  const den = m.reduce((s, v) => s + v, 0);
  return { perToken, loss: den === 0 ? 0 : perToken.reduce((s, p, i) => s + p.l * m[i]!, 0) / den };
}

const POL = [
  [0.2, 1.5, -0.3, 0.8, 0.0, -1.0],
  [1.0, 0.1, 0.4, -0.6, 2.0, 0.3],
  [0.5, 0.5, -1.2, 0.9, 0.2, 0.7],
  [-0.4, 0.3, 1.1, 0.6, -0.2, 0.0],
];
const REF = [
  [0.1, 2.0, 0.3, 1.1, -0.5, -2.0], // argmax 1
  [1.8, 0.2, 0.9, 1.0, 0.4, -1.0], // argmax 0
  [2.0, 2.0, 1.0, 1.0, 1.0, -3.0], // tie at the top (argmax 0) and at the k-th place (ids 2, 3, 4)
  [0.0, 0.5, 2.5, 0.4, 0.3, 0.2], // argmax 2
];
const TARGETS = [1, 3, 0, 4]; // KL, CE, KL, CE
const K = 3;

// Every read is `await data()`: tfjs-backend-webgpu in Node reads only asynchronously
// (dataSync needs OffscreenCanvas), and there `validate` defaults to false (see canReadSync).

describe.each(TEST_BACKENDS)('consolidationLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const inputs = () => ({ policyLogits: tf.tensor2d(POL), refLogits: tf.tensor2d(REF), targets: tf.tensor1d(TARGETS, 'int32') });

  it('uses the top-k KL where the target is the reference argmax, cross-entropy elsewhere', async () => {
    const ref = reference(POL, REF, TARGETS, null, K);
    expect(ref.perToken.map((p) => p.kl)).toEqual([true, false, true, false]);
    const v = await scalar(consolidationLoss(inputs(), { topK: K }));
    expect(v).toBeCloseTo(ref.loss, 5);
    // each branch alone through the mask
    const kl0 = await scalar(consolidationLoss({ ...inputs(), lossMask: tf.tensor1d([1, 0, 0, 0]) }, { topK: K }));
    expect(kl0).toBeCloseTo(ref.perToken[0]!.l, 5);
    const ce1 = await scalar(consolidationLoss({ ...inputs(), lossMask: tf.tensor1d([0, 1, 0, 0]) }, { topK: K }));
    expect(ce1).toBeCloseTo(lse(POL[1]!) - POL[1]![3]!, 5);
  });

  it("the KL branch by hand (row 0, k = 3, S = {1, 3, 2})", async () => {
    const S = [1, 3, 2];
    const zP = lse(S.map((j) => REF[0]![j]!));
    const zQ = lse(S.map((j) => POL[0]![j]!));
    const hand = S.reduce((s, j) => s + Math.exp(REF[0]![j]! - zP) * (REF[0]![j]! - zP - (POL[0]![j]! - zQ)), 0);
    const v = await scalar(consolidationLoss({ ...inputs(), lossMask: tf.tensor1d([1, 0, 0, 0]) }, { topK: 3 }));
    expect(v).toBeCloseTo(hand, 5);
  });

  it("policyNormalization 'full' uses the full log-softmax on the top-k ids", async () => {
    const ref = reference(POL, REF, TARGETS, null, K, 'full');
    expect(await scalar(consolidationLoss(inputs(), { topK: K, policyNormalization: 'full' }))).toBeCloseTo(ref.loss, 5);
    expect(ref.loss).toBeGreaterThan(reference(POL, REF, TARGETS, null, K).loss);
  });

  it('topK >= V is the full KL(softmax(ref) || softmax(policy)); default topK = 64 clamps to V', async () => {
    const full = reference(POL, REF, TARGETS, null, 6);
    expect(await scalar(consolidationLoss(inputs()))).toBeCloseTo(full.loss, 5);
    expect(await scalar(consolidationLoss(inputs(), { topK: 6, policyNormalization: 'full' }))).toBeCloseTo(full.loss, 5);
  });

  it('[B, T, V] equals the flattened [T, V]; lossMask averages over counted tokens', async () => {
    const three = consolidationLoss(
      { policyLogits: tf.tensor3d([POL.slice(0, 2), POL.slice(2)]), refLogits: tf.tensor3d([REF.slice(0, 2), REF.slice(2)]), targets: tf.tensor2d([TARGETS.slice(0, 2), TARGETS.slice(2)], [2, 2], 'int32') },
      { topK: K },
    );
    expect(await scalar(three)).toBeCloseTo(reference(POL, REF, TARGETS, null, K).loss, 5);
    const masked = await scalar(consolidationLoss({ ...inputs(), lossMask: tf.tensor1d([1, 1, 0, 1]) }, { topK: K }));
    expect(masked).toBeCloseTo(reference(POL, REF, TARGETS, [1, 1, 0, 1], K).loss, 5);
    expect(await scalar(consolidationLoss({ ...inputs(), lossMask: tf.zeros([4]) }))).toBe(0);
  });

  it('gradient agrees with finite differences in both normalisations', async () => {
    const x = tf.tensor2d(POL);
    for (const mode of ['topk', 'full'] as const) {
      const f = (p: tf.Tensor) => consolidationLoss({ ...inputs(), policyLogits: p }, { topK: K, policyNormalization: mode });
      const g = await read(tf.grad(f)(x));
      (await numericGradientAsync(f, x)).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
      // 'topk': the KL rows get no gradient outside S (row 0: ids 0, 4, 5)
      if (mode === 'topk') for (const j of [0, 4, 5]) expect(Math.abs(g[j]!)).toBe(0);
    }
  });

  it('the reference side is a constant: refLogits === policyLogits differentiates like a frozen copy', async () => {
    const x = tf.tensor2d(POL);
    const t = tf.tensor1d(TARGETS, 'int32');
    const self = await read(tf.grad((p: tf.Tensor) => consolidationLoss({ policyLogits: p, refLogits: p, targets: t }, { topK: K }))(x));
    const frozen = await read(tf.grad((p: tf.Tensor) => consolidationLoss({ policyLogits: p, refLogits: tf.tensor2d(POL), targets: t }, { topK: K }))(x));
    self.forEach((v, i) => expect(v).toBeCloseTo(frozen[i]!, 6));
  });

  it('disposes what it creates', () => {
    const x = inputs();
    const lossMask = tf.tensor1d([1, 1, 0, 1]);
    const before = tf.memory().numTensors;
    for (const validate of [undefined, false]) {
      consolidationLoss(x, { topK: K, validate }).dispose();
      consolidationLoss({ ...x, lossMask }, { topK: K, validate }).dispose();
      tf.grad((p: tf.Tensor) => consolidationLoss({ ...x, policyLogits: p }, { topK: K, validate }))(x.policyLogits).dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  // validate: false is the path webgpu in Node takes by default: cpu and wasm exercise it too.
  it('validate: false gives the same loss and gradient as the default', async () => {
    const x = tf.tensor2d(POL);
    const cases: ConsolidationLossOptions[] = [{ topK: K }, { topK: K, policyNormalization: 'full' }, {}];
    for (const opts of cases) {
      for (const lossMask of [undefined, tf.tensor1d([1, 1, 0, 1])]) {
        const f = (validate?: boolean) => (p: tf.Tensor) => consolidationLoss({ ...inputs(), policyLogits: p, lossMask }, { ...opts, validate });
        const a = tf.valueAndGrad(f())(x);
        const b = tf.valueAndGrad(f(false))(x);
        expect(await scalar(b.value)).toBe(await scalar(a.value));
        expect(await read(b.grad)).toEqual(await read(a.grad));
      }
    }
    expect(await scalar(consolidationLoss(inputs(), { topK: K, validate: false }))).toBeCloseTo(reference(POL, REF, TARGETS, null, K).loss, 5);
  });

  it.runIf(readsSync(backend))('validate defaults to true here: bad values are rejected on this backend', () => {
    expect(canReadSync()).toBe(true);
    expectFrognanoError(() => consolidationLoss({ ...inputs(), targets: tf.tensor1d([1, 6, 0, 0], 'int32') }), 'OUT_OF_RANGE', 'targets[1]');
    const bad = REF.map((r) => r.slice());
    bad[1]![2] = NaN;
    expectFrognanoError(() => consolidationLoss({ ...inputs(), refLogits: tf.tensor2d(bad) }), 'NON_FINITE', 'refLogits[1][2]');
    const badPol = POL.map((r) => r.slice());
    badPol[3]![0] = -Infinity;
    expectFrognanoError(() => consolidationLoss({ ...inputs(), policyLogits: tf.tensor2d(badPol) }), 'NON_FINITE', 'policyLogits[3][0]');
    expectFrognanoError(() => consolidationLoss({ ...inputs(), lossMask: tf.tensor1d([1, 0.5, 1, 1]) }), 'OUT_OF_RANGE', 'lossMask[1]');
  });

  it.runIf(!readsSync(backend))('no synchronous read (webgpu in Node): the default skips the checks, an explicit validate: true is BACKEND_UNAVAILABLE', async () => {
    expect(canReadSync()).toBe(false);
    const v = await scalar(consolidationLoss(inputs(), { topK: K }));
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeCloseTo(reference(POL, REF, TARGETS, null, K).loss, 5);
    expect(v).toBe(await scalar(consolidationLoss(inputs(), { topK: K, validate: false })));
    expectFrognanoError(() => consolidationLoss(inputs(), { topK: K, validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true', 'checkFiniteAsync');
  });
});

describe('consolidationLoss bad input', () => {
  // the previous describe may have left webgpu active, where validate defaults to false
  beforeAll(async () => {
    await useBackend('cpu');
  });
  const x = () => ({ policyLogits: tf.tensor2d(POL), refLogits: tf.tensor2d(REF), targets: tf.tensor1d(TARGETS, 'int32') });
  it('rejects a target outside [0, V)', () =>
    expectFrognanoError(() => consolidationLoss({ ...x(), targets: tf.tensor1d([1, 6, 0, 0], 'int32') }), 'OUT_OF_RANGE', 'targets[1]'));
  it('rejects rank-1 logits', () =>
    expectFrognanoError(() => consolidationLoss({ ...x(), policyLogits: tf.tensor1d([1, 2]), refLogits: tf.tensor1d([1, 2]) }), 'INVALID_TYPE', 'policyLogits'));
  it('rejects an empty vocabulary', () =>
    expectFrognanoError(() => consolidationLoss({ policyLogits: tf.zeros([2, 0]), refLogits: tf.zeros([2, 0]), targets: tf.tensor1d([0, 0], 'int32') }), 'EMPTY_INPUT', 'policyLogits'));
  it('rejects NaN in refLogits, naming the element', () => {
    const bad = REF.map((r) => r.slice());
    bad[1]![2] = NaN;
    expectFrognanoError(() => consolidationLoss({ ...x(), refLogits: tf.tensor2d(bad) }), 'NON_FINITE', 'refLogits[1][2]');
  });
  it('rejects refLogits of another shape', () =>
    expectFrognanoError(() => consolidationLoss({ ...x(), refLogits: tf.zeros([4, 5]) }), 'LENGTH_MISMATCH', 'refLogits'));
  it('rejects topK < 1', () => expectFrognanoError(() => consolidationLoss(x(), { topK: 0 }), 'OUT_OF_RANGE', 'opts.topK'));
});
