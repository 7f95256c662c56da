import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { canReadSync } from '../backend/canReadSync.js';
import { useBackend } from '../backend/useBackend.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { TEST_BACKENDS, emulatedGpu, readsSync } from '../../test/helpers/backends.js';
import { consolidationLoss } from './consolidationLoss.js';
import { dppoLoss } from './dppoLoss.js';
import { createSpanKto, type SpanKtoInputs } from './spanKtoLoss.js';
import { sftLoss } from './sftLoss.js';
import { tokenLogProbs } from './tokenLogProbs.js';

// The losses inside a real training step: optimizer.minimize differentiates with
// respect to tf.Variables (variableGrads), through tokenLogProbs, on each backend.
const T = 12;
const D = 6;
const V = 8;

function fixture(seed: string) {
  const rng = seedrandom(seed);
  const x = tf.tensor2d(Array.from({ length: T * D }, () => rng() * 2 - 1), [T, D]);
  const targets = tf.tensor1d(Array.from({ length: T }, () => Math.floor(rng() * V)), 'int32');
  const w = tf.variable(tf.tensor2d(Array.from({ length: D * V }, () => (rng() - 0.5) * 0.2), [D, V]));
  return { x, targets, w, logits: () => tf.matMul(x, w) };
}

/**
 * `steps` SGD steps; returns the loss of each. Reads with `await data()` (webgpu in Node
 * has no synchronous read, see canReadSync); `beforeStep` runs (awaited) before each step,
 * e.g. Span-KTO's asynchronous `kto.reference(batch)`.
 */
async function train(steps: number, lossFn: () => tf.Scalar, lr = 0.1, beforeStep?: () => Promise<unknown>): Promise<number[]> {
  const opt = tf.train.sgd(lr);
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    if (beforeStep) await beforeStep();
    const cost = opt.minimize(lossFn, true);
    losses.push((await cost!.data())[0]!);
    cost!.dispose();
  }
  opt.dispose();
  return losses;
}

type Fixture = ReturnType<typeof fixture>;
const KTO_SPANS = [
  { start: 0, end: 4, polarity: 'positive' as const },
  { start: 4, end: 8, polarity: 'negative' as const },
];

/**
 * Span-KTO on `g` for `steps` steps. `withReference`: each step first computes z_ref'
 * asynchronously (`await kto.reference(batch)`, the only way on webgpu in Node); else the
 * one-call form reads the span rewards synchronously inside the step.
 */
async function trainKto(g: Fixture, steps: number, withReference: boolean, validate?: boolean) {
  const logpRef = tf.tidy(() => tokenLogProbs(g.logits(), g.targets));
  const neutralMask = tf.tensor1d(Array.from({ length: T }, (_, i) => (i >= 8 ? 1 : 0)));
  const kto = createSpanKto({ beta: 1, validate });
  const batch = (logpPolicy: tf.Tensor): SpanKtoInputs => ({ logpPolicy, logpRef, spans: KTO_SPANS, neutralMask });
  const reference = async () => {
    const lp = tf.tidy(() => tokenLogProbs(g.logits(), g.targets, { validate }));
    await kto.reference(batch(lp));
    lp.dispose();
  };
  const losses = await train(steps, () => kto.loss(batch(tokenLogProbs(g.logits(), g.targets, { validate }))), 0.1, withReference ? reference : undefined);
  return { losses, kto, batch };
}

describe.each(TEST_BACKENDS)('losses in optimizer.minimize on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  // the three long loops skip webgpu on SwiftShader (emulatedGpu): tfjs's own kernels, ~25 s there
  it.skipIf(emulatedGpu(backend))('sftLoss decreases', async () => {
    const f = fixture('sft');
    const losses = await train(20, () => sftLoss({ logp: tokenLogProbs(f.logits(), f.targets) }));
    expect(losses[19]!).toBeLessThan(losses[0]! - 0.05);
  });

  it('dppoLoss raises the log-prob of positive-advantage tokens and lowers the negative ones', async () => {
    const f = fixture('dppo');
    const logpRollout = tf.tidy(() => tokenLogProbs(f.logits(), f.targets));
    const adv = tf.tensor1d(Array.from({ length: T }, (_, i) => (i % 2 === 0 ? 1 : -1)));
    const mask = tf.ones([T]);
    const before = await logpRollout.data();
    await train(5, () => dppoLoss({ logpNew: tokenLogProbs(f.logits(), f.targets), logpRollout, advantages: adv, lossMask: mask }), 0.5);
    const after = await tokenLogProbs(f.logits(), f.targets).data();
    let up = 0;
    let down = 0;
    for (let i = 0; i < T; i++) {
      if (i % 2 === 0 && after[i]! > before[i]!) up++;
      if (i % 2 === 1 && after[i]! < before[i]!) down++;
    }
    expect(up + down).toBeGreaterThanOrEqual(T - 2);
  });

  it.skipIf(emulatedGpu(backend))('consolidationLoss and Span-KTO train without error and decrease', async () => {
    const f = fixture('cons');
    const refLogits = tf.tidy(() => tf.mul(f.logits(), 3));
    const c = await train(15, () => consolidationLoss({ policyLogits: f.logits(), refLogits, targets: f.targets }, { topK: 4 }));
    expect(c[14]!).toBeLessThan(c[0]!);
    // z_ref' computed asynchronously before each step: works on every backend
    const { losses: k, kto } = await trainKto(fixture('kto'), 15, true);
    expect(k[14]!).toBeLessThan(k[0]!);
    expect(kto.batches).toBe(15);
  });

  it.runIf(readsSync(backend))('Span-KTO: the one-call form (synchronous read of the span rewards) trains exactly as kto.reference + kto.loss', async () => {
    expect(canReadSync()).toBe(true);
    const a = await trainKto(fixture('kto'), 15, true);
    const b = await trainKto(fixture('kto'), 15, false);
    expect(b.losses).toEqual(a.losses);
    expect(b.kto.zRef).toBe(a.kto.zRef);
    expect(b.kto.batches).toBe(15);
  });

  // validate: false is the path webgpu in Node takes by default: cpu and wasm exercise it too.
  it.skipIf(emulatedGpu(backend))('validate: false trains exactly as the default (sft, dppo, consolidation, Span-KTO)', async () => {
    const run = async (validate?: boolean) => {
      const f = fixture('sft');
      const sft = await train(6, () => sftLoss({ logp: tokenLogProbs(f.logits(), f.targets, { validate }) }, { validate }));
      const d = fixture('dppo');
      const logpRollout = tf.tidy(() => tokenLogProbs(d.logits(), d.targets));
      const adv = tf.tensor1d(Array.from({ length: T }, (_, i) => (i % 2 === 0 ? 1 : -1)));
      const mask = tf.ones([T]);
      const dppo = await train(3, () => dppoLoss({ logpNew: tokenLogProbs(d.logits(), d.targets, { validate }), logpRollout, advantages: adv, lossMask: mask }, { validate }), 0.5);
      const c = fixture('cons');
      const refLogits = tf.tidy(() => tf.mul(c.logits(), 3));
      const cons = await train(3, () => consolidationLoss({ policyLogits: c.logits(), refLogits, targets: c.targets }, { topK: 4, validate }));
      const { losses: spanKto, kto } = await trainKto(fixture('kto'), 3, true, validate);
      return { sft, dppo, cons, spanKto, zRef: kto.zRef };
    };
    const a = await run();
    const b = await run(false);
    expect(b).toEqual(a);
    expect(a.sft[5]!).toBeLessThan(a.sft[0]!);
  });

  it.runIf(!readsSync(backend))('no synchronous read (webgpu in Node): the defaults train, an explicit validate: true and the one-call Span-KTO are BACKEND_UNAVAILABLE', async () => {
    expect(canReadSync()).toBe(false);
    const f = fixture('sft');
    const lossFn = (validate?: boolean) => () => sftLoss({ logp: tokenLogProbs(f.logits(), f.targets, { validate }) }, { validate });
    const losses = await train(3, lossFn());
    losses.forEach((v) => expect(Number.isFinite(v)).toBe(true));
    expect(losses[2]!).toBeLessThan(losses[0]!);
    // at the trained point the default and validate: false give the same loss (sgd(0) moves nothing)
    const opt = tf.train.sgd(0);
    const a = opt.minimize(lossFn(), true)!;
    const b = opt.minimize(lossFn(false), true)!;
    expect((await a.data())[0]).toBe((await b.data())[0]);
    tf.dispose([a, b]);
    opt.dispose();
    await expectFrognanoErrorAsync(() => train(1, lossFn(true)), 'BACKEND_UNAVAILABLE', 'validate: true');
    // Span-KTO without kto.reference would have to read the span rewards synchronously
    const { kto, batch } = await trainKto(fixture('kto'), 1, true);
    const lp = tf.tidy(() => tokenLogProbs(f.logits(), f.targets));
    expectFrognanoError(() => kto.loss(batch(lp)), 'BACKEND_UNAVAILABLE', 'spanKtoReference');
    expect(kto.batches).toBe(1);
  });
});
