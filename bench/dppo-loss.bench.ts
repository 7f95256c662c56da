/**
 * Benchmark: dppoLoss forward + backward (tf.grad w.r.t. logpNew) at 64K, 1M and
 * 8M tokens on a tfjs backend, next to the same loss in PyTorch CPU (Debian's
 * python3-torch at /usr/bin/python3) on the same float32 data in the same run.
 * Reports medians and the ratio, and checks that both give the same loss.
 *
 * Run: `npm run bench:loss` (env: BENCH_BACKEND = cpu | wasm | webgpu, default cpu;
 * BENCH_SIZES = comma list, default 65536,1048576,8388608; BENCH_REPS default 5;
 * PYTHON default /usr/bin/python3; TORCH_DEVICE cpu | cuda, default cpu; BENCH_VALIDATE = 0 / 1 to force the loss's validate option; unset, its default: on where the backend reads synchronously, off on webgpu in Node).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { canReadSync, dppoLoss, useBackend } from 'frognano';

const backend = (process.env.BENCH_BACKEND ?? 'cpu') as 'cpu' | 'wasm' | 'webgpu';
const sizes = (process.env.BENCH_SIZES ?? '65536,1048576,8388608').split(',').map(Number);
const REPS = Number(process.env.BENCH_REPS ?? 5);
const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const TORCH_DEVICE = process.env.TORCH_DEVICE ?? 'cpu';
// unset: the loss's own default (host check where the backend reads synchronously, none on webgpu in Node)
const validate = process.env.BENCH_VALIDATE === undefined ? undefined : process.env.BENCH_VALIDATE !== '0';

const sel = await useBackend(backend);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const data = sizes.map((n) => {
  const rng = seedrandom(`dppo-${n}`);
  const q = new Float32Array(n);
  const p = new Float32Array(n);
  const a = new Float32Array(n);
  const m = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const qq = 0.01 + 0.98 * rng();
    const pp = Math.min(0.999, Math.max(0.001, qq + 0.6 * (rng() - 0.5)));
    q[i] = Math.log(qq);
    p[i] = Math.log(pp);
    a[i] = rng() < 0.5 ? -1 + rng() : rng();
    m[i] = i % 16 < 3 ? 0 : 1;
  }
  return { n, p, q, a, m };
});

const ts: { n: number; median: number; loss: number }[] = [];
for (const { n, p, q, a, m } of data) {
  const logpNew = tf.tensor1d(p);
  const logpRollout = tf.tensor1d(q);
  const advantages = tf.tensor1d(a);
  const lossMask = tf.tensor1d(m);
  const f = tf.valueAndGrad((x: tf.Tensor) => dppoLoss({ logpNew: x, logpRollout, advantages, lossMask }, { validate }));
  // asynchronous reads: the only kind webgpu in Node has, and what a training loop should use everywhere
  const step = async () => {
    const { value, grad } = f(logpNew);
    const v = (await value.data())[0]!;
    await grad.data();
    value.dispose();
    grad.dispose();
    return v;
  };
  await step();
  const times: number[] = [];
  let loss = 0;
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now();
    loss = await step();
    times.push((performance.now() - t0) / 1000);
  }
  ts.push({ n, median: median(times), loss });
  tf.dispose([logpNew, logpRollout, advantages, lossMask]);
}

const dir = mkdtempSync(join(tmpdir(), 'frognano-loss-bench-'));
let torch: { torch: string; device: string; threads: number; results: { n: number; median_s: number; loss: number }[] } | undefined;
try {
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ sizes }));
  for (const { n, p, q, a, m } of data) {
    writeFileSync(join(dir, `logpNew_${n}.f32`), p);
    writeFileSync(join(dir, `logpRollout_${n}.f32`), q);
    writeFileSync(join(dir, `adv_${n}.f32`), a);
    writeFileSync(join(dir, `mask_${n}.f32`), m);
  }
  const script = new URL('./torch_dppo_loss.py', import.meta.url).pathname;
  torch = JSON.parse(execFileSync(PYTHON, [script, dir, String(REPS), TORCH_DEVICE], { encoding: 'utf8', maxBuffer: 1 << 20 }).trim());
} catch (e) {
  console.error(`PyTorch reference skipped (${PYTHON} with torch not available): ${(e as Error).message.split('\n')[0]}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`dppoLoss forward+backward, tfjs backend '${sel.backend}' (validate ${validate ?? `default: ${canReadSync()}`}), median of ${REPS}`);
console.log(`${'tokens'.padStart(10)} ${'frognano ms'.padStart(12)} ${torch ? `${`torch ${torch.torch} ms`.padStart(18)} ${'ratio'.padStart(7)}  same loss` : ''}`);
for (const t of ts) {
  const r = torch?.results.find((x) => x.n === t.n);
  const same = r ? Math.abs(r.loss - t.loss) <= 1e-4 * Math.max(1, Math.abs(r.loss)) : undefined;
  if (same === false) process.exitCode = 1;
  console.log(
    `${t.n.toLocaleString().padStart(10)} ${(t.median * 1000).toFixed(1).padStart(12)} ${r ? `${(r.median_s * 1000).toFixed(1).padStart(18)} ${(t.median / r.median_s).toFixed(1).padStart(6)}x  ${same ? 'yes' : `NO (${t.loss} vs ${r.loss})`}` : ''}`,
  );
}
if (torch) console.log(`(PyTorch on ${torch.device}, ${torch.threads} CPU thread(s))`);
// webgpu in Node keeps the process alive while navigator.gpu is referenced
process.exit(process.exitCode ?? 0);
