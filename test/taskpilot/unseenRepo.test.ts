/**
 * Issue 23's "done when" on a repository nobody here wrote (pytest-dev/iniconfig,
 * test/fixtures/taskpilot/): `frognano taskpilot --source mutation` with a scripted policy
 * writes tasks that `frognano validate-tasks` accepts, each with p-hat inside the band; the
 * candidates start too hard (a statement naming only what fails: the scripted policy never
 * solves it) and are accepted after one refinement toward the specific end of their ladder
 * (file and function named: it solves half of them), as the outputs and the report show.
 *
 * The scripted policy knows each candidate's gold patch because the mutation source is
 * deterministic: the same seed on the same snapshot gives the same candidates, so the test
 * makes them once before the CLI run and hands their ladders and patches to the policy.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/leaf/sandbox.js';
import { mutationCandidates } from '../../src/taskpilot/mutation/index.js';
import type { PilotCandidate } from '../../src/taskpilot/candidate.js';
import { startScriptedPolicy } from '../../examples/taskpilot/scriptedPolicy.js';
import { runInProcess } from '../cli/helpers.js';
import { scratchDir } from '../helpers/leafTask.js';
import { hasBwrap, hasPytest } from '../helpers/system.js';

const FIXTURE = join(__dirname, '../fixtures/taskpilot/iniconfig-7190125.tar.gz');
const TESTS = 'PYTHONPATH=src python3 -m pytest -rA -q -p no:cacheprovider testing';
const SEED = 7;
const COUNT = 3;

describe.runIf(hasBwrap() && hasPytest())('frognano taskpilot on pytest-dev/iniconfig (mutation, scripted policy)', () => {
  let work: string;
  let repo: string;
  let pre: PilotCandidate[];
  let policy: Awaited<ReturnType<typeof startScriptedPolicy>>;
  const saved = { ...process.env };
  beforeAll(async () => {
    work = await scratchDir('frognano-pilot-unseen-');
    repo = join(work, 'iniconfig');
    mkdirSync(repo);
    execFileSync('tar', ['-xzf', FIXTURE, '-C', repo, '--strip-components=1']);
    pre = (await mutationCandidates({ repoDir: repo, tests: { command: TESTS, log: 'pytest' }, sandbox: createSandbox(), seed: SEED, count: COUNT, workDir: join(work, 'pre') })).candidates;
    policy = await startScriptedPolicy({ fixes: pre.map((c) => ({ goldPatch: c.goldPatch, statements: c.meta!.statementLevels as string[] })) });
    process.env.FROGNANO_LLM_BASE_URL = policy.baseUrl;
    process.env.FROGNANO_LLM_MODEL = policy.model;
    delete process.env.FROGNANO_GENERATOR_BASE_URL;
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await policy?.close();
  });

  it('accepts refined candidates with p-hat in the band; validate-tasks accepts every written task', async () => {
    expect(pre).toHaveLength(COUNT);
    const out = join(work, 'pilot.jsonl');
    const r = await runInProcess(['taskpilot', '--repo', repo, '--tests', TESTS, '--log', 'pytest', '--source', 'mutation', '--candidates', String(COUNT), '--rollouts', '4', '--band', '(0,1)', '--rounds', '2', '--concurrency', '2', '--seed', String(SEED), '--out', out]);
    expect(r.stderr).toContain('accepted');
    const tasks = readFileSync(out, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; pilot: { pHat: number; round: number; source: string; parent?: string; rollouts: number } });
    const discarded = readFileSync(`${out}.discarded.jsonl`, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { reason: string; pHatHistory: number[] });
    expect(tasks.length + discarded.length).toBe(COUNT);
    expect(tasks.length).toBeGreaterThan(0);
    for (const t of tasks) {
      expect(t.pilot.source).toBe('mutation');
      expect(t.pilot.rollouts).toBe(4);
      expect(t.pilot.pHat).toBeGreaterThan(0);
      expect(t.pilot.pHat).toBeLessThan(1);
      // the first statement (what fails, with the messages) is never solved: each accepted task was refined
      expect(t.pilot.round).toBeGreaterThanOrEqual(1);
      expect(t.id.startsWith(t.pilot.parent!)).toBe(true);
    }
    for (const d of discarded) expect(d.reason).toBe('out-of-band');
    const v = await runInProcess(['validate-tasks', '--tasks', out]);
    expect(v.code).toBe(0);
    const lines = v.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; valid: boolean; reason?: string });
    expect(lines.map((l) => [l.id, l.valid, l.reason])).toEqual(tasks.map((t) => [t.id, true, undefined]));
    const report = readFileSync(join(work, 'pilot.report.html'), 'utf8');
    // the p-hat histogram of each round: round 0 (every candidate too hard) and round 1 (after refinement)
    expect(report).toContain('<h3>Round 0 ');
    expect(report).toContain('<h3>Round 1 ');
  }, 300_000);
});
