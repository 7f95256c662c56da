import { z } from 'zod';
import { parseOptions, parseWith } from '../errors/validate.js';
import { askStructured } from '../llm/askStructured.js';
import { type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { type Message, MessageSchema, TrajectorySchema } from '../schema/trajectory.js';
import { HIRS_CONFIDENCE_LEVELS, HirsAnswerSchema, type HirsNeutralizedReason, type HirsRecord } from './hirsRecord.js';
import { clip, messageLines } from './judgeMaterial.js';
import { judgeMaterialOptions } from './judgeOptions.js';
import { turnsOf } from './segmentHirsTurns.js';
import { validateParsed } from './validateHirsRecord.js';

/** One annotated turn from {@link annotateHirs}. */
export interface HirsTurnAnnotation {
  /** Index (into {@link segmentHirsTurns}) of the turn whose reply is judged. */
  turn: number;
  /** Index of the user message carrying the feedback (the next turn's user message). */
  feedbackMessageIndex: number;
  /** The validated record (possibly neutralised). */
  record: HirsRecord;
  /** Why it was neutralised, or `null`. */
  neutralized: HirsNeutralizedReason | null;
  /** The annotator's record before validation. */
  original: HirsRecord;
}

/**
 * System prompt of the HIRS annotator (Verification Horizon §4.1). The paper's
 * prompt is not public; this one states its three principles and its fields.
 */
export const HIRS_SYSTEM_PROMPT = `You annotate real conversations between a software engineer (the user) and a coding assistant. Every user message implicitly evaluates the assistant's previous reply. Given the previous request, the assistant's reply (condensed) and the user's next message, annotate the signal in the user's next message about that reply.

Principles:
1. Dual perspective: record what the user expressed (polarity) and, separately, whether the user's judgment is objectively fair (user_fairness). They may disagree: if the assistant followed the instructions correctly but the user rejects it, polarity is "negative" and user_fairness is "unreasonable".
2. Evidence-driven: quote in "evidence" the exact words of the user's next message that carry the signal, copied verbatim. Never annotate from speculation.
3. Conservative: when the signal is ambiguous, annotate "neutral". Better to miss a label than to mislabel.

Signals: explicit ("no, revert that", "great, thanks") or implicit (accepting the result and moving on to a new request is implicit approval; restating the same request differently is implicit rejection). A message that only moves on with no judgment is neutral.

Fields:
- polarity: "positive" | "neutral" | "negative"
- confidence: "high" | "medium" | "low"
- signal_source: "explicit" | "implicit" | "none"
- negative_reason: one of "execution_error", "misunderstanding", "omission", "overaction", "inefficiency", "communication", "other" when polarity is "negative", else null
- user_fairness: "reasonable" | "unreasonable" | "unclear"
- evidence: verbatim quote from the user's next message ("" for neutral)

Answer with one JSON object and nothing else:
{"polarity": "negative", "confidence": "high", "signal_source": "explicit", "negative_reason": "misunderstanding", "user_fairness": "reasonable", "evidence": "..."}`;

/**
 * Options of {@link annotateHirs}, with the shared judge options
 * `maxToolOutputChars` (default 200), `retries` (per turn, default 2),
 * `complete` and `systemPrompt` (replaces {@link HIRS_SYSTEM_PROMPT}).
 */
export const AnnotateHirsOptionsSchema = z
  .object({
    /** The annotator model (the paper uses Qwen-Plus). */
    model: ChatModelSchema,
    /** See {@link validateHirsRecord}. Default `'medium'`. */
    minConfidence: z.enum(HIRS_CONFIDENCE_LEVELS).default('medium'),
    /** Characters of the condensed reply shown. Default 4000. */
    maxReplyChars: z.number().int().min(1).default(4000),
    /** Characters of each user message shown. Default 4000. */
    maxUserChars: z.number().int().min(1).default(4000),
    ...judgeMaterialOptions({ maxToolOutputChars: 200 }).pick({ maxToolOutputChars: true, retries: true, complete: true, systemPrompt: true }).shape,
  })
  .strict();
/** Options of {@link annotateHirs} as the caller writes them. */
export type AnnotateHirsOptions = z.input<typeof AnnotateHirsOptionsSchema>;

const MessageListSchema = z.array(MessageSchema);
const ConversationSchema = TrajectorySchema.pick({ messages: true }).loose();

/**
 * The LLM-as-judge HIRS annotator of Verification Horizon §4.1. The conversation
 * is preprocessed (system prompt dropped, reasoning `<think>` blocks removed,
 * tool calls condensed to one line each and tool outputs cut), split into turns
 * ({@link segmentHirsTurns}), and for every turn followed by a user message the
 * model annotates that user message as feedback on the turn's reply; the turns
 * are annotated concurrently (bounded by the model's own concurrency limit). The
 * opening task message judges nothing, and the last turn has no feedback, so a
 * conversation of `T` turns yields `T - 1` annotations. Each record goes through
 * {@link validateHirsRecord}: unquoted or low-confidence signals become
 * neutral. A structurally malformed answer (bad JSON, unknown enum values, a
 * negative record without reason) is asked again (`retries`), then fails the
 * call with `MODEL_ANSWER_INVALID`. The trajectory-level completion status the
 * paper also annotates is not produced here.
 *
 * @param conversation - a SPEC §9 trajectory or its messages
 * @param opts - `{ model, minConfidence = 'medium', retries = 2, ... }`
 * @returns one annotation per judged turn, in turn order
 * @throws FrognanoError (as a rejected promise) `INVALID_TYPE` (a malformed conversation or
 *   option), `MODEL_ANSWER_INVALID`, `MODEL_UNAVAILABLE`
 * @example
 * const turns = await annotateHirs(trajectory, { model });
 * const tokens = hirsTokenPolarity(trajectory.messages, turns, tokenCountsPerMessage);
 */
export async function annotateHirs(conversation: { messages: readonly Message[] } | readonly Message[], opts: AnnotateHirsOptions): Promise<HirsTurnAnnotation[]> {
  const fn = 'annotateHirs';
  const o = parseOptions(fn, AnnotateHirsOptionsSchema, opts);
  const messages: Message[] = Array.isArray(conversation)
    ? parseWith(fn, 'conversation', MessageListSchema, conversation)
    : parseWith(fn, 'conversation', ConversationSchema, conversation).messages;
  const turns = turnsOf(messages);
  const lim = { maxToolOutputChars: o.maxToolOutputChars, maxContentChars: Math.min(1000, o.maxReplyChars) };
  const jobs = turns.slice(1).map(async (next, k): Promise<HirsTurnAnnotation> => {
    const prev = turns[k]!;
    const reply = prev.replyIndices.flatMap((i) => messageLines(messages[i]!, i, lim)).join('\n');
    const userText = messages[next.userIndex]!.content;
    const prompt = `## Previous request\n${clip(messages[prev.userIndex]!.content, o.maxUserChars)}\n\n## Assistant's reply (condensed)\n${reply === '' ? '(no reply)' : clip(reply, o.maxReplyChars)}\n\n## User's next message (annotate this)\n${clip(userText, o.maxUserChars)}`;
    const chat: ChatMessage[] = [
      { role: 'system', content: o.systemPrompt ?? HIRS_SYSTEM_PROMPT },
      { role: 'user', content: prompt },
    ];
    const a = await askStructured(o.model, chat, HirsAnswerSchema, { retries: o.retries, caller: fn, complete: o.complete });
    const original: HirsRecord = {
      polarity: a.polarity,
      confidence: a.confidence,
      signal_source: a.signal_source,
      negative_reason: a.negative_reason,
      user_fairness: a.user_fairness,
      evidence: a.evidence,
    };
    const v = validateParsed(original, userText, o.minConfidence);
    return { turn: k, feedbackMessageIndex: next.userIndex, record: v.record, neutralized: v.neutralized, original };
  });
  return Promise.all(jobs);
}
