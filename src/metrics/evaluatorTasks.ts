import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray } from '../errors/validate.js';

/**
 * One task of an evaluator-agent validation set (Verification Horizon §5.2):
 * the unit-test score `S_UT` and the evaluator's score `S_eval` of each of the
 * task's generated repositories (at most K = 4 in the paper), in the same order.
 */
export interface EvaluatorTask {
  /** Unit-test scores `S_UT^(j,k)` of the task's samples (the approximate ground truth). */
  ut: ArrayLike<number>;
  /** Evaluator scores `S_eval^(j,k)` of the same samples, same length as `ut`. */
  eval: ArrayLike<number>;
}

/**
 * Validates an evaluator-metric input: a non-empty array of tasks, each with
 * non-empty finite `ut` and `eval` of equal length.
 * @internal
 */
export function checkTasks(fn: string, tasks: unknown): readonly EvaluatorTask[] {
  if (!Array.isArray(tasks)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `tasks must be an array of { ut, eval }, got ${describeValue(tasks)}`, { fn, field: 'tasks' });
  }
  if (tasks.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'tasks must have at least 1 element, got 0', { fn, field: 'tasks' });
  for (let j = 0; j < tasks.length; j++) {
    const t: unknown = tasks[j];
    if (typeof t !== 'object' || t === null || Array.isArray(t)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `tasks[${j}] must be an object { ut, eval }, got ${describeValue(t)}`, {
        fn,
        field: `tasks[${j}]`,
        index: [j],
      });
    }
    const { ut, eval: ev } = t as { ut?: unknown; eval?: unknown };
    const a = finiteArray(fn, `tasks[${j}].ut`, ut, { minLength: 1 });
    const b = finiteArray(fn, `tasks[${j}].eval`, ev, { minLength: 1 });
    if (a.length !== b.length) {
      throw new FrognanoError(
        ErrorCode.LENGTH_MISMATCH,
        `tasks[${j}].eval has length ${b.length} but tasks[${j}].ut has length ${a.length}`,
        { fn, field: `tasks[${j}].eval`, index: [j] },
      );
    }
  }
  return tasks as EvaluatorTask[];
}

/** Index of the first maximum of a non-empty array. @internal */
export function argmaxFirst(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[best]!) best = i;
  return best;
}

/** Maximum of a non-empty array. @internal */
export function maxOf(xs: ArrayLike<number>): number {
  let m = xs[0]!;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > m) m = xs[i]!;
  return m;
}
