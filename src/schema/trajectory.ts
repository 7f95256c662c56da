import { z } from 'zod';
import { parseWith } from '../errors/validate.js';
import { OutcomeSchema } from './outcome.js';

/**
 * The trajectory format of the Leaf harness (FrogNano §2; SPEC §9): one JSON
 * object per agent episode. Judges, detectors and exporters all read it.
 * Unknown extra fields are kept (passthrough), not rejected.
 */

/** The five Leaf tools (FrogNano §2). */
export const LEAF_TOOLS = ['read', 'write', 'edit', 'glob', 'bash'] as const;
/** One of the five Leaf tool names. */
export type LeafTool = (typeof LEAF_TOOLS)[number];

/** Arguments of each Leaf tool (SPEC §9). Unknown tools are allowed in {@link ToolCallSchema}; these schemas check the known ones. */
export const LeafToolArgumentSchemas = {
  read: z.looseObject({ file_path: z.string(), offset: z.number().int().min(0).optional(), limit: z.number().int().min(0).optional() }),
  write: z.looseObject({ file_path: z.string(), content: z.string() }),
  edit: z.looseObject({ file_path: z.string(), old_string: z.string(), new_string: z.string() }),
  glob: z.looseObject({ pattern: z.string(), path: z.string().optional() }),
  bash: z.looseObject({ command: z.string() }),
} as const;

/** A tool call made by the assistant. */
export const ToolCallSchema = z.looseObject({
  /** Call id; the tool's answer carries it as `toolCallId`. */
  id: z.string(),
  /** Tool name: one of the Leaf tools (`read`, `write`, `edit`, `glob`, `bash`) or a harness-specific one. */
  name: z.string(),
  /** The call's arguments as a JSON object. */
  arguments: z.record(z.string(), z.unknown()),
});
/** A tool call made by the assistant. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One message of the episode. */
export const MessageSchema = z.looseObject({
  /** `system`, `user`, `assistant` or `tool`. */
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  /** The text (for `tool`, the tool's output). */
  content: z.string(),
  /** Tool calls of an assistant message; an assistant message without tool calls ends the episode. */
  toolCalls: z.array(ToolCallSchema).optional(),
  /** For a `tool` message: the id of the call it answers. */
  toolCallId: z.string().optional(),
});
/** One message of the episode. */
export type Message = z.infer<typeof MessageSchema>;

/** One test result of the grading run. */
export const TestResultSchema = z.looseObject({ name: z.string(), passed: z.boolean() });

/** One agent episode (SPEC §9). */
export const TrajectorySchema = z.looseObject({
  /** Trajectory id. */
  id: z.string(),
  /** The task: its id and the statement the agent saw. */
  task: z.looseObject({ id: z.string(), statement: z.string() }),
  /** The conversation, in order. */
  messages: z.array(MessageSchema),
  /** Unified diff of the final repository change. */
  diff: z.string().optional(),
  /** Grading test results. */
  tests: z.array(TestResultSchema).optional(),
  /** The verifier's verdict (see {@link OutcomeSchema}). */
  outcome: OutcomeSchema.optional(),
});
/** One agent episode (SPEC §9). */
export type Trajectory = z.infer<typeof TrajectorySchema>;

/**
 * Validates a trajectory at a public boundary and returns it typed, unknown
 * fields kept. Errors name the path, e.g. `trajectory.messages[3].role`.
 * @throws FrognanoError `INVALID_TYPE` / `NON_FINITE` / `OUT_OF_RANGE`
 */
export function parseTrajectory(value: unknown, fn = 'parseTrajectory'): Trajectory {
  return parseWith(fn, 'trajectory', TrajectorySchema, value);
}
