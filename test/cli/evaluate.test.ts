/**
 * `frognano evaluate` as a user runs it: the real executable from source, the
 * real sandbox and pytest, a small Python repository with a bug, its
 * `tests.patch` adding the fail-to-pass test, and predictions in the forms
 * mini-swe-agent / SWE-agent / SWE-bench write. Every report value is exact.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePytestLog } from '../../src/leaf/testLogs/index.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';
import { logFileName } from '../../src/cli/commands/evaluate.js';
import { runFrognano } from './helpers.js';

const REPO = {
  'pkg/__init__.py': '',
  'pkg/stats.py': 'def median(xs):\n    return xs[len(xs) // 2]\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n',
  'tests/__init__.py': '',
  'tests/test_mean.py': 'from pkg.stats import mean\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n',
};
/** SWE-bench's test_patch: the fail-to-pass test, added at grading. */
const TEST_PATCH = [
  'diff --git a/tests/test_mean.py b/tests/test_mean.py',
  '--- a/tests/test_mean.py',
  '+++ b/tests/test_mean.py',
  '@@ -1,4 +1,7 @@',
  '-from pkg.stats import mean',
  '+from pkg.stats import mean, median',
  ' ',
  ' def test_mean():',
  '     assert mean([1, 2, 3]) == 2',
  '+',
  '+def test_median_unsorted():',
  '+    assert median([3, 1, 2]) == 2',
  '',
].join('\n');
const F2P = 'tests/test_mean.py::test_median_unsorted';
const P2P = 'tests/test_mean.py::test_mean';

/** A patch of pkg/stats.py replacing `median`'s body (and, with `mean`, `mean`'s). */
function statsPatch(medianBody: string, meanBody?: string): string {
  const lines = ['diff --git a/pkg/stats.py b/pkg/stats.py', '--- a/pkg/stats.py', '+++ b/pkg/stats.py', '@@ -1,5 +1,5 @@', ' def median(xs):', '-    return xs[len(xs) // 2]', `+    ${medianBody}`, ' ', ' def mean(xs):'];
  lines.push(...(meanBody === undefined ? ['     return sum(xs) / len(xs)'] : ['-    return sum(xs) / len(xs)', `+    ${meanBody}`]));
  return `${lines.join('\n')}\n`;
}
const FIX = statsPatch('return sorted(xs)[len(xs) // 2]');
const WRONG = statsPatch('return sorted(xs)[0]');
const BREAKS_P2P = statsPatch('return sorted(xs)[len(xs) // 2]', 'return sum(xs)');
const NO_APPLY = ['--- a/pkg/stats.py', '+++ b/pkg/stats.py', '@@ -1,2 +1,2 @@', ' def median(values):', '-    return values[0]', '+    return sorted(values)[0]', ''].join('\n');
/** What the planted runner prints: a pytest summary with both ids passed (it would resolve the instance, were it run). */
const FAKE_SUMMARY = ['==== short test summary info ====', `PASSED ${F2P}`, `PASSED ${P2P}`, '==== 2 passed in 0.01s ===='];
/** A runner shadow printing {@link FAKE_SUMMARY}: dropped before the tests, so the wrong fix beside it grades as wrong. */
const SHADOW = `${WRONG}--- /dev/null\n+++ b/pytest.py\n@@ -0,0 +1,${FAKE_SUMMARY.length} @@\n${FAKE_SUMMARY.map((l) => `+print(${JSON.stringify(l)})\n`).join('')}`;

/** The rules task: an xfail-marked fail-to-pass test that passes (xpass) and a skipped pass-to-pass test. */
const RULES_REPO = {
  ...REPO,
  'tests/test_rules.py': [
    'import pytest',
    'from pkg.stats import median',
    '',
    "@pytest.mark.xfail(reason='known', strict=False)",
    'def test_median_xpass():',
    '    assert median([3, 1, 2]) == 2',
    '',
    "@pytest.mark.skip(reason='not here')",
    'def test_skipped():',
    '    assert False',
    '',
    'def test_kept():',
    '    assert median([5]) == 5',
    '',
  ].join('\n'),
};

const PYTEST = 'python3 -m pytest -rA -v -p no:cacheprovider tests';
const IDS = ['good', 'wrong', 'breaks-p2p', 'no-apply', 'empty', 'null', 'shadow'] as const;

/** Writes the tasks file (one task per instance id, all on the buggy repo) and returns its folder and path. */
async function writeTasks(): Promise<{ dir: string; tasks: string }> {
  const dir = await scratchDir('frognano-evaluate-');
  await writeTree(join(dir, 'repo'), REPO);
  await writeTree(join(dir, 'rules'), RULES_REPO);
  const tests = { command: PYTEST, log: 'pytest', patch: TEST_PATCH, failToPass: [F2P], passToPass: [P2P] };
  const records = IDS.map((id) => ({ id, statement: 'median() is wrong for unsorted input.', repo: 'repo', tests }));
  records.push({ id: 'rules', statement: 'Fix median.', repo: 'rules', tests: { command: PYTEST, log: 'pytest', failToPass: ['tests/test_rules.py::test_median_xpass'], passToPass: ['tests/test_rules.py::test_skipped', 'tests/test_rules.py::test_kept'] } } as never);
  const tasks = join(dir, 'tasks.jsonl');
  await writeFile(tasks, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { dir, tasks };
}

const PATCHES: Record<string, string | null> = { good: FIX, wrong: WRONG, 'breaks-p2p': BREAKS_P2P, 'no-apply': NO_APPLY, empty: '', null: null, shadow: SHADOW, rules: FIX };
const predictions = (ids: readonly string[]) => ids.map((id) => ({ instance_id: id, model_name_or_path: 'm', model_patch: PATCHES[id]! }));

const split = (success: string[] = [], failure: string[] = []) => ({ success, failure });
const ran = (resolved: boolean, f2p: ReturnType<typeof split>, p2p: ReturnType<typeof split>) => ({
  patch_is_None: false,
  patch_exists: true,
  patch_successfully_applied: true,
  resolved,
  tests_status: { FAIL_TO_PASS: f2p, PASS_TO_PASS: p2p, FAIL_TO_FAIL: split(), PASS_TO_FAIL: split() },
});

describe.skipIf(!hasBwrap() || !hasPytest())('frognano evaluate (real sandbox, real pytest)', () => {
  let dir: string;
  let tasks: string;
  let run: Awaited<ReturnType<typeof runFrognano>>;
  let report: Record<string, unknown>;
  beforeAll(async () => {
    ({ dir, tasks } = await writeTasks());
    const preds = join(dir, 'preds.json');
    await writeFile(preds, JSON.stringify([...predictions([...IDS, 'rules']), { instance_id: 'nobody', model_name_or_path: 'm', model_patch: FIX }]));
    run = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', preds, '--out', join(dir, 'report.json'), '--logs', join(dir, 'logs'), '--concurrency', '2'], '', 120_000);
    report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Record<string, unknown>;
  }, 150_000);

  it('exits 0 with "N of M resolved" on stderr; the unknown instance is an error line and skipped', () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`frognano evaluate: error: ${join(dir, 'preds.json')} record 9: instance_id "nobody" is no task's id in ${tasks}; skipped\n`);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('frognano evaluate: 2 of 8 resolved (1 skipped: no such task)');
    expect(Object.keys(report)).toEqual([...IDS, 'rules']);
  });

  it('the correct fix is resolved: every FAIL_TO_PASS and PASS_TO_PASS id in success', () => {
    expect(report.good).toEqual(ran(true, split([F2P]), split([P2P])));
    expect(run.stderr).toContain('frognano evaluate: good: resolved\n');
  });

  it('a wrong fix is unresolved with the fail-to-pass id in failure', () => {
    expect(report.wrong).toEqual(ran(false, split([], [F2P]), split([P2P])));
    expect(run.stderr).toMatch(/frognano evaluate: wrong: unresolved: .*tests\/test_mean\.py::test_median_unsorted/);
  });

  it('a fix that breaks a pass-to-pass test is unresolved with that id in PASS_TO_PASS failure', () => {
    expect(report['breaks-p2p']).toEqual(ran(false, split([F2P]), split([], [P2P])));
  });

  it('a patch that does not apply: patch_successfully_applied false, no tests_status, the reason on stderr', () => {
    expect(report['no-apply']).toEqual({ patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false });
    expect(run.stderr).toContain('frognano evaluate: no-apply: unresolved: the patch does not apply: a hunk of pkg/stats.py does not apply\n');
  });

  it('an empty patch: patch_exists false ("empty patch"); a null patch: patch_is_None true', () => {
    expect(report.empty).toEqual({ patch_is_None: false, patch_exists: false, patch_successfully_applied: false, resolved: false });
    expect(run.stderr).toContain('frognano evaluate: empty: unresolved: empty patch\n');
    expect(report.null).toEqual({ patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false });
  });

  it('a planted pytest.py is dropped before the tests: the wrong fix beside it grades by its real tests', async () => {
    // had the shadow run, its output would have graded both ids passed
    expect(parsePytestLog(FAKE_SUMMARY.join('\n'))).toEqual([{ name: F2P, status: 'passed' }, { name: P2P, status: 'passed' }]);
    expect(report.shadow).toEqual(ran(false, split([], [F2P]), split([P2P])));
    const log = await readFile(join(dir, 'logs', 'shadow.log'), 'utf8');
    expect(log).toContain('dropped before the tests: pytest.py');
    expect(log).toContain(`FAILED ${F2P}`);
  });

  it("SWE-bench's rules: a skipped PASS_TO_PASS test is a success; an xpass FAIL_TO_PASS test is a success in frognano (SWE-bench's deviation: it counts XPASS as a failure)", () => {
    expect(report.rules).toEqual(ran(true, split(['tests/test_rules.py::test_median_xpass']), split(['tests/test_rules.py::test_skipped', 'tests/test_rules.py::test_kept'])));
  });

  it('--logs writes one <instance_id>.log per evaluated instance, with the grading output', async () => {
    expect((await readdir(join(dir, 'logs'))).sort()).toEqual([...IDS, 'rules'].map((id) => `${id}.log`).sort());
    const good = await readFile(join(dir, 'logs', 'good.log'), 'utf8');
    expect(good).toContain('resolved: true');
    expect(good).toContain(`PASSED ${F2P}`);
    expect(await readFile(join(dir, 'logs', 'empty.log'), 'utf8')).toBe('empty: empty patch\n');
  });

  it('JSONL and SWE-bench\'s dict form give the same report (stdout without --out)', async () => {
    const ids = ['good', 'empty'];
    const jsonl = join(dir, 'preds.jsonl');
    await writeFile(jsonl, predictions(ids).map((p) => JSON.stringify(p)).join('\n') + '\n');
    const dict = join(dir, 'preds-dict.json');
    await writeFile(dict, JSON.stringify(Object.fromEntries(predictions(ids).map((p) => [p.instance_id, p]))));
    const expected = { good: report.good, empty: report.empty };
    for (const preds of [jsonl, dict]) {
      const r = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', preds], '', 60_000);
      expect([r.code, JSON.parse(r.stdout)]).toEqual([0, expected]);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('frognano evaluate: 1 of 2 resolved');
    }
  }, 120_000);
});

describe('frognano evaluate: malformed files and bad usage', () => {
  it('a malformed predictions file exits 1 naming the file, the record and the field', async () => {
    const { dir, tasks } = await writeTasks();
    const preds = join(dir, 'bad.json');
    await writeFile(preds, JSON.stringify([{ instance_id: 'good', model_patch: FIX }, { instance_id: 'wrong', model_patch: 3 }]));
    const r = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', preds, '--unsafe-no-sandbox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${preds.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} record 2: model_patch`));
    const jsonl = join(dir, 'bad.jsonl');
    await writeFile(jsonl, `${JSON.stringify({ instance_id: 'good', model_patch: FIX })}\n{"instance_id": "wrong",\n`);
    const l = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', jsonl, '--unsafe-no-sandbox']);
    expect(l.code).toBe(1);
    expect(l.stderr).toContain(`${jsonl} line 2: not JSON`);
    const dup = join(dir, 'dup.jsonl');
    await writeFile(dup, `${JSON.stringify({ instance_id: 'good', model_patch: FIX })}\n${JSON.stringify({ instance_id: 'good', model_patch: '' })}\n`);
    const d = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', dup, '--unsafe-no-sandbox']);
    expect(d.code).toBe(1);
    expect(d.stderr).toContain(`${dup} line 2: instance_id: duplicate "good" (line 1 has it too)`);
  }, 60_000);

  it('bad usage exits 2: a missing --predictions, a file that is not there, a bad --concurrency', async () => {
    const { dir, tasks } = await writeTasks();
    const none = await runFrognano(['evaluate', '--tasks', tasks]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('--predictions FILE is required')]);
    const missing = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', join(dir, 'nope.json')]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining(`cannot read --predictions ${join(dir, 'nope.json')}: not a file`)]);
    const conc = await runFrognano(['evaluate', '--tasks', tasks, '--predictions', tasks, '--concurrency', '0']);
    expect([conc.code, conc.stderr]).toEqual([2, expect.stringContaining('--concurrency must be an integer >= 1, got 0')]);
  }, 60_000);
});

describe('logFileName', () => {
  it('keeps SWE-bench ids and replaces path characters', () => {
    expect([logFileName('astropy__astropy-12907'), logFileName('a/../b'), logFileName('..')]).toEqual(['astropy__astropy-12907.log', 'a_.._b.log', '_.log']);
  });
});
