/**
 * The node id at the start of one pytest short-summary line's text (what follows the status
 * word of `-rA`, SPEC §14): `tests/test_x.py::TestC::test_y[a b-1] - assert 2 != 2` gives
 * `tests/test_x.py::TestC::test_y[a b-1]`. Hand-written: pytest's summary has no
 * machine-readable form, and ids are not quoted, so the end of the id is found as follows.
 *
 * - The id ends where the text ends or where ` - ` (pytest's separator before the message)
 *   starts; for `XPASS` also at a plain space, because pytest 7 prints `XPASS id reason`
 *   without the dash (pytest 8+ prints `XPASS id - reason`).
 * - When `known` (the ids the same log's `-v` lines gave) holds a candidate prefix, the
 *   longest such prefix is the id: exact for any id, spaces or ` - ` inside included.
 * - Otherwise the id runs to the first `[` or the first separator, whichever comes first
 *   (so a path with spaces is read whole, except in pytest 7's `XPASS` lines); when a `[`
 *   comes first (parametrised ids: `[a b-1]`, `[c]d-2]`, `[x::y-3]`), the id runs to the
 *   first `]` that is followed by the end or a separator. So a parameter id may hold
 *   spaces, `::`, ` - ` and brackets, but one that contains `] - ` is cut there (pytest's own
 *   output is ambiguous then; the `-v` lines resolve it).
 */
export function pytestSummaryNodeId(text: string, status: string, known: ReadonlySet<string>): string {
  const ends = idEnds(text, status === 'XPASS');
  for (let k = ends.length - 1; k >= 0; k--) {
    const candidate = text.slice(0, ends[k]);
    if (known.has(candidate)) return candidate;
  }
  const stop = (status === 'XPASS' ? /[\s[]/ : /\[| - /).exec(text);
  const head = stop === null ? text.length : stop.index;
  if (text[head] !== '[') return text.slice(0, head);
  for (const end of ends) {
    if (end > head && text[end - 1] === ']') return text.slice(0, end);
  }
  return text.slice(0, ends[0]);
}

/** Every index where an id may end, ascending: each ` - `, each space when `space`, and the text's end. */
function idEnds(text: string, space: boolean): number[] {
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ' && (space || text.startsWith(' - ', i))) ends.push(i);
  }
  ends.push(text.length);
  return ends;
}
