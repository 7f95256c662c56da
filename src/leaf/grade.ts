import { lstat, mkdir, open, rm, lchown } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { diffTrees } from './repoDiff.js';
import type { CommandResult, Sandbox } from './sandbox.js';
import type { LeafTask } from './task.js';

/**
 * Writes the hidden test files into the repo copy (SPEC §12), overwriting the
 * agent's edits of those paths. Every existing component on the way that is a
 * symbolic link or not a folder (something the agent planted) is removed first,
 * so a write can never be led outside the copy.
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
    const st = await lstat(target).catch(() => null);
    if (st && (st.isSymbolicLink() || !st.isFile())) await rm(target, { force: true, recursive: true });
    const fh = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
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
  /** Unified diff of the agent's change (hidden files excluded); `''` when it could not be taken (see `diffError`). */
  diff: string;
  /** Why the diff could not be taken (a tree the agent made unreadable); the tests ran all the same. */
  diffError?: string;
  /** `tests.command` exited 0. */
  success: boolean;
  /** The test command's result (output capped). */
  run: CommandResult;
}

/**
 * Grades a repo copy as SPEC §12 says: the diff of the agent's change against
 * the task's repository is taken first (hidden test paths excluded), then the
 * hidden files are written over the copy and `tests.command` runs in the
 * sandbox; success is exit 0 (a timeout is a failure).
 */
export async function gradeRepo(task: LeafTask & { repoDir: string }, repo: string, sandbox: Sandbox, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<Grading> {
  const hidden = task.tests.files ?? {};
  let diff = '';
  let diffError: string | undefined;
  try {
    diff = await diffTrees(task.repoDir, repo, { exclude: Object.keys(hidden) });
  } catch (e) {
    diffError = e instanceof Error ? e.message : String(e);
  }
  await writeHiddenFiles(repo, hidden, sandbox.owner);
  const run = await sandbox.run(repo, task.tests.command, { timeoutMs: opts.timeoutMs, signal: opts.signal });
  return { diff, success: run.exitCode === 0, run, ...(diffError !== undefined ? { diffError } : {}) };
}
