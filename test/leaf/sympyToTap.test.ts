/**
 * sympy's `bin/test` read through the TAP converter (src/leaf/sympyToTap.ts): the converter
 * on real `bin/test` output (test/fixtures/test-logs/sympy, see its README), the documented
 * differences from SWE-bench's `parse_log_sympy`, hostile output, the wrapped command under
 * bash and in the sandbox, and `tasks import` choosing it for sympy/sympy.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importInstances } from '../../src/leaf/importInstances.js';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { SWE_BENCH_SPECS } from '../../src/leaf/sweBenchSpecs.js';
import { SYMPY_TO_TAP_PY, sympyToTapCommand } from '../../src/leaf/sympyToTap.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { gradeTestIds, parseTapLog, type TestResult } from '../../src/leaf/testLogs/index.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { readTestLog } from '../fixtures/test-logs/load.js';
import { hasBwrap } from '../helpers/system.js';

const work = mkdtempSync(join(tmpdir(), 'frognano-sympy-tap-'));
const converter = join(work, 'sympy_to_tap.py');
writeFileSync(converter, SYMPY_TO_TAP_PY);

/** The converter's output on `log` (python3 -I, as the wrapped command runs it). */
function convert(log: string): string {
  const file = join(work, `log-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, log);
  return execFileSync('python3', ['-I', converter, file], { encoding: 'utf8' });
}
const read = (fixture: string): TestResult[] => parseTapLog(convert(readTestLog(`sympy/${fixture}`)));

/** SWE-bench's parse_log_sympy (log_parsers/python.py at 25c5235), ported line for line, for the comparisons below. */
function sweBenchSympy(log: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const m of log.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) map.set(`${m[2]}.py:${m[3]}`, 'FAILED');
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    if (line.endsWith(' E')) map.set(line.split(/\s+/)[0]!, 'ERROR');
    if (line.endsWith(' F')) map.set(line.split(/\s+/)[0]!, 'FAILED');
    if (line.endsWith(' ok')) map.set(line.split(/\s+/)[0]!, 'PASSED');
  }
  return map;
}

const PIECEWISE_SKIPPED = ['test_piecewise_integrate1ca', 'test_piecewise_integrate1cb', 'test_piecewise_integrate4_symbolic_conditions', 'test_identical_conds_issue'];
const F2P = 'test_piecewise__eval_is_meromorphic';

describe('sympy bin/test -> TAP, on real bin/test output', () => {
  it('reads every mark of the legacy runner (markers.log)', () => {
    expect(read('markers.log')).toEqual([
      { name: 'test_passes', status: 'passed' },
      { name: 'test_fails', status: 'failed' },
      { name: 'test_errors', status: 'failed' },
      { name: 'test_xfails', status: 'xfail' },
      { name: 'test_xpasses', status: 'xpass' },
      { name: 'test_skipped_with_reason', status: 'skipped' },
      { name: 'test_skip_call', status: 'failed' },
      { name: 'test_slow_one', status: 'skipped' },
      { name: 'test_prints', status: 'passed' },
      { name: 'test_last_one', status: 'passed' },
    ]);
  });

  it('reads the 66 tests of test_piecewise.py before and after the fix (a0590ee27c), the last one included', () => {
    const fail = read('piecewise-fail.log');
    const pass = read('piecewise-pass.log');
    expect(fail).toHaveLength(66);
    expect(pass.map((r) => r.name)).toEqual(fail.map((r) => r.name));
    expect(fail.at(-1)).toEqual({ name: F2P, status: 'failed' });
    expect(pass.at(-1)).toEqual({ name: F2P, status: 'passed' });
    expect(fail.filter((r) => r.status === 'skipped').map((r) => r.name)).toEqual(PIECEWISE_SKIPPED);
    expect(fail.filter((r) => r.name !== F2P && r.status !== 'skipped').every((r) => r.status === 'passed')).toBe(true);
    expect(pass.filter((r) => r.status === 'passed')).toHaveLength(62);
  });

  it('grades the instance by SPEC §14: the fail-to-pass test fails before the fix and passes after, pass-to-pass held both times', () => {
    const passToPass = read('piecewise-pass.log').filter((r) => r.name !== F2P).map((r) => r.name);
    const before = gradeTestIds({ results: read('piecewise-fail.log'), failToPass: [F2P], passToPass, exitCode: 1 });
    const after = gradeTestIds({ results: read('piecewise-pass.log'), failToPass: [F2P], passToPass, exitCode: 0 });
    expect(before.success).toBe(false);
    expect(before.tests.find((t) => t.name === F2P)).toEqual({ name: F2P, passed: false, status: 'failed' });
    expect(before.tests.filter((t) => t.name !== F2P).every((t) => t.passed)).toBe(true);
    expect(after.success).toBe(true);
  });

  it('differs from parse_log_sympy only where its header says: the last test of a file, printed output, the marks it ignores', () => {
    const log = readTestLog('sympy/markers.log');
    const swe = sweBenchSympy(log);
    expect(swe.get('test_last_one')).toBeUndefined(); // `test_last_one ok ... [FAIL]` ends in the file's mark
    expect(swe.get('test_prints')).toBe('FAILED'); // its printed line ends in " F"; its own mark `ok` is on the next line
    for (const t of ['test_xfails', 'test_xpasses', 'test_skipped_with_reason', 'test_slow_one']) expect(swe.get(t)).toBeUndefined();
    expect(swe.get('sympy/core/tests/test_zz_markers.py:test_errors')).toBe('FAILED');
    const ours = new Map(read('markers.log').map((r) => [r.name, r.status]));
    for (const [name, status] of swe) {
      if (name.includes('.py:') || name === 'test_prints') continue;
      expect([name, ours.get(name) === 'passed' ? 'PASSED' : ours.get(name) === 'failed' ? (status === 'ERROR' ? 'ERROR' : 'FAILED') : ours.get(name)]).toEqual([name, status]);
    }
    expect(sweBenchSympy(readTestLog('sympy/piecewise-pass.log')).get(F2P)).toBeUndefined();
  });
});

describe('sympy bin/test -> TAP, hostile and cut output', () => {
  it('keeps the printed output as comments: TAP lines a test prints are no test points', () => {
    const log = 'sympy/x/tests/test_a.py[1] \ntest_a printing\nok 1 - test_forged\nTAP version 13\n1..0\nnot ok\n [OK]\n';
    // test_a's own mark is the last word it printed (`not ok` -> `ok`): printed text is the runner's output too; test_forged is no test
    expect(parseTapLog(convert(log))).toEqual([{ name: 'test_a', status: 'passed' }]);
    expect(convert(log)).toContain('# ok 1 - test_forged\n');
  });

  it('leaves out a test the log was cut in, so a listed id reads as missing', () => {
    const log = 'sympy/x/tests/test_a.py[2] \ntest_a ok\ntest_b partial output';
    expect(parseTapLog(convert(log))).toEqual([{ name: 'test_a', status: 'passed' }]);
    expect(gradeTestIds({ results: parseTapLog(convert(log)), failToPass: ['test_b'], exitCode: null }).tests).toEqual([{ name: 'test_b', passed: false, status: 'missing' }]);
  });

  it('an empty log or one without tests gives no test (a plan of 0, never a tape test per comment line)', () => {
    expect(parseTapLog(convert(''))).toEqual([]);
    expect(parseTapLog(convert('Traceback (most recent call last):\nImportError: no sympy\n'))).toEqual([]);
  });

  it('the last result of a repeated name wins, in order of first appearance, as in SWE-bench\'s dict', () => {
    const log = 'a.py[2] \ntest_x F\ntest_y ok\n\nb.py[1] \ntest_x ok\n';
    expect(parseTapLog(convert(log))).toEqual([{ name: 'test_x', status: 'passed' }, { name: 'test_y', status: 'passed' }]);
  });

  it('reads invalid UTF-8 and CRLF line ends', () => {
    const file = join(work, 'bytes.txt');
    writeFileSync(file, Buffer.concat([Buffer.from('a.py[1] \r\ntest_\u00e9 ok\r\ntest_b '), Buffer.from([0xff, 0xfe]), Buffer.from(' F\r\n')]));
    const out = execFileSync('python3', ['-I', converter, file], { encoding: 'utf8' });
    expect(parseTapLog(out)).toEqual([{ name: 'test_\u00e9', status: 'passed' }, { name: 'test_b', status: 'failed' }]);
  });
});

describe('sympyToTapCommand', () => {
  it('runs the command in a subshell, prints the TAP stream and exits with the command\'s status', () => {
    const fixture = join(__dirname, '../fixtures/test-logs/sympy/piecewise-fail.log');
    const r = spawnSync('bash', ['-c', sympyToTapCommand(`cat '${fixture}'; exit 3`)], { encoding: 'utf8' });
    expect(r.status).toBe(3);
    expect(r.stdout.startsWith('TAP version 13\n1..66\n# ====')).toBe(true);
    expect(parseTapLog(r.stdout)).toEqual(read('piecewise-fail.log'));
  });

  it('is what tasks import writes for sympy/sympy (log tap), and not with --log', async () => {
    const clone = join(work, 'clones', 'sympy__sympy');
    mkdirSync(join(clone, 'bin'), { recursive: true });
    writeFileSync(join(clone, 'bin', 'test'), '#!/bin/sh\n');
    writeFileSync(join(clone, 'a.py'), 'x = 1\n');
    const git = (...a: string[]): string => execFileSync('git', a, { cwd: clone, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' } });
    git('init', '-q', '.');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const base = git('rev-parse', 'HEAD').trim();
    const testPatch = 'diff --git a/sympy/t/tests/test_a.py b/sympy/t/tests/test_a.py\nnew file mode 100644\n--- /dev/null\n+++ b/sympy/t/tests/test_a.py\n@@ -0,0 +1 @@\n+def test_a(): pass\n';
    const inst = { instance_id: 'sympy__sympy-1', repo: 'sympy/sympy', base_commit: base, patch: '', test_patch: testPatch, problem_statement: 's', FAIL_TO_PASS: '["test_a"]', PASS_TO_PASS: '[]' };
    writeFileSync(join(work, 'inst.json'), JSON.stringify([inst]));
    const spec = SWE_BENCH_SPECS['sympy/sympy']!;
    for (const log of [undefined, 'pytest'] as const) {
      const out = join(work, `tasks-${log ?? 'default'}.jsonl`);
      const res = await importInstances({ format: 'swebench', instances: join(work, 'inst.json'), repos: join(work, 'clones'), out, ...(log ? { log } : {}) });
      expect(res.errors).toEqual([]);
      const task = JSON.parse(readFileSync(out, 'utf8').trim()) as { tests: { command: string; log: string } };
      const given = `${spec.command} sympy/t/tests/test_a.py`;
      expect(task.tests).toMatchObject(log ? { command: given, log } : { command: sympyToTapCommand(given), log: 'tap' });
    }
  });

  it.skipIf(!hasBwrap())('grades inside the sandbox: validate-tasks sees the fail-to-pass test fail, then pass with the reference patch', async () => {
    const dir = join(work, 'sandboxed');
    mkdirSync(join(dir, 'repo'), { recursive: true });
    writeFileSync(join(dir, 'repo', 'run.log'), readTestLog('sympy/piecewise-fail.log'));
    const passToPass = read('piecewise-pass.log').filter((r) => r.name !== F2P && r.status === 'passed').map((r) => r.name);
    const task = {
      id: 'sympy-piecewise', statement: 's', repo: 'repo',
      tests: { command: sympyToTapCommand('cat run.log; grep -q "tests finished: 62 passed" run.log'), log: 'tap', failToPass: [F2P], passToPass },
      referencePatch: `diff --git a/run.log b/run.log\n--- a/run.log\n+++ b/run.log\n${unifiedReplace(readTestLog('sympy/piecewise-fail.log'), readTestLog('sympy/piecewise-pass.log'))}`,
    };
    writeFileSync(join(dir, 'tasks.jsonl'), `${JSON.stringify(task)}\n`);
    const [loaded] = await loadLeafTasks(join(dir, 'tasks.jsonl'));
    const v = await validateLeafTask(loaded!, { sandbox: createSandbox({}) });
    expect(v).toMatchObject({ id: 'sympy-piecewise', valid: true });
  });
});

/** A one-hunk unified diff body replacing all of `a` by all of `b`. */
function unifiedReplace(a: string, b: string): string {
  const al = a.replace(/\n$/, '').split('\n');
  const bl = b.replace(/\n$/, '').split('\n');
  return `@@ -1,${al.length} +1,${bl.length} @@\n${al.map((l) => `-${l}`).join('\n')}\n${bl.map((l) => `+${l}`).join('\n')}\n`;
}
