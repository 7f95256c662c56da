import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { GRADING_ENV, writeHiddenFiles } from './grade.js';
import { SandboxSchema } from './sandbox.js';
import { AbortSignalSchema } from './sandboxOptions.js';
import { type LoadedLeafTask, resolveLimits } from './task.js';
import { chownTree, createWorkspace } from './workspace.js';

/** One line of `frognano validate-tasks` (SPEC §12). */
export interface TaskValidation {
  /** The task id. */
  id: string;
  /** The tests fail on the unmodified repository and pass with the reference patch. */
  valid: boolean;
  /** Why not, when invalid. */
  reason?: string;
}

/** Options of {@link validateLeafTask}. */
export const ValidateLeafTaskOptionsSchema = z
  .object({
    /** The sandbox the test runs go through. */
    sandbox: SandboxSchema,
    /** Time limit of each test run in seconds. Default: the task's `commandSeconds` (120). */
    timeoutSeconds: z.number().gt(0).optional(),
    /** Stops the validation (the test run is killed). */
    signal: AbortSignalSchema.optional(),
    /** Folder for the workspaces. Default the OS temporary folder. */
    tmpDir: z.string().min(1).optional(),
  })
  .strict();
/** Options of {@link validateLeafTask} as the caller writes them. */
export type ValidateLeafTaskOptions = z.input<typeof ValidateLeafTaskOptionsSchema>;

const tail = (s: string): string => {
  const t = s.trim();
  return t.length > 300 ? `...${t.slice(-300)}` : t;
};

/**
 * FrogNano §3.1's executable validation of one task (SPEC §12): a task is
 * valid iff its `tests.command`, with the hidden files written in,
 * 1. fails (non-zero exit, or a timeout) on a fresh copy of the unmodified repository, and
 * 2. passes (exit 0) on a fresh copy with `referencePatch` applied.
 *
 * Both runs go through the sandbox. A task without a reference patch, a patch
 * that does not apply, or a run that times out on the patched copy is invalid,
 * with the reason.
 */
export async function validateLeafTask(task: LoadedLeafTask, opts: ValidateLeafTaskOptions): Promise<TaskValidation> {
  const o = parseOptions('validateLeafTask', ValidateLeafTaskOptionsSchema, opts);
  const timeoutMs = (o.timeoutSeconds ?? resolveLimits(task.limits, undefined).commandSeconds) * 1000;
  if (task.referencePatch === undefined || task.referencePatch.trim() === '') return { id: task.id, valid: false, reason: 'no referencePatch to validate against' };
  const run = async (patched: boolean): Promise<{ exitCode: number | null; timedOut: boolean; output: string } | string> => {
    const ws = await createWorkspace(task.repoDir, { owner: o.sandbox.owner, parent: o.tmpDir, repoMB: o.sandbox.options?.repoMB });
    try {
      if (patched) {
        try {
          await applyUnifiedDiff(ws.repo, task.referencePatch!);
        } catch (e) {
          return `the reference patch does not apply: ${(e as Error).message.replace(/^applyUnifiedDiff: /, '')}`;
        }
      }
      await writeHiddenFiles(ws.repo, task.tests.files ?? {}, null);
      if (o.sandbox.owner) await chownTree(ws.repo, o.sandbox.owner);
      // the tests run as grading runs them (hidden files read-only, bytecode in a fresh folder)
      return await o.sandbox.run(ws.repo, task.tests.command, { timeoutMs, signal: o.signal, readOnly: Object.keys(task.tests.files ?? {}), env: { ...GRADING_ENV } });
    } finally {
      await ws.dispose();
    }
  };
  const before = await run(false);
  if (typeof before === 'string') return { id: task.id, valid: false, reason: before };
  if (before.exitCode === 0) return { id: task.id, valid: false, reason: 'the tests pass on the unmodified repository (nothing to fix)' };
  const after = await run(true);
  if (typeof after === 'string') return { id: task.id, valid: false, reason: after };
  if (after.timedOut) return { id: task.id, valid: false, reason: `the tests time out after ${timeoutMs / 1000} s with the reference patch` };
  if (after.exitCode !== 0) return { id: task.id, valid: false, reason: `the tests fail with the reference patch (exit ${after.exitCode}): ${tail(after.output)}` };
  return { id: task.id, valid: true };
}
