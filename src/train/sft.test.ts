import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { bigramPolicy, matrix, TOK, toyEnv } from '../../test/train/helpers.js';
import { policyOutcomeEstimator } from './estimator.js';
import { evaluateSolveRate } from './evaluate.js';
import { readWeights } from './policy.js';
import { SeededRng } from './rng.js';
import { sftPretrain, shuffle } from './sft.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const V = 6;
// demonstrations: after the prompt [4, 5] the answer is 4 then end; the prompt is masked
const demo = { tokens: [4, 5, 4, TOK.end], lossMask: [0, 0, 1, 1] };

describe('sftPretrain', () => {
  it('lowers the masked NLL of the demonstrations, deterministically', async () => {
    const a = bigramPolicy(matrix(V, 0));
    const losses = await sftPretrain(a, [demo, demo], { steps: 30, batchSize: 2, learningRate: 0.1, seed: 1 });
    expect(losses[0]).toBeCloseTo(Math.log(V), 5); // uniform start: -log(1/6) per trained token
    expect(losses.at(-1)!).toBeLessThan(0.2);
    const b = bigramPolicy(matrix(V, 0));
    await sftPretrain(b, [demo, demo], { steps: 30, batchSize: 2, learningRate: 0.1, seed: 1 });
    expect(await readWeights(b)).toEqual(await readWeights(a));
    // 4 -> end is trained; the prompt's 4 -> 5 is masked, so it is never pushed up (only down, as row 4 learns end)
    const w = (await readWeights(a))[0]!;
    expect(w[4 * V + TOK.end]).toBeGreaterThan(0);
    expect(w[4 * V + 5]).toBeLessThan(0);
    a.dispose();
    b.dispose();
  });
  it('rejects no demonstrations', () => expectFrognanoErrorAsync(() => sftPretrain(bigramPolicy(matrix(V, 0)), []), 'EMPTY_INPUT', 'demos'));
  it('rejects a batch size of 0', () =>
    expectFrognanoErrorAsync(() => sftPretrain(bigramPolicy(matrix(V, 0)), [demo], { batchSize: 0 }), 'OUT_OF_RANGE', 'opts.batchSize'));
});

describe('evaluateSolveRate and policyOutcomeEstimator', () => {
  const right = matrix(V, -30, [
    [5, 4, 30],
    [4, TOK.end, 30],
  ]);
  it('a policy that always answers right solves everything; a wrong one nothing', async () => {
    const p = bigramPolicy(right);
    const tasks = [{ id: 'a', prompt: [4, 5], answer: [4] }, { id: 'b', prompt: [4, 5], answer: [5] }];
    const r = await evaluateSolveRate(p, toyEnv(), tasks, { samples: 3, seed: 2 });
    expect(r.perTask).toEqual([1, 0]);
    expect(r.solveRate).toBe(0.5);
    expect(r.meanAssistantTokens).toBe(2);
    expect(r.truncatedRate).toBe(0);
    const est = policyOutcomeEstimator(p, toyEnv(), { seed: 1 });
    expect(await est(tasks, 4, 0)).toEqual([
      [true, true, true, true],
      [false, false, false, false],
    ]);
    p.dispose();
  });
  it('rejects no tasks', () => expectFrognanoErrorAsync(() => evaluateSolveRate(bigramPolicy(right), toyEnv(), []), 'EMPTY_INPUT', 'tasks'));
  it('rejects samples 0', () =>
    expectFrognanoErrorAsync(() => evaluateSolveRate(bigramPolicy(right), toyEnv(), [{ id: 'a', prompt: [4], answer: [4] }], { samples: 0 }), 'OUT_OF_RANGE', 'opts.samples'));
});

/** Issue 12 (fuzz): shuffle validates its arguments (it used to return NaN, or loop 1e9 times). */
describe('shuffle: bad arguments', () => {
  it('shuffles in place, reproducibly', () => {
    const a = shuffle([1, 2, 3, 4, 5], new SeededRng(3));
    expect([...a].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(shuffle([1, 2, 3, 4, 5], new SeededRng(3))).toEqual(a);
  });
  it('refuses NaN', () => expect(expectFrognanoError(() => shuffle(NaN as never, new SeededRng(3)), 'INVALID_TYPE', 'xs').field).toBe('xs'));
  it('refuses { length: 1e9 } at once', () => expect(expectFrognanoError(() => shuffle({ length: 1e9 } as never, new SeededRng(3)), 'INVALID_TYPE').field).toBe('xs'));
  it('refuses a hole, naming it', () => {
    const e = expectFrognanoError(() => shuffle(Object.assign([1, 2], { length: 4 }), new SeededRng(3)), 'INVALID_TYPE', 'xs[2]');
    expect(e.field).toBe('xs[2]');
  });
  it('refuses a frozen array', () => expect(expectFrognanoError(() => shuffle(Object.freeze([1, 2, 3]) as never, new SeededRng(3)), 'INVALID_TYPE').field).toBe('xs'));
  it('refuses an rng without next()', () => expect(expectFrognanoError(() => shuffle([1, 2], null as never), 'INVALID_TYPE').field).toBe('rng'));
  it('refuses an rng whose next() is outside [0, 1)', () =>
    expect(expectFrognanoError(() => shuffle([1, 2], { next: () => 5 } as never), 'OUT_OF_RANGE').field).toBe('rng'));
});
