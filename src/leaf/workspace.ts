import { chmod, lchown, mkdtemp, readdir, realpath, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { copyTree } from './copyTree.js';
import { restorePermissions } from './restorePermissions.js';

/** A fresh copy of a task's repository for one episode (or one validation run). */
export interface Workspace {
  /** The episode's private folder (holds `repo/`). */
  readonly dir: string;
  /** The repository copy: the sandbox's `/repo`, the only place the agent can change. */
  readonly repo: string;
  /** Bytes the folder may hold in all (a size-limited tmpfs), or null when uncapped (frognano is not root, or the mount was refused). */
  readonly capBytes: number | null;
  /** Removes the folder and everything in it (idempotent), whatever the agent did to its permissions. */
  dispose(): Promise<void>;
}

/** Options of {@link createWorkspace}. */
export interface WorkspaceOptions {
  /** The owner to give the copy (`Sandbox.owner`), or null. */
  owner?: { uid: number; gid: number } | null;
  /** Folder the workspace is made in. Default the OS temporary folder. */
  parent?: string;
  /** How far the copy may grow beyond the repository, MiB (`SandboxOptions.repoMB`); absent: uncapped. */
  repoMB?: number;
}

/** Gives every file and folder below `root` (itself included) to `owner`, links included (not followed). */
export async function chownTree(root: string, owner: { uid: number; gid: number }): Promise<void> {
  await lchown(root, owner.uid, owner.gid);
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    await lchown(join(e.parentPath, e.name), owner.uid, owner.gid);
  }
}

/** Runs a program to its end without blocking the event loop; resolves with its exit code and stderr. */
function runTool(file: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 4096) stderr += b.toString('utf8');
    });
    child.on('error', (e) => resolve({ code: null, stderr: e.message }));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** One figure of `du -s` over a tree (`-B1`: allocated bytes, what a tmpfs charges; `--inodes`: entries), or null when du fails. */
async function duFigure(dir: string, flag: '-B1' | '--inodes'): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn('du', ['-s', flag, '--', dir], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    child.on('error', () => resolve(null));
    child.on('close', (code) => {
      const n = Number.parseInt(out, 10);
      resolve(code === 0 && Number.isFinite(n) ? n : null);
    });
  });
}

/** Entries the repo copy may hold beyond the repository's own: empty files cost no bytes but kernel memory each. */
const EXTRA_INODES = 200_000;

/**
 * Mounts a size-limited tmpfs on `dir` (root only): the deterministic cap of the
 * repo copy (SPEC §12). Returns the size in bytes, or null when not root or the
 * kernel refused (a container without CAP_SYS_ADMIN): then the copy is uncapped.
 */
async function mountCap(dir: string, bytes: number, inodes: number): Promise<number | null> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const size = Math.ceil(bytes / 4096) * 4096;
  const r = await runTool('mount', ['-t', 'tmpfs', '-o', `size=${size},nr_inodes=${Math.ceil(inodes)},mode=0700,nosuid,nodev`, 'frognano-leaf', dir]);
  return r.code === 0 ? size : null;
}

/**
 * Copies `sourceRepo` into a new private temporary folder (`<tmp>/frognano-leaf-XXXX/repo`)
 * with {@link copyTree}: symbolic links copied as links (never followed), regular files
 * with their mode bits, folders; sockets, FIFOs and devices skipped. Hands it to `owner` when
 * given (the unprivileged user the sandbox runs as when frognano runs as root).
 * The task's own folder is never touched: every episode works on its own copy.
 *
 * With `repoMB`, when frognano runs as root, the folder is a tmpfs of the
 * repository's size (allocated blocks, plus 10% and 1 MiB) plus `repoMB`, and of
 * the repository's entries (plus 10% and 200,000): a write past either fails with
 * ENOSPC inside the sandbox, so no episode can fill the host's disk, nor its
 * kernel memory with empty files (issue 20 #2). A normal user cannot mount; the copy is then on
 * the temporary folder's file system, uncapped (`capBytes: null`).
 *
 * @param sourceRepo - the task's `repo` folder
 */
export async function createWorkspace(sourceRepo: string, opts: WorkspaceOptions = {}): Promise<Workspace> {
  const owner = opts.owner ?? null;
  // a repo that is a symbolic link is copied as its target's content, never as the link
  // (a copied link would let every episode work on, and chown, the original folder)
  const source = await realpath(sourceRepo);
  if (!(await stat(source)).isDirectory()) throw new Error(`createWorkspace: ${sourceRepo} is not a folder`);
  const dir = await mkdtemp(join(opts.parent ?? tmpdir(), 'frognano-leaf-'));
  const repo = join(dir, 'repo');
  let capBytes: number | null = null;
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    // an agent's chmod 000 must not keep the copy on disk
    await restorePermissions(dir).catch(() => {});
    if (capBytes !== null) {
      // the tmpfs holds the whole copy: unmounting frees it at once (lazily, should anything still hold it)
      await runTool('umount', ['-l', dir]);
      await rmdir(dir).catch(() => runTool('rm', ['-rf', '--', dir]));
      return;
    }
    try {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // a tree Node cannot remove (paths past PATH_MAX): rm works relative to each folder
      await runTool('rm', ['-rf', '--', dir]);
    }
  };
  try {
    if (opts.repoMB !== undefined) {
      const [used, entries] = await Promise.all([duFigure(source, '-B1'), duFigure(source, '--inodes')]);
      if (used !== null && entries !== null) capBytes = await mountCap(dir, used * 1.1 + (1 + opts.repoMB) * 1024 * 1024, entries * 1.1 + EXTRA_INODES);
    }
    // a parallel in-process copy (issue 21): a bounded pool of copyFile(COPYFILE_FICLONE), so
    // reflinks where the file system has them, else copy_file_range in the kernel; links verbatim,
    // modes kept, sockets / FIFOs / devices skipped, and each entry chowned to the sandbox user as
    // it is made (no second walk). As fast as a spawned GNU `cp -a` on a tmpfs (docs/leaf.md,
    // Speed), without its owner and time preservation, and the same on every platform.
    await copyTree(source, repo, { owner });
    if (owner) {
      // the sandbox user must reach repo/ through the private folder (kept closed to other users), and own the copy
      await lchown(dir, owner.uid, owner.gid);
      await chmod(dir, 0o700);
    }
  } catch (e) {
    await dispose();
    throw e;
  }
  return { dir, repo, capBytes, dispose };
}
