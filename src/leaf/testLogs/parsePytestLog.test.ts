import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import { parsePytestLog } from './parsePytestLog.js';
import { pytestSummaryNodeId } from './pytestSummaryNodeId.js';
import type { TestResult } from './testResult.js';

const B = 'tests/test_basic.py::';

/** test_basic.py with `-rA -v`: every test, in run order, the summary's status where it has one. */
const VERBOSE: TestResult[] = [
  { name: `${B}test_pass`, status: 'passed' },
  { name: `${B}test_fail`, status: 'failed' },
  { name: `${B}test_setup_error`, status: 'error' },
  // PASSED (the call) then ERROR (the teardown), in both forms: the last one wins
  { name: `${B}test_teardown_error`, status: 'error' },
  // only the -v lines name skipped tests (the summary gives `SKIPPED [1] file:line: reason`)
  { name: `${B}test_skip_marker`, status: 'skipped' },
  { name: `${B}test_skip_inside`, status: 'skipped' },
  { name: `${B}test_xfail`, status: 'xfail' },
  { name: `${B}test_xpass`, status: 'xpass' },
  { name: `${B}test_xpass_strict`, status: 'failed' },
  { name: `${B}TestGroup::test_method`, status: 'passed' },
  { name: `${B}TestGroup::test_param[a b-1]`, status: 'passed' },
  { name: `${B}TestGroup::test_param[c]d-2]`, status: 'failed' },
  { name: `${B}TestGroup::test_param[x::y-3]`, status: 'passed' },
  { name: `${B}TestGroup::test_param[e - f-4]`, status: 'passed' },
  { name: `${B}test_unicode[[x]]`, status: 'passed' },
  { name: `${B}test_unicode[gr\\xfc\\xdf]`, status: 'passed' },
  { name: `${B}test_unicode[\\u65e5\\u672c]`, status: 'failed' },
  { name: `${B}test_unicode[ok]`, status: 'passed' },
  { name: `${B}test_ünïcode_name`, status: 'passed' },
  { name: `${B}test_ids[with space]`, status: 'passed' },
  { name: `${B}test_ids[a-b - c]`, status: 'failed' },
  { name: `${B}test_ids[]`, status: 'passed' },
];

/** test_basic.py with `-rA` alone: the summary's ids in its order (PASSED, XFAIL, XPASS, ERROR, FAILED), no skipped test. */
const SUMMARY_ONLY: TestResult[] = [
  { name: `${B}test_pass`, status: 'passed' },
  { name: `${B}test_teardown_error`, status: 'error' },
  { name: `${B}TestGroup::test_method`, status: 'passed' },
  { name: `${B}TestGroup::test_param[a b-1]`, status: 'passed' },
  { name: `${B}TestGroup::test_param[x::y-3]`, status: 'passed' },
  { name: `${B}TestGroup::test_param[e - f-4]`, status: 'passed' },
  { name: `${B}test_unicode[[x]]`, status: 'passed' },
  { name: `${B}test_unicode[gr\\xfc\\xdf]`, status: 'passed' },
  { name: `${B}test_unicode[ok]`, status: 'passed' },
  { name: `${B}test_ünïcode_name`, status: 'passed' },
  { name: `${B}test_ids[with space]`, status: 'passed' },
  { name: `${B}test_ids[]`, status: 'passed' },
  { name: `${B}test_xfail`, status: 'xfail' },
  // pytest 7 prints `XPASS id reason` without the dash, pytest 9 `XPASS id - reason`
  { name: `${B}test_xpass`, status: 'xpass' },
  { name: `${B}test_setup_error`, status: 'error' },
  { name: `${B}test_fail`, status: 'failed' },
  { name: `${B}test_xpass_strict`, status: 'failed' },
  { name: `${B}TestGroup::test_param[c]d-2]`, status: 'failed' },
  { name: `${B}test_unicode[\\u65e5\\u672c]`, status: 'failed' },
  { name: `${B}test_ids[a-b - c]`, status: 'failed' },
];

describe('parsePytestLog on real pytest 7.2.1 and 9.0.3 output', () => {
  it.each(['rA-v-pytest7.log', 'rA-v-pytest9.log', 'rA-v-narrow-pytest9.log', 'rA-v-color-pytest9.log'])('%s (-rA -v) gives every test', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual(VERBOSE);
  });

  it.each(['rA-pytest7.log', 'rA-pytest9.log'])('%s (-rA alone) gives the summary ids, skipped tests absent', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual(SUMMARY_ONLY);
  });

  it.each(['collection-error-pytest7.log', 'collection-error-pytest9.log'])('%s: a collection error names the file, nothing ran', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual([{ name: 'tests/test_broken.py', status: 'error' }]);
  });

  it.each(['crash-v-pytest7.log', 'crash-v-pytest9.log'])('%s: a crash mid-run keeps the finished tests; the running one is absent', (file) => {
    const log = readTestLog(`pytest/${file}`);
    expect(log.trimEnd().endsWith('tests/test_crash.py::test_crash')).toBe(true);
    expect(parsePytestLog(log)).toEqual([{ name: 'tests/test_crash.py::test_before_crash', status: 'passed' }]);
  });

  it.each(['duplicates-v-pytest7.log', 'duplicates-v-pytest9.log'])('%s: a test run twice (FAILED, then PASSED) ends failed: the summary wins and lists FAILED last', (file) => {
    const log = readTestLog(`pytest/${file}`);
    expect(log).toContain('tests/test_flaky.py::test_flaky FAILED');
    expect(log).toContain('tests/test_flaky.py::test_flaky PASSED');
    expect(parsePytestLog(log)).toEqual([{ name: 'tests/test_flaky.py::test_flaky', status: 'failed' }]);
  });

  it.each(['capture-off-v-pytest7.log', 'capture-off-v-pytest9.log'])('%s: with -s the output hides the -v status and the summary gives it', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual([
      { name: 'tests/test_output.py::test_prints', status: 'passed' },
      { name: 'tests/test_output.py::test_prints_and_fails', status: 'failed' },
    ]);
  });

  const spaced = 'tests/sub dir/test_space.py::';
  it.each(['spaced-path-rA-v-pytest7.log', 'spaced-path-rA-v-pytest9.log'])('%s: the -v ids resolve a path with spaces and a parameter id holding "] - "', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual([
      { name: `${spaced}test_in_spaced_dir`, status: 'passed' },
      { name: `${spaced}test_fails_in_spaced_dir`, status: 'failed' },
      { name: `${spaced}test_bracket_dash[a] - b]`, status: 'failed' },
    ]);
  });

  it.each(['spaced-path-rA-pytest7.log', 'spaced-path-rA-pytest9.log'])('%s: without -v a path with spaces is still read whole; "] - " inside a parameter id cuts it (documented)', (file) => {
    expect(parsePytestLog(readTestLog(`pytest/${file}`))).toEqual([
      { name: `${spaced}test_in_spaced_dir`, status: 'passed' },
      { name: `${spaced}test_fails_in_spaced_dir`, status: 'failed' },
      { name: `${spaced}test_bracket_dash[a]`, status: 'failed' },
    ]);
  });

  it('reads CRLF line ends like LF', () => {
    const log = readTestLog('pytest/rA-v-pytest7.log');
    expect(parsePytestLog(log.replace(/\n/g, '\r\n'))).toEqual(VERBOSE);
  });

  it('an empty log, or one without pytest lines, has no tests', () => {
    expect(parsePytestLog('')).toEqual([]);
    expect(parsePytestLog(readTestLog('unittest/things-py311.log'))).toEqual([]);
  });

  it('reads summary lines only inside the summary section (a bare "PASSED" of -s output is not a test)', () => {
    const log = readTestLog('pytest/capture-off-v-pytest7.log');
    const cut = log.slice(0, log.indexOf('=== short test summary info'));
    expect(cut).toContain('\nPASSED\n');
    expect(parsePytestLog(cut)).toEqual([]);
  });

  it('refuses a non-string log with INVALID_TYPE', () => {
    let caught: unknown;
    try {
      parsePytestLog(42 as unknown as string);
    } catch (e) {
      caught = e;
    }
    expect(isFrognanoError(caught, 'INVALID_TYPE')).toBe(true);
    expect((caught as Error).message).toBe('parsePytestLog: log must be a string, got 42');
  });
});

describe('pytestSummaryNodeId', () => {
  const none = new Set<string>();
  it.each([
    ['tests/test_basic.py::test_fail - assert [1, 2] == [1, 3]', 'FAILED', 'tests/test_basic.py::test_fail'],
    ['tests/test_basic.py::TestGroup::test_param[c]d-2] - assert 2 != 2', 'FAILED', 'tests/test_basic.py::TestGroup::test_param[c]d-2]'],
    ['tests/test_basic.py::test_ids[a-b - c] - assert 2 != 2', 'FAILED', 'tests/test_basic.py::test_ids[a-b - c]'],
    ['tests/test_basic.py::TestGroup::test_param[e - f-4]', 'PASSED', 'tests/test_basic.py::TestGroup::test_param[e - f-4]'],
    ['tests/test_basic.py::test_unicode[[x]]', 'PASSED', 'tests/test_basic.py::test_unicode[[x]]'],
    ['tests/test_basic.py::test_xpass fixed already', 'XPASS', 'tests/test_basic.py::test_xpass'],
    ['tests/test_basic.py::test_xpass - fixed already', 'XPASS', 'tests/test_basic.py::test_xpass'],
    ['tests/test_basic.py::test_setup_error - R...', 'ERROR', 'tests/test_basic.py::test_setup_error'],
    ['tests/test_broken.py', 'ERROR', 'tests/test_broken.py'],
    ['tests/sub dir/test_space.py::test_fails_in_spaced_dir - assert 1 == 2', 'FAILED', 'tests/sub dir/test_space.py::test_fails_in_spaced_dir'],
  ])('%s (%s) -> %s', (text, status, id) => {
    expect(pytestSummaryNodeId(text, status, none)).toBe(id);
  });

  it('prefers the longest id the -v lines know', () => {
    const known = new Set(['t.py::test_b[a] - b]', 't.py::test_b[a]']);
    expect(pytestSummaryNodeId('t.py::test_b[a] - b] - assert 1 == 2', 'FAILED', known)).toBe('t.py::test_b[a] - b]');
    expect(pytestSummaryNodeId('t.py::test_b[a] - b] - assert 1 == 2', 'FAILED', none)).toBe('t.py::test_b[a]');
  });
});
