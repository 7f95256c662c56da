/**
 * Benchmark: shapeRewards + groupAdvantages + broadcastToTokens + dppoMask over
 * ~1M tokens in groups of 8, median of repeated runs, next to the same pipeline
 * in PyTorch CPU (Debian's python3-torch at /usr/bin/python3) run in the same
 * process tree, reported as a ratio. Run: `npm run bench`.
 *
 * Options (env): BENCH_TOKENS (default 1_048_576), BENCH_REPS (default 9), PYTHON (default /usr/bin/python3).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { broadcastToTokens, dppoMask, groupAdvantages, shapeRewards } from 'frognano';

const TOKENS = Number(process.env.BENCH_TOKENS ?? 1 << 20);
const REPS = Number(process.env.BENCH_REPS ?? 9);
const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const R = 8;
const SEQ = 128; // tokens per rollout
const G = Math.round(TOKENS / (R * SEQ));
const budget = 6000;
const alpha = 0.25;
const delta = 0.2;

// ---- synthetic batch (seeded) ----
const rng = seedrandom('bench-advantage');
const outcomes = Array.from({ length: G * R }, () => ({
  success: rng() < 0.5,
  truncated: rng() < 0.1,
  assistantTokens: Math.floor(1000 + rng() * 12000),
}));
const lossMasks: number[][] = [];
const logpNew: number[] = [];
const logpRollout: number[] = [];
for (let i = 0; i < G * R; i++) {
  const m = new Array<number>(SEQ);
  for (let t = 0; t < SEQ; t++) {
    m[t] = t < 16 || (t > 60 && t < 70) ? 0 : 1; // prompt and one tool output
    const q = 0.01 + 0.99 * rng();
    const p = Math.min(0.9999, Math.max(1e-4, q + 0.6 * (rng() - 0.5))); // some tokens move past delta
    logpRollout.push(Math.log(q));
    logpNew.push(Math.log(p));
  }
  lossMasks.push(m);
}
const nTok = logpNew.length;

function pipeline() {
  const { rewards, raw } = shapeRewards(outcomes, { budget, alpha });
  const groups: number[][] = [];
  const rawGroups: number[][] = [];
  for (let g = 0; g < G; g++) {
    groups.push(rewards.slice(g * R, (g + 1) * R));
    rawGroups.push(raw.slice(g * R, (g + 1) * R));
  }
  const { advantages } = groupAdvantages(groups, { filterBy: rawGroups });
  const tokAdv = concat(broadcastToTokens(concat(advantages), lossMasks));
  const mask = dppoMask(logpNew, logpRollout, tokAdv, { delta });
  return { advantages, mask };
}

/** Concatenates rows into one packed array (Array.prototype.flat is several times slower at this size). */
function concat(rows: number[][]): number[] {
  let n = 0;
  for (const r of rows) n += r.length;
  const out = new Array<number>(n).fill(0);
  let k = 0;
  for (const r of rows) for (let t = 0; t < r.length; t++) out[k++] = r[t]!;
  return out;
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

// ---- TypeScript ----
pipeline(); // warm-up (JIT)
const times: number[] = [];
let last!: ReturnType<typeof pipeline>;
for (let i = 0; i < REPS; i++) {
  const t0 = performance.now();
  last = pipeline();
  times.push((performance.now() - t0) / 1000);
}
const tsMedian = median(times);
const tsAdvSum = last.advantages.flat().reduce((a, b) => a + Math.abs(b), 0);
const tsKept = last.mask.reduce((a, b) => a + b, 0);

// ---- PyTorch CPU, same data ----
const dir = mkdtempSync(join(tmpdir(), 'frognano-bench-'));
let torch: { median_s: number; advSum: number; kept: number; torch: string; threads: number } | undefined;
try {
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ groups: G, rolloutsPerGroup: R, budget, alpha, delta }));
  writeFileSync(join(dir, 'success.u8'), Uint8Array.from(outcomes, (o) => (o.success ? 1 : 0)));
  writeFileSync(join(dir, 'truncated.u8'), Uint8Array.from(outcomes, (o) => (o.truncated ? 1 : 0)));
  writeFileSync(join(dir, 'assistantTokens.f64'), Float64Array.from(outcomes, (o) => o.assistantTokens));
  writeFileSync(join(dir, 'seqLen.i32'), Int32Array.from(lossMasks, (m) => m.length));
  writeFileSync(join(dir, 'logpNew.f64'), Float64Array.from(logpNew));
  writeFileSync(join(dir, 'logpRollout.f64'), Float64Array.from(logpRollout));
  writeFileSync(join(dir, 'lossMask.f64'), Float64Array.from(lossMasks.flat()));
  const here = new URL('./torch_advantage.py', import.meta.url).pathname;
  torch = JSON.parse(execFileSync(PYTHON, [here, dir, String(REPS)], { encoding: 'utf8' }).trim());
} catch (e) {
  console.error(`PyTorch reference skipped (${PYTHON} with torch not available: apt-get install python3-torch): ${(e as Error).message.split('\n')[0]}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`advantage pipeline bench: ${G} groups x ${R} rollouts x ${SEQ} tokens = ${nTok.toLocaleString()} tokens, median of ${REPS}`);
console.log(`  frognano (TypeScript, float64): ${(tsMedian * 1000).toFixed(1)} ms  (${((nTok / tsMedian) / 1e6).toFixed(1)} M tokens/s)`);
if (torch) {
  console.log(`  PyTorch ${torch.torch} CPU (${torch.threads} thread(s)): ${(torch.median_s * 1000).toFixed(1)} ms`);
  console.log(`  ratio frognano / torch: ${(tsMedian / torch.median_s).toFixed(2)}x`);
  const agree = Math.abs(torch.advSum - tsAdvSum) < 1e-6 * Math.max(1, tsAdvSum) && torch.kept === tsKept;
  console.log(`  same results: ${agree ? 'yes' : 'NO'} (sum|A| ${tsAdvSum.toFixed(6)} vs ${torch.advSum.toFixed(6)}, kept tokens ${tsKept} vs ${torch.kept})`);
  if (!agree) process.exitCode = 1;
}
