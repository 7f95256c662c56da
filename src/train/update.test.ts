import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { bigramPolicy, matrix, toyEnv, type ToyTask } from '../../test/train/helpers.js';
import { groupAdvantages } from '../advantage/groupAdvantages.js';
import type { Verdict } from '../env/environment.js';
import { dppoLoss } from '../losses/dppoLoss.js';
import { shapeRewards } from '../rewards/shapeReward.js';
import { Adam } from './adam.js';
import type { Rollout, RolloutGroup } from './rollout.js';
import { dppoUpdate, groupRewardsAndAdvantages } from './update.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const V = 6;
const verdict = (success: boolean, assistantTokens = 2, truncated = false): Verdict => ({
  success,
  truncated,
  reason: truncated ? 'max-turns' : null,
  assistantTokens,
});
/** A rollout: prompt [4, 5], then the generated tokens with their recorded log-probs. */
function rollout(gen: number[], logp: number[], v: Verdict): Rollout {
  return {
    tokens: [4, 5, ...gen],
    lossMask: [0, 0, ...gen.map(() => 1)],
    logpRollout: [0, 0, ...logp],
    episode: { prompt: [4, 5], turns: [{ assistant: gen, end: 'end', observation: [] }], stop: 'end' },
    verdict: v,
  };
}
const group = (rollouts: Rollout[], policyVersion = 0): RolloutGroup<ToyTask> => ({
  task: { id: 'a', prompt: [4, 5], answer: [4] },
  policyVersion,
  rollouts,
});

describe('groupRewardsAndAdvantages: the reward and advantage plumbing', () => {
  it('shapes rewards (log-length penalty, 0.5 for truncated successes) and filters on RAW outcomes', () => {
    const reward = { budget: 2, alpha: 0.5 };
    const g1 = group([
      rollout([4, 1], [-1, -1], verdict(true, 2)), // success within budget: 1
      rollout([4, 4, 4, 1], [-1, -1, -1, -1], verdict(true, 4)), // 1 - 0.5 ln 2
      rollout([4, 1], [-1, -1], verdict(true, 2, true)), // truncated success: 0.5
      rollout([5, 1], [-1, -1], verdict(false, 2)), // failure: 0
    ]);
    // all raw successes, shaped rewards differ: zero variance on raw outcomes -> dropped (FrogNano filters raw)
    const g2 = group([rollout([4, 1], [-1, -1], verdict(true, 2)), rollout([4, 4, 4, 1], [-1, -1, -1, -1], verdict(true, 4))]);
    const r = groupRewardsAndAdvantages([g1, g2], reward);
    expect(r.rewards[0]).toEqual([1, 1 - 0.5 * Math.log(2), 0.5, 0]);
    expect(r.raw).toEqual([
      [1, 1, 1, 0],
      [1, 1],
    ]);
    expect(r.kept).toEqual([true, false]);
    expect(r.advantages[1]).toEqual([0, 0]);
    // exactly the library's primitives, composed
    const shaped = [g1, g2].map((g) => shapeRewards(g.rollouts.map((x) => x.verdict), reward));
    expect(r.advantages).toEqual(
      groupAdvantages(
        shaped.map((s) => s.rewards),
        { filterBy: shaped.map((s) => s.raw) },
      ).advantages,
    );
  });
  it('lengthPenalty false gives 1 to every completed success', () => {
    const g = group([rollout([4, 4, 4, 1], [-1, -1, -1, -1], verdict(true, 4)), rollout([5, 1], [-1, -1], verdict(false))]);
    expect(groupRewardsAndAdvantages([g], { budget: 2, alpha: 0.5, lengthPenalty: false }).rewards[0]).toEqual([1, 0]);
  });
});

describe('dppoUpdate', () => {
  const reward = { budget: 8, alpha: 0.2 };
  it('computes the DPPO loss of the kept groups against the recorded log-probs, and steps', async () => {
    const W = matrix(V, 0, [[5, 4, 1]]);
    const policy = bigramPolicy(W);
    const adam = new Adam(policy.variables, { learningRate: 0.01 });
    // rows of the bigram: after 5 the tokens are 4 (success) or 5 (failure); after 4 and 5 comes end (1)
    const lp = (row: number, k: number) => {
      const z = W[row]!.map(Math.fround);
      return z[k]! - Math.log(z.reduce((a, x) => a + Math.exp(x), 0));
    };
    const q = [-1.2, -0.9, -2, -1.5]; // recorded rollout log-probs (stale policy)
    const g = group(
      [
        rollout([4, 1], [q[0]!, q[1]!], verdict(true)),
        rollout([5, 1], [q[2]!, q[3]!], verdict(false)),
      ],
      0,
    );
    const dead = group([rollout([4, 1], [-1, -1], verdict(true)), rollout([4, 1], [-1, -1], verdict(true))]);
    // the expected loss by the library's dppoLoss on hand-built token tensors (A = +-0.7071)
    const A = 1 / Math.sqrt(2) / (1 + 1e-6 * Math.SQRT2);
    const expected = dppoLoss({
      logpNew: tf.tensor1d([lp(5, 4), lp(4, 1), lp(5, 5), lp(5, 1)]),
      logpRollout: tf.tensor1d(q),
      advantages: tf.tensor1d([A, A, -A, -A]),
      lossMask: tf.tensor1d([1, 1, 1, 1]),
    });
    const before = W[5]![4]!;
    const stats = await dppoUpdate(policy, adam, toyEnv(), [g, dead], { reward });
    expect(stats.loss).toBeCloseTo(expected.dataSync()[0]!, 5);
    expect(stats).toMatchObject({ groups: 2, zeroVarianceGroups: 1, rollouts: 4, tokens: 4, skipped: false });
    expect(stats.solveRate).toBe(0.75);
    expect(stats.meanAssistantTokens).toBe(2);
    expect(stats.gradNorm).toBeGreaterThan(0);
    // the success's token after 5 became likelier
    const after = (policy.variables[0]!.arraySync() as number[][])[5]![4]!;
    expect(after).toBeGreaterThan(before);
    expected.dispose();
    adam.dispose();
    policy.dispose();
  });

  it('counts the tokens the DPPO mask drops (stale rollouts that already moved)', async () => {
    const policy = bigramPolicy(matrix(V, 0, [[5, 4, 4]]));
    const adam = new Adam(policy.variables, { learningRate: 0.01 });
    // p(4 | 5) is now ~0.92; the rollout policy had it at e^-3 ~ 0.05: dp > 0.2 with A > 0 -> dropped
    const g = group([rollout([4, 1], [-3, -1.7], verdict(true)), rollout([5, 1], [-3, -1.7], verdict(false))]);
    const stats = await dppoUpdate(policy, adam, toyEnv(), [g], { reward });
    expect(stats.droppedPositive).toBe(1);
    expect(stats.keptTokenFraction).toBe(3 / 4);
    adam.dispose();
    policy.dispose();
  });

  it('takes no step when every group has zero variance', async () => {
    const policy = bigramPolicy(matrix(V, 0));
    const adam = new Adam(policy.variables);
    const stats = await dppoUpdate(policy, adam, toyEnv(), [group([rollout([4, 1], [-1, -1], verdict(false)), rollout([4, 1], [-1, -1], verdict(false))])], { reward });
    expect(stats).toMatchObject({ skipped: true, zeroVarianceGroups: 1, tokens: 0, loss: 0 });
    expect(adam.step).toBe(0);
    adam.dispose();
    policy.dispose();
  });

  it('leaks no tensors', async () => {
    const policy = bigramPolicy(matrix(V, 0));
    const adam = new Adam(policy.variables);
    const g = group([rollout([4, 1], [-1.8, -1.8], verdict(true)), rollout([5, 1], [-1.8, -1.8], verdict(false))]);
    await dppoUpdate(policy, adam, toyEnv(), [g], { reward });
    const n = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) await dppoUpdate(policy, adam, toyEnv(), [g], { reward, temperature: 0.8 });
    expect(tf.memory().numTensors).toBe(n);
    adam.dispose();
    policy.dispose();
  });

  it('rejects no groups', async () => {
    const policy = bigramPolicy(matrix(V, 0));
    await expectFrognanoErrorAsync(() => dppoUpdate(policy, new Adam(policy.variables), toyEnv(), [], { reward }), 'EMPTY_INPUT', 'groups');
  });
  it('rejects a missing reward budget', async () => {
    const policy = bigramPolicy(matrix(V, 0));
    await expectFrognanoErrorAsync(() => dppoUpdate(policy, new Adam(policy.variables), toyEnv(), [], { reward: {} as never }), 'INVALID_TYPE', 'opts.reward.budget');
  });
});

/** Issue 12 (fuzz): groupRewardsAndAdvantages validates the groups it reads (it threw TypeErrors). */
describe('groupRewardsAndAdvantages: bad input', () => {
  const reward = { budget: 2, alpha: 0.5 };
  const verdict = (success: boolean) => ({ success, truncated: false, reason: null, assistantTokens: 2 });
  it('groupRewardsAndAdvantages(5, reward) is INVALID_TYPE naming groups', () =>
    expect(expectFrognanoError(() => groupRewardsAndAdvantages(5 as never, reward), 'INVALID_TYPE', 'groupRewardsAndAdvantages').field).toBe('groups'));
  it('refuses a group without rollouts array', () =>
    expect(expectFrognanoError(() => groupRewardsAndAdvantages([{ task: 1, policyVersion: 0 }] as never, reward), 'INVALID_TYPE').field).toBe('groups[0].rollouts'));
  it('refuses a bad verdict, naming it', () => {
    const groups = [{ task: 1, policyVersion: 0, rollouts: [{ verdict: verdict(true) }, { verdict: { ...verdict(false), assistantTokens: NaN } }] }];
    const e = expectFrognanoError(() => groupRewardsAndAdvantages(groups as never, reward), 'NON_FINITE');
    expect(e.field).toBe('groups[0].rollouts[1].verdict.assistantTokens');
  });
  it('refuses no group', () => expect(expectFrognanoError(() => groupRewardsAndAdvantages([], reward), 'EMPTY_INPUT').field).toBe('groups'));
  it('refuses a group of no rollouts', () =>
    expect(expectFrognanoError(() => groupRewardsAndAdvantages([{ task: 1, policyVersion: 0, rollouts: [] }] as never, reward), 'EMPTY_INPUT').field).toBe('groups[0].rollouts'));
  it('refuses bad reward options, naming reward', () =>
    expect(expectFrognanoError(() => groupRewardsAndAdvantages([{ task: 1, policyVersion: 0, rollouts: [{ verdict: verdict(true) }] }] as never, { budget: 0, alpha: 0.5 }), 'OUT_OF_RANGE').field).toBe('reward.budget'));
  it('takes verdict-only rollouts', () => {
    const r = groupRewardsAndAdvantages([{ task: 1, policyVersion: 0, rollouts: [{ verdict: verdict(true) }, { verdict: verdict(false) }] }] as never, reward);
    expect(r.raw).toEqual([[1, 0]]);
    expect(r.kept).toEqual([true]);
  });
});
