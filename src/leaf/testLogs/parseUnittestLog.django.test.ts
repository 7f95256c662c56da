import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { djangoTestId } from '../sweBenchSpecs.js';
import { gradeTestIds } from './gradeTestIds.js';
import { parseUnittestLog } from './parseUnittestLog.js';
import type { TestResult, TestStatus } from './testResult.js';

/**
 * Real `tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1` output (SWE-bench's
 * django test_cmd) of Django 3.2.25 + Debian's patches, CPython 3.11.2: see the README of
 * test/fixtures/test-logs, `capture.sh django`.
 */
const Q = 'queries.test_q.QTests.';
/** queries.test_q's tests in the order runtests.py prints them (alphabetical). */
const Q_TESTS = [
  'test_combine_and_both_empty', 'test_combine_and_empty', 'test_combine_negated_boolean_expression',
  'test_combine_not_q_object', 'test_combine_or_both_empty', 'test_combine_or_empty', 'test_connector_validation',
  'test_deconstruct', 'test_deconstruct_and', 'test_deconstruct_boolean_expression', 'test_deconstruct_multiple_kwargs',
  'test_deconstruct_negated', 'test_deconstruct_nested', 'test_deconstruct_or', 'test_reconstruct',
  'test_reconstruct_and', 'test_reconstruct_negated', 'test_reconstruct_or',
];
const qResults = (connectorValidation: TestStatus): TestResult[] =>
  Q_TESTS.map((t) => ({ name: Q + t, status: t === 'test_connector_validation' ? connectorValidation : 'passed' }));

/** The instance's lists as SWE-bench writes Django ids: `name (module.Class)`. */
const FAIL_TO_PASS = ['test_connector_validation (queries.test_q.QTests)'];
const PASS_TO_PASS = Q_TESTS.filter((t) => t !== 'test_connector_validation').map((t) => `${t} (queries.test_q.QTests)`);

describe('parseUnittestLog on real Django runtests.py --verbosity 2 output', () => {
  it('django-q-fail-py311.log (CVE-2025-64459 test half only): the new test FAILs, the other 17 pass', () => {
    const log = readTestLog('unittest/django-q-fail-py311.log');
    expect(log).toContain('test_connector_validation (queries.test_q.QTests.test_connector_validation) ... FAIL');
    expect(parseUnittestLog(log)).toEqual(qResults('failed'));
  });

  it('django-q-pass-py311.log (with the fix): all 18 pass', () => {
    expect(parseUnittestLog(readTestLog('unittest/django-q-pass-py311.log'))).toEqual(qResults('passed'));
  });

  it('SWE-bench ids mapped by djangoTestId grade the fail log as failing and the fixed log as passing', () => {
    const failToPass = FAIL_TO_PASS.map(djangoTestId);
    const passToPass = PASS_TO_PASS.map(djangoTestId);
    expect(failToPass).toEqual([`${Q}test_connector_validation`]);
    expect(passToPass).toHaveLength(17);
    const before = gradeTestIds({ results: parseUnittestLog(readTestLog('unittest/django-q-fail-py311.log')), failToPass, passToPass, exitCode: 1 });
    expect(before.success).toBe(false);
    expect(before.tests[0]).toEqual({ name: `${Q}test_connector_validation`, passed: false, status: 'failed' });
    expect(before.tests.slice(1).every((t) => t.passed && t.status === 'passed')).toBe(true);
    expect(before.reason).toContain(`${Q}test_connector_validation`);
    const after = gradeTestIds({ results: parseUnittestLog(readTestLog('unittest/django-q-pass-py311.log')), failToPass, passToPass, exitCode: 0 });
    expect(after).toEqual({
      success: true,
      tests: [...failToPass, ...passToPass].map((name) => ({ name, passed: true, status: 'passed' })),
    });
  });

  describe('django-mixed-py311.log: skips with docstring lines, expected failures, an import error, output before the status', () => {
    const log = readTestLog('unittest/django-mixed-py311.log');
    const results = parseUnittestLog(log);
    const byName = new Map(results.map((r) => [r.name, r.status]));

    it('every one of the 98 tests runtests.py ran is read, with the counts of its summary line', () => {
      expect(log).toContain('Ran 98 tests');
      expect(log).toContain('FAILED (failures=1, errors=1, skipped=14, expected failures=4)');
      const count = (s: TestStatus): number => results.filter((r) => r.status === s).length;
      expect(results).toHaveLength(98);
      expect({ failed: count('failed'), error: count('error'), skipped: count('skipped'), xfail: count('xfail'), xpass: count('xpass'), passed: count('passed') })
        .toEqual({ failed: 1, error: 1, skipped: 14, xfail: 4, xpass: 0, passed: 78 });
    });

    it('a skip whose description is a docstring line: the status after that line\'s ` ... `', () => {
      expect(log).toContain("test_connect_and_rollback (backends.postgresql.tests.Tests.test_connect_and_rollback)\nPostgreSQL shouldn't roll back SET TIME ZONE, even if the first ... skipped 'PostgreSQL tests'");
      expect(results.filter((r) => r.name.startsWith('backends.postgresql.tests.Tests.'))).toEqual(
        ['test_connect_and_rollback', 'test_connect_isolation_level', 'test_connect_no_is_usable_checks', 'test_connect_non_autocommit',
          'test_copy_cursors', 'test_correct_extraction_psycopg2_version', 'test_database_name_too_long', 'test_lookup_cast',
          'test_nodb_cursor', 'test_nodb_cursor_raises_postgres_authentication_failure', 'test_select_ascii_array', 'test_select_unicode_array']
          .map((t) => ({ name: `backends.postgresql.tests.Tests.${t}`, status: 'skipped' })),
      );
      expect(byName.get('sessions_tests.tests.CookieSessionTests.test_session_load_does_not_create_record')).toBe('skipped');
      // a docstring line, then "... ok"
      expect(byName.get('model_inheritance_regress.tests.ModelInheritanceTest.test_all_fields_from_abstract_base_class')).toBe('passed');
    });

    it('expected failures, with and without a docstring line', () => {
      expect(results.filter((r) => r.status === 'xfail').map((r) => r.name)).toEqual([
        'model_inheritance_regress.tests.ModelInheritanceTest.test_inheritance_values_joins',
        'queries.tests.ExcludeTest17600.test_only_orders_with_all_items_having_status_1',
        'queries.tests.NullInExcludeTest.test_col_not_in_list_containing_null',
        'sessions_tests.tests.CookieSessionTests.test_actual_expiry',
      ]);
    });

    it('a label that fails to import is unittest\'s _FailedTest, an ERROR', () => {
      expect(log).toContain('import_error_package (unittest.loader._FailedTest.import_error_package) ... ERROR');
      expect(byName.get('unittest.loader._FailedTest.import_error_package')).toBe('error');
    });

    it('output written without a newline glues the status to it: `... Write to stderr.Write to stdout.ok`', () => {
      expect(log).toContain('test_pass (test_runner_apps.buffer.tests_buffer.WriteToStdoutStderrTestCase.test_pass) ... Write to stderr.Write to stdout.ok\n');
      expect(log).toContain('test_fail (test_runner_apps.buffer.tests_buffer.WriteToStdoutStderrTestCase.test_fail) ... Write to stderr.Write to stdout.FAIL\n');
      expect(byName.get('test_runner_apps.buffer.tests_buffer.WriteToStdoutStderrTestCase.test_pass')).toBe('passed');
      expect(byName.get('test_runner_apps.buffer.tests_buffer.WriteToStdoutStderrTestCase.test_fail')).toBe('failed');
    });

    it('a doctest: `factorial (module)` then `Doctest: module.factorial ... ok`', () => {
      expect(log).toContain('factorial (test_runner_apps.sample.doctests)\nDoctest: test_runner_apps.sample.doctests.factorial ... ok');
      expect(byName.get('test_runner_apps.sample.doctests.factorial')).toBe('passed');
    });

    it('the tests that are neither passed nor skipped, in order of first appearance', () => {
      expect(results.filter((r) => r.status === 'failed' || r.status === 'error')).toEqual([
        { name: 'unittest.loader._FailedTest.import_error_package', status: 'error' },
        { name: 'test_runner_apps.buffer.tests_buffer.WriteToStdoutStderrTestCase.test_fail', status: 'failed' },
      ]);
    });
  });
});

describe('parseUnittestLog: a status glued to output stays tentative', () => {
  it('a later status line of the pending test wins over output that merely ends in a status word', () => {
    expect(parseUnittestLog('test_a (m.C.test_a) ... loading book\nFAIL\ntest_b (m.C.test_b) ... done.ok\n')).toEqual([
      { name: 'm.C.test_a', status: 'failed' },
      { name: 'm.C.test_b', status: 'passed' },
    ]);
  });
});
