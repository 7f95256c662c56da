import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import { gradeTestIds, type GradeTestIdsInput } from './gradeTestIds.js';
import { parsePytestLog } from './parsePytestLog.js';
import type { TestResult, TestStatus } from './testResult.js';

const ID = 'tests/test_x.py::test_target';
/** A second, unlisted test that failed: the log explains a non-zero exit. */
const OTHER_FAILED: TestResult = { name: 'tests/test_x.py::test_other', status: 'failed' };

/** The exit status a real pytest run gives for a log whose worst status is `s` (1 when something failed or errored). */
function pytestExit(statuses: readonly (TestStatus | 'missing')[]): number {
  return statuses.some((s) => s === 'failed' || s === 'error') ? 1 : 0;
}

function resultsWith(name: string, s: TestStatus | 'missing'): TestResult[] {
  return s === 'missing' ? [{ name: 'tests/test_x.py::test_unrelated', status: 'passed' }] : [{ name, status: s }];
}

describe('gradeTestIds: one fail-to-pass id in each status (SPEC §14)', () => {
  it.each<[TestStatus | 'missing', boolean]>([
    ['passed', true],
    ['xfail', true],
    ['xpass', true],
    ['failed', false],
    ['error', false],
    ['skipped', false],
    ['missing', false],
  ])('%s -> success %s', (status, success) => {
    const g = gradeTestIds({ results: resultsWith(ID, status), failToPass: [ID], exitCode: pytestExit([status]) });
    expect(g.tests).toEqual([{ name: ID, passed: success, status }]);
    expect(g.success).toBe(success);
    if (success) expect(g.reason).toBeUndefined();
    else if (status === 'missing') expect(g.reason).toBe('none of the 1 listed tests is in the log (the suite never ran)');
    else expect(g.reason).toBe(`fail-to-pass test "${ID}" is ${status}`);
  });
});

describe('gradeTestIds: one pass-to-pass id in each status (SPEC §14)', () => {
  it.each<[TestStatus | 'missing', boolean]>([
    ['passed', true],
    ['xfail', true],
    ['xpass', true],
    // a skipped pass-to-pass test is maintained (SWE-bench's test_maintained)
    ['skipped', true],
    ['failed', false],
    ['error', false],
    ['missing', false],
  ])('%s -> success %s', (status, success) => {
    const f2p = 'tests/test_x.py::test_fixed';
    const results = [{ name: f2p, status: 'passed' as const }, ...(status === 'missing' ? [] : [{ name: ID, status }])];
    const g = gradeTestIds({ results, failToPass: [f2p], passToPass: [ID], exitCode: pytestExit([status]) });
    expect(g.tests).toEqual([
      { name: f2p, passed: true, status: 'passed' },
      { name: ID, passed: success, status },
    ]);
    expect(g.success).toBe(success);
    expect(g.reason).toBe(success ? undefined : `pass-to-pass test "${ID}" is ${status}`);
  });
});

describe('gradeTestIds: where frognano differs from SWE-bench', () => {
  // SWE-bench (github.com/SWE-bench/SWE-bench, swebench/harness/grading.py at commit 2ff017b9):
  //   def test_passed(case, sm): return case in sm and sm[case] in [TestStatus.PASSED.value, TestStatus.XFAIL.value]
  //   def test_failed(case, sm): return case not in sm or sm[case] in [FAILED, ERROR, SKIPPED]
  // and swebench/harness/constants/__init__.py's TestStatus is FAILED, PASSED, SKIPPED, ERROR, XFAIL: no XPASS,
  // so a test pytest reports `XPASS` is absent from SWE-bench's status map, test_failed is true, and a
  // fail-to-pass xpass fails the instance there. SPEC §14 counts xpass as passed.
  it('a fail-to-pass xpass passes (SWE-bench: absent from its map, so failed)', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'xpass' }], failToPass: [ID], exitCode: 0 });
    expect(g).toEqual({ success: true, tests: [{ name: ID, passed: true, status: 'xpass' }] });
  });

  it('a pass-to-pass xpass is maintained (SWE-bench: absent, so failed)', () => {
    const g = gradeTestIds({ results: [{ name: 'a', status: 'passed' }, { name: ID, status: 'xpass' }], failToPass: ['a'], passToPass: [ID], exitCode: 0 });
    expect(g.success).toBe(true);
    expect(g.tests[1]).toEqual({ name: ID, passed: true, status: 'xpass' });
  });

  it('the same xpass test is XPASS in a real pytest log and graded passed', () => {
    const results = parsePytestLog(readTestLog('pytest/rA-pytest9.log'));
    const g = gradeTestIds({ results, failToPass: ['tests/test_basic.py::test_xpass', 'tests/test_basic.py::test_xfail'], exitCode: 1 });
    expect(g).toEqual({
      success: true,
      tests: [
        { name: 'tests/test_basic.py::test_xpass', passed: true, status: 'xpass' },
        { name: 'tests/test_basic.py::test_xfail', passed: true, status: 'xfail' },
      ],
    });
  });
});

describe('gradeTestIds: frognano\'s rule on top, a non-zero exit without a failed/error test', () => {
  it('every listed test passed, the command exited 1, nothing failed: not a success', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'passed' }], failToPass: [ID], exitCode: 1 });
    expect(g).toEqual({
      success: false,
      tests: [{ name: ID, passed: true, status: 'passed' }],
      reason: 'the test command exited with 1 but its log shows no failed or error test (its results are not trusted)',
    });
  });

  it('a killed command (no exit status) with a clean log: not a success', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'passed' }], failToPass: [ID], exitCode: null });
    expect(g.success).toBe(false);
    expect(g.reason).toBe('the test command was killed (no exit status) but its log shows no failed or error test (its results are not trusted)');
  });

  it('the rule reads ALL results: an unlisted failed test explains exit 1, and the listed ones decide', () => {
    expect(gradeTestIds({ results: [{ name: ID, status: 'passed' }, OTHER_FAILED], failToPass: [ID], exitCode: 1 })).toEqual({
      success: true,
      tests: [{ name: ID, passed: true, status: 'passed' }],
    });
    expect(gradeTestIds({ results: [{ name: ID, status: 'passed' }, { ...OTHER_FAILED, status: 'error' }], failToPass: [ID], exitCode: 2 }).success).toBe(true);
  });

  it('skipped, xfail and xpass do not explain a non-zero exit', () => {
    for (const status of ['skipped', 'xfail', 'xpass'] as const) {
      const g = gradeTestIds({ results: [{ name: ID, status: 'passed' }, { ...OTHER_FAILED, status }], failToPass: [ID], exitCode: 1 });
      expect(g.success).toBe(false);
    }
  });

  it('a listed failure is named before the exit status', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'failed' }], failToPass: [ID], exitCode: 1 });
    expect(g.reason).toBe(`fail-to-pass test "${ID}" is failed`);
  });
});

describe('gradeTestIds: the suite never ran', () => {
  it('a real pytest collection error: none of the listed tests is in the log', () => {
    const results = parsePytestLog(readTestLog('pytest/collection-error-pytest9.log'));
    expect(results).toEqual([{ name: 'tests/test_broken.py', status: 'error' }]);
    const g = gradeTestIds({ results, failToPass: ['tests/test_flaky.py::test_flaky'], passToPass: ['tests/test_broken.py::test_never'], exitCode: 2 });
    expect(g).toEqual({
      success: false,
      tests: [
        { name: 'tests/test_flaky.py::test_flaky', passed: false, status: 'missing' },
        { name: 'tests/test_broken.py::test_never', passed: false, status: 'missing' },
      ],
      reason: 'none of the 2 listed tests is in the log (the suite never ran)',
    });
  });

  it('an empty log with exit 0 is still a failure (nothing ran)', () => {
    const g = gradeTestIds({ results: [], failToPass: [ID], exitCode: 0 });
    expect(g.success).toBe(false);
    expect(g.reason).toBe('none of the 1 listed tests is in the log (the suite never ran)');
  });

  it('one listed test present and one missing is an offending id, not a suite that never ran', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'passed' }], failToPass: [ID, 'tests/test_x.py::test_gone'], exitCode: 0 });
    expect(g.reason).toBe('fail-to-pass test "tests/test_x.py::test_gone" is missing');
  });

  it('a real crash mid-run: the finished test is graded, the crashed one is missing', () => {
    const results = parsePytestLog(readTestLog('pytest/crash-v-pytest7.log'));
    const g = gradeTestIds({ results, failToPass: ['tests/test_crash.py::test_crash'], passToPass: ['tests/test_crash.py::test_before_crash'], exitCode: 3 });
    expect(g).toEqual({
      success: false,
      tests: [
        { name: 'tests/test_crash.py::test_crash', passed: false, status: 'missing' },
        { name: 'tests/test_crash.py::test_before_crash', passed: true, status: 'passed' },
      ],
      reason: 'fail-to-pass test "tests/test_crash.py::test_crash" is missing',
    });
  });
});

describe('gradeTestIds: without lists (SPEC §12: success = exit 0)', () => {
  const results: TestResult[] = [
    { name: 'a', status: 'passed' },
    { name: 'b', status: 'skipped' },
    { name: 'c', status: 'xfail' },
    { name: 'd', status: 'failed' },
  ];
  const tests = [
    { name: 'a', passed: true, status: 'passed' },
    { name: 'b', passed: false, status: 'skipped' },
    { name: 'c', passed: true, status: 'xfail' },
    { name: 'd', passed: false, status: 'failed' },
  ];

  it('exit 0 is a success whatever the log says, and tests are every parsed test', () => {
    expect(gradeTestIds({ results, exitCode: 0 })).toEqual({ success: true, tests });
  });

  it('a non-zero exit or a kill is a failure', () => {
    expect(gradeTestIds({ results, exitCode: 1 })).toEqual({ success: false, tests, reason: 'the test command exited with 1' });
    expect(gradeTestIds({ results: [], exitCode: null })).toEqual({ success: false, tests: [], reason: 'the test command was killed (no exit status)' });
  });

  it('two empty lists are no lists', () => {
    expect(gradeTestIds({ results, failToPass: [], passToPass: [], exitCode: 0 })).toEqual({ success: true, tests });
  });
});

describe('gradeTestIds: lists and results', () => {
  it('an id in both lists is one entry and must meet both rules (skipped fails the fail-to-pass one)', () => {
    const g = gradeTestIds({ results: [{ name: ID, status: 'skipped' }, OTHER_FAILED], failToPass: [ID], passToPass: [ID, 'x'], exitCode: 1 });
    expect(g.tests).toEqual([
      { name: ID, passed: false, status: 'skipped' },
      { name: 'x', passed: false, status: 'missing' },
    ]);
    expect(g.reason).toBe(`fail-to-pass test "${ID}" is skipped`);
  });

  it('a repeated result: the last one wins', () => {
    const results: TestResult[] = [
      { name: ID, status: 'failed' },
      { name: ID, status: 'passed' },
    ];
    expect(gradeTestIds({ results, failToPass: [ID], exitCode: 1 }).tests).toEqual([{ name: ID, passed: true, status: 'passed' }]);
  });

  it('grades a real -rA -v log against SWE-bench-style lists', () => {
    const results = parsePytestLog(readTestLog('pytest/rA-v-pytest7.log'));
    const input: GradeTestIdsInput = {
      results,
      failToPass: ['tests/test_basic.py::TestGroup::test_param[a b-1]', 'tests/test_basic.py::test_ids[with space]'],
      passToPass: ['tests/test_basic.py::test_skip_marker', 'tests/test_basic.py::test_unicode[gr\\xfc\\xdf]', 'tests/test_basic.py::test_ids[a-b - c]'],
      exitCode: 1,
    };
    expect(gradeTestIds(input)).toEqual({
      success: false,
      tests: [
        { name: 'tests/test_basic.py::TestGroup::test_param[a b-1]', passed: true, status: 'passed' },
        { name: 'tests/test_basic.py::test_ids[with space]', passed: true, status: 'passed' },
        { name: 'tests/test_basic.py::test_skip_marker', passed: true, status: 'skipped' },
        { name: 'tests/test_basic.py::test_unicode[gr\\xfc\\xdf]', passed: true, status: 'passed' },
        { name: 'tests/test_basic.py::test_ids[a-b - c]', passed: false, status: 'failed' },
      ],
      reason: 'pass-to-pass test "tests/test_basic.py::test_ids[a-b - c]" is failed',
    });
  });
});

describe('gradeTestIds input', () => {
  function refusal(input: unknown): { code: string; message: string } {
    try {
      gradeTestIds(input as GradeTestIdsInput);
    } catch (e) {
      if (isFrognanoError(e)) return { code: e.code, message: e.message };
      throw e;
    }
    throw new Error('accepted');
  }

  it('names the offending field', () => {
    expect(refusal({ results: [{ name: 'a', status: 'broken' }], exitCode: 0 })).toEqual({
      code: 'INVALID_TYPE',
      message: 'gradeTestIds: input.results[0].status: expected one of "passed"|"failed"|"error"|"skipped"|"xfail"|"xpass", got "broken"',
    });
    expect(refusal({ results: [], exitCode: 0, extra: 1 })).toEqual({ code: 'INVALID_TYPE', message: 'gradeTestIds: input: unknown field(s) "extra"' });
    expect(refusal({ results: [], failToPass: [3], exitCode: 0 })).toEqual({ code: 'INVALID_TYPE', message: 'gradeTestIds: input.failToPass[0] must be a string, got 3' });
    expect(refusal({ results: [], exitCode: 1.5 })).toEqual({ code: 'OUT_OF_RANGE', message: 'gradeTestIds: input.exitCode must be an integer, got 1.5' });
    expect(refusal(null)).toEqual({ code: 'INVALID_TYPE', message: 'gradeTestIds: input must be an object, got null' });
  });
});
