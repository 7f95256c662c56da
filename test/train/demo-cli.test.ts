import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_CONFIG, main, parseArgs, QUICK_CONFIG, readWarmStart, runTrainDemo, USAGE, UsageError } from '../../examples/train-demo.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../helpers/expectError.js';

/** Issue 12, item 11: the demo's command line (`--help`, `--quick`, errors without a stack trace) and its warm-start record. */

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'frognano-demo-cli-'));
const demo = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@frognano/source', 'examples/train-demo.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('examples/train-demo.ts command line', () => {
  it('--help prints the flags, their defaults and examples, and exits 0 without a stack trace', () => {
    const r = demo('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(USAGE);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    for (const flag of ['--seed N', '--out DIR', '--backend NAME', '--resume', '--stop-after N', '--quick', '--allow-config-change', '--quiet', '--help']) {
      expect(USAGE).toContain(flag);
    }
    expect(USAGE).toContain('(default 1)');
    expect(USAGE).toContain('(default wasm)');
    expect(USAGE).toContain('Examples:');
  });

  it('a bad flag is one line on stderr and exit code 2', () => {
    const r = demo('--sede', '3');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('train-demo: unknown argument --sede (see --help)');
  });

  it('parseArgs: flags, values checked, -h', () => {
    expect(parseArgs([])).toEqual({});
    expect(parseArgs(['-h'])).toBe('help');
    expect(parseArgs(['--seed', '2', '--quick', '--resume', '--allow-config-change', '--stop-after', '5', '--backend', 'cpu', '--out', 'x', '--quiet'])).toEqual({
      seed: 2,
      quick: true,
      resume: true,
      allowConfigChange: true,
      stopAfterUpdates: 5,
      backend: 'cpu',
      outDir: 'x',
      quiet: true,
    });
    expect(() => parseArgs(['--seed', 'abc'])).toThrow(UsageError);
    expect(() => parseArgs(['--seed'])).toThrow('--seed needs a value');
    expect(() => parseArgs(['--stop-after', '0'])).toThrow('integer >= 1');
    expect(() => parseArgs(['--backend', 'tpu'])).toThrow('--backend must be one of');
  });

  it('main: --help writes the usage and returns 0; an argument error returns 2', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await main(['--help'])).toBe(0);
    expect(out).toHaveBeenCalledWith(USAGE);
    expect(await main(['--stop-after', '-3'])).toBe(2);
    expect(err).toHaveBeenCalledTimes(1);
  });

  it('the default configuration is untouched and --quick is a smaller one of the same model', () => {
    expect(DEMO_CONFIG.trainer).toMatchObject({ iterations: 5, updatesPerIteration: 60, groupsPerUpdate: 16, groupSize: 8, learningRate: 1e-3 });
    expect(DEMO_CONFIG.sft.steps).toBe(600);
    expect(DEMO_CONFIG.trainer.pilot).toEqual({ candidates: 512, rollouts: 8, maxRounds: 3 });
    expect(QUICK_CONFIG.model).toEqual(DEMO_CONFIG.model);
    expect(QUICK_CONFIG.family).toEqual(DEMO_CONFIG.family);
    expect(QUICK_CONFIG.sft.steps).toBeLessThan(DEMO_CONFIG.sft.steps);
    expect(QUICK_CONFIG.trainer.iterations * QUICK_CONFIG.trainer.updatesPerIteration).toBeLessThan(20);
  });
});

describe('warm-start.json', () => {
  it('a corrupt record is refused naming the file', () => {
    const path = join(dir, 'warm-start.json');
    writeFileSync(path, '{"seed": 1, "before": 0.4');
    const e = expectFrognanoError(() => readWarmStart(path), 'CHECKPOINT_INVALID', path, 'not valid JSON');
    expect(e.cause).toBeInstanceOf(SyntaxError);
    writeFileSync(path, '{"seed": 1}');
    expectFrognanoError(() => readWarmStart(path), 'CHECKPOINT_INVALID', path, '"before"');
    writeFileSync(path, '{"seed": 1, "before": 7}');
    expectFrognanoError(() => readWarmStart(path), 'CHECKPOINT_INVALID', path, 'got 7');
    expectFrognanoError(() => readWarmStart(join(dir, 'none.json')), 'CHECKPOINT_INVALID', join(dir, 'none.json'), 'cannot be read');
    writeFileSync(path, '{"seed": 1, "before": 0.4}');
    expect(readWarmStart(path).before).toBe(0.4);
  });

  it('--resume with a corrupt record fails naming it, before any training', async () => {
    const out = mkdtempSync(join(tmpdir(), 'frognano-demo-resume-'));
    writeFileSync(join(out, 'checkpoint.ckpt'), 'x');
    writeFileSync(join(out, 'warm-start.json'), 'not json');
    await expectFrognanoErrorAsync(
      () => runTrainDemo({ outDir: out, resume: true, quiet: true, backend: 'cpu', quick: true }),
      'CHECKPOINT_INVALID',
      join(out, 'warm-start.json'),
    );
  });
});
