/**
 * Leaf, FrogNano's five-tool coding-agent harness (FrogNano §2, App. D; SPEC §12):
 * tasks in, graded trajectories out. The episode loop drives any
 * OpenAI-compatible model with the five tools (`read`, `write`, `edit`,
 * `glob`, `bash`), ends on the structural rule (a reply without a tool call),
 * compacts the context as App. D says, runs every command and the grading in a
 * bubblewrap sandbox, and grades with hidden tests. `rolloutTasks` turns
 * groups of episodes into rewards, advantages and rule-funnel findings.
 * No tfjs.
 * @module leaf
 */
export { runEpisode, RunEpisodeOptionsSchema } from './runEpisode.js';
export type { EpisodeStep, RunEpisodeOptions } from './runEpisode.js';
export { estimateTokens } from './estimateTokens.js';
export { toWireMessage } from './episodeMessages.js';
export { TRUNCATING } from './leafTrajectory.js';
export type { CompactionRecord, GradingRecord, LeafTrajectory, Termination } from './leafTrajectory.js';
export { TaskPhaseGate } from './phaseGate.js';
export { fitRecord, MAX_RECORD_CHARS } from './fitRecord.js';
export { rolloutTasks, RolloutTasksOptionsSchema, episodeSeed } from './rolloutTasks.js';
export type { RolloutProgress, RolloutRecord, RolloutSummary, RolloutTasksOptions } from './rolloutTasks.js';
export { validateLeafTask, ValidateLeafTaskOptionsSchema } from './validateLeafTasks.js';
export type { TaskValidation, ValidateLeafTaskOptions } from './validateLeafTasks.js';
export { loadLeafTasks, parseLeafTask, resolveLimits, LeafTaskSchema, LeafLimitsSchema, LeafEnvironmentSchema, DEFAULT_LEAF_LIMITS } from './task.js';
export { resolveEnvironment, environmentSandbox, runSetup, setupFailure, type ResolvedEnvironment, type EnvironmentRecord, type SetupRecord } from './environment.js';
export type { LeafLimits, LeafTask, LoadedLeafTask, ResolvedLeafLimits } from './task.js';
export { createSandbox, SANDBOX_REPO_ROOT } from './sandbox.js';
export type { Sandbox } from './sandbox.js';
export { findExecutable } from './findExecutable.js';
export type { ExecutableLookup } from './findExecutable.js';
export { findBwrap } from './bwrap.js';
export { SandboxOptionsSchema } from './sandboxOptions.js';
export type { RunOptions, SandboxOptions } from './sandboxOptions.js';
export type { CommandResult } from './sandboxProcess.js';
export { executeToolCall } from './executeToolCall.js';
export type { ToolCallResult, ToolRunContext } from './executeToolCall.js';
export { LEAF_TOOL_DEFINITIONS, LEAF_SYSTEM_PROMPT, leafToolDefinitions, leafSystemPrompt } from './tools.js';
export { COMPACTION_PROMPT, COMPACTION_SEPARATOR, compactionRequest, rebuildHistory } from './compactHistory.js';
export type { CompactionRequest } from './compactHistory.js';
export { gradeRepo, writeHiddenFiles, GRADING_ENV } from './grade.js';
export { dropGradingHooks } from './gradingHooks.js';
export type { Grading } from './grade.js';
export { diffRepo, diffTrees, DEFAULT_DIFF_LIMITS, restorePermissions } from './repoDiff.js';
export type { DiffCut, DiffCutReason, DiffLimits, DiffRepoOptions, DiffTreesOptions, RepoDiff, TreeChange } from './repoDiff.js';
export { applyUnifiedDiff } from './applyUnifiedDiff.js';
export { createWorkspace } from './workspace.js';
export type { Workspace, WorkspaceOptions } from './workspace.js';
export { resolveRepoPath } from './repoPath.js';
export type { RepoRoot, ResolvedPath } from './repoPath.js';
export { readTool, writeTool, editTool, globTool } from './fileTools.js';
export type { FileToolContext, ToolOutput } from './fileTools.js';
export { compileGlob } from './globPattern.js';
export type { GlobMatcher } from './globPattern.js';
export { renderLeafReport } from './report.js';
export type { LeafReportOptions } from './report.js';
export { summarizeLeafRecords } from './summarizeLeafRecords.js';
export type { LeafRecordStats, LeafRecordsSummary, LeafTaskStats } from './summarizeLeafRecords.js';
export { parsePytestLog, parseUnittestLog, parseTapLog, parseJunitXml, TEST_LOG_PARSERS, TEST_LOG_FORMATS, gradeTestIds, GradeTestIdsInputSchema, FAIL_TO_PASS_OK, PASS_TO_PASS_OK, TEST_STATUSES, TestStatusSchema, TestResultSchema, TAP_NAME_SEPARATOR, JUNIT_ID_SEPARATOR, lastOccurrenceWins } from './testLogs/index.js';
export type { TestLogFormat, TestLogParser, TestResult, TestStatus, GradedTest, GradeTestIdsInput, TestIdGrading } from './testLogs/index.js';
export { evaluatePrediction, evaluatePredictions, EvaluatePredictionsOptionsSchema } from './evaluatePredictions.js';
export type { EvaluatePredictionsOptions, EvaluationOutcome, InstanceEvaluation } from './evaluatePredictions.js';
export { loadPredictions, PredictionSchema } from './predictions.js';
export type { LocatedPrediction, Prediction } from './predictions.js';
export { testsStatus } from './sweBenchReport.js';
export type { EvaluationReport, InstanceReport, TestsStatus, TestsSplit } from './sweBenchReport.js';
export { taskRecords } from './taskRecords.js';
export type { TaskRecord } from './taskRecords.js';
export { flakyTests } from './flakyTests.js';
export { importInstances, readInstances, defaultReposOut, IMPORT_FORMATS } from './importInstances.js';
export type { ImportFormat, ImportInstancesOptions, ImportResult } from './importInstances.js';
export { SWE_BENCH_SPECS, NON_TEST_EXTS, patchFiles, testDirectives, djangoTestId } from './sweBenchSpecs.js';
export type { SweBenchRepoSpec } from './sweBenchSpecs.js';
export * from './image/index.js';
export { COMMIT_ENV, commitOneRepo, copyWithoutGit } from './oneCommitRepo.js';
