import * as tf from '@tensorflow/tfjs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TaskFamily } from '../../src/curriculum/taskPilot.js';
import { DigitTaskFamily } from '../../src/env/digitTasks.js';
import { TinyGpt, TinyGptOptionsSchema } from '../../src/models/tinyGpt.js';
import type { Policy } from '../../src/train/policy.js';
import { sftPretrain } from '../../src/train/sft.js';
import { generateRollouts } from '../../src/train/rollout.js';
import { FrognanoTrainer } from '../../src/train/trainer.js';
import type { TrainerOptions } from '../../src/train/trainerOptions.js';
import { bigramPolicy, matrix, toyEnv, toyFamily, toyWeights, type ToyTask } from './helpers.js';

/**
 * Issue 12, item 9: a failed run() must leave no work behind. When an update
 * throws, the batch the actor prefetches is cancelled and awaited before run()
 * rejects; an error inside that generation reaches the caller (never an
 * unhandled rejection); disposing the policy right after the failure is safe.
 */

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => {
  unhandled.push(e);
};
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

const V = 6;
// long enough answers that a prefetched generation spans several decode steps
const family: TaskFamily<ToyTask> = toyFamily(8);
const W0 = toyWeights;
const opts = (over: Partial<TrainerOptions> = {}): TrainerOptions => ({
  seed: 5,
  iterations: 1,
  updatesPerIteration: 4,
  groupsPerUpdate: 3,
  groupSize: 4,
  learningRate: 0.05,
  reward: { budget: 2 },
  pilot: { candidates: 6, rollouts: 4, maxRounds: 1, band: { low: 0, high: 1 } },
  progress: false,
  ...over,
});

/**
 * The learner policy and the actor clones it makes, wrapped: `failLearner` /
 * `failActor` make their next forward passes throw; every forward pass is counted
 * with the time it happened relative to `settled`.
 */
function instrumented(inner: Policy) {
  const ctl = {
    failLearner: null as Error | null,
    /** Throw on the n-th actor forward pass from now (1 = the next one). */
    failActor: null as { error: Error; after: number } | null,
    settled: false,
    callsAfterSettled: 0,
  };
  const wrap = (p: Policy, role: 'learner' | 'actor'): Policy => ({
    vocabSize: p.vocabSize,
    contextLength: p.contextLength,
    variables: p.variables,
    logits: (tokens) => {
      if (ctl.settled) ctl.callsAfterSettled++;
      if (role === 'learner' && ctl.failLearner) throw ctl.failLearner;
      if (role === 'actor' && ctl.failActor && --ctl.failActor.after <= 0) throw ctl.failActor.error;
      return p.logits(tokens);
    },
    clone: async () => wrap(await p.clone(), 'actor'),
    dispose: () => p.dispose(),
  });
  return { policy: wrap(inner, 'learner'), ctl };
}

/** Lets pending timers, immediates and microtasks run (a leftover generation would call the policy here). */
const drain = async (): Promise<void> => {
  for (let k = 0; k < 20; k++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 50));
};

async function settle(p: Promise<unknown>, ctl: { settled: boolean }): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  } finally {
    ctl.settled = true;
  }
  throw new Error('run() resolved, expected a rejection');
}

describe('FrognanoTrainer.run after a failure', () => {
  it('a failing update: run() rejects with its error only after the prefetched generation stopped', async () => {
    const { policy, ctl } = instrumented(bigramPolicy(W0()));
    const boom = new Error('update boom');
    const trainer = new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, opts());
    // armed once TaskPilot is done: the first update of the climb throws while the actor prefetches batch 2
    const err = await settle(trainer.run({ onPilot: () => void (ctl.failLearner = boom) }), ctl);
    expect(err).toBe(boom);
    // the model can be disposed at once; nothing of the run touches a policy afterwards
    expect(() => policy.dispose()).not.toThrow();
    await drain();
    expect(ctl.callsAfterSettled).toBe(0);
    expect(unhandled).toEqual([]);
  });

  it('a failing prefetched generation reaches the caller, not the process', async () => {
    const { policy, ctl } = instrumented(bigramPolicy(W0()));
    const boom = new Error('generation boom');
    const trainer = new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, opts());
    // after update 1: the prefetch of batch 3 fails on its first forward pass, while nobody awaits it yet
    const err = await settle(trainer.run({ onUpdate: (r) => void (r.update === 1 && (ctl.failActor = { error: boom, after: 1 })) }), ctl);
    expect(err).toBe(boom);
    expect(() => policy.dispose()).not.toThrow();
    await drain();
    expect(ctl.callsAfterSettled).toBe(0);
    expect(unhandled).toEqual([]);
  });

  it('both fail: the first error is thrown, the later one is its cause', async () => {
    const { policy, ctl } = instrumented(bigramPolicy(W0()));
    const genBoom = new Error('generation boom');
    const updBoom = new Error('update boom');
    const trainer = new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, opts());
    const err = await settle(
      trainer.run({
        onUpdate: (r) => {
          if (r.update !== 1) return;
          // update 2: the prefetch fails on its first forward pass (before the update starts), then the update fails
          ctl.failActor = { error: genBoom, after: 1 };
          ctl.failLearner = updBoom;
        },
      }),
      ctl,
    );
    expect(err).toBe(genBoom);
    expect((err as Error).cause).toBe(updBoom);
    expect(() => policy.dispose()).not.toThrow();
    await drain();
    expect(ctl.callsAfterSettled).toBe(0);
    expect(unhandled).toEqual([]);
  });

  it('a TinyGpt disposed right after a failed run: no uncaught tfjs error, no tensors of the run left', async () => {
    // The report: the actor's prefetch went on after run() rejected, on a disposed copy ->
    // "TypeError: Cannot read properties of undefined (reading 'backend')", unhandled.
    const fam = new DigitTaskFamily({ ops: ['copy', 'reverse'], minLength: 2, maxLength: 3, checkTool: false, specificityWeights: [0, 1, 1, 1, 1] });
    const model = new TinyGpt(TinyGptOptionsSchema.parse({ vocabSize: fam.vocabSize, contextLength: fam.maxEpisodeTokens, dModel: 16, layers: 1, heads: 2, seed: 3 }));
    // a short warm start, so that the first update has groups with mixed outcomes and runs its forward pass
    await sftPretrain(model, fam.demonstrations(256, 1), { steps: 8, batchSize: 16, learningRate: 3e-2 });
    // the model's lazily cached causal mask, made once here so it is not counted below
    tf.dispose(model.logits(tf.tensor2d([[1, 2]], [1, 2], 'int32')));
    // what a clone of this model leaves behind once disposed (a TinyGpt matter, not the trainer's)
    let before = tf.memory().numTensors;
    (await model.clone()).dispose();
    const cloneResidue = tf.memory().numTensors - before;
    before = tf.memory().numTensors;
    const { policy, ctl } = instrumented(model);
    const boom = new Error('update boom');
    const trainer = new FrognanoTrainer(
      { policy, env: fam, family: fam },
      opts({ learningRate: 3e-3, pilot: { candidates: 12, rollouts: 4, maxRounds: 1, band: { low: 0, high: 1 } } }),
    );
    const err = await settle(trainer.run({ onPilot: () => void (ctl.failLearner = boom) }), ctl);
    expect(err).toBe(boom);
    // the actor copy and Adam's moments are gone with the run: only the caller's model remains
    expect(tf.memory().numTensors - before).toBe(cloneResidue);
    expect(() => policy.dispose()).not.toThrow();
    await drain();
    expect(ctl.callsAfterSettled).toBe(0);
    expect(unhandled).toEqual([]);
  });
});

describe('generateRollouts: opts.signal', () => {
  it('an aborted signal stops the call within one decode step, with the signal reason', async () => {
    const p = bigramPolicy(W0());
    let calls = 0;
    const counted: Policy = { ...p, logits: (t) => (calls++, p.logits(t)) };
    const ac = new AbortController();
    const reason = new Error('stop');
    const tasks: ToyTask[] = [{ id: 'a', prompt: [4, 5], answer: [4], maxNewTokens: 8, maxTurns: 1 }];
    const run = generateRollouts(counted, toyEnv({ tool: false }), tasks, { groupSize: 4, seed: 1, signal: ac.signal });
    ac.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(calls).toBeLessThanOrEqual(1);
    ac.abort();
    await expect(generateRollouts(counted, toyEnv({ tool: false }), tasks, { signal: ac.signal })).rejects.toBe(reason);
    p.dispose();
  });
});
