import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { canReadSync } from '../backend/canReadSync.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { numericGradientAsync } from './numericGradient.js';
import {
  createSpanKto,
  SpanKtoState,
  spanKtoLoss,
  spanKtoReference,
  type Span,
  type SpanKtoInputs,
  type SpanKtoLossOptions,
} from './spanKtoLoss.js';

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

/** Reads a tensor asynchronously (the only read webgpu in Node has) and disposes it. */
async function read(t: tf.Tensor): Promise<number[]> {
  const v = Array.from((await t.data()) as Float32Array);
  t.dispose();
  return v;
}

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

  /**
   * The loss value and z_ref' by the two-step form that every backend runs
   * (`spanKtoReference`, then `spanKtoLoss` with `zRefNext`); where the backend
   * reads synchronously, the one-call form must give the same numbers.
   */
  async function kto(inputs: SpanKtoInputs, state: { zRef: number }, opts: SpanKtoLossOptions = {}): Promise<{ loss: number; zRef: number }> {
    const zRefNext = await spanKtoReference(inputs, state, opts);
    const two = spanKtoLoss(inputs, state, { ...opts, zRefNext });
    expect(two.zRef).toBe(inputs.spans.length > 0 ? zRefNext : state.zRef);
    const [loss] = await read(two.loss);
    if (canReadSync()) {
      const one = spanKtoLoss(inputs, state, opts);
      expect(one.zRef).toBe(two.zRef);
      expect((await read(one.loss))[0]).toBe(loss);
    }
    return { loss: loss!, zRef: two.zRef };
  }

  it('matches SPEC §5 by hand: r_k, zRef EMA, sigmoid values, neutral NLL', async () => {
    const { loss, zRef } = await kto(batch(), { zRef: 0.2 }, { beta: 0.5, lambdaL: 1.5 });
    // r = [0.2, -0.9, -0.7]; mean -1.4/3; zRef' = 0.9*0.2 + 0.1*(-1.4/3) = 0.13333
    const z1 = 0.18 - 0.14 / 3;
    expect(zRef).toBeCloseTo(z1, 6);
    const a = [0.2 - z1, -0.9 - z1, -0.7 - z1];
    const lPref = (-sigmoid(0.5 * a[0]!) - 1.5 * sigmoid(-0.5 * a[1]!) - 1.5 * sigmoid(-0.5 * a[2]!)) / 3;
    const lNeu = -(-0.3 + -1.5) / 2;
    expect(loss).toBeCloseTo(lPref + lNeu, 5);
    expect(loss).toBeCloseTo(reference(LP, LR, SPANS, NEUTRAL, 0.2, { beta: 0.5, lambdaL: 1.5 }).loss, 5);
  });

  it('the gradient does not flow through zRef (detached EMA)', async () => {
    const x = tf.tensor1d(LP);
    const zRefNext = await spanKtoReference(batch(), { zRef: 0.2 }, { beta: 0.5 });
    const g = await read(tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...batch(), logpPolicy: lp }, { zRef: 0.2 }, { beta: 0.5, zRefNext }).loss)(x));
    const ref = reference(LP, LR, SPANS, NEUTRAL, 0.2, { beta: 0.5 });
    ref.grad.forEach((e, i) => expect(g[i]).toBeCloseTo(e, 5));
    if (canReadSync()) {
      // the one-call form (z_ref' read inside the gradient closure) gives the same gradient
      const g1 = await read(tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...batch(), logpPolicy: lp }, { zRef: 0.2 }, { beta: 0.5 }).loss)(x));
      expect(g1).toEqual(g);
    }
  });

  it('with emaAlpha = 1 (zRef constant) the gradient agrees with finite differences', async () => {
    const x = tf.tensor1d(LP);
    // emaAlpha = 1: z_ref' = zRef whatever the batch, so a fixed zRefNext is exact for every perturbation
    const f = (lp: tf.Tensor) => spanKtoLoss({ ...batch(), logpPolicy: lp }, { zRef: -0.3 }, { beta: 0.5, emaAlpha: 1, zRefNext: -0.3 }).loss;
    expect(await spanKtoReference(batch(), { zRef: -0.3 }, { emaAlpha: 1 })).toBe(-0.3);
    const g = await read(tf.grad(f)(x));
    (await numericGradientAsync(f, x)).forEach((d, i) => expect(Math.abs(d - g[i]!)).toBeLessThanOrEqual(FD_TOL));
  });

  it('SpanKtoState carries zRef over batches: the EMA sequence, a batch without spans leaves it', async () => {
    const state = createSpanKto({ zRef: 0.5 });
    const oneCall = createSpanKto({ zRef: 0.5 });
    const batches = [
      { lp: LP, spans: SPANS },
      { lp: LP.map((v) => v - 0.3), spans: SPANS.slice(0, 2) },
      { lp: LP, spans: [] as Span[] },
      { lp: LP.map((v) => Math.min(0, v + 0.2)), spans: [SPANS[2]!] },
    ];
    let z = 0.5;
    for (const b of batches) {
      const ref = reference(b.lp, LR, b.spans, NEUTRAL, z);
      // reference() holds z_ref' for the next loss() call, which then reads nothing back
      const before = state.zRef;
      const held = await state.reference(batch(b.lp, b.spans));
      expect(state.zRef).toBe(before); // reference() alone does not advance
      const [loss] = await read(state.loss(batch(b.lp, b.spans)));
      expect(loss).toBeCloseTo(ref.loss, 5);
      expect(state.zRef).toBe(held);
      expect(state.zRef).toBeCloseTo(ref.zRef, 6);
      if (canReadSync()) {
        expect((await read(oneCall.loss(batch(b.lp, b.spans))))[0]).toBe(loss);
        expect(oneCall.zRef).toBe(state.zRef);
      }
      z = ref.zRef;
    }
    expect(state.batches).toBe(4);
    // the third batch had no span: zRef did not move across it
    const z2 = reference(batches[1]!.lp, LR, batches[1]!.spans, NEUTRAL, reference(LP, LR, SPANS, NEUTRAL, 0.5).zRef).zRef;
    expect(reference(LP, LR, [], NEUTRAL, z2).zRef).toBe(z2);
    expect(new SpanKtoState().zRef).toBe(0);
    expect(state.options.beta).toBe(0.1);
  });

  it('no spans: L_pref = 0 and zRef unchanged; no neutral tokens: L_neutral = 0', async () => {
    // without spans there is no z_ref' to compute: the one-call form reads nothing, on every backend
    const noSpan = spanKtoLoss(batch(LP, []), { zRef: 0.7 });
    expect(noSpan.zRef).toBe(0.7);
    expect((await read(noSpan.loss))[0]).toBeCloseTo(-(-0.3 + -1.5) / 2, 6);
    const noNeutral = await kto(batch(LP, SPANS, null), { zRef: 0.7 });
    expect(noNeutral.loss).toBeCloseTo(reference(LP, LR, SPANS, null, 0.7).lPref, 5);
    const zeros = await kto(batch(LP, SPANS, new Array(8).fill(0)), { zRef: 0.7 });
    expect(zeros.loss).toBeCloseTo(noNeutral.loss, 6);
    const g = await read(tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...batch(LP, [], null), logpPolicy: lp }, { zRef: 0 }).loss)(tf.tensor1d(LP)));
    expect(g.every((v) => v === 0)).toBe(true);
  });

  it('spans may overlap and index a 2-D batch flattened', async () => {
    const spans: Span[] = [
      { start: 0, end: 5, polarity: 'positive' },
      { start: 2, end: 4, polarity: 'negative' },
    ];
    const two = await kto(
      { logpPolicy: tf.tensor2d(LP, [2, 4]), logpRef: tf.tensor2d(LR, [2, 4]), spans, neutralMask: tf.tensor2d(NEUTRAL, [2, 4]) },
      { zRef: 0 },
    );
    const ref = reference(LP, LR, spans, NEUTRAL, 0);
    expect(two.loss).toBeCloseTo(ref.loss, 5);
    expect(two.zRef).toBeCloseTo(ref.zRef, 6);
  });

  it('disposes what it creates', async () => {
    const b = batch();
    const before = tf.memory().numTensors;
    const zRefNext = await spanKtoReference(b, { zRef: 0 });
    spanKtoLoss(b, { zRef: 0 }, { zRefNext }).loss.dispose();
    tf.grad((lp: tf.Tensor) => spanKtoLoss({ ...b, logpPolicy: lp }, { zRef: 0 }, { zRefNext }).loss)(b.logpPolicy).dispose();
    if (canReadSync()) spanKtoLoss(b, { zRef: 0 }).loss.dispose();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('without a synchronous read (webgpu in Node) the one-call form names the two-step form; elsewhere it runs', async () => {
    const b = batch();
    if (canReadSync()) {
      expect(backend).not.toBe('webgpu');
      expect(spanKtoLoss(b, { zRef: 0 }).zRef).toBeCloseTo(reference(LP, LR, SPANS, NEUTRAL, 0).zRef, 6);
      return;
    }
    expect(backend).toBe('webgpu');
    expectFrognanoError(() => spanKtoLoss(b, { zRef: 0 }), 'BACKEND_UNAVAILABLE', 'spanKtoReference', 'zRefNext');
    expectFrognanoError(() => createSpanKto().loss(b), 'BACKEND_UNAVAILABLE', 'kto.reference');
    expectFrognanoError(() => spanKtoLoss(b, { zRef: 0 }, { validate: true }), 'BACKEND_UNAVAILABLE', 'validate: true');
  });
});

describe('spanKtoLoss bad input', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });
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
  it('rejects a non-finite zRefNext', () =>
    expectFrognanoError(() => spanKtoLoss(b(), { zRef: 0 }, { zRefNext: Infinity }), 'NON_FINITE', 'opts.zRefNext'));
  it('spanKtoReference rejects (asynchronously) NaN in logpRef and a span past the end', async () => {
    await expectFrognanoErrorAsync(() => spanKtoReference({ ...b(), logpRef: tf.tensor1d([...LR.slice(0, 7), NaN]) }, { zRef: 0 }), 'NON_FINITE', 'spanKtoReference', 'logpRef[7]');
    await expectFrognanoErrorAsync(() => spanKtoReference(b([{ start: 6, end: 9, polarity: 'positive' }]), { zRef: 0 }), 'OUT_OF_RANGE', 'spans[0]');
    await expectFrognanoErrorAsync(() => spanKtoReference(b(), { zRef: 0 }, { zRefNext: 1 } as never), 'INVALID_TYPE', 'zRefNext');
  });
  it('SpanKtoState rejects a bad option', () => expectFrognanoError(() => new SpanKtoState({ lambdaW: -1 }), 'OUT_OF_RANGE', 'opts.lambdaW'));
  it('SpanKtoState.loss names itself', () =>
    expectFrognanoError(() => createSpanKto().loss(b([{ start: 0, end: 99, polarity: 'positive' }])), 'OUT_OF_RANGE', 'SpanKtoState.loss', 'spans[0]'));
});
