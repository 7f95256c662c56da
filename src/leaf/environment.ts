import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { capOutput } from './capOutput.js';
import { copyTree } from './copyTree.js';
import { type ImportedImage, importImage } from './image/importImage.js';
import { historyFreeRepo } from './imageRepo.js';
import { ensureMountPoints, resolveInRoot, rootShell } from './rootfs.js';
import { type CommandResult, type RunOptions, type Sandbox, SANDBOX_REPO_ROOT } from './sandbox.js';
import { WorkdirSchema } from './sandboxOptions.js';
import { GRADING_ENV } from './sandboxProcess.js';
import type { LoadedLeafTask } from './task.js';

// A task's `environment` (SPEC §14) made concrete: the image imported (or a root folder used in
// place), the variables layered, the workdir decided; and a Sandbox whose every call runs in it.

/** A task's environment, resolved. */
export interface ResolvedEnvironment {
  /** The root filesystem folder that is the sandbox's `/`; null: the host's system (a task without `image`). */
  root: string | null;
  /** `sha256:<manifest digest>` of an imported image; null for a plain root folder (or no image). */
  digest: string | null;
  /** Where the repo copy is mounted and commands start. */
  workdir: string;
  /** The image's `Env`, then the task's `env` (over frognano's defaults, which the sandbox sets). */
  env: Record<string, string>;
  /** The task's `environment.setup`, if any. */
  setup?: string;
  /** The task's repository folder: its `repo`, else the image's workdir folder. */
  repoDir: string;
}

/** What a rollout record says of the environment it ran in (SPEC §14): the image's digest (null for a plain folder or none) and the workdir. */
export interface EnvironmentRecord {
  image: string | null;
  workdir: string;
}

/** What the trajectory records of `environment.setup`. */
export interface SetupRecord {
  /** Exit code; null when killed (time limit). */
  exitCode: number | null;
  /** It hit its time limit. */
  timedOut: boolean;
  /** Its output (capped as a tool message is). */
  output: string;
  /** Wall time, seconds. */
  seconds: number;
}

const imports = new Map<string, Promise<ImportedImage>>();

/** The image at `source` imported into the cache, once per process and source. */
function importOnce(source: string, workdir: string | undefined): Promise<ImportedImage> {
  const key = `${source}\0${workdir ?? ''}`;
  let p = imports.get(key);
  if (p === undefined) {
    p = importImage(source, workdir === undefined ? {} : { workdir });
    p.catch(() => imports.delete(key)); // a failed import is tried again by the next task
    imports.set(key, p);
  }
  return p;
}

/** True when `path` is a folder without `oci-layout`: an unpacked root filesystem, used in place. */
function isPlainRoot(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true && !existsSync(join(path, 'oci-layout'));
}

/**
 * The repo folder inside the image at `root`: `workdir` resolved inside it (links followed inside the
 * image, never out of it to the host).
 * @throws FrognanoError `INVALID_TYPE` naming the task when there is no such folder
 */
function repoInImage(task: LoadedLeafTask, root: string, workdir: string): string {
  const dir = resolveInRoot(root, workdir);
  if (dir === null || !statSync(dir).isDirectory()) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `task ${task.id}: without repo, the repo is the image's workdir ${workdir}, which ${task.imagePath} does not hold as a folder`, { fn: 'resolveEnvironment', field: 'repo' });
  }
  return dir;
}

/**
 * Resolves a task's `environment` (SPEC §14): `image` (resolved against the tasks
 * file) that is a folder without `oci-layout` is a root filesystem used in place
 * (missing mount points are made when it is writable), any other is imported with
 * `importImage` into its content-addressed cache (once per process). `workdir` is the
 * task's, else the image config's `WorkingDir`, else `/repo`; `env` the image's `Env`
 * then the task's. Null for a task without `environment`.
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` (an image without bash, a mount point
 *   missing and not creatable), `INVALID_TYPE` (no repo folder), the importer's errors
 */
export async function resolveEnvironment(task: LoadedLeafTask): Promise<ResolvedEnvironment | null> {
  const e = task.environment;
  if (e === undefined) return null;
  let root: string | null = null;
  let digest: string | null = null;
  let imageEnv: Record<string, string> = {};
  let workdir = e.workdir;
  if (task.imagePath !== undefined) {
    if (isPlainRoot(task.imagePath)) root = task.imagePath;
    else {
      const img = await importOnce(task.imagePath, e.workdir);
      ({ root, digest } = img);
      imageEnv = img.config.env;
      workdir ??= img.config.workdir;
    }
  }
  workdir ??= SANDBOX_REPO_ROOT;
  // the image config's WorkingDir is the image's word, not checked by the task schema: an unusable one fails this task
  const wd = WorkdirSchema.safeParse(workdir);
  if (!wd.success) {
    throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `task ${task.id}: workdir ${JSON.stringify(workdir)}${e.workdir === undefined ? ' (the image\'s WorkingDir)' : ''} cannot hold the repo: ${wd.error.issues[0]?.message ?? 'invalid'}`, { fn: 'resolveEnvironment', field: 'environment.workdir' });
  }
  if (root !== null) {
    ensureMountPoints(root, workdir, digest === null);
    rootShell(root);
  }
  // the image's workdir as the repo: without the image's git history (which may hold the fix)
  const repoDir = task.repo !== undefined ? task.repoDir : await historyFreeRepo(repoInImage(task, root!, workdir));
  return { root, digest, workdir, env: { ...imageEnv, ...(e.env ?? {}) }, ...(e.setup !== undefined ? { setup: e.setup } : {}), repoDir };
}

// the shell-startup variables are dropped by the sandbox itself (sandboxProcess.ts), for every call
export { SHELL_STARTUP_VARIABLES, withoutShellStartup } from './sandboxProcess.js';

/** What of the repo copy the environment's variables make the system run at grading (see {@link repoPathsInEnv}). */
export interface RepoPathsInEnv {
  /** Repo-relative folders on `PATH` or `LD_LIBRARY_PATH` (`.` for the workdir itself). */
  folders: string[];
  /** Repo-relative files named by `LD_PRELOAD` or `PYTHONSTARTUP`. */
  files: string[];
}

/**
 * The repo paths that the environment's variables hand to the system (issue 22 review):
 * a `PATH` or `LD_LIBRARY_PATH` folder inside the workdir (`PATH=/testbed/bin:...`) makes
 * whatever the agent puts there the `sh` or `python3` that grading runs; an
 * `LD_PRELOAD` or `PYTHONSTARTUP` file inside it is loaded into every process. Grading
 * drops the agent's changes in these folders' own entries (not deeper: a lookup does
 * not recurse) and to these files, as it drops other grading hooks.
 */
export function repoPathsInEnv(env: ResolvedEnvironment | null): RepoPathsInEnv {
  const out: RepoPathsInEnv = { folders: [], files: [] };
  if (env === null) return out;
  const inRepo = (p: string): string | null => {
    const n = posix.normalize(p.trim());
    if (n === env.workdir) return '.';
    return n.startsWith(`${env.workdir}/`) ? n.slice(env.workdir.length + 1).replace(/\/+$/, '') : null;
  };
  for (const name of ['PATH', 'LD_LIBRARY_PATH']) {
    for (const p of (env.env[name] ?? '').split(':')) {
      const r = p === '' ? null : inRepo(p);
      if (r !== null && !out.folders.includes(r)) out.folders.push(r);
    }
  }
  for (const name of ['LD_PRELOAD', 'PYTHONSTARTUP']) {
    for (const p of (env.env[name] ?? '').split(name === 'LD_PRELOAD' ? /[\s:]+/ : /^$/)) {
      const r = p === '' ? null : inRepo(p);
      if (r !== null && r !== '.' && !out.files.includes(r)) out.files.push(r);
    }
  }
  return out;
}

/**
 * `sandbox` with every call run in `env`: over its root (`image`), the repo at its
 * `workdir`, with its variables. {@link GRADING_ENV} stays on top of the task's
 * variables in every call (bytecode never read from a planted cache, and the agent's
 * calls look like grading's), and a call's own `env` on top of all.
 */
export function environmentSandbox(sandbox: Sandbox, env: ResolvedEnvironment | null): Sandbox {
  if (env === null) return sandbox;
  const extra: Pick<RunOptions, 'image' | 'workdir'> = { workdir: env.workdir, ...(env.root !== null ? { image: env.root } : {}) };
  return {
    kind: sandbox.kind,
    options: sandbox.options,
    owner: sandbox.owner,
    run: (repo: string, command: string, r: RunOptions): Promise<CommandResult> => sandbox.run(repo, command, { ...r, ...extra, env: { ...env.env, ...GRADING_ENV, ...(r.env ?? {}) } }),
  };
}

/** The rollout record's `environment` of a task run in `env`. */
export function environmentRecord(env: ResolvedEnvironment): EnvironmentRecord {
  return { image: env.digest, workdir: env.workdir };
}

/**
 * Runs `environment.setup` once in the fresh repo copy `repo` (no network, the
 * task's sandbox: `sandbox` is {@link environmentSandbox}'s). Null without setup.
 */
export async function runSetup(sandbox: Sandbox, repo: string, env: ResolvedEnvironment | null, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<SetupRecord | null> {
  if (env?.setup === undefined) return null;
  const r = await sandbox.run(repo, env.setup, { timeoutMs: opts.timeoutMs, signal: opts.signal });
  return { exitCode: r.exitCode, timedOut: r.timedOut, output: capOutput(r.output, sandbox.options?.maxOutputChars ?? 30_000).text, seconds: r.durationMs / 1000 };
}

/** Why a setup failed, for an error record or an invalid task: its exit and the tail of its output. Null when it passed. */
export function setupFailure(s: SetupRecord | null): string | null {
  if (s === null || s.exitCode === 0) return null;
  const how = s.timedOut ? 'timed out' : s.exitCode === null ? 'was killed' : `exited ${s.exitCode}`;
  const out = s.output.trim();
  return `environment.setup ${how}${out === '' ? '' : `: ${out.length > 2000 ? `...${out.slice(-2000)}` : out}`}`;
}

/** A copy of the repo as `environment.setup` left it (see {@link snapshotAfterSetup}). */
export interface SetupSnapshot {
  /** The copy: the base of the agent's diff. */
  dir: string;
  dispose(): Promise<void>;
}

/**
 * After a setup that passed: copies the repo as it left it into a new folder under
 * `parent` (default the OS temporary folder), so that grading diffs the agent's work
 * against it, not against the task's repo (what setup made, an egg-info or a build,
 * is not the agent's change). Null without a setup.
 */
export async function snapshotAfterSetup(repo: string, setup: SetupRecord | null, parent?: string): Promise<SetupSnapshot | null> {
  if (setup === null || setup.exitCode !== 0) return null;
  const holder = await mkdtemp(join(parent ?? tmpdir(), 'frognano-setup-'));
  const dir = join(holder, 'repo');
  try {
    await copyTree(repo, dir);
  } catch (e) {
    await rm(holder, { recursive: true, force: true });
    throw e;
  }
  return { dir, dispose: () => rm(holder, { recursive: true, force: true }) };
}
