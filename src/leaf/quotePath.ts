import { isUtf8 } from 'node:buffer';

/** git's named escapes (quote.c): the control bytes with a letter, and the two quoted characters. */
const NAMED: Readonly<Record<number, string>> = { 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x22: '"', 0x5c: '\\' };

/** True for a byte git always escapes in a path: a control byte, DEL, `"` or `\`. */
const special = (b: number): boolean => b < 0x20 || b === 0x7f || b === 0x22 || b === 0x5c;

/**
 * True when `raw` must be written C-quoted: it holds a control byte (< 0x20),
 * DEL (0x7f), `"` or `\`, or is not valid UTF-8.
 */
export function pathNeedsQuoting(raw: Uint8Array): boolean {
  for (const b of raw) if (special(b)) return true;
  return !isUtf8(raw);
}

/**
 * A path's bytes written the way git writes paths in a diff, so that a file
 * name can neither inject lines into a listing or a `diff --git` header nor
 * collide with another name: a path that {@link pathNeedsQuoting} becomes a
 * C-quoted string, `"..."`, with `\a \b \t \n \v \f \r \" \\` for those bytes
 * and a three-digit octal escape `\NNN` for every other control byte, DEL and
 * every byte >= 0x80 (valid UTF-8 too, inside quotes); any other path is
 * returned as it is, valid non-ASCII UTF-8 included (what `git diff` writes
 * with `core.quotePath=false`; a quoted path is what it writes by default).
 * `git apply` reads both forms. Distinct byte strings always give distinct
 * results, and a quoted result is the only kind that starts with `"`.
 *
 * @example quotePath(Buffer.from('a/x\ny')) // '"a/x\\ny"'
 * @example quotePath(Buffer.from([0x63, 0xe9])) // '"c\\351"'
 * @example quotePath(Buffer.from('src/caf\u00e9.py')) // 'src/café.py'
 */
export function quotePath(raw: Uint8Array): string {
  if (!pathNeedsQuoting(raw)) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  let out = '"';
  for (const b of raw) {
    const named = NAMED[b];
    if (named !== undefined) out += `\\${named}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}
