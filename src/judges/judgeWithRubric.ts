import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith } from '../errors/validate.js';
import { askStructured } from '../llm/askStructured.js';
import { type ChatContentPart, type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { clip } from './judgeMaterial.js';
import { judgeMaterialOptions } from './judgeOptions.js';
import { type RubricItem, RubricItemSchema, type RubricVerdict, RubricVerdictSchema } from './rubricItems.js';
import { type RubricScore, RubricScoreOptionsSchema, scoreParsed } from './rubricScore.js';

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

/**
 * Options of {@link judgeWithRubric}, with the shared judge options `retries`
 * (default 2), `complete` and `systemPrompt` (replaces the variant's prompt of
 * {@link RUBRIC_SYSTEM_PROMPTS}).
 */
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
    /** Characters of source code shown. Default 40000. */
    maxSourceChars: z.number().int().min(1).default(40_000),
    ...judgeMaterialOptions().pick({ retries: true, complete: true, systemPrompt: true }).shape,
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
 *   `EMPTY_INPUT` (an empty `input.checklist`),
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
