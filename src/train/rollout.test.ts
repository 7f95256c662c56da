import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
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

/** Issue 12 (fuzz): sampleToken checks its arguments against z and stays finite at the float64 edge. */
describe('sampleToken: bad arguments', () => {
  const rng = () => new SeededRng(1);
  it('refuses V beyond z (2 ** 32 over two logits) at once', () => {
    const e = expectFrognanoError(() => sampleToken([0, Math.log(3)], 0, 2 ** 32, 1, rng()), 'OUT_OF_RANGE', 'offset + V', 'length 2');
    expect(e.field).toBe('V');
  });
  it('refuses an offset past z', () => {
    const e = expectFrognanoError(() => sampleToken([0, 1], 2, 1, 1, rng()), 'OUT_OF_RANGE', 'length 2');
    expect(e.field).toBe('V');
  });
  it('refuses a fractional V', () => expect(expectFrognanoError(() => sampleToken([0, 1], 0, 1.5, 1, rng()), 'OUT_OF_RANGE').field).toBe('V'));
  it('refuses V 0', () => expect(expectFrognanoError(() => sampleToken([0, 1], 0, 0, 1, rng()), 'OUT_OF_RANGE').field).toBe('V'));
  it('refuses a negative offset', () => expect(expectFrognanoError(() => sampleToken([0, 1], -1, 1, 1, rng()), 'OUT_OF_RANGE').field).toBe('offset'));
  it('refuses a NaN offset', () => expect(expectFrognanoError(() => sampleToken([0, 1], NaN, 1, 1, rng()), 'NON_FINITE').field).toBe('offset'));
  it('refuses z that is not an array', () => expect(expectFrognanoError(() => sampleToken({ length: 1e9 } as never, 0, 2, 1, rng()), 'INVALID_TYPE').field).toBe('z'));
  it('refuses a DataView z', () => expect(expectFrognanoError(() => sampleToken(new DataView(new ArrayBuffer(8)) as never, 0, 1, 1, rng()), 'INVALID_TYPE').field).toBe('z'));
  it('refuses a NaN logit, naming it', () => expect(expectFrognanoError(() => sampleToken([0, NaN, 1], 0, 3, 1, rng()), 'NON_FINITE').field).toBe('z[1]'));
  it('refuses a non-number logit, naming it', () => expect(expectFrognanoError(() => sampleToken([0, 1, 'x'] as never, 1, 2, 1, rng()), 'INVALID_TYPE').field).toBe('z[2]'));
  it('refuses a negative temperature', () => expect(expectFrognanoError(() => sampleToken([0, 1], 0, 2, -1, rng()), 'OUT_OF_RANGE').field).toBe('temperature'));
  it('refuses an infinite temperature', () => expect(expectFrognanoError(() => sampleToken([0, 1], 0, 2, Infinity, rng()), 'NON_FINITE').field).toBe('temperature'));
  it('refuses an rng without next()', () => expect(expectFrognanoError(() => sampleToken([0, 1], 0, 2, 1, {} as never), 'INVALID_TYPE').field).toBe('rng'));
  it('refuses an rng whose next() is outside [0, 1)', () =>
    expect(expectFrognanoError(() => sampleToken([0, 1], 0, 2, 1, { next: () => 1 } as never), 'OUT_OF_RANGE').field).toBe('rng'));
  it('a temperature of 5e-324 (z / t overflows) is finite and picks the argmax', () => {
    const r = sampleToken([0, Math.log(3), -1], 0, 3, 5e-324, rng());
    expect(r).toEqual({ token: 1, logp: 0 });
    const g = sampleToken([-1, -2], 0, 2, 5e-324, rng()); // every z / t is -Infinity
    expect(g).toEqual({ token: 0, logp: 0 });
  });
  it('logits at ±1e308 with temperature 0.5 stay finite', () => {
    for (let s = 0; s < 20; s++) {
      const r = sampleToken([1e308, -1e308, 1e308], 0, 3, 0.5, new SeededRng(s));
      expect([0, 2]).toContain(r.token);
      expect(r.logp).toBeCloseTo(-Math.log(2), 12);
    }
  });
  it('reads only z[offset .. offset + V)', () => {
    const r = sampleToken([NaN, 0, 5, NaN], 1, 2, 0, rng());
    expect(r.token).toBe(1);
    expect(r.logp).toBeCloseTo(-Math.log1p(Math.exp(-5)), 14);
  });
});
