import { z } from 'zod';
import { DppoMaskOptionsSchema, dppoMaskDetailed, type DppoMaskOptions } from '../advantage/index.js';
import type { RecordCommand } from './command.js';
import { checkFlagOptions, defined, enumFlag, numberFlag } from './flags.js';
import { callLibrary, IdSchema, NumberArray, parseRecord, withId } from './record.js';

/** One `frognano dppo-mask` input line: one sequence's generated tokens. */
export const DppoMaskRecordSchema = z
  .object({
    id: IdSchema,
    /** Log-probs of the sampled tokens under the current policy. */
    logpNew: NumberArray,
    /** Log-probs of the same tokens recorded at sampling time. */
    logpRollout: NumberArray,
    /** Per-token advantages, or one number for every token of the sequence. */
    advantages: z.union([NumberArray, z.number()]),
    /** `{ delta, deltaLow, deltaHigh, divergence }` of `dppoMask`; overrides the flags. */
    opts: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** One `frognano dppo-mask` output line: the mask (1 = kept) and its counts. */
export interface DppoMaskOutput {
  id?: string | number;
  mask: number[];
  kept: number;
  droppedPositive: number;
  droppedNegative: number;
  meanRho: number;
}

/**
 * Computes one DPPO mask record with `dppoMaskDetailed`. A scalar
 * `advantages` is repeated for every token.
 * @throws RecordError naming `logpNew[t]`, `logpRollout[t]`, `advantages[t]`, `opts.<key>`
 */
export function dppoMaskRecord(value: unknown, defaults: DppoMaskOptions = {}): DppoMaskOutput {
  const rec = parseRecord(DppoMaskRecordSchema, value);
  const adv = typeof rec.advantages === 'number' ? new Array<number>(rec.logpNew.length).fill(rec.advantages) : rec.advantages;
  const opts = { ...defaults, ...(rec.opts as DppoMaskOptions | undefined) };
  const r = callLibrary(() => dppoMaskDetailed(rec.logpNew, rec.logpRollout, adv, opts));
  return withId(rec.id, r);
}

/** `frognano dppo-mask`: the DPPO asymmetric trust-region mask, one sequence per line (FrogNano §4.1; SPEC §3). */
export const dppoMaskCommand: RecordCommand<DppoMaskOptions> = {
  name: 'dppo-mask',
  summary: 'the DPPO asymmetric trust-region mask (one sequence per line)',
  calls: 'dppoMaskDetailed (frognano/advantage)',
  input: `{ "logpNew": number[], "logpRollout": number[], "advantages": number[] | number, "opts"?: {...}, "id"? }
  log-probs of the generated tokens under the current policy and at sampling time (<= 0);
  advantages per token, or one number for the whole sequence
  opts = { "delta", "deltaLow", "deltaHigh", "divergence": "tv"|"kl" } (overrides the flags)`,
  output: `{ "mask": (0|1)[], "kept": number, "droppedPositive": number, "droppedNegative": number, "meanRho": number, "id"? }
  p = exp(logpNew), q = exp(logpRollout); drop when A > 0 and p - q > deltaHigh, or A <= 0 and p - q < -deltaLow`,
  flags: {
    delta: { type: 'string', value: 'X', description: 'threshold of both sides (> 0). Default 0.2' },
    'delta-low': { type: 'string', value: 'X', description: 'threshold for A <= 0 tokens. Default delta' },
    'delta-high': { type: 'string', value: 'X', description: 'threshold for A > 0 tokens. Default delta' },
    divergence: { type: 'string', value: 'tv|kl', description: 'Binary-TV (default) or Binary-KL mask' },
  },
  examples: [
    {
      command: 'frognano dppo-mask --delta 0.2',
      input: '{"logpNew":[-0.1053605156578263,-0.6931471805599453],"logpRollout":[-0.6931471805599453,-0.6931471805599453],"advantages":1}',
      output: '{"mask":[0,1],"kept":1,"droppedPositive":1,"droppedNegative":0,"meanRho":1.4}',
    },
  ],
  configure(flags) {
    const defaults = defined({
      delta: numberFlag(flags, 'delta'),
      deltaLow: numberFlag(flags, 'delta-low'),
      deltaHigh: numberFlag(flags, 'delta-high'),
      divergence: enumFlag(flags, 'divergence', ['tv', 'kl'] as const),
    });
    checkFlagOptions(DppoMaskOptionsSchema, defaults);
    return defaults;
  },
  create(defaults) {
    return { process: (value) => dppoMaskRecord(value, defaults) };
  },
};
