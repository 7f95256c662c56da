/**
 * A short, readable rendering of a bad value for error messages: a number as
 * written (`NaN`, `-Infinity`), a string quoted (cut at 40 characters), `null`,
 * `an array of length n`, otherwise the `typeof` (`object`, `undefined`, ...).
 */
export function describeValue(v: unknown): string {
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  return typeof v;
}

/**
 * What an error message says it got: {@link describeValue}, plus `nothing` for
 * a missing value (`undefined`) and `true` / `false` for a boolean.
 */
export function describeGot(v: unknown): string {
  if (v === undefined) return 'nothing';
  return typeof v === 'boolean' ? String(v) : describeValue(v);
}
