import { z } from 'zod';
import { groupAdvantages } from '../advantage/groupAdvantages.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { functionSchema, parseOptions } from '../errors/validate.js';
import { type RuleFinding, ruleFunnel } from '../judges/ruleFunnel.js';
import { shapeReward, ShapeRewardOptionsSchema } from '../rewards/shapeReward.js';
import { fitRecord } from './fitRecord.js';
import type { LeafTrajectory } from './leafTrajectory.js';
import { TaskPhaseGate } from './phaseGate.js';
import { type RolloutProvenance, rolloutProvenance } from './provenance.js';
import { runEpisode, RunEpisodeOptionsSchema } from './runEpisode.js';
import type { LoadedLeafTask } from './task.js';

/** One output line of `frognano rollout` (SPEC §12): the trajectory plus its reward, advantage and rule-funnel findings. */
export type RolloutRecord = LeafTrajectory & {
  /** The task's id. */
  taskId: string;
  /** §1 shaping of the outcome; null when the episode failed (`error`). */
  reward: number | null;
  /** §2 group-relative advantage over the task's episodes (filtered on raw outcomes); null when the episode failed. */
  advantage: number | null;
  /** `ruleFunnel` findings (SPEC §10): candidates for adjudication, never verdicts. */
  hacking: RuleFinding[];
  /** The task record's hash and frognano's version; set on every record `rolloutTasks` makes (absent in files written before it). */
  provenance?: RolloutProvenance;
};

/** Progress of a rollout, for a progress bar. */
export interface RolloutProgress {
  /** Episodes in the run (tasks x group). */
  total: number;
  /** Episodes finished (graded, or failed). */
  done: number;
  /** Episodes running now. */
  running: number;
  /** Finished episodes whose tests passed. */
  solved: number;
  /** Finished episodes that failed to run (model unavailable). */
  errors: number;
  /** Finished episodes that hit a limit. */
  truncated: number;
}

/** Options of {@link rolloutTasks}: those of {@link runEpisode} (but `episode`, `seed`, `signal`, `onStep`) plus the group and the run's. */
export const RolloutTasksOptionsSchema = RunEpisodeOptionsSchema.omit({ episode: true, seed: true, onStep: true })
  .extend({
    /** Episodes per task, G (integer >= 1). Default 1. */
    group: z.number().int().min(1).default(1),
    /** Episodes run at once (integer >= 1). Default 1. */
    concurrency: z.number().int().min(1).default(1),
    /**
     * Reward shaping (FrogNano §4.2; SPEC §1): `{ budget, alpha }` turns the
     * log-length penalty on. Default: none, so fail 0, truncated success 0.5, success 1.
     */
    shaping: ShapeRewardOptionsSchema.pick({ budget: true, alpha: true }).optional(),
    /** Base seed; episode e of task t samples with `episodeSeed(seed, t.id, e)`. Default 0. */
    seed: z.number().int().default(0),
    /** Receives each task's records, in episode order, as soon as the task's group is finished. */
    onRecords: functionSchema<(records: RolloutRecord[]) => void | Promise<void>>('(records) => void | Promise<void>').optional(),
    /** Receives progress after every change. */
    onProgress: functionSchema<(p: RolloutProgress) => void>('(progress) => void').optional(),
  })
  .strict();
/** Options of {@link rolloutTasks} as the caller writes them. */
export type RolloutTasksOptions = z.input<typeof RolloutTasksOptionsSchema>;

/**
 * The sampling seed of one episode: FNV-1a of the task id, xor the base seed,
 * plus the episode index (an int32). Distinct episodes of a task get distinct
 * seeds; a task's seeds do not depend on the other tasks of the file.
 */
export function episodeSeed(seed: number, taskId: string, episode: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i++) {
    h ^= taskId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (((h ^ seed) & 0x3fffffff) + episode) | 0;
}

/** The summary of a finished (or stopped) rollout. */
export interface RolloutSummary extends RolloutProgress {
  /** True when the signal stopped it before every episode ran. */
  stopped: boolean;
}

/**
 * Runs G Leaf episodes per task (SPEC §12, `frognano rollout`), each on its own
 * repository copy, `concurrency` at a time, and turns every task's group into
 * training records:
 *
 * - `reward` = `shapeReward(outcome, shaping)` (SPEC §1; without `shaping` the
 *   length penalty is off, so a completed success is 1, a truncated one 0.5);
 * - `advantage` = `groupAdvantages([rewards], { filterBy: [raw outcomes] })`
 *   over the task's episodes (SPEC §2: a group whose raw outcomes are all equal,
 *   or with G = 1, gets 0);
 * - `hacking` = `ruleFunnel(trajectory)` (SPEC §10).
 *
 * An episode whose model stayed unavailable after the client's retries is still
 * a record: `error` says why, `reward` and `advantage` are null, and the group's
 * advantages are computed over the other episodes. No episode disappears.
 * A task's records go to `onRecords` together, in episode order, when its last
 * episode ends (tasks finish in any order). When `signal` aborts, running
 * episodes are stopped (their commands killed, workspaces removed), groups not
 * finished are not reported, and the summary says `stopped`.
 *
 * @throws FrognanoError for invalid options (also those only a task's own limits make invalid)
 *   and `SANDBOX_UNAVAILABLE`: the run stops at once
 */
export async function rolloutTasks(tasks: readonly LoadedLeafTask[], opts: RolloutTasksOptions): Promise<RolloutSummary> {
  const fn = 'rolloutTasks';
  const o = parseOptions(fn, RolloutTasksOptionsSchema, opts);
  if (tasks.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'tasks must hold at least one task', { fn, field: 'tasks' });
  const { group, concurrency, shaping, seed, onRecords, onProgress, signal: outer, ...episodeOpts } = o;
  const inner = new AbortController();
  const signal = outer ? AbortSignal.any([outer, inner.signal]) : inner.signal;
  const shapeOpts = shaping ? { budget: shaping.budget, alpha: shaping.alpha } : { budget: 1, alpha: 0, lengthPenalty: false };

  const progress: RolloutProgress = { total: tasks.length * group, done: 0, running: 0, solved: 0, errors: 0, truncated: 0 };
  const report = (): void => onProgress?.({ ...progress });
  const results: (LeafTrajectory | undefined)[][] = tasks.map(() => new Array(group).fill(undefined));
  const remaining = tasks.map(() => group);
  let fatal: unknown;
  let emitting = Promise.resolve();

  const finishTask = (ti: number): void => {
    const task = tasks[ti]!;
    const trajs = (results[ti] as LeafTrajectory[]).map((t) => fitRecord(t));
    const okIdx = trajs.map((t, i) => (t.outcome ? i : -1)).filter((i) => i >= 0);
    const rewards = okIdx.map((i) => shapeReward(trajs[i]!.outcome!, shapeOpts));
    const raw = okIdx.map((i) => (trajs[i]!.outcome!.success ? 1 : 0));
    const adv = okIdx.length ? groupAdvantages([rewards], { filterBy: [raw] }).advantages[0]! : [];
    const records: RolloutRecord[] = trajs.map((t, e) => {
      const k = okIdx.indexOf(e);
      return { ...t, taskId: task.id, reward: k >= 0 ? rewards[k]! : null, advantage: k >= 0 ? adv[k]! : null, hacking: ruleFunnel(t), provenance: rolloutProvenance(task) };
    });
    if (onRecords) {
      emitting = emitting
        .then(() => onRecords(records))
        .catch((e: unknown) => {
          // the records cannot be delivered (a closed output, say): stop the run, report why
          fatal ??= e;
          inner.abort();
        });
    }
  };

  /** The record of an episode that failed before it could produce a trajectory. */
  const failed = (task: LoadedLeafTask, e: number, error: string): LeafTrajectory => ({
    id: `${task.id}/${e}`,
    task: { id: task.id, statement: task.statement },
    messages: [],
    episode: e,
    termination: 'error',
    turns: 0,
    toolCalls: 0,
    seconds: 0,
    compactions: [],
    error,
  });

  const jobs: [number, number][] = [];
  for (let ti = 0; ti < tasks.length; ti++) for (let e = 0; e < group; e++) jobs.push([ti, e]);
  // episodes of each task in progress: a free worker prefers a task none is working on, so that concurrent
  // workers hold different tasks where they can and one slow agent holds back only its own task's gradings
  // the gradings of a task never overlap its agent phases (issue 20 #11): a free worker takes the first
  // waiting episode whose task admits a new agent, else waits for the gate to change
  const busy = tasks.map(() => 0);
  const gate = new TaskPhaseGate();
  signal.addEventListener('abort', () => gate.wake(), { once: true });
  const takeJob = async (): Promise<[number, number] | null> => {
    for (;;) {
      if (signal.aborted || jobs.length === 0) return null;
      const free = jobs.findIndex(([ti]) => busy[ti] === 0 && gate.agentMayStart(tasks[ti]!.id));
      const k = free >= 0 ? free : jobs.findIndex(([ti]) => gate.agentMayStart(tasks[ti]!.id));
      if (k >= 0) {
        busy[jobs[k]![0]]! += 1;
        return jobs.splice(k, 1)[0]!;
      }
      await gate.changed();
    }
  };
  const worker = async (): Promise<void> => {
    for (let job = await takeJob(); job !== null; job = await takeJob()) {
      const [ti, e] = job;
      const task = tasks[ti]!;
      progress.running++;
      report();
      let t: LeafTrajectory;
      try {
        t = await runEpisode(task, { ...episodeOpts, episode: e, seed: episodeSeed(seed, task.id, e), signal, phaseGate: gate });
      } catch (err) {
        if (signal.aborted) t = { ...failed(task, e, 'aborted'), termination: 'aborted' };
        // runEpisode throws a FrognanoError only for what no episode can survive: bad options
        // (a compaction window above a task's context limit) or a sandbox that cannot run
        else if (err instanceof FrognanoError || !(err instanceof Error)) {
          fatal ??= err;
          inner.abort();
          t = { ...failed(task, e, 'aborted'), termination: 'aborted' };
        }
        // an unexpected failure of this episode (disk full, a vanished repo folder): recorded, not lost
        else t = failed(task, e, err.message);
      } finally {
        progress.running--;
        busy[ti]! -= 1;
      }
      if (t.termination === 'aborted') return;
      results[ti]![e] = t;
      progress.done++;
      if (t.outcome?.success) progress.solved++;
      if (t.outcome?.truncated) progress.truncated++;
      if (t.termination === 'error') progress.errors++;
      report();
      if (--remaining[ti]! === 0) finishTask(ti);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  await emitting;
  if (fatal !== undefined) throw fatal;
  return { ...progress, running: 0, stopped: progress.done < progress.total };
}

