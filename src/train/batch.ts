import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, isArrayLikeOfAny } from '../errors/validate.js';

/** One sequence for a teacher-forced forward pass. */
export interface SequenceInput {
  /** The full token sequence (prompt, assistant tokens, observations). */
  tokens: readonly number[];
  /** 1 for tokens that are trained on; same length as `tokens`. */
  lossMask: readonly number[];
  /** Rollout log-probs, same length as `tokens` (for DPPO); omitted for SFT. */
  logpRollout?: readonly number[];
  /** Per-token advantages, same length as `tokens` (for DPPO; from `broadcastToTokens`). */
  advantages?: readonly number[];
}

/** Right-padded, shifted arrays `[B, T - 1]` of a batch (row-major). */
export interface PaddedBatch {
  /** Rows. */
  batch: number;
  /** Columns: the longest sequence minus one. */
  length: number;
  /** `tokens[0 .. n-1)` of each row, padded. */
  inputs: Int32Array;
  /** `tokens[1 .. n)` of each row (the predicted tokens), padded. */
  targets: Int32Array;
  /** `lossMask[1 .. n)`, 0 on padding. */
  lossMask: Float32Array;
  /** `logpRollout[1 .. n)`, 0 on padding. */
  logpRollout: Float32Array;
  /** `advantages[1 .. n)`, 0 on untrained tokens and padding. */
  advantages: Float32Array;
  /** Number of trained tokens `|T|`. */
  tokens: number;
}

/**
 * The most cells `B * (T - 1)` one padded batch may have (2^26 = 67 108 864, about
 * 1.3 GB over its five arrays): a batch of 256 sequences of 32 768 tokens is 8.4 M.
 * A larger batch (one long sequence among many short ones pads them all) is refused.
 */
export const PAD_BATCH_MAX_CELLS = 2 ** 26;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** The largest finite float32. */
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Shifts and right-pads sequences for a teacher-forced pass: the model reads
 * `tokens[0..n-1)` and position `t` predicts `tokens[t+1]`, so masks,
 * rollout log-probs and advantages are taken at `1..n)`. Padding (after each
 * sequence) has mask 0; a causal model never sees it from a real position.
 *
 * Every input is checked first: token ids (and `padToken`) are int32 integers,
 * masks, log-probs and advantages are finite numbers a float32 holds.
 *
 * @throws FrognanoError `EMPTY_INPUT` (no sequence, or one shorter than 2 tokens), `LENGTH_MISMATCH`
 *   (mask or log-probs of another length), `INVALID_TYPE` (`seqs` not an array of
 *   `{ tokens, lossMask }` objects, a hole, a non-number element, naming `seqs[i].tokens[t]`),
 *   `NON_FINITE` (NaN/±Infinity), `OUT_OF_RANGE` (a token id or `padToken` that is not an int32
 *   integer, a value beyond the float32 range, more than {@link PAD_BATCH_MAX_CELLS} cells)
 * @example padBatch([{ tokens: [5, 6, 7], lossMask: [0, 1, 1] }], 0).targets // Int32Array [6, 7]
 */
export function padBatch(seqs: readonly SequenceInput[], padToken: number): PaddedBatch {
  const fn = 'padBatch';
  if (!Array.isArray(seqs)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `seqs must be an array of { tokens, lossMask }, got ${describeValue(seqs)}`, { fn, field: 'seqs' });
  }
  if (seqs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'seqs must not be empty', { fn, field: 'seqs' });
  int32(fn, 'padToken', padToken, undefined);
  let T = 0;
  for (let i = 0; i < seqs.length; i++) {
    const s: unknown = seqs[i];
    if (s === null || typeof s !== 'object' || Array.isArray(s)) {
      const hole = s === undefined && !(i in seqs);
      throw new FrognanoError(
        ErrorCode.INVALID_TYPE,
        hole ? `seqs[${i}] is a hole of a sparse array (arrays must have every element)` : `seqs[${i}] must be { tokens, lossMask }, got ${describeValue(s)}`,
        { fn, field: `seqs[${i}]`, index: [i] },
      );
    }
    const { tokens, lossMask, logpRollout, advantages } = s as Record<string, unknown>;
    const where = `seqs[${i}]`;
    const toks = arrayOf(fn, `${where}.tokens`, tokens, i);
    if (toks.length < 2) {
      throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${where}.tokens must have at least 2 tokens, got ${toks.length}`, {
        fn,
        field: `${where}.tokens`,
        index: [i],
      });
    }
    const mask = arrayOf(fn, `${where}.lossMask`, lossMask, i);
    const logp = logpRollout === undefined ? undefined : arrayOf(fn, `${where}.logpRollout`, logpRollout, i);
    const adv = advantages === undefined ? undefined : arrayOf(fn, `${where}.advantages`, advantages, i);
    if (mask.length !== toks.length || (logp !== undefined && logp.length !== toks.length) || (adv !== undefined && adv.length !== toks.length)) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `${where}: lossMask, logpRollout and advantages must have the length of tokens (${toks.length})`, {
        fn,
        field: where,
        index: [i],
      });
    }
    for (let t = 0; t < toks.length; t++) int32(fn, `${where}.tokens[${t}]`, toks[t], [i, t], toks, t);
    float32s(fn, `${where}.lossMask`, mask, i);
    if (logp !== undefined) float32s(fn, `${where}.logpRollout`, logp, i);
    if (adv !== undefined) float32s(fn, `${where}.advantages`, adv, i);
    T = Math.max(T, toks.length - 1);
  }
  const B = seqs.length;
  if (B * T > PAD_BATCH_MAX_CELLS) {
    throw new FrognanoError(
      ErrorCode.OUT_OF_RANGE,
      `seqs pad to ${B} x ${T} = ${B * T} cells, more than ${PAD_BATCH_MAX_CELLS} (PAD_BATCH_MAX_CELLS): split the batch or bound the sequence length`,
      { fn, field: 'seqs' },
    );
  }
  const inputs = new Int32Array(B * T).fill(padToken);
  const targets = new Int32Array(B * T).fill(padToken);
  const lossMask = new Float32Array(B * T);
  const logpRollout = new Float32Array(B * T);
  const advantages = new Float32Array(B * T);
  let tokens = 0;
  seqs.forEach((s, b) => {
    const n = s.tokens.length - 1;
    const off = b * T;
    for (let t = 0; t < n; t++) {
      inputs[off + t] = s.tokens[t]!;
      targets[off + t] = s.tokens[t + 1]!;
      const m = s.lossMask[t + 1]!;
      lossMask[off + t] = m;
      if (m === 1) {
        tokens++;
        if (s.logpRollout !== undefined) logpRollout[off + t] = s.logpRollout[t + 1]!;
        if (s.advantages !== undefined) advantages[off + t] = s.advantages[t + 1]!;
      }
    }
  });
  return { batch: B, length: T, inputs, targets, lossMask, logpRollout, advantages, tokens };
}

/** An array (or typed array) field of `seqs[i]`. */
function arrayOf(fn: string, field: string, v: unknown, i: number): ArrayLike<unknown> {
  if (!isArrayLikeOfAny(v)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be an array of numbers, got ${describeValue(v)}`, { fn, field, index: [i] });
  }
  return v;
}

/** Checks an int32 integer (a token id); `arr` / `t` tell a hole from an `undefined` element. */
function int32(fn: string, field: string, x: unknown, index: number[] | undefined, arr?: ArrayLike<unknown>, t?: number): void {
  if (typeof x === 'number' && Number.isInteger(x) && x >= INT32_MIN && x <= INT32_MAX) return;
  if (x === undefined && arr !== undefined && !(t! in (arr as object))) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} is a hole of a sparse array (arrays must have every element)`, { fn, field, index });
  }
  if (typeof x !== 'number') throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be a token id (an integer), got ${describeValue(x)}`, { fn, field, index });
  if (x - x !== 0) throw new FrognanoError(ErrorCode.NON_FINITE, `${field} must be a finite integer, got ${describeValue(x)}`, { fn, field, index });
  throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${field} must be an int32 integer, got ${x}`, { fn, field, index });
}

/** Checks finite numbers a float32 holds (a mask, log-probs, advantages), naming `field[t]`. */
function float32s(fn: string, field: string, arr: ArrayLike<unknown>, i: number): void {
  for (let t = 0; t < arr.length; t++) {
    const x = arr[t];
    if (typeof x === 'number' && x - x === 0 && x <= FLOAT32_MAX && x >= -FLOAT32_MAX) continue;
    const where = `${field}[${t}]`;
    const index = [i, t];
    if (x === undefined && !(t in (arr as object))) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} is a hole of a sparse array (arrays must have every element)`, { fn, field: where, index });
    }
    if (typeof x !== 'number') throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} must be a finite number, got ${describeValue(x)}`, { fn, field: where, index });
    if (x - x !== 0) throw new FrognanoError(ErrorCode.NON_FINITE, `${where} must be a finite number, got ${describeValue(x)}`, { fn, field: where, index });
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} is ${x}, beyond the float32 range (±3.4e38)`, { fn, field: where, index });
  }
}
