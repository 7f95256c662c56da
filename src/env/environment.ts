import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, isArrayLikeOfAny } from '../errors/validate.js';
import type { Outcome } from '../schema/outcome.js';

/**
 * Why a rollout stopped before the agent ended it (FrogNano §4.2: "a trajectory
 * that solves the task but hits the maximum context length, the per-turn token
 * limit, the maximum number of turns or the maximum time is truncated"):
 *
 * - `'max-new-tokens'`: an assistant turn reached its token budget without ending;
 * - `'max-turns'`: the agent called a tool in its last allowed turn;
 * - `'wall-time'`: the rollout ran past its wall-clock budget;
 * - `'context'`: the sequence reached the policy's context length.
 */
export type TruncationReason = 'max-new-tokens' | 'max-turns' | 'wall-time' | 'context';

/** Every {@link TruncationReason}, in a fixed order (for logs and reports). */
export const TRUNCATION_REASONS: readonly TruncationReason[] = ['max-new-tokens', 'max-turns', 'wall-time', 'context'];

/** The rollout budget of one task (per episode). */
export interface TaskLimits {
  /** Most tokens the assistant may generate in one turn (its own tokens only, not observations). */
  maxNewTokens: number;
  /** Most assistant turns; a tool call in the last turn ends the episode as truncated (`'max-turns'`). */
  maxTurns: number;
}

/** One assistant turn of an episode and what the environment answered. */
export interface Turn {
  /** The tokens the assistant generated in this turn, terminator (end or tool call) included. */
  assistant: number[];
  /** How the turn ended: `'end'` (the final answer), `'tool'` (a tool call), or a truncation. */
  end: 'end' | 'tool' | TruncationReason;
  /** The tool observation appended after a `'tool'` turn (masked from the loss); empty otherwise. */
  observation: number[];
}

/**
 * What the rollout engine hands the verifier: the prompt, the turns, and why
 * the episode stopped. The hidden tests of the task look only at this.
 */
export interface Episode {
  /** The prompt token ids (the task statement). */
  prompt: number[];
  /** The assistant turns, in order. */
  turns: Turn[];
  /** `'end'` when the agent ended the episode itself, else the truncation reason. */
  stop: 'end' | TruncationReason;
}

/**
 * The verifier's verdict on one rollout: the SPEC §1 outcome (what
 * `shapeReward` takes) plus the truncation reason.
 */
export interface Verdict extends Outcome {
  /** Why the rollout was truncated, `null` when the agent ended it. */
  reason: TruncationReason | null;
}

/**
 * A verifiable task environment (FrogNano §2-3, in miniature): a task has a
 * statement the policy sees and hidden tests it does not.
 *
 * The episode protocol is Leaf's structural rule (FrogNano §2): the assistant
 * generates a turn; a turn that ends with the tool-call token continues the
 * episode (the environment's {@link Environment.respond} answer is appended
 * as an observation, masked from the loss); a turn that ends with the end token
 * is the final answer and ends it. Tasks must be plain JSON values (they are
 * stored in checkpoints and the curriculum history).
 *
 * @typeParam T - the task type (a JSON-serialisable object)
 */
export interface Environment<T> {
  /** The token that ends the episode (the final answer). */
  readonly endToken: number;
  /** The token that ends a turn with a tool call; omit for single-turn environments. */
  readonly toolCallToken?: number;
  /** The padding token (used only to right-pad batches; never generated on purpose). */
  readonly padToken: number;
  /** The statement as token ids. */
  prompt(task: T): number[];
  /** The rollout budget of the task. */
  limits(task: T): TaskLimits;
  /** The tool observation for a turn that ended with {@link Environment.toolCallToken}. */
  respond?(task: T, episode: Episode): number[];
  /** The hidden tests: whether the episode's final state solves the task (graded even when truncated). */
  grade(task: T, episode: Episode): boolean;
}

/**
 * The verifier (FrogNano §4.2): grades an episode with the task's hidden
 * tests and reports success, whether and why it was truncated, and the number
 * of assistant-generated tokens (every generated token, terminators included;
 * never observations).
 *
 * @throws FrognanoError `INVALID_TYPE` when `env` has no `grade` function or `grade` returns a
 *   non-boolean (naming `env.grade`), or `episode` is not `{ turns: [{ assistant: [...] }, ...], stop }`
 *   (naming `episode`, `episode.turns[i].assistant`, `episode.stop`, ...); `OUT_OF_RANGE` for more
 *   assistant tokens than a safe integer
 * @example verifyEpisode(env, task, episode) // { success: true, truncated: false, reason: null, assistantTokens: 5 }
 */
export function verifyEpisode<T>(env: Environment<T>, task: T, episode: Episode): Verdict {
  const fn = 'verifyEpisode';
  const bad = (field: string, what: string, v: unknown, index?: number[]): never => {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be ${what}, got ${describeValue(v)}`, { fn, field, index });
  };
  if (env === null || typeof env !== 'object' || typeof (env as { grade?: unknown }).grade !== 'function') bad('env', 'an Environment (with a grade function)', env);
  if (episode === null || typeof episode !== 'object') bad('episode', 'an Episode { prompt, turns, stop }', episode);
  const turns: unknown = episode.turns;
  if (!Array.isArray(turns)) bad('episode.turns', 'an array of turns', turns);
  const stop: unknown = episode.stop;
  if (stop !== 'end' && !(TRUNCATION_REASONS as readonly unknown[]).includes(stop)) {
    bad('episode.stop', `'end' or a truncation reason (${TRUNCATION_REASONS.map((r) => `'${r}'`).join(', ')})`, stop);
  }
  let assistantTokens = 0;
  const ts = turns as unknown[];
  for (let i = 0; i < ts.length; i++) {
    const t: unknown = ts[i];
    if (t === undefined && !(i in ts)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `episode.turns[${i}] is a hole of a sparse array (arrays must have every element)`, {
        fn,
        field: `episode.turns[${i}]`,
        index: [i],
      });
    }
    if (t === null || typeof t !== 'object') bad(`episode.turns[${i}]`, 'a turn { assistant, end, observation }', t, [i]);
    const a: unknown = (t as { assistant?: unknown }).assistant;
    if (!isArrayLikeOfAny(a)) bad(`episode.turns[${i}].assistant`, 'an array of token ids', a, [i]);
    assistantTokens += (a as ArrayLike<unknown>).length;
  }
  if (!Number.isSafeInteger(assistantTokens)) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `the episode has ${assistantTokens} assistant tokens, more than a safe integer`, { fn, field: 'episode.turns' });
  }
  const reason = stop === 'end' ? null : (stop as TruncationReason);
  const success: unknown = env.grade(task, episode);
  if (typeof success !== 'boolean') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `env.grade must return a boolean, returned ${describeValue(success)}`, { fn, field: 'env.grade' });
  }
  return { success: success as boolean, truncated: reason !== null, reason, assistantTokens };
}
