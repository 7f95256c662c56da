import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { bigramPolicy, matrix, toyEnv, toyFamily, toyTrainerOptions, toyWeights, type ToyTask } from '../../test/train/helpers.js';
import type { TaskFamily } from '../curriculum/taskPilot.js';
import { DigitTaskFamily } from '../env/digitTasks.js';
import { TinyGpt, TinyGptOptionsSchema } from '../models/tinyGpt.js';
import { readWeights, writeWeights } from './policy.js';
import { sftPretrain } from './sft.js';
import { FrognanoTrainer } from './trainer.js';
import type { UpdateRecord } from './trainerCheckpoint.js';
import type { TrainerOptions } from './trainerOptions.js';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const dir = mkdtempSync(join(tmpdir(), 'frognano-trainer-'));
const V = 6;

const family: TaskFamily<ToyTask> = toyFamily();
const W0 = toyWeights;
const base = toyTrainerOptions;
const strip = (rs: readonly UpdateRecord[]) => rs.map(({ seconds: _s, ...r }) => r);

describe('FrognanoTrainer', () => {
  it('runs TaskPilot iterations with RL climbs and logs one record per update', async () => {
    const policy = bigramPolicy(W0());
    const logPath = join(dir, 'a.jsonl');
    const pilots: number[] = [];
    const r = await new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, base({ logPath })).run({
      onPilot: (p) => pilots.push(p.iteration),
    });
    expect(r.stopped).toBe(false);
    expect(pilots).toEqual([1, 2]);
    expect(r.records.map((x) => [x.iteration, x.update, x.step, x.policyVersion])).toEqual([
      [1, 1, 1, 1],
      [1, 2, 2, 2],
      [1, 3, 3, 3],
      [1, 4, 4, 4],
      [2, 1, 5, 5],
      [2, 2, 6, 6],
      [2, 3, 7, 7],
      [2, 4, 8, 8],
    ]);
    // log-length penalty from iteration 2 on
    expect(r.records.map((x) => x.lengthPenalty)).toEqual([false, false, false, false, true, true, true, true]);
    const lines = readFileSync(logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as UpdateRecord);
    expect(lines).toHaveLength(8);
    for (const key of ['solveRate', 'keptTokenFraction', 'droppedPositive', 'droppedNegative', 'meanRho', 'entropy', 'meanAssistantTokens', 'zeroVarianceGroups', 'policyLag', 'seconds']) {
      expect(lines[0]).toHaveProperty(key);
    }
    // rolloutAhead 1: the first batch of a climb is on-policy, the others one version behind
    expect(r.records.map((x) => x.maxPolicyLag)).toEqual([0, 1, 1, 1, 0, 1, 1, 1]);
    policy.dispose();
  });

  it('a run killed mid-climb and resumed from its checkpoint ends with the same numbers', async () => {
    const straightPolicy = bigramPolicy(W0());
    const straight = await new FrognanoTrainer({ policy: straightPolicy, env: toyEnv({ tool: false }), family }, base()).run();

    const ckpt = join(dir, 'resume.ckpt');
    const logPath = join(dir, 'resume.jsonl');
    const first = bigramPolicy(W0());
    const opts = base({ checkpointPath: ckpt, checkpointEvery: 2, logPath });
    const part = await new FrognanoTrainer({ policy: first, env: toyEnv({ tool: false }), family }, opts).run({ stopAfterUpdates: 7 });
    expect(part.stopped).toBe(true);
    expect(part.records).toHaveLength(7);
    first.dispose();
    // a fresh process: new policy object with other weights; everything comes from the checkpoint (written after update 6)
    const second = bigramPolicy(matrix(V, 0));
    const resumed = await new FrognanoTrainer({ policy: second, env: toyEnv({ tool: false }), family }, opts).run({ resume: true });
    expect(resumed.stopped).toBe(false);
    expect(strip(resumed.records)).toEqual(strip(straight.records));
    expect(resumed.pilots).toEqual(straight.pilots);
    const a = await readWeights(straightPolicy);
    const b = await readWeights(second);
    a.forEach((w, i) => expect(new Uint8Array(b[i]!.buffer)).toEqual(new Uint8Array(w.buffer)));
    // the log holds each update once
    expect(readFileSync(logPath, 'utf8').trim().split('\n')).toHaveLength(8);
    straightPolicy.dispose();
    second.dispose();
  });

  it('lag rule: batches staler than maxLag are regenerated (or dropped) and counted', async () => {
    const run = async (over: Partial<TrainerOptions>) => {
      const policy = bigramPolicy(W0());
      const r = await new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, base({ iterations: 1, updatesPerIteration: 5, ...over })).run();
      policy.dispose();
      return r.records;
    };
    // the actor runs 2 batches ahead, but lag 1 is the most allowed
    const regen = await run({ rolloutAhead: 2, maxLag: 1, stalePolicy: 'regenerate' });
    expect(regen.map((x) => x.maxPolicyLag)).toEqual([0, 1, 0, 0, 0]);
    expect(regen.map((x) => x.staleGroups)).toEqual([0, 0, 3, 3, 3]);
    expect(regen.map((x) => x.regeneratedGroups)).toEqual([0, 0, 3, 3, 3]);
    expect(regen.every((x) => x.groups === 3)).toBe(true);
    const drop = await run({ rolloutAhead: 2, maxLag: 1, stalePolicy: 'drop' });
    expect(drop.map((x) => x.droppedStaleGroups)).toEqual([0, 0, 3, 3, 3]);
    expect(drop.every((x) => x.maxPolicyLag <= 1)).toBe(true);
    // maxLag 3 admits what the actor produces 2 ahead
    const lag3 = await run({ rolloutAhead: 2, maxLag: 3 });
    expect(lag3.map((x) => x.maxPolicyLag)).toEqual([0, 1, 2, 2, 2]);
    expect(lag3.every((x) => x.staleGroups === 0)).toBe(true);
    // synchronous RL
    const sync = await run({ rolloutAhead: 0 });
    expect(sync.every((x) => x.maxPolicyLag === 0)).toBe(true);
  });

  it('keeps the tensor count flat across updates', async () => {
    const policy = bigramPolicy(W0());
    const counts: number[] = [];
    await new FrognanoTrainer({ policy, env: toyEnv({ tool: false }), family }, base({ iterations: 1, updatesPerIteration: 6 })).run({
      onUpdate: () => counts.push(tf.memory().numTensors),
    });
    expect(new Set(counts.slice(1)).size).toBe(1);
    policy.dispose();
  });

  it('trains a TinyGpt on digit tasks and resumes it bit for bit', async () => {
    const fam = new DigitTaskFamily({ ops: ['copy', 'reverse'], minLength: 2, maxLength: 3, checkTool: false, specificityWeights: [0, 1, 1, 1, 1] });
    const make = () => new TinyGpt(TinyGptOptionsSchema.parse({ vocabSize: fam.vocabSize, contextLength: fam.maxEpisodeTokens, dModel: 16, layers: 1, heads: 2, seed: 3 }));
    const warm = make();
    await sftPretrain(warm, fam.demonstrations(256, 1), { steps: 40, batchSize: 32, learningRate: 1e-2 });
    const start = await readWeights(warm);
    warm.dispose();
    const opts = base({
      iterations: 1,
      updatesPerIteration: 4,
      groupsPerUpdate: 3,
      learningRate: 3e-3,
      pilot: { candidates: 12, rollouts: 4, maxRounds: 1, band: { low: 0, high: 1 } },
    });
    const a = make();
    writeWeights(a, start);
    const straight = await new FrognanoTrainer({ policy: a, env: fam, family: fam }, opts).run();
    expect(straight.pilots[0]!.accepted.length).toBeGreaterThan(0);
    expect(straight.records).toHaveLength(4);
    const ckpt = join(dir, 'tiny.ckpt');
    const b = make();
    writeWeights(b, start);
    await new FrognanoTrainer({ policy: b, env: fam, family: fam }, { ...opts, checkpointPath: ckpt, checkpointEvery: 2 }).run({ stopAfterUpdates: 3 });
    b.dispose();
    const c = make();
    const resumed = await new FrognanoTrainer({ policy: c, env: fam, family: fam }, { ...opts, checkpointPath: ckpt }).run({ resume: true });
    expect(strip(resumed.records)).toEqual(strip(straight.records));
    const wa = await readWeights(a);
    (await readWeights(c)).forEach((w, i) => expect(new Uint8Array(w.buffer)).toEqual(new Uint8Array(wa[i]!.buffer)));
    a.dispose();
    c.dispose();
  });

  it('refuses a checkpoint of another model, of another seed, and a corrupt one', async () => {
    const ckpt = join(dir, 'other.ckpt');
    const p = bigramPolicy(W0());
    await new FrognanoTrainer({ policy: p, env: toyEnv({ tool: false }), family }, base({ iterations: 1, updatesPerIteration: 1, checkpointPath: ckpt })).run();
    const other = bigramPolicy(matrix(V + 1, 0));
    await expectFrognanoErrorAsync(
      () => new FrognanoTrainer({ policy: other, env: toyEnv({ tool: false }), family }, base({ checkpointPath: ckpt })).run({ resume: true }),
      'CHECKPOINT_INVALID',
      'another model',
    );
    await expectFrognanoErrorAsync(
      () => new FrognanoTrainer({ policy: p, env: toyEnv({ tool: false }), family }, base({ seed: 6, checkpointPath: ckpt })).run({ resume: true }),
      'CHECKPOINT_INVALID',
      'seed',
    );
    writeFileSync(ckpt, readFileSync(ckpt).subarray(0, 200));
    await expectFrognanoErrorAsync(
      () => new FrognanoTrainer({ policy: p, env: toyEnv({ tool: false }), family }, base({ checkpointPath: ckpt })).run({ resume: ckpt }),
      'CHECKPOINT_INVALID',
      'truncated',
    );
    p.dispose();
    other.dispose();
  });

  it('rejects bad options', () => {
    const p = bigramPolicy(W0());
    expectFrognanoError(() => new FrognanoTrainer({ policy: p, env: toyEnv(), family }, { ...base(), groupSize: 1 }), 'OUT_OF_RANGE', 'opts.groupSize');
    expectFrognanoError(() => new FrognanoTrainer({ policy: p, env: toyEnv(), family }, { ...base(), maxlag: 2 } as never), 'INVALID_TYPE', 'maxlag');
    expectFrognanoError(() => new FrognanoTrainer({ policy: p, env: toyEnv(), family }, { ...base(), reward: {} as never }), 'INVALID_TYPE', 'opts.reward.budget');
    p.dispose();
  });
});
