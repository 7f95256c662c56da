import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { numericGradient } from './numericGradient.js';
import { createSpanKto, SpanKtoState, spanKtoLoss, type Span } from './spanKtoLoss.js';

// float32 central differences with h = 1e-2: error ~ eps|f|/h + h^2|f'''|/6, about
// 1e-5 for these O(1) losses (beta = 0.1 keeps f''' small); 1e-3 bounds it.
const FD_TOL = 1e-3;
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface Opts {
  beta?: number;
  lambdaW?: number;
  lambdaL?: number;
  emaAlpha?: number;
}

/** SPEC §5 in float64 on float32-rounded inputs; the gradient treats zRef' as a constant (detached). */
function reference(lpP: number[], lpR: number[], spans: Span[], neutral: number[] | null, zRef: number, o: Opts = {}) {
  const beta = o.beta ?? 0.1;
  const lw = o.lambdaW ?? 1;
  const ll = o.lambdaL ?? 1;
  const alpha = o.emaAlpha ?? 0.9;
  const p = lpP.map(Math.fround);
  const q = lpR.map(Math.fround);
  const r = spans.map((s) => {
    let acc = 0;
    for (let t = s.start; t < s.end; t++) acc += p[t]! - q[t]!;
    return acc;
  });
  const K = spans.length;
  const zNext = K > 0 ? alpha * zRef + ((1 - alpha) * r.reduce((a, b) => a + b, 0)) / K : zRef;
  const grad = new Array<number>(p.length).fill(0);
  let lPref = 0;
  spans.forEach((s, k) => {
    const sign = s.polarity === 'positive' ? 1 : -1;
    const coef = s.polarity === 'positive' ? -lw : -ll;
    const z = sign * beta * (r[k]! - zNext);
    lPref += (coef * sigmoid(z)) / K;
    const d = (coef * sigmoid(z) * (1 - sigmoid(z)) * sign * beta) / K;
    for (let t = s.start; t < s.end; t++) grad[t]! += d;
  });
  let lNeu = 0;
  const nNeu = neutral ? neutral.reduce((a, b) => a + b, 0) : 0;
  if (neutral && nNeu > 0) {
    neutral.forEach((m, t) => {
      lNeu -= (p[t]! * m) / nNeu;
      grad[t]! -= m / nNeu;
    });
  }
  return { loss: lPref + lNeu, lPref, lNeu, zRef: zNext, grad };
}

const LP = [-0.5, -1.2, -0.1, -2.0, -0.7, -0.3, -1.5, -0.9];
const LR = [-0.6, -1.0, -0.4, -1.1, -0.7, -0.8, -1.5, -0.2];
const SPANS: Span[] = [
  { start: 0, end: 3, polarity: 'positive' },
  { start: 3, end: 5, polarity: 'negative' },
  { start: 6, end: 8, polarity: 'negative' },
];
const NEUTRAL = [0, 0, 0, 0, 0, 1, 1, 0];

describe.each(TEST_BACKENDS)('spanKtoLoss on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const batch = (lp = LP, spans = SPANS, neutral: number[] | null = NEUTRAL) => ({
    logpPolicy: tf.tensor1d(lp),
    logpRef: tf.tensor1d(LR),
    spans,
    ...(neutral ? { neutralMask: tf.tensor1d(neutral) } : {}),
  });

  it('matches SPEC §5 by hand: r_k, zRef EMA, sigmoid values, neutral NLL', () => {
    const { loss, zRef } = spanKtoLoss(batch(), { zRef: 0.2 }, { beta: 0.5, lambdaL: 1.5 });
    // r = [0.2, -0.9, -0.7]; mean -1.4/3; zRef' = 0.9*0.2 + 0.1*(-1.4/3) = 0.13333
    const z1 = 0.18 - 0.14 / 3;
    expect(zRef).toBeCloseTo(z1, 6);
    const a = [0.2 - z1, -0.9 - z1, -0.7 - z1];
    const lPref = (-sigmoid(0.5 * a[0]!) - 1.5 * sigmoid(-0.5 * a[1]!) - 1.5 * sigmoid(-0.5 * a[2]!)) / 3;
    const lNeu = -(-0.3 + -1.5) / 2;
    expect(loss.dataSync()[0]).toBeCloseTo(lPref + lNeu, 5);
    expect(loss.dataSync()[0]).toBeCloseTo(reference(LP, LR, SPANS, NEUTRAL, 0.2, { beta: 0.5, lambdaL: 1.5 }).loss, 5);
  });

  it('the gradient does not flow through zRef (detached EMA)', () => {
    const x = tf.tensor1d(LP);
    const g = tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...batch(), logpPolicy: lp }, { zRef: 0.2 }, { beta: 0.5 }).loss)(x).dataSync();
    const ref = reference(LP, LR, SPANS, NEUTRAL, 0.2, { beta: 0.5 });
    ref.grad.forEach((e, i) => expect(g[i]).toBeCloseTo(e, 5));
  });

  it('with emaAlpha = 1 (zRef constant) the gradient agrees with finite differences', () => {
    const x = tf.tensor1d(LP);
    const f = (lp: tf.Tensor) => spanKtoLoss({ ...batch(), logpPolicy: lp }, { zRef: -0.3 }, { beta: 0.5, emaAlpha: 1 }).loss;
    const g = tf.grad(f)(x).dataSync();
    numericGradient(f, x).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('SpanKtoState carries zRef over batches: the EMA sequence, a batch without spans leaves it', () => {
    const kto = createSpanKto({ zRef: 0.5 });
    const batches = [
      { lp: LP, spans: SPANS },
      { lp: LP.map((v) => v - 0.3), spans: SPANS.slice(0, 2) },
      { lp: LP, spans: [] as Span[] },
      { lp: LP.map((v) => Math.min(0, v + 0.2)), spans: [SPANS[2]!] },
    ];
    let z = 0.5;
    for (const b of batches) {
      const ref = reference(b.lp, LR, b.spans, NEUTRAL, z);
      const loss = kto.loss(batch(b.lp, b.spans));
      expect(loss.dataSync()[0]).toBeCloseTo(ref.loss, 5);
      expect(kto.zRef).toBeCloseTo(ref.zRef, 6);
      z = ref.zRef;
      loss.dispose();
    }
    expect(kto.batches).toBe(4);
    // the third batch had no span: zRef did not move across it
    const z2 = reference(batches[1]!.lp, LR, batches[1]!.spans, NEUTRAL, reference(LP, LR, SPANS, NEUTRAL, 0.5).zRef).zRef;
    expect(reference(LP, LR, [], NEUTRAL, z2).zRef).toBe(z2);
    expect(new SpanKtoState().zRef).toBe(0);
    expect(kto.options.beta).toBe(0.1);
  });

  it('no spans: L_pref = 0 and zRef unchanged; no neutral tokens: L_neutral = 0', () => {
    const noSpan = spanKtoLoss(batch(LP, []), { zRef: 0.7 });
    expect(noSpan.zRef).toBe(0.7);
    expect(noSpan.loss.dataSync()[0]).toBeCloseTo(-(-0.3 + -1.5) / 2, 6);
    const noNeutral = spanKtoLoss(batch(LP, SPANS, null), { zRef: 0.7 });
    expect(noNeutral.loss.dataSync()[0]).toBeCloseTo(reference(LP, LR, SPANS, null, 0.7).lPref, 5);
    const zeros = spanKtoLoss(batch(LP, SPANS, new Array(8).fill(0)), { zRef: 0.7 });
    expect(zeros.loss.dataSync()[0]).toBeCloseTo(noNeutral.loss.dataSync()[0]!, 6);
    const g = tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...batch(LP, [], null), logpPolicy: lp }, { zRef: 0 }).loss)(tf.tensor1d(LP));
    expect(Array.from(g.dataSync()).every((v) => v === 0)).toBe(true);
  });

  it('spans may overlap and index a 2-D batch flattened', () => {
    const spans: Span[] = [
      { start: 0, end: 5, polarity: 'positive' },
      { start: 2, end: 4, polarity: 'negative' },
    ];
    const two = spanKtoLoss(
      { logpPolicy: tf.tensor2d(LP, [2, 4]), logpRef: tf.tensor2d(LR, [2, 4]), spans, neutralMask: tf.tensor2d(NEUTRAL, [2, 4]) },
      { zRef: 0 },
    );
    const ref = reference(LP, LR, spans, NEUTRAL, 0);
    expect(two.loss.dataSync()[0]).toBeCloseTo(ref.loss, 5);
    expect(two.zRef).toBeCloseTo(ref.zRef, 6);
  });

  it('disposes what it creates', () => {
    const b = batch();
    const before = tf.memory().numTensors;
    spanKtoLoss(b, { zRef: 0 }).loss.dispose();
    tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...b, logpPolicy: lp }, { zRef: 0 }).loss)(b.logpPolicy).dispose();
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('spanKtoLoss bad input', () => {
  const b = (spans: unknown[] = SPANS) => ({ logpPolicy: tf.tensor1d(LP), logpRef: tf.tensor1d(LR), spans: spans as Span[] });
  it('rejects a span past the end', () =>
    expectFrognanoError(() => spanKtoLoss(b([{ start: 6, end: 9, polarity: 'positive' }]), { zRef: 0 }), 'OUT_OF_RANGE', 'spans[0]', '<= 8'));
  it('rejects start >= end', () =>
    expectFrognanoError(() => spanKtoLoss(b([SPANS[0], { start: 4, end: 4, polarity: 'negative' }]), { zRef: 0 }), 'OUT_OF_RANGE', 'spans[1]'));
  it('rejects a negative start', () =>
    expectFrognanoError(() => spanKtoLoss(b([{ start: -1, end: 2, polarity: 'negative' }]), { zRef: 0 }), 'OUT_OF_RANGE', 'spans[0].start'));
  it('rejects a fractional end', () =>
    expectFrognanoError(() => spanKtoLoss(b([{ start: 0, end: 2.5, polarity: 'negative' }]), { zRef: 0 }), 'OUT_OF_RANGE', 'spans[0].end'));
  it("rejects polarity 'neutral' on a span", () =>
    expectFrognanoError(() => spanKtoLoss(b([{ start: 0, end: 2, polarity: 'neutral' }]), { zRef: 0 }), 'INVALID_TYPE', 'spans[0].polarity'));
  it('rejects a NaN zRef', () => expectFrognanoError(() => spanKtoLoss(b(), { zRef: NaN }), 'NON_FINITE', 'state.zRef'));
  it('rejects beta <= 0', () => expectFrognanoError(() => spanKtoLoss(b(), { zRef: 0 }, { beta: 0 }), 'OUT_OF_RANGE', 'opts.beta'));
  it('rejects emaAlpha > 1', () => expectFrognanoError(() => spanKtoLoss(b(), { zRef: 0 }, { emaAlpha: 1.5 }), 'OUT_OF_RANGE', 'opts.emaAlpha'));
  it('rejects a logpRef of another shape', () =>
    expectFrognanoError(() => spanKtoLoss({ ...b(), logpRef: tf.tensor1d([-1]) }, { zRef: 0 }), 'LENGTH_MISMATCH', 'logpRef'));
  it('rejects NaN in logpPolicy', () =>
    expectFrognanoError(() => spanKtoLoss({ ...b(), logpPolicy: tf.tensor1d([NaN, ...LP.slice(1)]) }, { zRef: 0 }), 'NON_FINITE', 'logpPolicy[0]'));
  it('SpanKtoState rejects a bad option', () => expectFrognanoError(() => new SpanKtoState({ lambdaW: -1 }), 'OUT_OF_RANGE', 'opts.lambdaW'));
  it('SpanKtoState.loss names itself', () =>
    expectFrognanoError(() => createSpanKto().loss(b([{ start: 0, end: 99, polarity: 'positive' }])), 'OUT_OF_RANGE', 'SpanKtoState.loss', 'spans[0]'));
});
