import { z } from 'zod';
import { parseWith } from '../errors/validate.js';
import { type Message, MessageSchema } from '../schema/trajectory.js';

/** One turn of a conversation: a user message and the assistant / tool messages that answer it. */
export interface HirsTurn {
  /** Index of the user message opening the turn. */
  userIndex: number;
  /** Indices of the reply's messages (assistant and tool), in order. */
  replyIndices: number[];
}

/** zod: messages of which only the role is read. @internal */
export const RoleListSchema = z.array(z.looseObject({ role: MessageSchema.shape.role }));

/**
 * Splits a conversation into turns (Verification Horizon §4.1: a turn is one
 * user message and the assistant's complete reply to it). Messages before the
 * first user message (the system prompt) belong to no turn; system messages
 * inside the conversation are skipped.
 *
 * @param messages - the conversation (SPEC §9 messages)
 * @throws FrognanoError `INVALID_TYPE` (a malformed message, naming `messages[i].<field>`)
 * @example segmentHirsTurns([{ role: 'system', ... }, { role: 'user', ... }, { role: 'assistant', ... }]) // [{ userIndex: 1, replyIndices: [2] }]
 */
export function segmentHirsTurns(messages: readonly Pick<Message, 'role'>[]): HirsTurn[] {
  const ms = parseWith('segmentHirsTurns', 'messages', RoleListSchema, messages);
  return turnsOf(ms);
}

/** {@link segmentHirsTurns} on parsed messages. @internal */
export function turnsOf(ms: readonly { role: Message['role'] }[]): HirsTurn[] {
  const turns: HirsTurn[] = [];
  ms.forEach((m, i) => {
    if (m.role === 'user') turns.push({ userIndex: i, replyIndices: [] });
    else if ((m.role === 'assistant' || m.role === 'tool') && turns.length > 0) turns[turns.length - 1]!.replyIndices.push(i);
  });
  return turns;
}
