import { Parser, type Result } from 'tap-parser';
import { lastOccurrenceWins } from './lastOccurrenceWins.js';
import { logArgument } from './logArgument.js';
import type { TestResult, TestStatus } from './testResult.js';

/** How the names of nested subtests are joined: tap-parser's own `fullname` separator. */
export const TAP_NAME_SEPARATOR = ' > ';

/** node's, Perl's and tap's subtest announcement `# Subtest: name` (at any depth). */
const SUBTEST_COMMENT = /^#\s*Subtest:/;
/** A test point at column 0 written `ok N - name` (node, Perl, tap); tape writes `ok N name`. */
const DASHED_POINT = /^(?:not )?ok(?:\s+\d+)?\s+-\s/m;

/** Where a new TAP stream starts: a `TAP version N` line (a log of several runs holds several streams). */
const NEW_STREAM = /^(?=TAP version \d+[ \t\r]*$)/m;
/** A plan line at column 0 (`1..11`), as the producer wrote it. */
const TOP_PLAN = /^\d+\.\.\d+(?:\s|$)/m;

/** One top-level event of the stream, in order (what the tape grouping reads). */
type TopEvent = { kind: 'comment'; text: string } | { kind: 'assert'; result: Result } | { kind: 'plan' };

/** A test point's own status: `# SKIP` -> skipped; `# TODO` -> xfail when not ok, xpass when ok. */
function pointStatus(r: Result): TestStatus {
  if (r.skip) return 'skipped';
  if (r.todo) return r.ok ? 'xpass' : 'xfail';
  return r.ok ? 'passed' : 'failed';
}

/**
 * Reads a TAP 13/14 stream (tap-parser, the TAP reference parser of node-tap) into SPEC §14
 * results; the id is the test's name line. Two shapes of producer are told apart:
 *
 * - test points are tests (node's `--test-reporter=tap`, Perl's Test::More, node-tap, any
 *   plain TAP): every test point at every depth is one result, named by its description
 *   with `\#` unescaped; a nested subtest's name is its parents' names and its own joined
 *   by {@link TAP_NAME_SEPARATOR} (`math suite > inner suite > deep test`: tap-parser's
 *   `fullname`; a name that itself holds ` > ` reads the same). A parent's own closing test
 *   point is a result too (`math suite`, failed when a child failed). A point without a
 *   description is named `#<number>` (Perl's `ok 3 # skip reason`; `#0` when it has no
 *   number either, as a bare `ok` line).
 * - tape (`# name` comments, then one `ok N message` per assertion): chosen when the stream
 *   has no subtest (no indented child, no `# Subtest:`), no `ok N - ` point at column 0, and
 *   starts (before any test point or plan) with a comment. Each top-level comment up to the
 *   plan starts a test named by the comment (tape's `# SKIP name` / `# TODO name` prefixes
 *   removed); its assertions decide its status: failed when one plain assertion is not ok;
 *   else skipped when all are `# SKIP`; else xfail when a `# TODO` assertion is not ok; else
 *   xpass when all others are ok `# TODO`; else passed. A test without assertions passes
 *   (is skipped for `# SKIP name`) once the stream goes on past it. A tape `t.comment()`
 *   inside a test reads as a new test (tape's output does not tell them apart), and tape's
 *   nested `t.test` subtests are flat `# name` tests.
 *
 * A log that holds several streams (several runner calls) is read stream by stream, each
 * starting at its `TAP version` line, and the results joined.
 *
 * Statuses of a point: `# SKIP` -> skipped (even `not ok`), `# TODO` not ok -> xfail, `# TODO`
 * ok -> xpass, ok -> passed, not ok -> failed (TAP has no error status). A repeated name's
 * last occurrence wins (node names tests without their file, so two files' equal names are
 * one id); results are in order of first appearance. A log cut mid-run, by a crash, a kill
 * or a `Bail out!` (tap-parser stops reading there), gives the test points before the cut;
 * a test still open at the cut (a tape test whose assertions so far pass, a subtest whose
 * parent point never came) is absent, and a tape test open at the cut with a failed
 * assertion is failed.
 *
 * @throws FrognanoError `INVALID_TYPE` when `log` is not a string
 */
export function parseTapLog(log: string): TestResult[] {
  const text = logArgument('parseTapLog', log);
  return lastOccurrenceWins(text.split(NEW_STREAM).flatMap(parseTapStream));
}

/** One TAP stream (from a `TAP version` line, or the log's start, to the next one) read as {@link parseTapLog} says. */
function parseTapStream(text: string): TestResult[] {
  const points: TestResult[] = [];
  const top: TopEvent[] = [];
  let nested = false;
  const attach = (p: Parser, depth: number): void => {
    p.on('assert', (r: Result) => {
      const own = r.name.trim() === '' ? `#${r.id}` : r.name.trim();
      const parents = p.fullname.trim();
      points.push({ name: parents === '' ? own : `${parents}${TAP_NAME_SEPARATOR}${own}`, status: pointStatus(r) });
      if (depth === 0) top.push({ kind: 'assert', result: r });
    });
    p.on('comment', (c: string) => {
      if (SUBTEST_COMMENT.test(c)) nested = true;
      if (depth === 0) top.push({ kind: 'comment', text: c });
    });
    p.on('plan', () => {
      if (depth === 0) top.push({ kind: 'plan' });
    });
    p.on('child', (child: Parser) => {
      nested = true;
      attach(child, depth + 1);
    });
  };
  const parser = new Parser();
  attach(parser, 0);
  parser.end(text);
  // tap-parser adds a comment (`# test count(5) != plan(null)`) and, for a stream without test
  // points, a plan (`1..0 # no tests found`) of its own at the end: only what the log holds counts
  const lines = new Set(text.split('\n').map((l) => l.replace(/\r$/, '')));
  const hasPlan = TOP_PLAN.test(text);
  const written = top.filter((e) => (e.kind === 'comment' ? lines.has(e.text.replace(/\n$/, '')) : e.kind !== 'plan' || hasPlan));
  const tape = !nested && !DASHED_POINT.test(text) && written[0]?.kind === 'comment';
  return tape ? tapeTests(written) : points;
}

/** A tape test being read: its name, how tape marked it, its assertions. */
interface TapeTest {
  name: string;
  mark: 'skip' | 'todo' | null;
  asserts: Result[];
}

/** tape's tests from the top-level events: each comment before the plan opens one (see {@link parseTapLog}). */
function tapeTests(events: readonly TopEvent[]): TestResult[] {
  const out: TestResult[] = [];
  let open: TapeTest | null = null;
  const close = (t: TapeTest, finished: boolean): void => {
    const status = tapeStatus(t);
    if (finished || status === 'failed') out.push({ name: t.name, status });
  };
  for (const e of events) {
    if (e.kind === 'plan') {
      if (open) close(open, true);
      open = null;
      break;
    }
    if (e.kind === 'assert') {
      open?.asserts.push(e.result);
      continue;
    }
    if (open) close(open, true);
    const text = e.text.replace(/^#\s?/, '').replace(/\s+$/, '');
    const mark = /^SKIP /.test(text) ? 'skip' : /^TODO /.test(text) ? 'todo' : null;
    open = { name: mark === null ? text : text.slice(5), mark, asserts: [] };
  }
  if (open) close(open, false);
  return out;
}

/** The status of one tape test from its assertions (see {@link parseTapLog}). */
function tapeStatus(t: TapeTest): TestStatus {
  if (t.asserts.length === 0) return t.mark === 'skip' ? 'skipped' : t.mark === 'todo' ? 'xpass' : 'passed';
  const statuses = t.asserts.map(pointStatus);
  if (statuses.includes('failed')) return 'failed';
  const live = statuses.filter((s) => s !== 'skipped');
  if (live.length === 0) return 'skipped';
  if (live.includes('xfail')) return 'xfail';
  if (live.every((s) => s === 'xpass')) return 'xpass';
  return 'passed';
}
