/**
 * Benchmark of TaskPilot on repositories (issue 23, docs/taskpilot.md), in one run:
 *
 * 1. Candidates per minute through validation: `mutation` on pytest-dev/iniconfig
 *    (test/fixtures/taskpilot/, 4 candidates: the snapshot's suite once, one suite run per
 *    tried site, then `validateCandidate`), and the scripted generator on the bundled
 *    Python repo (examples/taskpilot/, 4 proposals, then `validateCandidate`).
 * 2. The whole loop (`runRepoTaskPilot`) on the bundled Python set with the scripted
 *    generator and policy, N = 8 rollouts, concurrency 4, band (0, 1), 3 rounds: rollouts
 *    and wall time per accepted task.
 *
 * Run: `npm run bench:taskpilot` (about 2 minutes on 2 cores). Needs bubblewrap and pytest.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createSandbox } from '../src/leaf/index.js';
import { openAiChatModel } from '../src/llm/index.js';
import { generatorCandidates, mutationCandidates, pilotRefine, runRepoTaskPilot, validateCandidate, type PilotCandidate } from '../src/taskpilot/index.js';
import { loadProposalSet, startScriptedGenerator } from '../examples/taskpilot/scriptedGenerator.js';
import { startScriptedPolicy } from '../examples/taskpilot/scriptedPolicy.js';
import { table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const work = mkdtempSync(join(tmpdir(), 'frognano-bench-pilot-'));
// the sandbox user (nobody, when root starts it) must reach the workspaces below
chmodSync(work, 0o755);
const sandbox = createSandbox();
const seconds = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const v = await fn();
  return [v, (performance.now() - t0) / 1000];
};
console.log(`# TaskPilot bench\n\n- date: ${new Date().toISOString()}\n- cpu: ${cpus()[0]?.model ?? 'n/a'}, ${cpus().length} cores\n- node: ${process.version}\n`);

try {
  const rows: string[][] = [];
  // ------------------------------------------------------------ 1a. mutation on a real library
  const ini = join(work, 'iniconfig');
  mkdirSync(ini);
  execFileSync('tar', ['-xzf', join(ROOT, 'test/fixtures/taskpilot/iniconfig-7190125.tar.gz'), '-C', ini, '--strip-components=1']);
  const iniTests = { command: 'PYTHONPATH=src python3 -m pytest -rA -q -p no:cacheprovider testing', log: 'pytest' as const };
  const [mut, tMake] = await seconds(() => mutationCandidates({ repoDir: ini, tests: iniTests, sandbox, seed: 1, count: 4, workDir: join(work, 'mut') }));
  const validate = async (cs: PilotCandidate[]): Promise<number> => {
    let ok = 0;
    for (const c of cs) {
      const v = await validateCandidate(c, { sandbox, tmpDir: work });
      if (v.ok) ok++;
      else console.log(`- ${c.id}: ${v.reason}: ${v.detail ?? ''}`.slice(0, 300));
    }
    return ok;
  };
  const [mutOk, tVal] = await seconds(() => validate(mut.candidates));
  rows.push(['mutation (pytest-dev/iniconfig)', String(mut.candidates.length), `${mut.rejected.length} sites rejected`, f1(tMake), f1(tVal), String(mutOk), `**${f1((mutOk / (tMake + tVal)) * 60)}**`]);

  // ------------------------------------------------------------ 1b. scripted generator on the bundled repo
  const set = loadProposalSet(join(ROOT, 'examples/taskpilot/proposals.json'), 'python');
  const repo = join(ROOT, 'examples/taskpilot/repo');
  const gen = await startScriptedGenerator({ proposals: set.proposals });
  const policy = await startScriptedPolicy({ fixes: set.proposals });
  try {
    const genModel = openAiChatModel({ baseUrl: gen.baseUrl, model: gen.model, env: {} });
    const [g, tGen] = await seconds(() => generatorCandidates({ model: genModel, repoDir: repo, tests: set.tests, count: set.proposals.length, seed: 1 }));
    const [genOk, tGenVal] = await seconds(() => validate(g.candidates));
    rows.push(['scripted generator (examples/taskpilot, Python)', String(g.candidates.length), `${g.discarded.length} discarded by the source`, f1(tGen), f1(tGenVal), String(genOk), `**${f1((genOk / (tGen + tGenVal)) * 60)}**`]);
    console.log('## Candidates through validation\n');
    console.log(table(['source', 'candidates', 'source discards', 'make s', 'validate s', 'valid', 'valid candidates / min'], rows, ['l']));

    // ------------------------------------------------------------ 2. the whole loop, N = 8, concurrency 4
    const gen2 = await startScriptedGenerator({ proposals: set.proposals });
    try {
      const model = openAiChatModel({ baseUrl: policy.baseUrl, model: policy.model, env: {} });
      const g2 = openAiChatModel({ baseUrl: gen2.baseUrl, model: gen2.model, env: {} });
      let rollouts = 0;
      const [res, tLoop] = await seconds(() => runRepoTaskPilot({
        source: async () => {
          const r = await generatorCandidates({ model: g2, repoDir: repo, tests: set.tests, count: set.proposals.length, seed: 1 });
          return { candidates: r.candidates, discarded: [] };
        },
        estimate: { model, sandbox, rollouts: 8, concurrency: 4, seed: 1 },
        band: { low: 0, high: 1 },
        rounds: 3,
        refine: pilotRefine(g2),
        onRecords: (rs) => void (rollouts += rs.length),
      }));
      const acc = res.accepted.length;
      console.log('\n## The whole loop\n');
      console.log(`\`runRepoTaskPilot\` on the bundled Python set (${set.proposals.length} proposals), scripted generator and policy, N = 8, concurrency 4, band (0, 1), 3 rounds.\n`);
      console.log(table(['accepted', 'discarded', 'rollouts', 'wall s', 'rollouts / accepted', 'wall s / accepted'], [[String(acc), String(res.discarded.length), String(rollouts), f1(tLoop), acc ? `**${f1(rollouts / acc)}**` : 'n/a', acc ? `**${f2(tLoop / acc)}**` : 'n/a']], ['l']));
    } finally {
      await gen2.close();
    }
  } finally {
    await gen.close();
    await policy.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
