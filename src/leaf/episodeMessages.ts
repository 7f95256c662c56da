import type { ChatTurn, WireMessage } from '../llm/toolChat.js';
import type { Message, ToolCall } from '../schema/trajectory.js';

// How a Leaf episode records the model's turns (SPEC §9 messages) and sends them back (OpenAI wire format).

/** Converts an SPEC §9 message to OpenAI wire format (malformed arguments are sent back verbatim). */
export function toWireMessage(m: Message): WireMessage {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
  if (m.role === 'assistant') {
    const calls = m.toolCalls ?? [];
    if (calls.length === 0) return { role: 'assistant', content: m.content };
    return {
      role: 'assistant',
      content: m.content === '' ? null : m.content,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: (c.rawArguments as string | undefined) ?? JSON.stringify(c.arguments) } })),
    };
  }
  return { role: m.role, content: m.content };
}

/** Parses a tool call's arguments text: an object, or the reason it is not one. */
function parseArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    return `expected a JSON object, got ${Array.isArray(v) ? 'an array' : typeof v}`;
  } catch (e) {
    return `malformed JSON (${(e as Error).message}): ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`;
  }
}

/** The assistant message recorded for a model turn (SPEC §9 plus usage, finish reason and log-probs). @internal */
export function assistantMessage(turn: ChatTurn, calls: ToolCall[]): Message {
  const m: Message = { role: 'assistant', content: turn.content };
  if (calls.length) m.toolCalls = calls;
  if (turn.reasoning !== undefined) m.reasoning = turn.reasoning;
  m.finishReason = turn.finishReason;
  if (turn.usage) m.usage = turn.usage;
  if (turn.logprobs) {
    m.logprobs = turn.logprobs.map((t) => t.logprob);
    if (turn.tokenIds) m.tokenIds = turn.tokenIds;
    else m.tokens = turn.logprobs.map((t) => t.token);
  }
  return m;
}

/** A tool call of a model turn as the episode records and runs it. @internal */
export interface RecordedToolCall {
  /** The call as recorded in the trajectory (a unique id; malformed argument text kept in `rawArguments`). */
  tc: ToolCall;
  /** The parsed arguments, or why they could not be parsed (for `executeToolCall`). */
  args: Record<string, unknown> | string;
  /** Why the call is not run (no id, or an id used twice), else null. */
  problem: string | null;
}

/**
 * The tool calls of model turn number `turn` as recorded: ids made unique and
 * present (a missing or repeated id becomes `call_leaf_<turn>_<i>`, and the call
 * is answered with an error instead of run), arguments parsed (malformed text kept verbatim).
 * @internal
 */
export function recordToolCalls(calls: ChatTurn['toolCalls'], turn: number): RecordedToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    const problem = c.id === undefined || c.id === '' ? 'the tool call has no id' : seen.has(c.id) ? `the tool call id ${JSON.stringify(c.id)} is used twice` : null;
    const id = problem ? `call_leaf_${turn}_${i}` : c.id!;
    seen.add(id);
    const args = parseArguments(c.arguments);
    const tc: ToolCall = { id, name: c.name ?? '', arguments: typeof args === 'string' ? {} : args };
    if (typeof args === 'string') tc.rawArguments = c.arguments;
    return { tc, args, problem };
  });
}
