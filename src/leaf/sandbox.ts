import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { findBwrap, MISSING_BWRAP, nodePrefix, systemBinds } from './bwrap.js';
import { processCount } from './processes.js';
import { type ResolvedSandboxOptions, type RunOptions, RunOptionsSchema, type SandboxOptions, SandboxOptionsSchema } from './sandboxOptions.js';
import { type CommandResult, runProcess, SANDBOX_PATH } from './sandboxProcess.js';

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
  /** Runs `bash -c command` with `hostRepo` as the working directory (`/repo` inside). */
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
 * namespaces (`--unshare-all`: user, pid, network, ipc, uts, cgroup), with
 * `--die-with-parent` and `--new-session`:
 * - the root is read-only: `/usr`, `/etc` and the `/bin`, `/lib*` links of the
 *   host (plus `readOnlyPaths`, and node's install prefix when it lives outside
 *   /usr); `/tmp` is a fresh tmpfs per command; `/proc`, `/dev` are the sandbox's own;
 * - the repository copy is bound read-write at {@link SANDBOX_REPO_ROOT}, the only
 *   writable place that persists between commands;
 * - the network namespace is empty (loopback only, the sandbox's own): no host
 *   service, not even on 127.0.0.1, is reachable;
 * - the environment is cleared (`PATH`, `HOME=/tmp`, `LANG`, `PYTHONDONTWRITEBYTECODE`
 *   and `env` only): API keys of the host never enter;
 * - `ulimit -v` (memory), `-u` (processes, counted per uid), `-f` (file size) apply;
 *   run as root, frognano starts bwrap as `uid`/`gid` (nobody) so that the
 *   process limit holds (the kernel never applies it to root);
 * - when the command exits, its pid namespace ends and every process it left in
 *   the background is killed; after every call, whatever is still in the call's
 *   pid namespace (a process that detached bwrap's init from its parent, say) is
 *   killed too, so nothing of the agent runs between calls; at `timeoutMs`, on abort, or past
 *   `killAfterOutputBytes` of output, the whole tree is killed (SIGKILL; a
 *   process ignoring SIGTERM cannot outlive it).
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
      run: async (repo, command, r) => runProcess('bash', ['-c', wrapper(o, 0), 'leaf-sandbox', command], repo, o, parseRunOptions(r), undefined, undefined),
    };
  }
  const bwrap = findBwrap(o.bwrapPath);
  if (bwrap === null) throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, MISSING_BWRAP, { fn });
  const owner = isRoot ? { uid: o.uid, gid: o.gid } : null;
  const uid = owner ? owner.uid : typeof process.getuid === 'function' ? process.getuid() : 0;
  const extra = [...o.readOnlyPaths];
  const prefix = nodePrefix();
  let path = SANDBOX_PATH;
  if (prefix !== null && existsSync(prefix)) {
    extra.push(prefix);
    path = `${dirname(process.execPath)}:${path}`;
  }
  const env: Record<string, string> = {
    PATH: path,
    HOME: '/tmp',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    PYTHONDONTWRITEBYTECODE: '1',
    ...o.env,
  };
  const base = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'leaf', ...systemBinds(extra)];
  base.push('--proc', '/proc', '--dev', '/dev', '--size', String(o.tmpMB * 1024 * 1024), '--tmpfs', '/tmp', '--dir', '/var/tmp', '--clearenv');
  for (const [k, v] of Object.entries(env)) base.push('--setenv', k, v);
  return {
    kind: 'bwrap',
    options: o,
    owner,
    async run(hostRepo, command, r) {
      const ro = parseRunOptions(r);
      const nproc = processCount(uid) + o.maxProcesses;
      // a token naming this call in the argv: a kill finds every process of the call by it (see runProcess)
      const token = `leaf-call-${process.pid}-${++callCounter}-${Math.random().toString(36).slice(2, 10)}`;
      const args = [...base, '--setenv', 'LEAF_CALL', token, '--bind', hostRepo, SANDBOX_REPO_ROOT, '--chdir', SANDBOX_REPO_ROOT, '--', '/bin/bash', '-c', wrapper(o, nproc), 'leaf-sandbox', command];
      return runProcess(bwrap, args, hostRepo, o, ro, owner ?? undefined, { token, uid });
    },
  };
}

/** Checks the per-command options of `Sandbox.run` (a bad one rejects the call with `INVALID_TYPE` / `OUT_OF_RANGE` naming `opts.<field>`). */
function parseRunOptions(r: RunOptions): RunOptions {
  return parseOptions('sandbox.run', RunOptionsSchema, r);
}

/** The in-sandbox preamble: limits, stderr onto stdout, then the command. */
function wrapper(o: ResolvedSandboxOptions, nproc: number): string {
  const limits = [`ulimit -v ${o.memoryMB * 1024}`, `ulimit -f ${o.maxFileMB * 2048}`];
  if (nproc > 0) limits.push(`ulimit -u ${nproc}`);
  // the command runs in this shell (eval), not a second bash: one process start less per call
  return `${limits.join('; ')}; exec 2>&1 </dev/null; __leaf_cmd=$1; set --; eval "$__leaf_cmd"`;
}
