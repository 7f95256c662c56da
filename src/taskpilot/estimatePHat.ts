/**
 * TaskPilot's p-hat (FrogNano §3.1; SPEC §7, §15): N Leaf episodes of the current
 * policy per candidate, `p-hat = (1/N) sum_j R_j` with `R_j` = the episode's success.
 * @module
 */
import { resolveRate } from '../curriculum/index.js';
import { rolloutTasks, type RolloutRecord, type RolloutTasksOptions } from '../leaf/index.js';
import type { PilotCandidate } from './candidate.js';
import { candidateTask } from './candidateTask.js';

/** Options of {@link estimatePHat}. */
export interface EstimatePHatOptions {
  /** The policy (a ToolChatModel). */
  model: RolloutTasksOptions['model'];
  /** The sandbox of the episodes. */
  sandbox: RolloutTasksOptions['sandbox'];
  /** Episodes per candidate, N (default 8). */
  rollouts?: number;
  /** Episodes at once (default 1). */
  concurrency?: number;
  /** Base seed of the episodes (default 0); episode e of candidate id samples with `episodeSeed(seed, id, e)`. */
  seed?: number;
  /** The refinement round (0 = first estimate): carried to the records' `pilot` field only. */
  round?: number;
  /** Receives each candidate's N records (RL data: the CLI writes them to FILE.rollouts.jsonl). */
  onRecords?: (records: RolloutRecord[]) => void | Promise<void>;
  /** Stops the episodes. */
  signal?: AbortSignal;
  /** Further episode options (limits, maxTokens, temperature, compaction, gradingSeconds). */
  episode?: Pick<RolloutTasksOptions, 'limits' | 'maxTokens' | 'temperature' | 'compaction' | 'gradingSeconds' | 'logprobs'>;
}

/** The estimate of one candidate. */
export interface PHatEstimate {
  /** Mean of the graded outcomes (success 1, else 0); null when no episode was graded. */
  pHat: number | null;
  /** `outcome.success` of each graded episode, in episode order. */
  outcomes: boolean[];
  /** Episodes that produced no graded outcome (`error`: the model stayed unavailable): left out of the mean. */
  errors: number;
  /** Every record of the candidate's N episodes. */
  records: RolloutRecord[];
}

/**
 * Runs N (`rollouts`) Leaf episodes per candidate with `rolloutTasks` (group N) on the
 * task `candidateTask(c)`: the agent sees `repoDir` and the statement only (Leaf writes
 * the hidden test files at grading; `referencePatch` is never shown).
 *
 * `p-hat = (1/N') sum_j R_j`, `R_j = outcome.success` (SPEC §15), over the N' episodes that
 * were graded. An episode with an `error` (reward null: the model unavailable after its
 * retries) says nothing about the task, so it is left out of the mean and counted in
 * `errors` rather than scored as a failure (which would bias p-hat down by the server's
 * outages); with no graded episode `pHat` is null. Every record goes to `onRecords`, each
 * carrying `pilot: { round }` next to the rollout fields.
 *
 * @returns the estimate per candidate id (candidates whose group did not finish, on abort, are absent)
 */
export async function estimatePHat(candidates: readonly PilotCandidate[], opts: EstimatePHatOptions): Promise<Map<string, PHatEstimate>> {
  const out = new Map<string, PHatEstimate>();
  if (candidates.length === 0) return out;
  const round = opts.round ?? 0;
  await rolloutTasks(candidates.map(candidateTask), {
    model: opts.model,
    sandbox: opts.sandbox,
    group: opts.rollouts ?? 8,
    concurrency: opts.concurrency ?? 1,
    seed: opts.seed ?? 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.episode ?? {}),
    onRecords: async (records) => {
      const tagged = records.map((r) => ({ ...r, pilot: { round } }));
      const graded = tagged.filter((r) => r.outcome !== undefined && r.outcome !== null && r.reward !== null);
      const outcomes = graded.map((r) => r.outcome!.success === true);
      out.set(records[0]!.taskId, { pHat: outcomes.length ? resolveRate(outcomes) : null, outcomes, errors: tagged.length - graded.length, records: tagged });
      await opts.onRecords?.(tagged);
    },
  });
  return out;
}
