import { z } from 'zod';

/** The verifier's verdict on one rollout (FrogNano §4.2; SPEC §1). */
export const OutcomeSchema = z.object({
  /** All grading tests pass. */
  success: z.boolean(),
  /** The rollout ended on a budget limit (context, per-turn tokens, turns or wall time) rather than by the agent stopping. */
  truncated: z.boolean(),
  /** Tokens the model generated (reasoning, text, tool calls), never tool observations. Integer >= 0. */
  assistantTokens: z.number().int().min(0),
});
/** The verifier's verdict on one rollout. */
export type Outcome = z.infer<typeof OutcomeSchema>;
