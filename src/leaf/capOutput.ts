/**
 * Keeps the head and tail of a long output with a note in between: output of up
 * to `maxChars` characters is kept whole; longer output keeps `floor(maxChars / 2)`
 * characters at each end. `killedNote` (the output-limit kill) is appended either
 * way and marks the result truncated.
 */
export function capOutput(text: string, maxChars: number, killedNote = ''): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text: killedNote ? `${text}${killedNote}` : text, truncated: killedNote !== '' };
  const half = Math.floor(maxChars / 2);
  const omitted = text.length - 2 * half;
  return {
    text: `${text.slice(0, half)}\n[... ${omitted} characters of output omitted; narrow the command (head, tail, grep) to see them ...]\n${text.slice(text.length - half)}${killedNote}`,
    truncated: true,
  };
}
