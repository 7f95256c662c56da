/**
 * The fast path of the flat {@link groupAdvantages} with `groupSize` (TRL's
 * `num_generations`) on a `Float64Array` of rewards, `filterBy` absent, a `Uint8Array`
 * (raw 0/1 outcomes) or a `Float64Array`, scale `'std'` or `'none'`: one monomorphic
 * pass per group that checks the rewards while it sums them, then the GRPO advantage
 * of SPEC §2 / FrogNano §4.1,
 * ```
 * A_j = (R_j - mean(R)) / (std(R) + eps)   ('std';  'none': R_j - mean(R))
 * ```
 * with the very same float64 operations, in the same order, as `groupInto` of
 * `groupAdvantagesCore.ts` for rewards of ordinary size, so every bit agrees. It takes
 * no unusual input: at a value that is not a finite number (seen as a sum that is not
 * finite: a sum beyond float64 bails out too), or a kept group whose `max |R|` may lie
 * outside `[2^-200, 2^200]` (the power-of-two-scaled numerics), it returns null and the
 * caller runs the general path, which computes or throws the coded error.
 * No allocation per group, no closure, no generic array access in the loop.
 * @internal
 * @module
 */
import { type CoreOptions, plainScaleOk } from './groupAdvantagesCore.js';

/** The flat result: one advantage and one 0/1 kept flag per rollout. */
export interface FlatFastResult {
  /** Advantages in the input's order. */
  advantages: Float64Array;
  /** 1 where the rollout's group was kept. */
  kept: Uint8Array;
}

/** The verdict of each group from a `Uint8Array` filter: 1 when its values are not all equal (and `size > 1`). */
function keptByU8(f: Uint8Array, size: number, keptG: Uint8Array): void {
  for (let i = 0, off = 0; i < keptG.length; i++, off += size) {
    const f0 = f[off]!;
    let diff = 0;
    for (let j = off + 1; j < off + size; j++) diff |= f[j]! ^ f0;
    keptG[i] = diff !== 0 ? 1 : 0;
  }
}

/** As {@link keptByU8} for a `Float64Array` filter; false at a value that is not finite. */
function keptByF64(f: Float64Array, size: number, keptG: Uint8Array): boolean {
  for (let i = 0, off = 0; i < keptG.length; i++, off += size) {
    const f0 = f[off]!;
    let eq = 1;
    for (let j = off; j < off + size; j++) {
      const x = f[j]!;
      if (x - x !== 0) return false;
      if (x !== f0) eq = 0;
    }
    keptG[i] = size > 1 && eq === 0 ? 1 : 0;
  }
  return true;
}

/**
 * The advantages of `r` in consecutive groups of `size` (`r.length` a multiple of it),
 * the zero-variance filter on `filter` (null: on `r`). Null when the input needs the
 * general path (see the module doc); `o.scale` must be `'std'` or `'none'`.
 */
export function flatGroupSizeFast(r: Float64Array, filter: Uint8Array | Float64Array | null, size: number, o: CoreOptions): FlatFastResult | null {
  const n = r.length;
  const eps = o.eps;
  if (!plainScaleOk(1, eps)) return null; // eps outside the plain range: the scaled numerics
  const nGroups = n / size;
  const keptG = new Uint8Array(nGroups);
  const byFilter = filter !== null;
  if (filter instanceof Uint8Array) keptByU8(filter, size, keptG);
  else if (filter instanceof Float64Array && !keptByF64(filter, size, keptG)) return null;
  const none = o.scale === 'none';
  const dof = o.sample ? size - 1 : size;
  const out = new Float64Array(n);
  const kept = new Uint8Array(n);
  if (size === 8 && !none) return groupsOf8(r, byFilter ? keptG : null, dof, eps, out, kept) ? { advantages: out, kept } : null;
  for (let i = 0, off = 0; i < nGroups; i++, off += size) {
    const end = off + size;
    // sum, sum of squares, all-equal
    const r0 = r[off]!;
    let sq = 0;
    let sum = 0;
    let eq = 1;
    for (let j = off; j < end; j++) {
      const x = r[j]!;
      sum += x;
      sq += x * x;
      if (x !== r0) eq = 0;
    }
    if (sum - sum !== 0) return null; // a value that is not finite (or a sum beyond float64)
    const k = byFilter ? keptG[i]! : size > 1 && eq === 0 ? 1 : 0;
    if (k === 0) continue;
    for (let j = off; j < end; j++) kept[j] = 1;
    if (eq === 1) continue; // equal rewards in a kept group: every R_j - mean is 0
    if (!plainSquares(sq, size) && !plainMax(r, off, end)) return null;
    const mean = sum / size;
    if (none) {
      for (let j = off; j < end; j++) out[j] = r[j]! - mean + 0;
      continue;
    }
    let ss = 0;
    for (let j = off; j < end; j++) {
      const d = r[j]! - mean;
      ss += d * d;
    }
    const denom = Math.sqrt(ss / dof) + eps;
    if (denom === 0) continue;
    for (let j = off; j < end; j++) out[j] = (r[j]! - mean) / denom + 0;
  }
  return { advantages: out, kept };
}

/**
 * A cheap sufficient test that `max |R|` lies in `[2^-200, 2^200]` (`plainScaleOk`)
 * from `sq = sum R_j^2` (computed in float64) over `g` values: `max^2 <= sq` and
 * `max^2 >= sq / g`, with a factor-2 margin for rounding. False does not mean the
 * group is out of range: then {@link plainMax} decides.
 */
function plainSquares(sq: number, g: number): boolean {
  return sq < 2 ** 399 && sq > g * 2 ** -399;
}

/** Whether `max |r[off .. end)|` lies in `[2^-200, 2^200]`, exactly. */
function plainMax(r: Float64Array, off: number, end: number): boolean {
  let max = 0;
  for (let j = off; j < end; j++) {
    const a = r[j]! < 0 ? -r[j]! : r[j]!;
    if (a > max) max = a;
  }
  return max >= 2 ** -200 && max <= 2 ** 200;
}

/**
 * Scale `'std'` in groups of 8 (TRL's default `num_generations`, and verl's common
 * `rollout.n`), written out: each value is loaded once into a local, no inner loop,
 * the eight divisions independent. The same operations in the same order as the
 * loop of {@link flatGroupSizeFast} (sums from 0, left to right), so the same bits.
 * `keptG` null: the filter runs on the rewards. False where the loop would return null.
 */
function groupsOf8(r: Float64Array, keptG: Uint8Array | null, dof: number, eps: number, out: Float64Array, kept: Uint8Array): boolean {
  const nGroups = r.length >> 3;
  for (let i = 0, o = 0; i < nGroups; i++, o += 8) {
    const x0 = r[o]!;
    const x1 = r[o + 1]!;
    const x2 = r[o + 2]!;
    const x3 = r[o + 3]!;
    const x4 = r[o + 4]!;
    const x5 = r[o + 5]!;
    const x6 = r[o + 6]!;
    const x7 = r[o + 7]!;
    const sum = 0 + x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (sum - sum !== 0) return false; // a value that is not finite (or a sum beyond float64)
    const eq = x1 === x0 && x2 === x0 && x3 === x0 && x4 === x0 && x5 === x0 && x6 === x0 && x7 === x0;
    if (keptG !== null ? keptG[i] === 0 : eq) continue;
    kept[o] = 1;
    kept[o + 1] = 1;
    kept[o + 2] = 1;
    kept[o + 3] = 1;
    kept[o + 4] = 1;
    kept[o + 5] = 1;
    kept[o + 6] = 1;
    kept[o + 7] = 1;
    if (eq) continue; // equal rewards in a kept group: every R_j - mean is 0
    const sq = 0 + x0 * x0 + x1 * x1 + x2 * x2 + x3 * x3 + x4 * x4 + x5 * x5 + x6 * x6 + x7 * x7;
    if (!plainSquares(sq, 8) && !plainMax(r, o, o + 8)) return false;
    const mean = sum / 8;
    const d0 = x0 - mean;
    const d1 = x1 - mean;
    const d2 = x2 - mean;
    const d3 = x3 - mean;
    const d4 = x4 - mean;
    const d5 = x5 - mean;
    const d6 = x6 - mean;
    const d7 = x7 - mean;
    const ss = 0 + d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6 + d7 * d7;
    const denom = Math.sqrt(ss / dof) + eps;
    if (denom === 0) continue;
    out[o] = d0 / denom + 0;
    out[o + 1] = d1 / denom + 0;
    out[o + 2] = d2 / denom + 0;
    out[o + 3] = d3 / denom + 0;
    out[o + 4] = d4 / denom + 0;
    out[o + 5] = d5 / denom + 0;
    out[o + 6] = d6 / denom + 0;
    out[o + 7] = d7 / denom + 0;
  }
  return true;
}
