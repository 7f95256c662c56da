import { z } from 'zod';
import { groupAdvantages, type GroupAdvantagesOptions } from '../advantage/index.js';
import { advantagesRecord, callLibrary, checkedArray, IdSchema, isPlainObject, parseRecord, RecordError, withId } from '../commands/index.js';
import type { RewardEngine, RewardInput, RewardResult } from './rewardEngine.js';

/**
 * The request and response bodies of the trainer-facing endpoints. Protocol
 * bodies (OpenRLHF, slime, verl) are read leniently: unknown fields are
 * ignored, so a trainer that adds a field does not break. frognano's own
 * bodies (`/v1/...`) are strict: an unknown field is a 400.
 */

/** A real token count from a trainer: an integer >= 0, or null when unknown. */
const ResponseLengthSchema = z.number().int().min(0).nullable().optional();
/** A finish reason from a trainer (`stop`, `length`, `abort`, ...), or null when unknown. */
const FinishReasonSchema = z.string().nullable().optional();

/**
 * OpenRLHF remote reward request. OpenRLHF's own HTTP client sends
 * `{ query, prompts, labels }` (v0.6 and later; up to 0.5.7 only `query`).
 * frognano's Python client (`python/frognano_client.py`, OpenRLHF's
 * `reward_func` mode) also sends the real `response_lengths` and
 * `finish_reasons`.
 */
export const OpenRlhfRequestSchema = z.object({
  /** prompt + response, one per rollout. */
  query: checkedArray<string>('string'),
  /** The prompts, aligned with `query`. */
  prompts: checkedArray<string>('string').optional(),
  /** The dataset labels (`--data.label_key`), aligned with `query`. */
  labels: z.array(z.unknown()).optional(),
  /** Each response's real length in tokens (null where unknown), aligned with `query`. */
  response_lengths: z.array(ResponseLengthSchema).optional(),
  /** Each response's finish reason (`length` = cut at the token limit; null where unknown), aligned with `query`. */
  finish_reasons: z.array(FinishReasonSchema).optional(),
});

/** The keys of OpenRLHF's `extra_logs`: the same for every answer, an empty batch included. */
export const OPENRLHF_EXTRA_LOG_KEYS = ['success', 'budget_truncated', 'assistant_tokens'] as const;

/** OpenRLHF remote reward response: one entry per query (the shape of openrlhf/cli/serve_rm.py's answer). */
export interface OpenRlhfResponse {
  /** Rewards for the advantage computation (JSON floats). */
  rewards: number[];
  /** OpenRLHF's dynamic-filtering score: the raw outcome (1 / 0; a module's number itself). */
  scores: number[];
  /**
   * Per-query logs for the trainer's logger, always the keys of
   * {@link OPENRLHF_EXTRA_LOG_KEYS} (float lists): `success` (1 / 0; for a
   * module's plain number, 1 when it is > 0), `budget_truncated` (1 when the
   * rollout ended on a budget limit: the outcome's `truncated`, else
   * `finish_reason === 'length'`; named so as not to collide with OpenRLHF's own
   * `truncated` metric), `assistant_tokens` (the outcome's count, else the real
   * `response_length`, else 0).
   */
  extra_logs: Record<(typeof OPENRLHF_EXTRA_LOG_KEYS)[number], number[]>;
}

function extraLogs(results: readonly RewardResult[], inputs: readonly RewardInput[]): OpenRlhfResponse['extra_logs'] {
  const success: number[] = [];
  const truncated: number[] = [];
  const tokens: number[] = [];
  results.forEach((r, i) => {
    const input = inputs[i]!;
    success.push(r.outcome ? (r.outcome.success ? 1 : 0) : r.raw > 0 ? 1 : 0);
    truncated.push((r.outcome ? r.outcome.truncated : input.finishReason === 'length') ? 1 : 0);
    tokens.push(r.outcome ? r.outcome.assistantTokens : (input.responseLength ?? 0));
  });
  return { success, budget_truncated: truncated, assistant_tokens: tokens };
}

/** The trainer's real length and finish reason as RewardInput fields (absent when unknown). */
function realCounts(length: number | null | undefined, reason: string | null | undefined): Pick<RewardInput, 'responseLength' | 'finishReason'> {
  const out: Pick<RewardInput, 'responseLength' | 'finishReason'> = {};
  if (length !== undefined && length !== null) out.responseLength = length;
  if (reason !== undefined && reason !== null) out.finishReason = reason;
  return out;
}

/** `POST /openrlhf/reward`. */
export async function openrlhfReward(body: unknown, engine: RewardEngine, signal?: AbortSignal): Promise<OpenRlhfResponse> {
  const req = parseRecord(OpenRlhfRequestSchema, body);
  const n = req.query.length;
  for (const f of ['prompts', 'labels', 'response_lengths', 'finish_reasons'] as const) {
    const a = req[f];
    if (a !== undefined && a.length !== n) throw new RecordError('LENGTH_MISMATCH', `${f} has length ${a.length} but query has length ${n}`, f);
  }
  if (!engine.usesModule && req.labels === undefined) {
    throw new RecordError('INVALID_TYPE', 'labels is required: each label carries the outcome JSON (or start the service with --reward-module)', 'labels');
  }
  // Only a reward module reads the response: the built-in shaper needs the label alone,
  // and comparing each query with its prompt is most of a large batch's time.
  const needsResponse = engine.usesModule;
  const items = req.query.map((query, i) => {
    const prompt = req.prompts?.[i];
    const response = !needsResponse ? '' : prompt !== undefined && query.startsWith(prompt) ? query.slice(prompt.length) : query;
    const input: RewardInput = {
      protocol: 'openrlhf',
      prompt,
      response,
      label: req.labels?.[i],
      query,
      ...realCounts(req.response_lengths?.[i], req.finish_reasons?.[i]),
    };
    return { input, labelField: `labels[${i}]`, entry: `query[${i}]` };
  });
  const results = await engine.scoreBatch(items, signal);
  return {
    rewards: results.map((r) => r.reward),
    scores: results.map((r) => r.raw),
    extra_logs: extraLogs(
      results,
      items.map((it) => it.input),
    ),
  };
}

/**
 * slime `remote_rm` request (slime/rollout/rm_hub/__init__.py: `{ prompt, response, label }`);
 * frognano's Python client (`rm(args, sample)`) adds `sample.response_length` and a
 * finish reason from `sample.status`.
 */
export const SlimeRequestSchema = z.object({
  /** A string, or chat messages when slime applies no chat template. */
  prompt: z.unknown().optional(),
  /** The model's response. */
  response: z.string(),
  /** The sample's label (a string in slime's `Sample`; any JSON accepted). */
  label: z.unknown().optional(),
  /** Not sent by slime today; passed to the reward module when present. */
  metadata: z.unknown().optional(),
  /** The response's real length in tokens (`sample.response_length`). */
  response_length: ResponseLengthSchema,
  /** `length` when generation was cut at the token limit (`sample.status` TRUNCATED), `stop`, `abort`. */
  finish_reason: FinishReasonSchema,
});

/** slime's object form (`?format=object`): use it with `--reward-key reward`. */
export interface SlimeObjectResponse {
  reward: number;
  raw: number;
  success?: boolean;
  truncated?: boolean;
  assistantTokens?: number;
}

/** `POST /slime/reward`: a number, or with `?format=object` an object. */
export async function slimeReward(body: unknown, engine: RewardEngine, objectForm: boolean, signal?: AbortSignal): Promise<number | SlimeObjectResponse> {
  const req = parseRecord(SlimeRequestSchema, body);
  const input: RewardInput = {
    protocol: 'slime',
    prompt: req.prompt,
    response: req.response,
    label: req.label,
    metadata: req.metadata,
    ...realCounts(req.response_length, req.finish_reason),
  };
  const r = await engine.score(input, 'label', undefined, signal);
  if (!objectForm) return r.reward;
  const out: SlimeObjectResponse = { reward: r.reward, raw: r.raw };
  if (r.outcome) Object.assign(out, { success: r.outcome.success, truncated: r.outcome.truncated, assistantTokens: r.outcome.assistantTokens });
  return out;
}

/**
 * The JSON a verl `compute_score(data_source, solution_str, ground_truth, extra_info)`
 * posts (`python/frognano_client.py`; see docs/recipes/verl.md), with the real
 * length and finish reason when `extra_info` carries them.
 */
export const VerlRequestSchema = z.object({
  data_source: z.string().optional(),
  solution_str: z.string(),
  ground_truth: z.unknown().optional(),
  extra_info: z.unknown().optional(),
  /** The response's real length in tokens. */
  response_length: ResponseLengthSchema,
  /** `length` when generation was cut at the token limit. */
  finish_reason: FinishReasonSchema,
});

/** `POST /verl/reward` -> `{ score, raw }`: verl's dict form needs `score`; other keys go to its reward_extra_info. */
export async function verlReward(body: unknown, engine: RewardEngine, signal?: AbortSignal): Promise<{ score: number; raw: number }> {
  const req = parseRecord(VerlRequestSchema, body);
  const extra = isPlainObject(req.extra_info) ? req.extra_info : undefined;
  const r = await engine.score(
    {
      protocol: 'verl',
      prompt: extra?.prompt,
      response: req.solution_str,
      label: req.ground_truth,
      metadata: req.extra_info,
      dataSource: req.data_source,
      ...realCounts(req.response_length, req.finish_reason),
    },
    'ground_truth',
    undefined,
    signal,
  );
  return { score: r.reward, raw: r.raw };
}

/** `POST /v1/advantages` with several groups. */
export const AdvantagesGroupsSchema = z
  .object({
    id: IdSchema,
    /** `number[][]` (one row per group), or `{ rewards, filterBy?, opts? }[]` (advantages lines). */
    groups: z.array(z.unknown()),
    /** With `number[][]` groups: the raw outcomes, same shape. */
    filterBy: z.array(z.unknown()).optional(),
    /** `{ scale, std, eps }`, for every group (a group object's own opts win). */
    opts: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/**
 * `POST /v1/advantages`: one `frognano advantages` line -> `{ advantages, kept }`;
 * or `{ groups }` -> `{ advantages: number[][], kept: boolean[] }`.
 */
export function advantagesEndpoint(body: unknown): unknown {
  if (!isPlainObject(body) || !('groups' in body)) return advantagesRecord(body);
  const req = parseRecord(AdvantagesGroupsSchema, body);
  const opts = (req.opts ?? {}) as Omit<GroupAdvantagesOptions, 'filterBy'>;
  if (req.groups.length > 0 && req.groups.every(isPlainObject)) {
    if (req.filterBy !== undefined) throw new RecordError('INVALID_TYPE', 'with group objects, give filterBy inside each group', 'filterBy');
    const rows = req.groups.map((g, i) => {
      try {
        return advantagesRecord(g, opts);
      } catch (e) {
        if (e instanceof RecordError) throw new RecordError(e.code, `groups[${i}]: ${e.message}`, `groups[${i}]${e.field ? `.${e.field}` : ''}`);
        throw e;
      }
    });
    return withId(req.id, { advantages: rows.map((r) => r.advantages), kept: rows.map((r) => r.kept) });
  }
  const full: GroupAdvantagesOptions = { ...opts };
  if (req.filterBy !== undefined) full.filterBy = req.filterBy as number[][];
  const r = callLibrary(() => groupAdvantages(req.groups as number[][], full), [['opts.filterBy', 'filterBy']]);
  return withId(req.id, r);
}
