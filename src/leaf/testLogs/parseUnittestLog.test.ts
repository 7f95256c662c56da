import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import { parseUnittestLog } from './parseUnittestLog.js';
import type { TestResult } from './testResult.js';

const T = 'pkg.test_things.TestThings.';
const O = 'pkg.test_output.TestOutput.';

/** The tests of pkg.test_things + pkg.test_output with their statuses (every Python version agrees). */
const STATUS: Record<string, TestResult['status']> = {
  'pkg.test_things.TestSetupFails.setUpClass': 'error',
  'pkg.test_things.TestSkippedClass.test_a': 'skipped',
  [`${T}test_docstring`]: 'passed',
  [`${T}test_docstring_fail`]: 'failed',
  [`${T}test_error`]: 'error',
  [`${T}test_expected_failure`]: 'xfail',
  [`${T}test_fail`]: 'failed',
  [`${T}test_ok`]: 'passed',
  [`${T}test_skip`]: 'skipped',
  [`${T}test_subtests`]: 'failed',
  [`${T}test_unexpected_success`]: 'xpass',
  [`${T}test_ünïcode`]: 'passed',
  // docstring "Wait ... then check it. ... ok": the status is after the line's last " ... "
  [`${O}test_tricky_docstring`]: 'failed',
  // its own stderr output sits between " ... " and "ok"
  [`${O}test_writes_stderr`]: 'passed',
};
const inOrder = (names: string[]): TestResult[] => names.map((name) => ({ name, status: STATUS[name]! }));

/** 3.11+ print setUpClass's error first and a failing subtest on its own indented line. */
const NEW_ORDER = inOrder(Object.keys(STATUS));
/** 3.10 prints a bare "ERROR" for setUpClass and nothing for subtests: both come from the failure blocks, last. */
const OLD_ORDER = inOrder([...Object.keys(STATUS).slice(1, 9), ...Object.keys(STATUS).slice(10), 'pkg.test_things.TestSetupFails.setUpClass', `${T}test_subtests`]);

describe('parseUnittestLog on real python -m unittest -v output', () => {
  it.each(['things-py311.log', 'things-py313.log'])('%s: `name (module.Class.name)` lines', (file) => {
    expect(parseUnittestLog(readTestLog(`unittest/${file}`))).toEqual(NEW_ORDER);
  });

  it('things-py310.log: `name (module.Class)` lines give the same ids', () => {
    const log = readTestLog('unittest/things-py310.log');
    expect(log).toContain('test_ok (pkg.test_things.TestThings) ... ok');
    // 3.10 runs the next description onto the line of a test with subtests
    expect(log).toContain('test_subtests (pkg.test_things.TestThings) ... test_unexpected_success (pkg.test_things.TestThings) ... unexpected success');
    expect(parseUnittestLog(log)).toEqual(OLD_ORDER);
  });

  it.each(['crash-py310.log', 'crash-py311.log'])('%s: an import error is unittest\'s _FailedTest; the test running at the crash is absent', (file) => {
    expect(parseUnittestLog(readTestLog(`unittest/${file}`))).toEqual([
      { name: 'unittest.loader._FailedTest.test_import_error', status: 'error' },
      { name: 'pkg.test_crash.TestCrash.test_a_before', status: 'passed' },
    ]);
  });

  it('a log whose trailing spaces were stripped reads the same', () => {
    const log = readTestLog('unittest/crash-py311.log').replace(/ +$/gm, '');
    expect(parseUnittestLog(log)).toEqual([
      { name: 'unittest.loader._FailedTest.test_import_error', status: 'error' },
      { name: 'pkg.test_crash.TestCrash.test_a_before', status: 'passed' },
    ]);
  });

  it('the -v lines alone (failure blocks cut off) still give every status 3.11 prints', () => {
    const log = readTestLog('unittest/things-py311.log');
    const head = log.slice(0, log.indexOf('\n======'));
    expect(parseUnittestLog(head)).toEqual(NEW_ORDER);
  });

  it('reads CRLF logs and ignores pytest logs', () => {
    expect(parseUnittestLog(readTestLog('unittest/things-py313.log').replace(/\n/g, '\r\n'))).toEqual(NEW_ORDER);
    expect(parseUnittestLog(readTestLog('pytest/rA-v-pytest9.log'))).toEqual([]);
    expect(parseUnittestLog('')).toEqual([]);
  });

  it('refuses a non-string log with INVALID_TYPE', () => {
    let caught: unknown;
    try {
      parseUnittestLog(null as unknown as string);
    } catch (e) {
      caught = e;
    }
    expect(isFrognanoError(caught, 'INVALID_TYPE')).toBe(true);
    expect((caught as Error).message).toBe('parseUnittestLog: log must be a string, got null');
  });
});
