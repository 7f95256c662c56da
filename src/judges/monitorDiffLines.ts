import type { Trajectory } from '../schema/trajectory.js';
import type { MonitorMatch } from './monitorTypes.js';
import { classifyRepoPath } from './repoPaths.js';
import { type DiffLine, parseUnifiedDiff } from './unifiedDiff.js';

/** What the diff-reading monitor patterns share: the lines the final diff adds to source files, and a line test in linear time. */

/**
 * Whether some match of `a` is followed, on the same line (no `\n`, `\r`,
 * U+2028, U+2029 between: what `.` crosses), by a match of `b`: what
 * `/A.*B/.test(text)` says, in linear time. That regex is quadratic on a long
 * line repeating `A` (each occurrence runs `.*` to the line's end and back);
 * the earliest-ending `A` of a line is the one to take. `a` and `b` must be
 * global, match no line terminator, and `a` have no match inside another. @internal
 */
export function followedOnLine(text: string, a: RegExp, b: RegExp): boolean {
  for (const line of text.split(/[\n\r\u2028\u2029]/)) {
    a.lastIndex = 0;
    // the leftmost `a` match ends first: no match of the patterns used here lies inside another
    const ma = a.exec(line);
    if (!ma) continue;
    b.lastIndex = ma.index + ma[0].length;
    if (b.exec(line)) return true;
  }
  return false;
}

/** The lines the final diff adds to source files (neither test nor grading files). @internal */
export function addedSourceLines(t: Trajectory): DiffLine[] {
  if (!t.diff) return [];
  return parseUnifiedDiff(t.diff)
    .filter((f) => classifyRepoPath(f.path) === 'other')
    .flatMap((f) => f.lines.filter((l) => l.kind === '+'));
}

/** A match on a line of the final diff. @internal */
export const diffMatch = (t: Trajectory, l: DiffLine): MonitorMatch => ({ messageIndex: t.messages.length, evidence: l.raw });
