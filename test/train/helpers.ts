import * as tf from '@tensorflow/tfjs';
import type { TaskFamily } from '../../src/curriculum/taskPilot.js';
import type { Environment, Episode } from '../../src/env/environment.js';
import type { TrainerOptions } from '../../src/train/trainerOptions.js';
import { functionPolicy, type Policy } from '../../src/train/policy.js';

/**
 * Test fixtures of the training tests: a bigram policy (logits at position t
 * are row `tokens[t]` of a weight matrix) and a tiny environment.
 *
 * Tokens of {@link toyEnv}: 0 pad, 1 end, 2 tool call, 3 observation, 4.. content.
 */
export const TOK = { pad: 0, end: 1, call: 2, obs: 3 } as const;

/** A task of {@link toyEnv}: a prompt and the content the hidden test wants. */
export interface ToyTask {
  id: string;
  prompt: number[];
  answer: number[];
  maxNewTokens?: number;
  maxTurns?: number;
}

/** A bigram policy `logits[b, t] = W[tokens[b, t]]`, causal by construction. */
export function bigramPolicy(W: number[][], contextLength = 32): Policy {
  const V = W.length;
  return functionPolicy({
    vocabSize: V,
    contextLength,
    weights: [tf.tensor2d(W)],
    apply: ([w], ids) => {
      const [B, T] = ids.shape as [number, number];
      const oh = tf.cast(tf.oneHot(tf.reshape(tf.cast(ids, 'int32'), [B * T]), V), 'float32');
      return tf.reshape(tf.matMul(oh, w!), [B, T, V]);
    },
  });
}

/** A small environment with a check tool: `+`-less, it always answers token 3. */
export function toyEnv(opts: { tool?: boolean } = {}): Environment<ToyTask> {
  const tool = opts.tool ?? true;
  const content = (a: number[]) => a.filter((t) => t >= 4);
  return {
    endToken: TOK.end,
    padToken: TOK.pad,
    toolCallToken: tool ? TOK.call : undefined,
    prompt: (t) => t.prompt,
    limits: (t) => ({ maxNewTokens: t.maxNewTokens ?? 4, maxTurns: t.maxTurns ?? 2 }),
    respond: () => [TOK.obs],
    grade: (t, e: Episode) => {
      for (let i = e.turns.length - 1; i >= 0; i--) {
        const c = content(e.turns[i]!.assistant);
        if (c.length > 0) return c.join() === t.answer.join();
      }
      return false;
    },
  };
}

/** A V x V matrix filled with `fill`, with `row[from][to] = value` overrides. */
export function matrix(V: number, fill: number, set: [number, number, number][] = []): number[][] {
  const m = Array.from({ length: V }, () => new Array<number>(V).fill(fill));
  for (const [a, b, v] of set) m[a]![b] = v;
  return m;
}

/** Tasks of the toy env: after the prompt [4, 5] write 4 (or 5) and end; a bigram policy solves about half. */
export function toyFamily(maxNewTokens = 3): TaskFamily<ToyTask> {
  return {
    sample: (rng) => {
      const a = rng() < 0.5 ? 4 : 5;
      return { id: `t${a}`, prompt: [4, 5], answer: [a], maxNewTokens, maxTurns: 1 };
    },
    rewrite: (t) => ({ ...t, id: `${t.id}'` }),
    describe: (t) => t.id,
  };
}

/** The toy bigram policy's starting weights (vocabulary 6). */
export const toyWeights = (): number[][] =>
  matrix(6, -2, [
    [5, 4, 1],
    [5, 5, 1],
    [4, 1, 2],
    [5, 1, 0.5],
  ]);

/** A small, fast trainer configuration on the toy env (2 iterations of 4 updates of 3 groups of 4). */
export const toyTrainerOptions = (over: Partial<TrainerOptions> = {}): TrainerOptions => ({
  seed: 5,
  iterations: 2,
  updatesPerIteration: 4,
  groupsPerUpdate: 3,
  groupSize: 4,
  learningRate: 0.05,
  reward: { budget: 2, alpha: 0.2, lengthPenaltyFromIteration: 2 },
  pilot: { candidates: 6, rollouts: 4, maxRounds: 1, band: { low: 0, high: 1 } },
  progress: false,
  ...over,
});
