import type { TestRunGrading } from './runGradingTests.js';
import type { GradedTest } from './testLogs/index.js';

/** How one run ended, for messages: `exit N`, `exit killed`, or `timed out after S s`. */
export function exitLabel(g: TestRunGrading, timeoutMs: number): string {
  return g.run.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit ${g.run.exitCode ?? 'killed'}`;
}

/** A listed id's status in one run (`missing` when the log does not show it). */
export function statusOf(g: TestRunGrading, id: string): string {
  return (g.tests as GradedTest[]).find((t) => t.name === id)?.status ?? 'missing';
}

/** What {@link flakyTests} found. */
export interface FlakyFinding {
  /** The flaky ids, sorted (`["tests"]` for an exit code that changed). */
  ids: string[];
  /** `flaky: <first id> (statuses before: ...; after: ...)`, or for the exit code `flaky: tests (exit before: ...; after: ...)`. */
  reason: string;
}

/** What is compared across one side's runs: each listed id's status, or without ids the single `tests` entry's exit label. */
function outcomes(g: TestRunGrading, ids: readonly string[], timeoutMs: number): Map<string, string> {
  if (ids.length === 0) return new Map([['tests', exitLabel(g, timeoutMs)]]);
  return new Map(ids.map((id) => [id, statusOf(g, id)]));
}

/** Whether `key` took more than one value over `runs`. */
const changes = (runs: readonly Map<string, string>[], key: string): boolean => new Set(runs.map((r) => r.get(key))).size > 1;

/**
 * The flaky tests of a validation run K times per side (`validate-tasks
 * --repeat K`): a listed id (`ids`, the task's fail-to-pass and pass-to-pass ids)
 * whose status differs between the K runs of the same side; without ids, the
 * exit code (a timeout counts as its own outcome) differing between them. Null
 * when nothing changed. The reason names the first flaky id (in sorted order)
 * with its status in every run of both sides, in run order:
 * `flaky: t::a (statuses before: failed, passed; after: passed, passed)`;
 * without ids `flaky: tests (before: exit 1, exit 0; after: exit 0, exit 0)`.
 */
export function flakyTests(before: readonly TestRunGrading[], after: readonly TestRunGrading[], ids: readonly string[], timeoutMs: number): FlakyFinding | null {
  const b = before.map((g) => outcomes(g, ids, timeoutMs));
  const a = after.map((g) => outcomes(g, ids, timeoutMs));
  const keys = ids.length === 0 ? ['tests'] : [...new Set(ids)];
  const flaky = keys.filter((k) => changes(b, k) || changes(a, k)).sort();
  if (flaky.length === 0) return null;
  const first = flaky[0]!;
  const list = (runs: readonly Map<string, string>[]): string => runs.map((r) => r.get(first)).join(', ');
  const what = ids.length === 0 ? '' : 'statuses ';
  return { ids: flaky, reason: `flaky: ${first} (${what}before: ${list(b)}; after: ${list(a)})` };
}
