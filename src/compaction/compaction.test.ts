import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { compactionBudget } from './compactionBudget.js';
import { DEFAULT_COMPACTION_RHO } from './compactionParameters.js';
import { shouldCompact } from './shouldCompact.js';
import { truncateHistoryToBudget } from './truncateHistoryToBudget.js';
import { validateCompactionConfig } from './validateCompactionConfig.js';

describe('compactionBudget', () => {
  it('C = W - tau(P) - floor(alpha W) (hand-computed, the paper windows)', () => {
    // floor(0.2 * 32768) = floor(6553.6) = 6553
    expect(compactionBudget({ window: 32768, promptTokens: 300 })).toBe(25915);
    // floor(0.2 * 16384) = 3276
    expect(compactionBudget({ window: 16384, promptTokens: 150 })).toBe(16384 - 150 - 3276);
    // floor(0.2 * 65536) = 13107
    expect(compactionBudget({ window: 65536, promptTokens: 0 })).toBe(52429);
  });
  it('alpha is configurable; alpha = 0 reserves nothing', () => {
    expect(compactionBudget({ window: 1000, promptTokens: 100, alpha: 0.5 })).toBe(400);
    expect(compactionBudget({ window: 1000, promptTokens: 100, alpha: 0 })).toBe(900);
    // float64 floor, as Python's math.floor: 0.57 * 100 = 56.99999999999999 -> 56
    expect(compactionBudget({ window: 100, promptTokens: 0, alpha: 0.57 })).toBe(44);
  });
  it('never below 1', () => {
    expect(compactionBudget({ window: 1000, promptTokens: 800 })).toBe(1);
    expect(compactionBudget({ window: 1000, promptTokens: 799 })).toBe(1);
    expect(compactionBudget({ window: 1000, promptTokens: 798 })).toBe(2);
    expect(compactionBudget({ window: 1, promptTokens: 0 })).toBe(1);
  });
  it('is an integer >= 1, non-increasing in promptTokens (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 20 }), fc.nat(1 << 20), fc.double({ min: 0, max: 0.999, noNaN: true }), (W, P, alpha) => {
        const c = compactionBudget({ window: W, promptTokens: P, alpha });
        expect(Number.isInteger(c)).toBe(true);
        expect(c).toBeGreaterThanOrEqual(1);
        expect(compactionBudget({ window: W, promptTokens: P + 1, alpha })).toBeLessThanOrEqual(c);
      }),
    );
  });
  it('rejects window 0', () => expectFrognanoError(() => compactionBudget({ window: 0, promptTokens: 0 }), 'OUT_OF_RANGE', 'opts.window'));
  it('rejects negative promptTokens', () =>
    expectFrognanoError(() => compactionBudget({ window: 10, promptTokens: -1 }), 'OUT_OF_RANGE', 'opts.promptTokens'));
  it('rejects fractional promptTokens', () =>
    expectFrognanoError(() => compactionBudget({ window: 10, promptTokens: 1.5 }), 'OUT_OF_RANGE', 'opts.promptTokens'));
  it('rejects alpha = 1', () => expectFrognanoError(() => compactionBudget({ window: 10, promptTokens: 0, alpha: 1 }), 'OUT_OF_RANGE', 'opts.alpha'));
  it('rejects alpha < 0', () => expectFrognanoError(() => compactionBudget({ window: 10, promptTokens: 0, alpha: -0.1 }), 'OUT_OF_RANGE', 'opts.alpha'));
  it('rejects NaN window', () => expectFrognanoError(() => compactionBudget({ window: NaN, promptTokens: 0 }), 'NON_FINITE', 'opts.window'));
  it('rejects a missing promptTokens', () => expectFrognanoError(() => compactionBudget({ window: 10 } as never), 'INVALID_TYPE', 'opts.promptTokens'));
  it('rejects an unknown option', () =>
    expectFrognanoError(() => compactionBudget({ window: 10, promptTokens: 0, rho: 0.5 } as never), 'INVALID_TYPE', 'rho'));
});

describe('shouldCompact', () => {
  it('triggers at tau(H) >= rho W, default rho 0.8', () => {
    expect(DEFAULT_COMPACTION_RHO).toBe(0.8);
    // 0.8 * 32768 = 26214.4
    expect(shouldCompact({ historyTokens: 26214, window: 32768 })).toBe(false);
    expect(shouldCompact({ historyTokens: 26215, window: 32768 })).toBe(true);
    // the boundary itself triggers (>=): 0.5 * 1000 = 500
    expect(shouldCompact({ historyTokens: 500, window: 1000, rho: 0.5 })).toBe(true);
    expect(shouldCompact({ historyTokens: 499, window: 1000, rho: 0.5 })).toBe(false);
  });
  it('rho = 1 triggers only at the full window', () => {
    expect(shouldCompact({ historyTokens: 1023, window: 1024, rho: 1 })).toBe(false);
    expect(shouldCompact({ historyTokens: 1024, window: 1024, rho: 1 })).toBe(true);
  });
  it('rejects rho = 0', () => expectFrognanoError(() => shouldCompact({ historyTokens: 1, window: 10, rho: 0 }), 'OUT_OF_RANGE', 'opts.rho'));
  it('rejects rho > 1', () => expectFrognanoError(() => shouldCompact({ historyTokens: 1, window: 10, rho: 1.1 }), 'OUT_OF_RANGE', 'opts.rho'));
  it('rejects negative historyTokens', () =>
    expectFrognanoError(() => shouldCompact({ historyTokens: -1, window: 10 }), 'OUT_OF_RANGE', 'opts.historyTokens'));
  it('rejects Infinity historyTokens', () =>
    expectFrognanoError(() => shouldCompact({ historyTokens: Infinity, window: 10 }), 'NON_FINITE', 'opts.historyTokens'));
});

describe('validateCompactionConfig', () => {
  it('returns the parsed config with defaults', () => {
    expect(validateCompactionConfig({ window: 32768, maxContext: 131072 })).toEqual({ window: 32768, maxContext: 131072, rho: 0.8, alpha: 0.2 });
    expect(validateCompactionConfig({ window: 65536, maxContext: 65536, rho: 1, alpha: 0.1 })).toEqual({
      window: 65536,
      maxContext: 65536,
      rho: 1,
      alpha: 0.1,
    });
  });
  it('rejects window > maxContext as a silent no-op', () => {
    const e = expectFrognanoError(
      () => validateCompactionConfig({ window: 262144, maxContext: 131072 }),
      'OUT_OF_RANGE',
      'config.window',
      'maxContext',
      'never run',
    );
    expect(e.field).toBe('config.window');
  });
  it('rejects rho outside (0, 1]', () =>
    expectFrognanoError(() => validateCompactionConfig({ window: 1000, maxContext: 2000, rho: 1.5 }), 'OUT_OF_RANGE', 'config.rho'));
  it('rejects a missing maxContext', () =>
    expectFrognanoError(() => validateCompactionConfig({ window: 1000 } as never), 'INVALID_TYPE', 'config.maxContext'));
  it('rejects alpha >= 1', () =>
    expectFrognanoError(() => validateCompactionConfig({ window: 1000, maxContext: 2000, alpha: 1 }), 'OUT_OF_RANGE', 'config.alpha'));
});

describe('truncateHistoryToBudget', () => {
  const g = (...ts: number[]) => ts.map((tokens) => ({ tokens }));
  it('drops the oldest complete groups until the rest fits (hand-computed)', () => {
    // 200 + 400 + 300 = 900 <= 1000; + 500 = 1400 > 1000 -> keep groups 1..2
    expect(truncateHistoryToBudget(g(500, 300, 400), 1000, { prefixTokens: 200 })).toBe(1);
    // without a prefix everything after group 0 still fits, group 0 does not (1200 > 1000)
    expect(truncateHistoryToBudget(g(500, 300, 400), 1000)).toBe(1);
    // exact fit keeps everything
    expect(truncateHistoryToBudget(g(500, 300, 400), 1200)).toBe(0);
    expect(truncateHistoryToBudget(g(100, 100, 100, 100), 250)).toBe(2);
  });
  it('a contiguous suffix: a small old group is not kept once a newer one was dropped', () => {
    // 50 + 900 = 950 <= 1000; + 2000 no -> stop, even though the oldest (10) would fit
    expect(truncateHistoryToBudget(g(10, 2000, 900), 1000, { prefixTokens: 50 })).toBe(2);
  });
  it('always keeps the most recent group, even over budget', () => {
    expect(truncateHistoryToBudget(g(10, 20, 5000), 100)).toBe(2);
    expect(truncateHistoryToBudget(g(10), 0, { prefixTokens: 500 })).toBe(0);
  });
  it('an empty history gives 0', () => expect(truncateHistoryToBudget([], 10)).toBe(0));
  it('accepts groups with extra fields and does not mutate them', () => {
    const groups = [
      { tokens: 700, role: 'assistant' },
      { tokens: 200, role: 'assistant' },
    ];
    expect(truncateHistoryToBudget(groups, 500)).toBe(1);
    expect(groups).toEqual([
      { tokens: 700, role: 'assistant' },
      { tokens: 200, role: 'assistant' },
    ]);
  });
  it('the kept part fits unless only the last group is kept; k is minimal (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { maxLength: 30 }), fc.nat(5000), fc.nat(500), (ts, budget, prefixTokens) => {
        const k = truncateHistoryToBudget(g(...ts), budget, { prefixTokens });
        const n = ts.length;
        const keptTokens = (from: number) => prefixTokens + ts.slice(from).reduce((a, b) => a + b, 0);
        if (n === 0) {
          expect(k).toBe(0);
          return;
        }
        expect(k).toBeGreaterThanOrEqual(0);
        expect(k).toBeLessThanOrEqual(n - 1);
        if (k < n - 1) expect(keptTokens(k)).toBeLessThanOrEqual(budget);
        if (k > 0) expect(keptTokens(k - 1)).toBeGreaterThan(budget);
      }),
    );
  });
  it('rejects a negative group size', () =>
    expectFrognanoError(() => truncateHistoryToBudget(g(10, -5), 100), 'OUT_OF_RANGE', 'groups[1].tokens'));
  it('rejects a NaN group size', () => expectFrognanoError(() => truncateHistoryToBudget(g(NaN), 100), 'NON_FINITE', 'groups[0].tokens'));
  it('rejects a group without tokens', () =>
    expectFrognanoError(() => truncateHistoryToBudget([{ tokens: 1 }, {} as never], 100), 'INVALID_TYPE', 'groups[1].tokens'));
  it('rejects a non-object group', () => expectFrognanoError(() => truncateHistoryToBudget([5 as never], 100), 'INVALID_TYPE', 'groups[0]'));
  it('rejects a non-array', () => expectFrognanoError(() => truncateHistoryToBudget({} as never, 100), 'INVALID_TYPE', 'groups'));
  it('rejects a negative budget', () => expectFrognanoError(() => truncateHistoryToBudget(g(1), -1), 'OUT_OF_RANGE', 'budget'));
  it('rejects a fractional budget', () => expectFrognanoError(() => truncateHistoryToBudget(g(1), 2.5), 'OUT_OF_RANGE', 'budget'));
  it('rejects a negative prefixTokens', () =>
    expectFrognanoError(() => truncateHistoryToBudget(g(1), 10, { prefixTokens: -3 }), 'OUT_OF_RANGE', 'opts.prefixTokens'));
});

/** Issue 12 (fuzz): a deeply nested options object is refused in linear time (the precheck was O(depth^2)). */
describe('shouldCompact: deep nesting', () => {
  it('shouldCompact(deepObject(10 000)) is INVALID_TYPE within a fraction of a second (it took ~0.6 s)', () => {
    let v: unknown = {};
    for (let i = 0; i < 10_000; i++) v = { a: v };
    const t0 = performance.now();
    const e = expectFrognanoError(() => shouldCompact(v as never), 'INVALID_TYPE', 'shouldCompact');
    expect(performance.now() - t0).toBeLessThan(300);
    expect(e.field).toBe('opts.historyTokens');
  });
});
