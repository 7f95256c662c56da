/**
 * Curriculum: TaskPilot (FrogNano §3.1), the policy-adaptive task synthesis
 * loop. A candidate task's resolve rate over N calibration rollouts of the
 * current checkpoint is compared with the iteration's target band to accept
 * it, refine it (easier / harder) or drop it (too hard / saturated).
 * {@link runTaskPilot} runs the generate-evaluate-refine-re-evaluate loop over
 * a {@link TaskFamily} and an outcome estimator; it loads no tensor engine
 * (`frognano/train` supplies a policy-backed estimator).
 * @module curriculum
 */
export { resolveRate } from './resolveRate.js';
export { BROAD_BAND, inBand, iterationBand, ResolveRateBandSchema } from './resolveRateBand.js';
export type { ParsedResolveRateBand, ResolveRateBand } from './resolveRateBand.js';
export { classifyResolveRate, CurriculumDecisionSchema } from './classifyResolveRate.js';
export type { CurriculumDecision } from './classifyResolveRate.js';
export { initialRates, runTaskPilot, TaskPilotOptionsSchema } from './taskPilot.js';
export type {
  CandidateRecord,
  OutcomeEstimator,
  PilotAction,
  PilotRound,
  PilotStep,
  RefineDirection,
  TaskFamily,
  TaskPilotOptions,
  TaskPilotResult,
} from './taskPilot.js';
