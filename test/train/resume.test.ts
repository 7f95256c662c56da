import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskFamily } from '../../src/curriculum/taskPilot.js';
import { decodeFloat32, encodeFloat32, loadCheckpoint, saveCheckpoint } from '../../src/train/checkpoint.js';
import { FrognanoTrainer } from '../../src/train/trainer.js';
import type { UpdateRecord } from '../../src/train/trainerCheckpoint.js';
import { type TrainerOptions, trainingConfig } from '../../src/train/trainerOptions.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { bigramPolicy, matrix, toyEnv, toyFamily, toyTrainerOptions, toyWeights, type ToyTask } from './helpers.js';

/**
 * Issue 12, item 10: resume trusts only what it checks. The training
 * configuration is stored in the checkpoint and compared on resume; the restored
 * counters, task order, buffer, RNG states, weights and Adam moments are
 * range-checked, so a checkpoint edited and resealed (checksum recomputed)
 * is refused before anything of it is used.
 */

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const dir = mkdtempSync(join(tmpdir(), 'frognano-resume-'));
const V = 6;
const family: TaskFamily<ToyTask> = toyFamily();
const W0 = toyWeights;
const base = (over: Partial<TrainerOptions> = {}): TrainerOptions => toyTrainerOptions({ checkpointEvery: 2, ...over });
const strip = (rs: readonly UpdateRecord[]) => rs.map(({ seconds: _s, ...r }) => r);
const trainer = (opts: TrainerOptions, W = W0()) => {
  const policy = bigramPolicy(W);
  return { policy, t: new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, opts) };
};

/** A checkpoint written mid-climb (after update 2 of iteration 1: Adam's state, the RNG streams, a buffered batch). */
async function midClimb(name: string, over: Partial<TrainerOptions> = {}): Promise<string> {
  const path = join(dir, name);
  const { policy, t } = trainer(base({ checkpointPath: path, ...over }));
  await t.run({ stopAfterUpdates: 3 });
  policy.dispose();
  return path;
}

type Payload = {
  config?: Record<string, unknown>;
  weights: string[];
  optimizer: { step: number; m: string[]; v: string[] } | null;
  state: Record<string, unknown> & { rng: { tasks: { i: number; j: number; S: number[] } } | null; buffer: { rollouts: { logpRollout: number[]; tokens: number[] }[] }[] };
};
/** Edits a checkpoint and reseals it: the header's length and sha256 are recomputed, so loadCheckpoint accepts it. */
function reseal(path: string, edit: (p: Payload) => void): string {
  const out = `${path}.${Math.random().toString(36).slice(2)}`;
  const p = loadCheckpoint(path) as Payload;
  edit(p);
  saveCheckpoint(out, p);
  expect(() => loadCheckpoint(out)).not.toThrow();
  return out;
}
const resume = async (path: string, over: Partial<TrainerOptions> = {}, allowConfigChange?: boolean) => {
  const { policy, t } = trainer(base({ checkpointPath: path, ...over }), matrix(V, 0));
  try {
    return await t.run({ resume: path, allowConfigChange });
  } finally {
    policy.dispose();
  }
};

describe('resume: the training configuration', () => {
  it('is stored in the checkpoint', async () => {
    const path = await midClimb('stored.ckpt');
    const p = loadCheckpoint(path) as Payload;
    const { policy, t } = trainer(base());
    expect(p.config).toEqual(trainingConfig(t.options));
    policy.dispose();
    expect(p.config).toMatchObject({ learningRate: 0.05, groupSize: 4, iterations: 2, reward: { budget: 2 } });
  });

  it('a different learning rate, group size or iteration count is refused, naming each field with both values', async () => {
    const path = await midClimb('changed.ckpt');
    const err = await expectFrognanoErrorAsync(
      () => resume(path, { learningRate: 0.1, groupSize: 8, iterations: 3 }),
      'CHECKPOINT_INVALID',
      'another training configuration',
      'learningRate is 0.05 in the checkpoint, 0.1 in this run',
      'groupSize is 4 in the checkpoint, 8 in this run',
      'iterations is 2 in the checkpoint, 3 in this run',
      'allowConfigChange',
    );
    expect(err.field).toBe('opts.iterations');
    // nested fields by their path
    await expectFrognanoErrorAsync(() => resume(path, { reward: { budget: 3, alpha: 0.2, lengthPenaltyFromIteration: 2 } }), 'CHECKPOINT_INVALID', 'reward.budget is 2 in the checkpoint, 3 in this run');
    await expectFrognanoErrorAsync(() => resume(path, { dppo: { delta: 0.3 } }), 'CHECKPOINT_INVALID', 'dppo.delta is 0.2 in the checkpoint, 0.3 in this run');
  });

  it('options that do not change the numbers may differ (paths, checkpointEvery, maxBatch, progress, dppo defaults spelled out)', async () => {
    const straight = trainer(base());
    const full = await straight.t.run();
    straight.policy.dispose();
    const path = await midClimb('same.ckpt');
    const r = await resume(path, { checkpointEvery: 3, maxBatch: 7, logPath: join(dir, 'same.jsonl'), dppo: { delta: 0.2 } });
    expect(strip(r.records)).toEqual(strip(full.records));
  });

  it('allowConfigChange resumes under the new configuration, and the next checkpoints record it', async () => {
    const path = await midClimb('allowed.ckpt');
    const r = await resume(path, { learningRate: 0.1 }, true);
    expect(r.stopped).toBe(false);
    expect(r.records).toHaveLength(8);
    expect((loadCheckpoint(path) as Payload).config).toMatchObject({ learningRate: 0.1 });
  });

  it('allowConfigChange with more iterations continues a finished run', async () => {
    const path = join(dir, 'done.ckpt');
    const { policy, t } = trainer(base({ iterations: 1, checkpointPath: path }));
    expect((await t.run()).records).toHaveLength(4);
    policy.dispose();
    // a finished run resumed as it is: nothing to do
    expect((await resume(path, { iterations: 1 })).records).toHaveLength(4);
    await expectFrognanoErrorAsync(() => resume(path, { iterations: 2 }), 'CHECKPOINT_INVALID', 'iterations is 1 in the checkpoint, 2 in this run');
    const more = await resume(path, { iterations: 2 }, true);
    expect(more.records.map((x) => x.iteration)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    expect(more.pilots).toHaveLength(2);
  });

  it('fewer iterations than the checkpoint has reached is refused even with allowConfigChange', async () => {
    const path = join(dir, 'far.ckpt');
    const { policy, t } = trainer(base({ checkpointPath: path }));
    await t.run({ stopAfterUpdates: 6 }); // iteration 2, mid-climb
    policy.dispose();
    await expectFrognanoErrorAsync(() => resume(path, { iterations: 1 }, true), 'CHECKPOINT_INVALID', 'iteration 2', 'iterations = 1');
  });

  it('a checkpoint without a recorded configuration (an older version) needs allowConfigChange', async () => {
    const path = reseal(await midClimb('old.ckpt'), (p) => delete p.config);
    await expectFrognanoErrorAsync(() => resume(path), 'CHECKPOINT_INVALID', 'does not record its training configuration', 'allowConfigChange');
    expect((await resume(path, {}, true)).records).toHaveLength(8);
  });
});

describe('resume: a tampered, resealed checkpoint is refused', () => {
  let path = '';
  beforeAll(async () => {
    path = await midClimb('tamper.ckpt');
  });
  const refuses = async (edit: (p: Payload) => void, ...mentions: string[]) =>
    expectFrognanoErrorAsync(() => resume(reseal(path, edit)), 'CHECKPOINT_INVALID', ...mentions);

  it('the untouched checkpoint resumes (the reseal itself changes nothing)', async () => {
    expect((await resume(reseal(path, () => undefined))).records).toHaveLength(8);
  });
  it('a payload that is not a trainer checkpoint names the field by its path (errorFromZodIssue)', async () => {
    const err = await refuses((p) => void (p.state.buffer[0]!.rollouts = 'x' as never), 'not a trainer checkpoint', 'state.buffer[0].rollouts must be an array, got "x"');
    expect(err.field).toBe('state.buffer[0].rollouts');
    expect(err.index).toEqual([0]);
    const kind = await refuses((p) => void ((p as { kind?: unknown }).kind = 'other'), 'not a trainer checkpoint', 'kind');
    expect(kind.field).toBe('kind');
  });
  it('iteration 99', async () => {
    const err = await refuses((p) => void (p.state.iteration = 99), 'state.iteration', '99', 'iterations = 2');
    expect(err.field).toBe('state.iteration');
  });
  it('iteration 3 of 2 while not done, and done before the last iteration', async () => {
    await refuses((p) => void (p.state.iteration = 3), 'state.iteration', 'is 3');
    await refuses((p) => void (p.state.phase = 'done'), 'state.iteration', "phase 'done'");
  });
  it('cursor 1e9', async () => {
    const err = await refuses((p) => void (p.state.cursor = 1e9), 'state.cursor', '1000000000', 'beyond the task order');
    expect(err.field).toBe('state.cursor');
  });
  it('a task order that is not a permutation of the pool', async () => {
    await refuses((p) => void ((p.state.order as number[])[0] = 1e6), 'state.order[0]', '1000000');
    await refuses((p) => void ((p.state.order as number[]).length = 1), 'state.order', 'entries for a pool');
  });
  it('update, batches, step and version counters out of range or inconsistent', async () => {
    await refuses((p) => void (p.state.update = 50), 'state.update', '50', 'updatesPerIteration = 4');
    await refuses((p) => void (p.state.batchesGenerated = 50), 'state.batchesGenerated');
    await refuses((p) => void (p.state.step = 7), 'state.step', 'update records');
    await refuses((p) => void (p.state.policyVersion = 9), 'state.policyVersion');
  });
  it('NaN or Infinity weights, naming the tensor and the element', async () => {
    const nanAt = (b64: string, k: number, x: number) => {
      const w = decodeFloat32(b64);
      w[k] = x;
      return encodeFloat32(w);
    };
    const err = await refuses((p) => void (p.weights[0] = nanAt(p.weights[0]!, 7, Number.NaN)), 'weights[0]', 'NaN', 'element 7');
    expect(err.field).toBe('weights[0]');
    await refuses((p) => void (p.weights[0] = nanAt(p.weights[0]!, 0, Infinity)), 'weights[0]', 'Infinity', 'element 0');
    await refuses((p) => void (p.optimizer!.m[0] = nanAt(p.optimizer!.m[0]!, 3, -Infinity)), 'optimizer.m[0]', '-Infinity', 'element 3');
    await refuses((p) => void (p.optimizer!.v[0] = nanAt(p.optimizer!.v[0]!, 2, Number.NaN)), 'optimizer.v[0]', 'NaN');
    // a second moment is a mean of squares: never negative
    await refuses((p) => void (p.optimizer!.v[0] = nanAt(p.optimizer!.v[0]!, 2, -1)), 'optimizer.v[0]', '-1');
  });
  it('a wrong number of weight or moment tensors', async () => {
    await refuses((p) => void p.weights.push(p.weights[0]!), 'weights holds 2 tensors');
    await refuses((p) => void p.optimizer!.m.push(p.optimizer!.m[0]!), 'optimizer.m holds 2 tensors');
  });
  it('an optimizer step beyond the updates made, or an optimizer outside a climb', async () => {
    await refuses((p) => void (p.optimizer!.step = 40), 'optimizer.step');
    await refuses((p) => {
      p.state.phase = 'pilot';
      p.state.iteration = 2;
      p.state.rng = null;
    }, 'optimizer');
  });
  it('RNG states that are not ARC4 states', async () => {
    await refuses((p) => void (p.state.rng!.tasks.i = 300), 'state.rng.tasks');
    await refuses((p) => void (p.state.rng!.tasks.S[0] = p.state.rng!.tasks.S[1]!), 'state.rng.tasks', 'permutation');
    await refuses((p) => void (p.state.rng = null), 'state.rng', "phase 'climb'");
  });
  it('a buffered rollout with a NaN log-prob or a token outside the vocabulary', async () => {
    await refuses((p) => void (p.state.buffer[0]!.rollouts[0]!.logpRollout[2] = null as unknown as number), 'state.buffer[0].rollouts[0].logpRollout[2]');
    await refuses((p) => void (p.state.buffer[0]!.rollouts[1]!.tokens[0] = V), 'state.buffer[0].rollouts[1].tokens[0]', `[0, ${V})`);
  });
});
