/**
 * `npm run demo`: the numbers a FrogNano-style RL step computes, group by group,
 * on the bundled synthetic rollouts in examples/data/rollouts.jsonl.
 *
 * For each task group of 8 rollouts it prints
 *  - the raw outcome and the shaped reward (FrogNano §4.2: log-length penalty, 0.5 for truncated successes),
 *  - the group-relative advantage (FrogNano §4.1: std-scaled, zero-variance filter on RAW outcomes),
 *  - the GAGAR judge tier, coefficient and redistributed advantage (GAGAR §3),
 *  - the DPPO mask on the rollout's generated tokens (FrogNano §4.1).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  broadcastToTokens,
  dppoMaskDetailed,
  gagarCoefficients,
  gagarRedistributeDetailed,
  gagarWeightedScore,
  groupAdvantages,
  shapeRewards,
} from 'frognano';

const Scores = z.object({ approach: z.number(), precision: z.number(), minimality: z.number(), sideEffects: z.number(), consistency: z.number() });
const Rollout = z.object({
  success: z.boolean(),
  truncated: z.boolean(),
  assistantTokens: z.number().int().min(0),
  judge: z.object({ tier: z.enum(['T1', 'T2', 'T3']), scores: Scores }).optional(),
  policyLag: z.number().int().min(0),
  logpRollout: z.array(z.number()),
  logpNew: z.array(z.number()),
  lossMask: z.array(z.number()),
});
const Group = z.object({ taskId: z.string(), statement: z.string(), rollouts: z.array(Rollout).min(1) });

const config = {
  reward: { budget: 6000, alpha: 0.25, truncatedReward: 0.5 },
  dppo: { delta: 0.2 },
  gagar: { lambdaMax: 1.5 },
};

const file = new URL('./data/rollouts.jsonl', import.meta.url);
const groups = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l, i) => {
    const r = Group.safeParse(JSON.parse(l));
    if (!r.success) throw new Error(`rollouts.jsonl line ${i + 1}: ${r.error.issues[0]?.message}`);
    return r.data;
  });

const fmt = (x: number, d = 3) => (Object.is(x, -0) ? 0 : x).toFixed(d).padStart(d + 4);
const pad = (s: string, n: number) => s.padEnd(n);

console.log(`frognano demo: one RL step's numbers on ${groups.length} synthetic task groups x ${groups[0]?.rollouts.length} rollouts`);
console.log(`reward: log-length budget ${config.reward.budget} tokens, alpha ${config.reward.alpha}, truncated success = ${config.reward.truncatedReward}`);
console.log(`advantage: (R - mean) / (std + 1e-6), zero-variance filter on raw outcomes; GAGAR lambdaMax ${config.gagar.lambdaMax}; DPPO delta ${config.dppo.delta}\n`);

// Shaped rewards and raw outcomes for every rollout of every group.
const shaped = groups.map((g) => shapeRewards(g.rollouts, config.reward));
// FrogNano: std-scaled group advantages on shaped rewards, filter on raw outcomes.
const fg = groupAdvantages(
  shaped.map((s) => s.rewards),
  { filterBy: shaped.map((s) => s.raw) },
);

let totTokens = 0;
let totKept = 0;
let totDropPos = 0;
let totDropNeg = 0;
for (const [gi, g] of groups.entries()) {
  const { rewards, raw } = shaped[gi]!;
  const adv = fg.advantages[gi]!;
  const kept = fg.kept[gi]!;
  const solved = raw.filter((x) => x === 1).length;
  console.log(`── ${g.taskId}  (${solved}/${g.rollouts.length} solved, policy lag ${g.rollouts[0]!.policyLag})  ${kept ? '' : '→ DROPPED: zero variance in raw outcomes'}`);
  console.log(`   "${g.statement}"`);

  // GAGAR: rank the successful members by the judge's weighted score inside each tier.
  const weighted = g.rollouts.map((r) => (r.judge ? gagarWeightedScore(r.judge.scores) : NaN));
  const succIdx = g.rollouts.map((r, i) => (r.judge ? i : -1)).filter((i) => i >= 0);
  const coefs = new Array<number>(g.rollouts.length).fill(1);
  if (succIdx.length > 0) {
    const c = gagarCoefficients(
      succIdx.map((i) => ({ tier: g.rollouts[i]!.judge!.tier, rank: -Math.round(weighted[i]! * 20) / 20 })),
    );
    succIdx.forEach((i, k) => (coefs[i] = c[k]!));
  }
  const gd = gagarRedistributeDetailed(raw, coefs, config.gagar);
  const gagar = gd.advantages;

  // DPPO mask on each rollout's generated tokens, with its FrogNano advantage broadcast to tokens.
  const tokenAdv = broadcastToTokens(adv, g.rollouts.map((r) => r.lossMask));
  console.log(`   ${pad('#', 3)}${pad('ok', 4)}${pad('trunc', 6)}${'tokens'.padStart(7)} ${'shaped'.padStart(8)} ${'adv'.padStart(8)}  ${pad('tier', 5)}${'W'.padStart(5)} ${'coef'.padStart(6)} ${'gagar'.padStart(8)}   dppo kept/gen`);
  for (const [j, r] of g.rollouts.entries()) {
    const gen: number[] = [];
    r.lossMask.forEach((m, t) => m === 1 && gen.push(t));
    const s = dppoMaskDetailed(
      gen.map((t) => r.logpNew[t]!),
      gen.map((t) => r.logpRollout[t]!),
      gen.map((t) => tokenAdv[j]![t]!),
      config.dppo,
    );
    if (kept) {
      totTokens += gen.length;
      totKept += s.kept;
      totDropPos += s.droppedPositive;
      totDropNeg += s.droppedNegative;
    }
    console.log(
      `   ${pad(String(j), 3)}${pad(r.success ? 'yes' : 'no', 4)}${pad(r.truncated ? 'yes' : '', 6)}${String(r.assistantTokens).padStart(7)} ${fmt(rewards[j]!, 3)} ${fmt(adv[j]!, 3)}  ${pad(r.judge?.tier ?? '', 5)}${r.judge ? weighted[j]!.toFixed(2).padStart(5) : '     '} ${r.judge ? coefs[j]!.toFixed(2).padStart(6) : '      '} ${fmt(gagar[j]!, 3)}   ${kept ? `${s.kept}/${gen.length}` : '-'}`,
    );
  }
  if (gd.kept) {
    console.log(
      `   GAGAR lambda = ${gd.lambda.toFixed(3)}${gd.capped ? ` > lambdaMax: capped at ${gd.lambdaUsed}, group mean ${gd.shift.toFixed(3)} subtracted` : ' (positive mass conserved, failures unchanged)'}`,
    );
  }
  console.log('');
}

const keptGroups = fg.kept.filter(Boolean).length;
console.log('summary');
console.log(`  groups kept by the zero-variance filter: ${keptGroups}/${groups.length}`);
console.log(`  DPPO mask over generated tokens of kept groups: kept ${totKept}/${totTokens} (${((100 * totKept) / Math.max(1, totTokens)).toFixed(1)}%), dropped ${totDropPos} with A>0 (p rose > delta), ${totDropNeg} with A<=0 (p fell > delta)`);
console.log('  columns: shaped = FrogNano reward; adv = FrogNano group advantage; W = GAGAR weighted judge score;');
console.log('           coef = GAGAR tier coefficient; gagar = quality-redistributed advantage (R - mean, positive mass conserved unless lambda > lambdaMax)');
