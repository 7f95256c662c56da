import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { bigramPolicy, matrix, TOK, toyEnv, type ToyTask } from '../../test/train/helpers.js';
import { SeededRng } from './rng.js';
import { generateRollouts, sampleToken } from './rollout.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const V = 6;
const task = (over: Partial<ToyTask> = {}): ToyTask => ({ id: 'a', prompt: [4, 5], answer: [4, 5], ...over });

/** log softmax(row / tau)[k] in float64 from the float32 weights. */
function logSoftmax(row: number[], k: number, tau = 1): number {
  const z = row.map((x) => Math.fround(x) / tau);
  const m = Math.max(...z);
  return z[k]! - m - Math.log(z.reduce((a, x) => a + Math.exp(x - m), 0));
}

describe('generateRollouts', () => {
  it('G rollouts per task, seeded: same seed same rollouts, another seed other rollouts', async () => {
    const policy = bigramPolicy(matrix(V, 0));
    const env = toyEnv();
    const a = await generateRollouts(policy, env, [task(), task({ id: 'b' })], { groupSize: 5, seed: 3, policyVersion: 7 });
    const b = await generateRollouts(policy, env, [task(), task({ id: 'b' })], { groupSize: 5, seed: 3, policyVersion: 7 });
    const c = await generateRollouts(policy, env, [task(), task({ id: 'b' })], { groupSize: 5, seed: 4, policyVersion: 7 });
    expect(a).toHaveLength(2);
    expect(a.every((g) => g.rollouts.length === 5 && g.policyVersion === 7)).toBe(true);
    expect(a).toEqual(b);
    expect(a.map((g) => g.rollouts.map((r) => r.tokens))).not.toEqual(c.map((g) => g.rollouts.map((r) => r.tokens)));
    policy.dispose();
  });

  it('records log pi_roll of every generated token (tempered) and masks the prompt', async () => {
    const W = matrix(V, 0, [
      [5, 4, 1.5],
      [5, 1, 0.3],
      [4, 5, 0.7],
      [4, 1, -0.4],
    ]);
    const policy = bigramPolicy(W);
    const [g] = await generateRollouts(policy, toyEnv({ tool: false }), [task()], { groupSize: 16, seed: 1, temperature: 0.7 });
    for (const r of g!.rollouts) {
      expect(r.lossMask.slice(0, 2)).toEqual([0, 0]);
      expect(r.logpRollout.slice(0, 2)).toEqual([0, 0]);
      for (let t = 2; t < r.tokens.length; t++) {
        expect(r.lossMask[t]).toBe(1);
        expect(r.logpRollout[t]).toBeCloseTo(logSoftmax(W[r.tokens[t - 1]!]!, r.tokens[t]!, 0.7), 12);
      }
      expect(r.verdict.assistantTokens).toBe(r.tokens.length - 2);
    }
    policy.dispose();
  });

  it('tool calls get the observation appended with loss mask 0; a call in the last turn is max-turns', async () => {
    // after the prompt's last token 5: always call the tool; after an observation: content 4 then call again
    const W = matrix(V, -30, [
      [5, TOK.call, 30],
      [TOK.obs, 4, 30],
      [4, TOK.call, 30],
    ]);
    const policy = bigramPolicy(W);
    const [g] = await generateRollouts(policy, toyEnv(), [task({ maxTurns: 2, answer: [4] })], { groupSize: 2, seed: 1 });
    const r = g!.rollouts[0]!;
    expect(r.tokens).toEqual([4, 5, TOK.call, TOK.obs, 4, TOK.call, TOK.obs]);
    expect(r.lossMask).toEqual([0, 0, 1, 0, 1, 1, 0]);
    expect(r.logpRollout[3]).toBe(0);
    expect(r.episode.turns.map((t) => t.end)).toEqual(['tool', 'tool']);
    expect(r.episode.turns.map((t) => t.observation)).toEqual([[TOK.obs], [TOK.obs]]);
    // the last answer [4] is right: a truncated success
    expect(r.verdict).toEqual({ success: true, truncated: true, reason: 'max-turns', assistantTokens: 3 });
    policy.dispose();
  });

  it('truncates at the per-turn token budget and at the context length', async () => {
    const W = matrix(V, -30, [
      [5, 4, 30],
      [4, 4, 30],
    ]);
    const policy = bigramPolicy(W, 32);
    const [g] = await generateRollouts(policy, toyEnv(), [task({ maxNewTokens: 3 })], { groupSize: 1 });
    expect(g!.rollouts[0]!.tokens).toEqual([4, 5, 4, 4, 4]);
    expect(g!.rollouts[0]!.verdict).toMatchObject({ truncated: true, reason: 'max-new-tokens', assistantTokens: 3, success: false });
    const small = bigramPolicy(W, 4);
    const [h] = await generateRollouts(small, toyEnv(), [task({ maxNewTokens: 10 })], { groupSize: 1 });
    expect(h!.rollouts[0]!.tokens).toEqual([4, 5, 4, 4]);
    expect(h!.rollouts[0]!.verdict.reason).toBe('context');
    policy.dispose();
    small.dispose();
  });

  it('truncates on wall time', async () => {
    const W = matrix(V, -30, [
      [5, 4, 30],
      [4, 4, 30],
    ]);
    const policy = bigramPolicy(W);
    const slow = { ...policy, logits: (x: tf.Tensor) => {
      const until = Date.now() + 3;
      while (Date.now() < until) {
        // busy wait: a slow model
      }
      return policy.logits(x);
    } };
    const [g] = await generateRollouts(slow, toyEnv(), [task({ maxNewTokens: 50 })], { groupSize: 1, wallTimeMs: 1 });
    expect(g!.rollouts[0]!.verdict).toMatchObject({ truncated: true, reason: 'wall-time' });
    policy.dispose();
  });

  it('temperature 0 decodes greedily; chunking does not change the result', async () => {
    const W = matrix(V, 0, [
      [5, 4, 1],
      [4, 5, 0.5],
      [5, TOK.end, 0.9],
    ]);
    const policy = bigramPolicy(W);
    const [g] = await generateRollouts(policy, toyEnv(), [task({ maxNewTokens: 3 })], { groupSize: 3, temperature: 0 });
    for (const r of g!.rollouts) expect(r.tokens).toEqual([4, 5, 4, 5, 4]);
    const tasks = [task(), task({ prompt: [4] }), task({ prompt: [5, 5, 4] })];
    const one = await generateRollouts(policy, toyEnv(), tasks, { groupSize: 3, seed: 9, maxBatch: 1 });
    const all = await generateRollouts(policy, toyEnv(), tasks, { groupSize: 3, seed: 9 });
    expect(one).toEqual(all);
    policy.dispose();
  });

  it('rejects no tasks', () => expectFrognanoErrorAsync(() => generateRollouts(bigramPolicy(matrix(V, 0)), toyEnv(), []), 'EMPTY_INPUT', 'tasks'));
  it('rejects a negative temperature', () =>
    expectFrognanoErrorAsync(() => generateRollouts(bigramPolicy(matrix(V, 0)), toyEnv(), [task()], { temperature: -1 }), 'OUT_OF_RANGE', 'opts.temperature'));
  it('rejects an unknown option', () =>
    expectFrognanoErrorAsync(() => generateRollouts(bigramPolicy(matrix(V, 0)), toyEnv(), [task()], { groups: 2 } as never), 'INVALID_TYPE', 'groups'));
});

describe('sampleToken', () => {
  it('draws with the softmax frequencies', () => {
    const z = [Math.log(0.5), Math.log(0.3), Math.log(0.2)];
    const rng = new SeededRng('freq');
    const counts = [0, 0, 0];
    const n = 20000;
    for (let i = 0; i < n; i++) counts[sampleToken(z, 0, 3, 1, rng).token]!++;
    expect(counts[0]! / n).toBeCloseTo(0.5, 1);
    expect(counts[1]! / n).toBeCloseTo(0.3, 1);
    expect(counts[2]! / n).toBeCloseTo(0.2, 1);
  });
  it('returns the tempered log-probability', () => {
    const z = [1, 2, 3];
    const { token, logp } = sampleToken(z, 0, 3, 0.5, new SeededRng(1));
    expect(logp).toBeCloseTo(logSoftmax(z, token, 0.5), 14);
    expect(sampleToken(z, 0, 3, 0, new SeededRng(1))).toEqual({ token: 2, logp: logSoftmax(z, 2) });
  });
});
