import { z } from 'zod';
import { ErrorCode } from '../errors/FrognanoError.js';
import type { ChatModel, CompleteOptions } from './chatModel.js';

/**
 * Tool calling over OpenAI-compatible chat completions (`tools`, `tool_calls`,
 * `tool` messages), with the usage and log-probabilities a trainer needs: the
 * interface the Leaf harness drives a policy through.
 */

/** A function tool offered to the model (OpenAI `tools[i].function`). */
export interface ToolDefinition {
  /** Tool name, e.g. `bash`. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A tool call as sent back to the server in an assistant message (OpenAI wire format). */
export interface WireToolCall {
  /** Call id. */
  id: string;
  /** Always `function`. */
  type: 'function';
  /** Name and JSON-encoded arguments. */
  function: { name: string; arguments: string };
}

/** A message in OpenAI chat-completions wire format, tool calls and tool results included. */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Options of one {@link ToolChatModel.chat} call: those of `complete` plus tools and log-probs. */
export interface ChatTurnOptions extends CompleteOptions {
  /** Tools offered (sent as `tools`, with `tool_choice: 'auto'`). None: a plain completion (the compaction summary). */
  tools?: readonly ToolDefinition[];
  /** Ask for the sampled tokens' log-probabilities (`logprobs: true`; vLLM, SGLang, OpenAI). */
  logprobs?: boolean;
}

/** A tool call as the model produced it: fields may be missing or malformed, the harness decides. */
export interface RawToolCall {
  /** The call id, if the server gave one. */
  id: string | undefined;
  /** The tool name, if any. */
  name: string | undefined;
  /** The arguments text exactly as produced (normally a JSON object). */
  arguments: string;
}

/** One sampled token and its log-probability. */
export interface TokenLogprob {
  /** The token text (vLLM with `return_tokens_as_token_ids`: `token_id:<n>`). */
  token: string;
  /** Its log-probability under the sampling policy (the `q` of the DPPO mask). */
  logprob: number;
}

/** The assistant's turn as the server returned it. */
export interface ChatTurn {
  /** The message text (`''` when the server sent `null`). */
  content: string;
  /** Reasoning text of reasoning models (`reasoning_content` / `reasoning`), when the server separates it. */
  reasoning?: string;
  /** Tool calls, in order (empty: the turn ends the episode under Leaf's rule). */
  toolCalls: RawToolCall[];
  /** `stop`, `tool_calls`, `length` (cut by the token limit), ... or null. */
  finishReason: string | null;
  /** Token usage of this call, when the server reports it. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Per-token log-probabilities of the generated tokens, when asked for and returned. */
  logprobs?: TokenLogprob[];
  /** Token ids, when every token came as `token_id:<n>` (vLLM `return_tokens_as_token_ids: true`). */
  tokenIds?: number[];
}

/** A chat model that can also call tools. `openAiChatModel` is one. */
export interface ToolChatModel extends ChatModel {
  /** One chat-completions call with tools; retries transient failures, rejects with `MODEL_UNAVAILABLE` otherwise. */
  chat(messages: readonly WireMessage[], opts?: ChatTurnOptions): Promise<ChatTurn>;
}

/** zod: a {@link ToolChatModel} (an object with `chat` and `complete`). */
export const ToolChatModelSchema = z.custom<ToolChatModel>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { chat?: unknown }).chat === 'function',
  { message: 'must be a ToolChatModel (an object with a chat(messages, opts) method, e.g. openAiChatModel())', params: { code: ErrorCode.INVALID_TYPE } },
);

/** The part of a chat-completions answer that {@link parseChatTurn} reads. @internal */
export const ChatTurnBodySchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullable().optional(),
          reasoning_content: z.string().nullable().optional(),
          reasoning: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.looseObject({
                id: z.string().nullable().optional(),
                function: z.looseObject({ name: z.string().nullable().optional(), arguments: z.unknown().optional() }).nullable().optional(),
              }),
            )
            .nullable()
            .optional(),
        }),
        finish_reason: z.string().nullable().optional(),
        logprobs: z
          .looseObject({ content: z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullable().optional() })
          .nullable()
          .optional(),
      }),
    )
    .min(1),
  usage: z.looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullable().optional(),
});

/** Turns a validated chat-completions body into a {@link ChatTurn}. @internal */
export function parseChatTurn(body: z.output<typeof ChatTurnBodySchema>): ChatTurn {
  const choice = body.choices[0]!;
  const m = choice.message;
  const toolCalls: RawToolCall[] = (m.tool_calls ?? []).map((c) => {
    const a = c.function?.arguments;
    return {
      id: c.id ?? undefined,
      name: c.function?.name ?? undefined,
      arguments: typeof a === 'string' ? a : a === undefined || a === null ? '' : JSON.stringify(a),
    };
  });
  const turn: ChatTurn = { content: m.content ?? '', toolCalls, finishReason: choice.finish_reason ?? null };
  const reasoning = m.reasoning_content ?? m.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') turn.reasoning = reasoning;
  const u = body.usage;
  if (u && typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number') {
    turn.usage = { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens };
  }
  const lp = choice.logprobs?.content;
  if (lp && lp.length) {
    turn.logprobs = lp.map((t) => ({ token: t.token, logprob: t.logprob }));
    const ids = lp.map((t) => /^token_id:(\d+)$/.exec(t.token));
    if (ids.every((x) => x !== null)) turn.tokenIds = ids.map((x) => Number(x![1]));
  }
  return turn;
}
