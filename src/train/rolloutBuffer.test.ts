import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { isFresh, policyLag, RolloutBuffer } from './rolloutBuffer.js';

const g = (policyVersion: number, id = '') => ({ policyVersion, id });

describe('policyLag and the lag rule', () => {
  it('is the learner version minus the producing version', () => {
    expect(policyLag(4, 5)).toBe(1);
    expect(policyLag(7, 7)).toBe(0);
    expect(policyLag(0, 3)).toBe(3);
  });
  it('admits lag <= maxLag and nothing staler (maxLag 1 and 3, as FrogNano Table 2)', () => {
    expect(isFresh(4, 5, 1)).toBe(true);
    expect(isFresh(3, 5, 1)).toBe(false);
    expect(isFresh(2, 5, 3)).toBe(true);
    expect(isFresh(1, 5, 3)).toBe(false);
    expect(isFresh(5, 5, 0)).toBe(true);
    expect(isFresh(4, 5, 0)).toBe(false);
  });
  it('agrees with learner - producer <= maxLag (property)', () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.nat(5), (a, d, maxLag) => {
        expect(isFresh(a, a + d, maxLag)).toBe(d <= maxLag);
      }),
    );
  });
  it('rejects rollouts newer than the learner', () => expectFrognanoError(() => policyLag(6, 5), 'OUT_OF_RANGE', 'producedBy'));
  it('rejects a negative version', () => expectFrognanoError(() => policyLag(-1, 5), 'OUT_OF_RANGE', 'producedBy'));
  it('rejects a fractional learner version', () => expectFrognanoError(() => policyLag(1, 2.5), 'OUT_OF_RANGE', 'learnerVersion'));
  it('rejects a negative maxLag', () => expectFrognanoError(() => isFresh(1, 2, -1), 'OUT_OF_RANGE', 'maxLag'));
});

describe('RolloutBuffer', () => {
  it('takes fresh groups oldest first, at most count, and keeps the rest', () => {
    const b = new RolloutBuffer<ReturnType<typeof g>>({ maxLag: 1 });
    b.push(g(4, 'a'), g(4, 'b'), g(5, 'c'), g(5, 'd'));
    const r = b.take(3, 5);
    expect(r.fresh.map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(r.stale).toEqual([]);
    expect(b.contents().map((x) => x.id)).toEqual(['d']);
  });
  it('splits the next batch by the lag rule and hands the stale groups back', () => {
    const b = new RolloutBuffer<ReturnType<typeof g>>({ maxLag: 1 });
    b.push(g(2, 'old1'), g(4, 'a'), g(3, 'old2'), g(5, 'b'), g(1, 'later'));
    const r = b.take(4, 5);
    expect(r.fresh.map((x) => x.id)).toEqual(['a', 'b']);
    expect(r.stale.map((x) => x.id)).toEqual(['old1', 'old2']);
    // groups after the batch stay, even if stale: the next take or evictStale sees them
    expect(b.contents().map((x) => x.id)).toEqual(['later']);
    expect(b.evictStale(5).map((x) => x.id)).toEqual(['later']);
    expect(b.size).toBe(0);
  });
  it('with maxLag 3 admits what maxLag 1 rejects', () => {
    const b1 = new RolloutBuffer<ReturnType<typeof g>>({ maxLag: 1 });
    const b3 = new RolloutBuffer<ReturnType<typeof g>>({ maxLag: 3 });
    for (const b of [b1, b3]) b.push(g(2), g(3), g(4));
    expect(b1.take(3, 5)).toMatchObject({ fresh: [g(4)], stale: [g(2), g(3)] });
    expect(b3.take(3, 5)).toMatchObject({ fresh: [g(2), g(3), g(4)], stale: [] });
  });
  it('the next batch splits into fresh (lag <= maxLag) and stale, none lost (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(10), { maxLength: 30 }), fc.nat(4), fc.integer({ min: 1, max: 10 }), (versions, maxLag, count) => {
        const learner = 10;
        const b = new RolloutBuffer<{ policyVersion: number; k: number }>({ maxLag });
        b.push(...versions.map((v, k) => ({ policyVersion: v, k })));
        const { fresh, stale } = b.take(count, learner);
        expect(fresh.length + stale.length).toBe(Math.min(count, versions.length));
        for (const x of fresh) expect(learner - x.policyVersion).toBeLessThanOrEqual(maxLag);
        for (const x of stale) expect(learner - x.policyVersion).toBeGreaterThan(maxLag);
        const seen = [...fresh, ...stale, ...b.contents()].map((x) => x.k).sort((a, c) => a - c);
        expect(seen).toEqual(versions.map((_, k) => k));
      }),
    );
  });
  it('clear empties it', () => {
    const b = new RolloutBuffer();
    b.push(g(0), g(1));
    expect(b.clear()).toHaveLength(2);
    expect(b.size).toBe(0);
  });
  it('rejects a group without a policy version', () =>
    expectFrognanoError(() => new RolloutBuffer().push({ policyVersion: undefined as never }), 'INVALID_TYPE', 'policyVersion'));
  it('rejects a fractional maxLag', () => expectFrognanoError(() => new RolloutBuffer({ maxLag: 1.5 }), 'OUT_OF_RANGE', 'maxLag'));
});

/** `[[...[0]...]]`, `depth` levels deep. */
function deepNest(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Issue 12 (fuzz): versions that cannot be printed (no prototype, deep nests) give coded errors, not TypeErrors. */
describe('policyLag / isFresh: unprintable arguments', () => {
  it('policyLag(Object.create(null), 5) is INVALID_TYPE naming producedBy', () =>
    expect(expectFrognanoError(() => policyLag(Object.create(null) as never, 5), 'INVALID_TYPE', 'producedBy').field).toBe('producedBy'));
  it('policyLag(deepNest(10 000), 5) is INVALID_TYPE, not a stack overflow', () =>
    expect(expectFrognanoError(() => policyLag(deepNest(10_000) as never, 5), 'INVALID_TYPE').field).toBe('producedBy'));
  it('policyLag(1, NaN) is NON_FINITE naming learnerVersion', () => expect(expectFrognanoError(() => policyLag(1, NaN), 'NON_FINITE').field).toBe('learnerVersion'));
  it('isFresh(Object.create(null), 5, 1) is INVALID_TYPE naming producedBy', () =>
    expect(expectFrognanoError(() => isFresh(Object.create(null) as never, 5, 1), 'INVALID_TYPE').field).toBe('producedBy'));
  it('isFresh(3, 5, Object.create(null)) is INVALID_TYPE naming maxLag', () =>
    expect(expectFrognanoError(() => isFresh(3, 5, Object.create(null) as never), 'INVALID_TYPE').field).toBe('maxLag'));
  it('RolloutBuffer refuses an unprintable policyVersion with a coded error', () =>
    expectFrognanoError(() => new RolloutBuffer().push({ policyVersion: Object.create(null) as never }), 'INVALID_TYPE', 'policyVersion'));
});
