import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue } from '../errors/validate.js';
import { canReadSync } from '../backend/canReadSync.js';
import { LOGP_TOLERANCE } from '../advantage/dppoMask.js';

/**
 * Internal helpers of the tensor losses: boundary checks on tensors, one read
 * of a tensor's values, and a gradient stop that works on every backend.
 * @internal
 */


/** The field path of flat element `flat` of a tensor of `shape`, e.g. `logpNew[1][3]`. */
export function elementPath(field: string, shape: readonly number[], flat: number): { where: string; index: number[] } {
  if (shape.length <= 1) return { where: `${field}[${flat}]`, index: [flat] };
  const index = new Array<number>(shape.length).fill(0);
  let rest = flat;
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d]!;
    index[d] = rest % n;
    rest = Math.floor(rest / n);
  }
  return { where: field + index.map((i) => `[${i}]`).join(''), index };
}

/** Throws `INVALID_TYPE` unless `value` is a tfjs tensor. */
export function assertTensor(fn: string, field: string, value: unknown): tf.Tensor {
  if (!(value instanceof tf.Tensor)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be a tf.Tensor, got ${describeValue(value)}`, { fn, field });
  }
  if (value.isDisposed) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} is a disposed tf.Tensor`, { fn, field });
  }
  if (value.dtype === 'string' || value.dtype === 'complex64') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be a numeric tensor, got dtype ${value.dtype}`, { fn, field });
  }
  return value;
}

/** Throws `LENGTH_MISMATCH` unless `b` has the shape of `a`. */
export function assertSameShape(fn: string, fieldA: string, a: tf.Tensor, fieldB: string, b: tf.Tensor): void {
  const sa = a.shape;
  const sb = b.shape;
  if (sa.length !== sb.length || sa.some((n, i) => n !== sb[i])) {
    throw new FrognanoError(
      ErrorCode.LENGTH_MISMATCH,
      `${fieldB} has shape [${sb.join(', ')}] but ${fieldA} has shape [${sa.join(', ')}]`,
      { fn, field: fieldB },
    );
  }
}

/**
 * Reads a tensor's values (one synchronous download: free on `cpu`, a copy out
 * of the WASM heap on `wasm`, a GPU-to-CPU transfer that waits for the queue on
 * `webgpu`/`webgl`). The returned array may be the backend's own storage: never
 * write to it.
 */
export function readValues(t: tf.Tensor): Readonly<ArrayLike<number>> {
  return t.dataSync() as ArrayLike<number>;
}

/**
 * Throws `BACKEND_UNAVAILABLE` when the active backend cannot read tensors
 * synchronously (webgpu in Node, see {@link canReadSync}): `what` names the
 * step that needs the read, `instead` the asynchronous way to do it.
 */
export function requireSyncRead(fn: string, field: string, what: string, instead: string): void {
  if (canReadSync()) return;
  throw new FrognanoError(
    ErrorCode.BACKEND_UNAVAILABLE,
    `${what} reads tensor values synchronously, which backend '${tf.getBackend()}' cannot do here (tfjs-backend-webgpu reads synchronously only through OffscreenCanvas, which Node lacks); ${instead}`,
    { fn, field },
  );
}

/**
 * The `validate` option every tensor loss shares, written once: spread it into
 * the loss's options schema, `z.object({ ...validateOption, ... })`. What is
 * checked is listed in each function's `@throws`; {@link resolveValidate}
 * turns the parsed value into the decision.
 */
export const validateOption = {
  /**
   * Check the input values on the host (NaN/±Infinity, ranges such as log-probs
   * <= 0 or token ids in `[0, V)`, 0/1 masks: see the function's `@throws`), reading
   * the tensors once. Default: `true` where the backend reads synchronously (cpu,
   * wasm, tfjs-node), `false` where it cannot (webgpu in Node, see `canReadSync`),
   * where an explicit `true` is a `BACKEND_UNAVAILABLE` error. `false`: no read;
   * bad input then yields NaN or a wrong number instead of an error.
   */
  validate: z.boolean().optional(),
};

/**
 * The losses' `validate` option: `undefined` means "check the values where the
 * backend can read them synchronously" (`true` on cpu, wasm, tensorflow;
 * `false` on webgpu in Node); an explicit `true` on a backend that cannot is a
 * `BACKEND_UNAVAILABLE` error rather than a silently skipped check.
 */
export function resolveValidate(fn: string, requested: boolean | undefined): boolean {
  if (requested === undefined) return canReadSync();
  if (requested) requireSyncRead(fn, 'validate', 'validate: true', 'pass validate: false and check the inputs first with `await checkFiniteAsync(tensor)`');
  return requested;
}

/**
 * Asynchronous input check for any backend (webgpu in Node included): resolves
 * when `t` holds no NaN/±Infinity, else rejects with `NON_FINITE` naming the
 * first bad element. Reads the values once (`await t.data()`, a GPU-to-CPU copy
 * of 4 bytes per element) and scans them in one loop on the host: an on-device
 * reduction is not trusted here, because WGSL lets an implementation assume
 * that no NaN or infinity occurs (clamp, min, max and comparisons may drop them).
 *
 * @param t - any numeric tensor
 * @param field - the name used in the error (default `'tensor'`)
 * @param fn - the function name used in the error (default `'checkFiniteAsync'`)
 * @throws FrognanoError `NON_FINITE` (the promise rejects); `INVALID_TYPE` for a non-tensor
 * @example await checkFiniteAsync(logpNew, 'logpNew'); const loss = dppoLoss(inputs, { validate: false });
 */
export async function checkFiniteAsync(t: tf.Tensor, field = 'tensor', fn = 'checkFiniteAsync'): Promise<void> {
  assertTensor(fn, field, t);
  if (t.size === 0) return;
  checkFinite(fn, field, t.shape, (await t.data()) as ArrayLike<number>);
}

/** Throws `NON_FINITE` at the first NaN/±Infinity of `xs`, naming the element. */
export function checkFinite(fn: string, field: string, shape: readonly number[], xs: ArrayLike<number>): void {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (x - x !== 0) {
      const { where, index } = elementPath(field, shape, i);
      throw new FrognanoError(ErrorCode.NON_FINITE, `${where} must be a finite number, got ${describeValue(x)}`, {
        fn,
        field: where,
        index,
      });
    }
  }
}

/** Finite and at most {@link LOGP_TOLERANCE}: `NON_FINITE` or `OUT_OF_RANGE` naming the element. */
export function checkLogProbs(fn: string, field: string, shape: readonly number[], xs: ArrayLike<number>): void {
  checkFinite(fn, field, shape, xs);
  for (let i = 0; i < xs.length; i++) {
    if (xs[i]! > LOGP_TOLERANCE) {
      const { where, index } = elementPath(field, shape, i);
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} must be a log-probability (<= 0), got ${xs[i]}`, {
        fn,
        field: where,
        index,
      });
    }
  }
}

/** Every value is 0 or 1 (`OUT_OF_RANGE` naming the element otherwise); returns the number of ones. */
export function checkMask01(fn: string, field: string, shape: readonly number[], xs: ArrayLike<number>): number {
  let ones = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (x === 1) ones++;
    else if (x !== 0) {
      const { where, index } = elementPath(field, shape, i);
      throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${where} must be 0 or 1, got ${describeValue(x)}`, {
        fn,
        field: where,
        index,
      });
    }
  }
  return ones;
}

const GPU_BACKENDS = new Set(['webgpu', 'webgl']);

/**
 * Throws `NON_FINITE` at the first NaN/±Infinity of a float tensor. On `cpu`,
 * `wasm` and `tensorflow` it reads back one number (`sum(x * 0)` is NaN
 * exactly when some element is not finite, by IEEE arithmetic) and reads the
 * values only then, to name the element. On a GPU backend (`webgpu`, `webgl`:
 * WGSL/GLSL let an implementation assume no NaN or infinity occurs, so the
 * probe cannot be trusted) it scans all the values on the host. Needs a
 * synchronous read: call it only where {@link resolveValidate} said so.
 */
export function checkFiniteOnDevice(fn: string, field: string, t: tf.Tensor): void {
  if (t.size === 0) return;
  if (GPU_BACKENDS.has(tf.getBackend())) {
    checkFinite(fn, field, t.shape, readValues(t));
    return;
  }
  const probe = tf.tidy(() => tf.sum(tf.mul(t, tf.scalar(0))));
  const v = probe.dataSync()[0]!;
  probe.dispose();
  if (v - v !== 0) checkFinite(fn, field, t.shape, readValues(t));
}

/**
 * Evaluates `f(...inputs)` so that the gradient tape does not record it, and
 * returns the result as a constant of the gradient: `tf.grad` sends zero back
 * to every input. This is how a mask built with ops that have no gradient in
 * tfjs (`Greater`, `Equal`, `TopK`, `ScatterNd`, ...) can sit on the path from
 * a differentiated tensor to the loss (the engine does not tape ops run inside
 * a `customGrad` forward function).
 */
export function noGrad(inputs: readonly tf.Tensor[], f: (...xs: tf.Tensor[]) => tf.Tensor): tf.Tensor {
  if (inputs.length === 0) return tf.tidy(() => f());
  const op = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
    const xs = args.slice(0, inputs.length) as tf.Tensor[];
    return {
      value: tf.tidy(() => f(...xs)),
      gradFunc: () => xs.map((x) => tf.zeros(x.shape, 'float32')),
    };
  });
  return op(...inputs);
}

/** A float32 copy of `t` (or `t` itself when it already is float32). Call inside `tf.tidy`. */
export function asFloat(t: tf.Tensor): tf.Tensor {
  return t.dtype === 'float32' ? t : tf.cast(t, 'float32');
}

/**
 * A scalar 0 that stays connected to `x` on the gradient tape (so `tf.grad`
 * returns zeros instead of "no path from x to y"). Safe for empty `x`: the wasm
 * backend of tfjs 4.22 returns uninitialised memory for the sum of an empty
 * tensor, so one 0 is appended before summing. Call inside `tf.tidy`.
 */
export function zeroLoss(x: tf.Tensor): tf.Scalar {
  const flat = tf.reshape(asFloat(x), [-1]);
  return tf.mul(tf.sum(tf.concat([flat, tf.zeros([1])])), 0) as tf.Scalar;
}
