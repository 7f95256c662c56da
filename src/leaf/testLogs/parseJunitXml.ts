import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ErrorCode, FrognanoError } from '../../errors/FrognanoError.js';
import { lastOccurrenceWins } from './lastOccurrenceWins.js';
import { logArgument } from './logArgument.js';
import type { TestResult, TestStatus } from './testResult.js';
import { xmlEntityDecoder } from './xmlEntityDecoder.js';

/** How `classname` and `name` are joined into a SPEC §14 junit-xml id. */
export const JUNIT_ID_SEPARATOR = '::';

/** One element of fast-xml-parser's `preserveOrder` output: `{ [tag]: children, ':@'?: attributes }`. */
type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/** The element's tag (its one key besides `:@`); text, comments and declarations start with `#` or `?`. */
function tagOf(node: XmlNode): string {
  return Object.keys(node).find((k) => k !== ':@') ?? '';
}

function childrenOf(node: XmlNode): XmlNode[] {
  const c = node[tagOf(node)];
  return Array.isArray(c) ? (c as XmlNode[]) : [];
}

/**
 * The document as fast-xml-parser 5 reads it: order kept (`preserveOrder`), attributes as
 * strings exactly as written (no trimming, no number parsing, references decoded by
 * {@link xmlEntityDecoder}), and the bodies of `failure`, `error`, `skipped`, `system-out`,
 * `system-err` and `properties` left unparsed (only their presence matters).
 */
function readXml(xml: string): XmlNode[] {
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    entityDecoder: xmlEntityDecoder(),
    stopNodes: ['*.failure', '*.error', '*.skipped', '*.system-out', '*.system-err', '*.properties'],
  });
  return parser.parse(xml) as XmlNode[];
}

/**
 * The status of one `<testcase>` from its child elements, first match wins:
 * - `<skipped type="pytest.xfail">` (pytest's xfail) -> xfail;
 * - `<skipped type="todo">` (node's `--test-reporter=junit` todo) -> xfail with a
 *   `<failure>` or `<error>` beside it, xpass without;
 * - `<failure>` -> failed (also beside an `<error>`: the test ran and failed);
 * - `<error>` -> error; `<skipped>` -> skipped; none of them -> passed.
 */
function testcaseStatus(testcase: XmlNode): TestStatus {
  const kids = childrenOf(testcase);
  const has = (tag: string): boolean => kids.some((k) => tagOf(k) === tag);
  const skipType = kids.find((k) => tagOf(k) === 'skipped')?.[':@']?.type;
  if (skipType === 'pytest.xfail') return 'xfail';
  if (skipType === 'todo') return has('failure') || has('error') ? 'xfail' : 'xpass';
  if (has('failure')) return 'failed';
  if (has('error')) return 'error';
  if (has('skipped')) return 'skipped';
  return 'passed';
}

/** The SPEC §14 id of a `<testcase>`: `classname::name`, or `name` alone when `classname` is empty or absent. */
function testcaseId(testcase: XmlNode): string {
  const attrs = testcase[':@'] ?? {};
  const name = attrs.name ?? '';
  const classname = attrs.classname ?? '';
  return classname === '' ? name : `${classname}${JUNIT_ID_SEPARATOR}${name}`;
}

/**
 * Reads a JUnit XML report (fast-xml-parser 5) into SPEC §14 results. The root is
 * `<testsuites>` or `<testsuite>` (Maven Surefire writes a bare `<testsuite>`); every
 * `<testcase>` in document order, at any depth of nested `<testsuite>`s (node's reporter
 * nests one per `describe`), is one result with the id `classname::name`, or `name` alone
 * when `classname` is empty or absent (pytest's collection error `tests.test_broken`). The
 * suites' own names are not part of the id (SPEC §14): node's reporter writes
 * `classname="test"` for every test, so equal test names in two suites are one id there.
 * Statuses as `testcaseStatus` says (pytest's xfail and node's todo recognised). A
 * repeated id's last occurrence wins; results are in document order of first appearance.
 *
 * A report cut short (a runner killed while writing it) is not well-formed and is refused
 * rather than read as the tests that happen to be complete, since an unclosed `<testcase>`
 * would read as passed.
 *
 * @throws FrognanoError `INVALID_TYPE` when `log` is not a string, is not well-formed XML
 *   (empty, truncated: the message gives the parser's reason and line), or its root is not
 *   `<testsuites>` / `<testsuite>`
 */
export function parseJunitXml(log: string): TestResult[] {
  const fn = 'parseJunitXml';
  const xml = logArgument(fn, log);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `log is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`, { fn, field: 'log' });
  }
  let doc: XmlNode[];
  try {
    doc = readXml(xml);
  } catch (cause) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `log cannot be read as XML: ${cause instanceof Error ? cause.message : String(cause)}`, { fn, field: 'log', cause });
  }
  const roots = doc.filter((n) => !/^[#?!]/.test(tagOf(n)));
  if (roots.length === 0 || roots.some((n) => tagOf(n) !== 'testsuites' && tagOf(n) !== 'testsuite')) {
    const found = roots.map(tagOf).join('>, <');
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `log must be a JUnit XML report with root <testsuites> or <testsuite>, got ${found === '' ? 'no element' : `<${found}>`}`, { fn, field: 'log' });
  }
  const out: TestResult[] = [];
  // iterative, document order: a stack of child lists, each read left to right
  const stack: { nodes: XmlNode[]; at: number }[] = [{ nodes: roots, at: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.at >= top.nodes.length) {
      stack.pop();
      continue;
    }
    const node = top.nodes[top.at++]!;
    const tag = tagOf(node);
    if (tag === 'testcase') out.push({ name: testcaseId(node), status: testcaseStatus(node) });
    else if (tag === 'testsuite' || tag === 'testsuites') stack.push({ nodes: childrenOf(node), at: 0 });
  }
  return lastOccurrenceWins(out);
}
