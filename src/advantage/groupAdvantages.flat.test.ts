import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { ldexp, unitExponent } from '../numeric/ldexp.js';
import { groupAdvantages } from './groupAdvantages.js';

/**
 * The per-group arithmetic of groupAdvantages before issue 13 (scaling every group
 * by 2^e, the filter on `f`), kept here as the reference the fused loop must match bit for bit.
 */
function reference(r: number[], f: number[], scale: 'std' | 'none', sample: boolean, eps: number): number[] {
  const g = r.length;
  const out = new Array<number>(g).fill(0);
  const allEqual = (xs: number[]) => xs.every((x) => x === xs[0]);
  if (!(g > 1 && !allEqual(f)) || allEqual(r)) return out;
  const e = unitExponent(Math.max(...r.map(Math.abs)));
  const y = r.map((x) => ldexp(x, e));
  let sum = 0;
  for (const v of y) sum += v;
  const mean = sum / g;
  if (scale === 'none') return y.map((v) => ldexp(v - mean, -e) + 0);
  let ss = 0;
  for (const v of y) ss += (v - mean) ** 2;
  const sd = Math.sqrt(ss / (sample ? g - 1 : g));
  const epsY = ldexp(eps, e);
  if (epsY === Infinity) {
    const den = ldexp(sd, -e) + eps;
    return y.map((v) => ldexp((v - mean) / den, -e) + 0);
  }
  const denom = sd + epsY;
  if (denom === 0) return out;
  return y.map((v) => (v - mean) / denom + 0);
}

const reward = fc.oneof(
  fc.double({ min: -10, max: 10, noNaN: true }),
  fc.integer({ min: 0, max: 1 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1.7e308, -1e300, 1e-300, 5e-324, 2 ** -201, 2 ** 200, 2 ** 201, 0, -0),
);

describe('groupAdvantages: the fused loop gives the numbers of the scaled reference', () => {
  it('property: bit for bit, whatever the magnitude, scale std/none, sample/population, eps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(reward, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<'std' | 'none'>('std', 'none'),
        fc.boolean(),
        fc.constantFrom(0, 1e-6, 1e-4, 1e300, 5e-324, 2 ** -601, 2 ** 601),
        (groups, scale, sample, eps) => {
          let got;
          try {
            got = groupAdvantages(groups, { scale, std: sample ? 'sample' : 'population', eps });
          } catch (e) {
            expect((e as { code?: string }).code).toBe('OUT_OF_RANGE');
            return;
          }
          groups.forEach((r, i) => {
            const want = reference(r, r, scale, sample, eps);
            got.advantages[i]!.forEach((a, j) => expect(Object.is(a, want[j])).toBe(true));
          });
        },
      ),
      { numRuns: 500, seed: 1301 },
    );
  });
});

describe('groupAdvantages: flat form (groupSize, TRL num_generations)', () => {
  it('matches the nested form, returns Float64Array advantages and one kept flag per rollout', () => {
    const r = Float64Array.of(1, 0, 0, 1, 1, 1, 1, 1, 0.2, 0.9, 0.4, 0.4);
    const raw = Uint8Array.of(1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 1);
    const flat = groupAdvantages(r, { groupSize: 4, filterBy: raw });
    const nested = groupAdvantages([[1, 0, 0, 1], [1, 1, 1, 1], [0.2, 0.9, 0.4, 0.4]], { filterBy: [[1, 0, 0, 1], [1, 1, 1, 1], [0, 1, 0, 1]] });
    expect(flat.advantages).toBeInstanceOf(Float64Array);
    expect(flat.kept).toBeInstanceOf(Uint8Array);
    expect(Array.from(flat.advantages)).toEqual(nested.advantages.flat());
    expect(Array.from(flat.kept)).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1]);
  });
  it('a Float32Array and a plain number[] give the float64 result of their values', () => {
    const v = [0.1, 0.7, 0.3, 0.3];
    const f32 = groupAdvantages(Float32Array.from(v), { groupSize: 2 });
    const want = groupAdvantages([Array.from(Float32Array.from(v.slice(0, 2))), Array.from(Float32Array.from(v.slice(2)))]);
    expect(Array.from(f32.advantages)).toEqual(want.advantages.flat());
    expect(Array.from(groupAdvantages(v, { groupSize: 2 }).advantages)).toEqual(groupAdvantages([v.slice(0, 2), v.slice(2)]).advantages.flat());
  });
  it('property: flat with groupSize = nested rows, for every scale', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<'std' | 'none' | 'batch'>('std', 'none', 'batch'),
        fc.infiniteStream(fc.double({ min: -5, max: 5, noNaN: true })),
        (size, groups, scale, vals) => {
          const it = vals[Symbol.iterator]();
          const rows = Array.from({ length: groups }, () => Array.from({ length: size }, () => it.next().value as number));
          const nested = groupAdvantages(rows, { scale });
          const flat = groupAdvantages(Float64Array.from(rows.flat()), { groupSize: size, scale });
          expect(Array.from(flat.advantages)).toEqual(nested.advantages.flat());
          expect(Array.from(flat.kept)).toEqual(nested.kept.flatMap((k) => new Array<number>(size).fill(k ? 1 : 0)));
        },
      ),
      { numRuns: 200, seed: 1302 },
    );
  });
  it('does not mutate its inputs', () => {
    const r = Float64Array.of(3, 1, 2, 2);
    groupAdvantages(r, { groupSize: 2 });
    expect(Array.from(r)).toEqual([3, 1, 2, 2]);
  });
  it('rejects a length groupSize does not divide', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0, 1), { groupSize: 2 }), 'LENGTH_MISMATCH', 'opts.groupSize'));
  it('rejects groupSize 0', () => expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0), { groupSize: 0 }), 'OUT_OF_RANGE', 'opts.groupSize'));
  it('rejects a fractional groupSize', () => expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0), { groupSize: 1.5 }), 'OUT_OF_RANGE', 'opts.groupSize'));
  it('rejects NaN, naming the rollout', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0, 0, NaN), { groupSize: 2 }), 'NON_FINITE', 'rewards[3]'));
  it('rejects a string in a plain array', () =>
    expectFrognanoError(() => groupAdvantages([1, 0, '1' as never, 0], { groupSize: 2 }), 'INVALID_TYPE', 'rewards[2]'));
  it('rejects Infinity in filterBy, naming it', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0, 0, 1), { groupSize: 2, filterBy: [1, 0, Infinity, 1] }), 'NON_FINITE', 'opts.filterBy[2]'));
  it('reports the reward before the filter', () =>
    expectFrognanoError(() => groupAdvantages([1, 0, 0, NaN], { groupSize: 2, filterBy: [NaN, 0, 0, 1] }), 'NON_FINITE', 'rewards[3]'));
  it('rejects a filterBy of another length', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0), { groupSize: 2, filterBy: [1] }), 'LENGTH_MISMATCH', 'opts.filterBy'));
  it('rejects nested filterBy rows in the flat form', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0), { groupSize: 2, filterBy: [[1, 0]] as never }), 'LENGTH_MISMATCH', 'opts.filterBy'));
  it('rejects empty rewards', () => expectFrognanoError(() => groupAdvantages(new Float64Array(0), { groupSize: 2 }), 'EMPTY_INPUT', 'rewards'));
  it('rejects a non-array', () => expectFrognanoError(() => groupAdvantages(7 as never, { groupSize: 2 }), 'INVALID_TYPE', 'rewards'));
  it('rejects groupSize and groupIds together', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0), { groupSize: 2, groupIds: [0, 0] } as never), 'INVALID_TYPE', 'opts.groupIds'));
  it('rejects a typed array without groupSize or groupIds, saying what to pass', () =>
    expectFrognanoError(() => groupAdvantages(Float64Array.of(1, 0) as never), 'INVALID_TYPE', 'groupSize', 'groupIds'));
  it("rejects a 'none' centred reward beyond float64, naming the rollout", () =>
    expectFrognanoError(() => groupAdvantages([0, 1, 0, 1.7e308, -1.7e308, -1.7e308], { groupSize: 3, scale: 'none' }), 'OUT_OF_RANGE', 'rewards[3]'));
});

describe('groupAdvantages: flat form (groupIds, verl index)', () => {
  it('groups by id wherever the rollouts sit, results in input order', () => {
    const r = [1, 5, 0, 7, 6];
    const ids = ['a', 'b', 'a', 'b', 'b'];
    const got = groupAdvantages(r, { groupIds: ids });
    const [ga, gb] = groupAdvantages([[1, 0], [5, 7, 6]]).advantages;
    expect(Array.from(got.advantages)).toEqual([ga![0], gb![0], ga![1], gb![1], gb![2]]);
    expect(Array.from(got.kept)).toEqual([1, 1, 1, 1, 1]);
  });
  it('numeric ids, a singleton group dropped, filterBy permuted with the rewards', () => {
    const got = groupAdvantages(Float64Array.of(0.5, 0.9, 0.2, 0.1), { groupIds: Int32Array.of(3, 9, 3, 3), filterBy: Uint8Array.of(1, 1, 1, 1) });
    expect(Array.from(got.kept)).toEqual([0, 0, 0, 0]);
    expect(Array.from(got.advantages)).toEqual([0, 0, 0, 0]);
  });
  it('property: shuffling the rollouts with their ids shuffles the advantages the same way', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min: -3, max: 3, noNaN: true })), { minLength: 1, maxLength: 20 }),
        fc.constantFrom<'std' | 'none' | 'batch'>('std', 'none', 'batch'),
        (rows, scale) => {
          const sorted = [...rows.keys()].sort((a, b) => rows[a]![0] - rows[b]![0] || a - b);
          const byId = groupAdvantages(rows.map((x) => x[1]), { groupIds: rows.map((x) => x[0]), scale });
          const rowsOf = [...new Set(sorted.map((k) => rows[k]![0]))].map((id) => sorted.filter((k) => rows[k]![0] === id));
          const nested = groupAdvantages(rowsOf.map((ks) => ks.map((k) => rows[k]![1])), { scale });
          // 'batch' sums the whole batch, in another order here: equal up to rounding
          const same = (a: number, b: number) => (scale === 'batch' ? expect(a).toBeCloseTo(b, 12) : expect(a).toBe(b));
          rowsOf.forEach((ks, i) => ks.forEach((k, j) => same(byId.advantages[k]!, nested.advantages[i]![j]!)));
        },
      ),
      { numRuns: 200, seed: 1303 },
    );
  });
  it('rejects an id list of another length', () =>
    expectFrognanoError(() => groupAdvantages([1, 0], { groupIds: [0] }), 'LENGTH_MISMATCH', 'opts.groupIds'));
  it('rejects a NaN id', () => expectFrognanoError(() => groupAdvantages([1, 0], { groupIds: [0, NaN] }), 'NON_FINITE', 'opts.groupIds[1]'));
  it('rejects an object id', () => expectFrognanoError(() => groupAdvantages([1, 0], { groupIds: [0, {}] as never }), 'INVALID_TYPE', 'opts.groupIds[1]'));
  it('rejects NaN in the rewards, naming the rollout in input order', () =>
    expectFrognanoError(() => groupAdvantages([1, 0, NaN], { groupIds: [1, 0, 1] }), 'NON_FINITE', 'rewards[2]'));
});

describe("groupAdvantages: scale 'batch' (TRL scale_rewards='batch')", () => {
  // TRL GRPOTrainer: (rewards - rewards.view(-1, G).mean(1).repeat_interleave(G)) / (rewards.std() + 1e-4).
  // The numbers are torch 1.13's for that expression on these inputs (float64).
  it("gives TRL's numbers with eps 1e-4", () => {
    const a = groupAdvantages(Float64Array.of(1, 0, 0, 1, 1, 1, 1, 0), { groupSize: 4, scale: 'batch', eps: 1e-4 }).advantages;
    const trl = [0.9659051524730883, -0.9659051524730883, -0.9659051524730883, 0.9659051524730883, 0.48295257623654414, 0.48295257623654414, 0.48295257623654414, -1.4488577287096325];
    a.forEach((x, i) => expect(x).toBeCloseTo(trl[i]!, 14));
    const b = groupAdvantages([[0.3, 0.9, 0.1], [0.5, 0.7, 0.2]], { scale: 'batch', eps: 1e-4 }).advantages.flat();
    const trl2 = [-0.4324501509925757, 1.5135755284740149, -1.0811253774814393, 0.10811253774814407, 0.7567877642370074, -0.8649003019851511];
    b.forEach((x, i) => expect(x).toBeCloseTo(trl2[i]!, 14));
  });
  it('the std is over every reward around the batch mean (hand check), dropped groups stay 0', () => {
    // rewards [1,0 | 1,1]: batch mean 0.75, sample std sqrt((3 * 0.0625 + 0.5625) / 3) = 0.5
    const { advantages, kept } = groupAdvantages([[1, 0], [1, 1]], { scale: 'batch', eps: 0 });
    expect(kept).toEqual([true, false]);
    expect(advantages).toEqual([[1, -1], [0, 0]]);
    const pop = groupAdvantages([[1, 0], [1, 1]], { scale: 'batch', eps: 0, std: 'population' }).advantages[0]!;
    expect(pop[0]).toBeCloseTo(0.5 / Math.sqrt(0.1875), 14);
  });
  it('huge rewards stay finite (the batch is scaled by a power of two)', () => {
    const a = groupAdvantages([[1.7e308, -1.7e308], [1.7e308, 1.7e308]], { scale: 'batch' }).advantages[0]!;
    expect(a.every(Number.isFinite)).toBe(true);
    expect(a[0]).toBeCloseTo(1.7 / Math.sqrt((3 * 0.85 ** 2 + 2.55 ** 2) / 3) / 2 * 2, 9);
  });
  it('rejects NaN anywhere in the batch', () => expectFrognanoError(() => groupAdvantages([[1, 0], [0, NaN]], { scale: 'batch' }), 'NON_FINITE', 'groups[1][1]'));
});
