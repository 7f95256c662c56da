import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, parseOptions, parseWith } from '../errors/validate.js';
import { askStructured, AskStructuredOptionsSchema } from '../llm/askStructured.js';
import { type ChatContentPart, type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { kendallTau } from '../metrics/kendallTau.js';
import { clip } from './judgeMaterial.js';
import { ldexp, unitExponent } from '../numeric/ldexp.js';

/** The six rubric dimensions of the static front-end judge (Verification Horizon §3.1). */
export const RUBRIC_DIMENSIONS = ['functional', 'content', 'visual', 'layout', 'ux', 'technical'] as const;
/** One rubric dimension. */
export type RubricDimension = (typeof RUBRIC_DIMENSIONS)[number];
/** zod: a rubric dimension. */
export const RubricDimensionSchema = z.enum(RUBRIC_DIMENSIONS);

/**
 * Dimension weights: the shares of checklist items per dimension the paper
 * reports over 671 WebDev tasks (Verification Horizon §3.1: Functional 37.7%,
 * Content 19.0%, Visual 13.3%, Layout 12.9%, UX 9.3%, Technical 7.2%). They sum
 * to 0.994 (rounding in the paper); {@link rubricScore} normalises over the
 * dimensions present.
 */
export const RUBRIC_DIMENSION_WEIGHTS: Readonly<Record<RubricDimension, number>> = Object.freeze({
  functional: 0.377,
  content: 0.19,
  visual: 0.133,
  layout: 0.129,
  ux: 0.093,
  technical: 0.072,
});

/** A checklist item's verdict: `pass` (1), `partial` (0.5), `fail` (0). */
export type RubricVerdict = 'pass' | 'partial' | 'fail';
const VERDICT_VALUE: Record<RubricVerdict, number> = { pass: 1, partial: 0.5, fail: 0 };
const RubricVerdictSchema = z.enum(['pass', 'partial', 'fail']);

/** One checklist item of a task. */
export const RubricItemSchema = z
  .object({
    /** Item id, unique in the checklist (e.g. `R1`). */
    id: z.string().min(1),
    /** Its dimension. */
    dimension: RubricDimensionSchema,
    /** What must hold, e.g. "Clicking 'Add' appends the item to the list". */
    description: z.string().min(1),
  })
  .strict();
/** One checklist item of a task. */
export type RubricItem = z.infer<typeof RubricItemSchema>;

/** Options of {@link rubricScore}. */
export const RubricScoreOptionsSchema = z
  .object({
    /** Dimension weights (finite, >= 0, at least one > 0 among the dimensions present). Default {@link RUBRIC_DIMENSION_WEIGHTS}. */
    weights: z.partialRecord(RubricDimensionSchema, z.number().min(0)).optional(),
    /**
     * `'dimension'` (default): weighted mean of the per-dimension mean item values;
     * `'item'`: plain mean over all items (weights ignored).
     */
    weighting: z.enum(['dimension', 'item']).default('dimension'),
  })
  .strict();
/** Options of {@link rubricScore} as the caller writes them. */
export type RubricScoreOptions = z.input<typeof RubricScoreOptionsSchema>;

/** The result of {@link rubricScore}. */
export interface RubricScore {
  /** The score in [0, 100]. */
  score: number;
  /** Per dimension: the number of items and their mean value in [0, 1] (`null` without items). */
  byDimension: Record<RubricDimension, { items: number; value: number | null }>;
}

const ScoredItemSchema = z.looseObject({ dimension: RubricDimensionSchema, verdict: RubricVerdictSchema });

/**
 * The rubric score of one artefact from its checklist verdicts (Verification
 * Horizon §3.1). Each item counts `pass = 1`, `partial = 0.5`, `fail = 0`; per
 * dimension `v_d` is the mean over its items; the score is
 * ```
 * score = 100 * sum_{d present} w_d v_d / sum_{d present} w_d
 * ```
 * with the paper's dimension shares as weights (Functional 0.377, Content 0.19,
 * Visual 0.133, Layout 0.129, UX 0.093, Technical 0.072). The paper gives the
 * dimensions and their shares of the checklist items but not its aggregation
 * (its prompts are in an appendix not reproduced): this weighting keeps
 * functional correctness dominant whatever the item count of a checklist, and
 * equals the plain item mean when a checklist has the paper's item shares.
 * `weighting: 'item'` gives the plain item mean. Partial credit 0.5 is this
 * library's choice. Only the ratios of the weights matter: they are rescaled by
 * a power of two before summing, so weights as large as 1e308 or as small as
 * 5e-324 give the same finite score as their ratios.
 *
 * @param items - verdicts with their dimension, at least one
 * @throws FrognanoError `EMPTY_INPUT` (no item), `INVALID_TYPE` (an unknown dimension or verdict,
 *   naming `items[i].<field>`), `OUT_OF_RANGE` (a negative weight, or all weights of the present
 *   dimensions 0)
 * @example
 * rubricScore([
 *   { dimension: 'functional', verdict: 'pass' }, { dimension: 'functional', verdict: 'fail' },
 *   { dimension: 'visual', verdict: 'pass' },
 * ]) // 100 * (0.377 * 0.5 + 0.133 * 1) / (0.377 + 0.133) = 63.04
 */
export function rubricScore(items: readonly { dimension: RubricDimension; verdict: RubricVerdict }[], opts?: RubricScoreOptions): RubricScore {
  const fn = 'rubricScore';
  const o = parseOptions(fn, RubricScoreOptionsSchema, opts);
  if (!Array.isArray(items)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `items must be an array, got ${describeValue(items)}`, { fn, field: 'items' });
  if (items.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'items must have at least 1 item, got 0', { fn, field: 'items' });
  const xs = parseWith(fn, 'items', z.array(ScoredItemSchema), items);
  return scoreParsed(fn, xs, o.weights, o.weighting);
}

function scoreParsed(fn: string, xs: readonly { dimension: RubricDimension; verdict: RubricVerdict }[], w: Partial<Record<RubricDimension, number>> | undefined, weighting: 'dimension' | 'item'): RubricScore {
  const weights = { ...RUBRIC_DIMENSION_WEIGHTS, ...(w ?? {}) };
  const sum: Record<string, number> = {};
  const count: Record<string, number> = {};
  let all = 0;
  for (const x of xs) {
    sum[x.dimension] = (sum[x.dimension] ?? 0) + VERDICT_VALUE[x.verdict];
    count[x.dimension] = (count[x.dimension] ?? 0) + 1;
    all += VERDICT_VALUE[x.verdict];
  }
  const byDimension = {} as RubricScore['byDimension'];
  let wMax = 0;
  for (const d of RUBRIC_DIMENSIONS) if ((count[d] ?? 0) > 0 && weights[d] > wMax) wMax = weights[d];
  // Weights scaled by the power of two 2^e that brings the largest present weight into [1, 2):
  // exact (the score is bit-for-bit unchanged for ordinary weights), and the sums can
  // neither overflow (weights near 1.8e308) nor lose the weights to underflow (near 5e-324).
  const e = wMax > 0 ? unitExponent(wMax) : 0;
  let num = 0;
  let den = 0;
  for (const d of RUBRIC_DIMENSIONS) {
    const c = count[d] ?? 0;
    const v = c > 0 ? sum[d]! / c : null;
    byDimension[d] = { items: c, value: v };
    if (v !== null) {
      const w = ldexp(weights[d], e);
      num += w * v;
      den += w;
    }
  }
  if (weighting === 'item') return { score: (100 * all) / xs.length, byDimension };
  if (!(den > 0)) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, 'opts.weights: every dimension present in items has weight 0', { fn, field: 'opts.weights' });
  }
  // 100 * (num / den), not (100 * num) / den: num <= den holds in float64 too (w v <= w, sums are monotone), so the score never exceeds 100.
  return { score: 100 * (num / den), byDimension };
}


/** The artefact a rubric judge scores: a generated front-end page. */
export const RubricJudgeInputSchema = z
  .object({
    /** The task specification the page was generated from. */
    task: z.string().min(1),
    /** The page's source (HTML / CSS / JS, concatenated with file headers). */
    sourceCode: z.string(),
    /** Rendered screenshots as image URLs (`https:` or `data:image/png;base64,...`); sent as image parts. */
    screenshots: z.array(z.string().min(1)).default([]),
    /** The task's checklist, at least one item with unique ids. */
    checklist: z.array(RubricItemSchema).min(1),
  })
  .strict();
/** The artefact a rubric judge scores. */
export type RubricJudgeInput = z.input<typeof RubricJudgeInputSchema>;

/** The judge's JSON answer. */
export const RubricJudgeAnswerSchema = z.looseObject({
  items: z.array(z.looseObject({ id: z.string(), verdict: RubricVerdictSchema, reason: z.string() })),
});

const RUBRIC_PROMPT_DEFAULT = `You evaluate a generated front-end web page against its task and a checklist. You see the task, the page's source code and, when available, screenshots of the rendered page. For every checklist item decide:
- "pass": the page clearly satisfies the item;
- "partial": it satisfies it only in part;
- "fail": it does not satisfy it, or the item cannot work given the source.
Judge functional correctness from the code's actual behaviour, not from how polished the page looks: a visually impressive page whose features do not work must not pass functional items.`;
const RUBRIC_PROMPT_STRICT = `${RUBRIC_PROMPT_DEFAULT}
Be strict: "pass" only when the item is fully and unambiguously satisfied; any doubt, missing edge case or unverifiable claim is "partial" or "fail".`;
const RUBRIC_FORMAT = `
Answer with one JSON object and nothing else, one entry per checklist item, in any order:
{"items": [{"id": "R1", "verdict": "pass", "reason": "..."}]}`;

/** System prompts of the two prompt variants of the paper (Default and Strict; Verification Horizon §3.1). */
export const RUBRIC_SYSTEM_PROMPTS: Readonly<Record<'default' | 'strict', string>> = Object.freeze({
  default: RUBRIC_PROMPT_DEFAULT + RUBRIC_FORMAT,
  strict: RUBRIC_PROMPT_STRICT + RUBRIC_FORMAT,
});

/** Options of {@link judgeWithRubric}. */
export const JudgeWithRubricOptionsSchema = z
  .object({
    /** The judge model (multimodal when screenshots are given). */
    model: ChatModelSchema,
    /** Prompt variant: `'default'` or `'strict'` (lower absolute scores, same ranking in the paper). Default `'default'`. */
    strictness: z.enum(['default', 'strict']).default('default'),
    /** Dimension weights, see {@link rubricScore}. */
    weights: RubricScoreOptionsSchema.shape.weights,
    /** `'dimension'` (default) or `'item'`, see {@link rubricScore}. */
    weighting: RubricScoreOptionsSchema.shape.weighting,
    /** Further calls after a malformed answer (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** Characters of source code shown. Default 40000. */
    maxSourceChars: z.number().int().min(1).default(40_000),
    /** Completion options. */
    complete: AskStructuredOptionsSchema.shape.complete,
    /** Replaces the variant's system prompt (keep the answer format). */
    systemPrompt: z.string().min(1).optional(),
  })
  .strict();
/** Options of {@link judgeWithRubric} as the caller writes them. */
export type JudgeWithRubricOptions = z.input<typeof JudgeWithRubricOptionsSchema>;

/** The result of {@link judgeWithRubric}. */
export interface RubricJudgement extends RubricScore {
  /** Every checklist item with its verdict and the judge's reason, in checklist order. */
  items: (RubricItem & { verdict: RubricVerdict; reason: string })[];
}

/**
 * The rubric-based static judge of Verification Horizon §3.1: a model reads the
 * task, the page's source and its screenshots, and marks every checklist item
 * pass / partial / fail; {@link rubricScore} turns the verdicts into a 0-100
 * score. An answer that misses, repeats or invents an item id is malformed and
 * asked again (`retries`); after that the call fails with `MODEL_ANSWER_INVALID`.
 *
 * @param input - `{ task, sourceCode, screenshots = [], checklist }`
 * @param opts - `{ model, strictness = 'default', weights?, weighting = 'dimension', retries = 2, ... }`
 * @returns the score, per-dimension values and per-item verdicts
 * @throws FrognanoError (as a rejected promise) `INVALID_TYPE` / `OUT_OF_RANGE` naming
 *   `input.<field>` / `opts.<field>` (a repeated item id is `OUT_OF_RANGE` at `input.checklist[i].id`),
 *   `MODEL_ANSWER_INVALID`, `MODEL_UNAVAILABLE`
 * @example
 * const r = await judgeWithRubric({ task, sourceCode: html, screenshots: [pngDataUrl], checklist }, { model });
 * r.score; // 0..100
 */
export async function judgeWithRubric(input: RubricJudgeInput, opts: JudgeWithRubricOptions): Promise<RubricJudgement> {
  const fn = 'judgeWithRubric';
  const o = parseOptions(fn, JudgeWithRubricOptionsSchema, opts);
  const inp = parseWith(fn, 'input', RubricJudgeInputSchema, input);
  const ids = new Map<string, RubricItem>();
  inp.checklist.forEach((it, i) => {
    if (ids.has(it.id)) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `input.checklist[${i}].id repeats ${JSON.stringify(it.id)}`, { fn, field: `input.checklist[${i}].id`, index: [i] });
    }
    ids.set(it.id, it);
  });
  const text = `# Task\n${inp.task}\n\n# Checklist\n${inp.checklist.map((it) => `- ${it.id} [${it.dimension}] ${it.description}`).join('\n')}\n\n# Source code\n\`\`\`\n${clip(inp.sourceCode, o.maxSourceChars)}\n\`\`\`${inp.screenshots.length ? `\n\n# Screenshots\n${inp.screenshots.length} screenshot(s) of the rendered page follow.` : ''}`;
  const content: string | ChatContentPart[] = inp.screenshots.length
    ? [{ type: 'text', text }, ...inp.screenshots.map((url): ChatContentPart => ({ type: 'image_url', image_url: { url } }))]
    : text;
  const messages: ChatMessage[] = [
    { role: 'system', content: o.systemPrompt ?? RUBRIC_SYSTEM_PROMPTS[o.strictness] },
    { role: 'user', content },
  ];
  const check = (a: z.infer<typeof RubricJudgeAnswerSchema>): string | null => {
    const seen = new Set<string>();
    for (const it of a.items) {
      if (!ids.has(it.id)) return `unknown checklist item id ${JSON.stringify(it.id)}`;
      if (seen.has(it.id)) return `checklist item ${it.id} is listed twice`;
      seen.add(it.id);
    }
    const missing = [...ids.keys()].filter((k) => !seen.has(k));
    return missing.length ? `checklist item(s) ${missing.join(', ')} missing: give a verdict for every item` : null;
  };
  const answer = await askStructured(o.model, messages, RubricJudgeAnswerSchema, {
    retries: o.retries,
    check,
    caller: fn,
    complete: o.complete,
  });
  const byId = new Map(answer.items.map((a) => [a.id, a]));
  const items = inp.checklist.map((it) => ({ ...it, verdict: byId.get(it.id)!.verdict, reason: byId.get(it.id)!.reason }));
  return { ...scoreParsed(fn, items, o.weights, o.weighting), items };
}

/** Options of {@link buildRubricChecklist}. */
export const BuildRubricChecklistOptionsSchema = z
  .object({
    /** The model that decomposes the task. */
    model: ChatModelSchema,
    /** Items to ask for (integer >= 1). Default 26 (the paper's checklists average 25.9 items). */
    targetItems: z.number().int().min(1).default(26),
    /** Further calls after a malformed answer (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** Completion options. */
    complete: AskStructuredOptionsSchema.shape.complete,
  })
  .strict();
/** Options of {@link buildRubricChecklist} as the caller writes them. */
export type BuildRubricChecklistOptions = z.input<typeof BuildRubricChecklistOptionsSchema>;

const ChecklistAnswerSchema = z.looseObject({
  items: z.array(z.looseObject({ dimension: RubricDimensionSchema, description: z.string().min(1) })).min(1),
});

/**
 * Asks a model to decompose a front-end task into a checklist over the six
 * dimensions (Verification Horizon §3.1: 25.9 items per task on average, shares
 * Functional 37.7%, Content 19.0%, Visual 13.3%, Layout 12.9%, UX 9.3%,
 * Technical 7.2%). Items get ids `R1..Rn` in answer order.
 *
 * @param task - the task specification
 * @param opts - `{ model, targetItems = 26, retries = 2, complete? }`
 * @throws FrognanoError (as a rejected promise) `INVALID_TYPE` (`task` not a non-empty string, a
 *   bad option), `MODEL_ANSWER_INVALID`, `MODEL_UNAVAILABLE`
 * @example const checklist = await buildRubricChecklist('A todo app with add, delete and filters', { model });
 */
export async function buildRubricChecklist(task: string, opts: BuildRubricChecklistOptions): Promise<RubricItem[]> {
  const fn = 'buildRubricChecklist';
  const o = parseOptions(fn, BuildRubricChecklistOptionsSchema, opts);
  if (typeof task !== 'string' || task.trim() === '') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `task must be a non-empty string, got ${describeValue(task)}`, { fn, field: 'task' });
  }
  const shares = RUBRIC_DIMENSIONS.map((d) => `${d} ~${Math.round(RUBRIC_DIMENSION_WEIGHTS[d] * 1000) / 10}%`).join(', ');
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: `You turn a front-end development task into a checklist of concrete, independently verifiable requirements for judging a generated page. Use the dimensions functional (features work), content (required text and data), visual (colours, typography, imagery), layout (structure, alignment, responsiveness), ux (interaction feedback, usability) and technical (code quality, errors, standards). Aim for about ${o.targetItems} items, roughly in the shares ${shares}.\nAnswer with one JSON object and nothing else:\n{"items": [{"dimension": "functional", "description": "..."}]}`,
    },
    { role: 'user', content: task },
  ];
  const a = await askStructured(o.model, messages, ChecklistAnswerSchema, { retries: o.retries, caller: fn, complete: o.complete });
  return a.items.map((it, k) => ({ id: `R${k + 1}`, dimension: it.dimension, description: it.description }));
}

/** The result of {@link rubricRankingAgreement}. */
export interface RubricRankingAgreement {
  /** Configuration names, in input order. */
  configs: string[];
  /** `tau[i][j]`: Kendall's tau of config `j`'s scores against config `i`'s (1 on the diagonal; `null` when config `i` scores every model the same). */
  tau: (number | null)[][];
  /** Smallest off-diagonal tau (`null` with one config or none defined). */
  minTau: number | null;
  /** Mean off-diagonal tau (`null` with one config or none defined). */
  meanTau: number | null;
}

/**
 * How consistently several judge configurations rank the same models
 * (Verification Horizon §3.1: six configurations — two judge models x two
 * prompts x two thinking levels — give Kendall tau = 1.0 within a judge family
 * and >= 0.93 across families).
 *
 * `scoresByConfig[c][m]` is configuration `c`'s score of model `m` (e.g. its mean
 * rubric score over the tasks); every configuration scores the same models in
 * the same order. `tau[i][j]` is the paper's Kendall tau
 * ({@link kendallTau}, Verification Horizon §5.2) with config `i` as the reference
 * (`ut`) and config `j` as the evaluator (`eval`): over the model pairs config
 * `i` orders strictly, +1 concordant, -1 discordant, 0 when config `j` ties
 * them. Without ties in config `i`, `tau[i][j] = tau[j][i]`.
 *
 * @param scoresByConfig - per configuration name, one finite score per model (at least 2 models)
 * @throws FrognanoError `EMPTY_INPUT` (no configuration, or fewer than 2 models), `INVALID_TYPE`,
 *   `NON_FINITE` (naming `scoresByConfig.<name>[m]`), `LENGTH_MISMATCH` (configurations scoring
 *   different numbers of models)
 * @example
 * rubricRankingAgreement({ 'max-default': [71, 64, 58], 'max-strict': [62, 51, 47], 'plus-default': [70, 58, 60] })
 * // tau['max-default']['max-strict'] = 1, tau['max-default']['plus-default'] = 1/3
 */
export function rubricRankingAgreement(scoresByConfig: Readonly<Record<string, ArrayLike<number>>>): RubricRankingAgreement {
  const fn = 'rubricRankingAgreement';
  if (typeof scoresByConfig !== 'object' || scoresByConfig === null || Array.isArray(scoresByConfig)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `scoresByConfig must be an object { [config]: number[] }, got ${describeValue(scoresByConfig)}`, { fn, field: 'scoresByConfig' });
  }
  const configs = Object.keys(scoresByConfig);
  if (configs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'scoresByConfig must have at least 1 configuration, got 0', { fn, field: 'scoresByConfig' });
  const rows = configs.map((c) => finiteArray(fn, `scoresByConfig.${c}`, scoresByConfig[c], { minLength: 2 }));
  rows.forEach((r, i) => {
    if (r.length !== rows[0]!.length) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `scoresByConfig.${configs[i]} has ${r.length} models but scoresByConfig.${configs[0]} has ${rows[0]!.length}`, {
        fn,
        field: `scoresByConfig.${configs[i]}`,
      });
    }
  });
  const tau = rows.map((a, i) => rows.map((b, j) => (i === j ? 1 : kendallTau([{ ut: a, eval: b }]))));
  const off: number[] = [];
  tau.forEach((row, i) => row.forEach((v, j) => i !== j && v !== null && off.push(v)));
  return {
    configs,
    tau,
    minTau: off.length ? Math.min(...off) : null,
    meanTau: off.length ? off.reduce((s, x) => s + x, 0) / off.length : null,
  };
}
