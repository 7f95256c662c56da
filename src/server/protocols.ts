import { z } from 'zod';
import { groupAdvantages, type GroupAdvantagesOptions } from '../advantage/index.js';
import { advantagesRecord } from '../cli/commands/index.js';
import { callLibrary, IdSchema, isPlainObject, parseRecord, RecordError, withId } from '../cli/record.js';
import type { RewardEngine, RewardResult } from './rewardEngine.js';

/**
 * The request and response bodies of the trainer-facing endpoints. Protocol
 * bodies (OpenRLHF, slime, verl) are read leniently: unknown fields are
 * ignored, so a trainer that adds a field does not break. frognano's own
 * bodies (`/v1/...`) are strict: an unknown field is a 400.
 */

/** OpenRLHF remote reward request (openrlhf/utils/agent.py, `_fetch_rewards_via_http`; older remote_rm_utils.py sends only `query`). */
export const OpenRlhfRequestSchema = z.object({
  /** prompt + response, one per rollout. */
  query: z.array(z.string()),
  /** The prompts, aligned with `query`. */
  prompts: z.array(z.string()).optional(),
  /** The dataset labels (`--data.label_key`), aligned with `query`. */
  labels: z.array(z.unknown()).optional(),
});

/** OpenRLHF remote reward response: one entry per query (the shape of openrlhf/cli/serve_rm.py's answer). */
export interface OpenRlhfResponse {
  /** Rewards for the advantage computation. */
  rewards: number[];
  /** OpenRLHF's dynamic-filtering score: the raw outcome (1 / 0). */
  scores: number[];
  /** Per-query logs for the trainer's logger: `success`, `truncated` (1/0) and `assistant_tokens` when every entry had an outcome. */
  extra_logs: Record<string, number[]>;
}

function extraLogs(results: readonly RewardResult[]): Record<string, number[]> {
  if (results.length === 0 || results.some((r) => r.outcome === undefined)) return {};
  return {
    success: results.map((r) => (r.outcome!.success ? 1 : 0)),
    truncated: results.map((r) => (r.outcome!.truncated ? 1 : 0)),
    assistant_tokens: results.map((r) => r.outcome!.assistantTokens),
  };
}

/** `POST /openrlhf/reward`. */
export async function openrlhfReward(body: unknown, engine: RewardEngine): Promise<OpenRlhfResponse> {
  const req = parseRecord(OpenRlhfRequestSchema, body);
  const n = req.query.length;
  for (const f of ['prompts', 'labels'] as const) {
    const a = req[f];
    if (a !== undefined && a.length !== n) throw new RecordError('LENGTH_MISMATCH', `${f} has length ${a.length} but query has length ${n}`, f);
  }
  if (!engine.usesModule && req.labels === undefined) {
    throw new RecordError('INVALID_TYPE', 'labels is required: each label carries the outcome JSON (or start the service with --reward-module)', 'labels');
  }
  const results = await Promise.all(
    req.query.map((query, i) => {
      const prompt = req.prompts?.[i];
      const response = prompt !== undefined && query.startsWith(prompt) ? query.slice(prompt.length) : query;
      return engine.score({ protocol: 'openrlhf', prompt, response, label: req.labels?.[i], query }, `labels[${i}]`, `query[${i}]`);
    }),
  );
  return { rewards: results.map((r) => r.reward), scores: results.map((r) => r.raw), extra_logs: extraLogs(results) };
}

/** slime `remote_rm` request (slime/rollout/rm_hub/__init__.py: `{ prompt, response, label }`). */
export const SlimeRequestSchema = z.object({
  /** A string, or chat messages when slime applies no chat template. */
  prompt: z.unknown().optional(),
  /** The model's response. */
  response: z.string(),
  /** The sample's label (a string in slime's `Sample`; any JSON accepted). */
  label: z.unknown().optional(),
  /** Not sent by slime today; passed to the reward module when present. */
  metadata: z.unknown().optional(),
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
export async function slimeReward(body: unknown, engine: RewardEngine, objectForm: boolean): Promise<number | SlimeObjectResponse> {
  const req = parseRecord(SlimeRequestSchema, body);
  const r = await engine.score({ protocol: 'slime', prompt: req.prompt, response: req.response, label: req.label, metadata: req.metadata }, 'label');
  if (!objectForm) return r.reward;
  const out: SlimeObjectResponse = { reward: r.reward, raw: r.raw };
  if (r.outcome) Object.assign(out, { success: r.outcome.success, truncated: r.outcome.truncated, assistantTokens: r.outcome.assistantTokens });
  return out;
}

/** The JSON a verl `compute_score(data_source, solution_str, ground_truth, extra_info)` posts (see docs/recipes/verl.md). */
export const VerlRequestSchema = z.object({
  data_source: z.string().optional(),
  solution_str: z.string(),
  ground_truth: z.unknown().optional(),
  extra_info: z.unknown().optional(),
});

/** `POST /verl/reward` -> `{ score, raw }`: verl's dict form needs `score`; other keys go to its reward_extra_info. */
export async function verlReward(body: unknown, engine: RewardEngine): Promise<{ score: number; raw: number }> {
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
    },
    'ground_truth',
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
