import { LOG_RATIO_CLAMP } from './dppoKernel.js';

/**
 * The uniforms the DPPO token rule reads, as a WGSL struct-field list for a
 * tfjs `WebGPUProgram.uniforms` (appended to tfjs's own shape uniforms), and the
 * order {@link dppoRuleUniformData} fills them in.
 * @internal
 */
export const DPPO_RULE_UNIFORMS = 'deltaLow : f32, deltaHigh : f32, ratioCap : f32, divergence : i32, capMode : i32, capScope : i32, weightScale : f32,';

/** The values of {@link DPPO_RULE_UNIFORMS}, in order, for `runWebGPUProgram`. @internal */
export function dppoRuleUniformData(a: {
  deltaLow: number;
  deltaHigh: number;
  ratioCap: number;
  divergence: number;
  capMode: number;
  capScope: number;
  weightScale?: number;
}): { type: 'float32' | 'int32'; data: number[] }[] {
  return [
    { type: 'float32', data: [a.deltaLow] },
    { type: 'float32', data: [a.deltaHigh] },
    { type: 'float32', data: [a.ratioCap] },
    { type: 'int32', data: [a.divergence] },
    { type: 'int32', data: [a.capMode] },
    { type: 'int32', data: [a.capScope] },
    { type: 'float32', data: [a.weightScale ?? 1] },
  ];
}

const CLAMP = `${LOG_RATIO_CLAMP.toFixed(1)}`;

/**
 * The per-token DPPO rule of SPEC §3 in WGSL (FrogNano §4.1; DPPO Binary-TV and
 * Binary-KL; verl's `clip_ratio_c` and truncated importance sampling), the only
 * WGSL copy of it. `dppoToken(lp, lq, a, weight)` returns `vec2(w * keep * l, w * keep * g)`
 * with `w = weightScale * weight` (the contract's `weightScale` attribute, a uniform):
 * the token's weighted loss and its derivative with respect to `lp = logpNew`,
 * exactly the formulas of the kernel contract (`dppoKernel.ts`):
 * ```
 * p = exp(lp), q = exp(lq)
 * drop (tv): A > 0 ? p - q > deltaHigh : p - q < -deltaLow
 * drop (kl): moved the favoured way (A > 0: p > q; else p < q) and
 *            min(q,1)(lq - lp) + (1 - min(q,1)) ln((1 - min(q,1) + 1e-8) / (1 - min(p,1) + 1e-8)) > delta
 * rho = exp(clamp(lp - lq, ±20)); capped = ratioCap > 0 && (capScope == 0 || A < 0); r = capped ? min(rho, cap) : rho
 * clip:     l = -A r,      g = -A rho if |lp - lq| <= 20 and not (capped and rho > cap), else 0
 * truncate: l = -A r lp,   g = -A r        (capMode 1 with a cap; without a cap it is clip)
 * ```
 * Everything is float32 (a token within float32 round-off of a threshold may go the
 * other way than the float64 host rule). Needs the uniforms {@link DPPO_RULE_UNIFORMS}.
 * @internal
 */
export const DPPO_TOKEN_WGSL = /* wgsl */ `
fn dppoToken(lp : f32, lq : f32, a : f32, weight : f32) -> vec2<f32> {
  let w = weight * uniforms.weightScale;
  if (w == 0.0) {
    return vec2<f32>(0.0, 0.0);
  }
  let p = exp(lp);
  let q = exp(lq);
  let positive = a > 0.0;
  var drop = false;
  if (uniforms.divergence == 1) {
    if (select((p < q), (p > q), positive)) {
      let pc = min(p, 1.0);
      let qc = min(q, 1.0);
      let d = qc * (lq - lp) + (1.0 - qc) * log((1.0 - qc + 1e-8) / (1.0 - pc + 1e-8));
      drop = d > select(uniforms.deltaLow, uniforms.deltaHigh, positive);
    }
  } else {
    let dp = p - q;
    drop = select((dp < -uniforms.deltaLow), (dp > uniforms.deltaHigh), positive);
  }
  if (drop) {
    return vec2<f32>(0.0, 0.0);
  }
  let lr = lp - lq;
  let rho = exp(clamp(lr, -${CLAMP}, ${CLAMP}));
  let capped = uniforms.ratioCap > 0.0 && (uniforms.capScope == 0 || a < 0.0);
  let r = select(rho, min(rho, uniforms.ratioCap), capped);
  if (uniforms.capMode == 1 && uniforms.ratioCap > 0.0) {
    return w * vec2<f32>(-a * r * lp, -a * r);
  }
  let flows = abs(lr) <= ${CLAMP} && !(capped && rho > uniforms.ratioCap);
  return w * vec2<f32>(-a * r, select(0.0, -a * rho, flows));
}
`;
