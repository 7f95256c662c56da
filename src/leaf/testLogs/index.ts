/**
 * Per-test grading (SPEC §14, "Grading with test ids"): the log parsers of the `tests.log`
 * formats (pytest, unittest, TAP, JUnit XML) and the fail-to-pass / pass-to-pass rule.
 * Pure functions, no I/O.
 * @module leaf/testLogs
 */
export { TEST_STATUSES, TestStatusSchema, TestResultSchema } from './testResult.js';
export type { TestLogParser, TestResult, TestStatus } from './testResult.js';
export { parsePytestLog } from './parsePytestLog.js';
export { parseUnittestLog } from './parseUnittestLog.js';
export { parseTapLog, TAP_NAME_SEPARATOR } from './parseTapLog.js';
export { parseJunitXml, JUNIT_ID_SEPARATOR } from './parseJunitXml.js';
export { lastOccurrenceWins } from './lastOccurrenceWins.js';
export { TEST_LOG_FORMATS, TEST_LOG_PARSERS } from './testLogParsers.js';
export type { TestLogFormat } from './testLogParsers.js';
export { gradeTestIds, GradeTestIdsInputSchema, FAIL_TO_PASS_OK, PASS_TO_PASS_OK } from './gradeTestIds.js';
export type { GradedTest, GradeTestIdsInput, TestIdGrading } from './gradeTestIds.js';
