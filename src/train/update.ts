import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { broadcastToTokens } from '../advantage/broadcastToTokens.js';
import { groupAdvantages } from '../advantage/groupAdvantages.js';
import type { Environment } from '../env/environment.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith } from '../errors/validate.js';
import { dppoDiagnostics, dppoLoss, DppoLossOptionsSchema } from '../losses/dppoLoss.js';
import { tokenEntropy } from '../losses/tokenEntropy.js';
import { tokenLogProbs } from '../losses/tokenLogProbs.js';
import { ShapeRewardOptionsSchema, shapeRewards } from '../rewards/shapeReward.js';
import { OutcomeSchema } from '../schema/outcome.js';
import { type Adam, clipByGlobalNorm } from './adam.js';
import { padBatch, type SequenceInput } from './batch.js';
import type { Policy } from './policy.js';
import { type RolloutGroup, verdictRates } from './rollout.js';

/** Options of {@link dppoUpdate}. */
export const DppoUpdateOptionsSchema = z
  .object({
    /** Sampling temperature of the rollouts; the learner divides its logits by it too (as verl). 0 (greedy) counts as 1. Default 1. */
    temperature: z.number().min(0).default(1),
    /** Reward shaping (`shapeRewards`): `{ budget, alpha, truncatedReward = 0.5, lengthPenalty = true, floor }`. */
    reward: ShapeRewardOptionsSchema,
    /** Options of `dppoLoss` (`delta = 0.2`, ...). */
    dppo: DppoLossOptionsSchema.optional(),
    /** Global-norm gradient clipping threshold. Default 1 (verl's `grad_clip`). */
    clipNorm: z.number().gt(0).default(1),
    /** Adam step size for this update; default: the optimizer's own. */
    learningRate: z.number().gt(0).optional(),
  })
  .strict();
/** Options of {@link dppoUpdate} as the caller writes them. */
export type DppoUpdateOptions = z.input<typeof DppoUpdateOptionsSchema>;

/** What one update did, for the JSONL log (FrogNano §4; Fig. 9 / 10 quantities). */
export interface UpdateStats {
  /** Task groups in the batch. */
  groups: number;
  /** Groups dropped by the zero-variance filter on raw outcomes. */
  zeroVarianceGroups: number;
  /** Rollouts in the batch. */
  rollouts: number;
  /** Share of rollouts whose raw outcome is a success (the training solve rate). */
  solveRate: number;
  /** Mean shaped reward. */
  meanReward: number;
  /** Share of rollouts that were truncated. */
  truncatedRate: number;
  /** Mean assistant-generated tokens per rollout. */
  meanAssistantTokens: number;
  /** Trained tokens `|T|` (of kept groups). */
  tokens: number;
  /** `|K| / |T|`: tokens the DPPO mask kept (1 when nothing was trained). */
  keptTokenFraction: number;
  /** Tokens with `A > 0` the mask dropped. */
  droppedPositive: number;
  /** Tokens with `A <= 0` the mask dropped. */
  droppedNegative: number;
  /** Mean `rho = p / q` over trained tokens. */
  meanRho: number;
  /** Mean entropy (nats) of the tempered next-token distribution over trained tokens. */
  entropy: number;
  /** The DPPO loss. */
  loss: number;
  /** Gradient global norm before clipping. */
  gradNorm: number;
  /** True when every group was dropped and no step was taken. */
  skipped: boolean;
}

/** Shaped rewards, raw outcomes and group advantages of a batch (the pure half of an update). */
export interface GroupAdvantageResult {
  /** Shaped rewards per group (`shapeRewards`). */
  rewards: number[][];
  /** Raw outcomes (1 / 0) per group, the zero-variance filter's input. */
  raw: number[][];
  /** `groupAdvantages(rewards, { filterBy: raw })`. */
  advantages: number[][];
  /** Which groups survived the filter. */
  kept: boolean[];
}

/** What {@link groupRewardsAndAdvantages} reads of rollout groups: the verdicts. */
const RewardGroupsSchema = z.array(z.looseObject({ rollouts: z.array(z.looseObject({ verdict: OutcomeSchema })) }));

/**
 * Rewards and advantages of rollout groups, composed from the library's
 * primitives (FrogNano §4.1-4.2): `shapeRewards` (log-length penalty,
 * 0.5 for truncated successes) then `groupAdvantages` on the shaped rewards
 * with the zero-variance filter on the RAW outcomes.
 *
 * @throws FrognanoError `INVALID_TYPE` / `NON_FINITE` / `OUT_OF_RANGE` naming `groups[i].rollouts[j].verdict.<field>`
 *   (groups must be `[{ rollouts: [{ verdict: { success, truncated, assistantTokens } }] }]`) or `reward.<field>`;
 *   `EMPTY_INPUT` for no group or a group without rollouts; a reward beyond float64 as `shapeRewards`
 * @example const { advantages, kept } = groupRewardsAndAdvantages(groups, { budget: 8, alpha: 0.2 });
 */
export function groupRewardsAndAdvantages<T>(
  groups: readonly RolloutGroup<T>[],
  reward: z.input<typeof ShapeRewardOptionsSchema>,
): GroupAdvantageResult {
  const fn = 'groupRewardsAndAdvantages';
  const gs = parseWith(fn, 'groups', RewardGroupsSchema, groups);
  if (gs.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'groups must not be empty', { fn, field: 'groups' });
  gs.forEach((g, i) => {
    if (g.rollouts.length === 0) {
      throw new FrognanoError(ErrorCode.EMPTY_INPUT, `groups[${i}].rollouts must not be empty`, { fn, field: `groups[${i}].rollouts`, index: [i] });
    }
  });
  parseWith(fn, 'reward', ShapeRewardOptionsSchema, reward);
  const shaped = gs.map((g) => shapeRewards(g.rollouts.map((r) => r.verdict), reward));
  const rewards = shaped.map((s) => s.rewards);
  const raw = shaped.map((s) => s.raw);
  const { advantages, kept } = groupAdvantages(rewards, { filterBy: raw });
  return { rewards, raw, advantages, kept };
}

/**
 * One FrogNano policy update (§4.1; SPEC §1-3): shaped rewards, group advantages with the
 * zero-variance filter on raw outcomes, advantages broadcast onto generated
 * tokens, the DPPO loss against the recorded rollout log-probs, gradients,
 * global-norm clipping, one Adam step. No KL term, no entropy bonus.
 *
 * ```
 * R_ij = shapeReward(verdict_ij)          A_ij = (R_ij - mean R_i) / (std R_i + 1e-6)   (sample std; kept groups only)
 * L    = -(1/|T|) sum_{t in K} A_t rho_t,  rho_t = pi_theta(a_t|s_t) / pi_roll(a_t|s_t)  (tempered logits)
 * ```
 * Dropped groups are removed from the batch (they carry no signal, and `|T|`
 * counts the tokens of kept groups only). When every group is dropped no step
 * is taken and `skipped` is true.
 *
 * Every value is read back with `await tensor.data()`, never with `dataSync()`,
 * so the update runs on every backend, webgpu in Node included: the gradient is
 * taken of `dppoLoss` (its `validate` default follows the backend), then the
 * loss, the entropy and the mask counts (`dppoDiagnostics`, the same float64
 * rule as `dppoLossDetailed`) are awaited before the step, and the
 * gradient norm inside `clipByGlobalNorm`.
 *
 * @returns (a promise of) the update's statistics
 * @throws FrognanoError `EMPTY_INPUT` for no groups; option errors naming `opts.<field>` (the promise rejects)
 * @example const stats = await dppoUpdate(policy, adam, env, groups, { reward: { budget: 8, alpha: 0.2 } });
 */
export async function dppoUpdate<T>(
  policy: Policy,
  optimizer: Adam,
  env: Pick<Environment<T>, 'padToken'>,
  groups: readonly RolloutGroup<T>[],
  opts: DppoUpdateOptions,
): Promise<UpdateStats> {
  const fn = 'dppoUpdate';
  const o = parseOptions(fn, DppoUpdateOptionsSchema, opts);
  if (groups.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'groups must not be empty', { fn, field: 'groups' });
  const adv = groupRewardsAndAdvantages(groups, o.reward);
  const { rollouts, solveRate, truncatedRate, meanAssistantTokens } = verdictRates(groups);
  const base = {
    groups: groups.length,
    zeroVarianceGroups: adv.kept.filter((k) => !k).length,
    rollouts,
    solveRate,
    meanReward: adv.rewards.flat().reduce((a, b) => a + b, 0) / rollouts,
    truncatedRate,
    meanAssistantTokens,
  };
  const seqs: SequenceInput[] = [];
  groups.forEach((g, i) => {
    if (!adv.kept[i]) return;
    const tokAdv = broadcastToTokens(
      adv.advantages[i]!,
      g.rollouts.map((r) => r.lossMask),
    );
    g.rollouts.forEach((r, j) => seqs.push({ tokens: r.tokens, lossMask: r.lossMask, logpRollout: r.logpRollout, advantages: tokAdv[j]! }));
  });
  if (seqs.length === 0) {
    return {
      ...base,
      tokens: 0,
      keptTokenFraction: 1,
      droppedPositive: 0,
      droppedNegative: 0,
      meanRho: 1,
      entropy: 0,
      loss: 0,
      gradNorm: 0,
      skipped: true,
    };
  }
  const batch = padBatch(seqs, env.padToken);
  const shape: [number, number] = [batch.batch, batch.length];
  const tau = o.temperature === 0 ? 1 : o.temperature;
  const inputs = tf.tensor2d(batch.inputs, shape, 'int32');
  const targets = tf.tensor2d(batch.targets, shape, 'int32');
  const lossMask = tf.tensor2d(batch.lossMask, shape, 'float32');
  const logpRollout = tf.tensor2d(batch.logpRollout, shape, 'float32');
  const advantages = tf.tensor2d(batch.advantages, shape, 'float32');
  // logpNew and the entropy sum are kept out of the gradient's tidy scope and read after it:
  // nothing inside the closure reads a tensor on the host except dppoLoss's own validation.
  let logpNew: tf.Tensor | undefined;
  let entropySum: tf.Tensor | undefined;
  let value: tf.Scalar | undefined;
  let grads: tf.NamedTensorMap = {};
  let ordered: tf.Tensor[] = [];
  let clipped: { grads: tf.Tensor[]; norm: number } = { grads: [], norm: 0 };
  try {
    ({ value, grads } = tf.variableGrads(() => {
      const logits = policy.logits(inputs);
      const scaled = tau === 1 ? logits : tf.div(logits, tau);
      const lp = tf.keep(tokenLogProbs(scaled, targets));
      logpNew = lp;
      const loss = dppoLoss({ logpNew: lp, logpRollout, advantages, lossMask }, o.dppo);
      entropySum = tf.keep(tf.tidy(() => tf.sum(tf.mul(tokenEntropy(scaled), lossMask))));
      return loss;
    }, policy.variables as tf.Variable[]));
    // The mask counts (which also validate the inputs where dppoLoss did not) are read before the step.
    const [lossValues, entropyValues, dg] = await Promise.all([
      value.data(),
      entropySum!.data(),
      dppoDiagnostics({ logpNew: logpNew!, logpRollout, advantages, lossMask }, o.dppo),
    ]);
    const loss = lossValues[0]!;
    const entropy = entropyValues[0]! / Math.max(1, batch.tokens);
    ordered = policy.variables.map((v) => grads[v.name] ?? tf.zerosLike(v));
    clipped = await clipByGlobalNorm(ordered, o.clipNorm);
    optimizer.apply(clipped.grads, o.learningRate);
    return {
      ...base,
      tokens: dg.tokens,
      keptTokenFraction: dg.keptFraction,
      droppedPositive: dg.droppedPositive,
      droppedNegative: dg.droppedNegative,
      meanRho: dg.meanRho,
      entropy,
      loss,
      gradNorm: clipped.norm,
      skipped: false,
    };
  } finally {
    tf.dispose([inputs, targets, lossMask, logpRollout, advantages, ...clipped.grads, ...ordered]);
    tf.dispose(Object.values(grads));
    if (value !== undefined) value.dispose();
    if (logpNew !== undefined) logpNew.dispose();
    if (entropySum !== undefined) entropySum.dispose();
  }
}
