import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../../src/backend/useBackend.js';
import { aggregateTokenLoss, type AggregateMode } from '../../src/losses/aggregateTokenLoss.js';
import { TEST_BACKENDS } from '../helpers/backends.js';
import { read, scalar } from '../helpers/tensors.js';

/**
 * verl's own `agg_loss` tests, their inputs and expected values, single data-parallel rank
 * (frognano has no `dp_size` / `global_batch_size`):
 * - verl-project/verl `tests/trainer/ppo/test_loss_aggregation_on_cpu.py` at commit
 *   9895e05e2196d1cb930d7149e86526226215b55a (the Dr. GRPO `seq-mean-token-sum-norm` oracle
 *   `sum(seq sums of non-empty rows) / (rows * normalizer)`, added after PR #5417);
 * - the `token-sum` test of verl's loss-aggregation suite (`test_token_sum_masks_tokens_and_scales_for_dp`,
 *   `l = [[1, 2, 30], [4, 50, 6]]`, `m = [[1, 1, 0], [1, 0, 1]]`, expected `(1 + 2 + 4 + 6) * dp_size`; here
 *   `dp_size = 1`), whose input is also SPEC §3's example (seq-mean-token-sum-norm = 2.1667). The
 *   stored copy of that file did not name its path or commit; the inputs are quoted from it.
 */
const L3 = [
  [1, 2, 3, 4],
  [5, 6, 7, 8],
  [9, 10, 11, 12],
];
const M3 = [
  [1, 1, 0, 0],
  [1, 1, 1, 0],
  [1, 0, 0, 0],
];

describe.each(TEST_BACKENDS)('verl agg_loss reference cases on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });
  const agg = (l: number[][], m: number[][], aggregate: AggregateMode, lossScaleFactor?: number) =>
    scalar(aggregateTokenLoss(tf.tensor2d(l), tf.tensor2d(m), { aggregate, lossScaleFactor }));

  it('test_seq_mean_token_sum_norm_matches_single_dp_oracle: (3 + 18 + 9) / (3 * 4) = 2.5', async () => {
    expect(await agg(L3, M3, 'seq-mean-token-sum-norm')).toBeCloseTo(2.5, 6);
  });
  it('test_seq_mean_token_sum_norm_respects_loss_scale_factor: 30 / (3 * 10) = 1', async () => {
    expect(await agg(L3, M3, 'seq-mean-token-sum-norm', 10)).toBeCloseTo(1, 6);
  });
  it('test_seq_mean_token_sum_norm_gradient_scale: d loss / d l = m / (3 * 8)', async () => {
    const g = tf.grad((l: tf.Tensor) => aggregateTokenLoss(l, tf.tensor2d(M3), { aggregate: 'seq-mean-token-sum-norm', lossScaleFactor: 8 }))(tf.tensor2d(L3));
    (await read(g)).forEach((v, i) => expect(v).toBeCloseTo(M3.flat()[i]! / 24, 7));
  });
  it('test_seq_mean_token_sum_norm_dp_average_matches_full_batch (the full batch): 53 / (4 * 6), gradient m / 24', async () => {
    const l = [
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
      [10, 11, 12],
    ];
    const m = [
      [1, 1, 0],
      [1, 0, 0],
      [1, 1, 1],
      [1, 0, 1],
    ];
    expect(await agg(l, m, 'seq-mean-token-sum-norm', 6)).toBeCloseTo(53 / 24, 6);
    const g = tf.grad((x: tf.Tensor) => aggregateTokenLoss(x, tf.tensor2d(m), { aggregate: 'seq-mean-token-sum-norm', lossScaleFactor: 6 }))(tf.tensor2d(l));
    (await read(g)).forEach((v, i) => expect(v).toBeCloseTo(m.flat()[i]! / 24, 7));
  });
  it('test_seq_mean_token_sum_norm_empty_rows_are_explicit (the fallback): the empty row is left out, 10 / (2 * 3)', async () => {
    const l = [
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ];
    const m = [
      [1, 1, 0],
      [0, 0, 0],
      [1, 0, 0],
    ];
    expect(await agg(l, m, 'seq-mean-token-sum-norm', 3)).toBeCloseTo(10 / 6, 6);
  });
  it('test_token_sum_masks_tokens_and_scales_for_dp (dp_size 1): 1 + 2 + 4 + 6 = 13; SPEC §3 example 2.1667', async () => {
    const l = [
      [1, 2, 30],
      [4, 50, 6],
    ];
    const m = [
      [1, 1, 0],
      [1, 0, 1],
    ];
    expect(await agg(l, m, 'token-sum')).toBeCloseTo(13, 5);
    expect(await agg(l, m, 'seq-mean-token-sum-norm')).toBeCloseTo(2.1667, 4);
    expect(await agg(l, m, 'seq-mean-token-sum-norm')).toBeCloseTo(13 / 6, 6);
    expect(await agg(l, m, 'seq-mean-token-sum')).toBeCloseTo(6.5, 6);
    expect(await agg(l, m, 'seq-mean-token-mean')).toBeCloseTo((1.5 + 5) / 2, 6);
    expect(await agg(l, m, 'token-mean')).toBeCloseTo(13 / 4, 6);
  });
});
