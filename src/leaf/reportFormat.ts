// Text and number formatting of the Leaf report page (HTML fragments). @internal

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
const esc = escapeHtml;

/** `75%`, `43.8%`. */
export function pct(v: number): string {
  const p = v * 100;
  return Number.isInteger(Math.round(p * 10) / 10) ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}
/** `3/4 (75%)`. */
export const rate = (solved: number, n: number): string => `${solved}/${n} (${pct(n === 0 ? 0 : solved / n)})`;
/** A number with `minDigits` to `digits` decimals, thousands grouped; `—` for NaN. */
export function num(v: number, digits = 1, minDigits = 0): string {
  if (!Number.isFinite(v)) return '—';
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: minDigits });
}
export const fixed = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));
export const signed = (v: number | null | undefined, digits: number): string => (v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(digits)}`);
export const lineCount = (s: string): number => (s === '' ? 0 : s.replace(/\n$/, '').split('\n').length);
export const plural = (n: number, one: string, many = `${one}s`): string => `${num(n, 0)} ${n === 1 ? one : many}`;
export const counts = (c: Record<string, number>): string =>
  Object.entries(c)
    .map(([k, n]) => `${esc(k)}&nbsp;&times;${n}`)
    .join(', ');

/** An id fragment safe in attributes and URLs. */
export const slug = (s: string): string => s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80) || '_';

/** A `<pre>`, collapsed behind `summary` when longer than `maxLines` lines (or 4000 characters). */
export function block(text: string, cls: string, summary: string, maxLines = 20): string {
  const pre = `<pre class="${cls}">${esc(text)}</pre>`;
  const n = lineCount(text);
  if (n <= maxLines && text.length <= 4000) return pre;
  return `<details class="fold"><summary>${summary} <span class="dim">(${plural(n, 'line')})</span></summary>${pre}</details>`;
}

/** First line of `s`, cut to `max` characters, escaped. */
export function firstLine(s: string, max = 90): string {
  const l = s.split('\n').find((x) => x.trim() !== '') ?? '';
  return esc(l.length > max ? `${l.slice(0, max)}…` : l);
}
