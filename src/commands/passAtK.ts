import { z } from 'zod';
import { passAtK } from '../metrics/index.js';
import type { RecordCommand } from './command.js';
import { intListFlag } from './flags.js';
import { callLibrary, IdSchema, parseRecord, RecordError, withId } from './record.js';

/** One `frognano pass-at-k` input line: one task's sample counts (or pass/fail list) and the k value(s). */
export const PassAtKRecordSchema = z
  .object({
    id: IdSchema,
    /** Samples drawn. */
    n: z.number().optional(),
    /** Samples that passed. */
    c: z.number().optional(),
    /** One pass/fail per sample, instead of `n` and `c`. */
    passed: z.array(z.boolean()).optional(),
    /** The k of pass@k, or several; overrides `--k`. */
    k: z.union([z.number(), z.array(z.number()).min(1)]).optional(),
  })
  .strict();

/** One `frognano pass-at-k` output line. `passAtK` is a list when `k` is. */
export interface PassAtKOutput {
  id?: string | number;
  n: number;
  c: number;
  k: number | number[];
  passAtK: number | number[];
}

/**
 * Computes pass@k for one task with `passAtK(n, c, k)`; with `passed`,
 * `n = passed.length` and `c` = the number of `true` entries.
 * @throws RecordError naming `n`, `c`, `k` (or `k[i]`), `passed`
 */
export function passAtKRecord(value: unknown, defaultK?: number[]): PassAtKOutput {
  const rec = parseRecord(PassAtKRecordSchema, value);
  let n: number;
  let c: number;
  if (rec.passed !== undefined) {
    if (rec.n !== undefined || rec.c !== undefined) throw new RecordError('INVALID_TYPE', 'give either "passed" or "n" and "c", not both', 'passed');
    n = rec.passed.length;
    c = rec.passed.filter(Boolean).length;
  } else {
    if (rec.n === undefined || rec.c === undefined) throw new RecordError('INVALID_TYPE', 'give "n" and "c" (or "passed")', rec.n === undefined ? 'n' : 'c');
    n = rec.n;
    c = rec.c;
  }
  const k = rec.k ?? (defaultK === undefined ? undefined : defaultK.length === 1 ? defaultK[0]! : defaultK);
  if (k === undefined) throw new RecordError('INVALID_TYPE', 'k is required: pass --k or put "k" in the line', 'k');
  if (typeof k === 'number') return withId(rec.id, { n, c, k, passAtK: callLibrary(() => passAtK(n, c, k)) });
  const values = k.map((kk, i) => callLibrary(() => passAtK(n, c, kk), [['k must', `k[${i}] must`]]));
  return withId(rec.id, { n, c, k, passAtK: values });
}

/** `frognano pass-at-k`: the unbiased pass@k estimator (Chen et al. 2021; SPEC §6), one task per line. */
export const passAtKCommand: RecordCommand<number[] | undefined> = {
  name: 'pass-at-k',
  summary: 'unbiased pass@k per task (from n and c, or a pass/fail list)',
  calls: 'passAtK (frognano/metrics)',
  input: `{ "n": integer, "c": integer, "k"?: integer | integer[], "id"? }   or
{ "passed": boolean[], "k"?: integer | integer[], "id"? }
  n samples, c of them passed; k from the line or from --k`,
  output: `{ "n", "c", "k", "passAtK": number | number[], "id"? }
  1 - C(n-c, k) / C(n, k); 1 when n - c < k`,
  flags: {
    k: { type: 'string', value: 'K[,K...]', description: 'default k value(s), e.g. --k 1,5,10' },
  },
  examples: [
    { command: 'frognano pass-at-k --k 1,2', input: '{"n":4,"c":2}', output: '{"n":4,"c":2,"k":[1,2],"passAtK":[0.5,0.8333333333333333]}' },
    { command: 'frognano pass-at-k', input: '{"id":"t1","passed":[true,false,false,false],"k":2}', output: '{"id":"t1","n":4,"c":1,"k":2,"passAtK":0.5}' },
  ],
  configure: (flags) => intListFlag(flags, 'k'),
  create: (defaultK) => ({ process: (value) => passAtKRecord(value, defaultK) }),
};
