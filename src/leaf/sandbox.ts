import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { descendants, pidNamespaceOf, pidsInNamespace, pidsWithArgument, processCount } from './processes.js';
import { delimiter, dirname, join } from 'node:path';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';

/** Where the episode's repository copy appears inside the sandbox (the agent's working directory). */
export const SANDBOX_REPO_ROOT = '/repo';

/** The PATH inside the sandbox (the node running frognano is added when it lives elsewhere). */
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Options of {@link createSandbox}: the limits every sandboxed command runs under. */
export const SandboxOptionsSchema = z
  .object({
    /**
     * Run commands WITHOUT isolation (a plain `bash -c` in the repo copy): no
     * namespaces, the host's files and network reachable. Only for machines where
     * bubblewrap cannot run and the model is trusted. Default false.
     */
    unsafeNoSandbox: z.boolean().default(false),
    /** Path of the `bwrap` executable. Default: `FROGNANO_BWRAP`, else `bwrap` found on PATH. */
    bwrapPath: z.string().min(1).optional(),
    /** Characters of a command's output kept in its result; beyond, the head and tail are kept with a note. Default 30000. */
    maxOutputChars: z.number().int().min(200).default(30_000),
    /** Output bytes after which a still-running command is killed (endless output). Default 16 MiB. */
    killAfterOutputBytes: z.number().int().min(1024).default(16 * 1024 * 1024),
    /** Address-space limit of each sandboxed process in MiB (`ulimit -v`). Default 4096. */
    memoryMB: z.number().int().min(64).default(4096),
    /** Processes the sandbox user may have beyond those it already has (`ulimit -u`). Default 256. */
    maxProcesses: z.number().int().min(8).default(256),
    /** Largest file a command may write, in MiB (`ulimit -f`). Default 1024. */
    maxFileMB: z.number().int().min(1).default(1024),
    /** Size of each call's private `/tmp` (a tmpfs, so RAM) in MiB. Default 512. */
    tmpMB: z.number().int().min(1).default(512),
    /** Extra host paths bound read-only at the same path (a toolchain outside /usr, say). Default none. */
    readOnlyPaths: z.array(z.string().min(1)).default([]),
    /** When frognano runs as root: the unprivileged uid the sandbox runs as (the repo copy is chowned to it). Default 65534 (nobody). */
    uid: z.number().int().min(1).default(65534),
    /** When frognano runs as root: the gid the sandbox runs as. Default 65534 (nogroup). */
    gid: z.number().int().min(1).default(65534),
    /** Extra environment variables inside the sandbox (the host's environment never enters it). */
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();
/** Options of {@link createSandbox} as the caller writes them. */
export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;

/** What one sandboxed command did. */
export interface CommandResult {
  /** Exit status; `null` when it was killed (timeout, abort, output limit). */
  exitCode: number | null;
  /** stdout and stderr, interleaved as written, capped to `maxOutputChars` (head and tail kept, with a note). */
  output: string;
  /** Bytes the command wrote in total. */
  outputBytes: number;
  /** The output was cut (too long) or the command was killed for writing too much. */
  outputTruncated: boolean;
  /** Killed at its time limit. */
  timedOut: boolean;
  /** Killed because the caller's signal aborted. */
  aborted: boolean;
  /** Killed because its output passed `killAfterOutputBytes`. */
  outputLimitKilled: boolean;
  /** Wall time in milliseconds. */
  durationMs: number;
}

/** Per-command options of {@link Sandbox.run}. */
export interface RunOptions {
  /** Kill the command and its whole process tree after this many milliseconds. */
  timeoutMs: number;
  /** Kills the command when aborted. */
  signal?: AbortSignal;
}

/** Runs shell commands in a repository copy, isolated (bubblewrap) unless created unsafe. */
export interface Sandbox {
  /** `'bwrap'` or `'none'` (unsafe). */
  readonly kind: 'bwrap' | 'none';
  /** The limits in force. */
  readonly options: z.output<typeof SandboxOptionsSchema>;
  /**
   * The owner the repo copy must have for the sandbox to write it (`{ uid, gid }`
   * when frognano runs as root and the sandbox drops to an unprivileged user), or null.
   */
  readonly owner: { uid: number; gid: number } | null;
  /** Runs `bash -c command` with `hostRepo` as the working directory (`/repo` inside). */
  run(hostRepo: string, command: string, opts: RunOptions): Promise<CommandResult>;
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds bubblewrap: `explicit`, else `FROGNANO_BWRAP`, else `bwrap` on PATH.
 * Returns null when none is executable.
 */
export function findBwrap(explicit?: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (explicit !== undefined) return isExecutable(explicit) ? explicit : null;
  if (env.FROGNANO_BWRAP) return isExecutable(env.FROGNANO_BWRAP) ? env.FROGNANO_BWRAP : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, 'bwrap'))) return join(dir, 'bwrap');
  }
  for (const p of ['/usr/bin/bwrap', '/usr/local/bin/bwrap']) if (isExecutable(p)) return p;
  return null;
}

const MISSING_BWRAP =
  'the Leaf sandbox needs bubblewrap (`bwrap`): install the Debian/Ubuntu package `bubblewrap` (apt-get install bubblewrap; Fedora: dnf install bubblewrap), ' +
  'set FROGNANO_BWRAP to its path, or pass --unsafe-no-sandbox (UNSAFE: the model then runs commands on your machine unisolated)';

/** Binds of the read-only system part of the sandbox's root. */
function systemBinds(extra: readonly string[]): string[] {
  const args: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let st;
    try {
      st = lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (st.isDirectory()) args.push('--ro-bind', top, top);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const p of extra) if (!p.startsWith('/usr/')) args.push('--ro-bind-try', p, p);
  return args;
}

/** The install prefix of the node running frognano when it is outside /usr (nvm, volta): bound so that `node` works inside. */
function nodePrefix(): string | null {
  const prefix = dirname(dirname(process.execPath));
  return prefix === '/usr' || prefix === '/usr/local' || prefix === '/' ? null : prefix;
}

let callCounter = 0;

/** Keeps the head and tail of a long output with a note in between. */
export function capOutput(text: string, maxChars: number, killedNote = ''): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text: killedNote ? `${text}${killedNote}` : text, truncated: killedNote !== '' };
  const half = Math.floor(maxChars / 2);
  const omitted = text.length - 2 * half;
  return {
    text: `${text.slice(0, half)}\n[... ${omitted} characters of output omitted; narrow the command (head, tail, grep) to see them ...]\n${text.slice(text.length - half)}${killedNote}`,
    truncated: true,
  };
}

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
 * @example
 * const sandbox = createSandbox();
 * const r = await sandbox.run('/tmp/episode/repo', 'python3 -m pytest -q', { timeoutMs: 120_000 });
 */
export function createSandbox(opts?: SandboxOptions): Sandbox {
  const fn = 'createSandbox';
  const o = parseOptions(fn, SandboxOptionsSchema, opts);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (o.unsafeNoSandbox) {
    return { kind: 'none', options: o, owner: null, run: (repo, command, r) => runProcess('bash', ['-c', wrapper(o, 0), 'leaf-sandbox', command], repo, o, r, undefined, undefined) };
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
    run(hostRepo, command, r) {
      const nproc = processCount(uid) + o.maxProcesses;
      // a token naming this call in the argv: a kill finds every process of the call by it (see runProcess)
      const token = `leaf-call-${process.pid}-${++callCounter}-${Math.random().toString(36).slice(2, 10)}`;
      const args = [...base, '--setenv', 'LEAF_CALL', token, '--bind', hostRepo, SANDBOX_REPO_ROOT, '--chdir', SANDBOX_REPO_ROOT, '--', '/bin/bash', '-c', wrapper(o, nproc), 'leaf-sandbox', command];
      return runProcess(bwrap, args, hostRepo, o, r, owner ?? undefined, { token, uid });
    },
  };
}

/** The in-sandbox preamble: limits, stderr onto stdout, then the command. */
function wrapper(o: z.output<typeof SandboxOptionsSchema>, nproc: number): string {
  const limits = [`ulimit -v ${o.memoryMB * 1024}`, `ulimit -f ${o.maxFileMB * 2048}`];
  if (nproc > 0) limits.push(`ulimit -u ${nproc}`);
  // the command runs in this shell (eval), not a second bash: one process start less per call
  return `${limits.join('; ')}; exec 2>&1 </dev/null; __leaf_cmd=$1; set --; eval "$__leaf_cmd"`;
}

/** What runProcess needs to find and kill every process of a bwrap call. */
interface CallIdentity {
  /** The token in the call's argv (found until the sandbox execs). */
  token: string;
  /** The uid the sandbox runs as (only its processes are scanned). */
  uid: number;
}

function runProcess(
  file: string,
  args: string[],
  cwd: string,
  o: z.output<typeof SandboxOptionsSchema>,
  r: RunOptions,
  owner: { uid: number; gid: number } | undefined,
  call?: CallIdentity,
): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const unsafe = call === undefined;
    const child = spawn(file, unsafe ? args : ['--info-fd', '3', ...args], {
      cwd,
      // fd 3: bwrap's info pipe, where it writes {"child-pid": N} once the sandbox is set up
      stdio: unsafe ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: unsafe, // own process group, so the whole tree can be killed
      env: unsafe ? { PATH: SANDBOX_PATH, HOME: cwd, LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', ...o.env } : {},
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stored = 0;
    let timedOut = false;
    let aborted = false;
    let outputLimitKilled = false;
    let setupError = '';
    let killed = false;
    let exited = false;
    let info = '';
    let sandboxPid: number | null = null;
    let namespace: string | null = null;
    const signalAll = (pids: Iterable<number>): void => {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    /**
     * Every process of the call: those in its pid namespace (which no process can
     * leave or fake, so a process that detached itself from bwrap, renamed itself or
     * started a new session is still found), and, for the start-up window before the
     * namespace is known, those carrying the call's token in their argv with their
     * descendants (a bwrap killed before --die-with-parent is armed leaves such a copy).
     */
    const sweep = (includeBwrap: boolean): void => {
      if (unsafe) return;
      const pids = new Set<number>(includeBwrap && child.pid !== undefined ? [child.pid] : []);
      if (namespace === null && sandboxPid !== null) namespace = pidNamespaceOf(sandboxPid);
      if (namespace !== null) for (const p of pidsInNamespace(namespace, call.uid)) pids.add(p);
      // the argv scan reads every process's command line: only when a start-up may have been cut
      // short (a kill) or the namespace is not known yet
      if (killed || sandboxPid === null) {
        const roots = pidsWithArgument(call.token);
        for (const p of [...roots, ...roots.flatMap(descendants)]) pids.add(p);
      }
      if (includeBwrap && child.pid !== undefined) for (const p of descendants(child.pid)) pids.add(p);
      signalAll(pids);
    };
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // no group left
      }
    };
    /** Kills the running call: its whole tree (bwrap) or process group (unsafe). */
    const kill = (): void => {
      if (child.pid === undefined) return;
      killed = true;
      if (unsafe) return killGroup();
      // after bwrap's exit its pid is never signalled again: it may belong to another process
      sweep(!exited);
    };
    if (!unsafe) {
      child.stdio[3]!.on('data', (b: Buffer) => {
        info += b.toString('utf8');
        const m = /"child-pid"\s*:\s*(\d+)/.exec(info);
        if (m && sandboxPid === null) {
          sandboxPid = Number(m[1]);
          namespace = pidNamespaceOf(sandboxPid);
        }
      });
    }
    const onData = (b: Buffer): void => {
      bytes += b.length;
      if (stored < o.killAfterOutputBytes) {
        chunks.push(b);
        stored += b.length;
      }
      if (bytes > o.killAfterOutputBytes && !outputLimitKilled) {
        outputLimitKilled = true;
        kill();
      }
    };
    child.stdout!.on('data', onData);
    // bwrap's own diagnostics (the command's stderr is redirected onto stdout inside)
    child.stderr!.on('data', (b: Buffer) => (unsafe ? onData(b) : (setupError += b.toString('utf8'))));
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, r.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    if (r.signal?.aborted) onAbort();
    r.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', onAbort);
      reject(new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `cannot start ${file}: ${e.message}`, { fn: 'sandbox.run' }));
    });
    child.on('exit', () => {
      exited = true;
      // Nothing outlives its call: the pid namespace usually ends with the command, and
      // whatever a command did to survive it (detaching its init from bwrap) is killed here.
      // Unsafe mode: background processes share the call's process group; end them with it.
      if (unsafe) killGroup();
      else sweep(false);
      // A call whose pipes stay open (a survivor holding them) must still return.
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        child.stdio[3]?.destroy();
      }, 2000).unref();
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', onAbort);
      // Start-up failed only if bwrap never reported the sandbox's pid (a command cannot fake that pipe)
      if (!unsafe && sandboxPid === null && !killed && code !== 0 && /^bwrap: /m.test(setupError)) {
        reject(
          new FrognanoError(
            ErrorCode.SANDBOX_UNAVAILABLE,
            `bubblewrap could not create the sandbox: ${setupError.trim().slice(0, 400)}${/namespace|Operation not permitted|setting up uid map/i.test(setupError) ? ' (unprivileged user namespaces may be disabled here: sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, or AppArmor\'s restrict_unprivileged_userns)' : ''}`,
            { fn: 'sandbox.run' },
          ),
        );
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const note = outputLimitKilled ? `\n[killed: the command wrote more than ${o.killAfterOutputBytes} bytes of output]` : '';
      const capped = capOutput(raw, o.maxOutputChars, note);
      const wasKilled = timedOut || aborted || outputLimitKilled;
      resolve({
        exitCode: wasKilled ? null : code,
        output: capped.text,
        outputBytes: bytes,
        outputTruncated: capped.truncated,
        timedOut,
        aborted,
        outputLimitKilled,
        durationMs: performance.now() - started,
      });
    });
  });
}
