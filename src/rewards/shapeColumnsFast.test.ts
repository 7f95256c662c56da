import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapeColumnsU8 } from './shapeColumnsFast.js';
import { shapeRewards, type ShapeRewardOptions } from './shapeReward.js';
import { expectSameOutcome, outcomeOf } from '../../test/helpers/sameOutcome.js';

/**
 * The fast path of the columnar shapeRewards (Uint8Array flags, Uint32Array tokens)
 * against the general loop, reached through the public function with the same values
 * as plain arrays: the same bits, or the same error (code, message, field, index).
 */

/** Both paths on the same columns; `shift` puts the flags at a byte offset (1-3: the per-byte loop). */
function compare(s: number[], t: number[], tok: number[], opts: ShapeRewardOptions, shift = 0): void {
  const at = <T extends Uint8Array | Uint32Array>(make: (b: ArrayBuffer, o: number, n: number) => T, bytes: number, xs: number[]): T => {
    const v = make(new ArrayBuffer((xs.length + shift) * bytes), shift * bytes, xs.length);
    v.set(xs);
    return v;
  };
  const u8 = (b: ArrayBuffer, o: number, n: number) => new Uint8Array(b, o, n);
  const cols = { success: at(u8, 1, s), truncated: at(u8, 1, t), assistantTokens: at((b, o, n) => new Uint32Array(b, o, n), 4, tok) };
  expectSameOutcome(
    outcomeOf(() => shapeRewards(cols, opts)),
    outcomeOf(() => shapeRewards({ success: s, truncated: t, assistantTokens: tok }, opts)),
  );
}

const flag = fc.oneof({ weight: 30, arbitrary: fc.integer({ min: 0, max: 1 }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) });
const tokens = fc.oneof(fc.integer({ min: 0, max: 20000 }), fc.constantFrom(0, 999, 1000, 1001, 2 ** 31, 2 ** 32 - 1));
const options = fc.record({
  budget: fc.constantFrom(1, 1000, 1000.5, 6000, 2 ** 32),
  alpha: fc.constantFrom(0, 0.1, 0.25, 1, 1e308),
  truncatedReward: fc.constantFrom(0.5, 0, -1, 1e300),
  lengthPenalty: fc.boolean(),
  floor: fc.constantFrom(-Infinity, 0, 0.3, 2, -1e308, Infinity),
});

describe('shapeRewards: the Uint8Array / Uint32Array columns fast path', () => {
  it('property: the same bits and the same errors as the general loop (flags 0-255, edge token counts and options, offsets)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.infiniteStream(flag),
        fc.infiniteStream(flag),
        fc.infiniteStream(tokens),
        options,
        fc.integer({ min: 0, max: 3 }),
        (n, ss, ts, toks, opts, shift) => compare([...ss.take(n)], [...ts.take(n)], [...toks.take(n)], opts, shift),
      ),
      { numRuns: 500 },
    );
  });

  it('batches past the memo threshold (70,000 outcomes): the same bits, and the first bad index late in the batch', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const n = 70_000;
    const s: number[] = Array.from({ length: n }, () => (rnd() < 0.5 ? 1 : 0));
    const t: number[] = Array.from({ length: n }, () => (rnd() < 0.1 ? 1 : 0));
    // token counts past the memo's 65,536 slots too (two counts sharing a slot)
    const tok = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? Math.floor(1000 + rnd() * 12000) : Math.floor(rnd() * 300_000)));
    const opts = { budget: 6000, alpha: 0.25 };
    compare(s, t, tok, opts);
    compare(s, t, tok, { ...opts, floor: 0.2 }, 2);
    s[69_990] = 2;
    t[69_995] = 7;
    compare(s, t, tok, opts);
    s[69_990] = 1;
    t[69_990] = 0;
    tok[69_990] = 2 ** 32 - 1;
    compare(s, t, tok, { budget: 1, alpha: 1e308 }); // a reward beyond float64 names opts.alpha and outcomes[i]
  });

  it('takes ordinary columns (so the comparisons above compare two paths) and stops at a bad flag', () => {
    const p = { budget: 10, alpha: 0.5, truncatedReward: 0.5, lengthPenalty: true, floor: -Infinity };
    const rewards = new Float64Array(3);
    const raw = new Uint8Array(3);
    expect(shapeColumnsU8(Uint8Array.of(1, 1, 0), Uint8Array.of(0, 1, 0), Uint32Array.of(20, 5, 7), p, rewards, raw)).toBe(true);
    expect(Array.from(rewards)).toEqual([1 - 0.5 * Math.log(2), 0.5, 0]);
    expect(Array.from(raw)).toEqual([1, 1, 0]);
    expect(shapeColumnsU8(Uint8Array.of(1, 2, 0), Uint8Array.of(0, 0, 0), Uint32Array.of(20, 5, 7), p, new Float64Array(3), new Uint8Array(3))).toBe(false);
  });
});
