import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../backend/useBackend.js';
import { canReadSync } from '../backend/canReadSync.js';
import { TEST_BACKENDS } from '../../test/helpers/backends.js';
import { dppoMask } from '../advantage/dppoMask.js';
import { setSimdEnabled } from '../numeric/simd/simdModule.js';
import { dppoLoss, LOG_RATIO_CLAMP, type DppoLossOptions } from './dppoLoss.js';
import { numericGradientAsync } from './numericGradient.js';
import { runDppoKernel, type DppoKernelAttrs } from './kernels/dppoKernel.js';
import { rng } from '../../test/helpers/rng.js';

/**
 * The fused DPPO kernel (issue #13) against a float64 reference whose keep mask is the
 * array `dppoMask` itself (on the same float32 values), for both divergences, both cap
 * modes, both cap scopes and every aggregate mode; its gradient against finite
 * differences, truncate mode included; the WASM SIMD and pure-JS exp paths against each other.
 */


interface Batch {
  lpn: Float32Array;
  lpr: Float32Array;
  adv: Float32Array;
  mask: Float32Array;
  rows: number;
  cols: number;
}

function batch(seed: number, rows = 4, cols = 16): Batch {
  const r = rng(seed);
  const n = rows * cols;
  const lpn = new Float32Array(n);
  const lpr = new Float32Array(n);
  const adv = new Float32Array(n);
  const mask = new Float32Array(n);
  for (let t = 0; t < n; t++) {
    lpr[t] = -r() * 4 - 0.01;
    lpn[t] = Math.min(0, lpr[t]! + (r() - 0.5) * 2.5);
    if (t % 29 === 5) lpn[t] = lpr[t]! + 21; // beyond the clamp (a log-prob, just not <= 0 here: fixed below)
    adv[t] = (r() - 0.5) * 4;
    mask[t] = r() < 0.85 ? 1 : 0;
  }
  for (let t = 0; t < n; t++) if (lpn[t]! > 0) { lpn[t] = -0.5; lpr[t] = -22; } // rho = e^21.5: clamped
  if (rows > 1) for (let c = 0; c < cols; c++) mask[cols + c] = 0; // one empty row
  return { lpn, lpr, adv, mask, rows, cols };
}

type Mode = NonNullable<DppoLossOptions['aggregate']>;

/** SPEC §3 in float64, the keep mask taken from the array dppoMask. */
function reference(b: Batch, o: DppoLossOptions) {
  const keep = dppoMask(new Float64Array(b.lpn), new Float64Array(b.lpr), new Float64Array(b.adv), {
    delta: o.delta, deltaLow: o.deltaLow, deltaHigh: o.deltaHigh, divergence: o.divergence,
  });
  const n = b.lpn.length;
  const cap = o.ratioCap;
  const l = new Float64Array(n);
  const g = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    if (b.mask[t] !== 1 || keep[t] !== 1) continue;
    const a = b.adv[t]!;
    const lr = b.lpn[t]! - b.lpr[t]!;
    const rho = Math.exp(Math.max(-LOG_RATIO_CLAMP, Math.min(LOG_RATIO_CLAMP, lr)));
    const inside = Math.abs(lr) <= LOG_RATIO_CLAMP;
    const capped = cap !== undefined && (o.ratioCapScope !== 'negative' || a < 0);
    const over = capped && rho > cap!;
    const r = over ? cap! : rho;
    if (cap !== undefined && o.ratioCapMode === 'truncate') {
      l[t] = -a * r * b.lpn[t]!;
      g[t] = -a * r;
    } else {
      l[t] = -a * r;
      g[t] = inside && !over ? -a * rho : 0;
    }
  }
  // weights (verl agg_loss after PR #5417)
  const w = new Float64Array(n);
  const mode: Mode = o.aggregate ?? 'token-mean';
  const total = b.mask.reduce((s, m) => s + m, 0);
  const counts = Array.from({ length: b.rows }, (_, s) => b.mask.subarray(s * b.cols, (s + 1) * b.cols).reduce((x, m) => x + m, 0));
  const seqs = Math.max(1, counts.filter((c) => c > 0).length);
  for (let t = 0; t < n; t++) {
    const c = counts[Math.floor(t / b.cols)]!;
    const m = b.mask[t]!;
    w[t] = mode === 'token-mean' ? m / Math.max(total, 1) : mode === 'token-sum' ? m : mode === 'seq-mean-token-mean' ? m / (Math.max(c, 1) * seqs)
      : mode === 'seq-mean-token-sum' ? m / seqs : m / (seqs * (o.lossScaleFactor ?? b.cols));
  }
  let loss = 0;
  for (let t = 0; t < n; t++) loss += w[t]! * l[t]!;
  return { loss, grad: Array.from(g, (x, t) => x * w[t]!), keep };
}

function tensors(b: Batch) {
  const s = [b.rows, b.cols];
  return { logpNew: tf.tensor(b.lpn, s), logpRollout: tf.tensor(b.lpr, s), advantages: tf.tensor(b.adv, s), lossMask: tf.tensor(b.mask, s) };
}

async function lossAndGrad(b: Batch, o: DppoLossOptions) {
  const x = tensors(b);
  const { value, grad } = tf.valueAndGrad((lpn: tf.Tensor) => dppoLoss({ ...x, logpNew: lpn }, o))(x.logpNew);
  const out = { loss: (await value.data())[0]!, grad: Array.from(await grad.data()) };
  tf.dispose([value, grad, x.logpNew, x.logpRollout, x.advantages, x.lossMask]);
  return out;
}

function expectNear(a: number, e: number, rel: number, what: string): void {
  expect(Math.abs(a - e), `${what}: ${a} vs ${e}`).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(e)));
}

const OPTION_SETS: DppoLossOptions[] = [];
for (const divergence of ['tv', 'kl'] as const)
  for (const ratioCapMode of ['clip', 'truncate'] as const)
    for (const ratioCapScope of ['all', 'negative'] as const)
      OPTION_SETS.push({ divergence, delta: divergence === 'kl' ? 0.08 : 0.2, ratioCap: 1.6, ratioCapMode, ratioCapScope });
OPTION_SETS.push({ divergence: 'tv', deltaLow: 0.1, deltaHigh: 0.3 }, { divergence: 'kl', delta: 0.05 });

describe.each(TEST_BACKENDS)('the fused DPPO kernel on %s', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  it('matches the float64 reference (mask = the array dppoMask) for both divergences, both cap modes and scopes, every aggregate mode', async () => {
    let seed = 1;
    for (const o of OPTION_SETS) {
      for (const aggregate of ['token-mean', 'token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'] as const) {
        const b = batch(seed++);
        const ref = reference(b, { ...o, aggregate });
        const validates = canReadSync() ? [undefined, false] : [false];
        for (const validate of validates) {
          const got = await lossAndGrad(b, { ...o, aggregate, validate });
          const what = `${JSON.stringify(o)} ${aggregate} validate=${validate}`;
          // float32 output of a float64 sum: relative 1e-5 (clamped tokens contribute e^20 ~ 4.9e8)
          expectNear(got.loss, ref.loss, 1e-5, what);
          got.grad.forEach((g, i) => expectNear(g, ref.grad[i]!, 1e-5, `${what} grad[${i}]`));
          // exactly zero where the reference mask drops the token or the loss mask is 0
          ref.keep.forEach((k, i) => {
            if (k === 0 || b.mask[i] === 0) expect(Math.abs(got.grad[i]!)).toBe(0);
          });
        }
      }
    }
  });

  it('honours the weightScale attribute (w_t = weightScale * weights_t): tv and kl, clip and truncate', async () => {
    const b = batch(4242, 3, 17); // 51 tokens: SIMD chunks and an odd tail
    const s = [b.rows, b.cols];
    const base: DppoKernelAttrs = { divergence: 0, deltaLow: 0.2, deltaHigh: 0.2, ratioCap: 1.6, capMode: 0, capScope: 0 };
    const run = async (weights: Float32Array, attrs: DppoKernelAttrs) => {
      const x = { logpNew: tf.tensor(b.lpn, s), logpRollout: tf.tensor(b.lpr, s), advantages: tf.tensor(b.adv, s), weights: tf.tensor(weights, s) };
      const [loss, grad] = runDppoKernel(x, attrs);
      const out = { loss: (await loss.data())[0]!, grad: Array.from(await grad.data()) };
      tf.dispose([loss, grad, ...Object.values(x)]);
      return out;
    };
    for (const attrs of [base, { ...base, capMode: 1 as const }, { ...base, divergence: 1 as const, deltaLow: 0.08, deltaHigh: 0.08, capScope: 1 as const }]) {
      const plain = await run(b.mask, attrs);
      for (const weightScale of [0.25, 1 / 3]) {
        const scaled = await run(b.mask, { ...attrs, weightScale });
        const prescaled = await run(b.mask.map((m) => m * weightScale), attrs);
        const what = `${JSON.stringify(attrs)} weightScale ${weightScale}`;
        expect(Math.abs(scaled.loss - plain.loss), what).toBeGreaterThan(0);
        expectNear(scaled.loss, prescaled.loss, 1e-6, `${what} loss`);
        scaled.grad.forEach((g, i) => expectNear(g, prescaled.grad[i]!, 1e-6, `${what} grad[${i}]`));
      }
    }
  });

  it('truncate: the gradient is -A * min(rho, cap) (-A * cap above the cap, the clip gradient below)', async () => {
    const L = Math.log;
    // rho = 2 on tokens 0, 1 (above cap 1.5), rho = 1.25 on token 2 (below)
    const b: Batch = {
      lpn: Float32Array.from([L(0.4), L(0.4), L(0.5)]),
      lpr: Float32Array.from([L(0.2), L(0.2), L(0.4)]),
      adv: Float32Array.from([1, 0.5, -1]),
      mask: Float32Array.from([1, 1, 1]),
      rows: 1,
      cols: 3,
    };
    const t = await lossAndGrad(b, { delta: 0.9, ratioCap: 1.5, ratioCapMode: 'truncate' });
    const lp = Array.from(b.lpn);
    expectNear(t.loss, (-1 * 1.5 * lp[0]! - 0.5 * 1.5 * lp[1]! + 1 * (0.5 / 0.4) * lp[2]!) / 3, 1e-6, 'loss');
    expectNear(t.grad[0]!, (-1 * 1.5) / 3, 1e-6, 'grad 0');
    expectNear(t.grad[1]!, (-0.5 * 1.5) / 3, 1e-6, 'grad 1');
    const clip = await lossAndGrad(b, { delta: 0.9, ratioCap: 1.5 });
    expect(clip.grad[0]).toBe(0);
    expectNear(t.grad[2]!, clip.grad[2]!, 1e-6, 'below the cap: the clip gradient');
  });

  it('finite differences of the fused gradient: clip (every mode) and truncate above the cap', async () => {
    const b = batch(99, 2, 6);
    // keep away from the clamp and from the mask thresholds, where the loss has kinks
    for (let t = 0; t < b.lpn.length; t++) {
      b.lpr[t] = -1 - (t % 5) * 0.3;
      b.lpn[t] = b.lpr[t]! + ((t % 3) - 1) * 0.05;
    }
    const x = tensors(b);
    for (const o of [{ aggregate: 'seq-mean-token-sum-norm' as const }, { aggregate: 'token-sum' as const, divergence: 'kl' as const }, { ratioCap: 1.02, ratioCapScope: 'negative' as const }]) {
      const { grad } = await lossAndGrad(b, o);
      const fd = await numericGradientAsync((lpn) => dppoLoss({ ...x, logpNew: lpn }, o), x.logpNew, { h: 1e-2 });
      fd.forEach((f, i) => expect(Math.abs(f - grad[i]!), `${JSON.stringify(o)} [${i}]`).toBeLessThanOrEqual(1e-3));
    }
    // truncate: above the cap min(rho, cap) = cap is constant, so the value -A cap lp has derivative -A cap
    const up: Batch = { ...b, lpn: b.lpr.map((q) => q + 0.3) as Float32Array };
    const y = tensors(up);
    const o = { ratioCap: 1.1, ratioCapMode: 'truncate' as const, delta: 0.9 };
    const { grad } = await lossAndGrad(up, o);
    const fd = await numericGradientAsync((lpn) => dppoLoss({ ...y, logpNew: lpn }, o), y.logpNew, { h: 1e-2 });
    fd.forEach((f, i) => expect(Math.abs(f - grad[i]!), `truncate [${i}]`).toBeLessThanOrEqual(1e-3));
    expect(grad.some((g) => g !== 0)).toBe(true);
    tf.dispose([...Object.values(x), ...Object.values(y)]);
  });
});

describe('the cpu kernel with and without WebAssembly SIMD', () => {
  beforeAll(async () => {
    await useBackend('cpu');
  });
  afterAll(() => {
    setSimdEnabled(true);
  });
  it('keeps exactly the same tokens, with losses and gradients within float32 round-off', async () => {
    for (const o of OPTION_SETS) {
      const b = batch(7, 3, 4001); // several SIMD chunks, a tail of 3 (n % 4)
      setSimdEnabled(true);
      const simd = await lossAndGrad(b, o);
      setSimdEnabled(false);
      const js = await lossAndGrad(b, o);
      setSimdEnabled(true);
      expectNear(simd.loss, js.loss, 1e-6, `${JSON.stringify(o)} loss`);
      simd.grad.forEach((g, i) => {
        expect(g === 0, `${JSON.stringify(o)} [${i}] zero pattern`).toBe(js.grad[i] === 0);
        expect(Math.abs(g - js.grad[i]!), `${JSON.stringify(o)} [${i}]`).toBeLessThanOrEqual(1e-6 * Math.abs(js.grad[i]!));
      });
    }
  });
});

describe.each(['cpu', 'wasm'] as const)('the %s kernel on near-threshold tokens (decided again in float64)', (backend) => {
  beforeAll(async () => {
    await useBackend(backend);
  });

  /** float32 log-probs whose p - q straddles the threshold, |lp - lq| straddles the clamp 20, rho straddles the cap. */
  function adversarial(cap: number): Batch {
    const lpn: number[] = [];
    const lpr: number[] = [];
    const adv: number[] = [];
    const r = rng(5);
    const ulp = (x: number) => 2 ** (Math.floor(Math.log2(Math.abs(x))) - 23);
    for (let i = 0; i < 300; i++) {
      const positive = i % 2 === 0;
      const q = 0.21 + 0.55 * r();
      const base = Math.fround(Math.log(positive ? q + 0.2 : q - 0.2));
      for (let k = -3; k <= 3; k++) {
        lpn.push(base + k * ulp(base));
        lpr.push(Math.fround(Math.log(q)));
        adv.push(positive ? 1 : -1);
      }
    }
    for (let i = 0; i < 50; i++) {
      const lq = Math.fround(-20.5 - r()); // lp - lq around 20: the clamp's edge
      const lp = Math.fround(lq + 20);
      for (let k = -3; k <= 3; k++) {
        lpn.push(lp + k * ulp(lp));
        lpr.push(lq);
        adv.push(i % 2 === 0 ? 0.5 : -0.5);
      }
      const lq2 = Math.fround(Math.log(0.3 + 0.2 * r())); // rho around the cap
      const lp2 = Math.fround(lq2 + Math.log(cap));
      for (let k = -3; k <= 3; k++) {
        lpn.push(lp2 + k * ulp(lp2));
        lpr.push(lq2);
        adv.push(-1);
      }
    }
    const n = lpn.length;
    return { lpn: Float32Array.from(lpn), lpr: Float32Array.from(lpr), adv: Float32Array.from(adv), mask: new Float32Array(n).fill(1), rows: 1, cols: n };
  }

  it('keeps exactly the tokens of the float64 rule; loss and gradient match the float64 reference', async () => {
    const cap = 1.25;
    const b = adversarial(cap);
    for (const o of [{ delta: 0.2 }, { delta: 0.2, ratioCap: cap }, { delta: 0.2, ratioCap: cap, ratioCapMode: 'truncate' as const }]) {
      const ref = reference(b, o);
      const got = await lossAndGrad(b, o);
      expect(ref.keep.filter((k) => k === 0).length).toBeGreaterThan(100);
      expectNear(got.loss, ref.loss, 1e-5, `${JSON.stringify(o)} loss`);
      got.grad.forEach((g, i) => {
        expect(g === 0, `${JSON.stringify(o)} [${i}] zero pattern`).toBe(ref.grad[i] === 0);
        expectNear(g, ref.grad[i]!, 1e-5, `${JSON.stringify(o)} grad[${i}]`);
      });
    }
  });
});
