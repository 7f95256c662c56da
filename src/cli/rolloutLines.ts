/**
 * The lines `frognano rollout` writes, read back by `frognano leaf-report` and
 * `frognano rollout --resume`: what a line must hold, and the reader that
 * names the line of a bad one (`rollouts.jsonl line 7: taskId is required (a string)`).
 * @module
 */
import { z } from 'zod';
import { parseRecord, RecordError } from '../commands/index.js';
import type { RolloutRecord, Termination } from '../leaf/index.js';
import { TrajectorySchema } from '../schema/index.js';
import { InvalidInputError } from './run.js';
import { MAX_LINE_LIMIT, readLines } from './jsonl.js';

const TERMINATIONS = ['stop', 'maxTurns', 'maxContextTokens', 'maxSeconds', 'length', 'error', 'aborted'] as const satisfies readonly Termination[];
const count = z.number().min(0);

/** `provenance` of a line: the task record's hash and frognano's version (absent in lines of older versions). */
const ProvenanceSchema = z.looseObject({ taskHash: z.string(), frognano: z.string() });

/** One `frognano rollout` line: the fields the HTML report reads, each checked; unknown fields kept. */
export const RolloutLineSchema = TrajectorySchema.extend({
  taskId: z.string(),
  episode: z.number().int().min(0),
  termination: z.enum(TERMINATIONS),
  turns: count,
  toolCalls: count,
  seconds: count,
  compactions: z.array(z.looseObject({ atMessage: count, historyTokens: z.number(), budget: z.number(), droppedGroups: count, summary: z.string(), summaryTokens: z.number(), tokensAfter: z.number() })),
  hacking: z.array(z.looseObject({ code: z.string(), evidence: z.string(), messageIndex: z.number().int().min(0) })),
  reward: z.number().nullable(),
  advantage: z.number().nullable(),
  grading: z
    .looseObject({
      exitCode: z.number().nullable(),
      timedOut: z.boolean(),
      output: z.string(),
      seconds: z.number(),
      reason: z.string().optional(),
      error: z.string().optional(),
      diffError: z.string().optional(),
      diffCut: z.looseObject({ reason: z.string(), shownFiles: count, omittedFiles: count }).optional(),
      dropped: z.array(z.string()).optional(),
    })
    .optional(),
  ignoredChanges: z.array(z.looseObject({ path: z.string(), bytes: count })).optional(),
  error: z.string().optional(),
  provenance: ProvenanceSchema.optional(),
});

/** What `--resume` reads of a line: its task, episode and the task record's hash. */
export const ResumeLineSchema = z.looseObject({
  taskId: z.string(),
  episode: z.number().int().min(0),
  provenance: z.looseObject({ taskHash: z.string() }).optional(),
});

/**
 * One line parsed with `schema`.
 * @throws RecordError `not JSON: ...`, `a record must be a JSON object, got ...`, or the first schema issue naming the field
 */
export function parseRolloutLine<S extends z.ZodType>(schema: S, text: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RecordError('INVALID_JSON', `not JSON: ${(e as Error).message}`);
  }
  return parseRecord(schema, value);
}

/**
 * Every line of `source` (blank lines skipped), numbered from 1, as strict
 * UTF-8 (a BOM at the start dropped). A line that is not UTF-8 is an
 * {@link InvalidInputError} `<name> line N: ...`.
 */
export async function* numberedLines(source: AsyncIterable<Buffer | string>, name: string): AsyncGenerator<{ line: number; text: string }> {
  let line = 0;
  try {
    for await (const text of readLines(source, { maxLineBytes: MAX_LINE_LIMIT })) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } catch (e) {
    if (e instanceof RecordError) throw new InvalidInputError(`${name} ${e.where ?? `line ${line + 1}`}: ${e.message}`);
    throw e;
  }
}

/**
 * The records of a `frognano rollout` output (JSONL), each checked with
 * {@link RolloutLineSchema}, in file order.
 * @param name - the file as the user named it, for messages
 * @throws InvalidInputError `<name> line N: <what is wrong, naming the field>` at the first bad line
 */
export async function readRolloutRecords(source: AsyncIterable<Buffer | string>, name: string): Promise<RolloutRecord[]> {
  const out: RolloutRecord[] = [];
  for await (const { line, text } of numberedLines(source, name)) {
    try {
      out.push(parseRolloutLine(RolloutLineSchema, text) as RolloutRecord);
    } catch (e) {
      if (e instanceof RecordError) throw new InvalidInputError(`${name} line ${line}: ${e.message}`);
      throw e;
    }
  }
  return out;
}
