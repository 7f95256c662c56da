import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions } from '../errors/validate.js';
import { assertTensor } from './tensorUtils.js';

/** Options of {@link numericGradient}. */
export const NumericGradientOptionsSchema = z
  .object({
    /** Step `h` of the central difference (> 0). Default `1e-2`, suited to float32 (see the doc comment). */
    h: z.number().gt(0).default(1e-2),
    /** Flat indices of `x` to differentiate along. Default: all of them. */
    indices: z.array(z.number().int().min(0)).optional(),
  })
  .strict();
/** Options of {@link numericGradient} as the caller writes them. */
export type NumericGradientOptions = z.input<typeof NumericGradientOptionsSchema>;

/**
 * The central finite-difference gradient of a scalar function of one tensor,
 * for checking the analytic gradients of custom losses (`tf.grad`):
 * ```
 * g_i = (f(x + h e_i) - f(x - h e_i)) / (2h)
 * ```
 * In float32 the error is about `eps |f| / h + h^2 |f'''| / 6` with
 * `eps ~ 6e-8`: round-off in the two evaluations of `f`, divided by `2h`, plus
 * the truncation of the Taylor series. `h = 1e-2` balances them for values and
 * third derivatives of order 1 (error ~ 1e-5 .. 1e-4), where `h = 1e-4` would
 * already lose three digits to round-off. Choose points at least `h` away from
 * kinks (mask thresholds, clamps): across one the difference is meaningless.
 * Costs `2 * indices.length` evaluations of `f`; the tensors `f` returns are
 * disposed.
 *
 * @returns `g_i` for each requested index, in float64 (computed from float32 evaluations)
 * @throws FrognanoError `INVALID_TYPE` (x not a tensor), `OUT_OF_RANGE` (`h <= 0`, an index outside `x`)
 * @example numericGradient((x) => tf.sum(tf.square(x)), tf.tensor1d([1, 2])) // ~[2, 4]
 */
export function numericGradient(f: (x: tf.Tensor) => tf.Scalar, x: tf.Tensor, opts: NumericGradientOptions = {}): number[] {
  const fn = 'numericGradient';
  const o = parseOptions(fn, NumericGradientOptionsSchema, opts);
  assertTensor(fn, 'x', x);
  const base = Float32Array.from(x.dataSync() as ArrayLike<number>);
  const indices = o.indices ?? Array.from(base, (_, i) => i);
  const out: number[] = [];
  for (const i of indices) {
    checkIndex(fn, i, base.length);
    const at = (v: number): number => {
      const buf = base.slice();
      buf[i] = v;
      return tf.tidy(() => f(tf.tensor(buf, x.shape, 'float32')).dataSync()[0]!);
    };
    const xi = base[i]!;
    // The step actually taken after float32 rounding of x +- h.
    const up = Math.fround(xi + o.h);
    const down = Math.fround(xi - o.h);
    out.push((at(up) - at(down)) / (up - down));
  }
  return out;
}

/**
 * {@link numericGradient} with asynchronous reads (`await data()`): the same
 * central differences, step and indices, for backends that cannot read
 * synchronously (webgpu in Node, see `canReadSync`). `f` stays synchronous
 * (a loss); only the reads of `x` and of each `f` value are awaited.
 *
 * @throws FrognanoError as {@link numericGradient} (the promise rejects)
 * @example const g = await numericGradientAsync((x) => tf.sum(tf.square(x)), tf.tensor1d([1, 2])); // ~[2, 4]
 */
export async function numericGradientAsync(
  f: (x: tf.Tensor) => tf.Scalar,
  x: tf.Tensor,
  opts: NumericGradientOptions = {},
): Promise<number[]> {
  const fn = 'numericGradientAsync';
  const o = parseOptions(fn, NumericGradientOptionsSchema, opts);
  assertTensor(fn, 'x', x);
  const base = Float32Array.from((await x.data()) as ArrayLike<number>);
  const indices = o.indices ?? Array.from(base, (_, i) => i);
  const out: number[] = [];
  for (const i of indices) {
    checkIndex(fn, i, base.length);
    const at = async (v: number): Promise<number> => {
      const buf = base.slice();
      buf[i] = v;
      const y = tf.tidy(() => f(tf.tensor(buf, x.shape, 'float32')));
      const value = (await y.data())[0]!;
      y.dispose();
      return value;
    };
    const xi = base[i]!;
    const up = Math.fround(xi + o.h);
    const down = Math.fround(xi - o.h);
    out.push(((await at(up)) - (await at(down))) / (up - down));
  }
  return out;
}

function checkIndex(fn: string, i: number, size: number): void {
  if (i >= size) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `opts.indices contains ${i}, outside x of size ${size}`, { fn, field: 'opts.indices' });
  }
}
