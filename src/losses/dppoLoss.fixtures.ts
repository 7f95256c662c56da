import * as tf from '@tensorflow/tfjs';
import { expect } from 'vitest';
import { canReadSync } from '../backend/canReadSync.js';
import {
  dppoDiagnostics,
  dppoLoss,
  dppoLossDetailed,
  LOG_RATIO_CLAMP,
  type DppoLossDiagnostics,
  type DppoLossInputs,
  type DppoLossOptions,
} from './dppoLoss.js';

/**
 * Shared fixtures of the `dppoLoss` tests (`dppoLoss.test.ts`, `dppoLoss.aggregate.test.ts`,
 * `dppoLoss.gradient.test.ts`, `dppoLoss.validation.test.ts`): the float64 reference of
 * SPEC §3, tensor builders, asynchronous reads (every backend, webgpu included) and one
 * hand-made batch. Test-only: excluded from the build (`tsconfig.build.json`).
 */

/**
 * Tolerances. The tensors are float32 (eps = 2^-23 ~ 1.2e-7 relative), so a
 * loss that sums a handful of terms of order 1 agrees with the float64
 * reference to a few 1e-7; 1e-5 relative leaves room for `exp` implementations
 * (cpu: Math.exp on float32 inputs, wasm: XNNPACK/libm in float32).
 * Finite differences: central differences in float32 with step h have error
 * ~ eps*|f|/h + h^2*|f'''|/6; with h = 1e-2 and |f|, |f'''| of order 1 that is
 * ~1e-5 + 2e-5, so 1e-3 absolute is a safe bound that still catches a wrong
 * factor (the smallest gradient entries below are ~0.1).
 */
export const REL = 1e-5;
export const FD_TOL = 1e-3;

export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, rel = REL): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    expect(Number.isFinite(a), `element ${i} is ${a}`).toBe(true);
    expect(Math.abs(a - e), `element ${i}: ${a} vs ${e}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(e)));
  }
}

export interface RefOpts {
  deltaLow?: number;
  deltaHigh?: number;
  kl?: boolean;
  cap?: number;
  capNegativeOnly?: boolean;
}

/** The SPEC §3 loss, mask and gradient in float64 on the float32-rounded inputs. */
export function reference(lpn: number[], lpr: number[], adv: number[], mask: number[], o: RefOpts = {}) {
  const lo = o.deltaLow ?? 0.2;
  const hi = o.deltaHigh ?? 0.2;
  const n = lpn.length;
  const keep: number[] = [];
  const tokenLoss: number[] = [];
  const dTokenLoss: number[] = [];
  for (let t = 0; t < n; t++) {
    const lp = Math.fround(lpn[t]!);
    const lq = Math.fround(lpr[t]!);
    const a = Math.fround(adv[t]!);
    const p = Math.exp(lp);
    const q = Math.exp(lq);
    let drop: boolean;
    if (o.kl) {
      const d = q * (lq - lp) + (1 - q) * Math.log((1 - q + 1e-8) / (1 - p + 1e-8));
      drop = a > 0 ? p > q && d > hi : p < q && d > lo;
    } else drop = a > 0 ? p - q > hi : p - q < -lo;
    const k = mask[t] === 1 && !drop ? 1 : 0;
    keep.push(k);
    const lr = lp - lq;
    const clamped = Math.min(LOG_RATIO_CLAMP, Math.max(-LOG_RATIO_CLAMP, lr));
    let rho = Math.exp(clamped);
    let dRho = Math.abs(lr) <= LOG_RATIO_CLAMP ? rho : 0;
    if (o.cap !== undefined && (!o.capNegativeOnly || a < 0) && rho > o.cap) {
      rho = o.cap;
      dRho = 0;
    }
    tokenLoss.push(-a * rho * k);
    dTokenLoss.push(-a * dRho * k);
  }
  const T = mask.reduce((s, m) => s + m, 0);
  const denom = Math.max(T, 1);
  return {
    keep,
    tokenLoss,
    loss: tokenLoss.reduce((s, x) => s + x, 0) / denom,
    grad: dTokenLoss.map((g) => g / denom),
  };
}

export function inputsOf(lpn: number[], lpr: number[], adv: number[], mask: number[], shape?: number[]): DppoLossInputs {
  const s = shape ?? [lpn.length];
  return {
    logpNew: tf.tensor(lpn, s),
    logpRollout: tf.tensor(lpr, s),
    advantages: tf.tensor(adv, s),
    lossMask: tf.tensor(mask, s),
  };
}

// Every read is `await data()`: on webgpu in Node there is no synchronous read (see canReadSync).
export async function lossAndGrad(x: DppoLossInputs, opts: DppoLossOptions = {}): Promise<{ loss: number; grad: Float32Array }> {
  const { value, grad } = tf.valueAndGrad((lpn: tf.Tensor) => dppoLoss({ ...x, logpNew: lpn }, opts))(x.logpNew);
  const out = { loss: (await value.data())[0]!, grad: (await grad.data()) as Float32Array };
  value.dispose();
  grad.dispose();
  return out;
}

export async function read(t: tf.Tensor): Promise<number[]> {
  const v = Array.from((await t.data()) as Float32Array);
  t.dispose();
  return v;
}

/**
 * The diagnostics and the loss: `dppoDiagnostics` (asynchronous, every backend) and
 * `dppoLoss`; where the backend reads synchronously, also `dppoLossDetailed`,
 * which must give the same counts and the same loss.
 */
export async function diagnose(x: DppoLossInputs, opts: DppoLossOptions = {}): Promise<Omit<DppoLossDiagnostics, 'loss'> & { loss: number }> {
  const d = await dppoDiagnostics(x, opts);
  const [loss] = await read(dppoLoss(x, opts));
  if (canReadSync()) {
    const { loss: l, ...counts } = dppoLossDetailed(x, opts);
    expect(counts).toEqual(d);
    expect((await read(l))[0]).toBe(loss);
  }
  return { ...d, loss: loss! };
}

// A batch with kept, dropped-positive, dropped-negative, safe-direction and prompt (mask 0) tokens.
export const L = Math.log;
export const LPN = [L(0.5), L(0.9), L(0.3), L(0.1), L(0.6), L(0.2), L(0.45), L(0.7)];
export const LPR = [L(0.4), L(0.5), L(0.6), L(0.5), L(0.2), L(0.25), L(0.5), L(0.1)];
export const ADV = [1.0, 1.0, -0.5, 0.7, -1.2, -0.3, 0.4, 2.0];
export const MASK = [1, 1, 1, 1, 1, 1, 1, 0];
// token 1: A>0, dp=+0.4 -> drop; token 2: A<=0, dp=-0.3 -> drop; token 3: A>0, dp=-0.4 (safe) -> keep;
// token 4: A<=0, dp=+0.4 (safe) -> keep; token 7: prompt token.
