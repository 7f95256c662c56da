/**
 * End to end through the real sandbox (SPEC §15 `mutation`): candidates on real public
 * code (pytest-dev/iniconfig at 7190125, test/fixtures/taskpilot/) checked by `validateLeafTask`, and a
 * JavaScript case (node's test runner, TAP log) on the bundled js-merge-intervals task
 * with its solution applied.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { validateLeafTask } from '../../src/leaf/validateLeafTasks.js';
import { applyUnifiedDiff } from '../../src/leaf/applyUnifiedDiff.js';
import type { PilotCandidate } from '../../src/taskpilot/candidate.js';
import { MUTATION_KINDS, mutationCandidates } from '../../src/taskpilot/mutation/index.js';
import { scratchDir } from '../helpers/leafTask.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';

const INICONFIG = join(__dirname, '../fixtures/taskpilot/iniconfig-7190125.tar.gz');
const PY_TESTS = 'PYTHONPATH=src python3 -m pytest -rA -q -p no:cacheprovider testing';
const hasFixture = existsSync(INICONFIG);
const bwrap = hasBwrap();

/** Writes the candidates as a tasks.jsonl next to their repos, loads it, validates every task. */
async function validateAll(workDir: string, candidates: PilotCandidate[], sandbox: Sandbox): Promise<{ id: string; valid: boolean; reason?: string }[]> {
  const lines = candidates.map((c) =>
    JSON.stringify({ id: c.id, statement: c.statement, repo: relative(workDir, c.repoDir), tests: { command: c.tests.command, log: c.tests.log, files: c.tests.files, failToPass: c.tests.failToPass, passToPass: c.tests.passToPass }, referencePatch: c.goldPatch }),
  );
  await writeFile(join(workDir, 'tasks.jsonl'), `${lines.join('\n')}\n`);
  const out = [];
  for (const t of await loadLeafTasks(join(workDir, 'tasks.jsonl'))) {
    const v = await validateLeafTask(t, { sandbox, timeoutSeconds: 60 });
    out.push({ id: v.id, valid: v.valid, ...(v.reason !== undefined ? { reason: v.reason } : {}) });
  }
  return out;
}

describe.runIf(bwrap && hasPytest() && hasFixture)('mutation on pytest-dev/iniconfig (real sandbox)', () => {
  let snapshot: string;
  let sandbox: Sandbox;
  beforeAll(async () => {
    snapshot = join(await scratchDir('frognano-mut-ini-'), 'snapshot');
    await mkdir(snapshot);
    execFileSync('tar', ['-xzf', INICONFIG, '-C', snapshot, '--strip-components=1']);
    sandbox = createSandbox();
  });

  it('makes 3 valid candidates: bug in, F2P test files hidden, gold patch = the reverse', async () => {
    const workDir = await scratchDir('frognano-mut-out-');
    const { candidates, rejected } = await mutationCandidates({ repoDir: snapshot, tests: { command: PY_TESTS }, sandbox, seed: 7, count: 3, workDir, timeoutSeconds: 60 });
    expect(candidates).toHaveLength(3);
    for (const c of candidates) {
      expect(c).toMatchObject({ source: 'mutation', category: 'bug-fix', tests: { log: 'pytest' }, meta: { level: 1 } });
      expect(c.id).toMatch(/^mutation-[0-9a-f]{12}$/);
      expect(c.tests.failToPass!.length).toBeGreaterThan(0);
      for (const f of Object.keys(c.tests.files)) expect(existsSync(join(c.repoDir, f))).toBe(false);
      const levels = (c.meta as { statementLevels: string[] }).statementLevels;
      expect(levels).toHaveLength(3);
      expect(c.statement).toBe(levels[1]);
    }
    for (const r of rejected) expect(['tests-already-pass', 'does-not-parse', 'no-test-results', 'test-file-not-found', 'duplicate']).toContain(r.reason);
    expect(await validateAll(workDir, candidates, sandbox)).toEqual(candidates.map((c) => ({ id: c.id, valid: true })));
  }, 60_000);

  it('every mutation kind on iniconfig gives a valid task, or no candidate with each tried site\'s reason recorded', async () => {
    const outcome: Record<string, string> = {};
    for (const kind of MUTATION_KINDS) {
      const workDir = await scratchDir(`frognano-mut-kind-${kind}-`);
      let r: Awaited<ReturnType<typeof mutationCandidates>>;
      try {
        r = await mutationCandidates({ repoDir: snapshot, tests: { command: PY_TESTS }, sandbox, seed: 1, count: 1, workDir, kinds: [kind], maxAttempts: 4, timeoutSeconds: 60 });
      } catch (e) {
        // no site of this kind in the snapshot's tested functions: the source says so (INVALID_STATE)
        outcome[kind] = `no site: ${(e as Error).message.slice(0, 60)}`;
        continue;
      }
      if (r.candidates.length === 1) {
        const [v] = await validateAll(workDir, r.candidates, sandbox);
        outcome[kind] = v!.valid ? 'valid' : `invalid: ${v!.reason}`;
      } else {
        expect(r.rejected.length).toBeGreaterThan(0);
        for (const x of r.rejected) expect(['tests-already-pass', 'does-not-parse', 'no-test-results', 'test-file-not-found', 'duplicate']).toContain(x.reason);
        outcome[kind] = `rejected: ${[...new Set(r.rejected.map((x) => x.reason))].join(', ')}`;
      }
    }
    expect(Object.keys(outcome)).toEqual([...MUTATION_KINDS]);
    for (const o of Object.values(outcome)) expect(o).toMatch(/^(valid|rejected: |no site: )/);
    // most kinds find a caught bug in iniconfig
    expect(Object.values(outcome).filter((o) => o === 'valid').length).toBeGreaterThanOrEqual(4);
  }, 180_000);

  it('the same seed gives the same candidates in the same order', async () => {
    const run = async () => (await mutationCandidates({ repoDir: snapshot, tests: { command: PY_TESTS }, sandbox, seed: 'again', count: 2, workDir: await scratchDir('frognano-mut-det-'), kinds: ['flip-comparison', 'remove-return'] })).candidates.map((c) => [c.id, c.goldPatch, c.tests.failToPass]);
    const a = await run();
    expect(a).toHaveLength(2);
    expect(await run()).toEqual(a);
  }, 60_000);
});

describe.runIf(bwrap)('mutation on a JavaScript repo (node --test, TAP)', () => {
  it('makes valid candidates whose gold patch applies', async () => {
    const task = join(import.meta.dirname, '../../examples/leaf/tasks/js-merge-intervals');
    const snapshot = join(await scratchDir('frognano-mut-js-'), 'snapshot');
    await cp(join(task, 'repo'), snapshot, { recursive: true });
    await cp(join(task, 'solution'), snapshot, { recursive: true });
    await cp(join(task, 'hidden'), snapshot, { recursive: true });
    const workDir = await scratchDir('frognano-mut-jsout-');
    const sandbox = createSandbox();
    const { candidates } = await mutationCandidates({ repoDir: snapshot, tests: { command: 'node --test --test-reporter=tap test/*.test.js', log: 'tap' }, sandbox, seed: 1, count: 2, workDir, timeoutSeconds: 60 });
    expect(candidates).toHaveLength(2);
    for (const c of candidates) {
      const copy = join(await scratchDir('frognano-mut-apply-'), 'r');
      await cp(c.repoDir, copy, { recursive: true });
      expect(await applyUnifiedDiff(copy, c.goldPatch)).toEqual([(c.meta as { file: string }).file]);
    }
    expect(await validateAll(workDir, candidates, sandbox)).toEqual(candidates.map((c) => ({ id: c.id, valid: true })));
  }, 60_000);
});
