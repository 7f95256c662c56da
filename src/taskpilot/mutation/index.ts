/**
 * The `mutation` candidate source of TaskPilot (SPEC §15): procedural bugs found with
 * tree-sitter, kept when the snapshot's tests catch them.
 * @module
 */
export { mutationCandidates, MutationCandidatesOptionsSchema, mutationCandidateId, fileDiff } from './mutationCandidates.js';
export type { MutationCandidatesOptions, MutationCandidatesResult, MutationRejectReason } from './mutationCandidates.js';
export { MUTATION_KINDS, MUTATION_KIND_FNS } from './kinds.js';
export type { MutationKind, MutationKindFn, MutationEdit, KindContext } from './kinds.js';
export { findMutationSites, applySite } from './sites.js';
export type { MutationSite } from './sites.js';
export { MUTATION_LANGUAGES, languageOf, parseSource, parsesCleanly } from './parser.js';
export type { MutationLanguage } from './parser.js';
export { isTestPath, listRepoFiles } from './repoFiles.js';
export { statementLevels, failureMessages, testWords } from './statement.js';
export { MUTATION_LOG_FORMATS } from './testRun.js';
export type { MutationLogFormat } from './testRun.js';
