import { z } from 'zod';
import { AbortSignalSchema } from '../errors/validate.js';

/** Options of `createSandbox`: the limits every sandboxed command runs under. */
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
    /**
     * Processes of one sandboxed call at most (`ulimit -u`). One fixed number per
     * sandbox: each call has its own user namespace, and the kernel counts a
     * namespace's processes apart, so concurrent episodes never add up. Default 256.
     */
    maxProcesses: z.number().int().min(8).default(256),
    /**
     * Open files of one sandboxed process at most (`ulimit -n`). With `maxProcesses`
     * this bounds the host's file table a call can take (256 x 1024), so one episode
     * cannot exhaust it for the others. Default 1024.
     */
    maxOpenFiles: z.number().int().min(16).default(1024),
    /** Largest file a command may write, in MiB (`ulimit -f`). Default 1024. */
    maxFileMB: z.number().int().min(1).default(1024),
    /** Size of each call's private `/tmp`, `/var/tmp` and `/dev/shm` (tmpfs, so RAM) in MiB each. Default 512. */
    tmpMB: z.number().int().min(1).default(512),
    /**
     * How far the repository copy may grow beyond the task's repository, in MiB.
     * Enforced by a size-limited tmpfs holding the copy when frognano runs as root
     * (deterministic: a write past it fails with ENOSPC); a normal user cannot mount
     * one, and then only `maxFileMB` per file holds. Default 1024.
     */
    repoMB: z.number().int().min(1).default(1024),
    /** Extra host paths bound read-only at the same path (a toolchain outside /usr, say). Default none. */
    readOnlyPaths: z.array(z.string().min(1)).default([]),
    /**
     * Host paths no bind may expose (a bound folder that is or contains one is refused):
     * the tasks file, the workspace folder. The user's home folder is always protected. Default none.
     */
    protectedPaths: z.array(z.string().min(1)).default([]),
    /** When frognano runs as root: the unprivileged uid the sandbox runs as (the repo copy is chowned to it). Default 65534 (nobody). */
    uid: z.number().int().min(1).default(65534),
    /** When frognano runs as root: the gid the sandbox runs as. Default 65534 (nogroup). */
    gid: z.number().int().min(1).default(65534),
    /** Extra environment variables inside the sandbox (the host's environment never enters it). */
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();
/** Options of `createSandbox` as the caller writes them. */
export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;
/** The options of a sandbox, defaults filled in (`Sandbox.options`). @internal */
export type ResolvedSandboxOptions = z.output<typeof SandboxOptionsSchema>;

/** The `AbortSignal` option (`signal` of `Sandbox.run`, `runEpisode`, `validateLeafTask`): the one of `errors`. @internal */
export { AbortSignalSchema };

/** Folders of the sandbox's own mounts: no workdir may be one of them or inside one. */
const SYSTEM_MOUNTS = ['/proc', '/dev', '/tmp', '/var/tmp', '/sys'];

/**
 * A workdir (`environment.workdir`, `Sandbox.run`'s `workdir`): absolute, normalised
 * (no `.`, `..`, `//` or trailing `/`), not `/` and not inside the sandbox's own mounts.
 * @internal
 */
export const WorkdirSchema = z
  .string()
  .refine((w) => /^(\/[^/\0]+)+$/.test(w) && !w.split('/').some((c) => c === '.' || c === '..'), 'must be an absolute, normalised path other than / (e.g. "/repo")')
  .refine((w) => !SYSTEM_MOUNTS.some((m) => w === m || w.startsWith(`${m}/`)), `must not be inside ${SYSTEM_MOUNTS.join(', ')} (the sandbox's own mounts)`);

/** Per-command options of `Sandbox.run`. */
export const RunOptionsSchema = z
  .object({
    /** Kill the command and its whole process tree after this many milliseconds (> 0). */
    timeoutMs: z.number().gt(0),
    /** Kills the command when aborted. Default: none. */
    signal: AbortSignalSchema.optional(),
    /**
     * Paths relative to the repo bound read-only over themselves for this call
     * (grading: the hidden test files, so that nothing the tests run can rewrite
     * them). Paths that do not exist are skipped. Default none.
     */
    readOnly: z.array(z.string().min(1)).optional(),
    /** Characters of this call's output kept (grading keeps the whole log to parse it per test). Default the sandbox's `maxOutputChars`. */
    maxOutputChars: z.number().int().min(200).optional(),
    /** Extra environment variables of this call (grading: `PYTHONPYCACHEPREFIX`). Default none. */
    env: z.record(z.string(), z.string()).optional(),
    /**
     * A root filesystem folder (an unpacked image, SPEC §14) that is the call's `/`,
     * read-only, instead of the host's `/usr`, `/etc`, `/bin`, `/lib*` (and node,
     * and `readOnlyPaths`). It must hold bash (`/bin/bash` or `/usr/bin/bash`) and
     * the mount points `/proc`, `/dev`, `/tmp` and `workdir` (folders); `/var/tmp`
     * gets its tmpfs only when the image has the folder. Default: the host's system.
     */
    image: z.string().min(1).optional(),
    /** Where the repo copy is mounted and the command starts (absolute). Default `/repo`. */
    workdir: WorkdirSchema.optional(),
  })
  .strict();
/** Per-command options of `Sandbox.run` as the caller writes them. */
export type RunOptions = z.input<typeof RunOptionsSchema>;
