import { z } from 'zod';
import { resolveRate } from '../curriculum/resolveRate.js';
import type { Environment } from '../env/environment.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import type { Policy } from './policy.js';
import { generateRollouts, verdictRates } from './rollout.js';

/** Options of {@link evaluateSolveRate}. */
export const EvaluateOptionsSchema = z
  .object({
    /** Rollouts per task. Default 4. */
    samples: z.number().int().min(1).default(4),
    /** Sampling temperature, 0 for greedy. Default 0.6 (FrogNano §5 evaluates at 0.6). */
    temperature: z.number().min(0).default(0.6),
    /** Seed of the sampling stream (fixed, so before/after evaluations draw alike). Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
    /** Most sequences per forward pass. Default 256. */
    maxBatch: z.number().int().min(1).default(256),
  })
  .strict();
/** Options of {@link evaluateSolveRate} as the caller writes them. */
export type EvaluateOptions = z.input<typeof EvaluateOptionsSchema>;

/** The result of {@link evaluateSolveRate}. */
export interface EvaluationResult {
  /** Mean success over every rollout of every task (pass@1 estimated with `samples` draws per task). */
  solveRate: number;
  /** Per task: the share of its rollouts that succeeded. */
  perTask: number[];
  /** Mean assistant-generated tokens per rollout. */
  meanAssistantTokens: number;
  /** Share of truncated rollouts. */
  truncatedRate: number;
}

/**
 * Held-out solve rate of a policy: `samples` seeded rollouts per task, graded
 * by the environment's hidden tests (FrogNano §5: "temperature 0.6 ... averaged
 * over 3 seeds"; here the mean over `samples` draws).
 *
 * @throws FrognanoError `EMPTY_INPUT` for no tasks; option errors naming `opts.<field>`
 * @example const { solveRate } = await evaluateSolveRate(policy, env, heldOut, { samples: 4, seed: 7 });
 */
export async function evaluateSolveRate<T>(
  policy: Policy,
  env: Environment<T>,
  tasks: readonly T[],
  opts: EvaluateOptions = {},
): Promise<EvaluationResult> {
  const fn = 'evaluateSolveRate';
  const o = parseOptions(fn, EvaluateOptionsSchema, opts);
  if (!Array.isArray(tasks) || tasks.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'tasks must be a non-empty array', { fn, field: 'tasks' });
  const groups = await generateRollouts(policy, env, tasks, {
    groupSize: o.samples,
    temperature: o.temperature,
    seed: `eval:${String(o.seed)}`,
    maxBatch: o.maxBatch,
  });
  const { solveRate, truncatedRate, meanAssistantTokens } = verdictRates(groups);
  const perTask = groups.map((g) => resolveRate(g.rollouts.map((r) => r.verdict.success)));
  return { solveRate, perTask, meanAssistantTokens, truncatedRate };
}
