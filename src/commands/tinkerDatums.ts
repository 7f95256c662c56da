import { z } from 'zod';
import { broadcastToTokens } from '../advantage/index.js';
import type { RecordCommand } from './command.js';
import { callLibrary, IdSchema, NumberArray, parseRecord, RecordError, withId } from './record.js';

/** One `frognano tinker-datums` input line: one rollout's token sequence with its loss mask, sampling log-probs and advantage. */
export const TinkerDatumRecordSchema = z
  .object({
    id: IdSchema,
    /** The full token sequence: prompt, then the episode (model tokens and tool outputs), at least 2 tokens. */
    tokens: z.array(z.number().int().min(0)).min(2),
    /** 1 on tokens the model generated (trained), 0 on prompt and tool-output tokens; same length as `tokens`. */
    lossMask: NumberArray,
    /** Sampling log-prob of each token (read where lossMask = 1; anything elsewhere, e.g. 0); same length. */
    logprobs: NumberArray,
    /** The sequence advantage (e.g. from `frognano advantages` or `frognano gagar`). */
    advantage: z.number(),
  })
  .strict();

/** A Tinker `Datum` as plain JSON: `types.Datum(model_input=ModelInput.from_ints(model_input), loss_fn_inputs=...)`. */
export interface TinkerDatumOutput {
  id?: string | number;
  /** `tokens[:-1]`: position i predicts token i + 1. */
  model_input: number[];
  /** Per-position tensors of Tinker's RL losses (`importance_sampling`, `ppo`, `cispo`), all of length `tokens.length - 1`. */
  loss_fn_inputs: {
    /** `tokens[1:]`. */
    target_tokens: number[];
    /** Sampling log-probs of the targets; 0 on prompt / tool-output targets. */
    logprobs: number[];
    /** The advantage on model-generated targets, 0 elsewhere (`broadcastToTokens`). */
    advantages: number[];
  };
}

/**
 * Builds one Tinker-style datum (tinker SDK 0.31, tinker-cookbook `rl/data_processing.py`
 * convention): inputs are `tokens[:-1]`, every per-position tensor is aligned
 * with the targets `tokens[1:]`; advantages come from `broadcastToTokens`.
 * @throws RecordError naming `tokens[i]`, `lossMask[i]`, `logprobs`, `advantage`
 */
export function tinkerDatumRecord(value: unknown): TinkerDatumOutput {
  const rec = parseRecord(TinkerDatumRecordSchema, value);
  const n = rec.tokens.length;
  for (const f of ['lossMask', 'logprobs'] as const) {
    if (rec[f].length !== n) throw new RecordError('LENGTH_MISMATCH', `${f} has length ${rec[f].length} but tokens has length ${n}`, f);
  }
  const adv = callLibrary(() => broadcastToTokens([rec.advantage], [rec.lossMask]), [
    ['lossMasks[0]', 'lossMask'],
    ['sequenceAdvantages[0]', 'advantage'],
  ])[0]!;
  const logprobs = new Array<number>(n - 1);
  for (let t = 1; t < n; t++) logprobs[t - 1] = rec.lossMask[t] === 1 ? rec.logprobs[t]! : 0;
  return withId(rec.id, {
    model_input: rec.tokens.slice(0, -1),
    loss_fn_inputs: { target_tokens: rec.tokens.slice(1), logprobs, advantages: adv.slice(1) },
  });
}

/** `frognano tinker-datums`: export rollouts with frognano advantages as Tinker datums. */
export const tinkerDatumsCommand: RecordCommand<undefined> = {
  name: 'tinker-datums',
  summary: 'Tinker-style datums (target tokens, sampling log-probs, advantages) from rollouts and advantages',
  calls: 'broadcastToTokens (frognano/advantage)',
  input: `{ "tokens": int[], "lossMask": (0|1)[], "logprobs": number[], "advantage": number, "id"? }
  tokens: prompt + episode; lossMask 1 on model-generated tokens; logprobs: sampling log-probs (same length)`,
  output: `{ "model_input": int[], "loss_fn_inputs": { "target_tokens": int[], "logprobs": number[], "advantages": number[] }, "id"? }
  model_input = tokens[:-1]; target_tokens = tokens[1:]; logprobs / advantages aligned with the targets,
  0 on prompt and tool-output targets (tinker-cookbook convention)`,
  flags: {},
  examples: [
    {
      command: 'frognano tinker-datums',
      input: '{"tokens":[11,12,13,14,15],"lossMask":[0,0,1,1,0],"logprobs":[0,0,-0.5,-0.25,0],"advantage":0.75}',
      output: '{"model_input":[11,12,13,14],"loss_fn_inputs":{"target_tokens":[12,13,14,15],"logprobs":[0,-0.5,-0.25,0],"advantages":[0.0,0.75,0.75,0.0]}}',
    },
  ],
  configure: () => undefined,
  create: () => ({ process: (value) => tinkerDatumRecord(value) }),
};
