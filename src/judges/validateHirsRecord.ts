import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions, parseWith } from '../errors/validate.js';
import { HIRS_CONFIDENCE_LEVELS, type HirsConfidence, type HirsNeutralizedReason, type HirsRecord, HirsRecordSchema } from './hirsRecord.js';

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

/** {@link validateHirsRecord} on a parsed record. @internal */
export function validateParsed(r: HirsRecord, userText: string, minConfidence: HirsConfidence): HirsValidation {
  if (r.polarity === 'neutral') return { record: r, neutralized: null };
  const ev = r.evidence.trim();
  let why: HirsNeutralizedReason | null = null;
  if (ev === '') why = 'missing-evidence';
  else if (!userText.includes(ev)) why = 'evidence-not-verbatim';
  else if (HIRS_CONFIDENCE_LEVELS.indexOf(r.confidence) < HIRS_CONFIDENCE_LEVELS.indexOf(minConfidence)) why = 'low-confidence';
  return why === null ? { record: r, neutralized: null } : { record: { ...r, polarity: 'neutral', negative_reason: null }, neutralized: why };
}
