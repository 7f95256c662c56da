/**
 * Benchmark (not a timed test): the train demo's configuration over several
 * seeds, each in its own process (`examples/train-demo.ts --seed N --quiet`),
 * and the mean and spread of its held-out gain (solve rate after RL minus
 * before, 200 terse tasks x 4 samples at temperature 0.6) and wall clock.
 *
 * Run: `npx tsx --conditions=@frognano/source bench/demo-gain.bench.ts`
 * (env: BENCH_SEEDS = comma list, default 1,2,3; BENCH_BACKEND default wasm).
 * Writes runs/bench-demo-gain/summary.json; each seed's report is in
 * runs/bench-demo-gain/seed<N>/report.html.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrainDemoResult } from '../examples/train-demo.js';

const seeds = (process.env.BENCH_SEEDS ?? '1,2,3').split(',').map(Number);
const backend = process.env.BENCH_BACKEND ?? 'wasm';
const root = join('runs', 'bench-demo-gain');
mkdirSync(root, { recursive: true });

const results: (TrainDemoResult & { wallSeconds: number })[] = [];
for (const seed of seeds) {
  const out = join(root, `seed${seed}`);
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@frognano/source', 'examples/train-demo.ts', '--seed', String(seed), '--quiet', '--out', out, '--backend', backend],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`seed ${seed}: the demo exited with ${r.status}`);
  const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as TrainDemoResult;
  results.push({ ...s, wallSeconds: (Date.now() - t0) / 1000 });
  console.log(
    `seed ${seed}: held-out ${(s.before * 100).toFixed(1)}% -> ${(s.after! * 100).toFixed(1)}%  gain ${(s.gain! * 100).toFixed(1)} points  (SFT ${s.seconds.sft.toFixed(0)} s, TaskPilot+RL ${s.seconds.rl.toFixed(0)} s, process ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
}

const stats = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : 0;
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs) };
};
const gain = stats(results.map((r) => r.gain!));
const before = stats(results.map((r) => r.before));
const after = stats(results.map((r) => r.after!));
const wall = stats(results.map((r) => r.wallSeconds));
const p = (x: number) => (x * 100).toFixed(1);
console.log(`\n${results.length} seeds, backend ${backend}`);
console.log(`held-out before: mean ${p(before.mean)}%  (min ${p(before.min)}, max ${p(before.max)})`);
console.log(`held-out after:  mean ${p(after.mean)}%  (min ${p(after.min)}, max ${p(after.max)})`);
console.log(`gain:            mean ${p(gain.mean)} points, sd ${p(gain.sd)}, min ${p(gain.min)}, max ${p(gain.max)}`);
console.log(`wall clock:      mean ${wall.mean.toFixed(0)} s, max ${wall.max.toFixed(0)} s per run`);
writeFileSync(join(root, 'summary.json'), JSON.stringify({ backend, seeds, results, gain, before, after, wall }, null, 2));
