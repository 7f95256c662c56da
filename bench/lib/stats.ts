/**
 * Helpers the benchmarks share: quantiles of repeated timings, a markdown
 * table, and how busy the whole host was (other load skews every figure).
 * @module
 */
import { readFileSync } from 'node:fs';

/** The `q` quantile of `xs` with linear interpolation between order statistics (NaN for none). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** The median of `xs`. */
export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/** A markdown table; `align` per column, right by default. */
export function table(head: string[], rows: string[][], align: ('l' | 'r')[] = []): string {
  const sep = head.map((_, i) => ((align[i] ?? 'r') === 'l' ? ':---' : '---:'));
  return [head, sep, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** Host-wide CPU ticks from /proc/stat: busy (all but idle and iowait) and total. */
export function hostTicks(): { busy: number; total: number } {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3]! - f[4]!, total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** Share of the host's CPU time that was busy since `from` (every process, other load included). */
export function hostBusySince(from: { busy: number; total: number }): number {
  const now = hostTicks();
  return (now.busy - from.busy) / (now.total - from.total);
}

/** A share as a percentage (`n/a` for NaN). */
export const pct = (x: number): string => (Number.isNaN(x) ? 'n/a' : `${(100 * x).toFixed(0)}%`);
