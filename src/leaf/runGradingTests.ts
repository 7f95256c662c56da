import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isFrognanoError } from '../errors/FrognanoError.js';
import type { CommandResult, Sandbox } from './sandbox.js';
import { GRADING_ENV } from './sandboxProcess.js';
import type { LeafTask } from './task.js';
import { type GradedTest, gradeTestIds, TEST_LOG_PARSERS, type TestResult } from './testLogs/index.js';

export { GRADING_ENV };

/** Characters of the grading log kept for the per-test parsers (the record keeps the sandbox's usual cap). */
const LOG_CHARS = 16 * 1024 * 1024;

/** The result of one grading run read per test (SPEC §14). */
export interface TestRunGrading {
  /** The run passes the task. */
  success: boolean;
  /** The trajectory's `tests`: per listed id (`{ name, passed, status }`), every parsed test, or the single `tests` entry of `exit-code`. */
  tests: (GradedTest | { name: string; passed: boolean })[];
  /** Why it did not pass, when the log says (the suite never ran, the first offending id, printed fake results). */
  reason?: string;
  /** A failure to read the results that the repo's state caused (an unreadable JUnit report). */
  error?: string;
  /** The run itself. */
  run: CommandResult;
}

/**
 * Runs `tests.command` for grading and reads its results (SPEC §12, §14): with
 * `tests.log` `exit-code` (the default), success is exit 0; otherwise the log (or,
 * for `junit-xml`, the report at `junitPath`, removed before the run so that no
 * planted report is read) is parsed and graded by {@link gradeTestIds} against
 * `failToPass` / `passToPass`. `readOnly` paths are bound read-only for the run.
 */
export async function runGradingTests(task: LeafTask, repo: string, sandbox: Sandbox, opts: { timeoutMs: number; signal?: AbortSignal; readOnly: string[] }): Promise<TestRunGrading> {
  const t = task.tests;
  const log = t.log ?? 'exit-code';
  if (t.junitPath !== undefined) await rm(join(repo, t.junitPath), { force: true, recursive: true });
  const run = await sandbox.run(repo, t.command, { timeoutMs: opts.timeoutMs, signal: opts.signal, readOnly: opts.readOnly, env: { ...GRADING_ENV }, ...(log === 'exit-code' ? {} : { maxOutputChars: LOG_CHARS }) });
  if (log === 'exit-code') return { success: run.exitCode === 0, tests: [{ name: 'tests', passed: run.exitCode === 0 }], run };
  let results: TestResult[];
  try {
    results = log === 'junit-xml' ? await junitResults(join(repo, t.junitPath!)) : TEST_LOG_PARSERS[log](run.output);
  } catch (e) {
    if (!isFrognanoError(e)) throw e;
    return { success: false, tests: [], error: `the JUnit report ${t.junitPath} could not be read: ${e.message}`, run };
  }
  const g = gradeTestIds({ results, failToPass: t.failToPass, passToPass: t.passToPass, exitCode: run.exitCode });
  return { success: g.success, tests: g.tests, ...(g.reason !== undefined ? { reason: g.reason } : {}), run };
}

/** The results of a JUnit report; a report the command did not write is no results (the suite never ran). */
async function junitResults(path: string): Promise<TestResult[]> {
  let xml: string;
  try {
    xml = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  return TEST_LOG_PARSERS['junit-xml'](xml);
}
