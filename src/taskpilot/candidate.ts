/**
 * A TaskPilot candidate on a repository (FrogNano §3; SPEC §15): what a source (the
 * generator model, or `mutation`) proposes, before executable validation and the
 * p-hat estimate decide it. The shared contract of `src/taskpilot/`: sources make
 * candidates, `validateCandidate` finds their test ids and checks them, the pilot loop
 * estimates, refines the statement and admits them.
 * @module
 */
import type { TestLogFormat } from '../leaf/index.js';

/** The categories of FrogNano's Fig. 7 (SPEC §15). */
export const PILOT_CATEGORIES = ['bug-fix', 'feature', 'refactor', 'migration', 'performance'] as const;
/** One of {@link PILOT_CATEGORIES}. */
export type PilotCategory = (typeof PILOT_CATEGORIES)[number];

/** Where a candidate came from (SPEC §15 `pilot.source`). */
export type PilotSource = 'generator' | 'mutation';

/** Why a candidate was discarded (SPEC §15, the discarded file's `reason`). */
export const DISCARD_REASONS = ['patch-does-not-apply', 'tests-already-pass', 'tests-fail-after', 'p2p-broken', 'flaky', 'out-of-band', 'duplicate', 'invalid-answer'] as const;
/** One of {@link DISCARD_REASONS}. */
export type DiscardReason = (typeof DISCARD_REASONS)[number];

/** A candidate task (SPEC §15). */
export interface PilotCandidate {
  /** Stable id: `<source>-<first 12 hex of sha256 over goldPatch and the hidden tests>` (the same candidate twice has one id). */
  id: string;
  source: PilotSource;
  category: PilotCategory;
  /** The problem statement the agent gets. Refinement replaces only this. */
  statement: string;
  /**
   * The repo the agent sees, an absolute host folder: the snapshot (generator), or
   * the snapshot with the bug and without the files holding the fail-to-pass tests
   * (mutation). Never modified by the pilot.
   */
  repoDir: string;
  /** Unified diff that fixes the task on `repoDir` (mutation: the bug's reverse). */
  goldPatch: string;
  tests: {
    /** The test command (the `--tests` CMD), run in the repo root. */
    command: string;
    /** How its log is read (SPEC §14); default `pytest`. */
    log?: TestLogFormat;
    /** Hidden files written in at grading (path -> content): the generator's F2P tests, or mutation's removed test files. */
    files: Record<string, string>;
    /** Filled by validation: ids failing on `repoDir` and passing with `goldPatch`. */
    failToPass?: string[];
    /** Filled by validation: ids passing on both sides. */
    passToPass?: string[];
  };
  /**
   * The task environment (SPEC §14) every run of the candidate uses: its validation, the
   * mutation source's suite runs and the p-hat episodes; `image` an absolute path (an image
   * archive, an OCI layout or a root folder). Default: the host sandbox.
   */
  environment?: { image: string; workdir?: string; env?: Record<string, string>; setup?: string };
  /** The id of the candidate this one was refined from (SPEC §15 `pilot.parent`). */
  parent?: string;
  /** Source-specific facts for the report (mutation: kind, file, function, line). */
  meta?: Record<string, unknown>;
}
