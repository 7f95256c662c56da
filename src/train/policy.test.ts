import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { bigramPolicy, matrix, toyEnv } from '../../test/train/helpers.js';
import { copyWeights, functionPolicy, layersModelPolicy, readWeights, writeWeights } from './policy.js';
import { generateRollouts } from './rollout.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('Policy adapters', () => {
  it('functionPolicy: owns copies of its weights, clones independently', async () => {
    const w = tf.tensor2d(matrix(4, 0, [[1, 2, 3]]));
    const p = bigramPolicy(matrix(4, 0, [[1, 2, 3]]));
    w.dispose();
    const logits = p.logits(tf.tensor2d([[1, 0]], [1, 2], 'int32'));
    expect((logits.arraySync() as number[][][])[0]![0]).toEqual([0, 0, 3, 0]);
    const c = await p.clone();
    writeWeights(c, [new Float32Array(16)]);
    expect((await readWeights(p))[0]![6]).toBe(3);
    copyWeights(c, p);
    expect((await readWeights(p))[0]![6]).toBe(0);
    tf.dispose(logits);
    p.dispose();
    c.dispose();
  });
  it('layersModelPolicy: a tf.LayersModel (embedding + causal recurrent layer) samples rollouts and clones', async () => {
    const V = 6;
    const model = tf.sequential({
      layers: [
        tf.layers.embedding({ inputDim: V, outputDim: 4, inputLength: undefined as never }),
        tf.layers.simpleRNN({ units: 5, returnSequences: true }),
        tf.layers.dense({ units: V }),
      ],
    });
    model.build([null, null]);
    const policy = layersModelPolicy(model, { contextLength: 16 });
    expect(policy.vocabSize).toBe(V);
    expect(policy.variables.length).toBe(model.trainableWeights.length);
    const [g] = await generateRollouts(policy, toyEnv(), [{ id: 'a', prompt: [4, 5], answer: [4] }], { groupSize: 2, seed: 1 });
    expect(g!.rollouts).toHaveLength(2);
    const clone = await policy.clone();
    expect(await readWeights(clone)).toEqual(await readWeights(policy));
    writeWeights(clone, (await readWeights(clone)).map((a) => a.map(() => 0)));
    expect((await readWeights(policy))[0]!.some((x) => x !== 0)).toBe(true);
    clone.dispose();
    policy.dispose();
  });
  it('writeWeights rejects a size mismatch naming the array', () => {
    const p = bigramPolicy(matrix(4, 0));
    expectFrognanoError(() => writeWeights(p, [new Float32Array(3)]), 'LENGTH_MISMATCH', 'weights[0]');
    expectFrognanoError(() => writeWeights(p, []), 'LENGTH_MISMATCH', 'weights');
    p.dispose();
  });
  it('copyWeights rejects another architecture', () => {
    const a = bigramPolicy(matrix(4, 0));
    const b = bigramPolicy(matrix(5, 0));
    expectFrognanoError(() => copyWeights(a, b), 'LENGTH_MISMATCH', 'to.variables[0]');
    a.dispose();
    b.dispose();
  });
  it('functionPolicy rejects a missing apply', () =>
    expectFrognanoError(() => functionPolicy({ vocabSize: 4, contextLength: 4, weights: [] } as never), 'INVALID_TYPE', 'opts.apply'));
  it('functionPolicy rejects a context length of 1', () =>
    expectFrognanoError(() => functionPolicy({ vocabSize: 4, contextLength: 1, weights: [], apply: (_w, x) => x }), 'OUT_OF_RANGE', 'opts.contextLength'));
});
