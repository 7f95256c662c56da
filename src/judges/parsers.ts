/**
 * The parsers the reward-hacking rule funnel (SPEC §10) is built on, for users
 * who write rules of their own: a bash command parser that never runs anything,
 * a unified-diff parser, the repository-path classifier and the test-run
 * recogniser. A subpath of their own (`frognano/judges/parsers`): they are
 * tools for rule writers, not the judges' API.
 * @module judges/parsers
 */
export { parseShell } from './shell.js';
export { effectiveArgv, commandName } from './shellWords.js';
export type { ShellCommand, ShellHeredoc, ShellRedirect, ShellWord } from './shellTypes.js';
export { parseUnifiedDiff } from './unifiedDiff.js';
export type { DiffFile, DiffLine } from './unifiedDiff.js';
export { classifyRepoPath, normalizeRepoPath } from './repoPaths.js';
export type { RepoPathKind } from './repoPaths.js';
export { isTestRunCommand } from './testRuns.js';
