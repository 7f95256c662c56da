import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, extendedNumber, isArrayLikeOfAny, parseOptions, parseWith, sameLength } from '../errors/validate.js';
import { type Outcome, OutcomeSchema } from '../schema/outcome.js';
import { logLengthUnchecked } from './logLengthReward.js';
import { shapeColumnsU8 } from './shapeColumnsFast.js';

/** Options of {@link shapeReward}. */
export const ShapeRewardOptionsSchema = z
  .object({
    /** Assistant-token budget `N` of the log-length penalty (>= 1). */
    budget: z.number().min(1),
    /** Penalty strength `alpha` (>= 0). */
    alpha: z.number().min(0),
    /** Reward of a success that hit a rollout-budget limit. Default 0.5 (FrogNano §4.2). */
    truncatedReward: z.number().default(0.5),
    /** Apply the log-length penalty to completed successes. Default true (FrogNano turns it on from iteration 3). */
    lengthPenalty: z.boolean().default(true),
    /** Lower bound of the penalised reward. Default -Infinity (no clamp). */
    floor: extendedNumber().default(-Infinity),
  })
  .strict();
/** Options of {@link shapeReward} as the caller writes them. */
export type ShapeRewardOptions = z.input<typeof ShapeRewardOptionsSchema>;

/**
 * The FrogNano shaped reward of one rollout (FrogNano §4.2; SPEC §1).
 *
 * ```
 * not success                      -> 0
 * success and truncated            -> truncatedReward            (0.5; no length penalty)
 * success, completed               -> lengthPenalty ? max(floor, logLengthReward(n, N, alpha)) : 1
 * ```
 * Keep the raw outcome (`success ? 1 : 0`) too: the zero-variance filter of
 * {@link groupAdvantages} runs on raw outcomes, not on shaped rewards.
 *
 * The reward is always finite: a penalty beyond the float64 range (e.g.
 * `assistantTokens: 1e9, budget: 1, alpha: 1e308`) with the default floor
 * `-Infinity` is `OUT_OF_RANGE` naming `opts.alpha` (as {@link logLengthReward}
 * does), and a `floor` of `+Infinity` is `OUT_OF_RANGE` naming `opts.floor`.
 *
 * @throws FrognanoError `INVALID_TYPE`, `NON_FINITE` or `OUT_OF_RANGE` naming `outcome.*` or `opts.*`
 * @example shapeReward({ success: true, truncated: false, assistantTokens: 2000 }, { budget: 1000, alpha: 0.1 }) // 0.93069
 */
export function shapeReward(outcome: Outcome, opts: ShapeRewardOptions): number {
  const fn = 'shapeReward';
  const o = parseWith(fn, 'outcome', OutcomeSchema, outcome);
  const p = parseOptions(fn, ShapeRewardOptionsSchema, opts);
  return shapeParsed(o, p);
}

/**
 * {@link shapeReward} on already validated input: for loops over many outcomes.
 * `fn` and `at` (the outcome's index in a batch) name a non-finite reward's error. @internal
 */
export function shapeParsed(o: Outcome, p: z.output<typeof ShapeRewardOptionsSchema>, fn = 'shapeReward', at?: number): number {
  if (!o.success) return 0;
  if (o.truncated) return p.truncatedReward;
  if (!p.lengthPenalty) return 1;
  const r = Math.max(p.floor, logLengthUnchecked(o.assistantTokens, p.budget, p.alpha));
  if (r - r !== 0) nonFiniteReward(fn, o, p, r, at);
  return r;
}

function nonFiniteReward(fn: string, o: Outcome, p: z.output<typeof ShapeRewardOptionsSchema>, r: number, at: number | undefined): never {
  const which = at === undefined ? 'the reward' : `the reward of outcomes[${at}]`;
  if (r === Infinity) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.floor must be < Infinity: ${which} would be Infinity`, { fn, field: 'opts.floor' });
  }
  throw new FrognanoError(
    ErrorCode.OUT_OF_RANGE,
    `opts.alpha * ln(assistantTokens / budget) = ${p.alpha} * ${Math.log(o.assistantTokens / p.budget)} is beyond the float64 range: ${which} would be -Infinity; use a smaller alpha or a finite floor`,
    { fn, field: 'opts.alpha' },
  );
}

/**
 * A batch of outcomes as columns (struct of arrays), one entry per rollout:
 * what a trainer holding tensors has, and what {@link shapeRewards} reads
 * fastest (no object per rollout).
 */
export interface OutcomeColumns {
  /** All grading tests pass: `true`/`false` or `1`/`0` (e.g. a `Uint8Array`). */
  success: ArrayLike<boolean | number>;
  /** The rollout ended on a budget limit: `true`/`false` or `1`/`0`. */
  truncated: ArrayLike<boolean | number>;
  /** Assistant-generated tokens, integers >= 0 (`Uint32Array`, `Int32Array`, `Float64Array` or `number[]`). */
  assistantTokens: ArrayLike<number>;
}

/**
 * {@link shapeReward} over many outcomes with one options parse, e.g. a whole
 * rollout batch. Returns the shaped rewards and the raw outcomes (1 / 0) to pass
 * as `filterBy` to {@link groupAdvantages}.
 *
 * Two input forms:
 * - an array of outcome objects: returns `{ rewards: number[], raw: number[] }`.
 *   Each element is checked by a plain type test (the rule of `OutcomeSchema`),
 *   never a schema parse; only a refused element goes through the schema, for its error.
 * - {@link OutcomeColumns}, one array per field: returns
 *   `{ rewards: Float64Array, raw: Uint8Array }`, checked in the loop that computes.
 *
 * @throws FrognanoError as {@link shapeReward}, naming `outcomes[i].*` (objects),
 *   `outcomes.success[i]` / `outcomes.truncated[i]` / `outcomes.assistantTokens[i]` (columns,
 *   `LENGTH_MISMATCH` when they differ in length) or `opts.*` (a reward beyond the float64
 *   range: `OUT_OF_RANGE` naming `opts.alpha`, the message naming `outcomes[i]`)
 * @example shapeRewards({ success: Uint8Array.of(1, 0), truncated: Uint8Array.of(0, 0), assistantTokens: Uint32Array.of(2000, 5) }, { budget: 1000, alpha: 0.1 })
 * // { rewards: Float64Array [0.93069, 0], raw: Uint8Array [1, 0] }
 */
export function shapeRewards(outcomes: readonly Outcome[], opts: ShapeRewardOptions): { rewards: number[]; raw: number[] };
export function shapeRewards(outcomes: OutcomeColumns, opts: ShapeRewardOptions): { rewards: Float64Array; raw: Uint8Array };
export function shapeRewards(
  outcomes: readonly Outcome[] | OutcomeColumns,
  opts: ShapeRewardOptions,
): { rewards: number[]; raw: number[] } | { rewards: Float64Array; raw: Uint8Array } {
  const fn = 'shapeRewards';
  const p = parseOptions(fn, ShapeRewardOptionsSchema, opts);
  if (outcomes !== null && typeof outcomes === 'object' && !Array.isArray(outcomes) && 'assistantTokens' in outcomes) {
    return shapeColumns(fn, outcomes, p);
  }
  const list = outcomes as readonly Outcome[];
  const n = Array.isArray(list) ? list.length : -1;
  const rewards = new Array<number>(Math.max(n, 0));
  const raw = new Array<number>(Math.max(n, 0));
  for (let i = 0; i < n; i++) {
    const o = list[i];
    // One tight check per element (the common, valid case); the first element it
    // refuses goes through the schema, which throws the coded error naming it.
    if (!isOutcome(o)) {
      badOutcome(fn, i, o, list);
      return shapeParsedAll(parseWith(fn, 'outcomes', OutcomesSchema, list), p); // (the schema accepted what the check refused)
    }
    rewards[i] = shapeParsed(o, p, fn, i);
    raw[i] = o.success ? 1 : 0;
  }
  if (n < 0) return shapeParsedAll(parseWith(fn, 'outcomes', OutcomesSchema, list), p);
  return { rewards, raw };
}

/** The columnar form of {@link shapeRewards}: the fast pass for `Uint8Array` / `Uint32Array` columns, else (or at its first refusal) the general loop. */
function shapeColumns(fn: string, c: OutcomeColumns, p: z.output<typeof ShapeRewardOptionsSchema>): { rewards: Float64Array; raw: Uint8Array } {
  const { success, truncated, assistantTokens: tokens } = c;
  for (const [k, v] of [['success', success], ['truncated', truncated], ['assistantTokens', tokens]] as const) {
    if (!isArrayLikeOfAny(v)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `outcomes.${k} must be an array or typed array, got ${describeValue(v)}`, { fn, field: `outcomes.${k}` });
    }
  }
  sameLength(fn, 'outcomes.success', success, 'outcomes.truncated', truncated);
  sameLength(fn, 'outcomes.success', success, 'outcomes.assistantTokens', tokens);
  const n = success.length;
  if (success instanceof Uint8Array && truncated instanceof Uint8Array && tokens instanceof Uint32Array) {
    const rewards = new Float64Array(n);
    const raw = new Uint8Array(n);
    if (shapeColumnsU8(success, truncated, tokens, p, rewards, raw)) return { rewards, raw };
  }
  return shapeColumnsChecked(fn, c, p);
}

/**
 * The general loop of the columnar {@link shapeRewards} (any array-like columns, the
 * lengths already checked): checks and computes element by element, throwing the
 * coded error of the first refused element. @internal (exported for the test that
 * pins the fast path to it)
 */
export function shapeColumnsChecked(fn: string, c: OutcomeColumns, p: z.output<typeof ShapeRewardOptionsSchema>): { rewards: Float64Array; raw: Uint8Array } {
  const { success, truncated, assistantTokens: tokens } = c;
  const n = success.length;
  const rewards = new Float64Array(n);
  const raw = new Uint8Array(n);
  const { budget, alpha, truncatedReward, lengthPenalty, floor } = p;
  for (let i = 0; i < n; i++) {
    const s = success[i];
    const t = truncated[i];
    const tok = tokens[i]!;
    // 0/1 or a boolean (`x === true` and `x === 1` are different tests); tokens a safe integer >= 0
    const sOk = s === 1 || s === true;
    const tOk = t === 1 || t === true;
    if ((!sOk && s !== 0 && s !== false) || (!tOk && t !== 0 && t !== false) || !(tok >= 0 && tok <= Number.MAX_SAFE_INTEGER && Math.floor(tok) === tok)) {
      badColumn(fn, i, s, t, tok);
    }
    if (!sOk) continue;
    raw[i] = 1;
    if (tOk) rewards[i] = truncatedReward;
    else if (!lengthPenalty) rewards[i] = 1;
    else {
      const r = Math.max(floor, tok <= budget ? 1 : 1 - alpha * Math.log(tok / budget));
      if (r - r !== 0) nonFiniteReward(fn, { success: true, truncated: false, assistantTokens: tok }, p, r, i);
      rewards[i] = r;
    }
  }
  return { rewards, raw };
}

function badColumn(fn: string, i: number, s: unknown, t: unknown, tok: unknown): never {
  const flag = (k: string, v: unknown) => {
    const code = typeof v === 'number' || typeof v === 'boolean' ? ErrorCode.OUT_OF_RANGE : ErrorCode.INVALID_TYPE;
    throw new FrognanoError(code, `outcomes.${k}[${i}] must be a boolean or 0/1, got ${describeValue(v)}`, { fn, field: `outcomes.${k}[${i}]`, index: [i] });
  };
  if (!(s === 0 || s === 1 || s === true || s === false)) flag('success', s);
  if (!(t === 0 || t === 1 || t === true || t === false)) flag('truncated', t);
  const where = `outcomes.assistantTokens[${i}]`;
  const code = typeof tok !== 'number' ? ErrorCode.INVALID_TYPE : tok - tok !== 0 ? ErrorCode.NON_FINITE : ErrorCode.OUT_OF_RANGE;
  throw new FrognanoError(code, `${where} must be an integer >= 0, got ${describeValue(tok)}`, { fn, field: where, index: [i] });
}

/**
 * Throws the coded error of the first refused outcome, parsing that element
 * alone: a schema parse of the whole array would build one issue per bad
 * element (50,000 bad labels took seconds).
 */
function badOutcome(fn: string, i: number, o: unknown, outcomes: readonly unknown[]): void {
  if (o === undefined && !(i in outcomes)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `outcomes[${i}] is a hole of a sparse array (arrays must have every element)`, {
      fn,
      field: `outcomes[${i}]`,
      index: [i],
    });
  }
  try {
    parseWith(fn, `outcomes[${i}]`, OutcomeSchema, o);
  } catch (e) {
    if (e instanceof FrognanoError) {
      // e.message already starts with `${fn}: `, which the constructor adds again
      const message = e.message.startsWith(`${fn}: `) ? e.message.slice(fn.length + 2) : e.message;
      throw new FrognanoError(e.code, message, { fn, ...(e.field ? { field: e.field } : {}), index: [i, ...(e.index ?? [])] });
    }
    throw e;
  }
}

/** The outcome array schema, built once. */
const OutcomesSchema = z.array(OutcomeSchema);

/** True when `o` passes {@link OutcomeSchema} (the same rule, without building a parse result). */
function isOutcome(o: unknown): o is Outcome {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
  const { success, truncated, assistantTokens } = o as Record<string, unknown>;
  return typeof success === 'boolean' && typeof truncated === 'boolean' && Number.isSafeInteger(assistantTokens) && (assistantTokens as number) >= 0;
}

function shapeParsedAll(arr: readonly Outcome[], p: z.output<typeof ShapeRewardOptionsSchema>): { rewards: number[]; raw: number[] } {
  return { rewards: arr.map((o, i) => shapeParsed(o, p, 'shapeRewards', i)), raw: arr.map((o) => (o.success ? 1 : 0)) };
}
