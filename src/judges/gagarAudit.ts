import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseWith } from '../errors/validate.js';
import { finiteMean } from '../numeric/finiteMean.js';
import { GagarTierSchema, type GagarTier } from './gagarCoefficients.js';
import { GagarScoresSchema, gagarWeightedScore } from './gagarWeightedScore.js';

/** One judged candidate of an audit group. */
export const GagarAuditCandidateSchema = z
  .object({
    /** The judge's tier. */
    tier: GagarTierSchema,
    /** The judge's order inside the tier (smaller is better, equal is a tie). */
    rank: z.number(),
    /** The five rubric scores. */
    scores: GagarScoresSchema,
    /** Which system produced the candidate (e.g. `'gagar'`, `'baseline'`), for the per-label summary. */
    label: z.string().optional(),
  })
  .strict();
/** One judged candidate of an audit group. */
export type GagarAuditCandidate = z.input<typeof GagarAuditCandidateSchema>;
const GroupListSchema = z.array(z.array(GagarAuditCandidateSchema));

/** Per-candidate audit numbers of one group, aligned with its candidates. */
export interface GagarGroupAudit {
  /** {@link gagarWeightedScore} of each candidate. */
  weightedScores: number[];
  /** Share of the other candidates of the group each one beats (a tie counts 1/2); `null` for a group of one. */
  winRates: (number | null)[];
  /** `1 / |top tie group|` for the candidates of the best tie group, 0 for the others (the group's shares sum to 1). */
  rank1Shares: number[];
}

/** Audit summary of one label. */
export interface GagarLabelAudit {
  /** Candidates carrying the label. */
  candidates: number;
  /** Groups in which the label appears. */
  groups: number;
  /** Mean weighted score of its candidates. */
  weightedScore: number;
  /** Mean win rate of its candidates against the candidates of OTHER labels in their groups; `null` when it never met another label. */
  winRate: number | null;
  /** Sum of its rank-1 shares divided by the groups it appears in: the share of groups it wins, ties split. */
  rank1Share: number;
}

/** The result of {@link gagarAudit}. */
export interface GagarAuditResult {
  /** Per-group, per-candidate numbers. */
  groups: GagarGroupAudit[];
  /** Mean weighted score over all candidates. */
  weightedScore: number;
  /** Mean win rate over all candidates that have one (groups of two or more); `null` if none. */
  winRate: number | null;
  /** Per-label summaries (only labels that were given). */
  byLabel: Record<string, GagarLabelAudit>;
}

const TIER_ORDER: Record<GagarTier, number> = { T1: 0, T2: 1, T3: 2 };

/** What {@link compareJudged} reads of a judged candidate. */
const JudgedSchema = z.looseObject({ tier: GagarTierSchema, rank: z.number() });

/**
 * -1 when `a` is judged better than `b`, 1 when worse, 0 for a tie (same tier, same rank).
 * @throws FrognanoError `INVALID_TYPE` naming `a` / `b` (or `a.tier`, `b.rank`) when either is not `{ tier, rank }`;
 *   `NON_FINITE` for a NaN or infinite rank
 */
export function compareJudged(a: { tier: GagarTier; rank: number }, b: { tier: GagarTier; rank: number }): number {
  return compareParsed(parseWith('compareJudged', 'a', JudgedSchema, a), parseWith('compareJudged', 'b', JudgedSchema, b));
}

/** {@link compareJudged} on validated candidates (the audit's inner loops). */
function compareParsed(a: { tier: GagarTier; rank: number }, b: { tier: GagarTier; rank: number }): number {
  const t = TIER_ORDER[a.tier] - TIER_ORDER[b.tier];
  if (t !== 0) return Math.sign(t);
  return Math.sign(a.rank - b.rank);
}

/** `a`'s pairwise win against `b`: 1 when judged better, 1/2 for a tie, 0 when worse. */
function winScore(a: { tier: GagarTier; rank: number }, b: { tier: GagarTier; rank: number }): number {
  return (1 - compareParsed(a, b)) / 2;
}

/**
 * The quality-audit numbers GAGAR reports (GAGAR §4.3, slide 9: weighted score
 * 4.03 vs 3.70, mean win rate 69.8%, rank-1 share 65.0% with ties split), computed
 * from a judge's verdicts on groups of successful candidates.
 *
 * The judged order is tier first (T1 > T2 > T3), then `rank` inside the tier
 * (smaller is better; equal ranks tie; T3 ranks are used too, although
 * {@link gagarCoefficients} gives every T3 candidate 0.2). Per group of `n` candidates:
 * ```
 * weightedScore_i = gagarWeightedScore(scores_i)
 * winRate_i       = (#{j != i : i better than j} + 0.5 #{j != i : tie}) / (n - 1)      (null when n = 1)
 * rank1Share_i    = 1 / |best tie group|  if i is in the best tie group, else 0
 * ```
 * Per label (the system that produced a candidate, e.g. GAGAR vs the binary-reward
 * baseline): the mean weighted score of its candidates; the mean win rate of its
 * candidates against candidates with a DIFFERENT label (the paper compares the two
 * systems' candidates); and its rank-1 share, the sum of its candidates' shares over
 * the groups it appears in divided by that number of groups. The slides do not give
 * the exact formulas; these are the standard pairwise win rate and split-tie top-1
 * share. The means are computed without overflow ({@link gagarWeightedScore} accepts any
 * finite scores, not only the judge's 1..5), so every number returned is finite.
 *
 * @param groups - per group, the judged candidates
 * @throws FrognanoError `INVALID_TYPE` (a malformed candidate, naming `groups[g][i].<field>`),
 *   `NON_FINITE` (a NaN score or rank), `EMPTY_INPUT` (no group, or an empty group `groups[g]`)
 * @example
 * const s = { approach: 4, precision: 4, minimality: 4, sideEffects: 4, consistency: 4 };
 * gagarAudit([[{ tier: 'T1', rank: 1, scores: s, label: 'gagar' }, { tier: 'T2', rank: 1, scores: s, label: 'base' }]])
 * // byLabel.gagar: { winRate: 1, rank1Share: 1, ... }, byLabel.base: { winRate: 0, rank1Share: 0, ... }
 */
export function gagarAudit(groups: readonly (readonly GagarAuditCandidate[])[]): GagarAuditResult {
  const fn = 'gagarAudit';
  if (!Array.isArray(groups)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `groups must be an array of groups, got ${describeValue(groups)}`, { fn, field: 'groups' });
  if (groups.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'groups must have at least 1 group, got 0', { fn, field: 'groups' });
  const gs = parseWith(fn, 'groups', GroupListSchema, groups);
  gs.forEach((g, k) => {
    if (g.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, `groups[${k}] must have at least 1 candidate, got 0`, { fn, field: `groups[${k}]`, index: [k] });
  });
  const out: GagarGroupAudit[] = [];
  const labels = new Map<string, { candidates: number; groups: number; ws: number[]; winSum: number; winCount: number; share: number }>();
  const allWs: number[] = [];
  let winSum = 0;
  let winCount = 0;
  for (const g of gs) {
    const n = g.length;
    const weightedScores = g.map((c) => gagarWeightedScore(c.scores));
    let best = g[0]!;
    for (const c of g) if (compareParsed(c, best) < 0) best = c;
    const top = g.filter((c) => compareParsed(c, best) === 0).length;
    const rank1Shares = g.map((c) => (compareParsed(c, best) === 0 ? 1 / top : 0));
    const winRates = g.map((c, i) => {
      if (n === 1) return null;
      let w = 0;
      for (let j = 0; j < n; j++) if (j !== i) w += winScore(c, g[j]!);
      return w / (n - 1);
    });
    out.push({ weightedScores, winRates, rank1Shares });
    const seen = new Set<string>();
    g.forEach((c, i) => {
      allWs.push(weightedScores[i]!);
      if (winRates[i] !== null) {
        winSum += winRates[i]!;
        winCount++;
      }
      if (c.label === undefined) return;
      const l = labels.get(c.label) ?? { candidates: 0, groups: 0, ws: [], winSum: 0, winCount: 0, share: 0 };
      l.candidates++;
      if (!seen.has(c.label)) {
        l.groups++;
        seen.add(c.label);
      }
      l.ws.push(weightedScores[i]!);
      l.share += rank1Shares[i]!;
      let w = 0;
      let m = 0;
      g.forEach((o, j) => {
        if (j === i || o.label === c.label) return;
        m++;
        w += winScore(c, o);
      });
      if (m > 0) {
        l.winSum += w / m;
        l.winCount++;
      }
      labels.set(c.label, l);
    });
  }
  const byLabel: Record<string, GagarLabelAudit> = {};
  for (const [name, l] of labels) {
    byLabel[name] = {
      candidates: l.candidates,
      groups: l.groups,
      weightedScore: finiteMean(l.ws),
      winRate: l.winCount > 0 ? l.winSum / l.winCount : null,
      rank1Share: l.share / l.groups,
    };
  }
  return { groups: out, weightedScore: finiteMean(allWs), winRate: winCount > 0 ? winSum / winCount : null, byLabel };
}
