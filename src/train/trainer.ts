import { existsSync } from 'node:fs';
import { runTaskPilot, type TaskFamily, type TaskPilotResult } from '../curriculum/taskPilot.js';
import type { Environment } from '../env/environment.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import type { AdamState } from './adam.js';
import { climb } from './climb.js';
import { policyOutcomeEstimator } from './estimator.js';
import { JsonlLog } from './jsonlLog.js';
import type { Policy } from './policy.js';
import { TrainingProgress } from './progress.js';
import { SeededRng } from './rng.js';
import { freshState, restoreTrainerCheckpoint, saveTrainerCheckpoint, type TrainerState, type UpdateRecord } from './trainerCheckpoint.js';
import { type ParsedTrainerOptions, showConfigValue, type TrainerOptions, TrainerOptionsSchema } from './trainerOptions.js';

/** The result of {@link FrognanoTrainer.run}. */
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

/** Controls of one {@link FrognanoTrainer.run} call. */
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
 * const trainer = new FrognanoTrainer({ policy, env: family, family }, {
 *   iterations: 3, updatesPerIteration: 40, groupsPerUpdate: 16, learningRate: 1e-3,
 *   reward: { budget: 6 }, checkpointPath: 'run/ckpt', logPath: 'run/updates.jsonl',
 * });
 * const result = await trainer.run({ resume: true });
 * ```
 */
export class FrognanoTrainer<T> {
  /** The validated options. */
  readonly options: ParsedTrainerOptions;
  private readonly policy: Policy;
  private readonly env: Environment<T>;
  private readonly family: TaskFamily<T>;

  constructor(parts: { policy: Policy; env: Environment<T>; family: TaskFamily<T> }, opts: TrainerOptions) {
    const fn = 'FrognanoTrainer';
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
    const resumed = this.resume(control, progress);
    let state = resumed.state;
    let adamState = resumed.optimizer;
    log?.rewrite(state.records);

    const actor = await this.policy.clone();
    let updatesThisCall = 0;
    const stopNow = (): boolean => control.stopAfterUpdates !== undefined && updatesThisCall >= control.stopAfterUpdates;
    const result = (stopped: boolean): RunResult<T> => ({ records: state.records, pilots: state.pilots, stopped, policyVersion: state.policyVersion });
    try {
      while (state.phase !== 'done') {
        if (state.phase === 'pilot') {
          state = await this.pilot(state, control, progress);
          adamState = null;
        }
        if (state.phase === 'climb') {
          const r = await climb(state, adamState, {
            options: o,
            policy: this.policy,
            actor,
            env: this.env,
            log,
            progress,
            started,
            save: (s, optimizer) => this.save(s, optimizer),
            onUpdate: (record) => {
              updatesThisCall++;
              control.onUpdate?.(record);
            },
            stopNow,
          });
          adamState = null;
          if (r === 'stopped') return result(true);
          const next = await this.endClimb(state);
          if (stopNow() && next !== 'done') return result(true);
        }
      }
    } finally {
      actor.dispose();
      progress?.done();
    }
    return result(false);
  }

  /** The state to start from: a fresh one, or the checkpoint's when `control.resume` asks for it (and it exists, for `true`). */
  private resume(control: RunControl<T>, progress: TrainingProgress | null): { state: TrainerState<T>; optimizer: AdamState | null } {
    const resumePath = control.resume === true ? this.options.checkpointPath : control.resume || undefined;
    if (resumePath === undefined || (control.resume === true && !existsSync(resumePath))) return { state: freshState(), optimizer: null };
    const restored = restoreTrainerCheckpoint<T>(resumePath, this.policy, this.options, control.allowConfigChange === true);
    const { state } = restored;
    progress?.note(`resumed from ${resumePath}: iteration ${state.iteration}, ${state.phase}, update ${state.update}`);
    if (restored.changed.length > 0) {
      progress?.note(`configuration changed on resume (allowConfigChange): ${restored.changed.map((d) => `${d.field} ${showConfigValue(d.saved)} -> ${showConfigValue(d.current)}`).join(', ')}`);
    }
    return restored;
  }

  /**
   * TaskPilot of the current iteration (FrogNano §3.1), then the state of its climb's
   * start: the accepted tasks as the pool, fresh RNG streams (Adam too: FrogNano §4
   * re-initialises both at each iteration); a checkpoint is written.
   */
  private async pilot(state: TrainerState<T>, control: RunControl<T>, progress: TrainingProgress | null): Promise<TrainerState<T>> {
    const o = this.options;
    const it = state.iteration;
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
    const next: TrainerState<T> = { ...state, phase: 'climb', update: 0, pool: pilot.accepted, order: [], cursor: 0, batchesGenerated: 0, buffer: [] };
    const tasksRng = new SeededRng(`${String(o.seed)}:it${it}:tasks`);
    const samplingRng = new SeededRng(`${String(o.seed)}:it${it}:sampling`);
    next.rng = { tasks: tasksRng.state(), sampling: samplingRng.state() };
    if (pilot.accepted.length === 0) {
      progress?.note(`iteration ${it}: no task accepted, the climb is skipped`);
      next.update = o.updatesPerIteration;
    }
    await this.save(next, null);
    return next;
  }

  /** After a climb: the next iteration's TaskPilot is next (or the run is done); a checkpoint is written. Returns the new phase. */
  private async endClimb(state: TrainerState<T>): Promise<TrainerState<T>['phase']> {
    state.iteration++;
    state.phase = state.iteration > this.options.iterations ? 'done' : 'pilot';
    state.rng = null;
    await this.save(state, null);
    return state.phase;
  }

  /** Writes a checkpoint when `checkpointPath` is set. */
  private async save(state: TrainerState<T>, optimizer: AdamState | null): Promise<void> {
    const path = this.options.checkpointPath;
    if (path === undefined) return;
    await saveTrainerCheckpoint(path, this.policy, this.options, state, optimizer);
  }
}
