import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import type { Demonstration } from '../env/taskFamily.js';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions, functionSchema } from '../errors/validate.js';
import { sftLoss } from '../losses/sftLoss.js';
import { tokenLogProbs } from '../losses/tokenLogProbs.js';
import { Adam, clipByGlobalNorm } from './adam.js';
import { padBatch } from './batch.js';
import type { Policy } from './policy.js';
import { SeededRng } from './rng.js';
import { yieldToEventLoop } from './rollout.js';

/** Options of {@link sftPretrain}. */
export const SftPretrainOptionsSchema = z
  .object({
    /** Optimizer steps. Default 200. */
    steps: z.number().int().min(0).default(200),
    /** Demonstrations per step. Default 64. */
    batchSize: z.number().int().min(1).default(64),
    /** Adam step size. Default 3e-3. */
    learningRate: z.number().gt(0).default(3e-3),
    /** Global-norm clipping threshold. Default 1. */
    clipNorm: z.number().gt(0).default(1),
    /** Padding token id. Default 0. */
    padToken: z.number().int().min(0).default(0),
    /** Seed of the shuffling stream. Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
    /** Called after every step with the step index (from 0) and the loss. */
    onStep: functionSchema<(step: number, loss: number) => void>('(step, loss) => void').optional(),
  })
  .strict();
/** Options of {@link sftPretrain} as the caller writes them. */
export type SftPretrainOptions = z.input<typeof SftPretrainOptionsSchema>;

/**
 * A brief supervised warm start on demonstrations (the starting checkpoint
 * `pi^(0)` of FrogNano's loop is a pretrained model; here it is made by SFT
 * on generated solutions): `sftLoss` (masked mean negative log-likelihood on
 * assistant tokens) with Adam and global-norm clipping, shuffled epochs from a
 * seeded stream. Yields to the event loop between steps.
 *
 * @returns the loss of every step
 * @throws FrognanoError `EMPTY_INPUT` for no demonstrations; option errors naming `opts.<field>`
 * @example const losses = await sftPretrain(policy, family.demonstrations(2000, 1), { steps: 150 });
 */
export async function sftPretrain(policy: Policy, demos: readonly Demonstration[], opts: SftPretrainOptions = {}): Promise<number[]> {
  const fn = 'sftPretrain';
  const o = parseOptions(fn, SftPretrainOptionsSchema, opts);
  if (demos.length === 0) throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'demos must not be empty', { fn, field: 'demos' });
  const rng = new SeededRng(`sft:${String(o.seed)}`);
  const adam = new Adam(policy.variables, { learningRate: o.learningRate });
  const epoch = { order: [] as number[], cursor: 0 };
  const losses: number[] = [];
  try {
    for (let s = 0; s < o.steps; s++) {
      const picked = nextInEpochs(epoch, demos.length, Math.min(o.batchSize, demos.length), rng).map((i) => demos[i]!);
      const loss = await sftStep(policy, adam, picked, o.padToken, o.clipNorm);
      losses.push(loss);
      o.onStep?.(s, loss);
      await yieldToEventLoop();
    }
  } finally {
    adam.dispose();
  }
  return losses;
}

/**
 * One SFT step on a batch of demonstrations; resolves to the loss. The loss and
 * the gradient norm are read with `await tensor.data()` (no synchronous read, so
 * it runs on webgpu in Node too).
 */
async function sftStep(policy: Policy, adam: Adam, demos: readonly Demonstration[], padToken: number, clipNorm: number): Promise<number> {
  const batch = padBatch(demos, padToken);
  const shape: [number, number] = [batch.batch, batch.length];
  const inputs = tf.tensor2d(batch.inputs, shape, 'int32');
  const targets = tf.tensor2d(batch.targets, shape, 'int32');
  const lossMask = tf.tensor2d(batch.lossMask, shape, 'float32');
  const { value, grads } = tf.variableGrads(
    () => sftLoss({ logp: tokenLogProbs(policy.logits(inputs), targets), lossMask }),
    policy.variables as tf.Variable[],
  );
  const ordered = policy.variables.map((v) => grads[v.name] ?? tf.zerosLike(v));
  let clipped: { grads: tf.Tensor[] } = { grads: [] };
  try {
    const loss = (await value.data())[0]!;
    clipped = await clipByGlobalNorm(ordered, clipNorm);
    adam.apply(clipped.grads);
    return loss;
  } finally {
    tf.dispose([value, inputs, targets, lossMask, ...clipped.grads, ...ordered]);
    tf.dispose(Object.values(grads));
  }
}

/**
 * Fisher–Yates shuffle in place with a seeded stream; returns `xs`.
 *
 * @param xs - a mutable array without holes (a sparse array would be filled with `undefined`)
 * @param rng - the stream (a {@link SeededRng}, or any object whose `next()` returns a number in [0, 1))
 * @throws FrognanoError `INVALID_TYPE` (`xs` not an array, frozen, or with a hole naming `xs[i]`;
 *   `rng` without a `next` method), `OUT_OF_RANGE` (`rng.next()` outside [0, 1))
 * @example shuffle([1, 2, 3, 4], new SeededRng(3)) // the same permutation for the same seed
 */
export function shuffle<X>(xs: X[], rng: SeededRng): X[] {
  const fn = 'shuffle';
  if (!Array.isArray(xs)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `xs must be an array, got ${describeValue(xs)}`, { fn, field: 'xs' });
  }
  if (Object.isFrozen(xs) && xs.length > 1) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, 'xs must be a mutable array (it is shuffled in place), got a frozen one', { fn, field: 'xs' });
  }
  const n = xs.length;
  for (let i = 0; i < n; i++) {
    if (!(i in xs)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `xs[${i}] is a hole of a sparse array (arrays must have every element)`, { fn, field: `xs[${i}]`, index: [i] });
    }
  }
  if (rng === null || typeof rng !== 'object' || typeof (rng as { next?: unknown }).next !== 'function') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `rng must be a SeededRng (an object with next(): number in [0, 1)), got ${describeValue(rng)}`, { fn, field: 'rng' });
  }
  for (let i = xs.length - 1; i > 0; i--) {
    const u: unknown = rng.next();
    if (typeof u !== 'number' || !(u >= 0 && u < 1)) {
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `rng.next() must return a number in [0, 1), got ${describeValue(u)}`, { fn, field: 'rng' });
    }
    const j = Math.floor(u * (i + 1));
    const t = xs[i]!;
    xs[i] = xs[j]!;
    xs[j] = t;
  }
  return xs;
}

/**
 * The next `count` indices of `0 .. n-1` in shuffled epochs: whenever
 * `epoch.order` is used up, a new order is drawn with {@link shuffle}.
 * Advances `epoch` in place (plain JSON, so the trainer checkpoints it).
 * @internal
 */
export function nextInEpochs(epoch: { order: number[]; cursor: number }, n: number, count: number, rng: SeededRng): number[] {
  const out: number[] = [];
  for (let k = 0; k < count; k++) {
    if (epoch.cursor >= epoch.order.length) {
      epoch.order = shuffle(Array.from({ length: n }, (_, i) => i), rng);
      epoch.cursor = 0;
    }
    out.push(epoch.order[epoch.cursor++]!);
  }
  return out;
}
