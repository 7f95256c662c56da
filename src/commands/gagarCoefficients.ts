import { z } from 'zod';
import { gagarCoefficients } from '../judges/index.js';
import type { RecordCommand } from './command.js';
import { callLibrary, IdSchema, parseRecord, withId } from './record.js';

/** One `frognano gagar-coefficients` input line. */
export const GagarCoefficientsRecordSchema = z
  .object({
    id: IdSchema,
    /** The judge's `{ tier, rank }` per successful candidate (validated by `gagarCoefficients`). */
    candidates: z.unknown(),
  })
  .strict();

/**
 * `{ candidates }` -> `{ coefficients }` with `gagarCoefficients`.
 * @throws RecordError naming `candidates[i].<field>`
 */
export function gagarCoefficientsRecord(value: unknown): { id?: string | number; coefficients: number[] } {
  const rec = parseRecord(GagarCoefficientsRecordSchema, value);
  return withId(rec.id, { coefficients: callLibrary(() => gagarCoefficients(rec.candidates as never)) });
}

/** `frognano gagar-coefficients`: GAGAR tiers and in-tier ranks -> quality coefficients (GAGAR App. A.1, Eq. 6; SPEC §4). */
export const gagarCoefficientsCommand: RecordCommand<undefined> = {
  name: 'gagar-coefficients',
  summary: "GAGAR quality coefficients from the judge's tiers and ranks",
  calls: 'gagarCoefficients (frognano/judges)',
  input: `{ "candidates": { "tier": "T1"|"T2"|"T3", "rank": number }[], "id"? }
  one entry per successful candidate; rank orders tie groups inside a tier (smaller is better)`,
  output: `{ "coefficients": number[], "id"? }
  T1: best tie group 1.0, later ones 0.9; T2: 0.85 down to 0.4 linearly; T3: 0.2`,
  flags: {},
  examples: [
    {
      command: 'frognano gagar-coefficients',
      input: '{"candidates":[{"tier":"T1","rank":1},{"tier":"T1","rank":2},{"tier":"T2","rank":1},{"tier":"T2","rank":3},{"tier":"T3","rank":1}]}',
      output: '{"coefficients":[1,0.9,0.85,0.4,0.2]}',
    },
  ],
  configure: () => undefined,
  create: () => ({ process: (value) => gagarCoefficientsRecord(value) }),
};
