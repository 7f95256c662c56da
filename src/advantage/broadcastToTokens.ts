import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, sameLength } from '../errors/validate.js';

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
 * @param sequenceAdvantages - one advantage per sequence (e.g. the flattened rows of {@link groupAdvantages})
 * @param lossMasks - one 0/1 mask per sequence; rows may differ in length
 * @throws FrognanoError `LENGTH_MISMATCH` (one mask per advantage), `NON_FINITE`, `OUT_OF_RANGE` (a mask value other than 0 or 1)
 * @example broadcastToTokens([0.5, -1], [[0, 1, 1], [0, 0, 1, 1]]) // [[0, 0.5, 0.5], [0, 0, -1, -1]]
 */
export function broadcastToTokens(sequenceAdvantages: ArrayLike<number>, lossMasks: ArrayLike<number>[]): number[][] {
  const fn = 'broadcastToTokens';
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
      else {
        throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `lossMasks[${i}][${t}] must be 0 or 1, got ${v}`, {
          fn,
          field: `lossMasks[${i}][${t}]`,
          index: [i, t],
        });
      }
    }
    out[i] = row;
  }
  return out;
}
