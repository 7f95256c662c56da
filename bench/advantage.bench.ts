/**
 * Benchmark: the typed-array primitives over 1,048,576 elements against PyTorch
 * CPU eager on the same data in the same run (Debian's python3-torch at
 * /usr/bin/python3), median of repeated runs, outputs materialised on both
 * sides (typed arrays here, CPU tensors there) and checked to agree.
 *
 * - `shapeRewards`: 1,048,576 outcomes as columns (`Uint8Array` success / truncated,
 *   `Uint32Array` tokens); also the array-of-objects form, against the same PyTorch figure.
 * - `groupAdvantages`: 1,048,576 rewards (`Float64Array`) in groups of 8 (`groupSize`,
 *   TRL's `num_generations`) with the raw outcomes as `filterBy`; also `groupIds`
 *   (verl's uid) and nested rows, against the same PyTorch figure (`view(-1, 8)`).
 * - `broadcastToTokens`: 8,192 sequences x 128 tokens (a padded `Uint8Array` mask,
 *   verl's `[B, L]` `response_mask`); also the nested form.
 *
 * PyTorch uses every core (`torch.get_num_threads()`); frognano one thread.
 * Run alone: `npx tsx --conditions=@frognano/source bench/advantage.bench.ts`;
 * in the umbrella table: `npm run bench`. Env: BENCH_N (default 1048576), BENCH_REPS (default 15), PYTHON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';
import { broadcastToTokens, groupAdvantages } from 'frognano/advantage';
import { shapeRewards } from 'frognano/rewards';
import { type BenchRow, printRows, row, runPython, timeMs } from './lib/row.js';

export interface AdvantageBenchOptions {
  /** Elements per primitive (rewards, outcomes, tokens). Default 1,048,576. */
  n?: number;
  /** Timed runs per side (median). Default 15. */
  reps?: number;
  /** The python with torch. Default `$PYTHON` or `/usr/bin/python3`. */
  python?: string;
}

interface TorchOut {
  torch: string;
  threads: number;
  shapeRewards: { s: number; sum: number; raw: number };
  groupAdvantages: { s: number; sumAbs: number; kept: number };
  broadcastToTokens: { s: number; sum: number };
}

const G = 8;
const SEQ = 128;
const budget = 6000;
const alpha = 0.25;

/**
 * Runs the advantage benches and returns one row per (work, input form); prints nothing.
 * Throws when frognano and PyTorch disagree on an output's checksum.
 */
export async function runAdvantageBench(o: AdvantageBenchOptions = {}): Promise<BenchRow[]> {
  const n = o.n ?? 1 << 20;
  const reps = o.reps ?? 15;
  const nSeq = Math.floor(n / SEQ);
  const rng = seedrandom('bench-advantage');
  const success = new Uint8Array(n);
  const truncated = new Uint8Array(n);
  const tokens = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    success[i] = rng() < 0.5 ? 1 : 0;
    truncated[i] = rng() < 0.1 ? 1 : 0;
    tokens[i] = Math.floor(1000 + rng() * 12000);
  }
  const objects = Array.from({ length: n }, (_, i) => ({ success: success[i] === 1, truncated: truncated[i] === 1, assistantTokens: tokens[i]! }));
  const seqAdv = Float64Array.from({ length: nSeq }, () => rng() * 2 - 1);
  const mask = new Uint8Array(nSeq * SEQ);
  for (let i = 0; i < nSeq; i++) for (let t = 0; t < SEQ; t++) mask[i * SEQ + t] = t < 16 || (t > 60 && t < 70) ? 0 : 1; // prompt and one tool output
  const fmt = (x: number) => x.toLocaleString('en-US');

  // ---- frognano ----
  const cols = { success, truncated, assistantTokens: tokens };
  const sr = timeMs(reps, () => shapeRewards(cols, { budget, alpha }));
  const srObj = timeMs(reps, () => shapeRewards(objects, { budget, alpha }));
  const { rewards, raw } = sr.last;
  const ga = timeMs(reps, () => groupAdvantages(rewards, { groupSize: G, filterBy: raw }));
  const ids = Int32Array.from({ length: n }, (_, i) => Math.floor(i / G));
  const gaIds = timeMs(reps, () => groupAdvantages(rewards, { groupIds: ids, filterBy: raw }));
  const rows2d = Array.from({ length: n / G }, (_, g) => Array.from(rewards.subarray(g * G, (g + 1) * G)));
  const raw2d = Array.from({ length: n / G }, (_, g) => Array.from(raw.subarray(g * G, (g + 1) * G)));
  const gaNested = timeMs(reps, () => groupAdvantages(rows2d, { filterBy: raw2d }));
  const bt = timeMs(reps, () => broadcastToTokens(seqAdv, mask));
  const mask2d = Array.from({ length: nSeq }, (_, i) => Array.from(mask.subarray(i * SEQ, (i + 1) * SEQ)));
  const btNested = timeMs(reps, () => broadcastToTokens(seqAdv, mask2d));

  // ---- PyTorch, same data ----
  const dir = mkdtempSync(join(tmpdir(), 'frognano-bench-adv-'));
  let torch: TorchOut | null;
  try {
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ groupSize: G, sequences: nSeq, seqLen: SEQ, budget, alpha }));
    writeFileSync(join(dir, 'success.u8'), success);
    writeFileSync(join(dir, 'truncated.u8'), truncated);
    writeFileSync(join(dir, 'assistantTokens.u32'), tokens);
    writeFileSync(join(dir, 'rewards.f64'), rewards);
    writeFileSync(join(dir, 'raw.u8'), raw);
    writeFileSync(join(dir, 'seqAdv.f64'), seqAdv);
    writeFileSync(join(dir, 'mask.u8'), mask);
    const script = new URL('./torch_advantage.py', import.meta.url).pathname;
    torch = runPython<TorchOut>(o.python ?? process.env.PYTHON ?? '/usr/bin/python3', script, [dir, String(reps)], 'advantage bench');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // ---- the same outputs on both sides ----
  if (torch !== null) {
    const sum = (xs: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < xs.length; i++) s += xs[i]!;
      return s;
    };
    const sumAbs = (xs: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < xs.length; i++) s += Math.abs(xs[i]!);
      return s;
    };
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
    const checks: [string, boolean][] = [
      ['shapeRewards', close(sum(rewards), torch.shapeRewards.sum) && sum(raw) === torch.shapeRewards.raw],
      ['shapeRewards objects', close(sum(srObj.last.rewards), torch.shapeRewards.sum)],
      ['groupAdvantages', close(sumAbs(ga.last.advantages), torch.groupAdvantages.sumAbs) && sum(ga.last.kept) === torch.groupAdvantages.kept],
      ['groupAdvantages groupIds', close(sumAbs(gaIds.last.advantages), torch.groupAdvantages.sumAbs)],
      ['groupAdvantages nested', close(sumAbs(gaNested.last.advantages.flat()), torch.groupAdvantages.sumAbs)],
      ['broadcastToTokens', close(sum(bt.last), torch.broadcastToTokens.sum)],
    ];
    for (const [what, ok] of checks) if (!ok) throw new Error(`advantage bench: frognano and PyTorch disagree on ${what}`);
  }
  const t = torch;
  return [
    row(`shapeRewards, columns (Uint8Array, Uint32Array), ${fmt(n)} outcomes`, sr.ms, t?.shapeRewards.s),
    row(`shapeRewards, array of ${fmt(n)} outcome objects (vs the same PyTorch)`, srObj.ms, t?.shapeRewards.s),
    row(`groupAdvantages, Float64Array, groupSize ${G} + filterBy, ${fmt(n)} rewards`, ga.ms, t?.groupAdvantages.s),
    row(`groupAdvantages, Float64Array, groupIds (verl uid), ${fmt(n)} rewards (vs the same PyTorch)`, gaIds.ms, t?.groupAdvantages.s),
    row(`groupAdvantages, nested number[][] rows, ${fmt(n)} rewards (vs the same PyTorch)`, gaNested.ms, t?.groupAdvantages.s),
    row(`broadcastToTokens, padded Uint8Array mask, ${fmt(nSeq)} x ${SEQ} = ${fmt(nSeq * SEQ)} tokens`, bt.ms, t?.broadcastToTokens.s),
    row(`broadcastToTokens, nested number[][] masks, ${fmt(nSeq * SEQ)} tokens (vs the same PyTorch)`, btNested.ms, t?.broadcastToTokens.s),
  ];
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const reps = Number(process.env.BENCH_REPS ?? 15);
  printRows(await runAdvantageBench({ n: Number(process.env.BENCH_N ?? 1 << 20), reps }), `advantage primitives, median of ${reps}`);
}
