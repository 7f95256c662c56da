import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { useBackend } from '../backend/useBackend.js';
import { sftLoss } from '../losses/sftLoss.js';
import { tokenLogProbs } from '../losses/tokenLogProbs.js';
import { createTinyGpt, TinyGpt, TinyGptOptionsSchema } from './tinyGpt.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});
afterAll(async () => {
  await tf.setBackend('cpu');
});

const small = { vocabSize: 7, contextLength: 10, dModel: 8, layers: 2, heads: 2, seed: 1 };
const ids = (rows: number[][]) => tf.tensor2d(rows, [rows.length, rows[0]!.length], 'int32');

/** Mean NLL of next tokens and its gradients for every variable. */
function lossAndGrads(m: TinyGpt, x: number[][]): { loss: number; grads: Float32Array[] } {
  const inputs = ids(x.map((r) => r.slice(0, -1)));
  const targets = ids(x.map((r) => r.slice(1)));
  const { value, grads } = tf.variableGrads(() => sftLoss({ logp: tokenLogProbs(m.logits(inputs), targets) }), m.variables as tf.Variable[]);
  const out = { loss: value.dataSync()[0]!, grads: m.variables.map((v) => Float32Array.from(grads[v.name]!.dataSync() as Float32Array)) };
  tf.dispose([value, inputs, targets, ...Object.values(grads)]);
  return out;
}

describe('TinyGpt', () => {
  it('has the GPT-2 parameter count and returns [B, T, V] logits', () => {
    const m = createTinyGpt(small);
    const d = 8;
    const perLayer = 4 * d + 3 * (d * d + d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d);
    expect(m.parameterCount).toBe(7 * d + 10 * d + 2 * perLayer + 2 * d + d * 7 + 7);
    const out = m.logits(ids([[1, 2, 3], [4, 5, 6]]));
    expect(out.shape).toEqual([2, 3, 7]);
    out.dispose();
    m.dispose();
  });
  it('is causal: later tokens never change earlier logits', () => {
    const m = createTinyGpt(small);
    const a = m.logits(ids([[1, 2, 3, 4, 5]]));
    const b = m.logits(ids([[1, 2, 3, 6, 0]]));
    const av = a.arraySync() as number[][][];
    const bv = b.arraySync() as number[][][];
    for (let t = 0; t < 3; t++) expect(bv[0]![t]).toEqual(av[0]![t]);
    expect(bv[0]![3]).not.toEqual(av[0]![3]);
    // padding on the right leaves the real positions alone
    const c = m.logits(ids([[1, 2, 3]]));
    expect((c.arraySync() as number[][][])[0]).toEqual(av[0]!.slice(0, 3));
    tf.dispose([a, b, c]);
    m.dispose();
  });
  it('same seed, same weights; another seed, other weights; clones are independent', async () => {
    const a = createTinyGpt(small);
    const b = createTinyGpt(small);
    const c = createTinyGpt({ ...small, seed: 2 });
    expect(a.variables.map((v) => Array.from(v.dataSync()))).toEqual(b.variables.map((v) => Array.from(v.dataSync())));
    expect(Array.from(a.variables[0]!.dataSync())).not.toEqual(Array.from(c.variables[0]!.dataSync()));
    const k = await a.clone();
    expect(Array.from(k.variables[2]!.dataSync())).toEqual(Array.from(a.variables[2]!.dataSync()));
    k.variables[2]!.assign(tf.zerosLike(k.variables[2]!));
    expect(Array.from(a.variables[2]!.dataSync())).not.toEqual(Array.from(k.variables[2]!.dataSync()));
    for (const m of [a, b, c, k]) m.dispose();
  });
  it('every weight gets a gradient, and a few Adam steps fit a sequence', () => {
    const m = createTinyGpt(small);
    const x = [[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]];
    const { loss, grads } = lossAndGrads(m, x);
    grads.forEach((g, i) => expect(g.some((v) => v !== 0), `variable ${i}`).toBe(true));
    const opt = tf.train.adam(0.05);
    for (let i = 0; i < 30; i++) {
      const inputs = ids(x.map((r) => r.slice(0, -1)));
      const targets = ids(x.map((r) => r.slice(1)));
      opt.minimize(() => sftLoss({ logp: tokenLogProbs(m.logits(inputs), targets) }), false, m.variables as tf.Variable[]);
      tf.dispose([inputs, targets]);
    }
    expect(lossAndGrads(m, x).loss).toBeLessThan(loss / 4);
    opt.dispose();
    m.dispose();
  });
  it('gives the same loss and gradients on wasm (one-hot embeddings: no gather gradient needed)', async () => {
    const x = [[1, 2, 3, 4], [3, 3, 0, 6]];
    const cpu = createTinyGpt(small);
    const want = lossAndGrads(cpu, x);
    cpu.dispose();
    await useBackend('wasm');
    const wasm = createTinyGpt(small);
    const got = lossAndGrads(wasm, x);
    wasm.dispose();
    await tf.setBackend('cpu');
    expect(got.loss).toBeCloseTo(want.loss, 4);
    got.grads.forEach((g, i) => g.forEach((v, j) => expect(v).toBeCloseTo(want.grads[i]![j]!, 4)));
  });
  it('rejects a sequence longer than the context', () => {
    const m = createTinyGpt({ ...small, contextLength: 3 });
    expectFrognanoError(() => m.logits(ids([[1, 2, 3, 4]])), 'OUT_OF_RANGE', 'contextLength');
    m.dispose();
  });
  it('rejects dModel not divisible by heads', () => expectFrognanoError(() => createTinyGpt({ ...small, dModel: 9 }), 'OUT_OF_RANGE', 'opts.dModel'));
  it('rejects a vocabulary of one token', () => expectFrognanoError(() => createTinyGpt({ ...small, vocabSize: 1 }), 'OUT_OF_RANGE', 'opts.vocabSize'));
  it('rejects an unknown option', () => expectFrognanoError(() => createTinyGpt({ ...small, depth: 3 } as never), 'INVALID_TYPE', 'depth'));
  it('the schema fills the defaults', () => expect(TinyGptOptionsSchema.parse({ vocabSize: 5, contextLength: 8 })).toMatchObject({ dModel: 48, layers: 2, heads: 4 }));
});
