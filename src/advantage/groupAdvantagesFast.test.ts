import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupAdvantages } from './groupAdvantages.js';
import { flatGroupSizeFast } from './groupAdvantagesFast.js';
import { expectSameOutcome, outcomeOf } from '../../test/helpers/sameOutcome.js';

/**
 * The fast path (Float64Array rewards, `groupSize`, Uint8Array / Float64Array / no
 * `filterBy`) against the general path, reached through the public function with the
 * same numbers as plain arrays: the same bits, or the same error (code, message, field, index).
 */

const edge = fc.constantFrom(0, -0, 1, 0.5, -1, 1e300, -1e300, 1.7e308, 1e-300, 5e-324, 2 ** 200, 2 ** 201, 2 ** -200, 2 ** -201, NaN, Infinity, -Infinity);
const ordinary = fc.oneof(fc.double({ min: -10, max: 10, noNaN: true }), fc.integer({ min: 0, max: 1 }), fc.constantFrom(0, 0.5, 1, 0.93));
const reward = fc.oneof({ weight: 6, arbitrary: ordinary }, { weight: 1, arbitrary: edge });
const flag = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 1 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) });
const filterValue = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 1 }) }, { weight: 1, arbitrary: edge });
const options = fc.record({
  scale: fc.constantFrom('std' as const, 'none' as const),
  std: fc.constantFrom('sample' as const, 'population' as const),
  eps: fc.constantFrom(1e-6, 0, 1e-4, 1e-200, 1e300),
});

describe('groupAdvantages: the Float64Array + groupSize fast path', () => {
  it('property: the same bits and the same errors as the general path (sizes 1-10, 8 included; edge values)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 3, 4, 5, 7, 8, 8, 8, 10),
        fc.integer({ min: 1, max: 12 }),
        fc.infiniteStream(reward),
        fc.infiniteStream(flag),
        fc.infiniteStream(filterValue),
        fc.constantFrom('none', 'u8', 'f64'),
        options,
        (size, groups, rs, fs, fvs, filterKind, o) => {
          const n = size * groups;
          const r = Float64Array.from(rs.take(n));
          const filter = filterKind === 'u8' ? Uint8Array.from(fs.take(n)) : filterKind === 'f64' ? Float64Array.from(fvs.take(n)) : undefined;
          const fast = outcomeOf(() => groupAdvantages(r, { groupSize: size, ...o, ...(filter ? { filterBy: filter } : {}) }));
          const general = outcomeOf(() => groupAdvantages(Array.from(r), { groupSize: size, ...o, ...(filter ? { filterBy: Array.from(filter) } : {}) }));
          expectSameOutcome(fast, general);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('property: the fast pass takes ordinary rewards (so the property above compares two paths)', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 3, 8), fc.integer({ min: 1, max: 8 }), fc.infiniteStream(ordinary), fc.infiniteStream(fc.integer({ min: 0, max: 1 })), (size, groups, rs, fs) => {
        const n = size * groups;
        const r = Float64Array.from(rs.take(n));
        const fast = flatGroupSizeFast(r, Uint8Array.from(fs.take(n)), size, { scale: 'std', sample: true, eps: 1e-6 });
        const plain = Array.from(r).every((x) => x === 0 || (Math.abs(x) >= 2 ** -200 && Math.abs(x) <= 2 ** 200));
        if (plain) expect(fast).not.toBeNull();
      }),
    );
  });

  it('bails out at a NaN in a dropped group of 8, and the general path names it', () => {
    const r = Float64Array.of(1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, NaN, 1, 1, 1, 1);
    const f = Uint8Array.of(1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    expect(flatGroupSizeFast(r, f, 8, { scale: 'std', sample: true, eps: 1e-6 })).toBeNull();
    const e = outcomeOf(() => groupAdvantages(r, { groupSize: 8, filterBy: f }));
    expect(e).toMatchObject({ ok: false, code: 'NON_FINITE', field: 'rewards[11]' });
  });

  it('groups of 8 with huge and tiny rewards go through the scaled numerics, bit for bit', () => {
    const r = Float64Array.of(1.7e308, 1.7e308, 0, 0, 1.7e308, 0, 0, 0, 5e-324, 0, 0, 0, 0, 0, 0, 1e-310);
    expect(flatGroupSizeFast(r, null, 8, { scale: 'std', sample: true, eps: 1e-6 })).toBeNull();
    expectSameOutcome(
      outcomeOf(() => groupAdvantages(r, { groupSize: 8 })),
      outcomeOf(() => groupAdvantages(Array.from(r), { groupSize: 8 })),
    );
  });
});
