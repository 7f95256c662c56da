import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import { AskStructuredOptionsSchema } from '../llm/askStructured.js';
import { TrajectorySchema } from '../schema/trajectory.js';
import type { MaterialLimits } from './judgeMaterial.js';

/**
 * The options the LLM judges share, with their docs, written once: how much of
 * a trajectory the judge is shown (trajectory, tool outputs, diff, tests), the
 * shortest quote accepted as evidence, the retries, the completion options and
 * the system prompt. A zod object; each judge spreads its `.shape`, or the
 * `.pick` of it that the judge uses, into its own options schema. The
 * trajectory sizes default to 6000 / 300 characters (`judgeGroupWithGagar`); a
 * judge may pass its own (`adjudicateHacking` 12000 / 400, `annotateHirs` - / 200).
 * Call it once per judge, at module level. @internal
 */
export function judgeMaterialOptions(defaults: { maxTrajectoryChars?: number; maxToolOutputChars?: number } = {}) {
  return z.object({
    /** Characters of each condensed trajectory shown to the judge (the middle lines are dropped beyond it). Default 6000, or the judge's own. */
    maxTrajectoryChars: z.number().int().min(1).default(defaults.maxTrajectoryChars ?? 6000),
    /** Characters kept of each tool output in the condensed trajectory. Default 300, or the judge's own. */
    maxToolOutputChars: z.number().int().min(1).default(defaults.maxToolOutputChars ?? 300),
    /** Characters of each final diff shown (head and tail kept). Default 8000. */
    maxDiffChars: z.number().int().min(1).default(8000),
    /** Characters of each test section shown (grading results and the agent's last test run). Default 2000. */
    maxTestOutputChars: z.number().int().min(1).default(2000),
    /** Shortest accepted quote, in characters after whitespace collapsing. Default 4. */
    minQuoteChars: z.number().int().min(1).default(4),
    /** Further calls after a malformed (or evidence-free) answer, per judge call (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** Completion options of every judge call (temperature, maxTokens, seed, ...). */
    complete: AskStructuredOptionsSchema.shape.complete,
    /** Replaces the judge's default system prompt (its `*_SYSTEM_PROMPT`); keep the answer format. */
    systemPrompt: z.string().min(1).optional(),
  });
}

/**
 * The limits of {@link trajectoryMaterial} from a judge's parsed options; each
 * user / assistant text and tool-call argument is cut to
 * `min(maxContentChars, maxTrajectoryChars)`. @internal
 */
export function materialLimits(
  o: { maxTrajectoryChars: number; maxToolOutputChars: number; maxDiffChars: number; maxTestOutputChars: number },
  maxContentChars: number,
): MaterialLimits {
  return {
    maxChars: o.maxTrajectoryChars,
    maxToolOutputChars: o.maxToolOutputChars,
    maxContentChars: Math.min(maxContentChars, o.maxTrajectoryChars),
    maxDiffChars: o.maxDiffChars,
    maxTestOutputChars: o.maxTestOutputChars,
  };
}

/** zod: a list of SPEC §9 trajectories (a group for a judge). @internal */
export const TrajectoryListSchema = z.array(TrajectorySchema);

/**
 * Checks, before the options, that a judge got a non-empty array of trajectories:
 * `INVALID_TYPE` (not an array) or `EMPTY_INPUT` (none), naming `trajectories`.
 * The elements are parsed after the options, with {@link TrajectoryListSchema}. @internal
 */
export function requireTrajectoryGroup(fn: string, trajectories: unknown): void {
  if (!Array.isArray(trajectories)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `trajectories must be an array of trajectories, got ${describeValue(trajectories)}`, { fn, field: 'trajectories' });
  }
  if (trajectories.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'trajectories must have at least 1 trajectory, got 0', { fn, field: 'trajectories' });
}
