import { chmod, cp, lchown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
  const dir = await mkdtemp(join(parent, 'frognano-leaf-'));
  const repo = join(dir, 'repo');
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    await cp(sourceRepo, repo, { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: false });
    if (owner) {
      // the sandbox user must reach repo/ through the private folder, and own the copy
      await chmod(dir, 0o711);
      await chownTree(repo, owner);
    }
  } catch (e) {
    await dispose();
    throw e;
  }
  return { dir, repo, dispose };
}
