/**
 * TaskPilot in a task environment (issue 23 item 3: "each run in the Leaf sandbox and the
 * task's environment"): `frognano taskpilot --image ROOT --workdir /repo` runs the mutation
 * source's suite runs, the validation and the p-hat episodes with the image as the
 * sandbox's root, and writes tasks that carry the environment and validate in it.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/leaf/sandbox.js';
import type { PilotCandidate } from '../../src/taskpilot/candidate.js';
import { mutationCandidates } from '../../src/taskpilot/mutation/index.js';
import { sandboxIn } from '../../src/taskpilot/pilotSources.js';
import { startScriptedPolicy } from '../../examples/taskpilot/scriptedPolicy.js';
import { runInProcess } from '../cli/helpers.js';
import { buildImageRoot, canCopyPython, hasImageTools } from '../helpers/imageRoot.js';
import { scratchDir } from '../helpers/leafTask.js';
import { hasBwrap } from '../helpers/system.js';

const CALC = [
  'def add(a, b):', '    return a + b', '', '',
  'def clamp(x, low, high):', '    if x < low:', '        return low', '    if x > high:', '        return high', '    return x', '',
].join('\n');
const TESTS = [
  'import unittest', 'from calc import add, clamp', '', '',
  'class CalcTest(unittest.TestCase):',
  '    def test_add(self):', '        self.assertEqual(add(2, 3), 5)', '',
  '    def test_clamp(self):', '        self.assertEqual(clamp(5, 0, 3), 3)', '        self.assertEqual(clamp(-1, 0, 3), 0)', '        self.assertEqual(clamp(2, 0, 3), 2)', '',
].join('\n');
const COMMAND = 'python3 -m unittest -v test_calc';
const SEED = 3;

describe.runIf(hasBwrap() && hasImageTools() && canCopyPython())('frognano taskpilot --image (mutation, scripted policy)', () => {
  let work: string;
  let repo: string;
  let root: string;
  let pre: PilotCandidate[];
  let policy: Awaited<ReturnType<typeof startScriptedPolicy>>;
  const saved = { ...process.env };
  beforeAll(async () => {
    work = await scratchDir('frognano-pilot-image-');
    chmodSync(work, 0o755);
    repo = join(work, 'calc');
    mkdirSync(repo);
    writeFileSync(join(repo, 'calc.py'), CALC);
    writeFileSync(join(repo, 'test_calc.py'), TESTS);
    root = buildImageRoot({ parent: work, python: true });
    const sandbox = await sandboxIn(createSandbox(), repo, { image: root, workdir: '/repo' });
    pre = (await mutationCandidates({ repoDir: repo, tests: { command: COMMAND, log: 'unittest' }, sandbox, seed: SEED, count: 2, workDir: join(work, 'pre') })).candidates;
    policy = await startScriptedPolicy({ fixes: pre.map((c) => ({ goldPatch: c.goldPatch, statements: c.meta!.statementLevels as string[] })) });
    process.env.FROGNANO_LLM_BASE_URL = policy.baseUrl;
    process.env.FROGNANO_LLM_MODEL = policy.model;
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await policy?.close();
  });

  it('runs everything in the image; the written tasks carry the environment and validate in it', async () => {
    expect(pre.length).toBe(2);
    const out = join(work, 'pilot.jsonl');
    const r = await runInProcess(['taskpilot', '--repo', repo, '--tests', COMMAND, '--log', 'unittest', '--source', 'mutation', '--image', root, '--workdir', '/repo', '--candidates', '2', '--rollouts', '4', '--rounds', '2', '--seed', String(SEED), '--out', out]);
    expect(r.stderr).toContain('accepted');
    const tasks = readFileSync(out, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; environment?: unknown; pilot: { pHat: number } });
    expect(tasks.length).toBeGreaterThan(0);
    for (const t of tasks) {
      expect(t.environment).toEqual({ image: relative(work, root), workdir: '/repo' });
      expect(t.pilot.pHat).toBeGreaterThan(0);
      expect(t.pilot.pHat).toBeLessThan(1);
    }
    // every estimate's episodes ran in the image (a plain root folder: digest null)
    const records = readFileSync(`${out}.rollouts.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { environment?: unknown });
    expect(records.length).toBeGreaterThan(0);
    for (const rec of records) expect(rec.environment).toEqual({ image: null, workdir: '/repo' });
    const v = await runInProcess(['validate-tasks', '--tasks', out]);
    expect(v.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { valid: boolean }).valid)).toEqual(tasks.map(() => true));
  }, 300_000);
});
