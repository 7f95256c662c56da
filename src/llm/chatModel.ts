import { z } from 'zod';
import { ErrorCode } from '../errors/FrognanoError.js';
import { AbortSignalSchema } from '../errors/validate.js';

/**
 * The model-access contract every LLM-backed judge of frognano uses. Any chat
 * model fits: the bundled OpenAI-compatible client (`openAiChatModel`), a
 * test double, or an adapter over another SDK.
 */

/** One part of a multimodal message (OpenAI chat-completions format): text or an image URL (`https:` or `data:`). */
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

/** One chat message sent to a model. */
export interface ChatMessage {
  /** `system`, `user` or `assistant`. */
  role: 'system' | 'user' | 'assistant';
  /** The text, or text and image parts (screenshots for the rubric judge). */
  content: string | ChatContentPart[];
}

/** A chat model: messages in, the assistant's text out. */
export interface ChatModel {
  /** A name for logs and audit records, e.g. the model id. */
  readonly name: string;
  /**
   * Returns the assistant's answer text. Implementations retry transient
   * failures themselves and reject with a `FrognanoError` `MODEL_UNAVAILABLE`
   * when no answer can be had.
   */
  complete(messages: readonly ChatMessage[], opts?: CompleteOptions): Promise<string>;
}

/** zod: a {@link ChatModel} (an object with a `complete` function). For options schemas of the judges. */
export const ChatModelSchema = z.custom<ChatModel>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { complete?: unknown }).complete === 'function',
  { message: 'must be a ChatModel (an object with a complete(messages, opts) method)', params: { code: ErrorCode.INVALID_TYPE } },
);

/** zod: the per-call options of {@link ChatModel.complete}, as the judges pass them through (`signal` included). Fields left out take the model's defaults. */
export const CompleteOptionsSchema = z
  .object({
    /** Sampling temperature (0..2). */
    temperature: z.number().min(0).max(2).optional(),
    /** Nucleus-sampling mass (0, 1]. */
    topP: z.number().gt(0).max(1).optional(),
    /** Upper bound of generated tokens (integer >= 1). */
    maxTokens: z.number().int().min(1).optional(),
    /** Stop sequences. */
    stop: z.array(z.string()).optional(),
    /** Sampling seed forwarded to the server (OpenAI `seed`); servers that ignore it sample freely. */
    seed: z.number().int().optional(),
    /** Ask for a JSON object answer (OpenAI `response_format: { type: 'json_object' }`). Not every server supports it. */
    jsonMode: z.boolean().optional(),
    /** Cancels the call (and its retries) from outside. */
    signal: AbortSignalSchema.optional(),
    /** Overrides the client's per-request timeout for this call, in milliseconds (integer >= 1). */
    timeoutMs: z.number().int().min(1).optional(),
  })
  .strict();
/** Per-call options of {@link ChatModel.complete} (the input type of {@link CompleteOptionsSchema}). */
export type CompleteOptions = z.input<typeof CompleteOptionsSchema>;
