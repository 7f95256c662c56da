import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { shapeRewards, type ShapeRewardOptions } from '../rewards/index.js';
import { isFrognanoError } from '../errors/index.js';
import { callLibrary, isPlainObject, RecordError } from '../cli/record.js';
import { UserFunctionError } from './httpError.js';

/**
 * How the OpenRLHF, slime and verl endpoints turn `(prompt, response, label)`
 * into a reward.
 *
 * - Without a reward module, the label carries the verifier's outcome as JSON:
 *   `{"success":true,"truncated":false,"assistantTokens":1234}` (or
 *   `{"outcome":{...}}`), and the reward is `shapeRewards([outcome], shaping)`.
 * - With a reward module (`--reward-module FILE`, a JS module whose default
 *   export, or export named `reward`, is a function), the function receives a
 *   {@link RewardInput} and returns (or resolves to) either a number, used as
 *   the reward as is, or an outcome, shaped by `shapeRewards` with the
 *   service's `--budget/--alpha/...` options.
 *
 * The raw outcome (1 / 0, the number itself for a numeric result) is reported
 * next to the reward: OpenRLHF's `scores` (its dynamic-filtering signal), the
 * `raw` field of slime's object form and of verl's dict.
 */

/** The verifier's verdict on one rollout, `{ success, truncated, assistantTokens }` (the element type of `shapeRewards`). */
export type Outcome = Parameters<typeof shapeRewards>[0][number];

/** What a reward module receives. */
export interface RewardInput {
  /** Which endpoint received it. */
  protocol: 'openrlhf' | 'slime' | 'verl';
  /** The prompt: a string, or chat messages for slime without a chat template; undefined when the trainer sends none. */
  prompt: unknown;
  /** The model's response (OpenRLHF: the query minus the prompt prefix, when the query starts with the prompt). */
  response: string;
  /** The dataset label / ground truth (OpenRLHF `labels[i]`, slime `label`, verl `ground_truth`). */
  label: unknown;
  /** OpenRLHF: the full query (prompt + response) as sent. */
  query?: string;
  /** verl: `extra_info`; slime: `metadata` when the request carries it. */
  metadata?: unknown;
  /** verl: `data_source`. */
  dataSource?: string;
}

/** A reward module's function. */
export type RewardFunction = (input: RewardInput) => number | Outcome | Promise<number | Outcome>;

/** A scored rollout. */
export interface RewardResult {
  /** The reward to train on (shaped, or the module's number). */
  reward: number;
  /** The raw outcome: 1 / 0 for an outcome, the number itself for a numeric result. */
  raw: number;
  /** The outcome, when there was one. */
  outcome?: Outcome;
}

/** Loads a reward module; its default export (or export `reward`) must be a function. */
export async function loadRewardModule(file: string): Promise<RewardFunction> {
  const mod = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown; reward?: unknown };
  const fn = typeof mod.default === 'function' ? mod.default : mod.reward;
  if (typeof fn !== 'function') {
    throw new Error(`${file} must export a function as its default export or as "reward"`);
  }
  return fn as RewardFunction;
}

function outcomeFromLabel(label: unknown, field: string): unknown {
  let v = label;
  if (typeof label === 'string') {
    try {
      v = JSON.parse(label);
    } catch {
      throw new RecordError(
        'INVALID_TYPE',
        `${field} must be JSON of an outcome {"success","truncated","assistantTokens"} (no --reward-module is loaded), got ${JSON.stringify(label.length > 60 ? `${label.slice(0, 57)}...` : label)}`,
        field,
      );
    }
  }
  if (isPlainObject(v) && 'outcome' in v) v = v.outcome;
  if (!isPlainObject(v)) {
    throw new RecordError('INVALID_TYPE', `${field} must be an outcome {"success","truncated","assistantTokens"} (no --reward-module is loaded)`, field);
  }
  return v;
}

/** Scores rollouts with the built-in shaper or a reward module. */
export class RewardEngine {
  private readonly fn: RewardFunction | undefined;
  private readonly shaping: ShapeRewardOptions;

  /**
   * @param fn - the reward module's function, or undefined for outcomes in the labels
   * @param shaping - options of `shapeRewards` (validated here: a bad value throws a FrognanoError)
   */
  constructor(fn: RewardFunction | undefined, shaping: ShapeRewardOptions) {
    this.fn = fn;
    this.shaping = shaping;
    shapeRewards([], shaping);
  }

  /** True when a reward module is loaded. */
  get usesModule(): boolean {
    return this.fn !== undefined;
  }

  /**
   * Scores one rollout.
   * @param labelField - how the label is named in the request (`labels[3]`, `label`, `ground_truth`), for messages
   * @throws RecordError (bad label, 400) or UserFunctionError (the module failed, 500)
   */
  async score(input: RewardInput, labelField: string, entry?: string): Promise<RewardResult> {
    if (!this.fn) {
      const outcome = outcomeFromLabel(input.label, labelField);
      const r = callLibrary(() => shapeRewards([outcome as Outcome], this.shaping), [['outcomes[0]', labelField]]);
      return { reward: r.rewards[0]!, raw: r.raw[0]!, outcome: outcome as Outcome };
    }
    const at = entry ? ` on ${entry}` : '';
    let v: unknown;
    try {
      v = await this.fn(input);
    } catch (e) {
      throw new UserFunctionError(`reward module threw${at}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new UserFunctionError(`reward module returned ${v}${at}; a reward must be a finite number`);
      return { reward: v, raw: v };
    }
    if (isPlainObject(v)) {
      try {
        const r = shapeRewards([v as Outcome], this.shaping);
        return { reward: r.rewards[0]!, raw: r.raw[0]!, outcome: v as Outcome };
      } catch (e) {
        if (isFrognanoError(e)) throw new UserFunctionError(`reward module returned an invalid outcome${at}: ${e.message.replace('outcomes[0]', 'outcome')}`);
        throw e;
      }
    }
    throw new UserFunctionError(`reward module returned ${v === null ? 'null' : typeof v}${at}; expected a number or an outcome { success, truncated, assistantTokens }`);
  }
}
