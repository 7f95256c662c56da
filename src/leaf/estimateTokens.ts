import type { Message } from '../schema/trajectory.js';

/**
 * Token estimate of messages when no tokenizer is given: 4 characters a token
 * plus 4 per message for the chat template's markers. Only used between two
 * model calls; each model answer's `usage` re-anchors the count.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) {
    n += 4 + Math.ceil(m.content.length / 4);
    for (const c of m.toolCalls ?? []) n += Math.ceil(((c.rawArguments as string | undefined) ?? JSON.stringify(c.arguments)).length / 4) + 4;
  }
  return n;
}
