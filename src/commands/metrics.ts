import { z } from 'zod';
import { bonAccuracy, kendallTau, macroPearson, macroSpearman, meanRegret, thresholdScore, type EvaluatorTask } from '../metrics/index.js';
import type { RecordCommand, RecordProcessor } from './command.js';
import { numberFlag } from './flags.js';
import { callLibrary, checkedArray, IdSchema, parseRecord, RecordError, withId } from './record.js';

/** One task of an evaluator validation set: unit-test and evaluator scores of its samples. */
const TaskShape = {
  /** Unit-test scores of the task's samples. */
  ut: checkedArray<number>('number', 1),
  /** Evaluator scores of the same samples. */
  eval: checkedArray<number>('number', 1),
};

/** A line that is one task of the aggregated set. */
export const MetricsTaskRecordSchema = z.object({ id: IdSchema, ...TaskShape }).strict();

/** A line that is a whole evaluation set (one output line per input line). */
export const MetricsSetRecordSchema = z
  .object({
    id: IdSchema,
    /** The tasks of the set. */
    tasks: z.array(z.unknown()),
    /** Evaluator-score threshold of `thresholdScore`; overrides `--theta`. */
    theta: z.number().optional(),
  })
  .strict();

/** The evaluator-agent metrics of one evaluation set (Verification Horizon §5.2). */
export interface MetricsOutput {
  id?: string | number;
  /** Number of tasks. */
  tasks: number;
  bonAccuracy: number;
  meanRegret: number;
  kendallTau: number | null;
  macroPearson: number | null;
  macroSpearman: number | null;
  /** With a theta: `thresholdScore(tasks, theta)`. */
  thresholdScore?: { theta: number; mean: number | null; count: number };
}

/** Every metric of one set; library errors name `tasks[j]...`, and `rename` (when given) maps them to the record's names. */
export function evaluatorMetrics(tasks: readonly EvaluatorTask[], theta: number | undefined, rename?: (e: RecordError) => RecordError): MetricsOutput {
  try {
    const out: MetricsOutput = {
      tasks: tasks.length,
      bonAccuracy: callLibrary(() => bonAccuracy(tasks)),
      meanRegret: callLibrary(() => meanRegret(tasks)),
      kendallTau: callLibrary(() => kendallTau(tasks)),
      macroPearson: callLibrary(() => macroPearson(tasks)),
      macroSpearman: callLibrary(() => macroSpearman(tasks)),
    };
    if (theta !== undefined) out.thresholdScore = { theta, ...callLibrary(() => thresholdScore(tasks, theta)) };
    return out;
  } catch (e) {
    if (e instanceof RecordError && rename) throw rename(e);
    throw e;
  }
}

/**
 * Computes the metrics of one `{ tasks, theta? }` record (the service's
 * `POST /v1/metrics` body, or a `frognano metrics` line holding a whole set).
 * @throws RecordError naming `tasks[j].ut`, `tasks[j].eval`, `theta`
 */
export function metricsSetRecord(value: unknown, defaultTheta?: number): MetricsOutput {
  const rec = parseRecord(MetricsSetRecordSchema, value);
  return withId(rec.id, evaluatorMetrics(rec.tasks as EvaluatorTask[], rec.theta ?? defaultTheta));
}

function metricsProcessor(theta: number | undefined): RecordProcessor {
  const tasks: EvaluatorTask[] = [];
  const where: string[] = [];
  let mode: 'tasks' | 'sets' | undefined;
  return {
    process(value, at) {
      const isSet = typeof value === 'object' && value !== null && 'tasks' in value;
      const m = isSet ? 'sets' : 'tasks';
      if (mode !== undefined && mode !== m) {
        throw new RecordError(
          'INVALID_TYPE',
          mode === 'tasks' ? 'a "tasks" set line in a file of task lines; use one form per file' : 'a task line in a file of "tasks" set lines; use one form per file',
        );
      }
      if (m === 'sets') {
        const out = metricsSetRecord(value, theta);
        mode = m;
        return out;
      }
      const rec = parseRecord(MetricsTaskRecordSchema, value);
      if (rec.ut.length !== rec.eval.length) {
        throw new RecordError('LENGTH_MISMATCH', `eval has length ${rec.eval.length} but ut has length ${rec.ut.length}`, 'eval');
      }
      mode = m;
      tasks.push({ ut: rec.ut, eval: rec.eval });
      where.push(at);
      return undefined;
    },
    finish() {
      if (mode !== 'tasks') return [];
      const rename = (e: RecordError): RecordError => {
        const m = /tasks\[(\d+)\]\.?/.exec(e.message);
        const j = m ? Number(m[1]) : undefined;
        if (j === undefined || where[j] === undefined) return e;
        const msg = e.message.replace(/tasks\[\d+\]\.?/g, '');
        return new RecordError(e.code, msg, e.field?.replace(/^tasks\[\d+\]\.?/, '') || undefined, where[j]);
      };
      return [evaluatorMetrics(tasks, theta, rename)];
    },
  };
}

/** `frognano metrics`: the evaluator-agent metrics of Verification Horizon §5.2 (SPEC §6). */
export const metricsCommand: RecordCommand<number | undefined> = {
  name: 'metrics',
  summary: 'evaluator-agent metrics (BoN accuracy, regret, Kendall tau, macro Pearson/Spearman, threshold score)',
  calls: 'bonAccuracy, meanRegret, kendallTau, macroPearson, macroSpearman, thresholdScore (frognano/metrics)',
  input: `{ "ut": number[], "eval": number[], "id"? }      one task per line; all lines form ONE set,
                                                 one output line at the end (holds the tasks in memory)
{ "tasks": { "ut", "eval" }[], "theta"?: number, "id"? }   one whole set per line, one output line each
  ut: unit-test scores of the task's samples; eval: the evaluator's scores of the same samples`,
  output: `{ "tasks": number, "bonAccuracy": number, "meanRegret": number, "kendallTau": number|null,
  "macroPearson": number|null, "macroSpearman": number|null,
  "thresholdScore"?: { "theta", "mean": number|null, "count" }, "id"? }   (thresholdScore with --theta or theta)`,
  flags: {
    theta: { type: 'string', value: 'X', description: 'also report thresholdScore: mean ut over samples with eval >= X' },
  },
  examples: [
    {
      command: 'frognano metrics --theta 8',
      input: '{"ut":[0.2,0.9],"eval":[3,8]}\n{"ut":[0.5,0.1],"eval":[8,9]}',
      output: '{"tasks":2,"bonAccuracy":0.5,"meanRegret":0.2,"kendallTau":0,"macroPearson":0,"macroSpearman":0,"thresholdScore":{"theta":8,"mean":0.5,"count":3}}',
    },
  ],
  configure: (flags) => numberFlag(flags, 'theta'),
  create: (theta) => metricsProcessor(theta),
};
