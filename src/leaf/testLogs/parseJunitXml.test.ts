import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import { JUNIT_ID_SEPARATOR, parseJunitXml } from './parseJunitXml.js';
import type { TestResult } from './testResult.js';
import { decodeXmlReferences } from './xmlEntityDecoder.js';

function refusal(log: unknown): { code: string; message: string } {
  try {
    parseJunitXml(log as string);
  } catch (e) {
    if (isFrognanoError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('parseJunitXml accepted the input');
}

const B = 'tests.test_basic';
/** pytest --junitxml of test_basic.py + test_broken.py (--continue-on-collection-errors); pytest 7.2.1 and 9.0.3 agree. */
const PYTEST: TestResult[] = [
  // a collection error: classname="" -> the name alone
  { name: 'tests.test_broken', status: 'error' },
  { name: `${B}::test_pass`, status: 'passed' },
  { name: `${B}::test_fail`, status: 'failed' },
  { name: `${B}::test_setup_error`, status: 'error' },
  { name: `${B}::test_teardown_error`, status: 'error' },
  { name: `${B}::test_skip_marker`, status: 'skipped' },
  { name: `${B}::test_skip_inside`, status: 'skipped' },
  // <skipped type="pytest.xfail">
  { name: `${B}::test_xfail`, status: 'xfail' },
  // pytest writes a (non-strict) xpass as a plain passing testcase
  { name: `${B}::test_xpass`, status: 'passed' },
  { name: `${B}::test_xpass_strict`, status: 'failed' },
  { name: `${B}.TestGroup::test_method`, status: 'passed' },
  { name: `${B}.TestGroup::test_param[a b-1]`, status: 'passed' },
  { name: `${B}.TestGroup::test_param[c]d-2]`, status: 'failed' },
  { name: `${B}.TestGroup::test_param[x::y-3]`, status: 'passed' },
  { name: `${B}.TestGroup::test_param[e - f-4]`, status: 'passed' },
  { name: `${B}::test_unicode[[x]]`, status: 'passed' },
  { name: `${B}::test_unicode[gr\\xfc\\xdf]`, status: 'passed' },
  { name: `${B}::test_unicode[\\u65e5\\u672c]`, status: 'failed' },
  { name: `${B}::test_unicode[ok]`, status: 'passed' },
  { name: `${B}::test_ünïcode_name`, status: 'passed' },
  { name: `${B}::test_ids[with space]`, status: 'passed' },
  { name: `${B}::test_ids[a-b - c]`, status: 'failed' },
  { name: `${B}::test_ids[]`, status: 'passed' },
];

describe('parseJunitXml on real reports', () => {
  it('joins classname and name with "::"', () => {
    expect(JUNIT_ID_SEPARATOR).toBe('::');
  });

  it.each(['pytest7.xml', 'pytest9.xml'])('%s (pytest --junitxml)', (file) => {
    expect(parseJunitXml(readTestLog(`junit-xml/${file}`))).toEqual(PYTEST);
  });

  it.each(['pytest7-duplicates.xml', 'pytest9-duplicates.xml'])('%s: the same testcase twice (failed, then passed): the last one wins', (file) => {
    const xml = readTestLog(`junit-xml/${file}`);
    expect(xml.match(/<testcase classname="tests.test_flaky" name="test_flaky"/g)).toHaveLength(2);
    expect(parseJunitXml(xml)).toEqual([{ name: 'tests.test_flaky::test_flaky', status: 'passed' }]);
  });

  it('vitest.xml (vitest 4.1.12 --reporter=junit): suites in the name, entities decoded, a file that fails to load', () => {
    expect(parseJunitXml(readTestLog('junit-xml/vitest.xml'))).toEqual([
      { name: 'basic.test.ts::adds numbers', status: 'passed' },
      { name: 'basic.test.ts::fails on purpose', status: 'failed' },
      { name: 'basic.test.ts::throws an error', status: 'failed' },
      { name: 'basic.test.ts::skipped test', status: 'skipped' },
      { name: 'basic.test.ts::todo test', status: 'skipped' },
      // test.fails that fails: vitest reports it passed
      { name: 'basic.test.ts::expected to fail', status: 'passed' },
      { name: 'basic.test.ts::math suite > multiplies', status: 'passed' },
      { name: 'basic.test.ts::math suite > inner suite > doubles 1 -> 2', status: 'passed' },
      { name: 'basic.test.ts::math suite > inner suite > doubles 2 -> 4', status: 'passed' },
      { name: 'basic.test.ts::ünïcode 名前 <&> test', status: 'passed' },
      // vitest writes the tab and the newline literally; they are kept as written
      { name: 'basic.test.ts::tab\tand\nnewline in the name', status: 'passed' },
      { name: 'broken.test.ts::broken.test.ts', status: 'failed' },
    ]);
  });

  it('node.xml (node 20.20.2 --test-reporter=junit): nested testsuites, todo as xfail/xpass, classname "test" everywhere', () => {
    expect(parseJunitXml(readTestLog('junit-xml/node.xml'))).toEqual([
      { name: 'test::adds numbers', status: 'passed' },
      { name: 'test::fails on purpose', status: 'failed' },
      { name: 'test::throws an error', status: 'failed' },
      { name: 'test::skipped test', status: 'skipped' },
      // <skipped type="todo"/> + <failure>
      { name: 'test::todo that fails', status: 'xfail' },
      { name: 'test::todo that passes', status: 'xpass' },
      { name: 'test::multiplies', status: 'passed' },
      { name: 'test::divides badly', status: 'failed' },
      { name: 'test::deep test', status: 'passed' },
      { name: 'test::child one', status: 'passed' },
      { name: 'test::child # with hash', status: 'passed' },
      { name: 'test::ünïcode 名前 test', status: 'passed' },
      { name: 'test::name with > arrow', status: 'passed' },
      { name: 'test::logs to stdout', status: 'passed' },
    ]);
  });

  it('surefire-CalcTest-Inner.xml (Maven Surefire 3.2.5, JUnit Jupiter 5.10.2): a bare <testsuite> root', () => {
    expect(parseJunitXml(readTestLog('junit-xml/surefire-CalcTest-Inner.xml'))).toEqual([
      { name: 'demo.CalcTest::unicodeName', status: 'passed' },
      { name: 'demo.CalcTest::failsOnPurpose', status: 'failed' },
      { name: 'demo.CalcTest::adds', status: 'passed' },
      { name: 'demo.CalcTest::param(String)[1]', status: 'passed' },
      { name: 'demo.CalcTest::param(String)[2]', status: 'passed' },
      { name: 'demo.CalcTest::throwsError', status: 'error' },
      { name: 'demo.CalcTest::skipped', status: 'skipped' },
      { name: 'demo.CalcTest$Inner::innerTest', status: 'passed' },
    ]);
  });

  it('jest-junit.xml (jest 30.5.2 + jest-junit 16.0.0): ids kept exactly as written, leading spaces included', () => {
    expect(parseJunitXml(readTestLog('junit-xml/jest-junit.xml'))).toEqual([
      // jest-junit's default classname and name templates are "{classname} {title}": an empty describe leaves a space
      { name: ' adds numbers:: adds numbers', status: 'passed' },
      { name: ' fails on purpose:: fails on purpose', status: 'failed' },
      { name: ' skipped test:: skipped test', status: 'skipped' },
      // jest-junit writes a test.todo without <skipped/>: it reads as passed
      { name: ' todo test:: todo test', status: 'passed' },
      { name: 'math suite multiplies::math suite multiplies', status: 'passed' },
      { name: 'math suite inner suite doubles 1 -> 2::math suite inner suite doubles 1 -> 2', status: 'passed' },
      { name: 'math suite inner suite doubles 2 -> 4::math suite inner suite doubles 2 -> 4', status: 'passed' },
      { name: ' ünïcode 名前 <&> test:: ünïcode 名前 <&> test', status: 'passed' },
      // a suite that failed to load: an <error> testcase, then a <failure> one with the same id (the last wins)
      { name: 'Test suite failed to run::broken.test.js', status: 'failed' },
    ]);
  });

  it('surefire-CalcTest.xml: a suite without testcases has no tests', () => {
    expect(parseJunitXml(readTestLog('junit-xml/surefire-CalcTest.xml'))).toEqual([]);
  });
});

describe('parseJunitXml refusals (INVALID_TYPE)', () => {
  it('node-killed.xml: a report cut by a kill is not read as the tests so far', () => {
    expect(refusal(readTestLog('junit-xml/node-killed.xml'))).toEqual({
      code: 'INVALID_TYPE',
      message: "parseJunitXml: log is not well-formed XML: Unclosed tag 'testsuites'. (line 2)",
    });
  });

  it('a report cut inside a testcase (which would otherwise read as passed)', () => {
    const xml = readTestLog('junit-xml/pytest7.xml');
    const cut = xml.slice(0, xml.indexOf('<failure message="assert [1, 2]'));
    expect(refusal(cut).code).toBe('INVALID_TYPE');
    expect(refusal(cut).message).toMatch(/^parseJunitXml: log is not well-formed XML: /);
  });

  it('an empty log, a text log, another XML document, a non-string', () => {
    expect(refusal('')).toEqual({ code: 'INVALID_TYPE', message: 'parseJunitXml: log is not well-formed XML: Start tag expected. (line 1)' });
    expect(refusal(readTestLog('pytest/rA-pytest7.log')).code).toBe('INVALID_TYPE');
    expect(refusal(readTestLog('junit-xml/sources/maven/pom.xml.txt'))).toEqual({
      code: 'INVALID_TYPE',
      message: 'parseJunitXml: log must be a JUnit XML report with root <testsuites> or <testsuite>, got <project>',
    });
    expect(refusal(7)).toEqual({ code: 'INVALID_TYPE', message: 'parseJunitXml: log must be a string, got 7' });
  });
});

describe('decodeXmlReferences', () => {
  it.each([
    ['a &lt;&amp;&gt; &apos;q&apos; &quot;', `a <&> 'q' "`],
    ['&amp;lt;', '&lt;'],
    ['line&#10;break &#x41;&#X42; &#128512;', 'line\nbreak A&#X42; 😀'],
    ['&nbsp;&copy;', '&nbsp;&copy;'],
    ['&#0; &#xD800; &#x110000;', '&#0; &#xD800; &#x110000;'],
    ['no references', 'no references'],
  ])('%s -> %s', (text, decoded) => {
    expect(decodeXmlReferences(text)).toBe(decoded);
  });
});
