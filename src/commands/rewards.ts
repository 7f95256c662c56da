import { z } from 'zod';
import { shapeRewards, ShapeRewardOptionsSchema, type ShapeRewardOptions } from '../rewards/index.js';
import type { RecordCommand } from './command.js';
import { checkFlagOptions, defined, extendedNumberFlag, numberFlag } from './flags.js';
import { callLibrary, ExtendedNumberSchema, IdSchema, parseRecord, RecordError, withId } from './record.js';

const LineOptsSchema = z
  .object({
    budget: z.unknown().optional(),
    alpha: z.unknown().optional(),
    truncatedReward: z.unknown().optional(),
    lengthPenalty: z.unknown().optional(),
    /** JSON has no -Infinity: `"-Infinity"` is accepted here. */
    floor: ExtendedNumberSchema.optional(),
  })
  .strict();

/** One `frognano rewards` input line: a group of outcomes, or one outcome. */
export const RewardsRecordSchema = z
  .object({
    id: IdSchema,
    /** The verifier's outcomes of a group's rollouts: `{ success, truncated, assistantTokens }[]`. */
    outcomes: z.array(z.unknown()).optional(),
    /** One rollout's outcome. */
    outcome: z.unknown().optional(),
    /** `{ budget, alpha, truncatedReward, lengthPenalty, floor }` of `shapeReward`; overrides the flags. */
    opts: LineOptsSchema.optional(),
  })
  .strict();

/** Output of a group line: the shaped rewards and the raw outcomes (as `filterBy`, ready for `frognano advantages`). */
export interface RewardsGroupOutput {
  id?: string | number;
  rewards: number[];
  filterBy: number[];
}

/** Output of a single-outcome line. */
export interface RewardsSingleOutput {
  id?: string | number;
  reward: number;
  raw: number;
}

type Defaults = Partial<ShapeRewardOptions>;

/** The flags' shaping defaults: any subset of `shapeReward`'s options (built once). */
const ShapeRewardDefaultsSchema = ShapeRewardOptionsSchema.partial();

/**
 * Computes one rewards record with `shapeRewards` (frognano/rewards).
 * `{ outcomes }` -> `{ rewards, filterBy }` (filterBy = raw outcomes 1/0);
 * `{ outcome }` -> `{ reward, raw }`.
 * @throws RecordError naming `outcomes[i].<field>`, `outcome.<field>` or `opts.<key>`
 */
export function rewardsRecord(value: unknown, defaults: Defaults = {}): RewardsGroupOutput | RewardsSingleOutput {
  const rec = parseRecord(RewardsRecordSchema, value);
  const hasGroup = rec.outcomes !== undefined;
  const hasOne = 'outcome' in (value as object);
  if (hasGroup === hasOne) {
    throw new RecordError('INVALID_TYPE', 'give either "outcomes" (a group) or "outcome" (one rollout)', hasGroup ? 'outcome' : 'outcomes');
  }
  const opts = { ...defaults, ...defined(rec.opts ?? {}) } as ShapeRewardOptions;
  for (const key of ['budget', 'alpha'] as const) {
    if (opts[key] === undefined) {
      throw new RecordError('INVALID_TYPE', `opts.${key} is required: pass --${key} or give opts.${key}`, `opts.${key}`);
    }
  }
  if (hasGroup) {
    const r = callLibrary(() => shapeRewards(rec.outcomes as never, opts));
    return withId(rec.id, { rewards: r.rewards, filterBy: r.raw });
  }
  const r = callLibrary(() => shapeRewards([rec.outcome] as never, opts), [['outcomes[0]', 'outcome']]);
  return withId(rec.id, { reward: r.rewards[0]!, raw: r.raw[0]! });
}

/** `frognano rewards`: FrogNano's shaped rewards from verifier outcomes (FrogNano §4.2; SPEC §1). */
export const rewardsCommand: RecordCommand<Defaults> = {
  name: 'rewards',
  summary: 'shaped rewards from verifier outcomes (success, truncated, assistantTokens)',
  calls: 'shapeRewards (frognano/rewards)',
  input: `{ "outcomes": Outcome[], "opts"?: {...}, "id"? }    a group of rollouts, or
{ "outcome": Outcome, "opts"?: {...}, "id"? }      one rollout
  Outcome = { "success": boolean, "truncated": boolean, "assistantTokens": integer >= 0 }
  opts    = { "budget", "alpha", "truncatedReward", "lengthPenalty", "floor" } (overrides the flags;
            floor may be "-Infinity")`,
  output: `{ "rewards": number[], "filterBy": number[], "id"? }   for a group: filterBy = raw outcomes (1/0),
                                                     so the line pipes straight into \`frognano advantages\`
{ "reward": number, "raw": 0|1, "id"? }              for one outcome
  fail -> 0; truncated success -> truncatedReward (0.5); completed success ->
  max(floor, 1 - alpha ln(n / budget)) when n > budget, else 1`,
  flags: {
    budget: { type: 'string', value: 'N', description: 'assistant-token budget of the length penalty (>= 1); required unless every line has opts.budget' },
    alpha: { type: 'string', value: 'A', description: 'penalty strength (>= 0); required unless every line has opts.alpha' },
    'truncated-reward': { type: 'string', value: 'R', description: 'reward of a truncated success. Default 0.5' },
    'no-length-penalty': { type: 'boolean', description: 'completed successes get 1 (no log-length penalty)' },
    floor: { type: 'string', value: 'F', description: 'lower bound of the penalised reward. Default -inf' },
  },
  examples: [
    {
      command: 'frognano rewards --budget 1000 --alpha 0.5',
      input: '{"outcomes":[{"success":true,"truncated":false,"assistantTokens":800},{"success":true,"truncated":true,"assistantTokens":3000},{"success":false,"truncated":false,"assistantTokens":500}]}',
      output: '{"rewards":[1.0,0.5,0.0],"filterBy":[1,1,0]}',
    },
    {
      command: 'frognano rewards --budget 1000 --alpha 0.5',
      input: '{"id":"r1","outcome":{"success":true,"truncated":false,"assistantTokens":4000}}',
      output: '{"id":"r1","reward":0.3068528194400547,"raw":1.0}',
    },
  ],
  configure(flags) {
    const defaults = defined({
      budget: numberFlag(flags, 'budget'),
      alpha: numberFlag(flags, 'alpha'),
      truncatedReward: numberFlag(flags, 'truncated-reward'),
      lengthPenalty: flags['no-length-penalty'] === true ? false : undefined,
      floor: extendedNumberFlag(flags, 'floor'),
    });
    checkFlagOptions(ShapeRewardDefaultsSchema, defaults);
    return defaults;
  },
  create(defaults) {
    return { process: (value) => rewardsRecord(value, defaults) };
  },
};
