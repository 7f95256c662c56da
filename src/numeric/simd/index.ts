/**
 * Vectorised `exp` and `log` in WebAssembly SIMD (issue #13), for the typed-array
 * primitives and the cpu/wasm DPPO kernel.
 *
 * What is exported:
 * - {@link expInto}`(src, dst, start?, end?, dstOffset?)`: `dst[i] = exp(src[i])` over a
 *   `Float64Array` or `Float32Array` (float32 is promoted exactly), bit-identical to `Math.exp`.
 * - {@link logInto}`(src, dst, start?, end?, dstOffset?)`: `dst[i] = ln(src[i])` over a
 *   `Float64Array`, bit-identical to `Math.log` (`-Infinity` at ±0, `NaN` below 0).
 * - {@link simdEnabled}`()` says whether the WASM path is in use; {@link setSimdEnabled}`(false)`
 *   forces the pure-JS fallback (tests, measurements). Plain arrays, and runtimes without
 *   WebAssembly SIMD, always take the fallback (`Math.exp` / `Math.log` loops): same numbers.
 *
 * How: `simd.wat` is hand-written WAT, a lane-wise (2 x float64) port of fdlibm's `exp` and
 * `log` (the algorithms V8 runs for `Math.exp` / `Math.log`) with every branch turned into a
 * select and every operation the same IEEE double operation in the same order, so the
 * results are the same bits. It also holds the DPPO Binary-TV passes (`tv_mask_f64` for the
 * typed-array `dppoMask`, `check_f32` and `tv_loss_f32` for the fused loss kernel; each one pass, with `p`, `q` computed in the rule loop and near tokens returned in a list) with a
 * fast float32 exp (`fexp4`, relative error <= 2^-23.55, no division); their callers decide
 * near-threshold tokens again in float64 ({@link tvNearWindow}), so masks stay exact.
 * The module imports its memory: one instance has its own, another runs on
 * tfjs-backend-wasm's heap in place. `scripts/build-wasm.mjs` (wabt, a devDependency)
 * compiles it into `simdBytes.ts` (base64, committed: no build step at install or run time);
 * a test checks the committed bytes equal a fresh compile. The module is ~5.4 KB, compiled
 * synchronously once (a browser's main thread refuses that above 4 KB: the JS paths run there). Speed on this 2-core machine: the fdlibm exp about that of V8's own
 * `Math.exp` loop (its division dominates); `fexp4` about 2 ns per value, 10x `Math.exp` (its constants held in registers across the loop, see simd.wat).
 * @module numeric/simd
 */
export { expInto, logInto, SIMD_CHUNK, tvNearWindow } from './expInto.js';
export { simdEnabled, setSimdEnabled } from './simdModule.js';
