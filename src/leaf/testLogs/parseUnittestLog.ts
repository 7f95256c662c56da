import { lastOccurrenceWins } from './lastOccurrenceWins.js';
import { logArgument } from './logArgument.js';
import { logLines } from './logLines.js';
import type { TestResult, TestStatus } from './testResult.js';

/**
 * A test's description as `-v` prints it: `test_name (module.Class.test_name)` (Python 3.11+)
 * or `test_name (module.Class)` (up to 3.10), then the rest of the line (a subtest's
 * `(i=1)`, ` ... status`). Leading spaces mark a subtest line (3.11+).
 */
const DESCRIPTION = /^(\s*)([\p{L}_][\p{L}\p{N}_]*) \(([^\s()]+)\)(.*)$/u;
/** The header of a failure block after the run: `FAIL: test_name (module.Class...)` / `ERROR: ...`. */
const BLOCK_HEADER = /^(FAIL|ERROR): ([\p{L}_][\p{L}\p{N}_]*) \(([^\s()]+)\)/u;
/** A `-v` status as unittest's TextTestResult writes it. */
const STATUS_TEXT = /^(ok|FAIL|ERROR|skipped (?:'.*'|".*")|expected failure|unexpected success)$/;
/**
 * A status that ends a pending test's output line, written right after output that did not end
 * in a newline (Django's test_runner_apps.buffer: `test_pass (...) ... Write to stderr.Write to
 * stdout.ok`). Only tentative: a later status line of the pending test replaces it.
 */
const GLUED_STATUS = /(?:ok|FAIL|ERROR|skipped '[^']*'|skipped "[^"]*"|expected failure|unexpected success)$/;
const SEPARATOR = ' ... ';

/** The SPEC §14 status of one `-v` status text (already matched by {@link STATUS_TEXT}). */
function statusOf(text: string): TestStatus {
  if (text === 'ok') return 'passed';
  if (text === 'FAIL') return 'failed';
  if (text === 'ERROR') return 'error';
  if (text === 'expected failure') return 'xfail';
  if (text === 'unexpected success') return 'xpass';
  return 'skipped';
}

/** The SPEC §14 id of `name (qualified)`: `qualified` when it already ends with `.name` (3.11+), else `qualified.name`. */
function idOf(name: string, qualified: string): string {
  return qualified.endsWith(`.${name}`) ? qualified : `${qualified}.${name}`;
}

/** What a line left open: a description whose status is still to come (docstring line, the test's own output). */
type Pending = { id: string; subtest: boolean; docstring: boolean } | null;

/**
 * Reads a `python -m unittest -v` log (also Django's `manage.py test -v 2`, the same result
 * class) into SPEC §14 results. Hand-written: unittest's text output has no library parser.
 *
 * - Result lines `test_name (module.Class.test_name) ... ok` (3.11+) and `test_name
 *   (module.Class) ... ok` (3.10 and older) both give the id `module.Class.test_name`
 *   (a class whose name equals its method's would read as the new form). Statuses: `ok` ->
 *   passed, `FAIL` -> failed, `ERROR` -> error, `skipped 'reason'` -> skipped, `expected
 *   failure` -> xfail, `unexpected success` -> xpass.
 * - A test with a docstring prints `test_name (...)` alone and `First docstring line ... ok`
 *   on the next line; the status is the text after that line's last ` ... `.
 * - A status on a later line of its own (`test_x (...) ... ` + the test's output + `ok`) is
 *   the pending test's. Output without a final newline glues the status to its end (`test_x
 *   (...) ... Write to stderr.ok`, Django's runtests.py log): a pending test's line that ends
 *   in a status text gives that status tentatively, and the test stays pending, so a status
 *   line of its own after it wins (output that merely ends in `ok`, then `FAIL`); only when no
 *   such line follows (the log was cut) can output ending in a status word be misread.
 * - Subtests: 3.11+ prints `  test_x (...) (i=1) ... FAIL` (indented); a failing or erroring
 *   subtest marks its test failed/error, a skipped one changes nothing. 3.10 prints nothing
 *   for them and may run the next description onto the same line, which is read as a new one.
 * - The failure blocks after the run, `FAIL: test_x (...)` / `ERROR: test_x (...)`, give
 *   failed / error (they cover 3.10 subtests and a class fixture: `ERROR: setUpClass
 *   (module.Class)` is the id `module.Class.setUpClass`, its tests are absent). A module that
 *   fails to import is unittest's own `unittest.loader._FailedTest.<module>`.
 *
 * A repeated id's last occurrence wins (the blocks come last); results are in order of
 * first appearance. A test running when the log was cut (a crash) has no status and is
 * absent. ANSI colours and CRLF are ignored ({@link logLines}).
 *
 * @throws FrognanoError `INVALID_TYPE` when `log` is not a string
 */
export function parseUnittestLog(log: string): TestResult[] {
  const out: TestResult[] = [];
  let pending: Pending = null;
  const record = (p: NonNullable<Pending>, status: TestStatus): void => {
    if (!p.subtest || status === 'failed' || status === 'error') out.push({ name: p.id, status });
  };
  for (const line of logLines(logArgument('parseUnittestLog', log))) {
    const block = BLOCK_HEADER.exec(line);
    if (block) {
      out.push({ name: idOf(block[2]!, block[3]!), status: block[1] === 'FAIL' ? 'failed' : 'error' });
      pending = null;
      continue;
    }
    if (DESCRIPTION.test(line)) {
      pending = readDescriptions(line, record);
      continue;
    }
    if (pending === null) continue;
    const text = line.trim();
    if (STATUS_TEXT.test(text)) {
      record(pending, statusOf(text));
      pending = null;
    } else if (pending.docstring) {
      const at = line.lastIndexOf(SEPARATOR);
      const tail = at < 0 ? '' : line.slice(at + SEPARATOR.length).trim();
      if (STATUS_TEXT.test(tail)) record(pending, statusOf(tail));
      else if (at >= 0) recordGlued(pending, tail, record);
      pending = at < 0 ? null : STATUS_TEXT.test(tail) ? null : { ...pending, docstring: false };
    } else {
      recordGlued(pending, text, record);
    }
  }
  return lastOccurrenceWins(out);
}

/**
 * Reads one line that starts with a description: records its status when the line has one,
 * follows a 3.10 run-on (`a (m.C) ... b (m.C) ... ok`) to the next description, and returns
 * what is still open.
 */
function readDescriptions(line: string, record: (p: NonNullable<Pending>, s: TestStatus) => void): Pending {
  let rest = line;
  for (;;) {
    const m = DESCRIPTION.exec(rest);
    if (!m) return null;
    const p = { id: idOf(m[2]!, m[3]!), subtest: m[1] !== '' || /^ [([]/.test(m[4]!), docstring: false };
    // a log whose trailing spaces were stripped ends a still-running test's line with ` ...`
    const after = m[4]!.endsWith(' ...') ? `${m[4]!} ` : m[4]!;
    const at = after.indexOf(SEPARATOR);
    if (at < 0) return after.trim() === '' || p.subtest ? { ...p, docstring: !p.subtest } : null;
    const tail = after.slice(at + SEPARATOR.length).trim();
    if (STATUS_TEXT.test(tail)) {
      record(p, statusOf(tail));
      return null;
    }
    if (DESCRIPTION.test(tail)) {
      rest = tail;
      continue;
    }
    recordGlued(p, tail, record);
    return p;
  }
}

/** Records the tentative status {@link GLUED_STATUS} finds at the end of a pending test's output line. */
function recordGlued(p: NonNullable<Pending>, text: string, record: (p: NonNullable<Pending>, s: TestStatus) => void): void {
  const m = GLUED_STATUS.exec(text);
  if (m) record(p, statusOf(m[0]));
}
