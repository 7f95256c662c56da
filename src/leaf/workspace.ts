import { chmod, cp, lchown, mkdtemp, readdir, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** A fresh copy of a task's repository for one episode (or one validation run). */
export interface Workspace {
  /** The episode's private folder (holds `repo/`). */
  readonly dir: string;
  /** The repository copy: the sandbox's `/repo`, the only place the agent can change. */
  readonly repo: string;
  /** Removes the folder and everything in it (idempotent). */
  dispose(): Promise<void>;
}

/** Gives every file and folder below `root` (itself included) to `owner`, links included (not followed). */
export async function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    await lchown(join(e.parentPath, e.name), owner.uid, owner.gid);
  }
}

/**
 * Copies `sourceRepo` into a new private temporary folder (`<tmp>/frognano-leaf-XXXX/repo`),
 * symbolic links copied as links (never followed), and hands it to `owner` when
 * given (the unprivileged user the sandbox runs as when frognano runs as root).
 * The task's own folder is never touched: every episode works on its own copy.
 *
 * @param sourceRepo - the task's `repo` folder
 * @param owner - `{ uid, gid }` to chown the copy to, or null
 */
export async function createWorkspace(sourceRepo: string, owner: { uid: number; gid: number } | null = null, parent = tmpdir()): Promise<Workspace> {
  // a repo that is a symbolic link is copied as its target's content, never as the link
  // (a copied link would let every episode work on, and chown, the original folder)
  const source = await realpath(sourceRepo);
  if (!(await stat(source)).isDirectory()) throw new Error(`createWorkspace: ${sourceRepo} is not a folder`);
  const dir = await mkdtemp(join(parent, 'frognano-leaf-'));
  const repo = join(dir, 'repo');
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    try {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // a tree Node cannot remove (paths past PATH_MAX): rm works relative to each folder
      spawnSync('rm', ['-rf', '--', dir], { stdio: 'ignore' });
    }
  };
  try {
    await cp(source, repo, { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: false });
    if (owner) {
      // the sandbox user must reach repo/ through the private folder (kept closed to other users), and own the copy
      await lchown(dir, owner.uid, owner.gid);
      await chmod(dir, 0o700);
      await chownTree(repo, owner);
    }
  } catch (e) {
    await dispose();
    throw e;
  }
  return { dir, repo, dispose };
}
