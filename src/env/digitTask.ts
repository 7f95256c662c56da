import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, integerAtLeast } from '../errors/validate.js';

/** The operations of the digit task family: what the hidden test computes from the input digits. */
export const DigitOpSchema = z.enum(['reverse', 'sort', 'rotate', 'copy']);
/** `'reverse'` (last digit first), `'sort'` (ascending), `'rotate'` (first digit moved to the end), `'copy'`. */
export type DigitOp = z.infer<typeof DigitOpSchema>;

/**
 * The statement-specificity levels, from under- to over-specified (FrogNano
 * Fig. 5: the same hidden test, a different statement):
 *
 * | level | name | the statement |
 * | --- | --- | --- |
 * | 0 | `under-specified` | the input digits, the operation hidden (`*`) |
 * | 1 | `terse` | the operation and the input |
 * | 2 | `one-digit-hint` | ... and the first digit of the answer |
 * | 3 | `half-answer` | ... and the first `floor(L/2)` digits of the answer |
 * | 4 | `over-specified` | ... and all digits of the answer but the last |
 *
 * Hints are capped at `L - 1` digits, so every level leaves something to solve.
 */
export const SPECIFICITY_LEVELS = ['under-specified', 'terse', 'one-digit-hint', 'half-answer', 'over-specified'] as const;
/** The highest specificity level (4, over-specified). */
export const MAX_SPECIFICITY = SPECIFICITY_LEVELS.length - 1;

/** A task of the digit family: the input, the operation, and how specific the statement is. */
export interface DigitTask {
  /** Stable id (candidates keep their id's stem through rewrites: `c3`, `c3.r1`, ...). */
  id: string;
  /** The operation the hidden test checks. */
  op: DigitOp;
  /** The input digits (0-9); their count `L` is the difficulty. */
  digits: number[];
  /** Statement specificity, 0 (under-specified) .. 4 (over-specified); see {@link SPECIFICITY_LEVELS}. */
  specificity: number;
}

/** Token ids of the digit family (vocabulary size {@link DIGIT_VOCAB_SIZE}). */
export const DIGIT_TOKENS = {
  /** Padding (right-padding of batches). */
  pad: 0,
  /** Ends the episode: the final answer. */
  end: 1,
  /** Ends a turn with a tool call: "check my answer". */
  call: 2,
  /** Observation: the checked answer passes. */
  ok: 3,
  /** Observation: the checked answer fails. */
  no: 4,
  /** Separates the input from the answer in the statement. */
  eq: 5,
  /** The hidden operation of an under-specified statement. */
  unknownOp: 6,
  /** Operation tokens. */
  reverse: 7,
  sort: 8,
  rotate: 9,
  copy: 10,
  /** Digit `k` is token `digit0 + k`. */
  digit0: 11,
} as const;
/** Number of token ids of the digit family. */
export const DIGIT_VOCAB_SIZE = 21;
/** The character of each token id, for `DigitTaskFamily.decode`. @internal */
export const DIGIT_CHARS = ['_', '$', '?', '+', '-', '=', '*', 'R', 'S', 'T', 'C', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

/**
 * What the hidden test expects for `op` on `digits`.
 *
 * @param op - one of {@link DigitOpSchema}'s operations
 * @param digits - the input digits, integers 0-9 (a rotation of no digits is no digits)
 * @throws FrognanoError `INVALID_TYPE` (`op` not an operation, `digits` not an array or with a
 *   non-number or a hole, naming `digits[i]`), `NON_FINITE` / `OUT_OF_RANGE` (a digit that is not an integer 0-9)
 * @example digitAnswer('reverse', [3, 1, 4]) // [4, 1, 3]
 */
export function digitAnswer(op: DigitOp, digits: readonly number[]): number[] {
  const fn = 'digitAnswer';
  if (!DIGIT_OPS.has(op)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `op must be one of ${DigitOpSchema.options.map((o) => `'${o}'`).join(', ')}, got ${describeValue(op)}`, { fn, field: 'op' });
  }
  if (!Array.isArray(digits)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `digits must be an array of digits 0-9, got ${describeValue(digits)}`, { fn, field: 'digits' });
  }
  const ds = finiteArray(fn, 'digits', digits);
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i]!;
    if (!Number.isInteger(d) || d < 0 || d > 9) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `digits[${i}] must be an integer 0-9, got ${d}`, { fn, field: `digits[${i}]`, index: [i] });
    }
  }
  switch (op) {
    case 'reverse':
      return [...digits].reverse();
    case 'sort':
      return [...digits].sort((a, b) => a - b);
    case 'rotate':
      return digits.length === 0 ? [] : [...digits.slice(1), digits[0]!];
    case 'copy':
      return [...digits];
  }
}

const DIGIT_OPS: ReadonlySet<unknown> = new Set(DigitOpSchema.options);

/**
 * How many answer digits a statement of `level` reveals for an input of length `L`:
 * `[0, 0, 1, floor(L/2), L - 1][level]`, at most `L - 1`.
 *
 * @param level - the specificity level, an integer 0..{@link MAX_SPECIFICITY}
 * @param L - the input length, an integer >= 1
 * @throws FrognanoError `INVALID_TYPE` (not a number), `NON_FINITE` (NaN/±Infinity) or
 *   `OUT_OF_RANGE` (`level` not an integer 0..4, `L` not an integer >= 1), naming `level` / `L`
 * @example hintCount(3, 6) // 3
 */
export function hintCount(level: number, L: number): number {
  const fn = 'hintCount';
  integerAtLeast(fn, 'level', level, 0);
  if (level > MAX_SPECIFICITY) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `level must be an integer 0..${MAX_SPECIFICITY}, got ${level}`, { fn, field: 'level' });
  }
  integerAtLeast(fn, 'L', L, 1);
  const h = [0, 0, 1, Math.floor(L / 2), L - 1][level]!;
  return Math.min(h, L - 1);
}

/** The token of digit `d` (0-9). @internal */
export function digitToken(d: number): number {
  return DIGIT_TOKENS.digit0 + d;
}
