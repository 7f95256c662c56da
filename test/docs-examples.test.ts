/**
 * The numbers quoted in README.md and docs/*.md, computed by the library. A doc
 * example that drifts from the code fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  bonAccuracy,
  classifyResolveRate,
  compactionBudget,
  FrognanoError,
  gagarCoefficients,
  gagarRedistribute,
  gagarWeightedScore,
  groupAdvantages,
  iterationBand,
  passAtK,
  passAtShort,
  reciprocalRankReward,
  resolveRate,
  shapeReward,
} from '../src/index.js';

const close = (xs: number[], ys: number[], digits = 3) => {
  expect(xs.length).toBe(ys.length);
  xs.forEach((x, i) => expect(x).toBeCloseTo(ys[i]!, digits));
};

describe('README examples', () => {
  it('rewards', () => {
    expect(shapeReward({ success: true, truncated: false, assistantTokens: 12_000 }, { budget: 6000, alpha: 0.25 })).toBeCloseTo(0.8267, 4);
    expect(shapeReward({ success: true, truncated: true, assistantTokens: 900 }, { budget: 6000, alpha: 0.25 })).toBe(0.5);
  });
  it('GAGAR', () => {
    expect(gagarWeightedScore({ approach: 5, precision: 4, minimality: 4, sideEffects: 5, consistency: 4 })).toBeCloseTo(4.45, 12);
    const c = gagarCoefficients([{ tier: 'T1', rank: 1 }, { tier: 'T3', rank: 1 }]);
    expect(c).toEqual([1, 0.2]);
    close(gagarRedistribute([1, 1, 0, 0], [...c, 1, 1], { lambdaMax: Infinity }), [0.833, 0.167, -0.5, -0.5]);
    close(gagarRedistribute([1, 1, 0, 0], [...c, 1, 1]), [0.775, 0.175, -0.475, -0.475], 12);
  });
  it('metrics', () => {
    expect(passAtK(8, 3, 2)).toBeCloseTo(1 - 10 / 28, 12);
    expect(passAtShort([{ passed: true, length: 900 }, { passed: false, length: 400 }])).toBe(false);
    expect(reciprocalRankReward([2, 0, 1], [true, false, false])).toBe(0.5);
    expect(bonAccuracy([{ ut: [0.2, 0.9, 0.5], eval: [0.1, 0.8, 0.3] }])).toBe(1);
  });
  it('curriculum and compaction', () => {
    expect(classifyResolveRate(resolveRate([true, false, false, false]), iterationBand(5))).toBe('accept');
    expect(compactionBudget({ window: 32768, promptTokens: 300 })).toBe(25915);
  });
  it('errors', () => {
    try {
      groupAdvantages([[1, NaN]]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FrognanoError);
      expect((e as FrognanoError).code).toBe('NON_FINITE');
      expect((e as FrognanoError).message).toBe('groupAdvantages: groups[0][1] must be a finite number, got NaN');
    }
  });
});

describe('docs/gagar.md examples', () => {
  it('coefficients with two T1 groups and T2 ties', () => {
    close(
      gagarCoefficients([
        { tier: 'T1', rank: 1 },
        { tier: 'T1', rank: 2 },
        { tier: 'T2', rank: 1 },
        { tier: 'T2', rank: 1 },
        { tier: 'T2', rank: 3 },
        { tier: 'T3', rank: 1 },
      ]),
      [1.0, 0.9, 0.85, 0.85, 0.4, 0.2],
      12,
    );
  });
});

describe('README judges example on the bundled trajectories', () => {
  it('rule funnel finding, monitor metrics', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { applyMonitor, monitorMetrics, parseTrajectory, ruleFunnel } = await import('../src/index.js');
    const dir = new URL('../examples/data/trajectories/', import.meta.url);
    const ts = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => parseTrajectory(JSON.parse(readFileSync(new URL(f, dir), 'utf8'))));
    expect(ts).toHaveLength(14);
    const hack = ts.find((t) => t.id.includes('git-history')) ?? ts.find((t) => JSON.stringify(t).includes('git log --all'))!;
    const findings = ruleFunnel(hack);
    expect(findings[0]).toEqual({ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 4 });
    const m = monitorMetrics(applyMonitor(ts));
    expect(m.resolved).toBeCloseTo(10 / 14, 12);
    expect(m.hackRate).toBeCloseTo(9 / 14, 12);
    expect(m.hackedResolved).toBeCloseTo(5 / 14, 12);
    expect(m.cleanResolved).toBeCloseTo(5 / 14, 12);
  });
});
