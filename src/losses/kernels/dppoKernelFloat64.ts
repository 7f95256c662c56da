import { DPPO_DROP_RULES, tvDrops } from '../../advantage/dppoRules.js';
import { expInto, SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import { LOG_RATIO_CLAMP, type DppoHostPass, type DppoKernelAttrs } from './dppoKernel.js';

/**
 * The float64 side of the cpu/wasm DPPO kernel (issue #13; contract in `dppoKernel.ts`):
 * the per-token loss term of SPEC §3 with `p`, `q` from `Math.exp` (or the bit-identical
 * `expInto`), the JavaScript pass that runs it over every token (Binary-KL, or no
 * WebAssembly SIMD), and {@link exactTerm}, which decides again a token the WASM SIMD pass
 * left near a threshold, so that every decision is that of the float64 rule of
 * `dppoRules.ts` (that of the array `dppoMask`).
 *
 * Per token: `rho = exp(clamp(lp - lq, ±LOG_RATIO_CLAMP))` (as `p / q` where both are
 * normal), `r = min(rho, cap)` where the cap applies (`ratioCap` > 0, and `A < 0` with
 * scope negative); clip: `l = -A r`, gradient `-A rho` inside the clamp and below the cap,
 * else 0; truncate: `l = -A r lp`, gradient `-A r`. Both are scaled by the weight `wScale w_t`.
 * @internal
 */

const MIN_NORMAL = 2 ** -1022;
const RHO_HI = Math.exp(LOG_RATIO_CLAMP);
const RHO_LO = Math.exp(-LOG_RATIO_CLAMP);
const P_BUF = new Float64Array(SIMD_CHUNK);
const Q_BUF = new Float64Array(SIMD_CHUNK);

/** Per-call constants of the loss term. @internal */
export interface TermConsts {
  capOn: boolean;
  cap: number;
  truncate: boolean;
  negativeOnly: boolean;
}

/** The {@link TermConsts} of the kernel's attributes. @internal */
export function termConsts(attrs: DppoKernelAttrs): TermConsts {
  const capOn = attrs.ratioCap > 0;
  return { capOn, cap: attrs.ratioCap, truncate: capOn && attrs.capMode === 1, negativeOnly: attrs.capScope === 1 };
}

/** The gradient of the last {@link term} call (module scratch: the passes are synchronous). */
let termGrad = 0;

/**
 * The loss term of one kept token (SPEC §3, contract in `dppoKernel.ts`) in float64:
 * returns `wt * l_t`, leaves `wt * g_t` in {@link termGrad}. `p`, `q` are `exp(lp)`, `exp(lq)`.
 */
function term(lp: number, lq: number, p: number, q: number, a: number, wt: number, c: TermConsts): number {
  const lr = lp - lq;
  let rho: number;
  let inside = true;
  if (lr > LOG_RATIO_CLAMP) {
    rho = RHO_HI;
    inside = false;
  } else if (lr < -LOG_RATIO_CLAMP) {
    rho = RHO_LO;
    inside = false;
  } else rho = q >= MIN_NORMAL && p >= MIN_NORMAL ? p / q : Math.exp(lr);
  const over = c.capOn && (!c.negativeOnly || a < 0) && rho > c.cap;
  const r = over ? c.cap : rho;
  if (c.truncate) {
    termGrad = wt * (-a * r);
    return wt * (-a * r * lp);
  }
  termGrad = inside && !over ? wt * (-a * rho) : 0;
  return wt * (-a * r);
}

/**
 * One tv token `t` decided in float64 with `Math.exp` (a token the WASM pass left near a
 * threshold, or the odd tail): writes its gradient to `grad[gi]`, returns its loss term. @internal
 */
export function exactTerm(lpn: ArrayLike<number>, lpr: ArrayLike<number>, adv: ArrayLike<number>, w: ArrayLike<number>, wScale: number, t: number, lo: number, hi: number, c: TermConsts, grad: Float32Array, gi: number): number {
  const wt = w[t]! * wScale;
  const lp = lpn[t]!;
  const lq = lpr[t]!;
  const a = adv[t]!;
  const p = Math.exp(lp);
  const q = Math.exp(lq);
  if (wt === 0 || tvDrops(lp, lq, p, q, a > 0, lo, hi)) {
    grad[gi] = 0;
    return 0;
  }
  const l = term(lp, lq, p, q, a, wt, c);
  grad[gi] = termGrad;
  return l;
}

/**
 * The JavaScript pass ({@link DppoHostPass}; Binary-KL, or no WebAssembly SIMD): writes
 * `grad` (length N) and returns `sum_t weightScale w_t keep_t l_t` (float64). @internal
 */
export const dppoHostPassJs: DppoHostPass = (lpn, lpr, adv, w, attrs, grad) => {
  const wScale = attrs.weightScale ?? 1;
  const drops = attrs.divergence === 1 ? DPPO_DROP_RULES.kl : DPPO_DROP_RULES.tv;
  const lo = attrs.deltaLow;
  const hi = attrs.deltaHigh;
  const c = termConsts(attrs);
  const n = lpn.length;
  let loss = 0;
  for (let s = 0; s < n; s += SIMD_CHUNK) {
    const e = Math.min(n, s + SIMD_CHUNK);
    expInto(lpn, P_BUF, s, e);
    expInto(lpr, Q_BUF, s, e);
    for (let t = s; t < e; t++) {
      const wt = w[t]! * wScale;
      const a = adv[t]!;
      const lp = lpn[t]!;
      const lq = lpr[t]!;
      const p = P_BUF[t - s]!;
      const q = Q_BUF[t - s]!;
      if (wt === 0 || drops(lp, lq, p, q, a > 0, lo, hi)) {
        grad[t] = 0;
        continue;
      }
      loss += term(lp, lq, p, q, a, wt, c);
      grad[t] = termGrad;
    }
  }
  return loss;
};
