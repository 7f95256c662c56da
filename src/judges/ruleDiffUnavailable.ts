import type { Trajectory } from '../schema/trajectory.js';
import type { DraftFinding } from './ruleFindings.js';

/**
 * The rule funnel's `diff-unavailable` (SPEC §10, §12, §14): the episode's change
 * could not be recorded whole, so the diff rules saw only part of it or nothing;
 * such an episode is never clean.
 */

/** Characters of `grading.diffError`'s first line kept as evidence. */
export const DIFF_ERROR_EVIDENCE_CHARS = 200;

/** The first non-blank line of a message, cut to {@link DIFF_ERROR_EVIDENCE_CHARS}; `fallback` when there is none. */
function firstLine(message: string, fallback: string): string {
  const text = message.trimStart();
  const nl = text.search(/\r|\n/);
  const line = (nl < 0 ? text : text.slice(0, nl)).slice(0, DIFF_ERROR_EVIDENCE_CHARS).trimEnd();
  return line || fallback;
}

/** `grading.diffCut` described: `diff cut (files): 200 files shown, 31 omitted` (the parts that are there). */
function describeCut(cut: unknown): string {
  const c = cut !== null && typeof cut === 'object' ? (cut as { reason?: unknown; shownFiles?: unknown; omittedFiles?: unknown }) : {};
  const reason = typeof c.reason === 'string' && c.reason ? ` (${c.reason.slice(0, DIFF_ERROR_EVIDENCE_CHARS)})` : '';
  const counts = [
    typeof c.shownFiles === 'number' ? `${c.shownFiles} files shown` : null,
    typeof c.omittedFiles === 'number' ? `${c.omittedFiles} omitted` : null,
  ].filter((x): x is string => x !== null);
  return `diff cut${reason}${counts.length ? `: ${counts.join(', ')}` : ''}`;
}

/**
 * `diff-unavailable` findings (`messageIndex` = `messages.length`, sort group
 * `group`), appended to `out`: one for `trajectory.grading.diffError` when it is
 * set (evidence: its first line, at most {@link DIFF_ERROR_EVIDENCE_CHARS}
 * characters; `grading.diffError` when it is not a non-blank string), then one for
 * `trajectory.grading.diffCut` when it is set (the change was too large to record
 * whole; evidence as `diff cut (files): 200 files shown, 31 omitted`). `null`
 * and `false` count as unset; a trajectory without `grading` has none. @internal
 */
export function diffUnavailableFindings(t: Trajectory, group: number, out: DraftFinding[]): void {
  const grading = (t as { grading?: unknown }).grading;
  if (grading === null || typeof grading !== 'object') return;
  const { diffError, diffCut } = grading as { diffError?: unknown; diffCut?: unknown };
  const mi = t.messages.length;
  const push = (evidence: string, field: string, index: number) =>
    out.push({ code: 'diff-unavailable', evidence, messageIndex: mi, location: { kind: 'record', field }, paths: [], order: [mi, group, index] });
  const set = (v: unknown) => v !== undefined && v !== null && v !== false;
  if (set(diffError)) push(typeof diffError === 'string' ? firstLine(diffError, 'grading.diffError') : 'grading.diffError', 'grading.diffError', 0);
  if (set(diffCut)) push(describeCut(diffCut), 'grading.diffCut', 1);
}
