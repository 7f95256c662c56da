/**
 * Evaluation metrics: pass@k and pass@short, the verifier's reciprocal-rank
 * reward and round-robin selection (FrogNano §5.2), the evaluator-agent metrics of
 * Verification Horizon §5.2 (best-of-N accuracy, regret, pooled Kendall's tau,
 * macro Pearson / Spearman, threshold-conditioned unit-test score), rater
 * agreement (majority vote, pairwise agreement, Fleiss' kappa; FrogNano §5.2) and
 * moving-block bootstrap intervals (FrogNano Fig. 10). Pure float64, no tfjs.
 * @module metrics
 */
export { passAtK } from './passAtK.js';
export { passAtShort, shortestIndex, ShortCandidateSchema } from './passAtShort.js';
export type { ShortCandidate } from './passAtShort.js';
export { reciprocalRankReward } from './reciprocalRankReward.js';
export { MAX_ROUND_ROBIN_CANDIDATES, roundRobinSelect, RoundRobinOptionsSchema } from './roundRobinSelect.js';
export type { PairwiseCompare, RankCall, RoundRobinOptions, RoundRobinResult, RoundRobinTiebreak } from './roundRobinSelect.js';
export type { EvaluatorTask } from './evaluatorTasks.js';
export { bonAccuracy, meanRegret } from './bonAccuracy.js';
export { kendallTau } from './kendallTau.js';
export { macroPearson, macroSpearman } from './macroCorrelation.js';
export { thresholdScore } from './thresholdScore.js';
export type { ThresholdScoreResult } from './thresholdScore.js';
export { fleissKappa } from './fleissKappa.js';
export { majorityVote, MajorityVoteOptionsSchema } from './majorityVote.js';
export type { MajorityVoteOptions, MajorityVoteResult } from './majorityVote.js';
export { agreementRate, aggregateRaters, AggregateRatersOptionsSchema } from './agreementRate.js';
export type { AggregateRatersOptions } from './agreementRate.js';
export { blockBootstrapCI, BlockBootstrapOptionsSchema, MAX_BOOTSTRAP_RESAMPLES } from './blockBootstrapCI.js';
export type { BlockBootstrapOptions, BootstrapInterval, SeriesStatistic } from './blockBootstrapCI.js';
export { solveRateGainCI, SolveRateGainOptionsSchema } from './solveRateGainCI.js';
export type { SolveRateGainOptions, SolveRateGainInterval } from './solveRateGainCI.js';
