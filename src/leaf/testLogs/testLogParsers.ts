import { parseJunitXml } from './parseJunitXml.js';
import { parsePytestLog } from './parsePytestLog.js';
import { parseTapLog } from './parseTapLog.js';
import { parseUnittestLog } from './parseUnittestLog.js';
import type { TestLogParser } from './testResult.js';

/** The SPEC §14 `tests.log` formats that are parsed into test results (all but the default `exit-code`). */
export const TEST_LOG_FORMATS = ['pytest', 'unittest', 'tap', 'junit-xml'] as const;

/** One of {@link TEST_LOG_FORMATS}. */
export type TestLogFormat = (typeof TEST_LOG_FORMATS)[number];

/**
 * The parser of each SPEC §14 `tests.log` format: `pytest` ({@link parsePytestLog}),
 * `unittest` ({@link parseUnittestLog}), `tap` ({@link parseTapLog}) and `junit-xml`
 * ({@link parseJunitXml}, given the report file's text rather than the command's output).
 * `exit-code`, the default, reads no log and has no parser.
 */
export const TEST_LOG_PARSERS: Readonly<Record<TestLogFormat, TestLogParser>> = Object.freeze({
  pytest: parsePytestLog,
  unittest: parseUnittestLog,
  tap: parseTapLog,
  'junit-xml': parseJunitXml,
});
