import type { Environment } from '../env/environment.js';
import { Adam, type AdamState } from './adam.js';
import type { JsonlLog } from './jsonlLog.js';
import { copyWeights, type Policy } from './policy.js';
import type { TrainingProgress } from './progress.js';
import { SeededRng } from './rng.js';
import { generateRollouts, type RolloutGroup, yieldToEventLoop } from './rollout.js';
import { policyLag, RolloutBuffer } from './rolloutBuffer.js';
import { nextInEpochs } from './sft.js';
import type { TrainerState, UpdateRecord } from './trainerCheckpoint.js';
import type { ParsedTrainerOptions } from './trainerOptions.js';
import { dppoUpdate, type UpdateStats } from './update.js';

/** What a climb needs from the run that starts it. @internal */
export interface ClimbContext<T> {
  /** The trainer's validated options. */
  options: ParsedTrainerOptions;
  /** The learner. */
  policy: Policy;
  /** The rollout actor: a copy of the learner, synced after every update. */
  actor: Policy;
  /** The environment: prompts, turns and the verifier's verdicts. */
  env: Environment<T>;
  /** The JSONL log (one record per update), or none. */
  log: JsonlLog | null;
  /** The progress bar or lines on stderr, or none. */
  progress: TrainingProgress | null;
  /** When the run started (`Date.now()`), for the progress line. */
  started: number;
  /** Writes a checkpoint (a no-op without `checkpointPath`). */
  save: (state: TrainerState<T>, optimizer: AdamState | null) => Promise<void>;
  /** Called after every update, with its record (the run's hooks and its update count). */
  onUpdate: (record: UpdateRecord) => void;
  /** Whether the run must stop now (`stopAfterUpdates` reached). */
  stopNow: () => boolean;
}

/**
 * One RL climb of the loop (FrogNano §4): `updatesPerIteration` updates on the
 * iteration's accepted tasks, from where `state` stands (a climb's start or a
 * resumed checkpoint), with Adam's state `adamState` (`null`: fresh). Each
 * update is {@link ClimbRun.update}.
 *
 * On failure the climb settles only after all of its work has stopped: the batch
 * the actor was prefetching is aborted and awaited, and the first failure is
 * thrown ({@link Prefetch.fail}). @internal
 */
export async function climb<T>(state: TrainerState<T>, adamState: AdamState | null, ctx: ClimbContext<T>): Promise<'done' | 'stopped'> {
  const o = ctx.options;
  const adam = new Adam(ctx.policy.variables, { learningRate: o.learningRate, beta1: o.beta1, beta2: o.beta2 });
  const prefetch = new Prefetch<RolloutGroup<T>[]>();
  try {
    if (adamState !== null) adam.setState(adamState);
    const run = new ClimbRun(state, adam, prefetch, ctx);
    while (state.update < o.updatesPerIteration) {
      if ((await run.update()) === 'stopped') return 'stopped';
    }
    return 'done';
  } catch (e) {
    throw await prefetch.fail(e);
  } finally {
    adam.dispose();
  }
}

/** The groups one update trains on, and what became of the stale ones. */
interface TrainingBatch<T> {
  /** The groups trained on. */
  groups: RolloutGroup<T>[];
  /** Groups found staler than `maxLag`. */
  stale: number;
  /** Of those, regenerated with the current policy. */
  regenerated: number;
}

/** The state of a climb under way: its RNG streams, its rollout buffer and the actor's pipeline of batches. */
class ClimbRun<T> {
  private readonly o: ParsedTrainerOptions;
  private readonly tasksRng: SeededRng;
  private readonly samplingRng: SeededRng;
  private readonly buffer: RolloutBuffer<RolloutGroup<T>>;

  constructor(
    private readonly state: TrainerState<T>,
    private readonly adam: Adam,
    private readonly prefetch: Prefetch<RolloutGroup<T>[]>,
    private readonly ctx: ClimbContext<T>,
  ) {
    this.o = ctx.options;
    this.tasksRng = SeededRng.restore(state.rng!.tasks);
    this.samplingRng = SeededRng.restore(state.rng!.sampling);
    this.buffer = new RolloutBuffer<RolloutGroup<T>>({ maxLag: this.o.maxLag });
    this.buffer.push(...state.buffer);
    copyWeights(ctx.policy, ctx.actor);
  }

  /**
   * One update: top up the actor's pipeline, take a batch (stale groups
   * regenerated or dropped), let the actor prefetch the next batch, train the
   * learner on this one, then sync the actor, log, report and checkpoint.
   */
  async update(): Promise<'continue' | 'stopped'> {
    const t0 = Date.now();
    const u = this.state.update;
    await this.topUp(u);
    const batch = await this.takeBatch();
    const lags = batch.groups.map((g) => policyLag(g.policyVersion, this.state.policyVersion));
    this.prefetchAhead(u);
    await yieldToEventLoop();
    const lengthPenalty = this.state.iteration >= this.o.reward.lengthPenaltyFromIteration;
    const stats = await this.learn(batch.groups, lengthPenalty);
    this.buffer.push(...(await this.prefetch.take()));
    this.advance();
    this.report(this.record(stats, batch, lags, lengthPenalty, t0));
    await this.checkpoint();
    return this.ctx.stopNow() && this.state.update < this.o.updatesPerIteration ? 'stopped' : 'continue';
  }

  /** The next tasks in the climb's shuffled epochs (advances the task order and its cursor). */
  private nextTasks(): T[] {
    const { state } = this;
    return nextInEpochs(state, state.pool.length, this.o.groupsPerUpdate, this.tasksRng).map((i) => state.pool[i]!);
  }

  /** `G` rollouts per task from the actor, tagged with the learner's current version. */
  private generate(tasks: T[], signal?: AbortSignal): Promise<RolloutGroup<T>[]> {
    return generateRollouts(this.ctx.actor, this.ctx.env, tasks, {
      groupSize: this.o.groupSize,
      temperature: this.o.temperature,
      rng: this.samplingRng,
      policyVersion: this.state.policyVersion,
      maxBatch: this.o.maxBatch,
      signal,
    });
  }

  /** Starts the actor's next batch of the climb's pipeline, counted in `state.batchesGenerated`. */
  private generateNextBatch(signal?: AbortSignal): Promise<RolloutGroup<T>[]> {
    this.state.batchesGenerated++;
    return this.generate(this.nextTasks(), signal);
  }

  /** Tops the pipeline up synchronously: batches `u .. u + depth - 1` must exist (a climb's start, a resume). */
  private async topUp(u: number): Promise<void> {
    const depth = Math.max(1, this.o.rolloutAhead);
    while (this.state.batchesGenerated < Math.min(this.o.updatesPerIteration, u + depth) || this.buffer.size === 0) {
      this.buffer.push(...(await this.generateNextBatch()));
    }
  }

  /** Takes `groupsPerUpdate` groups; stale ones are regenerated or dropped (`stalePolicy`). */
  private async takeBatch(): Promise<TrainingBatch<T>> {
    const { fresh, stale } = this.buffer.take(this.o.groupsPerUpdate, this.state.policyVersion);
    let regenerated = 0;
    if (stale.length > 0 && this.o.stalePolicy === 'regenerate') {
      // The actor holds the current weights here (synced after every update): lag 0.
      fresh.push(...(await this.generate(stale.map((g) => g.task))));
      regenerated = stale.length;
    }
    if (fresh.length === 0) {
      // Every group of the batch was stale and dropped: train on a fresh batch rather than skip
      // (a replacement: the actor's pipeline of batches is not advanced).
      fresh.push(...(await this.generate(this.nextTasks())));
    }
    return { groups: fresh, stale: stale.length, regenerated };
  }

  /** The actor samples batch `u + rolloutAhead` from its snapshot while the learner trains on batch `u`. */
  private prefetchAhead(u: number): void {
    if (this.o.rolloutAhead > 0 && this.state.batchesGenerated < Math.min(this.o.updatesPerIteration, u + this.o.rolloutAhead + 1)) {
      this.prefetch.start((signal) => this.generateNextBatch(signal));
    }
  }

  /** The learner's DPPO update on the batch (shaped rewards, group advantages, `dppoLoss`, clipping, Adam). */
  private learn(groups: RolloutGroup<T>[], lengthPenalty: boolean): Promise<UpdateStats> {
    const { reward } = this.o;
    return dppoUpdate(this.ctx.policy, this.adam, this.ctx.env, groups, {
      temperature: this.o.temperature,
      reward: { budget: reward.budget, alpha: reward.alpha, truncatedReward: reward.truncatedReward, lengthPenalty },
      dppo: this.o.dppo,
      clipNorm: this.o.clipNorm,
    });
  }

  /** Counts the update (a new policy version) and syncs the actor with the learner. */
  private advance(): void {
    this.state.policyVersion++;
    this.state.step++;
    this.state.update++;
    copyWeights(this.ctx.policy, this.ctx.actor);
  }

  /** The update's line of the JSONL log. */
  private record(stats: UpdateStats, batch: TrainingBatch<T>, lags: number[], lengthPenalty: boolean, t0: number): UpdateRecord {
    const { state } = this;
    return {
      iteration: state.iteration,
      update: state.update,
      step: state.step,
      policyVersion: state.policyVersion,
      ...stats,
      policyLag: lags.reduce((a, b) => a + b, 0) / lags.length,
      maxPolicyLag: Math.max(...lags),
      staleGroups: batch.stale,
      regeneratedGroups: batch.regenerated,
      droppedStaleGroups: batch.stale - batch.regenerated,
      lengthPenalty,
      seconds: (Date.now() - t0) / 1000,
    };
  }

  /** Keeps the record, writes it to the log, calls the hooks and draws the progress line. */
  private report(record: UpdateRecord): void {
    const { ctx, state } = this;
    state.records.push(record);
    ctx.log?.write(record);
    ctx.onUpdate(record);
    ctx.progress?.update({
      iteration: state.iteration,
      iterations: this.o.iterations,
      update: state.update,
      updates: this.o.updatesPerIteration,
      solveRate: record.solveRate,
      lag: record.maxPolicyLag,
      elapsed: (Date.now() - ctx.started) / 1000,
    });
  }

  /** Stores the buffer and the RNG streams in the state; checkpoints every `checkpointEvery` updates and at the climb's end. */
  private async checkpoint(): Promise<void> {
    const { state } = this;
    state.buffer = this.buffer.contents();
    state.rng = { tasks: this.tasksRng.state(), sampling: this.samplingRng.state() };
    if (state.update % this.o.checkpointEvery === 0 || state.update === this.o.updatesPerIteration) {
      await this.ctx.save(state, await this.adam.getState());
    }
  }
}

type Settled<V> = { ok: true; value: V } | { ok: false; error: unknown };

/**
 * The batch the actor prefetches while the learner updates. Its outcome is
 * caught at once (never an unhandled rejection); on any failure of the climb it
 * is aborted and awaited before the climb settles, so nothing of the run touches
 * the policies after `run()` has rejected.
 */
class Prefetch<V> {
  private readonly abort = new AbortController();
  private readonly aborted = new Error('the climb failed; prefetched generation cancelled');
  /** Every failure of the climb, in the order they happened. */
  private readonly failures: unknown[] = [];
  private pending: Promise<Settled<V>> | null = null;

  /** Starts the generation (given the abort signal); a failure is recorded the moment it happens. */
  start(generate: (signal: AbortSignal) => Promise<V>): void {
    this.pending = generate(this.abort.signal).then(
      (value): Settled<V> => ({ ok: true, value }),
      (error: unknown): Settled<V> => {
        if (error !== this.aborted) this.failures.push(error);
        return { ok: false, error };
      },
    );
  }

  /** The prefetched batch (`[]` when none was started); throws its failure. */
  async take(): Promise<V | []> {
    if (this.pending === null) return [];
    const ahead = await this.pending;
    this.pending = null;
    if (!ahead.ok) throw ahead.error;
    return ahead.value;
  }

  /** Records `e`, cancels and awaits the pending generation, and returns the error to throw ({@link firstFailure}). */
  async fail(e: unknown): Promise<unknown> {
    if (!this.failures.includes(e)) this.failures.push(e);
    if (this.pending !== null) {
      this.abort.abort(this.aborted);
      await this.pending;
      this.pending = null;
    }
    return firstFailure(this.failures);
  }
}

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
  for (const e of later) console.warn('FrognanoTrainer.run: a later failure of the same update:', e);
  return first;
}
