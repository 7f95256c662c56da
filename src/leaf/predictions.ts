/**
 * The predictions file of `frognano evaluate`: what mini-swe-agent, SWE-agent
 * and SWE-bench's own tooling write (`instance_id`, `model_name_or_path`,
 * `model_patch`), read from a JSON array, JSONL, or SWE-bench's dict form
 * `{ "<instance_id>": { instance_id, model_name_or_path, model_patch } }`.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseWith } from '../errors/validate.js';
import { type TaskRecord, taskRecords } from './taskRecords.js';

/** One prediction (unknown fields kept: SWE-agent writes more). `model_patch` null is SWE-bench's `patch_is_None`. */
export const PredictionSchema = z
  .object({
    /** The instance (task `id`) the patch is for. */
    instance_id: z.string().min(1),
    /** The model or agent that made the patch. */
    model_name_or_path: z.string().optional(),
    /** The unified diff of the model's change; null or empty when it made none. */
    model_patch: z.string().nullable(),
  })
  .loose();
/** One prediction as parsed. */
export type Prediction = z.output<typeof PredictionSchema>;

/** A prediction and where the file holds it (`record 2`, `line 3`, `key "x"`), for messages. */
export interface LocatedPrediction {
  /** `record N` (array, from 1), `line N` (JSONL) or `key "<id>"` (dict form). */
  where: string;
  /** The prediction. */
  prediction: Prediction;
}

/** SWE-bench's dict form: one JSON object (not itself a prediction) whose values are all objects. */
function dictRecords(text: string): TaskRecord[] | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null; // JSONL, or broken: the line reader says which line
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || Object.hasOwn(doc, 'instance_id')) return null;
  const entries = Object.entries(doc);
  if (!entries.every(([, v]) => typeof v === 'object' && v !== null && !Array.isArray(v))) return null;
  // a value without its own instance_id takes its key's (SWE-bench keys the dict by it)
  return entries.map(([k, v]) => ({ where: `key ${JSON.stringify(k)}`, value: { instance_id: k, ...(v as object) } }));
}

/** One record validated: errors say `<file> <where>: <field>: <what>`. */
function parsePrediction(file: string, { where, value }: TaskRecord): Prediction {
  const fn = 'loadPredictions';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: a prediction must be a JSON object, got ${describeValue(value)}`, { fn, field: where });
  }
  try {
    return parseWith('', '', PredictionSchema, value);
  } catch (e) {
    if (!(e instanceof FrognanoError)) throw e;
    const field = e.field === undefined ? where : `${where}.${e.field}`;
    throw new FrognanoError(e.code, `${file} ${where}: ${e.message}`, { fn, field });
  }
}

/**
 * Reads a predictions file: one JSON array (first character `[`), SWE-bench's
 * dict form (one object keyed by instance id), or JSONL (one prediction a line,
 * blank lines skipped). Every record is validated and instance ids are unique.
 *
 * @throws FrognanoError `INVALID_TYPE` naming the file, the record and the field
 *   (`preds.json record 2: model_patch: ...`), a duplicate `instance_id`, or a file
 *   that cannot be read; `EMPTY_INPUT` for a file without predictions
 */
export async function loadPredictions(file: string): Promise<LocatedPrediction[]> {
  const fn = 'loadPredictions';
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (e) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `cannot read the predictions file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { fn, field: 'file' });
  }
  const records = dictRecords(text) ?? taskRecords(text, file, fn);
  const seen = new Map<string, string>();
  const out: LocatedPrediction[] = [];
  for (const r of records) {
    const prediction = parsePrediction(file, r);
    const first = seen.get(prediction.instance_id);
    if (first !== undefined) throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${r.where}: instance_id: duplicate ${JSON.stringify(prediction.instance_id)} (${first} has it too)`, { fn, field: `${r.where}.instance_id` });
    seen.set(prediction.instance_id, r.where);
    out.push({ where: r.where, prediction });
  }
  if (out.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${file} holds no prediction`, { fn, field: 'file' });
  return out;
}
