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
