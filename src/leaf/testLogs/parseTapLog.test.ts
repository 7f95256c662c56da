import { describe, expect, it } from 'vitest';
import { readTestLog } from '../../../test/fixtures/test-logs/load.js';
import { isFrognanoError } from '../../errors/FrognanoError.js';
import { parseTapLog, TAP_NAME_SEPARATOR } from './parseTapLog.js';

describe('parseTapLog on node --test --test-reporter=tap (node 20.20.2)', () => {
  it('node-basic.tap: every test point at every depth, nested names joined by " > "', () => {
    expect(TAP_NAME_SEPARATOR).toBe(' > ');
    expect(parseTapLog(readTestLog('tap/node-basic.tap'))).toEqual([
      { name: 'adds numbers', status: 'passed' },
      { name: 'fails on purpose', status: 'failed' },
      { name: 'throws an error', status: 'failed' },
      { name: 'skipped test', status: 'skipped' },
      { name: 'todo that fails', status: 'xfail' },
      { name: 'todo that passes', status: 'xpass' },
      { name: 'math suite > multiplies', status: 'passed' },
      { name: 'math suite > divides badly', status: 'failed' },
      { name: 'math suite > inner suite > deep test', status: 'passed' },
      { name: 'math suite > inner suite', status: 'passed' },
      { name: 'math suite', status: 'failed' },
      { name: 'parent with subtests > child one', status: 'passed' },
      // node writes `child \# with hash`
      { name: 'parent with subtests > child # with hash', status: 'passed' },
      { name: 'parent with subtests', status: 'passed' },
      { name: 'ünïcode 名前 test', status: 'passed' },
      { name: 'name with > arrow', status: 'passed' },
      { name: 'logs to stdout', status: 'passed' },
    ]);
  });

  it('node-crash.tap: a test file that exits mid-run is one failed point named by its path', () => {
    expect(parseTapLog(readTestLog('tap/node-crash.tap'))).toEqual([{ name: '/tmp/frognano-test-logs/tap/node-crash.test.mjs', status: 'failed' }]);
  });

  it('node-killed.tap: a run killed mid-suite keeps the finished points; the open suite and the hung test are absent', () => {
    expect(parseTapLog(readTestLog('tap/node-killed.tap'))).toEqual([
      { name: 'finishes first', status: 'passed' },
      { name: 'suite that hangs > inner ok', status: 'passed' },
    ]);
  });
});

describe('parseTapLog on Perl Test::More 1.302190', () => {
  it('perl-basic.tap: skip, todo, nested subtests, a nameless point named by its number', () => {
    expect(parseTapLog(readTestLog('tap/perl-basic.tap'))).toEqual([
      { name: 'first passes', status: 'passed' },
      { name: 'second fails', status: 'failed' },
      { name: '#3', status: 'skipped' },
      { name: 'todo that fails', status: 'xfail' },
      { name: 'todo that passes', status: 'xpass' },
      { name: 'outer group > inner passes', status: 'passed' },
      { name: 'outer group > deeper > deep fails', status: 'failed' },
      { name: 'outer group > deeper', status: 'failed' },
      { name: 'outer group', status: 'failed' },
      { name: 'ünïcode 名前', status: 'passed' },
    ]);
  });

  it('perl-bail.tap: nothing after "Bail out!" is read', () => {
    const log = readTestLog('tap/perl-bail.tap');
    expect(log).toContain('Bail out!  database unreachable');
    expect(parseTapLog(log)).toEqual([
      { name: 'before bail', status: 'passed' },
      { name: 'fails then bails', status: 'failed' },
    ]);
    // a point written after the bail-out is still not read
    expect(parseTapLog(`${log}ok 3 - never runs\n`)).toEqual(parseTapLog(log));
  });
});

describe('parseTapLog on tape 5.10.2 (assertions grouped under "# name")', () => {
  it('tape-basic.tap: a test passes iff all its assertions pass', () => {
    expect(parseTapLog(readTestLog('tap/tape-basic.tap'))).toEqual([
      { name: 'arithmetic works', status: 'passed' },
      { name: 'one assertion fails', status: 'failed' },
      // `# SKIP skipped test`, no assertions
      { name: 'skipped test', status: 'skipped' },
      // one `# SKIP` assertion, one passing
      { name: 'has a skipped assertion', status: 'passed' },
      // `# TODO todo failing` + `not ok 7 not done yet # TODO`
      { name: 'todo failing', status: 'xfail' },
      { name: 'todo passing', status: 'xpass' },
      // tape's t.test subtests are flat `# name` tests
      { name: 'parent test', status: 'passed' },
      { name: 'child test', status: 'passed' },
      { name: 'ünïcode 名前 # hash', status: 'passed' },
      // no assertions, and the run went on past it
      { name: 'no assertions', status: 'passed' },
    ]);
  });

  it('tape-crash.tap: the test that threw (its one assertion passed) is absent; the finished ones stay', () => {
    const log = readTestLog('tap/tape-crash.tap');
    expect(log).toContain('# throws inside\nok 5 runs before the throw\n');
    expect(parseTapLog(log)).toEqual([
      { name: 'arithmetic works', status: 'passed' },
      { name: 'one assertion fails', status: 'failed' },
    ]);
  });

  it('a tape test cut after a failed assertion is failed', () => {
    const log = readTestLog('tap/tape-basic.tap');
    const cut = log.slice(0, log.indexOf('# SKIP skipped test'));
    expect(parseTapLog(cut)).toEqual([
      { name: 'arithmetic works', status: 'passed' },
      { name: 'one assertion fails', status: 'failed' },
    ]);
    const beforeSecond = log.slice(0, log.indexOf('ok 2 truthy'));
    expect(parseTapLog(beforeSecond)).toEqual([]);
  });
});

describe('parseTapLog on a log of several runs', () => {
  it('reads each "TAP version" stream on its own (node, then tape, then node killed)', () => {
    const node = parseTapLog(readTestLog('tap/node-basic.tap'));
    const tape = parseTapLog(readTestLog('tap/tape-basic.tap'));
    const log = readTestLog('tap/node-basic.tap') + readTestLog('tap/tape-basic.tap') + readTestLog('tap/node-killed.tap');
    // both runs have a test named "skipped test" (skipped in both): one id, at its first place
    const tapeRest = tape.filter((t) => t.name !== 'skipped test');
    expect(tapeRest).toHaveLength(9);
    expect(parseTapLog(log)).toEqual([...node, ...tapeRest, { name: 'finishes first', status: 'passed' }, { name: 'suite that hangs > inner ok', status: 'passed' }]);
    expect(node).toHaveLength(17);
    expect(tape).toHaveLength(10);
  });

  it('the same test in two runs: the last run wins', () => {
    const log = readTestLog('tap/node-killed.tap');
    const twice = `${readTestLog('tap/node-crash.tap')}${log}\n${log}`;
    expect(parseTapLog(twice)).toEqual([
      { name: '/tmp/frognano-test-logs/tap/node-crash.test.mjs', status: 'failed' },
      { name: 'finishes first', status: 'passed' },
      { name: 'suite that hangs > inner ok', status: 'passed' },
    ]);
  });
});

describe('parseTapLog input', () => {
  it('an empty log or a non-TAP log has no tests', () => {
    expect(parseTapLog('')).toEqual([]);
    expect(parseTapLog(readTestLog('pytest/rA-v-pytest9.log'))).toEqual([]);
    // a bare "ok" line is a TAP test point (no number, no name): unittest's status line of a test that wrote output
    expect(parseTapLog(readTestLog('unittest/things-py311.log'))).toEqual([{ name: '#0', status: 'passed' }]);
  });

  it('refuses a non-string log with INVALID_TYPE', () => {
    let caught: unknown;
    try {
      parseTapLog({} as unknown as string);
    } catch (e) {
      caught = e;
    }
    expect(isFrognanoError(caught, 'INVALID_TYPE')).toBe(true);
    expect((caught as Error).message).toBe('parseTapLog: log must be a string, got object');
  });
});
