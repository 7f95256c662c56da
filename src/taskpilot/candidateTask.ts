/**
 * A candidate as a Leaf task record (SPEC §12, §14): what `validateLeafTask`,
 * `rolloutTasks` and the pilot's output file take.
 * @module
 */
import type { LoadedLeafTask } from '../leaf/index.js';
import type { PilotCandidate } from './candidate.js';

/**
 * The §12/§14 task of a candidate: `id`, `statement`, `repo` (= `repoDir`, absolute),
 * `tests` `{ command, log, files, failToPass?, passToPass? }` (`log` defaults to `pytest`;
 * empty lists are left out), `referencePatch` = `goldPatch`. The hidden files and the
 * reference patch never reach the agent: Leaf writes `tests.files` only at grading and
 * never shows `referencePatch`. A candidate's `environment` becomes the task's (its
 * `image` absolute, as `imagePath`).
 */
export function candidateTask(c: PilotCandidate): LoadedLeafTask {
  const log = c.tests.log ?? 'pytest';
  const lists = {
    ...(c.tests.failToPass?.length ? { failToPass: [...c.tests.failToPass] } : {}),
    ...(c.tests.passToPass?.length ? { passToPass: [...c.tests.passToPass] } : {}),
  };
  return {
    id: c.id,
    statement: c.statement,
    repo: c.repoDir,
    repoDir: c.repoDir,
    tests: { command: c.tests.command, log, files: { ...c.tests.files }, ...lists },
    referencePatch: c.goldPatch,
    ...(c.environment ? { environment: { ...c.environment }, imagePath: c.environment.image } : {}),
  };
}
