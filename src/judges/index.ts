/**
 * Judges: turn model and rule verdicts into the numbers the RL primitives consume.
 *
 * - GAGAR's numbers (GAGAR §3, App. A): the weighted rubric score, tier/rank ->
 *   coefficients, quality-weighted advantage redistribution; and the LLM judge
 *   that produces the tiers (`judgeGroupWithGagar`).
 * - Reward hacking (FrogNano §5.2, App. F; Verification Horizon §2.3): the rule
 *   funnel, stage-2 adjudication by k model judges, the behaviour monitor.
 * - Task-quality and rubric judges (Verification Horizon §2.2, §3.1) and HIRS
 *   user-feedback annotations (§4.1) with their conversion to token spans.
 * @module judges
 */

// GAGAR: numbers (GAGAR §3, App. A)
export { GAGAR_WEIGHTS, GAGAR_DIMENSIONS } from './gagarDimensions.js';
export type { GagarDimension } from './gagarDimensions.js';
export { gagarWeightedScore, GagarScoresSchema } from './gagarWeightedScore.js';
export type { GagarScores } from './gagarWeightedScore.js';
export { gagarCoefficients, GagarCandidateSchema, GagarTierSchema } from './gagarCoefficients.js';
export type { GagarCandidate, GagarTier } from './gagarCoefficients.js';
export { gagarRedistribute, gagarRedistributeDetailed, GagarRedistributeOptionsSchema } from './gagarRedistribute.js';
export type { GagarCoefficientArray, GagarRedistributeOptions, GagarRedistribution } from './gagarRedistribute.js';

// LLM judges (GAGAR §3.2; FrogNano §5.2, App. F; Verification Horizon §2.2, §3.1, §4.1)
export { judgeGroupWithGagar, JudgeGroupWithGagarOptionsSchema, GagarJudgeAnswerSchema, GAGAR_JUDGE_SYSTEM_PROMPT } from './gagarJudge.js';
export type { EvidenceSource, GagarCitation, GagarGroupJudgement, GagarJudgeAnswer, GagarVerdict, JudgeGroupWithGagarOptions } from './gagarJudge.js';
export { gagarAudit, GagarAuditCandidateSchema, compareJudged } from './gagarAudit.js';
export type { GagarAuditCandidate, GagarAuditResult, GagarGroupAudit, GagarLabelAudit } from './gagarAudit.js';
export { adjudicateHacking, AdjudicateHackingOptionsSchema, HackingJudgeAnswerSchema, HACKING_JUDGE_SYSTEM_PROMPT } from './adjudicateHacking.js';
export type { AdjudicateHackingOptions, HackingAdjudication, HackingFunnel, HackingJudgeAnswer, HackingVerdict, HackingVote, RaterAgreement } from './adjudicateHacking.js';
export {
  judgeTaskQuality,
  JudgeTaskQualityOptionsSchema,
  TaskQualityInputSchema,
  TaskQualityExampleSchema,
  TaskQualityAnswerSchema,
  TASK_QUALITY_SYSTEM_PROMPT,
} from './taskQualityJudge.js';
export type { JudgeTaskQualityOptions, TaskQualityExample, TaskQualityInput, TaskQualityJudgement, TaskQualityVote } from './taskQualityJudge.js';
export { taskQualityMetrics, TaskQualityMetricsOptionsSchema } from './taskQualityMetrics.js';
export type { TaskQualityMetrics, TaskQualityMetricsOptions } from './taskQualityMetrics.js';
export { RubricItemSchema, RubricDimensionSchema, RUBRIC_DIMENSIONS, RUBRIC_DIMENSION_WEIGHTS } from './rubricItems.js';
export type { RubricDimension, RubricItem, RubricVerdict } from './rubricItems.js';
export { rubricScore, RubricScoreOptionsSchema } from './rubricScore.js';
export type { RubricScore, RubricScoreOptions } from './rubricScore.js';
export { judgeWithRubric, JudgeWithRubricOptionsSchema, RubricJudgeInputSchema, RubricJudgeAnswerSchema, RUBRIC_SYSTEM_PROMPTS } from './judgeWithRubric.js';
export type { JudgeWithRubricOptions, RubricJudgeInput, RubricJudgement } from './judgeWithRubric.js';
export { buildRubricChecklist, BuildRubricChecklistOptionsSchema } from './buildRubricChecklist.js';
export type { BuildRubricChecklistOptions } from './buildRubricChecklist.js';
export { rubricRankingAgreement } from './rubricRankingAgreement.js';
export type { RubricRankingAgreement } from './rubricRankingAgreement.js';
export { HirsRecordSchema, HirsAnswerSchema, HIRS_CONFIDENCE_LEVELS, HIRS_NEGATIVE_REASONS } from './hirsRecord.js';
export type { HirsConfidence, HirsNegativeReason, HirsNeutralizedReason, HirsPolarity, HirsRecord } from './hirsRecord.js';
export { validateHirsRecord, ValidateHirsRecordOptionsSchema } from './validateHirsRecord.js';
export type { HirsValidation, ValidateHirsRecordOptions } from './validateHirsRecord.js';
export { segmentHirsTurns } from './segmentHirsTurns.js';
export type { HirsTurn } from './segmentHirsTurns.js';
export { annotateHirs, AnnotateHirsOptionsSchema, HIRS_SYSTEM_PROMPT } from './annotateHirs.js';
export type { AnnotateHirsOptions, HirsTurnAnnotation } from './annotateHirs.js';
export { hirsTokenPolarity, HirsTokenPolarityOptionsSchema, HIRS_MAX_TOKENS } from './hirsTokenPolarity.js';
export type { HirsTokenLabels, HirsTokenPolarityOptions, PolaritySpan } from './hirsTokenPolarity.js';

// Reward hacking: rule funnel and behaviour monitor
// (FrogNano §5.2, App. F; Verification Horizon §2.3; SPEC §10)
export { ruleFunnel, ruleFunnelDetailed } from './ruleFunnel.js';
export { RuleCodeSchema, RULE_CODES, RULE_FUNNEL_VERSION } from './ruleFindings.js';
export type { DetailedRuleFinding, RuleCode, RuleFinding, RuleFindingLocation } from './ruleFindings.js';
export { CODE_HOSTS } from './ruleSolutionRetrieval.js';
// The parsers under the rule funnel (parseShell, parseUnifiedDiff, repo paths, test runs): frognano/judges/parsers
export { MonitorInterventionSchema, MonitorPatternSchema, MonitorRiskSchema } from './monitorTypes.js';
export type { MonitorDetector, MonitorIntervention, MonitorMatch, MonitorPattern, MonitorRisk, MonitorSpan } from './monitorTypes.js';
export { applyMonitor, ApplyMonitorOptionsSchema, trajectoryResolved } from './behaviourMonitor.js';
export type { ApplyMonitorOptions, MonitorFlag, MonitorResult, TokenPenaltySpan } from './behaviourMonitor.js';
export { DEFAULT_MONITOR_PATTERNS, DEFAULT_MONITOR_PATTERNS_VERSION } from './monitorPatterns.js';
export { rulePattern } from './rulePattern.js';
export { evaluatorAwarePatchingPattern } from './evaluatorAwarePatching.js';
export { specialCasedTestInputPattern } from './specialCasedTestInput.js';
export { unverifiedSuccessClaimPattern } from './unverifiedSuccessClaim.js';
export { monitorMetrics, MonitoredRolloutSchema } from './monitorMetrics.js';
export type { MonitoredRollout, MonitorMetrics } from './monitorMetrics.js';
