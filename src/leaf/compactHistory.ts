import { compactionBudget } from '../compaction/compactionBudget.js';
import { truncateHistoryToBudget } from '../compaction/truncateHistoryToBudget.js';
import type { Message } from '../schema/trajectory.js';

/**
 * Leaf's continuation-oriented compaction instruction `P` (FrogNano App. D.4),
 * sent to the same model that is solving the task (App. D.3: no other summariser).
 */
export const COMPACTION_PROMPT =
  'Create a concise continuation summary of this software engineering task. Preserve: the task and its constraints; ' +
  'important findings and decisions; the files changed and the current state of the repository; the commands and tests ' +
  'run and their results; open questions and the concrete next steps. Output only the summary.';

/** The fixed separator `sigma` announcing that earlier turns were summarised (FrogNano App. D.2). */
export const COMPACTION_SEPARATOR = '[Earlier turns of this episode were summarised to save context. The summary follows.]';

/** A turn group: one assistant message with its tool results (App. D.2: removed whole, never orphaned). */
export interface TurnGroupSlice {
  /** The group's messages. */
  messages: Message[];
  /** Its token count. */
  tokens: number;
}

/** Splits a context after its prefix into turn groups (each starts at an assistant message). */
export function turnGroups(messages: readonly Message[], countTokens: (m: readonly Message[]) => number): TurnGroupSlice[] {
  const groups: Message[][] = [];
  for (const m of messages) {
    if (m.role === 'assistant' || groups.length === 0) groups.push([m]);
    else groups[groups.length - 1]!.push(m);
  }
  return groups.map((g) => ({ messages: g, tokens: countTokens(g) }));
}

/** The summary request of one compaction (App. D.1-D.2). */
export interface CompactionRequest {
  /** `prefix ‖ kept groups ‖ P`: what the model is asked to summarise. */
  messages: Message[];
  /** `C = max(1, W - tau(P) - floor(alpha W))`. */
  budget: number;
  /** Oldest turn groups dropped to fit `C`. */
  droppedGroups: number;
  /** Turn groups kept. */
  keptGroups: number;
}

/**
 * Builds the summary request of FrogNano App. D.1-D.2: the history after the
 * prefix (system message and first user message) is cut to the budget
 * `C = max(1, W - tau(P) - floor(alpha W))` by dropping the oldest complete turn
 * groups (an assistant message with its tool results; the most recent group is
 * always kept), and the compaction instruction `P` is appended as a user message.
 */
export function compactionRequest(
  context: readonly Message[],
  opts: { window: number; alpha: number; countTokens: (m: readonly Message[]) => number },
): CompactionRequest {
  const prefix = context.slice(0, 2);
  const groups = turnGroups(context.slice(2), opts.countTokens);
  const instruction: Message = { role: 'user', content: COMPACTION_PROMPT };
  const budget = compactionBudget({ window: opts.window, promptTokens: opts.countTokens([instruction]), alpha: opts.alpha });
  const k = groups.length === 0 ? 0 : truncateHistoryToBudget(groups, budget, { prefixTokens: opts.countTokens(prefix) });
  return {
    messages: [...prefix, ...groups.slice(k).flatMap((g) => g.messages), instruction],
    budget,
    droppedGroups: k,
    keptGroups: groups.length - k,
  };
}

/**
 * The rebuilt history after a compaction (FrogNano App. D.2):
 * `H' = [system ‖ [u0 ‖ sigma ‖ S]]`: the system message and one user message
 * holding the original task statement `u0`, the separator and the summary `S`.
 * Every intermediate turn is dropped, so the next call expects an assistant turn.
 */
export function rebuildHistory(system: Message, statement: string, summary: string): Message[] {
  return [system, { role: 'user', content: `${statement}\n\n${COMPACTION_SEPARATOR}\n\n${summary.trim()}` }];
}
