/**
 * Benchmark: `tokenLogProbs` (fused log-softmax + gather, issue 13: on `cpu`/`wasm`
 * the host kernel of `src/losses/tokenLogProbsFused.ts`, one pass per row) against
 * the tfjs-op path in vocabulary chunks (what other backends run, and what cpu/wasm
 * ran before the host kernel), the whole-vocabulary implementation before issue 13
 * (`tokenLogProbsDense`: `tf.logSoftmax` times a one-hot) and PyTorch CPU eager
 * (`log_softmax(...).gather(...)`), at N = 4,096 tokens and V = 32,768 and 151,936.
 * Time: median of repeated forwards, log-probs read back. Memory: tfjs' peak tensor
 * bytes beyond the logits during one forward (`tf.profile`).
 *
 * The logits alone are N V 4 bytes (0.5 GB at V = 32,768; 2.5 GB at 151,936): the
 * dense path needs several times that and is skipped where it would not fit in
 * BENCH_DENSE_MAX_BYTES (default 6 GB of temporaries).
 * Env: BENCH_LS_N (4096), BENCH_LS_VOCABS (32768,151936), BENCH_LS_REPS (3), BENCH_LS_BACKEND (cpu; wasm skips logits over 1.2 GB), BENCH_LS_CHUNK (4096), PYTHON.
 */
import * as tf from '@tensorflow/tfjs';
import { pathToFileURL } from 'node:url';
import { useBackend } from 'frognano/backend';
import { tokenLogProbs } from 'frognano/losses';
import { tokenLogProbsDense, tokenLogProbsUnchecked } from '../src/losses/tokenLogProbs.js';
import { type BenchRow, printRows, row, runPython } from './lib/row.js';
import { median } from './lib/stats.js';

export interface LogSoftmaxBenchOptions {
  n?: number;
  vocabs?: number[];
  reps?: number;
  backend?: 'cpu' | 'wasm';
  chunkSize?: number;
  python?: string;
  /** Skip the dense path where its temporaries (4 [N, V] float32) would exceed this. Default 6 GB. */
  denseMaxBytes?: number;
}

interface TorchOut {
  runs: { V: number; s: number; sum: number; tempBytes: number }[];
}

const GB = 2 ** 30;
/** The largest logits the wasm bench tries (tfjs-backend-wasm 4.22 grows its heap to 2 GB at most). */
const WASM_MAX_LOGITS = 1.2 * GB;

/** Median ms of `reps` forwards (read back) and the peak tensor bytes of one beyond those alive before it. */
async function measure(reps: number, f: () => tf.Tensor): Promise<{ ms: number; peak: number; sum: number }> {
  const start = tf.memory().numBytes;
  let sum = 0;
  const prof = await tf.profile(() => {
    const y = f();
    sum = (y.dataSync() as Float32Array).reduce((a, b) => a + b, 0);
    y.dispose();
  });
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const y = f();
    y.dataSync();
    ts.push(performance.now() - t0);
    y.dispose();
  }
  return { ms: median(ts), peak: prof.peakBytes - start, sum };
}

/** Runs the log-softmax benches; one row per (implementation, V); prints nothing. */
export async function runLogSoftmaxBench(o: LogSoftmaxBenchOptions = {}): Promise<BenchRow[]> {
  const n = o.n ?? 4096;
  const vocabs = o.vocabs ?? [32768, 151936];
  const reps = o.reps ?? 3;
  const chunkSize = o.chunkSize ?? 4096;
  const backend = o.backend ?? 'cpu';
  const denseMax = o.denseMaxBytes ?? 6 * GB;
  await useBackend(backend);
  const script = new URL('./torch_logsoftmax.py', import.meta.url).pathname;
  const torch = runPython<TorchOut>(o.python ?? process.env.PYTHON ?? '/usr/bin/python3', script, [String(n), String(reps), vocabs.join(',')], 'log-softmax bench');
  const rows: BenchRow[] = [];
  for (const V of vocabs) {
    const size = `N ${n.toLocaleString('en-US')}, V ${V.toLocaleString('en-US')}`;
    const t = torch?.runs.find((r) => r.V === V);
    if (backend === 'wasm' && n * V * 4 > WASM_MAX_LOGITS) {
      rows.push({ name: `tokenLogProbs, wasm, ${size}`, frognanoMs: NaN, torchMs: t ? t.s * 1000 : NaN, ratio: NaN, note: 'skipped: the logits do not fit in the wasm heap (2 GB in tfjs 4.22)' });
      continue;
    }
    // written in place (tf ops would hold several [N, V] temporaries while building it)
    const vals = new Float32Array(n * V);
    for (let i = 0; i < n; i++) for (let v = 0; v < V; v++) vals[i * V + v] = Math.sin(i * 0.37 + v * 0.011) * 4;
    const logits = tf.tensor2d(vals, [n, V]);
    const targets = tf.tensor1d(Int32Array.from({ length: n }, (_, i) => (i * 7919) % V), 'int32');
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
    const logitsBytes = n * V * 4;
    const fused = await measure(reps, () => tokenLogProbs(logits, targets, { chunkSize, validate: false }));
    const agree = t === undefined || Math.abs(fused.sum - t.sum) <= 1e-4 * Math.abs(t.sum) + 1;
    if (!agree) throw new Error(`log-softmax bench: frognano and PyTorch disagree at V = ${V} (sum ${fused.sum} vs ${t!.sum})`);
    rows.push(row(`tokenLogProbs (host kernel), ${backend}, ${size}`, fused.ms, t?.s, `peak ${mb(fused.peak)} beyond the ${mb(logitsBytes)} of logits`));
    const chunked = await measure(reps, () => tf.tidy(() => tokenLogProbsUnchecked(logits, targets, chunkSize, 'chunked')));
    if (Math.abs(chunked.sum - fused.sum) > 1e-4 * Math.abs(chunked.sum) + 1) {
      throw new Error(`log-softmax bench: the host kernel and the chunked tfjs ops disagree at V = ${V} (sum ${fused.sum} vs ${chunked.sum})`);
    }
    rows.push(row(`tokenLogProbs, tfjs ops in chunks of ${chunkSize} (the webgpu path), ${backend}, ${size}`, chunked.ms, t?.s, `peak ${mb(chunked.peak)}`));
    if (4 * logitsBytes <= denseMax) {
      const dense = await measure(reps, () => tf.tidy(() => tokenLogProbsDense(logits, targets)));
      rows.push(row(`tokenLogProbs before issue 13 (whole-vocabulary logSoftmax + one-hot), ${backend}, ${size}`, dense.ms, t?.s, `peak ${mb(dense.peak)}`));
    } else {
      rows.push({ name: `tokenLogProbs before issue 13, ${backend}, ${size}`, frognanoMs: NaN, torchMs: t ? t.s * 1000 : NaN, ratio: NaN, note: `skipped: needs ~${mb(4 * logitsBytes)} of temporaries` });
    }
    tf.dispose([logits, targets]);
  }
  return rows;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const env = process.env;
  const rows = await runLogSoftmaxBench({
    n: Number(env.BENCH_LS_N ?? 4096),
    vocabs: (env.BENCH_LS_VOCABS ?? '32768,151936').split(',').map(Number),
    reps: Number(env.BENCH_LS_REPS ?? 3),
    backend: (env.BENCH_LS_BACKEND ?? 'cpu') as 'cpu' | 'wasm',
    chunkSize: Number(env.BENCH_LS_CHUNK ?? 4096),
  });
  printRows(rows, 'log-softmax + gather');
}
