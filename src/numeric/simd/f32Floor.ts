/**
 * The largest float32 not above `x`, so that for a float32 `v`, `v <= f32Floor(x)` is
 * exactly `v <= x` in float64 (the WASM SIMD passes compare float32 values against a
 * float64 tolerance this way; and a float64 `y > x` rounds to a float32 `>= f32Floor(x)`,
 * since rounding is monotone).
 *
 * @param x - a finite number
 * @returns the float32 `r <= x` with no float32 between `r` and `x`
 * @example f32Floor(1e-4) // 0.00009999999747378752 (Math.fround(1e-4) is above 1e-4)
 * @internal
 */
export function f32Floor(x: number): number {
  const r = Math.fround(x);
  if (r <= x) return r;
  const b = new Float32Array([r]);
  const u = new Int32Array(b.buffer);
  u[0] = r > 0 ? u[0]! - 1 : u[0]! + 1;
  return b[0]!;
}
