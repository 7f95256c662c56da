import { z } from 'zod';
import { gagarWeightedScore } from '../judges/index.js';
import type { RecordCommand } from './command.js';
import { callLibrary, IdSchema, parseRecord, withId } from './record.js';

/** One `frognano gagar-score` input line. */
export const GagarScoreRecordSchema = z
  .object({
    id: IdSchema,
    /** The five rubric scores (validated by `gagarWeightedScore`). */
    scores: z.unknown(),
  })
  .strict();

/**
 * `{ scores }` -> `{ score }` with `gagarWeightedScore`.
 * @throws RecordError naming `scores.<field>`
 */
export function gagarScoreRecord(value: unknown): { id?: string | number; score: number } {
  const rec = parseRecord(GagarScoreRecordSchema, value);
  return withId(rec.id, { score: callLibrary(() => gagarWeightedScore(rec.scores as never)) });
}

/** `frognano gagar-score`: GAGAR's weighted rubric score (GAGAR App. A.1, Eq. 5; SPEC §4). */
export const gagarScoreCommand: RecordCommand<undefined> = {
  name: 'gagar-score',
  summary: "GAGAR's weighted rubric score of one candidate",
  calls: 'gagarWeightedScore (frognano/judges)',
  input: `{ "scores": { "approach", "precision", "minimality", "sideEffects", "consistency" }, "id"? }
  judge scores on 1..5 (any finite number accepted)`,
  output: `{ "score": number, "id"? }
  0.30 approach + 0.25 precision + 0.20 minimality + 0.15 sideEffects + 0.10 consistency`,
  flags: {},
  examples: [
    {
      command: 'frognano gagar-score',
      input: '{"scores":{"approach":5,"precision":4,"minimality":3,"sideEffects":5,"consistency":4}}',
      output: '{"score":4.25}',
    },
  ],
  configure: () => undefined,
  create: () => ({ process: (value) => gagarScoreRecord(value) }),
};
