import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, isArrayLikeOfAny, sameLength } from '../errors/validate.js';
import { ldexp, unitExponent } from '../numeric/ldexp.js';

/**
 * The float64 arithmetic of `groupAdvantages`, one group at a time, with the
 * input check in the same loop as the sums (a caller that gets {@link BAD}
 * re-runs its canonical validator, which throws the coded error naming the
 * first bad element in the documented order). @internal
 * @module
 */

/** Returned by {@link groupInto} when a reward or filter value is not a finite number. */
export const BAD = -1;

/** The parsed options the core needs. */
export interface CoreOptions {
  /** `'std'`, `'batch'` or `'none'`. */
  scale: 'std' | 'batch' | 'none';
  /** Bessel-corrected std. */
  sample: boolean;
  /** Added to the std. */
  eps: number;
}

/**
 * Whether the unscaled formula gives, bit for bit, the numbers of the
 * power-of-two-scaled one (see `groupAdvantages`' Numerics): every value,
 * partial sum, square and `eps` then stays a normal float64 in both, and
 * rounding commutes with an exact power-of-two scaling. Checked per group:
 * `max|R|` in `[2^-200, 2^200]` and `eps` 0 or in `[2^-600, 2^600]`.
 */
export function plainScaleOk(max: number, eps: number): boolean {
  return max >= 2 ** -200 && max <= 2 ** 200 && (eps === 0 || (eps >= 2 ** -600 && eps <= 2 ** 600));
}

/** 1 when the finite values `f[off .. off+g)` are all equal, 0 when not, {@link BAD} at a value that is not a finite number. */
function filterEqual(f: Float64Array, off: number, g: number): number {
  const f0 = f[off]!;
  let eq = 1;
  for (let j = 0; j < g; j++) {
    const x = f[off + j]!;
    if (x - x !== 0) return BAD;
    if (x !== f0) eq = 0;
  }
  return eq;
}

/** What the last {@link scanGroup} found (module scratch: the core is synchronous). */
const scanned = { max: 0, sum: 0 };

/**
 * Pass 1 over the group `r[off .. off+g)`, shared by {@link groupInto} and {@link batchInto}:
 * checks every value is a finite number, folds `max |R|` into `max` and adds the values
 * one by one to `sum` (so a batch-wide sum is the same sequence of additions as one loop
 * over the batch), leaving both in {@link scanned}. Returns 1 when the values are all
 * equal, 0 when not, {@link BAD} at a value that is not a finite number.
 */
function scanGroup(r: Float64Array, off: number, g: number, max: number, sum: number): number {
  const r0 = r[off]!;
  let eq = 1;
  for (let j = off; j < off + g; j++) {
    const x = r[j]!;
    if (x - x !== 0) return BAD;
    const a = x < 0 ? -x : x;
    if (a > max) max = a;
    sum += x;
    if (x !== r0) eq = 0;
  }
  scanned.max = max;
  scanned.sum = sum;
  return eq;
}

/**
 * Advantages of the group `r[off .. off+g)` into `out[outOff .. outOff+g)`
 * (which the caller zero-filled), with the zero-variance filter on
 * `f[off .. off+g)` (`f === null`: on `r`). Scale `'std'` or `'none'`
 * (for `'batch'` see {@link batchInto}). Returns 1 kept, 0 dropped, {@link BAD}
 * when a value is not a finite number (nothing is written then), and throws
 * `OVERFLOW` (a string) for a `'none'` centred reward beyond float64.
 */
export function groupInto(r: Float64Array, f: Float64Array | null, off: number, g: number, out: Float64Array, outOff: number, o: CoreOptions): number {
  // pass 1: check, max |R|, sum, all-equal
  const eq = scanGroup(r, off, g, 0, 0);
  if (eq === BAD) return BAD;
  const { max, sum } = scanned;
  const rEq = eq === 1;
  let fEq = rEq;
  if (f !== null) {
    const s = filterEqual(f, off, g);
    if (s === BAD) return BAD;
    fEq = s === 1;
  }
  const kept = g > 1 && !fEq;
  // Equal rewards in a kept group (possible with filterBy): every R_j - mean is exactly 0.
  if (!kept || rEq) return kept ? 1 : 0;
  if (plainScaleOk(max, o.eps)) {
    const mean = sum / g;
    if (o.scale === 'none') {
      for (let j = 0; j < g; j++) out[outOff + j] = r[off + j]! - mean + 0;
      return 1;
    }
    let ss = 0;
    for (let j = 0; j < g; j++) {
      const d = r[off + j]! - mean;
      ss += d * d;
    }
    const denom = Math.sqrt(ss / (o.sample ? g - 1 : g)) + o.eps;
    if (denom === 0) return 1;
    for (let j = 0; j < g; j++) out[outOff + j] = (r[off + j]! - mean) / denom + 0;
    return 1;
  }
  scaledGroup(r, off, g, out, outOff, o, max);
  return 1;
}

/** Thrown (as a value) by the core for a `'none'` centred reward beyond float64, with its index in the group. */
export class CentredOverflow {
  constructor(readonly j: number) {}
}

/**
 * The group with `y = R 2^e`, `max |y|` in [1, 2): exact (a power of two), so
 * the sums can neither overflow (`|y| < 2`) nor underflow, undone exactly at the end.
 */
function scaledGroup(r: Float64Array, off: number, g: number, out: Float64Array, outOff: number, o: CoreOptions, max: number): void {
  const e = unitExponent(max);
  const y = new Float64Array(g);
  for (let j = 0; j < g; j++) y[j] = ldexp(r[off + j]!, e);
  let sum = 0;
  for (let j = 0; j < g; j++) sum += y[j]!;
  const mean = sum / g;
  if (o.scale === 'none') {
    for (let j = 0; j < g; j++) {
      const a = ldexp(y[j]! - mean, -e);
      if (a - a !== 0) throw new CentredOverflow(j);
      out[outOff + j] = a + 0;
    }
    return;
  }
  let ss = 0;
  for (let j = 0; j < g; j++) ss += (y[j]! - mean) ** 2;
  // std(y) = 2^e std(R) exactly (the scale is an even power of 2 in ss), so
  // (R_j - mean) / (std(R) + eps) = (y_j - mean_y) / (std(y) + eps 2^e).
  const sd = Math.sqrt(ss / (o.sample ? g - 1 : g));
  writeScaled(y, mean, sd, e, o.eps, g, out, outOff);
}

/** `(y_j - mean) / (sd + eps 2^e)` with `y = R 2^e`, sd in the same units; handles `eps 2^e` = Infinity. */
function writeScaled(y: Float64Array, mean: number, sd: number, e: number, eps: number, g: number, out: Float64Array, outOff: number): void {
  const epsY = ldexp(eps, e);
  if (epsY === Infinity) {
    // max |R| < 2^-1023 eps (subnormal rewards, eps >> std): A_j ~ (R_j - mean) / eps,
    // tiny: divide first, then scale back once (a single rounding into the subnormals).
    const den = ldexp(sd, -e) + eps;
    for (let j = 0; j < g; j++) out[outOff + j] = ldexp((y[j]! - mean) / den, -e) + 0;
    return;
  }
  const denom = sd + epsY;
  if (denom === 0) return;
  for (let j = 0; j < g; j++) out[outOff + j] = (y[j]! - mean) / denom + 0;
}

/**
 * Scale `'batch'` (TRL `scale_rewards='batch'`) over the groups
 * `r[starts[i] .. starts[i+1])`: `A_j = (R_j - mean(group)) / (std(all R) + eps)`,
 * the std over every reward of the batch (dropped groups included) around the
 * batch mean. Writes kept groups into `out` (zero-filled by the caller) and
 * `kept[i]`; returns false when a value is not a finite number.
 */
export function batchInto(r: Float64Array, f: Float64Array | null, starts: Int32Array, out: Float64Array, kept: Uint8Array, o: CoreOptions): boolean {
  const nGroups = starts.length - 1;
  const n = starts[nGroups]!;
  // pass 1: check, per-group filter, global max / sum
  let max = 0;
  let sum = 0;
  for (let i = 0; i < nGroups; i++) {
    const off = starts[i]!;
    const g = starts[i + 1]! - off;
    const eq = scanGroup(r, off, g, max, sum);
    if (eq === BAD) return false;
    ({ max, sum } = scanned);
    let fEq = eq === 1;
    if (f !== null) {
      const s = filterEqual(f, off, g);
      if (s === BAD) return false;
      fEq = s === 1;
    }
    kept[i] = g > 1 && !fEq ? 1 : 0;
  }
  const plain = plainScaleOk(max, o.eps);
  const e = plain ? 0 : unitExponent(max);
  const y = plain ? r : r.map((x) => ldexp(x, e));
  if (!plain) {
    sum = 0;
    for (let k = 0; k < n; k++) sum += y[k]!;
  }
  const meanAll = sum / n;
  let ss = 0;
  for (let k = 0; k < n; k++) {
    const d = y[k]! - meanAll;
    ss += d * d;
  }
  // TRL: a batch of one reward has std 0 (torch's Bessel std would be NaN)
  const sd = n > 1 || !o.sample ? Math.sqrt(ss / (o.sample ? n - 1 : n)) : 0;
  for (let i = 0; i < nGroups; i++) {
    if (!kept[i]) continue;
    const off = starts[i]!;
    const g = starts[i + 1]! - off;
    const yg = y.subarray(off, off + g);
    let s = 0;
    for (let j = 0; j < g; j++) s += yg[j]!;
    writeScaled(yg, s / g, sd, e, o.eps, g, out, off);
  }
  return true;
}

/** Copies `src` into `dst` at `at`; false at the first element that is not a finite number. */
export function copyChecked(src: ArrayLike<number>, dst: Float64Array, at: number): boolean {
  if (src instanceof Float64Array || src instanceof Float32Array) {
    for (let j = 0; j < src.length; j++) if (src[j]! - src[j]! !== 0) return false;
    dst.set(src, at);
    return true;
  }
  for (let j = 0; j < src.length; j++) {
    const x = src[j];
    if (typeof x !== 'number' || x - x !== 0) return false;
    dst[at + j] = x;
  }
  return true;
}

/** The group holding flat index `k` (binary search in `starts`). */
export function groupOf(starts: Int32Array, k: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * verl's grouping: the members of each distinct id, groups in order of first
 * appearance, members in input order (a counting sort: `order[starts[i] .. starts[i+1])`
 * are the input indices of group `i`). `order` is null when every id's rollouts are
 * already contiguous (then `starts` alone describes the groups, in input order).
 */
export function groupsOf(fn: string, ids: ArrayLike<number> | readonly string[], n: number): { starts: Int32Array; order: Int32Array | null } {
  if (!isArrayLikeOfAny(ids)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.groupIds must be an array of ids (numbers or strings), got ${describeValue(ids)}`, { fn, field: 'opts.groupIds' });
  }
  sameLength(fn, 'rewards', { length: n }, 'opts.groupIds', ids);
  const index = new Map<unknown, number>();
  const gid = new Int32Array(n);
  const counts: number[] = [];
  const list = ids as ArrayLike<unknown>;
  let contiguous = true; // every id's rollouts sit next to each other (verl repeats each uid n times in a row)
  let prev: unknown = undefined;
  let g = -1;
  for (let k = 0; k < n; k++) {
    const id = list[k];
    if (k > 0 && id === prev) {
      gid[k] = g;
      counts[g]!++;
      continue;
    }
    if (!(typeof id === 'string' || (typeof id === 'number' && id - id === 0))) {
      const code = typeof id === 'number' ? ErrorCode.NON_FINITE : ErrorCode.INVALID_TYPE;
      throw new FrognanoError(code, `opts.groupIds[${k}] must be a finite number or a string, got ${describeValue(id)}`, { fn, field: `opts.groupIds[${k}]`, index: [k] });
    }
    const seen = index.get(id);
    if (seen === undefined) {
      g = counts.length;
      index.set(id, g);
      counts.push(0);
    } else {
      g = seen;
      contiguous = false;
    }
    prev = id;
    gid[k] = g;
    counts[g]!++;
  }
  const starts = new Int32Array(counts.length + 1);
  for (let i = 0; i < counts.length; i++) starts[i + 1] = starts[i]! + counts[i]!;
  if (contiguous) return { starts, order: null };
  const next = starts.slice(0, counts.length);
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[next[gid[k]!]!++] = k;
  return { starts, order };
}
