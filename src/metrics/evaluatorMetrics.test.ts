import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { bonAccuracy, meanRegret } from './bonAccuracy.js';
import type { EvaluatorTask } from './evaluatorTasks.js';
import { kendallTau } from './kendallTau.js';
import { averageRanks, macroPearson, macroSpearman, pearsonUnchecked } from './macroCorrelation.js';
import { thresholdScore } from './thresholdScore.js';

// A: eval picks sample 1 (first of the tied 8s), the ut-best -> hit, regret 0
// B: eval picks sample 1 (ut 0.1), the ut-best is 0.5 -> miss, regret 0.4
// C: eval picks sample 1 (ut 0.3), tied for the best ut -> hit, regret 0
const A: EvaluatorTask = { ut: [0.2, 0.9, 0.5], eval: [3, 8, 8] };
const B: EvaluatorTask = { ut: [0.5, 0.1], eval: [4, 9] };
const C: EvaluatorTask = { ut: [0.3, 0.3, 0.1], eval: [1, 5, 2] };
const tasks = [A, B, C];

const allFns: [string, (t: EvaluatorTask[]) => unknown][] = [
  ['bonAccuracy', bonAccuracy],
  ['meanRegret', meanRegret],
  ['kendallTau', kendallTau],
  ['macroPearson', macroPearson],
  ['macroSpearman', macroSpearman],
  ['thresholdScore', (t) => thresholdScore(t, 5)],
];

describe('bonAccuracy / meanRegret', () => {
  it('hand-computed values', () => {
    expect(bonAccuracy(tasks)).toBeCloseTo(2 / 3, 15);
    expect(meanRegret(tasks)).toBeCloseTo(0.4 / 3, 15);
  });
  it('the first eval-argmax is the pick', () => {
    // eval tie between samples 0 and 1: sample 0 (ut 0.1) is picked
    expect(bonAccuracy([{ ut: [0.1, 0.9], eval: [7, 7] }])).toBe(0);
    expect(meanRegret([{ ut: [0.1, 0.9], eval: [7, 7] }])).toBeCloseTo(0.8, 15);
  });
  it('one-sample tasks are always hits with zero regret', () => {
    expect(bonAccuracy([{ ut: [0.3], eval: [1] }])).toBe(1);
    expect(meanRegret([{ ut: [0.3], eval: [1] }])).toBe(0);
  });
  it('regret is >= 0 and zero exactly on hits (property)', () => {
    const task = fc.integer({ min: 1, max: 6 }).chain((k) =>
      fc.record({ ut: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: k, maxLength: k }), eval: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: k, maxLength: k }) }),
    );
    fc.assert(
      fc.property(task, (t) => {
        const r = meanRegret([t]);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r === 0).toBe(bonAccuracy([t]) === 1);
      }),
    );
  });
});

describe('kendallTau', () => {
  it('pools pairs across tasks: hand-computed value', () => {
    // A: +1, +1, 0 (eval tie)   B: -1   C: skip (ut tie), -1, +1   -> 1 / 6
    expect(kendallTau(tasks)).toBeCloseTo(1 / 6, 15);
  });
  it('is a pooled (micro) mean, not a mean of per-task taus', () => {
    const t1 = { ut: [0, 1, 2, 3], eval: [0, 1, 2, 3] }; // 6 concordant pairs
    const t2 = { ut: [0, 1], eval: [1, 0] }; // 1 discordant pair
    expect(kendallTau([t1, t2])).toBeCloseTo(5 / 7, 15);
  });
  it('eval ties count 0 but stay in the denominator', () => {
    expect(kendallTau([{ ut: [0, 1, 2], eval: [5, 5, 6] }])).toBeCloseTo(2 / 3, 15);
  });
  it('is null when no pair has different ut', () => {
    expect(kendallTau([{ ut: [1, 1], eval: [0, 3] }, { ut: [0.5], eval: [2] }])).toBeNull();
  });
  it('is +1 for a strictly increasing transform and -1 when reversed (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -100, max: 100 }), { minLength: 2, maxLength: 8 }), (ut) => {
        expect(kendallTau([{ ut, eval: ut.map((x) => 2 * x + 1) }])).toBe(1);
        expect(kendallTau([{ ut, eval: ut.map((x) => -x) }])).toBe(-1);
      }),
    );
  });
});

describe('macroPearson / macroSpearman', () => {
  it('hand-computed Pearson', () => {
    // A: ut deviations [-1/3, 11/30, -1/30], eval deviations [-10/3, 5/3, 5/3]
    //    r = (10/9 + 11/18 - 1/18) / sqrt((1/9 + 121/900 + 1/900) * (100/9 + 25/9 + 25/9))
    const rA = (10 / 9 + 11 / 18 - 1 / 18) / Math.sqrt((1 / 9 + 121 / 900 + 1 / 900) * (150 / 9));
    // C: ut deviations [1/15, 1/15, -2/15], eval deviations [-5/3, 7/3, -2/3]
    const rC = (-1 / 9 + 7 / 45 + 4 / 45) / Math.sqrt((6 / 225) * (25 / 9 + 49 / 9 + 4 / 9));
    expect(rA).toBeCloseTo(0.8219949365267866, 14); // scipy.stats.pearsonr
    expect(rC).toBeCloseTo(0.2773500981126145, 14);
    expect(macroPearson(tasks)).toBeCloseTo((rA - 1 + rC) / 3, 12);
  });
  it('hand-computed Spearman with average ranks', () => {
    // A: ranks ut [1,3,2], eval [1,2.5,2.5] -> r = 1.5 / sqrt(2 * 1.5) = sqrt(3)/2
    // B: -1;  C: ranks ut [2.5,2.5,1], eval [1,3,2] -> 0
    expect(macroSpearman(tasks)).toBeCloseTo((Math.sqrt(3) / 2 - 1 + 0) / 3, 12);
  });
  it('skips tasks where ut or eval is constant or that have one sample; null when none is left', () => {
    const skip = [
      { ut: [1, 1, 1], eval: [1, 2, 3] },
      { ut: [1, 2, 3], eval: [4, 4, 4] },
      { ut: [7], eval: [7] },
    ];
    expect(macroPearson(skip)).toBeNull();
    expect(macroSpearman(skip)).toBeNull();
    expect(macroPearson([...skip, { ut: [0, 1, 2], eval: [1, 3, 5] }])).toBeCloseTo(1, 14);
    expect(macroSpearman([...skip, { ut: [0, 1, 5], eval: [3, 2, 1] }])).toBeCloseTo(-1, 14);
  });
  it('averageRanks gives ties their mean rank (scipy rankdata "average")', () => {
    expect(averageRanks([10, 20, 20, 5, 20])).toEqual([2, 4, 4, 1, 4]);
    expect(averageRanks([3, 3])).toEqual([1.5, 1.5]);
  });
  it('Pearson survives extreme magnitudes and stays in [-1, 1]', () => {
    // ~ corr([0, 0, 1], [1, 0, 2]) = sqrt(3)/2; a naive sum of squares would overflow to NaN
    expect(pearsonUnchecked([1e300, -1e300, 1.7e308], [1, 0, 2])).toBeCloseTo(Math.sqrt(3) / 2, 6);
    expect(pearsonUnchecked([1e-300, 0, 2e-300], [1, 0, 2])).toBeCloseTo(1, 12);
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }).chain((k) =>
          fc.tuple(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: k, maxLength: k }), fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: k, maxLength: k })),
        ),
        ([x, y]) => {
          const p = macroPearson([{ ut: x, eval: y }]);
          const s = macroSpearman([{ ut: x, eval: y }]);
          for (const v of [p, s]) {
            if (v === null) continue;
            expect(v).toBeGreaterThanOrEqual(-1);
            expect(v).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });
  it('Spearman is invariant under a strictly increasing transform of eval (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }).chain((k) =>
          fc.tuple(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: k, maxLength: k }), fc.array(fc.integer({ min: -5, max: 5 }), { minLength: k, maxLength: k })),
        ),
        ([ut, ev]) => {
          const a = macroSpearman([{ ut, eval: ev }]);
          const b = macroSpearman([{ ut, eval: ev.map((x) => Math.exp(x)) }]);
          if (a === null) expect(b).toBeNull();
          else expect(b).toBeCloseTo(a, 12);
        },
      ),
    );
  });
});

describe('thresholdScore', () => {
  it('pools the accepted samples of all tasks (eval >= theta, inclusive)', () => {
    // eval >= 5: A samples 1, 2 (ut 0.9, 0.5), B sample 1 (0.1), C sample 1 (0.3)
    const r = thresholdScore(tasks, 5);
    expect(r.count).toBe(4);
    expect(r.mean).toBeCloseTo((0.9 + 0.5 + 0.1 + 0.3) / 4, 15);
    expect(thresholdScore(tasks, 8)).toEqual({ mean: (0.9 + 0.5 + 0.1) / 3, count: 3 });
  });
  it('mean is null when nothing passes the threshold', () => {
    expect(thresholdScore(tasks, 10)).toEqual({ mean: null, count: 0 });
  });
  it('count is non-increasing in theta (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(thresholdScore(tasks, hi).count).toBeLessThanOrEqual(thresholdScore(tasks, lo).count);
      }),
    );
  });
  it('rejects a NaN theta', () => expectFrognanoError(() => thresholdScore(tasks, NaN), 'NON_FINITE', 'thresholdScore', 'theta'));
});

describe('evaluator metrics: bad input (every function)', () => {
  for (const [name, f] of allFns) {
    describe(name, () => {
      it('rejects no tasks', () => expectFrognanoError(() => f([]), 'EMPTY_INPUT', name, 'tasks'));
      it('rejects a non-array', () => expectFrognanoError(() => f({} as never), 'INVALID_TYPE', 'tasks'));
      it('rejects a task that is not an object', () => expectFrognanoError(() => f([A, 3 as never]), 'INVALID_TYPE', 'tasks[1]'));
      it('rejects a missing eval', () => expectFrognanoError(() => f([A, { ut: [1] } as never]), 'INVALID_TYPE', 'tasks[1].eval'));
      it('rejects mismatched lengths', () => expectFrognanoError(() => f([A, { ut: [1, 2], eval: [1] }]), 'LENGTH_MISMATCH', 'tasks[1].eval'));
      it('rejects an empty task', () => expectFrognanoError(() => f([{ ut: [], eval: [] }]), 'EMPTY_INPUT', 'tasks[0].ut'));
      it('rejects NaN', () => expectFrognanoError(() => f([A, { ut: [1, NaN], eval: [1, 2] }]), 'NON_FINITE', 'tasks[1].ut[1]'));
      it('rejects Infinity', () => expectFrognanoError(() => f([{ ut: [1, 2], eval: [1, Infinity] }]), 'NON_FINITE', 'tasks[0].eval[1]'));
    });
  }
});
