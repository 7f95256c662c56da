import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions } from '../errors/validate.js';
import { askStructured } from '../llm/askStructured.js';
import { judgeMaterialOptions } from './judgeOptions.js';
import { type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { RUBRIC_DIMENSION_WEIGHTS, RUBRIC_DIMENSIONS, type RubricItem, RubricDimensionSchema } from './rubricItems.js';

/** Options of {@link buildRubricChecklist}, with the shared judge options `retries` (default 2) and `complete`. */
export const BuildRubricChecklistOptionsSchema = z
  .object({
    /** The model that decomposes the task. */
    model: ChatModelSchema,
    /** Items to ask for (integer >= 1). Default 26 (the paper's checklists average 25.9 items). */
    targetItems: z.number().int().min(1).default(26),
    ...judgeMaterialOptions().pick({ retries: true, complete: true }).shape,
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
