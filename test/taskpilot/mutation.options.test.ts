/**
 * `mutationCandidates` without bubblewrap: a stub sandbox that "runs" the tests by reading
 * the workspace copy, so the pipeline (baseline, sites, F2P, hidden files, gold patch, id,
 * rejections, option errors) is checked everywhere.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyUnifiedDiff } from '../../src/leaf/applyUnifiedDiff.js';
import type { Sandbox } from '../../src/leaf/sandbox.js';
import { mutationCandidateId, mutationCandidates } from '../../src/taskpilot/mutation/index.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';

const SOURCE = 'def add(a, b):\n    return a + b\n\n\ndef is_small(n):\n    return n < 10\n';
const TESTS = 'from m import add, is_small\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_small():\n    assert is_small(3)\n';

/** A sandbox whose "pytest" passes a test iff its function's original text is intact in src/m.py. */
function stubSandbox(alwaysPass = false): Sandbox {
  const run: Sandbox['run'] = async (repo) => {
    const src = await readFile(join(repo, 'src/m.py'), 'utf8');
    const add = alwaysPass || src.includes('return a + b');
    const small = alwaysPass || src.includes('return n < 10');
    const line = (ok: boolean, id: string) => (ok ? `PASSED ${id}` : `FAILED ${id} - AssertionError: assert False`);
    const output = `=== short test summary info ===\n${line(add, 'tests/test_m.py::test_add')}\n${line(small, 'tests/test_m.py::test_small')}\n`;
    return { exitCode: add && small ? 0 : 1, output, outputBytes: output.length, outputTruncated: false, timedOut: false, aborted: false, outputLimitKilled: false, durationMs: 1 };
  };
  return { kind: 'none', owner: null, run } as unknown as Sandbox;
}

async function snapshot(): Promise<string> {
  const dir = join(await scratchDir('frognano-mut-stub-'), 'snap');
  await writeTree(dir, { 'src/m.py': SOURCE, 'tests/test_m.py': TESTS, 'README.md': 'x\n' });
  return dir;
}

describe('mutationCandidates (stub sandbox)', () => {
  it('builds the candidate as the contract says', async () => {
    const repoDir = await snapshot();
    const workDir = await scratchDir('frognano-mut-w-');
    const { candidates, rejected } = await mutationCandidates({ repoDir, tests: { command: 'pytest -rA' }, sandbox: stubSandbox(), seed: 3, count: 2, workDir, kinds: ['flip-comparison', 'remove-return'] });
    expect(candidates).toHaveLength(2);
    expect(rejected).toEqual([]);
    for (const c of candidates) {
      expect(c.id).toBe(mutationCandidateId(c.goldPatch, c.tests.files));
      expect(c.repoDir).toBe(join(workDir, c.id));
      expect(c.tests.files).toEqual({ 'tests/test_m.py': TESTS });
      expect(existsSync(join(c.repoDir, 'tests/test_m.py'))).toBe(false);
      expect(c.tests.failToPass!.length + c.tests.passToPass!.length).toBe(2);
      const copy = join(await scratchDir('frognano-mut-a-'), 'r');
      await cp(c.repoDir, copy, { recursive: true });
      await applyUnifiedDiff(copy, c.goldPatch);
      expect(await readFile(join(copy, 'src/m.py'), 'utf8')).toBe(SOURCE);
      expect(c.statement).not.toContain('return');
    }
  });

  it('a bug no test catches is rejected as tests-already-pass', async () => {
    const repoDir = await snapshot();
    let calls = 0;
    const base = stubSandbox();
    const sandbox = { ...base, run: async (...a: Parameters<Sandbox['run']>) => (calls++ === 0 ? base.run(...a) : stubSandbox(true).run(...a)) } as Sandbox;
    const r = await mutationCandidates({ repoDir, tests: { command: 'pytest' }, sandbox, seed: 1, count: 1, workDir: await scratchDir('frognano-mut-w-'), maxAttempts: 3 });
    expect(r.candidates).toEqual([]);
    expect(r.rejected.map((x) => x.reason)).toEqual(['tests-already-pass', 'tests-already-pass', 'tests-already-pass']);
  });

  it('option and state errors', async () => {
    const repoDir = await snapshot();
    await expectFrognanoErrorAsync(() => mutationCandidates({ repoDir, tests: { command: 'x', log: 'junit-xml' as 'tap' }, sandbox: stubSandbox(), seed: 1, count: 1, workDir: '/tmp/x' }), 'INVALID_TYPE', 'log');
    await expectFrognanoErrorAsync(() => mutationCandidates({ repoDir, tests: { command: 'x' }, sandbox: stubSandbox(), seed: 1, count: 0, workDir: '/tmp/x' }), 'OUT_OF_RANGE', 'count');
    const failing = { ...stubSandbox(), run: async () => ({ exitCode: 2, output: 'ERROR collecting\n', outputBytes: 0, outputTruncated: false, timedOut: false, aborted: false, outputLimitKilled: false, durationMs: 1 }) } as Sandbox;
    await expectFrognanoErrorAsync(() => mutationCandidates({ repoDir, tests: { command: 'x' }, sandbox: failing, seed: 1, count: 1, workDir: '/tmp/x' }), 'INVALID_STATE', 'no test passes');
  });
});
