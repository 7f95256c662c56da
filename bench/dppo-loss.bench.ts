/**
 * Benchmark (issue #13): `dppoLoss` forward + backward on tfjs `wasm` and `cpu`, and
 * `dppoMask` on `Float64Array` inputs, next to the same work in PyTorch CPU eager
 * (Debian's python3-torch at /usr/bin/python3) on the same data in the same run.
 *
 * Fair by construction: the same float32 (loss) / float64 (mask) arrays on both sides;
 * both sides read back the loss AND the whole gradient (tfjs `await data()`, PyTorch
 * `.item()` and `.numpy()`) inside the timed step; the mask comes back as a float64
 * array on both sides; median of `BENCH_REPS` runs after one warm-up; the ratio is
 * PyTorch time / frognano time (above 1: frognano is faster). Both sides' losses and
 * kept counts are compared.
 *
 * Run alone: `npm run bench:loss` (env: BENCH_BACKENDS = comma list of cpu | wasm | webgpu,
 * default wasm,cpu; BENCH_SIZES default 1048576; BENCH_REPS default 15; PYTHON default
 * /usr/bin/python3; TORCH_DEVICE cpu | cuda, default cpu; BENCH_VALIDATE = 0 / 1 forces the
 * loss's validate option, unset: its default). `bench/run-all.ts` imports {@link runDppoBench}.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { dppoMask } from 'frognano/advantage';
import { useBackend } from 'frognano/backend';
import { dppoLoss } from 'frognano/losses';
import { median } from './lib/stats.js';
import type { BenchRow } from './lib/row.js';

export type { BenchRow };

export interface DppoBenchOptions {
  backends?: ('cpu' | 'wasm' | 'webgpu')[];
  sizes?: number[];
  reps?: number;
  python?: string;
  torchDevice?: string;
  validate?: boolean;
}

interface Data {
  n: number;
  p: Float32Array;
  q: Float32Array;
  a: Float32Array;
  m: Float32Array;
  p64: Float64Array;
  q64: Float64Array;
  a64: Float64Array;
}

function makeData(n: number): Data {
  const rng = seedrandom(`dppo-${n}`);
  const d: Data = {
    n,
    p: new Float32Array(n),
    q: new Float32Array(n),
    a: new Float32Array(n),
    m: new Float32Array(n),
    p64: new Float64Array(n),
    q64: new Float64Array(n),
    a64: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const qq = 0.01 + 0.98 * rng();
    const pp = Math.min(0.999, Math.max(0.001, qq + 0.6 * (rng() - 0.5)));
    d.q[i] = d.q64[i] = Math.log(qq);
    d.p[i] = d.p64[i] = Math.log(pp);
    d.a[i] = d.a64[i] = rng() < 0.5 ? -1 + rng() : rng();
    d.m[i] = i % 16 < 3 ? 0 : 1;
  }
  return d;
}

async function timeIt<T>(reps: number, step: () => Promise<T> | T): Promise<{ ms: number; minMs: number; last: T }> {
  let last = await step(); // warm-up
  const times: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    last = await step();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), minMs: Math.min(...times), last };
}

async function frognanoLoss(backend: string, d: Data, reps: number, validate: boolean | undefined) {
  await useBackend(backend as 'cpu');
  const logpNew = tf.tensor1d(d.p);
  const logpRollout = tf.tensor1d(d.q);
  const advantages = tf.tensor1d(d.a);
  const lossMask = tf.tensor1d(d.m);
  const f = tf.valueAndGrad((x: tf.Tensor) => dppoLoss({ logpNew: x, logpRollout, advantages, lossMask }, { validate }));
  const r = await timeIt(reps, async () => {
    const { value, grad } = f(logpNew);
    const v = (await value.data())[0]!;
    const g = (await grad.data()) as Float32Array; // the whole gradient on the host
    const gAbs = Math.abs(g[0]!) + Math.abs(g[g.length - 1]!);
    value.dispose();
    grad.dispose();
    return { loss: v, gAbs };
  });
  tf.dispose([logpNew, logpRollout, advantages, lossMask]);
  return { ms: r.ms, minMs: r.minMs, loss: r.last.loss };
}

interface TorchOut {
  torch: string;
  device: string;
  threads: number;
  loss: { n: number; median_s: number; min_s?: number; loss: number }[];
  mask: { n: number; median_s: number; min_s?: number; kept: number }[];
}

function runTorch(data: Data[], reps: number, python: string, device: string): TorchOut | null {
  const dir = mkdtempSync(join(tmpdir(), 'frognano-dppo-bench-'));
  try {
    writeFileSync(join(dir, 'meta.json'), JSON.stringify({ sizes: data.map((d) => d.n) }));
    for (const d of data) {
      writeFileSync(join(dir, `logpNew_${d.n}.f32`), d.p);
      writeFileSync(join(dir, `logpRollout_${d.n}.f32`), d.q);
      writeFileSync(join(dir, `adv_${d.n}.f32`), d.a);
      writeFileSync(join(dir, `mask_${d.n}.f32`), d.m);
      writeFileSync(join(dir, `logpNew_${d.n}.f64`), d.p64);
      writeFileSync(join(dir, `logpRollout_${d.n}.f64`), d.q64);
      writeFileSync(join(dir, `adv_${d.n}.f64`), d.a64);
    }
    const script = new URL('./torch_dppo_loss.py', import.meta.url).pathname;
    return JSON.parse(execFileSync(python, [script, dir, String(reps), device], { encoding: 'utf8', maxBuffer: 1 << 20 }).trim()) as TorchOut;
  } catch (e) {
    console.error(`PyTorch reference skipped (${python} with torch not available): ${(e as Error).message.split('\n')[0]}`);
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the DPPO benches and returns one row per (work, backend, size); prints nothing.
 * Throws when the two sides disagree on the loss or the kept count.
 */
export async function runDppoBench(o: DppoBenchOptions = {}): Promise<BenchRow[]> {
  const backends = o.backends ?? ['wasm', 'cpu'];
  const sizes = o.sizes ?? [1 << 20];
  const reps = o.reps ?? 15;
  const data = sizes.map(makeData);
  const rows: BenchRow[] = [];
  const mine: { name: string; ms: number; minMs: number; check: (t: TorchOut) => { torchS: number; torchMinS?: number; ok: boolean; note: string } }[] = [];
  for (const d of data) {
    for (const backend of backends) {
      const r = await frognanoLoss(backend, d, reps, o.validate);
      mine.push({
        name: `dppoLoss fwd+bwd, ${backend}, ${d.n.toLocaleString('en-US')} tokens (loss + gradient read back)`,
        ms: r.ms,
        minMs: r.minMs,
        check: (t) => {
          const x = t.loss.find((y) => y.n === d.n)!;
          return { torchS: x.median_s, torchMinS: x.min_s, ok: Math.abs(x.loss - r.loss) <= 1e-4 * Math.max(1, Math.abs(x.loss)), note: `loss ${r.loss} vs ${x.loss}` };
        },
      });
    }
    const m = await timeIt(reps, () => dppoMask(d.p64, d.q64, d.a64));
    const kept = m.last.reduce((s, v) => s + v, 0);
    mine.push({
      name: `dppoMask, Float64Array, ${d.n.toLocaleString('en-US')} tokens`,
      ms: m.ms,
      minMs: m.minMs,
      check: (t) => {
        const x = t.mask.find((y) => y.n === d.n)!;
        return { torchS: x.median_s, torchMinS: x.min_s, ok: x.kept === kept, note: `kept ${kept} vs ${x.kept}` };
      },
    });
  }
  const torch = runTorch(data, reps, o.python ?? process.env.PYTHON ?? '/usr/bin/python3', o.torchDevice ?? process.env.TORCH_DEVICE ?? 'cpu');
  for (const r of mine) {
    if (torch === null) {
      rows.push({ name: r.name, frognanoMs: r.ms, torchMs: NaN, ratio: NaN });
      continue;
    }
    const c = r.check(torch);
    if (!c.ok) throw new Error(`${r.name}: frognano and PyTorch disagree (${c.note})`);
    // the machine may be shared: the minima (best of the repeats) are a second, less noisy view
    const minNote = c.torchMinS === undefined ? '' : `min ${r.minMs.toFixed(1)} vs ${(c.torchMinS * 1000).toFixed(1)} ms: ${((c.torchMinS * 1000) / r.minMs).toFixed(2)}x`;
    rows.push({ name: r.name, frognanoMs: r.ms, torchMs: c.torchS * 1000, ratio: (c.torchS * 1000) / r.ms, ...(minNote ? { note: minNote } : {}) });
  }
  return rows;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const env = process.env;
  const reps = Number(env.BENCH_REPS ?? 15);
  const rows = await runDppoBench({
    backends: (env.BENCH_BACKENDS ?? 'wasm,cpu').split(',') as DppoBenchOptions['backends'],
    sizes: (env.BENCH_SIZES ?? '1048576').split(',').map(Number),
    reps,
    validate: env.BENCH_VALIDATE === undefined ? undefined : env.BENCH_VALIDATE !== '0',
  });
  console.log(`DPPO benches, median of ${reps} (ratio = PyTorch ms / frognano ms; > 1: frognano faster)`);
  console.log(`${'work'.padEnd(80)} ${'frognano ms'.padStart(12)} ${'PyTorch ms'.padStart(11)} ${'ratio'.padStart(7)}  minima`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(80)} ${r.frognanoMs.toFixed(1).padStart(12)} ${r.torchMs.toFixed(1).padStart(11)} ${`${r.ratio.toFixed(2)}x`.padStart(7)}  ${r.note ?? ''}`);
  }
  // webgpu in Node keeps the process alive while navigator.gpu is referenced
  process.exit(0);
}
