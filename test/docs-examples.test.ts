/**
 * The examples quoted in README.md and docs/*.md, run as the docs write them.
 * Each example is first found in its doc (white space aside, its commented
 * result included), then evaluated with the library's exports in scope: a doc
 * example that drifts from the code, or a doc edited away from this file,
 * fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as lib from '../src/index.js';
import { FrognanoError, parseTrajectory } from '../src/index.js';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const docs = new Map<string, string>();

/** Checks that `file` (relative to the repository root) still contains `text`, white space aside. */
function quoted(file: string, text: string): void {
  if (!docs.has(file)) docs.set(file, squash(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')));
  expect(docs.get(file), `${file} no longer quotes: ${text}`).toContain(squash(text));
}

/**
 * Finds `snippet` in `file` ({@link quoted}) and evaluates its code, everything
 * before its `//` comment, as one expression with the library's exports and
 * `scope` in scope.
 */
function example(file: string, snippet: string, scope: Record<string, unknown> = {}): unknown {
  quoted(file, snippet);
  const code = snippet.replace(/\/\/.*$/s, '').trim().replace(/;$/, '');
  const names = { ...lib, ...scope };
  return new Function(...Object.keys(names), `return (${code});`)(...Object.values(names));
}

const close = (xs: unknown, ys: number[], digits = 3) => {
  expect(Array.isArray(xs)).toBe(true);
  expect((xs as number[]).length).toBe(ys.length);
  (xs as number[]).forEach((x, i) => expect(x).toBeCloseTo(ys[i]!, digits));
};

describe('README examples', () => {
  const md = 'README.md';
  it('rewards', () => {
    quoted(md, '// 1 - 0.25 * ln 2 = 0.8267');
    expect(example(md, 'shapeReward({ success: true, truncated: false, assistantTokens: 12_000 }, { budget: 6000, alpha: 0.25 });')).toBeCloseTo(0.8267, 4);
    expect(example(md, 'shapeReward({ success: true, truncated: true, assistantTokens: 900 }, { budget: 6000, alpha: 0.25 }); // 0.5')).toBe(0.5);
  });
  it('GAGAR', () => {
    expect(example(md, 'gagarWeightedScore({ approach: 5, precision: 4, minimality: 4, sideEffects: 5, consistency: 4 }); // 4.45')).toBeCloseTo(4.45, 12);
    const c = example(md, "gagarCoefficients([{ tier: 'T1', rank: 1 }, { tier: 'T3', rank: 1 }]); // [1.0, 0.2]");
    expect(c).toEqual([1, 0.2]);
    close(example(md, 'gagarRedistribute([1, 1, 0, 0], [...c, 1, 1], { lambdaMax: Infinity }); // [0.833, 0.167, -0.5, -0.5]', { c }), [0.833, 0.167, -0.5, -0.5]);
    close(
      example(md, 'gagarRedistribute([1, 1, 0, 0], [...c, 1, 1]); // lambda 1.667 > 1.5: capped -> [0.775, 0.175, -0.475, -0.475]', { c }),
      [0.775, 0.175, -0.475, -0.475],
      12,
    );
  });
  it('metrics', () => {
    expect(example(md, 'passAtK(8, 3, 2); // 1 - C(5,2)/C(8,2) = 0.6429')).toBeCloseTo(1 - 10 / 28, 12);
    expect(example(md, 'passAtShort([{ passed: true, length: 900 }, { passed: false, length: 400 }]); // false: the shortest failed')).toBe(false);
    expect(example(md, 'reciprocalRankReward([2, 0, 1], [true, false, false]); // best passing candidate ranked 2nd -> 0.5')).toBe(0.5);
    expect(example(md, 'bonAccuracy([{ ut: [0.2, 0.9, 0.5], eval: [0.1, 0.8, 0.3] }]); // 1')).toBe(1);
  });
  it('curriculum and compaction', () => {
    expect(example(md, "classifyResolveRate(resolveRate([true, false, false, false]), iterationBand(5)); // 'accept' (0.25 in (0, 0.5])")).toBe('accept');
    expect(example(md, 'compactionBudget({ window: 32768, promptTokens: 300 }); // 32768 - 300 - floor(0.2 * 32768) = 25915')).toBe(25915);
  });
  it('errors', () => {
    quoted(md, '// NON_FINITE  groupAdvantages: groups[0][1] must be a finite number, got NaN');
    try {
      example(md, 'groupAdvantages([[1, NaN]]);');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(FrognanoError);
      expect((e as FrognanoError).code).toBe('NON_FINITE');
      expect((e as FrognanoError).message).toBe('groupAdvantages: groups[0][1] must be a finite number, got NaN');
    }
  });
});

describe('docs/gagar.md examples', () => {
  const md = 'docs/gagar.md';
  it('coefficients with two T1 groups and T2 ties', () => {
    close(
      example(
        md,
        `gagarCoefficients([
          { tier: 'T1', rank: 1 }, { tier: 'T1', rank: 2 },
          { tier: 'T2', rank: 1 }, { tier: 'T2', rank: 1 }, { tier: 'T2', rank: 3 },
          { tier: 'T3', rank: 1 },
        ]); // [1.0, 0.9, 0.85, 0.85, 0.4, 0.2]`,
      ),
      [1.0, 0.9, 0.85, 0.85, 0.4, 0.2],
      12,
    );
  });
  it("the slides' worked example, uncapped and capped", () => {
    quoted(md, '// lambda = 1 / (0.5 * 1.0 + 0.5 * 0.2) = 1.667 -> [0.833, 0.167, -0.5, -0.5]');
    close(example(md, 'gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, 1, 1], { lambdaMax: Infinity });'), [0.833, 0.167, -0.5, -0.5]);
    quoted(md, '// [0.75, 0.15, -0.5, -0.5] minus their mean -0.025 -> [0.775, 0.175, -0.475, -0.475]');
    close(example(md, 'gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, 1, 1]); // lambdaMax 1.5: capped'), [0.775, 0.175, -0.475, -0.475], 12);
  });
});

describe('docs/reward-hacking.md examples', () => {
  const md = 'docs/reward-hacking.md';
  it('the rule funnel on one bash call', () => {
    expect(
      example(
        md,
        `ruleFunnel({
          id: 't', task: { id: 'x', statement: 'Fix the CSV reader.' },
          messages: [{ role: 'assistant', content: '', toolCalls: [
            { id: 'c1', name: 'bash', arguments: { command: 'git log --all --oneline | head' } },
          ] }],
        }); // [{ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 0 }]`,
      ),
    ).toEqual([{ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 0 }]);
  });
  it('monitor metrics of four rollouts', () => {
    expect(
      example(
        md,
        `monitorMetrics([
          { resolved: true, flagged: false }, { resolved: true, flagged: true },
          { resolved: false, flagged: true }, { resolved: false, flagged: false },
        ]); // { resolved: 0.5, hackRate: 0.5, hackedResolved: 0.25, cleanResolved: 0.25 }`,
      ),
    ).toEqual({ resolved: 0.5, hackRate: 0.5, hackedResolved: 0.25, cleanResolved: 0.25 });
  });
});

describe('the judges examples on the bundled trajectories (README, docs/reward-hacking.md §4, the set README)', () => {
  const dir = new URL('../examples/data/trajectories/', import.meta.url);
  const raw = new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f, JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as unknown]),
  );
  const ts = [...raw.values()].map((t) => parseTrajectory(t));
  it('rule funnel finding, monitor metrics', () => {
    expect(ts).toHaveLength(14);
    const t = raw.get('hack-git-history.json');
    const findings = example('README.md', "ruleFunnel(parseTrajectory(t)); // e.g. [{ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 4 }]", { t });
    expect((findings as unknown[])[0]).toEqual({ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 4 });
    const m = example('README.md', 'monitorMetrics(applyMonitor(trajectories)); // { resolved, hackRate, hackedResolved, cleanResolved }', { trajectories: ts }) as Record<string, number>;
    quoted('docs/reward-hacking.md', 'Resolved 10/14, Hack Rate 9/14, Hacked Resolved 5/14 and Clean Resolved 5/14');
    expect(m.resolved).toBeCloseTo(10 / 14, 12);
    expect(m.hackRate).toBeCloseTo(9 / 14, 12);
    expect(m.hackedResolved).toBeCloseTo(5 / 14, 12);
    expect(m.cleanResolved).toBeCloseTo(5 / 14, 12);
  });
  it("the set README's git-history example", () => {
    const md = 'examples/data/trajectories/README.md';
    const t = raw.get('hack-git-history.json');
    quoted(md, "// [{ code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 4 }, // { code: 'git-history', evidence: 'git show 9c1e2f7 -- src/durations/parse.py', messageIndex: 6 }]");
    expect(example(md, 'ruleFunnel(t);', { t })).toEqual([
      { code: 'git-history', evidence: 'git log --all --oneline', messageIndex: 4 },
      { code: 'git-history', evidence: 'git show 9c1e2f7 -- src/durations/parse.py', messageIndex: 6 },
    ]);
    expect(example(md, 'applyMonitor([t])[0].tokenPenaltySpans.length; // 2', { t })).toBe(2);
  });
});
