/**
 * What every benchmark of the umbrella table (`bench/run-all.ts`) returns, and
 * the timing loop they share.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { median } from './stats.js';

/** One row of the umbrella table. */
export interface BenchRow {
  /** The work, its input form and size. */
  name: string;
  /** frognano's median, milliseconds. */
  frognanoMs: number;
  /** PyTorch's median on the same data, milliseconds; `NaN` when PyTorch is not available. */
  torchMs: number;
  /** PyTorch time / frognano time (> 1: frognano is faster); `NaN` without PyTorch. */
  ratio: number;
  /** Anything else the row should say (peak memory, agreement). */
  note?: string;
}

/** Median milliseconds of `reps` runs of `f` after `warm` unmeasured ones, and the last result. */
export function timeMs<T>(reps: number, f: () => T, warm = 3): { ms: number; last: T } {
  let last = f();
  for (let i = 1; i < warm; i++) last = f();
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    last = f();
    ts.push(performance.now() - t0);
  }
  return { ms: median(ts), last };
}

/** Runs a Python reference script and parses its one JSON line; `null` (with one line on stderr) when python3 or torch is missing. */
export function runPython<T>(python: string, script: string, args: string[], what: string): T | null {
  try {
    const out = execFileSync(python, [script, ...args], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] });
    return JSON.parse(out.trim().split('\n').pop()!) as T;
  } catch (e) {
    const msg = ((e as { stderr?: string }).stderr ?? (e as Error).message).trim().split('\n').pop();
    console.error(`${what}: PyTorch reference skipped (${python} with torch: apt-get install python3-torch): ${msg}`);
    return null;
  }
}

/** A row from frognano's time and PyTorch's (seconds or `undefined`). */
export function row(name: string, frognanoMs: number, torchS: number | undefined, note?: string): BenchRow {
  const torchMs = torchS === undefined ? NaN : torchS * 1000;
  return { name, frognanoMs, torchMs, ratio: torchMs / frognanoMs, ...(note ? { note } : {}) };
}

/** A figure for the table: `12.3`, or `n/a` for NaN. */
const fig = (x: number, unit = ''): string => (Number.isNaN(x) ? 'n/a' : `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}${unit}`);

/** The rows as one markdown table: work, frognano ms, PyTorch ms, ratio, note. */
export function markdownRows(rows: readonly BenchRow[]): string {
  const head = '| work | frognano ms | PyTorch ms | ratio | note |\n| :--- | ---: | ---: | ---: | :--- |';
  return [head, ...rows.map((r) => `| ${r.name} | ${fig(r.frognanoMs)} | ${fig(r.torchMs)} | ${fig(r.ratio, 'x')} | ${r.note ?? ''} |`)].join('\n');
}

/** Prints a title and the rows' table (a bench run alone). */
export function printRows(rows: readonly BenchRow[], title: string): void {
  console.log(`${title} (ratio = PyTorch ms / frognano ms; > 1: frognano faster)\n`);
  console.log(markdownRows(rows));
}
