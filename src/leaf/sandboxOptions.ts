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
/** Options of `createSandbox` as the caller writes them. */
export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;
/** The options of a sandbox, defaults filled in (`Sandbox.options`). @internal */
export type ResolvedSandboxOptions = z.output<typeof SandboxOptionsSchema>;

/** The `AbortSignal` option (`signal` of `Sandbox.run`, `runEpisode`, `validateLeafTask`): the one of `errors`. @internal */
export { AbortSignalSchema };

/** Per-command options of `Sandbox.run`. */
export const RunOptionsSchema = z
  .object({
    /** Kill the command and its whole process tree after this many milliseconds (> 0). */
    timeoutMs: z.number().gt(0),
    /** Kills the command when aborted. Default: none. */
    signal: AbortSignalSchema.optional(),
  })
  .strict();
/** Per-command options of `Sandbox.run` as the caller writes them. */
export type RunOptions = z.input<typeof RunOptionsSchema>;
