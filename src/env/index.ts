/**
 * Environments: the {@link Environment} interface of a verifiable task (a
 * statement the policy sees, hidden tests it does not, Leaf's turn protocol),
 * the verifier, and the project's toy task family {@link DigitTaskFamily}
 * with a difficulty knob and a statement-specificity knob (FrogNano Fig. 5).
 * No tfjs.
 * @module env
 */
export { TRUNCATION_REASONS, verifyEpisode } from './environment.js';
export type { Environment, Episode, TaskLimits, TruncationReason, Turn, Verdict } from './environment.js';
export type { Demonstration, RefineDirection, Rng, TaskFamily } from './taskFamily.js';
export { DIGIT_TOKENS, DIGIT_VOCAB_SIZE, digitAnswer, DigitOpSchema, hintCount, MAX_SPECIFICITY, SPECIFICITY_LEVELS } from './digitTask.js';
export type { DigitOp, DigitTask } from './digitTask.js';
export { DigitTaskFamily, DigitTaskOptionsSchema } from './digitTasks.js';
export type { DigitTaskOptions } from './digitTasks.js';
