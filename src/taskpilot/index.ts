/**
 * TaskPilot on repositories (FrogNano §3; SPEC §15): candidate tasks from a source
 * (the generator model, or `mutation`), executable validation, p-hat over N Leaf
 * episodes of the current policy, the band's decision, statement refinement, the
 * output files and the report. A subpath of its own (`frognano/taskpilot`): it runs
 * the Leaf sandbox.
 * @module taskpilot
 */
export { DISCARD_REASONS, PILOT_CATEGORIES } from './candidate.js';
export type { DiscardReason, PilotCandidate, PilotCategory, PilotSource } from './candidate.js';
export { candidateTask } from './candidateTask.js';
export { validateCandidate } from './validateCandidate.js';
export type { CandidateValidation, ValidateCandidateOptions } from './validateCandidate.js';
export { estimatePHat } from './estimatePHat.js';
export type { EstimatePHatOptions, PHatEstimate } from './estimatePHat.js';
export { DEFAULT_PILOT_BAND, formatBand, parseBand, targetBand } from './pilotBand.js';
export { isDone, levelRefinement, runRepoTaskPilot } from './runRepoTaskPilot.js';
export type { PilotAccepted, PilotDirection, PilotDiscard, PilotInfo, PilotProgress, PilotRefinement, PilotSourceResult, RepoTaskPilotResult, RunRepoTaskPilotOptions } from './runRepoTaskPilot.js';
export { discardLine, doneIds, openPilotOutputs, pilotPaths, readJsonLines, writeTaskRepo } from './pilotOutputs.js';
export type { PilotDiscardLine, PilotOutputs, PilotPaths, PilotTaskLine } from './pilotOutputs.js';
export { renderPilotReport, taskStatistics } from './pilotReport.js';
export type { PilotReportOptions, TaskStatistics } from './pilotReport.js';
export { reestimatePool } from './pilotPool.js';
export type { PoolResult } from './pilotPool.js';
export { generatorSource, mutationSource, pilotRefine } from './pilotSources.js';
export type { PilotRepo } from './pilotSources.js';
export { applySite, failureMessages, fileDiff, findMutationSites, isTestPath, languageOf, listRepoFiles, MUTATION_KIND_FNS, MUTATION_KINDS, MUTATION_LANGUAGES, MUTATION_LOG_FORMATS, mutationCandidateId, mutationCandidates, MutationCandidatesOptionsSchema, parseSource, parsesCleanly, statementLevels, testWords } from './mutation/index.js';
export type { KindContext, MutationCandidatesOptions, MutationCandidatesResult, MutationEdit, MutationKind, MutationKindFn, MutationLanguage, MutationLogFormat, MutationRejectReason, MutationSite } from './mutation/index.js';
export { checkProposeAnswer, generatorCandidates, statementLeak, patchPaths, pilotCandidateId, PROPOSE_HEADER, ProposeAnswerSchema, proposeCandidate, proposeMessages, REFINE_HEADER, RefineAnswerSchema, refineMessages, refineStatement, renderRepoView, REPO_VIEW_SKIPPED_DIRS, repoView, RepoViewOptionsSchema, sortedFiles } from './generator/index.js';
export type { GeneratorCandidatesOptions, GeneratorDiscard, GeneratorTests, ProposeAnswer, ProposeOptions, RefineDirection, RefineOptions, RepoView, RepoViewFile, RepoViewOptions } from './generator/index.js';
