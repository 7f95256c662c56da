import { lastOccurrenceWins } from './lastOccurrenceWins.js';
import { logArgument } from './logArgument.js';
import { logLines } from './logLines.js';
import { pytestSummaryNodeId } from './pytestSummaryNodeId.js';
import type { TestResult, TestStatus } from './testResult.js';

/** pytest's status words (summary and `-v` lines) and the SPEC §14 status each one is. */
const STATUS: Readonly<Record<string, TestStatus>> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'xfail',
  XPASS: 'xpass',
};

/** A section rule: `==== short test summary info ====`, `=== 2 failed, 1 passed in 0.1s ===`. */
const RULE = /^=+ (.*?) =+$/;
/** A short-summary line: status word, one space, the rest. */
const SUMMARY_LINE = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.*)$/;
/** pytest's skip location form, `SKIPPED [2] tests/test_x.py:31: reason`: no node id in it. */
const SKIP_LOCATION = /^\[\d+\] /;
/**
 * A `-v` progress line: `<node id> STATUS`, then an optional `(reason)` and an optional
 * `[ 50%]`. The id must hold `::` (every test item's node id does); the earliest status
 * word followed by such an ending is taken, so a reason may contain status words.
 */
const VERBOSE_LINE = /^(\S.*?::.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: \(.*\))?(?:\s+\[\s*\d+%\])?$/;

/**
 * Reads a pytest log into SPEC §14 results. Hand-written (pytest's terminal output has no
 * library parser; its JUnit XML is the `junit-xml` format). Two forms are read:
 *
 * - the `-rA` short test summary, only inside the `short test summary info` section (up to
 *   the next `====` rule): `PASSED id`, `FAILED id - message`, `ERROR id - message` (a setup
 *   or teardown error; a collection error names the file: `ERROR tests/test_x.py`), `XFAIL
 *   id - reason`, `XPASS id - reason` (pytest 7: `XPASS id reason`). The id rule is
 *   {@link pytestSummaryNodeId}. `SKIPPED [N] file:line: reason` names a location, not a node
 *   id (pytest 7 and 9, with or without `-v`), so it gives no result: with `-rA` alone a
 *   skipped test is absent, as in SWE-bench's parser;
 * - the `-v` progress lines outside any other section (`tests/test_x.py::test_a PASSED [ 50%]`,
 *   `... SKIPPED (reason) [ 60%]`, `... XFAIL (reason)`); with `-s`, a test's own output
 *   between id and status hides the status, and the summary has to give it.
 *
 * Test ids are node ids exactly as pytest prints them (`tests/test_x.py::TestC::test_y[a b-1]`;
 * non-ASCII parameters escaped by pytest: `test_unicode[gr\xfc\xdf]`). A repeated id's last
 * occurrence wins within each form; when both forms name an id, the summary wins. The
 * summary lists statuses in the order `PASSED`, `SKIPPED`, `XFAIL`, `XPASS`, `ERROR`, `FAILED`,
 * so a test that both passed and failed (reruns, `--keep-duplicates`, a passed call with a
 * teardown error) ends as its worst status. Results are in order of first appearance. ANSI
 * colours and CRLF line ends are ignored ({@link logLines}); a log cut mid-run (a crash) gives
 * the tests finished before the cut, and the one running at the cut is absent.
 *
 * @throws FrognanoError `INVALID_TYPE` when `log` is not a string
 */
export function parsePytestLog(log: string): TestResult[] {
  const lines = logLines(logArgument('parsePytestLog', log));
  const verbose: TestResult[] = [];
  const summaryLines: [status: string, text: string][] = [];
  let section: 'progress' | 'summary' | 'other' = 'progress';
  for (const line of lines) {
    const rule = RULE.exec(line);
    if (rule) {
      const title = rule[1]!;
      section = title === 'short test summary info' ? 'summary' : title === 'test session starts' ? 'progress' : 'other';
      continue;
    }
    if (section === 'summary') {
      const m = SUMMARY_LINE.exec(line);
      if (m && !(m[1] === 'SKIPPED' && SKIP_LOCATION.test(m[2]!))) summaryLines.push([m[1]!, m[2]!.trimEnd()]);
    } else if (section === 'progress') {
      const m = VERBOSE_LINE.exec(line.trimEnd());
      if (m) verbose.push({ name: m[1]!, status: STATUS[m[2]!]! });
    }
  }
  const known = new Set(verbose.map((r) => r.name));
  const summary = lastOccurrenceWins(
    summaryLines
      .map(([word, text]) => ({ name: pytestSummaryNodeId(text, word, known), status: STATUS[word]! }))
      .filter((r) => r.name !== ''),
  );
  const fromSummary = new Map(summary.map((r) => [r.name, r.status]));
  const merged = lastOccurrenceWins(verbose).map((r) => ({ name: r.name, status: fromSummary.get(r.name) ?? r.status }));
  const seen = new Set(merged.map((r) => r.name));
  return [...merged, ...summary.filter((r) => !seen.has(r.name))];
}
