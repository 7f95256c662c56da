/**
 * `npm run bench`: every benchmark that has a PyTorch reference, one markdown
 * table of ratios (PyTorch ms / frognano ms; > 1: frognano faster), same data
 * and same outputs on both sides, with the date, the machine and how busy the
 * host was while it ran (other load skews every figure).
 *
 * - `bench/advantage.bench.ts`: shapeRewards, groupAdvantages, broadcastToTokens at 1M elements;
 * - `bench/dppo-loss.bench.ts`: dppoMask and dppoLoss forward + backward;
 * - `bench/logsoftmax.bench.ts`: tokenLogProbs at N = 4,096, V = 32,768 and 151,936.
 *
 * `npm run bench` prints the markdown; `npm run bench -- --markdown FILE` also writes
 * it to FILE (e.g. `docs/performance-latest.md`, to paste into `docs/performance.md`);
 * `--only advantage,dppo,logsoftmax` runs a subset. The other `bench:*` scripts stay.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { type BenchRow, markdownRows } from './lib/row.js';
import { hostBusySince, hostTicks, pct } from './lib/stats.js';

interface Suite {
  key: string;
  title: string;
  run: () => Promise<BenchRow[]>;
}

const suites: Suite[] = [
  { key: 'advantage', title: 'typed-array primitives', run: async () => (await import('./advantage.bench.js')).runAdvantageBench() },
  { key: 'dppo', title: 'DPPO mask and loss', run: async () => (await import('./dppo-loss.bench.js')).runDppoBench() },
  { key: 'logsoftmax', title: 'log-softmax + gather', run: async () => (await import('./logsoftmax.bench.js')).runLogSoftmaxBench({ reps: 1 }) }, // ~15 min on cpu at V = 151,936: one timed forward
];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const only = arg('--only')?.split(',');
const file = arg('--markdown');
const started = new Date();
const ticks = hostTicks();
const rows: BenchRow[] = [];
const failures: string[] = [];
for (const s of suites) {
  if (only && !only.includes(s.key)) continue;
  console.error(`running ${s.key} (${s.title}) ...`);
  try {
    rows.push(...(await s.run()));
  } catch (e) {
    failures.push(`${s.key}: ${(e as Error).message}`);
  }
}
const busy = hostBusySince(ticks);
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const header = [
  `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.`,
  `Host CPU busy during the run: ${pct(busy)} (every process, this one included; a quiet 2-core host running one single-threaded bench shows ~50%, PyTorch's threads more).`,
  'Ratio = PyTorch ms / frognano ms (> 1: frognano faster); medians of repeated runs, same data and same outputs read back on both sides.',
].join('\n');
const md = `${header}\n\n${markdownRows(rows)}\n${failures.length ? `\nFailed: ${failures.join('; ')}\n` : ''}`;
console.log(md);
if (file) writeFileSync(file, md);
process.exit(failures.length ? 1 : 0);
