import { z } from 'zod';
import { parseOptions } from '../errors/validate.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { writeHiddenFiles } from './grade.js';
import { runGradingTests, type TestRunGrading } from './runGradingTests.js';
import { exitLabel, flakyTests, statusOf } from './flakyTests.js';
import { applyTestPatch } from './testPatch.js';
import type { GradedTest } from './testLogs/index.js';
import { SandboxSchema } from './sandbox.js';
import { AbortSignalSchema } from './sandboxOptions.js';
import { type LoadedLeafTask, resolveLimits } from './task.js';
import { chownTree, createWorkspace } from './workspace.js';
import { environmentSandbox, resolveEnvironment, runSetup, setupFailure } from './environment.js';
import { isFrognanoError } from '../errors/FrognanoError.js';

/** One line of `frognano validate-tasks` (SPEC §12). */
export interface TaskValidation {
  /** The task id. */
  id: string;
  /** The tests fail on the unmodified repository and pass with the reference patch. */
  valid: boolean;
  /** Why not, when invalid. */
  reason?: string;
  /**
   * Wall time in seconds (to the millisecond) of each side: the test runs on the
   * unmodified repository (`before`) and with the reference patch (`after`), each
   * including its workspace's set-up (copy, patches, hidden files) and removal;
   * with `repeat` K, the sum of the side's K runs. Absent when no test ran (no
   * reference patch); `after` is 0 when the task was decided before that side ran.
   */
  seconds?: { before: number; after: number };
  /**
   * With `repeat` > 1: the listed test ids (`failToPass`, `passToPass`) whose
   * status differed between the K runs of the same side, sorted; without lists,
   * `["tests"]` when the exit code (or a timeout) differed. Absent when none was.
   * A task with a flaky test is invalid.
   */
  flaky?: string[];
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
    /** Runs of each side (integer >= 1); a listed test (or, without lists, the exit code) that changes between them is flaky. Default 1. */
    repeat: z.number().int().min(1).optional(),
  })
  .strict();
/** Options of {@link validateLeafTask} as the caller writes them. */
export type ValidateLeafTaskOptions = z.input<typeof ValidateLeafTaskOptionsSchema>;

const tail = (s: string): string => {
  const t = s.trim();
  return t.length > 300 ? `...${t.slice(-300)}` : t;
};

/** What one validation side gave: the per-test grading of the run, or why the run could not happen. */
type SideResult = TestRunGrading | string;

/** The first listed id whose status breaks the validation rule on one side, or null. */
function offending(side: TestRunGrading, ids: readonly string[], ok: (status: string) => boolean): GradedTest | null {
  const byName = new Map((side.tests as GradedTest[]).map((t) => [t.name, t]));
  for (const id of ids) {
    const t = byName.get(id);
    if (t && !ok(t.status)) return t;
  }
  return null;
}

const PASSING = new Set(['passed', 'xfail', 'xpass']);

/**
 * FrogNano §3.1's executable validation of one task (SPEC §12, §14). Both runs
 * write the hidden `files`, apply `tests.patch` and run the tests as grading does
 * (in the sandbox, hidden files read-only):
 * - without `failToPass` / `passToPass`: valid iff the tests fail (non-zero exit, or a
 *   timeout) on a fresh copy of the unmodified repository and pass (exit 0) on a fresh
 *   copy with `referencePatch` applied; a failure names both exit codes and the tail of
 *   the output;
 * - with them (and a `tests.log`): valid iff every fail-to-pass id fails (status not
 *   passed / xfail / xpass) before and passes after, and every pass-to-pass id passes
 *   both times (skipped counts as kept, as at grading); the reason names the first
 *   offending id with its status before and after.
 * A task without a reference patch, or whose patches do not apply, is invalid with the reason.
 *
 * With `repeat` K each side runs K times (each on a fresh copy); a listed id whose
 * status differs between the runs of one side (without lists: the exit code) is
 * flaky, and a task with a flaky test is invalid (`flaky`, and a reason naming the
 * first such id with its statuses in every run; see `flakyTests`). Otherwise the
 * rule above decides on the first run of each side. Every result of a task whose
 * tests ran carries `seconds`, each side's wall time.
 */
export async function validateLeafTask(task: LoadedLeafTask, opts: ValidateLeafTaskOptions): Promise<TaskValidation> {
  const o = parseOptions('validateLeafTask', ValidateLeafTaskOptionsSchema, opts);
  const timeoutMs = (o.timeoutSeconds ?? resolveLimits(task.limits, undefined).commandSeconds) * 1000;
  if (task.referencePatch === undefined || task.referencePatch.trim() === '') return { id: task.id, valid: false, reason: 'no referencePatch to validate against' };
  let env;
  try {
    env = await resolveEnvironment(task);
  } catch (e) {
    if (!isFrognanoError(e)) throw e;
    return { id: task.id, valid: false, reason: `environment: ${e.message}` };
  }
  if (env !== null) task = { ...task, repoDir: env.repoDir };
  const sandbox = environmentSandbox(o.sandbox, env);
  const run = async (patched: boolean): Promise<SideResult> => {
    const ws = await createWorkspace(task.repoDir, { owner: o.sandbox.owner, parent: o.tmpDir, repoMB: o.sandbox.options?.repoMB });
    try {
      // environment.setup on the fresh copy, as before an episode's first turn (SPEC §14: a failing one makes the task invalid)
      const setupError = setupFailure(await runSetup(sandbox, ws.repo, env, { timeoutMs, signal: o.signal }));
      if (setupError !== null) return setupError;
      if (patched) {
        try {
          await applyUnifiedDiff(ws.repo, task.referencePatch!);
        } catch (e) {
          return `the reference patch does not apply: ${(e as Error).message.replace(/^applyUnifiedDiff: /, '')}`;
        }
      }
      await writeHiddenFiles(ws.repo, task.tests.files ?? {}, null);
      let written: string[] = [];
      if (task.tests.patch !== undefined) {
        try {
          written = await applyTestPatch(task.repoDir, ws.repo, task.tests.patch);
        } catch (e) {
          return `${(e as Error).message.replace(/^applyTestPatch: /, '')}${patched ? ' (after the reference patch)' : ''}`;
        }
      }
      if (o.sandbox.owner) await chownTree(ws.repo, o.sandbox.owner);
      const readOnly = [...new Set([...Object.keys(task.tests.files ?? {}), ...written])];
      return await runGradingTests(task, ws.repo, sandbox, { timeoutMs, signal: o.signal, readOnly });
    } finally {
      await ws.dispose();
    }
  };
  const repeat = o.repeat ?? 1;
  const seconds = { before: 0, after: 0 };
  /** One side run `repeat` times, its wall time added up; the first run that could not happen ends it. */
  const side = async (patched: boolean): Promise<TestRunGrading[] | string> => {
    const runs: TestRunGrading[] = [];
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      const r = await run(patched);
      seconds[patched ? 'after' : 'before'] += (performance.now() - t0) / 1000;
      if (typeof r === 'string') return r;
      runs.push(r);
    }
    return runs;
  };
  const timed = (v: TaskValidation): TaskValidation => ({ ...v, seconds: { before: ms(seconds.before), after: ms(seconds.after) } });
  const before = await side(false);
  if (typeof before === 'string') return timed({ id: task.id, valid: false, reason: before });
  const after = await side(true);
  if (typeof after === 'string') return timed({ id: task.id, valid: false, reason: after });
  const f2p = task.tests.failToPass ?? [];
  const p2p = task.tests.passToPass ?? [];
  const flaky = flakyTests(before, after, [...f2p, ...p2p], timeoutMs);
  if (flaky) return timed({ id: task.id, valid: false, reason: flaky.reason, flaky: flaky.ids });
  return timed(judge(task, before[0]!, after[0]!, timeoutMs));
}

/** Seconds rounded to the millisecond. */
const ms = (s: number): number => Math.round(s * 1000) / 1000;

/** The per-test rule (SPEC §14), or without lists the exit-code rule, on one run of each side. */
function judge(task: LoadedLeafTask, before: TestRunGrading, after: TestRunGrading, timeoutMs: number): TaskValidation {
  const f2p = task.tests.failToPass ?? [];
  const p2p = task.tests.passToPass ?? [];
  if (f2p.length + p2p.length === 0) return byExitCode(task.id, before, after, timeoutMs);
  const why = (id: string, rule: string): TaskValidation => ({ id: task.id, valid: false, reason: `${rule}: ${id} is ${statusOf(before, id)} before and ${statusOf(after, id)} with the reference patch` });
  for (const [side, label] of [[before, 'on the unmodified repository'], [after, 'with the reference patch']] as const) {
    // no listed id in the log: the suite never ran (a missing interpreter, an import error), not a test's verdict
    if ([...f2p, ...p2p].every((id) => statusOf(side, id) === 'missing')) {
      return { id: task.id, valid: false, reason: `the test suite never ran ${label}: none of the ${f2p.length + p2p.length} listed tests is in its log (${exitLabel(side, timeoutMs)}; output: ${tail(side.run.output)})` };
    }
  }
  const early = offending(before, f2p, (s) => !PASSING.has(s));
  if (early) return why(early.name, 'a fail-to-pass test does not fail on the unmodified repository');
  const late = offending(after, f2p, (s) => PASSING.has(s));
  if (late) return why(late.name, 'a fail-to-pass test does not pass with the reference patch');
  for (const side of [before, after]) {
    const broken = offending(side, p2p, (s) => PASSING.has(s) || s === 'skipped');
    if (broken) return why(broken.name, 'a pass-to-pass test does not pass on both sides');
  }
  return { id: task.id, valid: true };
}

/** The exit-code rule (SPEC §12): fails before, passes after; the reason names both exit codes and the tails of both outputs. */
function byExitCode(id: string, before: TestRunGrading, after: TestRunGrading, timeoutMs: number): TaskValidation {
  const code = (g: TestRunGrading): string => exitLabel(g, timeoutMs);
  const out = (label: string, g: TestRunGrading): string => (g.run.output.trim() === '' ? '' : `; ${label}: ${tail(g.run.output)}`);
  const both = `${code(before)} before, ${code(after)} with the reference patch${out('output before', before)}${out('output after', after)}`;
  if (before.run.exitCode === 0) return { id, valid: false, reason: `the tests pass on the unmodified repository (nothing to fix): ${both}` };
  if (after.run.exitCode !== 0) return { id, valid: false, reason: `the tests fail with the reference patch: ${both}` };
  return { id, valid: true };
}
