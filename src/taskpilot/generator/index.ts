/**
 * The TaskPilot generator source (SPEC §15): the repository view, propose and refine.
 * @module
 */
export { isTestPath, REPO_VIEW_SKIPPED_DIRS, renderRepoView, repoView, RepoViewOptionsSchema } from './repoView.js';
export type { RepoView, RepoViewFile, RepoViewOptions } from './repoView.js';
export { checkProposeAnswer, generatorCandidates, patchPaths, pilotCandidateId, PROPOSE_HEADER, ProposeAnswerSchema, proposeCandidate, proposeMessages, sortedFiles, statementLeak } from './propose.js';
export type { GeneratorCandidatesOptions, GeneratorDiscard, GeneratorTests, ProposeAnswer, ProposeOptions } from './propose.js';
export { REFINE_HEADER, RefineAnswerSchema, refineMessages, refineStatement } from './refine.js';
export type { RefineDirection, RefineOptions } from './refine.js';
