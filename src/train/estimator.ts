import type { OutcomeEstimator } from '../curriculum/taskPilot.js';
import type { Environment } from '../env/environment.js';
import type { Policy } from './policy.js';
import { generateRollouts } from './rollout.js';

/** Options of {@link policyOutcomeEstimator}. */
export interface PolicyEstimatorOptions {
  /** Sampling temperature of the calibration rollouts. Default 1. */
  temperature?: number;
  /** Seed; round `r` draws from `<seed>:r<r>`. Default 0. */
  seed?: string | number;
  /** Most sequences per forward pass. Default 256. */
  maxBatch?: number;
}

/**
 * TaskPilot's estimator backed by a policy (FrogNano §3.1): for each task,
 * `N` stochastic rollouts of the current policy graded by the environment's
 * hidden tests, returned as pass/fail outcomes for `resolveRate`. All tasks of
 * a round are sampled in one batched call.
 *
 * @example const pilot = await runTaskPilot(family, policyOutcomeEstimator(policy, env, { seed: 1 }), { iteration: 1 });
 */
export function policyOutcomeEstimator<T>(policy: Policy, env: Environment<T>, opts: PolicyEstimatorOptions = {}): OutcomeEstimator<T> {
  return async (tasks, rollouts, round) => {
    const groups = await generateRollouts(policy, env, tasks, {
      groupSize: rollouts,
      temperature: opts.temperature,
      seed: `${String(opts.seed ?? 0)}:r${round}`,
      maxBatch: opts.maxBatch,
    });
    return groups.map((g) => g.rollouts.map((r) => r.verdict.success));
  };
}
