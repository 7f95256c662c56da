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
export { gagarWeightedScore, GagarScoresSchema, GAGAR_WEIGHTS } from './gagarWeightedScore.js';
export type { GagarScores } from './gagarWeightedScore.js';
export { gagarCoefficients, GagarCandidateSchema, GagarTierSchema } from './gagarCoefficients.js';
export type { GagarCandidate, GagarTier } from './gagarCoefficients.js';
export { gagarRedistribute, gagarRedistributeDetailed, GagarRedistributeOptionsSchema } from './gagarRedistribute.js';
export type { GagarCoefficientArray, GagarRedistributeOptions, GagarRedistribution } from './gagarRedistribute.js';

// LLM judges (GAGAR §3.2; FrogNano §5.2, App. F; Verification Horizon §2.2, §3.1, §4.1)
export { judgeGroupWithGagar, JudgeGroupWithGagarOptionsSchema, GagarJudgeAnswerSchema, GAGAR_JUDGE_SYSTEM_PROMPT, GAGAR_DIMENSIONS } from './gagarJudge.js';
export type { EvidenceSource, GagarCitation, GagarDimension, GagarGroupJudgement, GagarJudgeAnswer, GagarVerdict, JudgeGroupWithGagarOptions } from './gagarJudge.js';
export { gagarAudit, GagarAuditCandidateSchema, compareJudged } from './gagarAudit.js';
export type { GagarAuditCandidate, GagarAuditResult, GagarGroupAudit, GagarLabelAudit } from './gagarAudit.js';
export { adjudicateHacking, AdjudicateHackingOptionsSchema, HackingJudgeAnswerSchema, HACKING_JUDGE_SYSTEM_PROMPT } from './adjudicateHacking.js';
export type { AdjudicateHackingOptions, HackingAdjudication, HackingFunnel, HackingJudgeAnswer, HackingVerdict, HackingVote, RaterAgreement } from './adjudicateHacking.js';
export {
  judgeTaskQuality,
  JudgeTaskQualityOptionsSchema,
  taskQualityMetrics,
  TaskQualityMetricsOptionsSchema,
  TaskQualityInputSchema,
  TaskQualityExampleSchema,
  TaskQualityAnswerSchema,
  TASK_QUALITY_SYSTEM_PROMPT,
} from './taskQualityJudge.js';
export type { JudgeTaskQualityOptions, TaskQualityExample, TaskQualityInput, TaskQualityJudgement, TaskQualityMetrics, TaskQualityMetricsOptions, TaskQualityVote } from './taskQualityJudge.js';
export {
  rubricScore,
  RubricScoreOptionsSchema,
  judgeWithRubric,
  JudgeWithRubricOptionsSchema,
  RubricJudgeInputSchema,
  RubricJudgeAnswerSchema,
  buildRubricChecklist,
  BuildRubricChecklistOptionsSchema,
  rubricRankingAgreement,
  RubricItemSchema,
  RubricDimensionSchema,
  RUBRIC_DIMENSIONS,
  RUBRIC_DIMENSION_WEIGHTS,
  RUBRIC_SYSTEM_PROMPTS,
} from './rubricJudge.js';
export type {
  BuildRubricChecklistOptions,
  JudgeWithRubricOptions,
  RubricDimension,
  RubricItem,
  RubricJudgeInput,
  RubricJudgement,
  RubricRankingAgreement,
  RubricScore,
  RubricScoreOptions,
  RubricVerdict,
} from './rubricJudge.js';
export {
  HirsRecordSchema,
  HirsAnswerSchema,
  HIRS_CONFIDENCE_LEVELS,
  HIRS_MAX_TOKENS,
  HIRS_NEGATIVE_REASONS,
  HIRS_SYSTEM_PROMPT,
  validateHirsRecord,
  ValidateHirsRecordOptionsSchema,
  segmentHirsTurns,
  annotateHirs,
  AnnotateHirsOptionsSchema,
  hirsTokenPolarity,
  HirsTokenPolarityOptionsSchema,
} from './hirs.js';
export type {
  AnnotateHirsOptions,
  HirsConfidence,
  HirsNegativeReason,
  HirsNeutralizedReason,
  HirsPolarity,
  HirsRecord,
  HirsTokenLabels,
  HirsTokenPolarityOptions,
  HirsTurn,
  HirsTurnAnnotation,
  HirsValidation,
  PolaritySpan,
  ValidateHirsRecordOptions,
} from './hirs.js';

// Reward hacking: rule funnel and behaviour monitor
// (FrogNano §5.2, App. F; Verification Horizon §2.3; SPEC §10)
export { ruleFunnel, ruleFunnelDetailed, RuleCodeSchema, RULE_CODES, RULE_FUNNEL_VERSION, CODE_HOSTS } from './ruleFunnel.js';
export type { DetailedRuleFinding, RuleCode, RuleFinding, RuleFindingLocation } from './ruleFunnel.js';
export { parseShell, effectiveArgv, commandName } from './shell.js';
export type { ShellCommand, ShellHeredoc, ShellRedirect, ShellWord } from './shell.js';
export { parseUnifiedDiff } from './unifiedDiff.js';
export type { DiffFile, DiffLine } from './unifiedDiff.js';
export { classifyRepoPath, normalizeRepoPath } from './repoPaths.js';
export type { RepoPathKind } from './repoPaths.js';
export { isTestRunCommand } from './testRuns.js';
export { MonitorInterventionSchema, MonitorPatternSchema, MonitorRiskSchema } from './monitorTypes.js';
export type { MonitorDetector, MonitorIntervention, MonitorMatch, MonitorPattern, MonitorRisk, MonitorSpan } from './monitorTypes.js';
export { applyMonitor, ApplyMonitorOptionsSchema, trajectoryResolved } from './behaviourMonitor.js';
export type { ApplyMonitorOptions, MonitorFlag, MonitorResult, TokenPenaltySpan } from './behaviourMonitor.js';
export {
  DEFAULT_MONITOR_PATTERNS,
  DEFAULT_MONITOR_PATTERNS_VERSION,
  evaluatorAwarePatchingPattern,
  rulePattern,
  specialCasedTestInputPattern,
  unverifiedSuccessClaimPattern,
} from './monitorPatterns.js';
export { monitorMetrics, MonitoredRolloutSchema } from './monitorMetrics.js';
export type { MonitoredRollout, MonitorMetrics } from './monitorMetrics.js';
