/**
 * Judges (GAGAR; later the rule funnel, monitor and LLM-backed judges).
 *
 * The numeric half of GAGAR (GAGAR §3, App. A): the weighted rubric score,
 * the tier/rank -> coefficient map and the quality-weighted advantage
 * redistribution over a rollout group's successful members.
 * @module judges
 */

// GAGAR: numbers (GAGAR §3, App. A)
export { gagarWeightedScore, GagarScoresSchema, GAGAR_WEIGHTS } from './gagarWeightedScore.js';
export type { GagarScores } from './gagarWeightedScore.js';
export { gagarCoefficients, GagarCandidateSchema, GagarTierSchema } from './gagarCoefficients.js';
export type { GagarCandidate, GagarTier } from './gagarCoefficients.js';
export { gagarRedistribute, gagarRedistributeDetailed, GagarRedistributeOptionsSchema } from './gagarRedistribute.js';
export type { GagarCoefficientArray, GagarRedistributeOptions, GagarRedistribution } from './gagarRedistribute.js';
