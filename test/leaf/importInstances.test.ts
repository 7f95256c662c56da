/**
 * `frognano tasks import --format swebench` on a real instance (tkem/cachetools, fix
 * 57d2e48: see test/fixtures/swe-instances/README.md): the import, the one-commit repo,
 * validation, a scripted episode applying the gold patch, and the error lines; and
 * `--format swesmith` on a bug built on the same base.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { importInstances } from '../../src/leaf/importInstances.js';
import { rolloutTasks, type RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { djangoTestId, testDirectives } from '../../src/leaf/sweBenchSpecs.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { parseUnittestLog } from '../../src/leaf/testLogs/index.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { runInProcess } from '../cli/helpers.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const FIX = join(__dirname, '../fixtures/swe-instances');
const TEMPLATE = 'PYTHONPATH=src python3 -m pytest -rA -p no:cacheprovider {test_files}';
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });

let work: string;
let instance: Record<string, unknown>;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'frognano-import-test-'));
  execFileSync('mkdir', ['-p', join(work, 'clones')]);
  execFileSync('tar', ['-xzf', join(FIX, 'tkem__cachetools.git.tar.gz'), '-C', join(work, 'clones')]);
  execFileSync('mv', [join(work, 'clones/tkem__cachetools.git'), join(work, 'clones/tkem__cachetools')]);
  instance = JSON.parse(readFileSync(join(FIX, 'cachetools.jsonl'), 'utf8')) as Record<string, unknown>;
});

describe('tasks import (swebench)', () => {
  it('maps a real instance, its repo one commit without remotes, and the task validates and is solved by the gold patch', async () => {
    const file = join(work, 'ok.jsonl');
    writeFileSync(file, `${JSON.stringify(instance)}\n`);
    const out = join(work, 'tasks.jsonl');
    const { code, stderr } = await runInProcess(['tasks', 'import', '--format', 'swebench', '--instances', file, '--repos', join(work, 'clones'), '--out', out, '--test-command', TEMPLATE]);
    expect(stderr).toContain('1 of 1 imported');
    expect(code).toBe(0);
    expect(readFileSync(`${file}.errors.jsonl`, 'utf8')).toBe('');
    const task = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, any>;
    expect(task).toMatchObject({ id: 'tkem__cachetools-387', repo: 'ok-repos/tkem__cachetools-387', statement: instance.problem_statement, referencePatch: instance.patch });
    expect(task.tests).toEqual({
      command: 'PYTHONPATH=src python3 -m pytest -rA -p no:cacheprovider tests/test_cachedmethod.py', log: 'pytest', patch: instance.test_patch,
      failToPass: JSON.parse(instance.FAIL_TO_PASS as string), passToPass: JSON.parse(instance.PASS_TO_PASS as string),
    });
    const repo = join(work, 'ok-repos/tkem__cachetools-387');
    expect(git(repo, 'log', '--all', '--format=%H').trim().split('\n')).toHaveLength(1);
    expect(git(repo, 'remote').trim()).toBe('');
    expect(git(repo, 'status', '--porcelain').trim()).toBe('');
    // the tree is base_commit's tree
    expect(git(repo, 'rev-parse', 'HEAD^{tree}').trim()).toBe(git(join(work, 'clones/tkem__cachetools'), 'rev-parse', '8011b71949e8d8d81a71359cca9477d67a2c9c0b^{tree}').trim());
    // deterministic: a second import gives the same commit
    const first = git(repo, 'rev-parse', 'HEAD').trim();
    await runInProcess(['tasks', 'import', '--format', 'swebench', '--instances', file, '--repos', join(work, 'clones'), '--out', out, '--test-command', TEMPLATE]);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(first);
    if (!hasBwrap() || !hasPytest()) return;
    const sandbox = createSandbox({});
    const [loaded] = await loadLeafTasks(out);
    const v = await validateLeafTask(loaded!, { sandbox });
    expect({ id: v.id, valid: v.valid, reason: v.reason }).toEqual({ id: 'tkem__cachetools-387', valid: true, reason: undefined });
    const model = toolModel([calls(['bash', { command: `git apply <<'FROGNANO_EOF'\n${instance.patch as string}FROGNANO_EOF` }]), final()]);
    const records: RolloutRecord[] = [];
    await rolloutTasks([loaded!], { model, sandbox, onRecords: (r) => void records.push(...r) });
    expect(records[0]!.outcome!.success).toBe(true);
    expect(records[0]!.reward).toBe(1);
    expect(records[0]!.tests!.find((t) => t.name.endsWith('test_autospec_no_warnings'))?.passed).toBe(true);
  }, 120_000);

  it('an instance without a clone, with a missing base_commit or a test_patch that does not apply is an error line; the others are written; exit 1', async () => {
    const bad = [
      { ...instance, instance_id: 'no-clone', repo: 'nobody/nothing' },
      { ...instance, instance_id: 'no-base', base_commit: '0123456789abcdef0123456789abcdef01234567' },
      { ...instance, instance_id: 'no-apply', test_patch: (instance.test_patch as string).replace('import unittest\n+import unittest.mock', 'import nothing\n+import unittest.mock') },
      instance,
    ];
    const file = join(work, 'mixed.json');
    writeFileSync(file, JSON.stringify(bad));
    const out = join(work, 'mixed-tasks.jsonl');
    const { code } = await runInProcess(['tasks', 'import', '--format', 'swebench', '--instances', file, '--repos', join(work, 'clones'), '--out', out, '--test-command', TEMPLATE, '--repos-out', join(work, 'r2')]);
    expect(code).toBe(1);
    const errors = readFileSync(`${file}.errors.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { instance_id: string; error: string });
    expect(errors.map((e) => e.instance_id)).toEqual(['no-clone', 'no-base', 'no-apply']);
    expect(errors[0]!.error).toMatch(/no clone of nobody\/nothing/);
    expect(errors[1]!.error).toMatch(/base_commit 0123456789abcdef0123456789abcdef01234567 is not in the clone/);
    expect(errors[2]!.error).toMatch(/test_patch does not apply/);
    expect(readFileSync(out, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['tkem__cachetools-387']);
  }, 60_000);
});

describe('tasks import (swesmith)', () => {
  it('applies the bug to the one-commit repo, hides the fail-to-pass test file in tests.files, and the reverse patch restores base_commit; the task validates', async () => {
    // A SWE-smith-style instance built on the same base: FIFOCache.popitem evicts the newest key (see cachetools-swesmith.md).
    const smith = JSON.parse(readFileSync(join(FIX, 'cachetools-swesmith.jsonl'), 'utf8')) as Record<string, unknown>;
    const file = join(work, 'smith.jsonl');
    writeFileSync(file, `${JSON.stringify(smith)}\n`);
    const out = join(work, 'smith-tasks.jsonl');
    const { code, stderr } = await runInProcess(['tasks', 'import', '--format', 'swesmith', '--instances', file, '--repos', join(work, 'clones'), '--out', out, '--test-command', TEMPLATE]);
    expect(stderr).toContain('1 of 1 imported');
    expect(code).toBe(0);
    const id = smith.instance_id as string;
    const task = JSON.parse(readFileSync(out, 'utf8').trim()) as Record<string, any>;
    const clone = join(work, 'clones/tkem__cachetools');
    const base = smith.base_commit as string;
    const fifoTests = git(clone, 'show', `${base}:tests/test_fifo.py`);
    expect(task).toMatchObject({ id, repo: `smith-repos/${id}`, statement: smith.problem_statement });
    expect(task.tests).toEqual({
      command: 'PYTHONPATH=src python3 -m pytest -rA -p no:cacheprovider tests/test_fifo.py', log: 'pytest',
      files: { 'tests/test_fifo.py': fifoTests },
      failToPass: JSON.parse(smith.FAIL_TO_PASS as string), passToPass: JSON.parse(smith.PASS_TO_PASS as string),
    });
    const repo = join(work, `smith-repos/${id}`);
    expect(git(repo, 'log', '--all', '--format=%H').trim().split('\n')).toHaveLength(1);
    expect(git(repo, 'remote').trim()).toBe('');
    expect(git(repo, 'status', '--porcelain').trim()).toBe('');
    const files = git(repo, 'ls-files').trim().split('\n');
    expect(files).not.toContain('tests/test_fifo.py');
    expect(files).toContain('tests/test_lru.py');
    expect(readFileSync(join(repo, 'src/cachetools/__init__.py'), 'utf8')).toContain('key = next(reversed(self.__order))');
    // the reference patch is the bug's reverse: applied (with the hidden file back) it gives base_commit's tree
    expect(task.referencePatch).not.toBe(smith.patch);
    const check = mkdtempSync(join(tmpdir(), 'frognano-smith-check-'));
    git(work, 'clone', '-q', repo, check);
    execFileSync('git', ['apply', '-'], { cwd: check, input: task.referencePatch as string });
    writeFileSync(join(check, 'tests/test_fifo.py'), fifoTests);
    git(check, 'add', '-A');
    expect(git(check, 'write-tree').trim()).toBe(git(clone, 'rev-parse', `${base}^{tree}`).trim());
    if (!hasBwrap() || !hasPytest()) return;
    const [loaded] = await loadLeafTasks(out);
    const v = await validateLeafTask(loaded!, { sandbox: createSandbox({}) });
    expect({ id: v.id, valid: v.valid, reason: v.reason }).toEqual({ id, valid: true, reason: undefined });
  }, 120_000);

  it('a bug that does not apply, or a FAIL_TO_PASS id without a file, is an error line', async () => {
    const smith = JSON.parse(readFileSync(join(FIX, 'cachetools-swesmith.jsonl'), 'utf8')) as Record<string, unknown>;
    const bad = [
      { ...smith, instance_id: 'no-apply', patch: (smith.patch as string).replace('key = next(iter(self.__order))', 'key = nothing') },
      { ...smith, instance_id: 'no-file', FAIL_TO_PASS: ['test_fifo'] },
    ];
    const file = join(work, 'smith-bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const { code } = await runInProcess(['tasks', 'import', '--format', 'swesmith', '--instances', file, '--repos', join(work, 'clones'), '--out', join(work, 'smith-bad.jsonl'), '--test-command', TEMPLATE]);
    expect(code).toBe(1);
    const errors = readFileSync(`${file}.errors.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { instance_id: string; error: string });
    expect(errors.map((e) => e.instance_id)).toEqual(['no-apply', 'no-file']);
    expect(errors[0]!.error).toMatch(/patch \(the bug\) does not apply/);
    expect(errors[1]!.error).toMatch(/names no test file/);
  }, 60_000);
});

describe('SWE-bench specs', () => {
  it('django directives and ids as SWE-bench writes them become module names and unittest ids that parseUnittestLog reads', () => {
    expect(testDirectives('django/django', 'diff --git a/tests/migrations/test_commands.py b/tests/migrations/test_commands.py\n')).toEqual(['migrations.test_commands']);
    expect(djangoTestId('test_makemigrations_empty (migrations.test_commands.MakeMigrationsTests)')).toBe('migrations.test_commands.MakeMigrationsTests.test_makemigrations_empty');
    const log = [
      'Testing against Django installed in \'/testbed/django\'',
      'test_makemigrations_empty (migrations.test_commands.MakeMigrationsTests) ... ok',
      'test_squash (migrations.test_commands.SquashMigrationsTests.test_squash) ... FAIL',
      'test_skip (migrations.test_commands.MakeMigrationsTests) ... skipped \'no sqlite\'',
      '',
      '======================================================================',
      'FAIL: test_squash (migrations.test_commands.SquashMigrationsTests.test_squash)',
    ].join('\n');
    expect(parseUnittestLog(log)).toEqual(expect.arrayContaining([
      { name: 'migrations.test_commands.MakeMigrationsTests.test_makemigrations_empty', status: 'passed' },
      { name: 'migrations.test_commands.SquashMigrationsTests.test_squash', status: 'failed' },
      { name: 'migrations.test_commands.MakeMigrationsTests.test_skip', status: 'skipped' },
    ]));
  });
});
