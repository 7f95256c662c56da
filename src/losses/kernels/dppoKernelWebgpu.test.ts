import * as tf from '@tensorflow/tfjs';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BACKENDS } from '../../../test/helpers/backends.js';
import { useBackend } from '../../backend/useBackend.js';
import { dppoMask } from '../../advantage/dppoMask.js';
import { DPPO_KERNEL_NAME, LOG_RATIO_CLAMP, dppoFusedLoss, runDppoKernel, type DppoKernelAttrs } from './dppoKernel.js';
import { registerDppoKernelWebgpu } from './dppoKernelWebgpu.js';

/**
 * The WGSL kernel (`FrognanoDppo` on webgpu) against the float64 array `dppoMask`
 * and the contract's per-token formulas, on seeded random inputs, for both
 * divergences, both cap modes and both cap scopes. Runs wherever the loss suite
 * runs webgpu: SwiftShader in `npm test` where Debian's `chromium` is installed,
 * the GPU on the H200 (test/helpers/backends.ts).
 */

interface Case {
  lpn: Float32Array;
  lpr: Float32Array;
  adv: Float32Array;
  w: Float32Array;
  shape: number[];
}

/**
 * Seeded random tokens: log-probs in [-3, 0], moves of up to ±1.2 nats (so both sides
 * of every threshold are hit), 5% zero advantages, 15% mask-0 tokens; the weights are
 * `m_t * u_t / N` with `u_t` uniform in (0, 2], as an aggregation would give.
 */
function randomCase(seed: string, shape: number[]): Case {
  const rng = seedrandom(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const c: Case = { lpn: new Float32Array(n), lpr: new Float32Array(n), adv: new Float32Array(n), w: new Float32Array(n), shape };
  for (let t = 0; t < n; t++) {
    const lq = -3 * rng() - 0.01;
    c.lpr[t] = lq;
    c.lpn[t] = Math.min(0, lq + 2.4 * (rng() - 0.5));
    c.adv[t] = rng() < 0.05 ? 0 : 4 * (rng() - 0.5);
    c.w[t] = rng() < 0.15 ? 0 : (2 * (1 - rng())) / n;
  }
  return c;
}

/** The float64 reference: keep from the array `dppoMask`, loss and gradient from the contract's formulas. */
function reference(c: Case, a: DppoKernelAttrs) {
  const opts = { divergence: a.divergence === 1 ? ('kl' as const) : ('tv' as const), deltaLow: a.deltaLow, deltaHigh: a.deltaHigh };
  const f64 = (x: Float32Array): Float64Array => Float64Array.from(x);
  const lpn = f64(c.lpn);
  const lpr = f64(c.lpr);
  const adv = f64(c.adv);
  const keep = dppoMask(lpn, lpr, adv, opts);
  // tokens within 1e-4 (relative) of a threshold: float32 may decide them the other way
  const eps = 1e-4;
  const lower = dppoMask(lpn, lpr, adv, { ...opts, deltaLow: a.deltaLow * (1 - eps), deltaHigh: a.deltaHigh * (1 - eps) });
  const upper = dppoMask(lpn, lpr, adv, { ...opts, deltaLow: a.deltaLow * (1 + eps), deltaHigh: a.deltaHigh * (1 + eps) });
  const n = lpn.length;
  const grad = new Float64Array(n);
  const near: boolean[] = [];
  let loss = 0;
  let scale = 0;
  const counts = { droppedPositive: 0, droppedNegative: 0, over: 0 };
  for (let t = 0; t < n; t++) {
    near.push(lower[t] !== upper[t]);
    if (keep[t] === 0) {
      if (adv[t]! > 0) counts.droppedPositive++;
      else counts.droppedNegative++;
    }
    const w = c.w[t]!;
    if (w === 0 || keep[t] === 0) continue;
    const lp = lpn[t]!;
    const lr = lp - lpr[t]!;
    const rho = Math.exp(Math.min(LOG_RATIO_CLAMP, Math.max(-LOG_RATIO_CLAMP, lr)));
    const capped = a.ratioCap > 0 && (a.capScope === 0 || adv[t]! < 0);
    const over = capped && rho > a.ratioCap;
    if (over) counts.over++;
    const r = over ? a.ratioCap : rho;
    let l: number;
    if (a.ratioCap > 0 && a.capMode === 1) {
      l = -adv[t]! * r * lp;
      grad[t] = w * -adv[t]! * r;
    } else {
      l = -adv[t]! * r;
      grad[t] = Math.abs(lr) <= LOG_RATIO_CLAMP && !over ? w * -adv[t]! * rho : 0;
    }
    loss += w * l;
    scale += Math.abs(w * l);
  }
  return { keep, near, grad, loss, scale, counts };
}

const tensors = (c: Case) => ({
  logpNew: tf.tensor(c.lpn, c.shape),
  logpRollout: tf.tensor(c.lpr, c.shape),
  advantages: tf.tensor(c.adv, c.shape),
  weights: tf.tensor(c.w, c.shape),
});

const base: DppoKernelAttrs = { divergence: 0, deltaLow: 0.2, deltaHigh: 0.2, ratioCap: 0, capMode: 0, capScope: 0 };
const CASES: [string, DppoKernelAttrs][] = [
  ['tv', base],
  ['tv, deltaLow 0.1 / deltaHigh 0.3', { ...base, deltaLow: 0.1, deltaHigh: 0.3 }],
  ['kl, delta 0.05', { ...base, divergence: 1, deltaLow: 0.05, deltaHigh: 0.05 }],
  ['tv, clip at 1.5 on all tokens', { ...base, ratioCap: 1.5 }],
  ['tv, truncate at 1.5 on all tokens', { ...base, ratioCap: 1.5, capMode: 1 }],
  ['kl, clip at 1.3 on A < 0 only', { ...base, divergence: 1, deltaLow: 0.08, deltaHigh: 0.03, ratioCap: 1.3, capScope: 1 }],
  ['kl, truncate at 1.3 on A < 0 only', { ...base, divergence: 1, deltaLow: 0.05, deltaHigh: 0.05, ratioCap: 1.3, capMode: 1, capScope: 1 }],
];

interface GpuDeviceLike {
  pushErrorScope(filter: 'validation'): void;
  popErrorScope(): Promise<{ message: string } | null>;
}

describe.runIf(TEST_BACKENDS.includes('webgpu'))(`the WGSL ${DPPO_KERNEL_NAME} kernel on webgpu`, () => {
  let device: GpuDeviceLike;
  beforeAll(async () => {
    registerDppoKernelWebgpu();
    await useBackend('webgpu');
    device = (tf.backend() as unknown as { device: GpuDeviceLike }).device;
  });
  afterAll(async () => {
    await useBackend('cpu');
  });

  /** Runs the kernel, failing on any WebGPU validation error (a WGSL error is otherwise only printed). */
  async function run(c: Case, attrs: DppoKernelAttrs): Promise<{ loss: number; grad: Float32Array }> {
    const x = tensors(c);
    device.pushErrorScope('validation');
    const [loss, grad] = runDppoKernel(x, attrs);
    const error = await device.popErrorScope();
    expect(error?.message ?? null).toBeNull();
    expect(grad.shape).toEqual(c.shape);
    expect(loss.shape).toEqual([]);
    const out = { loss: (await loss.data())[0]!, grad: (await grad.data()) as Float32Array };
    tf.dispose([loss, grad, x.logpNew, x.logpRollout, x.advantages, x.weights]);
    return out;
  }

  // 6,000 tokens: 188 partial sums over 24 workgroups; [3, 111]: a 2-D batch of 333 tokens,
  // 11 partial sums in one workgroup (the last thread's stride ends early). The clamp test
  // below has 2 tokens: one partial sum, so no third dispatch.
  for (const [shape, seed] of [[[6000], 'a'], [[3, 111], 'b']] as const) {
    it.each(CASES)(`matches the float64 dppoMask and the contract's loss and gradient: %s, shape [${shape.join(', ')}]`, async (_name, attrs) => {
      const c = randomCase(`${seed}-${_name}`, [...shape]);
      const ref = reference(c, attrs);
      // the case exercises the rule: tokens dropped on both sides, and capped ones where a cap is on
      expect(ref.counts.droppedPositive).toBeGreaterThan(0);
      expect(ref.counts.droppedNegative).toBeGreaterThan(0);
      if (attrs.ratioCap > 0) expect(ref.counts.over).toBeGreaterThan(0);
      // tokens within float32 round-off of a threshold are left out (weight 0); there are few
      const nearCount = ref.near.filter(Boolean).length;
      expect(nearCount).toBeLessThan(c.w.length / 100);
      ref.near.forEach((isNear, t) => {
        if (isNear) c.w[t] = 0;
      });
      const r = reference(c, attrs);
      const { loss, grad } = await run(c, attrs);
      expect(Math.abs(loss - r.loss)).toBeLessThanOrEqual(1e-5 * r.scale + 1e-9);
      for (let t = 0; t < grad.length; t++) {
        const e = r.grad[t]!;
        expect(Math.abs(grad[t]! - e), `token ${t}: ${grad[t]} vs ${e} (keep ${r.keep[t]})`).toBeLessThanOrEqual(1e-5 * Math.abs(e) + 1e-12);
        if (c.w[t] === 0 || r.keep[t] === 0) expect(grad[t]).toBe(0);
      }
    });
  }

  it('clamps the log-ratio at ±20: clip has no gradient beyond it, truncate keeps -A * cap', async () => {
    // q = e^-30, p = e^-5: log-ratio 25 (rho = e^20 after the clamp), kept for A > 0 (dp ~ 0.0067)
    const c: Case = { lpn: Float32Array.of(-5, -1), lpr: Float32Array.of(-30, -1), adv: Float32Array.of(1, 1), w: Float32Array.of(0.5, 0.5), shape: [2] };
    const clip = await run(c, base);
    expect(Math.abs(clip.loss - (-Math.exp(20) - 1) / 2)).toBeLessThanOrEqual(1e-5 * Math.exp(20));
    expect(Array.from(clip.grad)).toEqual([0, -0.5]);
    const trunc = await run(c, { ...base, ratioCap: 2, capMode: 1 });
    expect(trunc.loss).toBeCloseTo(0.5 * (-2 * -5) + 0.5 * (-1 * -1), 5);
    expect(Array.from(trunc.grad)).toEqual([-1, -0.5]);
  });

  it('empty input: loss 0 and an empty gradient', async () => {
    const c: Case = { lpn: new Float32Array(0), lpr: new Float32Array(0), adv: new Float32Array(0), w: new Float32Array(0), shape: [0, 4] };
    const { loss, grad } = await run(c, base);
    expect(loss).toBe(0);
    expect(grad.length).toBe(0);
  });

  it('through tf.customGrad (dppoFusedLoss): the gradient is dy * grad, and nothing leaks', async () => {
    const c = randomCase('custom', [4100]);
    const attrs: DppoKernelAttrs = { ...base, ratioCap: 1.5, capMode: 1 };
    const direct = await run(c, attrs);
    const backend = tf.backend() as unknown as { numDataIds(): number };
    const x = tensors(c);
    const tensorsBefore = tf.memory().numTensors;
    const idsBefore = backend.numDataIds();
    const { value, grad } = tf.valueAndGrad((lpn: tf.Tensor) => tf.mul(dppoFusedLoss({ ...x, logpNew: lpn }, attrs), 3))(x.logpNew);
    expect((await value.data())[0]).toBeCloseTo(3 * direct.loss, 5);
    const g = await grad.data();
    for (let t = 0; t < g.length; t++) expect(Math.abs(g[t]! - 3 * direct.grad[t]!)).toBeLessThanOrEqual(1e-6 * Math.abs(direct.grad[t]!));
    tf.dispose([value, grad]);
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    // the partial sums live only inside the kernel (backend data, not tensors): freed too
    expect(backend.numDataIds()).toBe(idsBefore);
    tf.dispose([x.logpNew, x.logpRollout, x.advantages, x.weights]);
  });
});
