/**
 * Reward shaping (FrogNano §4.2): the success-gated log-length reward and the
 * 0.5 reward of truncated successes.
 * @module rewards
 */
export { logLengthReward } from './logLengthReward.js';
export { shapeReward, shapeRewards, ShapeRewardOptionsSchema } from './shapeReward.js';
export type { OutcomeColumns, ShapeRewardOptions } from './shapeReward.js';
