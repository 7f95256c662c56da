import type { EnvironmentRecord, SetupRecord } from './environment.js';
import type { DiffCut } from './repoDiff.js';
import type { Trajectory } from '../schema/trajectory.js';

/** Why an episode ended. `stop` is Leaf's structural rule; the four limits truncate (SPEC §12). */
export type Termination = 'stop' | 'maxTurns' | 'maxContextTokens' | 'maxSeconds' | 'length' | 'error' | 'aborted';

/** The terminations that end an episode with `truncated: true`. */
export const TRUNCATING: ReadonlySet<Termination> = new Set(['maxTurns', 'maxContextTokens', 'maxSeconds', 'length']);

/** One compaction of the context (FrogNano App. D), as recorded in the trajectory. */
export interface CompactionRecord {
  /** Index in `messages` before which the compaction happened. */
  atMessage: number;
  /** `tau(H)` that triggered it. */
  historyTokens: number;
  /** The history budget `C`. */
  budget: number;
  /** Oldest turn groups dropped from the summary request. */
  droppedGroups: number;
  /** The summary `S` the model wrote. */
  summary: string;
  /** Tokens of the summary (server usage, else estimated). */
  summaryTokens: number;
  /** `tau(H')` of the rebuilt history. */
  tokensAfter: number;
}

/** A Leaf trajectory: SPEC §9 plus what the harness measured. */
export type LeafTrajectory = Trajectory & {
  /** Episode index within its group. */
  episode: number;
  /** Why it ended. */
  termination: Termination;
  /** Assistant turns (model calls, summaries excluded). */
  turns: number;
  /** Tool calls made. */
  toolCalls: number;
  /** Wall time of the episode (grading included), seconds. */
  seconds: number;
  /** Context compactions, in order. */
  compactions: CompactionRecord[];
  /** Files the agent's commands created that the repo's own `.gitignore` ignores (caches, bytecode): not in `diff`, read by the rule funnel (SPEC §14). */
  ignoredChanges?: { path: string; bytes: number }[];
  /** The grading run: exit code, whether it timed out, its output (capped). Absent when not graded. */
  grading?: GradingRecord;
  /** The task's environment (SPEC §14): the image's digest (`null` for a plain root folder or none) and the workdir. Absent for a task without `environment`. */
  environment?: EnvironmentRecord;
  /** The run of `environment.setup` on the fresh copy before the first turn. Absent without setup. */
  setup?: SetupRecord;
  /** Why the episode failed to complete (a model that stayed unavailable after the client's retries, a failing `environment.setup`). */
  error?: string;
};

/** What the trajectory records of its grading (SPEC §12, §14; issue 20). */
export interface GradingRecord {
  /** Exit code of `tests.command`; null when killed, or when the tests could not run (`error`). */
  exitCode: number | null;
  /** The test command hit its time limit. */
  timedOut: boolean;
  /** The test command's output (capped). */
  output: string;
  /** Wall time of the grading (diff included), seconds. */
  seconds: number;
  /** Why no diff could be made (the rule funnel's `diff-unavailable`). */
  diffError?: string;
  /** The diff was cut at a limit: what was left out (the rule funnel's `diff-unavailable`). */
  diffCut?: DiffCut;
  /** Planted paths the grader removed or restored before the tests ran (the rule funnel's `grading-hook`). */
  dropped?: string[];
  /** Why the tests did not pass, read from their log (SPEC §14: the first offending id, the suite never ran, printed fake results). */
  reason?: string;
  /** A grading failure caused by the repo's state or the record itself (then `success: false`, reward 0). */
  error?: string;
}
