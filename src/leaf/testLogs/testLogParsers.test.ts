import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import * as testLogs from './index.js';
import { parseJunitXml } from './parseJunitXml.js';
import { parsePytestLog } from './parsePytestLog.js';
import { parseTapLog } from './parseTapLog.js';
import { parseUnittestLog } from './parseUnittestLog.js';
import { TEST_LOG_FORMATS, TEST_LOG_PARSERS } from './testLogParsers.js';

describe('TEST_LOG_PARSERS', () => {
  it('has one parser per SPEC §14 log format except exit-code', () => {
    expect(TEST_LOG_FORMATS).toEqual(['pytest', 'unittest', 'tap', 'junit-xml']);
    expect(Object.keys(TEST_LOG_PARSERS)).toEqual(['pytest', 'unittest', 'tap', 'junit-xml']);
    expect(TEST_LOG_PARSERS.pytest).toBe(parsePytestLog);
    expect(TEST_LOG_PARSERS.unittest).toBe(parseUnittestLog);
    expect(TEST_LOG_PARSERS.tap).toBe(parseTapLog);
    expect(TEST_LOG_PARSERS['junit-xml']).toBe(parseJunitXml);
    expect(Object.isFrozen(TEST_LOG_PARSERS)).toBe(true);
  });

  it.each([
    ['pytest', 'pytest/collection-error-pytest7.log', [{ name: 'tests/test_broken.py', status: 'error' }]],
    ['unittest', 'unittest/crash-py311.log', [{ name: 'unittest.loader._FailedTest.test_import_error', status: 'error' }, { name: 'pkg.test_crash.TestCrash.test_a_before', status: 'passed' }]],
    ['tap', 'tap/perl-bail.tap', [{ name: 'before bail', status: 'passed' }, { name: 'fails then bails', status: 'failed' }]],
    ['junit-xml', 'junit-xml/pytest9-duplicates.xml', [{ name: 'tests.test_flaky::test_flaky', status: 'passed' }]],
  ] as const)('%s reads %s', (format, file, expected) => {
    expect(TEST_LOG_PARSERS[format](readTestLog(file))).toEqual(expected);
  });

  it.each(TEST_LOG_FORMATS)('%s refuses a non-string log with INVALID_TYPE naming its function', (format) => {
    let caught: unknown;
    try {
      TEST_LOG_PARSERS[format](undefined as unknown as string);
    } catch (e) {
      caught = e;
    }
    expect(isFrognanoError(caught, 'INVALID_TYPE')).toBe(true);
    expect((caught as Error).message).toBe(`${TEST_LOG_PARSERS[format].name}: log is required (a string)`);
  });
});

describe('the testLogs index', () => {
  it('exports the public names', () => {
    expect(Object.keys(testLogs).sort()).toEqual([
      'FAIL_TO_PASS_OK',
      'GradeTestIdsInputSchema',
      'JUNIT_ID_SEPARATOR',
      'PASS_TO_PASS_OK',
      'TAP_NAME_SEPARATOR',
      'TEST_LOG_FORMATS',
      'TEST_LOG_PARSERS',
      'TEST_STATUSES',
      'TestResultSchema',
      'TestStatusSchema',
      'gradeTestIds',
      'lastOccurrenceWins',
      'parseJunitXml',
      'parsePytestLog',
      'parseTapLog',
      'parseUnittestLog',
    ]);
    expect(testLogs.TEST_STATUSES).toEqual(['passed', 'failed', 'error', 'skipped', 'xfail', 'xpass']);
  });

  it('TestResultSchema accepts exactly { name, status }', () => {
    expect(testLogs.TestResultSchema.safeParse({ name: 'a', status: 'xpass' }).success).toBe(true);
    expect(testLogs.TestResultSchema.safeParse({ name: 'a', status: 'missing' }).success).toBe(false);
    expect(testLogs.TestResultSchema.safeParse({ name: 'a', status: 'passed', extra: 1 }).success).toBe(false);
  });

  it('lastOccurrenceWins keeps the first position and the last status', () => {
    expect(
      testLogs.lastOccurrenceWins([
        { name: 'a', status: 'failed' },
        { name: 'b', status: 'passed' },
        { name: 'a', status: 'passed' },
        { name: 'b', status: 'error' },
      ]),
    ).toEqual([
      { name: 'a', status: 'passed' },
      { name: 'b', status: 'error' },
    ]);
  });
});
