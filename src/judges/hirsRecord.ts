import { z } from 'zod';
import { ErrorCode } from '../errors/FrognanoError.js';

/**
 * The per-turn record of HIRS, the human implicit reward signal (Verification
 * Horizon §4.1): its fields, levels and categories, as zod schemas.
 */

/** zod: the polarity of a user's feedback on the previous reply (Verification Horizon §4.1). @internal */
export const HirsPolaritySchema = z.enum(['positive', 'neutral', 'negative']);
/** Polarity of a user's feedback on the previous reply (Verification Horizon §4.1): positive, neutral or negative. */
export type HirsPolarity = z.infer<typeof HirsPolaritySchema>;
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
  polarity: HirsPolaritySchema,
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
