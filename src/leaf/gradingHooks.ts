import { lstatSync, type Stats } from 'node:fs';
import { copyFile, lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { changeLayout, isGradingHookPath } from '../judges/gradingHookPaths.js';

/**
 * What the grader removes from an episode's repo copy before the tests run
 * (SPEC §12: "grading sees the agent's change to the task and nothing else it
 * left behind"; issue 20 #5). Each of these acts when the tests run instead of
 * fixing the code, and none is part of an honest fix: bytecode (`*.pyc`,
 * `__pycache__/`: an unchecked-hash `.pyc` is imported instead of the hidden
 * `.py` that grading wrote), dependency shims (anything under `node_modules/`),
 * package-manager configuration (`.npmrc` with `script-shell`), and modules
 * shadowing the test runner or the standard library from a `sys.path` root
 * (`pytest.py`, `unittest/__main__.py`, `sitecustomize.py`; under `python3 -m`
 * the current folder comes first on `sys.path`).
 *
 * Paths the repository itself had are restored to the snapshot's version
 * (changed or deleted ones copied back), so a task whose snapshot ships a
 * `node_modules` keeps it as it was; added ones are removed. The rule funnel
 * reports every dropped path as `grading-hook` (`grading.dropped`).
 */

/** One change of the repo copy against the snapshot: a `TreeChange` of `diffRepo`. */
export interface PathChange {
  /** The relative path's bytes (a name need not be UTF-8). */
  raw: Buffer;
  /** What happened to it. */
  status: 'added' | 'modified' | 'deleted' | 'type-changed';
}

/** `root/rel` as bytes: a file-system path for any name. */
const under = (root: string, rel: Buffer): Buffer => Buffer.concat([Buffer.from(`${root}/`), rel]);

/**
 * Makes every folder on the way to `rel` (its parents, inside the copy) a real
 * folder: a component that is a symbolic link or not a folder (something the
 * agent planted: `pkg -> /etc`) is removed (the link itself, never its target)
 * and made a folder. Nothing below can then be led outside the copy.
 */
async function realParents(repo: string, rel: Buffer): Promise<void> {
  for (let i = rel.indexOf(0x2f); i > 0; i = rel.indexOf(0x2f, i + 1)) {
    const dir = under(repo, rel.subarray(0, i));
    const st = await lstat(dir).catch(() => null);
    if (st?.isDirectory()) continue;
    if (st) await rm(dir, { force: true });
    await mkdir(dir);
  }
}

/** Copies one entry (file or link) of the snapshot back over the copy, its parents made real folders first. */
async function restoreEntry(snapshot: string, repo: string, rel: Buffer): Promise<void> {
  const from = under(snapshot, rel);
  const to = under(repo, rel);
  await realParents(repo, rel);
  await rm(to, { recursive: true, force: true });
  const st = await lstat(from);
  if (st.isSymbolicLink()) await symlink(await readlink(from, { encoding: 'buffer' }), to);
  else await copyFile(from, to);
}

/**
 * Puts one path of the copy back as the snapshot has it: the snapshot's file or
 * link copied over it, or the path removed when the snapshot has none; its
 * parents are made real folders first (nothing can lead outside the copy).
 * Used before `tests.patch` applies (SPEC §14: every path it touches restored).
 */
export async function restoreFromSnapshot(snapshot: string, repo: string, rel: string): Promise<void> {
  const raw = Buffer.from(rel);
  if (lstatSyncOrNull(under(snapshot, raw))) return restoreEntry(snapshot, repo, raw);
  await realParents(repo, raw);
  await rm(under(repo, raw), { recursive: true, force: true });
}

/** lstat without following or throwing: null when absent. */
function lstatSyncOrNull(p: Buffer): Stats | null {
  return lstatSync(p, { throwIfNoEntry: false }) ?? null;
}

/** A direct entry of a folder the environment's `PATH` / `LD_LIBRARY_PATH` names, or a file its `LD_PRELOAD` / `PYTHONSTARTUP` names (repo-relative). */
function onEnvPath(path: string, envPaths: { folders: readonly string[]; files: readonly string[] }): boolean {
  const slash = path.lastIndexOf('/');
  const parent = slash < 0 ? '.' : path.slice(0, slash);
  return envPaths.folders.includes(parent) || envPaths.files.includes(path);
}

/**
 * Removes (or restores to the snapshot) every changed path of the copy that the
 * rule funnel's `grading-hook` path rule names (`isGradingHookPath`: one
 * definition of what is planted, for the grader and the detector alike), and
 * returns those paths in order; also, with `envPaths` (the repo folders and files the
 * environment's variables hand to the system: `repoPathsInEnv`), each changed direct
 * entry of such a folder and each such file (a planted `bin/sh` on `PATH=/testbed/bin`).
 * A path Node cannot reach (deeper than PATH_MAX)
 * is left: no interpreter imports from there either.
 */
export async function dropGradingHooks(snapshot: string, repo: string, changes: readonly PathChange[], envPaths: { folders: readonly string[]; files: readonly string[] } = { folders: [], files: [] }): Promise<string[]> {
  // the rules read the decoded path (an undecodable byte becomes U+FFFD, the folders stay as they are);
  // the file system is reached by the raw bytes
  const named = changes.map((c) => ({ ...c, path: c.raw.toString('utf8') }));
  const layout = changeLayout(named.filter((c) => c.status !== 'deleted').map((c) => c.path));
  const dropped: string[] = [];
  for (const c of named) {
    if (!isGradingHookPath(c.path, c.status === 'added', layout) && !onEnvPath(c.path, envPaths)) continue;
    try {
      if (c.status === 'added') {
        // an added path lies below real folders of the copy as the walk saw it (no agent process runs since); checked all the same
        await realParents(repo, c.raw);
        await rm(under(repo, c.raw), { recursive: true, force: true });
      }
      else await restoreEntry(snapshot, repo, c.raw);
      dropped.push(c.path);
    } catch {
      // unreachable path: left as it is (see above)
    }
  }
  return dropped;
}
