import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { canReadSync } from '../backend/canReadSync.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS, readsSync } from '../../test/helpers/backends.js';
import { read, scalar } from '../../test/helpers/tensors.js';
import { numericGradientAsync } from './numericGradient.js';
import { rwSftLoss, type TokenPolarity } from './rwSftLoss.js';
import { sftLoss } from './sftLoss.js';

// float32 central differences, h = 1e-2: error ~ eps|f|/h + h^2|f'''|/6; the losses
// here are linear in logp (f''' = 0), so only round-off (~1e-5) remains; 1e-3 bounds it.
const FD_TOL = 1e-3;

const LOGP = [Math.log(0.5), Math.log(0.25), Math.log(0.8), Math.log(0.1), Math.log(0.6)];
const POL: TokenPolarity[] = ['positive', 'neutral', 'negative', 'negative', 'positive'];
const MASK = [1, 1, 1, 0, 1];
const W = { positive: 1.2, neutral: 1.0, negative: 0.8 };

/** -sum w(p) logp m / sum m in float64 on the float32-rounded inputs. */
function reference(logp: number[], pol: TokenPolarity[], mask: number[], w = W): number {
  let num = 0;
  let den = 0;
  logp.forEach((lp, i) => {
    num += Math.fround(w[pol[i]!]) * Math.fround(lp) * mask[i]!;
    den += mask[i]!;
  });
  return den === 0 ? 0 : -num / den;
}

// Every read is `await data()`: tfjs-backend-webgpu in Node reads only asynchronously
// (dataSync needs OffscreenCanvas), and there `validate` defaults to false (see canReadSync).

const NUM_POL = POL.map((p) => (p === 'positive' ? 1 : p === 'neutral' ? 0 : -1));

describe.each(TEST_BACKENDS)('rwSftLoss / sftLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('rwSftLoss = -sum w(p) logp m / sum m, by hand', async () => {
    const v = await scalar(rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }));
    const hand = -(1.2 * Math.log(0.5) + 1.0 * Math.log(0.25) + 0.8 * Math.log(0.8) + 1.2 * Math.log(0.6)) / 4;
    expect(v).toBeCloseTo(hand, 5);
    expect(v).toBeCloseTo(reference(LOGP, POL, MASK), 5);
  });

  it('numeric polarity (+1/0/-1 tensor) gives the same loss as strings', async () => {
    const a = await scalar(rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }));
    const b = await scalar(rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: tf.tensor1d(NUM_POL, 'int32'), lossMask: tf.tensor1d(MASK) }));
    expect(b).toBe(a);
  });

  it('custom weights, partial override keeps the other defaults', async () => {
    const w = { positive: 2, neutral: 1.0, negative: 0 };
    const v = rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }, { weights: { positive: 2, negative: 0 } });
    expect(await scalar(v)).toBeCloseTo(reference(LOGP, POL, MASK, w), 5);
  });

  it('weights 1/1/1 reduce to sftLoss; sftLoss by hand', async () => {
    const logp = tf.tensor2d([LOGP.slice(0, 2), LOGP.slice(2, 4)]);
    const mask = tf.tensor2d([MASK.slice(0, 2), MASK.slice(2, 4)]);
    const sft = await scalar(sftLoss({ logp, lossMask: mask }));
    expect(sft).toBeCloseTo(-(Math.log(0.5) + Math.log(0.25) + Math.log(0.8)) / 3, 5);
    const rw = await scalar(rwSftLoss({ logp, polarity: POL.slice(0, 4), lossMask: mask }, { weights: { positive: 1, neutral: 1, negative: 1 } }));
    expect(rw).toBeCloseTo(sft, 6);
    expect(await scalar(sftLoss({ logp: tf.tensor1d([Math.log(0.5), Math.log(0.25)]) }))).toBeCloseTo((Math.LN2 + Math.log(4)) / 2, 5);
  });

  it('gradients: -w m / sum m, agreeing with finite differences', async () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    const f = (lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL, lossMask: mask });
    const g = await read(tf.grad(f)(x));
    const expected = POL.map((p, i) => (-Math.fround(W[p]) * MASK[i]!) / 4);
    expected.forEach((e, i) => expect(g[i]).toBeCloseTo(e, 6));
    (await numericGradientAsync(f, x)).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
    const gs = await read(tf.grad((lp: tf.Tensor) => sftLoss({ logp: lp, lossMask: mask }))(x));
    MASK.forEach((m, i) => expect(gs[i]).toBeCloseTo(-m / 4, 6));
  });

  it('an empty mask gives 0 with a zero gradient', async () => {
    const zero = tf.zeros([5]);
    const g = await read(tf.grad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL, lossMask: zero }))(tf.tensor1d(LOGP)));
    expect(await scalar(rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: zero }))).toBe(0);
    for (const v of g) expect(Math.abs(v)).toBe(0);
    expect(await scalar(sftLoss({ logp: tf.tensor1d([]) }))).toBe(0);
  });

  it('disposes what it creates', () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    const pol = tf.tensor1d(NUM_POL, 'int32');
    const before = tf.memory().numTensors;
    rwSftLoss({ logp: x, polarity: POL, lossMask: mask }).dispose();
    sftLoss({ logp: x, lossMask: mask }).dispose();
    tf.grad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL }))(x).dispose();
    // the device-side weights of validate: false, under tf.grad (and inside tf.tidy, e.g. optimizer.minimize)
    tf.grad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: pol, lossMask: mask }, { validate: false }))(x).dispose();
    tf.tidy(() => {
      rwSftLoss({ logp: x, polarity: pol, lossMask: mask }, { validate: false });
    });
    expect(tf.memory().numTensors).toBe(before);
  });

  it('a bare call with a polarity tensor and validate: false disposes its device-side weights', () => {
    // the weights once were built before the loss's tf.tidy and leaked one tensor per call (fixed)
    const x = tf.tensor1d(LOGP);
    const pol = tf.tensor1d(NUM_POL, 'int32');
    const before = tf.memory().numTensors;
    rwSftLoss({ logp: x, polarity: pol }, { validate: false }).dispose();
    expect(tf.memory().numTensors - before).toBe(0);
  });

  // validate: false is the path webgpu in Node takes by default: cpu and wasm exercise it too.
  it('validate: false gives the same loss and gradient as the default', async () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    const cases: Array<(lp: tf.Tensor, validate?: boolean) => tf.Scalar> = [
      (lp, validate) => rwSftLoss({ logp: lp, polarity: POL, lossMask: mask }, { validate }),
      (lp, validate) => rwSftLoss({ logp: lp, polarity: POL }, { weights: { positive: 2, negative: 0 }, validate }),
      (lp, validate) => sftLoss({ logp: lp, lossMask: mask }, { validate }),
    ];
    for (const f of cases) {
      const a = tf.valueAndGrad((lp: tf.Tensor) => f(lp))(x);
      const b = tf.valueAndGrad((lp: tf.Tensor) => f(lp, false))(x);
      expect(await scalar(b.value)).toBe(await scalar(a.value));
      expect(await read(b.grad)).toEqual(await read(a.grad));
    }
    const v = await scalar(rwSftLoss({ logp: x, polarity: POL, lossMask: mask }, { validate: false }));
    expect(v).toBeCloseTo(reference(LOGP, POL, MASK), 5);
  });

  it('validate: false with a numeric polarity builds the weights on the device: same loss and gradient as the strings', async () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    for (const weights of [undefined, { positive: 2, neutral: 0.5, negative: 0 }]) {
      for (const pol of [tf.tensor1d(NUM_POL, 'int32'), tf.tensor1d(NUM_POL, 'float32')]) {
        const s = tf.valueAndGrad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL, lossMask: mask }, { weights }))(x);
        const d = tf.valueAndGrad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: pol, lossMask: mask }, { weights, validate: false }))(x);
        expect(await scalar(d.value)).toBe(await scalar(s.value));
        expect(await read(d.grad)).toEqual(await read(s.grad));
      }
    }
    // [B, T] polarity tensor
    const lp2 = tf.tensor2d([LOGP.slice(0, 2), LOGP.slice(2, 4)]);
    const m2 = tf.tensor2d([MASK.slice(0, 2), MASK.slice(2, 4)]);
    const p2 = tf.tensor2d([NUM_POL.slice(0, 2), NUM_POL.slice(2, 4)], [2, 2], 'int32');
    const a = await scalar(rwSftLoss({ logp: lp2, polarity: POL.slice(0, 4), lossMask: m2 }));
    expect(await scalar(rwSftLoss({ logp: lp2, polarity: p2, lossMask: m2 }, { validate: false }))).toBe(a);
  });

  it.runIf(readsSync(backend))('validate defaults to true here: bad values are rejected on this backend', () => {
    expect(canReadSync()).toBe(true);
    const logp = () => tf.tensor1d(LOGP);
    expectFrognanoError(() => rwSftLoss({ logp: logp(), polarity: tf.tensor1d([1, 0, 2, 0, 0]) }), 'OUT_OF_RANGE', 'polarity[2]');
    expectFrognanoError(() => sftLoss({ logp: tf.tensor1d([-1, NaN]) }), 'NON_FINITE', 'sftLoss', 'logp[1]');
    expectFrognanoError(() => rwSftLoss({ logp: tf.tensor1d([-Infinity]), polarity: ['neutral'] }), 'NON_FINITE', 'logp[0]');
    expectFrognanoError(() => sftLoss({ logp: logp(), lossMask: tf.tensor1d([1, 1, 3, 1, 1]) }), 'OUT_OF_RANGE', 'lossMask[2]');
  });

  it.runIf(!readsSync(backend))('no synchronous read (webgpu in Node): the default skips the checks, an explicit validate: true is BACKEND_UNAVAILABLE', async () => {
    expect(canReadSync()).toBe(false);
    const x = { logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) };
    const v = await scalar(rwSftLoss(x));
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeCloseTo(reference(LOGP, POL, MASK), 5);
    expect(v).toBe(await scalar(rwSftLoss(x, { validate: false })));
    expect(await scalar(rwSftLoss({ ...x, polarity: tf.tensor1d(NUM_POL, 'int32') }))).toBe(v);
    const s = await scalar(sftLoss({ logp: x.logp, lossMask: x.lossMask }));
    expect(s).toBeCloseTo(-(Math.log(0.5) + Math.log(0.25) + Math.log(0.8) + Math.log(0.6)) / 4, 5);
    expectFrognanoError(() => rwSftLoss(x, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true', 'checkFiniteAsync');
    expectFrognanoError(() => sftLoss({ logp: x.logp }, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true');
  });
});

describe('rwSftLoss / sftLoss bad input', () => {
  // the previous describe may have left webgpu active, where validate defaults to false
  beforeAll(async () => {
    await useBackend('cpu');
  });
  const logp = () => tf.tensor1d(LOGP);
  it('rejects an unknown polarity string', () =>
    expectFrognanoError(() => rwSftLoss({ logp: logp(), polarity: ['positive', 'good', 'neutral', 'neutral', 'neutral'] as never }), 'INVALID_TYPE', 'polarity[1]'));
  it('rejects a polarity array of the wrong length', () =>
    expectFrognanoError(() => rwSftLoss({ logp: logp(), polarity: POL.slice(0, 3) }), 'LENGTH_MISMATCH', 'polarity'));
  it('rejects a numeric polarity outside {-1, 0, 1}', () =>
    expectFrognanoError(() => rwSftLoss({ logp: logp(), polarity: tf.tensor1d([1, 0, 2, 0, 0]) }), 'OUT_OF_RANGE', 'polarity[2]'));
  it('rejects a negative weight', () =>
    expectFrognanoError(() => rwSftLoss({ logp: logp(), polarity: POL }, { weights: { negative: -0.1 } }), 'OUT_OF_RANGE', 'opts.weights.negative'));
  it('rejects NaN logp', () =>
    expectFrognanoError(() => sftLoss({ logp: tf.tensor1d([-1, NaN]) }), 'NON_FINITE', 'sftLoss', 'logp[1]'));
  it('rejects -Infinity logp', () =>
    expectFrognanoError(() => rwSftLoss({ logp: tf.tensor1d([-Infinity]), polarity: ['neutral'] }), 'NON_FINITE', 'logp[0]'));
  it('rejects a mask of another shape', () =>
    expectFrognanoError(() => sftLoss({ logp: logp(), lossMask: tf.tensor1d([1, 1]) }), 'LENGTH_MISMATCH', 'lossMask'));
  it('rejects a mask value other than 0/1', () =>
    expectFrognanoError(() => sftLoss({ logp: logp(), lossMask: tf.tensor1d([1, 1, 3, 1, 1]) }), 'OUT_OF_RANGE', 'lossMask[2]'));
});
