/**
 * The fast path of the columnar {@link shapeRewards}: `Uint8Array` success / truncated
 * flags and `Uint32Array` token counts (what a trainer holding tensors passes), checked
 * in the same pass that computes the shaped reward of FrogNano §4.2 (SPEC §1):
 * ```
 * not success -> 0;  success and truncated -> truncatedReward;  lengthPenalty off -> 1
 * completed success -> max(floor, n <= N ? 1 : 1 - alpha ln(n / N))
 * ```
 * It computes the very same float64 operations as the general loop of
 * `shapeReward.ts`, so every bit agrees; at the first value it does not take (a flag
 * other than 0/1, a reward that is not finite) it stops and the caller runs the
 * general loop, which throws the coded error naming the first bad element. A
 * `Uint32Array` holds only integers in [0, 2^32): every token count is valid.
 *
 * Per chunk of {@link CHUNK} outcomes: one branch-free pass checks the flags (four at
 * a time, as 32-bit words, where both columns are 4-byte aligned), writes every reward
 * a 4-entry table gives (indexed by `(success << 1) | truncated`) and gathers the
 * indices of the completed successes; a second pass gives those their length reward.
 * Random flags then cost no branch mispredictions. The raw outcomes are the success
 * column itself, copied once at the end. On large batches the length rewards go
 * through a memo keyed by the token count (see {@link MEMO_MIN}); `logInto` of
 * `numeric/simd` was measured no faster than `Math.log` here, so it is not used.
 * @internal
 * @module
 */

/** The parsed options the pass reads (those of `ShapeRewardOptionsSchema`). */
export interface ShapeConstants {
  /** Budget `N` (>= 1). */
  budget: number;
  /** Penalty strength (>= 0). */
  alpha: number;
  /** Reward of a truncated success. */
  truncatedReward: number;
  /** Apply the log-length penalty. */
  lengthPenalty: boolean;
  /** Lower clamp of the penalised reward. */
  floor: number;
}

/** Outcomes per chunk: the candidates' indices of one chunk stay in L1. A multiple of 4. */
const CHUNK = 4096;
/** Scratch of one chunk (the pass is synchronous): indices of the completed successes. */
const idx = new Int32Array(CHUNK);
/** The reward of each `(success << 1) | truncated`, but for completed successes over budget. */
const table = new Float64Array(4);
/** 1 at `(success << 1) | truncated` = 2 (a completed success) when the length penalty is on. */
const candidate = new Uint8Array(4);

/**
 * From this many outcomes on, the penalised rewards go through a direct-mapped memo
 * keyed by the token count (`MEMO_SIZE` entries, cleared per call): a batch's counts
 * lie below the context length, so most of them repeat, and a lookup is far cheaper
 * than `Math.log`. The memo holds the value the formula gives for that count, so no
 * bit changes.
 */
const MEMO_MIN = 1 << 16;
const MEMO_SIZE = 1 << 16;
let memoKeys: Float64Array | null = null;
/** Byte 0 of a 32-bit word is its low byte (the word loop reads 4 flags at a time). */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
let memoVals: Float64Array | null = null;

/**
 * Writes the shaped rewards and raw outcomes of the columns into `rewards` / `raw`
 * (zero-filled, of the columns' length). Returns true when every element was
 * taken, false at the first one it did not take (the outputs are then partial).
 */
export function shapeColumnsU8(
  success: Uint8Array,
  truncated: Uint8Array,
  tokens: Uint32Array,
  p: ShapeConstants,
  rewards: Float64Array,
  raw: Uint8Array,
): boolean {
  const n = success.length;
  const budget = p.budget;
  const alpha = p.alpha;
  const floor = p.floor;
  table[0] = 0;
  table[1] = 0;
  table[2] = p.lengthPenalty ? Math.max(floor, 1) : 1; // completed success within budget (or no penalty)
  table[3] = p.truncatedReward;
  candidate[2] = p.lengthPenalty ? 1 : 0;
  const within = table[2]!;
  const memo = n >= MEMO_MIN;
  if (memo && memoKeys === null) {
    memoKeys = new Float64Array(MEMO_SIZE);
    memoVals = new Float64Array(MEMO_SIZE);
  }
  const keys = memoKeys!;
  const vals = memoVals!;
  if (memo) keys.fill(-1); // no token count is -1
  // 4 flags per 32-bit word where both flag columns are 4-byte aligned
  const words = LITTLE_ENDIAN && success.byteOffset % 4 === 0 && truncated.byteOffset % 4 === 0;
  const sw = words ? new Uint32Array(success.buffer, success.byteOffset, n >> 2) : null;
  const tw = words ? new Uint32Array(truncated.buffer, truncated.byteOffset, n >> 2) : null;
  for (let c = 0; c < n; c += CHUNK) {
    const end = Math.min(n, c + CHUNK);
    let m = 0;
    let i = c;
    if (sw !== null && tw !== null) {
      for (; i + 4 <= end; i += 4) {
        const a = sw[i >> 2]!;
        const b = tw[i >> 2]!;
        if (((a | b) & 0xfefefefe) !== 0) return false; // a flag other than 0 / 1
        const w = (a << 1) | b; // (success << 1) | truncated in each byte
        const k0 = w & 3;
        const k1 = (w >>> 8) & 3;
        const k2 = (w >>> 16) & 3;
        const k3 = w >>> 24;
        rewards[i] = table[k0]!;
        rewards[i + 1] = table[k1]!;
        rewards[i + 2] = table[k2]!;
        rewards[i + 3] = table[k3]!;
        // branch-free gather of the completed successes
        idx[m] = i;
        m += candidate[k0]!;
        idx[m] = i + 1;
        m += candidate[k1]!;
        idx[m] = i + 2;
        m += candidate[k2]!;
        idx[m] = i + 3;
        m += candidate[k3]!;
      }
    }
    for (; i < end; i++) {
      const s = success[i]!;
      const t = truncated[i]!;
      if ((s | t) > 1) return false;
      const k = (s << 1) | t;
      rewards[i] = table[k]!;
      idx[m] = i;
      m += candidate[k]!;
    }
    // the completed successes: the log-length penalty past the budget
    for (let j = 0; j < m; j++) {
      const at = idx[j]!;
      const tok = tokens[at]!;
      if (memo) {
        const h = tok & (MEMO_SIZE - 1);
        if (keys[h] === tok) {
          rewards[at] = vals[h]!;
          continue;
        }
      }
      const r = tok <= budget ? within : Math.max(floor, 1 - alpha * Math.log(tok / budget));
      if (r - r !== 0) return false;
      if (memo) {
        const h = tok & (MEMO_SIZE - 1);
        keys[h] = tok;
        vals[h] = r;
      }
      rewards[at] = r;
    }
  }
  raw.set(success); // every flag checked 0 / 1: the raw outcome is the success flag
  return true;
}
