import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, isArrayLikeOfAny, parseOptions, sameLength } from '../errors/validate.js';

/** Options of {@link broadcastToTokens} (flat form only). */
export const BroadcastToTokensOptionsSchema = z
  .object({
    /**
     * Packed sequences: the number of tokens of each sequence in the flat mask
     * (integers >= 0 summing to its length), as `torch.repeat_interleave(adv, seqLengths)`.
     * Default: padded rows of equal length `lossMask.length / sequenceAdvantages.length`
     * (verl's `[batch, responseLength]` `response_mask`).
     */
    seqLengths: z.custom<ArrayLike<number>>().optional(),
  })
  .strict();
/** Options of {@link broadcastToTokens} as the caller writes them. */
export type BroadcastToTokensOptions = z.input<typeof BroadcastToTokensOptionsSchema>;

/**
 * Broadcasts one advantage per sequence onto its trainable tokens
 * (FrogNano §4.1: "the advantage A_ij is broadcast to model-generated tokens,
 * tool observations are masked from the loss"; SPEC §2).
 *
 * ```
 * out[i][t] = sequenceAdvantages[i]   if lossMasks[i][t] = 1   (model-generated token)
 *           = 0                       if lossMasks[i][t] = 0   (prompt, tool output, padding)
 * ```
 *
 * Two forms:
 * - nested: `lossMasks` one 0/1 row per sequence (rows may differ in length);
 *   returns `number[][]`.
 * - flat: `lossMask` one typed array (or a flat `number[]`) holding every
 *   sequence's mask back to back, either padded rows of one length (verl:
 *   `advantages = scores.unsqueeze(-1) * response_mask` on `[batch, L]`) or packed
 *   with `opts.seqLengths`; returns one `Float64Array` of the mask's length.
 *   The advantages and the mask are checked in the loop that writes the result.
 *
 * Errors name the sequence and the token in both forms (`lossMasks[i][t]`).
 *
 * @param sequenceAdvantages - one advantage per sequence (e.g. {@link groupAdvantages}' flat `advantages`)
 * @param lossMasks - one 0/1 mask per sequence (nested), or all of them back to back (flat)
 * @throws FrognanoError `LENGTH_MISMATCH` (one mask per advantage; a flat mask that is not
 *   `n` rows of one length or whose `seqLengths` do not sum to its length), `NON_FINITE`,
 *   `INVALID_TYPE`, `OUT_OF_RANGE` (a mask value other than 0 or 1, a negative or fractional length)
 * @example broadcastToTokens([0.5, -1], [[0, 1, 1], [0, 0, 1, 1]]) // [[0, 0.5, 0.5], [0, 0, -1, -1]]
 * @example broadcastToTokens(Float64Array.of(0.5, -1), Uint8Array.of(0, 1, 1, 0, 1, 0)) // Float64Array [0, 0.5, 0.5, 0, -1, 0]
 */
export function broadcastToTokens(sequenceAdvantages: ArrayLike<number>, lossMasks: readonly ArrayLike<number>[]): number[][];
export function broadcastToTokens(sequenceAdvantages: ArrayLike<number>, lossMask: ArrayLike<number>, opts?: BroadcastToTokensOptions): Float64Array;
export function broadcastToTokens(
  sequenceAdvantages: ArrayLike<number>,
  lossMasks: readonly ArrayLike<number>[] | ArrayLike<number>,
  opts?: BroadcastToTokensOptions,
): number[][] | Float64Array {
  const fn = 'broadcastToTokens';
  const flat =
    ArrayBuffer.isView(lossMasks) || opts !== undefined || (Array.isArray(lossMasks) && lossMasks.length > 0 && typeof lossMasks[0] === 'number');
  if (flat) return broadcastFlat(fn, sequenceAdvantages, lossMasks as ArrayLike<number>, parseOptions(fn, BroadcastToTokensOptionsSchema, opts));
  const adv = finiteArray(fn, 'sequenceAdvantages', sequenceAdvantages);
  if (!Array.isArray(lossMasks)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'lossMasks must be an array of arrays', { fn, field: 'lossMasks' });
  }
  sameLength(fn, 'sequenceAdvantages', adv, 'lossMasks', lossMasks);
  const out: number[][] = new Array(adv.length);
  for (let i = 0; i < adv.length; i++) {
    const m = finiteArray(fn, 'lossMasks', lossMasks[i], { indexPrefix: [i] });
    const a = adv[i]!;
    const row = new Array<number>(m.length);
    for (let t = 0; t < m.length; t++) {
      const v = m[t];
      if (v === 1) row[t] = a;
      else if (v === 0) row[t] = 0;
      else badMask(fn, i, t, v);
    }
    out[i] = row;
  }
  return out;
}

function badMask(fn: string, i: number, t: number, v: unknown): never {
  const where = `lossMasks[${i}][${t}]`;
  const code = typeof v !== 'number' ? ErrorCode.INVALID_TYPE : v - v !== 0 ? ErrorCode.NON_FINITE : ErrorCode.OUT_OF_RANGE;
  const what = code === ErrorCode.OUT_OF_RANGE ? 'must be 0 or 1' : 'must be a finite number';
  throw new FrognanoError(code, `${where} ${what}, got ${describeValue(v)}`, { fn, field: where, index: [i, t] });
}

/** The flat form: padded rows of one length, or packed rows of `seqLengths`. */
function broadcastFlat(
  fn: string,
  adv: ArrayLike<number>,
  mask: ArrayLike<number>,
  p: z.output<typeof BroadcastToTokensOptionsSchema>,
): Float64Array {
  if (!isArrayLikeOfAny(adv)) finiteArray(fn, 'sequenceAdvantages', adv);
  if (!isArrayLikeOfAny(mask)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `lossMask must be a flat array or typed array of 0/1, got ${describeValue(mask)}`, { fn, field: 'lossMasks' });
  }
  const n = adv.length;
  const total = mask.length;
  const lengths = p.seqLengths === undefined ? null : checkLengths(fn, p.seqLengths, n, total);
  let rowLen = 0;
  if (lengths === null) {
    if (n === 0 ? total !== 0 : total % n !== 0) {
      throw new FrognanoError(
        ErrorCode.LENGTH_MISMATCH,
        `lossMask has length ${total}, not ${n} padded rows of one length (pass opts.seqLengths for packed sequences)`,
        { fn, field: 'lossMasks' },
      );
    }
    rowLen = n === 0 ? 0 : total / n;
  }
  const out = new Float64Array(total);
  const words = mask instanceof Uint8Array && mask.byteOffset % 4 === 0 ? new Uint32Array(mask.buffer, mask.byteOffset, total >> 2) : null;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const a = adv[i];
    if (typeof a !== 'number' || a - a !== 0) finiteArray(fn, 'sequenceAdvantages', adv);
    const end = k + (lengths === null ? rowLen : lengths[i]!);
    if (words !== null) fillRuns(fn, mask as Uint8Array, words, out, a!, i, k, end);
    else {
      for (let j = k; j < end; j++) {
        const m = mask[j];
        if (m === 1) out[j] = a!;
        else if (m !== 0) badMask(fn, i, j - k, m);
      }
    }
    k = end;
  }
  return out;
}

/**
 * A `Uint8Array` mask, four bytes at a time where aligned: each run of ones
 * becomes one `fill` (a native loop) and each 0/1 check one word test
 * (`w & 0xfefefefe` is 0 exactly when every byte is 0 or 1).
 */
function fillRuns(fn: string, mask: Uint8Array, words: Uint32Array, out: Float64Array, a: number, i: number, start: number, end: number): void {
  let j = start;
  let run = -1;
  while (j < end) {
    if ((j & 3) === 0 && j + 4 <= end) {
      const w = words[j >> 2]!;
      if (w === 0x01010101) {
        if (run < 0) run = j;
        j += 4;
        continue;
      }
      if (w === 0) {
        if (run >= 0) out.fill(a, run, j);
        run = -1;
        j += 4;
        continue;
      }
    }
    const m = mask[j];
    if (m === 1) {
      if (run < 0) run = j;
    } else if (m === 0) {
      if (run >= 0) out.fill(a, run, j);
      run = -1;
    } else badMask(fn, i, j - start, m);
    j++;
  }
  if (run >= 0) out.fill(a, run, end);
}

/** `seqLengths`: `n` integers >= 0 summing to `total`. */
function checkLengths(fn: string, lengths: unknown, n: number, total: number): ArrayLike<number> {
  const ls = finiteArray(fn, 'opts.seqLengths', lengths);
  sameLength(fn, 'sequenceAdvantages', { length: n }, 'opts.seqLengths', ls);
  let sum = 0;
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i]!;
    if (!Number.isInteger(l) || l < 0) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.seqLengths[${i}] must be an integer >= 0, got ${l}`, { fn, field: `opts.seqLengths[${i}]`, index: [i] });
    }
    sum += l;
  }
  if (sum !== total) {
    throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `opts.seqLengths sum to ${sum} but lossMask has length ${total}`, { fn, field: 'opts.seqLengths' });
  }
  return ls;
}
