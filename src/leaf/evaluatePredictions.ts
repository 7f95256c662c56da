/**
 * `frognano evaluate`'s library half: SWE-bench-style evaluation of a model's
 * predictions (patches) against Leaf tasks, each graded exactly as an episode
 * is (`gradeRepo`), reported in SWE-bench's `report.json` shape.
 * @module
 */
import { z } from 'zod';
import { functionSchema, parseOptions } from '../errors/validate.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { type Grading, gradeRepo } from './grade.js';
import type { Prediction } from './predictions.js';
import { SandboxSchema } from './sandbox.js';
import { environmentSandbox, repoPathsInEnv, resolveEnvironment, runSetup, type SetupSnapshot, setupFailure, snapshotAfterSetup } from './environment.js';
import { AbortSignalSchema } from './sandboxOptions.js';
import { type EvaluationReport, type InstanceReport, testsStatus } from './sweBenchReport.js';
import { type LoadedLeafTask, resolveLimits } from './task.js';
import { chownTree, createWorkspace } from './workspace.js';

/** The evaluation of one prediction. */
export interface InstanceEvaluation {
  /** The prediction's `instance_id` (a task id). */
  instanceId: string;
  /** Its `report.json` entry. */
  report: InstanceReport;
  /** Why it is unresolved (no patch, a patch that does not apply, the grading's reason or error); absent when resolved. */
  reason?: string;
  /** The grading log: what was done, then the test command's output. */
  log: string;
  /** The grading was stopped by the signal: the entry is not a result. */
  aborted: boolean;
}

/** Options of {@link evaluatePrediction} and {@link evaluatePredictions}. */
export const EvaluatePredictionsOptionsSchema = z
  .object({
    /** The sandbox the grading runs go through. */
    sandbox: SandboxSchema,
    /** Time limit of each test run, in seconds. Default: the task's `commandSeconds` (120). */
    timeoutSeconds: z.number().gt(0).optional(),
    /** Instances graded at once. Default 1. */
    concurrency: z.number().int().min(1).optional(),
    /** Stops the evaluation (running tests are killed; nothing more starts). */
    signal: AbortSignalSchema.optional(),
    /** Folder for the workspaces. Default the OS temporary folder. */
    tmpDir: z.string().min(1).optional(),
    /** Called once per evaluated instance, as it finishes. */
    onInstance: functionSchema<(e: InstanceEvaluation) => void | Promise<void>>('(evaluation) => void').optional(),
  })
  .strict();
/** Options as the caller writes them. */
export type EvaluatePredictionsOptions = z.input<typeof EvaluatePredictionsOptionsSchema>;

/** The entry of an instance whose tests never ran. */
function notRun(instanceId: string, flags: Pick<InstanceReport, 'patch_is_None' | 'patch_exists'>, reason: string): InstanceEvaluation {
  return { instanceId, report: { ...flags, patch_successfully_applied: false, resolved: false }, reason, log: `${instanceId}: ${reason}\n`, aborted: false };
}

/** The grading log of a graded instance: what was dropped, why it failed, then the test command and its output. */
function gradingLog(instanceId: string, task: LoadedLeafTask, g: Grading): string {
  const lines = [`instance: ${instanceId}`, `resolved: ${g.success}`];
  if (g.dropped.length > 0) lines.push(`dropped before the tests: ${g.dropped.join(', ')}`);
  if (g.error !== undefined) lines.push(`error: ${g.error}`);
  if (g.reason !== undefined) lines.push(`reason: ${g.reason}`);
  for (const t of g.tests) lines.push(`test: ${t.name} ${'status' in t ? t.status : t.passed ? 'passed' : 'failed'}`);
  if (g.run) lines.push(`command: ${task.tests.command}`, `exit code: ${g.run.exitCode ?? 'killed'}${g.run.timedOut ? ' (timed out)' : ''}`, '--- output ---', g.run.output);
  return `${lines.join('\n')}\n`;
}

/**
 * Evaluates one prediction for its task: a fresh copy of the task's repository
 * (owned as the sandbox needs, capped by its `repoMB`), `model_patch` applied
 * (exact hunks, as `applyUnifiedDiff`), then graded exactly as an episode is
 * (`gradeRepo`: permissions restored, planted files dropped, hidden files written,
 * `tests.patch` applied, tests run per test by SPEC §14). A null patch
 * (`patch_is_None`), an empty one (`patch_exists: false`) or one that does not
 * apply (`patch_successfully_applied: false`) is unresolved without running the
 * tests. The copy is always removed.
 */
export async function evaluatePrediction(task: LoadedLeafTask, prediction: Prediction, opts: EvaluatePredictionsOptions): Promise<InstanceEvaluation> {
  const o = parseOptions('evaluatePrediction', EvaluatePredictionsOptionsSchema, opts);
  const id = prediction.instance_id;
  const patch = prediction.model_patch;
  if (patch === null) return notRun(id, { patch_is_None: true, patch_exists: false }, 'no patch (model_patch is null)');
  if (patch.trim() === '') return notRun(id, { patch_is_None: false, patch_exists: false }, 'empty patch');
  // the task's environment (SPEC §14): its image as the root, setup on the fresh copy
  const env = await resolveEnvironment(task);
  if (env !== null) task = { ...task, repoDir: env.repoDir };
  const sandbox = environmentSandbox(o.sandbox, env);
  const ws = await createWorkspace(task.repoDir, { owner: o.sandbox.owner, parent: o.tmpDir, repoMB: o.sandbox.options?.repoMB });
  let setupBase: SetupSnapshot | null = null;
  try {
    const timeoutMs = (o.timeoutSeconds ?? resolveLimits(task.limits, undefined).commandSeconds) * 1000;
    const setup = await runSetup(sandbox, ws.repo, env, { timeoutMs, signal: o.signal });
    const setupError = setupFailure(setup);
    if (setupError !== null) return notRun(id, { patch_is_None: false, patch_exists: true }, setupError);
    // as in an episode: the patch is diffed against the repo as setup left it
    setupBase = await snapshotAfterSetup(ws.repo, setup, o.tmpDir);
    try {
      await applyUnifiedDiff(ws.repo, patch);
    } catch (e) {
      return notRun(id, { patch_is_None: false, patch_exists: true }, `the patch does not apply: ${(e as Error).message.replace(/^applyUnifiedDiff: /, '')}`);
    }
    // the files the patch wrote are this process's: the sandbox user must own them, as an agent's edits
    if (o.sandbox.owner) await chownTree(ws.repo, o.sandbox.owner);
    const g = await gradeRepo(setupBase ? { ...task, repoDir: setupBase.dir } : task, ws.repo, sandbox, { timeoutMs, signal: o.signal, envPaths: repoPathsInEnv(env) });
    const report: InstanceReport = { patch_is_None: false, patch_exists: true, patch_successfully_applied: true, resolved: g.success, tests_status: testsStatus(task.tests, g.tests) };
    const reason = g.success ? undefined : (g.error ?? g.reason ?? 'the tests failed');
    return { instanceId: id, report, ...(reason !== undefined ? { reason } : {}), log: gradingLog(id, task, g), aborted: g.run?.aborted === true };
  } finally {
    await setupBase?.dispose();
    await ws.dispose();
  }
}

/** What {@link evaluatePredictions} returns. */
export interface EvaluationOutcome {
  /** `report.json`: one entry per evaluated prediction, in the predictions' order. */
  report: EvaluationReport;
  /** The evaluations, in the predictions' order. */
  evaluations: InstanceEvaluation[];
  /** Predictions whose `instance_id` is no task's id (not evaluated). */
  unknown: string[];
}

/**
 * Evaluates every prediction whose `instance_id` names a task, `concurrency` at
 * a time ({@link evaluatePrediction} each); a prediction for no task is listed in
 * `unknown` and skipped. After an abort nothing more starts and aborted
 * gradings are left out.
 */
export async function evaluatePredictions(tasks: readonly LoadedLeafTask[], predictions: readonly Prediction[], opts: EvaluatePredictionsOptions): Promise<EvaluationOutcome> {
  const o = parseOptions('evaluatePredictions', EvaluatePredictionsOptionsSchema, opts);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const unknown = predictions.filter((p) => !byId.has(p.instance_id)).map((p) => p.instance_id);
  const todo = predictions.filter((p) => byId.has(p.instance_id));
  const results: (InstanceEvaluation | undefined)[] = new Array(todo.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length && !o.signal?.aborted) {
      const i = next++;
      const e = await evaluatePrediction(byId.get(todo[i]!.instance_id)!, todo[i]!, opts);
      if (e.aborted || o.signal?.aborted) continue;
      results[i] = e;
      await o.onInstance?.(e);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 1, Math.max(1, todo.length)) }, worker));
  const evaluations = results.filter((e): e is InstanceEvaluation => e !== undefined);
  return { report: Object.fromEntries(evaluations.map((e) => [e.instanceId, e.report])), evaluations, unknown };
}
