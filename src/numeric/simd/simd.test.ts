import { afterAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { expInto, logInto, setSimdEnabled, simdEnabled } from './index.js';
import { expIntoJs, logIntoJs, tvNearWindow } from './expInto.js';
import { simdModule } from './simdModule.js';
import { rng } from '../../../test/helpers/rng.js';


const EXP_EDGES = [
  0, -0, 1, -1, 5e-324, -5e-324, 1e-300, -1e-300, 2 ** -28, -(2 ** -28), 2 ** -29, -(2 ** -29), 2 ** -27,
  0.34657359027997264, 0.3465735902799727, -0.34657359027997264, 1.0397207708399179, -1.0397207708399179,
  709.782712893384, 709.7827128933841, 709.78, 710, -708.3964185322641, -708.4, -708.39, -745.1332191019411,
  -745.1332191019412, -745.14, -746, 1e308, -1e308, Infinity, -Infinity, NaN, Math.LN2, -Math.LN2, 20, -20,
];
const LOG_EDGES = [
  0, -0, 1, -1, 5e-324, 1e-310, 2.2250738585072014e-308, 2.225073858507201e-308, 1e-300, 0.5, 2, Math.SQRT2, Math.SQRT1_2,
  1 + 2 ** -52, 1 - 2 ** -53, 1 + 2 ** -21, 1 - 2 ** -21, 1 + 2 ** -19, 0.9999, 1.0001, 1e8, 1.7976931348623157e308,
  Infinity, -Infinity, NaN, -5e-324, 1e-8, 1 - 1e-8 + 1e-8, 0.70710678, 1.4142135,
];

function wideExpArgs(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = i % 6;
    x[i] = k === 0 ? (r() - 0.5) * 1500 : k === 1 ? -r() * 30 : k === 2 ? (r() - 0.5) * 3 : k === 3 ? (r() - 0.5) * 1e-6 : k === 4 ? -700 - r() * 50 : (r() - 0.5) * 2 ** -26;
  }
  x.set(EXP_EDGES, 0);
  return x;
}

function wideLogArgs(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = i % 5;
    x[i] = k === 0 ? Math.exp((r() - 0.5) * 1400) : k === 1 ? r() : k === 2 ? 1 + (r() - 0.5) * 2 ** -18 : k === 3 ? r() * 1e-310 : (r() - 0.2) * 10;
  }
  x.set(LOG_EDGES, 0);
  return x;
}

function expectSameBits(a: Float64Array, b: Float64Array | number[], what: string): void {
  let bad = 0;
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i])) {
      bad++;
      if (first < 0) first = i;
    }
  }
  expect(bad, `${what}: ${bad} differ, first at ${first}: ${a[first]} vs ${b[first]}`).toBe(0);
}

describe('WASM SIMD exp and log', () => {
  afterAll(() => {
    setSimdEnabled(true);
  });

  it('the runtime has WebAssembly SIMD (Node >= 16), so the WASM path is the one tested here', () => {
    expect(simdEnabled()).toBe(true);
  });

  it('exp is bit-identical to Math.exp over wide ranges and the edge values (float64 in)', () => {
    const x = wideExpArgs(200_003, 1);
    const got = new Float64Array(x.length);
    expInto(x, got);
    expectSameBits(got, Array.from(x, Math.exp), 'exp');
  });

  it('exp of float32 input is Math.exp of the (exactly promoted) float32 value; ranges and offsets', () => {
    const x = new Float32Array(wideExpArgs(50_001, 2));
    const got = new Float64Array(x.length + 3).fill(7);
    expInto(x, got, 5, x.length, 3); // a sub-range, written at an offset
    expect(got.subarray(0, 3)).toEqual(Float64Array.of(7, 7, 7));
    expectSameBits(got.subarray(3, 3 + x.length - 5), Array.from(x.subarray(5), Math.exp), 'exp f32');
  });

  it('log is bit-identical to Math.log over wide ranges, subnormals and the edge values', () => {
    const x = wideLogArgs(200_001, 3);
    const got = new Float64Array(x.length);
    logInto(x, got);
    expectSameBits(got, Array.from(x, Math.log), 'log');
  });

  it('the pure-JS fallback (setSimdEnabled(false), or plain arrays) gives the same numbers', () => {
    const x = wideExpArgs(10_001, 4);
    const wasm = new Float64Array(x.length);
    expInto(x, wasm);
    expect(setSimdEnabled(false)).toBe(true);
    expect(simdEnabled()).toBe(false);
    const js = new Float64Array(x.length);
    expInto(x, js);
    const plain = new Float64Array(x.length);
    expIntoJs(Array.from(x), plain);
    setSimdEnabled(true);
    expectSameBits(js, wasm, 'fallback exp');
    expectSameBits(plain, wasm, 'plain-array exp');
    const y = wideLogArgs(10_001, 5);
    const a = new Float64Array(y.length);
    const b = new Float64Array(y.length);
    logInto(y, a);
    logIntoJs(y, b);
    expectSameBits(a, b, 'fallback log');
  });

  it('fexp4 (the DPPO passes\' fast float32 exp) is within 2^-23.55 of Math.exp, relative to max(e^x, 2^-126)', () => {
    // The bound was established over every float32 in [-87.3365, 1e-4] (2.07e9 values,
    // scratch script, ~80 s): max 8.132e-8 = 2^-23.552. Here: 1M random float32 and the edges.
    const m = simdModule()!;
    const C = 4096;
    const src = new Float32Array(m.memory.buffer, 0, C);
    const dst = new Float32Array(m.memory.buffer, C * 4, C);
    const r = rng(11);
    const edges = [0, -0, 1e-4, -1e-45, -1e-30, -0.34657359, 0.34657359, -0.6931472, -1, -20, -20.000002, -87, -87.33654, -87.3365478515625, -87.34, -88, -100, -1e30, -Infinity];
    let worst = 0;
    let at = 0;
    for (let rep = 0; rep < 256; rep++) {
      for (let i = 0; i < C; i++) src[i] = rep === 0 && i < edges.length ? edges[i]! : i % 3 === 0 ? -r() * 87.3 : i % 3 === 1 ? -r() * 2 : (r() - 0.9) * 2e-3;
      m.fexp_f32(0, C * 4, C);
      for (let i = 0; i < C; i++) {
        const x = src[i]!;
        const e = Math.exp(x);
        const err = x < -87.3365478515625 ? (dst[i] === 0 ? 0 : 1) : Math.abs(dst[i]! - e) / Math.max(e, 2 ** -126);
        if (err > worst) {
          worst = err;
          at = x;
        }
      }
    }
    expect(worst, `worst at ${at}`).toBeLessThanOrEqual(2 ** -23.55);
    src.set([NaN, 0, -Infinity, -1e30]);
    m.fexp_f32(0, C * 4, 4);
    expect(Array.from(dst.subarray(0, 4))).toEqual([NaN, 1, 0, 0]);
  });

  it('each inline copy of fexp4 in the DPPO passes is the text of the tested reference ($expChunk), names aside', async () => {
    const wat = await readFile(new URL('./simd.wat', import.meta.url), 'utf8');
    // a copy: from its ';; $Y = fexp4($X)' line to the line zeroing Y below the clamp; code lines only
    const re = /;; (\$\w+) = fexp4\((\$\w+)\)[^\n]*\n([\s\S]*?\(local\.set \1 \(v128\.andnot[^\n]*)/g;
    const copies = [...wat.matchAll(re)].map(([, y, x, body]) =>
      body!
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith(';;'))
        .join('\n')
        .replace(/\$(xc|t|k|r)\d\b/g, '$$$1')
        .replace(new RegExp(`\\${y}\\b`, 'g'), '$$Y')
        .replace(new RegExp(`\\${x}\\b`, 'g'), '$$X'),
    );
    expect(copies.length).toBe(5); // the reference, two in tv_mask_f64, two in tv_loss_f32
    for (const c of copies.slice(1)) expect(c).toBe(copies[0]);
    expect(copies[0]).toContain('(f32x4.add (local.get $p1) (f32x4.mul (local.get $r) (local.get $p0)))');
  });

  it('the near band of the DPPO tv passes is 2^-18 (2 e^1e-4 + max(lo, hi)) + 2^-22', () => {
    expect(tvNearWindow(0.2, 0.2)).toBeCloseTo(2 ** -18 * (2 * Math.exp(1e-4) + 0.2) + 2 ** -22, 12);
    expect(tvNearWindow(0.1, 0.3)).toBeGreaterThan(tvNearWindow(0.2, 0.2));
  });

  it('the committed simdBytes.ts equals a fresh compile of simd.wat (scripts/build-wasm.mjs)', async () => {
    const script = '../../../scripts/build-wasm.mjs';
    const { compileSimdWat, simdModuleSource } = (await import(script)) as {
      compileSimdWat: () => Promise<Uint8Array>;
      simdModuleSource: (b: Uint8Array) => string;
    };
    const fresh = simdModuleSource(await compileSimdWat());
    const committed = await readFile(new URL('./simdBytes.ts', import.meta.url), 'utf8');
    expect(committed).toBe(fresh);
  });
});
