import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

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
 * Shifts and right-pads sequences for a teacher-forced pass: the model reads
 * `tokens[0..n-1)` and position `t` predicts `tokens[t+1]`, so masks,
 * rollout log-probs and advantages are taken at `1..n)`. Padding (after each
 * sequence) has mask 0; a causal model never sees it from a real position.
 *
 * @throws FrognanoError `EMPTY_INPUT` (no sequence, or one shorter than 2 tokens), `LENGTH_MISMATCH` (mask or log-probs of another length)
 * @example padBatch([{ tokens: [5, 6, 7], lossMask: [0, 1, 1] }], 0).targets // Int32Array [6, 7]
 */
export function padBatch(seqs: readonly SequenceInput[], padToken: number): PaddedBatch {
  const fn = 'padBatch';
  if (seqs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'seqs must not be empty', { fn, field: 'seqs' });
  let T = 0;
  seqs.forEach((s, i) => {
    if (s.tokens.length < 2) {
      throw new FrognanoError(ErrorCode.EMPTY_INPUT, `seqs[${i}].tokens must have at least 2 tokens, got ${s.tokens.length}`, {
        fn,
        field: `seqs[${i}].tokens`,
        index: [i],
      });
    }
    if (
      s.lossMask.length !== s.tokens.length ||
      (s.logpRollout !== undefined && s.logpRollout.length !== s.tokens.length) ||
      (s.advantages !== undefined && s.advantages.length !== s.tokens.length)
    ) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `seqs[${i}]: lossMask, logpRollout and advantages must have the length of tokens (${s.tokens.length})`, {
        fn,
        field: `seqs[${i}]`,
        index: [i],
      });
    }
    T = Math.max(T, s.tokens.length - 1);
  });
  const B = seqs.length;
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
