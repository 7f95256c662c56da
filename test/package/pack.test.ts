/**
 * The package as a user gets it: `npm pack`, install the tarball into a scratch
 * project, import the root and the subpaths. Also the self-reference from inside
 * this repo after a build. Slow (an npm install), so it runs once per suite.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work: string;
let tarball: string;

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
}

function node(script: string, cwd: string): string {
  return run(process.execPath, ['--input-type=module', '-e', script], cwd).trim();
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'frognano-pack-'));
  // prepack builds dist/ first.
  run(npm, ['pack', '--pack-destination', work], root);
  const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error('npm pack produced no tarball');
  tarball = join(work, tgz);
}, 240_000);

// Two installed node_modules (one with tfjs): removing them can outlast the default 10 s hook timeout.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('self-reference after build', () => {
  it("import { groupAdvantages } from 'frognano' works inside the package (dist, no source condition)", () => {
    const out = node(
      "import { groupAdvantages } from 'frognano'; console.log(JSON.stringify(groupAdvantages([[1,0,0,1]], { std: 'population', eps: 0 })));",
      root,
    );
    expect(JSON.parse(out)).toEqual({ advantages: [[1, -1, -1, 1]], kept: [true] });
  });
});

describe('the packed tarball in a scratch project', () => {
  it('ships dist with types and no tests', () => {
    const list = run('tar', ['-tzf', tarball], work).split('\n');
    expect(list).toContain('package/dist/index.js');
    expect(list).toContain('package/dist/index.d.ts');
    expect(list).toContain('package/dist/advantage/index.js');
    expect(list.some((f) => f.endsWith('.test.ts') || f.endsWith('.test.js'))).toBe(false);
  });

  it('installs without tfjs (and without playwright-core), and the light subpaths import without a tensor engine or a browser driver', () => {
    const app = join(work, 'app-light');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app-light', version: '1.0.0', type: 'module', private: true }));
    // --legacy-peer-deps: do not auto-install the @tensorflow/tfjs peer.
    run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--legacy-peer-deps', tarball], app);
    expect(existsSync(join(app, 'node_modules/@tensorflow/tfjs'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/playwright-core'))).toBe(false);
    const out = node(
      [
        "import { groupAdvantages, dppoMask } from 'frognano/advantage';",
        "import { shapeReward } from 'frognano/rewards';",
        "import { gagarRedistribute } from 'frognano/judges';",
        "import { passAtK } from 'frognano/metrics';",
        "import { FrognanoError } from 'frognano/errors';",
        "import { classifyResolveRate, runTaskPilot } from 'frognano/curriculum';",
        "import { DigitTaskFamily } from 'frognano/env';",
        "import { parseTrajectory } from 'frognano/schema';",
        "import { compactionBudget } from 'frognano/compaction';",
        "import { openAiChatModel } from 'frognano/llm';",
        "import { runEpisode, rolloutTasks, createSandbox, loadLeafTasks } from 'frognano/leaf';",
        "import { parseShell } from 'frognano/judges/parsers';",
        "import { webJudge, runActions, webJudgeScore } from 'frognano/webjudge';",
        "if ([parseShell, webJudge, runActions, webJudgeScore].some((f) => typeof f !== 'function')) throw new Error('missing parsers/webjudge export');",
        "if ([runTaskPilot, DigitTaskFamily, parseTrajectory, compactionBudget, openAiChatModel, runEpisode, rolloutTasks, createSandbox, loadLeafTasks].some((f) => typeof f !== 'function')) throw new Error('missing export');",
        'const a = groupAdvantages([[1, 1, 0, 0]], { scale: "none" }).advantages[0];',
        'const g = gagarRedistribute([1, 1, 0, 0], [1, 0.2, 1, 1], { lambdaMax: Infinity });',
        'let code; try { passAtK(3, 5, 1); } catch (e) { code = e instanceof FrognanoError ? e.code : "other"; }',
        'console.log(JSON.stringify({ a, g: g.map((x) => +x.toFixed(4)), m: dppoMask([Math.log(0.9)], [Math.log(0.5)], [1]), r: shapeReward({ success: true, truncated: true, assistantTokens: 9 }, { budget: 5, alpha: 1 }), code, band: classifyResolveRate(0.25, { low: 0, high: 0.5, highInclusive: true }) }));',
      ].join('\n'),
      app,
    );
    expect(JSON.parse(out)).toEqual({ a: [0.5, 0.5, -0.5, -0.5], g: [0.8333, 0.1667, -0.5, -0.5], m: [0], r: 0.5, code: 'OUT_OF_RANGE', band: 'accept' });
  }, 240_000);

  it('with the tfjs peer installed, the root entry exports the losses too', () => {
    const app = join(work, 'app-full');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app-full', version: '1.0.0', type: 'module', private: true }));
    run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
    expect(existsSync(join(app, 'node_modules/@tensorflow/tfjs'))).toBe(true);
    const out = node(
      "import { groupAdvantages, dppoLoss, FrognanoTrainer } from 'frognano'; import { TinyGpt } from 'frognano/models'; console.log(typeof groupAdvantages, typeof dppoLoss, typeof FrognanoTrainer, typeof TinyGpt);",
      app,
    );
    expect(out).toBe('function function function function');
  }, 300_000);
});
