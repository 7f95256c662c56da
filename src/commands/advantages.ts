import { z } from 'zod';
import { groupAdvantages, GroupAdvantagesOptionsSchema, type GroupAdvantagesOptions } from '../advantage/index.js';
import type { RecordCommand } from './command.js';
import { checkFlagOptions, defined, enumFlag, numberFlag } from './flags.js';
import { callLibrary, IdSchema, NumberArray, parseRecord, RecordError, withId } from './record.js';

/** One `frognano advantages` input line (SPEC §11). */
export const AdvantagesRecordSchema = z
  .object({
    /** Copied to the output line. */
    id: IdSchema,
    /** The group's rewards (shaped rewards in FrogNano), one per rollout. */
    rewards: NumberArray,
    /** What the zero-variance filter looks at (FrogNano: the RAW outcomes 1/0), same length as `rewards`. Default: `rewards`. */
    filterBy: NumberArray.optional(),
    /** `{ scale, std, eps }` of `groupAdvantages`; overrides the flags. */
    opts: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** One `frognano advantages` output line: the group's advantages and whether the filter kept it. */
export interface AdvantagesOutput {
  id?: string | number;
  advantages: number[];
  kept: boolean;
}

type Defaults = Omit<GroupAdvantagesOptions, 'filterBy'>;

const RENAMES = [
  ['opts.filterBy[0]', 'filterBy'],
  ['groups[0]', 'rewards'],
] as const;

/**
 * Computes one advantages record: `groupAdvantages([rewards], { ...defaults, ...opts, filterBy: [filterBy] })`.
 * Shared by the CLI and `POST /v1/advantages`.
 * @throws RecordError naming `rewards[j]`, `filterBy`, `opts.<key>`
 */
export function advantagesRecord(value: unknown, defaults: Defaults = {}): AdvantagesOutput {
  const rec = parseRecord(AdvantagesRecordSchema, value);
  if (rec.opts && 'filterBy' in rec.opts) {
    throw new RecordError('INVALID_TYPE', 'opts.filterBy: give filterBy at the top level of the record, next to rewards', 'opts.filterBy');
  }
  const opts: GroupAdvantagesOptions = { ...defaults, ...(rec.opts as Defaults | undefined) };
  if (rec.filterBy !== undefined) opts.filterBy = [rec.filterBy];
  const r = callLibrary(() => groupAdvantages([rec.rewards], opts), RENAMES);
  return withId(rec.id, { advantages: r.advantages[0]!, kept: r.kept[0]! });
}

/** `frognano advantages`: group-relative advantages with the zero-variance filter, one group per line (FrogNano §4.1, GAGAR §3.1; SPEC §2). */
export const advantagesCommand: RecordCommand<Defaults> = {
  name: 'advantages',
  summary: 'group-relative advantages with the zero-variance filter (one group per line)',
  calls: 'groupAdvantages (frognano/advantage)',
  input: `{ "rewards": number[], "filterBy"?: number[], "opts"?: { "scale"?, "std"?, "eps"? }, "id"? }
  rewards   the group's rewards (shaped rewards), one per rollout
  filterBy  what the zero-variance filter looks at: the RAW outcomes (1/0), same length; default rewards
  opts      overrides the flags for this line`,
  output: `{ "advantages": number[], "kept": boolean, "id"? }
  kept = false: every filterBy value is equal (or the group has one member); advantages are then all 0`,
  flags: {
    scale: { type: 'string', value: 'std|none', description: "'std' divides by (std + eps) (GRPO); 'none' is R - mean (GAGAR, Dr. GRPO). Default std" },
    std: { type: 'string', value: 'sample|population', description: "Bessel-corrected 'sample' std (verl, TRL, OpenRLHF) or 'population'. Default sample" },
    eps: { type: 'string', value: 'X', description: 'added to the std before dividing, >= 0. Default 1e-6' },
  },
  examples: [
    {
      command: 'frognano advantages --std population --eps 0',
      input: '{"rewards":[1,0,0,1]}',
      output: '{"advantages":[1.0,-1.0,-1.0,1.0],"kept":true}',
    },
    {
      command: 'frognano advantages',
      input: '{"id":"t7","rewards":[1,0.5,0,0.5],"filterBy":[1,1,0,1],"opts":{"scale":"none"}}',
      output: '{"id":"t7","advantages":[0.5,0.0,-0.5,0.0],"kept":true}',
    },
  ],
  configure(flags) {
    const defaults = defined({
      scale: enumFlag(flags, 'scale', ['std', 'none'] as const),
      std: enumFlag(flags, 'std', ['sample', 'population'] as const),
      eps: numberFlag(flags, 'eps'),
    });
    checkFlagOptions(GroupAdvantagesOptionsSchema, defaults);
    return defaults;
  },
  create(defaults) {
    return { process: (value) => advantagesRecord(value, defaults) };
  },
};
