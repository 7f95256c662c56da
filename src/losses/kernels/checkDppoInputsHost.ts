import * as tf from '@tensorflow/tfjs';
import { SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import { f32Floor } from '../../numeric/simd/f32Floor.js';
import { simdModule, simdModuleOn } from '../../numeric/simd/simdModule.js';
import { C_A, C_LP, C_LQ, C_W, copyViewsOf, heapMemory, isWasmBackend } from './dppoHostViews.js';

/**
 * The input check of `dppoLoss`'s host path on `cpu` and `wasm` in one WebAssembly SIMD
 * pass (`check_f32` of `src/numeric/simd/simd.wat`, issue #13): log-probs finite and
 * `<= tol` (`dppoLoss` passes `LOGP_TOLERANCE`), advantages finite, mask values exactly
 * 0 or 1. It answers only whether something is bad and counts the mask's ones; when
 * something is bad, `dppoLoss` names the offending element with its JavaScript checks.
 * @internal
 */

/** What {@link checkDppoInputsHost} found: `bad` 0 (all good), else 1 (a log-prob or advantage), 2 (the mask). */
export interface DppoInputCheck {
  bad: number;
  /** Mask values equal to 1. */
  ones: number;
}

/**
 * Validates the DPPO loss's inputs in one WebAssembly SIMD pass (`check_f32`): log-probs
 * finite and <= `tol`, advantages finite, mask values 0 or 1, and counts the mask's ones.
 * In place on the wasm heap, by copied chunks otherwise. `null` without WebAssembly SIMD
 * (the caller then checks in JavaScript). @internal
 */
export function checkDppoInputsHost(lpn: Float32Array, lpr: Float32Array, adv: Float32Array, lm: Float32Array, tol: number): DppoInputCheck | null {
  const own = simdModule();
  if (own === null) return null;
  const b = tf.backend();
  const mem = isWasmBackend(b) ? heapMemory(b) : null;
  const onHeap = mem !== null && lpn.buffer === mem.buffer;
  const m = onHeap ? simdModuleOn(mem) : own;
  if (m === null) return null;
  const tol32 = f32Floor(tol);
  m.bad.value = 0;
  m.ones.value = 0;
  const n = lpn.length;
  const n4 = n - (n % 4);
  if (onHeap) {
    m.check_f32(lpn.byteOffset, lpr.byteOffset, adv.byteOffset, lm.byteOffset, n4, tol32);
  } else {
    const v = copyViewsOf(m);
    for (let s = 0; s < n4; s += SIMD_CHUNK) {
      const e = Math.min(n4, s + SIMD_CHUNK);
      v.lp.set(lpn.subarray(s, e));
      v.lq.set(lpr.subarray(s, e));
      v.a.set(adv.subarray(s, e));
      v.w.set(lm.subarray(s, e));
      m.check_f32(C_LP, C_LQ, C_A, C_W, e - s, tol32);
    }
  }
  let bad = m.bad.value;
  let ones = m.ones.value;
  for (let t = n4; t < n; t++) {
    const x = lpn[t]!;
    const y = lpr[t]!;
    const z = adv[t]!;
    if (!(x <= tol && y <= tol && x - x === 0 && y - y === 0 && z - z === 0)) bad |= 1;
    if (lm[t] === 1) ones++;
    else if (lm[t] !== 0) bad |= 2;
  }
  return { bad, ones };
}
