import { z } from 'zod';

/**
 * The statuses a test log is read into (SPEC §14, "Grading with test ids"), in the words of
 * pytest's short summary: `passed`, `failed`, `error` (the test could not run: a setup,
 * teardown or collection error), `skipped`, `xfail` (an expected failure that failed) and
 * `xpass` (an expected failure that passed).
 */
export const TEST_STATUSES = ['passed', 'failed', 'error', 'skipped', 'xfail', 'xpass'] as const;

/** One of {@link TEST_STATUSES}. */
export type TestStatus = (typeof TEST_STATUSES)[number];

/** zod: a {@link TestStatus}. */
export const TestStatusSchema = z.enum(TEST_STATUSES);

/** One test as a log shows it (SPEC §14): its id in the format's naming rule and its status. */
export interface TestResult {
  /** The test id (pytest node id, `module.Class.test_name`, the TAP name line, `classname::name`). */
  name: string;
  /** What the log says happened to it. */
  status: TestStatus;
}

/** zod: a {@link TestResult} (no other keys). */
export const TestResultSchema = z.object({ name: z.string(), status: TestStatusSchema }).strict();

/** A log parser of SPEC §14: the whole log (or report file) in, one result per test id out. */
export type TestLogParser = (log: string) => TestResult[];
