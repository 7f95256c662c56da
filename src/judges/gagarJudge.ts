import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, isArrayLikeOfAny, parseOptions, parseWith, sameLength } from '../errors/validate.js';
import { askStructured } from '../llm/askStructured.js';
import { type ChatMessage, type ChatModel, ChatModelSchema } from '../llm/chatModel.js';
import type { Trajectory } from '../schema/trajectory.js';
import { GAGAR_DIMENSIONS, type GagarDimension, perGagarDimension } from './gagarDimensions.js';
import { gagarAudit } from './gagarAudit.js';
import { gagarCoefficients, type GagarTier, GagarTierSchema } from './gagarCoefficients.js';
import { gagarRedistributeDetailed, GagarRedistributeOptionsSchema, type GagarRedistribution } from './gagarRedistribute.js';
import { type GagarScores, gagarWeightedScore } from './gagarWeightedScore.js';
import { CitationSchema, type EvidenceSource, type TrajectoryMaterial, trajectoryMaterial, verifiedQuotes } from './judgeMaterial.js';
import { judgeMaterialOptions, materialLimits, requireTrajectoryGroup, TrajectoryListSchema } from './judgeOptions.js';

export type { EvidenceSource } from './judgeMaterial.js';

/** One piece of evidence: a quote copied verbatim from the material shown to the judge. */
export interface GagarCitation {
  /** `code` (the diff), `trajectory` (the condensed trajectory) or `test` (the test results and last test run). */
  source: EvidenceSource;
  /** The verbatim quote. */
  quote: string;
}

const Score = z.number().int().min(1).max(5);
const Citations = z.array(CitationSchema).optional();

/** The JSON answer the GAGAR judge must give (checked with zod, then for evidence). */
export const GagarJudgeAnswerSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        /** Candidate label as shown (`C1`, `C2`, ...). */
        id: z.string(),
        /** The five 1-5 scores. */
        scores: z.object(perGagarDimension(() => Score)),
        /** Quotes per dimension, and for the tier. */
        evidence: z.looseObject({ ...perGagarDimension(() => Citations), tier: Citations }).optional(),
        /** `T1`, `T2` or `T3`. */
        tier: GagarTierSchema,
        /** Order inside the tier: 1 is best, equal ranks tie. */
        rank: z.number().int().min(1),
      }),
    )
    .min(1),
});
/** The JSON answer of the GAGAR judge. */
export type GagarJudgeAnswer = z.infer<typeof GagarJudgeAnswerSchema>;

/**
 * The GAGAR judge's system prompt (GAGAR §3.2, App. A.1). The paper's prompt
 * is not public; this one states the rubric, tiers and evidence rule of the
 * paper and slides. Override with `opts.systemPrompt` (keep the answer format).
 */
export const GAGAR_JUDGE_SYSTEM_PROMPT = `You are the quality judge of GAGAR. Several candidate solutions of ONE coding task all passed the task's tests. Judge how close each candidate's code change is to a directly mergeable fix, as a careful code reviewer would.

Score every candidate on five dimensions, each an integer from 1 (bad) to 5 (excellent):
- approach: does the change fix the root cause with a sound strategy?
- precision: are the edited locations right, and is the required behaviour fully covered?
- minimality: only the necessary change, no unrelated refactoring?
- sideEffects: are surrounding behaviour and public interfaces left intact?
- consistency: does it reuse existing abstractions and follow the code's conventions?

Put every candidate in a tier:
- T1: every dimension scores at least 4 and there is no severe issue.
- T2: the middle tier: it works, with noticeable weaknesses.
- T3: a severe defect, e.g. an unrequested large rewrite, or a bypass that only works for the tests (special-casing test inputs, editing or weakening tests).
Inside each tier, order the candidates with "rank": 1 is the best of its tier, 2 the next, and so on. Candidates of equal quality get equal ranks (ties are allowed).

Evidence rule: a negative judgment must cite evidence. For every dimension scored 2 or lower, and for tier T3 (under "tier"), give at least one quote copied VERBATIM from that candidate's material: "code" (its diff), "trajectory" (its condensed trajectory) or "test" (its test output). A negative judgment without such a quote is rejected. Quotes for the other dimensions are welcome.

Answer with one JSON object and nothing else, listing every candidate exactly once:
{"candidates": [{"id": "C1", "scores": {"approach": 5, "precision": 4, "minimality": 4, "sideEffects": 5, "consistency": 4}, "evidence": {"approach": [{"source": "code", "quote": "..."}], "tier": []}, "tier": "T1", "rank": 1}]}`;

/**
 * Options of {@link judgeGroupWithGagar}: the judge model, the redistribution,
 * the shuffle, and the judge options every LLM judge shares
 * (`judgeMaterialOptions`: `maxTrajectoryChars` 6000, `maxToolOutputChars` 300,
 * `maxDiffChars` 8000, `maxTestOutputChars` 2000, `minQuoteChars` 4, `retries` 2,
 * `complete`, `systemPrompt` replacing {@link GAGAR_JUDGE_SYSTEM_PROMPT}).
 */
export const JudgeGroupWithGagarOptionsSchema = z
  .object({
    /** The judge model (any {@link ChatModel}, e.g. `openAiChatModel()`). */
    model: ChatModelSchema,
    /** `lambda_max` of the redistribution (>= 1, `Infinity` allowed). Default 1.5 (GAGAR App. A.2). */
    lambdaMax: GagarRedistributeOptionsSchema.shape.lambdaMax,
    /**
     * The group's rewards, one per trajectory. Default: `outcome.success ? 1 : 0`
     * (GAGAR's binary test reward). Successes are the members above the group mean.
     */
    rewards: z
      .custom<ArrayLike<number>>((v) => isArrayLikeOfAny(v), { message: 'must be an array of numbers', params: { code: ErrorCode.INVALID_TYPE } })
      .optional(),
    /** Present the candidates in a seeded random order (against position bias). Default true. */
    shuffle: z.boolean().default(true),
    /** Seed of the shuffle. Default 0. */
    seed: z.number().int().default(0),
    ...judgeMaterialOptions().shape,
  })
  .strict();
/** Options of {@link judgeGroupWithGagar} as the caller writes them. */
export type JudgeGroupWithGagarOptions = z.input<typeof JudgeGroupWithGagarOptionsSchema>;

/** The judge's verdict on one successful trajectory. */
export interface GagarVerdict {
  /** Index of the trajectory in the input group. */
  index: number;
  /** The trajectory's id. */
  trajectoryId: string;
  /** Label the judge saw (`C1`, ...). */
  label: string;
  /** The five 1-5 scores. */
  scores: GagarScores;
  /** {@link gagarWeightedScore} of the scores. */
  weightedScore: number;
  /** The tier. */
  tier: GagarTier;
  /** Order inside the tier (1 best, equal = tie). */
  rank: number;
  /** Verified quotes per dimension and for the tier (`[]` where none was given). */
  evidence: Record<GagarDimension | 'tier', GagarCitation[]>;
}

/** The result of {@link judgeGroupWithGagar}; arrays are aligned with the input trajectories. */
export interface GagarGroupJudgement {
  /** The rewards used. */
  rewards: number[];
  /** Indices of the judged members (reward above the group mean), in input order. */
  successes: number[];
  /** The verdict of each judged member, `null` for the others. */
  verdicts: (GagarVerdict | null)[];
  /** The quality coefficient of each judged member ({@link gagarCoefficients}), `null` for the others. */
  coefficients: (number | null)[];
  /** The redistributed advantages ({@link gagarRedistribute}). */
  advantages: number[];
  /** lambda, lambdaUsed, capped, shift and kept of the redistribution. */
  redistribution: GagarRedistribution;
  /** Audit numbers of the judged members (`null` for the others); `null` when nothing was judged. */
  audit: {
    /** Weighted rubric score per member. */
    weightedScores: (number | null)[];
    /** Win rate inside the judged set (ties 1/2); `null` for a single success. */
    winRates: (number | null)[];
    /** Rank-1 share (ties split). */
    rank1Shares: (number | null)[];
    /** Mean weighted score of the judged members. */
    meanWeightedScore: number;
  } | null;
  /** The judge's raw (validated) answer, for audit logs; `null` when no call was made. */
  answer: GagarJudgeAnswer | null;
}

/** Seeded Fisher-Yates shuffle of a copy. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rng = seedrandom(`gagar:${seed}`);
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/**
 * Judges the successful members of one rollout group with an LLM and turns the
 * judgment into GAGAR's quality-redistributed advantages, in one call
 * (GAGAR §3.2, App. A; SPEC §4): trajectories -> judge -> tiers and ranks ->
 * {@link gagarCoefficients} -> {@link gagarRedistribute}.
 *
 * 1. Rewards `R` (default `outcome.success ? 1 : 0`); the judged members are
 *    those above the group mean. When all rewards are equal (or nobody is above
 *    the mean) no call is made and the advantages are those of
 *    {@link gagarRedistribute} (all 0 for an all-equal group).
 * 2. One judge call sees the task statement and, for each judged member (in a
 *    seeded random order, labelled `C1..Cm`), its condensed trajectory (tool
 *    calls, cut tool outputs), its diff and its test output. It answers the five
 *    1-5 scores with evidence per dimension, a tier and the rank inside the tier
 *    (ties allowed), as JSON ({@link GagarJudgeAnswerSchema}).
 * 3. An answer is *malformed* and asked again (up to `retries` times, with the
 *    reason fed back) when it is not valid JSON of that schema, misses or repeats a
 *    candidate, puts a candidate in T1 with a dimension below 4 (the T1
 *    definition), or makes a negative judgment (a score <= 2, or tier T3) without
 *    a quote that occurs verbatim in the cited material of that candidate (GAGAR
 *    §3.2: "negative judgments must cite code, trajectory or execution
 *    evidence"). Malformed answers never reach the numbers; after the retries
 *    the call fails with `MODEL_ANSWER_INVALID`.
 * 4. Coefficients from tiers and ranks, scattered to the group; advantages from
 *    {@link gagarRedistributeDetailed} with `lambdaMax`; audit numbers as
 *    {@link gagarAudit}.
 *
 * A single success is judged too: its advantage is unchanged unless the cap
 * binds (a T3 single success: lambda = 5 > 1.5, so it is scaled to 0.3 A and the
 * group re-centred). The paper's judge is an agent that can also open files and
 * run checks in the repository; this judge sees only the material above
 * (condensed to the `max*Chars` limits), so its quotes are checked against it.
 *
 * @param trajectories - one rollout group of one task (SPEC §9), at least one member
 * @param opts - `{ model, lambdaMax = 1.5, rewards?, retries = 2, shuffle = true, seed = 0, ... }`
 * @returns verdicts, coefficients, advantages, the redistribution details and the audit
 * @throws FrognanoError (as a rejected promise) `EMPTY_INPUT` (no trajectory), `INVALID_TYPE`
 *   (a malformed trajectory `trajectories[i]...`, a missing `trajectories[i].outcome` without
 *   `opts.rewards`, members of different tasks `trajectories[i].task.id`, a bad option),
 *   `LENGTH_MISMATCH` (`opts.rewards`), `NON_FINITE`, `OUT_OF_RANGE` (`opts.lambdaMax < 1`, ...),
 *   `MODEL_ANSWER_INVALID` (no valid judgment after the retries), `MODEL_UNAVAILABLE` (the endpoint)
 * @example
 * const model = openAiChatModel(); // FROGNANO_LLM_BASE_URL, FROGNANO_LLM_MODEL
 * const r = await judgeGroupWithGagar(group, { model, lambdaMax: 1.5 });
 * r.verdicts[0]?.tier;   // 'T1'
 * r.advantages;          // e.g. [0.775, 0.175, -0.475, -0.475]
 */
export async function judgeGroupWithGagar(trajectories: readonly Trajectory[], opts: JudgeGroupWithGagarOptions): Promise<GagarGroupJudgement> {
  const fn = 'judgeGroupWithGagar';
  requireTrajectoryGroup(fn, trajectories);
  const o = parseOptions(fn, JudgeGroupWithGagarOptionsSchema, opts);
  const ts = parseWith(fn, 'trajectories', TrajectoryListSchema, trajectories);
  const taskId = ts[0]!.task.id;
  ts.forEach((t, i) => {
    if (t.task.id !== taskId) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `trajectories[${i}].task.id is ${JSON.stringify(t.task.id)} but trajectories[0].task.id is ${JSON.stringify(taskId)}: a GAGAR group is one task`, {
        fn,
        field: `trajectories[${i}].task.id`,
        index: [i],
      });
    }
  });
  let rewards: number[];
  if (o.rewards !== undefined) {
    rewards = Array.from(finiteArray(fn, 'opts.rewards', o.rewards));
    sameLength(fn, 'trajectories', ts, 'opts.rewards', rewards);
  } else {
    rewards = ts.map((t, i) => {
      if (!t.outcome) {
        throw new FrognanoError(ErrorCode.INVALID_TYPE, `trajectories[${i}].outcome is required unless opts.rewards is given`, { fn, field: `trajectories[${i}].outcome`, index: [i] });
      }
      return t.outcome.success ? 1 : 0;
    });
  }
  const n = ts.length;
  const mean = rewards.reduce((s, x) => s + x, 0) / n;
  const allEqual = rewards.every((x) => x === rewards[0]);
  const successes = allEqual ? [] : rewards.map((r, i) => (r > mean ? i : -1)).filter((i) => i >= 0);
  const lambdaMax = o.lambdaMax;
  const empty = <T>(): (T | null)[] => new Array<T | null>(n).fill(null);

  if (successes.length === 0) {
    const redistribution = gagarRedistributeDetailed(rewards, empty<number>(), { lambdaMax });
    return { rewards, successes, verdicts: empty(), coefficients: empty(), advantages: redistribution.advantages, redistribution, audit: null, answer: null };
  }

  const order = o.shuffle ? shuffled(successes, o.seed) : successes;
  const labelOf = new Map<string, number>(); // label -> index into ts
  const materials = new Map<string, TrajectoryMaterial>();
  const lim = materialLimits(o, 500);
  const sections: string[] = [];
  order.forEach((idx, k) => {
    const label = `C${k + 1}`;
    const t = ts[idx]!;
    const m = trajectoryMaterial(t, lim);
    labelOf.set(label, idx);
    materials.set(label, m);
    sections.push(`## Candidate ${label}\n### Trajectory (condensed; [n] is the message index)\n${m.trajectory}\n### Diff (code)\n\`\`\`diff\n${m.code}\n\`\`\`\n### Test output\n${m.test}`);
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: o.systemPrompt ?? GAGAR_JUDGE_SYSTEM_PROMPT },
    {
      role: 'user',
      content: `# Task\n${ts[0]!.task.statement}\n\n# Candidates (${order.length}, all passed the tests)\n\n${sections.join('\n\n')}\n\nJudge the candidates ${[...labelOf.keys()].join(', ')} and answer with the JSON object.`,
    },
  ];

  const check = (a: GagarJudgeAnswer): string | null => {
    const seen = new Set<string>();
    for (const c of a.candidates) {
      if (!labelOf.has(c.id)) return `unknown candidate id ${JSON.stringify(c.id)}; the ids are ${[...labelOf.keys()].join(', ')}`;
      if (seen.has(c.id)) return `candidate ${c.id} is listed twice`;
      seen.add(c.id);
    }
    const missing = [...labelOf.keys()].filter((l) => !seen.has(l));
    if (missing.length) return `candidate(s) ${missing.join(', ')} missing: list every candidate exactly once`;
    for (const c of a.candidates) {
      const mat = materials.get(c.id)!;
      const ok = (cits: z.infer<typeof CitationSchema>[] | undefined): boolean => verifiedQuotes(cits, mat, o.minQuoteChars).length > 0;
      if (c.tier === 'T1') {
        const low = GAGAR_DIMENSIONS.filter((d) => c.scores[d] < 4);
        if (low.length) return `candidate ${c.id} is T1 but scores ${low.map((d) => `${d}=${c.scores[d]}`).join(', ')}: T1 needs every dimension >= 4`;
      }
      for (const d of GAGAR_DIMENSIONS) {
        if (c.scores[d] <= 2 && !ok(c.evidence?.[d])) {
          return `candidate ${c.id} scores ${d}=${c.scores[d]} without evidence: cite at least one quote copied verbatim from its code, trajectory or test output under evidence.${d}`;
        }
      }
      if (c.tier === 'T3' && !ok(c.evidence?.tier)) {
        return `candidate ${c.id} is T3 without evidence: cite at least one quote copied verbatim from its code, trajectory or test output under evidence.tier`;
      }
    }
    return null;
  };

  const answer = await askStructured(o.model, messages, GagarJudgeAnswerSchema, {
    retries: o.retries,
    check,
    caller: fn,
    complete: o.complete,
  });

  const verdicts = empty<GagarVerdict>();
  for (const c of answer.candidates) {
    const idx = labelOf.get(c.id)!;
    const mat = materials.get(c.id)!;
    const keep = (cits: z.infer<typeof CitationSchema>[] | undefined): GagarCitation[] => verifiedQuotes(cits, mat, o.minQuoteChars);
    const scores: GagarScores = { ...c.scores };
    verdicts[idx] = {
      index: idx,
      trajectoryId: ts[idx]!.id,
      label: c.id,
      scores,
      weightedScore: gagarWeightedScore(scores),
      tier: c.tier,
      rank: c.rank,
      evidence: { ...perGagarDimension((d) => keep(c.evidence?.[d])), tier: keep(c.evidence?.tier) },
    };
  }
  const judged = successes.map((i) => verdicts[i]!);
  const coefs = gagarCoefficients(judged.map((v) => ({ tier: v.tier, rank: v.rank })));
  const coefficients = empty<number>();
  successes.forEach((i, k) => (coefficients[i] = coefs[k]!));
  const redistribution = gagarRedistributeDetailed(rewards, coefficients, { lambdaMax });
  const audited = gagarAudit([judged.map((v) => ({ tier: v.tier, rank: v.rank, scores: v.scores }))]);
  const a = audited.groups[0]!;
  const weightedScores = empty<number>();
  const winRates = empty<number>();
  const rank1Shares = empty<number>();
  successes.forEach((i, k) => {
    weightedScores[i] = a.weightedScores[k]!;
    winRates[i] = a.winRates[k]!;
    rank1Shares[i] = a.rank1Shares[k]!;
  });
  return {
    rewards,
    successes,
    verdicts,
    coefficients,
    advantages: redistribution.advantages,
    redistribution,
    audit: { weightedScores, winRates, rank1Shares, meanWeightedScore: audited.weightedScore },
    answer,
  };
}
