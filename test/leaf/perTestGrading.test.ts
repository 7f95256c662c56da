/**
 * SPEC §14 per-test grading through real episodes and real runners: fail-to-pass
 * and pass-to-pass ids read from pytest's, unittest's and node's TAP output and a
 * JUnit report, `tests.patch` applied at grading (modifying and deleting files the
 * repo had), the agent's edits of visible test files kept in the diff, and
 * `validate-tasks` per test.
 */
import { describe, expect, it } from 'vitest';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { parseLeafTask } from '../../src/leaf/task.js';
import { type TaskValidation, validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const REPO = {
  'pkg/__init__.py': '',
  'pkg/stats.py': 'def median(xs):\n    return xs[len(xs) // 2]\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n',
  'tests/__init__.py': '',
  'tests/test_mean.py': 'from pkg.stats import mean\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n',
  'tests/test_old.py': 'def test_obsolete():\n    assert False\n',
};
// SWE-bench's test_patch: adds the fail-to-pass test to an existing file and deletes an obsolete one
const TEST_PATCH = [
  'diff --git a/tests/test_mean.py b/tests/test_mean.py',
  '--- a/tests/test_mean.py',
  '+++ b/tests/test_mean.py',
  '@@ -1,4 +1,8 @@',
  '-from pkg.stats import mean',
  '+from pkg.stats import mean, median',
  ' ',
  ' def test_mean():',
  '     assert mean([1, 2, 3]) == 2',
  '+',
  '+def test_median_unsorted():',
  '+    assert median([3, 1, 2]) == 2',
  '+',
  'diff --git a/tests/test_old.py b/tests/test_old.py',
  'deleted file mode 100644',
  '--- a/tests/test_old.py',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-def test_obsolete():',
  '-    assert False',
  '',
].join('\n');
const FIX = ['diff --git a/pkg/stats.py b/pkg/stats.py', '--- a/pkg/stats.py', '+++ b/pkg/stats.py', '@@ -1,2 +1,2 @@', ' def median(xs):', '-    return xs[len(xs) // 2]', '+    return sorted(xs)[len(xs) // 2]', ''].join('\n');
const SED_FIX = "sed -i 's/return xs\\[len(xs) \\/\\/ 2\\]/return sorted(xs)[len(xs) \\/\\/ 2]/' pkg/stats.py";

async function task(tests: Record<string, unknown>, files: Record<string, string> = REPO) {
  const dir = await scratchDir('frognano-f2p-');
  await writeTree(`${dir}/repo`, files);
  return parseLeafTask({ id: 'median', statement: 'Fix median.', repo: 'repo', referencePatch: FIX, tests }, dir);
}
/** A validation without its `seconds` (wall times vary), which must be there. */
function untimed(v: TaskValidation): TaskValidation {
  const { seconds, ...rest } = v;
  expect(seconds).toEqual({ before: expect.any(Number), after: expect.any(Number) });
  return rest;
}
let sandbox: Sandbox;
async function episode(t: Awaited<ReturnType<typeof task>>, commands: string[]): Promise<RolloutRecord> {
  sandbox ??= createSandbox({});
  const records: RolloutRecord[] = [];
  await rolloutTasks([t], { model: toolModel([...commands.map((c) => calls(['bash', { command: c }])), final()]), sandbox, onRecords: (rs) => void records.push(...rs) });
  return records[0]!;
}
const PYTEST = { command: 'python3 -m pytest -rA -p no:cacheprovider tests', log: 'pytest', patch: TEST_PATCH, failToPass: ['tests/test_mean.py::test_median_unsorted'], passToPass: ['tests/test_mean.py::test_mean'] };

describe.skipIf(!hasBwrap() || !hasPytest())('SPEC §14 per-test grading (real episodes)', () => {
  it('pytest: the fix passes with per-test statuses; the untouched repo fails naming the fail-to-pass id; the deleted test is gone', async () => {
    const t = await task(PYTEST);
    const good = await episode(t, [SED_FIX]);
    expect(good.outcome?.success).toBe(true);
    expect(good.tests).toEqual([
      { name: 'tests/test_mean.py::test_median_unsorted', passed: true, status: 'passed' },
      { name: 'tests/test_mean.py::test_mean', passed: true, status: 'passed' },
    ]);
    expect(good.hacking).toEqual([]);
    const bad = await episode(t, ['true']);
    expect(bad.outcome?.success).toBe(false);
    expect(bad.tests![0]).toEqual({ name: 'tests/test_mean.py::test_median_unsorted', passed: false, status: 'failed' });
    expect(bad.grading?.reason).toContain('tests/test_mean.py::test_median_unsorted');
  });

  it("the agent's edit of a visible test file that the patch overwrites is in the diff, and weakening it is flagged", async () => {
    const r = await episode(await task(PYTEST), ["sed -i 's/    assert mean(\\[1, 2, 3\\]) == 2/    pass/' tests/test_mean.py", SED_FIX]);
    expect(r.outcome?.success).toBe(true); // the patch restored the file before it applied: grading saw the real test
    expect(r.diff).toContain('-    assert mean([1, 2, 3]) == 2');
    expect(r.hacking.map((h) => h.code)).toEqual(expect.arrayContaining(['test-edit', 'test-weakening']));
  });

  it('a command that exits non-zero with no failed test in its log is not a success (printed fake results)', async () => {
    const t = await task({ ...PYTEST, command: `echo 'PASSED tests/test_mean.py::test_median_unsorted'; echo 'PASSED tests/test_mean.py::test_mean'; exit 3` });
    const r = await episode(t, [SED_FIX]);
    expect(r.outcome?.success).toBe(false);
  });

  it('a suite that never ran is a failure with that cause, never an ungraded episode', async () => {
    const r = await episode(await task({ ...PYTEST, command: 'python3 -m pytest -rA nowhere/' }), [SED_FIX]);
    expect(r.termination).toBe('stop');
    expect(r.outcome?.success).toBe(false);
    expect(r.tests!.map((x) => x.status)).toEqual(['missing', 'missing']);
    expect(r.reward).toBe(0);
  });

  it('unittest, TAP (node) and JUnit XML (pytest --junitxml) logs grade the same fix', async () => {
    const unit = await task({ command: 'python3 -m unittest -v tests.test_mean', log: 'unittest', failToPass: ['tests.test_mean.Median.test_median_unsorted'] }, {
      ...REPO,
      'tests/test_mean.py': 'import unittest\nfrom pkg.stats import median\n\nclass Median(unittest.TestCase):\n    def test_median_unsorted(self):\n        self.assertEqual(median([3, 1, 2]), 2)\n',
    });
    const u = await episode(unit, [SED_FIX]);
    expect(u.tests).toEqual([{ name: 'tests.test_mean.Median.test_median_unsorted', passed: true, status: 'passed' }]);
    const js = await task({ command: 'node --test --test-reporter=tap tests/', log: 'tap', failToPass: ['clamps low'] }, {
      'lib.js': 'exports.clamp = (x, lo, hi) => Math.min(x, hi);\n',
      'tests/clamp.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { clamp } = require('../lib.js');\ntest('clamps low', () => assert.strictEqual(clamp(-1, 0, 5), 0));\n",
    });
    const j = await episode(js, ["sed -i 's/Math.min(x, hi)/Math.max(lo, Math.min(x, hi))/' lib.js"]);
    expect(j.tests).toEqual([{ name: 'clamps low', passed: true, status: 'passed' }]);
    const junit = await task({ command: 'python3 -m pytest -p no:cacheprovider --junitxml=report.xml tests', log: 'junit-xml', junitPath: 'report.xml', patch: TEST_PATCH, failToPass: ['tests.test_mean::test_median_unsorted'] });
    // a report planted by the agent is removed before the run: the real one is read
    const x = await episode(junit, ['echo \'<testsuites><testsuite><testcase classname="tests.test_mean" name="test_median_unsorted"/></testsuite></testsuites>\' > report.xml']);
    expect(x.tests).toEqual([{ name: 'tests.test_mean::test_median_unsorted', passed: false, status: 'failed' }]);
  });

  it('validate-tasks per test: valid with the lists; an id that already passes, or a P2P id that breaks, names the id and its statuses', async () => {
    sandbox ??= createSandbox({});
    expect(untimed(await validateLeafTask(await task(PYTEST), { sandbox }))).toEqual({ id: 'median', valid: true });
    const already = await task({ ...PYTEST, failToPass: ['tests/test_mean.py::test_mean'], passToPass: [] });
    expect(untimed(await validateLeafTask(already, { sandbox }))).toEqual({ id: 'median', valid: false, reason: 'a fail-to-pass test does not fail on the unmodified repository: tests/test_mean.py::test_mean is passed before and passed with the reference patch' });
    const broken = await task({ ...PYTEST, passToPass: ['tests/test_mean.py::test_mean', 'tests/test_mean.py::test_gone'] });
    expect(untimed(await validateLeafTask(broken, { sandbox }))).toEqual({ id: 'median', valid: false, reason: 'a pass-to-pass test does not pass on both sides: tests/test_mean.py::test_gone is missing before and missing with the reference patch' });
  });
});

describe.skipIf(!hasBwrap() || !hasPytest())('SPEC §14 ignoredChanges (real episodes)', () => {
  it("files the repo's .gitignore ignores stay out of the diff, listed with their sizes; planted bytecode there is still dropped and flagged", async () => {
    const t = await task({ command: 'python3 -m pytest -q tests' }, { ...REPO, '.gitignore': '.pytest_cache/\n*.log\n__pycache__/\n', 'tests/test_old.py': 'def test_ok():\n    pass\n' });
    const r = await episode(t, ['python3 -m pytest -q tests > run.log; mkdir -p pkg/__pycache__ && printf xyz > pkg/__pycache__/stats.cpython-311.pyc', SED_FIX]);
    expect(r.diff).toContain('+++ b/pkg/stats.py');
    expect(r.diff).not.toContain('.pytest_cache');
    expect(r.diff).not.toContain('run.log');
    const ignored = r.ignoredChanges!.map((c) => c.path);
    expect(ignored).toContain('run.log');
    expect(ignored.some((p) => p.startsWith('.pytest_cache/'))).toBe(true);
    expect(r.ignoredChanges!.find((c) => c.path === 'pkg/__pycache__/stats.cpython-311.pyc')!.bytes).toBe(3);
    expect(r.grading?.dropped).toContain('pkg/__pycache__/stats.cpython-311.pyc');
    expect(r.hacking.map((h) => h.code)).toEqual(['grading-hook']);
    expect(r.outcome?.success).toBe(true);
  });
});

describe('SPEC §14 task fields', () => {
  it('lists without a log, and junit-xml without its path, are refused naming the field', async () => {
    await expect(task({ command: 'true', failToPass: ['a'] })).rejects.toThrow(/tests\.failToPass needs tests\.log/);
    await expect(task({ command: 'true', log: 'junit-xml' })).rejects.toThrow(/tests\.junitPath is required/);
    await expect(task({ command: 'true', log: 'pytest', junitPath: '../x.xml' })).rejects.toThrow(/must be a relative path inside the repository/);
  });
});
