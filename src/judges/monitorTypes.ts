import { z } from 'zod';
import { ErrorCode } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import type { Trajectory } from '../schema/trajectory.js';

/**
 * The shapes of the behaviour monitor (Verification Horizon §2.3): a pattern is
 * observable evidence (a detector), a leakage risk and an intervention.
 */

/** How much a monitor pattern's behaviour risks a shortcut success (Verification Horizon §2.3: each pattern has an associated leakage risk). */
export const MonitorRiskSchema = z.enum(['low', 'medium', 'high']);
/** `low`, `medium` or `high`. */
export type MonitorRisk = z.infer<typeof MonitorRiskSchema>;

/** A reward penalty: a finite number >= 0 or `'zero'` (NaN / ±Infinity `NON_FINITE`, negative `OUT_OF_RANGE`, other `INVALID_TYPE`). */
const RewardPenaltySchema = z.custom<number | 'zero'>().superRefine((v, ctx) => {
  if (v === 'zero') return;
  const got = describeValue(v);
  if (typeof v !== 'number') {
    ctx.addIssue({ code: 'custom', message: `must be a number >= 0 or 'zero', got ${got}`, params: { code: ErrorCode.INVALID_TYPE } });
  } else if (v - v !== 0) {
    ctx.addIssue({ code: 'custom', message: `must be a finite number >= 0 or 'zero', got ${got}`, params: { code: ErrorCode.NON_FINITE } });
  } else if (v < 0) {
    ctx.addIssue({ code: 'custom', message: `must be >= 0 or 'zero', got ${got}`, params: { code: ErrorCode.OUT_OF_RANGE } });
  }
});

/**
 * What the monitor does when a pattern fires (Verification Horizon §2.3: each
 * pattern has a corresponding intervention):
 * - `reward-penalty`: the trajectory's scalar reward drops by `penalty` (>= 0),
 *   or, with `penalty: 'zero'`, is set to `min(reward, 0)` (the shortcut
 *   success earns nothing);
 * - `token-penalty`: the offending characters (the tool-call argument or text
 *   span the match points at) are returned as {@link TokenPenaltySpan}s carrying
 *   `penalty` (>= 0), for the trainer to subtract from those tokens' advantages
 *   (the paper's "token-level penalty"); the scalar reward is unchanged.
 */
export const MonitorInterventionSchema = z.discriminatedUnion('kind', [
  z
    .object({
      /** Subtract from (or zero) the trajectory reward. */
      kind: z.literal('reward-penalty'),
      /** Amount subtracted (a finite number >= 0), or `'zero'`: reward -> `min(reward, 0)`. */
      penalty: RewardPenaltySchema,
    })
    .strict(),
  z
    .object({
      /** Penalise the offending tokens. */
      kind: z.literal('token-penalty'),
      /** Per-token penalty (>= 0) the trainer applies over each span. */
      penalty: z.number().min(0),
    })
    .strict(),
]);
/** A pattern's intervention. */
export type MonitorIntervention = z.infer<typeof MonitorInterventionSchema>;

/**
 * Characters of one message a match points at: `message.content` when
 * `toolCallIndex` is `null`, else the string argument `argument` of
 * `message.toolCalls[toolCallIndex]`. `[start, end)` are character offsets in
 * that string; a trainer maps them to tokens with its tokenizer's offsets.
 */
export interface MonitorSpan {
  /** Index of the tool call in `message.toolCalls`, or `null` for the message text. */
  toolCallIndex: number | null;
  /** Name of the tool-call argument (`command`, `file_path`, ...); `null` for the message text. */
  argument: string | null;
  /** First character offset. */
  start: number;
  /** One past the last character. */
  end: number;
}

/** One observation of a pattern in a trajectory. */
export interface MonitorMatch {
  /** Index into `trajectory.messages`; `messages.length` for the final diff. */
  messageIndex: number;
  /** The exact observed text (command, path, diff line, sentence). */
  evidence: string;
  /** Where the offending characters are, when they are in a message (not for diff evidence). */
  span?: MonitorSpan;
}

/** A detector: a pure function of a validated trajectory returning its matches (`[]` when the pattern is absent). */
export type MonitorDetector = (trajectory: Trajectory) => readonly MonitorMatch[];

const DetectorSchema = z.custom<MonitorDetector>().superRefine((v, ctx) => {
  if (typeof v !== 'function') {
    ctx.addIssue({
      code: 'custom',
      message: `must be a detector function (trajectory) => matches, got ${describeValue(v)}`,
      params: { code: ErrorCode.INVALID_TYPE },
    });
  }
});

/**
 * One pattern of the behaviour monitor's set `P` (Verification Horizon §2.3):
 * observable trajectory evidence, its leakage risk and the intervention.
 */
export const MonitorPatternSchema = z
  .object({
    /** Stable identifier (unique within a set), e.g. `solution-retrieval`. */
    id: z.string().min(1),
    /** Version of this pattern's detector (integer >= 1); bump it when what fires changes. */
    version: z.number().int().min(1),
    /** What the pattern looks for, in one sentence. */
    description: z.string(),
    /** The observable evidence: a deterministic detector over the trajectory. */
    evidence: DetectorSchema,
    /** Leakage risk. */
    risk: MonitorRiskSchema,
    /** What happens when it fires. */
    intervention: MonitorInterventionSchema,
  })
  .strict();
/** One monitor pattern. */
export type MonitorPattern = z.infer<typeof MonitorPatternSchema>;

