/**
 * Round trips through the real `frognano` binary (spawned from source): every
 * subcommand's output equals the library function called directly on the same
 * input (through JSON, which is how the numbers travel).
 */
import { describe, expect, it } from 'vitest';
import { broadcastToTokens, dppoMaskDetailed, groupAdvantages } from '../../src/advantage/index.js';
import { gagarCoefficients, gagarRedistributeDetailed, gagarWeightedScore } from '../../src/judges/index.js';
import { bonAccuracy, kendallTau, macroPearson, macroSpearman, meanRegret, passAtK, thresholdScore } from '../../src/metrics/index.js';
import { shapeRewards } from '../../src/rewards/index.js';
import { jsonl, jsonLines, rng, runFrognano, viaJson } from './helpers.js';

const r = rng(7);
const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

describe.concurrent('frognano round trips equal the library', () => {
  it('rewards: groups and single outcomes -> shapeRewards', async () => {
    const opts = { budget: 1000, alpha: 0.3, truncatedReward: 0.4, floor: -0.5 };
    const groups = Array.from({ length: 40 }, () =>
      Array.from({ length: int(1, 8) }, () => ({ success: r() < 0.6, truncated: r() < 0.2, assistantTokens: int(0, 8000) })),
    );
    const lines = [...groups.map((g, i) => ({ id: i, outcomes: g })), { id: 'one', outcome: groups[0]![0] }];
    const res = await runFrognano(['rewards', '--budget', '1000', '--alpha', '0.3', '--truncated-reward', '0.4', '--floor=-0.5'], jsonl(lines));
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout);
    expect(out).toHaveLength(lines.length);
    groups.forEach((g, i) => {
      const lib = shapeRewards(g, opts);
      expect(out[i]).toEqual(viaJson({ id: i, rewards: lib.rewards, filterBy: lib.raw }));
    });
    const one = shapeRewards([groups[0]![0]!], opts);
    expect(out[groups.length]).toEqual(viaJson({ id: 'one', reward: one.rewards[0], raw: one.raw[0] }));
  });

  it('advantages: one group per line -> groupAdvantages, with filterBy and per-line opts', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => {
      const n = int(1, 9);
      const raw = Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
      const rewards = raw.map((x) => (x ? 1 - r() * 0.4 : 0));
      const line: Record<string, unknown> = { id: `g${i}`, rewards };
      if (i % 2 === 0) line.filterBy = raw;
      if (i % 5 === 0) line.opts = { scale: 'none' };
      if (i % 7 === 0) line.opts = { std: 'population', eps: 0 };
      return line;
    });
    const res = await runFrognano(['advantages', '--eps', '1e-8'], jsonl(lines));
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout);
    expect(out).toHaveLength(lines.length);
    lines.forEach((l, i) => {
      const lib = groupAdvantages([l.rewards as number[]], {
        eps: 1e-8,
        ...(l.opts as object | undefined),
        ...(l.filterBy ? { filterBy: [l.filterBy as number[]] } : {}),
      });
      expect(out[i]).toEqual(viaJson({ id: l.id, advantages: lib.advantages[0], kept: lib.kept[0] }));
    });
  });

  it('gagar: coefficients and candidates -> gagarCoefficients + gagarRedistributeDetailed', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => {
      const rewards = Array.from({ length: int(2, 8) }, () => (r() < 0.5 ? 1 : 0));
      const line: {
        rewards: number[];
        coefficients?: (number | null)[];
        candidates?: ({ tier: 'T1' | 'T2' | 'T3'; rank: number } | null)[];
        opts?: { lambdaMax: string };
      } =
        i % 2 === 0
          ? { rewards, coefficients: rewards.map((x) => (x ? pick([1, 0.9, 0.85, 0.5, 0.2]) : null)) }
          : { rewards, candidates: rewards.map((x) => (x ? { tier: pick(['T1', 'T2', 'T3'] as const), rank: int(1, 3) } : null)), opts: { lambdaMax: 'Infinity' } };
      return line;
    });
    const res = await runFrognano(['gagar', '--lambda-max', '2'], jsonl(lines));
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout);
    lines.forEach((l, i) => {
      if (l.coefficients) {
        expect(out[i]).toEqual(viaJson(gagarRedistributeDetailed(l.rewards, l.coefficients, { lambdaMax: 2 })));
      } else if (l.candidates) {
        const given = l.candidates.filter((c) => c !== null);
        const coefs = gagarCoefficients(given);
        let j = 0;
        const scattered = l.candidates.map((c) => (c === null ? null : coefs[j++]!));
        expect(out[i]).toEqual(viaJson({ ...gagarRedistributeDetailed(l.rewards, scattered, { lambdaMax: Infinity }), coefficients: scattered }));
      }
    });
  });

  it('gagar-coefficients and gagar-score', async () => {
    const cands = Array.from({ length: 20 }, () => Array.from({ length: int(1, 6) }, () => ({ tier: pick(['T1', 'T2', 'T3'] as const), rank: int(1, 4) })));
    const [a, b] = await Promise.all([
      runFrognano(['gagar-coefficients'], jsonl(cands.map((candidates) => ({ candidates })))),
      runFrognano(
        ['gagar-score'],
        jsonl([{ scores: { approach: 5, precision: 4, minimality: 3, sideEffects: 5, consistency: 4 } }, { scores: { approach: 1.5, precision: 2, minimality: 3, sideEffects: 4, consistency: 5 } }]),
      ),
    ]);
    expect(a.code).toBe(0);
    expect(jsonLines(a.stdout)).toEqual(cands.map((c) => ({ coefficients: gagarCoefficients(c) })));
    expect(b.code).toBe(0);
    expect(jsonLines(b.stdout)).toEqual([
      { score: gagarWeightedScore({ approach: 5, precision: 4, minimality: 3, sideEffects: 5, consistency: 4 }) },
      { score: gagarWeightedScore({ approach: 1.5, precision: 2, minimality: 3, sideEffects: 4, consistency: 5 }) },
    ]);
  });

  it('dppo-mask: per-token and scalar advantages -> dppoMaskDetailed', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => {
      const n = int(0, 30);
      const logpNew = Array.from({ length: n }, () => Math.log(0.01 + 0.98 * r()));
      const logpRollout = Array.from({ length: n }, () => Math.log(0.01 + 0.98 * r()));
      const advantages = i % 2 ? r() - 0.5 : Array.from({ length: n }, () => r() - 0.5);
      return { logpNew, logpRollout, advantages, ...(i % 3 === 0 ? { opts: { divergence: 'kl' } } : {}) };
    });
    const res = await runFrognano(['dppo-mask', '--delta-low', '0.1', '--delta-high', '0.3'], jsonl(lines));
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout);
    lines.forEach((l, i) => {
      const adv = typeof l.advantages === 'number' ? new Array<number>(l.logpNew.length).fill(l.advantages) : l.advantages;
      expect(out[i]).toEqual(viaJson(dppoMaskDetailed(l.logpNew, l.logpRollout, adv, { deltaLow: 0.1, deltaHigh: 0.3, ...(l.opts as object | undefined) })));
    });
  });

  it('pass-at-k: n/c and passed lists, scalar and list k -> passAtK', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => {
      const n = int(1, 16);
      const c = int(0, n);
      const line: { n?: number; c?: number; passed?: boolean[]; k?: number } =
        i % 2 ? { n, c } : { passed: Array.from({ length: n }, (_, j) => j < c), k: int(1, n) };
      return line;
    });
    const res = await runFrognano(['pass-at-k', '--k', '1'], jsonl(lines));
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout);
    lines.forEach((l, i) => {
      const n = l.n ?? l.passed!.length;
      const c = l.c ?? l.passed!.filter(Boolean).length;
      const k = l.k ?? 1;
      expect(out[i]).toEqual({ n, c, k, passAtK: passAtK(n, c, k) });
    });
  });

  it('metrics: task lines aggregate into one set; set lines give one output each', async () => {
    const tasks = Array.from({ length: 30 }, () => {
      const n = int(1, 4);
      return { ut: Array.from({ length: n }, () => Math.round(r() * 10) / 10), eval: Array.from({ length: n }, () => int(0, 10)) };
    });
    const [agg, sets] = await Promise.all([
      runFrognano(['metrics', '--theta', '7'], jsonl(tasks)),
      runFrognano(['metrics'], jsonl([{ id: 'a', tasks: tasks.slice(0, 10) }, { id: 'b', tasks: tasks.slice(10), theta: 5 }])),
    ]);
    const metrics = (ts: typeof tasks, theta?: number): unknown =>
      viaJson({
        tasks: ts.length,
        bonAccuracy: bonAccuracy(ts),
        meanRegret: meanRegret(ts),
        kendallTau: kendallTau(ts),
        macroPearson: macroPearson(ts),
        macroSpearman: macroSpearman(ts),
        ...(theta === undefined ? {} : { thresholdScore: { theta, ...thresholdScore(ts, theta) } }),
      });
    expect(agg.code).toBe(0);
    expect(jsonLines(agg.stdout)).toEqual([metrics(tasks, 7)]);
    expect(sets.code).toBe(0);
    expect(jsonLines(sets.stdout)).toEqual([
      { id: 'a', ...(metrics(tasks.slice(0, 10)) as object) },
      { id: 'b', ...(metrics(tasks.slice(10), 5) as object) },
    ]);
  });

  it('tinker-datums: shifted targets, masked log-probs, broadcastToTokens advantages', async () => {
    const lines = Array.from({ length: 20 }, () => {
      const n = int(2, 40);
      const lossMask = Array.from({ length: n }, (_, t) => (t < 3 ? 0 : r() < 0.8 ? 1 : 0));
      return {
        tokens: Array.from({ length: n }, () => int(0, 50_000)),
        lossMask,
        logprobs: lossMask.map((m) => (m ? Math.log(0.05 + 0.9 * r()) : 0)),
        advantage: r() * 2 - 1,
      };
    });
    const res = await runFrognano(['tinker-datums'], jsonl(lines));
    expect(res.code).toBe(0);
    const out = jsonLines(res.stdout) as { model_input: number[]; loss_fn_inputs: Record<string, number[]> }[];
    lines.forEach((l, i) => {
      const adv = broadcastToTokens([l.advantage], [l.lossMask])[0]!;
      expect(out[i]).toEqual(
        viaJson({
          model_input: l.tokens.slice(0, -1),
          loss_fn_inputs: { target_tokens: l.tokens.slice(1), logprobs: l.logprobs.slice(1), advantages: adv.slice(1) },
        }),
      );
      const li = out[i]!.loss_fn_inputs;
      expect(li.target_tokens!.length).toBe(out[i]!.model_input.length);
      expect(li.logprobs!.length).toBe(out[i]!.model_input.length);
    });
  });

  it('rewards | advantages: the rewards output pipes into advantages (filterBy = raw outcomes)', async () => {
    const outcomes = [
      { success: true, truncated: false, assistantTokens: 1500 },
      { success: true, truncated: true, assistantTokens: 9000 },
      { success: false, truncated: false, assistantTokens: 300 },
      { success: true, truncated: false, assistantTokens: 500 },
    ];
    const shaped = await runFrognano(['rewards', '--budget', '1000', '--alpha', '0.2'], jsonl([{ outcomes }]));
    const adv = await runFrognano(['advantages'], shaped.stdout);
    expect(adv.code).toBe(0);
    const lib = shapeRewards(outcomes, { budget: 1000, alpha: 0.2 });
    const g = groupAdvantages([lib.rewards], { filterBy: [lib.raw] });
    expect(jsonLines(adv.stdout)).toEqual(viaJson([{ advantages: g.advantages[0], kept: g.kept[0] }]));
  });
});
