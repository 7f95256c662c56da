/**
 * frognano: reinforcement-learning primitives and reward shaping for training
 * coding agents, from FrogNano, GAGAR and Verification Horizon.
 *
 * The root exports what users call: every paper primitive, loss, judge,
 * metric and the training loop, with their input, option and result types.
 * It loads `@tensorflow/tfjs` (the losses). Import a subpath such as
 * `frognano/advantage` to use the array primitives without a tensor engine;
 * the option schemas, prompts and limits stay on the module subpaths
 * (`frognano/judges`, `frognano/losses`, ...), the parsers the rule funnel
 * uses on `frognano/judges/parsers`, and the Leaf harness, the web judge, the
 * CLI and the service on their own subpaths. `test/package/root-exports.test.ts`
 * pins this list: adding a name is a decision.
 * @module frognano
 */
export { ErrorCode, FrognanoError, isFrognanoError } from './errors/index.js';
export type { ErrorDetails } from './errors/index.js';
export { logLengthReward, shapeReward, shapeRewards } from './rewards/index.js';
export type { OutcomeColumns, ShapeRewardOptions } from './rewards/index.js';
export { broadcastToTokens, dppoMask, dppoMaskDetailed, groupAdvantages } from './advantage/index.js';
export type {
  BroadcastToTokensOptions, DppoMaskOptions, DppoMaskStats, FlatGroupAdvantagesOptions,
  FlatGroupAdvantagesResult, GroupAdvantagesOptions, GroupAdvantagesResult,
} from './advantage/index.js';
export {
  DEFAULT_MONITOR_PATTERNS, GAGAR_DIMENSIONS, GAGAR_WEIGHTS, RUBRIC_DIMENSIONS,
  RUBRIC_DIMENSION_WEIGHTS, RULE_CODES, adjudicateHacking, annotateHirs, applyMonitor,
  buildRubricChecklist, compareJudged, gagarAudit, gagarCoefficients, gagarRedistribute,
  gagarRedistributeDetailed, gagarWeightedScore, hirsTokenPolarity, judgeGroupWithGagar,
  judgeTaskQuality, judgeWithRubric, monitorMetrics, rubricRankingAgreement, rubricScore,
  ruleFunnel, ruleFunnelDetailed, segmentHirsTurns, taskQualityMetrics, trajectoryResolved,
  validateHirsRecord,
} from './judges/index.js';
export type {
  AdjudicateHackingOptions, AnnotateHirsOptions, ApplyMonitorOptions,
  BuildRubricChecklistOptions, DetailedRuleFinding, EvidenceSource, GagarAuditCandidate,
  GagarAuditResult, GagarCandidate, GagarCitation, GagarCoefficientArray, GagarDimension,
  GagarGroupAudit, GagarGroupJudgement, GagarJudgeAnswer, GagarLabelAudit,
  GagarRedistributeOptions, GagarRedistribution, GagarScores, GagarTier, GagarVerdict,
  HackingAdjudication, HackingFunnel, HackingJudgeAnswer, HackingVerdict, HackingVote,
  HirsConfidence, HirsNegativeReason, HirsNeutralizedReason, HirsPolarity, HirsRecord,
  HirsTokenLabels, HirsTokenPolarityOptions, HirsTurn, HirsTurnAnnotation, HirsValidation,
  JudgeGroupWithGagarOptions, JudgeTaskQualityOptions, JudgeWithRubricOptions,
  MonitorDetector, MonitorFlag, MonitorIntervention, MonitorMatch, MonitorMetrics,
  MonitorPattern, MonitorResult, MonitorRisk, MonitorSpan, MonitoredRollout, PolaritySpan,
  RaterAgreement, RubricDimension, RubricItem, RubricJudgeInput, RubricJudgement,
  RubricRankingAgreement, RubricScore, RubricScoreOptions, RubricVerdict, RuleCode,
  RuleFinding, RuleFindingLocation, TaskQualityExample, TaskQualityInput,
  TaskQualityJudgement, TaskQualityMetrics, TaskQualityMetricsOptions, TaskQualityVote,
  TokenPenaltySpan, ValidateHirsRecordOptions,
} from './judges/index.js';
export {
  aggregateRaters, agreementRate, blockBootstrapCI, bonAccuracy, fleissKappa, kendallTau,
  macroPearson, macroSpearman, majorityVote, meanRegret, passAtK, passAtShort,
  reciprocalRankReward, roundRobinSelect, shortestIndex, solveRateGainCI, thresholdScore,
} from './metrics/index.js';
export type {
  AggregateRatersOptions, BlockBootstrapOptions, BootstrapInterval, EvaluatorTask,
  MajorityVoteOptions, MajorityVoteResult, PairwiseCompare, RankCall, RoundRobinOptions,
  RoundRobinResult, RoundRobinTiebreak, SeriesStatistic, ShortCandidate,
  SolveRateGainInterval, SolveRateGainOptions, ThresholdScoreResult,
} from './metrics/index.js';
export { classifyResolveRate, iterationBand, resolveRate, runTaskPilot } from './curriculum/index.js';
export type {
  CandidateRecord, CurriculumDecision, OutcomeEstimator, ParsedResolveRateBand, PilotAction,
  PilotRound, PilotStep, RefineDirection, ResolveRateBand, TaskFamily, TaskPilotOptions,
  TaskPilotResult,
} from './curriculum/index.js';
export {
  compactionBudget, shouldCompact, truncateHistoryToBudget, validateCompactionConfig,
} from './compaction/index.js';
export type {
  CompactionBudgetOptions, CompactionConfig, CompactionConfigInput, ShouldCompactOptions,
  TruncateHistoryOptions, TurnGroup,
} from './compaction/index.js';
export { parseTrajectory } from './schema/index.js';
export type { LeafTool, Message, Outcome, ToolCall, Trajectory } from './schema/index.js';
export { askStructured, openAiChatModel, resolveChatEndpoint } from './llm/index.js';
export type {
  AskStructuredOptions, ChatContentPart, ChatEndpoint, ChatMessage, ChatModel, ChatTurn,
  ChatTurnOptions, CompleteOptions, OpenAIChatModelOptions, RawToolCall, TokenLogprob,
  ToolChatModel, ToolDefinition, WireMessage, WireToolCall,
} from './llm/index.js';
export {
  SpanKtoState, aggregateTokenLoss, checkFiniteAsync, consolidationLoss, createSpanKto,
  dppoDiagnostics, dppoLoss, dppoLossDetailed, rwSftLoss, sftLoss, spanKtoLoss,
  spanKtoReference, tokenEntropy, tokenLogProbs,
} from './losses/index.js';
export type {
  AggregateMode, AggregateTokenLossOptions, ConsolidationLossInputs,
  ConsolidationLossOptions, DppoLossDiagnostics, DppoLossInputs, DppoLossOptions,
  RwSftLossInputs, RwSftLossOptions, SftLossInputs, SftLossOptions, Span, SpanKtoCallOptions,
  SpanKtoInputs, SpanKtoLossOptions, SpanKtoResult, SpanKtoStateOptions, SpanKtoStateValue,
  TokenLogProbsOptions, TokenPolarity,
} from './losses/index.js';
export { canReadSync, useBackend } from './backend/index.js';
export type { BackendName, BackendSelection, UseBackendOptions } from './backend/index.js';
export { DigitTaskFamily, verifyEpisode } from './env/index.js';
export type {
  Demonstration, DigitTask, DigitTaskOptions, Environment, Episode, TaskLimits,
  TruncationReason, Turn, Verdict,
} from './env/index.js';
export { TinyGpt, createTinyGpt } from './models/index.js';
export type { TinyGptConfig, TinyGptOptions } from './models/index.js';
export {
  Adam, FrognanoTrainer, JsonlLog, RolloutBuffer, TrainingProgress, clipByGlobalNorm,
  dppoUpdate, evaluateSolveRate, functionPolicy, generateRollouts, groupRewardsAndAdvantages,
  layersModelPolicy, loadCheckpoint, padBatch, policyLag, policyOutcomeEstimator,
  renderTrainingReport, saveCheckpoint, sftPretrain, trainingConfig, writeTrainingReport,
} from './train/index.js';
export type {
  AdamOptions, AdamState, CheckpointHeader, DppoUpdateOptions, EvaluateOptions,
  EvaluationResult, FunctionPolicyOptions, GenerateRolloutsOptions, GroupAdvantageResult,
  LayersModelPolicyOptions, PaddedBatch, Policy, PolicyEstimatorOptions, ProgressState,
  Rollout, RolloutGroup, RunControl, RunResult, SequenceInput, SftPretrainOptions,
  TakeResult, TrainerOptions, TrainerState, TrainingReportInput, UpdateRecord, UpdateStats,
} from './train/index.js';
