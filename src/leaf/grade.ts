import { lstat, mkdir, open, rm, lchown } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { isFrognanoError } from '../errors/FrognanoError.js';
import { dropGradingHooks } from './gradingHooks.js';
import { diffRepo, type RepoDiff, type TreeChange } from './repoDiff.js';
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
  /** The diff was too large to record whole: what was left out. */
  diffCut?: RepoDiff['cut'];
  /** Why no diff could be made (too many files, a walk past its time, an unreadable tree): the finding `diff-unavailable`. */
  diffError?: string;
  /** Planted paths removed or restored before the tests ran (caches, bytecode, shims: see `dropGradingHooks`). */
  dropped: string[];
  /** A grading failure the repo's state caused (hidden files that cannot be written): then `success` is false. */
  error?: string;
  /** `tests.command` exited 0 (and nothing failed before it ran). */
  success: boolean;
  /** The test command's result (output capped); null when the tests could not run (`error`). */
  run: CommandResult | null;
}

/** Where Python's bytecode goes during grading: a fresh folder of the call's private /tmp, so no planted `.pyc` is ever read (`-B` alone does not stop that). */
export const GRADING_ENV: Readonly<Record<string, string>> = Object.freeze({ PYTHONPYCACHEPREFIX: '/tmp/.leaf-pycache', PYTHONDONTWRITEBYTECODE: '1' });

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
export async function gradeRepo(task: LeafTask & { repoDir: string }, repo: string, sandbox: Sandbox, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<Grading> {
  const hidden = task.tests.files ?? {};
  const hiddenPaths = Object.keys(hidden);
  // what cannot be restored (not this user's) is left: the diff and the hidden files then say so
  await restorePermissions(repo).catch(() => {});
  let diff = '';
  let changes: TreeChange[] = [];
  let diffCut: RepoDiff['cut'];
  let diffError: string | undefined;
  try {
    const d = await diffRepo(task.repoDir, repo, { exclude: hiddenPaths, signal: opts.signal });
    diff = d.diff;
    changes = d.changes;
    diffCut = d.cut;
  } catch (e) {
    if (!isFrognanoError(e)) throw e;
    diffError = e.message;
  }
  const dropped = await dropGradingHooks(task.repoDir, repo, changes);
  const out = (g: Omit<Grading, 'diff' | 'changes' | 'dropped'>): Grading => ({ diff, changes, dropped, ...(diffCut ? { diffCut } : {}), ...(diffError !== undefined ? { diffError } : {}), ...g });
  // a tree that cannot be walked is the repo's state (SPEC §14: an oversized tree fails): without the list of
  // changes nothing planted could be dropped, so the tests are not even run
  if (diffError !== undefined) return out({ success: false, run: null, error: `the change could not be recorded, so it is not graded: ${diffError}` });
  try {
    await writeHiddenFiles(repo, hidden, sandbox.owner);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return out({ success: false, run: null, error: `the hidden test files could not be written into the repo copy (${code ?? (e as Error).message}): the agent left it so` });
  }
  const run = await sandbox.run(repo, task.tests.command, { timeoutMs: opts.timeoutMs, signal: opts.signal, readOnly: hiddenPaths, env: { ...GRADING_ENV } });
  return out({ success: run.exitCode === 0, run });
}
