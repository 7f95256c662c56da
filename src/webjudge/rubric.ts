import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseWith } from '../errors/validate.js';
import { RUBRIC_DIMENSION_WEIGHTS, RUBRIC_DIMENSIONS, RubricDimensionSchema, type RubricDimension } from '../judges/index.js';

/**
 * The web judge's rubric file (SPEC §13):
 * `{ "task": string, "items": [ { "id", "dimension", "text" } ] }`, the dimension one
 * of the six of Verification Horizon §3.1 (`functional, content, visual, layout, ux,
 * technical`). Item ids are unique.
 */
export const WebRubricItemSchema = z
  .object({
    /** Item id, unique in the rubric (e.g. `F1`). */
    id: z.string().min(1),
    /** Its dimension (weights: {@link WEB_JUDGE_WEIGHTS}). */
    dimension: RubricDimensionSchema,
    /** What must hold, written so that a recorded step can show it, e.g. "Clicking Add appends the typed item to the list". */
    text: z.string().min(1),
  })
  .strict();
/** One rubric item. */
export type WebRubricItem = z.infer<typeof WebRubricItemSchema>;

/** zod: a web-judge rubric (SPEC §13). */
export const WebRubricSchema = z
  .object({
    /** The task the app was built for, as the agent saw it. */
    task: z.string().min(1),
    /** The checklist, at least one item. */
    items: z.array(WebRubricItemSchema).min(1),
  })
  .strict();
/** A web-judge rubric. */
export type WebRubric = z.infer<typeof WebRubricSchema>;

/**
 * The six dimension weights, VH §3.1's shares of checklist items (Functional
 * 0.377, Content 0.190, Visual 0.133, Layout 0.129, UX 0.093, Technical 0.072):
 * the one table of `frognano/judges` (`RUBRIC_DIMENSION_WEIGHTS`), shared by the
 * static and the interactive judge.
 */
export const WEB_JUDGE_WEIGHTS: Readonly<Record<RubricDimension, number>> = RUBRIC_DIMENSION_WEIGHTS;

/**
 * Validates a rubric (a parsed JSON value): the shape of {@link WebRubricSchema} and unique item ids.
 * @throws FrognanoError `INVALID_TYPE` naming the field (`rubric.items[2].dimension`), `EMPTY_INPUT`
 *   for no item, `OUT_OF_RANGE` for a repeated id (naming `rubric.items[i].id`)
 */
export function parseWebRubric(value: unknown, fn = 'parseWebRubric'): WebRubric {
  const r = parseWith(fn, 'rubric', WebRubricSchema, value);
  const seen = new Set<string>();
  r.items.forEach((it, i) => {
    if (seen.has(it.id)) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `rubric.items[${i}].id repeats ${JSON.stringify(it.id)}`, { fn, field: `rubric.items[${i}].id`, index: [i] });
    }
    seen.add(it.id);
  });
  return r;
}

/**
 * Reads and validates a rubric file (JSON).
 * @throws FrognanoError `INVALID_TYPE` (unreadable, not JSON, or not a rubric: the message names the file and field)
 */
export async function loadWebRubric(path: string): Promise<WebRubric> {
  const fn = 'loadWebRubric';
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `cannot read the rubric file ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { fn, field: 'path', cause: e });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${path} is not JSON: ${(e as Error).message}`, { fn, field: 'path', cause: e });
  }
  try {
    return parseWebRubric(value, fn);
  } catch (e) {
    if (e instanceof FrognanoError) throw new FrognanoError(e.code, `${path}: ${e.message.replace(/^loadWebRubric: /, '')}`, { fn, field: e.field, index: e.index });
    throw e;
  }
}

/** zod: the items {@link webJudgeScore} scores, `{ dimension, passed }` each (other fields are kept). */
const ScoreItemsSchema = z.array(z.looseObject({ dimension: RubricDimensionSchema, passed: z.boolean() }));

/** The score of {@link webJudgeScore} with its parts. */
export interface WebJudgeScore {
  /** The score in [0, 1]. */
  score: number;
  /** Per dimension: items, items passed, and the pass rate (`null` without items). */
  byDimension: Record<RubricDimension, { items: number; passed: number; rate: number | null }>;
}

/**
 * The interactive judge's score (SPEC §13; Verification Horizon §3.1 weights):
 * ```
 * score = sum_d w_d * passed_d / items_d  /  sum_{d present} w_d      in [0, 1]
 * ```
 * over the dimensions `d` that have at least one item, `w_d` from
 * {@link WEB_JUDGE_WEIGHTS}. A dimension with many items does not outweigh
 * functional correctness; with the paper's item shares it equals the plain pass rate.
 *
 * @param items - `{ dimension, passed }` per rubric item, at least one
 * @throws FrognanoError `EMPTY_INPUT` (no item), `INVALID_TYPE` (naming `items[i].dimension` / `items[i].passed`)
 * @example
 * webJudgeScore([{ dimension: 'functional', passed: true }, { dimension: 'functional', passed: false }, { dimension: 'ux', passed: true }])
 * // (0.377 * 0.5 + 0.093 * 1) / (0.377 + 0.093) = 0.6989...
 */
export function webJudgeScore(items: readonly { dimension: RubricDimension; passed: boolean }[]): WebJudgeScore {
  const fn = 'webJudgeScore';
  const xs = parseWith(fn, 'items', ScoreItemsSchema, items);
  if (xs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'items must have at least 1 item, got 0', { fn, field: 'items' });
  const byDimension = {} as WebJudgeScore['byDimension'];
  for (const d of RUBRIC_DIMENSIONS) byDimension[d] = { items: 0, passed: 0, rate: null };
  for (const x of xs) {
    byDimension[x.dimension].items++;
    if (x.passed) byDimension[x.dimension].passed++;
  }
  let num = 0;
  let den = 0;
  for (const d of RUBRIC_DIMENSIONS) {
    const b = byDimension[d];
    if (b.items === 0) continue;
    b.rate = b.passed / b.items;
    num += WEB_JUDGE_WEIGHTS[d] * b.rate;
    den += WEB_JUDGE_WEIGHTS[d];
  }
  // num <= den term by term, so num / den <= 1 in float64 as well
  return { score: num / den, byDimension };
}
