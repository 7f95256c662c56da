import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, finiteMatrix, isArrayLikeOfAny, parseOptions, sameLength, sameShape } from '../errors/validate.js';
import { flatGroupSizeFast } from './groupAdvantagesFast.js';
import { BAD, batchInto, CentredOverflow, copyChecked, type CoreOptions, groupInto, groupOf, groupsOf } from './groupAdvantagesCore.js';

/** Options of {@link groupAdvantages}. */
export const GroupAdvantagesOptionsSchema = z
  .object({
    /**
     * `'std'`: divide the centred reward by the group's `std + eps` (GRPO, FrogNano §4.1).
     * `'batch'`: divide by the std of the whole batch `+ eps` (TRL `scale_rewards='batch'`).
     * `'none'`: `A = R - mean` (GAGAR §3.1, Dr. GRPO). Default `'std'`.
     */
    scale: z.enum(['std', 'batch', 'none']).default('std'),
    /** `'sample'`: Bessel-corrected std (n - 1), as verl, TRL, slime and OpenRLHF (`torch.std`). `'population'`: divide by n. Default `'sample'`. */
    std: z.enum(['sample', 'population']).default('sample'),
    /** Added to the std before dividing. Default `1e-6` (verl's; TRL adds `1e-4`). Must be >= 0. */
    eps: z.number().min(0).default(1e-6),
    /**
     * The rewards the zero-variance filter looks at, same shape as the rewards
     * (rows for the nested form, one flat array for the flat form).
     * FrogNano filters on RAW task outcomes (0/1), not on shaped rewards: pass
     * the raw outcomes here and the shaped rewards as the rewards. Default: the rewards themselves.
     */
    filterBy: z.custom<readonly ArrayLike<number>[] | ArrayLike<number>>().optional(),
    /**
     * Flat form, TRL's grouping (`num_generations`): the rewards are one flat array
     * whose consecutive runs of `groupSize` rollouts are the groups. Integer >= 1
     * dividing the number of rewards.
     */
    groupSize: z.number().int().min(1).optional(),
    /**
     * Flat form, verl's grouping (`index`, the prompt uid of each rollout): rollouts
     * with the same id form a group, wherever they sit. One id (a number or a
     * string) per reward.
     */
    groupIds: z.custom<ArrayLike<number> | readonly string[]>().optional(),
  })
  .strict();
/** Options of {@link groupAdvantages} as the caller writes them. */
export type GroupAdvantagesOptions = z.input<typeof GroupAdvantagesOptionsSchema>;
/** Options of the flat form of {@link groupAdvantages}: one of `groupSize` / `groupIds` is required. */
export type FlatGroupAdvantagesOptions = GroupAdvantagesOptions & ({ groupSize: number } | { groupIds: ArrayLike<number> | readonly string[] });
type Parsed = z.output<typeof GroupAdvantagesOptionsSchema>;

/** Result of {@link groupAdvantages} on groups given as rows. */
export interface GroupAdvantagesResult {
  /** One advantage per rollout, same shape as the input groups; all 0 in a dropped group. */
  advantages: number[][];
  /** `kept[i]` is false when group `i` was dropped by the zero-variance filter. */
  kept: boolean[];
}

/** Result of the flat form of {@link groupAdvantages}. */
export interface FlatGroupAdvantagesResult {
  /** One advantage per rollout, in the input's order (float64); 0 in a dropped group. */
  advantages: Float64Array;
  /** One entry per rollout: 1 when its group was kept by the zero-variance filter, 0 when dropped. */
  kept: Uint8Array;
}

/**
 * Group-relative advantages with the zero-variance (dynamic-sampling) filter
 * (FrogNano §4.1; GAGAR §3.1; SPEC §2).
 *
 * For each group `R = (R_1..R_G)` of rollouts of one task:
 * ```
 * dropped  if every value of filterBy[i] (default groups[i]) is equal, or G = 1
 * A_j = (R_j - mean(R)) / (std(R) + eps)        scale = 'std'    (std: sample = Bessel n-1, or population)
 * A_j = (R_j - mean(R)) / (std(batch) + eps)    scale = 'batch'
 * A_j =  R_j - mean(R)                          scale = 'none'
 * ```
 * A dropped group has `kept = false` and all advantages 0: it carries no
 * learning signal. In a kept group the advantages sum to 0. When the shaped
 * rewards of a kept group are all equal while its raw outcomes are not (possible
 * with a `floor`), the std is 0: with `eps = 0` the advantages are then 0, not NaN.
 *
 * `scale: 'batch'` is TRL's `scale_rewards='batch'` (`GRPOTrainer`: `advantages =
 * (rewards - group_mean) / (rewards.std() + 1e-4)`): the group mean is subtracted,
 * and the std is that of every reward of the batch around the batch mean (not of
 * the centred rewards), Bessel-corrected like `torch.std` (`std: 'population'`
 * divides by n), dropped groups included (TRL has no filter; their advantages are
 * still 0 here), `eps` added to the std outside the square root. A batch of one
 * reward has std 0, as TRL. TRL's `eps` is `1e-4`: pass `eps: 1e-4` to match it
 * digit for digit.
 *
 * Two input forms:
 * - nested: `groups: number[][]`, one row per group (rows may differ in length,
 *   plain or typed arrays). Returns plain `number[][]` and `kept: boolean[]` per
 *   group, whatever the rows are (the result stays JSON-serialisable).
 * - flat, for batches as trainers hold them: `rewards` one `Float64Array`,
 *   `Float32Array` or `number[]`, with `groupSize` (TRL's `num_generations`:
 *   consecutive runs of `groupSize` rollouts) or `groupIds` (verl's `index`: the
 *   prompt uid of each rollout, groups in any order), and `filterBy` flat too.
 *   Returns `advantages: Float64Array` in the input's order and `kept: Uint8Array`
 *   with one 0/1 per rollout (its group's verdict), ready to use as a sample mask.
 *
 * Every value is checked in the same loop that sums it; a bad one is a coded
 * error naming it (`groups[i][j]`, `rewards[k]`, `opts.filterBy[...]`), the first
 * in the order rewards then filter.
 *
 * Numerics: each group (the whole batch for `'batch'`) is computed as if scaled
 * by a power of two `2^e` so that `max_j |R_j| 2^e` lies in [1, 2) (exact, and
 * undone exactly), so the mean and the std never overflow or underflow, whatever
 * the rewards' magnitude: `groupAdvantages([[1e200, 0]])` is `[0.7071, -0.7071]` and
 * `[[1.7e308, 1.7e308, 0]]` gives `[0.577, 0.577, -1.155]`. For rewards of
 * ordinary size (`max |R|` in `[2^-200, 2^200]`) the scaling changes no bit and
 * is skipped. With `eps = 0` the
 * std-scaled advantages are invariant to multiplying a group by any `c > 0`
 * (up to the rounding of `c R_j`); with `eps > 0` they are not (`eps` is in
 * reward units). With `scale: 'none'` a centred reward `R_j - mean` beyond the
 * float64 range (rewards spread over more than 1.8e308) is `OUT_OF_RANGE`,
 * never ±Infinity.
 *
 * Defaults: `scale 'std'`, `std 'sample'`, `eps 1e-6` (verl's `compute_grpo_outcome_advantage`
 * uses `torch.std`, i.e. Bessel-corrected, and `epsilon = 1e-6`).
 *
 * @param groups - rewards, one row per task group (rows may differ in length); or, with
 *   `groupSize` / `groupIds`, one flat array of rewards
 * @throws FrognanoError `INVALID_TYPE`, `NON_FINITE` (naming `groups[i][j]` / `rewards[k]`), `EMPTY_INPUT`
 *   (no groups or an empty group), `LENGTH_MISMATCH` (`filterBy` or `groupIds` shape, a length that
 *   `groupSize` does not divide), `OUT_OF_RANGE` (`eps < 0`, `groupSize < 1`; with `scale: 'none'`,
 *   a centred reward beyond the float64 range, naming `groups[i][j]` / `rewards[k]`)
 * @example
 * groupAdvantages([[1, 0, 0, 1], [1, 1, 1, 1]])
 * // { advantages: [[0.866, -0.866, -0.866, 0.866], [0, 0, 0, 0]], kept: [true, false] }
 * groupAdvantages(Float64Array.of(1, 0, 0, 1, 1, 1, 1, 1), { groupSize: 4 })
 * // { advantages: Float64Array [0.866, -0.866, -0.866, 0.866, 0, 0, 0, 0], kept: Uint8Array [1, 1, 1, 1, 0, 0, 0, 0] }
 */
export function groupAdvantages(groups: readonly ArrayLike<number>[], opts?: GroupAdvantagesOptions): GroupAdvantagesResult;
export function groupAdvantages(rewards: ArrayLike<number>, opts: FlatGroupAdvantagesOptions): FlatGroupAdvantagesResult;
export function groupAdvantages(
  groups: readonly ArrayLike<number>[] | ArrayLike<number>,
  opts: GroupAdvantagesOptions = {},
): GroupAdvantagesResult | FlatGroupAdvantagesResult {
  const fn = 'groupAdvantages';
  const p = parseOptions(fn, GroupAdvantagesOptionsSchema, opts);
  const o: CoreOptions = { scale: p.scale, sample: p.std === 'sample', eps: p.eps };
  if (p.groupSize !== undefined || p.groupIds !== undefined) return flatAdvantages(fn, groups as ArrayLike<number>, p, o);
  if (ArrayBuffer.isView(groups)) {
    throw new FrognanoError(
      ErrorCode.INVALID_TYPE,
      'groups is a flat array of rewards: pass opts.groupSize (TRL num_generations) or opts.groupIds (verl index), or one row per group',
      { fn, field: 'groups' },
    );
  }
  return nestedAdvantages(fn, groups as readonly ArrayLike<number>[], p, o);
}

/** The nested form: one row per group, computed on one flat float64 copy (checked while copied). */
function nestedAdvantages(fn: string, groups: readonly ArrayLike<number>[], p: Parsed, o: CoreOptions): GroupAdvantagesResult {
  const filter = p.filterBy as readonly ArrayLike<number>[] | undefined;
  // The canonical checks, in the documented order; run only once the fused loop found a problem.
  const checkAll = (): void => {
    finiteMatrix(fn, 'groups', groups, { minRows: 1, minCols: 1 });
    if (filter !== undefined) {
      finiteMatrix(fn, 'opts.filterBy', filter);
      sameShape(fn, 'groups', groups, 'opts.filterBy', filter);
    }
  };
  const refuse = (): never => {
    checkAll();
    throw new Error(`${fn}: internal error: the fused check refused an input the canonical one accepted`);
  };
  if (!Array.isArray(groups) || groups.length === 0) refuse();
  if (filter !== undefined && (!Array.isArray(filter) || filter.length !== groups.length)) refuse();
  const nGroups = groups.length;
  const starts = new Int32Array(nGroups + 1);
  for (let i = 0; i < nGroups; i++) {
    const row = groups[i];
    if (!isArrayLikeOfAny(row) || row.length === 0) refuse();
    if (filter !== undefined) {
      const f = filter[i];
      if (!isArrayLikeOfAny(f) || f.length !== row!.length) refuse();
    }
    starts[i + 1] = starts[i]! + row!.length;
  }
  const n = starts[nGroups]!;
  const r = new Float64Array(n);
  const f = filter !== undefined ? new Float64Array(n) : null;
  for (let i = 0; i < nGroups; i++) {
    if (!copyChecked(groups[i]!, r, starts[i]!)) refuse();
    if (f !== null && !copyChecked(filter![i]!, f, starts[i]!)) refuse();
  }
  const { out, keptG } = compute(r, f, starts, 0, o, refuse, (k) => {
    const i = groupOf(starts, k);
    checkAll(); // a bad value later on is reported first, as when every value was checked up front
    overflow(fn, `groups[${i}][${k - starts[i]!}]`, `groups[${i}]`, [i, k - starts[i]!]);
  });
  const advantages: number[][] = new Array(nGroups);
  const kept: boolean[] = new Array(nGroups);
  for (let i = 0; i < nGroups; i++) {
    const a = starts[i]!;
    const row = new Array<number>(starts[i + 1]! - a);
    for (let j = 0; j < row.length; j++) row[j] = out[a + j]!;
    advantages[i] = row;
    kept[i] = keptG[i] === 1;
  }
  return { advantages, kept };
}

/**
 * The advantages of the groups `r[starts[i] .. starts[i+1])` (or, `starts` null,
 * consecutive runs of `size`), and each group's verdict. `refuse` is called at a
 * value that is not a finite number, `overflowAt(k)` at a `'none'` centred reward beyond float64.
 */
function compute(
  r: Float64Array,
  f: Float64Array | null,
  starts: Int32Array | null,
  size: number,
  o: CoreOptions,
  refuse: () => never,
  overflowAt: (k: number) => never,
): { out: Float64Array; keptG: Uint8Array } {
  const n = r.length;
  const nGroups = starts ? starts.length - 1 : n / size;
  const out = new Float64Array(n);
  const keptG = new Uint8Array(nGroups);
  if (o.scale === 'batch') {
    const st = starts ?? Int32Array.from({ length: nGroups + 1 }, (_, i) => i * size);
    if (!batchInto(r, f, st, out, keptG, o)) refuse();
    return { out, keptG };
  }
  for (let i = 0; i < nGroups; i++) {
    const off = starts ? starts[i]! : i * size;
    const g = starts ? starts[i + 1]! - off : size;
    let st: number;
    try {
      st = groupInto(r, f, off, g, out, off, o);
    } catch (e) {
      if (e instanceof CentredOverflow) overflowAt(off + e.j);
      throw e;
    }
    if (st === BAD) refuse();
    keptG[i] = st;
  }
  return { out, keptG };
}

/** The flat form: one array of rewards, grouped by `groupSize` or `groupIds`. */
function flatAdvantages(fn: string, rewards: ArrayLike<number>, p: Parsed, o: CoreOptions): FlatGroupAdvantagesResult {
  if (!isArrayLikeOfAny(rewards)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `rewards must be a flat array or typed array of numbers, got ${describeValue(rewards)}`, { fn, field: 'rewards' });
  }
  const n = rewards.length;
  if (n === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'rewards must have at least 1 element, got 0', { fn, field: 'rewards' });
  if (p.groupSize !== undefined && p.groupIds !== undefined) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'give opts.groupSize or opts.groupIds, not both', { fn, field: 'opts.groupIds' });
  }
  const filter = p.filterBy as ArrayLike<number> | undefined;
  if (filter !== undefined) {
    if (!isArrayLikeOfAny(filter)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.filterBy must be a flat array of numbers (one per reward), got ${describeValue(filter)}`, { fn, field: 'opts.filterBy' });
    }
    sameLength(fn, 'rewards', rewards, 'opts.filterBy', filter);
  }
  const checkAll = (): void => {
    finiteArray(fn, 'rewards', rewards);
    if (filter !== undefined) finiteArray(fn, 'opts.filterBy', filter);
  };
  const refuse = (): never => {
    checkAll();
    throw new Error(`${fn}: internal error: the fused check refused an input the canonical one accepted`);
  };
  let size = 0;
  let starts: Int32Array | null = null;
  let order: Int32Array | null = null;
  if (p.groupSize !== undefined) {
    size = p.groupSize;
    if (n % size !== 0) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `rewards has length ${n}, not a multiple of opts.groupSize = ${size}`, { fn, field: 'opts.groupSize' });
    }
    // the common trainer batch: one monomorphic pass (null at anything unusual: the general path below)
    if (rewards instanceof Float64Array && o.scale !== 'batch' && (filter === undefined || filter instanceof Uint8Array || filter instanceof Float64Array)) {
      const fast = flatGroupSizeFast(rewards, filter ?? null, size, o);
      if (fast !== null) return fast;
    }
  } else {
    ({ starts, order } = groupsOf(fn, p.groupIds!, n));
  }
  // float64 copies in group order where the input is not that already (checked while copied)
  let r: Float64Array;
  let f: Float64Array | null = null;
  if (order === null) {
    r = rewards instanceof Float64Array ? rewards : new Float64Array(n);
    if (r !== rewards && !copyChecked(rewards, r, 0)) refuse();
    if (filter !== undefined) {
      f = filter instanceof Float64Array ? filter : new Float64Array(n);
      if (f !== filter && !copyChecked(filter, f, 0)) refuse();
    }
  } else {
    r = new Float64Array(n);
    f = filter !== undefined ? new Float64Array(n) : null;
    for (let k = 0; k < n; k++) {
      const src = order[k]!;
      const x = rewards[src];
      if (typeof x !== 'number' || x - x !== 0) refuse();
      r[k] = x!;
      if (f !== null) {
        const y = filter![src];
        if (typeof y !== 'number' || y - y !== 0) refuse();
        f[k] = y!;
      }
    }
  }
  const { out, keptG } = compute(r, f, starts, size, o, refuse, (k) => {
    const at = order ? order[k]! : k;
    checkAll();
    overflow(fn, `rewards[${at}]`, 'its group', [at]);
  });
  const kept = new Uint8Array(n);
  if (order === null) {
    for (let i = 0; i < keptG.length; i++) {
      if (keptG[i]) kept.fill(1, starts ? starts[i]! : i * size, starts ? starts[i + 1]! : (i + 1) * size);
    }
    return { advantages: out, kept };
  }
  const advantages = new Float64Array(n);
  for (let i = 0; i < keptG.length; i++) {
    const k = keptG[i]!;
    for (let t = starts![i]!; t < starts![i + 1]!; t++) {
      advantages[order[t]!] = out[t]!;
      kept[order[t]!] = k;
    }
  }
  return { advantages, kept };
}

function overflow(fn: string, where: string, group: string, index: number[]): never {
  throw new FrognanoError(
    ErrorCode.OUT_OF_RANGE,
    `${where} - mean(${group}) is beyond the float64 range (rewards spread over more than ${Number.MAX_VALUE}); scale the rewards down`,
    { fn, field: where, index },
  );
}
