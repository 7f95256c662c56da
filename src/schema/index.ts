/**
 * Shared zod schemas: a rollout's outcome (SPEC §1) and the Leaf trajectory format (SPEC §9).
 * @module schema
 */
export {
  LEAF_TOOLS,
  LeafToolArgumentSchemas,
  MessageSchema,
  parseTrajectory,
  TestResultSchema,
  ToolCallSchema,
  TrajectorySchema,
} from './trajectory.js';
export type { LeafTool, Message, ToolCall, Trajectory } from './trajectory.js';
export { OutcomeSchema } from './outcome.js';
export type { Outcome } from './outcome.js';
