import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import {
  DIGIT_CHARS,
  DIGIT_TOKENS,
  DIGIT_VOCAB_SIZE,
  digitAnswer,
  DigitOpSchema,
  type DigitTask,
  digitToken,
  hintCount,
  MAX_SPECIFICITY,
  SPECIFICITY_LEVELS,
} from './digitTask.js';
import type { Environment, Episode, TaskLimits } from './environment.js';
import type { Demonstration, RefineDirection, Rng, TaskFamily } from './taskFamily.js';

/** Options of {@link DigitTaskFamily}. */
export const DigitTaskOptionsSchema = z
  .object({
    /** The operations candidates are drawn from. Default `['reverse', 'sort']`. */
    ops: z.array(DigitOpSchema).min(1).default(['reverse', 'sort']),
    /** Shortest input (difficulty floor), >= 2. Default 2. */
    minLength: z.number().int().min(2).default(2),
    /** Longest input (difficulty ceiling), <= 12. Default 7. */
    maxLength: z.number().int().max(12).default(7),
    /** Offer the check tool (multi-turn episodes: answer, `?`, observation `+`/`-`, ...). Default true. */
    checkTool: z.boolean().default(true),
    /** Most assistant turns when the tool is on (1 when it is off). Default 2. */
    maxTurns: z.number().int().min(1).default(2),
    /** Tokens an assistant turn may use beyond the answer and its terminator. Default 2. */
    slackTokens: z.number().int().min(0).default(2),
    /**
     * Relative weights of the specificity levels 0..4 when `sample` draws a
     * candidate (the task generator's habits). Default uniform `[1, 1, 1, 1, 1]`.
     */
    specificityWeights: z.array(z.number().min(0)).length(SPECIFICITY_LEVELS.length).default([1, 1, 1, 1, 1]),
    /**
     * Which knob `rewrite` turns first: `'statement'` (the specificity level,
     * keeping the hidden test: FrogNano Fig. 5) or `'difficulty'` (the input
     * length); the other one only when the first is at its bound. Default `'statement'`.
     */
    refineFirst: z.enum(['statement', 'difficulty']).default('statement'),
    /** Probability that a demonstration misreads the statement and applies another operation. Default 0.3. */
    demoMisreadRate: z.number().min(0).max(1).default(0.3),
    /** Probability that a demonstration checks its answer with the tool (and fixes it after a `-`). Default 0.3. */
    demoCheckRate: z.number().min(0).max(1).default(0.3),
  })
  .strict()
  .refine((o) => o.minLength <= o.maxLength, { message: 'must be >= minLength', path: ['maxLength'] })
  .refine((o) => o.specificityWeights.some((w) => w > 0), { message: 'must have a positive weight', path: ['specificityWeights'] });
/** Options of {@link DigitTaskFamily} as the caller writes them. */
export type DigitTaskOptions = z.input<typeof DigitTaskOptionsSchema>;
type Parsed = z.output<typeof DigitTaskOptionsSchema>;

/**
 * The project's verifiable toy task family: transform a string of digits
 * (reverse it, sort it, ...). The hidden test compares the agent's last answer
 * with the transformed digits. It has the two knobs TaskPilot turns (FrogNano
 * §3.1-3.2):
 *
 * - **difficulty**: the input length `L` (`minLength .. maxLength`);
 * - **statement specificity**: {@link SPECIFICITY_LEVELS}, from a statement
 *   that hides the operation to one that reveals all but the last answer digit.
 *   Rewriting the statement keeps the input and the hidden test: the same task,
 *   easier or harder for the policy (Fig. 5).
 *
 * Statement tokens: `op d1 .. dL = h1 .. hk` (`op` is `*` when hidden, `h` the
 * revealed answer digits). The assistant writes the rest of the answer and ends
 * with `$`, or — with the check tool — ends the turn with `?`; the environment
 * answers `+` (the checked answer passes the hidden test) or `-`, masked from
 * the loss, and the next turn follows (Leaf's rule: a tool call continues the
 * episode, a turn without one ends it). The graded answer is the last non-empty
 * turn's digits, so a correct answer checked in the last allowed turn is a
 * truncated success (`'max-turns'`, reward 0.5 in FrogNano's shaping).
 *
 * @example
 * ```ts
 * const family = new DigitTaskFamily({ ops: ['reverse'], maxLength: 5 });
 * const task = family.sample(seedrandom('1'));
 * family.describe(task); // e.g. 'R 3 1 4 = | reverse, L=3, terse'
 * ```
 */
export class DigitTaskFamily implements Environment<DigitTask>, TaskFamily<DigitTask> {
  /** The validated options. */
  readonly options: Parsed;
  readonly endToken = DIGIT_TOKENS.end;
  readonly padToken = DIGIT_TOKENS.pad;
  readonly toolCallToken: number | undefined;
  /** Number of token ids (21). */
  readonly vocabSize = DIGIT_VOCAB_SIZE;

  constructor(opts: DigitTaskOptions = {}) {
    this.options = parseOptions('DigitTaskFamily', DigitTaskOptionsSchema, opts);
    this.toolCallToken = this.options.checkTool ? DIGIT_TOKENS.call : undefined;
  }

  /** Longest sequence an episode can reach (statement, every turn, every observation): size the policy's context to it. */
  get maxEpisodeTokens(): number {
    const L = this.options.maxLength;
    const turns = this.options.checkTool ? this.options.maxTurns : 1;
    return L + 2 + L - 1 + turns * (L + 1 + this.options.slackTokens + 1);
  }

  /** A fresh candidate: an operation, a length and a specificity level drawn uniformly, random digits. */
  sample(rng: Rng): DigitTask {
    const { ops, minLength, maxLength } = this.options;
    const op = ops[Math.floor(rng() * ops.length)]!;
    const L = minLength + Math.floor(rng() * (maxLength - minLength + 1));
    const specificity = weightedIndex(this.options.specificityWeights, rng());
    const id = `t${Math.floor(rng() * 2 ** 32).toString(36)}`;
    return { id, op, digits: randomDigits(rng, L), specificity };
  }

  /**
   * Held-out evaluation tasks: `count` tasks with terse statements (level 1)
   * and lengths cycling over `minLength .. maxLength`, from their own seed.
   */
  heldOut(count: number, seed: string | number): DigitTask[] {
    const rng = seedrandom(`digit-heldout:${String(seed)}`);
    const { ops, minLength, maxLength } = this.options;
    const out: DigitTask[] = [];
    for (let i = 0; i < count; i++) {
      const L = minLength + (i % (maxLength - minLength + 1));
      const op = ops[Math.floor(rng() * ops.length)]!;
      out.push({ id: `h${i}`, op, digits: randomDigits(rng, L), specificity: 1 });
    }
    return out;
  }

  /**
   * Refinement (TaskPilot, FrogNano Fig. 4/5), one step of one knob: the
   * statement (easier = one level more specific, harder = one level less; the
   * input and hidden test stay) or the difficulty (easier = the last digit
   * dropped, harder = one random digit appended). `refineFirst` says which knob
   * moves first; the other moves only when the first is at its bound. `null`
   * when neither can move.
   */
  rewrite(task: DigitTask, direction: RefineDirection, rng: Rng): DigitTask | null {
    const { minLength, maxLength, refineFirst } = this.options;
    const id = nextId(task.id);
    const statement = (): DigitTask | null => {
      const level = task.specificity + (direction === 'easier' ? 1 : -1);
      return level >= 0 && level <= MAX_SPECIFICITY ? { ...task, id, specificity: level } : null;
    };
    const difficulty = (): DigitTask | null => {
      if (direction === 'easier') return task.digits.length > minLength ? { ...task, id, digits: task.digits.slice(0, -1) } : null;
      return task.digits.length < maxLength ? { ...task, id, digits: [...task.digits, Math.floor(rng() * 10)] } : null;
    };
    return refineFirst === 'statement' ? (statement() ?? difficulty()) : (difficulty() ?? statement());
  }

  describe(task: DigitTask): string {
    return `${this.decode(this.prompt(task))} | ${task.op}, L=${task.digits.length}, ${SPECIFICITY_LEVELS[task.specificity]}`;
  }

  /** The statement: `op d1 .. dL = h1 .. hk`. */
  prompt(task: DigitTask): number[] {
    checkTask(task);
    const opTok = task.specificity === 0 ? DIGIT_TOKENS.unknownOp : DIGIT_TOKENS[task.op];
    const answer = digitAnswer(task.op, task.digits);
    const h = hintCount(task.specificity, task.digits.length);
    return [opTok, ...task.digits.map(digitToken), DIGIT_TOKENS.eq, ...answer.slice(0, h).map(digitToken)];
  }

  /** The answer digits the assistant must write (after the revealed ones), as tokens. */
  expected(task: DigitTask): number[] {
    const answer = digitAnswer(task.op, task.digits);
    return answer.slice(hintCount(task.specificity, task.digits.length)).map(digitToken);
  }

  limits(task: DigitTask): TaskLimits {
    return {
      maxNewTokens: this.expected(task).length + 1 + this.options.slackTokens,
      maxTurns: this.options.checkTool ? this.options.maxTurns : 1,
    };
  }

  /** The check tool: `+` when the turn's answer passes the hidden test, `-` otherwise. */
  respond(task: DigitTask, episode: Episode): number[] {
    const turn = episode.turns[episode.turns.length - 1];
    const ok = turn !== undefined && sameTokens(content(turn.assistant, this), this.expected(task));
    return [ok ? DIGIT_TOKENS.ok : DIGIT_TOKENS.no];
  }

  /** The hidden test: the last non-empty answer equals the expected digits. */
  grade(task: DigitTask, episode: Episode): boolean {
    for (let i = episode.turns.length - 1; i >= 0; i--) {
      const c = content(episode.turns[i]!.assistant, this);
      if (c.length > 0) return sameTokens(c, this.expected(task));
    }
    return false;
  }

  /**
   * A demonstration of `task` by a sloppy solver (the SFT warm start imitates
   * it, as a base model imitates unverified text): with probability
   * `demoMisreadRate` it misreads the statement and applies another operation;
   * with probability `demoCheckRate` it checks its answer with the tool and,
   * after a `-`, writes the right answer. So `answer $`, `answer ? + $`,
   * `misread $` (a wrong final answer) or `misread ? - answer $`. Every
   * assistant token is trained on; the statement and observations are not.
   * SFT on these demonstrations plateaus at the solver's accuracy: what it
   * gets wrong, only the verifier (RL) can teach.
   */
  demonstration(task: DigitTask, rng: Rng): Demonstration {
    const prompt = this.prompt(task);
    const answer = this.expected(task);
    const { end, call, ok, no } = DIGIT_TOKENS;
    const tokens = [...prompt];
    const lossMask: number[] = prompt.map(() => 0);
    const push = (toks: number[], m: number): void => {
      for (const t of toks) {
        tokens.push(t);
        lossMask.push(m);
      }
    };
    const { ops, demoMisreadRate, demoCheckRate, checkTool, maxTurns } = this.options;
    const others = ops.filter((op) => op !== task.op);
    const misread = others.length > 0 && rng() < demoMisreadRate;
    const shown = misread ? this.expected({ ...task, op: others[Math.floor(rng() * others.length)]! }) : answer;
    const checks = checkTool && maxTurns >= 2 && rng() < demoCheckRate;
    const correct = sameTokens(shown, answer);
    if (!checks) push([...shown, end], 1);
    else {
      push([...shown, call], 1);
      push([correct ? ok : no], 0);
      push(correct ? [end] : [...answer, end], 1);
    }
    return { tokens, lossMask };
  }

  /** `count` demonstrations of fresh tasks with statements of level 1..4 (never under-specified). */
  demonstrations(count: number, seed: string | number): Demonstration[] {
    const rng = seedrandom(`digit-demos:${String(seed)}`);
    const out: Demonstration[] = [];
    for (let i = 0; i < count; i++) {
      const task = this.sample(rng);
      task.specificity = 1 + Math.floor(rng() * MAX_SPECIFICITY);
      out.push(this.demonstration(task, rng));
    }
    return out;
  }

  /** Token ids as text (`R314=`, `$` end, `?` tool call, `+`/`-` observations). */
  decode(tokens: readonly number[]): string {
    return tokens.map((t) => DIGIT_CHARS[t] ?? `<${t}>`).join(' ');
  }
}

function weightedIndex(weights: readonly number[], u: number): number {
  let total = 0;
  for (const w of weights) total += w;
  let acc = 0;
  for (let i = 0; i < weights.length; i++) {
    acc += weights[i]!;
    if (u * total < acc) return i;
  }
  return weights.length - 1;
}

function randomDigits(rng: Rng, L: number): number[] {
  return Array.from({ length: L }, () => Math.floor(rng() * 10));
}

/** The turn's tokens without its terminator. */
function content(assistant: readonly number[], env: DigitTaskFamily): number[] {
  const last = assistant[assistant.length - 1];
  return last === env.endToken || (env.toolCallToken !== undefined && last === env.toolCallToken) ? assistant.slice(0, -1) : [...assistant];
}

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function nextId(id: string): string {
  const m = /^(.*)\.r(\d+)$/.exec(id);
  return m ? `${m[1]}.r${Number(m[2]) + 1}` : `${id}.r1`;
}

function checkTask(task: DigitTask): void {
  const fn = 'DigitTaskFamily';
  const ok =
    task !== null &&
    typeof task === 'object' &&
    DigitOpSchema.safeParse(task.op).success &&
    Array.isArray(task.digits) &&
    task.digits.length >= 1 &&
    task.digits.every((d) => Number.isInteger(d) && d >= 0 && d <= 9) &&
    Number.isInteger(task.specificity) &&
    task.specificity >= 0 &&
    task.specificity <= MAX_SPECIFICITY;
  if (!ok) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `task must be { id, op, digits: 0-9[], specificity: 0..${MAX_SPECIFICITY} }, got ${JSON.stringify(task)}`, {
      fn,
      field: 'task',
    });
  }
}
