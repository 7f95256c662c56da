import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { consolidationLoss } from './consolidationLoss.js';
import { dppoLoss } from './dppoLoss.js';
import { createSpanKto } from './spanKtoLoss.js';
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

function train(steps: number, lossFn: () => tf.Scalar, lr = 0.1): number[] {
  const opt = tf.train.sgd(lr);
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    const cost = opt.minimize(lossFn, true);
    losses.push(cost!.dataSync()[0]!);
    cost!.dispose();
  }
  opt.dispose();
  return losses;
}

describe.each(TEST_BACKENDS)('losses in optimizer.minimize on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('sftLoss decreases', () => {
    const f = fixture('sft');
    const losses = train(20, () => sftLoss({ logp: tokenLogProbs(f.logits(), f.targets) }));
    expect(losses[19]!).toBeLessThan(losses[0]! - 0.05);
  });

  it('dppoLoss raises the log-prob of positive-advantage tokens and lowers the negative ones', () => {
    const f = fixture('dppo');
    const logpRollout = tf.tidy(() => tokenLogProbs(f.logits(), f.targets));
    const adv = tf.tensor1d(Array.from({ length: T }, (_, i) => (i % 2 === 0 ? 1 : -1)));
    const mask = tf.ones([T]);
    const before = logpRollout.dataSync();
    train(5, () => dppoLoss({ logpNew: tokenLogProbs(f.logits(), f.targets), logpRollout, advantages: adv, lossMask: mask }), 0.5);
    const after = tokenLogProbs(f.logits(), f.targets).dataSync();
    let up = 0;
    let down = 0;
    for (let i = 0; i < T; i++) {
      if (i % 2 === 0 && after[i]! > before[i]!) up++;
      if (i % 2 === 1 && after[i]! < before[i]!) down++;
    }
    expect(up + down).toBeGreaterThanOrEqual(T - 2);
  });

  it('consolidationLoss and Span-KTO train without error and decrease', () => {
    const f = fixture('cons');
    const refLogits = tf.tidy(() => tf.mul(f.logits(), 3));
    const c = train(15, () => consolidationLoss({ policyLogits: f.logits(), refLogits, targets: f.targets }, { topK: 4 }));
    expect(c[14]!).toBeLessThan(c[0]!);
    const g = fixture('kto');
    const logpRef = tf.tidy(() => tokenLogProbs(g.logits(), g.targets));
    const kto = createSpanKto({ beta: 1 });
    const spans = [
      { start: 0, end: 4, polarity: 'positive' as const },
      { start: 4, end: 8, polarity: 'negative' as const },
    ];
    const neutralMask = tf.tensor1d(Array.from({ length: T }, (_, i) => (i >= 8 ? 1 : 0)));
    const k = train(15, () => kto.loss({ logpPolicy: tokenLogProbs(g.logits(), g.targets), logpRef, spans, neutralMask }));
    expect(k[14]!).toBeLessThan(k[0]!);
    expect(kto.batches).toBe(15);
  });
});
