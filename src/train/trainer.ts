import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ResolveRateBandSchema } from '../curriculum/resolveRateBand.js';
import { runTaskPilot, type TaskFamily, type TaskPilotResult } from '../curriculum/taskPilot.js';
import type { Environment } from '../env/environment.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { DppoLossOptionsSchema } from '../losses/dppoLoss.js';
import { Adam, type AdamState } from './adam.js';
import { decodeFloat32, encodeFloat32, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { policyOutcomeEstimator } from './estimator.js';
import { JsonlLog } from './jsonlLog.js';
import { copyWeights, type Policy, readWeights, writeWeights } from './policy.js';
import { TrainingProgress } from './progress.js';
import { type RngState, SeededRng } from './rng.js';
import { generateRollouts, type RolloutGroup, yieldToEventLoop } from './rollout.js';
import { policyLag, RolloutBuffer } from './rolloutBuffer.js';
import { nextInEpochs } from './sft.js';
import { dppoUpdate, type UpdateStats } from './update.js';

/** Options of {@link FrogNanoTrainer}: the FrogNano recipe's knobs (FrogNano §3-4, Table 2). */
export const TrainerOptionsSchema = z
  .object({
    /** Seed of every random stream (task order, sampling, TaskPilot). Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
    /** TaskPilot + RL-climb iterations. Default 5 (the paper's). */
    iterations: z.number().int().min(1).default(5),
    /** Updates per climb, `U`. Default 200 (FrogNano §4). */
    updatesPerIteration: z.number().int().min(1).default(200),
    /** Task groups per update. Default 32 (Table 2). */
    groupsPerUpdate: z.number().int().min(1).default(32),
    /** Rollouts per task group, `G`. Default 8 (Table 2). */
    groupSize: z.number().int().min(2).default(8),
    /** Sampling temperature of training rollouts (the learner divides its logits by it too). Default 1. */
    temperature: z.number().gt(0).default(1),
    /** Largest policy lag a batch may have when it trains the learner. Default 1 (FrogNano uses 1 or 3). */
    maxLag: z.number().int().min(0).default(1),
    /**
     * How many batches the rollout actor runs ahead of the learner. While the learner
     * trains on batch `u`, the actor generates batch `u + rolloutAhead` from its
     * snapshot of the current weights, so that batch trains with lag `rolloutAhead`.
     * 0 is synchronous, on-policy RL. Default 1.
     */
    rolloutAhead: z.number().int().min(0).default(1),
    /** What to do with groups staler than `maxLag`: regenerate them with the current policy, or drop them. Default `'regenerate'`. */
    stalePolicy: z.enum(['regenerate', 'drop']).default('regenerate'),
    /** Adam step size. Default 1e-6 (verl's actor default; tiny models want ~1e-3). */
    learningRate: z.number().gt(0).default(1e-6),
    /** Adam first-moment decay. Default 0.9. */
    beta1: z.number().min(0).lt(1).default(0.9),
    /** Adam second-moment decay. Default 0.999. */
    beta2: z.number().min(0).lt(1).default(0.999),
    /** Global-norm gradient clipping. Default 1. */
    clipNorm: z.number().gt(0).default(1),
    /** Options of `dppoLoss` (`delta = 0.2`, ...). */
    dppo: DppoLossOptionsSchema.optional(),
    /** Reward shaping (FrogNano §4.2). */
    reward: z
      .object({
        /** Log-length budget `N` in assistant tokens (>= 1). */
        budget: z.number().min(1),
        /** Log-length penalty strength. Default 0.2. */
        alpha: z.number().min(0).default(0.2),
        /** Reward of a truncated success. Default 0.5. */
        truncatedReward: z.number().default(0.5),
        /** First iteration with the log-length penalty on. Default 3 (FrogNano §4.2). */
        lengthPenaltyFromIteration: z.number().int().min(1).default(3),
      })
      .strict(),
    /** TaskPilot (FrogNano §3.1). */
    pilot: z
      .object({
        /** Fresh candidates per iteration. Default 64. */
        candidates: z.number().int().min(1).default(64),
        /** Calibration rollouts per candidate, `N`. Default 8. */
        rollouts: z.number().int().min(1).default(8),
        /** Refinement rounds, `R`. Default 3. */
        maxRounds: z.number().int().min(0).default(3),
        /** A fixed target band for every iteration; default the paper's schedule (`iterationBand`). */
        band: ResolveRateBandSchema.optional(),
      })
      .strict()
      .default({ candidates: 64, rollouts: 8, maxRounds: 3 }),
    /** Checkpoint file; none is written when omitted. */
    checkpointPath: z.string().min(1).optional(),
    /** Updates between checkpoints (one is also written after each TaskPilot and at the end of each climb). Default 10. */
    checkpointEvery: z.number().int().min(1).default(10),
    /** JSONL file with one record per update; none when omitted. */
    logPath: z.string().min(1).optional(),
    /** Progress on stderr: `'auto'` (default), `true` or `false`. A bar on a TTY, plain lines otherwise. */
    progress: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    /** Most sequences per rollout forward pass. Default 256 (raise it on a GPU). */
    maxBatch: z.number().int().min(1).default(256),
  })
  .strict();
/** Options of {@link FrogNanoTrainer} as the caller writes them. */
export type TrainerOptions = z.input<typeof TrainerOptionsSchema>;
type Parsed = z.output<typeof TrainerOptionsSchema>;

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

/** Where a run stands; what a checkpoint stores (with the weights and Adam's state). */
export interface TrainerState<T> {
  /** Current iteration, 1-based. */
  iteration: number;
  /** `'pilot'`: TaskPilot of `iteration` is next; `'climb'`: its RL climb is under way; `'done'`. */
  phase: 'pilot' | 'climb' | 'done';
  /** Updates done in the current climb. */
  update: number;
  /** Updates done in the whole run. */
  step: number;
  /** Version of the learner's weights (one per update). */
  policyVersion: number;
  /** The current iteration's accepted tasks. */
  pool: T[];
  /** Shuffled order of `pool` (epochs) and the position in it. */
  order: number[];
  cursor: number;
  /** Batches the actor has produced in this climb. */
  batchesGenerated: number;
  /** Rollout groups produced but not yet trained on. */
  buffer: RolloutGroup<T>[];
  /** Every TaskPilot result so far. */
  pilots: TaskPilotResult<T>[];
  /** Every update record so far. */
  records: UpdateRecord[];
  /** States of the task-order and sampling streams of the current climb. */
  rng: { tasks: RngState; sampling: RngState } | null;
}

/** The result of {@link FrogNanoTrainer.run}. */
export interface RunResult<T> {
  /** Every update record of the run (resumed parts included). */
  records: UpdateRecord[];
  /** Every iteration's TaskPilot result (candidate histories included). */
  pilots: TaskPilotResult<T>[];
  /** True when `stopAfterUpdates` ended the run early. */
  stopped: boolean;
  /** The policy version reached. */
  policyVersion: number;
}

/** Controls of one {@link FrogNanoTrainer.run} call. */
export interface RunControl<T> {
  /** Resume from this checkpoint file (`true`: from `checkpointPath` when it exists). */
  resume?: boolean | string;
  /**
   * Resume even when the checkpoint was written under another training
   * configuration (learning rate, group size, iterations, ...: see
   * {@link trainingConfig}); the run continues under this trainer's options, and
   * its next checkpoints record them. Without it such a resume is refused
   * (`CHECKPOINT_INVALID` naming every differing field with both values). The seed
   * and the model must match in any case. Default false.
   */
  allowConfigChange?: boolean;
  /** Stop (as if killed) after this many updates in this call. */
  stopAfterUpdates?: number;
  /** Called after every update. */
  onUpdate?: (record: UpdateRecord) => void;
  /** Called after every TaskPilot run. */
  onPilot?: (result: TaskPilotResult<T>) => void;
}

const CheckpointSchema = z.object({
  kind: z.literal('frognano-trainer'),
  seed: z.union([z.number(), z.string()]),
  /** {@link trainingConfig} of the run that wrote it (absent in checkpoints of older versions). */
  config: z.record(z.string(), z.unknown()).optional(),
  shapes: z.array(z.array(z.number().int())),
  weights: z.array(z.string()),
  optimizer: z.object({ step: z.number().int().min(0), m: z.array(z.string()), v: z.array(z.string()) }).nullable(),
  state: z.object({
    iteration: z.number().int().min(1),
    phase: z.enum(['pilot', 'climb', 'done']),
    update: z.number().int().min(0),
    step: z.number().int().min(0),
    policyVersion: z.number().int().min(0),
    pool: z.array(z.unknown()),
    order: z.array(z.number().int()),
    cursor: z.number().int().min(0),
    batchesGenerated: z.number().int().min(0),
    buffer: z.array(z.object({ task: z.unknown(), policyVersion: z.number().int().min(0), rollouts: z.array(z.unknown()) }).passthrough()),
    pilots: z.array(z.unknown()),
    records: z.array(z.unknown()),
    rng: z.object({ tasks: z.unknown(), sampling: z.unknown() }).nullable(),
  }),
});

/**
 * The options that change a run's numbers, as a checkpoint records them and a
 * resume compares them: everything but the file paths (`checkpointPath`,
 * `logPath`), `checkpointEvery`, `progress`, `maxBatch` (a throughput knob) and
 * `dppo.validate` (a read-back check); `seed` is compared on its own. `dppo` is
 * written with its defaults filled in, so leaving it out equals passing its
 * defaults.
 *
 * @param opts - trainer options, as written or as parsed (`trainer.options`)
 * @throws FrognanoError as {@link FrogNanoTrainer}'s constructor for invalid options
 * @example trainingConfig(new FrogNanoTrainer(parts, opts).options).learningRate
 */
export function trainingConfig(opts: TrainerOptions | z.output<typeof TrainerOptionsSchema>): Record<string, unknown> {
  const o = parseOptions('trainingConfig', TrainerOptionsSchema, opts);
  const { validate: _validate, ...dppo } = DppoLossOptionsSchema.parse(o.dppo ?? {});
  const config = {
    iterations: o.iterations,
    updatesPerIteration: o.updatesPerIteration,
    groupsPerUpdate: o.groupsPerUpdate,
    groupSize: o.groupSize,
    temperature: o.temperature,
    maxLag: o.maxLag,
    rolloutAhead: o.rolloutAhead,
    stalePolicy: o.stalePolicy,
    learningRate: o.learningRate,
    beta1: o.beta1,
    beta2: o.beta2,
    clipNorm: o.clipNorm,
    dppo,
    reward: o.reward,
    pilot: o.pilot,
  };
  // As JSON stores it (undefined members dropped), so a saved config and a fresh one compare equal.
  return JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
}

/** Leaf paths of a config (`reward.alpha`) with their values. */
function flattenConfig(v: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) flattenConfig(x, prefix === '' ? k : `${prefix}.${k}`, out);
  } else if (prefix !== '') out.set(prefix, v);
  return out;
}

/** The fields whose values differ between two training configs, in the current config's order. */
function configDifferences(saved: Record<string, unknown>, current: Record<string, unknown>): { field: string; saved: unknown; current: unknown }[] {
  const a = flattenConfig(saved, '', new Map());
  const b = flattenConfig(current, '', new Map());
  const fields = [...new Set([...b.keys(), ...a.keys()])];
  return fields
    .filter((f) => JSON.stringify(a.get(f)) !== JSON.stringify(b.get(f)))
    .map((f) => ({ field: f, saved: a.get(f), current: b.get(f) }));
}

const showConfigValue = (v: unknown): string => (v === undefined ? 'unset' : JSON.stringify(v));

/**
 * Settles a failed climb: the first failure (in the order they happened) is
 * thrown as it is; a later one (the prefetched generation failing while the
 * update was failing too) becomes its `cause` when it has none, and is written to
 * stderr otherwise. Nothing is dropped silently.
 */
function firstFailure(failures: unknown[]): unknown {
  const [first, ...later] = failures;
  if (later.length === 0) return first;
  const rest = later.length === 1 ? later[0] : new AggregateError(later, `${later.length} later failures`);
  if (first !== null && typeof first === 'object' && !Object.prototype.hasOwnProperty.call(first, 'cause')) {
    try {
      Object.defineProperty(first, 'cause', { value: rest, writable: true, configurable: true, enumerable: false });
      return first;
    } catch {
      // a frozen error: fall through to stderr
    }
  }
  for (const e of later) console.warn('FrogNanoTrainer.run: a later failure of the same update:', e);
  return first;
}

type Settled<V> = { ok: true; value: V } | { ok: false; error: unknown };

/**
 * The FrogNano training loop (FrogNano Fig. 3; §3.1 TaskPilot, §4 RL recipe):
 *
 * ```
 * for iteration i = 1 .. iterations:
 *   TaskPilot: generate candidates, estimate p̂ with N rollouts of the current
 *              policy, accept those in the iteration's band, refine the others (R rounds)
 *   climb:     U updates on the accepted tasks; each update:
 *                G rollouts per task (seeded, temperature), from an actor that runs
 *                `rolloutAhead` batches ahead; groups with lag > maxLag regenerated or dropped
 *                shaped rewards (log-length penalty from `lengthPenaltyFromIteration`, 0.5 for
 *                truncated successes) -> group advantages (zero-variance filter on raw outcomes)
 *                -> dppoLoss -> global-norm clipping -> Adam
 *              weights carry over; Adam and the RNG streams are re-initialised per iteration
 * ```
 * Checkpoints (atomic, checksummed) hold weights, Adam, RNG states, counters,
 * the rollout buffer and the curriculum, so a run killed mid-climb and resumed
 * ends with the same numbers as one that never stopped (same backend). Works on
 * any tfjs backend (`useBackend('wasm' | 'webgpu' | ...)` before `run`).
 *
 * Asynchrony: a second copy of the policy (the actor, `policy.clone()`) samples
 * the next batch from a snapshot of the weights while the learner updates; both
 * run in this Node process, interleaved on the event loop (see docs/training.md
 * for what overlaps on which backend).
 *
 * @example
 * ```ts
 * const trainer = new FrogNanoTrainer({ policy, env: family, family }, {
 *   iterations: 3, updatesPerIteration: 40, groupsPerUpdate: 16, learningRate: 1e-3,
 *   reward: { budget: 6 }, checkpointPath: 'run/ckpt', logPath: 'run/updates.jsonl',
 * });
 * const result = await trainer.run({ resume: true });
 * ```
 */
export class FrogNanoTrainer<T> {
  /** The validated options. */
  readonly options: Parsed;
  private readonly policy: Policy;
  private readonly env: Environment<T>;
  private readonly family: TaskFamily<T>;

  constructor(parts: { policy: Policy; env: Environment<T>; family: TaskFamily<T> }, opts: TrainerOptions) {
    const fn = 'FrogNanoTrainer';
    this.options = parseOptions(fn, TrainerOptionsSchema, opts);
    if (parts?.policy === undefined || parts.env === undefined || parts.family === undefined) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, 'parts must be { policy, env, family }', { fn, field: 'parts' });
    }
    this.policy = parts.policy;
    this.env = parts.env;
    this.family = parts.family;
  }

  /**
   * Runs (or resumes) the loop to the end, or until `stopAfterUpdates`.
   *
   * On failure (an update, a rollout generation, a hook, a checkpoint write throws)
   * the promise settles only after all of the run's work has stopped: the batch the
   * actor was prefetching is cancelled (an `AbortSignal`) and awaited, and the actor
   * copy is disposed, so the caller may dispose the policy at once. The first error
   * is thrown as it is; a later one (the prefetch failing while the update failed) is
   * attached as its `cause` (written to stderr when it already has one). Nothing is
   * left to reject unhandled.
   *
   * @throws FrognanoError `CHECKPOINT_INVALID` when resuming from a bad checkpoint: unreadable or
   *   corrupt, another seed or model, another training configuration (unless
   *   `allowConfigChange`; the message names each differing field with both values), counters
   *   out of range (`state.iteration`, `state.cursor`, ...), or non-finite weights or Adam moments
   *   (naming the tensor and the element)
   */
  async run(control: RunControl<T> = {}): Promise<RunResult<T>> {
    const o = this.options;
    const started = Date.now();
    // 'auto' and true alike: TrainingProgress draws a bar on a TTY and plain lines otherwise.
    const progress = o.progress === false ? null : new TrainingProgress();
    const log = o.logPath ? new JsonlLog(o.logPath) : null;
    let state: TrainerState<T> = freshState();
    let adamState: AdamState | null = null;
    const resumePath = control.resume === true ? o.checkpointPath : control.resume || undefined;
    if (resumePath !== undefined && (control.resume !== true || existsSync(resumePath))) {
      const restored = this.restore(resumePath, control.allowConfigChange === true);
      state = restored.state;
      adamState = restored.optimizer;
      progress?.note(`resumed from ${resumePath}: iteration ${state.iteration}, ${state.phase}, update ${state.update}`);
      if (restored.changed.length > 0) {
        progress?.note(`configuration changed on resume (allowConfigChange): ${restored.changed.map((d) => `${d.field} ${showConfigValue(d.saved)} -> ${showConfigValue(d.current)}`).join(', ')}`);
      }
    }
    log?.rewrite(state.records);

    const actor = await this.policy.clone();
    let updatesThisCall = 0;
    const stopNow = (): boolean => control.stopAfterUpdates !== undefined && updatesThisCall >= control.stopAfterUpdates;
    try {
      while (state.phase !== 'done') {
        const it = state.iteration;
        if (state.phase === 'pilot') {
          const pilot = await runTaskPilot(
            this.family,
            policyOutcomeEstimator(this.policy, this.env, {
              temperature: o.temperature,
              seed: `${String(o.seed)}:it${it}:pilot`,
              maxBatch: o.maxBatch,
            }),
            { iteration: it, ...o.pilot, seed: `${String(o.seed)}:it${it}` },
          );
          state.pilots.push(pilot);
          control.onPilot?.(pilot);
          progress?.note(
            `iteration ${it}: TaskPilot accepted ${pilot.accepted.length} of ${pilot.candidates.length} candidates (${pilot.rounds.length} rounds, ${pilot.rolloutsUsed} rollouts)`,
          );
          state = { ...state, phase: 'climb', update: 0, pool: pilot.accepted, order: [], cursor: 0, batchesGenerated: 0, buffer: [] };
          // FrogNano §4: optimizer and RNG state re-initialised at each iteration.
          const tasksRng = new SeededRng(`${String(o.seed)}:it${it}:tasks`);
          const samplingRng = new SeededRng(`${String(o.seed)}:it${it}:sampling`);
          state.rng = { tasks: tasksRng.state(), sampling: samplingRng.state() };
          adamState = null;
          if (pilot.accepted.length === 0) {
            progress?.note(`iteration ${it}: no task accepted, the climb is skipped`);
            state.update = o.updatesPerIteration;
          }
          await this.save(state, null);
        }
        if (state.phase === 'climb') {
          const r = await this.climb(state, adamState, actor, { log, progress, started, control, stopNow, onUpdate: () => updatesThisCall++ });
          adamState = null;
          if (r === 'stopped') return { records: state.records, pilots: state.pilots, stopped: true, policyVersion: state.policyVersion };
          state.iteration++;
          state.phase = state.iteration > o.iterations ? 'done' : 'pilot';
          state.rng = null;
          await this.save(state, null);
          if (stopNow() && state.phase !== 'done') {
            return { records: state.records, pilots: state.pilots, stopped: true, policyVersion: state.policyVersion };
          }
        }
      }
    } finally {
      actor.dispose();
      progress?.done();
    }
    return { records: state.records, pilots: state.pilots, stopped: false, policyVersion: state.policyVersion };
  }

  private async climb(
    state: TrainerState<T>,
    adamState: AdamState | null,
    actor: Policy,
    ctx: {
      log: JsonlLog | null;
      progress: TrainingProgress | null;
      started: number;
      control: RunControl<T>;
      stopNow: () => boolean;
      onUpdate: () => void;
    },
  ): Promise<'done' | 'stopped'> {
    const o = this.options;
    const U = o.updatesPerIteration;
    const it = state.iteration;
    const adam = new Adam(this.policy.variables, { learningRate: o.learningRate, beta1: o.beta1, beta2: o.beta2 });
    // The batch the actor prefetches while the learner updates. Its outcome is caught at once (never an
    // unhandled rejection); on any failure of the climb it is aborted and awaited before the climb settles,
    // so nothing of this run touches the policies after run() has rejected.
    const abort = new AbortController();
    const aborted = new Error('the climb failed; prefetched generation cancelled');
    const failures: unknown[] = [];
    let prefetch: Promise<Settled<RolloutGroup<T>[]>> | null = null;
    try {
      if (adamState !== null) adam.setState(adamState);
      const tasksRng = SeededRng.restore(state.rng!.tasks);
      const samplingRng = SeededRng.restore(state.rng!.sampling);
      const buffer = new RolloutBuffer<RolloutGroup<T>>({ maxLag: o.maxLag });
      buffer.push(...state.buffer);
      copyWeights(this.policy, actor);
      const nextTasks = (): T[] => nextInEpochs(state, state.pool.length, o.groupsPerUpdate, tasksRng).map((i) => state.pool[i]!);
      const generate = (tasks: T[], signal?: AbortSignal): Promise<RolloutGroup<T>[]> =>
        generateRollouts(actor, this.env, tasks, {
          groupSize: o.groupSize,
          temperature: o.temperature,
          rng: samplingRng,
          policyVersion: state.policyVersion,
          maxBatch: o.maxBatch,
          signal,
        });
      const depth = Math.max(1, o.rolloutAhead);
      while (state.update < U) {
        const t0 = Date.now();
        const u = state.update;
        // Top up synchronously: batches u .. u + depth - 1 must exist (climb start, resume).
        while (state.batchesGenerated < Math.min(U, u + depth) || buffer.size === 0) {
          state.batchesGenerated++;
          buffer.push(...(await generate(nextTasks())));
        }
        const { fresh, stale } = buffer.take(o.groupsPerUpdate, state.policyVersion);
        let regenerated = 0;
        if (stale.length > 0 && o.stalePolicy === 'regenerate') {
          // The actor holds the current weights here (synced after every update): lag 0.
          fresh.push(...(await generate(stale.map((g) => g.task))));
          regenerated = stale.length;
        }
        if (fresh.length === 0) {
          // Every group of the batch was stale and dropped: train on a fresh batch rather than skip
          // (a replacement: the actor's pipeline of batches is not advanced).
          fresh.push(...(await generate(nextTasks())));
        }
        const lags = fresh.map((g) => policyLag(g.policyVersion, state.policyVersion));
        // The actor samples batch u + rolloutAhead from its snapshot while the learner trains on batch u.
        if (o.rolloutAhead > 0 && state.batchesGenerated < Math.min(U, u + o.rolloutAhead + 1)) {
          state.batchesGenerated++;
          prefetch = generate(nextTasks(), abort.signal).then(
            (value): Settled<RolloutGroup<T>[]> => ({ ok: true, value }),
            (error: unknown): Settled<RolloutGroup<T>[]> => {
              if (error !== aborted) failures.push(error);
              return { ok: false, error };
            },
          );
        }
        await yieldToEventLoop();
        const lengthPenalty = it >= o.reward.lengthPenaltyFromIteration;
        const stats = await dppoUpdate(this.policy, adam, this.env, fresh, {
          temperature: o.temperature,
          reward: { budget: o.reward.budget, alpha: o.reward.alpha, truncatedReward: o.reward.truncatedReward, lengthPenalty },
          dppo: o.dppo,
          clipNorm: o.clipNorm,
        });
        if (prefetch !== null) {
          const ahead = await prefetch;
          prefetch = null;
          if (!ahead.ok) throw ahead.error;
          buffer.push(...ahead.value);
        }
        state.policyVersion++;
        state.step++;
        state.update++;
        copyWeights(this.policy, actor);
        const record: UpdateRecord = {
          iteration: it,
          update: state.update,
          step: state.step,
          policyVersion: state.policyVersion,
          ...stats,
          policyLag: lags.reduce((a, b) => a + b, 0) / lags.length,
          maxPolicyLag: Math.max(...lags),
          staleGroups: stale.length,
          regeneratedGroups: regenerated,
          droppedStaleGroups: stale.length - regenerated,
          lengthPenalty,
          seconds: (Date.now() - t0) / 1000,
        };
        state.records.push(record);
        ctx.log?.write(record);
        ctx.onUpdate();
        ctx.control.onUpdate?.(record);
        ctx.progress?.update({
          iteration: it,
          iterations: o.iterations,
          update: state.update,
          updates: U,
          solveRate: record.solveRate,
          lag: record.maxPolicyLag,
          elapsed: (Date.now() - ctx.started) / 1000,
        });
        state.buffer = buffer.contents();
        state.rng = { tasks: tasksRng.state(), sampling: samplingRng.state() };
        if (state.update % o.checkpointEvery === 0 || state.update === U) await this.save(state, await adam.getState());
        if (ctx.stopNow() && state.update < U) return 'stopped';
      }
      return 'done';
    } catch (e) {
      if (!failures.includes(e)) failures.push(e);
      if (prefetch !== null) {
        abort.abort(aborted);
        await prefetch;
        prefetch = null;
      }
      throw firstFailure(failures);
    } finally {
      adam.dispose();
    }
  }

  /** Writes a checkpoint; the weights are read with `await tensor.data()` (no synchronous read, webgpu in Node included). */
  private async save(state: TrainerState<T>, optimizer: AdamState | null): Promise<void> {
    const path = this.options.checkpointPath;
    if (path === undefined) return;
    const weights = await readWeights(this.policy);
    saveCheckpoint(path, {
      kind: 'frognano-trainer',
      seed: this.options.seed,
      config: trainingConfig(this.options),
      shapes: this.policy.variables.map((v) => v.shape),
      weights: weights.map(encodeFloat32),
      optimizer: optimizer === null ? null : { step: optimizer.step, m: optimizer.m.map(encodeFloat32), v: optimizer.v.map(encodeFloat32) },
      state,
    });
  }

  /**
   * Reads a checkpoint and checks everything it restores before any of it is
   * used: the seed, the model (shapes), the training configuration (unless
   * `allowConfigChange`), the counters against the configuration that wrote them,
   * the task order and its cursor, the rollout buffer, the RNG states, and finite
   * weights and Adam moments. A resealed checkpoint (edited, checksum recomputed)
   * passes `loadCheckpoint` but not these.
   */
  private restore(path: string, allowConfigChange: boolean): { state: TrainerState<T>; optimizer: AdamState | null; changed: ReturnType<typeof configDifferences> } {
    const fn = 'FrogNanoTrainer.run';
    const bad = (why: string, field = 'resume'): FrognanoError => new FrognanoError(ErrorCode.CHECKPOINT_INVALID, `${path}: ${why}`, { fn, field });
    const parsed = CheckpointSchema.safeParse(loadCheckpoint(path));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw bad(`not a trainer checkpoint (${issue.path.join('.') || 'root'}: ${issue.message})`);
    }
    const c = parsed.data;
    if (String(c.seed) !== String(this.options.seed)) throw bad(`written by a run with seed ${JSON.stringify(c.seed)}, this run has seed ${JSON.stringify(this.options.seed)}`);
    const vars = this.policy.variables;
    if (c.shapes.length !== vars.length || c.shapes.some((s, i) => s.join(',') !== vars[i]!.shape.join(','))) {
      throw bad(`for another model: ${c.shapes.length} weight tensors of other shapes than this policy's ${vars.length}`);
    }

    // The training configuration: the checkpoint's own, compared with this run's.
    const current = trainingConfig(this.options);
    let changed: ReturnType<typeof configDifferences> = [];
    if (c.config === undefined) {
      if (!allowConfigChange) {
        throw bad('does not record its training configuration (written by an older frognano); pass allowConfigChange: true to resume it under this run\'s options');
      }
    } else {
      changed = configDifferences(c.config, current);
      if (changed.length > 0 && !allowConfigChange) {
        throw bad(
          `written with another training configuration: ${changed.map((d) => `${d.field} is ${showConfigValue(d.saved)} in the checkpoint, ${showConfigValue(d.current)} in this run`).join('; ')}. Resume with the checkpoint's values, or pass allowConfigChange: true to continue under this run's options`,
          `opts.${changed[0]!.field}`,
        );
      }
    }
    const saved = c.config ?? current;
    const limits = {
      iterations: typeof saved.iterations === 'number' ? saved.iterations : this.options.iterations,
      updatesPerIteration: typeof saved.updatesPerIteration === 'number' ? saved.updatesPerIteration : this.options.updatesPerIteration,
    };

    // The counters, against the configuration that wrote them.
    const st = c.state;
    const stateBad = (field: string, why: string): FrognanoError => bad(`state.${field} ${why}`, `state.${field}`);
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
      checkRollouts(g.rollouts, this.policy.vocabSize, (field, why) => stateBad(`buffer[${k}].rollouts${field}`, why));
    });
    if ((st.rng === null) !== (st.phase !== 'climb')) {
      throw stateBad('rng', st.rng === null ? `is missing in phase 'climb'` : `is set in phase '${st.phase}'`);
    }
    if (st.rng !== null) {
      checkRngState(st.rng.tasks, (why) => stateBad('rng.tasks', why));
      checkRngState(st.rng.sampling, (why) => stateBad('rng.sampling', why));
    }

    // The tensors: every one of the right size and finite.
    const tensors = (name: string, list: readonly string[], check?: (x: number) => boolean): Float32Array[] => {
      if (list.length !== vars.length) throw bad(`${name} holds ${list.length} tensors, the policy has ${vars.length}`, name);
      return list.map((b64, i) => {
        const values = decodeFloat32(b64, vars[i]!.size, `${name}[${i}]`);
        for (let j = 0; j < values.length; j++) {
          const x = values[j]!;
          if (x - x !== 0 || (check !== undefined && !check(x))) {
            throw bad(`${name}[${i}] (shape [${vars[i]!.shape.join(', ')}]) holds ${describeValue(x)} at element ${j}`, `${name}[${i}]`);
          }
        }
        return values;
      });
    };
    const weights = tensors('weights', c.weights);
    let optimizer: AdamState | null = null;
    if (c.optimizer !== null) {
      if (st.phase !== 'climb') throw bad(`holds an optimizer state in phase '${st.phase}' (only a climb has one)`, 'optimizer');
      if (c.optimizer.step > st.update) throw bad(`optimizer.step is ${c.optimizer.step}, more than the climb's ${st.update} updates`, 'optimizer.step');
      optimizer = {
        step: c.optimizer.step,
        m: tensors('optimizer.m', c.optimizer.m),
        v: tensors('optimizer.v', c.optimizer.v, (x) => x >= 0),
      };
    }

    // Under a changed configuration (allowConfigChange): the position must exist in the new one.
    const state = st as unknown as TrainerState<T>;
    if (state.phase !== 'done' && state.iteration > this.options.iterations) {
      throw bad(`is in iteration ${state.iteration}, beyond this run's iterations = ${this.options.iterations}`, 'opts.iterations');
    }
    if (state.phase === 'done' && state.iteration <= this.options.iterations) state.phase = 'pilot';
    writeWeights(this.policy, weights);
    return { state, optimizer, changed };
  }
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

function freshState<T>(): TrainerState<T> {
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
