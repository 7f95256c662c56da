import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { numericGradient } from './numericGradient.js';
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

describe.each(TEST_BACKENDS)('rwSftLoss / sftLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('rwSftLoss = -sum w(p) logp m / sum m, by hand', () => {
    const v = rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }).dataSync()[0]!;
    const hand = -(1.2 * Math.log(0.5) + 1.0 * Math.log(0.25) + 0.8 * Math.log(0.8) + 1.2 * Math.log(0.6)) / 4;
    expect(v).toBeCloseTo(hand, 5);
    expect(v).toBeCloseTo(reference(LOGP, POL, MASK), 5);
  });

  it('numeric polarity (+1/0/-1 tensor) gives the same loss as strings', () => {
    const num = POL.map((p) => (p === 'positive' ? 1 : p === 'neutral' ? 0 : -1));
    const a = rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }).dataSync()[0]!;
    const b = rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: tf.tensor1d(num, 'int32'), lossMask: tf.tensor1d(MASK) }).dataSync()[0]!;
    expect(b).toBe(a);
  });

  it('custom weights, partial override keeps the other defaults', () => {
    const w = { positive: 2, neutral: 1.0, negative: 0 };
    const v = rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: tf.tensor1d(MASK) }, { weights: { positive: 2, negative: 0 } });
    expect(v.dataSync()[0]).toBeCloseTo(reference(LOGP, POL, MASK, w), 5);
  });

  it('weights 1/1/1 reduce to sftLoss; sftLoss by hand', () => {
    const logp = tf.tensor2d([LOGP.slice(0, 2), LOGP.slice(2, 4)]);
    const mask = tf.tensor2d([MASK.slice(0, 2), MASK.slice(2, 4)]);
    const sft = sftLoss({ logp, lossMask: mask }).dataSync()[0]!;
    expect(sft).toBeCloseTo(-(Math.log(0.5) + Math.log(0.25) + Math.log(0.8)) / 3, 5);
    const rw = rwSftLoss({ logp, polarity: POL.slice(0, 4), lossMask: mask }, { weights: { positive: 1, neutral: 1, negative: 1 } }).dataSync()[0]!;
    expect(rw).toBeCloseTo(sft, 6);
    expect(sftLoss({ logp: tf.tensor1d([Math.log(0.5), Math.log(0.25)]) }).dataSync()[0]).toBeCloseTo((Math.LN2 + Math.log(4)) / 2, 5);
  });

  it('gradients: -w m / sum m, agreeing with finite differences', () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    const f = (lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL, lossMask: mask });
    const g = tf.grad(f)(x).dataSync();
    const expected = POL.map((p, i) => (-Math.fround(W[p]) * MASK[i]!) / 4);
    expected.forEach((e, i) => expect(g[i]).toBeCloseTo(e, 6));
    numericGradient(f, x).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
    const gs = tf.grad((lp: tf.Tensor) => sftLoss({ logp: lp, lossMask: mask }))(x).dataSync();
    MASK.forEach((m, i) => expect(gs[i]).toBeCloseTo(-m / 4, 6));
  });

  it('an empty mask gives 0 with a zero gradient', () => {
    const zero = tf.zeros([5]);
    const g = tf.grad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL, lossMask: zero }))(tf.tensor1d(LOGP)).dataSync();
    expect(rwSftLoss({ logp: tf.tensor1d(LOGP), polarity: POL, lossMask: zero }).dataSync()[0]).toBe(0);
    for (const v of g) expect(Math.abs(v)).toBe(0);
    expect(sftLoss({ logp: tf.tensor1d([]) }).dataSync()[0]).toBe(0);
  });

  it('disposes what it creates', () => {
    const x = tf.tensor1d(LOGP);
    const mask = tf.tensor1d(MASK);
    const before = tf.memory().numTensors;
    rwSftLoss({ logp: x, polarity: POL, lossMask: mask }).dispose();
    sftLoss({ logp: x, lossMask: mask }).dispose();
    tf.grad((lp: tf.Tensor) => rwSftLoss({ logp: lp, polarity: POL }))(x).dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('rwSftLoss / sftLoss bad input', () => {
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
