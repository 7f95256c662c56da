/**
 * Model access for the LLM-backed judges: the {@link ChatModel} contract, an
 * OpenAI-compatible chat-completions client on the global `fetch` (timeouts,
 * retries with seeded exponential backoff on 429/5xx/network errors, a
 * concurrency limit; endpoint from options or `FROGNANO_LLM_BASE_URL` /
 * `FROGNANO_LLM_MODEL` / `FROGNANO_LLM_API_KEY`, falling back to `OPENAI_*`),
 * and {@link askStructured}, which turns an answer into zod-validated JSON or
 * fails with `MODEL_ANSWER_INVALID`, never guessing. No tfjs.
 * @module llm
 */
export { ChatModelSchema, CompleteOptionsSchema } from './chatModel.js';
export type { ChatContentPart, ChatMessage, ChatModel, CompleteOptions } from './chatModel.js';
export { createSemaphore } from './semaphore.js';
export type { Semaphore } from './semaphore.js';
export { openAiChatModel, OpenAIChatModelOptionsSchema, resolveChatEndpoint } from './openAiChatModel.js';
export type { ChatEndpoint, OpenAIChatModelOptions } from './openAiChatModel.js';
export { askStructured, AskStructuredOptionsSchema, describeZodError, extractJson } from './askStructured.js';
export type { AskStructuredOptions, ExtractJsonResult, RejectedAnswer } from './askStructured.js';
export { ToolChatModelSchema } from './toolChat.js';
export type { ChatTurn, ChatTurnOptions, RawToolCall, TokenLogprob, ToolChatModel, ToolDefinition, WireMessage, WireToolCall } from './toolChat.js';
