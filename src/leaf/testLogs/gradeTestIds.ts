import { z } from 'zod';
import { parseWith } from '../../errors/validate.js';
import { lastOccurrenceWins } from './lastOccurrenceWins.js';
import { TestResultSchema, type TestResult, type TestStatus } from './testResult.js';

/** The statuses that make a fail-to-pass test pass (SPEC §14; SWE-bench's `test_passed` plus `xpass`). */
export const FAIL_TO_PASS_OK: readonly TestStatus[] = ['passed', 'xfail', 'xpass'];
/** The statuses that keep a pass-to-pass test passing (SPEC §14; SWE-bench's `test_maintained` plus `xpass`). */
export const PASS_TO_PASS_OK: readonly TestStatus[] = ['passed', 'xfail', 'xpass', 'skipped'];

/** The input of {@link gradeTestIds}. */
export const GradeTestIdsInputSchema = z
  .object({
    /** What the log parser read (SPEC §14); a repeated name's last entry wins. */
    results: z.array(TestResultSchema),
    /** Test ids that must pass. Default none. */
    failToPass: z.array(z.string()).optional(),
    /** Test ids that must keep passing. Default none. */
    passToPass: z.array(z.string()).optional(),
    /** The test command's exit status; `null` when it was killed (timeout, abort, output limit). */
    exitCode: z.number().int().nullable(),
  })
  .strict();
/** The input of {@link gradeTestIds} as the caller writes it. */
export type GradeTestIdsInput = z.input<typeof GradeTestIdsInputSchema>;

/** One graded test: the SPEC §14 trajectory `tests` entry. */
export interface GradedTest {
  /** The test id. */
  name: string;
  /** It counts as passing under its list's rule (unlisted tests: passed, xfail or xpass). */
  passed: boolean;
  /** Its status in the log, or `missing` when the log does not show it. */
  status: TestStatus | 'missing';
}

/** The grading of one run (SPEC §14 "Grading with test ids"). */
export interface TestIdGrading {
  /** The run passes the task. */
  success: boolean;
  /** With lists: one entry per listed id (fail-to-pass first, then pass-to-pass, each id once); without: every parsed test. */
  tests: GradedTest[];
  /** Why `success` is false: the suite never ran, the first offending id, or printed fake results. Absent on success. */
  reason?: string;
}

function exitText(exitCode: number | null): string {
  return exitCode === null ? 'was killed (no exit status)' : `exited with ${exitCode}`;
}

/**
 * The SPEC §14 grading rule over a parsed log, a pure function.
 *
 * With lists (at least one id in `failToPass` or `passToPass`):
 * - a listed id absent from `results` is `missing`;
 * - every fail-to-pass id must be `passed`, `xfail` or `xpass` ({@link FAIL_TO_PASS_OK}) and
 *   every pass-to-pass id `passed`, `xfail`, `xpass` or `skipped` ({@link PASS_TO_PASS_OK});
 *   an id in both lists must meet both. These are SWE-bench's rules
 *   (`swebench/harness/grading.py`: `test_passed` = PASSED or XFAIL, `test_maintained` =
 *   `test_passed` or SKIPPED, `test_failed` = absent, FAILED, ERROR or SKIPPED) except for
 *   `xpass`, which SWE-bench's statuses do not have (an `XPASS` line is absent from its map,
 *   so `test_failed`) and frognano counts as passed;
 * - when none of the listed ids is in the log, the suite never ran: failure with that reason;
 * - frognano's own rule: a command that exits non-zero (or is killed) while NO parsed result,
 *   listed or not, is `failed` or `error` is not a success (the log's results may be printed
 *   fakes).
 * `reason` names the first cause in that order: the suite never ran, the first offending id
 * (fail-to-pass ids first), the exit status.
 *
 * Without lists (none given, or both empty): `success` = exit 0 (SPEC §12), `tests` = every
 * parsed test, `passed` when its status is `passed`, `xfail` or `xpass`.
 *
 * @throws FrognanoError `INVALID_TYPE` for a malformed input, naming the field (a status
 *   outside {@link TestStatus}: `input.results[2].status`; an unknown key), `OUT_OF_RANGE` for
 *   a fractional `exitCode`
 * @example gradeTestIds({ results: [{ name: 't::a', status: 'passed' }], failToPass: ['t::a'], exitCode: 0 })
 *   // { success: true, tests: [{ name: 't::a', passed: true, status: 'passed' }] }
 */
export function gradeTestIds(input: GradeTestIdsInput): TestIdGrading {
  const { results, failToPass = [], passToPass = [], exitCode } = parseWith('gradeTestIds', 'input', GradeTestIdsInputSchema, input);
  const parsed = lastOccurrenceWins(results as TestResult[]);
  if (failToPass.length === 0 && passToPass.length === 0) {
    const tests = parsed.map((r) => ({ name: r.name, passed: FAIL_TO_PASS_OK.includes(r.status), status: r.status }));
    return exitCode === 0 ? { success: true, tests } : { success: false, tests, reason: `the test command ${exitText(exitCode)}` };
  }
  const status = new Map(parsed.map((r) => [r.name, r.status]));
  const f2p = new Set(failToPass);
  const p2p = new Set(passToPass);
  const tests: GradedTest[] = [];
  let offending: string | undefined;
  for (const name of new Set([...failToPass, ...passToPass])) {
    const s = status.get(name) ?? 'missing';
    const okF2p = !f2p.has(name) || (s !== 'missing' && FAIL_TO_PASS_OK.includes(s));
    const okP2p = !p2p.has(name) || (s !== 'missing' && PASS_TO_PASS_OK.includes(s));
    tests.push({ name, passed: okF2p && okP2p, status: s });
    if (offending === undefined && !(okF2p && okP2p)) {
      offending = `${okF2p ? 'pass-to-pass' : 'fail-to-pass'} test ${JSON.stringify(name)} is ${s}`;
    }
  }
  const fakeResults = exitCode !== 0 && !parsed.some((r) => r.status === 'failed' || r.status === 'error');
  let reason: string | undefined;
  if (tests.every((t) => t.status === 'missing')) reason = `none of the ${tests.length} listed tests is in the log (the suite never ran)`;
  else if (offending !== undefined) reason = offending;
  else if (fakeResults) reason = `the test command ${exitText(exitCode)} but its log shows no failed or error test (its results are not trusted)`;
  return reason === undefined ? { success: true, tests } : { success: false, tests, reason };
}
