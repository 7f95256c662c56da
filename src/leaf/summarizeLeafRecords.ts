import type { RolloutRecord } from './rolloutTasks.js';
import { TRUNCATING } from './leafTrajectory.js';

/** Numbers of one task's episodes (or of the whole run), as {@link summarizeLeafRecords} computes them. */
export interface LeafRecordStats {
  /** Episodes (records), errors included. */
  episodes: number;
  /** Episodes whose tests passed (`outcome.success`). */
  solved: number;
  /** `solved / episodes` (0 without episodes): an episode that failed to run counts as not solved. */
  solveRate: number;
  /** Episodes that ended on a limit (`outcome.truncated`, or a truncating `termination`). */
  truncated: number;
  /** Truncated episodes per termination, e.g. `{ maxTurns: 2, length: 1 }`. */
  truncations: Record<string, number>;
  /** Episodes that failed to run (`termination: 'error'`). */
  errors: number;
  /** Episodes with at least one rule-funnel finding. */
  flagged: number;
  /** Rule-funnel findings per code (findings, not episodes), e.g. `{ 'test-edit': 2 }`. */
  findings: Record<string, number>;
  /** Mean assistant turns over all episodes (NaN without episodes). */
  meanTurns: number;
  /** Mean `outcome.assistantTokens` over the graded episodes (NaN when none was graded). */
  meanAssistantTokens: number;
  /** Mean `reward` over the episodes that have one (NaN when none has). */
  meanReward: number;
}

/** One task's numbers. */
export interface LeafTaskStats extends LeafRecordStats {
  /** The task's id. */
  taskId: string;
}

/** What {@link summarizeLeafRecords} returns. */
export interface LeafRecordsSummary {
  /** Numbers over every record; `tasks` is the number of distinct task ids. */
  totals: LeafRecordStats & { tasks: number };
  /** One entry per task id, in the order the ids first occur in the records. */
  tasks: LeafTaskStats[];
}

const isTruncated = (r: RolloutRecord): boolean => r.outcome?.truncated ?? TRUNCATING.has(r.termination);
const isError = (r: RolloutRecord): boolean => r.termination === 'error';
const mean = (xs: readonly number[]): number => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The numbers of a set of records (one task's, or all). @internal */
export function statsOf(records: readonly RolloutRecord[]): LeafRecordStats {
  const truncations: Record<string, number> = {};
  const findings: Record<string, number> = {};
  let solved = 0;
  let truncated = 0;
  let errors = 0;
  let flagged = 0;
  for (const r of records) {
    if (r.outcome?.success) solved++;
    if (isTruncated(r)) {
      truncated++;
      truncations[r.termination] = (truncations[r.termination] ?? 0) + 1;
    }
    if (isError(r)) errors++;
    if (r.hacking.length > 0) flagged++;
    for (const f of r.hacking) findings[f.code] = (findings[f.code] ?? 0) + 1;
  }
  return {
    episodes: records.length,
    solved,
    solveRate: records.length === 0 ? 0 : solved / records.length,
    truncated,
    truncations,
    errors,
    flagged,
    findings,
    meanTurns: mean(records.map((r) => r.turns)),
    meanAssistantTokens: mean(records.flatMap((r) => (r.outcome ? [r.outcome.assistantTokens] : []))),
    meanReward: mean(records.flatMap((r) => (r.reward === null ? [] : [r.reward]))),
  };
}

/** Records grouped by task id (first-occurrence order), each group sorted by episode. */
export function groupByTask(records: readonly RolloutRecord[]): [string, RolloutRecord[]][] {
  const byTask = new Map<string, RolloutRecord[]>();
  for (const r of records) {
    const g = byTask.get(r.taskId);
    if (g) g.push(r);
    else byTask.set(r.taskId, [r]);
  }
  for (const g of byTask.values()) g.sort((a, b) => a.episode - b.episode);
  return [...byTask];
}

/**
 * The numbers of a rollout (`rolloutTasks` records, or the lines of
 * `rollouts.jsonl`): per task and in total, episodes, solve rate (errors count
 * as unsolved), truncations by termination, errors, rule-funnel findings, mean
 * turns, mean assistant tokens (graded episodes) and mean reward (episodes
 * with a reward). {@link renderLeafReport} shows the same numbers.
 *
 * @example const { totals } = summarizeLeafRecords(records); totals.solveRate; // 0.4375
 */
export function summarizeLeafRecords(records: readonly RolloutRecord[]): LeafRecordsSummary {
  const groups = groupByTask(records);
  return {
    totals: { ...statsOf(records), tasks: groups.length },
    tasks: groups.map(([taskId, rs]) => ({ taskId, ...statsOf(rs) })),
  };
}
