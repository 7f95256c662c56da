import { spawn } from 'node:child_process';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { capOutput } from './capOutput.js';
import { descendants, pidNamespaceOf, pidsInNamespace, pidsWithArgument } from './processes.js';
import type { ResolvedSandboxOptions, RunOptions } from './sandboxOptions.js';

/**
 * Python's bytecode settings of every sandboxed call and of grading: nothing
 * written into the repo, and what is written goes to a fresh folder of the call's
 * private /tmp, so no planted `.pyc` is ever read (`-B` alone does not stop that)
 * and code cannot tell grading from the agent's own runs by its environment.
 */
export const GRADING_ENV: Readonly<Record<string, string>> = Object.freeze({ PYTHONPYCACHEPREFIX: '/tmp/.leaf-pycache', PYTHONDONTWRITEBYTECODE: '1' });

/** The PATH inside the sandbox (the node running frognano is added when it lives elsewhere). @internal */
export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Spawn failures that say the machine is short of a resource for a moment, not that the sandbox cannot run. */
const TRANSIENT_SPAWN_ERRORS: ReadonlySet<string> = new Set(['EAGAIN', 'ENFILE', 'EMFILE', 'ENOMEM']);

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

/** What runProcess needs to find and kill every process of a bwrap call. */
export interface CallIdentity {
  /** The token in the call's argv (found until the sandbox execs). */
  token: string;
  /** The uid the sandbox runs as (only its processes are scanned). */
  uid: number;
  /** Contents written to fds 4, 5, ... of bwrap (its `--ro-bind-data FD` files). Default none. */
  data?: readonly string[];
}

/**
 * Runs one command as a child process and collects what it did: `file args`
 * with stdout and stderr captured (bwrap: stderr is bwrap's own diagnostics,
 * the command's stderr being redirected onto stdout inside), killed with its whole
 * tree at `r.timeoutMs`, on abort or past `o.killAfterOutputBytes` of output.
 * `call` absent: the unsafe mode (a plain process group, killed as a group);
 * present: a bwrap call, whose processes are found by pid namespace and argv
 * token and killed after it exits (nothing outlives its call).
 * @internal
 */
export function runProcess(
  file: string,
  args: string[],
  cwd: string,
  o: ResolvedSandboxOptions,
  r: RunOptions,
  owner: { uid: number; gid: number } | undefined,
  call?: CallIdentity,
): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const unsafe = call === undefined;
    const data = call?.data ?? [];
    const child = spawn(file, unsafe ? args : ['--info-fd', '3', ...args], {
      cwd,
      // fd 3: bwrap's info pipe, where it writes {"child-pid": N} once the sandbox is set up; fds 4...: data files
      stdio: unsafe ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'pipe', ...data.map(() => 'pipe' as const)],
      detached: unsafe, // own process group, so the whole tree can be killed
      env: unsafe ? { PATH: SANDBOX_PATH, HOME: cwd, LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', ...o.env, ...r.env } : {},
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
    // a spawn that failed at once (ENFILE: another episode exhausted the file table) has no pipes: its 'error' says why
    data.forEach((text, i) => {
      const w = child.stdio[4 + i] as (NodeJS.WritableStream & { on(e: 'error', f: () => void): void }) | undefined | null;
      w?.on('error', () => {}); // bwrap gone before reading it: its exit says why
      w?.end(text);
    });
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
    child.stderr!.on('data', (b: Buffer) => {
      if (unsafe) onData(b);
      else if (setupError.length < 65_536) setupError += b.toString('utf8'); // bounded: a command may reach bwrap's stderr through /proc/1/fd/2
    });
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
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      r.signal?.removeEventListener('abort', onAbort);
      // the machine out of descriptors, processes or memory for a moment (another episode's doing) is this
      // call's failure, not a sandbox that cannot run: a plain error, which a tool call reports and an episode survives
      if (e.code !== undefined && TRANSIENT_SPAWN_ERRORS.has(e.code)) {
        reject(Object.assign(new Error(`the sandbox could not start the command: ${e.code} (the machine's ${e.code === 'ENOMEM' ? 'memory' : e.code === 'EAGAIN' ? 'process table' : 'file table'} is exhausted for now)`), { code: e.code }));
        return;
      }
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
      // bwrap's own words after the sandbox started (a bind that failed): the caller must see why the command did not run
      const bwrapSaid = !unsafe && setupError.trim() !== '' ? `${raw === '' || raw.endsWith('\n') ? '' : '\n'}${setupError.trim().slice(0, 2000)}\n` : '';
      const note = outputLimitKilled ? `\n[killed: the command wrote more than ${o.killAfterOutputBytes} bytes of output]` : '';
      const capped = capOutput(raw + bwrapSaid, r.maxOutputChars ?? o.maxOutputChars, note);
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

/**
 * Variables a shell acts on before the sandbox's preamble has set its limits, or that
 * change what the preamble's own commands are: bash's `BASH_ENV` (a file sourced by
 * `bash -c` before anything else: a planted one in the workdir would run unlimited at
 * grading, and could print a fake pass), POSIX sh's `ENV`, `SHELLOPTS`, `BASHOPTS`, and
 * exported functions (`BASH_FUNC_name%%`: a function `ulimit` would shadow the builtin).
 * Never passed into a call, whoever sets them (a task's `env`, an image's `Env`, the
 * sandbox's `env` option, a call's `env`).
 */
export const SHELL_STARTUP_VARIABLES: readonly string[] = ['BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS'];

/** `env` without {@link SHELL_STARTUP_VARIABLES} and exported bash functions. */
export function withoutShellStartup(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !SHELL_STARTUP_VARIABLES.includes(k) && !k.startsWith('BASH_FUNC_')));
}
