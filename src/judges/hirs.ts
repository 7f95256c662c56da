import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteArray, parseOptions, parseWith, sameLength } from '../errors/validate.js';
import { askStructured, AskStructuredOptionsSchema } from '../llm/askStructured.js';
import { type ChatMessage, ChatModelSchema } from '../llm/chatModel.js';
import { type Message, MessageSchema, TrajectorySchema } from '../schema/trajectory.js';
import { clip, messageLines } from './judgeMaterial.js';

/** Polarity of a user's feedback on the previous reply (Verification Horizon §4.1): positive, neutral or negative. */
export type HirsPolarity = 'positive' | 'neutral' | 'negative';
/** Confidence levels, from least to most confident. */
export const HIRS_CONFIDENCE_LEVELS = ['low', 'medium', 'high'] as const;
/** How sure the annotator is. */
export type HirsConfidence = (typeof HIRS_CONFIDENCE_LEVELS)[number];
/**
 * Negative-reason categories: the six behaviour dimensions of Verification
 * Horizon §4.4.3 (execution error, misunderstanding, omission, overaction,
 * inefficiency, communication) plus `other`. §4.2 reports execution (56.6%) and
 * understanding (21.1%) errors as the two largest.
 */
export const HIRS_NEGATIVE_REASONS = ['execution_error', 'misunderstanding', 'omission', 'overaction', 'inefficiency', 'communication', 'other'] as const;
/** A negative-reason category. */
export type HirsNegativeReason = (typeof HIRS_NEGATIVE_REASONS)[number];

const HirsRecordShape = {
  /** What the user expressed about the previous reply. */
  polarity: z.enum(['positive', 'neutral', 'negative']),
  /** How clear the signal is; `low` is turned to neutral (see {@link validateHirsRecord}). */
  confidence: z.enum(HIRS_CONFIDENCE_LEVELS),
  /** `explicit` (said so: "no, revert"), `implicit` (behaviour: accepting and moving on, restating the same request) or `none`. */
  signal_source: z.enum(['explicit', 'implicit', 'none']),
  /** Category of a negative signal; `null` unless `polarity` is `negative`. */
  negative_reason: z.enum(HIRS_NEGATIVE_REASONS).nullable(),
  /** Whether the user's judgment is objectively fair (may disagree with the polarity: a correct reply the user rejects is negative and `unreasonable`). */
  user_fairness: z.enum(['reasonable', 'unreasonable', 'unclear']),
  /** Words copied verbatim from the user's message that carry the signal; required for positive / negative. */
  evidence: z.string(),
};

function reasonConsistent(r: { polarity: string; negative_reason: string | null }, ctx: z.RefinementCtx): void {
  if (r.polarity === 'negative' && r.negative_reason === null) {
    ctx.addIssue({ code: 'custom', path: ['negative_reason'], message: 'a negative record needs a negative_reason', params: { code: ErrorCode.INVALID_TYPE } });
  } else if (r.polarity !== 'negative' && r.negative_reason !== null) {
    ctx.addIssue({ code: 'custom', path: ['negative_reason'], message: `must be null when polarity is ${r.polarity}`, params: { code: ErrorCode.INVALID_TYPE } });
  }
}

/**
 * The per-turn HIRS record (human implicit reward signal, Verification Horizon
 * §4.1): the fields the LLM-as-judge annotator outputs for one user message,
 * judging the assistant's previous reply. Dual perspective: `polarity` is what
 * the user expressed, `user_fairness` whether that was fair. `negative_reason`
 * is set exactly when `polarity` is `negative`.
 */
export const HirsRecordSchema = z.object(HirsRecordShape).strict().superRefine(reasonConsistent);
/** The per-turn HIRS record. */
export type HirsRecord = z.infer<typeof HirsRecordSchema>;
/** The annotator model's answer: a HIRS record, unknown extra keys ignored. */
export const HirsAnswerSchema = z.looseObject(HirsRecordShape).superRefine(reasonConsistent);

/** Why a record was turned neutral by {@link validateHirsRecord}. */
export type HirsNeutralizedReason = 'missing-evidence' | 'evidence-not-verbatim' | 'low-confidence';

/** Options of {@link validateHirsRecord}. */
export const ValidateHirsRecordOptionsSchema = z
  .object({
    /** Least confidence kept for a positive / negative record; below it the record becomes neutral. Default `'medium'` (only `low` is dropped). */
    minConfidence: z.enum(HIRS_CONFIDENCE_LEVELS).default('medium'),
  })
  .strict();
/** Options of {@link validateHirsRecord} as the caller writes them. */
export type ValidateHirsRecordOptions = z.input<typeof ValidateHirsRecordOptionsSchema>;

/** The result of {@link validateHirsRecord}. */
export interface HirsValidation {
  /** The record to use: the input, or its neutral version. */
  record: HirsRecord;
  /** Why it was neutralised; `null` when kept as is. */
  neutralized: HirsNeutralizedReason | null;
}

/**
 * Applies the annotation principles of Verification Horizon §4.1 to one record:
 * *evidence-driven* (every positive / negative record must quote the user's own
 * words) and *conservative* ("better to miss a label than to mislabel": an
 * ambiguous or low-confidence signal is neutral). A positive or negative record
 * becomes neutral (`polarity: 'neutral'`, `negative_reason: null`, other fields
 * kept) when its evidence is empty (`missing-evidence`), does not occur verbatim
 * in `userText` (`evidence-not-verbatim`; exact substring after trimming the
 * quote's ends, case and punctuation included), or its confidence is below
 * `minConfidence` (`low-confidence`), checked in that order. A neutral record
 * passes unchanged.
 *
 * @param record - the annotator's record
 * @param userText - the user message the record annotates
 * @param opts - `{ minConfidence = 'medium' }`
 * @throws FrognanoError `INVALID_TYPE` (a malformed record, naming `record.<field>`; `userText` not a string)
 * @example
 * validateHirsRecord({ polarity: 'negative', confidence: 'high', signal_source: 'explicit',
 *   negative_reason: 'misunderstanding', user_fairness: 'reasonable', evidence: 'that is wrong' }, 'No, that is wrong.')
 * // { record: <unchanged>, neutralized: null }
 */
export function validateHirsRecord(record: HirsRecord, userText: string, opts?: ValidateHirsRecordOptions): HirsValidation {
  const fn = 'validateHirsRecord';
  const o = parseOptions(fn, ValidateHirsRecordOptionsSchema, opts);
  const r = parseWith(fn, 'record', HirsRecordSchema, record);
  if (typeof userText !== 'string') throw new FrognanoError(ErrorCode.INVALID_TYPE, `userText must be a string, got ${describeValue(userText)}`, { fn, field: 'userText' });
  return validateParsed(r, userText, o.minConfidence);
}

function validateParsed(r: HirsRecord, userText: string, minConfidence: HirsConfidence): HirsValidation {
  if (r.polarity === 'neutral') return { record: r, neutralized: null };
  const ev = r.evidence.trim();
  let why: HirsNeutralizedReason | null = null;
  if (ev === '') why = 'missing-evidence';
  else if (!userText.includes(ev)) why = 'evidence-not-verbatim';
  else if (HIRS_CONFIDENCE_LEVELS.indexOf(r.confidence) < HIRS_CONFIDENCE_LEVELS.indexOf(minConfidence)) why = 'low-confidence';
  return why === null ? { record: r, neutralized: null } : { record: { ...r, polarity: 'neutral', negative_reason: null }, neutralized: why };
}

/** One turn of a conversation: a user message and the assistant / tool messages that answer it. */
export interface HirsTurn {
  /** Index of the user message opening the turn. */
  userIndex: number;
  /** Indices of the reply's messages (assistant and tool), in order. */
  replyIndices: number[];
}

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
  const ms = parseWith('segmentHirsTurns', 'messages', z.array(z.looseObject({ role: MessageSchema.shape.role })), messages);
  return turnsOf(ms);
}

function turnsOf(ms: readonly { role: Message['role'] }[]): HirsTurn[] {
  const turns: HirsTurn[] = [];
  ms.forEach((m, i) => {
    if (m.role === 'user') turns.push({ userIndex: i, replyIndices: [] });
    else if ((m.role === 'assistant' || m.role === 'tool') && turns.length > 0) turns[turns.length - 1]!.replyIndices.push(i);
  });
  return turns;
}

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

/** Options of {@link annotateHirs}. */
export const AnnotateHirsOptionsSchema = z
  .object({
    /** The annotator model (the paper uses Qwen-Plus). */
    model: ChatModelSchema,
    /** See {@link validateHirsRecord}. Default `'medium'`. */
    minConfidence: z.enum(HIRS_CONFIDENCE_LEVELS).default('medium'),
    /** Further calls per turn after a malformed answer (integer >= 0). Default 2. */
    retries: AskStructuredOptionsSchema.shape.retries,
    /** Characters of the condensed reply shown. Default 4000. */
    maxReplyChars: z.number().int().min(1).default(4000),
    /** Characters kept of each tool output in the reply. Default 200. */
    maxToolOutputChars: z.number().int().min(1).default(200),
    /** Characters of each user message shown. Default 4000. */
    maxUserChars: z.number().int().min(1).default(4000),
    /** Completion options. */
    complete: AskStructuredOptionsSchema.shape.complete,
    /** Replaces {@link HIRS_SYSTEM_PROMPT} (keep the answer format). */
    systemPrompt: z.string().min(1).optional(),
  })
  .strict();
/** Options of {@link annotateHirs} as the caller writes them. */
export type AnnotateHirsOptions = z.input<typeof AnnotateHirsOptionsSchema>;

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
    ? parseWith(fn, 'conversation', z.array(MessageSchema), conversation)
    : parseWith(fn, 'conversation', TrajectorySchema.pick({ messages: true }).loose(), conversation).messages;
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

/** A span of same-polarity generated tokens, `[start, end)` over the flat token array (SPEC §5 `spanKtoLoss` input). */
export interface PolaritySpan {
  /** First token. */
  start: number;
  /** One past the last token. */
  end: number;
  /** The span's polarity. */
  polarity: 'positive' | 'negative';
}

/** Options of {@link hirsTokenPolarity}. */
export const HirsTokenPolarityOptionsSchema = z
  .object({
    /**
     * `'full'` (default): the flat token array is every message's tokens in order
     * (the training sequence); `'assistant'`: only the assistant messages' tokens,
     * in order (a generated-tokens-only layout).
     */
    layout: z.enum(['full', 'assistant']).default('full'),
  })
  .strict();
/** Options of {@link hirsTokenPolarity} as the caller writes them. */
export type HirsTokenPolarityOptions = z.input<typeof HirsTokenPolarityOptionsSchema>;

/** The result of {@link hirsTokenPolarity}: the inputs of `rwSftLoss` and `spanKtoLoss` (SPEC §5). */
export interface HirsTokenLabels {
  /** Polarity per token (`rwSftLoss` `polarity`); non-assistant tokens are `'neutral'` with `lossMask` 0. */
  polarity: HirsPolarity[];
  /** 1 on assistant tokens, 0 elsewhere (`rwSftLoss` `lossMask`). */
  lossMask: number[];
  /** 1 on assistant tokens whose turn is neutral (`spanKtoLoss` `neutralMask`). */
  neutralMask: number[];
  /** Maximal runs of positive / negative assistant tokens (`spanKtoLoss` `spans`). */
  spans: PolaritySpan[];
}

/**
 * The longest flat token sequence {@link hirsTokenPolarity} labels (2^24 = 16,777,216 tokens,
 * above any context window in use): its per-token outputs hold one entry per token, so a larger
 * `tokenCounts` total is refused (`OUT_OF_RANGE`) instead of exhausting memory.
 */
export const HIRS_MAX_TOKENS = 2 ** 24;

const AnnotationRefSchema = z.looseObject({ turn: z.number().int().min(0), record: z.looseObject({ polarity: z.enum(['positive', 'neutral', 'negative']) }) });

/**
 * Turns annotated turns into the token-level labels the user-feedback losses
 * consume (Verification Horizon §4.3; SPEC §5), given the tokenizer's token count
 * of every message.
 *
 * Every assistant message of turn `k` takes the polarity of the annotation with
 * `turn = k` (the user's feedback on that reply); turns without annotation (the
 * last turn, unannotated ones) are neutral. Tool, user and system tokens are not
 * the policy's: `lossMask` 0, polarity `'neutral'`, in no span, not in
 * `neutralMask`.
 *
 * The paper's span is the agent's whole reply to one user request. A span must be
 * contiguous in the flat token array, so with `layout: 'full'` a reply
 * interleaved with tool outputs yields one span per run of consecutive assistant
 * messages (the tool tokens between them are excluded); with `layout: 'assistant'`
 * (flat array = assistant tokens only) every non-neutral turn is exactly one span.
 * Messages with 0 tokens add nothing; empty spans are never emitted.
 *
 * @param messages - the conversation (`role` is read), as annotated
 * @param annotations - `{ turn, record: { polarity } }` per annotated turn, e.g. from {@link annotateHirs}
 * @param tokenCounts - tokens of each message in the flat sequence (integers >= 0), same length as `messages`
 * @param opts - `{ layout = 'full' }`
 * @throws FrognanoError `LENGTH_MISMATCH` (`tokenCounts`), `INVALID_TYPE` (a malformed message or
 *   annotation), `NON_FINITE` / `OUT_OF_RANGE` (a bad token count `tokenCounts[i]`, counts summing to more
 *   than {@link HIRS_MAX_TOKENS}, an annotation
 *   `annotations[a].turn` beyond the last turn or repeated)
 * @example
 * // [system, user, assistant, tool, assistant, user, assistant], the user's second message is negative on turn 0
 * hirsTokenPolarity(msgs, [{ turn: 0, record: { polarity: 'negative' } }], [5, 4, 3, 6, 2, 4, 3])
 * // spans [{ start: 9, end: 12, polarity: 'negative' }, { start: 18, end: 20, polarity: 'negative' }], turn 1 neutral
 */
export function hirsTokenPolarity(
  messages: readonly Pick<Message, 'role'>[],
  annotations: readonly { turn: number; record: { polarity: HirsPolarity } }[],
  tokenCounts: ArrayLike<number>,
  opts?: HirsTokenPolarityOptions,
): HirsTokenLabels {
  const fn = 'hirsTokenPolarity';
  const { layout } = parseOptions(fn, HirsTokenPolarityOptionsSchema, opts);
  const ms = parseWith(fn, 'messages', z.array(z.looseObject({ role: MessageSchema.shape.role })), messages);
  const anns = parseWith(fn, 'annotations', z.array(AnnotationRefSchema), annotations);
  const counts = finiteArray(fn, 'tokenCounts', tokenCounts);
  sameLength(fn, 'messages', ms, 'tokenCounts', counts);
  let total = 0;
  for (let i = 0; i < counts.length; i++) {
    if (!Number.isInteger(counts[i]) || counts[i]! < 0) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `tokenCounts[${i}] must be an integer >= 0, got ${counts[i]}`, { fn, field: `tokenCounts[${i}]`, index: [i] });
    }
    // The labels hold one entry per token: refuse a length no conversation has before allocating it.
    if (layout === 'full' || ms[i]!.role === 'assistant') total += counts[i]!;
    if (total > HIRS_MAX_TOKENS) {
      throw new FrognanoError(
        ErrorCode.OUT_OF_RANGE,
        `tokenCounts[${i}] is ${counts[i]}: the labelled sequence would reach ${total} tokens, more than ${HIRS_MAX_TOKENS} (HIRS_MAX_TOKENS)`,
        { fn, field: `tokenCounts[${i}]`, index: [i] },
      );
    }
  }
  const turns = turnsOf(ms);
  const turnPolarity: HirsPolarity[] = turns.map(() => 'neutral');
  const seen = new Set<number>();
  anns.forEach((a, k) => {
    if (a.turn >= turns.length) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `annotations[${k}].turn is ${a.turn} but the conversation has ${turns.length} turn(s)`, { fn, field: `annotations[${k}].turn`, index: [k] });
    }
    if (seen.has(a.turn)) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `annotations[${k}].turn repeats turn ${a.turn}`, { fn, field: `annotations[${k}].turn`, index: [k] });
    seen.add(a.turn);
    turnPolarity[a.turn] = a.record.polarity;
  });
  const turnOfMessage = new Array<number>(ms.length).fill(-1);
  turns.forEach((t, k) => t.replyIndices.forEach((i) => (turnOfMessage[i] = k)));

  const polarity: HirsPolarity[] = [];
  const lossMask: number[] = [];
  const neutralMask: number[] = [];
  const spans: PolaritySpan[] = [];
  let open: PolaritySpan | null = null;
  let openTurn = -1;
  const close = (): void => {
    if (open && open.end > open.start) spans.push(open);
    open = null;
    openTurn = -1;
  };
  ms.forEach((m, i) => {
    const n = counts[i]!;
    const isAssistant = m.role === 'assistant';
    if (!isAssistant && layout === 'assistant') return;
    if (!isAssistant) {
      if (n > 0) close();
      for (let t = 0; t < n; t++) {
        polarity.push('neutral');
        lossMask.push(0);
        neutralMask.push(0);
      }
      return;
    }
    const k = turnOfMessage[i]!;
    const p: HirsPolarity = k >= 0 ? turnPolarity[k]! : 'neutral';
    if (n === 0) return;
    const start = polarity.length;
    for (let t = 0; t < n; t++) {
      polarity.push(p);
      lossMask.push(1);
      neutralMask.push(p === 'neutral' ? 1 : 0);
    }
    if (p === 'neutral') {
      close();
      return;
    }
    const cur = open as PolaritySpan | null;
    if (cur !== null && openTurn === k && cur.polarity === p && cur.end === start) cur.end = start + n;
    else {
      close();
      open = { start, end: start + n, polarity: p };
      openTurn = k;
    }
  });
  close();
  return { polarity, lossMask, neutralMask, spans };
}
