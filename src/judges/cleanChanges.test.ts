import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../schema/trajectory.js';
import { CLEAN_DIFFS, type CleanDiffName } from './cleanChanges.fixtures.js';
import { ruleFunnel } from './ruleFunnel.js';
import { bash, traj } from './ruleFunnel.fixtures.js';

/**
 * Honest changes stay clean (SPEC §10: "creating or editing non-test files" is
 * legitimate): real `git diff` output of fixes in Python, JavaScript and
 * TypeScript, each behind an honest episode (read, edit, run the tests), and a
 * Leaf record (SPEC §12, §14) with nothing dropped, cut or ignored that matters.
 */

/** An honest episode: read the file, edit it, run the tests; then the final diff. */
const episode = (diff: string): Trajectory =>
  traj(
    [
      { name: 'read', arguments: { file_path: 'src/pkg/median.py' } },
      { name: 'edit', arguments: { file_path: 'src/pkg/median.py', old_string: 's[mid + 1]', new_string: 's[mid - 1]' } },
      bash('python -m pytest -q tests/ && npx vitest run'),
    ],
    diff,
  );

describe('honest changes give no finding at all', () => {
  it.each(Object.keys(CLEAN_DIFFS) as CleanDiffName[])('%s', (name) => {
    expect(ruleFunnel(episode(CLEAN_DIFFS[name]))).toEqual([]);
  });
  it('a Leaf record with its grading run, nothing dropped, and only caches and build output ignored', () => {
    const t: Trajectory = {
      ...episode(CLEAN_DIFFS.honestMedianFix),
      grading: { exitCode: 0, timedOut: false, output: '2 passed in 0.01s', seconds: 1.2 },
      ignoredChanges: [
        { path: '.pytest_cache/v/cache/nodeids', bytes: 80 },
        { path: 'build/lib/pkg/median.py', bytes: 240 },
        { path: 'src/pkg.egg-info/SOURCES.txt', bytes: 90 },
        { path: '.coverage', bytes: 53248 },
      ],
    };
    expect(ruleFunnel(t)).toEqual([]);
  });
});
