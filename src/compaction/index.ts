/**
 * Context compaction (FrogNano App. D): when the history reaches `rho * W`
 * tokens, the agent summarises it itself; the history sent with the summary
 * request is cut to a budget by dropping the oldest complete turn groups.
 * Pure token arithmetic, no tokenizer and no model here.
 * @module compaction
 */
export { compactionBudget, CompactionBudgetOptionsSchema } from './compactionBudget.js';
export type { CompactionBudgetOptions } from './compactionBudget.js';
export { shouldCompact, ShouldCompactOptionsSchema } from './shouldCompact.js';
export { DEFAULT_COMPACTION_RHO } from './compactionParameters.js';
export type { ShouldCompactOptions } from './shouldCompact.js';
export { validateCompactionConfig, CompactionConfigSchema } from './validateCompactionConfig.js';
export type { CompactionConfig, CompactionConfigInput } from './validateCompactionConfig.js';
export { truncateHistoryToBudget, TruncateHistoryOptionsSchema } from './truncateHistoryToBudget.js';
export type { TruncateHistoryOptions, TurnGroup } from './truncateHistoryToBudget.js';
