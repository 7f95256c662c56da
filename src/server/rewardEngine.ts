import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { shapeRewards, type ShapeRewardOptions } from '../rewards/index.js';
import { isFrognanoError } from '../errors/index.js';
import type { Outcome } from '../schema/index.js';
import { isPlainObject, RecordError } from '../commands/index.js';
import { UserFunctionError } from './httpError.js';
import type { VerifierPool, VerifierResult } from './verifierPool.js';
import { WorkerCallError } from './workerPool.js';

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
 *   service's `--budget/--alpha/...` options. `frognano serve` runs the module
 *   in a {@link VerifierPool} of worker threads.
 *
 * **Real token counts.** When the trainer sends the response's real token count
 * (`response_length`) or its finish reason (`finish_reason`), an outcome that
 * leaves out `assistantTokens` takes the count, and one that leaves out
 * `truncated` takes `finish_reason === 'length'`. An outcome's own fields win.
 *
 * The raw outcome (1 / 0, the number itself for a numeric result) is reported
 * next to the reward: OpenRLHF's `scores` (its dynamic-filtering signal), the
 * `raw` field of slime's object form and of verl's dict.
 */

/** The verifier's verdict on one rollout, `{ success, truncated, assistantTokens }` (the element type of `shapeRewards`). */
export type { Outcome };

/** What a reward module receives. */
export interface RewardInput {
  /** Which endpoint received it. */
  protocol: 'openrlhf' | 'slime' | 'verl';
  /** The prompt: a string, or chat messages for slime without a chat template; undefined when the trainer sends none. */
  prompt: unknown;
  /** The model's response (OpenRLHF: the query minus the prompt prefix, when the query starts with the prompt; left empty for the built-in shaper, which never reads it). */
  response: string;
  /** The dataset label / ground truth (OpenRLHF `labels[i]`, slime `label`, verl `ground_truth`). */
  label: unknown;
  /** OpenRLHF: the full query (prompt + response) as sent. */
  query?: string;
  /** verl: `extra_info`; slime: `metadata` when the request carries it. */
  metadata?: unknown;
  /** verl: `data_source`. */
  dataSource?: string;
  /** The response's real length in tokens, when the trainer sent it (`response_length(s)`). */
  responseLength?: number;
  /** Why generation stopped, when the trainer sent it (`finish_reason(s)`): `'length'` means cut at the token limit. */
  finishReason?: string;
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

/** One rollout of a batch, with the names its fields have in the request (for messages). */
export interface ScoreItem {
  input: RewardInput;
  /** How the label is named in the request (`labels[3]`, `label`, `ground_truth`). */
  labelField: string;
  /** Which entry of the request it is (`query[3]`), for a module's error messages. */
  entry?: string;
}

/** Where a reward module runs: in-process (a function) or in a {@link VerifierPool}. */
export interface Verifier {
  /** Calls the module on one input; rejects when it throws or is aborted. */
  verify(input: RewardInput, signal?: AbortSignal): Promise<unknown>;
  /** Calls it on many inputs at once (one result per input, a throw fails that input only); optional. */
  verifyBatch?(inputs: readonly RewardInput[], signal?: AbortSignal): Promise<VerifierResult[]>;
}

/** Loads a reward module into this process; its default export (or export `reward`) must be a function. */
export async function loadRewardModule(file: string): Promise<RewardFunction> {
  const mod = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown; reward?: unknown };
  const fn = typeof mod.default === 'function' ? mod.default : mod.reward;
  if (typeof fn !== 'function') {
    throw new Error(`${file} must export a function as its default export or as "reward"`);
  }
  return fn as RewardFunction;
}

/** A {@link Verifier} over a pool of worker threads. */
export function poolVerifier(pool: VerifierPool): Verifier {
  return { verify: (input, signal) => pool.run(input, signal), verifyBatch: (inputs, signal) => pool.runBatch(inputs, signal) };
}

function outcomeFromLabel(label: unknown, field: string): Record<string, unknown> {
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

/**
 * The outcome with `assistantTokens` and `truncated` filled from the request's
 * real `response_length` / `finish_reason` where the outcome leaves them out.
 */
export function completeOutcome(o: Record<string, unknown>, input: Pick<RewardInput, 'responseLength' | 'finishReason'>): Record<string, unknown> {
  const missingTokens = o.assistantTokens === undefined && input.responseLength !== undefined;
  const missingTruncated = o.truncated === undefined && input.finishReason !== undefined;
  if (!missingTokens && !missingTruncated) return o;
  const out = { ...o };
  if (missingTokens) out.assistantTokens = input.responseLength;
  if (missingTruncated) out.truncated = input.finishReason === 'length';
  return out;
}

/** Scores rollouts with the built-in shaper or a reward module. */
export class RewardEngine {
  private readonly verifier: Verifier | undefined;
  private readonly shaping: ShapeRewardOptions;

  /**
   * @param verifier - the reward module (a function, run in-process, or a {@link Verifier} such as a pool), or undefined for outcomes in the labels
   * @param shaping - options of `shapeRewards` (validated here: a bad value throws a FrognanoError)
   */
  constructor(verifier: RewardFunction | Verifier | undefined, shaping: ShapeRewardOptions) {
    this.verifier = typeof verifier === 'function' ? { verify: async (input) => verifier(input) } : verifier;
    this.shaping = shaping;
    shapeRewards([], shaping);
  }

  /** True when a reward module is loaded. */
  get usesModule(): boolean {
    return this.verifier !== undefined;
  }

  /**
   * Scores one rollout.
   * @param labelField - how the label is named in the request (`labels[3]`, `label`, `ground_truth`), for messages
   * @throws RecordError (bad label, 400), UserFunctionError (the module failed, 500) or WorkerCallError `aborted`
   */
  async score(input: RewardInput, labelField: string, entry?: string, signal?: AbortSignal): Promise<RewardResult> {
    return (await this.scoreBatch([{ input, labelField, entry }], signal))[0]!;
  }

  /**
   * Scores a batch. Without a module the labels' outcomes are shaped in one
   * `shapeRewards` call; with one, every rollout goes to the verifier at once
   * (a pool runs them in parallel), and the first failure aborts the rest.
   * @throws RecordError (bad label, 400), UserFunctionError (the module failed, 500) or WorkerCallError `aborted` (`signal` aborted)
   */
  async scoreBatch(items: readonly ScoreItem[], signal?: AbortSignal): Promise<RewardResult[]> {
    if (!this.verifier) return this.shapeLabels(items);
    const verifier = this.verifier;
    const ac = new AbortController();
    const onAbort = (): void => ac.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (verifier.verifyBatch) {
        let results: VerifierResult[];
        try {
          results = await verifier.verifyBatch(
            items.map((it) => it.input),
            ac.signal,
          );
        } catch (e) {
          throw this.moduleError(e, undefined);
        }
        return results.map((r, i) => {
          if (!r.ok) throw this.moduleError(new WorkerCallError('threw', r.message), items[i]!.entry);
          return this.fromModule(r.value, items[i]!);
        });
      }
      const values = await Promise.all(
        items.map((it) =>
          verifier.verify(it.input, ac.signal).catch((e: unknown) => {
            ac.abort(); // the request fails: stop its other calls
            throw this.moduleError(e, it.entry);
          }),
        ),
      );
      return values.map((v, i) => this.fromModule(v, items[i]!));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private shapeLabels(items: readonly ScoreItem[]): RewardResult[] {
    const outcomes = items.map((it) => completeOutcome(outcomeFromLabel(it.input.label, it.labelField), it.input));
    let r: { rewards: number[]; raw: number[] };
    try {
      r = shapeRewards(outcomes as unknown as Outcome[], this.shaping);
    } catch (e) {
      if (isFrognanoError(e) && e.index?.length) {
        const i = e.index[0]!;
        const at = `outcomes[${i}]`;
        const to = items[i]!.labelField;
        throw new RecordError(e.code, e.message.split(at).join(to), e.field?.split(at).join(to));
      }
      throw e;
    }
    return outcomes.map((o, i) => ({ reward: r.rewards[i]!, raw: r.raw[i]!, outcome: o as unknown as Outcome }));
  }

  private moduleError(e: unknown, entry: string | undefined): unknown {
    const at = entry ? ` on ${entry}` : '';
    if (e instanceof WorkerCallError) {
      if (e.kind === 'aborted') return e;
      if (e.kind === 'crashed') return new UserFunctionError(`reward module crashed${at}: ${e.message}`, { cause: e });
      return new UserFunctionError(`reward module threw${at}: ${e.message}`, { cause: e });
    }
    return new UserFunctionError(`reward module threw${at}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }

  private fromModule(v: unknown, item: ScoreItem): RewardResult {
    const at = item.entry ? ` on ${item.entry}` : '';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new UserFunctionError(`reward module returned ${v}${at}; a reward must be a finite number`);
      return { reward: v, raw: v };
    }
    if (isPlainObject(v)) {
      const o = completeOutcome(v, item.input);
      try {
        const r = shapeRewards([o as unknown as Outcome], this.shaping);
        return { reward: r.rewards[0]!, raw: r.raw[0]!, outcome: o as unknown as Outcome };
      } catch (e) {
        if (isFrognanoError(e)) throw new UserFunctionError(`reward module returned an invalid outcome${at}: ${e.message.replace('outcomes[0]', 'outcome')}`);
        throw e;
      }
    }
    throw new UserFunctionError(`reward module returned ${v === null ? 'null' : typeof v}${at}; expected a number or an outcome { success, truncated, assistantTokens }`);
  }
}
