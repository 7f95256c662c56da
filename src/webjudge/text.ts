/**
 * Keeps the head and the tail of a long text with a note naming how much was cut
 * between them (the model sees that something is missing, and where). @internal
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - head - tail} characters cut ...]\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}

/** Collapses every run of whitespace to one space and trims the ends. @internal */
export const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Playwright's error messages carry a call log after the first line: keep the first line. @internal */
export const firstLine = (e: unknown): string => oneLine(String(e instanceof Error ? e.message : e).split('\n')[0] ?? '');
