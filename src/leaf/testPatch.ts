import { FrognanoError } from '../errors/FrognanoError.js';
import { parseUnifiedDiff } from '../judges/unifiedDiff.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { restoreFromSnapshot } from './gradingHooks.js';

/**
 * The repository paths a unified diff touches (old and new sides, `a/` and `b/`
 * stripped, `/dev/null` left out), in order, each once: the paths `tests.patch`
 * hides from the agent and restores before it applies (SPEC §14).
 */
export function patchPaths(patch: string): string[] {
  const out = new Set<string>();
  for (const f of parseUnifiedDiff(patch)) for (const p of [f.oldPath, f.newPath]) if (p !== null) out.add(p);
  return [...out];
}

/**
 * SWE-bench's test-patch step at grading (SPEC §14): every path `patch` touches is
 * first restored to the snapshot's content (as SWE-bench resets the test files:
 * the agent's edits of those paths, and any link it planted on the way, are
 * undone), then the patch is applied. Returns the paths it wrote or deleted.
 * @throws FrognanoError `OUT_OF_RANGE` / `INVALID_TYPE` when the patch does not
 *   apply (`applyUnifiedDiff`'s message, without its prefix)
 */
export async function applyTestPatch(snapshot: string, repo: string, patch: string): Promise<string[]> {
  for (const p of patchPaths(patch)) await restoreFromSnapshot(snapshot, repo, p);
  try {
    return await applyUnifiedDiff(repo, patch);
  } catch (e) {
    if (e instanceof FrognanoError) throw new FrognanoError(e.code, `tests.patch does not apply: ${e.message.replace(/^applyUnifiedDiff: /, '')}`, { fn: 'applyTestPatch', field: 'tests.patch' });
    throw e;
  }
}
