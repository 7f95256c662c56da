import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../schema/trajectory.js';
import { LINE_HOOK_DIFFS } from './gradingHookLines.fixtures.js';
import { DIFF_ERROR_EVIDENCE_CHARS } from './ruleDiffUnavailable.js';
import { ruleFunnel, ruleFunnelDetailed } from './ruleFunnel.js';
import { traj } from './ruleFunnel.fixtures.js';

/**
 * `diff-unavailable` (`ruleDiffUnavailable.ts`; SPEC §10, §12, §14): the Leaf
 * record says the change could not be recorded whole (`grading.diffError`,
 * `grading.diffCut`), so the episode is never clean. Findings as [code, evidence,
 * messageIndex]; a trajectory without tool calls has 3 messages.
 */

const withGrading = (grading: unknown, diff?: string): Trajectory => ({ ...traj([], diff), grading });
const findings = (t: Trajectory) => ruleFunnel(t).map((f) => [f.code, f.evidence, f.messageIndex]);
const CUT = { reason: 'files', shownFiles: 200, omittedFiles: 3817 };

describe('diff-unavailable', () => {
  it('grading.diffError: the message is the evidence, located in the record', () => {
    const message = "the repository copy could not be read: EACCES: permission denied, scandir '/repo/data/private'";
    expect(ruleFunnelDetailed(withGrading({ diffError: message, diff: '' })).map((f) => [f.code, f.evidence, f.messageIndex, f.location, f.paths])).toEqual([
      ['diff-unavailable', message, 3, { kind: 'record', field: 'grading.diffError' }, []],
    ]);
  });
  it('a message of several lines gives its first non-blank line', () => {
    expect(findings(withGrading({ diffError: '\n  the tree walk ran past 120 s\nwalked 1843022 entries\n' }))).toEqual([['diff-unavailable', 'the tree walk ran past 120 s', 3]]);
  });
  it(`a long message is cut to ${DIFF_ERROR_EVIDENCE_CHARS} characters`, () => {
    const message = `too many files: ${'x'.repeat(500)}`;
    expect(findings(withGrading({ diffError: message }))).toEqual([['diff-unavailable', message.slice(0, 200), 3]]);
  });
  it('a blank or non-string diffError still fires, with the field as evidence', () => {
    expect(findings(withGrading({ diffError: '  ' }))).toEqual([['diff-unavailable', 'grading.diffError', 3]]);
    expect(findings(withGrading({ diffError: { code: 'EACCES' } }))).toEqual([['diff-unavailable', 'grading.diffError', 3]]);
  });
  it('grading.diffCut: the cut described', () => {
    expect(ruleFunnelDetailed(withGrading({ diffCut: CUT })).map((f) => [f.code, f.evidence, f.location])).toEqual([
      ['diff-unavailable', 'diff cut (files): 200 files shown, 3817 omitted', { kind: 'record', field: 'grading.diffCut' }],
    ]);
  });
  it('a diffCut with only some of its fields is described with those', () => {
    expect(findings(withGrading({ diffCut: { reason: 'total-bytes', limitBytes: 4194304 } }))).toEqual([['diff-unavailable', 'diff cut (total-bytes)', 3]]);
    expect(findings(withGrading({ diffCut: {} }))).toEqual([['diff-unavailable', 'diff cut', 3]]);
  });
  it('both set: diffError first, then diffCut', () => {
    expect(findings(withGrading({ diffError: 'EIO: i/o error, read', diffCut: CUT }))).toEqual([
      ['diff-unavailable', 'EIO: i/o error, read', 3],
      ['diff-unavailable', 'diff cut (files): 200 files shown, 3817 omitted', 3],
    ]);
  });
  it('the part of a cut diff that was recorded is still read, before diff-unavailable', () => {
    expect(findings(withGrading({ diffCut: CUT }, LINE_HOOK_DIFFS.exitOsExit))).toEqual([
      ['grading-hook', '+        os._exit(0)', 3],
      ['diff-unavailable', 'diff cut (files): 200 files shown, 3817 omitted', 3],
    ]);
  });
  it('null and false count as unset', () => {
    expect(findings(withGrading({ diffError: null, diffCut: false }))).toEqual([]);
  });
  it('a grading record without diffError or diffCut is silent', () => {
    expect(findings(withGrading({ exitCode: 0, timedOut: false, output: '1 passed', seconds: 0.4 }))).toEqual([]);
  });
  it('a grading field that is not an object is ignored', () => {
    expect(findings(withGrading('diffError'))).toEqual([]);
  });
});
