/**
 * Executable validation of a TaskPilot candidate (FrogNano §3, Fig. 4; SPEC §15):
 * its test ids found by running the tests before and after the gold patch, the
 * discard reasons of SPEC §15, then `validateLeafTask`'s confirmation.
 * @module
 */
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { applyUnifiedDiff, createWorkspace, environmentSandbox, FAIL_TO_PASS_OK, flakyTests, type GradedTest, resolveEnvironment, runSetup, type Sandbox, setupFailure, validateLeafTask, writeHiddenFiles } from '../leaf/index.js';
import { runGradingTests, type TestRunGrading } from '../leaf/runGradingTests.js';
import { chownTree } from '../leaf/workspace.js';
import type { DiscardReason, PilotCandidate } from './candidate.js';
import { candidateTask } from './candidateTask.js';

/** Options of {@link validateCandidate}. */
export interface ValidateCandidateOptions {
  /** The sandbox the test runs go through. */
  sandbox: Sandbox;
  /** Runs of each side; a test whose status differs between them is flaky. Default 2. */
  repeat?: number;
  /** Time limit of one test run, seconds. Default 120. */
  timeoutSeconds?: number;
  /** Folder for the workspaces (default the OS temporary folder). */
  tmpDir?: string;
  /** Stops the validation. */
  signal?: AbortSignal;
}

/** What {@link validateCandidate} found. */
export type CandidateValidation =
  | { ok: true; candidate: PilotCandidate }
  | { ok: false; reason: DiscardReason; detail: string };

const PASSING: readonly string[] = FAIL_TO_PASS_OK;
const passing = (s: string | undefined): boolean => s !== undefined && PASSING.includes(s);

/** A side's statuses by id (first run). */
function statuses(g: TestRunGrading): Map<string, string> {
  return new Map((g.tests as GradedTest[]).filter((t) => 'status' in t).map((t) => [t.name, t.status]));
}

/** Whether a test id belongs to one of the hidden files: `path` or `path::...` (pytest), or `module.` + ... (unittest: `tests/test_x.py` is `tests.test_x`). */
function inHiddenFile(id: string, paths: readonly string[]): boolean {
  return paths.some((p) => id === p || id.startsWith(`${p}::`) || (p.endsWith('.py') && id.startsWith(`${p.slice(0, -3).replace(/\//g, '.')}.`)));
}

/**
 * Validates one candidate (SPEC §15) on fresh copies of `repoDir`, each side run
 * `repeat` times (default 2): *before* = the hidden files written in; *after* = the gold
 * patch applied, then the hidden files. The test log (`tests.log`, default `pytest`) is
 * read per test exactly as grading reads it (`runGradingTests`, no lists: every parsed test).
 *
 * - `failToPass` = the hidden files' ids (where ids name their files: `path::name`, or the
 *   unittest module of `path`; else every id) not passing before (failed, error, missing) and
 *   passing after; `passToPass` = ids passing on both sides (passing = passed / xfail / xpass);
 * - the untouched snapshot (no hidden files) is run once too: an id passing there must pass
 *   after (a hidden file cannot drop a test of the snapshot's suite from both sides);
 * - with an environment, its setup runs on every copy; a setup that fails with the gold patch
 *   discards the candidate (`tests-fail-after`), one that fails without it is the
 *   environment's error (`SANDBOX_UNAVAILABLE`);
 * - discard reasons, checked in this order:
 *   `patch-does-not-apply` (the gold patch fails to apply),
 *   `flaky` (a test's status differs between the `repeat` runs of one side: `flakyTests`),
 *   `p2p-broken` (an id passing before fails after),
 *   `tests-fail-after` (a test of the hidden files does not pass after; the suite printing no test after),
 *   `tests-already-pass` (no id flips: the hidden tests pass before already);
 *   the hidden-file tests are the ids naming a hidden path (`path::name`); where no id names
 *   one (TAP names, say), every id not passing before counts as a hidden-file test.
 * - a candidate with lists already (mutation fills them) is checked against them instead, as
 *   `validate-tasks` does: a fail-to-pass id passing before -> `tests-already-pass`, not passing
 *   after -> `tests-fail-after`, a pass-to-pass id not passing on both -> `p2p-broken`.
 *
 * Finally the task `candidateTask(c)` (lists filled) is confirmed with `validateLeafTask`
 * (one run per side); a disagreement is discarded with its reason mapped to the SPEC §15 words.
 */
export async function validateCandidate(c: PilotCandidate, opts: ValidateCandidateOptions): Promise<CandidateValidation> {
  const repeat = opts.repeat ?? 2;
  const timeoutMs = (opts.timeoutSeconds ?? 120) * 1000;
  const log = c.tests.log ?? 'pytest';
  const task = { ...candidateTask(c), tests: { command: c.tests.command, log, files: { ...c.tests.files } } };
  const hiddenPaths = Object.keys(c.tests.files);
  // the candidate's environment (SPEC §14): its image as the root of every run, setup on each fresh copy
  const env = await resolveEnvironment(task);
  const sandbox = environmentSandbox(opts.sandbox, env);

  const runOnce = async (patched: boolean, withHidden = true): Promise<TestRunGrading | string> => {
    const ws = await createWorkspace(env?.repoDir ?? c.repoDir, { owner: opts.sandbox.owner, parent: opts.tmpDir, repoMB: opts.sandbox.options?.repoMB });
    try {
      if (patched) {
        try {
          await applyUnifiedDiff(ws.repo, c.goldPatch);
        } catch (e) {
          return (e as Error).message.replace(/^applyUnifiedDiff: /, '');
        }
      }
      const setupError = setupFailure(await runSetup(sandbox, ws.repo, env, { timeoutMs, signal: opts.signal }));
      // with the gold patch a failing setup is the candidate's fault (its patch broke the install); without, the environment's
      if (setupError !== null && patched) return `the environment's setup fails with the gold patch: ${setupError}`;
      if (setupError !== null) throw new FrognanoError(ErrorCode.SANDBOX_UNAVAILABLE, `candidate ${c.id}: ${setupError}`, { fn: 'validateCandidate', field: 'environment.setup' });
      if (withHidden) await writeHiddenFiles(ws.repo, c.tests.files, null);
      if (opts.sandbox.owner) await chownTree(ws.repo, opts.sandbox.owner);
      return await runGradingTests(task, ws.repo, sandbox, { timeoutMs, signal: opts.signal, readOnly: hiddenPaths });
    } finally {
      await ws.dispose();
    }
  };
  if (c.goldPatch.trim() === '') return { ok: false, reason: 'patch-does-not-apply', detail: 'the gold patch is empty' };
  const side = async (patched: boolean): Promise<TestRunGrading[] | string> => {
    const runs: TestRunGrading[] = [];
    for (let i = 0; i < repeat; i++) {
      const r = await runOnce(patched);
      if (typeof r === 'string') return r;
      runs.push(r);
    }
    return runs;
  };
  // the patch first: one cheap apply on a copy before any test runs
  const after = await side(true);
  if (typeof after === 'string') {
    return after.startsWith("the environment's setup") ? { ok: false, reason: 'tests-fail-after', detail: after } : { ok: false, reason: 'patch-does-not-apply', detail: `the gold patch does not apply: ${after}` };
  }
  const before = await side(false);
  if (typeof before === 'string') return { ok: false, reason: 'tests-fail-after', detail: before };

  const ids = [...new Set([...before, ...after].flatMap((g) => (g.tests as GradedTest[]).map((t) => t.name)))].sort();
  const flaky = flakyTests(before, after, ids, timeoutMs);
  if (flaky) return { ok: false, reason: 'flaky', detail: flaky.reason };
  const b = statuses(before[0]!);
  const a = statuses(after[0]!);
  const st = (m: Map<string, string>, id: string): string => m.get(id) ?? 'missing';
  if (a.size === 0) return { ok: false, reason: 'tests-fail-after', detail: `no test in the log with the gold patch (exit ${after[0]!.run.exitCode ?? 'killed'}): ${tail(after[0]!.run.output)}` };

  if (c.tests.failToPass?.length || c.tests.passToPass?.length) {
    for (const id of c.tests.failToPass ?? []) {
      if (passing(b.get(id))) return { ok: false, reason: 'tests-already-pass', detail: `fail-to-pass ${id} is ${st(b, id)} without the gold patch` };
      if (!passing(a.get(id))) return { ok: false, reason: 'tests-fail-after', detail: `fail-to-pass ${id} is ${st(a, id)} with the gold patch` };
    }
    for (const id of c.tests.passToPass ?? []) {
      const keep = (s: string | undefined): boolean => passing(s) || s === 'skipped';
      if (!keep(b.get(id)) || !keep(a.get(id))) return { ok: false, reason: 'p2p-broken', detail: `pass-to-pass ${id} is ${st(b, id)} before and ${st(a, id)} after` };
    }
    return confirm({ ...c, tests: { ...c.tests, log } }, opts);
  }

  const broken = ids.find((id) => passing(b.get(id)) && !passing(a.get(id)) && a.get(id) !== 'skipped');
  if (broken) return { ok: false, reason: 'p2p-broken', detail: `${broken} passes without the gold patch and is ${st(a, broken)} with it` };
  // SPEC §15: "the snapshot's existing suite stays as it was": the untouched snapshot's passing tests (no hidden
  // files: a hidden conftest.py or an overwritten test file could otherwise drop tests from both sides)
  const snapshot = await runOnce(false, false);
  if (typeof snapshot !== 'string') {
    const s = statuses(snapshot);
    const lost = [...s.keys()].sort().find((id) => passing(s.get(id)) && !passing(a.get(id)) && a.get(id) !== 'skipped');
    if (lost) return { ok: false, reason: 'p2p-broken', detail: `${lost} passes on the untouched snapshot and is ${st(a, lost)} with the hidden tests and the gold patch` };
  }
  const named = ids.filter((id) => inHiddenFile(id, hiddenPaths));
  const hidden = named.length > 0 ? named : ids.filter((id) => !passing(b.get(id)));
  const failingAfter = hidden.find((id) => !passing(a.get(id)));
  if (failingAfter) return { ok: false, reason: 'tests-fail-after', detail: `${failingAfter} is ${st(a, failingAfter)} with the gold patch` };
  // the fail-to-pass tests are the hidden ones (where ids name their files): a repo test the gold patch
  // itself adds or fixes is not one the agent is graded by
  const failToPass = hidden.filter((id) => !passing(b.get(id)) && passing(a.get(id)));
  const passToPass = ids.filter((id) => passing(b.get(id)) && passing(a.get(id)));
  if (failToPass.length === 0) return { ok: false, reason: 'tests-already-pass', detail: `no test flips: the ${hidden.length} hidden-file tests pass without the gold patch` };
  return confirm({ ...c, tests: { ...c.tests, log, failToPass, passToPass } }, opts);
}

const tail = (s: string): string => {
  const t = s.trim();
  return t.length > 300 ? `...${t.slice(-300)}` : t;
};

/** `validateLeafTask` on the filled task; its reason in SPEC §15's words. */
async function confirm(c: PilotCandidate, opts: ValidateCandidateOptions): Promise<CandidateValidation> {
  const v = await validateLeafTask(candidateTask(c), { sandbox: opts.sandbox, repeat: 1, ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}), ...(opts.tmpDir ? { tmpDir: opts.tmpDir } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
  if (v.valid) return { ok: true, candidate: c };
  const r = v.reason ?? 'invalid';
  const reason: DiscardReason = /does not apply/.test(r) ? 'patch-does-not-apply'
    : /^flaky/.test(r) ? 'flaky'
    : /fail-to-pass test does not fail|pass on the unmodified/.test(r) ? 'tests-already-pass'
    : /pass-to-pass/.test(r) ? 'p2p-broken'
    : 'tests-fail-after';
  return { ok: false, reason, detail: `validateLeafTask: ${r}` };
}
