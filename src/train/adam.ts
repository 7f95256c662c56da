import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { readFloat32 } from './policy.js';

/** Options of {@link Adam}. */
export const AdamOptionsSchema = z
  .object({
    /** Step size. Default 1e-3. */
    learningRate: z.number().gt(0).default(1e-3),
    /** First-moment decay. Default 0.9. */
    beta1: z.number().min(0).lt(1).default(0.9),
    /** Second-moment decay. Default 0.999. */
    beta2: z.number().min(0).lt(1).default(0.999),
    /** Added to the root of the second moment. Default 1e-8 (PyTorch). */
    epsilon: z.number().gt(0).default(1e-8),
  })
  .strict();
/** Options of {@link Adam} as the caller writes them. */
export type AdamOptions = z.input<typeof AdamOptionsSchema>;

/** The serialisable state of {@link Adam}: the step count and both moments, in variable order. */
export interface AdamState {
  /** Number of updates applied. */
  step: number;
  /** First moments. */
  m: Float32Array[];
  /** Second moments. */
  v: Float32Array[];
}

/**
 * Adam (Kingma & Ba), written out so its whole state can be checkpointed and
 * restored bit for bit (tfjs's `tf.train.adam` keeps part of its state in
 * accumulated powers). The update is PyTorch's `torch.optim.Adam`:
 * ```
 * m = b1 m + (1 - b1) g          v = b2 v + (1 - b2) g^2
 * p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 * ```
 * with the bias corrections computed in float64 on the host. FrogNano
 * re-initialises the optimizer at every iteration (§4): make a new one, or
 * call {@link Adam.reset}.
 *
 * @example
 * ```ts
 * const adam = new Adam(policy.variables, { learningRate: 3e-4 });
 * const { grads } = tf.variableGrads(loss, policy.variables);
 * adam.apply(policy.variables.map((v) => grads[v.name]!));
 * ```
 */
export class Adam {
  /** The validated options. */
  readonly options: z.output<typeof AdamOptionsSchema>;
  private readonly variables: readonly tf.Variable[];
  private m: tf.Variable[];
  private v: tf.Variable[];
  private t = 0;

  constructor(variables: readonly tf.Variable[], opts: AdamOptions = {}) {
    this.options = parseOptions('Adam', AdamOptionsSchema, opts);
    this.variables = variables;
    // tidy frees the zero tensors a variable is made from (the variable keeps its own reference).
    this.m = variables.map((p) => tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
    this.v = variables.map((p) => tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
  }

  /** Number of updates applied since construction or the last reset. */
  get step(): number {
    return this.t;
  }

  /**
   * Applies one update with `grads[i]` the gradient of `variables[i]`. The
   * gradients are not disposed.
   *
   * @throws FrognanoError `LENGTH_MISMATCH` when the count or a shape differs
   */
  apply(grads: readonly tf.Tensor[], learningRate?: number): void {
    const fn = 'Adam.apply';
    if (grads.length !== this.variables.length) {
      throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `grads has ${grads.length} tensors but there are ${this.variables.length} variables`, {
        fn,
        field: 'grads',
      });
    }
    this.t++;
    const { beta1: b1, beta2: b2, epsilon } = this.options;
    const lr = learningRate ?? this.options.learningRate;
    const stepSize = lr / (1 - b1 ** this.t);
    const sqrtBc2 = Math.sqrt(1 - b2 ** this.t);
    tf.tidy(() => {
      this.variables.forEach((p, i) => {
        const g = grads[i]!;
        if (g.size !== p.size) {
          throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `grads[${i}] has ${g.size} values but variable ${i} has ${p.size}`, {
            fn,
            field: `grads[${i}]`,
            index: [i],
          });
        }
        const m = tf.add(tf.mul(this.m[i]!, b1), tf.mul(g, 1 - b1));
        const v = tf.add(tf.mul(this.v[i]!, b2), tf.mul(tf.square(g), 1 - b2));
        this.m[i]!.assign(m);
        this.v[i]!.assign(v);
        const denom = tf.add(tf.div(tf.sqrt(v), sqrtBc2), epsilon);
        p.assign(tf.sub(p, tf.mul(tf.div(m, denom), stepSize)));
      });
    });
  }

  /** Zeroes both moments and the step count (FrogNano's per-iteration re-initialisation). */
  reset(): void {
    this.t = 0;
    for (const x of [...this.m, ...this.v]) tf.tidy(() => x.assign(tf.zerosLike(x)));
  }

  /**
   * A copy of the state, read with `await tensor.data()` (works on every
   * backend, webgpu in Node included, where synchronous reads are impossible).
   */
  async getState(): Promise<AdamState> {
    const step = this.t;
    const [m, v] = await Promise.all([readFloat32(this.m), readFloat32(this.v)]);
    return { step, m, v };
  }

  /**
   * Restores a state from {@link Adam.getState} (same variables).
   *
   * @throws FrognanoError `LENGTH_MISMATCH` when the moment count or a size differs
   */
  setState(state: AdamState): void {
    const fn = 'Adam.setState';
    for (const [name, arrs] of [
      ['m', state.m],
      ['v', state.v],
    ] as const) {
      if (arrs.length !== this.variables.length) {
        throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `state.${name} has ${arrs.length} arrays, expected ${this.variables.length}`, {
          fn,
          field: `state.${name}`,
        });
      }
      arrs.forEach((a, i) => {
        if (a.length !== this.variables[i]!.size) {
          throw new FrognanoError(ErrorCode.LENGTH_MISMATCH, `state.${name}[${i}] has ${a.length} values, expected ${this.variables[i]!.size}`, {
            fn,
            field: `state.${name}[${i}]`,
            index: [i],
          });
        }
      });
    }
    this.t = state.step;
    state.m.forEach((a, i) => tf.tidy(() => this.m[i]!.assign(tf.tensor(a, this.m[i]!.shape, 'float32'))));
    state.v.forEach((a, i) => tf.tidy(() => this.v[i]!.assign(tf.tensor(a, this.v[i]!.shape, 'float32'))));
  }

  /** Frees the moments. */
  dispose(): void {
    for (const x of [...this.m, ...this.v]) x.dispose();
    this.m = [];
    this.v = [];
  }
}

/**
 * Global-norm gradient clipping (FrogNano §4.1: stability from "the DPPO mask,
 * small policy lag and gradient clipping"), as PyTorch's `clip_grad_norm_`:
 * ```
 * norm = sqrt(sum_i ||g_i||^2)      g_i <- g_i * min(1, maxNorm / (norm + 1e-6))
 * ```
 * The squared norm is summed on the device and read back as one number with
 * `await tensor.data()` (asynchronous, so it works on every backend, webgpu in
 * Node included); the square root and the scale are computed on the host in
 * float64. Resolves to new tensors (the caller disposes them and the inputs)
 * and the norm before clipping.
 *
 * @throws FrognanoError `OUT_OF_RANGE` for `maxNorm <= 0` (the promise rejects)
 * @example const { grads: clipped, norm } = await clipByGlobalNorm(grads, 1.0);
 */
export async function clipByGlobalNorm(grads: readonly tf.Tensor[], maxNorm: number): Promise<{ grads: tf.Tensor[]; norm: number }> {
  if (!(maxNorm > 0)) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `maxNorm must be > 0, got ${maxNorm}`, { fn: 'clipByGlobalNorm', field: 'maxNorm' });
  }
  // A left fold of two-input adds, not tf.addN: the webgpu backend of tfjs 4.22 binds one storage
  // buffer per addN input and leaves the device at WebGPU's default limit of 8 per shader stage, so
  // addN over more than 7 tensors fails there. The fold adds in the same order, in float32, as the
  // cpu and wasm addN kernels do, so the norm is the same number.
  const sq = tf.tidy(() => grads.map((g) => tf.sum(tf.square(g))).reduce((acc, s) => tf.add(acc, s), tf.scalar(0)));
  let norm: number;
  try {
    norm = Math.sqrt((await sq.data())[0]!);
  } finally {
    sq.dispose();
  }
  const scale = Math.min(1, maxNorm / (norm + 1e-6));
  return { grads: grads.map((g) => tf.tidy(() => (scale === 1 ? g.clone() : tf.mul(g, scale)))), norm };
}
