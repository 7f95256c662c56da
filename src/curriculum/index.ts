/**
 * Curriculum: the pure parts of TaskPilot (FrogNano §3.1), the policy-adaptive
 * task synthesis loop. A candidate task's resolve rate over N calibration
 * rollouts of the current checkpoint is compared with the iteration's target
 * band to accept it, refine it (easier / harder) or drop it (too hard / saturated).
 * @module curriculum
 */
export { resolveRate } from './resolveRate.js';
export { BROAD_BAND, inBand, iterationBand, ResolveRateBandSchema } from './resolveRateBand.js';
export type { ParsedResolveRateBand, ResolveRateBand } from './resolveRateBand.js';
export { classifyResolveRate, CurriculumDecisionSchema } from './classifyResolveRate.js';
export type { CurriculumDecision } from './classifyResolveRate.js';
