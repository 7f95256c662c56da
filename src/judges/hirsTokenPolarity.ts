import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { finiteArray, parseOptions, parseWith, sameLength } from '../errors/validate.js';
import { type HirsPolarity, HirsPolaritySchema } from './hirsRecord.js';
import { RoleListSchema, turnsOf } from './segmentHirsTurns.js';
import type { Message } from '../schema/trajectory.js';


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

const AnnotationRefListSchema = z.array(z.looseObject({ turn: z.number().int().min(0), record: z.looseObject({ polarity: HirsPolaritySchema }) }));

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
  const ms = parseWith(fn, 'messages', RoleListSchema, messages);
  const anns = parseWith(fn, 'annotations', AnnotationRefListSchema, annotations);
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
