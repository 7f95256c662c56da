import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { capOutput } from './capOutput.js';
import { copyTree } from './copyTree.js';
import { type ImportedImage, importImage } from './image/importImage.js';
import { ensureMountPoints, resolveInRoot, rootShell } from './rootfs.js';
import { type CommandResult, type RunOptions, type Sandbox, SANDBOX_REPO_ROOT } from './sandbox.js';
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
  if (root !== null) {
    ensureMountPoints(root, workdir, digest === null);
    rootShell(root);
  }
  const repoDir = task.repo !== undefined ? task.repoDir : repoInImage(task, root!, workdir);
  return { root, digest, workdir, env: { ...imageEnv, ...(e.env ?? {}) }, ...(e.setup !== undefined ? { setup: e.setup } : {}), repoDir };
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
