import { lstat, mkdir, open, rm, lchown } from 'node:fs/promises';
import { constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, FrognanoError, isFrognanoError } from '../errors/FrognanoError.js';
import { dropGradingHooks } from './gradingHooks.js';
import { diffRepo, type RepoDiff, type TreeChange } from './repoDiff.js';
import { gitignoreOf } from './gitignoreRules.js';
import { runGradingTests, type TestRunGrading } from './runGradingTests.js';
import { applyTestPatch, patchPaths } from './testPatch.js';
import type { CommandResult, Sandbox } from './sandbox.js';
import { restorePermissions } from './restorePermissions.js';
import type { LeafTask } from './task.js';

/**
 * Writes the hidden test files into the repo copy (SPEC §12), overwriting the
 * agent's edits of those paths. Every existing component on the way that is a
 * symbolic link or not a folder (something the agent planted) is removed first,
 * so a write can never be led outside the copy; the file itself is always made
 * anew (`O_EXCL`), never written through an existing inode (a hard link the agent
 * made would share it).
 */
export async function writeHiddenFiles(repo: string, files: Readonly<Record<string, string>>, owner: { uid: number; gid: number } | null): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    // a hidden path is relative and stays inside the repo (a pool or generator file may hold anything)
    if (rel.startsWith('/') || rel.includes('\0') || parts.includes('..') || parts.length === 0) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `tests.files: ${JSON.stringify(rel)} is not a relative path inside the repo`, { fn: 'writeHiddenFiles', field: 'tests.files' });
    }
    let dir = repo;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      const st = await lstat(dir).catch(() => null);
      if (st && !st.isDirectory()) await rm(dir, { force: true, recursive: true });
      if (!st || !st.isDirectory()) {
        await mkdir(dir);
        if (owner) await lchown(dir, owner.uid, owner.gid);
      }
    }
    const target = join(dir, parts[parts.length - 1]!);
    // whatever is there goes, a regular file too: it may be a hard link to a file the agent keeps
    // elsewhere, through which it could read or rewrite the hidden test; the new file is a fresh inode
    await rm(target, { force: true, recursive: true });
    const fh = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await fh.writeFile(content, 'utf8');
      if (owner) await fh.chown(owner.uid, owner.gid);
    } finally {
      await fh.close();
    }
  }
}

/** The grading of an episode's repository. */
export interface Grading {
  /** Unified diff of the agent's change (hidden files excluded), possibly cut (`diffCut`); `''` when it could not be taken (`diffError`). */
  diff: string;
  /** Every changed path of the copy (not cut), as `diffRepo` lists them; `[]` when the diff could not be taken. */
  changes: TreeChange[];
  /** Files the agent's commands created that the repo's own `.gitignore` ignores: not in `diff` (SPEC §14). */
  ignoredChanges: RepoDiff['ignored'];
  /** The diff was too large to record whole: what was left out. */
  diffCut?: RepoDiff['cut'];
  /** Why no diff could be made (too many files, a walk past its time, an unreadable tree): the finding `diff-unavailable`. */
  diffError?: string;
  /** Planted paths removed or restored before the tests ran (caches, bytecode, shims: see `dropGradingHooks`). */
  dropped: string[];
  /** A grading failure the repo's state caused (hidden files that cannot be written): then `success` is false. */
  error?: string;
  /** The tests passed the task (SPEC §12 exit 0, or §14 per test), and nothing failed before they ran. */
  success: boolean;
  /** The trajectory's `tests` (SPEC §14): per listed id with its status, every parsed test, or the single `tests` entry. */
  tests: TestRunGrading['tests'];
  /** Why the tests did not pass, when their log says (the first offending id, the suite never ran, printed fake results). */
  reason?: string;
  /** The test command's result (output capped); null when the tests could not run (`error`). */
  run: CommandResult | null;
}

export { GRADING_ENV } from './runGradingTests.js';

/**
 * Grades a repo copy as SPEC §12 says, in this order:
 * 1. the agent's permission changes are undone (`restorePermissions`: a
 *    `chmod 000 tests` cannot make the episode ungraded);
 * 2. the diff of the agent's change against the task's repository is taken
 *    (hidden test paths excluded; capped; a tree that cannot be diffed is
 *    `diffError`, never a blank diff, and fails the grading: reward 0);
 * 3. planted caches, bytecode, dependency shims, package-manager configuration
 *    and runner shadows are dropped (`dropped`);
 * 4. the hidden files are written over the copy (a failure here, caused by what
 *    the agent left, is `error` and `success: false`: reward 0, never an ungraded episode);
 * 5. `tests.command` runs in the sandbox with the hidden files bound read-only
 *    (a planted test cannot rewrite them) and Python's bytecode sent to a fresh
 *    folder; success is exit 0 (a timeout is a failure).
 */
export async function gradeRepo(task: LeafTask & { repoDir: string }, repo: string, sandbox: Sandbox, opts: { timeoutMs: number; signal?: AbortSignal; envPaths?: { folders: readonly string[]; files: readonly string[] } }): Promise<Grading> {
  const hidden = task.tests.files ?? {};
  const patched = task.tests.patch !== undefined ? patchPaths(task.tests.patch) : [];
  const hiddenPaths = [...new Set([...Object.keys(hidden), ...patched])];
  // SPEC §14: the diff keeps the agent's edits of every path the repo had (test files too); only paths that
  // exist solely in files/patch are left out
  const hiddenOnly = hiddenPaths.filter((p) => !existsSync(join(task.repoDir, p)));
  // what cannot be restored (not this user's) is left: the diff and the hidden files then say so
  await restorePermissions(repo).catch(() => {});
  let diff = '';
  let changes: TreeChange[] = [];
  let ignoredChanges: RepoDiff['ignored'] = [];
  let diffCut: RepoDiff['cut'];
  let diffError: string | undefined;
  try {
    const d = await diffRepo(task.repoDir, repo, { exclude: hiddenOnly, signal: opts.signal, ignoredBy: await gitignoreOf(task.repoDir) });
    diff = d.diff;
    changes = d.changes;
    ignoredChanges = d.ignored;
    diffCut = d.cut;
  } catch (e) {
    if (!isFrognanoError(e)) throw e;
    diffError = e.message;
  }
  const dropped = await dropGradingHooks(task.repoDir, repo, changes, opts.envPaths);
  const out = (g: Omit<Grading, 'diff' | 'changes' | 'ignoredChanges' | 'dropped' | 'tests'> & { tests?: Grading['tests'] }): Grading => ({ diff, changes, ignoredChanges, dropped, tests: [{ name: 'tests', passed: false }], ...(diffCut ? { diffCut } : {}), ...(diffError !== undefined ? { diffError } : {}), ...g });
  // a tree that cannot be walked is the repo's state (SPEC §14: an oversized tree fails): without the list of
  // changes nothing planted could be dropped, so the tests are not even run
  if (diffError !== undefined) return out({ success: false, run: null, error: `the change could not be recorded, so it is not graded: ${diffError}` });
  let written: string[] = [];
  try {
    await writeHiddenFiles(repo, hidden, sandbox.owner);
    if (task.tests.patch !== undefined) written = await applyTestPatch(task.repoDir, repo, task.tests.patch);
  } catch (e) {
    if (isFrognanoError(e)) return out({ success: false, run: null, error: `${e.message} (the repo as the agent left it)` });
    const code = (e as NodeJS.ErrnoException).code;
    return out({ success: false, run: null, error: `the hidden test files could not be written into the repo copy (${code ?? (e as Error).message}): the agent left it so` });
  }
  if (sandbox.owner && written.length > 0) for (const p of written) await lchown(join(repo, p), sandbox.owner.uid, sandbox.owner.gid).catch(() => {});
  const readOnly = [...new Set([...Object.keys(hidden), ...written])];
  const g = await runGradingTests(task, repo, sandbox, { timeoutMs: opts.timeoutMs, signal: opts.signal, readOnly });
  return out({ success: g.success, tests: g.tests, run: g.run, ...(g.reason !== undefined ? { reason: g.reason } : {}), ...(g.error !== undefined ? { error: g.error } : {}) });
}
