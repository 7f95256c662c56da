import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/gpu.md quotes the H200 run of 2026-11-30; its logs are kept in bench/gpu/results.
// This recomputes every quoted number from those logs, so the record cannot drift from them.
const root = join(import.meta.dirname, '..');
const dir = join(root, 'bench/gpu/results/2026-11-30-h200');
const doc = readFileSync(join(root, 'docs/gpu.md'), 'utf8');
const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
const fmt = (x: number, digits: number): string => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

interface UpdateRecord {
  tokens: number;
  seconds: number;
  update: number;
}
const records = (f: string): UpdateRecord[] =>
  read(f)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as UpdateRecord);

describe('docs/gpu.md against the logs of the 2026-11-30 H200 run', () => {
  it('the machine line', () => {
    const m = read('machine.txt');
    expect(m).toContain('NVIDIA H200, 580.159.04, 143771 MiB');
    expect(m).toContain('torch 2.11.0+cu130 cuda True');
    expect(doc).toContain('NVIDIA H200 (driver 580.159.04, 143,771 MiB)');
    expect(doc).toContain('PyTorch 2.11.0+cu130');
  });

  it('the suite on webgpu: counts, no failure, and every per-backend test ran on webgpu', () => {
    const log = read('suite-webgpu.log');
    const tests = /Tests\s+(\d+) passed \| (\d+) skipped \((\d+)\)/.exec(log);
    const files = /Test Files\s+(\d+) passed \((\d+)\)/.exec(log);
    expect(tests?.slice(1).map(Number)).toEqual([139, 7, 146]);
    expect(files?.slice(1).map(Number)).toEqual([11, 11]);
    expect(log).not.toMatch(/failed|×/);
    expect(log).toContain('rc=0');
    for (const suite of ['dppoLoss on webgpu', 'spanKtoLoss on webgpu', 'consolidationLoss on webgpu', 'rwSftLoss / sftLoss on webgpu', 'tokenLogProbs / tokenEntropy on webgpu', 'aggregateTokenLoss on webgpu', 'losses in optimizer.minimize on webgpu']) {
      expect(log).toContain(suite);
    }
    expect(log).toContain("'webgpu' with the packages and a GPU (or SwiftShader)");
    expect(doc).toContain('**139 passed, 7 skipped, 0 failed** (11 files)');
  });

  it('the dppoLoss bench: each row of the doc is a row of the log, ratios recomputed, same loss', () => {
    const rows = [...read('bench.log').matchAll(/^\s*([\d,]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)x\s+yes$/gm)];
    expect(rows).toHaveLength(3);
    for (const [, tokens, ours, torch, ratio] of rows) {
      // the log prints times rounded to 0.1 ms and the ratio of the unrounded ones: it must lie in the rounding interval
      const [o, t] = [Number(ours), Number(torch)];
      expect(Number(ratio)).toBeGreaterThanOrEqual((o - 0.05) / (t + 0.05) - 0.05);
      expect(Number(ratio)).toBeLessThanOrEqual((o + 0.05) / (t - 0.05) + 0.05);
      expect(doc).toContain(`| ${tokens} | ${ours} ms | ${torch} ms | ${ratio}x |`);
    }
    expect(read('bench.log')).toContain("backend 'webgpu' (validate default: false), median of 10");
  });

  it('the full demo on webgpu: before, after, gain and phase times', () => {
    const s = JSON.parse(read('summary.json')) as { backend: string; before: number; after: number; gain: number; seconds: { sft: number; rl: number } };
    expect(s.backend).toBe('webgpu');
    expect(doc).toContain(`held-out solve rate ${fmt(100 * s.before, 1)}% → ${fmt(100 * s.after, 1)}% (+${fmt(100 * s.gain, 1)} points`);
    expect(doc).toContain(`600 steps in ${Math.round(s.seconds.sft)} s`);
    expect(doc).toContain(`300 DPPO updates in ${Math.round(s.seconds.rl)} s`);
    expect(records('full-updates.jsonl')).toHaveLength(300);
  });

  it('the RL-phase table: updates, tokens, seconds, tokens/s and median per update', () => {
    const row = (f: string): string => {
      const rs = records(f);
      const tokens = rs.reduce((a, r) => a + r.tokens, 0);
      const seconds = rs.reduce((a, r) => a + r.seconds, 0);
      const sorted = rs.map((r) => r.seconds).sort((a, b) => a - b);
      return `| ${rs.length} | ${fmt(tokens, 0)} | ${fmt(seconds, 1)} | ${fmt(Math.round(tokens / seconds), 0)} | ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} |`;
    };
    for (const f of ['train-updates-webgpu.jsonl', 'train-updates-wasm.jsonl', 'full-updates.jsonl']) expect(doc).toContain(row(f));
  });
});
