import { lstatSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join, posix } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { canDisableUserns, checkBind, extraBinds, findBwrap, MISSING_BWRAP, nodeBinds, procViews, systemBinds } from './bwrap.js';
import { type ResolvedSandboxOptions, type RunOptions, RunOptionsSchema, type SandboxOptions, SandboxOptionsSchema } from './sandboxOptions.js';
import { checkReachable, ensureMountPoints, isRootFolder, rootShell } from './rootfs.js';
import { type CommandResult, GRADING_ENV, runProcess, SANDBOX_PATH, withoutShellStartup } from './sandboxProcess.js';

// the sandbox's options, result and bwrap lookup, where its users (webjudge, the test helpers) import them from
export { findBwrap } from './bwrap.js';
export { SandboxOptionsSchema, type RunOptions, type SandboxOptions } from './sandboxOptions.js';
export type { CommandResult } from './sandboxProcess.js';

/** Where the episode's repository copy appears inside the sandbox (the agent's working directory). */
export const SANDBOX_REPO_ROOT = '/repo';

/** Runs shell commands in a repository copy, isolated (bubblewrap) unless created unsafe. */
export interface Sandbox {
  /** `'bwrap'` or `'none'` (unsafe). */
  readonly kind: 'bwrap' | 'none';
  /** The limits in force. */
  readonly options: ResolvedSandboxOptions;
  /**
   * The owner the repo copy must have for the sandbox to write it (`{ uid, gid }`
   * when frognano runs as root and the sandbox drops to an unprivileged user), or null.
   */
  readonly owner: { uid: number; gid: number } | null;
  /** Runs `bash -c command` with `hostRepo` as the working directory (`/repo` inside, or `opts.workdir`; over `opts.image` when given). */
  run(hostRepo: string, command: string, opts: RunOptions): Promise<CommandResult>;
}

/** A {@link Sandbox} option (`sandbox` of `runEpisode`, `validateLeafTask`): any object with a `run` method. @internal */
export const SandboxSchema = z.custom<Sandbox>((v) => typeof v === 'object' && v !== null && typeof (v as Sandbox).run === 'function', 'must be a Sandbox (createSandbox())');

let callCounter = 0;

/**
 * Creates the Leaf sandbox (FrogNano §2; SPEC §12): every bash call and every
 * grading run of an episode goes through it.
 *
 * With bubblewrap (the default), each command runs as `bash -c` in fresh
 * namespaces (`--unshare-all` plus an explicit `--unshare-user` with
 * `--disable-userns` on bwrap 0.8+, so no nested user namespace: user, pid,
 * network, ipc, uts, cgroup), with `--die-with-parent` and `--new-session`:
 * - `/` and `/dev` are read-only; the system part is the host's `/usr`, `/etc`
 *   and the `/bin`, `/lib*` links (plus `readOnlyPaths`, and the running node
 *   with npm when it lives outside /usr: the executable and its packages only,
 *   never its whole prefix); a bind that is or contains the home folder or a
 *   `protectedPaths` entry is refused;
 * - `/tmp`, `/var/tmp` and `/dev/shm` are fresh tmpfs of `tmpMB` each per command;
 *   `/proc` is the sandbox's own, with fixed views of the host-wide counters
 *   `/proc/loadavg`, `/proc/meminfo`, `/proc/stat` and `/proc/vmstat` (a covert
 *   channel between concurrent episodes otherwise);
 * - the repository copy is bound read-write at {@link SANDBOX_REPO_ROOT}, the only
 *   writable place that persists between commands (its size is capped by the
 *   workspace: `repoMB`); `readOnly` paths of a call are bound read-only over it;
 * - the network namespace is empty (loopback only, the sandbox's own): no host
 *   service, not even on 127.0.0.1, is reachable;
 * - the environment is cleared (`PATH`, `HOME=/tmp`, `LANG`, `PYTHONDONTWRITEBYTECODE`
 *   and `env` only): API keys of the host never enter; no descriptor of frognano's
 *   process but 0-2 reaches the command (the preamble closes every other one);
 * - `ulimit -v` (memory), `-u` (`maxProcesses`, one fixed number: the call's user
 *   namespace counts its own processes), `-n` (`maxOpenFiles`), `-f` (file size) apply;
 *   run as root, frognano starts bwrap as `uid`/`gid` (nobody) so that the
 *   process limit holds (the kernel never applies it to root);
 * - when the command exits, its pid namespace ends and every process it left in
 *   the background is killed; after every call, whatever is still in the call's
 *   pid namespace (a process that detached bwrap's init from its parent, say) is
 *   killed too, so nothing of the agent runs between calls; at `timeoutMs`, on abort, or past
 *   `killAfterOutputBytes` of output, the whole tree is killed (SIGKILL; a
 *   process ignoring SIGTERM cannot outlive it);
 * - what bwrap itself says on stderr after the sandbox started (a bind that
 *   failed) is appended to the output, so it reaches the tool message.
 * With `RunOptions.image` (a task's `environment.image`, SPEC §14) the image's root
 * folder is `/`, read-only, instead of the host's system part (no node or
 * `readOnlyPaths` binds); it must hold bash and the mount points (see `rootfs.ts`);
 * `RunOptions.workdir` moves the repo copy's mount and the working directory from `/repo`.
 * Every other rule above holds the same.
 * No seccomp filter is installed: every system call the namespaces allow stays
 * allowed (see docs/leaf.md, "Threat model").
 *
 * Without bubblewrap it throws `SANDBOX_UNAVAILABLE` naming the package, unless
 * `unsafeNoSandbox` is set (then: a plain `bash -c` in its own process group,
 * killed as a group; no isolation at all).
 *
 * @throws FrognanoError `SANDBOX_UNAVAILABLE` (bwrap missing, or it cannot create
 *   namespaces here: see the message), `INVALID_TYPE` / `OUT_OF_RANGE` for bad options
 *   (`run` rejects the same way for bad per-command options, {@link RunOptions})
 * @example
 * const sandbox = createSandbox();
 * const r = await sandbox.run('/tmp/episode/repo', 'python3 -m pytest -q', { timeoutMs: 120_000 });
 */
export function createSandbox(opts?: SandboxOptions): Sandbox {
  const fn = 'createSandbox';
  const o = parseOptions(fn, SandboxOptionsSchema, opts);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (o.unsafeNoSandbox) {
    return {
      kind: 'none',
      options: o,
      owner: null,
      run: async (repo, command, r) => {
        const ro = parseRunOptions(r);
        if (ro.image !== undefined) throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `a task with an environment image (${ro.image}) needs the bubblewrap sandbox: the unsafe mode runs on the host's system`, { fn: 'sandbox.run', field: 'image' });
        return runProcess('bash', ['-c', wrapper(o), 'leaf-sandbox', command], repo, o, ro, undefined, undefined);
      },
    };
  }
  const bwrap = findBwrap(o.bwrapPath);
  if (bwrap === null) throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, MISSING_BWRAP, { fn });
  const owner = isRoot ? { uid: o.uid, gid: o.gid } : null;
  const uid = owner ? owner.uid : typeof process.getuid === 'function' ? process.getuid() : 0;
  const protectedPaths = [{ path: homedir(), what: 'the home folder' }, ...o.protectedPaths.map((p) => ({ path: p, what: 'a protected path (tasks file or workspace folder)' }))];
  const hostBase = hostRootArgs(o, bwrap, protectedPaths);
  const imageBases = new Map<string, { base: string[]; shell: string }>();
  /** The (image, workdir) pairs whose mount points were checked. */
  const mountChecked = new Set<string>();
  /**
   * The namespace, root and environment part of a call over `image` (checked and made once per image);
   * its mount points (`/proc`, `/dev`, `/tmp`, `workdir`) checked, never created, once per (image, workdir):
   * a direct call must not silently lose its /tmp to a link in the image.
   */
  const imageBase = (image: string, workdir: string): { base: string[]; shell: string } => {
    let b = imageBases.get(image);
    if (b === undefined) {
      checkBind(image, protectedPaths);
      if (owner) checkReachable(image, owner);
      b = { base: imageRootArgs(o, bwrap, image), shell: rootShell(image) };
      imageBases.set(image, b);
    }
    const key = `${image}\0${workdir}`;
    if (!mountChecked.has(key)) {
      ensureMountPoints(image, workdir, false);
      mountChecked.add(key);
    }
    return b;
  };
  // fixed views of host-wide counters, one pipe each (fds 4, 5, ...: see runProcess)
  const views = Object.entries(procViews(o.memoryMB, Math.max(1, availableParallelism())));
  return {
    kind: 'bwrap',
    options: o,
    owner,
    async run(hostRepo, command, r) {
      const ro = parseRunOptions(r);
      const workdir = ro.workdir ?? SANDBOX_REPO_ROOT;
      const { base, shell } = ro.image === undefined ? { base: hostBase, shell: '/bin/bash' } : imageBase(ro.image, workdir);
      // a token naming this call in the argv: a kill finds every process of the call by it (see runProcess)
      const token = `leaf-call-${process.pid}-${++callCounter}-${Math.random().toString(36).slice(2, 10)}`;
      const args = [...base, '--setenv', 'LEAF_CALL', token];
      for (const [k, v] of Object.entries(withoutShellStartup(ro.env ?? {}))) args.push('--setenv', k, v);
      args.push('--bind', hostRepo, workdir);
      args.push(...readOnlyBinds(hostRepo, ro.readOnly ?? [], workdir));
      views.forEach(([dest], i) => args.push('--ro-bind-data', String(4 + i), dest));
      args.push('--remount-ro', '/dev', '--remount-ro', '/', '--chdir', workdir, '--', shell, '-c', wrapper(o), 'leaf-sandbox', command);
      return runProcess(bwrap, args, hostRepo, o, ro, owner ?? undefined, { token, uid, data: views.map(([, text]) => text) });
    },
  };
}

/** The start of every bwrap call: fresh namespaces (no nested user namespace where bwrap can refuse it), no capabilities. */
function namespaceArgs(bwrap: string): string[] {
  // --unshare-user with --disable-userns: no nested user namespace (a way to regain capabilities and mount) where bwrap can refuse it
  const userns = canDisableUserns(bwrap) ? ['--unshare-user', '--disable-userns'] : [];
  return ['--unshare-all', ...userns, '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'leaf'];
}

/** `/proc`, `/dev` and the capped tmpfs of every call (`/var/tmp` only where the root has the folder); `/dev` and `/` are remounted read-only per call. */
function scratchArgs(o: ResolvedSandboxOptions, varTmp: boolean): string[] {
  const tmp = String(o.tmpMB * 1024 * 1024);
  return ['--proc', '/proc', '--dev', '/dev', '--size', tmp, '--tmpfs', '/tmp', ...(varTmp ? ['--size', tmp, '--tmpfs', '/var/tmp'] : []), '--size', tmp, '--tmpfs', '/dev/shm'];
}

/** The cleared environment: frognano's defaults (`path` as PATH, {@link GRADING_ENV}), then the sandbox's `env`. */
function envArgs(o: ResolvedSandboxOptions, path: string): string[] {
  const env: Record<string, string> = {
    PATH: path,
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    // as at grading, so that code cannot tell the grading run from the agent's own by its environment
    ...GRADING_ENV,
    ...withoutShellStartup(o.env),
  };
  return ['--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v])];
}

/** The part of every call over the host's system: its `/usr`, `/etc`, `/bin`, `/lib*` read-only, `readOnlyPaths` and node (checked against `protectedPaths`). */
function hostRootArgs(o: ResolvedSandboxOptions, bwrap: string, protectedPaths: readonly { path: string; what: string }[]): string[] {
  const extra = [...o.readOnlyPaths];
  const node = nodeBinds();
  let path = SANDBOX_PATH;
  if (node !== null) {
    extra.push(...node.binds);
    path = `${node.binDir}:${path}`;
  }
  for (const p of extra) checkBind(p, protectedPaths);
  const base = [...namespaceArgs(bwrap), ...systemBinds(), ...scratchArgs(o, true)];
  // the extra binds after the tmpfs, so that one under /tmp is not hidden by the private /tmp
  base.push(...extraBinds(extra));
  for (const [target, link] of node?.links ?? []) base.push('--symlink', target, link);
  return [...base, ...envArgs(o, path)];
}

/**
 * The part of every call over an image (SPEC §14): the image's root read-only as `/`,
 * nothing of the host's system (no `/usr`, `/etc`, node or `readOnlyPaths`), the
 * usual PATH unless the image's or task's `env` (a call's `env`) sets one.
 */
function imageRootArgs(o: ResolvedSandboxOptions, bwrap: string, image: string): string[] {
  return [...namespaceArgs(bwrap), '--ro-bind', image, '/', ...scratchArgs(o, isRootFolder(image, '/var/tmp')), ...envArgs(o, SANDBOX_PATH)];
}

/**
 * The binds that keep `paths` (relative to the repo; regular files only) as they
 * are for one call: each file bound read-only over itself, and first every folder
 * on the way to one bound over itself, so that it is a mount point (a mount point
 * cannot be renamed or removed: `mv tests tests_old; mkdir tests` fails with EBUSY).
 */
function readOnlyBinds(hostRepo: string, paths: readonly string[], workdir: string): string[] {
  const files = paths.map((p) => posix.normalize(p)).filter((p) => !p.startsWith('..') && lstatSync(join(hostRepo, p), { throwIfNoEntry: false })?.isFile());
  const dirs = new Set<string>();
  for (const f of files) for (let d = posix.dirname(f); d !== '.' && d !== '/'; d = posix.dirname(d)) dirs.add(d);
  const args: string[] = [];
  // parents before children: a deeper bind goes on top of the folder bound before it
  for (const d of [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1))) args.push('--bind', join(hostRepo, d), posix.join(workdir, d));
  for (const f of files) args.push('--ro-bind', join(hostRepo, f), posix.join(workdir, f));
  return args;
}

/** Checks the per-command options of `Sandbox.run` (a bad one rejects the call with `INVALID_TYPE` / `OUT_OF_RANGE` naming `opts.<field>`). */
function parseRunOptions(r: RunOptions): RunOptions {
  return parseOptions('sandbox.run', RunOptionsSchema, r);
}

/**
 * The in-sandbox preamble: limits, every inherited descriptor above 2 closed
 * (node marks only its own close-on-exec; a descriptor the caller of frognano
 * left open would reach the host's files: issue 20 #1), stderr onto stdout,
 * then the command. `ulimit -f` counts 1024-byte blocks in bash.
 */
function wrapper(o: ResolvedSandboxOptions): string {
  const limits = [`ulimit -v ${o.memoryMB * 1024}`, `ulimit -f ${o.maxFileMB * 1024}`, `ulimit -u ${o.maxProcesses}`, `ulimit -n ${o.maxOpenFiles}`];
  const closeFds = 'for __leaf_fd in /proc/self/fd/*; do __leaf_fd=${__leaf_fd##*/}; [ "$__leaf_fd" -gt 2 ] && exec {__leaf_fd}>&-; done; unset __leaf_fd';
  // the command runs in this shell (eval), not a second bash: one process start less per call
  return `${limits.join('; ')}; ${closeFds}; exec 2>&1 </dev/null; __leaf_cmd=$1; set --; eval "$__leaf_cmd"`;
}
