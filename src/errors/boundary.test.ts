import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { initialRates } from '../curriculum/index.js';
import { trajectoryResolved } from '../judges/behaviourMonitor.js';
import { compareJudged } from '../judges/gagarAudit.js';
import { gagarCoefficients } from '../judges/gagarCoefficients.js';
import { HIRS_MAX_TOKENS, hirsTokenPolarity } from '../judges/hirsTokenPolarity.js';
import { normalizeRepoPath } from '../judges/repoPaths.js';
import { blockBootstrapCI } from '../metrics/index.js';
import { shapeRewards } from '../rewards/index.js';
import { FrognanoTrainer, TrainerOptionsSchema } from '../train/index.js';
import { finiteArray, isArrayLikeOfAny, parseOptions, parseWith } from './validate.js';

/** Issue 12, item 11: validation gaps at the public boundary. */

describe('a DataView is not an array', () => {
  const view = new DataView(new ArrayBuffer(16));
  it('isArrayLikeOfAny excludes it (typed arrays stay in)', () => {
    expect(isArrayLikeOfAny(view)).toBe(false);
    expect(isArrayLikeOfAny(new Float32Array(2))).toBe(true);
    expect(isArrayLikeOfAny([1])).toBe(true);
  });
  it('a public function rejects it as INVALID_TYPE', () => {
    expectFrognanoError(() => blockBootstrapCI(view as never), 'INVALID_TYPE', 'values must be an array of numbers', 'got object');
    expect(() => blockBootstrapCI(new Float64Array([0, 1, 0, 1]), { resamples: 10 })).not.toThrow();
  });
});

describe('exported helpers validate their input', () => {
  it('trajectoryResolved', () => {
    const e = expectFrognanoError(() => trajectoryResolved(null as never), 'INVALID_TYPE', 'trajectoryResolved', 'trajectory');
    expect(e.field).toBe('trajectory');
    expectFrognanoError(() => trajectoryResolved({ outcome: { success: 'yes' } } as never), 'INVALID_TYPE', 'trajectory.outcome.success');
    expectFrognanoError(() => trajectoryResolved({ tests: [{ name: 'a', passed: true }, null] } as never), 'INVALID_TYPE', 'trajectory.tests[1]');
    expect(trajectoryResolved({ tests: [{ name: 'a', passed: true }] } as never)).toBe(true);
    expect(trajectoryResolved({ outcome: { success: false, truncated: false, assistantTokens: 1 } } as never)).toBe(false);
  });
  it('normalizeRepoPath', () => {
    const e = expectFrognanoError(() => normalizeRepoPath(null as never), 'INVALID_TYPE', 'normalizeRepoPath', 'path must be a string', 'null');
    expect(e.field).toBe('path');
    expectFrognanoError(() => normalizeRepoPath(3 as never), 'INVALID_TYPE', 'path');
    expect(normalizeRepoPath(' .//a\\b/./c ')).toBe('a/b/c');
  });
  it('initialRates', () => {
    const e = expectFrognanoError(() => initialRates(null as never), 'INVALID_TYPE', 'initialRates', 'result');
    expect(e.field).toBe('result');
    expectFrognanoError(() => initialRates({ candidates: [{ steps: null }] } as never), 'INVALID_TYPE', 'result.candidates[0].steps');
    expectFrognanoError(() => initialRates({ candidates: [{ steps: [{ rate: 2 }] }] } as never), 'OUT_OF_RANGE', 'result.candidates[0].steps[0].rate');
    expect(initialRates({ candidates: [{ steps: [{ rate: 0.5 }, { rate: 1 }] }, { steps: [] }] } as never)).toEqual([0.5]);
  });
  it('compareJudged', () => {
    const e = expectFrognanoError(() => compareJudged(null as never, { tier: 'T1', rank: 1 }), 'INVALID_TYPE', 'compareJudged', 'a');
    expect(e.field).toBe('a');
    expectFrognanoError(() => compareJudged({ tier: 'T1', rank: 1 }, null as never), 'INVALID_TYPE', 'b');
    expectFrognanoError(() => compareJudged({ tier: 'T4', rank: 1 } as never, { tier: 'T1', rank: 1 }), 'INVALID_TYPE', 'a.tier');
    expectFrognanoError(() => compareJudged({ tier: 'T1', rank: Number.NaN }, { tier: 'T1', rank: 1 }), 'NON_FINITE', 'a.rank');
    expect(compareJudged({ tier: 'T1', rank: 2 }, { tier: 'T2', rank: 1 })).toBe(-1);
    expect(compareJudged({ tier: 'T2', rank: 1 }, { tier: 'T2', rank: 1 })).toBe(0);
  });
});

describe('hirsTokenPolarity: token counts are bounded before anything is allocated', () => {
  const msgs = [{ role: 'assistant' as const, content: 'x' }];
  it('2^53 tokens are refused at once (the report: the process ran out of memory)', () => {
    const t0 = performance.now();
    const e = expectFrognanoError(() => hirsTokenPolarity(msgs, [], [2 ** 53]), 'OUT_OF_RANGE', 'tokenCounts[0]', String(HIRS_MAX_TOKENS));
    expect(e.field).toBe('tokenCounts[0]');
    expect(performance.now() - t0).toBeLessThan(100);
  });
  it('the total counts, not each message: many moderate counts are refused too', () => {
    const many = Array.from({ length: 5 }, () => ({ role: 'user' as const, content: 'x' }));
    expectFrognanoError(() => hirsTokenPolarity(many, [], [2 ** 23, 2 ** 23, 1, 1, 1]), 'OUT_OF_RANGE', 'tokenCounts[2]');
    // with layout 'assistant' the user messages take no place in the labels
    expect(hirsTokenPolarity(many, [], [2 ** 23, 2 ** 23, 1, 1, 1], { layout: 'assistant' }).polarity).toEqual([]);
  });
  it('ordinary counts still work', () => {
    expect(hirsTokenPolarity(msgs, [], [3]).lossMask).toEqual([1, 1, 1]);
  });
});

describe('an own __proto__ key in options is an unknown option', () => {
  const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
  it('at the top level and nested, whatever the schema strictness (zod drops it from non-strict objects)', () => {
    const loose = z.object({ a: z.number().default(1) });
    expect(parseOptions('f', loose, json('{"a": 2, "b": 3}'))).toEqual({ a: 2 }); // non-strict: unknown keys stripped
    const e = expectFrognanoError(() => parseOptions('f', loose, json('{"__proto__": {"x": 1}}')), 'INVALID_TYPE', 'opts', 'unknown option(s) "__proto__"');
    expect(e.field).toBe('opts');
    const nested = z.object({ inner: z.object({ a: z.number() }) });
    expectFrognanoError(() => parseOptions('f', nested, json('{"inner": {"a": 1, "__proto__": {"x": 1}}}')), 'INVALID_TYPE', 'opts.inner', '"__proto__"');
  });
  it('through a public constructor', () => {
    expectFrognanoError(
      () => new FrognanoTrainer({} as never, json('{"reward": {"budget": 2, "__proto__": {"alpha": 9}}}') as never),
      'INVALID_TYPE',
      'opts.reward',
      '"__proto__"',
    );
    expectFrognanoError(() => parseOptions('t', TrainerOptionsSchema, json('{"reward": {"budget": 2}, "__proto__": {}}')), 'INVALID_TYPE', '"__proto__"');
  });
  it('data records (not options) are not affected', () => {
    expect(parseWith('f', 'record', z.looseObject({ a: z.number() }), json('{"a": 1, "__proto__": {}}'))).toEqual({ a: 1 });
  });
});

describe('sparse arrays are rejected at their first hole, fast', () => {
  it('through zod (parseWith): a 5e5-long sparse array in well under a second', () => {
    const t0 = performance.now();
    const e = expectFrognanoError(() => gagarCoefficients(new Array(5e5) as never), 'INVALID_TYPE', 'candidates[0]', 'hole');
    expect(e.index).toEqual([0]);
    const xs: unknown[] = [{ tier: 'T1', rank: 1 }, { tier: 'T2', rank: 1 }];
    xs.length = 5e5;
    expectFrognanoError(() => gagarCoefficients(xs as never), 'INVALID_TYPE', 'candidates[2]', 'hole');
    const outcomes: unknown[] = [{ success: true, truncated: false, assistantTokens: 3 }];
    outcomes[4e5] = outcomes[0];
    expectFrognanoError(() => shapeRewards(outcomes as never, { budget: 4, alpha: 0.2 }), 'INVALID_TYPE', 'outcomes[1]', 'hole');
    expect(performance.now() - t0).toBeLessThan(1000);
  });
  it('nested in options', () => {
    const s = z.object({ ks: z.array(z.number()) }).strict();
    const ks = [1, 2, 3];
    ks.length = 5e5;
    const e = expectFrognanoError(() => parseOptions('f', s, { ks }), 'INVALID_TYPE', 'opts.ks[3]', 'hole');
    expect(e.index).toEqual([3]);
  });
  it('numeric arrays (finiteArray) name the hole as such', () => {
    const xs = [0.5, 1];
    xs.length = 5e5;
    expectFrognanoError(() => finiteArray('f', 'values', xs), 'INVALID_TYPE', 'values[2] is a hole');
    expectFrognanoError(() => blockBootstrapCI(xs), 'INVALID_TYPE', 'values[2] is a hole');
    // an element that is present but undefined is a wrong type, not a hole
    expectFrognanoError(() => finiteArray('f', 'values', [1, undefined]), 'INVALID_TYPE', 'values[1] must be a finite number, got undefined');
  });
});

describe('documented bounds are exported from their module subpaths (not the root, issue 15)', () => {
  it('HIRS_MAX_TOKENS, MAX_BOOTSTRAP_RESAMPLES, MAX_ROUND_ROBIN_CANDIDATES, PAD_BATCH_MAX_CELLS, REPORT_MAX_HISTOGRAM_BINS', async () => {
    const judges = await import('../judges/index.js');
    const metrics = await import('../metrics/index.js');
    const train = await import('../train/index.js');
    expect(judges.HIRS_MAX_TOKENS).toBe(HIRS_MAX_TOKENS);
    expect(metrics.MAX_BOOTSTRAP_RESAMPLES).toBe(1_000_000);
    expect(metrics.MAX_ROUND_ROBIN_CANDIDATES).toBe(256);
    expect(train.PAD_BATCH_MAX_CELLS).toBe(2 ** 26);
    expect(train.REPORT_MAX_HISTOGRAM_BINS).toBe(1001);
  });
});

/** `{ a: { a: ... } }`, `depth` levels deep. */
function deepObject(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('parseWith precheck: linear in the nesting depth (issue 12, fuzz)', () => {
  const schema = z.object({ x: z.number() }).strict();
  it('a 20 000-level options object is refused in well under a second (it was O(depth^2), ~2.5 s)', () => {
    const t0 = performance.now();
    const e = expectFrognanoError(() => parseOptions('f', schema, deepObject(20_000)), 'INVALID_TYPE', 'opts');
    expect(performance.now() - t0).toBeLessThan(500);
    expect(e.field).toBe('opts.x');
  });
  it('a hole deep inside is still named with its full path and indices', () => {
    const v = { x: 1, y: [{}, { z: [0, , 2] }] };
    const e = expectFrognanoError(() => parseWith('f', 'opts', z.looseObject({ x: z.number() }), v), 'INVALID_TYPE', 'opts.y[1].z[1]', 'hole');
    expect(e.field).toBe('opts.y[1].z[1]');
    expect(e.index).toEqual([1, 1]);
  });
  it('an own __proto__ key deep inside options is named', () => {
    const v = JSON.parse('{"x": 1, "a": [{"b": {"__proto__": {"p": 1}}}]}') as unknown;
    const e = expectFrognanoError(() => parseOptions('f', z.looseObject({ x: z.number() }), v), 'INVALID_TYPE', '__proto__');
    expect(e.field).toBe('opts.a[0].b');
  });
});
