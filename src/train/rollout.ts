import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { resolveRate } from '../curriculum/resolveRate.js';
import { type Environment, type Episode, type TaskLimits, type Turn, type Verdict, verifyEpisode } from '../env/environment.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, finiteNumber, integerAtLeast, isArrayLikeOfAny, parseOptions } from '../errors/validate.js';
import type { Policy } from './policy.js';
import { SeededRng } from './rng.js';

/** One sampled trajectory, ready for the update step. */
export interface Rollout {
  /** The whole context: prompt, assistant turns and observations, in order. */
  tokens: number[];
  /** Per token: 1 for tokens the policy generated (they are trained on), 0 for the prompt and observations. */
  lossMask: number[];
  /** Per token: `log pi_roll(token | prefix)` recorded at sampling time (0 where `lossMask` is 0). */
  logpRollout: number[];
  /** The episode as the verifier saw it. */
  episode: Episode;
  /** The verifier's verdict (success, truncation and its reason, assistant tokens). */
  verdict: Verdict;
}

/** The G rollouts of one task, tagged with the policy version that produced them. */
export interface RolloutGroup<T> {
  /** The task. */
  task: T;
  /** Version of the policy that generated the group (the learner's update counter when the actor's snapshot was taken). */
  policyVersion: number;
  /** The G rollouts. */
  rollouts: Rollout[];
}

/** Options of {@link generateRollouts}. */
export const GenerateRolloutsOptionsSchema = z
  .object({
    /** Rollouts per task, `G`. Default 8 (FrogNano §4.1, Table 2). */
    groupSize: z.number().int().min(1).default(8),
    /** Sampling temperature (> 0), or 0 for greedy decoding. Default 1. */
    temperature: z.number().min(0).default(1),
    /** Seed of the sampling stream when `rng` is not given. Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
    /** A stateful stream to draw from (it advances); overrides `seed`. */
    rng: z.instanceof(SeededRng).optional(),
    /** Version tag written on every group. Default 0. */
    policyVersion: z.number().int().min(0).default(0),
    /** Wall-clock budget of the whole call in ms; unfinished rollouts are truncated (`'wall-time'`). Default Infinity. */
    wallTimeMs: z.number().gt(0).default(Infinity),
    /** Most sequences per forward pass (larger calls are chunked). Default 256 (fastest on the `wasm` backend for small models; raise it on a GPU). */
    maxBatch: z.number().int().min(1).default(256),
    /**
     * Decode steps between cooperative yields to the event loop (`await setImmediate`),
     * so a learner can run between them. 0 never yields. Default 1.
     */
    yieldEvery: z.number().int().min(0).default(1),
    /**
     * Cancels the call: checked before every forward pass, so an aborted call
     * rejects with `signal.reason` within one decode step and touches the policy no
     * more (the trainer stops its prefetched batch this way when an update fails).
     */
    signal: z.instanceof(AbortSignal).optional(),
  })
  .strict();
/** Options of {@link generateRollouts} as the caller writes them. */
export type GenerateRolloutsOptions = z.input<typeof GenerateRolloutsOptionsSchema>;

interface Row {
  group: number;
  tokens: number[];
  lossMask: number[];
  logp: number[];
  prompt: number[];
  turns: Turn[];
  current: number[];
  limits: TaskLimits;
  stop: Episode['stop'] | null;
}

/**
 * Yields to the event loop once (lets other async work, e.g. the learner, run).
 *
 * @example await yieldToEventLoop();
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Samples `G` rollouts of every task from the policy (FrogNano §4: the
 * trajectories of a group-relative update), with per-token rollout log-probs
 * and a loss mask on generated tokens only.
 *
 * Decoding is a **batched prefix**: every step runs the policy on all unfinished
 * sequences (right-padded to the longest) and reads each row's logits at its
 * own last position, so any causal {@link Policy} works without a KV cache.
 * Sampling happens on the host in float64 from `softmax(logits / temperature)`,
 * drawing from one seeded stream in a fixed row order: the same seed (or
 * `rng` state) and weights give the same rollouts. The recorded
 * `logpRollout` is the log-probability under that same tempered
 * distribution (verl divides logits by the temperature in both the rollout and
 * the training forward; the learner here does too).
 *
 * Episodes follow the environment's turn protocol (Leaf's rule, FrogNano §2):
 * a turn ending with the tool-call token gets the environment's observation
 * appended (loss mask 0) and continues; one ending with the end token ends the
 * episode. Limits per task from `env.limits(task)` (tokens per turn, turns),
 * the policy's context length, and `wallTimeMs` truncate an episode; the
 * verifier then grades it as it stands.
 *
 * @param tasks - the tasks (each gets `groupSize` rollouts)
 * @returns one group per task, in order, tagged with `policyVersion`
 * @throws FrognanoError `OUT_OF_RANGE` / `INVALID_TYPE` naming `opts.<field>`; `EMPTY_INPUT` for no tasks;
 *   `opts.signal.reason` (an `AbortError` by default) once `opts.signal` is aborted
 * @example const groups = await generateRollouts(policy, env, tasks, { groupSize: 8, temperature: 1, seed: 1 });
 */
export async function generateRollouts<T>(
  policy: Policy,
  env: Environment<T>,
  tasks: readonly T[],
  opts: GenerateRolloutsOptions = {},
): Promise<RolloutGroup<T>[]> {
  const fn = 'generateRollouts';
  const o = parseOptions(fn, GenerateRolloutsOptionsSchema, opts);
  if (!Array.isArray(tasks) || tasks.length === 0) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'tasks must be a non-empty array', { fn, field: 'tasks' });
  }
  const rng = o.rng ?? new SeededRng(o.seed);
  const started = Date.now();
  const rows: Row[] = [];
  tasks.forEach((task, g) => {
    const prompt = env.prompt(task);
    const limits = env.limits(task);
    for (let j = 0; j < o.groupSize; j++) {
      const row: Row = {
        group: g,
        tokens: [...prompt],
        lossMask: prompt.map(() => 0),
        logp: prompt.map(() => 0),
        prompt,
        turns: [],
        current: [],
        limits,
        stop: null,
      };
      if (prompt.length >= policy.contextLength) row.stop = 'context';
      rows.push(row);
    }
  });

  let steps = 0;
  for (;;) {
    o.signal?.throwIfAborted();
    const active = rows.filter((r) => r.stop === null);
    if (active.length === 0) break;
    if (Date.now() - started > o.wallTimeMs) {
      for (const r of active) endTurn(r, 'wall-time');
      break;
    }
    for (let c = 0; c < active.length; c += o.maxBatch) {
      const chunk = active.slice(c, c + o.maxBatch);
      if (c > 0) o.signal?.throwIfAborted();
      const logits = await lastPositionLogits(policy, chunk, env.padToken);
      o.signal?.throwIfAborted();
      const V = policy.vocabSize;
      chunk.forEach((row, b) => {
        const { token, logp } = sampleToken(logits, b * V, V, o.temperature, rng);
        step(row, token, logp, env, tasks[row.group]!, policy.contextLength);
      });
    }
    steps++;
    if (o.yieldEvery > 0 && steps % o.yieldEvery === 0) await yieldToEventLoop();
  }

  const groups: RolloutGroup<T>[] = tasks.map((task) => ({ task, policyVersion: o.policyVersion, rollouts: [] }));
  for (const r of rows) {
    const episode: Episode = { prompt: r.prompt, turns: r.turns, stop: r.stop! };
    const task = tasks[r.group]!;
    groups[r.group]!.rollouts.push({
      tokens: r.tokens,
      lossMask: r.lossMask,
      logpRollout: r.logp,
      episode,
      verdict: verifyEpisode(env, task, episode),
    });
  }
  return groups;
}

/**
 * Rates over every rollout of `groups` (the update log and the held-out
 * evaluation): the solve rate (`resolveRate` of the verdicts' successes,
 * SPEC §7), the share of truncated rollouts and the mean assistant tokens.
 * @internal
 */
export function verdictRates(groups: readonly RolloutGroup<unknown>[]): {
  rollouts: number;
  solveRate: number;
  truncatedRate: number;
  meanAssistantTokens: number;
} {
  const verdicts = groups.flatMap((g) => g.rollouts.map((r) => r.verdict));
  let truncated = 0;
  let assistant = 0;
  for (const v of verdicts) {
    if (v.truncated) truncated++;
    assistant += v.assistantTokens;
  }
  const n = verdicts.length;
  return { rollouts: n, solveRate: resolveRate(verdicts.map((v) => v.success)), truncatedRate: truncated / n, meanAssistantTokens: assistant / n };
}

/**
 * Logits `[n * V]` of each row at its own last position (rows right-padded to
 * the longest). Read with `await data()`, not `dataSync()`: on a GPU backend the
 * event loop (and the learner) runs while the actor waits for its logits.
 */
async function lastPositionLogits(policy: Policy, rows: Row[], pad: number): Promise<Float32Array> {
  const n = rows.length;
  let T = 0;
  for (const r of rows) T = Math.max(T, r.tokens.length);
  const ids = new Int32Array(n * T).fill(pad);
  const pick = new Int32Array(n);
  rows.forEach((r, b) => {
    ids.set(r.tokens, b * T);
    pick[b] = b * T + r.tokens.length - 1;
  });
  const out = tf.tidy(() => {
    const input = tf.tensor2d(ids, [n, T], 'int32');
    const logits = policy.logits(input);
    const V = logits.shape[logits.shape.length - 1]!;
    return tf.gather(tf.reshape(logits, [n * T, V]), tf.tensor1d(pick, 'int32'));
  });
  try {
    return (await out.data()) as Float32Array;
  } finally {
    out.dispose();
  }
}

/**
 * Draws one token from `softmax(z[offset .. offset + V) / temperature)` (argmax when
 * temperature is 0), in float64, by inverse CDF on one uniform draw; returns it with its
 * log-probability under the same tempered distribution. A temperature so small (or
 * logits so large) that `z / temperature` overflows is computed as
 * `(z - max z) / temperature`, which cannot: the result is finite for every finite input.
 *
 * @param z - logits (an array or typed array); only `z[offset .. offset + V)` is read, and must be finite
 * @param offset - first index, an integer >= 0
 * @param V - vocabulary size, an integer >= 1 with `offset + V <= z.length`
 * @param temperature - a finite number >= 0 (0: greedy)
 * @param rng - the stream (a {@link SeededRng}, or any object whose `next()` returns a number in [0, 1))
 * @throws FrognanoError `INVALID_TYPE` (`z` not an array, a non-number logit naming `z[i]`, `rng`
 *   without `next`), `NON_FINITE` (a NaN/±Infinity logit naming `z[i]`, or argument), `OUT_OF_RANGE`
 *   (`offset` / `V` not integers >= 0 / >= 1, `offset + V > z.length` naming `V`, `temperature < 0`)
 * @example sampleToken([0, Math.log(3)], 0, 2, 1, new SeededRng(1)) // { token: 1, logp: log(3/4) } three times in four
 */
export function sampleToken(
  z: ArrayLike<number>,
  offset: number,
  V: number,
  temperature: number,
  rng: SeededRng,
): { token: number; logp: number } {
  const fn = 'sampleToken';
  if (!isArrayLikeOfAny(z)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `z must be an array of numbers, got ${describeValue(z)}`, { fn, field: 'z' });
  integerAtLeast(fn, 'offset', offset, 0);
  integerAtLeast(fn, 'V', V, 1);
  if (offset + V > z.length) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `offset + V = ${offset + V} is beyond z (length ${z.length})`, { fn, field: 'V' });
  }
  if (finiteNumber(fn, 'temperature', temperature) < 0) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `temperature must be >= 0, got ${temperature}`, { fn, field: 'temperature' });
  }
  if (rng === null || typeof rng !== 'object' || typeof (rng as { next?: unknown }).next !== 'function') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `rng must be a SeededRng (an object with next(): number in [0, 1)), got ${describeValue(rng)}`, { fn, field: 'rng' });
  }
  const tau = temperature === 0 ? 1 : temperature;
  let max = -Infinity;
  let argmax = 0;
  for (let k = 0; k < V; k++) {
    const x = z[offset + k]!;
    if (typeof x !== 'number' || x - x !== 0) finiteNumber(fn, `z[${offset + k}]`, x);
    const v = x / tau;
    if (v > max) {
      max = v;
      argmax = k;
    }
  }
  if (max - max !== 0) return sampleShifted(z, offset, V, tau, temperature === 0, rng);
  let sum = 0;
  for (let k = 0; k < V; k++) sum += Math.exp(z[offset + k]! / tau - max);
  const logSum = Math.log(sum);
  if (temperature === 0) return { token: argmax, logp: z[offset + argmax]! / tau - max - logSum };
  const u = uniform(rng) * sum;
  let acc = 0;
  let token = argmax;
  for (let k = 0; k < V; k++) {
    const p = Math.exp(z[offset + k]! / tau - max);
    acc += p;
    // (u < acc fails only by rounding at the very top: then the last token with mass)
    if (p > 0) token = k;
    if (u < acc) break;
  }
  return { token, logp: z[offset + token]! / tau - max - logSum };
}

/**
 * {@link sampleToken} where `z / tau` overflows: the logits are shifted by their
 * maximum first, `w = (z - max z) / tau <= 0` (at most -Infinity, never NaN).
 */
function sampleShifted(z: ArrayLike<number>, offset: number, V: number, tau: number, greedy: boolean, rng: SeededRng): { token: number; logp: number } {
  let zmax = -Infinity;
  let argmax = 0;
  for (let k = 0; k < V; k++) {
    if (z[offset + k]! > zmax) {
      zmax = z[offset + k]!;
      argmax = k;
    }
  }
  const w = (k: number): number => (z[offset + k]! - zmax) / tau;
  let sum = 0;
  for (let k = 0; k < V; k++) sum += Math.exp(w(k));
  const logSum = Math.log(sum);
  if (greedy) return { token: argmax, logp: w(argmax) - logSum };
  const u = uniform(rng) * sum;
  let acc = 0;
  let token = argmax;
  for (let k = 0; k < V; k++) {
    const p = Math.exp(w(k));
    acc += p;
    if (p > 0) token = k;
    if (u < acc) break;
  }
  return { token, logp: w(token) - logSum };
}

/** One draw of `rng.next()`, checked to be in [0, 1). */
function uniform(rng: SeededRng): number {
  const u: unknown = rng.next();
  if (typeof u !== 'number' || !(u >= 0 && u < 1)) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `rng.next() must return a number in [0, 1), got ${describeValue(u)}`, { fn: 'sampleToken', field: 'rng' });
  }
  return u;
}

function endTurn(row: Row, end: Turn['end']): void {
  row.turns.push({ assistant: row.current, end, observation: [] });
  row.current = [];
  row.stop = end === 'end' ? 'end' : end === 'tool' ? null : end;
}

function step<T>(row: Row, token: number, logp: number, env: Environment<T>, task: T, contextLength: number): void {
  row.tokens.push(token);
  row.lossMask.push(1);
  row.logp.push(logp);
  row.current.push(token);
  if (token === env.endToken) return endTurn(row, 'end');
  if (env.toolCallToken !== undefined && token === env.toolCallToken && env.respond) {
    endTurn(row, 'tool');
    const turn = row.turns[row.turns.length - 1]!;
    const episodeSoFar: Episode = { prompt: row.prompt, turns: row.turns, stop: 'end' };
    const obs = env.respond(task, episodeSoFar);
    const room = contextLength - row.tokens.length;
    turn.observation = obs.slice(0, Math.max(0, room));
    for (const t of turn.observation) {
      row.tokens.push(t);
      row.lossMask.push(0);
      row.logp.push(0);
    }
    if (row.turns.length >= row.limits.maxTurns) row.stop = 'max-turns';
    else if (row.tokens.length >= contextLength) row.stop = 'context';
    return;
  }
  if (row.current.length >= row.limits.maxNewTokens) return endTurn(row, 'max-new-tokens');
  if (row.tokens.length >= contextLength) return endTurn(row, 'context');
}
