import { z } from 'zod';
import {
  gagarCoefficients,
  GagarCandidateSchema,
  gagarRedistributeDetailed,
  GagarRedistributeOptionsSchema,
  type GagarRedistributeOptions,
  type GagarRedistribution,
} from '../judges/index.js';
import type { RecordCommand } from './command.js';
import { checkFlagOptions, defined, extendedNumberFlag } from './flags.js';
import { callLibrary, ExtendedNumberSchema, IdSchema, NumberArray, parseRecord, RecordError, withId } from './record.js';

/** One `frognano gagar` input line: a group's rewards and the judge's verdicts on its successes. */
export const GagarRecordSchema = z
  .object({
    id: IdSchema,
    /** The group's rewards (0/1 test outcomes in GAGAR). */
    rewards: NumberArray,
    /** Quality coefficients aligned with `rewards`; read only at members above the mean (null elsewhere). */
    coefficients: z.array(z.union([z.number(), z.null()])).optional(),
    /** The judge's `{ tier, rank }` aligned with `rewards`, null for failures; turned into coefficients by `gagarCoefficients`. */
    candidates: z.array(z.union([GagarCandidateSchema, z.null()])).optional(),
    /** `{ lambdaMax }` (a number >= 1 or "Infinity"); overrides the flag. */
    opts: z.object({ lambdaMax: ExtendedNumberSchema.optional() }).strict().optional(),
  })
  .strict();

/** One `frognano gagar` output line: `gagarRedistributeDetailed`'s result (+ the coefficients when computed from candidates). */
export type GagarOutput = GagarRedistribution & {
  id?: string | number;
  coefficients?: (number | null)[];
};

/**
 * Computes one GAGAR record. With `candidates`, the non-null entries go to
 * `gagarCoefficients` (in order) and the coefficients are scattered back to
 * their members; then `gagarRedistributeDetailed(rewards, coefficients, opts)`.
 * @throws RecordError naming `rewards[i]`, `coefficients[i]`, `candidates[i].<field>`, `opts.lambdaMax`
 */
export function gagarRecord(value: unknown, defaults: GagarRedistributeOptions = {}): GagarOutput {
  const rec = parseRecord(GagarRecordSchema, value);
  if ((rec.coefficients === undefined) === (rec.candidates === undefined)) {
    throw new RecordError('INVALID_TYPE', 'give either "coefficients" or "candidates" (aligned with rewards)', 'coefficients');
  }
  let coefficients: (number | null)[];
  let computed = false;
  if (rec.candidates) {
    const cands = rec.candidates;
    if (cands.length !== rec.rewards.length) {
      throw new RecordError('LENGTH_MISMATCH', `candidates has length ${cands.length} but rewards has length ${rec.rewards.length}`, 'candidates');
    }
    const at: number[] = [];
    const given = cands.filter((c, i) => (c === null ? false : (at.push(i), true))) as z.infer<typeof GagarCandidateSchema>[];
    const coefs = callLibrary(() => gagarCoefficients(given));
    coefficients = new Array<number | null>(cands.length).fill(null);
    at.forEach((i, j) => (coefficients[i] = coefs[j]!));
    computed = true;
  } else {
    coefficients = rec.coefficients!;
  }
  const opts = { ...defaults, ...defined(rec.opts ?? {}) };
  const r = callLibrary(() => gagarRedistributeDetailed(rec.rewards, coefficients, opts));
  const out: GagarOutput = { ...r };
  if (computed) out.coefficients = coefficients;
  return withId(rec.id, out);
}

/** `frognano gagar`: GAGAR quality-weighted advantage redistribution, one group per line (GAGAR §3, App. A; SPEC §4). */
export const gagarCommand: RecordCommand<GagarRedistributeOptions> = {
  name: 'gagar',
  summary: 'GAGAR quality-weighted advantage redistribution (one group per line)',
  calls: 'gagarCoefficients, gagarRedistributeDetailed (frognano/judges)',
  input: `{ "rewards": number[], "coefficients": (number|null)[], "opts"?: { "lambdaMax" }, "id"? }  or
{ "rewards": number[], "candidates": ({ "tier": "T1"|"T2"|"T3", "rank": number }|null)[], ... }
  coefficients/candidates are aligned with rewards; entries of failures are ignored (null)
  candidates: the non-null ones go to gagarCoefficients in order (rank: smaller is better)
  lambdaMax: a number >= 1, or "Infinity" for the exact conserving formula`,
  output: `{ "advantages": number[], "kept": boolean, "lambda": number, "lambdaUsed": number,
  "capped": boolean, "shift": number, "coefficients"?: (number|null)[], "id"? }
  coefficients is echoed when computed from candidates`,
  flags: {
    'lambda-max': { type: 'string', value: 'X|inf', description: 'cap of the redistribution factor (>= 1). Default 1.5' },
  },
  examples: [
    {
      command: 'frognano gagar --lambda-max inf',
      input: '{"rewards":[1,1,0,0],"coefficients":[1,0.5,null,null]}',
      output: '{"advantages":[0.6666666666666666,0.3333333333333333,-0.5,-0.5],"kept":true,"lambda":1.3333333333333333,"lambdaUsed":1.3333333333333333,"capped":false,"shift":0}',
    },
    {
      command: 'frognano gagar',
      input: '{"rewards":[1,1,0,0],"candidates":[{"tier":"T1","rank":1},{"tier":"T3","rank":1},null,null]}',
      output: '{"advantages":[0.775,0.17500000000000002,-0.475,-0.475],"kept":true,"lambda":1.6666666666666667,"lambdaUsed":1.5,"capped":true,"shift":-0.024999999999999994,"coefficients":[1,0.2,null,null]}',
    },
  ],
  configure(flags) {
    const defaults = defined({ lambdaMax: extendedNumberFlag(flags, 'lambda-max') });
    checkFlagOptions(GagarRedistributeOptionsSchema, defaults);
    return defaults;
  },
  create(defaults) {
    return { process: (value) => gagarRecord(value, defaults) };
  },
};
