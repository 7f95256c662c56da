/**
 * `frognano tasks import --images DIR` (SPEC §14): a SWE-bench-format instance whose image
 * (`sweb.eval.x86_64.<id with __ as _1776_>.tar`, a `docker save` archive built here from
 * files of this machine: busybox, bash and the host's python3 in a SWE-bench-shaped root
 * with `/testbed` and the conda env `testbed`) is found in DIR: the task's environment is
 * the image, its repo the image's `/testbed` as one commit (the image's `.git`, which holds
 * the fix on a later commit, is gone), and the task validates and rolls out in the image.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { importInstances } from '../../src/leaf/importInstances.js';
import { instanceImageNames, SWE_BENCH_PATH } from '../../src/leaf/instanceImage.js';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { runInProcess } from '../cli/helpers.js';
import { buildImageRoot, canCopyPython, hasImageTools } from '../helpers/imageRoot.js';
import { hasBwrap } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';
import { configOf, dockerSaveLegacy } from './image/imageBuilders.js';

const CALC = 'def add(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n';
const TESTS = 'import unittest\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n';
const TEST_PATCH = [
  'diff --git a/tests/test_calc.py b/tests/test_calc.py', '--- a/tests/test_calc.py', '+++ b/tests/test_calc.py', '@@ -6,2 +6,5 @@ class CalcTest(unittest.TestCase):',
  '     def test_zero(self):', '         self.assertEqual(add(0, 0), 0)', '+', '+    def test_add(self):', '+        self.assertEqual(add(2, 3), 5)', '',
].join('\n');
const FIX = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@a', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@a' };
const git = (cwd: string, ...a: string[]): string => execFileSync('git', a, { cwd, encoding: 'utf8', env: gitEnv });

const ready = hasBwrap() && hasImageTools() && canCopyPython();
let work: string;
let base: string;
let fixCommit: string;
const instance = (): Record<string, unknown> => ({
  instance_id: 'demo__calc-1', repo: 'demo/calc', base_commit: base, patch: FIX, test_patch: TEST_PATCH,
  problem_statement: 'add() subtracts', FAIL_TO_PASS: ['tests.test_calc.CalcTest.test_add'], PASS_TO_PASS: ['tests.test_calc.CalcTest.test_zero'],
});

beforeAll(async () => {
  if (!ready) return;
  work = mkdtempSync(join(tmpdir(), 'frognano-import-images-'));
  // the sandbox user (nobody, when root starts it) must reach the image cache and the repos below
  chmodSync(work, 0o755);
  process.env.FROGNANO_IMAGE_CACHE = join(work, 'cache');
  const root = buildImageRoot({ parent: work, python: true, files: { 'testbed/calc.py': CALC, 'testbed/tests/__init__.py': '', 'testbed/tests/test_calc.py': TESTS, 'testbed/build/marker.txt': 'built in place, untracked\n' } });
  // SWE-bench's conda env: its bin first on PATH is what `conda activate testbed` would do
  mkdirSync(join(root, 'opt/miniconda3/envs/testbed/bin'), { recursive: true });
  symlinkSync('/usr/bin/python3', join(root, 'opt/miniconda3/envs/testbed/bin/python3'));
  // /testbed is a clone at base whose object store also holds the fix (as the upstream's refs do in SWE-bench images)
  const tb = join(root, 'testbed');
  writeFileSync(join(tb, '.gitignore'), 'build/\n');
  git(tb, 'init', '-q', '.');
  git(tb, 'add', 'calc.py', 'tests', '.gitignore');
  git(tb, 'commit', '-q', '-m', 'base');
  base = git(tb, 'rev-parse', 'HEAD').trim();
  git(tb, 'checkout', '-q', '-b', 'future');
  writeFileSync(join(tb, 'calc.py'), FIXED);
  git(tb, 'commit', '-q', '-am', 'the fix');
  fixCommit = git(tb, 'rev-parse', 'HEAD').trim();
  git(tb, 'checkout', '-q', base);
  const layer = execFileSync('tar', ['-C', root, '--numeric-owner', '-cf', '-', '.'], { maxBuffer: 1 << 30 });
  const config = configOf([layer], { Env: ['PATH=/opt/miniconda3/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'LANG=C.UTF-8'], WorkingDir: '/testbed' });
  mkdirSync(join(work, 'images'));
  writeFileSync(join(work, 'images', 'sweb.eval.x86_64.demo_1776_calc-1.tar'), await dockerSaveLegacy([layer], config));
  writeFileSync(join(work, 'instances.json'), JSON.stringify([instance()]));
}, 120_000);

describe('instance image names', () => {
  it('image_name as written, its last part, without a tag; then SWE-bench\'s name with __ as _1776_ and with __, lowercased', () => {
    expect(instanceImageNames({ instance_id: 'Django__django-11099', image_name: 'swebench/sweb.eval.x86_64.django_1776_django-11099:latest' })).toEqual([
      'sweb.eval.x86_64.django_1776_django-11099:latest', 'sweb.eval.x86_64.django_1776_django-11099', 'sweb.eval.x86_64.django__django-11099',
    ]);
    expect(instanceImageNames({ instance_id: 'a__b-1' })).toEqual(['sweb.eval.x86_64.a_1776_b-1', 'sweb.eval.x86_64.a__b-1']);
  });
});

describe.skipIf(!ready)('tasks import --images', () => {
  it('the found image is the environment, its /testbed the one-commit repo; it validates and a scripted fix succeeds in the image', async () => {
    const out = join(work, 'tasks.jsonl');
    const cache = join(work, 'cache');
    const { code, stderr } = await runInProcess(['tasks', 'import', '--format', 'swebench', '--instances', join(work, 'instances.json'), '--images', join(work, 'images'), '--image-cache', cache, '--out', out, '--test-command', 'python3 -m unittest -v {tests}', '--log', 'unittest']);
    expect(stderr).toContain('1 of 1 imported');
    expect(code).toBe(0);
    const task = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, any>;
    expect(task.environment).toEqual({
      image: 'images/sweb.eval.x86_64.demo_1776_calc-1.tar', workdir: '/testbed',
      env: { PATH: SWE_BENCH_PATH, CONDA_PREFIX: '/opt/miniconda3/envs/testbed', CONDA_DEFAULT_ENV: 'testbed' },
    });
    const repo = join(work, task.repo as string);
    expect(git(repo, 'log', '--all', '--format=%s').trim()).toBe(`demo/calc at ${base} (demo__calc-1)`);
    expect(readFileSync(join(repo, 'calc.py'), 'utf8')).toBe(CALC);
    // built-in-place files the image's git ignores are kept: the repo is /testbed as the image built it
    expect(existsSync(join(repo, 'build/marker.txt'))).toBe(true);
    // the image's later commit (the fix) cannot be mined from the task's repo
    expect(() => execFileSync('git', ['cat-file', '-e', `${fixCommit}^{commit}`], { cwd: repo, stdio: 'ignore' })).toThrow();

    const sandbox = createSandbox({});
    const [loaded] = await loadLeafTasks(out);
    const v = await validateLeafTask(loaded!, { sandbox });
    expect({ id: v.id, valid: v.valid, reason: v.reason }).toEqual({ id: 'demo__calc-1', valid: true, reason: undefined });
    const model = toolModel([calls(['bash', { command: 'command -v python3; test -e /usr/bin/node && echo host-node; cat /etc/image-release' }]), calls(['write', { file_path: 'calc.py', content: FIXED }]), final()]);
    const records: RolloutRecord[] = [];
    await rolloutTasks([loaded!], { model, sandbox, onRecords: (r) => void records.push(...r) });
    const r = records[0]! as RolloutRecord & { environment?: { image: string | null } };
    expect(r.outcome!.success).toBe(true);
    expect(r.environment?.image).toMatch(/^sha256:[0-9a-f]{64}$/);
    // the first call's output: the conda env's python first on PATH, the image's /etc, no host /usr/bin/node
    expect(r.messages.find((m) => m.role === 'tool')?.content).toBe('/opt/miniconda3/envs/testbed/bin/python3\nfrognano-test-image 1\n[exit code: 0]');
    expect(r.messages[0]!.content).toContain('at /testbed.');
  }, 240_000);

  it('without the image in --images the instance needs a clone: no --repos is an error line naming both', async () => {
    const file = join(work, 'other.json');
    writeFileSync(file, JSON.stringify([{ ...instance(), instance_id: 'demo__calc-2' }]));
    const res = await importInstances({ format: 'swebench', instances: file, images: join(work, 'images'), imageCache: join(work, 'cache'), out: join(work, 'other.jsonl'), testCommand: 'python3 -m unittest -v {tests}', log: 'unittest' });
    expect(res.errors).toEqual([{ instance_id: 'demo__calc-2', error: 'no image of this instance in --images, and no --repos to find a clone of demo/calc in' }]);
  });
});
