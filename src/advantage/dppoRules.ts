/**
 * The per-token DPPO drop rules of SPEC §3 (FrogNano §4.1; DPPO Binary-TV and
 * Binary-KL), written once in JavaScript and used by the array {@link dppoMask}, the
 * host-side mask of `dppoLoss` (diagnostics) and the float64 side of the cpu/wasm fused
 * kernel (`src/losses/kernels/dppoKernelFloat64.ts`). Two other copies exist, each
 * checked against {@link dppoMask} by tests: the WASM SIMD passes (`tv_mask_f64`,
 * `tv_loss_f32` in `src/numeric/simd/simd.wat`) hold the tv rule and the loss term again
 * in WAT, in float32, and stay exact because every token near a threshold is left
 * undecided there and decided again in float64 with these rules (`tvNearWindow` in
 * `expInto.ts` bounds the error); the webgpu kernel holds the rule in WGSL
 * (`src/losses/kernels/dppoRule.wgsl.ts`, float32).
 *
 * Each rule gets `lp = logpNew`, `lq = logpRollout`, `p = exp(lp)`, `q = exp(lq)`
 * (the callers compute them: `Math.exp`, or the WASM SIMD exp, which is bit-identical),
 * whether `A > 0`, and `lo = deltaLow`, `hi = deltaHigh`; it returns `true` when the
 * token is dropped. Comparisons are strict: a token exactly at a threshold is kept,
 * and a move in the direction the advantage does not favour is never dropped.
 * @internal
 */
export type DppoDropRule = (lp: number, lq: number, p: number, q: number, positive: boolean, lo: number, hi: number) => boolean;

/**
 * Binary-TV: `dp = p - q`; drop when `A > 0 and dp > deltaHigh` or `A <= 0 and dp < -deltaLow`.
 * @internal
 */
export const tvDrops: DppoDropRule = (_lp, _lq, p, q, positive, lo, hi) => {
  const dp = p - q;
  return positive ? dp > hi : dp < -lo;
};

/**
 * Binary-KL: `KL = q (ln q - ln p) + (1 - q) ln((1 - q + 1e-8) / (1 - p + 1e-8))`,
 * dropped when `KL > deltaHigh` and `p > q` (A > 0), or `KL > deltaLow` and `p < q` (A <= 0).
 * `p`, `q` may exceed 1 by the log-prob tolerance; they are clamped to 1 inside the
 * logarithm so `1 - q + 1e-8` stays > 0 (no NaN). The log is only taken when the
 * direction test passes.
 * @internal
 */
export const klDrops: DppoDropRule = (lp, lq, p, q, positive, lo, hi) => {
  if (positive ? !(p > q) : !(p < q)) return false;
  const pc = p < 1 ? p : 1;
  const qc = q < 1 ? q : 1;
  const d = qc * (lq - lp) + (1 - qc) * Math.log((1 - qc + 1e-8) / (1 - pc + 1e-8));
  return d > (positive ? hi : lo);
};

/** The rule registry: one entry per `divergence` option value. @internal */
export const DPPO_DROP_RULES = { tv: tvDrops, kl: klDrops } as const satisfies Record<string, DppoDropRule>;

/** A `divergence` option value. */
export type DppoDivergence = keyof typeof DPPO_DROP_RULES;
