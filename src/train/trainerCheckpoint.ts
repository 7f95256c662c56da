import { z } from 'zod';
import type { TaskPilotResult } from '../curriculum/taskPilot.js';
import { errorFromZodIssue } from '../errors/errorFromZodIssue.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import type { AdamState } from './adam.js';
import { decodeFloat32, encodeFloat32, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { type Policy, readWeights, writeWeights } from './policy.js';
import type { RngState } from './rng.js';
import type { Rollout, RolloutGroup } from './rollout.js';
import { type ConfigDifference, configDifferences, type ParsedTrainerOptions, showConfigValue, trainingConfig } from './trainerOptions.js';
import type { UpdateStats } from './update.js';

/** One line of the JSONL log: what one update did (FrogNano §4, Fig. 9 / 10). */
export interface UpdateRecord extends UpdateStats {
  /** Iteration (1-based). */
  iteration: number;
  /** Update within the climb (1-based). */
  update: number;
  /** Update over the whole run (1-based). */
  step: number;
  /** Policy version after the update. */
  policyVersion: number;
  /** Mean policy lag of the groups trained on. */
  policyLag: number;
  /** Largest policy lag of the groups trained on. */
  maxPolicyLag: number;
  /** Groups found staler than `maxLag` before this update. */
  staleGroups: number;
  /** Of those, regenerated with the current policy. */
  regeneratedGroups: number;
  /** Of those, dropped. */
  droppedStaleGroups: number;
  /** Whether the log-length penalty was on. */
  lengthPenalty: boolean;
  /** Wall-clock seconds of this update (waiting for rollouts included). Not reproducible. */
  seconds: number;
}

/**
 * Where a run stands, as a checkpoint stores it (with the weights and Adam's
 * state). Tasks are the family's own JSON here (`unknown`), typed `T` in
 * {@link TrainerState}. The parts that are checked against the policy on restore
 * (buffered rollouts, RNG states) or not at all (TaskPilot results, update
 * records) carry their type only; {@link restoreTrainerCheckpoint} checks them.
 */
const TrainerStateSchema = z.object({
  /** Current iteration, 1-based. */
  iteration: z.number().int().min(1),
  /** `'pilot'`: TaskPilot of `iteration` is next; `'climb'`: its RL climb is under way; `'done'`. */
  phase: z.enum(['pilot', 'climb', 'done']),
  /** Updates done in the current climb. */
  update: z.number().int().min(0),
  /** Updates done in the whole run. */
  step: z.number().int().min(0),
  /** Version of the learner's weights (one per update). */
  policyVersion: z.number().int().min(0),
  /** The current iteration's accepted tasks. */
  pool: z.array(z.unknown()),
  /** Shuffled order of `pool` (epochs). */
  order: z.array(z.number().int()),
  /** Position in `order`. */
  cursor: z.number().int().min(0),
  /** Batches the actor has produced in this climb. */
  batchesGenerated: z.number().int().min(0),
  /** Rollout groups produced but not yet trained on. */
  buffer: z.array(z.object({ task: z.unknown(), policyVersion: z.number().int().min(0), rollouts: z.array(z.custom<Rollout>()) })),
  /** Every TaskPilot result so far. */
  pilots: z.array(z.custom<TaskPilotResult<unknown>>()),
  /** Every update record so far. */
  records: z.array(z.custom<UpdateRecord>()),
  /** States of the task-order and sampling streams of the current climb (`null` outside a climb). */
  rng: z.object({ tasks: z.custom<RngState>(), sampling: z.custom<RngState>() }).nullable(),
});

/** A trainer checkpoint's payload (inside {@link saveCheckpoint}'s checksummed envelope). */
const TrainerCheckpointSchema = z.object({
  kind: z.literal('frognano-trainer'),
  seed: z.union([z.number(), z.string()]),
  /** {@link trainingConfig} of the run that wrote it (absent in checkpoints of older versions). */
  config: z.record(z.string(), z.unknown()).optional(),
  shapes: z.array(z.array(z.number().int())),
  weights: z.array(z.string()),
  optimizer: z.object({ step: z.number().int().min(0), m: z.array(z.string()), v: z.array(z.string()) }).nullable(),
  state: TrainerStateSchema,
});
type TrainerCheckpoint = z.output<typeof TrainerCheckpointSchema>;

/** The parts of the state that hold tasks: `unknown` in the checkpoint, `T` in a run. */
type TaskTyped = 'pool' | 'buffer' | 'pilots';

/**
 * Where a run stands; what a checkpoint stores (with the weights and Adam's
 * state): the fields of the checkpoint's state schema (`iteration`, `phase`,
 * `update`, `step`, `policyVersion`, `order`, `cursor`, `batchesGenerated`,
 * `records`, `rng`), with the tasks typed `T`.
 */
export type TrainerState<T> = Omit<z.output<typeof TrainerStateSchema>, TaskTyped> & {
  /** The current iteration's accepted tasks. */
  pool: T[];
  /** Rollout groups produced but not yet trained on. */
  buffer: RolloutGroup<T>[];
  /** Every TaskPilot result so far. */
  pilots: TaskPilotResult<T>[];
};

/** The state of a run that has not started: TaskPilot of iteration 1 is next. */
export function freshState<T>(): TrainerState<T> {
  return {
    iteration: 1,
    phase: 'pilot',
    update: 0,
    step: 0,
    policyVersion: 0,
    pool: [],
    order: [],
    cursor: 0,
    batchesGenerated: 0,
    buffer: [],
    pilots: [],
    records: [],
    rng: null,
  };
}

/**
 * Writes a trainer checkpoint (atomic, checksummed: {@link saveCheckpoint}); the
 * weights are read with `await tensor.data()` (no synchronous read, webgpu in
 * Node included).
 */
export async function saveTrainerCheckpoint<T>(
  path: string,
  policy: Policy,
  options: ParsedTrainerOptions,
  state: TrainerState<T>,
  optimizer: AdamState | null,
): Promise<void> {
  const weights = await readWeights(policy);
  const payload: TrainerCheckpoint = {
    kind: 'frognano-trainer',
    seed: options.seed,
    config: trainingConfig(options),
    shapes: policy.variables.map((v) => v.shape),
    weights: weights.map(encodeFloat32),
    optimizer: optimizer === null ? null : { step: optimizer.step, m: optimizer.m.map(encodeFloat32), v: optimizer.v.map(encodeFloat32) },
    state,
  };
  saveCheckpoint(path, payload);
}

/** What {@link restoreTrainerCheckpoint} gives back. */
export interface RestoredCheckpoint<T> {
  /** The run's state. */
  state: TrainerState<T>;
  /** Adam's state mid-climb; `null` at a climb's start or outside a climb. */
  optimizer: AdamState | null;
  /** The configuration fields that differ from the checkpoint's (only with `allowConfigChange`). */
  changed: ConfigDifference[];
}

/** Makes the `CHECKPOINT_INVALID` error of a restore: the file, what is wrong, and the field (default `resume`). */
type Refuse = (why: string, field?: string, index?: number[]) => FrognanoError;

/**
 * Reads a trainer checkpoint and checks everything it restores before any of it
 * is used: the seed, the model (shapes), the training configuration (unless
 * `allowConfigChange`), the counters against the configuration that wrote them,
 * the task order and its cursor, the rollout buffer, the RNG states, and finite
 * weights and Adam moments. A resealed checkpoint (edited, checksum recomputed)
 * passes `loadCheckpoint` but not these. On success the weights are written into
 * `policy`; the tasks are taken to be the family's (`T`).
 *
 * @throws FrognanoError `CHECKPOINT_INVALID` (`fn` `FrognanoTrainer.run`) naming what is wrong and the field
 */
export function restoreTrainerCheckpoint<T>(path: string, policy: Policy, options: ParsedTrainerOptions, allowConfigChange: boolean): RestoredCheckpoint<T> {
  const refuse: Refuse = (why, field = 'resume', index?: number[]) =>
    new FrognanoError(ErrorCode.CHECKPOINT_INVALID, `${path}: ${why}`, { fn: 'FrognanoTrainer.run', field, index });
  const payload = loadCheckpoint(path);
  const parsed = TrainerCheckpointSchema.safeParse(payload);
  if (!parsed.success) {
    // The issue rendered as every boundary renders one (`state.buffer[0].policyVersion: ...`), under this error's code.
    const e = errorFromZodIssue(parsed.error.issues[0]!, payload);
    throw refuse(`not a trainer checkpoint (${e.message})`, e.field ?? 'resume', e.index);
  }
  const c = parsed.data;
  checkSameRun(c, policy, options, refuse);
  const { changed, limits } = compareConfig(c.config, options, allowConfigChange, refuse);
  checkState(c.state, limits, policy.vocabSize, refuse);
  const vars = policy.variables;
  const weights = readTensors('weights', c.weights, vars, refuse);
  const optimizer = readOptimizer(c.optimizer, c.state, vars, refuse);

  // Under a changed configuration (allowConfigChange): the position must exist in the new one.
  const st = c.state;
  if (st.phase !== 'done' && st.iteration > options.iterations) {
    throw refuse(`is in iteration ${st.iteration}, beyond this run's iterations = ${options.iterations}`, 'opts.iterations');
  }
  if (st.phase === 'done' && st.iteration <= options.iterations) st.phase = 'pilot';
  writeWeights(policy, weights);
  // The tasks are the family's JSON as this trainer wrote them: typed `T` on the caller's word.
  const state: TrainerState<T> = { ...st, pool: st.pool as T[], buffer: st.buffer as RolloutGroup<T>[], pilots: st.pilots as TaskPilotResult<T>[] };
  return { state, optimizer, changed };
}

/** The seed and the model (the weight shapes) must be this run's. */
function checkSameRun(c: TrainerCheckpoint, policy: Policy, options: ParsedTrainerOptions, refuse: Refuse): void {
  if (String(c.seed) !== String(options.seed)) throw refuse(`written by a run with seed ${JSON.stringify(c.seed)}, this run has seed ${JSON.stringify(options.seed)}`);
  const vars = policy.variables;
  if (c.shapes.length !== vars.length || c.shapes.some((s, i) => s.join(',') !== vars[i]!.shape.join(','))) {
    throw refuse(`for another model: ${c.shapes.length} weight tensors of other shapes than this policy's ${vars.length}`);
  }
}

/** The run length the checkpoint's counters are checked against: the configuration that wrote them. */
interface RunLimits {
  iterations: number;
  updatesPerIteration: number;
}

/**
 * The training configuration: the checkpoint's own, compared with this run's.
 * Returns the differences (allowed only with `allowConfigChange`) and the run
 * length of the configuration that wrote the checkpoint.
 */
function compareConfig(
  saved: Record<string, unknown> | undefined,
  options: ParsedTrainerOptions,
  allowConfigChange: boolean,
  refuse: Refuse,
): { changed: ConfigDifference[]; limits: RunLimits } {
  const current = trainingConfig(options);
  let changed: ConfigDifference[] = [];
  if (saved === undefined) {
    if (!allowConfigChange) {
      throw refuse('does not record its training configuration (written by an older frognano); pass allowConfigChange: true to resume it under this run\'s options');
    }
  } else {
    changed = configDifferences(saved, current);
    if (changed.length > 0 && !allowConfigChange) {
      throw refuse(
        `written with another training configuration: ${changed.map((d) => `${d.field} is ${showConfigValue(d.saved)} in the checkpoint, ${showConfigValue(d.current)} in this run`).join('; ')}. Resume with the checkpoint's values, or pass allowConfigChange: true to continue under this run's options`,
        `opts.${changed[0]!.field}`,
      );
    }
  }
  const config = saved ?? current;
  const limits = {
    iterations: typeof config.iterations === 'number' ? config.iterations : options.iterations,
    updatesPerIteration: typeof config.updatesPerIteration === 'number' ? config.updatesPerIteration : options.updatesPerIteration,
  };
  return { changed, limits };
}

/** The counters against the configuration that wrote them, the task order, the buffer and the RNG states. */
function checkState(st: TrainerCheckpoint['state'], limits: RunLimits, vocabSize: number, refuse: Refuse): void {
  const stateBad = (field: string, why: string): FrognanoError => refuse(`state.${field} ${why}`, `state.${field}`);
  const I = limits.iterations;
  const U = limits.updatesPerIteration;
  if (st.phase === 'done' ? st.iteration !== I + 1 : st.iteration > I) {
    throw stateBad('iteration', `is ${st.iteration} in phase '${st.phase}', outside [1, ${I}] (${I + 1} when done) for iterations = ${I}`);
  }
  if (st.update > U) throw stateBad('update', `is ${st.update}, outside [0, ${U}] for updatesPerIteration = ${U}`);
  if (st.batchesGenerated > U) throw stateBad('batchesGenerated', `is ${st.batchesGenerated}, outside [0, ${U}] for updatesPerIteration = ${U}`);
  if (st.step !== st.records.length) throw stateBad('step', `is ${st.step} but the checkpoint holds ${st.records.length} update records`);
  if (st.policyVersion !== st.step) throw stateBad('policyVersion', `is ${st.policyVersion} but ${st.step} updates were made`);
  const pilotsDone = st.phase === 'climb' ? st.iteration : st.iteration - 1;
  if (st.pilots.length !== pilotsDone) throw stateBad('pilots', `holds ${st.pilots.length} TaskPilot results, expected ${pilotsDone} in iteration ${st.iteration}, phase '${st.phase}'`);
  if (st.order.length !== 0 && st.order.length !== st.pool.length) {
    throw stateBad('order', `has ${st.order.length} entries for a pool of ${st.pool.length} tasks`);
  }
  const inOrder = new Set<number>();
  st.order.forEach((k, i) => {
    if (k < 0 || k >= st.pool.length || inOrder.has(k)) throw stateBad(`order[${i}]`, `is ${k}, not a fresh index into the pool of ${st.pool.length} tasks`);
    inOrder.add(k);
  });
  if (st.cursor > st.order.length) throw stateBad('cursor', `is ${st.cursor}, beyond the task order of ${st.order.length} entries`);
  st.buffer.forEach((g, k) => {
    if (g.policyVersion > st.policyVersion) throw stateBad(`buffer[${k}].policyVersion`, `is ${g.policyVersion}, newer than the policy (version ${st.policyVersion})`);
    checkRollouts(g.rollouts, vocabSize, (field, why) => stateBad(`buffer[${k}].rollouts${field}`, why));
  });
  if ((st.rng === null) !== (st.phase !== 'climb')) {
    throw stateBad('rng', st.rng === null ? `is missing in phase 'climb'` : `is set in phase '${st.phase}'`);
  }
  if (st.rng !== null) {
    checkRngState(st.rng.tasks, (why) => stateBad('rng.tasks', why));
    checkRngState(st.rng.sampling, (why) => stateBad('rng.sampling', why));
  }
}

/** Decodes a list of tensors: one per policy variable, each of the variable's size, finite (and passing `check`). */
function readTensors(name: string, list: readonly string[], vars: Policy['variables'], refuse: Refuse, check?: (x: number) => boolean): Float32Array[] {
  if (list.length !== vars.length) throw refuse(`${name} holds ${list.length} tensors, the policy has ${vars.length}`, name);
  return list.map((b64, i) => {
    const values = decodeFloat32(b64, vars[i]!.size, `${name}[${i}]`);
    for (let j = 0; j < values.length; j++) {
      const x = values[j]!;
      if (x - x !== 0 || (check !== undefined && !check(x))) {
        throw refuse(`${name}[${i}] (shape [${vars[i]!.shape.join(', ')}]) holds ${describeValue(x)} at element ${j}`, `${name}[${i}]`);
      }
    }
    return values;
  });
}

/** Adam's state: only in a climb, no more steps than the climb's updates, finite moments (second moments >= 0). */
function readOptimizer(
  saved: TrainerCheckpoint['optimizer'],
  st: TrainerCheckpoint['state'],
  vars: Policy['variables'],
  refuse: Refuse,
): AdamState | null {
  if (saved === null) return null;
  if (st.phase !== 'climb') throw refuse(`holds an optimizer state in phase '${st.phase}' (only a climb has one)`, 'optimizer');
  if (saved.step > st.update) throw refuse(`optimizer.step is ${saved.step}, more than the climb's ${st.update} updates`, 'optimizer.step');
  return {
    step: saved.step,
    m: readTensors('optimizer.m', saved.m, vars, refuse),
    v: readTensors('optimizer.v', saved.v, vars, refuse, (x) => x >= 0),
  };
}

/** A seedrandom ARC4 state: `i`, `j` in [0, 255] and `S` a permutation of 0..255. */
function checkRngState(v: unknown, bad: (why: string) => FrognanoError): void {
  const r = v as { i?: unknown; j?: unknown; S?: unknown } | null;
  const byte = (x: unknown): boolean => Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 255;
  if (r === null || typeof r !== 'object' || !byte(r.i) || !byte(r.j) || !Array.isArray(r.S) || r.S.length !== 256) {
    throw bad('is not a seedrandom ARC4 state { i, j, S[256] }');
  }
  const seen = new Set<number>();
  for (const x of r.S as unknown[]) {
    if (!byte(x) || seen.has(x as number)) throw bad('has an S that is not a permutation of 0..255');
    seen.add(x as number);
  }
}

/** Rollouts of the restored buffer: tokens in the vocabulary, 0/1 masks and finite log-probs of the same length. */
function checkRollouts(rollouts: readonly unknown[], vocabSize: number, bad: (field: string, why: string) => FrognanoError): void {
  rollouts.forEach((x, j) => {
    const r = x as { tokens?: unknown; lossMask?: unknown; logpRollout?: unknown; verdict?: unknown } | null;
    if (r === null || typeof r !== 'object' || !Array.isArray(r.tokens) || !Array.isArray(r.lossMask) || !Array.isArray(r.logpRollout) || r.verdict === null || typeof r.verdict !== 'object') {
      throw bad(`[${j}]`, 'is not a rollout { tokens, lossMask, logpRollout, episode, verdict }');
    }
    const n = r.tokens.length;
    if (r.lossMask.length !== n || r.logpRollout.length !== n) throw bad(`[${j}]`, `has tokens, lossMask and logpRollout of lengths ${n}, ${r.lossMask.length}, ${r.logpRollout.length}`);
    for (let t = 0; t < n; t++) {
      const tok = r.tokens[t] as unknown;
      const m = r.lossMask[t] as unknown;
      const lp = r.logpRollout[t] as unknown;
      if (!Number.isInteger(tok) || (tok as number) < 0 || (tok as number) >= vocabSize) throw bad(`[${j}].tokens[${t}]`, `is ${describeValue(tok)}, not a token id in [0, ${vocabSize})`);
      if (m !== 0 && m !== 1) throw bad(`[${j}].lossMask[${t}]`, `is ${describeValue(m)}, not 0 or 1`);
      if (typeof lp !== 'number' || lp - lp !== 0 || lp > 0) throw bad(`[${j}].logpRollout[${t}]`, `is ${describeValue(lp)}, not a finite log-probability`);
    }
  });
}
