import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, sameLength } from '../errors/validate.js';
import { booleanArray } from '../metrics/reciprocalRankReward.js';

/** Options of {@link taskQualityMetrics}. */
export const TaskQualityMetricsOptionsSchema = z
  .object({
    /** Which label value is the positive class. Default `true` (a good / aligned task); `false` scores the judge as a detector of bad tasks. */
    positive: z.boolean().default(true),
  })
  .strict();
/** Options of {@link taskQualityMetrics} as the caller writes them. */
export type TaskQualityMetricsOptions = z.input<typeof TaskQualityMetricsOptionsSchema>;

/** The result of {@link taskQualityMetrics}. */
export interface TaskQualityMetrics {
  /** `tp / (tp + fp)`; 0 when nothing is predicted positive. */
  precision: number;
  /** `tp / (tp + fn)`; 0 when no label is positive. */
  recall: number;
  /** `2 P R / (P + R)`; 0 when `P + R = 0`. */
  f1: number;
  /** Share of predictions equal to their label. */
  accuracy: number;
  /** True positives. */
  tp: number;
  /** False positives. */
  fp: number;
  /** False negatives. */
  fn: number;
  /** True negatives. */
  tn: number;
}

/** {@link booleanArray} with at least one element. */
function checkBooleans(fn: string, field: string, v: unknown): readonly boolean[] {
  const b = booleanArray(fn, field, v);
  if (b.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${field} must have at least 1 element, got 0`, { fn, field });
  return b;
}

/**
 * Precision, recall and F1 of a task-quality judge against human labels
 * (Verification Horizon §2.2, Table 1: per dimension, instruct_clear /
 * instruct_ut_align / overall_good). Pass one dimension's predictions and labels.
 * ```
 * precision = tp / (tp + fp)     recall = tp / (tp + fn)     F1 = 2 P R / (P + R)
 * ```
 * A zero denominator gives 0 (scikit-learn's `zero_division=0`), never NaN.
 *
 * @param predictions - the judge's labels
 * @param labels - the human labels, same length
 * @param opts - `{ positive = true }`: the label value counted as positive
 * @throws FrognanoError `INVALID_TYPE` (not an array of booleans, naming `predictions[i]` /
 *   `labels[i]`), `EMPTY_INPUT`, `LENGTH_MISMATCH` (`labels`)
 * @example taskQualityMetrics([true, true, false, false], [true, false, true, false]) // { precision: 0.5, recall: 0.5, f1: 0.5, accuracy: 0.5, ... }
 */
export function taskQualityMetrics(predictions: readonly boolean[], labels: readonly boolean[], opts?: TaskQualityMetricsOptions): TaskQualityMetrics {
  const fn = 'taskQualityMetrics';
  const { positive } = parseOptions(fn, TaskQualityMetricsOptionsSchema, opts);
  const p = checkBooleans(fn, 'predictions', predictions);
  const l = checkBooleans(fn, 'labels', labels);
  sameLength(fn, 'predictions', p, 'labels', l);
  let tp = 0;
  let fp = 0;
  let fnc = 0;
  let tn = 0;
  for (let i = 0; i < p.length; i++) {
    const pp = p[i] === positive;
    const lp = l[i] === positive;
    if (pp && lp) tp++;
    else if (pp) fp++;
    else if (lp) fnc++;
    else tn++;
  }
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fnc === 0 ? 0 : tp / (tp + fnc);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, accuracy: (tp + tn) / p.length, tp, fp, fn: fnc, tn };
}
